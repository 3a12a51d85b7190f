//! `weft waits --json` held to issue #53's definitions two ways: on MPI runs written by the official OTF2 writer
//! with their wait states known by construction (tests/oracle/waits_scenarios.py writes each run and its
//! expected.json), and against an independent implementation of the definitions over the official OTF2 reader
//! (tests/oracle/waits_oracle.py) on those runs and on every OTF2 archive under ../shared/traces/otf2.
//!
//! Agreement is exact: every pattern's total_ns, instances, per_location and by_region, and total_wait_ns; the
//! root causes where the oracle implements them (`waits_oracle.py --covered` says what it implements; the
//! patterns it leaves out are compared with the construction only). per_location's order is checked against
//! `weft moments --json`. Runs where weft is known to be wrong are listed in [`KNOWN`]. Runs when WEFT_PYTHON
//! names a python with the `otf2` package; otherwise prints SKIPPED.

use crate::common::{self, TempDir};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs on which weft is known to disagree with the construction and the oracle, and why (where weft is wrong by
/// the definitions): printed, not asserted, so that the list says what is left to fix.
const KNOWN: &[(&str, &str)] = &[];

const PATTERNS: [&str; 10] = [
    "late_sender",
    "late_receiver",
    "wait_at_barrier",
    "wait_at_nxn",
    "late_broadcast",
    "early_reduce",
    "omp_barrier",
    "nccl_collective",
    "gpu_synchronize",
    "thread_wait",
];

fn python(test: &str) -> Option<String> {
    match std::env::var("WEFT_PYTHON") {
        Ok(p) if !p.is_empty() => Some(p),
        _ => {
            eprintln!("SKIPPED {test}: WEFT_PYTHON is not set (point it to a python with the `otf2` package)");
            None
        }
    }
}

fn script(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/oracle").join(name)
}

fn json_of(what: &str, out: std::process::Output) -> Value {
    assert!(out.status.success(), "{what} failed: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{what}: stdout is not JSON: {e}"))
}

fn weft(args: &[&str], anchor: &Path) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_weft")).args(args).arg(anchor).arg("--json").output().expect("run weft");
    json_of(&format!("weft {} {}", args.join(" "), anchor.display()), out)
}

fn oracle(py: &str, args: &[&str], anchor: &Path) -> Value {
    let out = Command::new(py).arg(script("waits_oracle.py")).args(args).arg(anchor).output().expect("run python");
    json_of(&format!("waits_oracle.py {} {}", args.join(" "), anchor.display()), out)
}

/// What the oracle implements: pattern keys, and "root_causes" when it computes them.
fn covered(py: &str) -> Vec<String> {
    let out = Command::new(py).arg(script("waits_oracle.py")).arg("--covered").output().expect("run python");
    let v = json_of("waits_oracle.py --covered", out);
    v.as_array().expect("a list").iter().map(|k| k.as_str().expect("a key").to_string()).collect()
}

/// Every way `got` differs from `want` in `patterns` (each field named, per_location by location), and in the
/// total over those patterns: empty when they agree.
fn differences(label: &str, want: &Value, got: &Value, patterns: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    let total =
        |v: &Value| -> u64 { patterns.iter().map(|p| v["patterns"][p]["total_ns"].as_u64().unwrap_or(0)).sum() };
    for p in patterns {
        let (w, g) = (&want["patterns"][p], &got["patterns"][p]);
        if g.is_null() {
            out.push(format!("{label}: {p}: missing"));
            continue;
        }
        for field in ["total_ns", "instances", "by_region"] {
            if w[field] != g[field] {
                out.push(format!("{label}: {p}.{field}: expected {} got {}", w[field], g[field]));
            }
        }
        let (wl, gl) = (w["per_location"].as_array(), g["per_location"].as_array());
        match (wl, gl) {
            (Some(wl), Some(gl)) if wl.len() == gl.len() => {
                for (l, (a, b)) in wl.iter().zip(gl).enumerate() {
                    if a != b {
                        out.push(format!("{label}: {p}.per_location[{l}]: expected {a} got {b}"));
                    }
                }
            }
            _ => {
                out.push(format!("{label}: {p}.per_location: expected {} got {}", w["per_location"], g["per_location"]))
            }
        }
    }
    if total(want) != total(got) {
        out.push(format!(
            "{label}: total over {} patterns: expected {} got {}",
            patterns.len(),
            total(want),
            total(got)
        ));
    }
    out
}

/// The report's own total is the sum of its patterns' totals.
fn total_is_the_sum(label: &str, v: &Value) -> Option<String> {
    let sum: u64 = PATTERNS.iter().map(|p| v["patterns"][p]["total_ns"].as_u64().unwrap_or(0)).sum();
    (v["total_wait_ns"].as_u64() != Some(sum))
        .then(|| format!("{label}: total_wait_ns {} is not the patterns' sum {sum}", v["total_wait_ns"]))
}

/// per_location is indexed as `weft moments --json` lists the locations: the oracle's order (OTF2 location
/// definitions) names the same locations in the same order.
fn location_order(py: &str, anchor: &Path) -> Option<String> {
    let names = oracle(py, &["--locations"], anchor);
    let moments = weft(&["moments"], anchor);
    let rows = moments.as_array().expect("moments is a list");
    let mut by_location: Vec<(u64, &Value)> =
        rows.iter().map(|r| (r["location"].as_u64().expect("location"), &r["name"])).collect();
    by_location.sort_by_key(|r| r.0);
    let got: Vec<&Value> = by_location.iter().map(|r| r.1).collect();
    let want: Vec<&Value> = names.as_array().expect("a list").iter().collect();
    // moments lists the locations with intervals; each must sit at the index the oracle gives it.
    let misplaced: Vec<String> = by_location
        .iter()
        .filter(|(l, name)| want.get(*l as usize) != Some(name))
        .map(|(l, name)| format!("{name} at {l}"))
        .collect();
    (!misplaced.is_empty() || got.is_empty())
        .then(|| format!("{}: locations out of the oracle's order: {misplaced:?} (oracle: {want:?})", anchor.display()))
}

#[test]
fn waits_agree_with_runs_known_by_construction_and_with_the_oracle() {
    let test = "waits_agree_with_runs_known_by_construction_and_with_the_oracle";
    let Some(py) = python(test) else { return };
    let dir = TempDir::new("waits-scenarios");
    let out = Command::new(&py).arg(script("waits_scenarios.py")).arg(dir.path()).output().expect("run python");
    assert!(out.status.success(), "waits_scenarios.py failed: {}", String::from_utf8_lossy(&out.stderr));
    let names = String::from_utf8(out.stdout).expect("utf8");
    let names: Vec<&str> = names.lines().collect();
    assert!(names.len() >= 12, "scenarios written: {names:?}");
    let covered = covered(&py);
    let covered_patterns: Vec<&str> = PATTERNS.iter().copied().filter(|p| covered.iter().any(|c| c == p)).collect();
    let mut problems = Vec::new();
    let mut waits_seen = 0;
    for name in &names {
        let run = dir.join(name);
        let anchor = run.join("traces.otf2");
        let expected: Value =
            serde_json::from_slice(&std::fs::read(run.join("expected.json")).expect("expected.json")).expect("json");
        let got = weft(&["waits"], &anchor);
        let by_oracle = oracle(&py, &[], &anchor);
        // The oracle against the construction first: a wrong oracle must not pass for a wrong weft.
        problems.extend(differences(
            &format!("{name} (oracle vs construction)"),
            &expected,
            &by_oracle,
            &covered_patterns,
        ));
        let mut found = differences(&format!("{name} (weft vs construction)"), &expected, &got, &PATTERNS);
        found.extend(differences(&format!("{name} (weft vs oracle)"), &by_oracle, &got, &covered_patterns));
        if expected["total_wait_ns"] != got["total_wait_ns"] {
            found.push(format!(
                "{name}: total_wait_ns: expected {} got {}",
                expected["total_wait_ns"], got["total_wait_ns"]
            ));
        }
        found.extend(total_is_the_sum(name, &got));
        if covered.iter().any(|c| c == "root_causes") && by_oracle["root_causes"] != got["root_causes"] {
            found.push(format!("{name}: root_causes: oracle {} weft {}", by_oracle["root_causes"], got["root_causes"]));
        }
        match KNOWN.iter().find(|k| k.0 == *name) {
            Some((_, why)) if found.is_empty() => eprintln!("{name}: weft now agrees; remove it from KNOWN ({why})"),
            Some((_, why)) => eprintln!("KNOWN DISAGREEMENT {name}: {why}:\n  {}", found.join("\n  ")),
            None => problems.extend(found),
        }
        problems.extend(location_order(&py, &anchor));
        waits_seen += expected["total_wait_ns"].as_u64().expect("total") as usize;
    }
    assert!(waits_seen > 0, "the runs have waits to find");
    assert!(problems.is_empty(), "{} disagreements:\n{}", problems.len(), problems.join("\n"));
}

#[test]
fn waits_agree_with_the_oracle_on_the_shared_otf2_archives() {
    let test = "waits_agree_with_the_oracle_on_the_shared_otf2_archives";
    let Some(py) = python(test) else { return };
    let Some(root) = common::shared_traces(test) else { return };
    let mut anchors: Vec<PathBuf> =
        common::files_under(&root.join("otf2")).into_iter().filter(|p| p.ends_with("traces.otf2")).collect();
    anchors.sort();
    if anchors.is_empty() {
        eprintln!("SKIPPED {test}: no OTF2 archive under {}", root.join("otf2").display());
        return;
    }
    let waits_seen = agree_with_the_oracle(&py, &anchors);
    assert!(waits_seen > 0, "the shared archives have waits");
}

/// `weft waits --json` against the oracle on each archive (the patterns and root causes it implements, per_location's
/// order); panics listing every disagreement. Returns the waiting the oracle found in all.
fn agree_with_the_oracle(py: &str, anchors: &[PathBuf]) -> u64 {
    let covered = covered(py);
    let covered_patterns: Vec<&str> = PATTERNS.iter().copied().filter(|p| covered.iter().any(|c| c == p)).collect();
    let mut problems = Vec::new();
    let mut waits_seen = 0;
    for anchor in anchors {
        let label =
            anchor.parent().and_then(|p| p.file_name()).map_or("?".into(), |n| n.to_string_lossy().into_owned());
        let got = weft(&["waits"], anchor);
        let by_oracle = oracle(py, &[], anchor);
        problems.extend(differences(&label, &by_oracle, &got, &covered_patterns));
        problems.extend(total_is_the_sum(&label, &got));
        for p in PATTERNS.iter().filter(|p| !covered_patterns.contains(p)) {
            let n = got["patterns"][p]["total_ns"].as_u64().unwrap_or(0);
            if n > 0 {
                eprintln!("{label}: weft finds {n} ns of {p}, which the oracle does not implement (not compared)");
            }
        }
        if covered.iter().any(|c| c == "root_causes") && by_oracle["root_causes"] != got["root_causes"] {
            problems
                .push(format!("{label}: root_causes: oracle {} weft {}", by_oracle["root_causes"], got["root_causes"]));
        }
        problems.extend(location_order(py, anchor));
        waits_seen += by_oracle["total_wait_ns"].as_u64().expect("total");
    }
    assert!(problems.is_empty(), "{} disagreements:\n{}", problems.len(), problems.join("\n"));
    waits_seen
}

/// Archives of `weft generate otf2` (weft's own writer: ring messages, barriers and allreduces, nested regions),
/// with nanosecond ticks and with a cycle counter's rate (each time converted at every event).
#[test]
fn waits_agree_with_the_oracle_on_generated_archives() {
    let test = "waits_agree_with_the_oracle_on_generated_archives";
    let Some(py) = python(test) else { return };
    let dir = TempDir::new("waits-generated");
    let mut anchors = Vec::new();
    for (ranks, resolution) in [(6u32, 1_000_000_000u64), (9, 2_095_197_216)] {
        let out = dir.join(format!("gen-{ranks}-{resolution}"));
        let status = Command::new(env!("CARGO_BIN_EXE_weft"))
            .args(["generate", "otf2", "--events", "40000", "--ranks", &ranks.to_string()])
            .args(["--resolution", &resolution.to_string(), "--out"])
            .arg(&out)
            .output()
            .expect("run weft generate");
        assert!(status.status.success(), "weft generate: {}", String::from_utf8_lossy(&status.stderr));
        anchors.push(out.join("traces.otf2"));
    }
    let waits_seen = agree_with_the_oracle(&py, &anchors);
    assert!(waits_seen > 0, "the generated runs have waits");
}
