//! The grain graph as a scene: the structural view (fragments coloured by source location, forks and joins
//! in the prototype's seagreen and coral, edges coloured by type, the critical path in red) and one problem
//! view per metric (problematic grains coloured by severity, the rest dimmed). Only what the viewport shows
//! is emitted, at a level of detail bounded by the pixels: a node smaller than a pixel goes into the one
//! rect of its pixel (the most telling colour wins: critical path, then the worst severity), vertical runs of
//! such pixels of one colour merge into one rect, edge segments inside a pixel are dropped and those of
//! sub-pixel nodes are drawn once per pixel path. Nodes of a pixel or more, and critical-path edges, are
//! drawn exactly. In a problem view, problematic grains smaller than a pixel also keep a marker of
//! [`MARK_PX`] (the worst severity per marker cell, outlined), so they are findable at fit. Builds instance arrays from a layout; computes no metric and no position.

use super::palette::{categorical, CRITICAL, TEXT};
use super::{rgba, Align, Label, LineInstance, RectInstance, Rgba, Scene, Shape};
use crate::layouts::grains::GrainLayout;
use rustc_hash::FxHashSet;
use weft_analyses::grains::{EdgeKind, GrainAnalysis, NodeKind, ProblemView, NONE};

pub const FORK: Rgba = rgba(0x2e, 0x8b, 0x57, 0xff);
pub const JOIN: Rgba = rgba(0xff, 0x7f, 0x50, 0xff);
pub const START_END: Rgba = rgba(0xde, 0xb8, 0x87, 0xff);
pub const EDGE_PLAIN: Rgba = rgba(0x55, 0x5b, 0x66, 0xb0);
pub const DIMMED: Rgba = rgba(0xd8, 0xdb, 0xe0, 0xff);
pub const DIMMED_EDGE: Rgba = rgba(0xc8, 0xcc, 0xd2, 0x90);

/// What part of the layout (in its units) the canvas shows, and at what scale.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Viewport {
    /// Layout coordinates at the canvas's top-left corner.
    pub x0: f32,
    pub y0: f32,
    /// Canvas pixels per layout unit.
    pub scale: f32,
    pub width_px: f32,
    pub height_px: f32,
}

impl Viewport {
    /// The whole layout, centred, with a margin.
    pub fn fit(l: &GrainLayout, width_px: f32, height_px: f32) -> Viewport {
        let margin = 8.0;
        let sx = (width_px - 2.0 * margin) / l.width.max(1.0);
        let sy = (height_px - 2.0 * margin) / l.height.max(1.0);
        let scale = sx.min(sy).max(1e-6);
        let x0 = -(width_px / scale - l.width) / 2.0;
        let y0 = -(height_px / scale - l.height) / 2.0;
        Viewport { x0, y0, scale, width_px, height_px }
    }
    fn px(&self, x: f32, y: f32) -> (f32, f32) {
        ((x - self.x0) * self.scale, (y - self.y0) * self.scale)
    }
}

/// Which colouring of the fragments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColorBy {
    OutlineFunction,
    SourceLine,
    /// The core that ran the grain (`cpu_id`), as the prototype's linear colour map: R's `topo.colors` over
    /// the distinct cpu ids in ascending order.
    Cpu,
}

/// R's `topo.colors(n)[k]` (the grain-graphs prototype's colour maps): blue-violet through cyan and green to
/// yellow and pale yellow.
pub fn topo_color(k: usize, n: usize) -> Rgba {
    let n = n.max(1);
    let (j, kk) = (n / 3, n / 3);
    let i = n - j - kk;
    let seq = |from: f64, to: f64, len: usize, at: usize| {
        if len <= 1 {
            from
        } else {
            from + (to - from) * at as f64 / (len - 1) as f64
        }
    };
    let k = k.min(n - 1);
    let (h, s) = if k < i {
        (seq(43.0 / 60.0, 31.0 / 60.0, i, k), 1.0)
    } else if k < i + j {
        (seq(23.0 / 60.0, 11.0 / 60.0, j, k - i), 1.0)
    } else {
        (seq(10.0 / 60.0, 6.0 / 60.0, kk, k - i - j), seq(1.0, 0.3, kk, k - i - j))
    };
    hsv(h, s, 1.0)
}

/// R's `hsv` (h, s, v in [0, 1]) as opaque 8-bit colour.
fn hsv(h: f64, s: f64, v: f64) -> Rgba {
    let h6 = (h.rem_euclid(1.0)) * 6.0;
    let i = h6.floor();
    let f = h6 - i;
    let (p, q, t) = (v * (1.0 - s), v * (1.0 - s * f), v * (1.0 - s * (1.0 - f)));
    let (r, g, b) = match i as i32 {
        0 => (v, t, p),
        1 => (q, v, p),
        2 => (p, v, t),
        3 => (p, q, v),
        4 => (t, p, v),
        _ => (v, p, q),
    };
    let c = |x: f64| (x * 255.0).round().clamp(0.0, 255.0) as u8;
    rgba(c(r), c(g), c(b), 0xff)
}

/// The `cpu_id` colour of a cpu among the distinct ids `cpus` (ascending); grains without one are dimmed.
pub fn cpu_color(cpu: u32, cpus: &[u32]) -> Rgba {
    match cpus.binary_search(&cpu) {
        Ok(k) if cpu != NONE => topo_color(k, cpus.len()),
        _ => DIMMED,
    }
}

/// The structural view, or the problem view of one metric.
#[derive(Clone, Copy, Debug)]
pub enum View<'a> {
    Structure(ColorBy),
    Problem(&'a ProblemView),
}

/// Yellow (barely past the threshold) to dark red (far past it).
pub fn severity_color(s: f32) -> Rgba {
    let s = s.clamp(0.0, 1.0);
    let lerp = |a: u8, b: u8| (a as f32 + (b as f32 - a as f32) * s).round() as u8;
    rgba(lerp(0xff, 0xb7), lerp(0xd5, 0x1c), lerp(0x4f, 0x1c), 0xff)
}

pub fn edge_color(k: EdgeKind) -> Rgba {
    match k {
        EdgeKind::Create => FORK,
        EdgeKind::Sync => JOIN,
        EdgeKind::Scope | EdgeKind::Continue => EDGE_PLAIN,
    }
}

pub fn build(a: &GrainAnalysis, l: &GrainLayout, vp: &Viewport, view: View) -> Scene {
    build_lod(a, l, vp, view, true)
}

/// [`build`] with the layout's [`EdgeReach`] computed once (the page's pane keeps it): the same scene.
pub fn build_with(a: &GrainAnalysis, l: &GrainLayout, reach: &EdgeReach, vp: &Viewport, view: View) -> Scene {
    build_scene(a, l, Some(reach), vp, view, true)
}

/// Per edge, what decides from two numbers whether the level of detail drops every segment of it: the
/// scale below which the edge is merged (an end node narrower or lower than a pixel: 1 / the smaller
/// side of its ends) and its longest segment's larger side, layout units. Zoomed out, a merged edge whose
/// segments all fit inside a pixel draws nothing, and most edges of a large graph are such: checked with
/// two sequential reads instead of visiting its points and both end nodes (the fitted 131k-grain graph's
/// 786k segments, all but 2k of them inside a pixel).
pub struct EdgeReach {
    merge_below: Vec<f32>,
    extent: Vec<f32>,
}

impl EdgeReach {
    pub fn new(a: &GrainAnalysis, l: &GrainLayout) -> EdgeReach {
        let mut build = EdgeReachBuild::default();
        while !build.step(a, l, usize::MAX) {}
        build.finish()
    }

    /// Edge `e` at `scale` is merged and every segment of it is well inside a pixel (a margin for the
    /// rounding of the per-segment test it stands for).
    fn dropped(&self, e: usize, scale: f32) -> bool {
        scale < self.merge_below[e] && self.extent[e] * scale < 0.999
    }

    /// How many edges a frame at `scale` drops unvisited.
    pub fn dropped_edges(&self, scale: f32) -> usize {
        (0..self.extent.len()).filter(|&e| self.dropped(e, scale)).count()
    }
}

/// An [`EdgeReach`] computed a number of edges at a time ([`step`](Self::step)), so the page's load can
/// yield between the parts of a pass over every edge of a large graph.
#[derive(Default)]
pub struct EdgeReachBuild {
    merge_below: Vec<f32>,
    extent: Vec<f32>,
}

impl EdgeReachBuild {
    /// The next `edges` edges' reach: true once every edge has it.
    pub fn step(&mut self, a: &GrainAnalysis, l: &GrainLayout, edges: usize) -> bool {
        let g = &a.graph;
        let side = |v: u32| l.w[v as usize].min(l.h[v as usize]);
        let from = self.extent.len();
        let to = from.saturating_add(edges).min(g.edges());
        self.merge_below.extend((from..to).map(|e| 1.0 / side(g.edge_source[e]).min(side(g.edge_target[e]))));
        self.extent.extend((from..to).map(|e| {
            l.edge_points(e)
                .windows(2)
                .map(|w| (w[1][0] - w[0][0]).abs().max((w[1][1] - w[0][1]).abs()))
                .fold(0.0f32, f32::max)
        }));
        to == g.edges()
    }

    /// The edges computed so far.
    pub fn edges(&self) -> usize {
        self.extent.len()
    }

    /// The reach of every edge stepped.
    pub fn finish(self) -> EdgeReach {
        EdgeReach { merge_below: self.merge_below, extent: self.extent }
    }
}

/// The narrowest fragment or task of the layout, in layout units (None without any).
pub fn narrowest_grain(a: &GrainAnalysis, l: &GrainLayout) -> Option<f32> {
    let g = &a.graph;
    (0..g.nodes()).filter(|&v| g.node_kind[v].holds_work()).map(|v| l.w[v]).min_by(f32::total_cmp)
}

/// Whether the whole graph, fitted into `width_px` x `height_px`, draws its grains narrower than a pixel:
/// then they merge into a strip nobody can read, and the page opens the graph in the Aggregated view first.
pub fn unreadable_when_fitted(a: &GrainAnalysis, l: &GrainLayout, width_px: f32, height_px: f32) -> bool {
    let scale = Viewport::fit(l, width_px, height_px).scale;
    narrowest_grain(a, l).is_some_and(|w| w * scale < 1.0)
}

/// Why a graph opened in the Aggregated view, in words, for the view to show.
pub fn aggregated_first_text(grains: usize) -> String {
    format!(
        "{} grains are narrower than a pixel when the whole grain graph is fitted, so it opens aggregated: \
         click a group to open it. The Grain graph tab shows every grain.",
        weft_analyses::aggregate::query::thousands(grains as u64)
    )
}

/// A line over the fitted grain graph when its grains are narrower than a pixel: what the strip is and
/// where to read it. Decoration, drawn on a pale band at the top.
pub fn sub_pixel_hint(s: &mut Scene, grains: usize) {
    let text = format!(
        "{} grains, narrower than a pixel at this size: zoom in (wheel, W), or see them grouped in the Aggregated view.",
        weft_analyses::aggregate::query::thousands(grains as u64)
    );
    s.add_banner(true, &text, rgba(0xff, 0xf8, 0xe1, 0xf0));
}

/// Nodes smaller than a pixel, merged per pixel: per cell (column-major) the node drawn there, by rank (a
/// node wins its pixel over every node of lower rank, and over those of equal rank that came after it). One
/// `u64` per cell, `rank key << 32 | node + 1` (0: empty), in a buffer kept between frames: the fitted graph
/// of 131k grains touches most of a 1280x720 canvas, and two arrays allocated per frame cost more than the
/// nodes (see BENCHMARKS "The grain scene's per-frame pass").
struct Cells {
    width: usize,
    height: usize,
    cell: Vec<u64>,
}

thread_local! {
    /// The cells of the last frame, reused (cleared) by the next.
    static CELL_BUFFER: std::cell::RefCell<Vec<u64>> = const { std::cell::RefCell::new(Vec::new()) };
}

impl Cells {
    fn new(width_px: f32, height_px: f32) -> Cells {
        let (width, height) = (width_px.ceil().max(1.0) as usize, height_px.ceil().max(1.0) as usize);
        Cells { width, height, cell: Vec::new() }
    }
    /// Put node `v` into the pixel holding its centre, unless the pixel holds one of higher rank (`rank` in
    /// [0, 3]; a tie keeps the node put first).
    fn put(&mut self, cx: f32, cy: f32, rank: f32, v: usize) {
        if self.cell.is_empty() {
            self.cell = CELL_BUFFER.with(|b| std::mem::take(&mut *b.borrow_mut()));
            self.cell.clear();
            self.cell.resize(self.width * self.height, 0);
        }
        let (x, y) = (cx.floor(), cy.floor());
        if x < 0.0 || y < 0.0 || x >= self.width as f32 || y >= self.height as f32 {
            return;
        }
        let i = x as usize * self.height + y as usize;
        let key = ((rank.clamp(0.0, 3.0) * 1_000_000.0) as u64 + 1) << 32 | (v as u64 + 1);
        if key >> 32 > self.cell[i] >> 32 {
            self.cell[i] = key;
        }
    }
    /// One rect per vertical run of pixels of one colour (`color` of the node that won each pixel); the
    /// buffer goes back for the next frame.
    fn emit(mut self, out: &mut Vec<RectInstance>, color: impl Fn(usize) -> Rgba) {
        if self.cell.is_empty() {
            return;
        }
        for x in 0..self.width {
            let col = &self.cell[x * self.height..(x + 1) * self.height];
            let mut y = 0;
            while y < self.height {
                if col[y] == 0 {
                    y += 1;
                    continue;
                }
                let (c, y0) = (color((col[y] & 0xffff_ffff) as usize - 1), y);
                y += 1;
                while y < self.height && col[y] != 0 && color((col[y] & 0xffff_ffff) as usize - 1) == c {
                    y += 1;
                }
                out.push(RectInstance::filled(x as f32, y0 as f32, 1.0, (y - y0) as f32, c));
            }
        }
        let buffer = std::mem::take(&mut self.cell);
        CELL_BUFFER.with(|b| *b.borrow_mut() = buffer);
    }
}

/// A node's fill and shape in `view` (`problem`: the problem view shown, if any).
fn node_fill(a: &GrainAnalysis, v: usize, problem: Option<&ProblemView>, view: View) -> (Rgba, Shape) {
    let g = &a.graph;
    let grain = g.node_grain[v];
    match g.node_kind[v] {
        NodeKind::Fragment | NodeKind::Task => {
            let fill = match (problem, view) {
                (Some(p), _) => {
                    let gi = grain as usize;
                    if grain != NONE && p.problematic.get(gi).copied().unwrap_or(false) {
                        severity_color(p.severity[gi])
                    } else {
                        DIMMED
                    }
                }
                (None, View::Structure(ColorBy::Cpu)) if grain != NONE => {
                    cpu_color(g.grain_cpu[grain as usize], &a.cpu_ids)
                }
                (None, View::Structure(ColorBy::SourceLine)) if grain != NONE => {
                    categorical(g.string(g.grain_source[grain as usize]))
                }
                _ if grain != NONE => categorical(g.string(g.grain_outline[grain as usize])),
                _ => DIMMED,
            };
            (fill, Shape::Rounded)
        }
        NodeKind::Fork => (if problem.is_some() { DIMMED } else { FORK }, Shape::Ellipse),
        NodeKind::Join => (if problem.is_some() { DIMMED } else { JOIN }, Shape::Ellipse),
        NodeKind::Start | NodeKind::End => (START_END, Shape::Rect),
    }
}

/// The scene; `lod` false draws every visible node and edge segment as it is (the reference the level of
/// detail is tested against).
pub fn build_lod(a: &GrainAnalysis, l: &GrainLayout, vp: &Viewport, view: View, lod: bool) -> Scene {
    build_scene(a, l, None, vp, view, lod)
}

fn build_scene(
    a: &GrainAnalysis,
    l: &GrainLayout,
    reach: Option<&EdgeReach>,
    vp: &Viewport,
    view: View,
    lod: bool,
) -> Scene {
    let g = &a.graph;
    let mut s = Scene::new(vp.width_px, vp.height_px, super::palette::BACKGROUND);
    let (vx1, vy1) = (vp.x0 + vp.width_px / vp.scale, vp.y0 + vp.height_px / vp.scale);
    let visible = |x: f32, y: f32, w: f32, h: f32| x <= vx1 && x + w >= vp.x0 && y <= vy1 && y + h >= vp.y0;
    let problem = match view {
        View::Problem(p) => Some(p),
        View::Structure(_) => None,
    };
    let line_w = (1.0 * vp.scale).clamp(0.5, 2.0);
    let sub_pixel = |v: usize| lod && (l.w[v] * vp.scale < 1.0 || l.h[v] * vp.scale < 1.0);
    let mut drawn: FxHashSet<(i32, i32, i32, i32, Rgba)> = FxHashSet::default();
    for e in 0..g.edges() {
        let crit = a.critical.on_edge[e];
        if lod && !crit && reach.is_some_and(|r| r.dropped(e, vp.scale)) {
            continue;
        }
        let pts = l.edge_points(e);
        let merge = !crit && (sub_pixel(g.edge_source[e] as usize) || sub_pixel(g.edge_target[e] as usize));
        let color = match problem {
            Some(_) if !crit => DIMMED_EDGE,
            _ if crit => CRITICAL,
            _ => edge_color(g.edge_kind[e]),
        };
        for w in pts.windows(2) {
            let (x0, y0, x1, y1) = (w[0][0], w[0][1], w[1][0], w[1][1]);
            if !visible(x0.min(x1), y0.min(y1), (x1 - x0).abs(), (y1 - y0).abs()) {
                continue;
            }
            let (a0, b0) = vp.px(x0, y0);
            let (a1, b1) = vp.px(x1, y1);
            if merge {
                // Inside one pixel the node's pixel covers it; otherwise one line per pixel path and colour.
                if (a1 - a0).abs().max((b1 - b0).abs()) < 1.0 {
                    continue;
                }
                let key = (a0.floor() as i32, b0.floor() as i32, a1.floor() as i32, b1.floor() as i32, color);
                if !drawn.insert(key) {
                    continue;
                }
            }
            s.lines.push(LineInstance::solid(a0, b0, a1, b1, if crit { line_w * 1.5 } else { line_w }, color));
        }
    }
    let label_px = 10.0;
    let mut cells = Cells::new(vp.width_px, vp.height_px);
    // Problematic grains smaller than a pixel keep a marker of MARK_PX, the worst per marker cell, so a
    // fitted graph of any size still shows where they are (as the critical path's edges do).
    // A grid of MARK_PX cells (allocated on the first mark): the worst rank per cell, 0 for none.
    let (mark_cols, mark_rows) =
        ((vp.width_px / MARK_PX).ceil().max(1.0) as usize, (vp.height_px / MARK_PX).ceil().max(1.0) as usize);
    let mut marks: Vec<f32> = Vec::new();
    for v in 0..g.nodes() {
        let (x, y, w, h) = (l.x[v], l.y[v], l.w[v], l.h[v]);
        if !visible(x, y, w, h) {
            continue;
        }
        let kind = g.node_kind[v];
        let grain = g.node_grain[v];
        let (px, py) = vp.px(x, y);
        if sub_pixel(v) {
            let crit = a.critical.on_node[v] && problem.is_none();
            let rank = match problem {
                _ if crit => 3.0,
                Some(p) if grain != NONE && p.problematic.get(grain as usize).copied().unwrap_or(false) => {
                    1.0 + p.severity[grain as usize].clamp(0.0, 1.0)
                }
                _ => 0.0,
            };
            // The colour only for the node that wins the pixel, when the cells are emitted.
            let (cx, cy) = (px + w * vp.scale / 2.0, py + h * vp.scale / 2.0);
            cells.put(cx, cy, rank, v);
            let (mi, mj) = ((cx / MARK_PX).floor(), (cy / MARK_PX).floor());
            if problem.is_some() && rank >= 1.0 && mi >= 0.0 && mj >= 0.0 {
                let (mi, mj) = (mi as usize, mj as usize);
                if mi < mark_cols && mj < mark_rows {
                    if marks.is_empty() {
                        marks = vec![0.0; mark_cols * mark_rows];
                    }
                    let worst = &mut marks[mj * mark_cols + mi];
                    *worst = worst.max(rank);
                }
            }
            continue;
        }
        let (fill, shape) = node_fill(a, v, problem, view);
        let mut r =
            RectInstance::filled(px, py, (w * vp.scale).max(0.5), (h * vp.scale).max(0.5), fill).with_shape(shape);
        if a.critical.on_node[v] && problem.is_none() {
            r = r.with_border(CRITICAL, (0.8 * vp.scale).clamp(0.5, 2.0));
        }
        s.rects.push(r);
        // Task ids when there is room for them.
        if kind.holds_work() && w * vp.scale >= 28.0 && h * vp.scale >= label_px + 2.0 && grain != NONE {
            let text = g.node_name(v as u32);
            s.labels.push(
                Label::new(px + w * vp.scale / 2.0, py + h * vp.scale / 2.0, text, TEXT, label_px)
                    .aligned(Align::Center)
                    .clipped(w * vp.scale - 2.0),
            );
        }
    }
    cells.emit(&mut s.rects, |v| {
        if a.critical.on_node[v] && problem.is_none() {
            CRITICAL
        } else {
            node_fill(a, v, problem, view).0
        }
    });
    for (k, &rank) in marks.iter().enumerate().filter(|(_, &r)| r >= 1.0) {
        let (x, y) = ((k % mark_cols) as f32 * MARK_PX, (k / mark_cols) as f32 * MARK_PX);
        s.rects.push(
            RectInstance::filled(x, y, MARK_PX, MARK_PX, severity_color(rank - 1.0))
                .with_border(super::legend::PROBLEM_MARK_BORDER, 0.5),
        );
    }
    s
}

/// The side of the marker a problematic grain smaller than a pixel keeps, in CSS pixels.
pub const MARK_PX: f32 = 4.0;
