//! The wait states in a store (issue #53, store format 6; crates/index/src/waits.rs, crates/store/src/read/waits.rs):
//! `weft index` computes them from the store's own level-0 tiles, so `weft waits STORE` gives exactly the report
//! `weft waits TRACE` gives (`diagnosis::wait_report` of `wait_states`), whole run and windows, root causes
//! included; for generated archives and the real ones in ../shared/traces, built whole, streamed, sharded and
//! merged.

use crate::common;

use std::collections::BTreeMap;
use std::path::PathBuf;
use weft::analyses::diagnosis::waits::{wait_report, wait_states, WaitReport};
use weft::index::stream::{index_otf2, MemorySink, StreamOptions};
use weft::index::{build, build_part, merge, BuildOptions, BuiltStore, MemorySpill, Shard};
use weft::model::Trace;
use weft::readers::otf2::{open_stream, read_archive, ArchiveFiles, FolderFiles};
use weft::samples::otf2_gen::{archive, GenConfig};
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

/// `n` shards built and merged, then the wait states added as `weft merge` does.
fn sharded(t: &Trace, o: &BuildOptions, n: u32) -> MemoryStore {
    let parts: Vec<_> = (0..n).map(|k| build_part(t, o, Shard { index: k, count: n })).collect();
    let manifests: Vec<_> = parts.iter().enumerate().map(|(k, p)| (format!("part {k}"), p.part.clone())).collect();
    let merged = merge(&manifests).expect("parts merge");
    let mut files: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    for (e, &k) in merged.manifest.tiles.iter().zip(&merged.tile_part) {
        let (_, bytes) = parts[k].tiles.iter().find(|(p, _)| *p == e.path).expect("the part holds its tile");
        files.insert(e.path.clone(), bytes.clone());
    }
    let mut m = merged.manifest;
    let mut added = Vec::new();
    weft::index::waits::add_waits(
        &mut m,
        &|p| files.get(p).cloned().ok_or_else(|| format!("{p}: missing")),
        &mut |p, b| {
            added.push((p.to_string(), b.to_vec()));
            Ok(())
        },
    )
    .expect("waits of the merged store");
    files.extend(added);
    files.insert(MANIFEST.into(), BuiltStore { manifest: m, tiles: Vec::new() }.manifest_json());
    MemoryStore { files }
}

fn assert_all_ways(name: &str, files: &(dyn ArchiveFiles + Sync)) -> u64 {
    let t = read_archive(name, files).expect("archive reads");
    let want = reports(&t);
    for o in [
        BuildOptions::default(),
        BuildOptions { block_locations: 2, tile_intervals: 700, threads: 2, ..BuildOptions::default() },
    ] {
        let whole = build(&t, &o);
        let what = format!("{name} (block {}, tile {})", o.block_locations, o.tile_intervals);
        assert_store_reports(&format!("{what}: whole"), whole.to_memory(), &want);
        let s = streamed(name, files, &o);
        // The streamed store is the whole build's, wait states included.
        assert!(s.files == whole.to_memory().files, "{what}: streamed store differs from the whole build");
        assert_store_reports(&format!("{what}: streamed"), s, &want);
        for n in [2, 3] {
            let s = sharded(&t, &o, n);
            assert!(s.files == whole.to_memory().files, "{what}: {n} shards merged differ from the whole build");
            assert_store_reports(&format!("{what}: {n} shards"), s, &want);
        }
    }
    want[0].1.total_wait_ns
}

#[test]
fn the_store_reports_the_waits_of_generated_archives() {
    let mut waited = 0;
    for cfg in [
        GenConfig::new(4, 20_000),
        GenConfig { threads: 2, ..GenConfig::new(5, 30_000) },
        GenConfig::new(7, 9_000),
    ] {
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
