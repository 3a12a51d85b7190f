//! A store's side of a comparison on the page (issue #54), in the store's worker: the tiles the side reads
//! named (`store::read::compare::tiles`), the page's script fetches them and lends them here, the side is
//! taken from them (`store::read::compare::side`: the region profile from the call-path tiles, the moments
//! tiles, the kept wait states) and they are let go. The call tree for the differential flame graph the same
//! way (`store::read::calltree::store_call_tree`). So a store compares without being decoded whole, and its
//! side is what `analyses::compare::side` gives of the trace it was indexed from. Must not keep what it was
//! lent past one answer (the decoded-tile cache is the store's only lasting memory besides the moments tiles).

use super::{err, StoreSession};
use crate::compare::{err as plain, options};
use wasm_bindgen::prelude::*;
use weft_analyses::compare::calltree::{diff_trees, TreeSide};
use weft_store::read::calltree::store_call_tree;
use weft_store::read::compare::{side, tiles, window};

fn letter(which: &str) -> char {
    if which == "B" {
        'B'
    } else {
        'A'
    }
}

#[wasm_bindgen]
impl StoreSession {
    /// The store paths the side (`which`) under these options reads and the worker does not hold yet (the
    /// page's compare settings: `align`, `ranks`, a window `[t0_ns, t1_ns]` from the origin or NaN).
    pub fn compare_tiles(
        &self,
        which: &str,
        align: &str,
        ranks: &str,
        t0_ns: f64,
        t1_ns: f64,
    ) -> Result<Vec<String>, JsValue> {
        let o = options(align, ranks, t0_ns, t1_ns)?;
        let named = tiles(&self.store, letter(which), &o).map_err(|e| err(&self.name, e))?;
        let h = self.store.source();
        let (kept, lent) = (h.kept.borrow(), h.lent.borrow());
        let m = &self.store.manifest;
        Ok(named
            .into_iter()
            .map(|i| m.tiles[i].path.clone())
            .filter(|p| !kept.contains_key(p) && !lent.contains_key(p))
            .collect())
    }

    /// A tile [`compare_tiles`](Self::compare_tiles) named, fetched: held until the answer is taken (checked
    /// against the manifest when it is read).
    pub fn lend(&mut self, path: &str, bytes: Vec<u8>) -> Result<(), JsValue> {
        if !self.store.manifest.tiles.iter().any(|e| e.path == path) {
            return Err(err(&self.name, format!("{path}: not a tile of this store")));
        }
        self.store.source().lent.borrow_mut().insert(path.to_string(), bytes);
        Ok(())
    }

    /// The decoded-tile cache's budget, in bytes (the page gives each of two stores compared half the one
    /// store's budget); trimmed to it now.
    pub fn set_cache_budget(&mut self, bytes: f64) {
        if bytes.is_finite() && bytes >= 1.0 {
            self.cache.set_budget(bytes as usize);
        }
    }

    /// Let go of the tiles lent (after an answer, or when the comparison ends).
    pub fn compare_release(&mut self) {
        self.store.source().lent.borrow_mut().clear();
    }

    /// The store's side of the comparison (`compare::Side` as JSON), from the tiles lent; they are let go.
    pub fn compare_side(
        &mut self,
        which: &str,
        align: &str,
        ranks: &str,
        t0_ns: f64,
        t1_ns: f64,
    ) -> Result<String, JsValue> {
        let o = options(align, ranks, t0_ns, t1_ns)?;
        let s = side(&self.store, &self.skeleton, letter(which), &o);
        self.compare_release();
        serde_json::to_string(&s.map_err(|e| err(&self.name, e))?).map_err(plain)
    }

    /// The store's call tree over its window of the comparison, named (`compare::calltree::TreeSide`), from
    /// the tiles lent: run A's part of the differential flame graph when A is this store.
    pub fn compare_calltree_side(
        &mut self,
        which: &str,
        align: &str,
        ranks: &str,
        t0_ns: f64,
        t1_ns: f64,
    ) -> Result<String, JsValue> {
        let tree = self.compare_tree(which, align, ranks, t0_ns, t1_ns)?;
        serde_json::to_string(&TreeSide::of(&tree, &self.skeleton)).map_err(plain)
    }

    /// The differential flame graph with this store as run B: its call tree coloured by each path's change
    /// against run A's (`a`: JSON of a `compare_calltree_side`), as the trace worker's `compare_flame` answers.
    #[allow(clippy::too_many_arguments)]
    pub fn compare_flame(
        &mut self,
        a: &str,
        align: &str,
        ranks: &str,
        t0_ns: f64,
        t1_ns: f64,
        width: f32,
    ) -> Result<String, JsValue> {
        let side_a: TreeSide =
            serde_json::from_str(a).map_err(|e| plain(format!("run A's call tree for the comparison: {e}")))?;
        let tree = self.compare_tree("B", align, ranks, t0_ns, t1_ns)?;
        let diff = diff_trees(&side_a, &TreeSide::of(&tree, &self.skeleton));
        crate::compare::flame_answer(&tree, &self.skeleton, &diff, width)
    }
}

impl StoreSession {
    fn compare_tree(
        &mut self,
        which: &str,
        align: &str,
        ranks: &str,
        t0_ns: f64,
        t1_ns: f64,
    ) -> Result<weft_analyses::calltree::CallTree, JsValue> {
        let o = options(align, ranks, t0_ns, t1_ns)?;
        let got =
            window(self.store.manifest.span_ns, letter(which), &o).map_err(|e| err(&self.name, e)).and_then(|w| {
                if !weft_store::read::calltree::has_callpaths(&self.store) {
                    return Err(err(
                        &self.name,
                        "this store keeps no call-path tiles (format 8 on): index the trace again for its call tree",
                    ));
                }
                store_call_tree(&self.store, &self.skeleton, w, |_| true).map_err(|e| err(&self.name, e))
            });
        self.compare_release();
        got
    }
}
