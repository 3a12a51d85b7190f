//! The Darshan reader against pydarshan (the `darshan` package, which reads logs with darshan-util's own C
//! library): on every log the package ships (its tests' and examples', DXT ones among them), every DXT
//! segment's module, rank, file, operation, offset, size, start and end agree exactly
//! (tests/oracle/darshan_dxt.py rounds seconds to ns as the reader does). Runs when WEFT_PYTHON names a python
//! with the `darshan` package; otherwise prints SKIPPED.

use serde_json::{json, Value};
use std::path::Path;
use std::process::Command;
use weft::readers::{open_path, ReadError};

fn python() -> Option<String> {
    match std::env::var("WEFT_PYTHON") {
        Ok(p) if !p.is_empty() => {
            let ok = Command::new(&p).args(["-c", "import darshan"]).output().is_ok_and(|o| o.status.success());
            if !ok {
                eprintln!("SKIPPED darshan oracle: {p} has no `darshan` package (tests/oracle/requirements.txt)");
            }
            ok.then_some(p)
        }
        _ => {
            eprintln!("SKIPPED darshan oracle: WEFT_PYTHON is not set (a python with the `darshan` package)");
            None
        }
    }
}

fn oracle(py: &str, arg: &str) -> Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/darshan_dxt.py");
    let out = Command::new(py).arg(script).arg(arg).output().expect("run python");
    assert!(out.status.success(), "darshan_dxt.py {arg}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("JSON")
}

/// module, rank, file, operation, offset, size, start, end.
type SegmentRow = (String, i64, String, String, i64, i64, i64, i64);

/// The DXT intervals of weft's trace, as the oracle lists segments.
fn weft_segments(t: &weft::model::Trace) -> Vec<Value> {
    let iv = &t.intervals;
    let mut out: Vec<SegmentRow> = Vec::new();
    for i in 0..iv.len() {
        let region = t.region_name(iv.region[i]);
        let Some((module, op)) = region.rsplit_once(' ') else { continue };
        if op == "file" {
            continue;
        }
        let arg = |k: &str| {
            iv.args.of(i).and_then(|mut a| a.find(|a| t.str(a.key) == k)).map_or(String::new(), |a| a.value.to_string())
        };
        let rank = t.processes.native_id[t.locations.process[iv.location[i].index()].index()];
        out.push((
            module.to_string(),
            rank,
            arg("file"),
            op.to_string(),
            arg("offset").parse().unwrap_or(-1),
            arg("size").parse().unwrap_or(-1),
            t.origin_ns + iv.start_ns[i] as i64,
            t.origin_ns + iv.end_ns(i) as i64,
        ));
    }
    out.sort();
    out.into_iter().map(|(m, r, f, o, off, n, s, e)| json!([m, r, f, o, off, n, s, e])).collect()
}

#[test]
fn every_dxt_segment_of_the_logs_pydarshan_ships_agrees() {
    let Some(py) = python() else { return };
    let logs = oracle(&py, "--logs");
    let logs: Vec<String> = logs.as_array().expect("a list").iter().map(|v| v.as_str().unwrap().to_string()).collect();
    assert!(logs.len() >= 10, "pydarshan ships its logs: {logs:?}");
    let (mut with_dxt, mut segments) = (0, 0);
    for log in &logs {
        let want = oracle(&py, log)["segments"].as_array().expect("segments").clone();
        match open_path(Path::new(log)) {
            Ok(input) => {
                let t = input.into_trace(log).unwrap();
                let got = weft_segments(&t);
                if !want.is_empty() {
                    with_dxt += 1;
                    segments += want.len();
                }
                assert_eq!(got.len(), want.len(), "{log}: segments");
                for (k, (g, w)) in got.iter().zip(&want).enumerate() {
                    assert_eq!(g, w, "{log}: segment {k}");
                }
            }
            // A log with neither DXT nor a closed POSIX file has nothing to show: said so, by name.
            Err(e @ ReadError::Empty { .. }) => {
                assert!(want.is_empty(), "{log}: {e}");
                assert!(e.to_string().contains(log.as_str()));
            }
            Err(e) => panic!("{log}: {e}"),
        }
    }
    assert!(with_dxt >= 2, "logs with DXT: {with_dxt}");
    eprintln!("darshan oracle: {} logs, {with_dxt} with DXT, {segments} segments agree", logs.len());
}
