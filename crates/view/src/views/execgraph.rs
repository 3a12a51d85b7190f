//! The execution-graph pane (TreVis): every thread in its own column, time downwards; the graph and its
//! layout come from the worker, this pane only moves the viewport and draws (scene::execgraph).

use super::{num, Hover, Pane};
use crate::layouts::execgraph::bundle::ExecBundle;
use crate::layouts::execgraph::Scale;
use crate::scene::execgraph::{describe, pick, scene, ExecView};
use crate::scene::number::{self, Unit};
use crate::scene::Scene;
use crate::views::options::{ExecgraphOptions, ViewOptions};
use serde_json::json;

pub struct ExecgraphPane {
    bundle: ExecBundle,
    view: ExecView,
    /// The layout's options: the worker lays the graph out again when they change.
    options: ExecgraphOptions,
}

impl ExecgraphPane {
    pub fn new(bundle: ExecBundle, width: f32, height: f32) -> Self {
        let view = ExecView::fit(&bundle.graph, &bundle.layout, width, height);
        ExecgraphPane { bundle, view, options: ExecgraphOptions::default() }
    }

    fn plot_height(&self) -> f32 {
        (self.view.height - self.view.header_px).max(1.0)
    }
}

impl Pane for ExecgraphPane {
    fn kind(&self) -> &'static str {
        "execgraph"
    }
    fn resize(&mut self, width: f32, height: f32) {
        self.view.width = width;
        self.view.height = height;
    }
    /// Zoom in time (vertically) about the middle of the plot, and in columns about screen x.
    fn zoom(&mut self, x: f32, factor: f64) {
        self.zoom_xy(x, None, factor);
    }
    /// Zoom about the pointer: the time under screen y (the middle of the plot when y is outside it or not
    /// given) and the column under screen x stay where they are, zooming in as zooming out.
    fn zoom_xy(&mut self, x: f32, y: Option<f32>, factor: f64) {
        let top = self.view.header_px;
        let at_y = y.filter(|y| y.is_finite() && *y >= top && *y <= top + self.plot_height());
        let at_y = at_y.unwrap_or(top + self.plot_height() / 2.0);
        let anchor_ns = self.view.top_ns + (at_y - top) as f64 * self.view.ns_per_px;
        self.view.ns_per_px = (self.view.ns_per_px / factor).max(1e-6);
        self.view.top_ns = anchor_ns - (at_y - top) as f64 * self.view.ns_per_px;
        let rel = x - self.view.axis_px - self.view.scroll_x_px;
        let old = self.view.column_px;
        self.view.column_px = (old * factor as f32).clamp(0.05, 400.0);
        self.view.scroll_x_px -= rel * (self.view.column_px / old - 1.0);
    }
    fn pan(&mut self, dx: f32) {
        self.view.scroll_x_px -= dx;
    }
    fn scroll(&mut self, dy: f32) {
        self.view.top_ns += dy as f64 * self.view.ns_per_px;
    }
    fn fit(&mut self) {
        self.view = ExecView::fit(&self.bundle.graph, &self.bundle.layout, self.view.width, self.view.height);
    }
    fn hover(&mut self, x: f32, y: f32) -> Option<Hover> {
        self.view.hover = pick(&self.bundle.layout, &self.view, x, y);
        let t = self.view.hover?;
        let g = &self.bundle.graph;
        let th = &g.threads[t as usize];
        Some(Hover {
            title: format!("thread {}", g.label(t)),
            lines: vec![
                describe(g, t),
                format!(
                    "column {}   from {} to {}",
                    self.bundle.layout.column[t as usize],
                    number::format(self.bundle.layout.top_ns[t as usize] as f64, Unit::Ns),
                    number::format(self.bundle.layout.bottom_ns[t as usize] as f64, Unit::Ns)
                ),
            ],
            detail: json!({"thread": t, "id": th.id, "run_ns": th.run_ns, "share": g.share(t)}),
        })
    }
    fn clear_hover(&mut self) {
        self.view.hover = None;
    }
    fn legend(&self) -> Option<crate::scene::legend::Legend> {
        Some(crate::scene::legend::execgraph())
    }
    fn scene(&self) -> Scene {
        scene(&self.bundle.graph, &self.bundle.layout, &self.view)
    }
    fn options(&self) -> serde_json::Value {
        self.options.describe()
    }
    /// `min_edge` is kept here and applied by the worker (`relayout_execgraph`), which lays the graph out again.
    fn configure(&mut self, key: &str, value: &str) -> Result<(), String> {
        self.options.parse(key, value).map_err(|e| e.to_string())
    }
    fn restore(&mut self, s: &serde_json::Value) {
        if let Some(v) = num(s, "scroll_x_px") {
            self.view.scroll_x_px = v as f32;
        }
        if let Some(v) = num(s, "top_ns") {
            self.view.top_ns = v;
        }
        if let Some(v) = num(s, "ns_per_px").filter(|v| *v > 0.0) {
            self.view.ns_per_px = v.max(1e-6);
        }
        if let Some(v) = num(s, "column_px").filter(|v| *v > 0.0) {
            self.view.column_px = (v as f32).clamp(0.05, 400.0);
        }
    }
    fn state(&self) -> serde_json::Value {
        let l = &self.bundle.layout;
        json!({
            "view": "execgraph",
            "threads": self.bundle.graph.threads.len(), "nodes": self.bundle.graph.nodes.len(),
            "columns": l.columns, "crossings": l.crossings, "lanes": l.max_lane(),
            "scale": match l.scale { Scale::True => "true".to_string(), Scale::MinEdge { min_ns } => format!("min-edge {min_ns} ns") },
            "axis_px": self.view.axis_px, "header_px": self.view.header_px, "column_px": self.view.column_px,
            "scroll_x_px": self.view.scroll_x_px, "top_ns": self.view.top_ns, "ns_per_px": self.view.ns_per_px,
            "critical_ns": self.bundle.graph.critical_ns,
        })
    }
}
