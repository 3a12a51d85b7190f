//! The tiled store (crates/store/src, `weft index`): a store read back equals the trace it was built from (every
//! interval, instant, message, collective and counter, in the same order), on generated OTF2 archives, a
//! hand-built trace with the tile-boundary cases, and the real OTF2 archives in ../shared/traces; its moments
//! and summary equal the trace's; the bytes do not depend on the thread count; damaged stores give typed
//! errors naming the file; `weft info` and `weft moments` print the same on the store as on the trace.

use crate::common;

use crate::common::TempDir;
use std::path::{Path, PathBuf};
use std::process::Command;
use weft::analyses::busy::BusyDefinition;
use weft::analyses::moments::moments;
use weft::analyses::summary::summarize;
use weft::index::{build, BuildOptions};
use weft::model::*;
use weft::readers::otf2::read_archive;
use weft::samples::otf2_gen::{archive, GenConfig};
use weft::scene::utilization::{level_color, LEVELS};
use weft::store::read::OpenInterval;
use weft::store::{MemoryStore, Store, StoreError, TileKind, MANIFEST};

fn generated(cfg: &GenConfig) -> Trace {
    read_archive("traces.otf2", &archive(cfg).0).expect("generated archive reads")
}

/// Every column of two traces, compared one by one (the string table by its strings, in order), but the
/// events' `args`, which a store does not keep (docs/store-format.md).
fn assert_same(a: &Trace, b: &Trace) {
    assert_same_but_postings(a, b);
    assert_eq!(a.messages.posted_ns, b.messages.posted_ns, "format 6 keeps when each receive was posted");
}

/// [`assert_same`] but the receives' posting times, which a store before format 6 does not keep (a format-2
/// store's receives are posted when they complete, as a format that does not say: checked by its test).
fn assert_same_but_postings(a: &Trace, b: &Trace) {
    assert_eq!(a.format, b.format);
    assert_eq!(a.strings.iter().collect::<Vec<_>>(), b.strings.iter().collect::<Vec<_>>());
    let d = |x: &dyn std::fmt::Debug| format!("{x:?}");
    assert_eq!(d(&a.processes), d(&b.processes));
    assert_eq!(d(&a.locations), d(&b.locations));
    assert_eq!(d(&a.regions), d(&b.regions));
    assert_eq!(a.intervals.location, b.intervals.location);
    assert_eq!(a.intervals.region, b.intervals.region);
    assert_eq!(a.intervals.start_ns, b.intervals.start_ns);
    assert_eq!(a.intervals.dur_ns, b.intervals.dur_ns);
    assert_eq!(a.intervals.depth, b.intervals.depth);
    assert_eq!(a.location_intervals, b.location_intervals);
    // Chrome `args` are shown in the whole trace's hover only: the store keeps no args (docs/store-format.md).
    assert_eq!(a.instants.location, b.instants.location);
    assert_eq!(a.instants.region, b.instants.region);
    assert_eq!(a.instants.time_ns, b.instants.time_ns);
    let at_receive = |m: &weft::model::Messages| {
        let mut m = m.clone();
        m.posted_ns.clone_from(&m.recv_ns);
        d(&m)
    };
    assert_eq!(at_receive(&a.messages), at_receive(&b.messages));
    assert_eq!(d(&a.collectives), d(&b.collectives));
    assert_eq!(a.counters.series_name, b.counters.series_name);
    assert_eq!(a.counters.series_process, b.counters.series_process);
    assert_eq!(a.counters.sample_series, b.counters.sample_series);
    assert_eq!(a.counters.sample_time_ns, b.counters.sample_time_ns);
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&a.counters.sample_value), bits(&b.counters.sample_value));
    assert_eq!(d(&a.warnings), d(&b.warnings));
    assert_eq!((a.origin_ns, a.span_ns, a.event_records), (b.origin_ns, b.span_ns, b.event_records));
}

/// Every record of a block still open at a later window's start (an interval or collective row started
/// before it and ending at or after it, a message sent before it and received at or after it) is carried, by
/// its trace index, in that window's events tile, and nothing else is: the open sections are exactly what
/// the trace says is open at each window's start (checked window by window from the trace, not from the
/// builder's walk).
fn check_open(t: &Trace, store: &Store<MemoryStore>) {
    use std::collections::BTreeMap;
    let m = &store.manifest;
    let tl = &m.tiling;
    type Open = [Vec<u64>; 3];
    let mut want: BTreeMap<(u32, u32), Open> = BTreeMap::new();
    let mut note = |kind: usize, loc: u32, start: u64, end: u64, index: usize| {
        for w in 1..tl.windows {
            let ws = tl.window_span(w).start;
            if start < ws && end >= ws {
                want.entry((tl.block_of(loc), w)).or_default()[kind].push(index as u64);
            }
        }
    };
    for i in 0..t.intervals.len() {
        note(0, t.intervals.location[i].0, t.intervals.start_ns[i], t.intervals.end_ns(i), i);
    }
    for i in 0..t.messages.len() {
        note(1, t.messages.sender[i].0, t.messages.send_ns[i], t.messages.recv_ns[i], i);
    }
    for i in 0..t.collectives.len() {
        note(2, t.collectives.location[i].0, t.collectives.start_ns[i], t.collectives.end_ns[i], i);
    }
    let mut got: BTreeMap<(u32, u32), Open> = BTreeMap::new();
    for e in m.tiles.iter().filter(|e| e.kind == TileKind::Events) {
        let o = store.events_tile(e).expect("events tile decodes").open;
        if o.is_empty() {
            continue;
        }
        got.insert(
            (e.block, e.window),
            [
                o.intervals.iter().map(|x| x.index).collect(),
                o.messages.iter().map(|x| x.index).collect(),
                o.collectives.iter().map(|x| x.index).collect(),
            ],
        );
    }
    assert_eq!(got, want, "open sections differ from the records open at each window's start");
}

/// Build, open from memory, and check read-back, moments and summary against the trace.
fn round_trip(trace: &Trace, o: &BuildOptions) -> Store<MemoryStore> {
    let built = build(trace, o);
    let store = Store::open(built.to_memory()).expect("store opens");
    assert_same(trace, &store.to_trace().expect("store decodes"));
    for def in [BusyDefinition::Compute, BusyDefinition::Any] {
        let stored = store.moments(&def).unwrap().expect("stored for compute and any");
        assert_eq!(stored, moments(trace, &def, None), "{def:?}: stored moments equal the trace's, bit for bit");
    }
    assert_eq!(store.summary(10).unwrap(), summarize(trace, 10));
    check_open(trace, &store);
    store
}

fn small_tiles(block: u32, tile_intervals: u64) -> BuildOptions {
    BuildOptions { block_locations: block, tile_intervals, ..BuildOptions::default() }
}

#[test]
fn generated_archives_read_back_exactly() {
    let t = generated(&GenConfig { threads: 2, ..GenConfig::new(5, 60_000) });
    round_trip(&t, &BuildOptions::default());
    // Many blocks (messages between ranks in different blocks) and many windows ("main" spans them all).
    let store = round_trip(&t, &small_tiles(3, 500));
    let m = &store.manifest;
    assert!(m.tiling.blocks >= 3 && m.tiling.windows >= 16, "{:?}", m.tiling);
    let senders_block = |i: usize| m.tiling.block_of(t.messages.sender[i].0);
    let receivers_block = |i: usize| m.tiling.block_of(t.messages.receiver[i].0);
    assert!((0..t.messages.len()).any(|i| senders_block(i) != receivers_block(i)), "messages cross blocks");
    // An interval spanning every window ("main") is stored once as window 0's own, and carried open by every
    // later events tile of its block.
    for e in m.tiles.iter().filter(|e| e.kind == TileKind::Events && e.window > 0) {
        let open = store.events_tile(e).unwrap().open;
        let spanning = |x: &OpenInterval| {
            let x = &x.interval;
            x.depth == 0
                && m.tiling.window_of(x.start_ns) == 0
                && m.tiling.window_of(x.start_ns + x.dur_ns) == m.tiling.windows - 1
        };
        assert!(
            open.intervals.iter().any(spanning),
            "{}: {:?}",
            e.path,
            &open.intervals[..open.intervals.len().min(4)]
        );
    }
    let levels = &m.levels;
    assert!(levels.len() >= 2 && levels.last().unwrap().bins <= m.tiling.bins_per_tile as u64);
}

#[test]
fn summaries_add_up_to_the_trace() {
    let t = generated(&GenConfig::new(4, 40_000));
    let store = round_trip(&t, &small_tiles(2, 2_000));
    let m = &store.manifest;
    let any = moments(&t, &BusyDefinition::Any, None);
    let compute = moments(&t, &BusyDefinition::Compute, None);
    for level in &m.levels {
        for b in 0..m.tiling.blocks {
            let locs = m.tiling.block_range(b, t.locations.len() as u32);
            let mut busy_any = vec![0u64; locs.len()];
            let mut busy_compute = vec![0u64; locs.len()];
            let mut events = vec![0u64; locs.len()];
            for j in 0..level.tiles {
                let e = m.tile(TileKind::Summary, level.level, b, j).expect("summary tile");
                for (k, bins) in store.summary_tile(e).unwrap().iter().enumerate() {
                    busy_any[k] += bins.busy_any_ns.iter().sum::<u64>();
                    busy_compute[k] += bins.busy_compute_ns.iter().sum::<u64>();
                    events[k] += bins.events.iter().sum::<u64>();
                }
            }
            for (k, l) in locs.enumerate() {
                assert_eq!(busy_any[k], any[l as usize].m0_ns, "level {} location {l}", level.level);
                assert_eq!(busy_compute[k], compute[l as usize].m0_ns);
                assert_eq!(events[k], 2 * t.intervals_of(LocationId(l)).len() as u64);
            }
        }
    }
}

/// A trace with what generated archives lack: a location with no events, instants, counters, flows, a
/// collective with a root, an interval spanning many windows on a location of another block.
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
    for i in 0..200i64 {
        b.interval(l0, work, 1_000 + i * 40_000, 30_000);
        b.interval(l0, send, 1_000 + i * 40_000 + 10_000, 5_000);
        b.interval(l2, work, 2_000 + i * 40_000, 20_000);
        b.instant(l2, tick, 3_000 + i * 40_000);
        b.instant(l2, tick, 3_000 + i * 40_000);
        let name = b.intern("f");
        b.message(MessageRecord {
            kind: if i % 3 == 0 { MessageKind::Flow } else { MessageKind::PointToPoint },
            sender: l0,
            receiver: l2,
            send_ns: 12_000 + i * 40_000,
            recv_ns: 11_000 + i * 40_000,
            posted_ns: 11_000 + i * 40_000,
            size_bytes: 64 * i as u64,
            tag: i as u32,
            name,
        });
    }
    let world = b.intern("WORLD");
    for (k, l) in [l0, l2].into_iter().enumerate() {
        b.collective(CollectiveRecord {
            operation: 0,
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
fn tile_boundaries_empty_locations_instants_counters_and_flows_read_back() {
    let t = hand_built();
    assert_eq!(t.intervals_of(LocationId(1)).len(), 0);
    for o in [BuildOptions::default(), small_tiles(1, 10), small_tiles(2, 37), small_tiles(3, 1)] {
        let store = round_trip(&t, &o);
        let m = &store.manifest;
        if m.tiling.windows > 1 {
            // The long interval (location 3, started in window 0) reaches into every window of its block.
            let b = m.tiling.block_of(3);
            // (windows past the span, when the window count rounds up, hold nothing and are not listed)
            for w in (1..m.tiling.windows).filter(|&w| (w as u64) * m.tiling.window_ns < t.span_ns) {
                let e = m
                    .tile(TileKind::Events, 0, b, w)
                    .unwrap_or_else(|| panic!("window {w} of block {b}: no tile ({:?})", m.tiling));
                let open = store.events_tile(e).unwrap().open;
                assert!(
                    open.intervals.iter().any(|x| x.interval.location == LocationId(3)),
                    "{}: the long interval is not open",
                    e.path
                );
            }
        }
    }
}

#[test]
fn the_store_does_not_depend_on_the_thread_count() {
    let t = generated(&GenConfig::new(6, 50_000));
    let o = small_tiles(2, 3_000);
    let one = build(&t, &BuildOptions { threads: 1, ..o.clone() });
    let two = build(&t, &BuildOptions { threads: 2, ..o.clone() });
    let four = build(&t, &BuildOptions { threads: 4, ..o.clone() });
    assert_eq!(one.manifest_json(), two.manifest_json());
    assert_eq!(one.tiles, two.tiles);
    assert_eq!(one.tiles, four.tiles);
    // More threads than blocks: a block's summaries beside its level-0 tiles, on one thread or cut by
    // locations over several (`block_tiles_on`); one block of all six locations, the same.
    for threads in [8, 16] {
        let many = build(&t, &BuildOptions { threads, ..o.clone() });
        assert_eq!(one.manifest_json(), many.manifest_json(), "{threads} threads");
        assert_eq!(one.tiles, many.tiles, "{threads} threads");
    }
    let whole = BuildOptions { block_locations: 6, ..o };
    let one = build(&t, &BuildOptions { threads: 1, ..whole.clone() });
    for threads in [2, 3, 5, 7] {
        let many = build(&t, &BuildOptions { threads, ..whole.clone() });
        assert_eq!(one.manifest_json(), many.manifest_json(), "one block, {threads} threads");
        assert_eq!(one.tiles, many.tiles, "one block, {threads} threads");
    }
}

#[test]
fn real_otf2_archives_read_back_exactly() {
    let Some(dir) = common::shared_traces("store real_otf2_archives") else { return };
    let anchors: Vec<PathBuf> = common::files_under(&dir.join("otf2"))
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "otf2"))
        .collect();
    if anchors.is_empty() {
        eprintln!("SKIPPED store real_otf2_archives: no OTF2 archives under {}", dir.display());
    }
    for a in anchors {
        let t = common::read::read_path(&a).unwrap_or_else(|e| panic!("{}: {e}", a.display()));
        round_trip(&t, &BuildOptions::default());
        round_trip(&t, &small_tiles(5, 1_000));
    }
}

#[test]
fn real_chrome_and_paraver_traces_read_back_exactly() {
    let Some(dir) = common::shared_traces("store real_chrome_and_paraver") else { return };
    let mut n = 0;
    for sub in ["chrome-json", "paraver"] {
        for p in common::files_under(&dir.join(sub)) {
            let name = p.to_string_lossy();
            let wanted = name.ends_with(".json") || name.ends_with(".json.gz") || name.ends_with(".prv");
            if !wanted || std::fs::metadata(&p).map_or(true, |m| m.len() > 20 << 20) {
                continue;
            }
            // Files the readers refuse are the readers' tests' business.
            let Ok(t) = common::read::read_path(&p) else { continue };
            round_trip(&t, &small_tiles(2, 300));
            n += 1;
        }
    }
    assert!(n >= 10, "only {n} real Chrome/Paraver traces read");
}

fn damaged(f: impl FnOnce(&mut MemoryStore, &str)) -> StoreError {
    let t = generated(&GenConfig::new(3, 20_000));
    let built = build(&t, &small_tiles(2, 2_000));
    let mut files = built.to_memory();
    let victim = built.manifest.tiles.iter().find(|e| e.kind == TileKind::Events).unwrap().path.clone();
    f(&mut files, &victim);
    match Store::open(files) {
        Err(e) => e,
        Ok(s) => s.to_trace().err().or_else(|| s.moments(&BusyDefinition::Compute).err()).expect("an error"),
    }
}

fn edit_manifest(files: &mut MemoryStore, f: impl FnOnce(&mut serde_json::Value)) {
    let mut v: serde_json::Value = serde_json::from_slice(&files.files[MANIFEST]).unwrap();
    f(&mut v);
    files.files.insert(MANIFEST.into(), serde_json::to_vec(&v).unwrap());
}

#[test]
fn damaged_stores_give_typed_errors_naming_the_file() {
    let e = damaged(|f, v| {
        f.files.remove(v);
    });
    assert!(matches!(&e, StoreError::Missing { file } if file.starts_with("e/")), "{e}");
    let e = damaged(|f, v| {
        let b = f.files.get_mut(v).unwrap();
        b.truncate(b.len() / 2);
    });
    assert!(matches!(&e, StoreError::Mismatch { file, .. } if file.starts_with("e/")), "{e}");
    let e = damaged(|f, v| {
        let b = f.files.get_mut(v).unwrap();
        let n = b.len();
        b[n - 5] ^= 0x55;
    });
    assert!(matches!(&e, StoreError::Mismatch { detail, .. } if detail.contains("hash")), "{e}");
    // A corrupt tile whose manifest entry and name were updated to match: the decoder finds the damage.
    let e = damaged(|f, v| {
        let mut b = f.files.remove(v).unwrap();
        b.truncate(b.len() - 7);
        let (len, hash) = (b.len(), weft::store::format::columns::content_hash(&b));
        let path = format!("{}.{}.wt", v.rsplit_once('.').unwrap().0.rsplit_once('.').unwrap().0, &hash[..16]);
        f.files.insert(path.clone(), b);
        edit_manifest(f, |m| {
            for t in m["tiles"].as_array_mut().unwrap() {
                if t["path"] == *v {
                    t["bytes"] = len.into();
                    t["hash"] = hash.clone().into();
                    t["path"] = path.clone().into();
                }
            }
        });
    });
    assert!(matches!(&e, StoreError::Corrupt { file, .. } if file.starts_with("e/")), "{e}");
    // A tile's name that is not its hash's: refused with the manifest.
    let e = damaged(|f, v| {
        edit_manifest(f, |m| {
            for t in m["tiles"].as_array_mut().unwrap() {
                if t["path"] == *v {
                    t["hash"] = "0".repeat(32).into();
                }
            }
        });
    });
    assert!(matches!(&e, StoreError::Corrupt { file, detail } if file == MANIFEST && detail.contains("name")), "{e}");
    // Tiles disagreeing with the manifest: a record count (the block's no longer add up to its locations'
    // intervals: refused with the manifest, issue #51), a tile of another kind.
    let e = damaged(|f, v| {
        edit_manifest(f, |m| {
            for t in m["tiles"].as_array_mut().unwrap() {
                if t["path"] == *v {
                    t["records"] = (t["records"].as_u64().unwrap() + 1).into();
                }
            }
        })
    });
    assert!(
        matches!(&e, StoreError::Corrupt { file, detail } if file == MANIFEST && detail.contains("intervals")),
        "{e}"
    );
    let e = damaged(|f, v| {
        edit_manifest(f, |m| {
            for t in m["tiles"].as_array_mut().unwrap() {
                if t["kind"] == "moments" {
                    t["kind"] = "events".into();
                } else if t["path"] == *v {
                    t["kind"] = "moments".into();
                }
            }
        })
    });
    assert!(matches!(&e, StoreError::Mismatch { .. } | StoreError::Corrupt { .. }), "{e}");
    // A store of format version 1 (whose events tiles carry nothing open) is refused by name.
    let e = damaged(|f, _| edit_manifest(f, |m| m["version"] = 1.into()));
    assert_eq!(
        e,
        StoreError::Version { file: MANIFEST.into(), found: 1, oldest: 2, expected: weft::store::FORMAT_VERSION }
    );
    assert!(e.to_string().contains("version 1") && e.to_string().contains("index the trace again"), "{e}");
    let e = damaged(|f, _| edit_manifest(f, |m| m["format"] = "other".into()));
    assert!(matches!(&e, StoreError::Corrupt { file, .. } if file == MANIFEST), "{e}");
    let e = damaged(|f, _| edit_manifest(f, |m| m["tiles"][0]["path"] = "../../etc/passwd".into()));
    assert!(matches!(&e, StoreError::Corrupt { .. }), "{e}");
    // Row lanes the location's intervals cannot fill (a page would lay out rows millions of lanes deep).
    let e = damaged(|f, _| edit_manifest(f, |m| m["locations"]["lanes"][0] = u32::MAX.into()));
    assert!(matches!(&e, StoreError::Corrupt { detail, .. } if detail.contains("lanes")), "{e}");
    let e = damaged(|f, _| edit_manifest(f, |m| m["locations"]["lanes"] = serde_json::json!([1])));
    assert!(matches!(&e, StoreError::Corrupt { file, .. } if file == MANIFEST), "{e}");
    let e = damaged(|f, _| edit_manifest(f, |m| m["counts"]["messages"] = (1u64 << 40).into()));
    assert!(matches!(&e, StoreError::Corrupt { detail, .. } if detail.contains("messages")), "{e}");
    let e = damaged(|f, _| {
        f.files.remove(MANIFEST);
    });
    assert_eq!(e, StoreError::Missing { file: MANIFEST.into() });
}

fn weft(args: &[&str], path: &Path) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_weft")).args(args).arg(path).output().unwrap();
    assert!(out.status.success(), "weft {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// The output without its first line (which names the file).
fn body(s: &str) -> String {
    s.lines().skip(1).collect::<Vec<_>>().join("\n")
}

#[test]
fn the_cli_indexes_and_reads_stores_like_traces() {
    let base = TempDir::new("store-cli");
    let (files, _) = archive(&GenConfig { threads: 2, ..GenConfig::new(3, 30_000) });
    let trace_dir = base.join("trace");
    for (p, b) in &files.files {
        let path = trace_dir.join(p);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, b).unwrap();
    }
    let store = base.join("store");
    let run = |extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_weft"))
            .arg("index")
            .arg(&trace_dir)
            .arg("-o")
            .arg(&store)
            .args(extra)
            .output()
            .unwrap()
    };
    let out = run(&["--threads", "2", "--block", "2"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(store.join(MANIFEST).is_file());
    let leftovers: Vec<_> = std::fs::read_dir(&base).unwrap().flatten().map(|e| e.file_name()).collect();
    assert_eq!(leftovers.len(), 2, "no temporary folder left: {leftovers:?}");
    assert!(!run(&[]).status.success(), "an existing store is not replaced without --force");
    assert!(run(&["--force", "--block", "2"]).status.success());
    let out = run(&["--force", "--memory", "1K"]);
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("--memory"));
    assert_eq!(body(&weft(&["info"], &trace_dir)), body(&weft(&["info"], &store)));
    assert_eq!(weft(&["info", "--json"], &trace_dir), weft(&["info", "--json"], &store));
    for args in [
        &["moments"][..],
        &["moments", "--busy", "any", "--sort", "m2"],
        &["moments", "--window", "1ms:3ms"],
        // A window is read from its level-0 tiles alone (records open at its start carried in the first):
        // windows of the run and past its end give the trace's figures exactly (tests/store_query.rs
        // checks windows across many tiles of a store cut small).
        &["moments", "--window", "1ms:3ms", "--json"],
        &["moments", "--window", "2.5ms:2.6ms", "--busy", "any", "--json"],
        &["moments", "--window", "7ms:1s", "--json"],
        &["moments", "--window", "0:1s", "--pattern", "MPI_*", "--json"],
        &["moments", "--pattern", "MPI_*"],
    ] {
        assert_eq!(body(&weft(args, &trace_dir)), body(&weft(args, &store)), "{args:?}");
    }
    let svg = |p: &Path, name: &str| {
        let out = base.join(name);
        let o =
            Command::new(env!("CARGO_BIN_EXE_weft")).args(["render", "moments"]).arg(p).arg("-o").arg(&out).output();
        assert!(o.unwrap().status.success());
        std::fs::read(out).unwrap()
    };
    assert_eq!(svg(&trace_dir, "a.svg"), svg(&store, "b.svg"), "render moments draws the same from the store");
    // A pattern has no stored busy time: its rows come from the exact records a block at a time (the same
    // text as the trace's), its chart binned a pixel a bin.
    let out = base.join("p.svg");
    let o = Command::new(env!("CARGO_BIN_EXE_weft"))
        .args(["render", "moments", "--pattern", "MPI_*"])
        .arg(&store)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&std::fs::read(&out).unwrap()).contains("MPI_*"));
    // render timeline: the store's picture of a zoomed window is drawn from the level-0 tiles of that window
    // alone, and shows what the trace's shows: the same intervals, labels, messages and axis at the same
    // places (rows keep the whole run's depths: the manifest's lanes), all but the overview strip at the
    // bottom (a slice's covers the slice).
    let timeline = |p: &Path, name: &str, window: &str| {
        let out = base.join(name);
        let o = Command::new(env!("CARGO_BIN_EXE_weft"))
            .args(["render", "timeline"])
            .arg(p)
            .args(["--window", window, "--height", "600", "-o"])
            .arg(&out)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        std::fs::read_to_string(out).unwrap()
    };
    let above_overview = |svg: &str| -> Vec<String> {
        let attr = |tag: &str, name: &str| {
            tag.split(&format!(" {name}=\"")).nth(1).and_then(|r| r.split('"').next()?.parse::<f32>().ok())
        };
        let mut v: Vec<String> = svg
            .split('<')
            .filter(|tag| !tag.starts_with("polygon") && attr(tag, "y").is_none_or(|y| y < 600.0 - 24.0))
            .map(|tag| tag.to_string())
            .collect();
        v.sort();
        v
    };
    let (a, b) = (timeline(&trace_dir, "t.svg", "2ms:2.2ms"), timeline(&store, "s.svg", "2ms:2.2ms"));
    assert!(a.matches("<rect ").count() > 20, "the window shows intervals");
    assert_eq!(above_overview(&a), above_overview(&b), "render timeline draws the same from the store");
    let whole = timeline(&store, "s-all.svg", "0:1s");
    assert!(whole.matches("<rect ").count() > 20);
    // A damaged store: the error names the file inside the store folder.
    let tile = std::fs::read_dir(store.join("m")).unwrap().flatten().next().unwrap().path();
    std::fs::write(&tile, b"WFTL").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_weft")).arg("moments").arg(&store).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&tile.display().to_string()), "{err}");
    for tile in std::fs::read_dir(store.join("e/b0")).unwrap().flatten() {
        std::fs::write(tile.path(), b"WFTL").unwrap();
    }
    let out = Command::new(env!("CARGO_BIN_EXE_weft"))
        .args(["render", "timeline"])
        .arg(&store)
        .args(["--window", "2ms:2.2ms", "-o"])
        .arg(base.join("x.svg"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains(&store.join("e/b0/").display().to_string()), "{err}");
}

/// An events tile of window `w > 0` of block 0 whose only record is one open interval (location 0, region 0)
/// starting at `start` for 5 ns, framed and listed in the manifest as the builder would.
fn with_open_tile(start: u64) -> Result<weft::store::read::EventsTile, StoreError> {
    let t = generated(&GenConfig::new(3, 20_000));
    let built = build(&t, &small_tiles(2, 2_000));
    let mut files = built.to_memory();
    let e = built.manifest.tiles.iter().find(|e| e.kind == TileKind::Events && e.block == 0 && e.window > 0).unwrap();
    let mut w = weft::store::format::columns::ColumnWriter::default();
    for _ in 0..4 {
        w.varint(0); // no own intervals, instants, messages or collective rows
    }
    for v in [1, 0, 0, 0] {
        w.varint(v); // one open interval: index 0, location 0, region 0
    }
    w.signed(start as i64);
    w.varint(5);
    w.varint(0);
    w.varint(0); // no open messages
    w.varint(0); // nor collective rows
    let bytes = w.finish_tile(e.id(), weft::store::FORMAT_VERSION as u8);
    let (len, hash) = (bytes.len(), weft::store::format::columns::content_hash(&bytes));
    // Named by its hash; its intervals counted in another tile of the block (not read), so the manifest
    // still adds up.
    let path = e.kind.path(e.level, e.block, e.window, &hash);
    files.files.insert(path.clone(), bytes);
    let other = built.manifest.tiles.iter().find(|x| x.kind == TileKind::Events && x.block == 0 && x.path != e.path);
    edit_manifest(&mut files, |m| {
        for x in m["tiles"].as_array_mut().unwrap() {
            if x["path"] == *e.path {
                x["path"] = path.clone().into();
                x["bytes"] = len.into();
                x["hash"] = hash.clone().into();
                x["records"] = 0.into();
            } else if other.is_some_and(|o| x["path"] == *o.path) {
                x["records"] = (x["records"].as_u64().unwrap() + e.records).into();
            }
        }
    });
    let store = Store::open(files)?;
    let entry = store.manifest.tiles.iter().find(|x| x.path == path).unwrap().clone();
    store.events_tile(&entry)
}

#[test]
fn an_open_record_not_open_at_the_window_start_is_corrupt() {
    let t = generated(&GenConfig::new(3, 20_000));
    let tl = build(&t, &small_tiles(2, 2_000)).manifest.tiling;
    assert!(tl.windows > 1);
    let ws = tl.window_span(1).start;
    // The first events tile after window 0 of block 0 is window 1's (the run-spanning interval reaches it).
    let ok = with_open_tile(ws - 1).expect("an interval open at the window's start decodes");
    assert_eq!((ok.open.intervals.len(), ok.open.intervals[0].interval.start_ns), (1, ws - 1));
    assert!(ok.intervals.is_empty());
    let e = with_open_tile(ws).unwrap_err();
    assert!(
        matches!(&e, StoreError::Corrupt { file, detail } if file.starts_with("e/b0/w1.") && detail.contains("not open")),
        "{e}"
    );
    let e = with_open_tile(ws - 10).unwrap_err(); // ends 5 ns before the window
    assert!(matches!(&e, StoreError::Corrupt { detail, .. } if detail.contains("not open")), "{e}");
}

/// `weft render moments STORE/` reads the pyramid's bins of about a pixel for the Gantt chart (a store cut in
/// many windows: level 0 is never read for the whole run) and draws what the trace's picture shows: the
/// moment view the same, each Gantt cell's busy level the same (the bins' busy time is exact; a cell a bin
/// straddles may differ by a level). A window zoomed in past level 1 is drawn from its exact records alike.
#[test]
fn render_moments_of_a_store_reads_the_bins_the_picture_needs() {
    let base = TempDir::new("store-render-moments");
    let (files, _) = archive(&GenConfig { threads: 2, ..GenConfig::new(4, 120_000) });
    let write = |dir: &Path, files: &mut dyn Iterator<Item = (String, Vec<u8>)>| {
        for (p, b) in files {
            let path = dir.join(p);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, b).unwrap();
        }
    };
    let trace_dir = base.join("trace");
    write(&trace_dir, &mut files.files.iter().map(|(p, b)| (p.clone(), b.clone())));
    let t = read_archive("traces.otf2", &files).unwrap();
    let built = build(&t, &BuildOptions { block_locations: 3, tile_intervals: 2_000, ..BuildOptions::default() });
    assert!(built.manifest.tiling.windows >= 4, "{} windows", built.manifest.tiling.windows);
    let store = base.join("store");
    write(&store, &mut built.tiles.clone().into_iter());
    std::fs::write(store.join(MANIFEST), built.manifest_json()).unwrap();
    let render = |p: &Path, name: &str, extra: &[&str]| {
        let out = base.join(name);
        let o = Command::new(env!("CARGO_BIN_EXE_weft"))
            .args(["render", "moments"])
            .arg(p)
            .args(extra)
            .arg("-o")
            .arg(&out)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        std::fs::read_to_string(out).unwrap()
    };
    // The Gantt chart's cells (left panel, x < 700: one rect per run of a busy level in a row) as (row y,
    // pixel column) -> fill, and every other element of the picture.
    let split = |svg: &str| {
        let attr =
            |tag: &str, name: &str| tag.split(&format!(" {name}=\"")).nth(1)?.split('"').next().map(str::to_string);
        let num = |tag: &str, name: &str| attr(tag, name).and_then(|v| v.parse::<f32>().ok());
        let mut cells = std::collections::BTreeMap::new();
        let mut rest = Vec::new();
        for tag in svg.split('<') {
            let cell = tag.starts_with("rect ")
                && attr(tag, "fill").is_some_and(|f| f != "#e3e6ea" && f != "#5f6670")
                && num(tag, "x").zip(num(tag, "width")).is_some_and(|(x, w)| x >= 140.0 && x + w <= 700.0)
                && num(tag, "y").is_some_and(|y| y > 24.0 && y < 150.0);
            if cell {
                let (x, w, y) = (num(tag, "x").unwrap(), num(tag, "width").unwrap(), num(tag, "y").unwrap());
                for c in x as u32..(x + w) as u32 {
                    cells.insert(((y * 10.0) as u32, c), attr(tag, "fill").unwrap());
                }
            } else {
                rest.push(tag.to_string());
            }
        }
        (cells, rest)
    };
    let close = |a: &str, b: &str, what: &str| {
        let ((ca, ra), (cb, rb)) = (split(a), split(b));
        assert_eq!(ra, rb, "{what}: all but the Gantt chart's cells");
        assert!(ca.len() > 500, "{what}: {} busy cells", ca.len());
        // A cell's busy level (0 idle, 1..=8 its shade): a bin's busy time is exact, its place inside the
        // bin is not, so a column a bin straddles may shift by a level, and rarely more.
        let shades: Vec<String> = (0..=LEVELS).map(|l| format!("#{:06x}", level_color(l) >> 8)).collect();
        let level = |c: Option<&String>| c.map_or(0, |f| shades.iter().position(|s| s == f).expect("a shade") as i32);
        let keys: std::collections::BTreeSet<_> = ca.keys().chain(cb.keys()).collect();
        let far = keys.iter().filter(|k| (level(ca.get(**k)) - level(cb.get(**k))).abs() > 1).count();
        let differ = keys.iter().filter(|k| ca.get(**k) != cb.get(**k)).count();
        assert!(
            far * 100 <= keys.len() && differ * 5 <= keys.len(),
            "{what}: {differ} of {} cells differ, {far} by over a level",
            keys.len()
        );
    };
    let (a, b) = (render(&trace_dir, "a.svg", &[]), render(&store, "b.svg", &[]));
    close(&a, &b, "the whole run drawn from the bins");
    // The level-0 tiles were not needed: the picture is the same with them gone.
    for d in std::fs::read_dir(store.join("e")).unwrap().flatten() {
        std::fs::rename(d.path(), base.join(format!("gone-{}", d.file_name().to_string_lossy()))).unwrap();
    }
    let (c, d) = (render(&store, "c.svg", &["--busy", "any"]), render(&trace_dir, "d.svg", &["--busy", "any"]));
    close(&d, &c, "--busy any");
    for d in std::fs::read_dir(&base).unwrap().flatten() {
        if let Some(b) = d.file_name().to_string_lossy().strip_prefix("gone-") {
            std::fs::rename(d.path(), store.join("e").join(b)).unwrap();
        }
    }
    let w = ["--window", "2.5ms:2.6ms"];
    assert_eq!(render(&trace_dir, "e.svg", &w), render(&store, "f.svg", &w), "a window from its exact records");
}

/// A level-0 tile's payload as formats 2 to 5 wrote it (without the messages' posting times), its block's
/// locations from `first`.
fn format_5_events(w: &mut weft::store::format::columns::ColumnWriter, t: &weft::store::read::EventsTile, first: u32) {
    use weft::store::read::{CollectiveRow, MessageRow};
    let delta = |w: &mut weft::store::format::columns::ColumnWriter, v: &mut dyn Iterator<Item = u64>| {
        let mut prev = 0u64;
        for x in v {
            w.signed(x.wrapping_sub(prev) as i64);
            prev = x;
        }
    };
    let messages = |w: &mut weft::store::format::columns::ColumnWriter, m: &[MessageRow]| {
        w.varint(m.len() as u64);
        delta(w, &mut m.iter().map(|x| x.index));
        m.iter().for_each(|x| w.varint((x.kind == weft::model::MessageKind::Flow) as u64));
        m.iter().for_each(|x| w.varint(x.sender.0 as u64));
        m.iter().for_each(|x| w.varint(x.receiver.0 as u64));
        delta(w, &mut m.iter().map(|x| x.send_ns));
        m.iter().for_each(|x| w.signed(x.recv_ns.wrapping_sub(x.send_ns) as i64));
        m.iter().for_each(|x| w.varint(x.size_bytes));
        m.iter().for_each(|x| w.varint(x.tag as u64));
        m.iter().for_each(|x| w.varint(x.name.0 as u64));
    };
    let collectives = |w: &mut weft::store::format::columns::ColumnWriter, c: &[CollectiveRow]| {
        w.varint(c.len() as u64);
        delta(w, &mut c.iter().map(|x| x.index));
        c.iter().for_each(|x| w.varint(x.operation as u64));
        c.iter().for_each(|x| w.varint(x.location.0 as u64));
        c.iter().for_each(|x| w.varint(x.region.0 as u64));
        c.iter().for_each(|x| w.varint(x.communicator.0 as u64));
        c.iter().for_each(|x| w.varint(x.root.map_or(0, |r| r.0 as u64 + 1)));
        delta(w, &mut c.iter().map(|x| x.start_ns));
        c.iter().for_each(|x| w.signed(x.end_ns.wrapping_sub(x.start_ns) as i64));
        c.iter().for_each(|x| w.varint(x.bytes_sent));
        c.iter().for_each(|x| w.varint(x.bytes_received));
    };
    let iv = &t.intervals;
    w.varint(iv.len() as u64);
    iv.iter().for_each(|x| w.varint((x.location.0 - first) as u64));
    iv.iter().for_each(|x| w.varint(x.region.0 as u64));
    delta(w, &mut iv.iter().map(|x| x.start_ns));
    iv.iter().for_each(|x| w.varint(x.dur_ns));
    iv.iter().for_each(|x| w.varint(x.depth as u64));
    let ins = &t.instants;
    w.varint(ins.len() as u64);
    delta(w, &mut ins.iter().map(|x| x.index));
    ins.iter().for_each(|x| w.varint((x.location.0 - first) as u64));
    ins.iter().for_each(|x| w.varint(x.region.0 as u64));
    delta(w, &mut ins.iter().map(|x| x.time_ns));
    messages(w, &t.messages);
    collectives(w, &t.collectives);
    let op = &t.open.intervals;
    w.varint(op.len() as u64);
    delta(w, &mut op.iter().map(|x| x.index));
    op.iter().for_each(|x| w.varint((x.interval.location.0 - first) as u64));
    op.iter().for_each(|x| w.varint(x.interval.region.0 as u64));
    delta(w, &mut op.iter().map(|x| x.interval.start_ns));
    op.iter().for_each(|x| w.varint(x.interval.dur_ns));
    op.iter().for_each(|x| w.varint(x.interval.depth as u64));
    messages(w, &t.open.messages);
    collectives(w, &t.open.collectives);
}

/// The store of `t` rewritten as format 2 wrote it: version 2 in the manifest and every tile's frame, summary
/// tiles ending after their seven columns (no lanes).
fn as_format_2(t: &Trace) -> MemoryStore {
    use weft::store::format::columns::{content_hash, unframe, ColumnWriter};
    let built = build(t, &small_tiles(2, 2_000));
    let store = Store::open(built.to_memory()).unwrap();
    let mut files = built.to_memory();
    let mut changed = Vec::new();
    for e in &built.manifest.tiles {
        let (kind, payload) = unframe(&files.files[&e.path], weft::store::FORMAT_VERSION as u8, 1 << 30).unwrap();
        let mut w = ColumnWriter::default();
        if e.kind == TileKind::CounterSummary {
            // Format 4's: formats 2 and 3 kept no counter pyramid.
            files.files.remove(&e.path);
            continue;
        }
        if e.kind == TileKind::Counters {
            // Formats 2 and 3 kept no open section (their one tile per window held every series).
            let own = store.counter_tile(e).unwrap().samples;
            w.varint(own.len() as u64);
            let mut prev = 0u64;
            for s in &own {
                w.signed(s.index.wrapping_sub(prev) as i64);
                prev = s.index;
            }
            own.iter().for_each(|s| w.varint(s.series as u64));
            prev = 0;
            for s in &own {
                w.signed(s.time_ns.wrapping_sub(prev) as i64);
                prev = s.time_ns;
            }
            own.iter().for_each(|s| w.varint(s.value.to_bits()));
        } else if e.kind == TileKind::Summary {
            let bins = store.summary_tile(e).unwrap();
            assert!(bins.iter().any(|b| b.lanes > 0), "format 3 summaries keep lanes");
            w.varint(bins.len() as u64);
            w.varint(bins[0].len() as u64);
            for c in 0..weft::store::pyramid::COLUMNS.len() {
                bins.iter().for_each(|b| (0..b.len()).for_each(|i| w.varint(b.get(c, i))));
            }
        } else if e.kind == TileKind::Events {
            // Format 6's messages keep when their receive was posted: the older sections end before it.
            format_5_events(&mut w, &store.events_tile(e).unwrap(), e.block * 2);
        } else if matches!(
            e.kind,
            TileKind::Waits | TileKind::WaitSummary | TileKind::CriticalPath | TileKind::CallPaths
        ) {
            // Format 6's wait states: older stores have none.
            files.files.remove(&e.path);
            continue;
        } else {
            w.buf = payload;
        }
        let bytes = w.finish(kind, 2);
        let hash = content_hash(&bytes);
        // Named by its new content's hash, as the index names every tile.
        let path = e.kind.path(e.level, e.block, e.window, &hash);
        changed.push((e.path.clone(), bytes.len(), hash, path.clone()));
        files.files.remove(&e.path);
        files.files.insert(path, bytes);
    }
    edit_manifest(&mut files, |m| {
        m["version"] = 2.into();
        m.as_object_mut().unwrap().remove("waits");
        m["tiles"].as_array_mut().unwrap().retain(|x| {
            !["counter_summary", "waits", "wait_summary", "call_paths"].contains(&x["kind"].as_str().unwrap())
        });
        for x in m["tiles"].as_array_mut().unwrap() {
            let (_, len, hash, path) = changed.iter().find(|c| x["path"] == *c.0).unwrap();
            x["bytes"] = (*len).into();
            x["hash"] = hash.clone().into();
            x["path"] = path.clone().into();
        }
    });
    files
}

#[test]
fn a_format_2_store_still_reads_and_summary_lanes_must_match_the_manifest() {
    let mut cfg = GenConfig::new(3, 20_000);
    cfg.metrics = 2;
    let t = generated(&cfg);
    assert!(!t.counters.sample_time_ns.is_empty());
    let old = Store::open(as_format_2(&t)).expect("a format-2 store opens");
    assert_eq!(old.manifest.version, 2);
    let read = old.to_trace().unwrap();
    assert_same_but_postings(&t, &read);
    assert_eq!(read.messages.posted_ns, read.messages.recv_ns, "before format 6 a receive is posted at it");
    // Its counters reach `weft` (above), not the page's tracks: no counter pyramid, no value carried open.
    use weft::store::read::query::{plan, TileIndex, Viewport};
    let ns = t.counters.series_name.len() as u32;
    let span = t.span_ns as f64;
    for width_px in [1e9, 10.0] {
        let vp = Viewport { t0_ns: 0.0, t1_ns: span, locations: 0..1, width_px, series: 0..ns };
        assert!(plan(&old.manifest, &TileIndex::new(&old.manifest), &vp).counter_tiles.is_empty());
    }
    let now = Store::open(build(&t, &small_tiles(2, 2_000)).to_memory()).unwrap();
    // (Format 2 has no call-path tiles: the summaries are paired among themselves.)
    let summaries = |s: &Store<MemoryStore>| {
        s.manifest.tiles.iter().filter(|e| e.kind == TileKind::Summary).cloned().collect::<Vec<_>>()
    };
    for (a, b) in summaries(&old).iter().zip(&summaries(&now)) {
        let (a, mut b) = (old.summary_tile(a).unwrap(), now.summary_tile(b).unwrap());
        b.iter_mut().for_each(|b| b.set_lanes(0));
        assert_eq!(a, b, "format 2's summaries are format 3's without lanes");
    }
    // A format-3 summary tile whose lanes disagree with the manifest's is named (as the page reads it).
    let mut files = build(&t, &small_tiles(2, 2_000)).to_memory();
    edit_manifest(&mut files, |m| {
        let lanes = m["locations"]["lanes"].as_array_mut().unwrap();
        lanes[0] = (lanes[0].as_u64().unwrap() + 1).into();
    });
    let s = Store::open(files).unwrap();
    let e = s.manifest.tiles.iter().find(|e| e.kind == TileKind::Summary && e.block == 0).unwrap().clone();
    let e = s.summary_tile(&e).unwrap_err();
    assert!(
        matches!(&e, StoreError::Corrupt { file, detail } if file.starts_with("s/l") && detail.contains("lanes, the manifest says")),
        "{e}"
    );
}
