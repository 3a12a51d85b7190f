//! Time the Perfetto protobuf reader, best of 3, on a generated trace of about N MB (`samples::perfetto`: the
//! SDK's shape, interned names, nested slices, instants, counters, flows, some args):
//! `cargo run --release --example import_perfetto -- [MB] [--write FILE]` (`--write` keeps the trace). Reads the
//! bytes whole and streamed in 1 MiB chunks (as the page's worker feeds them); reading the file is not timed.

use std::time::Instant;
use weft::readers::perfetto::{self, PerfettoStreamReader};
use weft::samples::perfetto::PerfettoSample;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mb: u64 = args.first().and_then(|a| a.parse().ok()).unwrap_or(100);
    let t = Instant::now();
    let bytes = PerfettoSample::of_mb(mb).generate();
    println!("generated {:.1} MB in {:.2} s", bytes.len() as f64 / 1e6, t.elapsed().as_secs_f64());
    if let Some(i) = args.iter().position(|a| a == "--write") {
        let path = args.get(i + 1).ok_or("--write FILE")?;
        std::fs::write(path, &bytes)?;
        println!("wrote {path}");
    }
    for streamed in [false, true] {
        let mut best = f64::MAX;
        let mut shown = (0, 0, 0, 0);
        for _ in 0..3 {
            let t = Instant::now();
            let trace = if streamed {
                let mut r = PerfettoStreamReader::new("trace");
                for c in bytes.chunks(1 << 20) {
                    r.feed(c)?;
                }
                r.finish()?
            } else {
                perfetto::read("trace", &bytes)?
            };
            best = best.min(t.elapsed().as_secs_f64());
            shown =
                (trace.event_records, trace.intervals.len(), trace.messages.len(), trace.counters.sample_value.len());
        }
        println!(
            "perfetto {}: {:.3} s best of 3 ({:.0} MB/s, {:.1} M track events/s), {} intervals, {} flows, {} samples",
            if streamed { "streamed (1 MiB chunks)" } else { "whole" },
            best,
            bytes.len() as f64 / 1e6 / best,
            shown.0 as f64 / 1e6 / best,
            shown.1,
            shown.2,
            shown.3
        );
    }
    Ok(())
}
