//! The call tree of a selection (`analyses::calltree`, `weft calltree`): a generated trace with known call
//! paths gives exactly those nodes (top down, inverted, per location, a butterfly, a window, a location
//! filter); on every trace of ../shared/traces the tree reduces to the region profile (`profile::region_stats`,
//! what `weft info --window --json` prints) for several windows and location sets, and its sums hold (a node's
//! inclusive time is its exclusive time plus its children's); the CLI's JSON adds up to `weft info`'s regions.

use crate::common;

use common::read::read_path;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use weft::analyses::calltree::{call_tree, per_location, CallTree};
use weft::analyses::moments::TimeWindow;
use weft::analyses::profile::region_stats;
use weft::model::{Format, LocationId, LocationKind, RegionId, Trace, TraceBuilder};

fn window(start_ns: u64, end_ns: u64) -> TimeWindow {
    TimeWindow { start_ns, end_ns }
}

/// Two locations with known call paths, recursion (f in f) and a zero-duration interval.
fn known() -> Trace {
    let mut b = TraceBuilder::new(Format::Generated);
    let p = b.process(0);
    let l0 = b.location(p, 0, LocationKind::CpuThread);
    let l1 = b.location(p, 1, LocationKind::CpuThread);
    let [main, solve, wait, kernel, reduce, f, g] =
        ["main", "solve", "MPI_Waitall", "kernel", "MPI_Allreduce", "f", "g"].map(|n| b.region(n, ""));
    b.interval(l0, main, 0, 100);
    b.interval(l0, solve, 10, 50); // [10, 60)
    b.interval(l0, wait, 20, 10); // [20, 30)
    b.interval(l0, kernel, 35, 20); // [35, 55)
    b.interval(l0, reduce, 70, 20); // [70, 90)
    b.interval(l0, wait, 95, 0); // zero duration in main
    b.interval(l1, main, 0, 80);
    b.interval(l1, solve, 5, 40); // [5, 45)
    b.interval(l1, wait, 10, 10); // [10, 20)
    b.interval(l1, f, 50, 30); // [50, 80)
    b.interval(l1, f, 55, 20); // [55, 75): f in f
    b.interval(l1, g, 60, 5); // [60, 65)
    b.finish()
}

/// (path, count, inclusive, exclusive) of every node, in the tree's order.
fn rows(t: &Trace, tree: &CallTree) -> Vec<(String, u64, u64, u64)> {
    (0..tree.nodes.len())
        .map(|k| {
            let n = &tree.nodes[k];
            let path: Vec<&str> = tree.path(k).into_iter().map(|r| t.region_name(r)).collect();
            (path.join("/"), n.count, n.inclusive_ns, n.exclusive_ns)
        })
        .collect()
}

fn row(path: &str, count: u64, inclusive: u64, exclusive: u64) -> (String, u64, u64, u64) {
    (path.to_string(), count, inclusive, exclusive)
}

#[test]
fn known_call_paths_give_exactly_their_nodes() {
    let t = known();
    let tree = call_tree(&t, None, |_| true);
    assert_eq!(
        rows(&t, &tree),
        vec![
            row("main", 2, 180, 40),
            row("main/solve", 2, 90, 50),
            row("main/solve/MPI_Waitall", 2, 20, 20),
            row("main/solve/kernel", 1, 20, 20),
            row("main/f", 1, 30, 10),
            row("main/f/f", 1, 20, 15),
            row("main/f/f/g", 1, 5, 5),
            row("main/MPI_Allreduce", 1, 20, 20),
            row("main/MPI_Waitall", 1, 0, 0),
        ],
        "preorder, siblings by inclusive time (then count, then name)"
    );
    assert_eq!(tree.total_ns(), 180);
    assert_eq!(tree.nodes[0].subtree_end, 9);
    assert_eq!(tree.children(0).collect::<Vec<_>>(), vec![1, 4, 7, 8]);
    assert_eq!(tree.nodes[2].parent, Some(1));

    // A window [25, 70] over location 0 only: the clipped times, and the zero-duration call outside.
    let w = call_tree(&t, Some(window(25, 70)), |l| l.0 == 0);
    assert_eq!(
        rows(&t, &w),
        vec![
            row("main", 1, 45, 10),
            row("main/solve", 1, 35, 10),
            row("main/solve/kernel", 1, 20, 20),
            row("main/solve/MPI_Waitall", 1, 5, 5),
        ],
        "the Allreduce at 70 has no time in the window and a duration: it does not count"
    );
    // The window [60, 70]: solve ends at 60, the Allreduce starts at 70: neither has time in it.
    let edge = call_tree(&t, Some(window(60, 70)), |l| l.0 == 0);
    assert_eq!(rows(&t, &edge), vec![row("main", 1, 10, 10)]);

    // Bottom up: roots are where time is spent; a root's inclusive time is its region's exclusive time.
    let inv = tree.inverted(&t);
    assert_eq!(
        rows(&t, &inv),
        vec![
            row("solve", 2, 50, 0),
            row("solve/main", 2, 50, 50),
            row("main", 2, 40, 40),
            row("f", 2, 25, 0),
            row("f/f", 1, 15, 0),
            row("f/f/main", 1, 15, 15),
            row("f/main", 1, 10, 10),
            row("MPI_Waitall", 3, 20, 0),
            row("MPI_Waitall/solve", 2, 20, 0),
            row("MPI_Waitall/solve/main", 2, 20, 20),
            row("MPI_Waitall/main", 1, 0, 0),
            row("MPI_Allreduce", 1, 20, 0),
            row("MPI_Allreduce/main", 1, 20, 20),
            row("kernel", 1, 20, 0),
            row("kernel/solve", 1, 20, 0),
            row("kernel/solve/main", 1, 20, 20),
            row("g", 1, 5, 0),
            row("g/f", 1, 5, 0),
            row("g/f/f", 1, 5, 0),
            row("g/f/f/main", 1, 5, 5),
        ]
    );
    assert_eq!(inv.total_ns(), 180);

    // Per location: each location's own tree; merged, they are the tree above.
    let per = per_location(&t, None, |_| true);
    assert_eq!(per.len(), 2);
    assert_eq!(
        rows(&t, &per[1].tree),
        vec![
            row("main", 1, 80, 10),
            row("main/solve", 1, 40, 30),
            row("main/solve/MPI_Waitall", 1, 10, 10),
            row("main/f", 1, 30, 10),
            row("main/f/f", 1, 20, 15),
            row("main/f/f/g", 1, 5, 5),
        ]
    );

    // The butterfly of f: called by main and by f; calls f and g. Its own row is the profile's (recursion once).
    let f = RegionId(5);
    let b = tree.butterfly(&t, f);
    let edge = |e: &weft::analyses::calltree::ButterflyEdge| {
        (e.region.map_or("-", |r| t.region_name(r)).to_string(), e.count, e.inclusive_ns)
    };
    assert_eq!(b.callers.iter().map(edge).collect::<Vec<_>>(), vec![("main".into(), 1, 30), ("f".into(), 1, 20)]);
    assert_eq!(b.callees.iter().map(edge).collect::<Vec<_>>(), vec![("f".into(), 1, 20), ("g".into(), 1, 5)]);
    assert_eq!((b.focus.count, b.focus.inclusive_ns, b.focus.exclusive_ns), (2, 30, 25));
    let main = tree.butterfly(&t, RegionId(0));
    assert_eq!(main.callers.iter().map(edge).collect::<Vec<_>>(), vec![("-".into(), 2, 180)], "no caller");
}

/// The tree's own sums: a node's inclusive time is its exclusive time plus its children's (top down and
/// bottom up), and the roots' inclusive times are every node's exclusive time.
fn check_sums(tree: &CallTree, what: &str) {
    let mut exclusive = 0;
    for k in 0..tree.nodes.len() {
        let n = &tree.nodes[k];
        let kids: u64 = tree.children(k).map(|c| tree.nodes[c].inclusive_ns).sum();
        assert_eq!(n.inclusive_ns, n.exclusive_ns + kids, "{what}: node {k} {n:?}");
        assert!(n.count > 0 || tree.children(k).next().is_some(), "{what}: node {k} counts or encloses");
        exclusive += n.exclusive_ns;
    }
    assert_eq!(tree.total_ns(), exclusive, "{what}");
}

fn check(t: &Trace, what: &str) {
    let span = t.span_ns;
    let windows = [
        TimeWindow::whole(t),
        window(span / 3, 2 * span / 3),
        window(span / 10, span / 10 + span / 20 + 1),
        window(span / 2, span + 1000),
    ];
    let filters: [(&str, &dyn Fn(LocationId) -> bool); 2] = [("all", &|_| true), ("even", &|l| l.0 % 2 == 0)];
    for w in windows {
        for (filter, keep) in filters {
            let what = format!("{what}: [{}, {}], {filter} locations", w.start_ns, w.end_ns);
            let tree = call_tree(t, Some(w), keep);
            let want = region_stats(t, w, keep);
            assert_eq!(tree.region_stats(t.regions.len()), want, "{what}");
            check_sums(&tree, &what);
            let inv = tree.inverted(t);
            check_sums(&inv, &format!("{what} inverted"));
            let roots: Vec<(RegionId, u64, u64)> =
                inv.roots().map(|k| (inv.nodes[k].region, inv.nodes[k].count, inv.nodes[k].inclusive_ns)).collect();
            for (r, count, inclusive) in roots {
                assert_eq!((count, inclusive), (want[r.index()].count, want[r.index()].exclusive_ns), "{what}");
            }
            // The per-location trees hold the merged tree's figures between them.
            let mut per = vec![Default::default(); t.regions.len()];
            for lt in per_location(t, Some(w), keep) {
                for (s, x) in per.iter_mut().zip(lt.tree.region_stats(t.regions.len())) {
                    let s: &mut weft::analyses::profile::RegionStats = s;
                    s.count += x.count;
                    s.inclusive_ns += x.inclusive_ns;
                    s.exclusive_ns += x.exclusive_ns;
                }
            }
            assert_eq!(per, want, "{what} per location");
        }
    }
}

/// Every trace file under ../shared/traces that the readers take (parts of archives and other files they
/// refuse are passed).
fn shared_traces(test: &str) -> Option<Vec<(PathBuf, Trace)>> {
    let dir = common::shared_traces(test)?;
    let mut out = Vec::new();
    for path in common::files_under(&dir) {
        if let Ok(t) = read_path(&path) {
            if !t.intervals.is_empty() {
                out.push((path, t));
            }
        }
    }
    Some(out)
}

#[test]
fn every_shared_trace_reduces_to_its_region_profile() {
    let Some(traces) = shared_traces("call trees of real traces") else { return };
    assert!(traces.len() >= 10, "{} traces with intervals", traces.len());
    for (path, t) in &traces {
        check(t, &path.display().to_string());
    }
    eprintln!("call trees of {} shared traces checked against their profiles", traces.len());
}

fn weft_json(args: &[&str], path: &Path) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_weft")).args(args).arg(path).output().expect("run weft");
    assert!(out.status.success(), "weft {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("JSON")
}

/// `weft calltree --json` against `weft info --json`, with and without a window: the roots' inclusive times
/// add up to the regions' exclusive times; per region, the nodes' counts and exclusive times to its count and
/// exclusive time, and the inclusive times of its nodes without an enclosing node of the region to its
/// inclusive time.
#[test]
fn the_cli_tree_adds_up_to_weft_info() {
    let Some(dir) = common::shared_traces("weft calltree against weft info") else { return };
    for rel in [
        "otf2/tracer-stencil4d-mpi-32/traces.otf2",
        "paraver/paraver-kernel-qsort_beo3/qsort_beo3.prv",
        "chrome-json/hta/call_stack_backward_thread.json",
    ] {
        let path = dir.join(rel);
        let t = read_path(&path).unwrap();
        let w = format!("{}:{}", t.span_ns / 4, t.span_ns / 2);
        for extra in [vec![], vec!["--window", w.as_str()]] {
            let info = weft_json(&[&["info", "--json"], &extra[..]].concat(), &path);
            let tree = weft_json(&[&["calltree", "--json"], &extra[..]].concat(), &path);
            let mut want: HashMap<u64, (u64, u64, u64)> = HashMap::new();
            for r in info["regions"].as_array().unwrap() {
                let f = |k: &str| r[k].as_u64().unwrap();
                want.insert(f("region"), (f("count"), f("inclusive_ns"), f("exclusive_ns")));
            }
            let nodes = tree["nodes"].as_array().unwrap();
            let mut got: HashMap<u64, (u64, u64, u64)> = HashMap::new();
            let mut roots = 0;
            for (k, n) in nodes.iter().enumerate() {
                let f = |k: &str| n[k].as_u64().unwrap();
                let region = f("region");
                // Ancestors by the parent links, which the paths must match.
                let mut ancestors = Vec::new();
                let mut at = n["parent"].as_u64();
                while let Some(p) = at {
                    assert!((p as usize) < k, "{rel}: a parent comes first");
                    ancestors.push(nodes[p as usize]["region"].as_u64().unwrap());
                    at = nodes[p as usize]["parent"].as_u64();
                }
                let path: Vec<&str> = n["path"].as_array().unwrap().iter().map(|s| s.as_str().unwrap()).collect();
                assert_eq!(path.len(), ancestors.len() + 1, "{rel}: {n}");
                assert_eq!(path.last().copied(), Some(t.region_name(RegionId(region as u32))), "{rel}");
                if ancestors.is_empty() {
                    roots += f("inclusive_ns");
                }
                let e = got.entry(region).or_default();
                e.0 += f("count");
                e.2 += f("exclusive_ns");
                if !ancestors.contains(&region) {
                    e.1 += f("inclusive_ns");
                }
            }
            got.retain(|_, v| v.0 > 0);
            assert_eq!(got, want, "{rel} {extra:?}");
            let covered: u64 = want.values().map(|v| v.2).sum();
            assert_eq!(roots, covered, "{rel} {extra:?}: the roots cover what the regions cover");
            assert_eq!(tree["total_ns"].as_u64(), Some(covered), "{rel}");

            // Bottom up: the roots are the regions, each with its exclusive time.
            let inv = weft_json(&[&["calltree", "--json", "--inverted"], &extra[..]].concat(), &path);
            let mut by_root: HashMap<u64, (u64, u64)> = HashMap::new();
            for n in inv["nodes"].as_array().unwrap().iter().filter(|n| n["parent"].is_null()) {
                by_root.insert(
                    n["region"].as_u64().unwrap(),
                    (n["count"].as_u64().unwrap(), n["inclusive_ns"].as_u64().unwrap()),
                );
            }
            let want_roots: HashMap<u64, (u64, u64)> = want.iter().map(|(&r, v)| (r, (v.0, v.2))).collect();
            assert_eq!(by_root, want_roots, "{rel} {extra:?} inverted");
        }
    }
}

#[test]
fn the_cli_selects_locations_and_refuses_bad_input() {
    let Some(dir) = common::shared_traces("weft calltree --locations") else { return };
    let path = dir.join("otf2/tracer-stencil4d-mpi-32/traces.otf2");
    let t = read_path(&path).unwrap();
    let got = weft_json(&["calltree", "--json", "--locations", "0,2-3"], &path);
    let tree = call_tree(&t, None, |l| [0, 2, 3].contains(&l.0));
    assert_eq!(got["nodes"].as_array().unwrap().len(), tree.nodes.len());
    assert_eq!(got["total_ns"].as_u64(), Some(tree.total_ns()));
    let per = weft_json(&["calltree", "--json", "--per-location", "--locations", "0,2-3"], &path);
    let locs: Vec<u64> = per["locations"].as_array().unwrap().iter().map(|l| l["location"].as_u64().unwrap()).collect();
    assert_eq!(locs, vec![0, 2, 3]);
    let sum: u64 = per["locations"].as_array().unwrap().iter().map(|l| l["total_ns"].as_u64().unwrap()).sum();
    assert_eq!(Some(sum), got["total_ns"].as_u64());
    let text =
        Command::new(env!("CARGO_BIN_EXE_weft")).args(["calltree", "--min-share", "0"]).arg(&path).output().unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains("inclusive") && text.contains("call path") && text.contains("total "), "{text}");

    let n = t.locations.len();
    for (args, says) in [
        (vec!["--locations", "x"], "is not a location index".to_string()),
        (vec!["--locations", &format!("0-{n}")], format!("has {n} locations")),
        (vec!["--window", "3:1"], "time window".to_string()),
        (vec!["--butterfly", "no such region"], "no region named 'no such region'".to_string()),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_weft")).arg("calltree").args(&args).arg(&path).output().unwrap();
        assert!(!out.status.success(), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(&says), "{args:?}: {err}");
    }
    let b = weft_json(&["calltree", "--json", "--butterfly", "MPI_Waitall"], &path);
    let r = (0..t.regions.len() as u32).map(RegionId).find(|&r| t.region_name(r) == "MPI_Waitall").unwrap();
    let s = region_stats(&t, TimeWindow::whole(&t), |_| true)[r.index()];
    assert_eq!(b["count"].as_u64(), Some(s.count));
    assert_eq!(b["exclusive_ns"].as_u64(), Some(s.exclusive_ns));
    let callers: u64 = b["callers"].as_array().unwrap().iter().map(|e| e["count"].as_u64().unwrap()).sum();
    assert_eq!(callers, s.count, "every interval has one caller (or none)");
}

/// A store answers as its trace does (the store decoded whole: its tiles keep no call paths yet), and its
/// tree adds up to the store's own `weft info` regions.
#[test]
fn a_store_gives_its_traces_tree() {
    let Some(dir) = common::shared_traces("weft calltree of a store") else { return };
    let tmp = common::TempDir::new("calltree-store");
    for (k, rel) in ["otf2/tracer-stencil4d-mpi-32/traces.otf2", "paraver/paraver-kernel-qsort_beo3/qsort_beo3.prv"]
        .iter()
        .enumerate()
    {
        let trace = dir.join(rel);
        let store = tmp.join(format!("s{k}"));
        let out = Command::new(env!("CARGO_BIN_EXE_weft"))
            .args(["index", &trace.to_string_lossy(), "-o", &store.to_string_lossy()])
            .output()
            .unwrap();
        assert!(out.status.success(), "{rel}: {}", String::from_utf8_lossy(&out.stderr));
        let t = read_path(&trace).unwrap();
        let w = format!("{}:{}", t.span_ns / 4, t.span_ns / 2);
        for extra in [vec![], vec!["--window", w.as_str()], vec!["--inverted"]] {
            let key = |j: serde_json::Value| -> Vec<(serde_json::Value, u64, u64, u64)> {
                let mut v: Vec<_> = j["nodes"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|n| {
                        let f = |k: &str| n[k].as_u64().unwrap();
                        (n["path"].clone(), f("count"), f("inclusive_ns"), f("exclusive_ns"))
                    })
                    .collect();
                v.sort_by_key(|n| n.0.to_string());
                v
            };
            let args = [&["calltree", "--json"], &extra[..]].concat();
            let of_store = weft_json(&args, &store);
            let of_trace = weft_json(&args, &trace);
            assert_eq!(of_store["total_ns"], of_trace["total_ns"], "{rel} {extra:?}");
            assert_eq!(key(of_store), key(of_trace), "{rel} {extra:?}");
        }
    }
}

/// The page's marks of a call path (`calltree_bundle::path_intervals`, which the worker answers): on every
/// shared trace, the intervals of each of the heaviest nodes number its count, top down and bottom up, whole
/// and over a window; and the bundle the worker sends decodes to the same trees.
#[test]
fn every_shared_trace_marks_as_many_intervals_as_a_path_counts() {
    use weft::analyses::calltree_bundle::{path_intervals, BundleTree, CallTreeBundle};
    let Some(traces) = shared_traces("call-path marks of real traces") else { return };
    for (path, t) in &traces {
        for w in [TimeWindow::whole(t), window(t.span_ns / 3, 2 * t.span_ns / 3)] {
            let top = call_tree(t, Some(w), |_| true);
            let inv = top.inverted(t);
            for (tree, inverted) in [(&top, false), (&inv, true)] {
                let mut heavy: Vec<usize> = (0..tree.nodes.len()).collect();
                heavy.sort_by_key(|&k| std::cmp::Reverse(tree.nodes[k].inclusive_ns));
                for &k in heavy.iter().take(12) {
                    let found = path_intervals(t, w, |_| true, &tree.path(k), inverted);
                    let what = format!("{}: {w:?} inverted {inverted} node {k}", path.display());
                    assert_eq!(found.len() as u64, tree.nodes[k].count, "{what}");
                }
            }
            let bundle = CallTreeBundle {
                window: w,
                locations: None,
                inverted: false,
                per_location: false,
                trees: vec![BundleTree { location: None, tree: top }],
            };
            assert_eq!(CallTreeBundle::decode(&bundle.encode(), t).as_ref(), Ok(&bundle), "{}", path.display());
        }
    }
}
