//! The wait states of a store (format 6, issue #53): the waits tile of a location block (`w/b{B}`), every
//! wait of the block's locations, and the manifest's `waits` summary (per pattern, per location and pattern,
//! per region and pattern), so `weft waits STORE` answers from the manifest and a window or the critical path
//! from the tiles. The index computes them (`weft_index::waits`); this is their codec.
//!
//! Plain Rust, no files: the page's worker decodes the same tiles.

use crate::format::columns::{ColumnError, ColumnReader, ColumnWriter};
use crate::format::manifest::Manifest;
use serde::{Deserialize, Serialize};
use std::ops::Range;

/// The patterns by their code in a store (their `weft waits --json` keys; the order of
/// `analyses::diagnosis::Pattern::ALL`).
pub const PATTERN_KEYS: [&str; 10] = [
    "late_sender",
    "late_receiver",
    "wait_at_barrier",
    "wait_at_nxn",
    "late_broadcast",
    "early_reduce",
    "omp_barrier",
    "nccl_collective",
    "gpu_synchronize",
    "thread_wait",
];

/// One wait as a waits tile holds it (ids global, times from the origin).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct WaitRecord {
    pub location: u32,
    /// The waiting call's enter.
    pub start_ns: u64,
    /// Its code in [`PATTERN_KEYS`].
    pub pattern: u8,
    /// The waiting call: its index in the trace's intervals.
    pub call: u64,
    /// The end of the waiting (`start_ns` + w).
    pub end_ns: u64,
    /// The call's region.
    pub region: u32,
    /// Who it waits for, if anyone.
    pub cause: Option<u32>,
    /// The time on `cause` that ends the wait (where the critical path jumps).
    pub cause_ns: u64,
}

/// The manifest's `waits` (format 6 on; absent in a store built before wait states): totals by pattern
/// code, per location and per region, sparse (zeros left out), and the root causes.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WaitSummary {
    /// Per pattern code: `[total_ns, instances]`.
    pub patterns: Vec<[u64; 2]>,
    /// `[pattern, location, ns, instances]`, by pattern then location.
    pub per_location: Vec<[u64; 4]>,
    /// `[pattern, region, ns]`, by pattern then region (a report sums regions of one name).
    pub by_region: Vec<[u64; 3]>,
    /// `[pattern, waiting location, causing location, name (string id), ns]` of the root causes, summed over
    /// the waits, as `weft waits` orders them (ns descending, then the others).
    pub root_causes: Vec<[u64; 5]>,
    /// Per location, `[first interval's start, last end]` (`[0, 0]` without intervals): the time a wait's
    /// share is of (`diagnosis::waits::location_time`), clipped to a window.
    pub spans: Vec<[u64; 2]>,
}

impl WaitSummary {
    /// Checked against the manifest's definitions (ids in range, one entry per pattern).
    pub fn check(&self, m: &Manifest) -> Result<(), String> {
        let (np, nl, nr, ns) = (
            PATTERN_KEYS.len() as u64,
            m.locations.process.len() as u64,
            m.regions.name.len() as u64,
            m.strings.len() as u64,
        );
        if self.patterns.len() as u64 != np {
            return Err(format!("waits: {} patterns, the store format has {np}", self.patterns.len()));
        }
        if self.per_location.iter().any(|e| e[0] >= np || e[1] >= nl) {
            return Err("waits: a location or pattern out of range".into());
        }
        if self.by_region.iter().any(|e| e[0] >= np || e[1] >= nr) {
            return Err("waits: a region or pattern out of range".into());
        }
        if self.spans.len() as u64 != nl || self.spans.iter().any(|s| s[0] > s[1]) {
            return Err("waits: the locations' spans do not match the locations".into());
        }
        if self.root_causes.iter().any(|e| e[0] >= np || e[1] >= nl || e[2] >= nl || e[3] >= ns) {
            return Err("waits: a root cause names something out of range".into());
        }
        Ok(())
    }
}

/// The waits tile of a block of locations `locs`: `waits` sorted by location, then start, each with its root
/// causes (`causes`: per wait, (region name's string id, ns) by name).
pub fn encode_waits(waits: &[WaitRecord], causes: &[Vec<(u32, u64)>], locs: &Range<u32>) -> ColumnWriter {
    let mut w = WaitsWriter::new(locs.start);
    for (x, c) in waits.iter().zip(causes) {
        w.push(x, c);
    }
    w.finish()
}

/// [`encode_waits`] a wait at a time (an index that sorts its waits in runs hands them over in order
/// without holding them): each column written as the waits come, joined at the end.
pub struct WaitsWriter {
    first_location: u32,
    n: u64,
    /// location, pattern, call, start, length, region, cause, cause's time, root causes.
    columns: [ColumnWriter; 9],
    prev_call: u64,
    prev_start: u64,
}

impl WaitsWriter {
    /// The waits tile of the block whose first location is `first_location`.
    pub fn new(first_location: u32) -> WaitsWriter {
        WaitsWriter { first_location, n: 0, columns: Default::default(), prev_call: 0, prev_start: 0 }
    }

    /// The next wait (in the tile's order: by location, start, pattern, call) with its root causes.
    pub fn push(&mut self, x: &WaitRecord, causes: &[(u32, u64)]) {
        let c = &mut self.columns;
        self.n += 1;
        c[0].varint((x.location - self.first_location) as u64);
        c[1].varint(x.pattern as u64);
        c[2].signed(x.call.wrapping_sub(self.prev_call) as i64);
        self.prev_call = x.call;
        c[3].signed(x.start_ns.wrapping_sub(self.prev_start) as i64);
        self.prev_start = x.start_ns;
        c[4].varint(x.end_ns - x.start_ns);
        c[5].varint(x.region as u64);
        c[6].varint(x.cause.map_or(0, |c| c as u64 + 1));
        c[7].signed(x.cause_ns.wrapping_sub(x.start_ns) as i64);
        c[8].varint(causes.len() as u64);
        for &(name, ns) in causes {
            c[8].varint(name as u64);
            c[8].varint(ns);
        }
    }

    /// Waits pushed.
    pub fn len(&self) -> u64 {
        self.n
    }

    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    pub fn finish(self) -> ColumnWriter {
        let mut w = ColumnWriter::default();
        w.varint(self.n);
        for c in self.columns {
            w.buf.extend_from_slice(&c.buf);
        }
        w
    }
}

/// A waits tile's records ([`encode_waits`] wrote it), every id checked against the manifest.
/// (Each wait with its root causes.)
pub type WaitsTile = (Vec<WaitRecord>, Vec<Vec<(u32, u64)>>);

pub fn decode_waits(payload: &[u8], locs: Range<u32>, m: &Manifest) -> Result<WaitsTile, ColumnError> {
    let mut r = ColumnReader::new(payload);
    let n = r.count(8)?;
    let (nl, nr) = (m.locations.process.len() as u64, m.regions.name.len() as u64);
    let loc: Vec<u64> = (0..n).map(|_| r.below(locs.len() as u64, "location")).collect::<Result<_, _>>()?;
    let pattern: Vec<u64> = (0..n).map(|_| r.below(PATTERN_KEYS.len() as u64, "pattern")).collect::<Result<_, _>>()?;
    let mut out = Vec::with_capacity(n);
    let (mut call, mut start) = (Vec::with_capacity(n), Vec::with_capacity(n));
    let mut prev = 0u64;
    for _ in 0..n {
        let d = r.signed()?;
        prev = r.add(prev, d)?;
        if prev >= m.counts.intervals {
            return r.error(format!("call {prev} out of range (there are {} intervals)", m.counts.intervals));
        }
        call.push(prev);
    }
    prev = 0;
    for _ in 0..n {
        let d = r.signed()?;
        prev = r.add(prev, d)?;
        start.push(prev);
    }
    let mut end = Vec::with_capacity(n);
    for &s in &start {
        let d = r.varint()?;
        match s.checked_add(d) {
            Some(e) => end.push(e),
            None => return r.error("wait end out of range"),
        }
    }
    let region: Vec<u64> = (0..n).map(|_| r.below(nr, "region")).collect::<Result<_, _>>()?;
    let cause: Vec<u64> = (0..n).map(|_| r.below(nl + 1, "cause")).collect::<Result<_, _>>()?;
    for i in 0..n {
        let d = r.signed()?;
        let cause_ns = r.add(start[i], d)?;
        out.push(WaitRecord {
            location: locs.start + loc[i] as u32,
            start_ns: start[i],
            pattern: pattern[i] as u8,
            call: call[i],
            end_ns: end[i],
            region: region[i] as u32,
            cause: (cause[i] > 0).then(|| cause[i] as u32 - 1),
            cause_ns,
        });
    }
    let ns = m.strings.len() as u64;
    let mut causes = Vec::with_capacity(n);
    for _ in 0..n {
        let k = r.count(2)?;
        let mut c = Vec::with_capacity(k);
        for _ in 0..k {
            c.push((r.below(ns, "name")? as u32, r.varint()?));
        }
        causes.push(c);
    }
    if !r.at_end() {
        return r.error("bytes after the last column");
    }
    Ok((out, causes))
}

/// A wait's root-cause costs (`diagnosis::root_causes`, Boehme's short-term cost): its waiting `wait` (inside
/// the window asked about) shared among the region names of its positive `delays` ((name, delay) pairs) in
/// proportion to them, rounded down, what rounding leaves to the largest delay (ties: the first name), so
/// they sum to the wait; as (name, ns) where ns > 0, largest delay first.
pub fn costs<'n>(delays: &[(u32, u64)], wait: u64, name: impl Fn(u32) -> &'n str) -> Vec<(u32, u64)> {
    let total: u128 = delays.iter().map(|&(_, d)| d as u128).sum();
    if total == 0 {
        return Vec::new();
    }
    let mut sorted: Vec<(u32, u64)> = delays.iter().copied().filter(|&(_, d)| d > 0).collect();
    sorted.sort_unstable_by(|a, b| b.1.cmp(&a.1).then_with(|| name(a.0).cmp(name(b.0))));
    let shares: Vec<u64> = sorted.iter().map(|&(_, d)| (wait as u128 * d as u128 / total) as u64).collect();
    let rest = wait - shares.iter().sum::<u64>();
    sorted
        .iter()
        .zip(shares)
        .enumerate()
        .map(|(k, (&(n, _), s))| (n, s + if k == 0 { rest } else { 0 }))
        .filter(|&(_, ns)| ns > 0)
        .collect()
}

/// A wait summary tile (`v/l{L}/b{B}/t{J}`, format 6): the waiting time (every pattern) per location of
/// its block and bin of the tile (tile J of a level holds its bins `J*256 ..`), location-major.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WaitBinsTile {
    pub bins: usize,
    /// `locations x bins` ns.
    pub ns: Vec<u64>,
}

impl WaitBinsTile {
    /// Location `k`'s (within the block) bins.
    pub fn row(&self, k: usize) -> &[u64] {
        self.ns.get(k * self.bins..(k + 1) * self.bins).unwrap_or(&[])
    }
}

/// A wait summary tile of a block of `nloc` locations whose tile holds `bins` bins of its level.
pub fn decode_wait_bins(payload: &[u8], nloc: usize, bins: u64) -> Result<WaitBinsTile, ColumnError> {
    let mut r = ColumnReader::new(payload);
    let n = r.varint()?;
    if n != nloc as u64 {
        return r.error(format!("{n} locations, the block has {nloc}"));
    }
    let b = r.varint()?;
    if b != bins {
        return r.error(format!("{b} bins, the level's tile has {bins}"));
    }
    let count = nloc.checked_mul(bins as usize).filter(|&c| c <= payload.len());
    let Some(count) = count else { return r.error(format!("{nloc} x {bins} bins in {} bytes", payload.len())) };
    let ns = (0..count).map(|_| r.varint()).collect::<Result<Vec<_>, _>>()?;
    if !r.at_end() {
        return r.error("bytes after the last bin");
    }
    Ok(WaitBinsTile { bins: bins as usize, ns })
}
