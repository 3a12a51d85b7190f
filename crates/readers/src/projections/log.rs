//! One PE's Projections log (`NAME.PE.log`, or `.log.gz`): text records, one a line, the first number the
//! record type (Charm++'s trace-projections / Projections' `ProjDefs`), then its fields, times in µs.
//!
//! What becomes what: BEGIN/END_PROCESSING an entry method's interval; CREATION (and its broadcast and
//! multicast forms) the start of a message that BEGIN_PROCESSING on the receiving PE ends (matched later, in
//! `mod.rs`, by creating PE, event number and entry); BEGIN/END_PACK and _UNPACK intervals `(pack)` and
//! `(unpack)`; BEGIN/END_USER_EVENT_PAIR an interval named from the .sts `EVENT` table; USER_EVENT an instant;
//! USER_STAT and MEMORY_USAGE counter samples. BEGIN/END_IDLE stay gaps (counted, not drawn); the other known
//! types (ENQUEUE, DEQUEUE, MESSAGE_RECV, interrupts, BEGIN/END_TRACE, AMPI functions, notes) are read and not
//! drawn.
//!
//! Bounded: lines are read through a fixed cap (a line without an end, or a gzip bomb of one, stops there),
//! and the inflated bytes are held to the budget. A line that cannot be read is a warning naming the file and
//! line; the log goes on.

use super::sts::Sts;
use super::{Creation, Processing};
use crate::budget::{inflated_too_large, Budget};
use crate::ReadError;
use std::collections::HashMap;
use std::io::{BufRead, Read};
use weft_model::{LocationId, RegionId, TraceBuilder, WarningKind};

/// Record types (Projections' ProjDefs).
mod ty {
    pub const CREATION: i64 = 1;
    pub const BEGIN_PROCESSING: i64 = 2;
    pub const END_PROCESSING: i64 = 3;
    pub const ENQUEUE: i64 = 4;
    pub const DEQUEUE: i64 = 5;
    pub const BEGIN_COMPUTATION: i64 = 6;
    pub const END_COMPUTATION: i64 = 7;
    pub const BEGIN_INTERRUPT: i64 = 8;
    pub const END_INTERRUPT: i64 = 9;
    pub const MESSAGE_RECV: i64 = 10;
    pub const BEGIN_TRACE: i64 = 11;
    pub const END_TRACE: i64 = 12;
    pub const USER_EVENT: i64 = 13;
    pub const BEGIN_IDLE: i64 = 14;
    pub const END_IDLE: i64 = 15;
    pub const BEGIN_PACK: i64 = 16;
    pub const END_PACK: i64 = 17;
    pub const BEGIN_UNPACK: i64 = 18;
    pub const END_UNPACK: i64 = 19;
    pub const CREATION_BCAST: i64 = 20;
    pub const CREATION_MULTICAST: i64 = 21;
    pub const BEGIN_FUNC: i64 = 22;
    pub const END_FUNC: i64 = 23;
    pub const USER_SUPPLIED: i64 = 26;
    pub const MEMORY_USAGE: i64 = 27;
    pub const USER_SUPPLIED_NOTE: i64 = 28;
    pub const USER_SUPPLIED_BRACKETED_NOTE: i64 = 29;
    pub const USER_STAT: i64 = 32;
    pub const BEGIN_USER_EVENT_PAIR: i64 = 98;
    pub const END_USER_EVENT_PAIR: i64 = 99;
    pub const USER_EVENT_PAIR: i64 = 100;
}

/// The longest line read; past it the rest of the line is skipped (no record is that long).
const MAX_LINE: u64 = 1 << 20;

/// What one log gave beyond the builder: records per type, for `weft info` and the tests.
#[derive(Debug, Default)]
pub(super) struct LogCounts {
    pub records: u64,
    pub idle: u64,
}

/// Everything one PE's log needs from the whole read.
pub(super) struct Ctx<'a> {
    pub b: &'a mut TraceBuilder,
    pub sts: &'a Sts,
    pub entry_regions: &'a mut HashMap<i64, RegionId>,
    pub creations: &'a mut HashMap<(i64, i64, i64), Vec<Creation>>,
    pub processings: &'a mut Vec<Processing>,
    /// Bytes inflated so far over all logs, held to the budget.
    pub inflated: &'a mut u64,
    /// Records read so far over all logs.
    pub records: &'a mut u64,
}

/// Read one PE's log into the builder on location `loc`.
pub(super) fn read(file: &str, bytes: &[u8], pe: i64, loc: LocationId, cx: &mut Ctx) -> Result<LogCounts, ReadError> {
    let mut input: Box<dyn BufRead> = if bytes.starts_with(&[0x1f, 0x8b]) {
        Box::new(std::io::BufReader::with_capacity(1 << 16, flate2::read::MultiGzDecoder::new(bytes)))
    } else {
        Box::new(bytes)
    };
    let limit = Budget::current().whole_file_bytes;
    let mut counts = LogCounts::default();
    let mut st = State::default();
    let mut line = Vec::new();
    let mut n = 0u64;
    loop {
        line.clear();
        let got = match (&mut input).take(MAX_LINE).read_until(b'\n', &mut line) {
            Ok(g) => g,
            Err(e) => {
                cx.b.warn(WarningKind::Truncated, || {
                    format!("{file}: the log breaks off after line {n} ({e}); the records before are kept")
                });
                break;
            }
        };
        if got == 0 {
            break;
        }
        *cx.inflated += got as u64;
        if *cx.inflated > limit {
            return Err(inflated_too_large(file, "Projections logs", limit));
        }
        n += 1;
        if line.last() != Some(&b'\n') && got as u64 == MAX_LINE {
            // Skip the rest of an overlong line.
            let mut rest = Vec::new();
            loop {
                rest.clear();
                let more = (&mut input).take(MAX_LINE).read_until(b'\n', &mut rest).unwrap_or(0);
                *cx.inflated += more as u64;
                if *cx.inflated > limit {
                    return Err(inflated_too_large(file, "Projections logs", limit));
                }
                if more == 0 || rest.last() == Some(&b'\n') {
                    break;
                }
            }
            cx.b.warn(WarningKind::MalformedRecord, || format!("{file}: line {n} is longer than 1 MiB; skipped"));
            continue;
        }
        let text = String::from_utf8_lossy(&line);
        if n == 1 {
            if !text.starts_with("PROJECTIONS-RECORD") {
                return Err(ReadError::Malformed {
                    file: file.to_string(),
                    format: super::sts::FORMAT,
                    offset: 0,
                    detail: "not a Projections log (it does not start with PROJECTIONS-RECORD)".into(),
                });
            }
            continue;
        }
        if text.trim().is_empty() {
            continue;
        }
        counts.records += 1;
        *cx.records += 1;
        // Each record is at most one interval, instant, message or sample: held to the events a read may make.
        if *cx.records > Budget::current().stream_events {
            Budget::current().admit_events(file, "Projections logs", *cx.records)?;
        }
        if let Err(why) = record(&text, pe, loc, cx, &mut st, &mut counts) {
            cx.b.warn(WarningKind::MalformedRecord, || {
                format!(
                    "{file}: line {n}: {why}: \"{}\"; skipped",
                    text.trim_end().chars().take(80).collect::<String>()
                )
            });
        }
    }
    // What is still open ends at the log's last time.
    let end = st.last;
    if let Some(open) = st.processing.take() {
        cx.b.warn(WarningKind::UnclosedBegin, || {
            format!(
                "{file}: {} begun at {} µs never ends; shown up to the log's last time",
                cx.sts.entry_name(open.entry),
                open.start / 1000
            )
        });
        cx.b.interval(loc, open.region, open.start, end.saturating_sub(open.start).max(0) as u64);
    }
    for (_, (start, region)) in st.pairs.drain() {
        cx.b.interval(loc, region, start, end.saturating_sub(start).max(0) as u64);
    }
    cx.b.add_event_records(counts.records);
    Ok(counts)
}

struct Open {
    entry: i64,
    region: RegionId,
    start: i64,
}

#[derive(Default)]
struct State {
    processing: Option<Open>,
    pack: Option<i64>,
    unpack: Option<i64>,
    /// Open user event pairs by (event id, nested id): start and region.
    pairs: HashMap<(i64, i64), (i64, RegionId)>,
    /// The latest time seen (ns).
    last: i64,
    series: HashMap<i64, u32>,
}

fn fields(text: &str) -> Result<Vec<i64>, String> {
    // Numbers only up to the first field that is not one (notes carry text at their end).
    let mut out = Vec::with_capacity(16);
    for f in text.split_ascii_whitespace().take(64) {
        match f.parse::<i64>() {
            Ok(v) => out.push(v),
            Err(_) if !out.is_empty() => break,
            Err(_) => return Err("the record type is not a number".into()),
        }
    }
    Ok(out)
}

/// µs to ns, refusing what does not fit.
fn ns(us: i64) -> Result<i64, String> {
    us.checked_mul(1000).filter(|t| *t >= 0).ok_or_else(|| format!("time {us} µs is out of range"))
}

fn record(
    text: &str,
    pe: i64,
    loc: LocationId,
    cx: &mut Ctx,
    st: &mut State,
    counts: &mut LogCounts,
) -> Result<(), String> {
    let f = fields(text)?;
    let need =
        |n: usize| if f.len() > n { Ok(()) } else { Err(format!("{} fields where {} are needed", f.len() - 1, n)) };
    let b = &mut *cx.b;
    match f[0] {
        ty::CREATION | ty::CREATION_BCAST | ty::CREATION_MULTICAST => {
            // type mtype entry time event pe msglen [sendTime] [numPEs destPEs...]
            need(6)?;
            let t = ns(f[3])?;
            st.last = st.last.max(t);
            if f[4] >= 0 {
                cx.creations.entry((pe, f[4], f[2])).or_default().push(Creation { time: t, loc });
            }
        }
        ty::BEGIN_PROCESSING => {
            // type mtype entry time event pe msglen [recvTime id... cpuStartTime perf...]
            need(6)?;
            let (entry, t) = (f[2], ns(f[3])?);
            st.last = st.last.max(t);
            if let Some(open) = st.processing.take() {
                b.warn(WarningKind::UnclosedBegin, || {
                    format!(
                        "PE {pe}: {} begun at {} µs did not end before the next began; ended there",
                        cx.sts.entry_name(open.entry),
                        open.start / 1000
                    )
                });
                b.interval(loc, open.region, open.start, (t - open.start).max(0) as u64);
            }
            let region = *cx
                .entry_regions
                .entry(entry)
                .or_insert_with(|| b.region(&cx.sts.entry_name(entry), cx.sts.chare_of(entry)));
            st.processing = Some(Open { entry, region, start: t });
            if f[4] >= 0 && f[5] >= 0 {
                cx.processings.push(Processing { key: (f[5], f[4], entry), time: t, loc, msglen: f[6].max(0) as u64 });
            }
        }
        ty::END_PROCESSING => {
            need(5)?;
            let t = ns(f[3])?;
            st.last = st.last.max(t);
            match st.processing.take() {
                Some(open) => {
                    if open.entry != f[2] {
                        b.warn(WarningKind::MismatchedEnd, || {
                            format!("PE {pe}: the end of entry {} at {} µs closed entry {}", f[2], f[3], open.entry)
                        });
                    }
                    b.interval(loc, open.region, open.start, (t - open.start).max(0) as u64);
                }
                None => b.warn(WarningKind::UnmatchedEnd, || {
                    format!("PE {pe}: the end of entry {} at {} µs has no begin; ignored", f[2], f[3])
                }),
            }
        }
        ty::BEGIN_PACK | ty::END_PACK | ty::BEGIN_UNPACK | ty::END_UNPACK => {
            need(1)?;
            let t = ns(f[1])?;
            st.last = st.last.max(t);
            let (slot, name) =
                if f[0] <= ty::END_PACK { (&mut st.pack, "(pack)") } else { (&mut st.unpack, "(unpack)") };
            if f[0] == ty::BEGIN_PACK || f[0] == ty::BEGIN_UNPACK {
                *slot = Some(t);
            } else if let Some(start) = slot.take() {
                let r = b.region(name, "Projections");
                b.interval(loc, r, start, (t - start).max(0) as u64);
            }
        }
        ty::BEGIN_IDLE | ty::END_IDLE => {
            need(1)?;
            st.last = st.last.max(ns(f[1])?);
            counts.idle += (f[0] == ty::BEGIN_IDLE) as u64;
        }
        ty::BEGIN_COMPUTATION | ty::END_COMPUTATION | ty::BEGIN_TRACE | ty::END_TRACE => {
            need(1)?;
            st.last = st.last.max(ns(f[1])?);
        }
        ty::USER_EVENT => {
            // type eventID time event pe
            need(2)?;
            let t = ns(f[2])?;
            st.last = st.last.max(t);
            let name = cx.sts.events.get(&f[1]).cloned().unwrap_or_else(|| format!("user event {}", f[1]));
            let r = b.region(&name, "user event");
            b.instant(loc, r, t);
        }
        ty::BEGIN_USER_EVENT_PAIR | ty::END_USER_EVENT_PAIR => {
            // type eventID time event pe [nestedID]
            need(3)?;
            let t = ns(f[2])?;
            st.last = st.last.max(t);
            // Begin and end are matched by event id and nested id (their event numbers differ).
            let key = (f[1], f.get(5).copied().unwrap_or(0));
            if f[0] == ty::BEGIN_USER_EVENT_PAIR {
                let name = cx.sts.events.get(&f[1]).cloned().unwrap_or_else(|| format!("user event {}", f[1]));
                let r = b.region(&name, "user event");
                st.pairs.insert(key, (t, r));
            } else if let Some((start, r)) = st.pairs.remove(&key) {
                b.interval(loc, r, start, (t - start).max(0) as u64);
            } else {
                b.warn(WarningKind::UnmatchedEnd, || {
                    format!("PE {pe}: the end of user event {} at {} µs has no begin; ignored", f[1], f[2])
                });
            }
        }
        ty::USER_STAT => {
            // type time userTime stat pe statID (userTime and stat may be decimals)
            let parts: Vec<&str> = text.split_ascii_whitespace().collect();
            if parts.len() < 6 {
                return Err(format!("{} fields where 5 are needed", parts.len() - 1));
            }
            let t = ns(parts[1].parse().map_err(|_| "the time is not a number".to_string())?)?;
            let value: f64 = parts[3].parse().map_err(|_| "the value is not a number".to_string())?;
            let id: i64 = parts[5].parse().map_err(|_| "the stat id is not a number".to_string())?;
            st.last = st.last.max(t);
            let process = b.process(pe);
            let series = *st.series.entry(id).or_insert_with(|| {
                let name = cx.sts.stats.get(&id).cloned().unwrap_or_else(|| format!("user stat {id}"));
                b.counter_series(process, &name)
            });
            b.counter_sample(series, t, value);
        }
        ty::MEMORY_USAGE => {
            // type memUsage time
            need(2)?;
            let t = ns(f[2])?;
            st.last = st.last.max(t);
            let process = b.process(pe);
            let series = *st.series.entry(i64::MIN).or_insert_with(|| b.counter_series(process, "memory usage"));
            b.counter_sample(series, t, f[1] as f64);
        }
        ty::ENQUEUE
        | ty::DEQUEUE
        | ty::BEGIN_INTERRUPT
        | ty::END_INTERRUPT
        | ty::MESSAGE_RECV
        | ty::BEGIN_FUNC
        | ty::END_FUNC
        | ty::USER_SUPPLIED
        | ty::USER_SUPPLIED_NOTE
        | ty::USER_SUPPLIED_BRACKETED_NOTE
        | ty::USER_EVENT_PAIR => {}
        other => {
            b.warn(WarningKind::UnknownRecord, || {
                format!("PE {pe}: record type {other} is not one Projections defines; skipped")
            });
        }
    }
    Ok(())
}
