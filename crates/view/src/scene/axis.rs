//! A time axis any view can reuse: the mapping between time (ns from the trace's first event) and pixels,
//! tick steps of 1, 2 or 5 x 10^k ns, and labels in real units (ns, us, ms, s) that never overlap.
//!
//! Label widths are estimated at 0.6 em per character (the SVG writer's estimate too), and the step grows until
//! the widest label plus a gap fits between ticks. Must not know about traces or any particular view.
//! Zoomed in far from time zero, `window_ticks` labels ticks relative to a round time at the window's start
//! ("+250 us"), that time given once for the view to show, so no label is a long absolute number.

use super::{palette, Align, Label, LineInstance, RectInstance, Scene};

/// Linear map from time to x: `t0_ns` at `x0`, `t1_ns` at `x1`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimeScale {
    pub t0_ns: f64,
    pub t1_ns: f64,
    pub x0: f32,
    pub x1: f32,
}

impl TimeScale {
    pub fn ns_per_px(&self) -> f64 {
        (self.t1_ns - self.t0_ns) / ((self.x1 - self.x0) as f64).max(1e-6)
    }
    /// x of time `t_ns` (computed in f64, so deep zooms into long traces stay exact to the pixel).
    #[inline]
    pub fn x(&self, t_ns: f64) -> f32 {
        (self.x0 as f64 + (t_ns - self.t0_ns) / self.ns_per_px()) as f32
    }
    /// Time at `x`.
    pub fn t(&self, x: f32) -> f64 {
        self.t0_ns + (x - self.x0) as f64 * self.ns_per_px()
    }
}

/// Font size of tick labels.
pub const TICK_LABEL_PX: f32 = 11.0;
/// Least free space between two tick labels.
pub const LABEL_GAP_PX: f32 = 8.0;
/// Height of the axis band drawn by [`draw_time_axis`].
pub const AXIS_HEIGHT_PX: f32 = 24.0;

/// Estimated width of `text` at `size_px` (0.6 em per character).
pub fn label_width_px(text: &str, size_px: f32) -> f32 {
    text.chars().count() as f32 * 0.6 * size_px
}

/// The smallest step of the form 1, 2 or 5 x 10^k ns (k >= 0) that is at least `min_ns`.
pub fn nice_step_ns(min_ns: f64) -> f64 {
    let min_ns = if min_ns.is_finite() { min_ns.max(1.0) } else { 1.0 };
    let mut p = 10f64.powi(min_ns.log10().floor() as i32);
    loop {
        for m in [1.0, 2.0, 5.0] {
            if m * p >= min_ns * (1.0 - 1e-12) {
                return m * p;
            }
        }
        p *= 10.0;
    }
}

/// The unit (name, ns per unit) labels use for times up to `max_abs_ns`.
pub fn unit_for(max_abs_ns: f64) -> (&'static str, f64) {
    if max_abs_ns >= 1e9 {
        ("s", 1e9)
    } else if max_abs_ns >= 1e6 {
        ("ms", 1e6)
    } else if max_abs_ns >= 1e3 {
        ("us", 1e3)
    } else {
        ("ns", 1.0)
    }
}

/// Decimals needed so that ticks `step_ns` apart print differently in a unit of `unit_ns`.
pub fn decimals_for(step_ns: f64, unit_ns: f64) -> usize {
    let r = step_ns / unit_ns;
    if r >= 1.0 {
        0
    } else {
        ((-r.log10()) - 1e-9).ceil().clamp(0.0, 9.0) as usize
    }
}

/// A tick label of time `t_ns` in the given unit and precision.
pub fn format_time(t_ns: f64, unit: (&str, f64), decimals: usize) -> String {
    let v = t_ns / unit.1;
    let v = if v.abs() < 0.5 * 10f64.powi(-(decimals as i32)) { 0.0 } else { v };
    format!("{v:.decimals$} {}", unit.0)
}

/// One tick: its time, x, and label (`None` where the label was left out to avoid an overlap at an edge).
#[derive(Clone, Debug, PartialEq)]
pub struct Tick {
    pub t_ns: f64,
    pub x: f32,
    pub label: Option<Label>,
}

/// Ticks across `scale`, labels centred on their tick, kept inside [x0, x1], never overlapping.
pub fn ticks(scale: &TimeScale, label_y: f32, color: u32) -> (f64, Vec<Tick>) {
    ticks_with_prefix(scale, label_y, color, "")
}

/// A window's ticks: absolute labels, or, when the window is narrower than a fiftieth of its distance from
/// time zero, labels relative to the round time (a multiple of the absolute step) at or before its start,
/// e.g. "+1.25 ms", with that time as text ("1.5604 s") to show once. Ticks' `t_ns` stay absolute.
pub fn window_ticks(scale: &TimeScale, label_y: f32, color: u32) -> (Option<String>, f64, Vec<Tick>) {
    let (step, abs) = ticks(scale, label_y, color);
    let (lo, hi) = (scale.t0_ns.min(scale.t1_ns), scale.t0_ns.max(scale.t1_ns));
    if (hi - lo) * 50.0 > lo.abs().max(hi.abs()) {
        return (None, step, abs);
    }
    let base = (lo / step).floor() * step;
    let shifted = TimeScale { t0_ns: scale.t0_ns - base, t1_ns: scale.t1_ns - base, ..*scale };
    let (rstep, mut rel) = ticks_with_prefix(&shifted, label_y, color, "+");
    for t in &mut rel {
        t.t_ns += base;
    }
    let unit = unit_for(base.abs());
    (Some(format_time(base, unit, decimals_for(step, unit.1))), rstep, rel)
}

fn ticks_with_prefix(scale: &TimeScale, label_y: f32, color: u32, prefix: &str) -> (f64, Vec<Tick>) {
    let (lo, hi) = (scale.t0_ns.min(scale.t1_ns), scale.t0_ns.max(scale.t1_ns));
    let unit = unit_for(lo.abs().max(hi.abs()));
    let px_per_ns = 1.0 / scale.ns_per_px();
    let mut step = nice_step_ns(40.0 * scale.ns_per_px());
    // Grow the step until the widest label of the range fits between two ticks.
    loop {
        let d = decimals_for(step, unit.1);
        let widest = [lo, hi, -step]
            .iter()
            .map(|&t| label_width_px(&format!("{prefix}{}", format_time(t, unit, d)), TICK_LABEL_PX))
            .fold(0.0, f32::max);
        if (step * px_per_ns) as f32 >= widest + LABEL_GAP_PX || step > 1e18 {
            break;
        }
        step = nice_step_ns(step * 1.5);
    }
    let d = decimals_for(step, unit.1);
    let mut out = Vec::new();
    let mut last_right = f32::NEG_INFINITY;
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    for k in first..=last.min(first + 10_000) {
        let t = k as f64 * step;
        let x = scale.x(t);
        let text = format!("{prefix}{}", format_time(t, unit, d));
        let w = label_width_px(&text, TICK_LABEL_PX);
        let left = (x - w / 2.0).max(scale.x0).min(scale.x1 - w);
        let label = (left >= scale.x0 - 0.01 && left >= last_right + LABEL_GAP_PX).then(|| {
            last_right = left + w;
            Label::new(left + w / 2.0, label_y, text, color, TICK_LABEL_PX).aligned(Align::Center)
        });
        out.push(Tick { t_ns: t, x, label });
    }
    (step, out)
}

/// Draw an axis band of [`AXIS_HEIGHT_PX`] at `y` across `scale`, with faint grid lines down to `grid_bottom`
/// (as thin rects, pushed now so they sit under the shapes a view adds afterwards). Returns the step in ns.
pub fn draw_time_axis(scene: &mut Scene, scale: &TimeScale, y: f32, grid_bottom: f32) -> f64 {
    let (step, ticks) = ticks(scale, y + AXIS_HEIGHT_PX * 0.45, palette::TEXT_MUTED);
    let base = y + AXIS_HEIGHT_PX - 1.0;
    // Decoration: counted as chrome, not as marks of the data.
    scene.chrome += 1 + ticks.len() * if grid_bottom > base + 1.0 { 2 } else { 1 };
    scene.rects.push(RectInstance::filled(scale.x0, base, scale.x1 - scale.x0, 1.0, palette::TEXT_MUTED));
    for t in ticks {
        if grid_bottom > base + 1.0 {
            scene.rects.push(RectInstance::filled(t.x - 0.5, base + 1.0, 1.0, grid_bottom - base - 1.0, palette::GRID));
        }
        scene.lines.push(LineInstance::solid(t.x, base - 4.0, t.x, base, 1.0, palette::TEXT_MUTED));
        scene.labels.extend(t.label);
    }
    step
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_are_one_two_five_times_powers_of_ten() {
        assert_eq!(nice_step_ns(0.3), 1.0);
        assert_eq!(nice_step_ns(1.0), 1.0);
        assert_eq!(nice_step_ns(1.5), 2.0);
        assert_eq!(nice_step_ns(3.0), 5.0);
        assert_eq!(nice_step_ns(7.0), 10.0);
        assert_eq!(nice_step_ns(2000.0), 2000.0);
        assert_eq!(nice_step_ns(2001.0), 5000.0);
        assert_eq!(nice_step_ns(6e8), 1e9);
    }

    #[test]
    fn labels_use_real_units_and_enough_decimals() {
        let ms = unit_for(3e6);
        assert_eq!(ms.0, "ms");
        assert_eq!(format_time(1.5e6, ms, decimals_for(5e5, ms.1)), "1.5 ms");
        let s = unit_for(12e9);
        assert_eq!(format_time(12_000_002_000.0, s, decimals_for(2000.0, s.1)), "12.000002 s");
        assert_eq!(format_time(400.0, unit_for(900.0), 0), "400 ns");
    }

    /// Seeded xorshift.
    fn rng(state: &mut u64) -> f64 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        (*state >> 11) as f64 / (1u64 << 53) as f64
    }

    #[test]
    fn labels_never_overlap_stay_inside_and_differ() {
        let mut s = 0x1234_5678_9abc_def1u64;
        for case in 0..2000 {
            let t0 = (rng(&mut s) * 1e12).floor() * if case % 3 == 0 { 0.0 } else { 1.0 };
            let len = 10f64.powf(rng(&mut s) * 13.0).max(1.0);
            let x0 = (rng(&mut s) * 200.0) as f32;
            let width = 30.0 + (rng(&mut s) * 2000.0) as f32;
            let scale = TimeScale { t0_ns: t0, t1_ns: t0 + len, x0, x1: x0 + width };
            let (step, ticks) = ticks(&scale, 10.0, 0);
            let labels: Vec<&Label> = ticks.iter().filter_map(|t| t.label.as_ref()).collect();
            let mut prev_right = f32::NEG_INFINITY;
            let mut texts = std::collections::HashSet::new();
            for l in &labels {
                let w = label_width_px(&l.text, l.size_px);
                let (left, right) = (l.x - w / 2.0, l.x + w / 2.0);
                assert!(left >= prev_right, "case {case}: overlap at {l:?} (step {step})");
                assert!(
                    left >= x0 - 0.01 && right <= x0 + width + 0.01 || labels.len() == 1,
                    "case {case}: {l:?} outside"
                );
                assert!(texts.insert(l.text.clone()), "case {case}: duplicate label {}", l.text);
                prev_right = right;
            }
            for t in &ticks {
                assert!(t.t_ns >= t0 - 1e-6 && t.t_ns <= t0 + len + 1e-6);
            }
        }
    }

    #[test]
    fn zoomed_in_far_from_zero_labels_are_relative_to_a_round_start() {
        // 1 ms at 1.5604 s: "+200 us"-style labels, the start once as seconds; never "1560400 us".
        let scale = TimeScale { t0_ns: 1_560_400_123.0, t1_ns: 1_561_400_123.0, x0: 200.0, x1: 1200.0 };
        let (base, step, ticks) = window_ticks(&scale, 10.0, 0);
        let base = base.expect("relative");
        assert!(base.ends_with(" s") && base.starts_with("1.5604"), "{base}");
        let labels: Vec<&str> = ticks.iter().filter_map(|t| t.label.as_ref()).map(|l| l.text.as_str()).collect();
        assert!(labels.len() >= 3, "{labels:?}");
        assert!(labels.iter().all(|l| l.starts_with('+') && !l.contains("1560")), "{labels:?}");
        for t in &ticks {
            assert!(t.t_ns >= scale.t0_ns - 1e-3 && t.t_ns <= scale.t1_ns + 1e-3);
            assert!((scale.x(t.t_ns) - t.x).abs() < 0.01, "relative ticks sit at their absolute times");
        }
        assert!(step > 0.0);
        // The whole run from zero: absolute labels.
        let whole = TimeScale { t0_ns: 0.0, t1_ns: 2e9, x0: 200.0, x1: 1200.0 };
        let (base, _, ticks) = window_ticks(&whole, 10.0, 0);
        assert!(base.is_none());
        assert!(ticks.iter().filter_map(|t| t.label.as_ref()).all(|l| !l.text.starts_with('+')));
    }
}
