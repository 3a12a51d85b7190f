//! The Chrome reader for an index that must not hold the trace (`weft index`, issue #17): the same push
//! reader, but each thread's X intervals and B/E events are spilled as they come, in per-thread segments,
//! whenever the buffered ones pass a bound ([`ChromeStreamReader::spilling`]); at the end each thread is
//! read back alone, its B/E matched, its flow ends bound and its intervals handed over in the builder's
//! order ([`ChromeStreamReader::finish_streamed`]), so memory holds one thread's events at a time plus what
//! the whole read also keeps compact until the end (instants, counters, flow ends, async events).
//!
//! The result is the whole read's, split: the intervals a location would get from
//! [`TraceBuilder::finish`](weft_model::TraceBuilder::finish) arrive location by location, in location
//! order, before nesting, and the returned builder holds everything else (warnings in the same order).
//! It must not interpret events (`events.rs` does) nor nest intervals (the caller does, as the builder would).

use super::slices::{BeEvent, PendingInterval, ThreadSlices};
use super::ChromeStreamReader;
use crate::ReadError;
use weft_model::{RegionId, TraceBuilder};

/// Where a streamed read hands each location's intervals, (region, start, duration) in builder order.
pub type EachLocation<'a, E> = dyn FnMut(usize, &[(RegionId, i64, u64)]) -> Result<(), E> + 'a;

/// Where spilled thread events go: bytes appended per location, read back whole in the order appended.
pub trait EventSpill {
    fn append(&mut self, location: usize, bytes: &[u8]) -> Result<(), String>;
    /// Everything appended for `location` (empty when nothing was).
    fn read(&mut self, location: usize) -> Result<Vec<u8>, String>;
}

/// The spill a converter writes to while reading, and how much it holds before writing.
pub(super) struct Spilling {
    pub out: Box<dyn EventSpill>,
    /// Records (X intervals and B/E events) buffered in all threads.
    pub buffered: usize,
    pub limit: usize,
    /// The first write that failed: reported by the next `feed`.
    pub error: Option<String>,
    scratch: Vec<u8>,
    /// Records spilled per location: X intervals, B/E events.
    records: Vec<(u64, u64)>,
    /// At most how many records a location may hold (it is read back whole): None, any.
    cap: Option<crate::budget::LocationCap>,
    /// Whether a location passed the cap: the read goes on to count every location's records (for the
    /// refusal at its end to name what would do), but spills nothing more.
    over: bool,
}

/// Bytes a buffered record takes in a thread's vectors (an X interval is 32, a B/E event 24).
pub const RECORD_BYTES: u64 = 32;

fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn signed(out: &mut Vec<u8>, v: i64) {
    varint(out, ((v << 1) ^ (v >> 63)) as u64);
}

struct Bytes<'a> {
    b: &'a [u8],
    i: usize,
}

impl Bytes<'_> {
    fn varint(&mut self) -> Result<u64, String> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let Some(&c) = self.b.get(self.i) else {
                return Err(format!("spilled events end early at byte {}", self.i));
            };
            self.i += 1;
            v |= ((c & 0x7f) as u64) << shift;
            if c < 0x80 {
                return Ok(v);
            }
        }
        Err(format!("spilled events damaged at byte {}", self.i))
    }
    fn signed(&mut self) -> Result<i64, String> {
        let v = self.varint()?;
        Ok(((v >> 1) as i64) ^ -((v & 1) as i64))
    }
}

/// One segment: the X intervals, then the B/E events, each count first.
fn encode(th: &ThreadSlices, out: &mut Vec<u8>) {
    out.clear();
    varint(out, th.intervals.len() as u64);
    for p in &th.intervals {
        signed(out, p.start);
        varint(out, p.dur);
        varint(out, p.region.0 as u64);
        varint(out, p.seq as u64);
    }
    varint(out, th.be.len() as u64);
    for e in &th.be {
        signed(out, e.ts);
        varint(out, e.seq as u64);
        varint(out, e.what as u64);
        varint(out, e.begin as u64);
    }
}

/// A thread's spilled segments back into `th` (B/E events pushed again, so their order check is redone).
fn decode(bytes: &[u8], th: &mut ThreadSlices) -> Result<(), String> {
    let mut r = Bytes { b: bytes, i: 0 };
    while r.i < bytes.len() {
        let n = r.varint()?;
        for _ in 0..n {
            let start = r.signed()?;
            let dur = r.varint()?;
            let region = RegionId(r.varint()? as u32);
            let seq = r.varint()? as u32;
            th.intervals.push(PendingInterval { start, dur, region, seq });
        }
        let n = r.varint()?;
        for _ in 0..n {
            let ts = r.signed()?;
            let seq = r.varint()? as u32;
            let what = r.varint()? as u32;
            let begin = r.varint()? != 0;
            th.push(BeEvent { ts, seq, what, begin });
        }
    }
    Ok(())
}

impl super::events::Converter {
    /// A record was buffered in a thread: spill every thread's buffer once they pass the limit.
    #[inline]
    pub(super) fn buffered_one(&mut self) {
        if let Some(s) = &mut self.spill {
            s.buffered += 1;
            if s.buffered >= s.limit {
                self.spill_all();
            }
        }
    }

    /// Write every thread's buffered records to the spill and empty the buffers.
    pub(super) fn spill_all(&mut self) {
        let Some(s) = &mut self.spill else { return };
        s.buffered = 0;
        if s.records.len() < self.threads.len() {
            s.records.resize(self.threads.len(), (0, 0));
        }
        for (l, th) in self.threads.iter_mut().enumerate() {
            if th.intervals.is_empty() && th.be.is_empty() {
                continue;
            }
            let r = &mut s.records[l];
            *r = (r.0 + th.intervals.len() as u64, r.1 + th.be.len() as u64);
            s.over |= s.cap.as_ref().is_some_and(|cap| r.0 + r.1 > cap.records);
            if s.over {
                th.intervals.clear();
                th.be.clear();
                continue;
            }
            encode(th, &mut s.scratch);
            th.intervals = Vec::new();
            th.be = Vec::new();
            if s.error.is_none() {
                if let Err(e) = s.out.append(l, &s.scratch) {
                    s.error = Some(e);
                }
            }
        }
    }

    /// Thread `l`'s records read back from the spill (its buffers are empty after `spill_all`).
    pub(super) fn read_back(&mut self, l: usize) -> Result<ThreadSlices, String> {
        let s = self.spill.as_mut().expect("read back only while spilling");
        let bytes = s.out.read(l)?;
        let mut th = ThreadSlices::default();
        // Exactly what the thread holds (and the slices its B/E events may close): no doubling's slack.
        let (x, be) = s.records.get(l).copied().unwrap_or_default();
        th.intervals.reserve_exact((x + be / 2) as usize);
        th.be.reserve_exact(be as usize);
        decode(&bytes, &mut th)?;
        th.max_ts = th.max_ts.max(self.threads[l].max_ts);
        Ok(th)
    }
}

impl ChromeStreamReader {
    /// A reader for `weft index`: no event budget (memory is bounded by spilling instead), thread events
    /// spilled to `spill` whenever more than `buffer_records` are held.
    pub fn spilling(file: &str, spill: Box<dyn EventSpill>, buffer_records: usize) -> Self {
        let budget = crate::budget::Budget { stream_events: u64::MAX, ..crate::budget::Budget::DEFAULT };
        let mut r = Self::with_budget(file, budget);
        r.conv.spill = Some(Spilling {
            out: spill,
            buffered: 0,
            limit: buffer_records.max(1),
            error: None,
            scratch: Vec::new(),
            records: Vec::new(),
            cap: None,
            over: false,
        });
        // What it keeps to its end is counted by the memory its lists hold (`kept`): grown by an eighth.
        r.conv.asyncs.grow_by_eighths = true;
        r.conv.flows.grow_by_eighths = true;
        r
    }

    /// Refuse, at the end of the read, a thread holding more records than `cap` allows: a thread is read
    /// back whole to be matched, sorted and nested (a reader made by [`spilling`](Self::spilling)). Once one
    /// passes it, the read goes on counting but spills nothing, so that the refusal names the longest.
    pub fn cap_locations(&mut self, cap: crate::budget::LocationCap) {
        if let Some(s) = &mut self.conv.spill {
            s.cap = Some(cap);
        }
    }

    /// Counter samples go to `sink` a batch at a time instead of into the builder (`TraceBuilder::sink_samples`:
    /// a streamed index spills them).
    pub fn sink_samples(&mut self, sink: Box<dyn weft_model::SampleSink>) {
        self.conv.b.sink_samples(sink);
    }

    /// Messages (flows) go to `sink` a batch at a time instead of into the builder
    /// (`TraceBuilder::sink_messages`: a streamed index spills them).
    pub fn sink_messages(&mut self, sink: Box<dyn weft_model::MessageSink>) {
        self.conv.b.sink_messages(sink);
    }

    /// What the read keeps to its end outside the spill: instants, names and the samples not yet handed
    /// over (`TraceBuilder::held_bytes`), async events and flow ends, with the bytes they take.
    pub fn kept(&self) -> Kept {
        let b = &self.conv.b;
        let (asyncs, flow_ends) = (self.conv.asyncs.len() as u64, self.conv.flows.len() as u64);
        // By the memory their lists hold (grown by doubling), not only by their number.
        let (async_room, flow_room) = (self.conv.asyncs.capacity() as u64, self.conv.flows.capacity() as u64);
        Kept {
            bytes: b.held_bytes() + async_room * ASYNC_EVENT_READ_BYTES + flow_room * FLOW_END_BYTES,
            instants: b.instant_count(),
            asyncs,
            flow_ends,
        }
    }

    /// The refusal of the longest thread when one passed the cap.
    fn over_cap(&self) -> Result<(), ReadError> {
        let Some(s) = self.conv.spill.as_ref().filter(|s| s.over) else { return Ok(()) };
        let Some(cap) = &s.cap else { return Ok(()) };
        let longest = s.records.iter().enumerate().max_by_key(|(l, r)| (r.0 + r.1, std::cmp::Reverse(*l)));
        let Some((l, r)) = longest else { return Ok(()) };
        let b = &self.conv.b;
        cap.check(&self.file, || b.location_label(weft_model::LocationId(l as u32)), r.0 + r.1)
    }

    pub(super) fn spill_error(&mut self) -> Result<(), ReadError> {
        match self.conv.spill.as_mut().and_then(|s| s.error.take()) {
            Some(detail) => {
                Err(ReadError::Io { file: self.file.clone(), detail: format!("spilling events: {detail}") })
            }
            None => Ok(()),
        }
    }

    /// The file ended (a reader made by [`spilling`](Self::spilling)): each location's intervals go to
    /// `each(location, [(region, start, duration)])` in location order, in the order the builder would
    /// receive them (the caller nests them as `TraceBuilder::finish` does); the builder returned holds the
    /// rest of the trace, without intervals. `each` also gets locations without intervals (an empty slice).
    pub fn finish_streamed(mut self, each: &mut EachLocation<'_, String>) -> Result<TraceBuilder, ReadError> {
        let events = self.finish_input()?;
        self.conv.spill_all();
        self.over_cap()?;
        self.spill_error()?;
        let file = self.file.clone();
        let conv = self.conv;
        conv.finish_streamed(&file.clone(), events, &mut |l, v| {
            each(l, v).map_err(|detail| ReadError::Io { file: file.clone(), detail })
        })
    }
}

/// What a chunked Chrome read keeps to its end ([`ChromeStreamReader::kept`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Kept {
    /// About the bytes they hold while the threads are read back at the end (each thread whole, beside them).
    pub bytes: u64,
    pub instants: u64,
    pub asyncs: u64,
    pub flow_ends: u64,
}

impl Kept {
    /// The `--memory` they need when what the read keeps may take `share` of it (`1 / share`) while the
    /// threads are read back: then the async events, matched after every thread, take
    /// [`ASYNC_EVENT_BYTES`] each of at most half of it.
    pub fn memory_needed(&self, share: u64) -> u64 {
        self.bytes.saturating_mul(share).max(self.asyncs.saturating_mul(ASYNC_EVENT_BYTES).saturating_mul(2))
    }
}

/// Bytes an async event (`b`/`e`, `S`/`F`) takes as read (its record, kept to the end of the read).
pub const ASYNC_EVENT_READ_BYTES: u64 = std::mem::size_of::<super::asyncs::AsyncEvent>() as u64;

/// Bytes an async event takes at the end of the read, where every one is sorted, matched, made into slices
/// and trees, packed onto tracks and handed over as its track's intervals (measured: 1.5 M and 0.75 M
/// begin/end pairs, 110 bytes an event more at the peak, the intervals' own columns included).
pub const ASYNC_EVENT_BYTES: u64 = 128;

/// Bytes a flow end takes while the threads are read back: its record (32), sorted by key, its place in its
/// thread's list and its bound time (`flows::FlowBinds`).
pub const FLOW_END_BYTES: u64 = 56;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_round_trip() {
        let mut th = ThreadSlices::default();
        th.intervals.push(PendingInterval { start: -5, dur: 7, region: RegionId(3), seq: 9 });
        th.push(BeEvent { ts: 1 << 40, seq: u32::MAX, what: BeEvent::UNNAMED, begin: false });
        th.push(BeEvent { ts: 2, seq: 1, what: 4, begin: true });
        let (mut a, mut b) = (Vec::new(), Vec::new());
        encode(&th, &mut a);
        encode(&th, &mut b);
        a.extend_from_slice(&b);
        let mut back = ThreadSlices::default();
        decode(&a, &mut back).unwrap();
        assert_eq!(back.intervals.len(), 2);
        assert_eq!(back.be.len(), 4);
        assert_eq!((back.intervals[1].start, back.intervals[1].seq), (-5, 9));
        assert_eq!((back.be[2].ts, back.be[2].what, back.be[3].begin), (1 << 40, BeEvent::UNNAMED, true));
        assert!(decode(&a[..a.len() - 1], &mut ThreadSlices::default()).is_err());
    }
}
