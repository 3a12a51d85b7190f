//! The streamed index's nested intervals kept as the columns pass 2 tiles (issue #17, throughput): while
//! they fit in their share of `--memory` (`StreamOptions::held`), pass 1 appends each location's nested
//! intervals here and pass 2 cuts a block's tiles straight from a slice of them, instead of encoding them to
//! the spill as varints, reading the spill back and decoding it into a block's columns (that round trip
//! and its copies were about a tenth of an index's CPU: BENCHMARKS.md). When they would pass their share
//! they are written to the spill in the spill's format ([`HeldColumns::spill`]) and the index goes on
//! spilling as before: pass 2 sees the same columns either way, so the store's bytes do not change.
//!
//! Plain Rust, no files (the spill is the caller's); must not decide the tiling.

use crate::budget::INTERVAL_BYTES;
use crate::build::BlockIntervals;
use crate::spill::Spill;
use crate::stream::nest::{encode_segment, Nested, NestedColumns, NestedColumnsMut, NestedSink};
use std::ops::Range;
use weft_model::RegionId;

/// The nested intervals of the locations read so far, in location order (a block of locations is one
/// slice of them).
#[derive(Default)]
pub(crate) struct HeldColumns {
    /// Per location read so far, its range in the columns (empty for a location another shard tiles).
    pub(crate) ranges: Vec<Range<usize>>,
    region: Vec<RegionId>,
    /// Start in the source clock (an `i64`'s bits) until [`rebase`](Self::rebase), then ns from the origin.
    start_ns: Vec<u64>,
    dur_ns: Vec<u64>,
    depth: Vec<u16>,
    /// Where the location being read starts.
    base: usize,
}

impl HeldColumns {
    /// Bytes the columns hold (their capacity: what they took from the allocator).
    pub(crate) fn bytes(&self) -> u64 {
        self.region.capacity() as u64 * INTERVAL_BYTES + self.ranges.capacity() as u64 * 16
    }

    /// The next location starts.
    pub(crate) fn begin(&mut self) {
        self.base = self.region.len();
    }

    /// Append nested intervals of the location being read, in order.
    pub(crate) fn push_nested(&mut self, v: &[Nested]) {
        self.reserve(v.len());
        self.region.extend(v.iter().map(|n| n.0));
        self.start_ns.extend(v.iter().map(|n| n.1 as u64));
        self.dur_ns.extend(v.iter().map(|n| n.2));
        self.depth.extend(v.iter().map(|n| n.3));
    }

    /// Append a location's nested intervals as columns (a copy of each column).
    pub(crate) fn push(&mut self, v: &NestedColumns) {
        self.reserve(v.len());
        self.region.extend_from_slice(&v.region);
        self.start_ns.extend_from_slice(&v.start);
        self.dur_ns.extend_from_slice(&v.dur);
        self.depth.extend_from_slice(&v.depth);
    }

    /// The deepest nesting depth among the location being read's intervals pushed so far (0 for none).
    pub(crate) fn deepest_reading(&self) -> u16 {
        self.depth[self.base..].iter().copied().max().unwrap_or(0)
    }

    /// The location being read: its intervals pushed so far, and the first one's start (source clock).
    pub(crate) fn reading(&self) -> (usize, Option<i64>) {
        (self.region.len() - self.base, self.start_ns.get(self.base).map(|&s| s as i64))
    }

    /// Room for `n` more intervals, the columns growing together (their capacities stay equal, so
    /// [`bytes`](Self::bytes) counts one of them) by an eighth rather than doubling: what is counted stays
    /// near what is used (a large column grows in place, `mremap`, not by a copy).
    fn reserve(&mut self, n: usize) {
        let len = self.region.len();
        if len + n <= self.region.capacity() {
            return;
        }
        let cap = (len + n).max(len + len / 8);
        self.region.reserve_exact(cap - len);
        self.start_ns.reserve_exact(cap - len);
        self.dur_ns.reserve_exact(cap - len);
        self.depth.reserve_exact(cap - len);
    }

    /// Durations of the location's intervals written while open (`nest::LocationNest`'s fix-ups: index in
    /// the location, duration). False when one names an interval not pushed (a caller's bug).
    pub(crate) fn fix(&mut self, fixups: &[(u64, u64)]) -> bool {
        for &(i, dur) in fixups {
            match usize::try_from(i).ok().and_then(|i| self.dur_ns[self.base..].get_mut(i)) {
                Some(d) => *d = dur,
                None => return false,
            }
        }
        true
    }

    /// The location being read ends (`kept`: false when another shard tiles it, nothing pushed).
    pub(crate) fn end(&mut self, kept: bool) {
        let len = self.region.len();
        self.ranges.push(if kept { self.base..len } else { len..len });
    }

    /// Write every location held to `spill` in the spill's format (a location's intervals as one segment;
    /// the one being read, `reading`, as the first segment of its spill), with `w` as scratch. Returns the
    /// bytes written.
    pub(crate) fn spill(
        &self,
        spill: &mut dyn Spill,
        reading: Option<usize>,
        w: &mut weft_store::format::columns::ColumnWriter,
    ) -> Result<u64, String> {
        let mut bytes = 0;
        let current = reading.map(|k| (k, self.base..self.region.len()));
        for (k, r) in self.ranges.iter().cloned().enumerate().chain(current) {
            if r.is_empty() {
                continue;
            }
            encode_segment(r.map(|i| (self.region[i], self.start_ns[i] as i64, self.dur_ns[i], self.depth[i])), &[], w);
            bytes += w.buf.len() as u64;
            spill.put(k, &w.buf)?;
        }
        Ok(bytes)
    }

    /// Starts from the source clock to ns from `origin` (as pass 2's read of the spill makes them).
    pub(crate) fn rebase(&mut self, origin: i64) {
        for s in &mut self.start_ns {
            *s = (*s as i64).saturating_sub(origin).max(0) as u64;
        }
    }

    /// The intervals of `locations` (a block's) as pass 2 reads them, `first_index` the trace index of the
    /// block's first interval. None when a location was not read.
    pub(crate) fn block(&self, locations: Range<usize>, first_index: u64) -> Option<BlockIntervals<'_>> {
        let ranges = self.ranges.get(locations)?;
        let at = ranges.first().map_or(0, |r| r.start) as u64;
        Some(BlockIntervals {
            ranges,
            region: &self.region,
            start_ns: &self.start_ns,
            dur_ns: &self.dur_ns,
            depth: &self.depth,
            first_index: first_index.checked_sub(at)?,
            index: None,
        })
    }
}

/// `nest::nest_into` writes a location's nested intervals straight into the columns.
impl NestedSink for HeldColumns {
    fn reserve(&mut self, n: usize) {
        HeldColumns::reserve(self, n);
    }
    #[inline]
    fn put(&mut self, (r, start, dur, depth): Nested) {
        self.region.push(r);
        self.start_ns.push(start as u64);
        self.dur_ns.push(dur);
        self.depth.push(depth);
    }
    fn columns(&mut self) -> Option<NestedColumnsMut<'_>> {
        Some(NestedColumnsMut {
            region: &mut self.region,
            start: &mut self.start_ns,
            dur: &mut self.dur_ns,
            depth: &mut self.depth,
        })
    }
}
