//! The utilization Gantt chart (issue 4): the busy intervals of the same locations, in the same row order and
//! on the same time axis as the moment view (give both the same [`Viewport`]), so the correspondence of the
//! paper's Fig. 4 and 5 shows.
//!
//! Each drawn row (a location, or at less than one pixel per row the locations of one pixel row) is rasterised
//! into busy fraction per pixel column, and runs of equal shade become one rect: instances are bounded by
//! drawn rows x pixel columns, and work by the visible intervals plus that. No row is ever dropped: a location
//! with any busy time in a column shades it. Must not compute busy time or moments.

use super::axis::{draw_time_axis, label_width_px};
use super::moments::{group_labels, no_busy_notice, no_busy_row, Viewport, LEGEND_HEIGHT_PX, MIN_LABELED_ROW_PX};
use super::{palette, rgba, Label, RectInstance, Rgba, Scene};
use weft_analyses::busy::{BusyInterval, BusyIntervals};
use weft_analyses::moments::LocationMoments;
use weft_model::LocationId;

/// Colour of a fully busy cell; partly busy cells blend toward the background.
pub const BUSY: Rgba = rgba(0x2b, 0x4a, 0x6f, 0xff);
/// Shades of busy fraction; any busy time at all gets at least the lightest.
pub const LEVELS: u32 = 8;

/// The colour of busy-fraction level `level` (1..=LEVELS).
pub fn level_color(level: u32) -> Rgba {
    let f = level.min(LEVELS) as f32 / LEVELS as f32;
    let mix = |shift: u32| {
        let (b, c) = (((palette::BACKGROUND >> shift) & 0xff) as f32, ((BUSY >> shift) & 0xff) as f32);
        (b + (c - b) * f).round() as u32
    };
    (mix(24) << 24) | (mix(16) << 16) | (mix(8) << 8) | 0xff
}

/// The level a busy fraction in (0, 1] is drawn at (0 for none).
pub fn level_of(fraction: f32) -> u32 {
    if fraction <= 0.0 {
        0
    } else {
        ((fraction * LEVELS as f32).ceil() as u32).clamp(1, LEVELS)
    }
}

/// Options of the utilization Gantt chart.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UtilizationOptions {
    /// The busy definition in force, in words (shown in the legend).
    pub definition: String,
    /// What to do when no location has busy time (see [`super::moments::MomentViewOptions::empty_hint`]).
    pub empty_hint: String,
}

/// Build the utilization Gantt chart of `rows` (the moment view's rows, same order) from their busy intervals.
/// Arrange `busy` in the rows' order first ([`BusyIntervals::arrange`]) when the rows are sorted by a moment:
/// the result is the same, but with 16,384 rows the frame is about a third faster (memory read in order).
pub fn build_utilization(
    rows: &[LocationMoments],
    busy: &BusyIntervals,
    view: &Viewport,
    opts: &UtilizationOptions,
) -> Scene {
    let mut scene = Scene::new(view.width_px, view.height_px, palette::BACKGROUND);
    let scale = view.time_scale();
    let (x0, y0, x1, y1) = view.plot_rect();
    draw_time_axis(&mut scene, &scale, 0.0, y1);
    let columns = ((x1 - x0).ceil().max(1.0)) as usize;
    let px_per_ns = 1.0 / scale.ns_per_px();
    let max_x = columns as f64;
    let (t0, t1) = (scale.t0_ns, scale.t1_ns);
    // Integer bounds for the interval tests: an interval ending at or before t0 (or starting at or after t1)
    // contributes nothing.
    let t0_floor = t0.max(0.0).floor() as u64;
    let t1_ceil = t1.max(0.0).ceil() as u64;
    let mut cover = vec![0f32; columns + 1];
    let mut full = vec![0i32; columns + 2];
    let colors: Vec<Rgba> = (0..=LEVELS).map(level_color).collect();
    // One more column than the plot, always 0, closes the last run.
    let mut levels = vec![0u8; columns + 1];
    let mut starts: Vec<(&[BusyInterval], usize)> = Vec::new();
    if view.row_height_px < 1.0 {
        // Merged rows: often near one rect per few cells; reserving (virtual memory, touched only if used) spares
        // the copies of growing.
        scene.rects.reserve(((y1 - y0) as usize + 1) * columns / 4);
    }
    let any_busy = rows.iter().any(|m| !m.is_idle());
    let groups = view.row_groups(rows.len());
    let labels =
        if view.row_height_px >= MIN_LABELED_ROW_PX { group_labels(rows, &groups, x0 - 16.0) } else { Vec::new() };
    for (k, g) in groups.into_iter().enumerate() {
        if let Some(text) = labels.get(k) {
            let size = (g.h * 0.7).min(12.0);
            scene.labels.push(Label::new(8.0, g.y + g.h / 2.0, text.clone(), palette::TEXT, size).clipped(x0 - 16.0));
        }
        let mut any = false;
        // First visible interval of each row, found before any is drawn: these loads are independent, so
        // their cache misses (rows sorted by a moment visit locations in random order) overlap.
        starts.clear();
        starts.extend(rows[g.rows.clone()].iter().map(|m| {
            let spans = busy.of(LocationId(m.location));
            match spans.first() {
                Some(s) if s.end_ns > t0_floor => (spans, 0),
                _ => (spans, spans.partition_point(|s| s.end_ns <= t0_floor)),
            }
        }));
        for &(spans, first) in &starts {
            for s in &spans[first..] {
                if s.start_ns >= t1_ceil {
                    break;
                }
                // Non-negative after the clamp, so `as usize` is floor.
                let xa = ((s.start_ns as i64 as f64 - t0) * px_per_ns).clamp(0.0, max_x);
                let xb = ((s.end_ns as i64 as f64 - t0) * px_per_ns).clamp(0.0, max_x);
                if xb <= xa {
                    continue;
                }
                any = true;
                let (ia, ib) = (xa as usize, xb as usize);
                if ia == ib {
                    cover[ia] += (xb - xa) as f32;
                } else {
                    cover[ia] += (ia as f64 + 1.0 - xa) as f32;
                    cover[ib] += (xb - ib as f64) as f32;
                    full[ia + 1] += 1;
                    full[ib] -= 1;
                }
            }
        }
        if !any {
            if any_busy && rows[g.rows.clone()].iter().all(|m| m.is_idle()) {
                no_busy_row(&mut scene, view, &g);
            }
            continue;
        }
        // Busy fraction per column -> level (columns cleared for the next group on the way), then runs of one
        // level become one rect. Two simple passes: the first has no branches, the second only on changes.
        let to_level = LEVELS as f32 / g.rows.len() as f32;
        let mut acc = 0i32;
        for c in 0..columns {
            acc += full[c];
            let q = (cover[c] + acc as f32) * to_level;
            cover[c] = 0.0;
            full[c] = 0;
            let l = q as u32;
            levels[c] = (l + (q > l as f32) as u32).min(LEVELS) as u8;
        }
        // Rows tall enough to tell apart get a gap between them.
        let pad = if g.h >= 4.0 { (g.h * 0.1).min(2.0) } else { 0.0 };
        let (y, h) = (g.y + pad, g.h - 2.0 * pad);
        let mut run_start = 0usize;
        let mut run_level = 0u8;
        for (c, &level) in levels.iter().enumerate() {
            if level != run_level {
                if run_level > 0 {
                    let w = (c - run_start) as f32;
                    scene.rects.push(RectInstance::filled(x0 + run_start as f32, y, w, h, colors[run_level as usize]));
                }
                run_start = c;
                run_level = level;
            }
        }
        full[columns] = 0;
        full[columns + 1] = 0;
        cover[columns] = 0.0;
    }
    scene.decorate(|s| legend(s, view, opts));
    if !any_busy && !rows.is_empty() {
        no_busy_notice(&mut scene, view, &opts.empty_hint);
    }
    scene
}

fn legend(scene: &mut Scene, view: &Viewport, opts: &UtilizationOptions) {
    let top = view.height_px - LEGEND_HEIGHT_PX + 4.0;
    let mid = top + 7.0;
    let mut x = 8.0;
    for (level, text) in [(LEVELS, "busy"), (LEVELS / 2, "partly busy (pixel or merged rows)")] {
        scene.rects.push(RectInstance::filled(x, mid - 5.0, 20.0, 10.0, level_color(level)));
        scene.labels.push(Label::new(x + 26.0, mid, text, palette::TEXT, 11.0));
        x += 26.0 + label_width_px(text, 11.0) + 14.0;
    }
    scene.labels.push(
        Label::new(8.0, top + 24.0, opts.definition.clone(), palette::TEXT_MUTED, 10.0).clipped(view.width_px - 16.0),
    );
}
