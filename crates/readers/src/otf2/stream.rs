//! An OTF2 archive read location by location ([`Otf2Stream`]), for a caller that holds the intervals itself
//! (`weft index`, issue #17). The stream's own methods are what a reader of locations needs; what only the
//! index asks of it (intervals taken in prefixes, decoding ahead and replaying, spilling, the streamed
//! finish, a shard's share) is the [`StreamIndexing`] trait.

use super::assemble::{self, Decoder, Held, LocationLog, LoggedRead, PendingCollectives};
use super::{open_anchor, ArchiveFiles, EndsSpill};
use crate::ReadError;
use weft_model::Trace;

/// Takes a location's intervals while its events are decoded (`weft index`, whose memory must not grow
/// with a location's length). Intervals are numbered by arrival (ENTER order) from 0.
pub trait IntervalTaker {
    /// `buf` holds the location's intervals from arrival number `first` on (region, start ns, duration ns;
    /// the duration of one still open is 0); `open` the arrival numbers of those still open, ascending. Every
    /// event so far is at or before `now` and every later one will be at or after it. `held`: what the
    /// reader holds until the end so far (bytes; sends, receives, collective parts). Returns how many of
    /// `buf`'s first intervals it took (they leave `buf`), or None to stop reading (the taker refuses to go
    /// on, and says why to its caller).
    fn take(
        &mut self,
        buf: &[(weft_model::RegionId, i64, u64)],
        first: usize,
        open: &[usize],
        now: i64,
        held: Held,
    ) -> Option<usize>;
    /// Interval `slot`, taken while open, closed after `dur_ns`.
    fn closed(&mut self, slot: usize, dur_ns: u64);
}

/// An archive read location by location (`weft index`, issue #17): the definitions first, then each
/// location's events on request, its intervals handed to the caller instead of kept; instants, message ends,
/// collective parts and warnings stay here, small, until [`finish`](Otf2Stream::finish) matches them. The
/// trace `finish` returns equals [`read_archive`](super::read_archive)'s without its intervals (the caller holds those; it
/// reports their earliest start with [`note_outside_start`](Otf2Stream::note_outside_start) so the origin is
/// the same).
pub struct Otf2Stream<'f>(assemble::Assembler<'f>, &'f (dyn ArchiveFiles + Sync));

/// Open the archive whose anchor is `name` among `files` for reading location by location.
pub fn open_stream<'f>(name: &str, files: &'f (dyn ArchiveFiles + Sync)) -> Result<Otf2Stream<'f>, ReadError> {
    let (anchor_path, anchor) = open_anchor(name, files)?;
    Ok(Otf2Stream(assemble::Assembler::open(&anchor_path, anchor, files)?, files))
}

impl<'f> Otf2Stream<'f> {
    /// Locations to read, in definition order.
    pub fn location_count(&self) -> usize {
        self.0.locations.len()
    }

    /// The model location of the `k`-th location read, and its event file's path in the archive.
    pub fn location_id(&self, k: usize) -> (weft_model::LocationId, String) {
        let (id, loc) = self.0.locations[k];
        (loc, format!("{}/{id}.evt", self.0.stem))
    }

    /// Decode the `k`-th location's events, appending its intervals (region, start ns in the source clock,
    /// duration ns; in ENTER order, not yet nested) to `intervals`.
    pub fn location(
        &mut self,
        k: usize,
        intervals: &mut Vec<(weft_model::RegionId, i64, u64)>,
    ) -> Result<weft_model::LocationId, ReadError> {
        self.0.location(k, intervals, None).map(|r| r.0)
    }

    /// Read event files `bytes` at a time (by default [`READ_WINDOW`]; tests make it small).
    pub fn set_read_window(&mut self, bytes: usize) {
        self.0.window = bytes;
    }

    /// An interval held by the caller starts at `start_ns` (source clock).
    pub fn note_outside_start(&mut self, start_ns: i64) {
        self.0.b.note_outside_start(start_ns);
    }

    /// Match messages and collectives; the trace without intervals. Fails only when spilled message ends
    /// cannot be read back.
    pub fn finish(self) -> Result<Trace, ReadError> {
        self.0.finish().map(|r| r.trace)
    }
}

/// What only `weft index` asks of an [`Otf2Stream`] (issue #52: the stream's own methods are what a reader
/// of locations needs): intervals handed over as they come, locations decoded on other threads and replayed
/// in order (or replayed from another shard's log as bytes), what the read holds, counter samples and
/// message ends spilled, the messages and collective rows handed over at the end instead of kept, and a
/// shard's share of the messages.
pub trait StreamIndexing<'f> {
    /// The model's location count (two definitions of one location make one model location).
    fn model_locations(&self) -> usize;

    /// [`location`](Otf2Stream::location) handing its intervals to `taker` as they come: whenever `intervals`
    /// holds `limit` of them (and the location's times have not gone back), `taker` may take a prefix;
    /// `intervals` ends with the rest. Returns how many were taken, and whether the location's times never
    /// went back.
    fn location_taken(
        &mut self,
        k: usize,
        intervals: &mut Vec<(weft_model::RegionId, i64, u64)>,
        taker: &mut dyn IntervalTaker,
        limit: usize,
    ) -> Result<(usize, bool), ReadError>;

    /// A decoder of this archive's locations for other threads: each location's intervals and a log of the
    /// rest, for [`replay`](Self::replay) in location order (`weft index` decodes several locations at once).
    fn decoder(&self) -> Decoder<'f>;

    /// Take the `k`-th location as read by a [`Decoder`] (`log`, what [`Decoder::decode`] returned): the
    /// stream is then as after [`location`](Otf2Stream::location) of it, the caller holding its intervals.
    fn replay(&mut self, k: usize, log: LocationLog) -> Result<(), ReadError>;

    /// Apply a batch of the `k`-th location's log as bytes, exactly as [`Decoder::decode_bytes`] handed it
    /// on (one batch a call: its times are relative within it; perhaps in another process: a shard's own
    /// locations, `index::exchange`); `sends` starts empty for
    /// each location. After its last batch, [`replay_end`](Self::replay_end): the stream is then as after
    /// [`location`](Otf2Stream::location) of it.
    fn replay_bytes(&mut self, k: usize, sends: &mut Vec<u64>, bytes: &[u8]) -> Result<(), ReadError>;

    /// The `k`-th location's log replayed ([`replay_bytes`](Self::replay_bytes)): `read` is what
    /// [`Decoder::decode_bytes`] returned for it.
    fn replay_end(&mut self, k: usize, read: &LoggedRead) -> Result<(), ReadError>;

    /// About the bytes held until [`finish`](Otf2Stream::finish) (message ends and collective parts to match,
    /// or for those spilled the messages and parts the trace will hold; instants, counter samples,
    /// strings), and the counts of sends, receives and collective parts.
    fn held_bytes(&self) -> Held;

    /// Whether the message ends kept to the end went to the spill ([`spill_ends`](Self::spill_ends)): then
    /// [`finish_streamed`](Self::finish_streamed) hands the messages over channel by channel as the runs
    /// merge, else in receive order.
    fn ends_spilled(&self) -> bool;

    /// Counter samples go to `sink` as they are read, a batch at a time, not into the trace
    /// (`TraceBuilder::sink_samples`: a streamed index spills them).
    fn sink_samples(&mut self, sink: Box<dyn weft_model::SampleSink>);

    /// The counter samples the builder holds to its sink now ([`sink_samples`](Self::sink_samples)).
    fn flush_samples(&mut self);

    /// Spill the message ends and collective parts kept to the end to `out` in sorted runs whenever they
    /// hold more than `share` bytes, and match them from the runs (`ends` module doc; the trace is the same).
    fn spill_ends(&mut self, out: Box<dyn EndsSpill>, share: u64);

    /// [`finish`](Otf2Stream::finish) handing the messages and collective rows over instead of holding them in
    /// the trace (a streamed index sorts and spills them, `index::comms`): each matched message to `message`
    /// with its receive's number (the trace's order among messages of equal send and receive times), in
    /// no particular order, times in the source clock; then each collective row to `collective`, in the
    /// trace's order, with the trace's origin. The trace is the one [`finish`](Otf2Stream::finish) gives without
    /// its messages and collectives (its origin counts them; its span does not).
    ///
    /// `combine` takes what this read matched ([`MatchedShare`]) and returns what the trace's reads matched
    /// together: itself for one read; a shard that matched only its own receivers
    /// ([`keep_receivers`](Self::keep_receivers)) sums the shards' shares (`index::exchange`).
    fn finish_streamed(
        self,
        message: &mut dyn FnMut(&weft_model::MessageRecord, u64) -> Result<(), String>,
        combine: &mut dyn FnMut(MatchedShare) -> Result<MatchedShare, String>,
        collective: &mut dyn FnMut(&weft_model::CollectiveRecord, i64) -> Result<(), String>,
    ) -> Result<Trace, ReadError>
    where
        Self: Sized;

    /// [`finish_streamed`](Self::finish_streamed) without handing the collective rows over: the caller
    /// does, when it will, with what this returns beside the trace (another thread may meanwhile take the
    /// messages on; `index::stream` does).
    fn finish_streamed_deferred(
        self,
        message: &mut dyn FnMut(&weft_model::MessageRecord, u64) -> Result<(), String>,
        combine: &mut dyn FnMut(MatchedShare) -> Result<MatchedShare, String>,
    ) -> Result<(Trace, PendingCollectives), ReadError>
    where
        Self: Sized;

    /// Sends and receives the stream has recorded so far, kept or not ([`keep_receivers`](Self::keep_receivers)).
    fn end_counts(&self) -> [u64; 2];

    /// Match only the messages received by locations `receivers` (numbered as the stream numbers them):
    /// the other messages' sends and receives are counted and dropped (a shard matching the messages its
    /// own locations received, `index::exchange`). Before any location is read or replayed.
    fn keep_receivers(&mut self, receivers: std::ops::Range<u32>);
}

impl<'f> StreamIndexing<'f> for Otf2Stream<'f> {
    fn model_locations(&self) -> usize {
        self.0.b.location_count()
    }

    fn location_taken(
        &mut self,
        k: usize,
        intervals: &mut Vec<(weft_model::RegionId, i64, u64)>,
        taker: &mut dyn IntervalTaker,
        limit: usize,
    ) -> Result<(usize, bool), ReadError> {
        self.0.location(k, intervals, Some((taker, limit))).map(|(_, r)| (r.taken, r.in_order))
    }

    fn decoder(&self) -> Decoder<'f> {
        self.0.decoder(self.1)
    }

    fn replay(&mut self, k: usize, log: LocationLog) -> Result<(), ReadError> {
        self.0.replay(k, log)
    }

    fn replay_bytes(&mut self, k: usize, sends: &mut Vec<u64>, bytes: &[u8]) -> Result<(), ReadError> {
        self.0.replay_bytes(k, sends, bytes)
    }

    fn replay_end(&mut self, k: usize, read: &LoggedRead) -> Result<(), ReadError> {
        self.0.replay_end(k, read.events, read.unresolved)
    }

    fn held_bytes(&self) -> Held {
        self.0.held_bytes()
    }

    fn ends_spilled(&self) -> bool {
        self.0.ends_spilled()
    }

    fn sink_samples(&mut self, sink: Box<dyn weft_model::SampleSink>) {
        self.0.b.sink_samples(sink);
    }

    fn flush_samples(&mut self) {
        self.0.b.flush_samples();
    }

    fn spill_ends(&mut self, out: Box<dyn EndsSpill>, share: u64) {
        self.0.spill_ends(out, share);
    }

    fn finish_streamed(
        self,
        message: &mut dyn FnMut(&weft_model::MessageRecord, u64) -> Result<(), String>,
        combine: &mut dyn FnMut(MatchedShare) -> Result<MatchedShare, String>,
        collective: &mut dyn FnMut(&weft_model::CollectiveRecord, i64) -> Result<(), String>,
    ) -> Result<Trace, ReadError> {
        self.0.finish_streamed(message, combine, collective).map(|r| r.trace)
    }

    fn finish_streamed_deferred(
        self,
        message: &mut dyn FnMut(&weft_model::MessageRecord, u64) -> Result<(), String>,
        combine: &mut dyn FnMut(MatchedShare) -> Result<MatchedShare, String>,
    ) -> Result<(Trace, PendingCollectives), ReadError> {
        self.0.finish_streamed_deferred(message, combine).map(|(r, c)| (r.trace, c))
    }

    fn end_counts(&self) -> [u64; 2] {
        self.0.end_counts()
    }

    fn keep_receivers(&mut self, receivers: std::ops::Range<u32>) {
        self.0.keep_receivers(receivers);
    }
}

/// What one read matched of the messages, in a streamed finish ([`Otf2Stream::finish_streamed`]): its
/// sends and receives without a partner, and its messages' earliest time (send or receive, source clock;
/// `i64::MAX` without any).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MatchedShare {
    pub unmatched_sends: u64,
    pub unmatched_recvs: u64,
    pub first_ns: i64,
}

impl MatchedShare {
    /// The shares of several reads together.
    pub fn sum(shares: &[MatchedShare]) -> MatchedShare {
        MatchedShare {
            unmatched_sends: shares.iter().map(|s| s.unmatched_sends).sum(),
            unmatched_recvs: shares.iter().map(|s| s.unmatched_recvs).sum(),
            first_ns: shares.iter().map(|s| s.first_ns).min().unwrap_or(i64::MAX),
        }
    }
}
