//! `weft critical-path TRACE [--json]`: the run's critical path (`analyses::diagnosis::critical_path`, defined
//! in docs/diagnosis.md) by region, by location and as imbalance. `--json` prints exactly the keys of
//! `PathReport`: `length_ns`, `by_region` [{`name`, `ns`}], `by_location` [ns per location, in the order of
//! `weft moments --json`], `imbalance` [{`name`, `ns`}]. A store folder indexed with `--waits` (format 7)
//! answers from its manifest's `critical_path` (`store::read::critical_path`) exactly what the trace it was
//! indexed from gives; another store says why it has none. Text output escapes trace text.

use std::path::{Path, PathBuf};
use weft::analyses::diagnosis::critical_path::{critical_path, path_report, CriticalPath, PathReport};
use weft::analyses::diagnosis::waits::wait_states;
use weft::analyses::moments::location_label;
use weft::model::text::escape_controls as esc;
use weft::model::{LocationId, Trace};
use weft::readers::open_path;

use crate::info::format_ns;

#[derive(clap::Args)]
pub struct Args {
    /// The trace file, or a store folder indexed with `weft index --waits`.
    file: PathBuf,
    /// Print JSON with stable keys instead of text.
    #[arg(long)]
    json: bool,
}

/// How many rows each text table shows.
const ROWS: usize = 10;

/// The trace at `path`; a store folder refused with a message that says what to give instead.
pub fn read_trace(path: &Path, command: &str) -> Result<Trace, Box<dyn std::error::Error>> {
    if crate::folders::open_store(path).is_some() {
        return Err(format!(
            "{}: a store folder (weft index); `weft {command}` reads a trace file for now: give the trace the store \
             was indexed from",
            crate::folders::shown(path)
        )
        .into());
    }
    Ok(open_path(path)?.into_trace(&path.display().to_string())?)
}

pub fn run(a: Args) -> Result<(), Box<dyn std::error::Error>> {
    if let Some(store) = crate::folders::open_store(&a.file) {
        // A store indexed with --waits keeps its critical path (format 7): the same report, not walked again.
        let store = store.map_err(|e| crate::folders::store_error(&a.file, e))?;
        if let Some(why) = weft::store::read::critical_path::missing(&store) {
            return Err(format!("{}: {why}", crate::folders::shown(&a.file)).into());
        }
        let m = &store.manifest;
        let kept = m.critical_path.as_ref().expect("not missing");
        if a.json {
            println!("{}", crate::json_text(&kept.report)?);
            return Ok(());
        }
        // The label `weft moments` gives the location ("MPI Rank 11 / Master thread").
        let string = |s: Option<&u32>| s.and_then(|&s| m.strings.get(s as usize)).cloned().unwrap_or_default();
        let label = |l: usize| {
            let process = m.locations.process.get(l).and_then(|&p| m.processes.name.get(p as usize));
            format!("{} / {}", string(process), string(m.locations.name.get(l)))
        };
        print_path(m.locations.process.len(), kept.segments as usize, &label, &kept.report);
        return Ok(());
    }
    let trace = read_trace(&a.file, "critical-path")?;
    let path = critical_path(&trace, &wait_states(&trace));
    let report = path_report(&trace, &path);
    if a.json {
        println!("{}", crate::json_text(&report)?);
        return Ok(());
    }
    print_trace_path(&trace, &path, &report);
    Ok(())
}

fn share(ns: u64, of: u64) -> f64 {
    if of == 0 {
        0.0
    } else {
        100.0 * ns as f64 / of as f64
    }
}

/// Rows of (time, share, name), the first [`ROWS`], and how many more there are.
fn table(rows: impl ExactSizeIterator<Item = (u64, String)>, of: u64) {
    let n = rows.len();
    for (ns, name) in rows.take(ROWS) {
        println!("  {:>14}  {:>5.1}%  {}", format_ns(ns), share(ns, of), esc(&name));
    }
    if n > ROWS {
        println!("  ... {} more", n - ROWS);
    }
}

/// [`print_path`] of a trace's path.
pub fn print_trace_path(trace: &Trace, path: &CriticalPath, report: &PathReport) {
    let label = |l: usize| location_label(trace, LocationId(l as u32));
    print_path(trace.locations.len(), path.segments.len(), &label, report);
}

/// The text report: the path's length, its time by region, by location and the imbalance, with shares of the
/// length; `locations` in all, the path's `segments`, each location's `label`.
pub fn print_path(locations: usize, segments: usize, label: &dyn Fn(usize) -> String, report: &PathReport) {
    let len = report.length_ns;
    let on: Vec<usize> = (0..report.by_location.len()).filter(|&l| report.by_location[l] > 0).collect();
    println!(
        "critical path  {} (the run's span), {} segments on {} of {} locations",
        format_ns(len),
        segments,
        on.len(),
        locations
    );
    println!();
    println!("on the path by region (exclusive time of the innermost region)");
    table(report.by_region.iter().map(|r| (r.ns, r.name.clone())), len);
    println!();
    println!("on the path by location");
    let mut by_location = on;
    by_location.sort_by_key(|&l| (std::cmp::Reverse(report.by_location[l]), l));
    table(by_location.iter().map(|&l| (report.by_location[l], label(l))), len);
    println!();
    println!("imbalance (time on the path over the region's mean per location)");
    if report.imbalance.is_empty() {
        println!("  none");
    }
    table(report.imbalance.iter().map(|r| (r.ns, r.name.clone())), len);
}
