//! A store built without the whole trace (issue #17): an OTF2 archive is read location by location
//! ([`Otf2Stream`]), each event file a window at a time, its intervals taken in prefixes as they are
//! decoded and nested as they come (`nest::LocationNest`), so memory holds the definitions, the compact
//! message ends, collective parts and instants (matched at the end, as the OTF2 reader does, the ends spilled
//! in sorted runs where the caller gives a spill, `Otf2Stream::spill_ends`; checked against `memory` after
//! every location, [`IndexError::Memory`]), a bounded buffer of intervals whatever a
//! location's length, and the blocks being tiled. The matched messages and collective rows are not held:
//! they go to the spill as they are matched (`comms`: sorted into the trace's order in runs, then into
//! each block's file), and the particle view's intervals as a sorted run per block (merged into the
//! particle tiles at the end, `runs`).
//! A Chrome JSON or Paraver trace, whose records are not grouped by location, is read in chunks
//! ([`index_chrome`], [`index_paraver`]): the reader spills each location's records (Chrome: X intervals and
//! B/E events; Paraver: intervals) in segments as they come, whenever more than
//! [`StreamOptions::event_buffer`] are buffered, and at the end of the file reads them back location by
//! location, matched as its whole read matches them, into the same pass 1 below; memory then holds what the
//! reader keeps compact until the end anyway (instants, counters, messages and flow ends, async events).
//!
//! Two passes, one decode:
//! 1. **read**: each location's events are decoded once; its intervals are nested and clipped exactly as
//!    [`TraceBuilder::finish`](weft_model::TraceBuilder::finish) does (the rule is per location and does not
//!    depend on the origin), counted, and written to a [`Spill`] as compact varints (about 5 bytes per
//!    interval; an OTF2 location in segments, whenever the reader has buffered [`StreamOptions::event_buffer`]
//!    intervals, or a sixty-fourth of `memory`'s worth); then dropped. While they fit in
//!    [`StreamOptions::held`] bytes they are kept as the columns pass 2 tiles instead (`held.rs`: no spill
//!    written and read back). After the last location the messages and collectives are matched and the
//!    origin, span and per-location counts give the tiling ([`tiling_of`]).
//! 2. **tile**: each block of locations is taken from the columns held, or read back from the spill, with
//!    its messages and collective rows read back from its file (`comms::BlockComms`), and cut into its
//!    level-0 tiles, pyramid, moments, region totals and particle intervals ([`block_tiles`], the code
//!    `build` runs on a whole trace), on `threads` threads, as many blocks in flight as `memory` allows
//!    (with fewer blocks in flight than threads, a block's summaries are made beside its level-0 tiles);
//!    tiles go to the [`TileSink`] as soon as a block is done, its particle intervals to the spill as a
//!    sorted run. Particles (the runs merged, a window at a time: `build::ParticleTiler`) and counters are
//!    tiled last.
//!
//! The unit is "a block of locations -> its tiles, its summaries, its region totals": a shard runs it on a
//! subset. The store is byte for byte the one [`build`](crate::build) makes from the whole trace
//! (`tests/store_stream.rs`), for any thread count. Plain Rust, no files: the spill and the tiles go through
//! traits (the CLI backs them with files).

use crate::budget::{
    block_bytes, particle_run_bytes, particle_run_len, skel_bytes, Budget, SummaryBytes, INTERVAL_BYTES,
    RAW_INTERVAL_BYTES,
};
use crate::build::{
    add_totals, block_lanes, block_particles, block_tiles, counter_tiles, manifest, tiling_of, BlockIntervals,
    BuildOptions, ParticleExtents, ParticleTiler, Plan,
};
use crate::comms::{self, BlockComms, CommPiece, CommSpill, Fetch, MessageRuns, RawMessage};
use crate::error::IndexError;
use crate::shard::exchange::Exchange;
use crate::shard::partition::{part_manifest, PartManifest, Shard};
use crate::spill::runs::{Keys, Record, Runs};
use crate::spill::{MemorySpill, Spill};
use crate::stream::held::HeldColumns;
use crate::stream::nest::{encode_segment, nest, nest_into, LocationNest, NestedColumns, RegionTotals};
use crate::stream::ranged::{most_intervals, RangedBlock};
use crate::stream::samples::CounterSamples;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, RwLock};
use weft_model::{RegionId, Trace, WarningKind};
use weft_readers::otf2::{Held, IntervalTaker, Otf2Stream, StreamIndexing};
use weft_readers::ReadError;
use weft_store::format::columns::{ColumnReader, ColumnWriter};
use weft_store::format::events::CollectiveRow;
use weft_store::format::manifest::{Manifest, TileEntry, Tiling};

mod exchanged;
mod held;
mod nest;
pub(crate) mod ranged;
mod samples;

/// Where tiles go as they are made (the CLI writes files; tests keep them in memory).
pub trait TileSink: Sync {
    fn put(&self, path: &str, bytes: &[u8]) -> Result<(), String>;
    /// A tile put before, read back (the wait states are computed from the level-0 tiles written:
    /// `crate::waits`).
    fn get(&self, path: &str) -> Result<Vec<u8>, String>;
}

/// Tiles kept in memory, by path.
#[derive(Default)]
pub struct MemorySink {
    pub files: Mutex<std::collections::BTreeMap<String, Vec<u8>>>,
}

impl TileSink for MemorySink {
    fn put(&self, path: &str, bytes: &[u8]) -> Result<(), String> {
        self.files.lock().map_err(|_| "a tile writer panicked".to_string())?.insert(path.to_string(), bytes.to_vec());
        Ok(())
    }
    fn get(&self, path: &str) -> Result<Vec<u8>, String> {
        let files = self.files.lock().map_err(|_| "a tile writer panicked".to_string())?;
        files.get(path).cloned().ok_or_else(|| format!("{path}: not written"))
    }
}

#[derive(Clone, Debug)]
pub struct StreamOptions {
    pub build: BuildOptions,
    /// Bytes the index may hold (blocks in flight are limited to fit).
    pub memory: u64,
    /// Records a chunked read (Chrome, Paraver) buffers before it spills them; 0: as many as an eighth of
    /// `memory` holds.
    pub event_buffer: usize,
    /// Index only this shard's location blocks into a part (`weft index --shard K/N`, MPI ranks): every
    /// location is still decoded (the part's tiles hold trace-wide indices, the tiling and the matched
    /// messages), but only the shard's locations are spilled and tiled (shard 0 spills all: it writes the
    /// particle tiles). None: the whole store.
    pub shard: Option<Shard>,
    /// Bytes of nested intervals pass 1 keeps as the columns pass 2 tiles (no spill round trip:
    /// `held.rs`) before it writes them to the spill instead, and (as much again) of the blocks' messages and
    /// collective rows held as rows (`comms::CommSpill::hold`) before they go to the blocks' files; 0: an
    /// eighth of `memory`.
    pub held: u64,
    /// Bytes of matched messages sorted in memory before they go to the spill as a sorted run, and of the
    /// pages the blocks' messages and particle runs are written in, over the blocks (`comms`, `runs`); 0:
    /// a sixteenth of `memory`.
    pub runs: u64,
    /// Tile every block by time range (`ranged`), at most this many intervals a range (tests reach every
    /// range boundary with a few); 0: only a block over its task's share of `memory`, in ranges sized by it.
    pub range_intervals: u64,
}

impl StreamOptions {
    /// The shares of `memory` (`budget`).
    pub fn budget(&self) -> Budget {
        Budget::new(self.memory)
    }

    /// Records a chunked read buffers before spilling.
    pub fn event_buffer(&self) -> usize {
        match self.event_buffer {
            0 => (self.budget().chunked_buffer() / weft_readers::chrome::SPILLED_RECORD_BYTES).max(1) as usize,
            n => n,
        }
    }

    /// Bytes of nested intervals kept as columns before they go to the spill.
    pub fn held(&self) -> u64 {
        match self.held {
            0 => self.budget().held(),
            n => n,
        }
    }

    /// Bytes of messages sorted in memory before a run of them is spilled (and of pages, over the blocks).
    pub fn runs(&self) -> u64 {
        match self.runs {
            0 => self.budget().runs(),
            n => n,
        }
    }
}

/// What the index is doing, for a progress bar.
#[derive(Clone, Copy, Debug)]
pub enum Progress {
    /// Pass 1: `done` of `total` locations read, `intervals` intervals so far.
    Reading { done: usize, total: usize, intervals: u64 },
    /// Pass 2: `done` of `total` blocks tiled.
    Tiling { done: usize, total: usize },
    /// Pass 1 of a trace read in chunks (Chrome JSON, Paraver): `done` of `total` input bytes read (`total`
    /// 0 when unknown).
    ReadingBytes { done: u64, total: u64 },
    /// Pass 1 of a shard decoding only its own locations (`exchange`), after its own were read (`Reading`):
    /// `done` of `total` locations' logs replayed, every shard's, `intervals` in all so far.
    Replaying { done: usize, total: usize, intervals: u64 },
    /// A step after the first pass begins (it lasts until the next step, or the first `Tiling`).
    Step(Step),
}

/// The steps of an index between and after its two passes, reported as they begin ([`Progress::Step`]):
/// on a trace of a billion events each takes seconds to minutes with no blocks or locations to count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// The messages matched and, unless they are gathered in the next step, the collective rows grouped and
    /// handed to their blocks (OTF2; across shards, what each matched added up).
    Matching,
    /// The messages put in the trace's order and to their blocks, held or in their files (across shards,
    /// sorted together); with a spare thread and the rows held, the collective rows gathered beside them.
    Messages,
    /// The particle view's tiles (across shards, each range's intervals exchanged first).
    ParticleTiles,
    /// The counter tiles.
    CounterTiles,
    /// The wait states, from the level-0 tiles written (`crate::waits`).
    Waits,
}

impl Step {
    /// What the step does, in a few words (a progress line, the report's breakdown).
    pub fn name(self) -> &'static str {
        match self {
            Step::Matching => "matching",
            Step::Messages => "messages",
            Step::ParticleTiles => "particle tiles",
            Step::CounterTiles => "counter tiles",
            Step::Waits => "wait states",
        }
    }
}

/// What the index made: the manifest (its tiles are in the sink) and figures for the report.
pub struct Indexed {
    /// The store's manifest; for a shard, the part's inner manifest (`part.store`).
    pub manifest: Manifest,
    /// A shard's `part.json` (None without [`StreamOptions::shard`]).
    pub part: Option<PartManifest>,
    /// Bytes the first pass spilled (the nested intervals).
    pub spill_bytes: u64,
    /// Bytes of messages, collective rows, particle-view intervals and counter samples spilled to be put in
    /// the order pass 2 takes them (`comms`, sorted runs).
    pub runs_bytes: u64,
    /// Blocks tiled at once.
    pub blocks_in_flight: usize,
    /// What the busiest block task was estimated to hold ([`block_bytes`]), which sets how many run at once.
    pub busiest_block_bytes: u64,
    /// Blocks tiled by time range (over their task's share of `memory`: `ranged`).
    pub ranged_blocks: usize,
}

/// Columns of one block decoded from the spill, times from `origin`.
#[derive(Default)]
struct BlockColumns {
    ranges: Vec<std::ops::Range<usize>>,
    region: Vec<RegionId>,
    start_ns: Vec<u64>,
    dur_ns: Vec<u64>,
    depth: Vec<u16>,
}

impl BlockColumns {
    /// Columns with room for `n` intervals (a block's count is known from pass 1: no regrowth).
    fn with_capacity(n: usize) -> BlockColumns {
        BlockColumns {
            ranges: Vec::new(),
            region: Vec::with_capacity(n),
            start_ns: Vec::with_capacity(n),
            dur_ns: Vec::with_capacity(n),
            depth: Vec::with_capacity(n),
        }
    }

    /// A location's spill: its segments (`nest::encode_segment`), fix-ups applied.
    fn push_location(&mut self, bytes: &[u8], origin: i64) -> Result<(), String> {
        let bad =
            |e: weft_store::format::columns::ColumnError| format!("spill damaged at byte {}: {}", e.offset, e.detail);
        let mut r = ColumnReader::new(bytes);
        let a = self.region.len();
        while !r.at_end() {
            let n = r.count(4).map_err(bad)?;
            self.region.reserve(n);
            self.start_ns.reserve(n);
            self.dur_ns.reserve(n);
            self.depth.reserve(n);
            let mut t = 0i64;
            for k in 0..n {
                self.region.push(RegionId(r.varint().map_err(bad)? as u32));
                t = if k == 0 { r.signed().map_err(bad)? } else { t.wrapping_add(r.varint().map_err(bad)? as i64) };
                self.start_ns.push(t.saturating_sub(origin).max(0) as u64);
                self.dur_ns.push(r.varint().map_err(bad)?);
                self.depth.push(r.varint().map_err(bad)? as u16);
            }
            for _ in 0..r.count(2).map_err(bad)? {
                let i = r.varint().map_err(bad)?;
                let dur = r.varint().map_err(bad)?;
                match usize::try_from(i).ok().and_then(|i| self.dur_ns.get_mut(a + i)) {
                    Some(d) => *d = dur,
                    None => return Err(format!("spill damaged: a fix-up names interval {i} of a location")),
                }
            }
        }
        self.ranges.push(a..self.region.len());
        Ok(())
    }

    fn intervals(&self, first_index: u64) -> BlockIntervals<'_> {
        BlockIntervals {
            ranges: &self.ranges,
            region: &self.region,
            start_ns: &self.start_ns,
            dur_ns: &self.dur_ns,
            depth: &self.depth,
            first_index,
            index: None,
        }
    }
}

/// A block's intervals for pass 2: a slice of the columns pass 1 held, or its columns read back from the
/// spill (with the trace index of the first).
enum BlockData<'h> {
    Held(BlockIntervals<'h>),
    Read(BlockColumns, u64),
}

impl BlockData<'_> {
    fn intervals(&self) -> BlockIntervals<'_> {
        match self {
            BlockData::Held(bi) => BlockIntervals { ..*bi },
            BlockData::Read(c, first_index) => c.intervals(*first_index),
        }
    }
}

/// What pass 1 learns from each location's intervals, in location order.
pub(super) struct Digest {
    pub(super) counts: Vec<u64>,
    pub(super) max_end: i128,
    pub(super) min_start: i64,
    pub(super) clipped: u64,
    pub(super) clip_examples: Vec<(RegionId, i64, u64)>,
    spill_bytes: u64,
    nested: NestedColumns,
    /// The location being read in prefixes (`nest::LocationNest`).
    nest: LocationNest,
    w: ColumnWriter,
    /// Locations spilled (all, or a shard's); the others are counted and dropped.
    pub(super) spilled: std::ops::Range<usize>,
    /// A shard's per-region totals over every location (the part's fingerprint of the whole trace);
    /// None when not sharded.
    pub(super) totals: Option<RegionTotals>,
    /// The nested intervals kept as columns while they fit in `held_cap` bytes; None once they went to the
    /// spill (and every later location's with them).
    held: Option<HeldColumns>,
    held_cap: u64,
    /// The counter samples of an OTF2 index, spilled in runs (`samples`); None: they are in the trace.
    pub(super) samples: Option<CounterSamples>,
    /// The deepest nesting depth of the intervals nested so far (what their summaries' lanes take).
    deepest: u16,
}

impl Digest {
    /// A digest spilling the locations `o.shard` tiles, of `locations` in all (every location without a
    /// shard, or when the count is not known before reading; shard 0 spills all, for the particle tiles).
    fn new(o: &StreamOptions, locations: Option<usize>) -> Digest {
        let spilled = match (o.shard, locations) {
            (Some(s), Some(n)) if !s.particles() => shard_locations(s, n, o.build.block_locations),
            _ => 0..usize::MAX,
        };
        Digest {
            counts: Vec::new(),
            max_end: i128::MIN,
            min_start: i64::MAX,
            clipped: 0,
            clip_examples: Vec::new(),
            spill_bytes: 0,
            nested: NestedColumns::default(),
            nest: LocationNest::default(),
            w: ColumnWriter::default(),
            spilled,
            totals: o.shard.map(|_| RegionTotals::default()),
            held: Some(HeldColumns::default()),
            held_cap: o.held(),
            samples: None,
            deepest: 0,
        }
    }

    /// The counter samples waiting to the spill as a run when they pass their share (`all`: whatever
    /// their number).
    pub(super) fn spill_samples(&mut self, spill: &mut dyn Spill, all: bool) -> Result<(), IndexError> {
        match self.samples.as_mut() {
            Some(s) => s.spill(spill, all),
            None => Ok(()),
        }
    }

    /// Bytes the columns held hold.
    pub(super) fn held_bytes(&self) -> u64 {
        self.held.as_ref().map_or(0, HeldColumns::bytes) + self.samples.as_ref().map_or(0, CounterSamples::held)
    }

    /// Once the columns held pass their share, write them to the spill (location `reading` being read) and
    /// spill from then on.
    fn check_held(&mut self, spill: &mut dyn Spill, reading: Option<usize>, path: &str) -> Result<(), IndexError> {
        if self.held_bytes() <= self.held_cap {
            return Ok(());
        }
        self.spill_held(spill, reading, path)
    }

    /// Write the columns held to the spill, and spill from then on.
    fn spill_held(&mut self, spill: &mut dyn Spill, reading: Option<usize>, path: &str) -> Result<(), IndexError> {
        if let Some(h) = self.held.take() {
            let bytes =
                h.spill(spill, reading, &mut self.w).map_err(|e| IndexError::Io(format!("spilling {path}: {e}")))?;
            self.spill_bytes += bytes;
        }
        Ok(())
    }

    /// Nest the next location's intervals, count them, spill them (when the shard tiles them), and the
    /// counter samples read meanwhile when they pass their share.
    fn location(&mut self, raw: &[(RegionId, i64, u64)], spill: &mut dyn Spill, path: &str) -> Result<(), IndexError> {
        self.location_intervals(raw, spill, path)?;
        self.spill_samples(spill, false)
    }

    fn location_intervals(
        &mut self,
        raw: &[(RegionId, i64, u64)],
        spill: &mut dyn Spill,
        path: &str,
    ) -> Result<(), IndexError> {
        let k = self.counts.len();
        let (clipped, examples) = (&mut self.clipped, &mut self.clip_examples);
        if let (Some(h), true, None) = (&mut self.held, self.spilled.contains(&k), &self.totals) {
            // Nested straight into the columns held (no shard's totals to count): no copy in between.
            h.begin();
            let end = nest_into(raw, h, &mut |r, s, x| {
                *clipped += 1;
                if *clipped <= 5 {
                    examples.push((r, s, x));
                }
            });
            let (count, first) = h.reading();
            self.deepest = self.deepest.max(h.deepest_reading());
            if let Some(first) = first {
                self.min_start = self.min_start.min(first);
                self.max_end = self.max_end.max(end);
            }
            self.counts.push(count as u64);
            h.end(true);
            return self.check_held(spill, None, path);
        }
        let end = nest(raw, &mut self.nested, &mut |r, s, x| {
            *clipped += 1;
            if *clipped <= 5 {
                examples.push((r, s, x));
            }
        });
        let nested = std::mem::take(&mut self.nested);
        let r = self.nested_intervals(&nested, end, spill, path);
        self.nested = nested;
        r
    }

    /// The next location's intervals, nested (on a decoder's thread, [`Ahead`]; its clipped ones
    /// counted with [`add_clips`](Self::add_clips)), `end` their latest end: count them, spill them (when
    /// the shard tiles this location).
    fn nested_location(
        &mut self,
        nested: &NestedColumns,
        end: i128,
        spill: &mut dyn Spill,
        path: &str,
    ) -> Result<(), IndexError> {
        self.nested_intervals(nested, end, spill, path)?;
        self.spill_samples(spill, false)
    }

    fn nested_intervals(
        &mut self,
        nested: &NestedColumns,
        end: i128,
        spill: &mut dyn Spill,
        path: &str,
    ) -> Result<(), IndexError> {
        let k = self.counts.len();
        if let Some(&first) = nested.start.first() {
            self.min_start = self.min_start.min(first as i64);
            self.max_end = self.max_end.max(end);
        }
        self.deepest = nested.depth.iter().fold(self.deepest, |d, &x| d.max(x));
        self.counts.push(nested.len() as u64);
        if let Some(t) = &mut self.totals {
            t.location(nested);
        }
        let kept = self.spilled.contains(&k);
        if let Some(h) = &mut self.held {
            h.begin();
            if kept {
                h.push(nested);
            }
            h.end(kept);
            return self.check_held(spill, None, path);
        }
        if !kept {
            return Ok(());
        }
        encode_segment(nested.iter(), &[], &mut self.w);
        self.spill_bytes += self.w.buf.len() as u64;
        spill.put(k, &self.w.buf).map_err(|e| IndexError::Io(format!("spilling {path}: {e}")))
    }

    /// The next location is another shard's, decoded there (`exchange`): counted 0 until its count comes.
    pub(super) fn other_location(&mut self) {
        self.counts.push(0);
        if let Some(h) = &mut self.held {
            h.begin();
            h.end(false);
        }
    }

    /// A location nested elsewhere clipped `n` intervals, `examples` its first ones (at most five).
    fn add_clips(&mut self, n: u64, examples: &[(RegionId, i64, u64)]) {
        for (i, &e) in examples.iter().enumerate() {
            if self.clipped + (i as u64) < 5 {
                self.clip_examples.push(e);
            }
        }
        self.clipped += n;
    }

    /// The next location is read in prefixes ([`prefix`](Self::prefix), [`closed`](Self::closed), then
    /// [`end`](Self::end)).
    pub(super) fn begin(&mut self) {
        self.nest.begin();
        if let Some(h) = &mut self.held {
            h.begin();
        }
        if let Some(t) = &mut self.totals {
            t.begin();
        }
    }

    /// Nest a prefix of the location's intervals (`nest::LocationNest::prefix`) and spill it.
    fn prefix(
        &mut self,
        buf: &[(RegionId, i64, u64)],
        first: usize,
        open: &[usize],
        spill: &mut dyn Spill,
        path: &str,
    ) -> Result<(), IndexError> {
        let (clipped, examples) = (&mut self.clipped, &mut self.clip_examples);
        self.nest.prefix(buf, first, open, &mut self.totals, &mut |r, s, x| {
            *clipped += 1;
            if *clipped <= 5 {
                examples.push((r, s, x));
            }
        });
        self.flush(spill, path)
    }

    /// Interval `slot`, nested while open, closed after `dur`.
    fn closed(&mut self, slot: usize, dur: u64) {
        let (clipped, examples) = (&mut self.clipped, &mut self.clip_examples);
        self.nest.closed(slot, dur, &mut self.totals, &mut |r, s, x| {
            *clipped += 1;
            if *clipped <= 5 {
                examples.push((r, s, x));
            }
        });
    }

    /// Spill the segment made (when the shard tiles this location).
    fn flush(&mut self, spill: &mut dyn Spill, path: &str) -> Result<(), IndexError> {
        let k = self.counts.len();
        let n = &mut self.nest;
        self.deepest = n.seg.iter().fold(self.deepest, |d, x| d.max(x.3));
        if let (true, Some(h)) = (self.spilled.contains(&k), &mut self.held) {
            h.push_nested(&n.seg);
            if !h.fix(&n.fixups) {
                return Err(IndexError::Io(format!("{path}: a fix-up names an interval not nested")));
            }
            n.seg.clear();
            n.fixups.clear();
            self.check_held(spill, Some(k), path)?;
            return self.spill_samples(spill, false);
        }
        if self.spilled.contains(&k) && !(n.seg.is_empty() && n.fixups.is_empty()) {
            encode_segment(n.seg.iter().copied(), &n.fixups, &mut self.w);
            self.spill_bytes += self.w.buf.len() as u64;
            spill.put(k, &self.w.buf).map_err(|e| IndexError::Io(format!("spilling {path}: {e}")))?;
        }
        n.seg.clear();
        n.fixups.clear();
        // (The counter samples read meanwhile, when they pass their share.)
        self.spill_samples(spill, false)
    }

    /// The location read in prefixes ends: `rest` its intervals after the `taken` first, all closed;
    /// `in_order` whether its times never went back. Nothing taken: nested whole, as [`location`](Self::location).
    pub(super) fn end(
        &mut self,
        rest: &[(RegionId, i64, u64)],
        taken: usize,
        in_order: bool,
        spill: &mut dyn Spill,
        path: &str,
    ) -> Result<(), IndexError> {
        if taken == 0 {
            return self.location(rest, spill, path);
        }
        if !in_order {
            return Err(IndexError::NotStreamable(format!(
                "{path}: its times go back after {taken} intervals were nested in order: this archive is \
                 indexed whole"
            )));
        }
        self.prefix(rest, taken, &[], spill, path)?;
        if let Some(first) = self.nest.first_start {
            self.min_start = self.min_start.min(first);
            self.max_end = self.max_end.max(self.nest.max_end);
        }
        let k = self.counts.len();
        if let Some(h) = &mut self.held {
            h.end(self.spilled.contains(&k));
        }
        self.counts.push(self.nest.count);
        Ok(())
    }
}

/// The intervals of `buf` a taker takes when the decode is at `now`: those starting before it (`buf` is in
/// ENTER order, so by start in a location whose times never go back), and the open ones among them.
fn takeable<'o>(buf: &[(RegionId, i64, u64)], first: usize, open: &'o [usize], now: i64) -> (usize, &'o [usize]) {
    let p = buf.partition_point(|x| x.1 < now);
    let (lo, hi) = (open.partition_point(|&s| s < first), open.partition_point(|&s| s < first + p));
    (p, &open[lo..hi])
}

/// Takes a location's intervals into the digest as they are decoded (one thread), refusing to go on when
/// what the reader holds would pass `memory` ([`check_pass1`]).
pub(super) struct DigestTaker<'d> {
    pub(super) digest: &'d mut Digest,
    pub(super) spill: &'d mut dyn Spill,
    pub(super) path: &'d str,
    pub(super) o: &'d StreamOptions,
    pub(super) buffers: u64,
    /// This location's index, of `total`.
    pub(super) k: usize,
    pub(super) total: usize,
    pub(super) err: Option<IndexError>,
}

impl IntervalTaker for DigestTaker<'_> {
    fn take(
        &mut self,
        buf: &[(RegionId, i64, u64)],
        first: usize,
        open: &[usize],
        now: i64,
        held: Held,
    ) -> Option<usize> {
        if let Err(e) = check_pass1(
            self.o,
            held,
            self.buffers,
            self.spill.held() + self.digest.held_bytes(),
            (self.k, self.total, true),
        ) {
            self.err = Some(e);
            return None;
        }
        let (p, open) = takeable(buf, first, open, now);
        if p > 0 {
            if let Err(e) = self.digest.prefix(&buf[..p], first, open, self.spill, self.path) {
                self.err = Some(e);
                return None;
            }
        }
        Some(p)
    }
    fn closed(&mut self, slot: usize, dur_ns: u64) {
        self.digest.closed(slot, dur_ns);
    }
}

/// What the reader hands the digest's thread (two threads).
enum Piece {
    /// A prefix of the location's intervals: (intervals, first arrival number, the open ones).
    Prefix(Vec<(RegionId, i64, u64)>, usize, Vec<usize>),
    Closed(usize, u64),
    /// The location's end: (the rest, intervals taken, times in order, what the reader holds to the end).
    End(Vec<(RegionId, i64, u64)>, usize, bool, Held),
}

/// Bytes matching needs per byte of message ends and collective parts held (the ends, the channels'
/// queues, the matched pairs, the records made).
const MATCH_FACTOR: u64 = 2;

/// Refuse, as soon as it is known, an index whose first pass would pass `--memory`: what the reader holds
/// to the end (`held`: bytes, and the sends, receives and collective parts among them) and matching's
/// share of it, the read's buffers, and the spill held in memory.
/// `at`: (locations read, of how many, whether within the next one).
pub(super) fn check_pass1(
    o: &StreamOptions,
    (held, [sends, recvs, parts]): Held,
    buffers: u64,
    spill_held: u64,
    (done, total, within): (usize, usize, bool),
) -> Result<(), IndexError> {
    let need = held.saturating_mul(MATCH_FACTOR) + buffers + spill_held;
    if need <= o.memory {
        return Ok(());
    }
    let at = match within {
        true => format!("reading location {} of {total}", done + 1),
        false => format!("after {done} of {total} locations"),
    };
    Err(IndexError::Memory(format!(
        "{at}, the records kept to be matched at the end ({sends} sends, {recvs} \
         receives, {parts} collective parts, with instants, counter samples and names) hold about {} MB and \
         matching them needs about {} MB; with the read's buffers ({} MB) and the spill held in memory ({} MB) \
         that is over --memory {} MB (raise --memory)",
        held >> 20,
        held.saturating_mul(MATCH_FACTOR) >> 20,
        buffers >> 20,
        spill_held >> 20,
        o.memory >> 20
    )))
}

/// Takes a location's intervals to the digest's thread as they are decoded, refusing to go on as
/// [`DigestTaker`] does (with the spill's bytes in memory as the digest's thread last saw them).
struct ChannelTaker<'c> {
    to: &'c std::sync::mpsc::SyncSender<Piece>,
    o: &'c StreamOptions,
    buffers: u64,
    spill_held: &'c AtomicU64,
    k: usize,
    total: usize,
    err: Option<IndexError>,
}

impl IntervalTaker for ChannelTaker<'_> {
    fn take(
        &mut self,
        buf: &[(RegionId, i64, u64)],
        first: usize,
        open: &[usize],
        now: i64,
        held: Held,
    ) -> Option<usize> {
        let spill_held = self.spill_held.load(Ordering::Relaxed);
        if let Err(e) = check_pass1(self.o, held, self.buffers, spill_held, (self.k, self.total, true)) {
            self.err = Some(e);
            return None;
        }
        let (p, open) = takeable(buf, first, open, now);
        if p > 0 {
            // A failed send: the digest's thread failed, its error is returned when the read ends.
            let _ = self.to.send(Piece::Prefix(buf[..p].to_vec(), first, open.to_vec()));
        }
        Some(p)
    }
    fn closed(&mut self, slot: usize, dur_ns: u64) {
        let _ = self.to.send(Piece::Closed(slot, dur_ns));
    }
}

/// The locations of shard `s`'s blocks, of `locations` in blocks of `block` (the blocks do not depend on
/// the tiling's windows, so a shard knows them before reading).
pub(super) fn shard_locations(s: Shard, locations: usize, block: u32) -> std::ops::Range<usize> {
    let bl = block.max(1) as usize;
    let blocks = s.blocks(locations.div_ceil(bl) as u32);
    (blocks.start as usize * bl).min(locations)..(blocks.end as usize * bl).min(locations)
}

/// Index an OTF2 archive read location by location: tiles into `sink`, returns the manifest (not written).
pub fn index_otf2(
    stream: Otf2Stream,
    o: &StreamOptions,
    spill: &mut dyn Spill,
    sink: &dyn TileSink,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<Indexed, IndexError> {
    index_otf2_with(stream, o, None, spill, sink, progress)
}

/// [`index_otf2`] of shard `x.shard()` (its part: `o.shard` is set to it) decoding only its own
/// locations, learning the rest from the other shards through `x` (`exchange`; every shard calls this at
/// once). The part is the one [`index_otf2`] with that shard makes, which decodes every location (and so
/// does this when a location names a region the definitions lack).
pub fn index_otf2_exchanged(
    stream: Otf2Stream,
    o: &StreamOptions,
    x: &dyn Exchange,
    spill: &mut dyn Spill,
    sink: &dyn TileSink,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<Indexed, IndexError> {
    let o = StreamOptions { shard: Some(x.shard()), ..o.clone() };
    index_otf2_with(stream, &o, Some(x), spill, sink, progress)
}

fn index_otf2_with(
    mut stream: Otf2Stream,
    o: &StreamOptions,
    x: Option<&dyn Exchange>,
    spill: &mut dyn Spill,
    sink: &dyn TileSink,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<Indexed, IndexError> {
    let n = stream.location_count();
    if stream.model_locations() != n || (0..n).any(|k| stream.location_id(k).0 .0 as usize != k) {
        return Err(IndexError::NotStreamable(
            "two location definitions name one location: this archive is indexed whole".into(),
        ));
    }
    // Pass 1: read (this thread), nest, count, spill; with threads > 1, locations decoded and nested ahead
    // on every thread (`Ahead`), or, when most are too long for that, nested on a second thread as this one
    // decodes them.
    let mut digest = Digest::new(o, Some(n));
    // Counter samples go to the spill in runs (`samples`), under the keys after the locations' and the
    // exchange's log; kept by the index that writes the counter tiles, counted by the others.
    let (samples, to_samples) = CounterSamples::new(o.shard.is_none_or(|s| s.counters()), n + 1, o.runs());
    stream.sink_samples(to_samples);
    digest.samples = Some(samples);
    let mut intervals = 0u64;
    let paths: Vec<String> = (0..n).map(|k| stream.location_id(k).1).collect();
    // Intervals the reader buffers before the digest takes those it can (a location of any length costs
    // about this many; `nest` module doc).
    let limit = match o.event_buffer {
        0 => (o.budget().otf2_buffer() / RAW_INTERVAL_BYTES).max(1024) as usize,
        n => n,
    };
    let threads = o.build.threads.clamp(1, 2) as u64;
    let buffers = threads * weft_readers::otf2::READ_WINDOW as u64 + 4 * limit as u64 * RAW_INTERVAL_BYTES;
    // Shards that decode their own locations only, when there are several (`exchange`); the key after the
    // locations' holds this shard's log.
    let mut exchanged = None;
    if let Some(x) = x.filter(|x| x.shard().count > 1) {
        let key = n;
        match exchanged::pass1(
            x,
            &mut stream,
            &mut digest,
            spill,
            o,
            &paths,
            limit,
            buffers,
            key,
            progress,
            &mut intervals,
        ) {
            Ok(()) => exchanged = Some(x),
            Err(IndexError::Redo(_)) => {
                // Every shard decodes every location (the stream replayed nothing yet).
                let samples = digest.samples.take();
                digest = Digest::new(o, Some(n));
                digest.samples = samples;
                intervals = 0;
                spill.clear().map_err(|e| IndexError::Io(format!("clearing the spill: {e}")))?;
                if let Some(s) = digest.samples.as_mut() {
                    s.clear()?;
                }
            }
            Err(e) => return Err(e),
        }
    }
    // (Planned only when pass 1 is still to do: the plan looks at every event file's size.)
    let ahead = if exchanged.is_some() { None } else { Ahead::plan(&stream, o, limit, 0..n) };
    let read = Pass1Read { o, paths: &paths, limit, buffers, progress };
    if exchanged.is_some() {
        // Pass 1 done by the exchange.
    } else if let Some(ahead) = ahead {
        let buffers = ahead.buffers();
        ahead.pass1(
            &mut stream,
            &mut digest,
            spill,
            o,
            &paths,
            0..n,
            None,
            limit,
            buffers,
            progress,
            &mut intervals,
        )?;
    } else if o.build.threads <= 1 {
        read.in_order(&mut stream, &mut digest, spill, &mut intervals)?;
    } else {
        read.pipelined(&mut stream, &mut digest, spill, &mut intervals)?;
    }
    if digest.min_start < i64::MAX {
        stream.note_outside_start(digest.min_start);
    }
    // Every counter sample to the spill (the keys after them are the messages').
    stream.flush_samples();
    digest.spill_samples(spill, true)?;
    let (skel, comms) = match_otf2(stream, &digest, o, exchanged, spill, progress)?;
    tile(skel, digest, Vec::new(), o, spill, sink, progress, comms, exchanged)
}

/// What an OTF2 pass 1 read in this process (not by the exchange, nor ahead) shares: the options, the
/// locations' paths, the intervals the reader buffers and the bytes of its buffers.
struct Pass1Read<'a> {
    o: &'a StreamOptions,
    paths: &'a [String],
    limit: usize,
    buffers: u64,
    progress: &'a (dyn Fn(Progress) + Sync),
}

impl Pass1Read<'_> {
    /// One thread: each location decoded, nested and spilled in its turn.
    fn in_order(
        &self,
        stream: &mut Otf2Stream,
        digest: &mut Digest,
        spill: &mut dyn Spill,
        intervals: &mut u64,
    ) -> Result<(), IndexError> {
        let (o, buffers, n) = (self.o, self.buffers, self.paths.len());
        let mut raw = Vec::new();
        for (k, path) in self.paths.iter().enumerate() {
            raw.clear();
            digest.begin();
            let mut taker =
                DigestTaker { digest: &mut *digest, spill: &mut *spill, path, o, buffers, k, total: n, err: None };
            let (taken, in_order) = stream.location_taken(k, &mut raw, &mut taker, self.limit)?;
            if let Some(e) = taker.err {
                return Err(e);
            }
            *intervals += (taken + raw.len()) as u64;
            digest.end(&raw, taken, in_order, spill, path)?;
            check_pass1(o, stream.held_bytes(), buffers, spill.held() + digest.held_bytes(), (k + 1, n, false))?;
            (self.progress)(Progress::Reading { done: k + 1, total: n, intervals: *intervals });
        }
        Ok(())
    }

    /// Two threads, locations too long to decode ahead: this one decodes each location in its turn and
    /// hands its intervals over as they come ([`ChannelTaker`]); the other nests and spills them.
    fn pipelined(
        &self,
        stream: &mut Otf2Stream,
        digest: &mut Digest,
        spill: &mut dyn Spill,
        intervals: &mut u64,
    ) -> Result<(), IndexError> {
        let (o, buffers, n, paths) = (self.o, self.buffers, self.paths.len(), self.paths);
        let (to_worker, from_reader) = std::sync::mpsc::sync_channel::<Piece>(1);
        let (recycle, recycled) = std::sync::mpsc::channel::<Vec<(RegionId, i64, u64)>>();
        let digest_ref = digest;
        let spill_ref: &mut dyn Spill = &mut *spill;
        let spill_held = AtomicU64::new(0);
        let spill_held = &spill_held;
        std::thread::scope(|s| -> Result<(), IndexError> {
            let worker = s.spawn(move || -> Result<(), IndexError> {
                let mut k = 0;
                digest_ref.begin();
                for piece in from_reader.iter() {
                    match piece {
                        Piece::Prefix(buf, first, open) => {
                            digest_ref.prefix(&buf, first, &open, spill_ref, &paths[k])?;
                            spill_held.store(spill_ref.held() + digest_ref.held_bytes(), Ordering::Relaxed);
                        }
                        Piece::Closed(slot, dur) => digest_ref.closed(slot, dur),
                        Piece::End(rest, taken, in_order, held) => {
                            digest_ref.end(&rest, taken, in_order, spill_ref, &paths[k])?;
                            let spilled = spill_ref.held() + digest_ref.held_bytes();
                            spill_held.store(spilled, Ordering::Relaxed);
                            check_pass1(o, held, buffers, spilled, (k + 1, n, false))?;
                            let _ = recycle.send(rest);
                            digest_ref.begin();
                            k += 1;
                        }
                    }
                }
                Ok(())
            });
            let mut read = || -> Result<(), IndexError> {
                for k in 0..n {
                    let mut raw = recycled.try_recv().unwrap_or_default();
                    raw.clear();
                    let mut taker = ChannelTaker { to: &to_worker, o, buffers, spill_held, k, total: n, err: None };
                    let (taken, in_order) = stream.location_taken(k, &mut raw, &mut taker, self.limit)?;
                    if let Some(e) = taker.err {
                        return Err(e);
                    }
                    *intervals += (taken + raw.len()) as u64;
                    if to_worker.send(Piece::End(raw, taken, in_order, stream.held_bytes())).is_err() {
                        break; // the worker failed: its error is returned below
                    }
                    (self.progress)(Progress::Reading { done: k + 1, total: n, intervals: *intervals });
                }
                Ok(())
            };
            let r = read();
            drop(to_worker);
            worker.join().expect("the spill worker does not panic")?;
            r
        })
    }
}

/// The end of an OTF2 pass 1: the messages matched and the collective rows made, both put into the spill
/// as they come (`comms`), not into the trace; the trace's skeleton (the trace without its events).
fn match_otf2(
    stream: Otf2Stream,
    digest: &Digest,
    o: &StreamOptions,
    exchanged: Option<&dyn Exchange>,
    spill: &mut dyn Spill,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<(Trace, CommSpill), IndexError> {
    let n = stream.location_count();
    let first = digest.samples.as_ref().map_or(n + exchanged.is_some() as usize, CounterSamples::next_key);
    let mut comms = comm_spill(n, o, first);
    comms.in_receive_order = !stream.ends_spilled();
    // Shards that exchanged their locations each matched the messages their own locations received
    // (`exchanged::pass1`): they add up what they matched, and number the messages together
    // (`message_sort`), sampling them as they come.
    progress(Progress::Step(Step::Matching));
    if exchanged.is_none() {
        // Every receive recorded is matched here (a shard keeps only its own locations').
        comms.expect_messages(stream.end_counts()[1]);
    }
    let mut sampler = crate::shard::message_sort::Sampler::default();
    let mut message = |m: &weft_model::MessageRecord, nth| {
        let m = raw_message(m, nth);
        if exchanged.is_some() {
            sampler.see(&m);
        }
        comms.message(m, &mut *spill)
    };
    let (skel, collectives) = stream.finish_streamed_deferred(&mut message, &mut |share| match exchanged {
        Some(x) => crate::shard::exchange::matched_together(x, share),
        None => Ok(share),
    })?;
    put_collectives(&skel, collectives, &mut comms, &sampler, o, exchanged, spill, progress)?;
    Ok((skel, comms))
}

/// The collective rows to their blocks' files, and the messages matched to theirs. With a spare thread,
/// the blocks' communication held as rows and the collective rows in memory within a quarter of that share:
/// the collective rows gathered on this thread into lists of their own while another puts the messages
/// (the reader's collective rows come one after another, on this thread).
#[allow(clippy::too_many_arguments)]
fn put_collectives(
    skel: &Trace,
    collectives: weft_readers::otf2::PendingCollectives,
    comms: &mut CommSpill,
    sampler: &crate::shard::message_sort::Sampler,
    o: &StreamOptions,
    exchanged: Option<&dyn Exchange>,
    spill: &mut dyn Spill,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<(), IndexError> {
    let origin = skel.origin_ns;
    let spilling = |e: String| IndexError::Io(format!("spilling the messages: {e}"));
    let rows_bytes = |n: u64| n.saturating_mul(std::mem::size_of::<CollectiveRow>() as u64);
    let apart = exchanged.is_none()
        && o.build.threads > 1
        && comms.holds()
        && collectives.rows_in_memory().is_some_and(|n| rows_bytes(n) <= o.held() / 4);
    if apart {
        progress(Progress::Step(Step::Messages));
        let mut lists = comms.collective_lists();
        let mut rows = 0u64;
        let (gathered, put) = std::thread::scope(|s| {
            let put = s.spawn(|| comms.finish_messages(origin, &mut *spill));
            let gathered = collectives.each(&mut |c, origin| {
                rows += 1;
                lists.push(collective_row(c, rows - 1, origin));
                Ok(())
            });
            (gathered, put.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
        });
        gathered?;
        put.map_err(spilling)?;
        comms.add_collectives(lists, spill).map_err(spilling)?;
    } else {
        let mut rows = 0u64;
        collectives.each(&mut |c, origin| {
            rows += 1;
            comms.collective(&collective_row(c, rows - 1, origin), &mut *spill)
        })?;
        progress(Progress::Step(Step::Messages));
        match exchanged {
            Some(x) => {
                crate::shard::message_sort::finish_messages_exchanged(x, comms, sampler, origin, spill, o.runs())
            }
            None => comms.finish_messages(origin, spill),
        }
        .map_err(spilling)?;
    }
    Ok(())
}

/// Bytes a location decoded ahead of its turn holds per interval until then: its intervals as decoded and
/// nested (as columns).
const AHEAD_BYTES_PER_INTERVAL: u64 = RAW_INTERVAL_BYTES + INTERVAL_BYTES;

/// Event-file bytes per interval by which a location's length is guessed before decoding it (an interval is
/// an ENTER and a LEAVE, each a record and a timestamp: about 24 bytes; 28 on the generated traces): one
/// guessed longer than a decoder reading ahead may hold is read in its turn without being decoded ahead
/// first. A denser one is decoded ahead up to the cap, then given back.
const AHEAD_MIN_BYTES_PER_INTERVAL: u64 = 24;

/// Pass 1 of an OTF2 index with 2 threads or more: `decoders` threads decode locations ahead of their turn
/// (`Otf2Stream::decoder`), each a location whole, at most `cap` intervals, and nest it; this thread replays
/// each in location order (`Otf2Stream::replay`: the builder sees what a read in order gives it) and spills
/// its intervals. At most `window` locations are decoded ahead of the one taken. A location longer than
/// `cap`, or naming a region the definitions do not, is read here in its turn, as with one thread.
pub(super) struct Ahead {
    decoders: usize,
    window: usize,
    cap: usize,
}

/// A location decoded ahead: its log, its nested intervals, their latest end, its clipped ones.
struct DecodedLocation {
    log: weft_readers::otf2::LocationLog,
    nested: NestedColumns,
    end: i128,
    /// How many intervals were clipped, and the first five (region, start, excess).
    clips: u64,
    examples: Vec<(RegionId, i64, u64)>,
}

/// What a decoding thread hands over for a location: None when it is to be read in its turn.
type Decoded = Result<Option<DecodedLocation>, ReadError>;

/// What [`Ahead::pass1`]'s decoding threads share with the thread that takes their locations in order.
struct AheadTurns<'d, 'f> {
    decoder: &'d weft_readers::otf2::Decoder<'f>,
    /// The next location a decoding thread takes.
    next: AtomicUsize,
    /// Locations taken (in order) so far; usize::MAX once the taking thread stopped.
    taken: (Mutex<usize>, std::sync::Condvar),
    end: usize,
    window: usize,
    cap: usize,
    /// Nested lists handed back to the decoders once spilled (fresh ones would cost their pages again).
    recycled: Mutex<std::sync::mpsc::Receiver<NestedColumns>>,
}

impl AheadTurns<'_, '_> {
    /// A decoding thread: locations taken in turn from `next`, at most `window` ahead of the one taken,
    /// each decoded and nested, to `to_reader`; until every location is taken or the taking thread stops.
    fn decode_ahead(&self, to_reader: std::sync::mpsc::Sender<(usize, Decoded)>) {
        let mut raw = Vec::new();
        loop {
            let k = self.next.fetch_add(1, Ordering::Relaxed);
            if k >= self.end || !self.wait_turn(k) {
                return;
            }
            let decode = std::panic::AssertUnwindSafe(|| self.decode(k, &mut raw));
            // A panic here would leave the reader waiting for location `k`: it is an error instead.
            let decoded = std::panic::catch_unwind(decode).unwrap_or_else(|_| {
                Err(ReadError::Io { file: format!("location {k}"), detail: "its decoding thread panicked".into() })
            });
            if to_reader.send((k, decoded)).is_err() {
                return;
            }
        }
    }

    /// Wait until location `k` is within `window` of the one taken: false when the taking thread stopped.
    fn wait_turn(&self, k: usize) -> bool {
        let mut t = self.taken.0.lock().unwrap_or_else(|e| e.into_inner());
        while *t != usize::MAX && k >= *t + self.window {
            t = self.taken.1.wait(t).unwrap_or_else(|e| e.into_inner());
        }
        *t != usize::MAX
    }

    /// Location `k` decoded whole (at most `cap` intervals) and nested, or None to be read in its turn.
    fn decode(&self, k: usize, raw: &mut Vec<(RegionId, i64, u64)>) -> Decoded {
        if self.decoder.event_bytes(k) / AHEAD_MIN_BYTES_PER_INTERVAL > self.cap as u64 {
            return Ok(None);
        }
        raw.clear();
        let log = self.decoder.decode(k, raw, self.cap)?;
        Ok(log.map(|log| {
            let (mut clips, mut examples) = (0u64, Vec::new());
            let mut nested = match self.recycled.lock() {
                Ok(r) => r.try_recv().unwrap_or_default(),
                Err(_) => NestedColumns::default(),
            };
            let end = nest(raw, &mut nested, &mut |r, s, x| {
                clips += 1;
                if clips <= 5 {
                    examples.push((r, s, x));
                }
            });
            DecodedLocation { log, nested, end, clips, examples }
        }))
    }

    /// Location `k` taken: the decoding threads may go up to `window` past it (usize::MAX: stop).
    fn set_taken(&self, k: usize) {
        *self.taken.0.lock().unwrap_or_else(|e| e.into_inner()) = k;
        self.taken.1.notify_all();
    }
}

impl Ahead {
    /// Decoding ahead, when `--threads` is 2 or more and most of the event bytes are in locations short
    /// enough for it; else (an archive mostly of locations too long to decode ahead) the two-thread pipeline,
    /// a location nested on a second thread as it is decoded. With 2 threads the pipeline's read is
    /// decode-bound (its nesting thread idles most of the read): decoding ahead on both took the 24 M-event
    /// trace's read from 0.76-1.15 s to 0.77-0.90 s, its wall by a tenth (medians), for 3 % more CPU
    /// (BENCHMARKS.md, "Session 27"; in session 14, before the columns were held, it was as fast for 10 %
    /// more). A shard decoding only its own locations (`exchange`, `locations` its own) logs them as bytes
    /// whichever way a location is read (with one thread, in turn: `exchanged::decode_in_turn`).
    pub(super) fn plan(
        stream: &Otf2Stream,
        o: &StreamOptions,
        limit: usize,
        locations: std::ops::Range<usize>,
    ) -> Option<Ahead> {
        if o.build.threads < 2 {
            return None;
        }
        let decoders = o.build.threads;
        let window = decoders + 1;
        // The two-thread pipeline's share for its buffers, shared by the locations decoded ahead.
        let cap = ((4 * limit as u64 * RAW_INTERVAL_BYTES) / window as u64 / AHEAD_BYTES_PER_INTERVAL).max(1) as usize;
        let decoder = stream.decoder();
        let (mut short, mut long) = (0u64, 0u64);
        for k in locations {
            let bytes = decoder.event_bytes(k);
            match bytes / AHEAD_MIN_BYTES_PER_INTERVAL > cap as u64 {
                true => long += bytes,
                false => short += bytes,
            }
        }
        (short >= long).then_some(Ahead { decoders, window, cap })
    }

    /// What the pass's buffers hold at most: the decoders' read windows and the locations decoded ahead
    /// (or the one read in its turn).
    pub(super) fn buffers(&self) -> u64 {
        self.decoders as u64 * weft_readers::otf2::READ_WINDOW as u64
            + (self.window as u64 * self.cap as u64 * AHEAD_BYTES_PER_INTERVAL)
                .max(4 * self.cap as u64 * RAW_INTERVAL_BYTES)
    }

    /// Pass 1 over `locations` (all, or a shard's own: `exchange`). Without `log_key` each location's log
    /// is replayed into `stream` in its turn; with it (a shard decoding only its own locations) it goes to
    /// that spill key as bytes (`exchanged::write_log`, or read in its turn by `exchanged::decode_in_turn`).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn pass1(
        &self,
        stream: &mut Otf2Stream,
        digest: &mut Digest,
        spill: &mut dyn Spill,
        o: &StreamOptions,
        paths: &[String],
        locations: std::ops::Range<usize>,
        log_key: Option<usize>,
        limit: usize,
        buffers: u64,
        progress: &(dyn Fn(Progress) + Sync),
        intervals: &mut u64,
    ) -> Result<(), IndexError> {
        let n = paths.len();
        let decoder = stream.decoder();
        let (to_reader, from_decoders) = std::sync::mpsc::channel::<(usize, Decoded)>();
        let (recycle, recycled) = std::sync::mpsc::channel::<NestedColumns>();
        let turns = AheadTurns {
            decoder: &decoder,
            next: AtomicUsize::new(locations.start),
            taken: (Mutex::new(locations.start), std::sync::Condvar::new()),
            end: locations.end,
            window: self.window,
            cap: self.cap,
            recycled: Mutex::new(recycled),
        };
        let (turns, decoder) = (&turns, &decoder);
        std::thread::scope(|s| {
            for _ in 0..self.decoders {
                let to_reader = to_reader.clone();
                s.spawn(move || turns.decode_ahead(to_reader));
            }
            drop(to_reader);
            let mut ready: std::collections::BTreeMap<usize, Decoded> = Default::default();
            let mut raw = Vec::new();
            let (first, total) = (locations.start, locations.len());
            let mut read = || -> Result<(), IndexError> {
                for k in locations.clone() {
                    let path = &paths[k];
                    let decoded = loop {
                        if let Some(d) = ready.remove(&k) {
                            break d;
                        }
                        match from_decoders.recv() {
                            Ok((j, d)) => {
                                ready.insert(j, d);
                            }
                            Err(_) => return Err(IndexError::Io("a decoding thread stopped".into())),
                        }
                    };
                    digest.begin();
                    match (decoded?, log_key) {
                        (Some(DecodedLocation { log, nested, end, clips, examples }), log_key) => {
                            // Replayed here, or (a shard decoding only its own locations) to the spill.
                            let log = match log_key {
                                None => stream.replay(k, log).map(|()| None)?,
                                Some(key) => Some((key, log)),
                            };
                            *intervals += nested.len() as u64;
                            digest.add_clips(clips, &examples);
                            digest.nested_location(&nested, end, spill, path)?;
                            if let Some((key, log)) = log {
                                exchanged::write_log(spill, key, k, log, nested.len() as u64, path)?;
                            }
                            let _ = recycle.send(nested);
                        }
                        (None, Some(key)) => {
                            // Read in its turn, its log to the spill.
                            *intervals += exchanged::decode_in_turn(
                                decoder, digest, spill, o, paths, k, limit, buffers, key, &mut raw,
                            )?;
                        }
                        (None, None) => {
                            // Read in its turn, as with one thread.
                            raw.clear();
                            let mut taker = DigestTaker {
                                digest: &mut *digest,
                                spill: &mut *spill,
                                path,
                                o,
                                buffers,
                                k,
                                total: n,
                                err: None,
                            };
                            let (taken, in_order) = stream.location_taken(k, &mut raw, &mut taker, limit)?;
                            if let Some(e) = taker.err {
                                return Err(e);
                            }
                            *intervals += (taken + raw.len()) as u64;
                            digest.end(&raw, taken, in_order, spill, path)?;
                        }
                    }
                    let held = spill.held() + digest.held_bytes();
                    check_pass1(o, stream.held_bytes(), buffers, held, (k + 1 - first, total, false))?;
                    progress(Progress::Reading { done: k + 1 - first, total, intervals: *intervals });
                    turns.set_taken(k + 1);
                }
                Ok(())
            };
            let r = read();
            // Stop the decoders (after an error, those waiting for their turn).
            turns.set_taken(usize::MAX);
            drop(from_decoders);
            r
        })
    }
}

/// Where a streamed index puts its messages and collective rows: the files of the blocks this index tiles,
/// in the spill from key `first` on (after the `n` locations' keys, and a shard's log, `exchange`).
fn comm_spill(n: usize, o: &StreamOptions, first: usize) -> CommSpill {
    let bl = o.build.block_locations.max(1);
    let blocks = (n as u32).div_ceil(bl);
    let routed = o.shard.map_or(0..blocks, |s| s.blocks(blocks));
    let mut comms = CommSpill::new(n as u32, bl, routed, first, o.runs());
    // The blocks' communication held as rows while it fits the columns' share (`tile` sends it to the
    // blocks' files after all when a block is to be tiled by time range).
    comms.hold(o.held());
    comms
}

/// A matched message as `comms` sorts it.
fn raw_message(m: &weft_model::MessageRecord, nth: u64) -> RawMessage {
    RawMessage::of(m, nth)
}

/// Collective row `index` as the builder makes it: times from `origin`, the end no earlier than the start.
fn collective_row(c: &weft_model::CollectiveRecord, index: u64, origin: i64) -> CollectiveRow {
    let rel = |t: i64| t.saturating_sub(origin).max(0) as u64;
    CollectiveRow {
        index,
        operation: c.operation,
        location: c.location,
        region: c.region,
        communicator: c.communicator,
        root: c.root,
        start_ns: rel(c.start_ns),
        end_ns: rel(c.end_ns.max(c.start_ns)),
        bytes_sent: c.bytes_sent,
        bytes_received: c.bytes_received,
    }
}

/// Bytes a Chrome JSON or Paraver location takes per record at most while it is read back whole at the end
/// of the read (its spilled bytes, the records, the intervals handed over, their nested columns): about 75
/// measured (3 M X events on one thread: 244 MiB at the peak under `--memory 250M`).
const READ_BACK_BYTES: u64 = 80;

/// Of `--memory`, what one Chrome JSON or Paraver location read back whole may take (the rest holds the
/// definitions, the compact records kept to the end and the spill's buffers): three quarters.
fn location_cap(o: &StreamOptions) -> weft_readers::budget::LocationCap {
    let allowed = o.budget().location_read_back();
    let memory = o.memory;
    weft_readers::budget::LocationCap {
        records: allowed / READ_BACK_BYTES,
        refuse: Box::new(move |label, n| {
            let need = n.saturating_mul(READ_BACK_BYTES);
            format!(
                "location {label} holds {n} records, which this format's index reads back whole at \
                 the end of the read (to match, sort and nest them): about {} MB, over the {} MB that --memory \
                 {} MB allows one location: use --memory {}M or more",
                need.div_ceil(1 << 20),
                allowed >> 20,
                memory >> 20,
                (need / 3 * 4).div_ceil(1 << 20) + 1
            )
        }),
    }
}

/// Index a Chrome trace read from `input` in chunks of `chunk` bytes: each thread's events are spilled to
/// `events` as they come (at most an eighth of `memory` buffered), read back thread by thread at the end,
/// matched as the reader matches them, nested and spilled to `spill`; then tiled as [`index_otf2`] does.
/// `total` is the input's size for progress (0 when unknown).
#[allow(clippy::too_many_arguments)]
pub fn index_chrome(
    name: &str,
    input: &mut dyn std::io::Read,
    chunk: usize,
    total: u64,
    spills: ReadSpills,
    o: &StreamOptions,
    spill: &mut dyn Spill,
    sink: &dyn TileSink,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<Indexed, IndexError> {
    use weft_readers::chrome::ChromeStreamReader;
    let ChunkedRead { events, mut samples, to_samples, mut messages, to_messages } = spills.split(o);
    let mut reader = ChromeStreamReader::spilling(name, events, o.event_buffer());
    reader.cap_locations(location_cap(o));
    reader.sink_samples(to_samples);
    reader.sink_messages(to_messages);
    let mut buf = vec![0u8; chunk.max(1)];
    let mut done = 0u64;
    loop {
        let n = match input.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(ReadError::Io { file: name.to_string(), detail: e.to_string() }.into()),
        };
        reader.feed(&buf[..n])?;
        spill_between_chunks(&mut samples, &mut messages)?;
        done += n as u64;
        let kept = reader.kept();
        if kept.memory_needed(Budget::CHROME_KEPT_SHARE) > o.memory {
            return Err(IndexError::Memory(kept_refusal(name, &kept, done, total, o.memory)));
        }
        progress(Progress::ReadingBytes { done, total });
    }
    drop(buf);
    let mut digest = Digest::new(o, None);
    digest.samples = Some(samples);
    let b = reader.finish_streamed(&mut |_, raw| digest.location(raw, spill, name).map_err(|e| e.to_string()))?;
    tile_chunked(b, digest, messages, Vec::new(), o, spill, sink, progress)
}

/// The refusal of a Chrome read whose kept records (`kept`, after `done` bytes of `total`) passed their share
/// of `memory`: what they are, and the `--memory` the whole file needs at the rate read.
fn kept_refusal(name: &str, kept: &weft_readers::chrome::Kept, done: u64, total: u64, memory: u64) -> String {
    let need = kept.memory_needed(Budget::CHROME_KEPT_SHARE);
    let whole = if total > done { (need as u128 * total as u128 / done.max(1) as u128) as u64 } else { need };
    let mut what = Vec::new();
    for (n, one, many) in [
        (kept.instants, "instant", "instants"),
        (kept.asyncs, "async event", "async events"),
        (kept.flow_ends, "flow end", "flow ends"),
    ] {
        if n > 0 {
            what.push(format!("{n} {}", if n == 1 { one } else { many }));
        }
    }
    what.push("the names".into());
    let what = match what.len() {
        1 => what.pop().unwrap_or_default(),
        k => format!("{} and {}", what[..k - 1].join(", "), what[k - 1]),
    };
    format!(
        "{name}: the {what} in its first {} MB, which this format's index keeps to the end of the read (to sort and \
         match them there), need about {} MB of --memory, more than its {} MB; use --memory {}M or more",
        done >> 20,
        need.div_ceil(1 << 20),
        memory >> 20,
        (whole >> 20) + 1
    )
}

/// Where a chunked read (Chrome JSON, Paraver) spills what it cannot hold until the end of the read: each
/// location's records (`events`, keyed by location as they appear), the counter samples in sorted runs
/// (`samples`) and the messages in runs in the trace's order (`messages`): the index's own spill numbers its
/// keys by location, known only once the read ends.
pub struct ReadSpills {
    pub events: Box<dyn weft_readers::chrome::EventSpill>,
    pub samples: Box<dyn Spill>,
    pub messages: Box<dyn Spill>,
}

impl ReadSpills {
    /// All three held in memory (tests, small traces).
    pub fn in_memory() -> ReadSpills {
        ReadSpills {
            events: Box::new(crate::spill::ReaderSpill(MemorySpill::default())),
            samples: Box::new(MemorySpill::default()),
            messages: Box::new(MemorySpill::default()),
        }
    }

    /// What the read needs: the events' spill; the counter samples and the messages, each spilled to its own
    /// past its share of `--memory`; and their sinks for the reader's builder.
    fn split(self, o: &StreamOptions) -> ChunkedRead {
        let (samples, to_samples) =
            CounterSamples::with_spill(o.shard.is_none_or(|s| s.counters()), o.runs(), self.samples);
        let (messages, to_messages) = MessageRuns::new(self.messages, o.runs());
        ChunkedRead { events: self.events, samples, to_samples, messages, to_messages }
    }
}

/// A chunked read's spills and sinks ([`ReadSpills::split`]).
struct ChunkedRead {
    events: Box<dyn weft_readers::chrome::EventSpill>,
    samples: CounterSamples,
    to_samples: Box<dyn weft_model::SampleSink>,
    messages: MessageRuns,
    to_messages: Box<dyn weft_model::MessageSink>,
}

/// The samples and messages a chunked read has handed over so far to their spills, when they fill a run.
fn spill_between_chunks(samples: &mut CounterSamples, messages: &mut MessageRuns) -> Result<(), IndexError> {
    samples.spill_own(false)?;
    messages.spill(false).map_err(|e| IndexError::Io(format!("spilling the messages: {e}")))
}

/// The end of a chunked read: the builder's last samples and messages handed over, every sample to the
/// spill, and the messages merged in the trace's order into the blocks' files with the collective rows;
/// then tiled as [`index_otf2`] does.
#[allow(clippy::too_many_arguments)]
fn tile_chunked(
    mut b: weft_model::TraceBuilder,
    mut digest: Digest,
    messages: MessageRuns,
    late: Vec<(WarningKind, String)>,
    o: &StreamOptions,
    spill: &mut dyn Spill,
    sink: &dyn TileSink,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<Indexed, IndexError> {
    if digest.min_start < i64::MAX {
        b.note_outside_start(digest.min_start);
    }
    b.flush_samples();
    b.flush_messages();
    digest.spill_samples(spill, true)?;
    let mut skel = b.finish();
    let n = skel.locations.len();
    let spilling = |e: String| IndexError::Io(format!("spilling the messages: {e}"));
    let mut comms = comm_spill(n, o, n);
    progress(Progress::Step(Step::Messages));
    comms.bytes += messages.finish(&mut comms, skel.origin_ns, spill).map_err(spilling)?;
    for i in 0..skel.collectives.len() {
        comms.collective(&comms::collective_row(&skel, i), spill).map_err(spilling)?;
    }
    skel.collectives = Default::default();
    tile(skel, digest, late, o, spill, sink, progress, comms, None)
}

/// Index a Paraver trace: the .prv's text read from `input` in chunks of about `chunk` bytes (the caller
/// inflates a .prv.gz), names from the `pcf` and `row` bytes; each location's intervals spilled to `events`
/// as they come, read back location by location at the end, nested and spilled to `spill`; then tiled as
/// [`index_otf2`] does. `late` gives, once the input is read, warnings the whole read adds after its
/// trace is built (a name file left out, a gzip stream that broke off). `total` is for progress.
#[allow(clippy::too_many_arguments)]
pub fn index_paraver(
    name: &str,
    input: &mut dyn std::io::Read,
    chunk: usize,
    total: u64,
    pcf: Option<&[u8]>,
    row: Option<&[u8]>,
    late: &dyn Fn() -> Vec<(WarningKind, String)>,
    spills: ReadSpills,
    o: &StreamOptions,
    spill: &mut dyn Spill,
    sink: &dyn TileSink,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<Indexed, IndexError> {
    let ChunkedRead { events, mut samples, to_samples, mut messages, to_messages } = spills.split(o);
    let mut digest = Digest::new(o, None);
    // The samples read so far go to their spill between chunks (past their share).
    let b = weft_readers::paraver::read_streamed(
        name,
        input,
        chunk,
        pcf,
        row,
        events,
        to_samples,
        to_messages,
        o.event_buffer(),
        Some(location_cap(o)),
        &mut |_, raw| digest.location(raw, spill, name).map_err(|e| e.to_string()),
        &mut |done| {
            spill_between_chunks(&mut samples, &mut messages).map_err(|e| e.to_string())?;
            progress(Progress::ReadingBytes { done, total });
            Ok(())
        },
    )?;
    digest.samples = Some(samples);
    tile_chunked(b, digest, messages, late(), o, spill, sink, progress)
}

/// Pass 2, whatever the format: `skel` is the trace without intervals (its origin counts the spilled
/// intervals' earliest start), `digest` what pass 1 learnt and spilled, `comms` the messages and
/// collective rows spilled. In steps: the skeleton finished ([`finish_skeleton`]), memory shared among the
/// block tasks ([`Pass2::plan`]), the blocks tiled ([`BlockTasks`]), then the particle and counter tiles and
/// the manifest.
#[allow(clippy::too_many_arguments)]
fn tile(
    mut skel: Trace,
    digest: Digest,
    late: Vec<(WarningKind, String)>,
    o: &StreamOptions,
    spill: &mut dyn Spill,
    sink: &dyn TileSink,
    progress: &(dyn Fn(Progress) + Sync),
    mut comms: CommSpill,
    exchanged: Option<&dyn Exchange>,
) -> Result<Indexed, IndexError> {
    let Digest {
        counts,
        max_end,
        clipped,
        clip_examples,
        mut spill_bytes,
        totals: whole_totals,
        mut held,
        mut w,
        samples,
        deepest,
        ..
    } = digest;
    let n = counts.len();
    if skel.locations.len() != n {
        return Err(IndexError::Io(format!("the reader gave intervals for {n} locations of {}", skel.locations.len())));
    }
    // `--waits` sorts its lists in runs within shares of `--memory` (`crate::waits`): refused now, not after
    // the blocks are tiled, only where a share could not hold a sort's least. (A part computes none: the
    // merge does.)
    if o.build.waits && !(o.shard.is_some() && whole_totals.is_some()) {
        if let Some(why) = crate::waits::too_little(o.memory) {
            return Err(IndexError::Memory(why));
        }
    }
    finish_skeleton(&mut skel, comms.max_ns, max_end, clipped, &clip_examples, late);
    let p = Pass2::plan(
        &skel,
        &counts,
        deepest,
        o,
        exchanged.is_some(),
        spill,
        &mut comms,
        &mut held,
        &mut w,
        &mut spill_bytes,
    )?;
    drop(w);
    let t = p.plan.tiling;
    let mut runs_bytes = comms.bytes;
    if let Some(h) = &mut held {
        h.rebase(skel.origin_ns);
    }
    let keys = std::mem::replace(&mut comms.keys, Keys(0));
    let tasks = BlockTasks {
        skel: &skel,
        p: &p,
        counts: &counts,
        o,
        held: held.as_ref(),
        comms: &comms,
        sink,
        spill: RwLock::new(spill),
        particle_runs: Mutex::new((Runs::new(p.page), keys, ParticleExtents::default())),
        piece_bytes: AtomicU64::new(0),
    };
    let TiledBlocks { entries, totals, lanes } = tasks.run(progress)?;
    if p.with_particles {
        progress(Progress::Step(Step::ParticleTiles));
    }
    if exchanged.is_none() && p.with_particles {
        tasks.other_blocks_particles()?;
    }
    let (runs, mut keys, extents, spill, piece_bytes) = tasks.into_parts()?;
    runs_bytes += piece_bytes;
    let with_counters = o.shard.is_none_or(|s| s.counters());
    let mut stats = None;
    // (Shared with the particle tasks, which write their tiles themselves and hand their entries over.)
    let entries = std::cell::RefCell::new(entries);
    let mut put = |e: TileEntry, bytes: Vec<u8>| -> Result<(), IndexError> {
        sink.put(&e.path, &bytes).map_err(|d| IndexError::Io(format!("{}: {d}", e.path)))?;
        entries.borrow_mut().push(e);
        Ok(())
    };
    if let Some(x) = exchanged {
        // Each shard writes the particle tiles of its own range of windows, from every shard's intervals there.
        let (extents, bytes) = exchange_particles(x, &t, &runs, &mut keys, &mut *spill, p.run_len, p.page, &mut put)?;
        if x.shard().index == 0 {
            stats = extents.stats(&skel);
        }
        runs_bytes += runs.bytes + bytes;
    } else if p.with_particles {
        // Every block's run merged: the particle tiles window by window, as `build::particle_tiles` cuts
        // them from all of them sorted. On the threads, each a range of the windows, as many as the memory
        // the blocks used holds a merge of the runs for (each holds a page of every run).
        let ranges = o.build.threads.min(t.windows as usize).min(1 + (p.room / p.runs_share.max(1)) as usize).max(1);
        cut_particles_on(&runs, &*spill, t, ranges, extents.max_dur(), sink, &mut put, &entries)?;
        stats = extents.stats(&skel);
        runs_bytes += runs.bytes;
    }
    runs_bytes += samples.as_ref().map_or(0, |s| s.bytes);
    if with_counters {
        if !skel.counters.series_name.is_empty() {
            progress(Progress::Step(Step::CounterTiles));
        }
        match &samples {
            // (Spilled in runs by pass 1.)
            Some(s) => {
                // A window's samples within what the skeleton and the spill leave (`tiles` takes the merge's
                // pages off).
                let left = o.memory.saturating_sub(skel_bytes(&skel) + spill.held());
                s.tiles(spill, skel.origin_ns, &t, &p.plan.levels, (left, o.memory), &mut put)?
            }
            None => {
                for (e, bytes) in counter_tiles(&skel, &t) {
                    put(e, bytes)?;
                }
            }
        }
    }
    let (manifest, part) = match (o.shard, whole_totals) {
        (Some(shard), Some(whole)) => {
            let mut whole = whole.totals;
            whole.resize(skel.regions.len(), (0, 0));
            let mut m = manifest(&skel, &o.build, &p.plan, entries.into_inner(), &counts, &lanes, &whole);
            m.particles = stats;
            comms.count(&mut m.counts);
            if let Some(s) = &samples {
                m.counts.counter_samples = s.count();
            }
            let part = part_manifest(m, &skel, &comms.tally, &counts, shard, &totals, o.build.waits);
            (part.store.clone(), Some(part))
        }
        _ => {
            let mut m = manifest(&skel, &o.build, &p.plan, entries.into_inner(), &counts, &lanes, &totals);
            m.particles = stats;
            comms.count(&mut m.counts);
            if let Some(s) = &samples {
                m.counts.counter_samples = s.count();
            }
            if o.build.waits {
                // Within what the skeleton leaves of --memory, its sorts' runs in the spill (whose pass-1
                // bytes are no longer needed: cleared).
                progress(Progress::Step(Step::Waits));
                let memory = o.memory.saturating_sub(skel_bytes(&skel));
                let mut put = |path: &str, bytes: &[u8]| sink.put(path, bytes);
                spill_bytes += crate::waits::add_waits_within(&mut m, &|path| sink.get(path), &mut put, spill, memory)
                    .map_err(IndexError::Io)?;
            }
            (m, None)
        }
    };
    Ok(Indexed {
        manifest,
        part,
        spill_bytes,
        runs_bytes,
        blocks_in_flight: p.in_flight,
        busiest_block_bytes: p.busiest,
        ranged_blocks: p.ranged.iter().filter(|r| r.is_some()).count(),
    })
}

/// The skeleton's span to the last end pass 1 saw (intervals and communication), and its warnings: the
/// intervals clipped to their enclosing one (five named, the rest counted) and the reader's late ones.
fn finish_skeleton(
    skel: &mut Trace,
    comms_max_ns: u64,
    max_end: i128,
    clipped: u64,
    clip_examples: &[(RegionId, i64, u64)],
    late: Vec<(WarningKind, String)>,
) {
    let origin = skel.origin_ns;
    skel.span_ns = skel.span_ns.max(comms_max_ns);
    if max_end > i128::MIN {
        skel.span_ns = skel.span_ns.max((max_end - origin as i128).clamp(0, u64::MAX as i128) as u64);
    }
    for &(r, s, x) in clip_examples {
        let name = skel.strings.get(skel.regions.name[r.index()]).to_string();
        let start = s.saturating_sub(origin).max(0) as u64;
        skel.warnings.push(WarningKind::ImproperNesting, || {
            format!("'{name}' at {start} ns outlasts its enclosing slice by {x} ns; clipped")
        });
    }
    if clipped > 5 {
        skel.warnings.add_count(WarningKind::ImproperNesting, clipped - 5);
    }
    for (kind, text) in late {
        skel.warnings.push(kind, || text);
    }
    skel.location_intervals = vec![0..0; skel.locations.len()];
}

/// Pass 2's plan: the tiling, the blocks this index tiles, and how `--memory` is shared among their tasks
/// (how many run at once, each one's share, which blocks are tiled by time range, and whether the columns
/// and the communication held stay held).
struct Pass2 {
    plan: Plan,
    /// Locations and blocks of the trace.
    n: usize,
    blocks: usize,
    /// The blocks this index tiles (all, or a shard's), and how many.
    own: std::ops::Range<usize>,
    tiled: usize,
    block_counts: Vec<u64>,
    /// The trace index of each block's first interval (and one past the last block's).
    first_index: Vec<u64>,
    /// Particles in a run a block task writes at most, and the pages of the runs merged.
    run_len: usize,
    runs_share: u64,
    page: usize,
    /// Whether this index makes particle-view intervals (and with them the particle runs).
    with_particles: bool,
    /// What the busiest block task holds (at most `share`), what stays held beside the tasks, and the room
    /// left to them.
    busiest: u64,
    fixed: u64,
    room: u64,
    /// Block tasks at once, each one's share of `room`, and the threads each task may use besides its own.
    in_flight: usize,
    share: u64,
    spare: usize,
    /// Per block tiled: None whole, else the most intervals a range of it holds.
    ranged: Vec<Option<u64>>,
    any_ranged: bool,
    /// Per block: too long to read whole within a task's share (the particle tiles read others' blocks).
    over_share: Vec<bool>,
    bins: SummaryBytes,
}

impl Pass2 {
    /// Plan pass 2 of the trace `skel` with `counts` intervals a location: the communication held goes to its
    /// blocks' files, and the columns held to the spill, when the tasks would not fit beside them.
    #[allow(clippy::too_many_arguments)]
    fn plan(
        skel: &Trace,
        counts: &[u64],
        deepest: u16,
        o: &StreamOptions,
        exchanged: bool,
        spill: &mut dyn Spill,
        comms: &mut CommSpill,
        held: &mut Option<HeldColumns>,
        w: &mut ColumnWriter,
        spill_bytes: &mut u64,
    ) -> Result<Pass2, IndexError> {
        let n = counts.len();
        let spilling = |e: String| IndexError::Io(format!("spilling the messages: {e}"));
        let plan = Plan::new(skel, tiling_of(counts, skel.span_ns, skel.counters.series_name.len() as u32, &o.build));
        let t = plan.tiling;
        let blocks = t.blocks as usize;
        // The blocks this index tiles: all, or a shard's.
        let own = o.shard.map_or(0..t.blocks, |s| s.blocks(t.blocks));
        let (own, tiled) = (own.start as usize..own.end as usize, own.len());
        let block_counts: Vec<u64> =
            (0..t.blocks).map(|b| t.block_range(b, n as u32).map(|l| counts[l as usize]).sum()).collect();
        // A block task holds its intervals' columns and tiles, its summary bins, and its messages and
        // collective rows. (Lanes by the deepest interval pass 1 met: the summaries' lanes are a block's
        // depths, and counting the most there may be put a long trace of 32 locations in one block past 6 GB
        // where it takes 700 MB.)
        let bins = SummaryBytes::of(&plan, deepest as usize + 1);
        let run_len = particle_run_len(o.budget());
        let (runs_share, with_particles) = (o.runs(), exchanged || o.shard.is_none_or(|s| s.particles()));
        let sizes = BlockSizes { t, n, counts: &block_counts, bins, run_len, with_particles };
        let block_total = |comms: &CommSpill, b: usize| sizes.total(comms, b);
        let busiest_of = |comms: &CommSpill| own.clone().map(|b| block_total(comms, b)).max().unwrap_or(0);
        // What stays held beside the tasks: the definitions, the communication held, the particle runs' pages.
        let kept_of = |comms: &CommSpill| skel_bytes(skel) + comms.held() + if with_particles { runs_share } else { 0 };
        if comms.holds() {
            // The rows held stay so only when every block is tiled whole with them and the columns held: a
            // block tiled by time range reads its file a piece at a time (and the files may leave more room).
            let fixed = kept_of(comms) + spill.held() + held.as_ref().map_or(0, HeldColumns::bytes);
            if o.range_intervals > 0 || busiest_of(comms) > o.memory.saturating_sub(fixed) {
                comms.spill_held(spill).map_err(spilling)?;
            }
        }
        comms.close(spill).map_err(spilling)?;
        let busiest = busiest_of(comms);
        // The shard that writes the particle tiles makes every block's particle-view intervals; shards that
        // decoded only their own locations (`exchanged`) each make their own blocks', and exchange them so
        // that each writes the tiles of its range of windows (`exchange_particles`).
        let kept = kept_of(comms);
        let mut fixed = kept + spill.held() + held.as_ref().map_or(0, HeldColumns::bytes);
        if busiest > o.memory.saturating_sub(fixed) {
            // The columns held leave too little room to tile: to the spill with them (a block's are then read
            // back from it, as they would have been).
            if let Some(h) = held.take() {
                *spill_bytes += h.spill(spill, None, w).map_err(|e| IndexError::Io(format!("spilling: {e}")))?;
                fixed = kept + spill.held();
            }
        }
        let room = o.memory.saturating_sub(fixed);
        // Blocks that fit whole are tiled whole, as many at once as fit; when the busiest does not fit, a task
        // per thread, each within its share, and a block over its share is tiled by time range (`ranged`), a
        // range of windows within the share at a time.
        let (in_flight, share) = match busiest <= room {
            true => (o.build.threads.clamp(1, tiled.max(1)).min((room / busiest.max(1)).max(1) as usize), room),
            false => {
                let in_flight = o.build.threads.clamp(1, tiled.max(1));
                (in_flight, room / in_flight as u64)
            }
        };
        let ranged = sizes.ranged(comms, o, own.clone(), share, fixed, in_flight)?;
        // Threads beyond one a task (fewer blocks than threads, or room for fewer at once): a block's
        // summaries are made beside its level-0 tiles (`build::block_tiles`; range by range, `ranged`).
        let spare = (o.build.threads / in_flight.max(1)).max(1);
        let over_share: Vec<bool> = (0..blocks).map(|b| block_total(comms, b) > share).collect();
        let any_ranged = ranged.iter().any(Option::is_some);
        if any_ranged {
            // Ranges are read from the spill: the columns held go there first.
            if let Some(h) = held.take() {
                *spill_bytes += h.spill(spill, None, w).map_err(|e| IndexError::Io(format!("spilling: {e}")))?;
            }
        }
        let mut first_index = vec![0u64; blocks + 1];
        for b in 0..blocks {
            first_index[b + 1] = first_index[b] + block_counts[b];
        }
        let page = sizes.particle_page(o, &own, exchanged, runs_share);
        Ok(Pass2 {
            plan,
            n,
            blocks,
            own,
            tiled,
            block_counts,
            first_index,
            run_len,
            runs_share,
            page,
            with_particles,
            busiest: busiest.min(share),
            fixed,
            room,
            in_flight,
            share,
            spare,
            ranged,
            any_ranged,
            over_share,
            bins,
        })
    }
}

/// What pass 2's block tasks hold, block by block: the sizes [`Pass2::plan`] weighs (`budget::block_bytes`).
struct BlockSizes<'a> {
    t: Tiling,
    n: usize,
    /// Intervals per block.
    counts: &'a [u64],
    bins: SummaryBytes,
    run_len: usize,
    with_particles: bool,
}

impl BlockSizes<'_> {
    fn locations(&self, b: usize) -> u64 {
        self.t.block_range(b as u32, self.n as u32).len() as u64
    }

    /// What block `b`'s task holds whole, with the communication as `comms` holds it.
    fn total(&self, comms: &CommSpill, b: usize) -> u64 {
        let particles = particle_run_bytes(self.run_len);
        block_bytes(self.counts[b], self.locations(b), self.bins, comms.block_bytes(b), particles)
    }

    /// The most intervals a range of block `b` may hold within `share` (`ranged::most_intervals`).
    fn most(&self, comms: &CommSpill, b: usize, share: u64) -> Option<u64> {
        let particles = particle_run_bytes(if self.with_particles { self.run_len } else { 0 });
        let (windows, comm) = (self.t.windows as u64, comms.block_bytes(b));
        most_intervals(share, self.counts[b], self.locations(b), windows, self.bins, comm, particles, 0)
    }

    /// Per block of `own`: None to tile it whole, else the most intervals a range of it holds (all ranged
    /// with `--range-intervals`; a block over `share` by time range); an error when not even a small range
    /// of one fits.
    fn ranged(
        &self,
        comms: &CommSpill,
        o: &StreamOptions,
        own: std::ops::Range<usize>,
        share: u64,
        fixed: u64,
        in_flight: usize,
    ) -> Result<Vec<Option<u64>>, IndexError> {
        let (t, n) = (self.t, self.n);
        let mut ranged: Vec<Option<u64>> = vec![None; own.len()];
        for (k, b) in own.enumerate() {
            if o.range_intervals > 0 {
                ranged[k] = Some(o.range_intervals);
                continue;
            }
            if self.total(comms, b) <= share {
                continue;
            }
            let locations = t.block_range(b as u32, n as u32).len() as u64;
            let most = |share: u64| self.most(comms, b, share);
            if let Some(m) = most(share) {
                ranged[k] = Some(m);
                continue;
            }
            // Not even a range of a thousand intervals fits beside a location's summaries: what would.
            let need = (share..).step_by(1 << 20).take(1 << 16).find(|&s| most(s).is_some()).unwrap_or(share);
            return Err(IndexError::Memory(format!(
                "block {b} ({locations} locations) needs about {} MB to tile even a range of its windows, over \
                 --memory {} MB less {} MB for the definitions, messages and the spill held{} (use more \
                 --memory{})",
                need >> 20,
                o.memory >> 20,
                fixed >> 20,
                if in_flight > 1 { format!(", shared by {in_flight} tasks") } else { String::new() },
                if t.block_locations > 1 { " or a smaller --block" } else { "" }
            )));
        }
        Ok(ranged)
    }

    /// The page of each particle run merged, within `runs_share`.
    fn particle_page(
        &self,
        o: &StreamOptions,
        own: &std::ops::Range<usize>,
        exchanged: bool,
        runs_share: u64,
    ) -> usize {
        // The particle view's intervals, sorted runs in the spill as the block tasks meet them (pages of a
        // share of memory over the runs there can be: one of each is held while they merge). A block writes a
        // run per location, and another each `run_len` particles, at most (its intervals bound its particles).
        let (t, n, blocks) = (self.t, self.n, self.t.blocks as usize);
        let with_runs = |b: &usize| match (o.shard, exchanged) {
            (Some(s), false) => s.particles(),
            // The first shard's runs include the others' (sent as runs of this length).
            (Some(s), true) => s.particles() || own.contains(b),
            (None, _) => own.contains(b),
        };
        let nruns = (0..blocks)
            .filter(with_runs)
            .map(|b| t.block_range(b as u32, n as u32).len() as u64 + self.counts[b] / self.run_len as u64 + 1)
            .sum::<u64>()
            .max(1);
        (runs_share / nruns).clamp(1 << 10, crate::spill::runs::PAGE_BYTES as u64) as usize
    }
}

/// What a block task gives back: its tiles' entries (the tiles are written as they are made), its
/// per-region totals and its locations' lanes.
struct TiledBlock {
    entries: Vec<TileEntry>,
    region_totals: Vec<(u64, u64)>,
    lanes: Vec<u32>,
}

/// The blocks' tasks together: their entries, per-region totals, and every location's lanes (0 for another
/// shard's).
struct TiledBlocks {
    entries: Vec<TileEntry>,
    totals: Vec<(u64, u64)>,
    lanes: Vec<u32>,
}

/// Pass 2's block tasks: what they share (the columns held or the spill, the blocks' communication, the
/// particle runs written as they meet them) and the work of one block, whole or by time range.
struct BlockTasks<'a> {
    skel: &'a Trace,
    p: &'a Pass2,
    counts: &'a [u64],
    o: &'a StreamOptions,
    held: Option<&'a HeldColumns>,
    comms: &'a CommSpill,
    sink: &'a dyn TileSink,
    /// Blocks read the spill (`Spill::get`) while others append their particles' runs to it.
    spill: RwLock<&'a mut dyn Spill>,
    /// The particle view's sorted runs, their spill keys, and the extents of every particle written (the
    /// merges need the longest one's duration first).
    particle_runs: Mutex<(Runs, Keys, ParticleExtents)>,
    /// Bytes of the blocks' communication file pieces written to the spill (blocks tiled by time range).
    piece_bytes: AtomicU64,
}

fn panicked<T>(_: T) -> IndexError {
    IndexError::Io("a block task panicked".into())
}

impl<'a> BlockTasks<'a> {
    /// The spill, to read.
    fn read_spill(&self) -> Result<std::sync::RwLockReadGuard<'_, &'a mut dyn Spill>, IndexError> {
        self.spill.read().map_err(panicked)
    }

    /// A block's intervals: a slice of the columns held, or read back from the spill.
    fn read_block(&self, b: usize) -> Result<BlockData<'a>, IndexError> {
        let p = self.p;
        let locs = p.plan.tiling.block_range(b as u32, p.n as u32);
        if let Some(h) = self.held {
            return match h.block(locs.start as usize..locs.end as usize, p.first_index[b]) {
                Some(bi) => Ok(BlockData::Held(bi)),
                None => Err(IndexError::Io(format!("block {b}'s locations were not all read"))),
            };
        }
        let mut c = BlockColumns::with_capacity(p.block_counts[b] as usize);
        for l in locs {
            let bytes =
                self.read_spill()?.get(l as usize).map_err(|e| IndexError::Io(format!("reading the spill: {e}")))?;
            c.push_location(&bytes, self.skel.origin_ns).map_err(IndexError::Io)?;
        }
        Ok(BlockData::Read(c, p.first_index[b]))
    }

    /// A piece of a spill key (`Spill::get_from`), the spill's lock taken for it alone: blocks tiled by time
    /// range read their spill a piece at a time while other tasks append to it.
    fn fetch(&self, key: usize, at: u64, max: usize) -> Result<Vec<u8>, String> {
        self.read_spill().map_err(|e| e.to_string())?.get_from(key, at, max)
    }

    /// A sorted run of particles: held as it is while the spill would keep it in memory (taken, no copy),
    /// else to the spill.
    fn write_run(&self, p: &mut Vec<weft_store::format::particles::Particle>) -> Result<(), IndexError> {
        debug_assert!(p.windows(2).all(|w| w[0] < w[1]), "a particle run is sorted");
        let mut r = self.particle_runs.lock().map_err(panicked)?;
        let mut s = self.spill.write().map_err(panicked)?;
        let (runs, keys, extents) = &mut *r;
        p.iter().for_each(|q| extents.add(q));
        if s.keep(std::mem::size_of_val(p.as_slice()) as u64) {
            runs.hold(std::mem::take(p));
            return Ok(());
        }
        runs.write(p, &mut **s, keys).map_err(|e| IndexError::Io(format!("spilling the particles: {e}")))
    }

    /// Particles a run holds at most: none when this index makes no particle-view intervals.
    fn run_len(&self) -> usize {
        if self.p.with_particles {
            self.p.run_len
        } else {
            0
        }
    }

    /// Block `b` whole: its intervals, its communication taken from its file, cut into its tiles.
    fn tile_whole(&self, b: usize) -> Result<TiledBlock, IndexError> {
        let p = self.p;
        let c = self.read_block(b)?;
        let bi = c.intervals();
        let locs = p.plan.tiling.block_range(b as u32, p.n as u32);
        let mut take = |key: usize| -> Result<Vec<u8>, String> {
            self.spill.write().map_err(|_| "a block task panicked".to_string())?.take(key)
        };
        let bc = self.comms.take_block(b as u32, locs, &mut take, p.spare).map_err(IndexError::Io)?;
        let write_run = |r: &mut Vec<weft_store::format::particles::Particle>| self.write_run(r);
        let mut runs = ParticleRuns::new(self.run_len(), &write_run);
        // Each tile written as it is made, on the thread that makes it.
        let write = |e: &TileEntry, bytes: &[u8]| self.sink.put(&e.path, bytes).map_err(|d| format!("{}: {d}", e.path));
        let out = block_tiles(self.skel, &p.plan, b as u32, &bi, &bc, &mut runs, p.spare, Some(&write))
            .map_err(IndexError::Io)?;
        runs.finish()?;
        let lanes = block_lanes(&bi);
        drop((c, bc));
        Ok(TiledBlock {
            entries: out.tiles.into_iter().map(|(e, _)| e).collect(),
            region_totals: out.region_totals,
            lanes,
        })
    }

    /// Block `b`, over its task's share, a range of windows at a time (`ranged`), at most `most` intervals a
    /// range; its communication file's pieces written to the spill.
    fn tile_by_range(&self, b: usize, most: u64) -> Result<TiledBlock, IndexError> {
        let (p, o) = (self.p, self.o);
        let t = p.plan.tiling;
        let locs = t.block_range(b as u32, p.n as u32);
        let fetch = |key: usize, at: u64, max: usize| self.fetch(key, at, max);
        // The block's communication file cut into a piece per range (pages of at most a sixty-fourth of the
        // share over the ranges), so that each range reads its own.
        let mut comms_of = RangePieces {
            whole: self.comms.block_piece(b as u32),
            b: b as u32,
            locs: locs.clone(),
            tiling: t,
            fetch: &fetch,
            share: p.share,
            pieces: Vec::new(),
            key: &|| {
                let mut r = self.particle_runs.lock().map_err(|_| "a block task panicked".to_string())?;
                Ok(r.1.take())
            },
            put: &|k, bytes| {
                self.piece_bytes.fetch_add(bytes.len() as u64, Ordering::Relaxed);
                self.spill.write().map_err(|_| "a block task panicked".to_string())?.put(k, bytes)
            },
        };
        let write_run = |r: &mut Vec<weft_store::format::particles::Particle>| self.write_run(r);
        let mut runs = ParticleRuns::new(self.run_len(), &write_run);
        let mut entries = Vec::new();
        let mut put = |e: TileEntry, bytes: Vec<u8>| -> Result<(), IndexError> {
            self.sink.put(&e.path, &bytes).map_err(|d| IndexError::Io(format!("{}: {d}", e.path)))?;
            entries.push(e);
            Ok(())
        };
        let block = RangedBlock {
            trace: self.skel,
            plan: &p.plan,
            b: b as u32,
            counts: self.counts,
            first_index: p.first_index[b],
            most,
            bounded: o.range_intervals == 0,
            threads: p.spare,
        };
        // The most intervals a range holds within share `s` beside `callpaths` bytes of call paths held to the
        // block's end.
        let most_within = |s: u64, callpaths: u64| {
            let (locations, particles) = (locs.len() as u64, particle_run_bytes(self.run_len()));
            let comm = self.comms.block_bytes(b);
            most_intervals(s, p.block_counts[b], locations, t.windows as u64, p.bins, comm, particles, callpaths)
        };
        let room = |callpaths: u64| most_within(p.share, callpaths);
        // A window too full for the task's share: the --memory that gives the share room for it.
        let over = |w: u32, intervals: u64, callpaths: u64| {
            let fits = |s: u64| most_within(s, callpaths).is_some_and(|m| m >= intervals);
            let step = 1u64 << 20;
            let need = (p.share..).step_by(step as usize).take(1 << 20).find(|&s| fits(s)).unwrap_or(p.share);
            format!(
                "window {w} of block {b} holds {intervals} intervals, more than a range tiled within {} MB holds \
                 beside the block's call paths ({} MB held to its end; --memory {} MB less {} MB for the \
                 definitions, messages and the spill held{}): use --memory {}M or more",
                p.share >> 20,
                callpaths.div_ceil(1 << 20),
                o.memory >> 20,
                p.fixed >> 20,
                if p.in_flight > 1 { format!(", shared by {} tasks", p.in_flight) } else { String::new() },
                (p.fixed + need * p.in_flight as u64).div_ceil(step)
            )
        };
        let out = block.tile(self.skel.origin_ns, &fetch, &room, &over, &mut comms_of, &mut runs, &mut put)?;
        runs.finish()?;
        Ok(TiledBlock { entries, region_totals: out.region_totals, lanes: out.lanes })
    }

    /// Every block this index tiles, `in_flight` tasks at once; the first failure stops the others.
    fn run(&self, progress: &(dyn Fn(Progress) + Sync)) -> Result<TiledBlocks, IndexError> {
        let p = self.p;
        let (next, done) = (AtomicUsize::new(0), AtomicUsize::new(0));
        let results: Mutex<Vec<Option<Result<TiledBlock, IndexError>>>> =
            Mutex::new((0..p.tiled).map(|_| None).collect());
        progress(Progress::Tiling { done: 0, total: p.tiled });
        let work = || loop {
            let k = next.fetch_add(1, Ordering::Relaxed);
            if k >= p.tiled {
                break;
            }
            let b = p.own.start + k;
            let r = match p.ranged[k] {
                Some(most) => self.tile_by_range(b, most),
                None => self.tile_whole(b),
            };
            let failed = r.is_err();
            // Where memory is tight (blocks tiled by range), what the task freed goes back to the system before
            // the next task allocates at other sizes (elsewhere that costs the next task its page faults).
            if p.any_ranged {
                crate::stream::ranged::return_free_memory();
            }
            results.lock().expect("no task panics holding the lock")[k] = Some(r);
            progress(Progress::Tiling { done: done.fetch_add(1, Ordering::Relaxed) + 1, total: p.tiled });
            if failed {
                next.store(p.tiled, Ordering::Relaxed);
            }
        };
        if p.in_flight == 1 {
            work();
        } else {
            std::thread::scope(|s| {
                for _ in 0..p.in_flight {
                    s.spawn(work);
                }
            });
        }
        let t = p.plan.tiling;
        let mut entries = Vec::new();
        let mut totals = vec![(0u64, 0u64); self.skel.regions.len()];
        // Lanes of the locations this index tiled (0 for the others: another shard's).
        let mut lanes = vec![0u32; p.n];
        for (k, r) in results.into_inner().expect("tasks joined").into_iter().enumerate() {
            let Some(r) = r else { continue };
            let block = r?;
            let locs = t.block_range((p.own.start + k) as u32, p.n as u32);
            lanes[locs.start as usize..locs.end as usize].copy_from_slice(&block.lanes);
            entries.extend(block.entries);
            add_totals(&mut totals, &block.region_totals);
        }
        Ok(TiledBlocks { entries, totals, lanes })
    }

    /// The particle-view intervals of the blocks another shard tiles (shard 0 spilled them, for the particle
    /// tiles): a block over a task's share (or every one, when ranges are asked for) read location by
    /// location.
    fn other_blocks_particles(&self) -> Result<(), IndexError> {
        let p = self.p;
        for b in (0..p.blocks).filter(|b| !p.own.contains(b)) {
            let write_run = |r: &mut Vec<weft_store::format::particles::Particle>| self.write_run(r);
            let mut runs = ParticleRuns::new(p.run_len, &write_run);
            if self.held.is_none() && (self.o.range_intervals > 0 || p.over_share[b]) {
                let fetch = |key: usize, at: u64, max: usize| self.fetch(key, at, max);
                let origin = self.skel.origin_ns;
                let first = p.first_index[b];
                crate::stream::ranged::block_particles(
                    self.skel,
                    &p.plan,
                    b as u32,
                    self.counts,
                    first,
                    origin,
                    &fetch,
                    &mut runs,
                )?;
            } else {
                let c = self.read_block(b)?;
                block_particles(&p.plan, b as u32, &c.intervals(), p.n as u32, &mut runs);
            }
            runs.finish()?;
        }
        Ok(())
    }

    /// The particle runs, their keys and extents, the spill, and the bytes of communication pieces written.
    #[allow(clippy::type_complexity)]
    fn into_parts(self) -> Result<(Runs, Keys, ParticleExtents, &'a mut dyn Spill, u64), IndexError> {
        let (runs, keys, extents) = self.particle_runs.into_inner().map_err(panicked)?;
        let spill = self.spill.into_inner().map_err(panicked)?;
        Ok((runs, keys, extents, spill, self.piece_bytes.into_inner()))
    }
}

/// Under an exchange, this shard's particle tiles: those of its range of windows ([`Shard::windows`]).
/// Shard after shard, every shard hands the receiving one, merged from its blocks' runs, the particle-view
/// intervals that start in its windows or run into them from earlier ones (those first), in pieces of
/// `run_len`; the receiver writes them, and its own, as runs, merges them and tiles its windows. Each
/// interval's extent is counted by the shard of its block and sent to shard 0: the extents returned are the
/// whole view's on shard 0, this shard's elsewhere. Also returned: the bytes of the runs written.
#[allow(clippy::too_many_arguments)]
fn exchange_particles(
    x: &dyn Exchange,
    t: &Tiling,
    runs: &Runs,
    keys: &mut Keys,
    spill: &mut dyn Spill,
    run_len: usize,
    page: usize,
    put: &mut dyn FnMut(TileEntry, Vec<u8>) -> Result<(), IndexError>,
) -> Result<(ParticleExtents, u64), IndexError> {
    use crate::build::particle_windows;
    use weft_store::format::particles::Particle;
    let Shard { index: me, count: n } = x.shard();
    let size = <Particle as Record>::BYTES;
    let (run_len, io) = (run_len.max(1), |what: &str, e: String| IndexError::Io(format!("{what}: {e}")));
    let mut merge = runs.merge::<Particle>();
    let mut next = merge.next(&*spill).map_err(|e| io("reading the particles back", e))?;
    let mut extents = ParticleExtents::default();
    // Intervals of this shard's blocks running into a later shard's windows, each with the last window it
    // reaches, in order.
    let mut running: Vec<(Particle, u32)> = Vec::new();
    let mut mine = Runs::new(page);
    let mut piece: Vec<Particle> = Vec::with_capacity(run_len);
    for to in 0..n {
        let windows = Shard { index: to, count: n }.windows(t.windows);
        // A piece to the receiver: sent, or written as a run when this shard is the receiver.
        let mut hand = |piece: &mut Vec<Particle>, spill: &mut dyn Spill| -> Result<(), IndexError> {
            if to == me {
                mine.write(piece, spill, keys).map_err(|e| io("spilling the particles", e))?;
            } else {
                let mut b = Vec::with_capacity(piece.len() * size);
                piece.iter().for_each(|p| p.put(&mut b));
                x.pass(me, to, &mut b)
                    .map_err(|e| io(&format!("sending the particle-view intervals to shard {to}"), e))?;
            }
            piece.clear();
            Ok(())
        };
        if !windows.is_empty() {
            for r in running.iter().filter(|r| r.1 >= windows.start) {
                piece.push(r.0);
                if piece.len() == run_len {
                    hand(&mut piece, &mut *spill)?;
                }
            }
        }
        running.retain(|r| r.1 >= windows.end);
        while let Some(p) = next.filter(|p| t.window_of(p.start_ns) < windows.end) {
            extents.add(&p);
            let last = *particle_windows(t, &p).end();
            if last >= windows.end {
                running.push((p, last));
            }
            piece.push(p);
            if piece.len() == run_len {
                hand(&mut piece, &mut *spill)?;
            }
            next = merge.next(&*spill).map_err(|e| io("reading the particles back", e))?;
        }
        if !piece.is_empty() {
            hand(&mut piece, &mut *spill)?;
        }
        if to != me {
            // The end of this shard's intervals for `to`.
            x.pass(me, to, &mut Vec::new()).map_err(|e| io(&format!("sending to shard {to}"), e))?;
            continue;
        }
        // The other shards' intervals in this shard's windows, each shard's sorted, as runs beside its own.
        for from in (0..n).filter(|&k| k != me) {
            loop {
                let mut b = Vec::new();
                x.pass(from, me, &mut b)
                    .map_err(|e| io(&format!("receiving shard {from}'s particle-view intervals"), e))?;
                if b.is_empty() {
                    break;
                }
                if b.len() % size != 0 {
                    return Err(IndexError::Io(format!("shard {from} sent a particle cut short")));
                }
                let run: Vec<Particle> = b.chunks_exact(size).map(<Particle as Record>::get).collect();
                let early = run.first().is_some_and(|p| t.window_of(p.start_ns) >= windows.end);
                if early || !run.windows(2).all(|w| w[0] < w[1]) {
                    return Err(IndexError::Io(format!("shard {from} sent particles out of order")));
                }
                mine.write(&run, &mut *spill, keys).map_err(|e| io("spilling the particles", e))?;
            }
        }
    }
    if next.is_some() {
        return Err(IndexError::Io("a particle-view interval past the last window".into()));
    }
    // Every shard's extents to shard 0.
    if me != 0 {
        x.pass(me, 0, &mut extents.to_bytes()).map_err(|e| io("sending the particle view's extent", e))?;
    } else {
        for from in 1..n {
            let mut b = Vec::new();
            x.pass(from, 0, &mut b).map_err(|e| io(&format!("receiving shard {from}'s particle extent"), e))?;
            let theirs = ParticleExtents::from_bytes(&b)
                .ok_or_else(|| IndexError::Io(format!("shard {from} sent a particle extent cut short")))?;
            extents.merge(&theirs);
        }
    }
    let tiler = ParticleTiler::over(*t, Shard { index: me, count: n }.windows(t.windows));
    // (Only what runs into this shard's windows was kept: nothing to skip.)
    cut_particles(&mine, &*spill, tiler, u64::MAX, put)?;
    Ok((extents, mine.bytes))
}

/// The particle tiles of every window ([`cut_particles`]): to `put` on this thread, or on `ranges` threads,
/// each merging the runs over its range of the windows (from `max_dur` before its first window's start: what
/// may run into it) and tiling that range (`ParticleTiler::over`), its tiles to `sink` and their entries, in
/// window order, to `entries`. `max_dur`: the longest particle's duration.
#[allow(clippy::too_many_arguments)]
fn cut_particles_on(
    runs: &Runs,
    spill: &dyn Spill,
    t: Tiling,
    ranges: usize,
    max_dur: u64,
    sink: &dyn TileSink,
    put: &mut dyn FnMut(TileEntry, Vec<u8>) -> Result<(), IndexError>,
    entries: &std::cell::RefCell<Vec<TileEntry>>,
) -> Result<(), IndexError> {
    if ranges <= 1 {
        return cut_particles(runs, spill, ParticleTiler::new(t), max_dur, put);
    }
    // Ranges of about as many particles each (the particles' start times cut evenly by their pages, as
    // windows), each of one window at least: a range's work is its particles' merge and tiles, and the
    // particles of a run crowd into some windows (equal numbers of windows left one thread working alone for
    // a third of the step).
    let mut bounds = vec![0u32; ranges + 1];
    bounds[ranges] = t.windows;
    for (i, lead) in runs.even_cuts::<weft_store::format::particles::Particle>(ranges).into_iter().enumerate() {
        let i = i + 1;
        let w = if lead == u64::MAX { t.windows } else { t.window_of(lead) };
        bounds[i] = w.clamp(bounds[i - 1] + 1, t.windows - (ranges - i) as u32);
    }
    let cut = |i: usize| bounds[i];
    let done = std::thread::scope(|s| {
        let tasks: Vec<_> = (0..ranges)
            .map(|i| {
                let windows = cut(i)..cut(i + 1);
                s.spawn(move || -> Result<Vec<TileEntry>, IndexError> {
                    let mut out = Vec::new();
                    let mut put = |e: TileEntry, bytes: Vec<u8>| -> Result<(), IndexError> {
                        sink.put(&e.path, &bytes).map_err(|d| IndexError::Io(format!("{}: {d}", e.path)))?;
                        out.push(e);
                        Ok(())
                    };
                    cut_particles(runs, spill, ParticleTiler::over(t, windows), max_dur, &mut put)?;
                    Ok(out)
                })
            })
            .collect();
        tasks.into_iter().map(|h| h.join()).collect::<Vec<_>>()
    });
    for r in done {
        let out = r.map_err(|_| IndexError::Io("a particle task panicked".into()))??;
        entries.borrow_mut().extend(out);
    }
    Ok(())
}

/// The particle tiles `tiler` cuts from `runs` merged, to `put` as they are made: the runs merged up to the
/// end of the tiler's windows, from the pages that may hold a particle running into its first window (none
/// is longer than `max_dur`; the pages before hold only particles ending before it, which the tiler would
/// leave out).
fn cut_particles(
    runs: &Runs,
    spill: &dyn Spill,
    mut tiler: ParticleTiler,
    max_dur: u64,
    put: &mut dyn FnMut(TileEntry, Vec<u8>) -> Result<(), IndexError>,
) -> Result<(), IndexError> {
    let from = tiler.first_start().saturating_sub(max_dur);
    let mut merge = runs.merge_from::<weft_store::format::particles::Particle>(from);
    let read = |e: String| IndexError::Io(format!("reading the particles back: {e}"));
    while let Some(p) = merge.next(spill).map_err(read)? {
        if !tiler.takes(&p) {
            // Past the tiler's range (the merge is in start order): nothing after is its.
            break;
        }
        tiler.push(p);
        for (e, bytes) in tiler.done.drain(..) {
            put(e, bytes)?;
        }
    }
    tiler.finish();
    for (e, bytes) in tiler.done.drain(..) {
        put(e, bytes)?;
    }
    Ok(())
}

/// A block tiled by time range reads each range's communication from a piece of its file cut for it.
struct RangePieces<'a> {
    whole: Option<CommPiece>,
    b: u32,
    locs: std::ops::Range<u32>,
    tiling: Tiling,
    fetch: Fetch<'a>,
    /// The block task's share of memory (a page of each range's piece is at most a 64th of it over them).
    share: u64,
    pieces: Vec<CommPiece>,
    key: &'a dyn Fn() -> Result<usize, String>,
    put: &'a AppendPage<'a>,
}

/// Appends bytes to a spill key, taking the spill's lock.
type AppendPage<'a> = dyn Fn(usize, &[u8]) -> Result<(), String> + 'a;

impl crate::stream::ranged::RangeComms for RangePieces<'_> {
    fn ranges(&mut self, ranges: &[std::ops::Range<u32>]) -> Result<(), IndexError> {
        let Some(whole) = self.whole else { return Ok(()) };
        let page = (self.share / 64 / ranges.len().max(1) as u64).clamp(1 << 12, 1 << 16) as usize;
        let (key, put) = (self.key, self.put);
        self.pieces = CommSpill::split_block(
            whole,
            self.b,
            &self.tiling,
            ranges,
            self.fetch,
            page,
            &mut || key(),
            &mut |k, bytes| put(k, bytes),
        )
        .map_err(IndexError::Io)?;
        Ok(())
    }

    fn range(&self, n: usize, windows: std::ops::Range<u32>) -> Result<BlockComms, IndexError> {
        let piece = self.whole.and(self.pieces.get(n).copied());
        CommSpill::block_windows(piece, self.b, self.locs.clone(), self.fetch, &self.tiling, windows)
            .map_err(IndexError::Io)
    }
}

/// A block task's particle-view intervals written as sorted runs as they come (`build::ParticleSink`):
/// pieces are kept while they continue in order, up to `run_len`, and written as a run when the buffer is
/// full or a piece starts lower (another location's). No sort: each location's come in start order, and the
/// runs' merge puts them in the one order the keys give. `run_len` 0: the task writes no particles (a shard
/// that does not tile them).
struct ParticleRuns<'a> {
    buffer: Vec<weft_store::format::particles::Particle>,
    run_len: usize,
    /// Takes a run written (it may take the buffer, leaving it empty).
    write: &'a dyn Fn(&mut Vec<weft_store::format::particles::Particle>) -> Result<(), IndexError>,
    err: Option<IndexError>,
}

impl<'a> ParticleRuns<'a> {
    fn new(
        run_len: usize,
        write: &'a dyn Fn(&mut Vec<weft_store::format::particles::Particle>) -> Result<(), IndexError>,
    ) -> Self {
        ParticleRuns { buffer: Vec::with_capacity(run_len), run_len, write, err: None }
    }

    fn flush(&mut self) {
        if !self.buffer.is_empty() && self.err.is_none() {
            self.err = (self.write)(&mut self.buffer).err();
        }
        self.buffer.clear();
        if self.buffer.capacity() == 0 {
            // Taken by the writer: a new buffer.
            self.buffer.reserve_exact(self.run_len);
        }
    }

    /// The last run written; the first error met writing any.
    fn finish(mut self) -> Result<(), IndexError> {
        self.flush();
        self.err.map_or(Ok(()), Err)
    }
}

impl crate::build::ParticleSink for ParticleRuns<'_> {
    fn put(&mut self, piece: &[weft_store::format::particles::Particle]) {
        if self.run_len == 0 || piece.is_empty() {
            return;
        }
        let lower = self.buffer.last().is_some_and(|last| piece[0] < *last);
        if lower || self.buffer.len() + piece.len() > self.run_len {
            self.flush();
        }
        self.buffer.extend_from_slice(piece);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::ParticleSink;
    use std::cell::RefCell;
    use weft_store::format::particles::Particle;

    fn p(start: u64, location: u32) -> Particle {
        Particle { start_ns: start, location, index: start, region: 0, dur_ns: 1 }
    }

    #[test]
    fn particle_runs_are_sorted_and_cut_where_order_breaks_or_the_buffer_fills() {
        let written: RefCell<Vec<Vec<Particle>>> = RefCell::new(Vec::new());
        // (Every other run taken, as a run held is.)
        let taken = std::cell::Cell::new(false);
        let write = |run: &mut Vec<Particle>| -> Result<(), IndexError> {
            taken.set(!taken.get());
            written.borrow_mut().push(if taken.get() { std::mem::take(run) } else { run.to_vec() });
            Ok(())
        };
        let mut runs = ParticleRuns::new(4, &write);
        // Location 0 in two pieces (one run, then full), location 1 starting lower (a new run).
        runs.put(&[p(1, 0), p(2, 0)]);
        runs.put(&[p(3, 0), p(5, 0)]);
        runs.put(&[p(8, 0)]);
        runs.put(&[p(0, 1), p(4, 1)]);
        runs.put(&[]);
        runs.finish().unwrap();
        let w = written.into_inner();
        assert_eq!(w, vec![vec![p(1, 0), p(2, 0), p(3, 0), p(5, 0)], vec![p(8, 0)], vec![p(0, 1), p(4, 1)]]);
        assert!(w.iter().all(|r| r.windows(2).all(|x| x[0] < x[1])));

        // A shard that tiles no particles writes none; the first error is kept and returned.
        let none = |_: &mut Vec<Particle>| -> Result<(), IndexError> { panic!("nothing to write") };
        let mut off = ParticleRuns::new(0, &none);
        off.put(&[p(1, 0)]);
        off.finish().unwrap();
        let fail = |_: &mut Vec<Particle>| -> Result<(), IndexError> { Err(IndexError::Io("disk full".into())) };
        let mut failing = ParticleRuns::new(1, &fail);
        failing.put(&[p(1, 0)]);
        failing.put(&[p(2, 0)]);
        assert!(matches!(failing.finish(), Err(IndexError::Io(e)) if e == "disk full"));
    }
}
