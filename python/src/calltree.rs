//! `weft calltree --json`'s report (src/bin/weft/calltree.rs prints the same keys): `total_ns`, `inverted`,
//! `window` (when one is asked), `nodes` in preorder with `path` (region names, outermost first; innermost
//! first when inverted), `count`, `inclusive_ns`, `exclusive_ns`, `share` (inclusive over total), `region`
//! and `parent`. The tree is `weft_analyses::calltree`'s; this only names its nodes.

use serde::Serialize;
use weft_analyses::calltree::CallTree;
use weft_analyses::moments::TimeWindow;
use weft_model::Trace;

#[derive(Serialize)]
pub struct Node<'a> {
    path: Vec<&'a str>,
    count: u64,
    inclusive_ns: u64,
    exclusive_ns: u64,
    share: f64,
    region: u32,
    parent: Option<u32>,
}

#[derive(Serialize)]
pub struct Window {
    start_ns: u64,
    end_ns: u64,
}

#[derive(Serialize)]
pub struct Report<'a> {
    total_ns: u64,
    inverted: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    window: Option<Window>,
    nodes: Vec<Node<'a>>,
}

pub fn report<'a>(trace: &'a Trace, tree: &CallTree, inverted: bool, window: Option<TimeWindow>) -> Report<'a> {
    let total = tree.total_ns();
    let mut path: Vec<&str> = Vec::new();
    let nodes = tree
        .nodes
        .iter()
        .map(|n| {
            path.truncate(n.depth as usize);
            path.push(trace.region_name(n.region));
            Node {
                path: path.clone(),
                count: n.count,
                inclusive_ns: n.inclusive_ns,
                exclusive_ns: n.exclusive_ns,
                share: if total > 0 { n.inclusive_ns as f64 / total as f64 } else { 0.0 },
                region: n.region.0,
                parent: n.parent,
            }
        })
        .collect();
    Report {
        total_ns: total,
        inverted,
        window: window.map(|w| Window { start_ns: w.start_ns, end_ns: w.end_ns }),
        nodes,
    }
}
