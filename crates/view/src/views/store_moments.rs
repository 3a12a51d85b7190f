//! Utilization & moments of a store (issue #17): the ordinary [`MomentsPane`] over the store's definitions,
//! fed by the store worker instead of a trace. Each answer is a `MomentsBundle` for every location: the
//! whole run's moments as stored (exact, `weft moments STORE/`), and busy intervals covering the viewport
//! asked, from which the pane computes the visible window's moments as it does for a trace. Zoomed out the
//! busy intervals come from the pyramid (`store::query::grid_busy`: per bin its exact busy time, placed at
//! the bin's centre): the window's busy time m0 is exact where the window's ends fall on bin edges, and the
//! mean and spread within a bin's width; zoomed in past level 1 they are the exact busy intervals of the
//! level-0 records reaching into the window, so the moments equal `weft moments STORE/ --window T0:T1`.
//! [`StoreMomentsPane::request`] says which viewport (and busy definition) to ask for next; what is shown
//! stays while tiles are in flight, and `state().store` says how exact the rows are.
//!
//! Must not fetch or decode tiles (the worker does, `crates/worker/src/store.rs`) or read a clock.

use super::moments::MomentsPane;
use super::{Hover, Pane};
use crate::scene::{rgba, Scene};
use serde_json::json;
use std::rc::Rc;
use weft_analyses::busy::BusyDefinition;
use weft_analyses::moments_bundle::MomentsBundle;
use weft_model::Trace;
use weft_store::read::query::Viewport;

/// What the last answer covered.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Covered {
    t0: u64,
    t1: u64,
    /// Level 0 (exact busy intervals) or the pyramid level of the bins.
    level: u32,
}

pub struct StoreMomentsPane {
    skeleton: Rc<Trace>,
    width: f32,
    height: f32,
    /// None until the first answer.
    inner: Option<MomentsPane>,
    /// The time range to show once the first answer is in (kept from a switch before it).
    range: Option<(f64, f64)>,
    covered: Option<Covered>,
    /// The viewport and definition asked last, so an unchanged view is not asked again.
    asked: Option<(Viewport, BusyDefinition)>,
    /// Tiles the worker is fetching for the viewport asked last (the page sets it).
    pub in_flight: usize,
    errors: Vec<String>,
}

/// Most busy cells (locations x the Gantt chart's pixel columns) a viewport asks the worker for: past it,
/// fewer columns, at least [`MIN_BUSY_COLUMNS`]. Every location's busy time comes per column, and the page
/// decodes them and computes the window's moments from them in one task: 20,000 ranks at 640 columns were a
/// 25 MB answer, 52-78 ms on the page (BENCHMARKS.md "Session 34").
pub const BUSY_CELLS: f32 = 4_000_000.0;
/// Fewest columns a viewport asks for, however many locations.
pub const MIN_BUSY_COLUMNS: f32 = 64.0;

/// The width (pixel columns) of the busy intervals asked for `locations` in a pane `width` wide: the Gantt
/// chart's half, fewer where that passes [`BUSY_CELLS`].
pub fn busy_width_px(width: f32, locations: usize) -> f32 {
    let cap = (BUSY_CELLS / locations.max(1) as f32).max(MIN_BUSY_COLUMNS);
    (width / 2.0).max(1.0).min(cap)
}

impl StoreMomentsPane {
    /// `skeleton`: the store's definitions without events (`Store::skeleton`).
    pub fn new(skeleton: Rc<Trace>, width: f32, height: f32) -> Self {
        StoreMomentsPane {
            skeleton,
            width,
            height,
            inner: None,
            range: None,
            covered: None,
            asked: None,
            in_flight: 0,
            errors: Vec::new(),
        }
    }

    fn view_range(&self) -> (f64, f64) {
        match (&self.inner, self.range) {
            (Some(p), _) => p.time_range().unwrap_or((0.0, self.skeleton.span_ns as f64)),
            (None, Some(r)) => r,
            (None, None) => (0.0, self.skeleton.span_ns.max(1) as f64),
        }
    }

    fn definition(&self) -> BusyDefinition {
        match &self.inner {
            Some(p) => p.asked().cloned().unwrap_or_else(|| p.definition().clone()),
            None => BusyDefinition::Compute,
        }
    }

    /// The viewport (every location, the Gantt chart's width or fewer columns for many ([`busy_width_px`]), a
    /// nanosecond more on each side so the window's
    /// rounded ends are inside) and the busy definition (`compute` or `any`) to ask the worker for; None
    /// when unchanged since asked.
    pub fn request(&mut self) -> Option<(Viewport, BusyDefinition)> {
        let (t0, t1) = self.view_range();
        let vp = Viewport {
            t0_ns: t0.floor() - 1.0,
            t1_ns: t1.ceil() + 1.0,
            locations: 0..self.skeleton.locations.len() as u32,
            width_px: busy_width_px(self.width, self.skeleton.locations.len()),
            series: 0..0,
        };
        let ask = (vp, self.definition());
        if self.asked.as_ref() == Some(&ask) {
            return None;
        }
        self.asked = Some(ask.clone());
        Some(ask)
    }

    /// The worker's answer: `bundle` (checked against the store's definitions), covering [t0, t1] with
    /// exact busy intervals (`level` 0) or a pyramid level's bins.
    pub fn receive(&mut self, bytes: &[u8], t0: u64, t1: u64, level: u32, errors: Vec<String>) -> Result<(), String> {
        let bundle = MomentsBundle::decode(bytes, &self.skeleton).map_err(|e| e.to_string())?;
        match &mut self.inner {
            Some(p) => p.receive(bundle)?,
            None => {
                let mut p = MomentsPane::with_moments(self.skeleton.clone(), bundle, self.width, self.height);
                if let Some((a, b)) = self.range.take() {
                    p.set_time_range(a, b);
                }
                self.inner = Some(p);
            }
        }
        self.covered = Some(Covered { t0, t1, level });
        self.errors = errors;
        Ok(())
    }

    /// Whether the rows shown are exact: the whole run (stored moments), or a window inside what level-0
    /// records covered.
    pub fn exact(&self) -> bool {
        let Some(p) = &self.inner else { return false };
        let w = p.window();
        if w.start_ns == 0 && w.end_ns >= self.skeleton.span_ns {
            return true;
        }
        self.covered.is_some_and(|c| c.level == 0 && c.t0 <= w.start_ns && w.end_ns <= c.t1)
    }

    fn shown(&self) -> String {
        match self.covered {
            None => "none".into(),
            Some(c) if c.level == 0 => "exact".into(),
            Some(c) => format!("level {}", c.level),
        }
    }
}

impl Pane for StoreMomentsPane {
    fn kind(&self) -> &'static str {
        "moments"
    }
    fn resize(&mut self, width: f32, height: f32) {
        self.width = width;
        self.height = height;
        if let Some(p) = &mut self.inner {
            p.resize(width, height);
        }
    }
    fn zoom(&mut self, x: f32, factor: f64) {
        if let Some(p) = &mut self.inner {
            p.zoom(x, factor);
        }
    }
    fn zoom_rows(&mut self, y: f32, factor: f64) {
        if let Some(p) = &mut self.inner {
            p.zoom_rows(y, factor);
        }
    }
    fn pan(&mut self, dx: f32) {
        if let Some(p) = &mut self.inner {
            p.pan(dx);
        }
    }
    fn scroll(&mut self, dy: f32) {
        if let Some(p) = &mut self.inner {
            p.scroll(dy);
        }
    }
    fn fit(&mut self) {
        match &mut self.inner {
            Some(p) => p.fit(),
            None => self.range = None,
        }
    }
    fn hover(&mut self, x: f32, y: f32) -> Option<Hover> {
        let exact = self.exact();
        let mut h = self.inner.as_mut()?.hover(x, y)?;
        if !exact {
            h.lines.push("from the store's bins: busy time exact per bin, its place within a bin not".into());
        }
        if let Some(o) = h.detail.as_object_mut() {
            o.insert("exact".into(), exact.into());
        }
        Some(h)
    }
    fn clear_hover(&mut self) {
        if let Some(p) = &mut self.inner {
            p.clear_hover();
        }
    }
    fn scene(&self) -> Scene {
        let mut sc = match &self.inner {
            Some(p) => p.scene(),
            None => {
                let mut sc = Scene::new(self.width, self.height, crate::scene::palette::BACKGROUND);
                let why = if self.in_flight > 0 { "Tiles are on their way." } else { "Asking the store..." };
                sc.add_notice(0.0, 0.0, self.width.max(1.0), self.height.max(1.0), &[why]);
                sc
            }
        };
        if !self.errors.is_empty() {
            let text = format!("Some tiles could not be read (the rest is used): {}", self.errors.join("; "));
            sc.add_banner(false, &text, rgba(0xfd, 0xec, 0xc8, 0xf0));
        }
        sc
    }
    fn brief(&self) -> serde_json::Value {
        let mut s = match &self.inner {
            Some(p) => p.brief(),
            None => json!({ "view": "moments" }),
        };
        let covered = self.covered.map(|c| json!({ "t0_ns": c.t0, "t1_ns": c.t1, "level": c.level }));
        if let Some(o) = s.as_object_mut() {
            o.insert(
                "store".into(),
                json!({
                    "shown": self.shown(), "in_flight": self.in_flight, "errors": self.errors,
                    "covered": covered, "exact": self.exact(),
                }),
            );
        }
        s
    }
    fn state(&self) -> serde_json::Value {
        let contents = match &self.inner {
            Some(p) => p.state(),
            None => json!({ "rows": [] }),
        };
        super::with_contents(self.brief(), contents)
    }
    fn time_range(&self) -> Option<(f64, f64)> {
        Some(self.view_range())
    }
    fn set_time_range(&mut self, t0_ns: f64, t1_ns: f64) {
        if !(t0_ns.is_finite() && t1_ns.is_finite() && t1_ns > t0_ns) {
            return;
        }
        match &mut self.inner {
            Some(p) => p.set_time_range(t0_ns, t1_ns),
            None => self.range = Some((t0_ns, t1_ns)),
        }
    }
    fn restore(&mut self, s: &serde_json::Value) {
        if let Some(p) = &mut self.inner {
            p.restore(s);
        }
    }
    fn options(&self) -> serde_json::Value {
        self.inner.as_ref().map_or(serde_json::Value::Null, |p| p.options())
    }
    fn configure(&mut self, key: &str, value: &str) -> Result<(), String> {
        let p = self.inner.as_mut().ok_or("the store's moments are on their way")?;
        if key == "busy" && value.starts_with("pattern:") {
            return Err("a store holds busy time for 'compute' and 'any' only (a pattern needs every event): run \
                        `weft moments STORE/ --pattern GLOB` (or `weft render moments`), which reads the store a \
                        block of locations at a time"
                .into());
        }
        p.configure(key, value)
    }
    fn as_store_moments(&mut self) -> Option<&mut StoreMomentsPane> {
        Some(self)
    }
}
