//! Counter tracks in the timeline (views::counters): one track per series below the location rows; hovering
//! a track gives the value in effect at the pointer's time (the model's sample) and the pixel column's
//! extremes; a one-sample spike among 200,000 stays drawn at fit; instances stay bounded by pixels; tracks
//! hide and show, the state round-trips, and a location filter hides a process's tracks with its rows.

use super::{f, round_trips};
use serde_json::Value;
use std::rc::Rc;
use weft::model::{Format, LocationKind, Trace, TraceBuilder};
use weft::views::timeline::TimelinePane;
use weft::views::Pane;

const SPIKE_AT: usize = 123_457;
const DENSE: usize = 200_000;

/// Two processes of two threads each, busy from 0 to 1 ms. Process 0 has a step counter "queue [items]"
/// (values 5, 9, 2 at 100, 400, 700 us) and a dense "power [W]" (200,000 samples of 1.0 every 5 ns, one of
/// 50.0); process 1 has "queue [items]" too (3 at 0).
fn trace() -> Rc<Trace> {
    let mut b = TraceBuilder::new(Format::Generated);
    let r = b.region("work", "");
    let mut procs = Vec::new();
    for p in 0..2 {
        let pid = b.process(p);
        b.set_process_name(pid, &format!("Rank {p}"));
        for t in 0..2 {
            let l = b.location(pid, p * 10 + t, LocationKind::CpuThread);
            b.interval(l, r, 0, 1_000_000);
        }
        procs.push(pid);
    }
    let q0 = b.counter_series(procs[0], "queue [items]");
    for (t, v) in [(100_000, 5.0), (400_000, 9.0), (700_000, 2.0)] {
        b.counter_sample(q0, t, v);
    }
    let power = b.counter_series(procs[0], "power [W]");
    for k in 0..DENSE {
        b.counter_sample(power, k as i64 * 5, if k == SPIKE_AT { 50.0 } else { 1.0 });
    }
    let q1 = b.counter_series(procs[1], "queue [items]");
    b.counter_sample(q1, 0, 3.0);
    Rc::new(b.finish())
}

/// The screen y of series `series`' track in state `s`, if shown.
fn track_y(s: &Value, series: u64) -> Option<f64> {
    s["counters"]["tracks"].as_array().unwrap().iter().find(|t| t["series"] == series).map(|t| f(t, "y"))
}

fn x_of(s: &Value, t_ns: f64) -> f64 {
    let (x0, w) = (f(s, "track_x0"), f(s, "width"));
    x0 + (t_ns - f(s, "t0_ns")) / (f(s, "t1_ns") - f(s, "t0_ns")) * (w - x0)
}

#[test]
fn tracks_sit_below_the_rows_and_hover_gives_the_models_sample() {
    let trace = trace();
    let mut p = TimelinePane::new(trace.clone(), 1000.0, 2000.0);
    let s = p.state();
    let series = s["counters"]["series"].as_array().unwrap();
    assert_eq!(series.len(), 3);
    assert_eq!(series[0]["name"], "queue [items]");
    assert_eq!((f(&series[1], "min"), f(&series[1], "max"), f(&series[1], "samples")), (1.0, 50.0, DENSE as f64));
    let rows = s["rows"].as_array().unwrap();
    let last = rows.last().unwrap();
    let below = f(last, "y") + f(last, "lanes") * f(&s, "lane_px");
    let ys: Vec<f64> = (0..3).map(|k| track_y(&s, k).expect("every series shown")).collect();
    assert!(ys.iter().all(|&y| y >= below), "tracks {ys:?} below the rows (end at {below})");
    assert!(ys[0] < ys[1] && ys[1] < ys[2], "process order, then series order");

    // Hover at 550 us on the step track: the 400 us sample (9) is in effect.
    p.set_time_range(0.0, 1_000_000.0);
    let s = p.state();
    let (track_px, y) = (f(&s["counters"], "track_px"), track_y(&s, 0).unwrap());
    let h = p.hover(x_of(&s, 550_000.0) as f32, (y + track_px / 2.0) as f32).expect("a track is hovered");
    assert_eq!(h.title, "queue [items]");
    let c = &trace.counters;
    let k = h.detail["sample"].as_u64().unwrap() as usize;
    assert_eq!((c.sample_time_ns[k], c.sample_value[k]), (400_000, 9.0));
    assert_eq!((h.detail["time_ns"].as_u64(), h.detail["value"].as_f64()), (Some(400_000), Some(9.0)));
    assert!(h.lines.iter().any(|l| l.starts_with("9 ")), "{:?}", h.lines);
    assert!(
        h.lines.iter().any(|l| l.contains("400") && l.contains("us")),
        "time at the zoom's precision: {:?}",
        h.lines
    );
    // Before the first sample there is no value.
    assert!(p.hover(x_of(&s, 50_000.0) as f32, (y + track_px / 2.0) as f32).is_none());
    // Process 1's track is its own series.
    let h = p.hover(x_of(&s, 500_000.0) as f32, (track_y(&s, 2).unwrap() + track_px / 2.0) as f32).unwrap();
    assert_eq!((h.detail["value"].as_f64(), h.lines[0].as_str()), (Some(3.0), "Rank 1"));
}

#[test]
fn a_spike_among_many_samples_stays_drawn_and_instances_stay_bounded() {
    let trace = trace();
    let mut p = TimelinePane::new(trace.clone(), 1200.0, 2000.0);
    p.set_time_range(0.0, 1_000_000.0);
    let s = p.state();
    let (top, track_px) = (track_y(&s, 1).unwrap() as f32, f(&s["counters"], "track_px") as f32);
    let spike_x = x_of(&s, SPIKE_AT as f64 * 5.0) as f32;
    let sc = p.scene();
    // Strokes of the dense track: in its band, right of the gutter.
    let strokes: Vec<_> =
        sc.lines.iter().filter(|l| l.y0.min(l.y1) >= top && l.y0.max(l.y1) <= top + track_px).collect();
    let cols = 1200.0 - f(&s, "track_x0") as f32;
    assert!(strokes.len() as f32 <= 2.0 * cols, "{} strokes for {cols} columns", strokes.len());
    assert!(sc.rects.len() + sc.lines.len() < 20_000, "{} instances", sc.rects.len() + sc.lines.len());
    let highest = strokes.iter().map(|l| l.y0.min(l.y1)).fold(f32::INFINITY, f32::min);
    let spike = strokes.iter().find(|l| (l.y0.min(l.y1) - highest).abs() < 1.0).expect("a stroke reaches the max");
    assert!((spike.x0 - spike_x).abs() <= 1.5, "the tallest stroke is the spike's column: {} vs {spike_x}", spike.x0);
    assert!(highest < top + 8.0, "it reaches the top of the track ({highest} vs top {top})");
    // Hovering the spike's column reports the column's extremes.
    let h = p.hover(spike_x, top + track_px / 2.0).expect("hover");
    assert_eq!(h.detail["column_max"].as_f64(), Some(50.0), "{}", h.detail);
    assert!(h.detail["column_samples"].as_u64().unwrap() > 100);
    // Zoomed in on the spike: single samples a pixel or more apart, the value in effect is the spike's.
    p.set_time_range(SPIKE_AT as f64 * 5.0 - 100.0, SPIKE_AT as f64 * 5.0 + 100.0);
    let s = p.state();
    let h = p.hover(x_of(&s, SPIKE_AT as f64 * 5.0 + 2.0) as f32, top + track_px / 2.0).unwrap();
    assert_eq!((h.detail["value"].as_f64(), h.detail["column_samples"].as_u64()), (Some(50.0), Some(0)));
}

#[test]
fn tracks_hide_show_round_trip_and_follow_the_location_filter() {
    let trace = trace();
    let mut p = TimelinePane::new(trace.clone(), 1000.0, 200.0);
    let full = p.state();
    assert!(p.set_counter_shown(1, false));
    assert!(!p.set_counter_shown(99, false), "no such series");
    let s = p.state();
    assert_eq!(s["counters"]["tracks"].as_array().unwrap().len(), 2);
    assert_eq!(s["counters"]["series"][1]["shown"], false);
    assert!(track_y(&s, 2).unwrap() < track_y(&full, 2).unwrap(), "the tracks below move up");
    p.scroll(1e6);
    let bottom = f(&p.state(), "scroll_y");
    assert!(bottom > 0.0, "the tracks below the rows can be scrolled to");
    round_trips(&p, &mut TimelinePane::new(trace.clone(), 1000.0, 200.0));
    assert!(p.set_counter_shown(1, true));
    assert_eq!(p.state()["counters"]["tracks"].as_array().unwrap().len(), 3);

    // Only Rank 1's rows: only its counter track.
    p.configure("locations", "Rank 1 / *").unwrap();
    let s = p.state();
    let tracks = s["counters"]["tracks"].as_array().unwrap();
    assert_eq!(tracks.len(), 1);
    assert_eq!(tracks[0]["series"], 2);
}

/// Real traces with counters (Score-P PAPI metrics, Chrome `C` events, Paraver hardware counters) get one
/// track per series, and hovering a track just after a sample gives that sample from the model.
#[test]
fn real_traces_with_counters_get_tracks_and_hover_their_samples() {
    let Some(dir) = super::common::shared_traces("counter tracks of real traces") else { return };
    for (rel, series) in [
        ("otf2/pipit-ping-pong-mpi-papi/traces.otf2", 6),
        ("chrome-json/catapult/x_event_trace.json", 0),
        ("paraver/paraver-kernel-qsort_beo3/qsort_beo3.prv", 0),
    ] {
        let input = weft::readers::open_path(&dir.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
        let trace = Rc::new(input.into_trace(rel).expect("a timeline"));
        let n = trace.counters.series_name.len();
        assert!(n > 0, "{rel}: counter series");
        if series > 0 {
            assert_eq!(n, series, "{rel}");
        }
        let mut p = TimelinePane::new(trace.clone(), 1200.0, 100_000.0);
        let s = p.state();
        assert_eq!(s["counters"]["tracks"].as_array().unwrap().len(), n, "{rel}: a track per series");
        // The series with the most samples; a sample apart from its neighbours, zoomed so they are pixels apart.
        let c = &trace.counters;
        let k = (0..n as u32).max_by_key(|&k| c.sample_series.iter().filter(|&&x| x == k).count()).unwrap();
        let a = c.sample_series.partition_point(|&x| x < k);
        let b = c.sample_series.partition_point(|&x| x <= k);
        let t = &c.sample_time_ns[a..b];
        let i = (1..t.len().saturating_sub(1)).find(|&i| t[i - 1] < t[i] && t[i] < t[i + 1]).expect("a lone sample");
        let gap = (t[i + 1] - t[i]).min(t[i] - t[i - 1]) as f64;
        p.set_time_range(t[i] as f64 - gap, t[i] as f64 + gap);
        let s = p.state();
        let y = track_y(&s, k as u64).unwrap() + f(&s["counters"], "track_px") / 2.0;
        let h = p.hover((x_of(&s, t[i] as f64) + 1.0) as f32, y as f32).unwrap_or_else(|| panic!("{rel}: hover"));
        assert_eq!(h.detail["sample"].as_u64(), Some((a + i) as u64), "{rel}: {}", h.detail);
        assert_eq!(h.detail["value"].as_f64(), Some(c.sample_value[a + i]), "{rel}");
        assert!(p.scene().marks() > 0, "{rel}: drawn");
    }
}
