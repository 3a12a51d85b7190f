//! Layout speed of grain graphs: fib(45) with cutoff 12 (the real MIR profile when ../shared/traces has it,
//! else the generated one of the same shape) and a generated 176,000-node fork-join program. Best of 5.
//!
//! `cargo run --release --example grains_bench [-- --export DIR]`: with --export, also writes the two graphs
//! as JSON ({nodes: [{id, w, h}], edges: [[source, target]]}) for examples/grains_peers (dagre, elkjs).

use std::time::Instant;
use weft::analyses::grains::{GrainAnalysis, Thresholds};
use weft::layouts::grains::{layout, GrainLayout, LayoutParams};
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

fn export(path: &std::path::Path, a: &GrainAnalysis, l: &GrainLayout) {
    let g = &a.graph;
    let mut s = String::with_capacity(g.nodes() * 40 + g.edges() * 16);
    s.push_str("{\"nodes\":[");
    for v in 0..g.nodes() {
        if v > 0 {
            s.push(',');
        }
        s.push_str(&format!("{{\"id\":\"{v}\",\"w\":{},\"h\":{}}}", l.w[v], l.h[v]));
    }
    s.push_str("],\"edges\":[");
    for e in 0..g.edges() {
        if e > 0 {
            s.push(',');
        }
        s.push_str(&format!("[\"{}\",\"{}\"]", g.edge_source[e], g.edge_target[e]));
    }
    s.push_str("]}");
    std::fs::write(path, s).expect("write the export");
    eprintln!("wrote {}", path.display());
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let export_dir =
        args.iter().position(|a| a == "--export").and_then(|i| args.get(i + 1)).map(std::path::PathBuf::from);
    let real = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/traces/grain-graphs/anamud-test-data/fib/task-stats.merged");
    let (fib_name, fib_bytes) = match std::fs::read(&real) {
        Ok(b) => ("fib(45) cutoff 12, real MIR profile", b),
        Err(_) => ("fib(45) cutoff 12, generated", fib_profile(45, 12, 48)),
    };
    let gen_bytes = random_profile(176_000, 42, 48);
    let p = LayoutParams::default();
    println!("{:<40} {:>8} {:>8} {:>8} {:>12} {:>12}", "graph", "grains", "nodes", "edges", "analyse ms", "layout ms");
    for (name, bytes, file) in
        [(fib_name, &fib_bytes, "fib45.json"), ("generated fork-join, 176k nodes", &gen_bytes, "gen176k.json")]
    {
        let (t_an, a) = best_of(5, || {
            let (input, _) = open(name, Source::Bytes(bytes)).and_then(|i| i.into_grains(name)).expect("readable");
            GrainAnalysis::new(&input, Thresholds::paper()).expect("acyclic")
        });
        let (t_lay, l) = best_of(5, || layout(&a.graph, &p));
        let g = &a.graph;
        println!("{name:<40} {:>8} {:>8} {:>8} {:>12.2} {:>12.2}", g.grains(), g.nodes(), g.edges(), t_an, t_lay);
        // The general layered layout on the same graph, as if its nesting were unknown (GraphML input).
        let mut flat = a.graph.clone();
        flat.nested = false;
        let (t_flat, _) = best_of(if g.nodes() > 100_000 { 2 } else { 5 }, || layout(&flat, &p));
        println!(
            "{:<40} {:>8} {:>8} {:>8} {:>12} {:>12.2}",
            "  same, general layered fallback", "", "", "", "", t_flat
        );
        if let Some(dir) = &export_dir {
            std::fs::create_dir_all(dir).expect("create the export folder");
            export(&dir.join(file), &a, &l);
        }
    }
}
