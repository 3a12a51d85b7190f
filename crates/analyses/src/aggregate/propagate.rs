//! Propagation (phase 3): leaf metrics carried up to every group in one post-order pass (Section 3.3 and
//! the earlier paper's Section 3.2): execution time and work summed; parallel benefit, memory hierarchy
//! utilization and instantaneous parallelism the minimum; load balance (sibling work balance), work
//! deviation and scatter the maximum; a group is problematic in a view when a member is, and on the
//! critical path when a member, its fork or its join is. Strength is (immediate members, all members); the
//! grain-graph nodes and grains beneath a group are counted too, for its label.
//!
//! A leaf is a grain-graph node. A grain's per-grain metrics belong to each of its nodes (min and max are
//! unchanged by the repetition); its work is split over its nodes in proportion to their execution time so
//! that sums count each grain once. Draws nothing.

use super::tree::AggregationTree;
use crate::grains::{GrainAnalysis, NONE};

/// Per tree node.
#[derive(Clone, Debug, Default)]
pub struct GroupMetrics {
    pub exec: Vec<u64>,
    pub work: Vec<Option<f64>>,
    pub parallel_benefit: Vec<Option<f64>>,
    pub mem_hier_util: Vec<Option<f64>>,
    pub inst_par_median: Vec<Option<f64>>,
    pub inst_par_min: Vec<Option<f64>>,
    pub inst_par_max: Vec<Option<f64>>,
    pub sibling_work_balance: Vec<Option<f64>>,
    pub work_deviation: Vec<Option<f64>>,
    pub sibling_scatter: Vec<Option<f64>>,
    /// Bit `i` set: problematic in the view of `METRICS[i]`.
    pub problems: Vec<u8>,
    pub on_critical: Vec<bool>,
    /// Immediate members, and all members at any depth.
    pub strength: Vec<(u32, u32)>,
    /// Grain-graph nodes beneath, at any depth: leaves, and the forks and joins of groups.
    pub nodes: Vec<u32>,
    /// Grains beneath, each counted once: in the group holding its first fragment.
    pub grains: Vec<u32>,
}

fn min_opt(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, None) => x,
        (None, y) => y,
    }
}
fn max_opt(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.max(y)),
        (x, None) => x,
        (None, y) => y,
    }
}
fn sum_opt(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x + y),
        (x, None) => x,
        (None, y) => y,
    }
}

/// The grain a leaf's node belongs to (NONE for start, end, fork and join nodes).
pub fn grain_of_leaf(a: &GrainAnalysis, node: u32) -> u32 {
    if node == NONE || !a.graph.node_kind[node as usize].holds_work() {
        NONE
    } else {
        a.graph.node_grain[node as usize]
    }
}

/// A leaf's own values: its node's execution time, its grain's work share and metrics and problems.
pub fn leaf_values(a: &GrainAnalysis, m: &mut GroupMetrics, t: usize, node: u32) {
    let g = &a.graph;
    m.exec[t] = if node == NONE { 0 } else { g.node_exec[node as usize] };
    m.on_critical[t] = node != NONE && a.critical.on_node[node as usize];
    let gi = grain_of_leaf(a, node);
    if gi == NONE {
        return;
    }
    let gi = gi as usize;
    let x = &a.metrics;
    let share = match g.grain_exec[gi] {
        0 => 1.0 / g.grain_nodes_of(gi as u32).len().max(1) as f64,
        e => m.exec[t] as f64 / e as f64,
    };
    m.work[t] = x.work[gi].map(|w| w * share);
    m.parallel_benefit[t] = x.parallel_benefit[gi];
    m.mem_hier_util[t] = x.mem_hier_util[gi];
    m.inst_par_median[t] = x.inst_par_median[gi];
    m.inst_par_min[t] = x.inst_par_min[gi];
    m.inst_par_max[t] = x.inst_par_max[gi];
    m.sibling_work_balance[t] = x.sibling_work_balance[gi];
    m.work_deviation[t] = x.work_deviation[gi];
    m.sibling_scatter[t] = x.sibling_scatter[gi];
    let mut bits = 0u8;
    for (i, view) in a.problems.iter().enumerate().take(8) {
        if view.problematic.get(gi).copied().unwrap_or(false) {
            bits |= 1 << i;
        }
    }
    m.problems[t] = bits;
}

pub fn propagate(a: &GrainAnalysis, tree: &AggregationTree) -> GroupMetrics {
    let n = tree.len();
    let mut m = GroupMetrics {
        exec: vec![0; n],
        work: vec![None; n],
        parallel_benefit: vec![None; n],
        mem_hier_util: vec![None; n],
        inst_par_median: vec![None; n],
        inst_par_min: vec![None; n],
        inst_par_max: vec![None; n],
        sibling_work_balance: vec![None; n],
        work_deviation: vec![None; n],
        sibling_scatter: vec![None; n],
        problems: vec![0; n],
        on_critical: vec![false; n],
        strength: vec![(0, 0); n],
        nodes: vec![0; n],
        grains: vec![0; n],
    };
    for t in tree.post_order() {
        let ti = t as usize;
        if tree.is_leaf(t) {
            leaf_values(a, &mut m, ti, tree.node[ti]);
            let node = tree.node[ti];
            m.nodes[ti] = (node != NONE) as u32;
            let gi = grain_of_leaf(a, node);
            m.grains[ti] = (gi != NONE && a.graph.grain_nodes_of(gi).first() == Some(&node)) as u32;
            continue;
        }
        let on = |v: u32| v != NONE && a.critical.on_node[v as usize];
        let mut crit = on(tree.fork[ti]) || on(tree.join[ti]);
        let mut all = 0u32;
        // A group's own fork and join are grain-graph nodes too (not leaves).
        m.nodes[ti] = (tree.fork[ti] != NONE) as u32 + (tree.join[ti] != NONE) as u32;
        for &c in tree.children_of(t) {
            let c = c as usize;
            m.exec[ti] += m.exec[c];
            m.work[ti] = sum_opt(m.work[ti], m.work[c]);
            m.parallel_benefit[ti] = min_opt(m.parallel_benefit[ti], m.parallel_benefit[c]);
            m.mem_hier_util[ti] = min_opt(m.mem_hier_util[ti], m.mem_hier_util[c]);
            m.inst_par_median[ti] = min_opt(m.inst_par_median[ti], m.inst_par_median[c]);
            m.inst_par_min[ti] = min_opt(m.inst_par_min[ti], m.inst_par_min[c]);
            m.inst_par_max[ti] = min_opt(m.inst_par_max[ti], m.inst_par_max[c]);
            m.sibling_work_balance[ti] = max_opt(m.sibling_work_balance[ti], m.sibling_work_balance[c]);
            m.work_deviation[ti] = max_opt(m.work_deviation[ti], m.work_deviation[c]);
            m.sibling_scatter[ti] = max_opt(m.sibling_scatter[ti], m.sibling_scatter[c]);
            m.problems[ti] |= m.problems[c];
            crit |= m.on_critical[c];
            all += 1 + m.strength[c].1;
            m.nodes[ti] += m.nodes[c];
            m.grains[ti] += m.grains[c];
        }
        m.on_critical[ti] = crit;
        m.strength[ti] = (tree.count[ti], all);
    }
    m
}

/// Per tree node, the worst severity of its problematic grains in the view of `METRICS[view]`.
pub fn severity(a: &GrainAnalysis, tree: &AggregationTree, view: usize) -> Vec<f32> {
    let mut s = vec![0f32; tree.len()];
    let Some(pv) = a.problems.get(view) else { return s };
    for t in tree.post_order() {
        let ti = t as usize;
        if tree.is_leaf(t) {
            let gi = grain_of_leaf(a, tree.node[ti]);
            if gi != NONE && pv.problematic[gi as usize] {
                s[ti] = pv.severity[gi as usize];
            }
        } else {
            s[ti] = tree.children_of(t).iter().map(|&c| s[c as usize]).fold(0.0, f32::max);
        }
    }
    s
}
