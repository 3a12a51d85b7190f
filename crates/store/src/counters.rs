//! Counter tiles (issue #17; store format 4): a trace's counter series (OTF2 metrics, Chrome `C` events,
//! Paraver counters) cut by *series block* (`tiling.block_series` series by series index, [`block_series`]) and time, so a
//! view fetches only the visible tracks' tiles, and a pyramid of per-bin figures so any zoom is drawn from
//! O(tracks x pixels) values, as the location rows are.
//!
//! - level 0, `c/b{S}/w{W}`: the samples of block S's series in window W (the model's order: series, then
//!   time), then, per series of the block sampled before W, its last sample before W's start (the value in
//!   effect there), so a view of W needs no tile before it;
//! - pyramid, `k/l{L}/b{S}/t{J}` (the location summaries' levels and tiles): per series of the block, the
//!   value in effect at the tile's start, then per bin the samples in it and, for bins holding any, their
//!   smallest and largest finite values and the last value.
//!
//! A block has a tile of a window (or of a level's tile) once any of its series has been sampled by then.
//! This file is the tiles' codec (each kind's encoder beside its decoder); how the index cuts a trace's samples
//! into them is `weft_index::build::counters`. Plain Rust, no files.

use crate::format::columns::deltas;
use crate::format::columns::undelta;
use crate::format::columns::{ColumnError, ColumnReader, ColumnWriter};
use crate::format::manifest::{Level, TileEntry, TileKind, Tiling};
use serde::{Deserialize, Serialize};
use std::ops::Range;

/// A sample as a tile holds it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SampleRow {
    /// Its index in the trace's samples.
    pub index: u64,
    pub series: u32,
    /// ns from the origin.
    pub time_ns: u64,
    pub value: f64,
}

/// Series per counter block for `nseries` series of `nlocations` locations in blocks of `block_locations`:
/// as many series as a location block's locations have, about (a trace with counters per location, as
/// Score-P's, gets a counter block per location block), at least `block_locations`.
pub fn block_series(block_locations: u32, nseries: u32, nlocations: u32) -> u32 {
    block_locations.max(1).saturating_mul(nseries.div_ceil(nlocations.max(1)).max(1))
}

/// Series blocks of a store with `nseries` counter series.
pub fn series_blocks(t: &Tiling, nseries: u32) -> u32 {
    nseries.div_ceil(t.block_series.max(1))
}

/// The series of block `b`.
pub fn series_block_range(t: &Tiling, b: u32, nseries: u32) -> Range<u32> {
    let n = t.block_series.max(1);
    let start = b.saturating_mul(n).min(nseries);
    start..start.saturating_add(n).min(nseries)
}

/// A decoded level-0 counter tile (times from the origin).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CounterTile {
    pub window_ns: Range<u64>,
    /// The block's samples in the window, by series then time.
    pub samples: Vec<SampleRow>,
    /// Per series sampled before the window, its last sample before the window's start (format 4).
    pub open: Vec<SampleRow>,
}

/// The level-0 counter tile of block `block` in window `w`.
pub fn counter_tile(block: u32, w: u32, own: &[SampleRow], open: &[SampleRow]) -> (TileEntry, Vec<u8>) {
    let mut cw = ColumnWriter::default();
    for rows in [own, open] {
        cw.varint(rows.len() as u64);
        deltas(&mut cw, rows.iter().map(|s| s.index));
        rows.iter().for_each(|s| cw.varint(s.series as u64));
        deltas(&mut cw, rows.iter().map(|s| s.time_ns));
        put_values(&mut cw, rows.iter().map(|s| s.value));
    }
    crate::format::tile::tile(TileKind::Counters, 0, block, w, own.len() as u64, cw)
}

/// Whole numbers below 2^53 in magnitude: what counters mostly are (PAPI's accumulated counts).
fn whole(v: f64) -> bool {
    v.fract() == 0.0 && v.abs() < (1u64 << 53) as f64 && !(v == 0.0 && v.is_sign_negative())
}

/// A value column: `1` then each value's difference from the one before as a signed varint where every value
/// is a whole number (a counter's values rise by small steps: a few bytes each), else `0` then each value's
/// bit pattern.
fn put_values(w: &mut ColumnWriter, v: impl Iterator<Item = f64> + Clone) {
    if v.clone().all(whole) {
        w.varint(1);
        let mut prev = 0i64;
        for x in v {
            // Both below 2^53 in magnitude: the difference fits.
            w.signed(x as i64 - prev);
            prev = x as i64;
        }
    } else {
        w.varint(0);
        v.for_each(|x| w.varint(x.to_bits()));
    }
}

fn get_values(r: &mut ColumnReader, n: usize) -> Result<Vec<f64>, ColumnError> {
    let limit = 1i64 << 53;
    match r.varint()? {
        1 => {
            let mut prev = 0i64;
            let mut out = Vec::with_capacity(n);
            for _ in 0..n {
                let d = r.signed()?;
                prev = match prev.checked_add(d) {
                    Some(x) if x.abs() < limit => x,
                    _ => return r.error("a counter value out of range"),
                };
                out.push(prev as f64);
            }
            Ok(out)
        }
        0 => (0..n).map(|_| r.varint().map(f64::from_bits)).collect(),
        m => r.error(format!("counter value encoding {m} (0 or 1)")),
    }
}

fn rows(r: &mut ColumnReader, series: &Range<u32>, v4: bool) -> Result<Vec<SampleRow>, ColumnError> {
    let n = r.count(4)?;
    let idx = undelta(r, n)?;
    let mut s = Vec::with_capacity(n);
    for _ in 0..n {
        let v = r.varint()?;
        if v < series.start as u64 || v >= series.end as u64 {
            return r.error(format!("counter series {v} is not one of the tile's ({}..{})", series.start, series.end));
        }
        s.push(v as u32);
    }
    let time = undelta(r, n)?;
    // (Format 3 kept each value's bit pattern.)
    let values = if v4 {
        get_values(r, n)?
    } else {
        (0..n).map(|_| r.varint().map(f64::from_bits)).collect::<Result<_, _>>()?
    };
    Ok((0..n).map(|i| SampleRow { index: idx[i], series: s[i], time_ns: time[i], value: values[i] }).collect())
}

/// A level-0 counter tile's payload: of the series `series` (the block's; every series in a format-3 tile),
/// over `window`; `with_open`: format 4 (format 3 kept no open section, and each value's bit pattern).
pub fn decode_counter_tile(
    payload: &[u8],
    series: Range<u32>,
    window: Range<u64>,
    with_open: bool,
) -> Result<CounterTile, ColumnError> {
    let mut r = ColumnReader::new(payload);
    let samples = rows(&mut r, &series, with_open)?;
    let open = if with_open { rows(&mut r, &series, true)? } else { Vec::new() };
    if let Some(s) = open.iter().find(|s| s.time_ns >= window.start) {
        return r.error(format!("an open sample at {} ns, not before the window's start {}", s.time_ns, window.start));
    }
    if !r.at_end() {
        return r.error("bytes after the last column");
    }
    Ok(CounterTile { window_ns: window, samples, open })
}

/// The bins of one series over a range of a level's bins (a counter summary tile's, or an answer's).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SeriesBins {
    pub series: u32,
    /// The value in effect at the first bin's start (the last sample before it), if any.
    pub before: Option<f64>,
    /// Per bin: the samples in it; their smallest and largest finite values (infinite where none is
    /// finite) and the last one's value, meaningful where the count is not 0.
    pub count: Vec<u64>,
    pub min: Vec<f64>,
    pub max: Vec<f64>,
    pub last: Vec<f64>,
}

impl SeriesBins {
    pub fn empty(series: u32, before: Option<f64>, nbins: usize) -> Self {
        SeriesBins {
            series,
            before,
            count: vec![0; nbins],
            min: vec![f64::INFINITY; nbins],
            max: vec![f64::NEG_INFINITY; nbins],
            last: vec![0.0; nbins],
        }
    }

    pub fn fold(&mut self, k: usize, count: u64, min: f64, max: f64, last: f64) {
        self.count[k] += count;
        self.min[k] = self.min[k].min(min);
        self.max[k] = self.max[k].max(max);
        self.last[k] = last;
    }

    /// The value in effect at the end of bin `k`: the last sample at or before it (None before the first).
    pub fn in_effect_after(&self, k: usize) -> Option<f64> {
        let k = k.min(self.count.len().saturating_sub(1));
        (0..self.count.len().min(k + 1)).rev().find(|&i| self.count[i] > 0).map_or(self.before, |i| Some(self.last[i]))
    }

    /// The series' samples, smallest and largest finite value over these bins (None: no finite value).
    pub fn totals(&self) -> (u64, Option<(f64, f64)>) {
        let n = self.count.iter().sum();
        let (lo, hi) = (0..self.count.len())
            .filter(|&k| self.count[k] > 0)
            .fold((f64::INFINITY, f64::NEG_INFINITY), |a, k| (a.0.min(self.min[k]), a.1.max(self.max[k])));
        (n, (lo <= hi).then_some((lo, hi)))
    }
}

/// A decoded counter summary tile: its first bin (index within its level) and each series of its block.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CounterBinsTile {
    pub first_bin: u64,
    pub series: Vec<SeriesBins>,
}

pub fn summary_tile(level: u32, block: u32, j: u32, bins: &[SeriesBins]) -> (TileEntry, Vec<u8>) {
    let mut cw = ColumnWriter::default();
    cw.varint(bins.len() as u64);
    let nbins = bins.first().map_or(0, |b| b.count.len());
    cw.varint(nbins as u64);
    bins.iter().for_each(|b| cw.varint(b.before.is_some() as u64));
    bins.iter().filter_map(|b| b.before).for_each(|v| cw.varint(v.to_bits()));
    bins.iter().for_each(|b| b.count.iter().for_each(|&n| cw.varint(n)));
    let full = || bins.iter().flat_map(|b| (0..nbins).filter(|&k| b.count[k] > 0).map(move |k| (b, k)));
    full().for_each(|(b, k)| cw.varint(b.min[k].to_bits()));
    full().for_each(|(b, k)| cw.varint(b.max[k].to_bits()));
    full().for_each(|(b, k)| cw.varint(b.last[k].to_bits()));
    let records = full().count() as u64;
    crate::format::tile::tile(TileKind::CounterSummary, level, block, j, records, cw)
}

/// A counter summary tile's payload: of the series `series` (its block's), with `nbins` bins from
/// `first_bin` on.
pub fn decode_counter_summary(
    payload: &[u8],
    series: Range<u32>,
    first_bin: u64,
    nbins: usize,
) -> Result<CounterBinsTile, ColumnError> {
    let mut r = ColumnReader::new(payload);
    let n = r.varint()?;
    if n != series.len() as u64 {
        return r.error(format!("{n} series, the block has {}", series.len()));
    }
    let nb = r.varint()?;
    if nb != nbins as u64 {
        return r.error(format!("{nb} bins, the tile has {nbins}"));
    }
    let flags: Vec<u64> = (0..series.len()).map(|_| r.below(2, "a before flag")).collect::<Result<_, _>>()?;
    let mut out: Vec<SeriesBins> = Vec::with_capacity(series.len());
    for (k, s) in series.clone().enumerate() {
        let before = if flags[k] == 1 { Some(f64::from_bits(r.varint()?)) } else { None };
        out.push(SeriesBins::empty(s, before, nbins));
    }
    for b in &mut out {
        for k in 0..nbins {
            b.count[k] = r.varint()?;
        }
    }
    let full: Vec<(usize, usize)> =
        (0..out.len()).flat_map(|i| (0..nbins).map(move |k| (i, k))).filter(|&(i, k)| out[i].count[k] > 0).collect();
    for column in 0..3 {
        for &(i, k) in &full {
            let v = f64::from_bits(r.varint()?);
            match column {
                0 => out[i].min[k] = v,
                1 => out[i].max[k] = v,
                _ => out[i].last[k] = v,
            }
        }
    }
    if !r.at_end() {
        return r.error("bytes after the last column");
    }
    Ok(CounterBinsTile { first_bin, series: out })
}

/// The bins a counter summary tile `j` of `level` holds.
pub fn tile_bins(level: &Level, per: u64, j: u32) -> usize {
    let first = j as u64 * per;
    per.min(level.bins.saturating_sub(first)) as usize
}
