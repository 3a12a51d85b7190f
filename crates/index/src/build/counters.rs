//! How the index cuts counter samples into the store's counter tiles (`weft_store::counters` is their codec).
//! [`BlockCutter`] cuts the level-0 tiles and the level-1 bins a window at a time (the whole build from the
//! trace's samples, the streamed index from its sorted runs: the same bytes); [`CounterPyramid`] folds one
//! block's level-1 bins, window after window, into the tiles of every level, holding only the tiles being
//! filled. Plain Rust, no files.

use std::ops::Range;
use weft_store::counters::{
    counter_tile, series_block_range, series_blocks, summary_tile, tile_bins, SampleRow, SeriesBins,
};
use weft_store::format::manifest::{Level, TileEntry, Tiling};

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
    for &SampleRow { series, time_ns: time, value, .. } in samples {
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
                self.last[(s.series - self.series.start) as usize] = Some(*s);
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
        let n = samples[at..].partition_point(|s| s.series < range.end);
        // The block's samples window by window, each window's in series then time order.
        by_window.iter_mut().for_each(Vec::clear);
        for (i, s) in samples[at..at + n].iter().enumerate() {
            by_window[t.window_of(s.time_ns) as usize].push(at + i);
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
