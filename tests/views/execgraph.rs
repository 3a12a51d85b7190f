//! The execution-graph view: zoom keeps the column and the time under the pointer, pan and scroll move columns and time,
//! fit undoes them; hovering a thread's drawn column names that thread; a restored view is the same view.

use super::{f, round_trips};
use weft::analyses::execgraph::build;
use weft::layouts::execgraph::bundle::ExecBundle;
use weft::layouts::execgraph::Scale;
use weft::samples::execgraph::sample;
use weft::views::execgraph::ExecgraphPane;
use weft::views::Pane;

fn bundle(name: &str) -> ExecBundle {
    ExecBundle::new(build(&sample(name).unwrap()).unwrap(), Scale::True)
}

#[test]
fn zoom_pan_scroll_and_fit() {
    let mut p = ExecgraphPane::new(bundle("fib"), 800.0, 600.0);
    let s0 = p.state();
    assert_eq!(f(&s0, "top_ns"), 0.0);
    let col_at = |s: &serde_json::Value, x: f64| (x - f(s, "axis_px") - f(s, "scroll_x_px")) / f(s, "column_px");
    let x = 300.0;
    p.zoom(x as f32, 2.0);
    let s1 = p.state();
    assert!((f(&s1, "column_px") - 2.0 * f(&s0, "column_px")).abs() < 1e-3);
    assert!((f(&s1, "ns_per_px") - f(&s0, "ns_per_px") / 2.0).abs() < 1e-9 * f(&s0, "ns_per_px"));
    assert!((col_at(&s1, x) - col_at(&s0, x)).abs() < 1e-3, "the column under the pointer stays");
    p.pan(30.0);
    assert!((f(&p.state(), "scroll_x_px") - (f(&s1, "scroll_x_px") - 30.0)).abs() < 1e-3);
    p.scroll(100.0);
    let s2 = p.state();
    assert!(
        (f(&s2, "top_ns") - (f(&s1, "top_ns") + 100.0 * f(&s1, "ns_per_px"))).abs()
            < 1e-6 * f(&s1, "top_ns").abs().max(1.0)
    );
    p.fit();
    assert_eq!(p.state(), s0);
}

#[test]
fn wheel_zoom_keeps_the_time_and_column_under_the_pointer_in_and_out() {
    let mut p = ExecgraphPane::new(bundle("fib"), 800.0, 600.0);
    let s0 = p.state();
    let col_at = |s: &serde_json::Value, x: f64| (x - f(s, "axis_px") - f(s, "scroll_x_px")) / f(s, "column_px");
    let ns_at = |s: &serde_json::Value, y: f64| f(s, "top_ns") + (y - f(s, "header_px")) * f(s, "ns_per_px");
    let (x, y) = (420.0, 150.0);
    for factor in [2.0, 0.5, 1.25, 0.8] {
        let before = p.state();
        p.zoom_xy(x as f32, Some(y as f32), factor);
        let after = p.state();
        assert!((col_at(&after, x) - col_at(&before, x)).abs() < 1e-3, "x: column stays at zoom {factor}");
        let tol = 1e-6 * ns_at(&before, y).abs().max(1.0);
        assert!((ns_at(&after, y) - ns_at(&before, y)).abs() < tol, "y: time stays at zoom {factor}");
    }
    // In, then out by as much: the view it started from.
    for (a, b) in [("top_ns", 1e-3), ("ns_per_px", 1e-9), ("scroll_x_px", 1e-3), ("column_px", 1e-4)] {
        assert!((f(&p.state(), a) - f(&s0, a)).abs() <= b * f(&s0, a).abs().max(1.0), "{a} back after in and out");
    }
    // A pointer over the header zooms time about the plot's middle.
    p.fit();
    let mid = f(&s0, "header_px") + (600.0 - f(&s0, "header_px")) / 2.0;
    let before = ns_at(&p.state(), mid);
    p.zoom_xy(x as f32, Some(2.0), 3.0);
    assert!((ns_at(&p.state(), mid) - before).abs() < 1e-6 * before.abs().max(1.0));
}

#[test]
fn hover_at_a_threads_column_names_it() {
    let b = bundle("mergesort");
    let (layout, threads) = (b.layout.clone(), b.graph.threads.len());
    let mut p = ExecgraphPane::new(b, 900.0, 700.0);
    let s = p.state();
    let (axis, scroll, col_px) = (f(&s, "axis_px"), f(&s, "scroll_x_px"), f(&s, "column_px"));
    let (header, top, per_px) = (f(&s, "header_px"), f(&s, "top_ns"), f(&s, "ns_per_px"));
    let y_of = |ns: u64| (header + (ns as f64 - top) / per_px) as f32;
    let highlights = |p: &ExecgraphPane| p.scene().rects.len();
    let plain = highlights(&p);
    for t in 0..threads {
        let x = (axis + scroll + (layout.column[t] as f64 + 0.5) * col_px) as f32;
        let y = (y_of(layout.top_ns[t]) + y_of(layout.bottom_ns[t])) / 2.0;
        let scene = p.scene();
        assert!(
            scene.lines.iter().any(|l| (l.x0 - x).abs() < 1.0
                && (l.x1 - x).abs() < 1.0
                && l.y0.min(l.y1) <= y + 4.0
                && l.y0.max(l.y1) >= y - 4.0),
            "thread {t}'s column is drawn at x {x} about y {y}"
        );
        let h = p.hover(x, y).unwrap_or_else(|| panic!("thread {t} hovers"));
        assert_eq!(h.detail["thread"], t, "hover in thread {t}'s column");
        assert_eq!(highlights(&p), plain + 1, "the hovered column is shaded");
    }
    p.clear_hover();
    assert_eq!(highlights(&p), plain);
    assert!(p.hover(2.0, 300.0).is_none(), "the time axis is no thread");
}

#[test]
fn restore_of_the_state_round_trips() {
    let mut p = ExecgraphPane::new(bundle("rsa"), 800.0, 600.0);
    p.zoom(400.0, 3.0);
    p.pan(-25.0);
    p.scroll(40.0);
    round_trips(&p, &mut ExecgraphPane::new(bundle("rsa"), 800.0, 600.0));
}

#[test]
fn with_a_minimum_edge_the_axis_gives_true_times_and_says_it_is_not_to_scale() {
    let g = build(&sample("fib").unwrap()).unwrap();
    let labels = |scale: Scale| {
        let b = ExecBundle::new(g.clone(), scale);
        let p = ExecgraphPane::new(b, 800.0, 600.0);
        let s = p.scene();
        let axis_px = f(&p.state(), "axis_px") as f32;
        s.labels.iter().filter(|l| l.x <= axis_px).map(|l| l.text.clone()).collect::<Vec<_>>()
    };
    let truth = labels(Scale::True);
    assert!(truth.iter().all(|t| !t.starts_with('≤')) && !truth.iter().any(|t| t == "not to scale"));
    let min_ns = g.nodes.iter().map(|n| n.time_ns).max().unwrap() / 10;
    let stretched = labels(Scale::MinEdge { min_ns });
    assert!(stretched.iter().any(|t| t == "not to scale"), "{stretched:?}");
    let times: Vec<&String> = stretched.iter().filter(|t| t.starts_with('≤')).collect();
    assert!(times.len() >= 2, "lines labelled with true times: {stretched:?}");
    // Every line names a true time: the time of an event of the run, never a drawing coordinate.
    let event_times: std::collections::HashSet<String> =
        g.nodes.iter().map(|n| format!("≤ {}", weft::scene::execgraph::format_ns(n.time_ns as f64))).collect();
    assert!(times.iter().all(|t| event_times.contains(*t)), "{times:?}");
}
