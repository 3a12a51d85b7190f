//! The navigation timeline under the animation: a stacked graph of event starts per type over a time range
//! (the whole trace, or what the user zoomed and panned to, as in the timeline), a time axis, and the cursor
//! at the current data time (the page drags it to seek).
//!
//! The counts are binned once per width and range ([`ParticleEvents::starts_per_type`]: the events in the
//! range, found by binary search); drawing is one rect per non-empty (bin, type) pair, bounded by pixels times
//! types. Must not walk the events per frame.
//!
//! On a store (issue #17) the events held are a slice of the run: outside it each bin shows, in grey, the
//! starts the store's particle tiles count for the windows it overlaps (a window's starts spread evenly over
//! it: [`StartsTimeline::estimate_outside`]), at the same scale, so the whole run's shape is there before
//! playback loads its events.

use crate::scene::axis::{draw_time_axis, TimeScale, AXIS_HEIGHT_PX};
use crate::scene::{rgba, LineInstance, RectInstance, Rgba, Scene};
use weft_analyses::particles::ParticleEvents;

const BACKGROUND: Rgba = rgba(0xff, 0xff, 0xff, 0xff);
const CURSOR: Rgba = rgba(0xd6, 0x27, 0x28, 0xff);
/// A store's starts outside the slice held (all types together): a mid grey on the pane's dark ground, under
/// which the strip's light words stay readable.
pub const ESTIMATED: Rgba = rgba(0x4e, 0x54, 0x5c, 0xff);
/// Pixels per bin of the stacked graph.
const BIN_PX: f32 = 2.0;

/// The stacked graph's counts for one width, kept while the width stays.
#[derive(Clone, Debug)]
pub struct StartsTimeline {
    pub width: f32,
    pub height: f32,
    pub x0: f32,
    pub x1: f32,
    /// The time range shown, ns from the trace's first event.
    pub t0_ns: u64,
    pub t1_ns: u64,
    pub span_ns: u64,
    pub bins: usize,
    pub types: usize,
    /// `counts[bin * types + type]`.
    pub counts: Vec<u32>,
    /// A store's bins outside the slice held: the starts its windows' counts give them (empty: none).
    pub estimated: Vec<f32>,
    pub max_stack: u32,
}

impl StartsTimeline {
    /// The whole trace.
    pub fn new(ev: &ParticleEvents, width: f32, height: f32) -> StartsTimeline {
        Self::of_range(ev, width, height, 0, ev.span_ns.max(1))
    }

    /// The range [t0, t1] (ns; at least 1 ns long).
    pub fn of_range(ev: &ParticleEvents, width: f32, height: f32, t0_ns: u64, t1_ns: u64) -> StartsTimeline {
        let (x0, x1) = (72.0f32, (width - 8.0).max(73.0));
        let bins = ((x1 - x0) / BIN_PX).max(1.0) as usize;
        let span_ns = ev.span_ns.max(1);
        let t1_ns = t1_ns.max(t0_ns + 1);
        let counts = ev.starts_per_type(t0_ns, t1_ns.saturating_add(1), bins);
        let types = ev.types.len();
        let max_stack = (0..bins)
            .map(|b| counts[b * types..(b + 1) * types].iter().map(|&c| c as u64).sum::<u64>())
            .max()
            .unwrap_or(0)
            .min(u32::MAX as u64) as u32;
        StartsTimeline {
            width,
            height,
            x0,
            x1,
            t0_ns,
            t1_ns,
            span_ns,
            bins,
            types,
            counts,
            estimated: Vec::new(),
            max_stack,
        }
    }

    /// A store's strip: every bin whose middle lies outside `held` (`[from, end)`, ns; None: nothing held)
    /// gets the starts of the windows of `window_ns` it overlaps, `window_starts[w]` being window `w`'s
    /// (the store's particle tiles' record counts), each window's spread evenly over it; the scale then
    /// reaches the largest of them too.
    pub fn estimate_outside(&mut self, held: Option<(u64, u64)>, window_ns: u64, window_starts: &[u64]) {
        let (bins, window_ns) = (self.bins, window_ns.max(1) as f64);
        let bin_ns = (self.t1_ns - self.t0_ns) as f64 / bins as f64;
        let last = window_starts.len().saturating_sub(1);
        self.estimated = (0..bins)
            .map(|b| {
                let (lo, hi) = (self.t0_ns as f64 + b as f64 * bin_ns, self.t0_ns as f64 + (b + 1) as f64 * bin_ns);
                let mid = (lo + hi) / 2.0;
                if held.is_some_and(|(from, end)| from as f64 <= mid && mid < end as f64) || window_starts.is_empty() {
                    return 0.0;
                }
                let (wa, wb) = (((lo / window_ns) as usize).min(last), ((hi / window_ns) as usize).min(last));
                (wa..=wb)
                    .map(|w| {
                        let (ws, we) = (w as f64 * window_ns, (w + 1) as f64 * window_ns);
                        window_starts[w] as f64 * ((hi.min(we) - lo.max(ws)).max(0.0) / window_ns)
                    })
                    .sum::<f64>() as f32
            })
            .collect();
        let most = self.estimated.iter().fold(0f32, |m, &e| m.max(e)).ceil() as u32;
        self.max_stack = self.max_stack.max(most);
    }
    pub fn scale(&self) -> TimeScale {
        TimeScale { t0_ns: self.t0_ns as f64, t1_ns: self.t1_ns as f64, x0: self.x0, x1: self.x1 }
    }
    /// The data time under pixel `x` (where a cursor drag seeks to), clamped to the range shown and the trace.
    pub fn time_at(&self, x: f32) -> u64 {
        self.scale().t(x.clamp(self.x0, self.x1)).round().clamp(0.0, self.span_ns as f64) as u64
    }
    /// The whole timeline with the cursor at `t_ns`; `colors` per type.
    pub fn build(&self, colors: &[Rgba], t_ns: u64) -> Scene {
        let mut s = Scene::new(self.width, self.height, BACKGROUND);
        let plot_bottom = self.height - AXIS_HEIGHT_PX;
        let plot_h = (plot_bottom - 4.0).max(1.0);
        let per_count = if self.max_stack > 0 { plot_h / self.max_stack as f32 } else { 0.0 };
        let bin_w = (self.x1 - self.x0) / self.bins as f32;
        for (b, &e) in self.estimated.iter().enumerate() {
            if e > 0.0 {
                let h = (e * per_count).max(1.0);
                s.rects.push(RectInstance::filled(self.x0 + b as f32 * bin_w, plot_bottom - h, bin_w, h, ESTIMATED));
            }
        }
        for b in 0..self.bins {
            let mut y = plot_bottom;
            for t in 0..self.types {
                let c = self.counts[b * self.types + t];
                if c == 0 {
                    continue;
                }
                let h = c as f32 * per_count;
                y -= h;
                let color = colors.get(t).copied().unwrap_or(super::colors::OTHER);
                s.rects.push(RectInstance::filled(self.x0 + b as f32 * bin_w, y, bin_w, h, color));
            }
        }
        draw_time_axis(&mut s, &self.scale(), plot_bottom, plot_bottom);
        // The cursor, where it is in the range shown (else a stub at the edge it lies beyond).
        let x = self.scale().x(t_ns as f64);
        if (self.x0..=self.x1).contains(&x) {
            s.lines.push(LineInstance::solid(x, 0.0, x, plot_bottom, 2.0, CURSOR));
            s.rects.push(RectInstance::filled(x - 4.0, 0.0, 8.0, 6.0, CURSOR));
        } else {
            let edge = if x < self.x0 { self.x0 } else { self.x1 - 6.0 };
            s.lines.push(LineInstance::solid(edge, 0.0, edge + 6.0, 0.0, 2.0, CURSOR));
            s.rects.push(RectInstance::filled(edge, 0.0, 6.0, 6.0, CURSOR));
        }
        // The cursor is a control, not data.
        s.chrome += 2;
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A strip over `[0, span]` with no events held (a store's before its first slice).
    fn empty_strip(span_ns: u64) -> StartsTimeline {
        let mut ev = ParticleEvents::default();
        ev.span_ns = span_ns;
        ev.types = vec!["MPI_Send".into()];
        StartsTimeline::of_range(&ev, 400.0, 110.0, 0, span_ns)
    }

    #[test]
    fn a_stores_windows_fill_the_strip_outside_the_slice_held() {
        // Four windows of 1,000 ns with 10, 0, 40 and 20 starts.
        let starts = [10, 0, 40, 20];
        let mut tl = empty_strip(4_000);
        tl.estimate_outside(None, 1_000, &starts);
        let sum: f32 = tl.estimated.iter().sum();
        assert!((sum - 70.0).abs() < 1e-3, "the whole run's starts, spread: {sum}");
        // A bin of window 2 holds 40 starts over the bins of a window.
        let per_window = tl.bins as f32 / 4.0;
        let third = tl.bins * 5 / 8;
        assert!((tl.estimated[third] - 40.0 / per_window).abs() < 1e-3, "{}", tl.estimated[third]);
        assert_eq!(tl.estimated[tl.bins * 3 / 8], 0.0, "window 1 has none");
        assert!(tl.max_stack >= (40.0 / per_window).ceil() as u32);
        // Window 2 held: its bins count the slice's own starts (none here), the others still estimated.
        tl.estimate_outside(Some((2_000, 3_000)), 1_000, &starts);
        let sum: f32 = tl.estimated.iter().sum();
        assert!((sum - 30.0).abs() < 1e-3, "windows 0 and 3 only: {sum}");
        assert_eq!(tl.estimated[third], 0.0);
        // Drawn in grey, one bar a bin with an estimate.
        let grey = tl.build(&[], 0).rects.iter().filter(|r| r.fill == ESTIMATED).count();
        assert_eq!(grey, tl.estimated.iter().filter(|&&e| e > 0.0).count());
    }
}
