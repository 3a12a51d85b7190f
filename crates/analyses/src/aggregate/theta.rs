//! Visible node count theta (Reissmann & Muddukrishna, Section 5.1): the fewest nodes on screen while
//! diagnosing a grain, starting from the root group alone and opening the groups on the path to it. Opened
//! groups stay drawn (they envelop their members), so opening a group adds its members:
//! `theta(root) = 1`, `theta(child of t) = theta(t) + members(t)`. A grain's theta is the least over its
//! nodes; theta max is the greatest over the grains considered. One top-down pass; draws nothing.

use super::propagate::grain_of_leaf;
use super::tree::AggregationTree;
use crate::grains::{GrainAnalysis, NONE};

/// Theta of every tree node (the nodes visible once it is reached).
pub fn theta_of_nodes(t: &AggregationTree) -> Vec<u32> {
    let mut theta = vec![0u32; t.len()];
    if t.is_empty() {
        return theta;
    }
    theta[t.root as usize] = 1;
    let mut stack = vec![t.root];
    while let Some(u) = stack.pop() {
        let th = theta[u as usize].saturating_add(t.count[u as usize]);
        for &c in t.children_of(u) {
            theta[c as usize] = th;
            stack.push(c);
        }
    }
    theta
}

/// Per grain, the least theta over its leaves (NONE for grains with no leaf in the tree).
pub fn theta_of_grains(a: &GrainAnalysis, t: &AggregationTree) -> Vec<u32> {
    let theta = theta_of_nodes(t);
    let mut out = vec![NONE; a.graph.grains()];
    for (i, &v) in t.node.iter().enumerate() {
        let gi = grain_of_leaf(a, v);
        if gi != NONE {
            out[gi as usize] = out[gi as usize].min(theta[i]);
        }
    }
    out
}

/// The greatest grain theta among grains where `keep` holds; None when no such grain.
pub fn theta_max(a: &GrainAnalysis, t: &AggregationTree, keep: impl Fn(usize) -> bool) -> Option<u32> {
    theta_of_grains(a, t).iter().enumerate().filter(|&(gi, &th)| th != NONE && keep(gi)).map(|(_, &th)| th).max()
}
