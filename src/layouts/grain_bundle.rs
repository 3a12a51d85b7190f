//! A grain graph with its metrics, critical path and layout, packed for the trip from the worker (which
//! reads, analyses and lays out) to the page (which draws). postcard bytes; the page re-derives the problem
//! views from the metrics (linear), so thresholds can change there without a round trip.

use super::grains::GrainLayout;
use crate::analyses::grains::{CriticalPath, GrainAnalysis, GrainGraph, Metrics, Thresholds};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct GrainBundle {
    pub graph: GrainGraph,
    pub critical: CriticalPath,
    pub metrics: Metrics,
    pub layout: GrainLayout,
}

impl GrainBundle {
    pub fn new(analysis: GrainAnalysis, layout: GrainLayout) -> Self {
        GrainBundle { graph: analysis.graph, critical: analysis.critical, metrics: analysis.metrics, layout }
    }

    pub fn encode(&self) -> Vec<u8> {
        postcard::to_allocvec(self).unwrap_or_default()
    }

    pub fn decode(bytes: &[u8]) -> Result<Self, String> {
        let b: GrainBundle = postcard::from_bytes(bytes).map_err(|e| format!("grain graph buffer corrupt: {e}"))?;
        let (n, e, g) = (b.graph.nodes(), b.graph.edge_source.len(), b.graph.grains());
        let l = &b.layout;
        let fits = l.x.len() == n
            && l.y.len() == n
            && l.w.len() == n
            && l.h.len() == n
            && l.point_start.len() == e + 1
            && l.point_start.windows(2).all(|w| w[0] <= w[1])
            && l.point_start.last().is_some_and(|&p| p as usize == l.points.len())
            && b.metrics.exec.len() == g
            && b.graph.grain_node_start.len() == g + 1
            && b.graph.node_grain.iter().all(|&x| (x as usize) < g || x == u32::MAX);
        if !fits {
            return Err("grain graph buffer corrupt: graph, metrics and layout disagree".into());
        }
        Ok(b)
    }

    /// The analysis under `thresholds` (problem views derived again from the metrics).
    pub fn analysis(self, thresholds: Thresholds) -> (GrainAnalysis, GrainLayout) {
        (GrainAnalysis::assemble(self.graph, self.critical, self.metrics, thresholds), self.layout)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layouts::grains::{layout, LayoutParams};
    use crate::samples::grains::fib_profile;

    #[test]
    fn bundle_round_trips_and_rejects_truncation() {
        let csv = fib_profile(20, 5, 8);
        let (input, _) =
            crate::readers::open("fib.csv", (&csv).into()).and_then(|i| i.into_grains("fib.csv")).expect("reads");
        let an = GrainAnalysis::new(&input, Thresholds::paper()).expect("analyses");
        let lay = layout(&an.graph, &LayoutParams::default());
        let problems: Vec<usize> = an.problems.iter().map(|p| p.count).collect();
        let bytes = GrainBundle::new(an, lay.clone()).encode();
        let (back, back_layout) = GrainBundle::decode(&bytes).expect("decodes").analysis(Thresholds::paper());
        assert_eq!(back.problems.iter().map(|p| p.count).collect::<Vec<_>>(), problems);
        assert_eq!(back_layout.x, lay.x);
        for cut in (0..bytes.len()).step_by(61) {
            assert!(GrainBundle::decode(&bytes[..cut]).is_err());
        }
    }
}
