//! Archive containers held in memory: zip (deflate or stored), tar, and gzip-compressed tar. They are unpacked
//! into [`MemoryFiles`] so the OTF2 reader sees the same named files as from a folder. Only the files an OTF2
//! archive is made of (`.otf2`, `.def`, `.evt`) are kept, at any depth.
//!
//! Bounded: the total unpacked size is capped by a budget (a zip bomb is refused with a clear error, never
//! allowed to exhaust memory). No filesystem access: bytes in, named bytes out.

use crate::model::Trace;
use crate::readers::otf2::{self, MemoryFiles};
use crate::readers::ReadError;
use std::io::Read;

/// Default cap on the bytes an archive may unpack to (4 GiB).
#[cfg(not(target_arch = "wasm32"))]
pub const DEFAULT_BUDGET_BYTES: u64 = 4 << 30;
/// In the browser a worker's wasm memory tops out near 4 GiB in all: unpack at most 1 GiB.
#[cfg(target_arch = "wasm32")]
pub const DEFAULT_BUDGET_BYTES: u64 = 1 << 30;

/// The container kinds this module unpacks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Container {
    Zip,
    Tar,
    TarGz,
}

fn wanted(path: &str) -> bool {
    path.ends_with(".otf2") || path.ends_with(".def") || path.ends_with(".evt")
}

fn too_big(name: &str, budget: u64) -> ReadError {
    ReadError::Io {
        file: name.to_string(),
        detail: format!("the archive unpacks to more than {budget} bytes (the limit); refusing it"),
    }
}

/// Read one entry into memory, charging its bytes to the budget.
fn take_entry<R: Read>(name: &str, r: R, used: &mut u64, budget: u64) -> Result<Vec<u8>, ReadError> {
    let left = budget.saturating_sub(*used);
    let mut out = Vec::new();
    r.take(left.saturating_add(1))
        .read_to_end(&mut out)
        .map_err(|e| ReadError::Decompress { file: name.to_string(), detail: e.to_string() })?;
    if out.len() as u64 > left {
        return Err(too_big(name, budget));
    }
    *used += out.len() as u64;
    Ok(out)
}

/// Unpack a zip archive (stored or deflate entries).
pub fn unpack_zip(name: &str, bytes: &[u8], budget: u64) -> Result<MemoryFiles, ReadError> {
    let bad = |detail: String| ReadError::Malformed { file: name.to_string(), format: "zip", offset: 0, detail };
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).map_err(|e| bad(e.to_string()))?;
    let mut files = MemoryFiles::new();
    let mut used = 0u64;
    for i in 0..zip.len() {
        let entry = zip.by_index(i).map_err(|e| bad(format!("entry {i}: {e}")))?;
        if entry.is_dir() {
            continue;
        }
        let path = entry.name().to_string();
        if !wanted(&path) {
            continue;
        }
        // The declared size can lie; the budget is enforced on the bytes actually inflated.
        if entry.size() > budget.saturating_sub(used) {
            return Err(too_big(name, budget));
        }
        let data = take_entry(&format!("{name}: {path}"), entry, &mut used, budget)?;
        files.insert(&path, data);
    }
    Ok(files)
}

/// Unpack a tar stream (plain or from a gzip decoder).
pub fn unpack_tar<R: Read>(name: &str, reader: R, budget: u64) -> Result<MemoryFiles, ReadError> {
    let bad = |detail: String| ReadError::Malformed { file: name.to_string(), format: "tar", offset: 0, detail };
    let mut ar = tar::Archive::new(reader);
    let mut files = MemoryFiles::new();
    let mut used = 0u64;
    for entry in ar.entries().map_err(|e| bad(e.to_string()))? {
        let entry = entry.map_err(|e| bad(e.to_string()))?;
        if !entry.header().entry_type().is_file() {
            continue;
        }
        let path = match entry.path() {
            Ok(p) => p.to_string_lossy().into_owned(),
            Err(e) => return Err(bad(e.to_string())),
        };
        if !wanted(&path) {
            continue;
        }
        if entry.size() > budget.saturating_sub(used) {
            return Err(too_big(name, budget));
        }
        let data = take_entry(&format!("{name}: {path}"), entry, &mut used, budget)?;
        files.insert(&path, data);
    }
    Ok(files)
}

/// Whether bytes are a tar archive (the POSIX `ustar` magic at offset 257).
pub fn is_tar(bytes: &[u8]) -> bool {
    bytes.len() >= 262 && &bytes[257..262] == b"ustar"
}

/// The first `n` decompressed bytes of a gzip stream (fewer if it is shorter or broken), for sniffing.
pub fn gunzip_head(bytes: &[u8], n: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(n);
    let _ = flate2::read::MultiGzDecoder::new(bytes).take(n as u64).read_to_end(&mut out);
    out
}

/// Which container `bytes` are, if any (a gzip counts only when its content is a tar).
pub fn container(bytes: &[u8]) -> Option<Container> {
    if bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"PK\x05\x06") {
        Some(Container::Zip)
    } else if is_tar(bytes) {
        Some(Container::Tar)
    } else if bytes.starts_with(&[0x1f, 0x8b]) && is_tar(&gunzip_head(bytes, 512)) {
        Some(Container::TarGz)
    } else {
        None
    }
}

/// Unpack any supported container within `budget` bytes.
pub fn unpack(name: &str, bytes: &[u8], budget: u64) -> Result<MemoryFiles, ReadError> {
    match container(bytes) {
        Some(Container::Zip) => unpack_zip(name, bytes, budget),
        Some(Container::Tar) => unpack_tar(name, bytes, budget),
        Some(Container::TarGz) => unpack_tar(name, flate2::read::MultiGzDecoder::new(bytes), budget),
        None => {
            Err(ReadError::UnknownFormat { file: name.to_string(), detail: "not a zip, tar or tar.gz archive".into() })
        }
    }
}

/// Read the OTF2 trace inside an archive held in memory.
pub fn read_archive_bytes(name: &str, bytes: &[u8], budget: u64) -> Result<Trace, ReadError> {
    read_archive_bytes_full(name, bytes, budget).map(|r| r.trace)
}

/// Like [`read_archive_bytes`], keeping the anchor and threading events.
pub fn read_archive_bytes_full(name: &str, bytes: &[u8], budget: u64) -> Result<otf2::Otf2Read, ReadError> {
    let files = unpack(name, bytes, budget)?;
    let anchor = otf2::find_anchor(&files).ok_or_else(|| ReadError::UnknownFormat {
        file: name.to_string(),
        detail: "the archive holds no OTF2 anchor file (X.otf2)".into(),
    })?;
    otf2::read_archive_full(&anchor, &files).map_err(|e| prefix(name, e))
}

/// Name the archive in errors about a file inside it.
fn prefix(archive: &str, e: ReadError) -> ReadError {
    match e {
        ReadError::Malformed { file, format, offset, detail } => {
            ReadError::Malformed { file: format!("{archive}: {file}"), format, offset, detail }
        }
        ReadError::Io { file, detail } => ReadError::Io { file: format!("{archive}: {file}"), detail },
        ReadError::Empty { file, format, detail } => {
            ReadError::Empty { file: format!("{archive}: {file}"), format, detail }
        }
        other => other,
    }
}
