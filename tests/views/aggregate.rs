//! The aggregated view: a click on a closed group opens it and a click on an opened group's envelope closes
//! it; the open animates by injected time only (a clock the test advances) and ends where an unanimated
//! view is; hovering a drawn group names it; zoom keeps the point under the pointer and fit undoes it; a
//! restored view is the same view.

use super::{f, rects_at, round_trips};
use serde_json::Value;
use std::rc::Rc;
use weft::analyses::grains::GrainAnalysis;
use weft::views::aggregate::AggregatePane;
use weft::views::{ManualClock, Pane};

fn analysis() -> GrainAnalysis {
    super::grains::analysed(10, 3).0
}

fn pane() -> AggregatePane {
    AggregatePane::new(std::rc::Rc::new(analysis()), 1000.0, 700.0)
}

fn nodes(s: &Value) -> Vec<Value> {
    s["nodes"].as_array().unwrap().clone()
}

fn node(s: &Value, id: u64) -> Value {
    nodes(s).into_iter().find(|n| n["id"] == id).unwrap_or_else(|| panic!("node {id} is visible"))
}

fn centre(n: &Value) -> (f32, f32) {
    ((f(n, "x") + f(n, "w") / 2.0) as f32, (f(n, "y") + f(n, "h") / 2.0) as f32)
}

fn open(s: &Value) -> Vec<u64> {
    s["open"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect()
}

#[test]
fn a_click_on_a_closed_group_opens_it_and_on_its_envelope_closes_it() {
    let mut p = pane();
    let s0 = p.state();
    let root = s0["root"].as_u64().unwrap();
    assert!(open(&s0).is_empty(), "the view opens as one closed group");
    let (x, y) = centre(&node(&s0, root));
    assert!(!rects_at(&p.scene(), x, y).is_empty(), "the root is drawn at its centre");
    assert!(p.click(x, y), "the click acts");
    let s1 = p.state();
    assert_eq!(open(&s1), vec![root], "the root is open");
    assert_eq!(s1["selected"]["id"], root);
    assert!(nodes(&s1).len() > 2, "its members are shown");

    // Open the largest closed member by a click at its centre.
    let member = nodes(&s1)
        .into_iter()
        .filter(|n| n["id"] != root && n["kind"] != "leaf" && !n["open"].as_bool().unwrap())
        .max_by(|a, b| (f(a, "w") * f(a, "h")).total_cmp(&(f(b, "w") * f(b, "h"))))
        .expect("a closed group among the root's members");
    let id = member["id"].as_u64().unwrap();
    let (x, y) = centre(&member);
    assert!(p.click(x, y));
    assert!(open(&p.state()).contains(&id), "clicking group {id} opens it");

    // A point inside the opened member's box but outside every node drawn inside it: its envelope.
    let s2 = p.state();
    let outer = node(&s2, id);
    let inner: Vec<Value> = nodes(&s2).into_iter().filter(|n| n["parent"] == id).collect();
    let inside = |n: &Value, x: f64, y: f64| {
        x >= f(n, "x") - 1.0
            && x <= f(n, "x") + f(n, "w") + 1.0
            && y >= f(n, "y") - 1.0
            && y <= f(n, "y") + f(n, "h") + 1.0
    };
    let spot = (1..40)
        .flat_map(|i| (1..40).map(move |j| (i as f64 / 40.0, j as f64 / 40.0)))
        .map(|(a, b)| (f(&outer, "x") + a * f(&outer, "w"), f(&outer, "y") + b * f(&outer, "h")))
        .find(|&(x, y)| !inner.iter().any(|n| inside(n, x, y)))
        .expect("the envelope shows between its members");
    assert!(p.click(spot.0 as f32, spot.1 as f32));
    assert!(!open(&p.state()).contains(&id), "clicking group {id}'s envelope closes it");
    assert!(!p.click(-10.0, -10.0), "a click on nothing does nothing");
}

#[test]
fn the_open_animates_by_injected_time_only() {
    let clock = Rc::new(ManualClock::new(1000.0));
    let mut p = pane().with_clock(clock.clone());
    let mut still = pane();
    let root = p.state()["root"].as_u64().unwrap();
    let (x, y) = centre(&node(&p.state(), root));
    assert!(!p.animating());
    assert!(p.click(x, y) && still.click(x, y));
    assert!(!still.animating(), "without a clock the view lands at once");
    assert!(p.animating(), "the open animates");
    let start = p.scene();
    assert_ne!(start.rects, still.scene().rects, "at time 0 the members have not moved out yet");
    assert_eq!(p.scene().rects, start.rects, "no injected time, no motion");
    clock.advance(100.0);
    assert!(p.animating());
    let middle = p.scene();
    assert_ne!(middle.rects, start.rects, "half-way the nodes moved");
    assert_ne!(middle.rects, still.scene().rects, "and have not arrived");
    clock.advance(100.0);
    assert!(!p.animating(), "200 ms later the animation is over");
    assert_eq!(p.scene().rects, still.scene().rects, "and the view is where an unanimated one is");
    assert_eq!(p.state()["last_relayout_ms"], 0.0, "the re-layout took no injected time");
}

#[test]
fn hover_at_a_drawn_group_names_it() {
    let mut p = pane();
    p.configure("drill_depth", "4").unwrap();
    let s = p.state();
    let scene = p.scene();
    let mut hovered = 0;
    for n in nodes(&s) {
        if n["open"].as_bool().unwrap() || f(&n, "w") < 4.0 || f(&n, "h") < 4.0 {
            continue;
        }
        let (x, y) = centre(&n);
        assert!(!rects_at(&scene, x, y).is_empty(), "node {} is drawn", n["id"]);
        let h = p.hover(x, y).unwrap_or_else(|| panic!("node {} hovers", n["id"]));
        assert_eq!(h.detail["id"], n["id"]);
        if n["kind"] != "leaf" {
            assert!(h.title.contains(&format!("group {} (closed)", n["id"])), "{}", h.title);
        }
        hovered += 1;
    }
    assert!(hovered >= 4, "{hovered} nodes hovered");
    assert!(p.hover(-5.0, -5.0).is_none());
}

#[test]
fn zoom_pan_fit_and_restore() {
    let mut p = pane();
    let vp = |s: &Value| (f(&s["viewport"], "x0"), f(&s["viewport"], "y0"), f(&s["viewport"], "scale"));
    let s0 = p.state();
    assert_eq!(s0["fitted"], true);
    let (x0, y0, k0) = vp(&s0);
    p.zoom_xy(400.0, Some(300.0), 2.0);
    let s1 = p.state();
    let (x1, y1, k1) = vp(&s1);
    assert_eq!(s1["fitted"], false);
    assert!((k1 - 2.0 * k0).abs() < 1e-4 * k0);
    assert!((x0 + 400.0 / k0 - (x1 + 400.0 / k1)).abs() < 1e-2 && (y0 + 300.0 / k0 - (y1 + 300.0 / k1)).abs() < 1e-2);
    p.pan(25.0);
    p.scroll(10.0);
    let (x2, y2, _) = vp(&p.state());
    assert!((x2 - x1 - 25.0 / k1).abs() < 1e-3 && (y2 - y1 - 10.0 / k1).abs() < 1e-3);
    p.fit();
    assert_eq!(vp(&p.state()), (x0, y0, k0));

    p.configure("drill_depth", "2").unwrap();
    p.configure("similar", "on").unwrap();
    p.zoom_xy(300.0, Some(200.0), 1.5);
    round_trips(&p, &mut pane());
    let metric = p.state()["problems"].as_array().unwrap().iter().find(|v| v["count"].as_u64() > Some(0)).unwrap()
        ["metric"]
        .as_str()
        .unwrap()
        .to_string();
    p.configure("problem", &metric).unwrap();
    p.configure("filtered", "on").unwrap();
    assert_eq!(p.state()["problem"], metric.as_str());
    round_trips(&p, &mut pane());
}
