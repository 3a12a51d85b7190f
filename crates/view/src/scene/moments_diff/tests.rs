//! The moments picture of comparisons whose difference is known by construction: a run against itself (no
//! change drawn), one rank made slower (red on its row only, where B's bar passes A's), a region alignment
//! (ticks at m1 less each run's origin), and many locations merged into pixel rows (each pair in one row).

use super::*;
use weft_analyses::compare::{compare, Align, CompareOptions, RankMap, Run};
use weft_model::{Format, LocationKind, Trace, TraceBuilder};

/// `ranks` ranks; each runs `iterations` of `compute` (`compute_ns(rank)`) then `MPI_Barrier` (50 ns).
fn run(ranks: usize, iterations: u64, compute_ns: impl Fn(usize) -> u64) -> Trace {
    let mut b = TraceBuilder::new(Format::Generated);
    let locs: Vec<_> = (0..ranks)
        .map(|r| {
            let p = b.process(r as i64);
            b.location(p, 0, LocationKind::CpuThread)
        })
        .collect();
    let (compute, barrier) = (b.region("compute", ""), b.region("MPI_Barrier", "MPI"));
    for (r, &l) in locs.iter().enumerate() {
        let c = compute_ns(r);
        for k in 0..iterations {
            let t = k * (c + 50);
            b.interval(l, compute, t as i64, c);
            b.interval(l, barrier, (t + c) as i64, 50);
        }
    }
    b.finish()
}

fn compared(a: &Trace, b: &Trace, options: &CompareOptions) -> Comparison {
    let run = |t| Run { trace: t, waits: false, kept: None };
    compare(run(a), run(b), options).expect("compare")
}

/// The rects of the rows (below the legend and axis) filled `fill`.
fn filled(d: &MomentsDiff, fill: Rgba) -> Vec<RectInstance> {
    let top = d.rows.first().map_or(f32::INFINITY, |r| r.y);
    d.scene.rects.iter().filter(|r| r.fill == fill && r.y >= top - 0.01).copied().collect()
}

fn row_of(d: &MomentsDiff, y: f32) -> usize {
    d.rows.iter().position(|r| y >= r.y - 0.01 && y < r.y + r.h).expect("in a row")
}

#[test]
fn a_run_against_itself_draws_both_glyphs_alike_and_no_change() {
    let t = run(4, 10, |r| 1000 + 100 * r as u64);
    let c = compared(&t, &t, &CompareOptions::default());
    let d = diff_moments(&c, 900.0, "itself");
    assert_eq!(d.rows.len(), 4);
    assert!(filled(&d, GREW).is_empty() && filled(&d, SHRANK).is_empty(), "nothing changed, nothing coloured");
    assert!(!d.scene.lines.iter().any(|l| l.color == GREW || l.color == SHRANK), "no mean moved");
    let (a, b) = (filled(&d, A_FILL), filled(&d, B_FILL));
    assert_eq!((a.len(), b.len()), (4, 4), "a bar of each run on every row");
    for (x, y) in a.iter().zip(&b) {
        assert_eq!((x.x, x.w), (y.x, y.w), "the same bar");
        assert_eq!(row_of(&d, x.y), row_of(&d, y.y));
        assert!(y.y > x.y, "B's below A's");
    }
    let texts: Vec<&str> = d.scene.labels.iter().map(|l| l.text.as_str()).collect();
    assert!(texts.iter().any(|l| l.contains("paired by index")), "{texts:?}");
}

#[test]
fn one_rank_made_slower_is_red_on_its_row_only_where_b_passes_a() {
    let a = run(4, 10, |_| 1000);
    let b = run(4, 10, |r| if r == 2 { 2000 } else { 1000 });
    let c = compared(&a, &b, &CompareOptions::default());
    let d = diff_moments(&c, 1000.0, "slower");
    let red = filled(&d, GREW);
    assert!(!red.is_empty(), "B's longer busy time is red");
    assert!(red.iter().all(|r| row_of(&d, r.y) == 2), "only rank 2 changed: {red:?}");
    assert!(filled(&d, SHRANK).is_empty(), "A's bar lies within B's: nothing lost");
    // The red parts are B's bar less A's, on the picture's axis.
    let scale = TimeScale { t0_ns: d.t0_ns, t1_ns: d.t1_ns, x0: NAME_W, x1: 1000.0 - MARGIN };
    let (ga, gb) =
        (glyph(c.locations[2].a.as_ref().unwrap(), 0).unwrap(), glyph(c.locations[2].b.as_ref().unwrap(), 0).unwrap());
    let want: Vec<(f32, f32)> =
        minus(gb.bar, Some(ga.bar)).into_iter().filter_map(|p| span_px(&scale, p, 1.0)).collect();
    let got: Vec<(f32, f32)> = red.iter().map(|r| (r.x, r.w)).collect();
    assert_eq!(got, want);
    assert!(gb.bar.1 > ga.bar.1, "B's busy time ends later");
    // Each side's deviation is drawn over its bar, out to m1 +- m2.
    for (k, r) in c.locations.iter().enumerate() {
        for (side, below) in [(r.a.as_ref().unwrap(), false), (r.b.as_ref().unwrap(), true)] {
            let g = glyph(side, 0).unwrap();
            let (x, w) = span_px(&scale, g.dev, 1.0).unwrap();
            let found = d.scene.rects.iter().any(|q| {
                q.fill == DEVIATION
                    && (q.x - x).abs() < 0.01
                    && (q.w - w).abs() < 0.01
                    && row_of(&d, q.y) == k
                    && (q.y > d.rows[k].y + d.rows[k].h / 2.0) == below
            });
            assert!(found, "row {k}: a deviation bar for {}", if below { "B" } else { "A" });
        }
    }
    // B's mean comes later on rank 2: a red line from A's tick to B's.
    assert!(d.scene.lines.iter().any(|l| l.color == GREW && row_of(&d, l.y0) == 2));
    // The pair's name, and a hover row per pair.
    assert_eq!(d.rows.iter().map(|r| (r.first, r.count)).collect::<Vec<_>>(), vec![(0, 1), (1, 1), (2, 1), (3, 1)]);
}

#[test]
fn aligned_at_a_region_instance_glyphs_sit_at_their_time_from_each_origin() {
    // B's compute is slower: aligned at the 5th compute each run's 0 is there, and the ticks sit at m1 - origin.
    let a = run(2, 10, |_| 1000);
    let b = run(2, 10, |_| 1500);
    let options =
        CompareOptions { align: Align::parse("region:compute:5").unwrap(), ranks: RankMap::Index, window: None };
    let c = compared(&a, &b, &options);
    let w = c.windows.expect("windows");
    assert_eq!((w.a.origin_ns, w.b.origin_ns), (4 * 1050, 4 * 1550));
    let d = diff_moments(&c, 800.0, "aligned");
    assert!(d.t0_ns <= 0.0, "0 is on the axis");
    let scale = TimeScale { t0_ns: d.t0_ns, t1_ns: d.t1_ns, x0: NAME_W, x1: 800.0 - MARGIN };
    for (k, row) in c.locations.iter().enumerate() {
        for (side, origin) in [(row.a.as_ref().unwrap(), w.a.origin_ns), (row.b.as_ref().unwrap(), w.b.origin_ns)] {
            let x = scale.x(side.moments.m1_ns - origin as f64);
            assert!(
                d.scene.lines.iter().any(|l| l.color == TICK && (l.x0 - x).abs() < 0.01 && row_of(&d, l.y0) == k),
                "row {k}: a tick at {x}"
            );
        }
    }
    let texts: Vec<&str> = d.scene.labels.iter().map(|l| l.text.as_str()).collect();
    assert!(texts.iter().any(|l| l.contains("instance 5 of compute")), "{texts:?}");
}

#[test]
fn many_pairs_merge_into_pixel_rows_each_pair_in_one() {
    let a = run(3000, 2, |r| 100 + r as u64 % 7);
    let b = run(3000, 2, |r| 100 + r as u64 % 5);
    let c = compared(&a, &b, &CompareOptions::default());
    let d = diff_moments(&c, 900.0, "many");
    assert!(d.rows.len() <= PLOT_MAX_PX as usize && d.rows.len() > 1);
    let mut next = 0;
    for r in &d.rows {
        assert_eq!(r.first, next);
        assert!(r.h >= 1.0);
        next += r.count;
    }
    assert_eq!(next as usize, c.locations.len());
    assert!(d.scene.height <= HEAD_PX + AXIS_HEIGHT_PX + PLOT_MAX_PX + 20.0);
}
