//! Benchmark of the clusters of ranks (issue 55, `analyses::clusters`): 100,000 locations (or the count given
//! as the first argument) of three behaviours and two planted outliers (`samples::behaviours`, 31 intervals
//! each, built through TraceBuilder so no reader is timed). Times the features (region profile and moments
//! of every location) and the clustering (sample, Ward, silhouette for k = 2..20, assignment, outliers)
//! apart, best of 3.
//!
//!     CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
//!       cargo run -p weft-analyses --release --example clusters_bench [-- LOCATIONS]

use std::time::{Duration, Instant};
use weft_analyses::clusters::{cluster_features, features};
use weft_samples::behaviours::behaviours_trace;

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

#[allow(clippy::print_stdout)]
fn main() {
    let n: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let trace = behaviours_trace(n, &[n / 7, n / 2 + 1]);
    let (tf, f) = best_of(3, || features(&trace, None));
    let (tc, c) = best_of(3, || cluster_features(&trace, &f, None).expect("clusters"));
    let (tk, _) = best_of(3, || cluster_features(&trace, &f, Some(3)).expect("clusters"));
    println!("{n} locations, {} intervals, {} features", trace.intervals.len(), f.dims());
    println!("features   {:>9.1} ms", tf.as_secs_f64() * 1e3);
    println!(
        "clustering {:>9.1} ms (k chosen: {}, {} outliers, {} sampled)",
        tc.as_secs_f64() * 1e3,
        c.k,
        c.outliers.len(),
        c.sampled
    );
    println!("k = 3      {:>9.1} ms", tk.as_secs_f64() * 1e3);
    println!("total      {:>9.1} ms (features + clustering, k chosen)", (tf + tc).as_secs_f64() * 1e3);
    println!("{}", c.summary);
}
