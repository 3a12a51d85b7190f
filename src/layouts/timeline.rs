//! Timeline layout: which row each location takes, grouped by process, and each row's lanes (one per nesting
//! depth) as index lists sorted by start, and its instants sorted by time, so a viewport finds what is
//! visible by binary search.
//! Heights are in layout pixels; the scene maps time to x. Nothing here depends on the viewport.

use crate::model::{LocationId, ProcessId, Trace};
use crate::sort::SortDyn;
use std::ops::Range;

/// Heights in CSS pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimelineMetrics {
    pub lane_px: f32,
    pub row_gap_px: f32,
    pub process_header_px: f32,
}

impl Default for TimelineMetrics {
    fn default() -> Self {
        TimelineMetrics { lane_px: 18.0, row_gap_px: 4.0, process_header_px: 22.0 }
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
}

#[derive(Clone, Debug, PartialEq)]
pub struct ProcessHeader {
    pub process: ProcessId,
    pub y: f32,
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
}

impl TimelineLayout {
    pub fn new(trace: &Trace, metrics: TimelineMetrics) -> Self {
        Self::of_locations(trace, metrics, |_| true)
    }

    /// Rows only for the locations `keep` accepts (a location filter); the others get no row
    /// (`row_of_location` is u32::MAX for them).
    pub fn of_locations(trace: &Trace, metrics: TimelineMetrics, keep: impl Fn(LocationId) -> bool) -> Self {
        let order: Vec<LocationId> = trace.locations_in_display_order().into_iter().filter(|l| keep(*l)).collect();
        let iv = &trace.intervals;
        let mut rows = Vec::with_capacity(order.len());
        let mut headers = Vec::new();
        let mut lane_intervals = Vec::with_capacity(iv.len());
        let mut row_of_location = vec![u32::MAX; trace.locations.len()];
        let mut y = 0.0f32;
        let mut last_process: Option<ProcessId> = None;
        let mut counts: Vec<usize> = Vec::new();
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
        let mut row_instants = Vec::with_capacity(ins.time_ns.len());
        for &l in &order {
            let first = row_instants.len();
            row_instants.extend_from_slice(&by_location[ins_start[l.index()]..ins_start[l.index() + 1]]);
            row_instants[first..].sort_dyn_by_key(|&j| ins.time_ns[j as usize]);
            let instants = first..row_instants.len();
            let p = trace.locations.process[l.index()];
            if last_process != Some(p) {
                headers.push(ProcessHeader { process: p, y });
                y += metrics.process_header_px;
                last_process = Some(p);
            }
            let range = trace.intervals_of(l);
            let lanes = range.clone().map(|i| iv.depth[i] as usize + 1).max().unwrap_or(1);
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
            let lane_ranges = (0..lanes).map(|d| base + counts[d]..base + counts[d + 1]).collect();
            lane_intervals.resize(base + range.len(), 0);
            let mut next: Vec<usize> = counts[..lanes].to_vec();
            for i in range {
                let d = iv.depth[i] as usize;
                lane_intervals[base + next[d]] = i as u32;
                next[d] += 1;
            }
            row_of_location[l.index()] = rows.len() as u32;
            rows.push(TimelineRow { location: l, process: p, y, lanes: lanes as u32, lane_ranges, instants });
            y += lanes as f32 * metrics.lane_px + metrics.row_gap_px;
        }
        TimelineLayout { metrics, rows, headers, lane_intervals, height: y, row_of_location, row_instants }
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
    use crate::model::{Format, LocationKind, TraceBuilder};

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
}
