//! The drawing of an execution graph (TreVis): every thread in its own column, y is time. Node y by the
//! paper's rule (the origin at 0, every node at its predecessor plus the edge's length, an a-join at the
//! later of its two predecessors), in true scale or with short flow edges raised to a minimum length; columns
//! by side assignment per parent (`sides`), each thread's subtree a contiguous block of columns, the roots
//! grouped by host node (OTF2 rank) so each host's threads are one block of columns; crossings
//! counted on the final drawing (`crossings`). Deterministic, O(n log n) in threads and nodes.
//!
//! Threads drawn in another's column (`ExecGraph::runs_on`: an OpenMP trace's explicit tasks, each in the
//! column of the team thread that ran it, as TreVis draws tasks inside threads) take no column of their own:
//! they sit in lanes inside their host's column, tasks overlapping in time in different lanes.
//!
//! Positions are abstract (columns, nanoseconds of drawing time): no pixels, no colours.

pub mod bundle;
pub mod crossings;
pub mod sides;

use sides::Span;
use weft_analyses::execgraph::{ExecGraph, NodeIx, NodeKind, ThreadIx, NONE};
use weft_model::sort::SortDyn;

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
    /// Per column: the thread drawn there (the column's own; its guests are listed in `guests`).
    pub thread_at: Vec<ThreadIx>,
    /// Per thread: 0 for a column's own thread; for a guest (an OpenMP task drawn in the column of the
    /// thread that ran it), its lane inside the column from 1, tasks overlapping in time in different lanes.
    #[serde(default)]
    pub lane: Vec<u16>,
    /// The guests of each column by column, then start: `guests[guest_start[c]..guest_start[c + 1]]`
    /// (empty lists: no guests).
    #[serde(default)]
    pub guests: Vec<ThreadIx>,
    #[serde(default)]
    pub guest_start: Vec<u32>,
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

    // Threads drawn in another's column (OpenMP tasks, in the team thread that ran them) take no column:
    // the column tree holds the others, a thread forked by a guest hanging from the guest's host.
    let guest: Vec<bool> = (0..n as ThreadIx).map(|t| g.is_guest(t)).collect();
    let mut tree_children: Vec<Vec<ThreadIx>> = vec![Vec::new(); n];
    for (p, kids) in (0..n as ThreadIx).map(|p| (p, g.children_of(p))) {
        let owner = if guest[p as usize] { g.column_owner(p) } else { p };
        tree_children[owner as usize].extend(kids.iter().copied().filter(|&c| !guest[c as usize]));
    }
    let kids_of = |t: ThreadIx| tree_children[t as usize].as_slice();

    // Preorder from the roots, so parents come before their subthreads. Roots grouped by host (an OTF2
    // rank's threads side by side, ranks in order), by start within a host.
    let mut roots: Vec<ThreadIx> = g.roots().into_iter().filter(|&t| !guest[t as usize]).collect();
    roots.sort_dyn_by_key(|&t| g.threads[t as usize].host);
    let mut pre: Vec<ThreadIx> = Vec::with_capacity(n);
    let mut stack: Vec<ThreadIx> = roots.iter().rev().copied().collect();
    while let Some(t) = stack.pop() {
        pre.push(t);
        stack.extend(kids_of(t).iter().rev());
    }

    // Bottom-up: block widths and each parent's ordered children (left side far to near, then right side
    // near to far, so that columns read left to right), `left_count[t]` of them on the left.
    let mut width = vec![1u64; n];
    let mut ordered: Vec<Vec<ThreadIx>> = vec![Vec::new(); n];
    let mut left_count = vec![0u32; n];
    let (mut bip, mut not_bip, mut skipped, mut pairs) = (0u32, 0u32, 0u32, 0u64);
    let mut spans: Vec<Span> = Vec::new();
    let mut order: Vec<ThreadIx> = Vec::new();
    for &p in pre.iter().rev() {
        let kids = kids_of(p);
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
        let out = &mut ordered[p as usize];
        let mut w = 1u64;
        for (i, &c) in order.iter().enumerate() {
            if s.left[i] {
                out.push(c);
            }
            w += width[c as usize];
        }
        left_count[p as usize] = out.len() as u32;
        for (i, &c) in order.iter().enumerate().rev() {
            if !s.left[i] {
                out.push(c);
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
        let mut at = block[p as usize];
        for (i, &c) in ordered[p as usize].iter().enumerate() {
            if i == left_count[p as usize] as usize {
                column[p as usize] = at as u32;
                at += 1;
            }
            block[c as usize] = at;
            at += width[c as usize];
        }
        if ordered[p as usize].len() == left_count[p as usize] as usize {
            column[p as usize] = at as u32;
        }
    }
    let columns = pre.len();
    let mut thread_at = vec![0 as ThreadIx; columns];
    for &t in &pre {
        thread_at[column[t as usize] as usize] = t;
    }
    let (lane, guests, guest_start) = place_guests(g, &guest, &y_ns, &mut column, columns);
    let height_ns = y_ns.iter().copied().max().unwrap_or(0);
    let mut out = ExecLayout {
        scale,
        y_ns,
        column,
        top_ns,
        bottom_ns,
        thread_at,
        columns: columns as u32,
        lane,
        guests,
        guest_start,
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

/// Each guest thread's column (its host's) and lane: guests of one column sorted by start, each in the first
/// lane (from 1) whose last guest ended before it starts, so tasks nested in time (a task run inside
/// another's taskwait) sit side by side. Returns the lanes by thread and the guests by column (CSR).
fn place_guests(
    g: &ExecGraph,
    guest: &[bool],
    y_ns: &[u64],
    column: &mut [u32],
    columns: usize,
) -> (Vec<u16>, Vec<ThreadIx>, Vec<u32>) {
    let n = g.threads.len();
    let mut lane = vec![0u16; n];
    if !guest.iter().any(|&x| x) {
        return (lane, Vec::new(), Vec::new());
    }
    let run = |t: usize| (y_ns[g.threads[t].start() as usize], y_ns[g.threads[t].end() as usize]);
    let mut guests: Vec<ThreadIx> = (0..n as ThreadIx).filter(|&t| guest[t as usize]).collect();
    for &t in &guests {
        column[t as usize] = column[g.column_owner(t) as usize];
    }
    guests.sort_dyn_by_key(|&t| (column[t as usize], run(t as usize).0, std::cmp::Reverse(run(t as usize).1), t));
    let mut guest_start = vec![0u32; columns + 1];
    let mut ends: Vec<u64> = Vec::new();
    let mut current = u32::MAX;
    for &t in &guests {
        let c = column[t as usize];
        guest_start[c as usize + 1] += 1;
        if c != current {
            ends.clear();
            current = c;
        }
        let (start, end) = run(t as usize);
        let k = match ends.iter().position(|&e| e <= start) {
            Some(k) => k,
            None => {
                ends.push(0);
                ends.len() - 1
            }
        };
        ends[k] = end.max(start + 1);
        lane[t as usize] = (k + 1).min(u16::MAX as usize) as u16;
    }
    for c in 0..columns {
        guest_start[c + 1] += guest_start[c];
    }
    (lane, guests, guest_start)
}

impl ExecLayout {
    /// The threads drawn in column `c`: its own, then its guests.
    pub fn threads_in_column(&self, c: u32) -> impl Iterator<Item = ThreadIx> + '_ {
        let c = c as usize;
        let guests = match (self.guest_start.get(c), self.guest_start.get(c + 1)) {
            (Some(&a), Some(&b)) => &self.guests[a as usize..b as usize],
            _ => &[],
        };
        std::iter::once(self.thread_at[c]).chain(guests.iter().copied())
    }

    /// The most lanes of guests any column has (0: no guests).
    pub fn max_lane(&self) -> u16 {
        self.lane.iter().copied().max().unwrap_or(0)
    }
}

/// The y of a node.
pub fn y_of(l: &ExecLayout, n: NodeIx) -> u64 {
    l.y_ns[n as usize]
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft_analyses::execgraph::build;
    use weft_model::thread_events::ThreadEventKind;
    use weft_samples::execgraph::sample;

    #[test]
    fn tasks_are_drawn_in_lanes_of_the_thread_that_ran_them() {
        let mut ev = sample("fib").expect("fib sample");
        let plain = layout(&build(&ev).expect("builds"), Scale::True);
        assert_eq!(plain.columns as usize, plain.column.len(), "without hosts: a column per thread");
        assert_eq!(plain.max_lane(), 0);
        // Every thread but the first runs on it (as an OpenMP task program's tasks on one thread).
        let ids: Vec<u64> = ev
            .events
            .iter()
            .filter(|e| !matches!(e.kind, ThreadEventKind::Init | ThreadEventKind::Exit))
            .map(|e| e.thread)
            .fold(Vec::new(), |mut v, id| {
                if !v.contains(&id) {
                    v.push(id);
                }
                v
            });
        ev.hosts = ids[1..].iter().map(|&id| (id, ids[0])).collect();
        let g = build(&ev).expect("builds");
        let l = layout(&g, Scale::True);
        assert_eq!(l.columns, 1, "one thread, one column");
        assert_eq!(l.thread_at, vec![0]);
        assert_eq!(l.threads_in_column(0).count(), g.threads.len());
        assert!(l.column.iter().all(|&c| c == 0));
        assert_eq!(l.lane[0], 0);
        assert!(l.lane[1..].iter().all(|&k| k >= 1));
        // Guests overlapping in time never share a lane.
        let run = |t: usize| (l.y_ns[g.threads[t].start() as usize], l.y_ns[g.threads[t].end() as usize]);
        for a in 1..g.threads.len() {
            for b in a + 1..g.threads.len() {
                let ((a0, a1), (b0, b1)) = (run(a), run(b));
                if a0 < b1 && b0 < a1 {
                    assert_ne!(l.lane[a], l.lane[b], "threads {a} and {b} overlap");
                }
            }
        }
        assert!(l.max_lane() >= 2, "fib's subthreads overlap: several lanes");
        let bundle = bundle::ExecBundle { graph: g, layout: l };
        assert!(bundle::ExecBundle::decode(&bundle.encode()).is_ok(), "the bundle round-trips");
    }
}
