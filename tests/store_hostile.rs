//! Hostile stores and parts, round three (issue #51): counts taken on trust (shard counts, windows), forged
//! manifests (tiles missing, out of range, swapped with their hashes updated, named by another hash), what
//! `weft merge` takes from its parts (links, FIFOs, damaged or repeated tiles, counts that wrap), reads that
//! leave the store's folder, and the partial folders an interrupted, killed or failing index or merge
//! leaves. The forgeries are `weft::samples::forged_store`'s (also the `store_manifest` fuzz target's seeds);
//! the fuzz target's entry runs here over mutated forgeries for a bounded number of iterations.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};
use weft::analyses::busy::BusyDefinition;
use weft::index::{merge, PartManifest, Shard};
use weft::samples::forged_store::{base, edit, forgeries, fuzz_input};
use weft::store::format::columns::{frame, IDENTIFIED_VERSION};
use weft::store::{Manifest, MemoryStore, Store, StoreError, TileKind, MANIFEST};

use crate::common::TempDir;

#[path = "../fuzz/fuzz_targets/store_manifest_entry.rs"]
mod entry;

fn write_files(dir: &Path, files: &[(String, Vec<u8>)]) {
    for (p, b) in files {
        let path = dir.join(p);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, b).unwrap();
    }
}

/// `weft ARGS` in `dir`, killed after `limit`: its output, or None when it ran past the limit.
fn weft_within(args: &[&str], dir: &Path, limit: Duration) -> Option<Output> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_weft"))
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Some(child.wait_with_output().unwrap())
}

fn weft(args: &[&str], dir: &Path) -> Output {
    weft_within(args, dir, Duration::from_secs(120)).unwrap_or_else(|| panic!("weft {args:?} ran past 120 s"))
}

/// `weft ARGS` must fail, saying `says` on stderr; its stderr.
fn refused(args: &[&str], dir: &Path, says: &str) -> String {
    let out = weft(args, dir);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "weft {args:?} succeeded: {}", String::from_utf8_lossy(&out.stdout));
    assert!(err.contains(says), "weft {args:?}: expected {says:?} in: {err}");
    assert!(!err.contains("panicked"), "weft {args:?} panicked: {err}");
    err
}

/// The names in `dir` starting with `.NAME.partial-`.
fn partial_folders(dir: &Path, name: &str) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(&format!(".{name}.partial-")))
        .collect()
}

fn forged(name: &str) -> weft::samples::forged_store::Forgery {
    forgeries().into_iter().find(|f| f.name == name).unwrap_or_else(|| panic!("no forgery {name}"))
}

// ---- 1. Counts taken on trust ----

#[test]
fn absurd_shard_counts_are_refused_and_missing_shards_said_briefly() {
    let e = Shard::parse("0/4294967295").unwrap_err();
    assert!(e.contains("at most"), "{e}");
    assert!(Shard::parse("0/300000000").is_err() && Shard::parse("3/4").is_ok());
    let d = TempDir::new("store-hostile-shards");
    let err = refused(&["index", "nothing.otf2", "-o", "p", "--shard", "0/4294967295"], d.path(), "at most");
    assert!(err.len() < 300, "{err}");
    // Parts claiming absurd shard counts are refused when read.
    for name in ["part-shards-max", "part-shards-300m"] {
        let f = forged(name);
        assert!(f.parts.iter().any(|p| PartManifest::parse(p).is_err()), "{name} is refused");
    }
    // The largest count allowed, one part given: the missing shards are a count and a few ranges, not a
    // line of a million numbers (nor a million entries allocated).
    let (_, parts) = base();
    let mut p0 = parts[0].part.clone();
    p0.shards = weft::index::shard::partition::MAX_SHARDS;
    let e = merge(&[("p0".into(), p0.clone())]).unwrap_err().to_string();
    assert!(e.len() < 200 && e.contains("1-1048575"), "{e}");
    let mut p5 = parts[1].part.clone();
    (p5.shard, p5.shards) = (5, p0.shards);
    let mut p9 = parts[1].part.clone();
    (p9.shard, p9.shards) = (9, p0.shards);
    let e = merge(&[("p0".into(), p0.clone()), ("p9".into(), p9), ("p5".into(), p5)]).unwrap_err().to_string();
    assert!(e.starts_with("shard(s) 1-4, 6-8, 10-1048575 of 1048576 missing"), "{e}");
}

#[test]
fn a_tiling_of_absurd_windows_or_block_sizes_is_refused() {
    for name in ["windows-max", "block-locations-max"] {
        let e = Manifest::parse(&forged(name).manifest).unwrap_err();
        assert!(matches!(&e, StoreError::Corrupt { file, .. } if file == MANIFEST), "{name}: {e}");
    }
}

// ---- 2. Forged stores ----

#[test]
fn forged_manifests_are_refused_before_a_tile_is_read() {
    let (store, _) = base();
    assert!(Manifest::parse(&forged("whole").manifest).is_ok());
    for name in [
        "no-events-tiles",
        "events-window-out-of-range",
        "events-block-out-of-range",
        "block-locations-max",
        "windows-max",
        "name-hash-not-the-content",
        "tile-listed-twice",
    ] {
        let f = forged(name);
        let e = Manifest::parse(&f.manifest).unwrap_err();
        assert!(matches!(&e, StoreError::Corrupt { file, .. } if file == MANIFEST), "{name}: {e}");
        // A reader opening it as a store (the page's worker, the CLI) is refused the same way.
        let mut files = store.to_memory();
        files.files.insert(MANIFEST.into(), f.manifest.clone());
        assert_eq!(Store::open(files).err(), Some(e), "{name}");
    }
    // Counts that do not add up: a block's events tiles short of its locations' intervals, a summary tile
    // missing, a moments tile missing.
    let m = store.manifest_json();
    type Edit = fn(&mut serde_json::Value);
    let edits: [(&str, Edit); 4] = [
        ("records", |v| {
            v["tiles"].as_array_mut().unwrap().iter_mut().find(|e| e["kind"] == "events").unwrap()["records"] = 0.into()
        }),
        ("summary", |v| {
            let t = v["tiles"].as_array_mut().unwrap();
            let i = t.iter().position(|e| e["kind"] == "summary").unwrap();
            t.remove(i);
        }),
        ("moments", |v| v["tiles"].as_array_mut().unwrap().retain(|e| e["kind"] != "moments")),
        ("intervals", |v| {
            v["locations"]["intervals"][0] = u64::MAX.into();
            v["counts"]["intervals"] = u64::MAX.into();
        }),
    ];
    for (what, f) in edits {
        assert!(Manifest::parse(&edit(&m, f)).is_err(), "{what}");
    }
}

/// The base store's files with two moments tiles swapped, each named by its new content's hash and the
/// manifest's hashes and sizes updated to match: only the frames know.
#[test]
fn tiles_swapped_with_their_hashes_updated_are_refused_by_their_frames() {
    let (store, _) = base();
    let f = forged("moments-swapped");
    let m = Manifest::parse(&f.manifest).expect("the swap leaves a consistent manifest");
    let mut files = MemoryStore::default();
    let by_hash = |h: &str| store.tiles.iter().find(|(p, _)| p.contains(&h[..16])).unwrap().1.clone();
    for e in &m.tiles {
        files.files.insert(e.path.clone(), by_hash(&e.hash));
    }
    files.files.insert(MANIFEST.into(), f.manifest.clone());
    let s = Store::open(files).unwrap();
    let e = s.moments(&BusyDefinition::Compute).unwrap_err();
    assert!(
        matches!(&e, StoreError::Mismatch { file, detail } if file.starts_with("m/b") && detail.contains("block")),
        "{e}"
    );
}

#[test]
fn every_tile_says_what_it_is_and_its_name_carries_its_hash() {
    let (store, _) = base();
    assert_eq!(store.manifest.version, weft::store::FORMAT_VERSION);
    assert!(store.manifest.version as u8 >= IDENTIFIED_VERSION);
    let kinds: std::collections::BTreeSet<TileKind> = store.manifest.tiles.iter().map(|e| e.kind).collect();
    assert_eq!(kinds.len(), 10, "every kind of tile: {kinds:?}");
    for (e, (path, bytes)) in store.manifest.tiles.iter().zip(&store.tiles) {
        assert_eq!(&e.path, path);
        let (id, _) = frame(bytes, store.manifest.version as u8).unwrap();
        assert_eq!(id, e.id(), "{path}");
        assert!(path.ends_with(&format!(".{}.wt", &e.hash[..16])));
    }
}

/// A store folder with `manifest` in place of the base store's.
fn store_folder(dir: &Path, name: &str, manifest: &[u8]) -> PathBuf {
    let (store, _) = base();
    let out = dir.join(name);
    write_files(&out, &store.tiles);
    std::fs::write(out.join(MANIFEST), manifest).unwrap();
    out
}

#[test]
fn the_cli_refuses_forged_stores_instead_of_answering_rows_missing() {
    let d = TempDir::new("store-hostile-cli-forged");
    let whole = store_folder(d.path(), "whole", &forged("whole").manifest);
    let ok = weft(&["moments", whole.to_str().unwrap(), "--window", "0:1ms"], d.path());
    assert!(ok.status.success(), "{}", String::from_utf8_lossy(&ok.stderr));
    for name in [
        "no-events-tiles",
        "events-window-out-of-range",
        "events-block-out-of-range",
        "windows-max",
        "block-locations-max",
    ] {
        let s = store_folder(d.path(), name, &forged(name).manifest);
        let s = s.to_str().unwrap();
        for args in [
            &["moments", s, "--window", "0:1ms"][..],
            &["moments", s, "--busy", "pattern:MPI_*"],
            &["render", "timeline", s, "-o", "t.svg"],
            &["info", s],
        ] {
            refused(args, d.path(), "manifest.json");
        }
    }
    // Swapped tiles: refused when read, naming the tile.
    let f = forged("moments-swapped");
    let (store, _) = base();
    let m = Manifest::parse(&f.manifest).unwrap();
    let s = d.join("swapped");
    for e in &m.tiles {
        let bytes = &store.tiles.iter().find(|(p, _)| p.contains(&e.hash[..16])).unwrap().1;
        write_files(&s, &[(e.path.clone(), bytes.clone())]);
    }
    std::fs::write(s.join(MANIFEST), &f.manifest).unwrap();
    refused(&["moments", s.to_str().unwrap()], d.path(), "m/b");
}

// ---- 3. What `weft merge` takes from its parts ----

/// The base store's parts written as `p0` and `p1` under `dir` (fresh), and the whole store as `whole`.
fn parts_in(dir: &Path) {
    let (store, parts) = base();
    for (k, p) in parts.iter().enumerate() {
        let out = dir.join(format!("p{k}"));
        let _ = std::fs::remove_dir_all(&out);
        write_files(&out, &p.tiles);
        std::fs::write(out.join(weft::index::PART_MANIFEST), p.part.to_json()).unwrap();
    }
    let _ = std::fs::remove_dir_all(dir.join("whole"));
    write_files(&dir.join("whole"), &store.tiles);
    std::fs::write(dir.join("whole").join(MANIFEST), store.manifest_json()).unwrap();
}

/// A tile of part 1 (an events tile of its blocks).
fn part1_tile() -> String {
    let (_, parts) = base();
    parts[1].part.store.tiles.iter().find(|e| e.kind == TileKind::Events).unwrap().path.clone()
}

/// `weft merge` refused, leaving neither the store nor a partial folder.
fn merge_refused(dir: &Path, extra: &[&str], says: &str) -> String {
    let mut args = vec!["merge", "-o", "m"];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["p0", "p1"]);
    let err = refused(&args, dir, says);
    assert!(!dir.join("m").exists(), "no store after: {err}");
    assert!(partial_folders(dir, "m").is_empty(), "no partial folder after: {err}");
    err
}

#[test]
fn merge_verifies_every_tile_and_sums_checked() {
    let d = TempDir::new("store-hostile-merge");
    let dir = d.path();
    parts_in(dir);
    // The good parts merge into the whole store's bytes, linked and copied.
    for extra in [&[][..], &["--copy"]] {
        let mut args = vec!["merge", "-o", "m"];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["p1", "p0"]);
        let out = weft(&args, dir);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(folder(&dir.join("m")), folder(&dir.join("whole")), "the merged store is the whole one");
        std::fs::remove_dir_all(dir.join("m")).unwrap();
    }
    let tile = part1_tile();
    let in_part = dir.join("p1").join(&tile);
    // A tile that is a link to a file of the same bytes outside the part: not copied, not linked in.
    for extra in [&["--copy"][..], &[]] {
        parts_in(dir);
        let outside = dir.join("outside.wt");
        std::fs::copy(&in_part, &outside).unwrap();
        std::fs::remove_file(&in_part).unwrap();
        std::os::unix::fs::symlink(&outside, &in_part).unwrap();
        merge_refused(dir, extra, "symbolic link");
    }
    // A linked subfolder of a part.
    parts_in(dir);
    let sub = in_part.parent().unwrap().to_path_buf();
    std::fs::rename(&sub, dir.join("elsewhere")).unwrap();
    std::os::unix::fs::symlink(dir.join("elsewhere"), &sub).unwrap();
    merge_refused(dir, &["--copy"], "symbolic link");
    std::fs::remove_file(&sub).unwrap();
    std::fs::remove_dir_all(dir.join("elsewhere")).unwrap();
    // A FIFO in a tile's place: refused at once, not waited on (also when part.json claims 0 bytes).
    parts_in(dir);
    std::fs::remove_file(&in_part).unwrap();
    assert!(Command::new("mkfifo").arg(&in_part).status().unwrap().success());
    let out = weft_within(&["merge", "--copy", "-o", "m", "p0", "p1"], dir, Duration::from_secs(30)).expect("no hang");
    assert!(!out.status.success());
    merge_refused(dir, &[], "not a regular file");
    let part_json = dir.join("p1").join(weft::index::PART_MANIFEST);
    let zero = edit(&std::fs::read(&part_json).unwrap(), |v| {
        for e in v["store"]["tiles"].as_array_mut().unwrap() {
            if e["path"] == *tile {
                e["bytes"] = 0.into();
            }
        }
    });
    std::fs::write(&part_json, zero).unwrap();
    let out = weft_within(&["merge", "--copy", "-o", "m", "p0", "p1"], dir, Duration::from_secs(30)).expect("no hang");
    assert!(!out.status.success());
    // A part claiming 2^64 - 1 events: the sum does not wrap.
    parts_in(dir);
    let claims = edit(&std::fs::read(&part_json).unwrap(), |v| v["store"]["counts"]["event_records"] = u64::MAX.into());
    std::fs::write(&part_json, claims).unwrap();
    merge_refused(dir, &[], "overflow");
    // A damaged tile (same size): its hash.
    for extra in [&[][..], &["--copy"]] {
        parts_in(dir);
        let mut bytes = std::fs::read(&in_part).unwrap();
        let k = bytes.len() - 3;
        bytes[k] ^= 0x55;
        std::fs::write(&in_part, bytes).unwrap();
        let err = merge_refused(dir, extra, "content hash");
        assert!(err.contains(&tile), "{err}");
    }
    // A tile listed twice.
    parts_in(dir);
    let twice = edit(&std::fs::read(&part_json).unwrap(), |v| {
        let t = v["store"]["tiles"].as_array_mut().unwrap();
        let e = t.iter().find(|e| e["path"] == *tile).unwrap().clone();
        t.push(e);
    });
    std::fs::write(&part_json, twice).unwrap();
    merge_refused(dir, &[], "same tile");
    // Another part's tile put in this one's place, its name, size and hash updated: its frame says so.
    parts_in(dir);
    let (_, parts) = base();
    let other = parts[1].part.store.tiles.iter().filter(|e| e.kind == TileKind::Events).nth(1).unwrap().clone();
    let moved = edit(&std::fs::read(&part_json).unwrap(), |v| {
        for e in v["store"]["tiles"].as_array_mut().unwrap() {
            if e["path"] == *tile {
                let stem = tile.rsplit_once('.').unwrap().0.rsplit_once('.').unwrap().0.to_string();
                e["path"] = format!("{stem}.{}.wt", &other.hash[..16]).into();
                e["hash"] = other.hash.clone().into();
                e["bytes"] = other.bytes.into();
            }
        }
    });
    std::fs::write(&part_json, moved).unwrap();
    let stem = tile.rsplit_once('.').unwrap().0.rsplit_once('.').unwrap().0.to_string();
    std::fs::copy(dir.join("p1").join(&other.path), dir.join("p1").join(format!("{stem}.{}.wt", &other.hash[..16])))
        .unwrap();
    merge_refused(dir, &[], "window");
}

// ---- 4. Reads outside the store ----

#[test]
fn store_readers_read_regular_files_inside_the_folder_only() {
    let d = TempDir::new("store-hostile-outside");
    let (store, _) = base();
    let s = store_folder(d.path(), "s", &store.manifest_json());
    let window = ["--window", "0:1s"];
    let args = |s: &Path| {
        let mut a = vec!["moments".to_string(), s.display().to_string()];
        a.extend(window.iter().map(|x| x.to_string()));
        a
    };
    let run = |s: &Path| weft(&args(s).iter().map(String::as_str).collect::<Vec<_>>(), d.path());
    assert!(run(&s).status.success());
    // Every events tile a link to a file of the same bytes outside the folder.
    let outside = d.join("outside");
    for e in store.manifest.tiles.iter().filter(|e| e.kind == TileKind::Events) {
        let (from, to) = (s.join(&e.path), outside.join(e.path.replace('/', "_")));
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::rename(&from, &to).unwrap();
        std::os::unix::fs::symlink(&to, &from).unwrap();
    }
    refused(&args(&s).iter().map(String::as_str).collect::<Vec<_>>(), d.path(), "symbolic link");
    // A linked subfolder.
    let s2 = store_folder(d.path(), "s2", &store.manifest_json());
    std::fs::rename(s2.join("e"), d.join("e-elsewhere")).unwrap();
    std::os::unix::fs::symlink(d.join("e-elsewhere"), s2.join("e")).unwrap();
    refused(&args(&s2).iter().map(String::as_str).collect::<Vec<_>>(), d.path(), "symbolic link");
}

// ---- 5. Leftovers ----

/// A generated OTF2 archive under `dir/g`, big enough that indexing it takes a few seconds.
fn big_archive(dir: &Path, events: u64) -> PathBuf {
    let (files, _) = weft::samples::otf2_gen::archive(&weft::samples::otf2_gen::GenConfig::new(8, events));
    let g = dir.join("g");
    write_files(&g, &files.files.iter().map(|(p, b)| (p.clone(), b.clone())).collect::<Vec<_>>());
    g.join("traces.otf2")
}

/// Spawn `weft index TRACE -o store --threads 1 --memory 64M` and wait until its partial folder has a file
/// (then it is mid-run: the archive takes it a second or more).
fn index_until_partial(dir: &Path, trace: &Path) -> std::process::Child {
    let child = Command::new(env!("CARGO_BIN_EXE_weft"))
        .args(["index", trace.to_str().unwrap(), "-o", "store", "--threads", "1", "--memory", "64M"])
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let partial = dir.join(format!(".store.partial-{}", child.id()));
    let started = Instant::now();
    while std::fs::read_dir(&partial).map_or(true, |mut r| r.next().is_none()) {
        assert!(started.elapsed() < Duration::from_secs(60), "no partial folder appeared");
        std::thread::sleep(Duration::from_millis(5));
    }
    child
}

fn signal(child: &std::process::Child, sig: &str) {
    assert!(Command::new("kill").args([sig, &child.id().to_string()]).status().unwrap().success());
}

#[test]
fn an_interrupted_index_removes_its_partial_folder_and_a_killed_ones_is_removed_next_run() {
    let d = TempDir::new("store-hostile-signals");
    let trace = big_archive(d.path(), 4_000_000);
    for (sig, code) in [("-TERM", 143), ("-INT", 130)] {
        let mut child = index_until_partial(d.path(), &trace);
        signal(&child, sig);
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(code), "{sig}: the index was still running and exited by the signal");
        assert!(partial_folders(d.path(), "store").is_empty(), "{sig}: {:?}", partial_folders(d.path(), "store"));
        assert!(!d.join("store").exists());
    }
    // SIGKILL cannot be caught: the folder stays, and the next run beside it removes it (but not the
    // partial folder of a process still running: this test's own id).
    let mut child = index_until_partial(d.path(), &trace);
    signal(&child, "-KILL");
    child.wait().unwrap();
    let stale = partial_folders(d.path(), "store");
    assert_eq!(stale.len(), 1, "{stale:?}");
    let live = d.join(format!(".store.partial-{}", std::process::id()));
    std::fs::create_dir_all(&live).unwrap();
    let small = TempDir::new("store-hostile-signals-small");
    let trace = big_archive(small.path(), 2_000);
    let out = weft(&["index", trace.to_str().unwrap(), "-o", "store"], d.path());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(partial_folders(d.path(), "store"), vec![format!(".store.partial-{}", std::process::id())]);
    assert!(d.join("store").join(MANIFEST).is_file());
}

/// `weft ARGS` in `dir` with its files limited to `bytes` (a write past it fails with EFBIG, as ENOSPC would
/// fail it: SIGXFSZ ignored).
fn weft_limited(args: &[&str], dir: &Path, bytes: u64) -> Output {
    let script = format!("trap '' XFSZ; exec prlimit --fsize={bytes} -- \"$0\" \"$@\"");
    Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_weft"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

#[test]
fn a_failed_write_removes_the_partial_folder() {
    let d = TempDir::new("store-hostile-enospc");
    // Many small tiles: the manifest is the largest file.
    let trace = big_archive(d.path(), 40_000);
    let t = trace.to_str().unwrap();
    let small = ["--block", "1", "--tile-intervals", "256"];
    let mut args = vec!["index", t, "-o", "ref"];
    args.extend_from_slice(&small);
    assert!(weft(&args, d.path()).status.success());
    let files = common_files(&d.join("ref"));
    let manifest = std::fs::metadata(d.join("ref").join(MANIFEST)).unwrap().len();
    let tile = files.iter().filter(|(p, _)| !p.ends_with(MANIFEST)).map(|(_, n)| *n).max().unwrap();
    assert!(manifest > tile + 1024, "manifest {manifest}, largest tile {tile}");
    let limit = (manifest + tile) / 2;
    let mut args = vec!["index", t, "-o", "store"];
    args.extend_from_slice(&small);
    let out = weft_limited(&args, d.path(), limit);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains(MANIFEST), "{err}");
    assert!(partial_folders(d.path(), "store").is_empty(), "{:?}", partial_folders(d.path(), "store"));
    // A merge whose copy fails.
    parts_in(d.path());
    let out = weft_limited(&["merge", "--copy", "-o", "m", "p0", "p1"], d.path(), 64);
    assert!(!out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(partial_folders(d.path(), "m").is_empty(), "{:?}", partial_folders(d.path(), "m"));
}

/// Every file under `dir` by relative path, with its bytes.
fn folder(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    crate::common::files_under(dir)
        .into_iter()
        .map(|p| (p.strip_prefix(dir).unwrap().display().to_string(), std::fs::read(&p).unwrap()))
        .collect()
}

fn common_files(dir: &Path) -> Vec<(String, u64)> {
    crate::common::files_under(dir)
        .into_iter()
        .map(|p| (p.display().to_string(), std::fs::metadata(&p).unwrap().len()))
        .collect()
}

// ---- 6. The fuzz target's entry over mutated forgeries ----

/// xorshift64.
fn next(x: &mut u64) -> u64 {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    *x
}

/// Every number under `v` with its JSON pointer.
fn numbers(v: &serde_json::Value, at: String, out: &mut Vec<String>) {
    match v {
        serde_json::Value::Number(_) => out.push(at),
        serde_json::Value::Array(a) => a.iter().enumerate().for_each(|(k, x)| numbers(x, format!("{at}/{k}"), out)),
        serde_json::Value::Object(o) => o.iter().for_each(|(k, x)| numbers(x, format!("{at}/{k}"), out)),
        _ => {}
    }
}

/// One mutation of a manifest (or a part's, under `store`): a number of its tiling, levels, tiles, counts
/// or interval counts set to a value a forger would try, or a tile entry dropped, repeated or two swapped.
fn mutate(v: &mut serde_json::Value, rng: &mut u64, part: bool) {
    let root = if part { "/store" } else { "" };
    let mut at = Vec::new();
    for key in ["tiling", "levels", "tiles", "counts", "locations/intervals"] {
        let p = format!("{root}/{key}");
        if let Some(x) = v.pointer(&p) {
            numbers(x, p, &mut at);
        }
    }
    if part {
        for key in ["/shard", "/shards", "/blocks"] {
            if let Some(x) = v.pointer(key) {
                numbers(x, key.to_string(), &mut at);
            }
        }
    }
    let tiles = format!("{root}/tiles");
    match next(rng) % 8 {
        0 => {
            if let Some(t) = v.pointer_mut(&tiles).and_then(|t| t.as_array_mut()).filter(|t| !t.is_empty()) {
                let i = next(rng) as usize % t.len();
                t.remove(i);
            }
        }
        1 => {
            if let Some(t) = v.pointer_mut(&tiles).and_then(|t| t.as_array_mut()).filter(|t| !t.is_empty()) {
                let (i, j) = (next(rng) as usize % t.len(), next(rng) as usize % t.len());
                t.swap(i, j);
                let key = ["block", "window", "records", "level"][next(rng) as usize % 4];
                let a = t[i][key].clone();
                t[i][key] = t[j][key].clone();
                t[j][key] = a;
            }
        }
        _ if !at.is_empty() => {
            let p = &at[next(rng) as usize % at.len()];
            let old = v.pointer(p).and_then(|x| x.as_u64()).unwrap_or(0);
            let new: serde_json::Value = match next(rng) % 7 {
                0 => 0.into(),
                1 => u32::MAX.into(),
                2 => u64::MAX.into(),
                3 => (old + 1).into(),
                4 => old.saturating_sub(1).into(),
                5 => (old * 2).into(),
                _ => (next(rng) % 1000).into(),
            };
            if let Some(x) = v.pointer_mut(p) {
                *x = new;
            }
        }
        _ => {}
    }
}

#[test]
fn mutated_forged_manifests_are_refused_or_read_exactly() {
    let (store, parts) = base();
    let whole = Store::open(store.to_memory()).unwrap();
    let want = whole.to_trace().unwrap();
    let moments = whole.moments(&BusyDefinition::Compute).unwrap();
    let seeds: Vec<Vec<u8>> = forgeries().iter().map(fuzz_input).collect();
    // Every seed through the fuzz target's entry as it is.
    for s in &seeds {
        entry::run_with(s, &store.tiles);
    }
    let mut rng = 0x9e37_79b9_7f4a_7c15u64;
    let (mut accepted, mut refused) = (0, 0);
    for _ in 0..300 {
        let mut m: serde_json::Value = serde_json::from_slice(&store.manifest_json()).unwrap();
        let mut p: Vec<serde_json::Value> =
            parts.iter().map(|p| serde_json::from_slice(&p.part.to_json()).unwrap()).collect();
        for _ in 0..1 + next(&mut rng) % 2 {
            match next(&mut rng) % 3 {
                0 => mutate(&mut m, &mut rng, false),
                k => mutate(&mut p[k as usize - 1], &mut rng, true),
            }
        }
        let manifest = serde_json::to_vec(&m).unwrap();
        let mut input = manifest.clone();
        for x in &p {
            input.extend_from_slice(entry::PART_SEPARATOR);
            input.extend_from_slice(&serde_json::to_vec(x).unwrap());
        }
        entry::run_with(&input, &store.tiles);
        // What a reader accepts reads as the store it was forged from, or fails naming a file: never other
        // rows or other numbers.
        let mut files = store.to_memory();
        files.files.insert(MANIFEST.into(), manifest);
        match Store::open(files) {
            Err(_) => refused += 1,
            Ok(s) => {
                accepted += 1;
                if let Ok(t) = s.to_trace() {
                    assert_eq!(t.intervals.start_ns, want.intervals.start_ns);
                    assert_eq!(t.intervals.location, want.intervals.location);
                    assert_eq!(t.location_intervals, want.location_intervals);
                }
                if let Ok(Some(m)) = s.moments(&BusyDefinition::Compute) {
                    assert_eq!(format!("{m:?}"), format!("{:?}", moments.as_ref().unwrap()));
                }
            }
        }
    }
    assert!(refused > 50 && accepted > 0, "{refused} refused, {accepted} accepted");
}

#[test]
fn truncated_manifests_and_parts_are_refused_naming_the_file() {
    let (store, parts) = base();
    let m = store.manifest_json();
    let p = parts[1].part.to_json();
    let step = (m.len() / 97).max(1);
    for n in (0..m.len()).step_by(step) {
        let e = Manifest::parse(&m[..n]).unwrap_err();
        assert_eq!(e.file(), MANIFEST, "{n}: {e}");
    }
    for n in (0..p.len()).step_by((p.len() / 97).max(1)) {
        let e = PartManifest::parse(&p[..n]).unwrap_err();
        assert_eq!(e.file(), weft::index::PART_MANIFEST, "{n}: {e}");
        entry::run(&[&m[..], entry::PART_SEPARATOR, &p[..n]].concat());
    }
}
