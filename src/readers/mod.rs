//! Format readers: bytes in, a [`Trace`](crate::model::Trace) out, through the model's builder.
//!
//! `sniff` picks the reader from content, never from the extension. Readers never panic on any input: a
//! malformed file gives a [`ReadError`] naming the file and position, or warnings and a partial trace.

pub mod archive;
pub mod budget;
pub mod chrome;
pub mod execgraph_text;
pub mod graphml;
pub mod mir;
pub mod otf2;
pub mod otf2_threads;
pub mod paraver;
pub mod sniff;

use crate::model::Trace;
use thiserror::Error;

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
}

/// Read a whole file held in memory, whatever its format. `name` is used in messages only. Zip, tar and
/// gzip-compressed tar archives are searched for an OTF2 archive; plain gzip goes to the Chrome reader.
pub fn read_bytes(name: &str, bytes: &[u8]) -> Result<Trace, ReadError> {
    match sniff(bytes) {
        Sniffed::Zip | Sniffed::Tar => archive::read_archive_bytes(name, bytes, archive::DEFAULT_BUDGET_BYTES),
        Sniffed::Gzip if archive::is_tar(&archive::gunzip_head(bytes, 512)) => {
            archive::read_archive_bytes(name, bytes, archive::DEFAULT_BUDGET_BYTES)
        }
        Sniffed::Gzip if paraver::is_gzipped_prv(bytes) => paraver::read(name, bytes, None, None),
        Sniffed::ChromeJson | Sniffed::Gzip => chrome::read(name, bytes),
        Sniffed::Paraver => paraver::read(name, bytes, None, None),
        Sniffed::Otf2Anchor => Err(otf2::anchor_alone(name)),
        Sniffed::Unknown(detail) => Err(ReadError::UnknownFormat { file: name.to_string(), detail }),
        s @ (Sniffed::MirTaskStats | Sniffed::GraphMl) => Err(ReadError::UnknownFormat {
            file: name.to_string(),
            detail: format!("{} is a grain graph, not a timeline (read it with read_grains / `weft grains`)", s.name()),
        }),
        other => Err(ReadError::Unsupported { file: name.to_string(), format: other.name() }),
    }
}

/// Read a set of files dropped together (a folder, or several files): an OTF2 archive when the set holds an
/// anchor (`X.otf2` with its `X.def` and `X/*.evt`), a Paraver trace when it holds `X.prv` (with `X.pcf` and
/// `X.row` for names), else the one file there is. `name` names the set.
pub fn read_file_set(name: &str, files: &otf2::MemoryFiles) -> Result<Trace, ReadError> {
    if let Some(anchor) = otf2::find_anchor(files) {
        return otf2::read_archive(&anchor, files);
    }
    // A Paraver trace with its names: X.prv (or X.prv.gz) beside X.pcf and X.row.
    let prv = files.files.keys().find(|p| p.ends_with(".prv") || p.ends_with(".prv.gz"));
    if let Some(prv) = prv {
        let stem = prv.trim_end_matches(".gz").trim_end_matches(".prv");
        let pcf = files.files.get(&format!("{stem}.pcf")).map(Vec::as_slice);
        let row = files.files.get(&format!("{stem}.row")).map(Vec::as_slice);
        return paraver::read(prv, &files.files[prv], pcf, row);
    }
    let paths: Vec<&String> = files.files.keys().collect();
    match paths.as_slice() {
        [] => Err(ReadError::Empty { file: name.to_string(), format: "folder", detail: " (no files in it)".into() }),
        [one] => read_bytes(one, &files.files[*one]),
        _ => Err(ReadError::UnknownFormat {
            file: name.to_string(),
            detail: format!(
                "{} files without an OTF2 anchor (X.otf2) among them; drop one trace file, or an OTF2 archive folder",
                paths.len()
            ),
        }),
    }
}

/// Read an execution-graph input (its own kind of input: thread events, not a [`Trace`]): the text format, or
/// an OTF2 archive (zip, tar, tar.gz) with thread events. See [`read_execgraph_full`] for the warnings.
pub fn read_execgraph(name: &str, bytes: &[u8]) -> Result<crate::model::thread_events::ThreadEvents, ReadError> {
    read_execgraph_full(name, bytes).map(|r| r.0)
}

/// Thread events and the warnings of interpreting them (OTF2 events that pair with nothing).
pub type ExecGraphInput = (crate::model::thread_events::ThreadEvents, crate::model::Warnings);

/// [`read_execgraph`], with the warnings.
pub fn read_execgraph_full(name: &str, bytes: &[u8]) -> Result<ExecGraphInput, ReadError> {
    if let Some(read) = otf2_threads::otf2_in_bytes(name, bytes) {
        return otf2_threads::execgraph_events(&read?, name);
    }
    match sniff(bytes) {
        Sniffed::ExecGraphText => execgraph_text::parse(name, bytes)
            .map(|ev| (ev, crate::model::Warnings::default()))
            .map_err(|e| ReadError::Malformed {
                file: e.file,
                format: "execution-graph text",
                offset: e.offset,
                detail: format!("line {}: {}", e.line, e.kind),
            }),
        Sniffed::Unknown(detail) => Err(ReadError::UnknownFormat { file: name.to_string(), detail }),
        other => Err(ReadError::Unsupported { file: name.to_string(), format: other.name() }),
    }
}

/// An execution-graph input among files dropped together: an OTF2 archive, else the one file there is.
pub fn read_execgraph_files(name: &str, files: &otf2::MemoryFiles) -> Result<ExecGraphInput, ReadError> {
    if let Some(read) = otf2_threads::otf2_in_files(files) {
        return otf2_threads::execgraph_events(&read?, name);
    }
    match files.files.iter().next() {
        Some((one, bytes)) if files.files.len() == 1 => read_execgraph_full(one, bytes),
        _ => Err(ReadError::UnknownFormat {
            file: name.to_string(),
            detail: "no OTF2 anchor (X.otf2) among the files".into(),
        }),
    }
}

/// An execution-graph input from disk (native only): an OTF2 anchor, its folder, or any file
/// [`read_execgraph_full`] reads.
#[cfg(not(target_arch = "wasm32"))]
pub fn read_execgraph_path(path: &std::path::Path) -> Result<ExecGraphInput, ReadError> {
    let name = path.display().to_string();
    if let Some(read) = otf2::read_path_full(path) {
        return otf2_threads::execgraph_events(&read?, &name);
    }
    let bytes = read_regular(path)?;
    read_execgraph_full(&name, &bytes)
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
    use std::io::Read;
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
    let size = meta.len();
    budget::Budget::DEFAULT.admit_whole(&name, "a file", size)?;
    let mut bytes = Vec::new();
    budget::try_grow(&mut bytes, usize::try_from(size).unwrap_or(usize::MAX), &name, "file", "its bytes")?;
    file.take(size).read_to_end(&mut bytes).map_err(io)?;
    Ok(bytes)
}

/// Read a file or folder from disk (native only). An OTF2 trace is opened by its anchor (`X.otf2`), by the
/// folder that holds one, or from a zip/tar/tar.gz of that folder.
#[cfg(not(target_arch = "wasm32"))]
pub fn read_path(path: &std::path::Path) -> Result<Trace, ReadError> {
    if let Some(result) = otf2::read_path(path) {
        return result;
    }
    let name = path.display().to_string();
    let bytes = read_regular(path)?;
    if sniff(&bytes) == Sniffed::Paraver || paraver::is_gzipped_prv(&bytes) {
        // A .prv is named by the .pcf and .row beside it.
        return paraver::read_beside(path, &bytes);
    }
    read_bytes(&name, &bytes)
}

/// A grain-graph input: a MIR profile to build the graph from, or a graph the prototype already built.
#[derive(Debug)]
pub enum GrainInput {
    Profile(mir::MirProfile),
    Graph(graphml::GraphMlGraph),
}

/// Read a grain-graph input (MIR task-stats CSV, GraphML, or an OTF2 archive with task events), whatever its
/// name says. See [`read_grains_full`] for the warnings.
pub fn read_grains(name: &str, bytes: &[u8]) -> Result<GrainInput, ReadError> {
    read_grains_full(name, bytes).map(|r| r.0)
}

/// [`read_grains`], with the warnings of interpreting OTF2 task events (none for the other formats).
pub fn read_grains_full(name: &str, bytes: &[u8]) -> Result<(GrainInput, crate::model::Warnings), ReadError> {
    if let Some(read) = otf2_threads::otf2_in_bytes(name, bytes) {
        return otf2_threads::grain_profile(&read?, name).map(|(p, w)| (GrainInput::Profile(p), w));
    }
    let input = match sniff(bytes) {
        Sniffed::MirTaskStats => mir::read(name, bytes).map(GrainInput::Profile),
        Sniffed::GraphMl => graphml::read(name, bytes).map(GrainInput::Graph),
        Sniffed::Unknown(detail) => Err(ReadError::UnknownFormat { file: name.to_string(), detail }),
        other => Err(ReadError::UnknownFormat {
            file: name.to_string(),
            detail: format!("{} is not a grain-graph input", other.name()),
        }),
    }?;
    Ok((input, crate::model::Warnings::default()))
}

/// A grain-graph input among files dropped together: an OTF2 archive with task events, else the one file.
pub fn read_grains_files(
    name: &str,
    files: &otf2::MemoryFiles,
) -> Result<(GrainInput, crate::model::Warnings), ReadError> {
    if let Some(read) = otf2_threads::otf2_in_files(files) {
        return otf2_threads::grain_profile(&read?, name).map(|(p, w)| (GrainInput::Profile(p), w));
    }
    match files.files.iter().next() {
        Some((one, bytes)) if files.files.len() == 1 => read_grains_full(one, bytes),
        _ => Err(ReadError::UnknownFormat {
            file: name.to_string(),
            detail: "no OTF2 anchor (X.otf2) among the files".into(),
        }),
    }
}

/// A grain-graph input from disk (native only): an OTF2 anchor, its folder, or any file [`read_grains_full`]
/// reads.
#[cfg(not(target_arch = "wasm32"))]
pub fn read_grains_path(path: &std::path::Path) -> Result<(GrainInput, crate::model::Warnings), ReadError> {
    let name = path.display().to_string();
    if let Some(read) = otf2::read_path_full(path) {
        return otf2_threads::grain_profile(&read?, &name).map(|(p, w)| (GrainInput::Profile(p), w));
    }
    let bytes = read_regular(path)?;
    read_grains_full(&name, &bytes)
}
