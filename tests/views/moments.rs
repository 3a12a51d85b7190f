//! The utilization & moments view: zoom keeps the time under the pointer, row zoom and scroll move rows,
//! fit undoes both; hovering a row's bars names that row's location with its moments; the busy definition
//! recomputes the moments; a restored view is the same view. The moments follow the visible window (equal to
//! `weft moments --window`), the whole trace's are one option away; the moment-pane fixes of issue 18.

use super::{f, rects_at, round_trips};
use crate::common::read::{read_bytes, read_path};
use std::rc::Rc;
use weft::analyses::busy::BusyDefinition;
use weft::analyses::moments::{moments, LocationMoments, TimeWindow};
use weft::model::Trace;
use weft::samples::builtin_chrome_json;
use weft::samples::utilization::utilization_trace;
use weft::scene::axis::label_width_px;
use weft::scene::moments::{
    build_moment_view, elide_middle, MomentViewOptions, Viewport, BAR, CLIPPED, DEVIATION, SKEW, SPAN, TICK,
};
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

/// The rows' moments by location, as `weft moments FILE --window S:E --json` computes them.
fn cli_moments(t: &Trace, window: Option<TimeWindow>) -> Vec<LocationMoments> {
    moments(t, &BusyDefinition::Compute, window)
}

fn rows_by_location(p: &MomentsPane) -> Vec<(u64, f64, f64, f64, f64)> {
    let mut rows: Vec<_> = p.state()["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["location"].as_u64().unwrap(), f(r, "m0_ns"), f(r, "m1_ns"), f(r, "m2_ns"), f(r, "m3_ns")))
        .collect();
    rows.sort_by_key(|r| r.0);
    rows
}

fn same_moments(p: &MomentsPane, want: &[LocationMoments], what: &str) {
    let got = rows_by_location(p);
    assert_eq!(got.len(), want.len(), "{what}");
    for (g, w) in got.iter().zip(want) {
        assert_eq!(g.0, w.location as u64, "{what}");
        assert_eq!(g.1, w.m0_ns as f64, "{what}: m0 of location {}", w.location);
        for (a, b, k) in [(g.2, w.m1_ns, "m1"), (g.3, w.m2_ns, "m2"), (g.4, w.m3_ns, "m3")] {
            assert!((a - b).abs() <= 1e-9 * b.abs().max(1.0), "{what}: {k} of location {}: {a} vs {b}", w.location);
        }
    }
}

fn window_of(p: &MomentsPane) -> TimeWindow {
    let w = &p.state()["window"];
    TimeWindow { start_ns: w["start_ns"].as_u64().unwrap(), end_ns: w["end_ns"].as_u64().unwrap() }
}

#[test]
fn the_moments_follow_the_visible_window_and_the_whole_trace_is_one_option_away() {
    let t = trace();
    let mut p = MomentsPane::new(t.clone(), 1200.0, 600.0);
    let whole = cli_moments(&t, None);
    assert_eq!(p.state()["span"], "window");
    assert_eq!(window_of(&p), TimeWindow::whole(&t), "fitted, the window is the whole trace");
    same_moments(&p, &whole, "fitted");

    let span = t.span_ns as f64;
    p.set_time_range(span * 0.25 + 0.4, span * 0.5);
    let w = window_of(&p);
    assert_eq!((w.start_ns, w.end_ns), ((span * 0.25 + 0.4).round() as u64, (span * 0.5).round() as u64));
    same_moments(&p, &cli_moments(&t, Some(w)), "set to a quarter");
    assert!(rows_by_location(&p).iter().zip(&whole).any(|(a, b)| a.1 != b.m0_ns as f64), "the window's differ");

    // Each zoom and pan step recomputes them; past the trace's end the window stops at it.
    let plot = p.state()["plot"].clone();
    p.zoom(((f(&plot, "x0") + f(&plot, "x1")) / 2.0) as f32, 3.0);
    same_moments(&p, &cli_moments(&t, Some(window_of(&p))), "zoomed");
    p.pan(10_000.0);
    let w = window_of(&p);
    assert_eq!(w.end_ns, t.span_ns, "the window ends at the trace's end");
    same_moments(&p, &cli_moments(&t, Some(w)), "panned");
    // A window with no busy time says so, and that the whole trace has some.
    let mut q = MomentsPane::new(t.clone(), 1200.0, 600.0);
    let gap = (0..t.span_ns)
        .step_by(997)
        .find(|&s| cli_moments(&t, Some(TimeWindow { start_ns: s, end_ns: s + 50 })).iter().all(|m| m.m0_ns == 0));
    let s = gap.expect("a moment when no location computes");
    q.set_time_range(s as f64, s as f64 + 50.0);
    assert_eq!(q.state()["no_busy"], false, "the whole trace has busy time: no offer to change the definition");
    let notice = q.scene().notice.unwrap_or_default();
    assert!(notice.contains("None in this time window"), "{notice}");
    let hover = p.hover(700.0, (f(&plot, "y0") + 2.0) as f32).expect("a row");
    assert!(hover.lines.iter().all(|l| l.chars().count() <= 60), "short tooltip lines: {:?}", hover.lines);

    // The whole trace's moments: one option away, and they stay while zooming.
    p.configure("span", "whole").unwrap();
    assert_eq!(p.state()["span"], "whole");
    same_moments(&p, &whole, "whole");
    p.zoom(600.0, 2.0);
    same_moments(&p, &whole, "whole, zoomed");
    p.configure("span", "window").unwrap();
    same_moments(&p, &cli_moments(&t, Some(window_of(&p))), "back to the window");
    p.fit();
    same_moments(&p, &whole, "fitted again");
    assert!(p.configure("span", "half").is_err());
}

#[test]
fn the_moment_view_can_take_its_own_time_axis() {
    let t = trace();
    let mut p = MomentsPane::new(t.clone(), 1200.0, 600.0);
    assert!(p.state()["moment_axis"].is_null());
    p.configure("axis", "own").unwrap();
    let s = p.state();
    let (a, b) = (f(&s["moment_axis"], "t0_ns"), f(&s["moment_axis"], "t1_ns"));
    // Every glyph lies within the own axis, and no edge is marked as cutting one.
    for r in s["rows"].as_array().unwrap().iter().filter(|r| f(r, "m0_ns") > 0.0) {
        let (m0, m1, m2, m3) = (f(r, "m0_ns"), f(r, "m1_ns"), f(r, "m2_ns"), f(r, "m3_ns"));
        assert!(a <= m1 - m2.max(m0 / 2.0) && m1 + m2.max(m0 / 2.0) <= b, "{r}");
        assert!(a <= m1 + m3 && m1 + m3 <= b, "{r}");
    }
    // Row 0's tick at m1 is where the own axis puts it, not where the Gantt chart's would.
    let (plot, half) = (&s["plot"], f(&s, "moment_view_x") as f32);
    let (x0, x1, y0, rh) = (f(plot, "x0"), f(plot, "x1"), f(plot, "y0") as f32, f(&s, "row_height_px") as f32);
    let m1 = f(&s["rows"][0], "m1_ns");
    let want = half + (x0 + (m1 - a) / (b - a) * (x1 - x0)) as f32;
    let ticks: Vec<f32> = p
        .scene()
        .lines
        .iter()
        .filter(|l| l.color == TICK && l.x0 > half && l.y0 >= y0 && l.y1 <= y0 + rh)
        .map(|l| l.x0)
        .collect();
    assert!(ticks.iter().any(|x| (x - want).abs() < 1.5), "tick at {want}: {ticks:?}");
    let scene = p.scene();
    let bottom = f(&s["plot"], "y1") as f32;
    assert!(!scene.lines.iter().any(|l| l.color == CLIPPED && l.y0 < bottom), "nothing cut on the own axis");
}

#[test]
fn glyphs_cut_by_the_axis_are_marked_at_the_edge_they_pass() {
    let rows = vec![
        LocationMoments { location: 0, name: "P / a".into(), m0_ns: 100, m1_ns: 500.0, m2_ns: 60.0, m3_ns: 0.0 },
        LocationMoments { location: 1, name: "P / b".into(), m0_ns: 100, m1_ns: 980.0, m2_ns: 80.0, m3_ns: 0.0 },
        LocationMoments { location: 2, name: "P / c".into(), m0_ns: 100, m1_ns: 60.0, m2_ns: 50.0, m3_ns: -90.0 },
        LocationMoments { location: 3, name: "P / d".into(), m0_ns: 100, m1_ns: 5000.0, m2_ns: 50.0, m3_ns: 0.0 },
    ];
    let view =
        Viewport { t0_ns: 0.0, t1_ns: 1000.0, first_row: 0.0, row_height_px: 30.0, width_px: 700.0, height_px: 300.0 };
    let scene = build_moment_view(&rows, &view, &MomentViewOptions::default());
    let (x0, y0, x1, _) = view.plot_rect();
    let marks = |r: usize| -> Vec<f32> {
        let (top, bottom) = (y0 + r as f32 * 30.0, y0 + (r + 1) as f32 * 30.0);
        let mut xs: Vec<f32> = scene
            .lines
            .iter()
            .filter(|l| l.color == CLIPPED && l.y0 >= top && l.y1 <= bottom)
            .map(|l| if (l.x0 - x0).abs() < 0.5 || (l.x1 - x0).abs() < 0.5 { x0 } else { x1 })
            .collect();
        xs.dedup();
        xs
    };
    assert_eq!(marks(0), Vec::<f32>::new(), "a glyph inside the axis");
    assert_eq!(marks(1), vec![x1], "past the right edge");
    assert_eq!(marks(2), vec![x0], "its skew past the left edge");
    assert_eq!(marks(3), vec![x1], "wholly off to the right");
    assert!(scene.labels.iter().any(|l| l.text == "cut by the axis"), "the legend explains the mark");
}

#[test]
fn the_legend_explains_every_mark_in_full_even_in_half_a_narrow_window() {
    for width in [700.0, 1000.0, 1600.0] {
        let mut p = MomentsPane::new(trace(), width, 600.0);
        p.configure("color", "spread").unwrap();
        let scene = p.scene();
        for text in [
            "m0 busy time",
            "m1 mean",
            "m1 \u{b1} m2 deviation",
            "m3 skew (+: late tail)",
            "m1 + m3 (thin rows)",
            "cut by the axis",
        ] {
            let l = scene
                .labels
                .iter()
                .find(|l| l.text == text)
                .unwrap_or_else(|| panic!("{width}: '{text}' in the legend"));
            let w = label_width_px(text, l.size_px);
            assert!(l.max_width == 0.0 || w <= l.max_width + 0.01, "{width}: '{text}' is not cut");
            assert!(l.x + w <= width + 0.5, "{width}: '{text}' inside the view");
        }
        assert!(scene.labels.iter().any(|l| l.text.starts_with("spread 2·m2/m0: ") && l.text.contains('\u{2192}')));
    }
}

#[test]
fn colouring_by_a_quantity_changes_the_bars_and_shows_its_scale() {
    let t = Rc::new(read_bytes("sample.json", &builtin_chrome_json()).unwrap());
    assert!(!t.messages.is_empty(), "the sample sends messages");
    let mut p = MomentsPane::new(t.clone(), 1200.0, 600.0);
    p.configure("busy", "any").unwrap();
    let half = f(&p.state(), "moment_view_x") as f32;
    let bar_fills = |p: &MomentsPane| -> Vec<u32> {
        let (y0, y1) = (f(&p.state()["plot"], "y0") as f32, f(&p.state()["plot"], "y1") as f32);
        p.scene()
            .rects
            .iter()
            .filter(|r| r.x >= half && r.y >= y0 && r.y + r.h <= y1 && r.h > 4.0)
            .filter(|r| ![DEVIATION, TICK, SPAN, SKEW, CLIPPED, weft::scene::palette::GRID].contains(&r.fill))
            .map(|r| r.fill)
            .collect()
    };
    assert!(bar_fills(&p).iter().all(|&c| c == BAR), "grey bars: {:08x?}", bar_fills(&p));
    for (key, name) in [("messages_sent", "messages sent"), ("bytes_sent", "bytes sent"), ("spread", "spread 2·m2/m0")]
    {
        p.configure("color", key).unwrap();
        let s = p.state();
        assert_eq!(s["color"], name);
        let values: Vec<f64> = s["color_values"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
        let fills = bar_fills(&p);
        assert!(!fills.contains(&BAR), "{key}: no grey bar left");
        let (lo, hi) = values.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| (a.min(v), b.max(v)));
        if hi > lo {
            let mut distinct = fills.clone();
            distinct.sort();
            distinct.dedup();
            assert!(distinct.len() > 1, "{key}: different values, different colours");
        }
        let scale = p.scene().labels.iter().find(|l| l.text.starts_with(&format!("{name}: "))).map(|l| l.text.clone());
        assert!(scale.is_some_and(|s| s.contains('\u{2192}')), "{key}: the legend shows the scale");
    }
    // Zoomed, messages count only those sent in the window.
    p.configure("color", "messages_sent").unwrap();
    let all: f64 = p.state()["color_values"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).sum();
    assert_eq!(all as usize, t.messages.len());
    p.set_time_range(0.0, t.span_ns as f64 / 3.0);
    let w = window_of(&p);
    let in_window = t.messages.send_ns.iter().filter(|&&s| s >= w.start_ns && s < w.end_ns).count();
    let some: f64 = p.state()["color_values"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).sum();
    assert_eq!(some as usize, in_window);
}

#[test]
fn truncated_row_names_keep_the_end_that_tells_them_apart() {
    let long = "a process with a rather long name / thread 12";
    let cut = elide_middle(long, 100.0, 11.0);
    assert!(cut.ends_with("ad 12") && cut.starts_with("a p") && cut.contains('\u{2026}'), "{cut}");
    assert!(label_width_px(&cut, 11.0) <= 100.0);
    // Same thread names: the rank number in the process's name stays.
    let cut = elide_middle("MPI Rank 17 / Master thread", 124.0, 12.0);
    assert!(cut.contains("Rank 17 / M"), "{cut}");
    assert!(label_width_px(&cut, 12.0) <= 124.0);
    let cut = elide_middle("rank 0000000000000000000000000000000042", 80.0, 11.0);
    assert!(cut.ends_with("42"), "{cut}");
    assert_eq!(elide_middle("P / T1", 100.0, 11.0), "P / T1");
}

#[test]
fn rows_by_location_follow_the_timelines_order() {
    let Some(dir) = crate::common::shared_traces("rows_by_location_follow_the_timelines_order") else { return };
    let t = Rc::new(read_path(&dir.join("paraver/paraver-kernel-qsort_beo3/qsort_beo3.prv")).unwrap());
    let p = MomentsPane::new(t.clone(), 1200.0, 600.0);
    let rows: Vec<u64> =
        p.state()["rows"].as_array().unwrap().iter().map(|r| r["location"].as_u64().unwrap()).collect();
    let order: Vec<u64> = t.locations_in_display_order().iter().map(|l| l.0 as u64).collect();
    assert_eq!(rows, order);
}

#[test]
fn hovering_a_one_pixel_row_names_it() {
    let t = Rc::new(utilization_trace(900, 900 * 61));
    let mut p = MomentsPane::new(t, 1200.0, 600.0);
    let s = p.state();
    assert!(f(&s, "row_height_px") < 1.0, "rows thinner than a pixel");
    let y = (f(&s["plot"], "y0") + 200.0) as f32;
    assert!(!p.scene().labels.iter().any(|l| l.text.contains(" / ")), "no row names unhovered");
    let h = p.hover(300.0, y).expect("a row under the pointer");
    let scene = p.scene();
    let named: Vec<_> = scene.labels.iter().filter(|l| l.text == h.title).collect();
    assert_eq!(named.len(), 2, "both halves name the hovered row '{}'", h.title);
    assert!(named.iter().all(|l| (l.y - y).abs() < 10.0), "beside the row");
    p.clear_hover();
    assert!(!p.scene().labels.iter().any(|l| l.text == h.title));
}
