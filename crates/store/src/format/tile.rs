//! A tile's bytes and entry made in one place: the frame ([`ColumnWriter::finish_tile`]), the content hash
//! and the path ([`TileKind::path`]). Every tile kind's encoder ends here.

use crate::format::columns::{content_hash, ColumnWriter, TileId};
use crate::format::manifest::{TileEntry, TileKind, FORMAT_VERSION};

/// Tile format version (the frame's version byte), the same as the manifest's.
pub const TILE_VERSION: u8 = FORMAT_VERSION as u8;

/// A tile made from its columns: its entry (path, hash, size, records) and its bytes.
pub fn tile(
    kind: TileKind,
    level: u32,
    block: u32,
    window: u32,
    records: u64,
    w: ColumnWriter,
) -> (TileEntry, Vec<u8>) {
    let id = TileId { kind: kind.code(), level, block, window };
    let bytes = w.finish_tile(id, TILE_VERSION);
    let hash = content_hash(&bytes);
    let path = kind.path(level, block, window, &hash);
    let entry = TileEntry { path, kind, level, block, window, bytes: bytes.len() as u64, hash, records };
    (entry, bytes)
}
