//! Pass 2 of a block too long to tile whole (issue #17): its windows a range at a time, so that what a block
//! task holds is bounded by `--memory`, not by its locations' length. A location's spill is read twice, a
//! piece at a time ([`Spill::get_from`](crate::spill::Spill::get_from)): once to learn its intervals' final
//! durations (the fix-ups of intervals spilled while open, a few per flush) and how many intervals start in
//! each window, which cut the ranges, then range by range ([`LocationReader`]). The tiles are the ones the
//! whole block gives: `build::level0_tiles` takes a range's intervals with those of earlier ranges still
//! open at its start ("carried"), each range reads its own piece of the block's communication file
//! (`comms::CommSpill::split_block`), and the summaries and moments are fed range by range
//! (`build::LocationSummary`).
//!
//! Plain Rust, no files (the spill is the caller's).

use crate::budget::{callpath_bytes, SummaryBytes, INTERVAL_BYTES, TILING_BYTES_PER_INTERVAL};
use crate::build::callpaths::PathTable;
use crate::build::{level0_tiles, summary_tiles, BlockIntervals, LocationSummary, ParticleSink, Plan, PARTICLE_PIECE};
use crate::comms::{BlockCommBytes, COMM_PIECE};
use crate::comms::{BlockComms, Fetch};
use crate::error::IndexError;
use std::ops::Range;
use weft_analyses::busy::{BusyDefinition, BusyScanner};
use weft_model::{RegionId, Trace};
use weft_store::format::manifest::{TileEntry, Tiling};
use weft_store::format::particles::Particle;

/// Bytes read from the spill at a time.
const PIECE: usize = 1 << 18;

/// One key of the spill read front to back a piece at a time, as varints.
struct SpillStream<'s> {
    fetch: Fetch<'s>,
    key: usize,
    buf: Vec<u8>,
    pos: usize,
    /// The key's byte at `buf`'s end.
    next: u64,
    done: bool,
    /// The key's byte at `buf[0]` (for messages).
    base: u64,
}

impl<'s> SpillStream<'s> {
    fn new(fetch: Fetch<'s>, key: usize) -> Self {
        SpillStream { fetch, key, buf: Vec::new(), pos: 0, next: 0, done: false, base: 0 }
    }

    /// Keep at least `n` unread bytes in the buffer while the key has them.
    fn fill(&mut self, n: usize) -> Result<(), String> {
        if self.done || self.buf.len() - self.pos >= n {
            return Ok(());
        }
        self.buf.drain(..self.pos);
        self.base += self.pos as u64;
        self.pos = 0;
        while !self.done && self.buf.len() < n {
            let more = (self.fetch)(self.key, self.next, PIECE)?;
            self.done = more.len() < PIECE;
            self.next += more.len() as u64;
            self.buf.extend_from_slice(&more);
        }
        Ok(())
    }

    fn at_end(&mut self) -> Result<bool, String> {
        self.fill(1)?;
        Ok(self.pos == self.buf.len())
    }

    fn damaged(&self, what: &str) -> String {
        format!("spill damaged at byte {}: {what}", self.base + self.pos as u64)
    }

    #[inline]
    fn varint(&mut self) -> Result<u64, String> {
        if self.buf.len() - self.pos < 10 {
            self.fill(10)?;
        }
        let mut v = 0u64;
        let mut shift = 0;
        loop {
            let Some(&b) = self.buf.get(self.pos) else { return Err(self.damaged("cut short")) };
            self.pos += 1;
            if shift == 63 && b > 1 {
                return Err(self.damaged("an integer longer than 64 bits"));
            }
            v |= ((b & 0x7f) as u64) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
            shift += 7;
        }
    }

    fn signed(&mut self) -> Result<i64, String> {
        let v = self.varint()?;
        Ok(((v >> 1) as i64) ^ -((v & 1) as i64))
    }
}

/// An interval as pass 2 holds it: region, start (ns from the origin), duration, depth.
pub(crate) type Interval = (RegionId, u64, u64, u16);

/// What the first read of a location's spill learns: the final durations of intervals spilled while open
/// (index in the location, duration; by index, the last written for an index), its interval count, and
/// the most its call paths hold to the block's end (`build::callpaths`, [`callpath_bytes`]).
#[derive(Default)]
pub(crate) struct LocationScan {
    fixups: Vec<(u64, u64)>,
    pub(crate) intervals: u64,
    pub(crate) callpath_bytes: u64,
}

/// The most call-path figures a location's windows hold (`build::callpaths`): in a window, one a path, and
/// at most one for each interval starting there and its parent's path, and one for each interval open across
/// the window's start (a chain of nested intervals, at most `lanes`); none before its first start.
/// `starts`: (window, intervals starting there), by window; `windows`: the tiling's; `paths`: the location's.
fn callpath_figures(starts: &[(u32, u64)], windows: u32, lanes: u64, paths: u64) -> u64 {
    let Some(&(first, _)) = starts.first() else { return 0 };
    let with_starts: u64 = starts.iter().map(|&(_, n)| (2 * n + lanes).min(paths)).sum();
    let without = (windows.saturating_sub(first) as u64).saturating_sub(starts.len() as u64);
    with_starts + without * lanes.min(paths)
}

/// Read location `key`'s spill through once: its fix-ups, per window of `t` how many of its intervals
/// start there (added to `per_window`), and its call paths (to bound what they hold).
pub(crate) fn scan_location(
    fetch: Fetch,
    key: usize,
    origin: i64,
    t: &Tiling,
    per_window: &mut [u64],
) -> Result<LocationScan, String> {
    let mut s = SpillStream::new(fetch, key);
    let mut scan = LocationScan::default();
    let mut paths = PathTable::new();
    let mut starts: Vec<(u32, u64)> = Vec::new();
    let mut lanes = 0u64;
    while !s.at_end()? {
        let n = s.varint()?;
        let mut at = 0i64;
        for k in 0..n {
            let region = RegionId(s.varint()? as u32);
            at = if k == 0 { s.signed()? } else { at.wrapping_add(s.varint()? as i64) };
            s.varint()?;
            let depth = s.varint()? as u16;
            let w = t.window_of(at.saturating_sub(origin).max(0) as u64);
            per_window[w as usize] += 1;
            match starts.last_mut() {
                Some((x, n)) if *x == w => *n += 1,
                _ => starts.push((w, 1)),
            }
            paths.intern(region, depth);
            lanes = lanes.max(depth as u64 + 1);
        }
        scan.intervals += n;
        for _ in 0..s.varint()? {
            let i = s.varint()?;
            let dur = s.varint()?;
            scan.fixups.push((i, dur));
        }
    }
    let figures = callpath_figures(&starts, t.windows, lanes, paths.len() as u64);
    scan.callpath_bytes = callpath_bytes(figures, paths.len() as u64);
    // The last fix-up of an index wins (as applying them in order does).
    scan.fixups.reverse();
    scan.fixups.sort_by_key(|f| f.0);
    scan.fixups.dedup_by_key(|f| f.0);
    if let Some(&(i, _)) = scan.fixups.last().filter(|f| f.0 >= scan.intervals) {
        return Err(format!("spill damaged: a fix-up names interval {i} of a location of {}", scan.intervals));
    }
    Ok(scan)
}

/// A location's intervals read from its spill in order, with their final durations.
pub(crate) struct LocationReader<'s> {
    s: SpillStream<'s>,
    origin: i64,
    fixups: Vec<(u64, u64)>,
    fix_at: usize,
    /// Intervals left in the segment being read, and the last start read (source clock).
    left: u64,
    first: bool,
    at: i64,
    /// Index in the location of the next interval.
    pub(crate) next: u64,
    /// An interval read ahead (the first of the next range).
    peeked: Option<Interval>,
}

impl<'s> LocationReader<'s> {
    pub(crate) fn new(fetch: Fetch<'s>, key: usize, origin: i64, scan: LocationScan) -> Self {
        LocationReader {
            s: SpillStream::new(fetch, key),
            origin,
            fixups: scan.fixups,
            fix_at: 0,
            left: 0,
            first: true,
            at: 0,
            next: 0,
            peeked: None,
        }
    }

    fn read(&mut self) -> Result<Option<Interval>, String> {
        while self.left == 0 {
            if self.s.at_end()? {
                return Ok(None);
            }
            self.left = self.s.varint()?;
            self.first = true;
            if self.left == 0 {
                self.skip_fixups()?;
            }
        }
        let region = RegionId(self.s.varint()? as u32);
        self.at = if self.first { self.s.signed()? } else { self.at.wrapping_add(self.s.varint()? as i64) };
        self.first = false;
        let mut dur = self.s.varint()?;
        let depth = self.s.varint()? as u16;
        while self.fixups.get(self.fix_at).is_some_and(|f| f.0 < self.next) {
            self.fix_at += 1;
        }
        if let Some(&(i, d)) = self.fixups.get(self.fix_at) {
            if i == self.next {
                dur = d;
            }
        }
        self.left -= 1;
        if self.left == 0 {
            self.skip_fixups()?;
        }
        Ok(Some((region, self.at.saturating_sub(self.origin).max(0) as u64, dur, depth)))
    }

    /// A segment's fix-ups (the scan kept them).
    fn skip_fixups(&mut self) -> Result<(), String> {
        for _ in 0..self.s.varint()? {
            self.s.varint()?;
            self.s.varint()?;
        }
        Ok(())
    }

    /// The next interval, if its start falls before window `end` of `t`; each is given once.
    pub(crate) fn next_before(&mut self, t: &Tiling, end: u32) -> Result<Option<Interval>, String> {
        let i = match self.peeked.take() {
            Some(i) => i,
            None => match self.read()? {
                Some(i) => i,
                None => return Ok(None),
            },
        };
        if t.window_of(i.1) >= end {
            self.peeked = Some(i);
            return Ok(None);
        }
        self.next += 1;
        Ok(Some(i))
    }
}

/// The most intervals a range of a block may hold within `budget` bytes, None when its fixed part leaves no
/// room for a thousand: each location's summary bins (at every level, and level 1 being made: all of the
/// block's are made at once), its spill reader's piece, the particle buffers, the communication file's piece,
/// per window a count and a tile's lists, and the call paths held to the block's end (`callpaths` bytes:
/// [`LocationScan::callpath_bytes`] summed, 0 before the block's spill is read); then per interval its columns and trace index, the tiling's
/// lists (as a block tiled whole: `stream::TILING_BYTES_PER_INTERVAL`) and twice the block's average
/// communication rows (messages in flight and collectives running are carried too).
#[allow(clippy::too_many_arguments)]
pub(crate) fn most_intervals(
    budget: u64,
    intervals: u64,
    locations: u64,
    windows: u64,
    bins: SummaryBytes,
    comms: BlockCommBytes,
    particle_runs: u64,
    callpaths: u64,
) -> Option<u64> {
    let fixed = locations * (bins.per_location + bins.making + PIECE as u64)
        + particle_runs
        + callpaths
        + COMM_PIECE as u64
        + windows * (8 + size_of::<[Vec<u32>; 8]>() as u64);
    let per = INTERVAL_BYTES + 8 + TILING_BYTES_PER_INTERVAL + (2 * comms.held).div_ceil(intervals.max(1));
    let most = budget.checked_sub(fixed)? / per;
    (most >= 1000).then_some(most)
}

/// Consecutive ranges of windows, each holding at most `most` interval starts (`per_window`: a block's
/// count in each window), or one window alone when that window holds more.
pub(crate) fn window_ranges(per_window: &[u64], most: u64) -> Vec<std::ops::Range<u32>> {
    let mut out = Vec::new();
    let (mut from, mut held) = (0usize, 0u64);
    for (w, &n) in per_window.iter().enumerate() {
        if w > from && held + n > most {
            out.push(from as u32..w as u32);
            (from, held) = (w, 0);
        }
        held += n;
    }
    if from < per_window.len() {
        out.push(from as u32..per_window.len() as u32);
    }
    out
}

/// What a block tiled by time range needs besides its spill: the trace without intervals, the plan, and the
/// block's interval counts from pass 1.
pub(crate) struct RangedBlock<'a> {
    pub(crate) trace: &'a Trace,
    pub(crate) plan: &'a Plan,
    pub(crate) b: u32,
    /// Per location of the trace, its interval count (pass 1's).
    pub(crate) counts: &'a [u64],
    /// The trace index of the block's first interval.
    pub(crate) first_index: u64,
    /// The most intervals a range holds (its own; the carried ones besides).
    pub(crate) most: u64,
    /// Whether `most` is what memory allows (a window holding more is refused) rather than a test's choice
    /// (a window holding more is a range alone).
    pub(crate) bounded: bool,
    /// Threads the block's task may use: beyond one, each range's summaries are fed beside its level-0
    /// tiles (the locations cut over the others).
    pub(crate) threads: usize,
}

/// What hands freed memory back to the system between ranges (`set_memory_release`; none by default).
static MEMORY_RELEASE: std::sync::OnceLock<fn()> = std::sync::OnceLock::new();

/// Set what hands the pages of freed memory back to the system between a block's ranges (and block
/// tasks): the CLI gives
/// glibc's `malloc_trim`. A range's lists and tiles are freed before the next range's are allocated at
/// other sizes; glibc keeps freed chunks resident inside its heaps (its mmap threshold rises as large blocks
/// are freed), and over the ranges of long blocks they grew the index's resident memory past `--memory`
/// (1.05 B events under 256M: 384 MB resident). Trimming returns their pages, as a fixed mmap threshold
/// would, without mapping every large buffer anew (that cost twice the system time).
pub fn set_memory_release(release: fn()) {
    let _ = MEMORY_RELEASE.set(release);
}

pub(crate) fn return_free_memory() {
    if let Some(release) = MEMORY_RELEASE.get() {
        release();
    }
}

/// Where a block tiled by time range reads each range's communication (the caller's spill).
pub(crate) trait RangeComms {
    /// The ranges are known (consecutive, from window 0 to the last): cut what each will need.
    fn ranges(&mut self, ranges: &[Range<u32>]) -> Result<(), IndexError>;
    /// Range `n`'s communication (`comms::CommSpill::block_windows`).
    fn range(&self, n: usize, windows: Range<u32>) -> Result<BlockComms, IndexError>;
}

/// What a block tiled by time range gives besides its tiles (written as they are made).
pub(crate) struct RangedOutput {
    pub(crate) region_totals: Vec<(u64, u64)>,
    pub(crate) lanes: Vec<u32>,
}

impl RangedBlock<'_> {
    /// Tile the block range by range: its locations' spill read through `fetch`, each range's communication
    /// from `comms`, its particle-view intervals to `particles`, each tile to `put` as it is made. When
    /// `most` is a memory bound, the ranges hold `room(call-path bytes)` intervals instead: what the task's
    /// share leaves beside the call paths the block holds to its end (learnt in the first read); a window
    /// holding more is refused with `over(window, intervals, call-path bytes)`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn tile(
        &self,
        origin: i64,
        fetch: Fetch,
        room: &dyn Fn(u64) -> Option<u64>,
        over: &dyn Fn(u32, u64, u64) -> String,
        comms: &mut dyn RangeComms,
        particles: &mut dyn ParticleSink,
        put: &mut dyn FnMut(TileEntry, Vec<u8>) -> Result<(), IndexError>,
    ) -> Result<RangedOutput, IndexError> {
        let (trace, plan, b) = (self.trace, self.plan, self.b);
        let t = &plan.tiling;
        let locs = t.block_range(b, trace.locations.len() as u32);
        let io = IndexError::Io;
        // First read: fix-ups, and the intervals starting in each window (which cut the ranges).
        let mut per_window = vec![0u64; t.windows as usize];
        let mut readers = Vec::with_capacity(locs.len());
        let mut first = Vec::with_capacity(locs.len());
        let mut index = self.first_index;
        let mut callpaths = 0u64;
        for l in locs.clone() {
            let scan = scan_location(fetch, l as usize, origin, t, &mut per_window).map_err(io)?;
            callpaths += scan.callpath_bytes;
            let counted = self.counts[l as usize];
            if scan.intervals != counted {
                return Err(io(format!(
                    "the spill of location {l} holds {} intervals, {counted} were read",
                    scan.intervals
                )));
            }
            readers.push(LocationReader::new(fetch, l as usize, origin, scan));
            first.push(index);
            index += counted;
        }
        // The call paths' figures are held across every range (the block's call-path tiles are made from
        // all its windows at the end): their room comes out of the ranges'.
        let most = match (self.bounded, self.bounded.then(|| room(callpaths)).flatten()) {
            (false, _) => self.most,
            (true, Some(most)) => most,
            (true, None) => {
                let w = (0..per_window.len()).max_by_key(|&w| per_window[w]).unwrap_or(0);
                return Err(IndexError::Memory(over(w as u32, per_window[w], callpaths)));
            }
        };
        let ranges = window_ranges(&per_window, most);
        if let Some(r) = ranges.iter().find(|r| self.bounded && r.len() == 1 && per_window[r.start as usize] > most) {
            return Err(IndexError::Memory(over(r.start, per_window[r.start as usize], callpaths)));
        }
        drop(per_window);
        comms.ranges(&ranges)?;
        let scanner = BusyScanner::new(trace, &BusyDefinition::Compute);
        let level1 = &plan.levels[0];
        let il = &trace.instants.location;
        let mut summaries: Vec<LocationSummary> = locs
            .clone()
            .map(|l| {
                let mut s = LocationSummary::new(&scanner, level1.bin_ns, level1.bins as usize, plan.tiling);
                let (a, z) = (il.partition_point(|x| x.0 < l), il.partition_point(|x| x.0 <= l));
                s.instants(&trace.instants.time_ns[a..z]);
                s
            })
            .collect();
        let mut region_totals = vec![(0u64, 0u64); trace.regions.len()];
        let mut lanes = vec![0u32; locs.len()];
        // Per location, the intervals of earlier ranges still open (with their trace indices).
        let mut carried: Vec<Vec<(Interval, u64)>> = vec![Vec::new(); locs.len()];
        let mut c = RangeColumns::default();
        // Summary threads beside the level-0 tiles' (none with one thread), each a share of the locations.
        let shares = self.threads.saturating_sub(1).min(locs.len());
        let per_share = locs.len().div_ceil(shares.max(1)).max(1);
        let mut own = Vec::with_capacity(locs.len());
        for (n, windows) in ranges.into_iter().enumerate() {
            c.clear();
            own.clear();
            let mut held = Vec::with_capacity(locs.len());
            for (k, r) in readers.iter_mut().enumerate() {
                let from = c.region.len();
                for &(i, ix) in &carried[k] {
                    c.push(i, ix);
                }
                held.push(carried[k].len());
                let start = c.region.len();
                while let Some(i) = r.next_before(t, windows.end).map_err(io)? {
                    c.push(i, first[k] + r.next - 1);
                }
                c.ranges.push(from..c.region.len());
                if let Some(&d) = c.depth[start..].iter().max() {
                    lanes[k] = lanes[k].max(d as u32 + 1);
                }
                own.push(start..c.region.len());
            }
            let range_comms = comms.range(n, windows.clone())?;
            // Each location's summary fed the range's own intervals, then its message ends.
            let (cols, own, rc) = (&c, &own, &range_comms);
            let feed = |summaries: &mut [LocationSummary], first: usize| {
                for (j, s) in summaries.iter_mut().enumerate() {
                    let at = own[first + j].clone();
                    let (r, st, d, dp) = (&cols.region, &cols.start_ns, &cols.dur_ns, &cols.depth);
                    s.push(&r[at.clone()], &st[at.clone()], &d[at.clone()], &dp[at]);
                    s.message_ends(&rc.ends[first + j]);
                }
            };
            let bi = c.intervals();
            let tiles = if shares == 0 {
                feed(&mut summaries, 0);
                level0_tiles(trace, plan, b, &bi, rc, windows.clone(), &held, particles, &mut region_totals)
            } else {
                std::thread::scope(|s| {
                    let fed: Vec<_> = summaries
                        .chunks_mut(per_share)
                        .enumerate()
                        .map(|(i, part)| s.spawn(move || feed(part, i * per_share)))
                        .collect();
                    let windows = windows.clone();
                    let tiles = level0_tiles(trace, plan, b, &bi, rc, windows, &held, particles, &mut region_totals);
                    fed.into_iter().for_each(|h| h.join().expect("a summary task does not panic"));
                    tiles
                })
            };
            for (e, bytes) in tiles {
                put(e, bytes)?;
            }
            drop(range_comms);
            return_free_memory();
            // What stays open past the range: into the next one.
            if windows.end < t.windows {
                for (k, r) in c.ranges.iter().enumerate() {
                    carried[k] = r
                        .clone()
                        .filter(|&j| t.window_of(c.start_ns[j] + c.dur_ns[j]) >= windows.end)
                        .map(|j| ((c.region[j], c.start_ns[j], c.dur_ns[j], c.depth[j]), c.index[j]))
                        .collect();
                }
            }
        }
        drop(c);
        let finished = summaries.iter_mut().map(|s| s.finish(trace.span_ns));
        for (e, bytes) in summary_tiles(trace, plan, b, finished) {
            put(e, bytes)?;
        }
        Ok(RangedOutput { region_totals, lanes })
    }
}

/// Block `b`'s particle-view intervals read from its spill location by location, into `sink` as
/// `build::block_particles` gives them: the shard that writes the particle tiles needs every block's, and
/// one too long for a task's share is not read whole. `first_index`: the block's first interval's trace
/// index; `counts`: pass 1's interval count of each location of the trace.
#[allow(clippy::too_many_arguments)]
pub(crate) fn block_particles(
    trace: &Trace,
    plan: &Plan,
    b: u32,
    counts: &[u64],
    first_index: u64,
    origin: i64,
    fetch: Fetch,
    sink: &mut dyn ParticleSink,
) -> Result<(), IndexError> {
    let t = &plan.tiling;
    let mut per_window = vec![0u64; t.windows as usize];
    let mut index = first_index;
    let mut piece = Vec::with_capacity(PARTICLE_PIECE);
    for l in t.block_range(b, trace.locations.len() as u32) {
        let scan = scan_location(fetch, l as usize, origin, t, &mut per_window).map_err(IndexError::Io)?;
        if scan.intervals != counts[l as usize] {
            let counted = counts[l as usize];
            return Err(IndexError::Io(format!(
                "the spill of location {l} holds {} intervals, {counted} were read",
                scan.intervals
            )));
        }
        let mut r = LocationReader::new(fetch, l as usize, origin, scan);
        while let Some((region, start, dur, _)) = r.next_before(t, u32::MAX).map_err(IndexError::Io)? {
            if plan.particle_region[region.index()] {
                piece.push(Particle {
                    start_ns: start,
                    location: l,
                    index: index + r.next - 1,
                    region: region.0,
                    dur_ns: dur,
                });
                if piece.len() == PARTICLE_PIECE {
                    sink.put(&piece);
                    piece.clear();
                }
            }
        }
        if !piece.is_empty() {
            sink.put(&piece);
            piece.clear();
        }
        index += counts[l as usize];
    }
    Ok(())
}

/// A range's intervals as `build::level0_tiles` takes them: per location, those carried then its own.
#[derive(Default)]
struct RangeColumns {
    ranges: Vec<Range<usize>>,
    region: Vec<RegionId>,
    start_ns: Vec<u64>,
    dur_ns: Vec<u64>,
    depth: Vec<u16>,
    index: Vec<u64>,
}

impl RangeColumns {
    fn clear(&mut self) {
        self.ranges.clear();
        self.region.clear();
        self.start_ns.clear();
        self.dur_ns.clear();
        self.depth.clear();
        self.index.clear();
    }

    #[inline]
    fn push(&mut self, (region, start, dur, depth): Interval, index: u64) {
        self.region.push(region);
        self.start_ns.push(start);
        self.dur_ns.push(dur);
        self.depth.push(depth);
        self.index.push(index);
    }

    fn intervals(&self) -> BlockIntervals<'_> {
        BlockIntervals {
            ranges: &self.ranges,
            region: &self.region,
            start_ns: &self.start_ns,
            dur_ns: &self.dur_ns,
            depth: &self.depth,
            first_index: 0,
            index: Some(&self.index),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spill::{MemorySpill, Spill};
    use crate::stream::nest::encode_segment;
    use weft_store::format::columns::ColumnWriter;

    fn tiling(windows: u32, window_ns: u64) -> Tiling {
        Tiling { block_locations: 1, blocks: 1, window_ns, windows, bins_per_tile: 1, block_series: 1 }
    }

    /// A location spilled in segments with fix-ups (one of them twice, the last winning) reads back, range
    /// by range, as the whole decode gives it; a piece smaller than a segment makes no difference.
    #[test]
    fn a_location_reads_back_range_by_range() {
        let mut spill = MemorySpill::default();
        let mut w = ColumnWriter::default();
        // Interval 0 (depth 0) open until the end, fixed up twice; interval 2 fixed up in the third segment.
        type Segment<'a> = (&'a [(u32, i64, u64, u16)], &'a [(u64, u64)]);
        let segs: [Segment; 3] = [
            (&[(0, 100, 5, 0), (1, 110, 20, 1)], &[]),
            (&[(2, 150, 9, 1), (1, 400, 3, 2)], &[(0, 300)]),
            (&[(3, 900, 1, 1)], &[(2, 260), (0, 905)]),
        ];
        for (v, f) in segs {
            encode_segment(v.iter().map(|&(r, s, d, k)| (RegionId(r), s, d, k)), f, &mut w);
            spill.put(0, &w.buf).unwrap();
        }
        let t = tiling(10, 100);
        let mut per_window = vec![0u64; 10];
        let fetch = |k: usize, at: u64, max: usize| spill.get_from(k, at, max);
        let scan = scan_location(&fetch, 0, 100, &t, &mut per_window).unwrap();
        assert_eq!((scan.intervals, &scan.fixups[..]), (5, &[(0, 905), (2, 260)][..]));
        // Paths r0, r0/r1, r0/r2, r0/r2/r1, r0/r3, 3 lanes; starts in windows 0 (3), 3 and 8: 5 figures
        // each there, 3 in each of the 7 windows without a start.
        assert_eq!(scan.callpath_bytes, callpath_bytes(3 * 5 + 7 * 3, 5));
        assert_eq!(per_window, vec![3, 0, 0, 1, 0, 0, 0, 0, 1, 0]);
        assert_eq!(window_ranges(&per_window, 3), vec![0..3, 3..10]);
        assert_eq!(window_ranges(&per_window, 1), vec![0..1, 1..8, 8..10]);
        let mut r = LocationReader::new(&fetch, 0, 100, scan);
        let mut got = Vec::new();
        for end in [1, 4, 10] {
            let mut range = Vec::new();
            while let Some(i) = r.next_before(&t, end).unwrap() {
                range.push((i.0 .0, i.1, i.2, i.3));
            }
            got.push(range);
        }
        assert_eq!(
            got,
            vec![vec![(0, 0, 905, 0), (1, 10, 20, 1), (2, 50, 260, 1)], vec![(1, 300, 3, 2)], vec![(3, 800, 1, 1)]]
        );
        // Cut short, the spill is an error naming the byte, not a panic.
        drop(r);
        let whole = spill.parts[0].clone();
        // (A cut between segments leaves a shorter location: pass 2 checks the count pass 1 made.)
        for cut in 1..whole.len() {
            spill.parts[0] = whole[..cut].to_vec();
            let mut pw = vec![0u64; 10];
            let fetch = |k: usize, at: u64, max: usize| spill.get_from(k, at, max);
            if let Ok(s) = scan_location(&fetch, 0, 100, &t, &mut pw) {
                assert!(s.intervals < 5, "cut at {cut}");
            }
        }
    }

    /// The call-path figures a location's windows hold never pass the bound the first read counts them in,
    /// on nested intervals of few and of many paths, short and crossing windows; and that bound comes out of
    /// a range's room.
    #[test]
    fn call_paths_stay_within_what_the_first_read_counts() {
        use crate::build::callpaths::LocationPaths;
        let t = tiling(16, 1000);
        for (regions, seed) in [(2u32, 1u64), (5, 2), (40, 3)] {
            // Nested intervals in start order: depth up to 4, each child inside its parent.
            let mut x = 0x9E37_79B9_7F4A_7C15u64 ^ seed;
            let mut next = |m: u64| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x % m
            };
            let (mut iv, mut open) = (Vec::new(), Vec::<(u64, u64)>::new());
            let mut at = 0u64;
            while at < 15_000 {
                while open.last().is_some_and(|&(_, e)| e <= at) || open.len() > 3 {
                    open.pop();
                }
                let end = open.last().map_or(16_000, |&(_, e)| e);
                if end <= at + 1 {
                    open.pop();
                    continue;
                }
                let d = 1 + next((end - at - 1).min(3000));
                iv.push((RegionId(next(regions as u64) as u32), at, d, open.len() as u16));
                open.push((at, at + d));
                at += next(200);
            }
            let mut starts: Vec<(u32, u64)> = Vec::new();
            let mut table = PathTable::new();
            let mut lanes = 0;
            for &(r, s, _, k) in &iv {
                let w = t.window_of(s);
                match starts.last_mut() {
                    Some((v, n)) if *v == w => *n += 1,
                    _ => starts.push((w, 1)),
                }
                table.intern(r, k);
                lanes = lanes.max(k as u64 + 1);
            }
            let mut lp = LocationPaths::new(t);
            let col = |f: fn(&(RegionId, u64, u64, u16)) -> u64| iv.iter().map(f).collect::<Vec<u64>>();
            let region: Vec<RegionId> = iv.iter().map(|i| i.0).collect();
            let depth: Vec<u16> = iv.iter().map(|i| i.3).collect();
            lp.push(&region, &col(|i| i.1), &col(|i| i.2), &depth);
            let got = lp.finish();
            let held: u64 = got.windows.iter().map(|(_, f)| f.len() as u64).sum();
            let bound = callpath_figures(&starts, t.windows, lanes, table.len() as u64);
            assert_eq!(got.paths.len(), table.len());
            assert!(held <= bound, "{held} figures held, {bound} counted ({regions} regions)");
            assert!(held > 0);
        }
        // What the call paths hold is room a range does not have.
        let bins = SummaryBytes { per_location: 1000, making: 100 };
        let comms = BlockCommBytes { reading: 0, held: 0 };
        let most = |budget: u64, callpaths: u64| most_intervals(budget, 1 << 20, 4, 16, bins, comms, 0, callpaths);
        let held = callpath_bytes(10_000, 50);
        assert_eq!(most(64 << 20, held), most((64 << 20) - held, 0));
        assert!(most(64 << 20, held) < most(64 << 20, 0));
        assert_eq!(most(2 << 20, 2 << 20), None);
    }
}
