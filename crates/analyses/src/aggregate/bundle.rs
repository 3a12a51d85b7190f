//! An aggregation (tree, propagated metrics) packed for the trip from the worker, which builds it beside the
//! grain graph it belongs to, to the page, which only navigates it (opening and closing groups stays there,
//! incremental). Decoding checks every length and id against the grain graph it is for and
//! that the tree is one tree (every node reached once from the root, parents and depths agreeing), so
//! corrupt or mismatched bytes are an error, never a panic or a loop later in the page. Columns as bytes
//! (weft_model::columns): postcard took longer to decode on the page (558 ms for 131,072 grains) than building the
//! aggregation there (219 ms). Builds nothing.

use super::{Aggregation, AggregationTree, GroupKind, GroupMetrics, Method};
use crate::grains::{GrainGraph, NONE};
use thiserror::Error;
use weft_model::columns::{ColumnError, ColumnReader, ColumnWriter};

#[derive(Debug, Error, PartialEq)]
pub enum AggregationBundleError {
    #[error("aggregation buffer corrupt: {0}")]
    Corrupt(String),
    #[error("aggregation buffer does not fit its grain graph: {0}")]
    Mismatch(String),
}

const MAGIC: &[u8; 8] = b"WEFTAGG1";

fn kind_of(b: u8) -> Option<GroupKind> {
    use GroupKind::*;
    [Leaf, Linear, ForkJoin, Separated, SeparatedLinear, Sibling, Family].get(b as usize).copied()
}

/// `agg`, built from `graph`, as bytes (column by column: see weft_model::columns).
pub fn encode(agg: &Aggregation, graph: &GrainGraph) -> Vec<u8> {
    let mut w = ColumnWriter::new(MAGIC);
    // The grain graph it was built from, to refuse a bundle paired with another one.
    w.u64(graph.nodes() as u64);
    w.u64(graph.grains() as u64);
    w.u64(match agg.method {
        Method::Reduction => 0,
        Method::Family => 1,
    });
    w.u64(agg.restructured as u64);
    let t = &agg.tree;
    w.col(&t.kind.iter().map(|&k| k as u8).collect::<Vec<u8>>());
    for c in [&t.node, &t.fork, &t.join, &t.first, &t.count, &t.children, &t.parent, &t.depth] {
        w.col(c);
    }
    w.u64(t.root as u64);
    let m = &agg.metrics;
    w.col(&m.exec);
    for c in [
        &m.work,
        &m.parallel_benefit,
        &m.mem_hier_util,
        &m.inst_par_median,
        &m.inst_par_min,
        &m.inst_par_max,
        &m.sibling_work_balance,
        &m.work_deviation,
        &m.sibling_scatter,
    ] {
        w.opt_f64(c);
    }
    w.col(&m.problems);
    w.bools(&m.on_critical);
    w.col(&m.strength.iter().map(|&(a, b)| [a, b]).collect::<Vec<[u32; 2]>>());
    w.col(&m.nodes);
    w.col(&m.grains);
    w.finish()
}

/// The aggregation in `bytes`, checked against `graph` (the grain graph it must belong to).
pub fn decode(bytes: &[u8], graph: &GrainGraph) -> Result<Aggregation, AggregationBundleError> {
    let mut reading = AggregationReading::default();
    loop {
        if let Some(agg) = reading.step(bytes, graph)? {
            return Ok(agg);
        }
    }
}

/// [`decode`] in steps, so the page can yield between them: the tree's columns, then the metrics', then the
/// checks. Give every step the same bytes and graph.
#[derive(Default)]
pub struct AggregationReading {
    at: usize,
    tree: Option<(Method, bool, AggregationTree)>,
    metrics: Option<GroupMetrics>,
}

impl AggregationReading {
    /// What the next step does.
    pub fn next_part(&self) -> &'static str {
        match (&self.tree, &self.metrics) {
            (None, _) => "read the aggregation tree",
            (Some(_), None) => "read the aggregation metrics",
            (Some(_), Some(_)) => "check the aggregation",
        }
    }

    /// Do the next part: the aggregation once checked, None before.
    pub fn step(&mut self, bytes: &[u8], graph: &GrainGraph) -> Result<Option<Aggregation>, AggregationBundleError> {
        let corrupt = |e: ColumnError| AggregationBundleError::Corrupt(e.to_string());
        match (self.tree.take(), self.metrics.take()) {
            (None, _) => {
                let mut r = ColumnReader::new(bytes, MAGIC).map_err(corrupt)?;
                let (graph_nodes, grains) = (r.u64().map_err(corrupt)?, r.u64().map_err(corrupt)?);
                if graph_nodes != graph.nodes() as u64 || grains != graph.grains() as u64 {
                    return Err(AggregationBundleError::Mismatch(format!(
                        "built for {graph_nodes} nodes and {grains} grains, the graph has {} and {}",
                        graph.nodes(),
                        graph.grains()
                    )));
                }
                self.tree = Some(read_tree(&mut r).map_err(corrupt)?);
                self.at = r.at();
                Ok(None)
            }
            (Some(tree), None) => {
                let mut r = ColumnReader::resume(bytes, self.at);
                self.metrics = Some(read_metrics(&mut r).map_err(corrupt)?);
                r.end().map_err(corrupt)?;
                self.at = r.at();
                self.tree = Some(tree);
                Ok(None)
            }
            (Some((method, restructured, tree)), Some(metrics)) => {
                check_tree(&tree, graph.nodes()).map_err(AggregationBundleError::Corrupt)?;
                check_metrics(&metrics, tree.len()).map_err(AggregationBundleError::Corrupt)?;
                Ok(Some(Aggregation { method, tree, metrics, restructured }))
            }
        }
    }
}

fn read_tree(r: &mut ColumnReader) -> Result<(Method, bool, AggregationTree), ColumnError> {
    let at = 0;
    let method = match r.u64()? {
        0 => Method::Reduction,
        1 => Method::Family,
        m => return Err(r.error(at, format!("no method {m}"))),
    };
    let restructured = r.u64()? == 1;
    let tree = AggregationTree {
        kind: r.enums("group kinds", kind_of)?,
        node: r.col("leaf nodes")?,
        fork: r.col("forks")?,
        join: r.col("joins")?,
        first: r.col("first members")?,
        count: r.col("member counts")?,
        children: r.col("members")?,
        parent: r.col("parents")?,
        depth: r.col("depths")?,
        root: u32::try_from(r.u64()?).map_err(|_| r.error(at, "root past u32"))?,
    };
    Ok((method, restructured, tree))
}

fn read_metrics(r: &mut ColumnReader) -> Result<GroupMetrics, ColumnError> {
    Ok(GroupMetrics {
        exec: r.col("execution times")?,
        work: r.opt_f64("work")?,
        parallel_benefit: r.opt_f64("parallel benefit")?,
        mem_hier_util: r.opt_f64("memory hierarchy utilization")?,
        inst_par_median: r.opt_f64("instantaneous parallelism median")?,
        inst_par_min: r.opt_f64("instantaneous parallelism min")?,
        inst_par_max: r.opt_f64("instantaneous parallelism max")?,
        sibling_work_balance: r.opt_f64("load balance")?,
        work_deviation: r.opt_f64("work deviation")?,
        sibling_scatter: r.opt_f64("scatter")?,
        problems: r.col("problems")?,
        on_critical: r.bools("on the critical path")?,
        strength: r.col::<[u32; 2]>("strengths")?.into_iter().map(|[a, b]| (a, b)).collect(),
        nodes: r.col("graph nodes beneath")?,
        grains: r.col("grains beneath")?,
    })
}

/// One tree over `n` ids whose grain-graph references are below `graph_nodes`: what the page's navigation
/// indexes without further checks.
fn check_tree(t: &AggregationTree, graph_nodes: usize) -> Result<(), String> {
    let n = t.len();
    let columns =
        [t.node.len(), t.fork.len(), t.join.len(), t.first.len(), t.count.len(), t.parent.len(), t.depth.len()];
    if columns.iter().any(|&c| c != n) {
        return Err(format!("tree columns of unequal lengths ({n} kinds, {columns:?})"));
    }
    if n == 0 {
        return if t.children.is_empty() { Ok(()) } else { Err("children in an empty tree".into()) };
    }
    if n > u32::MAX as usize - 1 || t.root as usize >= n {
        return Err(format!("root {} outside the tree's {n} nodes", t.root));
    }
    let in_graph = |v: u32| v == NONE || (v as usize) < graph_nodes;
    for u in 0..n {
        if !(in_graph(t.node[u]) && in_graph(t.fork[u]) && in_graph(t.join[u])) {
            return Err(format!("tree node {u} names a grain-graph node outside the graph"));
        }
        if t.kind[u] == GroupKind::Leaf && (t.node[u] == NONE || t.count[u] != 0) {
            return Err(format!("leaf {u} without its grain-graph node, or with members"));
        }
        let end = t.first[u] as u64 + t.count[u] as u64;
        if end > t.children.len() as u64 {
            return Err(format!("tree node {u}'s members run past the member list"));
        }
    }
    if t.parent[t.root as usize] != NONE || t.depth[t.root as usize] != 0 {
        return Err("the root has a parent or a depth".into());
    }
    // Every node reached exactly once from the root: a tree, so walks over it end.
    let mut seen = vec![false; n];
    seen[t.root as usize] = true;
    let mut reached = 1usize;
    let mut stack = vec![t.root];
    while let Some(u) = stack.pop() {
        for &c in t.children_of(u) {
            let ci = c as usize;
            if ci >= n || std::mem::replace(&mut seen[ci], true) {
                return Err(format!("member {c} of group {u} is outside the tree or reached twice"));
            }
            if t.parent[ci] != u || t.depth[ci] != t.depth[u as usize] + 1 {
                return Err(format!("tree node {c}'s parent or depth disagrees with group {u}"));
            }
            reached += 1;
            stack.push(c);
        }
    }
    if reached != n {
        return Err(format!("{} of {n} tree nodes are not under the root", n - reached));
    }
    Ok(())
}

fn check_metrics(m: &GroupMetrics, n: usize) -> Result<(), String> {
    let lengths = [
        m.exec.len(),
        m.work.len(),
        m.parallel_benefit.len(),
        m.mem_hier_util.len(),
        m.inst_par_median.len(),
        m.inst_par_min.len(),
        m.inst_par_max.len(),
        m.sibling_work_balance.len(),
        m.work_deviation.len(),
        m.sibling_scatter.len(),
        m.problems.len(),
        m.on_critical.len(),
        m.strength.len(),
        m.nodes.len(),
        m.grains.len(),
    ];
    match lengths.iter().all(|&l| l == n) {
        true => Ok(()),
        false => Err(format!("metric columns {lengths:?} for {n} tree nodes")),
    }
}
