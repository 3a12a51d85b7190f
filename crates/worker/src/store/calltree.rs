//! The call tree of a store's selection in the store worker (issues #55, #17): the page's call-tree panel
//! and flame graph ask it as they ask the trace worker (`crate::calltree`), and get the same bundle
//! (`analyses::calltree_bundle`), answered from the store's call-path tiles (format 8) and the level-0 tiles
//! of the range's edges (`store::read::calltree`). Each ask is planned into its tiles ([`StoreSession::
//! plan_calltree`]), those not cached are fetched by www/store-worker.js through the same check and cache as a
//! view's, and answered from the cache ([`StoreSession::calltree_answer`]). A path's intervals (the
//! timeline's marks) need the level-0 tiles of the window: fetched only within the cache's budget, and
//! answered as keys the page finds in the exact slices it draws. Must not fetch anything itself.

use super::{err, StoreSession};

/// A message about the store as a whole (not one of its files): `name: text`.
fn say(name: &str, text: String) -> JsValue {
    JsValue::from_str(&format!("{name}: {text}"))
}
use std::borrow::Cow;
use wasm_bindgen::prelude::*;
use weft_analyses::calltree_bundle::{encode_path_keys, path_intervals, path_keys, BundleTree, CallTreeBundle};
use weft_analyses::moments::TimeWindow;
use weft_model::{LocationId, RegionId};
use weft_store::format::callpaths::CallPathsTile;
use weft_store::format::events::EventsTile;
use weft_store::read::calltree::{call_tree_from, calltree_tiles, has_callpaths, per_location_from, CallTiles};
use weft_store::read::query::{exact_plan, exact_trace, Decoded, Plan, TileCache};
use weft_store::{Manifest, StoreError};

/// The call-tree ask planned last: its selection, and the tiles it reads.
pub(super) struct CallAsk {
    window: TimeWindow,
    /// The selected locations (None: every one) and the membership test.
    locations: Option<Vec<u32>>,
    keep: Vec<bool>,
    /// For a path's intervals: the path, its direction and the level-0 plan of the window.
    path: Option<(Vec<RegionId>, bool, Plan)>,
    pub(super) tiles: Vec<usize>,
}

/// The tiles of an ask as the cache holds them (a tile missing there failed to come: named in the error).
struct Cached<'a> {
    cache: &'a TileCache,
    m: &'a Manifest,
    failed: &'a [(String, String)],
}

impl Cached<'_> {
    fn get(&self, i: usize) -> Result<&Decoded, StoreError> {
        self.cache.peek(i).ok_or_else(|| {
            let file = self.m.tiles[i].path.clone();
            match self.failed.iter().find(|(p, _)| *p == file) {
                Some((_, why)) => {
                    StoreError::Io { detail: why.strip_prefix(&format!("{file}: ")).unwrap_or(why).to_string(), file }
                }
                None => StoreError::Missing { file },
            }
        })
    }
    fn wrong(&self, i: usize) -> StoreError {
        StoreError::Mismatch { file: self.m.tiles[i].path.clone(), detail: "not the kind of tile asked".into() }
    }
}

impl CallTiles for Cached<'_> {
    fn callpaths(&self, i: usize) -> Result<Cow<'_, CallPathsTile>, StoreError> {
        match self.get(i)? {
            Decoded::CallPaths(t) => Ok(Cow::Borrowed(t)),
            _ => Err(self.wrong(i)),
        }
    }
    fn events(&self, i: usize) -> Result<Cow<'_, EventsTile>, StoreError> {
        match self.get(i)? {
            Decoded::Events(t) => Ok(Cow::Borrowed(t)),
            _ => Err(self.wrong(i)),
        }
    }
}

#[wasm_bindgen]
impl StoreSession {
    /// Plan the call tree of [t0, t1] (ns from the store's origin; the whole run when either is not a number)
    /// over `locations` (every one when undefined), and return the store paths still to fetch. Err for a store
    /// without call-path tiles (before format 8) or a location it does not have.
    pub fn plan_calltree(
        &mut self,
        t0_ns: f64,
        t1_ns: f64,
        locations: Option<Vec<u32>>,
    ) -> Result<Vec<String>, JsValue> {
        let m = &self.store.manifest;
        if !has_callpaths(&self.store) {
            return Err(say(
                &self.name,
                format!(
                    "this store is of format {}: it keeps no call-path tiles (format 8 on), so the page cannot \
                     answer its call tree; index the trace again with this weft, or run weft calltree STORE",
                    m.version
                ),
            ));
        }
        let (window, locations, keep) = self.selection(t0_ns, t1_ns, locations)?;
        let tiles = calltree_tiles(m, Some(window), |l| keep[l.index()]);
        Ok(self.plan_ask(CallAsk { window, locations, keep, path: None, tiles }))
    }

    /// Plan the intervals of call path `path` (region ids as the tree's node lists them) over the selection:
    /// the level-0 tiles of the window, the paths still to fetch. Err when they would not fit the cache's
    /// budget (a store keeps call paths per window, not where each call is).
    pub fn plan_calltree_path(
        &mut self,
        t0_ns: f64,
        t1_ns: f64,
        locations: Option<Vec<u32>>,
        path: Vec<u32>,
        inverted: bool,
    ) -> Result<Vec<String>, JsValue> {
        if let Some(&r) = path.iter().find(|&&r| r as usize >= self.skeleton.regions.len()) {
            return Err(say(&self.name, format!("this store has no region {r}")));
        }
        let (window, locations, keep) = self.selection(t0_ns, t1_ns, locations)?;
        let m = &self.store.manifest;
        let chosen: Vec<u32> = (0..keep.len() as u32).filter(|&l| keep[l as usize]).collect();
        let (lo, hi) = (chosen.first().copied().unwrap_or(0), chosen.last().map_or(0, |&l| l + 1));
        let plan = exact_plan(m, &self.index, window.start_ns, window.end_ns, lo..hi);
        let cost: u64 = plan
            .tiles
            .iter()
            .map(|&i| &m.tiles[i])
            .map(|e| e.bytes.saturating_add(e.records.saturating_mul(super::DECODED_BYTES_PER_RECORD)))
            .sum();
        let budget = self.cache.budget() as u64;
        if cost > budget {
            let mb = |b: u64| format!("{:.0} MB", b as f64 / f64::from(1u32 << 20));
            return Err(say(
                &self.name,
                format!(
                    "marking a path's intervals needs the level-0 tiles of the window ({} tiles, about {} decoded; \
                     a store keeps call paths per window, not where each call is), over the tile cache's budget \
                     of {}: choose a narrower window (the visible window, zoomed in)",
                    plan.tiles.len(),
                    mb(cost),
                    mb(budget)
                ),
            ));
        }
        let tiles = plan.tiles.clone();
        let path = path.into_iter().map(RegionId).collect();
        Ok(self.plan_ask(CallAsk { window, locations, keep, path: Some((path, inverted, plan)), tiles }))
    }

    /// The answer to the call-tree ask planned last, from the tiles cached: `{kind: "calltree", model}` (the
    /// bundle, as the trace worker's `call_tree_of`), or for a path `{kind: "calltree-path", model}` (its
    /// intervals' keys, `calltree_bundle::encode_path_keys`). Err names a tile that failed.
    pub fn calltree_answer(&mut self, inverted: bool, per_location_trees: bool) -> Result<JsValue, JsValue> {
        let ask = self.calltree.take().ok_or("no call tree was planned")?;
        let m = &self.store.manifest;
        let src = Cached { cache: &self.cache, m, failed: &self.failed };
        let keep = |l: LocationId| ask.keep[l.index()];
        let sk = &self.skeleton;
        let e = |x: StoreError| err(&self.name, x);
        if let Some((path, path_inverted, plan)) = &ask.path {
            let tiles = plan.tiles.iter().map(|&i| src.events(i)).collect::<Result<Vec<_>, _>>().map_err(e)?;
            let slice = exact_trace(sk, plan, &tiles.iter().map(|t| t.as_ref()).collect::<Vec<_>>());
            drop(tiles);
            let found = path_intervals(&slice, ask.window, keep, path, *path_inverted);
            return Ok(crate::worker::loaded_model("calltree-path", encode_path_keys(&path_keys(&slice, &found))));
        }
        let turn = |tree: weft_analyses::calltree::CallTree| if inverted { tree.inverted(sk) } else { tree };
        let trees = if per_location_trees {
            per_location_from(m, &src, sk, Some(ask.window), keep)
                .map_err(e)?
                .into_iter()
                .map(|lt| BundleTree { location: Some(lt.location), tree: turn(lt.tree) })
                .collect()
        } else {
            vec![BundleTree {
                location: None,
                tree: turn(call_tree_from(m, &src, sk, Some(ask.window), keep).map_err(e)?),
            }]
        };
        let bundle = CallTreeBundle {
            window: ask.window,
            locations: ask.locations,
            inverted,
            per_location: per_location_trees,
            trees,
        };
        Ok(crate::worker::loaded_model("calltree", bundle.encode()))
    }
}

impl StoreSession {
    /// [t0, t1] clipped to the run (the whole run when either is not a number), and the locations selected.
    #[allow(clippy::type_complexity)]
    fn selection(
        &self,
        t0_ns: f64,
        t1_ns: f64,
        locations: Option<Vec<u32>>,
    ) -> Result<(TimeWindow, Option<Vec<u32>>, Vec<bool>), JsValue> {
        let span = self.store.manifest.span_ns;
        let window = if t0_ns.is_finite() && t1_ns.is_finite() && t1_ns >= t0_ns {
            let end_ns = (t1_ns.max(0.0) as u64).min(span);
            TimeWindow { start_ns: (t0_ns.max(0.0) as u64).min(end_ns), end_ns }
        } else {
            TimeWindow { start_ns: 0, end_ns: span }
        };
        let n = self.skeleton.locations.len();
        let Some(mut list) = locations else { return Ok((window, None, vec![true; n])) };
        list.sort_unstable();
        list.dedup();
        let mut keep = vec![false; n];
        for &l in &list {
            *keep
                .get_mut(l as usize)
                .ok_or_else(|| say(&self.name, format!("this store has no location {l} (it has {n})")))? = true;
        }
        Ok((window, Some(list), keep))
    }

    /// Keep `ask` as the one being answered: its tiles are this view's (held beyond the budget until the next
    /// view, as a view's are); the paths not cached and not failed before, to fetch.
    fn plan_ask(&mut self, ask: CallAsk) -> Vec<String> {
        self.cache.begin_view();
        let mut need = Vec::new();
        for &i in &ask.tiles {
            let path = &self.store.manifest.tiles[i].path;
            if !self.cache.touch(i) && !self.failed.iter().any(|(f, _)| f == path) {
                need.push(path.clone());
            }
        }
        self.calltree = Some(ask);
        need
    }
}
