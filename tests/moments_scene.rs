//! The moment view and the utilization Gantt chart: glyphs sit where the moments say, merged pixel rows keep
//! every row's contribution, instance counts stay bounded by pixels, and both views share rows and time axis.

use weft::analyses::busy::{BusyDefinition, BusyIntervals};
use weft::analyses::moments::{moments_of_busy, sort_moments, LocationMoments, MomentKey};
use weft::model::{Format, LocationId, LocationKind, Trace, TraceBuilder};
use weft::scene::moments::{
    build_moment_view, ColorEncoding, MomentViewOptions, Viewport, BAR, DEVIATION, NO_BUSY_ROW, SKEW, TICK,
};
use weft::scene::utilization::{build_utilization, level_color, UtilizationOptions, LEVELS};
use weft::scene::{LineInstance, RectInstance, Scene};

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545F4914F6CDD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

fn row(location: u32, m0: u64, m1: f64, m2: f64, m3: f64) -> LocationMoments {
    LocationMoments { location, name: format!("P / T{location}"), m0_ns: m0, m1_ns: m1, m2_ns: m2, m3_ns: m3 }
}

/// The x the viewport puts time `t` at, computed here from the plot rectangle.
fn expected_x(view: &Viewport, t: f64) -> f32 {
    let (x0, _, x1, _) = view.plot_rect();
    (x0 as f64 + (t - view.t0_ns) / (view.t1_ns - view.t0_ns) * (x1 - x0) as f64) as f32
}

fn row_band(view: &Viewport, r: usize) -> (f32, f32) {
    let (_, y0, _, _) = view.plot_rect();
    let top = y0 + ((r as f64 - view.first_row) * view.row_height_px as f64) as f32;
    (top, top + view.row_height_px)
}

fn rects_in(scene: &Scene, fill: u32, (top, bottom): (f32, f32)) -> Vec<RectInstance> {
    scene.rects.iter().filter(|r| r.fill == fill && r.y >= top - 1e-3 && r.y + r.h <= bottom + 1e-3).copied().collect()
}

fn lines_in(scene: &Scene, color: u32, (top, bottom): (f32, f32)) -> Vec<LineInstance> {
    scene
        .lines
        .iter()
        .filter(|l| l.color == color && l.y0.min(l.y1) >= top - 1e-3 && l.y0.max(l.y1) <= bottom + 1e-3)
        .copied()
        .collect()
}

fn near(a: f32, b: f32) -> bool {
    (a - b).abs() < 0.02
}

#[test]
fn each_glyph_sits_where_its_moments_say() {
    let rows = vec![row(0, 200, 300.0, 150.0, 40.0), row(1, 100, 700.0, 250.0, -60.0), row(2, 500, 500.0, 260.0, 0.0)];
    let opts = MomentViewOptions { definition: "busy = any".into(), span_ns: (0, 1000), ..Default::default() };
    let views = [
        Viewport { t0_ns: 0.0, t1_ns: 1000.0, first_row: 0.0, row_height_px: 20.0, width_px: 900.0, height_px: 300.0 },
        Viewport { t0_ns: 150.0, t1_ns: 800.0, first_row: 0.5, row_height_px: 24.0, width_px: 700.0, height_px: 300.0 },
    ];
    for view in &views {
        let scene = build_moment_view(&rows, view, &opts);
        let (x0, _, x1, _) = view.plot_rect();
        let clip = |x: f32| x.clamp(x0, x1);
        for (r, m) in rows.iter().enumerate() {
            let band = row_band(view, r);
            let ticks = lines_in(&scene, TICK, band);
            assert_eq!(ticks.len(), 1, "row {r}: one m1 tick");
            assert!(
                near(ticks[0].x0, expected_x(view, m.m1_ns)),
                "row {r}: tick at {} not {}",
                ticks[0].x0,
                expected_x(view, m.m1_ns)
            );
            let bar = rects_in(&scene, BAR, band);
            assert_eq!(bar.len(), 1, "row {r}: one m0 bar");
            let half = m.m0_ns as f64 / 2.0;
            assert!(near(bar[0].x, clip(expected_x(view, m.m1_ns - half))), "row {r}: bar starts at {}", bar[0].x);
            assert!(near(bar[0].x + bar[0].w, clip(expected_x(view, m.m1_ns + half))), "row {r}: bar ends");
            let dev = rects_in(&scene, DEVIATION, band);
            assert_eq!(dev.len(), 1, "row {r}: one deviation bar");
            assert!(near(dev[0].x, clip(expected_x(view, m.m1_ns - m.m2_ns))), "row {r}: deviation starts");
            assert!(near(dev[0].x + dev[0].w, clip(expected_x(view, m.m1_ns + m.m2_ns))), "row {r}: deviation ends");
            assert!(dev[0].h < bar[0].h, "row {r}: deviation drawn thinner so it shows beside the bar");
            let skew = lines_in(&scene, SKEW, band);
            if m.m3_ns == 0.0 {
                assert!(skew.is_empty(), "row {r}: no skew line");
            } else {
                let (a, b) = (expected_x(view, m.m1_ns), expected_x(view, m.m1_ns + m.m3_ns));
                assert_eq!(skew.len(), 1);
                assert!(near(skew[0].x0, clip(a.min(b))) && near(skew[0].x1, clip(a.max(b))), "row {r}: skew {skew:?}");
            }
        }
        assert!(scene.labels.iter().any(|l| l.text == "P / T1"), "rows tall enough carry names");
        assert!(scene.labels.iter().any(|l| l.text.contains("m1 \u{b1} m2")), "legend explains the glyph");
        assert!(scene.labels.iter().any(|l| l.text == "busy = any"), "legend says which busy definition");
    }
}

fn random_rows(rng: &mut Rng, n: usize, span: f64) -> Vec<LocationMoments> {
    (0..n as u32)
        .map(|l| {
            if rng.below(20) == 0 {
                return row(l, 0, 0.0, 0.0, 0.0);
            }
            let m0 = 1 + rng.below(span as u64 / 2);
            let m1 = m0 as f64 / 2.0 + rng.below((span as u64).saturating_sub(m0)) as f64;
            let m2 = m0 as f64 / 2.0 * (1.0 + rng.below(100) as f64 / 50.0);
            let m3 = (rng.below(2001) as f64 - 1000.0) / 1000.0 * m2;
            row(l, m0, m1, m2, m3)
        })
        .collect()
}

#[test]
fn merged_pixel_rows_keep_every_rows_contribution() {
    let mut rng = Rng(2024);
    let span = 1_000_000.0;
    let rows = random_rows(&mut rng, 16_384, span);
    let color = ColorEncoding { name: "m0".into(), values: rows.iter().map(|m| m.m0_ns as f64).collect() };
    for (case, view) in [
        Viewport::fit(span as u64, rows.len(), 1200.0, 800.0),
        Viewport {
            t0_ns: 200_000.0,
            t1_ns: 600_000.0,
            first_row: 3000.3,
            row_height_px: 0.37,
            width_px: 900.0,
            height_px: 700.0,
        },
    ]
    .iter()
    .enumerate()
    {
        let opts = MomentViewOptions {
            definition: String::new(),
            span_ns: (0, span as u64),
            color: Some(color.clone()),
            ..Default::default()
        };
        let scene = build_moment_view(&rows, view, &opts);
        let groups = view.row_groups(rows.len());
        let (x0, _, x1, _) = view.plot_rect();
        let clip = |x: f32| x.clamp(x0, x1);
        // Deviation rects, one per pixel row, keyed by y.
        let dev: std::collections::HashMap<i64, RectInstance> = scene
            .rects
            .iter()
            .filter(|r| r.fill == DEVIATION && r.h <= 1.0)
            .map(|r| ((r.y * 4.0).round() as i64, *r))
            .collect();
        let skew: std::collections::HashMap<i64, RectInstance> = scene
            .rects
            .iter()
            .filter(|r| r.fill == SKEW && r.h <= 1.0)
            .map(|r| ((r.y * 4.0).round() as i64, *r))
            .collect();
        let mut covered = 0;
        for g in &groups {
            for r in g.rows.clone() {
                let m = &rows[r];
                if m.is_idle() {
                    continue;
                }
                let (a, b) = (expected_x(view, m.m1_ns - m.m2_ns), expected_x(view, m.m1_ns + m.m2_ns));
                if b < x0 || a > x1 {
                    continue;
                }
                let d = dev
                    .get(&((g.y * 4.0).round() as i64))
                    .unwrap_or_else(|| panic!("case {case}: row {r} has no deviation area"));
                assert!(
                    d.x <= clip(a) + 0.02 && d.x + d.w >= clip(b) - 0.02,
                    "case {case}: row {r} [{a}, {b}] not inside {d:?}"
                );
                covered += 1;
                // The merged skew-tip area holds this row's tip.
                let tip = expected_x(view, m.m1_ns + m.m3_ns);
                if m.m3_ns != 0.0 && tip >= x0 && tip <= x1 {
                    let s = skew.get(&((g.y * 4.0).round() as i64)).expect("skew tip area");
                    assert!(
                        s.x <= tip + 0.02 && s.x + s.w >= tip - 0.02,
                        "case {case}: row {r} tip {tip} not in {s:?}"
                    );
                }
            }
        }
        assert!(covered > 1000, "case {case}: {covered} rows checked");
        // Every visible row is in exactly one group.
        let visible: usize = groups.iter().map(|g| g.rows.len()).sum();
        let (_, y0, _, y1) = view.plot_rect();
        let expect = ((y1 - y0) as f64 / view.row_height_px as f64).min(rows.len() as f64 - view.first_row.floor());
        assert!((visible as f64 - expect).abs() <= 2.0, "case {case}: {visible} rows grouped, {expect} visible");
        // Instances bounded by pixel rows, not locations.
        assert!(groups.len() <= (y1 - y0) as usize + 1);
        // Four glyph parts and up to two edge marks (a glyph cut by the axis) per pixel row.
        assert!(
            scene.rects.len() + scene.lines.len() <= 6 * groups.len() + 200,
            "case {case}: {} rects",
            scene.rects.len()
        );
    }
}

fn trace_of(locations: &[Vec<(&str, i64, u64)>]) -> Trace {
    let mut b = TraceBuilder::new(Format::Generated);
    let p = b.process(0);
    for (i, ivs) in locations.iter().enumerate() {
        let l = b.location(p, i as i64, LocationKind::CpuThread);
        for &(name, start, dur) in ivs {
            let r = b.region(name, "");
            b.interval(l, r, 1_700_000_000_000_000_000 + start, dur);
        }
    }
    b.finish()
}

#[test]
fn gantt_bars_sit_on_the_busy_intervals_of_the_same_rows() {
    let t = trace_of(&[vec![("mark", 0, 1), ("work", 100, 200), ("MPI_Send", 150, 50)], vec![("work", 600, 300)]]);
    let busy = BusyIntervals::compute(&t, &BusyDefinition::Compute);
    let rows = moments_of_busy(&t, &busy, None);
    let view =
        Viewport { t0_ns: 0.0, t1_ns: 1000.0, first_row: 0.0, row_height_px: 20.0, width_px: 648.0, height_px: 200.0 };
    let scene = build_utilization(&rows, &busy, &view, &UtilizationOptions::default());
    let full = level_color(LEVELS);
    // Location 0: busy [0,1) (mark), [100,150), [200,300); location 1: [600,900).
    let expect: [&[(f64, f64)]; 2] = [&[(100.0, 150.0), (200.0, 300.0)], &[(600.0, 900.0)]];
    for (r, spans) in expect.iter().enumerate() {
        let band = row_band(&view, r);
        let solid = rects_in(&scene, full, band);
        assert_eq!(solid.len(), spans.len(), "row {r}: {solid:?}");
        for (rect, &(a, b)) in solid.iter().zip(spans.iter()) {
            // Cells partly covered at the ends are lighter: the solid run lies within a pixel of the interval.
            let (xa, xb) = (expected_x(&view, a), expected_x(&view, b));
            assert!(rect.x >= xa - 0.01 && rect.x <= xa + 1.0, "row {r}: starts at {} for {xa}", rect.x);
            assert!(
                rect.x + rect.w <= xb + 0.01 && rect.x + rect.w >= xb - 1.0,
                "row {r}: ends at {} for {xb}",
                rect.x + rect.w
            );
        }
    }
    // The 1 ns marker is half a pixel (2 ns per pixel here) but still shades its cell.
    let band0 = row_band(&view, 0);
    assert!(scene
        .rects
        .iter()
        .any(|r| r.y >= band0.0 && r.y < band0.1 && r.x < expected_x(&view, 1.0) + 1.0 && r.fill != full));
}

#[test]
fn gantt_merged_rows_shade_busy_fraction_and_drop_no_row() {
    // Four locations in one pixel row: one busy throughout, one busy for 1 ns, two idle.
    let t = trace_of(&[vec![("work", 0, 1000)], vec![("work", 500, 1)], vec![], vec![]]);
    let busy = BusyIntervals::compute(&t, &BusyDefinition::Any);
    let rows = moments_of_busy(&t, &busy, None);
    let view =
        Viewport { t0_ns: 0.0, t1_ns: 1000.0, first_row: 0.0, row_height_px: 0.25, width_px: 1016.0, height_px: 100.0 };
    let scene = build_utilization(&rows, &busy, &view, &UtilizationOptions::default());
    let (x0, y0, x1, _) = view.plot_rect();
    let cells: Vec<&RectInstance> = scene.rects.iter().filter(|r| (r.y - y0).abs() < 1e-3 && r.h == 1.0).collect();
    let quarter = level_color(LEVELS / 4);
    let total: f32 = cells.iter().filter(|r| r.fill == quarter).map(|r| r.w).sum();
    assert!(total >= (x1 - x0) - 2.0, "a quarter busy everywhere: {cells:?}");
    // The 1 ns of location 1 lifts its cell above a quarter.
    let x = expected_x(&view, 500.0);
    assert!(cells.iter().any(|r| r.x <= x && r.x + r.w > x && r.fill != quarter), "{cells:?}");
}

#[test]
fn both_views_at_sixteen_thousand_rows_are_bounded_by_pixels() {
    let mut rng = Rng(5);
    let mut b = TraceBuilder::new(Format::Generated);
    let p = b.process(0);
    let (work, mpi) = (b.region("work", ""), b.region("MPI_Allreduce", ""));
    for l in 0..16_384i64 {
        let loc = b.location(p, l, LocationKind::CpuThread);
        let mut t = rng.below(1000) as i64;
        for _ in 0..8 {
            let d = 1 + rng.below(100_000);
            b.interval(loc, work, t, d);
            b.interval(loc, mpi, t + d as i64 / 2, d / 4);
            t += d as i64 + rng.below(50_000) as i64;
        }
    }
    let t = b.finish();
    let busy = BusyIntervals::compute(&t, &BusyDefinition::Compute);
    let mut rows = moments_of_busy(&t, &busy, None);
    sort_moments(&mut rows, MomentKey::M2);
    let mut arranged = busy.clone();
    arranged.arrange(rows.iter().map(|m| LocationId(m.location)));
    for view in [
        Viewport::fit(t.span_ns, rows.len(), 1200.0, 900.0),
        Viewport { row_height_px: 3.0, first_row: 100.0, ..Viewport::fit(t.span_ns, rows.len(), 1200.0, 900.0) },
        Viewport { row_height_px: 16.0, first_row: 16_370.0, ..Viewport::fit(t.span_ns, rows.len(), 1200.0, 900.0) },
    ] {
        let (x0, y0, x1, y1) = view.plot_rect();
        let pixel_rows = ((y1 - y0) / view.row_height_px.max(1.0)).ceil() as usize + 1;
        let gantt = build_utilization(&rows, &busy, &view, &UtilizationOptions::default());
        assert_eq!(
            gantt,
            build_utilization(&rows, &arranged, &view, &UtilizationOptions::default()),
            "arranging changes nothing drawn"
        );
        assert!(gantt.rects.len() <= pixel_rows * (x1 - x0) as usize / 2 + 100, "{} rects", gantt.rects.len());
        let moments = build_moment_view(&rows, &view, &MomentViewOptions::default());
        assert!(moments.rects.len() + moments.lines.len() <= 6 * pixel_rows + 200);
        // Same rows, same time axis: the tick labels of both views are identical.
        let ticks = |s: &Scene| {
            s.labels.iter().filter(|l| l.y < 24.0).map(|l| (l.x.to_bits(), l.text.clone())).collect::<Vec<_>>()
        };
        assert_eq!(ticks(&gantt), ticks(&moments));
        assert!(!ticks(&gantt).is_empty());
    }
}

#[test]
fn degenerate_viewports_do_not_panic() {
    let t = trace_of(&[vec![("work", 0, 100)], vec![]]);
    let busy = BusyIntervals::compute(&t, &BusyDefinition::Any);
    let rows = moments_of_busy(&t, &busy, None);
    let base = Viewport::fit(t.span_ns, rows.len(), 400.0, 300.0);
    for view in [
        Viewport { width_px: 0.0, height_px: 0.0, ..base },
        Viewport { t0_ns: 50.0, t1_ns: 50.0, ..base },
        Viewport { t0_ns: 80.0, t1_ns: 20.0, ..base },
        Viewport { t0_ns: f64::NAN, ..base },
        Viewport { t1_ns: 1e30, ..base },
        Viewport { first_row: -3.5, ..base },
        Viewport { first_row: 1e9, ..base },
        Viewport { row_height_px: 0.0, ..base },
        Viewport { row_height_px: 1e-9, ..base },
    ] {
        let m = build_moment_view(&rows, &view, &MomentViewOptions::default());
        let g = build_utilization(&rows, &busy, &view, &UtilizationOptions::default());
        assert!(m.rects.len() < 1000 && g.rects.len() < 10_000, "{view:?}");
        let _ = view.row_at(rows.len(), 100.0);
    }
    let empty = build_moment_view(&[], &base, &MomentViewOptions::default());
    assert!(empty.rects.len() < 50);
}

/// Both halves of the moments pane for `t` under `def`, at a labelled row height.
fn both_views(t: &Trace, def: &BusyDefinition) -> (Vec<LocationMoments>, Viewport, Scene, Scene) {
    let busy = BusyIntervals::compute(t, def);
    let rows = moments_of_busy(t, &busy, None);
    let view =
        Viewport { t0_ns: 0.0, t1_ns: 1000.0, first_row: 0.0, row_height_px: 20.0, width_px: 640.0, height_px: 300.0 };
    let gantt = build_utilization(
        &rows,
        &busy,
        &view,
        &UtilizationOptions { definition: def.describe(), empty_hint: def.empty_hint() },
    );
    let moments = build_moment_view(
        &rows,
        &view,
        &MomentViewOptions {
            definition: def.describe(),
            span_ns: (0, 1000),
            color: None,
            empty_hint: def.empty_hint(),
            axis_ns: None,
            clusters: None,
        },
    );
    (rows, view, gantt, moments)
}

#[test]
fn a_trace_without_compute_time_says_so_and_names_any_region() {
    // Every region is MPI (the sstmacro-style coverage traces): compute finds no busy time anywhere.
    let t = trace_of(&[vec![("MPI_Init", 0, 100), ("MPI_Allreduce", 200, 500)], vec![("MPI_Recv", 50, 800)]]);
    let (rows, _, gantt, moments) = both_views(&t, &BusyDefinition::Compute);
    assert!(rows.iter().all(|m| m.is_idle()));
    for (name, scene) in [("utilization", &gantt), ("moments", &moments)] {
        assert_eq!(scene.marks(), 0, "{name}: nothing of the data is drawn");
        assert!(scene.rects.len() + scene.lines.len() > 0, "{name}: axis and legend are still drawn");
        let notice = scene.notice.as_deref().unwrap_or_else(|| panic!("{name}: no notice"));
        assert!(notice.starts_with("No busy time"), "{name}: {notice}");
        assert!(notice.contains("\"any region\""), "{name}: the notice offers any region: {notice}");
        // The notice is drawn, not only recorded.
        assert!(scene.labels.iter().any(|l| l.text.starts_with("No busy time")), "{name}");
        assert!(scene.labels.iter().any(|l| l.text.contains("any region")), "{name}");
    }
    let both = gantt.beside(moments);
    assert_eq!(both.marks(), 0);
    assert_eq!(both.notice.as_deref().map(|n| n.matches("No busy time").count()), Some(1), "one notice, not two");
    // Under "any region" the same trace draws its busy time and needs no notice.
    let (_, _, gantt, moments) = both_views(&t, &BusyDefinition::Any);
    for scene in [&gantt, &moments] {
        assert!(scene.marks() > 0);
        assert_eq!(scene.notice, None);
        assert!(!scene.labels.iter().any(|l| l.text == NO_BUSY_ROW));
    }
    // A pattern that matches nothing says so in its own words.
    let (_, _, gantt, _) = both_views(&t, &BusyDefinition::Pattern("compute*".into()));
    assert!(gantt.notice.as_deref().is_some_and(|n| n.contains("'compute*'")), "{:?}", gantt.notice);
}

#[test]
fn a_location_without_busy_time_is_marked_in_its_row() {
    // Location 1 only waits in MPI while location 0 computes.
    let t = trace_of(&[vec![("work", 0, 600)], vec![("MPI_Wait", 0, 900)], vec![("work", 100, 200)]]);
    let (rows, view, gantt, moments) = both_views(&t, &BusyDefinition::Compute);
    let idle = rows.iter().position(|m| m.is_idle()).expect("location 1 has no busy time");
    assert_eq!(idle, 1);
    let (top, bottom) = row_band(&view, idle);
    for (name, scene) in [("utilization", &gantt), ("moments", &moments)] {
        assert!(scene.marks() > 0, "{name}");
        assert_eq!(scene.notice, None, "{name}: the trace has busy time, so no notice");
        let marked: Vec<_> = scene.labels.iter().filter(|l| l.text == NO_BUSY_ROW).collect();
        assert_eq!(marked.len(), 1, "{name}: exactly the idle row is marked");
        assert!(marked[0].y > top && marked[0].y < bottom, "{name}: in the idle row's band");
    }
}
