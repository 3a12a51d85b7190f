//! Two runs compared on the page (issue #54): each run is read by a worker of its own, which computes its
//! run's side of the comparison (`analyses::compare::side`) over the trace it shows; one of them pairs both
//! sides (`analyses::compare::pair`). So the page's region table and summary are what `weft diff --json`
//! prints of the same two files, computed once, in Rust. Must not draw, hold view state, or compute a figure
//! another way than `analyses::compare` does.

use wasm_bindgen::prelude::*;
use weft_analyses::compare::calltree::{diff_trees, tree_of, TreeSide};
use weft_analyses::compare::{pair, side, Align, CompareOptions, RankMap, Run, Side};
use weft_analyses::moments::TimeWindow;

pub(crate) fn err(e: impl std::fmt::Display) -> JsValue {
    JsValue::from_str(&e.to_string())
}

/// The options the page chose: `align` (`start`, `region:NAME[:N]`), `ranks` (`index`, `name`,
/// `proportional`) and a window `[t0_ns, t1_ns]` from each run's origin (either not a number: none).
pub(crate) fn options(align: &str, ranks: &str, t0_ns: f64, t1_ns: f64) -> Result<CompareOptions, JsValue> {
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

/// The call tree of the trace this worker shows over its window of the comparison (`compare::calltree`), named,
/// as JSON: run A's part of the differential flame graph, which B's worker pairs ([`compare_flame`]).
#[wasm_bindgen]
pub fn compare_calltree_side(which: &str, align: &str, ranks: &str, t0_ns: f64, t1_ns: f64) -> Result<String, JsValue> {
    let trace = super::worker::shown_trace()
        .ok_or("the reader holds no trace to compare (a graph is shown, or the reader was restarted)")?;
    let options = options(align, ranks, t0_ns, t1_ns)?;
    let letter = if which == "B" { 'B' } else { 'A' };
    let tree = tree_of(&trace, letter, &options).map_err(err)?;
    serde_json::to_string(&TreeSide::of(&tree, &trace)).map_err(err)
}

/// The differential flame graph: this worker's run (B) as its call tree, each path coloured by its change
/// against run A's tree (`a`: JSON of [`compare_calltree_side`]), `width` px wide (`scene::flame_diff`), as
/// JSON `{svg, boxes, paths, total_ns}`: the picture, where each box is and which path it stands for, and
/// the paths with A's and B's figures (`weft diff --calltree --json`'s `calltree`).
#[wasm_bindgen]
pub fn compare_flame(a: &str, align: &str, ranks: &str, t0_ns: f64, t1_ns: f64, width: f32) -> Result<String, JsValue> {
    let trace = super::worker::shown_trace()
        .ok_or("the reader holds no trace to compare (a graph is shown, or the reader was restarted)")?;
    let options = options(align, ranks, t0_ns, t1_ns)?;
    let side_a: TreeSide =
        serde_json::from_str(a).map_err(|e| err(format!("run A's call tree for the comparison: {e}")))?;
    let tree = tree_of(&trace, 'B', &options).map_err(err)?;
    let diff = diff_trees(&side_a, &TreeSide::of(&tree, &trace));
    let title = format!(
        "B's call tree ({} of time) coloured by each path's change of own time against A's ({})",
        weft_analyses::moments::format_duration_ns(diff.total_ns.b as f64),
        weft_analyses::moments::format_duration_ns(diff.total_ns.a as f64)
    );
    let f = weft_view::scene::flame_diff::diff_flame(&tree, &trace, &diff, width, &title);
    #[derive(serde::Serialize)]
    struct Answer<'a> {
        svg: String,
        width: f32,
        height: f32,
        boxes: &'a [weft_view::scene::flame_diff::DiffBox],
        #[serde(flatten)]
        diff: &'a weft_analyses::compare::calltree::CallTreeDiff,
    }
    let answer = Answer {
        svg: weft_view::scene::svg::to_svg(&f.scene),
        width: f.scene.width,
        height: f.scene.height,
        boxes: &f.boxes,
        diff: &diff,
    };
    serde_json::to_string(&answer).map_err(err)
}
