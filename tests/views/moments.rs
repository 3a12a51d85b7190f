//! The utilization & moments view: zoom keeps the time under the pointer, row zoom and scroll move rows,
//! fit undoes both; hovering a row's bars names that row's location with its moments; the busy definition
//! recomputes the moments; a restored view is the same view.

use super::{f, rects_at, round_trips};
use std::rc::Rc;
use weft::model::Trace;
use weft::samples::utilization::utilization_trace;
use weft::views::moments::MomentsPane;
use weft::views::Pane;

fn trace() -> Rc<Trace> {
    Rc::new(utilization_trace(24, 24 * 61))
}

#[test]
fn zoom_rows_scroll_and_fit() {
    let mut p = MomentsPane::new(trace(), 1200.0, 600.0);
    let s0 = p.state();
    let plot = &s0["plot"];
    let (x0, x1) = (f(plot, "x0"), f(plot, "x1"));
    let t_at = |s: &serde_json::Value, x: f64| f(s, "t0_ns") + (x - x0) / (x1 - x0) * (f(s, "t1_ns") - f(s, "t0_ns"));
    let x = x0 + (x1 - x0) * 0.3;
    p.zoom(x as f32, 2.0);
    let s1 = p.state();
    let w0 = f(&s0, "t1_ns") - f(&s0, "t0_ns");
    assert!(((f(&s1, "t1_ns") - f(&s1, "t0_ns")) - w0 / 2.0).abs() < 1e-6 * w0);
    assert!((t_at(&s1, x) - t_at(&s0, x)).abs() < 1e-6 * w0, "the time under the pointer stays");

    let h0 = f(&s0, "row_height_px");
    p.zoom_rows(f(plot, "y0") as f32, 3.0);
    assert!((f(&p.state(), "row_height_px") - 3.0 * h0).abs() < 1e-3, "row zoom about the top row");
    p.scroll(2.0 * 3.0 * h0 as f32);
    assert!((f(&p.state(), "first_row") - 2.0).abs() < 1e-3, "scroll by two rows' height");
    p.scroll(-1e6);
    assert_eq!(f(&p.state(), "first_row"), 0.0);

    p.fit();
    let s2 = p.state();
    for k in ["t0_ns", "t1_ns", "first_row", "row_height_px"] {
        assert_eq!(s2[k], s0[k], "fit restores {k}");
    }
}

#[test]
fn hover_at_a_rows_bars_names_its_location() {
    let mut p = MomentsPane::new(trace(), 1200.0, 600.0);
    let s = p.state();
    let (plot, rh) = (&s["plot"], f(&s, "row_height_px"));
    let half = f(&s, "moment_view_x");
    let rows = s["rows"].as_array().unwrap().clone();
    assert_eq!(rows.len(), 24);
    let scene = p.scene();
    for (k, row) in rows.iter().enumerate() {
        let y = (f(plot, "y0") + (k as f64 + 0.5) * rh) as f32;
        // The Gantt chart (left) draws busy bars in the row, the moment view (right) its moments.
        let left = (f(plot, "x0") as f32..f(plot, "x1") as f32, "Gantt chart");
        let right = ((half + f(plot, "x0")) as f32..(half + f(plot, "x1")) as f32, "moment view");
        for (xs, which) in [left, right] {
            let hit = scene.rects.iter().find(|r| {
                r.y <= y && r.y + r.h >= y && r.x < xs.end && r.x + r.w > xs.start && r.w < xs.end - xs.start - 1.0
            });
            let r = hit.unwrap_or_else(|| panic!("row {k} has a mark in the {which} at y {y}"));
            let x = (r.x.max(xs.start) + (r.x + r.w).min(xs.end)) / 2.0;
            assert!(!rects_at(&scene, x, y).is_empty());
            let h = p.hover(x, y).unwrap_or_else(|| panic!("row {k} hovers"));
            assert_eq!(h.detail["location"], row["location"], "row {k} in the {which}");
            assert_eq!(h.title, row["name"].as_str().unwrap());
            assert_eq!(h.detail["m0_ns"], row["m0_ns"]);
        }
    }
    assert!(p.hover(600.0, 2.0).is_none(), "the axis band is no row");
}

#[test]
fn the_busy_definition_recomputes_the_moments_and_restore_round_trips() {
    let trace = trace();
    let mut p = MomentsPane::new(trace.clone(), 1200.0, 600.0);
    let m0 = |p: &MomentsPane| p.state()["rows"].as_array().unwrap().iter().map(|r| f(r, "m0_ns")).sum::<f64>();
    let compute = m0(&p);
    p.configure("busy", "any").unwrap();
    assert_eq!(p.state()["busy"], "any");
    assert!(m0(&p) > compute, "any region is busy for longer than compute regions alone");
    assert!(p.configure("busy", "sometimes").is_err());
    p.zoom(700.0, 3.0);
    p.zoom_rows(200.0, 2.0);
    p.scroll(40.0);
    let mut q = MomentsPane::new(trace.clone(), 1200.0, 600.0);
    q.configure("busy", "any").unwrap();
    round_trips(&p, &mut q);
}
