//! NVIDIA Nsight Systems: the SQLite export (`nsys export --type sqlite`) and the `nsys stats` NVTX trace CSV
//! ([`csv`]), into the trace model.
//!
//! The export is read with the plain-Rust [`crate::sqlite`] reader (it builds for the worker's
//! wasm32 target). Only the tables that were recorded are there; each one present becomes:
//! - `CUPTI_ACTIVITY_KIND_KERNEL`, `_MEMCPY`, `_MEMSET`: intervals on a GPU stream location (one per
//!   context and stream) under a process per device, named from `TARGET_INFO_GPU`;
//! - `CUPTI_ACTIVITY_KIND_RUNTIME` (runtime and driver API calls), `OSRT_API`, the `MPI_*_EVENTS` tables and
//!   `NVTX_EVENTS` (push/pop ranges; start/end ranges on a track of their own beside the thread, since they
//!   need not nest; marks as instants): intervals on the CPU thread of their `globalTid`, under the process
//!   of its pid, named from `PROCESSES` and `ThreadNames` (or an NVTX thread name);
//! - each kernel, copy or memset whose `correlationId` names an API call: a flow from the call to it.
//!
//! Names come from `StringIds`. A table that is damaged part way is read up to the damage, with a warning.
//! An SQLite file without the Nsight tables is refused as "not an Nsight Systems export". This module knows
//! nothing of pages and records, and nothing of views.

pub mod csv;

use crate::budget::Budget;
use crate::sqlite::{Database, Row, SqliteError, Table};
use crate::ReadError;
use std::collections::HashMap;
use weft_model::{
    Format, LocationId, LocationKind, MessageKind, MessageRecord, Paradigm, ProcessId, RegionId, RegionRole, StringId,
    Trace, TraceBuilder, WarningKind,
};

const FORMAT: &str = "Nsight Systems SQLite";

/// NVTX event types (`NVTX_EVENTS.eventType`).
mod nvtx {
    pub const MARK: i64 = 34;
    pub const THREAD_NAME: i64 = 39;
    pub const PUSH_POP: i64 = 59;
    pub const START_END: i64 = 60;
    pub const DOMAIN_CREATE: i64 = 75;
}

/// Whether an SQLite database's tables are those of an Nsight Systems export.
pub fn is_nsight(db: &Database) -> bool {
    let mut strings = false;
    let mut nsight = false;
    for t in db.table_names() {
        strings |= t == "StringIds";
        nsight |= t.starts_with("TARGET_INFO_") || t.starts_with("CUPTI_ACTIVITY_KIND_") || t == "NVTX_EVENTS";
    }
    strings && nsight
}

fn malformed(file: &str, e: SqliteError) -> ReadError {
    ReadError::Malformed { file: file.to_string(), format: FORMAT, offset: e.offset, detail: e.detail }
}

/// Split a serialized global thread id: (pid, tid).
pub fn split_global_tid(gtid: i64) -> (i64, i64) {
    ((gtid >> 24) & 0xff_ffff, gtid & 0xff_ffff)
}

/// Read an Nsight Systems SQLite export held in memory.
pub fn read(file: &str, bytes: &[u8]) -> Result<Trace, ReadError> {
    Budget::current().admit_whole(file, FORMAT, bytes.len() as u64)?;
    let db = Database::open(bytes).map_err(|e| malformed(file, e))?;
    if !is_nsight(&db) {
        let n = db.table_names().count();
        let some: Vec<&str> = db.table_names().take(4).collect();
        return Err(ReadError::UnknownFormat {
            file: file.to_string(),
            detail: format!(
                "an SQLite database that is not an Nsight Systems export (its {n} tables{} include no StringIds \
                 beside TARGET_INFO_*, CUPTI_ACTIVITY_KIND_* or NVTX_EVENTS)",
                if some.is_empty() { String::new() } else { format!(", {},", some.join(", ")) }
            ),
        });
    }
    let mut r = Reader::new(file, &db);
    r.read_names();
    r.read_events();
    r.finish()
}

/// What one table scan found damaged: kept to decide between a warning (something was read) and an error.
struct Damage {
    table: String,
    error: SqliteError,
}

struct Reader<'d, 'a> {
    file: &'d str,
    db: &'d Database<'a>,
    b: TraceBuilder,
    strings: HashMap<i64, String>,
    process_names: HashMap<i64, String>,
    thread_names: HashMap<i64, String>,
    gpu_names: HashMap<i64, String>,
    threads: HashMap<i64, LocationId>,
    ranges: HashMap<i64, LocationId>,
    streams: HashMap<(i64, i64, i64), LocationId>,
    regions: HashMap<(u8, i64), RegionId>,
    /// API calls by (pid, correlation id): where and when, for the flows to the GPU work they launched.
    calls: HashMap<(i64, i64), (LocationId, i64)>,
    flow_name: StringId,
    damage: Vec<Damage>,
    rows: u64,
    dangling: u64,
    unmatched_flows: u64,
    bad_times: u64,
}

impl<'d, 'a> Reader<'d, 'a> {
    fn new(file: &'d str, db: &'d Database<'a>) -> Self {
        let mut b = TraceBuilder::new(Format::NsightSqlite);
        let flow_name = b.intern("CUDA correlation");
        Reader {
            file,
            db,
            b,
            strings: HashMap::new(),
            process_names: HashMap::new(),
            thread_names: HashMap::new(),
            gpu_names: HashMap::new(),
            threads: HashMap::new(),
            ranges: HashMap::new(),
            streams: HashMap::new(),
            regions: HashMap::new(),
            calls: HashMap::new(),
            flow_name,
            damage: Vec::new(),
            rows: 0,
            dangling: 0,
            unmatched_flows: 0,
            bad_times: 0,
        }
    }

    /// Scan a table if it is there; damage part way is noted, what came before it kept.
    fn each(&mut self, name: &str, mut f: impl FnMut(&mut Self, &Table, &Row)) {
        let Some(table) = self.db.table(name) else { return };
        let db = self.db;
        if let Err(error) = db.rows(&table, |row| {
            f(self, &table, row);
            Ok(())
        }) {
            self.damage.push(Damage { table: table.name.clone(), error });
        }
    }

    fn read_names(&mut self) {
        self.each("StringIds", |r, t, row| {
            let (id, value) = (t.column("id"), t.column("value"));
            if let (Some(id), Some(v)) = (row.int(id), row.text(value)) {
                r.strings.insert(id, v.into_owned());
            }
        });
        self.each("PROCESSES", |r, t, row| {
            if let (Some(pid), Some(name)) = (row.int(t.column("pid")), row.text(t.column("name"))) {
                r.process_names.insert(pid, name.into_owned());
            }
        });
        self.each("ThreadNames", |r, t, row| {
            let name = row.int(t.column("nameId")).and_then(|id| r.strings.get(&id).cloned());
            if let (Some(gtid), Some(name)) = (row.int(t.column("globalTid")), name) {
                r.thread_names.insert(gtid, name);
            }
        });
        self.each("TARGET_INFO_GPU", |r, t, row| {
            if let (Some(id), Some(name)) = (row.int(t.column("id")), row.text(t.column("name"))) {
                r.gpu_names.insert(id, name.into_owned());
            }
        });
    }

    fn process(&mut self, pid: i64) -> ProcessId {
        let p = self.b.process(pid);
        if let Some(name) = self.process_names.get(&pid) {
            let name = format!("{name} [{pid}]");
            self.b.set_process_name(p, &name);
        }
        p
    }

    fn thread(&mut self, gtid: i64) -> LocationId {
        if let Some(&l) = self.threads.get(&gtid) {
            return l;
        }
        let (pid, tid) = split_global_tid(gtid);
        let p = self.process(pid);
        let l = self.b.location(p, tid, LocationKind::CpuThread);
        let name = match self.thread_names.get(&gtid) {
            Some(n) => format!("{n} [{tid}]"),
            None => format!("Thread {tid}"),
        };
        self.b.set_location_name(l, &name);
        self.threads.insert(gtid, l);
        l
    }

    /// The track of a thread's NVTX start/end ranges (they may overlap, so they are not nested in the thread).
    fn range_track(&mut self, gtid: i64) -> LocationId {
        if let Some(&l) = self.ranges.get(&gtid) {
            return l;
        }
        let (pid, tid) = split_global_tid(gtid);
        let p = self.process(pid);
        let l = self.b.location(p, tid, LocationKind::AsyncTrack);
        self.b.set_location_name(l, &format!("NVTX start/end ranges [{tid}]"));
        self.ranges.insert(gtid, l);
        l
    }

    fn stream(&mut self, device: i64, context: i64, stream: i64) -> LocationId {
        if let Some(&l) = self.streams.get(&(device, context, stream)) {
            return l;
        }
        // A process per device, after the CPU processes; its native id is negative so no pid collides.
        let p = self.b.process(-1 - device);
        let name = match self.gpu_names.get(&device) {
            Some(n) => format!("GPU {device}: {n}"),
            None => format!("GPU {device}"),
        };
        self.b.set_process_name(p, &name);
        self.b.set_process_sort_key(p, (1 << 40) + device);
        let l = self.b.location(p, (context << 32) | (stream & 0xffff_ffff), LocationKind::GpuStream);
        self.b.set_location_name(l, &format!("Stream {stream} (context {context})"));
        self.streams.insert((device, context, stream), l);
        l
    }

    /// The region named by StringIds id `id`, for rows of `kind`, made once.
    fn named_region(
        &mut self,
        kind: u8,
        id: Option<i64>,
        make: impl FnOnce(&str) -> (String, &'static str),
    ) -> RegionId {
        let key = (kind, id.unwrap_or(i64::MIN));
        if let Some(&r) = self.regions.get(&key) {
            return r;
        }
        let raw = match id.and_then(|id| self.strings.get(&id)) {
            Some(s) => s.clone(),
            None => {
                self.dangling += 1;
                match id {
                    Some(id) => format!("(string {id})"),
                    None => "(unnamed)".to_string(),
                }
            }
        };
        let (name, category) = make(&raw);
        let (paradigm, role) = match kind {
            KIND_API => (Paradigm::Cuda, RegionRole::Function),
            KIND_KERNEL | KIND_COPY | KIND_SET => (Paradigm::Gpu, RegionRole::Function),
            _ => weft_model::classify_region(&name, category),
        };
        let r = self.b.region_with(&name, category, paradigm, role);
        self.regions.insert(key, r);
        r
    }

    /// Start and end of a row; None (counted) when the end is missing or before the start.
    fn span(&mut self, t: &Table, row: &Row) -> Option<(i64, u64)> {
        let start = row.int(t.column("start"));
        let end = row.int(t.column("end"));
        match (start, end) {
            (Some(s), Some(e)) if e >= s && s >= 0 => Some((s, (e - s) as u64)),
            _ => {
                self.bad_times += 1;
                None
            }
        }
    }

    fn read_events(&mut self) {
        self.each("CUPTI_ACTIVITY_KIND_RUNTIME", |r, t, row| {
            r.rows += 1;
            let (Some(gtid), Some((start, dur))) = (row.int(t.column("globalTid")), r.span(t, row)) else { return };
            let loc = r.thread(gtid);
            let region = r.named_region(KIND_API, row.int(t.column("nameId")), |n| {
                // `cudaMalloc_v3020` is shown as `cudaMalloc`, as Nsight Systems does.
                let base = match n.rfind("_v") {
                    Some(i) if i > 0 && n[i + 2..].bytes().all(|c| c.is_ascii_digit()) && n.len() > i + 2 => &n[..i],
                    _ => n,
                };
                let cat = if base.starts_with("cuda") { "CUDA runtime API" } else { "CUDA driver API" };
                (base.to_string(), cat)
            });
            r.b.interval(loc, region, start, dur);
            if let Some(c) = row.int(t.column("correlationId")) {
                r.calls.insert((split_global_tid(gtid).0, c), (loc, start));
            }
        });
        self.each("OSRT_API", |r, t, row| {
            r.rows += 1;
            let (Some(gtid), Some((start, dur))) = (row.int(t.column("globalTid")), r.span(t, row)) else { return };
            let loc = r.thread(gtid);
            let region = r.named_region(KIND_OSRT, row.int(t.column("nameId")), |n| (n.to_string(), "OS runtime"));
            r.b.interval(loc, region, start, dur);
        });
        self.read_nvtx();
        let mpi: Vec<String> = self
            .db
            .table_names()
            .filter(|n| n.starts_with("MPI_") && n.ends_with("_EVENTS"))
            .map(str::to_string)
            .collect();
        for table in mpi {
            self.each(&table, |r, t, row| {
                r.rows += 1;
                let (Some(gtid), Some((start, dur))) = (row.int(t.column("globalTid")), r.span(t, row)) else {
                    return;
                };
                let loc = r.thread(gtid);
                let region = r.named_region(KIND_MPI, row.int(t.column("textId")), |n| (n.to_string(), "MPI"));
                r.b.interval(loc, region, start, dur);
            });
        }
        for (table, kind) in [
            ("CUPTI_ACTIVITY_KIND_KERNEL", KIND_KERNEL),
            ("CUPTI_ACTIVITY_KIND_MEMCPY", KIND_COPY),
            ("CUPTI_ACTIVITY_KIND_MEMSET", KIND_SET),
        ] {
            self.each(table, |r, t, row| r.gpu_row(kind, t, row));
        }
    }

    fn gpu_row(&mut self, kind: u8, t: &Table, row: &Row) {
        self.rows += 1;
        let Some((start, dur)) = self.span(t, row) else { return };
        let id = |c: &str| row.int(t.column(c)).unwrap_or(0);
        let loc = self.stream(id("deviceId"), id("contextId"), id("streamId"));
        let region = match kind {
            KIND_KERNEL => {
                let name = row.int(t.column("demangledName")).or_else(|| row.int(t.column("shortName")));
                self.named_region(KIND_KERNEL, name, |n| (n.to_string(), "CUDA kernel"))
            }
            KIND_COPY => {
                let copy = row.int(t.column("copyKind")).unwrap_or(0);
                let name = format!("CUDA memcpy {}", copy_kind(copy));
                let key = (KIND_COPY, copy);
                match self.regions.get(&key) {
                    Some(&r) => r,
                    None => {
                        let r = self.b.region_with(&name, "CUDA memcpy", Paradigm::Gpu, RegionRole::Function);
                        self.regions.insert(key, r);
                        r
                    }
                }
            }
            _ => {
                let key = (KIND_SET, 0);
                match self.regions.get(&key) {
                    Some(&r) => r,
                    None => {
                        let r = self.b.region_with("CUDA memset", "CUDA memset", Paradigm::Gpu, RegionRole::Function);
                        self.regions.insert(key, r);
                        r
                    }
                }
            }
        };
        self.b.interval(loc, region, start, dur);
        let (Some(c), Some(gpid)) = (row.int(t.column("correlationId")), row.int(t.column("globalPid"))) else {
            return;
        };
        match self.calls.get(&(split_global_tid(gpid).0, c)) {
            Some(&(from, at)) => self.b.message(MessageRecord {
                kind: MessageKind::Flow,
                sender: from,
                receiver: loc,
                send_ns: at,
                recv_ns: start,
                posted_ns: start,
                size_bytes: row.int(t.column("bytes")).unwrap_or(0).max(0) as u64,
                tag: 0,
                name: self.flow_name,
            }),
            None => self.unmatched_flows += 1,
        }
    }

    fn read_nvtx(&mut self) {
        // Domain and thread names first: a range may come before the row that names its domain.
        let mut domains: HashMap<i64, String> = HashMap::new();
        self.each("NVTX_EVENTS", |r, t, row| match row.int(t.column("eventType")) {
            Some(nvtx::DOMAIN_CREATE) => {
                if let (Some(d), Some(text)) = (row.int(t.column("domainId")), nvtx_text(r, t, row)) {
                    domains.insert(d, text);
                }
            }
            Some(nvtx::THREAD_NAME) => {
                if let (Some(g), Some(text)) = (row.int(t.column("globalTid")), nvtx_text(r, t, row)) {
                    r.thread_names.entry(g).or_insert(text);
                }
            }
            _ => {}
        });
        self.damage.retain(|d| d.table != "NVTX_EVENTS");
        self.each("NVTX_EVENTS", |r, t, row| {
            let kind = row.int(t.column("eventType"));
            if !matches!(kind, Some(nvtx::PUSH_POP | nvtx::START_END | nvtx::MARK)) {
                return;
            }
            r.rows += 1;
            let Some(gtid) = row.int(t.column("globalTid")) else {
                r.bad_times += 1;
                return;
            };
            let name = nvtx_text(r, t, row).unwrap_or_else(|| "(unnamed NVTX range)".to_string());
            let domain = row.int(t.column("domainId")).and_then(|d| domains.get(&d));
            let category = domain.map_or("NVTX", String::as_str);
            let region = r.b.region(&name, category);
            if kind == Some(nvtx::MARK) {
                let Some(at) = row.int(t.column("start")) else { return };
                let loc = r.thread(gtid);
                r.b.instant(loc, region, at);
                return;
            }
            let Some((start, dur)) = r.span(t, row) else { return };
            let loc = if kind == Some(nvtx::START_END) { r.range_track(gtid) } else { r.thread(gtid) };
            r.b.interval(loc, region, start, dur);
        });
    }

    fn finish(mut self) -> Result<Trace, ReadError> {
        let events = self.b.interval_count() as u64;
        if let Some(d) = self.damage.first() {
            if events == 0 {
                return Err(malformed(
                    self.file,
                    SqliteError { offset: d.error.offset, detail: format!("table {}: {}", d.table, d.error.detail) },
                ));
            }
        }
        for d in std::mem::take(&mut self.damage) {
            let file = self.file.to_string();
            self.b.warn(WarningKind::Truncated, || {
                format!(
                    "{file}: table {} is damaged at byte {}: {}; its rows after that are not shown",
                    d.table, d.error.offset, d.error.detail
                )
            });
        }
        if self.bad_times > 0 {
            let n = self.bad_times;
            self.b.warn(WarningKind::BadTimestamp, || {
                format!("{n} rows without a start, an end, or a thread, or ending before they start; skipped")
            });
        }
        if self.dangling > 0 {
            let n = self.dangling;
            self.b.warn(WarningKind::DanglingReference, || format!("{n} names not in StringIds; shown by their id"));
        }
        if self.unmatched_flows > 0 && !self.calls.is_empty() {
            let n = self.unmatched_flows;
            self.b.warn(WarningKind::UnmatchedFlow, || {
                format!("{n} kernels or copies whose correlation id names no recorded API call; no flow drawn")
            });
        }
        if events == 0 && self.b.location_count() == 0 {
            return Err(ReadError::Empty {
                file: self.file.to_string(),
                format: FORMAT,
                detail: " (no CUDA, OS runtime, MPI or NVTX rows)".into(),
            });
        }
        self.b.add_event_records(self.rows);
        Ok(self.b.finish())
    }
}

const KIND_API: u8 = 0;
const KIND_OSRT: u8 = 1;
const KIND_MPI: u8 = 2;
const KIND_KERNEL: u8 = 3;
const KIND_COPY: u8 = 4;
const KIND_SET: u8 = 5;

/// The text of an NVTX row: its own, or the registered string it names.
fn nvtx_text(r: &Reader, t: &Table, row: &Row) -> Option<String> {
    if let Some(s) = row.text(t.column("text")) {
        return Some(s.into_owned());
    }
    row.int(t.column("textId")).and_then(|id| r.strings.get(&id).cloned())
}

/// CUPTI's memcpy kinds (`CUpti_ActivityMemcpyKind`), as Nsight Systems labels them.
pub fn copy_kind(k: i64) -> &'static str {
    match k {
        1 => "HtoD",
        2 => "DtoH",
        3 => "HtoA",
        4 => "AtoH",
        5 => "AtoA",
        6 => "AtoD",
        7 => "DtoA",
        8 => "DtoD",
        9 => "HtoH",
        10 => "PtoP",
        _ => "(unknown kind)",
    }
}
