//! GraphML export (`export::graphml`): the grain graph written for yEd re-opens in weft with the same nodes,
//! edges and metrics; the aggregated graph's nested groups flatten back to the same grain graph; the
//! prototype's nested aggregated GraphML loads.

use crate::common;

use crate::common::TempDir;
use common::read::read_grains;
use std::collections::{BTreeMap, BTreeSet};
use weft::analyses::aggregate::{Aggregation, Method};
use weft::analyses::grains::{GrainAnalysis, Thresholds, METRICS, NONE};
use weft::export::graphml;
use weft::readers::graphml::read;
use weft::samples::grains::fib_profile;

type NodeRow = (String, u64, Option<u64>);
type Shape = (BTreeMap<String, NodeRow>, BTreeSet<(String, String, String)>);

/// Nodes by name (kind, exec, a fragment's grain's task), edges by names and kind, per task id every metric's value.
fn shape(a: &GrainAnalysis) -> Shape {
    let g = &a.graph;
    let name = |v: u32| g.node_name(v);
    let nodes = (0..g.nodes() as u32)
        .map(|v| {
            let gi = g.node_grain[v as usize];
            // A fork's or join's owning grain is the profile's structure, not carried by GraphML nodes.
            let work = g.node_kind[v as usize].holds_work();
            let task = (gi != NONE && work).then(|| g.grain_task[gi as usize]);
            (name(v), (g.node_kind[v as usize].name().to_string(), g.node_exec[v as usize], task))
        })
        .collect();
    let edges = (0..g.edges())
        .map(|e| (name(g.edge_source[e]), name(g.edge_target[e]), g.edge_kind[e].name().to_string()))
        .collect();
    (nodes, edges)
}

/// Per task id: cpu, parent task, function, source, and every metric column and problem flag.
fn grain_table(a: &GrainAnalysis) -> BTreeMap<u64, String> {
    let g = &a.graph;
    let m = &a.metrics;
    (0..g.grains())
        .map(|gi| {
            let p = g.grain_parent[gi];
            let parent = (p != NONE).then(|| g.grain_task[p as usize]);
            let cols = [
                &m.creation,
                &m.overhead,
                &m.work,
                &m.parallel_benefit,
                &m.work_deviation,
                &m.mem_hier_util,
                &m.sibling_work_balance,
                &m.sibling_scatter,
                &m.inst_par_median,
                &m.inst_par_min,
                &m.inst_par_max,
            ];
            let values: Vec<Option<f64>> = cols.iter().map(|c| c[gi]).collect();
            let flags: Vec<bool> = a.problems.iter().map(|p| p.problematic[gi]).collect();
            let row = format!(
                "cpu {} parent {parent:?} exec {} fn {:?} src {:?} {values:?} {flags:?}",
                g.grain_cpu[gi],
                g.grain_exec[gi],
                g.string(g.grain_outline[gi]),
                g.string(g.grain_source[gi])
            );
            (g.grain_task[gi], row)
        })
        .collect()
}

/// Equal maps, or the first key that differs (the maps are large).
fn same_map<K: Ord + std::fmt::Debug, V: PartialEq + std::fmt::Debug>(
    name: &str,
    what: &str,
    a: &BTreeMap<K, V>,
    b: &BTreeMap<K, V>,
) {
    for (k, v) in a {
        assert_eq!(Some(v), b.get(k), "{name}: {what}: {k:?}");
    }
    assert_eq!(a.len(), b.len(), "{name}: {what}: count");
}

fn round_trip(name: &str, a: &GrainAnalysis) -> GrainAnalysis {
    let text = graphml::grain_graph(a);
    let back = read_grains(name, text.as_bytes()).unwrap_or_else(|e| panic!("{name}: {e}"));
    GrainAnalysis::new(&back, a.thresholds.clone()).unwrap()
}

fn assert_same(name: &str, a: &GrainAnalysis, b: &GrainAnalysis) {
    assert_eq!(
        (a.graph.nodes(), a.graph.edges(), a.graph.grains()),
        (b.graph.nodes(), b.graph.edges(), b.graph.grains()),
        "{name}"
    );
    assert_eq!(a.graph.unit, b.graph.unit, "{name}: unit");
    let (an, ae) = shape(a);
    let (bn, be) = shape(b);
    same_map(name, "nodes", &an, &bn);
    let (only_a, only_b): (Vec<_>, Vec<_>) =
        (ae.difference(&be).take(3).collect(), be.difference(&ae).take(3).collect());
    assert!(only_a.is_empty() && only_b.is_empty(), "{name}: edges only before {only_a:?}, only after {only_b:?}");
    same_map(name, "grains", &grain_table(a), &grain_table(b));
    assert_eq!(a.critical.length, b.critical.length, "{name}: span");
    assert_eq!(a.cores, b.cores, "{name}: cores");
    let counts = |x: &GrainAnalysis| x.problems.iter().map(|p| p.count).collect::<Vec<_>>();
    assert_eq!(counts(a), counts(b), "{name}: problem counts");
}

#[test]
fn exported_grain_graph_reopens_with_same_nodes_edges_metrics() {
    let bytes = fib_profile(14, 6, 8);
    let a = GrainAnalysis::new(&read_grains("fib.csv", &bytes).unwrap(), Thresholds::paper()).unwrap();
    assert!(a.problems.iter().any(|p| p.count > 0), "some grain is problematic, so flags are compared");
    let b = round_trip("fib.graphml", &a);
    assert_same("fib", &a, &b);
    // And again, from the re-opened graph.
    let c = round_trip("fib2.graphml", &b);
    assert_same("fib, twice", &b, &c);
}

#[test]
fn exported_real_profiles_reopen() {
    let Some(dir) = common::shared_traces("exported_real_profiles_reopen") else {
        return;
    };
    for f in [
        "grain-graphs/anamud-test-data/fib/task-stats.merged",
        "grain-graphs/anamud-prototype-test/task-stats.processed",
        "grain-graphs/anamud-prototype-test/grain-graph.graphml",
    ] {
        let bytes = std::fs::read(dir.join(f)).unwrap();
        let a = GrainAnalysis::new(&read_grains(f, &bytes).unwrap(), Thresholds::prototype()).unwrap();
        let b = round_trip(f, &a);
        assert_same(f, &a, &b);
    }
}

#[test]
fn yed_graphics_and_unit_are_read_as_such() {
    let bytes = fib_profile(8, 4, 4);
    let a = GrainAnalysis::new(&read_grains("fib.csv", &bytes).unwrap(), Thresholds::paper()).unwrap();
    let text = graphml::grain_graph(&a);
    assert!(text.contains("yfiles.type=\"nodegraphics\"") && text.contains("<y:ShapeNode>"), "yEd draws it");
    let g = read("x.graphml", text.as_bytes()).unwrap();
    assert!(g.nodes.key_of("d_graphics").is_none(), "graphics markup is not an attribute");
    assert_eq!(g.graph_data, vec![("time_unit".to_string(), "cycles".to_string())]);
    assert_eq!(g.groups, 0);
}

#[test]
fn aggregated_export_nests_groups_and_flattens_back() {
    let bytes = fib_profile(12, 5, 8);
    let a = GrainAnalysis::new(&read_grains("fib.csv", &bytes).unwrap(), Thresholds::paper()).unwrap();
    for method in [Method::Reduction, Method::Family] {
        let agg = Aggregation::new(&a, method);
        let text = graphml::aggregated(&a, &agg);
        assert_eq!(text.matches("yfiles.foldertype=\"group\"").count(), agg.tree.groups(), "{method:?}");
        // Every grain-graph node once.
        assert_eq!(text.matches("<node id=\"n").count(), a.graph.nodes(), "{method:?}");
        let g = read("agg.graphml", text.as_bytes()).unwrap();
        assert_eq!(g.groups, agg.tree.groups());
        assert_eq!(g.node_ids.len(), a.graph.nodes());
        let b =
            GrainAnalysis::new(&read_grains("agg.graphml", text.as_bytes()).unwrap(), a.thresholds.clone()).unwrap();
        assert_same("aggregated", &a, &b);
        // It aggregates again into as many groups.
        assert_eq!(Aggregation::new(&b, method).tree.groups(), agg.tree.groups(), "{method:?}");
    }
}

/// The prototype's task-graph-aggregated.graphml: groups as yEd folders holding nested graphs, a node
/// repeated in two groups. It loads as the grain graph it aggregates (grain-graph.graphml: 16 nodes,
/// 17 edges, span 39,142 cycles) and aggregates.
#[test]
fn prototype_nested_aggregated_graphml_loads() {
    let Some(dir) = common::shared_traces("prototype_nested_aggregated_graphml_loads") else {
        return;
    };
    let dir = dir.join("grain-graphs/anamud-prototype-test");
    let bytes = std::fs::read(dir.join("task-graph-aggregated.graphml")).unwrap();
    let g = read("task-graph-aggregated.graphml", &bytes).unwrap();
    assert_eq!(g.groups, 7, "g7..g13");
    let a = GrainAnalysis::new(&read_grains("t", &bytes).unwrap(), Thresholds::prototype()).unwrap();
    let flat = std::fs::read(dir.join("grain-graph.graphml")).unwrap();
    let f = GrainAnalysis::new(&read_grains("f", &flat).unwrap(), Thresholds::prototype()).unwrap();
    assert_eq!((a.graph.nodes(), a.graph.edges()), (16, 17));
    assert_eq!(a.critical.length, 39142);
    assert_eq!(shape(&a), shape(&f), "the same graph as grain-graph.graphml");
    let agg = Aggregation::new(&a, Method::Reduction);
    assert!(agg.tree.groups() > 0);
    for m in METRICS {
        assert!(a.problem(m).is_some());
    }
}

#[test]
fn nested_documents_refuse_edges_to_groups_and_flat_ones_duplicates() {
    let doc = r#"<graphml xmlns="http://graphml.graphdrawing.org/xmlns"><graph edgedefault="directed">
      <node id="g" yfiles.foldertype="group"><graph id="g:"><node id="a"/><node id="b"/></graph></node>
      <edge source="a" target="g"/></graph></graphml>"#;
    let e = read("x", doc.as_bytes()).unwrap_err().to_string();
    assert!(e.contains("names group \"g\""), "{e}");
    let flat = r#"<graphml><graph edgedefault="directed"><node id="a"/><node id="a"/></graph></graphml>"#;
    assert!(read("x", flat.as_bytes()).unwrap_err().to_string().contains("duplicate node id"));
    let two = r#"<graphml><graph edgedefault="directed"><node id="a"/></graph><graph/></graphml>"#;
    assert!(read("x", two.as_bytes()).unwrap_err().to_string().contains("multiple top-level"));
}

/// networkx (an independent GraphML reader, which also reads yEd's node graphics) reads both exports: the
/// same nodes with their types and metrics, the same edges; the aggregated file's groups as nodes of their own.
#[test]
fn networkx_reads_the_exports() {
    let Some(py) = std::env::var("WEFT_PYTHON").ok().filter(|p| !p.is_empty()) else {
        eprintln!("SKIPPED networkx_reads_the_exports: WEFT_PYTHON is not set (a python with networkx)");
        return;
    };
    let check = std::process::Command::new(&py).args(["-c", "import networkx"]).output();
    if !check.is_ok_and(|o| o.status.success()) {
        eprintln!("SKIPPED networkx_reads_the_exports: {py} cannot import networkx");
        return;
    }
    let bytes = fib_profile(10, 4, 4);
    let a = GrainAnalysis::new(&read_grains("fib.csv", &bytes).unwrap(), Thresholds::paper()).unwrap();
    let agg = Aggregation::new(&a, Method::Reduction);
    let dir = TempDir::new("graphml");
    let (flat, nested) = (dir.join("g.graphml"), dir.join("a.graphml"));
    std::fs::write(&flat, graphml::grain_graph(&a)).unwrap();
    std::fs::write(&nested, graphml::aggregated(&a, &agg)).unwrap();
    let script = "import networkx as nx, sys, json\n\
        out = []\n\
        for f in sys.argv[1:]:\n\
        \x20   g = nx.read_graphml(f)\n\
        \x20   types = sorted(d.get('type', 'group') for _, d in g.nodes(data=True))\n\
        \x20   work = sum(d.get('work_cycles', 0) for _, d in g.nodes(data=True) if d.get('type') == 'fragment')\n\
        \x20   out.append([g.number_of_nodes(), g.number_of_edges(), types.count('fork'), types.count('group'), work, g.nodes['n0'].get('label')])\n\
        print(json.dumps(out))\n";
    let o = std::process::Command::new(&py).arg("-c").arg(script).arg(&flat).arg(&nested).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let g = &a.graph;
    let forks = g.count_nodes(weft::analyses::grains::NodeKind::Fork);
    // Work summed over fragments, each fragment carrying its grain's work.
    let work: f64 = (0..g.nodes())
        .filter(|&v| g.node_kind[v] == weft::analyses::grains::NodeKind::Fragment)
        .filter_map(|v| a.metrics.work[g.node_grain[v] as usize])
        .sum();
    for (i, groups) in [(0, 0), (1, agg.tree.groups())] {
        let r = &v[i];
        assert_eq!(r[0].as_u64().unwrap() as usize, g.nodes() + groups, "{i}: nodes");
        assert_eq!(r[1].as_u64().unwrap() as usize, g.edges(), "{i}: edges");
        assert_eq!(r[2].as_u64().unwrap() as usize, forks, "{i}: forks");
        assert_eq!(r[3].as_u64().unwrap() as usize, groups, "{i}: groups");
        assert!((r[4].as_f64().unwrap() - work).abs() <= 1e-6 * work.max(1.0), "{i}: work {r}");
        assert_eq!(r[5].as_str(), Some(g.node_name(0).as_str()), "{i}: yEd label");
    }
}

/// The page's download writes a piece at a time (`graphml::Writer`): the pieces joined are the whole document,
/// whatever the step size, and each step writes about as many nodes, groups and edges as it is asked for.
#[test]
fn written_in_steps_is_the_same_document() {
    let bytes = fib_profile(12, 5, 8);
    let a = GrainAnalysis::new(&read_grains("fib.csv", &bytes).unwrap(), Thresholds::paper()).unwrap();
    let agg = Aggregation::new(&a, Method::Reduction);
    let (tree, metrics) = agg.separated(&a, 0);
    let whole = [
        ("grain graph", graphml::grain_graph(&a), None),
        ("aggregated", graphml::aggregated(&a, &agg), Some((&agg.tree, &agg.metrics))),
        ("separated", graphml::Writer::aggregated(&tree).finish(&a, Some((&tree, &metrics))), Some((&tree, &metrics))),
    ];
    for (name, text, groups) in whole {
        assert!(text.ends_with("</graphml>\n") && text.len() > 10_000, "{name}");
        for items in [1usize, 7, 500, usize::MAX] {
            let mut w = match groups {
                None => graphml::Writer::grain_graph(),
                Some((t, _)) => graphml::Writer::aggregated(t),
            };
            let (mut out, mut steps) = (String::new(), 0usize);
            while !w.done() {
                let mut piece = String::new();
                w.step(&mut piece, &a, groups, items);
                let written = piece.matches("<node ").count() + piece.matches("<edge ").count();
                assert!(written <= items.max(1), "{name}: a step of {items} wrote {written}");
                out.push_str(&piece);
                steps += 1;
                assert!(steps <= 4 * (a.graph.nodes() + a.graph.edges()) + 4, "{name}: the writer ends");
            }
            assert_eq!(out, text, "{name}: steps of {items}");
        }
    }
}
