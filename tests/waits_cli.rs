//! `weft waits --json` on the real OTF2 archives of ../shared/traces (skipped with a SKIPPED line where that
//! folder is absent): every pattern of issue #53 present with its stable keys, one `per_location` entry per
//! location, each total the sum of its locations and of its regions, `total_wait_ns` the sum of the totals;
//! the report equal to the library's; a window only ever takes away. And the posting time of a receive, which
//! late receiver needs: on the stencil (MPI_Irecv, then MPI_Waitall) each message's posting lies in the
//! MPI_Irecv that made its request, before its completion.

use crate::common;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use weft::analyses::diagnosis::calls::{OpLookup, Tie};
use weft::analyses::diagnosis::waits::{wait_report, wait_states, Pattern};
use weft::readers::open_path;

/// The anchor files of the OTF2 archives in ../shared/traces/otf2.
fn archives(test: &str) -> Option<Vec<PathBuf>> {
    let dir = common::shared_traces(test)?.join("otf2");
    let mut out: Vec<PathBuf> =
        std::fs::read_dir(&dir).ok()?.flatten().map(|e| e.path().join("traces.otf2")).filter(|p| p.is_file()).collect();
    out.sort();
    if out.is_empty() {
        eprintln!("SKIPPED {test}: no OTF2 archive under {}", dir.display());
        return None;
    }
    Some(out)
}

fn waits_json(path: &Path, extra: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_weft")).arg("waits").arg(path).arg("--json").args(extra).output();
    let out = out.expect("run weft");
    assert!(out.status.success(), "weft waits {}: {}", path.display(), String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("JSON output")
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a count: {v}"))
}

#[test]
fn waits_json_keys_and_sums_on_the_real_otf2_archives() {
    let Some(archives) = archives("waits_json_keys_and_sums_on_the_real_otf2_archives") else { return };
    for path in archives {
        let trace = open_path(&path).unwrap().into_trace(&path.display().to_string()).unwrap();
        let locations = trace.locations.len();
        let got = waits_json(&path, &[]);
        let keys: Vec<&str> = got.as_object().unwrap().keys().map(|k| k.as_str()).collect();
        assert_eq!(keys, ["patterns", "root_causes", "total_wait_ns"], "{}", path.display());
        let patterns = got["patterns"].as_object().unwrap();
        assert_eq!(patterns.len(), Pattern::ALL.len());
        let mut sum = 0;
        for p in Pattern::ALL {
            let t = &patterns[p.key()];
            let keys: Vec<&str> = t.as_object().unwrap().keys().map(|k| k.as_str()).collect();
            assert_eq!(keys, ["by_region", "instances", "per_location", "total_ns"], "{}", p.key());
            let per_location = t["per_location"].as_array().unwrap();
            assert_eq!(per_location.len(), locations, "{}: one entry per location", p.key());
            let total = u(&t["total_ns"]);
            assert_eq!(per_location.iter().map(u).sum::<u64>(), total, "{} {}", path.display(), p.key());
            let regions = t["by_region"].as_array().unwrap();
            assert_eq!(regions.iter().map(|r| u(&r["ns"])).sum::<u64>(), total, "{}", p.key());
            assert!(regions.iter().all(|r| r["name"].is_string()));
            assert!(regions.windows(2).all(|w| u(&w[0]["ns"]) >= u(&w[1]["ns"])), "by ns descending");
            assert_eq!(u(&t["instances"]) == 0, total == 0, "{}", p.key());
            sum += total;
        }
        assert_eq!(u(&got["total_wait_ns"]), sum);
        for c in got["root_causes"].as_array().unwrap() {
            let keys: Vec<&str> = c.as_object().unwrap().keys().map(|k| k.as_str()).collect();
            assert_eq!(keys, ["causing_location", "name", "ns", "pattern", "waiting_location"]);
            assert!(Pattern::from_key(c["pattern"].as_str().unwrap()).is_some());
            assert!(u(&c["ns"]) > 0 && (u(&c["waiting_location"]) as usize) < locations);
        }
        // A wait's root causes share its time: per pattern and waiting location, no more than it waited.
        let mut caused: std::collections::HashMap<(String, u64), u64> = Default::default();
        for c in got["root_causes"].as_array().unwrap() {
            *caused.entry((c["pattern"].as_str().unwrap().into(), u(&c["waiting_location"]))).or_default() +=
                u(&c["ns"]);
        }
        for ((p, l), ns) in caused {
            assert!(ns <= u(&patterns[&p]["per_location"][l as usize]), "{p} at {l}");
        }
        // The CLI prints the library's report.
        let states = wait_states(&trace);
        let want = serde_json::to_value(wait_report(&trace, &states, None)).unwrap();
        assert_eq!(got, want, "{}", path.display());
        // A window takes only what lies in it: the first half's and the second half's waiting add up.
        let half = trace.span_ns / 2;
        let a = waits_json(&path, &["--window", &format!("0:{half}")]);
        let b = waits_json(&path, &["--window", &format!("{half}:{}", trace.span_ns)]);
        assert_eq!(u(&a["total_wait_ns"]) + u(&b["total_wait_ns"]), sum, "{}", path.display());
        // The text output names every pattern.
        let out = Command::new(env!("CARGO_BIN_EXE_weft")).arg("waits").arg(&path).output().unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(out.status.success() && Pattern::ALL.iter().all(|p| text.contains(p.label())), "{text}");
    }
}

#[test]
fn the_stencil_waits_and_its_receives_are_posted_in_their_irecv() {
    let test = "the_stencil_waits_and_its_receives_are_posted_in_their_irecv";
    let Some(dir) = common::shared_traces(test) else { return };
    let path = dir.join("otf2/tracer-stencil4d-mpi-32/traces.otf2");
    if !path.is_file() {
        eprintln!("SKIPPED {test}: {} is absent", path.display());
        return;
    }
    let trace = open_path(&path).unwrap().into_trace(&path.display().to_string()).unwrap();
    let ops = OpLookup::new(&trace);
    let m = &trace.messages;
    assert_eq!(m.len(), 512);
    for i in 0..m.len() {
        let call = ops.op_at(m.receiver[i], m.posted_ns[i], Tie::Entered).expect("posted inside a call");
        assert_eq!(trace.region_name(trace.intervals.region[call]), "MPI_Irecv", "message {i}");
        assert!(m.posted_ns[i] < m.recv_ns[i], "message {i}: posted before it completes");
        let done = ops.op_at(m.receiver[i], m.recv_ns[i], Tie::Leaving).unwrap();
        assert_eq!(trace.region_name(trace.intervals.region[done]), "MPI_Waitall", "message {i}");
    }
    // The stencil waits: in its MPI_Waitall (late sender), in MPI_Send (late receiver), at its barriers.
    let r = wait_report(&trace, &wait_states(&trace), None);
    for p in ["late_sender", "wait_at_barrier"] {
        assert!(r.patterns[p].total_ns > 0, "{p}");
    }
    assert_eq!(r.patterns["late_sender"].by_region[0].name, "MPI_Waitall");
    for p in ["late_broadcast", "early_reduce", "wait_at_nxn"] {
        assert_eq!(r.patterns[p].total_ns, 0, "{p}: the stencil has none of those calls");
    }
}
