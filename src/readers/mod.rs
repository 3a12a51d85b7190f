//! Format readers: bytes in, a [`Trace`](crate::model::Trace) out, through the model's builder.
//!
//! `sniff` picks the reader from content, never from the extension. Readers never panic on any input: a
//! malformed file gives a [`ReadError`] naming the file and position, or warnings and a partial trace.

pub mod chrome;
pub mod graphml;
pub mod mir;
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
}

/// Read a whole file held in memory, whatever its format. `name` is used in messages only.
pub fn read_bytes(name: &str, bytes: &[u8]) -> Result<Trace, ReadError> {
    match sniff(bytes) {
        Sniffed::ChromeJson | Sniffed::Gzip => chrome::read(name, bytes),
        Sniffed::Unknown(detail) => Err(ReadError::UnknownFormat { file: name.to_string(), detail }),
        s @ (Sniffed::MirTaskStats | Sniffed::GraphMl) => Err(ReadError::UnknownFormat {
            file: name.to_string(),
            detail: format!("{} is a grain graph, not a timeline (read it with read_grains / `weft grains`)", s.name()),
        }),
        other => Err(ReadError::Unsupported { file: name.to_string(), format: other.name() }),
    }
}

/// Read a file from disk (native only).
#[cfg(not(target_arch = "wasm32"))]
pub fn read_path(path: &std::path::Path) -> Result<Trace, ReadError> {
    let name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| ReadError::Io { file: name.clone(), detail: e.to_string() })?;
    read_bytes(&name, &bytes)
}

/// A grain-graph input: a MIR profile to build the graph from, or a graph the prototype already built.
#[derive(Debug)]
pub enum GrainInput {
    Profile(mir::MirProfile),
    Graph(graphml::GraphMlGraph),
}

/// Read a grain-graph input (MIR task-stats CSV or GraphML), whatever its name says.
pub fn read_grains(name: &str, bytes: &[u8]) -> Result<GrainInput, ReadError> {
    match sniff(bytes) {
        Sniffed::MirTaskStats => mir::read(name, bytes).map(GrainInput::Profile),
        Sniffed::GraphMl => graphml::read(name, bytes).map(GrainInput::Graph),
        Sniffed::Unknown(detail) => Err(ReadError::UnknownFormat { file: name.to_string(), detail }),
        other => Err(ReadError::UnknownFormat {
            file: name.to_string(),
            detail: format!("{} is not a grain-graph input", other.name()),
        }),
    }
}
