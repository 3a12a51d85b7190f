//! What the timeline draws over its scene for a message selection (`views::message_select`): each selected
//! message's line drawn again, thick and in a highlight colour, and the calls at its two ends (or a
//! collective's member calls) outlined. Only what is visible is drawn; the selection is bounded
//! (`message_select::MAX_LISTED`). Must not: hold view state, or find what a click selects.

use super::timeline::{TimelineScene, TimelineView, AXIS_PX};
use super::{rgba, LineInstance, RectInstance, Rgba, Scene};

/// The highlight: an orange that stands apart from the message lines' dark blue and the search's red.
pub const HIGHLIGHT: Rgba = rgba(0xf0, 0x7c, 0x00, 0xff);

/// Draw messages `messages` thick, then outline intervals `calls`, where visible.
pub fn highlight(sc: &mut Scene, ts: &TimelineScene<'_>, view: &TimelineView, messages: &[usize], calls: &[usize]) {
    let (lay, t) = (ts.layout, ts.trace);
    let has_row = |l: weft_model::LocationId| (lay.row_of_location[l.index()] as usize) < lay.rows.len();
    let (x_left, x_right) = (view.track_x0(), view.width);
    for &j in messages {
        let m = &t.messages;
        if j >= m.len() || !has_row(m.sender[j]) || !has_row(m.receiver[j]) {
            continue;
        }
        // Clipped to the plot, like every arrow: never over the label column or the axis.
        let plot = (x_left, super::timeline::AXIS_PX, x_right, view.plot_bottom());
        let Some(((x0, y0, x1, y1), whole)) = super::timeline::clip_segment(ts.flow_segment(view, j), plot) else {
            continue;
        };
        let line = LineInstance::solid(x0, y0, x1, y1, 3.0, HIGHLIGHT);
        sc.lines.push(if whole { line.with_arrow() } else { line });
    }
    let iv = &t.intervals;
    let lane = lay.metrics.lane_px;
    for &i in calls {
        if i >= iv.len() || !has_row(iv.location[i]) {
            continue;
        }
        let row = &lay.rows[lay.row_of_location[iv.location[i].index()] as usize];
        let y = view.y_of(row.y) + iv.depth[i] as f32 * lane;
        let (a, b) = (view.x_of(iv.start_ns[i] as f64), view.x_of(iv.end_ns(i) as f64));
        if b < x_left || a > x_right || y + lane < AXIS_PX || y > view.height {
            continue;
        }
        let x0 = a.max(x_left) - 2.0;
        let w = (b.min(x_right) - a.max(x_left)).max(1.0) + 4.0;
        sc.rects.push(RectInstance::filled(x0, y - 1.0, w, lane + 2.0, 0).with_border(HIGHLIGHT, 2.5));
    }
}
