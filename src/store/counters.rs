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
//! [`WindowCutter`] cuts the level-0 tiles and the level-1 bins a window at a time (the whole build from the
//! trace's samples, the streamed index from its sorted runs: the same bytes); [`CounterPyramid`] folds one
//! block's level-1 bins, window after window, into the tiles of every level, holding only the tiles being
//! filled. Plain Rust, no files.

use super::build::deltas;
use super::columns::{ColumnError, ColumnReader, ColumnWriter};
use super::manifest::{Level, TileEntry, TileKind, Tiling};
use super::read::undelta;
use serde::{Deserialize, Serialize};
use std::ops::Range;

/// A sample as a tile holds it: (index in the trace's samples, series, time in ns from the origin, value).
pub type SampleRow = (u64, u32, u64, f64);

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

/// A series' samples in one level-1 bin (`bin`: its index in level 1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Level1Bin {
    pub series: u32,
    pub bin: u64,
    pub count: u64,
    pub min: f64,
    pub max: f64,
    pub last: f64,
}

/// A value as (min, max) extremes: one that is not finite counts as neither.
fn finite(v: f64) -> (f64, f64) {
    if v.is_finite() {
        (v, v)
    } else {
        (f64::INFINITY, f64::NEG_INFINITY)
    }
}

/// The level-1 bins of `samples` (one block's, in series then time order) onto `out`.
pub fn level1_bins(level1: &Level, samples: &[SampleRow], out: &mut Vec<Level1Bin>) {
    let last_bin = level1.bins.saturating_sub(1);
    for &(_, series, time, value) in samples {
        let bin = (time / level1.bin_ns.max(1)).min(last_bin);
        let (lo, hi) = finite(value);
        match out.last_mut() {
            Some(b) if b.series == series && b.bin == bin => {
                b.count += 1;
                b.min = b.min.min(lo);
                b.max = b.max.max(hi);
                b.last = value;
            }
            _ => out.push(Level1Bin { series, bin, count: 1, min: lo, max: hi, last: value }),
        }
    }
}

/// The level-0 counter tile of block `block` in window `w`.
pub fn counter_tile(block: u32, w: u32, own: &[SampleRow], open: &[SampleRow]) -> (TileEntry, Vec<u8>) {
    let mut cw = ColumnWriter::default();
    for rows in [own, open] {
        cw.varint(rows.len() as u64);
        deltas(&mut cw, rows.iter().map(|s| s.0));
        rows.iter().for_each(|s| cw.varint(s.1 as u64));
        deltas(&mut cw, rows.iter().map(|s| s.2));
        put_values(&mut cw, rows.iter().map(|s| s.3));
    }
    super::build::tile(TileKind::Counters, 0, block, w, own.len() as u64, cw)
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
    Ok((0..n).map(|i| (idx[i], s[i], time[i], values[i])).collect())
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
    if let Some(s) = open.iter().find(|s| s.2 >= window.start) {
        return r.error(format!("an open sample at {} ns, not before the window's start {}", s.2, window.start));
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

    fn fold(&mut self, k: usize, count: u64, min: f64, max: f64, last: f64) {
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

fn summary_tile(level: u32, block: u32, j: u32, bins: &[SeriesBins]) -> (TileEntry, Vec<u8>) {
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
    super::build::tile(TileKind::CounterSummary, level, block, j, records, cw)
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

/// Cuts one series block's counter tiles, a window at a time: each window's level-0 tile (its samples and
/// the value each series has at its start) and the block's pyramid, folded from the window's level-1 bins.
pub struct BlockCutter<'a> {
    level1: Level,
    block: u32,
    series: Range<u32>,
    /// Per series of the block, its last sample so far.
    last: Vec<Option<SampleRow>>,
    bins: Vec<Level1Bin>,
    open: Vec<SampleRow>,
    pyramid: CounterPyramid<'a>,
    out: Vec<(TileEntry, Vec<u8>)>,
}

impl<'a> BlockCutter<'a> {
    /// Block `block` of `nseries` series under tiling `t` and its pyramid's `levels` (level 1 first).
    pub fn new(t: &Tiling, levels: &'a [Level], block: u32, nseries: u32) -> Self {
        let series = series_block_range(t, block, nseries);
        BlockCutter {
            level1: levels[0],
            block,
            last: vec![None; series.len()],
            bins: Vec::new(),
            open: Vec::new(),
            pyramid: CounterPyramid::new(levels, t.bins_per_tile as u64, block, series.clone()),
            series,
            out: Vec::new(),
        }
    }

    /// Window `w`'s samples of the block (by series, then time): its level-0 tile when the block is sampled
    /// by the window's end, and the pyramid's tiles that the window completes, to `put`. Called for every
    /// window in order.
    pub fn window<E>(
        &mut self,
        w: u32,
        own: &[SampleRow],
        put: &mut dyn FnMut(TileEntry, Vec<u8>) -> Result<(), E>,
    ) -> Result<(), E> {
        self.open.clear();
        self.open.extend(self.last.iter().flatten());
        self.bins.clear();
        if !own.is_empty() || !self.open.is_empty() {
            let (e, bytes) = counter_tile(self.block, w, own, &self.open);
            put(e, bytes)?;
        }
        if !own.is_empty() {
            level1_bins(&self.level1, own, &mut self.bins);
            for s in own {
                self.last[(s.1 - self.series.start) as usize] = Some(*s);
            }
        }
        self.pyramid.window(w, &self.bins, &mut self.out);
        self.out.drain(..).try_for_each(|(e, bytes)| put(e, bytes))
    }

    /// The pyramid's tiles still being filled, to `put`.
    pub fn finish<E>(mut self, put: &mut dyn FnMut(TileEntry, Vec<u8>) -> Result<(), E>) -> Result<(), E> {
        self.pyramid.finish(&mut self.out);
        self.out.drain(..).try_for_each(|(e, bytes)| put(e, bytes))
    }
}

/// One tile being filled.
struct Filling {
    j: u32,
    bins: Vec<SeriesBins>,
}

/// One series block's pyramid, fed its level-1 bins window after window.
pub struct CounterPyramid<'a> {
    levels: &'a [Level],
    per: u64,
    block: u32,
    series: Range<u32>,
    /// Per series of the block, the last value so far.
    last: Vec<Option<f64>>,
    filling: Vec<Option<Filling>>,
}

impl<'a> CounterPyramid<'a> {
    pub fn new(levels: &'a [Level], per: u64, block: u32, series: Range<u32>) -> Self {
        let last = vec![None; series.len()];
        CounterPyramid { levels, per: per.max(1), block, series, last, filling: levels.iter().map(|_| None).collect() }
    }

    /// Window `w`'s level-1 bins of the block (by series then bin); every window in order.
    pub fn window(&mut self, w: u32, bins: &[Level1Bin], out: &mut Vec<(TileEntry, Vec<u8>)>) {
        let sampled = self.last.iter().any(Option::is_some) || !bins.is_empty();
        for (li, l) in self.levels.iter().enumerate() {
            let j = (((w as u64 * self.per) >> (2 * li)) / self.per).min(l.tiles.saturating_sub(1) as u64) as u32;
            if self.filling[li].as_ref().is_some_and(|f| f.j != j) {
                let f = self.filling[li].take().expect("filling");
                out.push(summary_tile(l.level, self.block, f.j, &f.bins));
            }
            if self.filling[li].is_none() && sampled {
                let nbins = tile_bins(l, self.per, j);
                let bins = self.series.clone().zip(&self.last).map(|(s, &v)| SeriesBins::empty(s, v, nbins)).collect();
                self.filling[li] = Some(Filling { j, bins });
            }
        }
        for b in bins {
            let s = (b.series - self.series.start) as usize;
            for (li, f) in self.filling.iter_mut().enumerate() {
                let Some(f) = f else { continue };
                let nbins = f.bins[s].count.len() as u64;
                let k = ((b.bin >> (2 * li)) - f.j as u64 * self.per).min(nbins.saturating_sub(1)) as usize;
                f.bins[s].fold(k, b.count, b.min, b.max, b.last);
            }
            self.last[s] = Some(b.last);
        }
    }

    /// The tiles still being filled.
    pub fn finish(mut self, out: &mut Vec<(TileEntry, Vec<u8>)>) {
        for (li, l) in self.levels.iter().enumerate() {
            if let Some(f) = self.filling[li].take() {
                out.push(summary_tile(l.level, self.block, f.j, &f.bins));
            }
        }
    }
}

/// Every counter tile of samples already in the model's order (series, then time; times from the origin):
/// block after block, its level-0 tiles window by window, each followed by the pyramid's tiles it completes.
pub fn counter_tiles(series: u32, samples: &[SampleRow], t: &Tiling, levels: &[Level]) -> Vec<(TileEntry, Vec<u8>)> {
    let mut out = Vec::new();
    if samples.is_empty() || levels.is_empty() {
        return out;
    }
    let mut put = |e: TileEntry, bytes: Vec<u8>| -> Result<(), ()> {
        out.push((e, bytes));
        Ok(())
    };
    let (mut at, mut by_window, mut rows) = (0usize, vec![Vec::new(); t.windows as usize], Vec::new());
    for b in 0..series_blocks(t, series) {
        let range = series_block_range(t, b, series);
        let n = samples[at..].partition_point(|s| s.1 < range.end);
        // The block's samples window by window, each window's in series then time order.
        by_window.iter_mut().for_each(Vec::clear);
        for (i, s) in samples[at..at + n].iter().enumerate() {
            by_window[t.window_of(s.2) as usize].push(at + i);
        }
        at += n;
        let mut cutter = BlockCutter::new(t, levels, b, series);
        for (w, idx) in by_window.iter().enumerate() {
            rows.clear();
            rows.extend(idx.iter().map(|&i| samples[i]));
            let _ = cutter.window(w as u32, &rows, &mut put);
        }
        let _ = cutter.finish(&mut put);
    }
    out
}
