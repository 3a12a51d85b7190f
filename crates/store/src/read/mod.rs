//! Reading a store, from bytes to what a view draws.
//!
//! - `store`: [`Store`], the manifest opened and checked, each tile fetched through a
//!   [`TileSource`](crate::TileSource), checked against its entry and decoded (by `super::format`);
//! - `query`: what a viewport needs (level and tiles) and what it draws from them (rows x bins, or the exact
//!   records; counters; particles);
//! - `calltree`: the call tree of a window and locations from the call-path tiles (format 8) and the
//!   level-0 tiles of the range's edges;
//! - `cache`: the decoded tiles kept, bounded in bytes (the page's worker);
//! - `answer`: a viewport answered natively from the tiles it needs (`weft render timeline STORE/`);
//! - `waits`: the wait report of a store (format 6), as `weft waits` prints it of the trace;
//! - `critical_path`: the critical path a store keeps (format 7), as `weft critical-path` prints it of the
//!   trace, and its segments in a window.
//!
//! Architecture invariant: no files and no web types (the page's worker runs this code); imports only
//! `weft_model`, `weft_analyses` and the store's other rooms, never the index or the readers.

pub mod answer;
pub mod cache;
pub mod calltree;
pub mod compare;
pub mod critical_path;
pub mod query;
mod store;
pub mod waits;

pub use crate::format::events::{
    CollectiveRow, EventsTile, MessageRow, OpenInterval, OpenRecords, TileInstant, TileInterval,
};
pub use store::{verify_tile, Store};
