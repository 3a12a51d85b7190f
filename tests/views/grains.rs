//! The grain-graph view: zoom keeps the layout point under the pointer, pan and scroll move the viewport,
//! fit (and a resize while fitted) shows everything; hovering a grain's drawn fragment names its task; the
//! selected grain is outlined; problem views and thresholds change what is drawn; a restored view is the
//! same view.

use super::{f, rects_at, round_trips};
use crate::common::read::read_grains;
use weft::analyses::grains::{GrainAnalysis, Thresholds};
use weft::layouts::grains::{layout, GrainLayout, LayoutParams};
use weft::samples::grains::fib_profile;
use weft::views::grains::GrainsPane;
use weft::views::Pane;

pub fn analysed(n: u32, cutoff: u32) -> (GrainAnalysis, GrainLayout) {
    let input = read_grains("fib.csv", &fib_profile(n, cutoff, 8)).unwrap();
    let a = GrainAnalysis::new(&input, Thresholds::paper()).unwrap();
    let l = layout(&a.graph, &LayoutParams::default());
    (a, l)
}

fn pane_of(width: f32, height: f32) -> GrainsPane {
    let (a, l) = analysed(8, 3);
    GrainsPane::new(a, l, width, height)
}

fn pane() -> GrainsPane {
    pane_of(1000.0, 700.0)
}

#[test]
fn zoom_pan_scroll_fit_and_resize() {
    let mut p = pane();
    let s0 = p.state();
    let vp = |s: &serde_json::Value| (f(&s["viewport"], "x0"), f(&s["viewport"], "y0"), f(&s["viewport"], "scale"));
    let (x0, y0, k0) = vp(&s0);
    let (x, y) = (300.0, 200.0);
    p.zoom_xy(x as f32, Some(y as f32), 2.0);
    let (x1, y1, k1) = vp(&p.state());
    assert!((k1 - 2.0 * k0).abs() < 1e-4 * k0);
    assert!((x0 + x / k0 - (x1 + x / k1)).abs() < 1e-2 && (y0 + y / k0 - (y1 + y / k1)).abs() < 1e-2, "point stays");
    p.pan(40.0);
    p.scroll(-20.0);
    let (x2, y2, _) = vp(&p.state());
    assert!((x2 - (x1 + 40.0 / k1)).abs() < 1e-3 && (y2 - (y1 - 20.0 / k1)).abs() < 1e-3);
    p.resize(800.0, 700.0);
    assert_eq!(vp(&p.state()), (x2, y2, k1), "a moved view is kept on resize");
    p.fit();
    assert_eq!(vp(&p.state()), vp(&pane_of(800.0, 700.0).state()), "fit shows what a new view shows");
    p.resize(300.0, 700.0);
    assert_eq!(vp(&p.state()), vp(&pane_of(300.0, 700.0).state()), "a fitted view fits again on resize");
}

#[test]
fn hover_at_a_drawn_grain_names_its_task_and_selection_outlines_it() {
    let mut p = pane();
    let s = p.state();
    let samples = s["sample_nodes"].as_array().unwrap().clone();
    assert!(samples.len() >= 8, "grains on screen: {}", samples.len());
    let scene = p.scene();
    let mut hovered = 0;
    for n in &samples {
        let (w, h) = (f(n, "w"), f(n, "h"));
        if w < 3.0 || h < 3.0 {
            continue;
        }
        let (x, y) = ((f(n, "x") + w / 2.0) as f32, (f(n, "y") + h / 2.0) as f32);
        assert!(!rects_at(&scene, x, y).is_empty(), "the grain's fragment is drawn at ({x}, {y})");
        let hit = p.hover(x, y).expect("a grain is under its fragment's centre");
        assert_eq!(hit.detail["node"], n["node"]);
        assert_eq!(hit.detail["task"], n["task"].to_string().as_str());
        hovered += 1;
    }
    assert!(hovered >= 8, "{hovered} grains hovered");
    assert!(p.hover(-50.0, -50.0).is_none());

    let grain = p.grain_at(f(&samples[0], "x") as f32 + 1.0, f(&samples[0], "y") as f32 + 1.0).unwrap();
    let bordered = |p: &GrainsPane| p.scene().rects.iter().filter(|r| r.border_px >= 2.5).count();
    let before = bordered(&p);
    p.select(Some(grain)).unwrap();
    assert!(bordered(&p) > before, "the selected grain is outlined");
    assert_eq!(p.state()["selected"]["grain"], grain);
    assert!(p.select(Some(1 << 30)).is_err());
}

#[test]
fn options_and_restore() {
    let mut p = pane();
    let structure = p.scene();
    let metric = p.analysis().problems.iter().find(|v| v.count > 0).map(|v| v.metric).expect("a problem in fib");
    p.configure("problem", metric).unwrap();
    assert_eq!(p.state()["problem"], metric);
    assert_ne!(p.scene().rects, structure.rects, "the problem view colours by severity");
    assert!(p.configure("problem", "happiness").is_err());
    p.configure("problem", "structure").unwrap();
    assert_eq!(p.scene().rects, structure.rects);
    p.configure("thresholds", "prototype").unwrap();
    assert_eq!(p.state()["thresholds"], "prototype");

    p.zoom_xy(200.0, Some(100.0), 4.0);
    p.pan(15.0);
    let mut fresh = pane();
    fresh.configure("thresholds", "prototype").unwrap();
    round_trips(&p, &mut fresh);
}

/// Problems of `metric` counted from the metrics themselves under `bound` (an independent count).
fn crossing(p: &GrainsPane, metric: &str, bound: weft::analyses::grains::problems::Bound) -> usize {
    let m = &p.analysis().metrics;
    let vals = match metric {
        "parallel_benefit" => &m.parallel_benefit,
        "instantaneous_parallelism_median" => &m.inst_par_median,
        _ => unreachable!(),
    };
    vals.iter().filter(|v| v.is_some_and(|v| bound.crossed(v))).count()
}

fn count_of(p: &GrainsPane, metric: &str) -> usize {
    p.analysis().problem(metric).unwrap().count
}

#[test]
fn cores_and_thresholds_set_by_the_user() {
    use weft::analyses::grains::problems::Bound;
    use weft::views::options::{GrainsOptions, ViewOptions};
    let mut p = pane();
    let cores0 = p.analysis().cores;
    let pb0 = count_of(&p, "parallel_benefit");
    assert_eq!(p.state()["cores"], cores0);

    // Cores: instantaneous parallelism below them is a problem.
    p.configure("cores", "64").unwrap();
    assert_eq!(p.analysis().cores, 64);
    let ip = "instantaneous_parallelism_median";
    assert_eq!(count_of(&p, ip), crossing(&p, ip, Bound::Below(64.0)));
    assert!(count_of(&p, ip) > 0, "with 64 cores the fib grains run below them");
    p.configure("cores", "auto").unwrap();
    assert_eq!(p.analysis().cores, cores0);

    // A metric's threshold: its value changes, the preset's direction stays.
    p.configure("parallel_benefit", "1000").unwrap();
    assert_eq!(p.analysis().thresholds.parallel_benefit, Bound::Below(1000.0));
    assert_eq!(count_of(&p, "parallel_benefit"), crossing(&p, "parallel_benefit", Bound::Below(1000.0)));
    assert!(count_of(&p, "parallel_benefit") > pb0);
    p.configure("thresholds", "prototype").unwrap();
    assert_eq!(p.analysis().thresholds.parallel_benefit, Bound::Below(1000.0), "kept over another preset");
    p.configure("memory_hierarchy_utilization", "0.9").unwrap();
    assert_eq!(p.analysis().thresholds.mem_hier_util, Bound::Above(0.9), "the prototype's direction");
    p.configure("parallel_benefit", "preset").unwrap();
    p.configure("thresholds", "paper").unwrap();
    p.configure("memory_hierarchy_utilization", "preset").unwrap();
    assert_eq!(count_of(&p, "parallel_benefit"), pb0);
    assert_eq!(p.analysis().thresholds, Thresholds::paper());

    // Refused with the option's words; nothing changes.
    for (k, v) in
        [("cores", "0"), ("cores", "-2"), ("cores", "many"), ("parallel_benefit", "NaN"), ("work_deviation", "-1")]
    {
        let e = p.configure(k, v).unwrap_err();
        assert!(e.contains(k), "{k}={v}: {e}");
    }
    assert_eq!(p.analysis().thresholds, Thresholds::paper());

    // Kept in permalinks: the view's pairs give the same options back.
    p.configure("cores", "12").unwrap();
    p.configure("sibling_scatter", "3").unwrap();
    let o = GrainsOptions::from_pairs(
        p.options()["pairs"].as_array().unwrap().iter().map(|kv| (kv[0].as_str().unwrap(), kv[1].as_str().unwrap())),
    )
    .unwrap();
    assert_eq!(o.overrides.cores, Some(12));
    assert_eq!(o.effective_thresholds(), p.analysis().thresholds);
    // A fresh view given the link's pairs, as the page applies a permalink, finds the same problems.
    let mut fresh = pane();
    for kv in p.options()["pairs"].as_array().unwrap() {
        fresh.configure(kv[0].as_str().unwrap(), kv[1].as_str().unwrap()).unwrap();
    }
    assert_eq!(fresh.state()["problems"], p.state()["problems"]);
    assert_eq!(fresh.analysis().thresholds, p.analysis().thresholds);
    assert_eq!(fresh.state()["cores"], 12);
}
