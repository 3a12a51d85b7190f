//! `weft io` (issue #57): bytes read and written over time, per file and per rank of a Darshan log. On a
//! generated log whose every segment is known, and against pydarshan (tests/oracle/darshan_io.py) on every log
//! the `darshan` package ships: the bins sum to the log's total bytes, and the per-file and per-rank totals are
//! pydarshan's. The oracle part runs when WEFT_PYTHON names a python with `darshan`; otherwise SKIPPED.

use crate::common::TempDir;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use weft_samples::darshan_gen::DarshanLog;

fn weft(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_weft")).args(args).output().expect("run weft")
}

fn io_json(args: &[&str]) -> Value {
    let mut all = vec!["io", "--json"];
    all.extend_from_slice(args);
    let out = weft(&all);
    assert!(out.status.success(), "weft {all:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("JSON")
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a count: {v}"))
}

/// The bins' read and written bytes, summed.
fn bin_sums(s: &Value) -> (u64, u64) {
    let bins = s["bins"].as_array().expect("bins");
    (bins.iter().map(|b| u(&b["read_bytes"])).sum(), bins.iter().map(|b| u(&b["write_bytes"])).sum())
}

#[test]
fn weft_io_sums_a_generated_logs_segments_in_bins_files_and_ranks() {
    let dir = TempDir::new("weft-io");
    let path = dir.path().join("run.darshan");
    std::fs::write(&path, DarshanLog::dxt_run(3, 4).bytes()).unwrap();
    let p = path.to_str().unwrap();
    let s = io_json(&[p, "--bins", "7"]);
    // 3 ranks, each 4 writes then 4 reads of 4096 bytes, 1 ms each.
    assert_eq!((u(&s["read_bytes"]), u(&s["write_bytes"]), u(&s["operations"])), (49152, 49152, 24));
    assert_eq!((u(&s["read_ns"]), u(&s["write_ns"])), (12_000_000, 12_000_000));
    assert_eq!(s["layer"], "POSIX");
    assert_eq!(s["bins"].as_array().unwrap().len(), 7);
    assert_eq!(bin_sums(&s), (49152, 49152));
    for key in ["t0_ns", "t1_ns", "read_bytes", "write_bytes"] {
        assert!(s["bins"][0][key].is_u64(), "bins[].{key}");
    }
    let files = s["files"].as_array().unwrap();
    assert_eq!(files.len(), 1);
    assert_eq!(files[0]["name"], "/scratch/out.dat");
    assert_eq!(
        (u(&files[0]["read_bytes"]), u(&files[0]["write_bytes"]), u(&files[0]["operations"])),
        (49152, 49152, 24)
    );
    let ranks: Vec<(String, u64, u64)> = s["per_process"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["name"].as_str().unwrap().to_string(), u(&r["read_bytes"]), u(&r["write_bytes"])))
        .collect();
    assert_eq!(ranks, (0..3).map(|r| (format!("rank {r}"), 16384, 16384)).collect::<Vec<_>>());
    // per_location: every location, in `weft moments --json`'s order.
    let m = weft(&["moments", "--json", p]);
    let moments: Value = serde_json::from_slice(&m.stdout).expect("moments JSON");
    let names =
        |v: &Value| v.as_array().unwrap().iter().map(|x| x["name"].as_str().unwrap().to_string()).collect::<Vec<_>>();
    // (moments names a location "process / location"; the summary by its own name.)
    let (ours, theirs) = (names(&s["per_location"]), names(&moments));
    assert_eq!(ours.len(), theirs.len());
    assert!(ours.iter().zip(&theirs).all(|(o, t)| t.ends_with(o.as_str())), "{ours:?} {theirs:?}");
    assert_eq!(s["per_location"].as_array().unwrap().iter().map(|l| u(&l["write_bytes"])).sum::<u64>(), 49152);
    // The first 1.5 s: the writes of blocks 0 and 1 of every rank, no read.
    let w = io_json(&[p, "--window", "0:1.5s", "--bins", "3"]);
    assert_eq!((u(&w["read_bytes"]), u(&w["write_bytes"]), u(&w["operations"])), (0, 6 * 4096, 6));
    assert_eq!(bin_sums(&w), (0, 6 * 4096));
    assert_eq!((u(&w["window_t0_ns"]), u(&w["window_t1_ns"])), (0, 1_500_000_000));
    // One file asked: the same (it is the only one); another name: nothing, the files list still there.
    let none = io_json(&[p, "--file", "/nowhere"]);
    assert_eq!((u(&none["read_bytes"]), none["files"].as_array().unwrap().len()), (0, 1));
    // Text: the totals and the file.
    let out = weft(&["io", p]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && text.contains("layer POSIX") && text.contains("/scratch/out.dat"), "{text}");
}

#[test]
fn weft_io_on_a_trace_without_io_says_so() {
    let dir = TempDir::new("weft-io-none");
    let path = dir.path().join("t.json");
    std::fs::write(&path, r#"{"traceEvents":[{"name":"a","ph":"X","ts":0,"dur":5,"pid":1,"tid":1}]}"#).unwrap();
    let out = weft(&["io", path.to_str().unwrap()]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("no I/O intervals"));
    let s = io_json(&[path.to_str().unwrap()]);
    assert_eq!((s["layer"].clone(), u(&s["read_bytes"])), (Value::Null, 0));
    let bad = weft(&["io", path.to_str().unwrap(), "--window", "5:1"]);
    assert!(!bad.status.success());
}

fn python() -> Option<String> {
    match std::env::var("WEFT_PYTHON") {
        Ok(p) if !p.is_empty() => {
            let ok = Command::new(&p).args(["-c", "import darshan"]).output().is_ok_and(|o| o.status.success());
            if !ok {
                eprintln!("SKIPPED weft io oracle: {p} has no `darshan` package (tests/oracle/requirements.txt)");
            }
            ok.then_some(p)
        }
        _ => {
            eprintln!("SKIPPED weft io oracle: WEFT_PYTHON is not set (a python with the `darshan` package)");
            None
        }
    }
}

fn oracle(py: &str, script: &str, arg: &str) -> Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle").join(script);
    let out = Command::new(py).arg(script).arg(arg).output().expect("run python");
    assert!(out.status.success(), "{arg}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("JSON")
}

/// "rank N" is N; the shared records' process is -1.
fn rank_of(name: &str) -> String {
    name.strip_prefix("rank ").map_or_else(|| "-1".to_string(), str::to_string)
}

#[test]
fn weft_io_per_file_and_per_rank_totals_are_pydarshans_on_the_logs_it_ships() {
    let Some(py) = python() else { return };
    let logs: Vec<String> = serde_json::from_value(oracle(&py, "darshan_dxt.py", "--logs")).unwrap();
    assert!(logs.len() >= 10, "{logs:?}");
    let mut checked = 0;
    for log in &logs {
        let want = oracle(&py, "darshan_io.py", log);
        let out = weft(&["io", "--json", log]);
        if !out.status.success() {
            // The reader refuses a log with nothing to show (no DXT, no closed POSIX file): nothing to sum.
            assert_eq!(
                (u(&want["read_bytes"]), u(&want["write_bytes"])),
                (0, 0),
                "{log}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            continue;
        }
        let s: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(s["layer"], want["layer"], "{log}");
        assert_eq!(
            (u(&s["read_bytes"]), u(&s["write_bytes"])),
            (u(&want["read_bytes"]), u(&want["write_bytes"])),
            "{log}"
        );
        assert_eq!(u(&s["operations"]), u(&want["operations"]), "{log}");
        assert_eq!(bin_sums(&s), (u(&want["read_bytes"]), u(&want["write_bytes"])), "{log}: bins");
        let files: BTreeMap<String, Vec<u64>> = s["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                (
                    f["name"].as_str().unwrap().to_string(),
                    vec![u(&f["read_bytes"]), u(&f["write_bytes"]), u(&f["operations"])],
                )
            })
            .collect();
        let want_files: BTreeMap<String, Vec<u64>> = serde_json::from_value(want["files"].clone()).unwrap();
        assert_eq!(files, want_files, "{log}: files");
        let ranks: BTreeMap<String, Vec<u64>> = s["per_process"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| u(&r["operations"]) > 0)
            .map(|r| (rank_of(r["name"].as_str().unwrap()), vec![u(&r["read_bytes"]), u(&r["write_bytes"])]))
            .collect();
        let want_ranks: BTreeMap<String, Vec<u64>> = serde_json::from_value(want["ranks"].clone()).unwrap();
        let want_ranks: BTreeMap<String, Vec<u64>> =
            want_ranks.into_iter().filter(|(_, v)| v.iter().sum::<u64>() > 0).collect();
        let ranks: BTreeMap<String, Vec<u64>> = ranks.into_iter().filter(|(_, v)| v.iter().sum::<u64>() > 0).collect();
        assert_eq!(ranks, want_ranks, "{log}: ranks");
        checked += 1;
    }
    assert!(checked >= 8, "logs summed: {checked}");
    eprintln!("weft io oracle: {checked} of {} logs agree with pydarshan", logs.len());
}

/// `weft info --json`'s `intervals` and the merge note of `weft info` (text) for `args`.
fn info(args: &[&str]) -> (u64, String) {
    let mut all = vec!["info", "--json"];
    all.extend_from_slice(args);
    let out = weft(&all);
    assert!(out.status.success(), "weft {all:?}: {}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut text = vec!["info"];
    text.extend_from_slice(args);
    (u(&v["intervals"]), String::from_utf8_lossy(&weft(&text).stdout).into_owned())
}

#[test]
fn weft_info_and_io_put_a_darshan_log_onto_an_otf2_runs_ranks() {
    let dir = TempDir::new("weft-io-merge");
    let run = dir.path().join("run");
    let out = weft(&["generate", "otf2", "-o", run.to_str().unwrap(), "--ranks", "4", "--events", "4000"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let anchor = run.join("traces.otf2");
    let a = anchor.to_str().unwrap();
    let log = dir.path().join("job.darshan");
    std::fs::write(&log, DarshanLog::dxt_run(4, 3).bytes()).unwrap();
    let l = log.to_str().unwrap();
    let (alone, _) = info(&[a]);
    // Given together (either order), or a folder holding both: the trace's intervals and the log's 24.
    let (together, text) = info(&[a, l]);
    assert_eq!(together, alone + 24);
    assert!(text.contains("merged onto its 4 ranks") && text.contains("clocks aligned by job start"), "{text}");
    assert_eq!(info(&[l, a]).0, alone + 24);
    std::fs::copy(&log, run.join("job.darshan")).unwrap();
    assert_eq!(info(&[run.to_str().unwrap()]).0, alone + 24);
    // weft io of the pair: each rank's 3 writes and 3 reads of 4 KiB.
    let s = io_json(&[a, l]);
    let ranks: Vec<(String, u64, u64)> = s["per_process"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["name"].as_str().unwrap().to_string(), u(&r["read_bytes"]), u(&r["write_bytes"])))
        .collect();
    assert_eq!(ranks.len(), 4);
    assert!(ranks.iter().all(|r| (r.1, r.2) == (3 * 4096, 3 * 4096)), "{ranks:?}");
    // A log of another job (2 ranks): refused, naming the log and both counts.
    let other = dir.path().join("other.darshan");
    std::fs::write(&other, DarshanLog::dxt_run(2, 3).bytes()).unwrap();
    let out = weft(&["info", a, other.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success()
            && err.contains("other.darshan")
            && err.contains("2 ranks (nprocs)")
            && err.contains("4 processes"),
        "{err}"
    );
}
