//! Several OTF2 archives or Perfetto traces as one run (issue #57), end to end: Perfetto traces written by
//! Perfetto's own protos (tests/oracle/perfetto_traces.py's rank_K scenarios, each saying its slices and its
//! REALTIME-minus-BOOTTIME base by construction) merged with every slice at its file's time plus its base;
//! `weft info A B C` and `weft info DIR/` on generated OTF2 archives with OTF2 3.0 real times and on those
//! Perfetto traces, the header saying how many ranks were merged and how the clocks were aligned; files that
//! are not one run refused naming the file. The Python half runs when WEFT_PYTHON names a python with the
//! `perfetto` package; otherwise it prints SKIPPED.

use crate::common::TempDir;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use weft::model::Trace;
use weft::samples::otf2_gen::{archive, GenConfig};

fn python(test: &str) -> Option<String> {
    match std::env::var("WEFT_PYTHON") {
        Ok(p) if !p.is_empty() => Some(p),
        _ => {
            eprintln!("SKIPPED {test}: WEFT_PYTHON is not set (point it to a python with the `perfetto` package)");
            None
        }
    }
}

fn weft(args: &[&std::ffi::OsStr]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_weft")).args(args).output().expect("run weft")
}

fn info_json(paths: &[&Path]) -> Value {
    let mut args: Vec<&std::ffi::OsStr> = vec!["info".as_ref()];
    args.extend(paths.iter().map(|p| p.as_os_str()));
    args.push("--json".as_ref());
    let out = weft(&args);
    assert!(out.status.success(), "weft info failed: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("JSON")
}

fn info_text(paths: &[&Path]) -> (bool, String, String) {
    let mut args: Vec<&std::ffi::OsStr> = vec!["info".as_ref()];
    args.extend(paths.iter().map(|p| p.as_os_str()));
    let out = weft(&args);
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// (rank, region, absolute start, duration) of every interval, sorted.
fn slices(t: &Trace) -> Vec<(i64, String, i64, u64)> {
    let iv = &t.intervals;
    let mut out: Vec<_> = (0..iv.len())
        .map(|i| {
            let p = t.locations.process[iv.location[i].index()];
            (
                t.processes.native_id[p.index()],
                t.region_name(iv.region[i]).to_string(),
                t.origin_ns + iv.start_ns[i] as i64,
                iv.dur_ns[i],
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn perfetto_written_traces_of_a_run_line_up_on_their_clock_snapshots() {
    let Some(py) = python("perfetto_written_traces_of_a_run_line_up_on_their_clock_snapshots") else { return };
    let dir = TempDir::new("pftrace-ranks");
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/perfetto_traces.py");
    let names = ["rank_0", "rank_1", "rank_2", "rank_plain_0", "rank_plain_1", "rank_plain_2"];
    let out = Command::new(&py).arg(&script).arg(dir.path()).args(names).output().expect("run python");
    assert!(out.status.success(), "perfetto_traces.py failed: {}", String::from_utf8_lossy(&out.stderr));
    for plain in [false, true] {
        let run = dir.path().join(if plain { "plain" } else { "real" });
        std::fs::create_dir_all(&run).unwrap();
        let mut paths = Vec::new();
        let mut want = Vec::new();
        let mut wants = Vec::new();
        for k in 0..3 {
            let name = if plain { format!("rank_plain_{k}") } else { format!("rank_{k}") };
            let to = run.join(format!("{name}.pftrace"));
            std::fs::rename(dir.path().join(format!("{name}.pftrace")), &to).unwrap();
            let expected: Value =
                serde_json::from_slice(&std::fs::read(dir.path().join(format!("{name}.json"))).unwrap()).unwrap();
            paths.push(to);
            wants.push(expected);
        }
        let merged = weft::readers::open_path(&run).unwrap().into_trace("run").unwrap();
        // With bases: each slice at its ts plus its file's base. Without: each file's first event at the run's
        // start (its earliest slice or instant, as Python built them).
        for (k, expected) in wants.iter().enumerate() {
            let first = expected["slices"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s[4].as_i64().unwrap())
                .chain(expected["instants"].as_array().unwrap().iter().map(|i| i[3].as_i64().unwrap()))
                .min()
                .unwrap();
            let shift = match expected["realtime_base"].as_i64() {
                Some(base) => base,
                None => merged.origin_ns - first,
            };
            assert_eq!(expected["realtime_base"].is_null(), plain);
            for s in expected["slices"].as_array().unwrap() {
                let name = s[2].as_str().unwrap().to_string();
                want.push((k as i64, name, s[4].as_i64().unwrap() + shift, s[5].as_u64().unwrap()));
            }
        }
        want.sort();
        assert_eq!(slices(&merged), want, "plain {plain}");
        // The CLI, the folder and the files named one by one: the same run, the header saying how.
        let folder = info_json(&[&run]);
        let refs: Vec<&Path> = paths.iter().map(PathBuf::as_path).collect();
        let files = info_json(&refs);
        assert_eq!(folder["intervals"], want.len(), "{folder}");
        assert_eq!(folder["processes"], 3);
        assert_eq!(files["intervals"], folder["intervals"]);
        let (ok, text, err) = info_text(&refs);
        assert!(ok, "{err}");
        let how = if plain {
            "clocks aligned by first event (each trace's first event at the start)"
        } else {
            "clocks aligned by each trace's clock snapshot (REALTIME beside the trace clock)"
        };
        assert!(text.contains(&format!("3 ranks merged (3 Perfetto traces, each a rank); {how}")), "{text}");
    }
}

/// Three generated OTF2 archives (2, 3 and 2 ranks) with OTF2 3.0 real times 4 ms apart, a folder each.
fn otf2_run(dir: &TempDir) -> Vec<PathBuf> {
    [(2u32, 1u64), (3, 2), (2, 3)]
        .iter()
        .enumerate()
        .map(|(k, &(ranks, seed))| {
            let real = 1_700_000_000_000_000_000 + 4_000_000 * k as u64;
            let cfg = GenConfig { seed, realtime_ns: Some(real), ..GenConfig::new(ranks, 4_000) };
            let sub = format!("job{k}");
            for (path, bytes) in archive(&cfg).0.files {
                dir.put(&format!("{sub}/{path}"), &bytes);
            }
            dir.path().join(sub)
        })
        .collect()
}

#[test]
fn weft_info_merges_otf2_archives_given_as_a_folder_or_one_by_one() {
    let dir = TempDir::new("otf2-ranks");
    let archives = otf2_run(&dir);
    let mut want_intervals = 0u64;
    let mut want_messages = 0u64;
    let mut locations = 0u64;
    let mut shifted = Vec::new();
    for (k, a) in archives.iter().enumerate() {
        let alone = info_json(&[a]);
        want_intervals += alone["intervals"].as_u64().unwrap();
        want_messages += alone["messages"].as_u64().unwrap();
        locations += alone["locations"].as_u64().unwrap();
        // Each archive's intervals at their real time: its own times plus its base.
        let t = weft::readers::open_path(a).unwrap().into_trace("a").unwrap();
        let real = 1_700_000_000_000_000_000 + 4_000_000 * k as i64;
        shifted.extend(slices(&t).into_iter().map(|(_, r, s, d)| (k as i64, r, s + real, d)));
    }
    shifted.sort();
    let folder = info_json(&[dir.path()]);
    let refs: Vec<&Path> = archives.iter().map(PathBuf::as_path).collect();
    let one_by_one = info_json(&refs);
    for v in [&folder, &one_by_one] {
        assert_eq!(v["format"], "otf2", "{v}");
        assert_eq!(v["processes"], 3, "{v}");
        assert_eq!(v["locations"], locations, "{v}");
        assert_eq!(v["intervals"], want_intervals, "{v}");
        assert_eq!(v["messages"], want_messages, "{v}");
    }
    let merged = weft::readers::open_path(dir.path()).unwrap().into_trace("run").unwrap();
    assert_eq!(slices(&merged), shifted);
    let (ok, text, err) = info_text(&[dir.path()]);
    assert!(ok, "{err}");
    assert!(
        text.contains(
            "3 ranks merged (3 OTF2 archives, each a rank); clocks aligned by each archive's realtimeTimestamp"
        ),
        "{text}"
    );
}

#[test]
fn files_that_are_not_one_run_are_refused_naming_the_file() {
    let dir = TempDir::new("mixed-run");
    let archives = otf2_run(&dir);
    let json = dir.put("trace.json", br#"{"traceEvents":[{"name":"a","ph":"X","ts":1,"dur":2,"pid":1,"tid":1}]}"#);
    let (ok, _, err) = info_text(&[&archives[0], &json]);
    assert!(!ok);
    assert!(err.contains("trace.json: it is Chrome JSON, but") && err.contains("is an OTF2 archive"), "{err}");
    // An archive without its definitions: named.
    std::fs::remove_file(archives[1].join("traces.def")).unwrap();
    let (ok, _, err) = info_text(&[dir.path()]);
    assert!(!ok);
    assert!(err.contains("job1"), "{err}");
}
