//! Time the HPCToolkit database reader, best of 3, on a generated database whose trace.db is about N MB:
//! `cargo run --release --example import_hpctoolkit -- [MB] [--write DIR]` (`--write` keeps the files, for
//! the Python oracle's `time` and the wasm benchmark). Reading the files from disk is not timed.

use std::time::Instant;
use weft::samples::hpctoolkit_gen::{generate, HpctkSpec};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mb: f64 = args.first().and_then(|a| a.parse().ok()).unwrap_or(100.0);
    let t = Instant::now();
    let db = generate(&HpctkSpec::of_size((mb * 1e6) as u64));
    let bytes: usize = db.files.iter().map(|(_, b)| b.len()).sum();
    println!(
        "generated {:.1} MB ({} lines, {} samples) in {:.2} s",
        bytes as f64 / 1e6,
        db.lines,
        db.samples,
        t.elapsed().as_secs_f64()
    );
    if let Some(i) = args.iter().position(|a| a == "--write") {
        let dir = std::path::PathBuf::from(args.get(i + 1).ok_or("--write DIR")?);
        std::fs::create_dir_all(&dir)?;
        for (n, b) in &db.files {
            std::fs::write(dir.join(n), b)?;
        }
        println!("wrote {}", dir.display());
    }
    let file = |n: &str| db.files.iter().find(|f| f.0 == n).map(|f| (f.0, f.1.as_slice()));
    let mut best = f64::MAX;
    let mut intervals = 0;
    for _ in 0..3 {
        let t = Instant::now();
        let trace =
            weft::readers::hpctoolkit::read("db", file("meta.db").unwrap(), file("profile.db"), file("trace.db"))?;
        best = best.min(t.elapsed().as_secs_f64());
        intervals = trace.intervals.len();
    }
    println!(
        "hpctoolkit: {:.3} s best of 3 ({:.0} MB/s, {:.1} M samples/s), {} intervals",
        best,
        bytes as f64 / 1e6 / best,
        db.samples as f64 / 1e6 / best,
        intervals
    );
    Ok(())
}
