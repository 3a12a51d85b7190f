//! The utilization Gantt chart (issue 4): the busy intervals of the same locations, in the same row order and
//! on the same time axis as the moment view (give both the same [`Viewport`]), so the correspondence of the
//! paper's Fig. 4 and 5 shows.
//!
//! Each drawn row (a location, or at less than one pixel per row the locations of one pixel row) is rasterised
//! into busy fraction per pixel column, and runs of equal shade become one rect: instances are bounded by
//! drawn rows x pixel columns, and work by the visible intervals plus that. No row is ever dropped: a location
//! with any busy time in a column shades it. Must not compute busy time or moments.

use super::axis::{draw_time_axis, label_width_px};
use super::moments::{Viewport, LEGEND_HEIGHT_PX, MIN_LABELED_ROW_PX};
use super::{palette, rgba, Label, RectInstance, Rgba, Scene};
use crate::analyses::busy::BusyIntervals;
use crate::analyses::moments::LocationMoments;
use crate::model::LocationId;

/// Colour of a fully busy cell; partly busy cells blend toward the background.
pub const BUSY: Rgba = rgba(0x2b, 0x4a, 0x6f, 0xff);
/// Shades of busy fraction; any busy time at all gets at least the lightest.
pub const LEVELS: u32 = 16;

/// The colour of busy-fraction level `level` (1..=LEVELS).
pub fn level_color(level: u32) -> Rgba {
    let f = level.min(LEVELS) as f32 / LEVELS as f32;
    let mix = |shift: u32| {
        let (b, c) = (
            ((palette::BACKGROUND >> shift) & 0xff) as f32,
            ((BUSY >> shift) & 0xff) as f32,
        );
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
}

/// Build the utilization Gantt chart of `rows` (the moment view's rows, same order) from their busy intervals.
pub fn build_utilization(
    rows: &[LocationMoments],
    busy: &BusyIntervals,
    view: &Viewport,
    opts: &UtilizationOptions,
) -> Scene {
    let mut scene = Scene::new(view.width_px, view.height_px, palette::BACKGROUND);
    let scale = view.time_scale();
    let (x0, _, x1, y1) = view.plot_rect();
    draw_time_axis(&mut scene, &scale, 0.0, y1);
    let columns = ((x1 - x0).ceil().max(1.0)) as usize;
    let ns_per_px = scale.ns_per_px();
    let (t0, t1) = (scale.t0_ns, scale.t1_ns);
    let mut cover = vec![0f32; columns + 1];
    let mut full = vec![0i32; columns + 2];
    for g in view.row_groups(rows.len()) {
        if view.row_height_px >= MIN_LABELED_ROW_PX {
            if let Some(m) = rows.get(g.rows.start) {
                let size = (g.h * 0.7).min(12.0);
                scene.labels.push(
                    Label::new(8.0, g.y + g.h / 2.0, m.name.clone(), palette::TEXT, size)
                        .clipped(x0 - 16.0),
                );
            }
        }
        cover.iter_mut().for_each(|c| *c = 0.0);
        full.iter_mut().for_each(|c| *c = 0);
        let mut any = false;
        for m in &rows[g.rows.clone()] {
            let spans = busy.of(LocationId(m.location));
            let first = spans.partition_point(|s| (s.end_ns as f64) <= t0);
            for s in &spans[first..] {
                if s.start_ns as f64 >= t1 {
                    break;
                }
                let xa = ((s.start_ns as f64 - t0) / ns_per_px).clamp(0.0, columns as f64);
                let xb = ((s.end_ns as f64 - t0) / ns_per_px).clamp(0.0, columns as f64);
                if xb <= xa {
                    continue;
                }
                any = true;
                let (ia, ib) = (xa.floor() as usize, xb.floor() as usize);
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
            continue;
        }
        let n = g.rows.len() as f32;
        let mut run: Option<(usize, u32)> = None;
        let mut acc = 0i32;
        for c in 0..=columns {
            let level = if c < columns {
                acc += full[c];
                level_of((cover[c] + acc as f32) / n)
            } else {
                0
            };
            match run {
                Some((_, l)) if l == level => {}
                _ => {
                    if let Some((start, l)) = run {
                        if l > 0 {
                            let w = (c - start) as f32;
                            scene.rects.push(RectInstance::filled(
                                x0 + start as f32,
                                g.y,
                                w,
                                g.h,
                                level_color(l),
                            ));
                        }
                    }
                    run = Some((c, level));
                }
            }
        }
    }
    legend(&mut scene, view, opts);
    scene
}

fn legend(scene: &mut Scene, view: &Viewport, opts: &UtilizationOptions) {
    let top = view.height_px - LEGEND_HEIGHT_PX + 4.0;
    let mid = top + 7.0;
    let mut x = 8.0;
    for (level, text) in [
        (LEVELS, "busy"),
        (LEVELS / 2, "partly busy (pixel or merged rows)"),
    ] {
        scene.rects.push(RectInstance::filled(
            x,
            mid - 5.0,
            20.0,
            10.0,
            level_color(level),
        ));
        scene
            .labels
            .push(Label::new(x + 26.0, mid, text, palette::TEXT, 11.0));
        x += 26.0 + label_width_px(text, 11.0) + 14.0;
    }
    scene.labels.push(Label::new(
        8.0,
        top + 24.0,
        opts.definition.clone(),
        palette::TEXT_MUTED,
        10.0,
    ));
}
