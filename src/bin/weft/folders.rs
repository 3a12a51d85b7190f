//! The CLI's store folders, shared by `weft index`, `weft merge`, the MPI ranks (`mpi.rs`) and the commands
//! that read a store (`info`, `moments`, `render`): a store or part is written into a temporary folder beside
//! its name and renamed to it last (`partial` removes it should the run be interrupted), so a run killed
//! midway leaves nothing that looks complete; and a store folder is read back through [`FolderStore`].
//!
//! Knows files and folders, not how a store is built: it must not import `index` or `mpi` (they import it).

use crate::progress::Progress;
use std::path::{Path, PathBuf};
pub use weft::index::folder::{open_store, store_error, FolderStore};

/// A path as printed (control characters escaped).
pub fn shown(p: &Path) -> String {
    weft::model::text::escape_controls(&p.display().to_string()).into_owned()
}

/// The temporary folder beside `out` that tiles are written into (emptied first; leftovers of killed runs
/// beside it removed, and it removed if this run is interrupted: `partial`).
pub fn partial_folder(out: &Path) -> Result<PathBuf, String> {
    crate::partial::create(out)
}

/// Write the manifest (`file`: a store's or a part's) last into the partial folder `tmp`, then rename it to
/// `out` (`publish`). A manifest that cannot be written (ENOSPC) takes the partial folder with it.
pub fn finish_store(tmp: &Path, out: &Path, file: &str, manifest_json: &[u8], force: bool) -> Result<(), String> {
    let manifest = tmp.join(file);
    if let Err(e) = std::fs::write(&manifest, manifest_json) {
        crate::partial::remove(tmp);
        return Err(format!("{}: {e}", manifest.display()));
    }
    publish(tmp, out, force)
}

/// Fill a temporary folder beside `out` (`fill` gets its path; the folder's manifest must be written last),
/// then rename it to `out`: a run killed midway leaves nothing named `out`. `force` replaces `out`.
/// A run that fails on the way (a write refused: ENOSPC) removes the folder.
pub fn write_folder(out: &Path, force: bool, fill: impl FnOnce(&Path) -> Result<(), String>) -> Result<(), String> {
    let tmp = partial_folder(out)?;
    if let Err(e) = fill(&tmp) {
        crate::partial::remove(&tmp);
        return Err(e);
    }
    publish(&tmp, out, force)
}

/// `.NAME.partial-ID` beside `out` (an MPI rank's folder).
#[cfg(feature = "mpi")]
pub fn temporary_folder(out: &Path, id: u32) -> Result<PathBuf, String> {
    crate::partial::folder_name(out, id)
}

fn parent_of(out: &Path) -> PathBuf {
    crate::partial::parent_of(out)
}

/// Rename the filled temporary folder `tmp` to `out` (replacing it when `force`).
pub fn publish(tmp: &Path, out: &Path, force: bool) -> Result<(), String> {
    let err = |p: &Path, e: std::io::Error| format!("{}: {e}", p.display());
    // A signal now waits until the folder is the store (or kept, below): not a partial folder to remove.
    let publishing = crate::partial::publishing();
    let _done = Forget(Some(publishing), tmp);
    if out.exists() {
        if !force {
            return Err(format!("{}: appeared while indexing; the store is left in {}", out.display(), tmp.display()));
        }
        let name = out.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let old = parent_of(out).join(format!(".{name}.old-{}", std::process::id()));
        std::fs::rename(out, &old).map_err(|e| err(out, e))?;
        std::fs::rename(tmp, out).map_err(|e| err(out, e))?;
        let _ = std::fs::remove_dir_all(&old);
    } else {
        std::fs::rename(tmp, out).map_err(|e| err(out, e))?;
    }
    Ok(())
}

/// Forgets the folder being published once `publish` returns, whatever it returned.
struct Forget<'a>(Option<crate::partial::Publishing>, &'a Path);

impl Drop for Forget<'_> {
    fn drop(&mut self) {
        if let Some(p) = self.0.take() {
            p.done(self.1);
        }
    }
}

/// Write `tiles` under `dir` (creating their folders), then the manifest file `manifest` (last).
pub fn write_files(
    dir: &Path,
    tiles: &[(String, Vec<u8>)],
    progress: &Progress,
    manifest: &str,
    manifest_bytes: &[u8],
) -> Result<(), String> {
    write_tiles(dir, tiles, progress)?;
    let p = dir.join(manifest);
    std::fs::write(&p, manifest_bytes).map_err(|e| format!("{}: {e}", p.display()))
}

/// Write `tiles` under `dir`, creating their folders (another process may create the same ones at once).
pub fn write_tiles(dir: &Path, tiles: &[(String, Vec<u8>)], progress: &Progress) -> Result<(), String> {
    let err = |p: &Path, e: std::io::Error| format!("{}: {e}", p.display());
    let n = tiles.len();
    for (k, (path, bytes)) in tiles.iter().enumerate() {
        let p = dir.join(path);
        if let Some(d) = p.parent() {
            std::fs::create_dir_all(d).map_err(|e| err(d, e))?;
        }
        std::fs::write(&p, bytes).map_err(|e| err(&p, e))?;
        if k % 256 == 0 {
            progress.say(&format!("writing tiles {k}/{n}"));
        }
    }
    Ok(())
}

/// The trace at `path`: read by the readers, or decoded whole from a store folder (every level-0 tile).
pub fn read_trace_or_store(path: &Path) -> Result<weft::model::Trace, Box<dyn std::error::Error>> {
    match open_store(path) {
        Some(store) => {
            let e = |e| store_error(path, e);
            Ok(store.map_err(e)?.to_trace().map_err(e)?)
        }
        None => Ok(weft::readers::open_path(path)?.into_trace(&path.display().to_string())?),
    }
}
