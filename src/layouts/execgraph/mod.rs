//! The drawing of an execution graph (TreVis): every thread in its own column, y is time. Node y by the
//! paper's rule (the origin at 0, every node at its predecessor plus the edge's length, an a-join at the
//! later of its two predecessors), in true scale or with short flow edges raised to a minimum length; columns
//! by side assignment per parent (`sides`), each thread's subtree a contiguous block of columns, the roots
//! grouped by host node (OTF2 rank) so each host's threads are one block of columns; crossings
//! counted on the final drawing (`crossings`). Deterministic, O(n log n) in threads and nodes.
//!
//! Positions are abstract (columns, nanoseconds of drawing time): no pixels, no colours.

pub mod bundle;
pub mod crossings;
pub mod sides;

use crate::analyses::execgraph::{ExecGraph, NodeIx, NodeKind, ThreadIx, NONE};
use crate::sort::SortDyn;
use sides::Span;

/// How time maps to y.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Scale {
    /// y is the event time.
    True,
    /// Every flow edge at least this long (drawing nanoseconds), so every node and edge can be seen.
    MinEdge { min_ns: u64 },
}

/// The laid-out graph.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ExecLayout {
    pub scale: Scale,
    /// Per node: y in drawing nanoseconds (equal to the node's time in true scale when times are consistent).
    pub y_ns: Vec<u64>,
    /// Per thread: its column, and the y range its column is drawn over (fork to join, including the
    /// vertical extensions of its structural edges).
    pub column: Vec<u32>,
    pub top_ns: Vec<u64>,
    pub bottom_ns: Vec<u64>,
    /// Per column: the thread drawn there.
    pub thread_at: Vec<ThreadIx>,
    pub columns: u32,
    /// The largest y.
    pub height_ns: u64,
    /// Crossings between structural edges and thread columns, counted geometrically on this drawing.
    pub crossings: u64,
    /// Same-side intersecting subthread pairs summed over parents (the max-cut objective).
    pub same_side_pairs: u64,
    /// Threads with subthreads whose intersection graph is (is not) bipartite.
    pub parents_bipartite: u32,
    pub parents_not_bipartite: u32,
    /// Non-bipartite parents with too many intersecting pairs for the local-exchange step.
    pub exchange_skipped: u32,
}

/// y of every node: in topological order, the later of (predecessor + edge length) over its predecessors.
/// Flow edges are as long as their time difference (raised to `min_ns` in that scale); a fork -> start edge
/// as long as the start's delay after the fork; an end -> a-join edge has no length.
pub fn node_y(g: &ExecGraph, scale: Scale) -> Vec<u64> {
    let min_ns = match scale {
        Scale::True => 0,
        Scale::MinEdge { min_ns } => min_ns,
    };
    let mut y = vec![0u64; g.nodes.len()];
    for &v in &g.topo {
        let node = g.nodes[v as usize];
        let chain = g.chain_pred(v);
        let partner = g.partner_pred(v);
        let mut yv = if chain.is_none() && partner.is_none() { node.time_ns } else { 0 };
        if let Some(p) = chain {
            let len = node.time_ns.saturating_sub(g.nodes[p as usize].time_ns).max(min_ns);
            yv = yv.max(y[p as usize].saturating_add(len));
        }
        if let Some(p) = partner {
            let len =
                if node.kind == NodeKind::Start { node.time_ns.saturating_sub(g.nodes[p as usize].time_ns) } else { 0 };
            yv = yv.max(y[p as usize].saturating_add(len));
        }
        y[v as usize] = yv;
    }
    y
}

/// Lay out the whole graph.
pub fn layout(g: &ExecGraph, scale: Scale) -> ExecLayout {
    let n = g.threads.len();
    let y_ns = node_y(g, scale);
    let mut top_ns = Vec::with_capacity(n);
    let mut bottom_ns = Vec::with_capacity(n);
    for t in &g.threads {
        top_ns.push(y_ns[(if t.fork_node != NONE { t.fork_node } else { t.start() }) as usize]);
        bottom_ns.push(y_ns[(if t.join_node != NONE { t.join_node } else { t.end() }) as usize]);
    }

    // Preorder from the roots, so parents come before their subthreads. Roots grouped by host (an OTF2
    // rank's threads side by side, ranks in order), by start within a host.
    let mut roots = g.roots();
    roots.sort_dyn_by_key(|&t| g.threads[t as usize].host);
    let mut pre: Vec<ThreadIx> = Vec::with_capacity(n);
    let mut stack: Vec<ThreadIx> = roots.iter().rev().copied().collect();
    while let Some(t) = stack.pop() {
        pre.push(t);
        stack.extend(g.children_of(t).iter().rev());
    }

    // Bottom-up: block widths and each parent's ordered children (left side far to near, then right side
    // near to far, so that columns read left to right), `left_count[t]` of them on the left.
    let mut width = vec![1u64; n];
    let mut ordered: Vec<ThreadIx> = g.children.clone();
    let mut left_count = vec![0u32; n];
    let (mut bip, mut not_bip, mut skipped, mut pairs) = (0u32, 0u32, 0u32, 0u64);
    let mut spans: Vec<Span> = Vec::new();
    let mut order: Vec<ThreadIx> = Vec::new();
    for &p in pre.iter().rev() {
        let kids = g.children_of(p);
        if kids.is_empty() {
            continue;
        }
        order.clear();
        order.extend_from_slice(kids);
        order.sort_dyn_by_key(|&c| (top_ns[c as usize], std::cmp::Reverse(bottom_ns[c as usize]), c));
        spans.clear();
        spans.extend(order.iter().map(|&c| Span {
            lo: top_ns[c as usize],
            hi: bottom_ns[c as usize],
            width: width[c as usize],
        }));
        let s = sides::assign(&spans);
        if s.bipartite {
            bip += 1;
        } else {
            not_bip += 1;
            pairs += sides::same_side_pairs(&spans, &s.left);
        }
        skipped += s.exchange_skipped as u32;
        // Outermost-first is far-to-near on each side: an enclosing subthread is drawn outside the ones it
        // encloses, so nested subthreads never cross.
        let base = g.child_start[p as usize] as usize;
        let mut w = 1u64;
        let mut at = base;
        for (i, &c) in order.iter().enumerate() {
            if s.left[i] {
                ordered[at] = c;
                at += 1;
            }
            w += width[c as usize];
        }
        left_count[p as usize] = (at - base) as u32;
        for (i, &c) in order.iter().enumerate().rev() {
            if !s.left[i] {
                ordered[at] = c;
                at += 1;
            }
        }
        width[p as usize] = w;
    }

    // Top-down: each block's first column, then the thread's column inside it.
    let mut block = vec![0u64; n];
    let mut next_root = 0u64;
    for &r in &roots {
        block[r as usize] = next_root;
        next_root += width[r as usize];
    }
    let mut column = vec![0u32; n];
    for &p in &pre {
        let range = g.child_start[p as usize] as usize..g.child_start[p as usize + 1] as usize;
        let mut at = block[p as usize];
        for (i, &c) in ordered[range].iter().enumerate() {
            if i == left_count[p as usize] as usize {
                column[p as usize] = at as u32;
                at += 1;
            }
            block[c as usize] = at;
            at += width[c as usize];
        }
        if g.children_of(p).len() == left_count[p as usize] as usize {
            column[p as usize] = at as u32;
        }
    }
    let mut thread_at = vec![0 as ThreadIx; n];
    for (t, &c) in column.iter().enumerate() {
        thread_at[c as usize] = t as ThreadIx;
    }
    let height_ns = y_ns.iter().copied().max().unwrap_or(0);
    let mut out = ExecLayout {
        scale,
        y_ns,
        column,
        top_ns,
        bottom_ns,
        thread_at,
        columns: n as u32,
        height_ns,
        crossings: 0,
        same_side_pairs: pairs,
        parents_bipartite: bip,
        parents_not_bipartite: not_bip,
        exchange_skipped: skipped,
    };
    out.crossings = crossings::count(g, &out);
    out
}

/// The y of a node.
pub fn y_of(l: &ExecLayout, n: NodeIx) -> u64 {
    l.y_ns[n as usize]
}
