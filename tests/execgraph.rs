//! Execution graphs end to end: samples, the text format, the graph, the layout's invariants (y against event
//! times, monotone with a minimum edge length, crossings counted on the drawing against an independent count
//! and against an exhaustive max-cut), the scene, and golden `weft execgraph --json` output.

use crate::common;
use crate::common::TempDir;
use common::read::read_execgraph;
use weft::analyses::execgraph::{build, ExecGraph, GraphError, NodeKind, NONE};
use weft::layouts::execgraph::sides::{self, intersecting, Span};
use weft::layouts::execgraph::{layout, ExecLayout, Scale};
use weft::readers::execgraph_text;
use weft::samples::execgraph::{random, sample, sample_text, simulate, Program, Step, ThreadPlan};
use weft::samples::rng::XorShift;

fn graph_of(p: &Program) -> ExecGraph {
    build(&simulate(p, "test")).expect("a simulated program is a fork/join program")
}

#[test]
fn samples_have_the_papers_thread_counts() {
    for (name, threads) in [("fib", 729), ("rsa", 13), ("mergesort", 1024)] {
        let g = build(&sample(name).expect("sample exists")).expect("sample builds");
        assert_eq!(g.threads.len(), threads, "{name}");
        // The text form is a fixture: it reads back to the same graph.
        let text = sample_text(name).expect("sample exists");
        let back = build(&read_execgraph(name, text.as_bytes()).expect("reads")).expect("builds");
        assert_eq!((back.threads.len(), back.nodes.len()), (g.threads.len(), g.nodes.len()), "{name}");
        assert_eq!(back.critical_ns, g.critical_ns, "{name}");
    }
    assert!(sample("nope").is_none());
}

#[test]
fn true_scale_y_is_the_event_time() {
    let mut graphs: Vec<ExecGraph> =
        ["fib", "rsa", "mergesort"].iter().map(|s| build(&sample(s).unwrap()).unwrap()).collect();
    graphs.extend((1..20).map(|seed| graph_of(&random(300, seed))));
    for g in &graphs {
        let l = layout(g, Scale::True);
        for (n, node) in g.nodes.iter().enumerate() {
            assert_eq!(l.y_ns[n], node.time_ns, "{}: node {n} {:?}", g.source, node.kind);
        }
        assert_eq!(l.height_ns, g.nodes.iter().map(|n| n.time_ns).max().unwrap());
    }
}

/// Every edge points down (or is horizontal), and flow edges are at least `min` long.
fn assert_monotone(g: &ExecGraph, l: &ExecLayout, min: u64) {
    for (n, node) in g.nodes.iter().enumerate() {
        let n = n as u32;
        if let Some(p) = g.chain_pred(n) {
            assert!(l.y_ns[n as usize] >= l.y_ns[p as usize] + min, "flow edge into {n} shorter than {min}");
        }
        if let Some(p) = g.partner_pred(n) {
            assert!(l.y_ns[n as usize] >= l.y_ns[p as usize], "structural edge into {n} ({:?}) goes up", node.kind);
        }
    }
}

#[test]
fn min_edge_scale_is_monotone_and_never_shortens() {
    for seed in 1..15 {
        let g = graph_of(&random(200, seed));
        let truth = layout(&g, Scale::True);
        assert_monotone(&g, &truth, 0);
        for min_ns in [1, 50, 10_000] {
            let l = layout(&g, Scale::MinEdge { min_ns });
            assert_monotone(&g, &l, min_ns);
            assert!(l.y_ns.iter().zip(&truth.y_ns).all(|(a, b)| a >= b));
        }
    }
}

/// The crossings a drawing must have, from the side assignment alone: a subthread C drawn farther out than a
/// sibling D on the same side crosses, with its fork and join edges, every thread of D's subtree whose span
/// strictly contains the edge's y.
fn predicted_crossings(g: &ExecGraph, l: &ExecLayout) -> u64 {
    let n = g.threads.len();
    let in_subtree = |e: usize, d: usize| {
        let mut t = e as u32;
        loop {
            if t as usize == d {
                return true;
            }
            t = g.threads[t as usize].parent;
            if t == NONE {
                return false;
            }
        }
    };
    let mut total = 0;
    for p in 0..n {
        let cp = l.column[p] as i64;
        for &c in g.children_of(p as u32) {
            for &d in g.children_of(p as u32) {
                let (cc, cd) = (l.column[c as usize] as i64 - cp, l.column[d as usize] as i64 - cp);
                if c == d || cc.signum() != cd.signum() || cc.abs() <= cd.abs() {
                    continue;
                }
                let th = &g.threads[c as usize];
                let ys = [th.fork_node, th.join_node].into_iter().filter(|&x| x != NONE).map(|x| l.y_ns[x as usize]);
                for y in ys {
                    total += (0..n)
                        .filter(|&e| in_subtree(e, d as usize) && l.top_ns[e] < y && y < l.bottom_ns[e])
                        .count() as u64;
                }
            }
        }
    }
    total
}

#[test]
fn crossings_on_the_drawing_equal_the_conflicting_same_side_pairs() {
    let (mut with_crossings, mut all_bipartite) = (0, 0);
    for seed in 1..300u64 {
        let g = graph_of(&random(2 + (seed as usize * 7) % 70, seed));
        for scale in [Scale::True, Scale::MinEdge { min_ns: 300 }] {
            let l = layout(&g, scale);
            assert_eq!(l.crossings, predicted_crossings(&g, &l), "seed {seed} {scale:?}");
            if l.parents_not_bipartite == 0 {
                assert_eq!(l.crossings, 0, "seed {seed}: bipartite everywhere but crossings");
                all_bipartite += 1;
            } else {
                with_crossings += (l.crossings > 0) as u32;
            }
        }
    }
    // The instances exercise both cases.
    assert!(with_crossings > 20 && all_bipartite > 20, "{with_crossings} {all_bipartite}");
}

#[test]
fn columns_are_a_permutation_with_contiguous_subtrees_and_layout_is_deterministic() {
    for seed in 1..40 {
        let g = graph_of(&random(500, seed));
        let l = layout(&g, Scale::True);
        let mut seen = vec![false; g.threads.len()];
        for &c in &l.column {
            assert!(!seen[c as usize]);
            seen[c as usize] = true;
        }
        // Post-order: each subtree's columns are exactly [min, max] with max - min + 1 = its size.
        let n = g.threads.len();
        let (mut lo, mut hi, mut size) = (l.column.clone(), l.column.clone(), vec![1u32; n]);
        for t in (1..n).rev() {
            // Simulated programs fork only higher-indexed threads, so reverse index order is bottom-up.
            let p = g.threads[t].parent as usize;
            lo[p] = lo[p].min(lo[t]);
            hi[p] = hi[p].max(hi[t]);
            size[p] += size[t];
        }
        for t in 0..n {
            assert_eq!(hi[t] - lo[t] + 1, size[t], "seed {seed} thread {t}");
        }
        assert_eq!(layout(&g, Scale::True), l);
    }
}

fn brute_bipartite(spans: &[Span]) -> bool {
    let k = spans.len();
    let mut colour = vec![u8::MAX; k];
    for s in 0..k {
        if colour[s] != u8::MAX {
            continue;
        }
        colour[s] = 0;
        let mut stack = vec![s];
        while let Some(v) = stack.pop() {
            for u in 0..k {
                if u != v && intersecting(spans[u], spans[v]) {
                    if colour[u] == u8::MAX {
                        colour[u] = 1 - colour[v];
                        stack.push(u);
                    } else if colour[u] == colour[v] {
                        return false;
                    }
                }
            }
        }
    }
    true
}

fn random_spans(rng: &mut XorShift, k: usize, range: u64) -> Vec<Span> {
    let mut v: Vec<Span> = (0..k)
        .map(|_| {
            let a = rng.below(range);
            let b = a + 1 + rng.below(range / 2 + 1);
            Span { lo: a, hi: b, width: 1 + rng.below(3) }
        })
        .collect();
    v.sort_by_key(|s| (s.lo, std::cmp::Reverse(s.hi)));
    v
}

#[test]
fn bipartiteness_without_edges_agrees_with_breadth_first_search() {
    let mut rng = XorShift(0xb1fa_57e5);
    let (mut yes, mut no) = (0, 0);
    for round in 0..3000 {
        let k = 1 + (round % 40);
        let spans = random_spans(&mut rng, k, 10 + (round as u64 % 7) * 20);
        let s = sides::assign(&spans);
        let want = brute_bipartite(&spans);
        assert_eq!(s.bipartite, want, "round {round}: {spans:?}");
        if want {
            assert_eq!(sides::same_side_pairs(&spans, &s.left), 0, "round {round}");
            yes += 1;
        } else {
            no += 1;
        }
    }
    assert!(yes > 300 && no > 300, "{yes} {no}");
}

/// One parent with `k` leaf subthreads whose forks and joins interleave at random.
fn one_parent(rng: &mut XorShift, k: usize) -> Program {
    let mut p = Program { threads: vec![ThreadPlan::default(); k + 1] };
    let mut open: Vec<u32> = Vec::new();
    let mut next = 1u32;
    while next as usize <= k || !open.is_empty() {
        if next as usize <= k && (open.is_empty() || rng.below(2) == 0) {
            p.threads[0].steps.push(Step::Fork { child: next, delay_ns: 0 });
            p.threads[next as usize].steps.push(Step::Work(10 + rng.below(50)));
            open.push(next);
            next += 1;
        } else {
            let i = rng.below(open.len() as u64) as usize;
            p.threads[0].steps.push(Step::Join { child: open.swap_remove(i) });
        }
        p.threads[0].steps.push(Step::Work(1 + rng.below(20)));
    }
    p
}

#[test]
fn heuristic_against_exhaustive_max_cut() {
    let mut rng = XorShift(0x00c0_ffee);
    let (mut worst, mut worst_case) = (1.0f64, (0usize, 0u64, 0u64));
    let (mut instances, mut optimal, mut not_bipartite) = (0, 0, 0);
    for round in 0..1500 {
        let k = 2 + round % 15;
        let g = graph_of(&one_parent(&mut rng, k));
        let l = layout(&g, Scale::True);
        // Leaves only: every crossing is a same-side intersecting pair.
        assert_eq!(l.crossings, l.same_side_pairs, "round {round}");
        let spans: Vec<Span> = g
            .children_of(0)
            .iter()
            .map(|&c| Span { lo: l.top_ns[c as usize], hi: l.bottom_ns[c as usize], width: 1 })
            .collect();
        let adj: Vec<u32> = (0..k)
            .map(|a| (0..k).filter(|&b| b != a && intersecting(spans[a], spans[b])).fold(0u32, |m, b| m | 1 << b))
            .collect();
        let edges: u64 = adj.iter().map(|m| m.count_ones() as u64).sum::<u64>() / 2;
        let mut best = u64::MAX;
        for mask in 0u32..(1 << (k - 1)) {
            // Vertex k-1 on the right w.l.o.g.; count same-side pairs once each (a < b).
            let same: u32 = (0..k)
                .map(|a| {
                    let side = if mask >> a & 1 == 1 { mask } else { !mask };
                    (adj[a] & side & !((2u32 << a) - 1)).count_ones()
                })
                .sum();
            best = best.min(same as u64);
        }
        // A local optimum of single flips keeps at least half of the intersecting pairs apart.
        assert!(2 * l.crossings <= edges, "round {round}: {} crossings of {edges} pairs", l.crossings);
        instances += 1;
        not_bipartite += (best > 0) as u32;
        if best == 0 {
            assert_eq!(l.crossings, 0, "round {round}: bipartite but {} crossings", l.crossings);
        }
        optimal += (l.crossings == best) as u32;
        let ratio = if best == 0 { 1.0 } else { l.crossings as f64 / best as f64 };
        if ratio > worst {
            worst = ratio;
            worst_case = (k, l.crossings, best);
        }
    }
    println!(
        "exhaustive max-cut: {instances} instances (up to 16 subthreads, {not_bipartite} not bipartite), heuristic optimal in \
         {optimal}, worst ratio {worst:.3} (k = {}, {} crossings vs {} optimal)",
        worst_case.0, worst_case.1, worst_case.2
    );
    assert!(worst <= 3.0, "worst ratio {worst}");
}

#[test]
fn fork_all_join_all_is_cut_in_half() {
    // 12 workers, all intersecting: the best cut puts 6 on each side, 2 * C(6, 2) = 30 crossings.
    let g = build(&sample("rsa").unwrap()).unwrap();
    let l = layout(&g, Scale::True);
    assert_eq!((l.crossings, l.parents_not_bipartite), (30, 1));
    let main_col = l.column[0];
    let left = g.children_of(0).iter().filter(|&&c| l.column[c as usize] < main_col).count();
    assert_eq!(left, 6);
}

#[test]
fn fibonacci_subthreads_go_on_opposite_sides() {
    let g = build(&sample("fib").unwrap()).unwrap();
    let l = layout(&g, Scale::True);
    assert_eq!((l.crossings, l.parents_not_bipartite), (0, 0));
    for t in 1..g.threads.len() as u32 {
        let kids = g.children_of(t);
        if kids.len() == 2 {
            let side = |c: u32| (l.column[c as usize] as i64 - l.column[t as usize] as i64).signum();
            assert_eq!(side(kids[0]), -side(kids[1]), "thread {t}");
        }
    }
}

#[test]
fn critical_path_is_a_chain_carrying_the_most_run_time() {
    for seed in 1..30 {
        let g = graph_of(&random(150, seed));
        let marked: Vec<u32> = (0..g.nodes.len() as u32).filter(|&n| g.critical[n as usize]).collect();
        // Walk back from the last marked node; every marked node is visited, weights add up.
        let last = *marked.iter().max_by_key(|&&n| (g.nodes[n as usize].time_ns, n)).unwrap();
        let (mut v, mut sum, mut steps) = (last, 0u64, 1usize);
        loop {
            let pred = if g.critical_via_partner[v as usize] { g.partner_pred(v) } else { g.chain_pred(v) };
            let Some(p) = pred else { break };
            assert!(g.critical[p as usize]);
            if !g.critical_via_partner[v as usize] && !g.idle_into(v) {
                sum += g.nodes[v as usize].time_ns - g.nodes[p as usize].time_ns;
            }
            v = p;
            steps += 1;
        }
        assert_eq!(steps, marked.len(), "seed {seed}");
        assert_eq!(g.nodes[v as usize].kind, NodeKind::Start);
        assert_eq!(sum, g.critical_ns);
        // No thread alone carries more run time than the critical path, nor does the path exceed the height.
        assert!(g.threads.iter().all(|t| t.run_ns <= g.critical_ns));
        assert!(g.critical_ns <= g.nodes.iter().map(|n| n.time_ns).max().unwrap());
    }
}

fn graph_error(text: &str) -> GraphError {
    let ev = execgraph_text::parse("bad.txt", text.as_bytes()).expect("parses");
    build(&ev).expect_err("not a fork/join program")
}

#[test]
fn malformed_programs_say_where() {
    let h = "# weft execgraph 1\n";
    let e = graph_error(&format!("{h}0 0 1 start\n1 0 1 fork 2\n2 0 1 end\n"));
    assert_eq!(e.to_string(), "bad.txt: line 3: thread 2 is named here but has no events of its own");
    let e = graph_error(&format!("{h}0 0 1 start\n1 0 1 end\n2 0 1 fork 1\n"));
    assert!(matches!(e, GraphError::Sequence { ref at, .. } if at == "line 4"), "{e}");
    let e = graph_error(&format!("{h}5 0 1 start\n1 0 1 end\n"));
    assert!(e.to_string().contains("line 3: thread 1: time goes backwards"), "{e}");
    let e = graph_error(&format!("{h}0 0 1 start\n1 0 1 b-join 2\n2 0 1 end\n0 0 2 start\n1 0 2 end\n"));
    assert!(e.to_string().contains("line 4"), "{e}");
    let e = graph_error(&format!("{h}0 0 1 start\n1 0 1 fork 2\n1 0 2 start\n2 0 2 end\n3 0 1 fork 2\n4 0 1 end\n"));
    assert!(matches!(e, GraphError::ForkedTwice { id: 2, .. }), "{e}");
    let e = graph_error(&format!("{h}0 0 1 start\n1 0 1 a-join 2\n"));
    assert!(e.to_string().contains("a-join with no b-join"), "{e}");
    let e = graph_error(&format!("{h}0 0 1 start\n"));
    assert!(e.to_string().contains("never ends"), "{e}");
    // Two threads waiting for each other.
    let e = graph_error(&format!("{h}0 0 1 start\n0 0 2 start\n1 0 1 join 2\n1 0 2 join 1\n2 0 1 end\n2 0 2 end\n"));
    assert!(matches!(e, GraphError::Cycle { .. }), "{e}");
    assert!(matches!(graph_error(&format!("{h}0 0 1 init\n")), GraphError::Empty { .. }));
}

#[test]
fn merged_join_when_b_join_and_a_join_coincide() {
    let text = "# weft execgraph 1\n0 0 1 start\n1 0 1 fork 2\n1 0 2 start\n2 0 2 end\n\
                3 0 1 b-join 2\n3 0 1 a-join 2\n4 0 1 fork 3\n4 0 3 start\n9 0 3 end\n5 0 1 b-join 3\n9 0 1 a-join 3\n10 0 1 end\n";
    let g = build(&execgraph_text::parse("m.txt", text.as_bytes()).unwrap()).unwrap();
    let kinds: Vec<NodeKind> = g.threads[0].nodes().map(|n| g.nodes[n].kind).collect();
    use NodeKind::*;
    assert_eq!(kinds, [Start, Fork, Join, Fork, JoinBegin, JoinEnd, End]);
    assert_eq!(g.threads[0].run_ns, 10 - 4);
    assert!((g.share(0) - 6.0 / (6.0 + 1.0 + 5.0)).abs() < 1e-12);
    // The idle edge b-join -> a-join is the critical path's detour through thread 3.
    let l = layout(&g, Scale::True);
    let a_join = g.threads[0].first_node + 5;
    assert_eq!(l.y_ns[a_join as usize], 9);
    assert!(g.critical_via_partner[a_join as usize]);
}

#[test]
fn scene_culls_to_the_viewport_and_draws_every_node_type() {
    use weft::scene::execgraph::{describe, pick, scene, ExecView};
    use weft::scene::palette;
    let g = graph_of(&random(20_000, 7));
    let l = layout(&g, Scale::True);
    let mut view = ExecView::fit(&g, &l, 1000.0, 700.0);
    view.column_px = 30.0;
    view.scroll_x_px = -30.0 * 500.0;
    view.ns_per_px = l.height_ns as f64 / 650.0;
    let sc = scene(&g, &l, &view);
    let visible = view.visible_columns(l.columns);
    assert!(visible.len() <= 32, "{visible:?}");
    let visible_nodes: usize =
        visible.clone().map(|c| g.threads[l.thread_at[c as usize] as usize].node_count as usize).sum();
    assert!(sc.rects.len() <= visible_nodes + 1, "{} shapes for {visible_nodes} visible nodes", sc.rects.len());
    assert!(sc.lines.len() < 4 * visible_nodes + 200, "{} lines", sc.lines.len());
    assert!(!sc.labels.is_empty());

    let small = build(&sample("mergesort").unwrap()).unwrap();
    let sl = layout(&small, Scale::MinEdge { min_ns: 2_000 });
    // The whole drawing on screen (fit scrolls a minimum-edge drawing rather than overlap its nodes).
    let mut whole = ExecView::fit(&small, &sl, 30_000.0, 900.0);
    whole.ns_per_px = sl.height_ns as f64 / 850.0;
    let full = scene(&small, &sl, &whole);
    let shapes: std::collections::BTreeSet<u32> = full.rects.iter().map(|r| r.shape).collect();
    assert!(shapes.len() >= 5, "{shapes:?}");
    assert!(full.lines.iter().any(|l| l.color == palette::CRITICAL));
    assert!(full.lines.iter().any(|l| l.dash_px > 0.0));
    // Hovering the main thread's column picks it and says its share.
    let fv = whole;
    let x = fv.x_of_column(sl.column[0]);
    let y = fv.y_of(sl.y_ns[small.threads[0].first_node as usize + 1]);
    assert_eq!(pick(&sl, &fv, x, y), Some(0));
    assert!(describe(&small, 0).contains("% of the total"));
}

#[test]
fn golden_cli_json_on_the_samples() {
    let dir = TempDir::new("execgraph-golden");
    for name in ["fib", "rsa", "mergesort"] {
        let want =
            std::fs::read_to_string(format!("{}/tests/golden/execgraph-{name}.json", env!("CARGO_MANIFEST_DIR")))
                .expect("golden file");
        let file = dir.join(format!("{name}.execgraph"));
        std::fs::write(&file, sample_text(name).unwrap()).unwrap();
        for args in [
            vec!["execgraph".to_string(), "--sample".into(), name.into(), "--json".into()],
            vec!["execgraph".to_string(), file.display().to_string(), "--json".into()],
        ] {
            let out = std::process::Command::new(env!("CARGO_BIN_EXE_weft")).args(&args).output().expect("runs");
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
            assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), want.trim(), "{args:?}");
        }
    }
    let svg = dir.join("rsa.svg");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_weft"))
        .args(["render", "execgraph", "--sample", "rsa", "-o"])
        .arg(&svg)
        .output()
        .expect("runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg") && text.contains("<polygon") && text.contains("stroke-dasharray"));
}

#[test]
fn any_event_list_builds_or_fails_cleanly_and_whatever_builds_lays_out() {
    use weft::model::thread_events::ThreadEventKind;
    let mut rng = XorShift(0xfeed_beef);
    let (mut built, mut failed) = (0, 0);
    for round in 0..3000u64 {
        // A valid program, then a few random edits: most results are malformed in some way, some still valid.
        let mut ev = simulate(&random(1 + rng.below(12) as usize, round + 1), &format!("fuzz{round}"));
        for _ in 0..rng.below(3) {
            let n = ev.events.len() as u64;
            let i = rng.below(n) as usize;
            let threads = 14;
            match rng.below(5) {
                0 => {
                    ev.events.remove(i);
                }
                1 => ev.events.swap(i, rng.below(n) as usize),
                2 => ev.events[i].time_ns = rng.below(ev.events[i].time_ns * 2 + 2),
                3 => ev.events[i].thread = rng.below(threads),
                _ => {
                    let other = rng.below(threads);
                    ev.events[i].kind = match rng.below(7) {
                        0 => ThreadEventKind::Init,
                        1 => ThreadEventKind::Exit,
                        2 => ThreadEventKind::Start,
                        3 => ThreadEventKind::End,
                        4 => ThreadEventKind::Fork { child: other },
                        5 => ThreadEventKind::JoinBegin { joined: other },
                        _ => ThreadEventKind::JoinEnd { joined: other },
                    }
                }
            }
        }
        match build(&ev) {
            Ok(g) => {
                built += 1;
                for scale in [Scale::True, Scale::MinEdge { min_ns: 3 }] {
                    let l = layout(&g, scale);
                    assert_monotone(&g, &l, if scale == Scale::True { 0 } else { 3 });
                    assert_eq!(l.columns as usize, g.threads.len());
                }
            }
            Err(e) => {
                failed += 1;
                assert!(e.to_string().starts_with(&format!("fuzz{round}: ")), "{e}");
            }
        }
    }
    assert!(built > 50 && failed > 50, "{built} {failed}");
}
