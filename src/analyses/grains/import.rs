//! A grain graph from the prototype's GraphML: node and edge types as written (task, fragment, fork, join,
//! start, end; create, scope, sync, continue), nodes renumbered into a topological order. Refuses graphs
//! with cycles, naming the nodes of one. The nesting is not reconstructed (`nested` is false), so such
//! graphs are drawn by the general layered layout. Computes no metric.

use super::graph::{Csr, EdgeKind, GrainGraph, Groups, Interner, NodeKind, TimeUnit, NONE};
use crate::readers::graphml::GraphMlGraph;
use crate::sort::SortDyn;
use thiserror::Error;

#[derive(Debug, Error)]
pub enum GraphError {
    /// `cycle`: the nodes of one cycle by name, in edge order, e.g. `"b" -> "c" -> "b"`.
    #[error("{file}: the graph is not acyclic: cycle: {cycle}")]
    Cyclic { file: String, cycle: String },
    #[error("{file}: the graph is undirected; grain graphs are directed")]
    Undirected { file: String },
}

fn kind_of(ty: Option<&str>, name: &str) -> NodeKind {
    match ty {
        Some("task") => NodeKind::Task,
        Some("fragment") => NodeKind::Fragment,
        Some("fork") => NodeKind::Fork,
        Some("join") => NodeKind::Join,
        Some("start") => NodeKind::Start,
        Some("end") => NodeKind::End,
        _ => {
            if name == "E" {
                NodeKind::End
            } else if name == "0" {
                NodeKind::Start
            } else if name.starts_with("f.") {
                NodeKind::Fork
            } else if name.starts_with("j.") {
                NodeKind::Join
            } else if name.contains('.') {
                NodeKind::Fragment
            } else {
                NodeKind::Task
            }
        }
    }
}

fn edge_kind_of(ty: Option<&str>) -> EdgeKind {
    match ty {
        Some("create") => EdgeKind::Create,
        Some("sync") => EdgeKind::Sync,
        Some("continue") | Some("continuation") => EdgeKind::Continue,
        _ => EdgeKind::Scope,
    }
}

/// Numbers as igraph writes them ("4203733", "4.203733e+06") back to their shortest text.
fn number_text(v: Option<&str>) -> String {
    match v.map(str::trim) {
        None | Some("NA") | Some("") => String::new(),
        Some(s) => match s.parse::<f64>() {
            Ok(x) if x.fract() == 0.0 && x.abs() < 1e15 => format!("{}", x as i64),
            _ => s.to_string(),
        },
    }
}

pub fn from_graphml(x: &GraphMlGraph) -> Result<GrainGraph, GraphError> {
    if !x.directed {
        return Err(GraphError::Undirected { file: x.file.clone() });
    }
    let n = x.node_ids.len();
    let a = &x.nodes;
    let (k_type, k_name, k_exec, k_task) =
        (a.key_of("type"), a.key_of("name"), a.key_of("exec_cycles"), a.key_of("task"));
    let name_of = |i: usize| -> String {
        k_name.and_then(|k| a.get_key(i, k)).map(str::to_string).unwrap_or_else(|| x.node_ids[i].clone())
    };
    // Kahn's algorithm, ties in document order, so the numbering is deterministic.
    let mut indeg = vec![0u32; n];
    for &t in &x.edge_target {
        indeg[t as usize] += 1;
    }
    let out = {
        let mut start = vec![0u32; n + 1];
        for &s in &x.edge_source {
            start[s as usize + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut edges = vec![0u32; x.edge_source.len()];
        for (e, &s) in x.edge_source.iter().enumerate() {
            edges[fill[s as usize] as usize] = e as u32;
            fill[s as usize] += 1;
        }
        Csr { start, edges }
    };
    let mut ready: std::collections::BinaryHeap<std::cmp::Reverse<u32>> =
        (0..n as u32).filter(|&v| indeg[v as usize] == 0).map(std::cmp::Reverse).collect();
    let mut order = Vec::with_capacity(n);
    while let Some(std::cmp::Reverse(v)) = ready.pop() {
        order.push(v);
        for &e in out.of(v) {
            let t = x.edge_target[e as usize];
            indeg[t as usize] -= 1;
            if indeg[t as usize] == 0 {
                ready.push(std::cmp::Reverse(t));
            }
        }
    }
    if order.len() < n {
        let cycle = super::visit::find_cycle(n, &x.edge_source, &x.edge_target).unwrap_or_default();
        let cycle = crate::analyses::cycles::cycle_text(&cycle, |v| format!("{:?}", name_of(v as usize)));
        return Err(GraphError::Cyclic { file: x.file.clone(), cycle });
    }
    let mut new_id = vec![0u32; n];
    for (i, &v) in order.iter().enumerate() {
        new_id[v as usize] = i as u32;
    }
    let mut strings = Interner::default();
    strings.id("");
    let mut g = GrainGraph {
        unit: TimeUnit::Cycles,
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
    // Grains: each task node, and each set of fragments with one task id.
    let mut grain_of_task: std::collections::HashMap<String, u32> = std::collections::HashMap::new();
    let mut members: Vec<Vec<u32>> = Vec::new();
    let (k_cpu, k_outline, k_source) = (a.key_of("cpu_id"), a.key_of("outline_function"), a.key_of("source_line"));
    for &v in &order {
        let vi = v as usize;
        let name = name_of(vi);
        let kind = kind_of(k_type.and_then(|k| a.get_key(vi, k)), &name);
        let exec = if kind.holds_work() {
            a.number(vi, k_exec).filter(|e| *e >= 0.0).map(|e| e.round() as u64).unwrap_or(0)
        } else {
            0
        };
        let id = new_id[vi];
        g.node_kind.push(kind);
        g.node_exec.push(exec);
        g.node_names.push(name.clone());
        if kind.holds_work() {
            let task_key = match kind {
                NodeKind::Task => format!("t{vi}"),
                _ => number_text(k_task.and_then(|k| a.get_key(vi, k))).to_string(),
            };
            let task_key =
                if task_key.is_empty() { name.split('.').next().unwrap_or("").to_string() } else { task_key };
            let gi = *grain_of_task.entry(task_key).or_insert_with(|| {
                let gi = g.grain_task.len() as u32;
                let task_text = number_text(k_task.and_then(|k| a.get_key(vi, k)));
                let task = task_text
                    .parse::<u64>()
                    .or_else(|_| name.split('.').next().unwrap_or("").parse::<u64>())
                    .unwrap_or(gi as u64);
                g.grain_task.push(task);
                g.grain_parent.push(NONE);
                g.grain_cpu.push(
                    a.number(vi, k_cpu).filter(|c| *c >= 0.0 && *c < u32::MAX as f64).map(|c| c as u32).unwrap_or(NONE),
                );
                g.grain_exec.push(0);
                g.grain_outline.push(strings.id(&number_text(k_outline.and_then(|k| a.get_key(vi, k)))));
                g.grain_source.push(strings.id(k_source.and_then(|k| a.get_key(vi, k)).unwrap_or("")));
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
    // Parents, where the GraphML says them (`parent` is the parent's task id).
    let k_parent = a.key_of("parent");
    let by_task: std::collections::HashMap<u64, u32> =
        g.grain_task.iter().enumerate().map(|(i, &t)| (t, i as u32)).collect();
    for gi in 0..grains {
        if let Some(p) = a.number(g.grain_row[gi] as usize, k_parent) {
            g.grain_parent[gi] = by_task.get(&(p as u64)).copied().filter(|&q| q as usize != gi).unwrap_or(NONE);
        }
    }
    let k_etype = x.edges.key_of("type");
    let mut edges: Vec<(u32, u32, EdgeKind)> = (0..x.edge_source.len())
        .map(|e| {
            (
                new_id[x.edge_source[e] as usize],
                new_id[x.edge_target[e] as usize],
                edge_kind_of(k_etype.and_then(|k| x.edges.get_key(e, k))),
            )
        })
        .collect();
    edges.sort_dyn_by_key(|&(s, t, k)| (s, t, k as u8));
    for (s, t, k) in edges {
        g.edge_source.push(s);
        g.edge_target.push(t);
        g.edge_kind.push(k);
        g.edge_delay.push(0);
    }
    g.strings = strings.strings;
    g.finish();
    Ok(g)
}
