//! `weft execgraph FILE [--json] [--min-edge PX|NS] [--sample fib|rsa|mergesort]` and the execution-graph
//! half of `weft render execgraph FILE -o out.svg`. Reads thread events, builds the graph, lays it out and
//! prints the figures (or writes the drawing).

use crate::flags::{checked, help};
use std::path::{Path, PathBuf};
use weft::analyses::execgraph::{build, ExecGraph};
use weft::layouts::execgraph::bundle::{ExecBundle, ExecFigures, REFERENCE_PLOT_PX};
use weft::layouts::execgraph::{layout, ExecLayout};
use weft::model::text::escape_controls;
use weft::model::thread_events::ThreadEvents;
use weft::readers::{open_path, otf2_threads};
use weft::samples::execgraph::{sample, SAMPLES};
use weft::views::options::{ExecgraphOptions, ViewOptions};
use weft::views::{execgraph::ExecgraphPane, Pane};

#[derive(clap::Args)]
pub struct Args {
    /// The execution-graph file (`# weft execgraph 1`), or an OTF2 trace with thread events (its anchor
    /// `X.otf2`, its folder, or a zip/tar of it); omit with --sample.
    file: Option<PathBuf>,
    /// A built-in sample instead of a file: fib, rsa or mergesort.
    #[arg(long)]
    sample: Option<String>,
    /// Print JSON with stable keys instead of text.
    #[arg(long)]
    json: bool,
    #[arg(long, value_parser = checked::<ExecgraphOptions>("min_edge"), help = help::<ExecgraphOptions>("min_edge"))]
    min_edge: Option<String>,
}

/// Height in pixels that `--min-edge Npx` refers to: the true-scale drawing's plot height.
const PLOT_PX: f64 = REFERENCE_PLOT_PX;

/// Thread events, and for an OTF2 trace the names of its locations (threads are labelled by them).
type Loaded = (ThreadEvents, Option<Vec<String>>);

fn load(file: Option<&Path>, sample_name: Option<&str>) -> Result<Loaded, Box<dyn std::error::Error>> {
    match (file, sample_name) {
        (_, Some(s)) => sample(s)
            .map(|ev| (ev, None))
            .ok_or_else(|| format!("no sample `{s}` (samples: {})", SAMPLES.join(", ")).into()),
        (Some(f), None) => {
            let (events, warnings, locations) = open_path(f)?.into_thread_events(&f.display().to_string())?;
            crate::grains::print_warnings(&warnings);
            Ok((events, locations))
        }
        (None, None) => Err("give a FILE or --sample fib|rsa|mergesort".into()),
    }
}

fn prepare(a: &Args) -> Result<(ExecGraph, ExecLayout), Box<dyn std::error::Error>> {
    let (events, locations) = load(a.file.as_deref(), a.sample.as_deref())?;
    let mut g = build(&events)?;
    if let Some(names) = locations {
        g.set_labels(|id| otf2_threads::thread_label(&names, id));
    }
    let mut o = ExecgraphOptions::default();
    o.parse("min_edge", a.min_edge.as_deref().unwrap_or("true"))?;
    let scale = o.min_edge.scale(&g);
    let l = layout(&g, scale);
    Ok((g, l))
}

pub fn run(a: Args) -> Result<(), Box<dyn std::error::Error>> {
    let (g, l) = prepare(&a)?;
    let f = ExecFigures::of(&g, &l);
    if a.json {
        println!("{}", crate::json_text(&f)?);
        return Ok(());
    }
    println!("source       {}", escape_controls(&g.source.to_string()));
    println!("threads      {}", f.threads);
    println!("nodes        {}", f.nodes);
    println!("columns      {}", f.columns);
    println!("crossings    {}", f.crossings);
    println!("parents      {} bipartite, {} not bipartite", f.parents_bipartite, f.parents_not_bipartite);
    if l.exchange_skipped > 0 {
        println!("             ({} too dense for the local-exchange step: greedy only)", l.exchange_skipped);
    }
    println!("height       {}", crate::info::format_ns(l.height_ns));
    println!("critical     {} of run time", crate::info::format_ns(g.critical_ns));
    println!("run time     {} in all threads", crate::info::format_ns(g.total_run_ns));
    let mut top: Vec<usize> = (0..g.threads.len()).collect();
    top.sort_by_key(|&t| (std::cmp::Reverse(g.threads[t].run_ns), t));
    println!();
    println!("{:>14}  {:>6}  thread", "run time", "share");
    for &t in top.iter().take(5) {
        let th = &g.threads[t];
        println!(
            "{:>14}  {:>5.1}%  {}",
            crate::info::format_ns(th.run_ns),
            100.0 * g.share(t as u32),
            escape_controls(&g.label(t as u32))
        );
    }
    Ok(())
}

/// `weft render execgraph FILE -o out.svg|png`: the whole drawing as SVG or PNG.
pub fn render(
    file: Option<&Path>,
    sample_name: Option<&str>,
    min_edge: Option<&str>,
    out: &Path,
    scale: f32,
) -> Result<(), Box<dyn std::error::Error>> {
    let a = Args {
        file: file.map(Path::to_path_buf),
        sample: sample_name.map(str::to_string),
        json: false,
        min_edge: min_edge.map(str::to_string),
    };
    let (g, l) = prepare(&a)?;
    // Wide enough that node shapes show (about 14 px a column), within what SVG viewers handle.
    let width = (l.columns as f32 * 14.0 + 100.0).clamp(1200.0, 16_000.0);
    // The page's execution-graph view, fitted.
    let view = ExecgraphPane::new(ExecBundle { graph: g, layout: l }, width, PLOT_PX as f32 + 40.0);
    let scene = weft::scene::legend::beside(view.scene(), &weft::scene::legend::execgraph());
    crate::picture::write(&scene, out, scale)?;
    Ok(())
}
