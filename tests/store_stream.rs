//! The streamed index (crates/store/src/stream.rs, `weft index`): an OTF2 archive read location by location, and
//! Chrome JSON and Paraver traces read in chunks (any chunk size, tiny ones cutting records, spilled every
//! few records),
//! give byte for byte the store `index::build` makes from the whole trace (manifest and every tile), for any
//! thread count and block size, on generated traces and the real ones in ../shared/traces; and `weft index`
//! holds its peak memory (VmHWM) under a small `--memory` plus a fixed overhead on inputs several times it.

use crate::common;

use crate::common::TempDir;
use std::path::{Path, PathBuf};
use std::process::Command;
use weft::index::stream::{index_chrome, index_otf2, index_paraver, Indexed, MemorySink, ReadSpills, StreamOptions};
use weft::index::MemorySpill;
use weft::index::{build, BuildOptions, BuiltStore};
use weft::readers::otf2::{open_stream, read_archive, ArchiveFiles, FolderFiles, MemoryFiles, StreamIndexing};
use weft::samples::chrome::{ChromeSample, KinetoSample};
use weft::samples::otf2_gen::{archive, GenConfig};
use weft::samples::paraver::ParaverSample;

/// Stream-index `files` and compare with the whole-trace build: the manifest and every tile, byte for byte.
fn assert_stream_equals_build(name: &str, files: &(dyn ArchiveFiles + Sync), o: &BuildOptions) {
    let whole: BuiltStore = build(&read_archive(name, files).expect("archive reads"), o);
    // The default buffers, and tiny ones: event files read 97 bytes at a time (records cut by every
    // window), locations nested 7 intervals at a time (prefixes taken while regions are open), and message
    // ends and collective parts spilled whenever they pass 97 bytes (runs of two or three records, matched
    // by merging hundreds of runs; `readers::otf2::ends`). The nested intervals kept as columns for pass 2
    // (the default, 0: an eighth of `memory`), or sent to the spill at once (1 byte), or once a few
    // thousand bytes of them were kept (mid-location when the location is nested in prefixes). The matched
    // messages sorted in memory (the default share) or in runs of 200 bytes (three or four messages: merged
    // from hundreds of runs), the blocks' messages and the particle runs then written in pages of 1 KiB.
    for (event_buffer, window, held, ends, runs) in [
        (0, weft::readers::otf2::READ_WINDOW, 0, None, 0),
        (7, 97, 0, Some(97), 200),
        (0, weft::readers::otf2::READ_WINDOW, 1, None, 200),
        (7, 97, 1, Some(97), 0),
        (0, weft::readers::otf2::READ_WINDOW, 50_000, Some(97), 5_000),
        (7, 97, 20_000, None, 200),
    ] {
        let sink = MemorySink::default();
        let mut spill = MemorySpill::default();
        let mut stream = open_stream(name, files).expect("archive opens");
        stream.set_read_window(window);
        if let Some(share) = ends {
            stream.spill_ends(Box::new(weft::index::spill::ReaderSpill(MemorySpill::default())), share);
        }
        let so = StreamOptions {
            build: o.clone(),
            memory: 1 << 30,
            event_buffer,
            shard: None,
            held,
            runs,
            range_intervals: 0,
        };
        let done = index_otf2(stream, &so, &mut spill, &sink, &|_| {}).expect("streamed index");
        let spilled = done.spill_bytes > 0;
        let what = format!(
            "{name} ({event_buffer} intervals, {window} bytes, held {held}, ends spilled past {ends:?} bytes, \
             runs of {runs} bytes)"
        );
        assert_same_store(&what, &whole, done, sink);
        // Held whole by default; spilled when the columns may hold one byte (a location with intervals).
        if held == 0 || (held == 1 && whole.manifest.counts.intervals > 0) {
            assert_eq!(spilled, held == 1, "{name}: held {held}: spilled {spilled}");
        }
    }
}

/// The streamed index's manifest and tiles equal the whole build's, byte for byte.
fn assert_same_store(name: &str, whole: &BuiltStore, done: Indexed, sink: MemorySink) {
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
        (GenConfig { metrics: 3, ..GenConfig::new(7, 40_000) }, 2, 2_000),
        (GenConfig::new(1, 5_000), 1, 100),
    ] {
        let (files, _) = archive(&cfg);
        for threads in [1, 2, 3] {
            let o = BuildOptions { block_locations: block, tile_intervals: tile, threads, ..BuildOptions::default() };
            assert_stream_equals_build("traces.otf2", &files, &o);
        }
    }
}

/// Stream-index `files` tiling every block by time range, at most `range` intervals a range (a block too
/// long for its share of `--memory` is tiled so: `index::ranged`), and compare with the whole-trace build.
fn assert_ranged_equals_build(name: &str, files: &(dyn ArchiveFiles + Sync), o: &BuildOptions, range: u64) {
    let whole: BuiltStore = build(&read_archive(name, files).expect("archive reads"), o);
    // Columns held then spilled for the ranges, or spilled as read; whole locations or prefixes of 7
    // intervals (segments with fix-ups); messages in memory or in runs.
    for (event_buffer, held, runs) in [(0, 0, 0), (7, 1, 200)] {
        let (sink, mut spill) = (MemorySink::default(), MemorySpill::default());
        let stream = open_stream(name, files).expect("archive opens");
        let so = StreamOptions {
            build: o.clone(),
            memory: 1 << 30,
            event_buffer,
            shard: None,
            held,
            runs,
            range_intervals: range,
        };
        let done = index_otf2(stream, &so, &mut spill, &sink, &|_| {}).expect("streamed index");
        let what = format!("{name} by ranges of {range} ({event_buffer} intervals, held {held}, runs {runs})");
        assert_eq!(done.ranged_blocks, whole.manifest.tiling.blocks as usize, "{what}: blocks tiled by range");
        assert_same_store(&what, &whole, done, sink);
    }
}

/// Tiled range by range, a block gives the tiles it gives whole: intervals open across many ranges (each
/// rank's main region spans the run), messages in flight and collectives running at a range's start, the
/// summaries and moments fed a range at a time; ranges of one interval (every window its own range), a few,
/// and many; blocks of one location and of several; one and two tasks.
#[test]
fn ranged_store_equals_the_whole_build_on_generated_archives() {
    for (cfg, block, tile) in [
        (GenConfig { threads: 2, ..GenConfig::new(3, 20_000) }, 1, 300),
        (GenConfig { threads: 2, ..GenConfig::new(3, 20_000) }, 4, 500),
        (GenConfig::new(4, 30_000), 64, 1_000),
    ] {
        let (files, _) = archive(&cfg);
        for range in [1, 7, 300, 5_000] {
            for threads in [1, 2, 3] {
                let o =
                    BuildOptions { block_locations: block, tile_intervals: tile, threads, ..BuildOptions::default() };
                assert_ranged_equals_build("traces.otf2", &files, &o, range);
            }
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
    assert_ranged_equals_build(
        "traces.otf2",
        &cut,
        &BuildOptions { block_locations: 3, ..BuildOptions::default() },
        50,
    );
}

/// Decode every location of `files` as a decoder reading ahead does (`Otf2Stream::decoder`, at most `cap`
/// intervals a location) and replay its log in location order (a location given back read in its turn):
/// the intervals and the finished trace are the ones reading in order gives. Returns how many locations
/// were read in their turn.
fn assert_replay_equals_read(name: &str, files: &(dyn ArchiveFiles + Sync), cap: usize) -> usize {
    let (mut read, mut replayed) = (open_stream(name, files).unwrap(), open_stream(name, files).unwrap());
    let decoder = replayed.decoder();
    let (mut a, mut b, mut in_turn) = (Vec::new(), Vec::new(), 0);
    for k in 0..read.location_count() {
        a.clear();
        b.clear();
        read.location(k, &mut a).unwrap();
        match decoder.decode(k, &mut b, cap).unwrap() {
            Some(log) => replayed.replay(k, log).unwrap(),
            None => {
                b.clear();
                replayed.location(k, &mut b).unwrap();
                in_turn += 1;
            }
        }
        assert!(a == b, "{name}: location {k}'s intervals differ");
    }
    let (a, b) = (read.finish().unwrap(), replayed.finish().unwrap());
    // Every field (hash maps' entries in any order: the lines sorted), and in order what a store holds.
    let lines = |t: &weft::model::Trace| {
        let mut v: Vec<String> = format!("{t:#?}").lines().map(str::to_string).collect();
        v.sort_unstable();
        v
    };
    assert!(lines(&a) == lines(&b), "{name}: the trace replayed differs from the trace read");
    let o = BuildOptions::default();
    let (a, b) = (build(&a, &o), build(&b, &o));
    assert!(a.manifest_json() == b.manifest_json() && a.tiles == b.tiles, "{name}: the stores differ");
    in_turn
}

/// The log a decoder reading ahead keeps, replayed, is what reading in order does to the trace: on generated
/// archives (messages, collectives), a cut one (warnings), one naming undefined regions (the
/// location read in its turn), and with a cap that gives every location back.
#[test]
fn locations_decoded_ahead_and_replayed_read_as_in_order() {
    let cfg = GenConfig { threads: 2, chunk_size: 4096, ..GenConfig::new(4, 60_000) };
    let (files, _) = archive(&cfg);
    assert_eq!(assert_replay_equals_read("traces.otf2", &files, usize::MAX), 0);
    assert_eq!(assert_replay_equals_read("traces.otf2", &files, 10), 8);
    let mut cut = MemoryFiles::new();
    for (k, (p, b)) in files.files.iter().enumerate() {
        let keep = if p.ends_with(".evt") && k % 2 == 0 { b.len() * 2 / 3 } else { b.len() };
        cut.insert(p, b[..keep].to_vec());
    }
    assert_eq!(assert_replay_equals_read("traces.otf2", &cut, usize::MAX), 0);
    let undefined = common::with_undefined_regions(&files);
    let t = read_archive("traces.otf2", &undefined).unwrap();
    assert!(t.warnings.examples().iter().any(|w| w.message.contains("undefined region 250")));
    assert_eq!(assert_replay_equals_read("traces.otf2", &undefined, usize::MAX), 1);
    // Pass 1 decodes ahead with 3 threads or more (`stream::Ahead`), the plain, cut and undefined ones.
    for threads in [1, 2, 3, 4] {
        let o = BuildOptions { block_locations: 3, threads, ..BuildOptions::default() };
        for f in [&files, &cut, &undefined] {
            assert_stream_equals_build("traces.otf2", f, &o);
        }
    }
    if let Some(dir) = common::shared_traces("store_stream locations_decoded_ahead (real archives)") {
        for a in
            common::files_under(&dir.join("otf2")).into_iter().filter(|p| p.extension().is_some_and(|e| e == "otf2"))
        {
            let files = FolderFiles { root: a.parent().unwrap().to_path_buf() };
            assert_replay_equals_read(&a.file_name().unwrap().to_string_lossy(), &files, usize::MAX);
        }
    }
}

/// Archives whose LEAVEs name other regions than the one they close (APEX) and whose OpenMP tasks run
/// inside waits (busy time by the innermost region, fed to the summaries a chunk at a time): decoded ahead
/// and replayed, streamed, and tiled by range, they index as the whole read builds.
#[test]
fn apex_and_task_archives_index_as_read() {
    use weft::samples::otf2_regions::{apex_like, tasks_in_waits};
    for files in [apex_like(4, 500, 3).program.archive(), tasks_in_waits(4, 200, 2).program.archive()] {
        assert_eq!(assert_replay_equals_read("traces.otf2", &files, usize::MAX), 0);
        for threads in [1, 3] {
            let o = BuildOptions { block_locations: 3, threads, tile_intervals: 300, ..BuildOptions::default() };
            assert_stream_equals_build("traces.otf2", &files, &o);
            assert_ranged_equals_build("traces.otf2", &files, &o, 200);
        }
    }
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
            assert_ranged_equals_build(&name, &files, &o, 1_000);
        }
    }
}

/// A location whose times go back: nested whole (as the builder sorts it) while nothing of it was nested
/// yet; once prefixes were nested in order, the streamed index cannot sort them again and says the archive
/// is indexed whole (`weft index` then reads it whole).
#[test]
fn a_location_whose_times_go_back_is_nested_whole_or_indexed_whole() {
    use weft::index::IndexError;
    use weft::readers::otf2::encoding::{Item, Records};
    let (mut files, _) = archive(&GenConfig { chunk_size: 4096, ..GenConfig::new(3, 30_000) });
    // Location 1's timestamp two thirds into its file set back to its first.
    let evt = files.files.keys().find(|p| p.ends_with("/1.evt")).unwrap().clone();
    let bytes = files.files.get_mut(&evt).unwrap();
    let mut stamps = Vec::new();
    let mut r = Records::new(bytes, 4096, true).unwrap();
    while let Some(item) = r.next_item().unwrap() {
        if let Item::Time(t) = item {
            stamps.push((r.cur.pos() - 8, t));
        }
    }
    let (at, _) = stamps[stamps.len() * 2 / 3];
    bytes[at..at + 8].copy_from_slice(&stamps[0].1.to_le_bytes());
    let t = read_archive("traces.otf2", &files).unwrap();
    assert!(t.warnings.examples().iter().any(|w| w.message.contains("time goes back")), "the reader warns");
    let o = BuildOptions { block_locations: 2, ..BuildOptions::default() };
    let whole = build(&t, &o);
    for (event_buffer, expect_whole) in [(0, true), (7, false)] {
        let sink = MemorySink::default();
        let stream = open_stream("traces.otf2", &files).unwrap();
        let so = StreamOptions {
            build: o.clone(),
            memory: 1 << 30,
            event_buffer,
            shard: None,
            held: 0,
            runs: 0,
            range_intervals: 0,
        };
        match index_otf2(stream, &so, &mut MemorySpill::default(), &sink, &|_| {}) {
            Ok(done) if expect_whole => assert_same_store("times going back", &whole, done, sink),
            Err(IndexError::NotStreamable(m)) if !expect_whole => assert!(m.contains("1.evt"), "{m}"),
            Ok(_) => panic!("{event_buffer}: indexed in prefixes"),
            Err(e) => panic!("{event_buffer}: {e}"),
        }
    }
}

/// Message ends and collective parts are kept to be matched at the end: where they would pass `memory`,
/// the index refuses as soon as it is known, within the location being read, naming them and the sizes.
#[test]
fn message_ends_past_the_memory_are_refused_while_reading() {
    use weft::index::IndexError;
    let (files, _) = archive(&GenConfig::new(2, 400_000));
    let o = BuildOptions::default();
    for threads in [1, 2] {
        let so = StreamOptions {
            build: BuildOptions { threads, ..o.clone() },
            memory: 3 << 20,
            event_buffer: 1000,
            shard: None,
            held: 0,
            runs: 0,
            range_intervals: 0,
        };
        let stream = open_stream("traces.otf2", &files).unwrap();
        match index_otf2(stream, &so, &mut MemorySpill::default(), &MemorySink::default(), &|_| {}) {
            Err(IndexError::Memory(m)) => {
                assert!(
                    m.starts_with("reading location ") && m.contains(" sends, ") && m.contains("--memory 3 MB"),
                    "{m}"
                )
            }
            Err(e) => panic!("{e}"),
            Ok(_) => panic!("indexed within 3 MB"),
        }
    }
}

/// Spilled in sorted runs (`readers::otf2::ends`), the message ends no longer count whole against
/// `memory` (in `Vec`s, about 72 bytes a message, twice that to match them), nor do the messages and
/// collective rows they make (sorted and spilled as they are matched, `index::comms`). Under 7 MB (1 MB of it
/// the read's window), 25,000 sends and receives held to be matched are refused while reading (they need
/// about 7.5 MB); spilled past 64 KiB, they are matched and the index goes on to its second pass (refused
/// there: the spill, in memory here, leaves too little for even a range of the block's windows).
#[test]
fn message_ends_spilled_pass_the_first_pass_under_a_memory_that_refuses_them_held() {
    use weft::index::IndexError;
    let (files, counts) = archive(&GenConfig::new(2, 400_000));
    assert_eq!(counts.mpi_send, 25_000);
    let so = StreamOptions {
        build: BuildOptions::default(),
        memory: 7 << 20,
        event_buffer: 1000,
        shard: None,
        held: 0,
        runs: 0,
        range_intervals: 0,
    };
    for spilled in [false, true] {
        let mut stream = open_stream("traces.otf2", &files).unwrap();
        if spilled {
            stream.spill_ends(Box::new(weft::index::spill::ReaderSpill(MemorySpill::default())), 64 << 10);
        }
        match index_otf2(stream, &so, &mut MemorySpill::default(), &MemorySink::default(), &|_| {}) {
            Err(IndexError::Memory(m)) if !spilled => assert!(m.starts_with("reading location "), "{m}"),
            Err(IndexError::Memory(m)) if spilled => {
                assert!(
                    m.starts_with("block 0 (2 locations) needs about") && m.contains("a range of its windows"),
                    "{m}"
                )
            }
            Err(e) => panic!("spilled {spilled}: {e}"),
            Ok(_) => panic!("spilled {spilled}: indexed within 7 MB"),
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

/// `weft index INPUT -o STORE ARGS...`: its output.
fn weft_index(input: &Path, store: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_weft"))
        .args(["index", "--force"])
        .args(args)
        .arg(input)
        .arg("-o")
        .arg(store)
        .output()
        .unwrap()
}

/// The peak resident memory `weft index` reports ("peak memory N MB"), in MB.
fn peak_mb(text: &str) -> u64 {
    text.lines()
        .find_map(|l| l.strip_prefix("peak memory "))
        .and_then(|v| v.trim_end_matches(" MB").parse().ok())
        .unwrap_or_else(|| panic!("no peak memory line: {text}"))
}

/// A store folder written by `weft index` holds the whole build's manifest and tiles, byte for byte.
fn assert_folder_is(store: &Path, whole: &BuiltStore) {
    let manifest = std::fs::read_to_string(store.join("manifest.json")).unwrap();
    assert!(manifest.as_bytes() == whole.manifest_json(), "the manifest differs from the whole build's");
    for (path, bytes) in &whole.tiles {
        assert!(&std::fs::read(store.join(path)).unwrap() == bytes, "{path} differs");
    }
}

/// `weft index` names the input's size on disk on its `bytes` line: an OTF2 archive's, whether given by its
/// folder or by its anchor file (`traces.otf2`, whose archive is the anchor, `traces.def` and `traces/`).
#[test]
fn weft_index_counts_the_whole_archive_as_its_input() {
    let base = TempDir::new("store-stream-input");
    let (files, _) = archive(&GenConfig::new(2, 4_000));
    let trace_dir = base.join("trace");
    write_archive(&files, &trace_dir);
    let on_disk: u64 = files.files.values().map(|b| b.len() as u64).sum();
    let input = |text: &str| -> u64 {
        let line = text.lines().find(|l| l.starts_with("bytes ")).unwrap_or_else(|| panic!("no bytes line: {text}"));
        let n = line.split("(input ").nth(1).and_then(|r| r.strip_suffix(')')).unwrap_or_else(|| panic!("{line}"));
        n.parse().unwrap()
    };
    for given in [trace_dir.clone(), trace_dir.join("traces.otf2")] {
        let out = weft_index(&given, &base.join("store"), &["--threads", "1"]);
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(input(&text), on_disk, "{}:\n{text}", given.display());
    }
}

/// `weft index` on a generated archive several times larger than `--memory`: the store equals the whole
/// build's, and the process's peak resident memory stays under `--memory` plus a fixed overhead (the
/// binary, the allocator, thread stacks).
#[test]
fn weft_index_holds_its_memory_bound() {
    let base = TempDir::new("store-stream");
    // 48 locations of about 40 k events each: ~1.9 M events, ~25 MB of OTF2, ~190 MB as a whole trace.
    let cfg = GenConfig { threads: 2, ..GenConfig::new(24, 1_900_000) };
    let (files, counts) = archive(&cfg);
    // Its message ends (40 bytes spilled) pass their sixteenth of --memory: they are spilled in runs.
    assert!((counts.mpi_send + counts.mpi_recv) * 40 > (40 << 20) / 16, "{} sends", counts.mpi_send);
    let trace_dir = base.join("trace");
    write_archive(&files, &trace_dir);
    let o =
        BuildOptions { block_locations: 2, source_name: trace_dir.display().to_string(), ..BuildOptions::default() };
    let whole = build(&read_archive("traces.otf2", &files).unwrap(), &o);
    drop(files);
    let store = base.join("store");
    let index = |memory: &str| weft_index(&trace_dir, &store, &["--threads", "2", "--block", "2", "--memory", memory]);
    let out = index("40M");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let peak_mb = peak_mb(&text);
    // Fixed overhead: the binary's pages and the allocator, measured at ~10 MB for a tiny trace.
    assert!(peak_mb <= 40 + 24, "peak {peak_mb} MB with --memory 40M:\n{text}");
    assert!(!text.contains("spill       0 bytes"), "{text}");
    // The folder holds the same files as the whole build's store (the spill is gone).
    assert_folder_is(&store, &whole);
    assert!(!store.join(".spill").exists() && !store.join(".spill.ends").exists());
    // With 4 threads and memory enough for its locations to be decoded ahead (`stream::Ahead`), within it.
    let out = weft_index(&trace_dir, &store, &["--threads", "4", "--block", "2", "--memory", "96M"]);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let peak = self::peak_mb(&text);
    assert!(peak <= 96 + 24, "peak {peak} MB with --memory 96M and 4 threads:\n{text}");
    assert_folder_is(&store, &whole);
    // Too little memory for one block is refused with the flag named, leaving no partial folder (nor its
    // spill) behind.
    let out = index("2M");
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("--memory"));
    let partial: Vec<_> = std::fs::read_dir(&base)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".partial"))
        .collect();
    assert!(partial.is_empty(), "left behind: {partial:?}");
}

/// The messages, collective rows and particle intervals stream through pass 2 (issue #17, `index::comms`):
/// `weft index` of a generated archive whose matched messages and collective parts, held as the trace's
/// (about 56 bytes each, twice that to match them), pass `--memory 24M` on their own (250 k sends and
/// receives, 125 k collective parts: refused while reading before they were spilled and sorted in runs)
/// indexes within it, one block of one location at a time, to the whole build's store; the peak resident
/// memory under `--memory` plus the fixed overhead.
#[test]
fn weft_index_streams_messages_within_its_memory_bound() {
    let base = TempDir::new("store-stream-msgs");
    // 32 locations of about 94 k events each: 3.0 M events, 38 MB of OTF2.
    let cfg = GenConfig { threads: 2, ..GenConfig::new(16, 4_000_000) };
    let (files, counts) = archive(&cfg);
    assert!(counts.mpi_send >= 120_000 && counts.collective_begin >= 60_000, "{counts:?}");
    let trace_dir = base.join("trace");
    write_archive(&files, &trace_dir);
    let o =
        BuildOptions { block_locations: 1, source_name: trace_dir.display().to_string(), ..BuildOptions::default() };
    let whole = build(&read_archive("traces.otf2", &files).unwrap(), &o);
    drop(files);
    let store = base.join("store");
    let out = weft_index(&trace_dir, &store, &["--threads", "2", "--block", "1", "--memory", "24M"]);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let peak_mb = peak_mb(&text);
    assert!(peak_mb <= 24 + 24, "peak {peak_mb} MB with --memory 24M:\n{text}");
    // The report times each step, in the order they ran.
    let steps = text.lines().find_map(|l| l.strip_prefix("steps       ")).unwrap_or_else(|| panic!("{text}"));
    let names: Vec<&str> = steps.split(", ").map(|s| s.rsplit_once(' ').expect("a name and seconds").0).collect();
    assert_eq!(names, ["read", "matching", "messages", "blocks", "particle tiles"], "{text}");
    assert!(steps.split(", ").all(|s| s.rsplit_once(' ').unwrap().1.parse::<f64>().is_ok_and(|x| x >= 0.0)));
    assert_folder_is(&store, &whole);
    let files = 1 + whole.tiles.len();
    // Nothing else is left in the folder (the spill, its block files and runs are gone).
    let mut left = 0;
    let mut dirs = vec![store.clone()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            match e.file_type().unwrap().is_dir() {
                true => dirs.push(e.path()),
                false => left += 1,
            }
        }
    }
    assert_eq!(left, files, "files in the store");
}

/// `weft index --waits` holds the same bound (issue #53): on the archive above, whose messages and
/// collective members the wait-state step held at about 320 bytes each (~80 MB: refused under
/// `--memory 24M` before, "--waits: the wait states hold about ..."), its sorts go to the spill in runs
/// past their shares and the peak resident memory stays under `--memory` plus the fixed overhead; the store
/// is the whole build's with its wait states held in memory, byte for byte, and the spill is gone.
#[test]
fn weft_index_waits_holds_its_memory_bound() {
    let base = TempDir::new("store-stream-waits");
    let cfg = GenConfig { threads: 2, ..GenConfig::new(16, 4_000_000) };
    let (files, counts) = archive(&cfg);
    assert!(counts.mpi_send >= 120_000 && counts.collective_begin >= 60_000, "{counts:?}");
    let trace_dir = base.join("trace");
    write_archive(&files, &trace_dir);
    let o = BuildOptions {
        block_locations: 1,
        source_name: trace_dir.display().to_string(),
        waits: true,
        ..BuildOptions::default()
    };
    let whole = build(&read_archive("traces.otf2", &files).unwrap(), &o);
    assert!(whole.manifest.waits.as_ref().is_some_and(|w| w.patterns.iter().any(|p| p[1] > 10_000)));
    drop(files);
    let store = base.join("store");
    let out = weft_index(&trace_dir, &store, &["--threads", "2", "--block", "1", "--memory", "24M", "--waits"]);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let peak_mb = peak_mb(&text);
    assert!(peak_mb <= 24 + 24, "peak {peak_mb} MB with --waits --memory 24M:\n{text}");
    assert!(text.contains("wait states"), "{text}");
    assert_folder_is(&store, &whole);
    let mut left = Vec::new();
    let mut dirs = vec![store.clone()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            match e.file_type().unwrap().is_dir() {
                true => dirs.push(e.path()),
                false => left.push(e.path()),
            }
        }
    }
    assert_eq!(left.len(), 1 + whole.tiles.len(), "files in the store: the spill is gone");
}

/// A block of many locations over many windows (the default `--block` on a long trace of few locations)
/// is planned by the lanes its intervals take, not the most a summary may keep: 16 locations in one block,
/// 512 windows (`--tile-intervals 1000`), were refused at `--memory 384M` ("needs about 3051 MB to tile
/// even a range of its windows": 64 lanes a bin) when the index takes about 210 MB (4 lanes). It indexes
/// within that memory, to the whole build's store.
#[test]
fn weft_index_plans_a_wide_block_by_the_lanes_it_takes() {
    let base = TempDir::new("store-stream-lanes");
    let cfg = GenConfig { threads: 2, ..GenConfig::new(8, 1_200_000) };
    let (files, _) = archive(&cfg);
    let trace_dir = base.join("trace");
    write_archive(&files, &trace_dir);
    let o =
        BuildOptions { tile_intervals: 1000, source_name: trace_dir.display().to_string(), ..BuildOptions::default() };
    let whole = build(&read_archive("traces.otf2", &files).unwrap(), &o);
    drop(files);
    assert_eq!((whole.manifest.tiling.blocks, whole.manifest.tiling.windows), (1, 512));
    let store = base.join("store");
    let out = weft_index(&trace_dir, &store, &["--tile-intervals", "1000", "--memory", "384M"]);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let peak_mb = peak_mb(&text);
    assert!(peak_mb <= 384 + 24, "peak {peak_mb} MB with --memory 384M:\n{text}");
    assert_folder_is(&store, &whole);
}

/// Counter samples stream through the index (issue #17, `index::samples`): a generated archive with three
/// PAPI-named counters at every ENTER and LEAVE (as Score-P records them), whose samples, held as the
/// trace's (20 bytes each, about twice that to sort them), pass `--memory 150M` on their own (refused while
/// reading before they were spilled in runs), indexes within it, with 1 and 4 threads (locations decoded
/// ahead), to the whole build's store: a window's samples at a time (4 windows here). Under 32M one
/// window's samples do not fit: refused, naming the memory that does, and that much is enough.
#[test]
fn weft_index_streams_counter_samples_within_its_memory_bound() {
    let base = TempDir::new("store-stream-samples");
    let cfg = GenConfig { metrics: 3, ..GenConfig::new(4, 3_000_000) };
    let (files, counts) = archive(&cfg);
    assert!(counts.metric * 3 * 20 * 2 > 150 << 20, "{} METRIC records", counts.metric);
    let trace_dir = base.join("trace");
    write_archive(&files, &trace_dir);
    let o =
        BuildOptions { block_locations: 4, source_name: trace_dir.display().to_string(), ..BuildOptions::default() };
    let whole = build(&read_archive("traces.otf2", &files).unwrap(), &o);
    assert_eq!(whole.manifest.counts.counter_samples, counts.metric * 3);
    assert_eq!(whole.manifest.tiling.windows, 4);
    drop(files);
    let store = base.join("store");
    let index = |threads: &str, memory: &str| {
        weft_index(&trace_dir, &store, &["--threads", threads, "--block", "4", "--memory", memory])
    };
    for threads in ["1", "4"] {
        let out = index(threads, "150M");
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(out.status.success(), "{threads} threads: {}", String::from_utf8_lossy(&out.stderr));
        let peak_mb = peak_mb(&text);
        assert!(peak_mb <= 150 + 24, "peak {peak_mb} MB with --memory 150M, {threads} threads:\n{text}");
        assert_folder_is(&store, &whole);
    }
    let out = index("1", "32M");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success() && err.contains("counter samples"), "{err}");
    let advice = err.split("use --memory ").nth(1).and_then(|r| r.split_whitespace().next()).expect("advice");
    let out = index("1", advice);
    assert!(out.status.success(), "--memory {advice}: {}", String::from_utf8_lossy(&out.stderr));
    assert_folder_is(&store, &whole);
}

/// `weft index` holds its memory bound whatever a location's length (issue #17): two long locations (1.5 M
/// events each, event files of ~18 MB, 0.75 M intervals each) under `--memory 40M` are read, nested,
/// matched and spilled, then each tiled by time range (a location's block tiled whole needs ~56 MB: it was
/// refused, "a location is tiled whole", before `index::ranged`), the store equal to the whole build's and
/// the peak resident memory under `--memory` plus the fixed overhead. A first pass that read an event file
/// whole and held a location's intervals peaked at 97 MB in its first pass (`--memory 100M`, 8f3242c).
/// Under 24M a range of one window (~150,000 intervals here) does not fit two tasks' shares: refused, after
/// the first pass within the bound, with the `--memory` that fits it, and that much is enough.
#[test]
fn weft_index_holds_its_memory_bound_on_long_locations() {
    let base = TempDir::new("store-stream-long");
    let (files, counts) = archive(&GenConfig::new(2, 3_000_000));
    let largest = files.files.iter().filter(|(p, _)| p.ends_with(".evt")).map(|(_, b)| b.len()).max().unwrap();
    assert!(largest > 16 << 20, "event files of {largest} bytes");
    let trace_dir = base.join("trace");
    write_archive(&files, &trace_dir);
    let o =
        BuildOptions { block_locations: 1, source_name: trace_dir.display().to_string(), ..BuildOptions::default() };
    let whole = build(&read_archive("traces.otf2", &files).unwrap(), &o);
    drop(files);
    let store = base.join("store");
    let out = weft_index(&trace_dir, &store, &["--threads", "2", "--block", "1", "--memory", "40M"]);
    let (text, err) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{err}");
    assert!(text.contains("2 tiled by time range"), "{text}");
    let peak = peak_mb(&text);
    assert!(peak <= 40 + 24, "peak {peak} MB with --memory 40M ({} events):\n{text}", counts.events());
    assert_folder_is(&store, &whole);
    let out = weft_index(&trace_dir, &store, &["--threads", "2", "--block", "1", "--memory", "24M"]);
    let (text, err) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(!out.status.success(), "{text}");
    assert!(err.contains("window 0 of block 0 holds"), "{err}");
    let peak = peak_mb(&text);
    assert!(peak <= 24 + 24, "peak {peak} MB with --memory 24M:\n{text}\n{err}");
    let advised = err.split("use --memory ").nth(1).and_then(|r| r.split('M').next()).map(str::to_string);
    let advised = advised.unwrap_or_else(|| panic!("no --memory advised: {err}"));
    assert!(advised.parse::<u64>().is_ok_and(|m| m > 24), "{err}");
    let memory = format!("{advised}M");
    let out = weft_index(&trace_dir, &store, &["--threads", "2", "--block", "1", "--memory", &memory]);
    let (text, err) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{err}");
    let peak = peak_mb(&text);
    assert!(peak <= advised.parse::<u64>().unwrap() + 24, "peak {peak} MB with --memory {memory}:\n{text}");
    assert_folder_is(&store, &whole);
}

/// Index Chrome JSON `bytes` in chunks of `chunk` bytes, spilling every `buffer` records, and compare with
/// the whole read's build.
/// Options of a chunked read spilling every `buffer` records, tiling every block by time range at most
/// `range` intervals a range (0: whole): pages of the blocks' messages and of the particle runs as small as
/// they go (1 KiB) with a small buffer.
fn chunked_options(o: &BuildOptions, buffer: usize, range: u64) -> StreamOptions {
    let runs = buffer as u64 * 100;
    StreamOptions {
        build: o.clone(),
        memory: 1 << 30,
        event_buffer: buffer,
        shard: None,
        held: 0,
        runs,
        range_intervals: range,
    }
}

fn assert_chrome_equals_build(name: &str, bytes: &[u8], o: &BuildOptions, chunk: usize, buffer: usize, range: u64) {
    let whole = build(&weft::readers::chrome::read_without_args(name, bytes).expect("the trace reads"), o);
    let (sink, mut spill) = (MemorySink::default(), MemorySpill::default());
    let so = chunked_options(o, buffer, range);
    let done = index_chrome(name, &mut &bytes[..], chunk, 0, ReadSpills::in_memory(), &so, &mut spill, &sink, &|_| {})
        .unwrap_or_else(|e| panic!("{name}: chunks of {chunk}: {e}"));
    assert_same_store(&format!("{name} (chunks of {chunk}, spill every {buffer})"), &whole, done, sink);
}

/// A Chrome trace whose events come in no time order (as the format allows): three processes' slices and
/// counters (two series each, one at equal times), shuffled.
fn shuffled_counters() -> Vec<u8> {
    let mut events = Vec::new();
    for p in 1..=3u64 {
        for i in 0..400u64 {
            let ts = i * 10 + p;
            if i % 10 == 0 {
                events.push(format!(r#"{{"ph":"X","pid":{p},"tid":1,"ts":{ts},"dur":95,"name":"step"}}"#));
            }
            let (a, b) = ((i * 7919 + p) % 1009, (i / 3) % 17);
            events.push(format!(r#"{{"ph":"C","pid":{p},"ts":{},"name":"c","args":{{"a":{a},"b":{b}.5}}}}"#, ts / 2));
        }
    }
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    for i in (1..events.len()).rev() {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        events.swap(i, (seed % (i as u64 + 1)) as usize);
    }
    format!("[{}]", events.join(",")).into_bytes()
}

#[test]
fn chunked_chrome_store_equals_the_whole_build_on_generated_traces() {
    let sample = ChromeSample { ranks: 3, threads_per_rank: 2, iterations: 12, ..ChromeSample::builtin() };
    let kineto = KinetoSample { launches: 40, ..KinetoSample::default() };
    for (what, bytes) in
        [("sample.json", sample.generate()), ("kineto.json", kineto.generate()), ("shuffled.json", shuffled_counters())]
    {
        // The last two also tiled by time range (ranges of 5 and 40 intervals).
        for (chunk, buffer, block, tile, range) in
            [(1, 1, 64, 1 << 18, 0), (7, 3, 1, 200, 0), (4096, 0, 2, 1_000, 5), (1 << 20, 1_000, 3, 50, 40)]
        {
            for threads in [1, 2] {
                let o =
                    BuildOptions { block_locations: block, tile_intervals: tile, threads, ..BuildOptions::default() };
                assert_chrome_equals_build(what, &bytes, &o, chunk, buffer, range);
            }
        }
    }
}

#[test]
fn chunked_chrome_store_equals_the_whole_build_on_real_traces() {
    let Some(dir) = common::shared_traces("store_stream chunked_chrome") else { return };
    let files: Vec<PathBuf> = common::files_under(&dir.join("chrome-json"))
        .into_iter()
        .filter(|p| p.to_string_lossy().ends_with(".json") || p.to_string_lossy().ends_with(".json.gz"))
        .collect();
    assert!(files.len() > 10, "Chrome traces under {}", dir.display());
    let mut indexed = 0;
    for p in files {
        let bytes = std::fs::read(&p).unwrap();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if weft::readers::chrome::read(&name, &bytes).is_err() {
            continue; // not a trace (an empty document): the index refuses it as the reader does
        }
        let chunks: &[usize] = if bytes.len() < 8_000 { &[1, 3, 64, 1 << 20] } else { &[7, 4096, 1 << 20] };
        for &chunk in chunks {
            for (buffer, o) in [
                (1, BuildOptions::default()),
                (0, BuildOptions { block_locations: 2, tile_intervals: 100, threads: 2, ..BuildOptions::default() }),
            ] {
                assert_chrome_equals_build(&name, &bytes, &o, chunk, buffer, 0);
            }
        }
        indexed += 1;
    }
    assert!(indexed > 10, "{indexed} Chrome traces indexed");
}

/// `weft index` on a generated Chrome trace several times larger than `--memory`: the store equals the
/// whole build's, and the peak resident memory stays under `--memory` plus a fixed overhead.
#[test]
fn weft_index_of_chrome_holds_its_memory_bound() {
    let base = TempDir::new("store-chrome");
    // ~126 MB of JSON, 1.3 M events: over 3x the 40 MB limit on disk (a whole read holds ~300 MB). Its
    // instants, async events and flow ends, kept to the end of the read, need about 37 MB of --memory.
    let bytes = ChromeSample { seed: 7, ..ChromeSample::sized(120 << 20, 7) }.generate();
    let trace = base.join("trace.json");
    std::fs::write(&trace, &bytes).unwrap();
    let o = BuildOptions { block_locations: 4, source_name: trace.display().to_string(), ..BuildOptions::default() };
    let whole = build(&weft::readers::chrome::read_without_args(&trace.display().to_string(), &bytes).unwrap(), &o);
    drop(bytes);
    let store = base.join("store");
    let out = weft_index(&trace, &store, &["--threads", "1", "--block", "4", "--memory", "40M"]);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let peak_mb = peak_mb(&text);
    assert!(peak_mb <= 40 + 24, "peak {peak_mb} MB with --memory 40M:\n{text}");
    eprintln!("{text}");
    assert_folder_is(&store, &whole);
    assert!(!store.join(".spill").exists() && !store.join(".events").exists());
}

/// `weft index` on a Chrome trace whose counter samples are far more than `--memory` (64 processes with a
/// counter sampled every microsecond, 1.2 M samples, in one time window): they go to the spill in runs as
/// the file is read, and are cut series block by series block, so neither the read nor the window across
/// all processes (~170 MB as the counter tiles' window holds samples) has to fit. The store equals the whole
/// build's; the peak stays under `--memory` plus the fixed overhead.
#[test]
fn weft_index_of_chrome_streams_counter_samples_within_its_memory_bound() {
    use std::fmt::Write;
    let base = TempDir::new("store-chrome-counters");
    let (processes, samples) = (64u32, 19_000u32);
    let mut json = String::with_capacity(80 << 20);
    json.push('[');
    for p in 1..=processes {
        let _ = write!(json, r#"{{"ph":"M","pid":{p},"tid":1,"name":"thread_name","args":{{"name":"main"}}}},"#);
    }
    for i in 0..samples {
        for p in 1..=processes {
            let ts = i as u64 * 1000 + p as u64;
            if i % 100 == 0 {
                let _ = write!(json, r#"{{"ph":"X","pid":{p},"tid":1,"ts":{ts},"dur":50000,"name":"step"}},"#);
            }
            let v = (i as u64 * 7919 + p as u64 * 104_729) % 1_000_003;
            let _ = write!(json, r#"{{"ph":"C","pid":{p},"ts":{ts},"name":"mem","args":{{"bytes":{v}}}}},"#);
        }
    }
    json.pop();
    json.push(']');
    let trace = base.join("trace.json");
    std::fs::write(&trace, &json).unwrap();
    let name = trace.display().to_string();
    let o = BuildOptions {
        block_locations: 1,
        tile_intervals: 1 << 20,
        source_name: name.clone(),
        ..BuildOptions::default()
    };
    let whole = build(&weft::readers::chrome::read_without_args(&name, json.as_bytes()).unwrap(), &o);
    drop(json);
    assert_eq!(whole.manifest.counts.counter_samples, (processes * samples) as u64);
    assert_eq!(whole.manifest.tiling.windows, 1);
    let store = base.join("store");
    for threads in ["1", "2"] {
        let out = weft_index(
            &trace,
            &store,
            &["--threads", threads, "--block", "1", "--tile-intervals", "1048576", "--memory", "32M"],
        );
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let peak_mb = peak_mb(&text);
        assert!(peak_mb <= 32 + 24, "peak {peak_mb} MB with --memory 32M, {threads} threads:\n{text}");
        eprintln!("{text}");
        assert_folder_is(&store, &whole);
    }
}

/// A Chrome trace's instants, async events and flow ends are kept to the end of the read (outside the
/// spill, where they are matched): `weft index` refuses a trace whose kept records pass their quarter of
/// `--memory`, as soon as they do, naming them and the `--memory` the whole file needs (from the share
/// read); under that memory the store is the whole build's, within the bound.
#[test]
fn weft_index_of_chrome_refuses_kept_records_over_their_share_and_names_what_fits() {
    use std::fmt::Write;
    let base = TempDir::new("store-chrome-kept");
    // (file, what the refusal names, the trace)
    let mut traces = Vec::new();
    let mut json = String::from("[");
    for i in 0..800_000u64 {
        let (tid, ts) = (1 + i % 4, i * 10);
        if i % 1000 == 0 {
            let _ = write!(json, r#"{{"ph":"X","pid":1,"tid":{tid},"ts":{ts},"dur":5000,"name":"step"}},"#);
        }
        let _ = write!(json, r#"{{"ph":"i","pid":1,"tid":{tid},"ts":{ts},"name":"tick","s":"t"}},"#);
    }
    traces.push(("instants.json", "instants", json));
    // Async requests, a few overlapping (several tracks), every id its own tree.
    let mut json = String::from("[");
    for i in 0..200_000u64 {
        let (ts, name) = (i * 10, ["load", "fetch"][(i % 2) as usize]);
        let _ = write!(json, r#"{{"ph":"b","pid":1,"tid":1,"ts":{ts},"name":"{name}","cat":"net","id":"0x{i:x}"}},"#);
        let _ = write!(
            json,
            r#"{{"ph":"e","pid":1,"tid":1,"ts":{},"name":"{name}","cat":"net","id":"0x{i:x}"}},"#,
            ts + 25
        );
    }
    traces.push(("asyncs.json", "async events", json));
    // Launches on 4 threads, each with a flow to a kernel on one of 4 others.
    let mut json = String::from("[");
    for i in 0..150_000u64 {
        let (a, b, ts) = (1 + i % 4, 5 + i % 4, i * 40);
        let _ = write!(json, r#"{{"ph":"X","pid":1,"tid":{a},"ts":{ts},"dur":9,"name":"launch"}},"#);
        let _ = write!(json, r#"{{"ph":"s","pid":1,"tid":{a},"ts":{},"name":"ac2g","cat":"ac2g","id":{i}}},"#, ts + 1);
        let _ = write!(json, r#"{{"ph":"X","pid":1,"tid":{b},"ts":{},"dur":9,"name":"kernel"}},"#, ts + 20);
        let _ = write!(
            json,
            r#"{{"ph":"f","pid":1,"tid":{b},"ts":{},"name":"ac2g","cat":"ac2g","id":{i},"bp":"e"}},"#,
            ts + 20
        );
    }
    traces.push(("flows.json", "flow ends", json));
    for (file, what, mut json) in traces {
        json.pop();
        json.push(']');
        let trace = base.join(file);
        std::fs::write(&trace, &json).unwrap();
        let store = base.join(format!("{file}.store"));
        let out = weft_index(&trace, &store, &["--threads", "1", "--memory", "32M"]);
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(!out.status.success() && err.contains(file) && err.contains(what), "{file}: {err}");
        assert!(!store.exists(), "{file}: a refused index leaves no store");
        let advice = err.split("use --memory ").nth(1).and_then(|r| r.split_whitespace().next()).expect("advice");
        let mb: u64 = advice.trim_end_matches('M').parse().unwrap();
        let out = weft_index(&trace, &store, &["--threads", "1", "--memory", advice]);
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(out.status.success(), "{file}, --memory {advice}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(peak_mb(&text) <= mb + 24, "{file}: peak with --memory {advice}:\n{text}");
        let name = trace.display().to_string();
        let o = BuildOptions { source_name: name.clone(), ..BuildOptions::default() };
        let whole = build(&weft::readers::chrome::read_without_args(&name, json.as_bytes()).unwrap(), &o);
        match file {
            "instants.json" => assert_eq!(whole.manifest.counts.instants, 800_000),
            "asyncs.json" => assert_eq!(whole.manifest.counts.intervals, 200_000),
            _ => assert_eq!(whole.manifest.counts.flows, 150_000),
        }
        assert_folder_is(&store, &whole);
    }
}

/// A Chrome JSON or Paraver thread is read back whole at the end of the read (to match, sort and nest it):
/// `weft index` refuses one too long for `--memory`, after counting the whole file, naming the thread and
/// the `--memory` that fits it, and leaves nothing behind; under that memory the store is the whole build's
/// and the peak stays under it (plus the fixed overhead).
#[test]
fn weft_index_refuses_a_thread_longer_than_its_memory_and_names_what_fits() {
    use std::fmt::Write;
    let base = TempDir::new("store-long-thread");
    // One thread of 600 k slices (and a short second one): ~45 MB as a whole read would hold it.
    let n = 600_000u64;
    let mut json = String::from("[");
    let mut prv = format!("#Paraver (01/01/26 at 00:00):{}_ns:1(2):1:1(2:1)\n", n * 100);
    for i in 0..n {
        let (t, d) = (i * 60, 5 + i % 40);
        let _ = write!(json, r#"{{"name":"f{}","ph":"X","pid":1,"tid":1,"ts":{t},"dur":{d}}},"#, i % 50);
        let _ = writeln!(prv, "1:1:1:1:1:{t}:{}:{}", t + d, 1 + i % 3);
    }
    json.push_str(r#"{"name":"g","ph":"X","pid":1,"tid":2,"ts":5,"dur":9}]"#);
    prv.push_str("1:2:1:1:2:5:14:1\n");
    for (file, bytes) in [("t.json", json.into_bytes()), ("t.prv", prv.into_bytes())] {
        let trace = base.join(file);
        std::fs::write(&trace, &bytes).unwrap();
        let name = trace.display().to_string();
        let o = BuildOptions { block_locations: 4, source_name: name.clone(), ..BuildOptions::default() };
        let whole = match file {
            "t.json" => build(&weft::readers::chrome::read_without_args(&name, &bytes).unwrap(), &o),
            _ => build(&weft::readers::paraver::read(&name, &bytes, None, None).unwrap(), &o),
        };
        let store = base.join(format!("{file}.store"));
        let out = weft_index(&trace, &store, &["--threads", "1", "--block", "4", "--memory", "32M"]);
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(!out.status.success(), "{file}: indexed under 32M");
        assert!(
            err.contains(&format!("holds {n} records"))
                && (err.contains("\"Thread 1\"") || err.contains("THREAD 1.1.1")),
            "{err}"
        );
        let advised = err.split("use --memory ").nth(1).and_then(|r| r.split(' ').next()).expect(&err).to_string();
        let leftover: Vec<_> = std::fs::read_dir(&base)
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().contains("partial"))
            .collect();
        assert!(leftover.is_empty() && !store.exists(), "{file}: a refused index left {leftover:?}");
        let out = weft_index(&trace, &store, &["--threads", "1", "--block", "4", "--memory", &advised]);
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(out.status.success(), "{file} under --memory {advised}: {}", String::from_utf8_lossy(&out.stderr));
        let (peak, memory) = (peak_mb(&text), advised.trim_end_matches('M').parse::<u64>().unwrap());
        // The memory asked for, plus the fixed overhead the other bounds here allow (the binary, the definitions).
        assert!(peak <= memory + 24, "{file}: peak {peak} MB under --memory {advised}");
        assert_folder_is(&store, &whole);
        eprintln!("{file}: {err}; under --memory {advised}: peak {peak} MB");
    }
}

/// Index a Paraver trace's text in chunks of `chunk` bytes, spilling every `buffer` intervals, and compare
/// with the whole read's build.
#[allow(clippy::too_many_arguments)]
fn assert_paraver_equals_build(
    name: &str,
    prv: &[u8],
    pcf: Option<&[u8]>,
    row: Option<&[u8]>,
    o: &BuildOptions,
    chunk: usize,
    buffer: usize,
    range: u64,
) {
    let whole = build(&weft::readers::paraver::read(name, prv, pcf, row).expect("the trace reads"), o);
    let (sink, mut spill) = (MemorySink::default(), MemorySpill::default());
    let so = chunked_options(o, buffer, range);
    let events = ReadSpills::in_memory();
    let done =
        index_paraver(name, &mut &prv[..], chunk, 0, pcf, row, &Vec::new, events, &so, &mut spill, &sink, &|_| {})
            .unwrap_or_else(|e| panic!("{name}: chunks of {chunk}: {e}"));
    assert_same_store(&format!("{name} (chunks of {chunk}, spill every {buffer})"), &whole, done, sink);
}

#[test]
fn chunked_paraver_store_equals_the_whole_build() {
    let p = ParaverSample { tasks: 3, threads_per_task: 2, iterations: 6, ..Default::default() }.generate();
    // A damaged copy: a bad line, a record for an undeclared thread, records out of order, a cut last line.
    let mut damaged = p.prv.clone();
    damaged.extend_from_slice(
        b"2:1:1:9:1:100:50000001:3\n1:oops\n1:1:1:1:1:5:6:1\n3:1:1:1:1:10:10:1:1:2:1:20:20:8:1\n2:1:1:1:1:3",
    );
    // Messages sent and received at one time (the trace keeps them in the order recorded).
    let mut ties = p.prv.clone();
    for (from, to, size, tag) in [(1, 2, 8, 1), (2, 1, 16, 2), (1, 2, 32, 3), (2, 2, 64, 4)] {
        ties.extend_from_slice(format!("3:1:1:{from}:1:10:10:1:1:{to}:1:20:20:{size}:{tag}\n").as_bytes());
    }
    for (prv, names) in [(&p.prv, true), (&p.prv, false), (&damaged, true), (&ties, true)] {
        let (pcf, row) = if names { (Some(&p.pcf[..]), Some(&p.row[..])) } else { (None, None) };
        // The last two also tiled by time range (ranges of 3 and 60 intervals).
        for (chunk, buffer, block, tile, range) in
            [(1, 1, 64, 1 << 18, 0), (13, 5, 1, 100, 0), (4096, 0, 2, 1_000, 3), (1 << 20, 7, 3, 50, 60)]
        {
            for threads in [1, 2] {
                let o =
                    BuildOptions { block_locations: block, tile_intervals: tile, threads, ..BuildOptions::default() };
                assert_paraver_equals_build("t.prv", prv, pcf, row, &o, chunk, buffer, range);
            }
        }
    }
}

#[test]
fn chunked_paraver_store_equals_the_whole_build_on_real_traces() {
    let Some(dir) = common::shared_traces("store_stream chunked_paraver") else { return };
    let prvs: Vec<PathBuf> = common::files_under(&dir.join("paraver"))
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "prv"))
        .collect();
    assert!(!prvs.is_empty(), "no .prv under {}", dir.display());
    for p in prvs {
        let prv = std::fs::read(&p).unwrap();
        let name = p.display().to_string();
        let (pcf, row, _) = weft::readers::paraver::names_beside(&name);
        for chunk in [1, 100, 1 << 20] {
            for (buffer, o) in [
                (1, BuildOptions::default()),
                (0, BuildOptions { block_locations: 2, tile_intervals: 100, threads: 2, ..BuildOptions::default() }),
            ] {
                assert_paraver_equals_build(&name, &prv, pcf.as_deref(), row.as_deref(), &o, chunk, buffer, 0);
            }
        }
    }
}

/// `weft index` on a generated Paraver trace (its .pcf and .row beside it) larger than `--memory`: the same
/// store as the whole read's build, within the memory bound (this trace has a message and three counter
/// samples per 17 records).
#[test]
fn weft_index_of_paraver_holds_its_memory_bound() {
    let base = TempDir::new("store-paraver");
    let p = ParaverSample {
        tasks: 16,
        threads_per_task: 2,
        max_bytes: 120 << 20,
        iterations: u32::MAX,
        ..Default::default()
    }
    .generate();
    let trace = base.join("trace.prv");
    std::fs::write(&trace, &p.prv).unwrap();
    std::fs::write(base.join("trace.pcf"), &p.pcf).unwrap();
    std::fs::write(base.join("trace.row"), &p.row).unwrap();
    let name = trace.display().to_string();
    let o = BuildOptions { block_locations: 1, source_name: name.clone(), ..BuildOptions::default() };
    let whole = build(&weft::readers::paraver::read(&name, &p.prv, Some(&p.pcf), Some(&p.row)).unwrap(), &o);
    drop(p);
    let store = base.join("store");
    let out = weft_index(&trace, &store, &["--threads", "1", "--block", "1", "--memory", "72M"]);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let peak_mb = peak_mb(&text);
    // The counter samples (three per 17 records) go to the spill in runs as the file is read and are cut
    // series block by series block (sessions 6-17 held them to the end: 104-132 MB here, with a 64 MB
    // allowance); the messages and instants are still held to the end (about 20 bytes each).
    assert!(peak_mb <= 72 + 24, "peak {peak_mb} MB with --memory 72M:\n{text}");
    eprintln!("{text}");
    assert_folder_is(&store, &whole);
}

/// `weft index` on a gzipped .prv, whole and cut inside its gzip stream (the records before the break kept,
/// with the whole read's warning after the trace's own), and on a gzipped Chrome trace: the whole build's store.
#[test]
fn weft_index_of_gzipped_traces_equals_the_whole_build() {
    use std::io::Write;
    let base = TempDir::new("store-gz");
    let gz = |b: &[u8]| {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(b).unwrap();
        e.finish().unwrap()
    };
    let p = ParaverSample { tasks: 3, threads_per_task: 2, iterations: 40, ..Default::default() }.generate();
    let full = gz(&p.prv);
    let chrome =
        gz(&ChromeSample { ranks: 2, threads_per_rank: 2, iterations: 20, ..ChromeSample::builtin() }.generate());
    for (file, bytes) in
        [("a.prv.gz", full.clone()), ("b.prv.gz", full[..full.len() * 2 / 3].to_vec()), ("c.json.gz", chrome)]
    {
        let trace = base.join(file);
        std::fs::write(&trace, &bytes).unwrap();
        let stem = file.split('.').next().unwrap();
        std::fs::write(base.join(format!("{stem}.pcf")), &p.pcf).unwrap();
        std::fs::write(base.join(format!("{stem}.row")), &p.row).unwrap();
        let name = trace.display().to_string();
        let t = if file.ends_with(".json.gz") {
            weft::readers::chrome::read_without_args(&name, &bytes).unwrap()
        } else {
            weft::readers::paraver::read(&name, &bytes, Some(&p.pcf), Some(&p.row)).unwrap()
        };
        if file.starts_with('b') {
            assert!(t.warnings.count(weft::model::WarningKind::Truncated) > 0, "the cut stream is noted");
        }
        let whole = build(&t, &BuildOptions { block_locations: 2, source_name: name, ..BuildOptions::default() });
        let store = base.join(format!("{stem}.store"));
        let out = weft_index(&trace, &store, &["--block", "2", "--memory", "64M"]);
        assert!(out.status.success(), "{file}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(String::from_utf8_lossy(&out.stdout).contains("spill "), "{file}: streamed");
        assert_folder_is(&store, &whole);
    }
}

/// Cut and damaged inputs: wherever a Chrome or Paraver trace is cut, or bytes in it changed, the chunked
/// index fails when the reader fails (Chrome: fed the same chunks) and otherwise gives the build of what the
/// reader read; it never panics.
#[test]
fn chunked_index_of_cut_and_damaged_traces_follows_the_reader() {
    let chrome = ChromeSample { ranks: 2, threads_per_rank: 2, iterations: 6, ..ChromeSample::builtin() }.generate();
    let p = ParaverSample { tasks: 2, threads_per_task: 2, iterations: 4, ..Default::default() }.generate();
    let o = BuildOptions { block_locations: 2, tile_intervals: 200, ..BuildOptions::default() };
    let so = StreamOptions {
        build: o.clone(),
        memory: 1 << 30,
        event_buffer: 3,
        shard: None,
        held: 0,
        runs: 0,
        range_intervals: 0,
    };
    let mut cases = 0;
    for (k, variant) in (0..24).map(|k| (k, k % 3)) {
        for (is_chrome, src) in [(true, &chrome), (false, &p.prv)] {
            let mut b = src.clone();
            let at = (b.len() as u64 * (k as u64 * 37 % 97 + 1) / 98) as usize;
            match variant {
                0 => b.truncate(at),
                1 => b[at] = b"{}[]:,\"\n9-"[k % 10],
                _ => b.drain(at..(at + 17).min(b.len())).for_each(drop),
            }
            let name = if is_chrome { "t.json" } else { "t.prv" };
            let whole = if is_chrome {
                // The reader fed the same chunks: on some damaged bytes a chunked read of Chrome JSON differs
                // from a whole one (a broken key inside an event cut by a chunk reads as a truncated file).
                let mut r = weft::readers::chrome::ChromeStreamReader::new(name);
                b.chunks(5).try_for_each(|c| r.feed(c)).and_then(|_| r.finish())
            } else {
                weft::readers::paraver::read(name, &b, Some(&p.pcf), Some(&p.row))
            };
            let (sink, mut spill) = (MemorySink::default(), MemorySpill::default());
            let events = ReadSpills::in_memory();
            let streamed = if is_chrome {
                index_chrome(name, &mut &b[..], 5, 0, events, &so, &mut spill, &sink, &|_| {})
            } else {
                let (pcf, row) = (Some(&p.pcf[..]), Some(&p.row[..]));
                index_paraver(name, &mut &b[..], 5, 0, pcf, row, &Vec::new, events, &so, &mut spill, &sink, &|_| {})
            };
            match (whole, streamed) {
                (Ok(t), Ok(done)) => {
                    assert_same_store(&format!("{name} case {k}"), &build(&t, &o), done, sink);
                    cases += 1;
                }
                (Err(_), Err(_)) => {}
                (w, s) => panic!("{name} case {k}: whole {:?}, chunked {:?}", w.err(), s.err().map(|e| e.to_string())),
            }
        }
    }
    assert!(cases > 30, "{cases} cases read");
}
