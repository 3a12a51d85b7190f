//! CLOG2, what MPE2's logging library writes (`mpe2/src/logging`: `clog_preamble.h`, `clog_block.h`,
//! `clog_record.h`), read whole. A 1024-byte text preamble (NUL-terminated strings: "CLOG-02.xx", then
//! `name=` / value pairs: byte order, block size, the communicator table's offset...), then blocks of
//! `block_size` bytes, each a run of records ending with an end-of-block record; an end-of-log record ends
//! them. A record is a header (time in seconds as a double; communicator, rank and thread as 32-bit ints;
//! record type) and a body of the type's fixed size.
//!
//! Two passes over the records: the first takes the definitions (state and event definitions, communicator
//! events: which world rank a communicator's rank is), the second the events: a state is the time between its
//! start and final event on one thread, a send and a receive of the same (sender, receiver, tag) in order are
//! one message, an event that is defined but no state's start or final is an instant. The time-shift
//! records are already applied by MPE's merger (as Jumpshot's converter assumes) and only counted.

use super::cursor::{c_str, seconds_to_ns, Cursor};
use super::{MessageMatch, Ranks, Regions, StatePairs};
use crate::ReadError;
use std::collections::HashMap;
use weft_model::{Format, RegionId, Trace, TraceBuilder, WarningKind};

const FORMAT: &str = "CLOG2";
pub const PREAMBLE_BYTES: usize = 1024;
pub const HEADER_BYTES: usize = 24;

/// Record types (`CLOG_REC_*`).
pub mod rec {
    pub const ENDLOG: i32 = 0;
    pub const ENDBLOCK: i32 = 1;
    pub const STATEDEF: i32 = 2;
    pub const EVENTDEF: i32 = 3;
    pub const CONSTDEF: i32 = 4;
    pub const BAREEVT: i32 = 5;
    pub const CARGOEVT: i32 = 6;
    pub const MSGEVT: i32 = 7;
    pub const COLLEVT: i32 = 8;
    pub const COMMEVT: i32 = 9;
    pub const SRCLOC: i32 = 10;
    pub const TIMESHIFT: i32 = 11;
}

/// Message event types (`CLOG_EVT_SENDMSG`, `CLOG_EVT_RECVMSG`).
pub const SEND: i32 = -101;
pub const RECV: i32 = -102;

/// The body size of a record type, after its header.
pub fn body_bytes(rectype: i32) -> Option<usize> {
    Some(match rectype {
        rec::ENDLOG | rec::ENDBLOCK => 0,
        rec::STATEDEF => 16 + 24 + 32 + 40,
        rec::EVENTDEF => 8 + 24 + 32 + 40,
        rec::CONSTDEF => 8 + 32,
        rec::BAREEVT => 8,
        rec::CARGOEVT => 8 + 32,
        rec::MSGEVT => 24,
        rec::COLLEVT => 16,
        rec::COMMEVT => 16 + 32,
        rec::SRCLOC => 8 + 40,
        rec::TIMESHIFT => 8,
        _ => return None,
    })
}

/// The preamble's fields this reader uses.
#[derive(Clone, Debug)]
pub struct Preamble {
    pub version: String,
    pub big_endian: bool,
    pub block_size: usize,
}

/// Counts of what a file held, per record type (for the tests and `weft info`).
#[derive(Clone, Debug, Default)]
pub struct Clog2Stats {
    pub preamble: Option<Preamble>,
    pub records: HashMap<i32, u64>,
    pub states: u64,
    pub messages: u64,
    pub instants: u64,
}

pub fn read(name: &str, bytes: &[u8]) -> Result<Trace, ReadError> {
    read_with_stats(name, bytes).map(|(t, _)| t)
}

fn preamble(name: &str, bytes: &[u8]) -> Result<Preamble, ReadError> {
    let c = Cursor::new(name, FORMAT, bytes, true);
    if bytes.len() < PREAMBLE_BYTES {
        return Err(
            c.err_at(bytes.len(), format!("the preamble needs {PREAMBLE_BYTES} bytes, the file has {}", bytes.len()))
        );
    }
    let mut strings = bytes[..PREAMBLE_BYTES].split(|&b| b == 0).map(c_str);
    let version = strings.next().unwrap_or_default();
    if !version.starts_with("CLOG-02.") {
        return Err(c.err_at(0, format!("not a CLOG2 file (version \"{version}\")")));
    }
    let mut fields = HashMap::new();
    let mut key: Option<String> = None;
    for s in strings {
        if s.is_empty() {
            continue;
        }
        match key.take() {
            Some(k) => {
                fields.insert(k, s);
            }
            None if s.ends_with('=') => key = Some(s.trim_end_matches('=').to_string()),
            None => {}
        }
    }
    let big_endian = fields.get("is_big_endian").map(|v| v.starts_with("TRUE")).unwrap_or(true);
    let block_size = fields.get("block_size").and_then(|v| v.parse::<usize>().ok()).unwrap_or(0);
    if !(HEADER_BYTES..=1 << 30).contains(&block_size) {
        return Err(c.err_at(0, format!("block size {block_size} in the preamble is not a usable size")));
    }
    Ok(Preamble { version, big_endian, block_size })
}

/// One record: where it starts, its header fields and a cursor at its body.
struct Record<'a> {
    at: usize,
    time: f64,
    icomm: i32,
    rank: i32,
    thread: i32,
    rectype: i32,
    body: Cursor<'a>,
}

/// Walk the records of every block in order, until the end-of-log record or the file's end (`truncated`
/// is set when the file ends before an end-of-log record).
fn walk<'a>(
    c: &Cursor<'a>,
    block_size: usize,
    truncated: &mut Option<usize>,
    mut f: impl FnMut(Record<'a>) -> Result<(), ReadError>,
) -> Result<(), ReadError> {
    let mut block = PREAMBLE_BYTES;
    while block < c.bytes.len() {
        let end = block.saturating_add(block_size).min(c.bytes.len());
        let mut r = Cursor { bytes: &c.bytes[..end], pos: block, ..c.clone() };
        loop {
            if r.remaining() < HEADER_BYTES {
                // A block cut short by the file's end.
                if end == c.bytes.len() {
                    *truncated = Some(r.pos);
                    return Ok(());
                }
                return Err(r.err("a block ends inside a record header (no end-of-block record)"));
            }
            let at = r.pos;
            let time = r.f64("time")?;
            let icomm = r.i32("communicator")?;
            let rank = r.i32("rank")?;
            let thread = r.i32("thread")?;
            let rectype = r.i32("record type")?;
            match rectype {
                rec::ENDLOG => return Ok(()),
                rec::ENDBLOCK => break,
                _ => {}
            }
            let Some(n) = body_bytes(rectype) else {
                return Err(r.err_at(at + 20, format!("unknown record type {rectype}")));
            };
            if r.remaining() < n {
                if end == c.bytes.len() {
                    *truncated = Some(at);
                    return Ok(());
                }
                return Err(r.err_at(at, format!("record type {rectype} runs past its block's end")));
            }
            let body = Cursor { bytes: &r.bytes[..r.pos + n], ..r.clone() };
            r.pos += n;
            f(Record { at, time, icomm, rank, thread, rectype, body })?;
        }
        block = end;
    }
    *truncated = Some(c.bytes.len());
    Ok(())
}

/// What a state or event id is.
#[derive(Clone, Copy)]
enum EventRole {
    Start(u32),
    Final(u32),
    Solo(RegionId),
}

pub fn read_with_stats(name: &str, bytes: &[u8]) -> Result<(Trace, Clog2Stats), ReadError> {
    let pre = preamble(name, bytes)?;
    let c = Cursor::new(name, FORMAT, bytes, pre.big_endian);
    let mut b = TraceBuilder::new(Format::Clog2);
    let mut stats = Clog2Stats { preamble: Some(pre.clone()), ..Default::default() };

    // Pass 1: definitions and communicators.
    let mut roles: HashMap<i32, EventRole> = HashMap::new();
    let mut state_regions: Vec<RegionId> = Vec::new();
    let mut regions = Regions::default();
    let mut world: HashMap<(i32, i32), i32> = HashMap::new();
    let mut truncated = None;
    walk(&c, pre.block_size, &mut truncated, |mut r| {
        *stats.records.entry(r.rectype).or_default() += 1;
        match r.rectype {
            rec::STATEDEF => {
                let _id = r.body.i32("state id")?;
                let start = r.body.i32("start event")?;
                let fin = r.body.i32("final event")?;
                let _pad = r.body.i32("pad")?;
                let _color = r.body.c_string(24, "colour")?;
                let name = r.body.c_string(32, "state name")?;
                let s = state_regions.len() as u32;
                state_regions.push(regions.get(&mut b, &name));
                roles.insert(start, EventRole::Start(s));
                roles.insert(fin, EventRole::Final(s));
            }
            rec::EVENTDEF => {
                let etype = r.body.i32("event id")?;
                let _pad = r.body.i32("pad")?;
                let _color = r.body.c_string(24, "colour")?;
                let name = r.body.c_string(32, "event name")?;
                roles.entry(etype).or_insert_with(|| EventRole::Solo(regions.get(&mut b, &name)));
            }
            rec::COMMEVT => {
                let _etype = r.body.i32("communicator event")?;
                let icomm = r.body.i32("communicator")?;
                let rank = r.body.i32("rank")?;
                let wrank = r.body.i32("world rank")?;
                world.insert((icomm, rank), wrank);
            }
            _ => {}
        }
        Ok(())
    })?;
    if let Some(at) = truncated {
        b.warn(WarningKind::Truncated, || {
            format!("{name}: the file ends at byte {at} without an end-of-log record; the records before are shown")
        });
    }

    // Pass 2: events.
    let world_rank = |icomm: i32, rank: i32| world.get(&(icomm, rank)).copied().unwrap_or(rank) as i64;
    let mut ranks = Ranks::default();
    let mut states = StatePairs::default();
    let mut messages = MessageMatch::default();
    let mut undefined: HashMap<i32, u64> = HashMap::new();
    let mut ignored = None;
    walk(&c, pre.block_size, &mut ignored, |mut r| {
        if !matches!(r.rectype, rec::BAREEVT | rec::CARGOEVT | rec::MSGEVT) {
            return Ok(());
        }
        let Some(t) = seconds_to_ns(r.time) else {
            b.warn(WarningKind::BadTimestamp, || {
                format!("{name}: record at byte {} has time {}; skipped", r.at, r.time)
            });
            return Ok(());
        };
        let me = world_rank(r.icomm, r.rank);
        let loc = ranks.location(&mut b, me, r.thread as i64);
        let etype = r.body.i32("event type")?;
        if r.rectype == rec::MSGEVT {
            let icomm = r.body.i32("partner communicator")?;
            let partner = world_rank(icomm, r.body.i32("partner rank")?);
            let tag = r.body.i32("tag")? as i64;
            let size = r.body.i32("size")?.max(0) as u64;
            states.seen(loc, t);
            match etype {
                SEND => messages.send(me, partner, tag, loc, t, size),
                RECV => messages.recv(partner, me, tag, loc, t, size),
                _ => b.warn(WarningKind::UnknownRecord, || {
                    format!("{name}: message event at byte {} has type {etype}, neither send nor receive", r.at)
                }),
            }
            return Ok(());
        }
        match roles.get(&etype) {
            Some(EventRole::Start(s)) => states.start(loc, *s, t),
            Some(EventRole::Final(s)) => {
                if states.finish(&mut b, loc, *s, state_regions[*s as usize], t) {
                    stats.states += 1;
                } else {
                    b.warn(WarningKind::UnmatchedEnd, || {
                        format!("{name}: final event {etype} at byte {} has no start on rank {me}; ignored", r.at)
                    });
                }
            }
            Some(EventRole::Solo(region)) => {
                states.seen(loc, t);
                b.instant(loc, *region, t);
                stats.instants += 1;
            }
            None => *undefined.entry(etype).or_default() += 1,
        }
        Ok(())
    })?;
    let mut undefined: Vec<_> = undefined.into_iter().collect();
    undefined.sort_unstable();
    for (etype, n) in undefined {
        b.warn(WarningKind::DanglingReference, || {
            format!("{name}: {n} event(s) of type {etype}, which no state or event definition names; left out")
        });
    }
    states.close_all(&mut b, name, |s| state_regions[s as usize]);
    stats.messages = messages.finish(&mut b, name);
    let events = stats.records.iter().filter(|(k, _)| matches!(**k, rec::BAREEVT | rec::CARGOEVT | rec::MSGEVT));
    b.add_event_records(events.map(|(_, n)| n).sum());
    if b.interval_count() == 0 && stats.messages == 0 && stats.instants == 0 {
        return Err(ReadError::Empty { file: name.to_string(), format: FORMAT, detail: String::new() });
    }
    Ok((b.finish(), stats))
}
