//! Questions the views ask of an analysed grain graph: the table of a problem view's grains (worst first),
//! a grain's properties and metrics for the details panel, and search by task id, source location or
//! function. Pure functions; no layout, no drawing.

use super::GrainAnalysis;
use serde::Serialize;

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
    rows.sort_by(|x, y| y.severity.total_cmp(&x.severity).then(x.task.cmp(&y.task)));
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

/// A number finds the grain with that task id; other text finds grains whose source line, outline function
/// or lineage contains it (case-insensitive). In grain order.
pub fn search(a: &GrainAnalysis, query: &str) -> Vec<u32> {
    let q = query.trim().to_lowercase();
    if q.is_empty() {
        return Vec::new();
    }
    let g = &a.graph;
    if let Ok(id) = q.parse::<u64>() {
        return (0..g.grains() as u32).filter(|&i| g.grain_task[i as usize] == id).collect();
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
