//! Stores on disk, read back: a store folder (`weft index`'s output) as a [`TileSource`], and its files read
//! without leaving it (issue #51): a path from a manifest is followed component by component, each folder on
//! the way a real folder (not a link), the file opened without following a link (`O_NOFOLLOW`) and without
//! waiting on a FIFO (`O_NONBLOCK`), and read only when it is a regular file, its size taken from the open
//! file. So a tile that is a link to /etc/passwd, a linked subfolder or a FIFO is refused by name before a
//! byte of it is read. Shared by the CLI (`weft info STORE`, `weft merge`, ...) and the Python package
//! (python/: `weft.open(store)`).
//!
//! The manifest parser already refuses absolute paths and `..` (`store::manifest`); this is the file side.

use std::fs::{File, Metadata};
use std::io::Read;
use std::path::{Path, PathBuf};
use weft_store::{Store, StoreError, TileSource, MANIFEST};

/// The largest store file read (a tile decompresses to at most 1 GiB; a manifest of a million locations is
/// a few hundred MB).
pub const MOST_FILE_BYTES: u64 = 4 << 30;

/// `rel` (`/`-separated) under `root`, opened as above: the open file and its metadata, None when no such
/// file exists, an error naming the path when a link, a folder or a special file is in the way.
pub fn open_inside(root: &Path, rel: &str) -> Result<Option<(File, Metadata, PathBuf)>, String> {
    let parts: Vec<&str> = rel.split('/').collect();
    let mut p = root.to_path_buf();
    for (k, part) in parts.iter().enumerate() {
        if part.is_empty() || *part == "." || *part == ".." {
            return Err(format!("{}: not a plain path inside the folder", root.join(rel).display()));
        }
        p.push(part);
        if k + 1 == parts.len() {
            break;
        }
        match std::fs::symlink_metadata(&p) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(format!("{}: {e}", p.display())),
            Ok(m) if m.file_type().is_symlink() => {
                return Err(format!(
                    "{}: a symbolic link; a store's files are read inside its folder only",
                    p.display()
                ))
            }
            Ok(m) if !m.is_dir() => return Err(format!("{}: not a folder", p.display())),
            Ok(_) => {}
        }
    }
    let mut open = std::fs::OpenOptions::new();
    open.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        open.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    #[cfg(not(unix))]
    if std::fs::symlink_metadata(&p).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(format!("{}: a symbolic link; a store's files are read inside its folder only", p.display()));
    }
    let file = match open.open(&p) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        #[cfg(unix)]
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
            return Err(format!("{}: a symbolic link; a store's files are read inside its folder only", p.display()))
        }
        Err(e) => return Err(format!("{}: {e}", p.display())),
    };
    let meta = file.metadata().map_err(|e| format!("{}: {e}", p.display()))?;
    if !meta.is_file() {
        return Err(format!("{}: not a regular file; a store holds regular files only", p.display()));
    }
    Ok(Some((file, meta, p)))
}

/// The bytes of `rel` under `root` ([`open_inside`]), at most `most` of them (a larger file is refused
/// before it is read).
pub fn read_inside(root: &Path, rel: &str, most: u64) -> Result<Option<Vec<u8>>, String> {
    let Some((file, meta, p)) = open_inside(root, rel)? else { return Ok(None) };
    if meta.len() > most {
        return Err(format!("{}: {} bytes, more than a store file holds ({most})", p.display(), meta.len()));
    }
    let mut bytes = Vec::new();
    bytes.try_reserve_exact(meta.len() as usize).map_err(|e| format!("{}: {e}", p.display()))?;
    file.take(meta.len()).read_to_end(&mut bytes).map_err(|e| format!("{}: {e}", p.display()))?;
    Ok(Some(bytes))
}

/// Whether `a` and `b` are the same file (device and inode on unix).
#[cfg(unix)]
pub fn same_file(a: &Metadata, b: &Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    (a.dev(), a.ino()) == (b.dev(), b.ino())
}

#[cfg(not(unix))]
pub fn same_file(_: &Metadata, _: &Metadata) -> bool {
    false
}

/// A store in a folder.
pub struct FolderStore {
    pub root: PathBuf,
}

impl TileSource for FolderStore {
    fn read(&self, path: &str) -> Result<Option<Vec<u8>>, String> {
        // Regular files inside the folder only, no link followed (a FIFO would wait for a writer).
        read_inside(&self.root, path, MOST_FILE_BYTES)
    }
}

/// The store at `path` when it is a folder with a manifest; None when it is not a store. A folder laid out
/// as a store (the events tiles' `e/` folder, no file beside it) without its manifest is a store missing
/// `manifest.json`, said so, rather than a trace folder with no files in it (issue 51).
pub fn open_store(path: &Path) -> Option<Result<Store<FolderStore>, StoreError>> {
    open_store_with(path, |folder| folder)
}

/// [`open_store`] with the folder's files read through `wrap`'s source (the Python package counts them).
pub fn open_store_with<S: TileSource>(
    path: &Path,
    wrap: impl FnOnce(FolderStore) -> S,
) -> Option<Result<Store<S>, StoreError>> {
    if !path.join(MANIFEST).is_file() {
        return store_without_manifest(path).then(|| Err(StoreError::Missing { file: MANIFEST.into() }));
    }
    Some(Store::open(wrap(FolderStore { root: path.to_path_buf() })))
}

/// Whether `path` is a folder of a store's tiles without the manifest: an `e/` folder, and no visible file.
fn store_without_manifest(path: &Path) -> bool {
    let Ok(entries) = std::fs::read_dir(path) else { return false };
    let mut tiles = false;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Ok(kind) = entry.file_type() else { return false };
        if kind.is_dir() {
            tiles |= name == "e";
        } else if !name.to_string_lossy().starts_with('.') {
            return false;
        }
    }
    tiles
}

/// A store error as the CLI prints it: the file's path within the store folder.
pub fn store_error(root: &Path, e: StoreError) -> String {
    let file = root.join(e.file()).display().to_string();
    let text = e.to_string();
    match text.strip_prefix(e.file()) {
        Some(rest) => format!("{file}{rest}"),
        None => text,
    }
}
