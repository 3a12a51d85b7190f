//! The region profile of a time window: per region, how many of its intervals touch the window, its
//! inclusive and exclusive time clipped to the window, and its share, over all locations or a chosen set.
//! `weft info` (`regions` in its JSON, `--window T0:T1`) and the timeline's selection table (the page) both
//! show [`profile_table`] of [`region_stats`]; `summary::region_totals` is the whole-trace case of the same
//! walk, so the summary's top regions and the profile agree by construction.
//!
//! Definitions, per location, with an interval's clipped time = |[start, end] ∩ [t0, t1]|:
//! - count: intervals whose clipped time is positive, or of zero duration with t0 <= start <= t1 (so the
//!   whole trace's window [0, span] counts every interval);
//! - inclusive: clipped time of the intervals of the region that have no enclosing interval of the same
//!   region (recursion counted once);
//! - exclusive: an interval's clipped time minus its direct children's clipped time, summed per region;
//! - share: exclusive over the sum of every region's exclusive time (the time any interval covers).
//!
//! One pass over each location's intervals with a stack by depth (intervals are sorted by start, then depth,
//! and a child never outlasts its parent: the model's invariants). Must not: read a clock, know a view, or
//! allocate per interval.

use super::moments::TimeWindow;
use serde::Serialize;
use weft_model::sort::SortDyn;
use weft_model::{LocationId, RegionId, Trace};

/// One region's figures in a window (indexed by region in [`region_stats`]'s result).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RegionStats {
    pub count: u64,
    pub inclusive_ns: u64,
    pub exclusive_ns: u64,
}

/// A row of the profile table: the JSON keys (`name`, `count`, `inclusive_ns`, `exclusive_ns`) are the
/// CLI's stable interface; `region` is the region's index in the trace (the page highlights by it).
#[derive(Clone, Debug, Serialize, serde::Deserialize, PartialEq)]
pub struct RegionProfile {
    pub region: u32,
    pub name: String,
    pub count: u64,
    pub inclusive_ns: u64,
    pub exclusive_ns: u64,
    /// `exclusive_ns` over the sum of every region's exclusive time in the window (0 when that is 0).
    pub share: f64,
}

/// Per-region count, inclusive and exclusive time within `window`, over the locations `keep` accepts.
pub fn region_stats(trace: &Trace, window: TimeWindow, keep: impl Fn(LocationId) -> bool) -> Vec<RegionStats> {
    let mut stats = vec![RegionStats::default(); trace.regions.len()];
    let mut scratch = ProfileScratch::default();
    for l in (0..trace.locations.len() as u32).map(LocationId) {
        if keep(l) {
            add_location_stats(trace, l, window, &mut stats, &mut scratch);
        }
    }
    stats
}

/// The walk's reusable state ([`add_location_stats`]), so a caller going location by location allocates once.
#[derive(Default)]
pub struct ProfileScratch {
    /// How many intervals of each region are open on the stack (recursion: only the outermost is inclusive).
    open: Vec<u32>,
    /// The open intervals: region, clipped time, and the clipped time of its children so far.
    stack: Vec<(RegionId, u64, u64)>,
}

/// Add location `l`'s figures within `window` to `stats` (indexed by region, one per region of the trace):
/// [`region_stats`] is this over every kept location; `clusters` takes it a location at a time.
pub fn add_location_stats(
    trace: &Trace,
    l: LocationId,
    window: TimeWindow,
    stats: &mut [RegionStats],
    scratch: &mut ProfileScratch,
) {
    let ProfileScratch { open, stack } = scratch;
    open.resize(trace.regions.len(), 0);
    let (t0, t1) = (window.start_ns, window.end_ns);
    let iv = &trace.intervals;
    let close = |stack: &mut Vec<(RegionId, u64, u64)>, open: &mut Vec<u32>, stats: &mut [RegionStats]| {
        let (r, clipped, children) = stack.pop().expect("close on a non-empty stack");
        open[r.index()] -= 1;
        stats[r.index()].exclusive_ns += clipped.saturating_sub(children);
    };
    for i in trace.location_intervals[l.index()].clone() {
        let start = iv.start_ns[i];
        if start > t1 {
            break; // sorted by start: nothing later touches the window
        }
        let d = iv.depth[i] as usize;
        while stack.len() > d {
            close(stack, open, stats);
        }
        let end = start + iv.dur_ns[i];
        let clipped = end.min(t1).saturating_sub(start.max(t0));
        let r = iv.region[i];
        let s = &mut stats[r.index()];
        if clipped > 0 || (iv.dur_ns[i] == 0 && start >= t0) {
            s.count += 1;
            if open[r.index()] == 0 {
                s.inclusive_ns += clipped;
            }
        }
        if let Some(parent) = stack.last_mut() {
            parent.2 += clipped;
        }
        open[r.index()] += 1;
        stack.push((r, clipped, 0));
    }
    while !stack.is_empty() {
        close(stack, open, stats);
    }
}

/// The regions that have an interval in the window, most inclusive time first (then most intervals, then
/// by name): the table the CLI prints and the page shows.
pub fn profile_table(trace: &Trace, stats: &[RegionStats]) -> Vec<RegionProfile> {
    let total: u64 = stats.iter().map(|s| s.exclusive_ns).sum();
    let mut ranked: Vec<usize> = (0..stats.len()).filter(|&r| stats[r].count > 0).collect();
    ranked.sort_dyn_by(|&a, &b| {
        let (x, y) = (&stats[a], &stats[b]);
        y.inclusive_ns
            .cmp(&x.inclusive_ns)
            .then(y.count.cmp(&x.count))
            .then_with(|| trace.region_name(RegionId(a as u32)).cmp(trace.region_name(RegionId(b as u32))))
            .then(a.cmp(&b))
    });
    ranked
        .into_iter()
        .map(|r| {
            let s = stats[r];
            RegionProfile {
                region: r as u32,
                name: trace.region_name(RegionId(r as u32)).to_string(),
                count: s.count,
                inclusive_ns: s.inclusive_ns,
                exclusive_ns: s.exclusive_ns,
                share: if total > 0 { s.exclusive_ns as f64 / total as f64 } else { 0.0 },
            }
        })
        .collect()
}

/// The profile table of `window` (the whole trace when None) over the locations `keep` accepts.
/// The profile table of a call tree (`calltree::call_tree` of the same window and locations, or a store's
/// from its call-path tiles): per region, its paths' counts and exclusive time summed, and the inclusive time
/// of its paths with no enclosing path of the same region (recursion counted once), as [`region_stats`]
/// counts them. So a store's region profile is read from its tiles without decoding a window's intervals.
pub fn tree_profile(trace: &Trace, tree: &crate::calltree::CallTree) -> Vec<RegionProfile> {
    let mut stats = vec![RegionStats::default(); trace.regions.len()];
    // The regions open on the path to the node being read (preorder: a node's ancestors precede it).
    let mut open = vec![0u32; trace.regions.len()];
    let mut stack: Vec<(u32, RegionId)> = Vec::new();
    for (k, n) in tree.nodes.iter().enumerate() {
        while stack.last().is_some_and(|&(end, _)| end as usize <= k) {
            let (_, r) = stack.pop().expect("checked");
            open[r.index()] -= 1;
        }
        let Some(s) = stats.get_mut(n.region.index()) else { continue };
        s.count += n.count;
        s.exclusive_ns += n.exclusive_ns;
        if open[n.region.index()] == 0 {
            s.inclusive_ns += n.inclusive_ns;
        }
        open[n.region.index()] += 1;
        stack.push((n.subtree_end, n.region));
    }
    profile_table(trace, &stats)
}

pub fn profile(trace: &Trace, window: Option<TimeWindow>, keep: impl Fn(LocationId) -> bool) -> Vec<RegionProfile> {
    profile_table(trace, &region_stats(trace, window.unwrap_or(TimeWindow::whole(trace)), keep))
}
