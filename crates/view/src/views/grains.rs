//! The grain-graph pane: the structural view or one problem view of an OpenMP program's grain graph (the
//! worker built, measured and laid it out; scene::grains draws it). Zoom and pan in both directions; hover a
//! node for its grain's properties and metrics; one grain can be selected (outlined) and located (centred)
//! for the page's grain panel (table, properties, search). Below the graph, when the pane is tall enough,
//! the parallelism profile (scene::parallelism), linked both ways: hovering an instant there outlines the
//! grains running then, hovering a grain marks its span there.

use super::{num, Hover, Pane};
use crate::layouts::grains::{node_at, GrainLayout};
use crate::scene::grains::{build_with, narrowest_grain, sub_pixel_hint, ColorBy, EdgeReach, View, Viewport};
use crate::scene::number::{self, Unit};
use crate::scene::parallelism::{self as profile, Links, Strip};
use crate::scene::{rgba, RectInstance, Rgba, Scene, Shape};
use crate::views::options::{
    problem_choices, set_choices, GrainsOptions, ThresholdOverrides, ThresholdsPreset, ViewOptions,
};
use serde_json::json;
use std::rc::Rc;
use weft_analyses::grains::query::{grain_properties, search};
use weft_analyses::grains::Parallelism;
use weft_analyses::grains::{GrainAnalysis, NONE};

pub struct GrainsPane {
    /// Shared with the Aggregated view of the same graph (no copy on the page's main thread).
    analysis: Rc<GrainAnalysis>,
    layout: GrainLayout,
    vp: Viewport,
    /// Index into the analysis' problem views; None for the structural view.
    problem: Option<usize>,
    color: ColorBy,
    /// The grain the panel shows, outlined in the view.
    selected: Option<u32>,
    /// The view shows everything and nobody moved it since: a resize (the grain panel opening beside the
    /// view) fits again instead of cutting the graph off.
    fitted: bool,
    /// The narrowest grain fragment, layout units: below a pixel the view says how to read the strip.
    narrowest: Option<f32>,
    /// The pane's height; the graph's viewport is shorter by the parallelism strip, when there is one.
    pane_height: f32,
    /// The instant hovered on the parallelism strip and the grains running then (outlined in the graph).
    profile_at: Option<u64>,
    running: Vec<u32>,
    /// The grain under the pointer in the graph (its span marked on the strip).
    hovered: Option<u32>,
    /// What lets a frame skip the edges inside a pixel without visiting them (built with the pane).
    reach: EdgeReach,
    /// The graph's last scene (without the selection, running grains and strip drawn over it) and what it was
    /// built for: a frame asked again for the same viewport and view (a hover's redraw, the page's own
    /// invalidation) costs a copy, not a pass over the graph.
    last: std::cell::RefCell<Option<(SceneKey, Scene)>>,
}

/// What the graph's scene depends on besides the graph and layout, which a pane never changes (thresholds
/// that do change the problem views clear it: `configure`).
#[derive(Clone, Copy, PartialEq)]
struct SceneKey {
    vp: Viewport,
    problem: Option<usize>,
    color: ColorBy,
}

/// The outline of the selected grain (the page's accent blue: no severity or source colour uses it).
const SELECTED: Rgba = rgba(0x2f, 0x6f, 0xd6, 0xff);

impl GrainsPane {
    pub fn new(analysis: GrainAnalysis, layout: GrainLayout, width: f32, height: f32) -> Self {
        let reach = EdgeReach::new(&analysis, &layout);
        Self::with_reach(analysis, layout, width, height, reach)
    }

    /// The pane with the layout's [`EdgeReach`] computed already (a load step of its own on the page).
    pub fn with_reach(analysis: GrainAnalysis, layout: GrainLayout, width: f32, height: f32, reach: EdgeReach) -> Self {
        let vp = Viewport::fit(&layout, width, graph_height(width, height));
        let narrowest = narrowest_grain(&analysis, &layout);
        GrainsPane {
            narrowest,
            reach,
            last: std::cell::RefCell::new(None),
            analysis: Rc::new(analysis),
            layout,
            vp,
            problem: None,
            color: ColorBy::OutlineFunction,
            selected: None,
            fitted: true,
            pane_height: height,
            profile_at: None,
            running: Vec::new(),
            hovered: None,
        }
    }

    /// The parallelism strip below the graph, if the pane is tall enough for it.
    pub fn strip(&self) -> Option<Strip> {
        Strip::below(self.vp.width_px, self.pane_height)
    }

    /// Hover the parallelism strip at the instant `t` (as a pointer over it does): the grains running then
    /// are outlined. None clears.
    pub fn hover_profile(&mut self, t: Option<u64>) -> &[u32] {
        self.profile_at = t.map(|t| t.min(self.analysis.parallelism.span.saturating_sub(1)));
        let p = &self.analysis.parallelism;
        // More than can be told apart is counted, not listed: the listing is per hover on the main thread.
        self.running = match self.profile_at {
            Some(t) if p.count_at(t) as usize <= OUTLINE_AT_MOST => p.running_at(t),
            _ => Vec::new(),
        };
        &self.running
    }

    /// How many grains run at the hovered instant (0 without one).
    pub fn running_count(&self) -> usize {
        self.profile_at.map_or(0, |t| self.analysis.parallelism.count_at(t) as usize)
    }

    /// The grains outlined as running at the hovered instant (none when more than [`OUTLINE_AT_MOST`]).
    pub fn running(&self) -> &[u32] {
        &self.running
    }

    /// Outlines of the grains running at the hovered instant: nodes of a pixel or more outlined, smaller ones
    /// a dot per pixel. Only what is on screen.
    fn running_marks(&self) -> Vec<RectInstance> {
        let (l, vp, g) = (&self.layout, &self.vp, &self.analysis.graph);
        let mut out = Vec::new();
        let mut dots = rustc_hash::FxHashSet::default();
        for &grain in &self.running {
            for &v in g.grain_nodes_of(grain) {
                let v = v as usize;
                let (px, py) = ((l.x[v] - vp.x0) * vp.scale, (l.y[v] - vp.y0) * vp.scale);
                let (pw, ph) = (l.w[v] * vp.scale, l.h[v] * vp.scale);
                if px + pw < 0.0 || py + ph < 0.0 || px > vp.width_px || py > vp.height_px {
                    continue;
                }
                if pw >= 1.0 && ph >= 1.0 {
                    out.push(
                        RectInstance::filled(px - 2.0, py - 2.0, pw + 4.0, ph + 4.0, 0)
                            .with_border(profile::LINK, 2.0)
                            .with_shape(Shape::Rounded),
                    );
                } else if dots.insert(((px + pw / 2.0) as i32, (py + ph / 2.0) as i32)) {
                    out.push(RectInstance::filled(px + pw / 2.0 - 1.5, py + ph / 2.0 - 1.5, 3.0, 3.0, profile::LINK));
                }
            }
        }
        out
    }

    pub fn analysis(&self) -> &GrainAnalysis {
        &self.analysis
    }

    pub fn layout(&self) -> &GrainLayout {
        &self.layout
    }

    /// The analysis itself, for another view of the same graph.
    pub fn shared_analysis(&self) -> Rc<GrainAnalysis> {
        self.analysis.clone()
    }

    /// The metric of the problem view shown; None in the structural view.
    pub fn problem_metric(&self) -> Option<&'static str> {
        self.problem.and_then(|i| self.analysis.problems.get(i)).map(|p| p.metric)
    }

    /// The view's options as they stand (views::options::GrainsOptions).
    fn typed_options(&self) -> GrainsOptions {
        GrainsOptions {
            problem: self.problem_metric(),
            thresholds: ThresholdsPreset::of(&self.analysis.thresholds),
            overrides: ThresholdOverrides::of(&self.analysis.thresholds),
            color: self.color,
        }
    }

    pub fn selected(&self) -> Option<u32> {
        self.selected
    }

    /// Select a grain (None clears); an index past the grains is refused.
    pub fn select(&mut self, grain: Option<u32>) -> Result<(), String> {
        match grain {
            Some(g) if g as usize >= self.analysis.graph.grains() => Err(format!("there is no grain {g}")),
            _ => {
                self.selected = grain;
                Ok(())
            }
        }
    }

    /// The grain whose fragment, task, fork or join node lies under screen (x, y).
    pub fn grain_at(&self, x: f32, y: f32) -> Option<u32> {
        if self.strip().is_some_and(|s| s.contains(x, y)) {
            return None;
        }
        let v = node_at(&self.layout, self.vp.x0 + x / self.vp.scale, self.vp.y0 + y / self.vp.scale)?;
        let grain = self.analysis.graph.node_grain[v as usize];
        (grain != NONE).then_some(grain)
    }

    /// The layout box around all nodes of a grain.
    fn grain_box(&self, grain: u32) -> Option<[f32; 4]> {
        let l = &self.layout;
        let nodes = self.analysis.graph.grain_nodes_of(grain);
        let first = *nodes.first()? as usize;
        let mut b = [l.x[first], l.y[first], l.x[first] + l.w[first], l.y[first] + l.h[first]];
        for &v in nodes {
            let v = v as usize;
            b = [b[0].min(l.x[v]), b[1].min(l.y[v]), b[2].max(l.x[v] + l.w[v]), b[3].max(l.y[v] + l.h[v])];
        }
        Some(b)
    }

    /// Bring a grain's first fragment into view at a readable scale: always centred when `centre`, else only
    /// when it is off screen or too small to see.
    pub fn locate(&mut self, grain: u32, centre: bool) -> Result<(), String> {
        let v = *self.analysis.graph.grain_nodes_of(grain).first().ok_or("the grain has no fragment")? as usize;
        let l = &self.layout;
        let (x, y, w, h) = (l.x[v], l.y[v], l.w[v], l.h[v]);
        let vp = &self.vp;
        let (px, py) = ((x - vp.x0) * vp.scale, (y - vp.y0) * vp.scale);
        let on_screen = px >= 0.0
            && py >= 0.0
            && px + w * vp.scale <= vp.width_px
            && py + h * vp.scale <= vp.height_px
            && w * vp.scale >= 4.0;
        if centre || !on_screen {
            self.fitted = false;
            let (cx, cy) = (x + w / 2.0, y + h / 2.0);
            self.vp.scale = self.vp.scale.max(2.5);
            self.vp.x0 = cx - self.vp.width_px / 2.0 / self.vp.scale;
            self.vp.y0 = cy - self.vp.height_px / 2.0 / self.vp.scale;
        }
        Ok(())
    }

    /// The selected grain's outline, drawn over the view: every node of the grain, at least 8 px across.
    fn selection_outline(&self) -> Vec<RectInstance> {
        let Some(grain) = self.selected else { return Vec::new() };
        let (l, vp) = (&self.layout, &self.vp);
        let mut out = Vec::new();
        let mut outline = |x: f32, y: f32, w: f32, h: f32, shape: Shape| {
            let (px, py, pw, ph) = ((x - vp.x0) * vp.scale, (y - vp.y0) * vp.scale, w * vp.scale, h * vp.scale);
            let (pw2, ph2) = ((pw + 6.0).max(8.0), (ph + 6.0).max(8.0));
            let (cx, cy) = (px + pw / 2.0, py + ph / 2.0);
            if cx + pw2 / 2.0 < 0.0
                || cy + ph2 / 2.0 < 0.0
                || cx - pw2 / 2.0 > vp.width_px
                || cy - ph2 / 2.0 > vp.height_px
            {
                return;
            }
            out.push(
                RectInstance::filled(cx - pw2 / 2.0, cy - ph2 / 2.0, pw2, ph2, 0)
                    .with_border(SELECTED, 2.5)
                    .with_shape(shape),
            );
        };
        for &v in self.analysis.graph.grain_nodes_of(grain) {
            let v = v as usize;
            outline(l.x[v], l.y[v], l.w[v], l.h[v], Shape::Rounded);
        }
        // Zoomed far out a grain's fragments vanish; a box around the whole grain still says where it is.
        if let Some([x0, y0, x1, y1]) = self.grain_box(grain) {
            if (x1 - x0) * vp.scale < 8.0 && (y1 - y0) * vp.scale < 8.0 {
                outline(
                    x0 - 6.0 / vp.scale,
                    y0 - 6.0 / vp.scale,
                    x1 - x0 + 12.0 / vp.scale,
                    y1 - y0 + 12.0 / vp.scale,
                    Shape::Ellipse,
                );
            }
        }
        out
    }

    fn view(&self) -> View<'_> {
        match self.problem.and_then(|i| self.analysis.problems.get(i)) {
            Some(p) => View::Problem(p),
            None => View::Structure(self.color),
        }
    }

    fn zoom_about(&mut self, x: f32, y: f32, factor: f64) {
        self.fitted = false;
        let (lx, ly) = (self.vp.x0 + x / self.vp.scale, self.vp.y0 + y / self.vp.scale);
        self.vp.scale = (self.vp.scale * factor as f32).clamp(1e-4, 400.0);
        self.vp.x0 = lx - x / self.vp.scale;
        self.vp.y0 = ly - y / self.vp.scale;
    }
}

impl Pane for GrainsPane {
    fn kind(&self) -> &'static str {
        "grains"
    }
    fn resize(&mut self, width: f32, height: f32) {
        self.vp.width_px = width;
        self.vp.height_px = graph_height(width, height);
        self.pane_height = height;
        if self.fitted {
            self.fit();
        }
    }
    fn zoom(&mut self, x: f32, factor: f64) {
        self.zoom_about(x, self.vp.height_px / 2.0, factor);
    }
    fn zoom_xy(&mut self, x: f32, y: Option<f32>, factor: f64) {
        self.zoom_about(x, y.unwrap_or(self.vp.height_px / 2.0), factor);
    }
    fn zoom_rows(&mut self, y: f32, factor: f64) {
        self.zoom_about(self.vp.width_px / 2.0, y, factor);
    }
    fn pan(&mut self, dx: f32) {
        self.fitted &= dx == 0.0;
        self.vp.x0 += dx / self.vp.scale;
    }
    fn scroll(&mut self, dy: f32) {
        self.fitted &= dy == 0.0;
        self.vp.y0 += dy / self.vp.scale;
    }
    fn fit(&mut self) {
        self.vp = Viewport::fit(&self.layout, self.vp.width_px, self.vp.height_px);
        self.fitted = true;
    }
    fn hover(&mut self, x: f32, y: f32) -> Option<Hover> {
        self.hovered = None;
        if let Some(strip) = self.strip().filter(|s| s.contains(x, y)) {
            let p = &self.analysis.parallelism;
            if p.span == 0 {
                self.hover_profile(None);
                return None;
            }
            let t = strip.t_at(x, p.span);
            self.hover_profile(Some(t));
            let g = &self.analysis.graph;
            let tasks: Vec<u64> = self.running.iter().map(|&i| g.grain_task[i as usize]).collect();
            let shown: Vec<String> = tasks.iter().take(12).map(u64::to_string).collect();
            let count = self.running_count();
            let listed = if count > OUTLINE_AT_MOST {
                format!("more than {OUTLINE_AT_MOST}: counted, not outlined")
            } else if count > shown.len() {
                format!("tasks {}, …", shown.join(", "))
            } else {
                format!("tasks {}", shown.join(", "))
            };
            return Some(Hover {
                title: format!(
                    "{} grains running at {}",
                    number::format(count as f64, Unit::Count),
                    number::format(t as f64, Unit::of_time(g.unit))
                ),
                lines: vec![
                    listed,
                    "critical-path distance: the start each grain could have with enough cores".to_string(),
                ],
                detail: json!({"parallelism": {"t": t, "count": count, "tasks": tasks}}),
            });
        }
        self.hover_profile(None);
        let v = node_at(&self.layout, self.vp.x0 + x / self.vp.scale, self.vp.y0 + y / self.vp.scale)?;
        let g = &self.analysis.graph;
        let grain = g.node_grain[v as usize];
        let kind = g.node_kind[v as usize].name();
        self.hovered = (grain != NONE).then_some(grain);
        if grain == NONE {
            return Some(Hover { title: kind.to_string(), lines: vec![], detail: json!({"node": v, "kind": kind}) });
        }
        let props = grain_properties(&self.analysis, grain);
        let task = props.first().map(|(_, t)| t.clone()).unwrap_or_default();
        let unit = self.analysis.graph.unit;
        let mut lines: Vec<String> =
            props.iter().skip(1).map(|(k, v)| format!("{k}: {}", number::grain_property(k, v, unit))).collect();
        if let Some(p) = self.problem.and_then(|i| self.analysis.problems.get(i)) {
            if p.problematic.get(grain as usize).copied().unwrap_or(false) {
                lines.insert(0, format!("problematic: {} ({})", p.metric, p.bound.describe(p.metric)));
            }
        }
        Some(Hover {
            title: format!("task {task} ({kind})"),
            lines,
            detail: json!({"node": v, "grain": grain, "task": task, "kind": kind}),
        })
    }
    fn clear_hover(&mut self) {
        self.hovered = None;
        self.hover_profile(None);
    }
    fn legend(&self) -> Option<crate::scene::legend::Legend> {
        Some(crate::scene::legend::grains(&self.analysis, self.view()))
    }
    fn scene(&self) -> Scene {
        let key = SceneKey { vp: self.vp, problem: self.problem, color: self.color };
        let cached = match &*self.last.borrow() {
            Some((k, scene)) if *k == key => Some(scene.clone()),
            _ => None,
        };
        let mut scene = cached.unwrap_or_else(|| {
            let scene = build_with(&self.analysis, &self.layout, &self.reach, &self.vp, self.view());
            *self.last.borrow_mut() = Some((key, scene.clone()));
            scene
        });
        scene.rects.extend(self.running_marks());
        scene.rects.extend(self.selection_outline());
        if self.narrowest.is_some_and(|w| w * self.vp.scale < 1.0) {
            sub_pixel_hint(&mut scene, self.analysis.graph.grains());
        }
        if let Some(strip) = self.strip() {
            scene.height = self.pane_height;
            let a = &self.analysis;
            let p = &a.parallelism;
            let links = Links {
                at: self.profile_at.map(|t| (t, self.running_count() as u32)),
                grain: self.hovered.or(self.selected).and_then(|g| Parallelism::grain_span(&a.graph, &a.critical, g)),
            };
            profile::draw(&mut scene, p, &strip, a.cores, a.graph.unit, links);
        }
        scene
    }
    fn brief(&self) -> serde_json::Value {
        let g = &self.analysis.graph;
        json!({
            "view": "grains",
            "grains": g.grains(), "nodes": g.nodes(), "edges": g.edge_source.len(),
            "critical_path_length": self.analysis.critical.length,
            "cores": self.analysis.cores, "thresholds": self.analysis.thresholds.source,
            "threshold_values": &self.analysis.thresholds,
            "problem": self.problem.and_then(|i| self.analysis.problems.get(i)).map(|p| p.metric),
            "problems": self.analysis.problems.iter().map(|p| json!({"metric": p.metric, "count": p.count})).collect::<Vec<_>>(),
            "from_nesting": self.layout.from_nesting,
            "sub_pixel": self.narrowest.is_some_and(|w| w * self.vp.scale < 1.0),
            "selected": self.selected.map(|i| json!({"grain": i, "task": g.grain_task[i as usize]})),
            "viewport": {"x0": self.vp.x0, "y0": self.vp.y0, "scale": self.vp.scale},
        })
    }
    fn state(&self) -> serde_json::Value {
        let g = &self.analysis.graph;
        // Up to 64 grains whose first fragment is on screen, with its screen box (for tests and "locate").
        let sample: Vec<_> = (0..g.grains())
            .filter_map(|i| {
                let v = *g.grain_nodes_of(i as u32).first()? as usize;
                let (x, y) =
                    ((self.layout.x[v] - self.vp.x0) * self.vp.scale, (self.layout.y[v] - self.vp.y0) * self.vp.scale);
                let (w, h) = (self.layout.w[v] * self.vp.scale, self.layout.h[v] * self.vp.scale);
                let visible = x >= 0.0 && y >= 0.0 && x + w <= self.vp.width_px && y + h <= self.vp.height_px;
                visible.then(|| json!({"task": g.grain_task[i], "node": v, "x": x, "y": y, "w": w, "h": h}))
            })
            .take(64)
            .collect();
        let contents = json!({
            "parallelism": {
                "max": self.analysis.parallelism.max, "mean": self.analysis.parallelism.mean,
                "span": self.analysis.parallelism.span,
                "strip": self.strip().map(|s| json!({"top": s.top, "height": s.height, "x0": s.plot_x0, "x1": s.plot_x1})),
                "at": self.profile_at, "running": self.running_count(), "outlined": self.running.len(),
                "running_tasks": self.running.iter().take(1024).map(|&i| g.grain_task[i as usize]).collect::<Vec<_>>(),
            },
            "sample_nodes": sample,
        });
        super::with_contents(self.brief(), contents)
    }
    fn restore(&mut self, s: &serde_json::Value) {
        let vp = &s["viewport"];
        if let (Some(x0), Some(y0), Some(scale)) = (num(vp, "x0"), num(vp, "y0"), num(vp, "scale")) {
            if scale > 0.0 {
                (self.vp.x0, self.vp.y0, self.vp.scale) = (x0 as f32, y0 as f32, (scale as f32).clamp(1e-4, 400.0));
                self.fitted = false;
            }
        }
    }
    fn options(&self) -> serde_json::Value {
        let mut d = self.typed_options().describe();
        let problems = self.analysis.problems.iter().map(|p| (p.metric, p.count));
        set_choices(&mut d, "problem", problem_choices(problems));
        d
    }
    fn configure(&mut self, key: &str, value: &str) -> Result<(), String> {
        // Thresholds change the problem views in place: no scene built before stays.
        self.last.get_mut().take();
        let mut o = self.typed_options();
        o.parse(key, value).map_err(|e| e.to_string())?;
        match key {
            "problem" => {
                self.problem = match o.problem {
                    None => None,
                    Some(m) => Some(
                        self.analysis
                            .problems
                            .iter()
                            .position(|p| p.metric == m)
                            .ok_or_else(|| format!("no problem view for '{value}'"))?,
                    ),
                }
            }
            "color" => self.color = o.color,
            "locate" => {
                // Search by task id, source location or function; centre the first match, readable.
                let grain =
                    *search(&self.analysis, value).first().ok_or_else(|| format!("no grain matches '{value}'"))?;
                self.locate(grain, true)?;
            }
            _ => Rc::make_mut(&mut self.analysis).set_thresholds(o.effective_thresholds()),
        }
        Ok(())
    }
    fn as_grains(&mut self) -> Option<&mut GrainsPane> {
        Some(self)
    }
}

/// The most grains a hover on the strip lists and outlines (fib(45) at cutoff 16 runs 65,536 at once on
/// this axis: listing them took up to 29 ms per hover, BENCHMARKS.md).
pub const OUTLINE_AT_MOST: usize = 8192;

/// The graph's share of a pane `height` tall: less the parallelism strip when the pane has room for one.
fn graph_height(width: f32, height: f32) -> f32 {
    match Strip::below(width, height) {
        Some(s) => s.top,
        None => height,
    }
}
