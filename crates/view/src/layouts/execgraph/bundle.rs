//! An execution graph with its layout, packed for the trip from the worker (which builds and lays it out)
//! to the page (which only draws it). postcard bytes; decoding checks the pieces fit together.

use super::{layout, ExecLayout, Scale};
use serde::{Deserialize, Serialize};
use weft_analyses::execgraph::{ExecGraph, NONE};

/// Height, in pixels, of the true-scale drawing a minimum edge length in pixels is measured against.
pub const REFERENCE_PLOT_PX: f64 = 800.0;

/// The figures of `weft execgraph --json` (a stable interface: exactly these keys), also the page's summary.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct ExecFigures {
    pub threads: usize,
    pub nodes: usize,
    pub columns: u32,
    pub crossings: u64,
    pub parents_bipartite: u32,
    pub parents_not_bipartite: u32,
}

impl ExecFigures {
    pub fn of(g: &ExecGraph, l: &ExecLayout) -> Self {
        ExecFigures {
            threads: g.threads.len(),
            nodes: g.nodes.len(),
            columns: l.columns,
            crossings: l.crossings,
            parents_bipartite: l.parents_bipartite,
            parents_not_bipartite: l.parents_not_bipartite,
        }
    }
}

#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct ExecBundle {
    pub graph: ExecGraph,
    pub layout: ExecLayout,
}

/// The scale for "raise short edges to `px` pixels of an 800-pixel true-scale drawing" (0 = true scale).
pub fn scale_for_min_px(graph: &ExecGraph, px: f64) -> Scale {
    if !(px.is_finite() && px > 0.0) {
        return Scale::True;
    }
    let height = layout(graph, Scale::True).height_ns.max(1) as f64;
    Scale::MinEdge { min_ns: (px * height / REFERENCE_PLOT_PX).ceil() as u64 }
}

impl ExecBundle {
    pub fn new(graph: ExecGraph, scale: Scale) -> Self {
        let layout = layout(&graph, scale);
        ExecBundle { graph, layout }
    }

    pub fn encode(&self) -> Vec<u8> {
        postcard::to_allocvec(self).unwrap_or_default()
    }

    pub fn decode(bytes: &[u8]) -> Result<Self, String> {
        let b: ExecBundle = postcard::from_bytes(bytes).map_err(|e| format!("execution graph buffer corrupt: {e}"))?;
        let n = b.graph.nodes.len();
        let t = b.graph.threads.len();
        let fits = b.layout.y_ns.len() == n
            && b.layout.column.len() == t
            && b.layout.thread_at.len() == b.layout.columns as usize
            && (b.layout.lane.is_empty() || b.layout.lane.len() == t)
            && b.layout.guests.iter().all(|&x| (x as usize) < t)
            && (b.layout.guest_start.is_empty()
                || (b.layout.guest_start.len() == b.layout.columns as usize + 1
                    && b.layout.guest_start.windows(2).all(|w| w[0] <= w[1])
                    && b.layout.guest_start.last().is_some_and(|&e| e as usize == b.layout.guests.len())))
            && (b.graph.runs_on.is_empty() || b.graph.runs_on.len() == t)
            && b.graph.runs_on.iter().all(|&h| h == NONE || (h as usize) < t)
            && b.layout.top_ns.len() == t
            && b.layout.bottom_ns.len() == t
            && b.graph.nodes.iter().all(|x| (x.thread as usize) < t && ((x.partner as usize) < n || x.partner == NONE))
            && b.layout.column.iter().all(|&c| c < b.layout.columns.max(1))
            && b.layout.thread_at.iter().all(|&x| (x as usize) < t);
        if !fits {
            return Err("execution graph buffer corrupt: layout and graph disagree".into());
        }
        Ok(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft_analyses::execgraph::build;
    use weft_samples::execgraph::sample;

    #[test]
    fn bundle_round_trips_and_rejects_corruption() {
        let ev = sample("fib").expect("fib sample");
        let g = build(&ev).expect("fib builds");
        let scale = scale_for_min_px(&g, 8.0);
        assert!(matches!(scale, Scale::MinEdge { .. }));
        let b = ExecBundle::new(g, scale);
        let bytes = b.encode();
        let d = ExecBundle::decode(&bytes).expect("decodes");
        assert_eq!(d.layout, b.layout);
        assert_eq!(d.graph.nodes, b.graph.nodes);
        for cut in (0..bytes.len()).step_by(97) {
            assert!(ExecBundle::decode(&bytes[..cut]).is_err());
        }
    }
}
