//! The streamed index (src/store/stream.rs, `weft index` on OTF2): an archive read location by location gives,
//! byte for byte, the store `store::build` makes from the whole trace (manifest and every tile), for any
//! thread count and block size, on generated archives and the real OTF2 archives in ../shared/traces; and
//! `weft index` holds its peak memory (VmHWM) under a small `--memory` plus a fixed overhead.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use weft::readers::otf2::{open_stream, read_archive, ArchiveFiles, FolderFiles, MemoryFiles};
use weft::samples::otf2_gen::{archive, GenConfig};
use weft::store::stream::{index_otf2, MemorySink, MemorySpill, StreamOptions};
use weft::store::{build, BuildOptions, BuiltStore};

/// Stream-index `files` and compare with the whole-trace build: the manifest and every tile, byte for byte.
fn assert_stream_equals_build(name: &str, files: &dyn ArchiveFiles, o: &BuildOptions) {
    let whole: BuiltStore = build(&read_archive(name, files).expect("archive reads"), o);
    let sink = MemorySink::default();
    let mut spill = MemorySpill::default();
    let stream = open_stream(name, files).expect("archive opens");
    let so = StreamOptions { build: o.clone(), memory: 1 << 30 };
    let done = index_otf2(stream, &so, &mut spill, &sink, &|_| {}).expect("streamed index");
    let streamed = BuiltStore { manifest: done.manifest, tiles: Vec::new() };
    let (a, b) =
        (String::from_utf8(streamed.manifest_json()).unwrap(), String::from_utf8(whole.manifest_json()).unwrap());
    if let Some((k, (x, y))) = a.lines().zip(b.lines()).enumerate().find(|(_, (x, y))| x != y) {
        panic!("{name}: manifests differ at line {k}: streamed {x:?}, whole {y:?}");
    }
    assert_eq!(a.len(), b.len(), "{name}: manifest lengths");
    let files = sink.files.into_inner().unwrap();
    assert_eq!(files.len(), whole.tiles.len(), "{name}: tile count");
    for (path, bytes) in &whole.tiles {
        assert!(files.get(path) == Some(bytes), "{name}: tile {path} differs or is missing");
    }
}

#[test]
fn streamed_store_equals_the_whole_build_on_generated_archives() {
    for (cfg, block, tile) in [
        (GenConfig { threads: 2, ..GenConfig::new(5, 60_000) }, 64, 1 << 18),
        (GenConfig { threads: 2, ..GenConfig::new(5, 60_000) }, 3, 500),
        (GenConfig::new(7, 40_000), 2, 2_000),
        (GenConfig::new(1, 5_000), 1, 100),
    ] {
        let (files, _) = archive(&cfg);
        for threads in [1, 2, 3] {
            let o = BuildOptions { block_locations: block, tile_intervals: tile, threads, ..BuildOptions::default() };
            assert_stream_equals_build("traces.otf2", &files, &o);
        }
    }
}

#[test]
fn streamed_store_equals_the_whole_build_on_damaged_archives() {
    // Cut event files: truncation warnings, unclosed regions, unmatched message ends, as the reader has them.
    let (files, _) = archive(&GenConfig { threads: 2, ..GenConfig::new(4, 30_000) });
    let mut cut = MemoryFiles::new();
    for (k, (p, b)) in files.files.iter().filter(|(p, _)| p.ends_with(".evt")).enumerate() {
        let keep = if k % 2 == 0 { b.len() * 2 / 3 } else { b.len() };
        cut.insert(p, b[..keep].to_vec());
    }
    for (p, b) in files.files.iter().filter(|(p, _)| !p.ends_with(".evt")) {
        cut.insert(p, b.clone());
    }
    let t = read_archive("traces.otf2", &cut).unwrap();
    assert!(t.warnings.total() > 0, "the cut archive has warnings");
    assert_stream_equals_build("traces.otf2", &cut, &BuildOptions { block_locations: 3, ..BuildOptions::default() });
}

#[test]
fn streamed_store_equals_the_whole_build_on_real_archives() {
    let Some(dir) = common::shared_traces("store_stream real_archives") else { return };
    let anchors: Vec<PathBuf> = common::files_under(&dir.join("otf2"))
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "otf2"))
        .collect();
    assert!(!anchors.is_empty(), "no OTF2 archives under {}", dir.display());
    for a in anchors {
        let files = FolderFiles { root: a.parent().unwrap().to_path_buf() };
        let name = a.file_name().unwrap().to_string_lossy().into_owned();
        for o in [
            BuildOptions::default(),
            BuildOptions { block_locations: 5, tile_intervals: 1_000, threads: 2, ..BuildOptions::default() },
        ] {
            assert_stream_equals_build(&name, &files, &o);
        }
    }
}

fn write_archive(files: &MemoryFiles, dir: &Path) {
    for (p, b) in &files.files {
        let path = dir.join(p);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, b).unwrap();
    }
}

/// `weft index` on a generated archive several times larger than `--memory`: the store equals the whole
/// build's, and the process's peak resident memory stays under `--memory` plus a fixed overhead (the
/// binary, the allocator, thread stacks).
#[test]
fn weft_index_holds_its_memory_bound() {
    let base = std::env::temp_dir().join(format!("weft-store-stream-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    // 48 locations of about 40 k events each: ~1.9 M events, ~25 MB of OTF2, ~190 MB as a whole trace.
    let cfg = GenConfig { threads: 2, ..GenConfig::new(24, 1_900_000) };
    let (files, _) = archive(&cfg);
    let trace_dir = base.join("trace");
    write_archive(&files, &trace_dir);
    let o =
        BuildOptions { block_locations: 2, source_name: trace_dir.display().to_string(), ..BuildOptions::default() };
    let whole = build(&read_archive("traces.otf2", &files).unwrap(), &o);
    drop(files);
    let store = base.join("store");
    let index = |memory: &str| {
        Command::new(env!("CARGO_BIN_EXE_weft"))
            .args(["index", "--force", "--threads", "2", "--block", "2", "--memory", memory])
            .arg(&trace_dir)
            .arg("-o")
            .arg(&store)
            .output()
            .unwrap()
    };
    let out = index("40M");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let peak_mb: u64 = text
        .lines()
        .find_map(|l| l.strip_prefix("peak memory "))
        .and_then(|v| v.trim_end_matches(" MB").parse().ok())
        .unwrap_or_else(|| panic!("no peak memory line: {text}"));
    // Fixed overhead: the binary's pages and the allocator, measured at ~10 MB for a tiny trace.
    assert!(peak_mb <= 40 + 24, "peak {peak_mb} MB with --memory 40M:\n{text}");
    assert!(!text.contains("spill       0 bytes"), "{text}");
    // The folder holds the same files as the whole build's store (the spill is gone).
    let manifest = std::fs::read_to_string(store.join("manifest.json")).unwrap();
    assert!(manifest.as_bytes() == whole.manifest_json(), "the manifest differs from the whole build's");
    for (path, bytes) in &whole.tiles {
        assert!(&std::fs::read(store.join(path)).unwrap() == bytes, "{path} differs");
    }
    assert!(!store.join(".spill").exists());
    // Too little memory for one block is refused with the flag named.
    let out = index("2M");
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("--memory"));
    let _ = std::fs::remove_dir_all(&base);
}
