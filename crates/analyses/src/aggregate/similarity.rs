//! Structural similarity of groups by a Weisfeiler–Lehman subtree kernel (Shervashidze et al., as the
//! papers use it): a group's graph is its own part of the grain graph (leaf nodes, its groups' forks and
//! joins, the edges between them) labelled by node kind; labels are refined three times from each node's
//! label, the sorted labels of its successors and, apart, those of its predecessors, as networkx's
//! `weisfeiler_lehman_graph_hash` does for directed graphs (since networkx 3.5), and the graph's hash is taken over the label counts of every round. Groups with equal
//! hashes have the same structure (up to hash collision); unequal hashes mean different structure.
//!
//! Also matching of two runs' groups by schedule-independent identifiers (depth, kind and the lineage of
//! the first grain), flagging matched groups whose structure differs (the papers' Floorplan example).
//! Computed on demand; draws nothing.

use super::tree::AggregationTree;
use crate::grains::{GrainAnalysis, GrainGraph, NONE};
use std::collections::{BTreeMap, HashMap};

pub const ITERATIONS: usize = 3;

/// A group's graph: node labels (kind names) and edges as local indices.
#[derive(Clone, Debug, PartialEq)]
pub struct GroupGraph {
    pub labels: Vec<&'static str>,
    pub edges: Vec<(u32, u32)>,
}

pub fn group_graph(g: &GrainGraph, t: &AggregationTree, group: u32) -> GroupGraph {
    let nodes = t.graph_nodes_under(group);
    let index: HashMap<u32, u32> = nodes.iter().enumerate().map(|(i, &v)| (v, i as u32)).collect();
    let labels = nodes.iter().map(|&v| g.node_kind[v as usize].name()).collect();
    let mut edges = Vec::new();
    for (i, &v) in nodes.iter().enumerate() {
        for &e in g.out.of(v) {
            if let Some(&j) = index.get(&g.edge_target[e as usize]) {
                edges.push((i as u32, j));
            }
        }
    }
    GroupGraph { labels, edges }
}

/// FNV-1a over bytes, then a finalizing mix: stable across runs, platforms and builds.
fn fnv(bytes: impl IntoIterator<Item = u8>) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^ (h >> 33)
}

fn words(ws: &[u64]) -> u64 {
    fnv(ws.iter().flat_map(|w| w.to_le_bytes()))
}

/// The Weisfeiler–Lehman hash of a labelled directed graph.
pub fn wl_hash(gg: &GroupGraph) -> u64 {
    let k = gg.labels.len();
    let mut succ: Vec<Vec<u32>> = vec![Vec::new(); k];
    let mut pred: Vec<Vec<u32>> = vec![Vec::new(); k];
    for &(s, t) in &gg.edges {
        succ[s as usize].push(t);
        pred[t as usize].push(s);
    }
    let mut tail: Vec<u64> = Vec::new();
    let mut label: Vec<u64> = gg.labels.iter().map(|l| fnv(l.bytes())).collect();
    let mut counts: Vec<u64> = Vec::new();
    let mut buf: Vec<u64> = Vec::new();
    for round in 0..ITERATIONS {
        let next: Vec<u64> = (0..k)
            .map(|v| {
                buf.clear();
                buf.push(label[v]);
                buf.extend(succ[v].iter().map(|&w| label[w as usize]));
                buf[1..].sort_unstable();
                // A separator no label takes keeps successors and predecessors apart.
                buf.push(u64::MAX);
                tail.clear();
                tail.extend(pred[v].iter().map(|&w| label[w as usize]));
                tail.sort_unstable();
                buf.extend_from_slice(&tail);
                words(&buf)
            })
            .collect();
        label = next;
        let mut c: BTreeMap<u64, u64> = BTreeMap::new();
        for &l in &label {
            *c.entry(l).or_default() += 1;
        }
        counts.push(round as u64);
        for (l, n) in c {
            counts.push(l);
            counts.push(n);
        }
    }
    words(&counts)
}

pub fn group_hash(g: &GrainGraph, t: &AggregationTree, group: u32) -> u64 {
    wl_hash(&group_graph(g, t, group))
}

/// Of `groups` (the closed groups a view shows), those whose structure another of them shares, ascending:
/// the similar-group marks of the aggregated view, on the page and in `weft render aggregate`.
pub fn similar_groups(g: &GrainGraph, t: &AggregationTree, groups: impl IntoIterator<Item = u32>) -> Vec<u32> {
    let mut similar: Vec<u32> = similar_classes(g, t, groups).into_iter().flatten().collect();
    similar.sort_unstable();
    similar
}

/// Of `groups`, the classes of two or more that share one structure: each class ascending, the classes
/// ordered by their first group (so a class keeps its number while the same groups are shown).
pub fn similar_classes(g: &GrainGraph, t: &AggregationTree, groups: impl IntoIterator<Item = u32>) -> Vec<Vec<u32>> {
    let mut by_hash: HashMap<u64, Vec<u32>> = HashMap::new();
    for u in groups {
        by_hash.entry(group_hash(g, t, u)).or_default().push(u);
    }
    let mut classes: Vec<Vec<u32>> = by_hash.into_values().filter(|v| v.len() > 1).collect();
    for c in &mut classes {
        c.sort_unstable();
    }
    classes.sort_unstable_by_key(|c| c[0]);
    classes
}

/// A schedule-independent identifier of a tree node: its depth, kind, and its first leaf named by grain
/// lineage (task id when the profile has none) and fragment position.
pub fn group_id(a: &GrainAnalysis, t: &AggregationTree, node: u32) -> String {
    let g = &a.graph;
    let mut u = node;
    while !t.is_leaf(u) {
        match t.children_of(u).first() {
            Some(&c) => u = c,
            None => break,
        }
    }
    let first = match t.node[u as usize] {
        NONE => "-".to_string(),
        v => {
            let gi = g.node_grain[v as usize];
            if g.node_kind[v as usize].holds_work() && gi != NONE {
                let lin = g.string(g.grain_lineage[gi as usize]);
                let who = if lin.is_empty() { format!("#{}", g.grain_task[gi as usize]) } else { lin.to_string() };
                format!("{who}.{}", g.node_index[v as usize])
            } else {
                g.node_name(v)
            }
        }
    };
    format!("{}:{}:{first}", t.depth[node as usize], t.kind[node as usize].name())
}

/// One group present in both runs.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct GroupMatch {
    pub id: String,
    pub left: u32,
    pub right: u32,
    pub same_structure: bool,
}

/// Match the given groups of two runs by identifier; groups without a partner are left out.
pub fn match_groups(
    left: (&GrainAnalysis, &AggregationTree, &[u32]),
    right: (&GrainAnalysis, &AggregationTree, &[u32]),
) -> Vec<GroupMatch> {
    let ids: HashMap<String, u32> = right.2.iter().map(|&r| (group_id(right.0, right.1, r), r)).collect();
    left.2
        .iter()
        .filter_map(|&l| {
            let id = group_id(left.0, left.1, l);
            let &r = ids.get(&id)?;
            let same = group_hash(&left.0.graph, left.1, l) == group_hash(&right.0.graph, right.1, r);
            Some(GroupMatch { id, left: l, right: r, same_structure: same })
        })
        .collect()
}
