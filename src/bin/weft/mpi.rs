//! `mpirun -n N weft index TRACE -o STORE` (or `srun`), built with `--features mpi` (the `mpi` crate over the
//! system MPI; docs/cluster.md). Rank R indexes shard R/N (`weft::index::shard::partition`) and writes its tiles
//! straight into the store's temporary folder (named by rank 0, broadcast; a shared file system, as on any
//! cluster); the ranks' part manifests (counts, per-location and per-region totals, tile lists) are gathered
//! to rank 0, which merges them (`weft::index::shard::merge`), writes the manifest and renames the folder. The
//! store is the same bytes as `weft index` in one process. An OTF2 archive is streamed by each rank, which
//! decodes only its own locations and learns the rest from the others (`weft::index::shard::exchange`: headers and
//! logs broadcast rank after rank, [`MpiExchange`]; each rank matches the messages its own locations
//! received, and the ranks number them together by a sample sort over all-to-all exchanges; each rank
//! writes the particle tiles of its range of windows, the others sending it the particle-view intervals
//! there); Chrome JSON
//! and Paraver are read in chunks by every rank within `--memory` (as `weft index --shard R/N` reads them);
//! other inputs are read whole by every rank.
//!
//! A rank that fails prints its error (`weft: rank R: ...`) and calls MPI_Abort, which ends every rank: the
//! run fails with that message and leaves no store. Used only when launched by an MPI launcher (its
//! environment variables); otherwise `weft index` runs in one process as without the feature.

use crate::folders::{publish, shown, temporary_folder, write_tiles};
use crate::index::{chunked_into, read, stream_into, stream_options, Args};
use crate::progress::Progress;
use mpi::datatype::{Partition, PartitionMut};
use mpi::environment::Universe;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use mpi::Count;
use std::time::Instant;
use weft::index::shard::exchange::Exchange;
use weft::index::{build_part, merge, PartManifest, Shard};
use weft::store::MANIFEST;

/// The ranks reaching each other for an index whose ranks decode only their own locations
/// (`weft::index::shard::exchange`): broadcasts from each rank in turn, and point-to-point sends.
struct MpiExchange<'w> {
    world: &'w SimpleCommunicator,
    shard: Shard,
}

impl Exchange for MpiExchange<'_> {
    fn shard(&self) -> Shard {
        self.shard
    }

    fn broadcast(&self, root: u32, bytes: &mut Vec<u8>) -> Result<(), String> {
        let from = self.world.process_at_rank(root as i32);
        let mut len = bytes.len() as u64;
        from.broadcast_into(&mut len);
        if self.shard.index != root {
            let len = usize::try_from(len).map_err(|_| format!("rank {root} broadcast {len} bytes"))?;
            bytes.clear();
            bytes.resize(len, 0);
        }
        // (Within MPI's count: a rank's log goes out in pieces of at most 16 MiB, `exchange`.)
        if !bytes.is_empty() {
            from.broadcast_into(&mut bytes[..]);
        }
        Ok(())
    }

    fn pass(&self, from: u32, to: u32, bytes: &mut Vec<u8>) -> Result<(), String> {
        let me = self.shard.index;
        if from != to && me == from {
            self.world.process_at_rank(to as i32).send(&bytes[..]);
        } else if from != to && me == to {
            *bytes = self.world.process_at_rank(from as i32).receive_vec::<u8>().0;
        }
        Ok(())
    }

    fn all_to_all(&self, out: Vec<Vec<u8>>) -> Result<Vec<Vec<u8>>, String> {
        let n = self.shard.count as usize;
        if out.len() != n {
            return Err(format!("{} lists for {n} ranks", out.len()));
        }
        // Each rank's counts first, then the bytes (a round stays within MPI's count: `message_sort`).
        let count = |len: usize| Count::try_from(len).map_err(|_| format!("{len} bytes in one exchange"));
        let sent: Vec<Count> = out.iter().map(|o| count(o.len())).collect::<Result<_, _>>()?;
        let mut received: Vec<Count> = vec![0; n];
        self.world.all_to_all_into(&sent[..], &mut received[..]);
        let displs = |c: &[Count]| -> Result<Vec<Count>, String> {
            let mut at = 0usize;
            c.iter()
                .map(|&c| {
                    let d = count(at);
                    at += c as usize;
                    d
                })
                .collect()
        };
        // (Buffers allocated even when empty: an empty Vec's dangling pointer is 1, which OpenMPI reads as
        // MPI_IN_PLACE.)
        let mut flat: Vec<u8> = Vec::with_capacity(out.iter().map(Vec::len).sum::<usize>().max(1));
        out.iter().for_each(|o| flat.extend_from_slice(o));
        let (sent_at, received_at) = (displs(&sent)?, displs(&received)?);
        let total: usize = received.iter().map(|&c| c as usize).sum();
        count(total)?;
        let mut into = Vec::with_capacity(total.max(1));
        into.resize(total, 0u8);
        {
            let send = Partition::new(&flat[..], &sent[..], &sent_at[..]);
            let mut recv = PartitionMut::new(&mut into[..], &received[..], &received_at[..]);
            self.world.all_to_all_varcount_into(&send, &mut recv);
        }
        Ok((0..n).map(|k| into[received_at[k] as usize..][..received[k] as usize].to_vec()).collect())
    }
}

/// MPI, initialized, when this process was launched by an MPI launcher (`index::LAUNCHER_VARIABLES`).
pub fn launched() -> Option<Universe> {
    if !crate::index::LAUNCHER_VARIABLES.iter().any(|v| std::env::var_os(v).is_some()) {
        return None;
    }
    mpi::initialize()
}

/// This rank's share of the index; on any error, the message, the temporary folder removed (the tiles and
/// spills of every rank: a billion events leave tens of GB there), and MPI_Abort.
pub fn index(universe: Universe, a: &Args) -> Result<(), Box<dyn std::error::Error>> {
    let world = universe.world();
    let mut tmp = None;
    if let Err(e) = work(&world, a, &mut tmp) {
        eprintln!("weft: rank {}: {}", world.rank(), weft::model::text::escape_controls_lines(&e));
        if let Some(tmp) = tmp {
            // Other ranks may still be writing into it until the abort ends them: a few tries.
            for _ in 0..5 {
                if std::fs::remove_dir_all(&tmp).is_ok() || !tmp.exists() {
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
        }
        world.abort(1);
    }
    Ok(())
}

/// This rank's share; `tmp` is the store's temporary folder once named.
fn work(world: &SimpleCommunicator, a: &Args, tmp_folder: &mut Option<std::path::PathBuf>) -> Result<(), String> {
    let (rank, size) = (world.rank(), world.size());
    if a.shard.is_some() {
        return Err("--shard is for independent jobs; under mpirun the ranks are the shards".into());
    }
    let progress = if rank == 0 { Progress::new() } else { Progress::quiet() };
    let started = Instant::now();
    let shard = Shard { index: rank as u32, count: size as u32 };
    if a.out.exists() && !a.force {
        return Err(format!("{}: exists (use --force to replace it)", a.out.display()));
    }
    // Rank 0 names and creates the temporary folder; every rank writes its tiles into it.
    let root = world.process_at_rank(0);
    let mut id = std::process::id();
    if rank == 0 {
        let tmp = temporary_folder(&a.out, id)?;
        let _ = std::fs::remove_dir_all(&tmp);
        std::fs::create_dir_all(&tmp).map_err(|e| format!("{}: {e}", tmp.display()))?;
    }
    root.broadcast_into(&mut id);
    let tmp = temporary_folder(&a.out, id)?;
    *tmp_folder = Some(tmp.clone());
    // An OTF2 archive is streamed, each rank decoding its own locations (its tiles straight into the shared
    // folder, its spill there under the rank's name); Chrome JSON and Paraver are read in chunks (below);
    // another input, or an archive that must be read whole, is read whole by every rank and cut into the
    // rank's part.
    let mut streamed = None;
    if let Some(archive) = weft::readers::otf2::archive_of_path(&a.trace) {
        let (files, anchor) = archive.map_err(|e| e.to_string())?;
        let (options, memory) = stream_options(a)?;
        let spill = tmp.join(format!(".spill.{rank}"));
        let x = MpiExchange { world, shard };
        streamed = stream_into(&files, &anchor, &options, Some(shard), Some(&x), memory, &progress, &tmp, &spill)
            .map_err(|e| e.to_string())?;
    }
    // Chrome JSON and Paraver are read in chunks by every rank, within --memory, each tiling its own blocks
    // (as `weft index --shard R/N` does).
    let kind = match streamed {
        None => crate::index::chunked_kind(&a.trace)?,
        Some(_) => None,
    };
    let chunked = match kind {
        Some(kind) => {
            let (options, memory) = stream_options(a)?;
            let (spill, events) = (tmp.join(format!(".spill.{rank}")), tmp.join(format!(".events.{rank}")));
            let t0 = Instant::now();
            let c = chunked_into(&a.trace, kind, &options, Some(shard), memory, &progress, &tmp, &spill, &events)
                .map_err(|e| e.to_string())?;
            Some((
                c.indexed.part.ok_or("a shard's chunked index gave no part")?,
                c.read_s,
                t0.elapsed().as_secs_f64() - c.read_s,
                Some(c.steps),
            ))
        }
        None => None,
    };
    let (part, read_s, tile_s, steps) = match (streamed, chunked) {
        (Some(s), _) => (s.part.ok_or("a shard's streamed index gave no part")?, s.read_s, s.tile_s, Some(s.steps)),
        (None, Some(c)) => c,
        (None, None) => {
            let r = read(a, &progress).map_err(|e| e.to_string())?;
            let t1 = Instant::now();
            let part = build_part(&r.trace, &r.options, shard);
            let tile_s = t1.elapsed().as_secs_f64();
            drop(r.trace);
            write_tiles(&tmp, &part.tiles, &progress)?;
            (part.part, r.read_s, tile_s, None)
        }
    };
    // Each rank's part manifest to rank 0 (after its tiles are written).
    let json = part.to_json();
    let len = Count::try_from(json.len()).map_err(|_| "a part manifest over 2 GiB".to_string())?;
    if rank != 0 {
        root.gather_into(&len);
        root.gather_varcount_into(&json[..]);
        return Ok(());
    }
    let mut lens = vec![0 as Count; size as usize];
    root.gather_into_root(&len, &mut lens[..]);
    let displs: Vec<Count> = lens.iter().scan(0, |at, &n| Some(std::mem::replace(at, *at + n))).collect();
    let mut all = vec![0u8; lens.iter().map(|&n| n as usize).sum()];
    root.gather_varcount_into_root(&json[..], &mut PartitionMut::new(&mut all[..], &lens[..], &displs[..]));
    let mut parts = Vec::with_capacity(size as usize);
    for (k, (&at, &n)) in displs.iter().zip(&lens).enumerate() {
        let p = PartManifest::parse(&all[at as usize..(at + n) as usize]).map_err(|e| format!("rank {k}: {e}"))?;
        parts.push((format!("rank {k}"), p));
    }
    let merged = merge(&parts).map_err(|e| e.to_string())?;
    let mut m = merged.manifest;
    // The wait states (`--waits`, which every rank was given), from the level-0 tiles every rank wrote into
    // the shared folder.
    if merged.waits {
        crate::merge::add_waits_in(&mut m, &tmp, crate::index::memory_flag(a)?)?;
    }
    let m = &m;
    let mut bytes = serde_json::to_vec_pretty(m).expect("a manifest always serializes");
    bytes.push(b'\n');
    let p = tmp.join(MANIFEST);
    std::fs::write(&p, &bytes).map_err(|e| format!("{}: {e}", p.display()))?;
    publish(&tmp, &a.out, a.force)?;
    progress.clear();
    println!("store       {}", shown(&a.out));
    println!("ranks       {size}");
    println!("events      {}", m.counts.event_records);
    println!("intervals   {}", m.counts.intervals);
    println!("tiles       {} ({} blocks x {} windows)", m.tiles.len(), m.tiling.blocks, m.tiling.windows);
    println!("seconds     read {read_s:.2}, tile {tile_s:.2} (rank 0), total {:.2}", started.elapsed().as_secs_f64());
    if let Some(steps) = steps {
        println!("steps       {steps} (rank 0)");
    }
    Ok(())
}
