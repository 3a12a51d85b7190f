//! `weft render VIEW FILE -o out.svg|out.png`: a view's scene written as SVG, or rasterised to PNG (at
//! `--scale` pixels per unit: 2 for a 2x picture), for documentation and checks.

use crate::flags::{checked, help};
use std::path::PathBuf;
use weft::views::options::ExecgraphOptions;

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    view: View,
    /// PNG pixels per SVG unit (2 gives a 2x picture for high-density screens).
    #[arg(long, global = true, default_value_t = 1.0)]
    scale: f32,
}

#[derive(clap::Subcommand)]
enum View {
    /// The timeline (a trace read whole, or a store drawn from the tiles its viewport needs).
    Timeline(crate::render_timeline::Args),
    /// The utilization Gantt chart beside the moment view (moments of utilization).
    Moments(crate::render_moments::Args),
    /// The execution graph of a fork/join program.
    Execgraph {
        /// The execution-graph file; omit with --sample.
        file: Option<PathBuf>,
        /// A built-in sample instead of a file: fib, rsa or mergesort.
        #[arg(long)]
        sample: Option<String>,
        #[arg(long, value_parser = checked::<ExecgraphOptions>("min_edge"), help = help::<ExecgraphOptions>("min_edge"))]
        min_edge: Option<String>,
        /// The picture to write (.svg or .png).
        #[arg(short, long)]
        out: PathBuf,
    },
    /// The grain graph's structural view (or a problem view with --problem METRIC).
    Grains(crate::grains::RenderArgs),
    /// The aggregated grain graph, opened to a depth, along the critical path, or fully.
    Aggregate(crate::render_aggregate::Args),
    /// Run B against run A: the region profile diff as bars and the comparison's summary (`weft diff`).
    Diff(crate::diff::RenderArgs),
}

pub fn run(a: Args) -> Result<(), Box<dyn std::error::Error>> {
    match a.view {
        View::Timeline(t) => crate::render_timeline::run(t, a.scale),
        View::Moments(m) => crate::render_moments::run(m, a.scale),
        View::Execgraph { file, sample, min_edge, out } => {
            crate::execgraph::render(file.as_deref(), sample.as_deref(), min_edge.as_deref(), &out, a.scale)
        }
        View::Grains(g) => crate::grains::render(g, a.scale),
        View::Aggregate(g) => crate::render_aggregate::run(g, a.scale),
        View::Diff(d) => crate::diff::render(d, a.scale),
    }
}
