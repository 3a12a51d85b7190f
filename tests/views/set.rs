//! The view set behind the page's view switcher: a trace offers timeline, moments and particles, switching
//! keeps the time range; a grain graph offers its aggregated view, opened first when grains would be
//! narrower than a pixel; new thresholds drop the aggregated view built under the old ones.

use super::f;
use crate::common::read::read_grains;
use std::rc::Rc;
use weft::analyses::grains::{GrainAnalysis, Thresholds};
use weft::layouts::grains::{layout, LayoutParams};
use weft::samples::grains::fib_profile;
use weft::samples::utilization::utilization_trace;
use weft::views::set::{ViewSet, TRACE_VIEWS};
use weft::views::ManualClock;

fn set() -> ViewSet {
    ViewSet::new(1000.0, 600.0, Rc::new(ManualClock::default()))
}

#[test]
fn a_trace_offers_its_views_and_a_switch_keeps_the_time_range() {
    let mut v = set();
    assert_eq!(v.view(), "");
    assert!(v.set_view("timeline").is_err(), "nothing loaded");
    v.load_trace(Rc::new(utilization_trace(8, 8 * 61)), None);
    assert_eq!(v.views(), TRACE_VIEWS);
    assert_eq!(v.view(), "timeline");
    v.active_mut().unwrap().zoom(500.0, 4.0);
    let range = v.active().unwrap().time_range().unwrap();
    v.set_view("moments").unwrap();
    assert_eq!(v.view(), "moments");
    assert_eq!(v.active().unwrap().time_range(), Some(range), "the moments view shows the same time");
    let s = v.active().unwrap().state();
    assert_eq!((f(&s, "t0_ns"), f(&s, "t1_ns")), range);
    v.set_view("particles").unwrap();
    assert_eq!(v.view(), "particles");
    v.set_view("timeline").unwrap();
    assert_eq!(v.active().unwrap().time_range(), Some(range), "the timeline kept its range");
    assert!(v.set_view("aggregate").is_err(), "a trace has no grain graph");
    assert!(v.set_view("spreadsheet").is_err());
    v.resize(700.0, 500.0);
    assert_eq!(v.scene().width, 700.0);
}

#[test]
fn a_grain_graph_offers_its_aggregated_view() {
    let mut v = set();
    let input = read_grains("fib.csv", &fib_profile(8, 3, 8)).unwrap();
    let a = GrainAnalysis::new(&input, Thresholds::paper()).unwrap();
    let l = layout(&a.graph, &LayoutParams::default());
    v.load_grains(a, l, None).unwrap();
    assert_eq!(v.views(), ["grains", "aggregate"]);
    assert_eq!(v.view(), "grains", "a small graph opens as itself");
    assert!(v.grains_pane().is_some());
    v.set_view("aggregate").unwrap();
    assert_eq!(v.active().unwrap().state()["view"], "aggregate");
    assert!(v.grains_pane().is_none());
    v.set_view("grains").unwrap();
    v.configure("thresholds", "prototype").unwrap();
    assert_eq!(v.views(), ["grains", "aggregate"], "still offered");
    v.set_view("aggregate").unwrap();
    assert_eq!(v.views(), ["grains", "aggregate"], "built again, once");
    assert!(v.configure("no such option", "1").is_err());
}

#[test]
fn a_graph_too_wide_to_read_opens_aggregated() {
    let mut v = set();
    let input = read_grains("fib.csv", &fib_profile(45, 12, 48)).unwrap();
    let a = GrainAnalysis::new(&input, Thresholds::paper()).unwrap();
    let l = layout(&a.graph, &LayoutParams::default());
    v.load_grains(a, l, None).unwrap();
    assert_eq!(v.view(), "aggregate", "grains under a pixel open aggregated first");
    let intro = v.active().unwrap().state()["intro"].as_str().unwrap().to_string();
    assert!(intro.starts_with("8,192 grains"), "and the view says why: {intro}");
    assert_eq!(v.views(), ["grains", "aggregate"]);
}

#[test]
fn what_the_worker_sends_is_used_and_nothing_is_built_here() {
    use weft::analyses::aggregate::{bundle, Aggregation, Method};
    use weft::analyses::busy::BusyDefinition;
    use weft::analyses::moments_bundle::MomentsBundle;
    // A grain graph with the worker's aggregation: the Aggregated view opens over it.
    let mut v = set();
    let input = read_grains("fib.csv", &fib_profile(12, 4, 8)).unwrap();
    let a = GrainAnalysis::new(&input, Thresholds::paper()).unwrap();
    let l = layout(&a.graph, &LayoutParams::default());
    let agg = bundle::encode(&Aggregation::new(&a, Method::Reduction), &a.graph);
    v.load_grains(a, l, Some(&agg)).unwrap();
    v.set_view("aggregate").unwrap();
    assert!(v.built_on_page().is_empty(), "built here: {:?}", v.built_on_page());
    // Without it, the view builds its own and says so.
    let input = read_grains("fib.csv", &fib_profile(12, 4, 8)).unwrap();
    let a = GrainAnalysis::new(&input, Thresholds::paper()).unwrap();
    let l = layout(&a.graph, &LayoutParams::default());
    v.load_grains(a, l, None).unwrap();
    v.set_view("aggregate").unwrap();
    assert_eq!(v.built_on_page(), ["aggregation"]);
    // A bundle for another graph is refused, naming what is wrong.
    let input = read_grains("fib.csv", &fib_profile(8, 3, 8)).unwrap();
    let a = GrainAnalysis::new(&input, Thresholds::paper()).unwrap();
    let l = layout(&a.graph, &LayoutParams::default());
    assert!(v.load_grains(a, l, Some(&agg)).is_err());

    // A trace with the worker's moments: the moments view opens over them.
    let trace = Rc::new(utilization_trace(8, 8 * 61));
    let moments = MomentsBundle::compute(&trace, &BusyDefinition::Compute).encode();
    v.load_trace(trace.clone(), Some(moments));
    v.set_view("moments").unwrap();
    assert!(v.built_on_page().is_empty(), "built here: {:?}", v.built_on_page());
    v.load_trace(trace, None);
    v.set_view("moments").unwrap();
    assert_eq!(v.built_on_page(), ["moments"]);
}
