//! Per-rank traces of one run opened together: a folder (or a set of dropped files, or `weft info A B C`)
//! whose files are all Chrome/Kineto JSON, as PyTorch's profiler writes one per rank, or all OTF2 archives, or
//! all Perfetto traces, read as one [`Trace`].
//!
//! Layers: this file decides which file is which rank and how the clocks line up ([`assign_ranks`], from each
//! file's [`RunInfo`]), and reads the files (in parallel natively); `merge` concatenates the per-rank traces
//! into one, each file a process ("rank N") holding every location of its file; `nccl` matches the ranks'
//! NCCL collective kernels into the trace's collectives; `place` puts one trace's rows into another (the
//! merge's and `io`'s one way of doing so).
//!
//! Ranks: every Kineto file's `distributedInfo.rank` when every file has one (a rank twice, a rank outside
//! `world_size` or files that disagree on `world_size` is a [`ReadError::NotOneRun`] naming the file), else
//! the files' order (by path), said so in the [`WarningKind::Merged`] note; OTF2 archives and Perfetto traces
//! carry no rank of the file, so theirs is the order. Clocks, by each file's clock base where it has one
//! ([`PartFormat::base_name`]): Kineto writes `ts` in microseconds after `baseTimeNanoseconds`; an OTF2 3.0
//! archive gives the real time of its clock's global offset (`realtimeTimestamp`); a Perfetto trace's clock
//! snapshot reads REALTIME beside the trace clock. With a base in every file each file's times are moved to
//! `base + time` (an absolute clock; the merged trace's origin is its earliest event there). Without: Kineto
//! files' times are taken as one clock (they count from the epoch), and a base in some only is refused, naming
//! a file without; OTF2 archives and Perfetto traces (whose clocks count from each process's own start) are
//! aligned by first event, every file's first event at the run's start, the note naming a file without a base.
//!
//! `io`: a Darshan log given with the OTF2 or Chrome trace of its job, its I/O put onto the trace's ranks.
//!
//! Must not: sniff (the caller has: every file here is of the one format), or change how one file alone is
//! read.

#[cfg(test)]
mod fixtures;
mod io;
#[cfg(test)]
mod io_tests;
mod merge;
mod nccl;
mod place;
#[cfg(test)]
mod sets_tests;
#[cfg(test)]
mod tests;
mod two;

pub use io::put_io_on_ranks;
pub use two::two_runs;

pub use crate::chrome::RunInfo;

use crate::ReadError;
use weft_model::{Format, Trace, WarningKind};

/// The format every file of a run is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartFormat {
    /// Chrome/Kineto JSON (plain or gzipped), one file per rank.
    Kineto,
    /// OTF2 archives (an anchor `X.otf2` with `X.def` and `X/`), one archive per file of the run.
    Otf2,
    /// Perfetto protobuf traces (plain or gzipped).
    Perfetto,
}

impl PartFormat {
    /// What messages call the input.
    pub fn what(self) -> &'static str {
        match self {
            PartFormat::Kineto => "per-rank Chrome/Kineto JSON",
            PartFormat::Otf2 => "OTF2 archives",
            PartFormat::Perfetto => "Perfetto traces",
        }
    }

    /// The merged trace's format.
    pub fn format(self) -> Format {
        match self {
            PartFormat::Kineto => Format::ChromeJson,
            PartFormat::Otf2 => Format::Otf2,
            PartFormat::Perfetto => Format::Perfetto,
        }
    }

    /// What each file's clock base is, in the merge note.
    pub fn base_name(self) -> &'static str {
        match self {
            PartFormat::Kineto => "baseTimeNanoseconds",
            PartFormat::Otf2 => "each archive's realtimeTimestamp (OTF2 3.0 clock properties)",
            PartFormat::Perfetto => "each trace's clock snapshot (REALTIME beside the trace clock)",
        }
    }

    /// What one file is called in the merge note.
    fn file_word(self) -> &'static str {
        match self {
            PartFormat::Kineto => "file",
            PartFormat::Otf2 => "archive",
            PartFormat::Perfetto => "trace",
        }
    }
}

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
    /// No Kineto file has a base: their times are taken as they are.
    AsWritten,
    /// OTF2 archives or Perfetto traces without a base in every file: each file's first event at the run's
    /// start.
    FirstEvent,
}

/// One file's bytes read as a part of a run of `kind` (Kineto or Perfetto: an OTF2 archive is several files,
/// [`read_archives`]).
pub fn read_part(kind: PartFormat, file: &str, bytes: &[u8]) -> Result<RankPart, ReadError> {
    let (trace, run) = match kind {
        PartFormat::Kineto => crate::chrome::read_run(file, bytes)?,
        PartFormat::Perfetto => {
            let (trace, base) = crate::perfetto::read_run(file, bytes)?;
            (trace, RunInfo { base_time_ns: base, ..RunInfo::default() })
        }
        PartFormat::Otf2 => {
            return Err(ReadError::UnknownFormat {
                file: file.to_string(),
                detail: "one file of an OTF2 archive is not a trace: give the archives' folders".into(),
            })
        }
    };
    Ok(RankPart { file: file.to_string(), trace, run })
}

/// An OTF2 archive read as a part of a run: its clock base is its `realtimeTimestamp`.
pub fn otf2_part(file: &str, read: crate::otf2::Otf2Read) -> RankPart {
    let run = RunInfo { base_time_ns: read.realtime_ns, ..RunInfo::default() };
    RankPart { file: file.to_string(), trace: read.trace, run }
}

/// Read the files of `files` (name and bytes, in the order given), each of one rank in `kind`, and merge them
/// into one trace named `name` in messages.
pub fn read_files(name: &str, kind: PartFormat, files: &[(&str, &[u8])]) -> Result<Trace, ReadError> {
    let mut parts = Vec::with_capacity(files.len());
    for (file, bytes) in files {
        parts.push(read_part(kind, file, bytes)?);
    }
    merge_parts(name, kind, parts)
}

/// The OTF2 archives whose anchors are `anchors` among `files` (a dropped folder holding several), each read
/// as it is alone, merged into one run (each archive named by its anchor's path in messages).
pub fn read_archives(
    name: &str,
    files: &dyn crate::otf2::ArchiveFiles,
    anchors: &[String],
) -> Result<Trace, ReadError> {
    let mut parts = Vec::with_capacity(anchors.len());
    for a in anchors {
        parts.push(otf2_part(a, crate::otf2::read_archive_full(a, files)?));
    }
    merge_parts(name, PartFormat::Otf2, parts)
}

/// Read the files at `paths` (native), each a Chrome/Kineto JSON or Perfetto trace of one rank (`kind`), or an
/// OTF2 archive (its anchor, or a folder holding one), on up to as many threads as the machine has cores (each
/// thread holds one file's bytes at a time), and merge them.
#[cfg(not(target_arch = "wasm32"))]
pub fn read_paths(name: &str, kind: PartFormat, paths: &[std::path::PathBuf]) -> Result<Trace, ReadError> {
    read_paths_reporting(name, kind, paths, &|_| {})
}

/// One path's part (native): a file read whole, or an OTF2 archive read from its folder.
#[cfg(not(target_arch = "wasm32"))]
fn read_path_part(
    kind: PartFormat,
    path: &std::path::Path,
    took: &(dyn Fn(u64) + Sync),
) -> Result<RankPart, ReadError> {
    let file = path.display().to_string();
    if kind == PartFormat::Otf2 {
        let Some(read) = crate::otf2::read_path_full(path) else {
            return Err(ReadError::UnknownFormat { file, detail: "not an OTF2 archive (no anchor X.otf2)".into() });
        };
        let read = read?;
        took(std::fs::metadata(path).map_or(0, |m| m.len()));
        return Ok(otf2_part(&file, read));
    }
    let bytes = crate::read_regular(path)?;
    let part = read_part(kind, &file, &bytes)?;
    took(bytes.len() as u64);
    Ok(part)
}

/// As [`read_paths`], calling `took(bytes)` from the reading threads as each file has been read and parsed
/// (a progress bar's bytes: the files' sizes, summed as they are done).
#[cfg(not(target_arch = "wasm32"))]
pub fn read_paths_reporting(
    name: &str,
    kind: PartFormat,
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
                    let part = read_path_part(kind, path, took);
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
    merge_parts(name, kind, parts)
}

/// The rank of each part (in the parts' order) and how their clocks line up, or why they are not one run.
pub fn assign_ranks(kind: PartFormat, parts: &[RankPart]) -> Result<(Vec<u32>, Clocks, String), ReadError> {
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
        notes.push(match kind {
            PartFormat::Kineto => "ranks by file order (no distributedInfo.rank)".to_string(),
            _ => format!("ranks by {} order", kind.file_word()),
        });
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
    } else if kind != PartFormat::Kineto {
        if with_base > 0 {
            let p = parts.iter().find(|p| p.run.base_time_ns.is_none()).expect("a part without a base");
            notes.push(format!("{} gives no clock base", p.file));
        }
        Clocks::FirstEvent
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
        Clocks::BaseTime => format!("clocks aligned by {}", kind.base_name()),
        Clocks::AsWritten => "clocks taken as written (no baseTimeNanoseconds)".to_string(),
        Clocks::FirstEvent => {
            format!("clocks aligned by first event (each {}'s first event at the start)", kind.file_word())
        }
    };
    let mut note = match kind {
        PartFormat::Kineto => format!("{} ranks merged; {clocks_note}", parts.len()),
        _ => format!("{} ranks merged ({} {}, each a rank); {clocks_note}", parts.len(), parts.len(), kind.what()),
    };
    for n in notes {
        note.push_str("; ");
        note.push_str(&n);
    }
    Ok((ranks, clocks, note))
}

/// Merge read parts into one trace: ranks assigned and clocks aligned ([`assign_ranks`]), NCCL collectives
/// matched; the note saying so is the trace's [`WarningKind::Merged`] warning.
pub fn merge_parts(name: &str, kind: PartFormat, mut parts: Vec<RankPart>) -> Result<Trace, ReadError> {
    if parts.is_empty() {
        return Err(ReadError::Empty { file: name.to_string(), format: kind.what(), detail: " (no files)".into() });
    }
    let (ranks, clocks, note) = assign_ranks(kind, &parts)?;
    let mut order: Vec<usize> = (0..parts.len()).collect();
    order.sort_by_key(|&k| ranks[k]);
    let mut sorted: Vec<Option<RankPart>> = parts.drain(..).map(Some).collect();
    let ranked: Vec<(u32, RankPart)> =
        order.iter().map(|&k| (ranks[k], sorted[k].take().expect("each part once"))).collect();
    let mut trace = merge::merge(name, ranked, clocks, kind)?;
    let matched = match kind {
        PartFormat::Kineto => nccl::match_collectives(&mut trace),
        // Their collectives are the files' own (OTF2's MPI collectives), kept per file.
        PartFormat::Otf2 | PartFormat::Perfetto => nccl::Matched::default(),
    };
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
    set_format(sniffed) == Some(PartFormat::Kineto)
}

/// The format of a set of at least two files that are the per-rank files of one run: every one Chrome JSON
/// (plain or gzipped), or every one a Perfetto trace; None otherwise (OTF2 archives are found by their
/// anchors, not sniffed here).
pub fn set_format(sniffed: &[crate::Sniffed]) -> Option<PartFormat> {
    use crate::Sniffed;
    if sniffed.len() < 2 {
        return None;
    }
    if sniffed.iter().all(|s| matches!(s, Sniffed::ChromeJson | Sniffed::Gzip)) {
        return Some(PartFormat::Kineto);
    }
    sniffed.iter().all(|s| matches!(s, Sniffed::Perfetto)).then_some(PartFormat::Perfetto)
}

/// Why a set of files of several formats is not one run: the first file whose format is not the first's,
/// as a [`ReadError::NotOneRun`] naming both (None when they are all of one format of a run).
pub fn mixed_formats(files: &[(&str, crate::Sniffed)]) -> Option<ReadError> {
    use crate::Sniffed;
    let kind = |s: &Sniffed| match s {
        Sniffed::ChromeJson | Sniffed::Gzip => Some("Chrome JSON"),
        Sniffed::Perfetto => Some("a Perfetto trace"),
        Sniffed::Otf2Anchor => Some("an OTF2 archive"),
        _ => None,
    };
    let (first, k0) = files.iter().find_map(|(f, s)| Some((*f, kind(s)?)))?;
    let (odd, k) = files.iter().find_map(|(f, s)| kind(s).filter(|k| *k != k0).map(|k| (*f, k)))?;
    Some(ReadError::NotOneRun {
        file: odd.to_string(),
        detail: format!("it is {k}, but {first} is {k0}: the files of one run are all of one format"),
    })
}
