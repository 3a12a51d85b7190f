//! The page's handle: owns the renderer, what is loaded, its panes (views) and which one is shown; turns input
//! into view changes and view changes into frames. One frame = the active pane's scene, uploaded and drawn,
//! then its labels on the overlay canvas.

use super::overlay::draw_labels;
use super::panes::aggregate::AggregatePane;
use super::panes::grains::GrainsPane;
use super::panes::particles::ParticlesPane;
use super::panes::{execgraph::ExecgraphPane, moments::MomentsPane, timeline::TimelinePane, Pane};
use crate::analyses::aggregate::{bundle as aggregate_bundle, Aggregation};
use crate::analyses::grains::{GrainAnalysis, Thresholds};
use crate::analyses::moments_bundle::MomentsBundle;
use crate::layouts::execgraph::bundle::ExecBundle;
use crate::layouts::grain_bundle::GrainBundle;
use crate::model::{codec, Trace};
use crate::renderer::Renderer;
use crate::scene::grains::{aggregated_first_text, unreadable_when_fitted};
use crate::scene::palette;
use crate::scene::svg::to_svg;
use crate::scene::Scene;
use serde::Serialize;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

/// The views a trace offers, in the switcher's order.
const TRACE_VIEWS: [&str; 3] = ["timeline", "moments", "particles"];

#[wasm_bindgen]
pub struct Viewer {
    renderer: Renderer,
    canvas: HtmlCanvasElement,
    overlay_canvas: HtmlCanvasElement,
    overlay: CanvasRenderingContext2d,
    dpr: f64,
    width: f32,
    height: f32,
    trace: Option<Rc<Trace>>,
    /// The worker's aggregation of the loaded grain graph, for the Aggregated view (None: built on the page).
    aggregation: Option<Aggregation>,
    /// The worker's moments bundle of the loaded trace, for the moments view (None: computed on the page).
    moments: Option<Vec<u8>>,
    /// Analyses of what is loaded that the page had to compute itself, on its main thread, because the
    /// worker sent none ("aggregation", "moments"): tests read it, and it stays empty for every input the
    /// worker reads.
    built_on_page: Vec<&'static str>,
    panes: Vec<Box<dyn Pane>>,
    active: usize,
    dirty: bool,
    last: FrameStats,
    dark: bool,
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
        Ok(Viewer {
            renderer,
            width: canvas.client_width().max(1) as f32,
            height: canvas.client_height().max(1) as f32,
            canvas,
            overlay_canvas: overlay,
            overlay: ctx,
            dpr: 1.0,
            trace: None,
            aggregation: None,
            moments: None,
            built_on_page: Vec::new(),
            panes: Vec::new(),
            active: 0,
            dirty: true,
            last: FrameStats::default(),
            dark: false,
        })
    }

    pub fn backend(&self) -> String {
        self.renderer.tier().name().to_string()
    }

    /// Show a trace encoded by the worker, in the timeline view. Replaces what was shown.
    /// `moments`: the worker's moments of it for the default busy definition (analyses::moments_bundle),
    /// decoded when the moments view is first shown.
    pub fn load(&mut self, model: &[u8], moments: Option<Vec<u8>>) -> Result<(), JsValue> {
        let trace = Rc::new(codec::decode(model).map_err(|e| JsValue::from_str(&e.to_string()))?);
        self.panes = vec![Box::new(TimelinePane::new(trace.clone(), self.width, self.height))];
        self.aggregation = None;
        self.moments = moments;
        self.built_on_page.clear();
        self.trace = Some(trace);
        self.active = 0;
        self.dirty = true;
        Ok(())
    }

    /// Show an execution graph laid out by the worker. Replaces what was shown.
    pub fn load_execgraph(&mut self, bundle: &[u8]) -> Result<(), JsValue> {
        let bundle = ExecBundle::decode(bundle).map_err(|e| JsValue::from_str(&e))?;
        self.trace = None;
        self.aggregation = None;
        self.moments = None;
        self.built_on_page.clear();
        self.panes = vec![Box::new(ExecgraphPane::new(bundle, self.width, self.height))];
        self.active = 0;
        self.dirty = true;
        Ok(())
    }

    /// Show a grain graph analysed and laid out by the worker, in the grain-graph view, or in the Aggregated
    /// view when its grains would be narrower than a pixel fitted. Replaces what was shown.
    /// `aggregation`: the worker's aggregation of it (analyses::aggregate::bundle), used by the Aggregated view.
    pub fn load_grains(&mut self, bundle: &[u8], aggregation: Option<Vec<u8>>) -> Result<(), JsValue> {
        let (analysis, layout) =
            GrainBundle::decode(bundle).map_err(|e| JsValue::from_str(&e))?.analysis(Thresholds::paper());
        let mut agg = match aggregation {
            Some(bytes) => Some(aggregate_bundle::decode(&bytes, &analysis.graph).map_err(|e| e.to_string())?),
            None => None,
        };
        self.trace = None;
        self.moments = None;
        self.built_on_page.clear();
        // A graph whose grains fit narrower than a pixel opens aggregated first, and says so (issue 14).
        let aggregated = unreadable_when_fitted(&analysis, &layout, self.width, self.height);
        let grains = GrainsPane::new(analysis, layout, self.width, self.height);
        let first = aggregated.then(|| {
            let text = aggregated_first_text(grains.analysis().graph.grains());
            let built = &mut self.built_on_page;
            aggregate_pane(grains.shared_analysis(), agg.take(), self.width, self.height, built).with_intro(text)
        });
        self.aggregation = agg;
        self.panes = vec![Box::new(grains)];
        self.active = 0;
        if let Some(pane) = first {
            self.panes.push(Box::new(pane));
            self.active = 1;
        }
        self.dirty = true;
        Ok(())
    }

    /// A new layout of the execution graph shown (another minimum edge length), keeping the view.
    pub fn relayout_execgraph(&mut self, bundle: &[u8]) -> Result<(), JsValue> {
        let bundle = ExecBundle::decode(bundle).map_err(|e| JsValue::from_str(&e))?;
        let pane = self.panes.get_mut(self.active).ok_or("nothing is shown")?;
        if pane.kind() != "execgraph" {
            return Err("the execution graph is not shown".into());
        }
        self.panes[self.active] = Box::new(ExecgraphPane::new(bundle, self.width, self.height));
        self.dirty = true;
        Ok(())
    }

    /// The views the loaded input offers.
    pub fn views(&self) -> Vec<String> {
        if self.trace.is_some() {
            TRACE_VIEWS.iter().map(|s| s.to_string()).collect()
        } else {
            let mut views: Vec<String> = self.panes.iter().map(|p| p.kind().to_string()).collect();
            // A grain graph also offers its aggregated view, built when first shown.
            if views.iter().any(|v| v == "grains") && !views.iter().any(|v| v == "aggregate") {
                views.push("aggregate".to_string());
            }
            views
        }
    }

    /// The view shown now.
    pub fn view(&self) -> String {
        self.panes.get(self.active).map_or(String::new(), |p| p.kind().to_string())
    }

    /// Show a second grain profile (MIR CSV or GraphML, `name` picks the reader) beside the aggregated view:
    /// two runs of the same program side by side, analysed under the shown run's thresholds.
    pub fn compare_with(&mut self, name: &str, bytes: &[u8]) -> Result<(), JsValue> {
        let pane =
            self.panes.get_mut(self.active).and_then(|p| p.as_aggregate()).ok_or("the aggregated view is not shown")?;
        let input = crate::readers::read_grains(name, bytes).map_err(|e| JsValue::from_str(&e.to_string()))?;
        let analysis = crate::analyses::grains::GrainAnalysis::new(&input, pane.thresholds())
            .map_err(|e| JsValue::from_str(&format!("{name}: {e}")))?;
        pane.compare_with(name, analysis);
        self.dirty = true;
        Ok(())
    }

    /// Switch views, keeping the time range where both views have one.
    pub fn set_view(&mut self, kind: &str) -> Result<(), JsValue> {
        let range = self.panes.get(self.active).and_then(|p| p.time_range());
        let index = match self.panes.iter().position(|p| p.kind() == kind) {
            Some(i) => i,
            None if kind == "aggregate" => {
                let grains = self.panes.iter_mut().find_map(|p| p.as_grains()).ok_or("no grain graph is loaded")?;
                let analysis = grains.shared_analysis();
                let agg = self.aggregation.take();
                let pane = aggregate_pane(analysis, agg, self.width, self.height, &mut self.built_on_page);
                self.panes.push(Box::new(pane));
                self.panes.len() - 1
            }
            None => {
                let trace = self.trace.clone().ok_or_else(|| format!("no '{kind}' view for this input"))?;
                let pane: Box<dyn Pane> = match kind {
                    "timeline" => Box::new(TimelinePane::new(trace, self.width, self.height)),
                    "moments" => match self.moments.take() {
                        Some(bytes) => {
                            let first = MomentsBundle::decode(&bytes, &trace).map_err(|e| e.to_string())?;
                            Box::new(MomentsPane::with_moments(trace, first, self.width, self.height))
                        }
                        None => {
                            self.built_on_page.push("moments");
                            Box::new(MomentsPane::new(trace, self.width, self.height))
                        }
                    },
                    "particles" => Box::new(ParticlesPane::new(trace, self.width, self.height)),
                    _ => return Err(JsValue::from_str(&format!("unknown view '{kind}'"))),
                };
                self.panes.push(pane);
                self.panes.len() - 1
            }
        };
        self.active = index;
        let pane = &mut self.panes[index];
        pane.resize(self.width, self.height);
        if let Some((t0, t1)) = range {
            pane.set_time_range(t0, t1);
        }
        self.dirty = true;
        Ok(())
    }

    /// Change an option of the shown view (e.g. `busy` = `any` in the moments view).
    pub fn configure(&mut self, key: &str, value: &str) -> Result<(), JsValue> {
        let pane = self.panes.get_mut(self.active).ok_or("nothing is shown")?;
        pane.configure(key, value).map_err(|e| JsValue::from_str(&e))?;
        if key == "thresholds" && pane.kind() == "grains" {
            // The aggregated view was built under the old thresholds: build it again when next shown.
            self.panes.retain(|p| p.kind() != "aggregate");
            self.aggregation = None;
            self.active = self.panes.iter().position(|p| p.kind() == "grains").unwrap_or(0);
        }
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
        self.width = w as f32;
        self.height = h as f32;
        if let Some(p) = self.panes.get_mut(self.active) {
            p.resize(self.width, self.height);
        }
        self.dirty = true;
    }

    fn with_pane(&mut self, f: impl FnOnce(&mut dyn Pane)) {
        if let Some(p) = self.panes.get_mut(self.active) {
            f(p.as_mut());
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

    /// What is under (x, y) as `{title, lines, detail}`, highlighted; null when nothing.
    pub fn hover(&mut self, x: f32, y: f32) -> JsValue {
        let Some(p) = self.panes.get_mut(self.active) else { return JsValue::NULL };
        let hit = p.hover(x, y);
        self.dirty = true;
        hit.map_or(JsValue::NULL, |h| to_js(&h))
    }

    /// A click at (x, y) in the shown view (opening or closing a group); returns whether it acted.
    pub fn click(&mut self, x: f32, y: f32) -> bool {
        let Some(p) = self.panes.get_mut(self.active) else { return false };
        let acted = p.click(x, y);
        self.dirty |= acted;
        acted
    }

    pub fn clear_hover(&mut self) {
        self.with_pane(|p| p.clear_hover());
    }

    fn scene(&self) -> Scene {
        let mut scene = match self.panes.get(self.active) {
            Some(p) => p.scene(),
            None => Scene::new(self.width, self.height, palette::BACKGROUND),
        };
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
        let layer = self.panes.get_mut(self.active).and_then(|p| p.particle_layer());
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
        self.dirty = self.panes.get(self.active).is_some_and(|p| p.animating());
        Ok(true)
    }

    /// Force the next `frame` to draw.
    pub fn invalidate(&mut self) {
        self.dirty = true;
    }

    /// What the page computed itself for what is loaded (see `built_on_page`): empty when the worker sent it.
    pub fn built_on_page(&self) -> Vec<String> {
        self.built_on_page.iter().map(|s| s.to_string()).collect()
    }

    pub fn stats(&self) -> JsValue {
        to_js(&self.last)
    }

    /// The shown view's geometry and contents (for tests and permalinks).
    pub fn view_state(&self) -> JsValue {
        self.panes.get(self.active).map_or(JsValue::NULL, |p| to_js(&p.state()))
    }

    /// The shown view as an SVG document.
    pub fn export_svg(&self) -> String {
        to_svg(&self.scene())
    }
}

impl Viewer {
    /// The grain-graph pane shown, for the grain panel's methods (src/web/grain_panel.rs); marks the view for
    /// redrawing.
    pub(super) fn grains_pane(&mut self) -> Result<&mut GrainsPane, JsValue> {
        self.dirty = true;
        self.panes.get_mut(self.active).and_then(|p| p.as_grains()).ok_or_else(|| "no grain graph is shown".into())
    }
}

/// The Aggregated view of `analysis`, over the worker's aggregation when there is one.
/// `built_on_page` gets "aggregation" when there is none.
fn aggregate_pane(
    analysis: Rc<GrainAnalysis>,
    agg: Option<Aggregation>,
    width: f32,
    height: f32,
    built_on_page: &mut Vec<&'static str>,
) -> AggregatePane {
    match agg {
        Some(agg) => AggregatePane::with_aggregation(analysis, agg, width, height),
        None => {
            built_on_page.push("aggregation");
            AggregatePane::new(analysis, width, height)
        }
    }
}
