//! The timeline's counter tracks as view state: which series are shown (all at first; the page's checkbox
//! list hides and shows them), their layout below the location rows, the hover of a track (the value in
//! effect at the pointer's time, and what its pixel column holds), and the tracks as JSON for the page and
//! tests. The timeline pane (views::timeline) owns one and calls it; layouts::counters places the tracks,
//! scene::counters draws them.

use super::Hover;
use crate::layouts::counters::{CounterIndex, CounterLayout, GROUP_PX, TRACK_PX};
use crate::layouts::timeline::TimelineLayout;
use crate::scene::counters::{format_exact, format_extremes, CounterScene};
use crate::scene::timeline::{format_time, TimelineView};
use crate::scene::Scene;
use serde_json::json;
use weft_model::Trace;

pub struct CounterTracks {
    index: CounterIndex,
    hidden: Vec<bool>,
    layout: CounterLayout,
    /// The constant series' group shows their tracks (closed at first: one band names them all).
    constants_open: bool,
}

impl CounterTracks {
    /// Every series of `trace` shown, placed below `rows` (whose height grows by the tracks').
    pub fn new(trace: &Trace, rows: &mut TimelineLayout) -> Self {
        let index = CounterIndex::new(trace);
        let hidden = vec![false; index.series.len()];
        let mut c = CounterTracks { index, hidden, layout: CounterLayout::default(), constants_open: false };
        c.relayout(trace, rows);
        c
    }

    /// Place the shown tracks below `rows` (new rows: a location filter), adding their height to the rows'.
    pub fn relayout(&mut self, trace: &Trace, rows: &mut TimelineLayout) {
        let (hidden, index) = (&self.hidden, &self.index);
        let constant = |s: u32| index.series[s as usize].is_constant();
        self.layout =
            CounterLayout::with_constants(trace, rows, |s| !hidden[s as usize], Some((&constant, self.constants_open)));
        rows.height = self.layout.top + self.layout.height;
    }

    /// A click at layout y: on the constant series' band, open or close their group (true; the caller
    /// relayouts).
    pub fn click(&mut self, y: f32) -> bool {
        if !self.layout.on_constants(y) {
            return false;
        }
        self.constants_open = !self.constants_open;
        true
    }

    /// Open or close the constant series' group; false when there is none. The caller relayouts.
    pub fn set_constants_open(&mut self, open: bool) -> bool {
        self.constants_open = open;
        self.layout.constants.is_some()
    }

    /// Show or hide series `series`; false for a series the trace lacks. The caller relayouts.
    pub fn set_shown(&mut self, series: u32, shown: bool) -> bool {
        match self.hidden.get_mut(series as usize) {
            Some(h) => {
                *h = !shown;
                true
            }
            None => false,
        }
    }

    /// Scale series by the given whole-run extremes (`(series, min, max)`; a store's).
    pub fn set_extremes(&mut self, extremes: &[(u32, f64, f64)]) {
        self.index.set_extremes(extremes);
    }

    pub fn layout(&self) -> &CounterLayout {
        &self.layout
    }

    fn scene<'a>(&'a self, trace: &'a Trace) -> CounterScene<'a> {
        CounterScene { trace, index: &self.index, layout: &self.layout }
    }

    pub fn draw(&self, sc: &mut Scene, trace: &Trace, view: &TimelineView) {
        self.scene(trace).draw(sc, view);
    }

    /// The hover of the track under (x, y): the series, its process, the value in effect at the pointer's
    /// time (to the precision a pixel spans), and the column's extremes where it holds several samples.
    pub fn hover(&self, trace: &Trace, view: &TimelineView, x: f32, y: f32) -> Option<Hover> {
        let (series, col) = self.scene(trace).sample_at(view, x, y)?;
        let c = &trace.counters;
        let s = series as usize;
        let (time, value) = (c.sample_time_ns[col.sample], c.sample_value[col.sample]);
        let precision = view.ns_per_px();
        let mut lines = vec![
            trace.process_name(c.series_process[s]).to_string(),
            format!("{}   since {}", format_exact(value), format_time(time as f64, precision)),
            format!("at {}", format_time(view.t_of(x), precision)),
        ];
        if col.count > 1 {
            let (min, max) = format_extremes(col.min, col.max);
            lines.push(format!("{} samples in this pixel: min {min}, max {max}", col.count));
        }
        Some(Hover {
            title: trace.str(c.series_name[s]).to_string(),
            lines,
            detail: json!({
                "counter": series, "sample": col.sample, "time_ns": time, "value": value,
                "column_samples": col.count, "column_min": col.min, "column_max": col.max,
            }),
        })
    }

    /// Every series with whether it is shown and its extremes, and the shown tracks' screen y and label (as
    /// drawn: the name cut to what tells it apart).
    pub fn state(&self, trace: &Trace, view: &TimelineView) -> serde_json::Value {
        let c = &trace.counters;
        let series: Vec<_> = self
            .index
            .series
            .iter()
            .enumerate()
            .map(|(s, ix)| {
                json!({
                    "series": s, "name": trace.str(c.series_name[s]),
                    "process": trace.process_name(c.series_process[s]),
                    "shown": !self.hidden[s], "samples": ix.samples.len(), "min": ix.min, "max": ix.max,
                })
            })
            .collect();
        let labels = self.scene(trace).track_labels(view);
        let tracks: Vec<_> = self
            .layout
            .tracks
            .iter()
            .map(|t| {
                let ix = &self.index.series[t.series as usize];
                let (min, max) = format_extremes(ix.min, ix.max);
                json!({"series": t.series, "y": view.y_of(t.y), "label": labels[t.series as usize],
                    "min_label": min, "max_label": max})
            })
            .collect();
        let constants = self
            .layout
            .constants
            .as_ref()
            .map(|g| json!({"series": g.series, "open": g.open, "y": view.y_of(g.y), "height": GROUP_PX}));
        json!({"series": series, "tracks": tracks, "track_px": TRACK_PX, "top": view.y_of(self.layout.top),
            "constants": constants})
    }

    /// The hidden series of a saved state (`series[].shown`); the caller relayouts.
    pub fn restore(&mut self, s: &serde_json::Value) {
        for e in s.get("series").and_then(|x| x.as_array()).into_iter().flatten() {
            if let (Some(k), Some(shown)) = (e.get("series").and_then(|v| v.as_u64()), e["shown"].as_bool()) {
                self.set_shown(k as u32, shown);
            }
        }
    }
}
