//! The store's bytes: what a file on disk is, and nothing about how a trace becomes one (`crate::index`) or
//! how a view asks for one (`super::read`).
//!
//! - `columns`: varint columns, the tile frame (LZ4 via `lz4_flex`), content hashes, delta columns;
//! - `manifest`: definitions, counts, warnings, tiling, levels, the tile list; parsed and checked;
//! - `consistency`: the tile list checked against the tiling and counts before any tile is read;
//! - `tile`: a tile's frame, hash and path made in one place;
//! - `particles`: the particle tiles' record.
//!
//! Architecture invariant: imports only `crate::model`, `crate::analyses` and its own siblings; never the
//! index or the readers.

pub mod columns;
pub mod consistency;
pub mod manifest;
pub mod particles;
pub mod tile;
