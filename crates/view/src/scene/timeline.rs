//! The timeline view's scene: a time axis, one row per location grouped under process headers, intervals as
//! rects nested by depth, instants, and flows/messages as arrows. Built per viewport: only what is visible,
//! and runs of sub-pixel intervals collapse into one rect per pixel, so instance counts are bounded by
//! rows x pixels, never by the trace's size. Hit testing uses the same geometry, so hover matches drawing.
//! Compact rows thinner than a pixel share it (the first row in a pixel line draws; labels are thinned to
//! what fits); a folded process's rows draw over each other as one summary row. The axis labels times
//! relative to a round time at the window's start when zoomed in ("+1.25 ms", that time shown once in the
//! gutter); arrows are clipped to the plot, never crossing the label column or the axis. The overview strip
//! (`Overview`) at the bottom is the whole run's utilization and commonest region per column, computed once.

use super::axis::{self, TimeScale};
use super::palette;
use super::{rgba, Align, Label, LineInstance, RectInstance, Rgba, Scene, Shape};
use crate::layouts::timeline::TimelineLayout;
use weft_model::{MessageKind, Trace};

pub const AXIS_PX: f32 = 28.0;
pub const LABEL_GUTTER_PX: f32 = 200.0;
/// Height of the overview strip at the bottom of the timeline; rows, arrows and grid stop above it.
pub const OVERVIEW_PX: f32 = 24.0;
/// Flows drawn at most per frame; denser views thin them evenly.
const MAX_FLOWS: usize = 20_000;
/// Message lines crossing one pixel column before they fade: past it each line's opacity falls in
/// proportion, so a run's thousands of messages shade the tracks (denser where the traffic is) instead of
/// covering them with one solid mesh; zoomed in, lines keep their full colour.
const FLOWS_PER_COLUMN_AT_FULL_ALPHA: f32 = 3.0;
/// Lines drawn at most over one pixel column (where more cross it, every k-th): as many as the eye tells
/// apart, and few enough that their faded sum stays a shade.
const FLOWS_PER_COLUMN_DRAWN: f32 = 32.0;
/// The faintest a faded message line gets (of 255).
const MIN_FLOW_ALPHA: u8 = 0x04;

/// The message and flow lines of a frame ([`TimelineScene::flow_lines`]): each line and whether its arrow
/// head is inside the plot, and the darkest pixel column their fading leaves (0: none drawn, 1: black).
pub struct FlowLines {
    pub lines: Vec<(LineInstance, bool)>,
    pub darkest: f64,
}

/// The margin beyond the trace's ends a view may show, as a share of its span (the fitted view's right margin).
pub const END_MARGIN: f64 = 0.02;

/// The window [t0, t1] kept on a trace of `span_ns`: within [-m, span + m] (m: [`END_MARGIN`] of the span), at
/// most that wide, its width kept where it fits. Every time axis that zooms and pans (the timeline, a store's,
/// the moments view) keeps its window with it.
pub fn clamp_to_trace(t0_ns: f64, t1_ns: f64, span_ns: u64) -> (f64, f64) {
    let span = span_ns.max(1) as f64;
    let (lo, hi) = (-span * END_MARGIN, span * (1.0 + END_MARGIN));
    let w = (t1_ns - t0_ns).min(hi - lo);
    // Not `clamp`: rounding can put `hi - w` a hair below `lo`, and clamp panics on that.
    let t0 = t0_ns.max(lo).min(hi - w);
    (t0, t0 + w)
}

/// What part of the timeline is shown, in trace time and layout pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimelineView {
    pub t0_ns: f64,
    pub t1_ns: f64,
    pub scroll_y: f32,
    pub width: f32,
    pub height: f32,
    pub label_gutter: f32,
    /// The trace time (ns from its first event) the axis counts from, when two runs are compared aligned at
    /// a region's instance (`compare`): labels then read aligned time (0 there, negative before) and the
    /// gutter says where that 0 lies in the run's own time. None: the trace's own time.
    pub time_origin_ns: Option<f64>,
}

impl TimelineView {
    pub fn fit(trace: &Trace, width: f32, height: f32) -> Self {
        let span = trace.span_ns.max(1) as f64;
        let t1_ns = span * (1.0 + END_MARGIN);
        TimelineView {
            t0_ns: 0.0,
            t1_ns,
            scroll_y: 0.0,
            width,
            height,
            label_gutter: LABEL_GUTTER_PX,
            time_origin_ns: None,
        }
    }
    pub fn track_x0(&self) -> f32 {
        self.label_gutter
    }
    pub fn track_width(&self) -> f32 {
        (self.width - self.label_gutter).max(1.0)
    }
    pub fn ns_per_px(&self) -> f64 {
        (self.t1_ns - self.t0_ns) / self.track_width() as f64
    }
    pub fn x_of(&self, t_ns: f64) -> f32 {
        (self.track_x0() as f64 + (t_ns - self.t0_ns) / self.ns_per_px()) as f32
    }
    pub fn t_of(&self, x: f32) -> f64 {
        self.t0_ns + (x - self.track_x0()) as f64 * self.ns_per_px()
    }
    /// Screen y of a layout y.
    pub fn y_of(&self, layout_y: f32) -> f32 {
        AXIS_PX + layout_y - self.scroll_y
    }
    /// Screen y where the plot ends (the overview strip below).
    pub fn plot_bottom(&self) -> f32 {
        (self.height - OVERVIEW_PX).max(AXIS_PX)
    }

    /// Zoom by `factor` (>1 zooms in) keeping the time under screen x fixed. Never narrower than a thousandth
    /// of a nanosecond a pixel, never wider than the trace (and the fitted view's margins).
    pub fn zoom_at(&mut self, x: f32, factor: f64, span_ns: u64) {
        let anchor = self.t_of(x.clamp(self.track_x0(), self.width));
        let width = ((self.t1_ns - self.t0_ns) / factor).max(self.track_width() as f64 * 1e-3);
        let frac = (anchor - self.t0_ns) / (self.t1_ns - self.t0_ns);
        self.t0_ns = anchor - frac * width;
        self.t1_ns = self.t0_ns + width;
        self.clamp_time(span_ns);
    }

    /// Pan by screen pixels (positive moves the view later in time).
    pub fn pan_px(&mut self, dx: f32, span_ns: u64) {
        let d = dx as f64 * self.ns_per_px();
        self.t0_ns += d;
        self.t1_ns += d;
        self.clamp_time(span_ns);
    }

    /// Keep the window on the trace: within [-m, span + m] with m the fitted view's margin
    /// ([`END_MARGIN`] of the span), at most that wide. Panning, zooming, a link or a search never shows time
    /// past the trace's end (it left half a view empty).
    pub fn clamp_time(&mut self, span_ns: u64) {
        (self.t0_ns, self.t1_ns) = clamp_to_trace(self.t0_ns, self.t1_ns, span_ns);
    }

    pub fn scroll_by(&mut self, dy: f32, layout: &TimelineLayout) {
        let max = (layout.height - (self.plot_bottom() - AXIS_PX) + 16.0).max(0.0);
        self.scroll_y = (self.scroll_y + dy).clamp(0.0, max);
    }
}

/// Per-region colours by function group (`scene::groups`), computed once per trace.
pub fn region_colors(trace: &Trace) -> Vec<Rgba> {
    super::groups::region_colors(trace, &super::groups::ColorOverrides::default())
}

/// A 1-2-5 step of at least `min` nanoseconds.
pub fn nice_step_ns(min: f64) -> f64 {
    let min = min.max(1.0);
    let p = 10f64.powf(min.log10().floor());
    for m in [1.0, 2.0, 5.0, 10.0] {
        if p * m >= min {
            return p * m;
        }
    }
    p * 10.0
}

/// A time in the unit that suits its size (never "1560400 us": 1.5604 s), with the decimals that tell apart
/// times `step_ns` apart, e.g. "1.25 ms".
pub fn format_time(t_ns: f64, step_ns: f64) -> String {
    let unit = axis::unit_for(t_ns.abs().max(step_ns.abs()));
    axis::format_time(t_ns, unit, axis::decimals_for(step_ns, unit.1))
}

/// A time at the precision a view spanning `visible_ns` needs (about a thousandth of the span): hovers say
/// "1.559213 s" zoomed in and "1.56 s" over a whole 10 s run.
pub fn format_time_for_span(t_ns: f64, visible_ns: f64) -> String {
    format_time(t_ns, nice_step_ns((visible_ns / 1000.0).max(1.0)))
}

/// The timeline axis's ticks over `scale` (`axis::window_ticks`) and the gutter's text: the relative labels'
/// base, if any. With an `origin_ns` (an aligned comparison) the labels read time from that origin (0 there,
/// negative before) and the gutter says where the origin lies in the run's own time ("0 at 1.25 ms"); the
/// ticks' `t_ns` and `x` stay the trace's.
pub fn axis_ticks(scale: &TimeScale, label_y: f32, origin_ns: Option<f64>) -> (Option<String>, Vec<axis::Tick>) {
    let Some(origin) = origin_ns.filter(|o| o.is_finite()) else {
        let (base, _, ticks) = axis::window_ticks(scale, label_y, palette::TEXT_MUTED);
        return (base.map(|b| format!("from {b}")), ticks);
    };
    let shifted = TimeScale { t0_ns: scale.t0_ns - origin, t1_ns: scale.t1_ns - origin, ..*scale };
    let (base, _, mut ticks) = axis::window_ticks(&shifted, label_y, palette::TEXT_MUTED);
    for t in &mut ticks {
        t.t_ns += origin;
    }
    let at = format_time_for_span(origin, (scale.t1_ns - scale.t0_ns).abs());
    let said = match base {
        Some(b) => format!("from {b}, 0 at {at}"),
        None => format!("aligned: 0 at {at}"),
    };
    (Some(said), ticks)
}

/// Clip segment (x0, y0)-(x1, y1) to the box [xa, xb] x [ya, yb] (Liang-Barsky): the part inside and whether
/// its far end is the segment's own (an arrow head belongs there only then); None when nothing is inside.
pub fn clip_segment(seg: (f32, f32, f32, f32), bx: (f32, f32, f32, f32)) -> Option<((f32, f32, f32, f32), bool)> {
    let (x0, y0, x1, y1) = seg;
    let (u0, u1) = super::segment_range(seg, [bx.0, bx.1, bx.2, bx.3])?;
    let (dx, dy) = (x1 - x0, y1 - y0);
    Some(((x0 + u0 * dx, y0 + u0 * dy, x0 + u1 * dx, y0 + u1 * dy), u1 >= 1.0))
}

/// A duration in the largest unit that keeps it at least one, 3 significant decimals.
pub fn format_duration(ns: u64) -> String {
    let v = ns as f64;
    if ns >= 1_000_000_000 {
        format!("{:.3} s", v / 1e9)
    } else if ns >= 1_000_000 {
        format!("{:.3} ms", v / 1e6)
    } else if ns >= 1_000 {
        format!("{:.3} us", v / 1e3)
    } else {
        format!("{ns} ns")
    }
}

/// `s.partition_point(pred)` found by galloping from the front: O(log k) probes near the start for a prefix
/// of k, where a binary search of the whole rest of a lane probes O(log n) far apart. What a pixel column
/// skips is a few intervals of a lane of up to millions, so the scene costs about pixels x lanes, not
/// pixels x lanes x log(intervals) in scattered reads.
pub fn partition_point_near<T>(s: &[T], mut pred: impl FnMut(&T) -> bool) -> usize {
    // Every item before `lo` satisfies `pred`.
    let (mut lo, mut step) = (0usize, 1usize);
    while lo + step <= s.len() {
        if !pred(&s[lo + step - 1]) {
            return lo + s[lo..lo + step - 1].partition_point(pred);
        }
        lo += step;
        step *= 2;
    }
    lo + s[lo..].partition_point(pred)
}

pub struct TimelineScene<'a> {
    pub trace: &'a Trace,
    pub layout: &'a TimelineLayout,
    pub colors: &'a [Rgba],
}

impl TimelineScene<'_> {
    pub fn build(&self, view: &TimelineView, highlight: Option<usize>) -> Scene {
        self.build_with(view, highlight, |_| {})
    }

    /// [`build`](Self::build) with `below` drawing what lies below the rows (the counter tracks) before the
    /// scene decides whether it drew nothing: a notice that nothing is here is never drawn over tracks that
    /// show data.
    pub fn build_with(&self, view: &TimelineView, highlight: Option<usize>, below: impl FnOnce(&mut Scene)) -> Scene {
        let mut sc = Scene::new(view.width, view.height, palette::BACKGROUND);
        let (t, lay) = (self.trace, self.layout);
        let iv = &t.intervals;
        let lane = lay.metrics.lane_px;
        // Gaps between lanes only where lanes are tall enough to spare them.
        let (pad, rect_h) = if lane >= 6.0 { (1.0, lane - 2.0) } else { (0.0, lane.max(1.0)) };
        let x_left = view.track_x0();
        let x_right = view.width;
        let bottom = view.plot_bottom();
        let rows = lay.rows_in(view.scroll_y, view.scroll_y + bottom - AXIS_PX);

        self.rows_chrome(&mut sc, view, bottom);

        // Row backgrounds and process headers are decoration.
        sc.chrome = sc.rects.len();

        // Intervals, lane by lane. Lanes thinner than a pixel share it: the first in each pixel line draws
        // (a folded process's rows all draw: they are one summary row).
        let t0 = view.t0_ns;
        let t1 = view.t1_ns;
        let ns_px = view.ns_per_px();
        let mut hl_rect = None;
        let mut last_line = i64::MIN;
        for r in rows.clone() {
            let row = &lay.rows[r];
            let y_row = view.y_of(row.y);
            // Only the lanes on screen: a row may be a million lanes deep.
            let first = ((AXIS_PX - y_row) / lane).floor().max(0.0) as usize;
            let last = (((bottom - y_row) / lane).ceil().max(0.0) as usize).min(row.lane_ranges.len());
            for d in first.min(last)..last {
                let y = y_row + d as f32 * lane;
                if lane < 1.0 && !row.folded {
                    let line = y.floor() as i64;
                    if line == last_line {
                        continue;
                    }
                    last_line = line;
                }
                let range = &row.lane_ranges[d];
                let ids = &lay.lane_intervals[range.clone()];
                let mut k = ids.partition_point(|&i| (iv.start_ns[i as usize] + iv.dur_ns[i as usize]) as f64 <= t0);
                while k < ids.len() {
                    let i = ids[k] as usize;
                    let s = iv.start_ns[i] as f64;
                    if s >= t1 {
                        break;
                    }
                    let e = s + iv.dur_ns[i] as f64;
                    let x0 = view.x_of(s).max(x_left);
                    let x1 = view.x_of(e).min(x_right);
                    let color = self.colors[iv.region[i].index()];
                    if x1 - x0 >= 1.0 {
                        let mut rect = RectInstance::filled(x0, y + pad, x1 - x0, rect_h, color);
                        if highlight == Some(i) {
                            rect = rect.with_border(palette::TEXT, 2.0);
                            hl_rect = Some(rect);
                        }
                        sc.rects.push(rect);
                        if x1 - x0 > 36.0 && lane >= 12.0 {
                            sc.labels.push(
                                Label::new(
                                    x0 + 4.0,
                                    y + lane / 2.0,
                                    t.region_name(iv.region[i]),
                                    palette::text_on(color),
                                    11.0,
                                )
                                .clipped(x1 - x0 - 8.0),
                            );
                        }
                        k += 1;
                    } else {
                        // Everything ending within this pixel collapses into one 1-px rect.
                        sc.rects.push(RectInstance::filled(x0, y + pad, 1.0, rect_h, color));
                        let t_next = t0 + ((x0 - x_left + 1.0) as f64) * ns_px;
                        let skip = partition_point_near(&ids[k + 1..], |&j| {
                            (iv.start_ns[j as usize] + iv.dur_ns[j as usize]) as f64 <= t_next
                        });
                        k += 1 + skip;
                    }
                }
            }
        }
        if let Some(r) = hl_rect {
            sc.rects.push(r); // on top of neighbours
        }

        // Instants: small diamonds at the top of their row; one per pixel column where they crowd.
        let ins = &t.instants;
        let size = lane.clamp(3.0, 8.0);
        let mut last_line = i64::MIN;
        for r in rows.clone() {
            let row = &lay.rows[r];
            let ids = &lay.row_instants[row.instants.clone()];
            let y = view.y_of(row.y);
            if ids.is_empty() || y + size > bottom {
                continue;
            }
            if lane < 1.0 && !row.folded {
                let line = y.floor() as i64;
                if line == last_line {
                    continue;
                }
                last_line = line;
            }
            let mut k = ids.partition_point(|&j| (ins.time_ns[j as usize] as f64) < t0);
            while k < ids.len() {
                let tt = ins.time_ns[ids[k] as usize] as f64;
                if tt > t1 {
                    break;
                }
                let x = view.x_of(tt);
                sc.rects.push(
                    RectInstance::filled(x - size / 2.0, y, size, size, rgba(0x33, 0x33, 0x33, 0xe0))
                        .with_shape(Shape::Diamond),
                );
                let t_next = view.t_of(x + 1.0);
                k += 1 + partition_point_near(&ids[k + 1..], |&j| (ins.time_ns[j as usize] as f64) < t_next);
            }
        }

        // Flows and messages as arrows: a flow from the slice each end is bound to (its lane), else
        // between row centres of the first lane; clipped to the plot (never over the labels or the axis).
        for (line, whole) in self.flow_lines(view).lines {
            sc.lines.push(if whole { line.with_arrow() } else { line });
        }

        // Axis on top, gutter on the left, both over the tracks (decoration).
        let before = sc.rects.len() + sc.lines.len();
        sc.rects.push(RectInstance::filled(0.0, 0.0, view.width, AXIS_PX, rgba(0xfa, 0xfb, 0xfc, 0xff)));
        sc.lines.push(LineInstance::solid(0.0, AXIS_PX - 0.5, view.width, AXIS_PX - 0.5, 1.0, palette::GRID));
        sc.lines.push(LineInstance::solid(x_left - 0.5, 0.0, x_left - 0.5, bottom, 1.0, palette::GRID));
        let scale = TimeScale { t0_ns: t0, t1_ns: t1, x0: x_left, x1: x_right - 2.0 };
        let (base, ticks) = axis_ticks(&scale, AXIS_PX / 2.0 - 2.0, view.time_origin_ns);
        if let Some(base) = base {
            sc.labels.push(
                Label::new(view.label_gutter - 8.0, AXIS_PX / 2.0 - 2.0, base, palette::TEXT, 11.0)
                    .aligned(Align::Right)
                    .bold()
                    .clipped(view.label_gutter - 12.0),
            );
        }
        for tick in ticks {
            let x = tick.x;
            if x >= x_left {
                sc.lines.push(LineInstance::solid(x, AXIS_PX - 8.0, x, AXIS_PX, 1.0, palette::TEXT_MUTED));
                sc.lines.push(LineInstance::solid(x, AXIS_PX, x, bottom, 1.0, rgba(0x00, 0x00, 0x00, 0x14)));
                sc.labels.extend(tick.label);
            }
        }
        sc.chrome += sc.rects.len() + sc.lines.len() - before;
        below(&mut sc);
        if sc.marks() == 0 {
            let (x, w, h) = (x_left, (view.width - x_left).max(1.0), (bottom - AXIS_PX).max(1.0));
            if iv.start_ns.is_empty() && ins.time_ns.is_empty() && t.messages.is_empty() {
                sc.add_notice(x, AXIS_PX, w, h, &["This trace has no intervals, instants or messages to draw."]);
            } else if ins.time_ns.is_empty() && t.messages.is_empty() && iv.dur_ns.iter().all(|&d| d == 0) {
                let n = iv.start_ns.len();
                let what =
                    if n == 1 { "Its one interval lasts".to_string() } else { format!("All {n} intervals last") };
                sc.add_notice(x, AXIS_PX, w, h, &["Nothing has a width to draw.", &format!("{what} 0 ns.")]);
            } else if lay.rows.is_empty() {
                sc.add_notice(x, AXIS_PX, w, h, &["No location is shown.", "The location filter matches none."]);
            } else {
                sc.add_notice(x, AXIS_PX, w, h, &["Nothing here in this time range or these rows.", "Press F to fit."]);
            }
        }
        sc
    }

    /// The rows' alternating backgrounds and labels (thinned so none overlaps the one above) and the process
    /// headers with their chevrons, for the rows on screen above `bottom`: what a store's summary rows are
    /// drawn under too (`views::store`).
    pub fn rows_chrome(&self, sc: &mut Scene, view: &TimelineView, bottom: f32) {
        let (t, lay) = (self.trace, self.layout);
        let lane = lay.metrics.lane_px;
        let rows = lay.rows_in(view.scroll_y, view.scroll_y + bottom - AXIS_PX);
        // Row backgrounds and labels; labels thinned so none overlaps the one above.
        let mut label_bottom = f32::NEG_INFINITY;
        for r in rows.clone() {
            if !lay.leads(r) {
                continue;
            }
            let row = &lay.rows[r];
            let y = view.y_of(row.y);
            let h = lay.row_height(row);
            if r % 2 == 1 && h >= 3.0 {
                sc.rects.push(RectInstance::filled(0.0, y, view.width, h, palette::ROW_ALT));
            }
            let size = if h >= 12.0 || !lay.metrics.compact { 12.0 } else { 10.0 };
            // Centred on the first lane, kept below the axis while the row is still there.
            let cy = (y + lane.min(18.0) / 2.0).max(AXIS_PX + size / 2.0);
            if cy - size / 2.0 >= label_bottom && cy <= y + h.max(lane.min(18.0) / 2.0) && cy <= bottom - size / 2.0 {
                label_bottom = cy + size / 2.0;
                // Cut keeping the rank and thread (`row_names`); the label column's hover names the whole row.
                let room = view.label_gutter - 18.0;
                let text = super::row_names::elide_middle(&self.row_label(r), room, size);
                sc.labels.push(Label::new(12.0, cy, text, palette::TEXT, size).clipped(room));
            }
        }
        // Headers are sorted by y: only those on screen (a trace may have a million processes).
        if lay.metrics.process_header_px > 0.0 {
            let first_hdr = lay.headers.partition_point(|h| view.y_of(h.y) + lay.metrics.process_header_px < AXIS_PX);
            for hdr in &lay.headers[first_hdr..] {
                let y = view.y_of(hdr.y);
                if y > bottom {
                    break;
                }
                sc.rects.push(RectInstance::filled(
                    0.0,
                    y,
                    view.width,
                    lay.metrics.process_header_px - 2.0,
                    rgba(0xe8, 0xec, 0xf2, 0xff),
                ));
                let cy = y + lay.metrics.process_header_px / 2.0 - 1.0;
                if hdr.rows > 1 || hdr.folded {
                    // The chevron: a click on the header folds or unfolds the process.
                    let chevron = if hdr.folded { "\u{25b8}" } else { "\u{25be}" };
                    sc.labels.push(Label::new(4.0, cy, chevron, palette::TEXT_MUTED, 12.0));
                }
                sc.labels.push(
                    Label::new(16.0, cy, t.process_name(hdr.process), palette::TEXT, 12.0)
                        .bold()
                        .clipped(view.width - 22.0),
                );
            }
        }
    }

    /// The gutter label of row `r`: its location; in compact rows a process's first row names the process
    /// too (there are no headers); a folded process's row names the process and how many rows it holds.
    pub fn row_label(&self, r: usize) -> String {
        let (t, lay) = (self.trace, self.layout);
        let row = &lay.rows[r];
        let h = lay.headers.partition_point(|h| h.first_row as usize <= r).checked_sub(1).map(|k| &lay.headers[k]);
        let process = t.process_name(row.process);
        match h {
            Some(h) if h.folded => format!("\u{25b8} {process} ({} rows)", h.rows),
            Some(h) if lay.metrics.compact && h.first_row as usize == r && h.rows == 1 => process.to_string(),
            Some(h) if lay.metrics.compact && h.first_row as usize == r => {
                format!("\u{25be} {process} \u{b7} {}", t.location_name(row.location))
            }
            _ => t.location_name(row.location).to_string(),
        }
    }

    /// The messages and flows drawn for this view: those with both ends on a row, crossing the time range
    /// and touching or spanning the visible rows; thinned evenly beyond `MAX_FLOWS`.
    pub fn visible_flows(&self, view: &TimelineView) -> Vec<usize> {
        let (m, lay) = (&self.trace.messages, self.layout);
        let rows = lay.rows_in(view.scroll_y, view.scroll_y + view.height - AXIS_PX);
        let (t0, t1) = (view.t0_ns, view.t1_ns);
        let visible: Vec<usize> = (0..m.len())
            .filter(|&j| {
                let (s, e) = (m.send_ns[j] as f64, m.recv_ns[j] as f64);
                let (a, b) = (
                    lay.row_of_location[m.sender[j].index()] as usize,
                    lay.row_of_location[m.receiver[j].index()] as usize,
                );
                // Ends without a row (a location filter hides them) draw nothing.
                a < lay.rows.len()
                    && b < lay.rows.len()
                    && s.min(e) <= t1
                    && s.max(e) >= t0
                    && (rows.contains(&a) || rows.contains(&b) || (a < rows.start) != (b < rows.start))
            })
            .collect();
        let stride = visible.len().div_ceil(MAX_FLOWS).max(1);
        visible.into_iter().step_by(stride).collect()
    }

    /// The message and flow lines to draw, faded by how many cross the same pixel columns: a line's opacity
    /// is its colour's while at most [`FLOWS_PER_COLUMN_AT_FULL_ALPHA`] lines cross the busiest column of its
    /// span, and falls in proportion past it (so no column darkens past about 1 - (1 - a)^3 for a line
    /// colour's opacity a); where more than [`FLOWS_PER_COLUMN_DRAWN`] cross a column, every k-th of them is
    /// drawn. So a fan of thousands of near-vertical launch flows (a fitted Kineto run) shades its columns
    /// (darker where denser, never solid black), as a run's messages shade the tracks, and zoomed in every
    /// line keeps its full colour. Also the darkest a column gets (`1 - Π(1 - alpha)` of the lines drawn over
    /// it), for tests.
    pub fn flow_lines(&self, view: &TimelineView) -> FlowLines {
        let t = self.trace;
        let (x_left, bottom) = (view.track_x0(), view.plot_bottom());
        let plot = (x_left, AXIS_PX, view.width, bottom);
        let cols = (view.width - x_left).max(1.0).ceil() as usize + 1;
        let col = |x: f32| ((x - x_left).max(0.0) as usize).min(cols - 1);
        type Segment = ((f32, f32, f32, f32), bool);
        let segs: Vec<(usize, Segment)> = self
            .visible_flows(view)
            .into_iter()
            .filter_map(|j| clip_segment(self.flow_segment(view, j), plot).map(|s| (j, s)))
            .collect();
        // Lines over each column: +1 where a line's columns begin, -1 past their end, summed.
        let mut over = vec![0i64; cols + 1];
        let span = |(x0, _, x1, _): (f32, f32, f32, f32)| (col(x0.min(x1)), col(x0.max(x1)));
        for (_, (seg, _)) in &segs {
            let (a, b) = span(*seg);
            over[a] += 1;
            over[b + 1] -= 1;
        }
        for k in 1..over.len() {
            over[k] += over[k - 1];
        }
        // The most lines over any column of a line's span, by a sparse table of maxima (O(1) a line).
        let mut most: Vec<Vec<i64>> = vec![over[..cols].to_vec()];
        while 1usize << most.len() <= cols {
            let (prev, half) = (&most[most.len() - 1], 1usize << (most.len() - 1));
            let next: Vec<i64> = (0..prev.len().saturating_sub(half)).map(|i| prev[i].max(prev[i + half])).collect();
            most.push(next);
        }
        let span_max = |a: usize, b: usize| {
            let k = (usize::BITS - 1 - (b - a + 1).leading_zeros()) as usize;
            most[k][a].max(most[k][b + 1 - (1 << k)])
        };
        let mut seen = vec![0u32; cols];
        let mut kept = vec![1.0f64; cols];
        let mut lines = Vec::with_capacity(segs.len());
        for (j, (seg, whole)) in segs {
            let (a, b) = span(seg);
            let m = (a + b) / 2;
            let density = span_max(a, b).max(1) as f32;
            // Every k-th line of a column crossed by more than can be told apart.
            let every = (density / FLOWS_PER_COLUMN_DRAWN).ceil().max(1.0) as u32;
            seen[m] += 1;
            if !(seen[m] - 1).is_multiple_of(every) {
                continue;
            }
            let color =
                if t.messages.kind[j] == MessageKind::Flow { palette::FLOW } else { rgba(0x20, 0x20, 0x80, 0xa0) };
            let alpha = (color & 0xff) as f32;
            let drawn = (density / every as f32).max(1.0);
            let fade = (FLOWS_PER_COLUMN_AT_FULL_ALPHA / drawn).min(1.0);
            let faded = ((alpha * fade).round() as u8).max(MIN_FLOW_ALPHA.min(alpha as u8));
            let a_f = faded as f64 / 255.0;
            kept[a..=b].iter_mut().for_each(|k| *k *= 1.0 - a_f);
            let color = (color & !0xff) | faded as Rgba;
            lines.push((LineInstance::solid(seg.0, seg.1, seg.2, seg.3, 1.0, color), whole));
        }
        let darkest = kept.iter().map(|k| 1.0 - k).fold(0.0, f64::max);
        FlowLines { lines, darkest }
    }

    /// Message (or flow) `j` drawn over the others, thicker and in the highlight colour (the hovered one).
    pub fn highlight_flow(&self, sc: &mut Scene, view: &TimelineView, j: usize) {
        let plot = (view.track_x0(), AXIS_PX, view.width, view.plot_bottom());
        if j < self.trace.messages.len() {
            if let Some(((x0, y0, x1, y1), whole)) = clip_segment(self.flow_segment(view, j), plot) {
                let line = LineInstance::solid(x0, y0, x1, y1, 2.5, palette::FLOW_HOVER);
                sc.lines.push(if whole { line.with_arrow() } else { line });
            }
        }
    }

    /// The slices message `j` joins: for a flow, the innermost interval holding each end's time on its
    /// location (the reader moves every flow end into the slice it binds to); None where there is none.
    pub fn flow_ends(&self, j: usize) -> (Option<usize>, Option<usize>) {
        let m = &self.trace.messages;
        let end = |l: weft_model::LocationId, t: u64| {
            let r = self.layout.row_of_location[l.index()] as usize;
            self.layout.interval_at(self.trace, r, t).map(|(_, i)| i)
        };
        (end(m.sender[j], m.send_ns[j]), end(m.receiver[j], m.recv_ns[j]))
    }

    /// Screen segment of message `j`: from its send time on the sending slice's lane to its receive
    /// time on the receiving slice's lane (the first lane where an end has no slice).
    pub fn flow_segment(&self, view: &TimelineView, j: usize) -> (f32, f32, f32, f32) {
        let (m, lay) = (&self.trace.messages, self.layout);
        let lane = lay.metrics.lane_px;
        let y = |l: weft_model::LocationId, send: bool| {
            let r = lay.row_of_location[l.index()] as usize;
            let d = lay.message_lane(self.trace, j, send);
            view.y_of(lay.rows[r].y) + d as f32 * lane + lane / 2.0
        };
        (view.x_of(m.send_ns[j] as f64), y(m.sender[j], true), view.x_of(m.recv_ns[j] as f64), y(m.receiver[j], false))
    }

    /// The drawn message or flow nearest screen point (x, y), within `tol` pixels of its arrow.
    pub fn hit_flow(&self, view: &TimelineView, x: f32, y: f32, tol: f32) -> Option<usize> {
        if x < view.track_x0() || y < AXIS_PX {
            return None;
        }
        let mut best: Option<(f32, usize)> = None;
        for j in self.visible_flows(view) {
            let (x0, y0, x1, y1) = self.flow_segment(view, j);
            let (dx, dy) = (x1 - x0, y1 - y0);
            let len2 = dx * dx + dy * dy;
            let u = if len2 > 0.0 { (((x - x0) * dx + (y - y0) * dy) / len2).clamp(0.0, 1.0) } else { 0.0 };
            let (px, py) = (x0 + u * dx - x, y0 + u * dy - y);
            let d = (px * px + py * py).sqrt();
            if d <= tol && best.is_none_or(|(b, _)| d < b) {
                best = Some((d, j));
            }
        }
        best.map(|(_, j)| j)
    }

    /// The interval under screen point (x, y): exact hit first, else the nearest within 3 px in that lane
    /// (in a folded process's summary row, the nearest of all its rows).
    pub fn hit(&self, view: &TimelineView, x: f32, y: f32) -> Option<usize> {
        if x < view.track_x0() || y < AXIS_PX || y >= view.plot_bottom() {
            return None;
        }
        let lay = self.layout;
        let iv = &self.trace.intervals;
        let ly = y - AXIS_PX + view.scroll_y;
        let r = lay.row_at(ly)?;
        let d = ((ly - lay.rows[r].y) / lay.metrics.lane_px) as usize;
        let t = view.t_of(x);
        let tol = 3.0 * view.ns_per_px();
        let mut best: Option<(f64, usize)> = None;
        for row in &lay.rows[lay.stacked_with(r)] {
            let Some(range) = row.lane_ranges.get(d) else { continue };
            let ids = &lay.lane_intervals[range.clone()];
            let k = ids.partition_point(|&i| ((iv.start_ns[i as usize] + iv.dur_ns[i as usize]) as f64) < t - tol);
            for &i in ids.iter().skip(k).take(64) {
                let i = i as usize;
                let (s, e) = (iv.start_ns[i] as f64, (iv.start_ns[i] + iv.dur_ns[i]) as f64);
                if s > t + tol {
                    break;
                }
                let dist = if t < s {
                    s - t
                } else if t > e {
                    t - e
                } else {
                    0.0
                };
                if best.is_none_or(|(bd, _)| dist < bd) {
                    best = Some((dist, i));
                }
            }
        }
        best.filter(|&(dist, _)| dist <= tol).map(|(_, i)| i)
    }

    /// The row whose label or lanes are at screen y (any x): the first of a folded process's rows.
    pub fn row_at_screen(&self, view: &TimelineView, y: f32) -> Option<usize> {
        if y < AXIS_PX || y >= view.plot_bottom() {
            return None;
        }
        let r = self.layout.row_at(y - AXIS_PX + view.scroll_y)?;
        Some(self.layout.stacked_with(r).start)
    }

    /// The process header at screen y, when the header (not a row) is there.
    pub fn header_at_screen(&self, view: &TimelineView, y: f32) -> Option<usize> {
        let lay = self.layout;
        if y < AXIS_PX || y >= view.plot_bottom() || lay.metrics.process_header_px <= 0.0 {
            return None;
        }
        let ly = y - AXIS_PX + view.scroll_y;
        let h = lay.header_at(ly)?;
        (ly < lay.headers[h].y + lay.metrics.process_header_px).then_some(h)
    }
}

/// [`Overview::new`] a slice of the work at a time (the page computes the strip in load steps of a few ms:
/// 1.45 M intervals took one 38-41 ms task; 5,000 locations whose outermost intervals span the run touch
/// 10 M bins, one 60-70 ms step when steps were counted in intervals).
pub struct OverviewBuild {
    w: f64,
    span: u64,
    busy: Vec<f64>,
    best: Vec<f64>,
    region: Vec<u32>,
    busy_locations: Vec<bool>,
    next: usize,
}

impl OverviewBuild {
    pub fn new(trace: &Trace) -> Self {
        let bins = Overview::BINS;
        let span = trace.span_ns.max(1);
        OverviewBuild {
            w: span as f64 / bins as f64,
            span,
            busy: vec![0f64; bins],
            best: vec![0f64; bins],
            region: vec![u32::MAX; bins],
            busy_locations: vec![false; trace.locations.len()],
            next: 0,
        }
    }

    /// Take the next intervals, about `n` units of work: an interval is one, and each bin it covers one
    /// more (an interval spanning the run covers all [`Overview::BINS`]); true once every interval is in.
    pub fn step(&mut self, trace: &Trace, n: usize) -> bool {
        let iv = &trace.intervals;
        let bins = Overview::BINS;
        let w = self.w;
        let mut budget = n;
        let mut next = self.next;
        while next < iv.len() && budget > 0 {
            let i = next;
            next += 1;
            budget -= 1;
            if iv.depth[i] != 0 || iv.dur_ns[i] == 0 {
                continue;
            }
            self.busy_locations[iv.location[i].index()] = true;
            let (s, e) = (iv.start_ns[i] as f64, iv.end_ns(i) as f64);
            let b0 = ((s / w) as usize).min(bins - 1);
            let b1 = ((e / w) as usize).min(bins - 1);
            budget = budget.saturating_sub(b1 - b0 + 1);
            for b in b0..=b1 {
                let lo = s.max(b as f64 * w);
                let hi = e.min((b + 1) as f64 * w);
                let o = hi - lo;
                if o > 0.0 {
                    self.busy[b] += o;
                    if o > self.best[b] {
                        self.best[b] = o;
                        self.region[b] = iv.region[i].0;
                    }
                }
            }
        }
        self.next = next;
        next == iv.len()
    }

    /// The strip, in the regions' `colors`.
    pub fn finish(self, colors: &[Rgba]) -> Overview {
        let n = self.busy_locations.iter().filter(|&&b| b).count().max(1) as f64;
        let w = self.w;
        let mut o = Overview {
            span_ns: self.span,
            busy: self.busy.iter().map(|&b| (b / (w * n)).clamp(0.0, 1.0) as f32).collect(),
            color: Vec::new(),
            region: self.region,
        };
        o.recolor(colors);
        o
    }
}

/// The whole run at a glance, computed once per trace: per bin of time, the share of the locations busy at
/// depth 0 and the region with the longest stretch in it. Drawn as the strip at the bottom of the timeline
/// with the shown window marked; bounded by pixels per frame.
#[derive(Clone, Debug)]
pub struct Overview {
    pub span_ns: u64,
    /// Busy share per bin, 0..=1.
    pub busy: Vec<f32>,
    /// The colour of the region with the longest stretch in each bin (transparent where none).
    pub color: Vec<Rgba>,
    /// That region (u32::MAX where none).
    region: Vec<u32>,
}

impl Overview {
    pub const BINS: usize = 2048;

    /// Colour the bins by the regions' `colors` (the user changed a colour in the legend).
    pub fn recolor(&mut self, colors: &[Rgba]) {
        self.color = self.region.iter().map(|&r| colors.get(r as usize).copied().unwrap_or(0)).collect();
    }

    /// One pass over the depth-0 intervals; each touches the bins it overlaps (a location's depth-0
    /// intervals never overlap, so that is at most intervals + locations x bins).
    pub fn new(trace: &Trace, colors: &[Rgba]) -> Self {
        let mut build = OverviewBuild::new(trace);
        while !build.step(trace, usize::MAX) {}
        build.finish(colors)
    }

    /// Screen x of time `t_ns` on the strip (the whole run across the plot's width).
    pub fn x_of(&self, view: &TimelineView, t_ns: f64) -> f32 {
        view.track_x0() + (t_ns / self.span_ns as f64) as f32 * view.track_width()
    }

    /// The time at screen x on the strip.
    pub fn t_of(&self, view: &TimelineView, x: f32) -> f64 {
        ((x - view.track_x0()) / view.track_width()).clamp(0.0, 1.0) as f64 * self.span_ns as f64
    }

    /// Is screen (x, y) on the strip's plot part?
    pub fn contains(&self, view: &TimelineView, x: f32, y: f32) -> bool {
        x >= view.track_x0() && x <= view.width && y >= view.plot_bottom() && y <= view.height
    }

    /// Draw the strip (decoration: it repeats the run, not new data): a column per pixel, its height the busy
    /// share, its colour the commonest region; the window marked.
    pub fn draw(&self, sc: &mut Scene, view: &TimelineView) {
        let before = sc.rects.len() + sc.lines.len();
        let (x0, top, h) = (view.track_x0(), view.plot_bottom(), view.height - view.plot_bottom());
        if h <= 2.0 {
            return;
        }
        sc.rects.push(RectInstance::filled(0.0, top, view.width, h, rgba(0xf0, 0xf2, 0xf5, 0xff)));
        sc.lines.push(LineInstance::solid(0.0, top + 0.5, view.width, top + 0.5, 1.0, palette::GRID));
        sc.labels.push(
            Label::new(view.label_gutter - 8.0, top + h / 2.0, "overview", palette::TEXT_MUTED, 10.0)
                .aligned(Align::Right),
        );
        let columns = view.track_width().floor().max(1.0) as usize;
        let bins = self.busy.len();
        let inner = h - 4.0;
        let mut run: Option<(usize, f32, Rgba)> = None;
        let flush = |sc: &mut Scene, from: usize, to: usize, b: f32, c: Rgba| {
            if b > 0.0 && c != 0 {
                let bh = (b * inner).max(1.0);
                sc.rects.push(RectInstance::filled(
                    x0 + from as f32,
                    top + 2.0 + inner - bh,
                    (to - from) as f32,
                    bh,
                    c,
                ));
            }
        };
        for col in 0..columns {
            let a = col * bins / columns;
            let b = ((col + 1) * bins / columns).max(a + 1).min(bins);
            let busy = self.busy[a..b].iter().sum::<f32>() / (b - a) as f32;
            let c = self.color[a..b].iter().copied().find(|&c| c != 0).unwrap_or(0);
            let busy = (busy * inner).round() / inner.max(1.0);
            match run {
                Some((_, rb, rc)) if rb == busy && rc == c => {}
                Some((from, rb, rc)) => {
                    flush(sc, from, col, rb, rc);
                    run = Some((col, busy, c));
                }
                None => run = Some((col, busy, c)),
            }
        }
        if let Some((from, rb, rc)) = run {
            flush(sc, from, columns, rb, rc);
        }
        // The shown window, at least 3 px wide so it stays findable at any zoom.
        let (wa, wb) = (self.x_of(view, view.t0_ns).max(x0), self.x_of(view, view.t1_ns).min(view.width));
        let (wa, wb) = if wb - wa < 3.0 { ((wa + wb) / 2.0 - 1.5, (wa + wb) / 2.0 + 1.5) } else { (wa, wb) };
        sc.rects.push(
            RectInstance::filled(wa, top + 1.0, wb - wa, h - 2.0, rgba(0x1f, 0x6f, 0xeb, 0x30))
                .with_border(rgba(0x1f, 0x6f, 0xeb, 0xff), 1.5),
        );
        sc.chrome += sc.rects.len() + sc.lines.len() - before;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layouts::timeline::TimelineMetrics;
    use weft_model::{Format, LocationKind, TraceBuilder};

    /// The overview strip built a few intervals a step (as the page's load steps do) is the one built whole.
    #[test]
    fn overview_in_steps_equals_overview_whole() {
        let t = weft_samples::utilization::utilization_trace(16, 16 * 97);
        let colors = region_colors(&t);
        let whole = Overview::new(&t, &colors);
        let mut build = OverviewBuild::new(&t);
        let mut steps = 1;
        while !build.step(&t, 37) {
            steps += 1;
        }
        let stepped = build.finish(&colors);
        assert!(steps > 10, "{steps} steps");
        assert_eq!((stepped.span_ns, &stepped.busy, &stepped.color), (whole.span_ns, &whole.busy, &whole.color));
        assert!(whole.busy.iter().any(|&b| b > 0.0));
    }

    /// A step's work is bounded by the bins its intervals cover, not by how many intervals it takes: 200
    /// locations whose one interval spans the run (every bin) take a step each at a budget of one interval's
    /// bins, and the strip is the one built whole.
    #[test]
    fn an_overview_step_is_bounded_by_the_bins_its_intervals_cover() {
        let mut b = TraceBuilder::new(Format::Generated);
        let r = b.region("main", "");
        let short = b.region("compute", "");
        for k in 0..200 {
            let p = b.process(k);
            let l = b.location(p, 0, LocationKind::CpuThread);
            b.interval(l, r, 0, 1_000_000);
            b.interval(l, short, 1_000_000 + k, 10);
        }
        let t = b.finish();
        let colors = region_colors(&t);
        let whole = Overview::new(&t, &colors);
        let mut build = OverviewBuild::new(&t);
        let mut steps = 1;
        while !build.step(&t, Overview::BINS) {
            steps += 1;
        }
        let stepped = build.finish(&colors);
        assert!(steps >= 200, "{steps} steps for 200 intervals over every bin");
        assert_eq!((stepped.busy, stepped.color), (whole.busy, whole.color));
        // Intervals of a bin or two: hundreds a step.
        let t = trace(1000);
        let mut build = OverviewBuild::new(&t);
        assert!(
            !build.step(&t, Overview::BINS) && build.step(&t, Overview::BINS),
            "1,000 short intervals in two steps"
        );
    }

    fn trace(n: usize) -> Trace {
        let mut b = TraceBuilder::new(Format::Generated);
        let p = b.process(0);
        let l = b.location(p, 0, LocationKind::CpuThread);
        let r = b.region("work", "");
        for k in 0..n {
            b.interval(l, r, (k * 10) as i64, 5);
        }
        b.finish()
    }

    #[test]
    fn instance_count_is_bounded_by_pixels() {
        let t = trace(1_000_000);
        let lay = TimelineLayout::new(&t, TimelineMetrics::default());
        let colors = region_colors(&t);
        let ts = TimelineScene { trace: &t, layout: &lay, colors: &colors };
        let view = TimelineView::fit(&t, 1200.0, 600.0);
        let sc = ts.build(&view, None);
        assert!(sc.rects.len() < 2_000, "{} rects", sc.rects.len());
    }

    #[test]
    fn what_is_drawn_below_the_rows_counts_before_the_notice() {
        let t = trace(10);
        let lay = TimelineLayout::new(&t, TimelineMetrics::default());
        let colors = region_colors(&t);
        let ts = TimelineScene { trace: &t, layout: &lay, colors: &colors };
        // Past the rows' intervals: nothing of them here.
        let view = TimelineView { t0_ns: 1e6, t1_ns: 2e6, ..TimelineView::fit(&t, 800.0, 400.0) };
        assert!(ts.build(&view, None).notice.is_some());
        // A track below the rows with data there (the counter tracks): no notice over it.
        let sc = ts.build_with(&view, None, |sc| sc.rects.push(RectInstance::filled(300.0, 100.0, 50.0, 20.0, 0xff)));
        assert!(sc.notice.is_none() && sc.marks() == 1, "{:?}", sc.notice);
    }

    #[test]
    fn a_fan_of_flows_shades_its_columns_and_never_turns_them_black() {
        // 9,000 launch flows from a CPU thread to a GPU stream, each a few microseconds long, in one run of
        // 10 ms (a fitted Kineto run): near-vertical lines over the same few hundred pixel columns.
        let mut b = TraceBuilder::new(Format::Generated);
        let (p, q) = (b.process(0), b.process(1));
        let (cpu, gpu) = (b.location(p, 0, LocationKind::CpuThread), b.location(q, 0, LocationKind::GpuStream));
        let (launch, kernel) = (b.region("cudaLaunchKernel", ""), b.region("kernel", ""));
        let name = b.intern("ac2g");
        for k in 0..9000i64 {
            let t = k * 1000;
            b.interval(cpu, launch, t, 500);
            b.interval(gpu, kernel, t + 3000, 800);
            b.message(weft_model::MessageRecord {
                kind: MessageKind::Flow,
                sender: cpu,
                receiver: gpu,
                send_ns: t,
                recv_ns: t + 3000,
                posted_ns: t + 3000,
                size_bytes: 0,
                tag: 0,
                name,
            });
        }
        let t = b.finish();
        let lay = TimelineLayout::new(&t, TimelineMetrics::default());
        let colors = region_colors(&t);
        let ts = TimelineScene { trace: &t, layout: &lay, colors: &colors };
        let view = TimelineView::fit(&t, 1200.0, 600.0);
        let f = ts.flow_lines(&view);
        assert!(!f.lines.is_empty());
        assert!(f.darkest > 0.3 && f.darkest <= 0.9, "darkest column {}", f.darkest);
        // Zoomed in to a few flows: each keeps its full colour.
        let near = TimelineView { t0_ns: 0.0, t1_ns: 1_500.0, ..view };
        let f = ts.flow_lines(&near);
        assert!(f.lines.iter().all(|(l, _)| l.color & 0xff == palette::FLOW & 0xff), "full alpha zoomed in");
    }

    #[test]
    fn a_timeline_without_anything_to_draw_says_why() {
        let build = |t: &Trace, view: &TimelineView| {
            let lay = TimelineLayout::new(t, TimelineMetrics::default());
            let colors = region_colors(t);
            TimelineScene { trace: t, layout: &lay, colors: &colors }.build(view, None)
        };
        let t = trace(10);
        let view = TimelineView::fit(&t, 800.0, 400.0);
        let sc = build(&t, &view);
        assert!(sc.marks() > 0 && sc.notice.is_none());
        assert!(sc.rects.len() + sc.lines.len() > sc.marks(), "row backgrounds and axis are decoration");
        // Panned far past the end: nothing here, press F.
        let away = TimelineView { t0_ns: 1e9, t1_ns: 2e9, ..view };
        let sc = build(&t, &away);
        assert_eq!(sc.marks(), 0);
        assert!(sc.notice.as_deref().is_some_and(|n| n.contains("Press F")), "{:?}", sc.notice);
        // Only zero-length slices: no zoom shows them, and the notice says so instead of "press F".
        let mut b = TraceBuilder::new(Format::Generated);
        let p = b.process(0);
        let l = b.location(p, 0, LocationKind::CpuThread);
        let r = b.region("tick", "");
        b.interval(l, r, 0, 0);
        b.interval(l, r, 0, 0);
        let t = b.finish();
        let sc = build(&t, &TimelineView::fit(&t, 800.0, 400.0));
        assert_eq!(sc.marks(), 0);
        assert!(sc.notice.as_deref().is_some_and(|n| n.contains("All 2 intervals last 0 ns")), "{:?}", sc.notice);
    }

    #[test]
    fn rects_sit_where_intervals_are_and_hit_finds_them() {
        let t = trace(10);
        let lay = TimelineLayout::new(&t, TimelineMetrics::default());
        let colors = region_colors(&t);
        let ts = TimelineScene { trace: &t, layout: &lay, colors: &colors };
        let view = TimelineView {
            t0_ns: 0.0,
            t1_ns: 100.0,
            scroll_y: 0.0,
            width: 1200.0,
            height: 400.0,
            label_gutter: 200.0,
            time_origin_ns: None,
        };
        let sc = ts.build(&view, None);
        // interval 3 spans [30, 35) ns: x from 200 + 30 * 10 = 500 to 550.
        let r =
            sc.rects.iter().find(|r| (r.x - 500.0).abs() < 0.01 && r.fill == colors[0]).expect("rect for interval 3");
        assert!((r.w - 50.0).abs() < 0.01);
        let y = r.y + r.h / 2.0;
        assert_eq!(ts.hit(&view, 525.0, y), Some(3));
        assert_eq!(ts.hit(&view, 575.0, y), None, "between intervals, 2.5 ns from each: beyond 3 px? no: 25 px");
    }

    #[test]
    fn flow_arrows_join_the_bound_slices_and_hover_finds_them() {
        // Thread 0: op [0, 400] holding launch [100, 140] (lane 1). Thread 1: kernel [600, 900] (lane 0).
        let t = weft_readers::chrome::read(
            "k.json",
            br#"[{"ph":"f","id":1,"pid":0,"tid":7,"ts":0.6,"cat":"ac2g","name":"ac2g","bp":"e"},
                 {"ph":"X","name":"kernel","pid":0,"tid":7,"ts":0.6,"dur":0.3},
                 {"ph":"X","name":"op","pid":1,"tid":1,"ts":0,"dur":0.4},
                 {"ph":"X","name":"launch","pid":1,"tid":1,"ts":0.1,"dur":0.04},
                 {"ph":"s","id":1,"pid":1,"tid":1,"ts":0.1,"cat":"ac2g","name":"ac2g"}]"#,
        )
        .expect("read");
        let lay = TimelineLayout::new(&t, TimelineMetrics::default());
        let colors = region_colors(&t);
        let ts = TimelineScene { trace: &t, layout: &lay, colors: &colors };
        let view = TimelineView {
            t0_ns: 0.0,
            t1_ns: 1000.0,
            scroll_y: 0.0,
            width: 1200.0,
            height: 400.0,
            label_gutter: 200.0,
            time_origin_ns: None,
        };
        assert_eq!(t.messages.len(), 1);
        let (from, to) = ts.flow_ends(0);
        let name = |i: Option<usize>| t.region_name(t.intervals.region[i.expect("bound")]).to_string();
        assert_eq!((name(from), name(to)), ("launch".to_string(), "kernel".to_string()));
        let (x0, y0, x1, y1) = ts.flow_segment(&view, 0);
        let lane = lay.metrics.lane_px;
        let row = |l: weft_model::LocationId| lay.rows[lay.row_of_location[l.index()] as usize].y;
        assert!((x0 - 300.0).abs() < 0.01 && (x1 - 800.0).abs() < 0.01, "{x0} {x1}");
        assert!((y0 - view.y_of(row(t.messages.sender[0]) + 1.5 * lane)).abs() < 0.01, "from the launch's lane");
        assert!((y1 - view.y_of(row(t.messages.receiver[0]) + 0.5 * lane)).abs() < 0.01, "to the kernel's lane");
        let sc = ts.build(&view, None);
        assert!(sc
            .lines
            .iter()
            .any(|l| (l.x0 - x0).abs() < 0.01 && (l.y0 - y0).abs() < 0.01 && (l.y1 - y1).abs() < 0.01));
        let (mx, my) = ((x0 + x1) / 2.0, (y0 + y1) / 2.0);
        assert_eq!(ts.hit_flow(&view, mx, my + 1.0, 3.0), Some(0));
        assert_eq!(ts.hit_flow(&view, mx, my + 20.0, 3.0), None);
    }

    #[test]
    fn partition_point_near_is_partition_point() {
        for n in 0..70usize {
            let s: Vec<usize> = (0..n).collect();
            for cut in 0..=n {
                assert_eq!(partition_point_near(&s, |&x| x < cut), s.partition_point(|&x| x < cut), "n {n} cut {cut}");
            }
        }
    }

    /// Zoomed out to the whole allowed width, rounding may leave `hi - w` below `lo`: no panic, the window
    /// stays on the trace.
    #[test]
    fn a_window_as_wide_as_allowed_stays_on_the_trace() {
        for span in [1u64, 3, 7, 62_000, 176_886_000, 9_927_582_000, 41_602_740_000] {
            for t0 in [-1e12, -0.3, 0.0, 0.1 * span as f64, 5e11] {
                let (a, b) = clamp_to_trace(t0, t0 + 10.0 * span as f64, span);
                let s = span as f64;
                assert!(a >= -0.02 * s - 1e-6 * s && b <= 1.02 * s + 1e-6 * s, "{span} {t0}: {a}..{b}");
            }
        }
    }

    #[test]
    fn zoom_keeps_anchor() {
        let t = trace(10);
        let mut v = TimelineView::fit(&t, 1200.0, 400.0);
        let before = v.t_of(700.0);
        v.zoom_at(700.0, 2.0, t.span_ns);
        assert!((v.t_of(700.0) - before).abs() < 1e-6);
    }

    #[test]
    fn axis_steps_and_labels() {
        assert_eq!(nice_step_ns(3.0), 5.0);
        assert_eq!(nice_step_ns(120.0), 200.0);
        assert_eq!(format_time(1_500_000.0, 500_000.0), "1.5 ms");
        assert_eq!(format_time(2e9, 1e9), "2 s");
        assert_eq!(format_duration(1_234_567), "1.235 ms");
    }

    #[test]
    fn an_aligned_axis_reads_time_from_the_origin_and_says_where_it_is() {
        let t = trace(10);
        let lay = TimelineLayout::new(&t, TimelineMetrics::default());
        let colors = region_colors(&t);
        let ts = TimelineScene { trace: &t, layout: &lay, colors: &colors };
        // Trace time 0..10 ms with the origin at 4 ms: labels from -4 ms to +6 ms, 0 at the origin's x.
        let view =
            TimelineView { t0_ns: 0.0, t1_ns: 10e6, time_origin_ns: Some(4e6), ..TimelineView::fit(&t, 1200.0, 400.0) };
        let scale = TimeScale { t0_ns: 0.0, t1_ns: 10e6, x0: view.track_x0(), x1: view.width - 2.0 };
        let (said, ticks) = axis_ticks(&scale, 10.0, view.time_origin_ns);
        assert_eq!(said.as_deref(), Some("aligned: 0 at 4.00 ms"));
        let labelled: Vec<(f64, &str)> =
            ticks.iter().filter_map(|k| k.label.as_ref().map(|l| (k.t_ns, l.text.as_str()))).collect();
        let zero = labelled.iter().find(|(_, l)| *l == "0 ms").expect("a 0 label");
        assert_eq!(zero.0, 4e6, "0 is labelled at the origin's trace time");
        assert!(labelled.iter().any(|(t, l)| *t == 0.0 && *l == "-4 ms"), "before the origin: negative, {labelled:?}");
        assert!(labelled.iter().any(|(t, l)| *t == 10e6 && *l == "6 ms"), "{labelled:?}");
        for k in &ticks {
            assert!((scale.x(k.t_ns) - k.x).abs() < 0.01, "ticks sit at their trace times");
        }
        // The scene draws those labels and the gutter's words; without an origin, the trace's own time.
        let sc = ts.build(&view, None);
        let texts: Vec<&str> = sc.labels.iter().map(|l| l.text.as_str()).collect();
        assert!(texts.contains(&"aligned: 0 at 4.00 ms") && texts.contains(&"-4 ms"), "{texts:?}");
        let own = ts.build(&TimelineView { time_origin_ns: None, ..view }, None);
        let texts: Vec<&str> = own.labels.iter().map(|l| l.text.as_str()).collect();
        assert!(!texts.iter().any(|l| l.starts_with('-') || l.starts_with("aligned")), "{texts:?}");
        // Zoomed in far from the origin: labels relative to a round aligned time, the origin still said.
        let scale = TimeScale { t0_ns: 1_004_000_000.0, t1_ns: 1_005_000_000.0, x0: 200.0, x1: 1200.0 };
        let (said, ticks) = axis_ticks(&scale, 10.0, Some(4e6));
        let said = said.expect("said");
        assert!(said.starts_with("from 1.0") && said.contains(", 0 at 4.000"), "{said}");
        assert!(ticks.iter().filter_map(|k| k.label.as_ref()).all(|l| l.text.starts_with('+')));
    }
}
