//! The timeline's diagnosis as view state (issue #53): the worker's diagnosis of the trace shown
//! (`analyses::diagnosis::bundle`: reports, waits, critical path, the Diagnosis panel's cube), whether the
//! waits and the critical path are drawn, and the selected wait. `scene::diagnosis_marks` draws it over the
//! timeline; the Diagnosis panel lists the cube and names the selected wait in words ([`explain`]; its root
//! causes the worker computes for that one wait, `wait_causes`).
//! Must not: compute waits or paths (the worker does) or draw.

use crate::scene::timeline::format_duration;
use serde::Serialize;
use std::rc::Rc;
use weft_analyses::diagnosis::bundle::{DiagnosisBundle, NO_LOCATION};
use weft_model::{LocationId, Trace};

#[derive(Clone, Debug)]
pub struct TimelineDiagnosis {
    pub bundle: Rc<DiagnosisBundle>,
    pub show_waits: bool,
    pub show_path: bool,
    /// The selected wait (an index into the bundle's waits): outlined, with an arrow to its cause.
    pub selected: Option<usize>,
}

impl TimelineDiagnosis {
    pub fn new(bundle: Rc<DiagnosisBundle>) -> Self {
        TimelineDiagnosis { bundle, show_waits: true, show_path: false, selected: None }
    }
}

/// A wait, for the panel: where, how long, in what, for whom.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct WaitInfo {
    pub wait: usize,
    pub pattern: String,
    pub pattern_label: String,
    pub location: u32,
    pub location_name: String,
    pub region: String,
    pub start_ns: u64,
    pub end_ns: u64,
    pub ns: u64,
    pub cause_location: Option<u32>,
    pub cause_name: Option<String>,
    pub cause_ns: u64,
    /// "rank 12 waits 40 ms in MPI_Waitall (Late Sender) for rank 13".
    pub text: String,
}

/// A location's name as the panel writes it: "process / location" (the location's own name when the process
/// has one location named alike).
pub fn location_label(t: &Trace, l: LocationId) -> String {
    let Some(&p) = t.locations.process.get(l.index()) else { return format!("location {}", l.0) };
    let (process, name) = (t.process_name(p), t.location_name(l));
    if process == name || process.is_empty() {
        name.to_string()
    } else {
        format!("{process} / {name}")
    }
}

/// Wait `i` of `b` in words.
pub fn explain(b: &DiagnosisBundle, t: &Trace, i: usize) -> Option<WaitInfo> {
    let w = &b.waits;
    if i >= w.len() {
        return None;
    }
    let p = w.pattern[i] as usize;
    let (key, label) = (b.pattern_keys.get(p)?.clone(), b.pattern_labels.get(p)?.clone());
    let location = w.location[i];
    let call = w.call[i] as usize;
    let region = t.intervals.region.get(call).map_or("?", |&r| t.region_name(r)).to_string();
    let who = location_label(t, LocationId(location));
    let cause = (w.cause_location[i] != NO_LOCATION).then_some(w.cause_location[i]);
    let cause_name = cause.map(|c| location_label(t, LocationId(c)));
    let ns = w.end_ns[i] - w.start_ns[i];
    let mut text = format!("{who} waits {} in {region} ({label})", format_duration(ns));
    if let Some(c) = &cause_name {
        text.push_str(&format!(" for {c}"));
    }
    Some(WaitInfo {
        wait: i,
        pattern: key,
        pattern_label: label,
        location,
        location_name: who,
        region,
        start_ns: w.start_ns[i],
        end_ns: w.end_ns[i],
        ns,
        cause_location: cause,
        cause_name,
        cause_ns: w.cause_ns[i],
        text,
    })
}
