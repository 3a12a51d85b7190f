//! Aggregated and filtered grain graphs (Reissmann & Muddukrishna; Muddukrishna): a grain graph reduced to
//! one group by the four phases — `reduce` (fork-join and linear patterns, restructuring graphs that are
//! not nested), `normalize`, `propagate` (metrics up the tree), `separate` (per problem view) — or by the
//! earlier sibling/family method (`family`); the visible node count theta; on demand, a group's local
//! critical path (`critical`) and Weisfeiler–Lehman similarity (`similarity`), and the matching of two
//! runs' groups. Pure functions of a [`GrainAnalysis`]; no layout, no drawing.

pub mod bundle;
pub mod critical;
pub mod family;
pub mod normalize;
pub mod propagate;
pub mod query;
pub mod reduce;
pub mod separate;
pub mod similarity;
pub mod theta;
pub mod tree;

pub use propagate::GroupMetrics;
pub use tree::{AggregationTree, GroupKind};

use crate::grains::{GrainAnalysis, METRICS};
use std::collections::BTreeMap;

/// Which aggregation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// Reduction of fork-join and linear patterns, then normalization (Reissmann & Muddukrishna).
    Reduction,
    /// Sibling and family groups (Muddukrishna).
    Family,
}

impl std::str::FromStr for Method {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "reduction" => Ok(Method::Reduction),
            "family" => Ok(Method::Family),
            o => Err(format!("unknown method \"{o}\" (reduction or family)")),
        }
    }
}

/// An aggregated grain graph: the tree (normalized for the reduction method) and its propagated metrics.
#[derive(Clone, Debug)]
pub struct Aggregation {
    pub method: Method,
    pub tree: AggregationTree,
    pub metrics: GroupMetrics,
    /// True when the graph was not properly nested and reduction restructured it.
    pub restructured: bool,
}

impl Aggregation {
    pub fn new(a: &GrainAnalysis, method: Method) -> Self {
        let (tree, restructured) = match method {
            Method::Reduction => {
                let r = reduce::reduce(&a.graph);
                (normalize::normalize(&r.tree), r.restructured)
            }
            Method::Family => (family::family(&a.graph), false),
        };
        let metrics = propagate::propagate(a, &tree);
        Aggregation { method, tree, metrics, restructured }
    }

    /// The tree a view shows and its metrics: aggregated by `method`, and separated for the problem view
    /// `METRICS[problem]` when one is shown. The aggregated view, the run compared with it and
    /// `weft render aggregate` (which drives that view) take their tree from here.
    pub fn shown(a: &GrainAnalysis, method: Method, problem: Option<usize>) -> (AggregationTree, GroupMetrics) {
        let agg = Aggregation::new(a, method);
        match problem {
            Some(view) => agg.separated(a, view),
            None => (agg.tree, agg.metrics),
        }
    }

    /// The tree separated for the problem view of `METRICS[view]`, with its metrics.
    pub fn separated(&self, a: &GrainAnalysis, view: usize) -> (AggregationTree, GroupMetrics) {
        let t = separate::separate(a, &self.tree, view);
        let m = propagate::propagate(a, &t);
        (t, m)
    }

    /// Theta max, conservative (every grain problematic, on this tree) and per problem view with any
    /// problematic grain (on the view's separated tree).
    pub fn theta(&self, a: &GrainAnalysis) -> Theta {
        let conservative = theta::theta_max(a, &self.tree, |_| true).unwrap_or(0);
        let mut by_problem = BTreeMap::new();
        for (i, view) in a.problems.iter().enumerate() {
            if view.count == 0 {
                continue;
            }
            let t = separate::separate(a, &self.tree, i);
            if let Some(th) = theta::theta_max(a, &t, |g| view.problematic[g]) {
                by_problem.insert(METRICS[i], th);
            }
        }
        Theta { conservative_max: conservative, by_problem }
    }
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Theta {
    pub conservative_max: u32,
    pub by_problem: BTreeMap<&'static str, u32>,
}

/// The saving of `theta` against showing all `nodes`, in percent (the paper's Table 1).
pub fn savings_percent(theta: u32, nodes: usize) -> f64 {
    if nodes == 0 {
        0.0
    } else {
        100.0 * (1.0 - theta as f64 / nodes as f64)
    }
}
