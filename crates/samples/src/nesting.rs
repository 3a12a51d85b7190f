//! Generated locations that are hard cases for what is computed from a location's intervals a chunk at a
//! time (`analyses::busy::BusySweep`, `index::build::pyramid::Level1Builder`, `index::build::LocationSummary`),
//! and the ways to cut a location into chunks: the chunked-equality tests compare each against the whole
//! location at once. Built through the TraceBuilder directly: it stands for a trace already read (the tests
//! compare computations, not readers).

use super::rng::XorShift;
use std::ops::Range;
use weft_model::{Format, LocationId, LocationKind, RegionId, Trace, TraceBuilder};
use weft_store::pyramid::MAX_SUMMARY_LANES;

/// The locations of [`nesting_trace`], each one case, in this order.
pub const NESTING_CASES: [&str; 9] = [
    "random nesting",
    "random nesting",
    "random nesting",
    "one main around touching compute and MPI calls",
    "nesting deeper than the summary's lanes",
    "a deepest lane of zero-duration intervals only",
    "zero-duration intervals only",
    "intervals starting together",
    "no intervals",
];

/// A trace of one process whose locations are [`NESTING_CASES`]: nested compute regions (`main`, `solve`,
/// `kernel`) and communication or synchronization ones (`MPI_Send`, `MPI_Allreduce`, `MPI_Wait`,
/// `omp_set_lock`) either way in, zero-duration intervals, intervals touching (one starting where another
/// ends) and starting together. Deterministic in `seed`; times from 0.
pub fn nesting_trace(seed: u64) -> Trace {
    let mut rng = XorShift(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut b = TraceBuilder::new(Format::Generated);
    let names = ["main", "solve", "kernel", "MPI_Send", "MPI_Allreduce", "MPI_Wait", "omp_set_lock"];
    let regions: Vec<RegionId> = names.iter().map(|n| b.region(n, "")).collect();
    let (main, solve, kernel) = (regions[0], regions[1], regions[2]);
    let (send, wait) = (regions[3], regions[5]);
    let p = b.process(0);
    let locations: Vec<LocationId> =
        (0..NESTING_CASES.len() as i64).map(|n| b.location(p, n, LocationKind::CpuThread)).collect();
    for &l in &locations[..3] {
        let mut t = 0;
        for _ in 0..8 {
            let len = rng.range(0, 4000);
            tree(&mut b, &mut rng, &regions, l, t, len, 0);
            // Often no gap: the next top interval touches this one.
            t += len + rng.below(2) * rng.below(300);
        }
    }
    // A main around everything: solve and MPI calls touching each other, MPI calls touching MPI calls (the
    // excluded union merges them), now and then an MPI call inside a solve or a kernel inside an MPI call.
    let l = locations[3];
    let mut t = 10;
    let mut calls = Vec::new();
    for _ in 0..120 {
        let work = rng.range(1, 300);
        calls.push((solve, t, work));
        if rng.below(4) == 0 {
            calls.push((send, t + work / 3, work / 3));
        }
        t += work;
        let comm = rng.range(1, 200);
        calls.push((wait, t, comm));
        if rng.below(4) == 0 {
            calls.push((kernel, t + comm / 2, comm / 2));
        }
        t += comm;
        if rng.below(3) == 0 {
            calls.push((send, t, rng.range(0, 50)));
            t += calls.last().map_or(0, |c| c.2);
        }
        t += rng.below(2) * rng.below(40);
    }
    b.interval(l, main, 0, t + 10);
    for (r, s, d) in calls {
        b.interval(l, r, s as i64, d);
    }
    // Deeper than the summary keeps, a zero-duration interval deepest and one halfway.
    let l = locations[4];
    let depth = MAX_SUMMARY_LANES as u64 + 6;
    for d in 0..depth {
        b.interval(l, regions[(d % 7) as usize], d as i64 * 3, 1000 - d * 6);
    }
    b.interval(l, wait, depth as i64 * 3 + 5, 0);
    b.interval(l, kernel, 1000, 0);
    b.interval(l, send, 1000, 300);
    // Lanes 0 and 1 with time, lane 2 with zero-duration intervals only.
    let l = locations[5];
    b.interval(l, main, 0, 900);
    for k in 0..6 {
        let s = 20 + k * 140;
        b.interval(l, regions[1 + (k % 6) as usize], s, 100);
        b.interval(l, kernel, s + 30, 0);
        b.interval(l, wait, s + 100, 0);
    }
    let l = locations[6];
    for k in 0..20 {
        b.interval(l, regions[k % 7], (k as i64 / 3) * 50, 0);
    }
    // Intervals starting together, longer first: same start and end, zero-duration at the same start.
    let l = locations[7];
    for k in 0..5 {
        let s = k * 400;
        b.interval(l, solve, s, 300);
        b.interval(l, wait, s, 300);
        b.interval(l, kernel, s, 200);
        b.interval(l, send, s, 200);
        b.interval(l, main, s, 0);
        b.interval(l, wait, s + 200, 100);
        b.interval(l, solve, s + 300, 100);
    }
    b.finish()
}

/// An interval of a random region over `[start, start + len)` at `depth`, and children inside it: often from
/// its start, some of zero duration, some reaching its end, siblings often touching.
fn tree(
    b: &mut TraceBuilder,
    rng: &mut XorShift,
    regions: &[RegionId],
    l: LocationId,
    start: u64,
    len: u64,
    depth: u32,
) {
    b.interval(l, regions[rng.below(regions.len() as u64) as usize], start as i64, len);
    if depth >= 7 || len == 0 {
        return;
    }
    let end = start + len;
    let mut t = start + rng.below(2) * rng.below(len / 4 + 1);
    while t < end && rng.below(5) != 0 {
        let room = end - t;
        let child = match rng.below(6) {
            0 => 0,
            1 => room,
            _ => rng.below(room + 1),
        };
        tree(b, rng, regions, l, t, child, depth + 1);
        t += child + rng.below(2) * rng.below(room / 4 + 1);
    }
}

/// Ways to cut `len` records into consecutive chunks, each as its index ranges: every chunk of 1, of 2, of 3,
/// of 7, all in one, and random cuts (empty chunks among them), deterministic in `seed`.
pub fn chunkings(len: usize, seed: u64) -> Vec<Vec<Range<usize>>> {
    let even = |n: usize| (0..len.div_ceil(n)).map(|k| k * n..((k + 1) * n).min(len)).collect::<Vec<_>>();
    let mut out: Vec<Vec<Range<usize>>> = [1, 2, 3, 7].into_iter().map(even).collect();
    out.push(std::iter::once(0..len).collect());
    let mut rng = XorShift(seed.wrapping_mul(0xD1B5_4A32_D192_ED03) | 1);
    for most in [4, 40] {
        let mut cuts = Vec::new();
        let mut at = 0;
        while at < len {
            let n = (rng.below(most) as usize).min(len - at);
            cuts.push(at..at + n);
            at += n;
        }
        out.push(cuts);
    }
    out
}
