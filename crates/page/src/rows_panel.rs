//! The rows panel's questions to the timeline shown (www/rows-panel.js asks and fills the DOM with the
//! answers as text): the processes and locations as a checklist page by page, a location hidden or shown, a
//! process folded or unfolded, a click in the label column (a process header or label folds it), and the
//! overview strip under the pointer (a click or drag there moves the window).
//! The state is the timeline pane's (views::timeline, or a store's views::store: `views::timeline::Rows`); no
//! DOM and no drawing here.

use super::viewer::{to_js, Viewer};
use wasm_bindgen::prelude::*;
use weft_view::views::timeline::Rows;

#[wasm_bindgen]
impl Viewer {
    /// Processes with their locations matching `filter` (substring of "process / location"), from the
    /// `from`-th matching location on, at most `count`: `{processes: [{id, name, folded, location_count,
    /// locations: [{id, name, shown}]}], matched, from, listed}`.
    pub fn timeline_locations(&mut self, filter: &str, from: usize, count: usize) -> Result<JsValue, JsValue> {
        Ok(to_js(&self.rows_timeline()?.location_list(filter, from, count.min(5_000))))
    }

    /// Hide or show location `location`'s row; false when nothing changed (the last row shown stays).
    pub fn timeline_set_hidden(&mut self, location: u32, hidden: bool) -> Result<bool, JsValue> {
        Ok(self.rows_timeline()?.set_hidden(location, hidden))
    }

    /// Fold process `process`'s rows into one summary row, or unfold them.
    pub fn timeline_set_folded(&mut self, process: u32, folded: bool) -> Result<bool, JsValue> {
        Ok(self.rows_timeline()?.set_folded(process, folded))
    }

    /// Is screen (x, y) on the overview strip?
    pub fn timeline_on_overview(&mut self, x: f32, y: f32) -> Result<bool, JsValue> {
        Ok(self.rows_timeline()?.on_overview(x, y))
    }

    /// Centre the window on the time under x of the overview strip.
    pub fn timeline_overview_go(&mut self, x: f32) -> Result<bool, JsValue> {
        Ok(self.rows_timeline()?.overview_go(x))
    }

    /// A click in the label column or on the overview strip: folds/unfolds a process, or moves the window;
    /// false when the click did neither.
    pub fn timeline_rows_click(&mut self, x: f32, y: f32) -> Result<bool, JsValue> {
        Ok(self.rows_timeline()?.rows_click(x, y))
    }

    /// The timeline shown: a trace's, or a store's.
    fn rows_timeline(&mut self) -> Result<&mut dyn Rows, JsValue> {
        if self.timeline_pane().is_some() {
            return Ok(self.timeline_pane().expect("just seen"));
        }
        let views = self.view_set();
        match views.view() {
            "timeline" => views.store_pane().map(|p| p as &mut dyn Rows).ok_or_else(|| "no timeline is shown".into()),
            _ => Err("no timeline is shown".into()),
        }
    }
}
