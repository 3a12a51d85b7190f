//! A trace cut into store tiles: level 0 (exact records of a location block over a time window), the summary
//! pyramid, moments, particles and counters; plus the manifest. Work is split by location block (and two
//! global tasks, particles and counters) over `threads` std threads; every task's tiles are put in a fixed
//! order afterwards, so the bytes do not depend on the thread count (nor would they on a `--shard K/N` split
//! by blocks). An interval is stored once as the window's own, in its start window (a message in its send
//! window, a collective row in its start window); each later window it is still open at the start of carries
//! a copy with its trace index (the tile's open section), so a view of a window needs no tile before it.
//!
//! Returns bytes and paths; it must not write files (the CLI does, under a temporary name renamed last).

use crate::build::pyramid::Level1Builder;
use crate::comms::{BlockComms, TraceComms};
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, OnceLock, PoisonError};
use weft_analyses::busy::{BusyDefinition, BusyInterval, BusyScanner, BusySweep};
use weft_analyses::moments::MomentAccumulator;
use weft_analyses::particles::{EventFrame, EventSelection};
use weft_analyses::summary::SummaryCounts;
use weft_model::{RegionId, Trace};
use weft_store::counters::SampleRow;
use weft_store::format::columns::ColumnWriter;
use weft_store::format::events::{encode_events, EventsSelection};
use weft_store::format::manifest::*;
use weft_store::format::moments::encode_moments;
use weft_store::format::particles::{encode_particles, Particle};
use weft_store::format::summary::encode_summary;
use weft_store::format::tile::tile;
use weft_store::pyramid::Bins;

pub mod callpaths;
pub mod counters;
pub mod pyramid;

pub use weft_store::format::events::BlockIntervals;

#[derive(Clone, Debug)]
pub struct BuildOptions {
    /// Locations per block.
    pub block_locations: u32,
    /// About how many intervals a level-0 tile of the busiest block holds (sets the window length).
    pub tile_intervals: u64,
    /// Bins per summary tile (level 1 has this many bins per window).
    pub bins_per_tile: u32,
    pub threads: usize,
    /// The input's name, as the manifest's `source.name`.
    pub source_name: String,
    /// Compute the wait states into the store (`weft index --waits`; `crate::waits`, the last step: waits
    /// tiles, the waiting pyramid, the manifest's `waits`). Off by default: the step holds its messages and
    /// collective members in memory, not yet within `--memory`, and costs several times the tiling.
    pub waits: bool,
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            block_locations: 64,
            tile_intervals: 1 << 18,
            bins_per_tile: 256,
            threads: 1,
            source_name: String::new(),
            waits: false,
        }
    }
}

/// A built store: the manifest and the tile files (relative path, bytes) in manifest order.
#[derive(Clone, Debug)]
pub struct BuiltStore {
    pub manifest: Manifest,
    pub tiles: Vec<(String, Vec<u8>)>,
}

impl BuiltStore {
    /// The manifest's file bytes (pretty JSON: a person may read it).
    pub fn manifest_json(&self) -> Vec<u8> {
        let mut v = serde_json::to_vec_pretty(&self.manifest).expect("a manifest always serializes");
        v.push(b'\n');
        v
    }

    pub fn total_bytes(&self) -> u64 {
        self.tiles.iter().map(|(_, b)| b.len() as u64).sum::<u64>() + self.manifest_json().len() as u64
    }
}

/// The tiling for a trace: blocks of `block_locations`; a power-of-two number of windows so that the busiest
/// block's level-0 tiles hold about `tile_intervals` intervals; windows a whole number of level-1 bins.
pub fn tiling(trace: &Trace, o: &BuildOptions) -> Tiling {
    let counts: Vec<u64> = trace.location_intervals.iter().map(|r| r.len() as u64).collect();
    tiling_of(&counts, trace.span_ns, trace.counters.series_name.len() as u32, o)
}

/// [`tiling`] from each location's interval count and the span: what a streamed index knows after its first
/// pass.
pub fn tiling_of(interval_counts: &[u64], span_ns: u64, series: u32, o: &BuildOptions) -> Tiling {
    let nl = interval_counts.len() as u32;
    let bl = o.block_locations.max(1);
    let blocks = nl.div_ceil(bl);
    let busiest = (0..blocks)
        .map(|b| {
            let r = (b * bl) as usize..((b + 1) * bl).min(nl) as usize;
            interval_counts[r].iter().sum::<u64>()
        })
        .max()
        .unwrap_or(0);
    let windows = busiest.div_ceil(o.tile_intervals.max(1)).clamp(1, 1 << 16).next_power_of_two() as u32;
    let bins = o.bins_per_tile.max(1) as u64;
    let window_ns = ((span_ns + 1).div_ceil(windows as u64)).div_ceil(bins) * bins;
    let block_series = weft_store::counters::block_series(bl, series, nl);
    Tiling { block_locations: bl, blocks, window_ns, windows, bins_per_tile: o.bins_per_tile.max(1), block_series }
}

/// A tile made: its entry and its bytes.
type Tile = (TileEntry, Vec<u8>);
type Tiles = Vec<Tile>;
/// A location's level-1 bins, moments (compute, then any) and call paths per window.
pub struct Summarized {
    pub bins: Bins,
    pub moments: [MomentAccumulator; 2],
    pub paths: callpaths::LocationCallPaths,
}

/// What every block task needs besides its intervals and its communication ([`BlockComms`]): the tiling,
/// the levels, and which regions the particle view selects. Built once from the trace's definitions (a
/// streamed index has them after its first pass, without the intervals, messages and collectives).
pub struct Plan {
    pub tiling: Tiling,
    pub levels: Vec<Level>,
    /// Per region: whether its intervals are the particle view's (communication and synchronization).
    pub particle_region: Vec<bool>,
}

impl Plan {
    /// The plan for `trace` (its intervals are not read: `tiling` comes from the caller).
    pub fn new(trace: &Trace, tiling: Tiling) -> Plan {
        let t = tiling;
        let levels = levels(&t);
        let particle_region =
            (0..trace.regions.len()).map(|k| weft_analyses::particles::is_communication_event(trace, k)).collect();
        Plan { tiling: t, levels, particle_region }
    }
}

/// Where a block task puts its particle-view intervals: a location's in start order, a piece of at most
/// [`PARTICLE_PIECE`] at a time (each piece sorted by the `Particle` key, and so is a location's sequence of
/// pieces; a piece of another location may start lower). A streamed index writes them as sorted runs as they
/// come (`store::stream`), so a block task never holds its particle list; the in-memory build collects them.
pub trait ParticleSink {
    fn put(&mut self, piece: &[Particle]);
}

impl ParticleSink for Vec<Particle> {
    fn put(&mut self, piece: &[Particle]) {
        self.extend_from_slice(piece);
    }
}

/// Particle-view intervals a block task gathers before it hands them to its [`ParticleSink`].
pub const PARTICLE_PIECE: usize = 1 << 14;

/// A location's particles through a piece buffer of [`PARTICLE_PIECE`] into `sink`.
struct ParticlePieces<'s> {
    piece: Vec<Particle>,
    sink: &'s mut dyn ParticleSink,
}

impl ParticlePieces<'_> {
    #[inline]
    fn push(&mut self, p: Particle) {
        self.piece.push(p);
        if self.piece.len() == PARTICLE_PIECE {
            self.flush();
        }
    }
    /// Hand the piece over (at each location's end, and when full).
    fn flush(&mut self) {
        if !self.piece.is_empty() {
            self.sink.put(&self.piece);
            self.piece.clear();
        }
    }
}

/// What one block task gives: its tiles (level 0, summaries, moments) in manifest order, its share of the
/// per-region totals, and (from [`run_blocks`]) its particle-view intervals, tiled with every block's at the
/// end ([`block_tiles`] hands them to a [`ParticleSink`] instead).
pub struct BlockOutput {
    pub tiles: Vec<(TileEntry, Vec<u8>)>,
    pub region_totals: Vec<(u64, u64)>,
    pub particles: Vec<Particle>,
}

/// Build the store of `trace`.
pub fn build(trace: &Trace, o: &BuildOptions) -> BuiltStore {
    let plan = Plan::new(trace, tiling(trace, o));
    let t = plan.tiling;
    let results = run_blocks(trace, &plan, 0..t.blocks, o.threads);
    let mut entries = Vec::new();
    let mut files = Vec::new();
    let mut totals = vec![(0u64, 0u64); trace.regions.len()];
    let mut particles = Vec::new();
    for out in results {
        add_totals(&mut totals, &out.region_totals);
        particles.extend(out.particles);
        for (e, b) in out.tiles {
            files.push((e.path.clone(), b));
            entries.push(e);
        }
    }
    let stats = particle_stats(trace, &particles);
    for (e, b) in particle_tiles(particles, &t).into_iter().chain(counter_tiles(trace, &t)) {
        files.push((e.path.clone(), b));
        entries.push(e);
    }
    let counts: Vec<u64> = trace.location_intervals.iter().map(|r| r.len() as u64).collect();
    let mut manifest = manifest(trace, o, &plan, entries, &counts, &location_lanes(trace), &totals);
    manifest.particles = stats;
    let store = BuiltStore { manifest, tiles: files };
    if o.waits {
        with_waits(store)
    } else {
        store
    }
}

/// A whole store with its wait states added (`crate::waits`, from its own level-0 tiles: the last step of
/// every way a store is made, when `--waits` asks for it).
pub fn with_waits(mut store: BuiltStore) -> BuiltStore {
    let at: std::collections::HashMap<String, usize> =
        store.tiles.iter().enumerate().map(|(k, (p, _))| (p.clone(), k)).collect();
    let mut added = Vec::new();
    let tiles = &store.tiles;
    let read = |p: &str| at.get(p).map(|&k| tiles[k].1.clone()).ok_or_else(|| format!("{p}: not in the store"));
    crate::waits::add_waits(&mut store.manifest, &read, &mut |p, b| {
        added.push((p.to_string(), b.to_vec()));
        Ok(())
    })
    .expect("a store's own tiles read back");
    store.tiles.extend(added);
    store
}

/// The block tasks `blocks` of `trace` on up to `threads` threads, their outputs in block order (also the seam
/// of `--shard K/N` and MPI ranks, `store::partition`, which run a share of the blocks).
pub fn run_blocks(trace: &Trace, plan: &Plan, blocks: Range<u32>, threads: usize) -> Vec<BlockOutput> {
    let t = plan.tiling;
    let blocks = blocks.start.min(t.blocks)..blocks.end.min(t.blocks);
    let n = blocks.len();
    let comms = TraceComms::new(trace, &t);
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<BlockOutput>>> = Mutex::new((0..n).map(|_| None).collect());
    // Threads beyond one a block: each task's share of them (`block_tiles`).
    let spare = (threads / n.max(1)).max(1);
    let work = || loop {
        let k = next.fetch_add(1, Ordering::Relaxed);
        if k >= n {
            break;
        }
        let b = blocks.start + k as u32;
        let c = comms.block(trace, b, t.block_range(b, trace.locations.len() as u32));
        let mut particles = Vec::new();
        let bi = BlockIntervals::of_trace(trace, &t, b);
        let mut out =
            block_tiles(trace, plan, b, &bi, &c, &mut particles, spare, None).expect("tiles kept, none written");
        out.particles = particles;
        results.lock().expect("no task panics holding the lock")[k] = Some(out);
    };
    let threads = threads.clamp(1, n.max(1));
    if threads == 1 {
        work();
    } else {
        std::thread::scope(|s| {
            for _ in 0..threads {
                s.spawn(work);
            }
        });
    }
    results.into_inner().expect("tasks joined").into_iter().flatten().collect()
}

/// Block `b`'s particle-view intervals alone, into `sink` as [`block_tiles`] gives them, without its tiles
/// (the shard that writes the particle tiles needs every block's).
pub fn block_particles(plan: &Plan, b: u32, bi: &BlockIntervals, nlocations: u32, sink: &mut dyn ParticleSink) {
    let locs = plan.tiling.block_range(b, nlocations);
    let mut particles = ParticlePieces { piece: Vec::with_capacity(PARTICLE_PIECE), sink };
    for (k, l) in locs.enumerate() {
        for i in bi.ranges[k].clone() {
            let region = bi.region[i].0;
            if plan.particle_region[region as usize] {
                particles.push(Particle {
                    start_ns: bi.start_ns[i],
                    location: l,
                    index: bi.trace_index(i),
                    region,
                    dur_ns: bi.dur_ns[i],
                });
            }
        }
        particles.flush();
    }
}

/// `into += from`, region by region.
pub fn add_totals(into: &mut [(u64, u64)], from: &[(u64, u64)]) {
    for (a, b) in into.iter_mut().zip(from) {
        a.0 += b.0;
        a.1 += b.1;
    }
}

/// Per location of block `bi`: its rows' lanes (deepest depth + 1; 0 without intervals), for the manifest.
pub fn block_lanes(bi: &BlockIntervals) -> Vec<u32> {
    let lanes = |r: &Range<usize>| bi.depth[r.clone()].iter().map(|&d| d as u32 + 1).max().unwrap_or(0);
    bi.ranges.iter().map(lanes).collect()
}

/// [`block_lanes`] of every location of a whole trace.
pub fn location_lanes(trace: &Trace) -> Vec<u32> {
    let all = BlockIntervals {
        ranges: &trace.location_intervals,
        region: &trace.intervals.region,
        start_ns: &trace.intervals.start_ns,
        dur_ns: &trace.intervals.dur_ns,
        depth: &trace.intervals.depth,
        first_index: 0,
        index: None,
    };
    block_lanes(&all)
}

/// The manifest of a store whose trace is `trace` without its intervals (or with them): the intervals'
/// per-location counts and lanes ([`block_lanes`]) and per-region totals come from the caller.
#[allow(clippy::too_many_arguments)]
pub fn manifest(
    trace: &Trace,
    o: &BuildOptions,
    plan: &Plan,
    tiles: Vec<TileEntry>,
    interval_counts: &[u64],
    lanes: &[u32],
    totals: &[(u64, u64)],
) -> Manifest {
    let c = SummaryCounts::of(trace);
    let ids = |v: &[weft_model::StringId]| v.iter().map(|s| s.0).collect::<Vec<u32>>();
    let l = &trace.locations;
    Manifest {
        format: FORMAT_NAME.into(),
        version: FORMAT_VERSION,
        source: Source { name: o.source_name.clone(), format: trace.format },
        origin_ns: trace.origin_ns.to_string(),
        span_ns: trace.span_ns,
        counts: Counts {
            event_records: trace.event_records,
            intervals: interval_counts.iter().sum(),
            instants: trace.instants.time_ns.len() as u64,
            messages: trace.messages.len() as u64,
            flows: c.flows as u64,
            collective_rows: trace.collectives.len() as u64,
            collective_operations: c.collectives as u64,
            counter_samples: trace.counters.sample_time_ns.len() as u64,
        },
        strings: trace.strings.iter().map(str::to_string).collect(),
        processes: Processes {
            native_id: trace.processes.native_id.clone(),
            name: ids(&trace.processes.name),
            sort_key: trace.processes.sort_key.clone(),
        },
        locations: Locations {
            process: l.process.iter().map(|p| p.0).collect(),
            native_id: l.native_id.clone(),
            name: ids(&l.name),
            kind: l.kind.clone(),
            sort_key: l.sort_key.clone(),
            intervals: interval_counts.to_vec(),
            lanes: lanes.to_vec(),
        },
        regions: Regions {
            name: ids(&trace.regions.name),
            category: ids(&trace.regions.category),
            paradigm: trace.regions.paradigm.clone(),
            role: trace.regions.role.clone(),
        },
        counter_series: CounterSeries {
            name: ids(&trace.counters.series_name),
            process: trace.counters.series_process.iter().map(|p| p.0).collect(),
        },
        warnings: WarningList {
            counts: trace.warnings.counts().to_vec(),
            examples: trace.warnings.examples().iter().map(|w| (w.kind, w.message.clone())).collect(),
        },
        region_totals: totals.iter().map(|&(n, ns)| [n, ns]).collect(),
        tiling: plan.tiling,
        levels: plan.levels.clone(),
        tiles,
        particles: None,
        waits: None,
        critical_path: None,
    }
}

/// A value one thread makes and others wait for (`OnceLock::wait` is newer than this crate's Rust):
/// [`set`](Self::set) opens it, and so does dropping its [`opener`](Self::opener) however the maker's thread
/// ends, so that waiters go on (seeing None) should it panic.
struct Gate<T> {
    value: OnceLock<T>,
    open: Mutex<bool>,
    opened: Condvar,
}

impl<T> Default for Gate<T> {
    fn default() -> Self {
        Gate { value: OnceLock::new(), open: Mutex::new(false), opened: Condvar::new() }
    }
}

/// Opens its gate when dropped.
struct Opener<'g, T>(&'g Gate<T>);

impl<T> Drop for Opener<'_, T> {
    fn drop(&mut self) {
        self.0.open();
    }
}

impl<T> Gate<T> {
    fn opener(&self) -> Opener<'_, T> {
        Opener(self)
    }

    fn open(&self) {
        *self.open.lock().unwrap_or_else(PoisonError::into_inner) = true;
        self.opened.notify_all();
    }

    /// The value, now there for every waiter.
    fn set(&self, v: T) -> &T {
        let v = self.value.get_or_init(|| v);
        self.open();
        v
    }

    /// The value once the gate is open (None: opened without one).
    fn wait(&self) -> Option<&T> {
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        while !*open {
            open = self.opened.wait(open).unwrap_or_else(PoisonError::into_inner);
        }
        self.value.get()
    }
}

/// Where a block task's tiles go as each is made ([`block_tiles`]): a level-0 tile on whichever thread
/// encodes it, the summary tiles on the task's. The task's output then keeps their entries, bytes empty.
pub type TileWriter<'a> = &'a (dyn Fn(&TileEntry, &[u8]) -> Result<(), String> + Sync);

/// The tiles of block `b` (level 0, summaries, moments) and its per-region totals; its particle-view
/// intervals go to `particles` as they are met. `trace` gives the definitions and instants (its intervals,
/// messages and collectives are not read: `bi` holds the block's intervals, `comms` its communication).
/// On `threads` threads (a block task with threads to spare, fewer blocks than threads): this one walks the
/// intervals into the level-0 windows while the others make the locations' summaries and moments, a
/// location at a time; then every thread takes what is left of either, a window's tile or a location's
/// summary at a time (so no thread waits while the other side has work). The same tiles in the same order
/// whatever the count. With `write`, each tile is written as it is made (its error is the task's).
#[allow(clippy::too_many_arguments)]
pub fn block_tiles(
    trace: &Trace,
    plan: &Plan,
    b: u32,
    bi: &BlockIntervals,
    comms: &BlockComms,
    particles: &mut dyn ParticleSink,
    threads: usize,
    write: Option<TileWriter>,
) -> Result<BlockOutput, String> {
    let mut region_totals = vec![(0u64, 0u64); trace.regions.len()];
    let windows = 0..plan.tiling.windows;
    // A tile made: written now (its bytes then dropped), or kept with its bytes.
    let keep = |(e, bytes): Tile| -> Result<Tile, String> {
        match write {
            Some(w) => w(&e, &bytes).map(|()| (e, Vec::new())),
            None => Ok((e, bytes)),
        }
    };
    let summaries = LocationSummaries::new(trace, plan, b, bi, comms);
    let n = summaries.locations();
    if threads <= 1 {
        let cols = level0_cols(trace, plan, b, bi, comms, windows.clone(), &[], particles, &mut region_totals);
        let mut out = Vec::new();
        for (w, c) in cols.into_iter().enumerate() {
            if let Some(t) = window_tile(trace, plan, b, bi, comms, windows.start + w as u32, &c) {
                out.push(keep(t)?);
            }
        }
        let mut one = summaries.summary();
        let locations: Vec<_> = (0..n).map(|k| summaries.location(&mut one, k)).collect();
        for t in summary_tiles(trace, plan, b, locations) {
            out.push(keep(t)?);
        }
        return Ok(BlockOutput { tiles: out, region_totals, particles: Vec::new() });
    }
    // What the threads share: the locations' summaries and the windows' tiles not yet taken, and each done.
    let next_location = AtomicUsize::new(0);
    let done_locations: Mutex<Vec<Option<Summarized>>> = Mutex::new((0..n).map(|_| None).collect());
    let cols: Gate<Vec<EventsSelection>> = Gate::default();
    let next_window = AtomicUsize::new(0);
    let done_windows: Mutex<Vec<(usize, Tile)>> = Mutex::new(Vec::new());
    let failed: Mutex<Option<String>> = Mutex::new(None);
    let summarize = || {
        let mut one = summaries.summary();
        loop {
            let k = next_location.fetch_add(1, Ordering::Relaxed);
            if k >= n {
                break;
            }
            let s = summaries.location(&mut one, k);
            done_locations.lock().expect("no thread panics holding the lock")[k] = Some(s);
        }
    };
    let encode = |cols: &[EventsSelection]| loop {
        let w = next_window.fetch_add(1, Ordering::Relaxed);
        if w >= cols.len() || failed.lock().expect("no thread panics holding the lock").is_some() {
            break;
        }
        let Some(t) = window_tile(trace, plan, b, bi, comms, windows.start + w as u32, &cols[w]) else { continue };
        match keep(t) {
            Ok(t) => done_windows.lock().expect("no thread panics holding the lock").push((w, t)),
            Err(e) => {
                failed.lock().expect("no thread panics holding the lock").get_or_insert(e);
            }
        }
    };
    std::thread::scope(|s| {
        for _ in 1..threads {
            s.spawn(|| {
                summarize();
                // (None: the walk panicked, which the scope passes on.)
                encode(cols.wait().map_or(&[], Vec::as_slice));
            });
        }
        // (Opened however the walk ends, so that no thread waits for it forever.)
        let _open = cols.opener();
        let walked = level0_cols(trace, plan, b, bi, comms, windows.clone(), &[], particles, &mut region_totals);
        encode(cols.set(walked));
        summarize();
    });
    if let Some(e) = failed.into_inner().expect("threads joined") {
        return Err(e);
    }
    let mut out = done_windows.into_inner().expect("threads joined");
    out.sort_unstable_by_key(|(w, _)| *w);
    let mut out: Vec<_> = out.into_iter().map(|(_, t)| t).collect();
    let locations = done_locations.into_inner().expect("threads joined").into_iter().map(|s| s.expect("summarized"));
    for t in summary_tiles(trace, plan, b, locations) {
        out.push(keep(t)?);
    }
    Ok(BlockOutput { tiles: out, region_totals, particles: Vec::new() })
}

/// The level-0 tiles of block `b`'s windows `windows` (all of them, or a range of a block tiled by time
/// range: `store::ranged`), adding the block's per-region totals to `region_totals`; its particle-view
/// intervals go to `particles` as they are met. Location k's first `carried[k]` intervals in `bi` (none
/// when `carried` is empty) started in earlier windows and are still open at the range's start: they are
/// listed open in the range's windows and rebuild the regions enclosing the range's first intervals, but are
/// neither counted nor tiled again.
#[allow(clippy::too_many_arguments)]
pub fn level0_tiles(
    trace: &Trace,
    plan: &Plan,
    b: u32,
    bi: &BlockIntervals,
    comms: &BlockComms,
    windows: Range<u32>,
    carried: &[usize],
    particles: &mut dyn ParticleSink,
    region_totals: &mut [(u64, u64)],
) -> Tiles {
    let w0 = windows.start;
    let cols = level0_cols(trace, plan, b, bi, comms, windows, carried, particles, region_totals);
    cols.into_iter()
        .enumerate()
        .filter_map(|(w, c)| window_tile(trace, plan, b, bi, comms, w0 + w as u32, &c))
        .collect()
}

/// Window `w`'s level-0 tile of block `b` from what it holds (None when it holds nothing).
fn window_tile(
    trace: &Trace,
    plan: &Plan,
    b: u32,
    bi: &BlockIntervals,
    comms: &BlockComms,
    w: u32,
    c: &EventsSelection,
) -> Option<Tile> {
    if c.is_empty() {
        return None;
    }
    let first = plan.tiling.block_range(b, trace.locations.len() as u32).start;
    let payload = encode_events(c, bi, &trace.instants, first, &comms.messages, &comms.collectives);
    Some(tile(TileKind::Events, 0, b, w, c.intervals as u64, payload))
}

/// What each of block `b`'s windows `windows` holds for its level-0 tile ([`level0_tiles`] says how the
/// walk goes, and what it adds to `region_totals` and `particles`).
#[allow(clippy::too_many_arguments)]
fn level0_cols(
    trace: &Trace,
    plan: &Plan,
    b: u32,
    bi: &BlockIntervals,
    comms: &BlockComms,
    windows: Range<u32>,
    carried: &[usize],
    particles: &mut dyn ParticleSink,
    region_totals: &mut [(u64, u64)],
) -> Vec<EventsSelection> {
    let t = &plan.tiling;
    let locs = t.block_range(b, trace.locations.len() as u32);
    let nw = t.windows as usize;
    let (w0, w1) = (windows.start as usize, windows.end as usize);
    // The range's windows, `cols[w - w0]`.
    let mut cols: Vec<EventsSelection> = (w0..w1).map(|_| EventsSelection::default()).collect();
    let mut particles = ParticlePieces { piece: Vec::with_capacity(PARTICLE_PIECE), sink: particles };
    // A location's intervals come by start, so those of one window are a run: one division per run, two
    // comparisons per interval (an interval out of order only starts a new run). An interval ending at or
    // after the next window's start is carried, open, into each later window whose start it reaches (the
    // exact slice's rule: an interval reaches into [t0, t1] when it starts by t1 and ends at t0 or later).
    // The same walk counts the block's region totals (`analyses::summary::region_totals` per location, so
    // blocks add up: a region's time counts once while it is open at any depth).
    let window_ns = t.window_ns.max(1);
    let last = nw.saturating_sub(1);
    let nreg = trace.regions.len();
    let mut open = OpenRegions { outermost: vec![(u32::MAX, usize::MAX); nreg], path: Vec::new() };
    for (k, l) in locs.clone().enumerate() {
        let range = bi.ranges[k].clone();
        let own = range.start + carried.get(k).copied().unwrap_or(0);
        // Intervals of earlier ranges: open in this range's windows, enclosing its first intervals.
        for j in range.start..own {
            open.enter(j, bi.depth[j] as usize, bi.region[j].index());
            let end = (t.window_of(bi.start_ns[j] + bi.dur_ns[j]) as usize).min(w1 - 1);
            for c in cols.iter_mut().take((end + 1).saturating_sub(w0)) {
                c.open.push((l - locs.start, j));
            }
        }
        let mut i = own;
        while i < range.end {
            let w = t.window_of(bi.start_ns[i]) as usize;
            debug_assert!((w0..w1).contains(&w), "an interval of the range's windows");
            let lo = w as u64 * window_ns;
            let hi = if w == last { u64::MAX } else { (w as u64 + 1).saturating_mul(window_ns) };
            let mut j = i;
            while j < range.end {
                let start = bi.start_ns[j];
                if start < lo || start >= hi {
                    break;
                }
                let (dur, region) = (bi.dur_ns[j], bi.region[j].0);
                let outermost = open.enter(j, bi.depth[j] as usize, region as usize);
                let total = &mut region_totals[region as usize];
                total.0 += 1;
                total.1 += if outermost { dur } else { 0 };
                let end = start + dur;
                if end >= hi {
                    let to = (t.window_of(end) as usize).min(w1 - 1);
                    for c in cols.iter_mut().take(to + 1 - w0).skip(w + 1 - w0) {
                        c.open.push((l - locs.start, j));
                    }
                }
                if plan.particle_region[region as usize] {
                    particles.push(Particle {
                        start_ns: start,
                        location: l,
                        index: bi.trace_index(j),
                        region,
                        dur_ns: dur,
                    });
                }
                j += 1;
            }
            let c = &mut cols[w - w0];
            c.runs.push((l - locs.start, i..j));
            c.intervals += j - i;
            i = j;
        }
        particles.flush();
    }
    // Instants are sorted by location: the block's are one run.
    let il = &trace.instants.location;
    let (a, z) = (il.partition_point(|x| x.0 < locs.start), il.partition_point(|x| x.0 < locs.end));
    for i in a..z {
        let w = t.window_of(trace.instants.time_ns[i]) as usize;
        if (w0..w1).contains(&w) {
            cols[w - w0].inst.push(i as u32);
        }
    }
    // Messages (by send) and collectives (by start) are carried into later windows like intervals are: a
    // message while it has not arrived (received at or after the window's start), a collective row while it
    // has not ended.
    let place = |from: u64,
                 to: u64,
                 i: u32,
                 cols: &mut [EventsSelection],
                 new: fn(&mut EventsSelection) -> &mut Vec<u32>,
                 open: fn(&mut EventsSelection) -> &mut Vec<u32>| {
        let w = t.window_of(from) as usize;
        if (w0..w1).contains(&w) {
            new(&mut cols[w - w0]).push(i);
        }
        let to = (t.window_of(to) as usize).min(w1 - 1);
        for c in cols.iter_mut().take((to + 1).saturating_sub(w0)).skip((w + 1).saturating_sub(w0)) {
            open(c).push(i);
        }
    };
    for (i, m) in comms.messages.iter().enumerate() {
        place(m.send_ns, m.recv_ns, i as u32, &mut cols, |c| &mut c.msg, |c| &mut c.open_msg);
    }
    for (i, k) in comms.collectives.iter().enumerate() {
        place(k.start_ns, k.end_ns, i as u32, &mut cols, |c| &mut c.coll, |c| &mut c.open_coll);
    }
    cols
}

/// Which intervals of a location's walk in start order are the outermost of their region (a region's time
/// counts once while it is open at any depth): per region, its outermost interval open on the path to the
/// current one, as (depth, interval); `path[d]`, the interval open at depth d on that path. An interval at
/// depth d takes the path's place d (the deeper ones closed before it started), so nothing is popped: a
/// region's record is live while the path still holds its interval at its depth. (A stack of the open
/// regions, popped down to each interval's depth, cost a mispredicted branch an interval where depths vary.)
/// Needs the walk's depths to be its nesting (each interval one deeper than the one enclosing it), as
/// `BlockIntervals` holds them; interval numbers are unique across locations, so no reset between them.
struct OpenRegions {
    outermost: Vec<(u32, usize)>,
    path: Vec<usize>,
}

impl OpenRegions {
    /// Interval `j` of `region` opens at `depth`: whether no interval of its region encloses it.
    #[inline(always)]
    fn enter(&mut self, j: usize, depth: usize, region: usize) -> bool {
        debug_assert!(depth <= self.path.len(), "an interval at most one deeper than any before it");
        if self.path.len() <= depth {
            self.path.resize(depth + 1, usize::MAX);
        }
        self.path[depth] = j;
        let (d, i) = self.outermost[region];
        let nested = (d as usize) < depth && self.path[d as usize] == i;
        if !nested {
            self.outermost[region] = (depth as u32, j);
        }
        !nested
    }
}

/// One location's level-1 bins and the moments of its busy time (compute, then any: the moments tile's
/// order), built from its intervals a chunk at a time in the model's order, each chunk after the one before
/// (a location tiled by time range is read a range at a time): a [`BusySweep`], a [`Level1Builder`] and two
/// [`MomentAccumulator`]s. A busy interval goes to the bins and the moments as soon as no later interval can
/// change it, so what is held is the spans still open and the bins, not the location's intervals. Whatever
/// the chunks, [`finish`](Self::finish) gives the same bits as the whole location in one: `pyramid::level1`
/// of its busy intervals and `analyses::moments::accumulate` of each ([`summary_and_moment_tiles`] feeds
/// each location as one chunk).
pub struct LocationSummary<'a> {
    scanner: &'a BusyScanner,
    sweep: BusySweep,
    level1: Level1Builder,
    bin_ns: u64,
    bins: usize,
    /// The moments of the busy time handed out so far: compute, then any.
    moments: [MomentAccumulator; 2],
    /// Busy intervals handed out by the sweep and not yet added (compute, any): buffers kept across chunks.
    compute: Vec<BusyInterval>,
    any: Vec<BusyInterval>,
    /// The call-path totals per window (the call-path tiles', format 8).
    paths: callpaths::LocationPaths,
}

impl<'a> LocationSummary<'a> {
    /// A location's summary in level-1 bins of `bin_ns`, `bins` of them; busy time by `scanner`, which must
    /// be a [`BusyDefinition::Compute`] scanner (its included union is then the `Any` busy time); call paths
    /// per window of `tiling`.
    pub fn new(scanner: &'a BusyScanner, bin_ns: u64, bins: usize, tiling: Tiling) -> Self {
        assert!(scanner.counts_every_region(), "a location summary needs a scanner of the compute definition");
        LocationSummary {
            scanner,
            sweep: BusySweep::default(),
            level1: Level1Builder::new(bin_ns, bins),
            bin_ns,
            bins,
            moments: [MomentAccumulator::new(0); 2],
            compute: Vec::new(),
            any: Vec::new(),
            paths: callpaths::LocationPaths::new(tiling),
        }
    }

    /// The next chunk of the location's intervals (columns in the model's order: start, then depth; it starts
    /// at or after the last start of the chunk before).
    pub fn push(&mut self, region: &[RegionId], start_ns: &[u64], dur_ns: &[u64], depth: &[u16]) {
        if let Some(&first) = start_ns.first() {
            self.sweep.take_final(first, &mut self.compute, Some(&mut self.any));
            self.add_busy();
        }
        self.scanner.push(&mut self.sweep, region, start_ns, dur_ns);
        self.level1.intervals(region, start_ns, dur_ns, depth);
        self.paths.push(region, start_ns, dur_ns, depth);
    }

    /// Times of instants of the location, in any chunks and order.
    pub fn instants(&mut self, time_ns: &[u64]) {
        self.level1.instants(time_ns);
    }

    /// (time, bytes) of message ends on the location (sends and receives), in any chunks and order.
    pub fn message_ends(&mut self, ends: &[(u64, u64)]) {
        self.level1.message_ends(ends);
    }

    /// The location's level-1 bins (the last ending at `span_ns`, the trace's last event end) and its
    /// moments (compute, then any) and call paths, once every chunk is in; then it starts over, empty, for
    /// another location.
    pub fn finish(&mut self, span_ns: u64) -> Summarized {
        self.sweep.finish(&mut self.compute, Some(&mut self.any));
        self.add_busy();
        let level1 = std::mem::replace(&mut self.level1, Level1Builder::new(self.bin_ns, self.bins));
        let moments = std::mem::replace(&mut self.moments, [MomentAccumulator::new(0); 2]);
        Summarized { bins: level1.finish(span_ns), moments, paths: self.paths.finish() }
    }

    /// The busy intervals handed out, to the bins and the moments.
    fn add_busy(&mut self) {
        self.level1.busy_compute(&self.compute);
        self.level1.busy_any(&self.any);
        self.moments[0].add_busy(&self.compute);
        self.moments[1].add_busy(&self.any);
        self.compute.clear();
        self.any.clear();
    }
}

/// What block `b`'s locations' summaries are made from ([`block_tiles`]): a location's level-1 bins and
/// moments at a time, any location on any thread, each from its intervals, instants and message ends alone.
struct LocationSummaries<'a> {
    trace: &'a Trace,
    plan: &'a Plan,
    bi: &'a BlockIntervals<'a>,
    comms: &'a BlockComms,
    scanner: BusyScanner,
    locs: Range<u32>,
}

impl<'a> LocationSummaries<'a> {
    fn new(trace: &'a Trace, plan: &'a Plan, b: u32, bi: &'a BlockIntervals<'a>, comms: &'a BlockComms) -> Self {
        let locs = plan.tiling.block_range(b, trace.locations.len() as u32);
        let scanner = BusyScanner::new(trace, &BusyDefinition::Compute);
        LocationSummaries { trace, plan, bi, comms, scanner, locs }
    }

    fn locations(&self) -> usize {
        self.locs.len()
    }

    /// A summary to make locations' with (one a thread: its buffers kept from location to location).
    fn summary(&self) -> LocationSummary<'_> {
        let level1 = &self.plan.levels[0];
        LocationSummary::new(&self.scanner, level1.bin_ns, level1.bins as usize, self.plan.tiling)
    }

    /// The block's `k`-th location's level-1 bins, moments and call paths.
    fn location(&self, summary: &mut LocationSummary, k: usize) -> Summarized {
        let (bi, l, il) = (self.bi, self.locs.start + k as u32, &self.trace.instants.location);
        let r = bi.ranges[k].clone();
        summary.push(&bi.region[r.clone()], &bi.start_ns[r.clone()], &bi.dur_ns[r.clone()], &bi.depth[r]);
        let (a, z) = (il.partition_point(|x| x.0 < l), il.partition_point(|x| x.0 <= l));
        summary.instants(&self.trace.instants.time_ns[a..z]);
        summary.message_ends(&self.comms.ends[k]);
        summary.finish(self.trace.span_ns)
    }
}

/// Summary tiles of every level, the moments tile and the call-path tiles of every level of block `b` from
/// each of its locations' level-1 bins, moments (compute, then any) and call paths, in location order
/// ([`LocationSummary::finish`]).
pub fn summary_tiles(trace: &Trace, plan: &Plan, b: u32, locations: impl IntoIterator<Item = Summarized>) -> Tiles {
    let (t, levels) = (&plan.tiling, &plan.levels);
    let locs = t.block_range(b, trace.locations.len() as u32);
    let mut moments = Vec::with_capacity(locs.len());
    let mut paths = Vec::with_capacity(locs.len());
    // Per level, per location of the block, its bins.
    let mut per_level: Vec<Vec<Bins>> = vec![Vec::new(); levels.len()];
    for Summarized { mut bins, moments: accumulators, paths: located } in locations {
        moments.push(accumulators);
        paths.push(located);
        for (k, _) in levels.iter().enumerate() {
            let next = if k + 1 < levels.len() { Some(bins.coarser()) } else { None };
            per_level[k].push(bins);
            match next {
                Some(n) => bins = n,
                None => break,
            }
        }
    }
    let mut out = Tiles::new();
    let per = t.bins_per_tile as usize;
    for (k, level) in levels.iter().enumerate() {
        for j in 0..level.tiles as usize {
            let range = j * per..((j + 1) * per).min(level.bins as usize);
            let records = (locs.len() * range.len()) as u64;
            let w = encode_summary(&per_level[k], range);
            out.push(tile(TileKind::Summary, level.level, b, j as u32, records, w));
        }
    }
    out.push(tile(TileKind::Moments, 0, b, 0, locs.len() as u64, encode_moments(&moments)));
    out.extend(callpaths::callpath_tiles(levels, b, &paths));
    out
}

/// Communication and synchronization intervals of all locations (the particle view's events, collected by
/// the block tasks), by window of their start, sorted by (start, location, interval). Each tile also carries
/// the events of earlier windows still running at its window's start (ending after it), so playback at a
/// time of window W needs the particle tiles from W on (from the window of W's start minus the fade time):
/// a window holding only such events has a tile too.
pub fn particle_tiles(mut events: Vec<Particle>, t: &Tiling) -> Vec<(TileEntry, Vec<u8>)> {
    // The block tasks give each location's particles in start order: a run-adaptive sort merges those runs
    // (the keys are unique, so the order is the unstable sort's).
    events.sort();
    let mut tiler = ParticleTiler::new(*t);
    for e in events {
        tiler.push(e);
    }
    tiler.finish();
    tiler.done
}

/// [`particle_tiles`] of events handed over one at a time in their sorted order (a streamed index merges
/// them from sorted runs): holds one window's own events and those still running from earlier windows;
/// the tiles made so far are in `done` (the caller may take them as they come). [`over`](Self::over) tiles
/// a range of the windows only (an MPI rank's share), given first the events of earlier windows that run
/// into it.
pub struct ParticleTiler {
    t: Tiling,
    /// The window being gathered.
    w: u32,
    /// The window after the last tiled.
    end: u32,
    own: Vec<Particle>,
    /// Events of earlier windows running past their window's end, in their order, each with the last
    /// window whose start it runs past.
    running: Vec<(Particle, u32)>,
    pub done: Vec<(TileEntry, Vec<u8>)>,
}

impl ParticleTiler {
    pub fn new(t: Tiling) -> ParticleTiler {
        ParticleTiler::over(t, 0..t.windows)
    }

    /// The tiles of `windows` only: events of earlier windows are pushed first (those running into the
    /// range are listed open in its windows, as the tiles of every window list them), later ones not at all.
    pub fn over(t: Tiling, windows: std::ops::Range<u32>) -> ParticleTiler {
        ParticleTiler { t, w: windows.start, end: windows.end, own: Vec::new(), running: Vec::new(), done: Vec::new() }
    }

    /// The start of the first window still to tile (ns from the origin): of the range, before any push.
    pub fn first_start(&self) -> u64 {
        self.t.window_span(self.w).start
    }

    /// Whether `e` belongs before the end of this tiler's windows (events starting after it are not pushed).
    pub fn takes(&self, e: &Particle) -> bool {
        self.t.window_of(e.start_ns) < self.end
    }

    /// The next event (in (start, location, interval) order).
    pub fn push(&mut self, e: Particle) {
        let w = self.t.window_of(e.start_ns);
        if w < self.w {
            // Of a window before the range (only before its first window is closed): open in the range's
            // windows it runs into.
            debug_assert!(self.own.is_empty(), "events of earlier windows come first");
            let last = *particle_windows(&self.t, &e).end();
            if last >= self.w {
                self.running.push((e, last));
            }
            return;
        }
        debug_assert!(w < self.end, "an event of the range's windows");
        while self.w < w {
            self.close();
        }
        self.own.push(e);
    }

    /// The windows after the last event's.
    pub fn finish(&mut self) {
        while self.w < self.end {
            self.close();
        }
    }

    /// Tile the window gathered (when it has own or running events) and go to the next.
    fn close(&mut self) {
        let w = self.w;
        self.running.retain(|r| r.1 >= w);
        if !(self.own.is_empty() && self.running.is_empty()) {
            let mut c = ColumnWriter::default();
            encode_particles(&mut c, self.own.iter());
            encode_particles(&mut c, self.running.iter().map(|r| &r.0));
            self.done.push(tile(TileKind::Particles, 0, 0, w, self.own.len() as u64, c));
        }
        // Most events end in the window they start in; the others run into each later window whose start
        // they pass (ending after it).
        let span = self.t.window_span(w);
        for e in self.own.drain(..) {
            let end = e.start_ns.saturating_add(e.dur_ns);
            if end > span.end {
                self.running.push((e, self.t.window_of(end - 1)));
            }
        }
        self.w += 1;
    }
}

/// The windows of the particle tiles an event goes to: its own and each later one whose start it passes.
pub fn particle_windows(t: &Tiling, e: &Particle) -> std::ops::RangeInclusive<u32> {
    let w = t.window_of(e.start_ns);
    let end = e.start_ns.saturating_add(e.dur_ns);
    w..=if end > t.window_span(w).end { t.window_of(end - 1) } else { w }
}

/// The particle view's events as a whole, for the manifest: of `events` (the particle tiles' intervals), those
/// the view animates (`analyses::particles::EventFrame`: Paraver's communication states only when the trace
/// has no calls), their number and extent. None without any.
pub fn particle_stats(trace: &Trace, events: &[Particle]) -> Option<ParticleStats> {
    let mut x = ParticleExtents::default();
    events.iter().for_each(|e| x.add(e));
    x.stats(trace)
}

/// [`particle_stats`] of events handed over one at a time, in any order: per region, the number of its
/// events, the first start, the shortest positive and the longest duration, and the last end.
#[derive(Default)]
pub struct ParticleExtents {
    regions: Vec<(u64, u64, u64, u64, u64)>,
}

impl ParticleExtents {
    pub fn add(&mut self, e: &Particle) {
        let r = e.region as usize;
        if self.regions.len() <= r {
            self.regions.resize(r + 1, (0, u64::MAX, u64::MAX, 0, 0));
        }
        let x = &mut self.regions[r];
        x.0 += 1;
        x.1 = x.1.min(e.start_ns);
        if e.dur_ns > 0 {
            x.2 = x.2.min(e.dur_ns);
        }
        x.3 = x.3.max(e.dur_ns);
        x.4 = x.4.max(e.start_ns + e.dur_ns);
    }

    /// The longest duration of any event (0 for none).
    pub fn max_dur(&self) -> u64 {
        self.regions.iter().filter(|x| x.0 > 0).map(|x| x.3).max().unwrap_or(0)
    }

    /// Add `other`'s events (the extents of all events, whoever counted them).
    pub fn merge(&mut self, other: &ParticleExtents) {
        if self.regions.len() < other.regions.len() {
            self.regions.resize(other.regions.len(), (0, u64::MAX, u64::MAX, 0, 0));
        }
        for (x, y) in self.regions.iter_mut().zip(&other.regions) {
            *x = (x.0 + y.0, x.1.min(y.1), x.2.min(y.2), x.3.max(y.3), x.4.max(y.4));
        }
    }

    /// The extents as bytes (five little-endian `u64` a region), for another process.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.regions.len() * 40);
        for x in &self.regions {
            for v in [x.0, x.1, x.2, x.3, x.4] {
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
        out
    }

    /// What [`to_bytes`](Self::to_bytes) wrote; None when `b` is not whole regions.
    pub fn from_bytes(b: &[u8]) -> Option<ParticleExtents> {
        if !b.len().is_multiple_of(40) {
            return None;
        }
        let v = |r: &[u8], i: usize| u64::from_le_bytes(r[i * 8..i * 8 + 8].try_into().expect("8 bytes"));
        let regions = b.chunks_exact(40).map(|r| (v(r, 0), v(r, 1), v(r, 2), v(r, 3), v(r, 4))).collect();
        Some(ParticleExtents { regions })
    }

    /// The extent of the regions the view animates (`analyses::particles::EventExtent::of` over their
    /// events).
    pub fn stats(&self, trace: &Trace) -> Option<ParticleStats> {
        let nreg = trace.regions.len();
        let used: Vec<bool> = (0..nreg).map(|r| self.regions.get(r).is_some_and(|x| x.0 > 0)).collect();
        let frame = EventFrame::new(trace, &EventSelection::default(), &used);
        let picked = |r: usize| frame.region_type.get(r).is_some_and(|&k| k != u16::MAX);
        let (mut n, mut first, mut min, mut max, mut span) = (0u64, u64::MAX, u64::MAX, 0u64, 0u64);
        for (_, x) in self.regions.iter().enumerate().filter(|&(r, x)| x.0 > 0 && picked(r)) {
            n += x.0;
            first = first.min(x.1);
            min = min.min(x.2);
            max = max.max(x.3);
            span = span.max(x.4);
        }
        let min = if min == u64::MAX { 1 } else { min };
        let first = if first == u64::MAX { 0 } else { first };
        (n > 0).then_some(ParticleStats {
            events: n,
            first_ns: first,
            min_dur_ns: min,
            max_dur_ns: max.max(min),
            span_ns: span,
        })
    }
}

/// The counter tiles of `trace` (`store::counters`).
pub fn counter_tiles(trace: &Trace, t: &Tiling) -> Vec<(TileEntry, Vec<u8>)> {
    let c = &trace.counters;
    let rows: Vec<SampleRow> = (0..c.sample_time_ns.len())
        .map(|i| SampleRow {
            index: i as u64,
            series: c.sample_series[i],
            time_ns: c.sample_time_ns[i],
            value: c.sample_value[i],
        })
        .collect();
    crate::build::counters::counter_tiles(c.series_name.len() as u32, &rows, t, &levels(t))
}

impl BuiltStore {
    /// The store as files in memory, by path.
    pub fn to_memory(&self) -> weft_store::MemoryStore {
        let mut files: std::collections::BTreeMap<String, Vec<u8>> =
            self.tiles.iter().map(|(p, b)| (p.clone(), b.clone())).collect();
        files.insert(weft_store::MANIFEST.to_string(), self.manifest_json());
        weft_store::MemoryStore { files }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::pyramid::LocationInput;
    use weft_analyses::moments::accumulate;
    use weft_samples::nesting::{chunkings, nesting_trace};

    /// An interval counts its region's time only when no interval of the same region encloses it, across
    /// siblings, deeper paths and the next location (whose intervals' numbers follow the last one's).
    #[test]
    fn an_interval_is_its_regions_outermost_unless_one_of_its_region_encloses_it() {
        let (r, q) = (0, 1);
        let mut open = OpenRegions { outermost: vec![(u32::MAX, usize::MAX); 2], path: Vec::new() };
        // (depth, region, whether outermost): A(r) > B(r) > C(q) > D(r); E(r); F(q) > G(r) > H(r) > I(q);
        // J(q) at depth 1 under F again; then the next location: K(r) > L(q) > M(r) > N(r), O(q) > P(r).
        let walk = [
            (0, r, true),
            (1, r, false),
            (2, q, true),
            (3, r, false),
            (0, r, true),
            (0, q, true),
            (1, r, true),
            (2, r, false),
            (3, q, false),
            (1, q, false),
            (0, r, true),
            (1, q, true),
            (2, r, false),
            (3, r, false),
            (1, q, true),
            (2, r, false),
        ];
        for (j, &(depth, region, outermost)) in walk.iter().enumerate() {
            assert_eq!(open.enter(j, depth, region), outermost, "interval {j}");
        }
    }

    /// A block's tiles written as they are made, on 1 to 4 threads: the same entries in the same order as
    /// kept, each tile written once with the bytes kept; a writer's error is the block's, on any count.
    #[test]
    fn a_block_written_as_made_gives_the_tiles_kept_and_a_writers_error() {
        for seed in [1, 2] {
            let t = nesting_trace(seed);
            // Small windows: many level-0 tiles for the threads to share.
            let o = BuildOptions { tile_intervals: 16, bins_per_tile: 8, ..BuildOptions::default() };
            let plan = Plan::new(&t, tiling(&t, &o));
            let tl = plan.tiling;
            assert!(tl.windows > 4, "seed {seed}: {} windows", tl.windows);
            let comms = TraceComms::new(&t, &tl);
            let c = comms.block(&t, 0, tl.block_range(0, t.locations.len() as u32));
            let bi = BlockIntervals::of_trace(&t, &tl, 0);
            let kept = block_tiles(&t, &plan, 0, &bi, &c, &mut Vec::new(), 1, None).expect("kept");
            for threads in 1..=4 {
                let written = Mutex::new(std::collections::BTreeMap::new());
                let write = |e: &TileEntry, bytes: &[u8]| {
                    let old = written.lock().unwrap().insert(e.path.clone(), bytes.to_vec());
                    assert!(old.is_none(), "{} written twice", e.path);
                    Ok(())
                };
                let mut particles = Vec::new();
                let out = block_tiles(&t, &plan, 0, &bi, &c, &mut particles, threads, Some(&write)).expect("written");
                let entries = |o: &BlockOutput| o.tiles.iter().map(|(e, _)| e.clone()).collect::<Vec<_>>();
                assert_eq!(entries(&out), entries(&kept), "seed {seed}, {threads} threads");
                assert!(out.tiles.iter().all(|(_, b)| b.is_empty()), "written tiles are not kept");
                let kept_bytes: std::collections::BTreeMap<_, _> =
                    kept.tiles.iter().map(|(e, b)| (e.path.clone(), b.clone())).collect();
                assert_eq!(written.into_inner().unwrap(), kept_bytes, "seed {seed}, {threads} threads");
                assert_eq!(out.region_totals, kept.region_totals);
                // The fourth tile's write fails: that error, whichever thread made it.
                let count = std::sync::atomic::AtomicUsize::new(0);
                let failing = |e: &TileEntry, _: &[u8]| match count.fetch_add(1, Ordering::Relaxed) {
                    3 => Err(format!("disk full at {}", e.path)),
                    _ => Ok(()),
                };
                let err = block_tiles(&t, &plan, 0, &bi, &c, &mut Vec::new(), threads, Some(&failing)).err();
                assert!(err.as_ref().is_some_and(|e| e.starts_with("disk full at ")), "{threads} threads: {err:?}");
            }
        }
    }

    #[test]
    fn a_location_summary_in_chunks_equals_the_whole_location() {
        let bits = |a: &MomentAccumulator| {
            let (reference, m0, mean, c2, c3) = a.to_parts();
            (reference, m0, mean.to_bits(), c2.to_bits(), c3.to_bits())
        };
        for seed in [1, 2, 3] {
            let t = nesting_trace(seed);
            let (iv, span) = (&t.intervals, t.span_ns);
            let scanner = BusyScanner::new(&t, &BusyDefinition::Compute);
            let mut whole_scanner = BusyScanner::new(&t, &BusyDefinition::Compute);
            for (bin_ns, bins) in [(span + 1, 1), (span / 300 + 1, 256)] {
                // Windows for the call paths: a few, so that intervals cross them.
                let tiling = Tiling {
                    block_locations: 64,
                    blocks: 1,
                    window_ns: span / 7 + 1,
                    windows: 8,
                    bins_per_tile: 1,
                    block_series: 0,
                };
                let mut summary = LocationSummary::new(&scanner, bin_ns, bins, tiling);
                let mut wholes = Vec::new();
                for (l, r) in t.location_intervals.iter().enumerate() {
                    let (region, start, dur) = (&iv.region[r.clone()], &iv.start_ns[r.clone()], &iv.dur_ns[r.clone()]);
                    let depth = &iv.depth[r.clone()];
                    let (instants, ends) = ([l as u64 * 7, span], [(span / 2, 64), (0, 8)]);
                    let (mut compute, mut any) = (Vec::new(), Vec::new());
                    assert!(whole_scanner.compute_and_any(region, start, dur, &mut compute, &mut any));
                    let input = LocationInput {
                        region,
                        start_ns: start,
                        dur_ns: dur,
                        depth,
                        busy_compute: &compute,
                        busy_any: &any,
                        instants: &instants,
                        message_ends: &ends,
                        span_ns: span,
                    };
                    let whole =
                        (crate::build::pyramid::level1(&input, bin_ns, bins), bits(&accumulate(&compute, None)));
                    let whole_any = bits(&accumulate(&any, None));
                    for cuts in chunkings(r.len(), seed) {
                        for c in &cuts {
                            summary.push(&region[c.clone()], &start[c.clone()], &dur[c.clone()], &depth[c.clone()]);
                        }
                        summary.instants(&instants);
                        summary.message_ends(&ends);
                        let Summarized { bins: level1, moments: [compute, any], paths } = summary.finish(span);
                        let mut one = callpaths::LocationPaths::new(tiling);
                        one.push(region, start, dur, depth);
                        let whole_paths = one.finish();
                        assert_eq!(paths.paths, whole_paths.paths, "location {l}: call paths whatever the chunks");
                        assert_eq!(paths.windows, whole_paths.windows, "location {l}: call paths whatever the chunks");
                        let n = cuts.iter().map(|c| c.len()).max();
                        assert_eq!(
                            (&level1, bits(&compute)),
                            (&whole.0, whole.1),
                            "location {l}, chunks of up to {n:?}"
                        );
                        assert_eq!(bits(&any), whole_any, "location {l}, chunks of up to {n:?}");
                    }
                    wholes.push(whole);
                }
                assert!(wholes.iter().any(|w| w.1 .4 != 0), "some location has every moment");
            }
        }
    }
    /// The particle tiles of any cut of the windows into ranges, each range tiled by its own tiler from
    /// the events of its windows and those of earlier ones running into them (as an MPI rank tiles its
    /// share), are the tiles of the whole, byte for byte; events running through several ranges included.
    #[test]
    fn particle_tiles_of_window_ranges_are_those_of_the_whole() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let t =
            Tiling { block_locations: 4, blocks: 2, window_ns: 1_000, windows: 40, bins_per_tile: 64, block_series: 4 };
        let mut events: Vec<Particle> = (0..3_000u64)
            .map(|i| {
                // Mostly short; some through a few windows, a few through most of the run, some of no time.
                let dur = match next() % 20 {
                    0 => next() % 30_000,
                    1..=3 => next() % 4_000,
                    4 => 0,
                    _ => next() % 300,
                };
                Particle {
                    start_ns: next() % 42_000,
                    location: (next() % 8) as u32,
                    index: i,
                    region: (next() % 3) as u32,
                    dur_ns: dur,
                }
            })
            .collect();
        events.sort();
        let whole = particle_tiles(events.clone(), &t);
        assert!(whole.len() > 30, "most windows have a tile");
        for n in [1, 2, 3, 7, 40, 45] {
            let mut got = Vec::new();
            for k in 0..n {
                let windows = crate::Shard { index: k, count: n }.windows(t.windows);
                // What a rank is sent: the events reaching its windows, in order.
                let mut tiler = ParticleTiler::over(t, windows.clone());
                let reach = |e: &Particle| {
                    let w = particle_windows(&t, e);
                    *w.start() < windows.end && *w.end() >= windows.start
                };
                for e in events.iter().filter(|e| reach(e)) {
                    tiler.push(*e);
                }
                tiler.finish();
                got.extend(tiler.done);
            }
            assert!(got == whole, "{n} ranges of windows");
        }
    }
}
