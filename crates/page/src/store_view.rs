//! Stores in the browser (issue #17), the page's side: `Viewer` methods that show a store's timeline
//! (`views::store::StorePane`), Utilization & moments (`views::store_moments`) and Particles (the particle
//! pane streamed, `ParticlesPane::streamed`), say which viewport or playback range the
//! view shown asks the store worker for next (`store.rs`'s
//! `StoreSession`, in the worker's module), and take its answers.
//!
//! Must not hold view logic (views::store does) or fetch anything itself (www/store-worker.js does).

use super::viewer::to_js;
use super::Viewer;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use weft_analyses::particles::ParticleEvents;
use weft_model::codec;
use weft_store::Manifest;
use weft_view::views::particles::ParticlesPane;
use weft_view::views::store::{StorePane, EXACT_MARGIN};
use weft_view::views::store_moments::StoreMomentsPane;

#[wasm_bindgen]
impl Viewer {
    /// Show a store's timeline from its definitions (the worker's `StoreSession::skeleton`). Replaces what
    /// was shown; the answers come through [`Viewer::store_answer`].
    /// `particles`: the worker's `StoreSession::particle_frame` (empty: no Particles view), `geometry` its
    /// `particle_geometry` (`[first_ns, window_ns, windows, then each window's particle events]`).
    /// `lanes`: the worker's `StoreSession::lanes` (each location's row depth over the whole run).
    pub fn load_store(
        &mut self,
        skeleton: &[u8],
        lanes: Vec<u32>,
        particles: &[u8],
        geometry: Vec<f64>,
    ) -> Result<(), JsValue> {
        let skeleton = codec::decode(skeleton).map_err(|e| JsValue::from_str(&e.to_string()))?;
        let views = self.view_set();
        let (w, h) = views.size();
        let skeleton = Rc::new(skeleton);
        let particles = match (particles.is_empty(), geometry.as_slice()) {
            (false, &[first, window_ns, windows, ref starts @ ..]) => {
                if starts.len() != windows as usize {
                    let e = format!("the particle geometry has {} window counts for {windows} windows", starts.len());
                    return Err(JsValue::from_str(&e));
                }
                let frame = ParticleEvents::decode(particles, &skeleton).map_err(|e| JsValue::from_str(&e))?;
                let starts = starts.iter().map(|&n| n as u64).collect();
                Some(ParticlesPane::streamed(skeleton.clone(), frame, first as u64, window_ns as u64, starts, w, h))
            }
            _ => None,
        };
        let pane = StorePane::new(skeleton.clone(), lanes.into(), w, h);
        views.load_store(pane, StoreMomentsPane::new(skeleton, w, h), particles);
        Ok(())
    }

    /// The viewport the view shown asks the worker for (`{t0, t1, loc0, loc1, width, busy}`; busy: "" for
    /// the timeline, the busy definition for Utilization & moments), or null when it is the one asked last
    /// (or no store is shown).
    pub fn store_request(&mut self) -> JsValue {
        // Asked every animation frame: it changes nothing drawn, so the frame is not redrawn for it (a redraw
        // of every frame held a store's view at the software rasteriser's frame rate, ~1 s under load, and
        // each ask and answer waited for those frames: BENCHMARKS.md "Session 38: zoom latency").
        let views = self.view_set_unchanged();
        if views.view() == "particles" {
            let Some((from, to, fade)) = views.store_particles_pane().and_then(|p| p.stream_request()) else {
                return JsValue::NULL;
            };
            return to_js(&serde_json::json!({ "kind": "particles", "t0": from, "t1": to, "fade": fade }));
        }
        let (vp, busy, margin, ask, (waits, path)) = if views.view() == "moments" {
            let Some(p) = views.store_moments_pane() else { return JsValue::NULL };
            match p.request() {
                Some((v, def)) => (v, def.short_name(), 0.0, None, (false, false)),
                None => return JsValue::NULL,
            }
        } else {
            let Some(p) = views.store_pane() else { return JsValue::NULL };
            match p.request() {
                Some(v) => (v, String::new(), EXACT_MARGIN, Some(p.asks()), p.diagnosis_asked()),
                None => return JsValue::NULL,
            }
        };
        to_js(&serde_json::json!({
            "t0": vp.t0_ns, "t1": vp.t1_ns, "loc0": vp.locations.start, "loc1": vp.locations.end,
            "width": vp.width_px, "busy": busy, "s0": vp.series.start, "s1": vp.series.end, "margin": margin,
            "ask": ask, "waits": waits, "path": path,
        }))
    }

    /// Whether the timeline still wants the answer to its ask number `ask` (`store_request`'s `ask`, which the
    /// worker's answer carries back): not when its view was drawn since from the exact answer it holds
    /// (`StorePane::wants`); the page then drops the answer.
    pub fn store_wants(&mut self, ask: u32) -> bool {
        self.view_set_unchanged().store_pane().is_none_or(|p| p.wants(ask))
    }

    /// How many tiles the worker is fetching for the viewport asked last (drawn as a notice when nothing is).
    pub fn store_in_flight(&mut self, n: u32) {
        let views = self.view_set_unchanged();
        let mut changed = false;
        if let Some(p) = views.store_pane() {
            changed |= p.in_flight != n as usize;
            p.in_flight = n as usize;
        }
        if let Some(p) = views.store_moments_pane() {
            changed |= p.in_flight != n as usize;
            p.in_flight = n as usize;
        }
        if let Some(p) = views.store_particles_pane() {
            p.set_in_flight(n as usize);
            changed = true;
        }
        // Redrawn only where the count changed (it is drawn as a notice where nothing else is).
        if changed {
            self.invalidate();
        }
    }

    /// The counter tracks' figures beside the worker's timeline answer (`StoreSession::answer`'s `counters`:
    /// a postcard `CounterAnswer`), taken before the answer itself; empty bytes: none.
    pub fn store_counters(&mut self, bytes: &[u8]) -> Result<(), JsValue> {
        if bytes.is_empty() {
            return Ok(());
        }
        let a = postcard::from_bytes(bytes).map_err(|e| JsValue::from_str(&format!("counter answer: {e}")))?;
        let p = self.view_set_unchanged().store_pane().ok_or("no store is shown")?;
        p.show_counters(a);
        Ok(())
    }

    /// The diagnosis over the timeline beside the worker's timeline answer (`StoreSession::answer`'s
    /// `diagnosis`: a postcard `WaitOverlay`), taken before the answer itself; empty bytes: none.
    pub fn store_diagnosis(&mut self, bytes: &[u8]) -> Result<(), JsValue> {
        if bytes.is_empty() {
            return Ok(());
        }
        let o = postcard::from_bytes(bytes).map_err(|e| JsValue::from_str(&format!("diagnosis overlay: {e}")))?;
        let p = self.view_set().store_pane().ok_or("no store is shown")?;
        p.show_wait_overlay(o);
        Ok(())
    }

    /// Draw where waiting concentrates (per row and bin) and the critical path on the store's timeline, or
    /// not (the Diagnosis panel's toggles; a store indexed with `weft index --waits`): the next views are
    /// asked with them. False when no store is shown.
    pub fn store_diagnosis_shown(&mut self, waits: bool, path: bool) -> bool {
        let Some(p) = self.view_set().store_pane() else { return false };
        p.set_diagnosis_shown(waits, path);
        true
    }

    /// The Diagnosis panel's location chosen on a store's timeline: its row scrolled into the middle and
    /// marked; false where it has no row shown.
    pub fn store_show_location(&mut self, location: u32) -> bool {
        self.view_set().store_pane().is_some_and(|p| p.show_location(location))
    }

    /// The worker's answer for a viewport (see `StoreSession::answer`): drawn from now on, or, where this
    /// returns true (an exact slice), once [`Viewer::store_step`] says it is built. `ask`: the timeline's ask
    /// number it answers (`store_request`'s), with which a grid answer is kept for the view asked again.
    #[allow(clippy::too_many_arguments)]
    pub fn store_answer(
        &mut self,
        kind: &str,
        bytes: Vec<u8>,
        t0: f64,
        t1: f64,
        loc0: u32,
        loc1: u32,
        errors: Vec<String>,
        level: u32,
        ask: Option<u32>,
    ) -> Result<bool, JsValue> {
        if let Some(p) = self.view_set().store_particles_pane() {
            // The worker answers the latest ask only: a playback range it skipped is asked again.
            p.forget_ask();
        }
        if kind == "busy" {
            let p = self.view_set().store_moments_pane().ok_or("no store is shown")?;
            return p
                .receive(&bytes, t0 as u64, t1 as u64, level, errors)
                .map(|_| false)
                .map_err(|e| JsValue::from_str(&e));
        }
        let p = self.view_set().store_pane().ok_or("no store is shown")?;
        match kind {
            "grid" => {
                let g = postcard::from_bytes(&bytes).map_err(|e| JsValue::from_str(&format!("summary grid: {e}")))?;
                match ask {
                    Some(n) => p.show_grid_for(n, g, errors),
                    None => p.show_grid(g, errors),
                }
                Ok(false)
            }
            "exact" => {
                p.receive_exact(bytes, t0 as u64, t1 as u64, loc0..loc1, errors);
                Ok(true)
            }
            other => Err(JsValue::from_str(&format!("no store answer of kind '{other}'"))),
        }
    }

    /// The worker's exact answer for [t0, t1] of locations `loc0..loc1` as it sends it (see
    /// `StoreSession::answer`): `rest`, the slice without its intervals, and `intervals` intervals of the
    /// locations `runs` says, whose columns come by [`Viewer::store_exact_column`]; then made drawable with
    /// [`Viewer::store_step`]. `ns_per_px`: the scale of the view asked (`StorePane::covers`).
    #[allow(clippy::too_many_arguments)]
    pub fn store_exact_begin(
        &mut self,
        rest: Vec<u8>,
        runs: Vec<u32>,
        intervals: usize,
        t0: f64,
        t1: f64,
        loc0: u32,
        loc1: u32,
        errors: Vec<String>,
        ns_per_px: f64,
    ) -> Result<(), JsValue> {
        if let Some(p) = self.view_set_unchanged().store_particles_pane() {
            p.forget_ask();
        }
        let p = self.view_set_unchanged().store_pane().ok_or("no store is shown")?;
        p.begin_exact_columns(rest, &runs, intervals, t0 as u64, t1 as u64, loc0..loc1, errors)
            .map_err(|e| JsValue::from_str(&format!("exact answer: {e}")))?;
        if ns_per_px.is_finite() && ns_per_px > 0.0 {
            p.exact_asked_at(ns_per_px);
        }
        Ok(())
    }

    /// The number of the timeline's ask (`store_request`'s `ask`) the exact answer begun by
    /// [`Viewer::store_exact_begin`] answers: the second part of the ask shown (its margin) is still wanted.
    pub fn store_exact_ask(&mut self, ask: u32) {
        if let Some(p) = self.view_set_unchanged().store_pane() {
            p.exact_answers(ask);
        }
    }

    /// Interval column `k` of the exact answer begun by [`Viewer::store_exact_begin`] (its values' bytes,
    /// copied as they are).
    pub fn store_exact_column(&mut self, k: usize, bytes: &[u8]) -> Result<(), JsValue> {
        let p = self.view_set_unchanged().store_pane().ok_or("no store is shown")?;
        p.receive_column(k, bytes).map_err(|e| JsValue::from_str(&format!("exact answer: {e}")))
    }

    /// The step [`Viewer::store_step`] takes next (`StorePane::stage`: "decode", "layout", "overview",
    /// "lanes"; "" when none), which the page times apart.
    pub fn store_stage(&mut self) -> String {
        self.view_set_unchanged().store_pane().map_or("", |p| p.stage()).to_string()
    }

    /// One step of making the exact answer drawable (`StorePane::step`: a few ms; the page yields to the
    /// browser between steps), then of indexing its messages' lanes (`store_stage` says "lanes" once it is
    /// drawable); true when nothing is left to do.
    pub fn store_step(&mut self) -> Result<bool, JsValue> {
        let Some(p) = self.view_set_unchanged().store_pane() else { return Ok(true) };
        let before = p.stage();
        let done = p.step().map_err(|e| JsValue::from_str(&format!("exact answer: {e}")))?;
        // Redrawn when the answer is drawable (its messages' lanes are indexed in the steps after) and when
        // they are.
        if done || (p.stage() == "lanes" && before != "lanes") {
            self.invalidate();
        }
        Ok(done)
    }
}

#[wasm_bindgen]
impl Viewer {
    /// The worker's particle slice for the playback range `[from, end)` at fading `fade` (ns; `end` past
    /// 2^64 - 1 saturates: through the last window): played from now on.
    pub fn store_particles_answer(
        &mut self,
        bytes: &[u8],
        from: f64,
        end: f64,
        fade: f64,
        errors: Vec<String>,
    ) -> Result<(), JsValue> {
        let views = self.view_set();
        let p = views.store_particles_pane().ok_or("no store particles are shown")?;
        let ev = ParticleEvents::decode(bytes, p.trace()).map_err(|e| JsValue::from_str(&e))?;
        p.receive_slice(ev, (from as u64, end as u64, fade as u64), errors).map_err(|e| JsValue::from_str(&e))
    }
}

/// Whether `manifest` (bytes) is a weft store's manifest, for the page deciding how to open a folder.
#[wasm_bindgen]
pub fn is_store_manifest(manifest: &[u8]) -> bool {
    Manifest::parse(manifest).is_ok()
}
