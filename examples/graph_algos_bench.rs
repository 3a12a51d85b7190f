//! petgraph's algorithms through the visitor traits (analyses/*/visit.rs) beside the hand-written passes they
//! replace or stand beside, on large grain and execution graphs, best of 5:
//! - execution graph, topological order: Kahn's algorithm on the implicit adjacency (what `build` does) against
//!   petgraph's `toposort` on `&ExecGraph`;
//! - GraphML import order: Kahn's algorithm with ties in document order (a binary heap, what `import` does)
//!   against petgraph's `toposort` on a `CsrView` of the same edges (in a different, DFS order);
//! - MIR parents: the linear walk that cuts parent cycles (`graph::cut_parent_cycles`) against petgraph's
//!   `toposort` on the parent relation (children CSR built first; it finds one cycle per run);
//! - reachability and components on the grain graph: `has_path_connecting` start -> end, a `Dfs` from start,
//!   `connected_components`, beside a hand-written forward sweep over the ids (topological by invariant).
//!
//! `cargo run --release --example graph_algos_bench`

use petgraph::visit::{Dfs, Walker};
use std::time::Instant;
use weft::analyses::execgraph::{build, topological_order};
use weft::analyses::grains::graph::{cut_parent_cycles, Csr};
use weft::analyses::grains::import::document_order;
use weft::analyses::grains::visit::CsrView;
use weft::analyses::grains::{from_profile, GrainGraph, NONE};
use weft::model::grains::Grains;
use weft::samples::execgraph::{random, simulate};
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

/// The same edges through petgraph (both CSRs built, as the view needs in-edges).
fn petgraph_order(n: usize, source: &[u32], target: &[u32]) -> Option<Vec<u32>> {
    let (out, inc) = (Csr::build(n, source), Csr::build(n, target));
    petgraph::algo::toposort(CsrView { out: &out, inc: &inc, source, target }, None).ok()
}

/// petgraph on the parent relation (edge child -> parent): one toposort per cycle found, each cut at the
/// node it names (on an acyclic profile: one run).
fn cut_petgraph(owner: &mut [u32], root: u32) {
    loop {
        let kids: Vec<u32> = (0..owner.len() as u32).filter(|&c| owner[c as usize] != root).collect();
        let parents: Vec<u32> = kids.iter().map(|&c| owner[c as usize]).collect();
        let n = owner.len();
        let (out, inc) = (Csr::build(n, &kids), Csr::build(n, &parents));
        match petgraph::algo::toposort(CsrView { out: &out, inc: &inc, source: &kids, target: &parents }, None) {
            Ok(_) => return,
            Err(c) => owner[c.node_id() as usize] = root,
        }
    }
}

/// Start and end reachable, by a forward sweep over the ids (topological by the graph's invariant).
fn sweep_reaches(g: &GrainGraph, from: u32, to: u32) -> bool {
    let mut seen = vec![false; g.nodes()];
    seen[from as usize] = true;
    for v in from..=to {
        if seen[v as usize] {
            for &e in g.out.of(v) {
                seen[g.edge_target[e as usize] as usize] = true;
            }
        }
    }
    seen[to as usize]
}

fn main() {
    println!("## execution graphs: topological order (Kahn, hand-written | petgraph toposort on &ExecGraph)");
    for threads in [100_000usize, 400_000] {
        let g = build(&simulate(&random(threads, 42), "random")).expect("builds");
        let (kahn_ms, k) = best_of(5, || topological_order(&g).expect("acyclic"));
        let (pg_ms, p) = best_of(5, || petgraph::algo::toposort(&g, None).expect("acyclic"));
        assert_eq!((k.len(), p.len()), (g.nodes.len(), g.nodes.len()));
        println!("random({threads}): {} nodes: Kahn {kahn_ms:.1} ms, petgraph {pg_ms:.1} ms", g.nodes.len());
    }

    let graphs: Vec<(String, GrainGraph)> = [(25u32, 17u32), (30, 19)]
        .iter()
        .map(|&(n, cutoff)| {
            let csv = fib_profile(n, cutoff, 8);
            let read = weft::readers::open("fib.csv", (&csv).into()).and_then(|i| i.into_grains("fib.csv"));
            let Ok((Grains::Profile(p), _)) = read else {
                panic!("fib profile reads");
            };
            (format!("fib({n}) cutoff {cutoff}"), from_profile(&p))
        })
        .collect();

    println!("## GraphML import order (Kahn + heap, document-order ties | petgraph toposort on CsrView)");
    for (name, g) in &graphs {
        // The graph's edges under a fixed pseudo-random renumbering, as a GraphML file could list them.
        let n = g.nodes();
        let perm: Vec<u32> = (0..n as u64).map(|v| ((v * 2_654_435_761) % n as u64) as u32).collect();
        let source: Vec<u32> = g.edge_source.iter().map(|&v| perm[v as usize]).collect();
        let target: Vec<u32> = g.edge_target.iter().map(|&v| perm[v as usize]).collect();
        let (heap_ms, _) = best_of(5, || document_order(n, &target, &Csr::build(n, &source)));
        let (pg_ms, _) = best_of(5, || petgraph_order(n, &source, &target).expect("acyclic"));
        println!("{name}: {n} nodes, {} edges: Kahn+heap {heap_ms:.1} ms, petgraph {pg_ms:.1} ms", g.edges());
    }

    println!("## MIR parents: cycle cut (hand-written walk | petgraph toposort per cycle)");
    for (name, g) in &graphs {
        let root = g.grains() as u32;
        let owner: Vec<u32> = g.grain_parent.iter().map(|&p| if p == NONE { root } else { p }).collect();
        let (walk_ms, _) = best_of(5, || cut_parent_cycles(&mut owner.clone(), root));
        let (pg_ms, _) = best_of(5, || cut_petgraph(&mut owner.clone(), root));
        // The same with 100 two-grain parent cycles (hostile input).
        let mut cyclic = owner.clone();
        for k in 0..100usize {
            let (a, b) = (1 + 2 * k, 2 + 2 * k);
            (cyclic[a], cyclic[b]) = (b as u32, a as u32);
        }
        let (walk_c_ms, _) = best_of(5, || cut_parent_cycles(&mut cyclic.clone(), root));
        let (pg_c_ms, _) = best_of(1, || cut_petgraph(&mut cyclic.clone(), root));
        println!(
            "{name}: {} grains: walk {walk_ms:.1} ms, petgraph {pg_ms:.1} ms; with 100 cycles: walk {walk_c_ms:.1} ms, petgraph {pg_c_ms:.0} ms",
            g.grains()
        );
    }

    println!("## grain graph reachability and components (petgraph | hand-written sweep)");
    for (name, g) in &graphs {
        let (start, end) = (0u32, g.nodes() as u32 - 1);
        let (path_ms, reach) = best_of(5, || petgraph::algo::has_path_connecting(g, start, end, None));
        let (sweep_ms, reach2) = best_of(5, || sweep_reaches(g, start, end));
        assert!(reach && reach2);
        let (dfs_ms, count) = best_of(5, || Dfs::new(g, start).iter(g).count());
        let (cc_ms, cc) = best_of(5, || petgraph::algo::connected_components(g));
        println!(
            "{name}: {} nodes: has_path_connecting {path_ms:.1} ms, sweep {sweep_ms:.1} ms; Dfs from start {dfs_ms:.1} ms ({count} nodes); connected_components {cc_ms:.1} ms ({cc})",
            g.nodes()
        );
    }
}
