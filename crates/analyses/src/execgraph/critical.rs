//! The critical path: the chain of run time through the graph that no parallelism can shorten. Flow edges
//! weigh their run time, idle edges (b-join to a-join) and structural edges nothing, so a join is reached
//! through whichever of the waiting thread and the joined subthread carried more work. One pass over the
//! topological order; must not depend on the drawing's time scale.

use super::{ExecGraph, NodeIx, NONE};

pub(super) fn mark(g: &mut ExecGraph) {
    let n = g.nodes.len();
    let mut dist = vec![0u64; n];
    let mut via_partner = vec![false; n];
    for &v in &g.topo {
        let vi = v as usize;
        if let Some(p) = g.chain_pred(v) {
            let w = if g.idle_into(v) { 0 } else { g.nodes[vi].time_ns.saturating_sub(g.nodes[p as usize].time_ns) };
            dist[vi] = dist[p as usize] + w;
        }
        if let Some(p) = g.partner_pred(v) {
            if dist[p as usize] > dist[vi] || (dist[p as usize] == dist[vi] && g.chain_pred(v).is_none()) {
                dist[vi] = dist[p as usize];
                via_partner[vi] = true;
            }
        }
    }
    g.critical = vec![false; n];
    g.critical_via_partner = vec![false; n];
    // The path ends where the most run time has accumulated (the last one on ties, for determinism).
    let Some(mut v) = (0..n).max_by_key(|&v| (dist[v], v)).map(|v| v as NodeIx) else {
        return;
    };
    g.critical_ns = dist[v as usize];
    loop {
        let vi = v as usize;
        g.critical[vi] = true;
        g.critical_via_partner[vi] = via_partner[vi];
        let next = if via_partner[vi] { g.partner_pred(v) } else { g.chain_pred(v) };
        match next {
            Some(p) if p != NONE => v = p,
            _ => break,
        }
    }
}
