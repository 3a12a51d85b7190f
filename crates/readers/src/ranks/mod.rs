//! Per-rank traces of one run opened together: a folder (or a set of dropped files) whose files are all
//! Chrome/Kineto JSON, as PyTorch's profiler writes one per rank, read as one [`Trace`].
//!
//! Layers: this file decides which file is which rank and how the clocks line up (from each file's
//! `distributedInfo.rank` and `baseTimeNanoseconds`, [`RunInfo`]), and reads the files (in parallel natively);
//! `merge` concatenates the per-rank traces into one, each rank a process named "rank N" holding every
//! location of its file; `nccl` matches the ranks' NCCL collective kernels into the trace's collectives.
//!
//! Ranks: every file's `distributedInfo.rank` when every file has one (a rank twice, a rank outside
//! `world_size` or files that disagree on `world_size` is a [`ReadError::NotOneRun`] naming the file), else
//! the files' order (by path), said so in the [`WarningKind::Merged`] note. Clocks: Kineto writes `ts` in
//! microseconds after `baseTimeNanoseconds`, so with a base in every file each rank's times are moved to
//! `base + ts` (an absolute clock; the merged trace's origin is its earliest event there); without a base in
//! any, the files' times are taken as one clock; a base in some files only is refused, naming a file without.
//!
//! `io`: a Darshan log given with the OTF2 or Chrome trace of its job, its I/O put onto the trace's ranks.
//!
//! Must not: sniff (the caller has: every file here is Chrome JSON), or change how one file alone is read.

mod io;
#[cfg(test)]
mod io_tests;
mod merge;
mod nccl;
#[cfg(test)]
mod tests;
mod two;

pub use io::put_io_on_ranks;
pub use two::two_runs;

use crate::chrome::{self, RunInfo};
use crate::ReadError;
use weft_model::{Trace, WarningKind};

/// What the merged trace's messages call the input.
const FORMAT: &str = "per-rank Chrome/Kineto JSON";

/// One rank's file, read.
pub struct RankPart {
    /// The file's name (its path in the folder), for messages.
    pub file: String,
    pub trace: Trace,
    pub run: RunInfo,
}

/// How the ranks' clocks were put on one time line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Clocks {
    /// Every file's `baseTimeNanoseconds` added to its times.
    BaseTime,
    /// No file has a base: their times are taken as they are.
    AsWritten,
}

/// Read the files of `files` (name and bytes, in the order given), each a Chrome/Kineto JSON of one rank, and
/// merge them into one trace named `name` in messages.
pub fn read_files(name: &str, files: &[(&str, &[u8])]) -> Result<Trace, ReadError> {
    let mut parts = Vec::with_capacity(files.len());
    for (file, bytes) in files {
        let (trace, run) = chrome::read_run(file, bytes)?;
        parts.push(RankPart { file: file.to_string(), trace, run });
    }
    merge_parts(name, parts)
}

/// Read the files at `paths` (native), each a Chrome/Kineto JSON of one rank, on up to as many threads as
/// the machine has cores (each thread holds one file's bytes at a time), and merge them.
#[cfg(not(target_arch = "wasm32"))]
pub fn read_paths(name: &str, paths: &[std::path::PathBuf]) -> Result<Trace, ReadError> {
    read_paths_reporting(name, paths, &|_| {})
}

/// As [`read_paths`], calling `took(bytes)` from the reading threads as each file has been read and parsed
/// (a progress bar's bytes: the files' sizes, summed as they are done).
#[cfg(not(target_arch = "wasm32"))]
pub fn read_paths_reporting(
    name: &str,
    paths: &[std::path::PathBuf],
    took: &(dyn Fn(u64) + Sync),
) -> Result<Trace, ReadError> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(paths.len()).max(1);
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Result<RankPart, ReadError>>>> = Mutex::new((0..paths.len()).map(|_| None).collect());
    let budget = crate::budget::Budget::current();
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                // The budget is per thread: each reader thread takes the caller's.
                budget.scope(|| loop {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    let Some(path) = paths.get(k) else { break };
                    let file = path.display().to_string();
                    let part = crate::read_regular(path).and_then(|bytes| {
                        let (trace, run) = chrome::read_run(&file, &bytes)?;
                        took(bytes.len() as u64);
                        Ok(RankPart { file, trace, run })
                    });
                    let failed = part.is_err();
                    if let Ok(mut r) = results.lock() {
                        r[k] = Some(part);
                    }
                    if failed {
                        // The first error is reported; the other threads finish the file they hold.
                        next.store(paths.len(), Ordering::Relaxed);
                        break;
                    }
                })
            });
        }
    });
    let results = results.into_inner().unwrap_or_default();
    let mut parts = Vec::with_capacity(paths.len());
    for (k, r) in results.into_iter().enumerate() {
        match r {
            Some(Ok(p)) => parts.push(p),
            Some(Err(e)) => return Err(e),
            None => {
                return Err(ReadError::Io {
                    file: paths[k].display().to_string(),
                    detail: "not read (another file of the run failed first)".into(),
                })
            }
        }
    }
    merge_parts(name, parts)
}

/// The rank of each part (in the parts' order) and how their clocks line up, or why they are not one run.
pub fn assign_ranks(parts: &[RankPart]) -> Result<(Vec<u32>, Clocks, String), ReadError> {
    let not_one = |file: &str, detail: String| ReadError::NotOneRun { file: file.to_string(), detail };
    let with_rank = parts.iter().filter(|p| p.run.rank.is_some()).count();
    let mut notes = Vec::new();
    let ranks: Vec<u32> = if with_rank == parts.len() {
        // The run's world size: the one most files give (a file that gives another is the odd one out).
        let mut sizes: Vec<(i64, usize, &str)> = Vec::new();
        for p in parts {
            if let Some(w) = p.run.world_size {
                match sizes.iter_mut().find(|s| s.0 == w) {
                    Some(s) => s.1 += 1,
                    None => sizes.push((w, 1, &p.file)),
                }
            }
        }
        let world = sizes.iter().rev().max_by_key(|s| s.1).map(|s| (s.0, s.2));
        let mut seen: std::collections::HashMap<u32, &str> = std::collections::HashMap::new();
        let mut ranks = Vec::with_capacity(parts.len());
        for p in parts {
            let r = p.run.rank.unwrap_or(0);
            if let (Some(w), Some((w0, f0))) = (p.run.world_size, world) {
                if w != w0 {
                    return Err(not_one(
                        &p.file,
                        format!("distributedInfo.world_size is {w}, but {f0} says {w0}: not one run"),
                    ));
                }
            }
            let bad_rank = r < 0 || r > u32::MAX as i64 || world.is_some_and(|(w, _)| r >= w);
            if bad_rank {
                let world = world.map_or(String::new(), |(w, _)| format!(" (world_size {w})"));
                return Err(not_one(&p.file, format!("distributedInfo.rank {r} is not a rank of the run{world}")));
            }
            if let Some(other) = seen.insert(r as u32, &p.file) {
                return Err(not_one(
                    &p.file,
                    format!("rank {r} again: {other} is rank {r} too (distributedInfo.rank)"),
                ));
            }
            ranks.push(r as u32);
        }
        if let Some((w, _)) = world {
            if (parts.len() as i64) < w {
                notes.push(format!("{} of the run's {w} ranks (world_size) given", parts.len()));
            }
        }
        ranks
    } else if with_rank == 0 {
        notes.push("ranks by file order (no distributedInfo.rank)".to_string());
        (0..parts.len() as u32).collect()
    } else {
        let p = parts.iter().find(|p| p.run.rank.is_none()).expect("a part without a rank");
        let q = parts.iter().find(|p| p.run.rank.is_some()).expect("a part with a rank");
        return Err(not_one(
            &p.file,
            format!(
                "no distributedInfo.rank, but {} has one: give the files of one run, every one with its rank",
                q.file
            ),
        ));
    };
    let with_base = parts.iter().filter(|p| p.run.base_time_ns.is_some()).count();
    let clocks = if with_base == parts.len() {
        Clocks::BaseTime
    } else if with_base == 0 {
        Clocks::AsWritten
    } else {
        let p = parts.iter().find(|p| p.run.base_time_ns.is_none()).expect("a part without a base");
        let q = parts.iter().find(|p| p.run.base_time_ns.is_some()).expect("a part with a base");
        return Err(not_one(
            &p.file,
            format!(
                "no baseTimeNanoseconds, but {} has one: their clocks cannot be aligned (give files of one profiler version)",
                q.file
            ),
        ));
    };
    let clocks_note = match clocks {
        Clocks::BaseTime => "clocks aligned by baseTimeNanoseconds",
        Clocks::AsWritten => "clocks taken as written (no baseTimeNanoseconds)",
    };
    let mut note = format!("{} ranks merged; {clocks_note}", parts.len());
    for n in notes {
        note.push_str("; ");
        note.push_str(&n);
    }
    Ok((ranks, clocks, note))
}

/// Merge read parts into one trace: ranks assigned and clocks aligned ([`assign_ranks`]), NCCL collectives
/// matched; the note saying so is the trace's [`WarningKind::Merged`] warning.
pub fn merge_parts(name: &str, mut parts: Vec<RankPart>) -> Result<Trace, ReadError> {
    if parts.is_empty() {
        return Err(ReadError::Empty { file: name.to_string(), format: FORMAT, detail: " (no files)".into() });
    }
    let (ranks, clocks, note) = assign_ranks(&parts)?;
    let mut order: Vec<usize> = (0..parts.len()).collect();
    order.sort_by_key(|&k| ranks[k]);
    let mut sorted: Vec<Option<RankPart>> = parts.drain(..).map(Some).collect();
    let ranked: Vec<(u32, RankPart)> =
        order.iter().map(|&k| (ranks[k], sorted[k].take().expect("each part once"))).collect();
    let mut trace = merge::merge(name, ranked, clocks)?;
    let matched = nccl::match_collectives(&mut trace);
    let mut note = note;
    if matched.operations > 0 {
        note.push_str(&format!(
            "; {} NCCL collectives matched across ranks ({} kernels)",
            matched.operations, matched.rows
        ));
    }
    if matched.unmatched > 0 {
        note.push_str(&format!("; {} NCCL kernels without a partner on another rank", matched.unmatched));
    }
    let file = name.to_string();
    trace.warnings.push(WarningKind::Merged, || format!("{file}: {note}"));
    Ok(trace)
}

/// Whether a set of files is a run of per-rank Chrome/Kineto JSON: at least two files, every one sniffed as
/// Chrome JSON (plain or gzipped).
pub fn is_rank_set(sniffed: &[crate::Sniffed]) -> bool {
    sniffed.len() >= 2 && sniffed.iter().all(|s| matches!(s, crate::Sniffed::ChromeJson | crate::Sniffed::Gzip))
}
