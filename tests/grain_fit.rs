//! A fitted grain graph is never an unreadable strip without a word (issue 14): a graph whose grains would be
//! narrower than a pixel fitted (fib(45), 8,192 grains) opens in the Aggregated view first, saying why, and
//! its grain view says how to read the strip; the built-in sample stays in the grain view. Labels of the
//! aggregated root say what they count in words.

use crate::common;

use common::read::read_grains;
use weft::analyses::aggregate::query::group_labels;
use weft::analyses::aggregate::{Aggregation, Method};
use weft::analyses::grains::{GrainAnalysis, Thresholds};
use weft::layouts::aggregate::{AggregateParams, AggregateView};
use weft::layouts::grains::{layout, GrainLayout, LayoutParams};
use weft::samples::grains::fib_profile;
use weft::scene::aggregate::{build as build_aggregate, Overlay};
use weft::scene::grains::{
    aggregated_first_text, build, sub_pixel_hint, unreadable_when_fitted, ColorBy, View, Viewport,
};

fn analysed(name: &str, csv: &[u8]) -> (GrainAnalysis, GrainLayout) {
    let a = GrainAnalysis::new(&read_grains(name, csv).unwrap(), Thresholds::paper()).unwrap();
    let l = layout(&a.graph, &LayoutParams::default());
    (a, l)
}

/// The checks on a graph that must open aggregated: why, in words; the aggregated root readable and labelled.
fn opens_aggregated_readably(a: &GrainAnalysis, l: &GrainLayout, w: f32, h: f32) {
    assert!(unreadable_when_fitted(a, l, w, h), "{} grains at {w}x{h}", a.graph.grains());
    let text = aggregated_first_text(a.graph.grains());
    assert!(text.contains("opens aggregated") && text.contains("Grain graph tab"), "{text}");
    // The fitted grain view is the strip the issue shows: its grains are under a pixel wide.
    let vp = Viewport::fit(l, w, h);
    let s = build(a, l, &vp, View::Structure(ColorBy::OutlineFunction));
    assert!(s.marks() > 0);
    // The aggregated view shows the root as one readable box whose label counts grains in words.
    let agg = Aggregation::new(a, Method::Reduction);
    let v = AggregateView::new(&agg.tree, &a.graph, AggregateParams::default());
    let s = build_aggregate(a, &agg.tree, &agg.metrics, &v, w, h, Overlay::default());
    let root = &s.rects[0];
    assert!(root.w >= 24.0 && root.h >= 10.0, "root drawn {}x{}", root.w, root.h);
    let labels = group_labels(&agg.metrics, agg.tree.root);
    let label = s.labels.iter().find(|l| labels.contains(&l.text)).expect("the root is labelled");
    assert!(label.text.contains(" grains"), "{}", label.text);
    assert!(label.size_px >= 10.0, "label {} px", label.size_px);
}

#[test]
fn a_graph_too_wide_to_read_opens_aggregated() {
    // fib(45) with cutoff 12: 8,192 tasks, as the MIR profile of the paper's Figure 1f.
    let (a, l) = analysed("fib45.csv", &fib_profile(45, 12, 48));
    assert_eq!(a.graph.grains(), 8_192);
    for (w, h) in [(1280.0, 640.0), (800.0, 500.0), (1920.0, 1000.0)] {
        opens_aggregated_readably(&a, &l, w, h);
    }
    assert!(aggregated_first_text(a.graph.grains()).starts_with("8,192 grains"));
}

#[test]
fn the_built_in_sample_stays_in_the_grain_view() {
    // The Samples menu's grain graph: fib(30), cutoff 8.
    let (a, l) = analysed("fib30.csv", &fib_profile(30, 8, 16));
    for (w, h) in [(1280.0, 640.0), (800.0, 500.0), (840.0, 600.0)] {
        assert!(!unreadable_when_fitted(&a, &l, w, h), "{} grains at {w}x{h}", a.graph.grains());
    }
}

#[test]
fn the_sub_pixel_hint_is_decoration_with_words() {
    let (a, l) = analysed("fib45.csv", &fib_profile(45, 12, 48));
    let vp = Viewport::fit(&l, 1280.0, 640.0);
    let mut s = build(&a, &l, &vp, View::Structure(ColorBy::OutlineFunction));
    let marks = s.marks();
    sub_pixel_hint(&mut s, a.graph.grains());
    assert_eq!(s.marks(), marks, "the hint's band is not data");
    assert!(s.labels.iter().any(|l| l.text.starts_with("8,192 grains, narrower than a pixel")));
}

#[test]
fn the_real_fib45_profile_opens_aggregated() {
    let Some(dir) = common::shared_traces("fib(45) opens aggregated") else { return };
    let path = dir.join("grain-graphs/anamud-test-data/fib/task-stats.merged");
    let bytes = std::fs::read(&path).unwrap();
    let (a, l) = analysed("task-stats.merged", &bytes);
    assert_eq!(a.graph.grains(), 8_192);
    opens_aggregated_readably(&a, &l, 1280.0, 640.0);
}
