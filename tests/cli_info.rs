//! `weft info --json` golden test: the binary runs on a generated Chrome trace written to a temporary
//! folder, and its stable keys are compared with values computed here from the generator's parameters
//! alone (not from the reader), following the layout documented on `ChromeSample`.

use crate::common::TempDir;
use serde_json::Value;
use std::process::Command;
use weft::samples::chrome::CHECKPOINT_EVERY;
use weft::samples::ChromeSample;

const US: u64 = 1000;

#[test]
fn info_json_matches_the_generated_structure() {
    let p = ChromeSample {
        ranks: 3,
        threads_per_rank: 3,
        iterations: 10,
        imbalance: 0.0,
        late_rank: None,
        ..Default::default()
    };
    let dir = TempDir::new("cli-info");
    let path = dir.join("generated.json");
    std::fs::write(&path, p.generate()).expect("write fixture");

    let out = Command::new(env!("CARGO_BIN_EXE_weft")).arg("info").arg(&path).arg("--json").output().expect("run weft");
    assert!(out.status.success(), "weft info failed: {}", String::from_utf8_lossy(&out.stderr));
    let got: Value = serde_json::from_slice(&out.stdout).expect("JSON output");

    // Independent expectations.
    let (r, t, n) = (p.ranks as u64, p.threads_per_rank as u64, p.iterations as u64);
    let (c, s, rv, b) = (p.compute_ns as u64, p.send_ns as u64, p.recv_ns as u64, p.barrier_ns as u64);
    let period = c + s + rv + p.allreduce_min_ns as u64 + 6 * US;
    let k = n.div_ceil(CHECKPOINT_EVERY as u64);
    let workers = r * (t - 1) * n;
    let last_checkpoint = (n - 1) / CHECKPOINT_EVERY as u64 * CHECKPOINT_EVERY as u64;
    let span = ((n - 1) * period + period - US).max(last_checkpoint * period + US + 3 * period / 2);
    let mut regions: Vec<(&str, u64, u64)> = vec![
        ("iteration", r * n, r * n * (period - US)),
        ("compute_kernel", r * n, r * n * c),
        ("MPI_Send", r * n, r * n * s),
        ("MPI_Recv", r * n, r * n * rv),
        ("MPI_Allreduce", r * n, r * n * (period - 2 * US - (4 * US + c + s + rv))),
        ("!$omp parallel", workers, workers * c),
        ("omp_for_loop", workers, workers * (c - b)),
        ("!$omp implicit barrier", workers, workers * b),
        ("write_checkpoint", 2 * r * k, r * k * (3 * period / 2 + period - 4 * US)),
    ];
    regions.sort_by(|a, b| b.2.cmp(&a.2).then(b.1.cmp(&a.1)).then(a.0.cmp(b.0)));

    assert_eq!(got["format"], "chrome-json");
    assert_eq!(got["processes"], r);
    assert_eq!(got["locations"], r * t + 2 * r, "threads plus two async checkpoint tracks per rank");
    assert_eq!(got["intervals"], r * n * (5 + 3 * (t - 1)) + 2 * r * k);
    assert_eq!(got["messages"], 0, "flows are not point-to-point messages");
    assert_eq!(got["flows"], r * n);
    assert_eq!(got["warnings"], 0);
    assert_eq!(got["span_ns"], span);
    let top = got["top_regions"].as_array().expect("top_regions is a list");
    let top: Vec<(String, u64, u64)> = top
        .iter()
        .map(|e| {
            let keys: Vec<&String> = e.as_object().expect("object").keys().collect();
            assert_eq!(keys.len(), 3, "{keys:?}");
            (
                e["name"].as_str().expect("name").to_string(),
                e["count"].as_u64().expect("count"),
                e["inclusive_ns"].as_u64().expect("inclusive_ns"),
            )
        })
        .collect();
    let want: Vec<(String, u64, u64)> = regions.iter().map(|&(n, c, i)| (n.to_string(), c, i)).collect();
    assert_eq!(top, want);
    for key in ["format", "locations", "processes", "intervals", "messages", "warnings", "span_ns", "top_regions"] {
        assert!(got.get(key).is_some(), "missing stable key {key}");
    }
}

#[test]
fn info_names_the_file_when_it_is_not_a_trace() {
    let dir = TempDir::new("cli-info-bad");
    let path = dir.join("broken.json");
    std::fs::write(&path, b"[{\"ph\":\"X\",\"ts\":1,}]").expect("write");
    let out = Command::new(env!("CARGO_BIN_EXE_weft")).arg("info").arg(&path).output().expect("run weft");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("broken.json") && err.contains("at byte 18") && err.contains("expected a key"), "{err}");
}
