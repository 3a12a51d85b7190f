//! Write a generated MPI+OpenMP-like Chrome trace of about N MB, or with `--kineto` a PyTorch/Kineto-shaped one
//! (CPU ops, kernel launches, GPU kernels, `ac2g` flows written end first):
//! `cargo run --release --example gen_chrome -- OUT.json [MB] [--gzip] [--kineto]`.

use std::io::Write;
use std::time::Instant;
use weft::samples::{ChromeSample, KinetoSample};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let out = args.first().ok_or("usage: gen_chrome OUT.json [MB] [--gzip] [--kineto]")?;
    let mb: f64 = args.get(1).filter(|a| !a.starts_with("--")).map(|s| s.parse()).transpose()?.unwrap_or(100.0);
    let gzip = args.iter().any(|a| a == "--gzip");
    let kineto = args.iter().any(|a| a == "--kineto");
    let t = Instant::now();
    let bytes = if kineto {
        KinetoSample::sized((mb * 1e6) as usize, 7).generate()
    } else {
        ChromeSample::sized((mb * 1e6) as usize, 7).generate()
    };
    let secs = t.elapsed().as_secs_f64();
    // One event per line, each starting with its phase.
    let events = bytes.split(|&c| c == b'\n').filter(|l| l.starts_with(b"{\"ph\"")).count();
    let mut f = std::fs::File::create(out)?;
    if gzip {
        let mut enc = flate2::write::GzEncoder::new(f, flate2::Compression::fast());
        enc.write_all(&bytes)?;
        enc.finish()?;
    } else {
        f.write_all(&bytes)?;
    }
    println!(
        "wrote {out}: {:.1} MB, {events} events, generated in {:.3} s ({:.0} MB/s)",
        bytes.len() as f64 / 1e6,
        secs,
        bytes.len() as f64 / 1e6 / secs
    );
    Ok(())
}
