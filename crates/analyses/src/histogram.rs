//! Duration histograms of a selection (a time window over a set of locations, or the whole run): the
//! instances of some regions ([`instances`]: their intervals that count in the window by the profile's rule,
//! `calltree::counts_in`, each with its whole duration; [`durations`] when only those count), their distribution on log-spaced bins with the
//! nearest-rank percentiles ([`histogram`]), and the slowest 1 % of every region ([`outliers`]).
//! `weft histogram` prints them and the page's histogram panel shows them, both from the shapes of
//! [`HistogramJson`] and [`OutliersJson`] (the CLI's `--json` keys); docs/calltree.md gives the definitions.
//!
//! An instance's duration is the interval's own, not clipped to the window: a window that cuts an instance
//! still shows how long it took. Must not: read a clock, know a view.

use super::calltree::counts_in;
use super::moments::TimeWindow;
use serde::Serialize;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use weft_model::sort::SortDyn;
use weft_model::{LocationId, RegionId, Trace};

/// The bins when none are asked for.
pub const DEFAULT_BINS: usize = 20;
/// The most bins a histogram has.
pub const MAX_BINS: usize = 1000;

/// One instance: an interval that counts in the window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Instance {
    /// The interval's index in the trace.
    pub interval: usize,
    pub region: RegionId,
    pub location: LocationId,
    pub start_ns: u64,
    pub dur_ns: u64,
}

/// Durations in `[lo_ns, hi_ns)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Bin {
    pub lo_ns: u64,
    pub hi_ns: u64,
    pub count: u64,
}

/// A distribution of durations: count, nearest-rank percentiles, and log-spaced bins from the least
/// duration to one past the greatest (no bins when there is no instance).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Histogram {
    pub count: u64,
    pub min_ns: u64,
    pub p50_ns: u64,
    pub p90_ns: u64,
    pub p99_ns: u64,
    pub max_ns: u64,
    pub bins: Vec<Bin>,
}

/// One region's slowest 1 % ([`outliers`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegionOutliers {
    pub region: RegionId,
    /// The region's instances in the selection.
    pub count: u64,
    pub p99_ns: u64,
    /// How many instances the slowest 1 % holds: ceil(count / 100).
    pub outliers: u64,
    /// The slowest of them, slowest first (ties: the earlier interval first), at most the limit asked for.
    pub slowest: Vec<Instance>,
}

/// The intervals of the regions `region` accepts that count in `window` (the whole run when None), on the
/// locations `keep` accepts, slowest first (ties: in the trace's order).
pub fn instances(
    trace: &Trace,
    window: Option<TimeWindow>,
    keep: impl Fn(LocationId) -> bool,
    region: impl Fn(RegionId) -> bool,
) -> Vec<Instance> {
    let mut out = Vec::new();
    each_counted(trace, window, keep, |i| {
        let r = trace.intervals.region[i];
        if region(r) {
            out.push(instance(trace, i));
        }
    });
    out.sort_dyn_by(|a, b| b.dur_ns.cmp(&a.dur_ns).then(a.interval.cmp(&b.interval)));
    out
}

/// The instances of [`instances`] whose duration is in `[lo_ns, hi_ns)` (a bin, or a run of bins brushed),
/// slowest first: what the page lists and marks for a brush of the histogram.
pub fn instances_between(
    trace: &Trace,
    window: Option<TimeWindow>,
    keep: impl Fn(LocationId) -> bool,
    region: impl Fn(RegionId) -> bool,
    lo_ns: u64,
    hi_ns: u64,
) -> Vec<Instance> {
    let mut out = instances(trace, window, keep, region);
    out.retain(|i| (lo_ns..hi_ns).contains(&i.dur_ns));
    out
}

/// The durations of the intervals of the regions `region` accepts that count in `window` (the whole run when
/// None), on the locations `keep` accepts, in the trace's order: what [`histogram`] takes.
pub fn durations(
    trace: &Trace,
    window: Option<TimeWindow>,
    keep: impl Fn(LocationId) -> bool,
    region: impl Fn(RegionId) -> bool,
) -> Vec<u64> {
    let mut out = Vec::new();
    let iv = &trace.intervals;
    each_counted(trace, window, keep, |i| {
        if region(iv.region[i]) {
            out.push(iv.dur_ns[i]);
        }
    });
    out
}

/// The nearest-rank percentile `p` (0 < p <= 100) of durations sorted ascending: the value at 1-based rank
/// ceil(p / 100 * n). 0 when there is none.
pub fn percentile(sorted: &[u64], p: u32) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let n = sorted.len() as u64;
    let rank = (u64::from(p.min(100)) * n).div_ceil(100).max(1);
    sorted[rank as usize - 1]
}

/// The histogram of `durations` (any order) on at most `bins` log-spaced bins (1..=[`MAX_BINS`]): edges
/// `a * (b / a)^(k / bins)` rounded down to whole ns for k = 0..=bins, with a = max(min, 1) and b = max + 1,
/// repeated edges dropped (a narrow range gets fewer bins); the first bin starts at the least duration (so
/// zero durations fall in it). Every duration falls in exactly one bin. Zero durations only: one bin [0, 2)
/// (b at least 2).
pub fn histogram(durations: Vec<u64>, bins: usize) -> Histogram {
    let mut sorted = durations;
    sorted.sort_unstable();
    let (Some(&min_ns), Some(&max_ns)) = (sorted.first(), sorted.last()) else {
        return Histogram::default();
    };
    let bins = bins.clamp(1, MAX_BINS);
    let (a, b) = (min_ns.max(1), max_ns.saturating_add(1).max(2));
    let ratio = b as f64 / a as f64;
    let mut edges: Vec<u64> = Vec::with_capacity(bins + 1);
    for k in 0..=bins {
        let e = match k {
            0 => a,
            k if k == bins => b,
            k => ((a as f64 * ratio.powf(k as f64 / bins as f64)).floor() as u64).clamp(a, b),
        };
        if edges.last().is_none_or(|&last| e > last) {
            edges.push(e);
        }
    }
    edges[0] = min_ns;
    let below = |t: u64| sorted.partition_point(|&d| d < t) as u64;
    let bins = edges.windows(2).map(|w| Bin { lo_ns: w[0], hi_ns: w[1], count: below(w[1]) - below(w[0]) }).collect();
    Histogram {
        count: sorted.len() as u64,
        min_ns,
        p50_ns: percentile(&sorted, 50),
        p90_ns: percentile(&sorted, 90),
        p99_ns: percentile(&sorted, 99),
        max_ns,
        bins,
    }
}

/// Per region with an instance in the selection, its slowest 1 % (the ceil(count / 100) longest instances)
/// and its p99, listing at most `limit` of them; regions by their slowest instance, longest first. Two
/// passes over the selection, the second keeping one bounded heap per region: memory for the outliers only.
pub fn outliers(
    trace: &Trace,
    window: Option<TimeWindow>,
    keep: impl Fn(LocationId) -> bool,
    limit: usize,
) -> Vec<RegionOutliers> {
    let nreg = trace.regions.len();
    let mut count = vec![0u64; nreg];
    each_counted(trace, window, &keep, |i| count[trace.intervals.region[i].index()] += 1);
    // The slowest ceil(n / 100) + 1 of each region: the slowest 1 % and, just below them, the p99 when n is a
    // multiple of 100 (nearest rank n - floor(n / 100)).
    let size = |n: u64| (n.div_ceil(100) + 1).min(n) as usize;
    // Least first: (duration, later interval first) reversed, so the heap's top is the one to drop.
    type Key = Reverse<(u64, Reverse<usize>)>;
    let mut heaps: Vec<BinaryHeap<Key>> = count.iter().map(|&n| BinaryHeap::with_capacity(size(n))).collect();
    each_counted(trace, window, &keep, |i| {
        let r = trace.intervals.region[i].index();
        let key = Reverse((trace.intervals.dur_ns[i], Reverse(i)));
        let h = &mut heaps[r];
        if h.len() < size(count[r]) {
            h.push(key);
        } else if let Some(mut top) = h.peek_mut().filter(|top| key < **top) {
            *top = key; // one sift down when `top` drops, not a pop and a push
        }
    });
    let mut out: Vec<RegionOutliers> = Vec::new();
    for (r, heap) in heaps.into_iter().enumerate() {
        let n = count[r];
        if n == 0 {
            continue;
        }
        // Slowest first.
        let slowest: Vec<usize> = heap.into_sorted_vec().into_iter().map(|Reverse((_, Reverse(i)))| i).collect();
        let k = n.div_ceil(100);
        // Rank n - floor(n / 100) ascending is place floor(n / 100) slowest first (0-based).
        let p99_ns = trace.intervals.dur_ns[slowest[(n / 100) as usize]];
        out.push(RegionOutliers {
            region: RegionId(r as u32),
            count: n,
            p99_ns,
            outliers: k,
            slowest: slowest.iter().take((k as usize).min(limit)).map(|&i| instance(trace, i)).collect(),
        });
    }
    out.sort_dyn_by(|a, b| {
        let top = |o: &RegionOutliers| o.slowest.first().map_or(0, |s| s.dur_ns);
        top(b).cmp(&top(a)).then(a.region.cmp(&b.region))
    });
    out
}

fn instance(trace: &Trace, i: usize) -> Instance {
    let iv = &trace.intervals;
    Instance {
        interval: i,
        region: iv.region[i],
        location: iv.location[i],
        start_ns: iv.start_ns[i],
        dur_ns: iv.dur_ns[i],
    }
}

/// Calls `f` with each interval that counts in the window, on the locations `keep` accepts.
fn each_counted(
    trace: &Trace,
    window: Option<TimeWindow>,
    keep: impl Fn(LocationId) -> bool,
    mut f: impl FnMut(usize),
) {
    let w = window.unwrap_or(TimeWindow::whole(trace));
    let iv = &trace.intervals;
    for (l, range) in trace.location_intervals.iter().enumerate() {
        if !keep(LocationId(l as u32)) {
            continue;
        }
        for i in range.clone() {
            if iv.start_ns[i] > w.end_ns {
                break; // sorted by start
            }
            if counts_in(w, iv.start_ns[i], iv.dur_ns[i]) {
                f(i);
            }
        }
    }
}

/// `weft histogram --region NAME --json`: `{"region", "count", "min_ns", "p50_ns", "p90_ns", "p99_ns",
/// "max_ns", "bins": [{"lo_ns", "hi_ns", "count"}]}`; the page's panel reads the same keys.
#[derive(Clone, Debug, Serialize)]
pub struct HistogramJson<'a> {
    pub region: &'a str,
    pub count: u64,
    pub min_ns: u64,
    pub p50_ns: u64,
    pub p90_ns: u64,
    pub p99_ns: u64,
    pub max_ns: u64,
    pub bins: &'a [Bin],
}

impl<'a> HistogramJson<'a> {
    pub fn new(region: &'a str, h: &'a Histogram) -> Self {
        HistogramJson {
            region,
            count: h.count,
            min_ns: h.min_ns,
            p50_ns: h.p50_ns,
            p90_ns: h.p90_ns,
            p99_ns: h.p99_ns,
            max_ns: h.max_ns,
            bins: &h.bins,
        }
    }
}

/// One instance as `--outliers --json` lists it: `{"location", "start_ns", "dur_ns"}`.
#[derive(Clone, Debug, Serialize)]
pub struct InstanceJson {
    pub location: u32,
    pub start_ns: u64,
    pub dur_ns: u64,
}

/// One region's slowest 1 %: `{"region", "count", "p99_ns", "outliers", "slowest": [InstanceJson]}`.
#[derive(Clone, Debug, Serialize)]
pub struct RegionOutliersJson<'a> {
    pub region: &'a str,
    pub count: u64,
    pub p99_ns: u64,
    pub outliers: u64,
    pub slowest: Vec<InstanceJson>,
}

/// `weft histogram --outliers --json`: `{"outliers": [RegionOutliersJson]}`, regions by their slowest
/// instance, longest first.
#[derive(Clone, Debug, Serialize)]
pub struct OutliersJson<'a> {
    pub outliers: Vec<RegionOutliersJson<'a>>,
}

impl<'a> OutliersJson<'a> {
    pub fn new(trace: &'a Trace, rows: &[RegionOutliers]) -> Self {
        OutliersJson {
            outliers: rows
                .iter()
                .map(|o| RegionOutliersJson {
                    region: trace.region_name(o.region),
                    count: o.count,
                    p99_ns: o.p99_ns,
                    outliers: o.outliers,
                    slowest: o
                        .slowest
                        .iter()
                        .map(|i| InstanceJson { location: i.location.0, start_ns: i.start_ns, dur_ns: i.dur_ns })
                        .collect(),
                })
                .collect(),
        }
    }
}
