//! Counter tracks drawn into the timeline's scene: per shown track a step line over a filled area, on the
//! series' own scale (its minimum at the bottom, its maximum at the top, both labelled in the gutter), downsampled
//! per pixel column: a column holding samples draws one vertical stroke from the smallest to the largest
//! value there (so a spike stays visible at any zoom), and the columns between samples merge into one run.
//! Instances per track are bounded by the track's pixel columns, never by its samples. Hit testing
//! (`sample_at`) uses the same columns. Tracks sit below the timeline's axis and never draw over it.

use super::palette;
use super::short_labels::fit_labels;
use super::timeline::{TimelineView, AXIS_PX};
use super::{rgba, Align, Label, LineInstance, RectInstance, Scene};
use crate::layouts::counters::{CounterIndex, CounterLayout, GROUP_PX, HEADER_PX, TRACK_PX};
use std::ops::Range;
use weft_model::Trace;
use weft_store::counters::SeriesBins;

/// Space above and below a track's plot.
const PAD_PX: f32 = 5.0;
const LINE: u32 = rgba(0x1f, 0x5f, 0xa8, 0xff);
const AREA: u32 = rgba(0x1f, 0x5f, 0xa8, 0x40);
const BAND: u32 = rgba(0xf3, 0xf6, 0xfa, 0xff);
/// The constant series' band.
const CONSTANT_BAND: u32 = rgba(0xe4, 0xe9, 0xf0, 0xff);
/// The size of a track's name.
const LABEL_PX: f32 = 11.0;

pub struct CounterScene<'a> {
    pub trace: &'a Trace,
    pub index: &'a CounterIndex,
    pub layout: &'a CounterLayout,
}

/// A value for a label: up to 4 significant digits, with k, M, G, T or m, µ, n where that is shorter.
pub fn format_value(v: f64) -> String {
    format_digits(v, 0)
}

/// Two values read together (a track's minimum and maximum, a column's extremes): each as [`format_value`]
/// writes it, with as many more digits as it takes for two different values to read differently ("132.52 T"
/// and "132.54 T", not "132.5 T" twice); at most 12 more.
pub fn format_extremes(lo: f64, hi: f64) -> (String, String) {
    let mut extra = 0;
    loop {
        let (a, b) = (format_digits(lo, extra), format_digits(hi, extra));
        if a != b || lo == hi || !(lo.is_finite() && hi.is_finite()) || extra >= 12 {
            return (a, b);
        }
        extra += 1;
    }
}

/// [`format_value`] with `extra` more digits after the point.
fn format_digits(v: f64, extra: usize) -> String {
    if !v.is_finite() {
        return format!("{v}");
    }
    let a = v.abs();
    let (div, unit) = match a {
        a if a >= 1e12 => (1e12, " T"),
        a if a >= 1e9 => (1e9, " G"),
        a if a >= 1e6 => (1e6, " M"),
        a if a >= 1e4 => (1e3, " k"),
        a if a == 0.0 || a >= 1e-2 => (1.0, ""),
        a if a >= 1e-5 => (1e-3, " m"),
        a if a >= 1e-8 => (1e-6, " µ"),
        _ => (1e-9, " n"),
    };
    let x = v / div;
    let digits = extra
        + if x.abs() >= 100.0 {
            1
        } else if x.abs() >= 10.0 {
            2
        } else {
            3
        };
    let s = format!("{x:.digits$}");
    let s = if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_string() } else { s };
    format!("{s}{unit}")
}

/// A value for the hover: whole numbers in full with thousands separators, others to 6 significant digits.
pub fn format_exact(v: f64) -> String {
    if v.is_finite() && v.fract() == 0.0 && v.abs() < 1e15 {
        let digits = format!("{}", v.abs() as u64);
        let mut out = String::new();
        for (k, ch) in digits.chars().enumerate() {
            if k > 0 && (digits.len() - k) % 3 == 0 {
                out.push(',');
            }
            out.push(ch);
        }
        return if v < 0.0 { format!("-{out}") } else { out };
    }
    if v.is_finite() && v != 0.0 && (v.abs() >= 1e6 || v.abs() < 1e-3) {
        return format!("{v:.5e}");
    }
    let s = format!("{v:.6}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// What lies under one pixel column of a track.
#[derive(Clone, Debug, PartialEq)]
pub struct ColumnSamples {
    /// The sample in effect at the pointer's time (the last at or before it), into `trace.counters`.
    pub sample: usize,
    /// Samples inside the column, and their extremes with the value in effect at the column's start.
    pub count: usize,
    pub min: f64,
    pub max: f64,
}

impl CounterScene<'_> {
    /// Screen y of value `v` on a track whose top is at screen y `top`.
    fn y_of(&self, series: u32, top: f32, v: f64) -> f32 {
        let s = &self.index.series[series as usize];
        let (bottom, h) = (top + TRACK_PX - PAD_PX, TRACK_PX - 2.0 * PAD_PX);
        if s.max <= s.min {
            return bottom - h / 2.0;
        }
        let f = if v.is_finite() { ((v - s.min) / (s.max - s.min)).clamp(0.0, 1.0) } else { 0.0 };
        bottom - f as f32 * h
    }

    /// The value `v` in effect over pixel columns `cols` of the track (`series`, screen y of its top): a
    /// step line over a filled area.
    fn step_run(&self, sc: &mut Scene, x_left: f32, (series, top): (u32, f32), cols: Range<usize>, v: f64) {
        let bottom = top + TRACK_PX - PAD_PX;
        if cols.end <= cols.start || bottom <= AXIS_PX {
            return;
        }
        let clip = |y: f32| y.max(AXIS_PX);
        let (x0, x1, y) = (x_left + cols.start as f32, x_left + cols.end as f32, self.y_of(series, top, v));
        sc.rects.push(RectInstance::filled(x0, clip(y), x1 - x0, bottom - clip(y), AREA));
        if y >= AXIS_PX {
            sc.lines.push(LineInstance::solid(x0, y, x1, y, 1.5, LINE));
        }
    }

    /// One pixel column at screen x holding values from `lo` to `hi`: a stroke over them, the area below.
    fn stroke(&self, sc: &mut Scene, x: f32, (series, top): (u32, f32), lo: f64, hi: f64) {
        let bottom = top + TRACK_PX - PAD_PX;
        if bottom <= AXIS_PX {
            return;
        }
        let clip = |y: f32| y.max(AXIS_PX);
        let (y_lo, y_hi) = (self.y_of(series, top, lo), self.y_of(series, top, hi));
        sc.rects.push(RectInstance::filled(x, clip(y_hi), 1.0, bottom - clip(y_hi), AREA));
        sc.lines.push(LineInstance::solid(x + 0.5, clip(y_lo + 0.75), x + 0.5, clip(y_hi - 0.75), 1.5, LINE));
    }

    /// Draw the header and the visible tracks into `sc` (after the timeline's scene is built).
    pub fn draw(&self, sc: &mut Scene, view: &TimelineView) {
        self.draw_with(sc, view, |sc, series, top| self.draw_track(sc, view, series, top));
    }

    /// The header and each visible track's band and labels, its plot drawn by `plot(sc, series, top)`
    /// (the trace's samples, or a store's bins).
    pub fn draw_with(&self, sc: &mut Scene, view: &TimelineView, mut plot: impl FnMut(&mut Scene, u32, f32)) {
        let lay = self.layout;
        if lay.tracks.is_empty() {
            return;
        }
        let t = self.trace;
        let x_left = view.track_x0();
        let header_y = view.y_of(lay.top);
        sc.decorate(|sc| {
            if header_y + HEADER_PX > AXIS_PX && header_y < view.height {
                let y = header_y.max(AXIS_PX);
                let h = header_y + HEADER_PX - 2.0 - y;
                if h > 0.0 {
                    sc.rects.push(RectInstance::filled(0.0, y, view.width, h, rgba(0xe8, 0xec, 0xf2, 0xff)));
                }
                if header_y >= AXIS_PX {
                    sc.labels.push(
                        Label::new(6.0, header_y + HEADER_PX / 2.0 - 1.0, "Counters", palette::TEXT, 12.0).bold(),
                    );
                }
            }
        });
        let names = self.track_labels(view);
        self.draw_constants(sc, view, &names);
        let first = lay.first_below(view.scroll_y);
        for tr in &lay.tracks[first..] {
            let top = view.y_of(tr.y);
            if top >= view.height {
                break;
            }
            if top + TRACK_PX <= AXIS_PX {
                continue;
            }
            let s = tr.series as usize;
            let ix = &self.index.series[s];
            let clip_top = top.max(AXIS_PX);
            sc.decorate(|sc| {
                sc.rects.push(RectInstance::filled(0.0, clip_top, view.width, top + TRACK_PX - 1.0 - clip_top, BAND));
                sc.lines.push(LineInstance::solid(
                    x_left,
                    top + TRACK_PX - 0.5,
                    view.width,
                    top + TRACK_PX - 0.5,
                    1.0,
                    palette::GRID,
                ));
            });
            if top >= AXIS_PX {
                // The series' name first (what tells tracks apart), its process below it.
                let muted = palette::TEXT_MUTED;
                let name = names[s].as_str();
                sc.labels.push(Label::new(12.0, top + 11.0, name, palette::TEXT, 11.0).clipped(x_left - 72.0));
                let process = t.process_name(tr.process);
                sc.labels.push(Label::new(12.0, top + 25.0, process, muted, 10.0).clipped(x_left - 72.0));
                let (min, max) = format_extremes(ix.min, ix.max);
                sc.labels.push(
                    Label::new(x_left - 6.0, top + PAD_PX + 3.0, max, muted, 10.0).aligned(Align::Right).clipped(60.0),
                );
                sc.labels.push(
                    Label::new(x_left - 6.0, top + TRACK_PX - PAD_PX - 3.0, min, muted, 10.0)
                        .aligned(Align::Right)
                        .clipped(60.0),
                );
            }
            plot(sc, tr.series, top);
        }
    }

    /// The constant series' band: how many, and as many of their names and values as fit, with a chevron
    /// saying whether a click opens or closes their tracks below it. Data (their values), not decoration.
    fn draw_constants(&self, sc: &mut Scene, view: &TimelineView, names: &[String]) {
        let Some(g) = &self.layout.constants else { return };
        let top = view.y_of(g.y);
        if top + GROUP_PX <= AXIS_PX || top >= view.height {
            return;
        }
        let y = top.max(AXIS_PX);
        sc.rects.push(RectInstance::filled(0.0, y, view.width, top + GROUP_PX - 1.0 - y, CONSTANT_BAND));
        if top < AXIS_PX {
            return;
        }
        let mut text = format!(
            "{} {} constant series{}",
            if g.open { "\u{25be}" } else { "\u{25b8}" },
            g.series.len(),
            if g.open { " (click to fold)" } else { " (click to show):" }
        );
        if !g.open {
            let room = crate::scene::axis::label_width_px("x", 11.0);
            let max_chars = ((view.width - 20.0) / room) as usize;
            for (k, &s) in g.series.iter().enumerate() {
                let item = format!(" {} = {}", names[s as usize], format_value(self.index.series[s as usize].min));
                if text.chars().count() + item.chars().count() + 2 > max_chars {
                    text.push_str(" \u{2026}");
                    break;
                }
                text.push_str(&item);
                if k + 1 < g.series.len() {
                    text.push(',');
                }
            }
        }
        sc.labels.push(Label::new(8.0, top + GROUP_PX / 2.0, text, palette::TEXT, 11.0).clipped(view.width - 16.0));
    }

    /// Each series' label as its track shows it, by series: its name, cut where needed to what tells it apart
    /// from the others (scene::short_labels) in the gutter's room; the hover gives the full name.
    pub fn track_labels(&self, view: &TimelineView) -> Vec<String> {
        let c = &self.trace.counters;
        let names: Vec<&str> = c.series_name.iter().map(|&n| self.trace.str(n)).collect();
        fit_labels(&names, LABEL_PX, view.track_x0() - 72.0)
    }

    /// A track's plot from pyramid bins (a store zoomed out): per pixel column holding bins with samples,
    /// one stroke over their extremes and the value in effect before them, and the value in effect as a
    /// step line between, as [`draw_track`](Self::draw_track) draws samples. `bin_time(k)` is bin `k`'s
    /// time range; `span_ns` the trace's end (the last value holds to it).
    #[allow(clippy::too_many_arguments)]
    pub fn draw_bins(
        &self,
        sc: &mut Scene,
        view: &TimelineView,
        series: u32,
        top: f32,
        bins: &SeriesBins,
        bin_time: impl Fn(usize) -> (u64, u64),
        span_ns: u64,
    ) {
        let x_left = view.track_x0();
        let cols = (view.width - x_left).max(0.0).floor() as usize;
        if cols == 0 {
            return;
        }
        let ns_px = view.ns_per_px();
        let col_of = |t: f64| ((t - view.t0_ns) / ns_px).floor();
        let end_col = (col_of(span_ns as f64) + 1.0).clamp(0.0, cols as f64) as usize;
        let run = |sc: &mut Scene, c0: usize, c1: usize, v: f64| self.step_run(sc, x_left, (series, top), c0..c1, v);
        let mut cur = bins.before;
        let mut col = 0usize;
        let full: Vec<usize> = (0..bins.count.len()).filter(|&k| bins.count[k] > 0).collect();
        let mut i = 0;
        while i < full.len() {
            let at = col_of(bin_time(full[i]).0 as f64);
            if at >= cols as f64 {
                break;
            }
            let at = at.max(0.0) as usize;
            if at > col {
                if let Some(v) = cur {
                    run(sc, col, at, v);
                }
                col = at;
            }
            // The bins starting in this column: one stroke over their extremes and the value before them.
            let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
            while i < full.len() && col_of(bin_time(full[i]).0 as f64).max(0.0) as usize <= col {
                let k = full[i];
                (lo, hi) = (lo.min(bins.min[k]), hi.max(bins.max[k]));
                cur = Some(bins.last[k]);
                i += 1;
            }
            if lo > hi {
                let v = cur.unwrap_or(0.0);
                (lo, hi) = (v, v);
            }
            self.stroke(sc, x_left + col as f32, (series, top), lo, hi);
            col += 1;
        }
        if let Some(v) = cur {
            run(sc, col, end_col.max(col), v);
        }
    }

    /// The step line and area of one series on the track at screen y `top`, column by column.
    fn draw_track(&self, sc: &mut Scene, view: &TimelineView, series: u32, top: f32) {
        let c = &self.trace.counters;
        let ix = &self.index.series[series as usize];
        let (times, values) = (&c.sample_time_ns[ix.samples.clone()], &c.sample_value[ix.samples.clone()]);
        if times.is_empty() {
            return;
        }
        let x_left = view.track_x0();
        let cols = (view.width - x_left).max(0.0).floor() as usize;
        if cols == 0 {
            return;
        }
        let ns_px = view.ns_per_px();
        let col_t = |col: usize| view.t0_ns + col as f64 * ns_px;
        // The last sample holds its value to the end of the trace.
        let end_col = (((self.trace.span_ns.max(times[times.len() - 1]) as f64 - view.t0_ns) / ns_px).ceil().max(0.0)
            as usize)
            .min(cols);
        let run = |sc: &mut Scene, c0: usize, c1: usize, v: f64| self.step_run(sc, x_left, (series, top), c0..c1, v);
        // First sample after the view's start; the one before it (if any) is in effect at column 0.
        let mut i = times.partition_point(|&x| (x as f64) < view.t0_ns);
        let mut cur: Option<f64> = i.checked_sub(1).map(|k| values[k]);
        let mut col = 0usize;
        while col < end_col {
            if i >= times.len() || times[i] as f64 >= col_t(cols) {
                if let Some(v) = cur {
                    run(sc, col, end_col, v);
                }
                break;
            }
            let at = (((times[i] as f64 - view.t0_ns) / ns_px).floor().max(0.0) as usize).min(cols - 1);
            if at > col {
                if let Some(v) = cur {
                    run(sc, col, at, v);
                }
                col = at;
                continue;
            }
            // Column `col` holds samples i..j: one stroke over their extremes and the value before them.
            let t_next = col_t(col + 1);
            let j = i + times[i..].partition_point(|&x| (x as f64) < t_next);
            let (mut lo, mut hi) = ix.extremes(&c.sample_value, i, j).unwrap_or((values[j - 1], values[j - 1]));
            if let Some(v) = cur.filter(|v| v.is_finite()) {
                (lo, hi) = (lo.min(v), hi.max(v));
            }
            self.stroke(sc, x_left + col as f32, (series, top), lo, hi);
            cur = Some(values[j - 1]);
            i = j;
            col += 1;
        }
    }

    /// The samples under screen point (x, y): the track there, the sample in effect at x's time and what the
    /// pixel column holds. None off the tracks, before a series' first sample, or past the trace's end.
    pub fn sample_at(&self, view: &TimelineView, x: f32, y: f32) -> Option<(u32, ColumnSamples)> {
        if x < view.track_x0() || y < AXIS_PX {
            return None;
        }
        let k = self.layout.track_at(y - AXIS_PX + view.scroll_y)?;
        let series = self.layout.tracks[k].series;
        let ix = &self.index.series[series as usize];
        let c = &self.trace.counters;
        let times = &c.sample_time_ns[ix.samples.clone()];
        let col = (x - view.track_x0()).floor();
        let (c0, c1) = (view.t_of(view.track_x0() + col), view.t_of(view.track_x0() + col + 1.0));
        let t = view.t_of(x);
        if t > self.trace.span_ns.max(*times.last()?) as f64 {
            return None;
        }
        // In effect at t: the last sample at or before it; within the column, those in [c0, c1).
        let (a, b) = (times.partition_point(|&s| (s as f64) < c0), times.partition_point(|&s| (s as f64) < c1));
        let at = times.partition_point(|&s| (s as f64) <= t);
        let k = at.checked_sub(1).or((b > a).then_some(a))?;
        let (mut min, mut max) = ix.extremes(&c.sample_value, a, b).unwrap_or((f64::NAN, f64::NAN));
        if let Some(before) = a.checked_sub(1) {
            let v = c.sample_value[ix.samples.start + before];
            (min, max) = if min.is_nan() { (v, v) } else { (min.min(v), max.max(v)) };
        }
        Some((series, ColumnSamples { sample: ix.samples.start + k, count: b - a, min, max }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_read_at_a_glance_and_in_full() {
        assert_eq!(format_value(0.0), "0");
        assert_eq!(format_value(98850.0), "98.85 k");
        assert_eq!(format_value(88_231_760.0), "88.23 M");
        assert_eq!(format_value(-1.5e-6), "-1.5 µ");
        assert_eq!(format_value(42.0), "42");
        assert_eq!(format_exact(88_231_760.0), "88,231,760");
        assert_eq!(format_exact(-1234.0), "-1,234");
        assert_eq!(format_exact(0.25), "0.25");
        assert_eq!(format_exact(1.5e-6), "1.50000e-6");
    }

    #[test]
    fn extremes_read_apart_at_the_precision_that_separates_them() {
        // Energy counters of an MI300 run: both read "132.5 T" at four digits.
        assert_eq!(format_value(132.52e12), format_value(132.54e12));
        assert_eq!(format_extremes(132.52e12, 132.54e12), ("132.52 T".to_string(), "132.54 T".to_string()));
        let (a, b) = format_extremes(132_518_000_000_001.0, 132_518_000_000_009.0);
        assert_ne!(a, b, "{a} {b}");
        assert_eq!(format_extremes(0.0, 42.0), ("0".to_string(), "42".to_string()));
        assert_eq!(format_extremes(7.0, 7.0), ("7".to_string(), "7".to_string()));
        assert_eq!(format_extremes(1.0, 1.0 + 1e-15).0, "1");
    }
}
