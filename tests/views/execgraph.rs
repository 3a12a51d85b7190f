//! The execution-graph view: zoom keeps the column under the pointer, pan and scroll move columns and time,
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
