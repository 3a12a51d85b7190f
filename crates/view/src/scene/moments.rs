//! The moment view (Godin, Quinn and Pancake, Fig. 2 and 3; issue 4): one row per location, a grey bar of
//! length m0 centred at m1 with a tick at m1, black deviation bars out to m1 +- m2, a thin skew line of length
//! m3 from m1. Also the [`Viewport`] it shares with the utilization Gantt chart, so the two zoom and scroll
//! together and their rows line up.
//!
//! At less than one pixel per row, the rows of one pixel row merge: each glyph part covers the union (min to max)
//! of the extents of all its rows, so every location still contributes (the paper's Section 9 "areas"). Rows
//! under 6 px draw the skew as a mark at the tip (m1 + m3) only, so it never hides the bar and deviation. A glyph
//! that reaches past either end of the axis gets an orange chevron at that edge. The view may draw on its own
//! time axis ([`MomentViewOptions::axis_ns`]), narrower than the Gantt chart's, as the paper suggests. Work and
//! instances are bounded by the visible pixel rows, not by the number of locations. Must not compute moments.

use super::axis::{draw_time_axis, TimeScale, AXIS_HEIGHT_PX};
use super::{palette, rgba, Label, LineInstance, RectInstance, Rgba, Scene, Shape};
use std::ops::Range;
use weft_analyses::moments::LocationMoments;

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
/// Height of the legend band at the bottom: up to four lines of 14 px (the moment view's marks wrap).
pub const LEGEND_HEIGHT_PX: f32 = 60.0;
/// Height of one line of the legend.
const LEGEND_LINE_PX: f32 = 14.0;
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
/// The chevron at the plot's edge where a glyph goes on beyond the axis.
pub const CLIPPED: Rgba = rgba(0xe0, 0x7b, 0x00, 0xff);

/// An extra quantity per location, shown as the colour of the m0 bar.
#[derive(Clone, Debug, PartialEq)]
pub struct ColorEncoding {
    pub name: String,
    /// Indexed by location index.
    pub values: Vec<f64>,
}

/// Clusters of locations (`analyses::clusters`, the clusters panel's answer) marked in the moment view: each
/// row's bar in its cluster's colour, the representative's row with a diamond in that colour and each
/// outlier's bar outlined with a triangle beside it, and the grouping in words under the legend.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ClusterMarks {
    /// Each location's cluster, by location index (None: not clustered).
    pub cluster: Vec<Option<u32>>,
    /// Location indices of the clusters' representatives (medoids).
    pub representatives: Vec<u32>,
    /// Location indices of the outliers.
    pub outliers: Vec<u32>,
    /// The grouping in words (`weft clusters`' summary).
    pub said: String,
}

/// What a row is in the clustering.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClusterRole {
    Member(u32),
    Representative(u32),
    Outlier(u32),
}

impl ClusterMarks {
    /// Location `l`'s cluster and role; None when it is not clustered.
    pub fn role(&self, l: u32) -> Option<ClusterRole> {
        let k = (*self.cluster.get(l as usize)?)?;
        Some(if self.outliers.contains(&l) {
            ClusterRole::Outlier(k)
        } else if self.representatives.contains(&l) {
            ClusterRole::Representative(k)
        } else {
            ClusterRole::Member(k)
        })
    }
}

/// Cluster `k`'s colour.
pub fn cluster_color(k: u32) -> Rgba {
    palette::categorical_index(k as usize)
}

/// The representative's diamond and the outlier's triangle: dark outlines.
pub const CLUSTER_MARK_EDGE: Rgba = rgba(0x1a, 0x1a, 0x1a, 0xff);
/// The outlier's triangle (magenta: the orange chevrons say "cut by the axis").
pub const OUTLIER_MARK: Rgba = rgba(0xc2, 0x18, 0x5b, 0xff);

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
    /// The moment view's own time axis [t0, t1] in ns, when it has one; None: the viewport's (the Gantt chart's).
    pub axis_ns: Option<(f64, f64)>,
    /// Clusters of the locations to mark (None: no clustering shown).
    pub clusters: Option<ClusterMarks>,
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
    let mut own = *view;
    if let Some((a, b)) = opts.axis_ns.filter(|(a, b)| a.is_finite() && b.is_finite() && b > a) {
        (own.t0_ns, own.t1_ns) = (a, b);
    }
    let view = &own;
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
    let labels = group_labels(rows, &groups, x0 - 2.0 * MARGIN_PX);
    for (k, g) in groups.iter().enumerate() {
        let tall = g.h >= 6.0;
        if view.labeled() {
            if let Some(text) = labels.get(k) {
                let (size, max_w) = ((g.h * 0.7).min(12.0), x0 - 2.0 * MARGIN_PX);
                scene
                    .labels
                    .push(Label::new(MARGIN_PX, g.y + g.h / 2.0, text.clone(), palette::TEXT, size).clipped(max_w));
            }
        }
        let Some(e) = extents(&rows[g.rows.clone()], color) else {
            if any_busy {
                no_busy_row(&mut scene, view, g);
            }
            continue;
        };
        let mid = g.y + g.h / 2.0;
        clipped_marks(&mut scene, &scale, &e, g);
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
        // Clusters: the group's first row's cluster colours the bar; a representative among the group's rows
        // gets a diamond left of the plot, an outlier a triangle and an outlined bar.
        let roles: Vec<ClusterRole> = match &opts.clusters {
            Some(c) => rows[g.rows.clone()].iter().filter_map(|m| c.role(m.location)).collect(),
            None => Vec::new(),
        };
        let fill = match (roles.first(), color, range) {
            (Some(ClusterRole::Member(k) | ClusterRole::Representative(k) | ClusterRole::Outlier(k)), ..) => {
                cluster_color(*k)
            }
            (None, Some(_), Some((lo, hi))) => ramp((e.value_sum / e.busy_rows as f64 - lo) / (hi - lo).max(1e-300)),
            _ => BAR,
        };
        let outlier = roles.iter().any(|r| matches!(r, ClusterRole::Outlier(_)));
        if let Some((x, w)) = span_px(&scale, e.bar, 1.0) {
            let bar = RectInstance::filled(x, mid - bar_h / 2.0, w, bar_h, fill);
            scene.rects.push(if outlier {
                bar.with_border(CLUSTER_MARK_EDGE, if tall { 2.0 } else { 1.0 })
            } else {
                bar
            });
        }
        cluster_mark(&mut scene, x0, g, &roles);
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

/// The representative's diamond (in its cluster's colour) or the outlier's triangle, in the margin left of
/// the plot at `x0`, on row group `g`.
fn cluster_mark(scene: &mut Scene, x0: f32, g: &RowGroup, roles: &[ClusterRole]) {
    let size = g.h.clamp(3.0, 11.0);
    let (x, y) = (x0 - size - 3.0, g.y + (g.h - size) / 2.0);
    if let Some(ClusterRole::Outlier(_)) = roles.iter().find(|r| matches!(r, ClusterRole::Outlier(_))) {
        scene.rects.push(
            RectInstance::filled(x, y, size, size, OUTLIER_MARK)
                .with_shape(Shape::TriangleUp)
                .with_border(CLUSTER_MARK_EDGE, 1.0),
        );
    } else if let Some(ClusterRole::Representative(k)) =
        roles.iter().find(|r| matches!(r, ClusterRole::Representative(_)))
    {
        scene.rects.push(
            RectInstance::filled(x, y, size, size, cluster_color(*k))
                .with_shape(Shape::Diamond)
                .with_border(CLUSTER_MARK_EDGE, 1.0),
        );
    }
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

/// The labels of the row groups shown, `max_w` wide: each group's first row's name, cut so that rows shown
/// together read apart (`row_names::distinct_labels`).
pub fn group_labels(rows: &[LocationMoments], groups: &[RowGroup], max_w: f32) -> Vec<String> {
    let names: Vec<&str> = groups.iter().map(|g| rows.get(g.rows.start).map_or("", |m| m.name.as_str())).collect();
    let size = groups.first().map_or(12.0, |g| (g.h * 0.7).min(12.0));
    super::row_names::distinct_labels(&names, max_w, size)
}

pub use super::row_names::elide_middle;

/// Chevrons at the plot's edges where the glyph (bar, deviation or skew) of row group `g` goes on beyond the
/// axis: the reader knows the glyph is cut (or wholly off the axis) and which way the rest lies.
fn clipped_marks(scene: &mut Scene, scale: &TimeScale, e: &Extents, g: &RowGroup) {
    let lo = e.bar.0.min(e.dev.0).min(e.skew.0);
    let hi = e.bar.1.max(e.dev.1).max(e.skew.1);
    for (beyond, edge, dir) in
        [(scale.x(lo) < scale.x0 - 0.5, scale.x0, -1.0f32), (scale.x(hi) > scale.x1 + 0.5, scale.x1, 1.0)]
    {
        if beyond {
            chevron(scene, edge, g.y, g.h, dir);
        }
    }
}

/// An edge mark pointing `dir` (-1 left, 1 right) with its tip on `edge`, in the row band [y, y + h].
fn chevron(scene: &mut Scene, edge: f32, y: f32, h: f32, dir: f32) {
    if h >= 6.0 {
        let (w, mid, half) = ((h * 0.4).clamp(3.0, 7.0), y + h / 2.0, (h * 0.35).min(6.0));
        scene.lines.push(LineInstance::solid(edge - dir * w, mid - half, edge, mid, 2.0, CLIPPED));
        scene.lines.push(LineInstance::solid(edge, mid, edge - dir * w, mid + half, 2.0, CLIPPED));
    } else {
        let x = if dir < 0.0 { edge } else { edge - 3.0 };
        scene.rects.push(RectInstance::filled(x, y, 3.0, h, CLIPPED));
    }
}

/// The hovered row's name over the plot with a backing box (rows too thin to carry names show it on hover),
/// and a line along the row; `y`/`h` the row's band.
pub fn hover_row_label(scene: &mut Scene, view: &Viewport, name: &str, y: f32, h: f32) {
    let (x0, y0, x1, y1) = view.plot_rect();
    let size = 11.0;
    let text = elide_middle(name, (x1 - x0 - 12.0).max(0.0), size);
    let w = super::axis::label_width_px(&text, size) + 8.0;
    let mid = (y + h / 2.0).clamp(y0 + 8.0, y1 - 8.0);
    scene.decorate(|s| {
        s.lines.push(LineInstance::solid(x0, y + h / 2.0, x1, y + h / 2.0, h.clamp(1.0, 2.0), palette::HIGHLIGHT));
        s.rects.push(RectInstance::filled(x0 + 2.0, mid - 8.0, w, 16.0, rgba(0xff, 0xff, 0xff, 0xe8)));
    });
    scene.labels.push(Label::new(x0 + 6.0, mid, text, palette::TEXT, size));
}

/// A value of a colour encoding in words: bytes in B/KB/MB/GB, counts with thousands separators, others with
/// three decimals.
pub fn format_value(name: &str, v: f64) -> String {
    if name.contains("bytes") {
        let (div, unit) =
            [(1e9, "GB"), (1e6, "MB"), (1e3, "KB")].into_iter().find(|(d, _)| v.abs() >= *d).unwrap_or((1.0, "B"));
        if div == 1.0 {
            format!("{v:.0} B")
        } else {
            format!("{:.1} {unit}", v / div)
        }
    } else if name.contains("messages") {
        let digits = format!("{:.0}", v.max(0.0));
        let mut out = String::new();
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i) % 3 == 0 {
                out.push(',');
            }
            out.push(c);
        }
        out
    } else {
        format!("{v:.2}")
    }
}

/// The legend: each mark of the glyph beside what it means (wrapped over lines to fit the panel: none is left
/// out), the colour scale when bars are coloured, and the busy definition.
fn legend(scene: &mut Scene, view: &Viewport, opts: &MomentViewOptions, range: Option<(f64, f64)>) {
    let top = view.height_px - LEGEND_HEIGHT_PX + 4.0;
    let right = view.width_px - MARGIN_PX;
    let size = 11.0;
    let (mut x, mut line) = (MARGIN_PX, 0usize);
    // (sample, text): each sample is drawn in an 18 x 12 box left of its text.
    type Sample = fn(&mut Scene, f32, f32);
    let items: [(Sample, &str, Rgba); 6] = [
        (|s, x, m| s.rects.push(RectInstance::filled(x, m - 4.5, 18.0, 9.0, BAR)), "m0 busy time", palette::TEXT),
        (
            |s, x, m| s.lines.push(LineInstance::solid(x + 9.0, m - 6.0, x + 9.0, m + 6.0, 2.0, TICK)),
            "m1 mean",
            palette::TEXT,
        ),
        (
            |s, x, m| s.rects.push(RectInstance::filled(x, m - 2.0, 18.0, 4.0, DEVIATION)),
            "m1 \u{b1} m2 deviation",
            palette::TEXT,
        ),
        (|s, x, m| s.lines.push(LineInstance::solid(x, m, x + 18.0, m, 1.5, SKEW)), "m3 skew (+: late tail)", SKEW),
        (|s, x, m| s.rects.push(RectInstance::filled(x + 7.0, m - 4.0, 4.0, 8.0, SKEW)), "m1 + m3 (thin rows)", SKEW),
        (|s, x, m| chevron(s, x + 12.0, m - 6.0, 12.0, 1.0), "cut by the axis", CLIPPED),
    ];
    // Where the next item of width `w` goes: on this line, or at the start of the next.
    let place = |w: f32, x: &mut f32, line: &mut usize| {
        if *x + w > right && *x > MARGIN_PX {
            *x = MARGIN_PX;
            *line += 1;
        }
        let at = *x;
        *x += w + 12.0;
        (at, top + 7.0 + *line as f32 * LEGEND_LINE_PX)
    };
    for (sample, text, color) in items {
        let w = 22.0 + super::axis::label_width_px(text, size);
        let (at, mid) = place(w, &mut x, &mut line);
        sample(scene, at, mid);
        scene.labels.push(Label::new(at + 22.0, mid, text, color, size).clipped(right - at - 22.0));
    }
    if let (Some(c), Some((lo, hi))) = (&opts.color, range) {
        let text = format!("{}: {} \u{2192} {}", c.name, format_value(&c.name, lo), format_value(&c.name, hi));
        let w = 106.0 + super::axis::label_width_px(&text, size);
        let (at, mid) = place(w, &mut x, &mut line);
        for k in 0..20 {
            let v = (k as f64 + 0.5) / 20.0;
            scene.rects.push(RectInstance::filled(at + k as f32 * 5.0, mid - 5.0, 5.5, 10.0, ramp(v)));
        }
        scene.labels.push(Label::new(at + 106.0, mid, text, palette::TEXT, size).clipped(right - at - 106.0));
    }
    if let Some(c) = &opts.clusters {
        for (mark, text) in [(Shape::Diamond, "representative"), (Shape::TriangleUp, "outlier")] {
            let w = 22.0 + super::axis::label_width_px(text, size);
            let (at, mid) = place(w, &mut x, &mut line);
            let fill = if mark == Shape::Diamond { cluster_color(0) } else { OUTLIER_MARK };
            scene.rects.push(
                RectInstance::filled(at + 4.0, mid - 5.0, 10.0, 10.0, fill)
                    .with_shape(mark)
                    .with_border(CLUSTER_MARK_EDGE, 1.0),
            );
            scene.labels.push(Label::new(at + 22.0, mid, text, palette::TEXT, size).clipped(right - at - 22.0));
        }
        let text = format!("bars coloured by cluster: {}", c.said);
        let (at, mid) = place(right - MARGIN_PX - 12.0, &mut x, &mut line);
        scene.labels.push(Label::new(at, mid, text, palette::TEXT, size).clipped(right - at));
    }
    let mid = top + 7.0 + (line + 1) as f32 * LEGEND_LINE_PX;
    scene.labels.push(
        Label::new(MARGIN_PX, mid.min(view.height_px - 6.0), opts.definition.clone(), palette::TEXT_MUTED, 10.0)
            .clipped(right - MARGIN_PX),
    );
}
