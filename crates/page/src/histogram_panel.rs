//! The histogram and clusters panels' questions of the timeline (www/histogram-panel.js and
//! www/clusters-panel.js ask the worker for the numbers, crates/worker/src/histogram.rs): the instances of a
//! brushed run of bins marked in the timeline, and one instance zoomed to. No DOM, no drawing, no analysis.

use super::viewer::Viewer;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use weft_analyses::calltree_bundle::decode_path_intervals;
use weft_view::views::timeline::TimelinePane;

#[wasm_bindgen]
impl Viewer {
    /// Mark the intervals of the worker's `histogram_instances` answer (its `model` bytes) in the timeline,
    /// as a call path's are marked (empty bytes: no marks); returns how many are marked.
    pub fn histogram_mark(&mut self, bytes: &[u8]) -> Result<u32, JsValue> {
        let pane = self.histogram_timeline()?;
        if bytes.is_empty() {
            pane.mark_call_path(None);
            return Ok(0);
        }
        let intervals = decode_path_intervals(bytes, pane.trace()).map_err(|e| JsValue::from_str(&e.to_string()))?;
        let n = intervals.len() as u32;
        pane.mark_call_path(Some(Rc::from(intervals)));
        Ok(n)
    }

    /// Zoom the timeline to interval `i` (half its duration on either side) with its lane scrolled into view;
    /// false for an interval the trace lacks.
    pub fn histogram_show(&mut self, i: u32) -> Result<bool, JsValue> {
        let pane = self.histogram_timeline()?;
        if i as usize >= pane.trace().intervals.len() {
            return Ok(false);
        }
        pane.show_interval(i as usize);
        Ok(true)
    }
}

impl Viewer {
    fn histogram_timeline(&mut self) -> Result<&mut TimelinePane, JsValue> {
        self.view_set()
            .pane_mut("timeline")
            .and_then(|p| p.as_timeline())
            .ok_or_else(|| JsValue::from_str("the histogram is of a trace's timeline (open the trace)"))
    }
}
