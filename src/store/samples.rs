//! The counter samples of a streamed index in bounded memory (issue #17): a trace with hardware counters
//! recorded at every ENTER and LEAVE (Score-P with PAPI metrics) holds several samples per event, far more
//! than `--memory` when held to the end as the whole read holds them.
//!
//! The reader's builder hands its samples over a batch at a time, in the order recorded
//! (`model::TraceBuilder::sink_samples`); they wait here until the index's first pass, at its points that
//! hold the spill (each prefix and end of a location, each replayed piece of another shard's log), writes
//! them out as a run sorted by time (and the order recorded) once they pass their share of `--memory`. The
//! counter tiles are cut from the runs merged k ways (one page of each held), a window at a time: the
//! window's samples put in the model's order (series, then time, then the order recorded) and numbered by
//! their series' offset among all samples plus those of the series met in earlier windows. The tiles are
//! the whole build's, byte for byte (`tests/store_stream.rs`). What stays in memory: the samples waiting
//! (their share), a page per run while merging, one window's samples, and per series two counts.
//!
//! Plain Rust, no files (the spill is the caller's).

use super::counters::{series_block_range, series_blocks, CounterPyramid, Level1Bin, SampleRow, WindowCutter};
use super::manifest::{Level, TileEntry, Tiling};
use super::runs::{u32_at, u64_at, Keys, Record, Runs, PAGE_BYTES};
use super::stream::{IndexError, Spill};
use crate::model::SampleSink;
use std::sync::{Arc, Mutex};

/// A counter sample as spilled: ordered by time (source clock), then by the order it was recorded in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Sample {
    time_ns: i64,
    seq: u64,
    series: u32,
    /// The value's bits.
    value: u64,
}

impl Record for Sample {
    const BYTES: usize = 28;
    fn put(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.time_ns.to_le_bytes());
        out.extend_from_slice(&self.seq.to_le_bytes());
        out.extend_from_slice(&self.series.to_le_bytes());
        out.extend_from_slice(&self.value.to_le_bytes());
    }
    fn get(b: &[u8]) -> Self {
        Sample { time_ns: u64_at(b, 0) as i64, seq: u64_at(b, 8), series: u32_at(b, 16), value: u64_at(b, 20) }
    }
}

/// What the builder handed over and the spill has not taken yet, and the counts of all.
#[derive(Default)]
struct Pending {
    samples: Vec<Sample>,
    /// Samples handed over so far (the next one's order).
    seq: u64,
    /// Per series, its samples so far.
    per_series: Vec<u64>,
    /// Whether the samples are kept (the index writes the counter tiles), else only counted.
    keep: bool,
}

/// The builder's end of [`CounterSamples`].
struct Sink(Arc<Mutex<Pending>>);

impl SampleSink for Sink {
    fn take(&mut self, series: &[u32], time_ns: &[i64], value: &[f64]) {
        // (A poisoned lock means a thread panicked holding it: the index fails anyway.)
        let Ok(mut p) = self.0.lock() else { return };
        let p = &mut *p;
        for ((&s, &t), &v) in series.iter().zip(time_ns).zip(value) {
            if p.per_series.len() <= s as usize {
                p.per_series.resize(s as usize + 1, 0);
            }
            p.per_series[s as usize] += 1;
            if p.keep {
                p.samples.push(Sample { time_ns: t, seq: p.seq, series: s, value: v.to_bits() });
            }
            p.seq += 1;
        }
    }
}

/// The counter samples of a streamed index: handed over by the reader's builder, spilled in sorted runs,
/// cut into the counter tiles.
pub struct CounterSamples {
    pending: Arc<Mutex<Pending>>,
    runs: Runs,
    keys: Keys,
    first_key: usize,
    /// Bytes of samples waiting before they go to the spill as a run.
    share: u64,
}

impl CounterSamples {
    /// Samples kept (`keep`: this index writes the counter tiles; else only counted) and written to the
    /// spill in runs of at most `share` bytes under keys from `first_key` on; and the sink to give the
    /// builder.
    pub fn new(keep: bool, first_key: usize, share: u64) -> (CounterSamples, Box<dyn SampleSink>) {
        let pending = Arc::new(Mutex::new(Pending { keep, ..Pending::default() }));
        let page = (share as usize).clamp(Sample::BYTES, PAGE_BYTES);
        let samples =
            CounterSamples { pending: pending.clone(), runs: Runs::new(page), keys: Keys(first_key), first_key, share };
        (samples, Box::new(Sink(pending)))
    }

    fn lock(&self) -> Result<std::sync::MutexGuard<'_, Pending>, IndexError> {
        self.pending.lock().map_err(|_| IndexError::Io("a reading thread panicked".into()))
    }

    /// Bytes of the samples waiting for the spill.
    pub fn held(&self) -> u64 {
        self.pending.lock().map_or(0, |p| p.samples.capacity() as u64 * std::mem::size_of::<Sample>() as u64)
    }

    /// The next spill key free after the runs written.
    pub fn next_key(&self) -> usize {
        self.keys.0
    }

    /// Samples handed over in all.
    pub fn count(&self) -> u64 {
        self.pending.lock().map_or(0, |p| p.seq)
    }

    /// The samples waiting to the spill as a sorted run, when they pass their share (`all`: whatever
    /// their number).
    pub fn spill(&mut self, spill: &mut dyn Spill, all: bool) -> Result<(), IndexError> {
        let mut batch = {
            let mut p = self.lock()?;
            if p.samples.is_empty() || !(all || p.samples.len() as u64 * Sample::BYTES as u64 >= self.share) {
                return Ok(());
            }
            std::mem::take(&mut p.samples)
        };
        // The keys are unique (the order recorded), so any sort gives the one order; a location's samples
        // come in time order, so the batch is a few long runs, which the stable sort merges.
        batch.sort();
        self.runs
            .write(&batch, spill, &mut self.keys)
            .map_err(|e| IndexError::Io(format!("spilling the counter samples: {e}")))
    }

    /// Forget every sample (an index that reads every location again; the spill was cleared).
    pub fn clear(&mut self) -> Result<(), IndexError> {
        let mut p = self.lock()?;
        let keep = p.keep;
        *p = Pending { keep, ..Pending::default() };
        drop(p);
        self.runs = Runs::new(self.runs.page());
        self.keys = Keys(self.first_key);
        Ok(())
    }

    /// The counter tiles (the whole build's `counters::counter_tiles`), to `put`, of the samples spilled
    /// (every one: [`spill`](Self::spill) with `all` first); `origin` is the trace's (source clock), times in
    /// the tiles are from it. The level-0 tiles are cut window by window, each block's level-1 bins going to
    /// the spill under keys from `free_key` on (one per series block); then each block's pyramid is folded
    /// from them. A window's samples are held while its tiles are made, about [`WINDOW_BYTES_PER_SAMPLE`]
    /// each, beside a page of each run and a few counts per series: a window over what `left` bytes leave is
    /// refused, with the `--memory` that would hold it (`memory` is the index's).
    #[allow(clippy::too_many_arguments)]
    pub fn tiles(
        &self,
        spill: &mut dyn Spill,
        free_key: usize,
        origin: i64,
        t: &Tiling,
        levels: &[Level],
        (left, memory): (u64, u64),
        put: &mut dyn FnMut(TileEntry, Vec<u8>) -> Result<(), IndexError>,
    ) -> Result<(), IndexError> {
        let per_series = {
            let p = self.lock()?;
            if !p.samples.is_empty() {
                return Err(IndexError::Io("counter samples were left out of the spill".into()));
            }
            p.per_series.clone()
        };
        let nseries = per_series.len() as u32;
        if levels.is_empty() || per_series.iter().all(|&n| n == 0) {
            return Ok(());
        }
        // Each series' first index among all samples (the model's order: series, then time), and how many
        // of its samples earlier windows took.
        let offset: Vec<u64> = per_series.iter().scan(0u64, |at, &n| Some(std::mem::replace(at, *at + n))).collect();
        let mut seen = vec![0u64; offset.len()];
        let rel = |x: i64| x.saturating_sub(origin).max(0) as u64;
        let merging = self.runs.count() as u64 * self.runs.page() as u64 + offset.len() as u64 * 64;
        let limit = left.saturating_sub(merging);
        let most = (limit / WINDOW_BYTES_PER_SAMPLE).max(1) as usize;
        let mut at_series = Vec::new();
        let mut rows: Vec<SampleRow> = Vec::new();
        let mut cutter = WindowCutter::new(*t, levels[0], nseries);
        let spill_bins = |e: String| IndexError::Io(format!("spilling the counter bins: {e}"));
        let mut cut = |w: u32, window: &mut Vec<Sample>, spill: &mut dyn Spill| -> Result<(), IndexError> {
            // Put in series order by counting (within a series the samples stay in (time, order recorded)),
            // each taking its index among all samples in place of its order recorded.
            at_series.clear();
            at_series.resize(offset.len() + 1, 0usize);
            for s in window.iter() {
                at_series[s.series as usize + 1] += 1;
            }
            for k in 1..at_series.len() {
                at_series[k] += at_series[k - 1];
            }
            rows.clear();
            rows.resize(window.len(), (0, 0, 0, 0.0));
            for s in window.iter() {
                let k = s.series as usize;
                rows[at_series[k]] = (offset[k] + seen[k], s.series, rel(s.time_ns), f64::from_bits(s.value));
                at_series[k] += 1;
                seen[k] += 1;
            }
            window.clear();
            let mut record = Vec::new();
            cutter.window(w, &rows, put, &mut |b, bins| {
                record.clear();
                bins.iter().for_each(|x| x.put(w, &mut record));
                spill.put(free_key + b as usize, &record).map_err(spill_bins)
            })
        };
        let mut merge = self.runs.merge::<Sample>();
        let (mut window, mut w, mut over) = (Vec::new(), 0u32, 0u64);
        let read = |e: String| IndexError::Io(format!("reading the counter samples back: {e}"));
        let refuse = |w: u32, n: u64| {
            let need = memory - limit.min(memory) + n * WINDOW_BYTES_PER_SAMPLE;
            IndexError::Memory(format!(
                "time window {w} holds {n} counter samples, about {} MB while its tiles are made: over --memory \
                 {} MB; use --memory {}M or more",
                (n * WINDOW_BYTES_PER_SAMPLE) >> 20,
                memory >> 20,
                (need >> 20) + 1
            ))
        };
        while let Some(s) = merge.next(&*spill).map_err(read)? {
            let at = t.window_of(rel(s.time_ns));
            // Every window in order: those without samples carry the values in effect.
            while at != w {
                if over > 0 {
                    return Err(refuse(w, over));
                }
                cut(w, &mut window, spill)?;
                w += 1;
            }
            // Past the limit, the window's samples are only counted (to name the memory that holds them).
            if over > 0 || window.len() >= most {
                over = over.max(window.len() as u64) + 1;
                window.clear();
                continue;
            }
            window.push(s);
        }
        if over > 0 {
            return Err(refuse(w, over));
        }
        while w < t.windows {
            cut(w, &mut window, spill)?;
            w += 1;
        }
        // Each block's pyramid, from its level-1 bins read back a piece at a time.
        let per = t.bins_per_tile as u64;
        let piece = (PAGE_BYTES / Level1Bin::BYTES).max(1) * Level1Bin::BYTES;
        let mut out = Vec::new();
        for b in 0..series_blocks(t, nseries) {
            let mut pyramid = CounterPyramid::new(levels, per, b, series_block_range(t, b, nseries));
            let (mut read_at, mut buf, mut next) = (0u64, Vec::<u8>::new(), 0usize);
            let mut bins = Vec::new();
            for w in 0..t.windows {
                bins.clear();
                loop {
                    if next + Level1Bin::BYTES > buf.len() {
                        buf = spill.get_from(free_key + b as usize, read_at, piece).map_err(read)?;
                        read_at += buf.len() as u64;
                        next = 0;
                        if buf.len() < Level1Bin::BYTES {
                            break;
                        }
                    }
                    let (bw, bin) = Level1Bin::get(&buf[next..next + Level1Bin::BYTES]);
                    if bw != w {
                        break;
                    }
                    bins.push(bin);
                    next += Level1Bin::BYTES;
                }
                pyramid.window(w, &bins, &mut out);
                for (e, bytes) in out.drain(..) {
                    put(e, bytes)?;
                }
            }
            pyramid.finish(&mut out);
            for (e, bytes) in out.drain(..) {
                put(e, bytes)?;
            }
        }
        Ok(())
    }
}

/// Bytes a window's sample takes while its tiles are made: the sample, its row in series order, its encoded
/// columns and their compressed copy, and its level-1 bin at most.
pub const WINDOW_BYTES_PER_SAMPLE: u64 =
    std::mem::size_of::<Sample>() as u64 + std::mem::size_of::<SampleRow>() as u64 + 32 + Level1Bin::BYTES as u64;
