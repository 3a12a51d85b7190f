//! Forged stores and parts (issue #51): a small generated store and its two shards' parts, and manifests and
//! part manifests edited the ways a hostile review edited them (no events tiles, a tile out of range, a
//! tiling of 2^32 - 1 windows or locations per block, tiles swapped with their hashes updated, a part
//! claiming 2^32 - 1 shards or 2^64 - 1 events, a tile listed twice). The seeds of the `store_manifest` fuzz
//! target (`examples/fuzz_seeds.rs`) and the cases of tests/store_hostile.rs. Each is refused by a reader
//! (`Manifest::parse`) or by the merge.

use crate::otf2_gen::{archive, GenConfig};
use serde_json::Value;
use weft_index::{build, build_part, BuildOptions, BuiltPart, BuiltStore, Shard};
use weft_readers::otf2::read_archive;

/// The store forged from: 8 locations in blocks of 2 (4 blocks of equal size), a few windows, with counters
/// and wait states.
pub fn base() -> (BuiltStore, Vec<BuiltPart>) {
    let mut cfg = GenConfig::new(4, 12_000);
    cfg.threads = 2;
    cfg.metrics = 1;
    let trace = read_archive("traces.otf2", &archive(&cfg).0).expect("a generated archive reads");
    // With the wait states (`--waits`), so every kind of tile is forged from.
    let o = BuildOptions { block_locations: 2, tile_intervals: 1_000, waits: true, ..BuildOptions::default() };
    let store = build(&trace, &o);
    let parts = (0..2).map(|k| build_part(&trace, &o, Shard { index: k, count: 2 })).collect();
    (store, parts)
}

/// A forged input: a manifest (a store's), and part manifests (`weft merge`'s input).
pub struct Forgery {
    pub name: &'static str,
    pub manifest: Vec<u8>,
    pub parts: Vec<Vec<u8>>,
}

/// Edit JSON bytes.
pub fn edit(bytes: &[u8], f: impl FnOnce(&mut Value)) -> Vec<u8> {
    let mut v: Value = serde_json::from_slice(bytes).expect("a manifest is JSON");
    f(&mut v);
    serde_json::to_vec_pretty(&v).expect("JSON serializes")
}

fn tiles(v: &mut Value) -> &mut Vec<Value> {
    v["tiles"].as_array_mut().expect("a manifest lists its tiles")
}

/// Every forgery of [`base`]'s manifest and parts, by name.
pub fn forgeries() -> Vec<Forgery> {
    let (store, parts) = base();
    let m = store.manifest_json();
    let p: Vec<Vec<u8>> = parts.iter().map(|p| p.part.to_json()).collect();
    let of_store = |name, manifest| Forgery { name, manifest, parts: p.clone() };
    let of_part = |name, k: usize, part: Vec<u8>| {
        let mut parts = p.clone();
        parts[k] = part;
        Forgery { name, manifest: m.clone(), parts }
    };
    let events = |e: &Value| e["kind"] == "events";
    let moments_swapped = edit(&m, |v| {
        let t = tiles(v);
        let i: Vec<usize> = (0..t.len()).filter(|&i| t[i]["kind"] == "moments").take(2).collect();
        // The files' names, bytes and hashes swapped, each entry keeping its block.
        for key in ["path", "bytes", "hash"] {
            let a = t[i[0]][key].clone();
            t[i[0]][key] = t[i[1]][key].clone();
            t[i[1]][key] = a;
        }
        for &k in &i {
            let (block, hash) = (t[k]["block"].as_u64().unwrap_or(0), t[k]["hash"].as_str().unwrap_or("").to_string());
            t[k]["path"] = format!("m/b{block}.{}.wt", &hash[..16]).into();
        }
    });
    vec![
        of_store("whole", m.clone()),
        of_store("no-events-tiles", edit(&m, |v| tiles(v).retain(|e| !events(e)))),
        of_store(
            "events-window-out-of-range",
            edit(&m, |v| {
                let windows = v["tiling"]["windows"].as_u64().unwrap_or(0);
                let e = tiles(v).iter_mut().find(|e| events(e)).expect("an events tile");
                e["window"] = (windows + 3).into();
            }),
        ),
        of_store(
            "events-block-out-of-range",
            edit(&m, |v| {
                let e = tiles(v).iter_mut().find(|e| events(e)).expect("an events tile");
                e["block"] = 1000.into();
            }),
        ),
        of_store(
            "block-locations-max",
            edit(&m, |v| {
                v["tiling"]["block_locations"] = u32::MAX.into();
                v["tiling"]["blocks"] = 1.into();
            }),
        ),
        of_store("windows-max", edit(&m, |v| v["tiling"]["windows"] = u32::MAX.into())),
        of_store("moments-swapped", moments_swapped),
        of_store(
            "name-hash-not-the-content",
            edit(&m, |v| {
                let e = tiles(v).iter_mut().find(|e| events(e)).expect("an events tile");
                let path = e["path"].as_str().unwrap_or("").replace(".wt", "").to_string();
                let stem = &path[..path.len().saturating_sub(16)];
                e["path"] = format!("{stem}0123456789abcdef.wt").into();
            }),
        ),
        of_store(
            "tile-listed-twice",
            edit(&m, |v| {
                let t = tiles(v);
                let e = t.iter().find(|e| events(e)).expect("an events tile").clone();
                t.push(e);
            }),
        ),
        of_part("part-shards-max", 1, edit(&p[1], |v| v["shards"] = u32::MAX.into())),
        of_part("part-shards-300m", 0, edit(&p[0], |v| v["shards"] = 300_000_000u32.into())),
        of_part("part-events-max", 1, edit(&p[1], |v| v["store"]["counts"]["event_records"] = u64::MAX.into())),
        of_part(
            "part-tile-listed-twice",
            1,
            edit(&p[1], |v| {
                let t = tiles(&mut v["store"]);
                let e = t.iter().find(|e| events(e)).expect("an events tile").clone();
                t.push(e);
            }),
        ),
        of_part(
            "part-tile-out-of-its-blocks",
            1,
            edit(&p[1], |v| {
                let e = tiles(&mut v["store"]).iter_mut().find(|e| events(e)).expect("an events tile");
                e["block"] = 0.into();
            }),
        ),
    ]
}

/// One input of the `store_manifest` fuzz target: the manifest, then each part, joined by
/// [`PART_SEPARATOR`].
pub fn fuzz_input(f: &Forgery) -> Vec<u8> {
    let mut out = f.manifest.clone();
    for p in &f.parts {
        out.extend_from_slice(PART_SEPARATOR);
        out.extend_from_slice(p);
    }
    out
}

/// What separates the manifest and the parts in a fuzz input.
pub const PART_SEPARATOR: &[u8] = b"\n--part--\n";
