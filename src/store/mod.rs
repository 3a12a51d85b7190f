//! The out-of-core trace store (issue #17): a folder of immutable, content-named tiles and one
//! `manifest.json`, written by `weft index` and read back exactly, tile by tile. docs/store-format.md is the
//! specification; this module is its one implementation.
//!
//! - `columns`: varint columns, the tile frame (LZ4 via `lz4_flex`), content hashes;
//! - `manifest`: definitions, counts, warnings, tiling, levels, the tile list; parsed and checked;
//! - `consistency`: the tile list checked against the tiling and counts before any tile is read;
//! - `build`: a [`Trace`](crate::model::Trace) cut into tiles, location block by block, on `threads` std threads,
//!   with bytes that do not depend on the thread count;
//! - `pyramid`: per-location summaries per time bin (busy time by definition, dominant region, event and
//!   message counts, message bytes), the finest level from the intervals and coarser ones merged 4 to 1;
//! - `comms`: a trace's messages and collective rows block by block (a streamed index's sorted into the
//!   trace's order and written to each block's file in the spill, `runs`: sorted runs merged k ways);
//! - `read`: a store back to a `Trace` (exact), its moments and summary without the events;
//! - `stream`: the same store from an OTF2 archive read location by location, within a memory budget
//!   (`weft index`), without the whole trace;
//! - `partition`: a shard's part of the store (`--shard K/N`, MPI ranks): its location blocks' tiles and its
//!   share of the manifest;
//! - `exchange`, `message_sort`: MPI ranks decoding only their own OTF2 locations, each matching the
//!   messages its locations received, numbered across the ranks by a sample sort;
//! - `merge`: N parts joined into the store one process writes, from the parts' manifests alone;
//! - `query`: what a viewport needs (level and tiles) and what it draws from them (rows x bins, or the exact
//!   records), and the byte-bounded LRU cache of decoded tiles the page's worker keeps;
//! - `answer`: a viewport answered natively from the tiles it needs (`weft render timeline STORE/`).
//!
//! Plain Rust, no `std::fs`: tiles come through [`TileSource`] (the CLI reads a folder, the page will fetch
//! URLs or read a dropped folder), and [`build`] returns bytes for the caller to write.

pub mod answer;
pub mod build;
pub mod columns;
pub mod comms;
mod consistency;
pub mod counters;
pub mod exchange;
mod held;
pub mod manifest;
pub mod merge;
mod message_sort;
mod nest;
pub mod partition;
pub mod pyramid;
pub mod query;
mod ranged;
pub mod read;
mod runs;
mod samples;
pub mod stream;

pub use build::{build, BuildOptions, BuiltStore};
pub use manifest::{Manifest, TileEntry, TileKind, FORMAT_NAME, FORMAT_VERSION, MANIFEST};
pub use merge::{merge, MergeError, Merged};
pub use partition::{build_part, build_part_with, BuiltPart, PartManifest, ParticleShare, Shard, PART_MANIFEST};
pub use ranged::set_memory_release;
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

impl BuiltStore {
    /// The store as files in memory, by path.
    pub fn to_memory(&self) -> MemoryStore {
        let mut files: std::collections::BTreeMap<String, Vec<u8>> =
            self.tiles.iter().map(|(p, b)| (p.clone(), b.clone())).collect();
        files.insert(MANIFEST.to_string(), self.manifest_json());
        MemoryStore { files }
    }
}
