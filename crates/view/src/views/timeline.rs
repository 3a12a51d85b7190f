//! The timeline pane: every location's intervals on one time axis (scene::timeline does the drawing); the
//! hover names a slice, or an arrow's two ends. The user's questions are state here too: a selected time
//! range and its region profile (`analyses::profile`, the table `weft info --window` prints), one region's
//! intervals marked (a profile row clicked), and a search of regions by name with the current match
//! (scene::timeline_marks draws them over the scene), and the clicked message or MPI call with its partners
//! (views::message_select holds it, scene::message_marks draws it). Counter tracks below the rows are
//! views::counters'. How rows fit is state here too: compact rows (the lane height that fits the window,
//! re-placed on resize in O(rows)), processes folded into one summary row (a click on the process's header
//! or, in compact rows, its label), locations hidden by id or a glob, all options of `TimelineOptions` (so
//! permalinks keep them); and the overview strip of the whole run (computed once), a click or drag on it
//! moving the window. A slice's args (Chrome `args`, `model::args`) are listed in its hover under its times,
//! a bounded number of lines ([`args_lines`]).

use super::counters::CounterTracks;
use super::message_select::{self, MessageSelect, MessageSelection, Pair};
use super::notes::{note_hover, NoteSet, NotesHost};
use super::timeline_diagnosis::{explain, TimelineDiagnosis, WaitInfo};
use super::{num, Hover, Pane};
use crate::layouts::timeline::{TimelineLayout, TimelineMetrics};
use crate::scene::diagnosis_marks;
use crate::scene::groups::{self, RegionUse};
use crate::scene::message_marks;
use crate::scene::note_marks;
use crate::scene::timeline::{
    format_duration, format_time_for_span, region_colors, Overview, TimelineScene, TimelineView, AXIS_PX,
};
use crate::scene::timeline_marks::{outline_interval, selection_band, Marked};
use crate::scene::{Rgba, Scene};
use crate::views::options::{TimelineOptions, ViewOptions};
use serde_json::json;
use std::rc::Rc;
use weft_analyses::busy::glob_match;
use weft_analyses::comm_matrix::MatrixUnit;
use weft_analyses::moments::TimeWindow;
use weft_analyses::profile::{profile, RegionProfile};
use weft_model::{Arg, ArgKind, LocationId, MessageKind, ProcessId, RegionId, Trace};

/// At most this many rows are listed in the view state (from the first visible row on).
const MAX_STATE_ROWS: usize = 2_000;

/// A hover lists at most this many of a slice's args, then "+N more".
pub const HOVER_ARGS: usize = 12;
/// Characters of an arg's value a hover line shows before "…".
pub const HOVER_ARG_CHARS: usize = 80;

/// An event's args as hover lines: "key: value" for the first [`HOVER_ARGS`] (a value cut at
/// [`HOVER_ARG_CHARS`] characters, between escapes of a JSON value, never inside one), then "+N more"
/// counting the pairs not listed and those the reader did not keep.
pub fn args_lines<'a>(t: &Trace, args: impl Iterator<Item = Arg<'a>>) -> Vec<String> {
    let mut lines = Vec::new();
    let mut more = 0u64;
    for a in args {
        let n = if a.kind == ArgKind::Cut {
            a.value.split(' ').next().and_then(|n| n.parse().ok()).unwrap_or(1)
        } else {
            1
        };
        if lines.len() >= HOVER_ARGS || a.kind == ArgKind::Cut {
            more += n;
        } else {
            lines.push(format!("{}: {}", t.str(a.key), cut_value(a.value, a.kind == ArgKind::Json)));
        }
    }
    if more > 0 {
        lines.push(format!("+{more} more"));
    }
    lines
}

/// `value` cut to [`HOVER_ARG_CHARS`] characters and "…"; in JSON, an escape (`\"`, `\u00e9`) is kept or
/// dropped whole.
fn cut_value(value: &str, json: bool) -> std::borrow::Cow<'_, str> {
    if value.len() <= HOVER_ARG_CHARS || value.chars().count() <= HOVER_ARG_CHARS {
        return value.into();
    }
    let (mut end, mut chars) = (0usize, 0usize);
    while let Some(c) = value[end..].chars().next() {
        let escape = if json && c == '\\' {
            let n = if value.as_bytes().get(end + 1) == Some(&b'u') { 6 } else { 2 };
            Some(n).filter(|&n| value.is_char_boundary((end + n).min(value.len())))
        } else {
            None
        };
        let (bytes, n) = match escape {
            Some(n) => ((end + n).min(value.len()) - end, n),
            None => (c.len_utf8(), 1),
        };
        if chars + n > HOVER_ARG_CHARS - 1 {
            break;
        }
        chars += n;
        end += bytes;
    }
    format!("{}…", &value[..end]).into()
}

pub struct TimelinePane {
    trace: Rc<Trace>,
    layout: TimelineLayout,
    colors: Vec<Rgba>,
    view: TimelineView,
    highlight: Option<usize>,
    /// The location filter (a glob over "process / location" or the location's name; None shows all),
    /// hidden locations, folded processes, compact rows.
    opts: TimelineOptions,
    /// The whole run's overview strip, computed once.
    overview: Overview,
    /// The selected time range [t0, t1] (ns from the trace's start): the profile table's window.
    selection: Option<(u64, u64)>,
    /// The region whose intervals are brought forward (a row of the profile table clicked).
    marked_region: Option<RegionId>,
    search: Option<Search>,
    /// The marked region's intervals, else the search's matches, indexed for drawing.
    marked: Option<Marked>,
    /// Counter tracks below the rows.
    counters: CounterTracks,
    /// The clicked message or call and its partners (views::message_select).
    messages: MessageSelect,
    /// Lanes each location's row keeps at least, whatever its intervals here (a store's slice: the whole
    /// run's depths, from its manifest); empty for a whole trace.
    row_lanes: Rc<[u32]>,
    /// Each region's intervals and exclusive time in the whole trace, for the legend's order (made when the
    /// legend is first asked for).
    region_uses: std::cell::OnceCell<Vec<RegionUse>>,
    /// The message or flow line under the pointer, drawn highlighted over the others.
    hovered_flow: Option<usize>,
    /// The worker's diagnosis of the trace (waits hatched, the critical path, the selected wait), once asked.
    diagnosis: Option<TimelineDiagnosis>,
    /// The user's notes on this trace (views::notes; scene::note_marks draws them).
    notes: NoteSet,
    /// The intervals of the call path clicked in the call-tree panel (the worker's, in the trace's order):
    /// marked before a region or a search's matches.
    call_path: Option<Rc<[u32]>>,
}

/// Functions a legend section lists before "other".
const LEGEND_PER_GROUP: usize = 10;

/// A search of regions by name: the pattern, the matching intervals of the shown rows in time order, and
/// the one shown (None before the first step).
struct Search {
    pattern: String,
    matches: Vec<u32>,
    at: Option<usize>,
}

/// Does a region name match a search pattern: a glob (`*`, `?`) over the whole name when the pattern has
/// one, else a substring; either ignoring case.
pub fn name_matches(pattern: &str, name: &str) -> bool {
    let (pattern, name) = (pattern.to_lowercase(), name.to_lowercase());
    if pattern.contains(['*', '?']) {
        glob_match(&pattern, &name)
    } else {
        name.contains(&pattern)
    }
}

/// The current search match, as the page shows it.
#[derive(serde::Serialize, Debug, Clone, PartialEq)]
pub struct SearchHit {
    /// 0-based position among the matches.
    pub at: usize,
    pub count: usize,
    pub interval: usize,
    pub region: String,
    pub location: u32,
    pub start_ns: u64,
    pub dur_ns: u64,
}

/// Does location `l` pass the filter `pattern` (by its name, or its process and name as "P / L")?
pub fn location_matches(trace: &Trace, l: LocationId, pattern: &str) -> bool {
    let name = trace.location_name(l);
    let process = trace.process_name(trace.locations.process[l.index()]);
    glob_match(pattern, name) || glob_match(pattern, &format!("{process} / {name}"))
}

/// What the rows panel asks of a timeline, a trace's ([`TimelinePane`]) or a store's
/// (`views::store::StorePane`): the list of locations, hiding and folding, a click in the label column or on
/// the overview strip.
pub trait Rows {
    /// The rows panel's list ([`location_list`]).
    fn location_list(&self, filter: &str, from: usize, count: usize) -> serde_json::Value;
    /// Hide (or show) a location's row; false when nothing changed (the last row shown stays).
    fn set_hidden(&mut self, location: u32, hidden: bool) -> bool;
    /// Fold (or unfold) a process's rows into one summary row; false when nothing changed.
    fn set_folded(&mut self, process: u32, folded: bool) -> bool;
    /// Is screen (x, y) on the overview strip?
    fn on_overview(&self, x: f32, y: f32) -> bool;
    /// Centre the window on the time under x of the overview strip.
    fn overview_go(&mut self, x: f32) -> bool;
    /// A click in the label column (folds or unfolds a process), on the overview strip (moves the window) or
    /// on the constant counter series' band (opens or closes it); false when it did none.
    fn rows_click(&mut self, x: f32, y: f32) -> bool;
}

impl Rows for TimelinePane {
    fn location_list(&self, filter: &str, from: usize, count: usize) -> serde_json::Value {
        TimelinePane::location_list(self, filter, from, count)
    }
    fn set_hidden(&mut self, location: u32, hidden: bool) -> bool {
        TimelinePane::set_hidden(self, location, hidden)
    }
    fn set_folded(&mut self, process: u32, folded: bool) -> bool {
        TimelinePane::set_folded(self, process, folded)
    }
    fn on_overview(&self, x: f32, y: f32) -> bool {
        TimelinePane::on_overview(self, x, y)
    }
    fn overview_go(&mut self, x: f32) -> bool {
        TimelinePane::overview_go(self, x)
    }
    fn rows_click(&mut self, x: f32, y: f32) -> bool {
        if x >= self.track_x0() && !self.on_overview(x, y) && !self.on_counter_band(y) {
            return false;
        }
        self.click(x, y)
    }
}

/// The rows of `t` for the options `o` (filter, hidden, folded; `was`: the options before, for the message),
/// each at least `lanes[location]` deep; Err when no location would be shown.
pub fn rows_for(
    t: &Trace,
    o: &TimelineOptions,
    was: &TimelineOptions,
    lanes: &[u32],
) -> Result<TimelineLayout, String> {
    rows_for_in(t, &t.locations_in_display_order(), o, was, lanes)
}

/// [`rows_for`] with the locations' display order given (`TimelineLayout::with_lanes_in`).
pub fn rows_for_in(
    t: &Trace,
    display_order: &[LocationId],
    o: &TimelineOptions,
    was: &TimelineOptions,
    lanes: &[u32],
) -> Result<TimelineLayout, String> {
    let pattern = o.locations.as_deref();
    let keep = |l: LocationId| !o.hidden.contains(l.0) && pattern.is_none_or(|p| location_matches(t, l, p));
    let fold = |p: weft_model::ProcessId| o.folded.contains(p.0);
    let layout = TimelineLayout::with_lanes_in(t, display_order, TimelineMetrics::default(), keep, fold, lanes);
    // A trace of counters alone (locations that only record metrics) shows its tracks without rows.
    if layout.rows.is_empty() && (pattern.is_some() || t.counters.series_name.is_empty()) {
        return Err(match pattern {
            Some(p) if o.locations != was.locations => format!("no location matches '{p}'"),
            _ => "no location would be shown".to_string(),
        });
    }
    Ok(layout)
}

/// The rows panel's list: processes (id, name, folded, location count) in display order, each with its
/// locations (id, name, shown) that match `filter` (substring of "process / location", ignoring case;
/// empty: all), from the `from`-th matching location on, at most `count` locations; a location is shown
/// when `layout` has a row for it.
pub fn location_list(
    t: &Trace,
    layout: &TimelineLayout,
    opts: &TimelineOptions,
    filter: &str,
    from: usize,
    count: usize,
) -> serde_json::Value {
    let filter = filter.trim().to_lowercase();
    let mut processes: Vec<serde_json::Value> = Vec::new();
    let mut current: Option<(ProcessId, Vec<serde_json::Value>, usize)> = None;
    let (mut matched, mut listed) = (0usize, 0usize);
    let flush = |out: &mut Vec<serde_json::Value>, c: Option<(ProcessId, Vec<serde_json::Value>, usize)>| {
        if let Some((p, locs, total)) = c.filter(|c| !c.1.is_empty()) {
            out.push(json!({
                "id": p.0, "name": t.process_name(p), "folded": opts.folded.contains(p.0),
                "locations": locs, "location_count": total,
            }));
        }
    };
    for l in t.locations_in_display_order() {
        let p = t.locations.process[l.index()];
        if current.as_ref().is_none_or(|c| c.0 != p) {
            flush(&mut processes, current.take());
            current = Some((p, Vec::new(), 0));
        }
        let name = t.location_name(l);
        let full = format!("{} / {name}", t.process_name(p)).to_lowercase();
        if !filter.is_empty() && !full.contains(&filter) {
            continue;
        }
        matched += 1;
        if let Some(c) = current.as_mut() {
            c.2 += 1;
            if matched > from && listed < count {
                listed += 1;
                let shown = (layout.row_of_location[l.index()] as usize) < layout.rows.len();
                c.1.push(json!({"id": l.0, "name": name, "shown": shown}));
            }
        }
    }
    flush(&mut processes, current.take());
    json!({"processes": processes, "matched": matched, "from": from, "listed": listed})
}

/// The rows listed in a timeline's view state: every row while there are few; past that the rows from the
/// first visible one on, a bounded number (a trace with a million threads must not turn each call into a
/// million objects); with the index of the first listed.
pub fn rows_state(t: &Trace, layout: &TimelineLayout, view: &TimelineView) -> (Vec<serde_json::Value>, usize) {
    let all = &layout.rows;
    let from = if all.len() <= MAX_STATE_ROWS {
        0
    } else {
        let visible = layout.rows_in(view.scroll_y, view.scroll_y + view.height - AXIS_PX);
        visible.start.min(all.len() - MAX_STATE_ROWS)
    };
    let rows = all[from..all.len().min(from + MAX_STATE_ROWS)]
        .iter()
        .map(|row| {
            json!({
                "location": row.location.0,
                "name": t.location_name(row.location),
                "process": t.process_name(row.process),
                "y": view.y_of(row.y),
                "lanes": row.lanes,
                "height": layout.row_height(row),
                "process_id": row.process.0,
                "folded": row.folded,
            })
        })
        .collect();
    (rows, from)
}

impl TimelinePane {
    /// The message and flow lines of the frame: how many are drawn, the darkest pixel column their fading
    /// leaves (`TimelineScene::flow_lines`), and the hovered one (drawn highlighted).
    fn flow_state(&self) -> serde_json::Value {
        let f = self.scene_builder().flow_lines(&self.view);
        json!({"drawn": f.lines.len(), "darkest": f.darkest, "hovered": self.hovered_flow})
    }

    pub fn new(trace: Rc<Trace>, width: f32, height: f32) -> Self {
        let overview = Overview::new(&trace, &region_colors(&trace));
        Self::with_overview(trace, width, height, overview)
    }

    /// The pane with its overview strip computed already (`Overview::new(&trace, &region_colors(&trace))`:
    /// a pass over every interval, a load step of its own on the page).
    pub fn with_overview(trace: Rc<Trace>, width: f32, height: f32, overview: Overview) -> Self {
        let layout = TimelineLayout::new(&trace, TimelineMetrics::default());
        Self::with_layout(trace, width, height, layout, overview)
    }

    /// Index the lanes of the next `n` messages' ends (`TimelineLayout::index_message_lanes`) of a pane made
    /// with its layout's unindexed; true once all are.
    pub fn index_message_lanes(&mut self, n: usize) -> bool {
        self.layout.index_message_lanes(&self.trace, n)
    }

    /// The pane with its layout (`TimelineLayout::new(&trace, TimelineMetrics::default())`, its message lanes
    /// indexed or not) and overview strip made already: a store's exact slice is made drawable in steps.
    pub fn with_layout(
        trace: Rc<Trace>,
        width: f32,
        height: f32,
        mut layout: TimelineLayout,
        overview: Overview,
    ) -> Self {
        let counters = CounterTracks::new(&trace, &mut layout);
        let colors = region_colors(&trace);
        let view = TimelineView::fit(&trace, width, height);
        TimelinePane {
            trace,
            layout,
            colors,
            view,
            highlight: None,
            opts: TimelineOptions::default(),
            overview,
            selection: None,
            marked_region: None,
            search: None,
            marked: None,
            counters,
            messages: MessageSelect::default(),
            row_lanes: Rc::from(Vec::new()),
            region_uses: std::cell::OnceCell::new(),
            hovered_flow: None,
            diagnosis: None,
            notes: NoteSet::default(),
            call_path: None,
        }
    }

    /// Mark the intervals of a call path (the worker's `calltree_bundle::path_intervals`, checked against this
    /// trace), or none; marked before a region or a search's matches.
    pub fn mark_call_path(&mut self, intervals: Option<Rc<[u32]>>) {
        self.call_path = intervals;
        self.remark();
    }

    /// The marked call path's intervals, if one is marked.
    pub fn marked_call_path(&self) -> Option<&[u32]> {
        self.call_path.as_deref()
    }

    /// The trace shown, shared (the call tree's flame graph names its regions).
    pub fn shared_trace(&self) -> Rc<Trace> {
        self.trace.clone()
    }

    /// Show the worker's diagnosis of this trace (decoded and checked against it): its waits hatched, its
    /// critical path when turned on; what was drawn and selected before is kept where it still applies.
    pub fn set_diagnosis(&mut self, bundle: Rc<weft_analyses::diagnosis::bundle::DiagnosisBundle>) {
        let (show_waits, show_path) = self.diagnosis.as_ref().map_or((true, false), |d| (d.show_waits, d.show_path));
        let mut d = TimelineDiagnosis::new(bundle);
        (d.show_waits, d.show_path) = (show_waits, show_path);
        self.diagnosis = Some(d);
    }

    pub fn diagnosis(&self) -> Option<&TimelineDiagnosis> {
        self.diagnosis.as_ref()
    }

    /// Draw the waits and the critical path or not; false without a diagnosis.
    pub fn set_diagnosis_shown(&mut self, waits: bool, path: bool) -> bool {
        let Some(d) = self.diagnosis.as_mut() else { return false };
        (d.show_waits, d.show_path) = (waits, path);
        true
    }

    /// Select the wait drawn at screen (x, y) (None: clears the selection): the wait in words with its root
    /// causes, or None.
    pub fn wait_click(&mut self, x: f32, y: f32) -> Option<WaitInfo> {
        let d = self.diagnosis.as_ref().filter(|d| d.show_waits)?;
        let hit = diagnosis_marks::wait_at(&d.bundle, &self.trace, &self.layout, &self.view, x, y);
        let d = self.diagnosis.as_mut()?;
        d.selected = hit;
        explain(&d.bundle, &self.trace, hit?)
    }

    /// Select wait `i` and bring it and its cause into view (the wait with its cause's time, its row
    /// scrolled into view): the wait in words, or None for no such wait.
    pub fn show_wait(&mut self, i: usize) -> Option<WaitInfo> {
        let d = self.diagnosis.as_mut()?;
        let info = explain(&d.bundle, &self.trace, i)?;
        d.selected = Some(i);
        let (a, b) = (info.start_ns.min(info.cause_ns.max(info.start_ns)), info.end_ns.max(info.cause_ns));
        let depth = self.trace.intervals.depth[d.bundle.waits.call[i] as usize];
        let ts = TimelineScene { trace: &self.trace, layout: &self.layout, colors: &self.colors };
        let mut view = self.view;
        // Zoomed so the wait fills about half the width, never less than 2 us.
        let pad = ((b - a) as f64 / 2.0).max(1_000.0);
        view.t0_ns = a as f64 - pad;
        view.t1_ns = b as f64 + pad;
        message_select::reveal(&ts, &mut view, LocationId(info.location), a, b, depth);
        self.view = view;
        Some(info)
    }

    /// The selected wait in words, or None.
    pub fn selected_wait(&self) -> Option<WaitInfo> {
        let d = self.diagnosis.as_ref()?;
        explain(&d.bundle, &self.trace, d.selected?)
    }

    pub fn clear_wait(&mut self) {
        if let Some(d) = self.diagnosis.as_mut() {
            d.selected = None;
        }
    }

    /// The layout given to [`TimelinePane::with_layout`] was made for the row options `o` with rows of at
    /// least `lanes[location]` lanes ([`rows_for`]): keep both from now on, also through relayouts (a store's
    /// slice, laid out in the store's rows), and place the rows for `o`'s row mode.
    pub fn laid_out_for(&mut self, o: TimelineOptions, lanes: Rc<[u32]>) {
        let recolor = o.colors != self.opts.colors;
        self.opts = o;
        self.row_lanes = lanes;
        if recolor {
            self.recolor();
        }
        self.place_rows();
    }

    /// The regions' colours again for the colours chosen (`scene::groups`): the rows and the overview strip.
    fn recolor(&mut self) {
        self.colors = groups::region_colors(&self.trace, &self.opts.colors);
        self.overview.recolor(&self.colors);
    }

    /// Select the message line, or the sending, receiving or collective call, at screen (x, y)
    /// (`views::message_select`); elsewhere clears the selection.
    pub fn message_click(&mut self, x: f32, y: f32) -> Option<&MessageSelection> {
        let ts = TimelineScene { trace: &self.trace, layout: &self.layout, colors: &self.colors };
        self.messages.click(&ts, &self.view, x, y)
    }

    /// Select the messages interval `i` sends or receives, or its collective operation.
    pub fn message_select_call(&mut self, i: usize) -> Option<&MessageSelection> {
        self.messages.select_call(&self.trace, i)
    }

    /// Select message `j` as if clicked near its send end (`at_send`) or its receive end.
    pub fn message_select(&mut self, j: usize, at_send: bool) -> Option<&MessageSelection> {
        self.messages.select_message(&self.trace, j, at_send)
    }

    /// Select the messages of a communication-matrix cell: `sender` to `receiver` (process or location ids,
    /// as `unit` says) sent in the selection (the whole trace when `whole` or nothing is selected).
    pub fn message_select_pair(
        &mut self,
        unit: MatrixUnit,
        sender: u32,
        receiver: u32,
        whole: bool,
    ) -> Option<&MessageSelection> {
        let w = self.selection().filter(|_| !whole).unwrap_or(TimeWindow::whole(&self.trace));
        let pair = Pair { unit: unit.name(), sender, receiver, t0_ns: w.start_ns, t1_ns: w.end_ns };
        self.messages.select_pair(&self.trace, pair)
    }

    pub fn message_selection(&self) -> Option<&MessageSelection> {
        self.messages.selection()
    }

    pub fn clear_message_selection(&mut self) {
        self.messages.clear();
    }

    /// Pan to the partner end of listed message `k` (its call, or its time): false when there is none.
    pub fn message_go_to_partner(&mut self, k: usize) -> bool {
        let Some(end) = self.messages.selection().and_then(|s| s.partner(k)).cloned() else { return false };
        let (t0, t1, depth) = match &end.call {
            Some(c) => (c.start_ns, c.end_ns, self.trace.intervals.depth[c.interval]),
            None => (end.time_ns, end.time_ns, 0),
        };
        let ts = TimelineScene { trace: &self.trace, layout: &self.layout, colors: &self.colors };
        message_select::reveal(&ts, &mut self.view, LocationId(end.location), t0, t1, depth);
        true
    }

    /// The trace shown.
    pub fn trace(&self) -> &Trace {
        &self.trace
    }

    /// Screen segment (x0, y0, x1, y1) of message `j` in the current view, when both its ends have rows.
    pub fn message_segment(&self, j: usize) -> Option<(f32, f32, f32, f32)> {
        let (m, lay) = (&self.trace.messages, &self.layout);
        let has_row = |l: LocationId| (lay.row_of_location[l.index()] as usize) < lay.rows.len();
        (j < m.len() && has_row(m.sender[j]) && has_row(m.receiver[j]))
            .then(|| self.scene_builder().flow_segment(&self.view, j))
    }

    /// The counter series (shown or not) and the shown tracks' places, as `state()["counters"]`.
    pub fn counter_tracks(&self) -> serde_json::Value {
        self.counters.state(&self.trace, &self.view)
    }

    /// Up to `count` samples of counter series `series` from its `from`-th on: `{time_ns: [...], value:
    /// [...]}` (the model's, for the page's tests and panels).
    pub fn counter_samples(&self, series: u32, from: usize, count: usize) -> serde_json::Value {
        let c = &self.trace.counters;
        let a = c.sample_series.partition_point(|&s| s < series);
        let b = c.sample_series.partition_point(|&s| s <= series);
        let r = (a + from).min(b)..(a + from.saturating_add(count)).min(b);
        json!({"time_ns": &c.sample_time_ns[r.clone()], "value": &c.sample_value[r]})
    }

    /// Scale counter series by whole-run extremes (`(series, min, max)`: a store's slice holds a window's
    /// samples only).
    pub fn set_counter_extremes(&mut self, extremes: &[(u32, f64, f64)]) {
        self.counters.set_extremes(extremes);
    }

    /// Show or hide counter series `series`' track; false for a series the trace lacks.
    pub fn set_counter_shown(&mut self, series: u32, shown: bool) -> bool {
        let known = self.counters.set_shown(series, shown);
        self.counters.relayout(&self.trace, &mut self.layout);
        self.view.scroll_by(0.0, &self.layout);
        known
    }

    /// Whether screen y is on the constant counter series' band (a click there opens or closes it).
    pub fn on_counter_band(&self, y: f32) -> bool {
        y >= AXIS_PX && self.counters.layout().on_constants(y - AXIS_PX + self.view.scroll_y)
    }

    /// Open or close the constant counter series' group (their tracks shown below its band); false when the
    /// trace has no such group.
    pub fn set_counter_constants_open(&mut self, open: bool) -> bool {
        let known = self.counters.set_constants_open(open);
        self.counters.relayout(&self.trace, &mut self.layout);
        self.view.scroll_by(0.0, &self.layout);
        known
    }

    /// The time (ns from the trace's start) at screen x.
    pub fn time_at(&self, x: f32) -> f64 {
        self.view.t_of(x)
    }

    /// Select [t0, t1] (either order), clipped to the trace and rounded to whole ns; an empty range clears
    /// the selection. Returns the selection.
    pub fn select(&mut self, t0_ns: f64, t1_ns: f64) -> Option<TimeWindow> {
        if !(t0_ns.is_finite() && t1_ns.is_finite()) {
            return self.selection();
        }
        let span = self.trace.span_ns as f64;
        let at = |t: f64| t.clamp(0.0, span).round() as u64;
        let (a, b) = (at(t0_ns.min(t1_ns)), at(t0_ns.max(t1_ns)));
        self.selection = (b > a).then_some((a, b));
        self.selection()
    }

    /// Select the time between screen x0 and x1.
    pub fn select_px(&mut self, x0: f32, x1: f32) -> Option<TimeWindow> {
        self.select(self.view.t_of(x0), self.view.t_of(x1))
    }

    pub fn clear_selection(&mut self) {
        self.selection = None;
    }

    pub fn selection(&self) -> Option<TimeWindow> {
        self.selection.map(|(start_ns, end_ns)| TimeWindow { start_ns, end_ns })
    }

    /// The region profile of the selection (the whole trace when `whole` or nothing is selected) over the
    /// locations matching `locations` (a glob over the location's name or "process / location"; empty: all).
    pub fn profile(&self, whole: bool, locations: &str) -> (TimeWindow, Vec<RegionProfile>) {
        let window = self.selection().filter(|_| !whole).unwrap_or(TimeWindow::whole(&self.trace));
        let t = &self.trace;
        let rows = if locations.trim().is_empty() {
            profile(t, Some(window), |_| true)
        } else {
            profile(t, Some(window), |l| location_matches(t, l, locations.trim()))
        };
        (window, rows)
    }

    /// The page's legend: the `n` regions with the most exclusive time in the whole trace (of the shown
    /// rows' locations), each with the colour its intervals are drawn in.
    pub fn legend(&self, n: usize) -> Vec<(u32, String, Rgba)> {
        let t = &self.trace;
        let shown = |l: LocationId| (self.layout.row_of_location[l.index()] as usize) < self.layout.rows.len();
        let mut rows = profile(t, None, shown);
        rows.sort_by(|a, b| {
            b.exclusive_ns.cmp(&a.exclusive_ns).then(b.count.cmp(&a.count)).then(a.region.cmp(&b.region))
        });
        rows.into_iter().take(n).map(|r| (r.region, r.name, self.colors[r.region as usize])).collect()
    }

    /// The colour region `r`'s intervals are drawn in.
    pub fn region_color(&self, r: u32) -> Option<Rgba> {
        self.colors.get(r as usize).copied()
    }

    /// Bring region `region`'s intervals forward (None: none); false for a region the trace lacks.
    pub fn mark_region(&mut self, region: Option<u32>) -> bool {
        if region.is_some_and(|r| r as usize >= self.trace.regions.len()) {
            return false;
        }
        self.marked_region = region.map(RegionId);
        self.remark();
        true
    }

    pub fn marked_region(&self) -> Option<u32> {
        self.marked_region.map(|r| r.0)
    }

    /// Search regions by name (`name_matches`); an empty pattern ends the search. Returns the match count.
    pub fn search(&mut self, pattern: &str) -> usize {
        let pattern = pattern.trim();
        if pattern.is_empty() {
            self.search = None;
            self.remark();
            return 0;
        }
        let t = &self.trace;
        let regions: Vec<bool> =
            (0..t.regions.len()).map(|r| name_matches(pattern, t.region_name(RegionId(r as u32)))).collect();
        let iv = &t.intervals;
        let mut matches: Vec<u32> = Marked::new(&self.layout, |i| regions[iv.region[i].index()]).ids().to_vec();
        let row = |i: u32| self.layout.row_of_location[iv.location[i as usize].index()];
        matches.sort_unstable_by_key(|&i| (iv.start_ns[i as usize], row(i), iv.depth[i as usize], i));
        let count = matches.len();
        self.search = Some(Search { pattern: pattern.to_string(), matches, at: None });
        self.remark();
        count
    }

    /// Go to the next (or previous) match, wrapping around: zoom to it and scroll its row into view.
    pub fn search_step(&mut self, forward: bool) -> Option<SearchHit> {
        let s = self.search.as_mut()?;
        let n = s.matches.len();
        if n == 0 {
            return None;
        }
        let at = match (s.at, forward) {
            (None, true) => 0,
            (None, false) => n - 1,
            (Some(a), true) => (a + 1) % n,
            (Some(a), false) => (a + n - 1) % n,
        };
        s.at = Some(at);
        let i = s.matches[at] as usize;
        self.show_interval(i);
        self.search_hit()
    }

    /// The current search match, if a step has been taken.
    pub fn search_hit(&self) -> Option<SearchHit> {
        let s = self.search.as_ref()?;
        let at = s.at?;
        let i = *s.matches.get(at)? as usize;
        let iv = &self.trace.intervals;
        Some(SearchHit {
            at,
            count: s.matches.len(),
            interval: i,
            region: self.trace.region_name(iv.region[i]).to_string(),
            location: iv.location[i].0,
            start_ns: iv.start_ns[i],
            dur_ns: iv.dur_ns[i],
        })
    }

    /// The notes on this trace, and the trace (views::notes).
    pub fn notes_mut(&mut self) -> (&mut NoteSet, &Trace) {
        (&mut self.notes, &self.trace)
    }

    pub fn notes(&self) -> &NoteSet {
        &self.notes
    }

    /// The interval under the pointer (the last hover's), if any.
    pub fn hovered_interval(&self) -> Option<usize> {
        self.highlight
    }

    /// Zoom to note `k`: its interval as a search match is shown, else its range with a tenth on either side
    /// and its location's row scrolled into view. False when there is no note `k`.
    pub fn show_note(&mut self, k: usize) -> bool {
        if let Some(i) = self.notes.interval_of(k) {
            self.show_interval(i);
            return true;
        }
        let Some(n) = self.notes.notes().get(k) else { return false };
        let (t0, t1, location) = (n.t0_ns as f64, n.t1_ns as f64, n.location);
        let pad = ((t1 - t0) / 10.0).max(100.0);
        self.set_time_range(t0 - pad, t1 + pad);
        let row = location
            .and_then(|l| self.layout.row_of_location.get(l as usize))
            .and_then(|&r| self.layout.rows.get(r as usize));
        if let Some(row) = row {
            let shown = self.view.height - AXIS_PX;
            let y = row.y;
            if y < self.view.scroll_y || y > self.view.scroll_y + shown {
                self.view.scroll_by(y - shown / 2.0 - self.view.scroll_y, &self.layout);
            }
        }
        true
    }

    /// Zoom to interval `i` (half its duration, at least 100 ns, on either side) and scroll its lane into view.
    pub fn show_interval(&mut self, i: usize) {
        let trace = self.trace.clone();
        let iv = &trace.intervals;
        let (s, d) = (iv.start_ns[i] as f64, iv.dur_ns[i] as f64);
        let pad = (d / 2.0).max(100.0);
        self.set_time_range(s - pad, s + d + pad);
        let Some(row) = self.layout.rows.get(self.layout.row_of_location[iv.location[i].index()] as usize) else {
            return;
        };
        let lane = self.layout.metrics.lane_px;
        let y = row.y + iv.depth[i] as f32 * lane;
        let shown = self.view.height - AXIS_PX;
        if y < self.view.scroll_y || y + lane > self.view.scroll_y + shown {
            self.view.scroll_by(y - shown / 2.0 - self.view.scroll_y, &self.layout);
        }
    }

    /// Index what is marked again (the marked region, else the search's matches) for the current rows.
    fn remark(&mut self) {
        let iv = &self.trace.intervals;
        self.marked = match (self.marked_region, &self.search) {
            _ if self.call_path.is_some() => {
                let mut keep = vec![false; iv.len()];
                for &i in self.call_path.iter().flat_map(|p| p.iter()) {
                    if let Some(k) = keep.get_mut(i as usize) {
                        *k = true;
                    }
                }
                Some(Marked::new(&self.layout, |i| keep[i]))
            }
            (Some(r), _) => Some(Marked::new(&self.layout, |i| iv.region[i] == r)),
            (None, Some(s)) => {
                let mut keep = vec![false; iv.len()];
                s.matches.iter().for_each(|&i| keep[i as usize] = true);
                Some(Marked::new(&self.layout, |i| keep[i]))
            }
            (None, None) => None,
        };
    }

    /// Rows again for new options (filter, hidden locations, folded processes); refused, changing nothing,
    /// when no location would be shown.
    fn relayout(&mut self, o: TimelineOptions) -> Result<(), String> {
        self.layout = rows_for(&self.trace, &o, &self.opts, &self.row_lanes)?;
        self.opts = o;
        self.highlight = None;
        self.place_rows();
        // Marks and matches are of the shown rows.
        if let Some(p) = self.search.as_ref().map(|s| s.pattern.clone()) {
            self.search(&p);
        }
        self.remark();
        self.view.scroll_by(-self.view.scroll_y, &self.layout);
        Ok(())
    }

    /// Place the rows for the row mode: normal heights, or compact (the lane height that fits the plot).
    fn place_rows(&mut self) {
        let metrics = if self.opts.compact {
            // The counter tracks below take what they need, but never more than half the plot: dozens of
            // tracks left the rows a tenth of a pixel each.
            let tracks = self.counters.layout().height;
            let full = self.view.plot_bottom() - AXIS_PX - 4.0;
            let plot = (full - tracks).max(full / 2.0);
            TimelineMetrics::compact(self.layout.total_lanes(), self.layout.min_row_lanes(), plot)
        } else {
            TimelineMetrics::default()
        };
        if metrics != self.layout.metrics {
            self.layout.set_metrics(metrics);
        }
        self.counters.relayout(&self.trace, &mut self.layout);
        self.view.scroll_by(0.0, &self.layout);
    }

    /// The options in effect (filter, hidden, folded, compact).
    pub fn row_options(&self) -> &TimelineOptions {
        &self.opts
    }

    /// Fold (or unfold) process `process` into one summary row; false for a process the trace lacks.
    pub fn set_folded(&mut self, process: u32, folded: bool) -> bool {
        if process as usize >= self.trace.processes.len() {
            return false;
        }
        let mut o = self.opts.clone();
        o.folded = o.folded.with(process, folded);
        o != self.opts && self.relayout(o).is_ok()
    }

    /// Hide (or show) location `location`'s row; false for a location the trace lacks or when it is the last
    /// one shown.
    pub fn set_hidden(&mut self, location: u32, hidden: bool) -> bool {
        if location as usize >= self.trace.locations.len() {
            return false;
        }
        let mut o = self.opts.clone();
        o.hidden = o.hidden.with(location, hidden);
        o != self.opts && self.relayout(o).is_ok()
    }

    /// A click in the label column at screen y: the process header (or, in compact rows, a process's label)
    /// there folds or unfolds the process (one with a single row stays as it is).
    fn fold_at(&mut self, y: f32) -> bool {
        let ts = self.scene_builder();
        let process = match ts.header_at_screen(&self.view, y) {
            Some(h) => Some(self.layout.headers[h].process),
            None => ts.row_at_screen(&self.view, y).and_then(|r| {
                let row = &self.layout.rows[r];
                // Compact rows have no headers: a row's label folds its process; a folded row's unfolds.
                (row.folded || self.layout.metrics.compact).then_some(row.process)
            }),
        };
        let Some(p) = process else { return false };
        let folded = self.opts.folded.contains(p.0);
        let rows = self.layout.headers.iter().find(|h| h.process == p).map_or(0, |h| h.rows);
        if !folded && rows < 2 {
            return false;
        }
        self.set_folded(p.0, !folded)
    }

    /// Centre the window on the time under screen x of the overview strip (a click or drag on it); the
    /// window keeps its width.
    pub fn overview_go(&mut self, x: f32) -> bool {
        let t = self.overview.t_of(&self.view, x);
        let w = self.view.t1_ns - self.view.t0_ns;
        let before = (self.view.t0_ns, self.view.t1_ns);
        self.set_time_range(t - w / 2.0, t + w / 2.0);
        self.view.pan_px(0.0, self.trace.span_ns);
        before != (self.view.t0_ns, self.view.t1_ns)
    }

    /// Where the plot begins (the label column's width), in screen x.
    pub fn track_x0(&self) -> f32 {
        self.view.track_x0()
    }

    /// Is screen (x, y) on the overview strip?
    pub fn on_overview(&self, x: f32, y: f32) -> bool {
        self.overview.contains(&self.view, x, y)
    }

    /// The rows panel's list ([`location_list`]).
    pub fn location_list(&self, filter: &str, from: usize, count: usize) -> serde_json::Value {
        location_list(&self.trace, &self.layout, &self.opts, filter, from, count)
    }

    /// Show the rows `o` says (filter, hidden, folded, compact), as the options one by one would; Err
    /// (nothing changed) when no location would be shown.
    pub fn set_row_options(&mut self, o: TimelineOptions) -> Result<(), String> {
        let recolor = o.colors != self.opts.colors;
        if o.locations != self.opts.locations || o.hidden != self.opts.hidden || o.folded != self.opts.folded {
            self.relayout(o)?;
        } else {
            self.opts = o;
            self.place_rows();
        }
        if recolor {
            self.recolor();
        }
        Ok(())
    }

    fn scene_builder(&self) -> TimelineScene<'_> {
        TimelineScene { trace: &self.trace, layout: &self.layout, colors: &self.colors }
    }

    /// A flow's (or message's) hover: both ends named by the slice each is bound to, with its place.
    fn flow_hover(&self, j: usize) -> Hover {
        let t = &self.trace;
        let m = &t.messages;
        let (from, to) = self.scene_builder().flow_ends(j);
        let end = |what: &str, l: LocationId, at: u64, slice: Option<usize>| {
            let process = t.process_name(t.locations.process[l.index()]);
            let name = slice.map_or("(no slice)", |i| t.region_name(t.intervals.region[i]));
            let at = format_time_for_span(at as f64, self.view.t1_ns - self.view.t0_ns);
            format!("{what} {name} · {process} · {} at {at}", t.location_name(l))
        };
        let kind = if m.kind[j] == MessageKind::Flow { "flow" } else { "message" };
        let name = t.str(m.name[j]);
        let slice_name = |s: Option<usize>| s.map(|i| t.region_name(t.intervals.region[i]).to_string());
        Hover {
            title: if name.is_empty() { kind.to_string() } else { format!("{kind} {name}") },
            lines: vec![
                end("from", m.sender[j], m.send_ns[j], from),
                end("to", m.receiver[j], m.recv_ns[j], to),
                format!("after {}", format_duration(m.recv_ns[j].saturating_sub(m.send_ns[j]))),
            ],
            detail: json!({
                "flow": j, "from": slice_name(from), "to": slice_name(to),
                "from_interval": from, "to_interval": to,
                "from_location": m.sender[j].0, "to_location": m.receiver[j].0,
                "send_ns": m.send_ns[j], "recv_ns": m.recv_ns[j],
            }),
        }
    }
}

/// How near (CSS px) the pointer must be to an arrow to hover it.
const FLOW_HIT_PX: f32 = 3.0;

impl Pane for TimelinePane {
    fn kind(&self) -> &'static str {
        "timeline"
    }
    fn resize(&mut self, width: f32, height: f32) {
        self.view.width = width;
        self.view.height = height;
        if self.opts.compact {
            self.place_rows();
        }
        self.view.scroll_by(0.0, &self.layout);
    }
    fn zoom(&mut self, x: f32, factor: f64) {
        self.view.zoom_at(x, factor, self.trace.span_ns);
    }
    fn pan(&mut self, dx: f32) {
        self.view.pan_px(dx, self.trace.span_ns);
    }
    fn scroll(&mut self, dy: f32) {
        self.view.scroll_by(dy, &self.layout);
    }
    fn fit(&mut self) {
        let origin = self.view.time_origin_ns;
        self.view = TimelineView {
            time_origin_ns: origin,
            ..TimelineView::fit(&self.trace, self.view.width, self.view.height)
        };
    }
    fn set_time_origin(&mut self, origin_ns: Option<f64>) {
        self.view.time_origin_ns = origin_ns.filter(|o| o.is_finite());
    }
    fn hover(&mut self, x: f32, y: f32) -> Option<Hover> {
        self.hovered_flow = None;
        if self.overview.contains(&self.view, x, y) {
            self.highlight = None;
            let t = self.overview.t_of(&self.view, x);
            return Some(Hover {
                title: "overview".to_string(),
                lines: vec![
                    format!("at {}", format_time_for_span(t, self.trace.span_ns as f64)),
                    "click or drag to move the window here".to_string(),
                ],
                detail: json!({"overview_ns": t}),
            });
        }
        if x < self.view.track_x0() {
            // The label column names the row under the pointer, whatever labels were thinned away.
            self.highlight = None;
            let r = self.scene_builder().row_at_screen(&self.view, y)?;
            let row = &self.layout.rows[r];
            let t = &self.trace;
            let hdr = self.layout.headers.iter().find(|h| h.process == row.process);
            let mut lines = vec![format!("{} \u{b7} {}", t.process_name(row.process), t.location_name(row.location))];
            if let Some(h) = hdr.filter(|h| h.folded || (h.rows > 1 && self.layout.metrics.compact)) {
                lines.push(format!("{} rows; click to {}", h.rows, if h.folded { "expand" } else { "collapse" }));
            }
            return Some(Hover {
                title: self.scene_builder().row_label(r),
                lines,
                detail: json!({"row": r, "location": row.location.0, "process": row.process.0}),
            });
        }
        if let Some(k) = note_marks::hit(&self.notes, &self.trace, &self.layout, &self.view, x, y) {
            self.highlight = None;
            return note_hover(&self.notes, k, &self.trace, self.view.t1_ns - self.view.t0_ns);
        }
        if let Some(h) = self.counters.hover(&self.trace, &self.view, x, y) {
            self.highlight = None;
            return Some(h);
        }
        // An arrow under the pointer wins over the slice beneath it: arrows are thin and drawn on top.
        if let Some(j) = self.scene_builder().hit_flow(&self.view, x, y, FLOW_HIT_PX) {
            self.highlight = None;
            self.hovered_flow = Some(j);
            return Some(self.flow_hover(j));
        }
        self.highlight = self.scene_builder().hit(&self.view, x, y);
        let i = self.highlight?;
        let t = &self.trace;
        let iv = &t.intervals;
        let loc = iv.location[i];
        let r = iv.region[i];
        let category = t.str(t.regions.category[r.index()]);
        let process = t.process_name(t.locations.process[loc.index()]);
        let mut lines = vec![
            format!("{process} · {}", t.location_name(loc)),
            format!(
                "start {}   duration {}",
                format_time_for_span(iv.start_ns[i] as f64, self.view.t1_ns - self.view.t0_ns),
                format_duration(iv.dur_ns[i])
            ),
        ];
        if !category.is_empty() {
            lines.push(format!("category {category}   depth {}", iv.depth[i]));
        }
        if let Some(args) = iv.args.of(i) {
            lines.extend(args_lines(t, args));
        }
        Some(Hover {
            title: t.region_name(r).to_string(),
            lines,
            detail: json!({
                "interval": i, "location": loc.0, "start_ns": iv.start_ns[i], "dur_ns": iv.dur_ns[i], "depth": iv.depth[i],
            }),
        })
    }
    fn clear_hover(&mut self) {
        self.highlight = None;
        self.hovered_flow = None;
    }
    fn legend(&self) -> Option<crate::scene::legend::Legend> {
        let t = &self.trace;
        let uses = self.region_uses.get_or_init(|| {
            let stats = weft_analyses::profile::region_stats(t, TimeWindow::whole(t), |_| true);
            stats.iter().map(|s| RegionUse { count: s.count, exclusive_ns: s.exclusive_ns }).collect()
        });
        Some(groups::legend(t, &self.colors, uses, &self.opts.colors, LEGEND_PER_GROUP))
            .filter(|l| !l.sections.is_empty())
    }
    fn scene(&self) -> Scene {
        // The counter tracks drawn before the scene judges whether it drew anything.
        let counters = |sc: &mut Scene| self.counters.draw(sc, &self.trace, &self.view);
        let mut sc = self.scene_builder().build_with(&self.view, self.highlight, counters);
        if let Some(j) = self.hovered_flow {
            self.scene_builder().highlight_flow(&mut sc, &self.view, j);
        }
        if let Some(m) = &self.marked {
            m.draw(&mut sc, &self.trace, &self.layout, &self.colors, &self.view);
        }
        if let Some((a, b)) = self.selection {
            selection_band(&mut sc, &self.view, a, b);
        }
        if let Some(hit) = self.search_hit() {
            outline_interval(&mut sc, &self.trace, &self.layout, &self.view, hit.interval);
        }
        if let Some(sel) = self.messages.selection() {
            message_marks::highlight(&mut sc, &self.scene_builder(), &self.view, &sel.message_ids(), &sel.intervals());
        }
        if let Some(d) = &self.diagnosis {
            if d.show_waits {
                diagnosis_marks::draw_waits(&mut sc, &d.bundle, &self.trace, &self.layout, &self.view);
            }
            if d.show_path {
                diagnosis_marks::draw_path(&mut sc, &d.bundle.path, &self.layout, &self.view);
            }
            if let Some(i) = d.selected {
                diagnosis_marks::draw_selected(&mut sc, &d.bundle, &self.trace, &self.layout, &self.view, i);
            }
        }
        note_marks::draw(&mut sc, &self.notes, &self.trace, &self.layout, &self.view);
        self.overview.draw(&mut sc, &self.view);
        sc
    }
    fn brief(&self) -> serde_json::Value {
        json!({
            "view": "timeline",
            "t0_ns": self.view.t0_ns, "t1_ns": self.view.t1_ns, "scroll_y": self.view.scroll_y,
            "width": self.view.width, "height": self.view.height, "track_x0": self.view.track_x0(),
            "axis_px": AXIS_PX, "lane_px": self.layout.metrics.lane_px, "span_ns": self.trace.span_ns,
            "time_origin_ns": self.view.time_origin_ns,
            "row_count": self.layout.rows.len(),
            // The first row's location name (the page's profile panel tells one trace's rows from another's).
            "first_row_name": self.layout.rows.first().map(|r| self.trace.location_name(r.location)),
            "locations": self.opts.locations,
            "compact": self.opts.compact,
            "overview": {"y": self.view.plot_bottom(), "x0": self.view.track_x0(), "x1": self.view.width},
            "selection": self.selection.map(|(a, b)| json!({"t0_ns": a, "t1_ns": b})),
            "marked_region": self.marked_region.map(|r| r.0),
            "call_path": self.call_path.as_ref().map(|p| p.len()),
            "search": self.search.as_ref().map(|s| json!({
                "pattern": s.pattern, "count": s.matches.len(), "at": s.at,
                "hit": self.search_hit(),
            })),
            "diagnosis": self.diagnosis.as_ref().map(|d| json!({
                "waits": d.bundle.waits.len(), "path_segments": d.bundle.path.len(),
                "show_waits": d.show_waits, "show_path": d.show_path, "selected": d.selected,
                "window": d.bundle.window.map(|(a, b)| [a, b]),
            })),
        })
    }
    fn state(&self) -> serde_json::Value {
        let (rows, from) = rows_state(&self.trace, &self.layout, &self.view);
        let contents = json!({
            "rows": rows,
            "rows_from": from,
            "hidden": self.opts.hidden.to_text(),
            "folded": self.opts.folded.to_text(),
            "counters": self.counters.state(&self.trace, &self.view),
            "message_selection": self.messages.selection(),
            "flows": self.flow_state(),
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
            self.view.clamp_time(self.trace.span_ns);
        }
    }
    fn options(&self) -> serde_json::Value {
        self.opts.describe()
    }
    fn configure(&mut self, key: &str, value: &str) -> Result<(), String> {
        let mut o = self.opts.clone();
        o.parse(key, value).map_err(|e| e.to_string())?;
        self.set_row_options(o)
    }
    fn restore(&mut self, s: &serde_json::Value) {
        if let Some(c) = s.get("counters") {
            self.counters.restore(c);
            self.counters.relayout(&self.trace, &mut self.layout);
        }
        if let (Some(t0), Some(t1)) = (num(s, "t0_ns"), num(s, "t1_ns")) {
            self.set_time_range(t0, t1);
        }
        if let Some(y) = num(s, "scroll_y") {
            self.view.scroll_by(y as f32 - self.view.scroll_y, &self.layout);
        }
        if let Some(sel) = s.get("selection") {
            match (num(sel, "t0_ns"), num(sel, "t1_ns")) {
                (Some(a), Some(b)) => {
                    self.select(a, b);
                }
                _ if sel.is_null() => self.clear_selection(),
                _ => {}
            }
        }
        if let Some(r) = s.get("marked_region") {
            if r.is_null() {
                self.mark_region(None);
            } else if let Some(r) = r.as_u64().and_then(|r| u32::try_from(r).ok()) {
                self.mark_region(Some(r));
            }
        }
        if let Some(sel) = s.get("message_selection") {
            self.messages.restore(&self.trace, sel);
        }
        if let Some(pattern) = s.get("search").and_then(|x| x.get("pattern")).and_then(|p| p.as_str()) {
            self.search(pattern);
            if let Some(at) = s["search"]["at"].as_u64().map(|a| a as usize) {
                if let Some(search) = self.search.as_mut().filter(|x| at < x.matches.len()) {
                    search.at = Some(at);
                }
            }
        }
    }
    fn click(&mut self, x: f32, y: f32) -> bool {
        if self.overview.contains(&self.view, x, y) {
            return self.overview_go(x);
        }
        // The constant counter series' band opens or closes their group, wherever it is clicked.
        if self.on_counter_band(y) && self.counters.click(y - AXIS_PX + self.view.scroll_y) {
            self.counters.relayout(&self.trace, &mut self.layout);
            self.view.scroll_by(0.0, &self.layout);
            return true;
        }
        if x < self.view.track_x0() {
            return self.fold_at(y);
        }
        let before = self.messages.selection().cloned();
        self.message_click(x, y);
        before.as_ref() != self.messages.selection()
    }
    fn as_timeline(&mut self) -> Option<&mut TimelinePane> {
        Some(self)
    }
}

impl NotesHost for TimelinePane {
    fn notes(&self) -> &NoteSet {
        &self.notes
    }
    fn notes_mut(&mut self) -> (&mut NoteSet, &Trace) {
        (&mut self.notes, &self.trace)
    }
    fn notes_trace(&self) -> &Trace {
        &self.trace
    }
    fn show_note(&mut self, k: usize) -> bool {
        TimelinePane::show_note(self, k)
    }
    fn hovered_interval(&self) -> Option<usize> {
        self.highlight
    }
    fn note_range(&self) -> Option<TimeWindow> {
        self.selection()
    }
}
