//! Charm++ Projections traces: a `NAME.sts` (the names) and one log per PE, `NAME.PE.log` or `NAME.PE.log.gz`,
//! dropped as a folder (or given as the folder or the .sts on the command line).
//!
//! Layers: `sts` (names and the PE count), `log` (one PE's records into the builder); this file finds the
//! files, makes a process and location per PE, and matches messages: a message created on one PE (CREATION,
//! CREATION_BCAST, CREATION_MULTICAST: the creating PE, its event number, the entry method it is for) is
//! processed where a BEGIN_PROCESSING names the same PE, event and entry; each such pair is a message from the
//! creation to the processing (the latest creation at or before the processing, a broadcast giving one per
//! receiving PE). Idle time is a gap. A PE whose log is missing is a warning; the others are shown.
//!
//! Must not: read the logs whole into memory when gzipped (they stream through the decoder, held to the
//! budget); panic on any text.

mod log;
mod sts;

use crate::otf2::MemoryFiles;
use crate::ReadError;
use std::collections::HashMap;
use weft_model::{Format, LocationId, LocationKind, MessageKind, MessageRecord, Trace, TraceBuilder, WarningKind};

/// A message's creation: when and on which PE's location.
#[derive(Clone, Copy, Debug)]
struct Creation {
    time: i64,
    loc: LocationId,
}

/// A BEGIN_PROCESSING of a message: (creating PE, event, entry), when, where, the message's length.
#[derive(Clone, Copy, Debug)]
struct Processing {
    key: (i64, i64, i64),
    time: i64,
    loc: LocationId,
    msglen: u64,
}

/// A Projections trace found in a set of files: the .sts and each PE's log (paths into the set).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    pub sts: String,
    /// (PE, path), by PE.
    pub logs: Vec<(u32, String)>,
}

/// Whether `bytes` are a Projections .sts (by its first line).
pub fn is_sts(bytes: &[u8]) -> bool {
    bytes.starts_with(b"PROJECTIONS_ID")
}

/// The PE a log's path names, when it is `STEM.PE.log` or `STEM.PE.log.gz`.
pub fn log_pe(stem: &str, path: &str) -> Option<u32> {
    let rest = path.strip_prefix(stem)?.strip_prefix('.')?;
    let pe = rest.strip_suffix(".log.gz").or_else(|| rest.strip_suffix(".log"))?;
    if pe.is_empty() || !pe.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    pe.parse().ok()
}

/// Find a Projections trace among `files`: the first .sts by its content, and the logs beside it named after it.
pub fn find(files: &MemoryFiles) -> Option<Found> {
    let sts = files.files.iter().find(|(_, b)| is_sts(b)).map(|(p, _)| p.clone())?;
    let stem = sts.strip_suffix(".sts").unwrap_or(&sts);
    let mut logs: Vec<(u32, String)> =
        files.files.keys().filter_map(|p| log_pe(stem, p).map(|pe| (pe, p.clone()))).collect();
    logs.sort();
    logs.dedup_by_key(|l| l.0);
    Some(Found { sts, logs })
}

/// The error for one part of a Projections trace given alone.
pub fn alone(name: &str) -> ReadError {
    ReadError::UnknownFormat {
        file: name.to_string(),
        detail: "one file of a Charm++ Projections trace; open the folder holding its .sts and per-PE logs \
                 (NAME.sts, NAME.0.log.gz, ...)"
            .into(),
    }
}

/// What the read counted beyond the trace, for the tests.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Counts {
    /// Records per PE log (lines after the header).
    pub records: Vec<u64>,
    pub idle: u64,
    pub messages: u64,
}

/// Read the trace `found` in `files`; `name` names the folder in messages.
pub fn read_files(name: &str, files: &MemoryFiles, found: &Found) -> Result<Trace, ReadError> {
    read_counted(name, files, found).map(|(t, _)| t)
}

/// [`read_files`], with what was counted.
pub fn read_counted(name: &str, files: &MemoryFiles, found: &Found) -> Result<(Trace, Counts), ReadError> {
    let mut b = TraceBuilder::new(Format::Projections);
    let sts = sts::parse(&found.sts, &files.files[&found.sts], b.warnings_mut())?;
    if found.logs.is_empty() {
        return Err(ReadError::Empty {
            file: name.to_string(),
            format: sts::FORMAT,
            detail: format!(" (no per-PE logs beside {}: NAME.0.log or NAME.0.log.gz)", found.sts),
        });
    }
    // Missing logs: a warning for each of the first few, the rest counted (PROCESSORS may be anything).
    let present = found.logs.iter().filter(|l| l.0 < sts.processors).count() as u64;
    let missing = sts.processors as u64 - present;
    let mut named = 0u64;
    for pe in (0..sts.processors).filter(|pe| found.logs.binary_search_by_key(pe, |l| l.0).is_err()).take(8) {
        named += 1;
        b.warn(WarningKind::Other, || {
            format!(
                "{name}: PE {pe}'s log is missing ({} lists {} PEs); the others are shown",
                found.sts, sts.processors
            )
        });
    }
    b.warnings_mut().add_count(WarningKind::Other, missing - named);
    let mut entry_regions = HashMap::new();
    let mut creations: HashMap<(i64, i64, i64), Vec<Creation>> = HashMap::new();
    let mut processings = Vec::new();
    let mut inflated = 0u64;
    let mut records = 0u64;
    let mut counts = Counts::default();
    for (pe, path) in &found.logs {
        let p = b.process(*pe as i64);
        b.set_process_name(p, &format!("PE {pe}"));
        let loc = b.location(p, *pe as i64, LocationKind::CpuThread);
        b.set_location_name(loc, &format!("PE {pe}"));
        let mut cx = log::Ctx {
            b: &mut b,
            sts: &sts,
            entry_regions: &mut entry_regions,
            creations: &mut creations,
            processings: &mut processings,
            inflated: &mut inflated,
            records: &mut records,
        };
        let c = log::read(path, &files.files[path], *pe as i64, loc, &mut cx)?;
        counts.records.push(c.records);
        counts.idle += c.idle;
    }
    counts.messages = messages(&mut b, &sts, &mut creations, &processings);
    Ok((b.finish(), counts))
}

/// Each processing whose creation is in the logs becomes a message; the number made.
fn messages(
    b: &mut TraceBuilder,
    sts: &sts::Sts,
    creations: &mut HashMap<(i64, i64, i64), Vec<Creation>>,
    processings: &[Processing],
) -> u64 {
    for v in creations.values_mut() {
        v.sort_by_key(|c| c.time);
    }
    let mut names: HashMap<i64, weft_model::StringId> = HashMap::new();
    let mut made = 0;
    for p in processings {
        let Some(list) = creations.get(&p.key) else { continue };
        // The latest creation at or before the processing, else the first (clocks of two PEs may differ).
        let i = list.partition_point(|c| c.time <= p.time);
        let c = list[i.saturating_sub(1)];
        let entry = p.key.2;
        let name = *names.entry(entry).or_insert_with(|| b.intern(&sts.entry_name(entry)));
        b.message(MessageRecord {
            kind: MessageKind::PointToPoint,
            sender: c.loc,
            receiver: p.loc,
            send_ns: c.time,
            recv_ns: p.time.max(c.time),
            posted_ns: p.time.max(c.time),
            size_bytes: p.msglen,
            tag: u32::try_from(entry).unwrap_or(u32::MAX),
            name,
        });
        made += 1;
    }
    made
}
