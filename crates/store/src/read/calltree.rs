//! The call tree of a store's selection (a window and a set of locations) from its call-path tiles (format
//! 8, `format::callpaths`): the whole level-0 windows inside the range from the fewest pyramid tiles that
//! cover them (the whole run: one tile a block), the range's two edges from the level-0 tiles of their
//! windows. The tree is `analyses::calltree`'s of the trace, node for node (`tests/store_calltree.rs`).
//!
//! How a range `[t0, t1]` adds up: time is additive over windows (an interval's time inside the range is its
//! time inside each piece); an interval counts once, by its start, or, started before `t0`, when it is open
//! across `t0`. So: the edge before the first whole window counts its starts and what is open across `t0`;
//! the whole windows their tiles' starts (and the first tile's `open` when `t0` is its start); the edge after
//! the last whole window its starts before `t1` and the instants at `t1`. A range inside one window, or of
//! no length, is the level-0 tiles' alone.
//! Memory: one block's tiles and edges at a time, and the figures of the paths met (per location with
//! `per_location`). A store before format 8 has no call-path tiles: [`has_callpaths`] says so and the
//! caller reads the trace back instead.
//! Where the tiles come from is a [`CallTiles`]: the store itself (the CLI), or a viewer's cache of tiles it
//! fetched (the page's store worker), which asks [`calltree_tiles`] first for the tiles to fetch.

use super::query::{exact_plan, exact_trace, TileIndex};
use super::Store;
use crate::format::callpaths::CallPathsTile;
use crate::format::callpaths::{tile_windows, windows_per_tile, CALLPATHS_VERSION};
use crate::format::events::EventsTile;
use crate::format::manifest::Manifest;
use crate::format::manifest::TileKind;
use crate::{StoreError, TileSource};
use rustc_hash::FxHashMap;
use std::borrow::Cow;
use weft_analyses::calltree::{call_tree, per_location, CallTree, LocationCallTree, PathTotals};
use weft_analyses::moments::TimeWindow;
use weft_model::{LocationId, RegionId, Trace};

/// Whether `store` keeps call-path tiles (format 8 on).
pub fn has_callpaths<S: TileSource>(store: &Store<S>) -> bool {
    store.manifest.version >= CALLPATHS_VERSION
}

/// Where the call tree's tiles come from, by manifest index: decoded and checked from the store
/// ([`Store`]'s own), or a viewer's cache of the tiles it fetched.
pub trait CallTiles {
    fn callpaths(&self, i: usize) -> Result<Cow<'_, CallPathsTile>, StoreError>;
    fn events(&self, i: usize) -> Result<Cow<'_, EventsTile>, StoreError>;
}

impl<S: TileSource> CallTiles for Store<S> {
    fn callpaths(&self, i: usize) -> Result<Cow<'_, CallPathsTile>, StoreError> {
        self.callpaths_tile(&self.manifest.tiles[i]).map(Cow::Owned)
    }
    fn events(&self, i: usize) -> Result<Cow<'_, EventsTile>, StoreError> {
        self.events_tile(&self.manifest.tiles[i]).map(Cow::Owned)
    }
}

/// The call tree of `window` (the whole run when None) merged over the locations `keep` accepts, from the
/// tiles; `skeleton` is `Store::skeleton`'s (names, for ranking siblings).
pub fn store_call_tree<S: TileSource>(
    store: &Store<S>,
    skeleton: &Trace,
    window: Option<TimeWindow>,
    keep: impl Fn(LocationId) -> bool,
) -> Result<CallTree, StoreError> {
    call_tree_from(&store.manifest, store, skeleton, window, keep)
}

/// [`store_call_tree`] with the tiles from `tiles` (those [`calltree_tiles`] names).
pub fn call_tree_from(
    m: &Manifest,
    tiles: &dyn CallTiles,
    skeleton: &Trace,
    window: Option<TimeWindow>,
    keep: impl Fn(LocationId) -> bool,
) -> Result<CallTree, StoreError> {
    match gather(m, tiles, skeleton, window, &keep, false)? {
        Gathered::Exact(slice, w) => Ok(call_tree(&slice, Some(w), keep)),
        Gathered::Sums(s) => Ok(s.tree(0, skeleton)),
    }
}

/// One call tree per location `keep` accepts (locations without a counted interval left out), in location
/// order: `analyses::calltree::per_location` of the trace, from the tiles.
pub fn store_per_location<S: TileSource>(
    store: &Store<S>,
    skeleton: &Trace,
    window: Option<TimeWindow>,
    keep: impl Fn(LocationId) -> bool,
) -> Result<Vec<LocationCallTree>, StoreError> {
    per_location_from(&store.manifest, store, skeleton, window, keep)
}

/// [`store_per_location`] with the tiles from `tiles` (those [`calltree_tiles`] names).
pub fn per_location_from(
    m: &Manifest,
    tiles: &dyn CallTiles,
    skeleton: &Trace,
    window: Option<TimeWindow>,
    keep: impl Fn(LocationId) -> bool,
) -> Result<Vec<LocationCallTree>, StoreError> {
    match gather(m, tiles, skeleton, window, &keep, true)? {
        Gathered::Exact(slice, w) => Ok(per_location(&slice, Some(w), keep)),
        Gathered::Sums(s) => {
            let mut out = Vec::new();
            for (slot, &l) in s.slots.iter().enumerate() {
                let tree = s.tree(slot, skeleton);
                if !tree.nodes.is_empty() {
                    out.push(LocationCallTree { location: l, tree });
                }
            }
            Ok(out)
        }
    }
}

/// The tiles (manifest indices, each once) the call tree of `window` over the locations `keep` accepts
/// reads: the call-path tiles covering its whole windows, and the level-0 events tiles of its edges (or of
/// the whole range, where it has no whole window), of the blocks holding a selected location.
pub fn calltree_tiles(m: &Manifest, window: Option<TimeWindow>, keep: impl Fn(LocationId) -> bool) -> Vec<usize> {
    let index = TileIndex::new(m);
    let nl = m.locations.process.len() as u32;
    let chosen: Vec<bool> = (0..nl).map(|l| keep(LocationId(l))).collect();
    let mut out = Vec::new();
    match reading(m, window) {
        Reading::Exact { t0, t1 } => out.extend(exact_plan(m, &index, t0, t1, 0..nl).tiles),
        Reading::Sums(r) => {
            for block in 0..m.tiling.blocks {
                let locs = m.tiling.block_range(block, nl);
                if !locs.clone().any(|l| chosen[l as usize]) {
                    continue;
                }
                out.extend(r.pieces.iter().filter_map(|&(level, j)| index.get(TileKind::CallPaths, level, block, j)));
                for reach in r.edges().into_iter().flatten() {
                    out.extend(exact_plan(m, &index, reach[0], reach[1], locs.clone()).tiles);
                }
            }
        }
    }
    let mut seen = rustc_hash::FxHashSet::default();
    out.retain(|&i| seen.insert(i));
    out
}

/// How a range is read: the level-0 tiles alone (no whole window inside it), or its whole windows (from
/// window `a`) from the pyramid's `pieces` and the two edges from level-0 tiles.
enum Reading {
    Exact { t0: u64, t1: u64 },
    Sums(Cover),
}

struct Cover {
    t0: u64,
    t1: u64,
    a: u32,
    /// The start of window `a`, and of window `b` (None: `b` is the run's end).
    ws_a: u64,
    ws_b: Option<u64>,
    pieces: Vec<(u32, u32)>,
    left_aligned: bool,
}

impl Cover {
    /// What each edge reads (ns, inclusive): before the first whole window, after the last.
    fn edges(&self) -> [Option<[u64; 2]>; 2] {
        [(self.t0 < self.ws_a).then(|| [self.t0, self.ws_a - 1]), self.ws_b.map(|ws_b| [ws_b, self.t1])]
    }
}

fn reading(m: &Manifest, window: Option<TimeWindow>) -> Reading {
    let tl = m.tiling;
    let w = window.unwrap_or(TimeWindow { start_ns: 0, end_ns: m.span_ns });
    let (t0, t1) = (w.start_ns, w.end_ns.max(w.start_ns));
    let w0 = tl.window_of(t0);
    // The whole windows [a, b) inside the range.
    let a = if tl.window_span(w0).start == t0 { w0 } else { w0 + 1 };
    let b = if t1 >= m.span_ns { tl.windows } else { tl.window_of(t1) };
    if t0 == t1 || a >= b {
        // (At most two windows' level-0 tiles: the range has no whole window.)
        return Reading::Exact { t0, t1 };
    }
    Reading::Sums(Cover {
        t0,
        t1,
        a,
        ws_a: tl.window_span(a).start,
        ws_b: (b < tl.windows).then(|| tl.window_span(b).start),
        pieces: cover(a, b, m.levels.len() as u32, tl.windows),
        left_aligned: tl.window_span(a).start == t0,
    })
}

enum Gathered {
    /// A range with no whole window: the slice of the level-0 tiles reaching into it, and the window.
    Exact(Box<Trace>, TimeWindow),
    Sums(Sums),
}

/// One path's figures while they are summed (exclusive time wrapping until done).
#[derive(Clone, Copy, Default)]
struct Fig {
    count: u64,
    inclusive_ns: u64,
    exclusive_ns: u64,
}

/// The paths met, numbered as met (parents first), and per slot (one merged, or one a selected location)
/// their figures.
struct Sums {
    paths: Vec<(Option<u32>, u32)>,
    ids: FxHashMap<(u32, u32), u32>,
    per_location: bool,
    /// The selected locations in order (per location), the slot of each location (u32::MAX: not selected).
    slots: Vec<LocationId>,
    slot_of: Vec<u32>,
    figs: Vec<Vec<Fig>>,
}

impl Sums {
    fn id(&mut self, parent: Option<u32>, region: u32) -> u32 {
        let next = self.paths.len() as u32;
        let id = *self.ids.entry((parent.unwrap_or(u32::MAX), region)).or_insert(next);
        if id == next {
            self.paths.push((parent, region));
        }
        id
    }

    fn slot(&self, l: u32) -> usize {
        if self.per_location {
            self.slot_of[l as usize] as usize
        } else {
            0
        }
    }

    #[inline]
    fn fig(&mut self, slot: usize, path: u32) -> &mut Fig {
        let v = &mut self.figs[slot];
        if v.len() <= path as usize {
            v.resize(self.paths.len().max(path as usize + 1), Fig::default());
        }
        &mut v[path as usize]
    }

    fn tree(&self, slot: usize, skeleton: &Trace) -> CallTree {
        let figs = &self.figs[slot];
        let paths: Vec<PathTotals> = self
            .paths
            .iter()
            .enumerate()
            .map(|(k, &(parent, region))| {
                let f = figs.get(k).copied().unwrap_or_default();
                PathTotals {
                    parent,
                    region: RegionId(region),
                    count: f.count,
                    inclusive_ns: f.inclusive_ns,
                    exclusive_ns: f.exclusive_ns,
                }
            })
            .collect();
        CallTree::from_paths(&paths, skeleton)
    }
}

fn gather(
    m: &Manifest,
    src: &dyn CallTiles,
    skeleton: &Trace,
    window: Option<TimeWindow>,
    keep: &dyn Fn(LocationId) -> bool,
    per_location: bool,
) -> Result<Gathered, StoreError> {
    let tl = m.tiling;
    let nl = m.locations.process.len() as u32;
    let index = TileIndex::new(m);
    let r = match reading(m, window) {
        Reading::Exact { t0, t1 } => {
            let plan = exact_plan(m, &index, t0, t1, 0..nl);
            let tiles = plan.tiles.iter().map(|&i| src.events(i)).collect::<Result<Vec<_>, _>>()?;
            let slice = exact_trace(skeleton, &plan, &tiles.iter().map(|t| t.as_ref()).collect::<Vec<_>>());
            return Ok(Gathered::Exact(Box::new(slice), TimeWindow { start_ns: t0, end_ns: t1 }));
        }
        Reading::Sums(r) => r,
    };
    let selected: Vec<LocationId> = (0..nl).map(LocationId).filter(|&l| keep(l)).collect();
    let mut slot_of = vec![u32::MAX; if per_location { nl as usize } else { 0 }];
    if per_location {
        for (k, l) in selected.iter().enumerate() {
            slot_of[l.index()] = k as u32;
        }
    }
    let nslots = if per_location { selected.len() } else { 1 };
    let mut s = Sums {
        paths: Vec::new(),
        ids: FxHashMap::default(),
        per_location,
        slots: if per_location { selected.clone() } else { Vec::new() },
        slot_of,
        figs: vec![Vec::new(); nslots],
    };
    let mut chosen = vec![false; nl as usize];
    selected.iter().for_each(|l| chosen[l.index()] = true);
    let (t0, t1, a) = (r.t0, r.t1, r.a);
    for block in 0..tl.blocks {
        let locs = tl.block_range(block, nl);
        if !locs.clone().any(|l| chosen[l as usize]) {
            continue;
        }
        for &(level, j) in &r.pieces {
            let Some(i) = index.get(TileKind::CallPaths, level, block, j) else {
                return Err(StoreError::Mismatch {
                    file: crate::format::manifest::MANIFEST.into(),
                    detail: format!("no call-path tile at level {level}, block {block}, tile {j}"),
                });
            };
            let tile = src.callpaths(i)?;
            let mut gid = Vec::with_capacity(tile.paths.len());
            for p in &tile.paths {
                let parent = p.parent.map(|q| gid[q as usize]);
                gid.push(s.id(parent, p.region));
            }
            let first = r.left_aligned && tile_windows(level, j, tl.windows).start == a;
            for (k, figures) in tile.locations.iter().enumerate() {
                let l = locs.start + k as u32;
                if !chosen[l as usize] {
                    continue;
                }
                let slot = s.slot(l);
                for f in figures {
                    let g = s.fig(slot, gid[f.path as usize]);
                    g.count += f.count + if first { f.open } else { 0 };
                    g.inclusive_ns = g.inclusive_ns.wrapping_add(f.inclusive_ns);
                    g.exclusive_ns = g.exclusive_ns.wrapping_add(f.exclusive_ns);
                }
            }
        }
        // The edges: before the first whole window (its starts and what is open across t0), after the last
        // (its starts before t1, and instants at t1).
        let [before, after] = r.edges();
        if let Some(reach) = before {
            let ws_a = r.ws_a;
            let counts = |st: u64, d: u64| (st < t0 && st.saturating_add(d) > t0) || (st >= t0 && st < ws_a);
            edge(m, src, skeleton, &index, &mut s, &chosen, locs.clone(), reach, [t0, ws_a], &counts)?;
        }
        if let Some(reach) = after {
            let ws_b = reach[0];
            let counts = |st: u64, d: u64| (st >= ws_b && st < t1) || (d == 0 && st == t1);
            edge(m, src, skeleton, &index, &mut s, &chosen, locs.clone(), reach, [ws_b, t1], &counts)?;
        }
    }
    Ok(Gathered::Sums(s))
}

/// The tiles (manifest indices) [`store_call_tree`] of `window` reads over every location, in the order it
/// reads them: for a worker, which fetches them before the tree is taken from what it was handed. A store
/// without call-path tiles needs none (it has no such tree).
pub fn tiles<S: TileSource>(store: &Store<S>, window: Option<TimeWindow>) -> Vec<usize> {
    if !has_callpaths(store) {
        return Vec::new();
    }
    let m = &store.manifest;
    let tl = m.tiling;
    let nl = m.locations.process.len() as u32;
    let w = window.unwrap_or(TimeWindow { start_ns: 0, end_ns: m.span_ns });
    let (t0, t1) = (w.start_ns, w.end_ns.max(w.start_ns));
    let index = TileIndex::new(m);
    let w0 = tl.window_of(t0);
    let a = if tl.window_span(w0).start == t0 { w0 } else { w0 + 1 };
    let b = if t1 >= m.span_ns { tl.windows } else { tl.window_of(t1) };
    if t0 == t1 || a >= b {
        return exact_plan(m, &index, t0, t1, 0..nl).tiles;
    }
    let pieces = cover(a, b, m.levels.len() as u32, tl.windows);
    let mut out = Vec::new();
    for block in 0..tl.blocks {
        let locs = tl.block_range(block, nl);
        out.extend(pieces.iter().filter_map(|&(level, j)| index.get(TileKind::CallPaths, level, block, j)));
        let ws_a = tl.window_span(a).start;
        if t0 < ws_a {
            out.extend(exact_plan(m, &index, t0, ws_a - 1, locs.clone()).tiles);
        }
        if b < tl.windows {
            out.extend(exact_plan(m, &index, tl.window_span(b).start, t1, locs).tiles);
        }
    }
    out
}

/// The fewest pyramid tiles (level, tile) covering windows [a, b): from `a`, the coarsest tile starting
/// there that ends by `b`.
fn cover(a: u32, b: u32, levels: u32, windows: u32) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    let mut x = a;
    while x < b {
        let mut level = 1;
        for l in (1..=levels.max(1)).rev() {
            let per = windows_per_tile(l);
            let end = (x as u64).saturating_add(per).min(windows as u64);
            if (x as u64).is_multiple_of(per) && end <= b as u64 {
                level = l;
                break;
            }
        }
        let j = (x as u64 / windows_per_tile(level)) as u32;
        out.push((level, j));
        x = tile_windows(level, j, windows).end;
    }
    out
}

/// One edge of the range from block `locs`' level-0 tiles reaching into `reach` (ns, inclusive): each
/// selected location's intervals walked with their paths, each adding its time inside `clip` (ns, as
/// `[from, to]`'s length) and, where `counts(start, dur)`, one to its count.
#[allow(clippy::too_many_arguments)]
fn edge(
    m: &Manifest,
    src: &dyn CallTiles,
    skeleton: &Trace,
    index: &TileIndex,
    s: &mut Sums,
    chosen: &[bool],
    locs: std::ops::Range<u32>,
    reach: [u64; 2],
    clip: [u64; 2],
    counts: &dyn Fn(u64, u64) -> bool,
) -> Result<(), StoreError> {
    let plan = exact_plan(m, index, reach[0], reach[1], locs.clone());
    let tiles = plan.tiles.iter().map(|&i| src.events(i)).collect::<Result<Vec<_>, _>>()?;
    let slice = exact_trace(skeleton, &plan, &tiles.iter().map(|t| t.as_ref()).collect::<Vec<_>>());
    drop(tiles);
    let iv = &slice.intervals;
    let mut stack: Vec<u32> = Vec::new();
    for l in locs.filter(|&l| chosen[l as usize]) {
        let slot = s.slot(l);
        stack.clear();
        for i in slice.intervals_of(LocationId(l)) {
            stack.truncate(iv.depth[i] as usize);
            let parent = stack.last().copied();
            let path = s.id(parent, iv.region[i].0);
            stack.push(path);
            let (st, d) = (iv.start_ns[i], iv.dur_ns[i]);
            let c = st.saturating_add(d).min(clip[1]).saturating_sub(st.max(clip[0]));
            let f = s.fig(slot, path);
            f.inclusive_ns = f.inclusive_ns.wrapping_add(c);
            f.exclusive_ns = f.exclusive_ns.wrapping_add(c);
            if counts(st, d) {
                f.count += 1;
            }
            if let Some(p) = parent {
                let f = s.fig(slot, p);
                f.exclusive_ns = f.exclusive_ns.wrapping_sub(c);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::cover;

    #[test]
    fn cover_takes_the_coarsest_tiles() {
        // 10 windows, levels 1..3 (1, 4, 16 windows a tile).
        assert_eq!(cover(0, 10, 3, 10), vec![(3, 0)]);
        assert_eq!(cover(1, 10, 3, 10), vec![(1, 1), (1, 2), (1, 3), (2, 1), (2, 2)]);
        assert_eq!(cover(4, 8, 3, 10), vec![(2, 1)]);
        assert_eq!(cover(5, 6, 3, 10), vec![(1, 5)]);
        assert!(cover(6, 6, 3, 10).is_empty());
    }
}
