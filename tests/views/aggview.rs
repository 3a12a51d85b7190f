//! The Aggregated view as issue 18 asks for it: a clicked group's property window (members, total/mean/max
//! of each metric over its grains, problems, source locations) equal to what the analysis says of those
//! grains; theta in the view state equal to `Aggregation::theta` (what `weft aggregate` prints); a grain's
//! tooltip naming its source and the jump to the Grain graph tab; one problem view shared by both tabs;
//! similarity marks whose shape and colour tell the classes apart; the filtered view's inset over the graph
//! (nothing of the graph drawn through it) and outlined; two runs that zoom and pan together, each clipped to
//! its half; and two different programs said to be so rather than matched.

use super::{f, rects_at};
use crate::common::read::read_grains;
use serde_json::Value;
use std::collections::HashSet;
use std::rc::Rc;
use weft::analyses::aggregate::similarity::group_hash;
use weft::analyses::aggregate::{Aggregation, Method};
use weft::analyses::grains::{GrainAnalysis, Thresholds};
use weft::layouts::grains::{layout, LayoutParams};
use weft::samples::grains::{fib_profile, random_profile};
use weft::scene::aggregate::similar_mark;
use weft::views::aggregate::AggregatePane;
use weft::views::set::ViewSet;
use weft::views::{ManualClock, Pane};

fn fib(n: u32, cutoff: u32) -> GrainAnalysis {
    let input = read_grains("fib.csv", &fib_profile(n, cutoff, 8)).unwrap();
    GrainAnalysis::new(&input, Thresholds::paper()).unwrap()
}

fn other_program() -> GrainAnalysis {
    let input = read_grains("prog.csv", &random_profile(400, 7, 8)).unwrap();
    GrainAnalysis::new(&input, Thresholds::paper()).unwrap()
}

fn nodes(s: &Value) -> Vec<Value> {
    s["nodes"].as_array().unwrap().clone()
}

fn centre(n: &Value) -> (f32, f32) {
    ((f(n, "x") + f(n, "w") / 2.0) as f32, (f(n, "y") + f(n, "h") / 2.0) as f32)
}

/// The grains of the analysis whose one metric is `value`, summed, averaged and maximised by hand.
fn stats(values: impl Iterator<Item = f64>) -> (f64, f64, f64) {
    let v: Vec<f64> = values.collect();
    let total: f64 = v.iter().sum();
    (total, total / v.len() as f64, v.iter().cloned().fold(f64::NEG_INFINITY, f64::max))
}

fn metric<'a>(p: &'a Value, key: &str) -> &'a Value {
    p["metrics"].as_array().unwrap().iter().find(|m| m["metric"] == key).unwrap_or_else(|| panic!("no {key} in {p}"))
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

#[test]
fn a_clicked_group_opens_its_property_window_with_its_grains_metrics_problems_and_sources() {
    let a = Rc::new(fib(12, 4));
    let mut p = AggregatePane::new(a.clone(), 1000.0, 700.0);
    assert!(p.state()["properties"].is_null(), "nothing selected, no window");
    // The root holds every grain: the window's figures are the whole profile's.
    let root = p.state()["root"].as_u64().unwrap();
    let (x, y) = centre(&nodes(&p.state())[0]);
    assert!(Pane::click(&mut p, x, y));
    let st = p.state();
    let w = &st["properties"];
    assert_eq!(w["id"], root);
    let g = &a.graph;
    assert_eq!(w["grains"], g.grains());
    let (total, mean, max) = stats(g.grain_exec.iter().map(|&e| e as f64));
    let e = metric(w, "exec_cycles");
    assert!(close(f(e, "total"), total) && close(f(e, "mean"), mean) && close(f(e, "max"), max), "{e}");
    let (total, _, max) = stats(a.metrics.parallel_benefit.iter().flatten().copied());
    let pb = metric(w, "parallel_benefit");
    assert!(close(f(pb, "total"), total) && close(f(pb, "max"), max), "{pb}");
    for view in a.problems.iter().filter(|v| v.count > 0) {
        let listed = w["problems"].as_array().unwrap().iter().find(|x| x["metric"] == view.metric).unwrap();
        assert_eq!(listed["grains"], view.count, "{}: every flagged grain is under the root", view.metric);
    }
    let sources: u64 = w["sources"].as_array().unwrap().iter().map(|s| s["grains"].as_u64().unwrap()).sum();
    assert_eq!(sources as usize, g.grains(), "every grain's source location is counted once");
    assert_eq!(w["sources"][0]["source"], "fib.c:0");
    let members = w["members"].as_u64().unwrap() as usize;
    assert!(members >= 1);
    assert_eq!(w["member_ids"].as_array().unwrap().len(), members.min(40));

    // A group further down: its window counts only its own grains.
    p.configure("drill_depth", "3").unwrap();
    let group = nodes(&p.state())
        .into_iter()
        .filter(|n| n["kind"] != "leaf" && n["id"] != root)
        .min_by_key(|n| n["grains"].as_u64())
        .expect("a member group");
    let id = group["id"].as_u64().unwrap();
    p.configure("select", &id.to_string()).unwrap();
    let w = p.state()["properties"].clone();
    assert_eq!(w["id"], id);
    assert_eq!(w["grains"], group["grains"], "as many grains as the group holds");
    assert!(w["grains"].as_u64().unwrap() < g.grains() as u64);
    p.configure("select", "").unwrap();
    assert!(p.state()["properties"].is_null(), "a cleared selection closes the window");
}

#[test]
fn theta_in_the_view_state_is_the_aggregations_theta() {
    let a = Rc::new(fib(12, 4));
    let mut p = AggregatePane::new(a.clone(), 1000.0, 700.0);
    let want = Aggregation::new(&a, Method::Reduction).theta(&a);
    let st = p.state();
    assert_eq!(st["theta"]["max"], want.conservative_max, "structural view: any grain (conservative)");
    assert_eq!(st["theta"]["of"], "any grain");
    assert_eq!(st["theta"]["visible"], st["visible"]);
    let (metric, th) = want.by_problem.iter().next().expect("fib(12) has a problem view");
    p.configure("problem", metric).unwrap();
    let st = p.state();
    assert_eq!(st["theta"]["max"], *th, "problem view {metric}: its problematic grains");
    assert_eq!(st["theta"]["of"], "problematic grains");
    p.configure("select", &st["root"].to_string()).unwrap();
    assert_eq!(p.state()["theta"]["selected"], 1, "theta of the root is 1");
}

#[test]
fn a_grains_tooltip_names_its_source_and_the_jump_shows_it_selected_in_the_grain_graph_tab() {
    let mut v = ViewSet::new(1000.0, 600.0, Rc::new(ManualClock::default()));
    let a = fib(8, 3);
    let l = layout(&a.graph, &LayoutParams::default());
    v.load_grains(a, l, None).unwrap();
    v.set_view("aggregate").unwrap();
    v.configure("open_all_beneath", "").unwrap();
    let pane = v.active_mut().unwrap();
    let st = pane.state();
    let leaf = nodes(&st).into_iter().find(|n| n["grain"].is_u64() && f(n, "w") > 4.0).expect("a drawn grain");
    let (x, y) = centre(&leaf);
    let hover = pane.hover(x, y).expect("a hover");
    assert!(hover.lines.iter().any(|l| l.contains("source fib.c:0")), "{:?}", hover.lines);
    assert!(hover.lines.iter().any(|l| l.starts_with("J:")), "the tooltip says how to jump");
    let grain = leaf["grain"].as_u64().unwrap();
    assert_eq!(pane.state()["hovered_grain"], grain, "what J would show");
    v.show_grain(grain as u32).unwrap();
    assert_eq!(v.view(), "grains");
    assert_eq!(v.grains_pane().unwrap().selected(), Some(grain as u32), "selected in the grain panel");
    assert!(v.show_grain(1 << 30).is_err(), "no such grain");
}

#[test]
fn the_problem_view_is_shared_by_the_grain_graph_and_aggregated_tabs() {
    let mut v = ViewSet::new(1000.0, 600.0, Rc::new(ManualClock::default()));
    let a = fib(12, 4);
    let l = layout(&a.graph, &LayoutParams::default());
    let metric = a.problems.iter().find(|p| p.count > 0).expect("a problem view").metric;
    let other = a.problems.iter().rfind(|p| p.count > 0 && p.metric != metric).map(|p| p.metric);
    v.load_grains(a, l, None).unwrap();
    v.configure("problem", metric).unwrap();
    v.set_view("aggregate").unwrap();
    assert_eq!(v.active().unwrap().state()["problem"], metric, "chosen in the Grain graph tab, shown aggregated");
    v.configure("problem", "structure").unwrap();
    v.set_view("grains").unwrap();
    assert_eq!(v.active().unwrap().state()["problem"], Value::Null, "and back");
    if let Some(other) = other {
        v.set_view("aggregate").unwrap();
        v.configure("problem", other).unwrap();
        v.set_view("grains").unwrap();
        assert_eq!(v.active().unwrap().state()["problem"], other);
    }
}

#[test]
fn similarity_marks_tell_the_classes_apart() {
    let a = Rc::new(other_program());
    let mut p = AggregatePane::new(a.clone(), 1600.0, 1000.0);
    p.configure("drill_depth", "7").unwrap();
    p.configure("similar", "on").unwrap();
    let st = p.state();
    let classes = st["similar_classes"].as_array().unwrap().clone();
    assert!(classes.len() >= 3, "at depth 7 closed groups of several structures show: {classes:?}");
    // The same tree the pane shows, to hash its groups.
    let (tree, _) = Aggregation::shown(&a, Method::Reduction, None);
    let mut marks = HashSet::new();
    let mut checked = 0;
    let mut hashes = HashSet::new();
    let flat: Vec<u64> = st["similar"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect();
    let mut listed = 0;
    for (k, c) in classes.iter().enumerate() {
        assert_eq!(c["class"], k + 1);
        let groups: Vec<u32> = c["groups"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap() as u32).collect();
        assert!(groups.len() >= 2);
        listed += groups.len();
        let h: HashSet<u64> = groups.iter().map(|&u| group_hash(&a.graph, &tree, u)).collect();
        assert_eq!(h.len(), 1, "a class is one structure");
        assert!(hashes.insert(*h.iter().next().unwrap()), "two classes are two structures");
        let (shape, name, color) = similar_mark(k as u32);
        assert_eq!(c["shape"], name);
        assert_eq!(c["color"], format!("#{:06x}", color >> 8));
        assert!(marks.insert((shape as u32, color)), "no two classes share a mark");
        // Each drawn group of the class carries its class's mark in its top-right corner.
        let s = p.scene();
        for &u in &groups {
            let Some(n) = nodes(&st).into_iter().find(|n| n["id"] == u) else { continue };
            let (x, y, w) = (f(&n, "x") as f32, f(&n, "y") as f32, f(&n, "w") as f32);
            if w < 16.0 || x < 0.0 || y < 0.0 || x + w > 1600.0 || y + 16.0 > 1000.0 {
                continue;
            }
            let on = rects_at(&s, x + w - 5.0, y + 5.0);
            assert!(on.iter().any(|r| r.shape == shape as u32 && r.fill == color), "group {u} carries class {}", k + 1);
            checked += 1;
        }
    }
    assert_eq!(listed, flat.len(), "the classes hold exactly the marked groups");
    assert!(checked >= 4, "marks were checked on the scene ({checked})");
}

#[test]
fn the_inset_is_drawn_over_the_graph_and_outlined() {
    let a = Rc::new(fib(14, 5));
    let metric = a.problems.iter().find(|p| p.count > 0).unwrap().metric;
    let mut p = AggregatePane::new(a, 1200.0, 800.0);
    p.configure("problem", metric).unwrap();
    p.configure("filtered", "on").unwrap();
    p.configure("drill_depth", "6").unwrap();
    // Move the graph down and right, so its edges run under the inset.
    p.pan(-420.0);
    p.scroll(-260.0);
    let s = p.scene();
    // The inset's box: the bottom-right background rect with the outline over it (the last rect with a
    // border of the selection's blue and no fill).
    let outline = s.rects.iter().rev().find(|r| r.fill == 0 && r.border_px == 2.0).expect("the inset's outline");
    let (x0, y0, x1, y1) = (outline.x, outline.y, outline.x + outline.w, outline.y + outline.h);
    assert!(x1 <= 1200.0 && y1 <= 800.0 && outline.w >= 60.0, "inside the view, bottom right");
    let background = s
        .rects
        .iter()
        .position(|r| r.x == outline.x && r.y == outline.y && r.w == outline.w && r.fill != 0)
        .expect("the inset's background, same box");
    // Lines are drawn after every rect, so a line of the graph would show through: every line reaching into
    // the box lies wholly inside it (the inset's own edges), none crosses its edge.
    let inside = |x: f32, y: f32| x > x0 + 0.5 && x < x1 - 0.5 && y > y0 + 0.5 && y < y1 - 0.5;
    let within = |x: f32, y: f32| x >= x0 - 0.01 && x <= x1 + 0.01 && y >= y0 - 0.01 && y <= y1 + 0.01;
    let mut own = 0;
    for l in &s.lines {
        let enters = (0..=40).any(|k| {
            let t = k as f32 / 40.0;
            inside(l.x0 + (l.x1 - l.x0) * t, l.y0 + (l.y1 - l.y0) * t)
        });
        if enters {
            assert!(within(l.x0, l.y0) && within(l.x1, l.y1), "a line of the graph is drawn over the inset: {l:?}");
            own += 1;
        }
    }
    assert!(own > 0, "the inset draws its own edges");
    let on_edge = |x: f32, y: f32| {
        ((x - x0).abs() < 0.01 || (x - x1).abs() < 0.01) && y >= y0 && y <= y1
            || ((y - y0).abs() < 0.01 || (y - y1).abs() < 0.01) && x >= x0 && x <= x1
    };
    let cut = s.lines.iter().filter(|l| on_edge(l.x0, l.y0) != on_edge(l.x1, l.y1)).count();
    assert!(cut > 0, "edges of the graph ran under the inset and stop at its edge");
    assert!(background < s.rects.len() - 1, "the inset's own boxes lie over its background");
    for t in &s.labels {
        assert!(!inside(t.x, t.y), "no label of the graph shows through the inset: {:?}", t.text);
    }
}

#[test]
fn two_runs_zoom_and_pan_together_each_clipped_to_its_half() {
    let mut p = AggregatePane::new(Rc::new(fib(12, 4)), 1200.0, 700.0);
    p.compare_with("fib-b.csv", fib(12, 3));
    p.configure("drill_depth", "3").unwrap();
    let scale = |s: &Value, k: &str| s[k]["scale"].as_f64().unwrap();
    let st0 = p.state();
    assert!(st0["compare_programs_differ"].is_null(), "two runs of fib are one program");
    assert!(f(&st0, "compare_matched") > 0.0);
    p.zoom_xy(900.0, Some(300.0), 3.0); // over the right half
    let st1 = p.state();
    let k_left = scale(&st1, "viewport") / scale(&st0, "viewport");
    let k_right = scale(&st1, "compare_viewport") / scale(&st0, "compare_viewport");
    assert!((k_left - 3.0).abs() < 1e-3 && (k_right - 3.0).abs() < 1e-3, "both zoomed 3x: {k_left} {k_right}");
    // The point under the pointer (right half, x = 900) stays put on the right, and so does its twin on the left.
    let px = |s: &Value, k: &str, lx: f64| (lx - s[k]["x0"].as_f64().unwrap()) * scale(s, k);
    let lx_right = st0["compare_viewport"]["x0"].as_f64().unwrap() + 300.0 / scale(&st0, "compare_viewport");
    assert!(
        (px(&st1, "compare_viewport", lx_right) - 300.0).abs() < 0.5,
        "right half: the point under the pointer stays"
    );
    let lx_left = st0["viewport"]["x0"].as_f64().unwrap() + 300.0 / scale(&st0, "viewport");
    assert!((px(&st1, "viewport", lx_left) - 300.0).abs() < 0.5, "left half: its twin stays");
    p.pan(120.0);
    let st2 = p.state();
    let moved = |k: &str| (st2[k]["x0"].as_f64().unwrap() - st1[k]["x0"].as_f64().unwrap()) * scale(&st2, k);
    assert!((moved("viewport") - 120.0).abs() < 0.5 && (moved("compare_viewport") - 120.0).abs() < 0.5, "both panned");
    let s = p.scene();
    let half = 600.0;
    let mut left = 0;
    for r in &s.rects {
        if r.w >= 1199.0 {
            continue; // a banner across the whole view
        }
        let (a, b) = (r.x, r.x + r.w);
        assert!(b <= half + 0.01 || a >= half - 0.01, "a rect straddles the divider: {r:?}");
        left += (b <= half + 0.01) as usize;
    }
    for l in &s.lines {
        let (a, b) = (l.x0.min(l.x1), l.x0.max(l.x1));
        assert!(b <= half + 0.01 || a >= half - 0.01, "a line crosses the divider: {l:?}");
    }
    assert!(left > 0 && s.rects.len() > left, "both halves draw");
    p.fit();
    let st3 = p.state();
    assert!((scale(&st3, "compare_viewport") - scale(&st0, "compare_viewport")).abs() < 1e-4, "fit fits both");
}

#[test]
fn two_different_programs_are_said_to_be_so_not_matched() {
    let mut p = AggregatePane::new(Rc::new(fib(10, 3)), 1200.0, 700.0);
    p.compare_with("prog.csv", other_program());
    for depth in ["0", "2"] {
        p.configure("drill_depth", depth).unwrap();
        let st = p.state();
        let why = st["compare_programs_differ"].as_str().expect("different programs");
        assert!(why.contains("fib.c") && why.contains("prog.c"), "{why}");
        assert_eq!(st["compare_matched"], 0, "no group matched at depth {depth}");
        assert_eq!(st["compare_differ"], 0);
        assert!(f(&st, "compare_visible") > 0.0);
    }
}

#[test]
fn real_profiles_of_two_programs_are_told_apart_and_one_with_itself_matches() {
    let Some(dir) = crate::common::shared_traces("real_profiles_of_two_programs_are_told_apart") else { return };
    let read = |p: &str| {
        let (input, _) =
            crate::common::read::read_grains_path(&dir.join("grain-graphs/anamud-test-data").join(p)).unwrap();
        GrainAnalysis::new(&input, Thresholds::paper()).unwrap()
    };
    let mut p = AggregatePane::new(Rc::new(read("for-loop/task-stats.merged")), 1200.0, 700.0);
    p.compare_with("fib", read("fib/task-stats.merged"));
    let st = p.state();
    assert!(st["compare_programs_differ"].as_str().unwrap().starts_with("different programs"));
    assert_eq!(st["compare_matched"], 0);
    p.compare_with("for-loop again", read("for-loop/task-stats.merged"));
    p.configure("drill_depth", "2").unwrap();
    let st = p.state();
    assert!(st["compare_programs_differ"].is_null());
    assert_eq!(st["compare_matched"], st["compare_visible"], "a run with itself matches everywhere");
    assert_eq!(st["compare_differ"], 0);
}
