//! The records an OTF2 read keeps to match at its end (message sends and receives, collective parts),
//! within a share of memory whatever the trace's size (`weft index --memory`, issue #17).
//!
//! While they fit their share they stay in `Vec`s and are matched as before (`matching`). Given a spill
//! ([`Ends::spill_to`]) and past the share, they go out in runs through the caller's [`EndsSpill`] (a
//! streamed index's spill), in pages of fixed-width records: each run of sends and each run of receives sorted by (channel, order recorded), where a channel
//! is (sender, receiver, communicator, tag); collective parts appended in the order recorded. At the end the
//! send runs and the receive runs are each merged k ways (one page of each run in memory) and walked side by
//! side: within a channel the k-th send meets the k-th receive, which is MPI's non-overtaking rule and
//! exactly the pairs `matching::match_messages` makes (sends in record order, receives in posting order,
//! `Recv::posted`, within the channel).
//! The pairs are handed out in receive order, as `match_messages` hands them, so the trace (and a store)
//! is the same byte for byte; the parts are read back in order and grouped as `matching` groups them.
//!
//! What stays in memory: a run's sort of at most the share, one page per run while merging, the cancelled
//! sends already spilled, and, for a whole read, the matched pairs (56 bytes a receive) while they are put in
//! receive order (the trace the builder makes holds every message anyway). A streamed index takes the pairs
//! as they merge, each with its receive's number ([`Ends::messages_numbered`]), and holds none of them.
//!
//! A shard that matches only the messages its own locations received (an MPI rank, `index::exchange`)
//! keeps only their ends (`Ends::keep_receivers`), each with its number among all, and counts the rest:
//! the pairs it makes, with every other shard's, are one
//! read's.
//!
//! It must not decode bytes nor change what is matched or in which order.

use super::matching::{self, CollectivePart, Recv, Send};
use weft_model::sort::KMerge;
use weft_model::{LocationId, RegionId};

/// Bytes of a spilled send or receive: the channel (4 x u32), its order in the channel and its number (u64
/// each), length, time, posting time.
const END_BYTES: usize = 56;
/// Bytes of a spilled collective part.
const PART_BYTES: usize = 50;
/// Bytes of a page read back at a time, at most (one per run while merging).
const PAGE_BYTES: usize = 64 << 10;

/// A send or receive as spilled: sorted by channel, then by its order in the channel (a send's record order,
/// a receive's posting order), then by the order it was recorded in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
struct End {
    /// (sender, receiver, communicator, tag), one number (compared in that order: a fast sort key).
    channel: u128,
    /// A send's number (`nth`); a receive's place in its receiver's posting order (`Recv::posted`).
    order: u64,
    /// The send's or receive's number among all sends or receives, in record order.
    nth: u64,
    length: u64,
    time_ns: i64,
    /// A receive's posting time (`Recv::posted_ns`); a send's time.
    posted_ns: i64,
}

/// A channel as one number.
fn channel(sender: LocationId, receiver: LocationId, comm: u32, tag: u32) -> u128 {
    (sender.0 as u128) << 96 | (receiver.0 as u128) << 64 | (comm as u128) << 32 | tag as u128
}

impl End {
    fn put(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.channel.to_le_bytes());
        out.extend_from_slice(&self.order.to_le_bytes());
        out.extend_from_slice(&self.nth.to_le_bytes());
        out.extend_from_slice(&self.length.to_le_bytes());
        out.extend_from_slice(&self.time_ns.to_le_bytes());
        out.extend_from_slice(&self.posted_ns.to_le_bytes());
    }
    fn get(b: &[u8]) -> End {
        let u64_at = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
        End {
            channel: u128::from_le_bytes(b[..16].try_into().expect("16 bytes")),
            order: u64_at(16),
            nth: u64_at(24),
            length: u64_at(32),
            time_ns: u64_at(40) as i64,
            posted_ns: u64_at(48) as i64,
        }
    }
}

fn put_part(p: &CollectivePart, out: &mut Vec<u8>) {
    out.extend_from_slice(&p.location.0.to_le_bytes());
    out.extend_from_slice(&p.region.0.to_le_bytes());
    out.extend_from_slice(&p.comm.to_le_bytes());
    out.push(p.op);
    out.push(p.root.is_some() as u8);
    out.extend_from_slice(&p.root.map_or(0, |r| r.0).to_le_bytes());
    for v in [p.begin_ns as u64, p.end_ns as u64, p.sent, p.received] {
        out.extend_from_slice(&v.to_le_bytes());
    }
}

fn get_part(b: &[u8]) -> CollectivePart {
    let u32_at = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().expect("4 bytes"));
    let u64_at = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
    CollectivePart {
        location: LocationId(u32_at(0)),
        region: RegionId(u32_at(4)),
        comm: u32_at(8),
        op: b[12],
        root: (b[13] != 0).then(|| LocationId(u32_at(14))),
        begin_ns: u64_at(18) as i64,
        end_ns: u64_at(26) as i64,
        sent: u64_at(34),
        received: u64_at(42),
    }
}

/// Where an OTF2 read spills the message ends and collective parts it keeps to the end
/// (`Otf2Stream::spill_ends`): bytes appended under keys the reader numbers from 0, read back whole. The
/// caller's to hold (a streamed index's spill, in memory or in a file); the reader's own trait, so that it
/// shares no type with another format's reader.
pub trait EndsSpill {
    /// Append `bytes` under key `key`.
    fn append(&mut self, key: usize, bytes: &[u8]) -> Result<(), String>;
    /// Everything appended under `key` (empty when nothing was).
    fn read(&mut self, key: usize) -> Result<Vec<u8>, String>;
}

/// Sends, receives and collective parts kept to the end of a read.
#[derive(Default)]
pub(super) struct Ends {
    /// The records not spilled (all of them without a spill), in record order.
    sends: Vec<Send>,
    recvs: Vec<Recv>,
    parts: Vec<CollectivePart>,
    spill: Option<Spilled>,
    /// Sends, receives and parts recorded in all (spilled or not).
    counts: [usize; 3],
    /// Only the messages to these receivers are matched here ([`Ends::keep_receivers`]), with the numbers
    /// of the sends and receives in memory among all the read recorded.
    kept: Option<Kept>,
    /// The self-like communicators (`matching::Collectives::self_like`).
    self_like: Vec<u32>,
}

/// The receivers a shard matches the messages of, and the numbers of the kept ends in memory.
struct Kept {
    receivers: std::ops::Range<u32>,
    sends: Vec<u64>,
    recvs: Vec<u64>,
}

/// Where the runs go, and what is known of them.
struct Spilled {
    out: Box<dyn EndsSpill>,
    /// Bytes of records held before they are spilled.
    share: u64,
    /// Records per page.
    page_ends: usize,
    page_parts: usize,
    /// The spill's next free key (each page is one key).
    next_key: usize,
    /// Per run, its pages' keys in order.
    send_runs: Vec<Vec<usize>>,
    recv_runs: Vec<Vec<usize>>,
    part_pages: Vec<usize>,
    /// Numbers of the sends already spilled that were cancelled afterwards.
    cancelled: Vec<u64>,
    /// Sends and receives spilled (the number of the first one in memory).
    sends_out: u64,
    recvs_out: u64,
    parts_out: u64,
    /// The first write that failed (reported by [`Ends::failed`]).
    error: Option<String>,
}

impl Ends {
    /// Spill to `out` whenever the records held pass `share` bytes (tests make it tiny: runs of a record
    /// or two). A write that fails stops the spilling; the read reports it after the location
    /// ([`failed`](Self::failed)).
    pub(super) fn spill_to(&mut self, out: Box<dyn EndsSpill>, share: u64) {
        let records = |size: usize| (share as usize / size / 4).clamp(1, PAGE_BYTES / size);
        self.spill = Some(Spilled {
            out,
            share,
            page_ends: records(END_BYTES),
            page_parts: records(PART_BYTES),
            next_key: 0,
            send_runs: Vec::new(),
            recv_runs: Vec::new(),
            part_pages: Vec::new(),
            cancelled: Vec::new(),
            sends_out: 0,
            recvs_out: 0,
            parts_out: 0,
            error: None,
        });
    }

    /// Match only the messages whose receivers are `receivers` (a shard's own locations, `index::exchange`:
    /// each shard matches the messages its locations received, the other shards the rest). The others'
    /// sends and receives are counted and numbered as before, and dropped; the kept ones keep the numbers
    /// they have among all, so each matched pair comes out with the receive number a whole read gives it.
    /// Before the first send or receive.
    pub(super) fn keep_receivers(&mut self, receivers: std::ops::Range<u32>) {
        debug_assert!(self.counts[0] + self.counts[1] == 0, "set before the first end");
        self.kept = Some(Kept { receivers, sends: Vec::new(), recvs: Vec::new() });
    }

    /// The communicators that are self-like (COMM_SELF, or an empty group): each collective on one is an
    /// operation of its own.
    pub(super) fn self_like(&mut self, comms: Vec<u32>) {
        self.self_like = comms;
    }

    /// Record a send; returns its number among all sends (for [`cancel`](Self::cancel)).
    pub(super) fn send(&mut self, s: Send) -> u64 {
        // (Without a filter, the sends spilled and those in memory: every one recorded.)
        let nth = self.counts[0] as u64;
        self.counts[0] += 1;
        if let Some(k) = &mut self.kept {
            if !k.receivers.contains(&s.receiver.0) {
                return nth;
            }
            k.sends.push(nth);
        }
        self.sends.push(s);
        self.check();
        nth
    }

    pub(super) fn recv(&mut self, r: Recv) {
        let nth = self.counts[1] as u64;
        self.counts[1] += 1;
        if let Some(k) = &mut self.kept {
            if !k.receivers.contains(&r.receiver.0) {
                return;
            }
            k.recvs.push(nth);
        }
        self.recvs.push(r);
        self.check();
    }

    pub(super) fn part(&mut self, p: CollectivePart) {
        self.parts.push(p);
        self.counts[2] += 1;
        self.check();
    }

    /// The send numbered `nth` was cancelled (its request never left): it takes no part in matching.
    pub(super) fn cancel(&mut self, nth: u64) {
        let out = self.spill.as_ref().map_or(0, |x| x.sends_out);
        // A kept send's place in memory by its number; one not kept is not there (nor spilled: noting it as
        // spilled and cancelled is harmless).
        let at = |k: &Kept| k.sends.binary_search(&nth).unwrap_or(usize::MAX) as u64;
        let index = match &self.kept {
            Some(k) => (nth >= out).then(|| at(k)),
            None => nth.checked_sub(out),
        };
        match index {
            Some(i) => {
                if let Some(s) = self.sends.get_mut(i as usize) {
                    s.cancelled = true;
                }
            }
            None => {
                if let Some(x) = &mut self.spill {
                    x.cancelled.push(nth);
                }
            }
        }
    }

    /// Counts of sends, receives and collective parts recorded.
    pub(super) fn counts(&self) -> [usize; 3] {
        self.counts
    }

    /// About the bytes held to the end: the records in memory (their capacity), and the numbers of spilled
    /// sends cancelled. (The messages and collective rows made from them are a streamed index's to hold or
    /// spill, `index::comms`.)
    pub(super) fn held_bytes(&self) -> u64 {
        use std::mem::size_of;
        let memory = self.sends.capacity() * size_of::<Send>()
            + self.recvs.capacity() * size_of::<Recv>()
            + self.parts.capacity() * size_of::<CollectivePart>();
        let spilled = self.spill.as_ref().map_or(0, |x| x.cancelled.capacity() as u64 * 8);
        let numbers = self.kept.as_ref().map_or(0, |k| (k.sends.capacity() + k.recvs.capacity()) as u64 * 8);
        memory as u64 + spilled + numbers
    }

    /// The first spill write that failed, if any.
    pub(super) fn failed(&self) -> Option<&str> {
        self.spill.as_ref().and_then(|x| x.error.as_deref())
    }

    fn in_memory(&self) -> u64 {
        // (A kept end's number too: 8 bytes.)
        let numbers = self.kept.as_ref().map_or(0, |k| (k.sends.len() + k.recvs.len()) * 8);
        (self.sends.len() * END_BYTES + self.recvs.len() * END_BYTES + self.parts.len() * PART_BYTES + numbers) as u64
    }

    fn check(&mut self) {
        if self.spill.as_ref().is_some_and(|x| x.error.is_none() && self.in_memory() > x.share) {
            self.spill_all();
        }
    }

    /// Write what memory holds as one run of sends, one of receives, and pages of parts.
    fn spill_all(&mut self) {
        let Some(x) = &mut self.spill else { return };
        let counts = [self.counts[0] as u64, self.counts[1] as u64];
        if let Err(e) = x.write(&mut self.sends, &mut self.recvs, &mut self.parts, self.kept.as_mut(), counts) {
            x.error.get_or_insert(e);
        }
    }

    pub(super) fn spilled(&self) -> bool {
        self.spill.as_ref().is_some_and(|x| x.sends_out + x.recvs_out + x.parts_out > 0)
    }

    /// Match the sends with the receives; each matched pair is handed to `emit` in receive order (as
    /// `matching::match_messages` orders them). Returns the sends and receives that found no partner.
    pub(super) fn messages(&mut self, emit: &mut dyn FnMut(&Send, &Recv)) -> Result<(usize, usize), String> {
        if !self.spilled() {
            let (sends, recvs) = (&self.sends, &self.recvs);
            let Ok(m) = matching::match_each(sends, recvs, &mut |i, j| -> Result<(), std::convert::Infallible> {
                emit(&sends[i], &recvs[j]);
                Ok(())
            });
            return Ok((m.unmatched_sends, m.unmatched_recvs));
        }
        // Each matched pair at its receive's number, so they come out in receive order without a sort:
        // (channel, send's length, send time, receive's length, receive time).
        type Pair = ([u32; 4], u64, i64, u64, i64, (i64, u64));
        self.spill_all();
        let mut placed: Vec<Option<Pair>> = vec![None; self.spill.as_ref().map_or(0, |x| x.recvs_out) as usize];
        let unmatched = self.merged(&mut |s, r, nth| match placed.get_mut(nth as usize) {
            Some(p) => {
                *p = Some((
                    [s.sender.0, s.receiver.0, s.comm, s.tag],
                    s.length,
                    s.time_ns,
                    r.length,
                    r.time_ns,
                    (r.posted_ns, r.posted),
                ));
                Ok(())
            }
            None => Err(format!("spilled message ends damaged: receive {nth}")),
        })?;
        for ([sender, receiver, comm, tag], length, send_ns, recv_length, recv_ns, (posted_ns, posted)) in
            placed.into_iter().flatten()
        {
            let (sender, receiver) = (LocationId(sender), LocationId(receiver));
            let send = Send { sender, receiver, comm, tag, length, time_ns: send_ns, cancelled: false };
            let recv = Recv { sender, receiver, comm, tag, length: recv_length, time_ns: recv_ns, posted_ns, posted };
            emit(&send, &recv);
        }
        Ok(unmatched)
    }

    /// [`messages`](Self::messages) handing each matched pair over with its receive's number (its place
    /// in receive order), in no particular order: spilled ends are handed over as their runs merge, and
    /// nothing is held to put them in order (a streamed index sorts them itself, `index::comms`).
    pub(super) fn messages_numbered(
        &mut self,
        emit: &mut dyn FnMut(&Send, &Recv, u64) -> Result<(), String>,
    ) -> Result<(usize, usize), String> {
        if !self.spilled() {
            let (sends, recvs, kept) = (&self.sends, &self.recvs, &self.kept);
            let number = |j: usize| kept.as_ref().map_or(j as u64, |k| k.recvs[j]);
            let m = matching::match_each(sends, recvs, &mut |i, j| emit(&sends[i], &recvs[j], number(j)))?;
            return Ok((m.unmatched_sends, m.unmatched_recvs));
        }
        self.merged(emit)
    }

    /// The spilled sends and receives merged and walked side by side: each matched pair to `emit` with its
    /// receive's number, in (channel, record order).
    fn merged(
        &mut self,
        emit: &mut dyn FnMut(&Send, &Recv, u64) -> Result<(), String>,
    ) -> Result<(usize, usize), String> {
        self.spill_all();
        let x = self.spill.as_mut().expect("spilled");
        if let Some(e) = &x.error {
            return Err(e.clone());
        }
        x.cancelled.sort_unstable();
        let mut sends = Merge::new(&x.send_runs);
        let mut recvs = Merge::new(&x.recv_runs);
        let out = &mut *x.out;
        let cancelled = &x.cancelled;
        let mut next_send = |out: &mut dyn EndsSpill| -> Result<Option<End>, String> {
            loop {
                match sends.next(out)? {
                    Some(s) if cancelled.binary_search(&s.nth).is_ok() => continue,
                    s => return Ok(s),
                }
            }
        };
        let received = x.recvs_out;
        let (mut unmatched_sends, mut unmatched_recvs) = (0usize, 0usize);
        let (mut s, mut r) = (next_send(out)?, recvs.next(out)?);
        loop {
            match (s, r) {
                (None, None) => break,
                (Some(_), None) => {
                    unmatched_sends += 1;
                    s = next_send(out)?;
                }
                (None, Some(_)) => {
                    unmatched_recvs += 1;
                    r = recvs.next(out)?;
                }
                (Some(a), Some(b)) => match a.channel.cmp(&b.channel) {
                    std::cmp::Ordering::Less => {
                        unmatched_sends += 1;
                        s = next_send(out)?;
                    }
                    std::cmp::Ordering::Greater => {
                        unmatched_recvs += 1;
                        r = recvs.next(out)?;
                    }
                    std::cmp::Ordering::Equal => {
                        if b.nth >= received {
                            return Err(format!("spilled message ends damaged: receive {} of {received}", b.nth));
                        }
                        let c = a.channel;
                        let (sender, receiver) = (LocationId((c >> 96) as u32), LocationId((c >> 64) as u32));
                        let (comm, tag) = ((c >> 32) as u32, c as u32);
                        let send = Send {
                            sender,
                            receiver,
                            comm,
                            tag,
                            length: a.length,
                            time_ns: a.time_ns,
                            cancelled: false,
                        };
                        let recv = Recv {
                            sender,
                            receiver,
                            comm,
                            tag,
                            length: b.length,
                            time_ns: b.time_ns,
                            posted_ns: b.posted_ns,
                            posted: b.order,
                        };
                        emit(&send, &recv, b.nth)?;
                        s = next_send(out)?;
                        r = recvs.next(out)?;
                    }
                },
            }
        }
        Ok((unmatched_sends, unmatched_recvs))
    }

    /// The collective parts in record order, each with its operation instance (`matching::Collectives`).
    pub(super) fn collectives(&mut self, emit: &mut dyn FnMut(&CollectivePart, u32)) -> Result<(), String> {
        let mut group = matching::Collectives::self_like(self.self_like.iter().copied());
        self.parts(&mut |p| emit(p, group.operation(p)))
    }

    /// How many collective parts were recorded, when none went to the spill (None: some did).
    pub(super) fn parts_in_memory(&self) -> Option<u64> {
        match self.spill.as_ref().is_some_and(|x| !x.part_pages.is_empty()) {
            true => None,
            false => Some(self.parts.len() as u64),
        }
    }

    /// The collective parts in record order, not grouped.
    pub(super) fn parts(&mut self, each: &mut dyn FnMut(&CollectivePart)) -> Result<(), String> {
        if let Some(x) = self.spill.as_mut().filter(|x| !x.part_pages.is_empty()) {
            for &key in &x.part_pages {
                let page = x.out.read(key)?;
                if page.len() % PART_BYTES != 0 {
                    return Err(format!("spilled collective parts damaged: a page of {} bytes", page.len()));
                }
                for b in page.chunks_exact(PART_BYTES) {
                    each(&get_part(b));
                }
            }
        }
        self.parts.iter().for_each(each);
        Ok(())
    }
}

impl Spilled {
    fn write(
        &mut self,
        sends: &mut Vec<Send>,
        recvs: &mut Vec<Recv>,
        parts: &mut Vec<CollectivePart>,
        mut kept: Option<&mut Kept>,
        counts: [u64; 2],
    ) -> Result<(), String> {
        // Each end's number among all: its place after those spilled, or the one kept with it.
        let (first, kept_sends) = (self.sends_out, kept.as_ref().map(|k| &k.sends));
        let mut run: Vec<End> = (sends.iter().enumerate())
            .filter(|(_, s)| !s.cancelled)
            .map(|(i, s)| {
                let nth = kept_sends.map_or(first + i as u64, |k| k[i]);
                let channel = channel(s.sender, s.receiver, s.comm, s.tag);
                End { channel, order: nth, nth, length: s.length, time_ns: s.time_ns, posted_ns: s.time_ns }
            })
            .collect();
        // (Every send recorded so far is spilled or dropped: the next one's number.)
        self.sends_out = counts[0];
        sends.clear();
        if let Some(pages) = self.run(&run)? {
            self.send_runs.push(pages);
        }
        let (first, kept_recvs) = (self.recvs_out, kept.as_ref().map(|k| &k.recvs));
        run.clear();
        run.extend(recvs.iter().enumerate().map(|(i, r)| End {
            channel: channel(r.sender, r.receiver, r.comm, r.tag),
            order: r.posted,
            nth: kept_recvs.map_or(first + i as u64, |k| k[i]),
            length: r.length,
            time_ns: r.time_ns,
            posted_ns: r.posted_ns,
        }));
        self.recvs_out = counts[1];
        recvs.clear();
        if let Some(k) = kept.as_mut() {
            k.sends.clear();
            k.recvs.clear();
        }
        if let Some(pages) = self.run(&run)? {
            self.recv_runs.push(pages);
        }
        let mut buf = Vec::with_capacity(self.page_parts * PART_BYTES);
        for page in parts.chunks(self.page_parts) {
            buf.clear();
            page.iter().for_each(|p| put_part(p, &mut buf));
            let key = self.key();
            self.out.append(key, &buf)?;
            self.part_pages.push(key);
        }
        self.parts_out += parts.len() as u64;
        parts.clear();
        Ok(())
    }

    /// `run` in (channel, record order), written in pages; their keys (None when empty).
    fn run(&mut self, run: &[End]) -> Result<Option<Vec<usize>>, String> {
        if run.is_empty() {
            return Ok(None);
        }
        let mut run = by_channel(run);
        // Each channel's receives in posting order where some completed in another (rare); sends, and
        // receives completed as posted, are already in (channel, order).
        if !run.windows(2).all(|w| w[0] <= w[1]) {
            run.sort_unstable();
        }
        let mut keys = Vec::new();
        let mut buf = Vec::with_capacity(self.page_ends * END_BYTES);
        for page in run.chunks(self.page_ends) {
            buf.clear();
            page.iter().for_each(|e| e.put(&mut buf));
            let key = self.key();
            self.out.append(key, &buf)?;
            keys.push(key);
        }
        Ok(Some(keys))
    }

    fn key(&mut self) -> usize {
        self.next_key += 1;
        self.next_key - 1
    }
}

/// `run`, in record order, in (channel, record order): a counting sort over its distinct channels (few in
/// a trace: ranks x peers x tags; a comparison sort of every record cost a tenth of a 64 M-event index),
/// stable, so each channel's records stay in record order.
fn by_channel(run: &[End]) -> Vec<End> {
    let mut ids: rustc_hash::FxHashMap<u128, u32> = Default::default();
    let id: Vec<u32> = run
        .iter()
        .map(|e| {
            let next = ids.len() as u32;
            *ids.entry(e.channel).or_insert(next)
        })
        .collect();
    let mut channels: Vec<(u128, u32)> = ids.into_iter().collect();
    channels.sort_unstable();
    let mut start = vec![0usize; channels.len()];
    for &i in &id {
        start[i as usize] += 1;
    }
    let mut at = 0;
    for &(_, i) in &channels {
        let n = start[i as usize];
        start[i as usize] = at;
        at += n;
    }
    let mut out = vec![End::default(); run.len()];
    for (e, &i) in run.iter().zip(&id) {
        out[start[i as usize]] = *e;
        start[i as usize] += 1;
    }
    out
}

/// A k-way merge of sorted runs, one page of each in memory ([`KMerge`]: equal records by run, the
/// earlier first).
struct Merge<'r> {
    runs: Vec<Cursor<'r>>,
    /// The runs' next records; None until the first is asked for (the runs' first pages read then).
    merge: Option<KMerge<End>>,
}

struct Cursor<'r> {
    pages: &'r [usize],
    page: Vec<End>,
    at: usize,
}

impl Cursor<'_> {
    /// The run's next record, reading its next page when this one is done.
    fn next(&mut self, out: &mut dyn EndsSpill) -> Result<Option<End>, String> {
        if self.at == self.page.len() {
            let Some((&key, rest)) = self.pages.split_first() else { return Ok(None) };
            self.pages = rest;
            let bytes = out.read(key)?;
            if bytes.len() % END_BYTES != 0 || bytes.is_empty() {
                return Err(format!("spilled message ends damaged: a page of {} bytes", bytes.len()));
            }
            self.page.clear();
            self.page.extend(bytes.chunks_exact(END_BYTES).map(End::get));
            self.at = 0;
        }
        self.at += 1;
        Ok(Some(self.page[self.at - 1]))
    }
}

impl<'r> Merge<'r> {
    fn new(runs: &'r [Vec<usize>]) -> Merge<'r> {
        Merge { runs: runs.iter().map(|p| Cursor { pages: p, page: Vec::new(), at: 0 }).collect(), merge: None }
    }

    /// The smallest record not yet given, over all runs.
    fn next(&mut self, out: &mut dyn EndsSpill) -> Result<Option<End>, String> {
        let merge = match &mut self.merge {
            Some(m) => m,
            None => {
                let mut heads = Vec::with_capacity(self.runs.len());
                for c in &mut self.runs {
                    heads.push(c.next(out)?);
                }
                self.merge.insert(KMerge::new(heads))
            }
        };
        let Some((k, _)) = merge.peek() else { return Ok(None) };
        let next = self.runs[k].next(out)?;
        Ok(merge.replace(next))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Pages(Vec<Vec<u8>>);

    impl EndsSpill for Pages {
        fn append(&mut self, k: usize, bytes: &[u8]) -> Result<(), String> {
            if self.0.len() <= k {
                self.0.resize(k + 1, Vec::new());
            }
            self.0[k].extend_from_slice(bytes);
            Ok(())
        }
        fn read(&mut self, k: usize) -> Result<Vec<u8>, String> {
            Ok(self.0.get(k).cloned().unwrap_or_default())
        }
    }

    /// A small xorshift, so the test needs no crate and fails the same way every time.
    fn rng(seed: &mut u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    }

    /// Record `script`'s sends and receives (and the cancellations) into `ends`.
    fn record(ends: &mut Ends, cancels: &[(usize, u64)], script: &[(u8, u32, u32, u32, i64)]) {
        for (i, &(kind, a, b, tag, t)) in script.iter().enumerate() {
            let (sender, receiver) = (LocationId(a), LocationId(b));
            match kind {
                0 => {
                    ends.send(Send { sender, receiver, comm: 1, tag, length: t as u64, time_ns: t, cancelled: false });
                }
                _ => ends.recv(Recv {
                    sender,
                    receiver,
                    comm: 1,
                    tag,
                    length: t as u64,
                    time_ns: t,
                    posted_ns: t - 1,
                    // Posted out of completion order here and there (each receiver's postings are distinct):
                    // a channel's receives then meet its sends in posting order, spilled or not.
                    posted: t as u64 ^ 4,
                }),
            }
            for &(at, nth) in cancels {
                if at == i {
                    ends.cancel(nth);
                }
            }
        }
    }

    fn run(
        ends: &mut Ends,
        cancels: &[(usize, u64)],
        script: &[(u8, u32, u32, u32, i64)],
    ) -> (Vec<(Send, Recv)>, (usize, usize)) {
        record(ends, cancels, script);
        let mut pairs = Vec::new();
        let unmatched = ends.messages(&mut |s, r| pairs.push((*s, *r))).unwrap();
        (pairs, unmatched)
    }

    /// [`run`] taking the pairs with their receive's number (`messages_numbered`).
    fn run_numbered(
        ends: &mut Ends,
        cancels: &[(usize, u64)],
        script: &[(u8, u32, u32, u32, i64)],
        out: &mut Vec<(Send, Recv, u64)>,
    ) -> (usize, usize) {
        record(ends, cancels, script);
        ends.messages_numbered(&mut |s, r, nth| {
            out.push((*s, *r, nth));
            Ok(())
        })
        .unwrap()
    }

    /// Spilled in runs of any size, the pairs, their order and the unmatched counts are those of
    /// `match_messages` on the same records, with cancellations before and after a send was spilled.
    #[test]
    fn spilled_runs_match_as_in_memory() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for round in 0..40 {
            let script: Vec<(u8, u32, u32, u32, i64)> = (0..300)
                .map(|t| {
                    let r = rng(&mut seed);
                    ((r % 2) as u8, (r >> 8) as u32 % 3, (r >> 16) as u32 % 3, (r >> 24) as u32 % 2, t)
                })
                .collect();
            let sends = script.iter().filter(|s| s.0 == 0).count() as u64;
            let cancels: Vec<(usize, u64)> =
                (0..5).map(|_| (299usize.min(rng(&mut seed) as usize % 300), rng(&mut seed) % sends.max(1))).collect();
            // Only sends recorded before the cancel can be cancelled.
            let cancels: Vec<(usize, u64)> = cancels
                .into_iter()
                .filter(|&(at, nth)| script[..=at].iter().filter(|s| s.0 == 0).count() as u64 > nth)
                .collect();
            let whole = run(&mut Ends::default(), &cancels, &script);
            for share in [1, 97, 400, 5_000] {
                let mut ends = Ends::default();
                ends.spill_to(Box::new(Pages::default()), share);
                let spilled = run(&mut ends, &cancels, &script);
                assert!(ends.spilled() || share == 5_000, "round {round}, share {share}: nothing spilled");
                assert_eq!(spilled, whole, "round {round}, share {share}");
                // Numbered, in merge order: put in order by their receive's number, the same pairs.
                let mut ends = Ends::default();
                ends.spill_to(Box::new(Pages::default()), share);
                let mut numbered = Vec::new();
                let unmatched = run_numbered(&mut ends, &cancels, &script, &mut numbered);
                numbered.sort_by_key(|p| p.2);
                let pairs: Vec<(Send, Recv)> = numbered.iter().map(|p| (p.0, p.1)).collect();
                assert_eq!((pairs, unmatched), whole, "numbered: round {round}, share {share}");
            }
        }
    }

    /// Shards that each keep the messages to their own receivers (`keep_receivers`) make, together, the
    /// pairs, receive numbers and unmatched counts of one read of everything, in memory or spilled.
    #[test]
    fn shards_keeping_their_receivers_match_as_one_read() {
        let mut seed = 0x51_7cc1_b727_220au64;
        for round in 0..30 {
            let script: Vec<(u8, u32, u32, u32, i64)> = (0..400)
                .map(|t| {
                    let r = rng(&mut seed);
                    ((r % 2) as u8, (r >> 8) as u32 % 4, (r >> 16) as u32 % 4, (r >> 24) as u32 % 2, t)
                })
                .collect();
            let sends = script.iter().filter(|s| s.0 == 0).count() as u64;
            let cancels: Vec<(usize, u64)> = (0..6)
                .map(|_| (399usize.min(rng(&mut seed) as usize % 400), rng(&mut seed) % sends.max(1)))
                .filter(|&(at, nth)| script[..=at].iter().filter(|s| s.0 == 0).count() as u64 > nth)
                .collect();
            let mut whole = Vec::new();
            let whole_unmatched = run_numbered(&mut Ends::default(), &cancels, &script, &mut whole);
            whole.sort_by_key(|p| p.2);
            for share in [None, Some(1), Some(150), Some(5_000)] {
                for cuts in [vec![0, 4], vec![0, 1, 4], vec![0, 1, 2, 3, 4], vec![0, 3, 3, 4]] {
                    let (mut pairs, mut unmatched) = (Vec::new(), (0, 0));
                    for w in cuts.windows(2) {
                        let mut ends = Ends::default();
                        if let Some(share) = share {
                            ends.spill_to(Box::new(Pages::default()), share);
                        }
                        ends.keep_receivers(w[0]..w[1]);
                        let (s, r) = run_numbered(&mut ends, &cancels, &script, &mut pairs);
                        assert_eq!(ends.counts()[..2], [sends as usize, script.len() - sends as usize]);
                        unmatched = (unmatched.0 + s, unmatched.1 + r);
                    }
                    pairs.sort_by_key(|p| p.2);
                    let at = format!("round {round}, share {share:?}, shards cut at {cuts:?}");
                    assert_eq!(pairs, whole, "{at}");
                    assert_eq!(unmatched, whole_unmatched, "{at}");
                }
            }
        }
    }

    #[test]
    fn spilled_parts_group_as_in_memory() {
        let part = |l: u32, comm: u32, t: i64| CollectivePart {
            location: LocationId(l),
            region: RegionId(l + 1),
            comm,
            op: comm as u8,
            root: (comm == 1).then_some(LocationId(2)),
            begin_ns: t,
            end_ns: t + 1,
            sent: 3,
            received: u64::MAX,
        };
        let parts: Vec<CollectivePart> =
            (0..3).flat_map(|l| (0..20).map(move |k| part(l, (k % 3 == 0) as u32, k as i64 - 5))).collect();
        let groups = matching::group_collectives(&parts);
        let mut ends = Ends::default();
        ends.spill_to(Box::new(Pages::default()), 120);
        parts.iter().for_each(|p| ends.part(*p));
        assert!(ends.spilled());
        let mut got = Vec::new();
        ends.collectives(&mut |p, op| got.push((*p, op))).unwrap();
        assert_eq!(got, parts.into_iter().zip(groups).collect::<Vec<_>>());
    }
}
