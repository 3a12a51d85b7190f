//! `weft moments FILE [--json] [--busy compute|any] [--pattern GLOB] [--window T0:T1] [--sort KEY]`:
//! moments of utilization per location. The JSON keys (location, name, m0_ns, m1_ns, m2_ns, m3_ns) are stable.

use std::path::PathBuf;
use weft::analyses::busy::BusyDefinition;
use weft::analyses::moments::{format_duration_ns, moments, sort_moments, MomentKey, TimeWindow};
use weft::model::text::escape_controls;
use weft::readers::read_path;

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum Busy {
    /// Any region, minus communication and synchronization (the default).
    Compute,
    /// Any region.
    Any,
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum Sort {
    Location,
    M0,
    M1,
    M2,
    M3,
}

/// The options that choose what is computed, shared with `weft render moments`.
#[derive(clap::Args, Clone, Debug)]
pub struct Selection {
    /// What counts as busy.
    #[arg(long, value_enum, default_value = "compute")]
    pub busy: Busy,
    /// Busy = time in regions whose name matches this glob (`*`, `?`); overrides --busy.
    #[arg(long)]
    pub pattern: Option<String>,
    /// Only this time window, `T0:T1` from the trace's first event (units ns, us, ms, s; default ns).
    #[arg(long)]
    pub window: Option<String>,
    /// Row order.
    #[arg(long, value_enum, default_value = "location")]
    pub sort: Sort,
}

impl Selection {
    pub fn definition(&self) -> BusyDefinition {
        match (&self.pattern, self.busy) {
            (Some(p), _) => BusyDefinition::Pattern(p.clone()),
            (None, Busy::Compute) => BusyDefinition::Compute,
            (None, Busy::Any) => BusyDefinition::Any,
        }
    }

    pub fn window(&self) -> Result<Option<TimeWindow>, weft::analyses::moments::WindowError> {
        self.window.as_deref().map(TimeWindow::parse).transpose()
    }

    pub fn key(&self) -> MomentKey {
        match self.sort {
            Sort::Location => MomentKey::Location,
            Sort::M0 => MomentKey::M0,
            Sort::M1 => MomentKey::M1,
            Sort::M2 => MomentKey::M2,
            Sort::M3 => MomentKey::M3,
        }
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

pub fn run(a: Args) -> Result<(), Box<dyn std::error::Error>> {
    let window = a.selection.window()?;
    let definition = a.selection.definition();
    let (trace, mut rows) = match crate::index::open_store(&a.file) {
        // A store (weft index): the stored moments of the whole run for compute and any; a window or a
        // pattern is computed from the decoded level-0 tiles.
        Some(store) => {
            let e = |e| crate::index::store_error(&a.file, e);
            let store = store.map_err(e)?;
            match (window, store.moments(&definition).map_err(e)?) {
                (None, Some(rows)) => (store.skeleton().map_err(e)?, rows),
                _ => {
                    let trace = store.to_trace().map_err(e)?;
                    let rows = moments(&trace, &definition, window);
                    (trace, rows)
                }
            }
        }
        None => {
            let trace = read_path(&a.file)?;
            let rows = moments(&trace, &definition, window);
            (trace, rows)
        }
    };
    sort_moments(&mut rows, a.selection.key());
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
    println!("sorted by   {}", a.selection.key().name());
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
