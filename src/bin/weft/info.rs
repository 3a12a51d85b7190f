//! `weft info FILE [--json]`. Text output escapes control characters in trace text (names, file names,
//! warning examples): a trace must not be able to drive the terminal.

use std::path::PathBuf;
use weft::analyses::summary::summarize;
use weft::model::text::escape_controls as esc;
use weft::model::WarningEffect;
use weft::readers::open_path;

#[derive(clap::Args)]
pub struct Args {
    /// The trace file, or a store folder written by `weft index`.
    file: PathBuf,
    /// Print JSON with stable keys instead of text.
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args) -> Result<(), Box<dyn std::error::Error>> {
    let s = match crate::index::open_store(&a.file) {
        // A store (weft index): the summary from its manifest, without reading the events.
        Some(store) => {
            let e = |e| crate::index::store_error(&a.file, e);
            store.map_err(e)?.summary(10).map_err(e)?
        }
        None => summarize(&open_path(&a.file)?.into_trace(&a.file.display().to_string())?, 10),
    };
    if a.json {
        println!("{}", serde_json::to_string_pretty(&s)?);
        return Ok(());
    }
    println!("file        {}", esc(&a.file.display().to_string()));
    println!("format      {}", s.format);
    println!("span        {}", format_ns(s.span_ns));
    println!("processes   {}", s.processes);
    println!("locations   {}", s.locations);
    println!("events      {}", s.events);
    println!("intervals   {}", s.intervals);
    println!("messages    {}", s.messages);
    if s.flows > 0 {
        println!("flows       {}", s.flows);
    }
    if s.collectives > 0 {
        println!("collectives {}", s.collectives);
    }
    if s.instants > 0 {
        println!("instants    {}", s.instants);
    }
    if s.counters > 0 {
        println!("counters    {}", s.counters);
    }
    if s.warnings == 0 {
        println!("warnings    0");
    } else {
        println!(
            "warnings    {} ({} data left out, {} repaired)",
            s.warnings, s.warnings_left_out, s.warnings_repaired
        );
    }
    for effect in [WarningEffect::LeftOut, WarningEffect::Repaired] {
        let groups: Vec<_> = s.warning_kinds.iter().filter(|g| g.effect == effect).collect();
        if groups.is_empty() {
            continue;
        }
        println!(
            "  {}",
            match effect {
                WarningEffect::LeftOut => "data left out (not shown):",
                WarningEffect::Repaired => "repaired (everything read is shown):",
            }
        );
        for g in groups {
            println!("  {:>9}  {:<18}  {}", g.count, g.kind.name(), g.meaning);
            for e in &g.examples {
                println!("  {:>9}  {:<18}  e.g. {}", "", "", esc(e));
            }
        }
    }
    if !s.top_regions.is_empty() {
        println!();
        println!("{:>14}  {:>9}  region", "inclusive", "count");
        for r in &s.top_regions {
            println!("{:>14}  {:>9}  {}", format_ns(r.inclusive_ns), r.count, esc(&r.name));
        }
    }
    Ok(())
}

/// A duration in the largest unit that keeps it at least one (the page's format too).
pub use weft::scene::timeline::format_duration as format_ns;
