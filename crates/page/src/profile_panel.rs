//! The profile panel's questions to the timeline shown (www/profile-panel.js asks, and fills the DOM with
//! the answers as text): select a time range (by screen x or by time), the region profile of the selection
//! or of the whole trace over a location filter (`analyses::profile`, the table `weft info --window --json`
//! prints), the legend of the regions with the most exclusive time in their colours, the region whose
//! intervals are marked, and the region search with its next/previous match.
//! The state is the timeline pane's (views::timeline); no DOM and no drawing here.

use super::viewer::{to_js, Viewer};
use serde_json::json;
use wasm_bindgen::prelude::*;
use weft_view::scene::short_labels::distinguishing_labels;
use weft_view::views::timeline::TimelinePane;

/// Characters of a region's name in the table's and the legend's room (the full name on hover): names
/// cut where they differ from the others (scene::short_labels): "…WallTim…Loop" and "…WallT…InLoop".
const TABLE_NAME_CHARS: usize = 13;
const LEGEND_NAME_CHARS: usize = 24;

fn window_js(w: Option<weft_analyses::moments::TimeWindow>) -> JsValue {
    w.map_or(JsValue::NULL, |w| to_js(&json!({"t0_ns": w.start_ns, "t1_ns": w.end_ns, "duration_ns": w.len_ns()})))
}

/// A scene colour (0xRRGGBBAA) as CSS `#rrggbb`.
fn css(c: Option<weft_view::scene::Rgba>) -> String {
    format!("#{:06x}", c.unwrap_or(0) >> 8)
}

#[wasm_bindgen]
impl Viewer {
    /// Select the time between screen x0 and x1 in the timeline: `{t0_ns, t1_ns, duration_ns}`, or null
    /// when the range is empty (the selection is cleared).
    pub fn timeline_select_px(&mut self, x0: f32, x1: f32) -> Result<JsValue, JsValue> {
        Ok(window_js(self.timeline()?.select_px(x0, x1)))
    }

    /// Select [t0, t1] (ns from the trace's start), as [`Viewer::timeline_select_px`].
    pub fn timeline_select(&mut self, t0_ns: f64, t1_ns: f64) -> Result<JsValue, JsValue> {
        Ok(window_js(self.timeline()?.select(t0_ns, t1_ns)))
    }

    /// The time (ns from the trace's start) at screen x.
    pub fn timeline_time_at(&mut self, x: f32) -> Result<f64, JsValue> {
        Ok(self.timeline()?.time_at(x))
    }

    pub fn timeline_clear_selection(&mut self) -> Result<(), JsValue> {
        self.timeline()?.clear_selection();
        Ok(())
    }

    /// The selection: `{t0_ns, t1_ns, duration_ns}` or null.
    pub fn timeline_selection(&mut self) -> Result<JsValue, JsValue> {
        Ok(window_js(self.timeline()?.selection()))
    }

    /// The region profile `{t0_ns, t1_ns, duration_ns, whole, rows: [{region, name, short, count, inclusive_ns,
    /// exclusive_ns, share}]}` (`short`: the name cut to what tells it from the others) of the selection (of the whole trace when `whole` or nothing is selected)
    /// over the locations matching `locations` (empty: all).
    pub fn timeline_profile(&mut self, whole: bool, locations: &str) -> Result<JsValue, JsValue> {
        let pane = self.timeline()?;
        let whole = whole || pane.selection().is_none();
        let (w, rows) = pane.profile(whole, locations);
        let names: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
        let short = distinguishing_labels(&names, TABLE_NAME_CHARS);
        let rows: Vec<_> = rows
            .iter()
            .zip(short)
            .map(|(r, short)| {
                json!({
                    "region": r.region, "name": r.name, "short": short, "count": r.count, "inclusive_ns": r.inclusive_ns,
                    "exclusive_ns": r.exclusive_ns, "share": r.share, "color": css(pane.region_color(r.region)),
                })
            })
            .collect();
        Ok(to_js(&json!({
            "t0_ns": w.start_ns, "t1_ns": w.end_ns, "duration_ns": w.len_ns(), "whole": whole, "rows": rows,
        })))
    }

    /// The legend: the `n` regions with the most exclusive time, `[{region, name, short, color}]` (CSS colours).
    pub fn timeline_legend(&mut self, n: usize) -> Result<JsValue, JsValue> {
        let legend = self.timeline()?.legend(n);
        let names: Vec<&str> = legend.iter().map(|(_, name, _)| name.as_ref()).collect();
        let short = distinguishing_labels(&names, LEGEND_NAME_CHARS);
        let items: Vec<_> = legend
            .iter()
            .zip(short)
            .map(|((r, name, c), short)| json!({"region": r, "name": name, "short": short, "color": css(Some(*c))}))
            .collect();
        Ok(to_js(&items))
    }

    /// Bring region `region`'s intervals forward; a negative region clears the mark.
    pub fn timeline_mark_region(&mut self, region: i32) -> Result<bool, JsValue> {
        Ok(self.timeline()?.mark_region(u32::try_from(region).ok()))
    }

    /// Search regions by name (substring, or glob with `*` and `?`); returns the match count.
    pub fn timeline_search(&mut self, pattern: &str) -> Result<u32, JsValue> {
        Ok(self.timeline()?.search(pattern) as u32)
    }

    /// Go to the next (or previous) match, zoomed to it: `{at, count, interval, region, location, start_ns,
    /// dur_ns}`, or null when nothing matches.
    pub fn timeline_search_step(&mut self, forward: bool) -> Result<JsValue, JsValue> {
        Ok(self.timeline()?.search_step(forward).map_or(JsValue::NULL, |h| to_js(&h)))
    }
}

impl Viewer {
    fn timeline(&mut self) -> Result<&mut TimelinePane, JsValue> {
        self.exact_timeline()
    }
}
