//! The aggregated grain graph as a scene. Closed groups are equal-size rounded rectangles labelled with what
//! they hold in words (grains, else grain-graph nodes, then immediate members, as much as fits); opened groups are pale rectangles around their members. In a
//! problem view a group's border is red when problematic and green when not, and its fill shows the worst
//! severity inside; in the structural view closed groups are pale yellow (the paper's unopened colour).
//! The global critical path is drawn red (edges and borders of members on it, in the structural view), a
//! group's local critical path orange; groups marked similar carry a glyph of their similarity class (a
//! shape and colour per class, with the class number where it fits; [`similar_mark`] is the legend's data),
//! highlighted groups (for instance a run's groups whose structure differs from the other run's) a thick
//! outline. Fast-forward edges of the filtered view are thick grey lines. Also cuts a scene to a box (each
//! half of two runs side by side) and out of a box (under the inset). Builds instances from a layout;
//! computes no metric.

use super::axis::label_width_px;
use super::grains::{severity_color, DIMMED, EDGE_PLAIN, FORK, JOIN, START_END};
use super::palette::{categorical, HIGHLIGHT, TEXT, TEXT_MUTED};
use super::{rgba, segment_range, Align, Label, LineInstance, RectInstance, Rgba, Scene, Shape};
use crate::layouts::aggregate::{AggregateView, Slot};
use weft_analyses::aggregate::query::group_labels;
use weft_analyses::aggregate::{AggregationTree, GroupMetrics};
use weft_analyses::grains::{GrainAnalysis, NONE};

pub const PROBLEM_BORDER: Rgba = rgba(0xd6, 0x27, 0x28, 0xff);
pub const QUIET_BORDER: Rgba = rgba(0x2c, 0xa0, 0x2c, 0xff);
pub const LOCAL_CRITICAL: Rgba = rgba(0xff, 0x8c, 0x00, 0xff);
pub const UNOPENED: Rgba = rgba(0xff, 0xf3, 0xb0, 0xff);
pub const OPENED: Rgba = rgba(0xfa, 0xfb, 0xfc, 0xff);
pub const OPENED_BORDER: Rgba = rgba(0xb8, 0xbe, 0xc6, 0xff);
pub const FAST_FORWARD: Rgba = rgba(0x7a, 0x82, 0x8c, 0xff);
pub const SIMILAR: Rgba = rgba(0x4e, 0x79, 0xa7, 0xff);

/// Similarity classes' colours (Okabe–Ito, colour-blind safe) and shapes. 7 colours and 4 shapes, coprime:
/// the first 28 classes each get their own pair.
const CLASS_COLORS: [Rgba; 7] = [
    SIMILAR,
    rgba(0xe6, 0x9f, 0x00, 0xff),
    rgba(0x00, 0x9e, 0x73, 0xff),
    rgba(0xcc, 0x79, 0xa7, 0xff),
    rgba(0x56, 0xb4, 0xe9, 0xff),
    rgba(0xd5, 0x5e, 0x00, 0xff),
    rgba(0x33, 0x33, 0x33, 0xff),
];
const CLASS_SHAPES: [(Shape, &str); 4] = [
    (Shape::Diamond, "diamond"),
    (Shape::Ellipse, "circle"),
    (Shape::TriangleUp, "triangle"),
    (Shape::TriangleDown, "triangle-down"),
];

/// The mark of similarity class `class` (0-based): its shape, the shape's name and its colour. The view
/// draws it on each closed group of the class; the legend lists it.
pub fn similar_mark(class: u32) -> (Shape, &'static str, Rgba) {
    let (shape, name) = CLASS_SHAPES[class as usize % CLASS_SHAPES.len()];
    (shape, name, CLASS_COLORS[class as usize % CLASS_COLORS.len()])
}

/// What to draw besides the structure.
#[derive(Clone, Copy, Debug, Default)]
pub struct Overlay<'a> {
    /// A problem view: bit index into the metrics' problem flags, and severity per tree node.
    pub problem: Option<(usize, &'a [f32])>,
    /// Tree nodes on the local critical path of the group being inspected.
    pub local_critical: &'a [u32],
    /// Tree nodes with the same structure as another visible group, with their similarity class.
    pub similar: &'a [(u32, u32)],
    /// Tree nodes to outline (e.g. structure differs from the other run).
    pub highlight: &'a [u32],
}

/// Layout units to canvas pixels: the whole layout fitted, centred, with a margin.
#[derive(Clone, Copy, Debug)]
pub struct Fit {
    pub x0: f32,
    pub y0: f32,
    pub scale: f32,
}

impl Fit {
    pub fn new(w: f32, h: f32, width_px: f32, height_px: f32) -> Fit {
        let margin = 8.0;
        let scale = ((width_px - 2.0 * margin) / w.max(1.0)).min((height_px - 2.0 * margin) / h.max(1.0)).max(1e-6);
        Fit { x0: -(width_px / scale - w) / 2.0, y0: -(height_px / scale - h) / 2.0, scale }
    }
    pub fn px(&self, x: f32, y: f32) -> (f32, f32) {
        ((x - self.x0) * self.scale, (y - self.y0) * self.scale)
    }
}

/// Where every tree node is drawn (layout units, absolute top-left and size; NaN where not visible): the
/// layout's own, or one interpolated between two layouts while the page animates an open or close.
#[derive(Clone, Debug, Default)]
pub struct Geometry {
    pub x: Vec<f32>,
    pub y: Vec<f32>,
    pub w: Vec<f32>,
    pub h: Vec<f32>,
}

impl Geometry {
    pub fn of(t: &AggregationTree, v: &AggregateView) -> Geometry {
        let (x, y) = v.positions(t);
        Geometry { x, y, w: v.w.clone(), h: v.h.clone() }
    }
}

pub fn build(
    a: &GrainAnalysis,
    t: &AggregationTree,
    m: &GroupMetrics,
    v: &AggregateView,
    width_px: f32,
    height_px: f32,
    overlay: Overlay,
) -> Scene {
    if t.is_empty() {
        return Scene::new(width_px, height_px, super::palette::BACKGROUND);
    }
    let fit = Fit::new(v.width(t), v.height(t), width_px, height_px);
    build_at(a, t, m, v, &Geometry::of(t, v), fit, width_px, height_px, overlay)
}

/// The scene through camera `fit` with nodes where `geom` puts them. Nodes wholly off screen are skipped,
/// and so are the members of an opened group smaller than a pixel (its envelope stands for them), so a
/// zoomed-out view of a fully opened graph stays bounded by the pixels.
#[allow(clippy::too_many_arguments)]
pub fn build_at(
    a: &GrainAnalysis,
    t: &AggregationTree,
    m: &GroupMetrics,
    v: &AggregateView,
    geom: &Geometry,
    fit: Fit,
    width_px: f32,
    height_px: f32,
    overlay: Overlay,
) -> Scene {
    let mut s = Scene::new(width_px, height_px, super::palette::BACKGROUND);
    if t.is_empty() {
        return s;
    }
    let (x, y) = (&geom.x, &geom.y);
    let sc = fit.scale;
    let border = (1.2 * sc).clamp(0.6, 2.5);
    let mark = |list: &[u32]| {
        let mut b = vec![false; t.len()];
        for &u in list {
            if let Some(x) = b.get_mut(u as usize) {
                *x = true;
            }
        }
        b
    };
    let (local, highlight) = (mark(overlay.local_critical), mark(overlay.highlight));
    let mut similar = vec![u32::MAX; if overlay.similar.is_empty() { 0 } else { t.len() }];
    for &(u, class) in overlay.similar {
        if let Some(c) = similar.get_mut(u as usize) {
            *c = class;
        }
    }
    let bad = |u: usize| overlay.problem.is_some_and(|(bit, _)| m.problems[u] >> bit & 1 == 1);
    let g = &a.graph;
    let visible = drawn(t, v, geom, &fit, width_px, height_px);
    // Boxes, parents first so envelopes lie under their members.
    for &u in &visible {
        let ui = u as usize;
        let (px, py) = fit.px(x[ui], y[ui]);
        let (w, h) = (geom.w[ui] * sc, geom.h[ui] * sc);
        let mut r;
        if t.is_leaf(u) {
            let node = t.node[ui];
            let gi = if node != NONE && g.node_kind[node as usize].holds_work() {
                g.node_grain[node as usize]
            } else {
                NONE
            };
            let fill = match overlay.problem {
                Some((_, sev)) if bad(ui) => severity_color(sev[ui]),
                Some(_) => DIMMED,
                None if gi != NONE => categorical(g.string(g.grain_outline[gi as usize])),
                None => START_END,
            };
            let shape = if gi != NONE { Shape::Rounded } else { Shape::Ellipse };
            r = RectInstance::filled(px, py, w, h, fill).with_shape(shape);
            if m.on_critical[ui] && overlay.problem.is_none() {
                r = r.with_border(PROBLEM_BORDER, border);
            }
        } else {
            let opened = v.is_open(u);
            let fill = match overlay.problem {
                _ if opened => OPENED,
                Some((_, sev)) if bad(ui) => severity_color(sev[ui]),
                Some(_) => rgba(0xf0, 0xf7, 0xf0, 0xff),
                None => UNOPENED,
            };
            let edge = match overlay.problem {
                Some(_) if bad(ui) => PROBLEM_BORDER,
                Some(_) => QUIET_BORDER,
                None if m.on_critical[ui] => PROBLEM_BORDER,
                None if opened => OPENED_BORDER,
                None => QUIET_BORDER,
            };
            // Envelopes of opened groups are plain rectangles: a rounded corner scaled to a large box would
            // swallow its members' corners.
            let shape = if opened { Shape::Rect } else { Shape::Rounded };
            r = RectInstance::filled(px, py, w, h, fill).with_shape(shape).with_border(edge, border);
        }
        if local[ui] {
            r = r.with_border(LOCAL_CRITICAL, border * 1.6);
        }
        if highlight[ui] {
            let shape = if v.is_open(u) { Shape::Rect } else { Shape::Rounded };
            s.rects.push(
                RectInstance::filled(px - 3.0, py - 3.0, w + 6.0, h + 6.0, rgba(0, 0, 0, 0))
                    .with_shape(shape)
                    .with_border(HIGHLIGHT, border * 2.0),
            );
        }
        s.rects.push(r);
        if let Some(&class) = similar.get(ui).filter(|&&c| c != u32::MAX) {
            let d = (7.0 * sc).clamp(6.0, 11.0);
            let (shape, _, color) = similar_mark(class);
            s.rects.push(RectInstance::filled(px + w - d - 2.0, py + 2.0, d, d, color).with_shape(shape));
            if w >= 40.0 && h >= 14.0 {
                let n = format!("{}", class + 1);
                s.labels.push(Label::new(px + w - d - 4.0, py + 2.0 + d / 2.0, n, color, 9.0).aligned(Align::Right));
            }
        }
        if !t.is_leaf(u) && !v.is_open(u) && w >= 24.0 && h >= 10.0 {
            // White on the darker severities, where black would not read.
            let ink = match overlay.problem {
                Some((_, sev)) if bad(ui) && sev[ui] > 0.45 => rgba(0xff, 0xff, 0xff, 0xff),
                _ => TEXT,
            };
            let size = (h * 0.45).min(12.0);
            if let Some(text) = group_labels(m, u).into_iter().find(|l| label_width_px(l, size) <= w - 4.0) {
                s.labels.push(Label::new(px + w / 2.0, py + h / 2.0, text, ink, size).aligned(Align::Center));
            }
        }
    }
    // Edges inside each opened group, and its fork and join knots.
    let line_w = (1.0 * sc).clamp(0.5, 2.0);
    let ff_w = (4.0 * sc).clamp(2.0, 6.0);
    let p = &v.params;
    for &u in &visible {
        let ui = u as usize;
        if !v.is_open(u) || (geom.w[ui] * sc < 1.0 && geom.h[ui] * sc < 1.0) {
            continue;
        }
        let (gx, gy) = (x[ui], y[ui]);
        let boxes: Vec<(f32, f32, f32, f32, Option<u32>, bool)> = v
            .slots_of(u)
            .iter()
            .map(|sl| match *sl {
                Slot::Member(c) => {
                    let ci = c as usize;
                    (x[ci], y[ci], geom.w[ci], geom.h[ci], Some(c), false)
                }
                Slot::FastForward { x: fx, y: fy, w, h, .. } => (gx + fx, gy + fy, w, h, None, true),
            })
            .collect();
        let crit = |c: Option<u32>| c.is_some_and(|c| m.on_critical[c as usize]);
        let color = |c: Option<u32>| if crit(c) { PROBLEM_BORDER } else { EDGE_PLAIN };
        let line = |s: &mut Scene, x0: f32, y0: f32, x1: f32, y1: f32, w: f32, c: Rgba| {
            let (a0, b0) = fit.px(x0, y0);
            let (a1, b1) = fit.px(x1, y1);
            s.lines.push(LineInstance::solid(a0, b0, a1, b1, w, c));
        };
        for b in &boxes {
            if b.5 {
                let cx = b.0 + b.2 / 2.0;
                line(&mut s, cx, b.1, cx, b.1 + b.3, ff_w, FAST_FORWARD);
            }
        }
        if t.kind[ui].is_series() {
            for w in boxes.windows(2) {
                let (a, b) = (w[0], w[1]);
                let c = if crit(a.4) && crit(b.4) { PROBLEM_BORDER } else { EDGE_PLAIN };
                line(&mut s, a.0 + a.2 / 2.0, a.1 + a.3, b.0 + b.2 / 2.0, b.1, line_w, c);
            }
        } else {
            let cx = gx + geom.w[ui] / 2.0;
            let top = gy + p.pad;
            let bottom = gy + geom.h[ui] - p.pad - p.knot;
            for b in &boxes {
                let c = color(b.4);
                let bx = b.0 + b.2 / 2.0;
                line(&mut s, cx, top + p.knot, bx, b.1, line_w, c);
                line(&mut s, bx, b.1 + b.3, cx, bottom, line_w, c);
            }
            for (yk, has, fill) in [(top, t.fork[ui] != NONE, FORK), (bottom, t.join[ui] != NONE, JOIN)] {
                let (kx, ky) = fit.px(cx - p.knot / 2.0, yk);
                let fill = if has { fill } else { TEXT_MUTED };
                s.rects.push(RectInstance::filled(kx, ky, p.knot * sc, p.knot * sc, fill).with_shape(Shape::Ellipse));
            }
        }
    }
    s
}

/// Visible nodes worth drawing, parents first: on screen, and not inside an opened group smaller than a
/// pixel. Members of a group lie inside its envelope, so an off-screen or sub-pixel group prunes its subtree.
fn drawn(
    t: &AggregationTree,
    v: &AggregateView,
    geom: &Geometry,
    fit: &Fit,
    width_px: f32,
    height_px: f32,
) -> Vec<u32> {
    let mut out = Vec::new();
    let mut stack = vec![t.root];
    while let Some(u) = stack.pop() {
        let ui = u as usize;
        let (px, py) = fit.px(geom.x[ui], geom.y[ui]);
        let (w, h) = (geom.w[ui] * fit.scale, geom.h[ui] * fit.scale);
        if !(px <= width_px && py <= height_px && px + w >= 0.0 && py + h >= 0.0) {
            continue;
        }
        out.push(u);
        if v.is_open(u) && (w >= 1.0 || h >= 1.0) {
            for sl in v.slots_of(u).iter().rev() {
                if let Slot::Member(c) = *sl {
                    stack.push(c);
                }
            }
        }
    }
    out
}

/// Keep of `s`, from the given counts of rects, lines and labels on, only what lies inside the box
/// (x0, y0)–(x1, y1): rects cut to it (a cut rounded rect becomes square at the cut; other shapes that do not
/// fit whole are dropped), lines clipped, labels whose anchor lies outside dropped.
pub fn clip_from(s: &mut Scene, from: (usize, usize, usize), [x0, y0, x1, y1]: [f32; 4]) {
    let (r0, l0, t0) = from;
    let mut rects = s.rects.split_off(r0.min(s.rects.len()));
    rects.retain_mut(|r| {
        let (a, b) = (r.x.max(x0), r.y.max(y0));
        let (c, d) = ((r.x + r.w).min(x1), (r.y + r.h).min(y1));
        if c <= a || d <= b {
            return false;
        }
        let cut = a > r.x || b > r.y || c < r.x + r.w || d < r.y + r.h;
        if cut {
            match r.shape {
                x if x == Shape::Rect as u32 => {}
                x if x == Shape::Rounded as u32 => r.shape = Shape::Rect as u32,
                _ => return false,
            }
            (r.x, r.y, r.w, r.h) = (a, b, c - a, d - b);
        }
        true
    });
    s.rects.extend(rects);
    let mut lines = s.lines.split_off(l0.min(s.lines.len()));
    lines.retain_mut(|l| match clip_segment((l.x0, l.y0, l.x1, l.y1), [x0, y0, x1, y1]) {
        Some((a, b, c, d)) => {
            (l.x0, l.y0, l.x1, l.y1) = (a, b, c, d);
            true
        }
        None => false,
    });
    s.lines.extend(lines);
    let keep = |t: &Label| t.x >= x0 && t.x <= x1 && t.y >= y0 && t.y <= y1;
    let mut labels = s.labels.split_off(t0.min(s.labels.len()));
    labels.retain(keep);
    s.labels.extend(labels);
}

/// Remove from `s` what would be drawn over the box (x0, y0)–(x1, y1) after the rects laid there next: lines
/// lose their part inside it, labels that reach into it go. (Rects need nothing: the renderer draws every
/// rect before any line, in order, so a box pushed later covers them.)
pub fn cut_out(s: &mut Scene, [x0, y0, x1, y1]: [f32; 4]) {
    let mut out = Vec::with_capacity(s.lines.len());
    for l in s.lines.drain(..) {
        let seg = (l.x0, l.y0, l.x1, l.y1);
        if clip_segment(seg, [x0, y0, x1, y1]).is_none() {
            out.push(l);
            continue;
        }
        // The parts before and after the box: the segment's parameter range outside it.
        let (dx, dy) = (l.x1 - l.x0, l.y1 - l.y0);
        let (t_in, t_out) = segment_range(seg, [x0, y0, x1, y1]).unwrap_or((0.0, 1.0));
        for (a, b) in [(0.0, t_in), (t_out, 1.0)] {
            if b - a > 1e-4 {
                let mut p = l;
                (p.x0, p.y0, p.x1, p.y1) = (l.x0 + dx * a, l.y0 + dy * a, l.x0 + dx * b, l.y0 + dy * b);
                out.push(p);
            }
        }
    }
    s.lines = out;
    s.labels.retain(|t| {
        let w = label_width_px(&t.text, t.size_px);
        let left = match t.align {
            Align::Left => t.x,
            Align::Center => t.x - w / 2.0,
            Align::Right => t.x - w,
        };
        let (top, bottom) = (t.y - t.size_px, t.y + t.size_px);
        left > x1 || left + w < x0 || bottom < y0 || top > y1
    });
}

/// The part of a segment inside the box; None when none is.
pub fn clip_segment(seg: (f32, f32, f32, f32), b: [f32; 4]) -> Option<(f32, f32, f32, f32)> {
    let (t0, t1) = segment_range(seg, b)?;
    let (ax, ay, bx, by) = seg;
    let (dx, dy) = (bx - ax, by - ay);
    Some((ax + dx * t0, ay + dy * t0, ax + dx * t1, ay + dy * t1))
}
