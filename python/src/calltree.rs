//! `weft calltree --json`'s report (src/bin/weft/calltree.rs prints the same keys): `total_ns`, `inverted`,
//! `window` (when one is asked), `nodes` in preorder with `path` (region names, outermost first; innermost
//! first when inverted), `count`, `inclusive_ns`, `exclusive_ns`, `share` (inclusive over total), `region`
//! and `parent`. The tree is `weft_analyses::calltree`'s; this only names its nodes.

use serde::Serialize;
use weft_analyses::calltree::{CallTree, NamedNode};
use weft_analyses::moments::TimeWindow;
use weft_model::Trace;

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
    nodes: Vec<NamedNode<'a>>,
}

pub fn report<'a>(trace: &'a Trace, tree: &CallTree, inverted: bool, window: Option<TimeWindow>) -> Report<'a> {
    let total = tree.total_ns();
    let nodes = tree.named_nodes(trace);
    Report {
        total_ns: total,
        inverted,
        window: window.map(|w| Window { start_ns: w.start_ns, end_ns: w.end_ns }),
        nodes,
    }
}
