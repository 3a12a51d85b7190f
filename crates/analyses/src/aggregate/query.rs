//! Questions the aggregated view asks of one group: its label and tooltip in words (grains, members, nodes;
//! strength: immediate members, all members) and its properties for the details panel, as (name, value) pairs in display order; unmeasured metrics say
//! "NA". Pure functions; no layout, no drawing.

use super::similarity::group_id;
use super::{AggregationTree, GroupMetrics};
use crate::grains::{GrainAnalysis, METRICS, NONE};

/// `n` with thousands separated by commas: 24579 -> "24,579".
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `n` followed by the singular or plural noun: "1 grain", "8,192 grains".
pub fn counted(n: u64, one: &str, many: &str) -> String {
    format!("{} {}", thousands(n), if n == 1 { one } else { many })
}

/// `n` rounded with k or M: "8.2k grains", "25k grains" (for labels with little room).
pub fn counted_short(n: u64, one: &str, many: &str) -> String {
    let noun = if n == 1 { one } else { many };
    let short = |v: f64, unit: &str| {
        let s = if v < 9.95 { format!("{v:.1}") } else { format!("{v:.0}") };
        format!("{}{unit} {noun}", s.trim_end_matches(".0"))
    };
    match n {
        0..=999 => format!("{n} {noun}"),
        1_000..=999_499 => short(n as f64 / 1e3, "k"),
        _ => short(n as f64 / 1e6, "M"),
    }
}

/// What a closed group's label can say, longest first: what it holds in words (grains, or grain-graph nodes
/// where it holds no grain), then its immediate members. The view draws the first that fits.
pub fn group_labels(m: &GroupMetrics, u: u32) -> Vec<String> {
    let ui = u as usize;
    if ui >= m.strength.len() {
        return Vec::new();
    }
    let (imm, grains, nodes) = (m.strength[ui].0 as u64, m.grains[ui] as u64, m.nodes[ui] as u64);
    let (long, short) = if grains > 0 {
        (counted(grains, "grain", "grains"), counted_short(grains, "grain", "grains"))
    } else {
        (counted(nodes, "node", "nodes"), counted_short(nodes, "node", "nodes"))
    };
    let mut out = vec![format!("{long} \u{b7} {}", counted(imm, "member", "members")), long.clone()];
    if short != long {
        out.push(short);
    }
    out
}

/// The tooltip of a group or leaf: a group's kind, what it holds in words, and its strength `(immediate
/// members, all members)` explained.
pub fn tooltip(t: &AggregationTree, m: &GroupMetrics, u: u32) -> String {
    let ui = u as usize;
    if ui >= t.len() {
        return String::new();
    }
    if t.is_leaf(u) {
        return format!("node {}", t.node[ui]);
    }
    format!("{} group: {}", t.kind[ui].name(), strength_words(m, u).join("; "))
}

/// A group's counts in words, as tooltip lines: grains and grain-graph nodes beneath, then its strength.
pub fn strength_words(m: &GroupMetrics, u: u32) -> Vec<String> {
    let ui = u as usize;
    let (imm, all) = m.strength[ui];
    vec![
        format!(
            "{} and {} beneath",
            counted(m.grains[ui] as u64, "grain", "grains"),
            counted(m.nodes[ui] as u64, "grain-graph node", "grain-graph nodes")
        ),
        format!(
            "strength ({imm}, {all}): {} directly inside, {} at any depth (groups and nodes)",
            counted(imm as u64, "member", "members"),
            counted(all as u64, "member", "members")
        ),
    ]
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
