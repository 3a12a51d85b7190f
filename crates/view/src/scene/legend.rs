//! Legends: what each colour, shape and line of the grain graph, the aggregated graph and the execution
//! graph means, as data. Each entry names the very colour and shape the view's scene builder draws (the
//! constants of `scene::grains`, `scene::aggregate`, `scene::execgraph`), so a legend cannot drift from the
//! picture. The page renders a legend as HTML from [`Legend::to_json`]; `weft render` draws it into the
//! picture with [`beside`]. Colours by function or source line list the most common entries (by grains) and
//! "other" for the tail. Computes no metric; O(grains) with no hashing of names beyond those shown.

use super::aggregate::{
    FAST_FORWARD, LOCAL_CRITICAL, OPENED, OPENED_BORDER, PROBLEM_BORDER, QUIET_BORDER, SIMILAR, UNOPENED,
};
use super::grains::{
    edge_color, severity_color, ColorBy, View, DIMMED, DIMMED_EDGE, EDGE_PLAIN, FORK, JOIN, START_END,
};
use super::palette::{categorical, CRITICAL, FLOW, TEXT, TEXT_MUTED};
use super::{rgba, Align, Label, LineInstance, RectInstance, Rgba, Scene, Shape};
use serde::Serialize;
use weft_analyses::grains::{EdgeKind, GrainAnalysis};

/// How many functions or source lines a legend names before "other".
pub const TOP: usize = 8;

/// How an entry is drawn: a filled shape (with a border colour, or 0), a line (solid or dashed), or several
/// colours (the tail of a categorical colouring).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "mark", rename_all = "snake_case")]
pub enum Mark {
    Shape { shape: &'static str, border: String },
    Line { dashed: bool },
    Mixed,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Entry {
    pub label: String,
    /// `#rrggbbaa`.
    pub color: String,
    #[serde(flatten)]
    pub mark: Mark,
    /// The `colors` option's key that changes this entry's colour (the timeline's function groups and
    /// functions, `scene::groups`); None where the colour is fixed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub edit: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Section {
    pub title: String,
    pub entries: Vec<Entry>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Legend {
    pub sections: Vec<Section>,
}

pub fn hex(c: Rgba) -> String {
    format!("#{c:08x}")
}

fn shape_name(s: Shape) -> &'static str {
    match s {
        Shape::Rect => "rect",
        Shape::Rounded => "rounded",
        Shape::Ellipse => "ellipse",
        Shape::Diamond => "diamond",
        Shape::TriangleDown => "triangle_down",
        Shape::TriangleUp => "triangle_up",
        Shape::Hatched => "hatched",
    }
}

pub(super) fn fill(label: impl Into<String>, color: Rgba, shape: Shape) -> Entry {
    Entry {
        label: label.into(),
        color: hex(color),
        mark: Mark::Shape { shape: shape_name(shape), border: String::new() },
        edit: None,
    }
}

fn bordered(label: impl Into<String>, color: Rgba, shape: Shape, border: Rgba) -> Entry {
    Entry {
        label: label.into(),
        color: hex(color),
        mark: Mark::Shape { shape: shape_name(shape), border: hex(border) },
        edit: None,
    }
}

fn line(label: impl Into<String>, color: Rgba, dashed: bool) -> Entry {
    Entry { label: label.into(), color: hex(color), mark: Mark::Line { dashed }, edit: None }
}

pub(super) fn section(title: &str, entries: Vec<Entry>) -> Section {
    Section { title: title.into(), entries }
}

/// The most common strings among `ids` (one per grain), by grains, and the rest: up to [`TOP`] entries
/// coloured as the scene colours them, then "other (n more)".
fn top_strings(a: &GrainAnalysis, ids: &[u32], what: &str) -> Vec<Entry> {
    let g = &a.graph;
    let mut count = vec![0u64; g.strings.len() + 1];
    for &s in ids {
        let i = (s as usize).min(g.strings.len());
        count[i] += 1;
    }
    let mut order: Vec<usize> = (0..count.len()).filter(|&i| count[i] > 0).collect();
    order.sort_by(|&x, &y| count[y].cmp(&count[x]).then(x.cmp(&y)));
    let shown = order.len().min(TOP);
    let mut out: Vec<Entry> = order[..shown]
        .iter()
        .map(|&i| {
            let name = g.string(i as u32);
            let label = if name.is_empty() { format!("(no {what})") } else { name.to_string() };
            fill(format!("{label} ({})", grains_text(count[i])), categorical(name), Shape::Rounded)
        })
        .collect();
    if order.len() > shown {
        let rest: u64 = order[shown..].iter().map(|&i| count[i]).sum();
        out.push(Entry {
            label: format!("other: {} more ({})", order.len() - shown, grains_text(rest)),
            color: hex(TEXT_MUTED),
            mark: Mark::Mixed,
            edit: None,
        });
    }
    out
}

fn grains_text(n: u64) -> String {
    weft_analyses::aggregate::query::counted(n, "grain", "grains")
}

fn edges_section(problem: bool) -> Section {
    let mut e = Vec::new();
    if problem {
        e.push(line("edge", DIMMED_EDGE, false));
    } else {
        e.push(line("creation (fork → child)", edge_color(EdgeKind::Create), false));
        e.push(line("synchronization (→ join)", edge_color(EdgeKind::Sync), false));
        e.push(line("continuation, scope", EDGE_PLAIN, false));
    }
    e.push(line("critical path", CRITICAL, false));
    section("Edges", e)
}

/// The grain graph's legend in `view`.
pub fn grains(a: &GrainAnalysis, view: View) -> Legend {
    let g = &a.graph;
    let mut sections = Vec::new();
    match view {
        View::Structure(by) => {
            match by {
                ColorBy::OutlineFunction => {
                    sections.push(section("Fragments by function", top_strings(a, &g.grain_outline, "function")))
                }
                ColorBy::SourceLine => {
                    sections.push(section("Fragments by source line", top_strings(a, &g.grain_source, "source line")))
                }
                ColorBy::Cpu => sections.push(section("Fragments by core (cpu_id)", cpu_entries(&a.cpu_ids))),
            }
            sections.push(section(
                "Nodes",
                vec![
                    fill("fork", FORK, Shape::Ellipse),
                    fill("join", JOIN, Shape::Ellipse),
                    fill("start, end", START_END, Shape::Rect),
                    bordered("on the critical path", rgba(0xff, 0xff, 0xff, 0xff), Shape::Rounded, CRITICAL),
                ],
            ));
            sections.push(edges_section(false));
        }
        View::Problem(p) => {
            let n = p.count as u64;
            sections.push(section(
                &format!("{}: {}", p.metric.replace('_', " "), grains_text(n)),
                vec![
                    fill("just past the threshold", severity_color(0.0), Shape::Rounded),
                    fill("half way", severity_color(0.5), Shape::Rounded),
                    fill("far past the threshold", severity_color(1.0), Shape::Rounded),
                    fill("not problematic, forks, joins", DIMMED, Shape::Rounded),
                    fill("start, end", START_END, Shape::Rect),
                    bordered(
                        "problematic, under a pixel (marked)",
                        severity_color(1.0),
                        Shape::Rect,
                        PROBLEM_MARK_BORDER,
                    ),
                ],
            ));
            sections.push(edges_section(true));
        }
    }
    Legend { sections }
}

/// The cores' colours on the prototype's linear map: every core when there are at most 8, else 8 spread
/// from the first to the last (the ramp between them is continuous).
fn cpu_entries(cpus: &[u32]) -> Vec<Entry> {
    let n = cpus.len();
    let picks: Vec<usize> = if n <= 8 { (0..n).collect() } else { (0..8).map(|k| k * (n - 1) / 7).collect() };
    picks
        .into_iter()
        .map(|k| fill(format!("cpu {}", cpus[k]), super::grains::cpu_color(cpus[k], cpus), Shape::Rounded))
        .collect()
}

/// The border of the markers that keep problematic grains findable when they are smaller than a pixel.
pub const PROBLEM_MARK_BORDER: Rgba = rgba(0x20, 0x24, 0x2a, 0xff);

/// The aggregated graph's legend; `problem` when a problem view is shown.
pub fn aggregate(a: &GrainAnalysis, problem: Option<&str>) -> Legend {
    let g = &a.graph;
    let mut sections = Vec::new();
    match problem {
        None => {
            sections.push(section("Grains by function", top_strings(a, &g.grain_outline, "function")));
            sections.push(section(
                "Groups",
                vec![
                    fill("closed group (click to open)", UNOPENED, Shape::Rounded),
                    bordered("opened group", OPENED, Shape::Rect, OPENED_BORDER),
                    fill("fork, join, start, end", START_END, Shape::Ellipse),
                    bordered("on the critical path", UNOPENED, Shape::Rounded, PROBLEM_BORDER),
                ],
            ));
        }
        Some(m) => {
            sections.push(section(
                &format!("Problem: {}", m.replace('_', " ")),
                vec![
                    bordered(
                        "problematic group: worst severity inside",
                        severity_color(0.6),
                        Shape::Rounded,
                        PROBLEM_BORDER,
                    ),
                    bordered("group without problems", rgba(0xf0, 0xf7, 0xf0, 0xff), Shape::Rounded, QUIET_BORDER),
                    fill("just past the threshold", severity_color(0.0), Shape::Rounded),
                    fill("far past the threshold", severity_color(1.0), Shape::Rounded),
                    fill("not problematic", DIMMED, Shape::Rounded),
                ],
            ));
        }
    }
    sections.push(section(
        "Marks",
        vec![
            fill("group fork", FORK, Shape::Ellipse),
            fill("group join", JOIN, Shape::Ellipse),
            bordered("local critical path of the inspected group", OPENED, Shape::Rounded, LOCAL_CRITICAL),
            fill("same structure as another visible group", SIMILAR, Shape::Diamond),
            line("edge", EDGE_PLAIN, false),
            line("critical path", PROBLEM_BORDER, false),
            line("fast-forward (filtered members)", FAST_FORWARD, false),
        ],
    ));
    Legend { sections }
}

/// The execution graph's legend: TreVis's node shapes and edge styles.
pub fn execgraph() -> Legend {
    use super::execgraph::{shape_of, IDLE, JOIN_WAIT_FILL, NODE_FILL, STRUCTURAL};
    use weft_analyses::execgraph::NodeKind;
    let node = |label: &str, k: NodeKind| {
        let f = if k == NodeKind::JoinBegin { JOIN_WAIT_FILL } else { NODE_FILL };
        bordered(label, f, shape_of(k), TEXT)
    };
    Legend {
        sections: vec![
            section(
                "Nodes",
                vec![
                    node("thread start", NodeKind::Start),
                    node("thread end", NodeKind::End),
                    node("fork", NodeKind::Fork),
                    node("join begins (waits)", NodeKind::JoinBegin),
                    node("join ends (continues)", NodeKind::JoinEnd),
                    node("join (begins and ends at once)", NodeKind::Join),
                    bordered("on the critical path", NODE_FILL, Shape::Ellipse, CRITICAL),
                ],
            ),
            section(
                "Edges",
                vec![
                    line("thread running (flow)", FLOW, false),
                    line("thread idle", IDLE, true),
                    line("fork / join (structural)", STRUCTURAL, false),
                    line("waiting to start or be joined", STRUCTURAL, true),
                    line("critical path", CRITICAL, false),
                ],
            ),
        ],
    }
}

impl Legend {
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or(serde_json::Value::Null)
    }
    pub fn entries(&self) -> impl Iterator<Item = &Entry> {
        self.sections.iter().flat_map(|s| s.entries.iter())
    }

    /// The legend in the dark theme's colours (`palette::dark`, as the view's scene is drawn then).
    pub fn dark(mut self) -> Legend {
        let swap = |c: &mut String| {
            if !c.is_empty() {
                *c = hex(super::palette::dark(parse_hex(c)));
            }
        };
        for e in self.sections.iter_mut().flat_map(|s| s.entries.iter_mut()) {
            swap(&mut e.color);
            if let Mark::Shape { border, .. } = &mut e.mark {
                swap(border);
            }
        }
        self
    }
}

fn parse_hex(s: &str) -> Rgba {
    u32::from_str_radix(s.trim_start_matches('#'), 16).unwrap_or(0)
}

fn shape_of_name(s: &str) -> Shape {
    match s {
        "rounded" => Shape::Rounded,
        "ellipse" => Shape::Ellipse,
        "diamond" => Shape::Diamond,
        "triangle_down" => Shape::TriangleDown,
        "triangle_up" => Shape::TriangleUp,
        _ => Shape::Rect,
    }
}

/// The legend's width beside a picture, in CSS pixels.
pub const WIDTH_PX: f32 = 270.0;
const ROW: f32 = 16.0;
const SIZE: f32 = 11.0;

/// `scene` with the legend beside it, on the right (for `weft render`'s SVG and PNG: nothing of the view is
/// covered). The picture grows by [`WIDTH_PX`] and, where the legend is taller, in height.
pub fn beside(scene: Scene, legend: &Legend) -> Scene {
    let rows: usize = legend.sections.iter().map(|x| x.entries.len() + 1).sum();
    let mut s = Scene::new(WIDTH_PX, rows as f32 * ROW + 16.0, scene.background);
    draw(&mut s, legend);
    scene.beside(s)
}

/// Draw the legend into `s` from its top-left corner, as decoration: each section's title and its entries.
fn draw(s: &mut Scene, legend: &Legend) {
    let width = WIDTH_PX - 12.0;
    let (x0, y0) = (6.0, 6.0);
    let height = s.height - 12.0;
    s.decorate(|s| {
        s.rects.push(
            RectInstance::filled(x0, y0, width, height, rgba(0xff, 0xff, 0xff, 0xe8))
                .with_border(rgba(0xb8, 0xbe, 0xc6, 0xff), 1.0),
        );
        let mut y = y0 + 5.0 + ROW / 2.0;
        let bottom = y0 + height;
        'out: for sec in &legend.sections {
            if y > bottom {
                break;
            }
            s.labels.push(Label::new(x0 + 6.0, y, sec.title.clone(), TEXT, SIZE).bold().clipped(width - 12.0));
            y += ROW;
            for e in &sec.entries {
                if y > bottom {
                    break 'out;
                }
                let c = parse_hex(&e.color);
                let (sx, sy) = (x0 + 8.0, y - 5.0);
                match &e.mark {
                    Mark::Shape { shape, border } => {
                        let mut r = RectInstance::filled(sx, sy, 14.0, 10.0, c).with_shape(shape_of_name(shape));
                        if !border.is_empty() {
                            r = r.with_border(parse_hex(border), 1.5);
                        }
                        s.rects.push(r);
                    }
                    Mark::Line { dashed } => {
                        let l = LineInstance::solid(sx, y, sx + 14.0, y, 2.0, c);
                        s.lines.push(if *dashed { l.dashed(4.0) } else { l });
                    }
                    Mark::Mixed => {
                        for (i, k) in ["a", "b", "c"].iter().enumerate() {
                            s.rects.push(RectInstance::filled(sx + i as f32 * 5.0, sy, 4.0, 10.0, categorical(k)));
                        }
                    }
                }
                s.labels.push(
                    Label::new(x0 + 28.0, y, e.label.clone(), TEXT, SIZE).aligned(Align::Left).clipped(width - 34.0),
                );
                y += ROW;
            }
        }
    });
}
