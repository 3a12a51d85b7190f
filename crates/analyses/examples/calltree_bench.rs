//! Benchmark of the call tree (issue 55, `analyses::calltree`) beside the region profile it reduces to
//! (`analyses::profile`, the baseline walk), on the trace of `profile_bench`: 163,840 locations x 61
//! intervals (10 M; MPI calls nested in the work, built through TraceBuilder): the whole trace, a window of a
//! tenth of the run, that window over one location in eight; then the inverted tree, the per-location trees
//! and the duration histogram and outliers of the whole trace.
//!
//!     cargo run -p weft-analyses --release --example calltree_bench
//!
//! Prints best-of-5 wall times and ns per interval of the trace.

use std::time::{Duration, Instant};
use weft_analyses::calltree::{call_tree, per_location};
use weft_analyses::histogram::{durations, histogram, outliers};
use weft_analyses::moments::TimeWindow;
use weft_analyses::profile::profile;
use weft_samples::utilization::utilization_trace;

fn best_of<T>(n: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut best = Duration::MAX;
    let mut out = None;
    for _ in 0..n {
        let t = Instant::now();
        let v = f();
        best = best.min(t.elapsed());
        out = Some(v);
    }
    (best, out.expect("n > 0"))
}

fn main() {
    let t = Instant::now();
    let trace = utilization_trace(163_840, 10_000_000);
    let n = trace.intervals.len();
    println!("built {n} intervals on {} locations in {:.2?}", trace.locations.len(), t.elapsed());
    let span = trace.span_ns;
    let tenth = TimeWindow { start_ns: span / 2, end_ns: span / 2 + span / 10 };
    let per = |d: Duration| d.as_nanos() as f64 / n as f64;
    // What, the window, which locations.
    type Case = (&'static str, Option<TimeWindow>, fn(u32) -> bool);
    let cases: [Case; 3] = [
        ("whole trace:           ", None, |_| true),
        ("a tenth of the run:    ", Some(tenth), |_| true),
        ("  over 1 location in 8:", Some(tenth), |l| l % 8 == 0),
    ];
    for (what, window, keep) in cases {
        let (d, rows) = best_of(5, || profile(&trace, window, |l| keep(l.0)));
        println!("profile   {what} {d:>10.2?}  {:.2} ns/interval  {} regions", per(d), rows.len());
        let (d, tree) = best_of(5, || call_tree(&trace, window, |l| keep(l.0)));
        println!("call tree {what} {d:>10.2?}  {:.2} ns/interval  {} nodes", per(d), tree.nodes.len());
    }
    let tree = call_tree(&trace, None, |_| true);
    let (d, inv) = best_of(5, || tree.inverted(&trace));
    println!("inverted (from the tree):           {d:>10.2?}  {} nodes", inv.nodes.len());
    let (d, trees) = best_of(3, || per_location(&trace, None, |_| true));
    println!("per location, whole trace:          {d:>10.2?}  {:.2} ns/interval  {} trees", per(d), trees.len());
    let solve = (0..trace.regions.len() as u32).map(weft_model::RegionId).find(|&r| trace.region_name(r) == "solve");
    let (d, h) = best_of(3, || histogram(durations(&trace, None, |_| true, |r| Some(r) == solve), 20));
    println!("histogram of solve ({} instances): {d:>10.2?}", h.count);
    let (d, rows) = best_of(3, || outliers(&trace, None, |_| true, 5));
    println!("outliers of every region:           {d:>10.2?}  {:.2} ns/interval  {} regions", per(d), rows.len());
}
