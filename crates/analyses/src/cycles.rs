//! Topological order, or one cycle named node by node, for any graph with petgraph's visitor traits (the grain
//! graph's and the execution graph's adapters, a GraphML's edges while it is imported): what the readers of
//! "DAG" inputs say when an input is not one. Only petgraph's iterative algorithms are used here (toposort,
//! a breadth-first search): its recursive ones (tarjan_scc, depth_first_search, is_cyclic_directed) would
//! overflow the stack on a hostile chain a million nodes deep. Names nothing itself: callers format the nodes.

use petgraph::visit::{IntoNeighbors, IntoNeighborsDirected, IntoNodeIdentifiers, NodeIndexable, Visitable};

/// A topological order of `g` (petgraph's `toposort`), or the nodes of one cycle in edge order, each once.
pub fn toposort_or_cycle<G>(g: G) -> Result<Vec<G::NodeId>, Vec<G::NodeId>>
where
    G: IntoNeighborsDirected + IntoNodeIdentifiers + Visitable + NodeIndexable,
{
    petgraph::algo::toposort(g, None).map_err(|c| cycle_through(g, c.node_id()))
}

/// One cycle of `g` (nodes in edge order, each once), or None for an acyclic graph.
pub fn find_cycle<G>(g: G) -> Option<Vec<G::NodeId>>
where
    G: IntoNeighborsDirected + IntoNodeIdentifiers + Visitable + NodeIndexable,
{
    toposort_or_cycle(g).err()
}

/// The shortest cycle through `v` (a breadth-first search along out-edges back to `v`): `v` first, then the
/// nodes in edge order. Just `[v]` for a self-loop, and for a `v` on no cycle.
pub fn cycle_through<G>(g: G, v: G::NodeId) -> Vec<G::NodeId>
where
    G: IntoNeighbors + NodeIndexable,
{
    let mut pred = vec![usize::MAX; g.node_bound()];
    let mut queue = std::collections::VecDeque::from([v]);
    while let Some(u) = queue.pop_front() {
        for w in g.neighbors(u) {
            if w == v {
                let mut path = vec![u];
                let mut x = u;
                while x != v {
                    x = g.from_index(pred[g.to_index(x)]);
                    path.push(x);
                }
                path.reverse();
                return path;
            }
            let wi = g.to_index(w);
            if pred[wi] == usize::MAX {
                pred[wi] = g.to_index(u);
                queue.push_back(w);
            }
        }
    }
    vec![v]
}

/// A cycle as "a -> b -> a" (the first node repeated at the end), each node written by `name`.
pub fn cycle_text<N: Copy>(cycle: &[N], name: impl Fn(N) -> String) -> String {
    let mut s: Vec<String> = cycle.iter().map(|&v| name(v)).collect();
    if let Some(first) = s.first().cloned() {
        s.push(first);
    }
    s.join(" -> ")
}
