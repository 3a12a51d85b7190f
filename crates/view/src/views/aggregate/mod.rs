//! The aggregated grain-graph pane: a grain graph shown as one group that the user opens (click a closed
//! group), closes (click an opened group's envelope), opens beneath, drills to a depth or along the global
//! critical path; by the reduction or the sibling/family method, in the structural view or a problem view,
//! filtered (quiet members as fast-forward edges, with an inset of the unfiltered graph) or not, with a
//! group's local critical path and similar-group marks (one glyph per similarity class) on demand. A click
//! selects a group and fills its property window (props.rs); the view's theta (visible node count) is in
//! its state. Each open or close re-lays out only the changed group and its ancestors (layouts::aggregate)
//! and animates from the old geometry for ~200 ms. The filtered view's inset is drawn over the graph,
//! outlined, with the selected group pin-pointed.
//! Holds navigation state only: the tree, metrics and layout come from analyses::aggregate and
//! layouts::aggregate, the drawing from scene::aggregate.

mod compare;
mod placed;
mod props;
mod state;

use self::placed::Placed;
use super::{Clock, Hover, Pane};
use crate::layouts::aggregate::{AggregateParams, AggregateView};
use crate::scene::aggregate::{build_at, cut_out, Fit, Geometry, Overlay};
use crate::scene::{rgba, RectInstance, Rgba, Scene, Shape};
use crate::views::options::{problem_choices, set_choices, set_max, AggregateOptions, ViewOptions};
use serde_json::Value;
use std::collections::HashSet;
use std::rc::Rc;
use weft_analyses::aggregate::critical::local_critical_path;
use weft_analyses::aggregate::propagate::{grain_of_leaf, severity};
use weft_analyses::aggregate::query::strength_words;
use weft_analyses::aggregate::separate::problematic;
use weft_analyses::aggregate::similarity::{group_id, similar_classes};
use weft_analyses::aggregate::theta::{theta_max, theta_of_nodes};
use weft_analyses::aggregate::{Aggregation, AggregationTree, GroupMetrics, Method};
use weft_analyses::grains::{GrainAnalysis, METRICS, NONE};

/// How long an open or close animates.
const ANIMATION_MS: f64 = 200.0;
/// The fitted view never magnifies more than this: one closed group stays a readable box, not the screen.
const MAX_FIT_SCALE: f32 = 5.0;
/// The selected group's outline (the page's accent blue, as in the grain view).
const SELECTED: Rgba = rgba(0x2f, 0x6f, 0xd6, 0xff);
const INSET_BORDER: Rgba = rgba(0x8a, 0x93, 0x9e, 0xff);

struct Animation {
    start_ms: f64,
    cam_from: Fit,
}

pub struct AggregatePane {
    analysis: Rc<GrainAnalysis>,
    method: Method,
    /// Index into `METRICS` (and the analysis' problem views); None for the structural view.
    problem: Option<usize>,
    /// The tree shown: the aggregation, separated in a problem view; its metrics and severities.
    tree: AggregationTree,
    metrics: GroupMetrics,
    severity: Vec<f32>,
    view: AggregateView,
    /// The filtered view's inset: the same open groups, nothing hidden. None when not filtered.
    unfiltered: Option<AggregateView>,
    selected: Option<u32>,
    hovered: Option<u32>,
    /// The group whose local critical path is shown, and that path's members.
    local_of: Option<u32>,
    local: Vec<u32>,
    /// Similar-group marks on demand: visible closed groups whose structure another visible one shares,
    /// each with its similarity class (classes numbered by their first group), ascending by group.
    similar_on: bool,
    similar: Vec<(u32, u32)>,
    /// Theta (visible node count) of every tree node of the shown tree, and its greatest over the grains
    /// the view is about (every grain in the structural view, the problematic ones in a problem view).
    theta: Vec<u32>,
    theta_max: Option<u32>,
    /// The selected node's property window (props.rs), computed when the selection or the tree changes;
    /// the tree's generation (one more on each rebuild) tells the latter.
    props: Value,
    tree_generation: u64,
    depth: u32,
    cam: Fit,
    width: f32,
    height: f32,
    fitted: bool,
    /// Where visible nodes were before the last open or close, and where they are now.
    from: Placed,
    to: Placed,
    anim: Option<Animation>,
    /// Milliseconds the last open, close or drill spent re-laying out (the figure the page benchmarks).
    last_relayout_ms: f64,
    /// A second run shown beside this one; None when not comparing.
    compare: Option<Box<compare::Compare>>,
    /// Why the graph opened here first (it is too large to read whole), shown until the first click acts.
    intro: Option<String>,
    /// Where animations and re-layout timings read the time; None: steps land at once, untimed (the CLI).
    clock: Option<Rc<dyn Clock>>,
}

impl AggregatePane {
    pub fn new(analysis: Rc<GrainAnalysis>, width: f32, height: f32) -> Self {
        let agg = Aggregation::new(&analysis, Method::Reduction);
        Self::with_aggregation(analysis, agg, width, height)
    }

    /// The pane over an aggregation already built (by the worker, analyses::aggregate::bundle), so opening
    /// the view costs the page only the closed root's layout.
    pub fn with_aggregation(analysis: Rc<GrainAnalysis>, agg: Aggregation, width: f32, height: f32) -> Self {
        let view = Self::first_view(&analysis, &agg);
        Self::with_view(analysis, agg, view, width, height)
    }

    /// What the pane first shows of `agg` (the root's children closed): [`with_aggregation`]'s first part,
    /// a load step of its own on the page (a pass over the tree: 6 ms natively for the 131,072-grain
    /// profile's 393 k tree nodes).
    ///
    /// [`with_aggregation`]: Self::with_aggregation
    pub fn first_view(analysis: &GrainAnalysis, agg: &Aggregation) -> AggregateView {
        AggregateView::new(&agg.tree, &analysis.graph, AggregateParams::default())
    }

    /// [`with_aggregation`](Self::with_aggregation) from its [`first_view`](Self::first_view).
    pub fn with_view(
        analysis: Rc<GrainAnalysis>,
        agg: Aggregation,
        view: AggregateView,
        width: f32,
        height: f32,
    ) -> Self {
        let mut p = AggregatePane {
            analysis,
            method: agg.method,
            problem: None,
            severity: Vec::new(),
            tree: agg.tree,
            metrics: agg.metrics,
            view,
            unfiltered: None,
            selected: None,
            hovered: None,
            local_of: None,
            local: Vec::new(),
            similar_on: false,
            similar: Vec::new(),
            theta: Vec::new(),
            theta_max: None,
            props: Value::Null,
            tree_generation: 0,
            depth: 0,
            cam: Fit { x0: 0.0, y0: 0.0, scale: 1.0 },
            width,
            height,
            fitted: true,
            from: Placed::new(0),
            to: Placed::new(0),
            anim: None,
            last_relayout_ms: 0.0,
            compare: None,
            intro: None,
            clock: None,
        };
        p.settle();
        p.fit();
        p.measure_theta();
        p
    }

    /// Theta of the tree shown (one top-down pass and one over the grains, on each new tree).
    fn measure_theta(&mut self) {
        self.theta = theta_of_nodes(&self.tree);
        let a = &self.analysis;
        self.theta_max = match self.problem.and_then(|v| a.problems.get(v)) {
            Some(view) => theta_max(a, &self.tree, |g| view.problematic[g]),
            None => theta_max(a, &self.tree, |_| true),
        };
    }

    /// Animate opens and closes (and time their re-layouts) by `clock`: the page's is `performance.now`,
    /// a test's one it advances by hand.
    pub fn with_clock(mut self, clock: Rc<dyn Clock>) -> Self {
        self.clock = Some(clock);
        self
    }

    /// The analysis, and the tree shown (aggregated by the method, separated in a problem view) with its
    /// metrics: what the page's GraphML download writes (`Aggregation::shown`, as `weft aggregate --graphml`).
    pub fn shown(&self) -> (Rc<GrainAnalysis>, &AggregationTree, &GroupMetrics) {
        (self.analysis.clone(), &self.tree, &self.metrics)
    }

    fn now_ms(&self) -> Option<f64> {
        self.clock.as_ref().map(|c| c.now_ms())
    }

    /// The view's options as they stand (views::options::AggregateOptions).
    fn typed_options(&self) -> AggregateOptions {
        AggregateOptions {
            method: self.method,
            problem: self.problem.map(|b| METRICS[b]),
            filtered: self.unfiltered.is_some(),
            drill_depth: self.depth,
            similar: self.similar_on,
        }
    }

    /// Show `text` over the view (why the graph opened aggregated) until a click acts.
    pub fn with_intro(mut self, text: String) -> Self {
        self.intro = Some(text);
        self
    }

    /// The thresholds this run's problems were found under (a compared run is analysed under them too).
    pub fn thresholds(&self) -> weft_analyses::grains::Thresholds {
        self.analysis.thresholds.clone()
    }

    /// The whole graph fitted into the pane (its left half when comparing).
    fn fit_cam(&self) -> Fit {
        fit_box(self.view.width(&self.tree), self.view.height(&self.tree), self.main_width(), self.height)
    }

    /// Progress of the running animation in [0, 1]; None when none runs.
    fn progress(&self) -> Option<f32> {
        let a = self.anim.as_ref()?;
        let t = ((self.now_ms()? - a.start_ms) / ANIMATION_MS).clamp(0.0, 1.0) as f32;
        (t < 1.0).then_some(t)
    }

    /// Where things are drawn now (None: where the layout puts them, `to`), and through which camera.
    fn current(&self) -> (Option<Geometry>, Fit) {
        let Some(t) = self.progress() else { return (None, self.cam) };
        let e = t * t * (3.0 - 2.0 * t);
        let lerp = |a: f32, b: f32| if a.is_finite() { a + (b - a) * e } else { b };
        let (f, to) = (&self.from.g, &self.to.g);
        let mut g = self.to.g.clone();
        for &u in &self.to.set {
            let i = u as usize;
            if f.x[i].is_finite() {
                g.x[i] = lerp(f.x[i], to.x[i]);
                g.y[i] = lerp(f.y[i], to.y[i]);
                g.w[i] = lerp(f.w[i], to.w[i]);
                g.h[i] = lerp(f.h[i], to.h[i]);
            }
        }
        let c0 = self.anim.as_ref().map_or(self.cam, |a| a.cam_from);
        let c1 = self.cam;
        (Some(g), Fit { x0: lerp(c0.x0, c1.x0), y0: lerp(c0.y0, c1.y0), scale: lerp(c0.scale, c1.scale) })
    }

    /// The layout changed wholesale (a new tree, a restored state): draw it as it is, no animation.
    fn settle(&mut self) {
        if self.to.g.x.len() != self.tree.len() {
            self.from = Placed::new(self.tree.len());
            self.to = Placed::new(self.tree.len());
        }
        self.to.layout(&self.tree, &self.view);
        self.anim = None;
    }

    /// Run a navigation step: time its re-layout, refit when fitted, and animate from what was drawn (from
    /// the last target, when a step comes while one still animates).
    fn navigate(&mut self, step: impl FnOnce(&mut Self)) {
        let cam_from = self.current().1;
        let t0 = self.now_ms();
        step(self);
        if let Some(u) = self.unfiltered.as_mut() {
            u.set_open(&self.tree, &self.analysis.graph, &self.view.open);
        }
        self.last_relayout_ms = self.now_ms().zip(t0).map_or(0.0, |(t1, t0)| t1 - t0);
        self.follow_open();
        if self.similar_on {
            self.mark_similar();
        }
        if self.fitted {
            self.cam = self.fit_cam();
        }
        std::mem::swap(&mut self.from, &mut self.to);
        self.to.layout(&self.tree, &self.view);
        // Nodes that appear start at their size, centred on the group they come out of.
        for k in 0..self.to.set.len() {
            let u = self.to.set[k];
            let (ui, p) = (u as usize, self.tree.parent[u as usize]);
            if self.from.has(u) || p == NONE || !self.from.has(p) {
                continue;
            }
            let (f, pi, to) = (&self.from.g, p as usize, &self.to.g);
            let x = f.x[pi] + (f.w[pi] - to.w[ui]) / 2.0;
            let y = f.y[pi] + (f.h[pi] - to.h[ui]) / 2.0;
            let (w, h) = (to.w[ui], to.h[ui]);
            self.from.put(u, x, y, w, h);
        }
        self.anim = self.now_ms().map(|start_ms| Animation { start_ms, cam_from });
    }

    fn keep(&self) -> Vec<bool> {
        match self.problem {
            Some(view) => problematic(&self.analysis, &self.tree, view),
            None => self.metrics.problems.iter().map(|&b| b != 0).collect(),
        }
    }

    /// Rebuild the tree for the method and problem view, keeping open the groups (and the selection)
    /// whose schedule-independent identifier the new tree has too.
    fn rebuild(&mut self, method: Method, problem: Option<usize>) {
        let a = &self.analysis;
        let ids = |t: &AggregationTree, list: &mut dyn Iterator<Item = u32>| -> HashSet<String> {
            list.map(|u| group_id(a, t, u)).collect()
        };
        let open_ids = ids(&self.tree, &mut (0..self.tree.len() as u32).filter(|&u| self.view.is_open(u)));
        let selected_id = self.selected.map(|u| group_id(a, &self.tree, u));
        let (tree, metrics) = Aggregation::shown(a, method, problem);
        let mut open = vec![false; tree.len()];
        let mut selected = None;
        for u in 0..tree.len() as u32 {
            let wanted = !tree.is_leaf(u) && !open_ids.is_empty();
            if wanted || selected_id.is_some() {
                let id = group_id(a, &tree, u);
                open[u as usize] = wanted && open_ids.contains(&id);
                if selected_id.as_deref() == Some(id.as_str()) {
                    selected = Some(u);
                }
            }
        }
        self.severity = problem.map_or_else(Vec::new, |v| severity(a, &tree, v));
        self.method = method;
        self.problem = problem;
        self.view = AggregateView::new(&tree, &a.graph, AggregateParams::default());
        self.tree = tree;
        self.metrics = metrics;
        self.selected = selected;
        self.hovered = None;
        self.local_of = None;
        self.local.clear();
        let filtered = self.unfiltered.is_some();
        self.set_filtered(filtered);
        self.view.set_open(&self.tree, &self.analysis.graph, &open);
        if let Some(u) = self.unfiltered.as_mut() {
            u.set_open(&self.tree, &self.analysis.graph, &open);
        }
        if self.similar_on {
            self.mark_similar();
        }
        self.rebuild_compare();
        self.tree_generation += 1;
        self.measure_theta();
        self.settle();
        if self.fitted {
            self.cam = self.fit_cam();
        }
    }

    fn set_filtered(&mut self, on: bool) {
        let g = &self.analysis.graph;
        if on {
            let mut plain = self.view.clone();
            plain.set_filter(&self.tree, g, None);
            self.unfiltered = Some(plain);
            let keep = self.keep();
            self.view.set_filter(&self.tree, g, Some(keep));
        } else {
            self.unfiltered = None;
            self.view.set_filter(&self.tree, g, None);
        }
    }

    /// Mark visible closed groups whose Weisfeiler–Lehman hash another visible closed group shares, by class.
    fn mark_similar(&mut self) {
        let (t, v) = (&self.tree, &self.view);
        let closed = v.visible(t).into_iter().filter(|&u| !t.is_leaf(u) && !v.is_open(u));
        let classes = similar_classes(&self.analysis.graph, t, closed);
        self.similar = classes.iter().enumerate().flat_map(|(k, c)| c.iter().map(move |&u| (u, k as u32))).collect();
        self.similar.sort_unstable();
    }

    fn show_local_critical(&mut self, group: u32) {
        if self.tree.is_leaf(group) {
            self.local_of = None;
            self.local.clear();
            return;
        }
        let path = local_critical_path(&self.analysis.graph, &self.tree, group);
        self.local = path.members;
        self.local_of = Some(group);
    }

    fn node_at(&self, x: f32, y: f32) -> Option<u32> {
        let c = &self.cam;
        self.view.node_at(&self.tree, c.x0 + x / c.scale, c.y0 + y / c.scale)
    }

    /// Click at screen (x, y): open a closed group, close an opened one (its envelope), select either.
    pub fn click(&mut self, x: f32, y: f32) -> bool {
        if self.inset_box().is_some_and(|[ox, oy, iw, ih]| x >= ox && y >= oy && x <= ox + iw && y <= oy + ih) {
            return false;
        }
        if x > self.main_width() {
            return false;
        }
        let Some(u) = self.node_at(x, y) else { return false };
        self.selected = Some(u);
        if !self.tree.is_leaf(u) {
            if self.view.is_open(u) {
                self.navigate(|p| p.view.close_group(&p.tree, g_of(&p.analysis), u));
            } else {
                self.navigate(|p| p.view.open_group(&p.tree, g_of(&p.analysis), u));
            }
        }
        true
    }

    fn group(&self, value: &str) -> Result<u32, String> {
        if value.is_empty() || value == "selected" {
            return Ok(self.selected.unwrap_or(self.tree.root));
        }
        let u: u32 = value.parse().map_err(|_| format!("'{value}' is not a group id"))?;
        if (u as usize) < self.tree.len() {
            Ok(u)
        } else {
            Err(format!("there is no group {u}"))
        }
    }

    /// Where the filtered view's inset sits on screen (x, y, w, h); None when there is none.
    fn inset_box(&self) -> Option<[f32; 4]> {
        self.unfiltered.as_ref()?;
        let (iw, ih) = ((self.width * 0.28).min(360.0), (self.height * 0.3).min(240.0));
        (iw >= 60.0 && ih >= 40.0).then_some([self.main_width() - iw - 10.0, self.height - ih - 10.0, iw, ih])
    }

    /// The inset of the filtered view, as the paper draws it: the unfiltered graph with the same groups
    /// open, small, in the bottom-right corner, over the graph (nothing of it drawn through) and outlined in
    /// blue, the selected group pin-pointed in blue (at least a few pixels, however small it is there).
    fn inset(&self, s: &mut Scene, overlay: Overlay) {
        let (Some(plain), Some([ox, oy, iw, ih])) = (self.unfiltered.as_ref(), self.inset_box()) else { return };
        let fit = Fit::new(plain.width(&self.tree), plain.height(&self.tree), iw, ih);
        let ov = Overlay { highlight: &[], local_critical: &[], similar: &[], ..overlay };
        let inner = build_at(
            &self.analysis,
            &self.tree,
            &self.metrics,
            plain,
            &Geometry::of(&self.tree, plain),
            fit,
            iw,
            ih,
            ov,
        );
        cut_out(s, [ox - 2.0, oy - 2.0, ox + iw + 2.0, oy + ih + 2.0]);
        s.decorate(|s| {
            s.rects.push(
                RectInstance::filled(ox - 2.0, oy - 2.0, iw + 4.0, ih + 4.0, crate::scene::palette::BACKGROUND)
                    .with_border(INSET_BORDER, 1.0),
            )
        });
        for mut r in inner.rects {
            r.x += ox;
            r.y += oy;
            s.rects.push(r);
        }
        for mut l in inner.lines {
            l.x0 += ox;
            l.x1 += ox;
            l.y0 += oy;
            l.y1 += oy;
            s.lines.push(l);
        }
        let geom = Geometry::of(&self.tree, plain);
        if let Some(u) = self.selected.filter(|&u| geom.x.get(u as usize).is_some_and(|x| x.is_finite())) {
            let ui = u as usize;
            let (px, py) = fit.px(geom.x[ui], geom.y[ui]);
            let (w, h) = (geom.w[ui] * fit.scale, geom.h[ui] * fit.scale);
            let (cx, cy, w, h) = (ox + px + w / 2.0, oy + py + h / 2.0, w.max(6.0), h.max(6.0));
            s.rects.push(RectInstance::filled(cx - w / 2.0, cy - h / 2.0, w, h, 0).with_border(SELECTED, 2.0));
        }
        // The outline last, so the inset's own edges and boxes lie under it.
        s.decorate(|s| {
            s.rects.push(RectInstance::filled(ox - 2.0, oy - 2.0, iw + 4.0, ih + 4.0, 0).with_border(SELECTED, 2.0))
        });
    }

    fn zoom_about(&mut self, x: f32, y: f32, factor: f64) {
        self.fitted = false;
        // Both runs zoom together: a point of the right half stands for the same point of the left.
        let x = if self.compare.is_some() && x > self.main_width() { x - self.main_width() } else { x };
        let c = &mut self.cam;
        let (lx, ly) = (c.x0 + x / c.scale, c.y0 + y / c.scale);
        c.scale = (c.scale * factor as f32).clamp(1e-4, 400.0);
        c.x0 = lx - x / c.scale;
        c.y0 = ly - y / c.scale;
    }
}

/// The page's controls of this view float over its top band of this many pixels.
const TOP: f32 = 36.0;

/// The height of a `width`-pixel view that shows a graph of w × h whole at the scale [`fit_box`] gives it
/// (the widest that fits, at most MAX_FIT_SCALE), with nothing to spare but its margins.
fn fitted_height(w: f32, h: f32, width: f32) -> f32 {
    let margin = 8.0;
    let scale = ((width - 2.0 * margin) / w.max(1.0)).clamp(1e-6, MAX_FIT_SCALE);
    h * scale + 2.0 * margin + TOP
}

/// A graph of w × h fitted into width × height pixels, centred below the floating controls (TOP pixels),
/// magnified at most MAX_FIT_SCALE.
fn fit_box(w: f32, h: f32, width: f32, height: f32) -> Fit {
    let avail = (height - TOP).max(height * 0.5);
    let top = height - avail;
    let mut fit = Fit::new(w, h, width, avail);
    if fit.scale > MAX_FIT_SCALE {
        let s = MAX_FIT_SCALE;
        fit = Fit { x0: -(width / s - w) / 2.0, y0: -(avail / s - h) / 2.0, scale: s };
    }
    fit.y0 -= top / fit.scale;
    fit
}

fn g_of(a: &GrainAnalysis) -> &weft_analyses::grains::GrainGraph {
    &a.graph
}

impl Pane for AggregatePane {
    fn kind(&self) -> &'static str {
        "aggregate"
    }
    fn resize(&mut self, width: f32, height: f32) {
        self.width = width;
        self.height = height;
        if self.fitted {
            self.fit();
        }
    }
    fn zoom(&mut self, x: f32, factor: f64) {
        self.zoom_about(x, self.height / 2.0, factor);
    }
    fn zoom_xy(&mut self, x: f32, y: Option<f32>, factor: f64) {
        self.zoom_about(x, y.unwrap_or(self.height / 2.0), factor);
    }
    fn zoom_rows(&mut self, y: f32, factor: f64) {
        self.zoom_about(self.width / 2.0, y, factor);
    }
    fn pan(&mut self, dx: f32) {
        self.fitted &= dx == 0.0;
        self.cam.x0 += dx / self.cam.scale;
    }
    fn scroll(&mut self, dy: f32) {
        self.fitted &= dy == 0.0;
        self.cam.y0 += dy / self.cam.scale;
    }
    fn fit(&mut self) {
        self.cam = self.fit_cam();
        self.fitted = true;
    }
    fn hover(&mut self, x: f32, y: f32) -> Option<Hover> {
        let u = self.node_at(x, y).filter(|_| x <= self.main_width());
        self.hovered = u;
        let u = u?;
        let (t, ui) = (&self.tree, u as usize);
        let mut lines = Vec::new();
        let title = if t.is_leaf(u) {
            let gi = grain_of_leaf(&self.analysis, t.node[ui]);
            let node = self.analysis.graph.node_name(t.node[ui]);
            if gi == NONE {
                node
            } else {
                lines.extend(self.source_line(gi));
                lines.push("J: show this grain in the Grain graph tab".to_string());
                format!("task {} ({node})", self.analysis.graph.grain_task[gi as usize])
            }
        } else {
            lines.extend(strength_words(&self.metrics, u));
            lines.push("click: its property window".to_string());
            let state = if self.view.is_open(u) { "opened" } else { "closed" };
            format!("{} group {u} ({state})", t.kind[ui].name().replace('_', "-"))
        };
        lines.extend(self.metric_lines(u));
        let c = &self.cam;
        let (x, y) = c.px(self.to.g.x[ui], self.to.g.y[ui]);
        let detail = self.node_json(u, x, y, self.view.w[ui] * c.scale, self.view.h[ui] * c.scale);
        Some(Hover { title, lines, detail })
    }
    fn clear_hover(&mut self) {
        self.hovered = None;
    }
    fn click(&mut self, x: f32, y: f32) -> bool {
        let acted = AggregatePane::click(self, x, y);
        if acted {
            self.intro = None;
            self.refresh_props();
        }
        acted
    }
    fn as_aggregate(&mut self) -> Option<&mut AggregatePane> {
        Some(self)
    }
    fn animating(&self) -> bool {
        self.progress().is_some()
    }
    fn legend(&self) -> Option<crate::scene::legend::Legend> {
        Some(crate::scene::legend::aggregate(&self.analysis, self.problem.map(|b| METRICS[b])))
    }
    fn scene(&self) -> Scene {
        let (mixed, cam) = self.current();
        let geom = mixed.as_ref().unwrap_or(&self.to.g);
        let bit_sev = self.problem.map(|b| (b, self.severity.as_slice()));
        let highlight = self.differ_left();
        let overlay = Overlay { problem: bit_sev, local_critical: &self.local, similar: &self.similar, highlight };
        let mut s = build_at(
            &self.analysis,
            &self.tree,
            &self.metrics,
            &self.view,
            geom,
            cam,
            self.width,
            self.height,
            overlay,
        );
        if let Some(u) = self.selected.filter(|&u| geom.x[u as usize].is_finite()) {
            let ui = u as usize;
            let (px, py) = cam.px(geom.x[ui], geom.y[ui]);
            let (w, h) = ((geom.w[ui] * cam.scale).max(4.0), (geom.h[ui] * cam.scale).max(4.0));
            s.rects.push(
                RectInstance::filled(px - 3.0, py - 3.0, w + 6.0, h + 6.0, 0)
                    .with_border(SELECTED, 2.5)
                    .with_shape(if self.view.is_open(u) { Shape::Rect } else { Shape::Rounded }),
            );
        }
        self.inset(&mut s, overlay);
        if let Some(text) = &self.intro {
            // At the bottom: the page's controls of this view float over its top-left corner.
            s.add_banner(false, text, rgba(0xe6, 0xee, 0xfb, 0xf0));
        }
        self.draw_compare(s, cam)
    }
    fn state(&self) -> Value {
        self.state_json()
    }
    fn brief(&self) -> Value {
        self.brief_json()
    }
    /// A permalink's state; one that does not fit this graph (a stale or edited link) is applied as far as
    /// it fits, never an error.
    fn restore(&mut self, s: &Value) {
        let _ = AggregatePane::restore(self, s);
        self.refresh_props();
    }

    fn options(&self) -> Value {
        let mut d = self.typed_options().describe();
        let problems = self.analysis.problems.iter().map(|p| (p.metric, p.count));
        set_choices(&mut d, "problem", problem_choices(problems));
        set_max(&mut d, "drill_depth", self.tree.height() as f64);
        d
    }
    fn configure(&mut self, key: &str, value: &str) -> Result<(), String> {
        let done = self.configure_step(key, value);
        self.refresh_props();
        done
    }
}

impl AggregatePane {
    fn configure_step(&mut self, key: &str, value: &str) -> Result<(), String> {
        let mut o = self.typed_options();
        o.parse(key, value).map_err(|e| e.to_string())?;
        match key {
            "method" => self.rebuild(o.method, self.problem),
            "problem" => self.rebuild(self.method, o.problem.and_then(|p| METRICS.iter().position(|m| *m == p))),
            "select" => {
                self.selected = if value.is_empty() { None } else { Some(self.group(value)?) };
            }
            "open" => {
                let u = self.group(value)?;
                self.selected = Some(u);
                self.navigate(|p| p.view.open_group(&p.tree, g_of(&p.analysis), u));
            }
            "close" => {
                // Closing a closed group or a leaf closes the group around it.
                let mut u = self.group(value)?;
                if !self.view.is_open(u) && self.tree.parent[u as usize] != NONE {
                    u = self.tree.parent[u as usize];
                }
                self.selected = Some(u);
                self.navigate(|p| p.view.close_group(&p.tree, g_of(&p.analysis), u));
            }
            "open_all_beneath" => {
                let u = self.group(value)?;
                self.navigate(|p| p.view.open_all_beneath(&p.tree, g_of(&p.analysis), u));
            }
            "drill_depth" => {
                let d = o.drill_depth;
                self.depth = d;
                self.navigate(|p| p.view.drill_to_depth(&p.tree, g_of(&p.analysis), d));
                self.drill_compare(Some(d));
            }
            "drill_critical" => {
                self.navigate(|p| p.view.drill_critical(&p.tree, g_of(&p.analysis), &p.metrics.on_critical));
                self.drill_compare(None);
            }
            "compare" if matches!(value, "off" | "") => self.leave_compare(),
            "filtered" => self.navigate(|p| p.set_filtered(o.filtered)),
            "local_critical" if matches!(value, "off" | "") => {
                self.local_of = None;
                self.local.clear();
            }
            "local_critical" => {
                let u = self.group(if value == "on" { "selected" } else { value })?;
                if !self.view.is_open(u) && !self.tree.is_leaf(u) {
                    self.navigate(|p| p.view.open_group(&p.tree, g_of(&p.analysis), u));
                }
                self.show_local_critical(u);
            }
            "similar" => {
                self.similar_on = o.similar;
                if self.similar_on {
                    self.mark_similar();
                } else {
                    self.similar.clear();
                }
            }
            "restore" => {
                let s: Value = serde_json::from_str(value).map_err(|e| format!("not a view state: {e}"))?;
                AggregatePane::restore(self, &s)?;
            }
            _ => return Err(format!("the aggregated view cannot {key} '{value}'")),
        }
        Ok(())
    }
}
