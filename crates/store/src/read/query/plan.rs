//! Which tiles a view needs: for a viewport (time window, visible locations, pixel width) the resolution (the
//! coarsest pyramid level whose bins are at most a pixel wide, or level 0, the exact records, once a level-1
//! bin is wider than a pixel and the window holds at most [`EXACT_MAX_INTERVALS`] of the rows' intervals) and
//! the tiles to fetch ([`plan`], [`exact_plan`], [`counter_tiles`]); which bins of a level a time range covers.

use crate::format::manifest::{Manifest, TileKind};
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use std::ops::Range;

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

/// [`plan`] for `vp`, its window widened by `margin` view widths on each side at the same scale where both
/// are answered exactly (the page's store view asks so: pans and zooms inside the wider window are drawn from
/// the answer it holds, `views::store::EXACT_MARGIN`); `vp`'s own plan where the wider window would be drawn
/// from a pyramid level ([`EXACT_MAX_INTERVALS`]) or `vp`'s is not exact.
pub fn plan_with_margin(m: &Manifest, index: &TileIndex, vp: &Viewport, margin: f64) -> Plan {
    let p = plan(m, index, vp);
    if p.resolution != Resolution::Exact || !margin.is_finite() || margin <= 0.0 {
        return p;
    }
    let w = (vp.t1_ns - vp.t0_ns).max(0.0) * margin;
    let wide = Viewport {
        t0_ns: vp.t0_ns - w,
        t1_ns: vp.t1_ns + w,
        width_px: vp.width_px * (1.0 + 2.0 * margin) as f32,
        ..vp.clone()
    };
    let q = plan(m, index, &wide);
    if q.resolution == Resolution::Exact {
        q
    } else {
        p
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
pub(super) fn level_bin_time(b: u64, bin_ns: u64, bins: u64, span_ns: u64) -> (u64, u64) {
    let start = b * bin_ns;
    let end = if b + 1 >= bins { span_ns.max(start) } else { start + bin_ns };
    (start, end)
}

/// The bins of a level (`bins` of `bin_ns`, the last one reaching to the span's end) that [t0, t1] touches.
pub(super) fn bin_range(bin_ns: u64, bins: u64, t0: u64, t1: u64) -> (u64, u64) {
    let last = bins.max(1) - 1;
    let b0 = (t0 / bin_ns.max(1)).min(last);
    let b1 = (t1 / bin_ns.max(1)).min(last) + 1;
    (b0, b1)
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
