//! The grain graph: grains (tasks and for-loop chunks) split into fragments at their forks and joins, one fork
//! and one join node per group of siblings that synchronize together (the papers' simple aggregation), a
//! start and an end node; edges create / scope / sync / continue. Struct-of-arrays with u32 ids and CSR
//! adjacency, sized for hundreds of thousands of nodes.
//!
//! Invariant: node ids are a topological order (every edge goes from a lower to a higher id), so analyses
//! are single passes. When the graph is built from a profile, the nesting is kept (`groups`): each grain's
//! sequence of groups, and each group's fork, join and children, which the layout uses to draw it
//! crossing-free in linear time. The groups are the papers' sibling groups and, with `grain_parent`, their
//! families: the tree that aggregation (reduction of fork-join and linear patterns) starts from. This module
//! computes no metric and draws nothing.

use weft_model::grains::GrainProfile;
pub use weft_model::grains::{EdgeKind, NodeKind, TimeUnit};
use weft_model::sort::SortDyn;
use weft_model::StringTable;

pub const NONE: u32 = u32::MAX;

/// A group of siblings created at one fork and synchronized at one join.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Groups {
    /// The grain whose groups these are (NONE for the program's implicit root: start to end).
    pub owner: Vec<u32>,
    pub fork: Vec<u32>,
    pub join: Vec<u32>,
    /// The owner's fragment between fork and join (NONE for the implicit root).
    pub mid: Vec<u32>,
    /// The owner's fragment after the join (NONE for the implicit root).
    pub post: Vec<u32>,
    /// Children of group `k`: `children[child_start[k]..child_start[k + 1]]`, in creation order.
    pub child_start: Vec<u32>,
    pub children: Vec<u32>,
}

/// Compressed adjacency: edges of node `v` are `edges[start[v]..start[v + 1]]`.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Csr {
    pub start: Vec<u32>,
    pub edges: Vec<u32>,
}

impl Csr {
    pub fn of(&self, v: u32) -> &[u32] {
        &self.edges[self.start[v as usize] as usize..self.start[v as usize + 1] as usize]
    }
    /// Rows of edge indices grouped by `key[e]` (an edge's source, or its target for in-edges).
    pub fn build(n: usize, key: &[u32]) -> Csr {
        let mut start = vec![0u32; n + 1];
        for &k in key {
            start[k as usize + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut edges = vec![0u32; key.len()];
        for (e, &k) in key.iter().enumerate() {
            edges[fill[k as usize] as usize] = e as u32;
            fill[k as usize] += 1;
        }
        Csr { start, edges }
    }
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct GrainGraph {
    pub unit: TimeUnit,
    // Grains.
    /// The profiler's task id (or the GraphML `task`/name).
    pub grain_task: Vec<u64>,
    pub grain_parent: Vec<u32>,
    pub grain_cpu: Vec<u32>,
    pub grain_exec: Vec<u64>,
    /// The grain's function and source location, interned (indices into `strings`).
    pub grain_outline: Vec<u32>,
    pub grain_source: Vec<u32>,
    pub grain_lineage: Vec<u32>,
    /// Row of the grain in its profile or node in its GraphML (for the metrics' source columns).
    pub grain_row: Vec<u32>,
    /// A grain's nodes (fragments or its task node) are `grain_nodes[grain_node_start[g]..[g + 1]]`.
    pub grain_node_start: Vec<u32>,
    pub grain_nodes: Vec<u32>,
    /// A grain's groups, in program order: `grain_group_start[g]..grain_group_start[g + 1]`; the implicit
    /// root's groups follow the last grain's (index `grains()`).
    pub grain_group_start: Vec<u32>,
    pub groups: Groups,
    /// True when `groups` describes the whole graph (it was built from a profile, properly nested).
    pub nested: bool,
    // Nodes.
    pub node_kind: Vec<NodeKind>,
    /// The grain a fragment or task node belongs to; the owner grain of a fork or join; NONE otherwise.
    pub node_grain: Vec<u32>,
    /// Execution time of a fragment or task node; 0 for the rest.
    pub node_exec: Vec<u64>,
    /// A fragment's position in its grain (1-based), or a fork's or join's group position in its owner
    /// (0-based), as the prototype numbers them; 0 for the rest.
    pub node_index: Vec<u32>,
    /// Names as read from GraphML (empty for graphs built from a profile: see [`GrainGraph::node_name`]).
    pub node_names: Vec<String>,
    // Edges.
    pub edge_source: Vec<u32>,
    pub edge_target: Vec<u32>,
    pub edge_kind: Vec<EdgeKind>,
    /// Delay along the edge: a child's creation after the first creation of its group.
    pub edge_delay: Vec<u64>,
    pub out: Csr,
    pub inc: Csr,
    pub strings: Vec<String>,
}

impl GrainGraph {
    pub fn grains(&self) -> usize {
        self.grain_task.len()
    }
    pub fn nodes(&self) -> usize {
        self.node_kind.len()
    }
    pub fn edges(&self) -> usize {
        self.edge_source.len()
    }
    pub fn grain_nodes_of(&self, g: u32) -> &[u32] {
        &self.grain_nodes[self.grain_node_start[g as usize] as usize..self.grain_node_start[g as usize + 1] as usize]
    }
    pub fn group_range(&self, owner: usize) -> std::ops::Range<usize> {
        self.grain_group_start[owner] as usize..self.grain_group_start[owner + 1] as usize
    }
    pub fn group_children(&self, k: usize) -> &[u32] {
        &self.groups.children[self.groups.child_start[k] as usize..self.groups.child_start[k + 1] as usize]
    }
    pub fn string(&self, id: u32) -> &str {
        self.strings.get(id as usize).map(String::as_str).unwrap_or("")
    }
    /// The node's name as the prototype writes it (`2.1`, `f.2.0`, `j.2.0`, `0`, `E`), or as GraphML names it.
    pub fn node_name(&self, v: u32) -> String {
        if let Some(n) = self.node_names.get(v as usize) {
            return n.clone();
        }
        let v = v as usize;
        let task = |g: u32| {
            if g == NONE {
                0
            } else {
                self.grain_task[g as usize]
            }
        };
        match self.node_kind[v] {
            NodeKind::Start => "0".into(),
            NodeKind::End => "E".into(),
            NodeKind::Fragment | NodeKind::Task => {
                format!("{}.{}", task(self.node_grain[v]), self.node_index[v])
            }
            NodeKind::Fork => format!("f.{}.{}", task(self.node_grain[v]), self.node_index[v]),
            NodeKind::Join => format!("j.{}.{}", task(self.node_grain[v]), self.node_index[v]),
        }
    }
    pub fn count_nodes(&self, kind: NodeKind) -> usize {
        self.node_kind.iter().filter(|&&k| k == kind).count()
    }
    pub fn count_edges(&self, kind: EdgeKind) -> usize {
        self.edge_kind.iter().filter(|&&k| k == kind).count()
    }

    /// Build CSR adjacency and check the topological-order invariant.
    pub(crate) fn finish(&mut self) {
        let n = self.nodes();
        self.out = Csr::build(n, &self.edge_source);
        self.inc = Csr::build(n, &self.edge_target);
        debug_assert!(self.edge_source.iter().zip(&self.edge_target).all(|(s, t)| s < t));
    }
}

/// Where the building of one grain stands (an explicit stack: nesting depth is unbounded in bad inputs).
struct Frame {
    grain: u32,
    /// Next group (global index) and the last group of this owner.
    group: u32,
    group_end: u32,
    /// Next child of the current group to descend into (index into the group's children).
    child: u32,
    /// The owner's latest node (pre or post fragment; the start node for the implicit root).
    last: u32,
}

/// Build the grain graph of a profile. Rows whose parent is not a row hang off the implicit root
/// (start to end). Instants out of order are clamped so fragments never have negative length.
pub fn from_profile(p: &GrainProfile) -> GrainGraph {
    let n = p.len();
    let mut strings = StringTable::default();
    // Children per parent row, grouped by (joins_at, creation order).
    let index: std::collections::HashMap<u64, u32> = p.task.iter().enumerate().map(|(i, &t)| (t, i as u32)).collect();
    let root = n as u32; // owner index of the implicit root
    let mut owner_of: Vec<u32> =
        (0..n).map(|i| index.get(&p.parent[i]).copied().filter(|&o| o as usize != i).unwrap_or(root)).collect();
    // A cycle of parents (bad input) would make grains unreachable: cut it at the root.
    cut_parent_cycles(&mut owner_of, root);
    let mut order: Vec<u32> = (0..n as u32).collect();
    order.sort_dyn_by_key(|&i| {
        (owner_of[i as usize], p.joins_at[i as usize], p.create_instant[i as usize], p.child_number[i as usize], i)
    });
    // Groups: consecutive runs of equal (owner, joins_at).
    let mut g = GrainGraph {
        unit: p.unit,
        grain_task: p.task.clone(),
        grain_parent: owner_of.iter().map(|&o| if o == root { NONE } else { o }).collect(),
        grain_cpu: p.core.iter().map(|c| c.unwrap_or(NONE)).collect(),
        grain_exec: p.exec.clone(),
        grain_outline: p.function.iter().map(|&s| strings.intern(p.string(s)).0).collect(),
        grain_source: p.source.iter().map(|&s| strings.intern(p.string(s)).0).collect(),
        grain_lineage: p.lineage.iter().map(|&s| strings.intern(p.string(s)).0).collect(),
        grain_row: (0..n as u32).collect(),
        grain_node_start: Vec::new(),
        grain_nodes: Vec::new(),
        grain_group_start: vec![0; n + 2],
        groups: Groups::default(),
        nested: true,
        node_kind: Vec::new(),
        node_grain: Vec::new(),
        node_exec: Vec::new(),
        node_index: Vec::new(),
        node_names: Vec::new(),
        edge_source: Vec::new(),
        edge_target: Vec::new(),
        edge_kind: Vec::new(),
        edge_delay: Vec::new(),
        out: Csr::default(),
        inc: Csr::default(),
        strings: Vec::new(),
    };
    // Count groups per owner, then lay them out owner by owner.
    let mut group_keys: Vec<(u32, u32)> = Vec::new(); // (owner, joins_at)
    for &i in &order {
        let key = (owner_of[i as usize], p.joins_at[i as usize]);
        if group_keys.last() != Some(&key) {
            group_keys.push(key);
            g.groups.child_start.push(g.groups.children.len() as u32);
        }
        g.groups.children.push(i);
    }
    g.groups.child_start.push(g.groups.children.len() as u32);
    // Groups are sorted by owner already (order is sorted by owner first).
    for &(o, _) in &group_keys {
        g.grain_group_start[o as usize + 1] += 1;
    }
    for i in 0..=n {
        g.grain_group_start[i + 1] += g.grain_group_start[i];
    }
    let gk = group_keys.len();
    g.groups.owner = group_keys.iter().map(|&(o, _)| if o == root { NONE } else { o }).collect();
    g.groups.fork = vec![NONE; gk];
    g.groups.join = vec![NONE; gk];
    g.groups.mid = vec![NONE; gk];
    g.groups.post = vec![NONE; gk];
    // Each grain has 1 + 2G fragments (G: its groups); their slots are known up front.
    g.grain_node_start = Vec::with_capacity(n + 1);
    g.grain_node_start.push(0);
    for i in 0..n {
        let groups = g.grain_group_start[i + 1] - g.grain_group_start[i];
        g.grain_node_start.push(g.grain_node_start[i] + 1 + 2 * groups);
    }
    g.grain_nodes = vec![NONE; g.grain_node_start[n] as usize];
    let mut frag_fill = vec![0u32; n];
    let mut last_node = vec![NONE; n];
    // Fragment boundaries of each grain: instants relative to its start, 1-based like MIR's (execution
    // runs over [1, 1 + exec_cycles]).
    let fork_time = |k: usize| -> u64 {
        let kids = &g.groups.children[g.groups.child_start[k] as usize..g.groups.child_start[k + 1] as usize];
        kids.iter().map(|&c| p.create_instant[c as usize]).min().unwrap_or(0)
    };
    let fork_times: Vec<u64> = (0..gk).map(fork_time).collect();

    let add_node = |g: &mut GrainGraph, kind: NodeKind, grain: u32, exec: u64, index: u32| -> u32 {
        g.node_kind.push(kind);
        g.node_grain.push(grain);
        g.node_exec.push(exec);
        g.node_index.push(index);
        g.node_kind.len() as u32 - 1
    };
    let add_edge = |g: &mut GrainGraph, s: u32, t: u32, kind: EdgeKind, delay: u64| {
        g.edge_source.push(s);
        g.edge_target.push(t);
        g.edge_kind.push(kind);
        g.edge_delay.push(delay);
    };

    let start = add_node(&mut g, NodeKind::Start, NONE, 0, 0);
    let mut stack: Vec<Frame> = vec![Frame {
        grain: root,
        group: g.grain_group_start[n],
        group_end: g.grain_group_start[n + 1],
        child: 0,
        last: start,
    }];
    // Per grain: the clock (relative instant) where its next fragment starts.
    let mut clock = vec![1u64; n];
    // Enter a grain: emit its first fragment, up to its first fork (or its end).
    let enter = |g: &mut GrainGraph, clock: &mut [u64], frags: &mut [u32], c: u32| -> Frame {
        let ci = c as usize;
        let (k0, k1) = (g.grain_group_start[ci], g.grain_group_start[ci + 1]);
        let end = 1 + p.exec[ci];
        let until = if k0 < k1 { fork_times[k0 as usize].clamp(1, end) } else { end };
        let frag = add_node(g, NodeKind::Fragment, c, until - 1, 1);
        clock[ci] = until;
        g.grain_nodes[g.grain_node_start[ci] as usize] = frag;
        frags[ci] = 1;
        Frame { grain: c, group: k0, group_end: k1, child: 0, last: frag }
    };
    while let Some(top) = stack.last_mut() {
        let k = top.group as usize;
        if top.group == top.group_end {
            // The grain (or the root) is complete.
            let f = stack.pop().expect("non-empty");
            if f.grain == root {
                let end = add_node(&mut g, NodeKind::End, NONE, 0, 0);
                add_edge(&mut g, f.last, end, EdgeKind::Continue, 0);
            } else {
                last_node[f.grain as usize] = f.last;
            }
            continue;
        }
        let owner = top.grain;
        let is_root = owner == root;
        if top.child == 0 && g.groups.fork[k] == NONE {
            // Open group k: its fork, and the owner's fragment that runs while the children do.
            let local = k as u32 - g.grain_group_start[owner as usize];
            let fork = add_node(&mut g, NodeKind::Fork, if is_root { NONE } else { owner }, 0, local);
            let from_join = g.groups.join.get(k.wrapping_sub(1)).is_some_and(|&j| j == top.last);
            let kind = if is_root && from_join { EdgeKind::Continue } else { EdgeKind::Scope };
            let last = top.last;
            add_edge(&mut g, last, fork, kind, 0);
            g.groups.fork[k] = fork;
            if !is_root {
                let oi = owner as usize;
                let end = 1 + p.exec[oi];
                let wait = p
                    .waits(oi)
                    .get(p.joins_at[g.groups.children[g.groups.child_start[k] as usize] as usize] as usize)
                    .copied();
                let from = clock[oi];
                let until = wait.unwrap_or(end).clamp(from, end);
                let n_frag = frag_fill[oi] + 1;
                let mid = add_node(&mut g, NodeKind::Fragment, owner, until - from, n_frag);
                g.grain_nodes[(g.grain_node_start[oi] + frag_fill[oi]) as usize] = mid;
                frag_fill[oi] += 1;
                clock[oi] = until;
                add_edge(&mut g, fork, mid, EdgeKind::Scope, 0);
                g.groups.mid[k] = mid;
            }
        }
        let kids_start = g.groups.child_start[k];
        let kids_n = g.groups.child_start[k + 1] - kids_start;
        let top = stack.last_mut().expect("non-empty");
        if top.child < kids_n {
            let c = g.groups.children[(kids_start + top.child) as usize];
            top.child += 1;
            let fork = g.groups.fork[k];
            let delay = p.create_instant[c as usize].saturating_sub(fork_times[k]);
            let frame = enter(&mut g, &mut clock, &mut frag_fill, c);
            add_edge(&mut g, fork, frame.last, EdgeKind::Create, delay);
            stack.push(frame);
            continue;
        }
        // All children done: the join, then the owner's next fragment.
        let local = k as u32 - g.grain_group_start[owner as usize];
        let join = add_node(&mut g, NodeKind::Join, if is_root { NONE } else { owner }, 0, local);
        g.groups.join[k] = join;
        if !is_root {
            let mid = g.groups.mid[k];
            add_edge(&mut g, mid, join, EdgeKind::Sync, 0);
        }
        for i in kids_start..kids_start + kids_n {
            let c = g.groups.children[i as usize];
            add_edge(&mut g, last_node[c as usize], join, EdgeKind::Sync, 0);
        }
        let top = stack.last_mut().expect("non-empty");
        top.last = join;
        if !is_root {
            let oi = owner as usize;
            let end = 1 + p.exec[oi];
            let until = if top.group + 1 < top.group_end { fork_times[k + 1].clamp(clock[oi], end) } else { end };
            let n_frag = frag_fill[oi] + 1;
            let post = add_node(&mut g, NodeKind::Fragment, owner, until - clock[oi], n_frag);
            g.grain_nodes[(g.grain_node_start[oi] + frag_fill[oi]) as usize] = post;
            frag_fill[oi] += 1;
            clock[oi] = until;
            add_edge(&mut g, join, post, EdgeKind::Continue, 0);
            g.groups.post[k] = post;
            let top = stack.last_mut().expect("non-empty");
            top.last = post;
        }
        let top = stack.last_mut().expect("non-empty");
        top.group += 1;
        top.child = 0;
    }
    g.strings = strings.iter().map(str::to_string).collect();
    g.finish();
    g
}

/// Re-hang grains whose parent chain loops onto the root (each cycle is cut at one member).
pub fn cut_parent_cycles(owner: &mut [u32], root: u32) {
    let n = owner.len();
    let mut state = vec![0u8; n]; // 0 unvisited, 1 on the current walk, 2 done
    let mut walk = Vec::new();
    for s in 0..n {
        let mut v = s as u32;
        while v != root && state[v as usize] == 0 {
            state[v as usize] = 1;
            walk.push(v);
            v = owner[v as usize];
        }
        if v != root && state[v as usize] == 1 {
            owner[v as usize] = root;
        }
        for w in walk.drain(..) {
            state[w as usize] = 2;
        }
    }
}
