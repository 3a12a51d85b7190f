//! What a store's timeline draws of its diagnosis (issue #53, a store indexed with `weft index --waits`):
//! where waiting concentrates, per visible location and bin of the view's pyramid level (the finest level
//! where the view is exact) from the wait summary tiles, and the critical path's segments in the window from
//! the path tiles of every block (so a jump to a row of a block not shown is drawn, never a silent gap: one
//! tile a block for the whole run, cached once; [`overlay_tiles`], gathered tile by tile by [`OverlayGather`]
//! beside the view's own answer). Never the waits tiles (every wait of a block over the whole run): the
//! answer grows with rows x bins and the path's segments in the window, not with the store.

use super::plan::{bin_range, level_bin_time, Plan, Resolution, TileIndex};
use crate::format::manifest::{Manifest, TileKind};
use crate::format::waits::WaitBinsTile;
use serde::{Deserialize, Serialize};
use weft_analyses::diagnosis::critical_path::PathSegment;

/// The diagnosis drawn over a store's timeline for one viewport: each visible location's waiting per bin
/// (every pattern), and the critical path's segments meeting the window.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct WaitOverlay {
    /// The pyramid level of the bins (the view's, or the finest where the view is exact).
    pub level: u32,
    pub bin_ns: u64,
    /// The level's bin count (its last bin reaches to the span's end).
    pub level_bins: u64,
    pub first_bin: u64,
    /// The window answered, ns from the origin.
    pub t0_ns: u64,
    pub t1_ns: u64,
    /// The rows answered: `locations` locations from `first_location`.
    pub first_location: u32,
    pub locations: u32,
    /// Per location from `first_location`, its waiting per bin from `first_bin` (empty: not asked, or the
    /// store has no pyramid level).
    pub rows: Vec<Vec<u64>>,
    /// What was asked: the waiting per bin, the path (a store of format 6 keeps none: no segments).
    pub waits_asked: bool,
    pub path_asked: bool,
    /// The path's segments meeting the window on every location, in time order (where the
    /// view was a pyramid level's, segments under a pixel folded to those that shape each pixel column).
    pub path_location: Vec<u32>,
    pub path_start_ns: Vec<u64>,
    pub path_end_ns: Vec<u64>,
    /// Store files not at hand (failed): their bins read as zeros, their segments are missing.
    pub missing: Vec<String>,
}

impl WaitOverlay {
    /// The time range of bin `k` of the overlay.
    pub fn bin_time(&self, k: usize, span_ns: u64) -> (u64, u64) {
        level_bin_time(self.first_bin + k as u64, self.bin_ns, self.level_bins, span_ns)
    }

    /// Location `l`'s bins, where answered.
    pub fn row(&self, l: u32) -> Option<&[u64]> {
        let k = l.checked_sub(self.first_location)? as usize;
        self.rows.get(k).map(Vec::as_slice)
    }
}

/// The level the overlay's bins are of: the plan's, or the finest where the plan is exact.
fn level_of(m: &Manifest, plan: &Plan) -> Option<u32> {
    match plan.resolution {
        Resolution::Level(l) => Some(l),
        Resolution::Exact => m.levels.iter().map(|l| l.level).min(),
    }
}

/// The tiles the overlay of `plan` needs: with `waits`, the wait summary tiles of its level, blocks and
/// bins (a tile not listed holds no waiting); with `path`, the path tiles of every block (the path leaves the
/// rows shown for others: its jumps there are drawn to the plot's edge). None where the
/// store keeps no wait states.
pub fn overlay_tiles(m: &Manifest, index: &TileIndex, plan: &Plan, waits: bool, path: bool) -> Vec<usize> {
    let mut out = Vec::new();
    if m.waits.is_none() || plan.locations.is_empty() {
        return out;
    }
    let tl = &m.tiling;
    let blocks = tl.block_of(plan.locations.start)..tl.block_of(plan.locations.end - 1) + 1;
    let level = level_of(m, plan).and_then(|l| m.levels.iter().find(|x| x.level == l));
    if let (true, Some(l)) = (waits, level) {
        let (b0, b1) = bin_range(l.bin_ns, l.bins, plan.t0_ns, plan.t1_ns);
        let per = tl.bins_per_tile.max(1) as u64;
        for b in blocks {
            out.extend(
                (b0 / per..=(b1 - 1) / per).filter_map(|j| index.get(TileKind::WaitSummary, l.level, b, j as u32)),
            );
        }
    }
    if path && m.critical_path.is_some() {
        out.extend((0..tl.blocks).filter_map(|b| index.get(TileKind::CriticalPath, 0, b, 0)));
    }
    out
}

/// The overlay of a plan gathered tile by tile, as the tiles come (from the cache or fetched).
#[derive(Clone, Debug)]
pub struct OverlayGather {
    overlay: WaitOverlay,
    b1: u64,
    nl: u32,
    segments: Vec<PathSegment>,
}

impl OverlayGather {
    /// None where the store keeps no wait states or nothing is asked.
    pub fn new(m: &Manifest, plan: &Plan, waits: bool, path: bool) -> Option<Self> {
        if m.waits.is_none() || !(waits || path) {
            return None;
        }
        let mut o = WaitOverlay {
            t0_ns: plan.t0_ns,
            t1_ns: plan.t1_ns,
            first_location: plan.locations.start,
            locations: plan.locations.len() as u32,
            waits_asked: waits,
            path_asked: path,
            ..Default::default()
        };
        let mut b1 = 0;
        let level = level_of(m, plan).and_then(|l| m.levels.iter().find(|x| x.level == l));
        if let (true, Some(l)) = (waits, level) {
            let (b0, end) = bin_range(l.bin_ns, l.bins, plan.t0_ns, plan.t1_ns);
            (o.level, o.bin_ns, o.level_bins, o.first_bin, b1) = (l.level, l.bin_ns, l.bins, b0, end);
            o.rows = vec![vec![0; (end - b0) as usize]; plan.locations.len()];
        }
        Some(OverlayGather { overlay: o, b1, nl: m.locations.process.len() as u32, segments: Vec::new() })
    }

    /// Copy in the bins of manifest tile `i` (a wait summary tile of the overlay's level).
    pub fn add_bins(&mut self, m: &Manifest, i: usize, tile: &WaitBinsTile) {
        let e = &m.tiles[i];
        let o = &mut self.overlay;
        if e.level != o.level || o.rows.is_empty() {
            return;
        }
        let first = e.window as u64 * m.tiling.bins_per_tile.max(1) as u64;
        let locs = o.first_location..o.first_location + o.rows.len() as u32;
        for (k, l) in m.tiling.block_range(e.block, self.nl).enumerate() {
            if !locs.contains(&l) {
                continue;
            }
            let row = &mut o.rows[(l - locs.start) as usize];
            for (j, &ns) in tile.row(k).iter().enumerate() {
                let b = first + j as u64;
                if b >= o.first_bin && b < self.b1 {
                    row[(b - o.first_bin) as usize] = ns;
                }
            }
        }
    }

    /// Take a path tile's segments: those meeting the window.
    pub fn add_path(&mut self, segments: &[PathSegment]) {
        let (t0, t1) = (self.overlay.t0_ns, self.overlay.t1_ns);
        self.segments.extend(segments.iter().filter(|s| s.end_ns >= t0 && s.start_ns <= t1));
    }

    /// A tile of the plan that is not at hand.
    pub fn missing(&mut self, path: String) {
        self.overlay.missing.push(path);
    }

    /// The overlay. `fold`: for a view drawn from a pyramid level, its scale (ns a pixel) and each
    /// location's place in the rows' order: segments under a pixel are kept only where they shape their pixel
    /// column (its first and last, and those on its topmost and bottommost rows), so the answer grows with
    /// the pixels, not with the path (an exact view is drawn down to finer scales, and keeps them all).
    pub fn finish(mut self, fold: Option<(f64, &[u32])>) -> WaitOverlay {
        let mut s = std::mem::take(&mut self.segments);
        s.sort_unstable_by_key(|x| (x.start_ns, x.end_ns));
        let mut o = self.overlay;
        let keep: Vec<bool> = match fold.filter(|(px, _)| px.is_finite() && *px > 0.0) {
            None => vec![true; s.len()],
            Some((px, rank)) => fold_segments(&s, o.t0_ns, px, rank),
        };
        for (x, _) in s.iter().zip(&keep).filter(|(_, &k)| k) {
            o.path_location.push(x.location.0);
            o.path_start_ns.push(x.start_ns);
            o.path_end_ns.push(x.end_ns);
        }
        o
    }
}

/// Which of `s` (in time order) shape the path drawn at `px` ns a pixel from `t0`: every segment a pixel or
/// wider, and in each pixel column the first and last segment starting there and those on its topmost and
/// bottommost row (`rank`: a location's place in the rows' order).
fn fold_segments(s: &[PathSegment], t0: u64, px: f64, rank: &[u32]) -> Vec<bool> {
    let col = |x: &PathSegment| (x.start_ns.saturating_sub(t0) as f64 / px).floor() as i64;
    let rank_of = |x: &PathSegment| rank.get(x.location.index()).copied().unwrap_or(x.location.0);
    let mut keep = vec![false; s.len()];
    let mut k = 0;
    while k < s.len() {
        let c = col(&s[k]);
        let end = k + s[k..].iter().take_while(|x| col(x) == c).count();
        keep[k] = true;
        keep[end - 1] = true;
        let group = k..end;
        if let Some(i) = group.clone().min_by_key(|&i| rank_of(&s[i])) {
            keep[i] = true;
        }
        if let Some(i) = group.clone().max_by_key(|&i| rank_of(&s[i])) {
            keep[i] = true;
        }
        for i in group {
            if (s[i].end_ns - s[i].start_ns) as f64 >= px {
                keep[i] = true;
            }
        }
        k = end;
    }
    keep
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft_model::LocationId;

    fn seg(l: u32, a: u64, b: u64) -> PathSegment {
        PathSegment { location: LocationId(l), start_ns: a, end_ns: b }
    }

    #[test]
    fn folding_keeps_wide_segments_and_each_columns_ends_and_extreme_rows() {
        // Pixel columns of 10 ns: column 0 holds four short segments on rows 2, 0, 3, 1; then a wide one.
        let s = [seg(2, 0, 2), seg(0, 2, 4), seg(3, 4, 6), seg(1, 6, 10), seg(1, 10, 40)];
        let rank = [0, 1, 2, 3];
        let keep = fold_segments(&s, 0, 10.0, &rank);
        // First (row 2), topmost (row 0), bottommost (row 3) and last of column 0 (row 1 at 6..8), the wide one.
        assert_eq!(keep, [true, true, true, true, true]);
        let s = [seg(2, 0, 1), seg(2, 1, 2), seg(0, 2, 3), seg(2, 3, 4), seg(2, 4, 5), seg(2, 5, 6)];
        assert_eq!(fold_segments(&s, 0, 10.0, &rank), [true, false, true, false, false, true]);
        // At a pixel per ns every segment is kept.
        assert!(fold_segments(&s, 0, 1.0, &rank).iter().all(|&k| k));
    }
}
