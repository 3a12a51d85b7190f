//! A manifest's tile list checked against its tiling and counts before anything reads a tile (issue #51):
//! every tile's kind, level, block and window in range and listed once, its path the one its kind, place and
//! content hash give, its record count no more than its bytes can hold; in a whole store every block's
//! moments tile and every summary tile (and, format 8 on, call-path tile) of every level present, each block's events tiles' records adding
//! up to its locations' interval counts, the counter tiles' records to the manifest's count.
//! All sums checked. A forged manifest is then refused naming what disagrees, instead of read as rows
//! missing, 0 ns busy or another block's numbers, and a count from it (windows, blocks) sizes nothing
//! before the tiles listed bound it: every window of every block has its summary tiles.
//!
//! Plain Rust over the parsed manifest, no files; O(tiles log tiles). It must not read a tile: the tiles'
//! own frames and hashes are checked where they are read ([`crate::read`]) and merged.

use crate::format::callpaths::CALLPATHS_VERSION;
use crate::format::manifest::levels;
use crate::format::manifest::{check_head, Manifest, TileEntry, TileKind, FORMAT_NAME, MANIFEST, OLDEST_READ_VERSION};
use crate::StoreError;

/// Most bins a pyramid tile holds (the index writes 256).
const MAX_BINS_PER_TILE: u32 = 1 << 16;
/// Each record of any tile takes at least one byte of payload, and LZ4 expands at most 255 times.
const RECORDS_PER_BYTE: u64 = 255;

/// What a manifest's tiles must cover.
#[derive(Clone, Copy, Debug)]
pub enum Scope {
    /// A store: every block and window as above.
    Store,
    /// A part of a sharded index (`part.json`): its own location blocks' tiles only, each in range; the
    /// merged manifest is then checked as a store.
    Part { blocks: [u32; 2] },
}

/// Check `m`'s tiles against its tiling and counts (its definitions are checked by `Manifest::check`).
pub fn check(m: &Manifest, scope: Scope) -> Result<(), String> {
    let t = &m.tiling;
    // (A part of shard 1 or later carries no definitions, so `Manifest::check` has not seen its tiling.)
    if t.block_locations == 0 || t.window_ns == 0 || t.windows == 0 || t.bins_per_tile == 0 {
        return Err("the tiling has a zero size".into());
    }
    if t.bins_per_tile > MAX_BINS_PER_TILE {
        return Err(format!("the tiling has {} bins per tile, at most {MAX_BINS_PER_TILE}", t.bins_per_tile));
    }
    // Level bins and widths are products of these: they must not wrap.
    if t.window_ns.checked_mul(t.windows as u64).is_none_or(|s| s > u64::MAX / 4) {
        return Err(format!("the tiling's {} windows of {} ns pass the largest time", t.windows, t.window_ns));
    }
    if m.levels != levels(t) {
        return Err("the pyramid levels are not the tiling's".into());
    }
    let nl = m.locations.process.len() as u32;
    let nseries = m.counter_series.name.len() as u64;
    let series_blocks = match (m.version >= 4, nseries) {
        (_, 0) => 0,
        (true, n) => n.div_ceil(t.block_series.max(1) as u64),
        // (Formats 2 and 3 kept one counter tile per window, of block 0.)
        (false, n) => n,
    };
    let mut keys = Vec::with_capacity(m.tiles.len());
    for (i, e) in m.tiles.iter().enumerate() {
        check_entry(m, e, series_blocks, scope)?;
        keys.push((e.kind, e.level, e.block, e.window, i));
    }
    keys.sort_unstable();
    let place = |k: &(TileKind, u32, u32, u32, usize)| (k.0, k.1, k.2, k.3);
    if let Some(w) = keys.windows(2).find(|w| place(&w[0]) == place(&w[1])) {
        return Err(format!("tiles {} and {} are the same tile", m.tiles[w[0].4].path, m.tiles[w[1].4].path));
    }
    let total_bytes = m.tiles.iter().try_fold(0u64, |s, e| s.checked_add(e.bytes)).ok_or("tile bytes overflow")?;
    let c = &m.counts;
    let held = total_bytes.saturating_mul(RECORDS_PER_BYTE);
    // (The event records a reader decoded need not leave a record in any tile.)
    for (what, n) in [
        ("intervals", c.intervals),
        ("instants", c.instants),
        ("messages", c.messages),
        ("collective rows", c.collective_rows),
        ("counter samples", c.counter_samples),
    ] {
        if n > held {
            return Err(format!("{n} {what}, more than its {total_bytes} bytes of tiles can hold"));
        }
    }
    if c.flows > c.messages || c.collective_operations > c.collective_rows {
        return Err("the counts of flows or collective operations pass their totals".into());
    }
    if let Scope::Store = scope {
        check_complete(m, nl)?;
    }
    Ok(())
}

/// One entry in range for its kind, its path its kind's, its records bounded by its bytes.
fn check_entry(m: &Manifest, e: &TileEntry, series_blocks: u64, scope: Scope) -> Result<(), String> {
    let t = &m.tiling;
    let bad = |what: String| Err(format!("tile {}: {what}", e.path));
    let level = |l: u32| match l.checked_sub(1).and_then(|k| m.levels.get(k as usize)) {
        Some(lv) => Ok(lv.tiles),
        None => Err(format!("tile {}: level {l}, the store has levels 1 to {}", e.path, m.levels.len())),
    };
    // (levels allowed, blocks, windows) by kind.
    let (level_ok, blocks, windows) = match e.kind {
        TileKind::Events => (e.level == 0, t.blocks as u64, t.windows as u64),
        TileKind::Moments => (e.level == 0, t.blocks as u64, 1),
        TileKind::Particles => (e.level == 0, 1, t.windows as u64),
        TileKind::Counters => (e.level == 0, series_blocks, t.windows as u64),
        TileKind::Summary => (true, t.blocks as u64, level(e.level)? as u64),
        TileKind::CounterSummary => (true, series_blocks, level(e.level)? as u64),
        TileKind::Waits => (e.level == 0, t.blocks as u64, 1),
        TileKind::WaitSummary => (true, t.blocks as u64, level(e.level)? as u64),
        TileKind::CriticalPath => (e.level == 0, t.blocks as u64, 1),
        TileKind::CallPaths => (true, t.blocks as u64, level(e.level)? as u64),
    };
    if !level_ok {
        return bad(format!("a {:?} tile at level {}", e.kind, e.level));
    }
    // A part's tiles of other kinds than its blocks' are in range of the whole store's (its counter
    // series are shard 0's to name).
    let blocks = match (scope, e.kind) {
        (Scope::Part { .. }, TileKind::Counters | TileKind::CounterSummary) if m.counter_series.name.is_empty() => {
            u32::MAX as u64 + 1
        }
        _ => blocks,
    };
    if e.block as u64 >= blocks {
        return bad(format!("block {}, the store has {blocks}", e.block));
    }
    if e.window as u64 >= windows {
        return bad(format!("window (or tile) {}, there are {windows}", e.window));
    }
    if let (
        Scope::Part { blocks: [b0, b1] },
        TileKind::Events | TileKind::Summary | TileKind::Moments | TileKind::CallPaths,
    ) = (scope, e.kind)
    {
        if !(b0..b1).contains(&e.block) {
            return bad(format!("block {}, the part holds blocks {b0}..{b1}", e.block));
        }
    }
    // The name carries the content hash (and, from format 5, exactly the tile's place).
    let expected = e.kind.path(e.level, e.block, e.window, &e.hash);
    let named = if m.version >= 5 { e.path == expected } else { e.path.ends_with(&format!(".{}.wt", &e.hash[..16])) };
    if !named {
        return bad(format!("not the name of its kind, place and hash ({expected})"));
    }
    let least = crate::format::columns::frame_len(m.version as u8) as u64;
    if e.bytes < least {
        return bad(format!("{} bytes, less than a tile's frame ({least})", e.bytes));
    }
    if e.records > e.bytes.saturating_mul(RECORDS_PER_BYTE) {
        return bad(format!("{} records, more than its {} bytes can hold", e.records, e.bytes));
    }
    Ok(())
}

/// Every block's moments and summary tiles present, the events tiles' records adding up to each block's
/// locations' intervals, the counter tiles' to the count of samples.
fn check_complete(m: &Manifest, nl: u32) -> Result<(), String> {
    let t = &m.tiling;
    let nb = t.blocks as usize;
    let nlev = m.levels.len();
    let (mut moments, mut summaries) = (vec![0u32; nb], vec![0u64; nb * nlev]);
    let mut callpaths = vec![0u64; nb * nlev];
    let mut events = vec![0u64; nb];
    let (mut samples, mut waits, mut segments) = (0u64, 0u64, 0u64);
    let sum = |a: u64, b: u64, what: &str| a.checked_add(b).ok_or_else(|| format!("{what} records overflow"));
    for e in &m.tiles {
        let b = e.block as usize;
        let locs = t.block_range(e.block, nl).len() as u64;
        match e.kind {
            TileKind::Events => events[b] = sum(events[b], e.records, "events tiles'")?,
            TileKind::Moments => {
                moments[b] += 1;
                if e.records != locs {
                    return Err(format!(
                        "tile {}: {} records, block {} has {locs} locations",
                        e.path, e.records, e.block
                    ));
                }
            }
            TileKind::Summary => {
                let lv = &m.levels[e.level as usize - 1];
                let per = t.bins_per_tile as u64;
                let bins = lv.bins.min((e.window as u64 + 1) * per) - e.window as u64 * per;
                summaries[b * nlev + e.level as usize - 1] += 1;
                if e.records != locs * bins {
                    return Err(format!("tile {}: {} records, its {locs} locations x {bins} bins", e.path, e.records));
                }
            }
            TileKind::Counters => samples = sum(samples, e.records, "counter tiles'")?,
            TileKind::Waits => waits = sum(waits, e.records, "waits tiles'")?,
            TileKind::CriticalPath => segments = sum(segments, e.records, "path tiles'")?,
            TileKind::CallPaths => callpaths[b * nlev + e.level as usize - 1] += 1,
            // (The particle tiles' records are not `particles.events`: the view leaves some out.)
            TileKind::Particles | TileKind::CounterSummary | TileKind::WaitSummary => {}
        }
    }
    for b in 0..t.blocks {
        let (bi, locs) = (b as usize, t.block_range(b, nl));
        if moments[bi] != 1 {
            return Err(format!("block {b} has no moments tile"));
        }
        for (k, lv) in m.levels.iter().enumerate() {
            if summaries[bi * nlev + k] != lv.tiles as u64 {
                return Err(format!(
                    "block {b} has {} of level {}'s {} summary tiles",
                    summaries[bi * nlev + k],
                    lv.level,
                    lv.tiles
                ));
            }
            // (Format 8 on: the call-path tiles beside the summaries, every level's.)
            let want = if m.version >= CALLPATHS_VERSION { lv.tiles as u64 } else { 0 };
            if callpaths[bi * nlev + k] != want {
                return Err(format!(
                    "block {b} has {} of level {}'s {want} call-path tiles",
                    callpaths[bi * nlev + k],
                    lv.level
                ));
            }
        }
        let intervals = m.locations.intervals[locs.start as usize..locs.end as usize]
            .iter()
            .try_fold(0u64, |s, &n| s.checked_add(n))
            .ok_or("interval counts overflow")?;
        if events[bi] != intervals {
            return Err(format!("block {b}'s events tiles hold {} intervals, its locations {intervals}", events[bi]));
        }
    }
    if samples != m.counts.counter_samples {
        return Err(format!("the counter tiles hold {samples} samples, the counts say {}", m.counts.counter_samples));
    }
    // The waits tiles hold the waits the summary counts (none without a summary: a store built before them).
    let counted = m.waits.as_ref().map_or(0, |w| w.patterns.iter().map(|p| p[1]).sum::<u64>());
    if waits != counted {
        return Err(format!("the waits tiles hold {waits} waits, the manifest's waits count {counted}"));
    }
    let counted = m.critical_path.as_ref().map_or(0, |c| c.segments);
    if segments != counted {
        return Err(format!("the path tiles hold {segments} segments, the manifest's critical_path counts {counted}"));
    }
    Ok(())
}

/// Reading a manifest ends with this room's check, so it lives here: the manifest's own module knows nothing
/// of consistency (no import circle in the store's format).
impl Manifest {
    /// Parse and check a manifest: format and version first (a store of another version is named as such),
    /// then that every definition list is consistent, so decoding may index them without checks, then its
    /// tiles against its tiling and counts (`store::consistency`), so every reader sees a whole store.
    pub fn parse(bytes: &[u8]) -> Result<Manifest, StoreError> {
        let file = MANIFEST.to_string();
        check_head(bytes, &file, FORMAT_NAME, "a weft store manifest", OLDEST_READ_VERSION)?;
        let m: Manifest = serde_json::from_slice(bytes)
            .map_err(|e| StoreError::Corrupt { file: file.clone(), detail: e.to_string() })?;
        m.check().map_err(|detail| StoreError::Corrupt { file: file.clone(), detail })?;
        check(&m, Scope::Store).map_err(|detail| StoreError::Corrupt { file, detail })?;
        Ok(m)
    }
}
