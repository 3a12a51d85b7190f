//! Where a trace's records come from: a trace file read whole, or a store folder answered lazily. A store is
//! opened from its manifest and definitions alone (`Store::skeleton`); a window's records are decoded from
//! the level-0 tiles that window needs (`exact_plan`, `exact_trace`: what the page's worker shows), and the
//! whole trace only when a question needs every record (`Store::to_trace`, once, then kept).
//!
//! A trace file's window is cut from the records in memory by the same rule the store's exact slice uses:
//! the intervals and collective rows reaching into [t0, t1], the instants and counter samples in it, the
//! messages whose send-to-receive span reaches into it. So a store's window equals its trace's.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use weft_analyses::moments::TimeWindow;
use weft_analyses::summary::TraceSummary;
use weft_index::folder::FolderStore;
use weft_model::{Collectives, Counters, EventArgs, Instants, Intervals, Messages, Trace};
use weft_store::read::query::{exact_plan, exact_trace, TileIndex};
use weft_store::{Store, StoreError, TileSource};

/// A store folder whose file reads are counted (`Trace._store_reads`: a window reads only its tiles).
pub struct CountedFolder {
    pub folder: FolderStore,
    pub reads: AtomicU64,
}

impl TileSource for CountedFolder {
    fn read(&self, path: &str) -> Result<Option<Vec<u8>>, String> {
        self.reads.fetch_add(1, Ordering::Relaxed);
        self.folder.read(path)
    }
}

/// A store opened lazily.
pub struct StoreSide {
    pub store: Store<CountedFolder>,
    /// The summary `weft info STORE` prints, from the manifest.
    pub summary: TraceSummary,
    /// Definitions, span and origin; no events.
    pub skeleton: Arc<Trace>,
}

/// A trace: the whole of it (read at open for a file, decoded on first need for a store).
pub struct Source {
    pub store: Option<StoreSide>,
    pub whole: OnceLock<Arc<Trace>>,
}

impl Source {
    pub fn trace(t: Trace) -> Source {
        Source { store: None, whole: OnceLock::from(Arc::new(t)) }
    }

    pub fn store(store: Store<CountedFolder>, summary: TraceSummary) -> Result<Source, StoreError> {
        let skeleton = Arc::new(store.skeleton()?);
        Ok(Source { store: Some(StoreSide { store, summary, skeleton }), whole: OnceLock::new() })
    }

    /// Definitions, span and origin (the whole trace's for a file).
    pub fn definitions(&self) -> &Trace {
        match (&self.store, self.whole.get()) {
            (Some(s), _) => &s.skeleton,
            (None, Some(t)) => t,
            (None, None) => unreachable!("a trace file's source is made whole"),
        }
    }

    /// The whole trace (a store's decoded from every tile, once).
    pub fn whole(&self) -> Result<Arc<Trace>, StoreError> {
        if let Some(t) = self.whole.get() {
            return Ok(t.clone());
        }
        let s = self.store.as_ref().expect("a source without its whole trace is a store");
        let t = Arc::new(s.store.to_trace()?);
        Ok(self.whole.get_or_init(|| t).clone())
    }

    /// The records of `w`: a store's from the tiles of the window (its counter samples are not in the exact
    /// slice: [`Source::counters_window`]), a file's cut from memory.
    pub fn window(&self, w: TimeWindow) -> Result<Arc<Trace>, StoreError> {
        let (t0, t1) = (w.start_ns, w.end_ns);
        match &self.store {
            Some(s) => {
                let m = &s.store.manifest;
                let nl = m.locations.process.len() as u32;
                let plan = exact_plan(m, &TileIndex::new(m), t0, t1, 0..nl);
                let tiles =
                    plan.tiles.iter().map(|&i| s.store.events_tile(&m.tiles[i])).collect::<Result<Vec<_>, _>>()?;
                Ok(Arc::new(exact_trace(&s.skeleton, &plan, &tiles.iter().collect::<Vec<_>>())))
            }
            None => Ok(Arc::new(cut(&*self.whole()?, t0, t1))),
        }
    }
}

impl Source {
    /// The counter samples of `w` (a store's from its whole trace: the exact slice keeps none).
    pub fn counters_window(&self, w: TimeWindow) -> Result<Arc<Trace>, StoreError> {
        Ok(Arc::new(cut(&*self.whole()?, w.start_ns, w.end_ns)))
    }
}

/// The records of `t` in [t0, t1] by [`weft_store`]'s exact-slice rule (the module's doc).
pub fn cut(t: &Trace, t0: u64, t1: u64) -> Trace {
    // Clamped to the span as the store's plan clamps them (`exact_plan`).
    let span = t.span_ns.max(1);
    let (t0, t1) = (t0.min(span), t1.min(span).max(t0.min(span)));
    let iv = &t.intervals;
    let mut intervals = Intervals::default();
    let mut location_intervals = Vec::with_capacity(t.locations.len());
    for range in &t.location_intervals {
        let first = intervals.len();
        for i in range.clone() {
            let (s, d) = (iv.start_ns[i], iv.dur_ns[i]);
            if s <= t1 && s + d >= t0 {
                intervals.location.push(iv.location[i]);
                intervals.region.push(iv.region[i]);
                intervals.start_ns.push(s);
                intervals.dur_ns.push(d);
                intervals.depth.push(iv.depth[i]);
            }
        }
        location_intervals.push(first..intervals.len());
    }
    let inst = &t.instants;
    let mut instants = Instants::default();
    for i in (0..inst.time_ns.len()).filter(|&i| (t0..=t1).contains(&inst.time_ns[i])) {
        instants.location.push(inst.location[i]);
        instants.region.push(inst.region[i]);
        instants.time_ns.push(inst.time_ns[i]);
    }
    let m = &t.messages;
    let mut messages = Messages::default();
    for j in (0..m.len()).filter(|&j| m.send_ns[j].min(m.recv_ns[j]) <= t1 && m.send_ns[j].max(m.recv_ns[j]) >= t0) {
        messages.kind.push(m.kind[j]);
        messages.sender.push(m.sender[j]);
        messages.receiver.push(m.receiver[j]);
        messages.send_ns.push(m.send_ns[j]);
        messages.recv_ns.push(m.recv_ns[j]);
        messages.posted_ns.push(m.posted_ns[j]);
        messages.size_bytes.push(m.size_bytes[j]);
        messages.tag.push(m.tag[j]);
        messages.name.push(m.name[j]);
    }
    let c = &t.collectives;
    let mut collectives = Collectives::default();
    for j in (0..c.len()).filter(|&j| c.start_ns[j] <= t1 && c.end_ns[j] >= t0) {
        collectives.operation.push(c.operation[j]);
        collectives.location.push(c.location[j]);
        collectives.region.push(c.region[j]);
        collectives.communicator.push(c.communicator[j]);
        collectives.root.push(c.root[j]);
        collectives.start_ns.push(c.start_ns[j]);
        collectives.end_ns.push(c.end_ns[j]);
        collectives.bytes_sent.push(c.bytes_sent[j]);
        collectives.bytes_received.push(c.bytes_received[j]);
    }
    let k = &t.counters;
    let mut counters =
        Counters { series_name: k.series_name.clone(), series_process: k.series_process.clone(), ..Default::default() };
    for i in (0..k.sample_time_ns.len()).filter(|&i| (t0..=t1).contains(&k.sample_time_ns[i])) {
        counters.sample_series.push(k.sample_series[i]);
        counters.sample_time_ns.push(k.sample_time_ns[i]);
        counters.sample_value.push(k.sample_value[i]);
    }
    intervals.args = EventArgs::default();
    Trace {
        format: t.format,
        strings: t.strings.clone(),
        processes: t.processes.clone(),
        locations: t.locations.clone(),
        regions: t.regions.clone(),
        intervals,
        instants,
        messages,
        collectives,
        counters,
        warnings: t.warnings.clone(),
        origin_ns: t.origin_ns,
        span_ns: t.span_ns,
        location_intervals,
        event_records: t.event_records,
    }
}
