//! GraphML for yEd users and for weft itself: the grain graph ([`grain_graph`]) with each node's structure
//! (name, type, task, parent, core, function, source) and its grain's metrics as `<data>` keys, edge types and delays,
//! and yEd's node graphics (shape, fill, label) so the file opens drawn; or the aggregated graph
//! ([`aggregated`]): the same nodes nested in their groups, each group a yEd group node
//! (`yfiles.foldertype="group"`) holding its members in a nested `<graph>`, with the group's propagated
//! metrics. The keys are the names `readers::graphml` reads back (the prototype's), so an exported grain
//! graph re-opens in weft with the same nodes, edges and metrics; the time unit is a graph-level key.
//! Numbers are written in Rust's shortest round-trip form. Text goes through XML escaping (control
//! characters, which XML 1.0 cannot hold, as `\u{…}`). Writes a string, whole or a piece at a time ([`Writer`]: the
//! page's download writes a large graph in steps between frames); touches no file.

use crate::scene::grains::{FORK, JOIN, START_END};
use crate::scene::palette::categorical;
use std::fmt::Write;
use weft_analyses::aggregate::{Aggregation, AggregationTree, GroupMetrics};
use weft_analyses::grains::{GrainAnalysis, NodeKind, TimeUnit, METRICS, NONE};

/// Node keys: (id, attr.name, attr.type).
const NODE_KEYS: [(&str, &str, &str); 21] = [
    ("v_name", "name", "string"),
    ("v_type", "type", "string"),
    ("v_task", "task", "double"),
    ("v_parent", "parent", "double"),
    ("v_cpu_id", "cpu_id", "double"),
    ("v_exec_cycles", "exec_cycles", "double"),
    ("v_outline_function", "outline_function", "string"),
    ("v_source_line", "source_line", "string"),
    ("v_creation_cycles", "creation_cycles", "double"),
    ("v_overhead_cycles", "overhead_cycles", "double"),
    ("v_work_cycles", "work_cycles", "double"),
    ("v_parallel_benefit", "parallel_benefit", "double"),
    ("v_work_deviation", "work_deviation", "double"),
    ("v_mem_hier_util", "mem_hier_util", "double"),
    ("v_sibling_work_balance", "sibling_work_balance", "double"),
    ("v_sibling_scatter", "sibling_scatter", "double"),
    ("v_inst_par_median", "inst_par_median", "double"),
    ("v_inst_par_min", "inst_par_min", "double"),
    ("v_inst_par_max", "inst_par_max", "double"),
    ("v_on_crit_path", "on_crit_path", "double"),
    ("v_problems", "problems", "string"),
];

/// Keys only the aggregated graph's groups carry.
const GROUP_KEYS: [(&str, &str, &str); 4] = [
    ("v_group_kind", "group_kind", "string"),
    ("v_nodes", "nodes", "double"),
    ("v_grains", "grains", "double"),
    ("v_members", "members", "double"),
];

/// XML text: the five predefined entities escaped, characters XML 1.0 cannot hold written as `\u{…}`.
fn escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&apos;"),
            '\t' | '\n' | '\r' => o.push(c),
            c if (c as u32) < 0x20 || c == '\u{fffe}' || c == '\u{ffff}' => {
                let _ = write!(o, "\\u{{{:x}}}", c as u32);
            }
            c => o.push(c),
        }
    }
    o
}

fn header(out: &mut String, unit: TimeUnit, groups: bool) {
    out.push_str(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\" \
         xmlns:y=\"http://www.yworks.com/xml/graphml\" \
         xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" \
         xsi:schemaLocation=\"http://graphml.graphdrawing.org/xmlns \
         http://www.yworks.com/xml/schema/graphml/1.1/ygraphml.xsd\">\n <!--Written by weft-->\n",
    );
    out.push_str(" <key id=\"g_time_unit\" for=\"graph\" attr.name=\"time_unit\" attr.type=\"string\"/>\n");
    let keys = NODE_KEYS.iter().chain(if groups { &GROUP_KEYS[..] } else { &[] });
    for (id, name, ty) in keys {
        let _ = writeln!(out, " <key id=\"{id}\" for=\"node\" attr.name=\"{name}\" attr.type=\"{ty}\"/>");
    }
    out.push_str(" <key id=\"e_type\" for=\"edge\" attr.name=\"type\" attr.type=\"string\"/>\n");
    out.push_str(" <key id=\"e_delay\" for=\"edge\" attr.name=\"delay\" attr.type=\"double\"/>\n");
    out.push_str(" <key id=\"d_graphics\" for=\"node\" yfiles.type=\"nodegraphics\"/>\n");
    out.push_str(" <graph id=\"G\" edgedefault=\"directed\">\n");
    let unit = match unit {
        TimeUnit::Cycles => "cycles",
        TimeUnit::Nanoseconds => "ns",
    };
    let _ = writeln!(out, "  <data key=\"g_time_unit\">{unit}</data>");
}

fn data_num(out: &mut String, key: &str, v: Option<f64>) {
    if let Some(v) = v.filter(|v| v.is_finite()) {
        let _ = writeln!(out, "   <data key=\"{key}\">{v}</data>");
    }
}

fn data_text(out: &mut String, key: &str, v: &str) {
    if !v.is_empty() {
        let _ = writeln!(out, "   <data key=\"{key}\">{}</data>", escape(v));
    }
}

fn hex(c: u32) -> String {
    format!("#{:06X}", c >> 8)
}

/// yEd's drawing of a node: its geometry, fill, shape and label.
fn graphics(out: &mut String, w: f32, h: f32, fill: u32, shape: &str, label: &str) {
    let _ = writeln!(
        out,
        "   <data key=\"d_graphics\"><y:ShapeNode><y:Geometry width=\"{w}\" height=\"{h}\"/>\
         <y:Fill color=\"{}\" transparent=\"false\"/><y:NodeLabel>{}</y:NodeLabel>\
         <y:Shape type=\"{shape}\"/></y:ShapeNode></data>",
        hex(fill),
        escape(label)
    );
}

/// Which problem views flag grain `gi`, comma-separated metric names.
fn problems_of(a: &GrainAnalysis, gi: usize) -> String {
    let names: Vec<&str> =
        a.problems.iter().filter(|p| p.problematic.get(gi).copied().unwrap_or(false)).map(|p| p.metric).collect();
    names.join(",")
}

/// One grain-graph node `v` as a `<node>`, its id `n{v}`.
fn node(out: &mut String, a: &GrainAnalysis, v: usize, indent: &str) {
    let g = &a.graph;
    let m = &a.metrics;
    let kind = g.node_kind[v];
    let name = g.node_name(v as u32);
    let _ = writeln!(out, "{indent}<node id=\"n{v}\">");
    data_text(out, "v_name", &name);
    data_text(out, "v_type", kind.name());
    let grain = g.node_grain[v];
    if grain != NONE {
        let gi = grain as usize;
        data_num(out, "v_task", Some(g.grain_task[gi] as f64));
        let p = g.grain_parent[gi];
        if p != NONE {
            data_num(out, "v_parent", Some(g.grain_task[p as usize] as f64));
        }
        if g.grain_cpu[gi] != NONE {
            data_num(out, "v_cpu_id", Some(g.grain_cpu[gi] as f64));
        }
    }
    data_num(out, "v_exec_cycles", Some(g.node_exec[v] as f64));
    if grain != NONE {
        let gi = grain as usize;
        data_text(out, "v_outline_function", g.string(g.grain_outline[gi]));
        data_text(out, "v_source_line", g.string(g.grain_source[gi]));
        let cols: [(&str, &[Option<f64>]); 11] = [
            ("v_creation_cycles", &m.creation),
            ("v_overhead_cycles", &m.overhead),
            ("v_work_cycles", &m.work),
            ("v_parallel_benefit", &m.parallel_benefit),
            ("v_work_deviation", &m.work_deviation),
            ("v_mem_hier_util", &m.mem_hier_util),
            ("v_sibling_work_balance", &m.sibling_work_balance),
            ("v_sibling_scatter", &m.sibling_scatter),
            ("v_inst_par_median", &m.inst_par_median),
            ("v_inst_par_min", &m.inst_par_min),
            ("v_inst_par_max", &m.inst_par_max),
        ];
        for (k, c) in cols {
            data_num(out, k, c.get(gi).copied().flatten());
        }
        data_text(out, "v_problems", &problems_of(a, gi));
    }
    data_num(out, "v_on_crit_path", Some(if a.critical.on_node[v] { 1.0 } else { 0.0 }));
    let (fill, shape, w, h) = match kind {
        NodeKind::Fork => (FORK, "ellipse", 10.0, 10.0),
        NodeKind::Join => (JOIN, "ellipse", 10.0, 10.0),
        NodeKind::Start | NodeKind::End => (START_END, "rectangle", 15.0, 15.0),
        NodeKind::Fragment | NodeKind::Task => {
            let f = if grain != NONE { categorical(g.string(g.grain_outline[grain as usize])) } else { START_END };
            (f, "roundrectangle", 30.0, 20.0)
        }
    };
    graphics(out, w, h, fill, shape, &name);
    let _ = writeln!(out, "{indent}</node>");
}

fn edges(out: &mut String, a: &GrainAnalysis, range: std::ops::Range<usize>) {
    let g = &a.graph;
    for e in range {
        let delay = g.edge_delay.get(e).copied().unwrap_or(0);
        let delay = if delay > 0 { format!("<data key=\"e_delay\">{delay}</data>") } else { String::new() };
        let _ = writeln!(
            out,
            "  <edge id=\"e{e}\" source=\"n{}\" target=\"n{}\"><data key=\"e_type\">{}</data>{delay}</edge>",
            g.edge_source[e],
            g.edge_target[e],
            g.edge_kind[e].name()
        );
    }
}

/// The grain graph as GraphML.
pub fn grain_graph(a: &GrainAnalysis) -> String {
    Writer::grain_graph().finish(a, None)
}

/// The aggregated graph as GraphML: every grain-graph node once, inside the innermost group that holds it
/// (a leaf in its group; a fork-join group's fork and join in that group), groups as yEd group nodes with a
/// nested graph; edges at the top level, as yEd writes them.
pub fn aggregated(a: &GrainAnalysis, agg: &Aggregation) -> String {
    Writer::aggregated(&agg.tree).finish(a, Some((&agg.tree, &agg.metrics)))
}

/// Where the iterative pre-order of the aggregation tree is: `Open(t)` writes a group's head and pushes
/// `Close` below its children.
enum Step {
    Open(u32),
    Node(u32),
    Close,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    Header,
    /// The grain graph's nodes from this one.
    Nodes(usize),
    /// The aggregation tree's walk (`Writer::stack`).
    Groups,
    /// Nodes no group holds (none in a well-formed tree), from this one.
    Loose(usize),
    /// Edges from this one.
    Edges(usize),
    Done,
}

/// A GraphML document written a piece at a time, so the page can write a large graph's in steps of a few
/// milliseconds between frames; the pieces joined are [`grain_graph`]'s or [`aggregated`]'s text, which are
/// this writer run to the end. Holds only where it is: each step is given the analysis (and the aggregation)
/// again, which must be the ones it began with.
pub struct Writer {
    phase: Phase,
    groups: bool,
    stack: Vec<Step>,
    depth: usize,
    written: Vec<bool>,
}

impl Writer {
    /// The grain graph's document.
    pub fn grain_graph() -> Self {
        Writer { phase: Phase::Header, groups: false, stack: Vec::new(), depth: 1, written: Vec::new() }
    }

    /// The aggregated graph's document for aggregation tree `t`.
    pub fn aggregated(t: &AggregationTree) -> Self {
        Writer { phase: Phase::Header, groups: true, stack: vec![Step::Open(t.root)], depth: 1, written: Vec::new() }
    }

    pub fn done(&self) -> bool {
        self.phase == Phase::Done
    }

    /// The whole document from where the writer is.
    pub fn finish(mut self, a: &GrainAnalysis, agg: Option<(&AggregationTree, &GroupMetrics)>) -> String {
        let mut out = String::new();
        while !self.done() {
            self.step(&mut out, a, agg, usize::MAX);
        }
        out
    }

    /// Append the next piece to `out`: the header, then about `items` nodes, groups or edges. `agg` is the
    /// tree and its metrics for an aggregated document (ignored for the grain graph's).
    pub fn step(
        &mut self,
        out: &mut String,
        a: &GrainAnalysis,
        agg: Option<(&AggregationTree, &GroupMetrics)>,
        items: usize,
    ) {
        let n = a.graph.nodes();
        let mut left = items.max(1);
        while left > 0 {
            match self.phase {
                Phase::Header => {
                    header(out, a.graph.unit, self.groups);
                    self.written = if self.groups { vec![false; n] } else { Vec::new() };
                    self.phase = if self.groups { Phase::Groups } else { Phase::Nodes(0) };
                }
                Phase::Nodes(v) => {
                    let end = v.saturating_add(left).min(n);
                    for v in v..end {
                        node(out, a, v, "  ");
                    }
                    left -= end - v;
                    self.phase = if end == n { Phase::Edges(0) } else { Phase::Nodes(end) };
                    continue;
                }
                Phase::Groups => match (self.stack.pop(), agg) {
                    (Some(step), Some((t, gm))) => self.group_step(out, a, t, gm, step),
                    _ => self.phase = Phase::Loose(0),
                },
                Phase::Loose(v) => {
                    let end = v.saturating_add(left).min(self.written.len());
                    for u in v..end {
                        if !self.written[u] {
                            node(out, a, u, "  ");
                        }
                    }
                    left -= end - v;
                    self.phase = if end == self.written.len() { Phase::Edges(0) } else { Phase::Loose(end) };
                    continue;
                }
                Phase::Edges(e) => {
                    let end = e.saturating_add(left).min(a.graph.edges());
                    edges(out, a, e..end);
                    left -= end - e;
                    if end == a.graph.edges() {
                        out.push_str(" </graph>\n</graphml>\n");
                        self.phase = Phase::Done;
                    } else {
                        self.phase = Phase::Edges(end);
                    }
                    continue;
                }
                Phase::Done => return,
            }
            left -= 1;
        }
    }

    fn group_step(&mut self, out: &mut String, a: &GrainAnalysis, t: &AggregationTree, gm: &GroupMetrics, step: Step) {
        let indent = " ".repeat(self.depth + 1);
        match step {
            Step::Close => {
                self.depth -= 1;
                let i = " ".repeat(self.depth + 1);
                let _ = writeln!(out, "{i} </graph>\n{i}</node>");
            }
            Step::Node(v) => {
                let v = v as usize;
                if v < self.written.len() && !self.written[v] {
                    self.written[v] = true;
                    node(out, a, v, &indent);
                }
            }
            Step::Open(x) if t.is_leaf(x) => self.stack.push(Step::Node(t.node[x as usize])),
            Step::Open(x) => {
                let xi = x as usize;
                let kind = t.kind[xi];
                let _ = writeln!(out, "{indent}<node id=\"g{x}\" yfiles.foldertype=\"group\">");
                data_text(out, "v_name", &format!("g{x}"));
                data_text(out, "v_group_kind", kind.name());
                data_num(out, "v_exec_cycles", Some(gm.exec[xi] as f64));
                let cols: [(&str, &[Option<f64>]); 9] = [
                    ("v_work_cycles", &gm.work),
                    ("v_parallel_benefit", &gm.parallel_benefit),
                    ("v_work_deviation", &gm.work_deviation),
                    ("v_mem_hier_util", &gm.mem_hier_util),
                    ("v_sibling_work_balance", &gm.sibling_work_balance),
                    ("v_sibling_scatter", &gm.sibling_scatter),
                    ("v_inst_par_median", &gm.inst_par_median),
                    ("v_inst_par_min", &gm.inst_par_min),
                    ("v_inst_par_max", &gm.inst_par_max),
                ];
                for (k, c) in cols {
                    data_num(out, k, c.get(xi).copied().flatten());
                }
                let bits = gm.problems.get(xi).copied().unwrap_or(0);
                let names: Vec<&str> =
                    METRICS.iter().enumerate().filter(|(i, _)| bits & (1 << i) != 0).map(|(_, m)| *m).collect();
                data_text(out, "v_problems", &names.join(","));
                data_num(out, "v_on_crit_path", Some(if gm.on_critical[xi] { 1.0 } else { 0.0 }));
                data_num(out, "v_nodes", Some(gm.nodes[xi] as f64));
                data_num(out, "v_grains", Some(gm.grains[xi] as f64));
                data_num(out, "v_members", Some(gm.strength[xi].1 as f64));
                let label = format!("{} ({} grains)", kind.name(), gm.grains[xi]);
                graphics(out, 60.0, 40.0, 0xf2f2f2ff, "roundrectangle", &label);
                let _ = writeln!(out, "{indent} <graph id=\"g{x}:\" edgedefault=\"directed\">");
                self.depth += 1;
                self.stack.push(Step::Close);
                // The fork first, the join last, members in program order between.
                let (f, j) = (t.fork[xi], t.join[xi]);
                let kids = t.children_of(x);
                if j != NONE {
                    self.stack.push(Step::Node(j));
                }
                for &c in kids.iter().rev() {
                    self.stack.push(Step::Open(c));
                }
                if f != NONE {
                    self.stack.push(Step::Node(f));
                }
            }
        }
    }
}
