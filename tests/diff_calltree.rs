//! `weft diff --calltree` and `weft render diff --flame` (issue #54) through the binary, on OTF2 pairs whose
//! difference is known by construction: four threads run `main > [setup, iterations of compute > kernel]`;
//! in run B thread 2's kernel takes twice as long and no thread runs `setup`. Every path's figures on each
//! side are what `weft calltree --json` prints of that run alone (over the whole run, and over the aligned
//! window the comparison analyses), and the only changes are the kernel's own time (and its ancestors'
//! inclusive time) and the setup path gone. The flame graph colours the kernel's box red, setup is not in it.

use crate::common::TempDir;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use weft::samples::otf2_regions::{code, Program, RegionSpec, Step};

fn weft(args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_weft")).args(args).output().expect("run weft");
    assert!(out.status.success(), "weft {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("weft {args:?}: not JSON: {e}"))
}

const THREADS: usize = 4;
const ITERATIONS: u64 = 6;
const SLOW: usize = 2;
const SETUP_NS: u64 = 300;
const COMPUTE_OWN_NS: u64 = 100;

/// The program above; `kernel_ns(thread)`, and whether the threads run `setup` first.
fn program(kernel_ns: impl Fn(usize) -> u64, setup: bool) -> Program {
    let region =
        |name: &str| RegionSpec { name: name.into(), role: code::ROLE_FUNCTION, paradigm: code::PARADIGM_USER };
    let (main, setup_r, compute, kernel) = (0, 1, 2, 3);
    let threads = (0..THREADS)
        .map(|t| {
            let k = kernel_ns(t);
            let mut s = vec![Step::Enter(main, 0)];
            let mut at = 0;
            if setup {
                s.extend([Step::Enter(setup_r, 0), Step::Leave(setup_r, SETUP_NS)]);
                at = SETUP_NS;
            }
            for _ in 0..ITERATIONS {
                s.extend([
                    Step::Enter(compute, at),
                    Step::Enter(kernel, at + COMPUTE_OWN_NS),
                    Step::Leave(kernel, at + COMPUTE_OWN_NS + k),
                    Step::Leave(compute, at + COMPUTE_OWN_NS + k),
                ]);
                at += COMPUTE_OWN_NS + k;
            }
            s.push(Step::Leave(main, at));
            s
        })
        .collect();
    Program { regions: ["main", "setup", "compute", "kernel"].map(region).to_vec(), threads }
}

fn write(dir: &TempDir, name: &str, p: &Program) -> PathBuf {
    for (f, bytes) in &p.archive().files {
        dir.put(&format!("{name}/{f}"), bytes);
    }
    dir.join(name).join("traces.otf2")
}

/// `weft calltree --json`'s merged tree by path: (count, inclusive, exclusive), paths of one name summed.
fn tree(path: &Path, window: Option<String>) -> BTreeMap<Vec<String>, [u64; 3]> {
    let p = path.to_string_lossy();
    let mut args = vec!["calltree", &p, "--json"];
    let w;
    if let Some(window) = window {
        w = window;
        args.extend(["--window", &w]);
    }
    let v = weft(&args);
    let mut out: BTreeMap<Vec<String>, [u64; 3]> = BTreeMap::new();
    for n in v["nodes"].as_array().expect("nodes") {
        let path = n["path"].as_array().unwrap().iter().map(|s| s.as_str().unwrap().to_string()).collect();
        let f = out.entry(path).or_default();
        for (k, key) in ["count", "inclusive_ns", "exclusive_ns"].iter().enumerate() {
            f[k] += n[key].as_u64().unwrap();
        }
    }
    out
}

/// A path's figures in the diff: ([a count, a incl, a excl], [b ...], delta incl, delta excl).
type PathRow = ([u64; 3], [u64; 3], i64, i64);

/// The diff's paths by path.
fn paths(v: &Value) -> BTreeMap<Vec<String>, PathRow> {
    v["calltree"]["paths"]
        .as_array()
        .expect("calltree paths")
        .iter()
        .map(|p| {
            let u = |k: &str| p[k].as_u64().unwrap();
            let path = p["path"].as_array().unwrap().iter().map(|s| s.as_str().unwrap().to_string()).collect();
            let (a, b) = (
                [u("a_count"), u("a_inclusive_ns"), u("a_exclusive_ns")],
                [u("b_count"), u("b_inclusive_ns"), u("b_exclusive_ns")],
            );
            (path, (a, b, p["delta_ns"].as_i64().unwrap(), p["delta_exclusive_ns"].as_i64().unwrap()))
        })
        .collect()
}

/// Each path's sides are the two single-run trees' figures (0 where a run lacks it), deltas B minus A.
fn assert_sides_are_calltrees(v: &Value, a: &BTreeMap<Vec<String>, [u64; 3]>, b: &BTreeMap<Vec<String>, [u64; 3]>) {
    let d = paths(v);
    let union: std::collections::BTreeSet<&Vec<String>> = a.keys().chain(b.keys()).collect();
    assert_eq!(d.keys().collect::<std::collections::BTreeSet<_>>(), union, "the paths of either tree, once each");
    for (path, (fa, fb, di, de)) in &d {
        let (wa, wb) = (a.get(path).copied().unwrap_or_default(), b.get(path).copied().unwrap_or_default());
        assert_eq!((*fa, *fb), (wa, wb), "{path:?}");
        assert_eq!(*di, wb[1] as i64 - wa[1] as i64, "{path:?}");
        assert_eq!(*de, wb[2] as i64 - wa[2] as i64, "{path:?}");
    }
    let total =
        |t: &BTreeMap<Vec<String>, [u64; 3]>| t.iter().filter(|(p, _)| p.len() == 1).map(|(_, f)| f[1]).sum::<u64>();
    assert_eq!(v["calltree"]["total_ns"]["a"].as_u64(), Some(total(a)));
    assert_eq!(v["calltree"]["total_ns"]["b"].as_u64(), Some(total(b)));
}

#[test]
fn call_paths_pair_as_the_single_run_trees_and_only_the_kernel_changed() {
    let dir = TempDir::new("diff-calltree");
    let a = write(&dir, "a", &program(|_| 1000, true));
    let b = write(&dir, "b", &program(|t| if t == SLOW { 2000 } else { 1000 }, false));
    let (sa, sb) = (a.to_string_lossy().into_owned(), b.to_string_lossy().into_owned());
    let v = weft(&["diff", &sa, &sb, "--json", "--calltree"]);
    let (ta, tb) = (tree(&a, None), tree(&b, None));
    assert_sides_are_calltrees(&v, &ta, &tb);
    // By construction: the kernel's own time grew by ITERATIONS x 1 us on one thread, setup is gone, nothing
    // else's own time changed.
    let d = paths(&v);
    let key = |p: &[&str]| p.iter().map(|s| s.to_string()).collect::<Vec<String>>();
    let extra = (ITERATIONS * 1000) as i64;
    assert_eq!(d[&key(&["main", "compute", "kernel"])].3, extra);
    assert_eq!(d[&key(&["main", "compute", "kernel"])].2, extra);
    assert_eq!(d[&key(&["main", "compute"])].2, extra, "compute's inclusive time holds the kernel's");
    assert_eq!(d[&key(&["main", "compute"])].3, 0);
    assert_eq!(
        d[&key(&["main", "setup"])],
        (
            [THREADS as u64, THREADS as u64 * SETUP_NS, THREADS as u64 * SETUP_NS],
            [0; 3],
            -((THREADS as u64 * SETUP_NS) as i64),
            -((THREADS as u64 * SETUP_NS) as i64)
        )
    );
    let changed: Vec<&Vec<String>> = d.iter().filter(|(_, f)| f.3 != 0).map(|(p, _)| p).collect();
    assert_eq!(changed, [&key(&["main", "compute", "kernel"]), &key(&["main", "setup"])]);
    // The critical path by region: each side is `weft critical-path --json`'s, the kernel grew on it.
    let on_path = |p: &Path| -> BTreeMap<String, u64> {
        let v = weft(&["critical-path", &p.to_string_lossy(), "--json"]);
        v["by_region"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| (r["name"].as_str().unwrap().to_string(), r["ns"].as_u64().unwrap()))
            .collect()
    };
    let (pa, pb) = (on_path(&a), on_path(&b));
    let rows = v["waits"]["critical_path"].as_array().expect("the critical path's regions");
    assert!(!rows.is_empty());
    for r in rows {
        let name = r["name"].as_str().unwrap();
        let (x, y) = (pa.get(name).copied().unwrap_or(0), pb.get(name).copied().unwrap_or(0));
        assert_eq!((r["a_ns"].as_u64(), r["b_ns"].as_u64()), (Some(x), Some(y)), "{name}");
        assert_eq!(r["delta_ns"].as_i64(), Some(y as i64 - x as i64), "{name}");
    }
    assert_eq!(rows.len(), pa.keys().chain(pb.keys()).collect::<std::collections::BTreeSet<_>>().len());
    assert_eq!(rows[0]["name"], "kernel", "the region that grew most on the path first: {rows:?}");
    // The JSON without --calltree has no such key (the stable keys unchanged).
    assert!(weft(&["diff", &sa, &sb, "--json"]).get("calltree").is_none());

    // Aligned at the second compute and windowed: each side is `weft calltree --window` of its own window.
    let v = weft(&["diff", &sa, &sb, "--json", "--calltree", "--align", "region:compute:2", "--window", "0:2500"]);
    let w = |s: &str| {
        let x = &v["windows"][s];
        Some(format!("{}:{}", x["start_ns"].as_u64().unwrap(), x["end_ns"].as_u64().unwrap()))
    };
    assert_sides_are_calltrees(&v, &tree(&a, w("a")), &tree(&b, w("b")));

    // The picture: B's tree, the kernel's box red (own time +20 %: mix 20 % of the way to full red), setup
    // not drawn (B has none), compute and main grey.
    let svg = dir.join("flame.svg");
    let out = Command::new(env!("CARGO_BIN_EXE_weft"))
        .args(["render", "diff", &sa, &sb, "--flame", "-o", &svg.to_string_lossy()])
        .output()
        .expect("run weft");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let svg = std::fs::read_to_string(svg).expect("the SVG");
    assert!(svg.contains(">kernel<") && svg.contains(">compute<") && svg.contains(">main<"), "{svg}");
    assert!(!svg.contains(">setup<"), "B has no setup");
    let rects = |fill: &str| svg.lines().filter(|l| l.starts_with("<rect") && l.contains(fill)).count();
    assert_eq!(rects("fill=\"#eeadae\""), 1, "the kernel's box, 20 % of the way to red");
    assert_eq!(rects("fill=\"#c3c7cd\""), 3, "main, compute and the legend's swatch unchanged");
}
