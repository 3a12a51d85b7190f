//! What the timeline draws over its scene for the user's questions: the selected time range (a band with
//! its edges), a set of intervals brought forward (one region's, from the profile table, or a search's
//! matches) with the rest dimmed, and one interval outlined (the current search match). [`Marked`] indexes
//! the chosen intervals by row and lane once, so each frame draws them as `scene::timeline` draws intervals:
//! only what is visible, sub-pixel runs merged into one rect per pixel (bounded by rows x pixels).
//! Must not: draw the intervals themselves (`scene::timeline` does) or hold view state (`views::timeline`).

use super::palette;
use super::timeline::{TimelineView, AXIS_PX};
use super::{rgba, LineInstance, RectInstance, Rgba, Scene};
use crate::layouts::timeline::TimelineLayout;
use std::ops::Range;
use weft_model::Trace;

const BAND: Rgba = rgba(0x3b, 0x6f, 0xd8, 0x2c);
const BAND_EDGE: Rgba = rgba(0x2a, 0x55, 0xb0, 0xd0);
const DIM: Rgba = rgba(0xff, 0xff, 0xff, 0xb0);

/// The selected range [t0, t1] as a translucent band over the tracks, with its two edges (decoration).
pub fn selection_band(sc: &mut Scene, view: &TimelineView, t0_ns: u64, t1_ns: u64) {
    let (x_left, x_right) = (view.track_x0(), view.width);
    let (a, b) = (view.x_of(t0_ns as f64), view.x_of(t1_ns as f64));
    if b < x_left || a > x_right {
        return;
    }
    let (x0, x1) = (a.max(x_left), b.min(x_right));
    let h = (view.height - AXIS_PX).max(0.0);
    sc.decorate(|sc| {
        sc.rects.push(RectInstance::filled(x0, AXIS_PX, (x1 - x0).max(1.0), h, BAND));
        for x in [a, b] {
            if x >= x_left && x <= x_right {
                sc.lines.push(LineInstance::solid(x, 0.0, x, view.height, 1.5, BAND_EDGE));
            }
        }
    });
}

/// Chosen intervals indexed like the layout: per row, per lane, a range of `ids` sorted by start.
#[derive(Clone, Debug, Default)]
pub struct Marked {
    lanes: Vec<Vec<Range<usize>>>,
    ids: Vec<u32>,
}

impl Marked {
    /// The intervals of the layout's rows for which `keep(interval)` holds.
    pub fn new(layout: &TimelineLayout, keep: impl Fn(usize) -> bool) -> Self {
        let mut ids = Vec::new();
        let lanes = layout
            .rows
            .iter()
            .map(|row| {
                row.lane_ranges
                    .iter()
                    .map(|range| {
                        let from = ids.len();
                        ids.extend(layout.lane_intervals[range.clone()].iter().filter(|&&i| keep(i as usize)));
                        from..ids.len()
                    })
                    .collect()
            })
            .collect();
        Marked { lanes, ids }
    }

    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The marked intervals, in row then lane then start order.
    pub fn ids(&self) -> &[u32] {
        &self.ids
    }

    /// Dim the tracks, then draw the marked intervals that are visible in their colours with a dark edge.
    pub fn draw(&self, sc: &mut Scene, trace: &Trace, layout: &TimelineLayout, colors: &[Rgba], view: &TimelineView) {
        let iv = &trace.intervals;
        let lane = layout.metrics.lane_px;
        let (x_left, x_right) = (view.track_x0(), view.width);
        let (t0, t1) = (view.t0_ns, view.t1_ns);
        let end = |i: u32| (iv.start_ns[i as usize] + iv.dur_ns[i as usize]) as f64;
        sc.decorate(|sc| {
            let h = (view.height - AXIS_PX).max(0.0);
            sc.rects.push(RectInstance::filled(x_left, AXIS_PX, (x_right - x_left).max(0.0), h, DIM));
        });
        for r in layout.rows_in(view.scroll_y, view.scroll_y + view.height - AXIS_PX) {
            let (Some(lanes), Some(row)) = (self.lanes.get(r), layout.rows.get(r)) else { continue };
            let y_row = view.y_of(row.y);
            for (d, range) in lanes.iter().enumerate() {
                let y = y_row + d as f32 * lane;
                if y + lane < AXIS_PX || y > view.height {
                    continue;
                }
                let ids = &self.ids[range.clone()];
                let mut k = ids.partition_point(|&i| end(i) <= t0);
                while k < ids.len() {
                    let i = ids[k] as usize;
                    let s = iv.start_ns[i] as f64;
                    if s >= t1 {
                        break;
                    }
                    let x0 = view.x_of(s).max(x_left);
                    let x1 = view.x_of(end(ids[k])).min(x_right);
                    let color = colors[iv.region[i].index()];
                    let w = (x1 - x0).max(1.0);
                    sc.rects
                        .push(RectInstance::filled(x0, y + 1.0, w, lane - 2.0, color).with_border(palette::TEXT, 1.0));
                    // Everything else ending within this pixel is covered by the rect just drawn.
                    let t_next = view.t_of(x0 + w.max(1.0));
                    k += 1 + ids[k + 1..].partition_point(|&j| end(j) <= t_next);
                }
            }
        }
    }
}

/// Outline interval `i` (the current search match) on top of everything, where it is visible.
pub fn outline_interval(sc: &mut Scene, trace: &Trace, layout: &TimelineLayout, view: &TimelineView, i: usize) {
    let iv = &trace.intervals;
    let Some(&row) = layout.row_of_location.get(iv.location[i].index()) else { return };
    let Some(row) = layout.rows.get(row as usize) else { return };
    let lane = layout.metrics.lane_px;
    let y = view.y_of(row.y) + iv.depth[i] as f32 * lane;
    let (a, b) = (view.x_of(iv.start_ns[i] as f64), view.x_of((iv.start_ns[i] + iv.dur_ns[i]) as f64));
    if b < view.track_x0() || a > view.width || y + lane < AXIS_PX || y > view.height {
        return;
    }
    let x0 = a.max(view.track_x0()) - 2.0;
    let w = (b.min(view.width) - a.max(view.track_x0())).max(1.0) + 4.0;
    sc.rects.push(RectInstance::filled(x0, y - 1.0, w, lane + 2.0, 0).with_border(rgba(0xd0, 0x20, 0x20, 0xff), 2.0));
}
