//! The wait states in a store (issue #53, store format 6; crates/index/src/waits.rs, crates/store/src/read/waits.rs):
//! `weft index --waits` (opt-in: `BuildOptions::waits`) computes them from the store's own level-0 tiles, so `weft waits STORE` gives exactly the report
//! `weft waits TRACE` gives (`diagnosis::wait_report` of `wait_states`), whole run and windows, root causes
//! included; for generated archives and the real ones in ../shared/traces, built whole, streamed, sharded and
//! merged; without it a store has none and says how to get them.
//! The critical path (format 7): `weft index --waits` walks it through the store's waits and keeps it, so
//! `weft critical-path STORE` prints what `weft critical-path TRACE` prints (same keys, same numbers) and the
//! path tiles hold the trace's path segments; stores byte-identical across threads, shards and streaming.

use crate::common;

use std::collections::BTreeMap;
use std::path::PathBuf;
use weft::analyses::diagnosis::critical_path::{critical_path, path_report, CriticalPath, PathReport};
use weft::analyses::diagnosis::waits::{wait_report, wait_states, WaitReport};
use weft::index::stream::{index_otf2, MemorySink, StreamOptions};
use weft::index::{build, build_part, merge, BuildOptions, BuiltStore, MemorySpill, Shard};
use weft::model::Trace;
use weft::readers::otf2::{open_stream, read_archive, ArchiveFiles, FolderFiles};
use weft::samples::otf2_gen::{archive, GenConfig};
use weft::store::format::manifest::TileKind;
use weft::store::read::waits::report;
use weft::store::read::Store;
use weft::store::{MemoryStore, MANIFEST};

/// The trace's reports: the whole run and three windows (the first third, a middle, past the end).
fn reports(t: &Trace) -> Vec<(Option<(u64, u64)>, WaitReport)> {
    let states = wait_states(t);
    let s = t.span_ns;
    [None, Some((0, s / 3)), Some((s / 4, s / 2 + 7)), Some((s / 2, s + 10))]
        .into_iter()
        .map(|w| (w, wait_report(t, &states, w)))
        .collect()
}

fn assert_store_reports(what: &str, store: MemoryStore, want: &[(Option<(u64, u64)>, WaitReport)]) {
    let store = Store::open(store).unwrap_or_else(|e| panic!("{what}: the store opens: {e}"));
    for (w, r) in want {
        let got = report(&store, *w).unwrap_or_else(|e| panic!("{what}: {w:?}: {e}"));
        assert_eq!(
            serde_json::to_string(&got).unwrap(),
            serde_json::to_string(r).unwrap(),
            "{what}: window {w:?}: the store's report is not the trace's"
        );
    }
}

/// The trace's critical path and its report.
fn trace_path(t: &Trace) -> (CriticalPath, PathReport) {
    let path = critical_path(t, &wait_states(t));
    let report = path_report(t, &path);
    (path, report)
}

/// The store's critical path is the trace's: the manifest's report (`weft critical-path --json`'s bytes) and
/// the path tiles' segments, whole and in a window.
fn assert_store_path(what: &str, store: &MemoryStore, want: &(CriticalPath, PathReport)) {
    use weft::store::read::critical_path::{missing, segments};
    let store = Store::open(store.clone()).unwrap_or_else(|e| panic!("{what}: the store opens: {e}"));
    assert_eq!(missing(&store), None, "{what}: a store indexed with --waits keeps its critical path");
    let kept = store.manifest.critical_path.as_ref().expect("kept");
    assert_eq!(
        serde_json::to_string(&kept.report).unwrap(),
        serde_json::to_string(&want.1).unwrap(),
        "{what}: the store's critical path is not the trace's"
    );
    assert_eq!(kept.segments, want.0.segments.len() as u64, "{what}: segment count");
    let all = segments(&store, 0, u64::MAX).unwrap_or_else(|e| panic!("{what}: path tiles: {e}"));
    assert_eq!(all, want.0.segments, "{what}: the path tiles' segments are not the trace's");
    let span = store.manifest.span_ns;
    let (t0, t1) = (span / 3, span / 2 + 1);
    let inside: Vec<_> = want.0.segments.iter().copied().filter(|s| s.start_ns < t1 && s.end_ns > t0).collect();
    assert_eq!(segments(&store, t0, t1).unwrap(), inside, "{what}: the segments of a window");
}

fn streamed(name: &str, files: &(dyn ArchiveFiles + Sync), o: &BuildOptions) -> MemoryStore {
    let sink = MemorySink::default();
    let stream = open_stream(name, files).expect("archive opens");
    let so = StreamOptions {
        build: o.clone(),
        memory: 1 << 30,
        event_buffer: 0,
        shard: None,
        held: 0,
        runs: 0,
        range_intervals: 0,
    };
    let done = index_otf2(stream, &so, &mut MemorySpill::default(), &sink, &|_| {}).expect("streamed index");
    let mut files = sink.files.into_inner().unwrap();
    files.insert(MANIFEST.into(), BuiltStore { manifest: done.manifest, tiles: Vec::new() }.manifest_json());
    MemoryStore { files }
}

/// `n` shards built and merged, then the wait states added as `weft merge` does (when every part asked).
fn sharded(t: &Trace, o: &BuildOptions, n: u32) -> MemoryStore {
    let parts: Vec<_> = (0..n).map(|k| build_part(t, o, Shard { index: k, count: n })).collect();
    let manifests: Vec<_> = parts.iter().enumerate().map(|(k, p)| (format!("part {k}"), p.part.clone())).collect();
    let merged = merge(&manifests).expect("parts merge");
    let mut files: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    for (e, &k) in merged.manifest.tiles.iter().zip(&merged.tile_part) {
        let (_, bytes) = parts[k].tiles.iter().find(|(p, _)| *p == e.path).expect("the part holds its tile");
        files.insert(e.path.clone(), bytes.clone());
    }
    assert_eq!(merged.waits, o.waits, "the merge asks for the wait states when its parts did");
    let mut m = merged.manifest;
    let mut added = Vec::new();
    if merged.waits {
        weft::index::waits::add_waits(
            &mut m,
            &|p| files.get(p).cloned().ok_or_else(|| format!("{p}: missing")),
            &mut |p, b| {
                added.push((p.to_string(), b.to_vec()));
                Ok(())
            },
        )
        .expect("waits of the merged store");
    }
    files.extend(added);
    files.insert(MANIFEST.into(), BuiltStore { manifest: m, tiles: Vec::new() }.manifest_json());
    MemoryStore { files }
}

/// The whole build's store without wait states, then its wait states added within `memory`
/// (`index::waits::add_waits_within`, its sorts' runs in a spill in memory): the bytes spilled, and the store.
fn within(t: &Trace, o: &BuildOptions, memory: u64) -> (u64, MemoryStore) {
    let plain = build(t, &BuildOptions { waits: false, ..o.clone() });
    let mut files: BTreeMap<String, Vec<u8>> = plain.tiles.iter().cloned().collect();
    let mut m = plain.manifest;
    let mut added = Vec::new();
    let spilled = weft::index::waits::add_waits_within(
        &mut m,
        &|p| files.get(p).cloned().ok_or_else(|| format!("{p}: missing")),
        &mut |p, b| {
            added.push((p.to_string(), b.to_vec()));
            Ok(())
        },
        &mut MemorySpill::default(),
        memory,
    )
    .unwrap_or_else(|e| panic!("waits within {memory} bytes: {e}"));
    files.extend(added);
    files.insert(MANIFEST.into(), BuiltStore { manifest: m, tiles: Vec::new() }.manifest_json());
    (spilled, MemoryStore { files })
}

fn assert_all_ways(name: &str, files: &(dyn ArchiveFiles + Sync)) -> u64 {
    let t = read_archive(name, files).expect("archive reads");
    let want = reports(&t);
    let path = trace_path(&t);
    assert_eq!(path.1.length_ns, t.span_ns, "{name}: the trace's path is its span");
    for o in [
        BuildOptions { waits: true, ..BuildOptions::default() },
        BuildOptions { block_locations: 2, tile_intervals: 700, threads: 2, waits: true, ..BuildOptions::default() },
    ] {
        let whole = build(&t, &o);
        let what = format!("{name} (block {}, tile {})", o.block_locations, o.tile_intervals);
        assert_store_reports(&format!("{what}: whole"), whole.to_memory(), &want);
        assert_store_path(&format!("{what}: whole"), &whole.to_memory(), &path);
        // Another thread count, the same bytes (the path tiles and the manifest's critical_path included).
        let threads = build(&t, &BuildOptions { threads: o.threads % 3 + 1, ..o.clone() });
        assert!(threads.to_memory().files == whole.to_memory().files, "{what}: the thread count changes the store");
        let s = streamed(name, files, &o);
        // The streamed store is the whole build's, wait states included.
        assert!(s.files == whole.to_memory().files, "{what}: streamed store differs from the whole build");
        assert_store_path(&format!("{what}: streamed"), &s, &path);
        assert_store_reports(&format!("{what}: streamed"), s, &want);
        for n in [2, 3] {
            let s = sharded(&t, &o, n);
            assert!(s.files == whole.to_memory().files, "{what}: {n} shards merged differ from the whole build");
            assert_store_path(&format!("{what}: {n} shards"), &s, &path);
            assert_store_reports(&format!("{what}: {n} shards"), s, &want);
        }
        // Within the least --memory the step takes (its sorts in runs of 64 KB), the same bytes.
        let (_, s) = within(&t, &o, 1 << 20);
        assert!(s.files == whole.to_memory().files, "{what}: the waits within 1 MB differ from the whole build");
    }
    // Without `waits` (the default) the same store has no wait states: no waits tiles, no manifest `waits`,
    // and the reader says how to get them.
    let plain = build(&t, &BuildOptions::default());
    assert!(plain.manifest.waits.is_none(), "{name}: waits without --waits");
    assert!(plain.manifest.critical_path.is_none(), "{name}: a critical path without --waits");
    assert!(
        plain
            .manifest
            .tiles
            .iter()
            .all(|e| !matches!(e.kind, TileKind::Waits | TileKind::WaitSummary | TileKind::CriticalPath)),
        "{name}: waits tiles without --waits"
    );
    assert!(!String::from_utf8_lossy(&plain.manifest_json()).contains("\"waits\""), "{name}: a waits key");
    assert!(!String::from_utf8_lossy(&plain.manifest_json()).contains("critical_path"), "{name}: a path key");
    let store = Store::open(plain.to_memory()).expect("store opens");
    let why = weft::store::read::waits::missing(&store).expect("no wait states");
    assert!(why.contains("indexed without --waits: run weft index --waits"), "{why}");
    assert!(streamed(name, files, &BuildOptions::default()).files == plain.to_memory().files, "{name}: streamed");
    want[0].1.total_wait_ns
}

#[test]
fn the_store_reports_the_waits_of_generated_archives() {
    let mut waited = 0;
    for cfg in
        [GenConfig::new(4, 20_000), GenConfig { threads: 2, ..GenConfig::new(5, 30_000) }, GenConfig::new(7, 9_000)]
    {
        let (files, _) = archive(&cfg);
        waited += assert_all_ways("traces.otf2", &files);
    }
    assert!(waited > 0, "the generated runs wait somewhere");
}

#[test]
fn the_store_reports_the_waits_of_the_real_archives() {
    let Some(dir) = common::shared_traces("store_waits real_archives") else { return };
    let anchors: Vec<PathBuf> = common::files_under(&dir.join("otf2"))
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "otf2"))
        .collect();
    assert!(!anchors.is_empty(), "no OTF2 archives under {}", dir.display());
    for a in anchors {
        let files = FolderFiles { root: a.parent().unwrap().to_path_buf() };
        let name = a.file_name().unwrap().to_string_lossy().into_owned();
        assert_all_ways(&name, &files);
    }
}

fn weft(args: &[&str], dir: &std::path::Path) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_weft")).args(args).current_dir(dir).output().unwrap();
    assert!(out.status.success(), "weft {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `weft waits` of `trace` and of each store: `--json` the same bytes, whole and windowed, and the text the
/// same but for the file's name.
fn assert_cli_same(dir: &std::path::Path, trace: &str, stores: &[&str]) {
    let (trace, stores): (&'static str, Vec<&'static str>) = (
        Box::leak(trace.to_string().into_boxed_str()),
        stores.iter().map(|s| &*Box::leak(s.to_string().into_boxed_str())).collect(),
    );
    for flags in [vec!["--json"], vec!["--json", "--window", "1ms:20ms"], vec![], vec!["--window", "2ms:9ms"]] {
        let args = |f: &'static str| -> Vec<&str> { [&["waits", f][..], &flags[..]].concat() };
        let want = weft(&args(trace), dir);
        for &s in &stores {
            let got = weft(&args(s), dir);
            let got = got.replacen(&format!("file        {s}\n"), &format!("file        {trace}\n"), 1);
            assert_eq!(got, want, "weft waits {s} {flags:?} is not weft waits {trace}");
        }
    }
}

/// `weft critical-path` of `trace` and of each store: the same bytes, `--json` and text.
fn assert_path_cli_same(dir: &std::path::Path, trace: &str, stores: &[&str]) {
    for flags in [&["--json"][..], &[][..]] {
        let want = weft(&[&["critical-path", trace][..], flags].concat(), dir);
        assert!(want.contains("length_ns") || flags.is_empty(), "{want}");
        for &s in stores {
            let got = weft(&[&["critical-path", s][..], flags].concat(), dir);
            assert_eq!(got, want, "weft critical-path {s} {flags:?} is not weft critical-path {trace}");
        }
    }
}

#[test]
fn weft_waits_of_a_store_prints_what_it_prints_of_the_trace() {
    let d = common::TempDir::new("store-waits-cli");
    let (files, _) = archive(&GenConfig { threads: 2, ..GenConfig::new(4, 40_000) });
    for (name, bytes) in &files.files {
        d.put(&format!("g/{name}"), bytes);
    }
    weft(&["index", "g/traces.otf2", "-o", "whole", "--block", "2", "--waits"], &d);
    for k in 0..3 {
        let shard = format!("{k}/3");
        weft(&["index", "g/traces.otf2", "-o", &format!("p{k}"), "--block", "2", "--shard", &shard, "--waits"], &d);
    }
    weft(&["merge", "-o", "merged", "p2", "p0", "p1"], &d);
    let mut stores = vec!["whole", "merged"];
    // `mpirun -n 2` where OpenMPI is installed (scripts/setup.sh --mpi), as tests/cluster.rs runs it.
    let mpi = cfg!(feature = "mpi")
        && std::process::Command::new("mpirun")
            .args(["--allow-run-as-root", "--oversubscribe", "-n", "2", env!("CARGO_BIN_EXE_weft")])
            .args(["index", "g/traces.otf2", "--block", "2", "-o", "mpi2", "--waits"])
            .current_dir(&d)
            .output()
            .is_ok_and(|o| o.status.success());
    if mpi {
        stores.push("mpi2");
    } else {
        println!("SKIPPED mpirun -n 2: no mpirun (scripts/setup.sh --mpi)");
    }
    assert_cli_same(&d, "g/traces.otf2", &stores);
    assert_path_cli_same(&d, "g/traces.otf2", &stores);
    let waited = weft(&["waits", "whole", "--json"], &d);
    let fails = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_weft")).args(args).current_dir(&d).output().unwrap();
        assert!(!out.status.success(), "{args:?} succeeded");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    // Without --waits (the default): no wait states in the store, and weft waits says how to get them.
    weft(&["index", "g/traces.otf2", "-o", "plain", "--block", "2"], &d);
    let m: serde_json::Value = serde_json::from_slice(&std::fs::read(d.join("plain/manifest.json")).unwrap()).unwrap();
    assert!(m.get("waits").is_none(), "a waits key without --waits");
    assert!(!d.join("plain/w").exists() && !d.join("plain/v").exists(), "waits tiles without --waits");
    let err = fails(&["waits", "plain"]);
    assert!(
        err.contains("this store was indexed without --waits: run weft index --waits, or give weft waits the trace"),
        "{err}"
    );
    let err = fails(&["critical-path", "plain"]);
    assert!(err.contains("indexed without --waits (no critical path stored): run weft index --waits"), "{err}");
    // Parts indexed one with --waits and one without are refused by the merge.
    weft(&["index", "g/traces.otf2", "-o", "q1", "--block", "2", "--shard", "1/3"], &d);
    let err = fails(&["merge", "-o", "mixed", "p0", "q1", "p2"]);
    assert!(err.contains("one indexed with --waits, the other without"), "{err}");
    assert!(!waited.contains("\"total_wait_ns\":0}"), "the generated run waits: {waited}");
    // A store of format 6 indexed with --waits (wait states, no critical path) says how to get one.
    let m = d.join("whole/manifest.json");
    let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(&m).unwrap()).unwrap();
    v["version"] = 6.into();
    v.as_object_mut().unwrap().remove("critical_path");
    // (Format 8's call-path tiles are not a format 6 store's.)
    v["tiles"]
        .as_array_mut()
        .unwrap()
        .retain(|x| !["critical_path", "call_paths"].contains(&x["kind"].as_str().unwrap()));
    std::fs::write(&m, serde_json::to_vec_pretty(&v).unwrap()).unwrap();
    let err = fails(&["critical-path", "whole"]);
    assert!(
        err.contains("store format version 6: no critical path stored; re-index with --waits (format 7 keeps it)"),
        "{err}"
    );
    assert!(weft(&["waits", "whole", "--json"], &d) == waited, "format 6's wait states still read");
    // A store built before wait states (format 5: no `waits`, no waits tiles) says so.
    v["version"] = 5.into();
    v.as_object_mut().unwrap().remove("waits");
    v["tiles"].as_array_mut().unwrap().retain(|x| !["waits", "wait_summary"].contains(&x["kind"].as_str().unwrap()));
    std::fs::write(&m, serde_json::to_vec_pretty(&v).unwrap()).unwrap();
    let err = fails(&["waits", "whole"]);
    assert!(err.contains("built before wait states; run weft index --waits again"), "{err}");
}

#[test]
fn weft_waits_of_the_real_archives_stores_prints_what_it_prints_of_them() {
    let Some(dir) = common::shared_traces("store_waits weft waits of the real archives' stores") else { return };
    let d = common::TempDir::new("store-waits-cli-real");
    for a in common::files_under(&dir.join("otf2")).into_iter().filter(|p| p.extension().is_some_and(|e| e == "otf2")) {
        let trace = a.display().to_string();
        weft(&["index", &trace, "-o", "s", "--force", "--waits"], &d);
        assert_cli_same(&d, &trace, &["s"]);
        assert_path_cli_same(&d, &trace, &["s"]);
    }
}

/// The Diagnosis panel's lists for a store (`waits::overview`) are the trace's report in other words: each
/// pattern's waiting, instances, regions and locations as `wait_report` sums them, every pattern's together,
/// the root causes named; the lists cut to their limit; none for a store indexed without `--waits`.
#[test]
fn the_panel_lists_of_a_store_are_the_trace_report() {
    use weft::analyses::moments::location_label;
    use weft::store::read::waits::overview;
    let (files, _) = archive(&GenConfig { threads: 2, ..GenConfig::new(5, 30_000) });
    let t = read_archive("traces.otf2", &files).expect("archive reads");
    let want = wait_report(&t, &wait_states(&t), None);
    assert!(want.total_wait_ns > 0, "the generated run waits");
    let store = Store::open(build(&t, &BuildOptions { waits: true, ..BuildOptions::default() }).to_memory()).unwrap();
    let skeleton = store.skeleton().unwrap();
    let o = overview(&store, &skeleton, 1_000).unwrap().expect("a store indexed with waits has lists");
    assert_eq!(o.total_wait_ns, want.total_wait_ns);
    assert_eq!(o.all.ns, want.total_wait_ns);
    let total_time: u64 = weft::analyses::diagnosis::waits::location_time(&t).iter().sum();
    assert_eq!(o.total_time_ns, total_time, "the shares are of the time on all locations");
    let shown: Vec<&str> = o.patterns.iter().map(|p| p.key.as_str()).collect();
    let nonzero: Vec<&str> = want.patterns.iter().filter(|(_, p)| p.total_ns > 0).map(|(k, _)| *k).collect();
    assert_eq!(shown.len(), nonzero.len(), "the patterns with waiting: {shown:?} vs {nonzero:?}");
    for p in &o.patterns {
        let w = &want.patterns[p.key.as_str()];
        assert_eq!((p.ns, p.instances), (w.total_ns, w.instances), "{}", p.key);
        let regions: Vec<(&str, u64)> = p.regions.iter().map(|r| (r.name.as_str(), r.ns)).collect();
        let wanted: Vec<(&str, u64)> = w.by_region.iter().map(|r| (r.name.as_str(), r.ns)).collect();
        assert_eq!(regions, wanted, "{}: regions", p.key);
        let mut locations: Vec<(u32, u64)> =
            w.per_location.iter().enumerate().filter(|&(_, &ns)| ns > 0).map(|(l, &ns)| (l as u32, ns)).collect();
        locations.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        assert_eq!(p.locations.iter().map(|l| (l.id, l.ns)).collect::<Vec<_>>(), locations, "{}: locations", p.key);
        for l in &p.locations {
            assert_eq!(l.name, location_label(&t, weft::model::LocationId(l.id)));
        }
    }
    assert!(o.patterns.windows(2).all(|w| w[0].ns >= w[1].ns), "patterns by waiting");
    assert_eq!(o.all.locations.iter().map(|l| l.ns).sum::<u64>(), want.total_wait_ns);
    assert_eq!(o.all.regions.iter().map(|r| r.ns).sum::<u64>(), want.total_wait_ns);
    assert_eq!(o.root_causes.len(), want.root_causes.len());
    for (c, w) in o.root_causes.iter().zip(&want.root_causes) {
        assert_eq!((c.region.as_str(), c.ns), (w.name.as_str(), w.ns));
        assert_eq!(c.causing, location_label(&t, weft::model::LocationId(w.causing_location)));
    }
    let cut = overview(&store, &skeleton, 2).unwrap().unwrap();
    assert!(cut.all.locations.len() == 2 && cut.all.locations == o.all.locations[..2], "cut to the limit");
    let plain = Store::open(build(&t, &BuildOptions::default()).to_memory()).unwrap();
    assert!(overview(&plain, &skeleton, 10).unwrap().is_none(), "no lists without --waits");
}

/// The runs with every pattern known by construction (tests/oracle/waits_scenarios.py: each MPI pattern,
/// Waitall completing several messages, self-like communicators, non-blocking collectives left out): each
/// indexed with --waits, `weft critical-path` of the store prints what it prints of the trace.
#[test]
fn the_critical_path_of_a_store_is_the_traces_on_runs_with_every_pattern() {
    let test = "store_waits the_critical_path_of_a_store_is_the_traces_on_runs_with_every_pattern";
    let py = match std::env::var("WEFT_PYTHON") {
        Ok(p) if !p.is_empty() => p,
        _ => {
            println!("SKIPPED {test}: WEFT_PYTHON is not set (point it to a python with the `otf2` package)");
            return;
        }
    };
    let d = common::TempDir::new("store-path-scenarios");
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/waits_scenarios.py");
    let out = std::process::Command::new(&py).arg(script).arg(d.path()).output().expect("run python");
    assert!(out.status.success(), "waits_scenarios.py failed: {}", String::from_utf8_lossy(&out.stderr));
    let names = String::from_utf8(out.stdout).expect("utf8");
    let names: Vec<&str> = names.lines().collect();
    assert!(names.len() >= 12, "scenarios written: {names:?}");
    let mut jumped = 0;
    for name in names {
        let trace = format!("{name}/traces.otf2");
        let store = format!("{name}-store");
        weft(&["index", &trace, "-o", &store, "--waits"], &d);
        assert_path_cli_same(&d, &trace, &[&store]);
        let r: serde_json::Value = serde_json::from_str(&weft(&["critical-path", &store, "--json"], &d)).unwrap();
        jumped += (r["by_location"].as_array().unwrap().iter().filter(|x| x.as_u64() > Some(0)).count() > 1) as usize;
    }
    assert!(jumped > 0, "some path crosses locations");
}

/// `weft index --waits` within a `--memory` its lists do not fit in (issue #53: before, refused when its
/// messages and collective members at 320 bytes each passed `--memory`): each of the step's sorts (the
/// questions, candidates, members, meetings, waits, ranges and their parts) goes to the spill in sorted runs
/// past its share, and the store is the same bytes as the one whose lists were all held, whatever the
/// memory, the block and tile sizes (pages of 4 to 64 KB, one run to hundreds), with the spill in use.
#[test]
fn the_wait_states_within_a_small_memory_are_the_same_bytes() {
    let (files, _) = archive(&GenConfig { threads: 2, ..GenConfig::new(4, 400_000) });
    let t = read_archive("traces.otf2", &files).expect("archive reads");
    // What the step held before at about 320 bytes a message and member: far over the memories below.
    assert!((t.messages.len() + t.collectives.len()) as u64 * 320 > 3 << 20, "{} messages", t.messages.len());
    for o in [
        BuildOptions { waits: true, ..BuildOptions::default() },
        BuildOptions { block_locations: 3, tile_intervals: 4096, threads: 2, waits: true, ..BuildOptions::default() },
    ] {
        let whole = build(&t, &o);
        let waits = whole.manifest.waits.as_ref().expect("wait states");
        assert!(waits.patterns.iter().filter(|p| p[1] > 0).count() >= 2, "{:?}", waits.patterns);
        let whole = whole.to_memory();
        let (held, s) = within(&t, &o, 1 << 40);
        assert_eq!(held, 0, "nothing spilled with memory to spare");
        assert!(s.files == whole.files, "held: the store differs from the whole build's");
        let mut spills = Vec::new();
        for memory in [1 << 20, 3 << 20, 17 << 20] {
            let (spilled, s) = within(&t, &o, memory);
            assert!(s.files == whole.files, "--memory {memory}: the store differs from the one held in memory");
            spills.push(spilled);
        }
        assert!(spills[0] > 0 && spills[0] >= spills[2], "the sorts went to the spill: {spills:?}");
    }
}

/// The least `--memory` the step works in is named, not panicked on: a sort's share under 64 KB is refused
/// with the memory that fits, by the library and by `weft index --waits`, which leaves no store.
#[test]
fn waits_under_the_least_memory_are_refused_naming_the_memory_that_fits() {
    let (files, _) = archive(&GenConfig::new(2, 4_000));
    let t = read_archive("traces.otf2", &files).expect("archive reads");
    let plain = build(&t, &BuildOptions::default());
    let mut m = plain.manifest.clone();
    let why = weft::index::waits::add_waits_within(
        &mut m,
        &|_| Err("not read".into()),
        &mut |_, _| Ok(()),
        &mut MemorySpill::default(),
        (1 << 20) - 1,
    )
    .expect_err("under 1 MB");
    assert!(why.contains("raise --memory to 1 MB"), "{why}");
    assert_eq!(weft::index::waits::too_little(1 << 20), None);
}

/// What a store's timeline draws of its diagnosis (`store::read::query::{overlay_tiles, OverlayGather}`, the
/// store worker's overlay beside each view): for a window and every pyramid level (and level 0, drawn with the
/// finest level's bins), each location's waiting per bin is the trace's waits cut into those bins, read from
/// the wait summary tiles only (no waits tile), and the path's segments are the trace's critical path's
/// meeting the window; folded to a pixel scale, every segment a pixel wide or more is kept, and fewer in all.
#[test]
fn a_stores_timeline_overlay_is_the_waits_per_bin_and_the_path_of_the_window() {
    use weft::store::read::query::{overlay_tiles, Decoded, OverlayGather, Plan, Resolution, TileIndex};
    let (files, _) = archive(&GenConfig { threads: 2, ..GenConfig::new(4, 40_000) });
    let t = read_archive("traces.otf2", &files).expect("archive reads");
    let o = BuildOptions { block_locations: 3, tile_intervals: 700, waits: true, ..BuildOptions::default() };
    let store = Store::open(build(&t, &o).to_memory()).expect("store opens");
    let m = &store.manifest;
    let index = TileIndex::new(m);
    let waits = wait_states(&t).waits;
    let (path, _) = trace_path(&t);
    let nl = m.locations.process.len() as u32;
    let span = m.span_ns;
    let (t0, t1) = (span / 4, span / 2 + 3);
    // The rows answered: from the second block on (blocks of 3).
    const FIRST: u32 = 3;
    assert!(m.levels.len() >= 2, "levels to draw from");
    let mut resolutions: Vec<Resolution> = m.levels.iter().map(|l| Resolution::Level(l.level)).collect();
    resolutions.push(Resolution::Exact);
    for resolution in resolutions {
        let plan = Plan {
            resolution,
            t0_ns: t0,
            t1_ns: t1,
            locations: FIRST..nl,
            tiles: Vec::new(),
            series: 0..0,
            counter_tiles: Vec::new(),
        };
        let tiles = overlay_tiles(m, &index, &plan, true, true);
        let mut g = OverlayGather::new(m, &plan, true, true).expect("a store with waits");
        for &i in &tiles {
            let e = &m.tiles[i];
            let d = match e.kind {
                TileKind::WaitSummary => Decoded::WaitBins(store.wait_bins_tile(e).expect("decodes")),
                TileKind::CriticalPath => Decoded::Path(store.path_tile(e).expect("decodes")),
                k => panic!("{k:?} tile asked for the overlay"),
            };
            match &d {
                Decoded::WaitBins(b) => g.add_bins(m, i, b),
                Decoded::Path(p) => g.add_path(p),
                _ => unreachable!(),
            }
        }
        let folded = g.clone().finish(Some((((t1 - t0) / 300) as f64, &[])));
        let got = g.finish(None);
        let level = m.levels.iter().find(|l| l.level == got.level).expect("a level");
        if let Resolution::Level(l) = resolution {
            assert_eq!(got.level, l);
        } else {
            assert_eq!(got.level, m.levels.iter().map(|l| l.level).min().unwrap(), "exact: the finest level");
        }
        // The trace's waits cut into the level's bins (the last bin takes what reaches past it).
        let bins = got.rows[0].len();
        assert!(bins > 0);
        let mut want = vec![vec![0u64; bins]; (nl - FIRST) as usize];
        for w in waits.iter().filter(|w| w.location.0 >= FIRST) {
            for (k, ns) in want[(w.location.0 - FIRST) as usize].iter_mut().enumerate() {
                let (a, b) = got.bin_time(k, span);
                let last = got.first_bin + k as u64 == level.bins - 1;
                let hi = if last { w.end_ns } else { w.end_ns.min(b) };
                *ns += hi.saturating_sub(w.start_ns.max(a));
            }
        }
        assert_eq!(got.rows, want, "{resolution:?}: waiting per location and bin");
        assert!(got.rows.iter().flatten().any(|&ns| ns > 0), "the window waits");
        // The path: the trace's segments meeting the window, in time order, on every location (those of the
        // blocks of rows not answered too: the path's jumps to them are drawn, never a silent gap).
        let mut segs: Vec<_> = path.segments.iter().filter(|s| s.end_ns >= t0 && s.start_ns <= t1).collect();
        segs.sort_by_key(|s| (s.start_ns, s.end_ns));
        assert!(!segs.is_empty());
        assert!(segs.iter().any(|s| s.location.0 < FIRST), "the path visits a block of rows not answered");
        assert_eq!(got.path_location, segs.iter().map(|s| s.location.0).collect::<Vec<_>>());
        assert_eq!(got.path_start_ns, segs.iter().map(|s| s.start_ns).collect::<Vec<_>>());
        assert_eq!(got.path_end_ns, segs.iter().map(|s| s.end_ns).collect::<Vec<_>>());
        assert!(got.missing.is_empty() && got.waits_asked && got.path_asked);
        // Folded to ~300 pixels: no more segments, every wide one kept.
        let px = ((t1 - t0) / 300) as f64;
        assert!(folded.path_location.len() <= got.path_location.len());
        for s in segs.iter().filter(|s| (s.end_ns - s.start_ns) as f64 >= px) {
            assert!(folded
                .path_start_ns
                .iter()
                .zip(&folded.path_end_ns)
                .any(|(&a, &b)| (a, b) == (s.start_ns, s.end_ns)));
        }
        assert_eq!(folded.rows, got.rows);
    }
    // A store indexed without --waits has no overlay and no tiles for one.
    let plain = Store::open(build(&t, &BuildOptions::default()).to_memory()).expect("opens");
    let plan = Plan {
        resolution: Resolution::Exact,
        t0_ns: 0,
        t1_ns: span,
        locations: 0..nl,
        tiles: Vec::new(),
        series: 0..0,
        counter_tiles: Vec::new(),
    };
    assert!(OverlayGather::new(&plain.manifest, &plan, true, true).is_none());
    assert!(overlay_tiles(&plain.manifest, &TileIndex::new(&plain.manifest), &plan, true, true).is_empty());
}
