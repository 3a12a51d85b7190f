//! A call path's intervals marked on a store's timeline (issue #55): the call-tree panel's path, found by the
//! store worker in the level-0 tiles of the tree's window and sent as keys (location, start, depth, region:
//! a store has no whole-run index of its intervals), marked in each exact slice shown as the trace's marks
//! are (`TimelinePane::mark_call_path`). Zoomed out (a summary grid) nothing is marked until the exact
//! records show. Must not fetch tiles or find a path (the worker does).

use super::{Data, StorePane};
use std::collections::HashSet;
use std::rc::Rc;
use weft_analyses::calltree_bundle::PathKey;
use weft_model::Trace;

impl StorePane {
    /// Mark the intervals of these keys (None: no marks) in the exact slices shown from now on; the keys
    /// held.
    pub fn mark_call_path_keys(&mut self, keys: Option<Rc<[PathKey]>>) -> usize {
        let n = keys.as_ref().map_or(0, |k| k.len());
        self.call_marks = keys;
        self.apply_call_marks();
        n
    }

    /// The keys marked, if any.
    pub fn call_path_keys(&self) -> Option<usize> {
        self.call_marks.as_ref().map(|k| k.len())
    }

    /// The store's definitions (its regions and locations: the call tree's names).
    pub fn shared_skeleton(&self) -> Rc<Trace> {
        self.skeleton.clone()
    }

    /// The marks held, applied to the exact slice shown.
    pub(super) fn apply_call_marks(&mut self) {
        let Data::Exact { pane, .. } = &mut self.data else { return };
        let found = self.call_marks.as_ref().map(|k| Rc::from(intervals_of(pane.trace(), k)));
        pane.mark_call_path(found);
    }
}

/// The intervals of `trace` (a slice of the store) that `keys` name, in the trace's order.
fn intervals_of(trace: &Trace, keys: &[PathKey]) -> Vec<u32> {
    let want: HashSet<PathKey> = keys.iter().copied().collect();
    let iv = &trace.intervals;
    (0..iv.start_ns.len())
        .filter(|&i| {
            want.contains(&PathKey {
                location: iv.location[i],
                start_ns: iv.start_ns[i],
                depth: iv.depth[i],
                region: iv.region[i],
            })
        })
        .map(|i| i as u32)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft_model::{Format, LocationId, LocationKind, RegionId, TraceBuilder};

    #[test]
    fn keys_find_their_intervals_in_a_slice() {
        let mut b = TraceBuilder::new(Format::Generated);
        let p = b.process(0);
        let l0 = b.location(p, 0, LocationKind::CpuThread);
        let l1 = b.location(p, 1, LocationKind::CpuThread);
        let [main, wait] = ["main", "MPI_Wait"].map(|n| b.region(n, ""));
        b.interval(l0, main, 0, 100);
        b.interval(l0, wait, 10, 5);
        b.interval(l0, wait, 50, 5);
        b.interval(l1, main, 0, 90);
        b.interval(l1, wait, 10, 5);
        let t = b.finish();
        let key = |l: u32, start_ns: u64| PathKey { location: LocationId(l), start_ns, depth: 1, region: RegionId(1) };
        let found = intervals_of(&t, &[key(0, 50), key(1, 10), key(1, 77)]);
        let got: Vec<(u32, u64)> =
            found.iter().map(|&i| (t.intervals.location[i as usize].0, t.intervals.start_ns[i as usize])).collect();
        assert_eq!(got, [(0, 50), (1, 10)]);
    }
}
