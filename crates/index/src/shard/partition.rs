//! A store built in shards (issue #17): `weft index --shard K/N` and each MPI rank index the K-th of N
//! contiguous ranges of location blocks into a *part* (its tiles and a `part.json`), and [`crate::shard::merge`]
//! joins N parts into the store that one process would have written, byte for byte.
//!
//! The partition is by location block, deterministic: shard K of N gets blocks `B*K/N .. B*(K+1)/N` (B blocks
//! in all), shard 0 also the particle tiles (or, MPI ranks exchanging their particle-view intervals, each
//! shard those of its range of windows: [`ParticleShare`]) and shard N-1 the counter tiles (the build's two
//! global tasks).
//! A part's manifest holds the tiling (every shard computes the same), a hash of the trace's definitions
//! (shard 0's part holds the definitions themselves, the others only their hash, so the merge's input does not
//! grow as parts x locations) and its share of everything that adds up: counts, its locations' interval
//! counts and lanes, per-region totals; a location's
//! summaries and moments are whole in the one part that holds its block, so they need no reduction across
//! parts. The reader's whole-trace quantities (event records, warnings) go with shard 0.
//!
//! [`build_part`] cuts a part from a whole `Trace` through the build's seam
//! [`run_blocks`](crate::build::run_blocks); a streamed index (`store::stream` with a shard) makes the same
//! part decoding every location but spilling and tiling only the shard's (messages are matched by every
//! shard, since a part's tiles hold trace-wide message indices and receive ends). Plain Rust, no files.

use crate::build::{
    add_totals, block_particles, counter_tiles, manifest, particle_stats, particle_tiles, run_blocks, tiling,
    BlockIntervals, BuildOptions, Plan,
};
use crate::comms::CommTally;
use serde::{Deserialize, Serialize};
use std::ops::Range;
use weft_model::Trace;
use weft_store::format::columns::content_hash;
use weft_store::format::manifest::{Manifest, WarningList, FORMAT_VERSION};
use weft_store::StoreError;

pub const PART_FORMAT: &str = "weft-store-part";
/// The file a part folder is opened by (not `manifest.json`: a part is not a store).
pub const PART_MANIFEST: &str = "part.json";
/// The most shards an index is cut into (`--shard K/N`, a part's `shards`): a merge holds a part per shard,
/// so a larger count is a typo or a forgery, refused before anything is sized by it.
pub const MAX_SHARDS: u32 = 1 << 20;

/// Shard `index` of `count` (0-based: `--shard 0/4` .. `--shard 3/4`, as a Slurm job array's task ids).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl Shard {
    /// `K/N` with `0 <= K < N`.
    pub fn parse(s: &str) -> Result<Shard, String> {
        let bad = || format!("--shard {s:?}: expected K/N with 0 <= K < N (e.g. 0/4)");
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let (index, count) = (k.trim().parse::<u32>().map_err(|_| bad())?, n.trim().parse::<u32>().map_err(|_| bad())?);
        if count == 0 || index >= count {
            return Err(bad());
        }
        if count > MAX_SHARDS {
            return Err(format!("--shard {s:?}: at most {MAX_SHARDS} shards (a merge holds a part per shard)"));
        }
        Ok(Shard { index, count })
    }

    /// The shard's location blocks, of `blocks` in all.
    pub fn blocks(self, blocks: u32) -> Range<u32> {
        let at = |k: u32| (blocks as u64 * k as u64 / self.count.max(1) as u64) as u32;
        at(self.index)..at(self.index + 1)
    }

    /// Whether the shard writes the particle tiles (the first shard, from every block's intervals) when
    /// the shards cannot exchange them ([`ParticleShare::First`]).
    pub fn particles(self) -> bool {
        self.index == 0
    }

    /// The particle tiles' windows the shard writes, of `windows`, when the shards exchange their
    /// particle-view intervals ([`ParticleShare::ByWindow`]): the K-th of N contiguous ranges.
    pub fn windows(self, windows: u32) -> Range<u32> {
        let at = |k: u32| (windows as u64 * k as u64 / self.count.max(1) as u64) as u32;
        at(self.index)..at(self.index + 1)
    }

    /// Whether the shard writes the counter tiles (the last shard).
    pub fn counters(self) -> bool {
        self.index + 1 == self.count
    }
}

/// `part.json`: which shard, its blocks, and the part's manifest (the tiling, the shard's share of the
/// counts and totals, its tiles; shard 0's also the trace's definitions, the others' only their hash).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PartManifest {
    pub format: String,
    pub version: u32,
    pub shard: u32,
    pub shards: u32,
    /// The shard's location blocks, `[first, end)`.
    pub blocks: [u32; 2],
    /// The whole trace's content as every shard reads it: XXH3-128 of its counts, per-location interval
    /// counts and per-region totals. Parts of two traces with the same definitions (a generator's other
    /// seed) differ here.
    pub trace: String,
    /// XXH3-128 of the definitions every shard reads whole ([`definitions_hash`]): strings, processes,
    /// locations, regions, counter series. Shard 0's `store` holds them (and every location's interval count
    /// and lanes, 0 outside its blocks); another shard's holds none of them, and its `locations` only the
    /// `intervals` and `lanes` of its own blocks' locations, from the first of them on.
    pub definitions: String,
    pub store: Manifest,
    /// The index was asked for the wait states (`--waits`): the merge computes them (from the merged level-0
    /// tiles) when every part was, and refuses parts that disagree. Absent when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub waits: bool,
}

/// The hash of the definitions every part of one index shares (see [`PartManifest::definitions`]).
pub fn definitions_hash(m: &Manifest) -> String {
    let l = &m.locations;
    let defs = (&m.strings, &m.processes, (&l.process, &l.native_id, &l.name, &l.kind, &l.sort_key));
    let bytes = serde_json::to_vec(&(defs, &m.regions, &m.counter_series)).expect("definitions serialize");
    content_hash(&bytes)
}

impl PartManifest {
    /// Parse and check a part's manifest: format and version first, then the inner manifest's consistency.
    /// Errors name `part.json`.
    pub fn parse(bytes: &[u8]) -> Result<PartManifest, StoreError> {
        let file = PART_MANIFEST.to_string();
        weft_store::format::manifest::check_head(
            bytes,
            &file,
            PART_FORMAT,
            "a weft store part",
            weft_store::FORMAT_VERSION,
        )?;
        let p: PartManifest = serde_json::from_slice(bytes)
            .map_err(|e| StoreError::Corrupt { file: file.clone(), detail: e.to_string() })?;
        if p.shard == 0 {
            p.store.check().map_err(|detail| StoreError::Corrupt { file: file.clone(), detail })?;
        } else {
            let l = &p.store.locations;
            if !(l.lanes.is_empty() || l.lanes.len() == l.intervals.len()) || !l.process.is_empty() {
                return Err(StoreError::Corrupt {
                    file,
                    detail: "a shard's locations must be its interval counts and lanes only".into(),
                });
            }
        }
        if p.shards == 0 || p.shard >= p.shards || p.blocks[0] > p.blocks[1] || p.blocks[1] > p.store.tiling.blocks {
            return Err(StoreError::Corrupt {
                file,
                detail: format!(
                    "shard {}/{} of blocks {}..{} is not a shard",
                    p.shard, p.shards, p.blocks[0], p.blocks[1]
                ),
            });
        }
        if p.shards > MAX_SHARDS {
            return Err(StoreError::Corrupt {
                file,
                detail: format!("a shard of {}: an index has at most {MAX_SHARDS} shards", p.shards),
            });
        }
        weft_store::format::consistency::check(
            &p.store,
            weft_store::format::consistency::Scope::Part { blocks: p.blocks },
        )
        .map_err(|detail| StoreError::Corrupt { file, detail })?;
        Ok(p)
    }

    /// The file's bytes (pretty JSON, like the manifest).
    pub fn to_json(&self) -> Vec<u8> {
        let mut v = serde_json::to_vec_pretty(self).expect("a part manifest always serializes");
        v.push(b'\n');
        v
    }
}

/// A built part: its manifest and tile files (relative path, bytes).
#[derive(Clone, Debug)]
pub struct BuiltPart {
    pub part: PartManifest,
    pub tiles: Vec<(String, Vec<u8>)>,
}

/// Which shards write the particle tiles (one per time window over every location's particle-view
/// intervals). Either way the merged store is the same.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParticleShare {
    /// Shard 0 writes them all (independent shards, `--shard K/N`: shard 0 reads every location).
    First,
    /// Each shard writes those of its range of windows ([`Shard::windows`]), the extent of them all going
    /// with shard 0 (MPI ranks, which exchange their particle-view intervals).
    ByWindow,
}

/// Build shard `shard` of the store of `trace` (shard 0 writing the particle tiles).
pub fn build_part(trace: &Trace, o: &BuildOptions, shard: Shard) -> BuiltPart {
    build_part_with(trace, o, shard, ParticleShare::First)
}

/// Build shard `shard` of the store of `trace`, the particle tiles shared as `share` says.
pub fn build_part_with(trace: &Trace, o: &BuildOptions, shard: Shard, share: ParticleShare) -> BuiltPart {
    let plan = Plan::new(trace, tiling(trace, o));
    let t = plan.tiling;
    let blocks = shard.blocks(t.blocks);
    let nl = trace.locations.len() as u32;
    let mut entries = Vec::new();
    let mut tiles = Vec::new();
    let mut totals = vec![(0u64, 0u64); trace.regions.len()];
    for out in run_blocks(trace, &plan, blocks.clone(), o.threads) {
        add_totals(&mut totals, &out.region_totals);
        for (e, b) in out.tiles {
            tiles.push((e.path.clone(), b));
            entries.push(e);
        }
    }
    let mut global = Vec::new();
    let mut stats = None;
    let windows = match share {
        ParticleShare::First if shard.particles() => 0..t.windows,
        ParticleShare::First => 0..0,
        ParticleShare::ByWindow => shard.windows(t.windows),
    };
    if !windows.is_empty() || shard.index == 0 {
        let mut particles = Vec::new();
        for b in 0..t.blocks {
            block_particles(&plan, b, &BlockIntervals::of_trace(trace, &t, b), nl, &mut particles);
        }
        if shard.index == 0 {
            stats = particle_stats(trace, &particles);
        }
        global.extend(particle_tiles(particles, &t).into_iter().filter(|(e, _)| windows.contains(&e.window)));
    }
    if shard.counters() {
        global.extend(counter_tiles(trace, &t));
    }
    for (e, b) in global {
        tiles.push((e.path.clone(), b));
        entries.push(e);
    }
    let counts: Vec<u64> = trace.location_intervals.iter().map(|r| r.len() as u64).collect();
    let whole_totals = weft_analyses::summary::region_totals(trace);
    let mut m = manifest(trace, o, &plan, entries, &counts, &crate::build::location_lanes(trace), &whole_totals);
    m.particles = stats;
    let tally = CommTally::of_trace(trace);
    BuiltPart { part: part_manifest(m, trace, &tally, &counts, shard, &totals, o.waits), tiles }
}

/// A shard's `part.json` from the manifest of the whole trace (`m`: every location's interval counts
/// `counts` and the whole trace's region totals, the shard's tiles) and the shard's own region `totals`.
/// `trace` gives the instants (its intervals, messages and collectives are not read: a streamed index
/// passes the trace without them), `tally` the messages and collective rows per location.
pub(crate) fn part_manifest(
    mut m: Manifest,
    trace: &Trace,
    tally: &CommTally,
    counts: &[u64],
    shard: Shard,
    totals: &[(u64, u64)],
    waits: bool,
) -> PartManifest {
    let t = m.tiling;
    let blocks = shard.blocks(t.blocks);
    let nl = trace.locations.len() as u32;
    let first = t.block_range(blocks.start, nl).start;
    let locs = first as usize..t.block_range(blocks.end, nl).start.max(first) as usize;
    let whole = serde_json::to_vec(&(&m.counts, &m.locations.intervals, &m.region_totals)).expect("numbers serialize");
    let fingerprint = content_hash(&whole);
    let definitions = definitions_hash(&m);
    narrow(&mut m, trace, tally, counts, locs.clone(), shard, totals);
    if shard.index != 0 {
        // The definitions go with shard 0 only; this part keeps its own locations' counts and lanes.
        m.strings = Vec::new();
        m.processes = Default::default();
        m.regions = Default::default();
        m.counter_series = Default::default();
        let l = std::mem::take(&mut m.locations);
        m.locations.intervals = l.intervals[locs.clone()].to_vec();
        if !l.lanes.is_empty() {
            m.locations.lanes = l.lanes[locs].to_vec();
        }
    }
    PartManifest {
        format: PART_FORMAT.into(),
        version: FORMAT_VERSION,
        shard: shard.index,
        shards: shard.count,
        blocks: [blocks.start, blocks.end],
        trace: fingerprint,
        definitions,
        store: m,
        waits,
    }
}

/// The whole trace's manifest narrowed to the share of the locations `locs` (and of the global quantities
/// the shard carries).
fn narrow(
    m: &mut Manifest,
    trace: &Trace,
    tally: &CommTally,
    counts: &[u64],
    locs: Range<usize>,
    shard: Shard,
    totals: &[(u64, u64)],
) {
    let counters = shard.counters();
    let inside = |l: u32| locs.contains(&(l as usize));
    let c = &mut m.counts;
    c.intervals = counts[locs.clone()].iter().sum();
    c.instants = trace.instants.location.iter().filter(|l| inside(l.0)).count() as u64;
    let sum = |v: &[u64]| v.get(locs.clone()).map_or(0, |v| v.iter().sum::<u64>());
    c.messages = sum(&tally.sent);
    c.flows = sum(&tally.flows);
    c.collective_rows = sum(&tally.rows);
    // Operation ids are dense from 0: the count is the largest id + 1 (`Collectives::operations`), a max.
    c.collective_operations = tally.operations.get(locs.clone()).and_then(|v| v.iter().copied().max()).unwrap_or(0);
    if !counters {
        c.counter_samples = 0;
    }
    if shard.index != 0 {
        c.event_records = 0;
        m.warnings = WarningList::default();
    }
    for (l, n) in m.locations.intervals.iter_mut().enumerate() {
        if !locs.contains(&l) {
            *n = 0;
        }
    }
    for (l, n) in m.locations.lanes.iter_mut().enumerate() {
        if !locs.contains(&l) {
            *n = 0;
        }
    }
    m.region_totals = totals.iter().map(|&(n, ns)| [n, ns]).collect();
}

/// The shard whose blocks hold location `l` (blocks of `block_locations`, `blocks` in all).
pub(crate) fn owner(l: u32, block_locations: u32, blocks: u32, n: u32) -> usize {
    let b = l / block_locations.max(1);
    // Shard k holds blocks blocks*k/n .. blocks*(k+1)/n (`Shard::blocks`): the last k whose first is <= b.
    let first = |k: u32| (blocks as u64 * k as u64 / n.max(1) as u64) as u32;
    let (mut lo, mut hi) = (0u32, n.max(1) - 1);
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if first(mid) <= b {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    debug_assert!(Shard { index: lo, count: n }.blocks(blocks).contains(&b) || b >= blocks);
    lo as usize
}
