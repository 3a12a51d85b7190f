//! The floor under any OTF2 read: every event record of an archive decoded (`readers::otf2::events::decode`,
//! the decoder every reader and `weft index` run) from files already in memory, each event handed to a
//! callback that only counts it, with the mapping tables each location's definitions give. No intervals,
//! messages or model are made: what is left is the cost of walking the bytes. Prints the events, the
//! seconds of each run and the median's events/s (BENCHMARKS.md, session 30).
//!
//!   cargo run --release --example otf2_decode_floor -- big/traces.otf2 [RUNS]

use std::time::Instant;
use weft::readers::otf2::definitions::parse_local;
use weft::readers::otf2::{anchor, events};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let anchor_path = std::path::PathBuf::from(args.next().ok_or("give an OTF2 anchor (X.otf2)")?);
    let runs: usize = args.next().map_or(Ok(5), |s| s.parse())?;
    let a = anchor::parse(&std::fs::read(&anchor_path)?).map_err(|e| format!("anchor: {}", e.what))?;
    let stem = anchor_path.with_extension("");
    // Each location's event file and its local definitions (mapping tables), read before timing.
    let mut files = Vec::new();
    for entry in std::fs::read_dir(&stem)? {
        let path = entry?.path();
        if path.extension().is_some_and(|x| x == "evt") {
            let defs = std::fs::read(path.with_extension("def")).unwrap_or_default();
            let (local, _) = parse_local(&defs, a.chunk_size_defs);
            files.push((std::fs::read(&path)?, local));
        }
    }
    let mut secs = Vec::with_capacity(runs);
    let mut total = 0u64;
    for _ in 0..runs {
        let t = Instant::now();
        let (mut n, mut sum) = (0u64, 0u64);
        for (bytes, local) in &files {
            let (_, err) = events::decode(bytes, a.chunk_size_events, local, |ticks, _, _| {
                n += 1;
                sum = sum.wrapping_add(ticks);
            });
            if let Some(e) = err {
                return Err(format!("byte {}: {}", e.offset, e.what).into());
            }
        }
        secs.push(t.elapsed().as_secs_f64());
        total = n;
        std::hint::black_box(sum);
    }
    let mut sorted = secs.clone();
    sorted.sort_by(f64::total_cmp);
    let median = sorted[sorted.len() / 2];
    let runs: Vec<String> = secs.iter().map(|s| format!("{s:.3}")).collect();
    println!(
        "{total} events in {} files; seconds {}; median {median:.3} s = {:.1} M events/s",
        files.len(),
        runs.join(" "),
        total as f64 / median / 1e6
    );
    Ok(())
}
