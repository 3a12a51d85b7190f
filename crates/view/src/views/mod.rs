//! Views: the panes the page switches between, as plain Rust (no web, wasm or GPU types: this layer sits
//! after `scene` and before the renderer, and is built and tested natively; `tests/views/`). Each pane owns
//! its analysis results, layout and viewport, and answers the same input (zoom, pan, scroll, hover, click)
//! with a new [`Scene`]; a view's state serializes for tests and permalinks and restores from that. Time is
//! injected: the aggregated view's animation reads a [`Clock`], the particle view advances by `tick` with the
//! page's frame time. The web shell (`crates/page/src/viewer.rs`) holds the panes of what is loaded, forwards input
//! to the active one and draws its scene; the time range carries over between panes that have a time axis.
//! `keys`: each view's keys for the `?` overlay; `options`: one typed option schema per view (the CLI's flags, the page's controls and permalinks).
//! Must not read a clock, the DOM or the GPU.

pub mod aggregate;
pub mod calltree_list;
pub mod counters;
pub mod execgraph;
pub mod flame;
pub mod grains;
pub mod keys;
pub mod message_select;
pub mod moments;
pub mod notes;
pub mod options;
pub mod particles;
pub mod set;
pub mod store;
pub mod store_moments;
pub mod timeline;
pub mod timeline_diagnosis;

use crate::scene::Scene;
use serde::Serialize;
use std::cell::Cell;

/// Where animated views read the time. The page passes the browser's clock (`performance.now`); tests pass
/// a [`ManualClock`] and advance it, so an animation moves by injected time only. Views never read a clock
/// of their own.
pub trait Clock {
    /// Milliseconds from an arbitrary origin, never decreasing.
    fn now_ms(&self) -> f64;
}

/// A clock that moves only when told to.
#[derive(Debug, Default)]
pub struct ManualClock(Cell<f64>);

impl ManualClock {
    pub fn new(now_ms: f64) -> Self {
        ManualClock(Cell::new(now_ms))
    }
    pub fn advance(&self, ms: f64) {
        self.0.set(self.0.get() + ms);
    }
}

impl Clock for ManualClock {
    fn now_ms(&self) -> f64 {
        self.0.get()
    }
}

/// What a tooltip shows: a title and lines of text, plus structured detail for tests and panels.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct Hover {
    pub title: String,
    pub lines: Vec<String>,
    pub detail: serde_json::Value,
}

pub trait Pane {
    /// The name the page's view switcher uses ("timeline", "moments", "execgraph").
    fn kind(&self) -> &'static str;
    fn resize(&mut self, width: f32, height: f32);
    /// Zoom about screen x; factor > 1 zooms in.
    fn zoom(&mut self, x: f32, factor: f64);
    /// Zoom about a screen point: in time about x, and (in views laid out in two dimensions) about y too.
    fn zoom_xy(&mut self, x: f32, _y: Option<f32>, factor: f64) {
        self.zoom(x, factor);
    }
    /// Zoom rows (where rows can be zoomed) about screen y.
    fn zoom_rows(&mut self, _y: f32, _factor: f64) {}
    /// Pan by screen pixels (positive: later in time, or rightwards).
    fn pan(&mut self, dx: f32);
    /// Scroll by screen pixels (positive: down).
    fn scroll(&mut self, dy: f32);
    fn fit(&mut self);
    /// What is under (x, y), highlighted from now on; None clears the highlight.
    fn hover(&mut self, x: f32, y: f32) -> Option<Hover>;
    fn clear_hover(&mut self);
    fn scene(&self) -> Scene;
    /// Geometry and contents of the view, for tests and permalinks.
    fn state(&self) -> serde_json::Value;
    /// `state()` without the view's contents (rows, particles, nodes, labels): its geometry, options and
    /// flags, what the page reads on every interaction (the permalink written after each wheel or click, the
    /// particle readout while playing, the moments view's offer), so its cost does not grow with the trace's
    /// locations or grains. Every key is `state()`'s, with the same value.
    fn brief(&self) -> serde_json::Value {
        self.state()
    }
    fn time_range(&self) -> Option<(f64, f64)> {
        None
    }
    /// Label the time axis from `origin_ns` (trace ns; None: the trace's own time), where the view has one
    /// that can: two runs compared aligned at a region's instance.
    fn set_time_origin(&mut self, _origin_ns: Option<f64>) {}
    fn set_time_range(&mut self, _t0_ns: f64, _t1_ns: f64) {}
    /// Change a view option (e.g. `busy` = `any`) or act (`open` = `3`), parsed by the view's schema in
    /// `views::options`; Err says why not.
    fn configure(&mut self, key: &str, _value: &str) -> Result<(), String> {
        Err(format!("the {} view has no option '{key}'", self.kind()))
    }
    /// The view's option schema with the current values (`ViewOptions::describe`), for the page's controls
    /// and permalinks; Null for a view without options.
    fn options(&self) -> serde_json::Value {
        serde_json::Value::Null
    }
    /// A click at (x, y) that the view acts on (opening a group); false when it does nothing.
    fn click(&mut self, _x: f32, _y: f32) -> bool {
        false
    }
    /// What the view's colours, shapes and lines mean (`scene::legend`); None for a view without one.
    fn legend(&self) -> Option<crate::scene::legend::Legend> {
        None
    }
    /// The keys and pointer actions the view answers, for the page's `?` overlay (`views::keys`).
    fn keys(&self) -> keys::Keys {
        keys::for_kind(self.kind())
    }
    /// The view is animating: draw again next frame.
    fn animating(&self) -> bool {
        false
    }
    /// The grain-graph pane, for the page's grain panel; None for every other view.
    fn as_grains(&mut self) -> Option<&mut grains::GrainsPane> {
        None
    }
    /// The timeline pane, for the page's profile panel (selection, profile, search); None for every other view.
    fn as_timeline(&mut self) -> Option<&mut timeline::TimelinePane> {
        None
    }
    /// The aggregated pane, for a second run to compare with; None for every other view.
    fn as_aggregate(&mut self) -> Option<&mut aggregate::AggregatePane> {
        None
    }
    /// The moments pane, for the worker's answer to another busy definition; None for every other view.
    fn as_moments(&mut self) -> Option<&mut moments::MomentsPane> {
        None
    }
    /// The timeline of a store, for the page's tile requests and answers; None for every other view.
    fn as_store(&mut self) -> Option<&mut store::StorePane> {
        None
    }
    /// Utilization & moments of a store, for the page's requests and answers; None for every other view.
    fn as_store_moments(&mut self) -> Option<&mut store_moments::StoreMomentsPane> {
        None
    }
    /// The particle pane, for a store's playback ranges and answers; None for every other view.
    fn as_particles(&mut self) -> Option<&mut particles::ParticlesPane> {
        None
    }
    /// Particles and history splats to draw over this frame's scene (the particle view only).
    fn particle_layer(&mut self) -> Option<crate::scene::particles::ParticleLayer<'_>> {
        None
    }
    /// Put back the geometry saved from [`Pane::state`] (a permalink); keys the view lacks or values that are
    /// not finite numbers are ignored, so a stale or hand-edited link never breaks the view.
    fn restore(&mut self, s: &serde_json::Value) {
        if let (Some(t0), Some(t1)) = (num(s, "t0_ns"), num(s, "t1_ns")) {
            self.set_time_range(t0, t1);
        }
    }
}

/// A finite number under `key`, if there is one.
pub fn num(s: &serde_json::Value, key: &str) -> Option<f64> {
    s.get(key)?.as_f64().filter(|v| v.is_finite())
}

/// `brief` with `more`'s keys added: a pane's `state()` made from its `brief()` (both JSON objects).
pub fn with_contents(mut brief: serde_json::Value, more: serde_json::Value) -> serde_json::Value {
    if let (Some(b), serde_json::Value::Object(more)) = (brief.as_object_mut(), more) {
        b.extend(more);
    }
    brief
}
