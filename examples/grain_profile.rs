//! Writes a generated MIR task-stats profile of task-recursive Fibonacci (`samples::grains::fib_profile`) to a
//! file, for page benchmarks that need a large grain graph (tests/browser/bench/bench-grain-panel.mjs).
//!   cargo run --example grain_profile -- N CUTOFF CORES OUT.csv      (2^(CUTOFF+1) tasks)

use weft::samples::grains::fib_profile;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [n, cutoff, cores, out] = args.as_slice() else {
        return Err("usage: grain_profile N CUTOFF CORES OUT.csv".into());
    };
    let bytes = fib_profile(n.parse()?, cutoff.parse()?, cores.parse()?);
    std::fs::write(out, &bytes)?;
    println!("{out}: {} bytes, {} tasks", bytes.len(), 1u64 << (cutoff.parse::<u32>()? + 1));
    Ok(())
}
