//! The property window of the selected group (the papers: "group metrics are shown in a separate property
//! window, similar to grains"): its members by kind, the total, mean and greatest of each grain metric over
//! the grains it holds, how many of them each problem view flags, where in the source they come from, and its
//! theta. For a grain (a leaf) the same, of the one grain, with its task and source location. Computed once
//! per selection or new tree (linear in the group's subtree), never per frame; reads the pane, draws nothing.

use super::AggregatePane;
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap};
use weft_analyses::aggregate::propagate::grain_of_leaf;
use weft_analyses::grains::{Metrics, METRICS, NONE};

/// The most source locations the window lists (the rest are counted).
const SOURCES_LISTED: usize = 8;
/// The most members listed by id.
const MEMBERS_LISTED: usize = 40;

/// A grain's value of one metric.
type Column<'a> = Box<dyn Fn(usize) -> Option<f64> + 'a>;

fn optional(v: &[Option<f64>]) -> Column<'_> {
    Box::new(move |g: usize| v.get(g).copied().flatten())
}

/// The grain metrics the window summarises: key, label, and each grain's value.
fn columns(m: &Metrics) -> Vec<(&'static str, &'static str, Column<'_>)> {
    vec![
        ("exec_cycles", "execution time", Box::new(move |g: usize| m.exec.get(g).map(|&e| e as f64))),
        ("work_cycles", "work", optional(&m.work)),
        ("parallel_benefit", "parallel benefit", optional(&m.parallel_benefit)),
        ("memory_hierarchy_utilization", "memory hierarchy utilization", optional(&m.mem_hier_util)),
        ("work_deviation", "work deviation", optional(&m.work_deviation)),
        ("sibling_work_balance", "load balance", optional(&m.sibling_work_balance)),
        ("sibling_scatter", "scatter", optional(&m.sibling_scatter)),
        ("instantaneous_parallelism_median", "instantaneous parallelism median", optional(&m.inst_par_median)),
        ("instantaneous_parallelism_min", "instantaneous parallelism min", optional(&m.inst_par_min)),
        ("instantaneous_parallelism_max", "instantaneous parallelism max", optional(&m.inst_par_max)),
    ]
}

impl AggregatePane {
    /// Fill the property window for the selection (empty when nothing is selected). The same node of the
    /// same tree is not summed again (a drill or a pan keeps the selection): only its open state changes.
    pub(super) fn refresh_props(&mut self) {
        let Some(u) = self.selected.filter(|&u| (u as usize) < self.tree.len()) else {
            self.props = Value::Null;
            return;
        };
        let same = self.props["id"] == u && self.props["tree"] == self.tree_generation;
        if same {
            self.props["open"] = Value::Bool(self.view.is_open(u));
        } else {
            self.props = self.properties(u);
        }
    }

    /// A grain's function and source location as a tooltip line; None when the profile names neither.
    pub(super) fn source_line(&self, gi: u32) -> Option<String> {
        let g = &self.analysis.graph;
        let (f, src) = (g.string(g.grain_outline[gi as usize]), g.string(g.grain_source[gi as usize]));
        match (f.is_empty(), src.is_empty()) {
            (true, true) => None,
            (false, true) => Some(format!("function {f}")),
            (true, false) => Some(format!("source {src}")),
            (false, false) => Some(format!("source {src} (function {f})")),
        }
    }

    /// The grain under the pointer, when it is a grain (what J shows in the Grain graph tab).
    pub(super) fn hovered_grain(&self) -> Option<u32> {
        let u = self.hovered.filter(|&u| (u as usize) < self.tree.len() && self.tree.is_leaf(u))?;
        let gi = grain_of_leaf(&self.analysis, self.tree.node[u as usize]);
        (gi != NONE).then_some(gi)
    }

    /// The property window of tree node `u`.
    pub(super) fn properties(&self, u: u32) -> Value {
        let (a, t, ui) = (&*self.analysis, &self.tree, u as usize);
        let g = &a.graph;
        // The grains under u, each once: a grain of several fragments (leaves) counts where its first one
        // lies, as the group's label counts it (analyses::aggregate::propagate).
        let mut grains: Vec<usize> = Vec::new();
        for leaf in t.leaves_under(u) {
            let node = t.node[leaf as usize];
            let gi = grain_of_leaf(a, node);
            if gi != NONE && g.grain_nodes_of(gi).first() == Some(&node) {
                grains.push(gi as usize);
            }
        }
        let metrics: Vec<Value> = columns(&a.metrics)
            .into_iter()
            .filter_map(|(key, label, value)| {
                let (mut n, mut total, mut max) = (0usize, 0.0f64, f64::NEG_INFINITY);
                for v in grains.iter().filter_map(|&gi| value(gi)) {
                    n += 1;
                    total += v;
                    max = max.max(v);
                }
                (n > 0).then(|| {
                    let unit = crate::scene::number::Unit::of_grain_metric(key, a.graph.unit).name();
                    json!({"metric": key, "label": label, "unit": unit, "grains": n, "total": total, "mean": total / n as f64, "max": max})
                })
            })
            .collect();
        let problems: Vec<Value> = a
            .problems
            .iter()
            .map(|p| (p.metric, grains.iter().filter(|&&gi| p.problematic[gi]).count()))
            .filter(|&(_, n)| n > 0)
            .map(|(metric, n)| json!({"metric": metric, "grains": n}))
            .collect();
        let mut by_source: HashMap<(u32, u32), usize> = HashMap::new();
        for &gi in &grains {
            *by_source.entry((g.grain_outline[gi], g.grain_source[gi])).or_default() += 1;
        }
        let mut sources: Vec<((u32, u32), usize)> = by_source.into_iter().collect();
        sources.sort_unstable_by(|x, y| {
            y.1.cmp(&x.1).then_with(|| (g.string(x.0 .1), g.string(x.0 .0)).cmp(&(g.string(y.0 .1), g.string(y.0 .0))))
        });
        let distinct = sources.len();
        let sources: Vec<Value> = sources
            .into_iter()
            .take(SOURCES_LISTED)
            .map(|((f, src), n)| json!({"function": g.string(f), "source": g.string(src), "grains": n}))
            .collect();
        let kids = t.children_of(u);
        let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
        for &c in kids {
            *kinds.entry(t.kind[c as usize].name()).or_default() += 1;
        }
        let leaf_grain = if t.is_leaf(u) { grain_of_leaf(a, t.node[ui]) } else { NONE };
        let m = &self.metrics;
        json!({
            "id": u,
            "tree": self.tree_generation,
            "kind": t.kind[ui].name(),
            "leaf": t.is_leaf(u),
            "open": self.view.is_open(u),
            "depth": t.depth[ui],
            "members": kids.len(),
            "member_kinds": kinds,
            "member_ids": kids.iter().take(MEMBERS_LISTED).collect::<Vec<_>>(),
            "grains": grains.len(),
            "graph_nodes": m.nodes[ui],
            "theta": self.theta.get(ui),
            "on_critical": m.on_critical[ui],
            "strength": [m.strength[ui].0, m.strength[ui].1],
            "problematic": METRICS.iter().enumerate().filter(|(b, _)| m.problems[ui] >> b & 1 == 1).map(|(_, n)| *n).collect::<Vec<_>>(),
            "metrics": metrics,
            "problems": problems,
            "sources": sources,
            "sources_distinct": distinct,
            "grain": (leaf_grain != NONE).then_some(leaf_grain),
            "task": (leaf_grain != NONE).then(|| g.grain_task[leaf_grain as usize]),
        })
    }
}
