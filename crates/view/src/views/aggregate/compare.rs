//! Two runs side by side in the aggregated pane: a second profile of the same program, aggregated with the
//! same method and problem view, drawn in the right half; its groups follow the left's opens and closes by
//! schedule-independent identifier (drills repeat on it as `weft render aggregate --compare` does), and
//! matched visible groups whose structure (Weisfeiler–Lehman) differs are outlined on both sides. Both
//! halves zoom and pan together (the right's camera is its fit moved as the left's is moved from its fit),
//! each clipped to its half. Two profiles of different programs (no source file in common, or without
//! source files no function in common) are said to be so, and no group of them is matched. Holds the second
//! run's navigation state only; matching is analyses::aggregate::similarity, the drawing scene::aggregate.
//! Must not read files: the Viewer hands it an analysis.

use super::AggregatePane;
use crate::layouts::aggregate::{AggregateParams, AggregateView};
use crate::scene::aggregate::{build_at, clip_from, Fit, Geometry, Overlay};
use crate::scene::{LineInstance, Scene};
use serde_json::{json, Value};
use std::collections::{BTreeSet, HashMap, HashSet};
use weft_analyses::aggregate::propagate::severity;
use weft_analyses::aggregate::similarity::{group_id, match_groups};
use weft_analyses::aggregate::{Aggregation, AggregationTree, GroupMetrics, Method};
use weft_analyses::grains::GrainAnalysis;

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
    /// Why the two profiles are of different programs; None when they may be runs of one.
    programs_differ: Option<String>,
}

/// The source files a run's grains come from ("fib.c" of "fib.c:12"; unknown ones left out).
fn source_files(a: &GrainAnalysis) -> BTreeSet<&str> {
    let g = &a.graph;
    g.grain_source
        .iter()
        .map(|&s| g.string(s))
        .map(|s| s.rsplit_once(':').map_or(s, |(file, _)| file).trim())
        .filter(|f| !f.is_empty() && *f != "??")
        .collect()
}

fn functions(a: &GrainAnalysis) -> BTreeSet<&str> {
    let g = &a.graph;
    g.grain_outline.iter().map(|&s| g.string(s).trim()).filter(|f| !f.is_empty()).collect()
}

fn listed(set: &BTreeSet<&str>) -> String {
    let mut out: Vec<String> = set.iter().take(3).map(|s| weft_model::text::escape_controls(s).into_owned()).collect();
    if set.len() > 3 {
        out.push(format!("{} more", set.len() - 3));
    }
    out.join(", ")
}

/// Whether two profiles are of different programs, and why: their grains share no source file (when both
/// name source files), or else no outlined function (when both name functions). Runs of one program share
/// both; a profile naming neither cannot be told apart and is taken as the same program.
pub fn programs_differ(left: &GrainAnalysis, right: &GrainAnalysis) -> Option<String> {
    let (a, b) = (source_files(left), source_files(right));
    if !a.is_empty() && !b.is_empty() {
        return a
            .is_disjoint(&b)
            .then(|| format!("different programs: no source file in common ({} vs {})", listed(&a), listed(&b)));
    }
    let (a, b) = (functions(left), functions(right));
    (!a.is_empty() && !b.is_empty() && a.is_disjoint(&b))
        .then(|| format!("different programs: no function in common ({} vs {})", listed(&a), listed(&b)))
}

impl Compare {
    /// The run aggregated by `method`, separated for a problem view, every group closed.
    fn new(
        left: &GrainAnalysis,
        name: &str,
        analysis: GrainAnalysis,
        method: Method,
        problem: Option<usize>,
    ) -> Compare {
        let a = &analysis;
        let programs_differ = programs_differ(left, a);
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
            programs_differ,
        }
    }
}

impl AggregatePane {
    /// Show `analysis` (read from `name`) beside this run; replaces a comparison already shown.
    pub fn compare_with(&mut self, name: &str, analysis: GrainAnalysis) {
        self.compare = Some(Box::new(Compare::new(&self.analysis, name, analysis, self.method, self.problem)));
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
        self.compare = Some(Box::new(Compare::new(&self.analysis, &name, analysis, method, problem)));
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
        c.visible = lv.len();
        if c.programs_differ.is_some() {
            // Identifiers of two programs' groups coincide (depth, kind, lineage "R-1"), meaning nothing.
            c.differ = (Vec::new(), Vec::new());
            c.matched = 0;
            return;
        }
        let matches = match_groups((&self.analysis, &self.tree, &lv), (&c.analysis, &c.tree, &rv));
        c.differ = matches
            .iter()
            .filter(|m| !m.same_structure && !self.tree.is_leaf(m.left))
            .map(|m| (m.left, m.right))
            .unzip();
        c.matched = matches.len();
    }

    /// The groups outlined on the left (structure differs from their match).
    pub(super) fn differ_left(&self) -> &[u32] {
        self.compare.as_ref().map_or(&[], |c| c.differ.0.as_slice())
    }

    /// Draw the second run in the right half of `s` (the left run drawn through camera `cam`), each half
    /// clipped to itself, with a dividing line. The right's camera is its fitted one moved as `cam` is
    /// moved from the left's fitted one: both zoom and pan together.
    pub(super) fn draw_compare(&self, mut s: Scene, cam: Fit) -> Scene {
        let Some(c) = self.compare.as_ref() else { return s };
        let half = self.main_width();
        clip_from(&mut s, (0, 0, 0), [0.0, 0.0, half, self.height]);
        let left_fit = self.fit_cam();
        let right_fit = super::fit_box(c.view.width(&c.tree), c.view.height(&c.tree), half, self.height);
        let fit = follow(left_fit, cam, right_fit);
        let overlay = Overlay {
            problem: self.problem.map(|b| (b, c.severity.as_slice())),
            local_critical: &[],
            similar: &[],
            highlight: &c.differ.1,
        };
        let geom = Geometry::of(&c.tree, &c.view);
        let mut right = build_at(&c.analysis, &c.tree, &c.metrics, &c.view, &geom, fit, half, self.height, overlay);
        clip_from(&mut right, (0, 0, 0), [0.0, 0.0, half, self.height]);
        let mut s = Scene { width: half, ..s }.beside(right);
        s.lines.push(LineInstance::solid(half, 0.0, half, self.height, 1.5, DIVIDER));
        s
    }

    /// The comparison's part of the view state: its counts and camera, with `lists` its differing and
    /// open groups too (`Pane::state`; not in the brief).
    pub(super) fn compare_json(&self, lists: bool) -> Value {
        let Some(c) = self.compare.as_ref() else { return json!({"compare": false, "compare_name": null}) };
        let mut v = json!({
            "compare": true, "compare_name": c.name,
            "compare_matched": c.matched, "compare_visible": c.visible, "compare_differ": c.differ.0.len(),
            "compare_programs_differ": c.programs_differ,
            "compare_viewport": self.right_cam().map(|f| json!({"x0": f.x0, "y0": f.y0, "scale": f.scale})),
            "compare_right_visible": c.view.visible(&c.tree).len(),
            "compare_grains": c.analysis.graph.grains(),
        });
        if let (true, Some(o)) = (lists, v.as_object_mut()) {
            o.insert("compare_differ_left".into(), json!(c.differ.0));
            o.insert("compare_differ_right".into(), json!(c.differ.1));
            let open: Vec<u32> = (0..c.tree.len() as u32).filter(|&u| c.view.is_open(u)).collect();
            o.insert("compare_open".into(), json!(open));
        }
        v
    }
}

/// The camera of the right run: its fitted camera `right_fit` moved as `left` is moved from `left_fit`
/// (the same zoom factor, and the same screen offset scaled into it).
pub(super) fn follow(left_fit: Fit, left: Fit, right_fit: Fit) -> Fit {
    let k = left.scale / left_fit.scale;
    let scale = right_fit.scale * k;
    // A point at screen q under the fitted camera is at k q + b under the moved one.
    let (bx, by) = ((left_fit.x0 - left.x0) * left.scale, (left_fit.y0 - left.y0) * left.scale);
    Fit { x0: right_fit.x0 - bx / scale, y0: right_fit.y0 - by / scale, scale }
}

impl AggregatePane {
    /// The right run's camera now (None when not comparing).
    fn right_cam(&self) -> Option<Fit> {
        let c = self.compare.as_ref()?;
        let right_fit = super::fit_box(c.view.width(&c.tree), c.view.height(&c.tree), self.main_width(), self.height);
        Some(follow(self.fit_cam(), self.cam, right_fit))
    }
}
