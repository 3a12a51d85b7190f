//! Counter tracks of the timeline: one track per counter series (OTF2 metrics, Chrome `C` events, Paraver
//! counters), grouped below the location rows under one header, as Vampir's counter timeline and Perfetto's
//! counter tracks show them. [`CounterIndex`] is built once per trace: each series' sample range, its
//! minimum and maximum, and a min/max pyramid (blocks of 64, 64², ...) so the scene finds the extremes of
//! any sample range in O(64 · levels + range / 64^levels) and keeps spikes at every zoom.
//! [`CounterLayout`] places the shown tracks (layout pixels, below the rows); nothing here knows a viewport
//! or a colour.

use super::timeline::TimelineLayout;
use std::ops::Range;
use weft_model::{ProcessId, Trace};

/// Samples (then blocks) per block of the pyramid's next level.
const BLOCK: usize = 64;

/// Heights in CSS pixels.
pub const TRACK_PX: f32 = 40.0;
pub const HEADER_PX: f32 = 22.0;
/// The band of the constant series' group.
pub const GROUP_PX: f32 = 24.0;
/// Constant series folded into a group only from this many (one or two read as well as tracks).
pub const MIN_CONSTANT_GROUP: usize = 3;

/// One series' samples and extremes.
#[derive(Clone, Debug)]
pub struct SeriesIndex {
    /// The series' samples, into `trace.counters`' sample columns (sorted by time).
    pub samples: Range<usize>,
    /// Smallest and largest finite value (0, 0 for a series without one).
    pub min: f64,
    pub max: f64,
    /// Level k holds the (min, max) of blocks of 64^(k+1) samples.
    levels: Vec<Vec<(f64, f64)>>,
}

impl SeriesIndex {
    fn new(values: &[f64], samples: Range<usize>) -> Self {
        let mut levels: Vec<Vec<(f64, f64)>> = Vec::new();
        let mut below: Vec<(f64, f64)> = values.iter().map(|&v| finite(v)).collect();
        let (min, max) = below.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |a, &b| (a.0.min(b.0), a.1.max(b.1)));
        while below.len() > BLOCK {
            let next: Vec<(f64, f64)> = below
                .chunks(BLOCK)
                .map(|c| c.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |a, &b| (a.0.min(b.0), a.1.max(b.1))))
                .collect();
            levels.push(next.clone());
            below = next;
        }
        let (min, max) = if min <= max { (min, max) } else { (0.0, 0.0) };
        SeriesIndex { samples, min, max, levels }
    }

    /// The smallest and largest finite value of the samples `a..b` (positions within the series); None when
    /// there is none.
    pub fn extremes(&self, values: &[f64], a: usize, b: usize) -> Option<(f64, f64)> {
        let values = &values[self.samples.clone()];
        let (mut a, mut b) = (a.min(values.len()), b.min(values.len()));
        let mut acc = (f64::INFINITY, f64::NEG_INFINITY);
        let fold = |acc: &mut (f64, f64), p: (f64, f64)| *acc = (acc.0.min(p.0), acc.1.max(p.1));
        let mut level = 0usize;
        loop {
            let get = |i: usize| if level == 0 { finite(values[i]) } else { self.levels[level - 1][i] };
            let (up, down) = (a.div_ceil(BLOCK), b / BLOCK);
            if level == self.levels.len() || up >= down {
                (a..b).for_each(|i| fold(&mut acc, get(i)));
                break;
            }
            (a..up * BLOCK).for_each(|i| fold(&mut acc, get(i)));
            (down * BLOCK..b).for_each(|i| fold(&mut acc, get(i)));
            (a, b) = (up, down);
            level += 1;
        }
        (acc.0 <= acc.1).then_some(acc)
    }
}

/// A value as a (min, max) pair; a value that is not finite counts as neither.
fn finite(v: f64) -> (f64, f64) {
    if v.is_finite() {
        (v, v)
    } else {
        (f64::INFINITY, f64::NEG_INFINITY)
    }
}

impl SeriesIndex {
    /// Whether its value never changes (at least one sample, all equal).
    pub fn is_constant(&self) -> bool {
        !self.samples.is_empty() && self.min == self.max
    }
}

/// Every counter series of a trace, indexed.
#[derive(Clone, Debug, Default)]
pub struct CounterIndex {
    pub series: Vec<SeriesIndex>,
}

impl CounterIndex {
    pub fn new(trace: &Trace) -> Self {
        let c = &trace.counters;
        let series = (0..c.series_name.len() as u32)
            .map(|s| {
                // Samples are sorted by series, then time.
                let a = c.sample_series.partition_point(|&x| x < s);
                let b = c.sample_series.partition_point(|&x| x <= s);
                SeriesIndex::new(&c.sample_value[a..b], a..b)
            })
            .collect();
        CounterIndex { series }
    }

    pub fn is_empty(&self) -> bool {
        self.series.is_empty()
    }

    /// Scale the series `(series, min, max)` lists by those extremes (a store's whole-run extremes, so a
    /// track keeps its scale from window to window and zoomed in or out).
    pub fn set_extremes(&mut self, extremes: &[(u32, f64, f64)]) {
        for &(s, min, max) in extremes {
            if let Some(x) = self.series.get_mut(s as usize) {
                (x.min, x.max) = (min, max);
            }
        }
    }
}

/// One shown track.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CounterTrack {
    pub series: u32,
    pub process: ProcessId,
    /// Top of the track in layout pixels.
    pub y: f32,
}

/// The shown tracks below the location rows: a header at `top`, then one track per shown series in process
/// order (the rows' order), then series order; series that never change (when at least
/// [`MIN_CONSTANT_GROUP`]) after them, as one group: a band naming them, their tracks below it when open.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CounterLayout {
    pub top: f32,
    pub tracks: Vec<CounterTrack>,
    /// Header, tracks and the constant group's band (0 when no track is shown).
    pub height: f32,
    pub constants: Option<ConstantGroup>,
}

/// The series whose value never changes, folded into one band (APEX writes hundreds of `cpuinfo` fields).
#[derive(Clone, Debug, PartialEq)]
pub struct ConstantGroup {
    /// Top of the band in layout pixels.
    pub y: f32,
    /// The group's series, in track order.
    pub series: Vec<u32>,
    /// Whether their tracks are shown below the band.
    pub open: bool,
}

impl CounterLayout {
    /// Tracks for the series `shown` accepts whose process has a row in `rows` (a location filter hides a
    /// process's counters with its rows) or only locations that record metrics (no row of their own: they
    /// come after the others), placed below the rows.
    pub fn new(trace: &Trace, rows: &TimelineLayout, shown: impl Fn(u32) -> bool) -> Self {
        Self::with_constants(trace, rows, shown, None)
    }

    /// [`CounterLayout::new`], the series `constant` accepts (a value that never changes: APEX's `cpuinfo`
    /// fields) folded into one group after the others, open (its tracks shown) or not.
    pub fn with_constants(
        trace: &Trace,
        rows: &TimelineLayout,
        shown: impl Fn(u32) -> bool,
        constant: Option<(&dyn Fn(u32) -> bool, bool)>,
    ) -> Self {
        let m = rows.metrics;
        let top = rows.rows.last().map_or(0.0, |r| r.y + r.lanes as f32 * m.lane_px + m.row_gap_px);
        let mut process_rank = vec![usize::MAX; trace.processes.len()];
        for r in &rows.rows {
            let p = r.process.index();
            if process_rank[p] == usize::MAX {
                process_rank[p] = r.y as usize;
            }
        }
        // A process whose locations only record metrics (ROCm SMI's) has no row: its tracks follow the rows'
        // processes, in display order.
        let mut metrics_only = vec![true; trace.processes.len()];
        for l in 0..trace.locations.len() as u32 {
            let l = weft_model::LocationId(l);
            if !trace.records_only_metrics(l) {
                metrics_only[trace.locations.process[l.index()].index()] = false;
            }
        }
        let mut next = usize::MAX / 2;
        for l in trace.locations_in_display_order() {
            let p = trace.locations.process[l.index()].index();
            if metrics_only[p] && process_rank[p] == usize::MAX {
                process_rank[p] = next;
                next += 1;
            }
        }
        let c = &trace.counters;
        let mut series: Vec<u32> = (0..c.series_name.len() as u32)
            .filter(|&s| process_rank.get(c.series_process[s as usize].index()).is_some_and(|&k| k != usize::MAX))
            .filter(|&s| shown(s))
            .collect();
        series.sort_by_key(|&s| (process_rank[c.series_process[s as usize].index()], s));
        CounterLayout::place(top, series, |s| c.series_process[s as usize], constant)
    }

    /// The tracks of `series` (in order) from `top` on: the series `constant` accepts (when at least
    /// [`MIN_CONSTANT_GROUP`]) gathered after the others into one group, its band closed or its tracks
    /// below it when open.
    fn place(
        top: f32,
        series: Vec<u32>,
        process: impl Fn(u32) -> ProcessId,
        constant: Option<(&dyn Fn(u32) -> bool, bool)>,
    ) -> Self {
        if series.is_empty() {
            return CounterLayout { top, tracks: Vec::new(), height: 0.0, constants: None };
        }
        let (varying, fixed): (Vec<u32>, Vec<u32>) = match constant {
            Some((is_constant, _)) => series.into_iter().partition(|&s| !is_constant(s)),
            None => (series, Vec::new()),
        };
        let (varying, fixed) =
            if fixed.len() < MIN_CONSTANT_GROUP { ([varying, fixed].concat(), Vec::new()) } else { (varying, fixed) };
        let mut y = top + HEADER_PX;
        let mut tracks = Vec::with_capacity(varying.len() + fixed.len());
        let mut push = |s: u32, y: &mut f32| {
            tracks.push(CounterTrack { series: s, process: process(s), y: *y });
            *y += TRACK_PX;
        };
        varying.iter().for_each(|&s| push(s, &mut y));
        let mut constants = None;
        if !fixed.is_empty() {
            let open = constant.is_some_and(|(_, open)| open);
            constants = Some(ConstantGroup { y, series: fixed.clone(), open });
            y += GROUP_PX;
            if open {
                fixed.iter().for_each(|&s| push(s, &mut y));
            }
        }
        CounterLayout { top, tracks, height: y - top, constants }
    }

    /// The track whose band spans layout y, if any.
    pub fn track_at(&self, y: f32) -> Option<usize> {
        let k = self.tracks.partition_point(|t| t.y <= y).checked_sub(1)?;
        (y < self.tracks[k].y + TRACK_PX).then_some(k)
    }

    /// The first track reaching below layout y (the first a viewport scrolled to y shows).
    pub fn first_below(&self, y: f32) -> usize {
        self.tracks.partition_point(|t| t.y + TRACK_PX <= y)
    }

    /// Whether layout y is on the constant series' band.
    pub fn on_constants(&self, y: f32) -> bool {
        self.constants.as_ref().is_some_and(|g| y >= g.y && y < g.y + GROUP_PX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extremes_of_any_range_equal_a_scan() {
        let values: Vec<f64> = (0..20_000u64).map(|i| ((i * 7919) % 10_007) as f64 - 5000.0).collect();
        let ix = SeriesIndex::new(&values, 0..values.len());
        assert_eq!(ix.levels.len(), 2, "20000 samples: 313 blocks of 64, then 5 of 4096");
        for (a, b) in [(0, 20_000), (3, 4), (63, 64), (64, 128), (5, 9_000), (4095, 4097), (100, 19_999), (7, 7)] {
            let scan = values[a..b]
                .iter()
                .fold(None, |acc: Option<(f64, f64)>, &v| Some(acc.map_or((v, v), |(lo, hi)| (lo.min(v), hi.max(v)))));
            assert_eq!(ix.extremes(&values, a, b), scan, "{a}..{b}");
        }
        let with_nan = [1.0, f64::NAN, -3.0, f64::INFINITY];
        let ix = SeriesIndex::new(&with_nan, 0..4);
        assert_eq!((ix.min, ix.max), (-3.0, 1.0), "values that are not numbers are not extremes");
        assert_eq!(ix.extremes(&with_nan, 1, 2), None);
    }

    #[test]
    fn constant_series_fold_into_one_group_that_opens() {
        use weft_model::{Format, LocationKind, TraceBuilder};
        let mut b = TraceBuilder::new(Format::Generated);
        let p = b.process(0);
        let l = b.location(p, 0, LocationKind::CpuThread);
        let r = b.region("work", "");
        b.interval(l, r, 0, 1000);
        let moving = b.counter_series(p, "load");
        let fixed: Vec<u32> = (0..4).map(|k| b.counter_series(p, &format!("cpuinfo:::field_{k}"))).collect();
        for i in 0..5 {
            b.counter_sample(moving, i * 100, i as f64);
            for (k, &s) in fixed.iter().enumerate() {
                b.counter_sample(s, i * 100, 1000.0 + k as f64);
            }
        }
        let t = b.finish();
        let index = CounterIndex::new(&t);
        assert!(!index.series[moving as usize].is_constant());
        assert!(fixed.iter().all(|&s| index.series[s as usize].is_constant()));
        let rows = TimelineLayout::new(&t, crate::layouts::timeline::TimelineMetrics::default());
        let constant = |s: u32| index.series[s as usize].is_constant();
        let closed = CounterLayout::with_constants(&t, &rows, |_| true, Some((&constant, false)));
        assert_eq!(closed.tracks.iter().map(|x| x.series).collect::<Vec<_>>(), vec![moving]);
        let g = closed.constants.clone().expect("a constant group");
        assert_eq!((g.series.clone(), g.open), (fixed.clone(), false));
        assert_eq!(closed.height, HEADER_PX + TRACK_PX + GROUP_PX);
        assert!(closed.on_constants(g.y + 1.0) && !closed.on_constants(g.y + GROUP_PX));
        let open = CounterLayout::with_constants(&t, &rows, |_| true, Some((&constant, true)));
        assert_eq!(open.tracks.len(), 5);
        assert_eq!(open.tracks[1].y, g.y + GROUP_PX, "the constant tracks below the band");
        // Hit tests across the band: the first track, none on the band, the constant tracks after it.
        assert_eq!(open.track_at(open.tracks[0].y + 1.0), Some(0));
        assert_eq!(open.track_at(g.y + 1.0), None);
        assert_eq!(open.track_at(open.tracks[4].y + TRACK_PX - 1.0), Some(4));
        assert_eq!(open.first_below(open.tracks[2].y + 1.0), 2);
        // Two constant series are not worth a group.
        let few = |s: u32| s == fixed[0] || s == fixed[1];
        let plain = CounterLayout::with_constants(&t, &rows, |_| true, Some((&few, false)));
        assert!(plain.constants.is_none() && plain.tracks.len() == 5);
    }
}
