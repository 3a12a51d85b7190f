//! Stores in the browser (issue #17), both ends. The worker's [`StoreSession`]: the manifest parsed and
//! checked, a viewport planned into the tiles it needs (`store::query::plan`), each tile the page's script
//! fetched (a URL under `?store=`, or a file of a dropped folder) checked against the manifest and decoded
//! here and gathered into the answer as it comes (`store::query::{GridBuilder, ExactSlice}`), kept in the
//! byte-bounded LRU cache only where it fits the budget (`TileCache::admit`: a view needing more than the
//! budget streams through it), and the answer for the viewport (a summary grid, or the exact records as a
//! trace slice) encoded for the page. Particles: a playback range planned into particle tiles
//! (`store::query::particle_plan`), their events live in it gathered the same way (`ParticleGather`) and
//! answered as the whole index's slice (`analyses::particles::EventSlicer`). The page's side is
//! `store_view.rs`.
//!
//! Must not hold view logic (views::store does) or fetch anything itself (www/store-worker.js does).

use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;
use std::cell::RefCell;
use wasm_bindgen::prelude::*;
use weft_analyses::busy::{BusyDefinition, BusyIntervals};
use weft_analyses::moments::LocationMoments;
use weft_analyses::moments_bundle::MomentsBundle;
use weft_analyses::particles::{EventSlicer, ParticleEvents};
use weft_model::{codec, Trace};
use weft_store::read::query::grid_busy;
use weft_store::read::query::slice_columns::INTERVAL_COLUMNS;
use weft_store::read::query::{
    overlay_tiles, particle_plan, particle_slicer, particle_tile, particle_window_starts, plan_with_margin,
    CounterGather, Decoded, ExactSlice, GridBuilder, OverlayGather, ParticleGather, Plan, Resolution, TileCache,
    TileIndex, Viewport,
};
use weft_store::{Store, TileKind, TileSource};

mod calltree;
mod compare;

/// The one file being decoded: the script hands its bytes over, [`Store::payload`] checks them; and the
/// moments tiles, kept as fetched (a few dozen bytes a location) for `Store::moments`.
#[derive(Default)]
struct Handed {
    one: RefCell<Option<(String, Vec<u8>)>>,
    kept: RefCell<FxHashMap<String, Vec<u8>>>,
    /// The tiles a comparison reads (`compare`), handed for it and let go once its side is taken.
    lent: RefCell<FxHashMap<String, Vec<u8>>>,
}

impl TileSource for Handed {
    fn read(&self, path: &str) -> Result<Option<Vec<u8>>, String> {
        if let Some((p, b)) = self.one.borrow_mut().take() {
            if p == path {
                return Ok(Some(b));
            }
        }
        if let Some(b) = self.kept.borrow().get(path) {
            return Ok(Some(b.clone()));
        }
        Ok(self.lent.borrow().get(path).cloned())
    }
}

/// The answer being gathered for the viewport planned last.
enum Pending {
    None,
    Grid(GridBuilder),
    Exact(ExactSlice),
    Particles(ParticleGather),
}

impl Pending {
    fn feed(&mut self, counters: &mut Option<CounterGather>, store: &Store<Handed>, i: usize, tile: &Decoded) {
        match (self, tile) {
            (Pending::Grid(g), Decoded::Summary(bins)) => g.add(&store.manifest, i, bins),
            (Pending::Exact(x), Decoded::Events(t)) => x.add(t),
            (Pending::Exact(x), Decoded::Counters(c)) => x.add_counters(c),
            (Pending::Particles(g), Decoded::Particles(e)) => g.add(e),
            (_, Decoded::CounterBins(b)) => {
                if let Some(c) = counters {
                    c.add(&store.manifest, i, b);
                }
            }
            _ => {}
        }
    }
}

/// A store opened in the worker.
#[wasm_bindgen]
pub struct StoreSession {
    name: String,
    store: Store<Handed>,
    index: TileIndex,
    cache: TileCache,
    skeleton: Trace,
    plan: Option<Plan>,
    /// The answer for the viewport planned last, gathered tile by tile as tiles come (from the cache when
    /// planned, then each fetched one as it is decoded), so the view's tiles need not all be held at once.
    pending: Pending,
    /// What the counter tracks on screen are drawn from, gathered beside `pending` (a timeline's viewport).
    counters: Option<CounterGather>,
    /// Tiles of the plan gathered into `pending` (each once).
    fed: FxHashSet<usize>,
    /// The busy definition the moments view asked with the viewport planned last (None: the timeline's).
    busy: Option<BusyDefinition>,
    /// The whole run's stored moments of every location, for compute and any, once read.
    whole: [Option<Vec<LocationMoments>>; 2],
    /// Files that failed (path -> why), not asked for again in this session.
    failed: Vec<(String, String)>,
    /// The particle view's slices (None: the store has no particle events).
    slicer: Option<EventSlicer>,
    /// The timeline's viewport planned last and its margin (None after another view's), which
    /// [`StoreSession::prefetch`] looks around.
    last_view: Option<(Viewport, f64)>,
    /// The last viewport's steps inside the wasm, in ms ([`StoreSession::step_times`]).
    times: StepTimes,
    /// The diagnosis drawn over the timeline (a store indexed with `--waits`), asked beside each of its views.
    overlay: Overlay,
    /// The call-tree panel's ask planned last (`store/calltree.rs`), until answered.
    calltree: Option<calltree::CallAsk>,
}

/// Where the worker's time for a viewport goes (ms), for the page's timings (BENCHMARKS.md "Session 40").
#[derive(Clone, Copy, Default)]
struct StepTimes {
    /// The plan itself (tiles named), then what the cache holds of it gathered into the answer.
    plan: f64,
    gather: f64,
    /// The answer finished (an exact one sorted and written as columns), then copied out to JS.
    finish: f64,
    copy: f64,
}

/// The worker's clock (`performance.now()`, ms).
pub(crate) fn now_ms() -> f64 {
    let global = js_sys::global();
    let perf = js_sys::Reflect::get(&global, &"performance".into()).ok();
    let now = perf.as_ref().and_then(|p| {
        let f: js_sys::Function = js_sys::Reflect::get(p, &"now".into()).ok()?.dyn_into().ok()?;
        f.call0(p).ok()?.as_f64()
    });
    now.unwrap_or_else(js_sys::Date::now)
}

/// The diagnosis overlay asked beside the timeline's views ([`StoreSession::set_diagnosis`]): what is asked
/// (waiting per bin, the critical path), the overlay of the viewport planned last gathered as its tiles come,
/// those tiles, and the scale its path is folded to (a pyramid level's view; None for an exact one).
#[derive(Default)]
struct Overlay {
    waits: bool,
    path: bool,
    gather: Option<OverlayGather>,
    tiles: Vec<usize>,
    fold_px: Option<f64>,
    /// Each location's place in the rows' order (the skeleton's display order).
    rank: Vec<u32>,
}

impl Overlay {
    fn clear(&mut self) {
        self.gather = None;
        self.tiles.clear();
        self.fold_px = None;
    }

    fn feed(&mut self, m: &weft_store::Manifest, i: usize, tile: &Decoded) {
        let Some(g) = &mut self.gather else { return };
        match tile {
            Decoded::WaitBins(b) => g.add_bins(m, i, b),
            Decoded::Path(p) => g.add_path(p),
            _ => {}
        }
    }
}

fn err(name: &str, e: impl std::fmt::Display) -> JsValue {
    JsValue::from_str(&format!("{name}/{e}"))
}

/// About the bytes a decoded tile takes a record beyond its file's (an interval's columns and its share
/// of the rest), for [`StoreSession::prefetch`]'s estimate of what the cache has room for.
const DECODED_BYTES_PER_RECORD: u64 = 40;

/// The longest lines of each Diagnosis list a store's overview keeps.
const WAIT_LINES: usize = 200;

#[wasm_bindgen]
impl StoreSession {
    /// Open the store `name` from its `manifest.json` bytes, with a decoded-tile cache of `cache_bytes`
    /// (0: the default, 256 MB).
    #[wasm_bindgen(constructor)]
    pub fn new(name: String, manifest: &[u8], cache_bytes: f64) -> Result<StoreSession, JsValue> {
        let handed = Handed::default();
        *handed.one.borrow_mut() = Some((weft_store::MANIFEST.to_string(), manifest.to_vec()));
        let store = Store::open(handed).map_err(|e| err(&name, e))?;
        let skeleton = store.skeleton().map_err(|e| err(&name, e))?;
        let slicer = particle_slicer(&store.manifest, &skeleton);
        let mut rank = vec![0u32; skeleton.locations.len()];
        for (k, l) in skeleton.locations_in_display_order().iter().enumerate() {
            rank[l.index()] = k as u32;
        }
        let budget = if cache_bytes.is_finite() && cache_bytes >= 1.0 {
            cache_bytes as usize
        } else {
            weft_store::read::query::DEFAULT_CACHE_BYTES
        };
        Ok(StoreSession {
            index: TileIndex::new(&store.manifest),
            cache: TileCache::new(budget),
            name,
            store,
            skeleton,
            plan: None,
            pending: Pending::None,
            counters: None,
            fed: FxHashSet::default(),
            busy: None,
            whole: [None, None],
            failed: Vec::new(),
            slicer,
            last_view: None,
            times: StepTimes::default(),
            overlay: Overlay { rank, ..Default::default() },
            calltree: None,
        })
    }

    /// The header's summary (what `weft info STORE/` prints), as JSON.
    pub fn summary(&self) -> Result<String, JsValue> {
        let s = self.store.summary(10).map_err(|e| err(&self.name, e))?;
        Ok(serde_json::to_string(&s).unwrap_or_default())
    }

    /// The Diagnosis panel's lists for the whole run (`store::read::waits::overview`: the manifest's sums,
    /// no tile read, and `critical_path`: whether the store keeps the path), as JSON; `{"missing": why}` where the store keeps no wait states (indexed without
    /// `--waits`, or before format 6).
    pub fn waits(&self) -> Result<String, JsValue> {
        match weft_store::read::waits::overview(&self.store, &self.skeleton, WAIT_LINES)
            .map_err(|e| err(&self.name, e))?
        {
            Some(o) => {
                // Whether the timeline can draw the critical path (format 7 keeps it).
                let mut v = serde_json::to_value(&o).unwrap_or_default();
                if let Some(v) = v.as_object_mut() {
                    v.insert("critical_path".into(), self.store.manifest.critical_path.is_some().into());
                }
                Ok(v.to_string())
            }
            None => Ok(serde_json::json!({ "missing": weft_store::read::waits::missing(&self.store) }).to_string()),
        }
    }

    /// What the timeline's next views are answered with beside them (the Diagnosis panel's toggles; a store
    /// indexed with `--waits`): `waits`, each row's waiting per bin of the view's level (the finest where it
    /// is exact) from the wait summary tiles; `path`, the critical path's segments in the window from the path
    /// tiles of the rows' blocks. The answer's `diagnosis` is then a postcard `WaitOverlay`.
    pub fn set_diagnosis(&mut self, waits: bool, path: bool) {
        (self.overlay.waits, self.overlay.path) = (waits, path);
    }

    /// The store's definitions without events (`model::codec`), for the page's rows and names.
    pub fn skeleton(&self) -> Vec<u8> {
        codec::encode(&self.skeleton)
    }

    /// Each location's lanes over the whole run (the manifest's `locations.lanes`; empty in a store written
    /// before they were kept), so the page's rows keep their heights from window to window.
    pub fn lanes(&self) -> Vec<u32> {
        self.store.manifest.locations.lanes.clone()
    }

    /// The particle view's frame: an empty slice with the whole index's types, slots and extent
    /// (`ParticleEvents::encode`), for `ParticlesPane::streamed`; empty when the store has no particle events.
    pub fn particle_frame(&self) -> Vec<u8> {
        self.slicer.as_ref().map_or_else(Vec::new, |s| s.slice(std::iter::empty()).encode())
    }

    /// Where particle playback begins and how the particle tiles are cut: `[first_ns, window_ns, windows]`,
    /// then each window's particle events (`store::query::particle_window_starts`).
    pub fn particle_geometry(&self) -> Vec<f64> {
        let m = &self.store.manifest;
        let first = self.slicer.as_ref().map_or(0, |s| s.extent().first_ns);
        let mut g = vec![first as f64, m.tiling.window_ns as f64, m.tiling.windows as f64];
        g.extend(particle_window_starts(m).into_iter().map(|n| n as f64));
        g
    }

    /// Plan a particle playback range (events live at some time in `[from_ns, to_ns]` with fading `fade_ns`)
    /// and return the store paths still to fetch; the answer (`kind: "particles"`) is the slice.
    pub fn plan_particles(&mut self, from_ns: f64, to_ns: f64, fade_ns: f64) -> Vec<String> {
        let (from, to, fade) = (from_ns.max(0.0) as u64, to_ns.max(0.0) as u64, fade_ns.max(0.0) as u64);
        let m = &self.store.manifest;
        let (tiles, end) = particle_plan(m, &self.index, from, to, fade);
        self.busy = None;
        self.last_view = None;
        self.cache.begin_view();
        self.fed.clear();
        self.pending =
            Pending::Particles(ParticleGather { t0_ns: from, end_ns: end, fade_ns: fade, events: Vec::new() });
        self.counters = None;
        self.overlay.clear();
        let need = self.gather(&tiles);
        self.plan = Some(Plan {
            resolution: Resolution::Exact,
            t0_ns: from,
            t1_ns: end,
            locations: 0..0,
            tiles,
            series: 0..0,
            counter_tiles: Vec::new(),
        });
        need
    }

    /// Plan the viewport and return the store paths still to fetch (those not cached and not failed before).
    /// What the cache holds of the plan is gathered into the answer now. `busy` ("compute" or "any"): the
    /// Utilization & moments view asks, and the answer is its busy intervals and moments (the moments
    /// tiles are fetched too, once); "": the timeline's answer, with the counter tracks of series
    /// `s0..s1` (those on screen). `margin`: where the timeline's view is answered exactly, the window widened
    /// by `margin` view widths on each side at the same scale, unless the wider one would not be answered
    /// exactly (`views::store::EXACT_MARGIN`: the page draws pans and zooms inside it without asking).
    #[allow(clippy::too_many_arguments)]
    pub fn plan(
        &mut self,
        t0_ns: f64,
        t1_ns: f64,
        loc0: u32,
        loc1: u32,
        width_px: f32,
        busy: &str,
        s0: u32,
        s1: u32,
        margin: f64,
    ) -> Vec<String> {
        let series = if busy.is_empty() { s0..s1.max(s0) } else { 0..0 };
        let vp = Viewport { t0_ns, t1_ns, locations: loc0..loc1, width_px, series };
        self.busy = match busy {
            "compute" => Some(BusyDefinition::Compute),
            "any" => Some(BusyDefinition::Any),
            _ => None,
        };
        let m = &self.store.manifest;
        // The margin for the timeline only (the moments view's busy intervals are of the window asked).
        let margin = if self.busy.is_none() { margin } else { 0.0 };
        let started = now_ms();
        let p = plan_with_margin(m, &self.index, &vp, margin);
        let planned = now_ms();
        self.last_view = self.busy.is_none().then(|| (vp.clone(), margin));
        self.cache.begin_view();
        self.fed.clear();
        self.pending = match GridBuilder::new(m, &p) {
            Some(g) => Pending::Grid(g),
            None => Pending::Exact(ExactSlice::new(&p)),
        };
        self.counters = self.busy.is_none().then(|| CounterGather::new(m, &p));
        self.overlay.clear();
        if self.busy.is_none() {
            let o = &mut self.overlay;
            o.gather = OverlayGather::new(m, &p, o.waits, o.path);
            if o.gather.is_some() {
                o.tiles = overlay_tiles(m, &self.index, &p, o.waits, o.path);
                // A pyramid level's view is drawn at its own scale (an exact one down to finer ones).
                let w = if margin > 0.0 { vp.width_px as f64 * (1.0 + 2.0 * margin) } else { vp.width_px as f64 };
                o.fold_px = (p.resolution != Resolution::Exact).then(|| (p.t1_ns - p.t0_ns) as f64 / w.max(1.0));
            }
        }
        let mut need = self.gather(&p.tiles);
        need.extend(self.gather(&p.counter_tiles));
        let overlay_tiles = self.overlay.tiles.clone();
        need.extend(self.gather(&overlay_tiles));
        self.times = StepTimes { plan: planned - started, gather: now_ms() - planned, ..StepTimes::default() };
        let m = &self.store.manifest;
        if self.busy.is_some() {
            let kept = self.store.source().kept.borrow();
            let moments = m.tiles.iter().filter(|e| e.kind == TileKind::Moments);
            need.extend(
                moments
                    .filter(|e| !kept.contains_key(&e.path) && !self.failed.iter().any(|(f, _)| *f == e.path))
                    .map(|e| e.path.clone()),
            );
        }
        self.plan = Some(p);
        need
    }

    /// Gather what the cache holds of `tiles` into the answer; the paths of the others still to fetch (not
    /// failed before).
    fn gather(&mut self, tiles: &[usize]) -> Vec<String> {
        let m = &self.store.manifest;
        let mut need = Vec::new();
        for &i in tiles {
            if self.cache.touch(i) {
                if let Some(d) = self.cache.peek(i) {
                    self.pending.feed(&mut self.counters, &self.store, i, d);
                    self.overlay.feed(&self.store.manifest, i, d);
                    self.fed.insert(i);
                }
            } else if !self.failed.iter().any(|(f, _)| *f == m.tiles[i].path) {
                need.push(m.tiles[i].path.clone());
            }
        }
        need
    }

    /// A fetched tile: checked against the manifest (size, hash, frame, kind, ids) and decoded into the cache.
    /// Err names the file; the file is then left out of the answers.
    pub fn add(&mut self, path: &str, bytes: Vec<u8>) -> Result<(), JsValue> {
        let m = &self.store.manifest;
        let Some(i) = m.tiles.iter().position(|e| e.path == path) else {
            return Err(err(&self.name, format!("{path}: not a tile of this store")));
        };
        *self.store_source().one.borrow_mut() = Some((path.to_string(), bytes));
        let e = &self.store.manifest.tiles[i];
        let decoded = match e.kind {
            TileKind::Events => self.store.events_tile(e).map(Decoded::Events),
            TileKind::Summary => self.store.summary_tile(e).map(Decoded::Summary),
            TileKind::Particles => particle_tile(&self.store, e).map(Decoded::Particles),
            TileKind::Counters => self.store.counter_tile(e).map(Decoded::Counters),
            TileKind::CounterSummary => self.store.counter_summary_tile(e).map(Decoded::CounterBins),
            TileKind::WaitSummary => self.store.wait_bins_tile(e).map(Decoded::WaitBins),
            TileKind::CriticalPath => self.store.path_tile(e).map(Decoded::Path),
            // (No view asks for them: the panel lists the manifest's sums, the timeline draws the bins.)
            TileKind::Waits => return Err(err(&self.name, format!("{path}: waits tiles are not drawn by this page"))),
            TileKind::CallPaths => self.store.callpaths_tile(e).map(Decoded::CallPaths),
            TileKind::Moments => {
                // Checked now (size, hash, frame); decoded with the others by `Store::moments`.
                let kept = bytes_again(self.store_source(), path);
                return match self.store.payload(e) {
                    Ok(_) => {
                        self.store_source().kept.borrow_mut().insert(path.to_string(), kept);
                        Ok(())
                    }
                    Err(e) => Err(self.fail(path, e.to_string())),
                };
            }
        };
        match decoded {
            Ok(mut d) => {
                // Gathered into the answer now; kept only where the cache's budget allows (evicting tiles of
                // earlier views first), so the worker holds the budget plus one tile and the answer.
                let planned = self.plan.as_ref().is_some_and(|p| p.tiles.contains(&i) || p.counter_tiles.contains(&i))
                    || self.overlay.tiles.contains(&i);
                if planned && self.fed.insert(i) {
                    self.pending.feed(&mut self.counters, &self.store, i, &d);
                    self.overlay.feed(&self.store.manifest, i, &d);
                }
                d.compact();
                // A call-tree ask's tiles are held as a view's are (beyond the budget until the next view
                // begins): it is answered once they have all come.
                if self.calltree.as_ref().is_some_and(|a| a.tiles.contains(&i)) {
                    self.cache.insert(i, d);
                } else {
                    self.cache.admit(i, d);
                }
                Ok(())
            }
            Err(e) => Err(self.fail(path, e.to_string())),
        }
    }

    /// A file that could not be fetched (`why`), left out of the answers and named in them.
    pub fn fail(&mut self, path: &str, why: String) -> JsValue {
        let text = if why.starts_with(path) { why } else { format!("{path}: {why}") };
        if !self.failed.iter().any(|(p, _)| p == path) {
            self.failed.push((path.to_string(), text.clone()));
        }
        err(&self.name, text)
    }

    /// The answer for the viewport planned last: `{kind: "grid" | "exact" | "busy" | "particles", bytes,
    /// counters, t0, t1, loc0, loc1, level, fade, errors}` (counters: a postcard `CounterAnswer` beside a
    /// timeline's grid or exact answer, else empty; bytes: a postcard `SummaryGrid`, the exact slice as
    /// `model::codec` without its intervals, which come as `runs` (a Uint32Array), `intervals` (their count)
    /// and `columns` (one Uint8Array per `slice_columns::INTERVAL_COLUMNS`), for the moments view an
    /// `analyses::moments_bundle` of every location, or the particle slice as `ParticleEvents::encode` for
    /// the range [t0, t1) at fading `fade`; level: the pyramid level, 0 for exact records).
    pub fn answer(&mut self) -> Result<JsValue, JsValue> {
        let started = now_ms();
        let p = self.plan.clone().ok_or("no viewport was planned")?;
        let (errors, not_fed) = {
            let m = &self.store.manifest;
            let errors: Vec<String> = p
                .tiles
                .iter()
                .chain(&p.counter_tiles)
                .filter_map(|&i| self.failed.iter().find(|(f, _)| *f == m.tiles[i].path))
                .map(|(_, why)| why.clone())
                .collect();
            let not_fed: Vec<String> =
                p.tiles.iter().filter(|i| !self.fed.contains(i)).map(|&i| m.tiles[i].path.clone()).collect();
            if let Some(c) = &mut self.counters {
                p.counter_tiles
                    .iter()
                    .filter(|i| !self.fed.contains(i))
                    .for_each(|&i| c.missing(m.tiles[i].path.clone()));
            }
            (errors, not_fed)
        };
        // The counter tracks' figures beside a timeline's answer (postcard `CounterAnswer`; empty otherwise).
        let counters = match self.counters.take() {
            Some(c) => postcard::to_allocvec(&c.finish()).map_err(|e| err(&self.name, e))?,
            None => Vec::new(),
        };
        // The diagnosis over the timeline beside its answer (postcard `WaitOverlay`; empty when not asked).
        let diagnosis = match self.overlay.gather.take() {
            Some(mut g) => {
                let m = &self.store.manifest;
                for &i in self.overlay.tiles.iter().filter(|i| !self.fed.contains(i)) {
                    g.missing(m.tiles[i].path.clone());
                }
                let o = g.finish(self.overlay.fold_px.map(|px| (px, self.overlay.rank.as_slice())));
                postcard::to_allocvec(&o).map_err(|e| err(&self.name, e))?
            }
            None => Vec::new(),
        };
        let (nl, span) = (self.skeleton.locations.len(), self.store.manifest.span_ns);
        let mut fade = 0u64;
        let mut columns = None;
        let (kind, bytes, level) = match (std::mem::replace(&mut self.pending, Pending::None), self.busy.clone()) {
            (Pending::Particles(g), _) => {
                fade = g.fade_ns;
                let slicer =
                    self.slicer.as_ref().ok_or_else(|| err(&self.name, "this store has no particle events"))?;
                let ev: ParticleEvents = slicer.slice(g.events.into_iter());
                ("particles", ev.encode(), 0)
            }
            (Pending::Grid(mut g), busy) => {
                for path in not_fed {
                    g.missing(path);
                }
                let g = g.finish();
                let level = g.level;
                match busy {
                    None => ("grid", postcard::to_allocvec(&g).map_err(|e| err(&self.name, e))?, level),
                    Some(def) => {
                        let busy = grid_busy(&g, nl, span, def == BusyDefinition::Compute);
                        drop(g);
                        ("busy", self.moments_bundle(def, busy)?, level)
                    }
                }
            }
            (Pending::Exact(x), None) => {
                let mut c = x.columns(&self.skeleton);
                let rest = std::mem::take(&mut c.rest);
                columns = Some(c);
                ("exact", rest, 0)
            }
            (Pending::Exact(x), Some(def)) => {
                let busy = BusyIntervals::compute(&x.finish(&self.skeleton), &def);
                ("busy", self.moments_bundle(def, busy)?, 0)
            }
            (Pending::None, _) => return Err(err(&self.name, "this viewport was answered already")),
        };
        let finished = now_ms();
        let o = js_sys::Object::new();
        let set = |k: &str, v: JsValue| {
            let _ = js_sys::Reflect::set(&o, &k.into(), &v);
        };
        set("kind", kind.into());
        set("bytes", js_sys::Uint8Array::from(&bytes[..]).into());
        drop(bytes);
        set("counters", js_sys::Uint8Array::from(&counters[..]).into());
        set("diagnosis", js_sys::Uint8Array::from(&diagnosis[..]).into());
        // An exact answer's intervals as columns, each its own buffer (written, copied out and dropped one
        // at a time): the page copies each as it is (`views::store::StorePane::receive_column`).
        if let Some(c) = columns {
            set("runs", js_sys::Uint32Array::from(&c.runs()[..]).into());
            set("intervals", (c.intervals() as f64).into());
            let cols = js_sys::Array::new();
            for k in 0..INTERVAL_COLUMNS.len() {
                cols.push(&js_sys::Uint8Array::from(&c.column(k)[..]));
            }
            set("columns", cols.into());
        }
        set("t0", (p.t0_ns as f64).into());
        set("t1", (p.t1_ns as f64).into());
        set("loc0", p.locations.start.into());
        set("loc1", p.locations.end.into());
        set("level", level.into());
        set("fade", (fade as f64).into());
        set("errors", errors.serialize(&serde_wasm_bindgen::Serializer::json_compatible()).unwrap_or(JsValue::NULL));
        self.times.finish = finished - started;
        self.times.copy = now_ms() - finished;
        Ok(o.into())
    }

    /// Store paths to fetch in idle time after the timeline's answer for the viewport planned last (issue
    /// #58), so the next zoom or pan finds its tiles decoded: the tiles of the next finer view (a quarter of
    /// its width about its middle) and of the neighbouring windows (a view's width to each side, at its
    /// scale), each planned as the page asks (with its margin), nearest first; those held or failed left
    /// out, and only as many as the cache's budget has room for beside what it holds (a tile's size
    /// estimated from the manifest: its bytes and records), so what is fetched ahead never evicts a tile.
    pub fn prefetch(&self) -> Vec<String> {
        let Some((vp, margin)) = &self.last_view else { return Vec::new() };
        let m = &self.store.manifest;
        let (span, w) = (m.span_ns as f64, vp.t1_ns - vp.t0_ns);
        if w.is_nan() || w <= 0.0 {
            return Vec::new();
        }
        let mid = (vp.t0_ns + vp.t1_ns) / 2.0;
        let at = |t0_ns: f64, t1_ns: f64| Viewport { t0_ns, t1_ns, ..vp.clone() };
        let views = [at(mid - w / 8.0, mid + w / 8.0), at(vp.t1_ns, vp.t1_ns + w), at(vp.t0_ns - w, vp.t0_ns)];
        let mut room = self.cache.budget().saturating_sub(self.cache.used());
        let mut seen = FxHashSet::default();
        let mut out = Vec::new();
        for v in views.iter().filter(|v| v.t1_ns > 0.0 && v.t0_ns < span) {
            let p = plan_with_margin(m, &self.index, v, *margin);
            for &i in p.tiles.iter().chain(&p.counter_tiles) {
                let e = &m.tiles[i];
                if self.cache.contains(i) || !seen.insert(i) || self.failed.iter().any(|(f, _)| *f == e.path) {
                    continue;
                }
                let cost = e.bytes.saturating_add(e.records.saturating_mul(DECODED_BYTES_PER_RECORD)) as usize;
                if cost > room {
                    return out;
                }
                room -= cost;
                out.push(e.path.clone());
            }
        }
        out
    }

    /// Where the worker's time for the viewport planned last went, in ms: `[plan, gather, finish, copy]` (the
    /// plan itself; what the cache held of it gathered; the answer finished: an exact one sorted and written
    /// as columns; copied out to JS). Tiles fetched meanwhile are decoded and gathered outside them.
    pub fn step_times(&self) -> Vec<f64> {
        let t = &self.times;
        vec![t.plan, t.gather, t.finish, t.copy]
    }

    /// The window of the viewport planned last, `[t0, t1]` (ns from the store's origin; with its margin where
    /// it was kept): the worker skips a second part of an answer that would not be wider than the first.
    pub fn planned_window(&self) -> Vec<f64> {
        self.plan.as_ref().map_or_else(|| vec![0.0, 0.0], |p| vec![p.t0_ns as f64, p.t1_ns as f64])
    }

    /// Tiles the plan of the viewport planned last names (those cached when it was planned and those
    /// fetched for it).
    pub fn planned_tiles(&self) -> u32 {
        self.plan.as_ref().map_or(0, |p| (p.tiles.len() + p.counter_tiles.len()) as u32)
    }

    /// Bytes of decoded tiles held, and the cache's budget: `[used, budget, tiles]`.
    pub fn cache_stats(&self) -> Vec<f64> {
        vec![self.cache.used() as f64, self.cache.budget() as f64, self.cache.len() as f64]
    }
}

impl StoreSession {
    fn store_source(&self) -> &Handed {
        self.store.source()
    }

    /// The moments view's answer: `busy` with the whole run's stored moments (read once per definition).
    fn moments_bundle(&mut self, definition: BusyDefinition, busy: BusyIntervals) -> Result<Vec<u8>, JsValue> {
        let k = usize::from(definition == BusyDefinition::Any);
        if self.whole[k].is_none() {
            let rows = self.store.moments(&definition).map_err(|e| err(&self.name, e))?;
            self.whole[k] = Some(rows.ok_or_else(|| err(&self.name, "no stored moments for this definition"))?);
        }
        let rows = self.whole[k].clone().unwrap_or_default();
        Ok(MomentsBundle { definition, busy, rows }.encode())
    }
}

/// The bytes handed for `path`, copied (a moments tile is kept after its check consumed the handed copy).
fn bytes_again(h: &Handed, path: &str) -> Vec<u8> {
    h.one.borrow().as_ref().filter(|(p, _)| p == path).map(|(_, b)| b.clone()).unwrap_or_default()
}
