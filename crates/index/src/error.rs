//! What goes wrong in an index: [`IndexError`]. A leaf: it names no other module of the index.

use thiserror::Error;
use weft_readers::ReadError;

#[derive(Debug, Error)]
pub enum IndexError {
    #[error(transparent)]
    Read(#[from] ReadError),
    /// The archive needs the whole read (two definitions of one location merge into one model location).
    #[error("{0}")]
    NotStreamable(String),
    /// A shard decoding only its own locations met one it cannot log for the others (it names a region
    /// the definitions lack): every shard reads every location instead (`exchange`).
    #[error("{0}")]
    Redo(String),
    #[error("{0}")]
    Memory(String),
    #[error("{0}")]
    Io(String),
}
