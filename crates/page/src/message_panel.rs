//! The message panel's and the communication matrix's questions to the timeline shown (www/comm-matrix.js
//! asks, and fills the DOM with the answers as text): a click selecting a message line or a sending,
//! receiving or collective call with its partners (`views::message_select`), a matrix cell's messages,
//! going to a partner, and the
//! communication matrix of the time-range selection or of the whole trace (`analyses::comm_matrix`, the
//! matrix `weft info --window --json` prints as `comm_matrix`). No DOM and no drawing here.

use super::viewer::{to_js, Viewer};
use serde_json::json;
use wasm_bindgen::prelude::*;
use weft_analyses::comm_matrix::{comm_matrix, MatrixUnit};
use weft_analyses::moments::TimeWindow;
use weft_view::scene::short_labels::distinguishing_labels;
use weft_view::views::timeline::TimelinePane;

/// Characters of a sender's or receiver's label beside the matrix.
const AXIS_LABEL_CHARS: usize = 14;

#[wasm_bindgen]
impl Viewer {
    /// Select what a click at screen (x, y) of the timeline hits: a message line, or a call with messages
    /// or a collective call. The selection (`views::message_select::MessageSelection`) or null (cleared).
    /// A click on a store's summary rows selects nothing (null).
    pub fn timeline_message_click(&mut self, x: f32, y: f32) -> Result<JsValue, JsValue> {
        if self.view_set().store_pane().is_some_and(|p| p.exact_pane_mut().is_none()) {
            return Ok(JsValue::NULL);
        }
        Ok(self.messages()?.message_click(x, y).map_or(JsValue::NULL, to_js))
    }

    /// Select the messages of a communication-matrix cell (`sender` to `receiver`, ids of `unit`, the
    /// matrix's `ids`) sent in the selection (the whole trace when `whole` or nothing is selected): they are
    /// highlighted in the timeline. The selection, or null for an unknown unit.
    pub fn timeline_message_select_pair(
        &mut self,
        unit: &str,
        sender: u32,
        receiver: u32,
        whole: bool,
    ) -> Result<JsValue, JsValue> {
        let unit = MatrixUnit::parse(unit).ok_or_else(|| JsValue::from(format!("unknown matrix unit '{unit}'")))?;
        Ok(self.messages()?.message_select_pair(unit, sender, receiver, whole).map_or(JsValue::NULL, to_js))
    }

    /// The message selection, or null.
    pub fn timeline_message_selection(&mut self) -> Result<JsValue, JsValue> {
        Ok(self.messages()?.message_selection().map_or(JsValue::NULL, to_js))
    }

    pub fn timeline_message_clear(&mut self) -> Result<(), JsValue> {
        self.messages()?.clear_message_selection();
        Ok(())
    }

    /// Pan to the partner of the selection's `k`-th message; false when there is none.
    pub fn timeline_message_go_to_partner(&mut self, k: usize) -> Result<bool, JsValue> {
        Ok(self.messages()?.message_go_to_partner(k))
    }

    /// Screen segment `[x0, y0, x1, y1]` of message `j` (send end to receive end), or null when an end has
    /// no row: where a click selects it.
    pub fn timeline_message_segment(&mut self, j: usize) -> Result<JsValue, JsValue> {
        Ok(self.messages()?.message_segment(j).map_or(JsValue::NULL, |(a, b, c, d)| to_js(&[a, b, c, d])))
    }

    /// The communication matrix `{t0_ns, t1_ns, whole, unit, senders, receivers, bytes, count, ids,
    /// sender_labels, receiver_labels}` of the
    /// time-range selection (of the whole trace when `whole` or nothing is selected), by `unit` ("process"
    /// or "location").
    pub fn timeline_comm_matrix(&mut self, whole: bool, unit: &str) -> Result<JsValue, JsValue> {
        let unit = MatrixUnit::parse(unit).ok_or_else(|| JsValue::from(format!("unknown matrix unit '{unit}'")))?;
        let pane = self.messages()?;
        let window = pane.selection().filter(|_| !whole);
        let m = comm_matrix(pane.trace(), window, unit);
        let w = window.unwrap_or(TimeWindow::whole(pane.trace()));
        // The axes' labels: each name cut to what tells it from the others (scene::short_labels).
        let short = |names: &[String]| {
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            distinguishing_labels(&names, AXIS_LABEL_CHARS)
        };
        Ok(to_js(&json!({
            "t0_ns": w.start_ns, "t1_ns": w.end_ns, "whole": window.is_none(), "unit": m.unit,
            "senders": m.senders, "receivers": m.receivers, "bytes": m.bytes, "count": m.count, "ids": m.ids,
            "sender_labels": short(&m.senders), "receiver_labels": short(&m.receivers),
        })))
    }
}

impl Viewer {
    fn messages(&mut self) -> Result<&mut TimelinePane, JsValue> {
        self.exact_timeline()
    }
}
