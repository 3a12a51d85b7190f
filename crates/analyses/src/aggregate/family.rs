//! The sibling/family aggregation of the earlier paper (Muddukrishna, Section 3.1), the second method:
//! children a parent creates at one fork and joins at one join form a sibling group (a lone child too),
//! and a parent's fragments with its sibling groups form a family group, which joins its own siblings in
//! the next round, until one root group remains. The paper iterates rounds over leaf siblings; the result
//! is the same as one post-order pass over the grain tree, which is what this does (linear in grains plus
//! nodes). Properly nested graphs (from a profile) give each sibling group its fork and join; other graphs
//! group siblings by parent, and their fork and join nodes are not members (they are not grains).
//! Computes no metric.

use super::tree::{AggregationTree, GroupKind};
use crate::grains::{GrainGraph, NodeKind, NONE};

pub fn family(g: &GrainGraph) -> AggregationTree {
    let n = g.grains();
    let mut t = AggregationTree::default();
    // Sibling sets per owner (index n: the program's implicit root): (fork, join, children).
    let mut sets: Vec<Vec<(u32, u32, Vec<u32>)>> = vec![Vec::new(); n + 1];
    if g.nested {
        for (owner, s) in sets.iter_mut().enumerate() {
            for k in g.group_range(owner) {
                s.push((g.groups.fork[k], g.groups.join[k], g.group_children(k).to_vec()));
            }
        }
    } else {
        let mut kids: Vec<Vec<u32>> = vec![Vec::new(); n + 1];
        for c in 0..n {
            let p = g.grain_parent[c];
            kids[if p == NONE || p as usize >= n { n } else { p as usize }].push(c as u32);
        }
        for (owner, k) in kids.into_iter().enumerate() {
            if !k.is_empty() {
                sets[owner].push((NONE, NONE, k));
            }
        }
    }
    // Grain-tree order (parents before children), then build children first.
    let mut order: Vec<u32> = Vec::with_capacity(n);
    let mut stack: Vec<u32> = sets[n].iter().flat_map(|s| s.2.iter().copied()).collect();
    let mut seen = vec![false; n];
    while let Some(c) = stack.pop() {
        if std::mem::replace(&mut seen[c as usize], true) {
            continue;
        }
        order.push(c);
        stack.extend(sets[c as usize].iter().flat_map(|s| s.2.iter().copied()));
    }
    let mut rep = vec![NONE; n];
    for &c in order.iter().rev() {
        let ci = c as usize;
        let nodes = g.grain_nodes_of(c);
        rep[ci] = if sets[ci].is_empty() && nodes.len() == 1 {
            t.leaf(nodes[0])
        } else {
            let mut kids: Vec<u32> = nodes.iter().map(|&v| t.leaf(v)).collect();
            for (fork, join, members) in &sets[ci] {
                let m: Vec<u32> = members.iter().map(|&x| rep[x as usize]).filter(|&r| r != NONE).collect();
                kids.push(t.push(GroupKind::Sibling, NONE, *fork, *join, &m));
            }
            t.push(GroupKind::Family, NONE, NONE, NONE, &kids)
        };
    }
    // The root family: start, the top-level sibling groups, end; grains unreachable from the root
    // (a parent cycle cut in bad input) join it as a sibling group of their own.
    let mut kids: Vec<u32> = Vec::new();
    let ends = |k: NodeKind| (0..g.nodes() as u32).filter(move |&v| g.node_kind[v as usize] == k);
    for v in ends(NodeKind::Start).collect::<Vec<_>>() {
        kids.push(t.leaf(v));
    }
    for (fork, join, members) in &sets[n] {
        let m: Vec<u32> = members.iter().map(|&x| rep[x as usize]).filter(|&r| r != NONE).collect();
        kids.push(t.push(GroupKind::Sibling, NONE, *fork, *join, &m));
    }
    let lost: Vec<u32> = (0..n).filter(|&c| !seen[c]).map(|c| c as u32).collect();
    if !lost.is_empty() {
        let m: Vec<u32> = lost.iter().map(|&c| t.push_grain_family(g, c)).collect();
        kids.push(t.push(GroupKind::Sibling, NONE, NONE, NONE, &m));
    }
    for v in ends(NodeKind::End).collect::<Vec<_>>() {
        kids.push(t.leaf(v));
    }
    let root = t.push(GroupKind::Family, NONE, NONE, NONE, &kids);
    t.finish(root);
    t
}

impl AggregationTree {
    /// A grain's own nodes as one family (for grains outside the grain tree).
    fn push_grain_family(&mut self, g: &GrainGraph, c: u32) -> u32 {
        let kids: Vec<u32> = g.grain_nodes_of(c).iter().map(|&v| self.leaf(v)).collect();
        self.push(GroupKind::Family, NONE, NONE, NONE, &kids)
    }
}
