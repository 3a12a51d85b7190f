//! Benchmark of the region profile (issue 18, `analyses::profile`): the table the timeline's selection
//! shows and `weft info --window` prints, on 163,840 locations x 61 intervals (10 M; MPI calls nested in the
//! work, built through TraceBuilder): the whole trace, a window of a tenth of the run, and that window over
//! one location in eight (the location filter).
//!
//!     cargo run --example profile_bench
//!
//! Prints best-of-5 wall times and ns per interval of the trace.

use std::time::{Duration, Instant};
use weft::analyses::moments::TimeWindow;
use weft::analyses::profile::profile;
use weft::samples::utilization::utilization_trace;

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
    let (d, rows) = best_of(5, || profile(&trace, None, |_| true));
    println!("whole trace:             {d:>10.2?}  {:.2} ns/interval  {} regions", per(d), rows.len());
    let (d, rows) = best_of(5, || profile(&trace, Some(tenth), |_| true));
    println!("a tenth of the run:      {d:>10.2?}  {:.2} ns/interval  {} regions", per(d), rows.len());
    let (d, rows) = best_of(5, || profile(&trace, Some(tenth), |l| l.0 % 8 == 0));
    println!("  over 1 location in 8:  {d:>10.2?}  {:.2} ns/interval  {} regions", per(d), rows.len());
}
