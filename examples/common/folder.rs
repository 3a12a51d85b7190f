//! A store folder as a `TileSource` for the examples (the store module takes no `std::fs`; the CLI has its
//! own, `FolderStore`). Included with `#[path = "common/folder.rs"] mod folder;`.

use std::path::Path;
use weft::store::TileSource;

pub struct Folder<'a>(pub &'a Path);

impl TileSource for Folder<'_> {
    fn read(&self, path: &str) -> Result<Option<Vec<u8>>, String> {
        match std::fs::read(self.0.join(path)) {
            Ok(b) => Ok(Some(b)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e.to_string()),
        }
    }
}
