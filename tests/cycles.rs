//! Cycles in "DAG" inputs are refused with the nodes of one cycle named (GraphML, the execution-graph text),
//! or cut and reported as warnings naming the tasks where the input is drawn anyway (MIR parents); and petgraph's visitor traits on the grain graph and
//! the execution graph (analyses/*/visit.rs) agree with their CSR and implicit adjacency.

use crate::common;
use petgraph::visit::{
    Dfs, EdgeRef, IntoEdgeReferences, IntoEdges, IntoNeighbors, IntoNeighborsDirected, IntoNodeIdentifiers, NodeCount,
    NodeIndexable, Walker,
};
use petgraph::Direction::{Incoming, Outgoing};
use weft::analyses::cycles::{cycle_through, find_cycle, toposort_or_cycle};
use weft::analyses::execgraph::visit::ExecEdge;
use weft::analyses::execgraph::{build, ExecGraph, GraphError};
use weft::analyses::grains::{from_profile, GrainAnalysis, GrainGraph, Thresholds};

use common::read::read_grains;
use weft::model::grains::Grains as GrainInput;
use weft::readers::execgraph_text;
use weft::samples::execgraph::{random, sample, simulate, SAMPLES};
use weft::samples::grains::{fib_profile, random_profile};

const HEAD: &str = "<?xml version=\"1.0\"?>\n<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\"><key id=\"t\" for=\"node\" attr.name=\"type\" attr.type=\"string\"/><graph edgedefault=\"directed\">";

fn graphml_error(name: &str, body: &str) -> String {
    let doc = format!("{HEAD}{body}</graph></graphml>");
    let input = read_grains(name, doc.as_bytes()).expect("reads as GraphML");
    assert!(matches!(input, GrainInput::Graph(_)), "{name} read as a profile");
    GrainAnalysis::new(&input, Thresholds::paper()).map(|_| ()).expect_err("a cycle is refused").to_string()
}

fn nodes(ids: &[&str]) -> String {
    ids.iter().map(|i| format!("<node id=\"{i}\"><data key=\"t\">task</data></node>")).collect()
}

fn edges(pairs: &[(&str, &str)]) -> String {
    pairs.iter().map(|(a, b)| format!("<edge source=\"{a}\" target=\"{b}\"/>")).collect()
}

#[test]
fn graphml_cycle_names_the_file_and_the_cycle() {
    // a -> task12 -> task40 -> task12, and an edge off the cycle (task40 -> z): only the cycle is named.
    let body = nodes(&["a", "task12", "task40", "z"])
        + &edges(&[("a", "task12"), ("task12", "task40"), ("task40", "task12"), ("task40", "z")]);
    let e = graphml_error("loop.graphml", &body);
    assert!(e.starts_with("loop.graphml: "), "{e}");
    assert!(
        e.contains("cycle: \"task12\" -> \"task40\" -> \"task12\"")
            || e.contains("cycle: \"task40\" -> \"task12\" -> \"task40\""),
        "{e}"
    );
    assert!(!e.contains("\"a\"") && !e.contains("\"z\""), "{e}");
    // A self-loop, and a longer cycle reached from a long chain: the whole cycle, in edge order.
    let e = graphml_error("self.graphml", &(nodes(&["x"]) + &edges(&[("x", "x")])));
    assert!(e.contains("cycle: \"x\" -> \"x\""), "{e}");
    let body = nodes(&["p", "q", "r", "s"]) + &edges(&[("p", "q"), ("q", "r"), ("r", "s"), ("s", "q")]);
    let e = graphml_error("three.graphml", &body);
    let rotations =
        ["\"q\" -> \"r\" -> \"s\" -> \"q\"", "\"r\" -> \"s\" -> \"q\" -> \"r\"", "\"s\" -> \"q\" -> \"r\" -> \"s\""];
    assert!(rotations.iter().any(|r| e.contains(r)), "{e}");
}

#[test]
fn graphml_cycle_at_the_end_of_a_deep_chain_does_not_overflow() {
    // 100,000 nodes in a chain ending in a two-node cycle: only iterative algorithms may look at it.
    let n = 100_000;
    let ids: Vec<String> = (0..n).map(|i| format!("n{i}")).collect();
    let mut body: String = ids.iter().map(|i| format!("<node id=\"{i}\"/>")).collect();
    for w in ids.windows(2) {
        body.push_str(&format!("<edge source=\"{}\" target=\"{}\"/>", w[0], w[1]));
    }
    body.push_str(&format!("<edge source=\"n{}\" target=\"n{}\"/>", n - 1, n - 2));
    let e = graphml_error("deep.graphml", &body);
    let (a, b) = (format!("\"n{}\"", n - 2), format!("\"n{}\"", n - 1));
    assert!(
        e.contains(&format!("cycle: {a} -> {b} -> {a}")) || e.contains(&format!("cycle: {b} -> {a} -> {b}")),
        "{e}"
    );
}

fn exec_error(name: &str, text: &str) -> GraphError {
    let ev = execgraph_text::parse(name, text.as_bytes()).expect("parses");
    build(&ev).expect_err("not a fork/join program")
}

#[test]
fn execgraph_cycle_names_the_file_threads_and_lines() {
    let h = "# weft execgraph 1\n";
    // Threads 12 and 40 wait for each other (lines 4 and 5).
    let e = exec_error(
        "wait.txt",
        &format!("{h}0 0 12 start\n0 0 40 start\n1 0 12 join 40\n1 0 40 join 12\n2 0 12 end\n2 0 40 end\n"),
    );
    let text = e.to_string();
    assert!(matches!(e, GraphError::Cycle { .. }), "{text}");
    assert!(text.starts_with("wait.txt: "), "{text}");
    assert!(
        text.contains("thread 12 -> thread 40 -> thread 12") || text.contains("thread 40 -> thread 12 -> thread 40"),
        "{text}"
    );
    assert!(
        text.contains("line 4: thread 12 joins thread 40") && text.contains("line 5: thread 40 joins thread 12"),
        "{text}"
    );
    // Three threads: 1 forks 2 (line 3), 2 forks 3 (line 6), 3 forks 1 (line 9): a fork cycle.
    let e = exec_error(
        "forks.txt",
        &format!("{h}0 0 1 start\n1 0 1 fork 2\n2 0 1 end\n0 0 2 start\n1 0 2 fork 3\n2 0 2 end\n0 0 3 start\n1 0 3 fork 1\n2 0 3 end\n"),
    );
    let text = e.to_string();
    let rotations = [
        "thread 1 -> thread 2 -> thread 3 -> thread 1",
        "thread 2 -> thread 3 -> thread 1 -> thread 2",
        "thread 3 -> thread 1 -> thread 2 -> thread 3",
    ];
    assert!(rotations.iter().any(|r| text.contains(r)), "{text}");
    for link in
        ["line 3: thread 1 forks thread 2", "line 6: thread 2 forks thread 3", "line 9: thread 3 forks thread 1"]
    {
        assert!(text.contains(link), "{text}");
    }
}

#[test]
fn mir_parent_cycle_is_cut_and_the_graph_is_acyclic() {
    // Tasks 2 and 3 are each other's parent, task 4 its own: drawn (hung off the root), not refused.
    let csv = "task,parent,joins_at,cpu_id,child_number,num_children,exec_cycles,create_instant,wait_instants\n\
               1,0,0,0,1,1,100,0,[0;50]\n2,3,0,0,1,1,50,5,[0;20]\n3,2,0,0,1,1,50,5,[0;20]\n4,4,0,0,1,0,10,0,[0]\n";
    let Ok(GrainInput::Profile(p)) = read_grains("loop.csv", csv.as_bytes()) else { panic!("reads as a profile") };
    assert_eq!(p.parent_cycles(), vec![vec![2, 3], vec![4]]);
    // The reader reports each cycle by its tasks, naming the file.
    let (_, warnings) =
        weft::readers::open("loop.csv", csv.as_bytes().into()).and_then(|i| i.into_grains("loop.csv")).expect("reads");
    assert_eq!(warnings.count(weft::model::WarningKind::ParentCycle), 2);
    let texts: Vec<&str> = warnings.examples().iter().map(|w| w.message.as_str()).collect();
    assert!(texts.iter().any(|t| t.starts_with("loop.csv:") && t.contains("task 2 -> task 3 -> task 2")), "{texts:?}");
    assert!(texts.iter().any(|t| t.contains("task 4 -> task 4")), "{texts:?}");
    let g = from_profile(&p);
    assert_eq!(g.grains(), 4);
    assert!(find_cycle(&g).is_none());
    let order = toposort_or_cycle(&g).expect("acyclic");
    assert_order(&g, &order);
}

/// `order` holds every node once and every edge goes forward in it.
fn assert_order<G>(g: G, order: &[u32])
where
    G: IntoEdgeReferences<NodeId = u32> + NodeCount,
{
    assert_eq!(order.len(), g.node_count());
    let mut pos = vec![u32::MAX; order.len()];
    for (i, &v) in order.iter().enumerate() {
        assert_eq!(pos[v as usize], u32::MAX, "node {v} twice");
        pos[v as usize] = i as u32;
    }
    for e in g.edge_references() {
        assert!(pos[e.source() as usize] < pos[e.target() as usize], "edge {} -> {} backwards", e.source(), e.target());
    }
}

fn grain_graphs() -> Vec<GrainGraph> {
    let mut out = Vec::new();
    for bytes in [fib_profile(20, 6, 4), random_profile(3_000, 7, 4)] {
        let Ok(GrainInput::Profile(p)) = read_grains("g.csv", &bytes) else { panic!("reads") };
        assert!(p.parent_cycles().is_empty(), "generated profiles have no parent cycle");
        out.push(from_profile(&p));
    }
    let doc = format!(
        "{HEAD}{}{}</graph></graphml>",
        nodes(&["c", "a", "b", "d"]),
        edges(&[("a", "b"), ("c", "a"), ("c", "d"), ("b", "d")])
    );
    let input = read_grains("g.graphml", doc.as_bytes()).expect("reads");
    out.push(GrainAnalysis::new(&input, Thresholds::paper()).expect("acyclic").graph);
    out
}

#[test]
fn grain_graph_adapter_agrees_with_the_csr() {
    for g in grain_graphs() {
        assert_eq!(g.node_count(), g.nodes());
        assert_eq!(g.node_bound(), g.nodes());
        assert_eq!((&g).node_identifiers().collect::<Vec<_>>(), (0..g.nodes() as u32).collect::<Vec<_>>());
        for v in 0..g.nodes() as u32 {
            let out: Vec<u32> = g.out.of(v).iter().map(|&e| g.edge_target[e as usize]).collect();
            let inc: Vec<u32> = g.inc.of(v).iter().map(|&e| g.edge_source[e as usize]).collect();
            assert_eq!((&g).neighbors(v).collect::<Vec<_>>(), out);
            assert_eq!((&g).neighbors_directed(v, Outgoing).collect::<Vec<_>>(), out);
            assert_eq!((&g).neighbors_directed(v, Incoming).collect::<Vec<_>>(), inc);
            for e in IntoEdges::edges(&g, v) {
                assert_eq!(
                    (e.source(), e.target(), *e.weight()),
                    (v, g.edge_target[e.id() as usize], g.edge_kind[e.id() as usize])
                );
            }
        }
        assert_eq!((&g).edge_references().count(), g.edges());
        // Node ids are a topological order (the graph's invariant); petgraph's order is another valid one.
        let order = toposort_or_cycle(&g).expect("acyclic");
        assert_order(&g, &order);
        assert_order(&g, &(0..g.nodes() as u32).collect::<Vec<_>>());
        // Everything is reachable from the sources (each node has a path from a node with no in-edges).
        let mut seen = vec![false; g.nodes()];
        for s in (0..g.nodes() as u32).filter(|&v| g.inc.of(v).is_empty()) {
            for v in Dfs::new(&g, s).iter(&g) {
                seen[v as usize] = true;
            }
        }
        assert!(seen.iter().all(|&s| s));
    }
}

fn exec_graphs() -> Vec<ExecGraph> {
    let mut out: Vec<ExecGraph> = SAMPLES.iter().map(|s| build(&sample(s).unwrap()).unwrap()).collect();
    out.extend((1..6).map(|seed| build(&simulate(&random(400, seed), "r")).unwrap()));
    out
}

#[test]
fn exec_graph_adapter_agrees_with_the_implicit_adjacency() {
    for g in exec_graphs() {
        assert_eq!(g.node_count(), g.nodes.len());
        let mut structural = 0;
        for v in 0..g.nodes.len() as u32 {
            let out: Vec<u32> = (&g).neighbors(v).collect();
            // Out-edges: the next node of the thread (not from its end) and the partner of a fork or joined end.
            let th = &g.threads[g.nodes[v as usize].thread as usize];
            assert_eq!(out.contains(&(v + 1)), v < th.end(), "node {v}");
            for &w in &out {
                assert!((&g).neighbors_directed(w, Incoming).any(|u| u == v), "{v} -> {w} not an in-edge of {w}");
            }
            for u in (&g).neighbors_directed(v, Incoming) {
                assert!((&g).neighbors(u).any(|w| w == v), "{u} -> {v} not an out-edge of {u}");
            }
            structural += out.len() - (v < th.end()) as usize;
        }
        // Every structural edge: forks (one per forked thread) and joins (one per joined thread).
        let forked = g.threads.iter().filter(|t| t.fork_node != u32::MAX).count();
        let joined = g.threads.iter().filter(|t| t.join_node != u32::MAX).count();
        assert_eq!(structural, forked + joined, "{}", g.source);
        let kinds: Vec<ExecEdge> = (&g).edge_references().map(|e| e.kind).collect();
        assert_eq!(kinds.iter().filter(|&&k| k == ExecEdge::Fork).count(), forked);
        assert_eq!(kinds.iter().filter(|&&k| k == ExecEdge::Join).count(), joined);
        let flow = g.nodes.len() - g.threads.len();
        assert_eq!(kinds.iter().filter(|&&k| matches!(k, ExecEdge::Flow | ExecEdge::Idle)).count(), flow);
        // The graph's own order (Kahn's, in `build`) and petgraph's are valid; a Dfs from a root thread's start
        // reaches its end.
        assert_order(&g, &g.topo);
        assert_order(&g, &toposort_or_cycle(&g).expect("acyclic"));
        for t in g.roots() {
            let start = g.threads[t as usize].start();
            assert!(Dfs::new(&g, start).iter(&g).any(|v| v == g.threads[t as usize].end()));
        }
        // No node is on a cycle.
        assert!((0..g.nodes.len() as u32).step_by(97).all(|v| cycle_through(&g, v) == vec![v]));
    }
}
