//! `weft diff` (issue #54) through the binary: a run compared with itself changes nothing anywhere; pairs of
//! OTF2 archives whose difference is known by construction (one region twice as slow on one thread; the same
//! work on 8 and on 16 threads, paired proportionally) give that difference and no other; and each side's
//! figures are what `weft info --json`, `weft moments --json` and `weft waits --json` print of that run
//! alone, over the whole run and over an aligned window. A store compares with the trace it was indexed
//! from (its waits are not known: null), and an OTF2 run with its Paraver twin (when WEFT_PYTHON is set).

use crate::common::TempDir;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use weft::samples::otf2_gen::{archive, GenConfig};
use weft::samples::otf2_regions::{code, Program, RegionSpec, Step};

fn weft(args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_weft")).args(args).output().expect("run weft");
    assert!(out.status.success(), "weft {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("weft {args:?}: not JSON: {e}"))
}

fn diff(a: &Path, b: &Path, more: &[&str]) -> Value {
    let (a, b) = (a.to_string_lossy(), b.to_string_lossy());
    let mut args = vec!["diff", &a, &b, "--json"];
    args.extend_from_slice(more);
    weft(&args)
}

fn write(dir: &TempDir, name: &str, files: &weft::readers::otf2::MemoryFiles) -> PathBuf {
    for (p, bytes) in &files.files {
        dir.put(&format!("{name}/{p}"), bytes);
    }
    dir.join(name).join("traces.otf2")
}

const EXCHANGE_NS: u64 = 50;

/// Threads of one process, each running `main` around `iterations` of `compute` (`compute_ns(thread)` long)
/// and `exchange` (50 ns), back to back from 0.
fn program(threads: usize, iterations: u64, compute_ns: impl Fn(usize) -> u64) -> Program {
    let region =
        |name: &str| RegionSpec { name: name.into(), role: code::ROLE_FUNCTION, paradigm: code::PARADIGM_USER };
    let (main, compute, exchange) = (0, 1, 2);
    let threads = (0..threads)
        .map(|t| {
            let c = compute_ns(t);
            let mut s = vec![Step::Enter(main, 0)];
            for k in 0..iterations {
                let at = k * (c + EXCHANGE_NS);
                s.extend([
                    Step::Enter(compute, at),
                    Step::Leave(compute, at + c),
                    Step::Enter(exchange, at + c),
                    Step::Leave(exchange, at + c + EXCHANGE_NS),
                ]);
            }
            s.push(Step::Leave(main, iterations * (c + EXCHANGE_NS)));
            s
        })
        .collect();
    Program { regions: vec![region("main"), region("compute"), region("exchange")], threads }
}

fn region<'v>(v: &'v Value, name: &str) -> &'v Value {
    v["regions"].as_array().expect("regions").iter().find(|r| r["name"] == name).unwrap_or_else(|| panic!("{name}"))
}

fn i(v: &Value) -> i64 {
    v.as_i64().unwrap_or_else(|| panic!("an integer: {v}"))
}

/// Every delta of `v` is zero (regions, locations, matrix, waits) and the sides agree.
fn assert_no_change(v: &Value, waits_known: bool) {
    assert_eq!(v["span_ns"]["a"], v["span_ns"]["b"]);
    for r in v["regions"].as_array().expect("regions") {
        assert_eq!((i(&r["delta_ns"]), i(&r["delta_exclusive_ns"])), (0, 0), "{r}");
        assert_eq!(r["a_count"], r["b_count"], "{r}");
    }
    for l in v["locations"].as_array().expect("locations") {
        assert_eq!(l["a"], l["b"], "{l}");
        assert_eq!((i(&l["delta"]["busy_ns"]), i(&l["delta"]["total_ns"])), (0, 0), "{l}");
        assert_eq!((l["delta"]["m2_ns"].as_f64(), l["delta"]["m3_ns"].as_f64()), (Some(0.0), Some(0.0)), "{l}");
        assert!(l["delta"]["m1_ns"].is_null() || l["delta"]["m1_ns"].as_f64() == Some(0.0), "{l}");
    }
    let m = &v["comm_matrix"];
    assert_eq!(m["a"], m["b"]);
    for key in ["count", "bytes"] {
        assert!(m["delta"][key].as_array().unwrap().iter().flat_map(|r| r.as_array().unwrap()).all(|c| c == 0));
    }
    if waits_known {
        assert_eq!(v["waits"]["a"], v["waits"]["b"]);
        assert_eq!(v["waits"]["delta_total_ns"], 0);
        assert!(v["waits"]["delta"].as_object().unwrap().values().all(|d| d == 0));
    }
    assert!(v["summary"].as_str().unwrap().contains("No region's exclusive time changed"), "{}", v["summary"]);
}

#[test]
fn a_run_compared_with_itself_changes_nothing() {
    let dir = TempDir::new("diff-self");
    let mpi = write(&dir, "mpi", &archive(&GenConfig::new(6, 40_000)).0);
    let v = diff(&mpi, &mpi, &[]);
    assert!(v["waits"]["a"]["total_ns"].as_u64().unwrap() > 0, "the generated MPI run waits");
    assert!(v["comm_matrix"]["a"]["count"].as_array().unwrap().len() == 6);
    assert_no_change(&v, true);
    for ranks in ["name", "proportional"] {
        assert_no_change(&diff(&mpi, &mpi, &["--ranks", ranks, "--window", "10us:300us"]), true);
    }
    // A store against the trace it was indexed from: the same run, its waits not known.
    let store = dir.join("store");
    weft_ok(&["index", &mpi.to_string_lossy(), "-o", &store.to_string_lossy()]);
    let v = diff(&store, &mpi, &[]);
    assert_no_change(&v, false);
    assert!(v["waits"]["a"].is_null() && v["waits"]["delta"].is_null());
    assert!(v["waits"]["b"]["total_ns"].as_u64().unwrap() > 0);
    // Indexed with --waits, the store's side has the wait states it keeps: those of its trace, no change.
    let kept = dir.join("store-waits");
    weft_ok(&["index", &mpi.to_string_lossy(), "-o", &kept.to_string_lossy(), "--waits"]);
    for extra in [&[][..], &["--window", "10us:300us"][..]] {
        let v = diff(&kept, &mpi, extra);
        assert_no_change(&v, true);
        assert_eq!(v["waits"]["a"], v["waits"]["b"], "{extra:?}: the store's kept waits are its trace's");
        assert!(v["waits"]["a"]["total_ns"].as_u64().unwrap() > 0);
    }
    if let Some(traces) = crate::common::shared_traces("a_run_compared_with_itself_changes_nothing") {
        let stencil = traces.join("otf2/tracer-stencil4d-mpi-32/traces.otf2");
        assert_no_change(&diff(&stencil, &stencil, &[]), true);
    }
}

fn weft_ok(args: &[&str]) {
    let out = Command::new(env!("CARGO_BIN_EXE_weft")).args(args).output().expect("run weft");
    assert!(out.status.success(), "weft {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn one_region_twice_as_slow_on_one_thread_is_the_only_change() {
    let dir = TempDir::new("diff-slow");
    let (iterations, slow) = (10u64, 3usize);
    let a = write(&dir, "a", &program(4, iterations, |_| 1000).archive());
    let b = write(&dir, "b", &program(4, iterations, |t| if t == slow { 2000 } else { 1000 }).archive());
    let v = diff(&a, &b, &[]);
    let extra = (iterations * 1000) as i64;
    assert_eq!((v["span_ns"]["a"].as_u64(), v["span_ns"]["b"].as_u64()), (Some(10_500), Some(20_500)));
    let compute = region(&v, "compute");
    assert_eq!((i(&compute["delta_ns"]), i(&compute["delta_exclusive_ns"])), (extra, extra));
    assert_eq!((i(&compute["a_count"]), i(&compute["b_count"])), (40, 40));
    assert_eq!(compute["ratio"].as_f64(), Some(50_000.0 / 40_000.0));
    let main = region(&v, "main");
    assert_eq!((i(&main["delta_ns"]), i(&main["delta_exclusive_ns"])), (extra, 0), "main holds the change");
    let exchange = region(&v, "exchange");
    assert_eq!((i(&exchange["delta_ns"]), i(&exchange["delta_exclusive_ns"])), (0, 0));
    assert_eq!(v["regions"][0]["name"], "compute");
    let rows = v["locations"].as_array().unwrap();
    assert_eq!(rows.len(), 4);
    for (k, l) in rows.iter().enumerate() {
        assert_eq!(l["a"]["name"], l["b"]["name"]);
        let (busy, total) = (i(&l["delta"]["busy_ns"]), i(&l["delta"]["total_ns"]));
        if k == slow {
            assert_eq!((busy, total), (extra, extra));
            assert!(l["delta"]["m1_ns"].as_f64().unwrap() > 0.0);
        } else {
            assert_eq!((busy, total), (0, 0), "{l}");
            assert_eq!(l["delta"]["m1_ns"].as_f64(), Some(0.0));
            assert_eq!(l["delta"]["m2_ns"].as_f64(), Some(0.0));
        }
    }
    assert_eq!(v["waits"]["delta_total_ns"], 0);
    let summary = v["summary"].as_str().unwrap();
    assert!(summary.contains("compute +10.000 us (+25.0 %)"), "{summary}");
    assert!(summary.contains("process / thread 3 +10.000 us"), "{summary}");
    assert!(!summary.contains("exchange") && !summary.contains("thread 0"), "{summary}");
    // The text names the same.
    let out = Command::new(env!("CARGO_BIN_EXE_weft")).arg("diff").arg(&a).arg(&b).output().expect("run weft");
    let text = String::from_utf8(out.stdout).expect("utf8");
    assert!(out.status.success() && text.contains(summary), "{text}");
    assert!(text.contains("+10.000 us") && text.contains("2 of 3 changed"), "{text}");
    // The picture: compute's and main's bars grow by a red segment (and nothing shrinks); the summary is in it.
    let svg = dir.join("diff.svg");
    weft_ok(&["render", "diff", &a.to_string_lossy(), &b.to_string_lossy(), "-o", &svg.to_string_lossy()]);
    let svg = std::fs::read_to_string(svg).expect("the SVG");
    assert!(svg.contains(">compute<") && svg.contains(">+10.000 us (1.25x)<"), "{svg}");
    assert!(svg.contains(">0 ns (1.00x)<") && svg.contains("process / thread 3 +10.000 us"), "{svg}");
    let rects = |fill: &str| svg.lines().filter(|l| l.starts_with("<rect") && l.contains(fill)).count();
    assert_eq!(rects("fill=\"#d62728\""), 3, "the legend's swatch, compute's and main's growth (B slower)");
    assert_eq!(rects("url(#hatch-1f6fd1ff)"), 1, "only the legend's swatch: nothing got faster");
    // The moments in the moment view's glyphs (`--moments`): a row per thread, B's bar red beyond A's on
    // thread 3 alone (the legend's swatch and its row's growth), the mean's move a red line.
    let pic = dir.join("moments.svg");
    let (sa, sb, sp) = (a.to_string_lossy(), b.to_string_lossy(), pic.to_string_lossy());
    weft_ok(&["render", "diff", &sa, &sb, "--moments", "-o", &sp]);
    let pic = std::fs::read_to_string(pic).expect("the SVG");
    assert!(pic.contains("Moments per location") && pic.contains("paired by index"), "{pic}");
    let red: Vec<&str> = pic.lines().filter(|l| l.starts_with("<rect") && l.contains("fill=\"#d62728\"")).collect();
    assert!(red.len() >= 2, "the legend's swatch and thread 3's growth: {red:?}");
    let y_of = |l: &str| -> f32 {
        let at = l.find(" y=\"").expect("y") + 4;
        l[at..].split('"').next().unwrap().parse().unwrap()
    };
    let rows: Vec<f32> = red.iter().skip(1).map(|l| y_of(l)).collect();
    assert!(rows.windows(2).all(|w| (w[0] - w[1]).abs() < 30.0), "one row's growth: {rows:?}");
}

#[test]
fn eight_against_sixteen_threads_pair_proportionally() {
    let dir = TempDir::new("diff-scale");
    let it = 6u64;
    let a = write(&dir, "a", &program(8, it, |_| 2000).archive());
    let b = write(&dir, "b", &program(16, it, |_| 1000).archive());
    let v = diff(&a, &b, &["--ranks", "proportional"]);
    // The same compute over twice the threads: its total is unchanged; each thread's exchanges add up.
    let compute = region(&v, "compute");
    assert_eq!((i(&compute["delta_ns"]), i(&compute["a_count"]), i(&compute["b_count"])), (0, 48, 96));
    let more = (8 * it * EXCHANGE_NS) as i64;
    assert_eq!(i(&region(&v, "exchange")["delta_ns"]), more);
    assert_eq!(i(&region(&v, "main")["delta_ns"]), more);
    assert_eq!((i(&v["span_ns"]["a"]), i(&v["span_ns"]["b"])), ((it * 2050) as i64, (it * 1050) as i64));
    let rows = v["locations"].as_array().unwrap();
    assert_eq!(rows.len(), 16);
    for (k, l) in rows.iter().enumerate() {
        if k < 8 {
            assert_eq!(l["a"]["name"], format!("process / thread {k}"));
            assert_eq!(l["b"]["name"], format!("process / thread {}", 2 * k), "A's i is B's 2i");
            assert_eq!(i(&l["delta"]["busy_ns"]), -((it * 1000) as i64));
        } else {
            assert!(l["a"].is_null());
            assert_eq!(l["b"]["name"], format!("process / thread {}", 2 * (k - 8) + 1), "B's odd threads alone");
        }
    }
    // By index, the first 8 of B pair with A's 8: thread k with thread k.
    let v = diff(&a, &b, &["--ranks", "index"]);
    assert_eq!(v["locations"][5]["b"]["name"], "process / thread 5");
}

/// `rows` (info's `regions`) summed by name: count, inclusive, exclusive.
fn by_name(info: &Value) -> BTreeMap<String, (u64, u64, u64)> {
    let mut out: BTreeMap<String, (u64, u64, u64)> = BTreeMap::new();
    for r in info["regions"].as_array().expect("regions") {
        let e = out.entry(r["name"].as_str().unwrap().to_string()).or_default();
        e.0 += r["count"].as_u64().unwrap();
        e.1 += r["inclusive_ns"].as_u64().unwrap();
        e.2 += r["exclusive_ns"].as_u64().unwrap();
    }
    out
}

/// Side `s` ("a" or "b") of `v` equals the single-run commands on `path` (with `--window` when given).
fn assert_side_is_single_run(v: &Value, s: &str, path: &Path, window: Option<String>) {
    let p = path.to_string_lossy();
    let mut extra: Vec<&str> = Vec::new();
    if let Some(w) = &window {
        extra.extend(["--window", w]);
    }
    let with = |cmd: &str| {
        let mut args = vec![cmd, &p, "--json"];
        args.extend(&extra);
        weft(&args)
    };
    let info = with("info");
    if window.is_none() {
        assert_eq!(v["span_ns"][s], info["span_ns"], "{s}: span");
    }
    let regions = by_name(&info);
    let got: BTreeMap<String, (u64, u64, u64)> = v["regions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r[format!("{s}_count")].as_u64().unwrap() > 0)
        .map(|r| {
            let n = |k: &str| r[format!("{s}_{k}")].as_u64().unwrap();
            (r["name"].as_str().unwrap().to_string(), (n("count"), n("inclusive_ns"), n("exclusive_ns")))
        })
        .collect();
    assert_eq!(got, regions, "{s}: regions against weft info --json");
    assert_eq!(v["comm_matrix"][s], info["comm_matrix"], "{s}: matrix against weft info --json");
    let moments = with("moments");
    let mut rows: Vec<Value> = v["locations"].as_array().unwrap().iter().map(|l| l[s].clone()).collect();
    rows.retain(|r| !r.is_null());
    rows.sort_by_key(|r| r["location"].as_u64());
    rows.dedup();
    let rows: Vec<Value> = rows
        .into_iter()
        .map(|mut r| {
            r.as_object_mut().unwrap().remove("total_ns");
            r
        })
        .collect();
    assert_eq!(Value::from(rows), moments, "{s}: locations against weft moments --json");
    let waits = with("waits");
    for (k, p) in waits["patterns"].as_object().unwrap() {
        assert_eq!(v["waits"][s]["patterns"][k]["total_ns"], p["total_ns"], "{s}: {k}");
        assert_eq!(v["waits"][s]["patterns"][k]["instances"], p["instances"], "{s}: {k}");
    }
    assert_eq!(v["waits"][s]["total_ns"], waits["total_wait_ns"]);
}

#[test]
fn each_side_is_what_the_single_run_commands_print() {
    let dir = TempDir::new("diff-sides");
    let a = write(&dir, "a", &archive(&GenConfig::new(4, 30_000)).0);
    let b = write(&dir, "b", &archive(&GenConfig { seed: 7, long_wait: true, ..GenConfig::new(6, 30_000) }).0);
    let whole = diff(&a, &b, &["--ranks", "proportional"]);
    assert!(whole.get("windows").is_none());
    assert_side_is_single_run(&whole, "a", &a, None);
    assert_side_is_single_run(&whole, "b", &b, None);
    // Aligned at the second MPI_Barrier, over 200 us from there: each side is its run's window.
    let v = diff(&a, &b, &["--align", "region:MPI_Barrier:2", "--window", "0:200us"]);
    for (s, path) in [("a", &a), ("b", &b)] {
        let w = &v["windows"][s];
        let (start, end) = (w["start_ns"].as_u64().unwrap(), w["end_ns"].as_u64().unwrap());
        assert!(w["origin_ns"].as_u64().unwrap() > 0 && start == w["origin_ns"].as_u64().unwrap());
        assert_eq!(v["span_ns"][s].as_u64(), Some(end - start));
        assert_side_is_single_run(&v, s, path, Some(format!("{start}:{end}")));
    }
    if let Some(traces) = crate::common::shared_traces("each_side_is_what_the_single_run_commands_print") {
        let (x, y) = (traces.join("otf2/pipit-ping-pong-mpi"), traces.join("otf2/pipit-ping-pong-mpi-papi"));
        let (x, y) = (x.join("traces.otf2"), y.join("traces.otf2"));
        let v = diff(&x, &y, &["--ranks", "name"]);
        assert_side_is_single_run(&v, "a", &x, None);
        assert_side_is_single_run(&v, "b", &y, None);
    }
}

#[test]
fn bad_options_are_refused_with_what_is_wrong() {
    let dir = TempDir::new("diff-bad");
    let a = write(&dir, "a", &program(2, 3, |_| 100).archive());
    for (args, says) in [
        (vec!["--align", "marker:x"], "expected start, region:NAME or region:NAME:N"),
        (vec!["--ranks", "rank"], "expected index, name or proportional"),
        (vec!["--align", "region:nothing"], "run A: no location has 1 instance(s) of region 'nothing'"),
        (vec!["--window", "1s:2s"], "after the run's end"),
        (vec!["--window", "5"], "expected T0:T1"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_weft")).arg("diff").arg(&a).arg(&a).args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && err.contains(says), "{args:?}: {err}");
    }
    let out = Command::new(env!("CARGO_BIN_EXE_weft")).arg("diff").arg(&a).arg(dir.join("missing")).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("missing"), "{err}");
}

#[test]
fn an_otf2_run_compares_with_its_paraver_twin() {
    let test = "an_otf2_run_compares_with_its_paraver_twin";
    let py = match std::env::var("WEFT_PYTHON") {
        Ok(p) if !p.is_empty() => p,
        _ => return eprintln!("SKIPPED {test}: WEFT_PYTHON is not set (point it to a python with the `otf2` package)"),
    };
    let dir = TempDir::new("diff-twins");
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/waits_scenarios.py");
    let out = Command::new(&py).arg(script).arg(dir.path()).output().expect("run python");
    assert!(out.status.success(), "waits_scenarios.py failed: {}", String::from_utf8_lossy(&out.stderr));
    let names = String::from_utf8(out.stdout).expect("utf8");
    let mut compared = 0;
    for name in names.lines() {
        let (otf2, prv) = (dir.join(name).join("traces.otf2"), dir.join(name).join("twin.prv"));
        let v = diff(&otf2, &prv, &["--ranks", "name"]);
        assert_eq!(v["waits"]["delta_total_ns"], 0, "{name}: {}", v["waits"]);
        assert!(v["waits"]["delta"].as_object().unwrap().values().all(|d| d == 0), "{name}");
        let m = &v["comm_matrix"]["delta"];
        assert!(m["count"].as_array().unwrap().iter().flat_map(|r| r.as_array().unwrap()).all(|c| c == 0), "{name}");
        assert_eq!(m["a_unplaced_count"], 0);
        for l in v["locations"].as_array().unwrap() {
            assert!(!l["a"].is_null() && !l["b"].is_null(), "{name}: every location has its twin: {l}");
        }
        compared += 1;
    }
    assert!(compared >= 9, "twins compared: {compared}");
}
