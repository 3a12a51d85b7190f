//! The call-path tiles of a block (store format 8, `store::format::callpaths`): each location's call-path
//! totals per level-0 window ([`LocationPaths`], fed with the location's intervals a chunk at a time beside
//! its summary, `build::LocationSummary`), then a block's tiles of every pyramid level ([`callpath_tiles`]):
//! level 1 a window a tile, each next level 4 tiles of the one below merged.
//!
//! Per interval: its path guessed from the path that followed its previous sibling last time (a loop's body
//! calls the same regions in the same order), else found in a map; its time in its start window added to a
//! dense row of the window being filled; only an interval reaching past its start window (a few per window
//! per location: those open across a window's start) writes to later windows, kept aside until their turn. Exclusive time is a path's time less its
//! direct children's, window by window: every interval of a child path lies in one of its parent path's, so
//! when a window closes each path it touched subtracts its inclusive time from its parent's (once a path a
//! window, not once an interval; wrapping arithmetic: the sums end non-negative).
//! Must not: depend on threads, shards or how the intervals were chunked (the tiles are the block's bytes).

use rustc_hash::FxHashMap;
use std::collections::BTreeMap;
use weft_model::RegionId;
use weft_store::format::callpaths::{encode_callpaths, CallPathsTile, PathDef, PathFigures};
use weft_store::format::manifest::{Level, TileEntry, TileKind, Tiling};
use weft_store::format::tile::tile;

/// No path: a root's parent, an empty slot.
const NONE: u32 = u32::MAX;

/// Slots of a path table's recent lookups.
const RECENT: usize = 256;

/// One path's sums in one window while they grow (exclusive time wrapping until done).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Acc {
    count: u64,
    open: u64,
    inclusive_ns: u64,
    exclusive_ns: u64,
}

impl Acc {
    fn add(&mut self, o: &Acc) {
        self.count += o.count;
        self.open += o.open;
        self.inclusive_ns = self.inclusive_ns.wrapping_add(o.inclusive_ns);
        self.exclusive_ns = self.exclusive_ns.wrapping_add(o.exclusive_ns);
    }
    fn is_zero(&self) -> bool {
        *self == Acc::default()
    }
}

/// A location's call paths per window, once every chunk is in ([`LocationPaths::finish`]): its own path
/// table (parents first) and, window by window in order, its paths' figures by ascending path.
#[derive(Clone, Debug, Default)]
pub struct LocationCallPaths {
    pub paths: Vec<PathDef>,
    /// (window, figures of that window) for the windows with any.
    pub windows: Vec<(u32, Vec<PathFigures>)>,
}

/// A location's call paths as its intervals name them (parents first). Each path is first guessed from the
/// one before at its depth: a loop's body calls the same regions in the same order, so the path that
/// followed its previous sibling last time (or its parent's first child last time) is nearly always it; a
/// wrong guess asks a map.
#[derive(Default)]
pub struct PathTable {
    paths: Vec<PathDef>,
    /// Per path: the sibling that followed it last time, and its first child last time.
    next_sibling: Vec<u32>,
    first_child: Vec<u32>,
    first_root: u32,
    /// A wrong guess looks here next, (parent, region, path) by a hash of (parent, region), then in the map.
    recent: Vec<(u32, u32, u32)>,
    children: FxHashMap<(u32, u32), u32>,
    /// The last interval's path at each depth down to the last interval's (its ancestors' and its own): at
    /// the next interval's depth, its previous sibling.
    stack: Vec<u32>,
}

impl PathTable {
    pub fn new() -> Self {
        PathTable { first_root: NONE, recent: vec![(NONE, NONE, NONE); RECENT], ..PathTable::default() }
    }

    /// The paths so far.
    pub fn len(&self) -> usize {
        self.paths.len()
    }

    pub fn is_empty(&self) -> bool {
        self.paths.is_empty()
    }

    /// The path of the next interval (of `region`, at `depth`; intervals in the model's order), and whether
    /// it is new.
    #[inline(always)]
    fn next(&mut self, region: u32, depth: u16) -> (u32, bool) {
        let d = depth as usize;
        // The last interval at this depth, if still on the stack, has this one's parent: its sibling.
        let before = self.stack.get(d).copied();
        self.stack.truncate(d);
        let parent = self.stack.last().copied().unwrap_or(NONE);
        let guess = match before {
            Some(b) => self.next_sibling[b as usize],
            None if parent == NONE => self.first_root,
            None => self.first_child[parent as usize],
        };
        let (path, new) = if guess != NONE && self.paths[guess as usize].region == region {
            (guess, false)
        } else {
            let k = ((parent.wrapping_mul(0x9E37_79B1) ^ region).wrapping_mul(0x85EB_CA6B) >> 24) as usize % RECENT;
            let r = self.recent[k];
            let found = if r.0 == parent && r.1 == region && r.2 != NONE {
                (r.2, false)
            } else {
                let found = self.child(parent, region);
                self.recent[k] = (parent, region, found.0);
                found
            };
            match before {
                Some(b) => self.next_sibling[b as usize] = found.0,
                None if parent == NONE => self.first_root = found.0,
                None => self.first_child[parent as usize] = found.0,
            }
            found
        };
        self.stack.push(path);
        (path, new)
    }

    /// The path of the next interval, as [`next`](Self::next), for a caller that counts paths only.
    pub fn intern(&mut self, region: RegionId, depth: u16) {
        self.next(region.0, depth);
    }

    /// The child of `parent` (NONE: a root) for `region`, made if new.
    #[cold]
    fn child(&mut self, parent: u32, region: u32) -> (u32, bool) {
        let next = self.paths.len() as u32;
        let found = *self.children.entry((parent, region)).or_insert(next);
        if found == next {
            self.paths.push(PathDef { parent: (parent != NONE).then_some(parent), region });
            self.next_sibling.push(NONE);
            self.first_child.push(NONE);
        }
        (found, found == next)
    }
}

/// One location's call-path totals per window, built from its intervals a chunk at a time (columns in the
/// model's order; each chunk after the one before).
pub struct LocationPaths {
    tiling: Tiling,
    table: PathTable,
    /// The window being filled (and where it ends), its sums by path and the paths it touched.
    window: u32,
    window_end: u64,
    row: Vec<Acc>,
    touched: Vec<u32>,
    /// Each path's last turn listed in `touched` (`turn` counts the windows closed, from 1).
    stamp: Vec<u32>,
    turn: u32,
    /// Later windows' sums from intervals reaching past their start window.
    later: BTreeMap<u32, Vec<(u32, Acc)>>,
    done: Vec<(u32, Vec<PathFigures>)>,
}

impl LocationPaths {
    pub fn new(tiling: Tiling) -> Self {
        LocationPaths {
            tiling,
            table: PathTable::new(),
            window: 0,
            window_end: tiling.window_span(0).end,
            row: Vec::new(),
            touched: Vec::new(),
            stamp: Vec::new(),
            turn: 1,
            later: BTreeMap::new(),
            done: Vec::new(),
        }
    }

    #[inline]
    fn add(&mut self, path: u32, a: Acc) {
        // The first add to a path in this window lists it (stamped with the window's turn).
        let stamp = &mut self.stamp[path as usize];
        if *stamp != self.turn {
            *stamp = self.turn;
            self.touched.push(path);
        }
        self.row[path as usize].add(&a);
    }

    /// The window being filled is done: its figures out, the row empty.
    fn close_window(&mut self) {
        if self.touched.is_empty() {
            return;
        }
        // Exclusive time: each path's inclusive time less its direct children's in this window (a parent
        // touched only by this has no inclusive time to pass on to its own parent: the first `n` suffice).
        let n = self.touched.len();
        for k in 0..n {
            let p = self.touched[k] as usize;
            if let Some(q) = self.table.paths[p].parent {
                let inclusive = self.row[p].inclusive_ns;
                self.add(q, Acc { exclusive_ns: inclusive.wrapping_neg(), ..Acc::default() });
            }
        }
        for &p in &self.touched {
            let a = &mut self.row[p as usize];
            a.exclusive_ns = a.exclusive_ns.wrapping_add(a.inclusive_ns);
        }
        self.turn += 1;
        self.touched.sort_unstable();
        let mut figures = Vec::with_capacity(self.touched.len());
        for &p in &self.touched {
            let a = std::mem::take(&mut self.row[p as usize]);
            if !a.is_zero() {
                figures.push(PathFigures {
                    path: p,
                    count: a.count,
                    open: a.open,
                    inclusive_ns: a.inclusive_ns,
                    exclusive_ns: a.exclusive_ns,
                });
            }
        }
        self.touched.clear();
        if !figures.is_empty() {
            self.done.push((self.window, figures));
        }
    }

    /// Move on to window `w` (after the current one): the windows between get what was kept for them.
    fn advance(&mut self, w: u32) {
        while self.window < w {
            self.close_window();
            let next = self.later.range(self.window + 1..=w).next().map(|(&x, _)| x);
            self.window = next.unwrap_or(w);
            self.window_end = self.tiling.window_span(self.window).end;
            if let Some(kept) = self.later.remove(&self.window) {
                for (p, a) in kept {
                    self.add(p, a);
                }
            }
        }
    }

    /// The next chunk of the location's intervals.
    pub fn push(&mut self, region: &[RegionId], start_ns: &[u64], dur_ns: &[u64], depth: &[u16]) {
        let t = self.tiling;
        for i in 0..region.len() {
            let (s, d) = (start_ns[i], dur_ns[i]);
            // (In start order: most intervals start in the window being filled.)
            if s >= self.window_end {
                self.advance(t.window_of(s));
            }
            let (w, we) = (self.window, self.window_end);
            let (path, new) = self.table.next(region[i].0, depth[i]);
            if new {
                self.row.push(Acc::default());
                self.stamp.push(0);
            }
            let p = path as usize;
            let e = s.saturating_add(d);
            let clip = e.min(we) - s;
            if self.stamp[p] != self.turn {
                self.stamp[p] = self.turn;
                self.touched.push(path);
            }
            let a = &mut self.row[p];
            a.count += 1;
            a.inclusive_ns = a.inclusive_ns.wrapping_add(clip);
            // Open across the starts of the windows after: their share kept for them.
            if e <= we {
                continue;
            }
            let mut x = w;
            while e > t.window_span(x).end {
                x += 1;
                let span = t.window_span(x);
                let clip = e.min(span.end) - span.start;
                self.later
                    .entry(x)
                    .or_default()
                    .push((path, Acc { count: 0, open: 1, inclusive_ns: clip, exclusive_ns: 0 }));
            }
        }
    }

    /// The location's call paths once every chunk is in; then it starts over, empty, for another location.
    pub fn finish(&mut self) -> LocationCallPaths {
        let last = self.later.keys().next_back().copied().unwrap_or(self.window).max(self.window);
        self.advance(last);
        self.close_window();
        let out =
            LocationCallPaths { paths: std::mem::take(&mut self.table.paths), windows: std::mem::take(&mut self.done) };
        *self = LocationPaths::new(self.tiling);
        out
    }
}

/// One location's figures in one tile: by block path, ascending.
type Row = Vec<(u32, Acc)>;

/// Block `b`'s call-path tiles of every level from its locations' call paths (location order).
pub fn callpath_tiles(levels: &[Level], b: u32, locations: &[LocationCallPaths]) -> Vec<(TileEntry, Vec<u8>)> {
    // The block's table: each location's paths in its order, parents first.
    let mut table: Vec<PathDef> = Vec::new();
    let mut ids: FxHashMap<PathDef, u32> = FxHashMap::default();
    let mut maps: Vec<Vec<u32>> = Vec::with_capacity(locations.len());
    for l in locations {
        let mut map = Vec::with_capacity(l.paths.len());
        for p in &l.paths {
            let def = PathDef { parent: p.parent.map(|q| map[q as usize]), region: p.region };
            let next = table.len() as u32;
            let id = *ids.entry(def).or_insert(next);
            if id == next {
                table.push(def);
            }
            map.push(id);
        }
        maps.push(map);
    }
    let mut out = Vec::new();
    let Some(first) = levels.first() else { return out };
    // Level 1: a window a tile.
    let mut tiles: Vec<Vec<Row>> = vec![vec![Row::new(); locations.len()]; first.tiles as usize];
    for (k, l) in locations.iter().enumerate() {
        for (w, figures) in &l.windows {
            let Some(t) = tiles.get_mut(*w as usize) else { continue };
            let mut row: Row = figures
                .iter()
                .map(|f| {
                    let a = Acc {
                        count: f.count,
                        open: f.open,
                        inclusive_ns: f.inclusive_ns,
                        exclusive_ns: f.exclusive_ns,
                    };
                    (maps[k][f.path as usize], a)
                })
                .collect();
            row.sort_unstable_by_key(|r| r.0);
            t[k] = row;
        }
    }
    for level in levels {
        if level.level > first.level {
            tiles = coarser(&tiles, level.tiles as usize, locations.len());
        }
        for (j, rows) in tiles.iter().enumerate() {
            let (t, records) = tile_of(&table, rows);
            out.push(tile(TileKind::CallPaths, level.level, b, j as u32, records, encode_callpaths(&t)));
        }
    }
    out
}

/// The next level's tiles: 4 tiles merged, figures summed by path, open across the first one's start.
fn coarser(tiles: &[Vec<Row>], n: usize, nloc: usize) -> Vec<Vec<Row>> {
    (0..n)
        .map(|j| {
            let group = &tiles[(4 * j).min(tiles.len())..(4 * j + 4).min(tiles.len())];
            (0..nloc)
                .map(|k| {
                    let mut all: Row = group
                        .iter()
                        .enumerate()
                        .flat_map(|(g, t)| {
                            t[k].iter().map(move |&(p, a)| (p, if g == 0 { a } else { Acc { open: 0, ..a } }))
                        })
                        .collect();
                    all.sort_by_key(|r| r.0);
                    let mut row: Row = Vec::with_capacity(all.len());
                    for (p, a) in all {
                        match row.last_mut() {
                            Some((q, b)) if *q == p => b.add(&a),
                            _ => row.push((p, a)),
                        }
                    }
                    row
                })
                .collect()
        })
        .collect()
}

/// A tile's table (the paths its rows name and their ancestors, in block order) and its rows renumbered.
fn tile_of(table: &[PathDef], rows: &[Row]) -> (CallPathsTile, u64) {
    let mut used = vec![false; table.len()];
    for &(p, _) in rows.iter().flatten() {
        used[p as usize] = true;
    }
    // Parents come before children in the block's table: a reverse pass marks every ancestor.
    for p in (0..table.len()).rev() {
        if used[p] {
            if let Some(q) = table[p].parent {
                used[q as usize] = true;
            }
        }
    }
    let mut new_id = vec![NONE; table.len()];
    let mut paths = Vec::new();
    for (p, def) in table.iter().enumerate().filter(|(p, _)| used[*p]) {
        new_id[p] = paths.len() as u32;
        paths.push(PathDef { parent: def.parent.map(|q| new_id[q as usize]), region: def.region });
    }
    let locations: Vec<Vec<PathFigures>> = rows
        .iter()
        .map(|row| {
            row.iter()
                .map(|&(p, a)| PathFigures {
                    path: new_id[p as usize],
                    count: a.count,
                    open: a.open,
                    inclusive_ns: a.inclusive_ns,
                    exclusive_ns: a.exclusive_ns,
                })
                .collect()
        })
        .collect();
    let t = CallPathsTile { paths, locations };
    let records = t.records();
    (t, records)
}
