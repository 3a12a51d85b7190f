//! I/O over time, per file and per rank (issue #57): the bytes read and written by a trace's I/O intervals
//! (regions of role `FileIo` or paradigm `Io`: Darshan's DXT segments and per-file records, an OTF2 trace's
//! I/O calls), binned over a window, per file (the interval's `file` arg), per location and per process. One
//! [`IoSummary`] behind `weft io --json` and the page's I/O panel, so the two agree.
//!
//! What an interval carries: a `size` arg (a DXT segment: that many bytes, read or written as its region's
//! name says), or `bytes read` / `bytes written` (and `read time (s)`, `write time (s)`, `reads`, `writes`)
//! args (Darshan's per-file record when the log has no DXT), or neither (time and an operation only). Layers:
//! a Darshan log records an MPI-IO call and the POSIX calls under it, the same bytes twice; so the intervals of
//! one layer (the region's category: "POSIX", "MPI-IO", ...) are summed, POSIX by default (the bytes that
//! reached the file system), and every layer's totals are listed beside.
//!
//! Apportioning: a quantity `v` of an interval [s, e) is spread evenly over it, the part in [a, b) being
//! `floor(v (b - s) / (e - s)) - floor(v (a - s) / (e - s))`, so the parts of adjacent ranges add up to `v`
//! exactly: the bins of a window sum to the window's totals, and the window of the whole run holds every byte.
//! An interval of no duration counts wholly where it starts (in the last bin when it starts at the window's
//! end). Linear in the intervals plus the bins each one covers.
//!
//! Must not: read files, or know a format beyond the arg names above.

use crate::moments::TimeWindow;
use serde::Serialize;
use std::collections::HashMap;
use weft_model::{Paradigm, ProcessId, RegionRole, StringId, Trace};

/// Bins of the CLI's and the page's summary unless asked otherwise.
pub const DEFAULT_BINS: usize = 100;
/// The most bins asked for.
pub const MAX_BINS: usize = 10_000;
/// What the files list calls the I/O intervals that name no file.
pub const NO_FILE: &str = "(no file named)";
/// The layer summed by default when the trace has it: the calls that reach the file system.
pub const DEFAULT_LAYER: &str = "POSIX";

/// What is asked: a window (None: the whole run), one file (None: every file), one layer (None: the default).
#[derive(Clone, Debug, Default)]
pub struct IoQuery<'a> {
    pub window: Option<TimeWindow>,
    pub file: Option<&'a str>,
    pub layer: Option<&'a str>,
    pub bins: usize,
}

/// One time bin, [t0_ns, t1_ns) (the last one closed), trace ns.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct IoBin {
    pub t0_ns: u64,
    pub t1_ns: u64,
    pub read_bytes: u64,
    pub write_bytes: u64,
}

/// One file's totals in the window.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct IoFile {
    pub name: String,
    pub read_bytes: u64,
    pub write_bytes: u64,
    pub operations: u64,
}

/// One location's (or process's, or layer's) totals in the window.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct IoTotals {
    pub name: String,
    pub read_bytes: u64,
    pub write_bytes: u64,
    pub operations: u64,
}

/// The summary: totals of the chosen layer (and file) in the window, its bins, every file of the layer in the
/// window (whatever the file asked: the list to choose from), and the totals per location (every location,
/// in the model's order, as `weft moments` lists them) and per process (rank).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct IoSummary {
    /// The layer summed (None: the trace has no I/O interval).
    pub layer: Option<String>,
    pub file: Option<String>,
    pub window_t0_ns: u64,
    pub window_t1_ns: u64,
    pub read_bytes: u64,
    pub write_bytes: u64,
    pub read_ns: u64,
    pub write_ns: u64,
    pub operations: u64,
    pub bins: Vec<IoBin>,
    /// By bytes read and written, the most first (then by name).
    pub files: Vec<IoFile>,
    pub per_location: Vec<IoTotals>,
    pub per_process: Vec<IoTotals>,
    /// Every layer's totals in the window (every file), by name.
    pub layers: Vec<IoTotals>,
}

/// What an I/O region does, from its name.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Op {
    Read,
    Write,
    Other,
}

/// One interval's quantities before apportioning.
#[derive(Clone, Copy, Default)]
struct Amounts {
    read_bytes: u64,
    write_bytes: u64,
    read_ns: u64,
    write_ns: u64,
    operations: u64,
}

/// The arg keys read (None: no string of that name, so no interval has the arg).
struct Keys {
    file: Option<StringId>,
    size: Option<StringId>,
    bytes_read: Option<StringId>,
    bytes_written: Option<StringId>,
    read_time: Option<StringId>,
    write_time: Option<StringId>,
    reads: Option<StringId>,
    writes: Option<StringId>,
}

/// An I/O interval's file and amounts.
struct IoInterval {
    index: usize,
    layer: StringId,
    file: Option<String>,
    amounts: Amounts,
}

/// `floor(v * x / d)` without overflow; `x <= d`, `d > 0`.
fn scaled(v: u64, x: u64, d: u64) -> u64 {
    (v as u128 * x as u128 / d as u128) as u64
}

/// The part of `v`, spread over [s, e), that lies in [a, b); `last`: a point interval at `b` counts.
fn part(v: u64, s: u64, e: u64, a: u64, b: u64, last: bool) -> u64 {
    if e <= s {
        return if (a <= s && s < b) || (last && s == b) { v } else { 0 };
    }
    let (lo, hi) = (s.max(a), e.min(b));
    if hi <= lo {
        return 0;
    }
    scaled(v, hi - s, e - s) - scaled(v, lo - s, e - s)
}

impl Amounts {
    fn part(&self, s: u64, e: u64, a: u64, b: u64, last: bool) -> Amounts {
        let p = |v| part(v, s, e, a, b, last);
        Amounts {
            read_bytes: p(self.read_bytes),
            write_bytes: p(self.write_bytes),
            read_ns: p(self.read_ns),
            write_ns: p(self.write_ns),
            operations: p(self.operations),
        }
    }
}

fn op_of(name: &str) -> Op {
    let n = name.to_ascii_lowercase();
    if n.contains("write") {
        Op::Write
    } else if n.contains("read") {
        Op::Read
    } else {
        Op::Other
    }
}

fn seconds_ns(text: &str) -> u64 {
    text.parse::<f64>().ok().filter(|s| s.is_finite() && *s > 0.0).map_or(0, |s| (s * 1e9 + 0.5).floor() as u64)
}

/// The I/O intervals of `trace`, with their layer, file and amounts.
fn io_intervals(trace: &Trace) -> Vec<IoInterval> {
    let regions = &trace.regions;
    let op: Vec<Option<Op>> = (0..regions.len())
        .map(|r| {
            (regions.role[r] == RegionRole::FileIo || regions.paradigm[r] == Paradigm::Io)
                .then(|| op_of(trace.str(regions.name[r])))
        })
        .collect();
    let lookup = |k: &str| trace.strings.lookup(k);
    let keys = Keys {
        file: lookup("file"),
        size: lookup("size"),
        bytes_read: lookup("bytes read"),
        bytes_written: lookup("bytes written"),
        read_time: lookup("read time (s)"),
        write_time: lookup("write time (s)"),
        reads: lookup("reads"),
        writes: lookup("writes"),
    };
    let iv = &trace.intervals;
    // Each interval's args entry, walked along with the intervals (both ascending).
    let args = &iv.args;
    let mut k = 0usize;
    let mut out = Vec::new();
    for i in 0..iv.len() {
        while k < args.event.len() && (args.event[k] as usize) < i {
            k += 1;
        }
        let r = iv.region[i].index();
        let Some(op) = op[r] else { continue };
        let dur = iv.dur_ns[i];
        let mut a = Amounts { operations: 1, ..Amounts::default() };
        match op {
            Op::Read => a.read_ns = dur,
            Op::Write => a.write_ns = dur,
            Op::Other => {}
        }
        let mut file = None;
        if k < args.event.len() && args.event[k] as usize == i {
            let mut counted = false;
            for arg in args.table.entry(args.entry[k] as usize) {
                let key = Some(arg.key);
                let n = || arg.value.trim().parse::<u64>().unwrap_or(0);
                if key == keys.file {
                    file = Some(arg.value.to_string());
                } else if key == keys.size {
                    match op {
                        Op::Read => a.read_bytes = n(),
                        Op::Write => a.write_bytes = n(),
                        Op::Other => {}
                    }
                } else if key == keys.bytes_read {
                    a.read_bytes = n();
                } else if key == keys.bytes_written {
                    a.write_bytes = n();
                } else if key == keys.read_time {
                    a.read_ns = seconds_ns(arg.value);
                } else if key == keys.write_time {
                    a.write_ns = seconds_ns(arg.value);
                } else if key == keys.reads || key == keys.writes {
                    // A per-file record: its operations are the calls it counts, not the record.
                    a.operations = if counted { a.operations + n() } else { n() };
                    counted = true;
                }
            }
        }
        out.push(IoInterval { index: i, layer: regions.category[r], file, amounts: a });
    }
    out
}

/// The summary of the I/O intervals of `trace` asked by `q` (see the module's doc).
pub fn io_summary(trace: &Trace, q: &IoQuery) -> IoSummary {
    let w = q.window.unwrap_or_else(|| TimeWindow::whole(trace));
    let (a, b) = (w.start_ns, w.end_ns.max(w.start_ns));
    let ios = io_intervals(trace);
    let iv = &trace.intervals;
    let mut summary =
        IoSummary { window_t0_ns: a, window_t1_ns: b, file: q.file.map(str::to_string), ..Default::default() };
    // Every layer's totals in the window.
    let mut layers: HashMap<StringId, IoTotals> = HashMap::new();
    for io in &ios {
        let i = io.index;
        let p = io.amounts.part(iv.start_ns[i], iv.end_ns(i), a, b, true);
        let t = layers
            .entry(io.layer)
            .or_insert_with(|| IoTotals { name: trace.str(io.layer).to_string(), ..Default::default() });
        add(t, &p);
    }
    let mut layer_list: Vec<IoTotals> = layers.into_values().collect();
    layer_list.sort_by(|x, y| x.name.cmp(&y.name));
    // The layer summed: the one asked, else POSIX, else the one with the most bytes, else any with intervals.
    let layer_id = match q.layer {
        Some(name) => trace.strings.lookup(name).filter(|id| ios.iter().any(|io| io.layer == *id)),
        None => {
            let mut ids: Vec<StringId> = ios.iter().map(|io| io.layer).collect();
            ids.sort_unstable_by_key(|id| id.0);
            ids.dedup();
            let bytes = |id: &StringId| {
                layer_list.iter().find(|t| t.name == trace.str(*id)).map_or(0, |t| t.read_bytes + t.write_bytes)
            };
            ids.iter()
                .find(|id| trace.str(**id) == DEFAULT_LAYER)
                .or_else(|| ids.iter().max_by_key(|id| (bytes(id), std::cmp::Reverse(id.0))))
                .copied()
        }
    };
    summary.layers = layer_list;
    summary.layer = q.layer.map(str::to_string).or_else(|| layer_id.map(|id| trace.str(id).to_string()));
    let n_bins = q.bins.clamp(1, MAX_BINS);
    let n_bins = if b == a { 1 } else { n_bins.min((b - a) as usize) };
    let edge = |k: usize| a + scaled(b - a, k as u64, n_bins as u64);
    summary.bins = (0..n_bins).map(|k| IoBin { t0_ns: edge(k), t1_ns: edge(k + 1), ..Default::default() }).collect();
    summary.per_location = (0..trace.locations.len())
        .map(|l| IoTotals {
            name: trace.location_name(weft_model::LocationId(l as u32)).to_string(),
            ..Default::default()
        })
        .collect();
    summary.per_process = (0..trace.processes.len())
        .map(|p| IoTotals { name: trace.process_name(ProcessId(p as u32)).to_string(), ..Default::default() })
        .collect();
    let Some(layer_id) = layer_id else { return summary };
    let mut files: HashMap<&str, IoFile> = HashMap::new();
    for io in ios.iter().filter(|io| io.layer == layer_id) {
        let i = io.index;
        let (s, e) = (iv.start_ns[i], iv.end_ns(i));
        let p = io.amounts.part(s, e, a, b, true);
        let touches = if e > s { s < b && e > a } else { a <= s && s <= b };
        if !touches {
            continue;
        }
        let name = io.file.as_deref().unwrap_or(NO_FILE);
        {
            let f = files.entry(name).or_insert_with(|| IoFile { name: name.to_string(), ..Default::default() });
            f.read_bytes += p.read_bytes;
            f.write_bytes += p.write_bytes;
            f.operations += p.operations;
        }
        if q.file.is_some_and(|want| want != name) {
            continue;
        }
        summary.read_bytes += p.read_bytes;
        summary.write_bytes += p.write_bytes;
        summary.read_ns += p.read_ns;
        summary.write_ns += p.write_ns;
        summary.operations += p.operations;
        let l = iv.location[i].index();
        add(&mut summary.per_location[l], &p);
        add(&mut summary.per_process[trace.locations.process[l].index()], &p);
        // The bins it covers, found by its ends.
        let bin_of = |t: u64| -> usize {
            if t <= a {
                return 0;
            }
            if t >= b {
                return n_bins - 1;
            }
            // The last edge at or before t: edges are increasing.
            let mut k = (scaled(t - a, n_bins as u64, b - a) as usize).min(n_bins - 1);
            while k > 0 && edge(k) > t {
                k -= 1;
            }
            while k + 1 < n_bins && edge(k + 1) <= t {
                k += 1;
            }
            k
        };
        for k in bin_of(s)..=bin_of(e) {
            let bin = &mut summary.bins[k];
            let q = io.amounts.part(s, e, bin.t0_ns, bin.t1_ns, k + 1 == n_bins);
            bin.read_bytes += q.read_bytes;
            bin.write_bytes += q.write_bytes;
        }
    }
    let mut files: Vec<IoFile> = files.into_values().collect();
    files.sort_by(|x, y| (y.read_bytes + y.write_bytes).cmp(&(x.read_bytes + x.write_bytes)).then(x.name.cmp(&y.name)));
    summary.files = files;
    summary
}

fn add(t: &mut IoTotals, p: &Amounts) {
    t.read_bytes += p.read_bytes;
    t.write_bytes += p.write_bytes;
    t.operations += p.operations;
}

#[cfg(test)]
mod tests;
