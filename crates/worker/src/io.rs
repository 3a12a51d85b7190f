//! The worker's I/O summary of the trace shown (issue #57): bytes read and written over a window, binned, per
//! file and per rank, by `analyses::io` (so the page's I/O panel says what `weft io --json` says). Must not
//! draw or hold view state.

use wasm_bindgen::prelude::*;
use weft_analyses::io::{io_summary, IoQuery};
use weft_analyses::moments::TimeWindow;

/// The I/O summary of the trace shown over [t0, t1] (trace ns; the whole run when either is not a number) in
/// `bins` bins, of one file (`file`, or every file when empty) and one layer (`layer`, or the default when
/// empty): `weft io --json`'s JSON text.
#[wasm_bindgen]
pub fn io_summary_of(t0_ns: f64, t1_ns: f64, bins: u32, file: &str, layer: &str) -> Result<String, JsValue> {
    let trace = super::worker::shown_trace()
        .ok_or("the reader holds no trace for an I/O summary (a graph is shown, or the reader was restarted: open the file again)")?;
    let window = (t0_ns.is_finite() && t1_ns.is_finite() && t1_ns >= t0_ns)
        .then(|| TimeWindow { start_ns: t0_ns.max(0.0) as u64, end_ns: t1_ns.max(0.0) as u64 });
    let q = IoQuery {
        window,
        file: (!file.is_empty()).then_some(file),
        layer: (!layer.is_empty()).then_some(layer),
        bins: bins as usize,
    };
    serde_json::to_string(&io_summary(&trace, &q)).map_err(|e| JsValue::from_str(&e.to_string()))
}
