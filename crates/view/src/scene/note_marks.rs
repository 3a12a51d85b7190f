//! What the timeline draws over its scene for the notes (`views::notes`): a range note as a translucent band
//! in its colour with its two edges (over the whole plot, or over its location's row), an interval note as
//! its interval outlined, and each with a flag carrying its number and text (a label, drawn by the page's
//! overlay with fillText, by the SVG writer as text). Only what is visible is drawn: a handful of instances
//! a note, at most `notes::MAX_NOTES` notes. Must not: hold view state or find what a note names.

use super::timeline::{TimelineView, AXIS_PX};
use super::{rgba, Label, LineInstance, RectInstance, Rgba, Scene};
use crate::layouts::timeline::TimelineLayout;
use crate::views::notes::{Colour, NoteSet};
use weft_model::Trace;

/// Flags' height (CSS px) and text size.
pub const FLAG_PX: f32 = 16.0;
const TEXT_PX: f32 = 11.0;
/// A flag is at most this wide; its text is clipped to it.
const FLAG_MAX_PX: f32 = 260.0;
/// Places a flag may take below its first, one flag apart, before it is drawn over another flag.
const FLAG_TRIES: usize = 6;

/// The colour of `c` at alpha `a`.
pub fn colour(c: Colour, a: u8) -> Rgba {
    let (r, g, b) = match c {
        Colour::Yellow => (0xf2, 0xc2, 0x00),
        Colour::Red => (0xd9, 0x3a, 0x3a),
        Colour::Green => (0x2e, 0x9e, 0x4f),
        Colour::Blue => (0x2f, 0x6f, 0xd8),
        Colour::Purple => (0x8a, 0x4f, 0xc7),
        Colour::Grey => (0x7a, 0x7a, 0x7a),
    };
    rgba(r, g, b, a)
}

fn text_colour(c: Colour) -> Rgba {
    match c {
        Colour::Yellow => rgba(0x1a, 0x1a, 0x1a, 0xff),
        _ => rgba(0xff, 0xff, 0xff, 0xff),
    }
}

/// The screen band (y0, y1) of `location`'s row, or None when it has no row (filtered out).
fn row_band(layout: &TimelineLayout, view: &TimelineView, location: u32) -> Option<(f32, f32)> {
    let r = *layout.row_of_location.get(location as usize)? as usize;
    let row = layout.rows.get(r)?;
    let y = view.y_of(row.y);
    Some((y, y + row.lanes.max(1) as f32 * layout.metrics.lane_px))
}

/// Draw the notes of `notes` visible in `view`.
pub fn draw(sc: &mut Scene, notes: &NoteSet, trace: &Trace, layout: &TimelineLayout, view: &TimelineView) {
    draw_with_boxes(sc, notes, trace, layout, view, &mut Vec::new());
}

/// How near (px) an edge of a range note the pointer names it.
const EDGE_HIT_PX: f32 = 3.0;

/// The note whose flag, interval outline or range edge is under (x, y) in `view` (the one drawn last where
/// several are): what the timeline's hover names with the note's text.
pub fn hit(
    notes: &NoteSet,
    trace: &Trace,
    layout: &TimelineLayout,
    view: &TimelineView,
    x: f32,
    y: f32,
) -> Option<usize> {
    if notes.is_empty() {
        return None;
    }
    let mut boxes = Vec::new();
    draw_with_boxes(&mut Scene::new(view.width, view.height, 0), notes, trace, layout, view, &mut boxes);
    let inside = |b: &[f32; 4]| x >= b[0] && x <= b[2] && y >= b[1] && y <= b[3];
    // Flags first (where the text is), then outlines and edges; the one drawn last of each.
    let flag = boxes.iter().rev().find(|(_, b, flag)| *flag && inside(b));
    flag.or_else(|| boxes.iter().rev().find(|(_, b, _)| inside(b))).map(|&(k, _, _)| k)
}

/// [`draw`], keeping each note's boxes that name it on hover (its flag, marked true; its outline, or its
/// range's edges).
fn draw_with_boxes(
    sc: &mut Scene,
    notes: &NoteSet,
    trace: &Trace,
    layout: &TimelineLayout,
    view: &TimelineView,
    boxes: &mut Vec<(usize, [f32; 4], bool)>,
) {
    let (x_left, x_right) = (view.track_x0(), view.width);
    let (top, bottom) = (AXIS_PX, view.plot_bottom());
    let lane = layout.metrics.lane_px;
    // Flags already placed (x0, y0, x1, y1): a flag takes the first of its places that meets none of them.
    let mut placed: Vec<[f32; 4]> = Vec::new();
    for (k, n) in notes.notes().iter().enumerate() {
        let (a, b) = (view.x_of(n.t0_ns as f64), view.x_of(n.t1_ns as f64));
        if b < x_left || a > x_right {
            continue;
        }
        // The note's vertical extent: its interval's lane, its location's row, or the whole plot.
        let (y0, y1) = match (notes.interval_of(k), n.location) {
            (Some(i), Some(l)) => match row_band(layout, view, l) {
                Some((y, _)) => {
                    let r = &layout.rows[layout.row_of_location[l as usize] as usize];
                    let depth = if r.folded { 0 } else { trace.intervals.depth.get(i).map_or(0, |&d| u32::from(d)) };
                    let y = y + depth as f32 * lane;
                    (y, y + lane)
                }
                None => continue,
            },
            (None, Some(l)) => match row_band(layout, view, l) {
                Some(band) => band,
                None => continue,
            },
            (_, None) => (top, bottom),
        };
        if y1 < top || y0 > bottom {
            continue;
        }
        let (y0c, y1c) = (y0.max(top), y1.min(bottom));
        let (x0, x1) = (a.max(x_left), b.min(x_right));
        let c = n.colour;
        if n.interval {
            boxes.push((k, [x0 - 3.0, y0c - 2.0, x1 + 3.0, y1c + 2.0], false));
        } else {
            for x in [a, b].into_iter().filter(|&x| x >= x_left && x <= x_right) {
                boxes.push((k, [x - EDGE_HIT_PX, y0c, x + EDGE_HIT_PX, y1c], false));
            }
        }
        sc.decorate(|sc| {
            if n.interval {
                sc.rects.push(
                    RectInstance::filled(x0 - 2.0, y0c - 1.0, (x1 - x0).max(1.0) + 4.0, y1c - y0c + 2.0, 0)
                        .with_border(colour(c, 0xff), 2.5),
                );
            } else {
                sc.rects.push(RectInstance::filled(x0, y0c, (x1 - x0).max(1.0), y1c - y0c, colour(c, 0x38)));
                for x in [a, b] {
                    if x >= x_left && x <= x_right {
                        sc.lines.push(LineInstance::solid(x, y0c, x, y1c, 1.5, colour(c, 0xe0)));
                    }
                }
            }
        });
        // The flag: above an interval note's lane, else below it, then further down; a range's at the band's
        // top, then further down: the first place that meets no flag placed before it.
        let above = y0 - FLAG_PX - 1.0;
        let (first, next) = if n.interval { (above, y1c + 1.0) } else { (y0c, y0c + FLAG_PX) };
        let places = std::iter::once(first)
            .filter(|&y| y >= top)
            .chain((0..FLAG_TRIES).map(|j| next + j as f32 * FLAG_PX))
            .map(|y| y.min(bottom - FLAG_PX));
        let text = if n.text.is_empty() { format!("{}", k + 1) } else { format!("{} \u{b7} {}", k + 1, n.text) };
        let width = (text.chars().count() as f32 * TEXT_PX * 0.6 + 8.0).min(FLAG_MAX_PX);
        let fx = x0.min(x_right - width).max(x_left);
        let meets = |y: f32| placed.iter().any(|p| fx < p[2] && fx + width > p[0] && y < p[3] && y + FLAG_PX > p[1]);
        let fy = places.clone().find(|&y| !meets(y)).or_else(|| places.clone().next()).unwrap_or(top);
        placed.push([fx, fy, fx + width, fy + FLAG_PX]);
        boxes.push((k, [fx, fy, fx + width, fy + FLAG_PX], true));
        sc.decorate(|sc| {
            sc.rects.push(RectInstance::filled(fx, fy, width, FLAG_PX, colour(c, 0xe8)));
        });
        sc.labels.push(Label::new(fx + 4.0, fy + FLAG_PX / 2.0, text, text_colour(c), TEXT_PX).clipped(width - 6.0));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layouts::timeline::TimelineMetrics;
    use crate::views::notes::Note;

    #[test]
    fn notes_draw_where_their_time_and_row_are() {
        let t = weft_samples::nesting::nesting_trace(3);
        let layout = TimelineLayout::new(&t, TimelineMetrics::default());
        let view = TimelineView::fit(&t, 1200.0, 800.0);
        let mut notes = NoteSet::default();
        let span = t.span_ns;
        let range = Note {
            t0_ns: span / 4,
            t1_ns: span / 2,
            text: "<b>phase</b>".into(),
            colour: Colour::Red,
            location: None,
            interval: false,
        };
        notes.add(&t, range).unwrap();
        let i = 5;
        notes.add_interval(&t, i, "call", Colour::Blue).unwrap();
        let mut sc = Scene::new(1200.0, 800.0, 0);
        draw(&mut sc, &notes, &t, &layout, &view);
        // The range's band spans its times over the plot.
        let band = sc.rects.iter().find(|r| r.fill == colour(Colour::Red, 0x38)).expect("a band");
        assert!((band.x - view.x_of((span / 4) as f64)).abs() < 0.5);
        assert!((band.x + band.w - view.x_of((span / 2) as f64)).abs() < 0.5);
        assert_eq!(band.y, AXIS_PX);
        // The interval's outline sits on its row and lane.
        let outline = sc.rects.iter().find(|r| r.border == colour(Colour::Blue, 0xff)).expect("an outline");
        let iv = &t.intervals;
        let row = &layout.rows[layout.row_of_location[iv.location[i].index()] as usize];
        let y = view.y_of(row.y) + iv.depth[i] as f32 * layout.metrics.lane_px;
        assert!((outline.y - (y - 1.0)).abs() < 0.5, "{} vs {}", outline.y, y);
        // Each note's text is a label, as text.
        let texts: Vec<&str> = sc.labels.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(texts, ["1 · <b>phase</b>", "2 · call"]);
        // A second range over the first: its flag goes below the first's, not over it.
        let over = Note { t0_ns: span / 4 + 1, text: "over".into(), colour: Colour::Green, ..notes.notes()[0].clone() };
        notes.add(&t, over).unwrap();
        let mut sc = Scene::new(1200.0, 800.0, 0);
        draw(&mut sc, &notes, &t, &layout, &view);
        let flags: Vec<_> = sc.rects.iter().filter(|r| r.fill & 0xff == 0xe8).collect();
        assert_eq!(flags.len(), 3);
        for (k, a) in flags.iter().enumerate() {
            for b in &flags[k + 1..] {
                let meet = a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
                assert!(!meet, "flags meet: {a:?} {b:?}");
            }
        }
        // Hover: a flag names its note, so do a range's edges; the middle of a band names none.
        let (f0, f2) = (flags[0], flags[2]);
        assert_eq!(hit(&notes, &t, &layout, &view, f0.x + 2.0, f0.y + 2.0), Some(0));
        assert_eq!(hit(&notes, &t, &layout, &view, f2.x + f2.w - 2.0, f2.y + 2.0), Some(2));
        let edge = view.x_of((span / 2) as f64);
        assert_eq!(hit(&notes, &t, &layout, &view, edge + 1.0, view.plot_bottom() - 20.0), Some(2), "the later on top");
        notes.remove(2);
        assert_eq!(hit(&notes, &t, &layout, &view, edge + 1.0, view.plot_bottom() - 20.0), Some(0));
        let mid = view.x_of((span / 4 + span / 8) as f64);
        assert_eq!(hit(&notes, &t, &layout, &view, mid, view.plot_bottom() - 20.0), None);
        // Out of view: nothing.
        let mut away = view;
        away.t0_ns = span as f64 * 0.9;
        away.t1_ns = span as f64;
        let mut sc = Scene::new(1200.0, 800.0, 0);
        notes.remove(1);
        draw(&mut sc, &notes, &t, &layout, &away);
        assert!(sc.rects.is_empty() && sc.labels.is_empty());
    }
}
