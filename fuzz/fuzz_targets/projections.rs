//! Charm++ Projections: the input holds the .sts, then `%%next%%` and PE 0's log, then `%%next%%` and PE 1's
//! (either log may be gzipped).
#![no_main]
use libfuzzer_sys::fuzz_target;
use weft::readers::otf2::MemoryFiles;
use weft::readers::projections;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    let parts = common::split(data, b"%%next%%", 3);
    let mut files = MemoryFiles::new();
    files.insert("t.sts", parts[0].to_vec());
    let mut logs = Vec::new();
    for (pe, log) in parts.iter().skip(1).enumerate() {
        let path = format!("t.{pe}.log");
        files.insert(&path, log.to_vec());
        logs.push((pe as u32, path));
    }
    let found = projections::Found { sts: "t.sts".into(), logs };
    let _ = projections::read_files("fuzz", &files, &found);
});
