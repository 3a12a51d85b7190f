//! The worker's diagnosis of the trace shown (issue #53): the wait states (`analyses::diagnosis::waits`),
//! computed once per trace and kept, their report for the whole run or a window, and the critical path,
//! packed as `analyses::diagnosis::bundle` for the page's Diagnosis panel and timeline; one wait's root causes;
//! the what-if replay's predicted span. Nothing of it is computed on the page's thread. Must not draw or hold view state.

use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use weft_analyses::diagnosis::bundle::{total_time_ns, DiagnosisBundle, PathColumns, WaitColumns};
use weft_analyses::diagnosis::critical_path::path_report;
use weft_analyses::diagnosis::root_causes::root_causes;
use weft_analyses::diagnosis::waits::{wait_report, wait_states, Pattern, WaitStates};
use weft_analyses::diagnosis::whatif::{self, Scale};
use weft_model::{RegionId, Trace};

thread_local! {
    /// The wait states of the trace shown and its critical path (columns and report), with the trace they are
    /// of (compared by pointer).
    static STATES: RefCell<Option<Shown>> = const { RefCell::new(None) };
}

type Shown = (Rc<Trace>, Rc<WaitStates>, Rc<(PathColumns, String)>);

/// The trace shown, its wait states and its critical path, computed on first use.
fn shown() -> Result<Shown, JsValue> {
    let trace = super::worker::shown_trace().ok_or(
        "the reader holds no trace for a diagnosis (a graph is shown, or the reader was restarted: open the file again)",
    )?;
    STATES.with(|s| {
        let mut s = s.borrow_mut();
        if let Some(shown) = s.as_ref().filter(|(t, _, _)| Rc::ptr_eq(t, &trace)) {
            return Ok(shown.clone());
        }
        let states = Rc::new(wait_states(&trace));
        let path = Rc::new(critical_path(&trace, &states)?);
        *s = Some((trace.clone(), states.clone(), path.clone()));
        Ok((trace, states, path))
    })
}

/// The diagnosis of the trace shown over [t0, t1] (trace ns), or of the whole run when either is not a
/// number: `{kind: "diagnosis", model}` with the bundle's bytes.
#[wasm_bindgen]
pub fn diagnose(t0_ns: f64, t1_ns: f64) -> Result<JsValue, JsValue> {
    let (trace, states, path) = shown()?;
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
    let (path, path_json) = (*path).clone();
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

/// The root causes of wait `wait` alone (its index in the diagnosis' waits: `wait_states` order), as the
/// report sums them over waits (`diagnosis::root_causes`, Boehme et al.): JSON `[{name, ns}]`, the regions in
/// which the cause location spent more time than the waiting one since the two last met, each with its share
/// of the wait (`ns`: the shares sum to the wait), the largest first.
#[wasm_bindgen]
pub fn wait_causes(wait: u32) -> Result<String, JsValue> {
    let (trace, states, _) = shown()?;
    let w = states.waits.get(wait as usize).ok_or_else(|| format!("no wait {wait} in the trace shown"))?;
    let causes: Vec<_> = root_causes(&trace, std::slice::from_ref(w), None)
        .into_iter()
        .map(|c| serde_json::json!({"name": c.name, "ns": c.ns}))
        .collect();
    Ok(serde_json::Value::from(causes).to_string())
}

/// The critical path's segments and its report (`weft critical-path --json`).
fn critical_path(trace: &Trace, states: &WaitStates) -> Result<(PathColumns, String), JsValue> {
    let path = weft_analyses::diagnosis::critical_path::critical_path(trace, states);
    let report = path_report(trace, &path);
    let json = serde_json::to_string(&report).map_err(|e| JsValue::from_str(&e.to_string()))?;
    let mut cols = PathColumns::default();
    for s in &path.segments {
        cols.location.push(s.location.0);
        cols.start_ns.push(s.start_ns);
        cols.end_ns.push(s.end_ns);
    }
    Ok((cols, json))
}

/// The predicted span of the trace shown with regions scaled (`scales_json`: `[{region: NAME, factor}]`, every
/// region of that name scaled; factors outside 0.1..=2.0 refused): the replay of `analyses::diagnosis::whatif`,
/// as JSON `{recorded_span_ns, predicted_span_ns, path}` (`path`: the replayed run's `weft critical-path
/// --json`).
#[wasm_bindgen]
pub fn what_if(scales_json: &str) -> Result<String, JsValue> {
    let (trace, states, _) = shown()?;
    let asked: serde_json::Value =
        serde_json::from_str(scales_json).map_err(|e| JsValue::from_str(&format!("what-if scales: {e}")))?;
    let mut scales = Vec::new();
    for s in asked.as_array().ok_or("what-if scales: not a list")? {
        let (Some(name), Some(factor)) = (s["region"].as_str(), s["factor"].as_f64()) else {
            return Err(JsValue::from_str(&format!("what-if scales: {s} is not {{region, factor}}")));
        };
        if !(0.1..=2.0).contains(&factor) {
            return Err(JsValue::from_str(&format!("what-if: {name}'s factor {factor} is outside 0.1 to 2.0")));
        }
        let regions: Vec<RegionId> =
            (0..trace.regions.len() as u32).map(RegionId).filter(|&r| trace.region_name(r) == name).collect();
        if regions.is_empty() {
            return Err(JsValue::from_str(&format!("what-if: the trace has no region named '{name}'")));
        }
        scales.extend(regions.into_iter().map(|region| Scale { region, factor }));
    }
    let w = whatif::what_if(&trace, &states, &scales);
    let out = serde_json::json!({
        "recorded_span_ns": w.recorded_span_ns, "predicted_span_ns": w.predicted_span_ns, "path": w.path,
    });
    Ok(out.to_string())
}
