//! The page's handle: owns the renderer, the loaded trace, its layout and the view state; turns input into
//! view changes and view changes into frames. One frame = build the scene for the viewport, upload, draw,
//! then draw labels on the overlay canvas.

use super::overlay::draw_labels;
use crate::layouts::timeline::{TimelineLayout, TimelineMetrics};
use crate::model::{codec, Trace};
use crate::renderer::Renderer;
use crate::scene::svg::to_svg;
use crate::scene::timeline::{format_duration, region_colors, TimelineScene, TimelineView, AXIS_PX};
use crate::scene::{Rgba, Scene};
use serde::Serialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

struct Loaded {
    trace: Trace,
    layout: TimelineLayout,
    colors: Vec<Rgba>,
}

#[wasm_bindgen]
pub struct Viewer {
    renderer: Renderer,
    canvas: HtmlCanvasElement,
    overlay_canvas: HtmlCanvasElement,
    overlay: CanvasRenderingContext2d,
    dpr: f64,
    loaded: Option<Loaded>,
    view: TimelineView,
    highlight: Option<usize>,
    dirty: bool,
    last: FrameStats,
}

#[derive(Serialize, Clone, Copy, Default)]
struct FrameStats {
    rects: usize,
    lines: usize,
    labels: usize,
    draw_calls: u32,
    build_ms: f64,
    draw_ms: f64,
}

/// What the tooltip shows for an interval.
#[derive(Serialize)]
struct IntervalInfo {
    interval: usize,
    region: String,
    category: String,
    location: String,
    process: String,
    start_ns: u64,
    dur_ns: u64,
    start: String,
    duration: String,
    depth: u16,
}

#[derive(Serialize)]
struct RowInfo {
    location: u32,
    name: String,
    process: String,
    /// Screen y of the row's top, CSS pixels.
    y: f32,
    lanes: u16,
}

#[derive(Serialize)]
struct ViewState {
    t0_ns: f64,
    t1_ns: f64,
    scroll_y: f32,
    width: f32,
    height: f32,
    track_x0: f32,
    axis_px: f32,
    lane_px: f32,
    span_ns: u64,
    rows: Vec<RowInfo>,
}

fn now_ms() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
}

fn to_js<T: Serialize>(v: &T) -> JsValue {
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
        let w = canvas.client_width().max(1) as f32;
        let h = canvas.client_height().max(1) as f32;
        Ok(Viewer {
            renderer,
            canvas,
            overlay_canvas: overlay,
            overlay: ctx,
            dpr: 1.0,
            loaded: None,
            view: TimelineView { t0_ns: 0.0, t1_ns: 1.0, scroll_y: 0.0, width: w, height: h, label_gutter: 200.0 },
            highlight: None,
            dirty: true,
            last: FrameStats::default(),
        })
    }

    pub fn backend(&self) -> String {
        self.renderer.tier().name().to_string()
    }

    /// Show a model encoded by the worker. Replaces what was shown.
    pub fn load(&mut self, model: &[u8]) -> Result<(), JsValue> {
        let trace = codec::decode(model).map_err(|e| JsValue::from_str(&e.to_string()))?;
        let layout = TimelineLayout::new(&trace, TimelineMetrics::default());
        let colors = region_colors(&trace);
        self.view = TimelineView::fit(&trace, self.view.width, self.view.height);
        self.highlight = None;
        self.loaded = Some(Loaded { trace, layout, colors });
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
        self.view.width = w as f32;
        self.view.height = h as f32;
        if let Some(l) = &self.loaded {
            self.view.scroll_by(0.0, &l.layout);
        }
        self.dirty = true;
    }

    /// Zoom about screen x; factor > 1 zooms in.
    pub fn zoom(&mut self, x: f32, factor: f64) {
        if let Some(l) = &self.loaded {
            if factor.is_finite() && factor > 0.0 {
                self.view.zoom_at(x, factor, l.trace.span_ns);
                self.dirty = true;
            }
        }
    }

    /// Pan by screen pixels (positive: later in time).
    pub fn pan(&mut self, dx: f32) {
        if let Some(l) = &self.loaded {
            self.view.pan_px(dx, l.trace.span_ns);
            self.dirty = true;
        }
    }

    /// Scroll rows by screen pixels (positive: down).
    pub fn scroll(&mut self, dy: f32) {
        if let Some(l) = &self.loaded {
            self.view.scroll_by(dy, &l.layout);
            self.dirty = true;
        }
    }

    /// Show the whole trace.
    pub fn fit(&mut self) {
        if let Some(l) = &self.loaded {
            self.view = TimelineView { scroll_y: 0.0, ..TimelineView::fit(&l.trace, self.view.width, self.view.height) };
            self.dirty = true;
        }
    }

    /// Show [t0, t1] (ns from the trace's start).
    pub fn set_time_range(&mut self, t0_ns: f64, t1_ns: f64) {
        if t0_ns.is_finite() && t1_ns.is_finite() && t1_ns > t0_ns {
            self.view.t0_ns = t0_ns;
            self.view.t1_ns = t1_ns;
            self.dirty = true;
        }
    }

    /// The interval under (x, y), highlighted, as tooltip data; null when none.
    pub fn hover(&mut self, x: f32, y: f32) -> JsValue {
        let Some(l) = &self.loaded else { return JsValue::NULL };
        let ts = TimelineScene { trace: &l.trace, layout: &l.layout, colors: &l.colors };
        let hit = ts.hit(&self.view, x, y);
        if hit != self.highlight {
            self.highlight = hit;
            self.dirty = true;
        }
        let Some(i) = hit else { return JsValue::NULL };
        let t = &l.trace;
        let iv = &t.intervals;
        let loc = iv.location[i];
        let r = iv.region[i];
        to_js(&IntervalInfo {
            interval: i,
            region: t.region_name(r).to_string(),
            category: t.str(t.regions.category[r.index()]).to_string(),
            location: t.location_name(loc).to_string(),
            process: t.process_name(t.locations.process[loc.index()]).to_string(),
            start_ns: iv.start_ns[i],
            dur_ns: iv.dur_ns[i],
            start: format_duration(iv.start_ns[i]),
            duration: format_duration(iv.dur_ns[i]),
            depth: iv.depth[i],
        })
    }

    pub fn clear_hover(&mut self) {
        if self.highlight.take().is_some() {
            self.dirty = true;
        }
    }

    fn scene(&self) -> Scene {
        match &self.loaded {
            Some(l) => TimelineScene { trace: &l.trace, layout: &l.layout, colors: &l.colors }.build(&self.view, self.highlight),
            None => Scene::new(self.view.width, self.view.height, crate::scene::palette::BACKGROUND),
        }
    }

    /// Draw if anything changed since the last frame; returns whether it drew.
    pub fn frame(&mut self) -> Result<bool, JsValue> {
        if !self.dirty {
            return Ok(false);
        }
        let t0 = now_ms();
        let scene = self.scene();
        let t1 = now_ms();
        self.renderer.render(&scene).map_err(|e| JsValue::from_str(&e))?;
        draw_labels(&self.overlay, &scene, self.dpr);
        let t2 = now_ms();
        self.last = FrameStats {
            rects: scene.rects.len(),
            lines: scene.lines.len(),
            labels: scene.labels.len(),
            draw_calls: self.renderer.draw_calls,
            build_ms: t1 - t0,
            draw_ms: t2 - t1,
        };
        self.dirty = false;
        Ok(true)
    }

    /// Force the next `frame` to draw.
    pub fn invalidate(&mut self) {
        self.dirty = true;
    }

    pub fn stats(&self) -> JsValue {
        to_js(&self.last)
    }

    /// The view's geometry: time range, track origin, and each visible row's screen position.
    pub fn view_state(&self) -> JsValue {
        let mut rows = Vec::new();
        let mut span_ns = 0;
        if let Some(l) = &self.loaded {
            span_ns = l.trace.span_ns;
            for row in &l.layout.rows {
                rows.push(RowInfo {
                    location: row.location.0,
                    name: l.trace.location_name(row.location).to_string(),
                    process: l.trace.process_name(row.process).to_string(),
                    y: self.view.y_of(row.y),
                    lanes: row.lanes,
                });
            }
        }
        to_js(&ViewState {
            t0_ns: self.view.t0_ns,
            t1_ns: self.view.t1_ns,
            scroll_y: self.view.scroll_y,
            width: self.view.width,
            height: self.view.height,
            track_x0: self.view.track_x0(),
            axis_px: AXIS_PX,
            lane_px: TimelineMetrics::default().lane_px,
            span_ns,
            rows,
        })
    }

    /// The current view as an SVG document.
    pub fn export_svg(&self) -> String {
        to_svg(&self.scene())
    }
}
