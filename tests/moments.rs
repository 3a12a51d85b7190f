//! Moments of utilization: analytic cases, invariants on random busy sets, a numeric-integral oracle,
//! epoch-nanosecond precision, shard and window merging, and the busy-time definitions.

use crate::common;

use common::read::read_path;
use weft::analyses::busy::{BusyDefinition, BusyInterval, BusyIntervals};
use weft::analyses::moments::{accumulate, moments, moments_of_busy, LocationMoments, MomentAccumulator, TimeWindow};
use weft::model::{Format, LocationId, LocationKind, Trace, TraceBuilder};

/// Tiny seeded xorshift64* RNG.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545F4914F6CDD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// One location per entry; each entry a list of (region name, start, duration), times offset by `origin`.
fn trace_of(locations: &[Vec<(&str, i64, u64)>], origin: i64) -> Trace {
    let mut b = TraceBuilder::new(Format::Generated);
    let p = b.process(0);
    for (i, ivs) in locations.iter().enumerate() {
        let l = b.location(p, i as i64, LocationKind::CpuThread);
        for &(name, start, dur) in ivs {
            let r = b.region(name, "");
            b.interval(l, r, origin + start, dur);
        }
    }
    b.finish()
}

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * (1.0 + a.abs().max(b.abs()))
}

fn one(t: &Trace, def: &BusyDefinition) -> LocationMoments {
    moments(t, def, None).remove(0)
}

#[test]
fn one_bar_gives_half_length_deviation_and_no_skew() {
    // A marker region at 0 fixes the trace origin; the bar is on location 1.
    let t = trace_of(&[vec![("mark", 0, 1)], vec![("work", 1000, 4000)]], 1_700_000_000_000_000_000);
    let m = &moments(&t, &BusyDefinition::Compute, None)[1];
    assert_eq!(m.m0_ns, 4000);
    assert_eq!(m.m1_ns, 3000.0);
    assert!(close(m.m2_ns, 2000.0, 1e-12), "{m:?}");
    assert_eq!(m.m3_ns, 0.0);
}

#[test]
fn two_equal_bars() {
    // [0,10) and [30,40): mean 20, mu2 = 15^2 + 10^2/12, symmetric.
    let t = trace_of(&[vec![("a", 0, 10), ("b", 30, 10)]], 0);
    let m = one(&t, &BusyDefinition::Any);
    assert_eq!(m.m0_ns, 20);
    assert!(close(m.m1_ns, 20.0, 1e-12));
    let mu2: f64 = 225.0 + 100.0 / 12.0;
    assert!(close(m.m2_ns, (3.0 * mu2).sqrt(), 1e-12), "{m:?}");
    assert_eq!(m.m3_ns, 0.0);
    assert!(2.0 * m.m2_ns > m.m0_ns as f64);
}

#[test]
fn late_small_segment_gives_positive_skew_and_early_one_negative() {
    let late = one(&trace_of(&[vec![("a", 0, 100), ("b", 190, 10)]], 0), &BusyDefinition::Any);
    assert!(late.m3_ns > 0.0, "{late:?}");
    let early = one(&trace_of(&[vec![("a", 0, 10), ("b", 100, 100)]], 0), &BusyDefinition::Any);
    assert!(early.m3_ns < 0.0, "{early:?}");
    assert!(close(late.m3_ns, -early.m3_ns, 1e-9), "mirror images: {late:?} {early:?}");
}

/// A random location: top-level intervals with properly nested children, some of them MPI calls.
/// Returns the intervals (name, start, dur) and the expected busy indicator per ns cell under `Compute`.
fn random_location(rng: &mut Rng, horizon: u64) -> Vec<(&'static str, i64, u64)> {
    let mut out = Vec::new();
    let mut t = rng.below(50);
    while t < horizon {
        let len = 1 + rng.below(200);
        let top = if rng.below(5) == 0 { "MPI_Wait" } else { "solve" };
        out.push((top, t as i64, len));
        let mut c = t + rng.below(len);
        while c < t + len && rng.below(3) != 0 {
            let clen = 1 + rng.below(t + len - c);
            let name = ["MPI_Send", "kernel", "MPI_Allreduce", "pthread_mutex_lock"][rng.below(4) as usize];
            out.push((name, c as i64, clen));
            c += clen + rng.below(20);
        }
        t += len + rng.below(300);
    }
    out
}

/// Busy indicator on a grid of `sub` cells per ns: any interval covers the cell, and under `compute` the
/// innermost one covering it is not communication (a child is listed after its parent, so the last one
/// written to a cell is its innermost: a kernel inside an MPI call is busy).
fn grid_indicator(ivs: &[(&str, i64, u64)], horizon: u64, sub: u64, compute: bool) -> Vec<bool> {
    let n = (horizon * sub) as usize;
    let mut innermost: Vec<Option<bool>> = vec![None; n];
    for &(name, s, d) in ivs {
        let comm = name.starts_with("MPI_") || name.starts_with("pthread_mutex");
        for c in (s as u64 * sub)..((s as u64 + d) * sub).min(n as u64) {
            innermost[c as usize] = Some(comm);
        }
    }
    innermost.iter().map(|c| matches!(c, Some(comm) if !(compute && *comm))).collect()
}

#[test]
fn numeric_integral_oracle_on_random_inputs() {
    let mut rng = Rng(0x9E3779B97F4A7C15);
    let sub = 4u64;
    let h = 1.0 / sub as f64;
    for case in 0..30 {
        let horizon = 3000;
        let ivs = random_location(&mut rng, horizon);
        let t = trace_of(std::slice::from_ref(&ivs), 0);
        for compute in [true, false] {
            let def = if compute { BusyDefinition::Compute } else { BusyDefinition::Any };
            let m = one(&t, &def);
            let g = grid_indicator(&ivs, horizon + 300, sub, compute);
            // Midpoint rule on the grid (cells never straddle an interval end, which are integers).
            let mids = || g.iter().enumerate().filter(|(_, &b)| b).map(|(c, _)| (c as f64 + 0.5) * h);
            let m0 = mids().count() as f64 * h;
            assert_eq!(m.m0_ns as f64, m0, "case {case}");
            if m0 == 0.0 {
                continue;
            }
            let m1 = mids().sum::<f64>() * h / m0;
            // The midpoint rule under-counts each cell's own spread by h^2/12: add it back.
            let mu2 = mids().map(|x| (x - m1).powi(2)).sum::<f64>() * h / m0 + h * h / 12.0;
            let mu3 = mids().map(|x| (x - m1).powi(3)).sum::<f64>() * h / m0;
            // The trace's times start at its first event; the grid's at 0.
            let m1_abs = m.m1_ns + t.origin_ns as f64;
            assert!(close(m1_abs, m1, 1e-12), "case {case}: m1 {m1_abs} vs {m1}");
            assert!(close(m.m2_ns, (3.0 * mu2).sqrt(), 1e-6), "case {case}: m2 {} vs {}", m.m2_ns, (3.0 * mu2).sqrt());
            let want_m3 = 3.0 * mu3.cbrt();
            assert!((m.m3_ns - want_m3).abs() <= 1e-3 * m.m2_ns, "case {case}: m3 {} vs {want_m3}", m.m3_ns);
        }
    }
}

#[test]
fn twice_m2_is_at_least_m0_on_random_busy_sets() {
    let mut rng = Rng(42);
    for case in 0..500 {
        let n = 1 + rng.below(40);
        let mut acc = MomentAccumulator::new(0);
        let mut t = rng.below(1 << 40) as i64;
        for _ in 0..n {
            let scale = 1 + rng.below(35);
            let len = 1 + rng.below(1 << scale) as i64;
            acc.add_interval(t, t + len);
            let scale = 1 + rng.below(35);
            t += len + 1 + rng.below(1 << scale) as i64;
        }
        let (m0, m2) = (acc.m0_ns() as f64, acc.m2_ns());
        assert!(2.0 * m2 >= m0 * (1.0 - 1e-12), "case {case}: 2*m2 = {} < m0 = {m0}", 2.0 * m2);
    }
}

#[test]
fn epoch_nanosecond_origins_lose_nothing() {
    let mut rng = Rng(7);
    let ivs = random_location(&mut rng, 100_000);
    let near = trace_of(std::slice::from_ref(&ivs), 0);
    let far = trace_of(&[ivs], 1_700_000_000_123_456_789);
    assert_eq!(far.origin_ns - near.origin_ns, 1_700_000_000_123_456_789);
    let (a, b) = (one(&near, &BusyDefinition::Compute), one(&far, &BusyDefinition::Compute));
    assert_eq!(a, b);

    // The accumulator itself, fed absolute epoch times with a nearby reference, matches small offsets.
    let base: i64 = 1_700_000_000_000_000_000;
    let mut abs = MomentAccumulator::new(base);
    let mut small = MomentAccumulator::new(0);
    // Two references a day apart, merged: still exact.
    let mut other = MomentAccumulator::new(base + 86_400_000_000_000);
    for k in 0..1000i64 {
        let (s, e) = (k * 1_000_003, k * 1_000_003 + 1 + (k * 7919) % 500_000);
        abs.add_interval(base + s, base + e);
        small.add_interval(s, e);
    }
    other.add_interval(base + 2_000_000_000, base + 2_000_000_500);
    small.add_interval(2_000_000_000, 2_000_000_500);
    abs.merge(&other);
    assert_eq!(abs.m0_ns(), small.m0_ns());
    assert!(close(abs.m1_from(base), small.m1_from(0), 1e-13));
    assert!(close(abs.m2_ns(), small.m2_ns(), 1e-12));
    assert!(close(abs.m3_ns(), small.m3_ns(), 1e-9));
    // Its m1 in the epoch clock, as an offset from another origin, is exact to the nanosecond too.
    assert!((abs.m1_from(base - 5) - small.m1_from(0) - 5.0).abs() < 1e-3);
}

fn assert_same(a: &MomentAccumulator, b: &MomentAccumulator, what: &str) {
    assert_eq!(a.m0_ns(), b.m0_ns(), "{what}");
    assert!(close(a.m1_from(0), b.m1_from(0), 1e-12), "{what}: m1 {} {}", a.m1_from(0), b.m1_from(0));
    assert!(close(a.m2_ns(), b.m2_ns(), 1e-10), "{what}: m2 {} {}", a.m2_ns(), b.m2_ns());
    assert!((a.m3_ns() - b.m3_ns()).abs() <= 1e-6 * a.m2_ns().max(1.0), "{what}: m3 {} {}", a.m3_ns(), b.m3_ns());
}

#[test]
fn merging_shards_equals_one_pass() {
    let mut rng = Rng(1234);
    for case in 0..50 {
        let ivs = random_location(&mut rng, 1_000_000);
        let t = trace_of(&[ivs], 0);
        let busy = BusyIntervals::compute(&t, &BusyDefinition::Compute);
        let spans = busy.of(LocationId(0));
        let whole = accumulate(spans, None);
        // Random shards, each with its own reference, merged in a random order.
        let k = 1 + rng.below(7) as usize;
        let mut shards: Vec<MomentAccumulator> =
            (0..k).map(|_| MomentAccumulator::new(rng.below(2_000_000) as i64)).collect();
        for s in spans {
            let j = rng.below(k as u64) as usize;
            shards[j].add_interval(s.start_ns as i64, s.end_ns as i64);
        }
        let mut merged = MomentAccumulator::new(0);
        while !shards.is_empty() {
            let j = rng.below(shards.len() as u64) as usize;
            merged.merge(&shards.swap_remove(j));
        }
        assert_same(&whole, &merged, &format!("case {case}: shards"));
        // Adjacent time windows, merged.
        let span = t.span_ns;
        let mut cuts: Vec<u64> = (0..rng.below(6)).map(|_| rng.below(span + 1)).collect();
        cuts.extend([0, span]);
        cuts.sort_unstable();
        cuts.dedup();
        let mut by_window = MomentAccumulator::new(0);
        for w in cuts.windows(2) {
            by_window.merge(&accumulate(spans, Some(TimeWindow { start_ns: w[0], end_ns: w[1] })));
        }
        assert_same(&whole, &by_window, &format!("case {case}: windows {cuts:?}"));
    }
}

#[test]
fn window_refinement_clips_busy_intervals() {
    let t = trace_of(&[vec![("a", 0, 100), ("b", 200, 100)]], 0);
    let w = TimeWindow { start_ns: 50, end_ns: 250 };
    let m = moments(&t, &BusyDefinition::Any, Some(w)).remove(0);
    // Busy [50,100) and [200,250): two equal bars of 50 about 150; m1 still relative to the trace start.
    assert_eq!(m.m0_ns, 100);
    assert!(close(m.m1_ns, 150.0, 1e-12));
    assert!(close(m.m2_ns, (3.0 * (75.0f64.powi(2) + 2500.0 / 12.0)).sqrt(), 1e-12));
    assert_eq!(m.m3_ns, 0.0);
    let empty = moments(&t, &BusyDefinition::Any, Some(TimeWindow { start_ns: 120, end_ns: 180 })).remove(0);
    assert!(empty.is_idle());
}

fn busy_of(t: &Trace, def: BusyDefinition) -> Vec<(u64, u64)> {
    BusyIntervals::compute(t, &def).of(LocationId(0)).iter().map(|s: &BusyInterval| (s.start_ns, s.end_ns)).collect()
}

#[test]
fn busy_definitions_compute_any_and_pattern() {
    let t = trace_of(
        &[vec![
            ("main", 0, 1000),
            ("solve", 10, 300),
            ("MPI_Allreduce", 100, 50),
            ("MPI_Send", 400, 100),
            ("cudaStreamSynchronize", 600, 20),
            ("exchange", 700, 200),
            ("MPI_Wait", 750, 300),
        ]],
        0,
    );
    assert_eq!(busy_of(&t, BusyDefinition::Any), vec![(0, 1000)]);
    assert_eq!(
        busy_of(&t, BusyDefinition::Compute),
        vec![(0, 100), (150, 400), (500, 600), (620, 750), (900, 1000)],
        "MPI, CUDA synchronisation and MPI_Wait (clipped to its parent) are subtracted"
    );
    assert_eq!(busy_of(&t, BusyDefinition::Pattern("MPI_*".into())), vec![(100, 150), (400, 500), (750, 900)]);
    assert_eq!(busy_of(&t, BusyDefinition::Pattern("s?lve".into())), vec![(10, 310)]);
    assert!(busy_of(&t, BusyDefinition::Pattern("nothing".into())).is_empty());
    let m = moments(&t, &BusyDefinition::Compute, None).remove(0);
    assert_eq!(m.m0_ns, 100 + 250 + 100 + 130 + 100);
    assert!(BusyDefinition::Compute.describe().contains("MPI"));
    assert!(BusyDefinition::Pattern("k*".into()).describe().contains("'k*'"));
}

#[test]
fn stored_and_streaming_analyses_agree() {
    let mut rng = Rng(99);
    let locs: Vec<_> = (0..20).map(|_| random_location(&mut rng, 50_000)).collect();
    let t = trace_of(&locs, 1_600_000_000_000_000_000);
    for def in [BusyDefinition::Compute, BusyDefinition::Any, BusyDefinition::Pattern("*MPI*".into())] {
        let busy = BusyIntervals::compute(&t, &def);
        for s in (0..20).map(|l| busy.of(LocationId(l))) {
            assert!(s.windows(2).all(|w| w[0].end_ns < w[1].start_ns), "sorted, disjoint, non-touching");
            assert!(s.iter().all(|b| b.start_ns < b.end_ns));
        }
        assert_eq!(moments_of_busy(&t, &busy, None), moments(&t, &def, None));
    }
}

#[test]
fn real_traces_satisfy_the_invariants() {
    let Some(dir) = common::shared_traces("real_traces_satisfy_the_invariants") else {
        return;
    };
    let mut read = 0;
    // Every file whatever its format: those no reader in this build accepts (or that are parts of an archive
    // rather than its anchor) are skipped; each that reads must satisfy the invariants.
    for path in common::files_under(&dir) {
        let Ok(t) = read_path(&path) else {
            continue;
        };
        read += 1;
        // Both views build, bounded by pixels, for every real trace.
        let busy = BusyIntervals::compute(&t, &BusyDefinition::Compute);
        let rows = moments_of_busy(&t, &busy, None);
        let view = weft::scene::moments::Viewport::fit(t.span_ns, rows.len(), 800.0, 600.0);
        let opts = weft::scene::moments::MomentViewOptions::default();
        let m = weft::scene::moments::build_moment_view(&rows, &view, &opts);
        let g = weft::scene::utilization::build_utilization(&rows, &busy, &view, &Default::default());
        assert!(m.rects.len() + m.lines.len() <= 5 * 600 + 200, "{}", path.display());
        assert!(g.rects.len() <= 600 * 800, "{}", path.display());
        for def in [BusyDefinition::Compute, BusyDefinition::Any] {
            for m in moments(&t, &def, None) {
                let what = format!("{}: {m:?}", path.display());
                assert!(m.m0_ns <= t.span_ns, "{what}");
                if !m.is_idle() {
                    assert!(m.m1_ns >= 0.0 && m.m1_ns <= t.span_ns as f64, "{what}");
                    assert!(2.0 * m.m2_ns >= m.m0_ns as f64 * (1.0 - 1e-9), "{what}");
                }
            }
        }
    }
    if read == 0 {
        eprintln!(
            "SKIPPED real_traces_satisfy_the_invariants: no trace could be read (no reader for them in this build)"
        );
    }
}

#[test]
fn json_rows_have_exactly_the_stable_keys() {
    let t = trace_of(&[vec![("work", 0, 10)], vec![]], 1_700_000_000_000_000_000);
    let rows = moments(&t, &BusyDefinition::Compute, None);
    let v: serde_json::Value = serde_json::to_value(&rows).expect("rows serialise");
    let list = v.as_array().expect("a JSON list");
    assert_eq!(list.len(), 2);
    for (i, row) in list.iter().enumerate() {
        let obj = row.as_object().expect("objects");
        let mut keys: Vec<&str> = obj.keys().map(|k| k.as_str()).collect();
        keys.sort_unstable();
        assert_eq!(keys, ["location", "m0_ns", "m1_ns", "m2_ns", "m3_ns", "name"]);
        assert_eq!(obj["location"].as_u64(), Some(i as u64));
        assert!(obj.values().filter(|v| !v.is_string()).all(|v| v.is_number()), "{obj:?}");
    }
    assert_eq!(list[0]["m0_ns"].as_u64(), Some(10));
    assert_eq!(list[0]["m1_ns"].as_f64(), Some(5.0));
    assert_eq!(list[1]["m0_ns"].as_u64(), Some(0), "an idle location is listed, with zeros");
}
