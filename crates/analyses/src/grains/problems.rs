//! Problems: grains whose metric crosses a threshold. Thresholds default to the papers' and can be switched
//! to the grain-graphs prototype's (`grain-problems.cfg`) or set one by one; "cores" comes from the profile
//! (max cpu_id + 1, or the number of distinct cpu ids as the prototype counts) unless given. Severity is
//! how far past its threshold a grain lies, in [0, 1]. Draws nothing.

use super::metrics::Metrics;
use serde::Serialize;

/// Which way a threshold points.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Bound {
    /// A value below the threshold is a problem.
    Below(f64),
    /// A value above the threshold is a problem.
    Above(f64),
}

impl Bound {
    pub fn crossed(self, v: f64) -> bool {
        match self {
            Bound::Below(t) => v < t,
            Bound::Above(t) => v > t,
        }
    }
    /// How far past the threshold, in [0, 1] (0 when not crossed).
    pub fn severity(self, v: f64) -> f64 {
        let s = match self {
            Bound::Below(t) if v < t => (t - v) / t.abs().max(f64::MIN_POSITIVE),
            Bound::Above(t) if v > t => (v - t) / v.abs().max(f64::MIN_POSITIVE),
            _ => 0.0,
        };
        s.clamp(0.0, 1.0)
    }
    /// The threshold's value.
    pub fn value(self) -> f64 {
        match self {
            Bound::Below(t) | Bound::Above(t) => t,
        }
    }
    /// The same direction at another value (a threshold the user set).
    pub fn at(self, t: f64) -> Bound {
        match self {
            Bound::Below(_) => Bound::Below(t),
            Bound::Above(_) => Bound::Above(t),
        }
    }
    pub fn describe(self, metric: &str) -> String {
        match self {
            Bound::Below(t) => format!("{metric} < {t}"),
            Bound::Above(t) => format!("{metric} > {t}"),
        }
    }
}

/// How "cores" is counted from the profile when not given.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CoresFrom {
    MaxCpuIdPlusOne,
    DistinctCpuIds,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Thresholds {
    /// Where these come from, for display ("paper", "prototype", or "custom").
    pub source: &'static str,
    pub mem_hier_util: Bound,
    pub parallel_benefit: Bound,
    pub work_deviation: Bound,
    pub sibling_work_balance: Bound,
    /// Cores that executed the program; None: from the profile by `cores_from`.
    pub cores: Option<u32>,
    pub cores_from: CoresFrom,
    /// Sibling scatter is a problem beyond this many cores (the cores of a socket); None: cores / 4.
    pub sibling_scatter_cores: Option<f64>,
}

impl Default for Thresholds {
    fn default() -> Self {
        Self::paper()
    }
}

impl Thresholds {
    /// The papers: memory hierarchy utilization below 2, parallel benefit below 1, load balance above 1,
    /// work deviation above 2, instantaneous parallelism below the cores, scatter beyond a socket's cores.
    pub fn paper() -> Self {
        Thresholds {
            source: "paper",
            mem_hier_util: Bound::Below(2.0),
            parallel_benefit: Bound::Below(1.0),
            work_deviation: Bound::Above(2.0),
            sibling_work_balance: Bound::Above(1.0),
            cores: None,
            cores_from: CoresFrom::MaxCpuIdPlusOne,
            sibling_scatter_cores: None,
        }
    }
    /// The prototype's `grain-problems.cfg`: mem_hier_util > 0.5, sibling_work_balance > 2, cores counted as
    /// distinct cpu ids, scatter > cores / 4.
    pub fn prototype() -> Self {
        Thresholds {
            source: "prototype",
            mem_hier_util: Bound::Above(0.5),
            sibling_work_balance: Bound::Above(2.0),
            cores_from: CoresFrom::DistinctCpuIds,
            ..Self::paper()
        }
    }
}

/// The metrics problems are inferred for, by their stable names (the prototype's).
pub const METRICS: [&str; 8] = [
    "parallel_benefit",
    "work_deviation",
    "memory_hierarchy_utilization",
    "sibling_work_balance",
    "sibling_scatter",
    "instantaneous_parallelism_median",
    "instantaneous_parallelism_min",
    "instantaneous_parallelism_max",
];

/// Cores from the grains' cpu ids (0 when none is known).
pub fn cores_of(cpus: &[u32], from: CoresFrom) -> u32 {
    let known = cpus.iter().copied().filter(|&c| c != u32::MAX);
    match from {
        CoresFrom::MaxCpuIdPlusOne => known.max().map(|m| m + 1).unwrap_or(0),
        CoresFrom::DistinctCpuIds => {
            let mut v: Vec<u32> = known.collect();
            v.sort_unstable();
            v.dedup();
            v.len() as u32
        }
    }
}

/// One metric's problem view: per grain, its severity when problematic.
#[derive(Clone, Debug)]
pub struct ProblemView {
    pub metric: &'static str,
    pub bound: Bound,
    pub problematic: Vec<bool>,
    pub severity: Vec<f32>,
    pub count: usize,
}

/// The values and threshold of one metric.
pub fn metric_values<'a>(
    m: &'a Metrics,
    metric: &str,
    t: &Thresholds,
    cores: u32,
) -> Option<(&'a [Option<f64>], Bound)> {
    let inst = Bound::Below(cores as f64);
    Some(match metric {
        "parallel_benefit" => (&m.parallel_benefit, t.parallel_benefit),
        "work_deviation" => (&m.work_deviation, t.work_deviation),
        "memory_hierarchy_utilization" => (&m.mem_hier_util, t.mem_hier_util),
        "sibling_work_balance" => (&m.sibling_work_balance, t.sibling_work_balance),
        "sibling_scatter" => (&m.sibling_scatter, Bound::Above(t.sibling_scatter_cores.unwrap_or(cores as f64 / 4.0))),
        "instantaneous_parallelism_median" => (&m.inst_par_median, inst),
        "instantaneous_parallelism_min" => (&m.inst_par_min, inst),
        "instantaneous_parallelism_max" => (&m.inst_par_max, inst),
        _ => return None,
    })
}

pub fn problem_view(m: &Metrics, metric: &'static str, t: &Thresholds, cores: u32) -> ProblemView {
    let (vals, bound) = metric_values(m, metric, t, cores).unwrap_or((&[], Bound::Below(f64::NEG_INFINITY)));
    let problematic: Vec<bool> = vals.iter().map(|v| v.is_some_and(|v| bound.crossed(v))).collect();
    let severity = vals.iter().map(|v| v.map(|v| bound.severity(v) as f32).unwrap_or(0.0)).collect();
    let count = problematic.iter().filter(|&&p| p).count();
    ProblemView { metric, bound, problematic, severity, count }
}

/// The prototype-style text summary: one line per metric, with how many problem grains lie on the
/// critical path.
pub fn summary(views: &[ProblemView], grain_on_critical: &[bool]) -> String {
    let mut s = String::new();
    for v in views {
        let crit = v.problematic.iter().zip(grain_on_critical).filter(|(p, c)| **p && **c).count();
        s.push_str(&format!(
            "{} grains have {}, {} of which are on the critical path.\n",
            v.count,
            v.bound.describe(v.metric),
            crit
        ));
    }
    s
}
