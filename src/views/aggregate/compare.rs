//! Two runs side by side in the aggregated pane: a second profile of the same program, aggregated with the
//! same method and problem view, drawn fitted in the right half; its groups follow the left's opens and
//! closes by schedule-independent identifier (drills repeat on it as `weft render aggregate --compare`
//! does), and matched visible groups whose structure (Weisfeiler–Lehman) differs are outlined on both
//! sides. Holds the second run's navigation state only; matching is analyses::aggregate::similarity, the
//! drawing scene::aggregate. Must not read files: the Viewer hands it an analysis.

use super::AggregatePane;
use crate::analyses::aggregate::propagate::severity;
use crate::analyses::aggregate::similarity::{group_id, match_groups};
use crate::analyses::aggregate::{Aggregation, AggregationTree, GroupMetrics, Method};
use crate::analyses::grains::GrainAnalysis;
use crate::layouts::aggregate::{AggregateParams, AggregateView};
use crate::scene::aggregate::{build_at, Geometry, Overlay};
use crate::scene::{LineInstance, Scene};
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};

/// The line between the two runs.
const DIVIDER: crate::scene::Rgba = crate::scene::rgba(0x8a, 0x93, 0x9e, 0xff);

pub(super) struct Compare {
    pub name: String,
    analysis: GrainAnalysis,
    tree: AggregationTree,
    metrics: GroupMetrics,
    severity: Vec<f32>,
    view: AggregateView,
    /// Each tree node of the second run by its schedule-independent identifier.
    by_id: HashMap<String, u32>,
    /// Visible matched groups (left, right) whose structure differs; counts for the panel's line.
    differ: (Vec<u32>, Vec<u32>),
    matched: usize,
    visible: usize,
}

impl Compare {
    /// The run aggregated by `method`, separated for a problem view, every group closed.
    fn new(name: &str, analysis: GrainAnalysis, method: Method, problem: Option<usize>) -> Compare {
        let a = &analysis;
        let (tree, metrics) = Aggregation::shown(a, method, problem);
        Compare {
            name: name.to_string(),
            severity: problem.map_or_else(Vec::new, |v| severity(a, &tree, v)),
            by_id: (0..tree.len() as u32).map(|u| (group_id(a, &tree, u), u)).collect(),
            view: AggregateView::new(&tree, &a.graph, AggregateParams::default()),
            tree,
            metrics,
            analysis,
            differ: (Vec::new(), Vec::new()),
            matched: 0,
            visible: 0,
        }
    }
}

impl AggregatePane {
    /// Show `analysis` (read from `name`) beside this run; replaces a comparison already shown.
    pub fn compare_with(&mut self, name: &str, analysis: GrainAnalysis) {
        self.compare = Some(Box::new(Compare::new(name, analysis, self.method, self.problem)));
        self.follow_open();
        if self.fitted {
            self.cam = self.fit_cam();
        }
        self.settle();
    }

    pub fn leave_compare(&mut self) {
        self.compare = None;
        if self.fitted {
            self.cam = self.fit_cam();
        }
    }

    /// The height of a `width`-pixel view that shows the drawing whole, fitted (both runs side by side when
    /// comparing, each in half the width) with no band to spare: `weft render aggregate` sizes its picture
    /// by it.
    pub fn fitted_height(&self, width: f32) -> f32 {
        let half = self.compare.is_some();
        let w = if half { width / 2.0 } else { width };
        let of = |v: &AggregateView, t: &AggregationTree| super::fitted_height(v.width(t), v.height(t), w);
        let main = of(&self.view, &self.tree);
        self.compare.as_ref().map_or(main, |c| main.max(of(&c.view, &c.tree)))
    }

    /// The width the left (or only) run is drawn in.
    pub(super) fn main_width(&self) -> f32 {
        if self.compare.is_some() {
            self.width / 2.0
        } else {
            self.width
        }
    }

    /// Aggregate the second run as this one is (method, problem view), then follow this run's open groups.
    pub(super) fn rebuild_compare(&mut self) {
        let (method, problem) = (self.method, self.problem);
        let Some(c) = self.compare.take() else { return };
        let Compare { name, analysis, .. } = *c;
        self.compare = Some(Box::new(Compare::new(&name, analysis, method, problem)));
        self.follow_open();
    }

    /// Open on the right exactly the groups whose identifier an open group on the left has.
    pub(super) fn follow_open(&mut self) {
        let a = &self.analysis;
        let open_ids: HashSet<String> =
            (0..self.tree.len() as u32).filter(|&u| self.view.is_open(u)).map(|u| group_id(a, &self.tree, u)).collect();
        let Some(c) = self.compare.as_mut() else { return };
        let mut open = vec![false; c.tree.len()];
        for id in &open_ids {
            if let Some(&r) = c.by_id.get(id) {
                open[r as usize] = true;
            }
        }
        c.view.set_open(&c.tree, &c.analysis.graph, &open);
        self.match_compare();
    }

    /// Repeat a drill on the right with its own tree (as the CLI opens both runs the same way).
    pub(super) fn drill_compare(&mut self, depth: Option<u32>) {
        let Some(c) = self.compare.as_mut() else { return };
        match depth {
            Some(d) => c.view.drill_to_depth(&c.tree, &c.analysis.graph, d),
            None => c.view.drill_critical(&c.tree, &c.analysis.graph, &c.metrics.on_critical),
        }
        self.match_compare();
    }

    /// Match the visible groups of both runs; keep the outlined pairs whose structure differs.
    fn match_compare(&mut self) {
        let Some(c) = self.compare.as_mut() else { return };
        let (lv, rv) = (self.view.visible(&self.tree), c.view.visible(&c.tree));
        let matches = match_groups((&self.analysis, &self.tree, &lv), (&c.analysis, &c.tree, &rv));
        c.differ = matches
            .iter()
            .filter(|m| !m.same_structure && !self.tree.is_leaf(m.left))
            .map(|m| (m.left, m.right))
            .unzip();
        c.matched = matches.len();
        c.visible = lv.len();
    }

    /// The groups outlined on the left (structure differs from their match).
    pub(super) fn differ_left(&self) -> &[u32] {
        self.compare.as_ref().map_or(&[], |c| c.differ.0.as_slice())
    }

    /// Draw the second run fitted in the right half of `s`, with a dividing line.
    pub(super) fn draw_compare(&self, s: Scene) -> Scene {
        let Some(c) = self.compare.as_ref() else { return s };
        let half = self.main_width();
        let fit = super::fit_box(c.view.width(&c.tree), c.view.height(&c.tree), half, self.height);
        let overlay = Overlay {
            problem: self.problem.map(|b| (b, c.severity.as_slice())),
            local_critical: &[],
            similar: &[],
            highlight: &c.differ.1,
        };
        let geom = Geometry::of(&c.tree, &c.view);
        let right = build_at(&c.analysis, &c.tree, &c.metrics, &c.view, &geom, fit, half, self.height, overlay);
        let mut s = Scene { width: half, ..s }.beside(right);
        s.lines.push(LineInstance::solid(half, 0.0, half, self.height, 1.5, DIVIDER));
        s
    }

    /// The comparison's part of the view state.
    pub(super) fn compare_json(&self) -> Value {
        match self.compare.as_ref() {
            None => json!({"compare": false, "compare_name": null}),
            Some(c) => json!({
                "compare": true, "compare_name": c.name,
                "compare_matched": c.matched, "compare_visible": c.visible, "compare_differ": c.differ.0.len(),
                "compare_differ_left": c.differ.0, "compare_differ_right": c.differ.1,
                "compare_open": (0..c.tree.len() as u32).filter(|&u| c.view.is_open(u)).collect::<Vec<_>>(),
                "compare_right_visible": c.view.visible(&c.tree).len(),
                "compare_grains": c.analysis.graph.grains(),
            }),
        }
    }
}
