//! The execution graph of a fork/join program (Steckelbach et al., TreVis): per thread a chain of nodes
//! (start, fork and join nodes, end) joined by flow edges that carry run time; structural edges from a fork
//! to the subthread's start and from the subthread's end to the a-join; idle time between b-join and a-join,
//! the two merged into one join node where they coincide; the critical path; run time per thread.
//!
//! Built from the neutral [`ThreadEvents`] list, so every input format (the text format, OTF2 thread
//! events) lands here. Checks that the events form a fork/join program and says where they do not. No
//! positions: the drawing is `layouts::execgraph`.

use weft_model::sort::SortDyn;

mod build;
mod critical;
pub mod visit;

pub use build::{build, topological_order, GraphError};

/// Index of a thread in [`ExecGraph::threads`].
pub type ThreadIx = u32;
/// Index of a node in [`ExecGraph::nodes`].
pub type NodeIx = u32;
/// "None" for node and thread indices.
pub const NONE: u32 = u32::MAX;

/// The five node types of the paper, plus the merged join.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum NodeKind {
    Start,
    End,
    Fork,
    /// Join begins: the thread waits (the paper's b-join).
    JoinBegin,
    /// Join ends: the thread continues (a-join).
    JoinEnd,
    /// A b-join and an a-join at the same time, drawn as one node.
    Join,
}

impl NodeKind {
    /// Nodes that end a join (a structural edge from the joined thread's end comes in).
    pub fn ends_join(self) -> bool {
        matches!(self, NodeKind::JoinEnd | NodeKind::Join)
    }
}

/// One node. A thread's nodes are contiguous in [`ExecGraph::nodes`], in time order: flow edges are implicit
/// between consecutive nodes of one thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Node {
    pub kind: NodeKind,
    pub thread: ThreadIx,
    /// Event time relative to the run's origin (the earliest init or event).
    pub time_ns: u64,
    /// The node at the other end of this node's structural edge: a fork's subthread start, a start's fork,
    /// an end's join node, a join node's subthread end. [`NONE`] for joins' b-join half and unjoined ends.
    pub partner: NodeIx,
}

/// One thread: its chain of nodes and where it hangs in the fork tree.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Thread {
    /// The source's id.
    pub id: u64,
    /// The host node it ran on.
    pub host: u32,
    pub first_node: NodeIx,
    pub node_count: u32,
    /// The thread that forked it ([`NONE`] for a root).
    pub parent: ThreadIx,
    /// Its structural edges' other ends: the fork node in the parent and the join node in the joiner.
    pub fork_node: NodeIx,
    pub join_node: NodeIx,
    /// Time running: start to end, less idle time (b-join to a-join).
    pub run_ns: u64,
}

impl Thread {
    pub fn start(&self) -> NodeIx {
        self.first_node
    }
    pub fn end(&self) -> NodeIx {
        self.first_node + self.node_count - 1
    }
    pub fn nodes(&self) -> std::ops::Range<usize> {
        self.first_node as usize..(self.first_node + self.node_count) as usize
    }
}

/// The whole graph, plus the analyses of it that need no drawing.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct ExecGraph {
    pub source: String,
    pub threads: Vec<Thread>,
    pub nodes: Vec<Node>,
    /// Absolute time of the origin (the drawing's init node, y = 0), in the source's nanoseconds.
    pub origin_ns: u64,
    /// Children of each thread in fork order: `children[child_start[t]..child_start[t + 1]]`.
    pub child_start: Vec<u32>,
    pub children: Vec<ThreadIx>,
    /// Nodes in an order where every edge goes forward (flow, fork -> start, end -> a-join).
    pub topo: Vec<NodeIx>,
    /// Per node: on the critical path (the longest chain of run time through the graph).
    pub critical: Vec<bool>,
    /// Per node on the critical path: whether it is reached through its structural edge (else its flow edge).
    pub critical_via_partner: Vec<bool>,
    /// Run time on the critical path.
    pub critical_ns: u64,
    /// Sum of all threads' run time.
    pub total_run_ns: u64,
    /// Display names by thread index, where the source has better ones than its ids (an OTF2 location's name
    /// and instance, a task number); empty: threads are shown by id.
    #[serde(default)]
    pub labels: Vec<String>,
    /// Short forms of `labels` for column headers (`3.1`, `t17`); empty: `T<id>`.
    #[serde(default)]
    pub short_labels: Vec<String>,
    /// Per thread: the thread in whose column it is drawn (an OpenMP task, on the team thread that ran it:
    /// `ThreadEvents::hosts`), [`NONE`] for a thread with a column of its own; empty: every thread has one.
    #[serde(default)]
    pub runs_on: Vec<ThreadIx>,
}

impl ExecGraph {
    pub fn children_of(&self, t: ThreadIx) -> &[ThreadIx] {
        let t = t as usize;
        &self.children[self.child_start[t] as usize..self.child_start[t + 1] as usize]
    }

    /// The flow edge into `n` is idle time (b-join to a-join).
    pub fn idle_into(&self, n: NodeIx) -> bool {
        let n = n as usize;
        n > 0
            && self.nodes[n].kind == NodeKind::JoinEnd
            && self.nodes[n - 1].kind == NodeKind::JoinBegin
            && self.nodes[n - 1].thread == self.nodes[n].thread
    }

    /// The node before `n` in its thread's chain, if any.
    pub fn chain_pred(&self, n: NodeIx) -> Option<NodeIx> {
        let t = &self.threads[self.nodes[n as usize].thread as usize];
        (n > t.first_node).then(|| n - 1)
    }

    /// The node whose structural edge comes into `n` (a start's fork, a join's subthread end).
    pub fn partner_pred(&self, n: NodeIx) -> Option<NodeIx> {
        let node = &self.nodes[n as usize];
        (matches!(node.kind, NodeKind::Start | NodeKind::JoinEnd | NodeKind::Join) && node.partner != NONE)
            .then_some(node.partner)
    }

    /// A thread's share of all run time, in [0, 1].
    /// How the thread is shown: its display name, else its id.
    pub fn label(&self, t: ThreadIx) -> String {
        match self.labels.get(t as usize) {
            Some(l) if !l.is_empty() => l.clone(),
            _ => self.threads[t as usize].id.to_string(),
        }
    }

    /// The column header of a thread: its short label, else `T<id>`.
    pub fn short_label(&self, t: ThreadIx) -> String {
        match self.short_labels.get(t as usize) {
            Some(l) if !l.is_empty() => l.clone(),
            _ => format!("T{}", self.threads[t as usize].id),
        }
    }

    /// Name every thread from its id: `name(id)` gives (short, full); empty names keep the id.
    pub fn set_labels(&mut self, name: impl Fn(u64) -> (String, String)) {
        let (short, full) = self.threads.iter().map(|th| name(th.id)).unzip();
        self.short_labels = short;
        self.labels = full;
    }

    pub fn share(&self, t: ThreadIx) -> f64 {
        if self.total_run_ns == 0 {
            0.0
        } else {
            self.threads[t as usize].run_ns as f64 / self.total_run_ns as f64
        }
    }

    /// The thread whose column thread `t` is drawn in (`t` itself unless it runs on another: `runs_on`).
    pub fn column_owner(&self, t: ThreadIx) -> ThreadIx {
        let mut h = t;
        // Bounded: hosts are threads with columns of their own, but a crafted graph could chain them.
        for _ in 0..self.threads.len() {
            match self.runs_on.get(h as usize) {
                Some(&x) if x != NONE && x != h => h = x,
                _ => break,
            }
        }
        h
    }

    /// Whether thread `t` is drawn in another thread's column.
    pub fn is_guest(&self, t: ThreadIx) -> bool {
        self.runs_on.get(t as usize).is_some_and(|&h| h != NONE && h != t)
    }

    /// Threads with no parent, in start order.
    pub fn roots(&self) -> Vec<ThreadIx> {
        let mut r: Vec<ThreadIx> =
            (0..self.threads.len() as u32).filter(|&t| self.threads[t as usize].parent == NONE).collect();
        r.sort_dyn_by_key(|&t| (self.nodes[self.threads[t as usize].first_node as usize].time_ns, t));
        r
    }
}
