//! Reduction (phase 1): fork-join and linear patterns of the grain graph replaced by groups, innermost
//! fork-join first, never past a join, into an aggregation tree (Reissmann & Muddukrishna, Section 3.1).
//! The paper's pseudocode is lost with its figures; this is designed from the text, as an explicit-stack
//! machine (nesting depth is unbounded in bad inputs) that enters every node through one of its in-edges
//! and so is linear in nodes plus edges.
//!
//! A chain walks from a node along single successors, making a linear group of each pair (binary, as the
//! paper; normalization flattens them), and stops before a join. A fork runs one chain per successor; the
//! chains' arrivals at a join are counted, and the join whose in-edges all arrived from this fork closes
//! the fork-join group, after which the chain continues past it. Structural roles come from degrees as well
//! as kinds: a node with several in-edges is a join, one with several out-edges forks (a virtual fork when
//! it is not a fork node).
//!
//! Graphs that are not properly nested (OpenMP 4 taskgroup: descendants synchronized by an ancestor's join)
//! are restructured as the paper says, not rejected: a fork none of whose joins is complete dissolves, and
//! its chains are hoisted to the enclosing fork whose join completes, so descendants become immediate
//! members of the ancestor's group. What cannot complete anywhere (a general DAG) is closed at the top
//! level in topological order. Linear for properly nested graphs (every grain graph built from a profile);
//! restructuring adds, per hoisted chain, the forks it is carried through (the taskgroup's depth), so only
//! graphs that are no fork-join program at all (random DAGs) cost more: 32,000 nodes in ~100 ms.
//! Computes no metric.

use super::tree::{AggregationTree, GroupKind};
use crate::grains::{GrainGraph, NodeKind, NONE};
use weft_model::sort::SortDyn;

/// A chain's end: the last item, the join it stopped before (SINK past a sink), and how many of that
/// join's in-edges it accounts for.
#[derive(Clone, Copy, Debug)]
struct Arrival {
    item: u32,
    stop: u32,
    edges: u32,
}

const SINK: u32 = u32::MAX - 1;

enum Frame {
    Chain { cur: u32, at: u32, hoisted: Vec<Arrival> },
    Fork { fork: u32, succ: Vec<u32>, next: usize, arrivals: Vec<Arrival> },
}

/// The reduction's result: the (unnormalized) tree, and whether restructuring was needed.
pub struct Reduced {
    pub tree: AggregationTree,
    pub restructured: bool,
}

struct Reducer<'g> {
    g: &'g GrainGraph,
    tree: AggregationTree,
    indeg: Vec<u32>,
    sinks: u32,
    consumed: Vec<bool>,
    restructured: bool,
}

impl Reducer<'_> {
    fn joinlike(&self, v: u32) -> bool {
        self.indeg[v as usize] > 1 || self.g.node_kind[v as usize] == NodeKind::Join
    }
    fn succ(&self, v: u32) -> Vec<u32> {
        self.g.out.of(v).iter().map(|&e| self.g.edge_target[e as usize]).collect()
    }
    fn linear(&mut self, cur: u32, x: u32) -> u32 {
        match (cur, x) {
            (NONE, x) => x,
            (c, NONE) => c,
            (c, x) => self.tree.push(GroupKind::Linear, NONE, NONE, NONE, &[c, x]),
        }
    }
    /// Where a chain goes after node `v` (a leaf or a closed join): the next node, SINK, or a virtual fork.
    fn after(&self, v: u32) -> Result<u32, Vec<u32>> {
        let s = self.succ(v);
        match s.len() {
            0 => Ok(SINK),
            1 => Ok(s[0]),
            _ => Err(s),
        }
    }
}

pub fn reduce(g: &GrainGraph) -> Reduced {
    let n = g.nodes();
    let indeg: Vec<u32> = (0..n as u32).map(|v| g.inc.of(v).len() as u32).collect();
    let sinks = (0..n as u32).filter(|&v| g.out.of(v).is_empty()).count() as u32;
    let mut r =
        Reducer { g, tree: AggregationTree::default(), indeg, sinks, consumed: vec![false; n], restructured: false };
    let sources: Vec<u32> = (0..n as u32).filter(|&v| r.indeg[v as usize] == 0).collect();
    let mut stack: Vec<Frame> = Vec::new();
    match sources.len() {
        0 => {}
        1 => stack.push(Frame::Chain { cur: NONE, at: sources[0], hoisted: Vec::new() }),
        _ => {
            stack.push(Frame::Chain { cur: NONE, at: SINK, hoisted: Vec::new() });
            stack.push(Frame::Fork { fork: NONE, succ: sources, next: 0, arrivals: Vec::new() });
        }
    }
    let mut done: Vec<Arrival> = Vec::new();
    // Arrivals waiting at joins no fork completed (not nested at all), by join; and the finished items.
    let mut pending: std::collections::BTreeMap<u32, Vec<u32>> = std::collections::BTreeMap::new();
    let mut items: Vec<u32> = Vec::new();
    loop {
        run(&mut r, &mut stack, &mut done);
        for a in done.drain(..) {
            if a.stop == SINK {
                items.extend((a.item != NONE).then_some(a.item));
            } else {
                pending.entry(a.stop).or_default().extend((a.item != NONE).then_some(a.item));
            }
        }
        // Close the earliest waiting join with what arrived and go on past it.
        let Some((j, kids)) = pending.pop_first() else { break };
        r.restructured = true;
        r.consumed[j as usize] = true;
        let fj = r.tree.push(GroupKind::ForkJoin, NONE, NONE, j, &kids);
        match r.after(j) {
            Ok(at) => stack.push(Frame::Chain { cur: fj, at, hoisted: Vec::new() }),
            Err(succ) => {
                stack.push(Frame::Chain { cur: fj, at: SINK, hoisted: Vec::new() });
                stack.push(Frame::Fork { fork: NONE, succ, next: 0, arrivals: Vec::new() });
            }
        }
    }
    let root = match items.len() {
        1 => items[0],
        _ => r.tree.push(GroupKind::ForkJoin, NONE, NONE, NONE, &items),
    };
    let mut tree = r.tree;
    tree.finish(root);
    Reduced { tree, restructured: r.restructured }
}

/// Where a chain goes after a fork closes.
enum Then {
    At(u32),
    /// The fork's join forks again: a virtual fork over these successors.
    Fork(Vec<u32>),
    /// The fork dissolved (not nested): the chain ends here.
    Dissolved,
}

/// The result of the frame just popped, delivered to the frame below.
enum Up {
    None,
    Chain(Vec<Arrival>),
    Fork { group: u32, then: Then, hoisted: Vec<Arrival> },
}

/// What to do to the stack after looking at its top.
enum Act {
    Pop(Up),
    Push(Frame),
    Stay,
}

/// Run the machine until the stack is empty; the outermost chain's arrivals land in `done`.
fn run(r: &mut Reducer, stack: &mut Vec<Frame>, done: &mut Vec<Arrival>) {
    let mut up = Up::None;
    while let Some(top) = stack.last_mut() {
        let act = match top {
            Frame::Chain { cur, at, hoisted } => step_chain(r, cur, at, hoisted, std::mem::replace(&mut up, Up::None)),
            Frame::Fork { fork, succ, next, arrivals } => {
                if let Up::Chain(a) = std::mem::replace(&mut up, Up::None) {
                    arrivals.extend(a);
                }
                if *next < succ.len() {
                    let s = succ[*next];
                    *next += 1;
                    Act::Push(Frame::Chain { cur: NONE, at: s, hoisted: Vec::new() })
                } else {
                    let mut arrivals = std::mem::take(arrivals);
                    Act::Pop(close_fork(r, *fork, &mut arrivals))
                }
            }
        };
        match act {
            Act::Pop(u) => {
                stack.pop();
                up = u;
            }
            Act::Push(f) => stack.push(f),
            Act::Stay => {}
        }
    }
    if let Up::Chain(a) = up {
        done.extend(a);
    }
}

fn step_chain(r: &mut Reducer, cur: &mut u32, at: &mut u32, hoisted: &mut Vec<Arrival>, up: Up) -> Act {
    let finish = |cur: u32, stop: u32, edges: u32, hoisted: &mut Vec<Arrival>| {
        let mut out = vec![Arrival { item: cur, stop, edges }];
        out.append(hoisted);
        Act::Pop(Up::Chain(out))
    };
    if let Up::Fork { group, then, hoisted: h } = up {
        hoisted.extend(h);
        *cur = r.linear(*cur, group);
        match then {
            Then::At(next) => *at = next,
            Then::Fork(succ) => return Act::Push(Frame::Fork { fork: NONE, succ, next: 0, arrivals: Vec::new() }),
            Then::Dissolved => {
                // No way on: this chain's item travels with what it hoisted, and accounts for no edge.
                let stop = hoisted.first().map(|a| a.stop).unwrap_or(SINK);
                return finish(*cur, stop, 0, hoisted);
            }
        }
    }
    let v = *at;
    if v == SINK {
        return finish(*cur, SINK, 1, hoisted);
    }
    if r.joinlike(v) {
        // A join already closed by restructuring is a dead end for late arrivals.
        let stop = if r.consumed[v as usize] { SINK } else { v };
        return finish(*cur, stop, 1, hoisted);
    }
    let is_fork = r.g.node_kind[v as usize] == NodeKind::Fork;
    if !is_fork {
        let leaf = r.tree.leaf(v);
        *cur = r.linear(*cur, leaf);
    }
    let succ = r.succ(v);
    if is_fork || succ.len() > 1 {
        return Act::Push(Frame::Fork { fork: if is_fork { v } else { NONE }, succ, next: 0, arrivals: Vec::new() });
    }
    *at = succ.first().copied().unwrap_or(SINK);
    Act::Stay
}

/// Close a fork: the earliest join all of whose in-edges arrived here (SINK when every sink did) makes
/// the fork-join group; the rest is hoisted to the enclosing fork.
fn close_fork(r: &mut Reducer, fork: u32, arrivals: &mut Vec<Arrival>) -> Up {
    arrivals.sort_dyn_by_key(|a| a.stop);
    let mut complete = None;
    let mut i = 0;
    while i < arrivals.len() {
        let stop = arrivals[i].stop;
        let mut j = i;
        let mut edges = 0;
        while j < arrivals.len() && arrivals[j].stop == stop {
            edges += arrivals[j].edges;
            j += 1;
        }
        let need = if stop == SINK { r.sinks } else { r.indeg[stop as usize].max(1) };
        if edges >= need && complete.is_none() {
            complete = Some((stop, i, j));
        }
        i = j;
    }
    let Some((stop, i, j)) = complete else {
        // Not nested: dissolve this fork, hoisting its chains to an enclosing fork.
        r.restructured = true;
        let group = if fork != NONE { r.tree.leaf(fork) } else { NONE };
        return Up::Fork { group, then: Then::Dissolved, hoisted: std::mem::take(arrivals) };
    };
    let kids: Vec<u32> = arrivals[i..j].iter().map(|a| a.item).filter(|&x| x != NONE).collect();
    let join = if stop == SINK { NONE } else { stop };
    let group = r.tree.push(GroupKind::ForkJoin, NONE, fork, join, &kids);
    let hoisted: Vec<Arrival> =
        arrivals.drain(..).enumerate().filter(|(k, _)| *k < i || *k >= j).map(|(_, a)| a).collect();
    if !hoisted.is_empty() {
        r.restructured = true;
    }
    if join == NONE {
        return Up::Fork { group, then: Then::At(SINK), hoisted };
    }
    r.consumed[join as usize] = true;
    let then = match r.after(join) {
        Ok(at) => Then::At(at),
        Err(succ) => Then::Fork(succ),
    };
    Up::Fork { group, then, hoisted }
}
