//! Comparing stores (issue #54): a store's side of a comparison read from its tiles (`store::read::compare`,
//! what the page's store worker answers) is the side of the trace it was indexed from, for the whole run and
//! for windows, with what a store does not keep named (the matrix; a window's moments; each location's time
//! without `--waits`); and `weft diff STORE STORE` (and STORE against TRACE) gives the traces' comparison,
//! on a generated pair whose difference is known by construction (one region twice as slow on one thread).

use crate::common::TempDir;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use weft::analyses::compare::{pair, side, Align, CompareOptions, Part, Run};
use weft::analyses::moments::TimeWindow;
use weft::index::{build, BuildOptions};
use weft::readers::otf2::read_archive;
use weft::samples::otf2_gen::{archive, GenConfig};
use weft::samples::otf2_regions::{code, Program, RegionSpec, Step};
use weft::store::read::compare::{side as store_side, tiles, StoreCompareError};
use weft::store::{MemoryStore, Store};

/// `threads` threads each running `main` around 10 iterations of `compute` (`compute_ns(thread)` long) and
/// `exchange` (50 ns), back to back from 0.
fn program(threads: usize, compute_ns: impl Fn(usize) -> u64) -> Program {
    let region =
        |name: &str| RegionSpec { name: name.into(), role: code::ROLE_FUNCTION, paradigm: code::PARADIGM_USER };
    let threads = (0..threads)
        .map(|t| {
            let c = compute_ns(t);
            let mut s = vec![Step::Enter(0, 0)];
            for k in 0..10 {
                let at = k * (c + 50);
                s.extend([
                    Step::Enter(1, at),
                    Step::Leave(1, at + c),
                    Step::Enter(2, at + c),
                    Step::Leave(2, at + c + 50),
                ]);
            }
            s.push(Step::Leave(0, 10 * (c + 50)));
            s
        })
        .collect();
    Program { regions: vec![region("main"), region("compute"), region("exchange")], threads }
}

fn options(window: Option<(u64, u64)>) -> CompareOptions {
    CompareOptions { window: window.map(|(a, b)| TimeWindow { start_ns: a, end_ns: b }), ..CompareOptions::default() }
}

/// The store's side from its tiles is the trace's, part for part, where the store keeps the part; and what it
/// lacks is named. Read only from the tiles `tiles` names (a store holding only those answers the same).
fn assert_store_side_is_trace_side(name: &str, t: &weft::model::Trace, o: &BuildOptions) {
    let built = build(t, o);
    let full = Store::open(built.to_memory()).expect("store opens");
    let skeleton = full.skeleton().unwrap();
    let span = t.span_ns;
    for w in [None, Some((0, span)), Some((span / 7, span / 2 + 3)), Some((span / 3, span / 3 + 1)), Some((1, span))] {
        let what = format!("{name} window {w:?} waits {}", o.waits);
        let opts = options(w);
        let want = side(Run { trace: t, waits: true, kept: None }, 'A', &opts).unwrap();
        // A store holding the manifest and only the tiles named: the worker's case.
        let named: Vec<usize> = tiles(&full, 'A', &opts).unwrap();
        let mut only = built.to_memory();
        let keep: std::collections::HashSet<String> =
            named.iter().map(|&i| full.manifest.tiles[i].path.clone()).collect();
        only.files.retain(|p, _| p == weft::store::MANIFEST || keep.contains(p));
        let partial = Store::open(only).expect("store opens");
        let got = store_side(&partial, &skeleton, 'A', &opts).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(got.regions, want.regions, "{what}: the region profile from the call-path tiles");
        assert_eq!((got.span_ns, got.window, got.windowed), (want.span_ns, want.window, want.windowed), "{what}");
        assert_eq!(got.location_order, want.location_order, "{what}");
        let lacks = |p: Part| got.not_kept.iter().any(|n| n.part == p);
        assert!(lacks(Part::CommMatrix), "{what}");
        if w.is_none() {
            assert!(!lacks(Part::Locations), "{what}");
            for (g, x) in got.locations.iter().zip(&want.locations) {
                assert_eq!(g.moments.location, x.moments.location, "{what}");
                assert_eq!(g.moments.m0_ns, x.moments.m0_ns, "{what}");
                for (a, b) in [(g.moments.m1_ns, x.moments.m1_ns), (g.moments.m2_ns, x.moments.m2_ns)] {
                    assert!((a - b).abs() <= 1e-6 * b.abs().max(1.0), "{what}: {a} against {b}");
                }
                if o.waits {
                    assert_eq!(g.total_ns, x.total_ns, "{what}: the location's time from the wait summary");
                }
            }
            assert_eq!(got.locations.len(), want.locations.len(), "{what}");
            assert_eq!(lacks(Part::LocationTime), !o.waits, "{what}");
        } else {
            assert!(got.locations.is_empty() && lacks(Part::Locations), "{what}");
        }
        if o.waits {
            assert_eq!(got.waits, want.waits, "{what}: the kept wait states");
        } else {
            assert_eq!(got.waits, None, "{what}");
        }
    }
    // A region's instance cannot be aligned at from the tiles: said, with the run.
    let o = CompareOptions { align: Align::parse("region:compute:2").unwrap(), ..CompareOptions::default() };
    assert_eq!(store_side(&full, &skeleton, 'B', &o), Err(StoreCompareError::RegionAlign { side: 'B' }));
}

#[test]
fn a_store_side_from_its_tiles_is_its_trace_side() {
    let (files, _) = archive(&GenConfig { threads: 2, ..GenConfig::new(5, 30_000) });
    let t = read_archive("traces.otf2", &files).expect("archive reads");
    for waits in [false, true] {
        // Small blocks and tiles: many windows, levels and blocks, and windows' edges inside tiles.
        let o = BuildOptions { block_locations: 3, tile_intervals: 400, waits, ..BuildOptions::default() };
        assert_store_side_is_trace_side("mpi", &t, &o);
    }
    let slow = read_archive("traces.otf2", &program(4, |k| if k == 3 { 2000 } else { 1000 }).archive()).unwrap();
    assert_store_side_is_trace_side("slow", &slow, &BuildOptions { tile_intervals: 8, ..BuildOptions::default() });
}

#[test]
fn two_store_sides_pair_as_the_traces_and_leave_out_what_they_lack() {
    let a = read_archive("traces.otf2", &program(4, |_| 1000).archive()).unwrap();
    let b = read_archive("traces.otf2", &program(4, |k| if k == 3 { 2000 } else { 1000 }).archive()).unwrap();
    let o = BuildOptions { tile_intervals: 8, ..BuildOptions::default() };
    let (sa, sb) = (Store::open(build(&a, &o).to_memory()).unwrap(), Store::open(build(&b, &o).to_memory()).unwrap());
    let opts = CompareOptions::default();
    let side_of = |s: &Store<MemoryStore>, w| store_side(s, &s.skeleton().unwrap(), w, &opts).unwrap();
    let stores = pair(side_of(&sa, 'A'), side_of(&sb, 'B'), &opts);
    let traces = weft::analyses::compare::compare(
        Run { trace: &a, waits: true, kept: None },
        Run { trace: &b, waits: true, kept: None },
        &opts,
    )
    .unwrap();
    assert_eq!(stores.regions, traces.regions, "the region profile diff");
    assert_eq!(stores.span_ns, traces.span_ns);
    assert_eq!(stores.regions[0].name, "compute");
    assert_eq!(stores.regions[0].delta_ns, 10_000);
    // Each location's busy time is compared; its time (not kept without --waits) is not.
    for (s, t) in stores.locations.iter().zip(&traces.locations) {
        assert_eq!(s.delta.busy_ns, t.delta.busy_ns);
        assert_eq!(s.delta.total_ns, 0);
    }
    assert!(stores.comm_matrix.a.senders.is_empty() && stores.comm_matrix.b.senders.is_empty());
    let parts: Vec<(char, Part)> = stores.not_compared.iter().map(|n| (n.run, n.part)).collect();
    assert_eq!(
        parts,
        [('A', Part::CommMatrix), ('A', Part::LocationTime), ('B', Part::CommMatrix), ('B', Part::LocationTime)]
    );
    assert!(stores.summary.contains("compute +10.000 us (+25.0 %)"), "{}", stores.summary);
    assert!(stores.summary.contains("process / thread 3 +10.000 us"), "{}", stores.summary);
    // The traces' comparison says nothing of parts left out (its JSON unchanged).
    assert!(traces.not_compared.is_empty());
    assert!(serde_json::to_value(&traces).unwrap().get("not_compared").is_none());
}

fn weft_json(args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_weft")).args(args).output().expect("run weft");
    assert!(out.status.success(), "weft {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("weft {args:?}: not JSON: {e}"))
}

fn write(dir: &TempDir, name: &str, p: &Program) -> PathBuf {
    for (f, bytes) in &p.archive().files {
        dir.put(&format!("{name}/{f}"), bytes);
    }
    dir.join(name).join("traces.otf2")
}

fn index(trace: &Path, out: &Path) {
    let o = Command::new(env!("CARGO_BIN_EXE_weft"))
        .args(["index", &trace.to_string_lossy(), "-o", &out.to_string_lossy(), "--waits"])
        .output()
        .expect("run weft");
    assert!(o.status.success(), "weft index: {}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn weft_diff_of_two_stores_is_the_diff_of_their_traces() {
    let dir = TempDir::new("diff-stores");
    let a = write(&dir, "a", &program(4, |_| 1000));
    let b = write(&dir, "b", &program(4, |k| if k == 3 { 2000 } else { 1000 }));
    let (sa, sb) = (dir.join("a-store"), dir.join("b-store"));
    index(&a, &sa);
    index(&b, &sb);
    let s = |p: &Path| p.to_string_lossy().into_owned();
    for extra in [&[][..], &["--window", "2us:9us"][..], &["--ranks", "proportional"][..]] {
        let run = |x: &Path, y: &Path| {
            let mut args = vec!["diff".to_string(), s(x), s(y), "--json".into()];
            args.extend(extra.iter().map(|e| e.to_string()));
            weft_json(&args.iter().map(String::as_str).collect::<Vec<_>>())
        };
        let traces = run(&a, &b);
        for (x, y) in [(&sa, &sb), (&sa, &b), (&a, &sb)] {
            let v = run(x, y);
            let what = format!("{x:?} {y:?} {extra:?}");
            for key in ["span_ns", "regions", "locations", "comm_matrix", "options", "windows", "summary"] {
                assert_eq!(v[key], traces[key], "{what}: {key}");
            }
            // Indexed with --waits, each store's side has its trace's wait states.
            assert_eq!(v["waits"]["a"], traces["waits"]["a"], "{what}");
            assert_eq!(v["waits"]["b"], traces["waits"]["b"], "{what}");
        }
        assert_eq!(traces["regions"][0]["name"], "compute", "{extra:?}");
    }
}
