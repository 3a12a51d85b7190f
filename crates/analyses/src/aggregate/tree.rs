//! The aggregation tree: leaves are grain-graph nodes, inner nodes are groups (linear, fork-join, the
//! separation's bundles, or the earlier paper's sibling and family groups). Struct-of-arrays with u32 ids;
//! a group's children are contiguous in `children`. Also the one iterative post-order rebuild that
//! normalization and separation share, so both stay linear and never recurse. Computes no metric.

use crate::grains::NONE;
use serde::Serialize;

#[repr(u8)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GroupKind {
    /// One grain-graph node (a fragment, task, start or end node; a fork only when restructuring
    /// dissolved its fork-join).
    Leaf = 0,
    /// Members run one after another.
    Linear = 1,
    /// Members run between one fork and one join.
    ForkJoin = 2,
    /// Separation: the non-problematic members of a fork-join (or sibling) group.
    Separated = 3,
    /// Separation: consecutive non-problematic members of a linear (or family) group.
    SeparatedLinear = 4,
    /// Sibling/family method: children that a parent creates at one fork and joins at one join.
    Sibling = 5,
    /// Sibling/family method: a parent grain's fragments and its sibling groups.
    Family = 6,
}

impl GroupKind {
    pub fn name(self) -> &'static str {
        match self {
            GroupKind::Leaf => "leaf",
            GroupKind::Linear => "linear",
            GroupKind::ForkJoin => "fork_join",
            GroupKind::Separated => "separated",
            GroupKind::SeparatedLinear => "separated_linear",
            GroupKind::Sibling => "sibling",
            GroupKind::Family => "family",
        }
    }
    /// Members are drawn one after another (top to bottom) rather than side by side.
    pub fn is_series(self) -> bool {
        matches!(self, GroupKind::Linear | GroupKind::SeparatedLinear | GroupKind::Family)
    }
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct AggregationTree {
    pub kind: Vec<GroupKind>,
    /// A leaf's grain-graph node; NONE for groups.
    pub node: Vec<u32>,
    /// A fork-join or sibling group's fork and join nodes (NONE where absent: a virtual fork after a join
    /// that forks again, the graph's sources, or a group of the earlier method without them).
    pub fork: Vec<u32>,
    pub join: Vec<u32>,
    /// Children of `t`: `children[first[t]..first[t] + count[t]]`, in program order.
    pub first: Vec<u32>,
    pub count: Vec<u32>,
    pub children: Vec<u32>,
    /// Filled by [`AggregationTree::finish`].
    pub parent: Vec<u32>,
    pub depth: Vec<u32>,
    pub root: u32,
}

impl AggregationTree {
    pub fn len(&self) -> usize {
        self.kind.len()
    }
    pub fn is_empty(&self) -> bool {
        self.kind.is_empty()
    }
    pub fn children_of(&self, t: u32) -> &[u32] {
        let f = self.first[t as usize] as usize;
        &self.children[f..f + self.count[t as usize] as usize]
    }
    pub fn is_leaf(&self, t: u32) -> bool {
        self.kind[t as usize] == GroupKind::Leaf
    }
    /// Groups (inner nodes) only.
    pub fn groups(&self) -> usize {
        self.kind.iter().filter(|&&k| k != GroupKind::Leaf).count()
    }
    /// The deepest leaf's depth (the root is at depth 0).
    pub fn height(&self) -> u32 {
        self.depth.iter().copied().max().unwrap_or(0)
    }

    pub fn leaf(&mut self, node: u32) -> u32 {
        self.push(GroupKind::Leaf, node, NONE, NONE, &[])
    }

    /// A new tree node whose children are `kids` (already in the tree).
    pub fn push(&mut self, kind: GroupKind, node: u32, fork: u32, join: u32, kids: &[u32]) -> u32 {
        let id = self.kind.len() as u32;
        self.kind.push(kind);
        self.node.push(node);
        self.fork.push(fork);
        self.join.push(join);
        self.first.push(self.children.len() as u32);
        self.count.push(kids.len() as u32);
        self.children.extend_from_slice(kids);
        id
    }

    /// Set the root and compute parents and depths (top-down, iterative).
    pub fn finish(&mut self, root: u32) {
        let n = self.len();
        self.root = root;
        self.parent = vec![NONE; n];
        self.depth = vec![0; n];
        if n == 0 {
            return;
        }
        let mut stack = vec![root];
        while let Some(t) = stack.pop() {
            let d = self.depth[t as usize] + 1;
            let f = self.first[t as usize] as usize;
            for i in f..f + self.count[t as usize] as usize {
                let c = self.children[i];
                self.parent[c as usize] = t;
                self.depth[c as usize] = d;
                stack.push(c);
            }
        }
    }

    /// Tree nodes in post-order from the root (children before parents), iteratively.
    pub fn post_order(&self) -> Vec<u32> {
        let mut out = Vec::with_capacity(self.len());
        if self.is_empty() {
            return out;
        }
        let mut stack = vec![(self.root, false)];
        while let Some((t, expanded)) = stack.pop() {
            if expanded {
                out.push(t);
                continue;
            }
            stack.push((t, true));
            for &c in self.children_of(t).iter().rev() {
                stack.push((c, false));
            }
        }
        out
    }

    /// Leaves of the subtree at `t`, in program order.
    pub fn leaves_under(&self, t: u32) -> Vec<u32> {
        let mut out = Vec::new();
        let mut stack = vec![t];
        while let Some(u) = stack.pop() {
            if self.is_leaf(u) {
                out.push(u);
            } else {
                stack.extend(self.children_of(u).iter().rev());
            }
        }
        out
    }

    /// Grain-graph nodes of the subtree at `t`: its leaves' nodes and its groups' forks and joins, sorted
    /// (which is topological order in the grain graph).
    pub fn graph_nodes_under(&self, t: u32) -> Vec<u32> {
        let mut out = Vec::new();
        let mut stack = vec![t];
        while let Some(u) = stack.pop() {
            let ui = u as usize;
            for v in [self.node[ui], self.fork[ui], self.join[ui]] {
                if v != NONE {
                    out.push(v);
                }
            }
            stack.extend(self.children_of(u));
        }
        out.sort_unstable();
        out
    }
}

/// What the rebuild does with one finished node, given its rebuilt children.
pub enum Rebuilt {
    /// Keep the node, with these children (ids in the new tree).
    Node(Vec<u32>),
    /// Splice these children into the parent's list instead of keeping the node (normalization).
    Splice(Vec<u32>),
}

/// Rebuild `old` bottom-up. `decide(old_node, parent_kind, new_tree, kids)` is called once per old group
/// after its children are rebuilt; leaves are copied. Linear in the tree's size plus the decisions' work.
pub fn rebuild(
    old: &AggregationTree,
    mut decide: impl FnMut(u32, Option<GroupKind>, &mut AggregationTree, Vec<u32>) -> Rebuilt,
) -> AggregationTree {
    let mut new = AggregationTree::default();
    if old.is_empty() {
        new.finish(0);
        return new;
    }
    // Frames: (old node, next child index, base of its children on `vals`).
    let mut frames: Vec<(u32, u32, usize)> = vec![(old.root, 0, 0)];
    let mut vals: Vec<u32> = Vec::new();
    let mut root = NONE;
    while let Some(&mut (t, ref mut next, base)) = frames.last_mut() {
        if *next < old.count[t as usize] {
            let c = old.children[(old.first[t as usize] + *next) as usize];
            *next += 1;
            if old.is_leaf(c) {
                let id = new.leaf(old.node[c as usize]);
                vals.push(id);
            } else {
                frames.push((c, 0, vals.len()));
            }
            continue;
        }
        frames.pop();
        let kids: Vec<u32> = vals.split_off(base);
        let parent_kind = frames.last().map(|f| old.kind[f.0 as usize]);
        let ti = t as usize;
        let out = if old.is_leaf(t) {
            Rebuilt::Node(Vec::new())
        } else {
            decide(t, if frames.is_empty() { None } else { parent_kind }, &mut new, kids)
        };
        match out {
            Rebuilt::Node(kids) => {
                let id = if old.is_leaf(t) {
                    new.leaf(old.node[ti])
                } else {
                    new.push(old.kind[ti], NONE, old.fork[ti], old.join[ti], &kids)
                };
                if frames.is_empty() {
                    root = id;
                } else {
                    vals.push(id);
                }
            }
            Rebuilt::Splice(kids) => {
                if frames.is_empty() {
                    root = new.push(old.kind[ti], NONE, old.fork[ti], old.join[ti], &kids);
                } else {
                    vals.extend(kids);
                }
            }
        }
    }
    new.finish(root);
    new
}
