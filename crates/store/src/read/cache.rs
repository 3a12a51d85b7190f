//! The decoded tiles a viewer keeps (the page's worker; `weft render timeline STORE/`): least-recently-used
//! first out, bounded in bytes counted by the vectors' capacities; [`TileCache::admit`] keeps a tile only
//! within the budget. Knows decoded tiles, not how they were fetched or what a view draws of them.

use crate::counters::{CounterBinsTile, CounterTile};
use crate::format::callpaths::CallPathsTile;
use crate::format::events::EventsTile;
use crate::format::particles::ParticleTile;
use crate::format::waits::WaitBinsTile;
use crate::pyramid::Bins;
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;
use weft_analyses::diagnosis::critical_path::PathSegment;

/// The decoded-tile cache's default budget (issue #17: 256 MB).
pub const DEFAULT_CACHE_BYTES: usize = 256 << 20;

/// A decoded tile, as the cache keeps it.
#[derive(Clone, Debug, PartialEq)]
pub enum Decoded {
    Events(EventsTile),
    Summary(Vec<Bins>),
    Particles(ParticleTile),
    Counters(CounterTile),
    CounterBins(CounterBinsTile),
    /// A wait summary tile's waiting per location and bin (format 6, `weft index --waits`).
    WaitBins(WaitBinsTile),
    /// A path tile's critical-path segments (format 7, `weft index --waits`).
    Path(Vec<PathSegment>),
    /// A call-path tile's paths and per-location figures (format 8: the call tree of any range).
    CallPaths(CallPathsTile),
}

impl Decoded {
    /// About the heap bytes it holds (what the cache's budget counts): the vectors' capacities, not only
    /// their lengths (a decoder that grows a vector by pushing holds up to twice what it uses).
    pub fn bytes(&self) -> usize {
        use std::mem::size_of_val;
        fn cap<T>(v: &Vec<T>) -> usize {
            v.capacity() * std::mem::size_of::<T>()
        }
        match self {
            Decoded::Events(t) => {
                cap(&t.intervals)
                    + cap(&t.instants)
                    + cap(&t.messages)
                    + cap(&t.collectives)
                    + cap(&t.open.intervals)
                    + cap(&t.open.messages)
                    + cap(&t.open.collectives)
                    + size_of_val(t)
            }
            Decoded::Particles(p) => cap(&p.events) + cap(&p.open) + size_of_val(p),
            Decoded::Counters(c) => cap(&c.samples) + cap(&c.open) + size_of_val(c),
            Decoded::CounterBins(c) => {
                cap(&c.series)
                    + c.series.iter().map(|s| cap(&s.count) + cap(&s.min) + cap(&s.max) + cap(&s.last)).sum::<usize>()
            }
            Decoded::WaitBins(w) => cap(&w.ns) + size_of_val(w),
            Decoded::Path(p) => cap(p),
            Decoded::CallPaths(c) => {
                cap(&c.paths) + cap(&c.locations) + c.locations.iter().map(cap).sum::<usize>() + size_of_val(c)
            }
            Decoded::Summary(rows) => {
                cap(rows)
                    + rows
                        .iter()
                        .map(|b| {
                            cap(&b.busy_compute_ns)
                                + cap(&b.busy_any_ns)
                                + cap(&b.dominant_region)
                                + cap(&b.dominant_ns)
                                + cap(&b.events)
                                + cap(&b.messages)
                                + cap(&b.message_bytes)
                        })
                        .sum::<usize>()
            }
        }
    }

    /// Give back what the vectors hold beyond their lengths (before the tile is kept).
    pub fn compact(&mut self) {
        match self {
            Decoded::Events(t) => {
                t.intervals.shrink_to_fit();
                t.instants.shrink_to_fit();
                t.messages.shrink_to_fit();
                t.collectives.shrink_to_fit();
                t.open.intervals.shrink_to_fit();
                t.open.messages.shrink_to_fit();
                t.open.collectives.shrink_to_fit();
            }
            Decoded::Summary(rows) => rows.shrink_to_fit(),
            Decoded::Particles(p) => {
                p.events.shrink_to_fit();
                p.open.shrink_to_fit();
            }
            Decoded::Counters(c) => {
                c.samples.shrink_to_fit();
                c.open.shrink_to_fit();
            }
            Decoded::CounterBins(c) => c.series.shrink_to_fit(),
            Decoded::WaitBins(w) => w.ns.shrink_to_fit(),
            Decoded::Path(p) => p.shrink_to_fit(),
            Decoded::CallPaths(c) => {
                c.paths.shrink_to_fit();
                c.locations.iter_mut().for_each(|l| l.shrink_to_fit());
                c.locations.shrink_to_fit();
            }
        }
    }
}

/// Decoded tiles by manifest index, the least recently used dropped first once they hold more than
/// `budget` bytes. Tiles used since [`TileCache::begin_view`] (the view being answered) are never dropped,
/// so one view needing more than the budget holds what it needs until the next view begins (then the
/// cache is trimmed back to the budget).
#[derive(Debug)]
pub struct TileCache {
    budget: usize,
    used: usize,
    tick: u64,
    tiles: FxHashMap<usize, (Decoded, usize, u64)>,
    by_use: BTreeMap<u64, usize>,
    /// Tiles used at or after this tick belong to the view being answered.
    view_from: u64,
}

impl TileCache {
    pub fn new(budget: usize) -> Self {
        TileCache { budget, used: 0, tick: 0, tiles: FxHashMap::default(), by_use: BTreeMap::new(), view_from: 0 }
    }
    /// Bytes held now (never more than the budget, but for one oversized tile).
    pub fn used(&self) -> usize {
        self.used
    }
    pub fn budget(&self) -> usize {
        self.budget
    }
    pub fn len(&self) -> usize {
        self.tiles.len()
    }
    pub fn is_empty(&self) -> bool {
        self.tiles.is_empty()
    }
    pub fn contains(&self, i: usize) -> bool {
        self.tiles.contains_key(&i)
    }
    /// A new budget (a page comparing two stores halves each one's): trimmed to it now, as far as the view
    /// being answered allows.
    pub fn set_budget(&mut self, budget: usize) {
        self.budget = budget;
        self.trim();
    }
    /// A new view is being answered: earlier tiles may be dropped again; the cache is trimmed to the budget.
    pub fn begin_view(&mut self) {
        self.view_from = self.tick + 1;
        self.trim();
    }
    /// Mark tile `i` used now (a view needs it); false when it is not held.
    pub fn touch(&mut self, i: usize) -> bool {
        self.tick += 1;
        let tick = self.tick;
        match self.tiles.get_mut(&i) {
            Some(entry) => {
                self.by_use.remove(&entry.2);
                entry.2 = tick;
                self.by_use.insert(tick, i);
                true
            }
            None => false,
        }
    }
    /// Tile `i` if held (does not count as a use; [`TileCache::touch`] does).
    pub fn peek(&self, i: usize) -> Option<&Decoded> {
        self.tiles.get(&i).map(|e| &e.0)
    }
    /// Keep tile `i`, most recently used, dropping the least recently used ones past the budget. Returns the
    /// indices dropped.
    pub fn insert(&mut self, i: usize, tile: Decoded) -> Vec<usize> {
        if let Some((_, bytes, tick)) = self.tiles.remove(&i) {
            self.used -= bytes;
            self.by_use.remove(&tick);
        }
        let bytes = tile.bytes();
        self.tick += 1;
        self.tiles.insert(i, (tile, bytes, self.tick));
        self.by_use.insert(self.tick, i);
        self.used += bytes;
        self.trim()
    }
    /// Keep tile `i` only if it fits the budget once tiles not of the current view are dropped (least
    /// recently used first): unlike [`TileCache::insert`], a view needing more than the budget never makes
    /// the cache hold more; the caller uses the tile and lets it go. Returns whether it was kept.
    pub fn admit(&mut self, i: usize, tile: Decoded) -> bool {
        let bytes = tile.bytes();
        if let Some((_, b, tick)) = self.tiles.remove(&i) {
            self.used -= b;
            self.by_use.remove(&tick);
        }
        while self.used + bytes > self.budget {
            let Some((&tick, &oldest)) = self.by_use.first_key_value() else { break };
            if tick >= self.view_from {
                break;
            }
            self.by_use.pop_first();
            if let Some((_, b, _)) = self.tiles.remove(&oldest) {
                self.used -= b;
            }
        }
        if self.used + bytes > self.budget {
            return false;
        }
        self.tick += 1;
        self.tiles.insert(i, (tile, bytes, self.tick));
        self.by_use.insert(self.tick, i);
        self.used += bytes;
        true
    }
    /// Drop least recently used tiles not of the current view until within the budget; their indices.
    fn trim(&mut self) -> Vec<usize> {
        let mut dropped = Vec::new();
        while self.used > self.budget && self.tiles.len() > 1 {
            let Some((&tick, &oldest)) = self.by_use.first_key_value() else { break };
            if tick >= self.view_from {
                break;
            }
            self.by_use.pop_first();
            if let Some((_, b, _)) = self.tiles.remove(&oldest) {
                self.used -= b;
            }
            dropped.push(oldest);
        }
        dropped
    }
}
