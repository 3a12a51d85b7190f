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

#[test]
fn a_stepped_load_shows_what_the_one_shot_load_shows_and_nothing_before_its_last_step() {
    use weft::analyses::aggregate::{bundle, Aggregation, Method};
    use weft::layouts::grain_bundle::GrainBundle;
    use weft::model::codec;
    // fib(45): 8,192 grains, which open aggregated, with the worker's aggregation.
    let input = read_grains("fib.csv", &fib_profile(45, 12, 48)).unwrap();
    let a = GrainAnalysis::new(&input, Thresholds::paper()).unwrap();
    let l = layout(&a.graph, &LayoutParams::default());
    let agg = bundle::encode(&Aggregation::new(&a, Method::Reduction), &a.graph);
    let graph = GrainBundle::new(a, l).encode();
    let (a, l) = GrainBundle::decode(&graph).unwrap().analysis(Thresholds::paper());
    let mut once = set();
    once.load_grains(a, l, Some(&agg)).unwrap();

    let mut stepped = set();
    stepped.load_trace(Rc::new(utilization_trace(8, 8 * 61)), None);
    stepped.begin_grains(graph.clone(), Some(agg.clone()));
    let mut names = Vec::new();
    while let Some(name) = stepped.load_step_name() {
        assert_eq!(stepped.view(), "timeline", "what was shown stays until the last step ({name})");
        names.push(name);
        let more = stepped.load_step().unwrap();
        assert_eq!(more, stepped.load_step_name().is_some());
    }
    let expected = [
        "read the grain graph",
        "read the grain graph's names",
        "read the critical path",
        "read the metrics (1 of 3)",
        "read the metrics (2 of 3)",
        "read the metrics (3 of 3)",
        "read the layout",
        "read the parallelism profile",
        "check the grain graph",
        "assemble the analysis",
        "read the aggregation tree",
        "read the aggregation metrics",
        "check the aggregation",
        "index the grain graph's edges",
        "build the grain-graph view",
        "open the aggregated view's root",
        "lay out the aggregated view",
        "show the grain graph",
    ];
    assert_eq!(names, expected, "one part of a decode or one view per step");
    assert!(!stepped.load_step().unwrap(), "nothing left");
    assert_eq!(stepped.view(), "aggregate");
    assert_eq!(stepped.views(), once.views());
    assert_eq!(stepped.active().unwrap().state(), once.active().unwrap().state());
    assert_eq!(stepped.scene(), once.scene());
    assert!(stepped.built_on_page().is_empty());
    stepped.set_view("grains").unwrap();
    once.set_view("grains").unwrap();
    assert_eq!(stepped.scene(), once.scene());

    // A corrupt step ends the load with an error and leaves what was shown.
    stepped.begin_grains(graph[..graph.len() / 2].to_vec(), None);
    let error = loop {
        match stepped.load_step() {
            Ok(true) => {}
            Ok(false) => panic!("a cut bundle loaded"),
            Err(e) => break e,
        }
    };
    assert!(error.contains("grain graph"), "{error}");
    assert_eq!(stepped.load_step_name(), None);
    assert_eq!(stepped.view(), "grains");
    let other = read_grains("fib.csv", &fib_profile(8, 3, 8)).unwrap();
    let a = GrainAnalysis::new(&other, Thresholds::paper()).unwrap();
    let l = layout(&a.graph, &LayoutParams::default());
    stepped.begin_grains(GrainBundle::new(a, l).encode(), Some(agg));
    while stepped.load_step_name() != Some("read the aggregation tree") {
        assert!(stepped.load_step().unwrap());
    }
    assert!(stepped.load_step().unwrap_err().contains("nodes"), "an aggregation of another graph is refused");
    assert_eq!(stepped.view(), "grains");

    // A trace: decoded in steps (its tables, each interval column, the args, the rest), its overview strip computed in the
    // next, its timeline built in the last.
    let trace = utilization_trace(8, 8 * 61);
    let mut once = set();
    once.load_trace(Rc::new(trace.clone()), None);
    stepped.begin_trace(codec::encode(&trace), None);
    assert_eq!(stepped.load_step_name(), Some("decode the trace: its tables"));
    for _ in 0..8 {
        assert!(stepped.load_step_name().unwrap().starts_with("decode the trace"));
        assert!(stepped.load_step().unwrap());
        assert_eq!(stepped.view(), "grains");
    }
    assert_eq!(stepped.load_step_name(), Some("compute the overview strip"));
    assert!(stepped.load_step().unwrap());
    assert_eq!(stepped.view(), "grains");
    assert_eq!(stepped.load_step_name(), Some("build the timeline view"));
    assert!(!stepped.load_step().unwrap());
    assert_eq!((stepped.view(), stepped.views()), (once.view(), once.views()));
    assert_eq!(stepped.scene(), once.scene());
    stepped.begin_trace(b"not a trace".to_vec(), None);
    assert!(stepped.load_step().is_err());
    assert_eq!(stepped.view(), "timeline");
}

/// A large trace's particle view is built in steps (`begin_view`, then `load_step`): what is shown stays until
/// the last step, which shows the same pane a one-shot switch builds; another switch meanwhile drops the build;
/// a small trace switches at once.
#[test]
fn a_large_particle_index_is_built_in_steps() {
    use weft::samples::particles::bench_trace;
    use weft::views::set::STEPPED_PARTICLES_INTERVALS;
    let trace = Rc::new(bench_trace(64, 50_000_000, 7));
    assert!(trace.intervals.len() > STEPPED_PARTICLES_INTERVALS, "{} intervals", trace.intervals.len());
    let mut v = set();
    v.load_trace(trace.clone(), None);
    assert!(v.begin_view("particles").unwrap(), "built in steps");
    let (mut steps, mut last) = (0, String::new());
    while v.load_step().unwrap() {
        steps += 1;
        assert_eq!(v.view(), "timeline", "shown only at the last step");
        last = v.load_step_name().unwrap().to_string();
        assert!(last.starts_with("particle events") || last.starts_with("particle view"), "{last}");
    }
    assert!(last.starts_with("particle view"), "the pane is made in a step of its own, the last: {last}");
    assert!(steps >= 3, "{steps} steps");
    assert_eq!(v.view(), "particles");
    let mut once = set();
    once.load_trace(trace.clone(), None);
    once.set_view("particles").unwrap();
    let (a, b) = (v.active().unwrap().state(), once.active().unwrap().state());
    for key in ["events", "span_ns", "legend", "running", "processes", "min_duration_ns", "max_duration_ns"] {
        assert_eq!(a[key], b[key], "{key}");
    }
    assert!(!v.begin_view("particles").unwrap(), "built already: switched at once");
    assert!(!v.begin_view("timeline").unwrap());
    assert_eq!(v.view(), "timeline");
    // Another switch while the build runs drops it.
    let mut w = set();
    w.load_trace(trace, None);
    assert!(w.begin_view("particles").unwrap());
    assert!(w.load_step().unwrap());
    w.set_view("moments").unwrap();
    assert!(!w.load_step().unwrap(), "the build was dropped");
    assert_eq!(w.view(), "moments");
    assert_eq!(w.views(), TRACE_VIEWS);
    // A small trace switches at once.
    let mut s = set();
    s.load_trace(Rc::new(utilization_trace(8, 8 * 61)), None);
    assert!(!s.begin_view("particles").unwrap());
    assert_eq!(s.view(), "particles");
}

#[test]
fn another_busy_definition_is_asked_of_the_worker_and_its_answer_shown() {
    use weft::analyses::busy::BusyDefinition;
    use weft::analyses::moments_bundle::MomentsBundle;
    let trace = Rc::new(utilization_trace(8, 8 * 61));
    let bundle = |d: &BusyDefinition| MomentsBundle::compute(&trace, d).encode();
    let m0 = |v: &ViewSet| -> Vec<f64> {
        v.active().unwrap().state()["rows"].as_array().unwrap().iter().map(|r| f(r, "m0_ns")).collect()
    };
    let mut v = set();
    v.load_trace(trace.clone(), Some(bundle(&BusyDefinition::Compute)));
    v.set_view("moments").unwrap();
    let compute = m0(&v);
    v.configure("sort", "m0").unwrap();
    v.configure("busy", "any").unwrap();
    // Asked, not computed: the view still shows the moments under compute, its control shows what was asked.
    assert!(v.built_on_page().is_empty(), "built here: {:?}", v.built_on_page());
    assert_eq!(v.moments_asked().as_deref(), Some("any"));
    let st = v.active().unwrap().state();
    assert_eq!((st["busy"].as_str(), st["busy_asked"].as_str()), (Some("compute"), Some("any")));
    let mut sorted = compute.clone();
    sorted.sort_by(f64::total_cmp);
    assert_eq!(m0(&v), sorted, "sorted by m0, still under compute");
    let schema = v.active().unwrap().options();
    let busy = schema["options"].as_array().unwrap().iter().find(|o| o["key"] == "busy").unwrap();
    assert_eq!((busy["value"].as_str(), busy["applies"].as_str()), (Some("any"), Some("worker")));

    // The worker's answer for another definition is refused; its answer for the one asked is shown.
    assert!(v.receive_moments(&bundle(&BusyDefinition::Pattern("x*".into()))).is_err());
    v.receive_moments(&bundle(&BusyDefinition::Any)).unwrap();
    assert_eq!(v.moments_asked(), None);
    let st = v.active().unwrap().state();
    assert_eq!((st["busy"].as_str(), st["busy_asked"].as_str()), (Some("any"), None));
    let mut want: Vec<f64> =
        MomentsBundle::compute(&trace, &BusyDefinition::Any).rows.iter().map(|m| m.m0_ns as f64).collect();
    want.sort_by(f64::total_cmp);
    assert_eq!(m0(&v), want, "the worker's moments, in the view's sort");
    assert!(want.iter().sum::<f64>() > compute.iter().sum::<f64>(), "any region is busy for longer");
    // Bytes for another trace, or garbage, are errors; nothing was computed here throughout.
    let other = utilization_trace(5, 5 * 61);
    assert!(v.receive_moments(&MomentsBundle::compute(&other, &BusyDefinition::Any).encode()).is_err());
    assert!(v.receive_moments(&[1, 2, 3]).is_err());
    assert!(v.built_on_page().is_empty(), "built here: {:?}", v.built_on_page());

    // Without the worker's moments the pane computes another definition itself, and says so.
    v.load_trace(trace.clone(), None);
    v.set_view("moments").unwrap();
    v.configure("busy", "any").unwrap();
    assert_eq!(v.active().unwrap().state()["busy"], "any");
    assert_eq!(v.moments_asked(), None);
    assert_eq!(v.built_on_page(), ["moments"]);
}

#[test]
fn a_second_run_to_compare_arrives_as_the_workers_grain_bundle() {
    use weft::layouts::grain_bundle::GrainBundle;
    let mut v = set();
    let input = read_grains("fib.csv", &fib_profile(12, 4, 8)).unwrap();
    let a = GrainAnalysis::new(&input, Thresholds::paper()).unwrap();
    let l = layout(&a.graph, &LayoutParams::default());
    v.load_grains(a, l, None).unwrap();
    let input = read_grains("fib-b.csv", &fib_profile(12, 3, 8)).unwrap();
    let b = GrainAnalysis::new(&input, Thresholds::paper()).unwrap();
    let grains = b.graph.grains();
    let l = layout(&b.graph, &LayoutParams::default());
    let bundle = GrainBundle::new(b, l).encode();
    assert!(v.compare_with("fib-b.csv", &bundle).is_err(), "the aggregated view is not shown");
    v.set_view("aggregate").unwrap();
    assert!(v.compare_with("fib-b.csv", &bundle[..bundle.len() / 2]).is_err(), "a cut bundle is refused");
    v.compare_with("fib-b.csv", &bundle).unwrap();
    let st = v.active().unwrap().state();
    assert_eq!(st["compare_name"], "fib-b.csv");
    assert_eq!(st["compare_grains"], grains);
}

#[test]
fn the_particles_tab_of_a_trace_without_communication_says_why() {
    let mut v = set();
    v.load_trace(Rc::new(utilization_trace(8, 8 * 61)), None);
    assert_eq!(v.view_note("particles"), None, "the sample calls MPI");
    let json = br#"{"traceEvents":[{"name":"layout","ph":"X","pid":1,"tid":1,"ts":0,"dur":50},
        {"name":"paint","ph":"X","pid":1,"tid":1,"ts":60,"dur":20}]}"#;
    v.load_trace(Rc::new(crate::common::read::read_bytes("page.json", json).unwrap()), None);
    let note = v.view_note("particles").expect("no MPI: the tab says why");
    assert!(note.contains("no communication or synchronization"), "{note}");
    assert_eq!(v.view_note("timeline"), None);
    // Still offered (events can be picked by name), and the view itself explains and says how.
    assert!(v.views().iter().any(|k| k == "particles"));
    v.set_view("particles").unwrap();
    let scene = v.scene();
    let notice = scene.notice.clone().unwrap_or_default();
    assert!(notice.contains("No events to animate") && notice.contains("cat:GLOB"), "{notice}");
}

/// A view's brief (`Pane::brief`, what the page reads after every wheel, click and readout tick) is its
/// state without the contents: each of its keys is the state's, with the same value, and its size does not
/// grow with the trace's locations (5,000 locations' brief within a few bytes of 8 locations').
#[test]
fn a_views_brief_is_its_state_without_the_contents_and_does_not_grow_with_the_locations() {
    let brief_of = |locations: i64, view: &str| {
        let mut v = set();
        v.load_trace(Rc::new(utilization_trace(locations, locations as usize * 61)), None);
        v.set_view(view).unwrap();
        let p = v.active().unwrap();
        let (brief, state) = (p.brief(), p.state());
        let b = brief.as_object().unwrap_or_else(|| panic!("{view}: the brief is an object: {brief}"));
        for (k, value) in b {
            assert_eq!(&state[k], value, "{view}, {locations} locations: the brief's {k} is the state's");
        }
        assert!(b.len() < state.as_object().unwrap().len(), "{view}: the state holds more than the brief");
        (brief.to_string().len(), state.to_string().len())
    };
    for view in TRACE_VIEWS {
        let (small, _) = brief_of(8, view);
        let (large, state) = brief_of(5000, view);
        assert!(large <= small + 64, "{view}: the brief of 5,000 locations is {large} bytes, of 8 {small}");
        if view != "particles" {
            assert!(state > 50 * large, "{view}: the state ({state} bytes) holds the rows, the brief ({large}) not");
        }
    }
    let mut v = set();
    let input = read_grains("fib.csv", &fib_profile(10, 3, 8)).unwrap();
    let a = GrainAnalysis::new(&input, Thresholds::paper()).unwrap();
    let l = layout(&a.graph, &LayoutParams::default());
    v.load_grains(a, l, None).unwrap();
    for view in ["grains", "aggregate"] {
        v.set_view(view).unwrap();
        let p = v.active().unwrap();
        let (brief, state) = (p.brief(), p.state());
        for (k, value) in brief.as_object().unwrap() {
            assert_eq!(&state[k], value, "{view}: the brief's {k} is the state's");
        }
        // The grain graph's on-screen sample, the aggregated view's drawn nodes.
        let contents = if view == "grains" { "sample_nodes" } else { "nodes" };
        assert!(state[contents].is_array() && brief.get(contents).is_none(), "{view}: {contents} in the state only");
    }
}
