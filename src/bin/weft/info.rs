//! `weft info FILE [--json]`.

use std::path::PathBuf;
use weft::analyses::summary::summarize;
use weft::readers::read_path;

#[derive(clap::Args)]
pub struct Args {
    /// The trace file.
    file: PathBuf,
    /// Print JSON with stable keys instead of text.
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args) -> Result<(), Box<dyn std::error::Error>> {
    let trace = read_path(&a.file)?;
    let s = summarize(&trace, 10);
    if a.json {
        println!("{}", serde_json::to_string_pretty(&s)?);
        return Ok(());
    }
    println!("file        {}", a.file.display());
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
    println!("warnings    {}", s.warnings);
    for (kind, n) in trace.warnings.counts() {
        println!("  {n:>9}  {}", serde_json::to_string(kind)?.trim_matches('"'));
    }
    for w in trace.warnings.examples() {
        println!("             e.g. {}", w.message);
    }
    if !s.top_regions.is_empty() {
        println!();
        println!("{:>14}  {:>9}  region", "inclusive", "count");
        for r in &s.top_regions {
            println!("{:>14}  {:>9}  {}", format_ns(r.inclusive_ns), r.count, r.name);
        }
    }
    Ok(())
}

/// A duration in the largest unit that keeps it at least one (the page's format too).
pub use weft::scene::timeline::format_duration as format_ns;
