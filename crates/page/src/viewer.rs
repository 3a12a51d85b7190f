//! The page's handle: the wasm glue around the views (`weft_view::views::set::ViewSet`: what is loaded, its
//! views, the one shown, all in plain Rust). Owns the renderer, the canvases and the browser's clock; turns
//! input into view changes and view changes into frames. One frame = the shown view's scene, uploaded and
//! drawn, then its labels on the overlay canvas. Must not hold view logic (views does).

use super::overlay::draw_labels;
use crate::renderer::Renderer;
use serde::Serialize;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};
use weft_view::layouts::execgraph::bundle::ExecBundle;
use weft_view::scene::palette;
use weft_view::scene::svg::to_svg;
use weft_view::scene::Scene;
use weft_view::views::grains::GrainsPane;
use weft_view::views::set::ViewSet;
use weft_view::views::{Clock, Pane};

#[wasm_bindgen]
pub struct Viewer {
    renderer: Renderer,
    canvas: HtmlCanvasElement,
    overlay_canvas: HtmlCanvasElement,
    overlay: CanvasRenderingContext2d,
    dpr: f64,
    /// What is loaded, its views and the one shown (all view logic is there, in plain Rust).
    views: ViewSet,
    /// Buffers from the worker received in parts, for the next stepped load.
    incoming: Vec<Vec<u8>>,
    dirty: bool,
    last: FrameStats,
    dark: bool,
    /// The GraphML download under way (crates/page/src/graph_export.rs).
    graphml: Option<super::graph_export::GraphmlExport>,
    /// The call-tree panel's tree and state (crates/page/src/calltree_panel.rs).
    pub(super) calltree: Option<weft_view::views::calltree_list::CallTreeList>,
}

#[derive(Serialize, Clone, Default)]
struct FrameStats {
    rects: usize,
    lines: usize,
    labels: usize,
    /// Rects and lines that show data, not decoration (`Scene::marks`).
    marks: usize,
    /// Why the view shows no data, when it says so (`Scene::notice`).
    notice: Option<String>,
    draw_calls: u32,
    build_ms: f64,
    draw_ms: f64,
}

fn now_ms() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
}

/// The browser's clock, given to the views that animate.
struct PerformanceClock;

impl Clock for PerformanceClock {
    fn now_ms(&self) -> f64 {
        now_ms()
    }
}

pub(super) fn to_js<T: Serialize>(v: &T) -> JsValue {
    v.serialize(&serde_wasm_bindgen::Serializer::json_compatible()).unwrap_or(JsValue::NULL)
}

#[wasm_bindgen]
impl Viewer {
    /// Set up drawing on `canvas` (GPU) with labels on `overlay` (2D).
    pub async fn create(canvas: HtmlCanvasElement, overlay: HtmlCanvasElement) -> Result<Viewer, JsValue> {
        let ctx = overlay
            .get_context("2d")?
            .ok_or("the overlay canvas has no 2D context")?
            .dyn_into::<CanvasRenderingContext2d>()?;
        let renderer = Renderer::new(canvas.clone()).await.map_err(|e| JsValue::from_str(&e))?;
        let (width, height) = (canvas.client_width().max(1) as f32, canvas.client_height().max(1) as f32);
        Ok(Viewer {
            renderer,
            views: ViewSet::new(width, height, Rc::new(PerformanceClock)),
            incoming: Vec::new(),
            canvas,
            overlay_canvas: overlay,
            overlay: ctx,
            dpr: 1.0,
            dirty: true,
            last: FrameStats::default(),
            dark: false,
            graphml: None,
            calltree: None,
        })
    }

    pub fn backend(&self) -> String {
        self.renderer.tier().name().to_string()
    }

    /// Show a trace encoded by the worker, in the timeline view. Replaces what was shown.
    /// `moments`: the worker's moments of it for the default busy definition (analyses::moments_bundle),
    /// decoded when the moments view is first shown.
    pub fn load(&mut self, model: &[u8], moments: Option<Vec<u8>>) -> Result<(), JsValue> {
        self.views.begin_trace(model.to_vec(), moments);
        while self.load_step()? {}
        Ok(())
    }

    /// Start receiving one buffer of `len` bytes from the worker, given in parts by [`Viewer::receive_part`]
    /// (so no main-thread task copies a whole 75 MB bundle); then [`Viewer::begin_load_received`].
    pub fn receive(&mut self, len: usize) {
        self.incoming.push(Vec::with_capacity(len));
    }

    pub fn receive_part(&mut self, part: &[u8]) -> Result<(), JsValue> {
        let buffer = self.incoming.last_mut().ok_or("receive_part before receive")?;
        buffer.extend_from_slice(part);
        Ok(())
    }

    /// Begin showing the buffers received, in steps (then call [`Viewer::load_step`] until it returns false,
    /// yielding to the browser between calls): for `kind` "grains" the grain bundle and its aggregation, for
    /// "trace" the encoded trace and its moments (each second buffer optional).
    pub fn begin_load_received(&mut self, kind: &str) -> Result<(), JsValue> {
        let mut buffers = std::mem::take(&mut self.incoming).into_iter();
        let first = buffers.next().ok_or("nothing was received")?;
        match kind {
            "grains" => self.views.begin_grains(first, buffers.next()),
            "trace" => self.views.begin_trace(first, buffers.next()),
            _ => return Err(JsValue::from_str(&format!("no stepped load for '{kind}'"))),
        }
        Ok(())
    }

    /// One step of the load begun (views::set::ViewSet::load_step): true while steps remain, false once
    /// what was loaded is shown.
    pub fn load_step(&mut self) -> Result<bool, JsValue> {
        let more = self.views.load_step().map_err(|e| JsValue::from_str(&e))?;
        if !more {
            self.dirty = true;
        }
        Ok(more)
    }

    /// What the next `load_step` does ("" when no load is under way), for the page's timings.
    pub fn load_step_name(&self) -> String {
        self.views.load_step_name().unwrap_or("").to_string()
    }

    /// Show an execution graph laid out by the worker. Replaces what was shown.
    pub fn load_execgraph(&mut self, bundle: &[u8]) -> Result<(), JsValue> {
        let bundle = ExecBundle::decode(bundle).map_err(|e| JsValue::from_str(&e))?;
        self.views.load_execgraph(bundle);
        self.dirty = true;
        Ok(())
    }

    /// Show a grain graph analysed and laid out by the worker, in the grain-graph view, or in the Aggregated
    /// view when its grains would be narrower than a pixel fitted. Replaces what was shown.
    /// `aggregation`: the worker's aggregation of it (analyses::aggregate::bundle), used by the Aggregated view.
    pub fn load_grains(&mut self, bundle: &[u8], aggregation: Option<Vec<u8>>) -> Result<(), JsValue> {
        self.views.begin_grains(bundle.to_vec(), aggregation);
        while self.load_step()? {}
        Ok(())
    }

    /// A new layout of the execution graph shown (another minimum edge length), keeping the view.
    pub fn relayout_execgraph(&mut self, bundle: &[u8]) -> Result<(), JsValue> {
        let bundle = ExecBundle::decode(bundle).map_err(|e| JsValue::from_str(&e))?;
        self.views.relayout_execgraph(bundle).map_err(|e| JsValue::from_str(&e))?;
        self.dirty = true;
        Ok(())
    }

    /// The views the loaded input offers.
    pub fn views(&self) -> Vec<String> {
        self.views.views()
    }

    /// Why view `kind` has nothing to show (its tab says so); undefined when it has something.
    pub fn view_note(&self, kind: &str) -> Option<String> {
        self.views.view_note(kind)
    }

    /// The view shown now.
    pub fn view(&self) -> String {
        self.views.view().to_string()
    }

    /// Show a second grain profile beside the aggregated view: two runs of the same program side by side,
    /// analysed under the shown run's thresholds. `bundle`: the worker's grain bundle of it (the worker reads
    /// the file, `WorkerSession::finish_compare`); `name` names it.
    pub fn compare_with(&mut self, name: &str, bundle: &[u8]) -> Result<(), JsValue> {
        self.views.compare_with(name, bundle).map_err(|e| JsValue::from_str(&e))?;
        self.dirty = true;
        Ok(())
    }

    /// Mark the clusters panel's answer (`weft clusters --json`'s text) in the moments view: bars coloured by
    /// cluster, representatives and outliers marked, the grouping said; an empty text clears the marks.
    pub fn moments_mark_clusters(&mut self, json: &str) -> Result<(), JsValue> {
        let json = (!json.is_empty()).then_some(json);
        self.view_set().mark_clusters(json).map_err(|e| JsValue::from_str(&e))
    }

    /// The worker's moments of the loaded trace for the busy definition the moments view asked for (the
    /// worker's `moments_for`): shown from now on; the view kept the old ones until now.
    pub fn receive_moments(&mut self, bundle: &[u8]) -> Result<(), JsValue> {
        self.views.receive_moments(bundle).map_err(|e| JsValue::from_str(&e))?;
        self.dirty = true;
        Ok(())
    }

    /// Switch views, keeping the time range where both views have one.
    pub fn set_view(&mut self, kind: &str) -> Result<(), JsValue> {
        self.views.set_view(kind).map_err(|e| JsValue::from_str(&e))?;
        self.dirty = true;
        Ok(())
    }

    /// Switch views as `set_view` does, or, where building the view would be one long main-thread task (the
    /// particle index of a large trace), begin building it in steps and return true: then call `load_step`
    /// until it returns false, yielding between calls; the last step shows the view (issue 16).
    pub fn begin_view(&mut self, kind: &str) -> Result<bool, JsValue> {
        let stepped = self.views.begin_view(kind).map_err(|e| JsValue::from_str(&e))?;
        self.dirty = true;
        Ok(stepped)
    }

    /// Show grain `grain` in the Grain graph tab, selected and in view (the Aggregated view's jump).
    pub fn show_grain(&mut self, grain: u32) -> Result<(), JsValue> {
        self.views.show_grain(grain).map_err(|e| JsValue::from_str(&e))?;
        self.dirty = true;
        Ok(())
    }

    /// Change an option of the shown view (e.g. `busy` = `any` in the moments view).
    pub fn configure(&mut self, key: &str, value: &str) -> Result<(), JsValue> {
        self.views.configure(key, value).map_err(|e| JsValue::from_str(&e))?;
        self.dirty = true;
        Ok(())
    }

    pub fn resize(&mut self, css_width: f64, css_height: f64, dpr: f64) {
        let dpr = if dpr.is_finite() && dpr > 0.0 { dpr } else { 1.0 };
        let (w, h) = (css_width.max(1.0), css_height.max(1.0));
        let (pw, ph) = ((w * dpr).round() as u32, (h * dpr).round() as u32);
        self.canvas.set_width(pw);
        self.canvas.set_height(ph);
        self.overlay_canvas.set_width(pw);
        self.overlay_canvas.set_height(ph);
        self.renderer.resize(pw, ph, dpr as f32);
        self.dpr = dpr;
        self.views.resize(w as f32, h as f32);
        self.dirty = true;
    }

    fn with_pane(&mut self, f: impl FnOnce(&mut dyn Pane)) {
        if let Some(p) = self.views.active_mut() {
            f(p);
            self.dirty = true;
        }
    }

    /// Zoom about screen x (and y, in views that zoom both ways); factor > 1 zooms in.
    pub fn zoom(&mut self, x: f32, factor: f64, y: Option<f32>) {
        if factor.is_finite() && factor > 0.0 {
            self.with_pane(|p| p.zoom_xy(x, y, factor));
        }
    }

    /// Zoom rows about screen y, where the view has zoomable rows.
    pub fn zoom_rows(&mut self, y: f32, factor: f64) {
        if factor.is_finite() && factor > 0.0 {
            self.with_pane(|p| p.zoom_rows(y, factor));
        }
    }

    /// Pan by screen pixels (positive: later in time).
    pub fn pan(&mut self, dx: f32) {
        self.with_pane(|p| p.pan(dx));
    }

    /// Scroll rows by screen pixels (positive: down).
    pub fn scroll(&mut self, dy: f32) {
        self.with_pane(|p| p.scroll(dy));
    }

    /// Show everything.
    pub fn fit(&mut self) {
        self.with_pane(|p| p.fit());
    }

    /// Show [t0, t1] (ns from the trace's start).
    pub fn set_time_range(&mut self, t0_ns: f64, t1_ns: f64) {
        self.with_pane(|p| p.set_time_range(t0_ns, t1_ns));
    }

    /// Label the timeline's axis in aligned time: 0 at `origin_ns` (ns from the trace's start), negative
    /// before it, the origin said in the gutter; not a number: the trace's own time again.
    pub fn set_time_origin(&mut self, origin_ns: f64) {
        self.with_pane(|p| p.set_time_origin(origin_ns.is_finite().then_some(origin_ns)));
    }

    /// What is under (x, y) as `{title, lines, detail}`, highlighted; null when nothing.
    pub fn hover(&mut self, x: f32, y: f32) -> JsValue {
        let Some(p) = self.views.active_mut() else { return JsValue::NULL };
        let hit = p.hover(x, y);
        self.dirty = true;
        hit.map_or(JsValue::NULL, |h| to_js(&h))
    }

    /// A click at (x, y) in the shown view (opening or closing a group); returns whether it acted.
    pub fn click(&mut self, x: f32, y: f32) -> bool {
        let Some(p) = self.views.active_mut() else { return false };
        let acted = p.click(x, y);
        self.dirty |= acted;
        acted
    }

    pub fn clear_hover(&mut self) {
        self.with_pane(|p| p.clear_hover());
    }

    pub(super) fn scene(&self) -> Scene {
        let mut scene = self.views.scene();
        if self.dark {
            palette::apply_dark(&mut scene);
        }
        scene
    }

    /// "dark" or "light": the colours of every view and of exports from now on.
    pub fn set_theme(&mut self, theme: &str) -> Result<(), JsValue> {
        self.dark = match theme {
            "dark" => true,
            "light" => false,
            _ => return Err(JsValue::from_str(&format!("themes are 'light' or 'dark', not '{theme}'"))),
        };
        self.dirty = true;
        Ok(())
    }

    /// Put back a view's geometry saved from `view_state` (a permalink), given as JSON.
    pub fn restore_state(&mut self, state: &str) -> Result<(), JsValue> {
        let s: serde_json::Value =
            serde_json::from_str(state).map_err(|e| JsValue::from_str(&format!("view state: {e}")))?;
        self.with_pane(|p| p.restore(&s));
        Ok(())
    }

    /// Draw if anything changed since the last frame; returns whether it drew.
    pub fn frame(&mut self) -> Result<bool, JsValue> {
        if !self.dirty {
            return Ok(false);
        }
        let t0 = now_ms();
        let scene = self.scene();
        let t1 = now_ms();
        let layer = self.views.active_mut().and_then(|p| p.particle_layer());
        self.renderer.render_with(&scene, layer.as_ref()).map_err(|e| JsValue::from_str(&e))?;
        draw_labels(&self.overlay, &scene, self.dpr);
        let t2 = now_ms();
        self.last = FrameStats {
            rects: scene.rects.len(),
            lines: scene.lines.len(),
            labels: scene.labels.len(),
            marks: scene.marks(),
            notice: scene.notice.clone(),
            draw_calls: self.renderer.draw_calls,
            build_ms: t1 - t0,
            draw_ms: t2 - t1,
        };
        self.dirty = self.views.active().is_some_and(|p| p.animating());
        Ok(true)
    }

    /// Force the next `frame` to draw.
    pub fn invalidate(&mut self) {
        self.dirty = true;
    }

    /// What the page computed itself for what is loaded (see `built_on_page`): empty when the worker sent it.
    pub fn built_on_page(&self) -> Vec<String> {
        self.views.built_on_page().iter().map(|s| s.to_string()).collect()
    }

    pub fn stats(&self) -> JsValue {
        to_js(&self.last)
    }

    /// The shown view's option schema with the current values (views::options: `{view, options, pairs}`), from
    /// which the page renders its controls and writes permalinks; null when the view has no options.
    pub fn option_schema(&self) -> JsValue {
        self.views.active().map_or(JsValue::NULL, |p| to_js(&p.options()))
    }

    /// Set the shown view's options from permalink pairs (`[[hash key, value], ...]` as JSON): keys that are
    /// not its options are skipped; options are applied in schema order; Err names those refused.
    pub fn set_link_options(&mut self, pairs: &str) -> Result<(), JsValue> {
        // Read as a JSON value (no typed deserializer: the download stays small).
        let pairs: serde_json::Value =
            serde_json::from_str(pairs).map_err(|e| JsValue::from_str(&format!("link options: {e}")))?;
        let pairs: Vec<(&str, &str)> = pairs
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|p| Some((p.get(0)?.as_str()?, p.get(1)?.as_str()?)))
            .collect();
        let schema = self.views.active().ok_or("nothing is shown")?.options();
        let mut refused = Vec::new();
        for o in schema["options"].as_array().into_iter().flatten().filter(|o| o["role"] == "option") {
            let (Some(key), Some(link)) = (o["key"].as_str(), o["link"].as_str()) else { continue };
            if let Some(&(_, v)) = pairs.iter().rev().find(|(k, _)| *k == link) {
                if o["value"].as_str() != Some(v) {
                    if let Err(e) = self.configure(key, v) {
                        refused.push(e.as_string().unwrap_or_default());
                    }
                }
            }
        }
        self.dirty = true;
        if refused.is_empty() {
            Ok(())
        } else {
            Err(JsValue::from_str(&refused.join("; ")))
        }
    }

    /// The shown view's geometry and contents (for tests).
    pub fn view_state(&self) -> JsValue {
        self.views.active().map_or(JsValue::NULL, |p| to_js(&p.state()))
    }

    /// `view_state` without the view's contents (rows, particles, nodes, labels: `Pane::brief`), what the
    /// page reads on every interaction (permalinks, panels, the particle readout): its cost does not grow
    /// with the trace's locations or grains.
    pub fn view_brief(&self) -> JsValue {
        self.views.active().map_or(JsValue::NULL, |p| to_js(&p.brief()))
    }

    /// The shown view as an SVG document.
    pub fn export_svg(&self) -> String {
        to_svg(&self.scene())
    }

    /// What the shown view's colours, shapes and lines mean (`Pane::legend`, scene::legend):
    /// `{sections: [{title, entries: [{label, color, mark: shape|line|mixed, shape, border, dashed}]}]}`, colours
    /// `#rrggbbaa` in the theme's colours; null for a view without a legend.
    pub fn legend(&self) -> JsValue {
        let legend = self.views.active().and_then(|p| p.legend());
        legend.map_or(JsValue::NULL, |l| to_js(&if self.dark { l.dark() } else { l }))
    }

    /// The shown view's keys then those every view shares, `[{keys, action}]` (`Pane::keys`,
    /// views::keys), for the page's `?` overlay.
    pub fn keys(&self) -> JsValue {
        let own: weft_view::views::keys::Keys = self.views.active().map(|p| p.keys()).unwrap_or(&[]);
        let rows: Vec<_> = own
            .iter()
            .chain(weft_view::views::keys::COMMON.iter())
            .map(|(k, a)| serde_json::json!({"keys": k, "action": a}))
            .collect();
        to_js(&rows)
    }

    /// `value` for reading in `unit` ("" for a count, "cycles", "ns", "bytes"): scene::number, the rules the
    /// views' tooltips follow, for the page's panels.
    pub fn format_number(&self, value: f64, unit: &str) -> Result<String, JsValue> {
        let unit = weft_view::scene::number::Unit::parse(unit).ok_or_else(|| format!("no unit '{unit}'"))?;
        Ok(weft_view::scene::number::format(value, unit))
    }

    /// A duration of `ns` nanoseconds as the timeline's hovers write it (scene::timeline::format_duration: three
    /// decimals in the largest unit), for the timeline's panels (profile, messages); a negative one (a message
    /// received before it was sent, on skewed clocks) with its sign. NaN is "NA", as format_number writes it.
    pub fn format_duration(&self, ns: f64) -> String {
        if ns.is_nan() {
            return "NA".into();
        }
        let text = weft_view::scene::timeline::format_duration(ns.abs().round().min(u64::MAX as f64) as u64);
        if ns < 0.0 && text != "0 ns" {
            format!("-{text}")
        } else {
            text
        }
    }
}

impl Viewer {
    pub(super) fn take_graphml(&mut self) -> Option<super::graph_export::GraphmlExport> {
        self.graphml.take()
    }

    pub(super) fn set_graphml(&mut self, export: Option<super::graph_export::GraphmlExport>) {
        self.graphml = export;
    }

    /// The views, for the store's methods (crates/worker/src/store.rs); marks the view for redrawing.
    pub(super) fn view_set(&mut self) -> &mut ViewSet {
        self.dirty = true;
        &mut self.views
    }

    /// The views without marking the view for redrawing (a step that changes nothing drawn yet).
    pub(super) fn view_set_unchanged(&mut self) -> &mut ViewSet {
        &mut self.views
    }

    /// The grain-graph pane shown, for the grain panel's methods (crates/page/src/grain_panel.rs); marks the view for
    /// redrawing.
    pub(super) fn grains_pane(&mut self) -> Result<&mut GrainsPane, JsValue> {
        self.dirty = true;
        self.views.grains_pane().ok_or_else(|| "no grain graph is shown".into())
    }

    /// The timeline pane shown, for the profile panel's methods (crates/page/src/profile_panel.rs); marks the view
    /// for redrawing.
    pub(super) fn timeline_pane(&mut self) -> Option<&mut weft_view::views::timeline::TimelinePane> {
        self.dirty = true;
        self.views.timeline_pane()
    }

    /// The timeline whose intervals and messages are shown: a trace's, or a store's exact slice (zoomed in
    /// past its summary rows). Err saying what to do otherwise.
    pub(super) fn exact_timeline(&mut self) -> Result<&mut weft_view::views::timeline::TimelinePane, JsValue> {
        self.dirty = true;
        if self.views.timeline_pane().is_some() {
            return Ok(self.views.timeline_pane().expect("just seen"));
        }
        let timeline = self.views.view() == "timeline";
        match self.views.store_pane() {
            Some(p) if timeline => p.exact_pane_mut().ok_or_else(|| {
                "zoomed out, a store's timeline shows summary rows: zoom in until the exact intervals show".into()
            }),
            _ => Err("no timeline is shown".into()),
        }
    }
}
