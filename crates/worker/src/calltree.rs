//! The worker's call tree of the trace shown (issue #55): the tree of a selection (a window and a set of
//! locations, or the whole run), merged or per location, top down or bottom up (`analyses::calltree`), packed
//! as `analyses::calltree_bundle` for the page's call-tree panel and flame graph; and the intervals of one call
//! path, for the timeline's marks. Nothing of it is computed on the page's thread. Must not draw or hold view
//! state.

use wasm_bindgen::prelude::*;
use weft_analyses::calltree::{call_tree, per_location};
use weft_analyses::calltree_bundle::{encode_path_intervals, path_intervals, BundleTree, CallTreeBundle};
use weft_analyses::moments::TimeWindow;
use weft_model::{LocationId, RegionId, Trace};

pub(crate) fn trace() -> Result<std::rc::Rc<Trace>, JsValue> {
    super::worker::shown_trace()
        .ok_or_else(|| "the reader holds no trace for a call tree (a graph is shown, or the reader was restarted: open the file again)".into())
}

/// [t0, t1] (trace ns) clipped to the run, or the whole run when either is not a number.
pub(crate) fn window_of(trace: &Trace, t0_ns: f64, t1_ns: f64) -> TimeWindow {
    if t0_ns.is_finite() && t1_ns.is_finite() && t1_ns >= t0_ns {
        let end_ns = (t1_ns.max(0.0) as u64).min(trace.span_ns);
        TimeWindow { start_ns: (t0_ns.max(0.0) as u64).min(end_ns), end_ns }
    } else {
        TimeWindow::whole(trace)
    }
}

/// The selected locations as a membership test: every location when `locations` is None; Err naming one
/// that the trace does not have.
pub(crate) fn selected(trace: &Trace, locations: Option<Vec<u32>>) -> Result<(Option<Vec<u32>>, Vec<bool>), JsValue> {
    let n = trace.locations.len();
    let Some(mut list) = locations else { return Ok((None, vec![true; n])) };
    list.sort_unstable();
    list.dedup();
    let mut keep = vec![false; n];
    for &l in &list {
        *keep.get_mut(l as usize).ok_or_else(|| format!("the trace shown has no location {l} (it has {n})"))? = true;
    }
    Ok((Some(list), keep))
}

/// The call tree of the trace shown over [t0, t1] (the whole run when either is not a number) and the
/// locations given (every location when undefined): `{kind: "calltree", model}` with the bundle's bytes, one
/// tree merged over the locations or one per location, top down or `inverted`.
#[wasm_bindgen]
pub fn call_tree_of(
    t0_ns: f64,
    t1_ns: f64,
    locations: Option<Vec<u32>>,
    inverted: bool,
    per_location_trees: bool,
) -> Result<JsValue, JsValue> {
    let trace = trace()?;
    let window = window_of(&trace, t0_ns, t1_ns);
    let (locations, keep) = selected(&trace, locations)?;
    let keep = |l: LocationId| keep[l.index()];
    let turn = |tree: weft_analyses::calltree::CallTree| if inverted { tree.inverted(&trace) } else { tree };
    let trees = if per_location_trees {
        per_location(&trace, Some(window), keep)
            .into_iter()
            .map(|lt| BundleTree { location: Some(lt.location), tree: turn(lt.tree) })
            .collect()
    } else {
        vec![BundleTree { location: None, tree: turn(call_tree(&trace, Some(window), keep)) }]
    };
    let bundle = CallTreeBundle { window, locations, inverted, per_location: per_location_trees, trees };
    Ok(super::worker::loaded_model("calltree", bundle.encode()))
}

/// The intervals of call path `path` (region ids, as a node of the tree lists them: outermost first, or with
/// `inverted` the region where the time is spent first) over the same selection: `{kind: "calltree-path",
/// model}`, their indices in the trace's order (`calltree_bundle::path_intervals`).
#[wasm_bindgen]
pub fn call_path_intervals(
    t0_ns: f64,
    t1_ns: f64,
    locations: Option<Vec<u32>>,
    path: Vec<u32>,
    inverted: bool,
) -> Result<JsValue, JsValue> {
    let trace = trace()?;
    let window = window_of(&trace, t0_ns, t1_ns);
    let (_, keep) = selected(&trace, locations)?;
    if let Some(&r) = path.iter().find(|&&r| r as usize >= trace.regions.len()) {
        return Err(format!("the trace shown has no region {r}").into());
    }
    let path: Vec<RegionId> = path.into_iter().map(RegionId).collect();
    let found = path_intervals(&trace, window, |l| keep[l.index()], &path, inverted);
    Ok(super::worker::loaded_model("calltree-path", encode_path_intervals(&found)))
}
