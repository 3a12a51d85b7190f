//! The out-of-core trace store (issue #17): a folder of immutable, content-named tiles and one
//! `manifest.json`, written by `weft index` and read back exactly, tile by tile. docs/store-format.md is the
//! specification; this module is its one implementation.
//!
//! - `format`: the bytes (varint columns, tile frame, content hashes, manifest, the tile list's consistency);
//! - `pyramid`: per-location summaries per time bin (busy time by definition, dominant region, event and
//!   message counts, message bytes), the finest level from the intervals and coarser ones merged 4 to 1;
//! - `counters`: the counter tiles (samples and their per-bin summaries);
//! - `read`: a store back to a `Trace` (exact), its moments and summary without the events (`read::query`: what a
//!   viewport needs and draws, and the byte-bounded LRU cache of decoded tiles the page's worker keeps;
//!   `read::answer`: a viewport answered natively, `weft render timeline STORE/`).
//!
//! The index (`weft_index`) writes stores; this module must not import it, nor the readers.
//!
//! Plain Rust, no `std::fs`: tiles come through [`TileSource`] (the CLI reads a folder, the page will fetch
//! URLs or read a dropped folder); the index returns bytes for the caller to write.

// A library returns what it finds; only the CLI, examples and tests print.
#![warn(clippy::print_stdout)]

pub mod counters;
pub mod format;
pub mod pyramid;
pub mod read;

pub use format::manifest::{Manifest, TileEntry, TileKind, FORMAT_NAME, FORMAT_VERSION, MANIFEST};
pub use read::Store;

use thiserror::Error;

/// What went wrong with a store, naming the file (relative to the store's folder).
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum StoreError {
    #[error("{file}: missing from the store")]
    Missing { file: String },
    #[error("{file}: could not be read: {detail}")]
    Io { file: String, detail: String },
    #[error(
        "{file}: store format version {found}; this weft reads versions {oldest} to {expected} (index the trace again)"
    )]
    Version { file: String, found: u32, oldest: u32, expected: u32 },
    #[error("{file}: corrupt: {detail}")]
    Corrupt { file: String, detail: String },
    #[error("{file}: disagrees with the manifest: {detail}")]
    Mismatch { file: String, detail: String },
}

impl StoreError {
    /// The store file the error is about.
    pub fn file(&self) -> &str {
        match self {
            StoreError::Missing { file }
            | StoreError::Io { file, .. }
            | StoreError::Version { file, .. }
            | StoreError::Corrupt { file, .. }
            | StoreError::Mismatch { file, .. } => file,
        }
    }
}

/// Where a store's files come from: `read("manifest.json")`, `read("e/b0/w3.0123abcd.wt")`.
pub trait TileSource {
    /// The file's bytes, `Ok(None)` when the store has no such file, `Err` (a message) when it cannot be read.
    fn read(&self, path: &str) -> Result<Option<Vec<u8>>, String>;
}

/// A store held in memory (tests; a dropped folder's files).
#[derive(Clone, Debug, Default)]
pub struct MemoryStore {
    pub files: std::collections::BTreeMap<String, Vec<u8>>,
}

impl TileSource for MemoryStore {
    fn read(&self, path: &str) -> Result<Option<Vec<u8>>, String> {
        Ok(self.files.get(path).cloned())
    }
}
