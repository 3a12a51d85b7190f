//! `weft moments FILE [--json] [--busy compute|any|pattern:GLOB] [--pattern GLOB] [--window T0:T1] [--sort KEY]`:
//! moments of utilization per location. The JSON keys (location, name, m0_ns, m1_ns, m2_ns, m3_ns) are stable.

use crate::flags::{checked, help};
use std::path::PathBuf;
use weft::analyses::busy::BusyDefinition;
use weft::analyses::moments::{format_duration_ns, moments, sort_moments, LocationMoments, TimeWindow};
use weft::model::text::escape_controls;
use weft::model::Trace;
use weft::readers::open_path;
use weft::store::query::{exact_plan, exact_trace, TileIndex};
use weft::store::{Store, StoreError, TileSource};
use weft::views::options::{MomentsOptions, OptionError, ViewOptions};

/// The options that choose what is computed, shared with `weft render moments`. `--busy` and `--sort` are the
/// moments view's options (`weft::views::options::MomentsOptions`): the same values and words as the page.
#[derive(clap::Args, Clone, Debug)]
pub struct Selection {
    #[arg(long, default_value = "compute", value_parser = checked::<MomentsOptions>("busy"), help = help::<MomentsOptions>("busy"))]
    pub busy: String,
    /// Busy = time in regions whose name matches this glob (`*`, `?`); overrides --busy.
    #[arg(long)]
    pub pattern: Option<String>,
    /// Only this time window, `T0:T1` from the trace's first event (units ns, us, ms, s; default ns).
    #[arg(long)]
    pub window: Option<String>,
    #[arg(long, default_value = "location", value_parser = checked::<MomentsOptions>("sort"), help = help::<MomentsOptions>("sort"))]
    pub sort: String,
}

impl Selection {
    /// The view's typed options from the flags (checked by clap already: this repeats the same parse).
    pub fn options(&self) -> Result<MomentsOptions, OptionError> {
        let mut o = MomentsOptions::default();
        o.parse("busy", &self.busy)?;
        o.parse("sort", &self.sort)?;
        if let Some(p) = &self.pattern {
            o.busy = BusyDefinition::Pattern(p.clone());
        }
        Ok(o)
    }

    pub fn window(&self) -> Result<Option<TimeWindow>, weft::analyses::moments::WindowError> {
        self.window.as_deref().map(TimeWindow::parse).transpose()
    }
}

#[derive(clap::Args)]
pub struct Args {
    /// The trace file, or a store folder written by `weft index`.
    file: PathBuf,
    /// Print a JSON list of {location, name, m0_ns, m1_ns, m2_ns, m3_ns} instead of text.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    selection: Selection,
}

/// The moments of a store (weft index) and the trace they are of: the stored moments of the whole run for
/// compute and any (with the store's definitions); a window's from the exact records of its level-0 tiles
/// alone (with that slice); a pattern over the whole run from every tile (with the whole trace).
pub fn store_moments<S: TileSource>(
    store: &Store<S>,
    definition: &BusyDefinition,
    window: Option<TimeWindow>,
) -> Result<(Trace, Vec<LocationMoments>), StoreError> {
    Ok(match (window, store.moments(definition)?) {
        (None, Some(rows)) => (store.skeleton()?, rows),
        (Some(w), _) => {
            let skeleton = store.skeleton()?;
            let m = &store.manifest;
            let index = TileIndex::new(m);
            let plan = exact_plan(m, &index, w.start_ns, w.end_ns, 0..m.locations.process.len() as u32);
            let tiles = plan.tiles.iter().map(|&i| store.events_tile(&m.tiles[i])).collect::<Result<Vec<_>, _>>()?;
            let slice = exact_trace(&skeleton, &plan, &tiles.iter().collect::<Vec<_>>());
            let rows = moments(&slice, definition, window);
            (slice, rows)
        }
        (None, None) => {
            let trace = store.to_trace()?;
            let rows = moments(&trace, definition, window);
            (trace, rows)
        }
    })
}

pub fn run(a: Args) -> Result<(), Box<dyn std::error::Error>> {
    let window = a.selection.window()?;
    let options = a.selection.options()?;
    let definition = options.busy;
    let (trace, mut rows) = match crate::index::open_store(&a.file) {
        Some(store) => {
            let e = |e| crate::index::store_error(&a.file, e);
            store_moments(&store.map_err(e)?, &definition, window).map_err(e)?
        }
        None => {
            let trace = open_path(&a.file)?.into_trace(&a.file.display().to_string())?;
            let rows = moments(&trace, &definition, window);
            (trace, rows)
        }
    };
    sort_moments(&mut rows, options.sort);
    if a.json {
        println!("{}", serde_json::to_string_pretty(&rows)?);
        return Ok(());
    }
    let span = window.unwrap_or(TimeWindow::whole(&trace));
    println!("file        {}", escape_controls(&a.file.display().to_string()));
    println!("definition  {}", escape_controls(&definition.describe()));
    println!(
        "span        {} .. {} from the first event{}",
        format_duration_ns(span.start_ns as f64),
        format_duration_ns(span.end_ns as f64),
        if window.is_some() { " (window)" } else { "" }
    );
    println!("sorted by   {}", options.sort.name());
    println!();
    println!("{:>8}  {:>12}  {:>12}  {:>12}  {:>12}  name", "location", "m0", "m1", "m2", "m3");
    for m in &rows {
        if m.is_idle() {
            println!(
                "{:>8}  {:>12}  {:>12}  {:>12}  {:>12}  {}",
                m.location,
                "0 ns",
                "-",
                "-",
                "-",
                escape_controls(&m.name)
            );
            continue;
        }
        println!(
            "{:>8}  {:>12}  {:>12}  {:>12}  {:>12}  {}",
            m.location,
            format_duration_ns(m.m0_ns as f64),
            format_duration_ns(m.m1_ns),
            format_duration_ns(m.m2_ns),
            format_duration_ns(m.m3_ns),
            escape_controls(&m.name)
        );
    }
    Ok(())
}
