//! What the timeline draws over its scene for the diagnosis (issue #53; `analyses::diagnosis::bundle`, computed
//! in the worker): the waiting part of each call hatched (`Shape::Hatched`, stripes in screen space, so the
//! same in WebGPU, WebGL2 and SVG), the selected wait outlined with an arrow to its cause (the time on the
//! cause location that ends it), and the critical path as a thick line along the rows it runs on, with a
//! connector where it jumps from one row to another. Only what is visible is drawn, merged per pixel: a
//! location's waits are found by binary search and a run of sub-pixel waits is one rect, the path's sub-pixel
//! segments one connector per pixel column, so instances grow with rows x pixels, not with the waits. On a
//! store's timeline, where waiting concentrates per row and bin ([`draw_wait_bins`]: a store keeps waiting per
//! bin, not each wait's place), the path the same way, and the row of a location chosen ([`mark_row`]).
//! Must not: compute a wait or a path (the worker does) or hold view state (`views::timeline`).

use super::timeline::{clip_segment, TimelineView, AXIS_PX};
use super::{rgba, LineInstance, RectInstance, Rgba, Scene, Shape};
use crate::layouts::timeline::TimelineLayout;
use weft_analyses::diagnosis::bundle::{first_of, DiagnosisBundle, PathColumns, NO_LOCATION};
use weft_model::{LocationId, Trace};

/// The hatching of waiting: dark magenta stripes, apart from the message highlight's orange, the search's
/// red and the selection band's blue.
pub const WAIT_HATCH: Rgba = rgba(0x9c, 0x1a, 0x6e, 0xff);
/// The selected wait's outline and the arrow to its cause.
pub const CAUSE: Rgba = rgba(0xd6, 0x00, 0x8a, 0xff);
/// The critical path: a green that no region colour of the palette's hue bands takes at full strength, on a
/// white casing so it reads over any region's colour.
pub const PATH: Rgba = rgba(0x00, 0xb3, 0x5c, 0xff);
const PATH_CASING: Rgba = rgba(0xff, 0xff, 0xff, 0xe0);
const PATH_PX: f32 = 3.0;
/// The arrow at the plot's edge where the path jumps to a row off screen.
const PATH_OFF_ARROW_PX: f32 = 14.0;

/// The lane a wait is drawn in: its call's depth, the top lane of a folded process's row.
fn lane_of(trace: &Trace, layout: &TimelineLayout, row: usize, call: usize) -> u32 {
    let row = &layout.rows[row];
    let depth = trace.intervals.depth.get(call).map_or(0, |&d| d as u32);
    if row.folded {
        0
    } else {
        depth.min(row.lanes.saturating_sub(1))
    }
}

/// Screen box (x0, y, w, h) of wait `i`, clipped to the plot; None when it is not on screen.
pub fn wait_box(
    b: &DiagnosisBundle,
    trace: &Trace,
    layout: &TimelineLayout,
    view: &TimelineView,
    i: usize,
) -> Option<(f32, f32, f32, f32)> {
    let w = &b.waits;
    let &r = layout.row_of_location.get(w.location[i] as usize)?;
    let row = layout.rows.get(r as usize)?;
    let lane = layout.metrics.lane_px;
    let y = view.y_of(row.y) + lane_of(trace, layout, r as usize, w.call[i] as usize) as f32 * lane;
    let (a, c) = (view.x_of(w.start_ns[i] as f64), view.x_of(w.end_ns[i] as f64));
    let (x_left, x_right) = (view.track_x0(), view.width);
    if c < x_left || a > x_right || y + lane < AXIS_PX || y > view.plot_bottom() {
        return None;
    }
    let x0 = a.max(x_left);
    Some((x0, y, (c.min(x_right) - x0).max(1.0), lane))
}

/// Hatch the waits of the visible rows (runs closer than a pixel merged into one rect per lane).
pub fn draw_waits(sc: &mut Scene, b: &DiagnosisBundle, trace: &Trace, layout: &TimelineLayout, view: &TimelineView) {
    let w = &b.waits;
    let lane = layout.metrics.lane_px;
    let (x_left, x_right) = (view.track_x0(), view.width);
    let (t0, t1) = (view.t0_ns, view.t1_ns);
    for r in layout.rows_in(view.scroll_y, view.scroll_y + view.plot_bottom() - AXIS_PX) {
        let row = &layout.rows[r];
        let y_row = view.y_of(row.y);
        let l = row.location;
        let (from, to) = (first_of(w, l), first_of(w, LocationId(l.0 + 1)));
        let ends = &w.end_ns[from..to];
        let mut k = from + ends.partition_point(|&e| (e as f64) < t0);
        // The pending rect per lane: (lane, x0, x1).
        let mut pending: Vec<(u32, f32, f32)> = Vec::new();
        let flush = |sc: &mut Scene, (d, x0, x1): (u32, f32, f32)| {
            let y = y_row + d as f32 * lane;
            if y + lane >= AXIS_PX && y <= view.plot_bottom() {
                sc.rects.push(
                    RectInstance::filled(x0, y + 1.0, (x1 - x0).max(1.0), (lane - 2.0).max(1.0), WAIT_HATCH)
                        .with_shape(Shape::Hatched)
                        .with_border(WAIT_HATCH, 1.0),
                );
            }
        };
        while k < to {
            let s = w.start_ns[k] as f64;
            if s > t1 {
                break;
            }
            let d = lane_of(trace, layout, r, w.call[k] as usize);
            let x0 = view.x_of(s).max(x_left);
            let x1 = view.x_of(w.end_ns[k] as f64).min(x_right).max(x0 + 1.0);
            match pending.iter_mut().find(|p| p.0 == d) {
                Some(p) if x0 <= p.2 + 1.0 => p.2 = p.2.max(x1),
                Some(p) => {
                    let done = std::mem::replace(p, (d, x0, x1));
                    flush(sc, done);
                }
                None => pending.push((d, x0, x1)),
            }
            // Waits starting within the pixel just covered are covered by it (a location's calls at one depth
            // never overlap): skip to the first that starts past it.
            let t_next = view.t_of(x1.floor() + 1.0);
            k += 1 + w.start_ns[k + 1..to].partition_point(|&s| (s as f64) < t_next);
        }
        for p in pending {
            flush(sc, p);
        }
    }
}

/// Outline wait `i` and draw an arrow from its end to its cause (the cause location's row at the time that
/// ends the wait), clipped to the plot.
pub fn draw_selected(
    sc: &mut Scene,
    b: &DiagnosisBundle,
    trace: &Trace,
    layout: &TimelineLayout,
    view: &TimelineView,
    i: usize,
) {
    let w = &b.waits;
    if i >= w.len() {
        return;
    }
    let lane = layout.metrics.lane_px;
    if let Some((x, y, wd, h)) = wait_box(b, trace, layout, view, i) {
        sc.rects.push(RectInstance::filled(x - 2.0, y - 1.0, wd + 4.0, h + 2.0, 0).with_border(CAUSE, 2.5));
    }
    let cause = w.cause_location[i];
    if cause == NO_LOCATION {
        return;
    }
    let row_y = |l: u32| {
        let &r = layout.row_of_location.get(l as usize)?;
        layout.rows.get(r as usize).map(|row| view.y_of(row.y))
    };
    let (Some(ya), Some(yb)) = (row_y(w.location[i]), row_y(cause)) else { return };
    let d = layout
        .row_of_location
        .get(w.location[i] as usize)
        .map_or(0, |&r| lane_of(trace, layout, r as usize, w.call[i] as usize));
    let from = (view.x_of(w.end_ns[i] as f64), ya + (d as f32 + 0.5) * lane);
    let to = (view.x_of(w.cause_ns[i] as f64), yb + 0.5 * lane);
    // The arrow points from the waiting call to what it waited for.
    let plot = (view.track_x0(), AXIS_PX, view.width, view.plot_bottom());
    if let Some(((x0, y0, x1, y1), whole)) = clip_segment((from.0, from.1, to.0, to.1), plot) {
        let line = LineInstance::solid(x0, y0, x1, y1, 2.5, CAUSE);
        sc.lines.push(if whole { line.with_arrow() } else { line });
    }
}

/// The critical path's visible segments: each a thick line along its row's top lane, a connector where the
/// path changes rows (to the plot's edge, ending in an arrow, where the other row is scrolled off screen);
/// segments narrower than a pixel fold into their pixel column's connector.
pub fn draw_path(sc: &mut Scene, p: &PathColumns, layout: &TimelineLayout, view: &TimelineView) {
    let lane = layout.metrics.lane_px;
    let (x_left, x_right, top, bottom) = (view.track_x0(), view.width, AXIS_PX, view.plot_bottom());
    let y_of = |l: u32| {
        let &r = layout.row_of_location.get(l as usize)?;
        layout.rows.get(r as usize).map(|row| view.y_of(row.y) + 0.5 * lane)
    };
    let clamp_y = |y: f32| y.clamp(top, bottom);
    let from = p.end_ns.partition_point(|&e| (e as f64) < view.t0_ns);
    // The pixel column being gathered: its x and the rows (screen y) the path touches in it.
    let mut column: Option<(f32, f32, f32)> = None;
    let push_column = |sc: &mut Scene, c: Option<(f32, f32, f32)>| {
        if let Some((x, ya, yb)) = c.filter(|c| c.2 > c.1) {
            let (ca, cb) = (clamp_y(ya), clamp_y(yb));
            if cb > ca {
                sc.lines.push(LineInstance::solid(x, ca, x, cb, PATH_PX + 1.0, PATH_CASING));
                sc.lines.push(LineInstance::solid(x, ca, x, cb, PATH_PX - 1.0, PATH));
            }
            // A jump to a row off screen (above or below the rows shown): an arrowhead at the edge it leaves
            // by, so the path never breaks off silently.
            for (off, edge, dir) in [(yb > bottom && ya <= bottom, bottom, -1.0), (ya < top && yb >= top, top, 1.0)] {
                if off {
                    let from = edge + dir * PATH_OFF_ARROW_PX;
                    sc.lines.push(LineInstance::solid(x, from, x, edge, PATH_PX + 1.0, PATH_CASING).with_arrow());
                    sc.lines.push(LineInstance::solid(x, from, x, edge, PATH_PX - 1.0, PATH).with_arrow());
                }
            }
        }
    };
    let mut last_y: Option<f32> = None;
    for k in from..p.len() {
        if (p.start_ns[k] as f64) > view.t1_ns {
            break;
        }
        let Some(y) = y_of(p.location[k]) else {
            last_y = None;
            continue;
        };
        let (a, c) = (view.x_of(p.start_ns[k] as f64).max(x_left), view.x_of(p.end_ns[k] as f64).min(x_right));
        let x = a.floor();
        // The connector from the previous segment's row to this one's, in the column where this one starts.
        let (mut ya, mut yb) = (y, y);
        if let Some(py) = last_y {
            ya = ya.min(py);
            yb = yb.max(py);
        }
        column = match column {
            Some((cx, ca, cb)) if cx == x => Some((cx, ca.min(ya), cb.max(yb))),
            c => {
                push_column(sc, c);
                Some((x, ya, yb))
            }
        };
        if c - a >= 1.0 && y >= top && y <= bottom {
            sc.lines.push(LineInstance::solid(a, y, c, y, PATH_PX + 2.0, PATH_CASING));
            sc.lines.push(LineInstance::solid(a, y, c, y, PATH_PX, PATH));
        }
        last_y = Some(y);
    }
    push_column(sc, column);
}

/// Where waiting concentrates on a store's timeline (a store keeps waiting per location and bin, not each
/// wait's place: `store::read::query::WaitOverlay`): per visible row and pixel column, the waiting share of
/// the bins there (the most of any bin in the column: the share of its time spent waiting) hatched over the
/// row as a trace's waits are, its opacity that share on a fixed scale ([`wait_bin_alpha`]: 100 % waiting is
/// a trace's full hatch, 5 % a faint one), so a run that waits little looks little hatched at any zoom.
/// Equal neighbouring opacities are merged, so the rects grow with rows x pixels, whatever the bins.
/// `row_bins`: a location's bins as (start, end, waiting ns).
pub fn draw_wait_bins(
    sc: &mut Scene,
    layout: &TimelineLayout,
    view: &TimelineView,
    row_bins: impl Fn(LocationId) -> Option<Vec<(u64, u64, u64)>>,
) {
    let (x_left, x_right) = (view.track_x0(), view.width);
    // Per visible row with waiting: its band and its pixel columns (x0, x1, share).
    type Columns = Vec<(f32, f32, f64)>;
    let mut rows: Vec<(f32, f32, Columns)> = Vec::new();
    for r in layout.rows_in(view.scroll_y, view.scroll_y + view.plot_bottom() - AXIS_PX) {
        let row = &layout.rows[r];
        let Some(bins) = row_bins(row.location) else { continue };
        let (y, h) = (view.y_of(row.y), layout.row_height(row));
        let (top, bottom) = ((y + 1.0).max(AXIS_PX), (y + h - 1.0).min(view.plot_bottom()));
        if bottom <= top {
            continue;
        }
        let mut cols: Vec<(f32, f32, f64)> = Vec::new();
        for (a, b, ns) in bins {
            if ns == 0 || b <= a {
                continue;
            }
            let (x0, x1) = (view.x_of(a as f64).max(x_left), view.x_of(b as f64).min(x_right));
            if x1 <= x0 {
                continue;
            }
            let share = ns.min(b - a) as f64 / (b - a) as f64;
            match cols.last_mut() {
                Some(c) if x0.floor() <= c.0.floor() => {
                    c.1 = c.1.max(x1);
                    c.2 = c.2.max(share);
                }
                _ => cols.push((x0, x1.max(x0 + 1.0), share)),
            }
        }
        if !cols.is_empty() {
            rows.push((top, bottom, cols));
        }
    }
    for (top, bottom, cols) in rows {
        // Runs of (x0, x1, steps of the fixed scale).
        let mut runs: Vec<(f32, f32, u32)> = Vec::new();
        for (x0, x1, share) in cols {
            let steps = wait_bin_steps(share);
            match runs.last_mut() {
                Some(c) if c.2 == steps && x0 <= c.1 + 1.0 => c.1 = c.1.max(x1),
                _ => runs.push((x0, x1, steps)),
            }
        }
        for (x0, x1, steps) in runs {
            let fill = crate::scene::particles::with_alpha(WAIT_HATCH, wait_bin_alpha(steps));
            sc.rects.push(RectInstance::filled(x0, top, x1 - x0, bottom - top, fill).with_shape(Shape::Hatched));
        }
    }
}

/// The steps of the store's waiting scale: opacity in twentieths (5 % each).
pub const WAIT_BIN_STEPS: u32 = 20;

/// A bin's waiting share (0..1, of its time) in steps of the fixed scale, up to the next step (so any waiting
/// shows, at least at one step: 5 %).
pub fn wait_bin_steps(share: f64) -> u32 {
    (share.clamp(0.0, 1.0) * WAIT_BIN_STEPS as f64).ceil().clamp(1.0, WAIT_BIN_STEPS as f64) as u32
}

/// The hatch's opacity for `steps` of the scale: the waiting share itself (a bin waiting all its time is
/// hatched as a trace's wait is, at full strength).
pub fn wait_bin_alpha(steps: u32) -> f32 {
    steps.min(WAIT_BIN_STEPS) as f32 / WAIT_BIN_STEPS as f32
}

/// Mark location `l`'s row (the Diagnosis panel's location chosen on a store's timeline): an outline over
/// the row's track, where the row is on screen.
pub fn mark_row(sc: &mut Scene, layout: &TimelineLayout, view: &TimelineView, l: LocationId) {
    let Some(row) = layout.row_of_location.get(l.index()).and_then(|&r| layout.rows.get(r as usize)) else { return };
    let (y, h) = (view.y_of(row.y), layout.row_height(row));
    if y + h < AXIS_PX || y > view.plot_bottom() {
        return;
    }
    let x0 = view.track_x0();
    sc.rects.push(RectInstance::filled(x0 + 1.0, y, view.width - x0 - 2.0, h, 0).with_border(CAUSE, 2.0));
}

/// The wait drawn at screen (x, y), within 3 px in time: the one nearest in time in the lane under the pointer.
pub fn wait_at(
    b: &DiagnosisBundle,
    trace: &Trace,
    layout: &TimelineLayout,
    view: &TimelineView,
    x: f32,
    y: f32,
) -> Option<usize> {
    if x < view.track_x0() || y < AXIS_PX || y >= view.plot_bottom() {
        return None;
    }
    let ly = y - AXIS_PX + view.scroll_y;
    let r = layout.row_at(ly)?;
    let d = ((ly - layout.rows[r].y) / layout.metrics.lane_px) as u32;
    let t = view.t_of(x);
    let tol = 3.0 * view.ns_per_px();
    let w = &b.waits;
    let mut best: Option<(f64, usize)> = None;
    for rr in layout.stacked_with(r) {
        let l = layout.rows[rr].location;
        let (from, to) = (first_of(w, l), first_of(w, LocationId(l.0 + 1)));
        let k = from + w.end_ns[from..to].partition_point(|&e| (e as f64) < t - tol);
        for i in k..to {
            let (s, e) = (w.start_ns[i] as f64, w.end_ns[i] as f64);
            if s > t + tol {
                break;
            }
            if lane_of(trace, layout, rr, w.call[i] as usize) != d {
                continue;
            }
            let dist = if t < s { s - t } else { (t - e).max(0.0) };
            if best.is_none_or(|(bd, _)| dist < bd) {
                best = Some((dist, i));
            }
        }
    }
    best.filter(|&(dist, _)| dist <= tol).map(|(_, i)| i)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layouts::timeline::TimelineMetrics;
    use crate::views::timeline_diagnosis::explain;
    use weft_analyses::diagnosis::bundle::{total_time_ns, WaitColumns};
    use weft_analyses::diagnosis::waits::{wait_report, wait_states, Pattern, WaitReport};
    use weft_model::RegionId;
    use weft_samples::otf2_gen::{archive, GenConfig};

    /// A generated 4-rank OTF2 run (messages and collectives, so waits), as read.
    fn run() -> Trace {
        let (files, _) = archive(&GenConfig::new(4, 4_000));
        let input = weft_readers::open("gen", weft_readers::Source::Files(&files)).expect("reads");
        input.into_trace("gen").expect("a timeline")
    }

    fn bundle(t: &Trace, window: Option<(u64, u64)>, path: PathColumns) -> (DiagnosisBundle, WaitReport) {
        let states = wait_states(t);
        let report = wait_report(t, &states, window);
        let mut waits = WaitColumns::default();
        for w in &states.waits {
            let c = w.cause_location.map(|c| c.0);
            waits.push(w.pattern as u8, w.location.0, w.call as u32, w.start_ns, w.end_ns, c, w.cause_ns);
        }
        let patterns: Vec<(&str, &str)> = Pattern::ALL.iter().map(|p| (p.key(), p.label())).collect();
        let json = serde_json::to_string(&report).expect("json");
        let total = total_time_ns(t, window);
        (DiagnosisBundle::new(t, window, total, &patterns, json, "{}".into(), waits, path), report)
    }

    /// The panel's three lists are the report's figures: per pattern its total, its regions' `by_region`,
    /// its locations' `per_location`, for the whole run and for a window.
    #[test]
    fn the_lists_equal_the_report() {
        let t = run();
        for window in [None, Some((t.span_ns / 3, t.span_ns / 2))] {
            let (b, report) = bundle(&t, window, PathColumns::default());
            assert!(report.total_wait_ns > 0, "the generated run waits");
            assert_eq!(b.total_wait_ns(), report.total_wait_ns);
            let patterns = b.patterns();
            let nonzero: Vec<_> = Pattern::ALL.iter().filter(|p| report.patterns[p.key()].total_ns > 0).collect();
            assert_eq!(patterns.len(), nonzero.len());
            for l in &patterns {
                let key = b.pattern_keys[l.id as usize].as_str();
                let totals = &report.patterns[key];
                assert_eq!((l.ns, l.instances), (totals.total_ns, totals.instances), "{key}");
                let regions: Vec<(String, u64)> =
                    b.regions(Some(l.id as u8)).iter().map(|r| (t.region_name(RegionId(r.id)).into(), r.ns)).collect();
                let by_region: Vec<(String, u64)> = totals.by_region.iter().map(|n| (n.name.clone(), n.ns)).collect();
                assert_eq!(regions, by_region, "{key}");
                let mut per_location = vec![0u64; t.locations.len()];
                for loc in b.locations(Some(l.id as u8), None) {
                    per_location[loc.id as usize] = loc.ns;
                    // A location's worst wait is of it, of the pattern, and the longest there.
                    let w = loc.worst as usize;
                    assert_eq!((b.waits.location[w], b.waits.pattern[w] as u32), (loc.id, l.id));
                }
                assert_eq!(per_location, totals.per_location, "{key}");
            }
        }
    }

    /// Busy = waiting (the moments view's definition): each location's busy time is its waiting, the report's
    /// per-location sums (no location's waits overlap in the generated run).
    #[test]
    fn busy_waiting_is_each_locations_waiting() {
        use weft_analyses::busy::{BusyDefinition, BusyIntervals};
        let t = run();
        let (_, report) = bundle(&t, None, PathColumns::default());
        let busy = BusyIntervals::compute(&t, &BusyDefinition::Waiting);
        for l in 0..t.locations.len() {
            let m0: u64 = busy.of(LocationId(l as u32)).iter().map(|b| b.len_ns()).sum();
            let waiting: u64 = report.patterns.values().map(|p| p.per_location[l]).sum();
            assert_eq!(m0, waiting, "location {l}");
        }
        let moments = weft_analyses::moments::moments(&t, &BusyDefinition::Waiting, None);
        assert_eq!(moments.iter().map(|m| m.m0_ns).sum::<u64>(), report.total_wait_ns);
    }

    #[test]
    fn waits_are_drawn_hatched_where_they_are_bounded_and_a_click_finds_them() {
        let t = run();
        let (b, _) = bundle(&t, None, PathColumns::default());
        let layout = TimelineLayout::new(&t, TimelineMetrics::default());
        let mut view = TimelineView::fit(&t, 1200.0, 700.0);
        let mut sc = Scene::new(1200.0, 700.0, 0);
        draw_waits(&mut sc, &b, &t, &layout, &view);
        assert!(!sc.rects.is_empty());
        assert!(sc.rects.iter().all(|r| r.shape == Shape::Hatched as u32 && r.fill == WAIT_HATCH));
        // Zoomed out, at most one rect per lane and pixel column.
        let lanes: u32 = layout.rows.iter().map(|r| r.lanes).sum();
        assert!(sc.rects.len() <= (lanes as usize) * 1200, "{} rects", sc.rects.len());
        // Zoomed to the longest wait: it is drawn over its call, and a click on it selects it.
        let i = (0..b.waits.len()).max_by_key(|&i| b.waits.end_ns[i] - b.waits.start_ns[i]).expect("a wait");
        let (s, e) = (b.waits.start_ns[i] as f64, b.waits.end_ns[i] as f64);
        (view.t0_ns, view.t1_ns) = (s - (e - s), e + (e - s));
        let (x, y, w, h) = wait_box(&b, &t, &layout, &view, i).expect("on screen");
        assert!((x - view.x_of(s)).abs() < 1.0 && (x + w - view.x_of(e)).abs() < 1.0, "spans the wait");
        let mut sc = Scene::new(1200.0, 700.0, 0);
        draw_waits(&mut sc, &b, &t, &layout, &view);
        assert!(sc.rects.iter().any(|r| (r.x - x).abs() < 1.0 && (r.y - y - 1.0).abs() < 0.01), "the wait's rect");
        let hit = wait_at(&b, &t, &layout, &view, x + w / 2.0, y + h / 2.0).expect("hit");
        assert_eq!(b.waits.location[hit], b.waits.location[i]);
        assert!(b.waits.start_ns[hit] <= b.waits.end_ns[i] && b.waits.end_ns[hit] >= b.waits.start_ns[i]);
        assert_eq!(wait_at(&b, &t, &layout, &view, 1.0, y), None, "the label column is no wait");
        // Selected: outlined, and an arrow to its cause (when its cause's row is on screen).
        let mut sc = Scene::new(1200.0, 700.0, 0);
        draw_selected(&mut sc, &b, &t, &layout, &view, i);
        assert!(sc.rects.iter().any(|r| r.border == CAUSE));
        if b.waits.cause_location[i] != NO_LOCATION {
            assert!(sc.lines.iter().any(|l| l.color == CAUSE), "an arrow to the cause");
        }
        let info = explain(&b, &t, i).expect("explained");
        assert!(info.text.contains(" waits ") && info.text.contains(&info.region), "{}", info.text);
    }

    /// A store's waiting per bin: hatched over the rows that wait, opaque as the share of the bin's time spent
    /// waiting on a fixed scale (not relative to the most on screen: a run waiting 0.7 % is hatched faintly,
    /// whatever else is on screen), one rect per run of equal opacity (bins finer than a pixel merged),
    /// nothing on a row without waiting.
    #[test]
    fn waiting_per_bin_is_hatched_by_its_share_of_the_bins_time() {
        let t = run();
        let layout = TimelineLayout::new(&t, TimelineMetrics::default());
        let view = TimelineView::fit(&t, 1200.0, 700.0);
        let span = t.span_ns;
        let n = 4000u64;
        let cut = move |k: u64| (k * span / n, (k + 1) * span / n);
        // Location 0 waits half of every bin of its second half, location 1 0.7 % of every bin, location 2
        // (only with `full`) all of one bin near the start.
        let bins = |full: bool| {
            move |l: LocationId| -> Option<Vec<(u64, u64, u64)>> {
                let each = |f: &dyn Fn(u64, u64) -> u64| {
                    Some((0..n).map(|k| (cut(k).0, cut(k).1, f(k, cut(k).1 - cut(k).0))).collect())
                };
                match l.0 {
                    0 => each(&|k, d| if k >= n / 2 { d / 2 } else { 0 }),
                    1 => each(&|_, d| d * 7 / 1000),
                    2 if full => each(&|k, d| if k == 10 { d } else { 0 }),
                    _ => None,
                }
            }
        };
        let row_y = |l: usize| view.y_of(layout.rows[layout.row_of_location[l] as usize].y) + 1.0;
        let alpha = |a: f32| (a * 255.0).round() as u32;
        for full in [false, true] {
            let mut sc = Scene::new(1200.0, 700.0, 0);
            draw_wait_bins(&mut sc, &layout, &view, bins(full));
            assert!(sc.rects.iter().all(|r| r.shape == Shape::Hatched as u32 && r.fill >> 8 == WAIT_HATCH >> 8));
            let of =
                |l: usize| sc.rects.iter().filter(|r| (r.y - row_y(l).max(AXIS_PX)).abs() < 0.01).collect::<Vec<_>>();
            // Location 0's half-waiting half run is one rect at half, whether or not a fuller bin is on screen.
            let zero = of(0);
            assert_eq!(zero.len(), 1, "equal neighbours merged");
            assert_eq!(zero[0].fill & 0xff, alpha(0.5));
            let mid = view.x_of(span as f64 / 2.0);
            assert!((zero[0].x - mid).abs() <= 1.0, "starts where the waiting does");
            // Location 1's 0.7 % is the scale's first step (5 %), all along.
            let one = of(1);
            assert_eq!(one.len(), 1);
            assert_eq!(one[0].fill & 0xff, alpha(0.05));
            if full {
                let two = of(2);
                assert_eq!(two.len(), 1);
                assert_eq!(two[0].fill & 0xff, 0xff, "a bin waiting all its time is hatched at full strength");
            }
            assert_eq!(sc.rects.len(), 2 + usize::from(full), "no other row is hatched");
        }
        assert_eq!(
            (wait_bin_steps(0.0001), wait_bin_steps(0.05), wait_bin_steps(0.051), wait_bin_steps(1.0)),
            (1, 1, 2, 20)
        );
    }

    #[test]
    fn the_critical_path_runs_along_its_rows_and_jumps_between_them() {
        let t = run();
        let span = t.span_ns;
        // A path over locations 0, 2, 0 in three thirds.
        let path = PathColumns {
            location: vec![0, 2, 0],
            start_ns: vec![0, span / 3, 2 * span / 3],
            end_ns: vec![span / 3, 2 * span / 3, span],
        };
        let (b, _) = bundle(&t, None, path);
        let layout = TimelineLayout::new(&t, TimelineMetrics::default());
        let view = TimelineView::fit(&t, 1200.0, 700.0);
        let mut sc = Scene::new(1200.0, 700.0, 0);
        draw_path(&mut sc, &b.path, &layout, &view);
        let row_y =
            |l: usize| view.y_of(layout.rows[layout.row_of_location[l] as usize].y) + 0.5 * layout.metrics.lane_px;
        let path: Vec<_> = sc.lines.iter().filter(|l| l.color == PATH).collect();
        let horizontal: Vec<_> = path.iter().filter(|l| l.y0 == l.y1).collect();
        assert_eq!(horizontal.len(), 3);
        assert_eq!(horizontal.iter().map(|l| l.y0).collect::<Vec<_>>(), [row_y(0), row_y(2), row_y(0)]);
        let vertical = path.iter().filter(|l| l.x0 == l.x1).count();
        assert_eq!(vertical, 2, "a connector at each jump");
        assert_eq!(sc.lines.len(), 2 * path.len(), "each on its casing");
    }

    /// A jump to a row scrolled off screen is drawn to the plot's edge with an arrow there (the path does not
    /// break off), and a stretch wholly off screen draws nothing.
    #[test]
    fn a_jump_to_a_row_off_screen_ends_in_an_arrow_at_the_edge() {
        let t = run();
        let span = t.span_ns;
        let last = t.locations.len() as u32 - 1;
        let layout = TimelineLayout::new(&t, TimelineMetrics::default());
        // Only the first rows fit: the last location's row is below the plot.
        let view = TimelineView::fit(&t, 1200.0, AXIS_PX + 2.5 * layout.metrics.lane_px + 40.0);
        let y_last = view.y_of(layout.rows[layout.row_of_location[last as usize] as usize].y);
        assert!(y_last > view.plot_bottom(), "the last row is off screen");
        let path = PathColumns {
            location: vec![0, last, 0],
            start_ns: vec![0, span / 3, 2 * span / 3],
            end_ns: vec![span / 3, 2 * span / 3, span],
        };
        let mut sc = Scene::new(1200.0, view.height, 0);
        draw_path(&mut sc, &path, &layout, &view);
        let arrows: Vec<_> = sc.lines.iter().filter(|l| l.color == PATH && l.arrow > 0.0).collect();
        assert_eq!(arrows.len(), 2, "one arrow at each jump to and from the row off screen");
        for (a, at) in arrows.iter().zip([span / 3, 2 * span / 3]) {
            assert_eq!(a.x0, a.x1);
            assert!((a.x0 - view.x_of(at as f64).floor()).abs() <= 1.0, "at the jump");
            assert_eq!(a.y1, view.plot_bottom(), "pointing to the edge the row is beyond");
            assert!(a.y0 < a.y1);
        }
        let horizontal = sc.lines.iter().filter(|l| l.color == PATH && l.y0 == l.y1).count();
        assert_eq!(horizontal, 2, "the stretch on the row off screen is not drawn");
    }
}
