//! The region profile of a window (`analyses::profile`, `weft info --window T0:T1 --json` `regions`):
//! a hand-made nested case with recursion, a zero-duration interval and a location filter, computed by hand;
//! and real traces from ../shared/traces (OTF2, Paraver, Chrome) against an independent computation that
//! shares nothing with the profile's stack walk: inclusive time as the length of the union of a region's
//! clipped intervals per location, exclusive time by a sweep over elementary segments giving each to the
//! deepest interval covering it; and the OTF2 traces read without repairs against the official OTF2 library
//! (tests/oracle/otf2_oracle.py `profile`, from the Enter/Leave records). The CLI's JSON is checked against
//! the same computation, and keeps every key of the summary.

use crate::common;

use common::read::read_path;
use std::collections::{BTreeSet, HashMap};
use std::path::Path;
use std::process::Command;
use weft::analyses::moments::TimeWindow;
use weft::analyses::profile::{profile, region_stats, RegionStats};
use weft::analyses::summary::{region_totals, summarize};
use weft::model::{Format, LocationId, LocationKind, Trace, TraceBuilder};

fn window(start_ns: u64, end_ns: u64) -> TimeWindow {
    TimeWindow { start_ns, end_ns }
}

fn nested() -> Trace {
    let mut b = TraceBuilder::new(Format::Generated);
    let p = b.process(0);
    let l0 = b.location(p, 0, LocationKind::CpuThread);
    let l1 = b.location(p, 1, LocationKind::CpuThread);
    let [main, f, g, h, r] = ["main", "f", "g", "h", "r"].map(|n| b.region(n, ""));
    b.interval(l0, main, 0, 100);
    b.interval(l0, f, 10, 50); // [10, 60)
    b.interval(l0, f, 20, 20); // [20, 40): f inside f
    b.interval(l0, g, 25, 5); // [25, 30)
    b.interval(l0, g, 70, 20); // [70, 90)
    b.interval(l0, h, 95, 0); // zero duration
    b.interval(l1, r, 0, 50);
    b.finish()
}

fn stats(t: &Trace, name: &str, s: &[RegionStats]) -> (u64, u64, u64) {
    let r = (0..t.regions.len()).find(|&r| t.region_name(weft::model::RegionId(r as u32)) == name).unwrap();
    (s[r].count, s[r].inclusive_ns, s[r].exclusive_ns)
}

#[test]
fn a_nested_case_by_hand() {
    let t = nested();
    assert_eq!(t.intervals.depth, vec![0, 1, 2, 3, 1, 1, 0], "the nesting the case is about");
    let only_l0 = |l: LocationId| l.0 == 0;

    // [30, 80]: main 50 (children f 30, g 10: exclusive 10); outer f [30, 60] 30 (child f [30, 40] 10:
    // exclusive 20), inner f 10 (its child g [25, 30] clipped to nothing: exclusive 10, and not counted).
    let s = region_stats(&t, window(30, 80), only_l0);
    assert_eq!(stats(&t, "main", &s), (1, 50, 10));
    assert_eq!(stats(&t, "f", &s), (2, 30, 30), "recursion counted once in inclusive time");
    assert_eq!(stats(&t, "g", &s), (1, 10, 10), "g [25, 30) only touches the window");
    assert_eq!(stats(&t, "h", &s), (0, 0, 0), "h at 95 is outside");
    assert_eq!(stats(&t, "r", &s), (0, 0, 0), "location 1 is filtered out");

    let rows = profile(&t, Some(window(30, 80)), only_l0);
    let names: Vec<_> = rows.iter().map(|r| (r.name.as_str(), r.share)).collect();
    assert_eq!(names, vec![("main", 0.2), ("f", 0.6), ("g", 0.2)], "by inclusive time, shares of exclusive");

    // Both locations: r [30, 50) joins.
    let s = region_stats(&t, window(30, 80), |_| true);
    assert_eq!(stats(&t, "r", &s), (1, 20, 20));

    // The whole trace counts every interval, the zero-duration one too.
    let s = region_stats(&t, TimeWindow::whole(&t), |_| true);
    assert_eq!(stats(&t, "main", &s), (1, 100, 30));
    assert_eq!(stats(&t, "f", &s), (2, 50, 45));
    assert_eq!(stats(&t, "g", &s), (2, 25, 25));
    assert_eq!(stats(&t, "h", &s), (1, 0, 0));
    assert_eq!(stats(&t, "r", &s), (1, 50, 50));
    // A window ending at the zero-duration interval counts it; a window ending before does not.
    assert_eq!(stats(&t, "h", &region_stats(&t, window(90, 95), |_| true)), (1, 0, 0));
    assert_eq!(stats(&t, "h", &region_stats(&t, window(90, 94), |_| true)), (0, 0, 0));
}

/// Per region (count, inclusive, exclusive) computed independently of the profile's walk.
fn oracle(t: &Trace, w: TimeWindow, keep: impl Fn(LocationId) -> bool) -> Vec<(u64, u64, u64)> {
    let iv = &t.intervals;
    let mut out = vec![(0u64, 0u64, 0u64); t.regions.len()];
    let (t0, t1) = (w.start_ns, w.end_ns);
    let mut by_location: HashMap<u32, Vec<usize>> = HashMap::new();
    for i in 0..iv.len() {
        if keep(iv.location[i]) {
            by_location.entry(iv.location[i].0).or_default().push(i);
        }
    }
    for ids in by_location.values() {
        // Count, and inclusive time as the union of each region's clipped intervals.
        let mut spans: HashMap<u32, Vec<(u64, u64)>> = HashMap::new();
        for &i in ids {
            let (s, e) = (iv.start_ns[i], iv.start_ns[i] + iv.dur_ns[i]);
            let (a, b) = (s.max(t0), e.min(t1));
            let r = iv.region[i].0;
            if b > a || (s == e && s >= t0 && s <= t1) {
                out[r as usize].0 += 1;
            }
            if b > a {
                spans.entry(r).or_default().push((a, b));
            }
        }
        for (r, mut v) in spans {
            v.sort();
            let (mut cur, mut total) = (None::<(u64, u64)>, 0);
            for (a, b) in v {
                match cur {
                    Some((ca, cb)) if a <= cb => cur = Some((ca, cb.max(b))),
                    Some((ca, cb)) => {
                        total += cb - ca;
                        cur = Some((a, b));
                    }
                    None => cur = Some((a, b)),
                }
            }
            total += cur.map_or(0, |(a, b)| b - a);
            out[r as usize].1 += total;
        }
        // Exclusive: sweep the clipped boundaries; each elementary segment goes to the deepest open interval.
        let mut events: Vec<(u64, bool, usize)> = Vec::new(); // (time, opens, interval)
        for &i in ids {
            let (a, b) = (iv.start_ns[i].max(t0), (iv.start_ns[i] + iv.dur_ns[i]).min(t1));
            if b > a {
                events.push((a, true, i));
                events.push((b, false, i));
            }
        }
        events.sort_by_key(|&(time, opens, i)| (time, opens, i)); // closes before opens at one time
        let mut open: BTreeSet<(u16, usize)> = BTreeSet::new();
        let mut last = 0;
        for (time, opens, i) in events {
            if let Some(&(_, deepest)) = open.last() {
                out[iv.region[deepest].index()].2 += time - last;
            }
            last = time;
            if opens {
                open.insert((iv.depth[i], i));
            } else {
                open.remove(&(iv.depth[i], i));
            }
        }
    }
    out
}

fn check(t: &Trace, what: &str) -> usize {
    let span = t.span_ns;
    let windows = [
        TimeWindow::whole(t),
        window(span / 3, 2 * span / 3),
        window(span / 10, span / 10 + span / 20 + 1),
        window(span / 2, span + 1000),
    ];
    let mut checked = 0;
    for w in windows {
        for (filter, keep) in
            [("all", &(|_: LocationId| true) as &dyn Fn(LocationId) -> bool), ("even", &|l| l.0 % 2 == 0)]
        {
            let got = region_stats(t, w, keep);
            let want = oracle(t, w, keep);
            for r in 0..want.len() {
                let g = &got[r];
                assert_eq!(
                    (g.count, g.inclusive_ns, g.exclusive_ns),
                    want[r],
                    "{what}: region {} in [{}, {}], {filter} locations",
                    t.region_name(weft::model::RegionId(r as u32)),
                    w.start_ns,
                    w.end_ns
                );
                checked += (want[r].0 > 0) as usize;
            }
        }
    }
    // The whole trace's profile is the summary's region totals.
    let whole = region_stats(t, TimeWindow::whole(t), |_| true);
    let totals: Vec<_> = whole.iter().map(|s| (s.count, s.inclusive_ns)).collect();
    assert_eq!(totals, region_totals(t), "{what}");
    checked
}

fn real_traces() -> Option<Vec<std::path::PathBuf>> {
    let dir = common::shared_traces("profile of real traces")?;
    Some(
        [
            "otf2/pipit-ping-pong-mpi/traces.otf2",
            "otf2/pipit-ping-pong-mpi-papi/traces.otf2",
            "otf2/tracer-stencil4d-mpi-32/traces.otf2",
            "paraver/paraver-kernel-qsort_beo3/qsort_beo3.prv",
            "chrome-json/kineto/docs_before_fix_trace.json",
            "chrome-json/catapult/big_trace.json",
            "chrome-json/hta/call_stack_backward_thread.json",
            "chrome-json/speedscope-trace-event/zero-duration-events.json",
        ]
        .iter()
        .map(|p| dir.join(p))
        .collect(),
    )
}

#[test]
fn real_traces_agree_with_an_independent_computation() {
    let Some(paths) = real_traces() else { return };
    for path in paths {
        let t = read_path(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(!t.intervals.is_empty(), "{}", path.display());
        let n = check(&t, &path.display().to_string());
        assert!(n > 0, "{}: some region has intervals", path.display());
    }
}

fn weft_json(args: &[&str], path: &Path) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_weft")).args(args).arg(path).output().expect("run weft");
    assert!(out.status.success(), "weft {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("JSON")
}

#[test]
fn info_window_json_lists_every_region_of_the_window() {
    let Some(dir) = common::shared_traces("weft info --window") else { return };
    for rel in ["paraver/paraver-kernel-qsort_beo3/qsort_beo3.prv", "otf2/tracer-stencil4d-mpi-32/traces.otf2"] {
        let path = dir.join(rel);
        let t = read_path(&path).unwrap();
        let (a, b) = (t.span_ns / 4, t.span_ns / 2);
        let got = weft_json(&["info", "--json", "--window", &format!("{a}:{b}")], &path);
        assert_eq!(got["window"], serde_json::json!({"start_ns": a, "end_ns": b}));
        let want = oracle(&t, window(a, b), |_| true);
        let rows = got["regions"].as_array().unwrap();
        assert_eq!(rows.len(), want.iter().filter(|w| w.0 > 0).count(), "{rel}: every region of the window");
        let total: u64 = want.iter().map(|w| w.2).sum();
        let mut last = u64::MAX;
        for row in rows {
            let r = row["region"].as_u64().unwrap() as usize;
            assert_eq!(row["name"], t.region_name(weft::model::RegionId(r as u32)));
            let w = want[r];
            assert_eq!(
                (row["count"].as_u64(), row["inclusive_ns"].as_u64(), row["exclusive_ns"].as_u64()),
                (Some(w.0), Some(w.1), Some(w.2)),
                "{rel}: {row}"
            );
            assert!((row["share"].as_f64().unwrap() - w.2 as f64 / total as f64).abs() < 1e-12);
            assert!(w.1 <= last, "most inclusive time first");
            last = w.1;
        }

        // Without a window: the whole trace's regions, and every key the summary had stays as it was.
        let whole = weft_json(&["info", "--json"], &path);
        let summary = serde_json::to_value(summarize(&t, 10)).unwrap();
        for (k, v) in summary.as_object().unwrap() {
            assert_eq!(&whole[k], v, "{rel}: key {k}");
        }
        assert!(whole.get("window").is_none());
        let want = oracle(&t, TimeWindow::whole(&t), |_| true);
        assert_eq!(whole["regions"].as_array().unwrap().len(), want.iter().filter(|w| w.0 > 0).count());
    }
}

#[test]
fn info_refuses_a_bad_window() {
    let Some(dir) = common::shared_traces("weft info --window refused") else { return };
    let path = dir.join("paraver/paraver-kernel-qsort_beo3/qsort_beo3.prv");
    for bad in ["5", "3:1", "x:2ms"] {
        let out = Command::new(env!("CARGO_BIN_EXE_weft")).args(["info", "--window", bad]).arg(&path).output().unwrap();
        assert!(!out.status.success(), "{bad}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("time window"), "{bad}");
    }
    let out = Command::new(env!("CARGO_BIN_EXE_weft")).args(["info", "--window", "0:1s"]).arg(&path).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("window      0 ns .. 1.000 s") && text.contains("exclusive"), "{text}");
}

/// The official OTF2 library's reading (tests/oracle/otf2_oracle.py `profile`): per region name, count,
/// inclusive and exclusive time of the whole trace from its Enter/Leave records. Traces without reader
/// repairs only (the stencil's repaired nesting is a reader question, not the profile's).
#[test]
fn otf2_profiles_agree_with_the_official_reader() {
    let Some(dir) = common::shared_traces("profile against the official OTF2 reader") else { return };
    let Some(py) = std::env::var("WEFT_PYTHON").ok().filter(|p| !p.is_empty()) else {
        eprintln!("SKIPPED otf2_profiles_agree_with_the_official_reader: WEFT_PYTHON is not set (a python with otf2)");
        return;
    };
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/otf2_oracle.py");
    for rel in ["otf2/pipit-ping-pong-mpi/traces.otf2", "otf2/pipit-ping-pong-mpi-papi/traces.otf2"] {
        let path = dir.join(rel);
        let t = read_path(&path).unwrap();
        assert_eq!(t.warnings.total(), 0, "{rel}: read without repairs");
        let out = Command::new(&py).arg(&script).arg("profile").arg(&path).output().expect("run the oracle");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let oracle: HashMap<String, (u64, f64, f64)> = serde_json::from_slice(&out.stdout).unwrap();
        let rows = profile(&t, None, |_| true);
        let mut by_name: HashMap<&str, (u64, u64, u64)> = HashMap::new();
        for r in &rows {
            let e = by_name.entry(&r.name).or_default();
            *e = (e.0 + r.count, e.1 + r.inclusive_ns, e.2 + r.exclusive_ns);
        }
        assert_eq!(by_name.len(), oracle.len(), "{rel}: the same regions");
        for (name, &(count, inclusive, exclusive)) in &oracle {
            let got = by_name[name.as_str()];
            assert_eq!(got.0, count, "{rel}: {name} count");
            // Timestamps are ticks of ~2.1 GHz, converted to whole ns by weft: within 2 ns per interval.
            let tol = 2.0 * count as f64;
            assert!((got.1 as f64 - inclusive).abs() <= tol, "{rel}: {name} inclusive {} vs {inclusive}", got.1);
            assert!((got.2 as f64 - exclusive).abs() <= tol, "{rel}: {name} exclusive {} vs {exclusive}", got.2);
        }
    }
}
