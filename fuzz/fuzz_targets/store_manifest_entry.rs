// The entry shared by the `store_manifest` fuzz target and tests/store_hostile.rs (included with `#[path]`):
// one input is a store's manifest.json, then part.json files, separated by `\n--part--\n`. A manifest is
// refused or opened (its tiles' reads then fail, naming the tile, never panic); parts are refused or merged,
// and what merges is a manifest a reader accepts: the merge never writes what `Manifest::parse` refuses.

use weft::analyses::busy::BusyDefinition;
use weft::index::{merge, PartManifest};
use weft::store::{Manifest, MemoryStore, Store, MANIFEST};

#[path = "common.rs"]
mod common;
use common::split;

/// Separates the manifest and the parts in one input.
pub const PART_SEPARATOR: &[u8] = b"\n--part--\n";

/// One input, as above, with `tiles` (path, bytes) as the store's files beside the manifest.
pub fn run_with(data: &[u8], tiles: &[(String, Vec<u8>)]) {
    let pieces = split(data, PART_SEPARATOR, 9);
    if let Ok(m) = Manifest::parse(pieces[0]) {
        let mut files: std::collections::BTreeMap<String, Vec<u8>> = tiles.iter().cloned().collect();
        files.insert(MANIFEST.into(), pieces[0].to_vec());
        let store = Store::open(MemoryStore { files }).expect("a manifest that parses opens");
        assert_eq!(store.manifest, m);
        let _ = store.skeleton();
        let _ = store.moments(&BusyDefinition::Compute);
        for e in store.manifest.tiles.iter().take(64) {
            let _ = store.payload(e);
        }
        let _ = store.to_trace();
    }
    let parts: Vec<(String, PartManifest)> = pieces[1..]
        .iter()
        .enumerate()
        .filter_map(|(k, b)| PartManifest::parse(b).ok().map(|p| (format!("p{k}"), p)))
        .collect();
    if parts.is_empty() {
        return;
    }
    if let Ok(merged) = merge(&parts) {
        let json = weft::index::BuiltStore { manifest: merged.manifest, tiles: Vec::new() }.manifest_json();
        if let Err(e) = Manifest::parse(&json) {
            panic!("the merge made a manifest a reader refuses: {e}");
        }
    }
}

#[allow(dead_code)]
pub fn run(data: &[u8]) {
    run_with(data, &[]);
}
