//! `weft render moments FILE -o out.svg|out.png` (FILE a trace or a store folder): the utilization Gantt chart
//! beside the moment view, as in the paper's Fig. 4 and 5. A store is read from the tiles the picture needs
//! (`of_store`), never decoded whole unless the busy definition is a pattern.

use crate::folders::FolderStore;
use crate::moments::Selection;
use std::path::Path;
use std::path::PathBuf;
use weft::analyses::busy::{BusyDefinition, BusyIntervals};
use weft::analyses::moments::{moments_of_busy, sort_moments, LocationMoments, TimeWindow};
use weft::model::{LocationId, Trace};
use weft::scene::axis::AXIS_HEIGHT_PX;
use weft::scene::moments::{build_moment_view, MomentViewOptions, Viewport, LEGEND_HEIGHT_PX};
use weft::scene::utilization::{build_utilization, UtilizationOptions};
use weft::store::read::answer::{answer, Answer};
use weft::store::read::query::{grid_busy, TileIndex};
use weft::store::{Store, StoreError};

#[derive(clap::Args)]
pub struct Args {
    /// The trace file, or a store folder written by `weft index` (read from the tiles the picture needs:
    /// the Gantt chart from the pyramid's bins of about a pixel, exact zoomed in; a pattern decodes it whole).
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

/// The rows and busy intervals drawn for a store (weft index), read from the tiles the picture needs: the
/// rows as `weft moments STORE/` gives them (`moments::store_moments`); the Gantt chart's busy intervals
/// from the pyramid level whose bins are about a pixel of the panel (`store::query::grid_busy`: each bin's
/// exact busy time, at its centre), or, zoomed in past level 1, the exact busy intervals of the window's
/// records. A pattern definition (no stored busy time) is computed from the exact records a block of
/// locations at a time, its chart's busy time binned at a pixel a bin.
fn of_store(
    store: Result<Store<FolderStore>, StoreError>,
    path: &Path,
    definition: &BusyDefinition,
    window: Option<TimeWindow>,
    panel_px: f32,
) -> Result<(Trace, Vec<LocationMoments>, BusyIntervals), String> {
    let e = |e| crate::folders::store_error(path, e);
    let store = store.map_err(e)?;
    let compute = match definition {
        BusyDefinition::Compute => true,
        BusyDefinition::Any => false,
        BusyDefinition::Waiting => return Err(crate::moments::waiting_on_store(path)),
        BusyDefinition::Pattern(_) => {
            // No stored busy time: from the exact records a block at a time, the chart binned a pixel a bin.
            let skeleton = store.skeleton().map_err(e)?;
            let bins = Some(panel_px.max(1.0).ceil() as usize);
            let (rows, busy) = crate::moments::exact_by_block(
                &store,
                &skeleton,
                definition,
                window,
                bins,
                crate::moments::CHUNK_RECORDS,
            )
            .map_err(e)?;
            return Ok((skeleton, rows, busy.expect("asked for bins")));
        }
    };
    let (trace, rows) = crate::moments::store_moments(&store, definition, window).map_err(e)?;
    let m = &store.manifest;
    let span = window.map_or((0, m.span_ns), |w| (w.start_ns, w.end_ns));
    let vp = weft::store::read::query::Viewport {
        t0_ns: span.0 as f64,
        t1_ns: span.1.max(span.0 + 1) as f64,
        locations: 0..m.locations.process.len() as u32,
        width_px: panel_px.max(1.0),
        series: 0..0,
    };
    let skeleton = store.skeleton().map_err(e)?;
    let busy = match answer(&store, &skeleton, &TileIndex::new(m), &vp).map_err(e)? {
        Answer::Grid(g) => grid_busy(&g, m.locations.process.len(), m.span_ns, compute),
        Answer::Exact(slice, _) => BusyIntervals::compute(&slice, definition),
    };
    Ok((trace, rows, busy))
}

pub fn run(a: Args, scale: f32) -> Result<(), Box<dyn std::error::Error>> {
    let window = a.selection.window()?;
    let options = a.selection.options()?;
    let definition = options.busy;
    let panel = if a.no_gantt { a.width } else { a.width / 2.0 };
    let (trace, mut rows, mut busy) = if let Some(store) = crate::folders::open_store(&a.file) {
        of_store(store, &a.file, &definition, window, panel)?
    } else {
        let trace = crate::folders::read_trace_or_store(&a.file)?;
        let busy = BusyIntervals::compute(&trace, &definition);
        let rows = moments_of_busy(&trace, &busy, window);
        (trace, rows, busy)
    };
    sort_moments(&mut rows, options.sort);
    busy.arrange(rows.iter().map(|m| LocationId(m.location)));
    let span = window.unwrap_or(TimeWindow::whole(&trace));
    let chrome = AXIS_HEIGHT_PX + LEGEND_HEIGHT_PX;
    let height = a.height.unwrap_or((rows.len() as f32 * 16.0 + chrome).min(1000.0)).max(chrome + 10.0);
    let mut view = Viewport::fit(span.len_ns(), rows.len(), panel, height);
    view.t0_ns = span.start_ns as f64;
    view.t1_ns = span.end_ns.max(span.start_ns + 1) as f64;
    let opts = MomentViewOptions {
        definition: definition.describe(),
        span_ns: (span.start_ns, span.end_ns),
        color: None,
        empty_hint: definition.empty_hint(),
        axis_ns: None,
        clusters: None,
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
