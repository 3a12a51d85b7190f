//! OTF2 metrics (METRIC_MEMBER / METRIC_CLASS / METRIC_INSTANCE definitions, METRIC events) as counter
//! series, against the official OTF2 library (tests/oracle/otf2_oracle.py `metrics`): every value of every
//! (location, member) on a generated archive (uint64, negative int64, double scaled by 10^-6, a
//! process-scoped instance scaled by 2^10, two threads per process) and on the real Score-P archive with
//! PAPI counters; and the streamed store (`weft index`) holds the same samples.
//!
//! Runs when WEFT_PYTHON names a python with `otf2` importable; otherwise prints SKIPPED. The real archive's
//! counts are checked without python too.

use crate::common;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use weft::index::stream::{index_otf2, MemorySink, StreamOptions};
use weft::index::BuildOptions;
use weft::index::MemorySpill;
use weft::model::Trace;
use weft::readers::otf2::{open_stream, read_archive, FolderFiles};

fn python() -> Option<String> {
    match std::env::var("WEFT_PYTHON") {
        Ok(p) if !p.is_empty() => Some(p),
        _ => {
            eprintln!("SKIPPED otf2_metrics oracle: WEFT_PYTHON is not set (a python with the `otf2` package)");
            None
        }
    }
}

fn oracle(py: &str, args: &[&std::ffi::OsStr]) -> std::process::Output {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/otf2_oracle.py");
    let out = Command::new(py).arg(script).args(args).output().expect("run python");
    assert!(out.status.success(), "oracle {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    out
}

fn read(anchor: &Path) -> Trace {
    let files = FolderFiles { root: anchor.parent().unwrap().to_path_buf() };
    read_archive(&anchor.file_name().unwrap().to_string_lossy(), &files).expect("archive reads")
}

/// The samples (absolute ns since the clock's offset, value) of the series named `name` of process `process`.
fn series(t: &Trace, process: &str, name: &str) -> Option<Vec<(i64, f64)>> {
    let c = &t.counters;
    let s = (0..c.series_name.len())
        .find(|&s| t.str(c.series_name[s]) == name && t.process_name(c.series_process[s]) == process)?;
    Some(
        (0..c.sample_series.len())
            .filter(|&i| c.sample_series[i] as usize == s)
            .map(|i| (t.origin_ns + c.sample_time_ns[i] as i64, c.sample_value[i]))
            .collect(),
    )
}

/// Every oracle series is a model series with the same samples; returns the number of values compared.
fn compare(t: &Trace, oracle: &Value, shared_groups: bool) -> usize {
    let mut compared = 0;
    for s in oracle["series"].as_array().expect("series") {
        let (member, unit) = (s["member"].as_str().unwrap(), s["unit"].as_str().unwrap());
        let mut name = if unit.is_empty() { member.to_string() } else { format!("{member} [{unit}]") };
        // Thread-recorded series name their thread where a process has several; an instance scoped to a
        // process is the process's.
        if shared_groups && s["scope"].is_null() {
            name = format!("{name} ({})", s["location_name"].as_str().unwrap());
        }
        let group = s["group"].as_str().unwrap();
        let ours = series(t, group, &name).unwrap_or_else(|| panic!("no series {name:?} of {group}"));
        let want = s["samples"].as_array().unwrap();
        assert_eq!(ours.len(), want.len(), "{group} / {name}: sample count");
        for (k, ((t_ns, v), w)) in ours.iter().zip(want).enumerate() {
            let (wt, wv) = (w[0].as_f64().unwrap(), w[1].as_f64().unwrap());
            assert!((*t_ns as f64 - wt).abs() <= 1.0, "{group} / {name} #{k}: time {t_ns} vs {wt}");
            assert!((v - wv).abs() <= 1e-12 * wv.abs().max(1e-300), "{group} / {name} #{k}: value {v} vs {wv}");
            compared += 1;
        }
    }
    compared
}

#[test]
fn generated_metrics_match_the_official_reader_and_reach_the_store() {
    let Some(py) = python() else { return };
    let dir = std::env::temp_dir().join(format!("weft-otf2-metrics-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    oracle(&py, &["metricsgen".as_ref(), dir.as_os_str()]);
    let anchor = dir.join("metrics/traces.otf2");
    let out: Value = serde_json::from_slice(&oracle(&py, &["metrics".as_ref(), anchor.as_os_str()]).stdout).unwrap();
    let t = read(&anchor);
    assert_eq!(t.warnings.total(), 0, "{:?}", t.warnings);
    let n = compare(&t, &out, true);
    // 4 threads x 3 members x 50 samples, and 2 processes x 25 memory samples.
    assert_eq!(n, 4 * 3 * 50 + 2 * 25);
    assert_eq!(t.counters.sample_value.len(), n, "no sample the official reader lacks");
    assert_eq!(t.counters.series_name.len(), 4 * 3 + 2);
    // Scaled as the members say: microseconds to seconds (10^-6), KiB to bytes (2^10); negative int64.
    let utime = series(&t, "MPI Rank 0", "ru_utime [s] (Master thread)").unwrap();
    assert!((utime[2].1 - 1.5e-6).abs() < 1e-18, "{:?}", &utime[..3]);
    let mem = series(&t, "MPI Rank 1", "mem [B]").unwrap();
    assert_eq!(mem[1].1, 5.0 * 1024.0);
    let bal = series(&t, "MPI Rank 0", "balance [items] (Master thread)").unwrap();
    assert!(bal.iter().any(|s| s.1 < 0.0), "int64 values below zero stay negative");

    // The streamed store (`weft index`) tiles the same samples.
    let files = FolderFiles { root: anchor.parent().unwrap().to_path_buf() };
    let stream = open_stream("traces.otf2", &files).expect("opens");
    let (sink, mut spill) = (MemorySink::default(), MemorySpill::default());
    let so = StreamOptions {
        build: BuildOptions::default(),
        memory: 1 << 30,
        event_buffer: 0,
        shard: None,
        held: 0,
        runs: 0,
        range_intervals: 0,
    };
    let done = index_otf2(stream, &so, &mut spill, &sink, &|_| {}).expect("streamed index");
    assert_eq!(done.manifest.counts.counter_samples, n as u64);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn score_p_papi_counters_match_the_official_reader() {
    let Some(root) = common::shared_traces("otf2_metrics papi") else { return };
    let anchor = root.join("otf2/pipit-ping-pong-mpi-papi/traces.otf2");
    let t = read(&anchor);
    // SOURCES.md: 84 METRIC events, three PAPI counters each, on 2 ranks of one thread.
    assert_eq!(t.counters.sample_value.len(), 84 * 3);
    let mut names: Vec<&str> = t.counters.series_name.iter().map(|&s| t.str(s)).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names, ["PAPI_BR_MSP [#]", "PAPI_L2_TCM [#]", "PAPI_TOT_CYC [#]"]);
    let cyc = series(&t, "MPI Rank 0", "PAPI_TOT_CYC [#]").expect("rank 0's cycles");
    assert_eq!((cyc[0].1, cyc[1].1), (98850.0, 122765.0), "the first values the official reader gives");
    let Some(py) = python() else { return };
    let out: Value = serde_json::from_slice(&oracle(&py, &["metrics".as_ref(), anchor.as_os_str()]).stdout).unwrap();
    assert_eq!(out["events"].as_u64(), Some(84));
    assert_eq!(compare(&t, &out, false), 84 * 3);
}
