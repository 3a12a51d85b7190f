//! OTF2 (Score-P, APEX, TAU) reader in pure Rust: an archive is a set of named files (the anchor `X.otf2`,
//! the global definitions `X.def`, per-location `X/N.def` and `X/N.evt`), handed over through
//! [`ArchiveFiles`] so the same code reads a folder natively and a dropped folder or archive in the browser.
//!
//! Layout: `encoding` (compressed integers, byte order, record framing), `anchor`, `definitions`, `events`
//! (typed event records), `matching` (messages, collectives), `convert` (OTF2 codes to model values),
//! `assemble` (definitions and events into the model), `threads` (the raw threading events kept for later analyses).
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
pub mod threads;

use crate::ReadError;
use std::borrow::Cow;
use std::collections::BTreeMap;
use weft_model::sort::SortDyn;
use weft_model::Trace;

pub use anchor::Anchor;
pub use assemble::{Decoder, Held, LocationLog, LoggedRead, PendingCollectives, READ_WINDOW};
pub use ends::EndsSpill;
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

/// What reading an OTF2 archive gives: the trace, and what the model has no column for.
#[derive(Clone, Debug)]
pub struct Otf2Read {
    pub trace: Trace,
    pub anchor: Anchor,
    /// Threading events (fork/join, create/wait, tasks), for the execution-graph and grain-graph analyses.
    pub thread_events: ThreadEvents,
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

/// Takes a location's intervals while its events are decoded (`weft index`, whose memory must not grow
/// with a location's length). Intervals are numbered by arrival (ENTER order) from 0.
pub trait IntervalTaker {
    /// `buf` holds the location's intervals from arrival number `first` on (region, start ns, duration ns;
    /// the duration of one still open is 0); `open` the arrival numbers of those still open, ascending. Every
    /// event so far is at or before `now` and every later one will be at or after it. `held`: what the
    /// reader holds until the end so far (bytes; sends, receives, collective parts). Returns how many of
    /// `buf`'s first intervals it took (they leave `buf`), or None to stop reading (the taker refuses to go
    /// on, and says why to its caller).
    fn take(
        &mut self,
        buf: &[(weft_model::RegionId, i64, u64)],
        first: usize,
        open: &[usize],
        now: i64,
        held: Held,
    ) -> Option<usize>;
    /// Interval `slot`, taken while open, closed after `dur_ns`.
    fn closed(&mut self, slot: usize, dur_ns: u64);
}

/// An archive read location by location (`weft index`, issue #17): the definitions first, then each
/// location's events on request, its intervals handed to the caller instead of kept; instants, message ends,
/// collective parts and warnings stay here, small, until [`finish`](Otf2Stream::finish) matches them. The
/// trace `finish` returns equals [`read_archive`]'s without its intervals (the caller holds those; it
/// reports their earliest start with [`note_outside_start`](Otf2Stream::note_outside_start) so the origin is
/// the same).
pub struct Otf2Stream<'f>(assemble::Assembler<'f>, &'f (dyn ArchiveFiles + Sync));

/// Open the archive whose anchor is `name` among `files` for reading location by location.
pub fn open_stream<'f>(name: &str, files: &'f (dyn ArchiveFiles + Sync)) -> Result<Otf2Stream<'f>, ReadError> {
    let (anchor_path, anchor) = open_anchor(name, files)?;
    Ok(Otf2Stream(assemble::Assembler::open(&anchor_path, anchor, files)?, files))
}

impl<'f> Otf2Stream<'f> {
    /// Locations to read, in definition order.
    pub fn location_count(&self) -> usize {
        self.0.locations.len()
    }

    /// The model location of the `k`-th location read, and its event file's path in the archive.
    pub fn location_id(&self, k: usize) -> (weft_model::LocationId, String) {
        let (id, loc) = self.0.locations[k];
        (loc, format!("{}/{id}.evt", self.0.stem))
    }

    /// The model's location count (two definitions of one location make one model location).
    pub fn model_locations(&self) -> usize {
        self.0.b.location_count()
    }

    /// Decode the `k`-th location's events, appending its intervals (region, start ns in the source clock,
    /// duration ns; in ENTER order, not yet nested) to `intervals`.
    pub fn location(
        &mut self,
        k: usize,
        intervals: &mut Vec<(weft_model::RegionId, i64, u64)>,
    ) -> Result<weft_model::LocationId, ReadError> {
        self.0.location(k, intervals, None).map(|r| r.0)
    }

    /// [`location`](Self::location) handing its intervals to `taker` as they come: whenever `intervals`
    /// holds `limit` of them (and the location's times have not gone back), `taker` may take a prefix;
    /// `intervals` ends with the rest. Returns how many were taken, and whether the location's times never
    /// went back.
    pub fn location_taken(
        &mut self,
        k: usize,
        intervals: &mut Vec<(weft_model::RegionId, i64, u64)>,
        taker: &mut dyn IntervalTaker,
        limit: usize,
    ) -> Result<(usize, bool), ReadError> {
        self.0.location(k, intervals, Some((taker, limit))).map(|(_, r)| (r.taken, r.in_order))
    }

    /// A decoder of this archive's locations for other threads: each location's intervals and a log of the
    /// rest, for [`replay`](Self::replay) in location order (`weft index` decodes several locations at once).
    pub fn decoder(&self) -> Decoder<'f> {
        self.0.decoder(self.1)
    }

    /// Take the `k`-th location as read by a [`Decoder`] (`log`, what [`Decoder::decode`] returned): the
    /// stream is then as after [`location`](Self::location) of it, the caller holding its intervals.
    pub fn replay(&mut self, k: usize, log: LocationLog) -> Result<(), ReadError> {
        self.0.replay(k, log)
    }

    /// Apply a batch of the `k`-th location's log as bytes, exactly as [`Decoder::decode_bytes`] handed it
    /// on (one batch a call: its times are relative within it; perhaps in another process: a shard's own
    /// locations, `index::exchange`); `sends` starts empty for
    /// each location. After its last batch, [`replay_end`](Self::replay_end): the stream is then as after
    /// [`location`](Self::location) of it.
    pub fn replay_bytes(&mut self, k: usize, sends: &mut Vec<u64>, bytes: &[u8]) -> Result<(), ReadError> {
        self.0.replay_bytes(k, sends, bytes)
    }

    /// The `k`-th location's log replayed ([`replay_bytes`](Self::replay_bytes)): `read` is what
    /// [`Decoder::decode_bytes`] returned for it.
    pub fn replay_end(&mut self, k: usize, read: &LoggedRead) -> Result<(), ReadError> {
        self.0.replay_end(k, read.events, read.unresolved)
    }

    /// About the bytes held until [`finish`](Self::finish) (message ends and collective parts to match,
    /// or for those spilled the messages and parts the trace will hold; instants, counter samples,
    /// strings), and the counts of sends, receives and collective parts.
    pub fn held_bytes(&self) -> Held {
        self.0.held_bytes()
    }

    /// Whether the message ends kept to the end went to the spill ([`spill_ends`](Self::spill_ends)): then
    /// [`finish_streamed`](Self::finish_streamed) hands the messages over channel by channel as the runs
    /// merge, else in receive order.
    pub fn ends_spilled(&self) -> bool {
        self.0.ends_spilled()
    }

    /// Read event files `bytes` at a time (by default [`READ_WINDOW`]; tests make it small).
    pub fn set_read_window(&mut self, bytes: usize) {
        self.0.window = bytes;
    }

    /// Counter samples go to `sink` as they are read, a batch at a time, not into the trace
    /// (`TraceBuilder::sink_samples`: a streamed index spills them).
    pub fn sink_samples(&mut self, sink: Box<dyn weft_model::SampleSink>) {
        self.0.b.sink_samples(sink);
    }

    /// The counter samples the builder holds to its sink now ([`sink_samples`](Self::sink_samples)).
    pub fn flush_samples(&mut self) {
        self.0.b.flush_samples();
    }

    /// An interval held by the caller starts at `start_ns` (source clock).
    pub fn note_outside_start(&mut self, start_ns: i64) {
        self.0.b.note_outside_start(start_ns);
    }

    /// Spill the message ends and collective parts kept to the end to `out` in sorted runs whenever they
    /// hold more than `share` bytes, and match them from the runs (`ends` module doc; the trace is the same).
    pub fn spill_ends(&mut self, out: Box<dyn EndsSpill>, share: u64) {
        self.0.spill_ends(out, share);
    }

    /// Match messages and collectives; the trace without intervals. Fails only when spilled message ends
    /// cannot be read back.
    pub fn finish(self) -> Result<Trace, ReadError> {
        self.0.finish().map(|r| r.trace)
    }

    /// [`finish`](Self::finish) handing the messages and collective rows over instead of holding them in
    /// the trace (a streamed index sorts and spills them, `index::comms`): each matched message to `message`
    /// with its receive's number (the trace's order among messages of equal send and receive times), in
    /// no particular order, times in the source clock; then each collective row to `collective`, in the
    /// trace's order, with the trace's origin. The trace is the one [`finish`](Self::finish) gives without
    /// its messages and collectives (its origin counts them; its span does not).
    ///
    /// `combine` takes what this read matched ([`MatchedShare`]) and returns what the trace's reads matched
    /// together: itself for one read; a shard that matched only its own receivers
    /// ([`keep_receivers`](Self::keep_receivers)) sums the shards' shares (`index::exchange`).
    pub fn finish_streamed(
        self,
        message: &mut dyn FnMut(&weft_model::MessageRecord, u64) -> Result<(), String>,
        combine: &mut dyn FnMut(MatchedShare) -> Result<MatchedShare, String>,
        collective: &mut dyn FnMut(&weft_model::CollectiveRecord, i64) -> Result<(), String>,
    ) -> Result<Trace, ReadError> {
        self.0.finish_streamed(message, combine, collective).map(|r| r.trace)
    }

    /// [`finish_streamed`](Self::finish_streamed) without handing the collective rows over: the caller
    /// does, when it will, with what this returns beside the trace (another thread may meanwhile take the
    /// messages on; `index::stream` does).
    pub fn finish_streamed_deferred(
        self,
        message: &mut dyn FnMut(&weft_model::MessageRecord, u64) -> Result<(), String>,
        combine: &mut dyn FnMut(MatchedShare) -> Result<MatchedShare, String>,
    ) -> Result<(Trace, PendingCollectives), ReadError> {
        self.0.finish_streamed_deferred(message, combine).map(|(r, c)| (r.trace, c))
    }

    /// Sends and receives the stream has recorded so far, kept or not ([`keep_receivers`](Self::keep_receivers)).
    pub fn end_counts(&self) -> [u64; 2] {
        self.0.end_counts()
    }

    /// Match only the messages received by locations `receivers` (numbered as the stream numbers them):
    /// the other messages' sends and receives are counted and dropped (a shard matching the messages its
    /// own locations received, `index::exchange`). Before any location is read or replayed.
    pub fn keep_receivers(&mut self, receivers: std::ops::Range<u32>) {
        self.0.keep_receivers(receivers);
    }
}

/// What one read matched of the messages, in a streamed finish ([`Otf2Stream::finish_streamed`]): its
/// sends and receives without a partner, and its messages' earliest time (send or receive, source clock;
/// `i64::MAX` without any).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MatchedShare {
    pub unmatched_sends: u64,
    pub unmatched_recvs: u64,
    pub first_ns: i64,
}

impl MatchedShare {
    /// The shares of several reads together.
    pub fn sum(shares: &[MatchedShare]) -> MatchedShare {
        MatchedShare {
            unmatched_sends: shares.iter().map(|s| s.unmatched_sends).sum(),
            unmatched_recvs: shares.iter().map(|s| s.unmatched_recvs).sum(),
            first_ns: shares.iter().map(|s| s.first_ns).min().unwrap_or(i64::MAX),
        }
    }
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
