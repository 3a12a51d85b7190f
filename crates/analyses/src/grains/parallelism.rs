//! The parallelism profile of a grain graph, as the grain-graphs prototype plots it beside the graph: how many
//! grains run at each instant of the critical-path-distance axis (each work-holding node, fragment or task,
//! occupies `[root_dist, root_dist + exec)` there: the schedule with as many cores as the program can use),
//! its maximum and time-weighted mean (work / span), and which grains run at a given instant (the link
//! between the profile and the graph). One sweep over the sorted fragment ends, O(n log n), done once where
//! the graph is analysed (the worker for the page); the page only reads it. Draws nothing.
//!
//! A grain's fragments follow one another on the axis (a fragment starts where the previous one's fork or
//! join is), so the count of fragments running at an instant is the count of grains running then.

use super::critical::CriticalPath;
use super::graph::GrainGraph;
use serde::Serialize;
use weft_model::sort::SortDyn;

/// How many bins [`Parallelism::bins`] holds: the page's strip and `weft render` reduce them to pixels.
pub const BINS: usize = 4096;
/// The most points `weft grains --json` lists: the exact step function when it has no more, else bins.
pub const JSON_POINTS: usize = 2048;
/// Fragments per block of the "running at" index.
pub const BLOCK: usize = 256;

/// The profile and its index. Times are in the graph's unit (cycles or ns) on the critical-path-distance axis.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Parallelism {
    /// The axis runs over `[0, span]` (the critical path's length).
    pub span: u64,
    /// The step function: from `step_t[i]` until `step_t[i + 1]` (or the span) `step_count[i]` grains run.
    /// Starts at 0; times strictly increasing; neighbours differ in count.
    pub step_t: Vec<u64>,
    pub step_count: Vec<u32>,
    pub max: u32,
    /// Time-weighted mean over the span: work / span (0 for an empty span).
    pub mean: f64,
    /// The largest count within each of [`BINS`] equal bins of the span (fewer when the span is shorter).
    pub bins: Vec<u32>,
    /// Fragments with a length, sorted by start: their start, end (exclusive) and grain.
    pub seg_start: Vec<u64>,
    pub seg_end: Vec<u64>,
    pub seg_grain: Vec<u32>,
    /// The latest end within each block of [`BLOCK`] sorted fragments: a query skips blocks that end before.
    pub block_end: Vec<u64>,
}

/// `weft grains --json`'s `parallelism` key (and the page's summary); keys in alphabetical order, as all of
/// `GrainFigures`'.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ParallelismFigures {
    /// The width of a bin when `profile` lists bins (not `exact`).
    pub bin: Option<f64>,
    /// True: `profile` is the step function, `[t, count]` where the count holds from t to the next point.
    /// False (more than [`JSON_POINTS`] steps): `[t, count]` per bin of width `bin`, the bin's largest count.
    pub exact: bool,
    /// The exact step function's, whether or not `profile` lists it whole.
    pub max: u32,
    pub mean: f64,
    pub profile: Vec<(u64, u32)>,
    pub span: u64,
    /// "cycles" or "ns".
    pub unit: &'static str,
}

impl Parallelism {
    pub fn new(g: &GrainGraph, cp: &CriticalPath) -> Parallelism {
        let mut segs: Vec<(u64, u64, u32)> = (0..g.nodes())
            .filter(|&v| g.node_kind[v].holds_work() && g.node_exec[v] > 0 && g.node_grain[v] != super::NONE)
            .map(|v| {
                let s = cp.root_dist[v];
                (s, s.saturating_add(g.node_exec[v]), g.node_grain[v])
            })
            .collect();
        segs.sort_dyn_by(|a, b| a.cmp(b));
        let span = cp.length.max(segs.iter().map(|s| s.1).max().unwrap_or(0));
        // The sweep: +1 at each start, -1 at each end; ends sorted separately.
        let mut ends: Vec<u64> = segs.iter().map(|s| s.1).collect();
        ends.sort_unstable();
        let (mut step_t, mut step_count) = (vec![0u64], vec![0u32]);
        let (mut i, mut j, mut run) = (0usize, 0usize, 0i64);
        while i < segs.len() || j < ends.len() {
            let t = match (segs.get(i), ends.get(j)) {
                (Some(s), Some(&e)) => s.0.min(e),
                (Some(s), None) => s.0,
                (None, Some(&e)) => e,
                (None, None) => break,
            };
            while j < ends.len() && ends[j] == t {
                run -= 1;
                j += 1;
            }
            while i < segs.len() && segs[i].0 == t {
                run += 1;
                i += 1;
            }
            let c = run.max(0) as u32;
            if *step_t.last().expect("non-empty") == t {
                *step_count.last_mut().expect("non-empty") = c;
            } else if *step_count.last().expect("non-empty") != c {
                step_t.push(t);
                step_count.push(c);
            }
            // Two points at one time merged: drop the earlier one if it now repeats its predecessor.
            let k = step_count.len();
            if k >= 2 && step_count[k - 1] == step_count[k - 2] {
                step_t.pop();
                step_count.pop();
            }
        }
        let max = step_count.iter().copied().max().unwrap_or(0);
        let work: u128 = segs.iter().map(|s| (s.1 - s.0) as u128).sum();
        let mean = if span == 0 { 0.0 } else { work as f64 / span as f64 };
        let bins = bin_max(&step_t, &step_count, span, BINS);
        let block_end = segs.chunks(BLOCK).map(|c| c.iter().map(|s| s.1).max().unwrap_or(0)).collect();
        Parallelism {
            span,
            step_t,
            step_count,
            max,
            mean,
            bins,
            seg_start: segs.iter().map(|s| s.0).collect(),
            seg_end: segs.iter().map(|s| s.1).collect(),
            seg_grain: segs.iter().map(|s| s.2).collect(),
            block_end,
        }
    }

    /// Grains running at `t` (some fragment with start <= t < end), ascending.
    pub fn running_at(&self, t: u64) -> Vec<u32> {
        let upto = self.seg_start.partition_point(|&s| s <= t);
        let mut out = Vec::new();
        for (b, &end) in self.block_end.iter().enumerate() {
            let lo = b * BLOCK;
            if lo >= upto {
                break;
            }
            if end <= t {
                continue;
            }
            for k in lo..(lo + BLOCK).min(upto) {
                if self.seg_end[k] > t {
                    out.push(self.seg_grain[k]);
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The count at `t` by the step function.
    pub fn count_at(&self, t: u64) -> u32 {
        match self.step_t.partition_point(|&s| s <= t) {
            0 => 0,
            i => self.step_count[i - 1],
        }
    }

    /// The span of a grain on the axis: its first fragment's start to its last fragment's end.
    pub fn grain_span(g: &GrainGraph, cp: &CriticalPath, grain: u32) -> Option<(u64, u64)> {
        let nodes = g.grain_nodes_of(grain);
        let lo = nodes.iter().map(|&v| cp.root_dist[v as usize]).min()?;
        let hi = nodes.iter().map(|&v| cp.root_dist[v as usize].saturating_add(g.node_exec[v as usize])).max()?;
        Some((lo, hi))
    }

    /// The largest count in each of `n` equal parts of the span (from the bins; for drawing).
    pub fn columns(&self, n: usize) -> Vec<u32> {
        let b = self.bins.len();
        if n == 0 || b == 0 {
            return vec![0; n];
        }
        (0..n)
            .map(|i| {
                let lo = i * b / n;
                let hi = ((i + 1) * b).div_ceil(n).clamp(lo + 1, b);
                self.bins[lo..hi].iter().copied().max().unwrap_or(0)
            })
            .collect()
    }

    pub fn figures(&self, unit: super::TimeUnit) -> ParallelismFigures {
        let exact = self.step_t.len() <= JSON_POINTS;
        let (bin, profile) = if exact {
            (None, self.step_t.iter().copied().zip(self.step_count.iter().copied()).collect())
        } else {
            let bins = bin_max(&self.step_t, &self.step_count, self.span, JSON_POINTS);
            let w = self.span as f64 / bins.len().max(1) as f64;
            (Some(w), bins.iter().enumerate().map(|(i, &c)| ((i as f64 * w).floor() as u64, c)).collect())
        };
        ParallelismFigures {
            max: self.max,
            mean: self.mean,
            span: self.span,
            unit: match unit {
                super::TimeUnit::Cycles => "cycles",
                super::TimeUnit::Nanoseconds => "ns",
            },
            exact,
            bin,
            profile,
        }
    }
}

/// The largest count of the step function within each of up to `n` equal bins of `[0, span)` (one bin per
/// time unit when the span is shorter). Linear in steps plus bins.
fn bin_max(step_t: &[u64], step_count: &[u32], span: u64, n: usize) -> Vec<u32> {
    let n = (n as u64).min(span.max(1)) as usize;
    let mut out = vec![0u32; n];
    let bin_of = |t: u64| ((t as u128 * n as u128) / span.max(1) as u128).min(n as u128 - 1) as usize;
    for i in 0..step_t.len() {
        let c = step_count[i];
        if c == 0 || step_t[i] >= span {
            continue;
        }
        let end = step_t.get(i + 1).copied().unwrap_or(span).min(span);
        let (lo, hi) = (bin_of(step_t[i]), bin_of(end.saturating_sub(1).max(step_t[i])));
        for b in &mut out[lo..=hi] {
            *b = (*b).max(c);
        }
    }
    out
}
