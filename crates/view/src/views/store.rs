//! The timeline of a store (issue #17): the trace's rows from the store's definitions, drawn from what the
//! worker answered for the last viewport asked: zoomed out, the pyramid's locations x bins
//! (`store::query::SummaryGrid`: per pixel column the busy share as the bar's height, its compute part
//! coloured by the region with the most time and its part in communication and synchronization in red
//! above it; hover names the bin's figures); zoomed in past level 1, the exact records as
//! a `Trace` slice, drawn and hovered by the ordinary [`TimelinePane`]. [`StorePane::request`] says which
//! viewport to ask the worker for next (the page asks again once the answer is in); the last answer stays
//! drawn, at the new zoom, while tiles are in flight. An exact answer is asked with a margin
//! ([`EXACT_MARGIN`]) and draws every view inside it at its scale or finer without asking again
//! ([`StorePane::covers`]: pans and zooms in at level 0 are drawn in the frame of the move, issue #58).
//! Asks are numbered ([`StorePane::asks`]): once a view is drawn from the exact answer held, the answers
//! still coming are for views left and not wanted ([`StorePane::wants`]). Complete summary grid answers are
//! kept with their viewports ([`StorePane::show_grid_for`]): a view asked again is drawn from its grid, and a
//! view the answer shown covers under half of is drawn from the finest grid held covering it until its
//! answer comes.
//!
//! An exact answer is made drawable in steps ([`StorePane::begin_exact_columns`] and its interval columns, or
//! [`StorePane::receive_exact`], then [`StorePane::step`] until it says done: the decode of the rest of the
//! slice, or of the whole slice column by column, the rows' layout, the overview strip; then, drawn, the
//! lanes of the messages' ends), so the page yields to the browser between them: a slice of up to
//! `store::query::EXACT_MAX_INTERVALS` intervals is a few hundred ms of work in the page's wasm, far over
//! a frame (BENCHMARKS.md, "Store format 2"). The previous answer stays drawn until the overview is made.
//!
//! Must not fetch or decode tiles (the worker does, `crates/worker/src/store.rs`) or read a clock.

use super::options::{TimelineOptions, ViewOptions};
use super::timeline::{location_list, rows_for_in, rows_state, Rows, TimelinePane};
use super::{num, Hover, Pane};
use crate::layouts::counters::{CounterIndex, CounterLayout, TRACK_PX};
use crate::layouts::timeline::{TimelineLayout, TimelineMetrics};
use crate::scene::counters::{format_exact, format_extremes, CounterScene};
use crate::scene::particles::with_alpha;
use crate::scene::timeline::{
    format_duration, format_time, nice_step_ns, region_colors, OverviewBuild, TimelineScene, TimelineView, AXIS_PX,
};
use crate::scene::{palette, rgba, Label, LineInstance, RectInstance, Rgba, Scene};
use serde_json::json;
use std::ops::Range;
use std::rc::Rc;
use weft_model::{codec, LocationId, Trace};
use weft_store::pyramid;
use weft_store::read::query::slice_columns::IntervalColumns;
use weft_store::read::query::{CounterAnswer, SummaryGrid, Viewport};

mod calltree;
mod diagnosis;
mod notes;

/// A pixel column of a summary row ([`StorePane::columns`]).
type Column = (f32, f32, f64, f64, u32, usize, usize);

/// The summary rows' colour for busy time in communication and synchronization (the MPI hue of
/// `palette::region_color`).
const COMMUNICATION: Rgba = rgba(0xd6, 0x4b, 0x4b, 0xff);

/// The rows of `trace` (the skeleton, or a slice of it) at the store's lanes, its locations in `order`.
fn rows_of(trace: &Trace, order: &[LocationId], lanes: &[u32]) -> TimelineLayout {
    TimelineLayout::with_lanes_in(trace, order, TimelineMetrics::default(), |_| true, |_| false, lanes)
}

/// What the worker last answered.
enum Data {
    None,
    Grid(Rc<SummaryGrid>),
    /// The exact records reaching into [t0, t1] of `locations`, in a timeline pane of their own, asked for a
    /// view of `ns_per_px` (any view inside it at that scale or finer is drawn from them: [`StorePane::request`]).
    Exact {
        pane: Box<TimelinePane>,
        t0: u64,
        t1: u64,
        locations: Range<u32>,
        ns_per_px: f64,
        /// The ask it answers ([`StorePane::asks`]; None: shown at once). The worker answers the timeline's
        /// ask in two parts, the view's own window first and then the window with its margin: the second
        /// part of the ask shown is still wanted while the view stays inside the first.
        ask: Option<u32>,
    },
}

/// How far beyond each side of the view an exact answer is asked for, in view widths (the worker keeps the
/// margin only where the wider window is still answered exactly: `StoreSession::plan`): pans within it and
/// zooms into it are drawn from the answer held, without asking the worker again (BENCHMARKS.md "Session 38:
/// zoom latency").
pub const EXACT_MARGIN: f64 = 0.5;

/// A summary grid answer kept with the viewport it answers and the counter tracks' answer beside it
/// ([`StorePane::show_grid_for`]).
struct HeldGrid {
    vp: Viewport,
    grid: Rc<SummaryGrid>,
    counters: Option<CounterAnswer>,
}

/// Summary grid answers kept (the latest), and asks remembered to know which viewport an answer is for.
const HELD_GRIDS: usize = 8;
const RECENT_ASKS: usize = 16;

/// Work a step of the overview strip does (`OverviewBuild::step`: an interval, and each bin it covers, one
/// unit), and message ends' lanes a step finds (each a search of every lane of its row): a few ms of the
/// page's wasm each.
const OVERVIEW_STEP: usize = 1 << 18;
const MESSAGE_LANES_STEP: usize = 1 << 13;

/// An exact answer on its way to being drawn ([`StorePane::step`]).
struct Building {
    /// The encoded slice (`model::codec`), received whole before the first step: with `columns`, the slice
    /// without its intervals.
    bytes: Vec<u8>,
    /// The intervals as columns (`slice_columns`: the store worker's answer), each received whole before the
    /// first step; None where `bytes` hold the intervals too.
    columns: Option<IntervalColumns>,
    t0: u64,
    t1: u64,
    locations: Range<u32>,
    errors: Vec<String>,
    /// The scale of the view it was asked for (see `Data::Exact`).
    ns_per_px: f64,
    /// The ask it answers (see `Data::Exact`).
    ask: Option<u32>,
    stage: Stage,
}

enum Stage {
    Decode(codec::Decoding),
    Layout(Rc<Trace>),
    Overview(Rc<Trace>, TimelineLayout, OverviewBuild),
}

pub struct StorePane {
    skeleton: Rc<Trace>,
    /// The user's notes on the store's timeline (views::notes; time ranges and rows: `store::notes`).
    notes: super::notes::NoteSet,
    /// Lanes of each location's row over the whole run (the manifest's `locations.lanes`; empty for a store
    /// written before they were kept): the summary rows and every exact slice are laid out in them, so
    /// rows keep their heights and places from window to window and zoomed in or out.
    lanes: Rc<[u32]>,
    /// The locations in display order (the definitions': the same for every slice), sorted once.
    order: Rc<[LocationId]>,
    layout: TimelineLayout,
    colors: Vec<Rgba>,
    view: TimelineView,
    data: Data,
    /// Tiles the worker is fetching or decoding for the viewport asked last (the page sets it).
    pub in_flight: usize,
    /// Files that failed for the last answer, with why (named in a banner; the rest is drawn).
    errors: Vec<String>,
    /// The viewport asked for last, so an unchanged view is not asked again; None once a view was drawn
    /// from the exact answer held since (the answers still coming are then not wanted: [`StorePane::wants`]).
    asked: Option<Viewport>,
    /// Asks made ([`StorePane::request`]), the last one's number ([`StorePane::asks`]).
    asks: u32,
    /// Answers to asks numbered below this are no longer wanted.
    wanted_from: u32,
    /// The latest asks with their numbers, and the latest complete grid answers with their viewports: a view
    /// asked again is drawn from its grid without asking, and a view the answer shown covers under half of is
    /// drawn at once from the finest grid covering it ([`StorePane::backdrop`]) until its answer comes.
    recent_asks: Vec<(u32, Viewport)>,
    grids: Vec<HeldGrid>,
    hovered: Option<(usize, usize)>,
    /// An exact answer being made drawable.
    building: Option<Box<Building>>,
    /// The exact answer shown is drawn, its messages' ends' lanes still being indexed ([`StorePane::step`]:
    /// drawn first, the index after; until then a frame finds the lanes of the arrows it draws itself).
    indexing: bool,
    /// The rows shown (filter, hidden, folded, compact: the rows panel's and the timeline's options), in
    /// the summary rows and in every exact slice alike.
    opts: TimelineOptions,
    /// The counter tracks below the rows (every series, a location filter hiding its process's), scaled
    /// by each series' whole-run extremes as answers bring them, and what the worker last answered for the
    /// tracks on screen (zoomed out, their bins; an exact slice carries its samples).
    counter_layout: CounterLayout,
    counter_index: CounterIndex,
    counters: Option<CounterAnswer>,
    /// Series whose tracks the Counters menu hid (in the exact slice's pane too).
    counter_hidden: Vec<bool>,
    diagnosis: diagnosis::StoreDiagnosis,
    /// The call-tree panel's path marked (its intervals' keys, found in each exact slice shown).
    call_marks: Option<Rc<[weft_analyses::calltree_bundle::PathKey]>>,
}

impl StorePane {
    /// `skeleton`: the store's definitions without events (`Store::skeleton`); `lanes`: the manifest's
    /// `locations.lanes`.
    pub fn new(skeleton: Rc<Trace>, lanes: Rc<[u32]>, width: f32, height: f32) -> Self {
        let order: Rc<[LocationId]> = skeleton.locations_in_display_order().into();
        let layout = rows_of(&skeleton, &order, &lanes);
        let colors = region_colors(&skeleton);
        let view = TimelineView::fit(&skeleton, width, height);
        let counter_index = CounterIndex::new(&skeleton);
        let mut pane = StorePane {
            skeleton,
            notes: Default::default(),
            lanes,
            order,
            layout,
            colors,
            view,
            data: Data::None,
            in_flight: 0,
            errors: Vec::new(),
            asked: None,
            asks: 0,
            wanted_from: 0,
            recent_asks: Vec::new(),
            grids: Vec::new(),
            hovered: None,
            building: None,
            indexing: false,
            opts: TimelineOptions::default(),
            counter_layout: CounterLayout::default(),
            counter_hidden: vec![false; counter_index.series.len()],
            counter_index,
            counters: None,
            diagnosis: diagnosis::StoreDiagnosis::default(),
            call_marks: None,
        };
        pane.place_counters();
        pane
    }

    /// Place the counter tracks below the rows, the layout's height growing by theirs (as a trace's timeline
    /// places them: the exact slice's pane puts its own in the same places).
    fn place_counters(&mut self) {
        let hidden = &self.counter_hidden;
        self.counter_layout = CounterLayout::new(&self.skeleton, &self.layout, |s| !hidden[s as usize]);
        self.layout.height = self.counter_layout.top + self.counter_layout.height;
    }

    /// Show or hide counter series `series`' track (the Counters menu); false for a series the store lacks.
    pub fn set_counter_shown(&mut self, series: u32, shown: bool) -> bool {
        let Some(h) = self.counter_hidden.get_mut(series as usize) else { return false };
        *h = !shown;
        if let Data::Exact { pane, .. } = &mut self.data {
            pane.set_counter_shown(series, shown);
        }
        self.place_counters();
        self.view.scroll_by(0.0, &self.layout);
        self.sync();
        true
    }

    /// The counter series (shown or not, with the whole-run figures answered so far) and the shown tracks'
    /// places, as a trace's timeline lists them (`TimelinePane::counter_tracks`).
    pub fn counter_tracks(&self) -> serde_json::Value {
        let c = &self.skeleton.counters;
        let series: Vec<_> = (0..c.series_name.len())
            .map(|k| {
                let st = self.counters.as_ref().and_then(|a| a.stats_of(k as u32));
                let ix = &self.counter_index.series[k];
                json!({
                    "series": k, "name": self.skeleton.str(c.series_name[k]),
                    "process": self.skeleton.process_name(c.series_process[k]), "shown": !self.counter_hidden[k],
                    "samples": st.map(|x| x.samples), "min": ix.min, "max": ix.max,
                })
            })
            .collect();
        let v = &self.view;
        let cs = CounterScene { trace: &self.skeleton, index: &self.counter_index, layout: &self.counter_layout };
        let labels = cs.track_labels(v);
        let tracks: Vec<_> = self
            .counter_layout
            .tracks
            .iter()
            .map(|t| json!({"series": t.series, "y": v.y_of(t.y), "label": labels[t.series as usize]}))
            .collect();
        let binned =
            self.counters.as_ref().map(|a| json!({"level": a.level, "series": [a.series.start, a.series.end]}));
        json!({"series": series, "tracks": tracks, "track_px": TRACK_PX,
            "top": v.y_of(self.counter_layout.top), "answer": binned})
    }

    /// The counter series of the tracks on screen (by index range).
    fn visible_series(&self) -> Range<u32> {
        let (y0, y1) = (self.view.scroll_y, self.view.scroll_y + self.view.height - AXIS_PX);
        let on = self.counter_layout.tracks.iter().filter(|t| t.y + TRACK_PX > y0 && t.y < y1).map(|t| t.series);
        let (lo, hi) = on.fold((u32::MAX, 0), |(lo, hi), s| (lo.min(s), hi.max(s + 1)));
        if lo == u32::MAX {
            0..0
        } else {
            lo..hi
        }
    }

    /// Whole-run extremes known so far, `(series, min, max)`.
    fn counter_extremes(&self) -> Vec<(u32, f64, f64)> {
        let ix = &self.counter_index.series;
        (0..ix.len() as u32).map(|s| (s, ix[s as usize].min, ix[s as usize].max)).collect()
    }

    /// The worker's counter answer for the viewport asked (with its grid or exact answer): the tracks'
    /// whole-run extremes, and zoomed out the bins they are drawn from.
    pub fn show_counters(&mut self, a: CounterAnswer) {
        let known: Vec<(u32, f64, f64)> = a
            .series
            .clone()
            .filter_map(|s| a.stats_of(s).filter(|x| x.samples > 0).map(|x| (s, x.min, x.max)))
            .collect();
        self.counter_index.set_extremes(&known);
        if let Data::Exact { pane, .. } = &mut self.data {
            pane.set_counter_extremes(&known);
        }
        self.counters = Some(a);
    }

    /// Show the rows `o` says (filter, hidden, folded, compact) in the summary rows and the exact slice
    /// shown; Err (nothing changed) when no location would be shown.
    pub fn set_row_options(&mut self, o: TimelineOptions) -> Result<(), String> {
        let layout = rows_for_in(&self.skeleton, &self.order, &o, &self.opts, &self.lanes)?;
        if let Data::Exact { pane, .. } = &mut self.data {
            pane.set_row_options(o.clone())?;
        }
        self.layout = layout;
        self.place_counters();
        if o.colors != self.opts.colors {
            self.colors = crate::scene::groups::region_colors(&self.skeleton, &o.colors);
        }
        self.opts = o;
        self.place_rows();
        self.view.scroll_by(-self.view.scroll_y, &self.layout);
        self.hovered = None;
        self.sync();
        Ok(())
    }

    /// Place the rows for the row mode: normal heights, or compact (the lane height that fits the plot).
    fn place_rows(&mut self) {
        let metrics = if self.opts.compact {
            // The plot an exact slice has (above its overview strip), so the rows stay put when it comes.
            TimelineMetrics::compact(
                self.layout.total_lanes(),
                self.layout.min_row_lanes(),
                self.view.plot_bottom() - AXIS_PX - 4.0,
            )
        } else {
            TimelineMetrics::default()
        };
        if metrics != self.layout.metrics {
            self.layout.set_metrics(metrics);
        }
        self.place_counters();
        self.view.scroll_by(0.0, &self.layout);
    }

    /// A click in the label column at screen y: a process header (or, in compact rows or folded, a row's
    /// label) folds or unfolds its process (one with a single row stays as it is).
    fn fold_at(&mut self, y: f32) -> bool {
        let ly = y - AXIS_PX + self.view.scroll_y;
        let lay = &self.layout;
        let header = lay.header_at(ly).filter(|&h| {
            let hy = lay.headers[h].y;
            lay.metrics.process_header_px > 0.0 && ly < hy + lay.metrics.process_header_px
        });
        let process = match header {
            Some(h) => Some(lay.headers[h].process),
            None => lay.row_at(ly).map(|r| &lay.rows[r]).filter(|r| r.folded || lay.metrics.compact).map(|r| r.process),
        };
        let Some(p) = process else { return false };
        let folded = self.opts.folded.contains(p.0);
        let rows = lay.headers.iter().find(|h| h.process == p).map_or(0, |h| h.rows);
        if !folded && rows < 2 {
            return false;
        }
        self.set_folded(p.0, !folded)
    }

    /// The rows of `t` (a slice of the store) for the rows shown.
    fn rows_of(&self, t: &Trace) -> TimelineLayout {
        rows_for_in(t, &self.order, &self.opts, &self.opts, &self.lanes)
            .unwrap_or_else(|_| rows_of(t, &self.order, &self.lanes))
    }

    /// The exact slice's pane, when one is shown (the page's message and profile panels ask it).
    pub fn exact_pane_mut(&mut self) -> Option<&mut TimelinePane> {
        match &mut self.data {
            Data::Exact { pane, .. } => Some(pane),
            _ => None,
        }
    }

    fn exact(&self) -> Option<&TimelinePane> {
        match &self.data {
            Data::Exact { pane, .. } => Some(pane),
            _ => None,
        }
    }

    /// The locations of the rows on screen (by index range: the rows in between are asked for too).
    fn visible_locations(&self) -> Range<u32> {
        let rows = self.layout.rows_in(self.view.scroll_y, self.view.scroll_y + self.view.height - AXIS_PX);
        let locs = self.layout.rows[rows].iter().map(|r| r.location.0);
        let (lo, hi) = locs.fold((u32::MAX, 0), |(lo, hi), l| (lo.min(l), hi.max(l + 1)));
        if lo == u32::MAX {
            0..0
        } else {
            lo..hi
        }
    }

    /// The viewport to ask the worker for, when it differs from the one asked last; None when unchanged.
    /// An exact answer held is drawn for any view inside it at its scale or finer ([`StorePane::covers`]):
    /// nothing is asked for then.
    pub fn request(&mut self) -> Option<Viewport> {
        let vp = Viewport {
            t0_ns: self.view.t0_ns,
            t1_ns: self.view.t1_ns,
            locations: self.visible_locations(),
            width_px: self.view.track_width(),
            series: self.visible_series(),
        };
        // With the diagnosis drawn, a view the overlay held does not cover is asked for even where the answer
        // held covers it (the worker answers both together).
        let overlay_ok = self.overlay_covers(&vp);
        let held = self.grids.iter().rposition(|h| h.vp == vp);
        if let Some(k) = held {
            // Asked before and answered from a pyramid level: that answer is the view's (issue #58).
            let h = &self.grids[k];
            if !matches!(&self.data, Data::Grid(g) if Rc::ptr_eq(g, &h.grid)) {
                let (grid, counters) = (h.grid.clone(), h.counters.clone());
                self.show_grid_rc(grid, Vec::new());
                self.counters = counters;
            }
        }
        if (held.is_some() || self.covers(&vp)) && overlay_ok {
            // Drawn from the answer held: the asks still being answered are for views left, and their answers
            // would replace what covers this view (the view asked again after they came: issue #58); except
            // where it is the last ask's own first part (its window without the margin): the second part
            // (with the margin) holds all the first does.
            let own = held.is_none() && matches!(&self.data, Data::Exact { ask: Some(a), .. } if *a == self.asks);
            if !own && self.asked.take().is_some() {
                self.wanted_from = self.asks + 1;
                self.building = None;
            }
            return None;
        }
        if self.asked.as_ref() == Some(&vp) {
            return None;
        }
        self.asked = Some(vp.clone());
        self.asks += 1;
        self.recent_asks.push((self.asks, vp.clone()));
        if self.recent_asks.len() > RECENT_ASKS {
            self.recent_asks.remove(0);
        }
        Some(vp)
    }

    /// The held grid drawn where the answer shown covers under half of the view's window (zoomed or panned
    /// out of it, its answer on the way): the finest grid held that covers nine tenths of the window or more,
    /// stretched or cut to the view (issue #58: something of the new view drawn in the frame of the move).
    fn backdrop(&self) -> Option<&SummaryGrid> {
        let span = self.skeleton.span_ns;
        let (a, b) = (self.view.t0_ns.clamp(0.0, span as f64), self.view.t1_ns.clamp(0.0, span as f64));
        let window = |g: &SummaryGrid| match g.bins() {
            0 => (0.0, 0.0),
            n => (g.bin_time(0, span).0 as f64, g.bin_time(n - 1, span).1 as f64),
        };
        let overlap = |(c0, c1): (f64, f64)| (c1.min(b) - c0.max(a)).max(0.0);
        let shown = match &self.data {
            Data::Exact { t0, t1, .. } => (*t0 as f64, *t1 as f64),
            Data::Grid(g) => window(g),
            Data::None => (0.0, 0.0),
        };
        if b <= a || overlap(shown) >= 0.5 * (b - a) {
            return None;
        }
        let covering = self.grids.iter().filter(|h| overlap(window(&h.grid)) >= 0.9 * (b - a));
        covering.min_by_key(|h| h.grid.bin_ns).map(|h| &*h.grid)
    }

    /// The number of the last ask [`StorePane::request`] made (1 for the first), which the page sends with it
    /// and the worker's answer carries back.
    pub fn asks(&self) -> u32 {
        self.asks
    }

    /// Whether the answer to ask number `ask` is still wanted: not when a view was drawn since from the exact
    /// answer held (it answers a view left; the page drops it).
    pub fn wants(&self, ask: u32) -> bool {
        ask >= self.wanted_from
    }

    /// Whether the exact answer shown holds all `vp` draws: its window (clamped to the run) inside the
    /// answer's, its rows and counter series among those answered, and its scale no coarser than the one the
    /// answer was asked at (so the worker would answer it exactly too, not from a pyramid level).
    pub fn covers(&self, vp: &Viewport) -> bool {
        let Data::Exact { t0, t1, locations, ns_per_px, .. } = &self.data else { return false };
        let span = self.skeleton.span_ns as f64;
        let (a, b) = (vp.t0_ns.clamp(0.0, span), vp.t1_ns.clamp(0.0, span));
        let scale = (vp.t1_ns - vp.t0_ns) / vp.width_px.max(1.0) as f64;
        let rows =
            vp.locations.is_empty() || (locations.start <= vp.locations.start && vp.locations.end <= locations.end);
        let series = vp.series.is_empty()
            || self
                .counters
                .as_ref()
                .is_some_and(|c| c.series.start <= vp.series.start && vp.series.end <= c.series.end);
        // Within a nanosecond: the answer's window is the asked one in whole ns.
        a + 1.0 >= *t0 as f64 && b <= *t1 as f64 + 1.0 && rows && series && scale <= ns_per_px * (1.0 + 1e-9)
    }

    /// The scale (ns a pixel) of the view the exact answer being received was asked for; by default the view's
    /// at the time it is received.
    pub fn exact_asked_at(&mut self, ns_per_px: f64) {
        if let Some(b) = &mut self.building {
            b.ns_per_px = ns_per_px;
        }
    }

    /// The number of the ask ([`StorePane::asks`]) the exact answer being received answers.
    pub fn exact_answers(&mut self, ask: u32) {
        if let Some(b) = &mut self.building {
            b.ask = Some(ask);
        }
    }

    /// The worker's summary grid for a viewport: drawn from now on (an exact answer being built is dropped:
    /// this one is newer).
    pub fn show_grid(&mut self, grid: SummaryGrid, errors: Vec<String>) {
        self.show_grid_rc(Rc::new(grid), errors);
    }

    /// [`StorePane::show_grid`] of the answer to ask number `ask` ([`StorePane::asks`]): kept, when complete,
    /// with that ask's viewport (and the counter tracks' answer taken before it), so the view asked again is
    /// drawn from it without asking, and views reaching past the answer shown are drawn from it meanwhile.
    pub fn show_grid_for(&mut self, ask: u32, grid: SummaryGrid, errors: Vec<String>) {
        let grid = Rc::new(grid);
        let vp = self.recent_asks.iter().find(|(n, _)| *n == ask).map(|(_, vp)| vp.clone());
        if let Some(vp) = vp.filter(|_| grid.missing.is_empty() && errors.is_empty()) {
            self.grids.retain(|h| h.vp != vp);
            self.grids.push(HeldGrid { vp, grid: grid.clone(), counters: self.counters.clone() });
            if self.grids.len() > HELD_GRIDS {
                self.grids.remove(0);
            }
        }
        self.show_grid_rc(grid, errors);
    }

    fn show_grid_rc(&mut self, grid: Rc<SummaryGrid>, errors: Vec<String>) {
        self.building = None;
        self.indexing = false;
        self.data = Data::Grid(grid);
        self.errors = errors;
        self.hovered = None;
    }

    /// The worker's exact records reaching into [t0, t1] of `locations` (a slice with the store's
    /// definitions, times from the store's origin): drawn from now on.
    /// At once, as the steps of [`StorePane::receive_exact`] would (tests, the CLI).
    pub fn show_exact(&mut self, slice: Trace, t0: u64, t1: u64, locations: Range<u32>, errors: Vec<String>) {
        self.building = None;
        self.indexing = false;
        let slice = Rc::new(slice);
        let layout = self.rows_of(&slice);
        let overview = crate::scene::timeline::Overview::new(&slice, &region_colors(&slice));
        let pane = TimelinePane::with_layout(slice, self.view.width, self.view.height, layout, overview);
        let ns_per_px = self.view.ns_per_px();
        self.show_pane(Box::new(pane), t0, t1, locations, errors, ns_per_px);
    }

    fn show_pane(
        &mut self,
        mut pane: Box<TimelinePane>,
        t0: u64,
        t1: u64,
        locations: Range<u32>,
        errors: Vec<String>,
        ns_per_px: f64,
    ) {
        pane.laid_out_for(self.opts.clone(), self.lanes.clone());
        pane.set_counter_extremes(&self.counter_extremes());
        for (s, &hidden) in self.counter_hidden.iter().enumerate() {
            if hidden {
                pane.set_counter_shown(s as u32, false);
            }
        }
        self.data = Data::Exact { pane, t0, t1, locations, ns_per_px, ask: None };
        self.apply_call_marks();
        self.errors = errors;
        self.hovered = None;
        self.sync();
    }

    /// The worker's exact answer (`bytes`: the slice encoded by `model::codec`) for [t0, t1] of `locations`,
    /// made drawable by [`StorePane::step`]; what is drawn now stays until then. Replaces an answer still
    /// being built (this one is newer).
    pub fn receive_exact(&mut self, bytes: Vec<u8>, t0: u64, t1: u64, locations: Range<u32>, errors: Vec<String>) {
        let stage = Stage::Decode(codec::Decoding::over(&self.skeleton));
        let ns_per_px = self.view.ns_per_px();
        let (columns, ask) = (None, None);
        self.building = Some(Box::new(Building { bytes, columns, t0, t1, locations, errors, ns_per_px, ask, stage }));
    }

    /// The store worker's exact answer as it sends it (`store::query::ExactSlice::columns`): `rest`, the slice
    /// without its intervals (`model::codec`), and `intervals` intervals of the locations `runs` says
    /// (`slice_columns::location_runs`), whose columns come by [`StorePane::receive_column`], each copied as
    /// it is (no varint decode); then made drawable by [`StorePane::step`]. What is drawn now stays until
    /// then. Err where the runs are not those of `intervals` intervals of the store's locations (nothing
    /// changes).
    #[allow(clippy::too_many_arguments)]
    pub fn begin_exact_columns(
        &mut self,
        rest: Vec<u8>,
        runs: &[u32],
        intervals: usize,
        t0: u64,
        t1: u64,
        locations: Range<u32>,
        errors: Vec<String>,
    ) -> Result<(), String> {
        let (nl, nr) = (self.skeleton.locations.len(), self.skeleton.regions.len());
        let columns = IntervalColumns::new(runs, intervals, nl, nr).map_err(|e| e.to_string())?;
        self.receive_exact(rest, t0, t1, locations, errors);
        if let Some(b) = &mut self.building {
            b.columns = Some(columns);
        }
        Ok(())
    }

    /// Interval column `k` (`slice_columns::INTERVAL_COLUMNS`) of the answer begun by
    /// [`StorePane::begin_exact_columns`]: its values' bytes. Err (the answer dropped) where they are not.
    pub fn receive_column(&mut self, k: usize, bytes: &[u8]) -> Result<(), String> {
        let b = self.building.as_mut().ok_or("no exact answer is being received")?;
        let c = b.columns.as_mut().ok_or("this exact answer does not come as columns")?;
        c.put(k, bytes).map_err(|e| {
            self.building = None;
            format!("interval column {k}: {e}")
        })
    }

    /// The step [`StorePane::step`] takes next, for the page's timings of an answer's apply (BENCHMARKS.md
    /// "Session 40"): "decode", "layout", "overview", "lanes" (the answer is drawn, its messages' lanes
    /// being indexed), or "" when there is nothing to do.
    pub fn stage(&self) -> &'static str {
        match self.building.as_deref().map(|b| &b.stage) {
            None if self.indexing => "lanes",
            None => "",
            Some(Stage::Decode(_)) => "decode",
            Some(Stage::Layout(_)) => "layout",
            Some(Stage::Overview(..)) => "overview",
        }
    }

    /// Whether an exact answer is being built.
    pub fn building(&self) -> bool {
        self.building.is_some()
    }

    /// One step of the exact answer being built (a part of its decode, the layout, a part of the overview),
    /// then, once it is drawn ([`StorePane::stage`] says "lanes"), of its messages' lanes; true when there is
    /// nothing left to do. An answer that does not decode is dropped with the error.
    pub fn step(&mut self) -> Result<bool, String> {
        let Some(mut b) = self.building.take() else {
            if self.indexing {
                let done = self.exact_pane_mut().is_none_or(|p| p.index_message_lanes(MESSAGE_LANES_STEP));
                self.indexing = !done;
            }
            return Ok(!self.indexing);
        };
        if b.columns.as_ref().is_some_and(|c| !c.complete()) {
            return Err("the exact answer's interval columns did not all come".into());
        }
        b.stage = match b.stage {
            Stage::Decode(mut d) => match d.step(&b.bytes).map_err(|e| e.to_string())? {
                Some(t) => {
                    b.bytes = Vec::new();
                    let t = match b.columns.take() {
                        Some(c) => c.with_rest(t).map_err(|e| e.to_string())?,
                        None => t,
                    };
                    Stage::Layout(Rc::new(t))
                }
                None => Stage::Decode(d),
            },
            Stage::Layout(t) => {
                let layout = self.rows_of(&t);
                let overview = OverviewBuild::new(&t);
                Stage::Overview(t, layout, overview)
            }
            Stage::Overview(t, layout, mut o) => {
                if o.step(&t, OVERVIEW_STEP) {
                    // Drawn now; the messages' lanes are indexed in the steps after (issue #58: the answer
                    // for the view first, the rest after).
                    let overview = o.finish(&region_colors(&t));
                    let (w, h) = (self.view.width, self.view.height);
                    let pane = Box::new(TimelinePane::with_layout(t, w, h, layout, overview));
                    let Building { t0, t1, locations, errors, ns_per_px, ask, .. } = *b;
                    self.show_pane(pane, t0, t1, locations, errors, ns_per_px);
                    if let Data::Exact { ask: shown, .. } = &mut self.data {
                        *shown = ask;
                    }
                    self.indexing = true;
                    return Ok(false);
                }
                Stage::Overview(t, layout, o)
            }
        };
        self.building = Some(b);
        Ok(false)
    }

    /// The exact pane follows this view's time range, size and scroll.
    fn sync(&mut self) {
        let (v, scroll) = (self.view, self.view.scroll_y);
        if let Data::Exact { pane, .. } = &mut self.data {
            pane.resize(v.width, v.height);
            pane.set_time_range(v.t0_ns, v.t1_ns);
            pane.restore(&json!({ "scroll_y": scroll }));
        }
    }

    /// Per visible row, per pixel column: (x0, x1, busy share, compute share (busy outside communication
    /// and synchronization), dominant region + 1, first and last bin).
    fn columns(&self, grid: &SummaryGrid, row: usize) -> Vec<Column> {
        let bins = &grid.rows[row];
        let span = self.skeleton.span_ns;
        let x_left = self.view.track_x0();
        let mut out: Vec<Column> = Vec::new();
        let mut best = 0u64;
        for k in 0..bins.len() {
            let (a, b) = grid.bin_time(k, span);
            let (x0, x1) = (self.view.x_of(a as f64).max(x_left), self.view.x_of(b as f64).min(self.view.width));
            if x1 <= x0 || b <= a {
                continue;
            }
            let share = bins.busy_any_ns[k] as f64 / (b - a) as f64;
            let compute = (bins.busy_compute_ns[k] as f64 / (b - a) as f64).min(share);
            match out.last_mut() {
                // Bins in the same pixel column merge: the busiest share, the region with the most time.
                Some(c) if x0.floor() <= c.0.floor() => {
                    c.1 = c.1.max(x1);
                    if share > c.2 {
                        (c.2, c.3) = (share, compute);
                    }
                    if bins.dominant_ns[k] > best {
                        best = bins.dominant_ns[k];
                        c.4 = bins.dominant_region[k];
                    }
                    c.6 = k;
                }
                _ => {
                    best = bins.dominant_ns[k];
                    out.push((x0, x1.max(x0 + 1.0), share, compute, bins.dominant_region[k], k, k));
                }
            }
        }
        out
    }

    /// Lane `d` of a visible row per pixel column: (x0, x1, region + 1, cover), bins in one pixel column
    /// merged (the most covered bin's region, its cover), equal neighbours merged into runs.
    fn lane_columns(&self, grid: &SummaryGrid, row: usize, d: usize) -> Vec<(f32, f32, u32, u8)> {
        let bins = &grid.rows[row];
        let span = self.skeleton.span_ns;
        let x_left = self.view.track_x0();
        let mut out: Vec<(f32, f32, u32, u8)> = Vec::new();
        let mut open = false; // the last entry is a pixel column still taking bins
        for k in 0..bins.len() {
            let (region, cover) = bins.lane(d, k);
            let (a, b) = grid.bin_time(k, span);
            let (x0, x1) = (self.view.x_of(a as f64).max(x_left), self.view.x_of(b as f64).min(self.view.width));
            if x1 <= x0 || b <= a {
                continue;
            }
            match out.last_mut() {
                Some(c) if open && x0.floor() <= c.0.floor() => {
                    c.1 = c.1.max(x1);
                    if cover > c.3 {
                        (c.2, c.3) = (region, cover);
                    }
                }
                Some(c) if c.2 == region && c.3 == cover && x0 <= c.1 + 1.0 => {
                    c.1 = c.1.max(x1);
                    open = x1 - x0 < 1.0;
                }
                _ => {
                    out.push((x0, x1.max(x0 + 1.0), region, cover));
                    open = x1 - x0 < 1.0;
                }
            }
        }
        out.retain(|c| c.3 > 0);
        out
    }

    fn grid_scene(&self, grid: &SummaryGrid) -> Scene {
        let v = &self.view;
        let lay = &self.layout;
        let mut sc = Scene::new(v.width, v.height, palette::BACKGROUND);
        let rows = lay.rows_in(v.scroll_y, v.scroll_y + v.height - AXIS_PX);
        // The rows' labels, backgrounds and process headers as a trace's timeline draws them.
        let chrome = TimelineScene { trace: &self.skeleton, layout: lay, colors: &self.colors };
        sc.decorate(|sc| chrome.rows_chrome(sc, v, v.height));
        let grey = rgba(0x9a, 0xa1, 0xab, 0xff);
        let color = |dom: u32| if dom > 0 { self.colors[dom as usize - 1] } else { grey };
        // Rows under two pixels tall (compact rows of many locations) share pixel lines: per line and pixel
        // column the busiest share, coloured by the region with the most time there.
        let columns = (v.width.ceil() as usize).max(1);
        let mut line: Option<i64> = None;
        let mut cells: Vec<(f64, u64, u32)> = vec![(0.0, 0, 0); columns];
        let flush = |sc: &mut Scene, line: i64, cells: &mut [(f64, u64, u32)]| {
            let mut c = 0;
            while c < cells.len() {
                let (share, _, dom) = cells[c];
                if share <= 0.0 {
                    c += 1;
                    continue;
                }
                let run = cells[c..].iter().take_while(|x| x.0 > 0.0 && x.2 == dom).count();
                let alpha = (0.35 + 0.65 * share.min(1.0)) as f32;
                let fill = with_alpha(color(dom), alpha);
                sc.rects.push(RectInstance::filled(c as f32, line as f32, run as f32, 1.0, fill));
                c += run;
            }
            cells.fill((0.0, 0, 0));
        };
        for r in rows {
            let row = &lay.rows[r];
            let Some(g) = row.location.0.checked_sub(grid.first_location).filter(|&g| (g as usize) < grid.rows.len())
            else {
                continue;
            };
            let y = v.y_of(row.y);
            // The bar fills the row's lanes (the pyramid has no depths): its height is the busy share.
            let height = lay.row_height(row);
            let bins = &grid.rows[g as usize];
            if height < 2.0 {
                let l = y.floor() as i64;
                if let Some(prev) = line.filter(|&p| p != l) {
                    flush(&mut sc, prev, &mut cells);
                }
                line = Some(l);
                for (x0, x1, share, _, dom, k0, k1) in self.columns(grid, g as usize) {
                    let ns = (k0..=k1).map(|k| bins.dominant_ns[k]).max().unwrap_or(0);
                    for cell in &mut cells[(x0.max(0.0) as usize).min(columns)..(x1.ceil() as usize).min(columns)] {
                        cell.0 = cell.0.max(share);
                        if ns > cell.1 {
                            (cell.1, cell.2) = (ns, dom);
                        }
                    }
                }
                continue;
            }
            // A store of format 3 keeps each lane's busiest region and cover: the row is drawn lane by lane
            // as its exact intervals are, a lane's opacity its cover of the pixel.
            let lanes = (bins.lanes as usize).min(row.lanes as usize);
            if lanes > 0 {
                let lane = lay.metrics.lane_px;
                let (pad, rect_h) = if lane >= 6.0 { (1.0, lane - 2.0) } else { (0.0, lane.max(1.0)) };
                for d in 0..lanes {
                    let y = y + d as f32 * lane;
                    if y + lane < AXIS_PX || y > v.height {
                        continue;
                    }
                    for (x0, x1, region, cover) in self.lane_columns(grid, g as usize, d) {
                        let c = color(region);
                        let alpha = 0.3 + 0.7 * cover as f32 / pyramid::FULL_COVER as f32;
                        sc.rects.push(RectInstance::filled(x0, y + pad, x1 - x0, rect_h, with_alpha(c, alpha)));
                        if x1 - x0 > 36.0 && lane >= 12.0 && cover >= pyramid::FULL_COVER - 5 && region > 0 {
                            let name = self.skeleton.region_name(weft_model::RegionId(region - 1));
                            let label = Label::new(x0 + 4.0, y + lane / 2.0, name, palette::text_on(c), 11.0);
                            sc.labels.push(label.clipped(x1 - x0 - 8.0));
                        }
                    }
                }
                if let Some((_, k)) = self.hovered.filter(|&(hr, _)| hr == r) {
                    let cols = self.columns(grid, g as usize);
                    if let Some(&(x0, x1, ..)) = cols.iter().find(|c| c.5 <= k && k <= c.6) {
                        let rect = RectInstance::filled(x0, y, x1 - x0, height, 0).with_border(palette::HIGHLIGHT, 1.5);
                        sc.rects.push(rect);
                    }
                }
                continue;
            }
            // From the bottom: the compute share in the colour of the region with the most time, then the
            // share in communication and synchronization (MPI calls, barriers, waits) in red above it.
            for (x0, x1, share, compute, dom, k0, _) in self.columns(grid, g as usize) {
                if share <= 0.0 {
                    continue;
                }
                let full = height - 2.0;
                let h = full * share.min(1.0) as f32;
                let hc = full * compute.min(1.0) as f32;
                let hot = self.hovered == Some((r, k0));
                let (top, w) = (y + height - 1.0 - h, x1 - x0);
                if h - hc >= 0.5 {
                    sc.rects.push(RectInstance::filled(x0, top, w, h - hc, COMMUNICATION));
                }
                if hc >= 0.5 || h - hc < 0.5 {
                    let rect = RectInstance::filled(x0, y + height - 1.0 - hc.max(1.0), w, hc.max(1.0), color(dom));
                    sc.rects.push(rect);
                }
                if hot {
                    let rect = RectInstance::filled(x0, top, w, h.max(1.0), 0).with_border(palette::HIGHLIGHT, 1.5);
                    sc.rects.push(rect);
                }
            }
        }
        if let Some(l) = line {
            flush(&mut sc, l, &mut cells);
        }
        self.draw_counters(&mut sc);
        self.axis(&mut sc);
        if sc.marks() == 0 {
            let (x, w, h) = (v.track_x0(), (v.width - v.track_x0()).max(1.0), (v.height - AXIS_PX).max(1.0));
            let why = if self.in_flight > 0 { "Tiles are on their way." } else { "Nothing is busy here." };
            sc.add_notice(x, AXIS_PX, w, h, &[why, "Zoom, pan or press F to fit."]);
        }
        sc
    }

    /// The counter tracks zoomed out: each track's bins of the last counter answer.
    fn draw_counters(&self, sc: &mut Scene) {
        let cs = CounterScene { trace: &self.skeleton, index: &self.counter_index, layout: &self.counter_layout };
        let span = self.skeleton.span_ns;
        cs.draw_with(sc, &self.view, |sc, series, top| {
            let Some(a) = &self.counters else { return };
            if let Some(bins) = a.bins_of(series) {
                cs.draw_bins(sc, &self.view, series, top, bins, |k| a.bin_time(k, span), span);
            }
        });
    }

    /// The hover of a counter track zoomed out: the bins in the pixel column under the pointer.
    fn counter_hover(&self, x: f32, y: f32) -> Option<Hover> {
        let a = self.counters.as_ref()?;
        if x < self.view.track_x0() || y < AXIS_PX {
            return None;
        }
        let k = self.counter_layout.track_at(y - AXIS_PX + self.view.scroll_y)?;
        let series = self.counter_layout.tracks[k].series;
        let bins = a.bins_of(series)?;
        let span = self.skeleton.span_ns;
        let col = (x - self.view.track_x0()).floor();
        let (c0, c1) = (self.view.t_of(self.view.track_x0() + col), self.view.t_of(self.view.track_x0() + col + 1.0));
        let t = self.view.t_of(x);
        if t > span as f64 {
            return None;
        }
        // The bins starting in the pixel column; the value in effect at the pointer is the last bin's
        // last value at or before it.
        let in_col: Vec<usize> = (0..bins.count.len())
            .filter(|&k| {
                let a0 = a.bin_time(k, span).0 as f64;
                a0 >= c0 && a0 < c1
            })
            .collect();
        let upto = (0..bins.count.len()).take_while(|&k| a.bin_time(k, span).0 as f64 <= t).last();
        let value = match upto {
            Some(k) => bins.in_effect_after(k),
            None => bins.before,
        };
        let count: u64 = in_col.iter().map(|&k| bins.count[k]).sum();
        let full = in_col.iter().filter(|&&k| bins.count[k] > 0);
        let (lo, hi) =
            full.fold((f64::INFINITY, f64::NEG_INFINITY), |m, &k| (m.0.min(bins.min[k]), m.1.max(bins.max[k])));
        let sk = &self.skeleton;
        let c = &sk.counters;
        let s = series as usize;
        let precision = self.view.ns_per_px();
        let mut lines = vec![sk.process_name(c.series_process[s]).to_string()];
        match value {
            Some(v) => lines.push(format!("{}   in effect at {}", format_exact(v), format_time(t, precision))),
            None => lines.push(format!("no sample by {}", format_time(t, precision))),
        }
        if count > 0 {
            let range = if lo <= hi {
                let (lo, hi) = format_extremes(lo, hi);
                format!(": min {lo}, max {hi}")
            } else {
                String::new()
            };
            lines.push(format!("{count} samples in this pixel{range}"));
        }
        lines.push(format!("(level {} bins of {})", a.level, format_duration(a.bin_ns)));
        Some(Hover {
            title: sk.str(c.series_name[s]).to_string(),
            lines,
            detail: json!({
                "counter": series, "level": a.level, "value": value, "column_samples": count,
                "column_min": (lo <= hi).then_some(lo), "column_max": (lo <= hi).then_some(hi),
            }),
        })
    }

    fn axis(&self, sc: &mut Scene) {
        let v = &self.view;
        let x_left = v.track_x0();
        sc.decorate(|sc| {
            sc.rects.push(RectInstance::filled(0.0, 0.0, v.width, AXIS_PX, rgba(0xfa, 0xfb, 0xfc, 0xff)));
            sc.lines.push(LineInstance::solid(0.0, AXIS_PX - 0.5, v.width, AXIS_PX - 0.5, 1.0, palette::GRID));
            sc.lines.push(LineInstance::solid(x_left - 0.5, 0.0, x_left - 0.5, v.height, 1.0, palette::GRID));
            let step = nice_step_ns(v.ns_per_px() * 110.0);
            let mut tick = (v.t0_ns.max(0.0) / step).floor() * step;
            while tick <= v.t1_ns {
                let x = v.x_of(tick);
                if x >= x_left {
                    sc.lines.push(LineInstance::solid(x, AXIS_PX - 8.0, x, AXIS_PX, 1.0, palette::TEXT_MUTED));
                    let label =
                        Label::new(x + 3.0, AXIS_PX / 2.0 - 2.0, format_time(tick, step), palette::TEXT_MUTED, 11.0);
                    sc.labels.push(label);
                }
                tick += step;
            }
        });
    }

    /// What is drawn now: "exact", "level N" or "none".
    pub fn shown(&self) -> String {
        match &self.data {
            Data::None => "none".into(),
            Data::Grid(g) => format!("level {}", g.level),
            Data::Exact { .. } => "exact".into(),
        }
    }

    fn grid_hover(&mut self, x: f32, y: f32) -> Option<Hover> {
        let Data::Grid(grid) = &self.data else { return None };
        if x < self.view.track_x0() || y < AXIS_PX {
            return None;
        }
        let r = self.layout.row_at(y - AXIS_PX + self.view.scroll_y)?;
        let row = &self.layout.rows[r];
        let g = row.location.0.checked_sub(grid.first_location).filter(|&g| (g as usize) < grid.rows.len())? as usize;
        let cols = self.columns(grid, g);
        let &(_, _, _, _, _, k0, k1) = cols.iter().find(|c| x >= c.0.floor() && x < c.1.max(c.0 + 1.0))?;
        let bins = &grid.rows[g];
        let span = self.skeleton.span_ns;
        let (a, b) = (grid.bin_time(k0, span).0, grid.bin_time(k1, span).1);
        let sum = |v: &[u64]| v[k0..=k1].iter().sum::<u64>();
        let (compute, any) = (sum(&bins.busy_compute_ns), sum(&bins.busy_any_ns));
        let dom = (k0..=k1).max_by_key(|&k| bins.dominant_ns[k]).map_or(0, |k| bins.dominant_region[k]);
        let t = &self.skeleton;
        let region = if dom > 0 { t.region_name(weft_model::RegionId(dom - 1)).to_string() } else { "(idle)".into() };
        let pct = |ns: u64| 100.0 * ns as f64 / (b - a).max(1) as f64;
        let loc = row.location;
        // The lane under the pointer, where the store keeps lanes: its busiest region over these bins.
        let d = ((y - AXIS_PX + self.view.scroll_y - row.y) / self.layout.metrics.lane_px).max(0.0) as usize;
        let lane = (d < (bins.lanes as usize).min(row.lanes as usize))
            .then(|| (k0..=k1).map(|k| bins.lane(d, k)).max_by_key(|&(_, c)| c).unwrap_or((0, 0)));
        let mut title = format!("{region} (most time)");
        let mut lines = vec![
            format!("{} · {}", t.process_name(t.locations.process[loc.index()]), t.location_name(loc)),
            format!("{} to {} (level {} bins)", format_duration(a), format_duration(b), grid.level),
            format!("busy {:.1}% (compute {:.1}%)", pct(any), pct(compute)),
            format!("{} events · {} messages", sum(&bins.events), sum(&bins.messages)),
        ];
        if let Some((lr, cover)) = lane.filter(|&(lr, _)| lr > 0) {
            let name = t.region_name(weft_model::RegionId(lr - 1));
            title = format!("{name} (depth {d})");
            let share = 100.0 * cover as f64 / pyramid::FULL_COVER as f64;
            lines.insert(1, format!("depth {d} covers {share:.0}% of its bin; most exclusive time: {region}"));
        }
        let hover = Hover {
            title,
            lines,
            detail: json!({
                "level": grid.level, "location": loc.0, "start_ns": a, "end_ns": b,
                "busy_any_ns": any, "busy_compute_ns": compute, "dominant_region": dom.checked_sub(1),
                "events": sum(&bins.events), "messages": sum(&bins.messages),
                "depth": lane.map(|_| d), "lane_region": lane.and_then(|(lr, _)| lr.checked_sub(1)),
                "lane_cover": lane.map(|(_, c)| c as f64 / pyramid::FULL_COVER as f64),
            }),
        };
        self.hovered = Some((r, k0));
        Some(hover)
    }
}

impl Pane for StorePane {
    fn kind(&self) -> &'static str {
        "timeline"
    }
    fn resize(&mut self, width: f32, height: f32) {
        self.view.width = width;
        self.view.height = height;
        self.place_rows();
        self.sync();
    }
    fn options(&self) -> serde_json::Value {
        self.opts.describe()
    }
    fn click(&mut self, x: f32, y: f32) -> bool {
        self.rows_click(x, y)
    }
    fn configure(&mut self, key: &str, value: &str) -> Result<(), String> {
        let mut o = self.opts.clone();
        o.parse(key, value).map_err(|e| e.to_string())?;
        self.set_row_options(o)
    }
    fn zoom(&mut self, x: f32, factor: f64) {
        self.view.zoom_at(x, factor, self.skeleton.span_ns);
        self.sync();
    }
    fn pan(&mut self, dx: f32) {
        self.view.pan_px(dx, self.skeleton.span_ns);
        self.sync();
    }
    fn scroll(&mut self, dy: f32) {
        self.view.scroll_by(dy, &self.layout);
        self.sync();
    }
    fn fit(&mut self) {
        let scroll = self.view.scroll_y;
        self.view =
            TimelineView { scroll_y: scroll, ..TimelineView::fit(&self.skeleton, self.view.width, self.view.height) };
        self.sync();
    }
    fn hover(&mut self, x: f32, y: f32) -> Option<Hover> {
        if let Some(h) = self.note_hover(x, y) {
            self.hovered = None;
            return Some(h);
        }
        if let Data::Exact { pane, .. } = &mut self.data {
            return pane.hover(x, y);
        }
        self.hovered = None;
        self.grid_hover(x, y).or_else(|| self.counter_hover(x, y))
    }
    fn clear_hover(&mut self) {
        self.hovered = None;
        if let Data::Exact { pane, .. } = &mut self.data {
            pane.clear_hover();
        }
    }
    fn scene(&self) -> Scene {
        let mut sc = match (&self.data, self.backdrop()) {
            (_, Some(g)) => self.grid_scene(g),
            (Data::Exact { pane, .. }, None) => pane.scene(),
            (Data::Grid(g), None) => self.grid_scene(g),
            (Data::None, None) => self.grid_scene(&SummaryGrid::default()),
        };
        self.draw_diagnosis(&mut sc);
        self.draw_notes(&mut sc);
        if !self.errors.is_empty() {
            let text = format!("Some tiles could not be read (the rest is drawn): {}", self.errors.join("; "));
            sc.add_banner(false, &text, rgba(0xfd, 0xec, 0xc8, 0xf0));
        }
        sc
    }
    fn brief(&self) -> serde_json::Value {
        let mut s = match self.exact() {
            Some(p) => p.brief(),
            None => json!({
                "view": "timeline", "t0_ns": self.view.t0_ns, "t1_ns": self.view.t1_ns,
                "scroll_y": self.view.scroll_y, "width": self.view.width, "height": self.view.height,
                "track_x0": self.view.track_x0(), "axis_px": AXIS_PX,
                "lane_px": self.layout.metrics.lane_px, "span_ns": self.skeleton.span_ns,
                "row_count": self.layout.rows.len(),
                "first_row_name": self.layout.rows.first().map(|r| self.skeleton.location_name(r.location)),
                "locations": self.opts.locations, "compact": self.opts.compact,
            }),
        };
        let covered = match &self.data {
            Data::Exact { t0, t1, locations, .. } => {
                json!({ "t0_ns": t0, "t1_ns": t1, "locations": [locations.start, locations.end] })
            }
            Data::Grid(g) => json!({ "first_bin": g.first_bin, "bins": g.bins(), "bin_ns": g.bin_ns,
                "locations": [g.first_location, g.first_location + g.rows.len() as u32] }),
            Data::None => serde_json::Value::Null,
        };
        if let Some(o) = s.as_object_mut() {
            o.insert(
                "store".into(),
                json!({ "shown": self.shown(), "in_flight": self.in_flight, "errors": self.errors, "covered": covered,
                    "backdrop": self.backdrop().map(|g| g.level), "diagnosis": self.diagnosis_brief(),
                    "call_path_keys": self.call_path_keys() }),
            );
        }
        s
    }
    fn state(&self) -> serde_json::Value {
        let contents = match self.exact() {
            Some(p) => p.state(),
            None => {
                let (rows, from) = rows_state(&self.skeleton, &self.layout, &self.view);
                json!({
                    "rows": rows, "rows_from": from,
                    "hidden": self.opts.hidden.to_text(), "folded": self.opts.folded.to_text(),
                    "counters": self.counter_tracks(),
                })
            }
        };
        super::with_contents(self.brief(), contents)
    }
    fn time_range(&self) -> Option<(f64, f64)> {
        Some((self.view.t0_ns, self.view.t1_ns))
    }
    fn set_time_range(&mut self, t0_ns: f64, t1_ns: f64) {
        if t0_ns.is_finite() && t1_ns.is_finite() && t1_ns > t0_ns {
            self.view.t0_ns = t0_ns;
            self.view.t1_ns = t1_ns;
            self.view.clamp_time(self.skeleton.span_ns);
            self.sync();
        }
    }
    fn restore(&mut self, s: &serde_json::Value) {
        if let (Some(t0), Some(t1)) = (num(s, "t0_ns"), num(s, "t1_ns")) {
            self.set_time_range(t0, t1);
        }
        if let Some(y) = num(s, "scroll_y") {
            self.view.scroll_by(y as f32 - self.view.scroll_y, &self.layout);
            self.sync();
        }
    }
    fn as_store(&mut self) -> Option<&mut StorePane> {
        Some(self)
    }
}

/// The rows panel on a store's timeline: the same list, hiding and folding as on a trace's, for the summary
/// rows and the exact slice alike; the overview strip is the exact slice's (none zoomed out).
impl Rows for StorePane {
    fn location_list(&self, filter: &str, from: usize, count: usize) -> serde_json::Value {
        location_list(&self.skeleton, &self.layout, &self.opts, filter, from, count)
    }
    fn set_hidden(&mut self, location: u32, hidden: bool) -> bool {
        if location as usize >= self.skeleton.locations.len() {
            return false;
        }
        let mut o = self.opts.clone();
        o.hidden = o.hidden.with(location, hidden);
        o != self.opts && self.set_row_options(o).is_ok()
    }
    fn set_folded(&mut self, process: u32, folded: bool) -> bool {
        if process as usize >= self.skeleton.processes.len() {
            return false;
        }
        let mut o = self.opts.clone();
        o.folded = o.folded.with(process, folded);
        o != self.opts && self.set_row_options(o).is_ok()
    }
    fn on_overview(&self, x: f32, y: f32) -> bool {
        self.exact().is_some_and(|p| p.on_overview(x, y))
    }
    fn overview_go(&mut self, x: f32) -> bool {
        let Data::Exact { pane, .. } = &mut self.data else { return false };
        if !pane.overview_go(x) {
            return false;
        }
        let range = pane.time_range();
        if let Some((a, b)) = range {
            self.set_time_range(a, b);
        }
        true
    }
    fn rows_click(&mut self, x: f32, y: f32) -> bool {
        if self.on_overview(x, y) {
            return self.overview_go(x);
        }
        x < self.view.track_x0() && self.fold_at(y)
    }
}
