//! Sorting through one comparator type. Every call here sorts with a `&mut dyn FnMut` comparator, so the
//! standard library's sort is instantiated once per element type rather than once per call site: each
//! instance is several KB of wasm, and sixty call sites had made sorting a large part of the page's
//! download. The indirect call costs a little per comparison, so paths that sort millions of records while a
//! file is read (the builder, the Chrome and Paraver readers) keep the standard methods.
//!
//! Both methods are stable (like `slice::sort_by`); a call site that used an unstable sort gets one of the
//! orders the unstable sort could have given.

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

#[cfg(test)]
mod tests {
    use super::SortDyn;

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
}
