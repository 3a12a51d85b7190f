//! `weft calltree TRACE|STORE [--json] [--window T0:T1] [--locations 0,3,8-15] [--inverted] [--per-location]
//! [--butterfly REGION]`: the call tree of a selection (`analyses::calltree`, definitions in docs/calltree.md).
//! `--json` prints `{"total_ns", "inverted", "window"?, "nodes": [{"path", "count", "inclusive_ns",
//! "exclusive_ns", "share", "region", "parent"}]}` with nodes in preorder (siblings by inclusive time), `path`
//! the region names outermost first (innermost first with `--inverted`), `parent` the index of the enclosing
//! node (null for a root), `share` the inclusive time over `total_ns`. Over every location, the roots'
//! inclusive times add up to the time the regions of `weft info --window --json` cover, and per region the
//! nodes' counts and exclusive times to its `count` and `exclusive_ns`. `--per-location` prints
//! `{"locations": [{"location", "name", "total_ns", "nodes"}]}`; `--butterfly NAME` the region's callers and
//! callees. Text: the tree indented, nodes under `--min-share` percent of the total left out (and counted).
//! A store of format 8 on answers from its call-path tiles and the level-0 tiles of the range's edges
//! (`store::read::calltree`); an older store is decoded whole.

use crate::selection::Selection;
use serde::Serialize;
use std::path::PathBuf;
use weft::analyses::calltree::{call_tree, per_location, Butterfly, CallTree, LocationCallTree, NamedNode};
use weft::analyses::moments::TimeWindow;
use weft::model::text::escape_controls as esc;
use weft::model::{RegionId, Trace};

#[derive(clap::Args)]
pub struct Args {
    /// The trace file, or a store folder written by `weft index`.
    file: PathBuf,
    /// Print JSON with stable keys instead of text.
    #[arg(long)]
    json: bool,
    /// Only this time window, `T0:T1` from the trace's first event (units ns, us, ms, s; default ns).
    #[arg(long)]
    window: Option<String>,
    /// Only these locations: indices and ranges, `0,3,8-15` (the `location` of `weft moments --json`).
    #[arg(long)]
    locations: Option<String>,
    /// The bottom-up tree: roots are where time is spent, children their callers.
    #[arg(long)]
    inverted: bool,
    /// One tree per location instead of one merged over the selected locations.
    #[arg(long)]
    per_location: bool,
    /// The callers and callees of the region of this name (the first region so named).
    #[arg(long, value_name = "REGION")]
    butterfly: Option<String>,
    /// Text output: leave out nodes under this percentage of the total time.
    #[arg(long, default_value_t = 0.1)]
    min_share: f64,
    /// A store: decode it whole and walk its intervals instead of reading its call-path tiles (the way
    /// before store format 8; for comparisons and benchmarks).
    #[arg(long, hide = true)]
    whole: bool,
}

/// Where the tree comes from: a trace (or a store decoded whole), or a store's tiles and its definitions.
enum Source {
    Trace(Box<Trace>),
    Tiles(Box<weft::store::read::Store<crate::folders::FolderStore>>, Box<Trace>),
}

impl Source {
    fn open(a: &Args) -> Result<Source, Box<dyn std::error::Error>> {
        if let (Some(store), false) = (crate::folders::open_store(&a.file), a.whole) {
            let store = store.map_err(|e| crate::folders::store_error(&a.file, e))?;
            if weft::store::read::calltree::has_callpaths(&store) {
                let skeleton = store.skeleton().map_err(|e| crate::folders::store_error(&a.file, e))?;
                return Ok(Source::Tiles(Box::new(store), Box::new(skeleton)));
            }
        }
        Ok(Source::Trace(Box::new(crate::folders::read_trace_or_store(&a.file)?)))
    }

    /// The definitions (every region and location name).
    fn trace(&self) -> &Trace {
        match self {
            Source::Trace(t) => t,
            Source::Tiles(_, t) => t,
        }
    }

    fn merged(
        &self,
        window: Option<TimeWindow>,
        keep: impl Fn(weft::model::LocationId) -> bool,
        file: &std::path::Path,
    ) -> Result<CallTree, Box<dyn std::error::Error>> {
        Ok(match self {
            Source::Trace(t) => call_tree(t, window, keep),
            Source::Tiles(s, sk) => weft::store::read::calltree::store_call_tree(s, sk, window, keep)
                .map_err(|e| crate::folders::store_error(file, e))?,
        })
    }

    fn per_location(
        &self,
        window: Option<TimeWindow>,
        keep: impl Fn(weft::model::LocationId) -> bool,
        file: &std::path::Path,
    ) -> Result<Vec<LocationCallTree>, Box<dyn std::error::Error>> {
        Ok(match self {
            Source::Trace(t) => per_location(t, window, keep),
            Source::Tiles(s, sk) => weft::store::read::calltree::store_per_location(s, sk, window, keep)
                .map_err(|e| crate::folders::store_error(file, e))?,
        })
    }
}

#[derive(Serialize)]
struct TreeJson<'a> {
    total_ns: u64,
    inverted: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    window: Option<TimeWindowJson>,
    nodes: Vec<NamedNode<'a>>,
}

#[derive(Serialize)]
struct LocationJson<'a> {
    location: u32,
    name: &'a str,
    total_ns: u64,
    nodes: Vec<NamedNode<'a>>,
}

#[derive(Serialize)]
struct PerLocationJson<'a> {
    inverted: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    window: Option<TimeWindowJson>,
    locations: Vec<LocationJson<'a>>,
}

#[derive(Serialize)]
struct TimeWindowJson {
    start_ns: u64,
    end_ns: u64,
}

#[derive(Serialize)]
struct EdgeJson<'a> {
    /// None: the region's intervals with no enclosing interval.
    name: Option<&'a str>,
    count: u64,
    inclusive_ns: u64,
}

#[derive(Serialize)]
struct ButterflyJson<'a> {
    region: &'a str,
    count: u64,
    inclusive_ns: u64,
    exclusive_ns: u64,
    callers: Vec<EdgeJson<'a>>,
    callees: Vec<EdgeJson<'a>>,
}

pub fn run(a: Args) -> Result<(), Box<dyn std::error::Error>> {
    let window = Selection::window(a.window.as_deref())?;
    let file = a.file.display().to_string();
    let source = Source::open(&a)?;
    let trace = source.trace();
    let sel = Selection::new(a.locations.as_deref(), trace, &file)?;
    let orient = |t: CallTree| if a.inverted { t.inverted(trace) } else { t };
    let window_json = window.map(|w| TimeWindowJson { start_ns: w.start_ns, end_ns: w.end_ns });
    if let Some(name) = &a.butterfly {
        let region = (0..trace.regions.len() as u32)
            .map(RegionId)
            .find(|&r| trace.region_name(r) == name)
            .ok_or_else(|| format!("{file}: no region named '{name}'"))?;
        let b = source.merged(window, |l| sel.keep(l), &a.file)?.butterfly(trace, region);
        if a.json {
            println!("{}", crate::json_text(&butterfly_json(trace, &b))?);
        } else {
            print_butterfly(trace, &b);
        }
        return Ok(());
    }
    if a.per_location {
        let trees: Vec<_> = source
            .per_location(window, |l| sel.keep(l), &a.file)?
            .into_iter()
            .map(|t| (t.location, orient(t.tree)))
            .collect();
        if a.json {
            let locations = trees
                .iter()
                .map(|(l, t)| LocationJson {
                    location: l.0,
                    name: trace.location_name(*l),
                    total_ns: t.total_ns(),
                    nodes: t.named_nodes(trace),
                })
                .collect();
            println!(
                "{}",
                crate::json_text(&PerLocationJson { inverted: a.inverted, window: window_json, locations })?
            );
        } else {
            print_window(window);
            for (l, t) in &trees {
                println!("location {} {}", l.0, esc(trace.location_name(*l)));
                print_tree(trace, t, a.min_share, a.inverted);
                println!();
            }
        }
        return Ok(());
    }
    let tree = orient(source.merged(window, |l| sel.keep(l), &a.file)?);
    if a.json {
        let json = TreeJson {
            total_ns: tree.total_ns(),
            inverted: a.inverted,
            window: window_json,
            nodes: tree.named_nodes(trace),
        };
        println!("{}", crate::json_text(&json)?);
    } else {
        print_window(window);
        print_tree(trace, &tree, a.min_share, a.inverted);
    }
    Ok(())
}

fn butterfly_json<'a>(trace: &'a Trace, b: &Butterfly) -> ButterflyJson<'a> {
    let edges = |v: &[weft::analyses::calltree::ButterflyEdge]| {
        v.iter()
            .map(|e| EdgeJson {
                name: e.region.map(|r| trace.region_name(r)),
                count: e.count,
                inclusive_ns: e.inclusive_ns,
            })
            .collect()
    };
    ButterflyJson {
        region: trace.region_name(b.region),
        count: b.focus.count,
        inclusive_ns: b.focus.inclusive_ns,
        exclusive_ns: b.focus.exclusive_ns,
        callers: edges(&b.callers),
        callees: edges(&b.callees),
    }
}

fn print_window(window: Option<TimeWindow>) {
    if let Some(w) = window {
        println!("window {} .. {} from the first event", fmt(w.start_ns), fmt(w.end_ns));
    }
}

/// The tree indented by depth, with each node's share of the total; nodes under `min_share` percent (and
/// their subtrees) left out and counted.
fn print_tree(trace: &Trace, tree: &CallTree, min_share: f64, inverted: bool) {
    let total = tree.total_ns();
    if tree.nodes.is_empty() {
        println!("no interval in the selection");
        return;
    }
    let title = if inverted { "region, then its callers" } else { "call path" };
    println!("{:>14}  {:>6}  {:>14}  {:>9}  {title}", "inclusive", "share", "exclusive", "count");
    let mut hidden = 0usize;
    let mut k = 0;
    while k < tree.nodes.len() {
        let n = &tree.nodes[k];
        let share = if total > 0 { n.inclusive_ns as f64 * 100.0 / total as f64 } else { 0.0 };
        if share < min_share && total > 0 {
            hidden += (n.subtree_end as usize) - k;
            k = n.subtree_end as usize;
            continue;
        }
        println!(
            "{:>14}  {:>5.1}%  {:>14}  {:>9}  {}{}",
            fmt(n.inclusive_ns),
            share,
            fmt(n.exclusive_ns),
            n.count,
            "  ".repeat(n.depth as usize),
            esc(trace.region_name(n.region))
        );
        k += 1;
    }
    println!("total {} in {} call paths", fmt(total), tree.nodes.len());
    if hidden > 0 {
        println!("({hidden} call paths under {min_share} % of the total not shown: --min-share 0 shows them)");
    }
}

fn print_butterfly(trace: &Trace, b: &Butterfly) {
    let name = |r: Option<RegionId>| r.map_or("(no caller)".to_string(), |r| esc(trace.region_name(r)).into_owned());
    println!("{:>14}  {:>9}  callers", "inclusive", "count");
    for e in &b.callers {
        println!("{:>14}  {:>9}    {}", fmt(e.inclusive_ns), e.count, name(e.region));
    }
    println!(
        "{:>14}  {:>9}  {} (exclusive {})",
        fmt(b.focus.inclusive_ns),
        b.focus.count,
        name(Some(b.region)),
        fmt(b.focus.exclusive_ns)
    );
    println!("{:>14}  {:>9}  callees", "", "");
    for e in &b.callees {
        println!("{:>14}  {:>9}    {}", fmt(e.inclusive_ns), e.count, name(e.region));
    }
}

use crate::info::format_ns as fmt;
