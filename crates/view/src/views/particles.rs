//! The particle animation pane (issue 5): the animation window above the stacked timeline of event starts.
//! Playback, stepping, seeking, the data time step, the animation interval, the minimum opacity and the two
//! clear buttons arrive as `configure` keys from www/particles.js; `tick` advances the animation each page
//! frame. Per tick it touches only the live window; faded particles go to the GPU history as splats and to a
//! CPU density raster (same rule, same resolution) that gives the tone mapping its maximum density.
//! Playback starts at the first event, not at the trace's start (a run spends its first seconds in MPI_Init
//! and setup). The stacked timeline of event starts zooms and pans as the timeline does (wheel, drag, keys),
//! and its time range carries over to and from the other views.
//!
//! On a store (issue #17) the pane is the same, streamed: `ev` holds a slice of the events (those live in the
//! playback range the worker answered last, `analyses::particles::EventSlicer`: the whole index's types,
//! slots and extent, so every particle is where the whole trace's pane draws it); [`ParticlesPane::stream_request`]
//! asks for the range from the current time to [`ASK_SECONDS`] of playback ahead once less than
//! [`LEAD_SECONDS`] are held ahead (at most a window of the store's particle tiles), and playback waits at
//! the end of what is held until the answer is in. The slice held is thus the events live over a few seconds
//! of playback, whatever the store's size (a window of a billion-event store holds a million calls). The
//! stacked timeline counts the starts held, and beyond them draws the store windows' counts in grey. Must not
//! fetch or decode tiles (the store worker does) or read a clock.

use super::{num, Hover, Pane};
use crate::scene::particles::colors::family_name;
use crate::scene::particles::colors::family_of;
use crate::scene::particles::colors::OTHER;
use crate::scene::particles::history::HistoryRaster;
use crate::scene::particles::timeline::StartsTimeline;
use crate::scene::particles::{
    slot_labels, speed_label, ParticleInstance, ParticleLayer, ParticleScene, ParticleStyle,
};
use crate::scene::timeline::{format_duration, format_time_for_span};
use crate::scene::Scene;
use crate::views::options::{ParticlesOptions, ViewOptions};
use serde_json::json;
use std::rc::Rc;
use weft_analyses::particles::{EventSelection, LiveWindow, ParticleEvents, Playback};
use weft_model::Trace;

/// Height of the stacked timeline under the animation.
const TIMELINE_PX: f32 = 110.0;
/// Width of the legend column at the right of the animation.
const LEGEND_PX: f32 = 190.0;
/// Height of the page's control strip over the top of the animation (www/particles.js).
const CONTROLS_PX: f32 = 40.0;
/// Most animation steps one page frame may catch up (after a stall the animation slows, never jumps).
const MAX_STEPS_PER_TICK: u32 = 4;
/// What a store's strip says where the slice held does not reach.
pub const OUTSIDE_SLICE: &str = "grey: calls per store window; by type as playback loads them";
/// Seconds of playback (at the current speed) a store's pane asks the worker for at once.
pub const ASK_SECONDS: f64 = 6.0;
/// A store's pane asks again once less than this many seconds of playback are held ahead (an answer has
/// that long to arrive before playback waits for it).
pub const LEAD_SECONDS: f64 = 3.0;
/// Most particle events an ask's range holds by the store's counts (those starting in it, each window's
/// taken as spread evenly over it), however many seconds of playback that is: the page decodes and
/// indexes an answer in one task, and where many processes call at once a few seconds hold hundreds of
/// thousands (6 s at 20,000 ranks held 200,000 events, 56 ms on the page; BENCHMARKS.md "Session 34").
pub const ASK_EVENTS: u64 = 50_000;

/// What a store's pane holds and asks for: playback ranges as (from, end, fading), ns: the events live at
/// some time in `[from, end)` when particles fade for `fading` (`end` is `u64::MAX` once an ask reaches the
/// events' latest end: `store::query::particle_slice_end`).
struct Stream {
    window_ns: u64,
    /// The particle events' latest end (the whole index's extent).
    span_ns: u64,
    /// Per window of the particle tiles, the events starting in it (the tiles' record counts): the strip's
    /// grey outside the slice held.
    window_starts: Vec<u64>,
    /// Where playback begins (the first event's start, from the store's manifest).
    first_ns: u64,
    held: Option<(u64, u64, u64)>,
    asked: Option<(u64, u64, u64)>,
    in_flight: usize,
    errors: Vec<String>,
    /// Most events an ask holds ([`ASK_EVENTS`]; tests set fewer).
    ask_events: u64,
}

impl Stream {
    /// The longest range from `t`, at most `ask` long, in which at most `cap` events start by the windows'
    /// counts (each window's spread evenly over it; the last window, reaching to the end of time, as if it
    /// were as long as the others).
    fn within_events(&self, t: u64, ask: u64, cap: u64) -> u64 {
        let (w, n) = (self.window_ns.max(1), self.window_starts.len() as u64);
        if n == 0 {
            return ask;
        }
        let end = t.saturating_add(ask);
        let (mut at, mut count) = (t, 0f64);
        loop {
            let k = (at / w).min(n - 1);
            let window_end = if k + 1 >= n { u64::MAX } else { (k + 1) * w };
            let per_ns = self.window_starts[k as usize] as f64 / w as f64;
            let stop = end.min(window_end);
            let here = (stop - at) as f64 * per_ns;
            if count + here > cap as f64 {
                return at - t + ((cap as f64 - count) / per_ns) as u64;
            }
            count += here;
            if stop >= end {
                return ask;
            }
            at = stop;
        }
    }
    /// The end of what an ask up to `t1` is answered with (`store::query::particle_plan`).
    fn end_of(&self, t1: u64) -> u64 {
        weft_store::read::query::particle_slice_end(self.span_ns, t1)
    }
    /// Whether `range` holds what playback at `t` needs up to `ahead` later, at fading `fade`.
    fn covers(range: Option<(u64, u64, u64)>, t: u64, fade: u64, ahead: u64) -> bool {
        range.is_some_and(|(a, e, f)| f == fade && a <= t && (e == u64::MAX || t.saturating_add(ahead) < e))
    }
}

pub struct ParticlesPane {
    trace: Rc<Trace>,
    /// A store's slice streamed by playback range (None: `ev` indexes the whole trace).
    stream: Option<Stream>,
    selection: EventSelection,
    /// The selection as the user typed it (the `selection` option's value).
    selection_text: String,
    ev: ParticleEvents,
    style: ParticleStyle,
    geometry: ParticleScene,
    timeline: StartsTimeline,
    /// The stacked timeline's time range [t0, t1], ns from the trace's first event (zoomed and panned).
    strip: (f64, f64),
    frame: Scene,
    width: f32,
    height: f32,
    playback: Playback,
    window: LiveWindow,
    playing: bool,
    last_tick_ms: Option<f64>,
    owed_ms: f64,
    min_opacity: f32,
    particles: Vec<ParticleInstance>,
    pending_splats: Vec<ParticleInstance>,
    drawn_splats: Vec<ParticleInstance>,
    faded: Vec<u32>,
    raster: HistoryRaster,
    splatted: u64,
    clear_history: bool,
    hovered: Option<usize>,
}

impl ParticlesPane {
    pub fn new(trace: Rc<Trace>, width: f32, height: f32) -> Self {
        let ev = ParticleEvents::build(&trace, &EventSelection::default());
        Self::with_events(trace, ev, width, height)
    }

    /// The pane over an index of the default selection's events already built (in steps, by the page:
    /// `analyses::particles::ParticleBuild`).
    pub fn with_events(trace: Rc<Trace>, ev: ParticleEvents, width: f32, height: f32) -> Self {
        Self::over(trace, ev, None, width, height)
    }

    /// A store's pane: `skeleton` its definitions, `frame` an empty slice with the whole index's types,
    /// slots and extent (`EventSlicer::slice` of nothing), `first_ns` the first event's start, the store's
    /// particle tiles cut by windows of `window_ns`, `window_starts[w]` the events starting in window `w`.
    /// The events come through [`ParticlesPane::receive_slice`].
    pub fn streamed(
        skeleton: Rc<Trace>,
        frame: ParticleEvents,
        first_ns: u64,
        window_ns: u64,
        window_starts: Vec<u64>,
        width: f32,
        height: f32,
    ) -> Self {
        let stream = Stream {
            window_ns: window_ns.max(1),
            span_ns: frame.span_ns,
            window_starts,
            first_ns,
            held: None,
            asked: None,
            in_flight: 0,
            errors: Vec::new(),
            ask_events: ASK_EVENTS,
        };
        Self::over(skeleton, frame, Some(stream), width, height)
    }

    fn over(trace: Rc<Trace>, ev: ParticleEvents, stream: Option<Stream>, width: f32, height: f32) -> Self {
        let selection = EventSelection::default();
        let first = stream.as_ref().map_or_else(|| ev.start_ns.first().copied().unwrap_or(0), |s| s.first_ns);
        let playback = default_playback(&ev, first);
        let style = ParticleStyle { top_px: CONTROLS_PX + 10.0, ..Default::default() };
        let (geometry, frame) = Self::layout(&trace, &ev, style, width, height);
        let timeline = StartsTimeline::new(&ev, width, TIMELINE_PX);
        let mut pane = ParticlesPane {
            stream,
            raster: HistoryRaster::new(width.max(1.0) as u32, (height - TIMELINE_PX).max(1.0) as u32),
            trace,
            selection,
            selection_text: String::new(),
            window: LiveWindow::new(playback.fade_ns()),
            ev,
            style,
            geometry,
            strip: (0.0, timeline.t1_ns as f64),
            timeline,
            frame,
            width,
            height,
            playback,
            playing: false,
            last_tick_ms: None,
            owed_ms: 0.0,
            min_opacity: 0.15,
            particles: Vec::new(),
            pending_splats: Vec::new(),
            drawn_splats: Vec::new(),
            faded: Vec::new(),
            splatted: 0,
            clear_history: true,
            hovered: None,
        };
        if pane.stream.is_some() {
            pane.timeline = pane.strip_timeline(0, pane.timeline.t1_ns);
        }
        pane.seek(pane.first_ns());
        pane
    }

    /// The stacked timeline over `[a, b]` ns at the current width; on a store with the starts its windows
    /// count where the slice held does not reach.
    fn strip_timeline(&self, a: u64, b: u64) -> StartsTimeline {
        let mut tl = StartsTimeline::of_range(&self.ev, self.width, TIMELINE_PX, a, b);
        if let Some(s) = &self.stream {
            tl.estimate_outside(s.held.map(|(from, end, _)| (from, end)), s.window_ns, &s.window_starts);
        }
        tl
    }

    /// When the first event starts (where playback begins), 0 with none.
    fn first_ns(&self) -> u64 {
        match &self.stream {
            Some(s) => s.first_ns,
            None => self.ev.start_ns.first().copied().unwrap_or(0),
        }
    }

    /// A store's pane: the playback range to ask the worker for, `(from, to, fading)` ns (the events live at
    /// some time in it), when what is held or asked does not reach [`LEAD_SECONDS`] of playback past the
    /// current time; None otherwise, and for a whole trace. The range is [`ASK_SECONDS`] of playback at the
    /// current speed, at most a window of the store's particle tiles (so an ask fetches at most two windows
    /// and the fading's), at least a few frames' steps.
    pub fn stream_request(&mut self) -> Option<(u64, u64, u64)> {
        let (t, fade) = (self.window.time_ns(), self.window.fade_ns());
        let speed = self.playback.speed_ns_per_s();
        let steps = self.playback.step_ns.saturating_mul(4 * MAX_STEPS_PER_TICK as u64);
        let s = self.stream.as_mut()?;
        let ask = ((ASK_SECONDS * speed) as u64).max(2 * steps).min(s.window_ns).max(2);
        // At most ASK_EVENTS, those fading in from before `t` counted (the answer holds them), though never
        // less than a few frames' steps.
        let fading = t - t.saturating_sub(fade);
        let by_events = s.within_events(t - fading, fading.saturating_add(ask), s.ask_events).saturating_sub(fading);
        let ask = ask.min(by_events.max(2 * steps)).max(2);
        let lead = ((LEAD_SECONDS * speed) as u64).max(steps).min(ask / 2);
        if Stream::covers(s.held, t, fade, lead) || Stream::covers(s.asked, t, fade, lead) {
            return None;
        }
        let to = t.saturating_add(ask);
        s.asked = Some((t, s.end_of(to), fade));
        Some((t, to, fade))
    }

    /// The trace the pane shows (a store's: its definitions).
    pub fn trace(&self) -> &Trace {
        &self.trace
    }

    /// The most events a store's ask holds by the store's counts ([`ASK_EVENTS`] unless set).
    pub fn set_ask_events(&mut self, n: u64) {
        if let Some(s) = &mut self.stream {
            s.ask_events = n.max(1);
        }
    }

    /// Forget the range asked last (the worker answered another view instead): asked again when needed.
    pub fn forget_ask(&mut self) {
        if let Some(s) = &mut self.stream {
            s.asked = None;
        }
    }

    /// Tiles the worker is fetching for the range asked last (the page sets it).
    pub fn set_in_flight(&mut self, n: usize) {
        if let Some(s) = &mut self.stream {
            s.in_flight = n;
        }
    }

    /// A store's slice for the range `(from, end, fading)` (see [`ParticlesPane::stream_request`]): played
    /// from the current time on; `errors` name the tiles that failed (their events are missing).
    pub fn receive_slice(
        &mut self,
        ev: ParticleEvents,
        range: (u64, u64, u64),
        errors: Vec<String>,
    ) -> Result<(), String> {
        let Some(s) = &mut self.stream else { return Err("this particle view is not of a store".into()) };
        if (ev.types.len(), ev.slots()) != (self.ev.types.len(), self.ev.slots()) {
            return Err("particle events of another store".into());
        }
        if s.asked.is_some_and(|a| a.0 == range.0 && a.2 == range.2) {
            s.asked = None;
        }
        s.held = Some(range);
        s.errors = errors;
        self.ev = ev;
        self.hovered = None;
        let (a, b) = (self.strip.0.round() as u64, self.strip.1.round() as u64);
        self.timeline = self.strip_timeline(a, b);
        let t = self.window.time_ns();
        self.seek(t);
        Ok(())
    }

    /// Whether playback at `t_ns` has what it needs (always for a whole trace).
    fn holds(&self, t_ns: u64) -> bool {
        self.stream.as_ref().is_none_or(|s| Stream::covers(s.held, t_ns, self.window.fade_ns(), 0))
    }

    /// The whole trace's range for the stacked timeline.
    fn whole_strip(&self) -> (f64, f64) {
        (0.0, self.ev.span_ns.max(1) as f64)
    }

    /// Show `range` (clamped to the trace, at least a microsecond or the whole) on the stacked timeline, binned
    /// again when it changed.
    fn set_strip(&mut self, (mut t0, mut t1): (f64, f64)) {
        let (lo, hi) = self.whole_strip();
        let w = (t1 - t0).clamp((1000f64).min(hi), hi - lo);
        if w != t1 - t0 {
            let c = (t0 + t1) / 2.0;
            (t0, t1) = (c - w / 2.0, c + w / 2.0);
        }
        // Within the trace, keeping the width (a range that fits is kept exactly: views hand it over).
        if t0 < lo {
            (t0, t1) = (lo, lo + w);
        } else if t1 > hi {
            (t0, t1) = (hi - w, hi);
        }
        self.strip = (t0, t1);
        let (a, b) = (t0.round() as u64, t1.round() as u64);
        if (a, b) != (self.timeline.t0_ns, self.timeline.t1_ns) || self.timeline.width != self.width {
            self.timeline = self.strip_timeline(a, b);
        }
    }

    fn layout(
        trace: &Trace,
        ev: &ParticleEvents,
        style: ParticleStyle,
        width: f32,
        height: f32,
    ) -> (ParticleScene, Scene) {
        let anim_h = (height - TIMELINE_PX).max(60.0);
        // The legend (www/particles.js) takes a column at the right of the animation, not its particles.
        let geometry = ParticleScene::new(ev, (width - LEGEND_PX).max(200.0), anim_h, style);
        let frame = geometry.frame(ev, &slot_labels(trace, ev));
        (geometry, frame)
    }

    /// Lay out again (size or options changed): the history is cleared, its pixels no longer match. The
    /// navigation timeline's counts (a pass over every event) depend on the width only: a change of height
    /// (the page's header growing as the tab opens) keeps them, and the raster is reallocated only when its
    /// size changes (issue 16: no main-thread task over 50 ms).
    fn relayout(&mut self, events_changed: bool) {
        let (g, f) = Self::layout(&self.trace, &self.ev, self.style, self.width, self.height);
        self.geometry = g;
        self.frame = f;
        if events_changed || self.timeline.width != self.width {
            let (a, b) = (self.strip.0.round() as u64, self.strip.1.round() as u64);
            self.timeline = self.strip_timeline(a, b);
        }
        let (w, h) = (self.width.max(1.0) as u32, self.geometry.height.max(1.0) as u32);
        if (self.raster.width, self.raster.height) != (w, h) {
            // A new raster is empty already.
            self.raster = HistoryRaster::new(w, h);
            self.pending_splats.clear();
            self.splatted = 0;
            self.clear_history = true;
        } else {
            self.reset_history();
        }
        self.refresh_particles();
    }

    fn reset_history(&mut self) {
        self.raster.clear();
        self.pending_splats.clear();
        self.splatted = 0;
        self.clear_history = true;
    }

    fn refresh_particles(&mut self) {
        self.geometry.particles(&self.ev, &self.window, &mut self.particles);
    }

    fn seek(&mut self, t_ns: u64) {
        self.window.seek(&self.ev, t_ns.min(self.ev.span_ns));
        self.refresh_particles();
    }

    /// Advance one data time step: faded events become splats (GPU) and density (CPU). A store's pane waits
    /// (false) while the step's events are not held yet.
    fn step(&mut self) -> bool {
        // Playback ends at the trace's end (it ran on while the last particles faded: t = 1,702 of 1,566 ms).
        let t = self.window.time_ns().saturating_add(self.playback.step_ns).min(self.ev.span_ns);
        if !self.holds(t) {
            return false;
        }
        self.faded.clear();
        self.window.advance(&self.ev, t, &mut self.faded);
        let from = self.pending_splats.len();
        self.geometry.splats(&self.ev, &self.faded, &mut self.pending_splats);
        for s in &self.pending_splats[from..] {
            self.raster.splat(s);
        }
        self.splatted += self.faded.len() as u64;
        if t >= self.ev.span_ns {
            self.playing = false;
        }
        true
    }

    fn tick(&mut self, now_ms: f64) {
        let last = self.last_tick_ms.replace(now_ms);
        if !self.playing {
            return;
        }
        self.owed_ms += last.map_or(self.playback.interval_ms, |l| (now_ms - l).max(0.0));
        let mut steps = 0;
        while self.owed_ms >= self.playback.interval_ms && steps < MAX_STEPS_PER_TICK {
            if !self.step() {
                // Waiting for a store's next window: the animation pauses there, it does not jump.
                self.owed_ms = 0.0;
                break;
            }
            self.owed_ms -= self.playback.interval_ms;
            steps += 1;
        }
        if steps == MAX_STEPS_PER_TICK {
            self.owed_ms = 0.0;
        }
        if steps > 0 {
            self.refresh_particles();
        }
    }

    /// One entry per colour: each type with a colour of its own (most frequent first), then the types past
    /// the palette's limit grouped as one "other" entry in their shared grey.
    fn legend(&self) -> Vec<serde_json::Value> {
        let mut out = Vec::new();
        let (mut rest, mut rest_count) = (Vec::new(), 0u64);
        for (t, name) in self.ev.types.iter().enumerate() {
            let c = self.geometry.colors[t];
            if c == OTHER {
                rest.push(name.as_str());
                rest_count += self.ev.type_counts[t];
                continue;
            }
            out.push(json!({
                "name": name,
                "color": format!("#{:06x}", c >> 8),
                "family": family_of(name).map_or("other", |f| family_name(f.0)),
                "count": self.ev.type_counts[t],
            }));
        }
        if !rest.is_empty() {
            out.push(json!({
                "name": format!("{} other calls", rest.len()),
                "color": format!("#{:06x}", OTHER >> 8),
                "family": rest.join(", "),
                "count": rest_count,
                "types": rest,
            }));
        }
        out
    }
}

impl ParticlesPane {
    /// The view's options as they stand (views::options::ParticlesOptions).
    fn typed_options(&self) -> ParticlesOptions {
        ParticlesOptions {
            selection: self.selection_text.clone(),
            step_ns: Some(self.playback.step_ns),
            interval_ms: self.playback.interval_ms,
            min_opacity: self.min_opacity,
            segment_multiple: self.style.segment_multiple.unwrap_or(0),
        }
    }
}

/// The data time playback covers: from the first event's start to the last event's end.
fn played_span(ev: &ParticleEvents, first_ns: u64) -> u64 {
    ev.span_ns.saturating_sub(first_ns)
}

/// The playback a view starts with: the played span in about 20 s, slower where that would keep more than
/// `Playback::LIVE_BUDGET` particles alive (counted from the events of every type: a store's slice is a
/// part of them).
fn default_playback(ev: &ParticleEvents, first_ns: u64) -> Playback {
    Playback::for_events(played_span(ev, first_ns), ev.type_counts.iter().sum(), 20.0)
}

fn parse<T: std::str::FromStr>(key: &str, value: &str) -> Result<T, String> {
    value.trim().parse().map_err(|_| format!("'{value}' is not a valid {key}"))
}

impl Pane for ParticlesPane {
    fn kind(&self) -> &'static str {
        "particles"
    }
    fn resize(&mut self, width: f32, height: f32) {
        if (width, height) != (self.width, self.height) {
            self.width = width;
            self.height = height;
            self.relayout(false);
        }
    }
    /// Zoom the stacked timeline about x (its only time axis).
    fn zoom(&mut self, x: f32, factor: f64) {
        let scale = self.timeline.scale();
        let (t0, t1) = self.strip;
        let anchor = scale.t(x.clamp(self.timeline.x0, self.timeline.x1));
        let w = (t1 - t0) / factor;
        let frac = (anchor - t0) / (t1 - t0).max(1e-9);
        self.set_strip((anchor - frac * w, anchor - frac * w + w));
    }
    fn pan(&mut self, dx: f32) {
        let (t0, t1) = self.strip;
        let d = dx as f64 * (t1 - t0) / (self.timeline.x1 - self.timeline.x0).max(1.0) as f64;
        self.set_strip((t0 + d, t1 + d));
    }
    fn scroll(&mut self, _dy: f32) {}
    fn fit(&mut self) {
        self.set_strip(self.whole_strip());
    }
    fn hover(&mut self, x: f32, y: f32) -> Option<Hover> {
        // As in the paper, details on hover while paused (moving particles would slip from the pointer).
        self.hovered = if self.playing { None } else { self.geometry.hit(&self.ev, &self.window, x, y) };
        let e = self.hovered?;
        let d = self.ev.details(&self.trace, e);
        // Times at the precision the strip's zoom needs, and fine enough to tell start from end.
        let span = (self.strip.1 - self.strip.0).min(d.dur_ns.max(1) as f64 * 100.0);
        let at = |t: u64| format_time_for_span(t as f64, span);
        Some(Hover {
            title: d.call.clone(),
            lines: vec![
                format!("{} · {}", d.process, d.thread),
                format!("start {}   end {}", at(d.start_ns), at(d.end_ns)),
                format!("duration {}", format_duration(d.dur_ns)),
            ],
            detail: serde_json::to_value(&d).unwrap_or_default(),
        })
    }
    fn clear_hover(&mut self) {
        self.hovered = None;
    }
    fn scene(&self) -> Scene {
        let mut s = self.frame.clone();
        s.width = self.width;
        s.height = self.height;
        let below = self.timeline.build(&self.geometry.colors, self.window.time_ns());
        let dy = self.geometry.height;
        s.rects.extend(below.rects.into_iter().map(|mut r| {
            r.y += dy;
            r
        }));
        s.lines.extend(below.lines.into_iter().map(|mut l| {
            l.y0 += dy;
            l.y1 += dy;
            l
        }));
        s.chrome += below.chrome;
        s.labels.extend(below.labels.into_iter().map(|mut l| {
            l.y += dy;
            l
        }));
        // A store's strip: outside the slice held the starts are its windows' counts, in grey (all types),
        // and it says so where there is room.
        if let Some(st) = &self.stream {
            let tl = &self.timeline;
            let scale = tl.scale();
            let (xa, xb) = match st.held {
                Some((from, end, _)) => {
                    (scale.x(from as f64).clamp(tl.x0, tl.x1), scale.x(end.min(tl.t1_ns) as f64).clamp(tl.x0, tl.x1))
                }
                None => (tl.x0, tl.x0),
            };
            let parts = [(tl.x0, xa), (xb, tl.x1)];
            if let Some(&(a, b)) =
                parts.iter().filter(|(a, b)| b - a >= 160.0).max_by(|p, q| (p.1 - p.0).total_cmp(&(q.1 - q.0)))
            {
                let label =
                    crate::scene::Label::new(a + 8.0, dy + 14.0, OUTSIDE_SLICE, crate::scene::particles::TEXT, 11.0);
                s.labels.push(label.clipped(b - a - 16.0));
            }
        }
        if let Some(p) =
            self.hovered.and_then(|e| self.geometry.particle(&self.ev, e, self.window.time_ns(), self.window.fade_ns()))
        {
            let r = p.size * 0.5 + 3.0;
            s.rects.push(
                crate::scene::RectInstance::filled(p.x - r, p.y - r, 2.0 * r, 2.0 * r, 0)
                    .with_border(crate::scene::palette::HIGHLIGHT, 1.5)
                    .with_shape(crate::scene::Shape::Ellipse),
            );
        }
        s
    }
    fn particle_layer(&mut self) -> Option<ParticleLayer<'_>> {
        std::mem::swap(&mut self.pending_splats, &mut self.drawn_splats);
        self.pending_splats.clear();
        Some(ParticleLayer {
            particles: &self.particles,
            splats: &self.drawn_splats,
            clear_history: std::mem::take(&mut self.clear_history),
            max_density: self.raster.max_density(),
            min_opacity: self.min_opacity,
        })
    }
    fn brief(&self) -> serde_json::Value {
        let g = &self.geometry;
        let t = self.window.time_ns();
        // A store's pane: what it holds (from, end or null through the last window, fading), asks and waits for.
        let waiting = !self.holds(t);
        let store = self.stream.as_ref().map(|s| {
            let held = s.held.map(|(a, e, f)| (a, (e != u64::MAX).then_some(e), f));
            json!({
                "held": held, "asked": s.asked.map(|(a, _, f)| (a, f)), "in_flight": s.in_flight,
                "errors": s.errors, "window_ns": s.window_ns, "waiting": waiting,
            })
        });
        json!({
            "view": "particles",
            "t_ns": t, "span_ns": self.ev.span_ns, "playing": self.playing,
            "step_ns": self.playback.step_ns, "interval_ms": self.playback.interval_ms,
            "fade_ns": self.window.fade_ns(), "speed": speed_label(self.playback.speed_ns_per_s()),
            "min_opacity": self.min_opacity, "events": self.ev.len(), "live": self.window.live().len(),
            "particles": self.particles.len(), "splatted": self.splatted,
            "max_density": self.raster.max_density(),
            "legend": self.legend(),
            "plot": { "x0": g.x0, "x1": g.x1, "y_top": g.y_top, "y_bottom": g.y_bottom },
            "timeline": { "y0": g.height, "x0": self.timeline.x0, "x1": self.timeline.x1, "height": TIMELINE_PX,
                "t0_ns": self.timeline.t0_ns, "t1_ns": self.timeline.t1_ns },
            "t0_ns": self.strip.0, "t1_ns": self.strip.1, "first_event_ns": self.first_ns(),
            "per_segment": g.processes.per_segment, "processes": g.processes.slots,
            "min_duration_ns": self.ev.min_dur_ns, "max_duration_ns": self.ev.max_dur_ns,
            "store": store,
            "width": self.width, "height": self.height, "controls_px": CONTROLS_PX, "legend_px": LEGEND_PX,
        })
    }
    fn state(&self) -> serde_json::Value {
        let g = &self.geometry;
        let t = self.window.time_ns();
        // A sample of running particles with their events (for tests: hover them, compare the tooltip).
        let running: Vec<_> = self
            .window
            .live()
            .iter()
            .filter(|&&e| self.ev.end_ns(e as usize) > t)
            .take(64)
            .filter_map(|&e| {
                let p = g.particle(&self.ev, e as usize, t, self.window.fade_ns())?;
                Some(json!({ "x": p.x, "y": p.y, "event": self.ev.details(&self.trace, e as usize) }))
            })
            .collect();
        // Up to 32 history pixels with density, spread over the raster.
        let mut history = Vec::new();
        let n = self.raster.density.len();
        let stride = (n / 4096).max(1);
        for i in (0..n).step_by(stride) {
            if self.raster.density[i] > 0.0 && history.len() < 32 {
                let (x, y) = (i % self.raster.width as usize, i / self.raster.width as usize);
                history.push(json!([x, y, self.raster.density[i]]));
            }
        }
        let contents = json!({
            "history": history, "running": running,
            "segment_labels": self.frame.labels.iter().filter(|l| l.y > g.y_bottom).map(|l| l.text.clone()).collect::<Vec<_>>(),
        });
        super::with_contents(self.brief(), contents)
    }
    fn time_range(&self) -> Option<(f64, f64)> {
        Some(self.strip)
    }
    fn as_particles(&mut self) -> Option<&mut ParticlesPane> {
        Some(self)
    }
    fn set_time_range(&mut self, t0_ns: f64, t1_ns: f64) {
        if t0_ns.is_finite() && t1_ns.is_finite() && t1_ns > t0_ns {
            self.set_strip((t0_ns, t1_ns));
        }
    }
    /// Put back a saved animation, paused: its data time step, animation interval, minimum opacity and the
    /// time shown (the history is not saved; it starts empty). Values that do not fit are ignored.
    fn restore(&mut self, s: &serde_json::Value) {
        for key in ["step_ns", "interval_ms", "min_opacity"] {
            if let Some(v) = num(s, key) {
                let _ = self.configure(key, &v.to_string());
            }
        }
        if let (Some(t0), Some(t1)) = (num(s, "t0_ns"), num(s, "t1_ns")) {
            self.set_time_range(t0, t1);
        }
        if let Some(t) = s["t_ns"].as_u64() {
            self.playing = false;
            self.seek(t);
        }
    }

    fn options(&self) -> serde_json::Value {
        self.typed_options().describe()
    }
    fn configure(&mut self, key: &str, value: &str) -> Result<(), String> {
        let mut o = self.typed_options();
        o.parse(key, value).map_err(|e| e.to_string())?;
        match key {
            "tick" => self.tick(parse(key, value)?),
            "play" => {
                if self.window.time_ns() >= self.ev.span_ns {
                    self.seek(self.first_ns());
                }
                self.playing = true;
                self.owed_ms = 0.0;
            }
            "pause" => self.playing = false,
            "step" => {
                self.playing = false;
                self.step();
                self.refresh_particles();
            }
            "selection" if self.stream.is_some() => {
                if !o.selection.trim().is_empty() {
                    return Err("a store animates its communication and synchronization calls only (the events \
                                its particle tiles hold); open the trace whole to pick other events"
                        .into());
                }
            }
            "seek_ns" => self.seek(parse(key, value)?),
            "seek_x" => self.seek(self.timeline.time_at(parse(key, value)?)),
            "step_ns" => {
                let auto = default_playback(&self.ev, self.first_ns()).step_ns;
                self.playback.step_ns = o.step_ns.unwrap_or(auto).max(1);
                self.window.set_fade_ns(self.playback.fade_ns());
            }
            "interval_ms" => {
                self.playback.interval_ms = o.interval_ms;
                self.window.set_fade_ns(self.playback.fade_ns());
            }
            "min_opacity" => self.min_opacity = o.min_opacity,
            "clear_history" => self.reset_history(),
            "clear_fading" => {
                self.window.clear_fading(&self.ev);
                self.refresh_particles();
            }
            "segment_multiple" => {
                let m = o.segment_multiple;
                self.style.segment_multiple = (m > 0).then_some(m);
                self.relayout(false);
            }
            "selection" => {
                self.selection = EventSelection::parse(&o.selection);
                self.selection_text = o.selection;
                self.ev = ParticleEvents::build(&self.trace, &self.selection);
                self.playback = default_playback(&self.ev, self.first_ns());
                self.window = LiveWindow::new(self.playback.fade_ns());
                self.strip = self.whole_strip();
                self.relayout(true);
                self.seek(self.first_ns());
            }
            _ => return Err(format!("the particles view cannot {key} '{value}'")),
        }
        Ok(())
    }
}
