//! The timeline view: fit shows the whole span; zoom keeps the time under the pointer; pan moves by pixels'
//! worth of time; scroll moves rows; hovering an interval's drawn rect names that interval and outlines it;
//! a view restored from its state is the same view; the location filter changes the rows.

use super::{f, rects_at, round_trips};
use std::rc::Rc;
use weft::model::{Format, LocationKind, Trace, TraceBuilder};
use weft::samples::utilization::utilization_trace;
use weft::scene::timeline::region_colors;
use weft::views::timeline::TimelinePane;
use weft::views::Pane;

fn trace() -> Rc<Trace> {
    Rc::new(utilization_trace(24, 24 * 61))
}

/// The time at screen x in state `s`.
fn t_at(s: &serde_json::Value, x: f64) -> f64 {
    let (x0, w) = (f(s, "track_x0"), f(s, "width"));
    f(s, "t0_ns") + (x - x0) / (w - x0) * (f(s, "t1_ns") - f(s, "t0_ns"))
}

#[test]
fn zoom_pan_scroll_and_fit_change_the_state_as_they_say() {
    let trace = trace();
    let mut p = TimelinePane::new(trace.clone(), 900.0, 300.0);
    let s0 = p.state();
    assert_eq!(f(&s0, "t0_ns"), 0.0);
    assert!(f(&s0, "t1_ns") >= trace.span_ns as f64, "fitted: the whole span is shown");
    assert_eq!(s0["row_count"], 24);

    let x = 600.0;
    p.zoom(x as f32, 4.0);
    let s1 = p.state();
    let w0 = f(&s0, "t1_ns") - f(&s0, "t0_ns");
    let w1 = f(&s1, "t1_ns") - f(&s1, "t0_ns");
    assert!((w1 - w0 / 4.0).abs() < 1e-6 * w0, "zoom by 4 shows a quarter of the time");
    assert!((t_at(&s1, x) - t_at(&s0, x)).abs() < 1e-6 * w0, "the time under the pointer stays");

    p.pan(100.0);
    let s2 = p.state();
    let per_px = w1 / (f(&s1, "width") - f(&s1, "track_x0"));
    assert!((f(&s2, "t0_ns") - f(&s1, "t0_ns") - 100.0 * per_px).abs() < 1e-6 * w0, "pan by 100 px");
    assert_eq!(p.time_range(), Some((f(&s2, "t0_ns"), f(&s2, "t1_ns"))));

    p.scroll(50.0);
    let s3 = p.state();
    assert_eq!(f(&s3, "scroll_y"), 50.0, "24 rows do not fit in 300 px: scrolling moves them");
    assert_eq!(f(&s3["rows"][0], "y"), f(&s2["rows"][0], "y") - 50.0);
    p.scroll(-1e6);
    assert_eq!(f(&p.state(), "scroll_y"), 0.0, "never above the first row");

    p.fit();
    let s4 = p.state();
    assert_eq!((f(&s4, "t0_ns"), f(&s4, "t1_ns")), (f(&s0, "t0_ns"), f(&s0, "t1_ns")));
}

#[test]
fn hover_at_a_drawn_interval_names_it() {
    let trace = trace();
    let mut p = TimelinePane::new(trace.clone(), 900.0, 400.0);
    p.zoom(450.0, 3.0);
    let s = p.state();
    let colors = region_colors(&trace);
    let iv = &trace.intervals;
    let lane = f(&s, "lane_px");
    let (t0, t1, x0, width) = (f(&s, "t0_ns"), f(&s, "t1_ns"), f(&s, "track_x0"), f(&s, "width"));
    let x_of = |t: f64| x0 + (t - t0) / (t1 - t0) * (width - x0);
    let mut hovered = 0;
    let bordered = |s: &weft::scene::Scene| s.rects.iter().filter(|r| r.border_px > 0.0).count();
    let plain = bordered(&p.scene());
    // Intervals of the rows on screen that are at least 6 px wide: at each one's centre.
    for i in 0..iv.len() {
        let (a, b) = (x_of(iv.start_ns[i] as f64), x_of((iv.start_ns[i] + iv.dur_ns[i]) as f64));
        if b - a < 6.0 || a < x0 || b > width {
            continue;
        }
        let Some(row) = s["rows"].as_array().unwrap().iter().find(|r| r["location"] == iv.location[i].0) else {
            continue;
        };
        let y = f(row, "y") + iv.depth[i] as f64 * lane + lane / 2.0;
        if y < f(&s, "axis_px") + 2.0 || y > f(&s, "height") - 2.0 {
            continue;
        }
        let (x, y) = (((a + b) / 2.0) as f32, y as f32);
        let scene = p.scene();
        let colour = colors[iv.region[i].index()];
        assert!(
            rects_at(&scene, x, y).iter().any(|r| r.fill == colour),
            "interval {i} is drawn in its region's colour at ({x}, {y})"
        );
        let h = p.hover(x, y).unwrap_or_else(|| panic!("something is under interval {i}'s centre"));
        assert_eq!(h.detail["interval"], i, "hover at interval {i}'s centre names it");
        assert_eq!(h.title, trace.region_name(iv.region[i]));
        let outlined = p.scene();
        assert!(rects_at(&outlined, x, y).iter().any(|r| r.fill == colour && r.border_px > 0.0), "outlined");
        hovered += 1;
        if hovered == 40 {
            break;
        }
    }
    assert!(hovered >= 10, "enough intervals were hovered ({hovered})");
    assert!(bordered(&p.scene()) > plain, "the last interval hovered is outlined");
    p.clear_hover();
    assert_eq!(bordered(&p.scene()), plain, "clear_hover removes the outline");
    assert!(p.hover(5.0, 5.0).is_none(), "nothing under the axis corner");
}

#[test]
fn restore_of_the_state_round_trips_and_bad_values_are_ignored() {
    let trace = trace();
    let mut p = TimelinePane::new(trace.clone(), 900.0, 300.0);
    p.zoom(300.0, 2.5);
    p.pan(-40.0);
    p.scroll(70.0);
    round_trips(&p, &mut TimelinePane::new(trace.clone(), 900.0, 300.0));
    let before = p.state();
    p.restore(&serde_json::json!({"t0_ns": "soon", "t1_ns": 5.0, "scroll_y": null}));
    assert_eq!(p.state(), before, "values that are not numbers change nothing");
    p.restore(&serde_json::json!({"t0_ns": 10.0, "t1_ns": 5.0}));
    assert_eq!(p.state(), before, "an empty range is refused");
}

#[test]
fn the_location_filter_keeps_matching_rows() {
    let trace = trace();
    let mut p = TimelinePane::new(trace.clone(), 900.0, 300.0);
    let name = trace.location_name(weft::model::LocationId(5)).to_string();
    p.configure("locations", &name).unwrap();
    let s = p.state();
    assert!(f(&s, "row_count") >= 1.0 && f(&s, "row_count") < 24.0, "{s}");
    assert!(s["rows"].as_array().unwrap().iter().all(|r| r["name"] == name.as_str()));
    assert!(p.configure("locations", "no such thread").is_err());
    assert_eq!(p.state()["row_count"], s["row_count"], "a filter matching nothing is refused, the view kept");
    p.configure("locations", "*").unwrap();
    assert_eq!(p.state()["row_count"], 24);
    assert!(p.configure("colour", "red").is_err());
}

#[test]
fn hover_on_a_drawn_arrow_names_its_flow() {
    let trace = Rc::new(crate::common::read::read_bytes("sample.json", &weft::samples::builtin_chrome_json()).unwrap());
    assert!(!trace.messages.is_empty(), "the built-in sample has flows");
    let mut p = TimelinePane::new(trace.clone(), 1400.0, 900.0);
    let s = p.state();
    let (t0, t1, x0, width) = (f(&s, "t0_ns"), f(&s, "t1_ns"), f(&s, "track_x0"), f(&s, "width"));
    let x_of = |t: u64| (x0 + (t as f64 - t0) / (t1 - t0) * (width - x0)) as f32;
    let arrows: Vec<_> = p.scene().lines.into_iter().filter(|l| l.arrow > 0.0).collect();
    assert!(!arrows.is_empty(), "arrows are drawn");
    let mut exact = 0;
    for a in &arrows {
        let (x, y) = ((a.x0 + a.x1) / 2.0, (a.y0 + a.y1) / 2.0);
        if x < x0 as f32 || y < f(&s, "axis_px") as f32 {
            continue;
        }
        let h = p.hover(x, y).expect("something is under an arrow's middle");
        let j = h.detail["flow"].as_u64().expect("an arrow's middle names a flow, not the slice beneath") as usize;
        let m = &trace.messages;
        let (sx, rx) = (x_of(m.send_ns[j]), x_of(m.recv_ns[j]));
        if (sx - a.x0).abs() < 0.01 && (rx - a.x1).abs() < 0.01 {
            exact += 1;
            assert_eq!(h.detail["send_ns"], m.send_ns[j]);
        } else {
            // Arrows may cross at this point: the one named passes it too.
            assert!(sx.min(rx) - 3.0 <= x && x <= sx.max(rx) + 3.0, "flow {j} spans x {x}");
        }
    }
    assert!(exact * 2 >= arrows.len(), "most arrows name themselves ({exact} of {})", arrows.len());
}

#[test]
fn a_selection_is_drawn_profiled_and_restored() {
    use weft::analyses::moments::TimeWindow;
    use weft::analyses::profile::profile;
    let trace = trace();
    let mut p = TimelinePane::new(trace.clone(), 900.0, 300.0);
    let s = p.state();
    assert!(s["selection"].is_null());
    let (x0, x1) = (400.0f32, 250.0f32);
    let w = p.select_px(x0, x1).expect("a range is selected");
    let (a, b) = (t_at(&s, x1 as f64), t_at(&s, x0 as f64));
    assert_eq!((w.start_ns, w.end_ns), (a.round() as u64, b.round() as u64), "either order, whole ns");
    assert_eq!(p.state()["selection"], serde_json::json!({"t0_ns": w.start_ns, "t1_ns": w.end_ns}));

    // The band covers the selected x range, edge lines at both ends.
    let scene = p.scene();
    let band = scene.rects.iter().find(|r| (r.x - x1).abs() < 0.01 && (r.x + r.w - x0).abs() < 0.01);
    assert!(band.is_some_and(|r| r.y == f(&s, "axis_px") as f32), "a band from x {x1} to {x0}");
    let edge = |l: &&weft::scene::LineInstance| l.x0 == l.x1 && ((l.x0 - x0).abs() < 0.5 || (l.x0 - x1).abs() < 0.5);
    assert!(scene.lines.iter().filter(edge).count() >= 2, "the band's edges");
    let plain = TimelinePane::new(trace.clone(), 900.0, 300.0).scene();
    assert_eq!(scene.marks(), plain.marks(), "the band is decoration");

    // The table of the selection, of the whole trace, and filtered to some locations: the analysis' table.
    let (win, rows) = p.profile(false, "");
    assert_eq!(win, w);
    assert_eq!(rows, profile(&trace, Some(w), |_| true));
    assert!(rows.len() >= 2, "{rows:?}");
    let (win, whole) = p.profile(true, "");
    assert_eq!(win, TimeWindow::whole(&trace));
    assert_eq!(whole, profile(&trace, None, |_| true));
    let name = trace.location_name(weft::model::LocationId(3)).to_string();
    let (_, one) = p.profile(false, &name);
    assert_eq!(one, profile(&trace, Some(w), |l| trace.location_name(l) == name));
    assert!(one.iter().map(|r| r.count).sum::<u64>() < rows.iter().map(|r| r.count).sum::<u64>());

    // Past the trace's end it is clipped; an empty range clears it; restore puts it back.
    let sel = p.select(-50.0, trace.span_ns as f64 * 3.0).unwrap();
    assert_eq!((sel.start_ns, sel.end_ns), (0, trace.span_ns));
    p.select_px(300.0, 500.0);
    p.mark_region(Some(1));
    p.search("mpi_");
    p.search_step(true);
    round_trips(&p, &mut TimelinePane::new(trace.clone(), 900.0, 300.0));
    assert!(p.select(10.0, 10.2).is_none() && p.state()["selection"].is_null());
}

#[test]
fn a_marked_region_is_drawn_over_its_intervals_only() {
    let trace = trace();
    let mut p = TimelinePane::new(trace.clone(), 900.0, 400.0);
    p.zoom(450.0, 3.0);
    let s = p.state();
    let colors = region_colors(&trace);
    let region =
        (0..trace.regions.len() as u32).find(|&r| trace.region_name(weft::model::RegionId(r)) == "solve").unwrap();
    assert!(!p.mark_region(Some(trace.regions.len() as u32)), "no such region");
    assert!(p.mark_region(Some(region)));
    assert_eq!(p.state()["marked_region"], region);
    let scene = p.scene();
    let iv = &trace.intervals;
    let lane = f(&s, "lane_px");
    let (t0, t1, x0, width) = (f(&s, "t0_ns"), f(&s, "t1_ns"), f(&s, "track_x0"), f(&s, "width"));
    let x_of = |t: f64| x0 + (t - t0) / (t1 - t0) * (width - x0);
    let marked = |r: &&weft::scene::RectInstance| r.border_px == 1.0;
    let mut seen = 0;
    for i in 0..iv.len() {
        let (a, b) = (x_of(iv.start_ns[i] as f64), x_of((iv.start_ns[i] + iv.dur_ns[i]) as f64));
        if b - a < 6.0 || a < x0 || b > width {
            continue;
        }
        let Some(row) = s["rows"].as_array().unwrap().iter().find(|r| r["location"] == iv.location[i].0) else {
            continue;
        };
        let y = f(row, "y") + iv.depth[i] as f64 * lane + lane / 2.0;
        if y < f(&s, "axis_px") + 2.0 || y > f(&s, "height") - 2.0 {
            continue;
        }
        let here: Vec<_> = rects_at(&scene, ((a + b) / 2.0) as f32, y as f32).into_iter().filter(marked).collect();
        if iv.region[i].0 == region {
            assert!(here.iter().any(|r| r.fill == colors[region as usize]), "interval {i} of the marked region");
            seen += 1;
        } else {
            assert!(here.is_empty(), "interval {i} of another region is not marked");
        }
    }
    assert!(seen >= 5, "marked intervals checked: {seen}");
    p.mark_region(None);
    assert_eq!(p.scene().rects.iter().filter(|r| r.border_px == 1.0).count(), 0, "the mark is cleared");
}

#[test]
fn search_counts_matches_and_steps_to_each_zoomed() {
    use weft::views::timeline::name_matches;
    let trace = trace();
    let mut p = TimelinePane::new(trace.clone(), 900.0, 300.0);
    let iv = &trace.intervals;
    let want = |pat: &str| (0..iv.len()).filter(|&i| name_matches(pat, trace.region_name(iv.region[i]))).count();
    assert!(
        name_matches("mpi_", "MPI_Send")
            && name_matches("MPI_*all*", "MPI_Allreduce")
            && !name_matches("MPI_*all", "MPI_Send")
    );
    let n = p.search("mpi_");
    assert_eq!(n, want("mpi_"));
    assert!(n > 3);
    assert_eq!(p.search("MPI_*all*"), want("MPI_*all*"));
    assert!(want("MPI_*all*") < n);
    assert_eq!(p.search("no such region"), 0);
    assert!(p.search_step(true).is_none());

    p.search("MPI_*all*");
    let first = p.search_step(true).unwrap();
    assert_eq!((first.at, first.count), (0, want("MPI_*all*")));
    assert!(name_matches("MPI_*all*", &first.region), "{}", first.region);
    let (t0, t1) = p.time_range().unwrap();
    assert!(t0 <= first.start_ns as f64 && (first.start_ns + first.dur_ns) as f64 <= t1, "zoomed to the match");
    assert!(t1 - t0 <= first.dur_ns as f64 + 200.0f64.max(first.dur_ns as f64) + 1.0, "zoomed in");
    assert_eq!(p.state()["search"]["hit"]["interval"], first.interval);
    let s = p.state();
    let row = s["rows"].as_array().unwrap().iter().find(|r| r["location"] == first.location).unwrap();
    assert!(f(row, "y") >= f(&s, "axis_px") && f(row, "y") < f(&s, "height"), "its row is on screen");
    let second = p.search_step(true).unwrap();
    assert_eq!(second.at, 1);
    assert!(second.start_ns >= first.start_ns, "matches in time order");
    assert_eq!(p.search_step(false).unwrap(), first);
    assert_eq!(p.search_step(false).unwrap().at, first.count - 1, "previous wraps to the last");
    // The current match is outlined; the matches are marked.
    let outlined = p.scene().rects.iter().filter(|r| r.border_px == 2.0 && r.fill == 0).count();
    assert_eq!(outlined, 1);
    p.search("");
    assert!(p.state()["search"].is_null());
}

#[test]
fn the_legend_names_the_regions_with_most_exclusive_time_in_their_colours() {
    let trace = trace();
    let p = TimelinePane::new(trace.clone(), 900.0, 300.0);
    let colors = region_colors(&trace);
    // Exclusive time by brute force: each interval's duration minus its direct children's.
    let iv = &trace.intervals;
    let mut exclusive = vec![0u64; trace.regions.len()];
    for i in 0..iv.len() {
        let children: u64 = (0..iv.len())
            .filter(|&j| {
                iv.location[j] == iv.location[i]
                    && iv.depth[j] == iv.depth[i] + 1
                    && iv.start_ns[j] >= iv.start_ns[i]
                    && iv.end_ns(j) <= iv.end_ns(i)
            })
            .map(|j| iv.dur_ns[j])
            .sum();
        exclusive[iv.region[i].index()] += iv.dur_ns[i] - children;
    }
    let legend = p.legend(3);
    assert_eq!(legend.len(), 3);
    let mut last = u64::MAX;
    for (r, name, colour) in &legend {
        assert_eq!(name, trace.region_name(weft::model::RegionId(*r)));
        assert_eq!(*colour, colors[*r as usize], "{name} in the colour it is drawn in");
        assert!(exclusive[*r as usize] <= last, "most exclusive time first");
        last = exclusive[*r as usize];
    }
    let shown: Vec<u32> = legend.iter().map(|l| l.0).collect();
    let rest = (0..trace.regions.len() as u32).filter(|r| !shown.contains(r));
    assert!(rest.map(|r| exclusive[r as usize]).all(|e| e <= last), "no region left out has more exclusive time");
}

/// `procs` processes of `threads` threads each; every thread busy in a nested pair of regions per period
/// (thread k of a process only in its own window, so a folded row must show each thread's slices), and a
/// message from each process to the next.
fn ranks(procs: usize, threads: usize) -> Rc<Trace> {
    use weft::model::{Format, LocationKind, MessageKind, MessageRecord, TraceBuilder};
    let mut b = TraceBuilder::new(Format::Generated);
    let outer = b.region("compute", "");
    let inner = b.region("kernel", "");
    let name = b.intern("");
    let mut locs = Vec::new();
    for p in 0..procs {
        let pid = b.process(p as i64);
        for t in 0..threads {
            locs.push(b.location(pid, (p * 1000 + t) as i64, LocationKind::CpuThread));
        }
    }
    for (k, &l) in locs.iter().enumerate() {
        let t = (k % threads) as i64;
        for period in 0..10i64 {
            let s = period * 10_000_000 + t * 2_000_000;
            b.interval(l, outer, s, 1_500_000);
            b.interval(l, inner, s + 100_000, 500_000);
        }
    }
    for p in 0..procs {
        let (from, to) = (locs[p * threads], locs[((p + 1) % procs) * threads]);
        b.message(MessageRecord {
            kind: MessageKind::PointToPoint,
            sender: from,
            receiver: to,
            send_ns: 90_000_000,
            recv_ns: 99_000_000,
            posted_ns: 99_000_000,
            size_bytes: 8,
            tag: 0,
            name,
        });
    }
    Rc::new(b.finish())
}

fn rows(s: &serde_json::Value) -> &Vec<serde_json::Value> {
    s["rows"].as_array().unwrap()
}

#[test]
fn compact_rows_fit_every_location_and_the_label_column_still_names_each() {
    let trace = ranks(64, 1);
    let mut p = TimelinePane::new(trace.clone(), 1200.0, 700.0);
    let normal = p.state();
    let bottom = f(&normal["overview"], "y");
    assert!(rows(&normal).iter().any(|r| f(r, "y") > bottom), "64 ranks of two lanes do not fit normally");
    p.configure("compact", "on").unwrap();
    for height in [700.0, 420.0] {
        p.resize(1200.0, height);
        let s = p.state();
        assert_eq!(s["compact"], true);
        let bottom = f(&s["overview"], "y");
        assert_eq!(rows(&s).len(), 64);
        for r in rows(&s) {
            assert!(
                f(r, "y") >= f(&s, "axis_px") - 1e-3 && f(r, "y") + f(r, "height") <= bottom + 1e-3,
                "{r} {bottom}"
            );
        }
        // Labels thinned to what fits: none overlaps the next.
        let sc = p.scene();
        let mut gutter: Vec<_> =
            sc.labels.iter().filter(|l| l.x < 20.0 && l.y > 28.0 && (l.y as f64) < bottom).collect();
        gutter.sort_by(|a, b| a.y.total_cmp(&b.y));
        assert!(gutter.len() >= 10, "{} labels", gutter.len());
        let first = &rows(&s)[0];
        assert!(gutter[0].y as f64 <= f(first, "y") + f(first, "height"), "the first row is labelled");
        assert!(gutter.windows(2).all(|w| w[1].y - w[0].y >= w[0].size_px - 1e-3), "labels overlap");
        // Hover in the label column names every row, labelled or not.
        for r in rows(&s) {
            let y = (f(r, "y") + f(r, "height") / 2.0) as f32;
            let h = p.hover(50.0, y).expect("the label column names the row");
            assert_eq!(h.detail["location"], r["location"], "at y {y}");
        }
    }
    p.configure("compact", "off").unwrap();
    assert_eq!(rows(&p.state()), rows(&normal), "compact off puts the rows back");
}

/// Compact rows give each of 10,000 locations a pixel (issue 50: thinner rows vanished) and scroll; the
/// scene stays bounded by pixels.
#[test]
fn ten_thousand_locations_get_a_pixel_each_and_the_scene_stays_bounded_by_pixels() {
    let trace = ranks(10_000, 1);
    let mut p = TimelinePane::new(trace, 1600.0, 900.0);
    p.configure("compact", "on").unwrap();
    let s = p.state();
    assert_eq!(f(&s, "row_count"), 10_000.0);
    assert!(rows(&s).iter().all(|r| f(r, "height") >= 1.0 - 1e-6), "every location at least a pixel");
    let bottom = f(&s["overview"], "y");
    p.scroll(1e9);
    let end = p.state();
    let last = rows(&end).last().unwrap();
    assert!(
        f(last, "y") + f(last, "height") <= bottom + 1e-3 && f(last, "y") >= f(&s, "axis_px"),
        "scrolled, the last row is on screen: {last}"
    );
    let sc = p.scene();
    // Rows share pixel lines: at most a few rects per pixel of the plot, whatever the row count.
    let plot_px = (1600.0 - f(&s, "track_x0")) * (bottom - 28.0);
    assert!((sc.rects.len() as f64) < plot_px / 4.0, "{} rects", sc.rects.len());
    assert!(sc.marks() > 0);
}

#[test]
fn a_click_on_a_process_header_folds_its_threads_and_another_unfolds_them() {
    let trace = ranks(4, 4);
    let mut p = TimelinePane::new(trace.clone(), 1200.0, 800.0);
    let before = p.state();
    let header_y = |s: &serde_json::Value, process: u64| {
        let first = rows(s).iter().find(|r| r["process_id"] == process).unwrap();
        (f(first, "y") - 11.0) as f32 // the header's band is just above its first row
    };
    assert!(p.click(10.0, header_y(&before, 1)), "the click folds");
    let s = p.state();
    assert_eq!(s["folded"], "1");
    assert_eq!(f(&s, "row_count"), 16.0, "a folded process keeps its rows, drawn as one");
    let folded: Vec<_> = rows(&s).iter().filter(|r| r["process_id"] == 1).collect();
    assert!(folded.iter().all(|r| r["folded"] == true && r["lanes"] == 1 && r["y"] == folded[0]["y"]));
    let others: Vec<_> = rows(&s).iter().filter(|r| r["process_id"] != 1).collect();
    assert!(others.iter().all(|r| r["folded"] == false && r["lanes"] == 2));
    let sc = p.scene();
    assert!(sc.labels.iter().any(|l| l.text.starts_with('\u{25b8}') && l.text.contains("(4 rows)")));
    // The summary row shows every thread's slices: each thread's own window hovers to its own location.
    let y = (f(folded[0], "y") + 9.0) as f32;
    let (t0, t1, x0, w) = (f(&s, "t0_ns"), f(&s, "t1_ns"), f(&s, "track_x0"), f(&s, "width"));
    for k in 0..4u64 {
        let t = (k * 2_000_000 + 300_000) as f64;
        let x = (x0 + (t - t0) / (t1 - t0) * (w - x0)) as f32;
        let h = p.hover(x, y).expect("a slice under the summary row");
        assert_eq!(h.detail["location"], folded[k as usize]["location"], "thread {k}'s slice");
    }
    // The folded row's label unfolds it again; the rows are as they were.
    assert!(p.click(20.0, y));
    assert_eq!(p.state()["rows"], before["rows"]);
    assert_eq!(p.state()["folded"], "");
    // As an option (a permalink's), the same.
    p.configure("folded", "1").unwrap();
    assert_eq!(p.state()["rows"], s["rows"]);
    assert!(p.configure("folded", "2-1").is_err());
}

#[test]
fn hidden_locations_lose_their_rows_and_the_list_says_so() {
    let trace = ranks(4, 4);
    let mut p = TimelinePane::new(trace.clone(), 1200.0, 800.0);
    assert!(p.set_hidden(5, true));
    assert!(p.set_hidden(6, true));
    let s = p.state();
    assert_eq!(s["hidden"], "5-6");
    assert_eq!(f(&s, "row_count"), 14.0);
    assert!(rows(&s).iter().all(|r| r["location"] != 5 && r["location"] != 6));
    let list = p.location_list("", 0, 100);
    let shown: Vec<bool> =
        list["processes"][1]["locations"].as_array().unwrap().iter().map(|l| l["shown"].as_bool().unwrap()).collect();
    assert_eq!(shown, vec![true, false, false, true]);
    let filtered = p.location_list("process 3", 0, 100);
    assert_eq!(filtered["matched"], 4, "{filtered}");
    assert_eq!(p.location_list("", 10, 3)["listed"], 3, "pages of the list");
    // Hiding everything is refused and changes nothing.
    for l in 0..16 {
        p.set_hidden(l, true);
    }
    assert_eq!(f(&p.state(), "row_count"), 1.0, "the last row stays");
    p.configure("hidden", "").unwrap();
    assert_eq!(f(&p.state(), "row_count"), 16.0);
}

#[test]
fn a_click_on_the_overview_centres_the_window_there_and_the_strip_marks_it() {
    let trace = ranks(8, 2);
    let mut p = TimelinePane::new(trace.clone(), 1200.0, 600.0);
    p.zoom(700.0, 20.0);
    let s = p.state();
    let w = f(&s, "t1_ns") - f(&s, "t0_ns");
    let (x0, x1, y) = (f(&s["overview"], "x0"), f(&s["overview"], "x1"), f(&s["overview"], "y"));
    let x = x0 + 0.25 * (x1 - x0);
    assert!(p.hover(x as f32, (y + 10.0) as f32).is_some_and(|h| h.title == "overview"));
    assert!(p.click(x as f32, (y + 10.0) as f32));
    let s = p.state();
    let mid = (f(&s, "t0_ns") + f(&s, "t1_ns")) / 2.0;
    assert!((mid - 0.25 * trace.span_ns as f64).abs() < 1e-6 * trace.span_ns as f64, "{mid}");
    assert!((f(&s, "t1_ns") - f(&s, "t0_ns") - w).abs() < 1e-6 * w, "the window keeps its width");
    // The marker sits where the window is on the strip.
    let sc = p.scene();
    let xm = x0 + f(&s, "t0_ns") / trace.span_ns as f64 * (x1 - x0);
    assert!(sc.rects.iter().any(|r| r.border_px > 0.0 && r.y > y as f32 && (r.x as f64 - xm).abs() < 2.0));
}

#[test]
fn zoomed_in_the_axis_labels_are_relative_and_arrows_stay_out_of_the_label_column() {
    let trace = ranks(8, 1);
    let mut p = TimelinePane::new(trace.clone(), 1200.0, 600.0);
    // Whole run: absolute labels.
    let labels = |p: &TimelinePane| p.scene().labels.into_iter().filter(|l| l.y < 28.0).collect::<Vec<_>>();
    assert!(labels(&p).iter().all(|l| !l.text.starts_with('+') && !l.text.starts_with("from")));
    // A 100 us window at 60 ms: "+20 us"-style ticks and the start once.
    p.set_time_range(60_012_345.0, 60_112_345.0);
    let ls = labels(&p);
    let from: Vec<_> = ls.iter().filter(|l| l.text.starts_with("from ")).collect();
    assert_eq!(from.len(), 1, "{ls:?}");
    assert!(from[0].text.ends_with(" ms"), "{}", from[0].text);
    let ticks: Vec<_> = ls.iter().filter(|l| l.text.starts_with('+')).collect();
    assert!(ticks.len() >= 3 && ticks.iter().all(|l| l.text.len() <= 10), "{ticks:?}");
    // The message lines start before the window and in rows off to the left: clipped at the label column.
    p.set_time_range(92_000_000.0, 100_000_000.0);
    let s = p.state();
    let x0 = f(&s, "track_x0") as f32;
    let sc = p.scene();
    let arrows: Vec<_> = sc.lines.iter().filter(|l| l.y0 != l.y1 && l.x0 != l.x1).collect();
    assert!(!arrows.is_empty(), "the messages are drawn");
    for l in arrows {
        assert!(l.x0.min(l.x1) >= x0 - 1e-3 && l.y0.min(l.y1) >= 28.0 - 1e-3, "{l:?}");
    }
}

#[test]
fn hover_times_take_the_precision_of_the_zoom() {
    let trace = ranks(2, 1);
    let mut p = TimelinePane::new(trace.clone(), 1200.0, 600.0);
    let s = p.state();
    let row = &rows(&s)[0];
    let y = (f(row, "y") + 9.0) as f32;
    let start_line = |p: &mut TimelinePane, t: f64| {
        let s = p.state();
        let (t0, t1, x0, w) = (f(&s, "t0_ns"), f(&s, "t1_ns"), f(&s, "track_x0"), f(&s, "width"));
        let x = (x0 + (t - t0) / (t1 - t0) * (w - x0)) as f32;
        p.hover(x, y).expect("a slice").lines[1].clone()
    };
    // The 6th period's compute slice starts at 50 ms.
    let fit = start_line(&mut p, 50_700_000.0);
    p.set_time_range(50_000_000.0 - 20_000.0, 50_000_000.0 + 1_480_000.0);
    let zoomed = start_line(&mut p, 50_700_000.0);
    assert!(fit.starts_with("start 50 ms") || fit.starts_with("start 50.0 ms"), "{fit}");
    assert!(zoomed.starts_with("start 50.000") && zoomed.len() > fit.len(), "{zoomed} vs {fit}");
}

/// Compact rows with one location 1,200 lanes deep (APEX's unmatched ENTERs): the other 11 locations kept
/// 0.05 px each and vanished; now each keeps at least a pixel and the rows scroll.
#[test]
fn compact_rows_keep_a_pixel_for_every_location_beside_a_very_deep_one() {
    let mut b = TraceBuilder::new(Format::Generated);
    let p0 = b.process(0);
    let r = b.region("work", "");
    for t in 0..12 {
        let l = b.location(p0, t, LocationKind::CpuThread);
        b.interval(l, r, 0, 100_000);
        if t == 0 {
            for d in 1..1_200i64 {
                b.interval(l, r, d, 100_000 - 2 * d as u64);
            }
        }
    }
    let mut p = TimelinePane::new(Rc::new(b.finish()), 1200.0, 600.0);
    p.configure("compact", "on").unwrap();
    let s = p.state();
    assert_eq!(rows(&s).len(), 12);
    for r in rows(&s) {
        assert!(f(r, "height") >= 1.0 - 1e-6, "a location under a pixel: {r}");
    }
    assert!(f(&s, "lane_px") >= 1.0);
}

/// Zooming out and panning stop at the trace's ends (issue 50: the view went to 1,702 of 1,566 ms), as does a
/// time range set from a link.
#[test]
fn the_view_never_passes_the_traces_end() {
    let trace = ranks(4, 2);
    let span = trace.span_ns as f64;
    let mut p = TimelinePane::new(trace, 1200.0, 600.0);
    let inside = |p: &TimelinePane| {
        let s = p.state();
        let (t0, t1) = (f(&s, "t0_ns"), f(&s, "t1_ns"));
        assert!(t0 >= -0.02 * span - 1.0 && t1 <= 1.02 * span + 1.0, "{t0}..{t1} of {span}");
        (t0, t1)
    };
    for _ in 0..10 {
        p.zoom(700.0, 0.3);
        inside(&p);
    }
    p.zoom(700.0, 8.0);
    for _ in 0..20 {
        p.pan(4000.0);
        inside(&p);
    }
    let (_, t1) = inside(&p);
    assert!(t1 >= span, "panned to the end, the end is shown");
    for _ in 0..20 {
        p.pan(-4000.0);
    }
    let (t0, _) = inside(&p);
    assert!(t0 <= 0.0, "panned to the start, the start is shown");
    p.set_time_range(0.5 * span, 3.0 * span);
    inside(&p);
}
