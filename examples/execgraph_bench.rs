//! Layout of generated execution graphs of 100,000 threads, best of 5 (goal: well under 200 ms natively).
//! `cargo run --release --example execgraph_bench`

use std::time::Instant;
use weft::analyses::execgraph::build;
use weft::layouts::execgraph::{layout, Scale};
use weft::samples::execgraph::{random, simulate, Program, Step, ThreadPlan};
use weft::scene::execgraph::{scene, ExecView};

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

/// The main thread forks every worker, then joins them all in fork order: one complete intersection graph.
fn fork_all_join_all(workers: u32) -> Program {
    let mut p = Program { threads: vec![ThreadPlan::default(); workers as usize + 1] };
    for c in 1..=workers {
        p.threads[0].steps.push(Step::Fork { child: c, delay_ns: 10 });
        p.threads[0].steps.push(Step::Work(5));
        p.threads[c as usize].steps.push(Step::Work(1_000_000 + (c as u64 * 7919) % 10_000));
    }
    for c in 1..=workers {
        p.threads[0].steps.push(Step::Join { child: c });
    }
    p
}

fn main() {
    let cases = [
        ("random fork/join program", simulate(&random(100_000, 42), "random")),
        ("fork-all-join-all", simulate(&fork_all_join_all(99_999), "fork-all")),
    ];
    for (name, events) in cases {
        let (build_ms, g) = best_of(5, || build(&events).expect("generated programs build"));
        let (true_ms, l) = best_of(5, || layout(&g, Scale::True));
        let (min_ms, _) = best_of(5, || layout(&g, Scale::MinEdge { min_ns: 100 }));
        let mut view = ExecView::fit(&g, &l, 1600.0, 1000.0);
        view.column_px = 24.0;
        view.scroll_x_px = -24.0 * (l.columns / 2) as f32;
        let (scene_ms, sc) = best_of(5, || scene(&g, &l, &view));
        let fit = ExecView::fit(&g, &l, 1600.0, 1000.0);
        let (fit_ms, fit_sc) = best_of(5, || scene(&g, &l, &fit));
        println!(
            "{name}: {} threads, {} nodes, {} crossings, {} parents bipartite, {} not ({} greedy only)",
            g.threads.len(),
            g.nodes.len(),
            l.crossings,
            l.parents_bipartite,
            l.parents_not_bipartite,
            l.exchange_skipped
        );
        println!(
            "  build graph {build_ms:.1} ms | layout true scale {true_ms:.1} ms | layout min-edge {min_ms:.1} ms | \
             scene of a 1600x1000 viewport {scene_ms:.2} ms ({} shapes, {} lines) | whole drawing in it {fit_ms:.2} ms \
             ({} shapes, {} lines)",
            sc.rects.len(),
            sc.lines.len(),
            fit_sc.rects.len(),
            fit_sc.lines.len()
        );
    }
}
