//! Timeline layout: which row each location takes, grouped by process, and each row's lanes (one per nesting
//! depth) as index lists sorted by start, and its instants sorted by time, so a viewport finds what is
//! visible by binary search.
//! Heights are in layout pixels; the scene maps time to x. Nothing here depends on the viewport: the compact
//! mode's lane height is chosen by the view and applied with `set_metrics`, which moves rows without
//! re-sorting anything (O(rows)). A folded (collapsed) process keeps one row per location, all at the same y
//! and one lane deep (depth 0 only), so its threads draw over each other as one summary row.

use std::ops::Range;
use weft_model::sort::SortDyn;
use weft_model::{LocationId, ProcessId, Trace};

/// Heights in CSS pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimelineMetrics {
    pub lane_px: f32,
    pub row_gap_px: f32,
    pub process_header_px: f32,
    /// Compact rows: no process headers, labels thinned to what fits (the scene reads it).
    pub compact: bool,
}

impl Default for TimelineMetrics {
    fn default() -> Self {
        TimelineMetrics { lane_px: 18.0, row_gap_px: 4.0, process_header_px: 22.0, compact: false }
    }
}

impl TimelineMetrics {
    /// Compact rows for `lanes` lanes in `height_px`, the shallowest row `min_row_lanes` deep: each lane the
    /// height that fits (at most the normal 18 px), but every row at least a pixel (a location thinner than a
    /// pixel vanishes: a trace with one very deep row made the others 0.05 px); the rows scroll when they do not
    /// fit. No gaps, no process headers.
    pub fn compact(lanes: usize, min_row_lanes: usize, height_px: f32) -> Self {
        let floor = 1.0 / min_row_lanes.max(1) as f32;
        let lane_px = (height_px.max(1.0) / lanes.max(1) as f32).clamp(floor, 18.0);
        TimelineMetrics { lane_px, row_gap_px: 0.0, process_header_px: 0.0, compact: true }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct TimelineRow {
    pub location: LocationId,
    pub process: ProcessId,
    /// Top of the row in layout pixels.
    pub y: f32,
    /// Lanes (depths) in the row; at least one.
    pub lanes: u32,
    /// Interval indices of each lane, into `TimelineLayout::lane_intervals`.
    pub lane_ranges: Vec<Range<usize>>,
    /// The row's instants, into `TimelineLayout::row_instants`.
    pub instants: Range<usize>,
    /// The row is one of a folded process's rows (all drawn at the process's one y, depth 0 only).
    pub folded: bool,
    /// The row's lanes when unfolded (`lanes` is 1 while folded).
    pub depth_lanes: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ProcessHeader {
    pub process: ProcessId,
    pub y: f32,
    /// The process's first row and how many rows it has (its shown locations).
    pub first_row: u32,
    pub rows: u32,
    /// Folded: its rows drawn as one summary row.
    pub folded: bool,
}

#[derive(Clone, Debug)]
pub struct TimelineLayout {
    pub metrics: TimelineMetrics,
    pub rows: Vec<TimelineRow>,
    pub headers: Vec<ProcessHeader>,
    /// Interval indices grouped by (row, lane), each group sorted by start (and so by end: a lane never overlaps).
    pub lane_intervals: Vec<u32>,
    pub height: f32,
    /// Row index of each location.
    pub row_of_location: Vec<u32>,
    /// Instant indices grouped by row, each group sorted by time.
    pub row_instants: Vec<u32>,
    /// The lane of each end (send, receive) of the messages `0..len` (`interval_at`'s depth at its time on
    /// its location's row, 0 where none), filled by [`TimelineLayout::index_message_lanes`] for a view that
    /// draws many arrows per frame (a store's exact slice); empty otherwise, where each end is searched for.
    message_lanes: Vec<[u16; 2]>,
}

impl TimelineLayout {
    pub fn new(trace: &Trace, metrics: TimelineMetrics) -> Self {
        Self::of_locations(trace, metrics, |_| true)
    }

    /// Rows only for the locations `keep` accepts (a location filter); the others get no row
    /// (`row_of_location` is u32::MAX for them).
    pub fn of_locations(trace: &Trace, metrics: TimelineMetrics, keep: impl Fn(LocationId) -> bool) -> Self {
        Self::with(trace, metrics, keep, |_| false)
    }

    /// Rows for the locations `keep` accepts, the processes `fold` accepts folded into one summary row each.
    pub fn with(
        trace: &Trace,
        metrics: TimelineMetrics,
        keep: impl Fn(LocationId) -> bool,
        fold: impl Fn(ProcessId) -> bool,
    ) -> Self {
        Self::with_lanes(trace, metrics, keep, fold, &[])
    }

    /// [`TimelineLayout::with`], each location's row at least `min_lanes[location]` lanes deep (a store's
    /// slice is drawn in the rows of the whole run's depths, so rows keep their heights from window to
    /// window; locations past the list's end follow their intervals alone).
    pub fn with_lanes(
        trace: &Trace,
        metrics: TimelineMetrics,
        keep: impl Fn(LocationId) -> bool,
        fold: impl Fn(ProcessId) -> bool,
        min_lanes: &[u32],
    ) -> Self {
        Self::with_lanes_in(trace, &trace.locations_in_display_order(), metrics, keep, fold, min_lanes)
    }

    /// [`TimelineLayout::with_lanes`] with the locations' display order given (`display_order`:
    /// `trace.locations_in_display_order()`, which depends on the definitions only: a store's pane sorts
    /// them once for every slice it shows, not 100,000 locations again for each answer).
    ///
    /// A location that only records metrics (`Trace::records_only_metrics`, no instant, no lanes in
    /// `min_lanes`) gets no row: its samples are counter tracks (layouts::counters).
    pub fn with_lanes_in(
        trace: &Trace,
        display_order: &[LocationId],
        metrics: TimelineMetrics,
        keep: impl Fn(LocationId) -> bool,
        fold: impl Fn(ProcessId) -> bool,
        min_lanes: &[u32],
    ) -> Self {
        let iv = &trace.intervals;
        let mut rows: Vec<TimelineRow> = Vec::new();
        let mut headers = Vec::new();
        let mut lane_intervals = Vec::with_capacity(iv.len());
        let mut row_of_location = vec![u32::MAX; trace.locations.len()];
        let mut last_process: Option<ProcessId> = None;
        // Per row, scratch kept across rows: a store's slice lays out every one of 100,000 locations.
        let (mut counts, mut next): (Vec<usize>, Vec<usize>) = (Vec::new(), Vec::new());
        // Instants by location (a counting sort), then by time within each.
        let ins = &trace.instants;
        let mut ins_start = vec![0usize; trace.locations.len() + 1];
        for l in &ins.location {
            ins_start[l.index() + 1] += 1;
        }
        for k in 0..trace.locations.len() {
            ins_start[k + 1] += ins_start[k];
        }
        let mut by_location = vec![0u32; ins.time_ns.len()];
        let mut next_ins = ins_start.clone();
        for (j, l) in ins.location.iter().enumerate() {
            by_location[next_ins[l.index()]] = j as u32;
            next_ins[l.index()] += 1;
        }
        // A location that only records metrics (its samples are counter tracks) gets no row, unless the
        // store's whole run gives it lanes or it has instants.
        let metrics_only = |l: LocationId| {
            trace.records_only_metrics(l)
                && min_lanes.get(l.index()).is_none_or(|&n| n == 0)
                && ins_start[l.index()] == ins_start[l.index() + 1]
        };
        let order: Vec<LocationId> = display_order.iter().copied().filter(|&l| keep(l) && !metrics_only(l)).collect();
        rows.reserve(order.len());
        let mut row_instants = Vec::with_capacity(ins.time_ns.len());
        for &l in &order {
            let first = row_instants.len();
            row_instants.extend_from_slice(&by_location[ins_start[l.index()]..ins_start[l.index() + 1]]);
            row_instants[first..].sort_dyn_by_key(|&j| ins.time_ns[j as usize]);
            let instants = first..row_instants.len();
            let p = trace.locations.process[l.index()];
            if last_process != Some(p) {
                let folded = fold(p);
                headers.push(ProcessHeader { process: p, y: 0.0, first_row: rows.len() as u32, rows: 0, folded });
                last_process = Some(p);
            }
            let folded = match headers.last_mut() {
                Some(h) => {
                    h.rows += 1;
                    h.folded
                }
                None => false,
            };
            let range = trace.intervals_of(l);
            let at_least = min_lanes.get(l.index()).map_or(1, |&n| (n as usize).max(1));
            let lanes = range.clone().map(|i| iv.depth[i] as usize + 1).max().unwrap_or(1).max(at_least);
            // Counting sort of the location's intervals by depth keeps each lane's start order.
            counts.clear();
            counts.resize(lanes + 1, 0);
            for i in range.clone() {
                counts[iv.depth[i] as usize + 1] += 1;
            }
            for d in 0..lanes {
                counts[d + 1] += counts[d];
            }
            let base = lane_intervals.len();
            let shown_lanes = if folded { 1 } else { lanes };
            let lane_ranges = (0..shown_lanes).map(|d| base + counts[d]..base + counts[d + 1]).collect();
            lane_intervals.resize(base + range.len(), 0);
            next.clear();
            next.extend_from_slice(&counts[..lanes]);
            for i in range {
                let d = iv.depth[i] as usize;
                lane_intervals[base + next[d]] = i as u32;
                next[d] += 1;
            }
            row_of_location[l.index()] = rows.len() as u32;
            rows.push(TimelineRow {
                location: l,
                process: p,
                y: 0.0,
                lanes: shown_lanes as u32,
                lane_ranges,
                instants,
                folded,
                depth_lanes: lanes as u32,
            });
        }
        let mut lay = TimelineLayout {
            metrics,
            rows,
            headers,
            lane_intervals,
            height: 0.0,
            row_of_location,
            row_instants,
            message_lanes: Vec::new(),
        };
        lay.set_metrics(metrics);
        lay
    }

    /// Place rows and headers for `metrics` (the compact mode's lane height): O(rows), nothing re-sorted.
    /// `height` is the rows' (counter tracks below are placed by their own layout).
    pub fn set_metrics(&mut self, metrics: TimelineMetrics) {
        self.metrics = metrics;
        let mut y = 0.0f32;
        for h in &mut self.headers {
            h.y = y;
            y += metrics.process_header_px;
            let rows = &mut self.rows[h.first_row as usize..(h.first_row + h.rows) as usize];
            if h.folded {
                for r in rows.iter_mut() {
                    r.y = y;
                }
                y += metrics.lane_px + metrics.row_gap_px;
            } else {
                for r in rows.iter_mut() {
                    r.y = y;
                    y += r.lanes as f32 * metrics.lane_px + metrics.row_gap_px;
                }
            }
        }
        self.height = y;
    }

    /// Lanes stacked down the layout: what a compact mode divides its height by (a folded process counts one).
    pub fn total_lanes(&self) -> usize {
        self.headers
            .iter()
            .map(|h| {
                let rows = &self.rows[h.first_row as usize..(h.first_row + h.rows) as usize];
                if h.folded {
                    1
                } else {
                    rows.iter().map(|r| r.lanes as usize).sum()
                }
            })
            .sum()
    }

    /// The rows drawn at row `r`'s place: a folded process's rows all, else `r` alone.
    pub fn stacked_with(&self, r: usize) -> Range<usize> {
        let Some(row) = self.rows.get(r) else { return r..r };
        if !row.folded {
            return r..r + 1;
        }
        let a = self.rows[..r].iter().rev().take_while(|o| o.folded && o.process == row.process).count();
        let b = self.rows[r + 1..].iter().take_while(|o| o.folded && o.process == row.process).count();
        r - a..r + 1 + b
    }

    /// Is row `r` the first drawn at its place (a folded process's first row, or any unfolded row)?
    pub fn leads(&self, r: usize) -> bool {
        r == 0 || !self.rows[r].folded || self.rows[r - 1].process != self.rows[r].process
    }

    /// The process header whose band (header and rows) holds layout y.
    pub fn header_at(&self, y: f32) -> Option<usize> {
        self.headers.partition_point(|h| h.y <= y).checked_sub(1)
    }

    /// Lanes of the shallowest row shown (a folded process's one row counts one lane); 1 without rows.
    pub fn min_row_lanes(&self) -> usize {
        self.rows.iter().map(|r| r.lanes as usize).min().unwrap_or(1).max(1)
    }

    pub fn row_height(&self, row: &TimelineRow) -> f32 {
        row.lanes as f32 * self.metrics.lane_px
    }

    /// The row whose lanes span layout y, if any.
    pub fn row_at(&self, y: f32) -> Option<usize> {
        let i = self.rows.partition_point(|r| r.y <= y);
        let r = i.checked_sub(1)?;
        let row = &self.rows[r];
        (y < row.y + self.row_height(row)).then_some(r)
    }

    /// The innermost interval of row `r` holding time `t_ns` (start <= t <= end), with its lane: the
    /// slice a flow end at that time is bound to. A binary search per lane, deepest lane first.
    pub fn interval_at(&self, trace: &Trace, r: usize, t_ns: u64) -> Option<(usize, usize)> {
        let iv = &trace.intervals;
        let row = self.rows.get(r)?;
        for (d, range) in row.lane_ranges.iter().enumerate().rev() {
            let ids = &self.lane_intervals[range.clone()];
            let k = ids.partition_point(|&i| iv.start_ns[i as usize] <= t_ns);
            if let Some(&i) = k.checked_sub(1).and_then(|k| ids.get(k)) {
                if iv.start_ns[i as usize] + iv.dur_ns[i as usize] >= t_ns {
                    return Some((d, i as usize));
                }
            }
        }
        None
    }

    /// The lane of message `j`'s sending (`send`) or receiving end on its location's row: the depth of the
    /// innermost interval holding its time there, 0 where none does or the location has no row.
    pub fn message_lane(&self, trace: &Trace, j: usize, send: bool) -> usize {
        if let Some(l) = self.message_lanes.get(j) {
            return l[usize::from(!send)] as usize;
        }
        let m = &trace.messages;
        let (l, t) = if send { (m.sender[j], m.send_ns[j]) } else { (m.receiver[j], m.recv_ns[j]) };
        let r = self.row_of_location.get(l.index()).copied().unwrap_or(u32::MAX) as usize;
        self.interval_at(trace, r, t).map_or(0, |(d, _)| d)
    }

    /// Find the lanes of the next `n` messages' ends ([`TimelineLayout::message_lane`]) once, so a scene
    /// drawing thousands of arrows reads them instead of searching every lane of both rows per arrow; true
    /// once every message of `trace` (the trace this layout was made from) is in. O(n x lanes x log).
    pub fn index_message_lanes(&mut self, trace: &Trace, n: usize) -> bool {
        let total = trace.messages.len();
        let mut lanes = std::mem::take(&mut self.message_lanes);
        let end = lanes.len().saturating_add(n).min(total);
        for j in lanes.len()..end {
            let lane = |send| self.message_lane(trace, j, send).min(u16::MAX as usize) as u16;
            lanes.push([lane(true), lane(false)]);
        }
        self.message_lanes = lanes;
        end == total
    }

    /// Rows intersecting layout y range [y0, y1).
    pub fn rows_in(&self, y0: f32, y1: f32) -> Range<usize> {
        let first = self.rows.partition_point(|r| r.y + self.row_height(r) <= y0);
        let last = self.rows.partition_point(|r| r.y < y1);
        first..last.max(first)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft_model::{Format, LocationKind, TraceBuilder};

    #[test]
    fn rows_group_by_process_and_lanes_follow_depth() {
        let mut b = TraceBuilder::new(Format::Generated);
        let p1 = b.process(1);
        let p0 = b.process(0);
        let a = b.location(p1, 10, LocationKind::CpuThread);
        let c = b.location(p0, 20, LocationKind::CpuThread);
        let r = b.region("f", "");
        b.interval(a, r, 0, 100);
        b.interval(a, r, 10, 20);
        b.interval(a, r, 40, 20);
        b.interval(c, r, 0, 5);
        let t = b.finish();
        let lay = TimelineLayout::new(&t, TimelineMetrics::default());
        assert_eq!(lay.rows.len(), 2);
        assert_eq!(lay.rows[0].location, c, "process 0 comes first");
        assert_eq!(lay.headers.len(), 2);
        assert_eq!(lay.rows[1].lanes, 2);
        let lane1 = &lay.lane_intervals[lay.rows[1].lane_ranges[1].clone()];
        let starts: Vec<u64> = lane1.iter().map(|&i| t.intervals.start_ns[i as usize]).collect();
        assert_eq!(starts, vec![10, 40]);
        let y = lay.rows[1].y + 1.0;
        assert_eq!(lay.row_at(y), Some(1));
        assert_eq!(lay.rows_in(0.0, 1e9), 0..2);
    }

    #[test]
    fn locations_that_only_record_metrics_get_no_row_and_their_counters_a_track() {
        // A rank computing, and three ROCm SMI METRIC locations: two in the rank's group, one in a group of
        // its own (a process with no row at all).
        let mut b = TraceBuilder::new(Format::Generated);
        let (rank, smi) = (b.process(0), b.process(1));
        let cpu = b.location(rank, 0, LocationKind::CpuThread);
        let gpus = [b.location(rank, 1, LocationKind::Metric), b.location(rank, 2, LocationKind::Metric)];
        let own = b.location(smi, 3, LocationKind::Metric);
        let r = b.region("compute", "");
        b.interval(cpu, r, 0, 1000);
        let s0 = b.counter_series(rank, "busy (gpu0)");
        let s1 = b.counter_series(smi, "busy (gpu1)");
        for k in 0..10 {
            b.counter_sample(s0, k * 100, k as f64);
            b.counter_sample(s1, k * 100, 10.0 - k as f64);
        }
        let t = b.finish();
        assert!(gpus.iter().chain([&own]).all(|&l| t.records_only_metrics(l)));
        assert!(!t.records_only_metrics(cpu));
        let lay = TimelineLayout::new(&t, TimelineMetrics::default());
        assert_eq!(lay.rows.iter().map(|r| r.location).collect::<Vec<_>>(), vec![cpu], "one row: the computing thread");
        let counters = crate::layouts::counters::CounterLayout::new(&t, &lay, |_| true);
        let series: Vec<u32> = counters.tracks.iter().map(|x| x.series).collect();
        assert_eq!(series, vec![s0, s1], "both series have tracks, the metric-only group's after the rank's");
        // A store's slice that gives the location lanes (intervals elsewhere in the run) keeps its row.
        let lanes = vec![1, 1, 0, 0];
        let lay = TimelineLayout::with_lanes(&t, TimelineMetrics::default(), |_| true, |_| false, &lanes);
        assert_eq!(lay.rows.len(), 2);
    }
}
