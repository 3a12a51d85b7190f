//! Darshan logs (`.darshan`, the I/O characterisation of an HPC job): the job's ranks as processes, each
//! DXT segment (POSIX and MPI-IO reads and writes, with their file, offset, size, thread and host as args) an
//! interval on a location per rank, module and file ("POSIX /path"; segments that overlap in time, from
//! several threads, go to further lanes "POSIX /path (2)", so none is clipped); without DXT, one interval per file per rank from the POSIX record's
//! open start to close end, its counters (bytes, operations, times) as the interval's args. Shared-file
//! records (rank -1, reduced over all ranks) go to a process "all ranks".
//!
//! Layers: `log` (header, regions, job and name records, decompression), `dxt` and `posix` (a module's
//! records). Times: record times are seconds after the job's start, put at `job start + round(s * 1e9)` ns.
//!
//! Must not panic on any bytes: a truncated or corrupt log is a [`ReadError`] naming the file, the offset
//! and what is wrong; a module this reader does not read is said in a warning, not skipped silently.

mod dxt;
pub mod log;
mod posix;

use crate::ReadError;
use log::Log;
use std::collections::HashMap;
use weft_model::{
    ArgKind, Format, LocationId, LocationKind, Paradigm, ProcessId, RegionRole, Trace, TraceBuilder, WarningKind,
};

/// Whether `bytes` start like a Darshan log (for the sniffer).
pub fn looks_like_log(bytes: &[u8]) -> bool {
    log::looks_like_log(bytes)
}

/// The nanoseconds of `s` seconds after the job's start: one rounding, the same the tests' oracle does.
pub fn seconds_to_ns(s: f64) -> i64 {
    let ns = (s * 1e9 + 0.5).floor();
    if ns.is_finite() {
        ns.clamp(i64::MIN as f64, i64::MAX as f64) as i64
    } else {
        0
    }
}

struct Build {
    b: TraceBuilder,
    job_start_ns: i64,
    processes: HashMap<i64, ProcessId>,
    locations: HashMap<(i64, &'static str, u64, u64), LocationId>,
    names: HashMap<u64, String>,
    /// One region per module and operation ("POSIX read"), made once: the builder's `region_with` makes a
    /// new region at every call, and a region per interval listed "POSIX read" once per segment in the legend.
    regions: HashMap<(String, String), weft_model::RegionId>,
}

impl Build {
    /// DXT segments as intervals: per rank, module and file, in time order, each on the first lane free at
    /// its start.
    fn segments(&mut self, mut segments: Vec<dxt::Segment>) {
        segments.sort_by(|a, b| {
            (a.rank, a.module, a.file).cmp(&(b.rank, b.module, b.file)).then(a.start.total_cmp(&b.start))
        });
        let mut lanes: Vec<i64> = Vec::new();
        let mut key = None;
        for s in segments {
            if key != Some((s.rank, s.module, s.file)) {
                key = Some((s.rank, s.module, s.file));
                lanes.clear();
            }
            let (start, end) = (seconds_to_ns(s.start), seconds_to_ns(s.end).max(seconds_to_ns(s.start)));
            let lane = match lanes.iter().position(|&e| e <= start) {
                Some(k) => k,
                None => {
                    lanes.push(i64::MIN);
                    lanes.len() - 1
                }
            };
            lanes[lane] = end;
            let file = self.file_name(s.file);
            let label =
                if lane == 0 { format!("{} {file}", s.module) } else { format!("{} {file} ({})", s.module, lane + 1) };
            let l = self.location(s.rank, s.module, s.file, lane as u64, &label);
            let args = [
                ("file", ArgKind::Text, file),
                ("offset", ArgKind::Number, s.offset.to_string()),
                ("size", ArgKind::Number, s.length.to_string()),
                ("thread", ArgKind::Text, format!("{:#x}", s.thread)),
                ("host", ArgKind::Text, s.host),
            ];
            self.io(l, if s.write { "write" } else { "read" }, s.module, s.start, s.end, &args);
        }
    }

    fn process(&mut self, rank: i64) -> ProcessId {
        if let Some(&p) = self.processes.get(&rank) {
            return p;
        }
        let p = self.b.process(rank);
        let name = if rank < 0 { "all ranks (shared files)".to_string() } else { format!("rank {rank}") };
        self.b.set_process_name(p, &name);
        self.processes.insert(rank, p);
        p
    }

    /// The location of rank `rank`'s `module` records of file `file`, lane `lane`.
    fn location(&mut self, rank: i64, module: &'static str, file: u64, lane: u64, label: &str) -> LocationId {
        if let Some(&l) = self.locations.get(&(rank, module, file, lane)) {
            return l;
        }
        let p = self.process(rank);
        let native = self.locations.len() as i64;
        let l = self.b.location(p, native, LocationKind::CpuThread);
        self.b.set_location_name(l, label);
        self.locations.insert((rank, module, file, lane), l);
        l
    }

    fn file_name(&self, id: u64) -> String {
        self.names.get(&id).cloned().unwrap_or_else(|| format!("record {id:#018x}"))
    }

    /// An I/O interval with its args, at `start`/`end` seconds after the job's start.
    fn io(&mut self, l: LocationId, op: &str, module: &str, start: f64, end: f64, args: &[(&str, ArgKind, String)]) {
        let region = match self.regions.get(&(module.to_string(), op.to_string())) {
            Some(&r) => r,
            None => {
                let r = self.b.region_with(&format!("{module} {op}"), module, Paradigm::Io, RegionRole::FileIo);
                self.regions.insert((module.to_string(), op.to_string()), r);
                r
            }
        };
        let s = self.job_start_ns.saturating_add(seconds_to_ns(start));
        let e = self.job_start_ns.saturating_add(seconds_to_ns(end));
        self.b.interval(l, region, s, e.saturating_sub(s).max(0) as u64);
        let pairs: Vec<(weft_model::StringId, ArgKind, &str)> =
            args.iter().map(|(k, kind, v)| (self.b.intern(k), *kind, v.as_str())).collect();
        if let Some(entry) = self.b.interval_arg_table().push(pairs.iter().copied()) {
            self.b.set_interval_args(entry);
        }
    }
}

/// Read a Darshan log held in memory.
pub fn read(file: &str, bytes: &[u8]) -> Result<Trace, ReadError> {
    let log = Log::open(file, bytes)?;
    let job = log.job()?;
    let names = log.names()?;
    let mut build = Build {
        b: TraceBuilder::new(Format::Darshan),
        job_start_ns: job.start_ns,
        processes: HashMap::new(),
        locations: HashMap::new(),
        regions: HashMap::new(),
        names,
    };
    let mut segments = Vec::new();
    for (module, label) in [(log::DXT_POSIX_MOD, "POSIX"), (log::DXT_MPIIO_MOD, "MPI-IO")] {
        dxt::read(&log, module, label, &mut segments)?;
    }
    let dxt_segments = segments.len() as u64;
    build.segments(segments);
    let mut summarised = 0u64;
    if dxt_segments == 0 {
        summarised = posix::read(&log, &mut build)?;
    }
    // What is in the log but not read, said.
    let read_modules = [log::POSIX_MOD, log::DXT_POSIX_MOD, log::DXT_MPIIO_MOD];
    let mut other: Vec<String> = Vec::new();
    for (k, m) in log.modules.iter().enumerate() {
        if m.len > 0 && !read_modules.contains(&k) {
            other.push(module_name(k));
        }
    }
    if dxt_segments > 0 && log.modules[log::POSIX_MOD].len > 0 {
        other.push("POSIX counters (DXT shown instead)".into());
    }
    if !other.is_empty() {
        let f = file.to_string();
        build.b.warn(WarningKind::UnknownRecord, || format!("{f}: Darshan modules not shown: {}", other.join(", ")));
    }
    if log.partial != 0 {
        let f = file.to_string();
        build.b.warn(WarningKind::Truncated, || {
            format!("{f}: the log says some modules ran out of memory and are partial (flags {:#x})", log.partial)
        });
    }
    if dxt_segments == 0 && summarised == 0 {
        return Err(ReadError::Empty {
            file: file.to_string(),
            format: log::FORMAT,
            detail: " (no DXT segments and no POSIX file with open and close times)".into(),
        });
    }
    build.b.add_event_records(dxt_segments + summarised);
    let _ = job.end_ns;
    Ok(build.b.finish())
}

/// A module's name by today's id (darshan-log-format.h).
fn module_name(k: usize) -> String {
    const NAMES: [&str; 19] = [
        "NULL",
        "POSIX",
        "MPI-IO",
        "H5F",
        "H5D",
        "PNETCDF_FILE",
        "PNETCDF_VAR",
        "BG/Q",
        "LUSTRE",
        "STDIO",
        "DXT_POSIX",
        "DXT_MPIIO",
        "MDHIM",
        "APXC",
        "APMPI",
        "HEATMAP",
        "DFS",
        "DAOS",
        "",
    ];
    NAMES.get(k).filter(|n| !n.is_empty()).map_or_else(|| format!("module {k}"), |n| n.to_string())
}

#[cfg(test)]
mod tests;
