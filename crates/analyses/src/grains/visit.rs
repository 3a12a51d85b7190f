//! petgraph's visitor traits on the grain graph's CSR, so petgraph's algorithms (toposort, tarjan_scc,
//! has_path_connecting, connected_components, Dfs, Bfs, ...) run on a [`GrainGraph`] directly, without
//! copying it into a petgraph `Graph`: nodes and edges are the graph's u32 ids, out-neighbours come from
//! `out`, in-neighbours from `inc`, an edge's weight is its [`EdgeKind`]. [`CsrView`] is the same for bare
//! CSR rows (an input being checked before it becomes a graph). Computes no metric and changes no graph.

use super::graph::{Csr, EdgeKind, GrainGraph, NodeKind};
use fixedbitset::FixedBitSet;
use petgraph::visit::{
    Data, EdgeCount, EdgeRef, GraphBase, GraphProp, GraphRef, IntoEdgeReferences, IntoEdges, IntoNeighbors,
    IntoNeighborsDirected, IntoNodeIdentifiers, NodeCompactIndexable, NodeCount, NodeIndexable, Visitable,
};
use petgraph::{Directed, Direction};

impl GraphBase for GrainGraph {
    type NodeId = u32;
    type EdgeId = u32;
}

impl Data for GrainGraph {
    type NodeWeight = NodeKind;
    type EdgeWeight = EdgeKind;
}

impl GraphProp for GrainGraph {
    type EdgeType = Directed;
}

impl NodeCount for GrainGraph {
    fn node_count(&self) -> usize {
        self.nodes()
    }
}

impl EdgeCount for GrainGraph {
    fn edge_count(&self) -> usize {
        self.edges()
    }
}

impl NodeIndexable for GrainGraph {
    fn node_bound(&self) -> usize {
        self.nodes()
    }
    fn to_index(&self, a: u32) -> usize {
        a as usize
    }
    fn from_index(&self, i: usize) -> u32 {
        i as u32
    }
}

impl NodeCompactIndexable for GrainGraph {}

impl Visitable for GrainGraph {
    type Map = FixedBitSet;
    fn visit_map(&self) -> FixedBitSet {
        FixedBitSet::with_capacity(self.nodes())
    }
    fn reset_map(&self, map: &mut FixedBitSet) {
        map.clear();
        map.grow(self.nodes());
    }
}

/// The nodes at the other end of a run of edge ids (a CSR row).
#[derive(Clone, Debug)]
pub struct Neighbors<'a> {
    edges: std::slice::Iter<'a, u32>,
    ends: &'a [u32],
}

impl Iterator for Neighbors<'_> {
    type Item = u32;
    #[inline]
    fn next(&mut self) -> Option<u32> {
        self.edges.next().map(|&e| self.ends[e as usize])
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.edges.size_hint()
    }
}

impl<'a> IntoNeighbors for &'a GrainGraph {
    type Neighbors = Neighbors<'a>;
    fn neighbors(self, a: u32) -> Neighbors<'a> {
        Neighbors { edges: self.out.of(a).iter(), ends: &self.edge_target }
    }
}

impl<'a> IntoNeighborsDirected for &'a GrainGraph {
    type NeighborsDirected = Neighbors<'a>;
    fn neighbors_directed(self, a: u32, d: Direction) -> Neighbors<'a> {
        match d {
            Direction::Outgoing => self.neighbors(a),
            Direction::Incoming => Neighbors { edges: self.inc.of(a).iter(), ends: &self.edge_source },
        }
    }
}

impl IntoNodeIdentifiers for &GrainGraph {
    type NodeIdentifiers = std::ops::Range<u32>;
    fn node_identifiers(self) -> std::ops::Range<u32> {
        0..self.nodes() as u32
    }
}

/// One edge of a grain graph, as petgraph's algorithms see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GrainEdge<'a> {
    pub id: u32,
    pub source: u32,
    pub target: u32,
    pub kind: &'a EdgeKind,
}

impl<'a> EdgeRef for GrainEdge<'a> {
    type NodeId = u32;
    type EdgeId = u32;
    type Weight = EdgeKind;
    fn source(&self) -> u32 {
        self.source
    }
    fn target(&self) -> u32 {
        self.target
    }
    fn weight(&self) -> &EdgeKind {
        self.kind
    }
    fn id(&self) -> u32 {
        self.id
    }
}

/// Edges by id: all of them in id order, or one node's out-edges.
#[derive(Clone, Debug)]
pub struct Edges<'a, I> {
    ids: I,
    g: &'a GrainGraph,
}

impl<'a, I: Iterator<Item = u32>> Iterator for Edges<'a, I> {
    type Item = GrainEdge<'a>;
    fn next(&mut self) -> Option<GrainEdge<'a>> {
        let g = self.g;
        self.ids.next().map(|e| {
            let i = e as usize;
            GrainEdge { id: e, source: g.edge_source[i], target: g.edge_target[i], kind: &g.edge_kind[i] }
        })
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.ids.size_hint()
    }
}

impl<'a> IntoEdgeReferences for &'a GrainGraph {
    type EdgeRef = GrainEdge<'a>;
    type EdgeReferences = Edges<'a, std::ops::Range<u32>>;
    fn edge_references(self) -> Self::EdgeReferences {
        Edges { ids: 0..self.edges() as u32, g: self }
    }
}

impl<'a> IntoEdges for &'a GrainGraph {
    type Edges = Edges<'a, std::iter::Copied<std::slice::Iter<'a, u32>>>;
    fn edges(self, a: u32) -> Self::Edges {
        Edges { ids: self.out.of(a).iter().copied(), g: self }
    }
}

/// A graph given as CSR rows of edge ids both ways (`out`, `inc`) and the edges' ends: what an input is
/// checked as before it becomes a [`GrainGraph`] (a GraphML's edges in document order). Nodes are
/// `0..out.start.len() - 1`.
#[derive(Clone, Copy, Debug)]
pub struct CsrView<'a> {
    pub out: &'a Csr,
    pub inc: &'a Csr,
    pub source: &'a [u32],
    pub target: &'a [u32],
}

impl CsrView<'_> {
    fn n(&self) -> usize {
        self.out.start.len().saturating_sub(1)
    }
}

impl GraphBase for CsrView<'_> {
    type NodeId = u32;
    type EdgeId = u32;
}

impl GraphRef for CsrView<'_> {}

impl NodeCount for CsrView<'_> {
    fn node_count(&self) -> usize {
        self.n()
    }
}

impl NodeIndexable for CsrView<'_> {
    fn node_bound(&self) -> usize {
        self.n()
    }
    fn to_index(&self, a: u32) -> usize {
        a as usize
    }
    fn from_index(&self, i: usize) -> u32 {
        i as u32
    }
}

impl NodeCompactIndexable for CsrView<'_> {}

impl Visitable for CsrView<'_> {
    type Map = FixedBitSet;
    fn visit_map(&self) -> FixedBitSet {
        FixedBitSet::with_capacity(self.n())
    }
    fn reset_map(&self, map: &mut FixedBitSet) {
        map.clear();
        map.grow(self.n());
    }
}

impl<'a> IntoNeighbors for CsrView<'a> {
    type Neighbors = Neighbors<'a>;
    fn neighbors(self, a: u32) -> Neighbors<'a> {
        Neighbors { edges: self.out.of(a).iter(), ends: self.target }
    }
}

impl<'a> IntoNeighborsDirected for CsrView<'a> {
    type NeighborsDirected = Neighbors<'a>;
    fn neighbors_directed(self, a: u32, d: Direction) -> Neighbors<'a> {
        match d {
            Direction::Outgoing => self.neighbors(a),
            Direction::Incoming => Neighbors { edges: self.inc.of(a).iter(), ends: self.source },
        }
    }
}

impl IntoNodeIdentifiers for CsrView<'_> {
    type NodeIdentifiers = std::ops::Range<u32>;
    fn node_identifiers(self) -> std::ops::Range<u32> {
        0..self.n() as u32
    }
}

/// One cycle of the edges `source[e] -> target[e]` over nodes `0..n`, if they have any (see
/// [`crate::cycles::find_cycle`]).
pub fn find_cycle(n: usize, source: &[u32], target: &[u32]) -> Option<Vec<u32>> {
    let (out, inc) = (Csr::build(n, source), Csr::build(n, target));
    crate::cycles::find_cycle(CsrView { out: &out, inc: &inc, source, target })
}
