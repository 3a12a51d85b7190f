//! POSIX file records (`include/darshan-posix-log-format.h`, module versions 2 to 4, read as
//! darshan-posix-logutils up-converts them): per file and rank, integer counters then double counters. The
//! ones shown: opens, reads, writes, bytes read and written, read, write and metadata time; the interval is
//! [open start, close end] when both were recorded (a file opened and never closed has none).
//!
//! Must not: read a version whose layout it does not know (version 1 mixed STDIO counters in: refused with a
//! warning, as darshan-util skips such records).

use super::log::{Log, POSIX_MOD};
use super::Build;
use crate::ReadError;
use weft_model::{ArgKind, WarningKind};

/// Per module version: integer and double counters, and the indices used (opens, reads, writes, bytes read,
/// bytes written; open start, close end, read, write and meta time).
struct Layout {
    ints: usize,
    doubles: usize,
    opens: usize,
    reads: usize,
    writes: usize,
    bytes_read: usize,
    bytes_written: usize,
    open_start: usize,
    close_end: usize,
    read_time: usize,
    write_time: usize,
    meta_time: usize,
}

fn layout(version: u32) -> Option<Layout> {
    // Version 4 added FILENOS and DUPS (after OPENS) and the three RENAME counters (after FDSYNCS); version 3
    // added CLOSE_START and OPEN_END timestamps (after WRITE_START).
    let (ints, reads, writes, bytes_read, bytes_written) = match version {
        4 => (69, 3, 4, 14, 15),
        2 | 3 => (64, 1, 2, 9, 10),
        _ => return None,
    };
    let (doubles, close_end, read_time) = if version >= 3 { (17, 7, 8) } else { (15, 5, 6) };
    Some(Layout {
        ints,
        doubles,
        opens: 0,
        reads,
        writes,
        bytes_read,
        bytes_written,
        open_start: 0,
        close_end,
        read_time,
        write_time: read_time + 1,
        meta_time: read_time + 2,
    })
}

/// Read the POSIX records into `build`; the intervals made.
pub(super) fn read(log: &Log, build: &mut Build) -> Result<u64, ReadError> {
    let region = log.modules[POSIX_MOD];
    if region.len == 0 {
        return Ok(0);
    }
    let version = log.module_version[POSIX_MOD];
    let Some(lay) = layout(version) else {
        let f = log.file.to_string();
        build.b.warn(WarningKind::UnknownRecord, || {
            format!("{f}: POSIX module version {version}: its records are not read (weft reads versions 2 to 4)")
        });
        return Ok(0);
    };
    let b = log.region(region, "POSIX")?;
    let size = 16 + 8 * (lay.ints + lay.doubles);
    if b.len() % size != 0 {
        return Err(log.bad(
            region.off,
            format!("the POSIX region inflates to {} bytes, not a whole number of {size}-byte records", b.len()),
        ));
    }
    let mut made = 0u64;
    for rec in b.chunks_exact(size) {
        let id = log.u64_at(rec, 0).unwrap_or(0);
        let rank = log.i64_at(rec, 8).unwrap_or(0);
        let int = |k: usize| log.i64_at(rec, 16 + 8 * k).unwrap_or(0);
        let dbl = |k: usize| log.f64_at(rec, 16 + 8 * (lay.ints + k)).unwrap_or(0.0);
        let (open, close) = (dbl(lay.open_start), dbl(lay.close_end));
        if !(open > 0.0 && close >= open) {
            continue;
        }
        let file = build.file_name(id);
        let l = build.location(rank, "POSIX file", id, 0, &format!("POSIX {file}"));
        let args = [
            ("file", ArgKind::Text, file.clone()),
            ("opens", ArgKind::Number, int(lay.opens).to_string()),
            ("reads", ArgKind::Number, int(lay.reads).to_string()),
            ("writes", ArgKind::Number, int(lay.writes).to_string()),
            ("bytes read", ArgKind::Number, int(lay.bytes_read).to_string()),
            ("bytes written", ArgKind::Number, int(lay.bytes_written).to_string()),
            ("read time (s)", ArgKind::Number, dbl(lay.read_time).to_string()),
            ("write time (s)", ArgKind::Number, dbl(lay.write_time).to_string()),
            ("meta time (s)", ArgKind::Number, dbl(lay.meta_time).to_string()),
        ];
        build.io(l, "file", "POSIX", open, close, &args);
        made += 1;
    }
    Ok(made)
}
