//! Shards that decode only their own locations (MPI ranks, `weft index` under `mpirun`; docs/cluster.md,
//! "What a shard reads"). A part's bytes depend on more of the trace than its own locations' intervals:
//! names interned, warnings, message and collective numbers, the origin, every location's interval count,
//! the particle tiles over all locations. Rather than decoding every location for those, each shard:
//!
//! 1. decodes, nests and spills its own locations, their intervals taken as they come (as one thread does),
//!    and logs every other effect of reading them as bytes (`readers::otf2::Decoder::decode_bytes`) into a
//!    key of its spill, with each location's interval count;
//! 2. broadcasts a header (its outcome, first start, last end, clipped intervals, region totals); a shard
//!    that failed fails every shard (one that met a region the definitions lack makes every shard decode
//!    every location instead, [`IndexError::Redo`]);
//! 3. broadcasts its log, shard after shard: every shard replays every location's log in location order
//!    (`Otf2Stream::replay_bytes`), so its builder holds what reading the whole trace gives it (the same
//!    ids, warnings, collectives, counters), and learns every location's interval count; of the messages it
//!    keeps only those its own locations received (`Otf2Stream::keep_receivers`), numbered as among all.
//! 4. matches those, the shards adding up what found no partner and the earliest time
//!    ([`matched_together`]), and numbers them with the other shards' in the trace's order, each row then
//!    going to the shards of its sender's and receiver's blocks (`message_sort`: a sample sort over
//!    [`Exchange::all_to_all`]);
//! 5. tiles its own blocks, their particle-view intervals as sorted runs; each shard writes the particle
//!    tiles of its own range of windows (`Shard::windows`): the shards send each other, shard after shard
//!    ([`Exchange::pass`]), the intervals in (or running into) the receiver's windows, and the extents of
//!    theirs to the first, which writes the whole view's extent (`stream::tile`).
//!
//! A shard's cost is then the decode of its own locations, its share of the messages' matching, sorting
//! and routing, plus the replay of every location's log (the messages, collective parts, instants, counter
//! samples and warnings: about a sixth of the records on the generated MPI traces), not the decode of the
//! whole trace. Its part is the same bytes (`tests/cluster.rs`).

use super::{check_pass1, shard_locations, Ahead, Digest, DigestTaker, Progress, StreamOptions};
use crate::error::IndexError;
use crate::shard::exchange::Exchange;
use crate::spill::Spill;
use std::sync::Mutex;
use weft_model::RegionId;
use weft_readers::otf2::{Decoder, LocationLog, LoggedRead, Otf2Stream, StreamIndexing};
use weft_store::format::columns::{ColumnReader, ColumnWriter};

/// A frame of a shard's log: a batch of a location's logged effects.
const BATCH: u8 = 0;
/// A frame of a shard's log: a location's end (its `LoggedRead` and interval count).
const END: u8 = 1;

/// A shard's outcome in its header.
const OK: u64 = 0;
const REDO: u64 = 1;
const NOT_STREAMABLE: u64 = 2;
const FAILED: u64 = 3;

/// Bytes of a shard's log broadcast at a time.
fn chunk_bytes(o: &StreamOptions) -> usize {
    o.budget().broadcast_chunk()
}

fn frame(tag: u8, k: usize, payload: &[u8], w: &mut ColumnWriter) {
    w.buf.clear();
    w.buf.push(tag);
    w.varint(k as u64);
    w.varint(payload.len() as u64);
    w.buf.extend_from_slice(payload);
}

/// What a shard tells the others after decoding its own locations.
struct Header {
    /// [`OK`], [`REDO`], [`NOT_STREAMABLE`] or [`FAILED`], and what went wrong.
    outcome: (u64, String),
    min_start: i64,
    max_end: i128,
    clipped: u64,
    clip_examples: Vec<(RegionId, i64, u64)>,
    totals: Vec<(u64, u64)>,
}

impl Header {
    fn bytes(&self) -> Vec<u8> {
        let mut w = ColumnWriter::default();
        w.varint(self.outcome.0);
        w.bytes(self.outcome.1.as_bytes());
        w.signed(self.min_start);
        w.signed((self.max_end >> 64) as i64);
        w.varint(self.max_end as u64);
        w.varint(self.clipped);
        w.varint(self.clip_examples.len() as u64);
        for &(r, s, x) in &self.clip_examples {
            w.varint(r.0 as u64);
            w.signed(s);
            w.varint(x);
        }
        w.varint(self.totals.len() as u64);
        for &(c, t) in &self.totals {
            w.varint(c);
            w.varint(t);
        }
        w.buf
    }

    /// The whole trace's, from every shard's in shard order: the first start, the last end, the clipped
    /// intervals and their first five examples (in location order), the region totals.
    fn whole(headers: &[Header]) -> Header {
        let mut totals: Vec<(u64, u64)> = Vec::new();
        for h in headers {
            if totals.len() < h.totals.len() {
                totals.resize(h.totals.len(), (0, 0));
            }
            crate::build::add_totals(&mut totals, &h.totals);
        }
        Header {
            outcome: (OK, String::new()),
            min_start: headers.iter().map(|h| h.min_start).min().unwrap_or(i64::MAX),
            max_end: headers.iter().map(|h| h.max_end).max().unwrap_or(i128::MIN),
            clipped: headers.iter().map(|h| h.clipped).sum(),
            clip_examples: headers.iter().flat_map(|h| h.clip_examples.iter().copied()).take(5).collect(),
            totals,
        }
    }

    fn parse(b: &[u8]) -> Result<Header, String> {
        let bad = |e: weft_store::format::columns::ColumnError| {
            format!("a shard's header damaged at byte {}: {}", e.offset, e.detail)
        };
        let mut r = ColumnReader::new(b);
        let code = r.varint().map_err(bad)?;
        let text = String::from_utf8_lossy(r.bytes().map_err(bad)?).into_owned();
        let min_start = r.signed().map_err(bad)?;
        let max_end = ((r.signed().map_err(bad)? as i128) << 64) | r.varint().map_err(bad)? as i128;
        let clipped = r.varint().map_err(bad)?;
        let mut clip_examples = Vec::new();
        for _ in 0..r.count(3).map_err(bad)? {
            let region = RegionId(r.below(u32::MAX as u64, "region").map_err(bad)? as u32);
            clip_examples.push((region, r.signed().map_err(bad)?, r.varint().map_err(bad)?));
        }
        let mut totals = Vec::new();
        for _ in 0..r.count(2).map_err(bad)? {
            totals.push((r.varint().map_err(bad)?, r.varint().map_err(bad)?));
        }
        Ok(Header { outcome: (code, text), min_start, max_end, clipped, clip_examples, totals })
    }
}

/// A spill shared by the interval taker and the log's writer while a location is decoded.
struct Locked<'a, 's>(&'a Mutex<&'s mut dyn Spill>);

impl Spill for Locked<'_, '_> {
    fn put(&mut self, k: usize, bytes: &[u8]) -> Result<(), String> {
        self.0.lock().map_err(|_| "the spill's lock was poisoned".to_string())?.put(k, bytes)
    }
    fn get(&self, k: usize) -> Result<Vec<u8>, String> {
        self.0.lock().map_err(|_| "the spill's lock was poisoned".to_string())?.get(k)
    }
    fn get_from(&self, k: usize, at: u64, max: usize) -> Result<Vec<u8>, String> {
        self.0.lock().map_err(|_| "the spill's lock was poisoned".to_string())?.get_from(k, at, max)
    }
    fn held(&self) -> u64 {
        self.0.lock().map_or(0, |s| s.held())
    }
    fn clear(&mut self) -> Result<(), String> {
        self.0.lock().map_err(|_| "the spill's lock was poisoned".to_string())?.clear()
    }
}

/// Pass 1 of an OTF2 index by a shard that decodes only its own locations (module doc): on return the
/// stream has replayed every location's log (as after reading them all) and the digest holds every
/// location's count, the trace's first start and last end, its clipped intervals and (sharded) its region
/// totals; the shard's own intervals are spilled. The log is kept under spill key `log_key`.
#[allow(clippy::too_many_arguments)]
pub(super) fn pass1(
    x: &dyn Exchange,
    stream: &mut Otf2Stream,
    digest: &mut Digest,
    spill: &mut dyn Spill,
    o: &StreamOptions,
    paths: &[String],
    limit: usize,
    buffers: u64,
    log_key: usize,
    progress: &(dyn Fn(Progress) + Sync),
    intervals: &mut u64,
) -> Result<(), IndexError> {
    let me = x.shard();
    let n = paths.len();
    let own = shard_locations(me, n, o.build.block_locations);
    digest.spilled = own.clone();
    // 1. The shard's own locations: intervals to the digest, the log to the spill.
    let decoded = decode_own(stream, digest, spill, o, paths, limit, buffers, log_key, &own, progress, intervals);
    let outcome = match &decoded {
        Ok(()) => (OK, String::new()),
        Err(IndexError::Redo(m)) => (REDO, m.clone()),
        Err(IndexError::NotStreamable(m)) => (NOT_STREAMABLE, m.clone()),
        Err(e) => (FAILED, e.to_string()),
    };
    let header = Header {
        outcome,
        min_start: digest.min_start,
        max_end: digest.max_end,
        clipped: digest.clipped,
        clip_examples: digest.clip_examples.clone(),
        totals: digest.totals.as_ref().map(|t| t.totals.clone()).unwrap_or_default(),
    };
    // 2. Every shard's header; the first failure (in shard order) fails every shard.
    let exchange = |e: String| IndexError::Io(format!("exchanging with the other shards: {e}"));
    let mut headers = Vec::with_capacity(me.count as usize);
    for r in 0..me.count {
        let mut b = if r == me.index { header.bytes() } else { Vec::new() };
        x.broadcast(r, &mut b).map_err(exchange)?;
        headers.push(Header::parse(&b).map_err(|e| IndexError::Io(format!("shard {r}: {e}")))?);
    }
    if let Some((r, h)) = headers.iter().enumerate().find(|(_, h)| h.outcome.0 != OK) {
        if r == me.index as usize {
            decoded?;
        }
        let text = h.outcome.1.clone();
        return Err(match h.outcome.0 {
            REDO => IndexError::Redo(text),
            NOT_STREAMABLE => IndexError::NotStreamable(text),
            _ => IndexError::Io(format!("shard {r}: {text}")),
        });
    }
    let whole = Header::whole(&headers);
    (digest.min_start, digest.max_end, digest.clipped) = (whole.min_start, whole.max_end, whole.clipped);
    digest.clip_examples = whole.clip_examples;
    if let Some(t) = &mut digest.totals {
        t.totals = whole.totals;
    }
    // 3. Every shard's log, in shard order (so in location order): replayed by every shard, which matches
    //    the messages its own locations received (`message_sort` numbers them with the others'). The
    //    shard whose log it is replays it whole, as every other shard does.
    let last = me.index + 1 == me.count;
    stream.keep_receivers(own.start as u32..if last { u32::MAX } else { own.end as u32 });
    let chunk = chunk_bytes(o);
    let mut replay = Replay { next: 0, sends: Vec::new(), pending: Vec::new() };
    for r in 0..me.count {
        let mut at = 0u64;
        loop {
            let (mut raw, mut common) = (Vec::new(), vec![0u8]);
            if r == me.index {
                raw = spill
                    .get_from(log_key, at, chunk)
                    .map_err(|e| IndexError::Io(format!("reading the log back: {e}")))?;
                at += raw.len() as u64;
                common[0] = !raw.is_empty() as u8;
                common.extend_from_slice(&raw);
            }
            x.broadcast(r, &mut common).map_err(exchange)?;
            let Some((&more, common)) = common.split_first() else {
                return Err(IndexError::Io(format!("shard {r} sent an empty piece of its log")));
            };
            replay.pending.extend_from_slice(if r == me.index { &raw } else { common });
            replay.frames(stream, digest, &*spill, o, buffers, &own, paths, progress, intervals)?;
            digest.spill_samples(spill, false)?;
            if more == 0 {
                break;
            }
        }
        if !replay.pending.is_empty() {
            return Err(IndexError::Io(format!("shard {r}'s log ends inside a record")));
        }
    }
    if replay.next != n {
        return Err(IndexError::Io(format!("the shards' logs hold {} of the {n} locations", replay.next)));
    }
    Ok(())
}

/// Decode, nest and spill this shard's locations (`own`), logging the rest of their reading to `log_key`;
/// the others are counted as empty until their logs come. With 2 threads or more, locations are decoded
/// ahead on every thread (`stream::Ahead`), as one process does.
#[allow(clippy::too_many_arguments)]
fn decode_own(
    stream: &mut Otf2Stream,
    digest: &mut Digest,
    spill: &mut dyn Spill,
    o: &StreamOptions,
    paths: &[String],
    limit: usize,
    buffers: u64,
    log_key: usize,
    own: &std::ops::Range<usize>,
    progress: &(dyn Fn(Progress) + Sync),
    intervals: &mut u64,
) -> Result<(), IndexError> {
    let n = paths.len();
    for _ in 0..own.start {
        digest.other_location();
    }
    if let Some(ahead) = Ahead::plan(stream, o, limit, own.clone()) {
        let buffers = ahead.buffers();
        ahead.pass1(
            stream,
            digest,
            spill,
            o,
            paths,
            own.clone(),
            Some(log_key),
            limit,
            buffers,
            progress,
            intervals,
        )?;
    } else {
        let decoder = stream.decoder();
        let mut raw = Vec::new();
        for k in own.clone() {
            *intervals += decode_in_turn(&decoder, digest, spill, o, paths, k, limit, buffers, log_key, &mut raw)?;
            check_pass1(
                o,
                Default::default(),
                buffers,
                spill.held() + digest.held_bytes(),
                (k + 1 - own.start, own.len(), false),
            )?;
            progress(Progress::Reading { done: k + 1 - own.start, total: own.len(), intervals: *intervals });
        }
    }
    for _ in own.end.max(own.start)..n {
        digest.other_location();
    }
    Ok(())
}

/// Decode this shard's location `k` in its turn: its intervals taken into the digest as they come (nested,
/// spilled), the rest of its reading logged to spill key `log_key`, then its end. Returns its interval
/// count.
#[allow(clippy::too_many_arguments)]
pub(super) fn decode_in_turn(
    decoder: &Decoder,
    digest: &mut Digest,
    spill: &mut dyn Spill,
    o: &StreamOptions,
    paths: &[String],
    k: usize,
    limit: usize,
    buffers: u64,
    log_key: usize,
    raw: &mut Vec<(RegionId, i64, u64)>,
) -> Result<u64, IndexError> {
    let path = &paths[k];
    let locked = Mutex::new(spill);
    raw.clear();
    digest.begin();
    let mut failed: Option<String> = None;
    let mut fw = ColumnWriter::default();
    let mut out = |bytes: &[u8]| {
        frame(BATCH, k, bytes, &mut fw);
        if failed.is_none() {
            if let Err(e) = Locked(&locked).put(log_key, &fw.buf) {
                failed = Some(e);
            }
        }
    };
    let mut shared = Locked(&locked);
    let mut taker =
        DigestTaker { digest: &mut *digest, spill: &mut shared, path, o, buffers, k, total: paths.len(), err: None };
    let read = decoder.decode_bytes(k, raw, Some((&mut taker, limit)), &mut out);
    if let Some(e) = taker.err.take() {
        return Err(e);
    }
    let read = read?;
    if let Some(e) = failed {
        return Err(IndexError::Io(format!("spilling {path}'s log: {e}")));
    }
    let Some(read) = read else {
        return Err(IndexError::Redo(format!(
            "{path} names a region its archive does not define: every shard reads every location"
        )));
    };
    digest.end(raw, read.taken, read.in_order, &mut Locked(&locked), path)?;
    let count = digest.counts[k];
    let spill = locked.into_inner().map_err(|_| IndexError::Io("the spill's lock was poisoned".into()))?;
    write_end(spill, log_key, k, &read, count, path)?;
    Ok(count)
}

/// This shard's location `k`, decoded ahead (`stream::Ahead`): its log to spill key `log_key`, then its
/// end (`count` intervals).
pub(super) fn write_log(
    spill: &mut dyn Spill,
    log_key: usize,
    k: usize,
    log: LocationLog,
    count: u64,
    path: &str,
) -> Result<(), IndexError> {
    let mut failed = None;
    let mut w = ColumnWriter::default();
    let read = log.into_bytes(&mut |bytes| {
        frame(BATCH, k, bytes, &mut w);
        if failed.is_none() {
            failed = spill.put(log_key, &w.buf).err();
        }
    });
    if let Some(e) = failed {
        return Err(IndexError::Io(format!("spilling {path}'s log: {e}")));
    }
    write_end(spill, log_key, k, &read, count, path)
}

fn write_end(
    spill: &mut dyn Spill,
    log_key: usize,
    k: usize,
    read: &LoggedRead,
    count: u64,
    path: &str,
) -> Result<(), IndexError> {
    let mut end = ColumnWriter::default();
    end.varint(read.events);
    end.varint(read.unresolved);
    end.varint(read.in_order as u64);
    end.varint(count);
    let mut w = ColumnWriter::default();
    frame(END, k, &end.buf, &mut w);
    spill.put(log_key, &w.buf).map_err(|e| IndexError::Io(format!("spilling {path}'s log: {e}")))
}

/// Replaying the shards' logs as they come.
struct Replay {
    /// The next location to end.
    next: usize,
    /// The location's sends so far (`Otf2Stream::replay_bytes`).
    sends: Vec<u64>,
    /// Bytes received and not yet a whole frame.
    pending: Vec<u8>,
}

impl Replay {
    /// Apply every whole frame pending.
    #[allow(clippy::too_many_arguments)]
    fn frames(
        &mut self,
        stream: &mut Otf2Stream,
        digest: &mut Digest,
        spill: &dyn Spill,
        o: &StreamOptions,
        buffers: u64,
        own: &std::ops::Range<usize>,
        paths: &[String],
        progress: &(dyn Fn(Progress) + Sync),
        intervals: &mut u64,
    ) -> Result<(), IndexError> {
        let n = paths.len();
        let bad = |what: String| IndexError::Io(format!("a shard's log: {what}"));
        let mut at = 0usize;
        while let Some((tag, k, payload, next)) = next_frame(&self.pending, at) {
            at = next;
            if k != self.next || k >= n {
                return Err(bad(format!("location {k} where location {} was due", self.next)));
            }
            match tag {
                BATCH => stream.replay_bytes(k, &mut self.sends, &self.pending[payload])?,
                END => {
                    let mut r = ColumnReader::new(&self.pending[payload]);
                    let e = |e: weft_store::format::columns::ColumnError| bad(format!("{}: {}", paths[k], e.detail));
                    let read = LoggedRead {
                        events: r.varint().map_err(e)?,
                        unresolved: r.varint().map_err(e)?,
                        in_order: r.varint().map_err(e)? != 0,
                        taken: 0,
                    };
                    let count = r.varint().map_err(e)?;
                    stream.replay_end(k, &read)?;
                    self.sends.clear();
                    if !own.contains(&k) {
                        digest.counts[k] = count;
                        *intervals += count;
                    }
                    self.next += 1;
                    let held = spill.held() + digest.held_bytes();
                    check_pass1(o, stream.held_bytes(), buffers, held, (k + 1, n, false))?;
                    progress(Progress::Replaying { done: k + 1, total: n, intervals: *intervals });
                }
                t => return Err(bad(format!("a frame of unknown kind {t}"))),
            }
        }
        self.pending.drain(..at);
        Ok(())
    }
}

/// The frame of `b` at `at`: (tag, location, its payload's range, where the next begins); None when `b`
/// does not hold all of it yet.
fn next_frame(b: &[u8], at: usize) -> Option<(u8, usize, std::ops::Range<usize>, usize)> {
    let tag = *b.get(at)?;
    let (k, at) = varint(b, at + 1)?;
    let (len, at) = varint(b, at)?;
    let end = at.checked_add(usize::try_from(len).ok()?)?;
    (end <= b.len()).then_some((tag, k as usize, at..end, end))
}

/// A varint of `b` at `at` and where it ends; None when `b` ends first.
fn varint(b: &[u8], mut at: usize) -> Option<(u64, usize)> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let x = *b.get(at)?;
        at += 1;
        v |= ((x & 0x7f) as u64) << shift;
        if x < 0x80 {
            return Some((v, at));
        }
    }
    Some((v, at))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(min_start: i64, max_end: i128, clips: &[i64], totals: &[(u64, u64)]) -> Header {
        Header {
            outcome: (OK, String::new()),
            min_start,
            max_end,
            clipped: clips.len() as u64 * 2,
            clip_examples: clips.iter().map(|&s| (RegionId(s as u32), s, 1)).collect(),
            totals: totals.to_vec(),
        }
    }

    #[test]
    fn a_header_reads_back_as_written() {
        for h in [
            header(i64::MAX, i128::MIN, &[], &[]),
            header(-5, i64::MAX as i128 + u64::MAX as i128, &[1, 2, 3], &[(1, 2), (0, 0), (u64::MAX, 7)]),
            Header { outcome: (FAILED, "it went wrong: ü".into()), ..header(3, -1, &[4], &[(1, 1)]) },
        ] {
            let back = Header::parse(&h.bytes()).unwrap();
            assert_eq!(
                (back.outcome, back.min_start, back.max_end, back.clipped, back.clip_examples, back.totals),
                (h.outcome, h.min_start, h.max_end, h.clipped, h.clip_examples, h.totals)
            );
        }
        assert!(Header::parse(&header(1, 2, &[3], &[(4, 5)]).bytes()[..6]).is_err());
    }

    #[test]
    fn the_whole_traces_header_takes_every_shards_in_order() {
        let w = Header::whole(&[
            header(10, 50, &[11, 12, 13], &[(1, 10)]),
            header(i64::MAX, i128::MIN, &[], &[]),
            header(5, 40, &[21, 22, 23], &[(0, 0), (2, 20)]),
        ]);
        assert_eq!((w.min_start, w.max_end, w.clipped), (5, 50, 12));
        let starts: Vec<i64> = w.clip_examples.iter().map(|e| e.1).collect();
        assert_eq!(starts, [11, 12, 13, 21, 22]);
        assert_eq!(w.totals, [(1, 10), (2, 20)]);
    }
}
