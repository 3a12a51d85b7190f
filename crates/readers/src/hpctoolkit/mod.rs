//! HPCToolkit databases (format version 4: `meta.db`, `profile.db`, `trace.db`; `cct.db` is not needed),
//! dropped as a folder or a zip/tar of one, or given as a folder on the command line.
//!
//! Layers: `bin` (a bounded little-endian view and the common header), `meta` (identifier kinds, functions,
//! the context tree reduced to a frame tree), `threads` (profiles' identifier tuples, trace lines); this file
//! finds the files by their headers and maps the lines into the model.
//!
//! Mapping: each trace line (an application thread or GPU stream, one profile) is a location, grouped into a
//! process by the NODE and RANK identifications of its tuple, named by the rest (`THREAD 0`,
//! `GPUCONTEXT 0 GPUSTREAM 1`). A sample's calling context becomes its path of frames (the entry point, then
//! each function context down to the innermost), drawn as nested intervals: a frame starts where the path
//! first differs from the previous sample's and lasts while later samples keep it, so consecutive samples of
//! the same innermost procedure are one interval and the context path is the stack of intervals above it
//! (as HPCToolkit's trace view's depth axis and pipit's Enter/Leave events have it). A sample of context 0
//! (the thread not running) ends every frame: idle is a gap. A line's last frames end at its last sample (those
//! that sample opens have no length).
//!
//! Must not: trust a count, pointer or size from the file before checking it against the bytes there are
//! (a damaged database is a [`ReadError::Malformed`] naming the file and byte, or a warning and a partial
//! trace); know anything of views.

mod bin;
mod meta;
mod threads;

pub use bin::{db_kind, MAGIC};

use crate::budget::{out_of_memory, Budget};
use crate::otf2::MemoryFiles;
use crate::ReadError;
use bin::{Bin, FORMAT};
use weft_model::{Format, LocationId, LocationKind, RegionId, Trace, TraceBuilder, WarningKind, Warnings};

/// The database's files found in a set of files, by their headers (paths into the set).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    pub meta: String,
    pub profile: Option<String>,
    pub trace: Option<String>,
}

/// Find an HPCToolkit database among `files` by the files' headers: the `meta.db` (the first in path order
/// when there are several) and the `profile.db` and `trace.db` beside it (in its folder, else anywhere).
pub fn find(files: &MemoryFiles) -> Option<Found> {
    let of_kind = |k: &[u8; 4]| -> Vec<&String> {
        files.files.iter().filter(|(_, b)| db_kind(b).as_ref() == Some(k)).map(|(p, _)| p).collect()
    };
    let meta = of_kind(b"meta").into_iter().next()?.clone();
    let dir = meta.rsplit_once('/').map_or("", |(d, _)| d);
    let beside = |k: &[u8; 4]| -> Option<String> {
        let all = of_kind(k);
        let near = all.iter().find(|p| p.rsplit_once('/').map_or("", |(d, _)| d) == dir);
        near.or(all.first()).map(|p| p.to_string())
    };
    Some(Found { profile: beside(b"prof"), trace: beside(b"trce"), meta })
}

/// The error for one database file given alone: its folder is what is read.
pub fn alone(name: &str, kind: [u8; 4]) -> ReadError {
    let which = match &kind {
        b"meta" => "meta.db",
        b"prof" => "profile.db",
        b"ctxt" => "cct.db",
        b"trce" => "trace.db",
        _ => "file",
    };
    ReadError::UnknownFormat {
        file: name.to_string(),
        detail: format!(
            "an HPCToolkit database's {which} alone; open the database folder (meta.db, profile.db and trace.db \
             together), or a zip of it"
        ),
    }
}

/// Read the database `found` in `files`; `name` names the folder or archive in messages.
pub fn read_files(name: &str, files: &MemoryFiles, found: &Found) -> Result<Trace, ReadError> {
    fn get<'a>(files: &'a MemoryFiles, p: &'a Option<String>) -> Option<(&'a str, &'a [u8])> {
        let p = p.as_ref()?;
        files.files.get(p).map(|b| (p.as_str(), b.as_slice()))
    }
    let meta = (found.meta.as_str(), files.files[&found.meta].as_slice());
    read(name, meta, get(files, &found.profile), get(files, &found.trace))
}

/// Read a database from its files' bytes. Without `trace.db` there is no timeline (the run was measured
/// without tracing): an error saying so. Without `profile.db` the lines are named by their profile index.
pub fn read(
    name: &str,
    meta: (&str, &[u8]),
    profile: Option<(&str, &[u8])>,
    trace: Option<(&str, &[u8])>,
) -> Result<Trace, ReadError> {
    let Some(trace) = trace else {
        return Err(ReadError::Empty {
            file: name.to_string(),
            format: FORMAT,
            detail: " (no trace.db: the run was measured without tracing, `hpcrun -t`; weft shows traces)".into(),
        });
    };
    let mut warnings = Warnings::default();
    let meta_bin = Bin { name: meta.0, b: meta.1 };
    let trace_bin = Bin { name: trace.0, b: trace.1 };
    let m = meta::read(meta_bin, &mut warnings)?;
    let lines = threads::lines(trace_bin, &mut warnings)?;
    let profiles = match profile {
        Some((n, b)) => Some(threads::profiles(Bin { name: n, b })?),
        None => {
            warnings.push(WarningKind::Other, || {
                format!(
                    "{name}: no profile.db; the trace lines are named by their profile index, not by rank and thread"
                )
            });
            None
        }
    };
    let mut b = TraceBuilder::new(Format::HpcToolkit);
    *b.warnings_mut() = warnings;
    let total: u64 = lines.iter().map(|l| l.samples).sum();
    b.add_event_records(total);
    // The regions of frame names, made on first use.
    let mut regions: Vec<Option<RegionId>> = vec![None; m.names.len()];
    let mut path: Vec<u32> = Vec::new();
    let budget = Budget::current();
    let mut opened = 0u64;
    // The frames open on the line, outermost first: (frame, its region, start).
    let mut open: Vec<(u32, RegionId, i64)> = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let loc = line_location(&mut b, &m, profiles.as_ref(), line.profile, i);
        open.clear();
        let mut last_t: Option<u64> = None;
        let mut last_ctx: u32 = u32::MAX;
        let mut last_frame: Option<u32> = None;
        // The innermost frame open (None while idle): a sample in it changes nothing.
        let mut shown: Option<u32> = None;
        for s in 0..line.samples {
            let at = line.start + s * threads::SAMPLE_BYTES;
            let t = trace_bin.u64(at, "a sample's timestamp")?;
            let ctx = trace_bin.u32(at + 8, "a sample's context id")?;
            if last_t.is_some_and(|p| t < p) {
                b.warn(WarningKind::OutOfOrder, || {
                    format!("{}: trace {i}: the sample at byte {at} goes back in time; skipped", trace.0)
                });
                continue;
            }
            last_t = Some(t);
            let t = i64::try_from(t).unwrap_or(i64::MAX);
            let frame = if ctx == last_ctx {
                last_frame
            } else {
                let f = if ctx == 0 { None } else { m.ctx_frame.get(&ctx).copied() };
                if ctx != 0 && f.is_none() {
                    b.warn(WarningKind::DanglingReference, || {
                        format!("{}: trace {i}: the sample at byte {at} names context {ctx}, which meta.db does not list; shown as idle", trace.0)
                    });
                }
                last_ctx = ctx;
                last_frame = f;
                f
            };
            if frame == shown {
                continue;
            }
            shown = frame;
            // The frames the new path opens, innermost first: up from its frame to the first one open at its
            // depth (`open` is a path from the root, so the frames above that one are open too). Only the
            // frames that change are visited: rebuilding the path from the root made a deep tree with
            // samples alternating between sibling leaves quadratic (issue 51).
            path.clear();
            let mut f = frame;
            while let Some(x) = f {
                let depth = m.frames.depth[x as usize] as usize;
                if open.get(depth).is_some_and(|o| o.0 == x) {
                    break;
                }
                path.push(x);
                let p = m.frames.parent[x as usize];
                f = (p != meta::NONE).then_some(p);
            }
            let same = f.map_or(0, |x| m.frames.depth[x as usize] as usize + 1);
            close(&mut b, &mut open, same, t, loc);
            // Frames become intervals: held to the budget of events a read may turn into a model (a deep
            // tree and samples that alternate between two of its leaves open many frames per sample), and
            // taken fallibly, so that memory running out first is the same refusal, not an abort.
            opened += path.len() as u64;
            if opened > budget.stream_events {
                budget.admit_events(name, "HPCToolkit database's frames", opened)?;
            }
            if b.reserve_intervals(path.len()).is_err() {
                let bytes = (path.len() as u64).saturating_mul(TraceBuilder::INTERVAL_BYTES);
                return Err(out_of_memory(name, FORMAT, "the frames' intervals", bytes));
            }
            for &x in path.iter().rev() {
                let name_ix = m.frames.name[x as usize] as usize;
                let r = *regions[name_ix].get_or_insert_with(|| b.region(&m.names[name_ix], ""));
                open.push((x, r, t));
            }
        }
        let end = last_t.map_or(0, |t| i64::try_from(t).unwrap_or(i64::MAX));
        close(&mut b, &mut open, 0, end, loc);
    }
    Ok(b.finish())
}

/// End the open frames above the first `keep` at `t`. Outermost first: the builder keeps arrival order among
/// intervals of equal start and length, so the frames of a line's last sample (of no length) keep their order.
fn close(b: &mut TraceBuilder, open: &mut Vec<(u32, RegionId, i64)>, keep: usize, t: i64, loc: LocationId) {
    for &(_, region, start) in open.get(keep..).unwrap_or_default() {
        b.interval(loc, region, start, t.saturating_sub(start).max(0) as u64);
    }
    open.truncate(keep);
}

/// The location of one trace line: a process per NODE/RANK identifications, named by the rest of the tuple.
fn line_location(
    b: &mut TraceBuilder,
    m: &meta::Meta,
    profiles: Option<&threads::Profiles>,
    profile: u32,
    line: usize,
) -> LocationId {
    let kind_name = |k: u8| m.kinds.get(k as usize).cloned().unwrap_or_else(|| format!("KIND{k}"));
    let tuple = profiles.and_then(|p| p.tuples.get(profile as usize));
    let (mut proc_words, mut loc_words) = (Vec::new(), Vec::new());
    let (mut rank, mut node) = (None, None);
    let mut gpu = false;
    for id in tuple.into_iter().flatten() {
        let kind = kind_name(id.kind);
        let word = format!("{kind} {}", id.logical);
        match kind.as_str() {
            "NODE" => {
                node = Some(id.logical);
                proc_words.push(word);
            }
            "RANK" => {
                rank = Some(id.logical);
                proc_words.push(word);
            }
            _ => {
                gpu |= kind.starts_with("GPU");
                loc_words.push(word);
            }
        }
    }
    // A node without a rank gets a process id of its own above the ranks' (wrapping for node ids past 2^31:
    // found by the fuzzer, which overflowed the multiplication).
    let native = rank.map_or(node.map_or(0, |n| (n as i64).wrapping_mul(1 << 32)), |r| r as i64);
    let p = b.process(native);
    if proc_words.is_empty() {
        b.set_process_name(p, "process");
    } else {
        b.set_process_name(p, &proc_words.join(" "));
    }
    let kind = if gpu { LocationKind::GpuStream } else { LocationKind::CpuThread };
    let l = b.location(p, profile as i64, kind);
    let name = if tuple.is_none() {
        format!("profile {profile}")
    } else if loc_words.is_empty() {
        "thread".to_string()
    } else {
        loc_words.join(" ")
    };
    b.set_location_name(l, &name);
    b.set_location_sort_key(l, line as i64);
    l
}
