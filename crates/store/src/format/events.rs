//! The level-0 tile (`e/b{B}/w{W}`): a location block's exact records started in one time window (intervals,
//! instants, messages, collective rows), then those of earlier windows still open at its start, so a view of
//! the window needs no tile before it. Both sides of the codec: [`encode_events`] (the index cuts a block's
//! records into what each tile holds, an [`EventsSelection`], and hands it here) and [`decode_events`], whose
//! every count and id is checked against the manifest, so damaged bytes are an error, never a panic.
//!
//! [`MessageRow`] and [`CollectiveRow`] are the one record of a message and of a collective row between the
//! index (which sorts, spills and routes them) and a tile.

use crate::format::columns::{deltas, undelta, ColumnError, ColumnReader, ColumnWriter};
use crate::format::manifest::{Manifest, Tiling};
use std::cmp::Ordering;
use std::ops::Range;
use weft_model::{Collectives, Instants, LocationId, MessageKind, Messages, RegionId, StringId, Trace};

/// A message as a level-0 tile holds it: its trace index, times from the origin. Ordered by its index
/// first (rows of one trace come in its order), then field by field, the kind by its [`kind_code`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MessageRow {
    /// Its index in the trace's messages.
    pub index: u64,
    pub kind: MessageKind,
    pub sender: LocationId,
    pub receiver: LocationId,
    pub send_ns: u64,
    pub recv_ns: u64,
    pub size_bytes: u64,
    pub tag: u32,
    pub name: StringId,
    /// When the receive was posted (format 6; `recv_ns` in older stores, as where a format does not say).
    pub posted_ns: u64,
}

impl Default for MessageRow {
    fn default() -> MessageRow {
        MessageRow {
            index: 0,
            kind: MessageKind::PointToPoint,
            sender: LocationId(0),
            receiver: LocationId(0),
            send_ns: 0,
            recv_ns: 0,
            size_bytes: 0,
            tag: 0,
            name: StringId(0),
            posted_ns: 0,
        }
    }
}

impl Ord for MessageRow {
    fn cmp(&self, o: &Self) -> Ordering {
        let key = |m: &Self| {
            let posted = m.posted_ns;
            (
                m.index,
                kind_code(m.kind),
                m.sender,
                m.receiver,
                m.send_ns,
                m.recv_ns,
                m.size_bytes,
                m.tag,
                m.name,
                posted,
            )
        };
        key(self).cmp(&key(o))
    }
}

impl PartialOrd for MessageRow {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

/// A message kind as the tile's `kind` column stores it: 0 point-to-point, 1 flow.
pub fn kind_code(k: MessageKind) -> u8 {
    match k {
        MessageKind::PointToPoint => 0,
        MessageKind::Flow => 1,
    }
}

/// The kind a `kind` column's code stands for (anything but 0 is a flow; a tile's decoder refuses codes
/// above 1 before it asks).
pub fn kind_of(code: u8) -> MessageKind {
    if code == 0 {
        MessageKind::PointToPoint
    } else {
        MessageKind::Flow
    }
}

impl MessageRow {
    /// Appended to the model's message columns.
    pub fn push_to(&self, x: &mut Messages) {
        x.kind.push(self.kind);
        x.sender.push(self.sender);
        x.receiver.push(self.receiver);
        x.send_ns.push(self.send_ns);
        x.recv_ns.push(self.recv_ns);
        x.size_bytes.push(self.size_bytes);
        x.tag.push(self.tag);
        x.name.push(self.name);
        x.posted_ns.push(self.posted_ns);
    }
}

/// A collective row as a level-0 tile holds it: its trace index, times from the origin.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CollectiveRow {
    /// Its index in the trace's collective rows.
    pub index: u64,
    pub operation: u32,
    pub location: LocationId,
    pub region: RegionId,
    pub communicator: StringId,
    pub root: Option<LocationId>,
    pub start_ns: u64,
    pub end_ns: u64,
    pub bytes_sent: u64,
    pub bytes_received: u64,
}

impl CollectiveRow {
    /// Appended to the model's collective columns.
    pub fn push_to(&self, x: &mut Collectives) {
        x.operation.push(self.operation);
        x.location.push(self.location);
        x.region.push(self.region);
        x.communicator.push(self.communicator);
        x.root.push(self.root);
        x.start_ns.push(self.start_ns);
        x.end_ns.push(self.end_ns);
        x.bytes_sent.push(self.bytes_sent);
        x.bytes_received.push(self.bytes_received);
    }
}

/// A decoded level-0 tile (ids global, times from the origin).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EventsTile {
    /// The tile's window, ns from the origin (the last window reaches to `u64::MAX`).
    pub window_ns: Range<u64>,
    /// The intervals started in the window.
    pub intervals: Vec<TileInterval>,
    pub instants: Vec<TileInstant>,
    /// Sent in the window.
    pub messages: Vec<MessageRow>,
    /// Started in the window.
    pub collectives: Vec<CollectiveRow>,
    /// The records of earlier windows still open at the window's start (each is also its start window's own).
    pub open: OpenRecords,
}

/// An interval as a level-0 tile holds it (ids global, times from the origin).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TileInterval {
    pub location: LocationId,
    pub region: RegionId,
    pub start_ns: u64,
    pub dur_ns: u64,
    pub depth: u16,
}

/// An interval carried open into a level-0 tile, with its index in the trace's intervals.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpenInterval {
    pub index: u64,
    pub interval: TileInterval,
}

/// An instant as a level-0 tile holds it, with its index in the trace's instants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TileInstant {
    pub index: u64,
    pub location: LocationId,
    pub region: RegionId,
    pub time_ns: u64,
}

/// What a level-0 tile carries from earlier windows: the block's intervals started before the window and
/// ending at or after its start, messages sent before it and received at or after it, collective rows
/// started before it and ending at or after it; by trace index.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OpenRecords {
    pub intervals: Vec<OpenInterval>,
    pub messages: Vec<MessageRow>,
    pub collectives: Vec<CollectiveRow>,
}

impl OpenRecords {
    pub fn len(&self) -> usize {
        self.intervals.len() + self.messages.len() + self.collectives.len()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The intervals of one block of locations in the model's order (location, start, depth), times from the
/// origin, that its level-0 tiles are encoded from: borrowed from a whole [`Trace`], or decoded from a
/// streamed index's spill.
pub struct BlockIntervals<'a> {
    /// Per location of the block (in order): its intervals' index range in the columns below.
    pub ranges: &'a [Range<usize>],
    pub region: &'a [RegionId],
    pub start_ns: &'a [u64],
    pub dur_ns: &'a [u64],
    pub depth: &'a [u16],
    /// The trace's index of element 0 of the columns (particle tiles name intervals by trace index).
    pub first_index: u64,
    /// Each element's trace index, where they are not `first_index` on (a range of a block tiled by time
    /// range: intervals of earlier ranges still open, then the range's own).
    pub index: Option<&'a [u64]>,
}

impl BlockIntervals<'_> {
    /// The trace's index of element `j`.
    #[inline]
    pub fn trace_index(&self, j: usize) -> u64 {
        match self.index {
            Some(ix) => ix[j],
            None => self.first_index + j as u64,
        }
    }
}

impl<'a> BlockIntervals<'a> {
    /// Block `b`'s intervals within a whole trace.
    pub fn of_trace(trace: &'a Trace, t: &Tiling, b: u32) -> Self {
        let locs = t.block_range(b, trace.locations.len() as u32);
        let iv = &trace.intervals;
        BlockIntervals {
            ranges: &trace.location_intervals[locs.start as usize..locs.end as usize],
            region: &iv.region,
            start_ns: &iv.start_ns,
            dur_ns: &iv.dur_ns,
            depth: &iv.depth,
            first_index: 0,
            index: None,
        }
    }
}

/// What one level-0 tile holds: its intervals as runs of the block's columns (location offset in the block,
/// index range; in location order, then the model's order), not copies; instants by trace index, messages
/// and collectives by place in the block's rows. `open_*`: the records of earlier windows still open at the
/// window's start (intervals as (location offset, index in the block's columns), in the model's order;
/// messages and collective rows by place in the block's, so ascending by trace index).
#[derive(Default)]
pub struct EventsSelection {
    pub runs: Vec<(u32, Range<usize>)>,
    pub intervals: usize,
    pub inst: Vec<u32>,
    pub msg: Vec<u32>,
    pub coll: Vec<u32>,
    pub open: Vec<(u32, usize)>,
    pub open_msg: Vec<u32>,
    pub open_coll: Vec<u32>,
}

impl EventsSelection {
    pub fn is_empty(&self) -> bool {
        self.intervals == 0
            && self.inst.is_empty()
            && self.msg.is_empty()
            && self.coll.is_empty()
            && self.open.is_empty()
            && self.open_msg.is_empty()
            && self.open_coll.is_empty()
    }
}

/// A level-0 tile's payload: the records `c` selects of block `bi` (whose first location is `first_loc`),
/// the trace's `instants`, and the block's `messages` and `collectives` (each ascending by trace index).
pub fn encode_events(
    c: &EventsSelection,
    bi: &BlockIntervals,
    instants: &Instants,
    first_loc: u32,
    messages: &[MessageRow],
    collectives: &[CollectiveRow],
) -> ColumnWriter {
    // About 8 bytes per interval before compression: reserved once, not grown.
    let mut w = ColumnWriter { buf: Vec::with_capacity(c.intervals * 8 + 64) };
    w.varint(c.intervals as u64);
    for (l, r) in &c.runs {
        match u8::try_from(*l) {
            // A varint below 0x80 is that byte: the run is a fill.
            Ok(b) if b < 0x80 => w.buf.resize(w.buf.len() + r.len(), b),
            _ => r.clone().for_each(|_| w.varint(*l as u64)),
        }
    }
    for (_, r) in &c.runs {
        bi.region[r.clone()].iter().for_each(|v| w.varint(v.0 as u64));
    }
    deltas(&mut w, c.runs.iter().flat_map(|(_, r)| bi.start_ns[r.clone()].iter().copied()));
    for (_, r) in &c.runs {
        bi.dur_ns[r.clone()].iter().for_each(|&v| w.varint(v));
    }
    for (_, r) in &c.runs {
        bi.depth[r.clone()].iter().for_each(|&v| w.varint(v as u64));
    }
    let ins = instants;
    w.varint(c.inst.len() as u64);
    deltas(&mut w, c.inst.iter().map(|&i| i as u64));
    c.inst.iter().for_each(|&i| w.varint((ins.location[i as usize].0 - first_loc) as u64));
    c.inst.iter().for_each(|&i| w.varint(ins.region[i as usize].0 as u64));
    deltas(&mut w, c.inst.iter().map(|&i| ins.time_ns[i as usize]));
    encode_messages(&mut w, messages, &c.msg);
    encode_collectives(&mut w, collectives, &c.coll);
    // The records of earlier windows still open at this window's start, with their trace indices (a reader
    // of the whole trace skips them: each is stored as its start window's own).
    w.varint(c.open.len() as u64);
    deltas(&mut w, c.open.iter().map(|&(_, j)| bi.trace_index(j)));
    c.open.iter().for_each(|&(l, _)| w.varint(l as u64));
    c.open.iter().for_each(|&(_, j)| w.varint(bi.region[j].0 as u64));
    deltas(&mut w, c.open.iter().map(|&(_, j)| bi.start_ns[j]));
    c.open.iter().for_each(|&(_, j)| w.varint(bi.dur_ns[j]));
    c.open.iter().for_each(|&(_, j)| w.varint(bi.depth[j] as u64));
    encode_messages(&mut w, messages, &c.open_msg);
    encode_collectives(&mut w, collectives, &c.open_coll);
    w
}

/// A messages section: the messages at places `msg` of `rows` (ascending by trace index): count, then each
/// column ([`decode_messages`] reads it).
fn encode_messages(w: &mut ColumnWriter, rows: &[MessageRow], msg: &[u32]) {
    let m = || msg.iter().map(|&i| &rows[i as usize]);
    w.varint(msg.len() as u64);
    deltas(w, m().map(|r| r.index));
    m().for_each(|r| w.varint(kind_code(r.kind) as u64));
    m().for_each(|r| w.varint(r.sender.0 as u64));
    m().for_each(|r| w.varint(r.receiver.0 as u64));
    deltas(w, m().map(|r| r.send_ns));
    m().for_each(|r| w.signed(r.recv_ns.wrapping_sub(r.send_ns) as i64));
    m().for_each(|r| w.varint(r.size_bytes));
    m().for_each(|r| w.varint(r.tag as u64));
    m().for_each(|r| w.varint(r.name.0 as u64));
    // (Format 6: when the receive was posted, as its distance before the receive.)
    m().for_each(|r| w.signed(r.recv_ns.wrapping_sub(r.posted_ns) as i64));
}

/// A collective rows section: the rows at places `coll` of `rows` (ascending by trace index): count, then
/// each column, the root as 0 for none, else its location + 1 ([`decode_collectives`] reads it).
fn encode_collectives(w: &mut ColumnWriter, rows: &[CollectiveRow], coll: &[u32]) {
    let k = || coll.iter().map(|&i| &rows[i as usize]);
    w.varint(coll.len() as u64);
    deltas(w, k().map(|r| r.index));
    k().for_each(|r| w.varint(r.operation as u64));
    k().for_each(|r| w.varint(r.location.0 as u64));
    k().for_each(|r| w.varint(r.region.0 as u64));
    k().for_each(|r| w.varint(r.communicator.0 as u64));
    k().for_each(|r| w.varint(r.root.map_or(0, |l| l.0 as u64 + 1)));
    deltas(w, k().map(|r| r.start_ns));
    k().for_each(|r| w.signed(r.end_ns.wrapping_sub(r.start_ns) as i64));
    k().for_each(|r| w.varint(r.bytes_sent));
    k().for_each(|r| w.varint(r.bytes_received));
}

fn col(r: &mut ColumnReader, n: usize) -> Result<Vec<u64>, ColumnError> {
    (0..n).map(|_| r.varint()).collect()
}

fn col_below(r: &mut ColumnReader, n: usize, bound: u64, what: &str) -> Result<Vec<u64>, ColumnError> {
    (0..n).map(|_| r.below(bound, what)).collect()
}

pub fn decode_events(
    payload: &[u8],
    locs: Range<u32>,
    window: Range<u64>,
    m: &Manifest,
) -> Result<EventsTile, ColumnError> {
    let mut r = ColumnReader::new(payload);
    let nloc = locs.len() as u64;
    let nreg = m.regions.name.len() as u64;
    let mut t = EventsTile { window_ns: window.clone(), ..EventsTile::default() };
    let n = r.count(5)?;
    let loc = col_below(&mut r, n, nloc, "location")?;
    let region = col_below(&mut r, n, nreg, "region")?;
    let start = undelta(&mut r, n)?;
    let dur = col(&mut r, n)?;
    let depth = col_below(&mut r, n, 1 << 16, "depth")?;
    for i in 0..n {
        if start[i].checked_add(dur[i]).is_none() {
            return r.error("interval end out of range");
        }
        t.intervals.push(TileInterval {
            location: LocationId(locs.start + loc[i] as u32),
            region: RegionId(region[i] as u32),
            start_ns: start[i],
            dur_ns: dur[i],
            depth: depth[i] as u16,
        });
    }
    let n = r.count(4)?;
    let idx = undelta(&mut r, n)?;
    let loc = col_below(&mut r, n, nloc, "location")?;
    let region = col_below(&mut r, n, nreg, "region")?;
    let time = undelta(&mut r, n)?;
    for i in 0..n {
        t.instants.push(TileInstant {
            index: idx[i],
            location: LocationId(locs.start + loc[i] as u32),
            region: RegionId(region[i] as u32),
            time_ns: time[i],
        });
    }
    t.messages = decode_messages(&mut r, m)?;
    t.collectives = decode_collectives(&mut r, m)?;
    // The open section: records started before the window that reach its start (so a view of the window
    // finds them here); anything else is damage.
    let ws = window.start;
    let n = r.count(6)?;
    let idx = undelta(&mut r, n)?;
    let loc = col_below(&mut r, n, nloc, "location")?;
    let region = col_below(&mut r, n, nreg, "region")?;
    let start = undelta(&mut r, n)?;
    let dur = col(&mut r, n)?;
    let depth = col_below(&mut r, n, 1 << 16, "depth")?;
    for i in 0..n {
        if idx[i] >= m.counts.intervals {
            return r.error(format!("open interval {} out of range (there are {})", idx[i], m.counts.intervals));
        }
        if start[i] >= ws || start[i].checked_add(dur[i]).is_none_or(|end| end < ws) {
            return r.error(format!("an interval carried open into the window starting at {ws} ns is not open there"));
        }
        t.open.intervals.push(OpenInterval {
            index: idx[i],
            interval: TileInterval {
                location: LocationId(locs.start + loc[i] as u32),
                region: RegionId(region[i] as u32),
                start_ns: start[i],
                dur_ns: dur[i],
                depth: depth[i] as u16,
            },
        });
    }
    t.open.messages = decode_messages(&mut r, m)?;
    if t.open.messages.iter().any(|x| x.send_ns >= ws || x.recv_ns < ws) {
        return r.error(format!("a message carried open into the window starting at {ws} ns is not in flight there"));
    }
    t.open.collectives = decode_collectives(&mut r, m)?;
    if t.open.collectives.iter().any(|x| x.start_ns >= ws || x.end_ns < ws) {
        return r.error(format!("a collective row carried open into the window starting at {ws} ns is not open there"));
    }
    if !r.at_end() {
        return r.error("bytes after the last column");
    }
    Ok(t)
}

/// A column of signed differences from `starts` (a receive after its send, an end after its start).
fn ends_after(r: &mut ColumnReader, starts: &[u64]) -> Result<Vec<u64>, ColumnError> {
    starts.iter().map(|&s| r.signed().and_then(|d| r.add(s, d))).collect()
}

/// A messages section of a level-0 tile ([`encode_messages`] writes it).
fn decode_messages(r: &mut ColumnReader, m: &Manifest) -> Result<Vec<MessageRow>, ColumnError> {
    let nl = m.locations.process.len() as u64;
    let nstr = m.strings.len() as u64;
    let n = r.count(9)?;
    let idx = undelta(r, n)?;
    let kind = col_below(r, n, 2, "message kind")?;
    let sender = col_below(r, n, nl, "sender")?;
    let receiver = col_below(r, n, nl, "receiver")?;
    let send = undelta(r, n)?;
    let recv = ends_after(r, &send)?;
    let size = col(r, n)?;
    let tag = col_below(r, n, 1 << 32, "tag")?;
    let name = col_below(r, n, nstr, "string")?;
    // (Format 6 keeps when each receive was posted, before the receive; older stores: at it.)
    let mut posted = Vec::with_capacity(n);
    for &t in &recv {
        if m.version >= crate::format::manifest::WAITS_VERSION {
            let d = r.signed()?;
            match t.checked_add_signed(d.checked_neg().unwrap_or(i64::MAX)) {
                Some(p) => posted.push(p),
                None => return r.error("posting time out of range"),
            }
        } else {
            posted.push(t);
        }
    }
    Ok((0..n)
        .map(|i| MessageRow {
            index: idx[i],
            kind: kind_of(kind[i] as u8),
            sender: LocationId(sender[i] as u32),
            receiver: LocationId(receiver[i] as u32),
            send_ns: send[i],
            recv_ns: recv[i],
            size_bytes: size[i],
            tag: tag[i] as u32,
            name: StringId(name[i] as u32),
            posted_ns: posted[i],
        })
        .collect())
}

/// A collective rows section of a level-0 tile ([`encode_collectives`] writes it).
fn decode_collectives(r: &mut ColumnReader, m: &Manifest) -> Result<Vec<CollectiveRow>, ColumnError> {
    let nl = m.locations.process.len() as u64;
    let nreg = m.regions.name.len() as u64;
    let nstr = m.strings.len() as u64;
    let n = r.count(10)?;
    let idx = undelta(r, n)?;
    let op = col_below(r, n, 1 << 32, "operation")?;
    let loc = col_below(r, n, nl, "location")?;
    let region = col_below(r, n, nreg, "region")?;
    let comm = col_below(r, n, nstr, "string")?;
    let root = col_below(r, n, nl + 1, "root")?;
    let start = undelta(r, n)?;
    let end = ends_after(r, &start)?;
    let sent = col(r, n)?;
    let received = col(r, n)?;
    Ok((0..n)
        .map(|i| CollectiveRow {
            index: idx[i],
            operation: op[i] as u32,
            location: LocationId(loc[i] as u32),
            region: RegionId(region[i] as u32),
            communicator: StringId(comm[i] as u32),
            root: (root[i] > 0).then(|| LocationId(root[i] as u32 - 1)),
            start_ns: start[i],
            end_ns: end[i],
            bytes_sent: sent[i],
            bytes_received: received[i],
        })
        .collect())
}
