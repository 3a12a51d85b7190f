//! The counter samples of a streamed index in bounded memory (issue #17): a trace with hardware counters
//! recorded at every ENTER and LEAVE (Score-P with PAPI metrics) holds several samples per event, far more
//! than `--memory` when held to the end as the whole read holds them.
//!
//! The reader's builder hands its samples over a batch at a time, in the order recorded
//! (`model::TraceBuilder::sink_samples`); they wait here until the index's first pass, at its points that
//! hold the spill (each prefix and end of a location, each replayed piece of another shard's log; each chunk
//! of a Chrome JSON or Paraver read, into a spill of their own), writes them out once they pass their share
//! of `--memory` as a run sorted in the model's order (series, then time, then the order recorded), noting
//! where each series' section starts. The counter tiles are cut series block after series block, a window
//! at a time: each of the block's series takes its samples in the window from its sections of every run,
//! merged by time (a page of each held), numbered by the series' offset among all samples plus those of the
//! series met in earlier windows; each window's level-1 bins are folded into the block's pyramid as they
//! come. The tiles are the whole build's, byte for byte and in its order (`tests/store_stream.rs`).
//! What stays in memory: the samples waiting (their share), each run's sections, a page per section of the
//! block being cut, one window of that block's samples, and per series two counts: not the samples of a
//! window across all blocks, which grow with the locations.
//!
//! Plain Rust, no files (the spill is the caller's).

use crate::build::counters::{BlockCutter, Level1Bin};
use crate::error::IndexError;
use crate::spill::runs::{u32_at, u64_at, Keys, Record, PAGE_BYTES};
use crate::spill::{MemorySpill, Spill};
use std::sync::{Arc, Mutex};
use weft_model::sort::KMerge;
use weft_model::SampleSink;
use weft_store::counters::{series_block_range, series_blocks, SampleRow};
use weft_store::format::manifest::{Level, TileEntry, Tiling};

/// A counter sample as spilled: ordered by series, then time (source clock), then the order it was recorded
/// in (the model's order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Sample {
    series: u32,
    time_ns: i64,
    seq: u64,
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
    /// Samples a run holds at most, with a batch over: the buffer grows with the samples handed over, by
    /// doubling up to this and never past it (reserved whole at the first batch, a `--memory` of 1024G
    /// reserved 32 GB for a trace of a few samples and aborted; issue 51).
    room: usize,
}

/// The builder's end of [`CounterSamples`], and the samples it takes at a time (at most a run's).
struct Sink(Arc<Mutex<Pending>>, usize);

impl SampleSink for Sink {
    fn batch(&self) -> usize {
        self.1
    }

    fn take(&mut self, series: &[u32], time_ns: &[i64], value: &[f64]) {
        // (A poisoned lock means a thread panicked holding it: the index fails anyway.)
        let Ok(mut p) = self.0.lock() else { return };
        let p = &mut *p;
        let free = p.samples.capacity() - p.samples.len();
        if p.keep && free < series.len() {
            let len = p.samples.len();
            let grow = len.max(series.len()).min(p.room.saturating_sub(len)).max(series.len());
            p.samples.reserve_exact(grow);
        }
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

/// A sorted run in the spill: one key, its samples by series then time; each series' section in it.
struct SampleRun {
    key: usize,
    /// The series the run holds, ascending: each with its first sample's place in the run and its count.
    sections: Vec<(u32, u64, u64)>,
}

/// The counter samples of a streamed index: handed over by the reader's builder, spilled in sorted runs,
/// cut into the counter tiles.
pub struct CounterSamples {
    pending: Arc<Mutex<Pending>>,
    runs: Vec<SampleRun>,
    /// The runs' sections in all (each held in memory).
    sections: usize,
    /// Bytes written to the spill.
    pub bytes: u64,
    /// The samples of the run being written, by series (kept between runs, as the buffer given back to the
    /// builder's end is).
    sorted: Vec<Sample>,
    keys: Keys,
    first_key: usize,
    /// Bytes of samples waiting before they go to the spill as a run.
    share: u64,
    /// Where the runs go when not to the index's spill: a chunked read (Chrome JSON, Paraver) spills its
    /// samples while the index's spill has no keys to spare (they are the locations', numbered only at the
    /// end of the read).
    own: Option<Box<dyn Spill>>,
}

/// Bytes of a run's section as held.
const SECTION_BYTES: u64 = std::mem::size_of::<(u32, u64, u64)>() as u64;

impl CounterSamples {
    /// Samples kept (`keep`: this index writes the counter tiles; else only counted) and written to the
    /// spill in runs that fit `share` bytes twice over (taken, then sorted) under keys from `first_key` on
    /// (one a run); and the sink to give the builder.
    pub fn new(keep: bool, first_key: usize, share: u64) -> (CounterSamples, Box<dyn SampleSink>) {
        let run = Self::run_samples(share);
        let batch = run.clamp(1, weft_model::SAMPLE_BATCH);
        let room = run + batch;
        let pending = Arc::new(Mutex::new(Pending { keep, room, ..Pending::default() }));
        let samples = CounterSamples {
            pending: pending.clone(),
            runs: Vec::new(),
            sections: 0,
            bytes: 0,
            sorted: Vec::new(),
            keys: Keys(first_key),
            first_key,
            share,
            own: None,
        };
        (samples, Box::new(Sink(pending, batch)))
    }

    /// As [`new`](Self::new), the runs written to `own` (under keys from 0 on) instead of the index's spill.
    pub fn with_spill(keep: bool, share: u64, own: Box<dyn Spill>) -> (CounterSamples, Box<dyn SampleSink>) {
        let (mut samples, sink) = Self::new(keep, 0, share);
        samples.own = Some(own);
        (samples, sink)
    }

    /// Samples of a run for `share` bytes: the buffer that takes them and the one that sorts them both fit.
    fn run_samples(share: u64) -> usize {
        (share / (2 * std::mem::size_of::<Sample>() as u64)).max(1) as usize
    }

    fn lock(&self) -> Result<std::sync::MutexGuard<'_, Pending>, IndexError> {
        self.pending.lock().map_err(|_| IndexError::Io("a reading thread panicked".into()))
    }

    /// Bytes the samples hold in memory: those waiting for the spill, the runs' sections, and their own
    /// spill's held in memory.
    pub fn held(&self) -> u64 {
        let own = self.own.as_ref().map_or(0, |s| s.held());
        let waiting = self.pending.lock().map_or(0, |p| p.samples.capacity()) + self.sorted.capacity();
        own + waiting as u64 * std::mem::size_of::<Sample>() as u64 + self.sections as u64 * SECTION_BYTES
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
            if p.samples.is_empty() && all {
                p.samples = Vec::new();
                drop(p);
                self.sorted = Vec::new();
                return Ok(());
            }
            if p.samples.is_empty() || !(all || p.samples.len() >= Self::run_samples(self.share)) {
                return Ok(());
            }
            std::mem::take(&mut p.samples)
        };
        by_series(&batch, &mut self.sorted);
        // The buffer back to the builder's end (with what it took meanwhile, on another thread).
        batch.clear();
        {
            let mut p = self.lock()?;
            batch.extend_from_slice(&p.samples);
            p.samples = batch;
        }
        let batch = &self.sorted;
        let to: &mut dyn Spill = match self.own.as_deref_mut() {
            Some(own) => own,
            None => spill,
        };
        let key = self.keys.take();
        let mut sections: Vec<(u32, u64, u64)> = Vec::new();
        let mut buf = Vec::with_capacity(PAGE_BYTES.min(batch.len() * Sample::BYTES));
        let failed = |e: String| IndexError::Io(format!("spilling the counter samples: {e}"));
        for (i, s) in batch.iter().enumerate() {
            match sections.last_mut() {
                Some(x) if x.0 == s.series => x.2 += 1,
                _ => sections.push((s.series, i as u64, 1)),
            }
            s.put(&mut buf);
            self.bytes += Sample::BYTES as u64;
            if buf.len() + Sample::BYTES > PAGE_BYTES {
                to.put(key, &buf).map_err(failed)?;
                buf.clear();
            }
        }
        if !buf.is_empty() {
            to.put(key, &buf).map_err(failed)?;
        }
        self.sections += sections.len();
        self.runs.push(SampleRun { key, sections });
        if all {
            // (Every sample spilled: the buffers are not needed until more come.)
            self.sorted = Vec::new();
            let mut p = self.lock()?;
            if p.samples.is_empty() {
                p.samples = Vec::new();
            }
        }
        Ok(())
    }

    /// As [`spill`](Self::spill), to the samples' own spill ([`with_spill`](Self::with_spill)).
    pub fn spill_own(&mut self, all: bool) -> Result<(), IndexError> {
        if self.own.is_none() {
            return Err(IndexError::Io("the counter samples have no spill of their own".into()));
        }
        self.spill(&mut MemorySpill::default(), all)
    }

    /// Forget every sample (an index that reads every location again; the spill was cleared).
    pub fn clear(&mut self) -> Result<(), IndexError> {
        let mut p = self.lock()?;
        let (keep, room) = (p.keep, p.room);
        *p = Pending { keep, room, ..Pending::default() };
        drop(p);
        self.runs.clear();
        self.sections = 0;
        self.bytes = 0;
        self.sorted = Vec::new();
        self.keys = Keys(self.first_key);
        if let Some(own) = self.own.as_deref_mut() {
            own.clear().map_err(|e| IndexError::Io(format!("clearing the counter samples' spill: {e}")))?;
        }
        Ok(())
    }

    /// The counter tiles (the whole build's `counters::counter_tiles`, in its order), to `put`, of the
    /// samples spilled (every one: [`spill`](Self::spill) with `all` first) to `spill` (or to their own);
    /// `origin` is the trace's (source clock), times in the tiles are from it. Series block after block,
    /// window after window: each of the block's series' samples in the window, from its sections of every
    /// run merged by time (a page of each in memory), cut into the level-0 tile and folded into the block's
    /// pyramid. One block's window of samples is
    /// held while its tiles are made, about [`WINDOW_BYTES_PER_SAMPLE`] each, beside the pages and a few
    /// counts per series: one over what `left` bytes leave is refused, with the `--memory` that would hold
    /// it (`memory` is the index's).
    pub fn tiles(
        &self,
        spill: &dyn Spill,
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
        let from: &dyn Spill = self.own.as_deref().unwrap_or(spill);
        // Each series' first index among all samples (the model's order: series, then time), and how many
        // of its samples earlier windows took.
        let offset: Vec<u64> = per_series.iter().scan(0u64, |at, &n| Some(std::mem::replace(at, *at + n))).collect();
        let mut seen = vec![0u64; offset.len()];
        let rel = |x: i64| x.saturating_sub(origin).max(0) as u64;
        let left = left.saturating_sub(offset.len() as u64 * 16);
        let read = |e: String| IndexError::Io(format!("reading the counter samples back: {e}"));
        let mut rows = Vec::<SampleRow>::new();
        for b in 0..series_blocks(t, nseries) {
            let range = series_block_range(t, b, nseries);
            if per_series[range.start as usize..range.end as usize].iter().all(|&n| n == 0) {
                continue; // (no tile, as the whole build)
            }
            // Per series of the block, a cursor on each run's section of it.
            let mut merges: Vec<SeriesMerge> = range.clone().map(|_| SeriesMerge::default()).collect();
            let mut cursors = 0usize;
            for run in &self.runs {
                let lo = run.sections.partition_point(|x| x.0 < range.start);
                for &(series, first, n) in run.sections[lo..].iter().take_while(|x| x.0 < range.end) {
                    let at = first * Sample::BYTES as u64;
                    let end = at + n * Sample::BYTES as u64;
                    merges[(series - range.start) as usize].cursors.push(Cursor {
                        key: run.key,
                        at,
                        end,
                        page: Vec::new(),
                        next: 0,
                    });
                    cursors += 1;
                }
            }
            // Pages: half of what is left over the cursors, at least 16 samples and at most PAGE_BYTES each.
            let page = ((left / 2 / cursors.max(1) as u64) as usize).clamp(16 * Sample::BYTES, PAGE_BYTES)
                / Sample::BYTES
                * Sample::BYTES;
            let limit = left.saturating_sub(cursors as u64 * (page + 64) as u64);
            let most = (limit / WINDOW_BYTES_PER_SAMPLE).max(1) as usize;
            let mut cutter = BlockCutter::new(t, levels, b, nseries);
            for w in 0..t.windows {
                // The window's samples of each series in turn (each series' by time, then the order recorded),
                // each numbered by its index among all samples.
                rows.clear();
                let mut over = 0u64;
                for (j, m) in merges.iter_mut().enumerate() {
                    let k = range.start as usize + j;
                    while let Some(x) = m.peek(from, page).map_err(read)? {
                        if t.window_of(rel(x.time_ns)) != w {
                            break;
                        }
                        m.take();
                        // Past the limit, the window's samples are only counted (to name the memory that
                        // holds them).
                        if over > 0 || rows.len() >= most {
                            over = over.max(rows.len() as u64) + 1;
                            continue;
                        }
                        rows.push(SampleRow {
                            index: offset[k] + seen[k],
                            series: x.series,
                            time_ns: rel(x.time_ns),
                            value: f64::from_bits(x.value),
                        });
                        seen[k] += 1;
                    }
                }
                if over > 0 {
                    let need = memory - limit.min(memory) + over * WINDOW_BYTES_PER_SAMPLE;
                    return Err(IndexError::Memory(format!(
                        "time window {w} of counter block {b} holds {over} counter samples, about {} MB while its \
                         tiles are made: over --memory {} MB; use --memory {}M or more",
                        (over * WINDOW_BYTES_PER_SAMPLE) >> 20,
                        memory >> 20,
                        (need >> 20) + 1
                    )));
                }
                cutter.window(w, &rows, put)?;
            }
            cutter.finish(put)?;
        }
        Ok(())
    }
}

/// One series' sections of every run, merged by (time, order recorded), equal ones by run ([`KMerge`]).
#[derive(Default)]
struct SeriesMerge {
    cursors: Vec<Cursor>,
    /// The cursors' next samples' (time, order recorded); None until the first is asked for.
    merge: Option<KMerge<(i64, u64)>>,
    /// The cursor whose sample is next, with it.
    head: Option<(usize, Sample)>,
    /// The cursor whose sample was taken, to go back into the merge with its next.
    refill: Option<usize>,
}

impl SeriesMerge {
    /// The next sample, not taken.
    fn peek(&mut self, spill: &dyn Spill, page: usize) -> Result<Option<Sample>, String> {
        if self.head.is_none() {
            let key = |s: Sample| (s.time_ns, s.seq);
            let merge = match &mut self.merge {
                Some(m) => m,
                None => {
                    let mut heads = Vec::with_capacity(self.cursors.len());
                    for c in &mut self.cursors {
                        heads.push(c.peek(spill, page)?.map(key));
                    }
                    self.merge.insert(KMerge::new(heads))
                }
            };
            if let Some(k) = self.refill.take() {
                merge.replace(self.cursors[k].peek(spill, page)?.map(key));
            }
            if let Some((k, _)) = merge.peek() {
                self.head = self.cursors[k].peek(spill, page)?.map(|s| (k, s));
            }
        }
        Ok(self.head.map(|h| h.1))
    }

    /// Take the sample [`peek`](Self::peek) gave.
    fn take(&mut self) {
        let Some((k, _)) = self.head.take() else { return };
        self.cursors[k].next += 1;
        self.refill = Some(k);
    }
}

/// `batch` (in the order recorded) sorted into `out`: by series (a counting sort, which keeps each series'
/// samples in the order recorded), then each series' by time where it goes back (the keys are unique: any
/// sort gives the one order).
fn by_series(batch: &[Sample], out: &mut Vec<Sample>) {
    out.clear();
    let Some(lo) = batch.iter().map(|s| s.series).min() else { return };
    let hi = batch.iter().map(|s| s.series).max().unwrap_or(lo);
    let mut at = vec![0usize; (hi - lo) as usize + 2];
    for s in batch {
        at[(s.series - lo) as usize + 1] += 1;
    }
    for k in 1..at.len() {
        at[k] += at[k - 1];
    }
    let starts = at.clone();
    out.resize(batch.len(), Sample { series: 0, time_ns: 0, seq: 0, value: 0 });
    for s in batch {
        let k = (s.series - lo) as usize;
        out[at[k]] = *s;
        at[k] += 1;
    }
    for w in starts.windows(2) {
        let section = &mut out[w[0]..w[1]];
        if !section.is_sorted() {
            section.sort_unstable();
        }
    }
}

/// A cursor on a run's section: a page of it in memory.
struct Cursor {
    key: usize,
    /// The section's next bytes to read, and its end (bytes into the run).
    at: u64,
    end: u64,
    page: Vec<Sample>,
    next: usize,
}

impl Cursor {
    /// The section's next sample, not taken (`next` takes it), reading its next page (of `page` bytes at
    /// most) when this one is done.
    fn peek(&mut self, spill: &dyn Spill, page: usize) -> Result<Option<Sample>, String> {
        if self.next == self.page.len() {
            if self.at >= self.end {
                return Ok(None);
            }
            let want = (self.end - self.at).min(page as u64) as usize;
            let bytes = spill.get_from(self.key, self.at, want)?;
            if bytes.len() != want {
                return Err(format!("a spilled run is cut short: {} bytes of {want} at {}", bytes.len(), self.at));
            }
            self.page.clear();
            self.page.extend(bytes.chunks_exact(Sample::BYTES).map(Sample::get));
            self.at += want as u64;
            self.next = 0;
        }
        Ok(Some(self.page[self.next]))
    }
}

/// Bytes a window's sample takes while its tiles are made: the sample, its row in series order, its encoded
/// columns and their compressed copy, and its level-1 bin at most.
pub const WINDOW_BYTES_PER_SAMPLE: u64 = std::mem::size_of::<Sample>() as u64
    + std::mem::size_of::<SampleRow>() as u64
    + 32
    + std::mem::size_of::<Level1Bin>() as u64;
