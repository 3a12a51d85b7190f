//! `weft io TRACE [LOG] [--json] [--window T0:T1] [--bins N] [--file NAME] [--layer NAME]`: bytes read and written
//! over time, per file and per location of a trace's I/O intervals (a Darshan log's DXT segments or per-file
//! records; docs/io.md), as `analyses::io` sums them for the page's I/O panel too. `--json` prints the
//! summary with stable keys: `read_bytes`, `write_bytes`, `read_ns`, `write_ns`, `operations`, `bins`
//! [{t0_ns, t1_ns, read_bytes, write_bytes}], `files` [{name, read_bytes, write_bytes, operations}],
//! `per_location` [{name, read_bytes, write_bytes, operations}] (every location, in `weft moments --json`'s
//! order), `per_process`, `layers`, `layer`, `file`, `window_t0_ns`, `window_t1_ns`.

use std::path::PathBuf;
use weft::analyses::io::{io_summary, IoQuery, IoSummary, DEFAULT_BINS, MAX_BINS};
use weft::analyses::moments::{format_duration_ns, TimeWindow};
use weft::model::text::escape_controls as esc;

#[derive(clap::Args)]
pub struct Args {
    /// The trace file (a Darshan log, or any trace with I/O intervals), or a store folder.
    file: PathBuf,
    /// A second file given with it: the Darshan log of the same job (or the trace, when the first is the log),
    /// its I/O put onto the trace's ranks by job start (docs/io.md).
    with: Option<PathBuf>,
    /// Print JSON with stable keys instead of text.
    #[arg(long)]
    json: bool,
    /// Only this time window, `T0:T1` from the trace's first event (units ns, us, ms, s; default ns).
    #[arg(long)]
    window: Option<String>,
    /// Time bins over the window (1 to 10000).
    #[arg(long, default_value_t = DEFAULT_BINS as u32, value_parser = clap::value_parser!(u32).range(1..=MAX_BINS as i64))]
    bins: u32,
    /// Only this file's I/O (the files list still lists every file).
    #[arg(long = "file", value_name = "NAME")]
    only_file: Option<String>,
    /// The layer summed (a region category: POSIX, MPI-IO, ...); default POSIX where present.
    #[arg(long)]
    layer: Option<String>,
}

pub fn run(a: Args) -> Result<(), Box<dyn std::error::Error>> {
    let window = a.window.as_deref().map(TimeWindow::parse).transpose()?;
    let trace = match &a.with {
        Some(with) => {
            weft::readers::open_paths(&[a.file.clone(), with.clone()])?.into_trace(&a.file.display().to_string())?
        }
        None => crate::folders::read_trace_or_store(&a.file)?,
    };
    let q = IoQuery { window, file: a.only_file.as_deref(), layer: a.layer.as_deref(), bins: a.bins as usize };
    let s = io_summary(&trace, &q);
    if a.json {
        println!("{}", crate::json_text(&s)?);
    } else {
        print(&a.file.display().to_string(), &s);
    }
    Ok(())
}

fn print(file: &str, s: &IoSummary) {
    let Some(layer) = &s.layer else {
        println!("{}: no I/O intervals (regions of role file I/O)", esc(file));
        return;
    };
    let bytes = weft::readers::budget::human_bytes;
    println!(
        "{} layer {}{}: read {} in {}, written {} in {}, {} operations",
        esc(file),
        esc(layer),
        s.file.as_deref().map_or(String::new(), |f| format!(", file {}", esc(f))),
        bytes(s.read_bytes),
        format_duration_ns(s.read_ns as f64),
        bytes(s.write_bytes),
        format_duration_ns(s.write_ns as f64),
        s.operations
    );
    if s.layers.len() > 1 {
        println!("layers:");
        for l in &s.layers {
            println!("  {:<12} read {:>10}  written {:>10}", esc(&l.name), bytes(l.read_bytes), bytes(l.write_bytes));
        }
    }
    println!("files ({}, the most bytes first):", s.files.len());
    for f in s.files.iter().take(10) {
        println!(
            "  read {:>10}  written {:>10}  {:>7} ops  {}",
            bytes(f.read_bytes),
            bytes(f.write_bytes),
            f.operations,
            esc(&f.name)
        );
    }
    println!("per process:");
    for p in s.per_process.iter().filter(|p| p.operations > 0) {
        println!("  read {:>10}  written {:>10}  {}", bytes(p.read_bytes), bytes(p.write_bytes), esc(&p.name));
    }
}
