//! What a view draws at a summary level: the visible locations x bins of that level (busy time by
//! definition, dominant region, event and message counts) from the decoded summary tiles ([`summary_grid`],
//! or tile by tile, [`GridBuilder`]), and the busy spans a grid stands for ([`grid_busy`]).

use super::plan::{bin_range, level_bin_time, Plan, Resolution};
use crate::format::manifest::Manifest;
use crate::pyramid::Bins;
use serde::{Deserialize, Serialize};
use weft_analyses::busy::{BusyDefinition, BusyIntervals};

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
