//! Nsight Systems: the SQLite export and the `nsys stats` NVTX CSV, through `readers::open` as the page and
//! the CLI read them.
//! - The real sample (../shared/traces/nsys): counts per kind against `sqlite3` queries (the CLI is the
//!   independent reader; skipped clearly when it or the sample is absent).
//! - A generated export (samples::nsys, written by the project's SQLite writer): counts known by construction,
//!   and, where `sqlite3` exists, the file passes its integrity check and its counts agree.
//! - Databases `sqlite3` wrote (indexes, free pages, overflow, ALTER TABLE): the generic reader's rows equal the
//!   CLI's; another application's database is refused as "not an Nsight Systems export".

use crate::common::TempDir;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;
use weft::model::{LocationKind, MessageKind, Paradigm, Trace};
use weft::readers::{self, ReadError, Source};
use weft::samples::nsys::NsysSample;

const SAMPLE: &str = "../shared/traces/nsys/pipit-saxpy-mpi-cuda/saxpy-mpi-cuda_nsys_perlmutter0.sqlite";
const CSV: &str = "../shared/traces/nsys/pipit-nbody-nvtx/trace.csv";

fn sqlite3() -> bool {
    Command::new("sqlite3").arg("-version").output().is_ok_and(|o| o.status.success())
}

/// One number from `sqlite3 FILE QUERY`.
fn count(file: &Path, query: &str) -> u64 {
    let out = Command::new("sqlite3").arg(file).arg(query).output().expect("run sqlite3");
    assert!(out.status.success(), "sqlite3 {query}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().parse().unwrap_or_else(|_| panic!("{query}: not a number"))
}

fn has_table(file: &Path, table: &str) -> bool {
    count(file, &format!("select count(*) from sqlite_schema where type='table' and name='{table}'")) > 0
}

fn read(name: &str, bytes: &[u8]) -> Result<Trace, ReadError> {
    readers::open(name, Source::Bytes(bytes))?.into_trace(name)
}

/// Intervals per region category.
fn by_category(t: &Trace) -> BTreeMap<String, u64> {
    let mut m = BTreeMap::new();
    for i in 0..t.intervals.len() {
        let r = t.intervals.region[i];
        *m.entry(t.str(t.regions.category[r.index()]).to_string()).or_default() += 1;
    }
    m
}

fn flows(t: &Trace) -> usize {
    t.messages.kind.iter().filter(|&&k| k == MessageKind::Flow).count()
}

fn gpu_streams(t: &Trace) -> usize {
    t.locations.kind.iter().filter(|&&k| k == LocationKind::GpuStream).count()
}

/// What the reader should find in an export, by `sqlite3` queries only.
fn check_against_sqlite3(file: &Path, t: &Trace) {
    let cat = by_category(t);
    let got = |c: &str| cat.get(c).copied().unwrap_or(0);
    let rows = |table: &str, cond: &str| {
        if has_table(file, table) {
            count(file, &format!("select count(*) from {table} where {cond}"))
        } else {
            0
        }
    };
    let timed = "start is not null and end is not null and end >= start";
    assert_eq!(got("CUDA kernel"), rows("CUPTI_ACTIVITY_KIND_KERNEL", timed), "kernels");
    assert_eq!(got("CUDA memcpy"), rows("CUPTI_ACTIVITY_KIND_MEMCPY", timed), "memcpy");
    assert_eq!(got("CUDA memset"), rows("CUPTI_ACTIVITY_KIND_MEMSET", timed), "memset");
    assert_eq!(
        got("CUDA runtime API") + got("CUDA driver API"),
        rows("CUPTI_ACTIVITY_KIND_RUNTIME", &format!("{timed} and globalTid is not null")),
        "runtime and driver API calls"
    );
    assert_eq!(
        got("CUDA runtime API"),
        rows(
            "CUPTI_ACTIVITY_KIND_RUNTIME",
            &format!(
                "{timed} and globalTid is not null and (select value from StringIds where id = nameId) like 'cuda%'"
            )
        ),
        "runtime API calls"
    );
    assert_eq!(got("OS runtime"), rows("OSRT_API", &format!("{timed} and globalTid is not null")), "OS runtime");
    let nvtx_ranges = rows("NVTX_EVENTS", &format!("eventType in (59, 60) and {timed} and globalTid is not null"));
    let nvtx_got: u64 = cat.iter().filter(|(c, _)| !c.starts_with("CUDA") && *c != "OS runtime").map(|(_, n)| n).sum();
    let mpi: u64 = if has_table(file, "MPI_P2P_EVENTS") { rows("MPI_P2P_EVENTS", timed) } else { 0 };
    assert_eq!(nvtx_got, nvtx_ranges + mpi, "NVTX ranges and MPI calls");
    let marks = rows("NVTX_EVENTS", "eventType = 34 and globalTid is not null and start is not null");
    assert_eq!(t.instants.location.len() as u64, marks, "NVTX marks");
    // A flow for each GPU row whose correlation id names an API call of its process.
    let mut expect_flows = 0;
    for table in ["CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"] {
        expect_flows += rows(
            table,
            &format!(
                "{timed} and exists (select 1 from CUPTI_ACTIVITY_KIND_RUNTIME r where r.correlationId = \
                 {table}.correlationId and ((r.globalTid >> 24) & 16777215) = (({table}.globalPid >> 24) & 16777215))"
            ),
        );
    }
    assert_eq!(flows(t) as u64, expect_flows, "flows");
    let union: Vec<String> = ["CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"]
        .iter()
        .filter(|t| has_table(file, t))
        .map(|t| format!("select deviceId, contextId, streamId from {t}"))
        .collect();
    let streams = count(file, &format!("select count(*) from ({})", union.join(" union ")));
    assert_eq!(gpu_streams(t) as u64, streams, "GPU streams");
}

#[test]
fn the_saxpy_sample_matches_sqlite3() {
    let path = Path::new(SAMPLE);
    if !path.exists() {
        eprintln!("SKIP: {SAMPLE} not found");
        return;
    }
    let bytes = std::fs::read(path).unwrap();
    let t = read("saxpy.sqlite", &bytes).expect("the sample reads");
    // SOURCES.md's counts, then the same against sqlite3 where it is installed.
    let cat = by_category(&t);
    assert_eq!(cat["CUDA kernel"], 5);
    assert_eq!(cat["CUDA memcpy"], 15);
    assert_eq!(cat["CUDA runtime API"] + cat.get("CUDA driver API").copied().unwrap_or(0), 95);
    assert!(flows(&t) >= 20, "kernels and copies are linked to their API calls: {}", flows(&t));
    // MPI calls recorded as NVTX ranges of the "MPI" domain are MPI regions.
    let mpi: BTreeSet<&str> = (0..t.regions.len())
        .filter(|&r| t.regions.paradigm[r] == Paradigm::Mpi)
        .map(|r| t.str(t.regions.name[r]))
        .collect();
    assert!(mpi.contains("MPI_Send") && mpi.contains("MPI_Recv"), "{mpi:?}");
    let procs: Vec<&str> = (0..t.processes.len()).map(|p| t.str(t.processes.name[p])).collect();
    assert!(procs.iter().any(|p| p.contains("NVIDIA A100")), "{procs:?}");
    assert!(procs.iter().any(|p| p.contains("saxpy-mpi-cuda [1230493]")), "{procs:?}");
    let threads: Vec<&str> = (0..t.locations.len()).map(|l| t.str(t.locations.name[l])).collect();
    assert!(threads.iter().any(|n| n.contains("MPI Rank 0")), "{threads:?}");
    if !sqlite3() {
        eprintln!("SKIP: sqlite3 not installed; compared with SOURCES.md's counts only");
        return;
    }
    check_against_sqlite3(path, &t);
}

#[test]
fn a_generated_export_reads_with_its_counts() {
    let sample = NsysSample { processes: 3, iterations: 40, devices: 2 };
    let (bytes, c) = sample.generate();
    let t = read("gen.sqlite", &bytes).expect("the generated export reads");
    let cat = by_category(&t);
    assert_eq!(cat["CUDA kernel"], c.kernels);
    assert_eq!(cat["CUDA memcpy"], c.memcpy);
    assert_eq!(cat["CUDA memset"], c.memset);
    assert_eq!(cat["CUDA runtime API"] + cat["CUDA driver API"], c.runtime);
    assert_eq!(cat["OS runtime"], c.osrt);
    assert_eq!(cat["MPI"], c.mpi);
    assert_eq!(cat["NVTX"], c.nvtx_push_pop + c.nvtx_start_end);
    assert_eq!(t.instants.location.len() as u64, c.nvtx_marks);
    assert_eq!(flows(&t) as u64, c.flows);
    assert_eq!(gpu_streams(&t) as u64, c.gpu_streams);
    // A name longer than a page (an overflow chain in StringIds) arrives whole.
    let long = weft::samples::nsys::long_kernel_name();
    assert!((0..t.regions.len()).any(|r| t.str(t.regions.name[r]) == long));
    // `cudaMemcpy_v3020` is shown as `cudaMemcpy`.
    assert!((0..t.regions.len()).any(|r| t.str(t.regions.name[r]) == "cudaMemcpy"));
    assert_eq!(t.warnings.total(), 0, "{:?}", t.warnings);
    // Flows go from the API call's thread to a GPU stream, never backwards in time.
    for i in 0..t.messages.len() {
        assert_eq!(t.locations.kind[t.messages.sender[i].index()], LocationKind::CpuThread);
        assert_eq!(t.locations.kind[t.messages.receiver[i].index()], LocationKind::GpuStream);
        assert!(t.messages.send_ns[i] <= t.messages.recv_ns[i]);
    }
    if !sqlite3() {
        eprintln!("SKIP: sqlite3 not installed; the generated file's integrity is not checked");
        return;
    }
    let tmp = TempDir::new("nsys-gen");
    let path = tmp.join("gen.sqlite");
    std::fs::write(&path, &bytes).unwrap();
    let out = Command::new("sqlite3").arg(&path).arg("pragma integrity_check").output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "ok", "{}", String::from_utf8_lossy(&out.stderr));
    check_against_sqlite3(&path, &t);
}

/// A database written by sqlite3 itself, with what the generator never writes: indexes, free pages after
/// deletes, rows spilling into overflow pages, columns added by ALTER TABLE, negative and real values.
#[test]
fn databases_sqlite3_wrote_read_as_sqlite3_reads_them() {
    if !sqlite3() {
        eprintln!("SKIP: sqlite3 not installed");
        return;
    }
    let tmp = TempDir::new("nsys-other");
    let path = tmp.join("other.sqlite");
    let sql = "pragma page_size=1024; create table places (id integer primary key, url text, visits integer, score real);\
               create index by_url on places(url);\
               with recursive n(i) as (select 1 union all select i+1 from n where i < 3000) \
               insert into places select i, 'https://example.org/' || i || substr(hex(zeroblob(i % 700)), 1, (i % 700) * 2), \
               i * -37, i / 7.0 from n;\
               delete from places where id % 5 = 0; alter table places add column note text;\
               update places set note = 'n' || id where id % 3 = 0;";
    let out = Command::new("sqlite3").arg(&path).arg(sql).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let bytes = std::fs::read(&path).unwrap();
    let db = weft::readers::sqlite::Database::open(&bytes).expect("opens");
    let t = db.table("places").unwrap();
    let mut sum_visits = 0i64;
    let mut sum_len = 0usize;
    let mut notes = 0;
    let mut n = 0;
    let mut ids = 0i64;
    db.rows(&t, |r| {
        n += 1;
        ids += r.int(t.column("id")).unwrap();
        sum_visits += r.int(t.column("visits")).unwrap();
        sum_len += r.text(t.column("url")).unwrap().len();
        notes += r.text(t.column("note")).is_some() as usize;
        Ok(())
    })
    .expect("every row reads");
    assert_eq!(n, count(&path, "select count(*) from places"));
    assert_eq!(ids, count(&path, "select sum(id) from places") as i64);
    assert_eq!(-sum_visits, count(&path, "select -sum(visits) from places") as i64);
    assert_eq!(sum_len as u64, count(&path, "select sum(length(url)) from places"));
    assert_eq!(notes as u64, count(&path, "select count(note) from places"));
    // Not an Nsight export: refused, naming the file and saying what it is.
    let e = read("places.sqlite", &bytes).unwrap_err().to_string();
    assert!(e.starts_with("places.sqlite: ") && e.contains("not an Nsight Systems export"), "{e}");
}

#[test]
fn the_nvtx_csv_sample_matches_its_lines() {
    let path = Path::new(CSV);
    if !path.exists() {
        eprintln!("SKIP: {CSV} not found");
        return;
    }
    let bytes = std::fs::read(path).unwrap();
    let t = read("trace.csv", &bytes).expect("the CSV reads");
    // Independent: the lines after the header, and their PID and TID columns (names have no commas here).
    let text = String::from_utf8(bytes).unwrap();
    let rows: Vec<Vec<&str>> = text.lines().skip(1).filter(|l| !l.is_empty()).map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 131);
    assert_eq!(t.intervals.len(), rows.len());
    let pids: BTreeSet<&str> = rows.iter().map(|r| r[6]).collect();
    let threads: BTreeSet<(&str, &str)> = rows.iter().map(|r| (r[6], r[7])).collect();
    assert_eq!(t.processes.len(), pids.len());
    assert_eq!(t.locations.len(), threads.len());
    // The report's nesting level is the depth the builder computes from containment.
    let mut depths: Vec<u16> = t.intervals.depth.clone();
    let mut lvls: Vec<u16> = rows.iter().map(|r| r[8].parse().unwrap()).collect();
    depths.sort();
    lvls.sort();
    assert_eq!(depths, lvls);
    assert_eq!(t.warnings.total(), 0);
}

#[test]
fn weft_info_reads_both() {
    let (bytes, c) = NsysSample::small().generate();
    let tmp = TempDir::new("nsys-info");
    let path = tmp.join("info.sqlite");
    std::fs::write(&path, bytes).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_weft")).arg("info").arg(&path).arg("--json").output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let text = v.to_string();
    assert!(text.contains("nsight-sqlite"), "{text}");
    let total = c.runtime + c.kernels + c.memcpy + c.memset + c.osrt + c.mpi + c.nvtx_push_pop + c.nvtx_start_end;
    assert!(text.contains(&format!("\"intervals\":{total}")), "{text}");
    let csv = tmp.join("info.csv");
    std::fs::write(&csv, "Start (ns),End (ns),Name,PID,TID\n1,5,a,1,1\n2,3,b,1,1\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_weft")).arg("info").arg(&csv).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}
