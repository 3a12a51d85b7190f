//! OTF2 (Score-P, APEX, TAU) reader in pure Rust: an archive is a set of named files (the anchor `X.otf2`,
//! the global definitions `X.def`, per-location `X/N.def` and `X/N.evt`), handed over through
//! [`ArchiveFiles`] so the same code reads a folder natively and a dropped folder or archive in the browser.
//!
//! Layout: `encoding` (compressed integers, byte order, record framing), `anchor`, `definitions`, `events`
//! (typed event records), `matching` (messages, collectives), `convert` (OTF2 codes to model values),
//! `assemble` (definitions and events into the model), `threads` (the raw threading events kept for later analyses),
//! `stream` (an archive read location by location: [`Otf2Stream`], and what only `weft index` asks of it,
//! [`StreamIndexing`]).
//! This module must not use `std::fs` outside [`FolderFiles`] (the core compiles to wasm32).

pub mod anchor;
mod assemble;
mod convert;
pub mod definitions;
pub mod encoding;
mod ends;
pub mod events;
mod logbytes;
pub mod matching;
mod stream;
pub mod threads;

use crate::ReadError;
use std::borrow::Cow;
use std::collections::BTreeMap;
use weft_model::sort::SortDyn;
use weft_model::Trace;

pub use anchor::Anchor;
pub use assemble::{Decoder, Held, LocationLog, LoggedRead, PendingCollectives, READ_WINDOW};
pub use ends::EndsSpill;
pub use stream::{open_stream, IntervalTaker, MatchedShare, Otf2Stream, StreamIndexing};
pub use threads::{ThreadEvent, ThreadEventKind, ThreadEvents};

/// The files of an archive, by relative `/`-separated path.
pub trait ArchiveFiles {
    /// The bytes of the file at `path`, `Ok(None)` when there is no such file.
    fn read(&self, path: &str) -> Result<Option<Cow<'_, [u8]>>, String>;
    /// File paths to search for the anchor: at least every `.otf2` file (in-memory sets list all files).
    fn paths(&self) -> Vec<String>;
    /// The file at `path` to read in pieces (an event file decoded a window at a time, in memory bounded
    /// whatever its length): its length and a reader; `Ok(None)` when there is no such file. By default,
    /// [`read`](Self::read)'s bytes.
    fn open_read(&self, path: &str) -> Result<Option<FileReader<'_>>, String> {
        Ok(self.read(path)?.map(|b| (b.len() as u64, Box::new(std::io::Cursor::new(b)) as Box<dyn std::io::Read>)))
    }
}

/// [`ArchiveFiles::open_read`]'s answer: the file's length and a reader of its bytes.
pub type FileReader<'a> = (u64, Box<dyn std::io::Read + 'a>);

/// Files held in memory (a dropped folder, an unpacked archive, a test fixture).
#[derive(Clone, Debug, Default)]
pub struct MemoryFiles {
    pub files: BTreeMap<String, Vec<u8>>,
}

impl MemoryFiles {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn insert(&mut self, path: &str, bytes: Vec<u8>) {
        self.files.insert(normalise(path), bytes);
    }
    pub fn total_bytes(&self) -> u64 {
        self.files.values().map(|v| v.len() as u64).sum()
    }
}

impl ArchiveFiles for MemoryFiles {
    fn read(&self, path: &str) -> Result<Option<Cow<'_, [u8]>>, String> {
        Ok(self.files.get(&normalise(path)).map(|v| Cow::Borrowed(v.as_slice())))
    }
    fn paths(&self) -> Vec<String> {
        self.files.keys().cloned().collect()
    }
}

/// A folder on disk (native builds only).
#[cfg(not(target_arch = "wasm32"))]
pub struct FolderFiles {
    pub root: std::path::PathBuf,
}

#[cfg(not(target_arch = "wasm32"))]
impl ArchiveFiles for FolderFiles {
    fn read(&self, path: &str) -> Result<Option<Cow<'_, [u8]>>, String> {
        // Regular files only: a FIFO would wait for a writer, a link to /dev/zero would never end.
        let full = self.root.join(path);
        match std::fs::metadata(&full) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            _ => {}
        }
        match crate::read_regular(&full) {
            Ok(b) => Ok(Some(Cow::Owned(b))),
            Err(ReadError::Io { detail, .. }) => Err(detail),
            Err(e) => Err(e.to_string()),
        }
    }
    fn open_read(&self, path: &str) -> Result<Option<FileReader<'_>>, String> {
        let full = self.root.join(path);
        match std::fs::metadata(&full) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            _ => {}
        }
        match crate::open_regular(&full) {
            Ok((file, len)) => Ok(Some((len, Box::new(file)))),
            Err(ReadError::Io { detail, .. }) => Err(detail),
            Err(e) => Err(e.to_string()),
        }
    }
    fn paths(&self) -> Vec<String> {
        // Anchors sit at the top of an archive folder; look a few levels down, no further.
        let mut out = Vec::new();
        let mut stack = vec![(self.root.clone(), String::new(), 0usize)];
        while let Some((dir, prefix, depth)) = stack.pop() {
            let Ok(rd) = std::fs::read_dir(&dir) else {
                continue;
            };
            for e in rd.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                let rel = if prefix.is_empty() { name.clone() } else { format!("{prefix}/{name}") };
                let p = e.path();
                if p.is_dir() {
                    if depth < 4 {
                        stack.push((p, rel, depth + 1));
                    }
                } else if name.ends_with(".otf2") {
                    out.push(rel);
                }
            }
        }
        out.sort();
        out
    }
}

fn normalise(path: &str) -> String {
    let p = path.replace('\\', "/");
    let p = p.trim_start_matches("./").trim_start_matches('/');
    p.split('/').filter(|s| !s.is_empty() && *s != ".").collect::<Vec<_>>().join("/")
}

/// The anchor among `files`: the shallowest `.otf2` file whose content is an OTF2 anchor.
pub fn find_anchor(files: &dyn ArchiveFiles) -> Option<String> {
    let mut candidates: Vec<String> = files.paths().into_iter().filter(|p| p.ends_with(".otf2")).collect();
    candidates.sort_dyn_by_key(|p| (p.matches('/').count(), p.clone()));
    candidates.into_iter().find(|p| matches!(files.read(p), Ok(Some(b)) if anchor::looks_like_anchor(&b)))
}

/// Every anchor among `files` (by path), when they hold several archives (a folder of runs to open as one,
/// `crate::ranks`): each `.otf2` file whose content is an OTF2 anchor, less those inside another anchor's
/// archive folder (`X/` beside `X.otf2`).
pub fn find_anchors(files: &dyn ArchiveFiles) -> Vec<String> {
    let mut anchors: Vec<String> = files
        .paths()
        .into_iter()
        .filter(|p| p.ends_with(".otf2") && matches!(files.read(p), Ok(Some(b)) if anchor::looks_like_anchor(&b)))
        .collect();
    anchors.sort();
    let inside = |p: &str, a: &str| a.strip_suffix(".otf2").is_some_and(|stem| p.starts_with(&format!("{stem}/")));
    let all = anchors.clone();
    anchors.retain(|p| !all.iter().any(|a| a != p && inside(p, a)));
    anchors
}

/// What reading an OTF2 archive gives: the trace, and what the model has no column for.
#[derive(Clone, Debug)]
pub struct Otf2Read {
    pub trace: Trace,
    pub anchor: Anchor,
    /// Threading events (fork/join, create/wait, tasks), for the execution-graph and grain-graph analyses.
    pub thread_events: ThreadEvents,
    /// The real time of the clock's global offset, ns since the epoch (OTF2 3.0's `realtimeTimestamp`), when
    /// the archive gives it: the trace's times plus this are wall-clock times (how several archives line up).
    pub realtime_ns: Option<i64>,
}

/// Read the archive whose anchor is `name` among `files` (when `name` is not an anchor there, the anchor is
/// searched for). Returns the trace; see [`read_archive_full`] for the threading events too.
pub fn read_archive(name: &str, files: &dyn ArchiveFiles) -> Result<Trace, ReadError> {
    read_archive_full(name, files).map(|r| r.trace)
}

/// Read the archive, keeping the anchor and the raw threading events.
pub fn read_archive_full(name: &str, files: &dyn ArchiveFiles) -> Result<Otf2Read, ReadError> {
    let (anchor_path, anchor) = open_anchor(name, files)?;
    assemble::assemble(&anchor_path, anchor, files)
}

fn open_anchor(name: &str, files: &dyn ArchiveFiles) -> Result<(String, Anchor), ReadError> {
    let io = |file: &str, detail: String| ReadError::Io { file: file.to_string(), detail };
    let anchor_path = match files.read(name) {
        Ok(Some(b)) if anchor::looks_like_anchor(&b) => normalise(name),
        _ => find_anchor(files).ok_or_else(|| ReadError::UnknownFormat {
            file: name.to_string(),
            detail: "no OTF2 anchor file (X.otf2 starting with the OTF2 magic) found".into(),
        })?,
    };
    let anchor_bytes = files
        .read(&anchor_path)
        .map_err(|e| io(&anchor_path, e))?
        .ok_or_else(|| io(&anchor_path, "file disappeared".into()))?;
    let anchor = anchor::parse(&anchor_bytes).map_err(|e| malformed(&anchor_path, e))?;
    if anchor.compression > 1 {
        return Err(ReadError::Unsupported { file: anchor_path, format: "OTF2 with zlib-compressed files" });
    }
    Ok((anchor_path, anchor))
}

/// The error for one file of an OTF2 archive handed over without the rest of it.
pub fn anchor_alone(name: &str) -> ReadError {
    ReadError::Io {
        file: name.to_string(),
        detail: "one file of an OTF2 archive is not a trace: open its folder (X.otf2, X.def and X/), \
                 or a zip/tar of it"
            .into(),
    }
}

/// Open an OTF2 trace from disk when `path` is an anchor file, one of its definition or event files, or a
/// folder holding one; None when it is none of these (`readers::open_path` then reads the file by content).
/// Native only.
#[cfg(not(target_arch = "wasm32"))]
pub fn read_path_full(path: &std::path::Path) -> Option<Result<Otf2Read, ReadError>> {
    Some(match archive_of_path(path)? {
        Ok((files, anchor)) => read_archive_full(&anchor, &files).map_err(|e| in_folder(&files.root, e)),
        Err(e) => Err(e),
    })
}

/// The archive folder and anchor name of `path` (an anchor file, one of its definition or event files, or a
/// folder holding one); None when it is none of these. Errors about its files name them relative to the
/// folder: [`in_folder`] makes them paths. Native only.
#[cfg(not(target_arch = "wasm32"))]
pub fn archive_of_path(path: &std::path::Path) -> Option<Result<(FolderFiles, String), ReadError>> {
    use std::io::Read;
    let name = path.display().to_string();
    if path.is_dir() {
        let files = FolderFiles { root: path.to_path_buf() };
        let Some(anchor) = find_anchor(&files) else {
            return Some(Err(ReadError::UnknownFormat {
                file: name,
                detail: "the folder holds no OTF2 anchor file (X.otf2)".into(),
            }));
        };
        return Some(Ok((files, anchor)));
    }
    // Not a regular file (a FIFO, a device): refused here, before opening it could wait or never end.
    if let Err(e) = crate::check_regular(path) {
        return path.exists().then_some(Err(e));
    }
    let mut head = [0u8; 8];
    let n = std::fs::File::open(path).and_then(|mut f| f.read(&mut head)).ok()?;
    if !anchor::looks_like_anchor(&head[..n]) {
        // A definitions or event file of an archive (chunk header, byte-order marker): open the archive
        // it belongs to (`X.def` sits beside the anchor, `X/N.evt` one folder below).
        let chunked = n >= 2 && head[0] == encoding::CHUNK_HEADER && matches!(head[1], 0x42 | 0x23);
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        if !chunked || !matches!(ext, "def" | "evt") {
            return None;
        }
        let mut dir = path.parent();
        for _ in 0..2 {
            let d = match dir {
                Some(d) if !d.as_os_str().is_empty() => d,
                _ => std::path::Path::new("."),
            };
            let files = FolderFiles { root: d.to_path_buf() };
            if let Some(a) = files.paths().into_iter().find(|p| !p.contains('/')) {
                return Some(Ok((files, a)));
            }
            dir = d.parent();
        }
        return Some(Err(anchor_alone(&name)));
    }
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    let file = path.file_name()?.to_string_lossy().into_owned();
    Some(Ok((FolderFiles { root: dir }, file)))
}

/// Errors name files relative to the archive; make them paths the user can open.
#[cfg(not(target_arch = "wasm32"))]
pub fn in_folder(dir: &std::path::Path, e: ReadError) -> ReadError {
    let full = |f: String| dir.join(f).display().to_string();
    match e {
        ReadError::Malformed { file, format, offset, detail } => {
            ReadError::Malformed { file: full(file), format, offset, detail }
        }
        ReadError::Io { file, detail } => ReadError::Io { file: full(file), detail },
        ReadError::Empty { file, format, detail } => ReadError::Empty { file: full(file), format, detail },
        other => other,
    }
}

pub(crate) fn malformed(file: &str, e: encoding::DecodeError) -> ReadError {
    ReadError::Malformed { file: file.to_string(), format: "OTF2", offset: e.offset, detail: e.what }
}
