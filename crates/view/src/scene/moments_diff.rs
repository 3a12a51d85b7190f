//! The moments of two runs compared, drawn in the moment view's glyphs (Godin, Quinn and Pancake; issue #54):
//! a row per pair of locations (the comparison's rows, paired by its rank mapping), A's glyph in the row's
//! upper half and B's in its lower half on one time axis of aligned time (0 at each run's origin, so a
//! region alignment lines both up). Each glyph is the paper's: a bar of length m0 centred at m1, a tick at m1,
//! a deviation bar out to m1 +- m2 (thin, over the bar), a skew line from m1 to m1 + m3. The change is coloured on the bars: the
//! part of B's bar A's does not cover red (B busy there, A not), the part of A's bar B's does not cover blue
//! and hatched (A busy there, B no longer), and a line from A's tick to B's red where B's mean comes later,
//! blue where earlier. More pairs than pixel rows merge, as the moment view merges rows: each mark covers the
//! union of its rows' extents. `weft render diff --moments` writes it and the page's compare panel shows it,
//! with [`DiffRow`]s to name the row under the pointer. Must not compute moments or pair locations (the
//! analyses do) or hold view state.

use super::axis::{draw_time_axis, label_width_px, TimeScale, AXIS_HEIGHT_PX};
use super::compare::{A_FILL, B_FILL, GREW, SHRANK};
use super::moments::{span_px, DEVIATION, TICK};
use super::palette::{BACKGROUND, GRID, ROW_ALT, TEXT, TEXT_MUTED};
use super::{rgba, Label, LineInstance, RectInstance, Rgba, Scene, Shape};
use serde::Serialize;
use weft_analyses::compare::{Comparison, LocationRow, LocationSide};

/// The skew line (purple here: red says "B grew" in this picture).
pub const SKEW_LINE: Rgba = rgba(0x7b, 0x3f, 0xa0, 0xff);
/// The row-name column.
const NAME_W: f32 = 170.0;
const MARGIN: f32 = 12.0;
/// Rows are at most this tall, and all rows together at most [`PLOT_MAX_PX`].
const ROW_MAX_PX: f32 = 30.0;
const PLOT_MAX_PX: f32 = 1200.0;
/// Rows at least this tall draw deviation, skew and names; thinner ones bars and ticks.
const TALL_PX: f32 = 12.0;
/// Title, subtitle and legend above the axis.
const HEAD_PX: f32 = 72.0;

/// A row drawn, for hover: where it is and which pairs of the comparison's `locations` it stands for
/// (`first`, and `count` more than 1 where pairs merged into one pixel row).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct DiffRow {
    pub y: f32,
    pub h: f32,
    pub first: u32,
    pub count: u32,
}

/// The picture, its rows, and its time axis in aligned ns.
#[derive(Clone, Debug)]
pub struct MomentsDiff {
    pub scene: Scene,
    pub rows: Vec<DiffRow>,
    pub t0_ns: f64,
    pub t1_ns: f64,
}

/// One side's glyph (or the union of several), aligned ns.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Glyph {
    pub bar: (f64, f64),
    pub dev: (f64, f64),
    pub tick: (f64, f64),
    pub skew: (f64, f64),
}

impl Glyph {
    fn union(self, g: Glyph) -> Glyph {
        let u = |a: (f64, f64), b: (f64, f64)| (a.0.min(b.0), a.1.max(b.1));
        Glyph {
            bar: u(self.bar, g.bar),
            dev: u(self.dev, g.dev),
            tick: u(self.tick, g.tick),
            skew: u(self.skew, g.skew),
        }
    }
    fn lo(&self) -> f64 {
        self.bar.0.min(self.dev.0).min(self.skew.0)
    }
    fn hi(&self) -> f64 {
        self.bar.1.max(self.dev.1).max(self.skew.1)
    }
}

/// A side's glyph in aligned time (its m1 less its run's `origin_ns`); None for a location never busy.
pub fn glyph(side: &LocationSide, origin_ns: u64) -> Option<Glyph> {
    let m = &side.moments;
    if m.m0_ns == 0 {
        return None;
    }
    let m1 = m.m1_ns - origin_ns as f64;
    let half = m.m0_ns as f64 / 2.0;
    Some(Glyph {
        bar: (m1 - half, m1 + half),
        dev: (m1 - m.m2_ns, m1 + m.m2_ns),
        tick: (m1, m1),
        skew: (m1.min(m1 + m.m3_ns), m1.max(m1 + m.m3_ns)),
    })
}

/// The union of the glyphs of `rows`' side (`a` or not: B) that are busy.
fn side_glyph(rows: &[LocationRow], a: bool, origin_ns: u64) -> Option<Glyph> {
    rows.iter()
        .filter_map(|r| if a { r.a.as_ref() } else { r.b.as_ref() })
        .filter_map(|s| glyph(s, origin_ns))
        .reduce(Glyph::union)
}

/// A pair's name: the location's, both where they differ, or one side's with the side that lacks a partner.
pub fn row_name(r: &LocationRow) -> String {
    match (&r.a, &r.b) {
        (Some(a), Some(b)) if a.moments.name == b.moments.name => a.moments.name.clone(),
        (Some(a), Some(b)) => format!("{} \u{2192} {}", a.moments.name, b.moments.name),
        (Some(a), None) => format!("{} (A only)", a.moments.name),
        (None, Some(b)) => format!("{} (B only)", b.moments.name),
        (None, None) => String::new(),
    }
}

/// The parts of `x` not covered by `y` (up to two), both as (lo, hi).
fn minus(x: (f64, f64), y: Option<(f64, f64)>) -> Vec<(f64, f64)> {
    let Some(y) = y.filter(|y| y.1 > y.0) else { return vec![x] };
    let mut out = Vec::new();
    if x.0 < y.0 {
        out.push((x.0, x.1.min(y.0)));
    }
    if x.1 > y.1 {
        out.push((x.0.max(y.1), x.1));
    }
    out.retain(|p| p.1 > p.0);
    out
}

/// The picture of `c`'s moments, `width` px wide, as tall as its rows need (at most about 1,300 px).
pub fn diff_moments(c: &Comparison, width: f32, title: &str) -> MomentsDiff {
    let width = width.max(NAME_W + 240.0);
    let n = c.locations.len();
    let origins = c.windows.map_or((0, 0), |w| (w.a.origin_ns, w.b.origin_ns));
    // Pairs per drawn row, and the row's height.
    let per = if n as f32 > PLOT_MAX_PX { (n as f32 / PLOT_MAX_PX).ceil() as usize } else { 1 };
    let shown = n.div_ceil(per).max(1);
    let row_h = (PLOT_MAX_PX / shown as f32).clamp(1.0, ROW_MAX_PX);
    let y0 = HEAD_PX + AXIS_HEIGHT_PX + 4.0;
    let height = y0 + shown as f32 * row_h + MARGIN;
    let mut s = Scene::new(width, height, BACKGROUND);

    // The axis: each run's analysed time in aligned ns and every glyph, with 0 always shown.
    let analysed = |w: Option<(u64, u64, u64)>, span: u64| {
        w.map_or((0.0, span as f64), |(o, a, b)| (a as f64 - o as f64, b as f64 - o as f64))
    };
    let (wa, wb) = (
        analysed(c.windows.map(|w| (w.a.origin_ns, w.a.start_ns, w.a.end_ns)), c.span_ns.a),
        analysed(c.windows.map(|w| (w.b.origin_ns, w.b.start_ns, w.b.end_ns)), c.span_ns.b),
    );
    let (mut lo, mut hi) = (wa.0.min(wb.0).min(0.0), wa.1.max(wb.1));
    let groups: Vec<(usize, usize)> = (0..shown).map(|k| (k * per, ((k + 1) * per).min(n))).collect();
    let glyphs: Vec<(Option<Glyph>, Option<Glyph>)> = groups
        .iter()
        .map(|&(a, b)| {
            (side_glyph(&c.locations[a..b], true, origins.0), side_glyph(&c.locations[a..b], false, origins.1))
        })
        .collect();
    for g in glyphs.iter().flat_map(|(a, b)| [a, b]).flatten() {
        lo = lo.min(g.lo());
        hi = hi.max(g.hi());
    }
    if hi <= lo {
        hi = lo + 1.0;
    }
    let pad = (hi - lo) * 0.01;
    let scale = TimeScale { t0_ns: lo - pad, t1_ns: hi + pad, x0: NAME_W, x1: width - MARGIN };

    // Title, what is paired and aligned, and the legend.
    s.labels.push(Label::new(MARGIN, 14.0, title, TEXT, 13.0).bold().clipped(width - 2.0 * MARGIN));
    let merged = if per > 1 { format!("; {per} pairs to a pixel row, their glyphs merged") } else { String::new() };
    let said = format!(
        "{} pairs of locations, paired by {}; {} (time from each run's 0){merged}",
        n,
        c.options.ranks.name(),
        c.options.align.describe()
    );
    s.labels.push(Label::new(MARGIN, 31.0, said, TEXT_MUTED, 11.0).clipped(width - 2.0 * MARGIN));
    legend(&mut s, 48.0, width);
    draw_time_axis(&mut s, &scale, HEAD_PX, height - MARGIN);
    let zero = scale.x(0.0);
    s.decorate(|s| s.lines.push(LineInstance::solid(zero, y0, zero, height - MARGIN, 1.0, GRID)));

    let tall = row_h >= TALL_PX;
    let mut rows = Vec::with_capacity(shown);
    for (k, (&(a, b), &(ga, gb))) in groups.iter().zip(&glyphs).enumerate() {
        let y = y0 + k as f32 * row_h;
        rows.push(DiffRow { y, h: row_h, first: a as u32, count: (b - a) as u32 });
        if k % 2 == 1 && row_h >= 4.0 {
            s.decorate(|s| s.rects.push(RectInstance::filled(0.0, y, width, row_h, ROW_ALT)));
        }
        if row_h >= 10.0 {
            let size = (row_h * 0.45).min(12.0);
            s.labels.push(
                Label::new(MARGIN, y + row_h / 2.0, row_name(&c.locations[a]), TEXT, size)
                    .clipped(NAME_W - 2.0 * MARGIN),
            );
        }
        let half = row_h / 2.0;
        // A above, B below: the bar with the change coloured, the deviation over it, the skew, the tick.
        for (g, other, top, fill, lost) in [(ga, gb, y, A_FILL, SHRANK), (gb, ga, y + half, B_FILL, GREW)] {
            let Some(g) = g else { continue };
            let (bar_y, bar_h) = if tall { (top + half * 0.2, half * 0.6) } else { (top, half.max(0.5)) };
            let mid = top + half / 2.0;
            if let Some((x, w)) = span_px(&scale, g.bar, 1.0) {
                s.rects.push(RectInstance::filled(x, bar_y, w, bar_h, fill));
            }
            // The change: what this side's bar covers and the other's does not.
            for part in minus(g.bar, other.map(|o| o.bar)) {
                if let Some((x, w)) = span_px(&scale, part, 1.0) {
                    let shape = if lost == SHRANK { Shape::Hatched } else { Shape::Rect };
                    s.rects.push(RectInstance::filled(x, bar_y, w, bar_h, lost).with_shape(shape));
                }
            }
            // The deviation over the bar (a thin line, so the bar's change stays seen): m2 is mostly inside m0.
            if tall {
                if let Some((x, w)) = span_px(&scale, g.dev, 1.0) {
                    let dh = (half * 0.12).max(1.5);
                    s.rects.push(RectInstance::filled(x, mid - dh / 2.0, w, dh, DEVIATION));
                }
            }
            if tall && g.skew.1 > g.skew.0 {
                if let Some((x, w)) = span_px(&scale, g.skew, 0.0) {
                    let sy = top + half * 0.12;
                    s.lines.push(LineInstance::solid(x, sy, x + w, sy, 1.5, SKEW_LINE));
                }
            }
            if let Some((x, w)) = span_px(&scale, g.tick, 0.0) {
                let xc = x + w / 2.0;
                s.lines.push(LineInstance::solid(xc, top, xc, top + half, if tall { 2.0 } else { 1.0 }, TICK));
            }
        }
        // The mean's move, from A's tick to B's.
        if let (Some(ga), Some(gb)) = (ga, gb) {
            let (xa, xb) = (scale.x((ga.tick.0 + ga.tick.1) / 2.0), scale.x((gb.tick.0 + gb.tick.1) / 2.0));
            if (xb - xa).abs() >= 1.0 {
                let color = if xb > xa { GREW } else { SHRANK };
                s.lines.push(LineInstance::solid(
                    xa,
                    y + half * 0.85,
                    xb,
                    y + half * 1.15,
                    if tall { 2.0 } else { 1.0 },
                    color,
                ));
            }
        }
    }
    if n == 0 {
        s.add_notice(NAME_W, y0, width - NAME_W - MARGIN, row_h, &["Neither run has a location to compare."]);
    }
    MomentsDiff { scene: s, rows, t0_ns: scale.t0_ns, t1_ns: scale.t1_ns }
}

/// Each mark beside what it means, on one line (wrapped where the picture is narrow).
fn legend(s: &mut Scene, y: f32, width: f32) {
    type Sample = fn(&mut Scene, f32, f32);
    let items: [(Sample, &str); 7] = [
        (|s, x, m| s.rects.push(RectInstance::filled(x, m - 4.0, 18.0, 8.0, A_FILL)), "A's m0 bar (upper)"),
        (|s, x, m| s.rects.push(RectInstance::filled(x, m - 4.0, 18.0, 8.0, B_FILL)), "B's m0 bar (lower)"),
        (|s, x, m| s.rects.push(RectInstance::filled(x, m - 4.0, 18.0, 8.0, GREW)), "B busy where A was not"),
        (
            |s, x, m| s.rects.push(RectInstance::filled(x, m - 4.0, 18.0, 8.0, SHRANK).with_shape(Shape::Hatched)),
            "A busy where B is not",
        ),
        (|s, x, m| s.lines.push(LineInstance::solid(x + 9.0, m - 6.0, x + 9.0, m + 6.0, 2.0, TICK)), "m1 mean"),
        (|s, x, m| s.rects.push(RectInstance::filled(x, m - 1.5, 18.0, 3.0, DEVIATION)), "m1 \u{b1} m2"),
        (|s, x, m| s.lines.push(LineInstance::solid(x, m, x + 18.0, m, 1.5, SKEW_LINE)), "m3 skew"),
    ];
    let mut x = MARGIN;
    let mut line = 0.0;
    for (sample, text) in items {
        let w = 22.0 + label_width_px(text, 11.0);
        if x + w > width - MARGIN && x > MARGIN {
            x = MARGIN;
            line += 1.0;
        }
        let m = y + line * 12.0;
        s.decorate(|s| sample(s, x, m));
        s.labels.push(Label::new(x + 22.0, m, text, TEXT_MUTED, 11.0));
        x += w + 12.0;
    }
}

#[cfg(test)]
mod tests;
