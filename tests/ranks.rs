//! A folder of per-rank Kineto JSON as one run (issue #57): `weft info DIR/` on a generated run, the
//! diagnosis' NCCL waits on it known by construction, the real HTA sample as two ranks, and HTA's own loader
//! (tests/oracle/hta_ranks.py, when WEFT_PYTHON names a python with `holistictraceanalysis`) as the oracle of
//! which rank holds which events at which aligned time.

use crate::common::{self, TempDir};
use serde_json::Value;
use std::process::Command;
use weft::analyses::diagnosis::waits::{wait_states, Pattern};
use weft::readers::{open_path, ReadError};
use weft::samples::kineto_ranks::{KinetoRanks, ALLREDUCE};

fn folder(tag: &str, g: &KinetoRanks) -> TempDir {
    let dir = TempDir::new(tag);
    for (name, bytes) in g.files() {
        dir.put(&name, &bytes);
    }
    dir
}

fn info_json(dir: &std::path::Path) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_weft")).arg("info").arg(dir).arg("--json").output().expect("run weft");
    assert!(out.status.success(), "weft info failed: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("JSON")
}

#[test]
fn weft_info_on_a_folder_of_ranks_counts_the_run() {
    let g = KinetoRanks { ranks: 8, steps: 5, ..Default::default() };
    let dir = folder("ranks-info", &g);
    let v = info_json(&dir);
    let s = &v;
    assert_eq!(s["processes"], 8, "{s}");
    // Per rank: a host thread and two streams.
    assert_eq!(s["locations"], 24, "{s}");
    // Two process groups x 5 steps.
    assert_eq!(s["collectives"], 10, "{s}");
    assert_eq!(s["intervals"], 8 * 5 * 4, "{s}");
    let text = Command::new(env!("CARGO_BIN_EXE_weft")).arg("info").arg(dir.path()).output().expect("run weft");
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("8 ranks merged; clocks aligned by baseTimeNanoseconds"), "{text}");
}

#[test]
fn nccl_waits_of_the_merged_run_are_the_late_ranks_by_construction() {
    // One process group: the diagnosis pairs the k-th all-reduce of each rank.
    let g = KinetoRanks { ranks: 4, steps: 4, second_group: false, ..Default::default() };
    let dir = folder("ranks-waits", &g);
    let trace = open_path(&dir).unwrap().into_trace("run").unwrap();
    let states = wait_states(&trace);
    let mut got: Vec<(i64, i64, i64)> = states
        .waits
        .iter()
        .filter(|w| w.pattern == Pattern::NcclCollective)
        .map(|w| {
            let p = trace.locations.process[w.location.index()];
            (trace.processes.native_id[p.index()], trace.origin_ns + w.start_ns as i64, w.ns() as i64)
        })
        .collect();
    got.sort();
    // Step s: rank s % 4 starts late_ns after the others; each other rank waits late_ns from its start.
    let mut want: Vec<(i64, i64, i64)> = g
        .kernels()
        .into_iter()
        .filter(|k| k.name == ALLREDUCE && k.rank != k.step % g.ranks)
        .map(|k| (k.rank as i64, k.start_ns, g.late_ns))
        .collect();
    want.sort();
    assert_eq!(got, want);
    // The matched collectives are the same operations.
    assert_eq!(trace.collectives.operations(), 4);
    assert_eq!(trace.collectives.len(), 16);
}

#[test]
fn a_rank_twice_on_disk_is_refused_naming_the_file() {
    let g = KinetoRanks::default();
    let dir = folder("ranks-dup", &g);
    dir.put("rank-zzz.json", &g.file(1));
    let e = open_path(&dir).unwrap_err();
    assert!(matches!(e, ReadError::NotOneRun { .. }), "{e:?}");
    assert!(e.to_string().contains("rank-zzz.json: rank 1 again"), "{e}");
    let out = Command::new(env!("CARGO_BIN_EXE_weft")).arg("info").arg(dir.path()).output().expect("run weft");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("rank 1 again"));
}

/// The real HTA sample (rank 0 of a 128-rank run, no base time) beside itself as rank 1: two ranks, each with
/// every event the file alone gives, at the same times (one clock: no baseTimeNanoseconds).
#[test]
fn the_real_hta_sample_as_two_ranks() {
    let Some(shared) = common::shared_traces("the_real_hta_sample_as_two_ranks") else { return };
    let file = shared.join("chrome-json/hta/trace_filter_sampled_rank-0.json.gz");
    if !file.exists() {
        eprintln!("SKIPPED the_real_hta_sample_as_two_ranks: {} is absent", file.display());
        return;
    }
    let mut json = String::new();
    use std::io::Read;
    flate2::read::GzDecoder::new(std::fs::File::open(&file).unwrap()).read_to_string(&mut json).unwrap();
    let one = r#""rank": 0,"#;
    assert_eq!(json.matches(one).count(), 1, "the sample's distributedInfo");
    let dir = TempDir::new("ranks-hta");
    dir.put("rank-0.json", json.as_bytes());
    dir.put("rank-1.json", json.replacen(one, r#""rank": 1,"#, 1).as_bytes());
    let alone = open_path(&dir.join("rank-0.json")).unwrap().into_trace("one").unwrap();
    let run = open_path(&dir).unwrap().into_trace("run").unwrap();
    assert_eq!(run.processes.len(), 2);
    assert_eq!(run.intervals.len(), 2 * alone.intervals.len());
    assert_eq!(run.origin_ns, alone.origin_ns);
    let starts = |t: &weft::model::Trace| {
        let mut v: Vec<(String, u64, u64)> = (0..t.intervals.len())
            .map(|i| (t.region_name(t.intervals.region[i]).to_string(), t.intervals.start_ns[i], t.intervals.dur_ns[i]))
            .collect();
        v.sort();
        v
    };
    let mut twice = starts(&alone);
    twice.extend(starts(&alone));
    twice.sort();
    assert_eq!(starts(&run), twice);
    // Its NCCL kernels are send/receive ones (all-to-all over point-to-point): not matched as collectives.
    assert_eq!(run.collectives.len(), 0);
    // The two real single-rank samples of HTA are both rank 0: refused as one run.
    let dir = TempDir::new("ranks-hta-dup");
    std::fs::copy(&file, dir.join("a.json.gz")).unwrap();
    std::fs::copy(shared.join("chrome-json/hta/critical_path_simple_add_trace.json.gz"), dir.join("b.json.gz"))
        .unwrap();
    let e = open_path(&dir).unwrap_err().to_string();
    assert!(e.contains("b.json.gz: rank 0 again") || e.contains("world_size"), "{e}");
}

/// HTA's loader on a generated run with one base for every rank (HTA aligns ranks by their raw `ts`, without
/// `baseTimeNanoseconds`; weft adds the base, so the two agree exactly where the bases are equal): the same
/// ranks, and every rank's events with the same names, aligned start and duration.
#[test]
fn hta_loader_agrees_on_ranks_and_aligned_times() {
    let py = match std::env::var("WEFT_PYTHON") {
        Ok(p) if !p.is_empty() => p,
        _ => {
            eprintln!("SKIPPED hta_loader_agrees_on_ranks_and_aligned_times: WEFT_PYTHON is not set (a python with holistictraceanalysis)");
            return;
        }
    };
    let has_hta = Command::new(&py).args(["-c", "import hta"]).output().is_ok_and(|o| o.status.success());
    if !has_hta {
        eprintln!("SKIPPED hta_loader_agrees_on_ranks_and_aligned_times: {py} has no holistictraceanalysis (tests/oracle/requirements-nodeps.txt)");
        return;
    }
    for ranks in [2u32, 5] {
        // Whole microseconds (HTA rounds ts up to them), one base for all.
        let g =
            KinetoRanks { ranks, steps: 3, start_ns: 1_700_000_000_123_456_000, base_skew_ns: 0, ..Default::default() };
        let dir = folder("ranks-hta-oracle", &g);
        let out = Command::new(&py)
            .arg(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/hta_ranks.py"))
            .arg(dir.path())
            .output()
            .expect("run python");
        assert!(out.status.success(), "hta_ranks.py: {}", String::from_utf8_lossy(&out.stderr));
        let hta: Value = serde_json::from_slice(&out.stdout).expect("JSON");
        let trace = open_path(&dir).unwrap().into_trace("run").unwrap();
        let mut weft_ranks = serde_json::Map::new();
        for p in 0..trace.processes.len() {
            let mut rows: Vec<(String, i64, i64)> = Vec::new();
            for l in (0..trace.locations.len()).filter(|&l| trace.locations.process[l].index() == p) {
                for i in trace.intervals_of(weft::model::LocationId(l as u32)) {
                    let iv = &trace.intervals;
                    assert_eq!(iv.start_ns[i] % 1000, 0);
                    rows.push((
                        trace.region_name(iv.region[i]).to_string(),
                        (iv.start_ns[i] / 1000) as i64,
                        (iv.dur_ns[i] / 1000) as i64,
                    ));
                }
            }
            rows.sort();
            let rows: Vec<Value> = rows.into_iter().map(|(n, s, d)| serde_json::json!([n, s, d])).collect();
            weft_ranks.insert(trace.processes.native_id[p].to_string(), Value::Array(rows));
        }
        assert_eq!(hta["ranks"], Value::Object(weft_ranks), "{ranks} ranks");
        // HTA's zero is weft's origin.
        let base = g.base_of(0);
        assert_eq!(hta["min_ts"].as_i64().unwrap() * 1000 + base, trace.origin_ns);
    }
}
