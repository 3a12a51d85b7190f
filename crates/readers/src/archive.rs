//! Archive containers held in memory: zip (deflate or stored), tar, and gzip-compressed tar. They are unpacked
//! into [`MemoryFiles`] so the OTF2 reader sees the same named files as from a folder. Only the files an OTF2
//! archive is made of (`.otf2`, `.def`, `.evt`) and an HPCToolkit database's `meta.db`, `profile.db` and
//! `trace.db` are kept, at any depth.
//!
//! Bounded: every member is read against a running budget as it inflates (a member's declared size is checked
//! first, but the bytes actually inflated are what count), and grown fallibly, so a zip or gzip bomb, or memory
//! that runs out first, is a [`ReadError::TooLarge`] naming the archive and the member. A zip whose members
//! overlap (the trick of the densest zip bombs; never in a zip a tool wrote) is refused.
//!
//! Recovering, like a folder: a member that is cut (the archive ends inside it) or damaged (a flipped bit that
//! breaks its inflation or its checksum) keeps the bytes that precede the damage, and the read goes on with a
//! [`Damage`] naming the member, which becomes a warning on the trace. A zip cut before its central directory is
//! read member by member from its local headers. No filesystem access: bytes in, named bytes out.

use crate::budget::{inflated_too_large, try_grow};
use crate::otf2::{self, MemoryFiles};
use crate::ReadError;
use std::io::Read;
use weft_model::{Trace, WarningKind};

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

impl Container {
    fn name(self) -> &'static str {
        match self {
            Container::Zip => "zip",
            Container::Tar => "tar",
            Container::TarGz => "tar.gz",
        }
    }
}

/// A member the archive could not give whole; what preceded the damage is kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Damage {
    /// `archive: member` (or the archive alone when no member can be named).
    pub file: String,
    /// What happened and what was kept.
    pub detail: String,
    /// Whether the member's bytes end early (a cut); else they are all there but fail their checksum.
    pub cut: bool,
}

/// What an archive held: the OTF2 files, and the members that were cut or damaged.
#[derive(Debug, Default)]
pub struct Unpacked {
    pub files: MemoryFiles,
    pub damaged: Vec<Damage>,
}

fn wanted(path: &str) -> bool {
    path.ends_with(".otf2") || path.ends_with(".def") || path.ends_with(".evt") || hpctoolkit_file(path)
}

/// An HPCToolkit database's files that its reader needs (told apart by their headers once unpacked).
fn hpctoolkit_file(path: &str) -> bool {
    let base = path.rsplit('/').next().unwrap_or(path);
    matches!(base, "meta.db" | "profile.db" | "trace.db")
}

/// One member read against the budget: its bytes (those before the damage, when it is damaged) and why it
/// stopped early, if it did.
fn take_member<R: Read>(
    member: &str,
    mut r: R,
    declared: u64,
    kind: Container,
    used: &mut u64,
    budget: u64,
) -> Result<(Vec<u8>, Option<String>), ReadError> {
    let left = budget.saturating_sub(*used);
    if declared > left {
        return Err(inflated_too_large(member, &format!("{} member", kind.name()), budget));
    }
    let mut out = Vec::new();
    try_grow(&mut out, usize::try_from(declared).unwrap_or(usize::MAX), member, kind.name(), "the member")?;
    let mut buf = vec![0u8; 1 << 16];
    let broke = loop {
        match r.read(&mut buf) {
            Ok(0) => break None,
            Ok(n) if out.len() as u64 + n as u64 > left => {
                return Err(inflated_too_large(member, &format!("{} member", kind.name()), budget));
            }
            Ok(n) => {
                try_grow(&mut out, n, member, kind.name(), "the member")?;
                out.extend_from_slice(&buf[..n]);
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => break Some(e.to_string()),
        }
    };
    *used += out.len() as u64;
    let broke = match broke {
        Some(e) => Some(e),
        None if (out.len() as u64) < declared => {
            Some(format!("the archive ends inside it ({} bytes declared)", declared))
        }
        None => None,
    };
    Ok((out, broke))
}

/// Record a member that stopped early.
fn damaged(into: &mut Unpacked, member: &str, kind: Container, got: usize, declared: u64, why: &str) {
    let cut = (got as u64) < declared || declared == 0;
    let kept = if cut {
        format!("the {got} bytes before the damage are kept")
    } else {
        "its bytes are kept as they are".into()
    };
    into.damaged.push(Damage {
        file: member.to_string(),
        detail: format!("{}: damaged member ({why}); {kept}", kind.name()),
        cut,
    });
}

/// Unpack a zip archive (stored or deflate entries).
pub fn unpack_zip(name: &str, bytes: &[u8], budget: u64) -> Result<Unpacked, ReadError> {
    let bad = |detail: String| ReadError::Malformed { file: name.to_string(), format: "zip", offset: 0, detail };
    let mut zip = match zip::ZipArchive::new(std::io::Cursor::new(bytes)) {
        Ok(z) => z,
        Err(e) => return unpack_zip_stream(name, bytes, budget, e.to_string()),
    };
    let mut out = Unpacked::default();
    let mut used = 0u64;
    // Where each member's local header and data lie: members that share bytes are a zip bomb's trick.
    let mut spans = Vec::with_capacity(zip.len().min(1 << 16));
    for i in 0..zip.len() {
        let Ok(entry) = zip.by_index_raw(i) else { continue };
        let start = entry.header_start();
        let end = entry.data_start().unwrap_or(start).saturating_add(entry.compressed_size());
        spans.push((start, end, entry.name().to_string()));
    }
    spans.sort();
    for w in spans.windows(2) {
        if w[1].0 < w[0].1 {
            return Err(bad(format!(
                "members {} and {} overlap (the bytes of one are inside the other, a zip bomb's trick); refusing the archive",
                w[0].2, w[1].2
            )));
        }
    }
    for i in 0..zip.len() {
        let listed = zip.name_for_index(i).map_or_else(|| format!("{name}: entry {i}"), |p| format!("{name}: {p}"));
        let entry = match zip.by_index(i) {
            Ok(e) => e,
            Err(e) => {
                let detail = format!("zip: damaged member ({e}); skipped");
                out.damaged.push(Damage { file: listed, detail, cut: true });
                continue;
            }
        };
        if entry.is_dir() {
            continue;
        }
        let path = entry.name().to_string();
        if !wanted(&path) {
            continue;
        }
        let declared = entry.size();
        keep_zip_member(&mut out, name, &path, entry, declared, &mut used, budget)?;
    }
    Ok(out)
}

/// One zip member into `out`, held to the running budget; a damaged member keeps what precedes the damage,
/// with a warning naming it.
fn keep_zip_member<R: Read>(
    out: &mut Unpacked,
    name: &str,
    path: &str,
    entry: R,
    declared: u64,
    used: &mut u64,
    budget: u64,
) -> Result<(), ReadError> {
    let member = format!("{name}: {path}");
    let (data, broke) = take_member(&member, entry, declared, Container::Zip, used, budget)?;
    if let Some(why) = broke {
        damaged(out, &member, Container::Zip, data.len(), declared, &why);
    }
    out.files.insert(path, data);
    Ok(())
}

/// A zip without its central directory (cut short): the members are read in order from their local headers,
/// up to the cut.
fn unpack_zip_stream(name: &str, bytes: &[u8], budget: u64, why: String) -> Result<Unpacked, ReadError> {
    let mut out = Unpacked::default();
    let mut used = 0u64;
    let mut cursor = std::io::Cursor::new(bytes);
    let mut last: Option<String> = None;
    loop {
        let entry = match zip::read::read_zipfile_from_stream(&mut cursor) {
            Ok(Some(e)) => e,
            Ok(None) => break,
            Err(e) if last.is_none() => {
                return Err(ReadError::Malformed {
                    file: name.to_string(),
                    format: "zip",
                    offset: 0,
                    detail: format!("{why}; no member can be read from the start either ({e})"),
                })
            }
            Err(_) => break,
        };
        let path = entry.name().to_string();
        last = Some(path.clone());
        if entry.is_dir() || !wanted(&path) {
            continue;
        }
        let declared = entry.size();
        keep_zip_member(&mut out, name, &path, entry, declared, &mut used, budget)?;
    }
    let after = last.map_or_else(String::new, |p| format!(" after member {p}"));
    out.damaged.push(Damage {
        file: name.to_string(),
        detail: format!(
            "zip: the archive is cut{after} ({why}); the members before the cut are read from their own headers"
        ),
        cut: true,
    });
    Ok(out)
}

/// Unpack a tar stream (plain or from a gzip decoder).
pub fn unpack_tar<R: Read>(name: &str, reader: R, budget: u64) -> Result<Unpacked, ReadError> {
    unpack_tar_as(name, reader, budget, Container::Tar)
}

fn unpack_tar_as<R: Read>(name: &str, reader: R, budget: u64, kind: Container) -> Result<Unpacked, ReadError> {
    let mut ar = tar::Archive::new(reader);
    let mut out = Unpacked::default();
    let mut used = 0u64;
    let mut last: Option<String> = None;
    let entries = ar.entries().map_err(|e| ReadError::Malformed {
        file: name.to_string(),
        format: kind.name(),
        offset: 0,
        detail: e.to_string(),
    })?;
    for entry in entries {
        let entry = match entry {
            Ok(e) => e,
            Err(e) => {
                // A header that is cut or fails its checksum: what came before is kept.
                let after = last.as_ref().map_or_else(String::new, |p| format!(" after member {p}"));
                out.damaged.push(Damage {
                    file: name.to_string(),
                    detail: format!(
                        "{}: the archive breaks off{after} ({e}); the members before are kept",
                        kind.name()
                    ),
                    cut: true,
                });
                break;
            }
        };
        if !entry.header().entry_type().is_file() {
            continue;
        }
        let path = match entry.path() {
            Ok(p) => p.to_string_lossy().into_owned(),
            Err(_) => continue,
        };
        last = Some(path.clone());
        if !wanted(&path) {
            continue;
        }
        let member = format!("{name}: {path}");
        let declared = entry.size();
        let (data, broke) = take_member(&member, entry, declared, kind, &mut used, budget)?;
        let stop = broke.is_some();
        if let Some(why) = broke {
            damaged(&mut out, &member, kind, data.len(), declared, &why);
        }
        out.files.insert(&path, data);
        if stop {
            // Past a broken member the stream cannot be trusted to find the next header.
            return Ok(out);
        }
    }
    if kind == Container::TarGz && !out.damaged.iter().any(|d| d.cut) {
        // The gzip checksum comes after the tar's closing blocks: read on to it, so a flipped bit that inflated
        // to wrong bytes of the right length is named too (a little past the end at most).
        let mut rest = ar.into_inner().take(1 << 20);
        if let Err(e) = std::io::copy(&mut rest, &mut std::io::sink()) {
            let after = last.as_ref().map_or_else(String::new, |p| format!(" (the last member is {p})"));
            out.damaged.push(Damage {
                file: name.to_string(),
                detail: format!(
                    "tar.gz: the gzip stream fails its check ({e}){after}; the members are kept as read, one of them \
                     may hold damaged bytes"
                ),
                cut: false,
            });
        }
    }
    Ok(out)
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

/// Unpack any supported container within `budget` bytes. Called directly (tests, benchmarks), the archive
/// reader tells the container itself; `readers::open` passes the one it sniffed ([`unpack_as`]).
pub fn unpack(name: &str, bytes: &[u8], budget: u64) -> Result<Unpacked, ReadError> {
    match container(bytes) {
        Some(c) => unpack_as(name, bytes, c, budget),
        None => {
            Err(ReadError::UnknownFormat { file: name.to_string(), detail: "not a zip, tar or tar.gz archive".into() })
        }
    }
}

/// Unpack `bytes` as the container `c` within `budget` bytes.
pub fn unpack_as(name: &str, bytes: &[u8], c: Container, budget: u64) -> Result<Unpacked, ReadError> {
    match c {
        Container::Zip => unpack_zip(name, bytes, budget),
        Container::Tar => unpack_tar(name, bytes, budget),
        Container::TarGz => unpack_tar_as(name, flate2::read::MultiGzDecoder::new(bytes), budget, Container::TarGz),
    }
}

/// Read the OTF2 trace inside an archive held in memory.
pub fn read_archive_bytes(name: &str, bytes: &[u8], budget: u64) -> Result<Trace, ReadError> {
    read_archive_bytes_full(name, bytes, budget).map(|r| r.trace)
}

/// Like [`read_archive_bytes`], keeping the anchor and threading events. Members that were cut or damaged are
/// warnings on the trace (or, when the trace cannot be read at all, named in the error).
pub fn read_archive_bytes_full(name: &str, bytes: &[u8], budget: u64) -> Result<otf2::Otf2Read, ReadError> {
    read_unpacked(name, unpack(name, bytes, budget)?)
}

/// [`read_archive_bytes_full`] for bytes known to be the container `c` (sniffed already).
pub fn read_container(name: &str, bytes: &[u8], c: Container, budget: u64) -> Result<otf2::Otf2Read, ReadError> {
    read_unpacked(name, unpack_as(name, bytes, c, budget)?)
}

pub fn read_unpacked(name: &str, unpacked: Unpacked) -> Result<otf2::Otf2Read, ReadError> {
    let Unpacked { files, damaged } = unpacked;
    let with_damage = |e: ReadError| match damaged.first() {
        Some(d) => also(e, &format!(" (the archive is damaged: {}: {})", d.file, d.detail)),
        None => e,
    };
    let Some(anchor) = otf2::find_anchor(&files) else {
        return Err(with_damage(ReadError::UnknownFormat {
            file: name.to_string(),
            detail: "the archive holds no OTF2 anchor file (X.otf2)".into(),
        }));
    };
    let mut read = otf2::read_archive_full(&anchor, &files).map_err(|e| with_damage(prefix(name, e)))?;
    // The damage first: its examples must not be crowded out by what the OTF2 reader says about it.
    let mut warnings = weft_model::Warnings::default();
    for d in damaged {
        let kind = if d.cut { WarningKind::Truncated } else { WarningKind::Other };
        warnings.push(kind, || format!("{}: {}", d.file, d.detail));
    }
    warnings.merge(std::mem::take(&mut read.trace.warnings));
    read.trace.warnings = warnings;
    Ok(read)
}

/// `e` with `more` added to its detail.
fn also(e: ReadError, more: &str) -> ReadError {
    match e {
        ReadError::UnknownFormat { file, detail } => ReadError::UnknownFormat { file, detail: detail + more },
        ReadError::Malformed { file, format, offset, detail } => {
            ReadError::Malformed { file, format, offset, detail: detail + more }
        }
        ReadError::Empty { file, format, detail } => ReadError::Empty { file, format, detail: detail + more },
        ReadError::Io { file, detail } => ReadError::Io { file, detail: detail + more },
        other => other,
    }
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
