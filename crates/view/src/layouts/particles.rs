//! Layout of the particle animation: process slots grouped into segments along x, a stable pseudo-random x
//! inside each slot, and the logarithmic duration axis along y with its grid lines.
//!
//! Positions are fractions of the plot ([0, 1] in x from the left, [0, 1] in y from the bottom); the scene
//! turns them into pixels. The paper's `y = y_max ln(age) / ln(d_max)` is negative or infinite for ages under
//! one time unit, so the axis has a floor `d_min` (the shortest event): `y = ln(age / d_min) / ln(d_max / d_min)`
//! clamped to [0, 1]. This module must not know colours, wall time or the trace's file format.

/// Processes grouped into segments of equal size along the x axis.
#[derive(Clone, Debug, PartialEq)]
pub struct ProcessAxis {
    pub slots: u32,
    pub per_segment: u32,
}

impl ProcessAxis {
    /// Segments for `slots` processes over `width_px`: each segment at least `min_segment_px` wide; `multiple`
    /// (e.g. 8 or 6, the process grid) rounds the segment size up to a multiple of it.
    pub fn new(slots: u32, width_px: f32, min_segment_px: f32, multiple: Option<u32>) -> ProcessAxis {
        let slots = slots.max(1);
        let px_per_slot = (width_px.max(1.0) / slots as f32) as f64;
        let mut per = (min_segment_px.max(1.0) as f64 / px_per_slot).ceil().max(1.0) as u32;
        if let Some(m) = multiple.filter(|&m| m > 0) {
            per = per.div_ceil(m) * m;
        }
        ProcessAxis { slots, per_segment: per.min(slots).max(1) }
    }
    pub fn segments(&self) -> u32 {
        self.slots.div_ceil(self.per_segment)
    }
    /// Slots `[first, end)` of segment `s`.
    pub fn segment_slots(&self, s: u32) -> (u32, u32) {
        let first = s * self.per_segment;
        (first, (first + self.per_segment).min(self.slots))
    }
    /// Left edge of a slot as a fraction of the width.
    #[inline]
    pub fn slot_x0(&self, slot: u32) -> f32 {
        slot as f32 / self.slots as f32
    }
    /// A particle's x: inside its slot, at a position fixed by the event's identity (so it never jumps
    /// between frames, replays or machines), kept off the slot's edges by a tenth of its width.
    #[inline]
    pub fn particle_x(&self, slot: u32, identity: u32) -> f32 {
        let j = 0.1 + 0.8 * jitter(identity);
        (slot as f32 + j) / self.slots as f32
    }
    /// The slot under fraction `x` of the width.
    pub fn slot_at(&self, x: f32) -> Option<u32> {
        let s = (x * self.slots as f32).floor();
        (s >= 0.0 && s < self.slots as f32).then_some(s as u32)
    }
}

/// A hash of an event's identity in [0, 1): splitmix-style mixing, platform independent.
#[inline]
pub fn jitter(identity: u32) -> f32 {
    let mut z = (identity as u64).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z >> 40) as f32 / (1u64 << 24) as f32
}

/// Natural logarithm of `x >= 1` (finite), to within 1e-6: the exponent from the bits, and the mantissa's
/// logarithm from the series of atanh ((m - 1) / (m + 1)), five terms. wasm's `ln` is a software routine
/// that dominated the frame; this is a few multiplications.
#[inline]
pub fn fast_ln(x: f32) -> f32 {
    let bits = x.to_bits();
    let e = ((bits >> 23) & 0xff) as i32 - 127;
    let m = f32::from_bits((bits & 0x007f_ffff) | 0x3f80_0000);
    let t = (m - 1.0) / (m + 1.0);
    let t2 = t * t;
    let series = 1.0 + t2 * (1.0 / 3.0 + t2 * (1.0 / 5.0 + t2 * (1.0 / 7.0 + t2 * (1.0 / 9.0))));
    e as f32 * std::f32::consts::LN_2 + 2.0 * t * series
}

/// The logarithm a frame uses per particle: [`fast_ln`] in wasm, whose `ln` is a slow software routine, and
/// the platform's `ln` natively, where it is faster than the polynomial. They agree to 1e-6.
#[inline]
pub fn ln_f32(x: f32) -> f32 {
    #[cfg(target_arch = "wasm32")]
    {
        fast_ln(x)
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        x.ln()
    }
}

/// The logarithmic duration axis: `min_ns` at the bottom, `max_ns` (the longest event) at the top.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DurationAxis {
    pub min_ns: f64,
    pub max_ns: f64,
    inv_log_range: f64,
}

impl DurationAxis {
    pub fn new(min_ns: u64, max_ns: u64) -> DurationAxis {
        let min_ns = (min_ns.max(1)) as f64;
        let max_ns = (max_ns as f64).max(min_ns);
        let range = (max_ns / min_ns).ln();
        DurationAxis { min_ns, max_ns, inv_log_range: if range > 0.0 { 1.0 / range } else { 0.0 } }
    }
    /// Height of a particle of age `age_ns`, as a fraction of the axis: the floored logarithm, clamped. With
    /// every event as long as the floor, an aged particle sits at the top.
    #[inline]
    pub fn y(&self, age_ns: f64) -> f32 {
        if age_ns <= self.min_ns {
            return if self.inv_log_range == 0.0 && age_ns >= self.min_ns { 1.0 } else { 0.0 };
        }
        if self.inv_log_range == 0.0 {
            return 1.0;
        }
        (ln_f32((age_ns / self.min_ns) as f32) * self.inv_log_range as f32).clamp(0.0, 1.0)
    }
    /// The age at height fraction `y` (inverse of [`DurationAxis::y`] inside the axis).
    pub fn age_at(&self, y: f32) -> f64 {
        self.min_ns * ((self.max_ns / self.min_ns).ln() * y.clamp(0.0, 1.0) as f64).exp()
    }

    /// Grid lines in real units: the top (the longest event) and the floor, and between them durations of
    /// 1, 2 or 5 x 10^k ns, chosen from the top down so that no two lines are closer than `min_gap` (a
    /// fraction of the height: the label height plus a gap), which keeps their labels from overlapping.
    pub fn grid(&self, min_gap: f32) -> Vec<GridLine> {
        let mut lines = vec![GridLine { dur_ns: self.max_ns, y: 1.0, bold: true }];
        if self.inv_log_range == 0.0 {
            return lines;
        }
        let mut candidates = Vec::new();
        let mut p = 10f64.powi(self.min_ns.log10().floor() as i32);
        while p <= self.max_ns * 10.0 {
            for m in [1.0, 2.0, 5.0] {
                let d = m * p;
                if d > self.min_ns && d < self.max_ns {
                    candidates.push(d);
                }
            }
            p *= 10.0;
        }
        let mut last = 1.0f32;
        for &d in candidates.iter().rev() {
            let y = self.y(d);
            if last - y >= min_gap && y >= min_gap {
                lines.push(GridLine { dur_ns: d, y, bold: false });
                last = y;
            }
        }
        if last >= min_gap {
            lines.push(GridLine { dur_ns: self.min_ns, y: 0.0, bold: true });
        }
        lines
    }
}

/// One horizontal grid line of the duration axis.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GridLine {
    pub dur_ns: f64,
    /// Height as a fraction of the axis.
    pub y: f32,
    /// The top and the floor are drawn bold.
    pub bold: bool,
}
