//! Issue #53's proof, "Paraver, MPE and Nsight MPI traces agree with their OTF2 twins": every MPI run of
//! tests/oracle/waits_scenarios.py is written twice, as an OTF2 archive (the official writer) and as the Paraver
//! trace Extrae would write for it (twin.prv/.pcf/.row: MPI calls as events, each message one communication
//! record with its logical receive = the posting, each collective member a global communication record with its
//! communicator and root), and `weft waits --json` must say the same of both: every pattern's totals,
//! instances, per-location and per-region times, the total, and the root causes, locations matched by name
//! (`weft moments --json`; the Paraver reader numbers threads as their records first appear).
//!
//! Twins that still disagree are listed in [`KNOWN`] with the side that is wrong by the definitions; they are
//! printed, not asserted, so that the list says what is left to fix. MPE and Nsight twins are not written: weft's
//! MPE readers give a message no posting time (an MPI_Irecv posted late is not seen) and MPE logs no collective
//! membership (states only), so only late senders and blocking-receive late receivers could agree; weft's
//! Nsight Systems reader keeps MPI calls as ranges and no point-to-point messages, so nothing could. Runs when
//! WEFT_PYTHON names a python with the `otf2` package; otherwise prints SKIPPED.

use crate::common::TempDir;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Scenarios whose twins are known to disagree, and why (which reader is wrong by the definitions).
const KNOWN: &[(&str, &str)] = &[];

fn python(test: &str) -> Option<String> {
    match std::env::var("WEFT_PYTHON") {
        Ok(p) if !p.is_empty() => Some(p),
        _ => {
            eprintln!("SKIPPED {test}: WEFT_PYTHON is not set (point it to a python with the `otf2` package)");
            None
        }
    }
}

fn weft(args: &[&str], path: &Path) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_weft")).args(args).arg(path).arg("--json").output().expect("run weft");
    assert!(out.status.success(), "weft {args:?} {}: {}", path.display(), String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("stdout is JSON")
}

/// Location names by location index, from `weft moments --json`.
fn location_names(path: &Path) -> BTreeMap<u64, String> {
    let v = weft(&["moments"], path);
    v.as_array()
        .expect("a list")
        .iter()
        .map(|r| (r["location"].as_u64().expect("location"), r["name"].as_str().expect("name").to_string()))
        .collect()
}

/// `report` with its location indices renamed by `map` (per_location reordered, root causes' locations
/// renamed and the list sorted again), so two readers' numberings compare.
fn renumbered(report: &Value, map: &[usize]) -> Value {
    let mut r = report.clone();
    for (_, p) in r["patterns"].as_object_mut().expect("patterns").iter_mut() {
        let per = p["per_location"].as_array().expect("per_location").clone();
        let mut out = vec![Value::from(0u64); per.len()];
        for (i, v) in per.into_iter().enumerate() {
            out[map[i]] = v;
        }
        p["per_location"] = Value::from(out);
    }
    let mut causes = r["root_causes"].as_array().expect("root_causes").clone();
    for c in &mut causes {
        for key in ["waiting_location", "causing_location"] {
            let l = c[key].as_u64().expect("location") as usize;
            c[key] = Value::from(map[l] as u64);
        }
    }
    causes.sort_by_key(|c| {
        (
            std::cmp::Reverse(c["ns"].as_u64()),
            c["pattern"].as_str().map(str::to_string),
            c["waiting_location"].as_u64(),
            c["causing_location"].as_u64(),
            c["name"].as_str().map(str::to_string),
        )
    });
    r["root_causes"] = Value::from(causes);
    r
}

fn differences(name: &str, otf2: &Value, prv: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for (key, p) in otf2["patterns"].as_object().expect("patterns") {
        if p != &prv["patterns"][key] {
            out.push(format!("{name}: {key}: OTF2 {p} Paraver {}", prv["patterns"][key]));
        }
    }
    for key in ["total_wait_ns", "root_causes"] {
        if otf2[key] != prv[key] {
            out.push(format!("{name}: {key}: OTF2 {} Paraver {}", otf2[key], prv[key]));
        }
    }
    out
}

#[test]
fn paraver_twins_agree_with_their_otf2_runs() {
    let test = "paraver_twins_agree_with_their_otf2_runs";
    let Some(py) = python(test) else { return };
    let dir = TempDir::new("waits-twins");
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/waits_scenarios.py");
    let out = Command::new(&py).arg(script).arg(dir.path()).output().expect("run python");
    assert!(out.status.success(), "waits_scenarios.py failed: {}", String::from_utf8_lossy(&out.stderr));
    let names = String::from_utf8(out.stdout).expect("utf8");
    let mut problems = Vec::new();
    let (mut compared, mut waits_seen) = (0, 0);
    for name in names.lines() {
        let (otf2, prv) = (dir.join(name).join("traces.otf2"), dir.join(name).join("twin.prv"));
        let (otf2_names, prv_names) = (location_names(&otf2), location_names(&prv));
        assert_eq!(
            otf2_names.values().collect::<std::collections::BTreeSet<_>>(),
            prv_names.values().collect::<std::collections::BTreeSet<_>>(),
            "{name}: the twins have the same locations"
        );
        let index: BTreeMap<&String, usize> = otf2_names.iter().map(|(&l, n)| (n, l as usize)).collect();
        let map: Vec<usize> = prv_names.values().map(|n| index[n]).collect();
        let a = weft(&["waits"], &otf2);
        let b = renumbered(&weft(&["waits"], &prv), &map);
        let found = differences(name, &a, &b);
        match KNOWN.iter().find(|k| k.0 == name) {
            Some((_, why)) if found.is_empty() => {
                eprintln!("{name}: the twins now agree; remove it from KNOWN ({why})")
            }
            Some((_, why)) => eprintln!("KNOWN DISAGREEMENT {name}: {why}:\n  {}", found.join("\n  ")),
            None => {
                problems.extend(found);
                compared += 1;
                waits_seen += a["total_wait_ns"].as_u64().expect("total");
            }
        }
    }
    assert!(compared >= 9 && waits_seen > 0, "twins compared: {compared}, with {waits_seen} ns of waiting");
    assert!(problems.is_empty(), "{} disagreements:\n{}", problems.len(), problems.join("\n"));
}
