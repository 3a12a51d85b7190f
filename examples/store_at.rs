//! `cargo run --example store_at -- STORE LOCATION TIME_NS`: every interval of LOCATION holding TIME_NS, read
//! from the store's whole decode (`Store::to_trace`, not the viewport queries), as JSON lines
//! `{region, start_ns, dur_ns, depth}`. The browser test checks the page's hover at level 0 against it.

use std::path::Path;
use weft::store::Store;

#[path = "common/folder.rs"]
mod folder;
use folder::Folder;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let [_, store, loc, t] = &args[..] else { return Err("usage: store_at STORE LOCATION TIME_NS".into()) };
    let (loc, t): (usize, u64) = (loc.parse()?, t.parse()?);
    let trace = Store::open(Folder(Path::new(store)))?.to_trace()?;
    let iv = &trace.intervals;
    for i in trace.location_intervals[loc].clone() {
        if iv.start_ns[i] <= t && t <= iv.start_ns[i] + iv.dur_ns[i] {
            let j = serde_json::json!({
                "region": trace.region_name(iv.region[i]), "start_ns": iv.start_ns[i], "dur_ns": iv.dur_ns[i],
                "depth": iv.depth[i],
            });
            println!("{j}");
        }
    }
    Ok(())
}
