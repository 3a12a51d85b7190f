//! The worker's duration histograms and clusters of the trace shown (issue #55), for the page's histogram
//! and clusters panels: a region's histogram over a selection (`analyses::histogram`, the JSON of `weft
//! histogram --json`), the instances of a brushed run of bins (listed slowest first, and all of them as an
//! interval set for the timeline's marks), the slowest 1 % of every region (`weft histogram --outliers
//! --json`), and the clusters of the locations (`analyses::clusters`, `weft clusters --json`) with the rows
//! that grouping by behaviour hides. The numbers are the CLI's because they come from the same functions and
//! shapes. Must not draw or hold view state.

use super::calltree::{selected, window_of};
use serde::Serialize;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use weft_analyses::calltree_bundle::encode_path_intervals;
use weft_analyses::clusters::json::ClustersJson;
use weft_analyses::clusters::{cluster, features};
use weft_analyses::histogram::{
    durations, histogram, instances_between, outliers, HistogramJson, Instance, OutliersJson, MAX_BINS,
};
use weft_analyses::moments::location_label;
use weft_model::{RegionId, Trace};
use weft_view::views::options::IdSet;

fn trace(what: &str) -> Result<Rc<Trace>, JsValue> {
    super::worker::shown_trace().ok_or_else(|| {
        format!(
            "the reader holds no trace for {what} (a graph is shown, or the reader was restarted: open the file again)"
        )
        .into()
    })
}

fn json(v: &impl Serialize) -> Result<String, JsValue> {
    serde_json::to_string(v).map_err(|e| JsValue::from_str(&e.to_string()))
}

/// Which regions are named `name` (every region of that name, as `weft histogram --region`); Err naming it
/// when none is.
fn named(trace: &Trace, name: &str) -> Result<Vec<bool>, JsValue> {
    let named: Vec<bool> = (0..trace.regions.len() as u32).map(|r| trace.region_name(RegionId(r)) == name).collect();
    if named.contains(&true) {
        Ok(named)
    } else {
        Err(format!("the trace shown has no region named '{name}'").into())
    }
}

/// The histogram of region `name`'s instances that count in [t0, t1] (the whole run when either is not a
/// number) on the locations given (every location when undefined), on at most `bins` log-spaced bins: the
/// JSON text `weft histogram --region NAME --json --bins N` prints for the same selection.
#[wasm_bindgen]
pub fn region_histogram(
    t0_ns: f64,
    t1_ns: f64,
    locations: Option<Vec<u32>>,
    name: &str,
    bins: u32,
) -> Result<String, JsValue> {
    let trace = trace("a histogram")?;
    let window = window_of(&trace, t0_ns, t1_ns);
    let (_, keep) = selected(&trace, locations)?;
    let named = named(&trace, name)?;
    let d = durations(&trace, Some(window), |l| keep[l.index()], |r| named[r.index()]);
    let h = histogram(d, (bins as usize).clamp(1, MAX_BINS));
    json(&HistogramJson::new(name, &h))
}

/// An instance as the page lists it: the CLI's keys (`location`, `start_ns`, `dur_ns`) with the interval's
/// index (to zoom to it) and the location's name.
#[derive(Serialize)]
struct PageInstance {
    interval: u32,
    location: u32,
    name: String,
    start_ns: u64,
    dur_ns: u64,
}

fn page_instance(trace: &Trace, i: &Instance) -> PageInstance {
    PageInstance {
        interval: i.interval as u32,
        location: i.location.0,
        name: location_label(trace, i.location),
        start_ns: i.start_ns,
        dur_ns: i.dur_ns,
    }
}

#[derive(Serialize)]
struct Brushed {
    count: usize,
    lo_ns: u64,
    hi_ns: u64,
    instances: Vec<PageInstance>,
}

/// The instances of region `name` in the same selection whose duration is in [lo_ns, hi_ns) (a brushed run
/// of bins): `{kind: "histogram-instances", model, summary}`, `model` all of them as an interval set
/// (`calltree_bundle::encode_path_intervals`, for the timeline's marks) and `summary` the JSON `{count,
/// lo_ns, hi_ns, instances: [{interval, location, name, start_ns, dur_ns}]}` of the slowest `limit`, slowest
/// first.
#[wasm_bindgen]
pub fn histogram_instances(
    t0_ns: f64,
    t1_ns: f64,
    locations: Option<Vec<u32>>,
    name: &str,
    lo_ns: f64,
    hi_ns: f64,
    limit: u32,
) -> Result<JsValue, JsValue> {
    let trace = trace("a histogram")?;
    let window = window_of(&trace, t0_ns, t1_ns);
    let (_, keep) = selected(&trace, locations)?;
    let named = named(&trace, name)?;
    let bound = |x: f64| if x.is_finite() { x.max(0.0) as u64 } else { u64::MAX };
    let (lo_ns, hi_ns) = (bound(lo_ns), bound(hi_ns));
    let found = instances_between(&trace, Some(window), |l| keep[l.index()], |r| named[r.index()], lo_ns, hi_ns);
    let mut marks: Vec<u32> = found.iter().map(|i| i.interval as u32).collect();
    marks.sort_unstable();
    let list = Brushed {
        count: found.len(),
        lo_ns,
        hi_ns,
        instances: found.iter().take(limit as usize).map(|i| page_instance(&trace, i)).collect(),
    };
    let out = super::worker::loaded_model("histogram-instances", encode_path_intervals(&marks));
    let _ = js_sys::Reflect::set(&out, &"summary".into(), &json(&list)?.into());
    Ok(out)
}

#[derive(Serialize)]
struct PageOutliers<'a> {
    #[serde(flatten)]
    cli: OutliersJson<'a>,
    /// Per region row, per listed instance: its interval and location name (the CLI's lists, in order).
    intervals: Vec<Vec<PageInstance>>,
}

/// The slowest 1 % of every region in the selection, at most `limit` listed per region: the JSON of `weft
/// histogram --outliers --json --limit N` with `intervals` beside (each listed instance's interval index and
/// location name, for a click to zoom).
#[wasm_bindgen]
pub fn histogram_outliers(t0_ns: f64, t1_ns: f64, locations: Option<Vec<u32>>, limit: u32) -> Result<String, JsValue> {
    let trace = trace("the outliers")?;
    let window = window_of(&trace, t0_ns, t1_ns);
    let (_, keep) = selected(&trace, locations)?;
    let rows = outliers(&trace, Some(window), |l| keep[l.index()], limit as usize);
    let intervals = rows.iter().map(|o| o.slowest.iter().map(|i| page_instance(&trace, i)).collect()).collect();
    json(&PageOutliers { cli: OutliersJson::new(&trace, &rows), intervals })
}

#[derive(Serialize)]
struct PageClusters<'a> {
    #[serde(flatten)]
    cli: ClustersJson<'a>,
    /// The locations that grouping by behaviour hides (all but each cluster's medoid and the outliers), as
    /// the timeline's `hidden` option writes them (`3,5-9`).
    grouped_hidden: String,
}

/// The clusters of the trace's locations over [t0, t1] (the whole run when either is not a number) into `k`
/// clusters (chosen by silhouette when 0): the JSON of `weft clusters --json [--k N]` with `grouped_hidden`.
#[wasm_bindgen]
pub fn clusters_of(t0_ns: f64, t1_ns: f64, k: u32) -> Result<String, JsValue> {
    let trace = trace("clusters")?;
    let whole = !(t0_ns.is_finite() && t1_ns.is_finite());
    let window = (!whole).then(|| window_of(&trace, t0_ns, t1_ns));
    let k = (k > 0).then_some(k as usize);
    let c = cluster(&trace, window, k).map_err(|e| JsValue::from_str(&e.to_string()))?;
    let names = features(&trace, window).names(&trace);
    let mut shown = vec![false; trace.locations.len()];
    for l in c.clusters.iter().map(|c| c.medoid).chain(c.outliers.iter().map(|o| o.location)) {
        shown[l.index()] = true;
    }
    let mut ranges: Vec<(u32, u32)> = Vec::new();
    for (l, _) in shown.iter().enumerate().filter(|(_, &s)| !s) {
        let l = l as u32;
        match ranges.last_mut() {
            Some(r) if r.1 + 1 == l => r.1 = l,
            _ => ranges.push((l, l)),
        }
    }
    let grouped_hidden = IdSet::from_ranges(ranges).to_text();
    json(&PageClusters { cli: ClustersJson::new(&trace, &c, names), grouped_hidden })
}
