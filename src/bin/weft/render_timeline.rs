//! `weft render timeline FILE -o out.svg|out.png [--window T0:T1]` (FILE a trace or a store folder): the
//! timeline as the page draws it, at the picture's size. A trace is read whole and drawn by the timeline
//! view; a store is drawn by the store's timeline view from the tiles its viewport needs (the pyramid's bins
//! zoomed out, the exact intervals at level 0: `weft::store::read::answer`), as the page's store worker answers it,
//! so a picture of a store of any size reads only what it shows.

use std::path::PathBuf;
use std::rc::Rc;
use weft::analyses::moments::TimeWindow;
use weft::layouts::timeline::{TimelineLayout, TimelineMetrics};
use weft::model::Trace;
use weft::scene::timeline::{AXIS_PX, OVERVIEW_PX};
use weft::store::read::answer::{answer_with_counters, Answer};
use weft::store::read::query::TileIndex;
use weft::views::store::StorePane;
use weft::views::timeline::TimelinePane;
use weft::views::Pane;

#[derive(clap::Args)]
pub struct Args {
    /// The trace file, or a store folder written by `weft index`.
    file: PathBuf,
    /// Output file (.svg or .png).
    #[arg(short, long)]
    output: PathBuf,
    /// Only this time window, `T0:T1` from the trace's first event (units ns, us, ms, s; default ns).
    #[arg(long)]
    window: Option<String>,
    /// Width of the picture in pixels.
    #[arg(long, default_value_t = 1400.0)]
    width: f32,
    /// Height in pixels (default: every row, at most 1000).
    #[arg(long)]
    height: Option<f32>,
}

/// The picture's height: every row of `trace`'s layout (each at least `lanes[location]` lanes: a store's
/// manifest's), with its axis and overview strip, at most 1000 px.
fn default_height(trace: &Trace, lanes: &[u32]) -> f32 {
    let rows = TimelineLayout::with_lanes(trace, TimelineMetrics::default(), |_| true, |_| false, lanes).height;
    (rows + AXIS_PX + OVERVIEW_PX + 8.0).clamp(120.0, 1000.0)
}

/// The lowest row's bottom edge in a timeline's state (`rows` with `y` and `height`), when it lists them all.
fn rows_bottom(state: &serde_json::Value) -> Option<f32> {
    let rows = state["rows"].as_array()?;
    if rows.len() as u64 != state["row_count"].as_u64()? {
        return None;
    }
    rows.iter()
        .map(|r| Some(r["y"].as_f64()? as f32 + r["height"].as_f64()? as f32))
        .try_fold(0f32, |m, b| Some(m.max(b?)))
}

pub fn run(a: Args, scale: f32) -> Result<(), Box<dyn std::error::Error>> {
    let window = a.window.as_deref().map(TimeWindow::parse).transpose()?;
    let scene = match crate::folders::open_store(&a.file) {
        Some(store) => {
            let e = |e| crate::folders::store_error(&a.file, e);
            let store = store.map_err(e)?;
            let skeleton = store.skeleton().map_err(e)?;
            let height = a.height.unwrap_or_else(|| default_height(&skeleton, &store.manifest.locations.lanes));
            let index = TileIndex::new(&store.manifest);
            let mut pane = StorePane::new(
                Rc::new(skeleton.clone()),
                store.manifest.locations.lanes.clone().into(),
                a.width,
                height,
            );
            if let Some(w) = window {
                pane.set_time_range(w.start_ns as f64, w.end_ns as f64);
            }
            let settle = |pane: &mut StorePane| -> Result<(), String> {
                // The page asks again once an answer is in; an answer changes the rows shown (and so the
                // viewport) at most once more, so a few rounds settle.
                for _ in 0..4 {
                    let Some(vp) = pane.request() else { break };
                    let (a, counters) = answer_with_counters(&store, &skeleton, &index, &vp).map_err(e)?;
                    pane.show_counters(counters);
                    match a {
                        Answer::Grid(grid) => pane.show_grid(grid, Vec::new()),
                        Answer::Exact(slice, plan) => {
                            pane.show_exact(*slice, plan.t0_ns, plan.t1_ns, plan.locations, Vec::new())
                        }
                    }
                }
                Ok(())
            };
            settle(&mut pane)?;
            // A store written before the manifest kept each row's lanes: the exact records' rows are as deep as
            // what was answered, which the definitions alone do not know; without --height, the picture grows
            // to show every row.
            if a.height.is_none() {
                if let Some(bottom) = rows_bottom(&pane.state()) {
                    let fitted = (bottom + OVERVIEW_PX + 8.0).clamp(120.0, 1000.0);
                    if fitted > height {
                        pane.resize(a.width, fitted);
                        settle(&mut pane)?;
                    }
                }
            }
            pane.scene()
        }
        None => {
            let path = a.file.display().to_string();
            let trace = weft::readers::open_path(&a.file)?.into_trace(&path)?;
            let height = a.height.unwrap_or_else(|| default_height(&trace, &[]));
            let mut pane = TimelinePane::new(Rc::new(trace), a.width, height);
            if let Some(w) = window {
                pane.set_time_range(w.start_ns as f64, w.end_ns as f64);
            }
            pane.scene()
        }
    };
    crate::picture::write(&scene, &a.output, scale)?;
    Ok(())
}
