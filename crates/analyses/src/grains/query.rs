//! Questions the views ask of an analysed grain graph: its figures (`weft grains --json` and the page's
//! header), the table of a problem view's grains (worst first), a grain's properties and metrics for the
//! details panel, and search by task id, source location or function. Pure functions; no layout, no drawing.

use super::GrainAnalysis;
use serde::Serialize;
use std::collections::BTreeMap;
use weft_model::sort::SortDyn;

/// The figures of `weft grains --json` (a stable interface: exactly these keys, in this order, which is
/// alphabetical) and of the page's summary of a grain graph; both are made here.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GrainFigures {
    pub critical_path_length: u64,
    pub edges: usize,
    pub grains: usize,
    pub nodes: usize,
    /// The parallelism profile: max, mean, and `[t, count]` points bounded in number.
    pub parallelism: super::parallelism::ParallelismFigures,
    /// Problematic grains per metric, by metric name.
    pub problems: BTreeMap<&'static str, usize>,
}

impl GrainFigures {
    pub fn of(a: &GrainAnalysis) -> Self {
        GrainFigures {
            critical_path_length: a.critical.length,
            edges: a.graph.edges(),
            grains: a.graph.grains(),
            nodes: a.graph.nodes(),
            parallelism: a.parallelism.figures(a.graph.unit),
            problems: a.problems.iter().map(|p| (p.metric, p.count)).collect(),
        }
    }
}

/// One row of a problem view's table.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ProblemRow {
    pub grain: u32,
    pub task: u64,
    pub value: f64,
    pub severity: f32,
    pub on_critical_path: bool,
    pub source_line: String,
    pub outline_function: String,
}

/// The problematic grains of `metric`, most severe first (ties by task id), or None for an unknown metric.
pub fn problem_table(a: &GrainAnalysis, metric: &str) -> Option<Vec<ProblemRow>> {
    let view = a.problem(metric)?;
    let (values, _) = super::problems::metric_values(&a.metrics, metric, &a.thresholds, a.cores)?;
    let g = &a.graph;
    let mut rows: Vec<ProblemRow> = (0..g.grains())
        .filter(|&i| view.problematic[i])
        .map(|i| ProblemRow {
            grain: i as u32,
            task: g.grain_task[i],
            value: values[i].unwrap_or(f64::NAN),
            severity: view.severity[i],
            on_critical_path: a.grain_on_critical[i],
            source_line: g.string(g.grain_source[i]).to_string(),
            outline_function: g.string(g.grain_outline[i]).to_string(),
        })
        .collect();
    rows.sort_dyn_by(|x, y| y.severity.total_cmp(&x.severity).then(x.task.cmp(&y.task)));
    Some(rows)
}

/// A grain's properties and metrics, as (name, value) pairs in display order; unmeasured metrics say "NA".
pub fn grain_properties(a: &GrainAnalysis, grain: u32) -> Vec<(&'static str, String)> {
    let g = &a.graph;
    let i = grain as usize;
    if i >= g.grains() {
        return Vec::new();
    }
    let m = &a.metrics;
    let num = |v: Option<f64>| v.map(|v| format!("{v}")).unwrap_or_else(|| "NA".into());
    let parent = g.grain_parent[i];
    vec![
        ("task", g.grain_task[i].to_string()),
        ("lineage", g.string(g.grain_lineage[i]).to_string()),
        ("parent", if parent == super::NONE { "none".into() } else { g.grain_task[parent as usize].to_string() }),
        ("source_line", g.string(g.grain_source[i]).to_string()),
        ("outline_function", g.string(g.grain_outline[i]).to_string()),
        ("cpu_id", if g.grain_cpu[i] == super::NONE { "NA".into() } else { g.grain_cpu[i].to_string() }),
        ("fragments", g.grain_nodes_of(grain).len().to_string()),
        ("exec_cycles", m.exec[i].to_string()),
        ("creation_cycles", num(m.creation[i])),
        ("overhead_cycles", num(m.overhead[i])),
        ("work_cycles", num(m.work[i])),
        ("parallel_benefit", num(m.parallel_benefit[i])),
        ("work_deviation", num(m.work_deviation[i])),
        ("mem_hier_util", num(m.mem_hier_util[i])),
        ("sibling_work_balance", num(m.sibling_work_balance[i])),
        ("sibling_scatter", num(m.sibling_scatter[i])),
        ("inst_par_median", num(m.inst_par_median[i])),
        ("inst_par_min", num(m.inst_par_min[i])),
        ("inst_par_max", num(m.inst_par_max[i])),
        ("on_critical_path", a.grain_on_critical[i].to_string()),
    ]
}

/// A number finds the grain with that task id; other text (and a number no task has, such as an outline
/// function's address in a MIR profile) finds grains whose source line, outline function or lineage contains
/// it (case-insensitive). In grain order.
pub fn search(a: &GrainAnalysis, query: &str) -> Vec<u32> {
    let q = query.trim().to_lowercase();
    if q.is_empty() {
        return Vec::new();
    }
    let g = &a.graph;
    if let Ok(id) = q.parse::<u64>() {
        let by_task: Vec<u32> = (0..g.grains() as u32).filter(|&i| g.grain_task[i as usize] == id).collect();
        if !by_task.is_empty() {
            return by_task;
        }
    }
    // Match each distinct string once, then grains by their string ids.
    let hit: Vec<bool> = g.strings.iter().map(|s| !s.is_empty() && s.to_lowercase().contains(&q)).collect();
    (0..g.grains() as u32)
        .filter(|&i| {
            let i = i as usize;
            hit[g.grain_source[i] as usize] || hit[g.grain_outline[i] as usize] || hit[g.grain_lineage[i] as usize]
        })
        .collect()
}

/// One metric's line in the problems summary: how many grains cross its threshold, how many of them lie on
/// the critical path, and the worst offender.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ProblemSummary {
    pub metric: &'static str,
    /// The threshold in words, e.g. "parallel_benefit < 1".
    pub threshold: String,
    pub count: usize,
    pub on_critical_path: usize,
    /// The most severe problematic grain (ties: lowest task id); None when no grain is problematic.
    pub worst: Option<ProblemRow>,
}

/// The summary of every problem view under the current thresholds, in [`super::METRICS`] order.
pub fn problem_summary(a: &GrainAnalysis) -> Vec<ProblemSummary> {
    let g = &a.graph;
    a.problems
        .iter()
        .map(|p| {
            let values = super::problems::metric_values(&a.metrics, p.metric, &a.thresholds, a.cores).map(|v| v.0);
            let mut on_critical_path = 0;
            let mut worst: Option<usize> = None;
            for i in (0..g.grains()).filter(|&i| p.problematic[i]) {
                on_critical_path += a.grain_on_critical[i] as usize;
                let better = worst.is_none_or(|w| {
                    p.severity[i].total_cmp(&p.severity[w]).then(g.grain_task[w].cmp(&g.grain_task[i])).is_gt()
                });
                if better {
                    worst = Some(i);
                }
            }
            let worst = worst.map(|i| ProblemRow {
                grain: i as u32,
                task: g.grain_task[i],
                value: values.and_then(|v| v[i]).unwrap_or(f64::NAN),
                severity: p.severity[i],
                on_critical_path: a.grain_on_critical[i],
                source_line: g.string(g.grain_source[i]).to_string(),
                outline_function: g.string(g.grain_outline[i]).to_string(),
            });
            ProblemSummary {
                metric: p.metric,
                threshold: p.bound.describe(p.metric),
                count: p.count,
                on_critical_path,
                worst,
            }
        })
        .collect()
}

/// A move from one grain to a related one, for keyboard navigation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    Parent,
    FirstChild,
    NextSibling,
    PreviousSibling,
}

impl Step {
    pub fn parse(s: &str) -> Option<Step> {
        Some(match s {
            "parent" => Step::Parent,
            "child" => Step::FirstChild,
            "next" => Step::NextSibling,
            "previous" => Step::PreviousSibling,
            _ => return None,
        })
    }
}

/// The grain one step from `grain` (siblings and children in grain order), or None where there is none.
pub fn step(a: &GrainAnalysis, grain: u32, step: Step) -> Option<u32> {
    let g = &a.graph;
    let parent = *g.grain_parent.get(grain as usize)?;
    let n = g.grains() as u32;
    match step {
        Step::Parent => (parent != super::NONE && parent < n).then_some(parent),
        Step::FirstChild => (0..n).find(|&c| g.grain_parent[c as usize] == grain),
        Step::NextSibling => (grain + 1..n).find(|&s| g.grain_parent[s as usize] == parent),
        Step::PreviousSibling => (0..grain).rev().find(|&s| g.grain_parent[s as usize] == parent),
    }
}
