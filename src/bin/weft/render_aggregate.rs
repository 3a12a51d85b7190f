//! `weft render aggregate FILE -o out.svg`: the aggregated grain graph opened to a depth (or along the
//! critical path, or fully), in the structural view or a problem view, optionally filtered, with the local
//! critical path of one group; closed groups of equal structure (Weisfeiler–Lehman) carry a diamond. With
//! `--filtered`, an inset to the right shows the same groups unfiltered, with the selected group outlined
//! in both. With `--compare FILE2`, a second run of the same program is drawn to the right, opened the same way, and
//! matched groups whose structure differs are outlined on both sides. For documentation and checks of the
//! interactive view.

use crate::flags::{checked, help};
use std::collections::HashMap;
use std::path::PathBuf;
use weft::analyses::aggregate::critical::local_critical_path;
use weft::analyses::aggregate::similarity::{group_hash, match_groups};
use weft::analyses::aggregate::{Aggregation, AggregationTree, GroupMetrics, Method};
use weft::analyses::grains::{GrainAnalysis, METRICS};
use weft::layouts::aggregate::{AggregateParams, AggregateView};
use weft::scene::aggregate::{build, Overlay};
use weft::scene::Scene;
use weft::views::options::{AggregateOptions, OptionError, ViewOptions};

#[derive(clap::Args)]
pub struct Args {
    /// A MIR task-stats CSV or the prototype's GraphML.
    file: PathBuf,
    /// The SVG file to write.
    #[arg(short, long)]
    out: PathBuf,
    #[arg(long, default_value = "reduction", value_parser = checked::<AggregateOptions>("method"), help = help::<AggregateOptions>("method"))]
    method: String,
    #[arg(long, value_parser = checked::<AggregateOptions>("problem"), help = help::<AggregateOptions>("problem"))]
    problem: Option<String>,
    /// With --problem: hide non-problematic groups behind fast-forward edges.
    #[arg(long, help = help::<AggregateOptions>("filtered"))]
    filtered: bool,
    /// The picture's default opens two levels (the page's view opens none).
    #[arg(long, default_value = "2", value_parser = checked::<AggregateOptions>("drill_depth"), help = help::<AggregateOptions>("drill_depth"))]
    depth: String,
    /// Open the groups on the global critical path instead of drilling to a depth.
    #[arg(long)]
    critical: bool,
    /// Open every group.
    #[arg(long)]
    all: bool,
    #[arg(long, default_value = "paper", value_parser = checked::<weft::views::options::GrainsOptions>("thresholds"), help = help::<weft::views::options::GrainsOptions>("thresholds"))]
    thresholds: String,
    /// A second run of the same program, drawn beside the first with differing groups outlined.
    #[arg(long)]
    compare: Option<PathBuf>,
    /// Canvas width in pixels (the height follows the drawing's aspect, at most 4 times the width).
    #[arg(long, default_value_t = 1200.0)]
    width: f32,
}

/// The aggregated view's options the flags choose (checked by clap already: the same parse again).
fn options(a: &Args) -> Result<AggregateOptions, OptionError> {
    let mut o = AggregateOptions::default();
    o.parse("method", &a.method)?;
    o.parse("problem", a.problem.as_deref().unwrap_or("structure"))?;
    o.parse("filtered", if a.filtered { "on" } else { "off" })?;
    o.parse("drill_depth", &a.depth)?;
    Ok(o)
}

/// One run, aggregated, opened as the arguments say.
struct Run {
    an: GrainAnalysis,
    tree: AggregationTree,
    metrics: GroupMetrics,
    view: AggregateView,
}

fn open_run(
    a: &Args,
    file: &std::path::Path,
    method: Method,
    problem: Option<usize>,
) -> Result<Run, Box<dyn std::error::Error>> {
    let an = crate::grains::analyse(file, crate::grains::thresholds(&a.thresholds, None)?, None)?;
    let agg = Aggregation::new(&an, method);
    let (tree, metrics) = match problem {
        Some(i) => agg.separated(&an, i),
        None => (agg.tree, agg.metrics),
    };
    let mut v = AggregateView::new(&tree, &an.graph, AggregateParams::default());
    if let (Some(i), true) = (problem, a.filtered) {
        let keep = (0..tree.len()).map(|u| metrics.problems[u] >> i & 1 == 1).collect();
        v.set_filter(&tree, &an.graph, Some(keep));
    }
    if a.all {
        v.open_all_beneath(&tree, &an.graph, tree.root);
    } else if a.critical {
        v.drill_critical(&tree, &an.graph, &metrics.on_critical);
    } else {
        v.drill_to_depth(&tree, &an.graph, options(a)?.drill_depth);
    }
    Ok(Run { an, tree, metrics, view: v })
}

/// Closed visible groups whose structure equals another closed visible group's.
fn similar_groups(r: &Run) -> Vec<u32> {
    let closed: Vec<u32> =
        r.view.visible(&r.tree).into_iter().filter(|&u| !r.tree.is_leaf(u) && !r.view.is_open(u)).collect();
    let hashes: Vec<u64> = closed.iter().map(|&u| group_hash(&r.an.graph, &r.tree, u)).collect();
    let mut count: HashMap<u64, u32> = HashMap::new();
    for &h in &hashes {
        *count.entry(h).or_default() += 1;
    }
    closed.iter().zip(&hashes).filter(|(_, h)| count[h] > 1).map(|(&u, _)| u).collect()
}

fn draw(r: &Run, problem: Option<usize>, highlight: &[u32], width: f32, height: f32) -> Scene {
    // The local critical path of the deepest opened group that is off the global critical path, if any.
    let local = r
        .view
        .visible(&r.tree)
        .into_iter()
        .filter(|&u| r.view.is_open(u) && !r.metrics.on_critical[u as usize])
        .max_by_key(|&u| r.tree.depth[u as usize])
        .map(|u| local_critical_path(&r.an.graph, &r.tree, u).members)
        .unwrap_or_default();
    let severity = problem.map(|i| weft::analyses::aggregate::propagate::severity(&r.an, &r.tree, i));
    let similar = similar_groups(r);
    let overlay =
        Overlay { problem: problem.zip(severity.as_deref()), local_critical: &local, similar: &similar, highlight };
    build(&r.an, &r.tree, &r.metrics, &r.view, width, height, overlay)
}

pub fn run(a: Args, scale: f32) -> Result<(), Box<dyn std::error::Error>> {
    let o = options(&a)?;
    let method = o.method;
    let problem = o.problem.and_then(|p| METRICS.iter().position(|m| *m == p));
    let left = open_run(&a, &a.file, method, problem)?;
    let aspect = |r: &Run| r.view.height(&r.tree) / r.view.width(&r.tree).max(1.0);
    let Some(other) = &a.compare else {
        if !(a.filtered && problem.is_some()) {
            let height = (a.width * aspect(&left)).clamp(200.0, 4.0 * a.width);
            let scene = draw(&left, problem, &[], a.width, height);
            return write(&a, &scene, left.view.visible(&left.tree).len(), scale);
        }
        // The filtered view with its inset: the same groups opened, unfiltered, and the selected group (the
        // deepest problematic closed group shown) outlined in both, to keep the programmer oriented.
        let mut inset = Run {
            an: left.an.clone(),
            tree: left.tree.clone(),
            metrics: left.metrics.clone(),
            view: AggregateView::new(&left.tree, &left.an.graph, AggregateParams::default()),
        };
        inset.view.set_open(&inset.tree, &inset.an.graph, &left.view.open);
        let selected: Vec<u32> = left
            .view
            .visible(&left.tree)
            .into_iter()
            .filter(|&u| !left.tree.is_leaf(u) && !left.view.is_open(u))
            .max_by_key(|&u| left.tree.depth[u as usize])
            .into_iter()
            .collect();
        let (main_w, inset_w) = (a.width * 0.7, a.width * 0.3);
        let height = (main_w * aspect(&left)).clamp(200.0, 4.0 * a.width);
        let inset_h = (inset_w * aspect(&inset)).clamp(100.0, height);
        let scene =
            draw(&left, problem, &selected, main_w, height).beside(draw(&inset, problem, &selected, inset_w, inset_h));
        return write(&a, &scene, left.view.visible(&left.tree).len(), scale);
    };
    let right = open_run(&a, other, method, problem)?;
    let (lv, rv) = (left.view.visible(&left.tree), right.view.visible(&right.tree));
    let matches = match_groups((&left.an, &left.tree, &lv), (&right.an, &right.tree, &rv));
    let (lh, rh): (Vec<u32>, Vec<u32>) =
        matches.iter().filter(|m| !m.same_structure && !left.tree.is_leaf(m.left)).map(|m| (m.left, m.right)).unzip();
    eprintln!("matched {} of {} visible groups; {} differ in structure", matches.len(), lv.len(), lh.len());
    let half = a.width / 2.0;
    let height = (half * aspect(&left).max(aspect(&right))).clamp(200.0, 4.0 * a.width);
    let scene = draw(&left, problem, &lh, half, height).beside(draw(&right, problem, &rh, half, height));
    write(&a, &scene, lv.len() + rv.len(), scale)
}

fn write(a: &Args, scene: &Scene, visible: usize, scale: f32) -> Result<(), Box<dyn std::error::Error>> {
    crate::picture::write(scene, &a.out, scale)?;
    eprintln!(
        "wrote {} ({visible} visible nodes, {} shapes, {} lines)",
        weft::model::text::escape_controls(&a.out.display().to_string()),
        scene.rects.len(),
        scene.lines.len()
    );
    Ok(())
}
