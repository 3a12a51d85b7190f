//! Benchmark of issue 5: CPU time per animation frame of the particle view with 16,384 processes and about
//! 100,000 live particles (running plus fading), for traces of two sizes to show that a frame's cost follows
//! the live window, not the trace. A frame is what the page does per animation step: advance the window by one
//! data time step (collecting the faded events), compute the live particles' instances and the splats.
//!
//!     cargo run --release --example particles_bench [-- --svg DIR]
//!
//! Prints the index build, a seek, and frame times (mean, median, p99, max over 600 frames). With `--svg DIR`
//! writes a snapshot of the frame with its particles, and the pattern sample's snapshots, for a look.

use std::time::{Duration, Instant};
use weft::analyses::particles::{EventSelection, LiveWindow, ParticleEvents, Playback};
use weft::samples::particles::bench_trace;
use weft::scene::particles::{slot_labels, snapshot, ParticleScene, ParticleStyle};

const PROCESSES: u32 = 16_384;
const FRAMES: usize = 600;

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1e3)
}

fn run(span_ns: u64, svg: Option<&str>) {
    let t = Instant::now();
    let trace = bench_trace(PROCESSES, span_ns, 0x5EED);
    let gen = t.elapsed();
    let t = Instant::now();
    let ev = ParticleEvents::build(&trace, &EventSelection::Communication);
    let build = t.elapsed();
    let scene = ParticleScene::new(&ev, 1600.0, 900.0, ParticleStyle { particle_px: 3.0, ..Default::default() });
    // A step of 540 ns every 1/60 s fades a particle over 65 us of data time: about 100,000 live particles.
    let play = Playback { step_ns: 540, interval_ms: 1000.0 / 60.0, fade_s: Playback::FADE_S };
    let mut w = LiveWindow::new(play.fade_ns());
    let start = span_ns / 3;
    let t = Instant::now();
    w.seek(&ev, start);
    let seek = t.elapsed();
    let (mut faded, mut particles, mut splats) = (Vec::new(), Vec::new(), Vec::new());
    let mut times = Vec::with_capacity(FRAMES);
    let mut live = Vec::with_capacity(FRAMES);
    let mut now = start;
    for _ in 0..FRAMES {
        now += play.step_ns;
        let t = Instant::now();
        faded.clear();
        w.advance(&ev, now, &mut faded);
        scene.particles(&ev, &w, &mut particles);
        splats.clear();
        scene.splats(&ev, &faded, &mut splats);
        times.push(t.elapsed());
        live.push(particles.len());
    }
    times.sort();
    let mean = times.iter().sum::<Duration>() / FRAMES as u32;
    let live_mean = live.iter().sum::<usize>() / FRAMES;
    println!(
        "{} processes, {} events ({:.1} M), span {:.1} ms: trace generated in {}, index built in {}, seek in {}",
        PROCESSES,
        ev.len(),
        ev.len() as f64 / 1e6,
        span_ns as f64 / 1e6,
        ms(gen),
        ms(build),
        ms(seek)
    );
    println!(
        "  frame (advance + instances + splats), {} live particles on average ({}..{}): mean {}, median {}, p99 {}, max {}",
        live_mean,
        live.iter().min().unwrap_or(&0),
        live.iter().max().unwrap_or(&0),
        ms(mean),
        ms(times[FRAMES / 2]),
        ms(times[FRAMES * 99 / 100]),
        ms(times[FRAMES - 1])
    );
    if let Some(dir) = svg {
        let frame = scene.frame(&ev, &slot_labels(&trace, &ev));
        let path = format!("{dir}/particles-bench-{}.svg", ev.len());
        std::fs::write(&path, weft::scene::svg::to_svg(&snapshot(frame, &particles))).expect("write svg");
        println!("  wrote {path}");
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let svg = args.iter().position(|a| a == "--svg").and_then(|i| args.get(i + 1)).map(String::as_str);
    for span_ns in [1_000_000, 6_000_000] {
        run(span_ns, svg);
    }
    if let Some(dir) = svg {
        patterns(dir);
    }
}

/// Snapshots of the pattern sample: the horizontal line, the logarithmic curve, the group of 8 in phase 1.
fn patterns(dir: &str) {
    use weft::samples::particles::{pattern::*, patterns_json};
    let json = patterns_json(64, 8);
    let trace = weft::readers::open("patterns.json", (&json).into())
        .and_then(|i| i.into_trace("patterns.json"))
        .expect("pattern sample reads");
    let ev = ParticleEvents::build(&trace, &EventSelection::Communication);
    let style = ParticleStyle { segment_multiple: Some(8), ..Default::default() };
    let scene = ParticleScene::new(&ev, 1000.0, 500.0, style);
    let mut particles = Vec::new();
    let times = [
        ("sync", SYNC_NS + SYNC_DUR_NS + 20_000),
        ("delay", DELAY_NS + 450_000),
        ("group", GROUP_NS + PHASE_NS + 5 * BURST_NS + 30_000),
    ];
    for (name, t) in times {
        let mut w = LiveWindow::new(40_000);
        w.seek(&ev, t);
        scene.particles(&ev, &w, &mut particles);
        let frame = scene.frame(&ev, &slot_labels(&trace, &ev));
        let path = format!("{dir}/particles-{name}.svg");
        std::fs::write(&path, weft::scene::svg::to_svg(&snapshot(frame, &particles))).expect("write svg");
        println!("wrote {path}");
    }
}
