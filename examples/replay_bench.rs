//! Time the replay of OTF2 location logs (`Otf2Stream::replay_bytes`), what every MPI rank of `weft index`
//! does with every rank's log (`index::exchange`): each location decoded once to its log as bytes
//! (`Decoder::decode_bytes`), then replayed into a fresh stream keeping the receivers of the first half of the
//! locations (rank 0 of 2), several times; the median and the cost per logged record.
//!
//!     cargo run --release --example replay_bench -- DIR/traces.otf2 [RUNS]

use std::time::Instant;
use weft::readers::otf2::{archive_of_path, open_stream, StreamIndexing};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).ok_or("give an OTF2 anchor (X.otf2)")?;
    let runs: usize = std::env::args().nth(2).map_or(Ok(5), |s| s.parse())?;
    let (files, anchor) = archive_of_path(std::path::Path::new(&path)).ok_or("not an OTF2 archive")??;
    let stream = open_stream(&anchor, &files)?;
    let n = stream.location_count();
    let decoder = stream.decoder();
    // Each location's batches and what its read returned.
    let mut logs = Vec::with_capacity(n);
    let (mut bytes, mut records) = (0usize, 0u64);
    let t = Instant::now();
    for k in 0..n {
        let mut batches: Vec<Vec<u8>> = Vec::new();
        let mut intervals = Vec::new();
        let read = decoder
            .decode_bytes(k, &mut intervals, None, &mut |b| batches.push(b.to_vec()))?
            .ok_or("a location names a region the definitions lack")?;
        bytes += batches.iter().map(Vec::len).sum::<usize>();
        logs.push((batches, read));
    }
    let decode_s = t.elapsed().as_secs_f64();
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let mut s = open_stream(&anchor, &files)?;
        s.keep_receivers(0..(n / 2) as u32);
        let t = Instant::now();
        let mut sends = Vec::new();
        for (k, (batches, read)) in logs.iter().enumerate() {
            for b in batches {
                s.replay_bytes(k, &mut sends, b)?;
            }
            s.replay_end(k, read)?;
            sends.clear();
        }
        times.push(t.elapsed().as_secs_f64());
        let [sent, received] = s.end_counts();
        records = sent + received;
    }
    times.sort_by(f64::total_cmp);
    let median = times[times.len() / 2];
    println!("locations       {n}, logs {:.1} MB (decoded in {decode_s:.2} s)", bytes as f64 / 1e6);
    println!("replay          median {median:.3} s of {runs} (best {:.3} s)", times[0]);
    println!(
        "per send/recv   {:.1} ns ({records} sends and receives; the log's other records not counted)",
        median * 1e9 / records as f64
    );
    Ok(())
}
