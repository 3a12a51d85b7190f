//! A grain graph from one another tool built ([`GrainNodes`], the prototype's GraphML): its typed nodes and
//! edges, nodes renumbered into a topological order, fragments grouped into grains. Refuses graphs with
//! cycles, naming the nodes of one. The nesting is not reconstructed (`nested` is false), so such graphs
//! are drawn by the general layered layout. Computes no metric.

use super::graph::{Csr, EdgeKind, GrainGraph, Groups, NONE};
use thiserror::Error;
use weft_model::grains::GrainNodes;
use weft_model::sort::SortDyn;
use weft_model::{StringId, StringTable};

#[derive(Debug, Error)]
pub enum GraphError {
    /// `cycle`: the nodes of one cycle by name, in edge order, e.g. `"b" -> "c" -> "b"`.
    #[error("{file}: the graph is not acyclic: cycle: {cycle}")]
    Cyclic { file: String, cycle: String },
    #[error("{file}: the graph is undirected; grain graphs are directed")]
    Undirected { file: String },
}

pub fn from_nodes(x: &GrainNodes) -> Result<GrainGraph, GraphError> {
    if !x.directed {
        return Err(GraphError::Undirected { file: x.file.clone() });
    }
    let n = x.nodes();
    let out = Csr::build(n, &x.edge_source);
    let order = document_order(n, &x.edge_target, &out);
    if order.len() < n {
        let cycle = super::visit::find_cycle(n, &x.edge_source, &x.edge_target).unwrap_or_default();
        let cycle = crate::cycles::cycle_text(&cycle, |v| format!("{:?}", x.name[v as usize]));
        return Err(GraphError::Cyclic { file: x.file.clone(), cycle });
    }
    let mut new_id = vec![0u32; n];
    for (i, &v) in order.iter().enumerate() {
        new_id[v as usize] = i as u32;
    }
    let mut strings = StringTable::default();
    let mut g = GrainGraph {
        unit: x.unit,
        grain_task: Vec::new(),
        grain_parent: Vec::new(),
        grain_cpu: Vec::new(),
        grain_exec: Vec::new(),
        grain_outline: Vec::new(),
        grain_source: Vec::new(),
        grain_lineage: Vec::new(),
        grain_row: Vec::new(),
        grain_node_start: vec![0],
        grain_nodes: Vec::new(),
        grain_group_start: Vec::new(),
        groups: Groups { child_start: vec![0], ..Default::default() },
        nested: false,
        node_kind: Vec::with_capacity(n),
        node_grain: vec![NONE; n],
        node_exec: Vec::with_capacity(n),
        node_index: vec![0; n],
        node_names: Vec::with_capacity(n),
        edge_source: Vec::new(),
        edge_target: Vec::new(),
        edge_kind: Vec::new(),
        edge_delay: Vec::new(),
        out: Csr::default(),
        inc: Csr::default(),
        strings: Vec::new(),
    };
    // Grains: each task node, and each set of fragments with one grain key.
    let mut grain_of_key: std::collections::HashMap<StringId, u32> = std::collections::HashMap::new();
    let mut members: Vec<Vec<u32>> = Vec::new();
    for &v in &order {
        let vi = v as usize;
        let kind = x.kind[vi];
        let exec = x.exec[vi];
        let id = new_id[vi];
        g.node_kind.push(kind);
        g.node_exec.push(exec);
        g.node_names.push(x.name[vi].clone());
        if kind.holds_work() {
            let gi = *grain_of_key.entry(x.grain[vi]).or_insert_with(|| {
                let gi = g.grain_task.len() as u32;
                g.grain_task.push(x.task[vi].unwrap_or(gi as u64));
                g.grain_parent.push(NONE);
                g.grain_cpu.push(x.core[vi].unwrap_or(NONE));
                g.grain_exec.push(0);
                g.grain_outline.push(strings.intern(x.strings.get(x.function[vi])).0);
                g.grain_source.push(strings.intern(x.strings.get(x.source[vi])).0);
                g.grain_lineage.push(0);
                g.grain_row.push(v);
                members.push(Vec::new());
                gi
            });
            g.grain_exec[gi as usize] += exec;
            members[gi as usize].push(id);
            g.node_grain[id as usize] = gi;
        }
    }
    for m in &members {
        g.grain_nodes.extend_from_slice(m);
        g.grain_node_start.push(g.grain_nodes.len() as u32);
    }
    let grains = g.grains();
    g.grain_group_start = vec![0; grains + 2];
    // Parents, where the input says them (the parent's task id).
    let by_task: std::collections::HashMap<u64, u32> =
        g.grain_task.iter().enumerate().map(|(i, &t)| (t, i as u32)).collect();
    for gi in 0..grains {
        if let Some(p) = x.parent[g.grain_row[gi] as usize] {
            g.grain_parent[gi] = by_task.get(&p).copied().filter(|&q| q as usize != gi).unwrap_or(NONE);
        }
    }
    let mut edges: Vec<(u32, u32, EdgeKind, u64)> = (0..x.edge_source.len())
        .map(|e| {
            let delay = x.edge_delay.get(e).copied().unwrap_or(0);
            (new_id[x.edge_source[e] as usize], new_id[x.edge_target[e] as usize], x.edge_kind[e], delay)
        })
        .collect();
    edges.sort_dyn_by_key(|&(s, t, k, d)| (s, t, k as u8, d));
    for (s, t, k, d) in edges {
        g.edge_source.push(s);
        g.edge_target.push(t);
        g.edge_kind.push(k);
        g.edge_delay.push(d);
    }
    g.strings = strings.iter().map(str::to_string).collect();
    g.finish();
    Ok(g)
}

/// Kahn's algorithm with ready nodes taken in document order (a min-heap), so the numbering is deterministic:
/// a topological order of the `n` nodes, or fewer than `n` nodes when there is a cycle. `out`: the out-edges
/// (`Csr::build(n, source)`). Hand-written: petgraph's `toposort` gives another order (BENCHMARKS.md).
pub fn document_order(n: usize, target: &[u32], out: &Csr) -> Vec<u32> {
    let mut indeg = vec![0u32; n];
    for &t in target {
        indeg[t as usize] += 1;
    }
    let mut ready: std::collections::BinaryHeap<std::cmp::Reverse<u32>> =
        (0..n as u32).filter(|&v| indeg[v as usize] == 0).map(std::cmp::Reverse).collect();
    let mut order = Vec::with_capacity(n);
    while let Some(std::cmp::Reverse(v)) = ready.pop() {
        order.push(v);
        for &e in out.of(v) {
            let t = target[e as usize];
            indeg[t as usize] -= 1;
            if indeg[t as usize] == 0 {
                ready.push(std::cmp::Reverse(t));
            }
        }
    }
    order
}
