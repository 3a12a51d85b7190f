//! The critical path: the longest path through the grain graph, weighting each node by its execution time
//! and each edge by its delay (a child created after the first creation of its group starts that much
//! later). One pass in node order, which is topological by the graph's invariant. `root_dist` is each
//! node's earliest start, as the prototype defines it. Draws nothing.

use super::graph::{GrainGraph, NONE};

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct CriticalPath {
    /// Earliest start of each node (longest distance from a source), in the graph's time unit.
    pub root_dist: Vec<u64>,
    /// The length of the longest path (span), in the graph's time unit.
    pub length: u64,
    /// Nodes on the path, from source to sink.
    pub nodes: Vec<u32>,
    /// Edges on the path, in order.
    pub edges: Vec<u32>,
    pub on_node: Vec<bool>,
    pub on_edge: Vec<bool>,
}

#[allow(clippy::needless_range_loop)]
pub fn critical_path(g: &GrainGraph) -> CriticalPath {
    let n = g.nodes();
    let mut dist = vec![0u64; n];
    let mut best_in = vec![NONE; n];
    for v in 0..n {
        let mut d = 0u64;
        let mut b = NONE;
        for &e in g.inc.of(v as u32) {
            let u = g.edge_source[e as usize] as usize;
            let cand = dist[u].saturating_add(g.node_exec[u]).saturating_add(g.edge_delay[e as usize]);
            if cand > d || b == NONE {
                d = cand;
                b = e;
            }
        }
        dist[v] = d;
        best_in[v] = b;
    }
    // The path ends at the node that finishes last (the last such node, so it reaches the sink).
    let mut last = 0usize;
    let mut length = 0u64;
    for v in 0..n {
        let f = dist[v].saturating_add(g.node_exec[v]);
        if f >= length {
            length = f;
            last = v;
        }
    }
    let mut nodes = Vec::new();
    let mut edges = Vec::new();
    let mut on_node = vec![false; n];
    let mut on_edge = vec![false; g.edges()];
    if n > 0 {
        let mut v = last as u32;
        loop {
            nodes.push(v);
            on_node[v as usize] = true;
            let e = best_in[v as usize];
            if e == NONE {
                break;
            }
            edges.push(e);
            on_edge[e as usize] = true;
            v = g.edge_source[e as usize];
        }
    }
    nodes.reverse();
    edges.reverse();
    CriticalPath { root_dist: dist, length, nodes, edges, on_node, on_edge }
}
