//! The level-0 tile (`e/b{B}/w{W}`): a location block's exact records started in one time window (intervals,
//! instants, messages, collective rows), then those of earlier windows still open at its start, so a view of
//! the window needs no tile before it. This is the decode side; the index writes it (`build::events_payload`).
//! Every count and id is checked against the manifest, so damaged bytes are an error, never a panic.

use crate::format::columns::{undelta, ColumnError, ColumnReader};
use crate::format::manifest::Manifest;
use std::ops::Range;
use weft_model::{Collectives, LocationId, MessageKind, Messages, RegionId, StringId};

/// A message as a level-0 tile holds it (the fields of the index's `comms::MessageRow`, ids typed).
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

/// A collective row as a level-0 tile holds it (the fields of the index's `comms::CollectiveRow`, ids typed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
    /// The intervals started in the window: (location, region, start, duration, depth).
    pub intervals: Vec<(LocationId, RegionId, u64, u64, u16)>,
    /// (index in the trace's instants, location, region, time)
    pub instants: Vec<(u64, LocationId, RegionId, u64)>,
    /// Sent in the window.
    pub messages: Vec<MessageRow>,
    /// Started in the window.
    pub collectives: Vec<CollectiveRow>,
    /// The records of earlier windows still open at the window's start (each is also its start window's own).
    pub open: OpenRecords,
}

/// What a level-0 tile carries from earlier windows: the block's intervals started before the window and
/// ending at or after its start, messages sent before it and received at or after it, collective rows
/// started before it and ending at or after it; by trace index.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OpenRecords {
    /// (index in the trace's intervals, location, region, start, duration, depth)
    pub intervals: Vec<(u64, LocationId, RegionId, u64, u64, u16)>,
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
        t.intervals.push((
            LocationId(locs.start + loc[i] as u32),
            RegionId(region[i] as u32),
            start[i],
            dur[i],
            depth[i] as u16,
        ));
    }
    let n = r.count(4)?;
    let idx = undelta(&mut r, n)?;
    let loc = col_below(&mut r, n, nloc, "location")?;
    let region = col_below(&mut r, n, nreg, "region")?;
    let time = undelta(&mut r, n)?;
    for i in 0..n {
        t.instants.push((idx[i], LocationId(locs.start + loc[i] as u32), RegionId(region[i] as u32), time[i]));
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
        t.open.intervals.push((
            idx[i],
            LocationId(locs.start + loc[i] as u32),
            RegionId(region[i] as u32),
            start[i],
            dur[i],
            depth[i] as u16,
        ));
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

/// A messages section of a level-0 tile (the index's `build::messages_section` writes it).
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
        .map(|i| {
            let kind = if kind[i] == 0 { MessageKind::PointToPoint } else { MessageKind::Flow };
            MessageRow {
                index: idx[i],
                kind,
                sender: LocationId(sender[i] as u32),
                receiver: LocationId(receiver[i] as u32),
                send_ns: send[i],
                recv_ns: recv[i],
                size_bytes: size[i],
                tag: tag[i] as u32,
                name: StringId(name[i] as u32),
                posted_ns: posted[i],
            }
        })
        .collect())
}

/// A collective rows section of a level-0 tile (the index's `build::collectives_section` writes it).
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
