//! Time to build the grain-graph scene (the page's per-frame work) on a generated fib profile, fitted and at a
//! few zooms: `cargo run --release --example grain_scene_bench -- [N] [CUTOFF] [REPEATS]`.
use std::time::Instant;
use weft::analyses::grains::{GrainAnalysis, Thresholds};
use weft::layouts::grains::{layout, LayoutParams};
use weft::readers::{open, Input, Source};
use weft::samples::grains::fib_profile;
use weft::scene::grains::{build_with, ColorBy, EdgeReach, View, Viewport};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: u32 = args.get(1).map_or(45, |s| s.parse().unwrap());
    let cutoff: u32 = args.get(2).map_or(16, |s| s.parse().unwrap());
    let repeats: usize = args.get(3).map_or(10, |s| s.parse().unwrap());
    let csv = fib_profile(n, cutoff, 16);
    let Ok(Input::Grains { grains: p, .. }) = open("gen.csv", Source::Bytes(&csv)) else {
        panic!("not a grain profile")
    };
    let a = GrainAnalysis::new(&p, Thresholds::paper()).unwrap();
    let l = layout(&a.graph, &LayoutParams::default());
    let fit = Viewport::fit(&l, 1280.0, 720.0);
    let t = Instant::now();
    let reach = EdgeReach::new(&a, &l);
    println!("edge reach: {:.2} ms (once per layout)", t.elapsed().as_secs_f64() * 1e3);
    let problem = a.problem("parallel_benefit").map(View::Problem);
    println!("{} grains, {} nodes, {} edges", a.graph.grains(), a.graph.nodes(), a.graph.edges());
    for zoom in [1.0f32, 4.0, 16.0, 64.0, 256.0] {
        // Zoomed about the middle of the canvas.
        let (cx, cy) = (fit.x0 + 640.0 / fit.scale, fit.y0 + 360.0 / fit.scale);
        let scale = fit.scale * zoom;
        let vp = Viewport { scale, x0: cx - 640.0 / scale, y0: cy - 360.0 / scale, ..fit };
        for (name, view) in [("structure", Some(View::Structure(ColorBy::OutlineFunction))), ("problem", problem)] {
            let Some(view) = view else { continue };
            let mut best = f64::MAX;
            let mut size = (0, 0);
            for _ in 0..repeats {
                let t = Instant::now();
                let s = build_with(&a, &l, &reach, &vp, view);
                best = best.min(t.elapsed().as_secs_f64() * 1e3);
                size = (s.rects.len(), s.lines.len());
            }
            println!("zoom {zoom:>5}x {name:9}: {best:7.2} ms (best of {repeats}), {} rects, {} lines", size.0, size.1);
        }
    }
}
