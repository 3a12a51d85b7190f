//! Sorting through one comparator type. Every call here sorts with a `&mut dyn FnMut` comparator, so the
//! standard library's sort is instantiated once per element type rather than once per call site: each
//! instance is several KB of wasm, and sixty call sites had made sorting a large part of the page's
//! download. The indirect call costs a little per comparison, so paths that sort millions of records while a
//! file is read (the builder, the Chrome and Paraver readers) keep the standard methods.
//!
//! Both methods are stable (like `slice::sort_by`); a call site that used an unstable sort gets one of the
//! orders the unstable sort could have given.
//!
//! [`KMerge`] is the one k-way merge of sorted sources (the OTF2 reader's spilled message ends, the index's
//! spilled runs and counter samples): it must not know where its sources' items come from.

use std::cmp::Ordering;

pub trait SortDyn<T> {
    /// `slice::sort_by`, through a `dyn` comparator.
    fn sort_dyn_by(&mut self, cmp: impl FnMut(&T, &T) -> Ordering);
    /// `slice::sort_by_key`, through a `dyn` comparator.
    fn sort_dyn_by_key<K: Ord>(&mut self, key: impl FnMut(&T) -> K);
}

impl<T> SortDyn<T> for [T] {
    fn sort_dyn_by(&mut self, mut cmp: impl FnMut(&T, &T) -> Ordering) {
        let cmp: &mut dyn FnMut(&T, &T) -> Ordering = &mut cmp;
        self.sort_by(cmp);
    }

    fn sort_dyn_by_key<K: Ord>(&mut self, mut key: impl FnMut(&T) -> K) {
        self.sort_dyn_by(|a, b| key(a).cmp(&key(b)));
    }
}

/// One k-way merge (issue #52), shared by the readers and the index: a tournament (loser) tree over `k`
/// sorted sources, each leaf the source's next item (`None` once it has none left). The caller owns the
/// sources and reads them (from memory, a spill, pages on demand: any error is the caller's): it takes the
/// least item with [`replace`](Self::replace), handing over the same source's next. Items are compared by
/// `Ord`, equal items by their source's number (the lower first), so the merge gives what a stable sort of
/// the sources' items, concatenated in source order, gives. A replace plays the new item against the
/// losers on its leaf's path to the root: `log2 k` comparisons, the items staying where they are.
pub struct KMerge<T> {
    /// Per source: its next item.
    heads: Vec<Option<T>>,
    /// `tree[0]`: the source whose item is the least; `tree[n]` (1 <= n < k): the source that lost the play
    /// at node n. Source i's leaf is node `k + i`; node n's parent is n / 2.
    tree: Vec<usize>,
}

impl<T: Ord> KMerge<T> {
    /// A merge of sources whose first items (`None`: an empty source) are `heads`, in source order.
    pub fn new(heads: Vec<Option<T>>) -> KMerge<T> {
        let mut m = KMerge { tree: vec![0; heads.len()], heads };
        if m.heads.len() > 1 {
            m.tree[0] = m.play(1);
        }
        m
    }

    /// Whether source `a`'s item comes before source `b`'s (a source with none left comes after any).
    #[inline(always)]
    fn before(&self, a: usize, b: usize) -> bool {
        match (&self.heads[a], &self.heads[b]) {
            (Some(x), Some(y)) => match x.cmp(y) {
                Ordering::Less => true,
                Ordering::Greater => false,
                Ordering::Equal => a < b,
            },
            (Some(_), None) => true,
            (None, _) => false,
        }
    }

    /// The winner of the subtree at `node`, the losers of its plays written to its nodes.
    fn play(&mut self, node: usize) -> usize {
        let leaves = self.heads.len();
        if node >= leaves {
            return node - leaves;
        }
        let (a, b) = (self.play(2 * node), self.play(2 * node + 1));
        let (w, l) = if self.before(b, a) { (b, a) } else { (a, b) };
        self.tree[node] = l;
        w
    }

    /// The least item not yet taken and its source; None when every source is done.
    #[inline]
    pub fn peek(&self) -> Option<(usize, &T)> {
        let &w = self.tree.first()?;
        self.heads[w].as_ref().map(|h| (w, h))
    }

    /// Take the least item ([`peek`](Self::peek)'s), `next` its source's next item in its place.
    #[inline]
    pub fn replace(&mut self, next: Option<T>) -> Option<T> {
        let &w = self.tree.first()?;
        let taken = std::mem::replace(&mut self.heads[w], next);
        // Which of two sources comes first is as good as a coin's toss where they interleave, so the play is
        // selects, not a branch.
        let (mut win, mut node) = (w, (w + self.heads.len()) / 2);
        while node > 0 {
            let l = self.tree[node];
            let l_first = self.before(l, win);
            self.tree[node] = std::hint::select_unpredictable(l_first, win, l);
            win = std::hint::select_unpredictable(l_first, l, win);
            node /= 2;
        }
        self.tree[0] = win;
        taken
    }
}

#[cfg(test)]
mod tests {
    use super::{KMerge, SortDyn};

    #[test]
    fn sorts_like_the_standard_methods_and_stably() {
        let mut v: Vec<(u32, u32)> = (0..200u32).map(|i| ((i * 7919) % 13, i)).collect();
        let mut w = v.clone();
        v.sort_dyn_by_key(|p| p.0);
        w.sort_by_key(|p| p.0);
        assert_eq!(v, w, "stable: equal keys keep their order");
        v.sort_dyn_by(|a, b| b.1.cmp(&a.1));
        assert!(v.windows(2).all(|p| p[0].1 >= p[1].1));
    }
    #[test]
    fn the_merge_gives_a_stable_sorts_order() {
        // Sources of keys with many equal ones across sources, some empty; each item tagged with its source.
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut rand = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        for k in [0usize, 1, 2, 3, 5, 8, 13] {
            let sources: Vec<Vec<u32>> = (0..k)
                .map(|_| {
                    let mut s: Vec<u32> = (0..rand(40)).map(|_| rand(25) as u32).collect();
                    s.sort();
                    s
                })
                .collect();
            let mut want: Vec<(u32, usize)> =
                sources.iter().enumerate().flat_map(|(i, s)| s.iter().map(move |&x| (x, i))).collect();
            want.sort_by_key(|p| p.0);
            let mut at = vec![0usize; k];
            let mut m = KMerge::new(sources.iter().map(|s| s.first().copied()).collect());
            let mut got = Vec::new();
            while let Some((i, &x)) = m.peek() {
                at[i] += 1;
                assert_eq!(m.replace(sources[i].get(at[i]).copied()), Some(x));
                got.push((x, i));
            }
            assert_eq!(got, want, "{k} sources");
            assert_eq!(m.replace(None), None);
        }
    }
}
