//! `weft merge -o STORE PART... [--force] [--copy]`: joins the parts written by `weft index --shard K/N`
//! (one per shard, any order) into one store, the same bytes as `weft index` without shards
//! (`weft::index::shard::merge`; docs/cluster.md). Merges the parts' `part.json` (checked sums, the result checked
//! as a store); the tiles are hard-linked into the store (copied with `--copy`, or where a link fails, e.g.
//! across file systems), each verified first: a regular file inside its part's folder, no link followed
//! (`store_files`), its size, content hash and frame (what it says it is) its part's manifest's
//! (`store::read::verify_tile`). Writes under a temporary name, renamed to STORE last; a failed merge
//! removes it, an interrupted one too (`partial`).

use crate::folders::{shown, store_error, write_folder, FolderStore};
use crate::progress::Progress;
use crate::store_files::{open_inside, same_file, MOST_FILE_BYTES};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Instant;
use weft::index::{merge, PartManifest, PART_MANIFEST};
use weft::store::read::verify_tile;
use weft::store::{TileSource, MANIFEST};

#[derive(clap::Args)]
pub struct Args {
    /// The part folders (`weft index --shard K/N` outputs), every shard once.
    #[arg(required = true)]
    parts: Vec<PathBuf>,
    /// The store folder to write.
    #[arg(short, long)]
    out: PathBuf,
    /// Replace STORE if it exists.
    #[arg(long)]
    force: bool,
    /// Copy the tiles instead of hard-linking them.
    #[arg(long)]
    copy: bool,
}

pub fn run(a: Args) -> Result<(), Box<dyn std::error::Error>> {
    if a.out.exists() && !a.force {
        return Err(format!("{}: exists (use --force to replace it)", a.out.display()).into());
    }
    // Before any thread starts: a merge interrupted removes its partial folder.
    crate::partial::catch_signals();
    let started = Instant::now();
    let mut parts = Vec::with_capacity(a.parts.len());
    let mut manifest_bytes = 0u64;
    for p in &a.parts {
        let bytes = FolderStore { root: p.clone() }
            .read(PART_MANIFEST)
            .map_err(|e| format!("{}: {e}", p.join(PART_MANIFEST).display()))?
            .ok_or_else(|| {
                format!(
                    "{}: not a part of a sharded index (no {PART_MANIFEST}; `weft index --shard K/N` writes one)",
                    p.display()
                )
            })?;
        manifest_bytes += bytes.len() as u64;
        let part = PartManifest::parse(&bytes).map_err(|e| store_error(p, e))?;
        parts.push((p.display().to_string(), part));
    }
    let merged = merge(&parts)?;
    let merge_s = started.elapsed().as_secs_f64();
    let progress = Progress::new();
    let t1 = Instant::now();
    let mut m = merged.manifest.clone();
    let mut linked = 0usize;
    write_folder(&a.out, a.force, |tmp| {
        let n = m.tiles.len();
        for (k, (e, &part)) in m.tiles.iter().zip(&merged.tile_part).enumerate() {
            let (file, meta, from) = open_inside(&a.parts[part], &e.path)?
                .ok_or_else(|| format!("{}: missing from its part", a.parts[part].join(&e.path).display()))?;
            if meta.len() != e.bytes || meta.len() > MOST_FILE_BYTES {
                let size = meta.len();
                return Err(format!("{}: {size} bytes, its part's {PART_MANIFEST} says {}", from.display(), e.bytes));
            }
            let mut bytes = Vec::with_capacity(e.bytes as usize);
            file.take(e.bytes).read_to_end(&mut bytes).map_err(|err| format!("{}: {err}", from.display()))?;
            verify_tile(&bytes, e, m.version as u8).map_err(|err| store_error(&a.parts[part], err))?;
            let to = tmp.join(&e.path);
            if let Some(d) = to.parent() {
                std::fs::create_dir_all(d).map_err(|err| format!("{}: {err}", d.display()))?;
            }
            if !a.copy && link(&from, &meta, &to) {
                linked += 1;
            } else {
                std::fs::write(&to, &bytes).map_err(|err| format!("{}: {err}", to.display()))?;
            }
            if k % 256 == 0 {
                progress.say(&format!("linking tiles {k}/{n}"));
            }
        }
        // The wait states, from the store's level-0 tiles (`index::waits`, as the unsharded index ends),
        // when every part was indexed with --waits.
        if merged.waits {
            progress.say("wait states");
            add_waits_in(&mut m, tmp, crate::index::DEFAULT_MEMORY)?;
        }
        let json = {
            let mut v = serde_json::to_vec_pretty(&m).expect("a manifest always serializes");
            v.push(b'\n');
            v
        };
        let p = tmp.join(MANIFEST);
        std::fs::write(&p, &json).map_err(|err| format!("{}: {err}", p.display()))
    })?;
    progress.clear();
    println!("store       {}", shown(&a.out));
    println!("parts       {} (part manifests {manifest_bytes} bytes)", parts.len());
    println!("intervals   {}", m.counts.intervals);
    println!("tiles       {} ({linked} linked, {} copied)", m.tiles.len(), m.tiles.len() - linked);
    println!("seconds     merge {merge_s:.3}, files {:.3}", t1.elapsed().as_secs_f64());
    Ok(())
}

/// The wait states of the store being written in `tmp` (its level-0 tiles in place) added to it, within
/// `memory` (their sorts' runs in `.spill.waits` in `tmp`, kept in memory up to the spill's share and
/// removed after).
pub fn add_waits_in(m: &mut weft::store::Manifest, tmp: &Path, memory: u64) -> Result<(), String> {
    let read = |p: &str| std::fs::read(tmp.join(p)).map_err(|e| format!("{}: {e}", tmp.join(p).display()));
    let spill_path = tmp.join(".spill.waits");
    let mut spill = crate::index::FileSpill::create(&spill_path, weft::index::Budget::new(memory).spill_in_memory())?;
    let added = weft::index::waits::add_waits_within(
        m,
        &read,
        &mut |p, bytes| {
            let to = tmp.join(p);
            if let Some(d) = to.parent() {
                std::fs::create_dir_all(d).map_err(|e| format!("{}: {e}", d.display()))?;
            }
            std::fs::write(&to, bytes).map_err(|e| format!("{}: {e}", to.display()))
        },
        &mut spill,
        memory,
    );
    drop(spill);
    let removed = std::fs::remove_file(&spill_path).map_err(|e| format!("{}: {e}", spill_path.display()));
    added.and(removed)
}

/// Hard-link the verified file `from` (opened as `meta`) to `to`: true when `to` is then that very file (a
/// regular file, the same inode), so a path changed between the check and the link is never linked in.
fn link(from: &Path, meta: &std::fs::Metadata, to: &Path) -> bool {
    if std::fs::hard_link(from, to).is_err() {
        return false;
    }
    match open_inside(to.parent().unwrap_or(Path::new(".")), &to.file_name().unwrap_or_default().to_string_lossy()) {
        Ok(Some((_, linked, _))) if same_file(&linked, meta) => true,
        _ => {
            let _ = std::fs::remove_file(to);
            false
        }
    }
}
