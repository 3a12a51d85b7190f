//! What the Aggregated view's tools cost per click and per frame on the generated 131,072-grain fib profile
//! (fib(45), cutoff 16, 48 cores; the input of tests/browser/specs/longtask.test.mjs): the property window of the
//! root (every grain summed: the largest a selection gets), a drill with it selected (no new sums), the frame of
//! the filtered view with its inset, and the frame of two runs side by side zoomed in (each half clipped).
//! Best of 5.
//!
//! `cargo run --release --example aggview_bench`

use std::rc::Rc;
use std::time::Instant;
use weft::analyses::grains::{GrainAnalysis, Thresholds};
use weft::readers::{open, Source};
use weft::samples::grains::fib_profile;
use weft::views::aggregate::AggregatePane;
use weft::views::Pane;

fn best_of(runs: usize, mut f: impl FnMut()) -> f64 {
    let mut best = f64::INFINITY;
    for _ in 0..runs {
        let t = Instant::now();
        f();
        best = best.min(t.elapsed().as_secs_f64() * 1e3);
    }
    best
}

fn analysed(n: u32, cutoff: u32) -> GrainAnalysis {
    let bytes = fib_profile(n, cutoff, 48);
    let (input, _) = open("fib.csv", Source::Bytes(&bytes)).and_then(|i| i.into_grains("fib.csv")).expect("readable");
    GrainAnalysis::new(&input, Thresholds::paper()).expect("an analysis")
}

fn main() {
    let a = Rc::new(analysed(45, 16));
    let b = analysed(45, 15);
    println!("fib(45) cutoff 16: {} grains", a.graph.grains());
    let mut p = AggregatePane::new(a.clone(), 1400.0, 800.0);
    let root = p.state()["root"].to_string();
    let t_props = best_of(5, || {
        p.configure("select", "").unwrap();
        p.configure("select", &root).unwrap();
    });
    println!("  property window of the root (select)   {t_props:>9.2} ms");
    let t_drill = best_of(5, || p.configure("drill_depth", "6").unwrap());
    println!("  drill to depth 6, root selected        {t_drill:>9.2} ms");
    let metric = a.problems.iter().find(|v| v.count > 0).map_or("parallel_benefit", |v| v.metric);
    p.configure("problem", metric).unwrap();
    p.configure("filtered", "on").unwrap();
    p.configure("drill_depth", "8").unwrap();
    let t_inset = best_of(5, || drop(p.scene()));
    println!("  frame, filtered view with inset        {t_inset:>9.2} ms");
    p.configure("filtered", "off").unwrap();
    p.configure("problem", "structure").unwrap();
    p.compare_with("fib(45) cutoff 15", b);
    p.configure("drill_depth", "8").unwrap();
    p.zoom_xy(1000.0, Some(400.0), 4.0);
    let t_compare = best_of(5, || drop(p.scene()));
    println!("  frame, two runs zoomed 4x, clipped     {t_compare:>9.2} ms");
}
