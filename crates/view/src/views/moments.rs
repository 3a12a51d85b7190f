//! The moments pane: the utilization Gantt chart (left) beside the moment view (right), one row per
//! location in the same order, on the same time axis, zooming and scrolling together (the paper's Fig. 4
//! and 5). The first moments (default definition) come from the worker ([`MomentsPane::with_moments`]), and
//! so do those of another busy definition: the pane asks ([`MomentsPane::asked`]), keeps showing what it has,
//! and shows the answer when it arrives ([`MomentsPane::receive`]). A pane made without the worker
//! ([`MomentsPane::new`]: the CLI, native tests) computes them itself (linear in intervals). Sorting and the
//! location filter reorder the moments it has: no pass over the trace.
//!
//! By default the rows are the moments of the visible time window (the paper's Section 6: a moment analysis on
//! a smaller interval), recomputed from the busy intervals it holds, clipped to the window, at each zoom or
//! pan: a binary search per location and the visible busy intervals (BENCHMARKS.md, "Moments of the visible
//! window"), the same as `weft moments --window T0:T1`. The whole trace's moments are one option away
//! (`span` = `whole`), and the moment view can take its own, narrower time axis (`axis` = `own`). Rows sorted
//! "by location" follow the timeline's order (`Trace::locations_in_display_order`).

use super::timeline::location_matches;
use super::{num, Hover, Pane};
use crate::scene::moments::{
    build_moment_view, hover_row_label, ClusterMarks, ClusterRole, ColorEncoding, MomentViewOptions, Viewport,
};
use crate::scene::utilization::{build_utilization, UtilizationOptions};
use crate::scene::Scene;
use crate::views::options::{MomentAxis, MomentSpan, MomentsOptions, ViewOptions};
use serde_json::json;
use std::rc::Rc;
use weft_analyses::busy::{BusyDefinition, BusyIntervals};
use weft_analyses::moments::{
    accumulate, hover_text, moments_of_busy, sort_moments, LocationMoments, MomentKey, TimeWindow,
};
use weft_analyses::moments_bundle::MomentsBundle;
use weft_model::{LocationId, Trace};

pub struct MomentsPane {
    trace: Rc<Trace>,
    definition: BusyDefinition,
    key: MomentKey,
    busy: BusyIntervals,
    /// Every location's moments under `definition` over the whole trace, by location.
    all: Vec<LocationMoments>,
    /// Every location's moments over `window`, by location (a copy of `all` when the window is the trace).
    current: Vec<LocationMoments>,
    /// The time window `current` is computed over, ns from the trace's first event.
    window: TimeWindow,
    /// Moments of the visible window, or of the whole trace.
    span: MomentSpan,
    /// The moment view's time axis: the Gantt chart's, or its own.
    axis: MomentAxis,
    /// Each location's place in the timeline's order (rows sorted "by location" follow it).
    rank: Vec<u32>,
    /// `current` filtered and sorted: the rows shown, in the shown order.
    rows: Vec<LocationMoments>,
    /// The moments came from the worker: another busy definition is asked of it, not computed here.
    from_worker: bool,
    /// The busy definition asked of the worker and not answered yet (the moments shown stay until then).
    asked: Option<BusyDefinition>,
    /// Passes over the trace's intervals made here (busy intervals computed on this thread): none for a pane
    /// whose moments all came from the worker.
    computed_here: u32,
    /// The Gantt chart's viewport; the moment view's is the same but for its x offset.
    view: Viewport,
    width: f32,
    hovered: Option<usize>,
    /// Extra quantity shown as the bar's colour, and its key (recomputed with the moments).
    color: Option<ColorEncoding>,
    color_key: String,
    /// The location filter (see timeline::location_matches); None shows all.
    locations: Option<String>,
    /// Some interval lasts longer than 0 ns: "any region" finds busy time.
    has_regions: bool,
    /// The clusters panel's clustering, marked on the rows (None: not shown).
    clusters: Option<ClusterMarks>,
}

/// The clusters to mark from `weft clusters --json`'s answer (the clusters panel's): each cluster's members
/// and representative, the outliers and the summary; `locations`: the trace's count, which every location
/// index named must be below.
pub fn cluster_marks(json: &str, locations: usize) -> Result<ClusterMarks, String> {
    let v: serde_json::Value = serde_json::from_str(json).map_err(|e| format!("the clusters answer: {e}"))?;
    let index = |x: &serde_json::Value, what: &str| -> Result<u32, String> {
        x.as_u64()
            .filter(|&l| (l as usize) < locations)
            .map(|l| l as u32)
            .ok_or_else(|| format!("the clusters answer: {what} {x} is not a location of this trace ({locations})"))
    };
    let list = |key: &str| {
        v.get(key).and_then(|x| x.as_array()).ok_or_else(|| format!("the clusters answer has no '{key}' list"))
    };
    let mut marks = ClusterMarks { cluster: vec![None; locations], ..Default::default() };
    for (k, c) in list("clusters")?.iter().enumerate() {
        marks.representatives.push(index(c.get("medoid").unwrap_or(&serde_json::Value::Null), "medoid")?);
        for m in c.get("members").and_then(|m| m.as_array()).ok_or("the clusters answer: a cluster without members")? {
            marks.cluster[index(m, "member")? as usize] = Some(k as u32);
        }
    }
    for o in list("outliers")? {
        marks.outliers.push(index(o.get("location").unwrap_or(&serde_json::Value::Null), "outlier")?);
    }
    marks.said = v.get("summary").and_then(|s| s.as_str()).unwrap_or_default().to_string();
    Ok(marks)
}

/// Each location's place in the timeline's order.
fn display_rank(trace: &Trace) -> Vec<u32> {
    let mut rank = vec![0u32; trace.locations.len()];
    for (i, l) in trace.locations_in_display_order().into_iter().enumerate() {
        rank[l.index()] = i as u32;
    }
    rank
}

/// The extra quantities the moment view can colour bars by, per location index: messages and bytes sent in
/// `window` (ns from the first event), the spread of the rows' moments.
fn color_encoding(
    trace: &Trace,
    rows: &[LocationMoments],
    key: &str,
    window: TimeWindow,
) -> Result<Option<ColorEncoding>, String> {
    let mut values = vec![0.0; trace.locations.len()];
    let msgs = &trace.messages;
    let sent = || {
        (0..msgs.len())
            .filter(move |&i| (window.start_ns..window.end_ns.max(window.start_ns + 1)).contains(&msgs.send_ns[i]))
    };
    let name = match key {
        "none" => return Ok(None),
        "bytes_sent" => {
            for i in sent() {
                values[msgs.sender[i].index()] += msgs.size_bytes[i] as f64;
            }
            "bytes sent"
        }
        "messages_sent" => {
            for i in sent() {
                values[msgs.sender[i].index()] += 1.0;
            }
            "messages sent"
        }
        "spread" => {
            for m in rows {
                if m.m0_ns > 0 {
                    values[m.location as usize] = 2.0 * m.m2_ns / m.m0_ns as f64;
                }
            }
            "spread 2·m2/m0"
        }
        _ => return Err(format!("cannot colour by '{key}'")),
    };
    Ok(Some(ColorEncoding { name: name.to_string(), values }))
}

impl MomentsPane {
    pub fn new(trace: Rc<Trace>, width: f32, height: f32) -> Self {
        let view = Viewport::fit(trace.span_ns, trace.locations.len(), width / 2.0, height);
        let mut pane = MomentsPane {
            busy: BusyIntervals::compute(&trace, &BusyDefinition::Compute),
            window: TimeWindow::whole(&trace),
            rank: display_rank(&trace),
            has_regions: trace.intervals.dur_ns.iter().any(|&d| d > 0),
            clusters: None,
            trace,
            definition: BusyDefinition::Compute,
            key: MomentKey::Location,
            all: Vec::new(),
            current: Vec::new(),
            span: MomentSpan::Window,
            axis: MomentAxis::Same,
            rows: Vec::new(),
            from_worker: false,
            asked: None,
            computed_here: 0,
            view,
            width,
            hovered: None,
            color: None,
            color_key: "none".to_string(),
            locations: None,
        };
        pane.compute_busy();
        pane
    }

    /// The pane over busy intervals and moments already computed (by the worker, for the default sort and
    /// every location): opening it makes no pass over the trace's intervals, and neither does another busy
    /// definition (asked of the worker, see [`MomentsPane::asked`]).
    pub fn with_moments(trace: Rc<Trace>, first: MomentsBundle, width: f32, height: f32) -> Self {
        let has_regions = trace.intervals.dur_ns.iter().any(|&d| d > 0);
        let view = Viewport::fit(trace.span_ns, first.rows.len(), width / 2.0, height);
        let mut pane = MomentsPane {
            window: TimeWindow::whole(&trace),
            span: MomentSpan::Window,
            axis: MomentAxis::Same,
            rank: display_rank(&trace),
            trace,
            definition: first.definition,
            key: MomentKey::Location,
            busy: first.busy,
            rows: Vec::new(),
            current: Vec::new(),
            all: first.rows,
            from_worker: true,
            asked: None,
            computed_here: 0,
            view,
            width,
            hovered: None,
            color: None,
            color_key: "none".to_string(),
            locations: None,
            has_regions,
            clusters: None,
        };
        pane.all.sort_by_key(|m| m.location);
        pane.current = pane.all.clone();
        pane.arrange(false);
        pane
    }

    /// Busy intervals and moments under `definition`, computed here (a pane without the worker).
    fn compute_busy(&mut self) {
        self.busy = BusyIntervals::compute(&self.trace, &self.definition);
        self.computed_here += 1;
        self.all = moments_of_busy(&self.trace, &self.busy, None);
        self.recompute();
    }

    /// The window the rows' moments are for: the visible time range in whole ns, within the trace (the
    /// whole trace when `span` is whole).
    fn wanted_window(&self) -> TimeWindow {
        let whole = TimeWindow::whole(&self.trace);
        if self.span == MomentSpan::Whole {
            return whole;
        }
        let clamp = |t: f64| if t.is_finite() { t.round().clamp(0.0, whole.end_ns as f64) as u64 } else { 0 };
        TimeWindow { start_ns: clamp(self.view.t0_ns), end_ns: clamp(self.view.t1_ns) }
    }

    /// The moments of the window wanted, from the busy intervals held (clipped to it), then the rows shown.
    fn recompute(&mut self) {
        self.window = self.wanted_window();
        if self.window == TimeWindow::whole(&self.trace) {
            self.current = self.all.clone();
        } else {
            let w = self.window;
            let busy = &self.busy;
            self.current = self
                .all
                .iter()
                .map(|m| {
                    let acc = accumulate(busy.of(LocationId(m.location)), Some(w));
                    LocationMoments {
                        location: m.location,
                        name: m.name.clone(),
                        m0_ns: acc.m0_ns(),
                        m1_ns: acc.m1_from(0),
                        m2_ns: acc.m2_ns(),
                        m3_ns: acc.m3_ns(),
                    }
                })
                .collect();
        }
        self.arrange(true);
    }

    /// Follow the view's time range: new moments when the visible window changed (moments of the window only).
    /// Zoom and pan stop at the trace's ends, as the timeline's do (`scene::timeline::clamp_to_trace`).
    fn keep_on_trace(&mut self) {
        let (t0, t1) = crate::scene::timeline::clamp_to_trace(self.view.t0_ns, self.view.t1_ns, self.trace.span_ns);
        (self.view.t0_ns, self.view.t1_ns) = (t0, t1);
    }

    fn follow_window(&mut self) {
        if self.span == MomentSpan::Window && self.wanted_window() != self.window {
            self.recompute();
        }
    }

    /// The rows shown (filtered, sorted) from every location's moments; unless `window_only` (a zoom or pan
    /// changed the moments, not the choice of rows), the busy intervals laid out in their order too.
    fn arrange(&mut self, window_only: bool) {
        self.rows = self.current.clone();
        // A location that only records metrics has no busy time to show: its samples are counter tracks.
        let trace = &self.trace;
        self.rows.retain(|m| !trace.records_only_metrics(LocationId(m.location)));
        if let Some(p) = &self.locations {
            self.rows.retain(|m| location_matches(&self.trace, LocationId(m.location), p));
        }
        if self.key == MomentKey::Location {
            let rank = &self.rank;
            self.rows.sort_by_key(|m| rank.get(m.location as usize).copied().unwrap_or(u32::MAX));
        } else {
            sort_moments(&mut self.rows, self.key);
        }
        if !window_only {
            // Only where memory is read (the Gantt chart's speed), never what is drawn: not redone per zoom step.
            self.busy.arrange(self.rows.iter().map(|m| LocationId(m.location)));
        }
        self.color = color_encoding(&self.trace, &self.rows, &self.color_key, self.window).unwrap_or(None);
    }

    /// The time range the moments shown are computed over, ns from the trace's first event.
    pub fn window(&self) -> TimeWindow {
        self.window
    }

    /// The moment view's own time axis (`axis` = own): the extents of the glyphs of the rows shown, else the
    /// window; None when it shares the Gantt chart's.
    fn own_axis(&self) -> Option<(f64, f64)> {
        if self.axis != MomentAxis::Own {
            return None;
        }
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for m in self.rows.iter().filter(|m| !m.is_idle()) {
            let half = (m.m0_ns as f64 / 2.0).max(m.m2_ns);
            lo = lo.min(m.m1_ns - half).min(m.m1_ns + m.m3_ns.min(0.0));
            hi = hi.max(m.m1_ns + half).max(m.m1_ns + m.m3_ns.max(0.0));
        }
        if hi.partial_cmp(&lo) != Some(std::cmp::Ordering::Greater) {
            (lo, hi) = (self.window.start_ns as f64, self.window.end_ns.max(self.window.start_ns + 1) as f64);
        }
        let pad = (hi - lo) * 0.04;
        Some((lo - pad, hi + pad))
    }

    /// The busy definition the rows are computed under.
    pub fn definition(&self) -> &BusyDefinition {
        &self.definition
    }

    /// The busy definition asked of the worker and not answered yet (None: the moments shown are those of
    /// the definition chosen). The page sends it; [`MomentsPane::receive`] shows the answer.
    pub fn asked(&self) -> Option<&BusyDefinition> {
        self.asked.as_ref()
    }

    /// How many times this pane computed busy intervals itself (a pass over the trace's intervals): 0 when
    /// all its moments came from the worker.
    pub fn computed_here(&self) -> u32 {
        self.computed_here
    }

    /// Mark the clusters panel's clustering on the rows (`cluster_marks`), or none.
    pub fn set_clusters(&mut self, clusters: Option<ClusterMarks>) {
        self.clusters = clusters;
    }

    /// The worker's moments for the definition asked (or the one shown): shown from now on, in the pane's sort
    /// and filter; the view's position stays. Moments for another definition are refused (the page drops
    /// stale answers before they get here).
    pub fn receive(&mut self, bundle: MomentsBundle) -> Result<(), String> {
        let wanted = self.asked.as_ref().unwrap_or(&self.definition);
        if bundle.definition != *wanted {
            return Err(format!(
                "the worker's moments are for busy = {}, the view asked for busy = {}",
                bundle.definition.short_name(),
                wanted.short_name()
            ));
        }
        self.asked = None;
        self.definition = bundle.definition;
        self.busy = bundle.busy;
        self.all = bundle.rows;
        self.all.sort_by_key(|m| m.location);
        self.recompute();
        self.hovered = None;
        Ok(())
    }

    /// The last row that may be at the top: the rows below it fill the plot.
    fn max_first_row(&self) -> f64 {
        let (_, y0, _, y1) = self.view.plot_rect();
        let visible = ((y1 - y0) / self.view.row_height_px.max(1e-6)) as f64;
        (self.rows.len() as f64 - visible).max(0.0)
    }

    /// The view's options as they stand (views::options::MomentsOptions).
    fn typed_options(&self) -> MomentsOptions {
        let mut o = MomentsOptions {
            // The definition asked of the worker shows in the controls and links while its answer is coming.
            busy: self.asked.clone().unwrap_or_else(|| self.definition.clone()),
            sort: self.key,
            locations: self.locations.clone(),
            span: self.span,
            axis: self.axis,
            ..Default::default()
        };
        // The colour key was checked when it was set.
        let _ = o.parse("color", &self.color_key);
        o
    }

    fn half(&self) -> f32 {
        self.width / 2.0
    }

    /// The viewport of the half under screen x, and that half's x offset.
    fn viewport_at(&self, x: f32) -> (Viewport, f32) {
        if x >= self.half() {
            (self.view, self.half())
        } else {
            (self.view, 0.0)
        }
    }

    fn span(&self) -> TimeWindow {
        self.window
    }

    /// What to try when no location has busy time: another definition, unless no region takes any time.
    /// Whether some shown location has busy time in the whole trace (the window's may have none).
    fn busy_in_whole(&self) -> bool {
        let shown = |m: &&LocationMoments| {
            self.locations.as_deref().is_none_or(|p| location_matches(&self.trace, LocationId(m.location), p))
        };
        self.all.iter().filter(shown).any(|m| !m.is_idle())
    }

    fn empty_hint(&self) -> String {
        if self.window != TimeWindow::whole(&self.trace) && self.busy_in_whole() {
            "None in this time window: zoom out or pan, or show the moments of the whole trace.".to_string()
        } else if self.has_regions {
            self.definition.empty_hint()
        } else {
            "This trace has no region that lasts any time (only instants, counters or zero-length slices), so \
             nothing is busy under any definition."
                .to_string()
        }
    }
}

impl Pane for MomentsPane {
    fn kind(&self) -> &'static str {
        "moments"
    }
    fn as_moments(&mut self) -> Option<&mut MomentsPane> {
        Some(self)
    }
    fn resize(&mut self, width: f32, height: f32) {
        self.width = width;
        self.view.width_px = width / 2.0;
        self.view.height_px = height;
    }
    fn zoom(&mut self, x: f32, factor: f64) {
        let (vp, off) = self.viewport_at(x);
        let scale = vp.time_scale();
        let anchor = scale.t(x - off);
        let w = ((vp.t1_ns - vp.t0_ns) / factor).clamp(1.0, self.trace.span_ns.max(1) as f64 * 4.0);
        let frac = (anchor - vp.t0_ns) / (vp.t1_ns - vp.t0_ns).max(1e-9);
        self.view.t0_ns = anchor - frac * w;
        self.view.t1_ns = self.view.t0_ns + w;
        self.keep_on_trace();
        self.follow_window();
    }
    fn zoom_rows(&mut self, y: f32, factor: f64) {
        let (_, y0, _, y1) = self.view.plot_rect();
        let anchor_row = self.view.first_row + ((y.clamp(y0, y1) - y0) / self.view.row_height_px.max(1e-6)) as f64;
        let fit = (y1 - y0) / self.rows.len().max(1) as f32;
        self.view.row_height_px = (self.view.row_height_px * factor as f32).clamp(fit.min(1.0), 200.0);
        self.view.first_row = (anchor_row - ((y.clamp(y0, y1) - y0) / self.view.row_height_px) as f64).max(0.0);
    }
    fn pan(&mut self, dx: f32) {
        let d = dx as f64 * self.view.time_scale().ns_per_px();
        self.view.t0_ns += d;
        self.view.t1_ns += d;
        self.keep_on_trace();
        self.follow_window();
    }
    fn scroll(&mut self, dy: f32) {
        self.view.first_row = (self.view.first_row + dy as f64 / self.view.row_height_px.max(1e-6) as f64)
            .clamp(0.0, self.max_first_row());
    }
    fn fit(&mut self) {
        self.view = Viewport::fit(self.trace.span_ns, self.rows.len(), self.half(), self.view.height_px);
        self.follow_window();
    }
    fn hover(&mut self, x: f32, y: f32) -> Option<Hover> {
        self.hovered = self.view.row_at(self.rows.len(), y);
        let m = &self.rows[self.hovered?];
        let text = hover_text(m, self.span());
        let mut lines = text.lines().map(str::to_string);
        let title = lines.next().unwrap_or_default();
        let role = self.clusters.as_ref().and_then(|c| c.role(m.location)).map(|r| match r {
            ClusterRole::Member(k) => format!("cluster {k}"),
            ClusterRole::Representative(k) => format!("cluster {k}: its representative"),
            ClusterRole::Outlier(k) => format!("cluster {k}: an outlier"),
        });
        let lines: Vec<String> = lines.chain(role).collect();
        let _ = x;
        Some(Hover {
            title,
            lines,
            detail: json!({
                "location": m.location, "m0_ns": m.m0_ns, "m1_ns": m.m1_ns, "m2_ns": m.m2_ns, "m3_ns": m.m3_ns,
            }),
        })
    }
    fn clear_hover(&mut self) {
        self.hovered = None;
    }
    fn scene(&self) -> Scene {
        let span = self.span();
        let mut gantt = build_utilization(
            &self.rows,
            &self.busy,
            &self.view,
            &UtilizationOptions { definition: self.definition.describe(), empty_hint: self.empty_hint() },
        );
        let mut moments = build_moment_view(
            &self.rows,
            &self.view,
            &MomentViewOptions {
                definition: self.definition.describe(),
                span_ns: (span.start_ns, span.end_ns),
                color: self.color.clone(),
                empty_hint: self.empty_hint(),
                axis_ns: self.own_axis(),
                clusters: self.clusters.clone(),
            },
        );
        // Rows too thin to carry names name the hovered one, in both halves.
        if let (false, Some(r)) = (self.view.labeled(), self.hovered) {
            if let (Some(m), Some(g)) =
                (self.rows.get(r), self.view.row_groups(self.rows.len()).into_iter().find(|g| g.rows.contains(&r)))
            {
                hover_row_label(&mut gantt, &self.view, &m.name, g.y, g.h);
                hover_row_label(&mut moments, &self.view, &m.name, g.y, g.h);
            }
        }
        gantt.beside(moments)
    }
    fn brief(&self) -> serde_json::Value {
        let (x0, y0, x1, y1) = self.view.plot_rect();
        json!({
            "view": "moments",
            "t0_ns": self.view.t0_ns, "t1_ns": self.view.t1_ns,
            "first_row": self.view.first_row, "row_height_px": self.view.row_height_px,
            "plot": {"x0": x0, "y0": y0, "x1": x1, "y1": y1},
            "moment_view_x": self.half(),
            "definition": self.definition.describe(), "busy": self.definition.short_name(), "sort": self.key.name(),
            // Asked of the worker, not answered yet; `busy` is what the rows are computed under.
            "busy_asked": self.asked.as_ref().map(BusyDefinition::short_name),
            "color": self.color.as_ref().map(|c| c.name.clone()),
            "span": self.span.key(), "axis": self.axis.key(),
            "moment_axis": self.own_axis().map(|(a, b)| json!({"t0_ns": a, "t1_ns": b})),
            // The moments' time window, whole ns from the trace's first event (`weft moments --window S:E`).
            "window": {"start_ns": self.window.start_ns, "end_ns": self.window.end_ns},
            "hovered": self.hovered,
            "locations": self.locations,
            // No shown location has busy time under the definition: the page offers "any region".
            // (In the whole trace: a window without busy time is no reason to change the definition.)
            "no_busy": !self.rows.is_empty() && !self.busy_in_whole(),
            "any_finds_busy": self.has_regions,
            "clusters_said": self.clusters.as_ref().map(|c| c.said.clone()),
        })
    }
    fn state(&self) -> serde_json::Value {
        let rows: Vec<_> = self
            .rows
            .iter()
            .map(|m| json!({"location": m.location, "name": m.name, "m0_ns": m.m0_ns, "m1_ns": m.m1_ns, "m2_ns": m.m2_ns, "m3_ns": m.m3_ns}))
            .collect();
        let contents = json!({
            "rows": rows,
            // The colour of each shown row's bar comes from these values (by row, in the shown order).
            // Each shown row's cluster and role ("member", "representative", "outlier"), while clusters are marked.
            "clusters": self.clusters.as_ref().map(|c| self.rows.iter().map(|m| match c.role(m.location) {
                Some(ClusterRole::Member(k)) => json!([k, "member"]),
                Some(ClusterRole::Representative(k)) => json!([k, "representative"]),
                Some(ClusterRole::Outlier(k)) => json!([k, "outlier"]),
                None => serde_json::Value::Null,
            }).collect::<Vec<_>>()),
            "color_values": self.color.as_ref().map(|c| self.rows.iter().map(|m| c.values.get(m.location as usize).copied().unwrap_or(0.0)).collect::<Vec<_>>()),
        });
        super::with_contents(self.brief(), contents)
    }
    fn time_range(&self) -> Option<(f64, f64)> {
        Some((self.view.t0_ns, self.view.t1_ns))
    }
    fn set_time_range(&mut self, t0_ns: f64, t1_ns: f64) {
        if t0_ns.is_finite() && t1_ns.is_finite() && t1_ns > t0_ns {
            self.view.t0_ns = t0_ns;
            self.view.t1_ns = t1_ns;
            self.follow_window();
        }
    }
    fn restore(&mut self, s: &serde_json::Value) {
        if let (Some(t0), Some(t1)) = (num(s, "t0_ns"), num(s, "t1_ns")) {
            self.set_time_range(t0, t1);
        }
        if let Some(h) = num(s, "row_height_px") {
            let (_, y0, _, y1) = self.view.plot_rect();
            let fit = (y1 - y0) / self.rows.len().max(1) as f32;
            self.view.row_height_px = (h as f32).clamp(fit.min(1.0), 200.0);
        }
        if let Some(first) = num(s, "first_row") {
            self.view.first_row = first.clamp(0.0, self.max_first_row());
        }
    }
    fn options(&self) -> serde_json::Value {
        self.typed_options().describe()
    }
    fn configure(&mut self, key: &str, value: &str) -> Result<(), String> {
        let mut o = self.typed_options();
        o.parse(key, value).map_err(|e| e.to_string())?;
        match key {
            "busy" => {
                if o.busy == self.definition {
                    self.asked = None;
                } else if self.from_worker {
                    self.asked = Some(o.busy);
                } else {
                    self.definition = o.busy;
                    self.compute_busy();
                }
                Ok(())
            }
            "sort" => {
                self.key = o.sort;
                self.arrange(false);
                Ok(())
            }
            "color" => {
                self.color = color_encoding(&self.trace, &self.rows, o.color.key(), self.window)?;
                self.color_key = o.color.key().to_string();
                Ok(())
            }
            "span" => {
                self.span = o.span;
                self.recompute();
                self.hovered = None;
                Ok(())
            }
            "axis" => {
                self.axis = o.axis;
                Ok(())
            }
            _ => {
                let pattern = o.locations.as_deref();
                if let Some(p) = pattern {
                    if !(0..self.trace.locations.len() as u32).any(|l| location_matches(&self.trace, LocationId(l), p))
                    {
                        return Err(format!("no location matches '{value}'"));
                    }
                }
                self.locations = pattern.map(str::to_string);
                self.arrange(false);
                self.hovered = None;
                self.view.first_row = 0.0;
                Ok(())
            }
        }
    }
}

#[cfg(test)]
#[path = "moments_clusters_tests.rs"]
mod clusters_tests;
