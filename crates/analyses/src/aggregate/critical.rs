//! The local critical path of a group (Muddukrishna, Section 3.2): the longest path through the group's own
//! part of the grain graph (its leaves' nodes and its groups' forks and joins, edges between them), weighted
//! like the global one by execution time and creation delay. Computed on demand, linear in the group's size.
//! Also says which of the group's immediate members lie on it. Draws nothing.

use super::tree::AggregationTree;
use crate::grains::{GrainGraph, NONE};
use std::collections::HashMap;

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct LocalCriticalPath {
    pub group: u32,
    /// Grain-graph nodes on the path, in order.
    pub nodes: Vec<u32>,
    pub length: u64,
    /// The group's immediate members (tree ids) that hold a node of the path, in member order.
    pub members: Vec<u32>,
}

pub fn local_critical_path(g: &GrainGraph, t: &AggregationTree, group: u32) -> LocalCriticalPath {
    let nodes = t.graph_nodes_under(group);
    let index: HashMap<u32, u32> = nodes.iter().enumerate().map(|(i, &v)| (v, i as u32)).collect();
    let k = nodes.len();
    let mut dist = vec![0u64; k];
    let mut best = vec![NONE; k];
    // Nodes are sorted by id, which is a topological order of the grain graph.
    for (i, &v) in nodes.iter().enumerate() {
        for &e in g.inc.of(v) {
            let u = g.edge_source[e as usize];
            if let Some(&ui) = index.get(&u) {
                let cand =
                    dist[ui as usize].saturating_add(g.node_exec[u as usize]).saturating_add(g.edge_delay[e as usize]);
                if best[i] == NONE || cand > dist[i] {
                    dist[i] = cand;
                    best[i] = ui;
                }
            }
        }
    }
    let mut last = NONE;
    let mut length = 0u64;
    for (i, &v) in nodes.iter().enumerate() {
        let f = dist[i].saturating_add(g.node_exec[v as usize]);
        if last == NONE || f >= length {
            length = f;
            last = i as u32;
        }
    }
    let mut path = Vec::new();
    let mut on = vec![false; k];
    let mut i = last;
    while i != NONE {
        path.push(nodes[i as usize]);
        on[i as usize] = true;
        i = best[i as usize];
    }
    path.reverse();
    let members = t
        .children_of(group)
        .iter()
        .copied()
        .filter(|&c| t.graph_nodes_under(c).iter().any(|v| index.get(v).is_some_and(|&i| on[i as usize])))
        .collect();
    LocalCriticalPath { group, nodes: path, length, members }
}
