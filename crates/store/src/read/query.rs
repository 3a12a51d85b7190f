//! What a view of a store needs, and what it draws from the tiles it got (issue #17, the page's side).
//! [`plan`]: for a viewport (time window, visible locations, pixel width) the resolution (the coarsest
//! pyramid level whose bins are at most a pixel wide, or level 0, the exact records, once a level-1 bin is
//! wider than a pixel and the window holds at most [`EXACT_MAX_INTERVALS`] of the rows' intervals) and the
//! tiles to fetch. [`summary_grid`]: the visible locations x bins of that level
//! (busy time by definition, dominant region, event and message counts) from the decoded summary tiles.
//! [`exact_trace`]: a `Trace` with the store's definitions and the exact records of the visible locations
//! that reach into the window, from the decoded level-0 tiles, which the ordinary timeline view draws and
//! hovers. Both also in steps, tile by tile ([`GridBuilder`], [`ExactSlice`]), so a view's tiles need not
//! all be held at once (the decoded tiles are kept in [`TileCache`], `super::cache`).
//! [`particle_plan`]: the particle tiles a playback range needs (its windows: each tile carries the events
//! of earlier windows still running at its start); [`particle_tile`] decodes one and [`ParticleGather`] keeps the
//! events live in the range, which `analyses::particles::EventSlicer` orders as the whole trace's index.
//!
//! Plain Rust, no files and no web types: the worker fetches the tiles a plan names and decodes them with
//! [`crate::Store`]; tests compare every answer with the whole trace (`tests/store_query.rs`).

use crate::counters::{CounterBinsTile, CounterTile, SampleRow, SeriesBins};
use crate::format::columns::{ColumnError, ColumnReader};
use crate::format::manifest::{Manifest, TileKind};
use crate::format::particles::{decode_particles, ParticleTile};
use crate::pyramid::Bins;
use crate::read::{CollectiveRow, EventsTile, MessageRow};
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use std::ops::Range;
use weft_analyses::busy::{BusyDefinition, BusyIntervals};
use weft_analyses::particles::{EventExtent, EventSlicer, SliceEvent};
use weft_model::codec::IntervalRows;
use weft_model::*;

pub use crate::read::cache::{Decoded, TileCache, DEFAULT_CACHE_BYTES};

/// What part of the trace a view shows.
#[derive(Clone, Debug, PartialEq)]
pub struct Viewport {
    /// Time window, ns from the origin (may reach outside the span: it is clamped).
    pub t0_ns: f64,
    pub t1_ns: f64,
    /// Visible locations by index (a range of the manifest's locations).
    pub locations: Range<u32>,
    /// Pixels across the time window.
    pub width_px: f32,
    /// The counter series whose tracks are on screen (by index; empty: none).
    pub series: Range<u32>,
}

/// How a viewport is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Resolution {
    /// Level 0: the exact intervals, instants, messages and collectives.
    Exact,
    /// A pyramid level (1 the finest), by its number in the manifest's `levels`.
    Level(u32),
}

/// The tiles a viewport needs, by index into the manifest's `tiles`.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    pub resolution: Resolution,
    /// The time window clamped to the span, as integers.
    pub t0_ns: u64,
    pub t1_ns: u64,
    /// The visible locations clamped to the store's.
    pub locations: Range<u32>,
    pub tiles: Vec<usize>,
    /// The counter series on screen clamped to the store's, and their tiles ([`counter_tiles`]).
    pub series: Range<u32>,
    pub counter_tiles: Vec<usize>,
}

/// The manifest's tiles by (kind, level, block, window), so a plan finds each in constant time.
#[derive(Clone, Debug, Default)]
pub struct TileIndex {
    map: FxHashMap<(TileKind, u32, u32, u32), usize>,
}

impl TileIndex {
    pub fn new(m: &Manifest) -> Self {
        let map = m.tiles.iter().enumerate().map(|(i, e)| ((e.kind, e.level, e.block, e.window), i)).collect();
        TileIndex { map }
    }
    pub fn get(&self, kind: TileKind, level: u32, block: u32, window: u32) -> Option<usize> {
        self.map.get(&(kind, level, block, window)).copied()
    }
}

/// The resolution for drawing `width_px` pixels over `ns` nanoseconds: the coarsest level whose bins are at
/// most a pixel wide (so a pixel column merges at most 4 bins), or exact once level 1's bins are wider.
pub fn resolution(m: &Manifest, ns: f64, width_px: f32) -> Resolution {
    let ns_per_px = ns.max(1.0) / (width_px.max(1.0) as f64);
    m.levels
        .iter()
        .filter(|l| l.bin_ns as f64 <= ns_per_px)
        .map(|l| l.level)
        .max()
        .map_or(Resolution::Exact, Resolution::Level)
}

/// Which tiles `vp` needs, at the resolution [`resolution`] picks.
pub fn plan(m: &Manifest, index: &TileIndex, vp: &Viewport) -> Plan {
    let span = m.span_ns.max(1);
    let clamp = |t: f64| if t.is_finite() { t.clamp(0.0, span as f64) as u64 } else { 0 };
    let (t0, t1) = (clamp(vp.t0_ns), clamp(vp.t1_ns).max(clamp(vp.t0_ns)));
    let nl = m.locations.process.len() as u32;
    let locations = vp.locations.start.min(nl)..vp.locations.end.min(nl);
    let mut resolution = resolution(m, vp.t1_ns - vp.t0_ns, vp.width_px);
    let mut tiles = Vec::new();
    let tl = &m.tiling;
    let blocks =
        if locations.is_empty() { 0..0 } else { tl.block_of(locations.start)..tl.block_of(locations.end - 1) + 1 };
    // A level-0 answer is held whole by the worker while it is built and sent: past about
    // EXACT_MAX_INTERVALS in the window the finest level is drawn instead (its bins wider than a pixel).
    if resolution == Resolution::Exact && exact_estimate(m, index, t0, t1, &locations) > EXACT_MAX_INTERVALS {
        if let Some(finest) = m.levels.iter().map(|l| l.level).min() {
            resolution = Resolution::Level(finest);
        }
    }
    match resolution {
        Resolution::Exact => tiles = exact_tiles(m, index, t0, t1, blocks),
        Resolution::Level(level) => {
            let l = m.levels.iter().find(|l| l.level == level).expect("resolution picks a listed level");
            let (b0, b1) = bin_range(l.bin_ns, l.bins, t0, t1);
            let per = tl.bins_per_tile.max(1) as u64;
            for b in blocks {
                tiles.extend(
                    (b0 / per..=(b1 - 1) / per).filter_map(|j| index.get(TileKind::Summary, level, b, j as u32)),
                );
            }
        }
    }
    let ns = m.counter_series.name.len() as u32;
    let series = vp.series.start.min(ns)..vp.series.end.min(ns);
    let counter_tiles = counter_tiles(m, index, resolution, t0, t1, &series);
    Plan { resolution, t0_ns: t0, t1_ns: t1, locations, tiles, series, counter_tiles }
}

/// The counter tiles the tracks of `series` need at `resolution` over [t0, t1]: the coarsest level's tile
/// of each of their blocks (the whole run's extremes, which scale a track), and the level-0 counter tiles of
/// the windows [t0, t1] overlaps (what was in effect at the first one's start is carried in its tile) or
/// the counter summary tiles of the level there.
pub fn counter_tiles(
    m: &Manifest,
    index: &TileIndex,
    resolution: Resolution,
    t0: u64,
    t1: u64,
    series: &Range<u32>,
) -> Vec<usize> {
    let (tl, mut out) = (&m.tiling, Vec::new());
    let Some(top) = m.levels.last() else { return out };
    // Formats 2 and 3 kept neither the counter pyramid (the tracks' scale) nor the value in effect at a
    // window's start: their counters reach `weft` and `Store::to_trace`, not the page's tracks.
    if series.is_empty() || m.version < 4 {
        return out;
    }
    let blocks = tl.series_block_of(series.start)..tl.series_block_of(series.end - 1) + 1;
    out.extend(blocks.clone().filter_map(|b| index.get(TileKind::CounterSummary, top.level, b, 0)));
    match resolution {
        Resolution::Exact => {
            let (w0, w1) = (tl.window_of(t0), tl.window_of(t1));
            for b in blocks {
                out.extend((w0..=w1).filter_map(|w| index.get(TileKind::Counters, 0, b, w)));
            }
        }
        Resolution::Level(level) if level != top.level => {
            let Some(l) = m.levels.iter().find(|l| l.level == level) else { return out };
            let (b0, b1) = bin_range(l.bin_ns, l.bins, t0, t1);
            let per = tl.bins_per_tile.max(1) as u64;
            for b in blocks {
                out.extend(
                    (b0 / per..=(b1 - 1) / per).filter_map(|j| index.get(TileKind::CounterSummary, level, b, j as u32)),
                );
            }
        }
        Resolution::Level(_) => {}
    }
    out
}

/// A counter series' whole-run figures: its samples and their smallest and largest finite values (0, 0
/// where it has none).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SeriesStats {
    pub samples: u64,
    pub min: f64,
    pub max: f64,
}

/// What the visible counter tracks are drawn from, beside a viewport's answer: each series' whole-run
/// figures and, zoomed out, its bins of the answer's level over the view (an exact answer's samples travel
/// in its trace slice).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CounterAnswer {
    /// The series asked; `stats` and `bins` hold one entry each, in order.
    pub series: Range<u32>,
    pub stats: Vec<SeriesStats>,
    /// The pyramid level of `bins` (0: exact; `bins` is empty).
    pub level: u32,
    pub bin_ns: u64,
    /// The level's bin count (its last bin reaches to the span's end).
    pub level_bins: u64,
    pub first_bin: u64,
    pub bins: Vec<SeriesBins>,
    /// Store files whose figures are missing here (not fetched, or failed).
    pub missing: Vec<String>,
}

impl CounterAnswer {
    /// The time range of bin `k` of the answer (the level's last bin ends at `span_ns`).
    pub fn bin_time(&self, k: usize, span_ns: u64) -> (u64, u64) {
        level_bin_time(self.first_bin + k as u64, self.bin_ns, self.level_bins, span_ns)
    }

    /// The bins of series `s`, if the answer holds them.
    pub fn bins_of(&self, s: u32) -> Option<&SeriesBins> {
        s.checked_sub(self.series.start).and_then(|k| self.bins.get(k as usize))
    }

    /// The whole-run figures of series `s`, if the answer holds them.
    pub fn stats_of(&self, s: u32) -> Option<&SeriesStats> {
        s.checked_sub(self.series.start).and_then(|k| self.stats.get(k as usize))
    }
}

/// A [`CounterAnswer`] gathered tile by tile (the plan's counter summary tiles; level-0 counter tiles go to
/// the [`ExactSlice`]).
#[derive(Clone, Debug)]
pub struct CounterGather {
    answer: CounterAnswer,
    top: u32,
    b1: u64,
}

impl CounterGather {
    pub fn new(m: &Manifest, plan: &Plan) -> Self {
        let n = plan.series.len();
        let top = m.levels.last().map_or(0, |l| l.level);
        let mut answer =
            CounterAnswer { series: plan.series.clone(), stats: vec![SeriesStats::default(); n], ..Default::default() };
        let mut b1 = 0;
        if let Resolution::Level(level) = plan.resolution {
            if let Some(l) = m.levels.iter().find(|l| l.level == level) {
                let (b0, end) = bin_range(l.bin_ns, l.bins, plan.t0_ns, plan.t1_ns);
                let nb = (end - b0) as usize;
                answer.level = level;
                answer.bin_ns = l.bin_ns;
                answer.level_bins = l.bins;
                answer.first_bin = b0;
                answer.bins = plan.series.clone().map(|s| SeriesBins::empty(s, None, nb)).collect();
                b1 = end;
            }
        }
        CounterGather { answer, top, b1 }
    }

    /// Copy in what manifest tile `i` (a counter summary tile) holds for the answer.
    pub fn add(&mut self, m: &Manifest, i: usize, tile: &CounterBinsTile) {
        let e = &m.tiles[i];
        let a = &mut self.answer;
        for src in tile.series.iter().filter(|s| a.series.contains(&s.series)) {
            let k = (src.series - a.series.start) as usize;
            if e.level == self.top {
                let (samples, ext) = src.totals();
                let (min, max) = ext.unwrap_or((0.0, 0.0));
                a.stats[k] = SeriesStats { samples, min, max };
            }
            if e.level != a.level || a.bins.is_empty() {
                continue;
            }
            let (b0, b1, first) = (a.first_bin, self.b1, tile.first_bin);
            let dst = &mut a.bins[k];
            if (first..first + src.count.len() as u64).contains(&b0) {
                dst.before = match (b0 - first).checked_sub(1) {
                    Some(j) => src.in_effect_after(j as usize),
                    None => src.before,
                };
            }
            for j in 0..src.count.len() {
                let b = first + j as u64;
                if b < b0 || b >= b1 {
                    continue;
                }
                let o = (b - b0) as usize;
                dst.count[o] = src.count[j];
                dst.min[o] = src.min[j];
                dst.max[o] = src.max[j];
                dst.last[o] = src.last[j];
            }
        }
    }

    /// A tile of the plan that is not at hand.
    pub fn missing(&mut self, path: String) {
        self.answer.missing.push(path);
    }

    pub fn finish(self) -> CounterAnswer {
        self.answer
    }
}

/// The level-0 events tiles of `blocks` over [t0, t1]: the windows it overlaps, no earlier (what started
/// before the first of them and still reaches into it is carried open in that window's tile; a window
/// without a tile has neither records nor anything open).
fn exact_tiles(m: &Manifest, index: &TileIndex, t0: u64, t1: u64, blocks: Range<u32>) -> Vec<usize> {
    let (w0, w1) = (m.tiling.window_of(t0), m.tiling.window_of(t1));
    blocks.flat_map(|b| (w0..=w1).filter_map(move |w| index.get(TileKind::Events, 0, b, w))).collect()
}

/// The exact records' plan for [t0, t1] (ns from the origin, clamped to the span) of `locations`, whatever
/// their number: no viewport, so no pyramid level and no [`EXACT_MAX_INTERVALS`] cap. For exact figures of a
/// window (`weft moments STORE/ --window T0:T1`), which read the window's tiles, not the whole store.
pub fn exact_plan(m: &Manifest, index: &TileIndex, t0: u64, t1: u64, locations: Range<u32>) -> Plan {
    let span = m.span_ns.max(1);
    let (t0, t1) = (t0.min(span), t1.min(span).max(t0.min(span)));
    let nl = m.locations.process.len() as u32;
    let locations = locations.start.min(nl)..locations.end.min(nl);
    let tl = &m.tiling;
    let blocks =
        if locations.is_empty() { 0..0 } else { tl.block_of(locations.start)..tl.block_of(locations.end - 1) + 1 };
    let tiles = exact_tiles(m, index, t0, t1, blocks);
    Plan {
        resolution: Resolution::Exact,
        t0_ns: t0,
        t1_ns: t1,
        locations,
        tiles,
        series: 0..0,
        counter_tiles: Vec::new(),
    }
}

/// The most intervals a level-0 view gathers, about (33 MB in the worker: the gathered lists, 24 bytes an
/// interval, and the answer's encoding, ~8; BENCHMARKS.md, "The tab under 512 MB"): a wider window of the
/// rows asked is drawn from the finest pyramid level, so the worker's memory beyond its cache is bounded
/// whatever the trace, the tiling or the rows on screen.
pub const EXACT_MAX_INTERVALS: u64 = 1 << 20;

/// About how many intervals of `locations` start in [t0, t1]: the level-0 tiles' interval counts, shared out
/// by the rows and the part of each window inside [t0, t1].
fn exact_estimate(m: &Manifest, index: &TileIndex, t0: u64, t1: u64, locations: &Range<u32>) -> u64 {
    let tl = &m.tiling;
    let nl = m.locations.process.len() as u32;
    if locations.is_empty() {
        return 0;
    }
    let (w0, w1) = (tl.window_of(t0), tl.window_of(t1));
    let wn = tl.window_ns.max(1);
    let mut n = 0.0;
    for b in tl.block_of(locations.start)..tl.block_of(locations.end - 1) + 1 {
        let block = tl.block_range(b, nl);
        let rows = block.end.min(locations.end).saturating_sub(block.start.max(locations.start));
        let share = rows as f64 / block.len().max(1) as f64;
        for w in w0..=w1 {
            let Some(i) = index.get(TileKind::Events, 0, b, w) else { continue };
            let ws = w as u64 * wn;
            let we = if w + 1 >= tl.windows { m.span_ns.max(ws + 1) } else { ws + wn };
            let inside = t1.min(we).saturating_sub(t0.max(ws)) as f64 / (we - ws) as f64;
            n += m.tiles[i].records as f64 * share * inside;
        }
    }
    n as u64
}

/// The time range of bin `b` of a level of `bins` bins of `bin_ns` (its last bin ends at `span_ns`).
fn level_bin_time(b: u64, bin_ns: u64, bins: u64, span_ns: u64) -> (u64, u64) {
    let start = b * bin_ns;
    let end = if b + 1 >= bins { span_ns.max(start) } else { start + bin_ns };
    (start, end)
}

/// The bins of a level (`bins` of `bin_ns`, the last one reaching to the span's end) that [t0, t1] touches.
fn bin_range(bin_ns: u64, bins: u64, t0: u64, t1: u64) -> (u64, u64) {
    let last = bins.max(1) - 1;
    let b0 = (t0 / bin_ns.max(1)).min(last);
    let b1 = (t1 / bin_ns.max(1)).min(last) + 1;
    (b0, b1)
}

/// The visible locations x bins of one pyramid level: what a zoomed-out timeline draws.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SummaryGrid {
    pub level: u32,
    pub bin_ns: u64,
    /// The level's bin count (its last bin reaches to the span's end).
    pub level_bins: u64,
    pub first_bin: u64,
    /// The first location of `rows`.
    pub first_location: u32,
    /// One row per location from `first_location` on, each with the same number of bins from `first_bin`.
    pub rows: Vec<Bins>,
    /// Store files whose bins are missing here (not fetched, or failed): their bins read as zeros.
    pub missing: Vec<String>,
}

impl SummaryGrid {
    /// The time range of bin `k` of the grid (the level's last bin ends at `span_ns`).
    pub fn bin_time(&self, k: usize, span_ns: u64) -> (u64, u64) {
        level_bin_time(self.first_bin + k as u64, self.bin_ns, self.level_bins, span_ns)
    }
    pub fn bins(&self) -> usize {
        self.rows.first().map_or(0, Bins::len)
    }
}

/// The summary grid of `plan` (a pyramid-level plan) from its decoded tiles: `tile(i)` is the decoded
/// summary tile of manifest tile `i`, or None when it is not at hand (its bins read as zeros and its file is
/// listed in `missing`).
pub fn summary_grid<'a>(m: &Manifest, plan: &Plan, tile: impl Fn(usize) -> Option<&'a [Bins]>) -> SummaryGrid {
    let Some(mut g) = GridBuilder::new(m, plan) else { return SummaryGrid::default() };
    for &i in &plan.tiles {
        match tile(i) {
            Some(bins) => g.add(m, i, bins),
            None => g.missing(m.tiles[i].path.clone()),
        }
    }
    g.finish()
}

/// The summary grid of a pyramid-level plan gathered tile by tile: each tile's bins are copied in as the
/// tile comes, so the worker need not hold every tile of the view at once (the cache keeps what fits).
#[derive(Clone, Debug)]
pub struct GridBuilder {
    grid: SummaryGrid,
    b1: u64,
    nl: u32,
}

impl GridBuilder {
    /// None for a level-0 plan.
    pub fn new(m: &Manifest, plan: &Plan) -> Option<Self> {
        let Resolution::Level(level) = plan.resolution else { return None };
        let l = m.levels.iter().find(|l| l.level == level)?;
        let (b0, b1) = bin_range(l.bin_ns, l.bins, plan.t0_ns, plan.t1_ns);
        let n = (b1 - b0) as usize;
        let grid = SummaryGrid {
            level,
            bin_ns: l.bin_ns,
            level_bins: l.bins,
            first_bin: b0,
            first_location: plan.locations.start,
            rows: vec![Bins::zeros(n); plan.locations.len()],
            missing: Vec::new(),
        };
        Some(GridBuilder { grid, b1, nl: m.locations.process.len() as u32 })
    }

    /// Copy in the bins of manifest tile `i` (a summary tile of the plan's level).
    pub fn add(&mut self, m: &Manifest, i: usize, bins: &[Bins]) {
        let e = &m.tiles[i];
        let g = &mut self.grid;
        let (b0, b1) = (g.first_bin, self.b1);
        let per = m.tiling.bins_per_tile.max(1) as u64;
        let locs = g.first_location..g.first_location + g.rows.len() as u32;
        let first = e.window as u64 * per;
        for (k, l) in m.tiling.block_range(e.block, self.nl).enumerate() {
            if !locs.contains(&l) {
                continue;
            }
            let (Some(src), row) = (bins.get(k), &mut g.rows[(l - locs.start) as usize]) else { continue };
            if src.lanes > row.lanes {
                row.set_lanes(src.lanes);
            }
            let (n, sn) = (row.len(), src.len());
            for (j, b) in (first..first + src.len() as u64).enumerate() {
                if b < b0 || b >= b1 {
                    continue;
                }
                let o = (b - b0) as usize;
                row.busy_compute_ns[o] = src.busy_compute_ns[j];
                row.busy_any_ns[o] = src.busy_any_ns[j];
                row.dominant_region[o] = src.dominant_region[j];
                row.dominant_ns[o] = src.dominant_ns[j];
                row.events[o] = src.events[j];
                row.messages[o] = src.messages[j];
                row.message_bytes[o] = src.message_bytes[j];
                for d in 0..src.lanes as usize {
                    row.lane_region[d * n + o] = src.lane_region[d * sn + j];
                    row.lane_cover[d * n + o] = src.lane_cover[d * sn + j];
                }
            }
        }
    }

    /// A tile of the plan that is not at hand: its bins read as zeros, its file is named.
    pub fn missing(&mut self, path: String) {
        self.grid.missing.push(path);
    }

    pub fn finish(self) -> SummaryGrid {
        self.grid
    }
}

/// Busy intervals of every one of `locations` locations under `compute` (else "any") from a summary grid,
/// for the Utilization & moments view of a store zoomed out: per bin one interval of the bin's busy time,
/// centred in the bin. The pyramid keeps how much of a bin is busy, not where, so moments of a window over
/// these are exact in m0 where the window's ends fall on bin edges, and the mean and spread are within a
/// bin's width of the trace's. Locations outside the grid have none.
pub fn grid_busy(grid: &SummaryGrid, locations: usize, span_ns: u64, compute: bool) -> BusyIntervals {
    let definition = if compute { BusyDefinition::Compute } else { BusyDefinition::Any };
    let mut ranges = Vec::with_capacity(locations);
    let mut spans: Vec<[u64; 2]> = Vec::new();
    for l in 0..locations {
        let start = spans.len() as u64;
        let row = (l as u64).checked_sub(grid.first_location as u64).and_then(|g| grid.rows.get(g as usize));
        if let Some(bins) = row {
            let busy = if compute { &bins.busy_compute_ns } else { &bins.busy_any_ns };
            for (k, &ns) in busy.iter().enumerate() {
                let (a, b) = grid.bin_time(k, span_ns);
                let ns = ns.min(b - a);
                if ns > 0 {
                    let s = a + (b - a - ns) / 2;
                    let mine = spans.len() as u64 > start;
                    match spans.last_mut() {
                        // Busy bins that touch make one interval (the view's intervals are disjoint).
                        Some(last) if mine && last[1] >= s => last[1] = s + ns,
                        _ => spans.push([s, s + ns]),
                    }
                }
            }
        }
        ranges.push([start, spans.len() as u64]);
    }
    BusyIntervals::from_columns(definition, &ranges, &spans).expect("ranges built here are in range")
}

/// The exact records of `plan` (a level-0 plan) from its decoded tiles, as a `Trace` with `skeleton`'s
/// definitions (`Store::skeleton`): the intervals of the plan's locations that reach into [t0, t1] (in the
/// model's order: location, start, depth), their instants in the window, the messages sent or received there
/// by those locations (from the tiles fetched: the senders' blocks), and their collective rows reaching into
/// it. Times stay relative to the store's origin, so the view's axis and hover are the trace's.
pub fn exact_trace(skeleton: &Trace, plan: &Plan, tiles: &[&EventsTile]) -> Trace {
    let mut x = ExactSlice::new(plan);
    for tile in tiles {
        x.add(tile);
    }
    x.finish(skeleton)
}

/// The exact records of a level-0 plan gathered tile by tile ([`exact_trace`] in steps): what a tile holds
/// for the window is copied out as the tile comes, so the worker need not hold every tile of the view at
/// once. Each tile must be added once. A record is taken from its start window's tile when that window is in
/// view, else from the open records of the tile of the view's first window (the window holding `t0`): the
/// records reaching into the view that started before it are exactly those carried open there.
#[derive(Clone, Debug, Default)]
pub struct ExactSlice {
    t0: u64,
    t1: u64,
    locs: Range<u32>,
    /// Per location of `locs`: (start, depth, region, duration) of the intervals reaching into the window.
    per_loc: Vec<Vec<(u64, u16, RegionId, u64)>>,
    instants: Vec<(u64, LocationId, RegionId, u64)>,
    messages: Vec<MessageRow>,
    collectives: Vec<CollectiveRow>,
    /// The counter series asked, their samples in the window, and per series the last one before it.
    series: Range<u32>,
    samples: Vec<SampleRow>,
    before: Vec<Option<SampleRow>>,
}

impl ExactSlice {
    pub fn new(plan: &Plan) -> Self {
        ExactSlice {
            t0: plan.t0_ns,
            t1: plan.t1_ns,
            locs: plan.locations.clone(),
            per_loc: vec![Vec::new(); plan.locations.len()],
            series: plan.series.clone(),
            before: vec![None; plan.series.len()],
            ..Default::default()
        }
    }

    /// Copy out what a level-0 counter tile holds for the window and series: the samples in it, and the
    /// last one before it of each series (from the tile's own samples, or carried open into its window).
    pub fn add_counters(&mut self, tile: &CounterTile) {
        let (t0, t1) = (self.t0, self.t1);
        for (&s, open) in tile.samples.iter().map(|s| (s, false)).chain(tile.open.iter().map(|s| (s, true))) {
            if !self.series.contains(&s.1) {
                continue;
            }
            if s.2 < t0 {
                let b = &mut self.before[(s.1 - self.series.start) as usize];
                if b.is_none_or(|b| (b.2, b.0) < (s.2, s.0)) {
                    *b = Some(s);
                }
            } else if !open && s.2 <= t1 {
                self.samples.push(s);
            }
        }
    }

    /// Copy out what `tile` holds for the window and locations.
    pub fn add(&mut self, tile: &EventsTile) {
        let (t0, t1, locs) = (self.t0, self.t1, self.locs.clone());
        let reaches = |s: u64, d: u64| s <= t1 && s + d >= t0;
        let first = tile.window_ns.contains(&t0);
        // Each location's list grown to what it takes, not doubled: the gathered slice is the store
        // worker's largest allocation beside its cache (BENCHMARKS.md, "Store format 2": the page).
        let mut more = vec![0usize; self.per_loc.len()];
        let own = tile.intervals.iter().map(|&(l, _, s, d, _)| (l, s, d));
        let open = tile.open.intervals.iter().filter(|_| first).map(|&(_, l, _, s, d, _)| (l, s, d));
        for (l, s, d) in own.chain(open) {
            if locs.contains(&l.0) && reaches(s, d) {
                more[(l.0 - locs.start) as usize] += 1;
            }
        }
        for (v, n) in self.per_loc.iter_mut().zip(more) {
            v.reserve_exact(n);
        }
        for &(l, r, s, d, depth) in &tile.intervals {
            if locs.contains(&l.0) && reaches(s, d) {
                self.per_loc[(l.0 - locs.start) as usize].push((s, depth, r, d));
            }
        }
        let open = tile.open.intervals.iter().filter(|_| first);
        for &(_, l, r, s, d, depth) in open {
            if locs.contains(&l.0) && reaches(s, d) {
                self.per_loc[(l.0 - locs.start) as usize].push((s, depth, r, d));
            }
        }
        for &(k, l, r, time) in &tile.instants {
            if locs.contains(&l.0) && time >= t0 && time <= t1 {
                self.instants.push((k, l, r, time));
            }
        }
        let open = tile.open.messages.iter().filter(|_| first);
        for m in tile.messages.iter().chain(open) {
            let (s, r, send, recv) = (m.sender, m.receiver, m.send_ns, m.recv_ns);
            if (locs.contains(&s.0) || locs.contains(&r.0)) && send.min(recv) <= t1 && send.max(recv) >= t0 {
                self.messages.push(*m);
            }
        }
        let open = tile.open.collectives.iter().filter(|_| first);
        for c in tile.collectives.iter().chain(open) {
            if locs.contains(&c.location.0) && c.start_ns <= t1 && c.end_ns >= t0 {
                self.collectives.push(*c);
            }
        }
    }

    /// Intervals gathered so far.
    pub fn intervals(&self) -> usize {
        self.per_loc.iter().map(Vec::len).sum()
    }

    /// The slice as a `Trace` with `skeleton`'s definitions.
    pub fn finish(self, skeleton: &Trace) -> Trace {
        let (mut t, rows) = self.into_parts(skeleton, true);
        let n = rows.len();
        let iv = &mut t.intervals;
        iv.location.reserve_exact(n);
        iv.region.reserve_exact(n);
        iv.start_ns.reserve_exact(n);
        iv.dur_ns.reserve_exact(n);
        iv.depth.reserve_exact(n);
        for (l, v) in rows.0 {
            let start = iv.location.len();
            for (s, depth, r, d) in v {
                iv.location.push(l);
                iv.region.push(r);
                iv.start_ns.push(s);
                iv.dur_ns.push(d);
                iv.depth.push(depth);
            }
            t.location_intervals[l.index()] = start..iv.location.len();
        }
        t
    }

    /// [`ExactSlice::finish`] encoded by `model::codec` as a slice over `skeleton`'s definitions (the page
    /// holds them: `codec::decode_over(bytes, skeleton)` gives what `finish` does), without building the
    /// `Trace`: the intervals are written from the per-location lists, so the store worker holds them and the
    /// answer's bytes, not a third copy between them (BENCHMARKS.md, "The tab under 512 MB"); and without
    /// the definitions, which grow with the locations, not with what the window holds (BENCHMARKS.md
    /// "Session 34").
    pub fn encode(self, skeleton: &Trace) -> Vec<u8> {
        let (t, rows) = self.into_parts(skeleton, false);
        codec::encode_slice_with(&t, skeleton, &rows)
    }

    /// `skeleton` (with `tables`, its definitions too; else empty ones) with the slice's instants, messages
    /// and collectives and no intervals, and the intervals of each location in the model's order (start,
    /// depth).
    fn into_parts(self, skeleton: &Trace, tables: bool) -> (Trace, SliceRows) {
        let mut t = match tables {
            true => skeleton.clone(),
            false => Trace {
                format: skeleton.format,
                strings: Default::default(),
                processes: Default::default(),
                locations: Default::default(),
                regions: Default::default(),
                intervals: Default::default(),
                instants: Default::default(),
                messages: Default::default(),
                collectives: Default::default(),
                counters: Counters {
                    series_name: skeleton.counters.series_name.clone(),
                    series_process: skeleton.counters.series_process.clone(),
                    ..Default::default()
                },
                warnings: skeleton.warnings.clone(),
                origin_ns: skeleton.origin_ns,
                span_ns: skeleton.span_ns,
                location_intervals: Vec::new(),
                event_records: skeleton.event_records,
            },
        };
        let nl = skeleton.locations.len();
        if tables {
            t.location_intervals = vec![0..0; nl];
        }
        let mut rows = Vec::new();
        for (k, mut v) in self.per_loc.into_iter().enumerate() {
            let l = self.locs.start + k as u32;
            if v.is_empty() || l as usize >= nl {
                continue;
            }
            v.sort_by_key(|&(s, depth, _, _)| (s, depth));
            rows.push((LocationId(l), v));
        }
        // Instants, messages and collectives in the trace's order (their index in the whole trace).
        let (mut instants, mut messages, mut collectives) = (self.instants, self.messages, self.collectives);
        instants.sort_by_key(|x| x.0);
        for (_, l, r, time) in instants {
            t.instants.location.push(l);
            t.instants.region.push(r);
            t.instants.time_ns.push(time);
        }
        messages.sort_by_key(|x| x.index);
        messages.iter().for_each(|x| x.push_to(&mut t.messages));
        // Counter samples in the model's order (series, then time), each series' last before the window first.
        let mut samples = self.samples;
        samples.extend(self.before.into_iter().flatten());
        samples.sort_by_key(|s| (s.1, s.2, s.0));
        for (_, series, time, value) in samples {
            t.counters.sample_series.push(series);
            t.counters.sample_time_ns.push(time);
            t.counters.sample_value.push(value);
        }
        collectives.sort_by_key(|x| x.index);
        collectives.iter().for_each(|x| x.push_to(&mut t.collectives));
        (t, SliceRows(rows))
    }
}

/// An exact slice's intervals by location, each location's in the model's order, for `codec::encode_with`.
#[allow(clippy::type_complexity)]
struct SliceRows(Vec<(LocationId, Vec<(u64, u16, RegionId, u64)>)>);

impl IntervalRows for SliceRows {
    fn len(&self) -> usize {
        self.0.iter().map(|(_, v)| v.len()).sum()
    }
    fn each(&self, mut f: impl FnMut(LocationId, RegionId, u64, u64, u16)) {
        for (l, v) in &self.0 {
            for &(s, depth, r, d) in v {
                f(*l, r, s, d, depth);
            }
        }
    }
}

/// The particle tiles playback needs to show every event live at some time in `[t0_ns, t1_ns]` when
/// particles fade for `fade_ns` (started by `t1_ns`, ended, plus the fading, after `t0_ns`): the particle
/// tiles of the windows from `t0_ns - fade_ns`'s to `t1_ns`'s, no earlier (the events started before the first
/// of them and still running at its start are carried in its tile), by window. Also the end of what the
/// slice holds (ns): `t1_ns + 1`, every event starting by `t1_ns`, or `u64::MAX` once `t1_ns` reaches the
/// particle events' latest end (every event starts by then). The slice ends at the range asked, not at its
/// last window's end: a window of a big store holds millions of events, the range a few seconds of
/// playback's (`views::particles`).
pub fn particle_plan(m: &Manifest, index: &TileIndex, t0_ns: u64, t1_ns: u64, fade_ns: u64) -> (Vec<usize>, u64) {
    let t = &m.tiling;
    let t1_ns = t1_ns.max(t0_ns);
    let (wa, wb) = (t.window_of(t0_ns.saturating_sub(fade_ns)), t.window_of(t1_ns));
    let tiles = (wa..=wb).filter_map(|w| index.get(TileKind::Particles, 0, 0, w)).collect();
    (tiles, particle_slice_end(m.particles.map_or(0, |p| p.span_ns), t1_ns))
}

/// Per window of the store's particle tiles, the events starting in it (each tile's record count; 0 for a
/// window without a tile): the particle strip's outline of the whole run before playback loads its events.
pub fn particle_window_starts(m: &Manifest) -> Vec<u64> {
    let mut starts = vec![0u64; m.tiling.windows as usize];
    for e in m.tiles.iter().filter(|e| e.kind == TileKind::Particles) {
        if let Some(s) = starts.get_mut(e.window as usize) {
            *s += e.records;
        }
    }
    starts
}

/// Where a particle slice asked up to `t1_ns` ends (see [`particle_plan`]), `span_ns` the particle events'
/// latest end: the page's pane computes it the same way for the range it asked.
pub fn particle_slice_end(span_ns: u64, t1_ns: u64) -> u64 {
    if t1_ns < span_ns {
        t1_ns + 1
    } else {
        u64::MAX
    }
}

/// Decode a particle tile (`p/w{W}`): its events and those carried running into it, checked against the
/// manifest (record count, ids, each event starting in the window, each carried one running at its start).
/// Errors name the file.
pub fn particle_tile<S: crate::TileSource>(
    store: &crate::Store<S>,
    e: &crate::TileEntry,
) -> Result<ParticleTile, crate::StoreError> {
    let payload = store.payload(e)?;
    let m = &store.manifest;
    let corrupt = |c: ColumnError| crate::StoreError::Corrupt { file: e.path.clone(), detail: c.to_string() };
    let window = m.tiling.window_span(e.window);
    let mut r = ColumnReader::new(&payload);
    let events = decode_particles(&mut r, m, |s, _| window.contains(&s), "outside the window").map_err(corrupt)?;
    if events.len() as u64 != e.records {
        return Err(crate::StoreError::Mismatch {
            file: e.path.clone(),
            detail: format!("{} particle events, the manifest says {}", events.len(), e.records),
        });
    }
    let ws = window.start;
    let open =
        decode_particles(&mut r, m, |s, end| s < ws && end > ws, "carried but not running at the window's start")
            .map_err(corrupt)?;
    if !r.at_end() {
        return Err(corrupt(ColumnError { offset: 0, detail: "bytes after the last column".into() }));
    }
    Ok(ParticleTile { window_ns: window, events, open })
}

/// The particle view's [`EventSlicer`] for a store (`skeleton`: its definitions): None when the store holds
/// no particle events.
pub fn particle_slicer(m: &Manifest, skeleton: &Trace) -> Option<EventSlicer> {
    let stats = m.particles?;
    let counts: Vec<u64> = m.region_totals.iter().map(|t| t[0]).collect();
    let extent = EventExtent {
        first_ns: stats.first_ns,
        min_dur_ns: stats.min_dur_ns,
        max_dur_ns: stats.max_dur_ns,
        span_ns: stats.span_ns,
    };
    Some(EventSlicer::new(skeleton, &counts, extent))
}

/// The particle events live at some time in `[from_ns, to_ns]` with fading `fade_ns`, read from the store
/// at once (the worker does the same tile by tile, through its cache), with the end of what the slice
/// holds (see [`particle_plan`]).
pub fn particle_slice<S: crate::TileSource>(
    store: &crate::Store<S>,
    slicer: &EventSlicer,
    index: &TileIndex,
    (from_ns, to_ns, fade_ns): (u64, u64, u64),
) -> Result<(weft_analyses::particles::ParticleEvents, u64), crate::StoreError> {
    let (tiles, end_ns) = particle_plan(&store.manifest, index, from_ns, to_ns, fade_ns);
    let mut g = ParticleGather { t0_ns: from_ns, end_ns, fade_ns, events: Vec::new() };
    for i in tiles {
        g.add(&particle_tile(store, &store.manifest.tiles[i])?);
    }
    Ok((slicer.slice(g.events.into_iter()), end_ns))
}

/// The particle events of a playback range gathered tile by tile: those live at some time in `[t0_ns, end)`
/// with fading `fade_ns` (started before `end`, ending, plus the fading, after `t0_ns`). Each tile's own
/// events, and the events carried running into the first window planned (the one holding `t0_ns - fade_ns`):
/// an event live in the range that started before that window runs at its start. Each tile must be added once.
#[derive(Clone, Debug, Default)]
pub struct ParticleGather {
    pub t0_ns: u64,
    pub end_ns: u64,
    pub fade_ns: u64,
    pub events: Vec<SliceEvent>,
}

impl ParticleGather {
    pub fn add(&mut self, tile: &ParticleTile) {
        let (t0, end, fade) = (self.t0_ns, self.end_ns, self.fade_ns);
        let first = tile.window_ns.contains(&t0.saturating_sub(fade));
        let open = tile.open.iter().filter(|_| first);
        self.events.extend(
            tile.events
                .iter()
                .chain(open)
                .filter(|e| e.start_ns < end && (e.start_ns + e.dur_ns).saturating_add(fade) > t0)
                .copied(),
        );
    }
}
