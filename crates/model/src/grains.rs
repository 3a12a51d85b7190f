//! The grain model: what a grain-graph input says about a fork/join program, whatever its format. Grains are
//! tasks and for-loop chunks; each has its times (cycles or ns, in one unit for the whole input), the
//! counters the input carries, its place in the fork/join structure (parent, creation order, the sibling
//! group it joins with), its source location (function, `file:line`) and the core that ran it.
//!
//! Two shapes: a [`GrainProfile`] (one row per grain: the MIR profiler's task stats, an OTF2 trace's tasks),
//! from which the analysis builds the graph, and [`GrainNodes`] (a graph another tool already built, the
//! grain-graphs prototype's GraphML: typed nodes and edges). The MIR, GraphML and OTF2-task readers produce
//! them; `analyses::grains` reads only this module. Knows no file format and computes no metric.

use super::strings::{StringId, StringTable};

/// The unit of every duration of an input (and of the grain graph built from it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum TimeUnit {
    #[default]
    Cycles,
    Nanoseconds,
}

/// A node of a grain graph.
#[repr(u8)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum NodeKind {
    Start = 0,
    End = 1,
    /// A piece of a grain's execution between two of its forks or joins.
    Fragment = 2,
    Fork = 3,
    Join = 4,
    /// A whole grain drawn as one node (the prototype's reduced graph, read from GraphML).
    Task = 5,
}

impl NodeKind {
    pub fn name(self) -> &'static str {
        match self {
            NodeKind::Start => "start",
            NodeKind::End => "end",
            NodeKind::Fragment => "fragment",
            NodeKind::Fork => "fork",
            NodeKind::Join => "join",
            NodeKind::Task => "task",
        }
    }
    pub fn holds_work(self) -> bool {
        matches!(self, NodeKind::Fragment | NodeKind::Task)
    }
}

/// An edge of a grain graph.
#[repr(u8)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum EdgeKind {
    /// Fork -> the first fragment of a created child.
    Create = 0,
    /// A grain's own control flow into and out of a fork it creates children at.
    Scope = 1,
    /// Into a join: a child's last fragment, or the parent's fragment that waits there.
    Sync = 2,
    /// Out of a join: the parent continues.
    Continue = 3,
}

impl EdgeKind {
    pub const ALL: [EdgeKind; 4] = [EdgeKind::Create, EdgeKind::Scope, EdgeKind::Sync, EdgeKind::Continue];
    pub fn name(self) -> &'static str {
        match self {
            EdgeKind::Create => "create",
            EdgeKind::Scope => "scope",
            EdgeKind::Sync => "sync",
            EdgeKind::Continue => "continue",
        }
    }
}

/// A per-grain metric column; `None` where the input has no value (`NA`, unparsable).
pub type Column = Vec<Option<f64>>;

/// Grains as rows: a column per field. Instants are on the clock of a grain's own execution, which runs over
/// `[1, 1 + exec]` (the MIR profiler's convention; an OTF2 trace's tasks are mapped onto it).
#[derive(Clone, Debug, Default)]
pub struct GrainProfile {
    /// The input's name, for messages.
    pub file: String,
    pub unit: TimeUnit,
    /// Grains are for-loop chunks (identified by chunk lineage), not tasks.
    pub for_loop: bool,
    /// The grain's id in the input.
    pub task: Vec<u64>,
    /// The parent's id; an id no grain has (0) hangs the grain off the program's implicit root.
    pub parent: Vec<u64>,
    /// Which of the parent's waits synchronizes the grain: siblings with the same value form one group that
    /// forks together and joins together.
    pub joins_at: Vec<u32>,
    /// Creation order among the parent's children.
    pub child_number: Vec<u32>,
    pub num_children: Vec<u32>,
    /// The core (or thread) that ran the grain.
    pub core: Vec<Option<u32>>,
    /// Execution time.
    pub exec: Vec<u64>,
    /// Creation instant on the parent's clock.
    pub create_instant: Vec<u64>,
    /// Wait (taskwait / join) instants per grain on its own clock, sorted:
    /// `wait_instants[wait_start[i]..wait_start[i + 1]]`.
    pub wait_start: Vec<u32>,
    pub wait_instants: Vec<u64>,
    /// The schedule-independent identity of the grain (MIR's lineage or chunk lineage; "" when unknown).
    pub lineage: Vec<StringId>,
    /// The function the grain runs (its outlined body).
    pub function: Vec<StringId>,
    /// Its source location, `file:line`.
    pub source: Vec<StringId>,
    pub tag: Vec<StringId>,
    pub strings: StringTable,
    /// Time spent creating the grain (in its parent).
    pub creation: Option<Column>,
    /// The grain's own runtime overhead (creating its children, waiting for them).
    pub overhead: Option<Column>,
    /// Useful work as the input states it (otherwise derived: exec - overhead).
    pub work: Option<Column>,
    /// Cycles stalled on any resource (PAPI_RES_STL), for memory hierarchy utilization.
    pub resource_stalls: Option<Column>,
    /// Memory hierarchy utilization and work deviation, when the input carries them already computed.
    pub mem_hier_util: Option<Column>,
    pub work_deviation: Option<Column>,
    /// Every other numeric column the input carries (hardware counters, derived metrics), by its name there.
    pub counters: Vec<(String, Column)>,
}

impl GrainProfile {
    pub fn len(&self) -> usize {
        self.task.len()
    }

    /// The cycles among the grains' parents (a task its own ancestor, or its own parent), each as task ids in
    /// parent order from its first member back to it: `[2, 3]` for tasks 2 and 3 each other's parent. Such
    /// grains cannot hang under the program's root by their parents (the grain graph cuts each cycle); a
    /// reader reports them. Linear in the rows, iterative (a hostile chain cannot overflow the stack). A task
    /// id given to several rows names the last of them, as the grain graph reads it.
    pub fn parent_cycles(&self) -> Vec<Vec<u64>> {
        let n = self.len();
        let index: std::collections::HashMap<u64, usize> = self.task.iter().enumerate().map(|(i, &t)| (t, i)).collect();
        let parent_row = |i: usize| index.get(&self.parent[i]).copied();
        let mut state = vec![0u8; n]; // 0 unvisited, 1 on the current walk, 2 done
        let mut walk: Vec<usize> = Vec::new();
        let mut cycles = Vec::new();
        for s in 0..n {
            let mut v = Some(s);
            while let Some(i) = v.filter(|&i| state[i] == 0) {
                state[i] = 1;
                walk.push(i);
                v = parent_row(i);
            }
            if let Some(i) = v.filter(|&i| state[i] == 1) {
                let from = walk.iter().rposition(|&w| w == i).unwrap_or(0);
                cycles.push(walk[from..].iter().map(|&w| self.task[w]).collect());
            }
            for w in walk.drain(..) {
                state[w] = 2;
            }
        }
        cycles
    }
    pub fn is_empty(&self) -> bool {
        self.task.is_empty()
    }
    pub fn waits(&self, grain: usize) -> &[u64] {
        &self.wait_instants[self.wait_start[grain] as usize..self.wait_start[grain + 1] as usize]
    }
    pub fn string(&self, id: StringId) -> &str {
        self.strings.get(id)
    }
    /// A counter column by its name in the input.
    pub fn counter(&self, name: &str) -> Option<&[Option<f64>]> {
        self.counters.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_slice())
    }
}

/// Numeric node attributes by name, row-compressed: node `i`'s are `key[start[i]..start[i + 1]]` /
/// `value[...]`, keys interned in `names`. Only finite numbers are kept.
#[derive(Clone, Debug)]
pub struct NodeValues {
    pub names: StringTable,
    pub start: Vec<u32>,
    pub key: Vec<StringId>,
    pub value: Vec<f64>,
}

impl Default for NodeValues {
    fn default() -> Self {
        NodeValues { names: StringTable::default(), start: vec![0], key: Vec::new(), value: Vec::new() }
    }
}

impl NodeValues {
    /// The value named `name` of node `i`.
    pub fn get(&self, i: usize, name: &str) -> Option<f64> {
        self.get_key(i, self.names.lookup(name)?)
    }
    pub fn get_key(&self, i: usize, k: StringId) -> Option<f64> {
        let (a, b) = (*self.start.get(i)? as usize, *self.start.get(i + 1)? as usize);
        (a..b).find(|&j| self.key[j] == k).map(|j| self.value[j])
    }
}

/// A grain graph as another tool built it: typed nodes and edges in the input's order (not yet known to be
/// acyclic). Work-holding nodes with the same `grain` key are the fragments of one grain; the grain's fields
/// (task id, parent, core, function, source, values) are those of its first node in a topological order.
#[derive(Clone, Debug, Default)]
pub struct GrainNodes {
    pub file: String,
    pub unit: TimeUnit,
    pub directed: bool,
    pub kind: Vec<NodeKind>,
    /// The node's name (as the prototype writes them: `2.1`, `f.2.0`, `j.2.0`, `0`, `E`), for messages.
    pub name: Vec<String>,
    /// Execution time of a work-holding node; 0 for the rest.
    pub exec: Vec<u64>,
    /// Which grain a work-holding node belongs to.
    pub grain: Vec<StringId>,
    /// The grain's id, when the node says it.
    pub task: Vec<Option<u64>>,
    /// The parent grain's id, when the node says it.
    pub parent: Vec<Option<u64>>,
    pub core: Vec<Option<u32>>,
    pub function: Vec<StringId>,
    pub source: Vec<StringId>,
    /// Every numeric attribute of the node (metrics the tool computed, `problematic` marks), by name.
    pub values: NodeValues,
    pub strings: StringTable,
    pub edge_source: Vec<u32>,
    pub edge_target: Vec<u32>,
    pub edge_kind: Vec<EdgeKind>,
    /// Per edge, time between its source's end and its target's start (weft's own export writes it); empty
    /// when the input has none (all zero).
    pub edge_delay: Vec<u64>,
}

impl GrainNodes {
    pub fn nodes(&self) -> usize {
        self.kind.len()
    }
}

/// A grain-graph input.
#[derive(Clone, Debug)]
pub enum Grains {
    /// Grains as rows, the graph to be built from them.
    Profile(GrainProfile),
    /// A graph already built.
    Graph(GrainNodes),
}

impl Grains {
    pub fn file(&self) -> &str {
        match self {
            Grains::Profile(p) => &p.file,
            Grains::Graph(g) => &g.file,
        }
    }
}
