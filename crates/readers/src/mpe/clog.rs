//! The older CLOG of MPICH 1.x's MPE (Jumpshot-3's input; `slog2sdk/src/logformat/clog`), read whole. No
//! preamble and no magic: 64 KiB blocks of records, each a header (time in seconds as a double; record type,
//! length in doubles, process id, pad as 32-bit ints) and a body of the type's size, a block ending with an
//! end-of-block record and the log with an end-of-log record. Written in the writer's byte order (Jumpshot
//! assumed big-endian); the order is told by which one gives well-formed records.
//!
//! As Jumpshot's converter reads it: a raw event whose type is a state's start or final event opens or closes
//! that state on its process; raw events of type -101 (send) and -102 (receive) carry the partner rank in
//! their data and "tag size" in their text, and are matched by (sender, receiver, tag) in order into messages;
//! a raw event defined by an event definition is an instant. Message, collective and communicator records are
//! counted and otherwise skipped, as Jumpshot does.

use super::cursor::{seconds_to_ns, Cursor};
use super::{MessageMatch, Ranks, Regions, StatePairs};
use crate::ReadError;
use std::collections::HashMap;
use weft_model::{Format, RegionId, Trace, TraceBuilder, WarningKind};

const FORMAT: &str = "CLOG";
pub const BLOCK_BYTES: usize = 65536;
pub const HEADER_BYTES: usize = 24;

/// Record types (`CLOG_*` of MPICH 1.x's clog.h).
pub mod rec {
    pub const ENDLOG: i32 = -2;
    pub const ENDBLOCK: i32 = -1;
    pub const RAWEVENT: i32 = 1;
    pub const MSGEVENT: i32 = 2;
    pub const COLLEVENT: i32 = 3;
    pub const COMMEVENT: i32 = 4;
    pub const EVENTDEF: i32 = 5;
    pub const STATEDEF: i32 = 6;
    pub const SRCLOC: i32 = 7;
    pub const SHIFT: i32 = 8;
}

pub const SEND: i32 = -101;
pub const RECV: i32 = -102;

/// The body size of a record type.
pub fn body_bytes(rectype: i32) -> Option<usize> {
    Some(match rectype {
        rec::ENDLOG | rec::ENDBLOCK => 0,
        rec::RAWEVENT => 16 + 16,
        rec::MSGEVENT | rec::COLLEVENT => 24,
        rec::COMMEVENT => 16,
        rec::EVENTDEF => 8 + 16,
        rec::STATEDEF => 16 + 24 + 16,
        rec::SRCLOC => 8 + 40,
        rec::SHIFT => 8,
        _ => return None,
    })
}

/// Counts per record type, for the tests and `weft info`.
#[derive(Clone, Debug, Default)]
pub struct ClogStats {
    pub big_endian: bool,
    pub records: HashMap<i32, u64>,
    pub states: u64,
    pub messages: u64,
    pub instants: u64,
}

/// Whether the first records, read in either byte order, are well-formed CLOG records.
pub fn looks_like_clog(bytes: &[u8]) -> bool {
    byte_order(bytes).is_some()
}

fn byte_order(bytes: &[u8]) -> Option<bool> {
    [true, false].into_iter().find(|&be| well_formed_head(bytes, be))
}

fn well_formed_head(bytes: &[u8], big_endian: bool) -> bool {
    let mut c = Cursor::new("", FORMAT, &bytes[..bytes.len().min(BLOCK_BYTES)], big_endian);
    let mut good = 0;
    while good < 3 {
        let (Ok(t), Ok(rectype), Ok(len), Ok(process), Ok(_)) = (c.f64(""), c.i32(""), c.i32(""), c.i32(""), c.i32(""))
        else {
            return false;
        };
        if !(t.is_finite() && (0.0..1e9).contains(&t) && (0..1 << 20).contains(&process)) {
            return false;
        }
        match (rectype, body_bytes(rectype)) {
            (rec::ENDLOG | rec::ENDBLOCK, _) => return good > 0,
            (_, Some(n)) if len as i64 * 8 == (HEADER_BYTES + n) as i64 => {
                if c.take(n, "").is_err() {
                    return false;
                }
            }
            _ => return false,
        }
        good += 1;
    }
    true
}

pub fn read(name: &str, bytes: &[u8]) -> Result<Trace, ReadError> {
    read_with_stats(name, bytes).map(|(t, _)| t)
}

struct Record<'a> {
    at: usize,
    time: f64,
    rectype: i32,
    process: i32,
    body: Cursor<'a>,
}

/// Every record of every block in order until the end-of-log record; `Some(offset)` in `truncated` when the
/// file ends first.
fn walk<'a>(
    c: &Cursor<'a>,
    truncated: &mut Option<usize>,
    mut f: impl FnMut(Record<'a>) -> Result<(), ReadError>,
) -> Result<(), ReadError> {
    let mut block = 0;
    while block < c.bytes.len() {
        let end = block.saturating_add(BLOCK_BYTES).min(c.bytes.len());
        let mut r = Cursor { bytes: &c.bytes[..end], pos: block, ..c.clone() };
        loop {
            if r.remaining() < HEADER_BYTES {
                if end == c.bytes.len() {
                    *truncated = Some(r.pos);
                    return Ok(());
                }
                return Err(r.err("a block ends inside a record header (no end-of-block record)"));
            }
            let at = r.pos;
            let time = r.f64("time")?;
            let rectype = r.i32("record type")?;
            let len = r.i32("record length")?;
            let process = r.i32("process")?;
            let _pad = r.i32("pad")?;
            match rectype {
                rec::ENDLOG => return Ok(()),
                rec::ENDBLOCK => break,
                _ => {}
            }
            let Some(n) = body_bytes(rectype) else {
                return Err(r.err_at(at + 8, format!("unknown record type {rectype}")));
            };
            if len as i64 * 8 != (HEADER_BYTES + n) as i64 {
                return Err(r.err_at(
                    at + 12,
                    format!("record type {rectype} says it is {len} doubles long, not {}", (HEADER_BYTES + n) / 8),
                ));
            }
            if r.remaining() < n {
                if end == c.bytes.len() {
                    *truncated = Some(at);
                    return Ok(());
                }
                return Err(r.err_at(at, format!("record type {rectype} runs past its block's end")));
            }
            let body = Cursor { bytes: &r.bytes[..r.pos + n], ..r.clone() };
            r.pos += n;
            f(Record { at, time, rectype, process, body })?;
        }
        block = end;
    }
    *truncated = Some(c.bytes.len());
    Ok(())
}

#[derive(Clone, Copy)]
enum EventRole {
    Start(u32),
    Final(u32),
    Solo(RegionId),
}

/// "tag size" of a send or receive raw event's text.
fn tag_size(text: &str) -> (i64, u64) {
    let mut it = text.split_whitespace().map(|s| s.parse::<i64>().unwrap_or(0));
    (it.next().unwrap_or(0), it.next().unwrap_or(0).max(0) as u64)
}

pub fn read_with_stats(name: &str, bytes: &[u8]) -> Result<(Trace, ClogStats), ReadError> {
    let Some(big_endian) = byte_order(bytes) else {
        let c = Cursor::new(name, FORMAT, bytes, true);
        return Err(c.err_at(0, "not a CLOG file (its first records are not well formed in either byte order)"));
    };
    let c = Cursor::new(name, FORMAT, bytes, big_endian);
    let mut b = TraceBuilder::new(Format::Clog);
    let mut stats = ClogStats { big_endian, ..Default::default() };

    // Pass 1: definitions (they may come after the events that use them).
    let mut roles: HashMap<i32, EventRole> = HashMap::new();
    let mut state_regions: Vec<RegionId> = Vec::new();
    let mut regions = Regions::default();
    let mut truncated = None;
    walk(&c, &mut truncated, |mut r| {
        *stats.records.entry(r.rectype).or_default() += 1;
        match r.rectype {
            rec::STATEDEF => {
                let _id = r.body.i32("state id")?;
                let start = r.body.i32("start event")?;
                let fin = r.body.i32("final event")?;
                let _pad = r.body.i32("pad")?;
                let _color = r.body.c_string(24, "colour")?;
                let name = r.body.c_string(16, "state name")?;
                let s = state_regions.len() as u32;
                state_regions.push(regions.get(&mut b, &name));
                roles.insert(start, EventRole::Start(s));
                roles.insert(fin, EventRole::Final(s));
            }
            rec::EVENTDEF => {
                let etype = r.body.i32("event id")?;
                let _pad = r.body.i32("pad")?;
                let name = r.body.c_string(16, "event name")?;
                roles.entry(etype).or_insert_with(|| EventRole::Solo(regions.get(&mut b, &name)));
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

    // Pass 2: raw events.
    let mut ranks = Ranks::default();
    let mut states = StatePairs::default();
    let mut messages = MessageMatch::default();
    let mut undefined: HashMap<i32, u64> = HashMap::new();
    let mut ignored = None;
    walk(&c, &mut ignored, |mut r| {
        if r.rectype != rec::RAWEVENT {
            return Ok(());
        }
        let Some(t) = seconds_to_ns(r.time) else {
            b.warn(WarningKind::BadTimestamp, || {
                format!("{name}: record at byte {} has time {}; skipped", r.at, r.time)
            });
            return Ok(());
        };
        let me = r.process as i64;
        let loc = ranks.location(&mut b, me, 0);
        let etype = r.body.i32("event type")?;
        let data = r.body.i32("data")? as i64;
        let _srcloc = r.body.i32("source location")?;
        let _pad = r.body.i32("pad")?;
        let text = r.body.c_string(16, "text")?;
        match etype {
            SEND | RECV => {
                states.seen(loc, t);
                let (tag, size) = tag_size(&text);
                if etype == SEND {
                    messages.send(me, data, tag, loc, t, size);
                } else {
                    messages.recv(data, me, tag, loc, t, size);
                }
            }
            _ => match roles.get(&etype) {
                Some(EventRole::Start(s)) => states.start(loc, *s, t),
                Some(EventRole::Final(s)) => {
                    if states.finish(&mut b, loc, *s, state_regions[*s as usize], t) {
                        stats.states += 1;
                    } else {
                        b.warn(WarningKind::UnmatchedEnd, || {
                            format!(
                                "{name}: final event {etype} at byte {} has no start on process {me}; ignored",
                                r.at
                            )
                        });
                    }
                }
                Some(EventRole::Solo(region)) => {
                    states.seen(loc, t);
                    b.instant(loc, *region, t);
                    stats.instants += 1;
                }
                None => *undefined.entry(etype).or_default() += 1,
            },
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
    b.add_event_records(stats.records.get(&rec::RAWEVENT).copied().unwrap_or(0));
    if b.interval_count() == 0 && stats.messages == 0 && stats.instants == 0 {
        return Err(ReadError::Empty { file: name.to_string(), format: FORMAT, detail: String::new() });
    }
    Ok((b.finish(), stats))
}
