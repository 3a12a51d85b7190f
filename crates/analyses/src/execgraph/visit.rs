//! petgraph's visitor traits on the execution graph, so petgraph's algorithms (toposort, has_path_connecting,
//! connected_components, Dfs, Bfs, ...) run on an [`ExecGraph`] as it is. Its adjacency is implicit: a node's
//! out-edges are the flow edge to the next node of its thread and, from a fork or an end, the structural edge
//! to its partner (the subthread's start, the a-join); in-edges are [`ExecGraph::chain_pred`] and
//! [`ExecGraph::partner_pred`]. Edge weights are [`ExecEdge`]s. Computes nothing and changes no graph.

use super::{ExecGraph, NodeIx, NodeKind, NONE};
use fixedbitset::FixedBitSet;
use petgraph::visit::{
    Data, EdgeRef, GraphBase, GraphProp, IntoEdgeReferences, IntoNeighbors, IntoNeighborsDirected, IntoNodeIdentifiers,
    NodeCompactIndexable, NodeCount, NodeIndexable, Visitable,
};
use petgraph::{Directed, Direction};

/// The kinds of edge of an execution graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExecEdge {
    /// Between consecutive nodes of one thread, while it runs.
    Flow,
    /// From a b-join to its a-join: the thread waits.
    Idle,
    /// From a fork to the subthread's start.
    Fork,
    /// From a subthread's end to the join that waits for it.
    Join,
}

impl ExecGraph {
    /// The flow edge out of `v`: the next node of its thread, if any.
    pub fn chain_succ(&self, v: NodeIx) -> Option<NodeIx> {
        let t = &self.threads[self.nodes[v as usize].thread as usize];
        (v < t.end()).then_some(v + 1)
    }

    /// The structural edge out of `v`: a fork's subthread start, an end's join node.
    pub fn partner_succ(&self, v: NodeIx) -> Option<NodeIx> {
        let node = &self.nodes[v as usize];
        (matches!(node.kind, NodeKind::Fork | NodeKind::End) && node.partner != NONE).then_some(node.partner)
    }
}

impl GraphBase for ExecGraph {
    type NodeId = NodeIx;
    /// (source, target): an edge is known by its ends (there is at most one per pair).
    type EdgeId = (NodeIx, NodeIx);
}

impl Data for ExecGraph {
    type NodeWeight = NodeKind;
    type EdgeWeight = ExecEdge;
}

impl GraphProp for ExecGraph {
    type EdgeType = Directed;
}

impl NodeCount for ExecGraph {
    fn node_count(&self) -> usize {
        self.nodes.len()
    }
}

impl NodeIndexable for ExecGraph {
    fn node_bound(&self) -> usize {
        self.nodes.len()
    }
    fn to_index(&self, a: NodeIx) -> usize {
        a as usize
    }
    fn from_index(&self, i: usize) -> NodeIx {
        i as NodeIx
    }
}

impl NodeCompactIndexable for ExecGraph {}

impl Visitable for ExecGraph {
    type Map = FixedBitSet;
    fn visit_map(&self) -> FixedBitSet {
        FixedBitSet::with_capacity(self.nodes.len())
    }
    fn reset_map(&self, map: &mut FixedBitSet) {
        map.clear();
        map.grow(self.nodes.len());
    }
}

/// At most two neighbours: the flow edge's and the structural edge's.
pub type Neighbors = std::iter::Flatten<std::array::IntoIter<Option<NodeIx>, 2>>;

impl IntoNeighbors for &ExecGraph {
    type Neighbors = Neighbors;
    fn neighbors(self, v: NodeIx) -> Neighbors {
        [self.chain_succ(v), self.partner_succ(v)].into_iter().flatten()
    }
}

impl IntoNeighborsDirected for &ExecGraph {
    type NeighborsDirected = Neighbors;
    fn neighbors_directed(self, v: NodeIx, d: Direction) -> Neighbors {
        match d {
            Direction::Outgoing => self.neighbors(v),
            Direction::Incoming => [self.chain_pred(v), self.partner_pred(v)].into_iter().flatten(),
        }
    }
}

impl IntoNodeIdentifiers for &ExecGraph {
    type NodeIdentifiers = std::ops::Range<NodeIx>;
    fn node_identifiers(self) -> std::ops::Range<NodeIx> {
        0..self.nodes.len() as NodeIx
    }
}

/// One edge of an execution graph, as petgraph's algorithms see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExecEdgeRef {
    pub source: NodeIx,
    pub target: NodeIx,
    pub kind: ExecEdge,
}

impl EdgeRef for ExecEdgeRef {
    type NodeId = NodeIx;
    type EdgeId = (NodeIx, NodeIx);
    type Weight = ExecEdge;
    fn source(&self) -> NodeIx {
        self.source
    }
    fn target(&self) -> NodeIx {
        self.target
    }
    fn weight(&self) -> &ExecEdge {
        &self.kind
    }
    fn id(&self) -> (NodeIx, NodeIx) {
        (self.source, self.target)
    }
}

/// All edges, node by node: each node's flow edge, then its structural edge.
#[derive(Clone, Debug)]
pub struct EdgeReferences<'a> {
    g: &'a ExecGraph,
    node: NodeIx,
    /// 0: the flow edge of `node` is next, 1: its structural edge.
    half: u8,
}

impl Iterator for EdgeReferences<'_> {
    type Item = ExecEdgeRef;
    fn next(&mut self) -> Option<ExecEdgeRef> {
        let g = self.g;
        while (self.node as usize) < g.nodes.len() {
            let v = self.node;
            if self.half == 0 {
                self.half = 1;
                if let Some(w) = g.chain_succ(v) {
                    let kind = if g.idle_into(w) { ExecEdge::Idle } else { ExecEdge::Flow };
                    return Some(ExecEdgeRef { source: v, target: w, kind });
                }
            }
            self.half = 0;
            self.node += 1;
            if let Some(w) = g.partner_succ(v) {
                let kind = if g.nodes[v as usize].kind == NodeKind::Fork { ExecEdge::Fork } else { ExecEdge::Join };
                return Some(ExecEdgeRef { source: v, target: w, kind });
            }
        }
        None
    }
}

impl<'a> IntoEdgeReferences for &'a ExecGraph {
    type EdgeRef = ExecEdgeRef;
    type EdgeReferences = EdgeReferences<'a>;
    fn edge_references(self) -> EdgeReferences<'a> {
        EdgeReferences { g: self, node: 0, half: 0 }
    }
}
