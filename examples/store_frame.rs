//! `cargo run --release --example store_frame -- STORE [WIDTH]`: where the page's time goes when a store's
//! exact (level-0) slice is shown. Along `tests/browser/bench-store.mjs`'s zoom path (about the middle of the
//! run, 4x a step) it gathers each level-0 view's slice as the worker does, then times what the page's main
//! thread does with it: decoding the answer (`model::codec`), the layout, counters and overview of its
//! `TimelinePane` each on its own, then the page's path: `StorePane::receive_exact` and its steps (each
//! step's time, the worst), and the scenes of the view and four 40-px pans (the timeline's rects, the
//! flows' arrows). One JSON line per view. BENCHMARKS.md ("Store format 2", the page) cites it.

use std::path::Path;
use std::rc::Rc;
use std::time::Instant;
use weft::layouts::timeline::{TimelineLayout, TimelineMetrics};
use weft::model::codec;
use weft::scene::timeline::{region_colors, Overview, TimelineScene, TimelineView};
use weft::store::read::query::{plan, ExactSlice, Resolution, TileIndex};
use weft::store::Store;
use weft::views::store::StorePane;
use weft::views::Pane;

#[path = "common/folder.rs"]
mod folder;
use folder::Folder;

fn ms(t: Instant) -> f64 {
    (t.elapsed().as_secs_f64() * 1e4).round() / 10.0
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let (store, width) = match &args[..] {
        [_, s] => (s, 1280.0f32),
        [_, s, w] => (s, w.parse::<f32>()?),
        _ => return Err("usage: store_frame STORE [WIDTH]".into()),
    };
    let height = 660.0f32;
    let store = Store::open(Folder(Path::new(store)))?;
    let m = &store.manifest;
    let index = TileIndex::new(m);
    let skeleton = Rc::new(store.skeleton()?);
    let mid = m.span_ns as f64 / 2.0;
    let mut w = m.span_ns as f64;
    let mut exact = 0;
    while w > 1000.0 && exact < 4 {
        w /= 4.0;
        let mut pane = StorePane::new(skeleton.clone(), m.locations.lanes.clone().into(), width, height);
        pane.set_time_range(mid - w / 2.0, mid + w / 2.0);
        let Some(vp) = pane.request() else { continue };
        let p = plan(m, &index, &vp);
        if p.resolution != Resolution::Exact {
            continue;
        }
        exact += 1;
        let mut x = ExactSlice::new(&p);
        for &i in &p.tiles {
            x.add(&store.events_tile(&m.tiles[i])?);
        }
        let bytes = x.encode(&skeleton);
        let t = Instant::now();
        let slice = codec::decode_over(&bytes, &skeleton)?;
        let decode_ms = ms(t);
        let (n, messages) = (slice.intervals.len(), slice.messages.len());
        // The parts of show_exact, each on its own (what TimelinePane::new does).
        let t = Instant::now();
        let mut layout = TimelineLayout::new(&slice, TimelineMetrics::default());
        let layout_ms = ms(t);
        let t = Instant::now();
        let _counters = weft::views::counters::CounterTracks::new(&slice, &mut layout);
        let counters_ms = ms(t);
        let colors = region_colors(&slice);
        let t = Instant::now();
        let _overview = Overview::new(&slice, &colors);
        let overview_ms = ms(t);
        let ts = TimelineScene { trace: &slice, layout: &layout, colors: &colors };
        let mut view = TimelineView::fit(&slice, width, height);
        (view.t0_ns, view.t1_ns) = (mid - w / 2.0, mid + w / 2.0);
        let t = Instant::now();
        let flows = ts.visible_flows(&view).len();
        let flows_ms = ms(t);
        let t = Instant::now();
        let sc = ts.build(&view, None);
        let build_ms = ms(t);
        // The page's path: the answer made drawable in steps (`StorePane::receive_exact`, `step`), then the
        // scenes of the view and its pans.
        drop(slice);
        let t = Instant::now();
        pane.receive_exact(bytes.clone(), p.t0_ns, p.t1_ns, p.locations.clone(), Vec::new());
        let mut steps = vec![ms(t)];
        loop {
            let t = Instant::now();
            let done = pane.step()?;
            steps.push(ms(t));
            if done {
                break;
            }
        }
        let show_ms: f64 = steps.iter().sum();
        let worst_step_ms = steps.iter().copied().fold(0.0, f64::max);
        // STORE_FRAME_REPEAT=N: build the first view's scene N times more (for a profiler).
        let repeat: usize = std::env::var("STORE_FRAME_REPEAT").ok().and_then(|r| r.parse().ok()).unwrap_or(0);
        for _ in 0..if exact == 1 { repeat } else { 0 } {
            std::hint::black_box(pane.scene());
        }
        let mut scenes = Vec::new();
        for k in 0..5 {
            if k > 0 {
                pane.pan(40.0);
            }
            let t = Instant::now();
            let _ = pane.scene();
            scenes.push(ms(t));
        }
        let j = serde_json::json!({
            "window_ns": w.round(), "tiles": p.tiles.len(), "answer_bytes": bytes.len(), "intervals": n,
            "messages": messages, "decode_ms": decode_ms, "steps": steps, "steps_ms": show_ms,
            "worst_step_ms": worst_step_ms, "layout_ms": layout_ms,
            "counters_ms": counters_ms, "overview_ms": overview_ms, "scene_ms": scenes, "timeline_build_ms": build_ms,
            "visible_flows_ms": flows_ms, "flows_drawn": flows, "rects": sc.rects.len(), "lines": sc.lines.len(),
        });
        println!("{j}");
    }
    Ok(())
}
