//! Sharded indexing (crates/store/src/{partition,merge}.rs, `weft index --shard K/N`, `weft merge`, and with
//! `--features mpi` `mpirun -n N weft index`): the store does not depend on how it was made. 1, 2 and 4 shards
//! merge into the unsharded store byte for byte (manifest and every tile) on generated OTF2, a hand-built trace
//! with an empty location, flows, counters and warnings, and the real archives in ../shared/traces; a message
//! between locations of different shards decodes as sent; a streamed shard (OTF2, Chrome JSON) makes the part
//! cut from the whole trace and spills only its own locations, and so do shards that decode only their own
//! locations and exchange the rest (`index::exchange`, as MPI ranks do); the merge refuses parts of another
//! trace, another tiling, another version, duplicated or missing shards.

use crate::common;

use crate::common::TempDir;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use weft::index::shard::exchange::{Exchange, ThreadExchange};
use weft::index::stream::{
    index_chrome, index_otf2, index_otf2_exchanged, Indexed, MemorySink, ReadSpills, StreamOptions,
};
use weft::index::MemorySpill;
use weft::index::{
    build, build_part, build_part_with, merge, BuildOptions, MergeError, PartManifest, ParticleShare, Shard,
};
use weft::model::*;
use weft::readers::otf2::{open_stream, read_archive};
use weft::readers::otf2::{ArchiveFiles, FolderFiles, MemoryFiles};
use weft::samples::otf2_gen::{archive, GenConfig};
use weft::store::{MemoryStore, Store, StoreError, MANIFEST};

fn generated(cfg: &GenConfig) -> Trace {
    read_archive("traces.otf2", &archive(cfg).0).expect("generated archive reads")
}

fn small_tiles(block: u32, tile_intervals: u64) -> BuildOptions {
    BuildOptions { block_locations: block, tile_intervals, ..BuildOptions::default() }
}

/// The parts of `n` shards, named `part K`, the particle tiles shared as `share` says.
fn parts(t: &Trace, o: &BuildOptions, n: u32, share: ParticleShare) -> Vec<(String, weft::index::BuiltPart)> {
    (0..n).map(|k| (format!("part {k}"), build_part_with(t, o, Shard { index: k, count: n }, share))).collect()
}

/// The store merged from `n` shards, as files.
fn sharded(t: &Trace, o: &BuildOptions, n: u32, share: ParticleShare) -> MemoryStore {
    let built = parts(t, o, n, share);
    // Merged in reverse order: the order parts are given in does not matter.
    let manifests: Vec<(String, PartManifest)> = built.iter().rev().map(|(n, p)| (n.clone(), p.part.clone())).collect();
    let merged = merge(&manifests).expect("parts of one index merge");
    let mut files = BTreeMap::new();
    for (e, &k) in merged.manifest.tiles.iter().zip(&merged.tile_part) {
        let (_, part) = &built[built.len() - 1 - k];
        let (_, bytes) = part.tiles.iter().find(|(p, _)| *p == e.path).expect("the part holds its listed tile");
        files.insert(e.path.clone(), bytes.clone());
    }
    // The wait states from the merged tiles, as `weft merge` adds them (when the parts asked: `--waits`).
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
        .expect("the merged store's wait states");
    }
    files.extend(added);
    let mut json = serde_json::to_vec_pretty(&m).unwrap();
    json.push(b'\n');
    files.insert(MANIFEST.to_string(), json);
    MemoryStore { files }
}

/// 1, 2 and 4 shards give the unsharded store, byte for byte, whoever writes the particle tiles (shard 0, or
/// each shard its range of windows, as MPI ranks do).
fn assert_shards_equal(t: &Trace, o: &BuildOptions, what: &str) {
    let whole = build(t, o).to_memory();
    for share in [ParticleShare::First, ParticleShare::ByWindow] {
        for n in [1, 2, 3, 4] {
            let s = sharded(t, o, n, share);
            assert_eq!(
                String::from_utf8_lossy(&s.files[MANIFEST]),
                String::from_utf8_lossy(&whole.files[MANIFEST]),
                "{what}: {n} shards, {share:?}: manifest"
            );
            let what = format!("{what}: {n} shards, {share:?}");
            assert_eq!(s.files.keys().collect::<Vec<_>>(), whole.files.keys().collect::<Vec<_>>(), "{what}");
            assert!(s.files == whole.files, "{what}: tile bytes differ");
        }
    }
}

#[test]
fn shards_of_generated_otf2_merge_into_the_unsharded_store() {
    let t = generated(&GenConfig { threads: 2, long_wait: true, ..GenConfig::new(5, 60_000) });
    assert_shards_equal(&t, &BuildOptions::default(), "one block");
    assert_shards_equal(&t, &small_tiles(1, 500), "a block per location, many windows");
    assert_shards_equal(&t, &small_tiles(3, 2_000), "blocks of 3");
}

/// A trace with what generated archives lack: a location with no events, flows, counters, a collective with
/// a root, instants, warnings; messages between location 0 and location 2 (different shards with blocks of 1).
fn hand_built() -> Trace {
    let mut b = TraceBuilder::new(Format::ChromeJson);
    let p0 = b.process(10);
    let p1 = b.process(11);
    let l0 = b.location(p0, 1, LocationKind::CpuThread);
    let _empty = b.location(p0, 2, LocationKind::CpuThread);
    let l2 = b.location(p1, 3, LocationKind::CpuThread);
    let l3 = b.location(p1, 4, LocationKind::AsyncTrack);
    let work = b.region("work", "cat");
    let send = b.region_with("MPI_Send", "", Paradigm::Mpi, RegionRole::PointToPoint);
    let tick = b.region("tick", "");
    let long = b.region("long", "");
    b.interval(l3, long, 1_000, 9_000_000);
    // A call running through many windows (and, in small windows, across the shards' ranges of them).
    b.interval(l3, send, 2_000, 5_000_000);
    for i in 0..200i64 {
        b.interval(l0, work, 1_000 + i * 40_000, 30_000);
        b.interval(l0, send, 1_000 + i * 40_000 + 10_000, 5_000);
        b.interval(l2, work, 2_000 + i * 40_000, 20_000);
        b.instant(l2, tick, 3_000 + i * 40_000);
        let name = b.intern("f");
        b.message(MessageRecord {
            kind: if i % 3 == 0 { MessageKind::Flow } else { MessageKind::PointToPoint },
            sender: if i % 2 == 0 { l0 } else { l2 },
            receiver: if i % 2 == 0 { l2 } else { l0 },
            send_ns: 12_000 + i * 40_000,
            recv_ns: 31_000 + i * 40_000,
            posted_ns: 31_000 + i * 40_000,
            size_bytes: 64 * i as u64,
            tag: i as u32,
            name,
        });
    }
    let world = b.intern("WORLD");
    for (k, l) in [l0, l2, l3].into_iter().enumerate() {
        b.collective(CollectiveRecord {
            operation: k as u32 / 2,
            location: l,
            region: send,
            communicator: world,
            root: Some(l2),
            start_ns: 500_000 + k as i64,
            end_ns: 600_000,
            bytes_sent: 8,
            bytes_received: 16,
        });
    }
    let s = b.counter_series(p1, "memory");
    for i in 0..300i64 {
        b.counter_sample(s, 5_000 + i * 25_000, (i as f64).sin() * 1e9);
    }
    b.warn(WarningKind::UnmatchedFlow, || "an example".into());
    b.add_event_records(1234);
    b.finish()
}

#[test]
fn an_empty_location_and_messages_between_shards() {
    let t = hand_built();
    assert_eq!(t.intervals_of(LocationId(1)).len(), 0, "location 1 has no events");
    for o in [BuildOptions::default(), small_tiles(1, 10), small_tiles(2, 37)] {
        assert_shards_equal(&t, &o, &format!("hand-built, blocks of {}", o.block_locations));
    }
    // Blocks of 1 location, 4 shards: location 1 (no events) is shard 1 alone; messages go between shards 0
    // and 2 both ways, each stored with its sender, and decode with the receiver's arrival time.
    let o = small_tiles(1, 10);
    let p = parts(&t, &o, 4, ParticleShare::First);
    assert_eq!(p[1].1.part.store.counts.intervals, 0);
    assert_eq!((p[0].1.part.store.counts.messages, p[2].1.part.store.counts.messages), (100, 100));
    let store = Store::open(sharded(&t, &o, 4, ParticleShare::ByWindow)).unwrap();
    let back = store.to_trace().unwrap();
    assert_eq!(format!("{:?}", back.messages), format!("{:?}", t.messages));
    assert_eq!(format!("{:?}", back.warnings), format!("{:?}", t.warnings));
    assert_eq!(back.event_records, 1234);
    assert_eq!(back.collectives.operations(), 2);
}

/// `part` (a streamed shard's: its part.json, tiles from the sink) equals `want` (`build_part`'s) byte for byte.
fn assert_same_part(what: &str, want: &weft::index::BuiltPart, done: Indexed, sink: MemorySink) {
    let part = done.part.expect("a shard makes a part");
    let (got, want_json) =
        (String::from_utf8(part.to_json()).unwrap(), String::from_utf8(want.part.to_json()).unwrap());
    if let Some((k, (a, b))) = got.lines().zip(want_json.lines()).enumerate().find(|(_, (a, b))| a != b) {
        panic!("{what}: part.json differs at line {}: {a:?}, expected {b:?}", k + 1);
    }
    assert_eq!(got, want_json, "{what}: part.json");
    let files = sink.files.into_inner().unwrap();
    let want_files: BTreeMap<String, Vec<u8>> = want.tiles.iter().cloned().collect();
    assert!(files == want_files, "{what}: the part's tiles differ");
}

/// A streamed shard (`index::stream` with a shard: `weft index --shard K/N` on OTF2, Chrome JSON, Paraver)
/// makes the part `build_part` cuts from the whole trace, byte for byte, so it merges with any other
/// shard's; it spills (and tiles) only its own locations, but shard 0, which writes the particle tiles.
#[test]
fn streamed_shards_equal_the_parts_of_the_whole_trace() {
    let (files, _) = archive(&GenConfig { threads: 2, ..GenConfig::new(5, 40_000) });
    let t = read_archive("traces.otf2", &files).unwrap();
    let chrome = weft::samples::chrome::ChromeSample {
        ranks: 3,
        threads_per_rank: 2,
        iterations: 12,
        ..weft::samples::chrome::ChromeSample::builtin()
    }
    .generate();
    let tc = weft::readers::chrome::read_without_args("c.json", &chrome).unwrap();
    for (block, tile) in [(1, 300), (2, 2_000), (64, 1 << 18)] {
        let o = small_tiles(block, tile);
        for n in [1, 2, 4] {
            for k in 0..n {
                let shard = Shard { index: k, count: n };
                // Locations nested whole, and in prefixes of 7 intervals (the region totals of every
                // location, a part's fingerprint, then counted as durations are fixed up); their intervals
                // kept as columns for pass 2 (held 0: the default share) or spilled (held 1 byte).
                // Messages sorted whole, or in runs of 300 bytes (five messages) merged. The shard's blocks
                // tiled whole, or by time range (ranges of 50 intervals, `index::ranged`).
                for (event_buffer, held, runs, range) in
                    [(0, 0, 0, 0), (7, 0, 300, 0), (0, 1, 300, 0), (7, 1, 0, 0), (0, 0, 0, 50), (7, 1, 300, 50)]
                {
                    let what = format!(
                        "OTF2, blocks of {block}, shard {k}/{n}, buffer {event_buffer}, held {held}, runs {runs}, \
                         ranges of {range}"
                    );
                    let (sink, mut spill) = (MemorySink::default(), MemorySpill::default());
                    let so = StreamOptions {
                        build: o.clone(),
                        memory: 1 << 30,
                        event_buffer,
                        shard: Some(shard),
                        held,
                        runs,
                        range_intervals: range,
                    };
                    let stream = open_stream("traces.otf2", &files).unwrap();
                    let done = index_otf2(stream, &so, &mut spill, &sink, &|_| {}).unwrap();
                    assert_same_part(&what, &build_part(&t, &o, shard), done, sink);
                    let nl = t.locations.len() as u32;
                    let blocks = shard.blocks(nl.div_ceil(block));
                    let mine = (blocks.start * block).min(nl)..(blocks.end * block).min(nl);
                    for l in 0..nl {
                        let spilled = spill.parts.get(l as usize).is_some_and(|p| !p.is_empty());
                        // (Ranges are read from the spill: the columns held go there first, when the shard
                        // tiles a block.)
                        let ranged = range > 0 && !blocks.is_empty();
                        let expect = (held == 1 || ranged) && (k == 0 || mine.contains(&l));
                        assert_eq!(spilled, expect, "{what}: location {l} spilled");
                    }
                }
                let so = StreamOptions {
                    build: o.clone(),
                    memory: 1 << 30,
                    event_buffer: 0,
                    shard: Some(shard),
                    held: 0,
                    runs: 0,
                    range_intervals: 0,
                };
                let what = format!("Chrome JSON, blocks of {block}, shard {k}/{n}");
                let (sink, mut spill) = (MemorySink::default(), MemorySpill::default());
                let events = ReadSpills::in_memory();
                let done =
                    index_chrome("c.json", &mut &chrome[..], 4096, 0, events, &so, &mut spill, &sink, &|_| {}).unwrap();
                assert_same_part(&what, &build_part(&tc, &o, shard), done, sink);
            }
        }
    }
}

/// `n` shards indexing `name` at once, each decoding only its own locations and exchanging the rest through
/// threads (`index::exchange`, as MPI ranks do): each shard's outcome, tiles and spill.
fn exchanged(
    name: &str,
    files: &(dyn ArchiveFiles + Sync),
    so: &StreamOptions,
    n: u32,
) -> Vec<(Indexed, MemorySink, MemorySpill)> {
    std::thread::scope(|s| {
        // Each shard's exchange moves into its thread: a shard that panics closes its channels, and the
        // others fail instead of waiting for it.
        let shards: Vec<_> = ThreadExchange::group(n)
            .into_iter()
            .map(|x| {
                s.spawn(move || {
                    let stream = open_stream(name, files).unwrap();
                    let (sink, mut spill) = (MemorySink::default(), MemorySpill::default());
                    let done = index_otf2_exchanged(stream, so, &x, &mut spill, &sink, &|_| {})
                        .unwrap_or_else(|e| panic!("{name}: shard {}: {e}", x.shard().index));
                    (done, sink, spill)
                })
            })
            .collect();
        shards.into_iter().map(|h| h.join().expect("a shard's thread")).collect()
    })
}

/// Shards that decode only their own locations and learn the rest from each other (`index::exchange`:
/// every shard replays every location's log of messages, collectives, instants, counters and warnings, the
/// others' interval counts, first start, last end, clips and region totals; each shard writes the particle
/// tiles of its range of windows from every shard's particle-view intervals there), as `mpirun` ranks do, make the parts `build_part` cuts from the whole trace, byte for byte,
/// and spill only their own locations (shard 0 too). On generated archives (whole, and cut: warnings), with
/// the first pass's variants (prefixes, spilled columns, runs, ranges), and on the real archives; an archive
/// with a location naming an undefined region is read whole by every shard (shard 0 then spills all).
#[test]
fn shards_exchanging_their_locations_make_the_parts_of_the_whole_trace() {
    // (A long wait: one call through many windows, across the shards' ranges of them.)
    let cfg = GenConfig { threads: 2, chunk_size: 4096, long_wait: true, metrics: 2, ..GenConfig::new(5, 70_000) };
    let (files, _) = archive(&cfg);
    let mut cut = MemoryFiles::new();
    for (k, (p, b)) in files.files.iter().enumerate() {
        let keep = if p.ends_with(".evt") && k % 3 == 0 { b.len() * 2 / 3 } else { b.len() };
        cut.insert(p, b[..keep].to_vec());
    }
    let undefined = common::with_undefined_regions(&files);
    let mut archives: Vec<(String, String, Box<dyn ArchiveFiles + Sync>)> = vec![
        ("generated".into(), "traces.otf2".into(), Box::new(files)),
        ("cut".into(), "traces.otf2".into(), Box::new(cut)),
        ("undefined".into(), "traces.otf2".into(), Box::new(undefined)),
        // LEAVEs naming other regions than the one they close (APEX): past a location's first few, the
        // repaired warnings go into the log as one count.
        (
            "apex".into(),
            "traces.otf2".into(),
            Box::new(weft::samples::otf2_regions::apex_like(4, 400, 3).program.archive()),
        ),
    ];
    if let Some(dir) = common::shared_traces("cluster exchanging shards (real archives)") {
        for a in
            common::files_under(&dir.join("otf2")).into_iter().filter(|p| p.extension().is_some_and(|e| e == "otf2"))
        {
            let files = FolderFiles { root: a.parent().unwrap().to_path_buf() };
            archives.push((
                a.display().to_string(),
                a.file_name().unwrap().to_string_lossy().into_owned(),
                Box::new(files),
            ));
        }
    }
    for (what, name, files) in &archives {
        let t = read_archive(name, &**files).unwrap();
        let nl = t.locations.len() as u32;
        let real = what.ends_with(".otf2");
        // (Blocks of 64: one block, so every shard but one has no location of its own.)
        for (block, tile) in [(1, 300), (2, 2_000), (64, 1 << 18)] {
            let o = small_tiles(block, tile);
            for n in [2, 3, 4] {
                // (threads: 1 decodes a location in its turn; 2 or more decode locations ahead on every
                // thread, `stream::Ahead`, their logs written in order; a buffer of 7 gives longer ones back.)
                let variants: &[(usize, u64, u64, u64, usize)] = if real {
                    &[(0, 0, 0, 0, 1), (0, 0, 0, 0, 2)]
                } else {
                    &[(0, 0, 0, 0, 1), (7, 1, 300, 50, 1), (7, 0, 0, 0, 1), (0, 0, 0, 0, 2), (7, 1, 300, 0, 4)]
                };
                for &(event_buffer, held, runs, range, threads) in variants {
                    let o = BuildOptions { threads, ..o.clone() };
                    let so = StreamOptions {
                        build: o.clone(),
                        memory: 1 << 30,
                        event_buffer,
                        shard: None,
                        held,
                        runs,
                        range_intervals: range,
                    };
                    for (k, (done, sink, spill)) in exchanged(name, &**files, &so, n).into_iter().enumerate() {
                        let shard = Shard { index: k as u32, count: n };
                        let what = format!(
                            "{what}, blocks of {block}, shard {k}/{n}, buffer {event_buffer}, held {held}, runs \
                             {runs}, ranges of {range}, {threads} threads"
                        );
                        // (Read whole, as `--shard` shards do, shard 0 writes every particle tile.)
                        let read_whole = what.starts_with("undefined");
                        let share = if read_whole { ParticleShare::First } else { ParticleShare::ByWindow };
                        assert_same_part(&what, &build_part_with(&t, &o, shard, share), done, sink);
                        let blocks = shard.blocks(nl.div_ceil(block));
                        let mine = (blocks.start * block).min(nl)..(blocks.end * block).min(nl);
                        for l in 0..nl {
                            let spilled = spill.parts.get(l as usize).is_some_and(|p| !p.is_empty());
                            let ranged = range > 0 && !blocks.is_empty();
                            let expect = (held == 1 || ranged) && (mine.contains(&l) || (read_whole && k == 0));
                            assert_eq!(spilled, expect, "{what}: location {l} spilled");
                        }
                    }
                }
            }
        }
    }
}

/// A spill whose disk is full.
struct FullSpill;

impl weft::index::Spill for FullSpill {
    fn put(&mut self, _: usize, _: &[u8]) -> Result<(), String> {
        Err("No space left on device".into())
    }
    fn get(&self, _: usize) -> Result<Vec<u8>, String> {
        Ok(Vec::new())
    }
    fn clear(&mut self) -> Result<(), String> {
        Ok(())
    }
}

/// A shard that fails while decoding its own locations fails every shard, each saying which and why,
/// instead of leaving the others waiting for its log.
#[test]
fn a_shard_failing_fails_every_shard_with_its_error() {
    let (files, _) = archive(&GenConfig::new(4, 20_000));
    let so = StreamOptions {
        build: small_tiles(1, 2_000),
        memory: 1 << 30,
        event_buffer: 0,
        shard: None,
        held: 0,
        runs: 0,
        range_intervals: 0,
    };
    let errors: Vec<String> = std::thread::scope(|s| {
        let shards: Vec<_> = ThreadExchange::group(3)
            .into_iter()
            .map(|x| {
                let (files, so) = (&files, &so);
                s.spawn(move || {
                    let stream = open_stream("traces.otf2", files).unwrap();
                    let sink = MemorySink::default();
                    let r = match x.shard().index {
                        1 => index_otf2_exchanged(stream, so, &x, &mut FullSpill, &sink, &|_| {}),
                        _ => index_otf2_exchanged(stream, so, &x, &mut MemorySpill::default(), &sink, &|_| {}),
                    };
                    r.err().map(|e| e.to_string()).unwrap_or_default()
                })
            })
            .collect();
        shards.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(errors[1].contains("No space left on device") && !errors[1].starts_with("shard"), "{}", errors[1]);
    for k in [0, 2] {
        assert!(errors[k].starts_with("shard 1: ") && errors[k].contains("No space left on device"), "{}", errors[k]);
    }
}

#[test]
fn shards_of_the_real_otf2_archives_merge_into_the_unsharded_store() {
    let Some(dir) = common::shared_traces("cluster real_otf2_archives") else { return };
    let anchors: Vec<PathBuf> = common::files_under(&dir.join("otf2"))
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "otf2"))
        .collect();
    if anchors.is_empty() {
        eprintln!("SKIPPED cluster real_otf2_archives: no OTF2 archives under {}", dir.display());
    }
    for a in anchors {
        let t = common::read::read_path(&a).unwrap_or_else(|e| panic!("{}: {e}", a.display()));
        assert_shards_equal(&t, &small_tiles(1, 2_000), &a.display().to_string());
    }
}

#[test]
fn only_shard_0_carries_the_definitions() {
    // 32 locations in blocks of 1 over 4 shards: 8 locations a shard.
    let t = generated(&GenConfig::new(32, 20_000));
    let o = small_tiles(1, 1_000);
    let parts: Vec<PartManifest> = (0..4).map(|k| build_part(&t, &o, Shard { index: k, count: 4 }).part).collect();
    assert_eq!(parts[0].store.locations.process.len(), 32, "shard 0 holds the definitions");
    for p in &parts[1..] {
        let s = &p.store;
        assert!(s.strings.is_empty() && s.processes.name.is_empty() && s.regions.name.is_empty(), "shard {}", p.shard);
        assert!(s.locations.process.is_empty() && s.counter_series.name.is_empty(), "shard {}", p.shard);
        // Its own locations' counts only: the merge's input grows with the parts plus the locations, not
        // their product.
        assert_eq!(s.locations.intervals.len(), 8, "shard {}", p.shard);
        assert_eq!(p.definitions, parts[0].definitions);
        assert_eq!(&PartManifest::parse(&p.to_json()).expect("a shard's part.json parses"), p);
    }
    let named =
        |v: &[PartManifest]| v.iter().enumerate().map(|(k, p)| (format!("p{k}"), p.clone())).collect::<Vec<_>>();
    assert_eq!(merge(&named(&parts)).unwrap().manifest, build(&t, &o).manifest, "merged as the whole build");
    // Another trace's definitions (same content fingerprint: a forged part) and a part's location counts
    // that are not its blocks' are refused by name.
    let mut bad = parts.clone();
    bad[2].definitions = "0".repeat(32);
    let e = merge(&named(&bad)).unwrap_err();
    assert!(
        matches!(&e, MergeError::OtherTrace { part, what, .. } if part == "p2" && what.starts_with("definitions")),
        "{e}"
    );
    let mut bad = parts.clone();
    bad[3].store.locations.intervals.pop();
    let e = merge(&named(&bad)).unwrap_err();
    assert!(matches!(&e, MergeError::OtherTrace { part, what: "location count", .. } if part == "p3"), "{e}");
}

#[test]
fn the_merge_refuses_parts_that_do_not_belong_together() {
    let t = generated(&GenConfig::new(4, 20_000));
    let o = small_tiles(1, 1_000);
    let p = |t: &Trace, o: &BuildOptions, k, n| build_part(t, o, Shard { index: k, count: n }).part;
    let named = |v: Vec<PartManifest>| v.into_iter().enumerate().map(|(k, p)| (format!("p{k}"), p)).collect::<Vec<_>>();
    let ok = named(vec![p(&t, &o, 0, 2), p(&t, &o, 1, 2)]);
    assert!(merge(&ok).is_ok());
    // Another trace (another seed).
    let other = generated(&GenConfig { seed: 7, ..GenConfig::new(4, 20_000) });
    let e = merge(&named(vec![p(&t, &o, 0, 2), p(&other, &o, 1, 2)])).unwrap_err();
    assert!(matches!(&e, MergeError::OtherTrace { part, .. } if part == "p1"), "{e}");
    // Another tiling.
    let e = merge(&named(vec![p(&t, &o, 0, 2), p(&t, &small_tiles(2, 1_000), 1, 2)])).unwrap_err();
    assert!(matches!(&e, MergeError::OtherTrace { what: "tiling (--block)", .. }), "{e}");
    // Another shard count, a shard twice, a shard missing, nothing.
    let e = merge(&named(vec![p(&t, &o, 0, 2), p(&t, &o, 1, 3)])).unwrap_err();
    assert!(matches!(&e, MergeError::ShardCount { expected: 2, shards: 3, .. }), "{e}");
    let e = merge(&named(vec![p(&t, &o, 0, 2), p(&t, &o, 0, 2)])).unwrap_err();
    assert!(matches!(&e, MergeError::Duplicate { shard: 0, .. }), "{e}");
    let e = merge(&named(vec![p(&t, &o, 2, 3), p(&t, &o, 0, 3)])).unwrap_err();
    assert_eq!(e.to_string(), "shard(s) 1 of 3 missing (give every part of the index)");
    assert_eq!(merge(&[]).unwrap_err(), MergeError::NoParts);
    // A part whose blocks are not its shard's.
    let mut bad = p(&t, &o, 1, 2);
    bad.blocks = [0, 1];
    let e = merge(&named(vec![p(&t, &o, 0, 2), bad])).unwrap_err();
    assert!(matches!(&e, MergeError::Blocks { shard: 1, .. }), "{e}");
    // Another format version, or not a part at all, is refused when parsed, naming part.json.
    let mut v: serde_json::Value = serde_json::from_slice(&p(&t, &o, 0, 2).to_json()).unwrap();
    v["version"] = 99.into();
    let e = PartManifest::parse(&serde_json::to_vec(&v).unwrap()).unwrap_err();
    assert!(matches!(&e, StoreError::Version { file, found: 99, .. } if file == "part.json"), "{e}");
    let e = PartManifest::parse(&build(&t, &o).manifest_json()).unwrap_err();
    assert!(e.to_string().contains("not a weft store part"), "{e}");
    assert!(PartManifest::parse(&p(&t, &o, 1, 2).to_json()).is_ok());
    assert!(Shard::parse("2/2").is_err() && Shard::parse("1/0").is_err() && Shard::parse("x").is_err());
    assert_eq!(Shard::parse("3/4"), Ok(Shard { index: 3, count: 4 }));
}

fn weft(args: &[&str], dir: &Path) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_weft")).args(args).current_dir(dir).output().unwrap();
    assert!(out.status.success(), "weft {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Every file under `dir`, by relative path.
fn folder(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    common::files_under(dir)
        .into_iter()
        .map(|p| (p.strip_prefix(dir).unwrap().display().to_string(), std::fs::read(&p).unwrap()))
        .collect()
}

/// A fresh folder holding a generated archive in `g/`.
fn scratch(name: &str) -> TempDir {
    let d = TempDir::new(&format!("cluster-{name}"));
    let (files, _) = archive(&GenConfig { threads: 2, ..GenConfig::new(3, 30_000) });
    for (name, bytes) in &files.files {
        d.put(&format!("g/{name}"), bytes);
    }
    d
}

#[test]
fn the_cli_indexes_shards_and_merges_them_into_the_same_folder() {
    let d = scratch("cli");
    weft(&["index", "g/traces.otf2", "-o", "whole", "--block", "2"], &d);
    for k in 0..3 {
        let out =
            weft(&["index", "g/traces.otf2", "-o", &format!("p{k}"), "--block", "2", "--shard", &format!("{k}/3")], &d);
        assert!(out.contains(&format!("shard {k}/3")), "{out}");
    }
    let out = weft(&["merge", "-o", "merged", "p2", "p0", "p1"], &d);
    assert!(out.contains("parts       3"), "{out}");
    assert!(folder(&d.join("merged")) == folder(&d.join("whole")), "the merged folder is the unsharded one");
    assert!(!d.join("merged/part.json").exists());
    // A missing shard: typed error, no store.
    let out = Command::new(env!("CARGO_BIN_EXE_weft"))
        .args(["merge", "-o", "m2", "p0", "p1"])
        .current_dir(&d)
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("shard(s) 2 of 3 missing"));
    assert!(!d.join("m2").exists());
}

/// `mpirun -n 1` to `-n 4` write the store `weft index` writes in one process, the ranks of the last three
/// decoding only their own locations (with 4, each getting of the others' logs only what it needs); and on
/// Chrome JSON and Paraver, read in chunks by every rank (run by scripts/test.sh with `--features mpi`,
/// after scripts/setup.sh --mpi installed OpenMPI).
#[cfg(feature = "mpi")]
#[test]
fn mpirun_with_one_to_four_ranks_writes_the_same_store() {
    let d = scratch("mpi");
    weft(&["index", "g/traces.otf2", "-o", "whole", "--block", "1"], &d);
    // With 2 ranks or more each decodes only its own locations (`index::exchange`).
    for n in ["1", "2", "3", "4"] {
        let out = Command::new("mpirun")
            .args(["--allow-run-as-root", "--oversubscribe", "-n", n, env!("CARGO_BIN_EXE_weft")])
            .args(["index", "g/traces.otf2", "--block", "1", "-o", &format!("mpi{n}")])
            .current_dir(&d)
            .output()
            .expect("mpirun runs (scripts/setup.sh --mpi installs OpenMPI)");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "mpirun -n {n}: {text}{}", String::from_utf8_lossy(&out.stderr));
        assert!(text.contains(&format!("ranks       {n}")), "{text}");
        assert!(folder(&d.join(format!("mpi{n}"))) == folder(&d.join("whole")), "mpirun -n {n}: the store differs");
    }
    // Chrome JSON and Paraver: every rank reads the file in chunks and tiles its own blocks, within a
    // `--memory` of the file's size (a rank reading it whole, as before, is refused: that needs about 3x).
    let chrome = weft::samples::chrome::ChromeSample {
        ranks: 3,
        threads_per_rank: 2,
        iterations: 3_000,
        ..weft::samples::chrome::ChromeSample::builtin()
    }
    .generate();
    std::fs::write(d.join("c.json"), chrome).unwrap();
    let prv = weft::samples::paraver::ParaverSample { tasks: 3, iterations: 8_000, ..Default::default() }.generate();
    std::fs::write(d.join("p.prv"), &prv.prv).unwrap();
    std::fs::write(d.join("p.pcf"), &prv.pcf).unwrap();
    std::fs::write(d.join("p.row"), &prv.row).unwrap();
    for trace in ["c.json", "p.prv"] {
        let whole = format!("whole-{trace}");
        weft(&["index", trace, "-o", &whole, "--block", "1"], &d);
        let bytes = std::fs::metadata(d.join(trace)).unwrap().len();
        assert!(bytes > 4 << 20, "{trace}: {bytes} bytes");
        let memory = format!("{}K", bytes / 1024);
        for n in ["2", "3"] {
            let store = format!("mpi{n}-{trace}");
            let out = Command::new("mpirun")
                .args(["--allow-run-as-root", "--oversubscribe", "-n", n, env!("CARGO_BIN_EXE_weft")])
                .args(["index", trace, "--block", "1", "--memory", &memory, "-o", &store])
                .current_dir(&d)
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&out.stdout);
            assert!(out.status.success(), "{trace}, mpirun -n {n}: {text}{}", String::from_utf8_lossy(&out.stderr));
            assert!(folder(&d.join(&store)) == folder(&d.join(&whole)), "{trace}, mpirun -n {n}: the store differs");
        }
    }
    // A failing rank fails the run with its message.
    let out = Command::new("mpirun")
        .args(["--allow-run-as-root", "--oversubscribe", "-n", "2", env!("CARGO_BIN_EXE_weft")])
        .args(["index", "missing.otf2", "-o", "never"])
        .current_dir(&d)
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing.otf2"));
    assert!(!d.join("never").exists());
    // Nor its temporary folder (the ranks' tiles and spills).
    let left: Vec<String> = std::fs::read_dir(&d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("never"))
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}
