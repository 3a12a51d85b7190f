//! The store's bytes: what a file on disk is, and nothing about how a trace becomes one (`weft_index`) or
//! how a view asks for one (`super::read`).
//!
//! - `columns`: varint columns, the tile frame (LZ4 via `lz4_flex`), content hashes, delta columns;
//! - `manifest`: definitions, counts, warnings, tiling, levels, the tile list; parsed and checked;
//! - `consistency`: the tile list checked against the tiling and counts before any tile is read;
//! - `tile`: a tile's frame, hash and path made in one place;
//! - one module per tile kind, each with its records and its decoder: `events` (level 0), `summary` (the
//!   pyramid's levels), `moments`, `particles`, `waits` (format 6: the wait states), `critical_path` (format 7: the critical path), `callpaths` (format 8: call-path totals per pyramid tile); the counter tiles' codec is `super::counters`.
//!
//! Architecture invariant: imports only `weft_model`, `weft_analyses` and its own siblings; never the
//! index or the readers.

pub mod callpaths;
pub mod columns;
pub mod consistency;
pub mod critical_path;
pub mod events;
pub mod manifest;
pub mod moments;
pub mod particles;
pub mod summary;
pub mod tile;
pub mod waits;
