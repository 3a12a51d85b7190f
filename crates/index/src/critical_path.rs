//! The critical path of a store (issue #53, format 7; docs/diagnosis.md, "Critical path"), computed by
//! `weft index --waits` right after the wait states (`crate::waits::add_waits` ends here): the walk of
//! `analyses::diagnosis::critical_path::walk` through the store's waits, from the location of the run's last
//! event, then one more pass over the level-0 tiles cutting each location's time into its innermost
//! regions' pieces (`InnermostPieces`, the trace's own cut) and summing them against the path's segments
//! (`PathSums`), so `weft critical-path STORE` prints what `weft critical-path TRACE` prints. Kept as the
//! manifest's `critical_path` and one path tile per block holding path segments.
//!
//! Why at index time, not from the tiles at each ask: the imbalance needs every location's exclusive time
//! per region, a pass over every interval of the store (minutes on a billion events), and the walk needs
//! every wait; the index has both at hand.
//!
//! Memory: the path's segments (at most two per wait plus one: the one list of the step that grows with the
//! trace held whole, a few per wait on the path), one events tile at a time, and per location of a block
//! its stack of open intervals.

use crate::waits::{events_tiles, PutTile, ReadTile, MAX_TILE_RAW};
use weft_analyses::diagnosis::critical_path::{
    segments_by_location, CriticalPath, InnermostPieces, PathSegment, PathSums,
};
use weft_model::LocationId;
use weft_store::format::columns::unframe_tile;
use weft_store::format::critical_path::{encode_path, PathSummary};
use weft_store::format::events::{decode_events, TileInterval};
use weft_store::format::manifest::{Manifest, TileKind};
use weft_store::format::tile::tile;

/// The location of the run's last event from each location's latest event (`latest`, `None` without
/// events): as `critical_path::last_location` picks it (ties: the lowest location; none seen: location 0).
pub fn last_location(latest: &[Option<u64>]) -> Option<LocationId> {
    if latest.is_empty() {
        return None;
    }
    let best = (0..latest.len())
        .filter_map(|l| latest[l].map(|t| (l, t)))
        .max_by_key(|&(l, t)| (t, std::cmp::Reverse(l)))
        .map_or(0, |(l, _)| l);
    Some(LocationId(best as u32))
}

/// The critical path `path` of the store `m` (walked through its waits by `crate::waits`, from the location
/// of [`last_location`]) summed: the path tiles written through `put` and listed, the manifest's
/// `critical_path` set.
pub fn add_path(m: &mut Manifest, read: ReadTile, put: PutTile, path: &CriticalPath) -> Result<(), String> {
    let n = m.locations.process.len();
    let (segments_of, by_location) = segments_by_location(path, n);
    let mut sums = PathSums::new(m.regions.name.len());
    let t = m.tiling;
    let tiles = events_tiles(m);
    let mut entries = Vec::new();
    for b in 0..t.blocks {
        let locs = t.block_range(b, n as u32);
        let has = |l: usize| m.locations.intervals[l] > 0;
        let summed = |l: usize| has(l) || !segments_of[l].is_empty();
        let mut pieces: Vec<InnermostPieces> = locs.clone().map(|_| InnermostPieces::default()).collect();
        for l in locs.clone().map(|l| l as usize).filter(|&l| summed(l)) {
            sums.location(has(l));
        }
        for e in &tiles[b as usize] {
            let bytes = read(&e.path)?;
            let (_, payload) =
                unframe_tile(&bytes, m.version as u8, MAX_TILE_RAW).map_err(|c| format!("{}: {c}", e.path))?;
            let tile = decode_events(&payload, locs.clone(), t.window_span(e.window), m)
                .map_err(|c| format!("{}: {c}", e.path))?;
            for &TileInterval { location, region, start_ns, dur_ns, depth } in &tile.intervals {
                let l = location.index();
                let mut out = |a, b, r| sums.piece(true, &segments_of[l], a, b, r);
                pieces[l - locs.start as usize].push(start_ns, start_ns + dur_ns, depth, region.0, &mut out);
            }
        }
        for (k, p) in pieces.into_iter().enumerate() {
            let l = locs.start as usize + k;
            if summed(l) {
                p.finish(m.span_ns, &mut |a, b, r| sums.piece(has(l), &segments_of[l], a, b, r));
            }
        }
        let block: Vec<PathSegment> = locs.clone().flat_map(|l| segments_of[l as usize].iter().copied()).collect();
        if !block.is_empty() {
            let (e, bytes) = tile(TileKind::CriticalPath, 0, b, 0, block.len() as u64, encode_path(&block, &locs));
            put(&e.path, &bytes)?;
            entries.push(e);
        }
    }
    crate::stream::ranged::return_free_memory();
    let name = |r: u32| {
        let s = m.regions.name.get(r as usize).and_then(|&s| m.strings.get(s as usize));
        s.map_or("", String::as_str)
    };
    let report = sums.report(name, by_location, path.length_ns);
    m.tiles.extend(entries);
    m.critical_path = Some(PathSummary { report, segments: path.segments.len() as u64 });
    Ok(())
}
