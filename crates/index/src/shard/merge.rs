//! N parts of a store (`weft index --shard K/N`, or MPI ranks: `store::partition`) joined into the manifest
//! one process would have written: the parts are checked to be of one trace (the hash of its definitions,
//! which shard 0's part alone holds, and a content fingerprint), one format version and one tiling, with
//! every shard 0..N once; counts and per-location interval counts are summed, per-region totals summed, the
//! collective operation count is the max, warnings are reduced like `Warnings::merge`, and the tile list is
//! the build's order (block tiles by block, then particles, then counters).
//!
//! Reads only the parts' manifests, never a tile: its cost is O(definitions + locations + parts x regions +
//! tiles), not the trace's length nor parts x locations (the tiles are moved or linked by the caller). A
//! location's summaries and moments are whole in one part, so there is nothing to reduce in them (moment accumulators of the same location split by time would
//! merge by the parallel-axis rule, `MomentAccumulator::merge`, but the partition is by location).
//! Plain Rust, no files.

use crate::shard::partition::{PartManifest, Shard};
use thiserror::Error;
use weft_store::format::manifest::{Manifest, TileEntry, TileKind, WarningList};

/// Why parts do not merge, naming the part (its folder, as the caller gave it).
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum MergeError {
    #[error("no parts to merge")]
    NoParts,
    #[error("{part}: a part of another trace or index than {first} (its {what} differs)")]
    OtherTrace { part: String, first: String, what: &'static str },
    #[error("{part}: shard {shard}/{shards}, but {first} is a shard of {expected}")]
    ShardCount { part: String, shard: u32, shards: u32, first: String, expected: u32 },
    #[error("{part} and {other} are both shard {shard}/{shards}")]
    Duplicate { part: String, other: String, shard: u32, shards: u32 },
    #[error("shard(s) {missing} of {shards} missing (give every part of the index)")]
    Missing { missing: String, shards: u32 },
    #[error("{part}: its {what} overflow the sum of the parts")]
    Overflow { part: String, what: &'static str },
    #[error("the parts do not make a whole store: {detail}")]
    Inconsistent { detail: String },
    #[error("{part} and {first}: one indexed with --waits, the other without (index every part the same way)")]
    Waits { part: String, first: String },
    #[error("{part}: shard {shard}/{shards} holds blocks {found:?}, the partition gives it {expected:?}")]
    Blocks { part: String, shard: u32, shards: u32, found: [u32; 2], expected: [u32; 2] },
}

/// The merged manifest, and for each of its tiles the index (in the caller's list) of the part that has it.
#[derive(Clone, Debug)]
pub struct Merged {
    pub manifest: Manifest,
    pub tile_part: Vec<usize>,
    /// Every part asked for the wait states (`--waits`): the merged store is to have them (the caller adds
    /// them from the merged level-0 tiles, `crate::waits`).
    pub waits: bool,
}

/// Merge `parts` (name, manifest), in any order.
pub fn merge(parts: &[(String, PartManifest)]) -> Result<Merged, MergeError> {
    let (first_name, first) = parts.first().ok_or(MergeError::NoParts)?;
    let n = first.shards;
    for (name, p) in parts {
        if p.shards != n {
            return Err(MergeError::ShardCount {
                part: name.clone(),
                shard: p.shard,
                shards: p.shards,
                first: first_name.clone(),
                expected: n,
            });
        }
        if p.waits != first.waits {
            return Err(MergeError::Waits { part: name.clone(), first: first_name.clone() });
        }
    }
    // By shard, sized by the parts given, never by the count a part claims.
    let mut by_shard: Vec<usize> = (0..parts.len()).collect();
    by_shard.sort_by_key(|&i| parts[i].1.shard);
    if let Some(w) = by_shard.windows(2).find(|w| parts[w[0]].1.shard == parts[w[1]].1.shard) {
        let shard = parts[w[0]].1.shard;
        return Err(MergeError::Duplicate {
            part: parts[w[1]].0.clone(),
            other: parts[w[0]].0.clone(),
            shard,
            shards: n,
        });
    }
    if by_shard.len() as u64 != n as u64 {
        let present: Vec<u32> = by_shard.iter().map(|&i| parts[i].1.shard).collect();
        return Err(MergeError::Missing { missing: missing_shards(&present, n), shards: n });
    }
    let order = by_shard;
    // Shard 0's part holds the definitions; every other part their hash.
    let (base_name, base) = (&parts[order[0]].0, &parts[order[0]].1);
    let nl = base.store.locations.process.len();
    for &i in &order {
        let (name, p) = &parts[i];
        let other = |what| Err(MergeError::OtherTrace { part: name.clone(), first: base_name.clone(), what });
        if p.trace != base.trace {
            return other("content (counts and totals)");
        }
        if let Some(what) = differs(&base.store, &p.store) {
            return other(what);
        }
        if p.definitions != base.definitions {
            return other("definitions (strings, processes, locations, regions or counter series)");
        }
        let expected = Shard { index: p.shard, count: n }.blocks(p.store.tiling.blocks);
        if p.blocks != [expected.start, expected.end] {
            return Err(MergeError::Blocks {
                part: name.clone(),
                shard: p.shard,
                shards: n,
                found: p.blocks,
                expected: [expected.start, expected.end],
            });
        }
        let (l, own) = (&p.store.locations, share_range(p, nl));
        if l.intervals.len() != own.len() || !(l.lanes.is_empty() || l.lanes.len() == own.len()) {
            return other("location count");
        }
    }
    let mut m = base.store.clone();
    m.counts = Default::default();
    m.locations.intervals.iter_mut().for_each(|x| *x = 0);
    m.locations.lanes.iter_mut().for_each(|x| *x = 0);
    m.region_totals.iter_mut().for_each(|x| *x = [0, 0]);
    m.warnings = WarningList::default();
    m.tiles = Vec::new();
    // The particle view's extent comes with the part that tiled the particles (the first shard).
    m.particles = parts.iter().find_map(|p| p.1.store.particles);
    let mut tile_part = Vec::new();
    for &i in &order {
        let (name, s) = (&parts[i].0, &parts[i].1.store);
        let add = |a: &mut u64, b: u64, what: &'static str| match a.checked_add(b) {
            Some(x) => {
                *a = x;
                Ok(())
            }
            None => Err(MergeError::Overflow { part: name.clone(), what }),
        };
        let (c, d) = (&mut m.counts, &s.counts);
        add(&mut c.event_records, d.event_records, "event records")?;
        add(&mut c.intervals, d.intervals, "intervals")?;
        add(&mut c.instants, d.instants, "instants")?;
        add(&mut c.messages, d.messages, "messages")?;
        add(&mut c.flows, d.flows, "flows")?;
        add(&mut c.collective_rows, d.collective_rows, "collective rows")?;
        c.collective_operations = c.collective_operations.max(d.collective_operations);
        add(&mut c.counter_samples, d.counter_samples, "counter samples")?;
        let at = share_range(&parts[i].1, nl).start;
        for (a, b) in m.locations.intervals[at..].iter_mut().zip(&s.locations.intervals) {
            add(a, *b, "a location's intervals")?;
        }
        // Each location's lanes come from the one part that tiled it (0 in the others).
        for (a, b) in m.locations.lanes.iter_mut().skip(at).zip(&s.locations.lanes) {
            *a = (*a).max(*b);
        }
        for (a, b) in m.region_totals.iter_mut().zip(&s.region_totals) {
            add(&mut a[0], b[0], "a region's intervals")?;
            add(&mut a[1], b[1], "a region's time")?;
        }
        merge_warnings(&mut m.warnings, &s.warnings);
    }
    // The build's tile order: every block's tiles by block (shards hold contiguous blocks in shard order),
    // then the particle tiles, then the counter tiles.
    let is_block = |e: &TileEntry| {
        matches!(e.kind, TileKind::Events | TileKind::Summary | TileKind::Moments | TileKind::CallPaths)
    };
    for pass in [0, 1, 2] {
        for &i in &order {
            for e in &parts[i].1.store.tiles {
                let take = match pass {
                    0 => is_block(e),
                    1 => e.kind == TileKind::Particles,
                    _ => matches!(e.kind, TileKind::Counters | TileKind::CounterSummary),
                };
                if take {
                    m.tiles.push(e.clone());
                    tile_part.push(i);
                }
            }
        }
    }
    // The parts' claims together must make a whole store, as a reader will check it.
    m.check()
        .and_then(|()| weft_store::format::consistency::check(&m, weft_store::format::consistency::Scope::Store))
        .map_err(|detail| MergeError::Inconsistent { detail })?;
    Ok(Merged { manifest: m, tile_part, waits: first.waits })
}

/// The shards of `0..n` not in `present` (sorted, distinct), said briefly: how many, and the first few
/// ranges (a part claiming 300,000,000 shards must not make a line of them).
fn missing_shards(present: &[u32], n: u32) -> String {
    const SHOWN: usize = 4;
    let mut ranges = Vec::new();
    let mut next = 0u64;
    for &k in present.iter().chain(std::iter::once(&n)) {
        if (k as u64) > next {
            ranges.push((next, k as u64 - 1));
        }
        next = k as u64 + 1;
    }
    let count: u64 = ranges.iter().map(|(a, b)| b - a + 1).sum();
    let mut said: Vec<String> =
        ranges.iter().take(SHOWN).map(|&(a, b)| if a == b { a.to_string() } else { format!("{a}-{b}") }).collect();
    if ranges.len() > SHOWN {
        said.push(format!("... ({} more ranges, {count} shards in all)", ranges.len() - SHOWN));
    }
    said.join(", ")
}

/// The locations whose interval counts and lanes part `p` lists (`nl` locations in all): every one for
/// shard 0 (0 outside its blocks), its blocks' for another shard.
fn share_range(p: &PartManifest, nl: usize) -> std::ops::Range<usize> {
    if p.shard == 0 {
        return 0..nl;
    }
    let t = &p.store.tiling;
    let first = t.block_range(p.blocks[0], nl as u32).start as usize;
    first..(t.block_range(p.blocks[1], nl as u32).start as usize).max(first)
}

/// What two parts' manifests disagree on among the things every part of one index holds whole (the
/// definitions are compared by their hash, [`PartManifest::definitions`]).
fn differs(a: &Manifest, b: &Manifest) -> Option<&'static str> {
    if (a.format.as_str(), a.version) != (b.format.as_str(), b.version) {
        Some("format version")
    } else if a.source.format != b.source.format {
        Some("source format")
    } else if (&a.origin_ns, a.span_ns) != (&b.origin_ns, b.span_ns) {
        Some("time span")
    } else if a.tiling != b.tiling || a.levels != b.levels {
        Some("tiling (--block)")
    } else {
        None
    }
}

/// As `Warnings::merge`: counts summed by kind in order of first appearance, at most 5 examples per kind.
fn merge_warnings(into: &mut WarningList, from: &WarningList) {
    const EXAMPLES_PER_KIND: usize = 5;
    for &(k, n) in &from.counts {
        match into.counts.iter_mut().find(|(j, _)| *j == k) {
            Some((_, m)) => *m = m.saturating_add(n),
            None => into.counts.push((k, n)),
        }
    }
    for (k, text) in &from.examples {
        if into.examples.iter().filter(|(j, _)| j == k).count() < EXAMPLES_PER_KIND {
            into.examples.push((*k, text.clone()));
        }
    }
}
