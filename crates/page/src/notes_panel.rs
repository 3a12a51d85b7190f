//! The notes panel's questions to the trace's timeline (www/notes.js asks and fills the DOM with the answers
//! as text): add a note on a time range, on an interval, or on what is under the pointer or selected; edit,
//! colour, remove and zoom to one; the notes as the permalink's value and as the JSON file beside the trace
//! (`weft_view::views::notes`, docs/notes.md). No DOM and no drawing here.

use super::viewer::{to_js, Viewer};
use serde_json::json;
use wasm_bindgen::prelude::*;
use weft_view::views::notes::{self, Colour, Note, NotesHost, NotesTrace};

fn colour(name: &str) -> Result<Colour, JsValue> {
    Colour::parse(name).ok_or_else(|| JsValue::from(format!("no note colour '{name}'")))
}

fn err(e: notes::NotesError) -> JsValue {
    JsValue::from(e.to_string())
}

/// Is `text` a notes file (a JSON object with a `weft_notes` key), not a trace?
#[wasm_bindgen]
pub fn is_notes_file(text: &str) -> bool {
    notes::is_notes_file(text)
}

#[wasm_bindgen]
impl Viewer {
    /// Whether notes can be taken: a trace's timeline or a store's is loaded.
    pub fn notes_available(&mut self) -> bool {
        let set = self.view_set_unchanged();
        set.trace_timeline().is_some() || set.store_pane().is_some()
    }

    /// The notes, `[{index, t0_ns, t1_ns, text, colour, location, interval, unresolved}]`.
    pub fn notes_list(&mut self) -> Result<JsValue, JsValue> {
        Ok(to_js(&self.notes_seen()?.notes().list()))
    }

    /// The palette's colour names, in order.
    pub fn notes_colours(&self) -> Vec<String> {
        Colour::ALL.iter().map(|c| c.name().to_string()).collect()
    }

    /// Add a note on [t0_ns, t1_ns] (on `location`'s row when given); returns its index.
    pub fn notes_add_range(
        &mut self,
        t0_ns: f64,
        t1_ns: f64,
        text: &str,
        colour_name: &str,
        location: Option<u32>,
    ) -> Result<usize, JsValue> {
        let colour = colour(colour_name)?;
        if !(t0_ns.is_finite() && t1_ns.is_finite() && t0_ns >= 0.0) {
            return Err("a note's times are whole ns from the trace's start".into());
        }
        let (a, b) = (t0_ns.min(t1_ns).round() as u64, t0_ns.max(t1_ns).round() as u64);
        let note = Note { t0_ns: a, t1_ns: b, text: text.to_string(), colour, location, interval: false };
        let (set, trace) = self.notes_pane()?.notes_mut();
        set.add(trace, note).map_err(err)
    }

    /// Add a note on interval `i`; returns its index.
    pub fn notes_add_interval(&mut self, i: usize, text: &str, colour_name: &str) -> Result<usize, JsValue> {
        let colour = colour(colour_name)?;
        let (set, trace) = self.notes_pane()?.notes_mut();
        set.add_interval(trace, i, text, colour).map_err(err)
    }

    /// Add a note on the interval under the pointer (the last hover's) when there is one, else on the selected
    /// time range; `{index, kind: "interval"|"range"}`, or Err saying how to choose what to note.
    pub fn notes_add_here(&mut self, text: &str, colour_name: &str) -> Result<JsValue, JsValue> {
        let colour = colour(colour_name)?;
        let pane = self.notes_pane()?;
        let (hovered, selection) = (pane.hovered_interval(), pane.note_range());
        let (set, trace) = pane.notes_mut();
        let (index, kind) = match (hovered, selection) {
            (Some(i), _) => (set.add_interval(trace, i, text, colour).map_err(err)?, "interval"),
            (None, Some(w)) => {
                let note = Note {
                    t0_ns: w.start_ns,
                    t1_ns: w.end_ns,
                    text: text.to_string(),
                    colour,
                    location: None,
                    interval: false,
                };
                (set.add(trace, note).map_err(err)?, "range")
            }
            (None, None) => {
                return Err("point at an interval, or select a time range (Shift+drag), to note it".into());
            }
        };
        Ok(to_js(&json!({"index": index, "kind": kind})))
    }

    pub fn notes_set_text(&mut self, k: usize, text: &str) -> Result<bool, JsValue> {
        self.notes_pane()?.notes_mut().0.set_text(k, text).map_err(err)
    }

    pub fn notes_set_colour(&mut self, k: usize, colour_name: &str) -> Result<bool, JsValue> {
        let colour = colour(colour_name)?;
        Ok(self.notes_pane()?.notes_mut().0.set_colour(k, colour))
    }

    pub fn notes_remove(&mut self, k: usize) -> Result<bool, JsValue> {
        Ok(self.notes_pane()?.notes_mut().0.remove(k))
    }

    /// Zoom the timeline to note `k` (its interval, or its range and row).
    pub fn notes_show(&mut self, k: usize) -> Result<bool, JsValue> {
        Ok(self.notes_pane()?.show_note(k))
    }

    /// The notes as the permalink's value (base64url; "" for none).
    pub fn notes_link(&mut self) -> Result<String, JsValue> {
        Ok(notes::encode_link(self.notes_seen()?.notes().notes()))
    }

    /// Replace the notes by a permalink's value; returns the warnings (locations or intervals the trace lacks).
    pub fn notes_set_link(&mut self, value: &str) -> Result<Vec<String>, JsValue> {
        let list = notes::decode_link(value).map_err(|e| JsValue::from(format!("the link's notes: {e}")))?;
        let (set, trace) = self.notes_pane()?.notes_mut();
        Ok(set.replace(trace, list))
    }

    /// The notes as the JSON file (docs/notes.md) for the trace named `name`.
    pub fn notes_export(&mut self, name: &str) -> Result<String, JsValue> {
        let pane = self.notes_seen()?;
        let trace = NotesTrace { name: name.to_string(), span_ns: pane.notes_trace().span_ns };
        Ok(notes::to_json(pane.notes().notes(), &trace))
    }

    /// Replace the notes by a notes file's, for the trace named `name`: `{count, warnings}`, the warnings
    /// saying when the file was written for another trace (name or span) or names what this one lacks.
    pub fn notes_import(&mut self, text: &str, name: &str) -> Result<JsValue, JsValue> {
        let file = notes::from_json(text).map_err(err)?;
        let pane = self.notes_pane()?;
        let mut warnings = notes::mismatch(&file, name, pane.notes_trace().span_ns);
        let (set, trace) = pane.notes_mut();
        warnings.extend(set.replace(trace, file.notes));
        Ok(to_js(&json!({"count": set.len(), "warnings": warnings})))
    }
}

impl Viewer {
    /// The timeline the notes are on (a trace's, else a store's), for a question that changes nothing drawn.
    fn notes_seen(&mut self) -> Result<&mut dyn NotesHost, JsValue> {
        host(self.view_set_unchanged())
    }

    fn notes_pane(&mut self) -> Result<&mut dyn NotesHost, JsValue> {
        host(self.view_set())
    }
}

fn host(set: &mut weft_view::views::set::ViewSet) -> Result<&mut dyn NotesHost, JsValue> {
    let none = || JsValue::from("notes are taken on a trace's or a store's timeline; none is loaded");
    if set.trace_timeline().is_some() {
        return set.trace_timeline().map(|p| p as &mut dyn NotesHost).ok_or_else(none);
    }
    set.store_pane().map(|p| p as &mut dyn NotesHost).ok_or_else(none)
}
