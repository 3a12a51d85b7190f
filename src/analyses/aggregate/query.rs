//! Questions the aggregated view asks of one group: its tooltip (strength: immediate members, all members)
//! and its properties for the details panel, as (name, value) pairs in display order; unmeasured metrics say
//! "NA". Pure functions; no layout, no drawing.

use super::similarity::group_id;
use super::{AggregationTree, GroupMetrics};
use crate::analyses::grains::{GrainAnalysis, METRICS, NONE};

/// The tooltip of a group or leaf: its kind and strength `(immediate members, all members)`.
pub fn tooltip(t: &AggregationTree, m: &GroupMetrics, u: u32) -> String {
    let ui = u as usize;
    if ui >= t.len() {
        return String::new();
    }
    if t.is_leaf(u) {
        return format!("node {}", t.node[ui]);
    }
    let (imm, all) = m.strength[ui];
    format!("{} group, strength ({imm}, {all})", t.kind[ui].name())
}

pub fn group_properties(
    a: &GrainAnalysis,
    t: &AggregationTree,
    m: &GroupMetrics,
    u: u32,
) -> Vec<(&'static str, String)> {
    let ui = u as usize;
    if ui >= t.len() {
        return Vec::new();
    }
    let num = |v: Option<f64>| v.map(|v| format!("{v}")).unwrap_or_else(|| "NA".into());
    let node = |v: u32| if v == NONE { "none".to_string() } else { a.graph.node_name(v) };
    let problems: Vec<&str> =
        METRICS.iter().enumerate().filter(|(i, _)| m.problems[ui] >> i & 1 == 1).map(|(_, n)| *n).collect();
    let (imm, all) = m.strength[ui];
    vec![
        ("kind", t.kind[ui].name().to_string()),
        ("id", group_id(a, t, u)),
        ("depth", t.depth[ui].to_string()),
        ("strength", format!("({imm}, {all})")),
        ("fork", node(t.fork[ui])),
        ("join", node(t.join[ui])),
        ("exec_cycles", m.exec[ui].to_string()),
        ("work_cycles", num(m.work[ui])),
        ("parallel_benefit_min", num(m.parallel_benefit[ui])),
        ("mem_hier_util_min", num(m.mem_hier_util[ui])),
        ("inst_par_median_min", num(m.inst_par_median[ui])),
        ("inst_par_min_min", num(m.inst_par_min[ui])),
        ("inst_par_max_min", num(m.inst_par_max[ui])),
        ("sibling_work_balance_max", num(m.sibling_work_balance[ui])),
        ("work_deviation_max", num(m.work_deviation[ui])),
        ("sibling_scatter_max", num(m.sibling_scatter[ui])),
        ("problems", if problems.is_empty() { "none".into() } else { problems.join(", ") }),
        ("on_critical_path", m.on_critical[ui].to_string()),
    ]
}
