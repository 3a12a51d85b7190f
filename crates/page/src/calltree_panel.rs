//! The call-tree panel's questions (www/calltree-panel.js asks, and fills the DOM with the answers as text;
//! issue #55): the worker's call tree of a selection received and checked against the trace shown
//! (`analyses::calltree_bundle`), its rows (open nodes, sort, search), the tree of one location, a node
//! selected (its path for the worker's marks, its region's butterfly), the path's intervals marked in the
//! timeline, and the tree shown as a flame graph or an icicle (`views::flame`, a pane of its own). The state is
//! `views::calltree_list`'s; no DOM, no drawing and no analysis here. On a store the tree is of its
//! definitions (the skeleton: the store worker's tree names them), and a path's marks come as keys the
//! store's timeline finds in each exact slice it shows.

use super::viewer::{to_js, Viewer};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use weft_analyses::calltree_bundle::{decode_path_intervals, decode_path_keys, CallTreeBundle};
use weft_model::{LocationId, Trace};
use weft_view::views::calltree_list::{CallTreeList, SortKey, MAX_ROWS};
use weft_view::views::flame::FlamePane;
use weft_view::views::timeline::{location_matches, TimelinePane};

fn js_err(e: impl ToString) -> JsValue {
    JsValue::from_str(&e.to_string())
}

#[wasm_bindgen]
impl Viewer {
    /// The locations matching `pattern` (a glob over "process / location" or the location's name, as the
    /// profile panel's filter), for the worker's selection; undefined for an empty pattern (every location).
    pub fn calltree_locations(&mut self, pattern: &str) -> Result<Option<Vec<u32>>, JsValue> {
        let pattern = pattern.trim();
        if pattern.is_empty() {
            return Ok(None);
        }
        let t = self.calltree_trace()?;
        Ok(Some((0..t.locations.len() as u32).filter(|&l| location_matches(&t, LocationId(l), pattern)).collect()))
    }

    /// Show the worker's call tree (its `call_tree_of` answer's bytes) of the trace shown: the bundle's
    /// summary (`views::calltree_list::CallTreeList::summary`). Err when the bytes are not of this trace.
    pub fn receive_calltree(&mut self, bytes: &[u8]) -> Result<JsValue, JsValue> {
        let trace = self.calltree_trace()?;
        let bundle = CallTreeBundle::decode(bytes, &trace).map_err(js_err)?;
        let list = CallTreeList::new(trace, bundle);
        let out = to_js(&list.summary());
        self.calltree = Some(list);
        Ok(out)
    }

    /// Whether a call tree is held for the trace shown.
    pub fn has_calltree(&mut self) -> bool {
        self.calltree().is_ok()
    }

    /// The summary of the tree held (as `receive_calltree`).
    pub fn calltree_summary(&mut self) -> Result<JsValue, JsValue> {
        Ok(to_js(&self.calltree()?.summary()))
    }

    /// Show tree `i` of the bundle (per location: one location's).
    pub fn calltree_choose(&mut self, i: usize) -> Result<bool, JsValue> {
        Ok(self.calltree()?.choose(i))
    }

    /// The rows shown (`CallTreeList::rows`: `{total_ns, rows: [{node, depth, name, region, count,
    /// inclusive_ns, exclusive_ns, share, children, open, match, selected}], more, matches}`).
    pub fn calltree_rows(&mut self) -> Result<JsValue, JsValue> {
        Ok(to_js(&self.calltree()?.rows(MAX_ROWS)))
    }

    /// Open or close node `node`.
    pub fn calltree_toggle(&mut self, node: usize) -> Result<bool, JsValue> {
        Ok(self.calltree()?.toggle(node))
    }

    /// Open (or close) every node.
    pub fn calltree_open_all(&mut self, open: bool) -> Result<(), JsValue> {
        self.calltree()?.open_all(open);
        Ok(())
    }

    /// Sort siblings by `key` (name, count, inclusive, exclusive).
    pub fn calltree_sort(&mut self, key: &str, descending: bool) -> Result<(), JsValue> {
        let key = SortKey::parse(key).map_err(js_err)?;
        self.calltree()?.set_sort(key, descending);
        Ok(())
    }

    /// Search the tree's regions by name; returns the count of matching nodes.
    pub fn calltree_search(&mut self, pattern: &str) -> Result<u32, JsValue> {
        Ok(self.calltree()?.search(pattern) as u32)
    }

    /// Select node `node` (negative: none): its path (region ids as the tree lists them) for the worker's
    /// `call_path_intervals`, or null.
    pub fn calltree_select(&mut self, node: i32) -> Result<Option<Vec<u32>>, JsValue> {
        Ok(self.calltree()?.select(usize::try_from(node).ok()))
    }

    /// The butterfly of the chosen region (`CallTreeList::butterfly`), null bottom up.
    pub fn calltree_butterfly(&mut self) -> Result<JsValue, JsValue> {
        Ok(to_js(&self.calltree()?.butterfly()))
    }

    /// Show region `region`'s butterfly.
    pub fn calltree_set_butterfly(&mut self, region: u32) -> Result<bool, JsValue> {
        Ok(self.calltree()?.set_butterfly(region))
    }

    /// Mark the intervals of the worker's `call_path_intervals` answer in the timeline (empty bytes: no
    /// marks); returns how many are marked. On a store: the store worker's keys of them, marked in the exact
    /// slices its timeline shows; returns how many keys.
    pub fn calltree_mark(&mut self, bytes: &[u8]) -> Result<u32, JsValue> {
        if let Some(store) = self.view_set().store_pane() {
            let keys = if bytes.is_empty() {
                None
            } else {
                Some(Rc::from(decode_path_keys(bytes, &store.shared_skeleton()).map_err(js_err)?))
            };
            return Ok(store.mark_call_path_keys(keys) as u32);
        }
        let pane = self.calltree_timeline()?;
        if bytes.is_empty() {
            pane.mark_call_path(None);
            return Ok(0);
        }
        let intervals = decode_path_intervals(bytes, pane.trace()).map_err(js_err)?;
        let n = intervals.len() as u32;
        pane.mark_call_path(Some(Rc::from(intervals)));
        Ok(n)
    }

    /// Show the tree shown as a flame graph (or an icicle) in a view of its own, the "flamegraph" tab.
    pub fn calltree_show_flame(&mut self, icicle: bool) -> Result<(), JsValue> {
        let (tree, about) = {
            let l = self.calltree()?;
            (l.tree(), l.about())
        };
        let trace = self.calltree_trace()?;
        let set = self.view_set();
        let (w, h) = set.size();
        set.show_pane(Box::new(FlamePane::new(trace, tree, about, icicle, w, h)));
        Ok(())
    }
}

impl Viewer {
    /// The timeline of the trace shown, shown or behind the flame graph.
    fn calltree_timeline(&mut self) -> Result<&mut TimelinePane, JsValue> {
        self.view_set()
            .pane_mut("timeline")
            .and_then(|p| p.as_timeline())
            .ok_or_else(|| JsValue::from_str("the call tree is of a trace's or a store's timeline (open one)"))
    }

    /// What the call tree is of: the trace shown, or the store's definitions.
    fn calltree_trace(&mut self) -> Result<Rc<Trace>, JsValue> {
        if let Some(store) = self.view_set_unchanged().store_pane() {
            return Ok(store.shared_skeleton());
        }
        Ok(self.calltree_timeline()?.shared_trace())
    }

    /// The call tree held, if it is of the trace (or store) shown (one of an input loaded before is dropped).
    fn calltree(&mut self) -> Result<&mut CallTreeList, JsValue> {
        let shown = self.calltree_trace().ok();
        if !shown.is_some_and(|t| self.calltree.as_ref().is_some_and(|l| Rc::ptr_eq(l.trace(), &t))) {
            self.calltree = None;
        }
        self.calltree.as_mut().ok_or_else(|| JsValue::from_str("no call tree was received for the trace shown"))
    }
}
