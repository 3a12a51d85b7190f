//! Time the Paraver reader, best of 3, on a generated trace of about N MB (or on a given .prv with the .pcf
//! and .row beside it): `cargo run --release --example import_paraver -- [MB | FILE.prv] [--write DIR]`.
//! Beside it, the floor any reader pays: counting the lines of the same bytes.

use std::time::Instant;
use weft::readers::paraver::prv::{parse_header, scan_body, Comm, GlobalComm, RecordSink, Who};
use weft::readers::paraver::{read_with, sibling, Options};
use weft::samples::paraver::ParaverSample;

/// A sink that only counts: the scanner's own cost, without the model.
#[derive(Default)]
struct Count(u64);

impl RecordSink for Count {
    fn state(&mut self, _: u64, _: Who, b: u64, e: u64, s: u64) {
        self.0 += 1 + (b ^ e ^ s) % 2;
    }
    fn event(&mut self, _: u64, _: Who, t: u64, pairs: &[(u64, i64)]) {
        self.0 += pairs.len() as u64 + t % 2;
    }
    fn comm(&mut self, _: u64, c: &Comm) {
        self.0 += 1 + c.size % 2;
    }
    fn global_comm(&mut self, _: u64, g: &GlobalComm) {
        self.0 += 1 + g.time % 2;
    }
    fn unknown(&mut self, _: u64, _: &[u8]) {}
    fn malformed(&mut self, _: u64, _: u64, _: &'static str, _: bool) {}
}

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

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = args.first().map(String::as_str).unwrap_or("200");
    let (name, prv, pcf, row) = if let Ok(mb) = arg.parse::<f64>() {
        let t = Instant::now();
        let sample = ParaverSample {
            tasks: 64,
            threads_per_task: 4,
            iterations: u32::MAX,
            max_bytes: (mb * 1e6) as usize,
            ..ParaverSample::default()
        };
        let files = sample.generate();
        println!(
            "generated {:.1} MB ({} tasks x {} threads, {} iterations) in {:.2} s",
            files.prv.len() as f64 / 1e6,
            sample.tasks,
            sample.threads_per_task,
            files.iterations,
            t.elapsed().as_secs_f64()
        );
        if let Some(dir) = args.iter().position(|a| a == "--write").and_then(|i| args.get(i + 1)) {
            let base = std::path::Path::new(dir).join("generated.prv");
            std::fs::write(&base, &files.prv)?;
            let b = base.display().to_string();
            std::fs::write(sibling(&b, "pcf"), &files.pcf)?;
            std::fs::write(sibling(&b, "row"), &files.row)?;
            println!("wrote {b} (+ .pcf, .row)");
        }
        ("generated.prv".to_string(), files.prv, Some(files.pcf), Some(files.row))
    } else {
        let prv = std::fs::read(arg)?;
        let pcf = std::fs::read(sibling(arg, "pcf")).ok();
        let row = std::fs::read(sibling(arg, "row")).ok();
        (arg.to_string(), prv, pcf, row)
    };
    let mb = prv.len() as f64 / 1e6;
    let options = Options::default();
    let (secs, result) = best_of_3(|| read_with(&name, &prv, pcf.as_deref(), row.as_deref(), &options));
    let (trace, stats) = result?;
    let records = stats.state_records + stats.event_records + stats.comm_records + stats.global_comm_records;
    println!("file            {name} ({mb:.1} MB, {} lines)", stats.body_lines);
    println!("weft            {secs:.3} s  {:.0} MB/s  {:.2} M records/s", mb / secs, records as f64 / secs / 1e6);
    println!(
        "records         {} state, {} event, {} communication, {} global",
        stats.state_records, stats.event_records, stats.comm_records, stats.global_comm_records
    );
    println!(
        "model           {} locations, {} intervals ({} states, {} calls), {} messages, {} counter samples",
        trace.locations.len(),
        trace.intervals.len(),
        stats.state_intervals,
        stats.call_intervals,
        trace.messages.len(),
        stats.counter_samples
    );
    println!("warnings        {}", trace.warnings.total());
    let (_, body_at, first) = parse_header(&prv).map_err(|e| e.to_string())?;
    let (secs, n) = best_of_3(|| {
        let mut c = Count::default();
        scan_body(&prv[body_at..], first, &mut c);
        c.0
    });
    println!("scan only       {secs:.3} s  {:.0} MB/s  (records to a counting sink, no model; {n})", mb / secs);
    let (secs, lines) = best_of_3(|| prv.iter().filter(|&&c| c == b'\n').count());
    println!("line count      {secs:.3} s  {:.0} MB/s  ({lines} lines; the floor)", mb / secs);
    Ok(())
}
