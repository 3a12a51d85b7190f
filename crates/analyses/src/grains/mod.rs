//! Grain graphs of OpenMP programs (Muddukrishna et al.): the graph of grains, fragments, forks and joins
//! (`graph`, or `import` from the prototype's GraphML), its critical path, per-grain metrics and the
//! problems they point to. Pure functions of the grain model (`model::grains`); no layout, no drawing.

pub mod critical;
pub mod graph;
pub mod import;
pub mod metrics;
pub mod parallelism;
pub mod problems;
pub mod query;
pub mod visit;

pub use critical::{critical_path, CriticalPath};
pub use graph::{from_profile, EdgeKind, GrainGraph, NodeKind, TimeUnit, NONE};
pub use metrics::Metrics;
pub use parallelism::Parallelism;
pub use problems::{ProblemView, Thresholds, METRICS};

use weft_model::grains::Grains;

/// A grain graph with everything derived from it.
#[derive(Clone, Debug)]
pub struct GrainAnalysis {
    pub graph: GrainGraph,
    pub critical: CriticalPath,
    pub metrics: Metrics,
    /// Cores from the profile (by the thresholds' rule) unless the thresholds give them.
    pub cores: u32,
    pub thresholds: Thresholds,
    pub problems: Vec<ProblemView>,
    /// Per grain: is any of its nodes on the critical path?
    pub grain_on_critical: Vec<bool>,
    /// How many grains run at each instant of the critical-path-distance axis.
    pub parallelism: Parallelism,
    /// The distinct cpu ids grains ran on, ascending (the `cpu_id` colouring ranks grains' cpus in it).
    pub cpu_ids: Vec<u32>,
}

impl GrainAnalysis {
    pub fn new(input: &Grains, thresholds: Thresholds) -> Result<Self, import::GraphError> {
        let (graph, critical, metrics) = match input {
            Grains::Profile(p) => {
                let g = from_profile(p);
                let cp = critical_path(&g);
                let m = metrics::from_profile(&g, p, &cp);
                (g, cp, m)
            }
            Grains::Graph(x) => {
                let g = import::from_nodes(x)?;
                let cp = critical_path(&g);
                let m = metrics::from_nodes(&g, x, &cp);
                (g, cp, m)
            }
        };
        Ok(Self::assemble(graph, critical, metrics, thresholds))
    }

    pub fn assemble(graph: GrainGraph, critical: CriticalPath, metrics: Metrics, thresholds: Thresholds) -> Self {
        let parallelism = Parallelism::new(&graph, &critical);
        Self::assemble_with(graph, critical, metrics, parallelism, thresholds)
    }

    /// [`GrainAnalysis::assemble`] with the parallelism profile computed already (the worker's, on the page).
    pub fn assemble_with(
        graph: GrainGraph,
        critical: CriticalPath,
        metrics: Metrics,
        parallelism: Parallelism,
        thresholds: Thresholds,
    ) -> Self {
        let cores = thresholds.cores.unwrap_or_else(|| problems::cores_of(&graph.grain_cpu, thresholds.cores_from));
        let problems = METRICS.iter().map(|m| problems::problem_view(&metrics, m, &thresholds, cores)).collect();
        let grain_on_critical = (0..graph.grains())
            .map(|g| graph.grain_nodes_of(g as u32).iter().any(|&v| critical.on_node[v as usize]))
            .collect();
        let cpu_ids = distinct_cpus(&graph.grain_cpu);
        GrainAnalysis { graph, critical, metrics, cores, thresholds, problems, grain_on_critical, parallelism, cpu_ids }
    }

    /// Recompute the problem views under other thresholds (graph, critical path and metrics stay).
    pub fn set_thresholds(&mut self, thresholds: Thresholds) {
        self.cores =
            thresholds.cores.unwrap_or_else(|| problems::cores_of(&self.graph.grain_cpu, thresholds.cores_from));
        self.problems =
            METRICS.iter().map(|m| problems::problem_view(&self.metrics, m, &thresholds, self.cores)).collect();
        self.thresholds = thresholds;
    }

    pub fn problem(&self, metric: &str) -> Option<&ProblemView> {
        self.problems.iter().find(|p| p.metric == metric)
    }

    pub fn summary(&self) -> String {
        problems::summary(&self.problems, &self.grain_on_critical)
    }
}

/// The distinct cpu ids, ascending. Runs on the page when a bundle is read: a few dozen cores cost a binary
/// search per grain, not a sort of every grain's id; past 4,096 distinct ids (bad input) it sorts them all.
fn distinct_cpus(cpus: &[u32]) -> Vec<u32> {
    let mut seen: Vec<u32> = Vec::new();
    let mut last = NONE;
    for &c in cpus {
        if c == NONE || c == last {
            continue;
        }
        last = c;
        if let Err(i) = seen.binary_search(&c) {
            if seen.len() >= 4096 {
                let mut all: Vec<u32> = cpus.iter().copied().filter(|&c| c != NONE).collect();
                all.sort_unstable();
                all.dedup();
                return all;
            }
            seen.insert(i, c);
        }
    }
    seen
}

#[cfg(test)]
mod tests {
    #[test]
    fn distinct_cpus_equal_a_sort_and_dedup() {
        let mut x = 12345u64;
        for (n, range) in [(1000usize, 48u64), (20_000, 10_000), (50, 3)] {
            let cpus: Vec<u32> = (0..n)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    if x.is_multiple_of(11) {
                        super::NONE
                    } else {
                        (x % range) as u32
                    }
                })
                .collect();
            let mut want: Vec<u32> = cpus.iter().copied().filter(|&c| c != super::NONE).collect();
            want.sort_unstable();
            want.dedup();
            assert_eq!(super::distinct_cpus(&cpus), want, "{n} grains over {range} ids");
        }
    }
}
