//! `weft merge -o STORE PART... [--force] [--copy]`: joins the parts written by `weft index --shard K/N`
//! (one per shard, any order) into one store, the same bytes as `weft index` without shards
//! (`weft::store::merge`; docs/cluster.md). Reads only the parts' `part.json`; the tiles are hard-linked into
//! the store (copied with `--copy`, or where a link fails, e.g. across file systems), after checking each
//! one's size against its part's manifest. Writes under a temporary name, renamed to STORE last.

use crate::index::{shown, store_error, write_folder, FolderStore, Progress};
use std::path::{Path, PathBuf};
use std::time::Instant;
use weft::store::{merge, PartManifest, TileSource, MANIFEST, PART_MANIFEST};

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
    let m = &merged.manifest;
    let json = {
        let mut v = serde_json::to_vec_pretty(m).expect("a manifest always serializes");
        v.push(b'\n');
        v
    };
    let mut linked = 0usize;
    write_folder(&a.out, a.force, |tmp| {
        let n = m.tiles.len();
        for (k, (e, &part)) in m.tiles.iter().zip(&merged.tile_part).enumerate() {
            let from = a.parts[part].join(&e.path);
            let size = std::fs::metadata(&from).map_err(|err| format!("{}: {err}", from.display()))?.len();
            if size != e.bytes {
                return Err(format!("{}: {size} bytes, its part's {PART_MANIFEST} says {}", from.display(), e.bytes));
            }
            let to = tmp.join(&e.path);
            if let Some(d) = to.parent() {
                std::fs::create_dir_all(d).map_err(|err| format!("{}: {err}", d.display()))?;
            }
            if !a.copy && std::fs::hard_link(&from, &to).is_ok() {
                linked += 1;
            } else {
                copy(&from, &to)?;
            }
            if k % 256 == 0 {
                progress.say(&format!("linking tiles {k}/{n}"));
            }
        }
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

fn copy(from: &Path, to: &Path) -> Result<(), String> {
    std::fs::copy(from, to).map(|_| ()).map_err(|e| format!("{} -> {}: {e}", from.display(), to.display()))
}
