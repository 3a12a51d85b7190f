//! `weft render moments FILE -o out.svg` (FILE a trace or a store folder): the utilization Gantt chart beside the moment view, as in the
//! paper's Fig. 4 and 5, as an SVG document. PNG is not written yet.

use crate::moments::Selection;
use std::path::PathBuf;
use weft::analyses::busy::BusyIntervals;
use weft::analyses::moments::{moments_of_busy, sort_moments, TimeWindow};
use weft::model::LocationId;
use weft::scene::axis::AXIS_HEIGHT_PX;
use weft::scene::moments::{build_moment_view, MomentViewOptions, Viewport, LEGEND_HEIGHT_PX};
use weft::scene::utilization::{build_utilization, UtilizationOptions};

#[derive(clap::Args)]
pub struct Args {
    /// The trace file, or a store folder written by `weft index` (decoded whole).
    file: PathBuf,
    /// Output file (.svg or .png).
    #[arg(short, long)]
    output: PathBuf,
    /// Width of the whole picture in pixels.
    #[arg(long, default_value_t = 1400.0)]
    width: f32,
    /// Height in pixels (default: 16 px per location, at most 1000; rows merge below one pixel).
    #[arg(long)]
    height: Option<f32>,
    /// Only the moment view, without the Gantt chart beside it.
    #[arg(long)]
    no_gantt: bool,
    #[command(flatten)]
    selection: Selection,
}

pub fn run(a: Args, scale: f32) -> Result<(), Box<dyn std::error::Error>> {
    let window = a.selection.window()?;
    let options = a.selection.options()?;
    let trace = crate::index::read_trace_or_store(&a.file)?;
    let definition = options.busy;
    let mut busy = BusyIntervals::compute(&trace, &definition);
    let mut rows = moments_of_busy(&trace, &busy, window);
    sort_moments(&mut rows, options.sort);
    busy.arrange(rows.iter().map(|m| LocationId(m.location)));
    let span = window.unwrap_or(TimeWindow::whole(&trace));
    let chrome = AXIS_HEIGHT_PX + LEGEND_HEIGHT_PX;
    let height = a.height.unwrap_or((rows.len() as f32 * 16.0 + chrome).min(1000.0)).max(chrome + 10.0);
    let panel = if a.no_gantt { a.width } else { a.width / 2.0 };
    let mut view = Viewport::fit(span.len_ns(), rows.len(), panel, height);
    view.t0_ns = span.start_ns as f64;
    view.t1_ns = span.end_ns.max(span.start_ns + 1) as f64;
    let opts = MomentViewOptions {
        definition: definition.describe(),
        span_ns: (span.start_ns, span.end_ns),
        color: None,
        empty_hint: definition.empty_hint(),
        axis_ns: None,
    };
    let moments = build_moment_view(&rows, &view, &opts);
    let scene = if a.no_gantt {
        moments
    } else {
        let gantt = build_utilization(
            &rows,
            &busy,
            &view,
            &UtilizationOptions { definition: definition.describe(), empty_hint: definition.empty_hint() },
        );
        gantt.beside(moments)
    };
    crate::picture::write(&scene, &a.output, scale)?;
    Ok(())
}
