//! `profile.db` (each profile's hierarchical identifier tuple: node, rank, thread, GPU stream...) and
//! `trace.db` (the trace lines: per profile, samples of a timestamp and a context id).
//!
//! Bounded like `meta.rs`: counts are checked against the file before allocating; a trace line that runs past
//! the end of the file (a cut file) keeps the whole samples before the cut, with a warning.

use super::bin::Bin;
use crate::ReadError;
use weft_model::{WarningKind, Warnings};

/// One identification in a profile's tuple.
#[derive(Clone, Copy, Debug)]
pub(super) struct Id {
    pub kind: u8,
    pub logical: u32,
}

/// Profiles by index: the identifier tuple of each (empty for the summary profile), whether it is a summary.
pub(super) struct Profiles {
    pub tuples: Vec<Vec<Id>>,
    pub summary: Vec<bool>,
}

pub(super) fn profiles(bin: Bin) -> Result<Profiles, ReadError> {
    let secs = bin.header(b"prof", 2)?;
    let at = secs[0].1;
    let p = bin.u64(at, "the profiles' pointer")?;
    let n = bin.u32(at + 8, "the number of profiles")? as u64;
    let stride = bin.u8(at + 12, "the size of a profile record")? as u64;
    if n > 0 && stride < 0x28 {
        return Err(bin.bad(at + 12, format!("a profile record of {stride} bytes; version 4.0's is 40 or more")));
    }
    bin.fits(p, n, stride, "profile records")?;
    let mut out = Profiles { tuples: Vec::with_capacity(n as usize), summary: Vec::with_capacity(n as usize) };
    for i in 0..n {
        let rec = p + i * stride;
        let p_tuple = bin.u64(rec + 0x20, "a profile's identifier tuple pointer")?;
        let flags = if stride >= 0x2c { bin.u32(rec + 0x28, "a profile's flags")? } else { 0 };
        let mut ids = Vec::new();
        if p_tuple != 0 {
            let n_ids = bin.u16(p_tuple, "an identifier tuple's length")? as u64;
            bin.fits(p_tuple + 8, n_ids, 16, "identifications")?;
            for k in 0..n_ids {
                let id = p_tuple + 8 + 16 * k;
                ids.push(Id {
                    kind: bin.u8(id, "an identification's kind")?,
                    logical: bin.u32(id + 4, "a logical id")?,
                });
            }
        }
        out.tuples.push(ids);
        out.summary.push(flags & 1 != 0);
    }
    Ok(out)
}

/// One trace line: its profile and where its samples lie.
pub(super) struct Line {
    pub profile: u32,
    /// Byte offset of the first sample and the number of whole samples.
    pub start: u64,
    pub samples: u64,
}

pub(super) const SAMPLE_BYTES: u64 = 12;

pub(super) fn lines(bin: Bin, warnings: &mut Warnings) -> Result<Vec<Line>, ReadError> {
    let secs = bin.header(b"trce", 1)?;
    let at = secs[0].1;
    let p = bin.u64(at, "the trace headers' pointer")?;
    let n = bin.u32(at + 8, "the number of traces")? as u64;
    let stride = bin.u8(at + 12, "the size of a trace header")? as u64;
    if n > 0 && stride < 0x18 {
        return Err(bin.bad(at + 12, format!("a trace header of {stride} bytes; version 4.0's is 24")));
    }
    bin.fits(p, n, stride, "trace headers")?;
    let len = bin.b.len() as u64;
    let mut out = Vec::with_capacity(n as usize);
    for i in 0..n {
        let rec = p + i * stride;
        let profile = bin.u32(rec, "a trace's profile index")?;
        let start = bin.u64(rec + 8, "a trace's start pointer")?;
        let end = bin.u64(rec + 0x10, "a trace's end pointer")?;
        if end < start {
            return Err(bin.bad(rec + 8, format!("trace {i} ends (byte {end}) before it starts (byte {start})")));
        }
        let mut samples = (end - start) / SAMPLE_BYTES;
        if start.saturating_add(samples * SAMPLE_BYTES) > len {
            let kept = len.saturating_sub(start) / SAMPLE_BYTES;
            warnings.push(WarningKind::Truncated, || {
                format!(
                    "{}: trace {i} (profile {profile}) runs to byte {end}, past the end of the file ({len} bytes); \
                     its first {kept} of {samples} samples are kept",
                    bin.name
                )
            });
            samples = kept;
        }
        out.push(Line { profile, start, samples });
    }
    Ok(out)
}
