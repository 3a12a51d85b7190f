//! Level of detail of the grain-graph scene: a fitted 131,072-grain graph costs instances bounded by the
//! pixels, not by its size, and every view where the nodes are a pixel or more is drawn exactly as without
//! merging (the same rects and lines, in the same order).

use crate::common;
use common::read::read_grains;
use weft::analyses::grains::{GrainAnalysis, Thresholds};
use weft::layouts::grains::{layout, GrainLayout, LayoutParams};
use weft::samples::grains::{fib_profile, random_profile};
use weft::scene::grains::{build, build_lod, build_with, ColorBy, EdgeReach, EdgeReachBuild, View, Viewport};
use weft::scene::Scene;

fn analysed(csv: &[u8]) -> (GrainAnalysis, GrainLayout) {
    let a = GrainAnalysis::new(&read_grains("gen.csv", csv).unwrap(), Thresholds::paper()).unwrap();
    let l = layout(&a.graph, &LayoutParams::default());
    (a, l)
}

/// Every node a pixel or more across at this viewport?
fn all_visible_at_least_a_pixel(l: &GrainLayout, vp: &Viewport) -> bool {
    let (x1, y1) = (vp.x0 + vp.width_px / vp.scale, vp.y0 + vp.height_px / vp.scale);
    (0..l.x.len()).all(|v| {
        let on = l.x[v] <= x1 && l.x[v] + l.w[v] >= vp.x0 && l.y[v] <= y1 && l.y[v] + l.h[v] >= vp.y0;
        !on || (l.w[v] * vp.scale >= 1.0 && l.h[v] * vp.scale >= 1.0)
    })
}

fn same(a: &Scene, b: &Scene) -> bool {
    let rects = |s: &Scene| s.rects.iter().map(|r| bytemuck::bytes_of(r).to_vec()).collect::<Vec<_>>();
    let lines = |s: &Scene| s.lines.iter().map(|r| bytemuck::bytes_of(r).to_vec()).collect::<Vec<_>>();
    rects(a) == rects(b) && lines(a) == lines(b)
}

#[test]
fn fitted_131k_grains_are_bounded_by_pixels() {
    let (a, l) = analysed(&fib_profile(45, 16, 16));
    assert_eq!(a.graph.grains(), 131_072);
    let vp = Viewport::fit(&l, 1280.0, 720.0);
    let view = a.problem("parallel_benefit").map(View::Problem).unwrap_or(View::Structure(ColorBy::OutlineFunction));
    for v in [View::Structure(ColorBy::OutlineFunction), view] {
        let s = build(&a, &l, &vp, v);
        let exact = build_lod(&a, &l, &vp, v, false);
        assert!(exact.rects.len() >= a.graph.nodes(), "without merging every node is a rect");
        let n = s.rects.len() + s.lines.len();
        println!(
            "fitted 1280x720: {} rects + {} lines, unmerged {} rects + {} lines",
            s.rects.len(),
            s.lines.len(),
            exact.rects.len(),
            exact.lines.len()
        );
        assert!(
            n < 50_000,
            "{} rects + {} lines (unmerged {} + {})",
            s.rects.len(),
            s.lines.len(),
            exact.rects.len(),
            exact.lines.len()
        );
        // Merged pixels are whole pixels inside the canvas.
        for r in s.rects.iter().filter(|r| r.w == 1.0) {
            assert!(r.x >= 0.0 && r.y >= 0.0 && r.x < 1280.0 && r.y + r.h <= 720.0 && r.x.fract() == 0.0);
        }
    }
}

#[test]
fn zoomed_in_views_are_exact() {
    let (a, l) = analysed(&fib_profile(45, 16, 16));
    let fit = Viewport::fit(&l, 1280.0, 720.0);
    // A seeded walk of zoomed-in viewports over the graph.
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 11) as f32 / (1u64 << 53) as f32
    };
    let mut exact_views = 0;
    for _ in 0..24 {
        let scale = 0.5 + 4.0 * next();
        let vp = Viewport { x0: next() * l.width, y0: next() * l.height, scale, width_px: 1280.0, height_px: 720.0 };
        if !all_visible_at_least_a_pixel(&l, &vp) {
            continue;
        }
        exact_views += 1;
        let s = build(&a, &l, &vp, View::Structure(ColorBy::SourceLine));
        let reference = build_lod(&a, &l, &vp, View::Structure(ColorBy::SourceLine), false);
        assert!(same(&s, &reference), "viewport {vp:?}: {} vs {} rects", s.rects.len(), reference.rects.len());
    }
    assert!(exact_views >= 12, "only {exact_views} viewports had every node a pixel or more");
    assert!(fit.scale < 0.5, "the fitted view is zoomed out ({})", fit.scale);
}

#[test]
fn small_graphs_fitted_are_exact() {
    let (a, l) = analysed(&random_profile(300, 5, 4));
    let vp = Viewport::fit(&l, 1280.0, 720.0);
    assert!(all_visible_at_least_a_pixel(&l, &vp));
    let view = View::Structure(ColorBy::OutlineFunction);
    assert!(same(&build(&a, &l, &vp, view), &build_lod(&a, &l, &vp, view, false)));
}

#[test]
fn aggregated_view_fully_open_is_bounded_by_pixels() {
    use weft::analyses::aggregate::{Aggregation, Method};
    use weft::layouts::aggregate::{AggregateParams, AggregateView};
    use weft::scene::aggregate::{build as build_aggregate, Overlay};
    let (a, _) = analysed(&fib_profile(45, 16, 16));
    let agg = Aggregation::new(&a, Method::Reduction);
    let mut v = AggregateView::new(&agg.tree, &a.graph, AggregateParams::default());
    v.open_all_beneath(&agg.tree, &a.graph, agg.tree.root);
    assert_eq!(v.visible(&agg.tree).len(), agg.tree.len(), "everything is open");
    let s = build_aggregate(&a, &agg.tree, &agg.metrics, &v, 1280.0, 720.0, Overlay::default());
    println!(
        "aggregated, all {} tree nodes open, fitted: {} rects + {} lines",
        agg.tree.len(),
        s.rects.len(),
        s.lines.len()
    );
    assert!(s.rects.len() + s.lines.len() < 50_000, "{} rects + {} lines", s.rects.len(), s.lines.len());
    assert!(!s.rects.is_empty());
}

/// The page's frames skip the edges that lie inside a pixel by two numbers per edge (`EdgeReach`): the scene
/// is the one `build` makes, instance for instance, fitted, zoomed out and zoomed in, in the structural and
/// a problem view.
#[test]
fn skipping_edges_inside_a_pixel_changes_nothing() {
    let (a, l) = analysed(&fib_profile(45, 16, 16));
    let reach = EdgeReach::new(&a, &l);
    // The page's load computes it in steps (`EdgeReachBuild`, a yield between them): the same reach.
    let mut build_steps = EdgeReachBuild::default();
    let mut steps = 1;
    while !build_steps.step(&a, &l, 1000) {
        steps += 1;
        assert_eq!(build_steps.edges(), 1000 * (steps - 1));
    }
    assert!(steps > 2, "{steps} steps for {} edges", a.graph.edges());
    let stepped = build_steps.finish();
    let fit = Viewport::fit(&l, 1280.0, 720.0);
    let problem = a.problem("parallel_benefit").map(View::Problem).expect("a parallel benefit view");
    for (i, zoom) in [0.5f32, 1.0, 1.7, 3.0, 8.0, 40.0, 200.0].into_iter().enumerate() {
        let scale = fit.scale * zoom;
        // Zoomed about a point a little off the middle, another for each zoom.
        let (cx, cy) = (l.width * (0.3 + 0.07 * i as f32), l.height * (0.6 - 0.05 * i as f32));
        let vp = Viewport { scale, x0: cx - 640.0 / scale, y0: cy - 360.0 / scale, ..fit };
        for view in [View::Structure(ColorBy::OutlineFunction), View::Structure(ColorBy::SourceLine), problem] {
            let s = build_with(&a, &l, &reach, &vp, view);
            let reference = build(&a, &l, &vp, view);
            assert!(same(&s, &reference), "zoom {zoom}: {} vs {} lines", s.lines.len(), reference.lines.len());
            assert!(same(&build_with(&a, &l, &stepped, &vp, view), &reference), "zoom {zoom}, reach built in steps");
        }
    }
    // The fast path is the one taken at fit: nearly every edge is dropped unvisited.
    let dropped = reach.dropped_edges(fit.scale);
    assert!(dropped * 10 >= a.graph.edges() * 9, "{dropped} of {} edges dropped at fit", a.graph.edges());
    assert_eq!(reach.dropped_edges(fit.scale * 1000.0), 0, "zoomed in, every edge is visited");
    assert_eq!(stepped.dropped_edges(fit.scale), dropped);
}
