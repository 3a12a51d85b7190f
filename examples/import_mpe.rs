//! Time the MPE readers (CLOG2, SLOG-2, old CLOG, RLOG), best of 3, on generated files of about N MB each (or on a
//! given file): `cargo run --release --example import_mpe -- [MB | FILE] [--write DIR]`. `--write` leaves the
//! generated `generated.clog2`, `generated.slog2`, `generated.clog` and `generated.rlog` in DIR (the browser benchmark and test
//! open them). Jumpshot's own readers (Java `slog2print`, `clog2print`) are the peers; no JVM runs here.

use std::time::Instant;
use weft::readers::{open, Source};
use weft::samples::mpe::MpeSample;

fn best_of_3<T>(mut f: impl FnMut() -> T) -> (f64, T) {
    let mut best = f64::MAX;
    let mut last = None;
    for _ in 0..3 {
        let t = Instant::now();
        let r = f();
        best = best.min(t.elapsed().as_secs_f64());
        last = Some(r);
    }
    (best, last.expect("three runs"))
}

fn time(name: &str, bytes: &[u8]) -> Result<(), Box<dyn std::error::Error>> {
    let (secs, trace) = best_of_3(|| open(name, Source::Bytes(bytes)).and_then(|i| i.into_trace(name)));
    let t = trace?;
    let mb = bytes.len() as f64 / 1e6;
    println!(
        "{name}: {mb:.1} MB, {} intervals, {} messages, {} instants in {secs:.3} s: {:.0} MB/s, {:.1} M records/s",
        t.intervals.len(),
        t.messages.len(),
        t.instants.time_ns.len(),
        mb / secs,
        t.event_records as f64 / secs / 1e6
    );
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = args.first().map(String::as_str).unwrap_or("100");
    let Ok(mb) = arg.parse::<f64>() else {
        return time(arg, &std::fs::read(arg)?);
    };
    let sample = MpeSample::sized_clog2((mb * 1e6) as u64, 64);
    let t = Instant::now();
    let files = [
        ("generated.clog2", sample.clog2(65536)),
        ("generated.slog2", sample.slog2(65536)),
        ("generated.clog", sample.clog()),
        ("generated.rlog", sample.rlog()),
    ];
    println!(
        "generated {} ranks x {} iterations in four formats in {:.1} s",
        sample.ranks,
        sample.iterations,
        t.elapsed().as_secs_f64()
    );
    if let Some(dir) = args.iter().position(|a| a == "--write").and_then(|i| args.get(i + 1)) {
        for (name, bytes) in &files {
            let path = std::path::Path::new(dir).join(name);
            std::fs::write(&path, bytes)?;
            println!("wrote {}", path.display());
        }
    }
    for (name, bytes) in &files {
        time(name, bytes)?;
    }
    Ok(())
}
