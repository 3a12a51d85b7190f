//! Stores in the browser (issue #17), the page's side: `Viewer` methods that show a store's timeline
//! (`views::store::StorePane`) and Utilization & moments (`views::store_moments`), say which viewport the
//! view shown asks the store worker for next (`store.rs`'s
//! `StoreSession`, in the worker's module), and take its answers.
//!
//! Must not hold view logic (views::store does) or fetch anything itself (www/store-worker.js does).

use super::viewer::to_js;
use super::Viewer;
use crate::model::codec;
use crate::store::Manifest;
use crate::views::store::StorePane;
use crate::views::store_moments::StoreMomentsPane;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
impl Viewer {
    /// Show a store's timeline from its definitions (the worker's `StoreSession::skeleton`). Replaces what
    /// was shown; the answers come through [`Viewer::store_answer`].
    pub fn load_store(&mut self, skeleton: &[u8]) -> Result<(), JsValue> {
        let skeleton = codec::decode(skeleton).map_err(|e| JsValue::from_str(&e.to_string()))?;
        let views = self.view_set();
        let (w, h) = views.size();
        let skeleton = Rc::new(skeleton);
        views.load_store(StorePane::new(skeleton.clone(), w, h), StoreMomentsPane::new(skeleton, w, h));
        Ok(())
    }

    /// The viewport the view shown asks the worker for (`{t0, t1, loc0, loc1, width, busy}`; busy: "" for
    /// the timeline, the busy definition for Utilization & moments), or null when it is the one asked last
    /// (or no store is shown).
    pub fn store_request(&mut self) -> JsValue {
        let views = self.view_set();
        let (vp, busy) = if views.view() == "moments" {
            let Some(p) = views.store_moments_pane() else { return JsValue::NULL };
            match p.request() {
                Some((v, def)) => (v, def.short_name()),
                None => return JsValue::NULL,
            }
        } else {
            let Some(p) = views.store_pane() else { return JsValue::NULL };
            match p.request() {
                Some(v) => (v, String::new()),
                None => return JsValue::NULL,
            }
        };
        to_js(&serde_json::json!({
            "t0": vp.t0_ns, "t1": vp.t1_ns, "loc0": vp.locations.start, "loc1": vp.locations.end,
            "width": vp.width_px, "busy": busy,
        }))
    }

    /// How many tiles the worker is fetching for the viewport asked last (drawn as a notice when nothing is).
    pub fn store_in_flight(&mut self, n: u32) {
        let views = self.view_set();
        if let Some(p) = views.store_pane() {
            p.in_flight = n as usize;
        }
        if let Some(p) = views.store_moments_pane() {
            p.in_flight = n as usize;
        }
    }

    /// The worker's answer for a viewport (see `StoreSession::answer`): drawn from now on.
    #[allow(clippy::too_many_arguments)]
    pub fn store_answer(
        &mut self,
        kind: &str,
        bytes: &[u8],
        t0: f64,
        t1: f64,
        loc0: u32,
        loc1: u32,
        errors: Vec<String>,
        level: u32,
    ) -> Result<(), JsValue> {
        if kind == "busy" {
            let p = self.view_set().store_moments_pane().ok_or("no store is shown")?;
            return p.receive(bytes, t0 as u64, t1 as u64, level, errors).map_err(|e| JsValue::from_str(&e));
        }
        let p = self.view_set().store_pane().ok_or("no store is shown")?;
        match kind {
            "grid" => {
                let g = postcard::from_bytes(bytes).map_err(|e| JsValue::from_str(&format!("summary grid: {e}")))?;
                p.show_grid(g, errors);
            }
            "exact" => {
                let slice = codec::decode(bytes).map_err(|e| JsValue::from_str(&e.to_string()))?;
                p.show_exact(slice, t0 as u64, t1 as u64, loc0..loc1, errors);
            }
            other => return Err(JsValue::from_str(&format!("no store answer of kind '{other}'"))),
        }
        Ok(())
    }
}

/// Whether `manifest` (bytes) is a weft store's manifest, for the page deciding how to open a folder.
#[wasm_bindgen]
pub fn is_store_manifest(manifest: &[u8]) -> bool {
    Manifest::parse(manifest).is_ok()
}
