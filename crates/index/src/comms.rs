//! A trace's messages and collective rows as pass 2 takes them: block by block (issue #17). A block task
//! needs the messages its locations sent (its tiles store them with the sender), its collective rows, and
//! each of its locations' message ends (time, bytes: sends and receives, for the pyramid's message bins);
//! each in the trace's order, with its index in the trace.
//!
//! A whole trace gives them from its columns ([`TraceComms`]). A streamed index holds them only within a
//! share of `--memory` ([`CommSpill`]): the matched messages (handed over in any order, each with its
//! receive's record number) are sorted into the trace's order (the builder's: by send time, receive time,
//! then receive order) in sorted runs in the spill ([`runs`](crate::spill::runs)) and merged; each message,
//! numbered as it comes out, and each collective row (already in the trace's order) goes to its block (a
//! message also to its receiver's block, as an end): held as the rows its task takes while they fit
//! ([`CommSpill::hold`]), else appended to the block's file in the spill, a page at a time, which the
//! block task reads back. Memory holds a run being sorted (a share of `--memory`), one page per run while
//! merging, the rows held or a page per block being routed, and per location a few counts (the manifest's
//! and a shard's part).
//!
//! Plain Rust, no files (the spill is the caller's); it must not change what a tile holds or its order.

use crate::spill::runs::{u32_at, u64_at, Keys, Record, Runs, PAGE_BYTES};
use crate::spill::Spill;
use std::mem::size_of;
use std::ops::Range;
use std::sync::{Arc, Mutex, PoisonError};
use weft_model::{LocationId, MessageKind, RegionId, StringId, Trace};
use weft_store::format::events::{kind_code, kind_of};
use weft_store::format::events::{CollectiveRow, MessageRow};

/// What a block task holds of its communication ([`CommSpill::block_bytes`]): while its file is read, and after.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BlockCommBytes {
    pub reading: u64,
    pub held: u64,
}

/// One block's communication: the messages its locations sent and its collective rows (each ascending by
/// trace index), and per location of the block its message ends (time, bytes).
#[derive(Default)]
pub struct BlockComms {
    pub messages: Vec<MessageRow>,
    pub collectives: Vec<CollectiveRow>,
    pub ends: Vec<Vec<(u64, u64)>>,
}

/// Per location: messages sent, flows among them, collective rows, and its largest collective operation
/// + 1 (what a shard's part counts of its locations, `partition`).
#[derive(Clone, Debug, Default)]
pub struct CommTally {
    pub sent: Vec<u64>,
    pub flows: Vec<u64>,
    pub rows: Vec<u64>,
    pub operations: Vec<u64>,
}

impl CommTally {
    fn new(locations: usize) -> CommTally {
        CommTally {
            sent: vec![0; locations],
            flows: vec![0; locations],
            rows: vec![0; locations],
            operations: vec![0; locations],
        }
    }

    fn message(&mut self, m: &MessageRow) {
        if let Some(s) = self.sent.get_mut(m.sender.index()) {
            *s += 1;
            self.flows[m.sender.index()] += (m.kind == MessageKind::Flow) as u64;
        }
    }

    fn collective(&mut self, c: &CollectiveRow) {
        if let Some(r) = self.rows.get_mut(c.location.index()) {
            *r += 1;
            let o = &mut self.operations[c.location.index()];
            *o = (*o).max(c.operation as u64 + 1);
        }
    }

    /// The tally of a whole trace.
    pub fn of_trace(trace: &Trace) -> CommTally {
        let mut t = CommTally::new(trace.locations.len());
        let m = &trace.messages;
        for i in 0..m.len() {
            t.message(&message_row(trace, i));
        }
        for i in 0..trace.collectives.len() {
            t.collective(&collective_row(trace, i));
        }
        t
    }
}

/// Message `i` of `trace`.
pub fn message_row(trace: &Trace, i: usize) -> MessageRow {
    let m = &trace.messages;
    MessageRow {
        index: i as u64,
        kind: m.kind[i],
        sender: m.sender[i],
        receiver: m.receiver[i],
        send_ns: m.send_ns[i],
        recv_ns: m.recv_ns[i],
        size_bytes: m.size_bytes[i],
        tag: m.tag[i],
        name: m.name[i],
        posted_ns: m.posted_ns[i],
    }
}

/// Collective row `i` of `trace`.
pub fn collective_row(trace: &Trace, i: usize) -> CollectiveRow {
    let k = &trace.collectives;
    CollectiveRow {
        index: i as u64,
        operation: k.operation[i],
        location: k.location[i],
        region: k.region[i],
        communicator: k.communicator[i],
        root: k.root[i],
        start_ns: k.start_ns[i],
        end_ns: k.end_ns[i],
        bytes_sent: k.bytes_sent[i],
        bytes_received: k.bytes_received[i],
    }
}

/// A whole trace's messages and collective rows by block (their indices), and each location's message
/// ends: what [`BlockComms`] a block task gets is copied from the trace.
pub struct TraceComms {
    msg_by_block: Vec<Vec<u32>>,
    coll_by_block: Vec<Vec<u32>>,
    ends: Vec<Vec<(u64, u64)>>,
}

impl TraceComms {
    pub fn new(trace: &Trace, t: &weft_store::format::manifest::Tiling) -> TraceComms {
        // Messages and collectives by the block of their sender / location (one pass each, before the tasks).
        let mut msg_by_block: Vec<Vec<u32>> = vec![Vec::new(); t.blocks as usize];
        for (i, s) in trace.messages.sender.iter().enumerate() {
            msg_by_block[t.block_of(s.0) as usize].push(i as u32);
        }
        let mut coll_by_block: Vec<Vec<u32>> = vec![Vec::new(); t.blocks as usize];
        for (i, l) in trace.collectives.location.iter().enumerate() {
            coll_by_block[t.block_of(l.0) as usize].push(i as u32);
        }
        // Message ends per location (sends and receives), for the summaries.
        let mut ends: Vec<Vec<(u64, u64)>> = vec![Vec::new(); trace.locations.len()];
        let m = &trace.messages;
        for i in 0..m.len() {
            ends[m.sender[i].index()].push((m.send_ns[i], m.size_bytes[i]));
            ends[m.receiver[i].index()].push((m.recv_ns[i], m.size_bytes[i]));
        }
        TraceComms { msg_by_block, coll_by_block, ends }
    }

    /// Block `b`'s, of the locations `locs`.
    pub fn block(&self, trace: &Trace, b: u32, locs: Range<u32>) -> BlockComms {
        BlockComms {
            messages: self.msg_by_block[b as usize].iter().map(|&i| message_row(trace, i as usize)).collect(),
            collectives: self.coll_by_block[b as usize].iter().map(|&i| collective_row(trace, i as usize)).collect(),
            ends: locs.map(|l| self.ends[l as usize].clone()).collect(),
        }
    }
}

/// A matched message as handed over by a streamed read, before its trace index is known: times in the
/// source clock, and its receive's record number (the builder's stable sort keeps receive order among
/// messages of one send and receive time). Ordered as the trace orders messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct RawMessage {
    pub send_ns: i64,
    pub recv_ns: i64,
    pub nth: u64,
    pub sender: u32,
    pub receiver: u32,
    pub size_bytes: u64,
    pub tag: u32,
    pub name: u32,
    pub kind: u8,
    pub posted_ns: i64,
}

impl RawMessage {
    /// A message as the builder records it, its receive's record number `nth`.
    pub fn of(m: &weft_model::MessageRecord, nth: u64) -> RawMessage {
        RawMessage {
            send_ns: m.send_ns,
            recv_ns: m.recv_ns,
            nth,
            sender: m.sender.0,
            receiver: m.receiver.0,
            size_bytes: m.size_bytes,
            tag: m.tag,
            name: m.name.0,
            kind: match m.kind {
                MessageKind::PointToPoint => 0,
                MessageKind::Flow => 1,
            },
            posted_ns: m.posted_ns,
        }
    }

    /// The message as a tile stores it: trace index `index`, times from `origin` as the builder makes them.
    pub fn row(&self, index: u64, origin: i64) -> MessageRow {
        let rel = |t: i64| t.saturating_sub(origin).max(0) as u64;
        MessageRow {
            index,
            kind: kind_of(self.kind),
            sender: LocationId(self.sender),
            receiver: LocationId(self.receiver),
            send_ns: rel(self.send_ns),
            recv_ns: rel(self.recv_ns),
            size_bytes: self.size_bytes,
            tag: self.tag,
            name: StringId(self.name),
            posted_ns: rel(self.posted_ns),
        }
    }
}

impl Record for RawMessage {
    const BYTES: usize = 57;
    fn put(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.send_ns.to_le_bytes());
        out.extend_from_slice(&self.recv_ns.to_le_bytes());
        out.extend_from_slice(&self.nth.to_le_bytes());
        out.extend_from_slice(&self.sender.to_le_bytes());
        out.extend_from_slice(&self.receiver.to_le_bytes());
        out.extend_from_slice(&self.size_bytes.to_le_bytes());
        out.extend_from_slice(&self.tag.to_le_bytes());
        out.extend_from_slice(&self.name.to_le_bytes());
        out.push(self.kind);
        out.extend_from_slice(&self.posted_ns.to_le_bytes());
    }
    fn get(b: &[u8]) -> Self {
        RawMessage {
            send_ns: u64_at(b, 0) as i64,
            recv_ns: u64_at(b, 8) as i64,
            nth: u64_at(b, 16),
            sender: u32_at(b, 24),
            receiver: u32_at(b, 28),
            size_bytes: u64_at(b, 32),
            tag: u32_at(b, 40),
            name: u32_at(b, 44),
            kind: b[48],
            posted_ns: u64_at(b, 49) as i64,
        }
    }
}

/// Bytes of a block file's records, each after its tag: a message its block sent (tag 0; its receive end
/// too when the receiver is in the block), a receive end of a message another block sent (tag 1), a
/// collective row (tag 2).
const SENT_BYTES: usize = 1 + 8 + 1 + 4 + 4 + 8 + 8 + 8 + 4 + 4 + 8;
const END_BYTES: usize = 1 + 4 + 8 + 8;
const ROW_BYTES: usize = 1 + 8 + 4 * 5 + 8 * 4;

/// Bytes of a block file read at a time by [`CommSpill::block_windows`].
pub const COMM_PIECE: usize = 1 << 20;

/// Reads at most `max` bytes of a spill key from a byte on (`Spill::get_from`, the caller's lock taken
/// for each part).
pub type Fetch<'s> = &'s dyn Fn(usize, u64, usize) -> Result<Vec<u8>, String>;

/// Appends bytes to a spill key (a piece's page: [`CommSpill::split_block`]).
pub type PutPage<'a> = dyn FnMut(usize, &[u8]) -> Result<(), String> + 'a;

/// A block file, or a piece of one cut for a range of windows ([`CommSpill::split_block`]): its spill key
/// and how many records it holds (messages and receive ends, collective rows).
#[derive(Clone, Copy, Debug)]
pub struct CommPiece {
    pub key: usize,
    pub records: u64,
    pub rows: u64,
}

/// Each record of `piece` (with its tag) to `f`, read [`COMM_PIECE`] bytes at a time; a record `f` finds
/// damaged (a location outside the block), a record cut or of no known tag, or fewer records than the piece
/// holds is an error naming block `b` and the byte.
fn each_record(
    piece: CommPiece,
    b: u32,
    fetch: Fetch,
    f: &mut dyn FnMut(&[u8]) -> Result<(), ()>,
) -> Result<(), String> {
    let damaged = |at: u64| format!("the spilled messages of block {b} are damaged at byte {at}");
    let (mut buf, mut next, mut done, mut base) = (Vec::<u8>::new(), 0u64, false, 0u64);
    let (mut at, mut records, mut rows) = (0usize, 0u64, 0u64);
    loop {
        if buf.len() - at < SENT_BYTES.max(ROW_BYTES) && !done {
            buf.drain(..at);
            base += at as u64;
            at = 0;
            let more = fetch(piece.key, next, COMM_PIECE)?;
            done = more.len() < COMM_PIECE;
            next += more.len() as u64;
            buf.extend_from_slice(&more);
        }
        if at == buf.len() {
            break;
        }
        let rest = &buf[at..];
        let len = match rest[0] {
            0 if rest.len() >= SENT_BYTES => SENT_BYTES,
            1 if rest.len() >= END_BYTES => END_BYTES,
            2 if rest.len() >= ROW_BYTES => ROW_BYTES,
            _ => return Err(damaged(base + at as u64)),
        };
        f(&rest[..len]).map_err(|_| damaged(base + at as u64))?;
        if rest[0] == 2 {
            rows += 1;
        } else {
            records += 1;
        }
        at += len;
    }
    if (records, rows) != (piece.records, piece.rows) {
        return Err(format!("the spilled messages of block {b} are cut short"));
    }
    Ok(())
}

/// Each record of a block file to `each` (its tag, its bytes after the tag), in order; Err: the byte where
/// the file is damaged (an unknown tag, a record cut short, or one `each` refuses).
fn file_records(bytes: &[u8], mut each: impl FnMut(u8, &[u8]) -> Result<(), ()>) -> Result<(), usize> {
    let mut at = 0;
    while at < bytes.len() {
        let rest = &bytes[at..];
        let len = match rest[0] {
            0 => SENT_BYTES,
            1 => END_BYTES,
            2 => ROW_BYTES,
            _ => return Err(at),
        };
        if rest.len() < len {
            return Err(at);
        }
        each(rest[0], &rest[1..len]).map_err(|_| at)?;
        at += len;
    }
    Ok(())
}

/// A block file's messages (room for `sent`, what the file's counts say), and how many receive ends of
/// other blocks' messages it holds.
fn file_messages(bytes: &[u8], sent: usize) -> Result<(Vec<MessageRow>, u64), usize> {
    let (mut messages, mut ends) = (Vec::with_capacity(sent), 0u64);
    file_records(bytes, |tag, r| {
        match tag {
            0 => messages.push(sent_row(r)),
            1 => ends += 1,
            _ => {}
        }
        Ok(())
    })?;
    Ok((messages, ends))
}

/// A block file's collective rows (room for `rows`).
fn file_collectives(bytes: &[u8], rows: usize) -> Result<Vec<CollectiveRow>, usize> {
    let mut collectives = Vec::with_capacity(rows);
    file_records(bytes, |tag, r| {
        if tag == 2 {
            collectives.push(collective_file_row(r));
        }
        Ok(())
    })?;
    Ok(collectives)
}

/// A block file's message ends per location of `locs` (a sent message's send, and its receive when the
/// receiver is in the block; a receive of another block's message), each list allocated once at its size
/// (what `block_bytes` counts); an end of a location outside the block is damage.
fn file_ends(bytes: &[u8], locs: &Range<u32>) -> Result<Vec<Vec<(u64, u64)>>, usize> {
    let slot = |l: u32| l.checked_sub(locs.start).map(|k| k as usize).filter(|&k| k < locs.len()).ok_or(());
    // Each location's ends counted first (damage ends the count: the second walk reports it).
    let mut counts = vec![0usize; locs.len()];
    let _ = file_records(bytes, |tag, r| {
        let mut count = |l: u32| slot(l).map(|k| counts[k] += 1);
        match tag {
            0 => {
                count(u32_at(r, 9))?;
                let receiver = u32_at(r, 13);
                if locs.contains(&receiver) {
                    count(receiver)?;
                }
            }
            1 => count(u32_at(r, 0))?,
            _ => {}
        }
        Ok(())
    });
    let mut ends: Vec<Vec<(u64, u64)>> = counts.iter().map(|&n| Vec::with_capacity(n)).collect();
    file_records(bytes, |tag, r| {
        match tag {
            0 => {
                let (receiver, size) = (u32_at(r, 13), u64_at(r, 33));
                ends[slot(u32_at(r, 9))?].push((u64_at(r, 17), size));
                if locs.contains(&receiver) {
                    ends[slot(receiver)?].push((u64_at(r, 25), size));
                }
            }
            1 => ends[slot(u32_at(r, 0))?].push((u64_at(r, 4), u64_at(r, 12))),
            _ => {}
        }
        Ok(())
    })?;
    Ok(ends)
}

/// A sent message's record of a block file (after its tag).
fn sent_row(r: &[u8]) -> MessageRow {
    MessageRow {
        index: u64_at(r, 0),
        kind: kind_of(r[8]),
        sender: LocationId(u32_at(r, 9)),
        receiver: LocationId(u32_at(r, 13)),
        send_ns: u64_at(r, 17),
        recv_ns: u64_at(r, 25),
        size_bytes: u64_at(r, 33),
        tag: u32_at(r, 41),
        name: StringId(u32_at(r, 45)),
        posted_ns: u64_at(r, 49),
    }
}

/// A collective row's record of a block file (after its tag).
fn collective_file_row(r: &[u8]) -> CollectiveRow {
    CollectiveRow {
        index: u64_at(r, 0),
        operation: u32_at(r, 8),
        location: LocationId(u32_at(r, 12)),
        region: RegionId(u32_at(r, 16)),
        communicator: StringId(u32_at(r, 20)),
        root: root_of(u32_at(r, 24)),
        start_ns: u64_at(r, 28),
        end_ns: u64_at(r, 36),
        bytes_sent: u64_at(r, 44),
        bytes_received: u64_at(r, 52),
    }
}

/// A sent message's record of a block file (tag 0).
fn sent_record(m: &MessageRow) -> [u8; SENT_BYTES] {
    let mut rec = [0u8; SENT_BYTES];
    rec[1..9].copy_from_slice(&m.index.to_le_bytes());
    rec[9] = kind_code(m.kind);
    rec[10..14].copy_from_slice(&m.sender.0.to_le_bytes());
    rec[14..18].copy_from_slice(&m.receiver.0.to_le_bytes());
    rec[18..26].copy_from_slice(&m.send_ns.to_le_bytes());
    rec[26..34].copy_from_slice(&m.recv_ns.to_le_bytes());
    rec[34..42].copy_from_slice(&m.size_bytes.to_le_bytes());
    rec[42..46].copy_from_slice(&m.tag.to_le_bytes());
    rec[46..50].copy_from_slice(&m.name.0.to_le_bytes());
    rec[50..58].copy_from_slice(&m.posted_ns.to_le_bytes());
    rec
}

/// The record of a receive end on location `l` of a message another block sent (tag 1).
fn end_record(l: u32, recv_ns: u64, size_bytes: u64) -> [u8; END_BYTES] {
    let mut e = [1u8; END_BYTES];
    e[1..5].copy_from_slice(&l.to_le_bytes());
    e[5..13].copy_from_slice(&recv_ns.to_le_bytes());
    e[13..21].copy_from_slice(&size_bytes.to_le_bytes());
    e
}

/// A collective row's root as a block file's record holds it: 0 none, else the root location + 1.
fn root_code(root: Option<LocationId>) -> u32 {
    root.map_or(0, |l| l.0 + 1)
}

/// The root a block file's record's code stands for ([`root_code`]).
fn root_of(code: u32) -> Option<LocationId> {
    code.checked_sub(1).map(LocationId)
}

/// A collective row's record of a block file (tag 2).
fn row_record(c: &CollectiveRow) -> [u8; ROW_BYTES] {
    let mut rec = [2u8; ROW_BYTES];
    rec[1..9].copy_from_slice(&c.index.to_le_bytes());
    for (k, v) in [c.operation, c.location.0, c.region.0, c.communicator.0, root_code(c.root)].into_iter().enumerate() {
        rec[9 + 4 * k..13 + 4 * k].copy_from_slice(&v.to_le_bytes());
    }
    for (k, v) in [c.start_ns, c.end_ns, c.bytes_sent, c.bytes_received].into_iter().enumerate() {
        rec[29 + 8 * k..37 + 8 * k].copy_from_slice(&v.to_le_bytes());
    }
    rec
}

/// Collective rows gathered apart from a [`CommSpill`] ([`CommSpill::collective_lists`]): each routed
/// block's in a list of its own, in the order pushed (the trace's), with what the spill counts of them.
pub struct CollectiveLists {
    block_locations: u32,
    routed: Range<u32>,
    lists: Vec<Vec<CollectiveRow>>,
    tally: CommTally,
    rows: u64,
    operations: u64,
    max_ns: u64,
}

impl CollectiveLists {
    /// The next collective row, times from the origin.
    pub fn push(&mut self, c: CollectiveRow) {
        self.rows += 1;
        self.operations = self.operations.max(c.operation as u64 + 1);
        self.max_ns = self.max_ns.max(c.end_ns);
        self.tally.collective(&c);
        let b = c.location.0 / self.block_locations;
        if self.routed.contains(&b) {
            self.lists[b as usize].push(c);
        }
    }
}

/// A block's communication held as rows ([`CommSpill::hold`]): what its task takes, and the receive ends
/// of messages other blocks sent (location, time, bytes; also among the ends) that its file would hold as
/// such, should the rows go to it after all ([`CommSpill::spill_held`]).
#[derive(Default)]
struct HeldBlock {
    comms: BlockComms,
    received: Vec<(u32, u64, u64)>,
}

impl HeldBlock {
    /// Bytes held (the lists' capacities).
    fn bytes(&self) -> usize {
        let k = &self.comms;
        k.messages.capacity() * size_of::<MessageRow>()
            + k.collectives.capacity() * size_of::<CollectiveRow>()
            + k.ends.iter().map(|e| e.capacity() * size_of::<(u64, u64)>()).sum::<usize>()
            + self.received.capacity() * size_of::<(u32, u64, u64)>()
    }
}

/// The messages of a read in chunks (Chrome JSON, Paraver), which knows its locations, and so the blocks'
/// files, only at its end: the reader's builder hands them over a batch at a time
/// (`model::TraceBuilder::sink_messages`), numbered in the order recorded; past their share of `--memory`
/// they go to a spill of their own as a run in the trace's order; at the end every run is merged into the
/// [`CommSpill`] ([`finish`](Self::finish)), as the builder's sort of them would give them.
pub struct MessageRuns {
    pending: Arc<Mutex<(Vec<RawMessage>, u64)>>,
    runs: Runs,
    keys: Keys,
    own: Box<dyn Spill>,
    /// Messages of a run.
    run: usize,
}

/// The builder's end of [`MessageRuns`]: the messages it takes at a time, and a run's room.
struct MessageTaker(Arc<Mutex<(Vec<RawMessage>, u64)>>, usize, usize);

impl weft_model::MessageSink for MessageTaker {
    fn take(&mut self, messages: &[weft_model::MessageRecord]) {
        // (A poisoned lock means a thread panicked holding it: the index fails anyway.)
        let Ok(mut p) = self.0.lock() else { return };
        let (held, count) = &mut *p;
        if held.capacity() == 0 {
            // (A run's room at once: not grown by doubling past the share.)
            held.reserve_exact(self.2);
        }
        for m in messages {
            held.push(RawMessage::of(m, *count));
            *count += 1;
        }
    }
    fn batch(&self) -> usize {
        self.1
    }
}

impl MessageRuns {
    /// Runs in `own`, each of as many messages as `share` bytes hold; and the sink to give the builder.
    pub fn new(own: Box<dyn Spill>, share: u64) -> (MessageRuns, Box<dyn weft_model::MessageSink>) {
        let run = (share / size_of::<RawMessage>() as u64).max(1) as usize;
        let pending = Arc::new(Mutex::new((Vec::new(), 0)));
        let batch = run.min(weft_model::SAMPLE_BATCH);
        let runs = MessageRuns { pending: pending.clone(), runs: Runs::new(PAGE_BYTES), keys: Keys(0), own, run };
        (runs, Box::new(MessageTaker(pending, batch, run + batch)))
    }

    fn lock(&self) -> Result<std::sync::MutexGuard<'_, (Vec<RawMessage>, u64)>, String> {
        self.pending.lock().map_err(|_| "a reading thread panicked".to_string())
    }

    /// Bytes held in memory: the messages waiting, and the spill's.
    pub fn held(&self) -> u64 {
        let waiting = self.pending.lock().map_or(0, |p| p.0.capacity() * size_of::<RawMessage>());
        waiting as u64 + self.own.held()
    }

    /// The messages waiting to the spill as a run in the trace's order, once they fill one (`all`: however
    /// many).
    pub fn spill(&mut self, all: bool) -> Result<(), String> {
        let mut batch = {
            let mut p = self.lock()?;
            if p.0.is_empty() || !(all || p.0.len() >= self.run) {
                return Ok(());
            }
            std::mem::take(&mut p.0)
        };
        // (Their keys are unique, `nth`: any sort gives the one order.)
        batch.sort_unstable();
        self.runs.write(&batch, &mut *self.own, &mut self.keys)
    }

    /// Every message, in the trace's order, numbered, times from `origin`, to `comms` (its block files in
    /// `spill`); the bytes its runs took in their spill.
    pub fn finish(mut self, comms: &mut CommSpill, origin: i64, spill: &mut dyn Spill) -> Result<u64, String> {
        let mut held = std::mem::take(&mut self.lock()?.0);
        held.sort_unstable();
        let mut i = 0u64;
        if self.runs.is_empty() {
            for m in held {
                comms.put_message(&m.row(i, origin), spill)?;
                i += 1;
            }
            return Ok(0);
        }
        self.runs.write(&held, &mut *self.own, &mut self.keys)?;
        drop(held);
        let mut merge = self.runs.merge::<RawMessage>();
        while let Some(m) = merge.next(&*self.own)? {
            comms.put_message(&m.row(i, origin), spill)?;
            i += 1;
        }
        Ok(self.runs.bytes)
    }
}

/// Messages in the trace's order ([`CommSpill::sorted`]).
pub(super) enum Sorted {
    Memory(Vec<RawMessage>),
    Runs(Runs),
}

/// A message row as spilled between shards (`message_sort`).
impl Record for MessageRow {
    const BYTES: usize = 57;
    fn put(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.index.to_le_bytes());
        out.push(kind_code(self.kind));
        for v in [self.sender.0, self.receiver.0] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for v in [self.send_ns, self.recv_ns, self.size_bytes] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for v in [self.tag, self.name.0] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&self.posted_ns.to_le_bytes());
    }
    fn get(b: &[u8]) -> Self {
        MessageRow {
            index: u64_at(b, 0),
            kind: kind_of(b[8]),
            sender: LocationId(u32_at(b, 9)),
            receiver: LocationId(u32_at(b, 13)),
            send_ns: u64_at(b, 17),
            recv_ns: u64_at(b, 25),
            size_bytes: u64_at(b, 33),
            tag: u32_at(b, 41),
            name: StringId(u32_at(b, 45)),
            posted_ns: u64_at(b, 49),
        }
    }
}

/// A streamed index's messages and collective rows, in the spill: sorted runs of the messages as they are
/// matched, then every block's file (module doc).
pub struct CommSpill {
    block_locations: u32,
    /// The blocks whose files are written (a shard's; the others are only counted).
    routed: Range<u32>,
    /// Per block: the key of its file, and its records not yet put (a page at most).
    files: Vec<(usize, Vec<u8>)>,
    /// Per block: messages and ends, collective rows in its file (a block task's memory).
    records: Vec<(u64, u64)>,
    /// Per block: of its `records.0`, the receive ends of messages other blocks sent.
    received: Vec<u64>,
    page: usize,
    pub(super) keys: Keys,
    buffer: Vec<RawMessage>,
    buffer_cap: usize,
    /// The messages come in receive order (an OTF2 read's ends matched in memory): a few runs of rising
    /// send times, which the stable sort merges (the unstable one took them as shuffled). Matched from
    /// spilled runs they come channel by channel, many short runs, where the stable sort falls back to a
    /// quicksort dearer than the unstable one. `nth` makes every key unique: the same order either way.
    pub in_receive_order: bool,
    runs: Runs,
    /// While Some ([`hold`](Self::hold)), each routed block's communication is held as the rows its task
    /// takes instead of written to its file (no encoding, spill copy or decoding); past `hold_cap` bytes
    /// every block's goes to its file ([`spill_held`](Self::spill_held)) and the rest follows it there.
    held: Option<Vec<Mutex<HeldBlock>>>,
    held_bytes: u64,
    hold_cap: u64,
    pub tally: CommTally,
    pub messages: u64,
    pub flows: u64,
    pub collective_rows: u64,
    pub collective_operations: u64,
    /// The earliest time of a message (send or receive) or a collective row (start), source clock; and the
    /// latest (receive, send, end), ns from the origin.
    pub min_ns: i64,
    pub max_ns: u64,
    /// Bytes written to the spill.
    pub bytes: u64,
}

impl CommSpill {
    /// For `locations` in blocks of `block_locations`, writing the files of blocks `routed` only; the
    /// spill's keys from `first_key` on are free; up to `share` bytes of messages are sorted in memory
    /// before a run is written, and a page of a block's file is at most `share` over the blocks.
    pub fn new(locations: u32, block_locations: u32, routed: Range<u32>, first_key: usize, share: u64) -> CommSpill {
        let bl = block_locations.max(1);
        let blocks = locations.div_ceil(bl);
        let routed = routed.start.min(blocks)..routed.end.min(blocks);
        let page = (share / (2 * routed.len().max(1) as u64)).clamp(1 << 10, PAGE_BYTES as u64) as usize;
        let mut keys = Keys(first_key);
        let files =
            (0..blocks).map(|b| (if routed.contains(&b) { keys.take() } else { usize::MAX }, Vec::new())).collect();
        CommSpill {
            block_locations: bl,
            routed,
            files,
            records: vec![(0, 0); blocks as usize],
            received: vec![0; blocks as usize],
            page,
            keys,
            buffer: Vec::new(),
            // The buffer and the stable sort's scratch (half the buffer) within the share.
            buffer_cap: (share as usize * 2 / (3 * std::mem::size_of::<RawMessage>())).max(1),
            in_receive_order: false,
            runs: Runs::new(PAGE_BYTES),
            held: None,
            held_bytes: 0,
            hold_cap: 0,
            tally: CommTally::new(locations as usize),
            messages: 0,
            flows: 0,
            collective_rows: 0,
            collective_operations: 0,
            min_ns: i64::MAX,
            max_ns: 0,
            bytes: 0,
        }
    }

    /// Bytes held in memory now (the sort buffer and the blocks' pages).
    pub fn held(&self) -> u64 {
        let rows = self
            .held
            .as_ref()
            .map_or(0, |h| h.iter().map(|b| b.lock().unwrap_or_else(PoisonError::into_inner).bytes()).sum::<usize>());
        (self.buffer.capacity() * size_of::<RawMessage>()
            + self.files.iter().map(|f| f.1.capacity()).sum::<usize>()
            + rows
            + self.tally.sent.len() * 32) as u64
    }

    /// Hold each routed block's communication as rows (before any is put), up to `cap` bytes of them.
    pub fn hold(&mut self, cap: u64) {
        debug_assert!(self.messages == 0 && self.collective_rows == 0, "held from the start");
        let (bl, n) = (self.block_locations, self.tally.sent.len() as u32);
        let blocks = (0..self.files.len() as u32).map(|b| {
            let locations = if self.routed.contains(&b) { (b * bl..((b + 1) * bl).min(n)).len() } else { 0 };
            let comms = BlockComms { ends: vec![Vec::new(); locations], ..Default::default() };
            Mutex::new(HeldBlock { comms, received: Vec::new() })
        });
        self.held = Some(blocks.collect());
        self.hold_cap = cap;
    }

    /// Whether the blocks' communication is held as rows (not in their files).
    pub fn holds(&self) -> bool {
        self.held.is_some()
    }

    /// Every block's held communication to its file (its page, then the spill), in its file's records:
    /// collective rows, sent messages, receive ends of other blocks' messages (each kind in the order put;
    /// the ends of a location, which the summaries add up in any order, may come in another), and what is
    /// put from now on after them.
    pub fn spill_held(&mut self, spill: &mut dyn Spill) -> Result<(), String> {
        let Some(held) = self.held.take() else { return Ok(()) };
        self.held_bytes = 0;
        for (b, h) in held.into_iter().enumerate() {
            let h = h.into_inner().unwrap_or_else(PoisonError::into_inner);
            if !self.routed.contains(&(b as u32)) {
                continue;
            }
            for c in &h.comms.collectives {
                self.files[b].1.extend_from_slice(&row_record(c));
                self.flush(b as u32, spill)?;
            }
            drop(h.comms.ends);
            for m in &h.comms.messages {
                self.files[b].1.extend_from_slice(&sent_record(m));
                self.flush(b as u32, spill)?;
            }
            for &(l, ns, bytes) in &h.received {
                self.files[b].1.extend_from_slice(&end_record(l, ns, bytes));
                self.flush(b as u32, spill)?;
            }
        }
        Ok(())
    }

    /// Room in the held blocks for the messages to come, `(sender, receiver)` each (all of them, before the
    /// first is put): each list allocated once at its size rather than doubled step by step.
    fn reserve_held(&mut self, messages: impl Iterator<Item = (u32, u32)>) {
        let (bl, n) = (self.block_locations, self.tally.sent.len() as u32);
        let Some(held) = &mut self.held else { return };
        let (mut sent, mut received, mut ends) =
            (vec![0usize; held.len()], vec![0usize; held.len()], vec![0; n as usize]);
        for (from, to) in messages.filter(|&(from, to)| from < n && to < n) {
            let (s, r) = ((from / bl) as usize, (to / bl) as usize);
            sent[s] += 1;
            ends[from as usize] += 1;
            ends[to as usize] += 1;
            received[r] += (r != s) as usize;
        }
        for (b, h) in held.iter_mut().enumerate().filter(|(b, _)| self.routed.contains(&(*b as u32))) {
            let h = h.get_mut().unwrap_or_else(PoisonError::into_inner);
            h.comms.messages.reserve_exact(sent[b]);
            h.received.reserve_exact(received[b]);
            let first = b * bl as usize;
            for (k, e) in h.comms.ends.iter_mut().enumerate() {
                e.reserve_exact(ends[first + k]);
            }
        }
    }

    /// Past the cap, the held rows to the files.
    fn check_held(&mut self, spill: &mut dyn Spill) -> Result<(), String> {
        match self.held_bytes > self.hold_cap {
            true => self.spill_held(spill),
            false => Ok(()),
        }
    }

    /// The bytes block `b`'s task holds of its communication: while [`block`](Self::block) reads its file
    /// (the file and the rows), and after (the rows). Exact up to the allocator's rounding: the file is read
    /// whole, and each list is allocated once at its size.
    pub fn block_bytes(&self, b: usize) -> BlockCommBytes {
        if self.held.is_some() {
            // Held already (counted by `held`): the task takes them as they are.
            return BlockCommBytes::default();
        }
        let (m, c) = self.records.get(b).copied().unwrap_or((0, 0));
        let r = self.received.get(b).copied().unwrap_or(0);
        let s = m - r;
        // A sent message: its row and its ends (the send's, and the receive's when the receiver is in the
        // block: counted for every one, so at most 16 bytes a message over); a receive end; a collective row.
        let (row, end, coll) =
            (size_of::<MessageRow>() as u64, size_of::<(u64, u64)>() as u64, size_of::<CollectiveRow>() as u64);
        let held = s * (row + 2 * end) + r * end + c * coll;
        let file = s * SENT_BYTES as u64 + r * END_BYTES as u64 + c * ROW_BYTES as u64;
        BlockCommBytes { reading: file + held, held }
    }

    /// The buffer in the trace's order, by the sort that suits the order the messages come in
    /// ([`in_receive_order`](Self::in_receive_order)).
    fn sort_buffer(&mut self) {
        match self.in_receive_order {
            true => self.buffer.sort(),
            false => self.buffer.sort_unstable(),
        }
    }

    /// Room for `n` matched messages to come (at most the buffer's cap): the buffer allocated once at its
    /// size rather than doubled step by step.
    pub fn expect_messages(&mut self, n: u64) {
        let n = (n as usize).min(self.buffer_cap);
        self.buffer.reserve_exact(n.saturating_sub(self.buffer.len()));
    }

    /// A matched message (any order; [`finish_messages`](Self::finish_messages) puts them in the trace's).
    pub fn message(&mut self, m: RawMessage, spill: &mut dyn Spill) -> Result<(), String> {
        self.min_ns = self.min_ns.min(m.send_ns).min(m.recv_ns);
        self.buffer.push(m);
        if self.buffer.len() >= self.buffer_cap {
            self.sort_buffer();
            self.runs.write(&self.buffer, spill, &mut self.keys)?;
            self.buffer.clear();
        }
        Ok(())
    }

    /// The messages handed over, in the trace's order, numbered and put in their blocks' files, times made
    /// relative to `origin` as the builder makes them.
    pub fn finish_messages(&mut self, origin: i64, spill: &mut dyn Spill) -> Result<(), String> {
        let row = |i: u64, m: &RawMessage| m.row(i, origin);
        let mut i = 0u64;
        match self.sorted(spill)? {
            Sorted::Memory(all) => {
                self.reserve_held(all.iter().map(|m| (m.sender, m.receiver)));
                for m in all {
                    self.put_message(&row(i, &m), spill)?;
                    i += 1;
                }
            }
            Sorted::Runs(runs) => {
                // Every run merged: read through the spill while the block files are appended to it, under
                // keys of their own.
                let mut merge = runs.merge::<RawMessage>();
                while let Some(m) = merge.next(&*spill)? {
                    self.put_message(&row(i, &m), spill)?;
                    i += 1;
                }
            }
        }
        Ok(())
    }

    /// The messages handed over, in the trace's order, not numbered: sorted in memory, or (past the
    /// buffer) the last run written and every run to merge. What is left to do is the caller's
    /// (`message_sort`: a shard's share, numbered with the other shards').
    pub(super) fn sorted(&mut self, spill: &mut dyn Spill) -> Result<Sorted, String> {
        self.sort_buffer();
        if self.runs.is_empty() {
            return Ok(Sorted::Memory(std::mem::take(&mut self.buffer)));
        }
        let mut runs = std::mem::take(&mut self.runs);
        runs.write(&self.buffer, spill, &mut self.keys)?;
        self.buffer = Vec::new();
        self.bytes += runs.bytes;
        Ok(Sorted::Runs(runs))
    }

    /// Locations a block holds, and the blocks.
    pub(super) fn blocks(&self) -> (u32, u32) {
        (self.block_locations, self.files.len() as u32)
    }

    /// The trace's message count, flows and latest message time (ns from the origin), when this spill
    /// was handed only some of them (a shard's, `message_sort`): what the manifest counts.
    pub(super) fn set_message_totals(&mut self, messages: u64, flows: u64, max_ns: u64) {
        self.messages = messages;
        self.flows = flows;
        self.max_ns = self.max_ns.max(max_ns);
    }

    /// A message in the trace's order (its index the caller's), times from the origin: to its blocks' files.
    pub fn put_message(&mut self, m: &MessageRow, spill: &mut dyn Spill) -> Result<(), String> {
        self.messages += 1;
        self.flows += (m.kind == MessageKind::Flow) as u64;
        self.max_ns = self.max_ns.max(m.send_ns).max(m.recv_ns);
        self.tally.message(m);
        let (sender, receiver) = (m.sender.0, m.receiver.0);
        let (s, r) = (sender / self.block_locations, receiver / self.block_locations);
        let n = self.tally.sent.len() as u32;
        if self.held.is_some() && (sender >= n || receiver >= n) {
            // A location past the trace's: to the files, whose reading reports it.
            self.spill_held(spill)?;
        }
        if let Some(held) = &mut self.held {
            // As the file's records would have it: the message and its ends with its sender's block, its
            // receive end with the receiver's when that is another.
            let bl = self.block_locations;
            if self.routed.contains(&s) {
                let h = held[s as usize].get_mut().unwrap_or_else(PoisonError::into_inner);
                h.comms.messages.push(*m);
                h.comms.ends[(sender - s * bl) as usize].push((m.send_ns, m.size_bytes));
                if r == s {
                    h.comms.ends[(receiver - s * bl) as usize].push((m.recv_ns, m.size_bytes));
                }
                self.records[s as usize].0 += 1;
                self.held_bytes += (size_of::<MessageRow>() + 2 * size_of::<(u64, u64)>()) as u64;
            }
            if r != s && self.routed.contains(&r) {
                let h = held[r as usize].get_mut().unwrap_or_else(PoisonError::into_inner);
                h.comms.ends[(receiver - r * bl) as usize].push((m.recv_ns, m.size_bytes));
                h.received.push((receiver, m.recv_ns, m.size_bytes));
                self.records[r as usize].0 += 1;
                self.received[r as usize] += 1;
                self.held_bytes += (size_of::<(u64, u64)>() + size_of::<(u32, u64, u64)>()) as u64;
            }
            return self.check_held(spill);
        }
        if let Some(f) = self.file(s) {
            f.extend_from_slice(&sent_record(m));
            self.records[s as usize].0 += 1;
            self.flush(s, spill)?;
        }
        if r != s {
            if let Some(f) = self.file(r) {
                f.extend_from_slice(&end_record(receiver, m.recv_ns, m.size_bytes));
                self.records[r as usize].0 += 1;
                self.received[r as usize] += 1;
                self.flush(r, spill)?;
            }
        }
        Ok(())
    }

    /// A collective row, in the trace's order (its index is the caller's), times from the origin.
    pub fn collective(&mut self, c: &CollectiveRow, spill: &mut dyn Spill) -> Result<(), String> {
        self.collective_rows += 1;
        self.collective_operations = self.collective_operations.max(c.operation as u64 + 1);
        self.max_ns = self.max_ns.max(c.end_ns);
        self.tally.collective(c);
        let b = c.location.0 / self.block_locations;
        if let Some(held) = &mut self.held {
            if self.routed.contains(&b) {
                held[b as usize].get_mut().unwrap_or_else(PoisonError::into_inner).comms.collectives.push(*c);
                self.records[b as usize].1 += 1;
                self.held_bytes += size_of::<CollectiveRow>() as u64;
            }
            return self.check_held(spill);
        }
        if let Some(f) = self.file(b) {
            f.extend_from_slice(&row_record(c));
            self.records[b as usize].1 += 1;
            self.flush(b, spill)?;
        }
        Ok(())
    }

    /// An empty [`CollectiveLists`] for this spill's blocks: rows gathered apart (on a thread of their own
    /// while another puts the messages), then given over by [`add_collectives`](Self::add_collectives).
    pub fn collective_lists(&self) -> CollectiveLists {
        let blocks = self.files.len();
        CollectiveLists {
            block_locations: self.block_locations,
            routed: self.routed.clone(),
            lists: vec![Vec::new(); blocks],
            tally: CommTally::new(self.tally.sent.len()),
            rows: 0,
            operations: 0,
            max_ns: 0,
        }
    }

    /// The collective rows gathered apart, as [`collective`](Self::collective) would have put each (held,
    /// or appended to its block's file after what is there: each kind keeps its order).
    pub fn add_collectives(&mut self, l: CollectiveLists, spill: &mut dyn Spill) -> Result<(), String> {
        self.collective_rows += l.rows;
        self.collective_operations = self.collective_operations.max(l.operations);
        self.max_ns = self.max_ns.max(l.max_ns);
        for (k, (rows, operations)) in l.tally.rows.iter().zip(&l.tally.operations).enumerate() {
            self.tally.rows[k] += rows;
            self.tally.operations[k] = self.tally.operations[k].max(*operations);
        }
        for (b, list) in l.lists.into_iter().enumerate().filter(|(_, list)| !list.is_empty()) {
            self.records[b].1 += list.len() as u64;
            if let Some(held) = &mut self.held {
                self.held_bytes += (list.len() * size_of::<CollectiveRow>()) as u64;
                let h = held[b].get_mut().unwrap_or_else(PoisonError::into_inner);
                match h.comms.collectives.is_empty() {
                    true => h.comms.collectives = list,
                    false => h.comms.collectives.extend(list),
                }
                continue;
            }
            for c in &list {
                self.files[b].1.extend_from_slice(&row_record(c));
                self.flush(b as u32, spill)?;
            }
        }
        self.check_held(spill)
    }

    /// Note a collective row's start (source clock) for the origin, before the rows are handed over.
    pub fn note_start(&mut self, start_ns: i64) {
        self.min_ns = self.min_ns.min(start_ns);
    }

    fn file(&mut self, b: u32) -> Option<&mut Vec<u8>> {
        match self.routed.contains(&b) {
            true => self.files.get_mut(b as usize).map(|f| &mut f.1),
            false => None,
        }
    }

    fn flush(&mut self, b: u32, spill: &mut dyn Spill) -> Result<(), String> {
        let (key, buf) = &mut self.files[b as usize];
        if buf.len() >= self.page {
            spill.put(*key, buf)?;
            self.bytes += buf.len() as u64;
            buf.clear();
        }
        Ok(())
    }

    /// Every block's last page to the spill (and their buffers dropped).
    pub fn close(&mut self, spill: &mut dyn Spill) -> Result<(), String> {
        for (key, buf) in &mut self.files {
            if !buf.is_empty() {
                spill.put(*key, buf)?;
                self.bytes += buf.len() as u64;
            }
            *buf = Vec::new();
        }
        Ok(())
    }

    /// Block `b`'s communication read back from its file (locations `locs`).
    pub fn block(&self, b: u32, locs: Range<u32>, spill: &dyn Spill) -> Result<BlockComms, String> {
        self.block_from(b, locs, &mut |key| spill.get(key), 1)
    }

    /// As [`block`](Self::block), the file taken out of the spill (read once: a spill in memory hands its
    /// bytes over instead of copying them, and holds them no more); with `threads` 2 or more the locations'
    /// ends are read on a second thread beside the messages and collective rows (the same lists).
    pub fn take_block(
        &self,
        b: u32,
        locs: Range<u32>,
        take: &mut dyn FnMut(usize) -> Result<Vec<u8>, String>,
        threads: usize,
    ) -> Result<BlockComms, String> {
        self.block_from(b, locs, take, threads)
    }

    fn block_from(
        &self,
        b: u32,
        locs: Range<u32>,
        read: &mut dyn FnMut(usize) -> Result<Vec<u8>, String>,
        threads: usize,
    ) -> Result<BlockComms, String> {
        let Some(&(key, _)) = self.files.get(b as usize).filter(|f| f.0 != usize::MAX) else {
            return Ok(BlockComms { ends: vec![Vec::new(); locs.len()], ..Default::default() });
        };
        let (m, c) = self.records[b as usize];
        if let Some(held) = &self.held {
            // Taken once, by the block's task.
            let h = std::mem::take(&mut *held[b as usize].lock().unwrap_or_else(PoisonError::into_inner));
            let k = &h.comms;
            if ((k.messages.len() + h.received.len()) as u64, k.collectives.len() as u64) != (m, c)
                || k.ends.len() != locs.len()
            {
                return Err(format!("the messages held for block {b} were taken already, or are not all there"));
            }
            return Ok(h.comms);
        }
        let sent = (m - self.received[b as usize]) as usize;
        let bytes = read(key)?;
        // Walks of the file, each its own list: the messages, the collective rows, the locations' ends (the
        // last two on a second thread when there is one: about as many bytes to fill as the messages).
        let (messages, rest) = match threads {
            0 | 1 => (file_messages(&bytes, sent), (file_collectives(&bytes, c as usize), file_ends(&bytes, &locs))),
            _ => std::thread::scope(|s| {
                let rest = s.spawn(|| (file_collectives(&bytes, c as usize), file_ends(&bytes, &locs)));
                let messages = file_messages(&bytes, sent);
                (messages, rest.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            }),
        };
        // The first damage in the file, whichever walk met it.
        let damage = [messages.as_ref().err(), rest.0.as_ref().err(), rest.1.as_ref().err()];
        if let Some(at) = damage.into_iter().flatten().min() {
            return Err(format!("the spilled messages of block {b} are damaged at byte {at}"));
        }
        let ((messages, received), collectives, ends) =
            (messages.expect("checked"), rest.0.expect("checked"), rest.1.expect("checked"));
        if (messages.len() as u64 + received, collectives.len() as u64) != (m, c) {
            return Err(format!("the spilled messages of block {b} are cut short"));
        }
        Ok(BlockComms { messages, collectives, ends })
    }

    /// Block `b`'s file as a [`CommPiece`] (None when this index does not write it).
    pub fn block_piece(&self, b: u32) -> Option<CommPiece> {
        let &(key, _) = self.files.get(b as usize).filter(|f| f.0 != usize::MAX)?;
        let (records, rows) = self.records[b as usize];
        Some(CommPiece { key, records, rows })
    }

    /// Block `b`'s file (`whole`) cut in one piece per range of `ranges` (consecutive ranges of `t`'s windows
    /// from the first): each record, in order, in the pieces of every range its times reach from the first to
    /// the last ([`block_windows`](Self::block_windows) picks a range's exactly), so that a block tiled by
    /// time range reads its file once more, not once a range. Pages of `page` bytes go to `put` under keys
    /// from `key`.
    #[allow(clippy::too_many_arguments)]
    pub fn split_block(
        whole: CommPiece,
        b: u32,
        t: &weft_store::format::manifest::Tiling,
        ranges: &[Range<u32>],
        fetch: Fetch,
        page: usize,
        key: &mut dyn FnMut() -> Result<usize, String>,
        put: &mut PutPage,
    ) -> Result<Vec<CommPiece>, String> {
        let mut range_of = vec![0u32; t.windows as usize];
        for (i, r) in ranges.iter().enumerate() {
            range_of[r.start as usize..r.end as usize].fill(i as u32);
        }
        let mut pieces = Vec::with_capacity(ranges.len());
        for _ in ranges {
            pieces.push(CommPiece { key: key()?, records: 0, rows: 0 });
        }
        let mut pages: Vec<Vec<u8>> = vec![Vec::new(); ranges.len()];
        let mut err = None;
        let span = |a: u64, z: u64| {
            let (a, z) = (range_of[t.window_of(a) as usize], range_of[t.window_of(z) as usize]);
            a.min(z) as usize..=a.max(z) as usize
        };
        each_record(whole, b, fetch, &mut |record| {
            let (reach, row) = match record[0] {
                0 => (span(u64_at(record, 18), u64_at(record, 26)), false),
                1 => (span(u64_at(record, 5), u64_at(record, 5)), false),
                _ => (span(u64_at(record, 29), u64_at(record, 37)), true),
            };
            for i in reach {
                let (p, piece) = (&mut pages[i], &mut pieces[i]);
                p.extend_from_slice(record);
                if row {
                    piece.rows += 1;
                } else {
                    piece.records += 1;
                }
                if p.len() >= page {
                    if let Err(e) = put(piece.key, p) {
                        err.get_or_insert(e);
                    }
                    p.clear();
                }
            }
            Ok(())
        })?;
        if let Some(e) = err {
            return Err(e);
        }
        for (p, piece) in pages.iter().zip(&pieces) {
            if !p.is_empty() {
                put(piece.key, p)?;
            }
        }
        Ok(pieces)
    }

    /// Block `b`'s communication that the windows `windows` of `t` need, read through `piece` (its file, or
    /// the piece [`split_block`](Self::split_block) cut for the range) a part at a time (a block tiled by time
    /// range, `ranged`): the messages sent in those windows or still in flight at their first one's start,
    /// the collective rows starting in them or still running then (each in the file's order, as
    /// [`block`](Self::block) lists them), and the message ends falling in them.
    pub fn block_windows(
        piece: Option<CommPiece>,
        b: u32,
        locs: Range<u32>,
        fetch: Fetch,
        t: &weft_store::format::manifest::Tiling,
        windows: Range<u32>,
    ) -> Result<BlockComms, String> {
        let mut out = BlockComms { ends: vec![Vec::new(); locs.len()], ..Default::default() };
        let Some(piece) = piece else { return Ok(out) };
        let within = |ns: u64| windows.contains(&t.window_of(ns));
        // Reaches into the range: starts in it, or before it and lasts into it.
        let reaches = |from: u64, to: u64| {
            let w = t.window_of(from);
            windows.contains(&w) || (w < windows.start && t.window_of(to) >= windows.start)
        };
        let mut end = |l: u32, ns: u64, bytes: u64| -> Result<(), ()> {
            let k = l.checked_sub(locs.start).filter(|&k| (k as usize) < out.ends.len()).ok_or(())?;
            if within(ns) {
                out.ends[k as usize].push((ns, bytes));
            }
            Ok(())
        };
        let (mut messages, mut collectives) = (Vec::new(), Vec::new());
        each_record(piece, b, fetch, &mut |record| match record[0] {
            0 => {
                let msg = sent_row(&record[1..]);
                end(msg.sender.0, msg.send_ns, msg.size_bytes)?;
                if locs.contains(&msg.receiver.0) {
                    end(msg.receiver.0, msg.recv_ns, msg.size_bytes)?;
                }
                if reaches(msg.send_ns, msg.recv_ns) {
                    messages.push(msg);
                }
                Ok(())
            }
            1 => end(u32_at(record, 1), u64_at(record, 5), u64_at(record, 13)),
            _ => {
                let row = collective_file_row(&record[1..]);
                if reaches(row.start_ns, row.end_ns) {
                    collectives.push(row);
                }
                Ok(())
            }
        })?;
        (out.messages, out.collectives) = (messages, collectives);
        Ok(out)
    }

    /// The manifest's counts of messages, flows, collective rows and operations: these.
    pub fn count(&self, c: &mut weft_store::format::manifest::Counts) {
        c.messages = self.messages;
        c.flows = self.flows;
        c.collective_rows = self.collective_rows;
        c.collective_operations = self.collective_operations;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spill::MemorySpill;

    fn message(send_ns: i64, recv_ns: i64, nth: u64, sender: u32, receiver: u32) -> RawMessage {
        RawMessage {
            send_ns,
            recv_ns,
            nth,
            sender,
            receiver,
            size_bytes: nth * 10,
            tag: 7,
            name: 1,
            kind: 0,
            posted_ns: recv_ns,
        }
    }

    /// Messages handed over in any order come back from the blocks' files in the trace's order (send, receive,
    /// receive order), each sent one with its sender's block and each end with its location's, whether
    /// they were sorted in memory or in runs of one or two messages; a damaged file is an error, not a panic.
    #[test]
    fn blocks_read_back_the_messages_in_the_trace_order() {
        // Four locations in blocks of two; receive numbers give the order among equal times.
        let given = [
            message(50, 60, 3, 0, 3),
            message(10, 20, 1, 2, 1),
            message(10, 20, 0, 3, 0),
            message(5, 90, 2, 1, 1),
            message(10, 15, 4, 0, 2),
        ];
        for share in [1 << 20, 60, 120] {
            let mut spill = MemorySpill::default();
            let mut c = CommSpill::new(4, 2, 0..2, 4, share);
            for m in given {
                c.message(m, &mut spill).unwrap();
            }
            assert_eq!(c.runs.is_empty(), share == 1 << 20, "share {share}");
            c.finish_messages(5, &mut spill).unwrap();
            let row = CollectiveRow {
                index: 0,
                operation: 2,
                location: LocationId(3),
                start_ns: 1,
                end_ns: 4,
                ..Default::default()
            };
            c.collective(&row, &mut spill).unwrap();
            c.close(&mut spill).unwrap();
            // The trace's order: (5, 90, 2), (10, 15, 4), (10, 20, 0), (10, 20, 1), (50, 60, 3); times from 5.
            let b0 = c.block(0, 0..2, &spill).unwrap();
            let sent: Vec<(u64, u32, u64)> = b0.messages.iter().map(|m| (m.index, m.sender.0, m.send_ns)).collect();
            assert_eq!(sent, vec![(0, 1, 0), (1, 0, 5), (4, 0, 45)], "share {share}");
            assert_eq!(b0.ends, vec![vec![(5, 40), (15, 0), (45, 30)], vec![(0, 20), (85, 20), (15, 10)]]);
            let b1 = c.block(1, 2..4, &spill).unwrap();
            let sent: Vec<(u64, u32)> = b1.messages.iter().map(|m| (m.index, m.sender.0)).collect();
            assert_eq!(sent, vec![(2, 3), (3, 2)], "share {share}");
            assert_eq!(b1.collectives, vec![row]);
            assert_eq!((c.messages, c.collective_rows, c.collective_operations, c.max_ns), (5, 1, 3, 85));
            assert_eq!(c.tally.sent, vec![2, 1, 1, 1]);
            // Read on two threads, the same lists.
            for (b, locs) in [(0, 0..2), (1, 2..4)] {
                let key = c.files[b as usize].0;
                let two = c.take_block(b, locs.clone(), &mut |k| Ok(spill.parts[k].clone()), 2).unwrap();
                let one = c.block(b, locs, &spill).unwrap();
                assert_eq!((two.messages, two.collectives, two.ends), (one.messages, one.collectives, one.ends));
                assert!(!spill.parts[key].is_empty());
            }
            // Cut anywhere, or a byte changed, the file is refused, with the same message on two threads.
            let key = c.files[1].0;
            let whole = spill.parts[key].clone();
            let read = |c: &CommSpill, bytes: &[u8], threads| {
                c.take_block(1, 2..4, &mut |_| Ok(bytes.to_vec()), threads).err()
            };
            for cut in 1..whole.len() {
                spill.parts[key] = whole[..cut].to_vec();
                assert!(c.block(1, 2..4, &spill).is_err(), "cut at {cut}");
                assert_eq!(read(&c, &whole[..cut], 2), read(&c, &whole[..cut], 1), "cut at {cut}");
            }
            for at in 0..whole.len() {
                let mut bad = whole.clone();
                bad[at] = 0xee;
                assert_eq!(read(&c, &bad, 2), read(&c, &bad, 1), "byte {at} changed");
            }
            let mut outside = whole.clone();
            // The first record's location (a receive end's, or a sent message's sender) out of the block.
            outside[1..5].copy_from_slice(&9u32.to_le_bytes());
            outside[10..14].copy_from_slice(&9u32.to_le_bytes());
            let e = read(&c, &outside, 2);
            assert!(e.as_deref().is_some_and(|e| e.contains("damaged at byte 0")), "{e:?}");
            assert_eq!(e, read(&c, &outside, 1));
        }
    }

    /// Held as rows, the blocks' communication is what their files give: the same messages and collective
    /// rows in the same order, the same ends (in the order put while held whole; the same ends, in any order,
    /// once the rows passed their cap midway or went to the files at the end); a block is taken once.
    #[test]
    fn held_rows_give_what_the_files_give() {
        // Seven locations in blocks of three (the last of one), messages between any two, collective rows.
        let mut rng = weft_samples::rng::XorShift(0x9e37_79b9_7f4a_7c15);
        let mut next = |m: u64| rng.below(m);
        let given: Vec<RawMessage> = (0..300)
            .map(|i| {
                let send = next(1000) as i64;
                message(send, send + next(50) as i64, i, next(7) as u32, next(7) as u32)
            })
            .collect();
        let rows: Vec<CollectiveRow> = (0..40)
            .map(|i| CollectiveRow {
                index: i,
                operation: i as u32 / 7,
                location: LocationId(next(7) as u32),
                start_ns: i * 20,
                end_ns: i * 20 + next(30),
                bytes_sent: i,
                ..Default::default()
            })
            .collect();
        // Collective rows first, then the messages (as an OTF2 index hands them over), or the rows gathered
        // apart while the messages are put and added after them (`apart`); `hold`: the cap, and whether the
        // rows go to the files at the end.
        let index_with = |hold: Option<(u64, bool)>, apart: bool| {
            let mut spill = MemorySpill::default();
            let mut c = CommSpill::new(7, 3, 0..3, 0, 1 << 20);
            if let Some((cap, _)) = hold {
                c.hold(cap);
            }
            let mut lists = c.collective_lists();
            for r in &rows {
                match apart {
                    true => lists.push(*r),
                    false => c.collective(r, &mut spill).unwrap(),
                }
            }
            for m in &given {
                c.message(*m, &mut spill).unwrap();
            }
            c.finish_messages(0, &mut spill).unwrap();
            if apart {
                c.add_collectives(lists, &mut spill).unwrap();
            }
            if hold.is_some_and(|h| h.1) {
                c.spill_held(&mut spill).unwrap();
            }
            c.close(&mut spill).unwrap();
            let blocks: Vec<BlockComms> =
                (0..3).map(|b| c.block(b, b * 3..(b * 3 + 3).min(7), &spill).unwrap()).collect();
            let counts = (c.collective_rows, c.collective_operations, c.max_ns, c.tally.rows.clone());
            assert_eq!(counts.3.iter().sum::<u64>(), rows.len() as u64);
            (c, spill, blocks, counts)
        };
        let index = |hold| index_with(hold, false);
        let sorted = |k: &BlockComms| {
            k.ends.iter().map(|e| e.iter().copied().collect::<std::collections::BTreeSet<_>>()).collect::<Vec<_>>()
        };
        let (_, _, files, counts) = index(None);
        assert!(files.iter().all(|k| !k.messages.is_empty() && !k.collectives.is_empty()));
        // Gathered apart, the same blocks and counts, held or in the files.
        for hold in [None, Some((u64::MAX, false)), Some((u64::MAX, true)), Some((0, false)), Some((20_000, false))] {
            let (_, _, apart, apart_counts) = index_with(hold, true);
            assert_eq!(apart_counts, counts, "{hold:?}");
            for (b, (f, a)) in files.iter().zip(&apart).enumerate() {
                assert_eq!((&f.messages, &f.collectives), (&a.messages, &a.collectives), "block {b}, {hold:?}");
                assert_eq!(sorted(f), sorted(a), "block {b}, {hold:?}");
            }
        }
        for hold in [(u64::MAX, false), (u64::MAX, true), (0, false), (2_000, false), (20_000, false), (20_000, true)] {
            let (c, spill, held, _) = index(Some(hold));
            // Held whole to the end: nothing in the files.
            assert_eq!(spill.parts.iter().all(Vec::is_empty), hold == (u64::MAX, false), "{hold:?}");
            // (20,000 bytes pass midway through the messages, 2,000 midway through the collective rows.)
            assert_eq!(c.holds(), hold == (u64::MAX, false), "{hold:?}");
            for (b, (f, h)) in files.iter().zip(&held).enumerate() {
                assert_eq!((&f.messages, &f.collectives), (&h.messages, &h.collectives), "block {b}, {hold:?}");
                assert_eq!(sorted(f), sorted(h), "block {b}, {hold:?}");
                if hold == (u64::MAX, false) {
                    assert_eq!(f.ends, h.ends, "block {b}: the ends in the order put");
                }
            }
            if c.holds() {
                let again = c.block(1, 3..6, &spill).err();
                assert!(again.as_deref().is_some_and(|e| e.contains("taken already")), "{again:?}");
            }
        }
    }

    /// A block's file cut in a piece per range of windows gives each range what the whole file gives it: the
    /// messages sent in or in flight into the range, the collective rows running into it, the ends in it;
    /// every end once over the ranges; a piece cut short is refused.
    #[test]
    fn a_block_file_split_by_range_gives_each_range_its_records() {
        use weft_store::format::manifest::Tiling;
        let mut spill = MemorySpill::default();
        let mut c = CommSpill::new(2, 2, 0..1, 2, 1 << 20);
        // Times from origin 0; windows of 10 ns: a message in flight over windows 1..=6, others short.
        for m in [message(5, 8, 0, 0, 1), message(12, 65, 1, 1, 0), message(31, 33, 2, 0, 1), message(70, 71, 3, 1, 1)]
        {
            c.message(m, &mut spill).unwrap();
        }
        c.finish_messages(0, &mut spill).unwrap();
        for (i, (s, e)) in [(2u64, 9u64), (25, 45), (50, 52)].into_iter().enumerate() {
            let row = CollectiveRow {
                index: i as u64,
                location: LocationId((i % 2) as u32),
                start_ns: s,
                end_ns: e,
                ..Default::default()
            };
            c.collective(&row, &mut spill).unwrap();
        }
        c.close(&mut spill).unwrap();
        let t = Tiling { block_locations: 2, blocks: 1, window_ns: 10, windows: 8, bins_per_tile: 1, block_series: 2 };
        let ranges = [0..2, 2..3, 3..6, 6..8];
        let whole = c.block_piece(0).unwrap();
        let mut next = 100;
        let mut key = || -> Result<usize, String> {
            next += 1;
            Ok(next)
        };
        let pieces = {
            let written = std::cell::RefCell::new(Vec::<(usize, Vec<u8>)>::new());
            let fetch = |k: usize, at: u64, max: usize| spill.get_from(k, at, max);
            let mut put = |k: usize, b: &[u8]| -> Result<(), String> {
                written.borrow_mut().push((k, b.to_vec()));
                Ok(())
            };
            let p = CommSpill::split_block(whole, 0, &t, &ranges, &fetch, 64, &mut key, &mut put).unwrap();
            for (k, b) in written.into_inner() {
                spill.put(k, &b).unwrap();
            }
            p
        };
        let fetch = |k: usize, at: u64, max: usize| spill.get_from(k, at, max);
        let mut ends = 0;
        for (n, r) in ranges.iter().enumerate() {
            let from_whole = CommSpill::block_windows(Some(whole), 0, 0..2, &fetch, &t, r.clone()).unwrap();
            let from_piece = CommSpill::block_windows(Some(pieces[n]), 0, 0..2, &fetch, &t, r.clone()).unwrap();
            assert_eq!(from_piece.messages, from_whole.messages, "range {r:?}");
            assert_eq!(from_piece.collectives, from_whole.collectives, "range {r:?}");
            assert_eq!(from_piece.ends, from_whole.ends, "range {r:?}");
            ends += from_piece.ends.iter().map(Vec::len).sum::<usize>();
        }
        // Range 3..6 (30-59 ns): message 2 sent there, message 1 in flight; rows 1 and 2.
        let mid = CommSpill::block_windows(Some(pieces[2]), 0, 0..2, &fetch, &t, 3..6).unwrap();
        assert_eq!(mid.messages.iter().map(|m| m.index).collect::<Vec<_>>(), vec![1, 2]);
        assert_eq!(mid.collectives.iter().map(|r| r.index).collect::<Vec<_>>(), vec![1, 2]);
        assert_eq!(ends, 8, "every message's two ends once");
        let key = pieces[2].key;
        let full = spill.parts[key].clone();
        spill.parts[key] = full[..full.len() - 1].to_vec();
        let fetch = |k: usize, at: u64, max: usize| spill.get_from(k, at, max);
        assert!(CommSpill::block_windows(Some(pieces[2]), 0, 0..2, &fetch, &t, 3..6).is_err());
    }
}
