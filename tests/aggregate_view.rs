//! Navigation and layout of aggregated grain graphs: incremental relayout after opening and closing equals
//! laying out from scratch; members lie inside their opened group and never overlap; drilling opens what it
//! says; the filtered view shows only problematic members with merged fast-forward edges; the scene colours
//! borders by problem; the CLI's JSON keys are exactly the issue's.

use crate::common;
use crate::common::TempDir;
use common::read::read_grains;
use std::collections::BTreeSet;
use weft::analyses::aggregate::critical::local_critical_path;
use weft::analyses::aggregate::propagate::severity;
use weft::analyses::aggregate::{Aggregation, Method};
use weft::analyses::grains::{GrainAnalysis, Thresholds, METRICS};
use weft::layouts::aggregate::{AggregateParams, AggregateView, Slot};
use weft::samples::grains::{fib_profile, random_profile};
use weft::samples::rng::XorShift;
use weft::scene::aggregate::{build, Overlay, LOCAL_CRITICAL, PROBLEM_BORDER, QUIET_BORDER};

fn analyse(bytes: &[u8]) -> GrainAnalysis {
    GrainAnalysis::new(&read_grains("x.csv", bytes).unwrap(), Thresholds::paper()).unwrap()
}

fn same_layout(a: &AggregateView, b: &AggregateView, t: &weft::analyses::aggregate::AggregationTree) {
    let (va, vb) = (a.visible(t), b.visible(t));
    assert_eq!(va, vb, "visible nodes");
    let (xa, ya) = a.positions(t);
    let (xb, yb) = b.positions(t);
    for &u in &va {
        let u = u as usize;
        assert_eq!((xa[u], ya[u], a.w[u], a.h[u]), (xb[u], yb[u], b.w[u], b.h[u]), "node {u}");
    }
}

fn check_nesting(v: &AggregateView, t: &weft::analyses::aggregate::AggregationTree) {
    let (x, y) = v.positions(t);
    for u in v.visible(t) {
        if !v.is_open(u) {
            continue;
        }
        let ui = u as usize;
        let boxes: Vec<(f32, f32, f32, f32)> = v
            .slots_of(u)
            .iter()
            .filter_map(|s| match *s {
                Slot::Member(c) => Some((x[c as usize], y[c as usize], v.w[c as usize], v.h[c as usize])),
                Slot::FastForward { .. } => None,
            })
            .collect();
        for &(bx, by, bw, bh) in &boxes {
            assert!(bx >= x[ui] && by >= y[ui], "member outside group {u}");
            assert!(bx + bw <= x[ui] + v.w[ui] + 1e-3 && by + bh <= y[ui] + v.h[ui] + 1e-3, "member outside {u}");
        }
        for i in 0..boxes.len() {
            for j in i + 1..boxes.len() {
                let (a, b) = (boxes[i], boxes[j]);
                let apart = a.0 + a.2 <= b.0 || b.0 + b.2 <= a.0 || a.1 + a.3 <= b.1 || b.1 + b.3 <= a.1;
                assert!(apart, "members of {u} overlap");
            }
        }
    }
}

#[test]
fn incremental_relayout_equals_layout_from_scratch() {
    let a = analyse(&random_profile(4000, 5, 8));
    let agg = Aggregation::new(&a, Method::Reduction);
    let (t, g) = (&agg.tree, &a.graph);
    let mut v = AggregateView::new(t, g, AggregateParams::default());
    let mut rng = XorShift(77);
    for step in 0..300 {
        let vis = v.visible(t);
        let u = vis[(rng.next() % vis.len() as u64) as usize];
        match rng.next() % 10 {
            0 => v.open_all_beneath(t, g, u),
            1..=3 => v.close_group(t, g, u),
            _ => v.open_group(t, g, u),
        }
        if step % 10 == 0 {
            let mut fresh = AggregateView::new(t, g, AggregateParams::default());
            fresh.set_open(t, g, &v.open);
            same_layout(&v, &fresh, t);
            check_nesting(&v, t);
        }
    }
}

#[test]
fn drilling_opens_what_it_says() {
    let a = analyse(&fib_profile(20, 6, 8));
    let agg = Aggregation::new(&a, Method::Reduction);
    let (t, g) = (&agg.tree, &a.graph);
    let mut v = AggregateView::new(t, g, AggregateParams::default());
    assert_eq!(v.visible(t), vec![t.root], "the graph opens as one group");
    for d in 0..6 {
        v.drill_to_depth(t, g, d);
        let vis = v.visible(t);
        assert!(vis.iter().all(|&u| t.depth[u as usize] <= d));
        assert_eq!(vis.len(), (0..t.len()).filter(|&u| t.depth[u] <= d).count(), "depth {d}");
        check_nesting(&v, t);
    }
    v.drill_critical(t, g, &agg.metrics.on_critical);
    let vis: BTreeSet<u32> = v.visible(t).into_iter().collect();
    // Every grain-graph node of the critical path that is a leaf shows.
    for u in 0..t.len() as u32 {
        if t.is_leaf(u) && a.critical.on_node[t.node[u as usize] as usize] {
            assert!(vis.contains(&u), "critical leaf {u} hidden");
        }
    }
    v.open_all_beneath(t, g, t.root);
    assert_eq!(v.visible(t).len(), t.len());
    v.close_group(t, g, t.root);
    assert_eq!(v.visible(t), vec![t.root]);
    // Hit testing finds the root's box and nothing outside it.
    assert_eq!(v.node_at(t, 1.0, 1.0), Some(t.root));
    assert_eq!(v.node_at(t, -5.0, 1.0), None);
}

#[test]
fn filtered_view_keeps_problems_and_merges_fast_forward_edges() {
    let a = analyse(&random_profile(3000, 11, 16));
    let agg = Aggregation::new(&a, Method::Reduction);
    let mut checked = 0;
    for (i, pv) in a.problems.iter().enumerate() {
        if pv.count == 0 || pv.count == a.graph.grains() {
            continue;
        }
        let (t, m) = agg.separated(&a, i);
        let g = &a.graph;
        let keep: Vec<bool> = (0..t.len()).map(|u| m.problems[u] >> i & 1 == 1).collect();
        let mut v = AggregateView::new(&t, g, AggregateParams::default());
        v.set_filter(&t, g, Some(keep.clone()));
        v.open_all_beneath(&t, g, t.root);
        for u in v.visible(&t) {
            assert!(u == t.root || keep[u as usize], "{}: quiet node {u} shows", METRICS[i]);
            let slots = v.slots_of(u);
            let series = t.kind[u as usize].is_series();
            let ff: Vec<usize> = (0..slots.len()).filter(|&k| matches!(slots[k], Slot::FastForward { .. })).collect();
            if series {
                assert!(ff.windows(2).all(|w| w[1] > w[0] + 1), "consecutive fast-forward edges not merged");
            } else {
                assert!(ff.len() <= 1, "a fork-join group with several fast-forward edges");
            }
            checked += ff.len();
        }
        check_nesting(&v, &t);
        // Unfiltered, the same opened tree shows everything.
        v.set_filter(&t, g, None);
        assert_eq!(v.visible(&t).len(), t.len());
    }
    assert!(checked > 0, "no fast-forward edge was exercised");
}

#[test]
fn scene_borders_follow_problems_and_the_local_critical_path() {
    let a = analyse(&random_profile(2000, 3, 16));
    let agg = Aggregation::new(&a, Method::Reduction);
    let i = a.problems.iter().position(|p| p.count > 0 && p.count < a.graph.grains()).expect("a partial problem");
    let (t, m) = agg.separated(&a, i);
    let g = &a.graph;
    let mut v = AggregateView::new(&t, g, AggregateParams::default());
    v.drill_to_depth(&t, g, 3);
    let sev = severity(&a, &t, i);
    let scene = build(&a, &t, &m, &v, 1000.0, 800.0, Overlay { problem: Some((i, &sev)), ..Default::default() });
    let closed: Vec<u32> = v.visible(&t).into_iter().filter(|&u| !t.is_leaf(u) && !v.is_open(u)).collect();
    let bad = closed.iter().filter(|&&u| m.problems[u as usize] >> i & 1 == 1).count();
    let reds = scene.rects.iter().filter(|r| r.border == PROBLEM_BORDER).count();
    let greens = scene.rects.iter().filter(|r| r.border == QUIET_BORDER).count();
    let opened_bad = v.visible(&t).iter().filter(|&&u| v.is_open(u) && m.problems[u as usize] >> i & 1 == 1).count();
    let opened_quiet = v.visible(&t).iter().filter(|&&u| v.is_open(u) && m.problems[u as usize] >> i & 1 == 0).count();
    assert_eq!(reds, bad + opened_bad, "red borders: problematic groups");
    assert_eq!(greens, closed.len() - bad + opened_quiet, "green borders: the others");
    // The local critical path of an opened group: its members on the path get orange borders.
    let u = v.visible(&t).into_iter().find(|&u| v.is_open(u) && t.count[u as usize] > 1).unwrap();
    let lcp = local_critical_path(g, &t, u);
    assert!(!lcp.members.is_empty());
    let scene = build(&a, &t, &m, &v, 1000.0, 800.0, Overlay { local_critical: &lcp.members, ..Default::default() });
    assert_eq!(scene.rects.iter().filter(|r| r.border == LOCAL_CRITICAL).count(), lcp.members.len());
}

#[test]
fn cli_json_has_exactly_the_issue_keys() {
    let dir = TempDir::new("aggregate-cli");
    let file = dir.join("fib.csv");
    std::fs::write(&file, fib_profile(16, 4, 8)).unwrap();
    for method in ["reduction", "family"] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_weft"))
            .args(["aggregate", "--json", "--method", method])
            .arg(&file)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let keys: BTreeSet<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        let want: BTreeSet<&str> = [
            "nodes",
            "grains",
            "groups",
            "tree_depth",
            "theta_max_conservative",
            "theta_max_by_problem",
            "savings_percent",
        ]
        .into();
        assert_eq!(keys, want);
        assert_eq!(v["grains"], 32);
        for (metric, th) in v["theta_max_by_problem"].as_object().unwrap() {
            assert!(METRICS.contains(&metric.as_str()));
            assert!(th.as_u64().unwrap() <= v["theta_max_conservative"].as_u64().unwrap());
        }
    }
}

#[test]
fn a_single_node_graph_aggregates_without_panicking() {
    let empty = b"<?xml version=\"1.0\"?><graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\"><graph edgedefault=\"directed\"></graph></graphml>";
    let one = b"<?xml version=\"1.0\"?><graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\"><graph edgedefault=\"directed\"><node id=\"a\"/></graph></graphml>";
    assert!(read_grains("x.graphml", empty).is_err(), "the reader refuses an empty graph");
    for bytes in [&one[..]] {
        let a = GrainAnalysis::new(&read_grains("x.graphml", bytes).unwrap(), Thresholds::paper()).unwrap();
        for method in [Method::Reduction, Method::Family] {
            let agg = Aggregation::new(&a, method);
            let th = agg.theta(&a);
            assert!(th.by_problem.is_empty());
            let mut v = AggregateView::new(&agg.tree, &a.graph, AggregateParams::default());
            v.open_all_beneath(&agg.tree, &a.graph, agg.tree.root);
            let s = build(&a, &agg.tree, &agg.metrics, &v, 300.0, 200.0, Overlay::default());
            assert!(!s.rects.is_empty());
        }
    }
}

#[test]
fn tooltip_and_properties_of_a_group() {
    use weft::analyses::aggregate::query::{group_properties, tooltip};
    let a = analyse(&fib_profile(12, 2, 4));
    let agg = Aggregation::new(&a, Method::Reduction);
    let (t, m) = (&agg.tree, &agg.metrics);
    let root = t.root;
    // Root [start, fork-join, end]; the tree below has every other node.
    let tip = tooltip(t, m, root);
    assert!(tip.starts_with("linear group: "), "{tip}");
    assert!(tip.contains(&format!("strength (3, {}): 3 members directly inside", t.len() - 1)), "{tip}");
    assert!(tip.contains(&format!("{} grains and ", a.graph.grains())), "{tip}");
    let props = group_properties(&a, t, m, root);
    let get = |k: &str| props.iter().find(|p| p.0 == k).map(|p| p.1.clone()).unwrap();
    assert_eq!(get("depth"), "0");
    assert_eq!(get("on_critical_path"), "true");
    assert_eq!(get("exec_cycles"), a.graph.node_exec.iter().sum::<u64>().to_string());
    assert_eq!(tooltip(t, m, t.len() as u32), "");
}

#[test]
fn group_labels_say_what_they_count_in_words() {
    use weft::analyses::aggregate::query::{counted_short, group_labels, thousands};
    assert_eq!(thousands(24579), "24,579");
    assert_eq!(thousands(999), "999");
    assert_eq!(thousands(1_000_000), "1,000,000");
    assert_eq!(counted_short(8192, "grain", "grains"), "8.2k grains");
    assert_eq!(counted_short(24579, "node", "nodes"), "25k nodes");
    assert_eq!(counted_short(1, "grain", "grains"), "1 grain");
    let a = analyse(&fib_profile(16, 4, 4));
    let agg = Aggregation::new(&a, Method::Reduction);
    let (t, m) = (&agg.tree, &agg.metrics);
    // Every grain and every grain-graph node counted once, at the root.
    assert_eq!(m.grains[t.root as usize] as usize, a.graph.grains());
    assert_eq!(m.nodes[t.root as usize] as usize, a.graph.nodes());
    let labels = group_labels(m, t.root);
    let grains = thousands(a.graph.grains() as u64);
    assert_eq!(labels[0], format!("{grains} grains \u{b7} 3 members"));
    assert_eq!(labels[1], format!("{grains} grains"));
    // The scene draws the longest that fits the closed root, never a bare "3/N".
    let v = AggregateView::new(t, &a.graph, AggregateParams::default());
    for (w, h) in [(900.0, 600.0), (300.0, 200.0)] {
        let s = build(&a, t, m, &v, w, h, Overlay::default());
        let texts: Vec<&str> = s.labels.iter().map(|l| l.text.as_str()).collect();
        assert!(texts.iter().any(|l| labels.contains(&l.to_string())), "{w}x{h}: {texts:?}");
        assert!(!texts.iter().any(|l| l.contains('/')), "{w}x{h}: {texts:?}");
    }
    // A group without grains (start and end only) counts grain-graph nodes.
    let mut only_nodes = m.clone();
    only_nodes.grains[t.root as usize] = 0;
    assert!(group_labels(&only_nodes, t.root)[1].ends_with(" nodes"));
}
