//! Cost of the grain graph's parallelism profile at 131,072 grains (fib(45) with cutoff 16 on 48 cores, the
//! size the page's main-thread budget is set for): building it (once, in the worker), the grains running at
//! an instant (per hover on the strip), the strip's pixel columns (per frame), and what it adds to the
//! worker -> page bundle. Best of 5.
//!
//! `cargo run --example parallelism_bench`

use std::time::Instant;
use weft::analyses::grains::{GrainAnalysis, Parallelism, Thresholds};
use weft::layouts::grain_bundle::GrainBundle;
use weft::layouts::grains::{layout, LayoutParams};
use weft::readers::{open, Source};
use weft::samples::grains::fib_profile;

fn best_of<T>(runs: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut best = f64::INFINITY;
    let mut out = None;
    for _ in 0..runs {
        let t = Instant::now();
        let r = f();
        best = best.min(t.elapsed().as_secs_f64() * 1e3);
        out = Some(r);
    }
    (best, out.expect("runs > 0"))
}

fn main() {
    let bytes = fib_profile(45, 16, 48);
    let (input, _) = open("fib45-c16.csv", Source::Bytes(&bytes)).and_then(|i| i.into_grains("fib")).expect("reads");
    let a = GrainAnalysis::new(&input, Thresholds::paper()).expect("analyses");
    let g = &a.graph;
    let (t_new, p) = best_of(5, || Parallelism::new(&a.graph, &a.critical));
    println!("grains {} nodes {} fragments {} steps {}", g.grains(), g.nodes(), p.seg_start.len(), p.step_t.len());
    println!("max {} mean {:.1} span {}", p.max, p.mean, p.span);
    println!("build (sweep + index)        {t_new:>9.2} ms");
    let instants: Vec<u64> = (1..100).map(|k| p.span * k / 100).collect();
    let mut worst = 0.0f64;
    let mut total = 0.0;
    let mut most = 0;
    for &t in &instants {
        let (ms, r) = best_of(5, || p.running_at(t));
        worst = worst.max(ms);
        total += ms;
        most = most.max(r.len());
    }
    println!("running_at, mean of 99       {:>9.3} ms (worst {worst:.3} ms, up to {most} grains)", total / 99.0);
    let (t_cols, _) = best_of(5, || p.columns(1200));
    println!("strip columns, 1200 px       {t_cols:>9.3} ms");
    let l = layout(g, &LayoutParams::default());
    let with = GrainBundle::new(a.clone(), l.clone()).encode().len();
    let mut empty = a.clone();
    empty.parallelism = Parallelism::default();
    let without = GrainBundle::new(empty, l).encode().len();
    println!(
        "bundle {with} bytes, of which the profile {} ({:.1} %)",
        with - without,
        100.0 * (with - without) as f64 / with as f64
    );
}
