//! Legends (`scene::legend`) against the scenes they explain: every colour and shape a legend names is one
//! the view draws; functions are counted by grains; problematic grains smaller than a pixel keep a marker
//! at fit (each one's centre lies in a marker); `weft render`'s picture carries the legend beside the view;
//! each view lists its own keys for the `?` overlay.

use crate::common;

use common::read::read_grains;
use weft::analyses::grains::{GrainAnalysis, Thresholds, NONE};
use weft::layouts::grains::{layout, LayoutParams};
use weft::samples::grains::fib_profile;
use weft::scene::grains::{build, View, Viewport, MARK_PX};
use weft::scene::legend::{self, hex, Legend, Mark, PROBLEM_MARK_BORDER};
use weft::scene::Scene;
use weft::views::grains::GrainsPane;
use weft::views::{keys, Pane};

fn analysed(n: u32) -> GrainAnalysis {
    analysed_cut(n, 4)
}

fn analysed_cut(n: u32, cutoff: u32) -> GrainAnalysis {
    GrainAnalysis::new(&read_grains("fib.csv", &fib_profile(n, cutoff, 8)).unwrap(), Thresholds::paper()).unwrap()
}

fn fills(s: &Scene) -> Vec<String> {
    s.rects.iter().map(|r| hex(r.fill)).collect()
}

/// Every shape entry's fill (and border) and every line entry's colour is drawn somewhere in the scene;
/// `skip`: labels of entries the scene need not show (e.g. a mark for a case absent at this zoom).
fn drawn_all(l: &Legend, s: &Scene, skip: &[&str]) {
    let f = fills(s);
    let borders: Vec<String> = s.rects.iter().filter(|r| r.border_px > 0.0).map(|r| hex(r.border)).collect();
    let lines: Vec<String> = s.lines.iter().map(|x| hex(x.color)).collect();
    for e in l.entries() {
        if skip.iter().any(|k| e.label.contains(k)) {
            continue;
        }
        match &e.mark {
            Mark::Shape { border, .. } if !border.is_empty() => {
                assert!(borders.contains(border), "border of {:?} is drawn", e.label)
            }
            Mark::Shape { .. } => assert!(f.contains(&e.color), "fill of {:?} ({}) is drawn", e.label, e.color),
            Mark::Line { .. } => assert!(lines.contains(&e.color), "line {:?} ({}) is drawn", e.label, e.color),
            Mark::Mixed => {}
        }
    }
}

#[test]
fn grain_legend_names_what_the_structural_view_draws() {
    let a = analysed(9);
    let l = layout(&a.graph, &LayoutParams::default());
    // Large enough that every node is drawn as itself.
    let vp = Viewport::fit(&l, 20_000.0, 8_000.0);
    let s = build(&a, &l, &vp, View::Structure(weft::scene::grains::ColorBy::OutlineFunction));
    let leg = legend::grains(&a, View::Structure(weft::scene::grains::ColorBy::OutlineFunction));
    drawn_all(&leg, &s, &[]);
    // Functions by grains: the entries (and "other") count every grain once.
    let sec = &leg.sections[0];
    let count = |label: &str| -> u64 {
        let inner = label.rsplit('(').next().unwrap_or("");
        inner.split(' ').next().unwrap_or("0").replace(',', "").parse().unwrap_or(0)
    };
    let total: u64 = sec.entries.iter().map(|e| count(&e.label)).sum();
    assert_eq!(total, a.graph.grains() as u64, "{:?}", sec.entries);
    assert!(sec.entries.len() <= legend::TOP + 1);
}

#[test]
fn problem_legend_and_markers_at_fit() {
    let a = analysed_cut(20, 11);
    let l = layout(&a.graph, &LayoutParams::default());
    let p = a.problems.iter().find(|p| p.count > 0).expect("a problem view with problematic grains");
    let (w, h) = (400.0, 200.0);
    let vp = Viewport::fit(&l, w, h);
    let s = build(&a, &l, &vp, View::Problem(p));
    let g = &a.graph;
    let marks: Vec<_> = s.rects.iter().filter(|r| r.border == PROBLEM_MARK_BORDER && r.border_px > 0.0).collect();
    assert!(!marks.is_empty(), "the fitted graph is smaller than its grains: markers are drawn");
    // Every problematic grain's sub-pixel fragment has its centre in a marker, at least MARK_PX wide.
    let mut checked = 0;
    for v in 0..g.nodes() {
        let gi = g.node_grain[v];
        if gi == NONE || !g.node_kind[v].holds_work() || !p.problematic[gi as usize] {
            continue;
        }
        let (sw, sh) = (l.w[v] * vp.scale, l.h[v] * vp.scale);
        if sw >= 1.0 && sh >= 1.0 {
            continue;
        }
        let cx = (l.x[v] - vp.x0) * vp.scale + sw / 2.0;
        let cy = (l.y[v] - vp.y0) * vp.scale + sh / 2.0;
        if cx < 0.0 || cy < 0.0 || cx >= w || cy >= h {
            continue;
        }
        assert!(
            marks.iter().any(|r| cx >= r.x && cx <= r.x + r.w && cy >= r.y && cy <= r.y + r.h && r.w >= MARK_PX),
            "grain {gi} at ({cx}, {cy}) has a marker"
        );
        checked += 1;
    }
    assert!(checked > 10, "{checked} sub-pixel problematic fragments checked");
    // No marker where no problematic grain is: the structural view has none.
    let st = build(&a, &l, &vp, View::Structure(weft::scene::grains::ColorBy::OutlineFunction));
    assert!(!st.rects.iter().any(|r| r.border == PROBLEM_MARK_BORDER && r.border_px > 0.0));
    // The legend's ramp and marker are what the scene draws (its fills come from the same ramp).
    let leg = legend::grains(&a, View::Problem(p));
    assert!(leg.sections[0].title.contains(&weft::analyses::aggregate::query::thousands(p.count as u64)));
    drawn_all(&leg, &s, &["just past", "half way", "far past", "start, end", "not problematic"]);
}

#[test]
fn aggregate_and_execgraph_legends_name_what_they_draw() {
    let a = std::rc::Rc::new(analysed(10));
    let mut pane = weft::views::aggregate::AggregatePane::new(a.clone(), 1000.0, 700.0);
    let s = pane.scene();
    let leg = pane.legend().expect("the aggregated view has a legend");
    // At first the root's members show closed, in the colour the legend names.
    let f = fills(&s);
    let unopened = hex(weft::scene::aggregate::UNOPENED);
    assert!(f.contains(&unopened));
    assert!(leg.sections[1].entries.iter().any(|e| e.color == unopened && e.label.contains("closed group")));
    pane.configure("problem", "parallel_benefit").unwrap();
    assert!(pane.legend().unwrap().sections[0].title.contains("parallel benefit"));

    use weft::layouts::execgraph::bundle::ExecBundle;
    let eg = weft::analyses::execgraph::build(&weft::samples::execgraph::sample("fib").unwrap()).unwrap();
    let p = weft::views::execgraph::ExecgraphPane::new(
        ExecBundle::new(eg, weft::layouts::execgraph::Scale::True),
        1200.0,
        900.0,
    );
    let s = p.scene();
    let leg = p.legend().unwrap();
    let shapes: Vec<u32> = s.rects.iter().map(|r| r.shape).collect();
    let crit = leg.sections[0].entries.iter().find(|e| e.label.contains("critical")).unwrap();
    if let Mark::Shape { border, .. } = &crit.mark {
        // The critical path's colour is drawn (node borders where shapes show, its edges in any case).
        let drawn = s.rects.iter().any(|r| hex(r.border) == *border) || s.lines.iter().any(|x| hex(x.color) == *border);
        assert!(drawn, "critical path drawn in the legend's colour");
    }
    let named: Vec<u32> = leg.sections[0]
        .entries
        .iter()
        .filter_map(|e| match &e.mark {
            Mark::Shape { shape, .. } => ["rect", "rounded", "ellipse", "diamond", "triangle_down", "triangle_up"]
                .iter()
                .position(|x| x == shape),
            _ => None,
        })
        .map(|i| i as u32)
        .collect();
    for sh in shapes.iter().filter(|&&sh| sh != 0) {
        assert!(named.contains(sh), "shape {sh} drawn by the execution graph is in its legend");
    }
}

#[test]
fn rendered_picture_carries_the_legend_beside_the_view() {
    let a = analysed(8);
    let l = layout(&a.graph, &LayoutParams::default());
    let pane = GrainsPane::new(a, l, 800.0, 500.0);
    let scene = pane.scene();
    let leg = pane.legend().unwrap();
    let both = legend::beside(scene.clone(), &leg);
    assert_eq!(both.width, scene.width + legend::WIDTH_PX);
    let svg = weft::scene::svg::to_svg(&both);
    assert!(svg.contains("Fragments by function") && svg.contains("critical path") && svg.contains("fork"));
    // Nothing of the view moved: its instances come first, unchanged.
    assert_eq!(&both.rects[..scene.rects.len()], &scene.rects[..]);
}

#[test]
fn each_view_lists_its_own_keys() {
    let a = analysed(8);
    let l = layout(&a.graph, &LayoutParams::default());
    let pane = GrainsPane::new(a, l, 800.0, 500.0);
    let k = pane.keys();
    assert!(k.iter().any(|(_, what)| what.contains("grain panel")), "{k:?}");
    assert!(!k.iter().any(|(_, what)| what.contains("time range")), "no timeline keys in the grain view");
    assert_ne!(keys::for_kind("aggregate"), keys::for_kind("grains"));
    assert!(keys::for_kind("timeline").iter().any(|(_, w)| w.contains("time range")));
    let j = keys::to_json("grains");
    let rows = j.as_array().unwrap();
    assert_eq!(rows.len(), k.len() + keys::COMMON.len());
    assert_eq!(rows.last().unwrap()["keys"], "?");
}
