//! The call tree of a selection packed for the trip from the worker, which computes it (`calltree::call_tree`,
//! `per_location`, `CallTree::inverted`), to the page, which lists it, draws it as a flame graph and marks a
//! path's intervals in the timeline (issue #55); and the intervals of one call path ([`path_intervals`]), which
//! the worker finds for the page's marks.
//!
//! Column buffers (`weft_model::columns`): one or more trees (merged, or one per location) as node columns.
//! Decoding checks every node against the trace it is for (regions, parents before children, subtrees inside
//! their parents, depths), so corrupt or mismatched bytes are an error, never a panic later in a view.
//! Draws nothing and computes no figure: the numbers are `weft calltree --json`'s.

use super::calltree::{counts_in, CallNode, CallTree};
use super::moments::TimeWindow;
use thiserror::Error;
use weft_model::columns::{ColumnReader, ColumnWriter};
use weft_model::{LocationId, RegionId, Trace};

const MAGIC: &[u8; 8] = b"WEFTCTR1";
const PATH_MAGIC: &[u8; 8] = b"WEFTCTP1";
const KEYS_MAGIC: &[u8; 8] = b"WEFTCTK1";
/// No location (the merged tree), no parent (a root).
const NONE: u32 = u32::MAX;

#[derive(Debug, Error, PartialEq)]
pub enum CallTreeBundleError {
    #[error("call-tree buffer corrupt: {0}")]
    Corrupt(String),
    #[error("call-tree buffer does not fit the trace: {0}")]
    Mismatch(String),
}

/// One tree of a bundle: merged over the selected locations (`location` None) or of one location.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BundleTree {
    pub location: Option<LocationId>,
    pub tree: CallTree,
}

/// What the worker sends the page: the selection asked for and its tree(s).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallTreeBundle {
    /// The window the tree is of ([0, span] for the whole run).
    pub window: TimeWindow,
    /// The selected locations, None for every location.
    pub locations: Option<Vec<u32>>,
    /// Bottom up (`CallTree::inverted`).
    pub inverted: bool,
    /// One tree per location (locations without a counted interval left out) rather than one merged.
    pub per_location: bool,
    pub trees: Vec<BundleTree>,
}

impl CallTreeBundle {
    pub fn encode(&self) -> Vec<u8> {
        let mut w = ColumnWriter::new(MAGIC);
        let flags =
            u64::from(self.inverted) | (u64::from(self.per_location) << 1) | (u64::from(self.locations.is_some()) << 2);
        w.col(&[self.window.start_ns, self.window.end_ns, flags]);
        w.col(self.locations.as_deref().unwrap_or(&[]));
        w.col(&self.trees.iter().map(|t| t.location.map_or(NONE, |l| l.0)).collect::<Vec<u32>>());
        w.col(&self.trees.iter().map(|t| t.tree.nodes.len() as u64).collect::<Vec<u64>>());
        let nodes = || self.trees.iter().flat_map(|t| t.tree.nodes.iter());
        w.col(
            &nodes().map(|n| [n.parent.unwrap_or(NONE), n.region.0, n.depth, n.subtree_end]).collect::<Vec<[u32; 4]>>(),
        );
        w.col(&nodes().map(|n| [n.count, n.inclusive_ns, n.exclusive_ns]).collect::<Vec<[u64; 3]>>());
        w.finish()
    }

    /// The bundle in `bytes`, checked against `trace` (the trace it must belong to).
    pub fn decode(bytes: &[u8], trace: &Trace) -> Result<Self, CallTreeBundleError> {
        let corrupt = |e: weft_model::columns::ColumnError| CallTreeBundleError::Corrupt(e.to_string());
        let mismatch = |what: String| CallTreeBundleError::Mismatch(what);
        let mut r = ColumnReader::new(bytes, MAGIC).map_err(corrupt)?;
        let head: Vec<u64> = r.col("the selection").map_err(corrupt)?;
        let &[start_ns, end_ns, flags] = head.as_slice() else {
            return Err(CallTreeBundleError::Corrupt("the selection is not three numbers".into()));
        };
        let locations: Vec<u32> = r.col("the locations").map_err(corrupt)?;
        let tree_locations: Vec<u32> = r.col("the trees' locations").map_err(corrupt)?;
        let sizes: Vec<u64> = r.col("the trees' sizes").map_err(corrupt)?;
        let ids: Vec<[u32; 4]> = r.col("the nodes").map_err(corrupt)?;
        let figures: Vec<[u64; 3]> = r.col("the nodes' figures").map_err(corrupt)?;
        r.end().map_err(corrupt)?;
        if start_ns > end_ns || flags > 7 {
            return Err(CallTreeBundleError::Corrupt(format!("selection {start_ns}..{end_ns}, flags {flags}")));
        }
        if tree_locations.len() != sizes.len() || ids.len() != figures.len() {
            return Err(CallTreeBundleError::Corrupt("columns of unequal lengths".into()));
        }
        if sizes.iter().try_fold(0u64, |a, &s| a.checked_add(s)) != Some(ids.len() as u64) {
            return Err(CallTreeBundleError::Corrupt("the trees' sizes do not add up to the nodes".into()));
        }
        let n_locations = trace.locations.len();
        if let Some(l) =
            locations.iter().chain(tree_locations.iter().filter(|&&l| l != NONE)).find(|&&l| l as usize >= n_locations)
        {
            return Err(mismatch(format!("location {l} (the trace has {n_locations})")));
        }
        let mut trees = Vec::with_capacity(sizes.len());
        let mut at = 0usize;
        for (&location, &size) in tree_locations.iter().zip(&sizes) {
            let (ids, figures) = (&ids[at..at + size as usize], &figures[at..at + size as usize]);
            at += size as usize;
            let tree = checked_tree(ids, figures, trace.regions.len()).map_err(mismatch)?;
            trees.push(BundleTree { location: (location != NONE).then_some(LocationId(location)), tree });
        }
        Ok(CallTreeBundle {
            window: TimeWindow { start_ns, end_ns },
            locations: (flags & 4 != 0).then_some(locations),
            inverted: flags & 1 != 0,
            per_location: flags & 2 != 0,
            trees,
        })
    }
}

/// One tree's nodes, each checked: its region of the trace, its parent an earlier node whose subtree holds it
/// one level down, its subtree inside its parent's.
fn checked_tree(ids: &[[u32; 4]], figures: &[[u64; 3]], regions: usize) -> Result<CallTree, String> {
    let n = ids.len();
    let mut nodes: Vec<CallNode> = Vec::with_capacity(n);
    for (k, (&[parent, region, depth, subtree_end], &[count, inclusive_ns, exclusive_ns])) in
        ids.iter().zip(figures).enumerate()
    {
        let bad = |what: &str| format!("node {k} (region {region}, parent {parent}): {what}");
        if region as usize >= regions {
            return Err(bad("no such region"));
        }
        if (subtree_end as usize) <= k || subtree_end as usize > n {
            return Err(bad("its subtree is out of the tree"));
        }
        let parent = match parent {
            NONE if depth == 0 => None,
            NONE => return Err(bad("a root below depth 0")),
            p if (p as usize) < k => {
                let up: &CallNode = &nodes[p as usize];
                if up.depth + 1 != depth || up.subtree_end < subtree_end || (up.subtree_end as usize) <= k {
                    return Err(bad("not inside its parent"));
                }
                Some(p)
            }
            _ => return Err(bad("its parent comes after it")),
        };
        nodes.push(CallNode {
            parent,
            region: RegionId(region),
            depth,
            count,
            inclusive_ns,
            exclusive_ns,
            subtree_end,
        });
    }
    Ok(CallTree { nodes })
}

/// The intervals of one call path that count in `window`, on the locations `keep` accepts: their indices in
/// `trace.intervals`, in the trace's order (by location, then start). Top down, `path` is the regions
/// outermost first and an interval matches when it and its enclosing intervals are exactly those regions; with
/// `inverted`, `path` is a node of the bottom-up tree (the region where time is spent first, then its callers)
/// and an interval matches when it is of `path[0]`, its parent of `path[1]`, and so on (at any depth). So a
/// path's intervals number its node's `count`. One pass with a stack of regions by depth.
pub fn path_intervals(
    trace: &Trace,
    window: TimeWindow,
    keep: impl Fn(LocationId) -> bool,
    path: &[RegionId],
    inverted: bool,
) -> Vec<u32> {
    let iv = &trace.intervals;
    let mut out = Vec::new();
    let Some(&last) = (if inverted { path.first() } else { path.last() }) else { return out };
    let mut stack: Vec<RegionId> = Vec::new();
    for l in (0..trace.locations.len() as u32).map(LocationId).filter(|&l| keep(l)) {
        stack.clear();
        for i in trace.intervals_of(l) {
            let start = iv.start_ns[i];
            if start > window.end_ns {
                break;
            }
            let d = iv.depth[i] as usize;
            stack.truncate(d);
            stack.push(iv.region[i]);
            if iv.region[i] != last || stack.len() != d + 1 || !counts_in(window, start, iv.dur_ns[i]) {
                continue;
            }
            let matches = if inverted {
                stack.len() >= path.len() && stack.iter().rev().zip(path).all(|(a, b)| a == b)
            } else {
                stack.as_slice() == path
            };
            if matches {
                out.push(i as u32);
            }
        }
    }
    out
}

/// A path's intervals for the page's marks (`path_intervals`), as a buffer.
pub fn encode_path_intervals(intervals: &[u32]) -> Vec<u8> {
    let mut w = ColumnWriter::new(PATH_MAGIC);
    w.col(intervals);
    w.finish()
}

/// The intervals in `bytes`, checked against `trace`: each an interval of it, in the trace's order.
pub fn decode_path_intervals(bytes: &[u8], trace: &Trace) -> Result<Vec<u32>, CallTreeBundleError> {
    let corrupt = |e: weft_model::columns::ColumnError| CallTreeBundleError::Corrupt(e.to_string());
    let mut r = ColumnReader::new(bytes, PATH_MAGIC).map_err(corrupt)?;
    let v: Vec<u32> = r.col("the path's intervals").map_err(corrupt)?;
    r.end().map_err(corrupt)?;
    if v.windows(2).any(|w| w[0] >= w[1]) {
        return Err(CallTreeBundleError::Corrupt("the path's intervals are not in the trace's order".into()));
    }
    if let Some(&i) = v.last().filter(|&&i| i as usize >= trace.intervals.len()) {
        return Err(CallTreeBundleError::Mismatch(format!("interval {i} (the trace has {})", trace.intervals.len())));
    }
    Ok(v)
}

/// One interval of a path named by what it is rather than by its index (a store has no whole-run index of
/// its intervals: the page finds it in each exact slice it is shown, `views::store`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PathKey {
    pub location: LocationId,
    pub start_ns: u64,
    pub depth: u16,
    pub region: RegionId,
}

/// The keys of `intervals` (indices into `trace.intervals`, as [`path_intervals`] gives them).
pub fn path_keys(trace: &Trace, intervals: &[u32]) -> Vec<PathKey> {
    let iv = &trace.intervals;
    intervals
        .iter()
        .map(|&i| {
            let i = i as usize;
            PathKey { location: iv.location[i], start_ns: iv.start_ns[i], depth: iv.depth[i], region: iv.region[i] }
        })
        .collect()
}

/// A path's interval keys for the page's marks on a store, as a buffer.
pub fn encode_path_keys(keys: &[PathKey]) -> Vec<u8> {
    let mut w = ColumnWriter::new(KEYS_MAGIC);
    w.col(&keys.iter().map(|k| [k.location.0, k.region.0, u32::from(k.depth)]).collect::<Vec<[u32; 3]>>());
    w.col(&keys.iter().map(|k| k.start_ns).collect::<Vec<u64>>());
    w.finish()
}

/// The keys in `bytes`, checked against `trace` (a store's definitions): their locations and regions.
pub fn decode_path_keys(bytes: &[u8], trace: &Trace) -> Result<Vec<PathKey>, CallTreeBundleError> {
    let corrupt = |e: weft_model::columns::ColumnError| CallTreeBundleError::Corrupt(e.to_string());
    let mut r = ColumnReader::new(bytes, KEYS_MAGIC).map_err(corrupt)?;
    let ids: Vec<[u32; 3]> = r.col("the path's intervals").map_err(corrupt)?;
    let starts: Vec<u64> = r.col("the path's starts").map_err(corrupt)?;
    r.end().map_err(corrupt)?;
    if ids.len() != starts.len() {
        return Err(CallTreeBundleError::Corrupt("columns of unequal lengths".into()));
    }
    ids.iter()
        .zip(starts)
        .map(|(&[l, region, depth], start_ns)| {
            if l as usize >= trace.locations.len() || region as usize >= trace.regions.len() {
                return Err(CallTreeBundleError::Mismatch(format!("location {l}, region {region}")));
            }
            let depth = u16::try_from(depth).map_err(|_| CallTreeBundleError::Corrupt(format!("depth {depth}")))?;
            Ok(PathKey { location: LocationId(l), start_ns, depth, region: RegionId(region) })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calltree::{call_tree, per_location};
    use weft_model::{Format, LocationKind, TraceBuilder};

    /// main > solve > wait and main > f > f > g on two locations (tests/calltree.rs's `known`).
    fn known() -> Trace {
        let mut b = TraceBuilder::new(Format::Generated);
        let p = b.process(0);
        let l0 = b.location(p, 0, LocationKind::CpuThread);
        let l1 = b.location(p, 1, LocationKind::CpuThread);
        let [main, solve, wait, kernel, f, g] =
            ["main", "solve", "MPI_Waitall", "kernel", "f", "g"].map(|n| b.region(n, ""));
        b.interval(l0, main, 0, 100);
        b.interval(l0, solve, 10, 50);
        b.interval(l0, wait, 20, 10);
        b.interval(l0, kernel, 35, 20);
        b.interval(l0, wait, 95, 0);
        b.interval(l1, main, 0, 80);
        b.interval(l1, solve, 5, 40);
        b.interval(l1, wait, 10, 10);
        b.interval(l1, f, 50, 30);
        b.interval(l1, f, 55, 20);
        b.interval(l1, g, 60, 5);
        b.finish()
    }

    #[test]
    fn a_bundle_round_trips_merged_and_per_location() {
        let t = known();
        let window = TimeWindow { start_ns: 15, end_ns: 70 };
        let merged = call_tree(&t, Some(window), |_| true);
        let b = CallTreeBundle {
            window,
            locations: None,
            inverted: true,
            per_location: false,
            trees: vec![BundleTree { location: None, tree: merged.inverted(&t) }],
        };
        assert_eq!(CallTreeBundle::decode(&b.encode(), &t).unwrap(), b);
        let trees = per_location(&t, None, |l| l.0 == 1)
            .into_iter()
            .map(|lt| BundleTree { location: Some(lt.location), tree: lt.tree })
            .collect();
        let b = CallTreeBundle {
            window: TimeWindow::whole(&t),
            locations: Some(vec![1]),
            inverted: false,
            per_location: true,
            trees,
        };
        assert_eq!(CallTreeBundle::decode(&b.encode(), &t).unwrap(), b);
    }

    #[test]
    fn corrupt_or_foreign_bytes_are_errors() {
        let t = known();
        let b = CallTreeBundle {
            window: TimeWindow::whole(&t),
            locations: None,
            inverted: false,
            per_location: false,
            trees: vec![BundleTree { location: None, tree: call_tree(&t, None, |_| true) }],
        };
        let bytes = b.encode();
        for cut in [0, 8, 20, bytes.len() - 1] {
            assert!(CallTreeBundle::decode(&bytes[..cut], &t).is_err(), "cut at {cut}");
        }
        // A trace with fewer regions: the bundle is not of it.
        let mut small = TraceBuilder::new(Format::Generated);
        let p = small.process(0);
        let l = small.location(p, 0, LocationKind::CpuThread);
        let r = small.region("main", "");
        small.interval(l, r, 0, 10);
        assert!(matches!(CallTreeBundle::decode(&bytes, &small.finish()), Err(CallTreeBundleError::Mismatch(_))));
        // A node whose parent comes after it.
        let mut bad = b.clone();
        bad.trees[0].tree.nodes[1].parent = Some(5);
        assert!(matches!(CallTreeBundle::decode(&bad.encode(), &t), Err(CallTreeBundleError::Mismatch(_))));
        assert!(decode_path_intervals(&encode_path_intervals(&[3, 1]), &t).is_err());
        assert!(decode_path_intervals(&encode_path_intervals(&[1, 99]), &t).is_err());
        assert_eq!(decode_path_intervals(&encode_path_intervals(&[1, 3]), &t).unwrap(), vec![1, 3]);
    }

    /// Every node's path has exactly its count of intervals, top down and bottom up, whole and windowed.
    #[test]
    fn a_paths_intervals_number_its_count() {
        let t = known();
        for window in
            [TimeWindow::whole(&t), TimeWindow { start_ns: 15, end_ns: 58 }, TimeWindow { start_ns: 95, end_ns: 100 }]
        {
            let top = call_tree(&t, Some(window), |_| true);
            for tree in [&top, &top.inverted(&t)] {
                let inverted = !std::ptr::eq(tree, &top);
                for k in 0..tree.nodes.len() {
                    let path = tree.path(k);
                    let found = path_intervals(&t, window, |_| true, &path, inverted);
                    assert_eq!(found.len() as u64, tree.nodes[k].count, "{window:?} inverted {inverted} node {k}");
                    // Bottom up, the intervals are of the region where the time is spent: the path's first.
                    let region = if inverted { path[0] } else { tree.nodes[k].region };
                    assert!(found.iter().all(|&i| t.intervals.region[i as usize] == region));
                }
            }
        }
        // main > f > f: the inner f only; bottom up [f, f]: the same interval.
        let [f] =
            ["f"].map(|n| RegionId((0..t.regions.len() as u32).find(|&r| t.region_name(RegionId(r)) == n).unwrap()));
        let main = RegionId(0);
        let w = TimeWindow::whole(&t);
        assert_eq!(path_intervals(&t, w, |_| true, &[main, f, f], false), vec![9]);
        assert_eq!(path_intervals(&t, w, |_| true, &[f, f], true), vec![9]);
        assert_eq!(path_intervals(&t, w, |_| true, &[f], true), vec![8, 9]);
        assert_eq!(path_intervals(&t, w, |l| l.0 == 0, &[f], true), Vec::<u32>::new());
    }

    #[test]
    fn path_keys_round_trip_and_are_checked() {
        let t = known();
        let w = TimeWindow::whole(&t);
        let found = path_intervals(&t, w, |_| true, &[RegionId(0), RegionId(1), RegionId(2)], false);
        let keys = path_keys(&t, &found);
        assert_eq!(keys.len(), found.len());
        assert!(!keys.is_empty());
        assert_eq!(decode_path_keys(&encode_path_keys(&keys), &t).unwrap(), keys);
        let bad = [PathKey { location: LocationId(9), start_ns: 0, depth: 0, region: RegionId(0) }];
        assert!(matches!(decode_path_keys(&encode_path_keys(&bad), &t), Err(CallTreeBundleError::Mismatch(_))));
        assert!(decode_path_keys(&encode_path_intervals(&found), &t).is_err());
    }
}
