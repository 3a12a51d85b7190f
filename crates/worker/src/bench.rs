//! Benchmarks that run inside the browser (tests/browser/bench/bench.html), so BENCHMARKS.md can give wasm figures
//! measured in chromium beside the native ones. Each runs the same library code as the native example.

use serde_json::json;
use wasm_bindgen::prelude::*;
use weft_analyses::busy::{BusyDefinition, BusyIntervals};
use weft_analyses::execgraph::build;
use weft_analyses::moments::{moments_of_busy, sort_moments, MomentKey};
use weft_model::LocationId;
use weft_readers::archive::{read_archive_bytes, DEFAULT_BUDGET_BYTES};
use weft_samples::execgraph::{random, simulate};
use weft_samples::utilization::utilization_trace;
use weft_view::layouts::execgraph::{layout, Scale};
use weft_view::scene::moments::{build_moment_view, MomentViewOptions, Viewport};
use weft_view::scene::utilization::{build_utilization, UtilizationOptions};

fn now_ms() -> f64 {
    js_sys::Date::now()
}

fn perf_ms() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map_or_else(now_ms, |p| p.now())
}

fn best_of<T>(runs: u32, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut best = f64::INFINITY;
    let mut out = None;
    for _ in 0..runs.max(1) {
        let t = perf_ms();
        let v = f();
        best = best.min(perf_ms() - t);
        out = Some(v);
    }
    (best, out.expect("at least one run"))
}

fn js(v: serde_json::Value) -> JsValue {
    serde::Serialize::serialize(&v, &serde_wasm_bindgen::Serializer::json_compatible()).unwrap_or(JsValue::NULL)
}

/// Moments of utilization (compute definition) for `locations` x `intervals`, and both views at those rows.
#[wasm_bindgen]
pub fn bench_moments(locations: u32, intervals: u32, runs: u32) -> JsValue {
    let trace = utilization_trace(locations as i64, intervals as usize);
    let (analysis_ms, (busy, rows)) = best_of(runs, || {
        let mut busy = BusyIntervals::compute(&trace, &BusyDefinition::Compute);
        let mut rows = moments_of_busy(&trace, &busy, None);
        sort_moments(&mut rows, MomentKey::Location);
        busy.arrange(rows.iter().map(|m| LocationId(m.location)));
        (busy, rows)
    });
    let view = Viewport::fit(trace.span_ns, rows.len(), 800.0, 900.0);
    let opts = MomentViewOptions { definition: String::new(), span_ns: (0, trace.span_ns), ..Default::default() };
    let (moment_view_ms, mv) = best_of(runs, || build_moment_view(&rows, &view, &opts));
    let (gantt_ms, g) = best_of(runs, || build_utilization(&rows, &busy, &view, &UtilizationOptions::default()));
    js(json!({
        "locations": rows.len(), "intervals": trace.intervals.len(), "analysis_ms": analysis_ms,
        "moment_view_ms": moment_view_ms, "moment_view_rects": mv.rects.len(),
        "gantt_ms": gantt_ms, "gantt_rects": g.rects.len(),
    }))
}

/// Execution graph of a random fork/join program of `threads` threads: graph building and layout.
#[wasm_bindgen]
pub fn bench_execgraph(threads: u32, runs: u32) -> Result<JsValue, JsValue> {
    let events = simulate(&random(threads as usize, 42), "random");
    let (build_ms, g) = best_of(runs, || build(&events));
    let g = g.map_err(|e| JsValue::from_str(&e.to_string()))?;
    let (layout_ms, l) = best_of(runs, || layout(&g, Scale::True));
    Ok(js(
        json!({"threads": g.threads.len(), "nodes": g.nodes.len(), "build_ms": build_ms, "layout_ms": layout_ms, "crossings": l.crossings}),
    ))
}

/// Read an OTF2 archive packed as zip/tar/tar.gz, whole (unpacking included).
#[wasm_bindgen]
pub fn bench_read_archive(bytes: &[u8], runs: u32) -> Result<JsValue, JsValue> {
    let (read_ms, trace) = best_of(runs, || read_archive_bytes("bench", bytes, DEFAULT_BUDGET_BYTES));
    let trace = trace.map_err(|e| JsValue::from_str(&e.to_string()))?;
    Ok(js(
        json!({"bytes": bytes.len(), "events": trace.event_records, "intervals": trace.intervals.len(), "read_ms": read_ms}),
    ))
}

/// Grain graph of a MIR task-stats profile (`bytes`, or when empty a generated fork-join profile of
/// `nodes` nodes): reading with the analysis, then the layout.
#[wasm_bindgen]
pub fn bench_grains(bytes: &[u8], nodes: u32, runs: u32) -> Result<JsValue, JsValue> {
    use weft_analyses::grains::{GrainAnalysis, Thresholds};
    use weft_view::layouts::grains::{layout as grain_layout, LayoutParams};
    let generated;
    let bytes = if bytes.is_empty() {
        generated = weft_samples::grains::random_profile(nodes as usize, 42, 48);
        &generated[..]
    } else {
        bytes
    };
    let (analysis_ms, a) = best_of(runs, || {
        let (input, _) = weft_readers::open("bench.csv", bytes.into())
            .and_then(|i| i.into_grains("bench.csv"))
            .map_err(|e| e.to_string())?;
        GrainAnalysis::new(&input, Thresholds::paper()).map_err(|e| e.to_string())
    });
    let a = a.map_err(|e| JsValue::from_str(&e))?;
    let p = LayoutParams::default();
    let (layout_ms, l) = best_of(runs.max(5), || grain_layout(&a.graph, &p));
    Ok(js(json!({
        "grains": a.graph.grains(), "nodes": a.graph.nodes(), "read_and_analyse_ms": analysis_ms,
        "layout_ms": layout_ms, "from_nesting": l.from_nesting,
    })))
}

/// The aggregation's four phases (reduction, normalization, propagation, separation for one problem view) on
/// the generated fork-join profile of `nodes` nodes (the native example `aggregate_bench`'s graph).
#[wasm_bindgen]
pub fn bench_aggregate(nodes: u32, runs: u32) -> Result<JsValue, JsValue> {
    use weft_analyses::aggregate::{normalize, propagate, reduce, separate};
    use weft_analyses::grains::{GrainAnalysis, Thresholds};
    let bytes = weft_samples::grains::random_profile(nodes as usize, 42, 48);
    let (input, _) = weft_readers::open("bench.csv", (&bytes).into())
        .and_then(|i| i.into_grains("bench.csv"))
        .map_err(|e| JsValue::from_str(&e.to_string()))?;
    let a = GrainAnalysis::new(&input, Thresholds::paper()).map_err(|e| JsValue::from_str(&e.to_string()))?;
    let view = a.problems.iter().position(|p| p.count > 0).unwrap_or(0);
    let (total_ms, groups) = best_of(runs, || {
        let r = reduce::reduce(&a.graph);
        let tree = normalize::normalize(&r.tree);
        let _metrics = propagate::propagate(&a, &tree);
        separate::separate(&a, &tree, view).len()
    });
    let (reduce_ms, r) = best_of(runs, || reduce::reduce(&a.graph));
    let (normalize_ms, tree) = best_of(runs, || normalize::normalize(&r.tree));
    let (propagate_ms, _) = best_of(runs, || propagate::propagate(&a, &tree));
    let (separate_ms, _) = best_of(runs, || separate::separate(&a, &tree, view));
    Ok(js(json!({
        "nodes": a.graph.nodes(), "edges": a.graph.edges(), "grains": a.graph.grains(), "separated_nodes": groups,
        "four_phases_ms": total_ms, "reduce_ms": reduce_ms, "normalize_ms": normalize_ms,
        "propagate_ms": propagate_ms, "separate_ms": separate_ms,
    })))
}

/// The particle animation's CPU work per frame in wasm: 16,384 processes, about 100,000 live particles (the
/// native example `particles_bench` with the same trace and playback). Returns per-frame times.
#[wasm_bindgen]
pub fn bench_particles(span_ns: u32, frames: u32) -> JsValue {
    use weft_analyses::particles::{EventSelection, LiveWindow, ParticleEvents, Playback};
    use weft_view::scene::particles::{ParticleScene, ParticleStyle};
    let trace = weft_samples::particles::bench_trace(16_384, span_ns as u64, 0x5EED);
    let (build_ms, ev) = best_of(1, || ParticleEvents::build(&trace, &EventSelection::Communication));
    let scene = ParticleScene::new(&ev, 1600.0, 900.0, ParticleStyle { particle_px: 3.0, ..Default::default() });
    let play = Playback { step_ns: 540, interval_ms: 1000.0 / 60.0, fade_s: Playback::FADE_S };
    let mut w = LiveWindow::new(play.fade_ns());
    let mut now = span_ns as u64 / 3;
    w.seek(&ev, now);
    let (mut faded, mut particles, mut splats) = (Vec::new(), Vec::new(), Vec::new());
    let mut times = Vec::new();
    let mut live = 0usize;
    for _ in 0..frames.max(1) {
        now += play.step_ns;
        let t = perf_ms();
        faded.clear();
        w.advance(&ev, now, &mut faded);
        scene.particles(&ev, &w, &mut particles);
        splats.clear();
        scene.splats(&ev, &faded, &mut splats);
        times.push(perf_ms() - t);
        live += particles.len();
    }
    times.sort_by(f64::total_cmp);
    let n = times.len();
    js(json!({
        "processes": 16_384, "events": ev.len(), "index_build_ms": build_ms, "frames": n,
        "live_mean": live / n, "frame_median_ms": times[n / 2], "frame_mean_ms": times.iter().sum::<f64>() / n as f64,
        "frame_p99_ms": times[n * 99 / 100], "frame_max_ms": times[n - 1],
    }))
}

/// What the worker does with a dropped trace, phase by phase (best of `runs` each): read (sniffed once,
/// whole), the summary, the moments bundle, and the encoding for the page. `WorkerSession::finish`'s time is
/// their sum plus the chunked feeding (`bench=import`).
#[wasm_bindgen]
pub fn bench_trace_phases(bytes: &[u8], runs: u32) -> Result<JsValue, JsValue> {
    use weft_analyses::moments_bundle::MomentsBundle;
    use weft_analyses::summary::summarize;
    let (read_ms, trace) =
        best_of(runs, || weft_readers::open("bench", bytes.into()).and_then(|i| i.into_trace("bench")));
    let trace = trace.map_err(|e| JsValue::from_str(&e.to_string()))?;
    let (summary_ms, _) = best_of(runs, || serde_json::to_string(&summarize(&trace, 10)).unwrap_or_default());
    let (moments_ms, _) = best_of(runs, || MomentsBundle::compute(&trace, &BusyDefinition::Compute).encode());
    let (encode_ms, model) = best_of(runs, || weft_model::codec::encode(&trace));
    Ok(js(json!({
        "bytes": bytes.len(), "events": trace.event_records, "intervals": trace.intervals.len(),
        "read_ms": read_ms, "summary_ms": summary_ms, "moments_ms": moments_ms, "encode_ms": encode_ms,
        "encoded_bytes": model.len(),
    })))
}

/// The HPCToolkit (`format` "hpctoolkit") or Projections ("projections") reader on a trace of about `mb` MB
/// generated here (`samples::hpctoolkit_gen`, `projections_gen`): the read alone, best of `runs`.
#[wasm_bindgen]
pub fn bench_folder_format(format: &str, mb: f64, runs: u32) -> Result<JsValue, JsValue> {
    use weft_readers::{hpctoolkit, otf2::MemoryFiles, projections};
    let err = |e: weft_readers::ReadError| JsValue::from_str(&e.to_string());
    let bytes = (mb * 1e6) as u64;
    let mut files = MemoryFiles::new();
    let records = match format {
        "hpctoolkit" => {
            let db = weft_samples::hpctoolkit_gen::generate(&weft_samples::hpctoolkit_gen::HpctkSpec::of_size(bytes));
            for (n, b) in db.files {
                files.insert(n, b);
            }
            db.samples
        }
        "projections" => {
            let g = weft_samples::projections_gen::generate(&weft_samples::projections_gen::ProjSpec::of_size(bytes));
            for (n, b) in g.files {
                files.insert(&n, b);
            }
            g.records.iter().sum()
        }
        _ => return Err(JsValue::from_str("format: hpctoolkit or projections")),
    };
    let size = files.total_bytes();
    let (read_ms, trace) = best_of(runs, || match format {
        "hpctoolkit" => hpctoolkit::find(&files).map(|f| hpctoolkit::read_files("bench", &files, &f)),
        _ => projections::find(&files).map(|f| projections::read_files("bench", &files, &f)),
    });
    let trace = trace.ok_or_else(|| JsValue::from_str("no trace generated"))?.map_err(err)?;
    Ok(js(json!({
        "format": format, "bytes": size, "records": records, "intervals": trace.intervals.len(),
        "read_ms": read_ms, "mb_per_s": size as f64 / 1e6 / (read_ms / 1000.0),
    })))
}
