//! Time the Chrome reader on a file, best of 3, beside serde_json's typed borrowed parse of the same bytes:
//! `cargo run --release --example import_chrome -- FILE [--chunk KB] [--once] [--warm]`.

use serde::de::IgnoredAny;
use serde::Deserialize;
use std::borrow::Cow;
use std::time::Instant;
use weft::readers::chrome::{read, ChromeStreamReader};

/// The peer: what a serde user would write for the same job (borrowed strings, args ignored).
#[allow(dead_code)]
#[derive(Deserialize)]
struct PeerEvent<'a> {
    #[serde(borrow)]
    ph: Option<Cow<'a, str>>,
    #[serde(borrow)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow)]
    cat: Option<Cow<'a, str>>,
    ts: Option<f64>,
    dur: Option<f64>,
    pid: Option<IgnoredAny>,
    tid: Option<IgnoredAny>,
    id: Option<IgnoredAny>,
    args: Option<IgnoredAny>,
}

/// CPU time of this thread in seconds (Linux schedstat), so figures on a shared machine are not
/// inflated by waiting for a core. None where unavailable.
fn thread_cpu_s() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: f64 = s.split_whitespace().next()?.parse().ok()?;
    Some(ns / 1e9)
}

/// Best of three runs: (wall seconds, CPU seconds or NaN, result of the last run).
fn best_of_3<T>(mut f: impl FnMut() -> T) -> (f64, f64, T) {
    let (mut wall, mut cpu) = (f64::MAX, f64::MAX);
    let mut last = None;
    for _ in 0..3 {
        let c0 = thread_cpu_s();
        let t = Instant::now();
        let r = f();
        wall = wall.min(t.elapsed().as_secs_f64());
        if let (Some(a), Some(b)) = (c0, thread_cpu_s()) {
            cpu = cpu.min(b - a);
        }
        last = Some(r);
    }
    (
        wall,
        // schedstat ticks too coarsely for tiny files: no CPU figure rather than a wrong one.
        if cpu == f64::MAX || cpu < 0.01 { f64::NAN } else { cpu },
        last.expect("three runs"),
    )
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = args.first().ok_or("usage: import_chrome FILE [--chunk KB]")?;
    let chunk_kb: Option<usize> =
        args.iter().position(|a| a == "--chunk").and_then(|i| args.get(i + 1)).map(|s| s.parse()).transpose()?;
    let bytes = std::fs::read(path)?;
    if args.iter().any(|a| a == "--once") {
        // For profilers: one read, nothing else, timed in its two halves.
        let t = Instant::now();
        let mut r = ChromeStreamReader::new(path);
        r.feed(&bytes)?;
        let fed = t.elapsed().as_secs_f64();
        let trace = r.finish()?;
        let all = t.elapsed().as_secs_f64();
        println!("{} intervals; scan+convert {fed:.3} s, match+build {:.3} s", trace.intervals.len(), all - fed);
        return Ok(());
    }
    let mb = bytes.len() as f64 / 1e6;
    if args.iter().any(|a| a == "--warm") {
        // One untimed read first, so the timed ones find the allocator's heap already grown.
        read(path, &bytes)?;
    }

    let (secs, cpu, trace) = best_of_3(|| read(path, &bytes));
    let trace = trace?;
    let n = trace.intervals.len();
    println!("file            {path} ({mb:.1} MB)");
    println!(
        "weft            {:.3} s  {:.0} MB/s  {:.2} M events/s  (CPU {:.3} s, {:.0} MB/s)",
        secs,
        mb / secs,
        trace.event_records as f64 / secs / 1e6,
        cpu,
        mb / cpu
    );
    println!("events          {}", trace.event_records);
    println!("intervals       {n}");
    println!("messages+flows  {}", trace.messages.len());
    println!("warnings        {}", trace.warnings.total());
    println!("bytes/interval  {:.1}", trace.intervals.heap_bytes() as f64 / n.max(1) as f64);

    if let Some(kb) = chunk_kb {
        let (secs, cpu, trace) = best_of_3(|| {
            let mut r = ChromeStreamReader::new(path);
            for c in bytes.chunks(kb * 1024) {
                r.feed(c)?;
            }
            r.finish()
        });
        let trace = trace?;
        println!(
            "weft chunked    {:.3} s  {:.0} MB/s  (CPU {:.0} MB/s; {kb} KB chunks, {} intervals)",
            secs,
            mb / secs,
            mb / cpu,
            trace.intervals.len()
        );
    }

    if bytes.starts_with(&[0x1f, 0x8b]) {
        return Ok(());
    }
    let (secs, cpu, peer) = best_of_3(|| -> Result<usize, serde_json::Error> {
        // The array form or the object form, as the file starts.
        let trimmed = bytes.iter().position(|c| !c.is_ascii_whitespace()).unwrap_or(0);
        if bytes.get(trimmed) == Some(&b'[') {
            let v: Vec<PeerEvent> = serde_json::from_slice(&bytes)?;
            Ok(v.len())
        } else {
            #[derive(Deserialize)]
            struct Obj<'a> {
                #[serde(borrow, rename = "traceEvents")]
                trace_events: Vec<PeerEvent<'a>>,
            }
            let o: Obj = serde_json::from_slice(&bytes)?;
            Ok(o.trace_events.len())
        }
    });
    match peer {
        Ok(events) => println!(
            "serde_json typed {:.3} s  {:.0} MB/s  (CPU {:.0} MB/s; {events} events, parse only, no model)",
            secs,
            mb / secs,
            mb / cpu
        ),
        Err(e) => println!("serde_json typed: failed ({e})"),
    }
    Ok(())
}
