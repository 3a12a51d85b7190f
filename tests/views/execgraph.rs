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

/// The "min" entry's default length (what picking "short edges raised to" types in).
fn default_min_edge() -> String {
    use weft::views::options::{ExecgraphOptions, Kind, ViewOptions};
    let spec = ExecgraphOptions::schema().iter().find(|s| s.key == "min_edge").unwrap();
    let Kind::Choice { other: Some(other), .. } = &spec.kind else { panic!("min_edge offers a length") };
    format!("{}{}", other.default, other.suffix)
}

fn min_edge_scale(g: &weft::analyses::execgraph::ExecGraph, value: &str) -> Scale {
    use weft::views::options::{ExecgraphOptions, ViewOptions};
    let mut o = ExecgraphOptions::default();
    o.parse("min_edge", value).unwrap();
    o.min_edge.scale(g)
}

#[test]
fn the_default_minimum_edge_clears_the_node_shapes() {
    let value = default_min_edge();
    for name in ["fib", "rsa", "mergesort"] {
        let g = build(&sample(name).unwrap()).unwrap();
        let scale = min_edge_scale(&g, &value);
        assert!(matches!(scale, Scale::MinEdge { .. }));
        let b = ExecBundle::new(g.clone(), scale);
        let l = b.layout.clone();
        // Wide enough that columns show the node shapes.
        let p = ExecgraphPane::new(b, 200.0 + 20.0 * l.columns as f32, 600.0);
        let s = p.state();
        let node = weft::scene::execgraph::node_px(f(&s, "column_px") as f32) as f64;
        assert!(node >= weft::scene::execgraph::MIN_NODE_PX as f64, "{name}: shapes are drawn at fit");
        let px_per_ns = 1.0 / f(&s, "ns_per_px");
        let mut pairs = 0;
        for t in &g.threads {
            for v in t.nodes().skip(1) {
                let gap = (l.y_ns[v] - l.y_ns[v - 1]) as f64 * px_per_ns;
                assert!(gap >= node + 1.0, "{name}: nodes {} and {v} {gap:.1} px apart, shapes {node:.1} px", v - 1);
                pairs += 1;
            }
        }
        assert!(pairs > 5, "{name}");
        // Columns are wider than the shapes: shapes of neighbouring columns do not touch either.
        assert!(f(&s, "column_px") > node);
    }
}

#[test]
fn the_critical_path_drawn_is_the_same_in_both_modes() {
    use weft::scene::execgraph::{scene, ExecView};
    use weft::scene::palette::CRITICAL;
    for name in ["fib", "rsa", "mergesort"] {
        let g = build(&sample(name).unwrap()).unwrap();
        // Per drawn node shape, in each thread's column: the node it is (shapes come in node order, one per
        // node unless it would repaint the last one) and whether it is drawn as critical.
        let drawn = |scale: Scale| -> Vec<(usize, bool)> {
            let l = ExecBundle::new(g.clone(), scale).layout;
            let mut view = ExecView::fit(&g, &l, 200.0 + 20.0 * l.columns as f32, 900.0);
            view.ns_per_px = l.height_ns as f64 / 850.0;
            let sc = scene(&g, &l, &view);
            let mut out = Vec::new();
            for (t, th) in g.threads.iter().enumerate() {
                let x = view.x_of_column(l.column[t]);
                let mut nodes = th.nodes();
                for r in sc.rects.iter().filter(|r| r.border_px > 0.0 && (r.x + r.w / 2.0 - x).abs() < 0.01) {
                    let cy = r.y + r.h / 2.0;
                    let n = nodes.find(|&n| (view.y_of(l.y_ns[n]) - cy).abs() < 0.01).expect("a shape is a node");
                    out.push((n, r.border == CRITICAL));
                }
            }
            out.sort_unstable();
            out
        };
        let truth = drawn(Scale::True);
        let stretched = drawn(min_edge_scale(&g, &default_min_edge()));
        // Stretched, every node is drawn; each is critical exactly when the run's critical path has it.
        assert_eq!(stretched.len(), g.nodes.len(), "{name}: every node drawn with a minimum edge");
        for &(n, crit) in &stretched {
            assert_eq!(crit, g.critical[n], "{name}: node {n} (minimum edge)");
        }
        // At true scale, nodes drawn are marked as in the stretched drawing, node by node.
        let by_node: std::collections::HashMap<usize, bool> = stretched.iter().copied().collect();
        for &(n, crit) in &truth {
            assert_eq!(crit, by_node[&n], "{name}: node {n} the same in both modes");
        }
        assert!(truth.iter().filter(|x| x.1).count() >= 3, "{name}: the critical path is drawn");
    }
}

#[test]
fn threads_are_grouped_by_rank() {
    // Two ranks; rank 1's threads start first, so ordering by time alone would interleave them.
    let text = "# weft execgraph 1 unit=ns\n\
        0 1 10 start\n5 1 10 fork 11\n6 1 11 start\n50 1 11 end\n60 1 10 join 11\n70 1 10 end\n\
        2 0 20 start\n8 0 20 fork 21\n9 0 21 start\n40 0 21 end\n45 0 20 join 21\n80 0 20 end\n\
        3 1 30 start\n90 1 30 end\n";
    let events = weft::readers::execgraph_text::parse("ranks.txt", text.as_bytes()).unwrap();
    let g = build(&events).unwrap();
    let b = ExecBundle::new(g.clone(), Scale::True);
    let l = b.layout.clone();
    let hosts: Vec<u32> = (0..l.columns).map(|c| g.threads[l.thread_at[c as usize] as usize].host).collect();
    assert_eq!(hosts, vec![0, 0, 1, 1, 1], "columns ordered by rank, each rank one block");
    let p = ExecgraphPane::new(b, 900.0, 500.0);
    let s = p.scene();
    for r in ["rank 0", "rank 1"] {
        assert!(s.labels.iter().any(|lab| lab.text == r), "{r} named in the header");
    }
    let col = f(&p.state(), "column_px") as f32;
    let sep = f(&p.state(), "axis_px") as f32 + 2.0 * col;
    assert!(s.lines.iter().any(|li| (li.x0 - sep).abs() < 0.01 && li.x0 == li.x1 && li.y0 == 0.0), "a separator");
    // One rank: no rank names.
    let one_rank: Vec<String> =
        text.lines().map(|l| if l.starts_with('#') { l.to_string() } else { l.replacen(" 1 ", " 0 ", 1) }).collect();
    let one_rank = one_rank.join("\n");
    let g1 = build(&weft::readers::execgraph_text::parse("one.txt", one_rank.as_bytes()).unwrap()).unwrap();
    let one = ExecgraphPane::new(ExecBundle::new(g1, Scale::True), 900.0, 500.0).scene();
    assert!(!one.labels.iter().any(|lab| lab.text.starts_with("rank ")));
}
