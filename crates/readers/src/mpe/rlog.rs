//! RLOG, MPICH2's older internal log (`slog2sdk/trace_rlog/src/rlog.h`, `rlogutil.c`), read whole. In the
//! writer's byte order (little-endian on the machines that wrote it; told by the header section's length): a
//! run of sections, each a type and a length (32-bit ints) then its bytes: the header (lowest and highest
//! rank), the states (event id, colour, name), the arrows (sender, receiver, tag, size, direction, two
//! times) and per rank the events (rank, event id, nesting level, start and end time: intervals already).
//! It must not trust a section's length or counts: each is checked against the bytes there are.

use super::cursor::{seconds_to_ns, Cursor};
use super::{Ranks, Regions};
use crate::ReadError;
use std::collections::HashMap;
use weft_model::{Format, MessageKind, MessageRecord, RegionId, Trace, TraceBuilder, WarningKind};

const FORMAT: &str = "RLOG";
const HEADER: i32 = 0;
const STATES: i32 = 1;
const ARROWS: i32 = 2;
const EVENTS: i32 = 3;
const STATE_BYTES: usize = 8 + 24 + 40;
const ARROW_BYTES: usize = 24 + 16;
const EVENT_BYTES: usize = 16 + 16;

/// The byte order in which the file starts with a header section of 8 bytes and sane ranks.
fn byte_order(bytes: &[u8]) -> Option<bool> {
    [false, true].into_iter().find(|&be| {
        let mut c = Cursor::new("", FORMAT, bytes, be);
        let (Ok(t), Ok(len), Ok(lo), Ok(hi)) = (c.i32(""), c.i32(""), c.i32(""), c.i32("")) else { return false };
        let next_ok = match (c.i32(""), c.i32("")) {
            (Ok(t), Ok(len)) => (1..=3).contains(&t) && len >= 0,
            _ => c.remaining() == 0,
        };
        t == HEADER && len == 8 && 0 <= lo && lo <= hi && hi < 1 << 24 && next_ok
    })
}

pub fn looks_like_rlog(bytes: &[u8]) -> bool {
    byte_order(bytes).is_some()
}

pub fn read(name: &str, bytes: &[u8]) -> Result<Trace, ReadError> {
    let Some(be) = byte_order(bytes) else {
        let c = Cursor::new(name, FORMAT, bytes, false);
        return Err(c.err_at(0, "not an RLOG file (no header section first)"));
    };
    let mut c = Cursor::new(name, FORMAT, bytes, be);
    let mut b = TraceBuilder::new(Format::Rlog);
    let mut ranks = Ranks::default();
    let mut names: HashMap<i32, String> = HashMap::new();
    let mut regions: HashMap<i32, RegionId> = HashMap::new();
    let mut by_name = Regions::default();
    let mut undefined: HashMap<i32, u64> = HashMap::new();
    let message = b.intern("message");
    let mut records = 0u64;
    // Sections in order; the states come before the events that name them in what MPICH writes, but the
    // events are read after every section has been seen so that any order works.
    let mut event_sections = Vec::new();
    while c.remaining() > 0 {
        let at = c.pos;
        if c.remaining() < 8 {
            b.warn(WarningKind::Truncated, || {
                format!("{name}: {} stray bytes at byte {at} after the last section", c.remaining())
            });
            break;
        }
        let kind = c.i32("section type")?;
        let len = c.i32("section length")?;
        if len < 0 {
            return Err(c.err_at(at + 4, format!("section length {len}")));
        }
        let len = len as usize;
        if len > c.remaining() {
            b.warn(WarningKind::Truncated, || {
                format!(
                    "{name}: the section at byte {at} needs {len} bytes, the file has {} left; what precedes is shown",
                    c.remaining()
                )
            });
            break;
        }
        let mut s = Cursor { bytes: &c.bytes[..c.pos + len], ..c.clone() };
        c.pos += len;
        match kind {
            STATES => {
                while s.remaining() >= STATE_BYTES {
                    let id = s.i32("state event")?;
                    let _pad = s.i32("pad")?;
                    let _color = s.c_string(24, "colour")?;
                    names.insert(id, s.c_string(40, "state name")?);
                }
            }
            ARROWS => {
                while s.remaining() >= ARROW_BYTES {
                    let (src, dst, tag, size, right) =
                        (s.i32("sender")?, s.i32("receiver")?, s.i32("tag")?, s.i32("size")?, s.i32("direction")? == 0);
                    let _pad = s.i32("pad")?;
                    let (t0, t1) = (s.f64("start")?, s.f64("end")?);
                    records += 1;
                    let (Some(t0), Some(t1)) = (seconds_to_ns(t0), seconds_to_ns(t1)) else {
                        b.warn(WarningKind::BadTimestamp, || {
                            format!("{name}: arrow from {src} to {dst} has a time {t0} / {t1}; skipped")
                        });
                        continue;
                    };
                    let (send, recv) = if right { (t0, t1) } else { (t1, t0) };
                    let sender = ranks.location(&mut b, src as i64, 0);
                    let receiver = ranks.location(&mut b, dst as i64, 0);
                    b.message(MessageRecord {
                        kind: MessageKind::PointToPoint,
                        sender,
                        receiver,
                        send_ns: send,
                        recv_ns: recv,
                        posted_ns: recv,
                        size_bytes: size.max(0) as u64,
                        tag: tag as u32,
                        name: message,
                    });
                }
            }
            EVENTS => event_sections.push(s),
            _ => {}
        }
    }
    for mut s in event_sections {
        let _rank = s.i32("event section rank")?;
        let levels = s.count_i32(4, "nesting levels")?;
        s.take(levels * 4, "events per level")?;
        while s.remaining() >= EVENT_BYTES {
            let rank = s.i32("rank")?;
            let event = s.i32("event")?;
            let _pad = s.i32("pad")?;
            let _level = s.i32("level")?;
            let (t0, t1) = (s.f64("start")?, s.f64("end")?);
            records += 1;
            let (Some(t0), Some(t1)) = (seconds_to_ns(t0), seconds_to_ns(t1)) else {
                b.warn(WarningKind::BadTimestamp, || {
                    format!("{name}: event on rank {rank} has a time {t0} / {t1}; skipped")
                });
                continue;
            };
            let region = match regions.get(&event) {
                Some(&r) => r,
                None => match names.get(&event) {
                    Some(n) => {
                        let r = by_name.get(&mut b, n);
                        regions.insert(event, r);
                        r
                    }
                    None => {
                        *undefined.entry(event).or_default() += 1;
                        continue;
                    }
                },
            };
            let loc = ranks.location(&mut b, rank as i64, 0);
            b.interval(loc, region, t0.min(t1), t1.abs_diff(t0));
        }
    }
    let mut undefined: Vec<_> = undefined.into_iter().collect();
    undefined.sort_unstable();
    for (e, n) in undefined {
        b.warn(WarningKind::DanglingReference, || {
            format!("{name}: {n} event(s) of id {e}, which no state names; left out")
        });
    }
    b.add_event_records(records);
    if records == 0 {
        return Err(ReadError::Empty { file: name.to_string(), format: FORMAT, detail: String::new() });
    }
    Ok(b.finish())
}
