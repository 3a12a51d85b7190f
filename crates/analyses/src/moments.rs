//! Moments of utilization (Godin, Quinn and Pancake; issue 4): per location, the norm m0 (busy time), mean m1,
//! scaled deviation m2 = sqrt(3 mu2) and scaled skew m3 = 3 cbrt(mu3) of its busy function g(t).
//!
//! Computed exactly from busy intervals: an interval [a, b] has mean (a+b)/2, second central moment L^3/12 and
//! third 0 about its centre, and intervals combine with the parallel-axis (Chan et al.) merge, weighted by length.
//! Raw powers of timestamps are never formed (the paper's Section 8 scheme loses every digit at epoch ns); times
//! are f64 offsets from a reference and m0 is an exact integer. The accumulator is constant memory and mergeable,
//! so shards of a trace and adjacent time windows combine to the one-pass result. Must not draw or lay out.
//! Note the paper's Eq. 13 and 16 are wrong (see shared/papers/NOTES.md); Eq. 6 and 9 are what is computed.

use super::busy::{BusyDefinition, BusyInterval, BusyIntervals, BusyScanner};
use serde::Serialize;
use thiserror::Error;
use weft_model::sort::SortDyn;
use weft_model::{LocationId, Trace};

/// Streaming, mergeable moments of a busy function: exact busy time plus mean and central moments in f64.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MomentAccumulator {
    /// Times are offsets from this (ns, in whatever clock the caller uses).
    reference_ns: i64,
    m0_ns: u64,
    /// Mean busy time, relative to `reference_ns`.
    mean: f64,
    /// Integral of (t - mean)^2 g(t) dt (ns^3).
    c2: f64,
    /// Integral of (t - mean)^3 g(t) dt (ns^4).
    c3: f64,
}

impl MomentAccumulator {
    pub fn new(reference_ns: i64) -> Self {
        MomentAccumulator { reference_ns, m0_ns: 0, mean: 0.0, c2: 0.0, c3: 0.0 }
    }

    /// Add the busy interval [start, end) (absolute ns in the reference's clock). Empty intervals add nothing.
    #[inline]
    pub fn add_interval(&mut self, start_ns: i64, end_ns: i64) {
        if end_ns <= start_ns {
            return;
        }
        let len = (end_ns as i128 - start_ns as i128) as u64;
        let lf = len as f64;
        // The start from the reference, rounded to f64 as any integer is (to nearest): in i64 unless the two
        // are further apart (a 128-bit integer converts in software, a call per interval).
        let from_reference = match start_ns.checked_sub(self.reference_ns) {
            Some(d) => d as f64,
            None => (start_ns as i128 - self.reference_ns as i128) as f64,
        };
        let centre = from_reference + lf * 0.5;
        self.combine(len, centre, lf * lf * lf / 12.0, 0.0);
    }

    /// Add a run of busy intervals (ns from the trace's first event, a time past `i64::MAX` read as it), in
    /// order: [`accumulate`] without a window is this from reference 0, so a location's busy intervals added a
    /// run at a time, in order, give the same bits as all at once.
    #[inline]
    pub fn add_busy(&mut self, spans: &[BusyInterval]) {
        spans.iter().for_each(|s| self.add_interval(signed_ns(s.start_ns), signed_ns(s.end_ns)));
    }

    /// Merge another accumulator (any reference) into this one: the result is as if every interval of
    /// `other` had been added here. Busy sets are assumed disjoint (they are pieces of one g(t)).
    pub fn merge(&mut self, other: &MomentAccumulator) {
        if other.m0_ns == 0 {
            return;
        }
        let shift = (other.reference_ns as i128 - self.reference_ns as i128) as f64;
        self.combine(other.m0_ns, other.mean + shift, other.c2, other.c3);
    }

    /// Chan et al.'s pairwise update for (weight, mean, M2, M3), weights being busy lengths.
    #[inline]
    fn combine(&mut self, nb: u64, mean_b: f64, c2_b: f64, c3_b: f64) {
        if self.m0_ns == 0 {
            self.m0_ns = nb;
            self.mean = mean_b;
            self.c2 = c2_b;
            self.c3 = c3_b;
            return;
        }
        let na = self.m0_ns as f64;
        let nbf = nb as f64;
        let n = na + nbf;
        let delta = mean_b - self.mean;
        let d_n = delta / n;
        let c2 = self.c2 + c2_b + delta * d_n * na * nbf;
        let c3 = self.c3 + c3_b + delta * d_n * d_n * na * nbf * (na - nbf) + 3.0 * d_n * (na * c2_b - nbf * self.c2);
        self.mean += d_n * nbf;
        self.c2 = c2;
        self.c3 = c3;
        self.m0_ns += nb;
    }

    pub fn reference_ns(&self) -> i64 {
        self.reference_ns
    }

    /// The whole state (reference, m0, mean, c2, c3), so a store can keep an accumulator bit for bit.
    pub fn to_parts(&self) -> (i64, u64, f64, f64, f64) {
        (self.reference_ns, self.m0_ns, self.mean, self.c2, self.c3)
    }

    /// The accumulator [`to_parts`](Self::to_parts) gave.
    pub fn from_parts(reference_ns: i64, m0_ns: u64, mean: f64, c2: f64, c3: f64) -> Self {
        MomentAccumulator { reference_ns, m0_ns, mean, c2, c3 }
    }

    /// m0: total busy time, exact.
    pub fn m0_ns(&self) -> u64 {
        self.m0_ns
    }

    /// m1 as an offset from `origin_ns` (same clock as the reference); 0 when never busy.
    pub fn m1_from(&self, origin_ns: i64) -> f64 {
        if self.m0_ns == 0 {
            return 0.0;
        }
        (self.reference_ns as i128 - origin_ns as i128) as f64 + self.mean
    }

    /// mu2, the variance of g(t) as a distribution (ns^2).
    pub fn mu2(&self) -> f64 {
        if self.m0_ns == 0 {
            0.0
        } else {
            (self.c2 / self.m0_ns as f64).max(0.0)
        }
    }

    /// mu3, the third central moment of g(t) as a distribution (ns^3). A skewness |mu3 / mu2^1.5| below
    /// 1e-10 is rounding noise of the merges (a symmetric busy set split in pieces gives ~1e-16) and reads 0:
    /// the cube root in m3 would otherwise magnify it to a visible 1e-5 of the deviation.
    pub fn mu3(&self) -> f64 {
        if self.m0_ns == 0 {
            return 0.0;
        }
        let mu3 = self.c3 / self.m0_ns as f64;
        let mu2 = self.mu2();
        if mu3.abs() <= 1e-10 * mu2 * mu2.sqrt() {
            0.0
        } else {
            mu3
        }
    }

    /// m2 = sqrt(3 mu2): half the length of the single bar with this spread (m2 = m0/2 for one bar).
    pub fn m2_ns(&self) -> f64 {
        (3.0 * self.mu2()).sqrt()
    }

    /// m3 = 3 cbrt(mu3), the real cube root keeping the sign: positive for a thin tail of activity late.
    pub fn m3_ns(&self) -> f64 {
        3.0 * self.mu3().cbrt()
    }
}

/// A time range [start, end) in ns relative to the trace's first event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeWindow {
    pub start_ns: u64,
    pub end_ns: u64,
}

#[derive(Debug, Error, PartialEq)]
pub enum WindowError {
    #[error("time window '{text}': expected T0:T1 (numbers with an optional unit ns, us, ms or s)")]
    Syntax { text: String },
    #[error("time window '{text}': '{part}' is not a time (a number with an optional unit ns, us, ms or s)")]
    Time { text: String, part: String },
    #[error("time window '{text}': the end is not after the start")]
    Empty { text: String },
}

impl TimeWindow {
    /// The whole trace: [0, span].
    pub fn whole(trace: &Trace) -> Self {
        TimeWindow { start_ns: 0, end_ns: trace.span_ns }
    }

    pub fn len_ns(&self) -> u64 {
        self.end_ns.saturating_sub(self.start_ns)
    }

    /// Parse `T0:T1`, each a non-negative number with an optional unit (`ns` default, `us`, `ms`, `s`).
    pub fn parse(text: &str) -> Result<Self, WindowError> {
        let (a, b) = text.split_once(':').ok_or_else(|| WindowError::Syntax { text: text.to_string() })?;
        let time = |part: &str| {
            parse_time_ns(part).ok_or_else(|| WindowError::Time { text: text.to_string(), part: part.to_string() })
        };
        let (start_ns, end_ns) = (time(a)?, time(b)?);
        if end_ns <= start_ns {
            return Err(WindowError::Empty { text: text.to_string() });
        }
        Ok(TimeWindow { start_ns, end_ns })
    }

    /// `span` clipped to this window, if anything remains.
    #[inline]
    pub fn clip(&self, span: BusyInterval) -> Option<BusyInterval> {
        let s = span.start_ns.max(self.start_ns);
        let e = span.end_ns.min(self.end_ns);
        (s < e).then_some(BusyInterval { start_ns: s, end_ns: e })
    }
}

fn parse_time_ns(part: &str) -> Option<u64> {
    let part = part.trim();
    let (num, scale) = [("ns", 1.0), ("us", 1e3), ("ms", 1e6), ("s", 1e9)]
        .iter()
        .find_map(|&(u, k)| part.strip_suffix(u).map(|n| (n.trim(), k)))
        .unwrap_or((part, 1.0));
    if let (Ok(v), true) = (num.parse::<u64>(), scale == 1.0) {
        return Some(v);
    }
    let v: f64 = num.parse().ok()?;
    let ns = (v * scale).round();
    (0.0..1.8e19).contains(&ns).then_some(ns as u64)
}

/// The moments of one location. The JSON keys are the CLI's stable interface.
/// m1 is relative to the trace's first event; a location never busy has m0 = 0 and m1 = m2 = m3 = 0.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct LocationMoments {
    /// The location's index in the trace.
    pub location: u32,
    /// "process / location", as the trace names them.
    pub name: String,
    pub m0_ns: u64,
    pub m1_ns: f64,
    pub m2_ns: f64,
    pub m3_ns: f64,
}

impl LocationMoments {
    /// The row of location `l` from its accumulator (the store keeps accumulators, not rows).
    pub fn from_accumulator(trace: &Trace, l: LocationId, acc: &MomentAccumulator) -> Self {
        LocationMoments {
            location: l.0,
            name: location_label(trace, l),
            m0_ns: acc.m0_ns(),
            m1_ns: acc.m1_from(0),
            m2_ns: acc.m2_ns(),
            m3_ns: acc.m3_ns(),
        }
    }

    pub fn is_idle(&self) -> bool {
        self.m0_ns == 0
    }
}

/// "process / location", the name rows and the CLI show.
pub fn location_label(trace: &Trace, l: LocationId) -> String {
    let p = trace.locations.process[l.index()];
    format!("{} / {}", trace.process_name(p), trace.location_name(l))
}

/// The accumulator of a run of busy intervals, clipped to `window` when one is given.
#[inline]
pub fn accumulate(spans: &[BusyInterval], window: Option<TimeWindow>) -> MomentAccumulator {
    let mut acc = MomentAccumulator::new(window.map_or(0, |w| w.start_ns as i64));
    match window {
        None => acc.add_busy(spans),
        Some(w) => {
            let first = spans.partition_point(|s| s.end_ns <= w.start_ns);
            for s in &spans[first..] {
                if s.start_ns >= w.end_ns {
                    break;
                }
                if let Some(c) = w.clip(*s) {
                    acc.add_interval(signed_ns(c.start_ns), signed_ns(c.end_ns));
                }
            }
        }
    }
    acc
}

/// A busy interval's time as the accumulator's clock (times past `i64::MAX` read as it).
#[inline]
fn signed_ns(t: u64) -> i64 {
    t.min(i64::MAX as u64) as i64
}

/// Moments of every location from precomputed busy intervals (the view keeps those for the Gantt chart).
pub fn moments_of_busy(trace: &Trace, busy: &BusyIntervals, window: Option<TimeWindow>) -> Vec<LocationMoments> {
    (0..trace.locations.len() as u32)
        .map(LocationId)
        .map(|l| LocationMoments::from_accumulator(trace, l, &accumulate(busy.of(l), window)))
        .collect()
}

/// Moments of every location, streaming: busy intervals of one location at a time, never all stored.
pub fn moments(trace: &Trace, definition: &BusyDefinition, window: Option<TimeWindow>) -> Vec<LocationMoments> {
    let mut scanner = BusyScanner::new(trace, definition);
    let mut scratch = Vec::new();
    (0..trace.locations.len() as u32)
        .map(LocationId)
        .map(|l| {
            scanner.location(trace, l, &mut scratch);
            LocationMoments::from_accumulator(trace, l, &accumulate(&scratch, window))
        })
        .collect()
}

/// What the rows are sorted by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum MomentKey {
    #[default]
    Location,
    M0,
    M1,
    M2,
    M3,
}

impl MomentKey {
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "location" => MomentKey::Location,
            "m0" => MomentKey::M0,
            "m1" => MomentKey::M1,
            "m2" => MomentKey::M2,
            "m3" => MomentKey::M3,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            MomentKey::Location => "location",
            MomentKey::M0 => "m0",
            MomentKey::M1 => "m1",
            MomentKey::M2 => "m2",
            MomentKey::M3 => "m3",
        }
    }

    fn value(self, m: &LocationMoments) -> f64 {
        match self {
            MomentKey::Location => m.location as f64,
            MomentKey::M0 => m.m0_ns as f64,
            MomentKey::M1 => m.m1_ns,
            MomentKey::M2 => m.m2_ns,
            MomentKey::M3 => m.m3_ns,
        }
    }
}

/// Sort rows ascending by `key`; ties (and idle locations among themselves) by location index.
/// For m1, m2 and m3, locations never busy go last: their moments are undefined.
pub fn sort_moments(rows: &mut [LocationMoments], key: MomentKey) {
    let undefined = |m: &LocationMoments| !matches!(key, MomentKey::Location | MomentKey::M0) && m.is_idle();
    rows.sort_dyn_by(|a, b| {
        undefined(a)
            .cmp(&undefined(b))
            .then_with(|| key.value(a).total_cmp(&key.value(b)))
            .then(a.location.cmp(&b.location))
    });
}

/// A duration (or time) in ns, in the unit that keeps it readable, with 3 significant decimals.
pub fn format_duration_ns(ns: f64) -> String {
    let a = ns.abs();
    if a >= 1e9 {
        format!("{:.3} s", ns / 1e9)
    } else if a >= 1e6 {
        format!("{:.3} ms", ns / 1e6)
    } else if a >= 1e3 {
        format!("{:.3} us", ns / 1e3)
    } else {
        format!("{ns:.0} ns")
    }
}

/// What a location's moments say, in words, for the hover of the moment view (Table I of the paper), one
/// observation per line. `span` is the time range the moments were computed over.
pub fn interpret(m: &LocationMoments, span: TimeWindow) -> String {
    let len = span.len_ns().max(1) as f64;
    if m.is_idle() {
        return "never busy in this span".to_string();
    }
    let mut parts = Vec::with_capacity(4);
    parts.push(format!(
        "busy {} ({:.1}% of the span)",
        format_duration_ns(m.m0_ns as f64),
        100.0 * m.m0_ns as f64 / len
    ));
    let pos = (m.m1_ns - span.start_ns as f64) / len;
    parts.push(if pos < 0.4 {
        format!("activity early (mean at {:.0}% of the span)", 100.0 * pos)
    } else if pos > 0.6 {
        format!("activity late (mean at {:.0}% of the span)", 100.0 * pos)
    } else {
        format!("activity centred (mean at {:.0}% of the span)", 100.0 * pos)
    });
    let spread = 2.0 * m.m2_ns / (m.m0_ns as f64);
    parts.push(if spread <= 1.05 {
        "one unbroken stretch of work".to_string()
    } else if spread <= 1.5 {
        format!("few short interruptions (spread {spread:.2} x busy time)")
    } else if spread <= 3.0 {
        format!("interrupted: busy time spread over {spread:.1} x its length")
    } else {
        format!("widely spread: long or frequent idle gaps ({spread:.1} x busy time)")
    });
    // Read as the glyph draws it: the skew line (|m3| from m1) against the deviation bar (m2 from m1). A skew
    // line as long as the deviation is plainly skewed on screen, whatever the standardised skewness says
    // (|m3| = m2 is a skewness of only 0.19: the cube root and the scalings compress it).
    let ratio = if m.m2_ns > 0.0 { m.m3_ns.abs() / m.m2_ns } else { 0.0 };
    let (side, tail) = if m.m3_ns > 0.0 {
        ("late", "most work before the mean, a thin tail after it")
    } else {
        ("early", "most work after the mean, a thin tail before it")
    };
    let m3 = format_duration_ns(m.m3_ns);
    parts.push(if ratio < 0.25 {
        "roughly symmetric (skew line short beside m2)".to_string()
    } else if ratio < 0.6 {
        format!("slightly skewed {side} (m3 = {m3}, {:.0}% of m2):\n{tail}", 100.0 * ratio)
    } else {
        format!("skewed {side} (m3 = {m3}, {:.0}% of m2):\n{tail}", 100.0 * ratio)
    });
    parts.join("\n")
}

/// The hover text of a row: its name, the four moments in real units, and [`interpret`]'s reading, a line per
/// observation (so the tooltip stays narrow).
pub fn hover_text(m: &LocationMoments, span: TimeWindow) -> String {
    if m.is_idle() {
        return format!("{}\n{}", m.name, interpret(m, span));
    }
    format!(
        "{}\nm0 {}  m1 {}  m2 {}  m3 {}\n{}",
        m.name,
        format_duration_ns(m.m0_ns as f64),
        format_duration_ns(m.m1_ns),
        format_duration_ns(m.m2_ns),
        format_duration_ns(m.m3_ns),
        interpret(m, span)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol * (1.0 + a.abs().max(b.abs()))
    }

    #[test]
    fn one_bar_has_m2_half_its_length_and_no_skew() {
        let mut acc = MomentAccumulator::new(0);
        acc.add_interval(100, 1100);
        assert_eq!(acc.m0_ns(), 1000);
        assert_eq!(acc.m1_from(0), 600.0);
        assert!(close(acc.m2_ns(), 500.0, 1e-12));
        assert_eq!(acc.m3_ns(), 0.0);
    }

    #[test]
    fn split_bar_equals_whole_bar() {
        let mut whole = MomentAccumulator::new(0);
        whole.add_interval(0, 900);
        let mut parts = MomentAccumulator::new(0);
        for k in 0..9 {
            parts.add_interval(k * 100, (k + 1) * 100);
        }
        assert_eq!(parts.m0_ns(), 900);
        assert!(close(parts.m1_from(0), 450.0, 1e-12));
        assert!(close(parts.m2_ns(), 450.0, 1e-12));
        assert_eq!(parts.m3_ns(), 0.0);
    }

    #[test]
    fn busy_added_a_run_at_a_time_gives_the_same_bits() {
        use weft_samples::nesting::{chunkings, nesting_trace};
        let bits = |a: &MomentAccumulator| {
            let (reference, m0, mean, c2, c3) = a.to_parts();
            (reference, m0, mean.to_bits(), c2.to_bits(), c3.to_bits())
        };
        let traces = [(nesting_trace(1), 1), (weft_samples::utilization::utilization_trace(4, 4 * 61), 2)];
        for (t, seed) in traces {
            let busy = BusyIntervals::compute(&t, &BusyDefinition::Compute);
            let mut skewed = 0;
            for l in 0..t.locations.len() as u32 {
                let spans = busy.of(LocationId(l));
                let whole = accumulate(spans, None);
                skewed += (whole.to_parts().4 != 0.0) as usize;
                for cuts in chunkings(spans.len(), seed) {
                    let mut acc = MomentAccumulator::new(0);
                    cuts.iter().for_each(|c| acc.add_busy(&spans[c.clone()]));
                    assert_eq!(bits(&acc), bits(&whole), "location {l}");
                }
            }
            assert!(skewed > 0, "some location has every moment");
        }
    }

    #[test]
    fn merge_across_references() {
        let mut a = MomentAccumulator::new(0);
        a.add_interval(0, 10);
        let mut b = MomentAccumulator::new(1_000);
        b.add_interval(1_000, 1_010);
        a.merge(&b);
        assert_eq!(a.m0_ns(), 20);
        assert!(close(a.m1_from(0), 505.0, 1e-12));
    }

    #[test]
    fn window_parses_units() {
        assert_eq!(TimeWindow::parse("10:20").unwrap(), TimeWindow { start_ns: 10, end_ns: 20 });
        assert_eq!(TimeWindow::parse("1.5ms:2s").unwrap(), TimeWindow { start_ns: 1_500_000, end_ns: 2_000_000_000 });
        assert_eq!(TimeWindow::parse("0:3 us").unwrap(), TimeWindow { start_ns: 0, end_ns: 3_000 });
        assert!(matches!(TimeWindow::parse("5"), Err(WindowError::Syntax { .. })));
        assert!(matches!(TimeWindow::parse("x:5"), Err(WindowError::Time { .. })));
        assert!(matches!(TimeWindow::parse("5:5"), Err(WindowError::Empty { .. })));
        assert!(matches!(TimeWindow::parse("-1:5"), Err(WindowError::Time { .. })));
    }

    fn row(location: u32, m0: u64, m1: f64, m2: f64, m3: f64) -> LocationMoments {
        LocationMoments { location, name: String::new(), m0_ns: m0, m1_ns: m1, m2_ns: m2, m3_ns: m3 }
    }

    #[test]
    fn sorting_by_moment_puts_idle_last_and_breaks_ties_by_location() {
        let mut rows = vec![row(0, 0, 0.0, 0.0, 0.0), row(1, 10, 50.0, 5.0, 1.0), row(2, 10, 20.0, 5.0, -1.0)];
        sort_moments(&mut rows, MomentKey::M1);
        assert_eq!(rows.iter().map(|r| r.location).collect::<Vec<_>>(), vec![2, 1, 0]);
        sort_moments(&mut rows, MomentKey::M0);
        assert_eq!(rows.iter().map(|r| r.location).collect::<Vec<_>>(), vec![0, 1, 2]);
        sort_moments(&mut rows, MomentKey::M3);
        assert_eq!(rows.iter().map(|r| r.location).collect::<Vec<_>>(), vec![2, 1, 0]);
    }

    #[test]
    fn interpretation_names_early_interrupted_and_skew() {
        let span = TimeWindow { start_ns: 0, end_ns: 1000 };
        let text = interpret(&row(0, 100, 150.0, 200.0, 250.0), span);
        assert!(text.contains("early"), "{text}");
        assert!(text.contains("widely spread"), "{text}");
        assert!(text.contains("skewed late"), "{text}");
        let text = interpret(&row(0, 100, 800.0, 50.0, 0.0), span);
        assert!(text.contains("late (mean"), "{text}");
        assert!(text.contains("unbroken"), "{text}");
        assert!(text.contains("symmetric"), "{text}");
        // A skew line as long as the deviation is no symmetric glyph (its skewness is only 0.19).
        let text = interpret(&row(0, 100, 500.0, 80.0, -80.0), span);
        assert!(text.contains("skewed early") && !text.contains("symmetric"), "{text}");
        let text = interpret(&row(0, 100, 500.0, 80.0, 30.0), span);
        assert!(text.contains("slightly skewed late"), "{text}");
        assert!(text.lines().all(|l| l.chars().count() <= 60), "one short line per observation: {text}");
        assert_eq!(interpret(&row(0, 0, 0.0, 0.0, 0.0), span), "never busy in this span");
    }
}
