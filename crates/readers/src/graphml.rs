//! GraphML as the grain-graphs prototype (igraph) writes it: `<key>` declarations, then `<node>`s and
//! `<edge>`s with `<data key=...>` values. [`read`] keeps every attribute as written (by its key's
//! `attr.name`); [`grains`] interprets them as the model's [`GrainNodes`]: node and edge types (task,
//! fragment, fork, join, start, end; create, scope, sync, continue, or the prototype's node names when there
//! is no `type`), which nodes make one grain, its task id, parent, core, function and source, and every
//! numeric attribute (the profiler's columns, `problematic` marks) by name. Nested graphs (yEd groups, the
//! prototype's aggregated graph) are flattened to their member nodes; yEd's graphics keys are skipped; the
//! graph-level `time_unit` (weft's export) gives the unit, cycles otherwise.
//!
//! Safety: documents with a DTD (`<!DOCTYPE`) are refused, so no entity is ever declared, let alone expanded
//! or fetched (no billion laughs, no XXE); only XML's five predefined entities and character references are
//! decoded. Node ids must be unique (in a nested document a repeated id is the same node) and every edge must
//! name existing nodes. This module builds no grain
//! graph and must never panic on any bytes.

use super::ReadError;
use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;
use std::collections::HashMap;
use weft_model::grains::{EdgeKind, GrainNodes, NodeKind, TimeUnit};
use weft_model::StringTable;

const FORMAT: &str = "GraphML";

/// Attributes of nodes or of edges, row-compressed: entries of item `i` are
/// `key[start[i]..start[i + 1]]` / `value[...]`, keys indexing `names` (interned: a document may use
/// millions).
#[derive(Clone, Debug, Default)]
pub struct Attributes {
    pub names: StringTable,
    pub start: Vec<u32>,
    pub key: Vec<u32>,
    pub value: Vec<String>,
}

impl Attributes {
    fn new() -> Self {
        Attributes { start: vec![0], ..Default::default() }
    }
    /// The value of attribute `name` of item `i`, as written.
    pub fn get(&self, i: usize, name: &str) -> Option<&str> {
        self.get_key(i, self.key_of(name)?)
    }
    pub fn key_of(&self, name: &str) -> Option<u32> {
        self.names.lookup(name).map(|k| k.0)
    }
    fn intern(&mut self, name: &str) -> u32 {
        self.names.intern(name).0
    }
    pub fn get_key(&self, i: usize, k: u32) -> Option<&str> {
        let (a, b) = (*self.start.get(i)? as usize, *self.start.get(i + 1)? as usize);
        (a..b).find(|&j| self.key[j] == k).map(|j| self.value[j].as_str())
    }
    /// A numeric attribute; `NA`, `NaN` and text read as None.
    pub fn number(&self, i: usize, k: Option<u32>) -> Option<f64> {
        let v = self.get_key(i, k?)?.trim();
        v.parse::<f64>().ok().filter(|v| v.is_finite())
    }
}

/// One GraphML graph: node ids in document order, edges as node indices.
#[derive(Clone, Debug, Default)]
pub struct GraphMlGraph {
    pub file: String,
    pub directed: bool,
    pub node_ids: Vec<String>,
    pub nodes: Attributes,
    pub edge_source: Vec<u32>,
    pub edge_target: Vec<u32>,
    pub edges: Attributes,
    /// Graph-level `<data>` of the top graph: (attribute name, value).
    pub graph_data: Vec<(String, String)>,
    /// Nodes that held a nested graph (yEd groups), flattened away.
    pub groups: usize,
}

struct KeyDecl {
    for_edge: bool,
    for_graph: bool,
    /// yEd's graphics (`yfiles.type`): markup, not a value; skipped.
    graphics: bool,
    name: String,
}

/// Read a GraphML document held in memory. `name` is used in messages only.
///
/// Nested graphs (yEd's groups, the prototype's aggregated graph: a `<node>` holding a `<graph>`) are
/// flattened: a node that holds a graph is a group, not a node of the result (its data is dropped; `groups`
/// counts them), and its members are nodes like any other. In such a document a node id written again (the
/// prototype repeats a node in each group it belongs to) is the same node: the first is kept. Edges may
/// name only nodes, not groups.
pub fn read(name: &str, bytes: &[u8]) -> Result<GraphMlGraph, ReadError> {
    let mut reader = Reader::from_reader(bytes);
    reader.config_mut().check_end_names = true;
    let err =
        |pos: u64, detail: String| ReadError::Malformed { file: name.into(), format: FORMAT, offset: pos, detail };
    let mut keys: HashMap<String, KeyDecl> = HashMap::new();
    let mut g = GraphMlGraph {
        file: name.into(),
        directed: true,
        nodes: Attributes::new(),
        edges: Attributes::new(),
        ..Default::default()
    };
    let mut node_index: HashMap<String, u32> = HashMap::new();
    let mut edge_ends: Vec<(String, String, u64)> = Vec::new();
    // Rows that are not nodes of the result: groups and repeated ids, dropped at the end.
    let mut dropped: Vec<bool> = Vec::new();
    // Open <node>s: (row, holds a graph).
    let mut open: Vec<(u32, bool)> = Vec::new();
    let mut in_edge = false;
    let mut data_key: Option<(bool, u32)> = None;
    let mut data_graph: Option<String> = None;
    let mut data_text = String::new();
    let mut saw_graphml = false;
    let mut graphs = 0u32;
    let mut nested = false;
    let mut group_ids: HashMap<String, ()> = HashMap::new();
    loop {
        let pos = reader.buffer_position();
        let ev = reader.read_event().map_err(|e| err(pos, format!("not well-formed XML: {e}")))?;
        match ev {
            Event::DocType(_) => return Err(err(
                pos,
                "the document has a DTD (<!DOCTYPE>); weft refuses DTDs so that no entity is ever expanded or fetched"
                    .into(),
            )),
            Event::Start(ref e) | Event::Empty(ref e) => {
                let empty = matches!(ev, Event::Empty(_));
                let local = e.local_name();
                match local.as_ref() {
                    b"graphml" => saw_graphml = true,
                    b"key" => {
                        let id = attr(e, b"id", pos, name)?.unwrap_or_default();
                        let whom = attr(e, b"for", pos, name)?;
                        let graphics = attr(e, b"yfiles.type", pos, name)?.is_some();
                        let aname = attr(e, b"attr.name", pos, name)?.unwrap_or_else(|| id.clone());
                        let (for_edge, for_graph) = (whom.as_deref() == Some("edge"), whom.as_deref() == Some("graph"));
                        keys.insert(id, KeyDecl { for_edge, for_graph, graphics, name: aname });
                    }
                    b"graph" => match open.last_mut() {
                        Some((row, holds)) if !*holds => {
                            *holds = true;
                            nested = true;
                            dropped[*row as usize] = true;
                            g.groups += 1;
                            if let Some(id) = g.node_ids.get(*row as usize) {
                                group_ids.insert(id.clone(), ());
                            }
                        }
                        Some(_) => {}
                        None => {
                            graphs += 1;
                            if graphs > 1 {
                                return Err(err(pos, "multiple top-level <graph> elements are not supported".into()));
                            }
                            g.directed = attr(e, b"edgedefault", pos, name)?.as_deref() != Some("undirected");
                        }
                    },
                    b"node" => {
                        let id = attr(e, b"id", pos, name)?.ok_or_else(|| err(pos, "a <node> without an id".into()))?;
                        let idx = g.node_ids.len() as u32;
                        let repeated = node_index.contains_key(&id);
                        if repeated && !nested {
                            return Err(err(pos, format!("duplicate node id \"{id}\"")));
                        }
                        if !repeated {
                            node_index.insert(id.clone(), idx);
                        }
                        g.node_ids.push(id);
                        dropped.push(repeated);
                        g.nodes.start.push(g.nodes.key.len() as u32);
                        if !empty {
                            open.push((idx, false));
                        }
                    }
                    b"edge" => {
                        let s = attr(e, b"source", pos, name)?
                            .ok_or_else(|| err(pos, "an <edge> without a source".into()))?;
                        let t = attr(e, b"target", pos, name)?
                            .ok_or_else(|| err(pos, "an <edge> without a target".into()))?;
                        edge_ends.push((s, t, pos));
                        g.edges.start.push(g.edges.key.len() as u32);
                        in_edge = !empty;
                    }
                    b"hyperedge" => return Err(err(pos, "hyperedges are not supported".into())),
                    b"data" if !empty && data_key.is_none() && data_graph.is_none() => {
                        let key = attr(e, b"key", pos, name)?.unwrap_or_default();
                        data_text.clear();
                        let decl = keys.get(&key);
                        if decl.is_some_and(|k| k.graphics) {
                            continue;
                        }
                        // The innermost open node, unless it already holds its graph (then the data is the
                        // group's, after its members: dropped with the group).
                        let node_row = match open.last() {
                            Some(&(row, false)) => Some(row),
                            _ => None,
                        };
                        if in_edge {
                            data_key = match decl {
                                Some(k) if k.for_edge => Some((true, g.edges.intern(&k.name))),
                                None => Some((true, g.edges.intern(&key))),
                                _ => None,
                            };
                        } else if let Some(row) = node_row {
                            // Rows are contiguous: only the last row started may still take values.
                            if row as usize + 1 == g.node_ids.len() {
                                data_key = match decl {
                                    Some(k) if !k.for_edge && !k.for_graph => Some((false, g.nodes.intern(&k.name))),
                                    None => Some((false, g.nodes.intern(&key))),
                                    _ => None,
                                };
                            }
                        } else if open.is_empty() && decl.is_some_and(|k| k.for_graph) {
                            data_graph = decl.map(|k| k.name.clone());
                        }
                    }
                    _ => {}
                }
            }
            Event::Text(t) if data_key.is_some() || data_graph.is_some() => {
                let s = t
                    .unescape()
                    .map_err(|e| err(pos, format!("text: {e} (only XML's predefined entities are decoded)")))?;
                data_text.push_str(&s);
            }
            Event::CData(t) if data_key.is_some() || data_graph.is_some() => {
                data_text.push_str(&String::from_utf8_lossy(&t));
            }
            Event::End(e) => match e.local_name().as_ref() {
                b"data" => {
                    if let Some((edge, k)) = data_key.take() {
                        let a = if edge { &mut g.edges } else { &mut g.nodes };
                        a.key.push(k);
                        a.value.push(std::mem::take(&mut data_text));
                        *a.start.last_mut().expect("start has a sentinel") = a.key.len() as u32;
                    } else if let Some(k) = data_graph.take() {
                        g.graph_data.push((k, std::mem::take(&mut data_text)));
                    }
                }
                b"node" => {
                    open.pop();
                }
                b"edge" => in_edge = false,
                _ => {}
            },
            Event::Eof => break,
            _ => {}
        }
    }
    if !saw_graphml {
        return Err(err(0, "no <graphml> element".into()));
    }
    if dropped.iter().any(|&d| d) {
        compact(&mut g, &dropped, &mut node_index);
    }
    for (s, t, pos) in edge_ends {
        let find = |id: &str| {
            if group_ids.contains_key(id) {
                return Err(err(pos, format!("an edge names group \"{id}\"; edges may only join nodes")));
            }
            node_index
                .get(id)
                .copied()
                .ok_or_else(|| err(pos, format!("an edge names node \"{id}\", which does not exist")))
        };
        g.edge_source.push(find(&s)?);
        g.edge_target.push(find(&t)?);
    }
    if g.node_ids.is_empty() {
        return Err(ReadError::Empty { file: name.into(), format: FORMAT, detail: " (no nodes)".into() });
    }
    Ok(g)
}

/// Drop the rows of groups and repeated ids, renumbering the rest.
fn compact(g: &mut GraphMlGraph, dropped: &[bool], node_index: &mut HashMap<String, u32>) {
    let old = std::mem::replace(&mut g.nodes, Attributes::new());
    g.nodes.names = old.names;
    let ids = std::mem::take(&mut g.node_ids);
    node_index.clear();
    for (i, id) in ids.into_iter().enumerate() {
        if dropped[i] {
            continue;
        }
        node_index.insert(id.clone(), g.node_ids.len() as u32);
        g.node_ids.push(id);
        let (a, b) = (old.start[i] as usize, old.start[i + 1] as usize);
        g.nodes.key.extend_from_slice(&old.key[a..b]);
        g.nodes.value.extend_from_slice(&old.value[a..b]);
        g.nodes.start.push(g.nodes.key.len() as u32);
    }
}

/// Read a GraphML document as the model's grain graph.
pub fn read_grains(name: &str, bytes: &[u8]) -> Result<GrainNodes, ReadError> {
    read(name, bytes).map(|x| grains(&x))
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

/// The prototype's graph in the model's terms. A task node is a grain by itself; fragments are grouped into
/// grains by their `task` attribute (or the task part of their name, `2` of `2.1`). Times are cycles.
pub fn grains(x: &GraphMlGraph) -> GrainNodes {
    let n = x.node_ids.len();
    let a = &x.nodes;
    let (k_type, k_name, k_exec, k_task) =
        (a.key_of("type"), a.key_of("name"), a.key_of("exec_cycles"), a.key_of("task"));
    let (k_cpu, k_outline, k_source, k_parent) =
        (a.key_of("cpu_id"), a.key_of("outline_function"), a.key_of("source_line"), a.key_of("parent"));
    // weft's own export says its unit; the prototype writes cycles.
    let unit = match x.graph_data.iter().find(|(k, _)| k == "time_unit").map(|(_, v)| v.trim()) {
        Some("ns") => TimeUnit::Nanoseconds,
        _ => TimeUnit::Cycles,
    };
    let mut g = GrainNodes { file: x.file.clone(), unit, directed: x.directed, ..Default::default() };
    let values = &mut g.values;
    for vi in 0..n {
        let name = k_name.and_then(|k| a.get_key(vi, k)).map(str::to_string).unwrap_or_else(|| x.node_ids[vi].clone());
        let kind = kind_of(k_type.and_then(|k| a.get_key(vi, k)), &name);
        let work = kind.holds_work();
        g.exec.push(if work {
            a.number(vi, k_exec).filter(|e| *e >= 0.0).map(|e| e.round() as u64).unwrap_or(0)
        } else {
            0
        });
        let task_text = number_text(k_task.and_then(|k| a.get_key(vi, k)));
        let name_task = name.split('.').next().unwrap_or("");
        let key = match kind {
            _ if !work => String::new(),
            NodeKind::Task => format!("t{vi}"),
            _ if task_text.is_empty() => name_task.to_string(),
            _ => task_text.clone(),
        };
        g.grain.push(g.strings.intern(&key));
        g.task.push(task_text.parse::<u64>().or_else(|_| name_task.parse::<u64>()).ok());
        g.parent.push(a.number(vi, k_parent).map(|p| p as u64));
        g.core.push(a.number(vi, k_cpu).filter(|c| *c >= 0.0 && *c < u32::MAX as f64).map(|c| c as u32));
        g.function.push(g.strings.intern(&number_text(k_outline.and_then(|k| a.get_key(vi, k)))));
        g.source.push(g.strings.intern(k_source.and_then(|k| a.get_key(vi, k)).unwrap_or("")));
        let (from, to) = (a.start[vi] as usize, a.start[vi + 1] as usize);
        for j in from..to {
            if let Some(v) = a.value[j].trim().parse::<f64>().ok().filter(|v| v.is_finite()) {
                values.key.push(values.names.intern(a.names.get(weft_model::StringId(a.key[j]))));
                values.value.push(v);
            }
        }
        values.start.push(values.key.len() as u32);
        g.kind.push(kind);
        g.name.push(name);
    }
    let k_etype = x.edges.key_of("type");
    g.edge_source = x.edge_source.clone();
    g.edge_target = x.edge_target.clone();
    g.edge_kind = (0..x.edge_source.len()).map(|e| edge_kind_of(k_etype.and_then(|k| x.edges.get_key(e, k)))).collect();
    if let Some(k) = x.edges.key_of("delay") {
        let delay = |e: usize| x.edges.number(e, Some(k)).filter(|d| *d >= 0.0 && *d < 1e18).map(|d| d as u64);
        g.edge_delay = (0..x.edge_source.len()).map(|e| delay(e).unwrap_or(0)).collect();
    }
    g
}

fn attr(e: &BytesStart, key: &[u8], pos: u64, file: &str) -> Result<Option<String>, ReadError> {
    for a in e.attributes() {
        let a = a.map_err(|x| ReadError::Malformed {
            file: file.into(),
            format: FORMAT,
            offset: pos,
            detail: format!("attribute: {x}"),
        })?;
        if a.key.as_ref() == key {
            let v = a.unescape_value().map_err(|x| ReadError::Malformed {
                file: file.into(),
                format: FORMAT,
                offset: pos,
                detail: format!("attribute value: {x} (only XML's predefined entities are decoded)"),
            })?;
            return Ok(Some(v.into_owned()));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns">
  <key id="v_type" for="node" attr.name="type" attr.type="string"/>
  <key id="e_type" for="edge" attr.name="type" attr.type="string"/>
  <graph id="G" edgedefault="directed">
    <node id="a"><data key="v_type">fork</data></node>
    <node id="b"><data key="v_type">task &amp; more</data></node>
    <edge source="a" target="b"><data key="e_type">create</data></edge>
  </graph>
</graphml>"#;

    #[test]
    fn reads_keys_nodes_edges() {
        let g = read("s.graphml", SMALL.as_bytes()).unwrap();
        assert_eq!(g.node_ids, vec!["a", "b"]);
        assert_eq!(g.nodes.get(0, "type"), Some("fork"));
        assert_eq!(g.nodes.get(1, "type"), Some("task & more"));
        assert_eq!((g.edge_source[0], g.edge_target[0]), (0, 1));
        assert_eq!(g.edges.get(0, "type"), Some("create"));
    }

    #[test]
    fn refuses_duplicates_and_dangling() {
        let dup = SMALL.replace("node id=\"b\"", "node id=\"a\"");
        assert!(read("d", dup.as_bytes()).unwrap_err().to_string().contains("duplicate node id"));
        let dangling = SMALL.replace("target=\"b\"", "target=\"zz\"");
        assert!(read("d", dangling.as_bytes()).unwrap_err().to_string().contains("\"zz\""));
    }
}
