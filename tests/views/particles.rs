//! The particle view: the animation advances by the injected frame time only (`tick`), never more than a
//! few steps a frame, and not while paused; seeking moves the live window; hovering a running particle
//! (paused) names its event, and the particle is in the layer the renderer draws.

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
    assert_eq!(t_ns(&p), 0);
    p.configure("play", "").unwrap();
    let _ = (p.scene(), p.particle_layer());
    assert_eq!(t_ns(&p), 0, "drawing does not advance the animation");
    p.configure("tick", "6000").unwrap();
    assert_eq!(t_ns(&p), step, "the first frame owes one interval: one step");
    p.configure("tick", "6000").unwrap();
    assert_eq!(t_ns(&p), step, "no time, no step");
    p.configure("tick", &(6000.0 + 2.0 * interval + 0.5).to_string()).unwrap();
    assert_eq!(t_ns(&p), 3 * step, "two intervals, two steps");
    p.configure("tick", &(6000.0 + 2.0 * interval + 1e6).to_string()).unwrap();
    assert_eq!(t_ns(&p), 7 * step, "after a stall the animation slows (4 steps at most), never jumps");
    p.configure("pause", "").unwrap();
    p.configure("tick", "1e9").unwrap();
    assert_eq!(t_ns(&p), 7 * step, "paused: a frame does not advance");
    p.configure("step", "").unwrap();
    assert_eq!(t_ns(&p), 8 * step, "a step button press is one step");
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
