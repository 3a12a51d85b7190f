//! The parallelism strip below the grain graph and its links: hovering an instant on the strip outlines the
//! grains running then (exactly the profile's `running_at`), hovering a grain marks its span on the strip; a
//! pane too short for both shows the graph alone. Colouring by `cpu_id` uses the prototype's colour map.

use super::grains::analysed;
use weft::analyses::grains::Parallelism;
use weft::scene::grains::{cpu_color, topo_color};
use weft::scene::parallelism::{FILL, LINK};
use weft::scene::rgba;
use weft::views::grains::GrainsPane;
use weft::views::Pane;

#[test]
fn hovering_an_instant_outlines_the_grains_running_then() {
    let (a, l) = analysed(12, 4);
    let mut p = GrainsPane::new(a, l, 1000.0, 700.0);
    let s = p.state();
    let strip = &s["parallelism"]["strip"];
    let (top, x0, x1) = (strip["top"].as_f64().unwrap(), strip["x0"].as_f64().unwrap(), strip["x1"].as_f64().unwrap());
    assert!(top > 500.0 && top < 700.0, "the strip is at the bottom: {top}");
    let scene = p.scene();
    assert_eq!(scene.height, 700.0);
    let bars = scene.rects.iter().filter(|r| r.fill == FILL && r.y as f64 >= top).count();
    assert!(bars > 3, "the profile is drawn: {bars} bars");
    // No graph node is drawn over the strip.
    assert!(scene.rects.iter().filter(|r| r.fill != FILL && r.y as f64 > top + 1.0).all(|r| r.border_px == 0.0));
    let span = p.analysis().parallelism.span;
    let mut outlined_somewhere = false;
    for k in 1..10 {
        let x = x0 + (x1 - x0) * k as f64 / 10.0;
        let h = p.hover(x as f32, (top + 50.0) as f32).expect("the strip answers a hover");
        let t = h.detail["parallelism"]["t"].as_u64().unwrap();
        assert!((t as f64 - span as f64 * k as f64 / 10.0).abs() <= span as f64 / 500.0, "t under the pointer");
        let a = p.analysis();
        let expect: Vec<u64> = a.parallelism.running_at(t).iter().map(|&g| a.graph.grain_task[g as usize]).collect();
        let tasks: Vec<u64> =
            h.detail["parallelism"]["tasks"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect();
        assert_eq!(tasks, expect, "at {t}");
        assert_eq!(tasks.len() as u32, a.parallelism.count_at(t));
        assert_eq!(p.running().len(), tasks.len());
        let outlines = p.scene().rects.iter().filter(|r| r.border == LINK || r.fill == LINK).count();
        assert_eq!(outlines > 0, !tasks.is_empty(), "outlined grains at {t}");
        outlined_somewhere |= outlines > 0;
        assert_eq!(p.state()["parallelism"]["at"], t);
    }
    assert!(outlined_somewhere);
    p.clear_hover();
    assert!(p.running().is_empty());
    assert!(p.scene().rects.iter().all(|r| r.border != LINK && r.fill != LINK));
}

#[test]
fn hovering_a_grain_marks_its_span_on_the_strip() {
    let (a, l) = analysed(8, 3);
    let mut p = GrainsPane::new(a, l, 1000.0, 700.0);
    let s = p.state();
    let node = &s["sample_nodes"][3];
    let (x, y) = (node["x"].as_f64().unwrap() + 2.0, node["y"].as_f64().unwrap() + 2.0);
    let h = p.hover(x as f32, y as f32).expect("a node");
    let grain = h.detail["grain"].as_u64().unwrap() as u32;
    let a = p.analysis();
    let (lo, hi) = Parallelism::grain_span(&a.graph, &a.critical, grain).unwrap();
    let strip = p.strip().unwrap();
    let band = rgba(0x2f, 0x6f, 0xd6, 0x40);
    let marked: Vec<_> = p.scene().rects.into_iter().filter(|r| r.fill == band).collect();
    assert_eq!(marked.len(), 1);
    assert!((marked[0].x - strip.x_of(lo, a.parallelism.span)).abs() < 0.01);
    assert!((marked[0].w - (strip.x_of(hi, a.parallelism.span) - marked[0].x).max(2.0)).abs() < 0.01);
}

#[test]
fn a_short_pane_shows_the_graph_alone() {
    let (a, l) = analysed(8, 3);
    let mut p = GrainsPane::new(a, l, 600.0, 200.0);
    assert!(p.state()["parallelism"]["strip"].is_null());
    assert!(p.scene().rects.iter().all(|r| r.fill != FILL));
    p.resize(600.0, 600.0);
    assert!(!p.state()["parallelism"]["strip"].is_null());
}

#[test]
fn colour_by_cpu_id_follows_the_prototypes_colour_map() {
    // R's topo.colors, as the prototype's task-cpu_id-linear.colormap and task-outline_function one hold.
    let hex = |c: u32| format!("#{:08X}", c);
    assert_eq!(hex(topo_color(0, 1)), hex(rgba(0x4c, 0x00, 0xff, 0xff)));
    let four: Vec<u32> = (0..4).map(|k| topo_color(k, 4)).collect();
    let expect = [
        rgba(0x4c, 0x00, 0xff, 0xff),
        rgba(0x00, 0xe5, 0xff, 0xff),
        rgba(0x00, 0xff, 0x4d, 0xff),
        rgba(0xff, 0xff, 0x00, 0xff),
    ];
    assert_eq!(four, expect);
    let (a, l) = analysed(10, 4);
    let cpus = a.cpu_ids.clone();
    assert!(cpus.len() > 1, "the sample runs on several cores");
    let g = a.graph.clone();
    let mut p = GrainsPane::new(a, l, 1000.0, 900.0);
    p.configure("color", "cpu_id").unwrap();
    let o = p.options();
    let color = o["options"].as_array().unwrap().iter().find(|o| o["key"] == "color").unwrap().clone();
    assert_eq!(color["value"], "cpu_id", "{color}");
    // Each fragment drawn one by one (a pixel or more) has its grain's cpu colour.
    let s = p.state();
    let scene = p.scene();
    let mut seen = std::collections::BTreeSet::new();
    for n in s["sample_nodes"].as_array().unwrap() {
        let v = n["node"].as_u64().unwrap() as usize;
        if !g.node_kind[v].holds_work() || n["w"].as_f64().unwrap() < 2.0 || n["h"].as_f64().unwrap() < 2.0 {
            continue;
        }
        let (x, y) = (n["x"].as_f64().unwrap() as f32 + 1.0, n["y"].as_f64().unwrap() as f32 + 1.0);
        let want = cpu_color(g.grain_cpu[g.node_grain[v] as usize], &cpus);
        assert!(super::rects_at(&scene, x, y).iter().any(|r| r.fill == want), "node {v}");
        seen.insert(want);
    }
    assert!(seen.len() > 1, "several cores' colours on screen");
}

#[test]
fn more_grains_than_can_be_outlined_are_counted() {
    // fib(20) with cutoff 16: thousands of leaves run at once on the critical-path-distance axis.
    let (a, l) = analysed(20, 16);
    let p0 = &a.parallelism;
    assert!(p0.max as usize > weft::views::grains::OUTLINE_AT_MOST, "max {}", p0.max);
    let t = (0..p0.step_t.len()).find(|&i| p0.step_count[i] == p0.max).map(|i| p0.step_t[i]).unwrap();
    let mut p = GrainsPane::new(a, l, 1000.0, 700.0);
    assert!(p.hover_profile(Some(t)).is_empty(), "not listed");
    assert_eq!(p.running_count(), p.analysis().parallelism.max as usize);
    assert_eq!(p.state()["parallelism"]["running"], p.analysis().parallelism.max);
    assert_eq!(p.state()["parallelism"]["outlined"], 0);
}
