//! Grain graphs: structure against counts computed here from the CSV rows, metrics against the profile's own
//! columns, problem views against the prototype's GraphML `problematic` marks, layout invariants, and
//! hostile GraphML.

use crate::common;

use common::read::read_grains;
use std::collections::{BTreeMap, BTreeSet};
use weft::analyses::grains::{critical_path, from_profile, EdgeKind, GrainAnalysis, GrainGraph, NodeKind, Thresholds};
use weft::layouts::grains::{layout, GrainLayout, LayoutParams};
use weft::model::grains::{GrainProfile, Grains};
use weft::readers::{sniff, Sniffed};
use weft::samples::grains::{fib_profile, random_profile};

/// Rows of a generated CSV, split by hand (the generator's cells hold no commas).
fn rows(csv: &[u8]) -> Vec<BTreeMap<String, String>> {
    let text = String::from_utf8(csv.to_vec()).unwrap();
    let mut lines = text.lines();
    let head: Vec<String> = lines.next().unwrap().split(',').map(|c| c.trim_matches('"').to_string()).collect();
    lines.map(|l| head.iter().cloned().zip(l.split(',').map(|c| c.trim_matches('"').to_string())).collect()).collect()
}

/// Expected node and edge counts by kind, from the rows alone: a grain with G join groups has 1 + 2G
/// fragments, G forks and G joins; the implicit root adds one fork and join per group of top-level grains.
fn expected_counts(
    rows: &[BTreeMap<String, String>],
) -> (BTreeMap<&'static str, usize>, BTreeMap<&'static str, usize>) {
    let tasks: BTreeSet<&str> = rows.iter().map(|r| r["task"].as_str()).collect();
    let mut groups: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    let mut root_groups = BTreeSet::new();
    for r in rows {
        if tasks.contains(r["parent"].as_str()) {
            groups.entry(r["parent"].as_str()).or_default().insert(r["joins_at"].as_str());
        } else {
            root_groups.insert(r["joins_at"].as_str());
        }
    }
    let g_real: usize = groups.values().map(|s| s.len()).sum();
    let g_root = root_groups.len();
    let grains = rows.len();
    let nodes = BTreeMap::from([
        ("start", 1),
        ("end", 1),
        ("fragment", grains + 2 * g_real),
        ("fork", g_real + g_root),
        ("join", g_real + g_root),
    ]);
    let edges = BTreeMap::from([
        ("create", grains),
        ("scope", 2 * g_real + 1),
        ("sync", g_real + grains),
        ("continue", g_real + g_root),
    ]);
    (nodes, edges)
}

fn counts(g: &GrainGraph) -> (BTreeMap<&'static str, usize>, BTreeMap<&'static str, usize>) {
    let nodes = [NodeKind::Start, NodeKind::End, NodeKind::Fragment, NodeKind::Fork, NodeKind::Join]
        .into_iter()
        .map(|k| (k.name(), g.count_nodes(k)))
        .collect();
    let edges = EdgeKind::ALL.into_iter().map(|k| (k.name(), g.count_edges(k))).collect();
    (nodes, edges)
}

fn graph_of(csv: &[u8]) -> GrainGraph {
    match read_grains("gen.csv", csv).unwrap() {
        Grains::Profile(p) => from_profile(&p),
        Grains::Graph(_) => panic!("a CSV read as GraphML"),
    }
}

#[test]
fn fib_structure_matches_rows() {
    for cutoff in 0..6 {
        let csv = fib_profile(20, cutoff, 4);
        let r = rows(&csv);
        assert_eq!(r.len(), 1 << (cutoff + 1));
        let g = graph_of(&csv);
        assert_eq!(g.grains(), r.len());
        assert_eq!(counts(&g), expected_counts(&r), "cutoff {cutoff}");
        assert!(g.edge_source.iter().zip(&g.edge_target).all(|(s, t)| s < t), "node ids are topological");
    }
    // fib(45) cutoff 2 by hand: root, 7 fib tasks; 4 inner fib tasks + root have one group each.
    let g = graph_of(&fib_profile(45, 2, 4));
    assert_eq!((g.grains(), g.nodes(), g.edges()), (8, 8 + 2 * 4 + 2 * 5 + 2, 8 + 9 + 12 + 5));
}

#[test]
fn random_structure_matches_rows() {
    for seed in 1..6 {
        let csv = random_profile(400, seed, 8);
        let r = rows(&csv);
        let g = graph_of(&csv);
        assert_eq!(counts(&g), expected_counts(&r), "seed {seed}");
        let n = g.nodes();
        assert!((380..=480).contains(&n), "about 400 nodes: {n}");
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

/// Derived metrics computed by weft equal the columns MIR's post-processing wrote.
#[test]
fn metrics_match_profile_columns() {
    let Some(dir) = common::shared_traces("metrics_match_profile_columns") else {
        return;
    };
    for (file, scatter) in [
        ("grain-graphs/anamud-test-data/fib/task-stats.merged", true),
        ("grain-graphs/anamud-test-data/for-loop/task-stats.merged", false),
        ("grain-graphs/anamud-prototype-test/task-stats.processed", true),
    ] {
        let path = dir.join(file);
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(sniff(&bytes), Sniffed::MirTaskStats, "{file}");
        let Grains::Profile(p) = read_grains(file, &bytes).unwrap() else { panic!() };
        let a = GrainAnalysis::new(&Grains::Profile(p.clone()), Thresholds::prototype()).unwrap();
        let m = &a.metrics;
        let mut checked = 0;
        for (name, ours) in [
            ("work_cycles", &m.work),
            ("parallel_benefit", &m.parallel_benefit),
            ("sibling_work_balance", &m.sibling_work_balance),
            ("sibling_scatter", &m.sibling_scatter),
            ("mem_hier_util", &m.mem_hier_util),
        ] {
            if name == "sibling_scatter" && !scatter {
                continue;
            }
            let col = match name {
                "work_cycles" => p.work.as_deref(),
                "mem_hier_util" => p.mem_hier_util.as_deref(),
                _ => p.counter(name),
            };
            let Some(col) = col else { continue };
            for i in 0..p.len() {
                match (col[i], ours[i]) {
                    (Some(x), Some(y)) => {
                        assert!(close(x, y), "{file} row {i} {name}: file {x}, weft {y}")
                    }
                    (None, None) => {}
                    (x, y) => panic!("{file} row {i} {name}: file {x:?}, weft {y:?}"),
                }
                checked += 1;
            }
        }
        assert!(checked >= 3 * p.len(), "{file}: {checked} values checked");
    }
}

/// The prototype's GraphML, read back: the `problematic` marks of each diagnosis view equal weft's problem
/// view under the prototype's thresholds, both from the GraphML's attributes and from the CSV the prototype
/// built it from; spans equal the prototype's; instantaneous parallelism equals its contribution CSV.
#[test]
fn prototype_problem_views_agree() {
    let Some(dir) = common::shared_traces("prototype_problem_views_agree") else {
        return;
    };
    let dir = dir.join("grain-graphs/anamud-prototype-test");
    let read = |f: &str| {
        let bytes = std::fs::read(dir.join(f)).unwrap();
        read_grains(f, &bytes).unwrap()
    };
    let from_csv = GrainAnalysis::new(&read("task-stats.processed"), Thresholds::prototype()).unwrap();
    assert_eq!(from_csv.critical.length, 30496, "span of the unreduced graph");
    let reduced = GrainAnalysis::new(&read("grain-graph.graphml"), Thresholds::prototype()).unwrap();
    assert_eq!(reduced.critical.length, 39142, "grain-graph.info: Span (critical path) = 39142");
    assert_eq!((reduced.graph.nodes(), reduced.graph.edges(), reduced.graph.grains()), (16, 17, 6));
    let mut views = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        let Some(metric) = name.strip_prefix("grain-graph-diagnosis-").and_then(|s| s.strip_suffix("-problem.graphml"))
        else {
            continue;
        };
        let Grains::Graph(x) = read(&name) else { panic!() };
        let from_gml = GrainAnalysis::new(&Grains::Graph(x.clone()), Thresholds::prototype()).unwrap();

        let csv_task: BTreeMap<u64, usize> =
            from_csv.graph.grain_task.iter().enumerate().map(|(i, &t)| (t, i)).collect();
        for (a, label) in [(&from_gml, "graphml"), (&from_csv, "csv")] {
            let view = a.problem(metric).unwrap_or_else(|| panic!("weft has no metric {metric}"));
            for v in 0..x.nodes() {
                let Some(task) = x.values.get(v, "task") else {
                    continue;
                };
                let marked = x.values.get(v, "problematic").unwrap() == 1.0;
                let gi = if label == "csv" {
                    csv_task[&(task as u64)]
                } else {
                    a.graph.grain_task.iter().position(|&t| t == task as u64).unwrap()
                };
                assert_eq!(view.problematic[gi], marked, "{name}: node {} ({label})", x.name[v]);
            }
        }
        views += 1;
    }
    assert_eq!(views, 6);
    // Instantaneous parallelism per task, as the prototype's contribution CSV has it.
    let text = std::fs::read_to_string(dir.join("grain-graph-instantaneous-parallelism-contribution.csv")).unwrap();
    for line in text.lines().skip(1) {
        let c: Vec<f64> = line.split(',').map(|x| x.parse().unwrap()).collect();
        let gi = from_csv.graph.grain_task.iter().position(|&t| t == c[0] as u64).unwrap();
        let m = &from_csv.metrics;
        assert_eq!(
            (m.inst_par_median[gi], m.inst_par_min[gi], m.inst_par_max[gi]),
            (Some(c[1]), Some(c[2]), Some(c[3])),
            "task {}",
            c[0]
        );
    }
}

#[test]
fn fib45_real_profile() {
    let Some(dir) = common::shared_traces("fib45_real_profile") else {
        return;
    };
    let bytes = std::fs::read(dir.join("grain-graphs/anamud-test-data/fib/task-stats.merged")).unwrap();
    let input = read_grains("fib", &bytes).unwrap();
    let a = GrainAnalysis::new(&input, Thresholds::paper()).unwrap();
    assert_eq!(a.graph.grains(), 8192);
    assert_eq!(a.cores, 48);
    let Grains::Profile(p) = &input else { panic!() };
    let (nodes, edges) = expected_counts(&profile_rows(p));
    assert_eq!(counts(&a.graph), (nodes, edges));
    // Parallel benefit below 1 for exactly the rows whose own column says so.
    let col = p.counter("parallel_benefit").unwrap();
    assert_eq!(a.problem("parallel_benefit").unwrap().count, col.iter().filter(|v| v.is_some_and(|v| v < 1.0)).count());
    // The critical path runs from the start node to the end node and its length is the end's distance.
    let cp = critical_path(&a.graph);
    assert_eq!(cp.nodes.first(), Some(&0));
    assert_eq!(*cp.nodes.last().unwrap() as usize, a.graph.nodes() - 1);
    assert_eq!(cp.length, cp.root_dist[a.graph.nodes() - 1]);
}

fn profile_rows(p: &GrainProfile) -> Vec<BTreeMap<String, String>> {
    (0..p.len())
        .map(|i| {
            BTreeMap::from([
                ("task".into(), p.task[i].to_string()),
                ("parent".into(), p.parent[i].to_string()),
                ("joins_at".into(), p.joins_at[i].to_string()),
            ])
        })
        .collect()
}

// ---- Layout invariants ----

fn boxes_overlap(l: &GrainLayout, a: usize, b: usize) -> bool {
    let eps = 1e-3;
    l.x[a] + l.w[a] > l.x[b] + eps
        && l.x[b] + l.w[b] > l.x[a] + eps
        && l.y[a] + l.h[a] > l.y[b] + eps
        && l.y[b] + l.h[b] > l.y[a] + eps
}

/// Proper crossings between edge segments (segments sharing an endpoint do not count).
fn crossings(l: &GrainLayout, edges: usize) -> usize {
    let mut segs = Vec::new();
    for e in 0..edges {
        for w in l.edge_points(e).windows(2) {
            segs.push((e, w[0], w[1]));
        }
    }
    let orient = |a: [f32; 2], b: [f32; 2], c: [f32; 2]| {
        let v = (b[0] - a[0]) as f64 * (c[1] - a[1]) as f64 - (b[1] - a[1]) as f64 * (c[0] - a[0]) as f64;
        if v.abs() < 1e-6 {
            0
        } else if v > 0.0 {
            1
        } else {
            -1
        }
    };
    let same = |a: [f32; 2], b: [f32; 2]| (a[0] - b[0]).abs() < 1e-4 && (a[1] - b[1]).abs() < 1e-4;
    let mut n = 0;
    for i in 0..segs.len() {
        for j in i + 1..segs.len() {
            let (e1, p1, p2) = segs[i];
            let (e2, q1, q2) = segs[j];
            if e1 == e2 || same(p1, q1) || same(p1, q2) || same(p2, q1) || same(p2, q2) {
                continue;
            }
            let (o1, o2, o3, o4) = (orient(p1, p2, q1), orient(p1, p2, q2), orient(q1, q2, p1), orient(q1, q2, p2));
            if o1 * o2 < 0 && o3 * o4 < 0 {
                n += 1;
            }
        }
    }
    n
}

fn check_layout(g: &GrainGraph, l: &GrainLayout, crossing_free: bool) {
    let n = g.nodes();
    for e in 0..g.edges() {
        let pts = l.edge_points(e);
        assert!(pts.windows(2).all(|w| w[1][1] >= w[0][1] - 1e-3), "edge {e} goes up");
        let (s, t) = (g.edge_source[e] as usize, g.edge_target[e] as usize);
        assert!(l.y[t] >= l.y[s] + l.h[s] - 1e-3, "edge {e}: target above source's bottom");
    }
    // No two nodes overlap (a fortiori none within a layer).
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| l.y[a].total_cmp(&l.y[b]));
    for i in 0..n {
        for &j in &order[i + 1..] {
            if l.y[j] >= l.y[order[i]] + l.h[order[i]] {
                break;
            }
            assert!(!boxes_overlap(l, order[i], j), "nodes {} and {j} overlap", order[i]);
        }
    }
    if crossing_free {
        assert_eq!(crossings(l, g.edges()), 0);
    }
}

#[test]
fn nested_layout_invariants() {
    let p = LayoutParams::default();
    for (i, csv) in
        [fib_profile(20, 3, 4), fib_profile(30, 5, 8), random_profile(300, 7, 4), random_profile(600, 11, 16)]
            .iter()
            .enumerate()
    {
        let g = graph_of(csv);
        let l = layout(&g, &p);
        assert!(l.from_nesting);
        check_layout(&g, &l, true);
        let again = layout(&g, &p);
        assert_eq!((&l.x, &l.y, &l.points), (&again.x, &again.y, &again.points), "deterministic ({i})");
        // Fragment height grows with execution time.
        let frag: Vec<usize> = (0..g.nodes()).filter(|&v| g.node_kind[v] == NodeKind::Fragment).collect();
        for w in frag.windows(2) {
            let (a, b) = (w[0], w[1]);
            if g.node_exec[a] < g.node_exec[b] {
                assert!(l.h[a] <= l.h[b]);
            }
        }
    }
}

#[test]
fn layered_fallback_on_generated_graphs() {
    // The general layered layout on profile graphs, as if their nesting were unknown.
    for seed in [2, 5] {
        let mut g = graph_of(&random_profile(300, seed, 4));
        g.nested = false;
        let l = layout(&g, &LayoutParams::default());
        assert!(!l.from_nesting);
        // Barycenter sweeps untangle these fork-join graphs completely, and edges keep to their layer bands,
        // so the drawing has no crossings either.
        check_layout(&g, &l, true);
    }
}

#[test]
fn layered_layout_invariants() {
    // A GraphML graph has no nesting: the general layered layout draws it.
    let Some(dir) = common::shared_traces("layered_layout_invariants") else {
        return;
    };
    for f in ["grain-graph.graphml", "grain-graph-diagnosis-instantaneous_parallelism_max-problem.graphml"] {
        let bytes = std::fs::read(dir.join("grain-graphs/anamud-prototype-test").join(f)).unwrap();
        let a = GrainAnalysis::new(&read_grains(f, &bytes).unwrap(), Thresholds::prototype()).unwrap();
        let l = layout(&a.graph, &LayoutParams::default());
        assert!(!l.from_nesting);
        check_layout(&a.graph, &l, true);
        let again = layout(&a.graph, &LayoutParams::default());
        assert_eq!((&l.x, &l.y), (&again.x, &again.y));
    }
}

// ---- Scene ----

#[test]
fn scene_views_colour_by_problem_and_cull() {
    use weft::scene::grains::{build, severity_color, ColorBy, View, Viewport, DIMMED};
    use weft::scene::palette::CRITICAL;
    let csv = random_profile(500, 3, 8);
    let a = GrainAnalysis::new(&read_grains("gen.csv", &csv).unwrap(), Thresholds::paper()).unwrap();
    let l = layout(&a.graph, &LayoutParams::default());
    let vp = Viewport::fit(&l, 800.0, 600.0);
    let s = build(&a, &l, &vp, View::Structure(ColorBy::OutlineFunction));
    assert_eq!(s.rects.len(), a.graph.nodes(), "the fitted view shows every node");
    assert!(s.lines.iter().any(|x| x.color == CRITICAL));
    let crit_segments: usize =
        (0..a.graph.edges()).filter(|&e| a.critical.on_edge[e]).map(|e| l.edge_points(e).len() - 1).sum();
    assert_eq!(s.lines.iter().filter(|x| x.color == CRITICAL).count(), crit_segments);
    // Fragments of one outline function share a colour.
    let view = a.problem("parallel_benefit").unwrap();
    assert!(view.count > 0 && view.count < a.graph.grains());
    let p = build(&a, &l, &vp, View::Problem(view));
    for v in 0..a.graph.nodes() {
        if a.graph.node_kind[v] != NodeKind::Fragment {
            continue;
        }
        let gi = a.graph.node_grain[v] as usize;
        let want = if view.problematic[gi] { severity_color(view.severity[gi]) } else { DIMMED };
        assert_eq!(p.rects[v].fill, want, "node {v}");
    }
    // A viewport on the top-left corner culls most of the graph.
    let zoom = Viewport { x0: 0.0, y0: 0.0, scale: vp.scale * 20.0, width_px: 800.0, height_px: 600.0 };
    let z = build(&a, &l, &zoom, View::Structure(ColorBy::SourceLine));
    assert!(!z.rects.is_empty() && z.rects.len() < a.graph.nodes() / 4, "{} of {}", z.rects.len(), a.graph.nodes());
}

#[test]
fn work_deviation_from_a_single_threaded_run() {
    use weft::analyses::grains::{critical_path, metrics};
    let par = fib_profile(25, 4, 8);
    let Grains::Profile(p) = read_grains("par.csv", &par).unwrap() else { panic!() };
    let g = from_profile(&p);
    let mut m = metrics::from_profile(&g, &p, &critical_path(&g));
    assert!(m.work_deviation.iter().all(Option::is_none), "the generated profile has no work_deviation column");
    // The same program run single-threaded, where each leaf did half the work it did in parallel.
    let single: String = String::from_utf8(par.clone())
        .unwrap()
        .lines()
        .enumerate()
        .map(|(i, l)| {
            let mut c: Vec<String> = l.split(',').map(str::to_string).collect();
            if i > 0 && c[6] == "0" {
                c[7] = (c[7].parse::<u64>().unwrap() / 2).to_string();
            }
            c.join(",") + "\n"
        })
        .collect();
    let Grains::Profile(s) = read_grains("single.csv", single.as_bytes()).unwrap() else { panic!() };
    metrics::with_single_threaded(&mut m, &g, &s);
    for gi in 0..g.grains() {
        let leaf = g.group_range(gi).is_empty();
        let w = m.work[gi].unwrap();
        let want = if leaf { w / (g.grain_exec[gi] / 2) as f64 } else { 1.0 };
        assert_eq!(m.work_deviation[gi], Some(want), "grain {gi}");
    }
    let a = GrainAnalysis::assemble(g, critical_path(&from_profile(&p)), m, Thresholds::paper());
    assert_eq!(a.problem("work_deviation").unwrap().count, 0);
}

#[test]
fn problem_table_properties_search_and_hit_test() {
    use weft::analyses::grains::query::{grain_properties, problem_table, search};
    use weft::layouts::grains::node_at;
    let csv = random_profile(400, 9, 8);
    let a = GrainAnalysis::new(&read_grains("gen.csv", &csv).unwrap(), Thresholds::paper()).unwrap();
    let table = problem_table(&a, "parallel_benefit").unwrap();
    assert_eq!(table.len(), a.problem("parallel_benefit").unwrap().count);
    assert!(table.windows(2).all(|w| w[0].severity >= w[1].severity));
    assert!(table.iter().all(|r| r.value < 1.0));
    assert!(problem_table(&a, "no_such_metric").is_none());
    let props = grain_properties(&a, 0);
    assert_eq!(props[0], ("task", a.graph.grain_task[0].to_string()));
    assert!(props.iter().any(|(k, _)| *k == "parallel_benefit"));
    // Search: by task id, by source line (the generator uses four), by outline function.
    assert_eq!(search(&a, &a.graph.grain_task[5].to_string()), vec![5]);
    let by_line = search(&a, "PROG.C:42");
    assert!(
        !by_line.is_empty() && by_line.iter().all(|&g| a.graph.string(a.graph.grain_source[g as usize]) == "prog.c:42")
    );
    assert!(search(&a, "   ").is_empty());
    // Clicking the centre of a node finds it.
    let l = layout(&a.graph, &LayoutParams::default());
    for v in (0..a.graph.nodes()).step_by(7) {
        assert_eq!(node_at(&l, l.x[v] + l.w[v] / 2.0, l.y[v] + l.h[v] / 2.0), Some(v as u32));
    }
    assert_eq!(node_at(&l, -100.0, -100.0), None);
}

#[test]
fn thresholds_switch_and_cores_rule() {
    let csv = random_profile(300, 4, 6);
    let mut a = GrainAnalysis::new(&read_grains("gen.csv", &csv).unwrap(), Thresholds::paper()).unwrap();
    let max_cpu = a.graph.grain_cpu.iter().copied().max().unwrap();
    assert_eq!(a.cores, max_cpu + 1, "paper: cores = max cpu_id + 1");
    let paper_balance = a.problem("sibling_work_balance").unwrap().count;
    a.set_thresholds(Thresholds::prototype());
    let distinct: BTreeSet<u32> = a.graph.grain_cpu.iter().copied().collect();
    assert_eq!(a.cores as usize, distinct.len(), "prototype: distinct cpu ids");
    assert!(a.problem("sibling_work_balance").unwrap().count <= paper_balance, "> 2 flags no more than > 1");
    let given = Thresholds { cores: Some(1000), ..Thresholds::paper() };
    a.set_thresholds(given);
    assert_eq!(a.cores, 1000);
    let inst = a.problem("instantaneous_parallelism_max").unwrap();
    let measured = a.metrics.inst_par_max.iter().filter(|v| v.is_some()).count();
    assert_eq!(inst.count, measured, "nothing reaches 1000-way parallelism");
}

/// Layering: the analyses read the model, never a reader (the grain model stands between them).
#[test]
fn analyses_use_no_reader() {
    fn walk(dir: &std::path::Path, found: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).expect("crates/analyses/src") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                walk(&path, found);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).expect("source");
                for (i, line) in text.lines().enumerate() {
                    if line.contains("crate::readers") || line.contains("weft_readers") {
                        found.push(format!("{}:{}: {}", path.display(), i + 1, line.trim()));
                    }
                }
            }
        }
    }
    let mut found = Vec::new();
    walk(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/analyses/src"), &mut found);
    assert!(found.is_empty(), "analyses reaching into readers:\n{}", found.join("\n"));
}
