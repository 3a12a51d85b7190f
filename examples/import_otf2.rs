//! OTF2 import speed: events/s and MB/s of weft's reader on one archive, from memory (the browser's case:
//! the files are already bytes) and from the folder on disk. Prints one JSON line per measurement.
//!
//!   cargo run --release --example import_otf2 -- /tmp/otf2-big/traces.otf2 [repeats]
//!
//! The archive is made by `tests/oracle/otf2_oracle.py big DIR N` with the official OTF2 writer.

use std::path::{Path, PathBuf};
use std::time::Instant;
use weft::readers::otf2::{read_archive_full, ArchiveFiles, FolderFiles, MemoryFiles};

fn load(dir: &Path) -> MemoryFiles {
    let mut m = MemoryFiles::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("read_dir").flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).expect("prefix").to_string_lossy().replace('\\', "/");
                m.insert(&rel, std::fs::read(&p).expect("read"));
            }
        }
    }
    m
}

fn main() {
    let mut args = std::env::args().skip(1);
    let anchor = PathBuf::from(args.next().unwrap_or_else(|| "/tmp/otf2-big/traces.otf2".into()));
    let repeats: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(3);
    let dir = anchor.parent().expect("anchor's folder").to_path_buf();
    let name = anchor.file_name().expect("file name").to_string_lossy().into_owned();
    let files = load(&dir);
    let bytes = files.total_bytes();
    let report = |how: &str, secs: f64, events: u64, intervals: usize, messages: usize| {
        println!(
            "{{\"reader\":\"weft {how}\",\"events\":{events},\"intervals\":{intervals},\"messages\":{messages},\
             \"bytes\":{bytes},\"seconds\":{secs:.4},\"events_per_s\":{:.0},\"mb_per_s\":{:.1}}}",
            events as f64 / secs,
            bytes as f64 / 1e6 / secs
        );
    };
    let mut best = f64::MAX;
    for _ in 0..repeats {
        let t0 = Instant::now();
        let r = read_archive_full(&name, &files as &dyn ArchiveFiles).expect("read");
        let secs = t0.elapsed().as_secs_f64();
        best = best.min(secs);
        report("native, from memory", secs, r.trace.event_records, r.trace.intervals.len(), r.trace.messages.len());
    }
    let t0 = Instant::now();
    let r = read_archive_full(&name, &FolderFiles { root: dir }).expect("read");
    let secs = t0.elapsed().as_secs_f64();
    report("native, from disk", secs, r.trace.event_records, r.trace.intervals.len(), r.trace.messages.len());
    eprintln!("best from memory: {best:.3} s");
}
