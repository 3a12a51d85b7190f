//! The moment view (Godin, Quinn and Pancake, Fig. 2 and 3; issue 4): one row per location, a grey bar of
//! length m0 centred at m1 with a tick at m1, black deviation bars out to m1 +- m2, a thin skew line of length
//! m3 from m1. Also the [`Viewport`] it shares with the utilization Gantt chart, so the two zoom and scroll
//! together and their rows line up.
//!
//! At less than one pixel per row, the rows of one pixel row merge: each glyph part covers the union (min to max)
//! of the extents of all its rows, so every location still contributes (the paper's Section 9 "areas"). Rows
//! under 6 px draw the skew as a mark at the tip (m1 + m3) only, so it never hides the bar and deviation. Work and
//! instances are bounded by the visible pixel rows, not by the number of locations. Must not compute moments.

use super::axis::{draw_time_axis, TimeScale, AXIS_HEIGHT_PX};
use super::{palette, rgba, Align, Label, LineInstance, RectInstance, Rgba, Scene};
use crate::analyses::moments::LocationMoments;
use std::ops::Range;

/// What part of the rows and of time is shown, and how big the picture is. Shared by the moment view and
/// the utilization Gantt chart: give both the same viewport and they zoom and scroll together.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Viewport {
    /// Visible time range, ns from the trace's first event.
    pub t0_ns: f64,
    pub t1_ns: f64,
    /// Row at the top of the plot (fractional while scrolling).
    pub first_row: f64,
    /// Pixels per row; below 1 rows merge into pixel rows.
    pub row_height_px: f32,
    pub width_px: f32,
    pub height_px: f32,
}

/// Rows at least this tall carry their location's name.
pub const MIN_LABELED_ROW_PX: f32 = 10.0;
/// Width of the row-name column, when names are shown.
pub const ROW_LABEL_WIDTH_PX: f32 = 140.0;
/// Height of the legend band at the bottom.
pub const LEGEND_HEIGHT_PX: f32 = 40.0;
const MARGIN_PX: f32 = 8.0;

impl Viewport {
    /// The whole `span_ns` and all `rows` in a `width` x `height` picture.
    pub fn fit(span_ns: u64, rows: usize, width_px: f32, height_px: f32) -> Self {
        let plot_h = (height_px - AXIS_HEIGHT_PX - LEGEND_HEIGHT_PX).max(1.0);
        Viewport {
            t0_ns: 0.0,
            t1_ns: span_ns.max(1) as f64,
            first_row: 0.0,
            row_height_px: plot_h / rows.max(1) as f32,
            width_px,
            height_px,
        }
    }

    pub fn labeled(&self) -> bool {
        self.row_height_px >= MIN_LABELED_ROW_PX
    }

    /// The plot area (x0, y0, x1, y1): right of the row names (if shown), below the axis, above the legend.
    pub fn plot_rect(&self) -> (f32, f32, f32, f32) {
        let x0 = if self.labeled() { ROW_LABEL_WIDTH_PX } else { MARGIN_PX };
        let x1 = (self.width_px - MARGIN_PX).max(x0 + 1.0);
        let y0 = AXIS_HEIGHT_PX;
        let y1 = (self.height_px - LEGEND_HEIGHT_PX).max(y0 + 1.0);
        (x0, y0, x1, y1)
    }

    pub fn time_scale(&self) -> TimeScale {
        let (x0, _, x1, _) = self.plot_rect();
        let t1 = if self.t1_ns > self.t0_ns { self.t1_ns } else { self.t0_ns + 1.0 };
        TimeScale { t0_ns: self.t0_ns, t1_ns: t1, x0, x1 }
    }

    /// Rows (or pixel rows of merged rows) intersecting the plot, top to bottom. Every visible row is in
    /// exactly one group; a group's `y`/`h` are clipped to the plot.
    pub fn row_groups(&self, rows: usize) -> Vec<RowGroup> {
        let (_, y0, _, y1) = self.plot_rect();
        let rh = self.row_height_px.max(1e-6) as f64;
        let first = self.first_row.floor().max(0.0) as usize;
        let last = ((self.first_row + (y1 - y0) as f64 / rh).ceil().max(0.0) as usize).min(rows);
        let mut out = Vec::new();
        if first >= last {
            return out;
        }
        if rh >= 1.0 {
            for r in first..last {
                let top = y0 as f64 + (r as f64 - self.first_row) * rh;
                let (a, b) = (top.max(y0 as f64), (top + rh).min(y1 as f64));
                if b > a {
                    out.push(RowGroup { rows: r..r + 1, y: a as f32, h: (b - a) as f32 });
                }
            }
        } else {
            let mut r = first;
            while r < last {
                let p = ((r as f64 - self.first_row) * rh).floor();
                let mut e = r + 1;
                while e < last && ((e as f64 - self.first_row) * rh).floor() == p {
                    e += 1;
                }
                let y = y0 as f64 + p;
                if y >= y0 as f64 - 1e-9 && y < y1 as f64 {
                    out.push(RowGroup { rows: r..e, y: y as f32, h: 1.0 });
                }
                r = e;
            }
        }
        out
    }

    /// The row under `y`, if any (for hover); in merged pixel rows, the first of them.
    pub fn row_at(&self, rows: usize, y: f32) -> Option<usize> {
        let (_, y0, _, y1) = self.plot_rect();
        if y < y0 || y >= y1 {
            return None;
        }
        let r = self.first_row + ((y - y0) as f64 / self.row_height_px.max(1e-6) as f64);
        (r >= 0.0 && (r as usize) < rows).then_some(r as usize)
    }
}

/// A run of rows drawn as one (one row when rows are at least a pixel tall, else one pixel row).
#[derive(Clone, Debug, PartialEq)]
pub struct RowGroup {
    pub rows: Range<usize>,
    pub y: f32,
    pub h: f32,
}

pub const BAR: Rgba = rgba(0xa8, 0xad, 0xb4, 0xff);
pub const DEVIATION: Rgba = rgba(0x1a, 0x1a, 0x1a, 0xff);
pub const TICK: Rgba = rgba(0x00, 0x00, 0x00, 0xff);
pub const SKEW: Rgba = rgba(0xc6, 0x28, 0x28, 0xff);
/// The trace's span [t0, tf], lightly shaded behind the glyphs.
pub const SPAN: Rgba = rgba(0xf3, 0xf5, 0xf8, 0xff);

/// An extra quantity per location, shown as the colour of the m0 bar.
#[derive(Clone, Debug, PartialEq)]
pub struct ColorEncoding {
    pub name: String,
    /// Indexed by location index.
    pub values: Vec<f64>,
}

/// Options of the moment view.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MomentViewOptions {
    /// The busy definition in force, in words (shown in the legend).
    pub definition: String,
    /// The span the moments were computed over, ns (shaded).
    pub span_ns: (u64, u64),
    pub color: Option<ColorEncoding>,
    /// What to do when no location has busy time under the definition (e.g. switch busy to "any region"),
    /// shown under the notice that says so.
    pub empty_hint: String,
}

/// Text of a location row that has no busy time while others have some.
pub const NO_BUSY_ROW: &str = "no busy time";

/// The notice of a view whose rows have no busy time at all: drawn centred in the plot, kept in the scene.
pub(crate) fn no_busy_notice(scene: &mut Scene, view: &Viewport, hint: &str) {
    let (x0, y0, x1, y1) = view.plot_rect();
    let first = "No busy time: this busy definition finds none in the locations shown.";
    let lines: Vec<&str> = if hint.is_empty() { vec![first] } else { vec![first, hint] };
    scene.add_notice(x0, y0, x1 - x0, y1 - y0, &lines);
}

/// Mark a row without busy time (while other rows have some) in its glyph slot, where the row has room.
pub(crate) fn no_busy_row(scene: &mut Scene, view: &Viewport, g: &RowGroup) {
    let (x0, ..) = view.plot_rect();
    if g.h >= 8.0 {
        let size = (g.h * 0.7).min(11.0);
        scene.labels.push(Label::new(x0 + 4.0, g.y + g.h / 2.0, NO_BUSY_ROW, palette::TEXT_MUTED, size));
    }
}

/// A sequential ramp (viridis-like) for colour encodings, `v` in [0, 1].
pub fn ramp(v: f64) -> Rgba {
    const STOPS: [[f64; 3]; 5] =
        [[68.0, 1.0, 84.0], [59.0, 82.0, 139.0], [33.0, 145.0, 140.0], [94.0, 201.0, 98.0], [253.0, 231.0, 37.0]];
    let v = if v.is_finite() { v.clamp(0.0, 1.0) } else { 0.0 } * 4.0;
    let i = (v.floor() as usize).min(3);
    let f = v - i as f64;
    let c = |k: usize| (STOPS[i][k] + (STOPS[i + 1][k] - STOPS[i][k]) * f).round() as u8;
    rgba(c(0), c(1), c(2), 0xff)
}

/// The extents of one glyph (or the union of several), in ns.
#[derive(Clone, Copy, Debug)]
struct Extents {
    bar: (f64, f64),
    dev: (f64, f64),
    tick: (f64, f64),
    skew: (f64, f64),
    /// Where the skew lines end (m1 + m3), over rows with a skew.
    tip: (f64, f64),
    value_sum: f64,
    busy_rows: usize,
}

fn extents(rows: &[LocationMoments], color: Option<&ColorEncoding>) -> Option<Extents> {
    let mut e: Option<Extents> = None;
    for m in rows.iter().filter(|m| !m.is_idle()) {
        let half = m.m0_ns as f64 / 2.0;
        let skew = (m.m1_ns.min(m.m1_ns + m.m3_ns), m.m1_ns.max(m.m1_ns + m.m3_ns));
        let value = color.and_then(|c| c.values.get(m.location as usize)).copied().unwrap_or(0.0);
        let g = Extents {
            bar: (m.m1_ns - half, m.m1_ns + half),
            dev: (m.m1_ns - m.m2_ns, m.m1_ns + m.m2_ns),
            tick: (m.m1_ns, m.m1_ns),
            skew,
            tip: if m.m3_ns != 0.0 {
                (m.m1_ns + m.m3_ns, m.m1_ns + m.m3_ns)
            } else {
                (f64::INFINITY, f64::NEG_INFINITY)
            },
            value_sum: value,
            busy_rows: 1,
        };
        e = Some(match e {
            None => g,
            Some(a) => Extents {
                bar: (a.bar.0.min(g.bar.0), a.bar.1.max(g.bar.1)),
                dev: (a.dev.0.min(g.dev.0), a.dev.1.max(g.dev.1)),
                tick: (a.tick.0.min(g.tick.0), a.tick.1.max(g.tick.1)),
                skew: (a.skew.0.min(g.skew.0), a.skew.1.max(g.skew.1)),
                tip: (a.tip.0.min(g.tip.0), a.tip.1.max(g.tip.1)),
                value_sum: a.value_sum + g.value_sum,
                busy_rows: a.busy_rows + 1,
            },
        });
    }
    e
}

/// A horizontal extent in ns as (x, width) in pixels, clipped to the plot and widened about its centre to at
/// least `min_w`; None when it lies wholly off the plot.
pub(crate) fn span_px(scale: &TimeScale, (a, b): (f64, f64), min_w: f32) -> Option<(f32, f32)> {
    let (xa, xb) = (scale.x(a), scale.x(b));
    if xb < scale.x0 || xa > scale.x1 {
        return None;
    }
    let (xa, xb) = (xa.max(scale.x0), xb.min(scale.x1));
    let w = (xb - xa).max(min_w).min(scale.x1 - scale.x0);
    let x = ((xa + xb) / 2.0 - w / 2.0).clamp(scale.x0, scale.x1 - w);
    Some((x, w))
}

/// Build the moment view of `rows` (already in display order) for `view`.
pub fn build_moment_view(rows: &[LocationMoments], view: &Viewport, opts: &MomentViewOptions) -> Scene {
    let mut scene = Scene::new(view.width_px, view.height_px, palette::BACKGROUND);
    let scale = view.time_scale();
    let (x0, y0, _, y1) = view.plot_rect();
    if let Some((sx, sw)) = span_px(&scale, (opts.span_ns.0 as f64, opts.span_ns.1 as f64), 0.0) {
        scene.decorate(|s| s.rects.push(RectInstance::filled(sx, y0, sw, y1 - y0, SPAN)));
    }
    draw_time_axis(&mut scene, &scale, 0.0, y1);
    let groups = view.row_groups(rows.len());
    let any_busy = rows.iter().any(|m| !m.is_idle());
    let color = opts.color.as_ref();
    let range = color.map(|c| value_range(&c.values));
    scene.rects.reserve(groups.len() * 2);
    scene.lines.reserve(groups.len() * 2);
    for g in &groups {
        let tall = g.h >= 6.0;
        if view.labeled() {
            if let Some(m) = rows.get(g.rows.start) {
                let label =
                    Label::new(MARGIN_PX, g.y + g.h / 2.0, m.name.clone(), palette::TEXT, (g.h * 0.7).min(12.0));
                scene.labels.push(label.clipped(x0 - 2.0 * MARGIN_PX));
            }
        }
        let Some(e) = extents(&rows[g.rows.clone()], color) else {
            if any_busy {
                no_busy_row(&mut scene, view, g);
            }
            continue;
        };
        let mid = g.y + g.h / 2.0;
        let (dev_h, bar_h) = if tall { ((g.h * 0.3).max(2.0), g.h * 0.6) } else { (g.h, g.h) };
        if let Some((x, w)) = span_px(&scale, e.dev, 1.0) {
            scene.rects.push(RectInstance::filled(x, mid - dev_h / 2.0, w, dev_h, DEVIATION));
        }
        // Thin rows: the range of the skew lines' tips (m1 + m3), between deviation and bar, so a block of rows
        // shows where its skews end as an area, without hiding the bar.
        if !tall && e.tip.1 >= e.tip.0 {
            if let Some((x, w)) = span_px(&scale, e.tip, 1.0) {
                scene.rects.push(RectInstance::filled(x, g.y, w, g.h, SKEW));
            }
        }
        let fill = match (color, range) {
            (Some(_), Some((lo, hi))) => ramp((e.value_sum / e.busy_rows as f64 - lo) / (hi - lo).max(1e-300)),
            _ => BAR,
        };
        if let Some((x, w)) = span_px(&scale, e.bar, 1.0) {
            scene.rects.push(RectInstance::filled(x, mid - bar_h / 2.0, w, bar_h, fill));
        }
        // Tall rows: the skew line from m1, above the bar.
        if tall && e.skew.1 > e.skew.0 {
            if let Some((x, w)) = span_px(&scale, e.skew, 0.0) {
                let y = g.y + g.h * 0.12;
                scene.lines.push(LineInstance::solid(x, y, x + w, y, 1.5, SKEW));
            }
        }
        if let Some((x, w)) = span_px(&scale, e.tick, 0.0) {
            let (ta, tb) = if tall { (g.y + g.h * 0.1, g.y + g.h * 0.9) } else { (g.y, g.y + g.h) };
            if w > 1.0 {
                scene.rects.push(RectInstance::filled(x, ta, w, tb - ta, TICK));
            } else {
                let xc = x + w / 2.0;
                scene.lines.push(LineInstance::solid(xc, ta, xc, tb, if tall { 2.0 } else { 1.0 }, TICK));
            }
        }
    }
    scene.decorate(|s| legend(s, view, opts, range));
    if !any_busy && !rows.is_empty() {
        no_busy_notice(&mut scene, view, &opts.empty_hint);
    }
    scene
}

fn value_range(values: &[f64]) -> (f64, f64) {
    let finite = values.iter().copied().filter(|v| v.is_finite());
    let lo = finite.clone().fold(f64::INFINITY, f64::min);
    let hi = finite.fold(f64::NEG_INFINITY, f64::max);
    if lo.is_finite() {
        (lo, hi)
    } else {
        (0.0, 1.0)
    }
}

/// The legend: a sample glyph with its parts named, the busy definition, and the colour scale if any.
fn legend(scene: &mut Scene, view: &Viewport, opts: &MomentViewOptions, range: Option<(f64, f64)>) {
    let top = view.height_px - LEGEND_HEIGHT_PX + 4.0;
    let (h, mid) = (14.0, top + 7.0);
    let x = MARGIN_PX + 50.0;
    scene.rects.push(RectInstance::filled(x - 40.0, mid - 2.0, 120.0, 4.0, DEVIATION));
    scene.rects.push(RectInstance::filled(x, mid - 4.5, 40.0, 9.0, BAR));
    scene.lines.push(LineInstance::solid(x + 20.0, top + 1.0, x + 20.0, top + h - 1.0, 2.0, TICK));
    scene.lines.push(LineInstance::solid(x + 20.0, top + 1.5, x + 45.0, top + 1.5, 1.5, SKEW));
    let right = view.width_px - MARGIN_PX;
    let text = |scene: &mut Scene, x: f32, s: &str, c: Rgba| {
        // Parts that do not fit the panel are left out whole rather than overrunning its neighbour.
        let w = super::axis::label_width_px(s, 11.0);
        if x + w <= right {
            scene.labels.push(Label::new(x, mid, s, c, 11.0));
        }
        x + w + 12.0
    };
    let mut lx = x + 90.0;
    lx = text(scene, lx, "grey: m0 busy time, centred at", palette::TEXT);
    lx = text(scene, lx, "| m1 mean", palette::TEXT);
    lx = text(scene, lx, "black: m1 \u{b1} m2 (scaled deviation)", palette::TEXT);
    text(scene, lx, "red: m3 skew from m1 (+: late tail; thin rows: skew tips)", SKEW);
    let y2 = top + h + 10.0;
    let mut l2 =
        Label::new(MARGIN_PX, y2, opts.definition.clone(), palette::TEXT_MUTED, 10.0).clipped(right - MARGIN_PX);
    if let (Some(c), Some((lo, hi))) = (&opts.color, range) {
        let w = 100.0;
        let rx = (view.width_px - MARGIN_PX - w - 160.0).max(MARGIN_PX);
        for k in 0..20 {
            let v = (k as f64 + 0.5) / 20.0;
            scene.rects.push(RectInstance::filled(rx + k as f32 * w / 20.0, y2 - 5.0, w / 20.0 + 0.5, 10.0, ramp(v)));
        }
        let scale = format!("{} {lo:.3} \u{2192} {hi:.3}", c.name);
        scene.labels.push(Label::new(rx + w + 6.0, y2, scale, palette::TEXT_MUTED, 10.0).aligned(Align::Left));
        l2 = l2.clipped(rx - 2.0 * MARGIN_PX);
    }
    scene.labels.push(l2);
}
