//! `cargo run --release --example store_view -- STORE [FRACTION]`: what the page's store worker fetches for a
//! level-0 view of every location a quarter window wide at FRACTION of the run (default 0.5), and for
//! particle playback of one window from there: the tiles the plans name (`store::query::plan`,
//! `particle_plan`), their file bytes, the bytes their decoded tiles hold (what the worker's cache counts), the
//! intervals in the answer, as one JSON line. BENCHMARKS.md ("Store format 2") compares stores of format 1
//! and 2 with it.

use std::path::Path;
use weft::store::read::query::{particle_plan, plan, Decoded, ExactSlice, Resolution, TileIndex, Viewport};
use weft::store::Store;

#[path = "common/folder.rs"]
mod folder;
use folder::Folder;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let (store, fraction) = match &args[..] {
        [_, s] => (s, 0.5),
        [_, s, f] => (s, f.parse::<f64>()?),
        _ => return Err("usage: store_view STORE [FRACTION]".into()),
    };
    let store = Store::open(Folder(Path::new(store)))?;
    let m = &store.manifest;
    let index = TileIndex::new(m);
    let tl = &m.tiling;
    let t0 = (m.span_ns as f64 * fraction).floor();
    let vp = Viewport {
        t0_ns: t0,
        t1_ns: t0 + (tl.window_ns / 4) as f64,
        locations: 0..m.locations.process.len() as u32,
        width_px: 1000.0,
        series: 0..0,
    };
    let started = std::time::Instant::now();
    let p = plan(m, &index, &vp);
    if p.resolution != Resolution::Exact {
        return Err(format!("the view is drawn from {:?}, not level 0", p.resolution).into());
    }
    let (mut bytes, mut decoded) = (0u64, 0usize);
    let mut x = ExactSlice::new(&p);
    for &i in &p.tiles {
        let tile = store.events_tile(&m.tiles[i])?;
        bytes += m.tiles[i].bytes;
        x.add(&tile);
        decoded += Decoded::Events(tile).bytes();
    }
    let ms = started.elapsed().as_secs_f64() * 1e3;
    let (ptiles, _) = particle_plan(m, &index, t0 as u64, t0 as u64 + tl.window_ns, 0);
    let pbytes: u64 = ptiles.iter().map(|&i| m.tiles[i].bytes).sum();
    let events_tiles = m.tiles.iter().filter(|e| e.path.starts_with("e/"));
    let j = serde_json::json!({
        "version": m.version, "windows": tl.windows, "window_ns": tl.window_ns, "blocks": tl.blocks,
        "store_events_tiles": events_tiles.clone().count(), "store_events_bytes": events_tiles.map(|e| e.bytes).sum::<u64>(),
        "store_bytes": m.tiles.iter().map(|e| e.bytes).sum::<u64>(),
        "view_t0_ns": p.t0_ns, "view_t1_ns": p.t1_ns, "view_tiles": p.tiles.len(), "view_bytes": bytes,
        "view_decoded_bytes": decoded, "view_intervals": x.intervals(), "view_ms": (ms * 10.0).round() / 10.0,
        "playback_window_particle_tiles": ptiles.len(), "playback_window_particle_bytes": pbytes,
    });
    println!("{j}");
    Ok(())
}
