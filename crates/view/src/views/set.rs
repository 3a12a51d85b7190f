//! The views of what is loaded and which one is shown: what the page's view switcher offers for each input,
//! which pane a switch builds (on first use), the time range and the grain views' problem view kept across a
//! switch, and what an option change invalidates. The page's `Viewer` (crates/page/src/viewer.rs) owns one and adds
//! only the renderer, the canvases and the conversions to JavaScript; tests drive it natively. Must not read
//! a clock (the aggregated view gets the [`Clock`] given here) or know the page.
//!
//! A load from the worker's bytes can also run in steps ([`ViewSet::begin_grains`], [`ViewSet::begin_trace`],
//! then [`ViewSet::load_step`] until it returns false), so the page can yield to the browser between them and
//! no single main-thread task decodes and builds everything (issue 16). What is shown changes only at the
//! last step; the one-shot loads run the same steps.

use super::aggregate::AggregatePane;
use super::execgraph::ExecgraphPane;
use super::grains::GrainsPane;
use super::moments::MomentsPane;
use super::particles::ParticlesPane;
use super::timeline::TimelinePane;
use super::{Clock, Pane};
use crate::layouts::aggregate::AggregateView;
use crate::layouts::execgraph::bundle::ExecBundle;
use crate::layouts::grain_bundle::{BundleReading, GrainBundle};
use crate::layouts::grains::GrainLayout;
use crate::scene::grains::{aggregated_first_text, unreadable_when_fitted, EdgeReach, EdgeReachBuild};
use crate::scene::timeline::{region_colors, Overview, OverviewBuild};
use crate::scene::{palette, Scene};
use std::rc::Rc;
use weft_analyses::aggregate::bundle::AggregationReading;
use weft_analyses::aggregate::Aggregation;
use weft_analyses::grains::{GrainAnalysis, Thresholds};
use weft_analyses::moments_bundle::MomentsBundle;
use weft_analyses::particles::{EventSelection, ParticleBuild, ParticleEvents};
use weft_model::{codec, Trace};

/// Intervals of a trace above which [`ViewSet::begin_view`] builds the particle index in steps: more than one
/// step's chunk (a generated 2,000-rank trace's 158 k intervals took one 41 ms task built at once, its events'
/// columns filled in time order from intervals held by location).
pub const STEPPED_PARTICLES_INTERVALS: usize = PARTICLE_CHUNK;
/// Intervals keyed (and sorted) per step of the particle index, and half as many events filled (`ParticleBuild`):
/// a few ms in the page's wasm.
const PARTICLE_CHUNK: usize = 1 << 16;

/// The views a trace offers, in the switcher's order.
pub const TRACE_VIEWS: [&str; 3] = ["timeline", "moments", "particles"];

pub struct ViewSet {
    width: f32,
    height: f32,
    clock: Rc<dyn Clock>,
    trace: Option<Rc<Trace>>,
    /// The worker's aggregation of the loaded grain graph, for the Aggregated view (None: built here).
    aggregation: Option<Aggregation>,
    /// The worker's moments bundle of the loaded trace, for the moments view (None: computed here).
    moments: Option<Vec<u8>>,
    /// Analyses of what is loaded that had to be computed here (on the page's main thread) because the
    /// worker sent none ("aggregation", "moments"): tests read it; it stays empty for every input the worker
    /// reads.
    built_on_page: Vec<&'static str>,
    panes: Vec<Box<dyn Pane>>,
    active: usize,
    /// A load begun and not finished (see [`ViewSet::load_step`]); what is shown is unchanged until it ends.
    loading: Option<Load>,
    /// The clusters panel's clustering of the loaded trace, marked in the moments view (when it is built too).
    clusters: Option<crate::scene::moments::ClusterMarks>,
}

/// Edges of a grain graph whose reach a load step computes (the 131,072-grain profile's 262 k edges took
/// 20-39 ms of the page's wasm in one step on a slow machine).
const REACH_CHUNK: usize = 1 << 16;

/// Work a load step does for the timeline's overview strip (`OverviewBuild::step`: an interval, and each bin it
/// covers, one unit; 300 k intervals covering a bin or two each are about 8 ms of the page's wasm).
const OVERVIEW_CHUNK: usize = 600_000;

/// Where a stepped load is: each variant holds what the steps so far produced, and its step is the next one.
enum Load {
    /// The worker's grain bundle and aggregation bytes, the bundle read up to `reading` (a part a step).
    GrainBytes { graph: Vec<u8>, reading: Box<BundleReading>, aggregation: Option<Vec<u8>> },
    /// The grain bundle read; its analysis (problem views under the paper's thresholds) not yet assembled.
    GrainBundle { bundle: Box<GrainBundle>, aggregation: Option<Vec<u8>> },
    /// The analysis; the worker's aggregation read (and checked against the graph) up to `reading`.
    Analysed {
        analysis: Box<GrainAnalysis>,
        layout: Box<GrainLayout>,
        aggregation: Option<Vec<u8>>,
        reading: Box<AggregationReading>,
    },
    /// Everything read; the edges' reach for the grain scene (a pass over every edge) computed up to
    /// `reach` ([`REACH_CHUNK`] edges a step).
    Aggregation {
        analysis: Box<GrainAnalysis>,
        layout: Box<GrainLayout>,
        aggregation: Option<Aggregation>,
        reach: Box<EdgeReachBuild>,
    },
    /// The edges' reach computed; the grain-graph pane not yet built.
    GrainReach {
        analysis: Box<GrainAnalysis>,
        layout: Box<GrainLayout>,
        aggregation: Option<Aggregation>,
        reach: Box<EdgeReach>,
    },
    /// The grain-graph pane; the Aggregated pane (when the graph opens aggregated) not yet built, nothing shown.
    /// `aggregated`: its grains are narrower than a pixel fitted, so it opens in the Aggregated view.
    GrainsPane { pane: Box<GrainsPane>, aggregation: Option<Aggregation>, aggregated: bool },
    /// The graph opens aggregated: what the Aggregated view first shows of the worker's aggregation
    /// (`AggregatePane::first_view`); its pane (the layout and theta) not yet built.
    AggregateView { pane: Box<GrainsPane>, aggregation: Aggregation, view: Box<AggregateView> },
    /// Both panes built; shown at the next step (which drops what was shown before).
    GrainPanes { pane: Box<GrainsPane>, first: Box<AggregatePane> },
    /// A view of the trace shown being built in steps (the particle index: [`ParticleBuild`]); what is shown
    /// stays until the last step, which shows it keeping `range`.
    ParticleIndex { trace: Rc<Trace>, build: Box<ParticleBuild>, range: Option<(f64, f64)> },
    /// The particle index built; its pane (the process layout, the navigation timeline) made and shown at the
    /// next step.
    ParticlePane { trace: Rc<Trace>, events: Box<ParticleEvents>, range: Option<(f64, f64)> },
    /// The worker's encoded trace and moments, decoded up to `decoding` (a part a step).
    TraceBytes { model: Vec<u8>, decoding: Box<codec::Decoding>, moments: Option<Vec<u8>> },
    /// The trace decoded; the timeline's overview strip (a pass over every interval) computed up to
    /// `overview` ([`OVERVIEW_CHUNK`] units of work a step).
    Trace { trace: Rc<Trace>, moments: Option<Vec<u8>>, overview: Box<OverviewBuild> },
    /// The overview strip computed; the timeline pane not yet built.
    TraceOverview { trace: Rc<Trace>, moments: Option<Vec<u8>>, overview: Box<Overview> },
}

impl Load {
    fn step_name(&self) -> &'static str {
        match self {
            Load::GrainBytes { reading, .. } => reading.next_part(),
            Load::GrainBundle { .. } => "assemble the analysis",
            Load::Analysed { aggregation: None, .. } => "no aggregation to read",
            Load::Analysed { reading, .. } => reading.next_part(),
            Load::Aggregation { .. } => "index the grain graph's edges",
            Load::GrainReach { .. } => "build the grain-graph view",
            Load::GrainsPane { aggregation: Some(_), aggregated: true, .. } => "open the aggregated view's root",
            Load::GrainsPane { .. } => "show the grain graph",
            Load::AggregateView { .. } => "lay out the aggregated view",
            Load::GrainPanes { .. } => "show the grain graph",
            Load::ParticleIndex { build, .. } => build.next_part(),
            Load::ParticlePane { .. } => "particle view: lay out the processes and the timeline",
            Load::TraceBytes { decoding, .. } => decoding.next_part(),
            Load::Trace { .. } => "compute the overview strip",
            Load::TraceOverview { .. } => "build the timeline view",
        }
    }
}

impl ViewSet {
    /// Nothing loaded yet, in a `width` × `height` CSS-pixel view; animations read `clock`.
    pub fn new(width: f32, height: f32, clock: Rc<dyn Clock>) -> Self {
        ViewSet {
            width,
            height,
            clock,
            trace: None,
            aggregation: None,
            moments: None,
            built_on_page: Vec::new(),
            panes: Vec::new(),
            active: 0,
            loading: None,
            clusters: None,
        }
    }

    /// Begin showing the worker's grain bundle (`layouts::grain_bundle`) and its aggregation
    /// (`analyses::aggregate::bundle`) in steps; see [`ViewSet::load_step`]. Drops a load not finished.
    pub fn begin_grains(&mut self, graph: Vec<u8>, aggregation: Option<Vec<u8>>) {
        self.loading = Some(Load::GrainBytes { graph, reading: Box::default(), aggregation });
    }

    /// Begin showing the worker's encoded trace (`model::codec`) and its moments in steps; see
    /// [`ViewSet::load_step`]. Drops a load not finished.
    pub fn begin_trace(&mut self, model: Vec<u8>, moments: Option<Vec<u8>>) {
        self.loading = Some(Load::TraceBytes { model, decoding: Box::default(), moments });
    }

    /// What the next [`ViewSet::load_step`] does (None: no load under way), for the page's timings.
    pub fn load_step_name(&self) -> Option<&'static str> {
        self.loading.as_ref().map(Load::step_name)
    }

    /// Run one step of the load begun: true while steps remain, false once what was loaded is shown (or
    /// when no load was begun). Each step is one decode or one view's construction, never all of them. An
    /// error ends the load and leaves what was shown.
    pub fn load_step(&mut self) -> Result<bool, String> {
        let Some(load) = self.loading.take() else { return Ok(false) };
        let next = match load {
            Load::GrainBytes { graph, mut reading, aggregation } => match reading.step(&graph)? {
                Some(bundle) => Load::GrainBundle { bundle: Box::new(bundle), aggregation },
                None => Load::GrainBytes { graph, reading, aggregation },
            },
            Load::GrainBundle { bundle, aggregation } => {
                let (analysis, layout) = bundle.analysis(Thresholds::paper());
                let (analysis, layout) = (Box::new(analysis), Box::new(layout));
                Load::Analysed { analysis, layout, aggregation, reading: Box::default() }
            }
            Load::Analysed { analysis, layout, aggregation: None, .. } => {
                Load::Aggregation { analysis, layout, aggregation: None, reach: Box::default() }
            }
            Load::Analysed { analysis, layout, aggregation: Some(bytes), mut reading } => {
                match reading.step(&bytes, &analysis.graph).map_err(|e| e.to_string())? {
                    Some(agg) => Load::Aggregation { analysis, layout, aggregation: Some(agg), reach: Box::default() },
                    None => Load::Analysed { analysis, layout, aggregation: Some(bytes), reading },
                }
            }
            Load::Aggregation { analysis, layout, aggregation, mut reach } => {
                if reach.step(&analysis, &layout, REACH_CHUNK) {
                    let reach = Box::new(reach.finish());
                    Load::GrainReach { analysis, layout, aggregation, reach }
                } else {
                    Load::Aggregation { analysis, layout, aggregation, reach }
                }
            }
            Load::GrainReach { analysis, layout, aggregation, reach } => {
                let pane = Box::new(GrainsPane::with_reach(*analysis, *layout, self.width, self.height, *reach));
                let aggregated = unreadable_when_fitted(pane.analysis(), pane.layout(), self.width, self.height);
                Load::GrainsPane { pane, aggregation, aggregated }
            }
            Load::GrainsPane { pane, aggregation, aggregated } => match aggregation {
                Some(aggregation) if aggregated => {
                    let view = Box::new(AggregatePane::first_view(pane.analysis(), &aggregation));
                    Load::AggregateView { pane, aggregation, view }
                }
                aggregation => {
                    self.show_grains(*pane, aggregation);
                    return Ok(false);
                }
            },
            Load::AggregateView { pane, aggregation, view } => {
                let text = aggregated_first_text(pane.analysis().graph.grains());
                let first =
                    AggregatePane::with_view(pane.shared_analysis(), aggregation, *view, self.width, self.height);
                let first = Box::new(first.with_clock(self.clock.clone()).with_intro(text));
                Load::GrainPanes { pane, first }
            }
            Load::GrainPanes { pane, first } => {
                self.built_on_page.clear();
                self.show_grain_panes(*pane, Some(*first), None);
                return Ok(false);
            }
            Load::ParticleIndex { trace, mut build, range } => match build.step(&trace) {
                Some(ev) => Load::ParticlePane { trace, events: Box::new(ev), range },
                None => Load::ParticleIndex { trace, build, range },
            },
            Load::ParticlePane { trace, events, range } => {
                let pane = ParticlesPane::with_events(trace, *events, self.width, self.height);
                self.panes.push(Box::new(pane));
                self.show(self.panes.len() - 1, range);
                return Ok(false);
            }
            Load::TraceBytes { model, mut decoding, moments } => {
                match decoding.step(&model).map_err(|e| e.to_string())? {
                    Some(trace) => {
                        let overview = Box::new(OverviewBuild::new(&trace));
                        Load::Trace { trace: Rc::new(trace), moments, overview }
                    }
                    None => Load::TraceBytes { model, decoding, moments },
                }
            }
            Load::Trace { trace, moments, mut overview } => {
                if overview.step(&trace, OVERVIEW_CHUNK) {
                    let overview = Box::new(overview.finish(&region_colors(&trace)));
                    Load::TraceOverview { trace, moments, overview }
                } else {
                    Load::Trace { trace, moments, overview }
                }
            }
            Load::TraceOverview { trace, moments, overview } => {
                self.show_trace(trace, moments, Some(*overview));
                return Ok(false);
            }
        };
        self.loading = Some(next);
        Ok(true)
    }

    /// Run the load begun to its end.
    fn finish_load(&mut self) -> Result<(), String> {
        while self.load_step()? {}
        Ok(())
    }

    /// Show a trace in the timeline view. Replaces what was shown. `moments`: the worker's moments of it for
    /// the default busy definition (`analyses::moments_bundle`), decoded when the moments view is first shown.
    pub fn load_trace(&mut self, trace: Rc<Trace>, moments: Option<Vec<u8>>) {
        self.show_trace(trace, moments, None);
    }

    /// [`ViewSet::load_trace`] with the overview strip computed already (a stepped load's step of its own).
    fn show_trace(&mut self, trace: Rc<Trace>, moments: Option<Vec<u8>>, overview: Option<Overview>) {
        self.loading = None;
        let pane = match overview {
            Some(o) => TimelinePane::with_overview(trace.clone(), self.width, self.height, o),
            None => TimelinePane::new(trace.clone(), self.width, self.height),
        };
        self.panes = vec![Box::new(pane)];
        self.aggregation = None;
        self.moments = moments;
        self.clusters = None;
        self.built_on_page.clear();
        self.trace = Some(trace);
        self.active = 0;
    }

    /// Show a store's timeline (`views::store`) and offer its Utilization & moments (`views::store_moments`)
    /// and, when it has particle tiles, its Particles (`ParticlesPane::streamed`), drawn from the tiles the
    /// worker answers. Replaces what was shown.
    pub fn load_store(
        &mut self,
        pane: super::store::StorePane,
        moments: super::store_moments::StoreMomentsPane,
        particles: Option<ParticlesPane>,
    ) {
        self.loading = None;
        self.trace = None;
        self.aggregation = None;
        self.moments = None;
        self.built_on_page.clear();
        self.panes = vec![Box::new(pane), Box::new(moments)];
        if let Some(p) = particles {
            self.panes.push(Box::new(p));
        }
        self.active = 0;
    }

    /// A store's Particles, when a store with particle tiles is shown.
    pub fn store_particles_pane(&mut self) -> Option<&mut ParticlesPane> {
        if self.trace.is_some() {
            return None;
        }
        self.panes.iter_mut().find_map(|p| p.as_particles())
    }

    /// The view's size in CSS pixels.
    pub fn size(&self) -> (f32, f32) {
        (self.width, self.height)
    }

    /// The store's timeline, when a store is shown.
    pub fn store_pane(&mut self) -> Option<&mut super::store::StorePane> {
        self.panes.iter_mut().find_map(|p| p.as_store())
    }

    /// A store's Utilization & moments, when a store is shown.
    pub fn store_moments_pane(&mut self) -> Option<&mut super::store_moments::StoreMomentsPane> {
        self.panes.iter_mut().find_map(|p| p.as_store_moments())
    }

    /// Show an execution graph laid out by the worker. Replaces what was shown.
    pub fn load_execgraph(&mut self, bundle: ExecBundle) {
        self.loading = None;
        self.trace = None;
        self.aggregation = None;
        self.moments = None;
        self.built_on_page.clear();
        self.panes = vec![Box::new(ExecgraphPane::new(bundle, self.width, self.height))];
        self.active = 0;
    }

    /// Show a grain graph in the grain-graph view, or in the Aggregated view when its grains would be
    /// narrower than a pixel fitted (issue 14; the view says why). Replaces what was shown. `aggregation`:
    /// the worker's aggregation of it (`analyses::aggregate::bundle`) for the Aggregated view; without it the
    /// view builds its own (noted in [`ViewSet::built_on_page`]).
    pub fn load_grains(
        &mut self,
        analysis: GrainAnalysis,
        layout: GrainLayout,
        aggregation: Option<&[u8]>,
    ) -> Result<(), String> {
        self.loading = Some(Load::Analysed {
            analysis: Box::new(analysis),
            layout: Box::new(layout),
            aggregation: aggregation.map(<[u8]>::to_vec),
            reading: Box::default(),
        });
        self.finish_load()
    }

    /// Show the grain-graph pane built by a load, and its Aggregated view first when its grains would be
    /// narrower than a pixel fitted.
    fn show_grains(&mut self, grains: GrainsPane, mut agg: Option<Aggregation>) {
        self.built_on_page.clear();
        let aggregated = unreadable_when_fitted(grains.analysis(), grains.layout(), self.width, self.height);
        let first = aggregated.then(|| {
            let text = aggregated_first_text(grains.analysis().graph.grains());
            self.aggregate_pane(grains.shared_analysis(), agg.take()).with_intro(text)
        });
        self.show_grain_panes(grains, first, agg);
    }

    /// Show the grain graph, in `first` (its Aggregated view) when given; `aggregation` is kept for an
    /// Aggregated view built later. Leaves [`ViewSet::built_on_page`] as it is.
    fn show_grain_panes(&mut self, grains: GrainsPane, first: Option<AggregatePane>, aggregation: Option<Aggregation>) {
        self.trace = None;
        self.moments = None;
        self.aggregation = aggregation;
        self.active = first.is_some() as usize;
        self.panes = vec![Box::new(grains)];
        if let Some(pane) = first {
            self.panes.push(Box::new(pane));
        }
    }

    /// The Aggregated view from the worker's aggregation, or (without one) built here and noted.
    fn aggregate_pane(&mut self, analysis: Rc<GrainAnalysis>, agg: Option<Aggregation>) -> AggregatePane {
        let pane = match agg {
            Some(agg) => AggregatePane::with_aggregation(analysis, agg, self.width, self.height),
            None => {
                self.built_on_page.push("aggregation");
                AggregatePane::new(analysis, self.width, self.height)
            }
        };
        pane.with_clock(self.clock.clone())
    }

    /// What was computed here for what is loaded rather than by the worker: empty when the worker sent it.
    pub fn built_on_page(&self) -> &[&'static str] {
        &self.built_on_page
    }

    /// A new layout of the execution graph shown (another minimum edge length), keeping the view.
    pub fn relayout_execgraph(&mut self, bundle: ExecBundle) -> Result<(), String> {
        let pane = self.panes.get(self.active).ok_or("nothing is shown")?;
        if pane.kind() != "execgraph" {
            return Err("the execution graph is not shown".into());
        }
        // The new layout keeps the view's options (a relayout follows one of them, the minimum edge).
        let options = pane.options();
        let mut pane = ExecgraphPane::new(bundle, self.width, self.height);
        set_options(&mut pane, &options);
        self.panes[self.active] = Box::new(pane);
        Ok(())
    }

    /// The views the loaded input offers.
    pub fn views(&self) -> Vec<String> {
        if self.trace.is_some() {
            // A trace's views, then those shown from a panel (the call tree's flame graph: `show_pane`).
            let extra = self.panes.iter().map(|p| p.kind()).filter(|k| !TRACE_VIEWS.contains(k));
            return TRACE_VIEWS.iter().copied().chain(extra).map(str::to_string).collect();
        }
        let mut views: Vec<String> = self.panes.iter().map(|p| p.kind().to_string()).collect();
        // A grain graph also offers its aggregated view, built when first shown.
        if views.iter().any(|v| v == "grains") && !views.iter().any(|v| v == "aggregate") {
            views.push("aggregate".to_string());
        }
        views
    }

    /// Why a view the loaded input offers has nothing to show, in words (the page puts it on the view's tab);
    /// None when it has something. The Particles view of a trace without communication or synchronization
    /// calls stays offered (events can be picked by name or category there) but says so.
    pub fn view_note(&self, kind: &str) -> Option<String> {
        let trace = self.trace.as_ref()?;
        (kind == "particles" && !EventSelection::default().selects_any_region(trace)).then(|| {
            "no communication or synchronization calls in this trace: pick events by name or category in the view"
                .to_string()
        })
    }

    /// The view shown now ("" when nothing is loaded).
    pub fn view(&self) -> &'static str {
        self.active().map_or("", |p| p.kind())
    }

    pub fn active(&self) -> Option<&dyn Pane> {
        self.panes.get(self.active).map(|p| p.as_ref())
    }

    pub fn active_mut(&mut self) -> Option<&mut (dyn Pane + 'static)> {
        self.panes.get_mut(self.active).map(|p| p.as_mut())
    }

    /// The grain-graph pane shown, for the page's grain panel.
    pub fn grains_pane(&mut self) -> Option<&mut GrainsPane> {
        self.active_mut()?.as_grains()
    }

    /// The timeline pane shown, for the page's profile panel.
    pub fn timeline_pane(&mut self) -> Option<&mut crate::views::timeline::TimelinePane> {
        self.active_mut()?.as_timeline()
    }

    /// The trace's timeline pane, shown or not (the notes live there: views::notes).
    pub fn trace_timeline(&mut self) -> Option<&mut crate::views::timeline::TimelinePane> {
        self.panes.iter_mut().find_map(|p| p.as_timeline())
    }

    /// Show a second run's grain graph beside the aggregated view shown, analysed under its thresholds:
    /// `bundle` is the worker's grain bundle of it (`layouts::grain_bundle`; the worker reads the file, the
    /// page holds no reader).
    pub fn compare_with(&mut self, name: &str, bundle: &[u8]) -> Result<(), String> {
        let pane = self.active_mut().and_then(|p| p.as_aggregate()).ok_or("the aggregated view is not shown")?;
        let (analysis, _) =
            GrainBundle::decode(bundle).map_err(|e| format!("{name}: {e}"))?.analysis(pane.thresholds());
        pane.compare_with(name, analysis);
        Ok(())
    }

    /// The busy definition the moments view asked of the worker and has no answer for yet, as the option's
    /// value (`any`, `pattern:GLOB`); None when it asks nothing.
    pub fn moments_asked(&mut self) -> Option<String> {
        let pane = self.panes.iter_mut().find_map(|p| p.as_moments())?;
        pane.asked().map(crate::views::options::busy_text)
    }

    /// Mark the clusters panel's clustering (`weft clusters --json`'s answer) in the moments view, now and
    /// when it is built; None clears the marks.
    pub fn mark_clusters(&mut self, json: Option<&str>) -> Result<(), String> {
        let trace = self.trace.clone().ok_or("no trace is loaded")?;
        self.clusters = json.map(|j| super::moments::cluster_marks(j, trace.locations.len())).transpose()?;
        if let Some(pane) = self.panes.iter_mut().find_map(|p| p.as_moments()) {
            pane.set_clusters(self.clusters.clone());
        }
        Ok(())
    }

    /// The worker's moments bundle (`analyses::moments_bundle`) for the busy definition the moments view
    /// asked for: checked against the loaded trace and shown; the view keeps its position, sort and filter.
    pub fn receive_moments(&mut self, bytes: &[u8]) -> Result<(), String> {
        let trace = self.trace.clone().ok_or("no trace is loaded")?;
        let pane = self.panes.iter_mut().find_map(|p| p.as_moments()).ok_or("the moments view is not open")?;
        let bundle = MomentsBundle::decode(bytes, &trace).map_err(|e| e.to_string())?;
        pane.receive(bundle)
    }

    /// Switch views (building the view on first use), keeping the time range where both views have one.
    pub fn set_view(&mut self, kind: &str) -> Result<(), String> {
        if matches!(self.loading, Some(Load::ParticleIndex { .. } | Load::ParticlePane { .. })) {
            // Another view was asked for while one was being built in steps: the build is dropped.
            self.loading = None;
        }
        let range = self.active().and_then(|p| p.time_range());
        let problem = self.active().and_then(shown_problem);
        let index = match self.panes.iter().position(|p| p.kind() == kind) {
            Some(i) => i,
            None if kind == "aggregate" => {
                let grains = self.panes.iter_mut().find_map(|p| p.as_grains()).ok_or("no grain graph is loaded")?;
                let analysis = grains.shared_analysis();
                let agg = self.aggregation.take();
                let pane = self.aggregate_pane(analysis, agg);
                self.panes.push(Box::new(pane));
                self.panes.len() - 1
            }
            None => {
                let trace = self.trace.clone().ok_or_else(|| format!("no '{kind}' view for this input"))?;
                let pane: Box<dyn Pane> = match kind {
                    "timeline" => Box::new(TimelinePane::new(trace, self.width, self.height)),
                    "moments" => match self.moments.take() {
                        Some(bytes) => {
                            let first = MomentsBundle::decode(&bytes, &trace).map_err(|e| e.to_string())?;
                            Box::new(MomentsPane::with_moments(trace, first, self.width, self.height))
                        }
                        None => {
                            self.built_on_page.push("moments");
                            Box::new(MomentsPane::new(trace, self.width, self.height))
                        }
                    },
                    "particles" => Box::new(ParticlesPane::new(trace, self.width, self.height)),
                    _ => return Err(format!("unknown view '{kind}'")),
                };
                self.panes.push(pane);
                if let Some(m) = self.panes.last_mut().and_then(|p| p.as_moments()) {
                    m.set_clusters(self.clusters.clone());
                }
                self.panes.len() - 1
            }
        };
        self.show(index, range);
        // The Grain graph and Aggregated tabs share one problem view: the one chosen in either shows in both.
        let pane = &mut self.panes[index];
        if let Some(p) = problem.filter(|p| shown_problem(pane.as_ref()).is_some_and(|q| q != *p)) {
            let _ = pane.configure("problem", &p);
        }
        Ok(())
    }

    /// Show `pane`, made by a panel of what is loaded (the call tree's flame graph), in place of a pane of its
    /// kind; the other panes stay, so a switch goes back to them as they were.
    pub fn show_pane(&mut self, pane: Box<dyn Pane>) {
        let index = match self.panes.iter().position(|p| p.kind() == pane.kind()) {
            Some(i) => {
                self.panes[i] = pane;
                i
            }
            None => {
                self.panes.push(pane);
                self.panes.len() - 1
            }
        };
        self.show(index, None);
    }

    /// The pane of `kind` if it is built, shown or not (the timeline behind the flame graph).
    pub fn pane_mut(&mut self, kind: &str) -> Option<&mut (dyn Pane + 'static)> {
        self.panes.iter_mut().find(|p| p.kind() == kind).map(|p| p.as_mut())
    }

    /// Show grain `grain` in the Grain graph tab, selected and brought into view at a readable scale (the
    /// Aggregated view's jump from a grain to the grain panel).
    pub fn show_grain(&mut self, grain: u32) -> Result<(), String> {
        self.set_view("grains")?;
        let pane = self.grains_pane().ok_or("no grain graph is loaded")?;
        pane.select(Some(grain))?;
        pane.locate(grain, true)
    }

    /// Show pane `index` at the view's size, over `range` where it has a time axis.
    fn show(&mut self, index: usize, range: Option<(f64, f64)>) {
        self.active = index;
        let pane = &mut self.panes[index];
        pane.resize(self.width, self.height);
        if let Some((t0, t1)) = range {
            pane.set_time_range(t0, t1);
        }
    }

    /// Switch views as [`ViewSet::set_view`] does, but where building the view would be one long task (the
    /// particle index of a trace of more than [`STEPPED_PARTICLES_INTERVALS`] intervals) begin building it in
    /// steps instead and return true: [`ViewSet::load_step`] then runs them, and the last one shows the
    /// view. False: switched already (also while a load is under way, which a build would drop). A load
    /// begun later drops the build.
    pub fn begin_view(&mut self, kind: &str) -> Result<bool, String> {
        let built = self.panes.iter().any(|p| p.kind() == kind);
        match &self.trace {
            Some(trace)
                if kind == "particles"
                    && !built
                    && self.loading.is_none()
                    && trace.intervals.len() > STEPPED_PARTICLES_INTERVALS =>
            {
                let range = self.active().and_then(|p| p.time_range());
                let build = Box::new(ParticleBuild::new(trace, &EventSelection::default(), PARTICLE_CHUNK));
                self.loading = Some(Load::ParticleIndex { trace: trace.clone(), build, range });
                Ok(true)
            }
            _ => self.set_view(kind).map(|()| false),
        }
    }

    /// Change an option of the shown view (e.g. `busy` = `any` in the moments view).
    pub fn configure(&mut self, key: &str, value: &str) -> Result<(), String> {
        let pane = self.active_mut().ok_or("nothing is shown")?;
        pane.configure(key, value)?;
        // A moments view without the worker's moments computes another busy definition here: noted.
        let computed_here = pane.as_moments().is_some_and(|m| m.computed_here() > 0);
        let kind = pane.kind();
        if computed_here && !self.built_on_page.contains(&"moments") {
            self.built_on_page.push("moments");
        }
        if crate::views::options::is_threshold_key(key) && kind == "grains" {
            // The aggregated view was built under the old thresholds: build it again when next shown.
            self.panes.retain(|p| p.kind() != "aggregate");
            self.aggregation = None;
            self.active = self.panes.iter().position(|p| p.kind() == "grains").unwrap_or(0);
        }
        Ok(())
    }

    /// The view is now `width` × `height` CSS pixels (the shown pane follows now, others when shown).
    pub fn resize(&mut self, width: f32, height: f32) {
        self.width = width;
        self.height = height;
        if let Some(p) = self.active_mut() {
            p.resize(width, height);
        }
    }

    /// The shown view's scene, or an empty one when nothing is loaded.
    pub fn scene(&self) -> Scene {
        match self.active() {
            Some(p) => p.scene(),
            None => Scene::new(self.width, self.height, palette::BACKGROUND),
        }
    }
}

/// Put a pane's options back from its `Pane::options` description (a pane rebuilt from a new layout).
fn set_options(pane: &mut dyn Pane, described: &serde_json::Value) {
    for o in described["options"].as_array().into_iter().flatten().filter(|o| o["role"] == "option") {
        if let (Some(key), Some(value)) = (o["key"].as_str(), o["value"].as_str()) {
            let _ = pane.configure(key, value);
        }
    }
}

/// The problem view a grain or aggregated view shows (its `problem` option's value); None for other views.
fn shown_problem(pane: &dyn Pane) -> Option<String> {
    if !matches!(pane.kind(), "grains" | "aggregate") {
        return None;
    }
    let options = pane.options();
    let o = options["options"].as_array()?.iter().find(|o| o["key"] == "problem")?;
    o["value"].as_str().map(str::to_string)
}
