//! Time the Charm++ Projections reader, best of 3, on a generated trace of about N MB of plain logs:
//! `cargo run --release --example import_projections -- [MB] [--write DIR]` (`--write` keeps the files, for the
//! Python oracle's `time`). Reading the files from disk is not timed.

use std::time::Instant;
use weft::readers::otf2::MemoryFiles;
use weft::readers::projections;
use weft::samples::projections_gen::{generate, ProjSpec};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mb: f64 = args.first().and_then(|a| a.parse().ok()).unwrap_or(100.0);
    let t = Instant::now();
    let g = generate(&ProjSpec::of_size((mb * 1e6) as u64));
    let bytes: usize = g.files.iter().map(|(_, b)| b.len()).sum();
    let records: u64 = g.records.iter().sum();
    println!(
        "generated {:.1} MB ({} PEs, {} records) in {:.2} s",
        bytes as f64 / 1e6,
        g.records.len(),
        records,
        t.elapsed().as_secs_f64()
    );
    if let Some(i) = args.iter().position(|a| a == "--write") {
        let dir = std::path::PathBuf::from(args.get(i + 1).ok_or("--write DIR")?);
        std::fs::create_dir_all(&dir)?;
        for (n, b) in &g.files {
            std::fs::write(dir.join(n), b)?;
        }
        println!("wrote {}", dir.display());
    }
    let mut files = MemoryFiles::new();
    for (n, b) in g.files {
        files.insert(&n, b);
    }
    let found = projections::find(&files).ok_or("no .sts")?;
    let mut best = f64::MAX;
    let mut shown = (0, 0);
    for _ in 0..3 {
        let t = Instant::now();
        let trace = projections::read_files("trace", &files, &found)?;
        best = best.min(t.elapsed().as_secs_f64());
        shown = (trace.intervals.len(), trace.messages.len());
    }
    println!(
        "projections: {:.3} s best of 3 ({:.0} MB/s, {:.1} M records/s), {} intervals, {} messages",
        best,
        bytes as f64 / 1e6 / best,
        records as f64 / 1e6 / best,
        shown.0,
        shown.1
    );
    Ok(())
}
