//! `weft critical-path` and `weft whatif` end to end: their `--json` keys (stable: scripts rely on them), the
//! path's length equal to the span, whatif at scale 1.0 predicting the recorded span, on a run `weft generate
//! otf2` writes and on the shared OTF2 traces (skipped with a SKIPPED line where ../shared/traces is absent);
//! and the errors: an unknown region named, a bad factor, a store refused.

use crate::common::{shared_traces, TempDir};
use std::path::Path;
use std::process::{Command, Output};

fn weft(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_weft")).args(args).output().expect("run weft")
}

fn json(out: &Output) -> serde_json::Value {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("stdout is JSON")
}

fn keys(v: &serde_json::Value) -> Vec<&str> {
    let mut k: Vec<&str> = v.as_object().expect("an object").keys().map(|k| k.as_str()).collect();
    k.sort_unstable();
    k
}

/// The keys of `weft critical-path --json` (and of whatif's `critical_path`), and their sums.
fn check_path(v: &serde_json::Value, span: u64) {
    assert_eq!(keys(v), ["by_location", "by_region", "imbalance", "length_ns"]);
    assert_eq!(v["length_ns"].as_u64(), Some(span), "the path's length is the span");
    let sum =
        |key: &str| -> u64 { v[key].as_array().expect("a list").iter().map(|r| r["ns"].as_u64().expect("ns")).sum() };
    for key in ["by_region", "imbalance"] {
        for r in v[key].as_array().expect("a list") {
            assert_eq!(keys(r), ["name", "ns"]);
        }
    }
    assert_eq!(sum("by_region"), span);
    let by_location: u64 = v["by_location"].as_array().expect("a list").iter().map(|x| x.as_u64().expect("ns")).sum();
    assert_eq!(by_location, span);
}

fn span_of(trace: &str) -> u64 {
    json(&weft(&["info", trace, "--json"]))["span_ns"].as_u64().expect("span_ns")
}

/// Both commands' JSON on one trace; `region` is one of its regions, scaled at 1.0 and at 0.5.
fn check_trace(trace: &str, region: &str) {
    let span = span_of(trace);
    let path = json(&weft(&["critical-path", trace, "--json"]));
    check_path(&path, span);
    let scale = format!("{region}=1.0");
    let w = json(&weft(&["whatif", trace, "--scale", &scale, "--json"]));
    assert_eq!(keys(&w), ["critical_path", "predicted_span_ns", "recorded_span_ns"]);
    assert_eq!(w["recorded_span_ns"].as_u64(), Some(span));
    assert_eq!(w["predicted_span_ns"].as_u64(), Some(span), "{trace}: scale 1.0 reproduces the span");
    check_path(&w["critical_path"], span);
    let half = format!("{region}=0.5");
    let w = json(&weft(&["whatif", trace, "--scale", &half, "--json"]));
    let predicted = w["predicted_span_ns"].as_u64().expect("predicted");
    assert!(predicted <= span, "{trace}: {region} at 0.5 never lengthens the run");
    check_path(&w["critical_path"], predicted);
    // The text names what it shows.
    let text = weft(&["whatif", trace, "--scale", &half]);
    assert!(text.status.success());
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("predicted span") && text.contains("critical path"), "{text}");
    let text = weft(&["critical-path", trace]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("by region") && text.contains("imbalance"), "{text}");
}

#[test]
fn critical_path_and_whatif_on_a_generated_run() {
    let dir = TempDir::new("critical-path-cli");
    let out = dir.join("run");
    let o = out.to_str().expect("utf-8 path");
    let gen = weft(&["generate", "otf2", "-o", o, "--ranks", "4", "--events", "20000"]);
    assert!(gen.status.success(), "{}", String::from_utf8_lossy(&gen.stderr));
    let trace = out.join("traces.otf2");
    let trace = trace.to_str().expect("utf-8 path");
    check_trace(trace, "compute");
    // compute is on the generated run's path: halving it shortens the run.
    let w = json(&weft(&["whatif", trace, "--scale", "compute=0.5", "--scale", "stencil=0.5", "--json"]));
    assert!(w["predicted_span_ns"].as_u64() < w["recorded_span_ns"].as_u64(), "{w}");

    // Errors: the unknown names, all of them; a factor that is no number >= 0; a store.
    let bad = weft(&["whatif", trace, "--scale", "nosuch=0.5", "--scale", "compute=0.5", "--scale", "other=2"]);
    assert!(!bad.status.success());
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(err.contains("no region named 'nosuch', 'other'"), "{err}");
    for factor in ["compute=-1", "compute=x", "compute"] {
        let bad = weft(&["whatif", trace, "--scale", factor]);
        assert!(!bad.status.success());
        assert!(String::from_utf8_lossy(&bad.stderr).contains("--scale"), "{factor}");
    }
    let store = dir.join("store");
    let s = store.to_str().expect("utf-8 path");
    let index = weft(&["index", trace, "-o", s]);
    assert!(index.status.success(), "{}", String::from_utf8_lossy(&index.stderr));
    // The what-if replays a trace; a store's critical path is kept only by `weft index --waits`.
    for (cmd, says) in [
        (&["whatif", s, "--scale", "compute=0.5"][..], "a store folder"),
        (&["critical-path", s][..], "indexed without --waits (no critical path stored): run weft index --waits"),
    ] {
        let refused = weft(cmd);
        assert!(!refused.status.success());
        assert!(String::from_utf8_lossy(&refused.stderr).contains(says), "{cmd:?}");
    }
}

#[test]
fn critical_path_and_whatif_on_the_shared_otf2_traces() {
    let Some(dir) = shared_traces("critical_path_and_whatif_on_the_shared_otf2_traces") else { return };
    for (name, region) in [
        ("pipit-ping-pong-mpi", "MPI_Send"),
        ("pipit-ping-pong-mpi-papi", "MPI_Send"),
        ("tracer-stencil4d-mpi-32", "MPI_Barrier"),
    ] {
        let anchor = dir.join("otf2").join(name).join("traces.otf2");
        if !Path::new(&anchor).exists() {
            eprintln!("SKIPPED {name}: {} is absent", anchor.display());
            continue;
        }
        check_trace(anchor.to_str().expect("utf-8 path"), region);
    }
}
