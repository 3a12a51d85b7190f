//! The execution graph's scene for one viewport: flow edges vertical and solid (idle time dashed),
//! structural edges horizontal with a vertical extension in the subthread's column where it waits (to start
//! after its fork, or to be joined after its end), the node types in distinct shapes, the critical path in
//! [`palette::CRITICAL`], a time axis in real units and column labels when columns are wide enough; with
//! several host nodes (OTF2 ranks), each host's block of columns separated and named in the header.
//!
//! Culled to the viewport: only visible columns produce instances (structural edges are tested in one cheap
//! pass), and node shapes only where columns are wide enough to show them, so 100,000 threads stay cheap.
//! No layout decisions here: positions come from `layouts::execgraph`.

use super::{palette, rgba, Align, Label, LineInstance, RectInstance, Rgba, Scene, Shape};
use crate::layouts::execgraph::{ExecLayout, Scale};
use weft_analyses::execgraph::{ExecGraph, NodeKind, ThreadIx, NONE};
use weft_model::sort::SortDyn;

/// What part of the drawing is on screen, and how big.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ExecView {
    pub width: f32,
    pub height: f32,
    /// Room for the time axis (left) and column labels (top).
    pub axis_px: f32,
    pub header_px: f32,
    pub column_px: f32,
    /// Horizontal scroll: the x of column 0's left edge relative to the plot's left edge.
    pub scroll_x_px: f32,
    /// Drawing time at the plot's top edge, and the zoom.
    pub top_ns: f64,
    pub ns_per_px: f64,
    /// The thread under the pointer, highlighted.
    pub hover: Option<ThreadIx>,
    /// The most lanes of guests (tasks drawn inside their thread's column) a column has: 0 for none.
    pub lanes: u16,
}

impl ExecView {
    /// The whole drawing in a `width` x `height` canvas. With a minimum edge length (not to scale), at
    /// least so tall that the shortest edge clears the node shapes ([`node_px`] and a 2-pixel gap): the
    /// drawing then scrolls rather than overlap its nodes.
    pub fn fit(_g: &ExecGraph, l: &ExecLayout, width: f32, height: f32) -> Self {
        let (axis_px, header_px) = (72.0, 28.0);
        let plot_w = (width - axis_px - 8.0).max(1.0);
        let plot_h = (height - header_px - 12.0).max(1.0);
        let lanes = l.max_lane();
        // A column holding tasks is wider: room for its lanes.
        let column_px = (plot_w / l.columns.max(1) as f32).min(48.0 + 8.0 * lanes as f32);
        let mut ns_per_px = (l.height_ns.max(1) as f64 / plot_h as f64).max(1e-6);
        if let Scale::MinEdge { min_ns } = l.scale {
            let node = node_px(column_px);
            if node >= MIN_NODE_PX && min_ns > 0 {
                ns_per_px = ns_per_px.min(min_ns as f64 / (node + 2.0) as f64).max(1e-6);
            }
        }
        ExecView {
            width,
            height,
            axis_px,
            header_px,
            column_px,
            scroll_x_px: 0.0,
            top_ns: 0.0,
            ns_per_px,
            hover: None,
            lanes,
        }
    }

    pub fn x_of_column(&self, c: u32) -> f32 {
        self.axis_px + self.scroll_x_px + (c as f32 + 0.5) * self.column_px
    }

    /// The x of thread `t`'s line: its column's centre, or, in a column with guests, the column's own thread
    /// left of the centre and each guest (a task) in its lane to the right.
    pub fn x_of_thread(&self, l: &ExecLayout, t: ThreadIx) -> f32 {
        let x = self.x_of_column(l.column[t as usize]);
        if self.lanes == 0 {
            return x;
        }
        let step = (self.column_px * 0.75 / self.lanes as f32).min(8.0);
        let lane = l.lane.get(t as usize).copied().unwrap_or(0);
        x - step * self.lanes as f32 / 2.0 + lane as f32 * step
    }

    pub fn y_of(&self, ns: u64) -> f32 {
        self.header_px + ((ns as f64 - self.top_ns) / self.ns_per_px) as f32
    }

    /// Columns at least partly on screen.
    pub fn visible_columns(&self, columns: u32) -> std::ops::Range<u32> {
        let plot_w = self.width - self.axis_px;
        let first = ((-self.scroll_x_px) / self.column_px).floor().max(0.0);
        let last = ((plot_w - self.scroll_x_px) / self.column_px).ceil().max(0.0);
        (first.min(columns as f32) as u32)..(last.min(columns as f32) as u32)
    }
}

pub(crate) const STRUCTURAL: Rgba = rgba(0x8a, 0x93, 0x9e, 0xff);
pub(crate) const NODE_FILL: Rgba = rgba(0xff, 0xff, 0xff, 0xff);
pub(crate) const IDLE: Rgba = rgba(0x9a, 0x9a, 0x9a, 0xff);
/// A b-join's fill (the thread waits); `scene::legend` names it.
pub(crate) const JOIN_WAIT_FILL: Rgba = rgba(0xff, 0xe0, 0x8a, 0xff);

/// The size of a node's shape in columns `column_px` wide; shapes are drawn from [`MIN_NODE_PX`].
pub fn node_px(column_px: f32) -> f32 {
    (column_px * 0.6).min(11.0)
}
pub const MIN_NODE_PX: f32 = 3.0;

pub(crate) fn shape_of(kind: NodeKind) -> Shape {
    match kind {
        NodeKind::Start => Shape::TriangleDown,
        NodeKind::End => Shape::TriangleUp,
        NodeKind::Fork => Shape::Ellipse,
        NodeKind::JoinBegin => Shape::Diamond,
        NodeKind::JoinEnd => Shape::Rect,
        NodeKind::Join => Shape::Rounded,
    }
}

/// A duration in the largest unit that keeps it at or above one.
pub fn format_ns(ns: f64) -> String {
    if ns == 0.0 {
        return "0".into();
    }
    let a = ns.abs();
    let (v, unit) = if a >= 1e9 {
        (ns / 1e9, "s")
    } else if a >= 1e6 {
        (ns / 1e6, "ms")
    } else if a >= 1e3 {
        (ns / 1e3, "us")
    } else {
        (ns, "ns")
    };
    let s = format!("{v:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    format!("{s} {unit}")
}

/// Tick spacing: 1, 2 or 5 times a power of ten nanoseconds, about `px` pixels apart.
pub fn tick_step_ns(ns_per_px: f64, px: f64) -> f64 {
    let raw = (ns_per_px * px).max(1.0);
    let p = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0].into_iter().map(|m| m * p).find(|&s| s >= raw).unwrap_or(10.0 * p)
}

/// The hover text of a thread: its run time and share of all run time.
pub fn describe(g: &ExecGraph, t: ThreadIx) -> String {
    let th = &g.threads[t as usize];
    format!(
        "thread {} (node {}): run time {}, {:.1}% of the total",
        g.label(t),
        th.host,
        super::number::format(th.run_ns as f64, super::number::Unit::Ns),
        100.0 * g.share(t)
    )
}

/// The thread whose column is at (x, y), within its drawn span.
pub fn pick(l: &ExecLayout, view: &ExecView, x: f32, y: f32) -> Option<ThreadIx> {
    let c = ((x - view.axis_px - view.scroll_x_px) / view.column_px).floor();
    if c < 0.0 || c >= l.columns as f32 {
        return None;
    }
    // Of the threads drawn in the column (its own and its tasks), the nearest whose span holds y.
    let slack = 4.0;
    l.threads_in_column(c as u32)
        .filter(|&t| y >= view.y_of(l.top_ns[t as usize]) - slack && y <= view.y_of(l.bottom_ns[t as usize]) + slack)
        .min_by(|&a, &b| (view.x_of_thread(l, a) - x).abs().total_cmp(&(view.x_of_thread(l, b) - x).abs()))
}

/// Build the scene for `view`.
pub fn scene(g: &ExecGraph, l: &ExecLayout, view: &ExecView) -> Scene {
    let mut sc = Scene::new(view.width, view.height, palette::BACKGROUND);
    let (plot_top, plot_bottom) = (view.header_px, view.height);
    let y_visible = |a: f32, b: f32| b >= plot_top - 8.0 && a <= plot_bottom + 8.0;
    sc.decorate(|sc| axis(sc, view, g, l));

    let cols = view.visible_columns(l.columns);
    let col_x0 = view.axis_px + view.scroll_x_px;
    let in_view_x = |x0: f32, x1: f32| x1 >= view.axis_px && x0 <= view.width;
    let lw = if view.column_px >= 6.0 { 1.5 } else { 1.0 };
    let node_px = node_px(view.column_px);
    let draw_nodes = node_px >= MIN_NODE_PX;

    if let Some(h) = view.hover {
        let x = col_x0 + l.column[h as usize] as f32 * view.column_px;
        sc.rects.push(RectInstance::filled(
            x,
            plot_top,
            view.column_px.max(1.0),
            plot_bottom - plot_top,
            palette::ROW_ALT,
        ));
    }

    // Structural edges: any may cross the visible columns, so every one is tested (no instance unless seen).
    // Per pixel row, the span already covered by a drawn horizontal: one hidden under it adds nothing.
    let mut covered: Vec<(f32, f32)> = vec![(f32::MAX, f32::MIN); view.height.clamp(0.0, 65_536.0) as usize + 1];
    for (t, th) in g.threads.iter().enumerate() {
        for (node, own) in [(th.fork_node, th.start()), (th.join_node, th.end())] {
            if node == NONE {
                continue;
            }
            let owner = g.nodes[node as usize].thread as usize;
            let (xa, xb) = (view.x_of_thread(l, owner as ThreadIx), view.x_of_thread(l, t as ThreadIx));
            let y = view.y_of(l.y_ns[node as usize]);
            let crit = g.critical[node as usize] && g.critical[own as usize] && {
                // The edge is on the path when the later of its two ends is reached through it.
                let later = if node == th.fork_node { own } else { node };
                g.critical_via_partner[later as usize]
            };
            let color = if crit { palette::CRITICAL } else { STRUCTURAL };
            let width = if crit { 2.0 } else { 1.0 };
            // Below a pixel a column, an edge within one pixel column is hidden by the columns' lines.
            let too_short = view.column_px < 1.0 && !crit && (xa - xb).abs() < 1.0;
            if !too_short && in_view_x(xa.min(xb), xa.max(xb)) && y_visible(y, y) {
                let (x0, x1) = (xa.min(xb).max(view.axis_px), xa.max(xb).min(view.width));
                let row = covered.get_mut(y.max(0.0) as usize);
                let hidden = !crit && row.as_ref().is_some_and(|r| r.0 <= x0 && x1 <= r.1);
                if !hidden {
                    if let Some(r) = row {
                        // Keep the covered span contiguous: grow it on overlap, else start from this line.
                        *r = if x0 <= r.1 && r.0 <= x1 { (r.0.min(x0), r.1.max(x1)) } else { (x0, x1) };
                    }
                    sc.lines.push(LineInstance::solid(xa, y, xb, y, width, color));
                }
            }
            // The vertical extension in the subthread's column: waiting to start, or to be joined.
            let y_own = view.y_of(l.y_ns[own as usize]);
            // Below a pixel a column the thread's line covers its whole span instead (see below).
            let sub_pixel_hidden = view.column_px < 1.0 && !crit;
            if !sub_pixel_hidden
                && (y_own - y).abs() > 0.25
                && in_view_x(xb, xb)
                && y_visible(y.min(y_own), y.max(y_own))
            {
                sc.lines.push(LineInstance::solid(xb, y.min(y_own), xb, y.max(y_own), width, color).dashed(3.0));
            }
        }
    }

    // Flow edges and nodes of the visible columns. Below a pixel a column, the threads that share a pixel
    // column are drawn as one line per thread, and not at all where earlier ones already cover their span.
    let sub_pixel = view.column_px < 1.0;
    let mut pixel_x = f32::NAN;
    let mut pixel_spans: Vec<(f32, f32)> = Vec::new();
    for t in cols.clone().flat_map(|c| l.threads_in_column(c)) {
        let th = &g.threads[t as usize];
        let x = view.x_of_thread(l, t);
        let on_path = g.critical[th.start() as usize] || g.critical[th.end() as usize];
        if sub_pixel && !on_path {
            let (ys, ye) = (view.y_of(l.top_ns[t as usize]), view.y_of(l.bottom_ns[t as usize]));
            if x.floor() != pixel_x.floor() {
                flush_pixel_column(&mut sc, pixel_x, &mut pixel_spans, lw);
                pixel_x = x;
            }
            if y_visible(ys, ye) {
                pixel_spans.push((ys, ye));
            }
            continue;
        }
        // Consecutive edges drawn alike become one line (a thread that forks thousands of subthreads).
        let mut run: Option<LineInstance> = None;
        for n in th.first_node + 1..=th.end() {
            let (ya, yb) = (view.y_of(l.y_ns[n as usize - 1]), view.y_of(l.y_ns[n as usize]));
            if !y_visible(ya, yb) {
                continue;
            }
            let crit = g.critical[n as usize] && !g.critical_via_partner[n as usize] && g.critical[n as usize - 1];
            let idle = g.idle_into(n);
            let color = if crit {
                palette::CRITICAL
            } else if idle {
                IDLE
            } else {
                palette::FLOW
            };
            let line = LineInstance::solid(x, ya, x, yb, if crit { lw + 1.0 } else { lw }, color);
            let line = if idle { line.dashed(6.0) } else { line };
            run = match run {
                Some(r) if r.color == line.color && r.dash_px == line.dash_px && r.y1 == line.y0 => {
                    Some(LineInstance { y1: line.y1, ..r })
                }
                Some(r) => {
                    sc.lines.push(r);
                    Some(line)
                }
                None => Some(line),
            };
        }
        if let Some(r) = run {
            sc.lines.push(r);
        }
        if draw_nodes {
            let mut last_y = f32::NEG_INFINITY;
            for n in th.nodes() {
                let node = g.nodes[n];
                let y = view.y_of(l.y_ns[n]);
                // Nodes less than a pixel below the last one drawn would only repaint it.
                if !y_visible(y, y) || y - last_y < 1.0 {
                    continue;
                }
                last_y = y;
                let border = if g.critical[n] { palette::CRITICAL } else { palette::TEXT };
                let fill = if node.kind == NodeKind::JoinBegin { JOIN_WAIT_FILL } else { NODE_FILL };
                sc.rects.push(
                    RectInstance::filled(x - node_px / 2.0, y - node_px / 2.0, node_px, node_px, fill)
                        .with_border(border, 1.0)
                        .with_shape(shape_of(node.kind)),
                );
            }
        }
    }

    flush_pixel_column(&mut sc, pixel_x, &mut pixel_spans, lw);

    // Host (rank) blocks, when the graph has several hosts: a separator before each block's first column and
    // the host's name over the block (at the plot's left edge for a block that started off screen).
    let hosts = l.thread_at.first().is_some_and(|&t0| {
        let h0 = g.threads[t0 as usize].host;
        g.threads.iter().any(|t| t.host != h0)
    });
    if hosts {
        let host_of = |c: u32| g.threads[l.thread_at[c as usize] as usize].host;
        for c in cols.clone() {
            let first = c == 0 || host_of(c - 1) != host_of(c);
            if !(first || c == cols.start) {
                continue;
            }
            let x = col_x0 + c as f32 * view.column_px;
            if first && c > 0 {
                sc.decorate(|sc| {
                    sc.lines.push(LineInstance::solid(x, 0.0, x, plot_bottom, 1.0, palette::TEXT_MUTED).dashed(4.0))
                });
            }
            let lx = x.max(view.axis_px) + 3.0;
            sc.labels.push(Label::new(lx, 7.0, format!("rank {}", host_of(c)), palette::TEXT, 9.0).bold());
        }
    }
    // Column labels, when they fit (below the rank names when there are ranks).
    if view.column_px >= 26.0 {
        let y = if hosts { view.header_px / 2.0 + 6.0 } else { view.header_px / 2.0 };
        for c in cols {
            let t = l.thread_at[c as usize];
            let x = view.x_of_column(c);
            let text = g.short_label(t);
            sc.labels.push(
                Label::new(x, y, text, palette::TEXT_MUTED, 10.0).aligned(Align::Center).clipped(view.column_px - 2.0),
            );
        }
    }
    if let Some(h) = view.hover {
        let x = view.x_of_thread(l, h);
        sc.labels.push(Label::new(x + 8.0, plot_top + 12.0, describe(g, h), palette::TEXT, 12.0).bold());
    }
    sc
}

/// The threads sharing one pixel column, drawn as the union of their spans: one line per disjoint piece.
fn flush_pixel_column(sc: &mut Scene, x: f32, spans: &mut Vec<(f32, f32)>, width: f32) {
    spans.sort_dyn_by(|a, b| a.0.total_cmp(&b.0));
    let mut current: Option<(f32, f32)> = None;
    for &(a, b) in spans.iter() {
        current = match current {
            Some((ca, cb)) if a <= cb + 1.0 => Some((ca, cb.max(b))),
            Some((ca, cb)) => {
                sc.lines.push(LineInstance::solid(x, ca, x, cb, width, palette::FLOW));
                Some((a, b))
            }
            None => Some((a, b)),
        };
    }
    if let Some((ca, cb)) = current {
        sc.lines.push(LineInstance::solid(x, ca, x, cb, width, palette::FLOW));
    }
    spans.clear();
}

/// Grid lines and tick labels of the time axis. In true scale a line's label is its time. With a minimum
/// edge length the drawing is not to scale (its y is stretched where edges were raised to the minimum): a
/// line is labelled with the true time of the latest event drawn above it, marked "≤", and the axis says so,
/// rather than claiming a time the drawing does not keep.
fn axis(sc: &mut Scene, view: &ExecView, g: &ExecGraph, l: &ExecLayout) {
    let step = tick_step_ns(view.ns_per_px, 60.0);
    let first = (view.top_ns / step).ceil().max(0.0) * step;
    let last = view.top_ns + (view.height - view.header_px) as f64 * view.ns_per_px;
    let mut ticks = Vec::new();
    let mut t = first;
    while t <= last.min(l.height_ns as f64 + step) && ticks.len() < 1000 {
        ticks.push(t);
        t += step;
    }
    let labels: Vec<String> = match l.scale {
        Scale::True => ticks.iter().map(|&t| format_ns(t)).collect(),
        Scale::MinEdge { .. } => {
            // The latest true time over the nodes drawn at or above each line: one pass over the nodes.
            let mut latest: Vec<Option<u64>> = vec![None; ticks.len()];
            for (node, &y) in g.nodes.iter().zip(&l.y_ns) {
                let i = ticks.partition_point(|&t| t < y as f64);
                if let Some(m) = latest.get_mut(i) {
                    *m = Some(m.map_or(node.time_ns, |m| m.max(node.time_ns)));
                }
            }
            let mut run: Option<u64> = None;
            latest
                .iter()
                .map(|m| {
                    run = run.max(*m);
                    run.map_or_else(String::new, |t| format!("≤ {}", format_ns(t as f64)))
                })
                .collect()
        }
    };
    for (&t, label) in ticks.iter().zip(labels) {
        let y = view.header_px + ((t - view.top_ns) / view.ns_per_px) as f32;
        sc.lines.push(LineInstance::solid(view.axis_px, y, view.width, y, 1.0, palette::GRID));
        sc.labels.push(Label::new(view.axis_px - 6.0, y, label, palette::TEXT_MUTED, 10.0).aligned(Align::Right));
    }
    if let Scale::MinEdge { .. } = l.scale {
        sc.labels.push(
            Label::new(view.axis_px - 6.0, view.header_px / 2.0, "not to scale".to_string(), palette::TEXT_MUTED, 10.0)
                .aligned(Align::Right),
        );
    }
}
