//! The grain panel's questions to the shown grain graph (www/grain-panel.js asks, and fills the DOM with the
//! answers as text): the problem view's table, the problems summary, a grain's properties, search hits, the
//! grain under a point, the selection and keyboard steps between grains. Answers are plain JS values
//! (serde-wasm-bindgen), and the long ones (table, hits) typed-array columns with interned strings: one copy
//! per column instead of an object and two strings per row, 8,192 rows in a few ms. The analysis behind them
//! is analyses::grains::query. No DOM and no drawing here.

use super::viewer::{to_js, Viewer};
use js_sys::{Array, Float32Array, Float64Array, Object, Reflect, Uint32Array, Uint8Array};
use std::collections::HashMap;
use wasm_bindgen::prelude::*;
use weft_analyses::grains::query::{grain_properties, problem_summary, problem_table, search, step, Step};
use weft_view::scene::number::{grain_property, Unit};

/// At most this many search hits cross to the page (the count says how many there are).
const MAX_HITS: usize = 10_000;

fn set(o: &Object, key: &str, value: &JsValue) {
    // Setting a property on a plain fresh object cannot fail.
    let _ = Reflect::set(o, &JsValue::from_str(key), value);
}

/// Task ids as doubles (exact below 2^53, far beyond any profile).
fn tasks(t: impl Iterator<Item = u64>) -> Float64Array {
    Float64Array::from(&t.map(|t| t as f64).collect::<Vec<_>>()[..])
}

#[wasm_bindgen]
impl Viewer {
    /// The problem view's table, most severe first, as columns `{metric, threshold, unit, grain, task, value,
    /// severity, critical, source, outline, strings}` (the fields of `analyses::grains::query::ProblemRow`;
    /// `source` and `outline` index `strings`; NaN: not measured; `unit`: the values', for `format_number`);
    /// `metric` "" means the view shown; null in the structural view.
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
        let mut index: HashMap<&str, u32> = HashMap::new();
        let mut source = Vec::with_capacity(rows.len());
        let mut outline = Vec::with_capacity(rows.len());
        for r in &rows {
            for (s, col) in [(&r.source_line, &mut source), (&r.outline_function, &mut outline)] {
                let next = index.len() as u32;
                col.push(*index.entry(s.as_str()).or_insert(next));
            }
        }
        let mut strings = vec![""; index.len()];
        for (s, i) in index {
            strings[i as usize] = s;
        }
        let o = Object::new();
        set(&o, "metric", &JsValue::from_str(metric));
        set(&o, "threshold", &JsValue::from_str(&threshold));
        set(&o, "unit", &JsValue::from_str(Unit::of_grain_metric(metric, a.graph.unit).name()));
        set(&o, "grain", &Uint32Array::from(&rows.iter().map(|r| r.grain).collect::<Vec<_>>()[..]).into());
        set(&o, "task", &tasks(rows.iter().map(|r| r.task)).into());
        set(&o, "value", &Float64Array::from(&rows.iter().map(|r| r.value).collect::<Vec<_>>()[..]).into());
        set(&o, "severity", &Float32Array::from(&rows.iter().map(|r| r.severity).collect::<Vec<_>>()[..]).into());
        let critical: Vec<u8> = rows.iter().map(|r| r.on_critical_path as u8).collect();
        set(&o, "critical", &Uint8Array::from(&critical[..]).into());
        set(&o, "source", &Uint32Array::from(&source[..]).into());
        set(&o, "outline", &Uint32Array::from(&outline[..]).into());
        set(&o, "strings", &strings.iter().map(|s| JsValue::from_str(s)).collect::<Array>().into());
        Ok(o.into())
    }

    /// Problems per metric under the current thresholds: `{thresholds, edited, cores, units, metrics: [{metric,
    /// threshold, count, on_critical_path, worst}]}`; `edited`: cores or thresholds set over the preset;
    /// `units`: each metric's unit, for `format_number`.
    pub fn grain_summary(&mut self) -> Result<JsValue, JsValue> {
        let a = self.grains_pane()?.analysis();
        let edited = weft_view::views::options::ThresholdOverrides::of(&a.thresholds).any();
        let units: serde_json::Map<String, serde_json::Value> = weft_analyses::grains::METRICS
            .iter()
            .map(|m| (m.to_string(), Unit::of_grain_metric(m, a.graph.unit).name().into()))
            .collect();
        Ok(to_js(&serde_json::json!({
            "thresholds": a.thresholds.source, "edited": edited, "cores": a.cores, "units": units,
            "metrics": problem_summary(a),
        })))
    }

    /// A grain's properties and metrics `{grain, task, properties: [[name, value, text]], problems: [{metric,
    /// threshold, severity}]}` (the same pairs as `weft grains` computes; `text`: the value for reading,
    /// scene::number), its problems under the thresholds.
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
        let properties: Vec<_> = grain_properties(a, grain)
            .into_iter()
            .map(|(k, v)| {
                let text = grain_property(k, &v, a.graph.unit);
                serde_json::json!([k, v, text])
            })
            .collect();
        Ok(to_js(&serde_json::json!({
            "grain": grain, "task": task, "properties": properties, "problems": problems,
        })))
    }

    /// Grains matching a task id, source location or function, in grain order: `{total, grain, task}` with at
    /// most 10,000 hits in the `grain` (Uint32Array) and `task` (Float64Array) columns.
    pub fn grain_search(&mut self, query: &str) -> Result<JsValue, JsValue> {
        let a = self.grains_pane()?.analysis();
        let found = search(a, query);
        let shown = &found[..found.len().min(MAX_HITS)];
        let o = Object::new();
        set(&o, "total", &JsValue::from_f64(found.len() as f64));
        set(&o, "grain", &Uint32Array::from(shown).into());
        set(&o, "task", &tasks(shown.iter().map(|&i| a.graph.grain_task[i as usize])).into());
        Ok(o.into())
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
