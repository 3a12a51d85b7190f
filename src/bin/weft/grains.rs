//! `weft grains FILE [--json] [--thresholds paper|prototype] [--single FILE] [--graphml OUT]`, and the grain-graph part of
//! `weft render`. Reads a MIR task-stats CSV, the prototype's GraphML or an OTF2 trace's task events; prints structure, critical path
//! and problem counts. The JSON keys are a stable interface: grains, nodes, edges, critical_path_length,
//! problems, parallelism (`analyses::grains::query::GrainFigures`, which the page's summary is too);
//! `--running-at T` adds `running`: the grains running at T on the parallelism profile's axis.

use crate::flags::{checked, help};
use std::path::{Path, PathBuf};
use weft::analyses::grains::query::GrainFigures;
use weft::analyses::grains::{metrics, GrainAnalysis, Thresholds};
use weft::model::grains::Grains;
use weft::model::text::{escape_controls, escape_controls_lines};
use weft::model::Warnings;
use weft::readers::{open_path, ReadError};
use weft::views::options::{GrainsOptions, ViewOptions};

#[derive(clap::Args)]
pub struct Args {
    /// A MIR task-stats CSV (task-stats.merged, task-stats.processed), the prototype's GraphML, or an OTF2
    /// trace with OpenMP task events (its anchor `X.otf2`, its folder, or a zip/tar of it).
    file: PathBuf,
    /// Print JSON with stable keys instead of text.
    #[arg(long)]
    json: bool,
    #[arg(long, default_value = "paper", value_parser = checked::<GrainsOptions>("thresholds"), help = help::<GrainsOptions>("thresholds"))]
    thresholds: String,
    /// Cores that ran the program (default: from the profile's cpu ids).
    #[arg(long)]
    cores: Option<u32>,
    /// A single-threaded profile of the same program, for work deviation.
    #[arg(long)]
    single: Option<PathBuf>,
    /// Also write the grain graph as GraphML (for yEd; weft re-opens it) to this file.
    #[arg(long)]
    graphml: Option<PathBuf>,
    /// List the grains (task ids) running at this instant of the parallelism profile (critical-path distance,
    /// in the profile's unit), as the page outlines them when the profile is hovered there.
    #[arg(long, value_name = "T")]
    running_at: Option<u64>,
}

fn read(path: &Path) -> Result<Grains, ReadError> {
    let (input, warnings) = open_path(path)?.into_grains(&path.display().to_string())?;
    print_warnings(&warnings);
    Ok(input)
}

/// Warnings of interpreting a trace's thread or task events, or a profile's parents, on stderr (stdout may
/// be JSON).
pub fn print_warnings(w: &Warnings) {
    if w.is_empty() {
        return;
    }
    let cycles = w.count(weft::model::WarningKind::ParentCycle);
    if cycles > 0 {
        eprintln!(
            "warning: {cycles} cycles among the tasks' parents were cut (see below; their grains hang under the root)"
        );
    }
    if w.total() > cycles {
        eprintln!(
            "warning: {} thread or task events could not be paired (see below; they were left out or moved)",
            w.total() - cycles
        );
    }
    for x in w.examples() {
        eprintln!("  {:?}: {}", x.kind, escape_controls(&x.message));
    }
}

/// The thresholds named by `--thresholds` (the grain view's option), with `--cores` if given.
pub fn thresholds(name: &str, cores: Option<u32>) -> Result<Thresholds, Box<dyn std::error::Error>> {
    let mut o = GrainsOptions::default();
    o.parse("thresholds", name)?;
    let mut t = o.thresholds.thresholds();
    t.cores = cores.or(t.cores);
    Ok(t)
}

pub fn analyse(file: &Path, t: Thresholds, single: Option<&Path>) -> Result<GrainAnalysis, Box<dyn std::error::Error>> {
    let input = read(file)?;
    let mut a = GrainAnalysis::new(&input, t.clone())?;
    if let Some(s) = single {
        let Grains::Profile(sp) = read(s)? else {
            return Err(format!("{}: a single-threaded run must be a MIR profile", s.display()).into());
        };
        let mut m = a.metrics.clone();
        metrics::with_single_threaded(&mut m, &a.graph, &sp);
        a = GrainAnalysis::assemble(a.graph, a.critical, m, t);
    }
    Ok(a)
}

pub fn run(a: Args) -> Result<(), Box<dyn std::error::Error>> {
    let t = thresholds(&a.thresholds, a.cores)?;
    let an = analyse(&a.file, t, a.single.as_deref())?;
    let g = &an.graph;
    if let Some(out) = &a.graphml {
        std::fs::write(out, weft::export::graphml::grain_graph(&an))
            .map_err(|e| format!("{}: {e}", escape_controls(&out.display().to_string())))?;
        eprintln!("wrote {}", escape_controls(&out.display().to_string()));
    }
    let running: Option<Vec<u64>> =
        a.running_at.map(|t| an.parallelism.running_at(t).iter().map(|&i| g.grain_task[i as usize]).collect());
    if a.json {
        let mut v = serde_json::to_value(GrainFigures::of(&an))?;
        if let (Some(t), Some(tasks)) = (a.running_at, &running) {
            v["running"] = serde_json::json!({"t": t, "count": tasks.len(), "tasks": tasks});
        }
        println!("{}", crate::json_text(&v)?);
        return Ok(());
    }
    let unit = match g.unit {
        weft::analyses::grains::TimeUnit::Cycles => "cycles",
        weft::analyses::grains::TimeUnit::Nanoseconds => "ns",
    };
    let work: u64 = g.node_exec.iter().sum();
    println!("file            {}", escape_controls(&a.file.display().to_string()));
    println!("grains          {}", g.grains());
    println!("nodes           {}", g.nodes());
    for k in [
        weft::analyses::grains::NodeKind::Start,
        weft::analyses::grains::NodeKind::Fragment,
        weft::analyses::grains::NodeKind::Task,
        weft::analyses::grains::NodeKind::Fork,
        weft::analyses::grains::NodeKind::Join,
        weft::analyses::grains::NodeKind::End,
    ] {
        let c = g.count_nodes(k);
        if c > 0 {
            println!("  {:<13} {c}", k.name());
        }
    }
    println!("edges           {}", g.edges());
    for k in weft::analyses::grains::EdgeKind::ALL {
        println!("  {:<13} {}", k.name(), g.count_edges(k));
    }
    println!("span            {} {unit} (critical path, {} nodes)", an.critical.length, an.critical.nodes.len());
    println!("work            {work} {unit}");
    if an.critical.length > 0 {
        println!("parallelism     {:.3} (work / span)", work as f64 / an.critical.length as f64);
    }
    println!("profile         max {} grains running at once (critical-path distance)", an.parallelism.max);
    if let (Some(t), Some(tasks)) = (a.running_at, &running) {
        let list: Vec<String> = tasks.iter().map(u64::to_string).collect();
        println!("running at {t}   {} grains: {}", tasks.len(), list.join(" "));
    }
    println!("cores           {}", an.cores);
    println!("thresholds      {}", an.thresholds.source);
    println!();
    print!("{}", escape_controls_lines(&an.summary()));
    Ok(())
}

#[derive(clap::Args)]
pub struct RenderArgs {
    /// A MIR task-stats CSV or the prototype's GraphML.
    file: PathBuf,
    /// The picture to write (.svg or .png).
    #[arg(short, long)]
    out: PathBuf,
    #[arg(long, value_parser = checked::<GrainsOptions>("problem"), help = help::<GrainsOptions>("problem"))]
    problem: Option<String>,
    /// Colour fragments by source line instead of outline function.
    #[arg(long, conflicts_with = "by_cpu")]
    by_source_line: bool,
    /// Colour fragments by the core that ran them (cpu_id) instead of outline function.
    #[arg(long)]
    by_cpu: bool,
    #[arg(long, default_value = "paper", value_parser = checked::<GrainsOptions>("thresholds"), help = help::<GrainsOptions>("thresholds"))]
    thresholds: String,
    /// Canvas width in pixels (the height follows the graph's aspect, at most 4 times the width).
    #[arg(long, default_value_t = 1200.0)]
    width: f32,
}

pub fn render(a: RenderArgs, scale: f32) -> Result<(), Box<dyn std::error::Error>> {
    use weft::layouts::grains::{layout, LayoutParams};
    use weft::views::{grains::GrainsPane, Pane};
    let an = analyse(&a.file, thresholds(&a.thresholds, None)?, None)?;
    if let Some(m) = &a.problem {
        an.problem(m).ok_or_else(|| format!("unknown metric \"{m}\"; one of {:?}", weft::analyses::grains::METRICS))?;
    }
    let l = layout(&an.graph, &LayoutParams::default());
    // The graph's share, plus the parallelism strip below it.
    let height = (a.width * l.height / l.width.max(1.0)).clamp(200.0, 4.0 * a.width) + weft::scene::parallelism::HEIGHT;
    // The page's grain-graph view, fitted, with the options the arguments give.
    let mut pane = GrainsPane::new(an, l, a.width, height);
    if let Some(m) = &a.problem {
        pane.configure("problem", m)?;
    }
    if a.by_source_line {
        pane.configure("color", "source_line")?;
    }
    if a.by_cpu {
        pane.configure("color", "cpu_id")?;
    }
    let scene = pane.scene();
    let scene = match pane.legend() {
        Some(l) => weft::scene::legend::beside(scene, &l),
        None => scene,
    };
    crate::picture::write(&scene, &a.out, scale)?;
    eprintln!(
        "wrote {} ({} shapes, {} lines)",
        escape_controls(&a.out.display().to_string()),
        scene.rects.len(),
        scene.lines.len()
    );
    Ok(())
}
