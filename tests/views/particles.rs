//! The particle view: the animation advances by the injected frame time only (`tick`), never more than a
//! few steps a frame, and not while paused; seeking moves the live window; hovering a running particle
//! (paused) names its event, and the particle is in the layer the renderer draws. Playback starts at the
//! first event; the stacked timeline zooms and pans as the timeline does; the legend gives each entry its own
//! colour and groups the tail; segments carry process names.

use super::{f, round_trips};
use crate::common::read::read_bytes;
use std::rc::Rc;
use weft::model::Trace;
use weft::samples::particles::patterns_json;
use weft::views::particles::ParticlesPane;
use weft::views::Pane;

fn trace() -> Rc<Trace> {
    Rc::new(read_bytes("patterns.json", &patterns_json(16, 2)).unwrap())
}

fn t_ns(p: &ParticlesPane) -> u64 {
    p.state()["t_ns"].as_u64().unwrap()
}

#[test]
fn the_animation_advances_by_injected_time_only() {
    let mut p = ParticlesPane::new(trace(), 1200.0, 700.0);
    let s = p.state();
    let (step, interval) = (s["step_ns"].as_u64().unwrap(), f(&s, "interval_ms"));
    let t0 = s["first_event_ns"].as_u64().unwrap();
    assert_eq!(t_ns(&p), t0);
    p.configure("play", "").unwrap();
    let _ = (p.scene(), p.particle_layer());
    assert_eq!(t_ns(&p), t0, "drawing does not advance the animation");
    p.configure("tick", "6000").unwrap();
    assert_eq!(t_ns(&p), t0 + step, "the first frame owes one interval: one step");
    p.configure("tick", "6000").unwrap();
    assert_eq!(t_ns(&p), t0 + step, "no time, no step");
    p.configure("tick", &(6000.0 + 2.0 * interval + 0.5).to_string()).unwrap();
    assert_eq!(t_ns(&p), t0 + 3 * step, "two intervals, two steps");
    p.configure("tick", &(6000.0 + 2.0 * interval + 1e6).to_string()).unwrap();
    assert_eq!(t_ns(&p), t0 + 7 * step, "after a stall the animation slows (4 steps at most), never jumps");
    p.configure("pause", "").unwrap();
    p.configure("tick", "1e9").unwrap();
    assert_eq!(t_ns(&p), t0 + 7 * step, "paused: a frame does not advance");
    p.configure("step", "").unwrap();
    assert_eq!(t_ns(&p), t0 + 8 * step, "a step button press is one step");
    assert!(p.configure("tick", "later").is_err());
}

#[test]
fn hover_at_a_running_particle_names_its_event() {
    let mut p = ParticlesPane::new(trace(), 1200.0, 700.0);
    let span = p.state()["span_ns"].as_u64().unwrap();
    // The first of some times at which several particles run.
    let running = (1..20)
        .find_map(|k| {
            let t = span * k / 20;
            p.configure("seek_ns", &t.to_string()).unwrap();
            assert_eq!(t_ns(&p), t);
            let running = p.state()["running"].as_array().unwrap().clone();
            (running.len() >= 4).then_some(running)
        })
        .expect("particles run at some time");
    let layer: Vec<(f32, f32, f32)> =
        p.particle_layer().unwrap().particles.iter().map(|q| (q.x, q.y, q.size)).collect();
    for r in &running {
        let (x, y) = (f(r, "x") as f32, f(r, "y") as f32);
        assert!(
            layer.iter().any(|&(px, py, _)| (px - x).abs() < 0.01 && (py - y).abs() < 0.01),
            "the renderer's layer has a particle at ({x}, {y})"
        );
        let h = p.hover(x, y).expect("something is under a running particle");
        let e = h.detail["event"].as_u64().unwrap();
        if e != r["event"]["event"].as_u64().unwrap() {
            // Particles may overlap: then the one named is drawn over this point too.
            let other = running.iter().find(|o| o["event"]["event"] == e).expect("the named event runs");
            let d = ((f(other, "x") - x as f64).powi(2) + (f(other, "y") - y as f64).powi(2)).sqrt();
            assert!(d < 12.0, "event {e} is under ({x}, {y})");
        } else {
            assert_eq!(h.detail, r["event"]);
            assert_eq!(h.title, r["event"]["call"].as_str().unwrap());
        }
    }
    p.configure("play", "").unwrap();
    let r = &running[0];
    assert!(p.hover(f(r, "x") as f32, f(r, "y") as f32).is_none(), "no details while particles move");
}

#[test]
fn restore_puts_back_the_time_and_the_playback_options() {
    let mut p = ParticlesPane::new(trace(), 1200.0, 700.0);
    let span = p.state()["span_ns"].as_u64().unwrap();
    p.configure("step_ns", "2500").unwrap();
    p.configure("interval_ms", "40").unwrap();
    p.configure("min_opacity", "0.5").unwrap();
    p.configure("seek_ns", &(span / 2).to_string()).unwrap();
    round_trips(&p, &mut ParticlesPane::new(trace(), 1200.0, 700.0));
    let before = p.state();
    p.restore(&serde_json::json!({"t_ns": "later", "step_ns": -3, "interval_ms": 0}));
    assert_eq!(p.state(), before, "values that do not fit change nothing");
}

/// A resize lays out what depends on the size again and keeps the rest (a height-only resize, the page's
/// header growing as the tab opens, keeps the navigation timeline's counts): after either kind of resize the
/// pane draws what a pane built at the new size draws, with its history empty.
#[test]
fn a_resized_pane_draws_as_one_built_at_that_size() {
    let t = trace();
    let mut p = ParticlesPane::new(t.clone(), 1200.0, 700.0);
    p.configure("step", "").unwrap();
    let mut size = (1200.0, 700.0);
    for (w, h) in [(1200.0, 640.0), (900.0, 640.0), (900.0, 640.0), (1300.0, 720.0)] {
        let changed = (w, h) != std::mem::replace(&mut size, (w, h));
        p.resize(w, h);
        p.configure("seek_ns", "0").unwrap();
        let mut fresh = ParticlesPane::new(t.clone(), w, h);
        assert_eq!(p.scene(), fresh.scene(), "{w}x{h}");
        let (a, b) = (p.state(), fresh.state());
        for key in ["plot", "timeline", "history", "particles", "max_density", "width", "height"] {
            assert_eq!(a[key], b[key], "{w}x{h}: {key}");
        }
        let (la, lb) = (p.particle_layer().unwrap().clear_history, fresh.particle_layer().unwrap().clear_history);
        assert!(lb);
        assert_eq!(la, changed, "{w}x{h}: the history is cleared on the GPU too (and only on a change)");
    }
}

/// A Chrome trace: `procs` processes named `name(p)`, each computing for 20 ms before `calls` distinct MPI
/// calls (one each, 10 us apart).
fn late_mpi(procs: u32, calls: u32, name: impl Fn(u32) -> String) -> Rc<Trace> {
    let mut ev = Vec::new();
    for p in 0..procs {
        ev.push(format!(r#"{{"name":"process_name","ph":"M","pid":{},"args":{{"name":"{}"}}}}"#, 100 + p, name(p)));
        ev.push(format!(r#"{{"name":"compute","ph":"X","pid":{},"tid":1,"ts":0,"dur":20000}}"#, 100 + p));
        for c in 0..calls {
            let ts = 20_000 + 10 * c + p;
            ev.push(format!(r#"{{"name":"MPI_Call{c}","ph":"X","pid":{},"tid":1,"ts":{ts},"dur":5}}"#, 100 + p));
        }
    }
    let json = format!(r#"{{"traceEvents":[{}]}}"#, ev.join(","));
    Rc::new(read_bytes("late.json", json.as_bytes()).unwrap())
}

#[test]
fn playback_starts_at_the_first_event_not_at_the_trace_start() {
    let t = late_mpi(4, 3, |p| format!("rank {p}"));
    let mut p = ParticlesPane::new(t, 1200.0, 700.0);
    let first = p.state()["first_event_ns"].as_u64().unwrap();
    assert_eq!(first, 20_000_000, "the first MPI call, after 20 ms of compute");
    assert_eq!(t_ns(&p), first);
    assert!(p.state()["running"].as_array().is_some_and(|r| !r.is_empty()), "the first call runs at once");
    // The automatic step plays the events' span, not the trace's, in about 20 s.
    let s = p.state();
    let played = s["span_ns"].as_u64().unwrap() - first;
    assert!(s["step_ns"].as_u64().unwrap() <= played.div_ceil(1200) + 1);
    // Played to the end, Play starts again at the first event.
    p.configure("seek_ns", &u64::MAX.to_string()).unwrap();
    p.configure("clear_fading", "").unwrap();
    p.configure("play", "").unwrap();
    assert_eq!(t_ns(&p), first);
}

#[test]
fn the_start_strip_zooms_and_pans_like_the_timeline() {
    let mut p = ParticlesPane::new(trace(), 1200.0, 700.0);
    let s0 = p.state();
    let tl = &s0["timeline"];
    let (x0, x1) = (f(tl, "x0"), f(tl, "x1"));
    let span = s0["span_ns"].as_f64().unwrap();
    assert_eq!((f(&s0, "t0_ns"), f(&s0, "t1_ns")), (0.0, span), "the whole trace at first");
    let t_at = |s: &serde_json::Value, x: f64| f(s, "t0_ns") + (x - x0) / (x1 - x0) * (f(s, "t1_ns") - f(s, "t0_ns"));
    let x = x0 + (x1 - x0) * 0.3;
    p.zoom(x as f32, 4.0);
    let s1 = p.state();
    assert!(((f(&s1, "t1_ns") - f(&s1, "t0_ns")) - span / 4.0).abs() < 1e-6 * span, "zoomed 4x");
    assert!((t_at(&s1, x) - t_at(&s0, x)).abs() < 1e-6 * span, "the time under the pointer stays");
    assert_eq!(s1["timeline"]["t0_ns"].as_u64().unwrap(), f(&s1, "t0_ns").round() as u64, "binned over the range");
    // The scene's axis labels are those of the zoomed range: a seek at the strip's middle lands in it.
    p.configure("seek_x", &((x0 + x1) / 2.0).to_string()).unwrap();
    let mid = (f(&s1, "t0_ns") + f(&s1, "t1_ns")) / 2.0;
    assert!((t_ns(&p) as f64 - mid).abs() <= (f(&s1, "t1_ns") - f(&s1, "t0_ns")) / (x1 - x0) + 1.0);
    // Pan by 100 px: the range moves by 100 px worth of time.
    p.pan(100.0);
    let s2 = p.state();
    let per_px = (f(&s1, "t1_ns") - f(&s1, "t0_ns")) / (x1 - x0);
    assert!((f(&s2, "t0_ns") - f(&s1, "t0_ns") - 100.0 * per_px).abs() < 1e-6 * span);
    // Never past the trace: a long pan stops at its end, zooming out stops at the whole.
    p.pan(1e7);
    assert!((f(&p.state(), "t1_ns") - span).abs() < 1e-6);
    p.zoom(600.0, 1e-3);
    assert_eq!((f(&p.state(), "t0_ns"), f(&p.state(), "t1_ns")), (0.0, span));
    p.zoom(600.0, 8.0);
    p.fit();
    assert_eq!((f(&p.state(), "t0_ns"), f(&p.state(), "t1_ns")), (0.0, span));
    // Its range carries over between views, and a permalink keeps it.
    p.zoom(600.0, 3.0);
    let mut q = ParticlesPane::new(trace(), 1200.0, 700.0);
    round_trips(&p, &mut q);
}

#[test]
fn the_legend_gives_every_entry_its_own_colour_and_groups_the_tail() {
    let p = ParticlesPane::new(late_mpi(2, 40, |p| format!("rank {p}")), 1200.0, 700.0);
    let legend = p.state()["legend"].as_array().unwrap().clone();
    assert!(legend.len() <= weft::scene::particles::colors::MAX_COLORS, "{} entries", legend.len());
    let mut colours: Vec<&str> = legend.iter().map(|e| e["color"].as_str().unwrap()).collect();
    colours.sort();
    colours.dedup();
    assert_eq!(colours.len(), legend.len(), "no two entries share a colour");
    let tail = legend.last().unwrap();
    let grouped = tail["types"].as_array().expect("the tail is one entry").len();
    assert_eq!(legend.len() - 1 + grouped, 40, "every type is in the legend");
    assert_eq!(tail["name"], format!("{grouped} other calls"));
    let total: u64 = legend.iter().map(|e| e["count"].as_u64().unwrap()).sum();
    assert_eq!(total, p.state()["events"].as_u64().unwrap());
}

#[test]
fn segments_are_labelled_with_process_names_or_rank_numbers() {
    let names = ["python3", "dataloader", "trainer", "nccl worker"];
    let p = ParticlesPane::new(late_mpi(4, 1, |p| names[p as usize].to_string()), 1200.0, 700.0);
    let labels: Vec<String> =
        p.state()["segment_labels"].as_array().unwrap().iter().map(|l| l.as_str().unwrap().to_string()).collect();
    assert_eq!(labels, names, "names, not pids 100..103");
    let s = p.state();
    let e = &s["running"][0]["event"];
    let mut p = p;
    let (x, y) = (f(&s["running"][0], "x") as f32, f(&s["running"][0], "y") as f32);
    let h = p.hover(x, y).expect("a running particle");
    assert!(h.lines[0].starts_with(e["process"].as_str().unwrap()), "{:?}", h.lines);
    let p = ParticlesPane::new(late_mpi(4, 1, |p| format!("Rank {p}")), 1200.0, 700.0);
    let labels: Vec<String> =
        p.state()["segment_labels"].as_array().unwrap().iter().map(|l| l.as_str().unwrap().to_string()).collect();
    assert_eq!(labels, ["0", "1", "2", "3"], "MPI ranks by their number");
}

/// Playback stops at the trace's end (issue 50: it ran on while the last particles faded, to t = 1,702 of
/// 1,566 ms); Play again starts over from the first event.
#[test]
fn playback_stops_at_the_traces_end() {
    let mut p = ParticlesPane::new(trace(), 1200.0, 700.0);
    let s = p.state();
    let span = s["span_ns"].as_u64().unwrap();
    p.configure("step_ns", &(span / 7).to_string()).unwrap();
    p.configure("play", "").unwrap();
    let mut now = 1000.0;
    let mut most = 0;
    for _ in 0..100 {
        now += 1000.0;
        p.configure("tick", &now.to_string()).unwrap();
        most = most.max(t_ns(&p));
        if p.state()["playing"] == false {
            break;
        }
    }
    assert_eq!(p.state()["playing"], false, "playback ended");
    assert_eq!(most, span, "it ends at the end, not past it");
    p.configure("play", "").unwrap();
    assert_eq!(t_ns(&p), s["first_event_ns"].as_u64().unwrap(), "Play at the end starts over");
}
