//! The particle animation (issue 5): a generated Chrome trace with the paper's known patterns, read by the
//! real reader, checked by reading particle positions back from the scene at chosen times; the moving window
//! against a brute-force oracle; grid labels, segments, colours; the history's tone mapping against the
//! paper's formula; real OTF2 traces played end to end.

use crate::common;

use common::read::{read_bytes, read_path};
use weft::analyses::particles::{EventSelection, LiveWindow, ParticleEvents, Playback};
use weft::layouts::particles::{DurationAxis, ProcessAxis};
use weft::samples::particles::{bench_trace, pattern::*, patterns_json};
use weft::scene::particles::colors::{call_color, family_bases, family_of, legend_colors, MAX_COLORS, OTHER};
use weft::scene::particles::history::{tone_map, HistoryRaster};
use weft::scene::particles::{grid_label, ParticleInstance, ParticleScene, ParticleStyle};

const RANKS: u32 = 64;
const W: f32 = 1000.0;
const H: f32 = 600.0;

fn patterns() -> (weft::model::Trace, ParticleEvents) {
    let trace = read_bytes("patterns.json", &patterns_json(RANKS, 8)).expect("pattern trace reads");
    let ev = ParticleEvents::build(&trace, &EventSelection::Communication);
    (trace, ev)
}

/// The particles at `t_ns` (after a seek), with their event indices.
fn at(ev: &ParticleEvents, scene: &ParticleScene, t_ns: u64, fade_ns: u64) -> Vec<(usize, ParticleInstance)> {
    let mut w = LiveWindow::new(fade_ns);
    w.seek(ev, t_ns);
    w.live().iter().filter_map(|&e| scene.particle(ev, e as usize, t_ns, fade_ns).map(|p| (e as usize, p))).collect()
}

fn type_of(ev: &ParticleEvents, e: usize) -> &str {
    &ev.types[ev.kind[e] as usize]
}

/// The corrected position formula, written out independently of the layout: fraction of the axis height.
fn expected_y(scene: &ParticleScene, ev: &ParticleEvents, age_ns: f64) -> f32 {
    let (dmin, dmax) = (ev.min_dur_ns as f64, ev.max_dur_ns as f64);
    let f = ((age_ns / dmin).ln() / (dmax / dmin).ln()).clamp(0.0, 1.0) as f32;
    scene.y_bottom - f * (scene.y_bottom - scene.y_top)
}

#[test]
fn events_types_and_floor_come_from_the_trace() {
    let (_, ev) = patterns();
    // Per rank: 4 fixed calls, one wait per foreign phase (7) and 3 calls per burst in its own phase.
    assert_eq!(ev.len() as u64, RANKS as u64 * (4 + 7 + 3 * BURSTS));
    assert_eq!(ev.min_dur_ns, ISEND_DUR_NS);
    assert_eq!(ev.max_dur_ns, WAIT_DUR_NS);
    assert_eq!(ev.slots(), RANKS as usize);
    let mut types = ev.types.clone();
    types.sort();
    assert_eq!(
        types,
        ["MPI_Allreduce", "MPI_Bcast", "MPI_Comm_dup", "MPI_Comm_split", "MPI_Isend", "MPI_Recv", "MPI_Waitall"]
    );
    assert!(ev.start_ns.windows(2).all(|w| w[0] <= w[1]), "sorted by start");
    let total: u64 = ev.starts_per_type(0, ev.span_ns + 1, 37).iter().map(|&c| c as u64).sum();
    assert_eq!(total, ev.len() as u64);
}

#[test]
fn synchronized_calls_form_a_horizontal_line() {
    let (_, ev) = patterns();
    let scene = ParticleScene::new(&ev, W, H, ParticleStyle::default());
    let t = SYNC_NS + SYNC_DUR_NS / 2;
    let ps = at(&ev, &scene, t, 1_000);
    let line: Vec<_> = ps.iter().filter(|(e, _)| type_of(&ev, *e) == "MPI_Allreduce").collect();
    assert_eq!(line.len(), RANKS as usize);
    let y = expected_y(&scene, &ev, (SYNC_DUR_NS / 2) as f64);
    for (e, p) in &line {
        assert!((p.y - y).abs() < 0.01, "event {e}: y {} expected {y}", p.y);
        assert_eq!(p.color & 0xff, 0xff, "running particles are opaque");
    }
    // x follows the rank, each inside its slot.
    let mut xs: Vec<(u32, f32)> = line.iter().map(|(e, p)| (ev.slot[*e], p.x)).collect();
    xs.sort_by_key(|&(s, _)| s);
    for (s, x) in &xs {
        let (a, b) = (scene.px_x(scene.processes.slot_x0(*s)), scene.px_x(scene.processes.slot_x0(s + 1)));
        assert!(*x > a && *x < b, "slot {s}: {x} not in ({a}, {b})");
    }
}

#[test]
fn linear_delay_gives_the_logarithmic_curve() {
    let (_, ev) = patterns();
    let scene = ParticleScene::new(&ev, W, H, ParticleStyle::default());
    let t = DELAY_NS + 400_000;
    let ps = at(&ev, &scene, t, 1_000);
    let mut curve: Vec<(u32, f32)> = ps
        .iter()
        .filter(|(e, _)| type_of(&ev, *e) == "MPI_Recv" && ev.start_ns[*e] >= DELAY_NS)
        .map(|(e, p)| (ev.slot[*e], p.y))
        .collect();
    curve.sort_by_key(|&(s, _)| s);
    // Ranks that have started by t: p * 10 us <= 400 us.
    assert_eq!(curve.len(), 41);
    for &(s, y) in &curve {
        let age = 400_000.0 - s as f64 * DELAY_STEP_NS as f64;
        let want = expected_y(&scene, &ev, age);
        assert!((y - want).abs() < 0.01, "rank {s}: y {y}, want {want}");
    }
    // Logarithmic: heights fall with rank, slowly first, then ever faster (pixel y grows convexly).
    for w in curve.windows(3) {
        let (d1, d2) = (w[1].1 - w[0].1, w[2].1 - w[1].1);
        assert!(d1 > 0.0 && d2 >= d1 - 1e-3, "{w:?}");
    }
    // The rank that starts exactly at t sits on the floor (age 0: the paper's formula would be -infinity).
    assert_eq!(curve.last().map(|c| c.1), Some(scene.y_bottom));
}

#[test]
fn a_group_of_eight_shifts_right_phase_by_phase() {
    let (_, ev) = patterns();
    let scene = ParticleScene::new(&ev, W, H, ParticleStyle { segment_multiple: Some(8), ..Default::default() });
    assert_eq!(scene.processes.per_segment % 8, 0);
    for k in 0..8u64 {
        let t = GROUP_NS + k * PHASE_NS + BURST_OFFSET_NS + 5 * BURST_NS + 10_000;
        let ps = at(&ev, &scene, t, 1_000);
        let running: Vec<_> = ps.iter().filter(|(_, p)| p.color & 0xff == 0xff).collect();
        assert_eq!(running.len(), RANKS as usize, "phase {k}: one running call per rank");
        let (lo, hi) =
            (scene.px_x(scene.processes.slot_x0(8 * k as u32)), scene.px_x(scene.processes.slot_x0(8 * k as u32 + 8)));
        let low_y = expected_y(&scene, &ev, 10_000.0);
        let high_y = expected_y(&scene, &ev, (5 * BURST_NS + BURST_OFFSET_NS) as f64);
        for (e, p) in running {
            let in_group = p.x > lo && p.x < hi;
            assert_eq!(in_group, ev.slot[*e] / 8 == k as u32);
            let (want_type, want_y) = if in_group { ("MPI_Bcast", low_y) } else { ("MPI_Recv", high_y) };
            assert_eq!(type_of(&ev, *e), want_type, "phase {k} slot {}", ev.slot[*e]);
            assert!((p.y - want_y).abs() < 0.01, "phase {k}: y {} want {want_y}", p.y);
        }
    }
}

#[test]
fn ended_particles_stop_at_their_duration_and_fade() {
    let (_, ev) = patterns();
    let scene = ParticleScene::new(&ev, W, H, ParticleStyle::default());
    let fade = 100_000;
    let end = SYNC_NS + SYNC_DUR_NS;
    let top = expected_y(&scene, &ev, SYNC_DUR_NS as f64);
    for (since, alpha) in [(0u64, 255u32), (25_000, 191), (50_000, 128), (99_000, 3)] {
        let ps = at(&ev, &scene, end + since, fade);
        let line: Vec<_> = ps.iter().filter(|(e, _)| type_of(&ev, *e) == "MPI_Allreduce").collect();
        assert_eq!(line.len(), RANKS as usize);
        for (_, p) in line {
            assert!((p.y - top).abs() < 0.01);
            assert_eq!(p.color & 0xff, alpha, "{since} ns after the end");
        }
    }
    let gone = at(&ev, &scene, end + fade, fade);
    assert!(gone.iter().all(|(e, _)| type_of(&ev, *e) != "MPI_Allreduce"));
    // Two seconds of animation at the playback's speed.
    let play = Playback { step_ns: 1_000, interval_ms: 20.0, fade_s: Playback::FADE_S };
    assert_eq!(play.speed_ns_per_s(), 50_000.0);
    assert_eq!(play.fade_ns(), 100_000);
}

/// Seeded xorshift.
fn rng(s: &mut u64) -> u64 {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    *s
}

#[test]
fn the_window_holds_exactly_the_live_events_and_every_event_fades_once() {
    let trace = bench_trace(200, 3_000_000, 7);
    let ev = ParticleEvents::build(&trace, &EventSelection::Communication);
    assert!(ev.len() > 10 * weft::analyses::particles::SEEK_BLOCK);
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    for case in 0..20 {
        let fade = 1 + rng(&mut s) % 200_000;
        let mut w = LiveWindow::new(fade);
        let mut t = rng(&mut s) % ev.span_ns;
        w.seek(&ev, t);
        let mut faded = Vec::new();
        let mut seen: Vec<u32> = w.live().to_vec();
        for _ in 0..30 {
            let mut live: Vec<u32> = w.live().to_vec();
            live.sort();
            let want: Vec<u32> =
                (0..ev.len()).filter(|&e| ev.start_ns[e] <= t && ev.end_ns(e) + fade > t).map(|e| e as u32).collect();
            assert_eq!(live, want, "case {case} t {t}");
            let before = t;
            t += rng(&mut s) % 50_000;
            w.advance(&ev, t, &mut faded);
            seen.extend((0..ev.len()).filter(|&e| ev.start_ns[e] > before && ev.start_ns[e] <= t).map(|e| e as u32));
        }
        // Everything that entered the window either is still live or faded, once.
        let mut out: Vec<u32> = faded.iter().chain(w.live()).copied().collect();
        out.sort();
        seen.sort();
        assert_eq!(out, seen, "case {case}");
    }
}

#[test]
fn duration_grid_labels_never_overlap_and_read_in_real_units() {
    let mut s = 42u64;
    for case in 0..500 {
        let min = 1 + rng(&mut s) % 100_000;
        let max = min + rng(&mut s) % 10_000_000_000;
        let h = 80.0 + (rng(&mut s) % 1000) as f32;
        let axis = DurationAxis::new(min, max);
        let gap = 15.0 / h;
        let lines = axis.grid(gap);
        assert!((lines[0].dur_ns - max as f64).abs() < 1e-6 && lines[0].y == 1.0, "case {case}: top is the longest");
        for w in lines.windows(2) {
            assert!(w[0].y - w[1].y >= gap - 1e-6, "case {case}: {w:?} closer than a label");
            assert!(w[0].dur_ns > w[1].dur_ns);
        }
        for l in &lines[1..] {
            let round = l.dur_ns / 10f64.powi(l.dur_ns.log10().floor() as i32);
            assert!(l.bold || [1.0, 2.0, 5.0].iter().any(|m| (round - m).abs() < 1e-9), "{l:?}");
            assert!((axis.y(l.dur_ns) - l.y).abs() < 1e-6);
        }
    }
    let (_, ev) = patterns();
    let scene = ParticleScene::new(&ev, W, H, ParticleStyle::default());
    let labels = scene.grid_labels();
    assert_eq!(labels[0].1, "980 us");
    assert!(labels.iter().any(|l| l.1 == "100 us"), "{labels:?}");
    assert_eq!(labels.last().map(|l| l.1.as_str()), Some("5 us"));
    assert_eq!(grid_label(2_500_000.0), "2.5 ms");
    assert_eq!(grid_label(1234.5678), "1.235 us");
}

#[test]
fn the_fast_logarithm_matches_ln() {
    let mut s = 99u64;
    for _ in 0..100_000 {
        let x = 1.0 + (rng(&mut s) % 1_000_000_000) as f32 * (rng(&mut s) % 1000) as f32 / 1000.0;
        let (fast, exact) = (weft::layouts::particles::fast_ln(x), (x as f64).ln());
        assert!((fast as f64 - exact).abs() < 2e-6 * exact.max(1.0), "ln {x}: {fast} vs {exact}");
    }
}

#[test]
fn short_ages_stay_on_the_floor() {
    let axis = DurationAxis::new(1_000, 1_000_000);
    assert_eq!(axis.y(0.0), 0.0);
    assert_eq!(axis.y(0.5), 0.0);
    assert_eq!(axis.y(1_000.0), 0.0);
    assert!((axis.y(31_622.776) - 0.5).abs() < 1e-4);
    assert_eq!(axis.y(1e9), 1.0);
    assert!((axis.age_at(0.5) - 31_622.776).abs() < 0.01);
    // A trace whose events all last the same: they reach the top.
    assert_eq!(DurationAxis::new(500, 500).y(500.0), 1.0);
}

#[test]
fn segments_follow_the_width_or_the_process_grid() {
    let a = ProcessAxis::new(16_384, 1200.0, 40.0, None);
    assert_eq!(a.per_segment, (40.0f64 / (1200.0 / 16_384.0)).ceil() as u32);
    assert_eq!(a.segments(), 16_384u32.div_ceil(a.per_segment));
    let b = ProcessAxis::new(36, 900.0, 40.0, Some(6));
    assert_eq!(b.per_segment, 6);
    let c = ProcessAxis::new(64, 300.0, 40.0, Some(8));
    assert_eq!(c.per_segment, 16);
    // Segment labels are the first rank of each segment and never overlap.
    let (trace, ev) = patterns();
    let scene = ParticleScene::new(&ev, W, H, ParticleStyle { segment_multiple: Some(8), ..Default::default() });
    let frame = scene.frame(&ev, &weft::scene::particles::slot_labels(&trace, &ev));
    let seg_labels: Vec<_> = frame.labels.iter().filter(|l| l.y > scene.y_bottom).collect();
    let texts: Vec<&str> = seg_labels.iter().map(|l| l.text.as_str()).collect();
    assert_eq!(texts, ["0", "8", "16", "24", "32", "40", "48", "56"]);
    // Particles of a jittered x never jump: the same event gets the same x in every frame.
    let x1 = scene.processes.particle_x(3, 12345);
    assert_eq!(x1, scene.processes.particle_x(3, 12345));
}

#[test]
fn related_calls_get_related_hues_and_at_most_25_colours() {
    let hue = |c: u32| {
        let (r, g, b) = (((c >> 24) & 0xff) as f32, ((c >> 16) & 0xff) as f32, ((c >> 8) & 0xff) as f32);
        let (mx, mn) = (r.max(g).max(b), r.min(g).min(b));
        if mx == mn {
            return -1.0;
        }
        let h = if mx == r {
            (g - b) / (mx - mn)
        } else if mx == g {
            2.0 + (b - r) / (mx - mn)
        } else {
            4.0 + (r - g) / (mx - mn)
        };
        (h * 60.0 + 360.0) % 360.0
    };
    for group in [
        &["MPI_Send", "MPI_Isend", "MPI_Ssend", "MPI_Issend"][..],
        &["MPI_Recv", "MPI_Irecv"],
        &["MPI_Comm_split", "MPI_Comm_dup", "MPI_Comm_create", "MPI_Comm_free"],
        &["MPI_Allreduce", "MPI_Reduce", "ncclAllReduce"],
    ] {
        let f = family_of(group[0]).map(|f| f.0);
        let h0 = hue(call_color(group[0]));
        for c in group {
            assert_eq!(family_of(c).map(|f| f.0), f, "{c}");
            assert!((hue(call_color(c)) - h0).abs() < 12.0, "{c}: hue {} vs {h0}", hue(call_color(c)));
        }
    }
    assert_ne!(call_color("MPI_Send"), call_color("MPI_Isend"), "blocking and non-blocking differ in lightness");
    assert_ne!(family_of("MPI_Send").map(|f| f.0), family_of("MPI_Recv").map(|f| f.0));
    assert_eq!(family_of("cudaStreamSynchronize").map(|f| f.0), family_of("MPI_Wait").map(|f| f.0));
    let many: Vec<String> = (0..60).map(|i| format!("call_{i}")).collect();
    let colors = legend_colors(&many);
    let mut distinct = colors.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), MAX_COLORS, "at most MAX_COLORS legend entries, the tail's grey among them");
    assert!(colors[..MAX_COLORS - 1].iter().all(|&c| c != OTHER));
    assert!(colors[MAX_COLORS - 1..].iter().all(|&c| c == OTHER), "the tail shares one grey");
    // No two types share a colour, however their names hash or families crowd (nine sends, five shades).
    let crowded: Vec<String> = ["Send", "Isend", "Ssend", "Issend", "Bsend", "Ibsend", "Rsend", "Irsend", "Send_init"]
        .iter()
        .map(|c| format!("MPI_{c}"))
        .chain((0..12).map(|i| format!("user_call_{i}")))
        .collect();
    let colors = legend_colors(&crowded);
    let mut distinct = colors.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), crowded.len(), "every type its own colour: {colors:08x?}");
}

/// Family bases stay apart for normal vision and under protanopia and deuteranopia (Viénot, Brettel and Mollon
/// 1999, in linear RGB), by at least 0.14 in sRGB (36 of 255 levels along one channel; Okabe-Ito's own
/// closest pair under protanopia is 0.15 apart).
#[test]
fn family_hues_are_distinguishable_with_colour_vision_deficiency() {
    let lin = |v: u32| {
        let c = v as f64 / 255.0;
        if c <= 0.04045 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    let srgb = |c: f64| {
        let c = c.clamp(0.0, 1.0);
        if c <= 0.0031308 {
            12.92 * c
        } else {
            1.055 * c.powf(1.0 / 2.4) - 0.055
        }
    };
    let sims: [[[f64; 3]; 3]; 3] = [
        [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
        [[0.11238, 0.88762, 0.0], [0.11238, 0.88762, 0.0], [0.00401, -0.00401, 1.0]],
        [[0.29275, 0.70725, 0.0], [0.29275, 0.70725, 0.0], [-0.02234, 0.02234, 1.0]],
    ];
    let bases = family_bases();
    for (k, m) in sims.iter().enumerate() {
        let sim: Vec<[f64; 3]> = bases
            .iter()
            .map(|&c| {
                let v = [lin(c >> 24 & 0xff), lin(c >> 16 & 0xff), lin(c >> 8 & 0xff)];
                [0, 1, 2].map(|i| srgb(m[i][0] * v[0] + m[i][1] * v[1] + m[i][2] * v[2]))
            })
            .collect();
        for i in 0..sim.len() {
            for j in i + 1..sim.len() {
                let d = (0..3).map(|c| (sim[i][c] - sim[j][c]).powi(2)).sum::<f64>().sqrt();
                assert!(d > 0.14, "vision {k}: families {i} and {j} too close ({d:.3})");
            }
        }
    }
}

#[test]
fn history_tone_mapping_follows_the_paper() {
    let c = [0.2, 0.4, 0.8];
    for (d, d_max, o_min) in [(1.0f32, 100.0f32, 0.1f32), (10.0, 100.0, 0.1), (100.0, 100.0, 0.1), (7.0, 50.0, 0.35)] {
        let p = tone_map(c, d, d_max, o_min);
        let want = o_min + (1.0 - o_min) * d.ln() / d_max.ln();
        assert_eq!(&p[..3], &c[..]);
        assert!((p[3] - want).abs() < 1e-6, "D {d} Dmax {d_max}: {} vs {want}", p[3]);
    }
    assert_eq!(tone_map(c, 0.0, 10.0, 0.2), [0.0; 4], "nothing splatted: transparent");
    // The raster: 9 red splats at one place and one blue elsewhere.
    let mut h = HistoryRaster::new(40, 20);
    let red = ParticleInstance { x: 10.5, y: 10.5, size: 1.0, color: 0xff0000ff };
    for _ in 0..9 {
        h.splat(&red);
    }
    h.splat(&ParticleInstance { x: 30.5, y: 5.5, size: 1.0, color: 0x0000ffff });
    assert_eq!(h.max_density(), 9.0);
    assert_eq!(h.pixel(10, 10, 0.25), [1.0, 0.0, 0.0, 1.0]);
    assert_eq!(h.pixel(30, 5, 0.25), [0.0, 0.0, 1.0, 0.25], "a single particle stays visible at O_min");
    assert_eq!(h.pixel(0, 0, 0.25), [0.0; 4]);
    let opaque = h.resolve(0.25).iter().filter(|p| p[3] > 0.0).count();
    assert_eq!(opaque, 2);
    h.clear();
    assert_eq!(h.max_density(), 0.0);
}

#[test]
fn playing_the_patterns_fills_the_history_where_events_ended() {
    let (_, ev) = patterns();
    let scene = ParticleScene::new(&ev, W, H, ParticleStyle::default());
    let play = Playback { step_ns: 5_000, interval_ms: 16.0, fade_s: 0.1 };
    let mut w = LiveWindow::new(play.fade_ns());
    let mut h = HistoryRaster::new(W as u32, H as u32);
    let (mut faded, mut splats) = (Vec::new(), Vec::new());
    let mut t = 0;
    while t <= ev.span_ns + play.fade_ns() {
        t += play.step_ns;
        faded.clear();
        w.advance(&ev, t, &mut faded);
        splats.clear();
        scene.splats(&ev, &faded, &mut splats);
        splats.iter().for_each(|s| h.splat(s));
    }
    assert!(w.live().is_empty());
    // Every event splatted once: the total density is events times the disc's pixels (about pi r^2 each).
    let total: f32 = h.density.iter().sum();
    let disc = std::f32::consts::PI * (scene.style.particle_px / 2.0).powi(2);
    assert!((total / ev.len() as f32 - disc).abs() < 0.3 * disc, "{total}");
    // The allreduce line: its splats sit at the height of its duration.
    let y = expected_y(&scene, &ev, SYNC_DUR_NS as f64) as u32;
    let row: f32 = (0..W as u32).map(|x| h.density[(y * W as u32 + x) as usize]).sum();
    assert!(row >= RANKS as f32, "row {y}: {row}");
}

#[test]
fn hover_finds_the_particle_and_its_details_match_the_model() {
    let (trace, ev) = patterns();
    let scene = ParticleScene::new(&ev, W, H, ParticleStyle::default());
    let t = DELAY_NS + 200_000;
    let mut w = LiveWindow::new(1_000);
    w.seek(&ev, t);
    let mut ps = Vec::new();
    scene.particles(&ev, &w, &mut ps);
    assert!(!ps.is_empty());
    for &e in w.live() {
        let e = e as usize;
        let Some(p) = scene.particle(&ev, e, t, 1_000) else { continue };
        let hit = scene.hit(&ev, &w, p.x, p.y).expect("a particle under its own centre");
        let (hp, d) = (scene.particle(&ev, hit, t, 1_000).unwrap(), ev.details(&trace, hit));
        assert!((hp.x - p.x).abs() < 1e-3 && (hp.y - p.y).abs() < 1e-3 || hit == e);
        let i = ev.interval[hit] as usize;
        assert_eq!(d.call, trace.region_name(trace.intervals.region[i]));
        assert_eq!(d.start_ns, trace.intervals.start_ns[i]);
        assert_eq!(d.end_ns, trace.intervals.end_ns(i));
        let l = trace.intervals.location[i];
        assert_eq!(d.rank, trace.processes.native_id[trace.locations.process[l.index()].index()]);
        assert_eq!(d.thread, trace.location_name(l));
    }
    assert_eq!(scene.hit(&ev, &w, 1.0, 1.0), None);
}

#[test]
fn chrome_selection_defaults_to_nccl_and_cuda_synchronization() {
    let json = br#"{"traceEvents":[
 {"name":"ncclAllReduce","cat":"nccl","ph":"X","pid":1,"tid":1,"ts":0,"dur":10},
 {"name":"cudaStreamSynchronize","cat":"cuda_runtime","ph":"X","pid":1,"tid":1,"ts":20,"dur":5},
 {"name":"cudaLaunchKernel","cat":"cuda_runtime","ph":"X","pid":1,"tid":1,"ts":30,"dur":2},
 {"name":"gemm_kernel","cat":"kernel","ph":"X","pid":1,"tid":2,"ts":31,"dur":50},
 {"name":"forward","cat":"python","ph":"X","pid":2,"tid":1,"ts":0,"dur":100}]}"#;
    let trace = read_bytes("gpu.json", json).expect("reads");
    let names = |sel: &EventSelection| {
        let mut t = ParticleEvents::build(&trace, sel).types;
        t.sort();
        t
    };
    assert_eq!(names(&EventSelection::default()), ["cudaStreamSynchronize", "ncclAllReduce"]);
    assert_eq!(names(&EventSelection::parse("cat:kernel")), ["gemm_kernel"]);
    assert_eq!(
        names(&EventSelection::parse("cuda*, forward")),
        ["cudaLaunchKernel", "cudaStreamSynchronize", "forward"]
    );
}

#[test]
fn real_otf2_traces_play_end_to_end() {
    let Some(root) = common::shared_traces("real_otf2_traces_play_end_to_end") else { return };
    let mut played = 0;
    for dir in ["pipit-ping-pong-mpi", "pipit-ping-pong-mpi-papi", "tracer-stencil4d-mpi-32"] {
        let anchor = root.join("otf2").join(dir).join("traces.otf2");
        if !anchor.exists() {
            eprintln!("SKIPPED {dir}: {} absent", anchor.display());
            continue;
        }
        let trace = read_path(&anchor).unwrap_or_else(|e| panic!("{e}"));
        let ev = ParticleEvents::build(&trace, &EventSelection::Communication);
        assert!(!ev.is_empty(), "{dir}: MPI calls are events");
        assert!(ev.types.iter().all(|t| t.starts_with("MPI_")), "{dir}: {:?}", ev.types);
        assert!(ev.slots() >= 2, "{dir}");
        let scene = ParticleScene::new(&ev, W, H, ParticleStyle::default());
        let play = Playback::for_span(ev.span_ns, 10.0);
        let mut w = LiveWindow::new(play.fade_ns());
        let (mut faded, mut ps, mut max_live) = (Vec::new(), Vec::new(), 0);
        let mut t = 0;
        while !(t > ev.span_ns && w.live().is_empty()) {
            t += play.step_ns;
            w.advance(&ev, t, &mut faded);
            scene.particles(&ev, &w, &mut ps);
            max_live = max_live.max(ps.len());
            for p in &ps {
                assert!(
                    p.x >= scene.x0 && p.x <= scene.x1 && p.y >= scene.y_top && p.y <= scene.y_bottom,
                    "{dir}: {p:?}"
                );
            }
        }
        faded.sort();
        assert_eq!(faded, (0..ev.len() as u32).collect::<Vec<_>>(), "{dir}: every event played and faded once");
        eprintln!(
            "{dir}: {} events, {} types, {} ranks, at most {max_live} live",
            ev.len(),
            ev.types.len(),
            ev.slots()
        );
        played += 1;
    }
    assert!(played > 0 || root.join("otf2").read_dir().is_err());
}

#[test]
fn paraver_mpi_calls_are_events_on_every_task() {
    let s = weft::samples::paraver::ParaverSample::default();
    let files = s.generate();
    let trace = weft::readers::paraver::read("sample.prv", &files.prv, Some(&files.pcf), Some(&files.row))
        .expect("generated Paraver reads");
    let ev = ParticleEvents::build(&trace, &EventSelection::Communication);
    assert!(!ev.is_empty());
    assert!(ev.types.iter().all(|t| t.starts_with("MPI_")), "{:?}", ev.types);
    assert!(ev.types.iter().any(|t| t == "MPI_Allreduce"), "{:?}", ev.types);
    // One slot per task; every task calls MPI.
    assert_eq!(ev.slots(), s.tasks as usize);
    let mut seen = vec![false; ev.slots()];
    ev.slot.iter().for_each(|&sl| seen[sl as usize] = true);
    assert!(seen.iter().all(|&b| b));
}

/// The index built in steps of a few intervals (runs sorted, merged two at a time, columns filled a chunk at
/// a time: what the page does between yields) is the one built in one pass, and is sorted by (start, slot,
/// interval) with every selected interval once.
#[test]
fn the_index_built_in_steps_is_the_one_built_at_once() {
    use weft::analyses::particles::ParticleBuild;
    let (trace, whole) = patterns();
    let sel = EventSelection::Communication;
    for chunk in [1, 7, 1000, 1 << 20] {
        let mut b = ParticleBuild::new(&trace, &sel, chunk);
        let mut steps = 0;
        let ev = loop {
            steps += 1;
            if let Some(ev) = b.step(&trace) {
                break ev;
            }
        };
        assert_eq!(ev.start_ns, whole.start_ns, "chunk {chunk}");
        assert_eq!(
            (&ev.dur_ns, &ev.kind, &ev.slot, &ev.interval),
            (&whole.dur_ns, &whole.kind, &whole.slot, &whole.interval)
        );
        assert_eq!(
            (&ev.types, &ev.type_counts, &ev.slot_process),
            (&whole.types, &whole.type_counts, &whole.slot_process)
        );
        assert_eq!((ev.min_dur_ns, ev.max_dur_ns, ev.span_ns), (whole.min_dur_ns, whole.max_dur_ns, whole.span_ns));
        for blk in 0..ev.len().div_ceil(weft::analyses::particles::SEEK_BLOCK) {
            assert_eq!(ev.block_max_end(blk), whole.block_max_end(blk));
        }
        if chunk < trace.intervals.len() {
            assert!(steps > trace.intervals.len() / chunk, "chunk {chunk}: {steps} steps");
        }
    }
    // Against the definition: every event once, in (start, slot, interval) order.
    let keys: Vec<(u64, u32, u32)> =
        (0..whole.len()).map(|e| (whole.start_ns[e], whole.slot[e], whole.interval[e])).collect();
    assert!(keys.windows(2).all(|w| w[0] < w[1]));
    let mut seen: Vec<u32> = whole.interval.clone();
    seen.sort_unstable();
    seen.dedup();
    assert_eq!(seen.len(), whole.len());
    assert_eq!(whole.len() as u64, whole.type_counts.iter().sum::<u64>());
}
