//! The Diagnosis panel's questions to the timeline shown (www/diagnosis-panel.js asks, and fills the DOM with
//! the answers as text): the worker's diagnosis received and checked against the trace
//! (`analyses::diagnosis::bundle`), the three coupled lists of CUBE (pattern -> region -> location, each line
//! with its time and its share of the total time, filtered by the lines chosen above it), a wait in words
//! with its root causes, going to a location's worst wait, a click on a hatched wait, and whether the waits
//! and the critical path are drawn. The lists are sums the worker made (`DiagnosisBundle::patterns` and the
//! rest read its cube), so the page's numbers are `weft waits --json`'s. No DOM and no drawing here.

use super::viewer::{to_js, Viewer};
use serde_json::json;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use weft_analyses::diagnosis::bundle::{CubeLine, DiagnosisBundle};
use weft_analyses::diagnosis::calls::MpiCall;
use weft_model::{LocationId, RegionId};
use weft_view::views::timeline::TimelinePane;
use weft_view::views::timeline_diagnosis::location_label;

/// A filter from the page: a negative number is none.
fn chosen(v: i32) -> Option<u32> {
    u32::try_from(v).ok()
}

#[wasm_bindgen]
impl Viewer {
    /// Show the worker's diagnosis (its `diagnose` answer's bytes) for the trace shown: `{waits, path_segments,
    /// total_wait_ns, window}`. Err when the bytes are not of this trace.
    pub fn receive_diagnosis(&mut self, bytes: &[u8]) -> Result<JsValue, JsValue> {
        let pane = self.diagnosis_timeline()?;
        let t = pane.trace();
        let b = DiagnosisBundle::decode(bytes, t).map_err(|e| JsValue::from_str(&e.to_string()))?;
        // Whether the trace has anything a wait is made of: for the panel's empty state.
        let communication = !t.messages.is_empty()
            || !t.collectives.is_empty()
            || (0..t.regions.len()).any(|r| MpiCall::of(t.region_name(RegionId(r as u32))).is_some());
        let out = json!({
            "waits": b.waits.len(), "path_segments": b.path.len(), "total_wait_ns": b.total_wait_ns(),
            "window": b.window.map(|(a, c)| [a, c]), "communication": communication,
        });
        pane.set_diagnosis(Rc::new(b));
        Ok(to_js(&out))
    }

    /// Whether a diagnosis is shown (received for the trace shown).
    pub fn has_diagnosis(&mut self) -> bool {
        self.view_set_unchanged().timeline_pane().is_some_and(|p| p.diagnosis().is_some())
    }

    /// The three lists: every pattern with waiting; the regions of `pattern` (all patterns when negative); the
    /// locations of `pattern` in `region` (each unfiltered when negative). `{window, total_time_ns,
    /// total_wait_ns, patterns: [{id, key, label, ns, share, instances, worst}], regions: [{id, name, ...}],
    /// locations: [{id, name, ...}]}`; `share` is of the total time (CUBE's "Time": the window's length on every
    /// location with intervals), `worst` the longest wait under the line (for [`Viewer::diagnosis_show_wait`]).
    pub fn diagnosis_lists(&mut self, pattern: i32, region: i32) -> Result<JsValue, JsValue> {
        let pane = self.diagnosis_timeline()?;
        let d = pane.diagnosis().ok_or("no diagnosis was received for the trace shown")?;
        let (b, t) = (&d.bundle, pane.trace());
        let share = |ns: u64| if b.total_time_ns > 0 { ns as f64 / b.total_time_ns as f64 } else { 0.0 };
        let line = |l: &CubeLine, name: String, more: serde_json::Value| {
            let mut o = json!({"id": l.id, "name": name, "ns": l.ns, "share": share(l.ns), "instances": l.instances,
                "worst": l.worst, "worst_ns": b.wait_ns(l.worst)});
            if let (Some(o), Some(m)) = (o.as_object_mut(), more.as_object()) {
                o.extend(m.clone());
            }
            o
        };
        let p = chosen(pattern).and_then(|p| u8::try_from(p).ok());
        let patterns: Vec<_> = b
            .patterns()
            .iter()
            .map(|l| {
                let (key, label) = (&b.pattern_keys[l.id as usize], &b.pattern_labels[l.id as usize]);
                line(l, label.clone(), json!({"key": key, "label": label}))
            })
            .collect();
        let regions: Vec<_> =
            b.regions(p).iter().map(|l| line(l, t.region_name(RegionId(l.id)).to_string(), json!({}))).collect();
        let locations: Vec<_> = b
            .locations(p, chosen(region))
            .iter()
            .map(|l| line(l, location_label(t, LocationId(l.id)), json!({})))
            .collect();
        Ok(to_js(&json!({
            "window": b.window.map(|(a, c)| [a, c]), "total_time_ns": b.total_time_ns,
            "total_wait_ns": b.total_wait_ns(), "pattern": p, "region": chosen(region),
            "patterns": patterns, "regions": regions, "locations": locations,
        })))
    }

    /// The report as the worker made it: exactly `weft waits --json [--window]` (a JSON string).
    pub fn diagnosis_report(&mut self) -> Result<String, JsValue> {
        let pane = self.diagnosis_timeline()?;
        Ok(pane.diagnosis().ok_or("no diagnosis was received")?.bundle.report_json.clone())
    }

    /// The critical path's report: exactly `weft critical-path --json` (a JSON string; "{}" without a path).
    pub fn diagnosis_path_report(&mut self) -> Result<String, JsValue> {
        let pane = self.diagnosis_timeline()?;
        Ok(pane.diagnosis().ok_or("no diagnosis was received")?.bundle.path_json.clone())
    }

    /// Select wait `wait` and bring it and its cause into view: the wait in words with its root causes
    /// (`views::timeline_diagnosis::WaitInfo`), or null for no such wait.
    pub fn diagnosis_show_wait(&mut self, wait: u32) -> Result<JsValue, JsValue> {
        Ok(self.diagnosis_timeline()?.show_wait(wait as usize).map_or(JsValue::NULL, |w| to_js(&w)))
    }

    /// Select the hatched wait at screen (x, y) of the timeline: the wait in words, or null (the selection
    /// cleared). Null, selecting nothing, without a diagnosis or with the waits not drawn.
    pub fn timeline_wait_click(&mut self, x: f32, y: f32) -> Result<JsValue, JsValue> {
        let Some(pane) = self.view_set().timeline_pane() else { return Ok(JsValue::NULL) };
        Ok(pane.wait_click(x, y).map_or(JsValue::NULL, |w| to_js(&w)))
    }

    /// The selected wait in words, or null.
    pub fn diagnosis_selected_wait(&mut self) -> Result<JsValue, JsValue> {
        Ok(self.diagnosis_timeline()?.selected_wait().map_or(JsValue::NULL, |w| to_js(&w)))
    }

    /// Draw the waits (hatched) and the critical path, or not.
    pub fn diagnosis_set_shown(&mut self, waits: bool, path: bool) -> Result<bool, JsValue> {
        Ok(self.diagnosis_timeline()?.set_diagnosis_shown(waits, path))
    }
}

impl Viewer {
    /// The trace's timeline pane: a diagnosis is of a trace the worker read (a store's wait states, kept by
    /// `weft index --waits`, are listed by the store worker: www/diagnosis-panel.js `diagnoseStore`).
    fn diagnosis_timeline(&mut self) -> Result<&mut TimelinePane, JsValue> {
        self.timeline_pane().ok_or_else(|| {
            JsValue::from_str(
                "the Diagnosis panel diagnoses a trace's timeline (open the trace, or run weft waits STORE on a store indexed with --waits)",
            )
        })
    }
}
