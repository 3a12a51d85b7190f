//! Aggregated grain graphs: the tree invariants (one root, every node exactly once, normalization leaves no
//! linear group under a linear group, separation bundles only non-problematic members) on generated
//! fork-join programs, non-nested (taskgroup) and random DAGs, fib, and the real MIR and GraphML samples;
//! propagation against brute force over the leaves; theta and the local critical path on hand-checked small
//! graphs; Weisfeiler–Lehman similarity against networkx (when WEFT_PYTHON has it).

use crate::common;

use common::read::read_grains;
use std::path::PathBuf;
use std::process::Command;
use weft::analyses::aggregate::critical::local_critical_path;
use weft::analyses::aggregate::separate::{problematic, separate};
use weft::analyses::aggregate::similarity::{group_graph, group_hash, match_groups};
use weft::analyses::aggregate::{Aggregation, AggregationTree, GroupKind, Method};
use weft::analyses::grains::{GrainAnalysis, NodeKind, Thresholds, METRICS, NONE};
use weft::samples::grains::{fib_profile, random_profile};
use weft::samples::rng::XorShift;

fn analyse(name: &str, bytes: &[u8]) -> GrainAnalysis {
    GrainAnalysis::new(&read_grains(name, bytes).unwrap(), Thresholds::paper()).unwrap()
}

/// A GraphML grain graph: nodes (name, type, exec_cycles, parallel_benefit) and edges (source, target, type).
fn graphml(nodes: &[(&str, &str, u64, Option<f64>)], edges: &[(usize, usize, &str)]) -> Vec<u8> {
    let mut s = String::from(
        "<?xml version=\"1.0\"?>\n<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">\n\
         <key id=\"n\" for=\"node\" attr.name=\"name\" attr.type=\"string\"/>\n\
         <key id=\"t\" for=\"node\" attr.name=\"type\" attr.type=\"string\"/>\n\
         <key id=\"x\" for=\"node\" attr.name=\"exec_cycles\" attr.type=\"double\"/>\n\
         <key id=\"p\" for=\"node\" attr.name=\"parallel_benefit\" attr.type=\"double\"/>\n\
         <key id=\"e\" for=\"edge\" attr.name=\"type\" attr.type=\"string\"/>\n\
         <graph edgedefault=\"directed\">\n",
    );
    for (i, (name, ty, exec, pb)) in nodes.iter().enumerate() {
        s.push_str(&format!(
            "<node id=\"n{i}\"><data key=\"n\">{name}</data><data key=\"t\">{ty}</data><data key=\"x\">{exec}</data>"
        ));
        if let Some(pb) = pb {
            s.push_str(&format!("<data key=\"p\">{pb}</data>"));
        }
        s.push_str("</node>\n");
    }
    for (s_, t, ty) in edges {
        s.push_str(&format!("<edge source=\"n{s_}\" target=\"n{t}\"><data key=\"e\">{ty}</data></edge>\n"));
    }
    s.push_str("</graph>\n</graphml>\n");
    s.into_bytes()
}

/// start -> fork -> {a, b, c} -> join -> end; only `a` has low parallel benefit.
fn small_fork_join() -> Vec<u8> {
    graphml(
        &[
            ("0", "start", 0, None),
            ("f.1.0", "fork", 0, None),
            ("1", "task", 10, Some(0.5)),
            ("2", "task", 30, Some(3.0)),
            ("3", "task", 20, Some(4.0)),
            ("j.1.0", "join", 0, None),
            ("E", "end", 0, None),
        ],
        &[
            (0, 1, "scope"),
            (1, 2, "create"),
            (1, 3, "create"),
            (1, 4, "create"),
            (2, 5, "sync"),
            (3, 5, "sync"),
            (4, 5, "sync"),
            (5, 6, "continue"),
        ],
    )
}

/// A taskgroup: the root's child `a` creates `b`, which is synchronized by the root's join, not by `a`.
fn taskgroup() -> Vec<u8> {
    graphml(
        &[
            ("0", "start", 0, None),
            ("f.0.0", "fork", 0, None),
            ("1.1", "fragment", 5, None),
            ("f.1.0", "fork", 0, None),
            ("1.2", "fragment", 7, None),
            ("2.1", "fragment", 9, None),
            ("0.1", "fragment", 3, None),
            ("j.0.0", "join", 0, None),
            ("E", "end", 0, None),
        ],
        &[
            (0, 1, "scope"),
            (1, 2, "create"),
            (1, 6, "scope"),
            (2, 3, "scope"),
            (3, 4, "scope"),
            (3, 5, "create"),
            (4, 7, "sync"),
            (5, 7, "sync"),
            (6, 7, "sync"),
            (7, 8, "continue"),
        ],
    )
}

/// A seeded random DAG (edges from lower to higher names), no nesting at all; node kinds are random too
/// (a fork with one successor, a join with one predecessor, a fragment that forks).
fn random_dag(seed: u64, n: usize) -> Vec<u8> {
    let mut rng = XorShift(seed | 1);
    let kinds = ["fragment", "fragment", "fragment", "fork", "join", "task"];
    let nodes: Vec<(String, &str)> =
        (0..n).map(|i| (format!("{i}.1"), kinds[(rng.next() % kinds.len() as u64) as usize])).collect();
    let mut edges = Vec::new();
    for t in 1..n {
        let k = 1 + (rng.next() % 3) as usize;
        for _ in 0..k {
            let s = (rng.next() % t as u64) as usize;
            edges.push((s, t, "scope"));
        }
        edges.sort();
        edges.dedup();
    }
    let refs: Vec<(&str, &str, u64, Option<f64>)> =
        nodes.iter().enumerate().map(|(i, (n, t))| (n.as_str(), *t, 1 + i as u64 % 7, None)).collect();
    graphml(&refs, &edges)
}

/// Every input the invariants are checked on: (name, analysis).
fn inputs() -> Vec<(String, GrainAnalysis)> {
    let mut v = vec![
        ("fib(20) cutoff 6".to_string(), analyse("fib.csv", &fib_profile(20, 6, 8))),
        ("generated fork-join 3k".into(), analyse("gen.csv", &random_profile(3000, 7, 16))),
        ("generated fork-join 800".into(), analyse("gen.csv", &random_profile(800, 99, 4))),
        ("small fork-join".into(), analyse("s.graphml", &small_fork_join())),
        ("taskgroup".into(), analyse("t.graphml", &taskgroup())),
    ];
    for seed in 1..13 {
        v.push((format!("random DAG {seed}"), analyse("r.graphml", &random_dag(seed, 10 + 15 * seed as usize))));
    }
    if let Some(dir) = common::shared_traces("aggregate inputs") {
        let gg = dir.join("grain-graphs");
        for f in [
            "anamud-test-data/fib/task-stats.merged",
            "anamud-test-data/for-loop/task-stats.merged",
            "anamud-prototype-test/grain-graph.graphml",
            "anamud-prototype-test/task-stats.processed",
        ] {
            let p = gg.join(f);
            if let Ok(b) = std::fs::read(&p) {
                v.push((f.to_string(), analyse(f, &b)));
            }
        }
    }
    v
}

/// One root; every tree node reachable from it exactly once; parents agree with children.
fn check_single_root(name: &str, t: &AggregationTree) {
    assert!(!t.is_empty(), "{name}: empty tree");
    assert_eq!(t.parent[t.root as usize], NONE, "{name}: root has a parent");
    let mut seen = vec![0u32; t.len()];
    let mut stack = vec![t.root];
    while let Some(u) = stack.pop() {
        seen[u as usize] += 1;
        for &c in t.children_of(u) {
            assert_eq!(t.parent[c as usize], u, "{name}: parent of {c}");
            stack.push(c);
        }
    }
    assert!(seen.iter().all(|&s| s == 1), "{name}: a tree node is unreachable or shared");
}

/// Every grain-graph node exactly once, as a leaf or as a group's fork or join (reduction); every node
/// holding work exactly once as a leaf (both methods).
fn check_coverage(name: &str, a: &GrainAnalysis, t: &AggregationTree, all_nodes: bool) {
    let g = &a.graph;
    let mut count = vec![0u32; g.nodes()];
    for i in 0..t.len() {
        for v in [t.node[i], t.fork[i], t.join[i]] {
            if v != NONE {
                count[v as usize] += 1;
            }
        }
    }
    for (v, &c) in count.iter().enumerate() {
        let want = all_nodes || g.node_kind[v].holds_work();
        if want {
            assert_eq!(c, 1, "{name}: node {} ({:?}) appears {c} times", g.node_name(v as u32), g.node_kind[v]);
        } else {
            assert!(c <= 1, "{name}: node {v} twice");
        }
    }
    for gi in 0..g.grains() {
        for &v in g.grain_nodes_of(gi as u32) {
            assert_eq!(count[v as usize], 1, "{name}: grain {gi}");
        }
    }
}

#[test]
fn every_input_reduces_to_one_root_covering_every_node_once() {
    for (name, a) in inputs() {
        for method in [Method::Reduction, Method::Family] {
            let agg = Aggregation::new(&a, method);
            let label = format!("{name} / {method:?}");
            check_single_root(&label, &agg.tree);
            check_coverage(&label, &a, &agg.tree, method == Method::Reduction || a.graph.nested);
            for view in 0..METRICS.len() {
                let s = separate(&a, &agg.tree, view);
                check_single_root(&format!("{label} separated {view}"), &s);
                check_coverage(&label, &a, &s, method == Method::Reduction || a.graph.nested);
            }
        }
    }
}

#[test]
fn nested_inputs_need_no_restructuring_and_taskgroups_do() {
    for (name, a) in inputs() {
        let agg = Aggregation::new(&a, Method::Reduction);
        if a.graph.nested || name == "small fork-join" {
            assert!(!agg.restructured, "{name}: restructured a nested graph");
        }
        if name == "taskgroup" {
            assert!(agg.restructured, "taskgroup was not restructured");
            // The grandchild hangs directly under the root's fork-join group, beside its parent's chain.
            let t = &agg.tree;
            let fj = (0..t.len() as u32).find(|&u| t.kind[u as usize] == GroupKind::ForkJoin).unwrap();
            let names: Vec<String> = t
                .children_of(fj)
                .iter()
                .map(|&c| {
                    t.leaves_under(c)
                        .iter()
                        .map(|&l| a.graph.node_name(t.node[l as usize]))
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .collect();
            assert_eq!(names, ["1.1 f.1.0", "1.2", "2.1", "0.1"], "taskgroup members");
        }
    }
}

#[test]
fn normalization_leaves_no_linear_group_under_a_linear_group() {
    for (name, a) in inputs() {
        let t = Aggregation::new(&a, Method::Reduction).tree;
        for u in 0..t.len() as u32 {
            if t.kind[u as usize] == GroupKind::Linear {
                assert!(t.count[u as usize] >= 2, "{name}: linear group with one member");
                for &c in t.children_of(u) {
                    assert_ne!(t.kind[c as usize], GroupKind::Linear, "{name}: linear under linear");
                }
            }
        }
    }
}

fn close(a: Option<f64>, b: Option<f64>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(x), Some(y)) => (x - y).abs() <= 1e-9 * x.abs().max(y.abs()).max(1.0),
        _ => false,
    }
}

#[test]
fn propagation_matches_brute_force_over_the_leaves() {
    for (name, a) in inputs() {
        for method in [Method::Reduction, Method::Family] {
            let agg = Aggregation::new(&a, method);
            let (t, m) = (&agg.tree, &agg.metrics);
            let g = &a.graph;
            let x = &a.metrics;
            for u in 0..t.len() as u32 {
                let leaves = t.leaves_under(u);
                let nodes: Vec<u32> = leaves.iter().map(|&l| t.node[l as usize]).collect();
                let grains: Vec<usize> = nodes
                    .iter()
                    .filter(|&&v| g.node_kind[v as usize].holds_work())
                    .map(|&v| g.node_grain[v as usize] as usize)
                    .collect();
                let exec: u64 = nodes.iter().map(|&v| g.node_exec[v as usize]).sum();
                assert_eq!(m.exec[u as usize], exec, "{name}: exec of {u}");
                let fold = |col: &[Option<f64>], min: bool| -> Option<f64> {
                    grains.iter().filter_map(|&gi| col[gi]).reduce(|p, q| if min { p.min(q) } else { p.max(q) })
                };
                assert!(close(m.parallel_benefit[u as usize], fold(&x.parallel_benefit, true)), "{name}: pb {u}");
                assert!(close(m.mem_hier_util[u as usize], fold(&x.mem_hier_util, true)), "{name}: mhu {u}");
                assert!(close(m.inst_par_median[u as usize], fold(&x.inst_par_median, true)), "{name}: ip {u}");
                assert!(close(m.sibling_work_balance[u as usize], fold(&x.sibling_work_balance, false)), "{name}: swb");
                assert!(close(m.work_deviation[u as usize], fold(&x.work_deviation, false)), "{name}: wd {u}");
                assert!(close(m.sibling_scatter[u as usize], fold(&x.sibling_scatter, false)), "{name}: sc {u}");
                // Work: each grain once when the whole grain is inside (its nodes' shares add up).
                let mut whole: Vec<usize> = grains.clone();
                whole.sort_unstable();
                whole.dedup();
                if whole.iter().all(|&gi| g.grain_nodes_of(gi as u32).iter().all(|v| nodes.contains(v))) {
                    let w: Option<f64> = whole.iter().filter_map(|&gi| x.work[gi]).reduce(|p, q| p + q);
                    assert!(close(m.work[u as usize], w), "{name}: work of {u}: {:?} vs {w:?}", m.work[u as usize]);
                }
                for (i, view) in a.problems.iter().enumerate() {
                    let bad = grains.iter().any(|&gi| view.problematic[gi]);
                    assert_eq!(m.problems[u as usize] >> i & 1 == 1, bad, "{name}: problem {i} of {u}");
                }
                let crit = t.graph_nodes_under(u).iter().any(|&v| a.critical.on_node[v as usize]);
                assert_eq!(m.on_critical[u as usize], crit, "{name}: critical flag of {u}");
                assert_eq!(m.strength[u as usize].0, t.count[u as usize]);
                assert_eq!(m.strength[u as usize].1 as usize, count_below(t, u), "{name}: strength of {u}");
            }
        }
    }
}

fn count_below(t: &AggregationTree, u: u32) -> usize {
    t.children_of(u).iter().map(|&c| 1 + count_below(t, c)).sum()
}

#[test]
fn separation_bundles_only_non_problematic_members() {
    let mut bundles = 0;
    for (name, a) in inputs() {
        let agg = Aggregation::new(&a, Method::Reduction);
        for view in 0..METRICS.len() {
            let s = separate(&a, &agg.tree, view);
            let bad = problematic(&a, &s, view);
            for u in 0..s.len() as u32 {
                if matches!(s.kind[u as usize], GroupKind::Separated | GroupKind::SeparatedLinear) {
                    bundles += 1;
                    assert!(!bad[u as usize], "{name}: separated group {u} is problematic in view {view}");
                    assert!(s.count[u as usize] >= 2, "{name}: a bundle of one");
                    assert!(bad[s.parent[u as usize] as usize], "{name}: a bundle inside a quiet group");
                }
            }
            // Every problematic group's quiet members are bundled: at most one quiet member outside a
            // bundle per fork-join group.
            for u in 0..s.len() as u32 {
                if s.kind[u as usize] == GroupKind::ForkJoin && bad[u as usize] {
                    let quiet = s.children_of(u).iter().filter(|&&c| !bad[c as usize]).count();
                    assert!(quiet <= 1, "{name}: fork-join {u} keeps {quiet} quiet members apart");
                }
            }
        }
    }
    assert!(bundles > 0, "no input exercised separation");
}

#[test]
fn theta_on_a_hand_checked_fork_join() {
    let a = analyse("s.graphml", &small_fork_join());
    for method in [Method::Reduction, Method::Family] {
        let agg = Aggregation::new(&a, method);
        // Root [start, fork-join or sibling group, end]: opening it shows 1 + 3 nodes; opening the group
        // shows its 3 grains: theta = 7 for every grain.
        assert_eq!(agg.tree.groups(), 2, "{method:?}");
        assert_eq!(agg.tree.height(), 2);
        let th = agg.theta(&a);
        assert_eq!(th.conservative_max, 7, "{method:?}");
        // Low parallel benefit: only grain 1; its quiet siblings are bundled, so the group shows 2 members.
        assert_eq!(th.by_problem.get("parallel_benefit"), Some(&6), "{method:?}");
        assert_eq!(th.by_problem.len(), 1, "{:?}", th.by_problem);
    }
}

#[test]
fn theta_on_fib_grows_with_nesting_depth() {
    // fib with cutoff c: the deepest grain lies c + 1 fork-joins down; each level adds its linear group's
    // members (fragment, fork-join, fragment) and the fork-join's members (two children and the mid
    // fragment); hand-counted for cutoff 1 and 2.
    let th = |c: u32| {
        let a = analyse("fib.csv", &fib_profile(10, c, 4));
        Aggregation::new(&a, Method::Reduction).theta(&a).conservative_max
    };
    let (t1, t2, t3) = (th(1), th(2), th(3));
    assert_eq!(t2 - t1, t3 - t2, "one more level adds the same count");
    assert_eq!(t2 - t1, 6, "a level opens a linear group of 3 and a fork-join of 3");
}

#[test]
fn local_critical_path_of_a_fork_join() {
    let a = analyse("s.graphml", &small_fork_join());
    let agg = Aggregation::new(&a, Method::Reduction);
    let t = &agg.tree;
    let fj = (0..t.len() as u32).find(|&u| t.kind[u as usize] == GroupKind::ForkJoin).unwrap();
    let lcp = local_critical_path(&a.graph, t, fj);
    let names: Vec<String> = lcp.nodes.iter().map(|&v| a.graph.node_name(v)).collect();
    assert_eq!(names, ["f.1.0", "2", "j.1.0"]);
    assert_eq!(lcp.length, 30);
    assert_eq!(lcp.members.len(), 1);
    assert_eq!(a.graph.node_name(t.node[lcp.members[0] as usize]), "2");
    // The root's local path is the global one.
    let root = local_critical_path(&a.graph, t, t.root);
    assert_eq!(root.nodes, a.critical.nodes);
    assert_eq!(root.length, a.critical.length);
}

/// Groups of the fib tree at one depth: (tree, groups).
fn fib_groups(a: &GrainAnalysis) -> (AggregationTree, Vec<u32>) {
    let t = Aggregation::new(a, Method::Reduction).tree;
    let groups: Vec<u32> = (0..t.len() as u32).filter(|&u| !t.is_leaf(u) && t.depth[u as usize] <= 8).collect();
    (t, groups)
}

#[test]
fn similarity_is_equal_for_isomorphic_groups_and_differs_for_a_changed_one() {
    // Two fib runs with different timings (cores change cpu ids and nothing structural).
    let a = analyse("fib.csv", &fib_profile(16, 4, 4));
    let b = analyse("fib.csv", &fib_profile(18, 4, 48));
    let (ta, ga) = fib_groups(&a);
    let (tb, gb) = fib_groups(&b);
    let m = match_groups((&a, &ta, &ga), (&b, &tb, &gb));
    assert_eq!(m.len(), ga.len(), "every group of one fib run has a partner in the other");
    assert!(m.iter().all(|x| x.same_structure), "same program, same structure");
    // Sibling fork-joins at one depth are isomorphic.
    let fj_at = |d: u32| -> Vec<u32> {
        ga.iter()
            .copied()
            .filter(|&u| ta.kind[u as usize] == GroupKind::ForkJoin && ta.depth[u as usize] == d)
            .collect()
    };
    let fjs = fj_at(7);
    assert!(fjs.len() >= 2);
    let h0 = group_hash(&a.graph, &ta, fjs[0]);
    assert!(fjs.iter().all(|&u| group_hash(&a.graph, &ta, u) == h0));
    // A deeper cutoff changes the structure of the same groups.
    let c = analyse("fib.csv", &fib_profile(16, 5, 4));
    let (tc, gc) = fib_groups(&c);
    let m = match_groups((&a, &ta, &ga), (&c, &tc, &gc));
    assert!(m.iter().any(|x| !x.same_structure), "a changed group is flagged");
    assert!(!m.is_empty(), "the groups above the change still match by identifier");
}

#[test]
fn similarity_agrees_with_networkx() {
    let Some(py) = std::env::var("WEFT_PYTHON").ok().filter(|p| !p.is_empty()) else {
        eprintln!("SKIPPED similarity_agrees_with_networkx: WEFT_PYTHON is not set (a python with networkx)");
        return;
    };
    let check = Command::new(&py).args(["-c", "import networkx"]).output();
    if !check.is_ok_and(|o| o.status.success()) {
        eprintln!("SKIPPED similarity_agrees_with_networkx: {py} cannot import networkx");
        return;
    }
    let mut graphs = Vec::new();
    let mut ours = Vec::new();
    for bytes in [fib_profile(14, 4, 4), random_profile(600, 3, 8), fib_profile(14, 5, 8)] {
        let a = analyse("x.csv", &bytes);
        let t = Aggregation::new(&a, Method::Reduction).tree;
        for u in (0..t.len() as u32).filter(|&u| !t.is_leaf(u)).take(150) {
            let gg = group_graph(&a.graph, &t, u);
            ours.push(group_hash(&a.graph, &t, u));
            graphs.push(serde_json::json!({ "labels": gg.labels, "edges": gg.edges }));
        }
    }
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/wl_oracle.py");
    let mut child = Command::new(&py)
        .arg(script)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("run python");
    use std::io::Write;
    child.stdin.take().unwrap().write_all(serde_json::to_string(&graphs).unwrap().as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let theirs: Vec<String> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(theirs.len(), ours.len());
    let mut classes = 0;
    for i in 0..ours.len() {
        for j in i + 1..ours.len() {
            assert_eq!(ours[i] == ours[j], theirs[i] == theirs[j], "groups {i} and {j}: weft and networkx disagree");
            classes += (ours[i] == ours[j]) as usize;
        }
    }
    assert!(classes > 0, "no isomorphic pair among the groups: the check says nothing");
    let distinct: std::collections::BTreeSet<&String> = theirs.iter().collect();
    assert!(distinct.len() > 5, "too few distinct structures");
}

#[test]
fn family_method_groups_siblings_and_families() {
    let a = analyse("fib.csv", &fib_profile(12, 3, 4));
    let t = Aggregation::new(&a, Method::Family).tree;
    // fib with cutoff 3: 16 grains; each inner grain is a family of 3 fragments and one sibling group.
    for u in 0..t.len() as u32 {
        match t.kind[u as usize] {
            GroupKind::Sibling => {
                assert!(t
                    .children_of(u)
                    .iter()
                    .all(|&c| matches!(t.kind[c as usize], GroupKind::Family | GroupKind::Leaf)));
                assert_ne!(t.fork[u as usize], NONE);
            }
            GroupKind::Family if u != t.root => {
                let leaves = t.children_of(u).iter().filter(|&&c| t.is_leaf(c)).count();
                assert_eq!(leaves, 3, "a parent's three fragments");
            }
            _ => {}
        }
    }
    assert_eq!(t.kind[t.root as usize], GroupKind::Family);
    assert!(t.node.iter().any(|&v| v != NONE && a.graph.node_kind[v as usize] == NodeKind::Start));
}
