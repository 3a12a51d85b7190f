//! The aggregated pane's state as data: the view state (what a permalink restores and tests read), its
//! restoring, and a node's tooltip lines. Reads the pane; draws nothing.

use super::super::Pane;
use super::AggregatePane;
use crate::scene::aggregate::Fit;
use crate::scene::number::{self, Unit};
use serde_json::{json, Value};
use weft_analyses::aggregate::propagate::grain_of_leaf;
use weft_analyses::aggregate::{GroupMetrics, Method};
use weft_analyses::grains::{METRICS, NONE};

impl AggregatePane {
    /// The view state without its drawn nodes and its lists of groups (the local critical path's members,
    /// the similar groups, the comparison's differing and open groups): what a permalink restores and the
    /// aggregate panel reads after every interaction (`Pane::brief`).
    pub(super) fn brief_json(&self) -> Value {
        let t = &self.tree;
        let c = &self.cam;
        let open: Vec<u32> = (0..t.len() as u32).filter(|&u| self.view.is_open(u)).collect();
        let visible = self.view.visible(t).len();
        let mut brief = json!({
            "view": "aggregate",
            "method": match self.method { Method::Reduction => "reduction", Method::Family => "family" },
            "problem": self.problem.map(|b| METRICS[b]),
            "problems": self.analysis.problems.iter().map(|p| json!({"metric": p.metric, "count": p.count})).collect::<Vec<_>>(),
            "filtered": self.unfiltered.is_some(),
            "grains": self.analysis.graph.grains(), "graph_nodes": self.analysis.graph.nodes(),
            "tree_nodes": t.len(), "groups": t.groups(), "tree_depth": t.height(), "root": t.root,
            "open": open,
            "selected": self.selected.map(|u| self.node_json(u, 0.0, 0.0, 0.0, 0.0)),
            "local_critical": self.local_of,
            "similar_marks": self.similar_on,
            "similar_classes": self.similar_legend(),
            "theta": {
                "max": self.theta_max,
                "of": if self.problem.is_some() { "problematic grains" } else { "any grain" },
                "visible": visible,
                "selected": self.selected.and_then(|u| self.theta.get(u as usize)),
            },
            "properties": self.props,
            "hovered_grain": self.hovered_grain(),
            "depth": self.depth,
            "visible": visible,
            "last_relayout_ms": self.last_relayout_ms,
            "fitted": self.fitted,
            "viewport": {"x0": c.x0, "y0": c.y0, "scale": c.scale},
            "intro": self.intro,
        });
        if let (Some(st), Value::Object(more)) = (brief.as_object_mut(), self.compare_json(false)) {
            st.extend(more);
        }
        brief
    }

    /// The view state: what a permalink restores, and what tests read.
    pub(super) fn state_json(&self) -> Value {
        let t = &self.tree;
        let (x, y) = (&self.to.g.x, &self.to.g.y);
        let c = &self.cam;
        let nodes: Vec<Value> = self
            .view
            .visible(t)
            .into_iter()
            .take(2000)
            .map(|u| {
                let ui = u as usize;
                let (px, py) = c.px(x[ui], y[ui]);
                self.node_json(u, px, py, self.view.w[ui] * c.scale, self.view.h[ui] * c.scale)
            })
            .collect();
        let mut state = json!({
            "local_critical_members": self.local,
            "similar": self.similar.iter().map(|s| s.0).collect::<Vec<_>>(),
            "nodes": nodes,
        });
        if let (Some(st), Value::Object(more)) = (state.as_object_mut(), self.compare_json(true)) {
            st.extend(more);
        }
        crate::views::with_contents(self.brief_json(), state)
    }

    /// The similar-group marks as a legend's data: per class, its number, mark (shape, colour) and groups.
    fn similar_legend(&self) -> Vec<Value> {
        let mut classes: Vec<Vec<u32>> = Vec::new();
        for &(u, k) in &self.similar {
            let k = k as usize;
            if classes.len() <= k {
                classes.resize(k + 1, Vec::new());
            }
            classes[k].push(u);
        }
        classes
            .into_iter()
            .enumerate()
            .map(|(k, groups)| {
                let (_, shape, color) = crate::scene::aggregate::similar_mark(k as u32);
                json!({"class": k + 1, "shape": shape, "color": format!("#{:06x}", color >> 8), "groups": groups})
            })
            .collect()
    }

    pub(super) fn node_json(&self, u: u32, x: f32, y: f32, w: f32, h: f32) -> Value {
        let (t, m, ui) = (&self.tree, &self.metrics, u as usize);
        let gi = if t.is_leaf(u) { grain_of_leaf(&self.analysis, t.node[ui]) } else { NONE };
        json!({
            "id": u, "kind": t.kind[ui].name(), "parent": (t.parent[ui] != NONE).then_some(t.parent[ui]),
            "depth": t.depth[ui], "open": self.view.is_open(u),
            "grains": m.grains[ui], "graph_nodes": m.nodes[ui],
            "grain": (gi != NONE).then_some(gi),
            "task": (gi != NONE).then(|| self.analysis.graph.grain_task[gi as usize]),
            "problematic": self.problem.is_some_and(|b| m.problems[ui] >> b & 1 == 1),
            "problems": METRICS.iter().enumerate().filter(|(b, _)| m.problems[ui] >> b & 1 == 1).map(|(_, n)| *n).collect::<Vec<_>>(),
            "on_critical": m.on_critical[ui], "strength": [m.strength[ui].0, m.strength[ui].1],
            "value": self.problem.and_then(|b| metric_of(m, METRICS[b], ui)),
            "x": x, "y": y, "w": w, "h": h,
        })
    }

    /// The propagated metrics of a tree node, as tooltip lines.
    pub(super) fn metric_lines(&self, u: u32) -> Vec<String> {
        let (m, ui) = (&self.metrics, u as usize);
        let time = Unit::of_time(self.analysis.graph.unit);
        let mut lines = vec![format!("execution time: {}", number::format(m.exec[ui] as f64, time))];
        let f = |name: &str, v: Option<f64>, how: &str| {
            v.map(|v| format!("{name} ({how}): {}", number::format(v, Unit::Count)))
        };
        lines.extend(
            [
                m.work[ui].map(|v| format!("work (sum): {}", number::format(v, time))),
                f("parallel benefit", m.parallel_benefit[ui], "min"),
                f("memory hierarchy utilization", m.mem_hier_util[ui], "min"),
                f("instantaneous parallelism median", m.inst_par_median[ui], "min"),
                f("instantaneous parallelism min", m.inst_par_min[ui], "min"),
                f("instantaneous parallelism max", m.inst_par_max[ui], "min"),
                f("load balance", m.sibling_work_balance[ui], "max"),
                f("work deviation", m.work_deviation[ui], "max"),
                f("scatter", m.sibling_scatter[ui], "max"),
            ]
            .into_iter()
            .flatten(),
        );
        let bad: Vec<&str> =
            METRICS.iter().enumerate().filter(|(b, _)| m.problems[ui] >> b & 1 == 1).map(|(_, n)| *n).collect();
        if !bad.is_empty() {
            lines.push(format!("problematic: {}", bad.join(", ")));
        }
        if m.on_critical[ui] {
            lines.push("on the global critical path".to_string());
        }
        lines
    }

    /// Apply a state written by [`Pane::state`] (a permalink): method, problem view, filter, open groups,
    /// selection, the shown extras and the camera. Method, problem view, filter, open groups, similar marks
    /// and depth that `s` does not name stay as they are (a permalink sets the view's options first).
    pub(super) fn restore(&mut self, s: &Value) -> Result<(), String> {
        let method: Method = s["method"].as_str().map_or(Ok(self.method), str::parse)?;
        let problem = match s.get("problem").map(Value::as_str) {
            None => self.problem,
            Some(None) => None,
            Some(Some(name)) => {
                Some(METRICS.iter().position(|m| *m == name).ok_or(format!("no problem view '{name}'"))?)
            }
        };
        self.selected = None;
        let open_listed = s["open"].as_array();
        if open_listed.is_some() {
            self.view.set_open(&self.tree, &self.analysis.graph, &[]);
        }
        self.rebuild(method, problem);
        self.set_filtered(s["filtered"].as_bool().unwrap_or(self.unfiltered.is_some()));
        if let Some(list) = open_listed {
            let mut open = vec![false; self.tree.len()];
            for id in list {
                let u = id.as_u64().filter(|&u| (u as usize) < open.len()).ok_or(format!("no group {id}"))?;
                open[u as usize] = true;
            }
            self.view.set_open(&self.tree, &self.analysis.graph, &open);
            if let Some(u) = self.unfiltered.as_mut() {
                u.set_open(&self.tree, &self.analysis.graph, &open);
            }
        }
        if s["compare"].as_bool() == Some(false) {
            self.leave_compare();
        }
        self.follow_open();
        self.selected = s["selected"]["id"].as_u64().map(|u| u as u32).filter(|&u| (u as usize) < self.tree.len());
        if let Some(g) = s["local_critical"].as_u64() {
            self.show_local_critical(self.group(&g.to_string())?);
        }
        self.similar_on = s["similar_marks"].as_bool().unwrap_or(self.similar_on);
        if self.similar_on {
            self.mark_similar();
        }
        self.depth = s["depth"].as_u64().map_or(self.depth, |d| d as u32);
        let vp = &s["viewport"];
        match (vp["x0"].as_f64(), vp["y0"].as_f64(), vp["scale"].as_f64()) {
            (Some(x0), Some(y0), Some(scale)) if !s["fitted"].as_bool().unwrap_or(true) && scale > 0.0 => {
                self.cam = Fit { x0: x0 as f32, y0: y0 as f32, scale: scale as f32 };
                self.fitted = false;
            }
            _ => self.fit(),
        }
        self.settle();
        Ok(())
    }
}

/// A tree node's propagated value of one of `METRICS`.
fn metric_of(m: &GroupMetrics, metric: &str, ui: usize) -> Option<f64> {
    let column = match metric {
        "parallel_benefit" => &m.parallel_benefit,
        "work_deviation" => &m.work_deviation,
        "memory_hierarchy_utilization" => &m.mem_hier_util,
        "sibling_work_balance" => &m.sibling_work_balance,
        "sibling_scatter" => &m.sibling_scatter,
        "instantaneous_parallelism_median" => &m.inst_par_median,
        "instantaneous_parallelism_min" => &m.inst_par_min,
        "instantaneous_parallelism_max" => &m.inst_par_max,
        _ => return None,
    };
    column.get(ui).copied().flatten()
}
