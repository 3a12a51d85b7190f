//! A store's call tree from its call-path tiles (store format 8, `store::read::calltree`) is the trace's
//! (`analyses::calltree`), node for node: on generated traces (many windows, blocks and pyramid levels, the
//! nesting cases of `samples::nesting`) and on the shared OTF2 traces indexed, for the whole run, windows
//! aligned to tile boundaries and not, a window inside one level-0 window, an instant, merged and per
//! location, over a location subset; the roots' inclusive times and the nodes' exclusive times add up to the
//! region profile of the window (what `weft info --window --json` prints). The CLI on a store answers as on
//! its trace.

use crate::common;

use common::read::read_path;
use std::process::Command;
use weft::analyses::calltree::{call_tree, per_location};
use weft::analyses::moments::TimeWindow;
use weft::analyses::profile::region_stats;
use weft::index::{build, BuildOptions};
use weft::model::{LocationId, Trace};
use weft::readers::otf2::read_archive;
use weft::samples::nesting::nesting_trace;
use weft::samples::otf2_gen::{archive, GenConfig};
use weft::store::read::calltree::{store_call_tree, store_per_location};
use weft::store::{MemoryStore, Store, TileKind};

fn store_of(t: &Trace, o: &BuildOptions) -> Store<MemoryStore> {
    Store::open(build(t, o).to_memory()).expect("store opens")
}

/// The windows to ask: the whole run, tile-aligned ones (a window's start to another's; a level-2 tile), and
/// ones that are not (inside one window, across many, past the end, an instant).
fn windows(s: &Store<MemoryStore>) -> Vec<Option<TimeWindow>> {
    let tl = s.manifest.tiling;
    let span = s.manifest.span_ns;
    let w = tl.window_ns;
    let n = tl.windows as u64;
    let mut out = vec![None, Some(TimeWindow { start_ns: 0, end_ns: span })];
    let mut add = |a: u64, b: u64| out.push(Some(TimeWindow { start_ns: a, end_ns: b.max(a) }));
    add(w, (n / 2).max(1) * w);
    add(4 * w, 8 * w);
    add(w, span);
    add(0, 3 * w);
    add(w / 3, span / 2 + 7);
    add(w + w / 2, w + w / 2 + w / 5);
    add(w - 1, w + 1);
    add(span / 3, span / 3);
    add(w, w);
    add(span / 5, span + 1000);
    add(3, span - 3);
    out
}

fn check(name: &str, t: &Trace, s: &Store<MemoryStore>) {
    let skeleton = s.skeleton().unwrap();
    let nl = t.locations.len() as u32;
    let subsets: Vec<Box<dyn Fn(LocationId) -> bool>> =
        vec![Box::new(|_| true), Box::new(move |l: LocationId| l.0 % 3 == 1 || l.0 + 1 == nl)];
    for w in windows(s) {
        for (k, keep) in subsets.iter().enumerate() {
            let what = format!("{name} window {w:?} locations {k}");
            let want = call_tree(t, w, keep);
            let got = store_call_tree(s, &skeleton, w, keep).unwrap();
            assert_eq!(got, want, "{what}");
            let want = per_location(t, w, keep);
            let got = store_per_location(s, &skeleton, w, keep).unwrap();
            assert_eq!(got, want, "{what} per location");
            // The roots cover what the regions' exclusive times cover; per region, the profile's figures.
            let tree = store_call_tree(s, &skeleton, w, keep).unwrap();
            let whole = w.unwrap_or(TimeWindow::whole(t));
            let profile = region_stats(t, whole, keep);
            let covered: u64 = profile.iter().map(|r| r.exclusive_ns).sum();
            assert_eq!(tree.total_ns(), covered, "{what}");
            assert_eq!(tree.region_stats(t.regions.len()), profile, "{what}");
        }
    }
}

#[test]
fn tiles_give_the_traces_tree_on_generated_traces() {
    let cfg = GenConfig { threads: 2, ..GenConfig::new(4, 60_000) };
    let t = read_archive("traces.otf2", &archive(&cfg).0).expect("generated archive reads");
    for (block, tile) in [(3, 1_000), (64, 200), (5, 50_000)] {
        let o = BuildOptions { block_locations: block, tile_intervals: tile, ..BuildOptions::default() };
        let s = store_of(&t, &o);
        assert!(s.manifest.tiles.iter().any(|e| e.kind == TileKind::CallPaths));
        check(&format!("generated, blocks of {block}, tiles of {tile}"), &t, &s);
    }
    for seed in 1..4 {
        let t = nesting_trace(seed);
        let o = BuildOptions { block_locations: 2, tile_intervals: 40, ..BuildOptions::default() };
        let s = store_of(&t, &o);
        assert!(s.manifest.tiling.windows >= 8, "{} windows", s.manifest.tiling.windows);
        check(&format!("nesting {seed}"), &t, &s);
    }
}

#[test]
fn tiles_give_the_traces_tree_on_the_shared_otf2_traces() {
    let Some(dir) = common::shared_traces("store call trees of the shared OTF2 traces") else { return };
    let mut n = 0;
    for path in common::files_under(&dir.join("otf2")).into_iter().filter(|p| p.ends_with("traces.otf2")) {
        let Ok(t) = read_path(&path) else { continue };
        if t.intervals.is_empty() {
            continue;
        }
        let o = BuildOptions { block_locations: 4, tile_intervals: 500, ..BuildOptions::default() };
        check(&path.display().to_string(), &t, &store_of(&t, &o));
        n += 1;
    }
    assert!(n >= 3, "{n} OTF2 traces checked");
}

fn weft_json(args: &[&str]) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_weft")).args(args).output().expect("run weft");
    assert!(out.status.success(), "weft {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("JSON")
}

/// `weft calltree STORE --json` prints what `weft calltree TRACE --json` prints, and its roots add up to
/// the store's `weft info --window --json` regions, whole and in windows across tile boundaries.
#[test]
fn the_cli_answers_a_store_from_its_tiles_as_its_trace() {
    let Some(dir) = common::shared_traces("weft calltree STORE from the tiles") else { return };
    let tmp = common::TempDir::new("calltree-tiles");
    let trace = dir.join("otf2/tracer-stencil4d-mpi-32/traces.otf2");
    let store = tmp.join("s");
    let out = Command::new(env!("CARGO_BIN_EXE_weft"))
        .args(["index", &trace.to_string_lossy(), "-o", &store.to_string_lossy(), "--tile-intervals", "300"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let m: serde_json::Value = serde_json::from_slice(&std::fs::read(store.join("manifest.json")).unwrap()).unwrap();
    assert!(m["tiling"]["windows"].as_u64().unwrap() >= 4, "several windows: {}", m["tiling"]);
    let w = m["tiling"]["window_ns"].as_u64().unwrap();
    let span = m["span_ns"].as_u64().unwrap();
    let (s, t) = (store.to_string_lossy().to_string(), trace.to_string_lossy().to_string());
    for window in [None, Some(format!("{w}:{}", 3 * w)), Some(format!("{}:{}", w / 3, span / 2 + 11))] {
        let extra: Vec<&str> = window.as_deref().map(|x| vec!["--window", x]).unwrap_or_default();
        for more in [vec![], vec!["--inverted"], vec!["--per-location"], vec!["--locations", "1,5-9"]] {
            let run = |f: &str| weft_json(&[&["calltree", "--json"][..], &extra[..], &more[..], &[f][..]].concat());
            assert_eq!(run(&s), run(&t), "{window:?} {more:?}");
        }
        let tree = weft_json(&[&["calltree", "--json"][..], &extra[..], &[s.as_str()][..]].concat());
        let info = weft_json(&[&["info", "--json"][..], &extra[..], &[s.as_str()][..]].concat());
        let covered: u64 =
            info["regions"].as_array().unwrap().iter().map(|r| r["exclusive_ns"].as_u64().unwrap()).sum();
        let roots: u64 = tree["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|n| n["parent"].is_null())
            .map(|n| n["inclusive_ns"].as_u64().unwrap())
            .sum();
        let exclusive: u64 =
            tree["nodes"].as_array().unwrap().iter().map(|n| n["exclusive_ns"].as_u64().unwrap()).sum();
        assert_eq!((roots, exclusive), (covered, covered), "{window:?}");
    }
}
