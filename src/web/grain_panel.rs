//! The grain panel's questions to the shown grain graph (www/grain-panel.js asks, and fills the DOM with the
//! answers as text): the problem view's table, the problems summary, a grain's properties, search hits, the
//! grain under a point, the selection and keyboard steps between grains. Answers are plain JS values
//! (serde-wasm-bindgen); the analysis behind them is analyses::grains::query. No DOM and no drawing here.

use super::viewer::{to_js, Viewer};
use crate::analyses::grains::query::{grain_properties, problem_summary, problem_table, search, step, Step};
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// At most this many search hits cross to the page (the count says how many there are).
const MAX_HITS: usize = 10_000;

#[derive(Serialize)]
struct Hit<'a> {
    grain: u32,
    task: u64,
    source_line: &'a str,
    outline_function: &'a str,
}

#[wasm_bindgen]
impl Viewer {
    /// The problem view's table `{metric, threshold, rows}` (rows most severe first, as
    /// `analyses::grains::query::ProblemRow`); `metric` "" means the view shown; null in the structural view.
    pub fn grain_problems(&mut self, metric: &str) -> Result<JsValue, JsValue> {
        let pane = self.grains_pane()?;
        let metric = if metric.is_empty() {
            match pane.problem_metric() {
                Some(m) => m,
                None => return Ok(JsValue::NULL),
            }
        } else {
            metric
        };
        let a = pane.analysis();
        let rows = problem_table(a, metric).ok_or_else(|| format!("no problem view for '{metric}'"))?;
        let threshold = a.problem(metric).map(|p| p.bound.describe(p.metric)).unwrap_or_default();
        Ok(to_js(&serde_json::json!({ "metric": metric, "threshold": threshold, "rows": rows })))
    }

    /// Problems per metric under the current thresholds: `{thresholds, cores, metrics: [{metric, threshold,
    /// count, on_critical_path, worst}]}`.
    pub fn grain_summary(&mut self) -> Result<JsValue, JsValue> {
        let a = self.grains_pane()?.analysis();
        Ok(to_js(&serde_json::json!({
            "thresholds": a.thresholds.source, "cores": a.cores, "metrics": problem_summary(a),
        })))
    }

    /// A grain's properties and metrics `{grain, task, properties: [[name, value]], problems: [{metric,
    /// threshold, severity}]}` (the same pairs as `weft grains` computes), its problems under the thresholds.
    pub fn grain_properties(&mut self, grain: u32) -> Result<JsValue, JsValue> {
        let a = self.grains_pane()?.analysis();
        let g = grain as usize;
        let task = *a.graph.grain_task.get(g).ok_or_else(|| format!("there is no grain {grain}"))?;
        let problems: Vec<_> = a
            .problems
            .iter()
            .filter(|p| p.problematic[g])
            .map(|p| serde_json::json!({"metric": p.metric, "threshold": p.bound.describe(p.metric), "severity": p.severity[g]}))
            .collect();
        Ok(to_js(&serde_json::json!({
            "grain": grain, "task": task, "properties": grain_properties(a, grain), "problems": problems,
        })))
    }

    /// Grains matching a task id, source location or function, in grain order: `{total, hits: [{grain, task,
    /// source_line, outline_function}]}` with at most 10,000 hits.
    pub fn grain_search(&mut self, query: &str) -> Result<JsValue, JsValue> {
        let a = self.grains_pane()?.analysis();
        let found = search(a, query);
        let g = &a.graph;
        let hits: Vec<Hit> = found
            .iter()
            .take(MAX_HITS)
            .map(|&i| Hit {
                grain: i,
                task: g.grain_task[i as usize],
                source_line: g.string(g.grain_source[i as usize]),
                outline_function: g.string(g.grain_outline[i as usize]),
            })
            .collect();
        Ok(to_js(&serde_json::json!({ "total": found.len(), "hits": hits })))
    }

    /// The grain under screen point (x, y) of the view, if any.
    pub fn grain_at(&mut self, x: f32, y: f32) -> Result<Option<u32>, JsValue> {
        Ok(self.grains_pane()?.grain_at(x, y))
    }

    /// Select a grain (undefined clears the selection); with `locate`, centre the view on it.
    pub fn select_grain(&mut self, grain: Option<u32>, locate: bool) -> Result<(), JsValue> {
        let pane = self.grains_pane()?;
        pane.select(grain)?;
        if let (Some(g), true) = (grain, locate) {
            pane.locate(g, true)?;
        }
        Ok(())
    }

    pub fn selected_grain(&mut self) -> Result<Option<u32>, JsValue> {
        Ok(self.grains_pane()?.selected())
    }

    /// Move the selection to the selected grain's `parent`, first `child`, `next` or `previous` sibling,
    /// bringing it into view; returns the new grain, or undefined where there is none (the selection stays).
    pub fn grain_step(&mut self, direction: &str) -> Result<Option<u32>, JsValue> {
        let dir = Step::parse(direction).ok_or_else(|| format!("no step '{direction}'"))?;
        let pane = self.grains_pane()?;
        let Some(from) = pane.selected() else { return Ok(None) };
        let Some(to) = step(pane.analysis(), from, dir) else { return Ok(None) };
        pane.select(Some(to))?;
        pane.locate(to, false)?;
        Ok(Some(to))
    }
}
