//! Crossings counted on the final drawing, independently of how sides were chosen: every structural edge is
//! a horizontal segment (at its fork or join y, between two columns), every thread a vertical segment (its
//! column over its drawn span); a crossing is a horizontal strictly between the two ends of a vertical and a
//! vertical strictly between the two ends of a horizontal. One sweep over y with a Fenwick tree over columns,
//! O(n log n); counts reach the billions (fork-all-then-join-all) without listing anything.

use super::ExecLayout;
use weft_analyses::execgraph::{ExecGraph, NONE};
use weft_model::sort::SortDyn;

/// A horizontal segment: y, and the columns of its two ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Horizontal {
    pub y: u64,
    pub a: u32,
    pub b: u32,
}

/// Every structural edge of the drawing as a horizontal segment.
pub fn horizontals(g: &ExecGraph, l: &ExecLayout) -> Vec<Horizontal> {
    let mut out = Vec::with_capacity(2 * g.threads.len());
    for (t, th) in g.threads.iter().enumerate() {
        let col = l.column[t];
        if th.fork_node != NONE {
            let owner = g.nodes[th.fork_node as usize].thread as usize;
            out.push(Horizontal { y: l.y_ns[th.fork_node as usize], a: l.column[owner], b: col });
        }
        if th.join_node != NONE {
            let owner = g.nodes[th.join_node as usize].thread as usize;
            out.push(Horizontal { y: l.y_ns[th.join_node as usize], a: col, b: l.column[owner] });
        }
    }
    out
}

pub fn count(g: &ExecGraph, l: &ExecLayout) -> u64 {
    let mut hs = horizontals(g, l);
    hs.sort_dyn_by_key(|h| (h.y, h.a, h.b));
    // Zero-length columns cannot be crossed strictly inside. (key, column) pairs sort faster than indices.
    let mut by_top: Vec<(u64, u32)> = Vec::with_capacity(g.threads.len());
    let mut by_bottom: Vec<(u64, u32)> = Vec::with_capacity(g.threads.len());
    for t in 0..g.threads.len() {
        // A guest (a task inside its thread's column) lies within its host's span: the host's vertical counts.
        if l.top_ns[t] < l.bottom_ns[t] && l.lane.get(t).is_none_or(|&k| k == 0) {
            by_top.push((l.top_ns[t], l.column[t]));
            by_bottom.push((l.bottom_ns[t], l.column[t]));
        }
    }
    by_top.sort_unstable();
    by_bottom.sort_unstable();
    let cols = l.columns as usize;
    let mut tree = vec![0i64; cols + 1];
    let add = |tree: &mut Vec<i64>, c: usize, d: i64| {
        let mut i = c + 1;
        while i <= cols {
            tree[i] += d;
            i += i & i.wrapping_neg();
        }
    };
    let prefix = |tree: &Vec<i64>, n: usize| {
        let (mut i, mut s) = (n, 0i64);
        while i > 0 {
            s += tree[i];
            i &= i - 1;
        }
        s
    };
    let (mut it, mut ib) = (0, 0);
    let mut total = 0u64;
    for h in hs {
        // Active: top < y < bottom. Insert before removing; a removed column was inserted (top < bottom <= y).
        while it < by_top.len() && by_top[it].0 < h.y {
            add(&mut tree, by_top[it].1 as usize, 1);
            it += 1;
        }
        while ib < by_bottom.len() && by_bottom[ib].0 <= h.y {
            add(&mut tree, by_bottom[ib].1 as usize, -1);
            ib += 1;
        }
        let (lo, hi) = (h.a.min(h.b) as usize, h.a.max(h.b) as usize);
        if hi > lo + 1 {
            total += (prefix(&tree, hi) - prefix(&tree, lo + 1)) as u64;
        }
    }
    total
}
