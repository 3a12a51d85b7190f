//! Format readers: bytes in, a model out (a [`Trace`] through the model's builder, thread events, or the
//! grain model).
//!
//! One way in: [`open`] (bytes or a set of files) and [`open_path`] (a file or folder on disk) sniff a file
//! once ([`sniff`], from content, never from the extension) and dispatch to its reader, giving an [`Input`]:
//! what the file is and what it offers. The worker, the CLI and the tests all come in here. Readers never
//! panic on any input: a malformed file gives a [`ReadError`] naming the file and position, or warnings and
//! a partial result.

// A library returns what it finds; only the CLI, examples and tests print.
#![warn(clippy::print_stdout)]

pub mod archive;
pub mod budget;
pub mod chrome;
pub mod darshan;
pub mod execgraph_text;
pub mod graphml;
pub mod hpctoolkit;
pub mod mir;
pub mod mpe;
pub mod nsys;
pub mod otf2;
pub mod otf2_threads;
pub mod paraver;
pub mod perfetto;
pub mod projections;
pub mod ranks;
pub mod sniff;
pub mod sqlite;

use thiserror::Error;
use weft_model::grains::Grains;
use weft_model::thread_events::ThreadEvents;
use weft_model::{Trace, Warnings};

pub use sniff::{sniff, Sniffed};

/// Why a file could not be read. Carries the file's name and where in it the problem is.
#[derive(Debug, Error)]
pub enum ReadError {
    #[error("{file}: not a trace weft can read ({detail})")]
    UnknownFormat { file: String, detail: String },
    #[error("{file}: {format} at byte {offset}: {detail}")]
    Malformed { file: String, format: &'static str, offset: u64, detail: String },
    #[error("{file}: {format}: the file holds no events{detail}")]
    Empty { file: String, format: &'static str, detail: String },
    #[error("{file}: gzip: {detail}")]
    Decompress { file: String, detail: String },
    #[error("{file}: {detail}")]
    Io { file: String, detail: String },
    #[error("{file}: the reader for {format} is not available in this build")]
    Unsupported { file: String, format: &'static str },
    #[error("{file}: cancelled")]
    Cancelled { file: String },
    /// Past what the reader may hold in memory ([`budget::Budget`]); `detail` gives the size and the limit.
    #[error("{file}: too large: {detail}")]
    TooLarge { file: String, detail: String },
    /// Files given together as the ranks of one run that are not one run (a rank twice, ranks that disagree
    /// on their number or clock); `file` is the one that breaks it.
    #[error("{file}: {detail}")]
    NotOneRun { file: String, detail: String },
    /// Read, but not the kind of input asked for (a grain graph given where a timeline is wanted).
    #[error("{file}: {what} is not {wanted}")]
    NotThisView { file: String, what: &'static str, wanted: &'static str },
}

/// What a file holds, as [`open`] found it.
// One per file read, moved once into the view that shows it: its size does not matter, boxing would only
// add a step for every caller.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum Input {
    /// A timeline (Chrome JSON, Paraver).
    Trace(Trace),
    /// The execution-graph text format: thread events.
    ThreadEvents { events: ThreadEvents, warnings: Warnings },
    /// A grain-graph input (MIR task stats, the prototype's GraphML).
    Grains { grains: Grains, warnings: Warnings },
    /// An OTF2 archive: a timeline that may also offer an execution graph (its threading records) and a
    /// grain graph (its task records).
    Otf2(Box<Otf2Input>),
}

/// An OTF2 archive read whole. Its other views are interpreted from the raw threading records on demand.
#[derive(Debug)]
pub struct Otf2Input {
    /// The archive's name, for messages.
    pub name: String,
    pub read: otf2::Otf2Read,
}

/// Thread events, what interpreting them repaired or dropped, and for an OTF2 trace the names of its
/// locations (threads are labelled by them).
pub type ThreadEventsInput = (ThreadEvents, Warnings, Option<Vec<String>>);

impl Otf2Input {
    pub fn trace(&self) -> &Trace {
        &self.read.trace
    }
    /// Whether the archive has threading records (an execution graph may be built).
    pub fn offers_thread_events(&self) -> bool {
        otf2_threads::has_thread_events(&self.read)
    }
    /// Whether the archive has task records (a grain graph may be built).
    pub fn offers_grains(&self) -> bool {
        otf2_threads::has_task_events(&self.read)
    }
    /// The execution graph's input: an error naming the archive when it has no threading records.
    pub fn thread_events(&self) -> Result<ThreadEventsInput, ReadError> {
        let (events, warnings) = otf2_threads::execgraph_events(&self.read, &self.name)?;
        Ok((events, warnings, Some(otf2_threads::location_names(&self.read.trace))))
    }
    /// The grain graph's input (its explicit tasks): an error naming the archive when it has none.
    pub fn grains(&self) -> Result<(Grains, Warnings), ReadError> {
        otf2_threads::grain_profile(&self.read, &self.name).map(|(p, w)| (Grains::Profile(p), w))
    }
}

impl Input {
    /// What the input is, in words, for messages.
    pub fn what(&self) -> &'static str {
        match self {
            Input::Trace(_) => "a timeline trace",
            Input::ThreadEvents { .. } => "an execution graph (thread events)",
            Input::Grains { .. } => "a grain graph",
            Input::Otf2(_) => "an OTF2 trace",
        }
    }

    fn not(&self, name: &str, wanted: &'static str) -> ReadError {
        ReadError::NotThisView { file: name.to_string(), what: self.what(), wanted }
    }

    /// The timeline: a trace, or an OTF2 archive's. `name` names the input in the error.
    pub fn into_trace(self, name: &str) -> Result<Trace, ReadError> {
        match self {
            Input::Trace(t) => Ok(t),
            Input::Otf2(o) => Ok(o.read.trace),
            other => Err(other.not(name, "a timeline (open it with `weft grains` or `weft execgraph`)")),
        }
    }

    /// The execution graph's input: execution-graph text, or an OTF2 archive's threading records.
    pub fn into_thread_events(self, name: &str) -> Result<ThreadEventsInput, ReadError> {
        match self {
            Input::ThreadEvents { events, warnings } => Ok((events, warnings, None)),
            Input::Otf2(o) => o.thread_events(),
            other => Err(other.not(name, "an execution-graph input")),
        }
    }

    /// The grain graph's input: MIR task stats, GraphML, or an OTF2 archive's tasks.
    pub fn into_grains(self, name: &str) -> Result<(Grains, Warnings), ReadError> {
        match self {
            Input::Grains { grains, warnings } => Ok((grains, warnings)),
            Input::Otf2(o) => o.grains(),
            other => Err(other.not(name, "a grain-graph input")),
        }
    }
}

/// What [`open`] reads: a file's bytes, or files dropped together (a folder) by their paths in it.
#[derive(Clone, Copy, Debug)]
pub enum Source<'a> {
    Bytes(&'a [u8]),
    Files(&'a otf2::MemoryFiles),
}

impl<'a> From<&'a [u8]> for Source<'a> {
    fn from(b: &'a [u8]) -> Self {
        Source::Bytes(b)
    }
}

impl<'a> From<&'a Vec<u8>> for Source<'a> {
    fn from(b: &'a Vec<u8>) -> Self {
        Source::Bytes(b)
    }
}

impl<'a> From<&'a otf2::MemoryFiles> for Source<'a> {
    fn from(f: &'a otf2::MemoryFiles) -> Self {
        Source::Files(f)
    }
}

/// Read a file held in memory, or a set of files, whatever its format. `name` is used in messages only.
///
/// Bytes are sniffed once and go to [`open_sniffed`]. A set of files is an OTF2 archive when it holds an
/// anchor (`X.otf2` with its `X.def` and `X/*.evt`), a Paraver trace when it holds `X.prv` (with `X.pcf` and
/// `X.row` for names), an HPCToolkit database when it holds a `meta.db` (by its header), a Projections trace
/// when it holds a `.sts` (by its first line) and its per-PE logs, else the one file there is.
pub fn open(name: &str, source: Source) -> Result<Input, ReadError> {
    match source {
        Source::Bytes(bytes) => open_sniffed(name, sniff(bytes), bytes),
        Source::Files(files) => open_files(name, files),
    }
}

/// Read bytes already sniffed as `sniffed` (the worker sniffs a file's first chunk to choose between
/// streaming and reading whole, and that answer is the one this dispatches on).
pub fn open_sniffed(name: &str, sniffed: Sniffed, bytes: &[u8]) -> Result<Input, ReadError> {
    let unknown = |detail: String| ReadError::UnknownFormat { file: name.to_string(), detail };
    Ok(match sniffed {
        Sniffed::Zip | Sniffed::Tar | Sniffed::TarGz => {
            let c = match sniffed {
                Sniffed::Zip => archive::Container::Zip,
                Sniffed::Tar => archive::Container::Tar,
                _ => archive::Container::TarGz,
            };
            let limit = budget::Budget::current().inflated(archive::DEFAULT_BUDGET_BYTES);
            let unpacked = archive::unpack_as(name, bytes, c, limit)?;
            if let Some(found) = hpctoolkit::find(&unpacked.files) {
                return hpctoolkit_in_archive(name, unpacked, &found);
            }
            let read = archive::read_unpacked(name, unpacked)?;
            Input::Otf2(Box::new(Otf2Input { name: name.to_string(), read }))
        }
        Sniffed::Otf2Anchor => return Err(otf2::anchor_alone(name)),
        Sniffed::ChromeJson | Sniffed::Gzip => Input::Trace(chrome::read(name, bytes)?),
        Sniffed::Paraver | Sniffed::ParaverGz => Input::Trace(paraver::read(name, bytes, None, None)?),
        Sniffed::ExecGraphText => {
            let events = execgraph_text::parse(name, bytes).map_err(|e| ReadError::Malformed {
                file: e.file,
                format: "execution-graph text",
                offset: e.offset,
                detail: format!("line {}: {}", e.line, e.kind),
            })?;
            Input::ThreadEvents { events, warnings: Warnings::default() }
        }
        Sniffed::MirTaskStats => {
            let profile = mir::read(name, bytes)?;
            let warnings = parent_cycle_warnings(name, &profile);
            Input::Grains { grains: Grains::Profile(profile), warnings }
        }
        Sniffed::GraphMl => {
            Input::Grains { grains: Grains::Graph(graphml::read_grains(name, bytes)?), warnings: Warnings::default() }
        }
        Sniffed::Unknown(detail) => return Err(unknown(detail)),
        Sniffed::Sqlite => Input::Trace(nsys::read(name, bytes)?),
        Sniffed::NsightCsv => Input::Trace(nsys::csv::read(name, bytes)?),
        Sniffed::Slog2 => Input::Trace(mpe::slog2::read(name, bytes)?),
        Sniffed::Clog2 => Input::Trace(mpe::clog2::read(name, bytes)?),
        Sniffed::Clog => Input::Trace(mpe::clog::read(name, bytes)?),
        Sniffed::Rlog => Input::Trace(mpe::rlog::read(name, bytes)?),
        Sniffed::HpcToolkitDb(kind) => return Err(hpctoolkit::alone(name, kind)),
        Sniffed::ProjectionsPart => return Err(projections::alone(name)),
        Sniffed::Perfetto => Input::Trace(perfetto::read(name, bytes)?),
        Sniffed::Darshan => Input::Trace(darshan::read(name, bytes)?),
    })
}

/// An HPCToolkit database unpacked from a zip or tar: the members the archive could not give whole are
/// warnings on the trace.
fn hpctoolkit_in_archive(
    name: &str,
    unpacked: archive::Unpacked,
    found: &hpctoolkit::Found,
) -> Result<Input, ReadError> {
    let mut trace = hpctoolkit::read_files(name, &unpacked.files, found)?;
    let mut warnings = Warnings::default();
    for d in &unpacked.damaged {
        let kind = if d.cut { weft_model::WarningKind::Truncated } else { weft_model::WarningKind::Other };
        warnings.push(kind, || format!("{}: {}", d.file, d.detail));
    }
    warnings.merge(std::mem::take(&mut trace.warnings));
    trace.warnings = warnings;
    Ok(Input::Trace(trace))
}

fn open_files(name: &str, files: &otf2::MemoryFiles) -> Result<Input, ReadError> {
    // A Darshan log given with the trace of its job: the trace read without it, the log's I/O put onto its ranks.
    if files.files.len() >= 2 {
        let logs: Vec<&String> =
            files.files.iter().filter(|(_, b)| darshan::looks_like_log(b)).map(|(p, _)| p).collect();
        if let [log] = logs.as_slice() {
            let trace = open_files_except(name, files, Some(log))?.into_trace(name)?;
            return ranks::put_io_on_ranks(name, trace, log, &files.files[*log]).map(Input::Trace);
        }
    }
    open_files_except(name, files, None)
}

/// [`open_files`] without the file `skip` (a Darshan log read apart).
fn open_files_except(name: &str, files: &otf2::MemoryFiles, skip: Option<&str>) -> Result<Input, ReadError> {
    // Several OTF2 archives (a folder of runs): one run, each archive a rank.
    let anchors = otf2::find_anchors(files);
    if anchors.len() >= 2 {
        return ranks::read_archives(name, files, &anchors).map(Input::Trace);
    }
    if let Some(anchor) = otf2::find_anchor(files) {
        let read = otf2::read_archive_full(&anchor, files)?;
        return Ok(Input::Otf2(Box::new(Otf2Input { name: name.to_string(), read })));
    }
    // A Paraver trace with its names: X.prv (or X.prv.gz) beside X.pcf and X.row.
    let prv = files.files.keys().find(|p| p.ends_with(".prv") || p.ends_with(".prv.gz"));
    if let Some(prv) = prv {
        let stem = prv.trim_end_matches(".gz").trim_end_matches(".prv");
        let pcf = files.files.get(&format!("{stem}.pcf")).map(Vec::as_slice);
        let row = files.files.get(&format!("{stem}.row")).map(Vec::as_slice);
        return paraver::read(prv, &files.files[prv], pcf, row).map(Input::Trace);
    }
    if let Some(found) = hpctoolkit::find(files) {
        return hpctoolkit::read_files(name, files, &found).map(Input::Trace);
    }
    if let Some(found) = projections::find(files) {
        return projections::read_files(name, files, &found).map(Input::Trace);
    }
    let paths: Vec<&String> = files.files.keys().filter(|p| Some(p.as_str()) != skip).collect();
    // Per-rank Chrome/Kineto JSON of one run.
    let sniffed: Vec<Sniffed> =
        if paths.len() >= 2 { paths.iter().map(|p| sniff(&files.files[*p])).collect() } else { Vec::new() };
    if let Some(kind) = ranks::set_format(&sniffed) {
        let set: Vec<(&str, &[u8])> = paths.iter().map(|p| (p.as_str(), files.files[*p].as_slice())).collect();
        return ranks::read_files(name, kind, &set).map(Input::Trace);
    }
    let named: Vec<(&str, Sniffed)> = paths.iter().map(|p| p.as_str()).zip(sniffed).collect();
    if let Some(e) = ranks::mixed_formats(&named) {
        return Err(e);
    }
    match paths.as_slice() {
        [] => Err(ReadError::Empty { file: name.to_string(), format: "folder", detail: " (no files in it)".into() }),
        [one] => open(one, Source::Bytes(&files.files[*one])),
        _ => Err(ReadError::UnknownFormat {
            file: name.to_string(),
            detail: format!(
                "{} files without an OTF2 anchor (X.otf2) among them; drop one trace file, or an OTF2 archive folder",
                paths.len()
            ),
        }),
    }
}

/// What kind of file `meta` describes, for the message refusing one that is not a regular file.
#[cfg(not(target_arch = "wasm32"))]
fn file_kind(meta: &std::fs::Metadata) -> &'static str {
    let t = meta.file_type();
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if t.is_dir() {
        "a folder"
    } else {
        "not a regular file"
    }
}

/// Refuse `path` unless it is a regular file (a symbolic link counts as what it points to), before it is
/// opened: opening a FIFO waits for a writer, and a device never ends.
#[cfg(not(target_arch = "wasm32"))]
pub fn check_regular(path: &std::path::Path) -> Result<std::fs::Metadata, ReadError> {
    let name = path.display().to_string();
    let meta = std::fs::metadata(path).map_err(|e| ReadError::Io { file: name.clone(), detail: e.to_string() })?;
    if meta.is_file() {
        return Ok(meta);
    }
    Err(ReadError::Io {
        file: name,
        detail: format!(
            "{}, not a regular file; weft reads regular files (and folders of them) only",
            file_kind(&meta)
        ),
    })
}

/// Read a regular file whole (native only): its kind and size are known before anything is read, it is opened
/// without waiting (a FIFO put in its place meanwhile is refused, not waited on), at most the size it had is
/// read, and the memory for it is reserved fallibly (a [`ReadError::TooLarge`] when there is not enough).
#[cfg(not(target_arch = "wasm32"))]
pub fn read_regular(path: &std::path::Path) -> Result<Vec<u8>, ReadError> {
    let mut bytes = Vec::new();
    read_regular_into(path, &mut bytes)?;
    Ok(bytes)
}

/// [`read_regular`] into `bytes` (replacing what it held, reusing its capacity: a reader of many files then
/// allocates and faults in its buffer once). An OTF2 archive's event files are read in windows instead
/// ([`open_regular`]).
#[cfg(not(target_arch = "wasm32"))]
pub fn read_regular_into(path: &std::path::Path, bytes: &mut Vec<u8>) -> Result<(), ReadError> {
    use std::io::Read;
    let name = path.display().to_string();
    let io = |e: std::io::Error| ReadError::Io { file: name.clone(), detail: e.to_string() };
    let (file, size) = open_regular(path)?;
    budget::Budget::current().admit_whole(&name, "a file", size)?;
    bytes.clear();
    budget::try_grow(bytes, usize::try_from(size).unwrap_or(usize::MAX), &name, "file", "its bytes")?;
    file.take(size).read_to_end(bytes).map_err(io)?;
    Ok(())
}

/// Open a regular file to read it in pieces (native only): its kind is checked before and after opening,
/// as [`read_regular`] does; returns it with its size.
#[cfg(not(target_arch = "wasm32"))]
pub fn open_regular(path: &std::path::Path) -> Result<(std::fs::File, u64), ReadError> {
    let name = path.display().to_string();
    let io = |e: std::io::Error| ReadError::Io { file: name.clone(), detail: e.to_string() };
    check_regular(path)?;
    let mut open = std::fs::OpenOptions::new();
    open.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        open.custom_flags(libc::O_NONBLOCK);
    }
    let file = open.open(path).map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    if !meta.is_file() {
        return Err(ReadError::Io {
            file: name.clone(),
            detail: format!("{}, not a regular file; weft reads regular files only", file_kind(&meta)),
        });
    }
    Ok((file, meta.len()))
}

/// Read a file or folder from disk (native only), whatever its format: a regular file is read whole and
/// sniffed once, as [`open`] does; a Paraver .prv is named by the .pcf and .row beside it; an OTF2 trace is
/// opened by its anchor (`X.otf2`), by one of its definition or event files, by the folder that holds it,
/// or from a zip/tar/tar.gz of that folder. A folder without an anchor is a set of files as the page takes
/// a dropped folder: its Paraver trace, HPCToolkit database or Projections trace, or the one file in it; a
/// Projections `.sts` names the trace in its folder.
#[cfg(not(target_arch = "wasm32"))]
pub fn open_path(path: &std::path::Path) -> Result<Input, ReadError> {
    let name = path.display().to_string();
    // A folder holding a Darshan log beside the trace of its job: the trace read without it, the I/O merged.
    if path.is_dir() {
        let logs: Vec<std::path::PathBuf> = folder_files(path)?
            .into_iter()
            .filter(|p| darshan::looks_like_log(&head(p, sniff::SNIFF_HEAD_BYTES as u64)))
            .collect();
        if let [log] = logs.as_slice() {
            let input = if otf2::find_anchor(&otf2::FolderFiles { root: path.to_path_buf() }).is_some() {
                Input::Otf2(Box::new(Otf2Input {
                    name: name.clone(),
                    read: otf2::read_path_full(path).ok_or_else(|| ReadError::UnknownFormat {
                        file: name.clone(),
                        detail: "an OTF2 anchor that is not read".into(),
                    })??,
                }))
            } else {
                open_folder(path, Some(log))?
            };
            return io_onto(&name, input, log);
        }
    }
    if path.is_dir() {
        // Several OTF2 archives in the folder (side by side, or a folder each): one run, each archive a rank.
        let anchors = otf2::find_anchors(&otf2::FolderFiles { root: path.to_path_buf() });
        if anchors.len() >= 2 {
            let paths: Vec<std::path::PathBuf> = anchors.iter().map(|a| path.join(a)).collect();
            return ranks::read_paths(&name, ranks::PartFormat::Otf2, &paths).map(Input::Trace);
        }
        if anchors.is_empty() {
            return open_folder(path, None);
        }
    }
    // OTF2 on disk is a set of files, found from the path before anything is read whole: this looks at a
    // file's first 8 bytes for the anchor's magic only (a file that is no anchor is then sniffed below).
    if let Some(read) = otf2::read_path_full(path) {
        return Ok(Input::Otf2(Box::new(Otf2Input { name, read: read? })));
    }
    let bytes = read_regular(path)?;
    // The file's one sniff; a Paraver trace is read here rather than by `open_sniffed` because its names are
    // in the files beside it, which only its path finds.
    match sniff(&bytes) {
        Sniffed::Paraver | Sniffed::ParaverGz => paraver::read_beside(path, &bytes).map(Input::Trace),
        // A Projections .sts names the trace in its folder.
        Sniffed::ProjectionsPart if projections::is_sts(&bytes) => {
            let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."));
            open_projections(&name, path, &folder_files(dir)?)
        }
        sniffed => open_sniffed(&name, sniffed, &bytes),
    }
}

/// The files (or links to files) in a folder, by name; not its subfolders.
#[cfg(not(target_arch = "wasm32"))]
fn folder_files(dir: &std::path::Path) -> Result<Vec<std::path::PathBuf>, ReadError> {
    let name = dir.display().to_string();
    let io = |e: std::io::Error| ReadError::Io { file: name.clone(), detail: e.to_string() };
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let path = entry.map_err(io)?.path();
        // Only what is a file (or a link to one) by its metadata; `open_path` refuses FIFOs and devices.
        if std::fs::metadata(&path).is_ok_and(|m| !m.is_dir()) {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

/// The Projections trace of `sts` among a folder's `files`: the .sts and its per-PE logs read whole (the
/// gzipped ones stream through the reader's decoder), nothing else.
#[cfg(not(target_arch = "wasm32"))]
fn open_projections(name: &str, sts: &std::path::Path, files: &[std::path::PathBuf]) -> Result<Input, ReadError> {
    let base = |p: &std::path::Path| p.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let sts_name = base(sts);
    let stem = sts_name.strip_suffix(".sts").unwrap_or(&sts_name);
    let mut set = otf2::MemoryFiles::new();
    set.insert(&sts_name, read_regular(sts)?);
    for p in files {
        let b = base(p);
        if projections::log_pe(stem, &b).is_some() {
            set.insert(&b, read_regular(p)?);
        }
    }
    let found = projections::find(&set).ok_or_else(|| ReadError::UnknownFormat {
        file: sts.display().to_string(),
        detail: "not a Projections .sts file".into(),
    })?;
    projections::read_files(name, &set, &found).map(Input::Trace)
}

/// A folder without an OTF2 anchor: the Paraver trace in it (with its .pcf and .row), an HPCToolkit database, a
/// Projections trace, else its one file.
#[cfg(not(target_arch = "wasm32"))]
fn open_folder(dir: &std::path::Path, skip: Option<&std::path::Path>) -> Result<Input, ReadError> {
    let name = dir.display().to_string();
    let files: Vec<std::path::PathBuf> = folder_files(dir)?.into_iter().filter(|p| Some(p.as_path()) != skip).collect();
    let is_prv = |p: &std::path::Path| p.to_str().is_some_and(|s| s.ends_with(".prv") || s.ends_with(".prv.gz"));
    if let Some(prv) = files.iter().find(|p| is_prv(p)) {
        return open_path(prv);
    }
    // An HPCToolkit database: its files by their headers, only those read whole.
    let db: Vec<&std::path::PathBuf> = files.iter().filter(|p| hpctoolkit::db_kind(&head(p, 16)).is_some()).collect();
    if !db.is_empty() {
        let mut set = otf2::MemoryFiles::new();
        for p in db {
            let rel = p.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
            set.insert(&rel, read_regular(p)?);
        }
        if let Some(found) = hpctoolkit::find(&set) {
            return hpctoolkit::read_files(&name, &set, &found).map(Input::Trace);
        }
    }
    // A Projections trace: its .sts by content, and the per-PE logs named after it.
    if let Some(sts) = files.iter().find(|p| projections::is_sts(&head(p, 16))) {
        return open_projections(&name, sts, &files);
    }
    // Per-rank Chrome/Kineto JSON or Perfetto traces of one run: every file sniffed by its head, then read in
    // parallel.
    if files.len() >= 2 {
        let sniffed: Vec<Sniffed> = files.iter().map(|p| sniff(&head(p, sniff::SNIFF_HEAD_BYTES as u64))).collect();
        if let Some(kind) = ranks::set_format(&sniffed) {
            return ranks::read_paths(&name, kind, &files).map(Input::Trace);
        }
        let shown: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
        let named: Vec<(&str, Sniffed)> = shown.iter().map(String::as_str).zip(sniffed).collect();
        if let Some(e) = ranks::mixed_formats(&named) {
            return Err(e);
        }
    }
    match files.as_slice() {
        [] => Err(ReadError::Empty { file: name, format: "folder", detail: " (no files in it)".into() }),
        [one] => open_path(one),
        _ => Err(ReadError::UnknownFormat {
            file: name,
            detail: format!(
                "{} files without an OTF2 anchor (X.otf2) or Paraver trace (X.prv) among them; open one trace file, \
                 or an OTF2 archive folder",
                files.len()
            ),
        }),
    }
}

/// The trace of `input` (read from `name`) with the Darshan log at `log` put onto its ranks.
#[cfg(not(target_arch = "wasm32"))]
fn io_onto(name: &str, input: Input, log: &std::path::Path) -> Result<Input, ReadError> {
    let trace = input.into_trace(name)?;
    let bytes = read_regular(log)?;
    ranks::put_io_on_ranks(name, trace, &log.display().to_string(), &bytes).map(Input::Trace)
}

/// Read files given together (native only): one path as [`open_path`] reads it; a trace and the Darshan log
/// of its job (in either order), the log's I/O put onto the trace's ranks ([`ranks::put_io_on_ranks`]); two
/// or more traces of one format (OTF2 archives, by their anchors or folders; Chrome/Kineto JSON; Perfetto
/// traces) as one run, each a rank ([`ranks`]).
#[cfg(not(target_arch = "wasm32"))]
pub fn open_paths(paths: &[std::path::PathBuf]) -> Result<Input, ReadError> {
    let is_log = |p: &std::path::Path| p.is_file() && darshan::looks_like_log(&head(p, sniff::SNIFF_HEAD_BYTES as u64));
    let joined = || paths.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ");
    match paths {
        [one] => return open_path(one),
        [a, b] if is_log(b) && !is_log(a) => return io_onto(&a.display().to_string(), open_path(a)?, b),
        [a, b] if is_log(a) && !is_log(b) => return io_onto(&b.display().to_string(), open_path(b)?, a),
        _ => {}
    }
    let refused = || ReadError::UnknownFormat {
        file: joined(),
        detail: "files given together are one trace and the Darshan log of its job, or the traces of one run \
                 (all OTF2 archives, all Chrome/Kineto JSON or all Perfetto traces)"
            .into(),
    };
    if paths.len() < 2 || paths.iter().any(|p| is_log(p)) {
        return Err(refused());
    }
    // Each path's format: an OTF2 archive by its anchor (the anchor itself, or a folder holding one), else
    // by the file's head.
    let sniffed: Vec<Sniffed> = paths
        .iter()
        .map(|p| {
            let archive = if p.is_dir() {
                otf2::find_anchor(&otf2::FolderFiles { root: p.clone() }).is_some()
            } else {
                otf2::anchor::looks_like_anchor(&head(p, 8))
            };
            if archive {
                Sniffed::Otf2Anchor
            } else if p.is_dir() {
                Sniffed::Unknown("a folder without an OTF2 archive".into())
            } else {
                sniff(&head(p, sniff::SNIFF_HEAD_BYTES as u64))
            }
        })
        .collect();
    let kind = if sniffed.iter().all(|s| matches!(s, Sniffed::Otf2Anchor)) {
        Some(ranks::PartFormat::Otf2)
    } else {
        ranks::set_format(&sniffed)
    };
    if let Some(kind) = kind {
        return ranks::read_paths(&joined(), kind, paths).map(Input::Trace);
    }
    let shown: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    let named: Vec<(&str, Sniffed)> = shown.iter().map(String::as_str).zip(sniffed).collect();
    Err(ranks::mixed_formats(&named).unwrap_or_else(refused))
}

/// The files of a folder `open_path` reads as per-rank Chrome/Kineto traces of one run (no OTF2 anchor,
/// Paraver trace, HPCToolkit database or Projections trace among them, and two or more files, every one
/// Chrome JSON by its head), in the order it reads them; None when it reads the folder another way.
#[cfg(not(target_arch = "wasm32"))]
pub fn folder_rank_files(dir: &std::path::Path) -> Option<Vec<std::path::PathBuf>> {
    if !dir.is_dir() || otf2::find_anchor(&otf2::FolderFiles { root: dir.to_path_buf() }).is_some() {
        return None;
    }
    let files = folder_files(dir).ok()?;
    let is_prv = |p: &std::path::Path| p.to_str().is_some_and(|s| s.ends_with(".prv") || s.ends_with(".prv.gz"));
    if files
        .iter()
        .any(|p| is_prv(p) || hpctoolkit::db_kind(&head(p, 16)).is_some() || projections::is_sts(&head(p, 16)))
    {
        return None;
    }
    let sniffed: Vec<Sniffed> = files.iter().map(|p| sniff(&head(p, sniff::SNIFF_HEAD_BYTES as u64))).collect();
    ranks::is_rank_set(&sniffed).then_some(files)
}

/// The first `n` bytes of a regular file (fewer when it is shorter; none when it is not a regular file or
/// cannot be read), for telling a folder's files apart before any is read whole.
#[cfg(not(target_arch = "wasm32"))]
fn head(path: &std::path::Path, n: u64) -> Vec<u8> {
    use std::io::Read;
    let mut out = Vec::new();
    if check_regular(path).is_ok() {
        let mut open = std::fs::OpenOptions::new();
        open.read(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            open.custom_flags(libc::O_NONBLOCK);
        }
        if let Ok(f) = open.open(path) {
            let _ = f.take(n).read_to_end(&mut out);
        }
    }
    out
}

#[cfg(test)]
mod open_tests;

/// A warning naming each cycle among a grain profile's parents (the grain graph cuts them and draws their
/// grains under the root): "t.csv: the parents of tasks form a cycle: task 2 -> task 3 -> task 2".
fn parent_cycle_warnings(name: &str, profile: &weft_model::grains::GrainProfile) -> Warnings {
    let mut w = Warnings::default();
    for cycle in profile.parent_cycles() {
        w.push(weft_model::WarningKind::ParentCycle, || {
            const SHOWN: usize = 8;
            let mut text: Vec<String> = cycle.iter().take(SHOWN).map(|t| format!("task {t}")).collect();
            if cycle.len() > SHOWN {
                text.push(format!("... ({} tasks)", cycle.len()));
            }
            text.push(format!("task {}", cycle[0]));
            format!("{name}: the parents of tasks form a cycle: {}; drawn under the root", text.join(" -> "))
        });
    }
    w
}
