//! `weft whatif TRACE --scale REGION=FACTOR ... [--json]`: the run replayed with the exclusive time of the named
//! regions scaled (`analyses::diagnosis::whatif`; the model is docs/diagnosis.md's "What-if"): the recorded span,
//! the predicted span and the replayed run's critical path. `--json` prints `recorded_span_ns`,
//! `predicted_span_ns` and `critical_path` {the keys of `weft critical-path --json`}. A region name the trace
//! lacks is an error naming it; every region of a name is scaled.

use serde::Serialize;
use std::path::PathBuf;
use weft::analyses::diagnosis::critical_path::{critical_path, PathReport};
use weft::analyses::diagnosis::waits::wait_states;
use weft::analyses::diagnosis::whatif::{replay_with_notes, what_if, Scale};
use weft::model::text::escape_controls as esc;
use weft::model::{RegionId, Trace};

use crate::info::format_ns;

#[derive(clap::Args)]
pub struct Args {
    /// The trace file (a store folder is refused for now).
    file: PathBuf,
    /// Scale a region's exclusive time: NAME=FACTOR (0.5 halves it); repeat for more regions.
    #[arg(long = "scale", value_name = "REGION=FACTOR", required = true)]
    scale: Vec<String>,
    /// Print JSON with stable keys instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct WhatIfJson<'a> {
    recorded_span_ns: u64,
    predicted_span_ns: u64,
    critical_path: &'a PathReport,
}

/// `--scale` values as scales of every region of each name; names the trace lacks refused together.
fn scales(trace: &Trace, args: &[String]) -> Result<Vec<Scale>, String> {
    let mut out = Vec::new();
    let mut unknown = Vec::new();
    for arg in args {
        let Some((name, factor)) = arg.rsplit_once('=') else {
            return Err(format!("--scale {}: expected REGION=FACTOR (as compute=0.5)", esc(arg)));
        };
        let factor: f64 = factor
            .trim()
            .parse()
            .ok()
            .filter(|f: &f64| f.is_finite() && *f >= 0.0)
            .ok_or_else(|| format!("--scale {}: the factor must be a number >= 0 (as 0.5)", esc(arg)))?;
        let regions: Vec<RegionId> =
            (0..trace.regions.len() as u32).map(RegionId).filter(|&r| trace.region_name(r) == name).collect();
        if regions.is_empty() {
            unknown.push(format!("'{}'", esc(name)));
        }
        out.extend(regions.into_iter().map(|region| Scale { region, factor }));
    }
    if !unknown.is_empty() {
        return Err(format!(
            "the trace has no region named {} (weft info TRACE --json lists the regions)",
            unknown.join(", ")
        ));
    }
    Ok(out)
}

pub fn run(a: Args) -> Result<(), Box<dyn std::error::Error>> {
    let trace = crate::critical_path::read_trace(&a.file, "whatif")?;
    let scales = scales(&trace, &a.scale).map_err(|e| format!("{}: {e}", crate::folders::shown(&a.file)))?;
    let states = wait_states(&trace);
    if a.json {
        let w = what_if(&trace, &states, &scales);
        let json = WhatIfJson {
            recorded_span_ns: w.recorded_span_ns,
            predicted_span_ns: w.predicted_span_ns,
            critical_path: &w.path,
        };
        println!("{}", crate::json_text(&json)?);
        return Ok(());
    }
    // The text shows the path's segments too: the replayed run's path, built as what_if builds it.
    let (replayed, notes) = replay_with_notes(&trace, &states, &scales);
    let path = critical_path(&replayed, &wait_states(&replayed));
    let report = weft::analyses::diagnosis::critical_path::path_report(&replayed, &path);
    let (rec, pred) = (trace.span_ns, replayed.span_ns);
    let change = if rec > 0 { 100.0 * (pred as f64 - rec as f64) / rec as f64 } else { 0.0 };
    println!("scaled          {}", esc(&a.scale.join(" ")));
    println!("recorded span   {}", format_ns(rec));
    println!("predicted span  {} ({change:+.1}%)", format_ns(pred));
    if notes.held_wait_ns > 0 {
        println!(
            "                {} of recorded waiting no rule explains (eager sends, ...), held as recorded",
            format_ns(notes.held_wait_ns)
        );
    }
    if notes.forced_waits > 0 {
        println!("                {} waits in a cycle of causes at one time went on first", notes.forced_waits);
    }
    println!();
    println!("the replayed run's critical path:");
    crate::critical_path::print_trace_path(&replayed, &path, &report);
    Ok(())
}
