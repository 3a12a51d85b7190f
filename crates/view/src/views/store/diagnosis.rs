//! The diagnosis over a store's timeline (issue #53, a store indexed with `weft index --waits`): where waiting
//! concentrates, per row and bin at any zoom, and the critical path across the rows, both from the worker's
//! overlay for the viewport (`store::read::query::WaitOverlay`: the wait summary and path tiles of that
//! window and those rows, never the whole store), drawn with the trace's diagnosis marks
//! (`scene::diagnosis_marks`); and the row of the location the Diagnosis panel chose, scrolled to and marked.
//! Must not fetch or decode tiles (the worker does) or compute a wait.

use super::StorePane;
use crate::scene::diagnosis_marks;
use crate::scene::timeline::AXIS_PX;
use crate::scene::Scene;
use serde_json::json;
use std::rc::Rc;
use weft_analyses::diagnosis::bundle::PathColumns;
use weft_model::LocationId;
use weft_store::read::query::{Viewport, WaitOverlay};

/// Whether waiting (per bin) and the critical path are drawn, the worker's overlay for the viewport answered
/// last, and the row of the location chosen in the panel.
#[derive(Default)]
pub(super) struct StoreDiagnosis {
    waits: bool,
    path: bool,
    overlay: Option<Rc<WaitOverlay>>,
    /// The overlay's path segments, as the trace's path is drawn from.
    path_columns: PathColumns,
    marked: Option<LocationId>,
}

impl StorePane {
    /// Draw where waiting concentrates and the critical path, or not. The page then asks the worker for the
    /// overlay of the view with the tiles it lacks (`StoreSession::set_diagnosis`).
    pub fn set_diagnosis_shown(&mut self, waits: bool, path: bool) {
        let d = &mut self.diagnosis;
        if (d.waits, d.path) != (waits, path) {
            (d.waits, d.path) = (waits, path);
            // Asked again: the viewport asked last was asked without what is drawn now.
            self.asked = None;
        }
    }

    /// What the page asks the worker to answer beside the view: (waits per bin, critical path).
    pub fn diagnosis_asked(&self) -> (bool, bool) {
        (self.diagnosis.waits, self.diagnosis.path)
    }

    /// The worker's overlay for the viewport asked (it comes with the view's answer): drawn from now on.
    pub fn show_wait_overlay(&mut self, o: WaitOverlay) {
        let d = &mut self.diagnosis;
        d.path_columns = PathColumns {
            location: o.path_location.clone(),
            start_ns: o.path_start_ns.clone(),
            end_ns: o.path_end_ns.clone(),
        };
        d.overlay = Some(Rc::new(o));
    }

    /// Whether the overlay held has all that `vp` draws of the diagnosis shown (nothing shown: it has):
    /// what was asked, its window and rows, and the level of the grid shown.
    pub(super) fn overlay_covers(&self, vp: &Viewport) -> bool {
        let d = &self.diagnosis;
        if !d.waits && !d.path {
            return true;
        }
        let Some(o) = &d.overlay else { return false };
        if (d.waits && !o.waits_asked) || (d.path && !o.path_asked) {
            return false;
        }
        let span = self.skeleton.span_ns as f64;
        let (a, b) = (vp.t0_ns.clamp(0.0, span), vp.t1_ns.clamp(0.0, span));
        let rows = o.first_location..o.first_location + o.locations;
        let in_rows = vp.locations.is_empty() || (rows.start <= vp.locations.start && vp.locations.end <= rows.end);
        let level = match &self.data {
            super::Data::Grid(g) if d.waits && !o.rows.is_empty() => g.level == o.level,
            _ => true,
        };
        a + 1.0 >= o.t0_ns as f64 && b <= o.t1_ns as f64 + 1.0 && in_rows && level
    }

    /// The Diagnosis panel's location chosen: its row scrolled to the middle of the plot and marked; false
    /// where the location has no row shown (hidden, or no such location).
    pub fn show_location(&mut self, l: u32) -> bool {
        let lay = &self.layout;
        let Some(row) = lay.row_of_location.get(l as usize).and_then(|&r| lay.rows.get(r as usize)) else {
            self.diagnosis.marked = None;
            return false;
        };
        let plot = self.view.plot_bottom() - AXIS_PX;
        let target = row.y + lay.row_height(row) / 2.0 - plot / 2.0;
        self.view.scroll_by(target - self.view.scroll_y, &self.layout);
        self.diagnosis.marked = Some(LocationId(l));
        self.sync();
        true
    }

    /// Draw the diagnosis shown over the view's scene.
    pub(super) fn draw_diagnosis(&self, sc: &mut Scene) {
        let d = &self.diagnosis;
        if let (true, Some(o)) = (d.waits, &d.overlay) {
            let span = self.skeleton.span_ns;
            diagnosis_marks::draw_wait_bins(sc, &self.layout, &self.view, |l| {
                let row = o.row(l.0)?;
                Some(
                    row.iter()
                        .enumerate()
                        .map(|(k, &ns)| (o.bin_time(k, span), ns))
                        .map(|((a, b), ns)| (a, b, ns))
                        .collect(),
                )
            });
        }
        if d.path && d.overlay.as_ref().is_some_and(|o| o.path_asked) {
            diagnosis_marks::draw_path(sc, &d.path_columns, &self.layout, &self.view);
        }
        if let Some(l) = d.marked {
            diagnosis_marks::mark_row(sc, &self.layout, &self.view, l);
        }
    }

    /// The diagnosis shown, for the page's state (`brief`).
    pub(super) fn diagnosis_brief(&self) -> serde_json::Value {
        let d = &self.diagnosis;
        let span = self.skeleton.span_ns;
        let overlay = d.overlay.as_ref().map(|o| {
            let waiting: u64 = o.rows.iter().flatten().sum();
            // The bin where the most of its time is waiting (tests look for its hatching).
            let share = |k: usize, ns: u64| {
                let (a, b) = o.bin_time(k, span);
                ns as f64 / (b - a).max(1) as f64
            };
            let worst = (o.rows.iter().enumerate())
                .flat_map(|(r, row)| row.iter().enumerate().map(move |(k, &ns)| (r, k, ns)))
                .filter(|&(_, _, ns)| ns > 0)
                .max_by(|x, y| share(x.1, x.2).total_cmp(&share(y.1, y.2)))
                .map(|(r, k, ns)| {
                    let (a, b) = o.bin_time(k, span);
                    json!({"location": o.first_location + r as u32, "start_ns": a, "end_ns": b, "ns": ns})
                });
            json!({
                "level": o.level, "bin_ns": o.bin_ns, "first_bin": o.first_bin, "bins": o.rows.first().map_or(0, Vec::len),
                "t0_ns": o.t0_ns, "t1_ns": o.t1_ns, "locations": [o.first_location, o.first_location + o.locations],
                "waiting_ns": waiting, "worst_bin": worst, "path_segments": o.path_location.len(), "path": o.path_asked,
                "missing": o.missing,
            })
        });
        json!({ "show_waits": d.waits, "show_path": d.path, "overlay": overlay, "marked": d.marked.map(|l| l.0),
            "off_screen_jumps": self.off_screen_jumps(20) })
    }

    /// The path's jumps in the window between a row on screen and one scrolled off it (drawn to the plot's
    /// edge with an arrow: `diagnosis_marks::draw_path`), the first `most`: `{t_ns, from, to, edge, y}` (`edge`
    /// "top" or "bottom", `y` its screen y), for tests.
    fn off_screen_jumps(&self, most: usize) -> Vec<serde_json::Value> {
        let d = &self.diagnosis;
        let (top, bottom) = (AXIS_PX, self.view.plot_bottom());
        let lane = self.layout.metrics.lane_px;
        let lay = &self.layout;
        let y_of = |l: u32| {
            let &r = lay.row_of_location.get(l as usize)?;
            lay.rows.get(r as usize).map(|row| self.view.y_of(row.y) + 0.5 * lane)
        };
        let p = &d.path_columns;
        let mut out = Vec::new();
        if !d.path {
            return out;
        }
        for k in 1..p.location.len() {
            let t = p.start_ns[k];
            if (t as f64) < self.view.t0_ns || (t as f64) > self.view.t1_ns {
                continue;
            }
            let (Some(ya), Some(yb)) = (y_of(p.location[k - 1]), y_of(p.location[k])) else { continue };
            let on = |y: f32| (top..=bottom).contains(&y);
            if on(ya) == on(yb) {
                continue;
            }
            let off = if on(ya) { yb } else { ya };
            let (edge, y) = if off > bottom { ("bottom", bottom) } else { ("top", top) };
            out.push(json!({ "t_ns": t, "from": p.location[k - 1], "to": p.location[k], "edge": edge, "y": y }));
            if out.len() >= most {
                break;
            }
        }
        out
    }
}
