//! The counter tracks' questions to the timeline shown (www/counters-panel.js asks, and lists the series
//! with a checkbox each): every counter series with whether its track is shown, its process, sample count,
//! minimum and maximum, and the shown tracks' places; show or hide one track. The state is the timeline
//! pane's (views::counters); no DOM and no drawing here.

use super::viewer::{to_js, Viewer};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
impl Viewer {
    /// `{series: [{series, name, process, shown, samples, min, max}], tracks: [{series, y, label}], track_px, top,
    /// constants: {series, open, y, height} or null}`
    /// of the timeline shown (y in CSS pixels of the canvas), or null when no timeline is shown.
    pub fn timeline_counters(&mut self) -> JsValue {
        if let Some(p) = self.timeline_pane() {
            return to_js(&p.counter_tracks());
        }
        // A store's: its series from the definitions, shown or not, whether zoomed out or in.
        self.view_set().store_pane().map_or(JsValue::NULL, |p| to_js(&p.counter_tracks()))
    }

    /// Open or close the group of constant counter series (their tracks below its band); false when no
    /// timeline is shown or it has no such group.
    pub fn timeline_set_counter_constants_open(&mut self, open: bool) -> bool {
        self.timeline_pane().is_some_and(|p| p.set_counter_constants_open(open))
    }

    /// Up to `count` samples of counter series `series` from its `from`-th on, `{time_ns, value}` (the
    /// page's model), or null when no timeline is shown.
    pub fn timeline_counter_samples(&mut self, series: u32, from: usize, count: usize) -> JsValue {
        self.timeline_pane().map_or(JsValue::NULL, |p| to_js(&p.counter_samples(series, from, count)))
    }

    /// Show or hide counter series `series`' track; false when no timeline is shown or the trace has no
    /// such series.
    pub fn timeline_set_counter_shown(&mut self, series: u32, shown: bool) -> bool {
        if let Some(p) = self.timeline_pane() {
            return p.set_counter_shown(series, shown);
        }
        self.view_set().store_pane().is_some_and(|p| p.set_counter_shown(series, shown))
    }
}
