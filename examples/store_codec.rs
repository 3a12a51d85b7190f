//! Codec choice for store tiles (BENCHMARKS.md "Store"): builds the store of a generated OTF2 trace, then
//! compresses every tile's raw column payload with LZ4 (`lz4_flex`, the store's codec) and DEFLATE
//! (`flate2`, levels 1 and 6), timing compression and decompression.
//! `cargo run --release --example store_codec -- [EVENTS]` (default 4 M events, 8 ranks).

use std::time::Instant;
use weft::index::{build, BuildOptions};
use weft::samples::otf2_gen::{archive, GenConfig};
use weft::store::format::columns::unframe;

fn main() {
    let events: u64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(4_000_000);
    let (files, _) = archive(&GenConfig::new(8, events));
    let otf2 = files.total_bytes();
    let trace = weft::readers::otf2::read_archive("traces.otf2", &files).expect("reads");
    drop(files);
    let store = build(&trace, &BuildOptions::default());
    let raws: Vec<Vec<u8>> = store.tiles.iter().map(|(_, b)| unframe(b, 1, 1 << 30).expect("tile").1).collect();
    let raw: usize = raws.iter().map(Vec::len).sum();
    println!("{} events, OTF2 {otf2} bytes, raw columns {raw} bytes, {} tiles", trace.event_records, raws.len());
    let report = |name: &str, size: usize, c: f64, d: f64| {
        let mb = raw as f64 / 1e6;
        println!(
            "{name:<10} {size:>11} bytes ({:.3} of OTF2)  compress {:>7.0} MB/s  decompress {:>7.0} MB/s",
            size as f64 / otf2 as f64,
            mb / c,
            mb / d
        );
    };
    let t = Instant::now();
    let lz: Vec<Vec<u8>> = raws.iter().map(|r| lz4_flex::block::compress(r)).collect();
    let c = t.elapsed().as_secs_f64();
    let t = Instant::now();
    for (z, r) in lz.iter().zip(&raws) {
        assert_eq!(lz4_flex::block::decompress(z, r.len()).unwrap().len(), r.len());
    }
    report("lz4", lz.iter().map(Vec::len).sum(), c, t.elapsed().as_secs_f64());
    for level in [1, 6] {
        use std::io::{Read, Write};
        let t = Instant::now();
        let z: Vec<Vec<u8>> = raws
            .iter()
            .map(|r| {
                let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::new(level));
                e.write_all(r).unwrap();
                e.finish().unwrap()
            })
            .collect();
        let c = t.elapsed().as_secs_f64();
        let t = Instant::now();
        for (z, r) in z.iter().zip(&raws) {
            let mut out = Vec::with_capacity(r.len());
            flate2::read::DeflateDecoder::new(&z[..]).read_to_end(&mut out).unwrap();
            assert_eq!(out.len(), r.len());
        }
        report(&format!("deflate {level}"), z.iter().map(Vec::len).sum(), c, t.elapsed().as_secs_f64());
    }
}
