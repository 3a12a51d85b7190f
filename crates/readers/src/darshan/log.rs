//! The Darshan log container (darshan-util's `darshan-logutils.c`, `include/darshan-log-format.h`): an
//! uncompressed header (version string, magic number telling the byte order, compression, the map of each
//! region), then compressed regions: the job record, the name records (record id -> file name) and one region
//! per module. Versions 3.00 to 3.41 (what darshan-util 3.5 reads): 16 modules in the header before 3.41, 64
//! from it; the module ids shifted by the H5D (3.20) and PNETCDF_VAR (3.41) modules are mapped to today's.
//!
//! A region is one or more zlib (or bzip2) streams one after another, or raw bytes (`DARSHAN_NO_COMP`).
//! Every length and offset is checked against the file and a budget before anything is allocated; a region
//! that inflates past [`MAX_REGION_BYTES`] is refused. Must not: interpret a module's records (`dxt`, `posix`).

use crate::ReadError;
use std::collections::HashMap;

pub(super) const FORMAT: &str = "Darshan log";
pub const MAGIC: i64 = 6567223;
/// The most a region may inflate to (a gzip bomb is refused, not held).
pub const MAX_REGION_BYTES: usize = 1 << 30;

/// Today's module ids (darshan-log-format.h, 3.41).
pub const POSIX_MOD: usize = 1;
pub const MPIIO_MOD: usize = 2;
pub const DXT_POSIX_MOD: usize = 10;
pub const DXT_MPIIO_MOD: usize = 11;
const H5D_MOD: usize = 4;
const PNETCDF_VAR_MOD: usize = 6;
const MAX_MODS: usize = 64;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    Zlib,
    Bzip2,
    None,
}

/// Where a region lies in the file (compressed).
#[derive(Clone, Copy, Debug, Default)]
pub struct Region {
    pub off: u64,
    pub len: u64,
}

/// The job record.
#[derive(Clone, Debug, Default)]
pub struct Job {
    pub start_ns: i64,
    pub end_ns: i64,
    pub nprocs: i64,
    pub jobid: i64,
    /// The executable's command line (the job record's trailing text, up to its first NUL or newline).
    pub exe: String,
}

/// A log's header, read.
pub struct Log<'a> {
    pub file: &'a str,
    pub bytes: &'a [u8],
    pub version: (u32, u32),
    pub swap: bool,
    pub compression: Compression,
    job: Region,
    names: Region,
    pub modules: [Region; MAX_MODS],
    pub module_version: [u32; MAX_MODS],
    pub partial: u64,
}

/// Whether `bytes` start like a Darshan log: a "3.xx" version string, then the magic number in either order.
pub fn looks_like_log(bytes: &[u8]) -> bool {
    bytes.len() >= 16 && bytes[0].is_ascii_digit() && bytes[1] == b'.' && {
        let m = i64::from_le_bytes(bytes[8..16].try_into().expect("8 bytes"));
        m == MAGIC || m.swap_bytes() == MAGIC
    }
}

impl<'a> Log<'a> {
    pub fn bad(&self, offset: u64, detail: impl Into<String>) -> ReadError {
        malformed(self.file, offset, detail)
    }

    pub fn u64_at(&self, b: &[u8], at: usize) -> Option<u64> {
        let v = u64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?);
        Some(if self.swap { v.swap_bytes() } else { v })
    }

    pub fn i64_at(&self, b: &[u8], at: usize) -> Option<i64> {
        self.u64_at(b, at).map(|v| v as i64)
    }

    pub fn f64_at(&self, b: &[u8], at: usize) -> Option<f64> {
        self.u64_at(b, at).map(f64::from_bits)
    }

    fn u32_at(&self, b: &[u8], at: usize) -> Option<u32> {
        let v = u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?);
        Some(if self.swap { v.swap_bytes() } else { v })
    }

    /// Read the header.
    pub fn open(file: &'a str, bytes: &'a [u8]) -> Result<Log<'a>, ReadError> {
        let bad = |offset: u64, d: String| malformed(file, offset, d);
        if bytes.len() < 16 {
            return Err(bad(0, format!("the file is {} bytes, shorter than a Darshan header", bytes.len())));
        }
        let text: String =
            bytes[..8].iter().take_while(|&&c| c != 0).map(|&c| c as char).collect::<String>().trim().to_string();
        let version = text
            .split_once('.')
            .and_then(|(a, b)| Some((a.parse::<u32>().ok()?, b.parse::<u32>().ok()?)))
            .ok_or_else(|| bad(0, format!("version string {text:?} is not MAJOR.MINOR")))?;
        if version.0 != 3 || ![0, 10, 20, 21, 41].contains(&version.1) {
            return Err(bad(
                0,
                format!("log format version {text} (weft reads 3.00 to 3.41, as darshan-util 3.5 does)"),
            ));
        }
        let m = i64::from_le_bytes(bytes[8..16].try_into().expect("8 bytes"));
        let swap = if m == MAGIC {
            false
        } else if m.swap_bytes() == MAGIC {
            true
        } else {
            return Err(bad(8, format!("magic number {m} is not Darshan's ({MAGIC}) in either byte order")));
        };
        let new = version.1 >= 41;
        // The C struct's layout: comp_type at 16; partial_flag at 24 (u64, 3.41) or 20 (u32); the maps after.
        let (mods, partial_at, maps_at): (usize, usize, usize) = if new { (64, 24, 32) } else { (16, 20, 24) };
        let header_len = maps_at + 16 * (1 + mods) + 4 * mods;
        // Rounded up to the struct's 8-byte alignment.
        let header_len = header_len.div_ceil(8) * 8;
        if bytes.len() < header_len {
            return Err(bad(
                bytes.len() as u64,
                format!("the file ends inside its header ({} of {header_len} bytes)", bytes.len()),
            ));
        }
        let mut log = Log {
            file,
            bytes,
            version,
            swap,
            compression: Compression::None,
            job: Region::default(),
            names: Region::default(),
            modules: [Region::default(); MAX_MODS],
            module_version: [0; MAX_MODS],
            partial: 0,
        };
        log.compression = match bytes[16] {
            0 => Compression::Zlib,
            1 => Compression::Bzip2,
            2 => Compression::None,
            c => return Err(bad(16, format!("compression type {c} (0 zlib, 1 bzip2, 2 none)"))),
        };
        log.partial = if new {
            log.u64_at(bytes, partial_at).unwrap_or(0)
        } else {
            log.u32_at(bytes, partial_at).unwrap_or(0) as u64
        };
        let map = |log: &Log, k: usize| Region {
            off: log.u64_at(bytes, maps_at + 16 * k).unwrap_or(0),
            len: log.u64_at(bytes, maps_at + 16 * k + 8).unwrap_or(0),
        };
        log.names = map(&log, 0);
        let mut modules = vec![Region::default(); mods];
        let mut versions = vec![0u32; mods];
        for k in 0..mods {
            modules[k] = map(&log, 1 + k);
            versions[k] = log.u32_at(bytes, maps_at + 16 * (1 + mods) + 4 * k).unwrap_or(0);
        }
        // Module ids as today's: H5D came at 3.20, PNETCDF_VAR at 3.41 (each shifted the later ids by one).
        let mut shift = |at: usize| {
            modules.insert(at, Region::default());
            versions.insert(at, 0);
        };
        if version.1 < 20 {
            shift(H5D_MOD);
        }
        if version.1 < 41 {
            shift(PNETCDF_VAR_MOD);
        }
        let n = MAX_MODS.min(modules.len());
        log.modules[..n].copy_from_slice(&modules[..n]);
        log.module_version[..n].copy_from_slice(&versions[..n]);
        let job_off = header_len as u64;
        // The job region runs to the name map (or the first module, or the file's end).
        let next = if log.names.off != 0 {
            log.names.off
        } else {
            log.modules.iter().find(|m| m.off != 0).map_or(bytes.len() as u64, |m| m.off)
        };
        log.job = Region { off: job_off, len: next.saturating_sub(job_off) };
        Ok(log)
    }

    /// A region's bytes, decompressed.
    pub fn region(&self, r: Region, what: &str) -> Result<Vec<u8>, ReadError> {
        if r.len == 0 {
            return Ok(Vec::new());
        }
        let end = r.off.checked_add(r.len).filter(|&e| e <= self.bytes.len() as u64).ok_or_else(|| {
            self.bad(
                r.off,
                format!(
                    "the {what} region ({} bytes at {}) runs past the file's end ({} bytes): a truncated log",
                    r.len,
                    r.off,
                    self.bytes.len()
                ),
            )
        })?;
        let raw = &self.bytes[r.off as usize..end as usize];
        match self.compression {
            Compression::None => Ok(raw.to_vec()),
            Compression::Zlib => inflate_all(raw).map_err(|d| self.bad(r.off, format!("the {what} region: zlib: {d}"))),
            Compression::Bzip2 => {
                bunzip_all(raw).map_err(|d| self.bad(r.off, format!("the {what} region: bzip2: {d}")))
            }
        }
    }

    pub fn job(&self) -> Result<Job, ReadError> {
        let b = self.region(self.job, "job")?;
        let new = self.version.1 >= 41;
        let fixed = if new { 7 * 8 } else { 5 * 8 };
        if b.len() < fixed {
            return Err(self.bad(self.job.off, format!("the job record is {} bytes, shorter than {fixed}", b.len())));
        }
        let i = |k: usize| self.i64_at(&b, 8 * k).unwrap_or(0);
        let (start_s, start_ns, end_s, end_ns, nprocs, jobid) =
            if new { (i(1), i(2), i(3), i(4), i(5), i(6)) } else { (i(1), 0, i(2), 0, i(3), i(4)) };
        let ns = |s: i64, n: i64| s.saturating_mul(1_000_000_000).saturating_add(n);
        // The executable follows the metadata (1024 bytes).
        let exe_at = fixed + 1024;
        let exe = b
            .get(exe_at..)
            .map(|t| {
                let end = t.iter().position(|&c| c == 0 || c == b'\n').unwrap_or(t.len());
                String::from_utf8_lossy(&t[..end]).into_owned()
            })
            .unwrap_or_default();
        Ok(Job { start_ns: ns(start_s, start_ns), end_ns: ns(end_s, end_ns), nprocs, jobid, exe })
    }

    /// The name records: record id -> name.
    pub fn names(&self) -> Result<HashMap<u64, String>, ReadError> {
        let b = self.region(self.names, "name")?;
        let mut out = HashMap::new();
        let mut at = 0usize;
        let old = self.version.1 == 0;
        while at + 8 < b.len() {
            let id = self.u64_at(&b, at).unwrap_or(0);
            let (name, next) = if old {
                // 3.00: id, a u32 length, then the name (no NUL).
                let n = self.u32_at(&b, at + 8).unwrap_or(0) as usize;
                let s = at + 12;
                let Some(text) = b.get(s..s.saturating_add(n)) else {
                    return Err(self.bad(self.names.off, "a name record runs past its region"));
                };
                (text, s + n)
            } else {
                let rest = &b[at + 8..];
                let Some(end) = rest.iter().position(|&c| c == 0) else {
                    return Err(self.bad(self.names.off, "a name record has no terminating NUL"));
                };
                (&rest[..end], at + 8 + end + 1)
            };
            let name = String::from_utf8_lossy(name).into_owned();
            let e = out.entry(id).or_insert_with(String::new);
            if e.is_empty() {
                *e = name;
            }
            at = next;
        }
        Ok(out)
    }
}

pub(super) fn malformed(file: &str, offset: u64, detail: impl Into<String>) -> ReadError {
    ReadError::Malformed { file: file.to_string(), format: FORMAT, offset, detail: detail.into() }
}

/// Inflate one or more zlib streams one after another.
fn inflate_all(raw: &[u8]) -> Result<Vec<u8>, String> {
    use flate2::{Decompress, FlushDecompress, Status};
    let mut out: Vec<u8> = Vec::with_capacity(raw.len().saturating_mul(4).min(MAX_REGION_BYTES));
    let mut input = raw;
    while !input.is_empty() {
        let mut z = Decompress::new(true);
        loop {
            if out.len() == out.capacity() {
                if out.len() >= MAX_REGION_BYTES {
                    return Err(format!("inflates past {} MiB", MAX_REGION_BYTES >> 20));
                }
                out.reserve(out.len().max(64 * 1024));
            }
            let (before_in, before_out) = (z.total_in(), z.total_out());
            let status = z.decompress_vec(input, &mut out, FlushDecompress::None).map_err(|e| e.to_string())?;
            let used = (z.total_in() - before_in) as usize;
            input = &input[used..];
            match status {
                Status::StreamEnd => break,
                _ if used == 0 && z.total_out() == before_out && out.len() < out.capacity() => {
                    return Err("the stream ends early (a truncated log)".into());
                }
                _ => {}
            }
        }
    }
    Ok(out)
}

/// Decompress one or more bzip2 streams one after another.
fn bunzip_all(raw: &[u8]) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let mut out = Vec::new();
    let mut r = bzip2_rs::DecoderReader::new(raw).take(MAX_REGION_BYTES as u64 + 1);
    r.read_to_end(&mut out).map_err(|e| e.to_string())?;
    if out.len() > MAX_REGION_BYTES {
        return Err(format!("decompresses past {} MiB", MAX_REGION_BYTES >> 20));
    }
    Ok(out)
}
