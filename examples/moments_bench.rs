//! Benchmark of issue 4: moments of utilization for 16,384 locations x 1,000,000 intervals in total (built
//! through TraceBuilder at epoch-nanosecond times, with MPI calls nested in the work so the compute definition
//! subtracts something), then the moment view and the utilization Gantt chart at 16,384 rows, and the moments
//! pane's step of zoom or pan (the moments of the visible window recomputed from the busy intervals it holds).
//!
//!     cargo run --release --example moments_bench [-- --svg DIR]
//!
//! Prints best-of-5 wall times. With `--svg DIR`, also writes the two views as SVG for a look.

use std::time::{Duration, Instant};
use weft::analyses::busy::{BusyDefinition, BusyIntervals};
use weft::analyses::moments::{moments, moments_of_busy, sort_moments, MomentKey};
use weft::model::{LocationId, Trace};
use weft::samples::utilization::utilization_trace;
use weft::scene::moments::{build_moment_view, ColorEncoding, MomentViewOptions, Viewport};
use weft::scene::utilization::{build_utilization, UtilizationOptions};
use weft::scene::Scene;
use weft::views::moments::MomentsPane;
use weft::views::Pane;

const LOCATIONS: i64 = 16_384;
const INTERVALS: usize = 1_000_000;

fn generate() -> Trace {
    utilization_trace(LOCATIONS, INTERVALS)
}

fn best_of<T>(n: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut best = Duration::MAX;
    let mut out = None;
    for _ in 0..n {
        let t = Instant::now();
        let v = f();
        best = best.min(t.elapsed());
        out = Some(v);
    }
    (best, out.expect("n > 0"))
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}

fn instances(s: &Scene) -> String {
    format!("{} rects, {} lines, {} labels", s.rects.len(), s.lines.len(), s.labels.len())
}

fn main() {
    let svg_dir = std::env::args().skip_while(|a| a != "--svg").nth(1);
    let t = Instant::now();
    let trace = generate();
    println!(
        "generated {} locations, {} intervals through TraceBuilder in {}",
        trace.locations.len(),
        trace.intervals.len(),
        ms(t.elapsed())
    );
    let def = BusyDefinition::Compute;
    let (d, rows) = best_of(5, || moments(&trace, &def, None));
    println!("moments, compute, streaming (busy + moments):   {}", ms(d));
    let (d, busy) = best_of(5, || BusyIntervals::compute(&trace, &def));
    println!("busy intervals stored (for the Gantt chart):    {}  ({} busy intervals)", ms(d), busy.total_spans());
    let (d2, rows2) = best_of(5, || moments_of_busy(&trace, &busy, None));
    println!("moments from stored busy intervals:             {}", ms(d2));
    assert_eq!(rows, rows2);
    let (d, _) = best_of(5, || moments(&trace, &BusyDefinition::Any, None));
    println!("moments, any, streaming:                        {}", ms(d));
    let (d, _) = best_of(5, || moments(&trace, &BusyDefinition::Pattern("MPI_*".into()), None));
    println!("moments, pattern 'MPI_*', streaming:            {}", ms(d));

    let mut sorted = rows.clone();
    sort_moments(&mut sorted, MomentKey::M1);
    let mut arranged = busy.clone();
    let (d, _) = best_of(5, || {
        arranged = busy.clone();
        arranged.arrange(sorted.iter().map(|m| LocationId(m.location)))
    });
    println!("busy intervals arranged in m1 order (clone + arrange): {}", ms(d));
    let color = ColorEncoding { name: "m0".into(), values: rows.iter().map(|m| m.m0_ns as f64).collect() };
    let opts = MomentViewOptions {
        definition: def.describe(),
        span_ns: (0, trace.span_ns),
        color: Some(color),
        empty_hint: def.empty_hint(),
        axis_ns: None,
        clusters: None,
    };
    let gopts = UtilizationOptions { definition: def.describe(), empty_hint: def.empty_hint() };
    let fit = Viewport::fit(trace.span_ns, sorted.len(), 1200.0, 900.0);
    let tall = Viewport { row_height_px: 16.0, first_row: 8000.0, ..fit };
    let zoom = Viewport {
        t0_ns: 0.4 * trace.span_ns as f64,
        t1_ns: 0.45 * trace.span_ns as f64,
        row_height_px: 2.0,
        first_row: 100.0,
        ..fit
    };
    for (name, view) in [
        ("all 16,384 rows in 836 px (merged)", fit),
        ("16 px rows, scrolled", tall),
        ("zoomed 5% of time, 2 px rows", zoom),
    ] {
        let (dm, sm) = best_of(5, || build_moment_view(&sorted, &view, &opts));
        let (dg, sg) = best_of(5, || build_utilization(&sorted, &arranged, &view, &gopts));
        println!("frame, {name}: moment view {} ({}); Gantt {} ({})", ms(dm), instances(&sm), ms(dg), instances(&sg));
        if let (Some(dir), true) = (&svg_dir, name.starts_with("all")) {
            std::fs::create_dir_all(dir).expect("create the SVG folder");
            std::fs::write(format!("{dir}/moments.svg"), weft::scene::svg::to_svg(&sm)).expect("write SVG");
            std::fs::write(format!("{dir}/utilization.svg"), weft::scene::svg::to_svg(&sg)).expect("write SVG");
        }
    }

    // The moments pane follows the visible window: each zoom or pan step recomputes every location's moments
    // from the busy intervals it holds, clipped to the window (moved by 1 ns a run, so each run recomputes).
    let span = trace.span_ns as f64;
    let mut pane = MomentsPane::new(std::rc::Rc::new(trace), 1200.0, 900.0);
    let mut k = 0.0;
    for (name, a, b) in [("90%", 0.05, 0.95), ("50%", 0.25, 0.75), ("5%", 0.4, 0.45)] {
        let (d, _) = best_of(5, || {
            k += 1.0;
            pane.set_time_range(a * span + k, b * span + k);
        });
        println!("moments of the visible window, {name} of the span (a zoom step): {}", ms(d));
    }
}
