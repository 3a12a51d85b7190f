//! `weft render aggregate FILE -o out.svg`: the aggregated grain graph opened to a depth (or along the
//! critical path, or fully), in the structural view or a problem view, optionally filtered, with the local
//! critical path of one group. For documentation and checks of the interactive view.

use std::path::PathBuf;
use weft::analyses::aggregate::critical::local_critical_path;
use weft::analyses::aggregate::{Aggregation, Method};
use weft::analyses::grains::METRICS;
use weft::layouts::aggregate::{AggregateParams, AggregateView};
use weft::scene::aggregate::{build, Overlay};

#[derive(clap::Args)]
pub struct Args {
    /// A MIR task-stats CSV or the prototype's GraphML.
    file: PathBuf,
    /// The SVG file to write.
    #[arg(short, long)]
    out: PathBuf,
    /// Aggregation: reduction (default) or family.
    #[arg(long, default_value = "reduction")]
    method: String,
    /// Problem view of this metric (e.g. parallel_benefit): separated tree, borders red/green.
    #[arg(long)]
    problem: Option<String>,
    /// With --problem: hide non-problematic groups behind fast-forward edges.
    #[arg(long)]
    filtered: bool,
    /// Open the groups above this depth.
    #[arg(long, default_value_t = 2)]
    depth: u32,
    /// Open the groups on the global critical path instead of drilling to a depth.
    #[arg(long)]
    critical: bool,
    /// Open every group.
    #[arg(long)]
    all: bool,
    /// Problem thresholds: paper (default) or prototype.
    #[arg(long, default_value = "paper")]
    thresholds: String,
    /// Canvas width in pixels (the height follows the drawing's aspect, at most 4 times the width).
    #[arg(long, default_value_t = 1200.0)]
    width: f32,
}

pub fn run(a: Args, scale: f32) -> Result<(), Box<dyn std::error::Error>> {
    let method: Method = a.method.parse()?;
    let an = crate::grains::analyse(&a.file, crate::grains::thresholds(&a.thresholds, None)?, None)?;
    let agg = Aggregation::new(&an, method);
    let view = match &a.problem {
        Some(p) => Some(
            METRICS.iter().position(|m| m == p).ok_or_else(|| format!("unknown metric \"{p}\"; one of {METRICS:?}"))?,
        ),
        None => None,
    };
    let (tree, metrics) = match view {
        Some(i) => agg.separated(&an, i),
        None => (agg.tree.clone(), agg.metrics.clone()),
    };
    let mut v = AggregateView::new(&tree, &an.graph, AggregateParams::default());
    if let (Some(i), true) = (view, a.filtered) {
        let keep = (0..tree.len()).map(|u| metrics.problems[u] >> i & 1 == 1).collect();
        v.set_filter(&tree, &an.graph, Some(keep));
    }
    if a.all {
        v.open_all_beneath(&tree, &an.graph, tree.root);
    } else if a.critical {
        v.drill_critical(&tree, &an.graph, &metrics.on_critical);
    } else {
        v.drill_to_depth(&tree, &an.graph, a.depth);
    }
    // The local critical path of the deepest opened group that is off the global critical path, if any.
    let local = v
        .visible(&tree)
        .into_iter()
        .filter(|&u| v.is_open(u) && !metrics.on_critical[u as usize])
        .max_by_key(|&u| tree.depth[u as usize])
        .map(|u| local_critical_path(&an.graph, &tree, u).members)
        .unwrap_or_default();
    let severity = view.map(|i| weft::analyses::aggregate::propagate::severity(&an, &tree, i));
    let overlay = Overlay { problem: view.zip(severity.as_deref()), local_critical: &local, ..Default::default() };
    let (w, h) = (v.width(&tree), v.height(&tree));
    let height = (a.width * h / w.max(1.0)).clamp(200.0, 4.0 * a.width);
    let scene = build(&an, &tree, &metrics, &v, a.width, height, overlay);
    crate::picture::write(&scene, &a.out, scale)?;
    eprintln!(
        "wrote {} ({} visible nodes, {} shapes, {} lines)",
        a.out.display(),
        v.visible(&tree).len(),
        scene.rects.len(),
        scene.lines.len()
    );
    Ok(())
}
