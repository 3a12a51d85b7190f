//! Crossings counted on the final drawing, independently of how sides were chosen: every structural edge is
//! a horizontal segment (at its fork or join y, between two columns), every thread a vertical segment (its
//! column over its drawn span); a crossing is a horizontal strictly between the two ends of a vertical and a
//! vertical strictly between the two ends of a horizontal. One sweep over y with a Fenwick tree over columns,
//! O(n log n); counts reach the billions (fork-all-then-join-all) without listing anything.

use super::ExecLayout;
use crate::analyses::execgraph::{ExecGraph, NONE};

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
    hs.sort_unstable_by_key(|h| h.y);
    // Zero-length columns cannot be crossed strictly inside.
    let mut by_top: Vec<usize> = (0..g.threads.len()).filter(|&t| l.top_ns[t] < l.bottom_ns[t]).collect();
    let mut by_bottom = by_top.clone();
    by_top.sort_unstable_by_key(|&t| l.top_ns[t]);
    by_bottom.sort_unstable_by_key(|&t| l.bottom_ns[t]);
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
        while it < by_top.len() && l.top_ns[by_top[it]] < h.y {
            add(&mut tree, l.column[by_top[it]] as usize, 1);
            it += 1;
        }
        while ib < by_bottom.len() && l.bottom_ns[by_bottom[ib]] <= h.y {
            add(&mut tree, l.column[by_bottom[ib]] as usize, -1);
            ib += 1;
        }
        let (lo, hi) = (h.a.min(h.b) as usize, h.a.max(h.b) as usize);
        if hi > lo + 1 {
            total += (prefix(&tree, hi) - prefix(&tree, lo + 1)) as u64;
        }
    }
    total
}
