//! DXT records (`include/darshan-dxt-log-format.h`): per file and rank, a 104-byte header (record id, rank,
//! shared flag, hostname, write and read counts) then that many segments (offset, length, start and end
//! seconds, and from DXT POSIX version 2 and DXT MPI-IO version 3 on a pthread id: 40 bytes, else 32), writes
//! first. DXT MPI-IO version 1 recorded no offsets (shown as -1, as darshan-util does).
//!
//! Must not: trust a count (each is checked against the bytes left before a segment is read).

use super::log::Log;
use crate::ReadError;

/// One segment as the log gives it.
pub(super) struct Segment {
    pub module: &'static str,
    pub rank: i64,
    pub file: u64,
    pub write: bool,
    pub offset: i64,
    pub length: i64,
    pub start: f64,
    pub end: f64,
    pub thread: u64,
    pub host: String,
}

const HEADER: usize = 104;

/// Module `module`'s DXT segments, appended to `out`.
pub(super) fn read(log: &Log, module: usize, label: &'static str, out: &mut Vec<Segment>) -> Result<(), ReadError> {
    let region = log.modules[module];
    if region.len == 0 {
        return Ok(());
    }
    let version = log.module_version[module];
    let newest = if label == "POSIX" { 2 } else { 3 };
    if version == 0 || version > newest {
        return Err(log.bad(region.off, format!("DXT {label} module version {version} (weft reads 1 to {newest})")));
    }
    let with_thread = if label == "POSIX" { version >= 2 } else { version >= 3 };
    let segment = if with_thread { 40 } else { 32 };
    let no_offsets = label == "MPI-IO" && version == 1;
    let b = log.region(region, &format!("DXT {label}"))?;
    let mut at = 0usize;
    while at < b.len() {
        let bad = |d: String| log.bad(region.off, format!("DXT {label} region, byte {at} inflated: {d}"));
        if b.len() - at < HEADER {
            return Err(bad(format!("a record header is cut short ({} of {HEADER} bytes)", b.len() - at)));
        }
        let id = log.u64_at(&b, at).unwrap_or(0);
        let rank = log.i64_at(&b, at + 8).unwrap_or(0);
        let host_raw = &b[at + 24..at + 88];
        let host =
            String::from_utf8_lossy(&host_raw[..host_raw.iter().position(|&c| c == 0).unwrap_or(64)]).into_owned();
        let writes = log.i64_at(&b, at + 88).unwrap_or(-1);
        let reads = log.i64_at(&b, at + 96).unwrap_or(-1);
        let left = ((b.len() - at - HEADER) / segment) as i64;
        if writes < 0 || reads < 0 || writes.saturating_add(reads) > left {
            return Err(bad(format!("{writes} writes and {reads} reads, but room for {left} segments")));
        }
        at += HEADER;
        for k in 0..(writes + reads) as usize {
            let s = at + k * segment;
            let offset = log.i64_at(&b, s).unwrap_or(0);
            let length = log.i64_at(&b, s + 8).unwrap_or(0);
            let start = log.f64_at(&b, s + 16).unwrap_or(0.0);
            let end = log.f64_at(&b, s + 24).unwrap_or(0.0);
            let thread = if with_thread { log.u64_at(&b, s + 32).unwrap_or(0) } else { 0 };
            let offset = if no_offsets { -1 } else { offset };
            out.push(Segment {
                module: label,
                rank,
                file: id,
                write: (k as i64) < writes,
                offset,
                length,
                start,
                end,
                thread,
                host: host.clone(),
            });
        }
        at += (writes + reads) as usize * segment;
    }
    Ok(())
}
