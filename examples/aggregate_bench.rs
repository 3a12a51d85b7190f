//! Aggregation speed and visible node counts: the four phases (reduction, normalization, propagation,
//! separation) on the generated 176,000-node fork-join program and on fib(45) cutoff 12 (the real MIR
//! profile when ../shared/traces has it, else the generated one of the same shape); the sibling/family
//! method; opening one group in the navigation view (incremental relayout); and theta beside the paper's
//! Table 1. Best of 5 for phases; opens are timed one by one.
//!
//! `cargo run --release --example aggregate_bench`

use std::time::Instant;
use weft::analyses::aggregate::{family, normalize, propagate, reduce, savings_percent, separate, Aggregation, Method};
use weft::analyses::grains::{GrainAnalysis, Thresholds, METRICS};
use weft::layouts::aggregate::{AggregateParams, AggregateView};
use weft::readers::{open, Source};
use weft::samples::grains::{fib_profile, random_profile};

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

fn phases(name: &str, a: &GrainAnalysis) {
    let g = &a.graph;
    let (t_red, r) = best_of(5, || reduce::reduce(g));
    let (t_norm, tree) = best_of(5, || normalize::normalize(&r.tree));
    let (t_prop, _) = best_of(5, || propagate::propagate(a, &tree));
    let view = a.problems.iter().position(|p| p.count > 0).unwrap_or(0);
    let (t_sep, _) = best_of(5, || separate::separate(a, &tree, view));
    let (t_sep_all, _) =
        best_of(5, || (0..METRICS.len()).map(|i| separate::separate(a, &tree, i).len()).sum::<usize>());
    let (t_fam, ft) = best_of(5, || family::family(g));
    let (t_all, agg) = best_of(5, || Aggregation::new(a, Method::Reduction));
    let (t_theta, th) = best_of(5, || agg.theta(a));
    println!(
        "{name}: {} nodes, {} edges, {} grains; tree {} groups, depth {}; family tree {} groups",
        g.nodes(),
        g.edges(),
        g.grains(),
        agg.tree.groups(),
        agg.tree.height(),
        ft.groups()
    );
    println!("  reduction                      {t_red:>9.2} ms");
    println!("  normalization                  {t_norm:>9.2} ms");
    println!("  propagation                    {t_prop:>9.2} ms");
    println!("  separation (one view, {:<8})  {t_sep:>9.2} ms", &METRICS[view][..8.min(METRICS[view].len())]);
    println!("  four phases (one view)         {:>9.2} ms", t_red + t_norm + t_prop + t_sep);
    println!("  separation, all {} views        {t_sep_all:>9.2} ms", METRICS.len());
    println!("  Aggregation::new (3 phases)    {t_all:>9.2} ms");
    println!("  sibling/family method          {t_fam:>9.2} ms");
    println!("  theta (conservative + views)   {t_theta:>9.2} ms   theta_c max {}", th.conservative_max);

    // Navigation: drill to depth 4 (a full layout); then, for groups sampled across the tree, open the
    // path down to the group (untimed) and time opening the group itself.
    let t = &agg.tree;
    let mut v = AggregateView::new(t, g, AggregateParams::default());
    let (t_drill, _) = best_of(5, || v.drill_to_depth(t, g, 4));
    println!("  drill to depth 4 (full layout) {t_drill:>9.3} ms   {} visible", v.visible(t).len());
    let groups: Vec<u32> = (0..t.len() as u32).filter(|&u| !t.is_leaf(u)).collect();
    let step = (groups.len() / 300).max(1);
    let mut opens: Vec<(f64, u32)> = Vec::new();
    let mut v = AggregateView::new(t, g, AggregateParams::default());
    for &u in groups.iter().step_by(step) {
        v.close_group(t, g, t.root);
        v.set_open(t, g, &[]);
        let mut path = Vec::new();
        let mut p = t.parent[u as usize];
        while p != u32::MAX {
            path.push(p);
            p = t.parent[p as usize];
        }
        for &p in path.iter().rev() {
            v.open_group(t, g, p);
        }
        let s = Instant::now();
        v.open_group(t, g, u);
        opens.push((s.elapsed().as_secs_f64() * 1e3, t.count[u as usize]));
    }
    opens.sort_by(|a, b| a.0.total_cmp(&b.0));
    let med = opens.get(opens.len() / 2).map(|o| o.0).unwrap_or(0.0);
    let p99 = opens.get(opens.len() * 99 / 100).map(|o| o.0).unwrap_or(0.0);
    let (max, members) = opens.last().copied().unwrap_or((0.0, 0));
    println!(
        "  open one group: median {med:.4} ms, p99 {p99:.4} ms, max {max:.4} ms ({members} members) over {} groups",
        opens.len()
    );
    let mut v = AggregateView::new(t, g, AggregateParams::default());
    let (t_open_all, _) = best_of(3, || {
        v.close_group(t, g, t.root);
        v.open_all_beneath(t, g, t.root)
    });
    println!("  open everything ({} nodes)   {t_open_all:>9.2} ms", t.len());
}

fn main() {
    let real = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/traces/grain-graphs/anamud-test-data/fib/task-stats.merged");
    let (fib_name, fib_bytes) = match std::fs::read(&real) {
        Ok(b) => ("fib(45) cutoff 12, real MIR profile", b),
        Err(_) => ("fib(45) cutoff 12, generated", fib_profile(45, 12, 48)),
    };
    let analyse = |name: &str, b: &[u8]| {
        let (input, _) = open(name, Source::Bytes(b)).and_then(|i| i.into_grains(name)).expect("readable");
        GrainAnalysis::new(&input, Thresholds::paper()).expect("acyclic")
    };
    let gen = analyse("gen", &random_profile(176_000, 42, 48));
    phases("generated fork-join, 176k nodes", &gen);
    let fib = analyse(fib_name, &fib_bytes);
    phases(fib_name, &fib);

    println!();
    println!("{:<36} {:>8} {:>8} {:>9} {:>9}   method", "program", "nodes", "grains", "theta_c", "savings%");
    for method in [Method::Reduction, Method::Family] {
        let agg = Aggregation::new(&fib, method);
        let th = agg.theta(&fib);
        let n = fib.graph.nodes();
        println!(
            "{:<36} {:>8} {:>8} {:>9} {:>9.2}   {method:?}",
            fib_name,
            n,
            fib.graph.grains(),
            th.conservative_max,
            savings_percent(th.conservative_max, n)
        );
        for (m, t) in &th.by_problem {
            println!("{:<36} {:>8} {:>8} {:>9} {:>9.2}", format!("  {m}"), "", "", t, savings_percent(*t, n));
        }
    }
    for (name, nodes, grains, theta, savings) in [
        ("Sort (paper, Table 1)", 20293, 11509, 55, 99.73),
        ("FFT (paper, Table 1)", 9240, 4592, 53, 99.43),
        ("NQueens (paper, Table 1)", 24565, 21492, 70, 99.71),
    ] {
        println!("{name:<36} {nodes:>8} {grains:>8} {theta:>9} {savings:>9.2}");
    }
}
