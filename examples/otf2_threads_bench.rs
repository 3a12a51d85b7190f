//! Time the interpretation of an OTF2 trace's thread and task events (crates/readers/src/otf2_threads), apart from
//! decoding the archive: thread events for the execution graph, the task profile for the grain graph, and
//! the graphs built from them. Input: an OTF2 anchor, e.g. the fib task program written by
//! `tests/oracle/otf2_oracle.py tasks DIR 20`.
//!
//!     cargo run --release --example otf2_threads_bench -- DIR/traces.otf2

use std::time::Instant;
use weft::analyses::execgraph::build;
use weft::analyses::grains::{GrainAnalysis, Thresholds};
use weft::model::grains::Grains;
use weft::readers::otf2::read_path_full;
use weft::readers::otf2_threads::{execgraph_events, grain_profile};

fn median_ms(mut f: impl FnMut()) -> f64 {
    let mut times: Vec<f64> = (0..7)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).ok_or("give an OTF2 anchor (X.otf2)")?;
    let path = std::path::Path::new(&path);
    let t = Instant::now();
    let read = read_path_full(path).ok_or("not an OTF2 trace")??;
    let decode_ms = t.elapsed().as_secs_f64() * 1e3;
    let (events, _) = execgraph_events(&read, "bench")?;
    let (profile, _) = grain_profile(&read, "bench")?;
    println!(
        "trace           {} thread records, {} events decoded in {decode_ms:.1} ms",
        read.thread_events.len(),
        read.trace.event_records
    );
    let m = median_ms(|| {
        let _ = weft::readers::otf2_threads::walk::walk(&read.trace, &read.thread_events);
    });
    println!("walk            {m:.1} ms");
    let m = median_ms(|| {
        let _ = execgraph_events(&read, "bench");
    });
    println!("thread events   {m:.1} ms -> {} events", events.events.len());
    let m = median_ms(|| {
        let _ = build(&events);
    });
    let g = build(&events)?;
    println!("execution graph {m:.1} ms -> {} threads, {} nodes", g.threads.len(), g.nodes.len());
    let m = median_ms(|| {
        let _ = grain_profile(&read, "bench");
    });
    println!("task profile    {m:.1} ms -> {} grains", profile.len());
    let input = Grains::Profile(profile);
    let m = median_ms(|| {
        let _ = GrainAnalysis::new(&input, Thresholds::paper());
    });
    let a = GrainAnalysis::new(&input, Thresholds::paper())?;
    println!("grain analysis  {m:.1} ms -> {} nodes, {} edges", a.graph.nodes(), a.graph.edges());
    Ok(())
}
