//! Two runs compared on the page (issue #54): each run is read by a worker of its own, which computes its
//! run's side of the comparison (`analyses::compare::side`) over the trace it shows; one of them pairs both
//! sides (`analyses::compare::pair`). So the page's region table and summary are what `weft diff --json`
//! prints of the same two files, computed once, in Rust. Must not draw, hold view state, or compute a figure
//! another way than `analyses::compare` does.

use wasm_bindgen::prelude::*;
use weft_analyses::compare::{pair, side, Align, CompareOptions, RankMap, Run, Side};
use weft_analyses::moments::TimeWindow;

fn err(e: impl std::fmt::Display) -> JsValue {
    JsValue::from_str(&e.to_string())
}

/// The options the page chose: `align` (`start`, `region:NAME[:N]`), `ranks` (`index`, `name`,
/// `proportional`) and a window `[t0_ns, t1_ns]` from each run's origin (either not a number: none).
fn options(align: &str, ranks: &str, t0_ns: f64, t1_ns: f64) -> Result<CompareOptions, JsValue> {
    let window = (t0_ns.is_finite() && t1_ns.is_finite() && t1_ns > t0_ns)
        .then(|| TimeWindow { start_ns: t0_ns.max(0.0) as u64, end_ns: t1_ns.max(0.0) as u64 });
    Ok(CompareOptions { align: Align::parse(align).map_err(err)?, ranks: RankMap::parse(ranks).map_err(err)?, window })
}

/// The side (`which`: "A" or "B") of the trace this worker shows, as JSON (`compare::Side`). Its wait states
/// are found as `weft diff` finds a trace's.
#[wasm_bindgen]
pub fn compare_side(which: &str, align: &str, ranks: &str, t0_ns: f64, t1_ns: f64) -> Result<String, JsValue> {
    let trace = super::worker::shown_trace()
        .ok_or("the reader holds no trace to compare (a graph is shown, or the reader was restarted)")?;
    let options = options(align, ranks, t0_ns, t1_ns)?;
    let letter = if which == "B" { 'B' } else { 'A' };
    let s = side(Run { trace: &trace, waits: true, kept: None }, letter, &options).map_err(err)?;
    serde_json::to_string(&s).map_err(err)
}

/// Both sides (JSON of [`compare_side`], A's and B's) paired under the same options: the comparison as
/// `weft diff --json` prints it.
#[wasm_bindgen]
pub fn compare_pair(a: &str, b: &str, align: &str, ranks: &str, t0_ns: f64, t1_ns: f64) -> Result<String, JsValue> {
    let options = options(align, ranks, t0_ns, t1_ns)?;
    let read = |text: &str, which: &str| {
        serde_json::from_str::<Side>(text).map_err(|e| err(format!("run {which}'s side of the comparison: {e}")))
    };
    serde_json::to_string(&pair(read(a, "A")?, read(b, "B")?, &options)).map_err(err)
}

/// Whether two dropped files (their heads) are two runs to compare rather than one run's per-rank files
/// (`readers::ranks::two_runs`).
#[wasm_bindgen]
pub fn two_runs(a: &[u8], b: &[u8]) -> bool {
    weft_readers::ranks::two_runs(a, b)
}

/// How many bytes of each file [`two_runs`] needs.
#[wasm_bindgen]
pub fn two_runs_head_bytes() -> u32 {
    weft_readers::chrome::HEAD_BYTES as u32
}
