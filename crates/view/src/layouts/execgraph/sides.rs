//! Which side of its parent each subthread is drawn on. Two subthreads of one parent drawn on the same side
//! cross exactly when their `[fork, join]` intervals overlap and neither contains the other (see
//! ../shared/papers/NOTES.md): the intersection graph of the subthreads is the overlap graph of these
//! intervals. A crossing-free assignment is a 2-colouring of it; where none exists, a greedy max-cut with a
//! local-exchange step. Then each connected component may be mirrored freely: components are mirrored so the
//! two sides stay balanced, outermost first (the paper's rule for series-parallel graphs).
//!
//! The overlap graph can have a quadratic number of edges (fork-all-then-join-all); nothing here lists them
//! except the local-exchange step, which runs only within an edge budget. Must not know about columns.

use std::collections::{BTreeMap, BTreeSet};

/// Pairs the local-exchange step may list per parent before it is skipped.
pub const EXCHANGE_BUDGET: u64 = 1 << 22;

/// One subthread as the side assignment sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    /// y of the fork and of the join (or end) node.
    pub lo: u64,
    pub hi: u64,
    /// Columns its own subtree needs.
    pub width: u64,
}

/// The assignment for one parent's subthreads, given in outermost-first order (lo ascending, hi descending).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sides {
    pub left: Vec<bool>,
    pub bipartite: bool,
    /// Not bipartite and too many intersecting pairs to list: greedy only.
    pub exchange_skipped: bool,
}

/// Whether two spans cross when drawn on the same side.
pub fn intersecting(a: Span, b: Span) -> bool {
    (a.lo < b.lo && b.lo < a.hi && a.hi < b.hi) || (b.lo < a.lo && a.lo < b.hi && b.hi < a.hi)
}

/// Union-find with the parity of each element relative to its root.
struct ParityUf {
    parent: Vec<u32>,
    parity: Vec<u8>,
}

impl ParityUf {
    fn new(n: usize) -> Self {
        ParityUf { parent: (0..n as u32).collect(), parity: vec![0; n] }
    }
    fn find(&mut self, x: u32) -> (u32, u8) {
        let mut root = x;
        let mut par = 0u8;
        while self.parent[root as usize] != root {
            par ^= self.parity[root as usize];
            root = self.parent[root as usize];
        }
        // Path compression, keeping parities right.
        let mut cur = x;
        let mut p = par;
        while self.parent[cur as usize] != root && cur != root {
            let next = self.parent[cur as usize];
            let next_p = p ^ self.parity[cur as usize];
            self.parent[cur as usize] = root;
            self.parity[cur as usize] = p;
            cur = next;
            p = next_p;
        }
        (root, par)
    }
    /// Say `a` and `b` differ by `diff`; false when that contradicts what is known.
    fn union(&mut self, a: u32, b: u32, diff: u8) -> bool {
        let (ra, pa) = self.find(a);
        let (rb, pb) = self.find(b);
        if ra == rb {
            return pa ^ pb == diff;
        }
        let (hi, lo) = if ra < rb { (ra, rb) } else { (rb, ra) };
        self.parent[lo as usize] = hi;
        self.parity[lo as usize] = pa ^ pb ^ diff;
        true
    }
}

fn key(hi: u64, i: usize) -> u128 {
    ((hi as u128) << 32) | i as u128
}

/// Components and a 2-colouring of the overlap graph without listing its edges, O(k log k): sweeping by
/// fork, the earlier subthreads a new one intersects are those still open whose join falls inside its span,
/// a contiguous range when ordered by join. All of them must share one colour, so ranges are kept merged into
/// blocks known to share a colour; each block is visited once more than it is merged.
fn colour(spans: &[Span]) -> (ParityUf, bool) {
    let k = spans.len();
    let mut uf = ParityUf::new(k);
    let mut bipartite = true;
    let mut elements: BTreeSet<u128> = BTreeSet::new();
    // start key -> (end key, representative)
    let mut blocks: BTreeMap<u128, (u128, u32)> = BTreeMap::new();
    let mut i = 0;
    while i < k {
        let mut j = i;
        while j < k && spans[j].lo == spans[i].lo {
            j += 1;
        }
        for (x, &s) in spans.iter().enumerate().take(j).skip(i) {
            if s.hi <= s.lo.saturating_add(1) {
                continue;
            }
            let (lo_key, hi_key) = (key(s.lo + 1, 0), key(s.hi, 0) - 1);
            let mut touched: Vec<(u128, u128, u32)> = Vec::new();
            if let Some((&bs, &(be, rep))) = blocks.range(..lo_key).next_back() {
                if be >= lo_key && elements.range(lo_key..=be.min(hi_key)).next().is_some() {
                    touched.push((bs, be, rep));
                }
            }
            touched.extend(blocks.range(lo_key..=hi_key).map(|(&bs, &(be, rep))| (bs, be, rep)));
            for &(_, _, rep) in &touched {
                bipartite &= uf.union(x as u32, rep, 1);
            }
            if touched.len() > 1 {
                for &(bs, _, _) in &touched {
                    blocks.remove(&bs);
                }
                let (first, last) = (touched[0], touched[touched.len() - 1]);
                blocks.insert(first.0, (last.1, first.2));
            }
        }
        for (x, s) in spans.iter().enumerate().take(j).skip(i) {
            let kx = key(s.hi, x);
            if let Some((&bs, &(be, rep))) = blocks.range(..kx).next_back() {
                if be > kx {
                    let pred = elements.range(..kx).next_back().copied();
                    let succ = elements.range(kx..).next().copied();
                    blocks.remove(&bs);
                    if let Some(p) = pred.filter(|&p| p >= bs) {
                        blocks.insert(bs, (p, rep));
                    }
                    if let Some(q) = succ.filter(|&q| q <= be) {
                        blocks.insert(q, (be, rep));
                    }
                }
            }
            elements.insert(kx);
            blocks.insert(kx, (kx, x as u32));
        }
        i = j;
    }
    (uf, bipartite)
}

/// Up to this many subthreads, pairs are simply tested (no sweep structures to allocate).
const SMALL: usize = 12;

/// [`colour`] for a few subthreads: every pair tested.
fn colour_small(spans: &[Span]) -> (ParityUf, bool) {
    let mut uf = ParityUf::new(spans.len());
    let mut bipartite = true;
    for (a, &sa) in spans.iter().enumerate() {
        for (b, &sb) in spans.iter().enumerate().skip(a + 1) {
            if intersecting(sa, sb) {
                bipartite &= uf.union(a as u32, b as u32, 1);
            }
        }
    }
    (uf, bipartite)
}

/// Fenwick tree of counts.
struct Fenwick(Vec<u32>);

impl Fenwick {
    fn add(&mut self, i: usize) {
        let mut i = i + 1;
        while i < self.0.len() {
            self.0[i] += 1;
            i += i & i.wrapping_neg();
        }
    }
    /// Sum of the first `n` positions.
    fn prefix(&self, n: usize) -> u32 {
        let mut i = n;
        let mut s = 0;
        while i > 0 {
            s += self.0[i];
            i &= i - 1;
        }
        s
    }
}

/// Greedy max-cut in outermost-first order: each subthread goes where fewer earlier ones cross it
/// (counted with a Fenwick tree per side over join ranks), ties to the narrower side.
fn greedy(spans: &[Span]) -> Vec<bool> {
    let mut his: Vec<u64> = spans.iter().map(|s| s.hi).collect();
    his.sort_unstable();
    his.dedup();
    let mut tree = [Fenwick(vec![0; his.len() + 1]), Fenwick(vec![0; his.len() + 1])];
    let mut width = [0u64; 2];
    let mut left = Vec::with_capacity(spans.len());
    for s in spans {
        let below_hi = his.partition_point(|&h| h < s.hi);
        let upto_lo = his.partition_point(|&h| h <= s.lo);
        let count = |t: &Fenwick| t.prefix(below_hi).saturating_sub(t.prefix(upto_lo.min(below_hi)));
        let (cl, cr) = (count(&tree[0]), count(&tree[1]));
        let side = if cl != cr { usize::from(cl > cr) } else { usize::from(width[0] > width[1]) };
        tree[side].add(below_hi);
        width[side] += s.width;
        left.push(side == 0);
    }
    left
}

/// The intersection edges, or None when listing them would take more than the budget.
fn edges(spans: &[Span]) -> Option<Vec<(u32, u32)>> {
    let los: Vec<u64> = spans.iter().map(|s| s.lo).collect();
    let mut work = 0u64;
    for s in spans {
        work += (los.partition_point(|&l| l < s.hi) - los.partition_point(|&l| l <= s.lo)) as u64;
        if work > EXCHANGE_BUDGET {
            return None;
        }
    }
    let mut out = Vec::new();
    for (a, s) in spans.iter().enumerate() {
        let (from, to) = (los.partition_point(|&l| l <= s.lo), los.partition_point(|&l| l < s.hi));
        for (b, t) in spans.iter().enumerate().take(to).skip(from) {
            if t.hi > s.hi {
                out.push((a as u32, b as u32));
            }
        }
    }
    Some(out)
}

/// Local exchange: flip one subthread, or two intersecting ones on opposite sides, while that removes
/// crossings. Each move removes at least one, so it ends.
fn exchange(k: usize, edges: &[(u32, u32)], left: &mut [bool]) {
    let mut deg = vec![0u32; k];
    let mut start = vec![0usize; k + 1];
    for &(a, b) in edges {
        deg[a as usize] += 1;
        deg[b as usize] += 1;
    }
    for v in 0..k {
        start[v + 1] = start[v] + deg[v] as usize;
    }
    let mut fill = start.clone();
    let mut adj = vec![0u32; start[k]];
    for &(a, b) in edges {
        adj[fill[a as usize]] = b;
        fill[a as usize] += 1;
        adj[fill[b as usize]] = a;
        fill[b as usize] += 1;
    }
    let mut same = vec![0i64; k];
    for &(a, b) in edges {
        if left[a as usize] == left[b as usize] {
            same[a as usize] += 1;
            same[b as usize] += 1;
        }
    }
    let gain = |v: usize, same: &[i64]| 2 * same[v] - deg[v] as i64;
    let flip = |v: usize, left: &mut [bool], same: &mut [i64]| {
        for &u in &adj[start[v]..start[v + 1]] {
            if left[u as usize] == left[v] {
                same[u as usize] -= 1;
            } else {
                same[u as usize] += 1;
            }
        }
        same[v] = deg[v] as i64 - same[v];
        left[v] = !left[v];
    };
    for _pass in 0..1000 {
        let mut improved = false;
        for v in 0..k {
            if gain(v, &same) > 0 {
                flip(v, left, &mut same);
                improved = true;
            }
        }
        for &(a, b) in edges {
            let (a, b) = (a as usize, b as usize);
            if left[a] != left[b] && gain(a, &same) + gain(b, &same) + 2 > 0 {
                flip(a, left, &mut same);
                flip(b, left, &mut same);
                improved = true;
            }
        }
        if !improved {
            break;
        }
    }
}

/// Assign sides to one parent's subthreads, given outermost-first.
pub fn assign(spans: &[Span]) -> Sides {
    let k = spans.len();
    let (mut uf, bipartite) = if k <= SMALL { colour_small(spans) } else { colour(spans) };
    let mut colour_of: Vec<bool> = Vec::with_capacity(k);
    let mut exchange_skipped = false;
    if bipartite {
        for x in 0..k as u32 {
            colour_of.push(uf.find(x).1 == 0);
        }
    } else {
        colour_of = greedy(spans);
        match edges(spans) {
            Some(e) => {
                // Three starts, each improved by local exchange; the best wins (the first on ties): the greedy
                // cut outermost-first, the greedy cut innermost-first, and the colouring the sweep's
                // union-find implies (right on a spanning forest of the intersection graph).
                let mut reversed: Vec<Span> = spans.to_vec();
                reversed.reverse();
                let mut inner = greedy(&reversed);
                inner.reverse();
                let forest: Vec<bool> = (0..k as u32).map(|x| uf.find(x).1 == 0).collect();
                let mut best = u64::MAX;
                for mut start in [colour_of.clone(), inner, forest] {
                    exchange(k, &e, &mut start);
                    let same = e.iter().filter(|&&(a, b)| start[a as usize] == start[b as usize]).count() as u64;
                    if same < best {
                        best = same;
                        colour_of = start;
                    }
                }
            }
            None => exchange_skipped = true,
        }
    }
    // Mirror whole components for balance, outermost first.
    let mut comp_of: Vec<u32> = Vec::with_capacity(k);
    let mut comp_index: Vec<u32> = vec![u32::MAX; k];
    let mut comps: Vec<[u64; 2]> = Vec::new();
    let mut comp_first_left: Vec<bool> = Vec::new();
    for x in 0..k as u32 {
        let root = uf.find(x).0 as usize;
        if comp_index[root] == u32::MAX {
            comp_index[root] = comps.len() as u32;
            comps.push([0, 0]);
            comp_first_left.push(colour_of[x as usize]);
        }
        let c = comp_index[root];
        comp_of.push(c);
        comps[c as usize][usize::from(!colour_of[x as usize])] += spans[x as usize].width;
    }
    let mut mirror = vec![false; comps.len()];
    let (mut wl, mut wr) = (0u64, 0u64);
    for (c, w) in comps.iter().enumerate() {
        // Both orientations compared by imbalance; on ties the component's outermost subthread goes to the
        // narrower side (left when even).
        let keep = (wl + w[0]).abs_diff(wr + w[1]);
        let flip = (wl + w[1]).abs_diff(wr + w[0]);
        mirror[c] = flip < keep || (flip == keep && comp_first_left[c] != (wl <= wr));
        if mirror[c] {
            wl += w[1];
            wr += w[0];
        } else {
            wl += w[0];
            wr += w[1];
        }
    }
    let left = (0..k).map(|x| colour_of[x] != mirror[comp_of[x] as usize]).collect();
    Sides { left, bipartite, exchange_skipped }
}

/// Same-side intersecting pairs of an assignment, O(k log k): the crossings it will have among these
/// subthreads themselves (for leaves, all of its crossings). Spans in outermost-first order.
pub fn same_side_pairs(spans: &[Span], left: &[bool]) -> u64 {
    let mut his: Vec<u64> = spans.iter().map(|s| s.hi).collect();
    his.sort_unstable();
    his.dedup();
    let mut tree = [Fenwick(vec![0; his.len() + 1]), Fenwick(vec![0; his.len() + 1])];
    let mut total = 0u64;
    for (s, &l) in spans.iter().zip(left) {
        let below_hi = his.partition_point(|&h| h < s.hi);
        let upto_lo = his.partition_point(|&h| h <= s.lo).min(below_hi);
        let t = &mut tree[usize::from(!l)];
        total += (t.prefix(below_hi) - t.prefix(upto_lo)) as u64;
        t.add(below_hi);
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sweep and the pairwise test agree on bipartiteness and on components, for small sets too.
    #[test]
    fn sweep_agrees_with_pairwise_colouring() {
        let mut x = 0x1234_5678_9abc_def1u64;
        let mut next = move |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        for round in 0..4000 {
            let k = 1 + round % 14;
            let mut spans: Vec<Span> = (0..k)
                .map(|_| {
                    let lo = next(30);
                    Span { lo, hi: lo + 1 + next(20), width: 1 }
                })
                .collect();
            spans.sort_by_key(|s| (s.lo, std::cmp::Reverse(s.hi)));
            let (mut a, ba) = colour(&spans);
            let (mut b, bb) = colour_small(&spans);
            assert_eq!(ba, bb, "{spans:?}");
            for i in 0..k as u32 {
                for j in 0..k as u32 {
                    assert_eq!(a.find(i).0 == a.find(j).0, b.find(i).0 == b.find(j).0, "{spans:?}");
                    if ba && a.find(i).0 == a.find(j).0 {
                        assert_eq!(a.find(i).1 ^ a.find(j).1, b.find(i).1 ^ b.find(j).1);
                    }
                }
            }
        }
    }
}
