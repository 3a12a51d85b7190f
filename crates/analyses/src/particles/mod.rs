//! Particle animation of communication (Sigovan, Muelder, Ma): which intervals are events, and an index of
//! them sorted by start so that the animation touches only the events of the current window.
//!
//! An *event* is one interval of a communication or synchronization region (MPI calls; NCCL, CUDA
//! synchronization and OpenMP barriers by default; for Chrome traces, whatever the user selects by category or
//! name). Its *type* is the region's name. The index is built once per trace and selection (one pass, one
//! sort; or the same in steps of bounded work, [`ParticleBuild`], for the page to yield between); everything
//! per frame lives in [`window`]. This module must not know pixels, colours or wall time.

pub mod window;

use crate::busy::{glob_match, is_wait_region};
use std::collections::HashMap;
use weft_model::sort::SortDyn;
use weft_model::{LocationId, ProcessId, RegionRole, Trace};

pub use window::{LiveWindow, Playback};

/// The category the Paraver reader gives state regions.
const PARAVER_STATE: &str = "Paraver state";

/// Events per block of the seek index (each block keeps the latest end of its events).
pub const SEEK_BLOCK: usize = 1024;

/// Which intervals become particles.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum EventSelection {
    /// Communication and synchronization regions: MPI calls, NCCL, CUDA synchronization, OpenMP and pthread
    /// waits (the definition the busy analysis uses).
    #[default]
    Communication,
    /// Regions whose name matches any of these globs (`*`, `?`).
    Names(Vec<String>),
    /// Regions whose category (Chrome `cat`) matches any of these globs.
    Categories(Vec<String>),
}

impl EventSelection {
    /// Parse the page's or CLI's selection text: empty for the default, `cat:GLOB,GLOB` for categories,
    /// else comma-separated name globs.
    pub fn parse(text: &str) -> EventSelection {
        let text = text.trim();
        let split = |s: &str| s.split(',').map(|g| g.trim().to_string()).filter(|g| !g.is_empty()).collect();
        if text.is_empty() {
            EventSelection::Communication
        } else if let Some(rest) = text.strip_prefix("cat:") {
            EventSelection::Categories(split(rest))
        } else {
            EventSelection::Names(split(text))
        }
    }

    /// Whether any region of `trace` is selected (a look at the regions, not the intervals): false means no
    /// event to animate.
    pub fn selects_any_region(&self, trace: &Trace) -> bool {
        (0..trace.regions.len()).any(|r| self.selects(trace, r))
    }

    fn selects(&self, trace: &Trace, r: usize) -> bool {
        let name = trace.str(trace.regions.name[r]);
        match self {
            EventSelection::Communication => is_communication_event(trace, r),
            EventSelection::Names(globs) => globs.iter().any(|g| glob_match(g, name)),
            EventSelection::Categories(globs) => {
                let cat = trace.str(trace.regions.category[r]);
                globs.iter().any(|g| glob_match(g, cat))
            }
        }
    }
}

/// Whether region `r`'s intervals are events by default ([`EventSelection::Communication`], and a store's
/// particle tiles): the regions busy = compute counts as waiting (`busy::is_wait_region`), but for
/// artificial ones (Score-P's `PARALLEL` around an MPI program), which are bookkeeping, not calls. A call is
/// one event over its whole interval, whatever runs nested in it (a task run inside a `taskwait`): the
/// particle shows the call's duration; the busy time (the moments) counts the task as busy.
pub fn is_communication_event(trace: &Trace, r: usize) -> bool {
    trace.regions.role[r] != RegionRole::Artificial && is_wait_region(trace, r)
}

/// The events of a trace, sorted by (start, slot, interval), as columns.
#[derive(Clone, Debug, Default)]
pub struct ParticleEvents {
    pub start_ns: Vec<u64>,
    pub dur_ns: Vec<u64>,
    /// Index into `types`.
    pub kind: Vec<u16>,
    /// The process's slot on the x axis (processes in display order).
    pub slot: Vec<u32>,
    /// The interval in the trace this event is (for hover details and a stable identity).
    pub interval: Vec<u32>,
    /// The event's location, for a slice of a store's events ([`EventSlicer`]: its trace has no intervals);
    /// empty for the whole trace's index (the interval's location).
    pub location: Vec<LocationId>,
    /// Event type names (region names), most frequent first.
    pub types: Vec<String>,
    /// Events per type.
    pub type_counts: Vec<u64>,
    /// Processes in slot order.
    pub slot_process: Vec<ProcessId>,
    /// Latest end of the events in each block of [`SEEK_BLOCK`].
    block_max_end: Vec<u64>,
    /// Shortest positive event duration (the floor of the duration axis), 1 ns if none.
    pub min_dur_ns: u64,
    /// Longest event duration (the top of the duration axis).
    pub max_dur_ns: u64,
    /// Time of the last event end.
    pub span_ns: u64,
}

impl ParticleEvents {
    /// Index the events `selection` picks from `trace`: one pass over the intervals and one sort.
    pub fn build(trace: &Trace, selection: &EventSelection) -> ParticleEvents {
        let mut build = ParticleBuild::new(trace, selection, usize::MAX);
        loop {
            if let Some(ev) = build.step(trace) {
                return ev;
            }
        }
    }

    pub fn len(&self) -> usize {
        self.start_ns.len()
    }
    pub fn is_empty(&self) -> bool {
        self.start_ns.is_empty()
    }
    #[inline]
    pub fn end_ns(&self, e: usize) -> u64 {
        self.start_ns[e] + self.dur_ns[e]
    }
    /// Number of process slots on the x axis.
    pub fn slots(&self) -> usize {
        self.slot_process.len()
    }
    /// The first event starting after `t_ns` (events before it have started by `t_ns`).
    pub fn first_after(&self, t_ns: u64) -> usize {
        self.start_ns.partition_point(|&s| s <= t_ns)
    }
    /// Latest end among events in block `b`.
    pub fn block_max_end(&self, b: usize) -> u64 {
        self.block_max_end[b]
    }
    /// The location (thread) of event `e`.
    pub fn location(&self, trace: &Trace, e: usize) -> LocationId {
        match self.location.get(e) {
            Some(&l) => l,
            None => trace.intervals.location[self.interval[e] as usize],
        }
    }

    /// The latest end of each block of [`SEEK_BLOCK`] events (the seek index), from the columns.
    fn index_blocks(&mut self) {
        let n = self.len();
        self.block_max_end.clear();
        for b in 0..n.div_ceil(SEEK_BLOCK) {
            let r = b * SEEK_BLOCK..((b + 1) * SEEK_BLOCK).min(n);
            let m = r.map(|e| self.end_ns(e)).max().unwrap_or(0);
            self.block_max_end.push(m);
        }
    }

    /// Event starts per type in `bins` equal bins over `[t0_ns, t1_ns)`: `counts[bin * types + type]`. Built
    /// once for the navigation timeline (one pass over the starts in range, found by binary search).
    pub fn starts_per_type(&self, t0_ns: u64, t1_ns: u64, bins: usize) -> Vec<u32> {
        let types = self.types.len();
        let mut counts = vec![0u32; bins * types];
        if bins == 0 || t1_ns <= t0_ns {
            return counts;
        }
        let width = (t1_ns - t0_ns) as f64 / bins as f64;
        let lo = self.start_ns.partition_point(|&s| s < t0_ns);
        let hi = self.start_ns.partition_point(|&s| s < t1_ns);
        for e in lo..hi {
            let b = (((self.start_ns[e] - t0_ns) as f64 / width) as usize).min(bins - 1);
            let c = &mut counts[b * types + self.kind[e] as usize];
            *c = c.saturating_add(1);
        }
        counts
    }

    /// Details of event `e` for the hover tooltip.
    pub fn details(&self, trace: &Trace, e: usize) -> EventDetails {
        let l = self.location(trace, e);
        let p = trace.locations.process[l.index()];
        EventDetails {
            event: e,
            call: self.types[self.kind[e] as usize].clone(),
            start_ns: self.start_ns[e],
            end_ns: self.end_ns(e),
            dur_ns: self.dur_ns[e],
            rank: trace.processes.native_id[p.index()],
            process: trace.process_name(p).to_string(),
            thread: trace.location_name(l).to_string(),
            thread_id: trace.locations.native_id[l.index()],
        }
    }
}

/// [`ParticleEvents`] as they cross from the worker to the page (postcard), ids as plain integers.
#[derive(serde::Serialize, serde::Deserialize)]
struct Wire {
    start_ns: Vec<u64>,
    dur_ns: Vec<u64>,
    kind: Vec<u16>,
    slot: Vec<u32>,
    interval: Vec<u32>,
    location: Vec<u32>,
    types: Vec<String>,
    type_counts: Vec<u64>,
    slot_process: Vec<u32>,
    min_dur_ns: u64,
    max_dur_ns: u64,
    span_ns: u64,
}

impl ParticleEvents {
    /// The events as bytes for the page ([`ParticleEvents::decode`]).
    pub fn encode(&self) -> Vec<u8> {
        let ids = |v: &[LocationId]| v.iter().map(|l| l.0).collect();
        let wire = Wire {
            start_ns: self.start_ns.clone(),
            dur_ns: self.dur_ns.clone(),
            kind: self.kind.clone(),
            slot: self.slot.clone(),
            interval: self.interval.clone(),
            location: ids(&self.location),
            types: self.types.clone(),
            type_counts: self.type_counts.clone(),
            slot_process: self.slot_process.iter().map(|p| p.0).collect(),
            min_dur_ns: self.min_dur_ns,
            max_dur_ns: self.max_dur_ns,
            span_ns: self.span_ns,
        };
        postcard::to_allocvec(&wire).unwrap_or_default()
    }

    /// Events encoded by [`ParticleEvents::encode`] for a trace of `trace`'s definitions: every column the
    /// same length, ids in range (types, slots, the trace's processes and locations), starts in order.
    pub fn decode(bytes: &[u8], trace: &Trace) -> Result<ParticleEvents, String> {
        let w: Wire = postcard::from_bytes(bytes).map_err(|e| format!("particle events: {e}"))?;
        let n = w.start_ns.len();
        let lens = [w.dur_ns.len(), w.kind.len(), w.slot.len(), w.interval.len(), w.location.len()];
        if lens.iter().any(|&l| l != n) || w.types.len() != w.type_counts.len() {
            return Err("particle events: columns of different lengths".into());
        }
        let (np, nl) = (trace.processes.len() as u32, trace.locations.len() as u32);
        if w.kind.iter().any(|&k| k as usize >= w.types.len())
            || w.slot.iter().any(|&s| s as usize >= w.slot_process.len())
            || w.slot_process.iter().any(|&p| p >= np)
            || w.location.iter().any(|&l| l >= nl)
            || w.start_ns.windows(2).any(|p| p[0] > p[1])
            || w.start_ns.iter().zip(&w.dur_ns).any(|(s, d)| s.checked_add(*d).is_none())
        {
            return Err("particle events: an id out of range or starts out of order".into());
        }
        let mut ev = ParticleEvents {
            start_ns: w.start_ns,
            dur_ns: w.dur_ns,
            kind: w.kind,
            slot: w.slot,
            interval: w.interval,
            location: w.location.into_iter().map(LocationId).collect(),
            types: w.types,
            type_counts: w.type_counts,
            slot_process: w.slot_process.into_iter().map(ProcessId).collect(),
            block_max_end: Vec::new(),
            min_dur_ns: w.min_dur_ns.max(1),
            max_dur_ns: w.max_dur_ns.max(w.min_dur_ns.max(1)),
            span_ns: w.span_ns,
        };
        ev.index_blocks();
        Ok(ev)
    }
}

/// [`ParticleEvents::build`] in steps of bounded work, so the page can yield between them (issue 16): keys of
/// `chunk` intervals at a time, each chunk sorted into a run; then the runs merged two at a time (keys are
/// unique, so the merged order is the one sort's), one merge a step; then the columns allocated; then filled
/// half a `chunk` of events at a time. With `chunk` = `usize::MAX` it is the one pass and one sort of
/// [`ParticleEvents::build`], which runs it so.
pub struct ParticleBuild {
    chunk: usize,
    region_type: Vec<u16>,
    process_slot: Vec<u32>,
    slot_process: Vec<ProcessId>,
    names: Vec<String>,
    counts: Vec<u64>,
    stage: BuildStage,
}

enum BuildStage {
    /// Intervals from `next` on not yet keyed; `runs` sorted.
    Keys { next: usize, runs: Vec<Vec<u128>> },
    /// Sorted runs, merged pairwise (front two each step) until one is left.
    Merge { runs: std::collections::VecDeque<Vec<u128>> },
    /// The events' keys in order; `ev` filled up to `ev.len()` (each event's start and slot from its key, its
    /// duration and type from its interval).
    Fill { keys: Vec<u128>, renumber: Vec<u16>, ev: Box<ParticleEvents> },
}

/// Which regions are events and of which type (by name), and each process's slot on the x axis: from the
/// definitions and which regions have intervals. The whole trace's index ([`ParticleBuild`]) and a store's
/// slices ([`EventSlicer`]) share it, so both pick and name the same events.
pub struct EventFrame {
    /// Per region: its type (index into `names`), `u16::MAX` when its intervals are not events.
    pub region_type: Vec<u16>,
    pub process_slot: Vec<u32>,
    pub slot_process: Vec<ProcessId>,
    /// Type names, in order of the regions' first appearance.
    pub names: Vec<String>,
}

impl EventFrame {
    /// The frame for `selection` over `trace`'s definitions (its intervals are not read); `used[r]`: whether
    /// region `r` has intervals.
    pub fn new(trace: &Trace, selection: &EventSelection, used: &[bool]) -> EventFrame {
        let used = |r: usize| used.get(r).copied().unwrap_or(false);
        let mut selected: Vec<bool> = (0..trace.regions.len()).map(|r| selection.selects(trace, r)).collect();
        // Paraver gives MPI twice: as calls (events) and as communication states on a parallel track. Calls
        // are the events; states only when the trace has no selected calls (a state-only Dimemas trace).
        let is_state = |r: usize| trace.str(trace.regions.category[r]) == PARAVER_STATE;
        if (0..selected.len()).any(|r| selected[r] && used(r) && !is_state(r)) {
            (0..selected.len()).filter(|&r| is_state(r)).for_each(|r| selected[r] = false);
        }
        // Processes in display order give slots; locations map to their process's slot.
        let mut slot_process: Vec<ProcessId> = (0..trace.processes.len() as u32).map(ProcessId).collect();
        slot_process.sort_dyn_by_key(|p| (trace.processes.sort_key[p.index()], p.0));
        let mut process_slot = vec![0u32; trace.processes.len()];
        for (s, p) in slot_process.iter().enumerate() {
            process_slot[p.index()] = s as u32;
        }
        // Types by name (a name in two categories is one type).
        let mut type_of_name: HashMap<&str, u16> = HashMap::new();
        let mut region_type = vec![u16::MAX; trace.regions.len()];
        let mut names: Vec<String> = Vec::new();
        for r in 0..trace.regions.len() {
            if !selected[r] {
                continue;
            }
            let name = trace.str(trace.regions.name[r]);
            let next = names.len();
            if next >= u16::MAX as usize {
                continue;
            }
            let t = *type_of_name.entry(name).or_insert_with(|| {
                names.push(name.to_string());
                next as u16
            });
            region_type[r] = t;
        }
        EventFrame { region_type, process_slot, slot_process, names }
    }

    /// Types renumbered by frequency (`counts`: events per type), so legends list the common calls first;
    /// types never called are dropped. Returns the renumbering, the names and the counts in the new order.
    pub fn by_count(&self, counts: &[u64]) -> (Vec<u16>, Vec<String>, Vec<u64>) {
        let names = &self.names;
        let mut by_count: Vec<usize> = (0..names.len()).filter(|&t| counts[t] > 0).collect();
        by_count.sort_dyn_by(|&a, &b| counts[b].cmp(&counts[a]).then(names[a].cmp(&names[b])));
        let mut renumber = vec![0u16; names.len()];
        for (new, &old) in by_count.iter().enumerate() {
            renumber[old] = new as u16;
        }
        (renumber, by_count.iter().map(|&t| names[t].clone()).collect(), by_count.iter().map(|&t| counts[t]).collect())
    }
}

/// What the index of all events knows of them as a whole: the duration axis's floor and top and the last end
/// (a store keeps it in its manifest, so a slice is laid out and played as the whole is).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EventExtent {
    /// The first event's start (where playback begins).
    pub first_ns: u64,
    pub min_dur_ns: u64,
    pub max_dur_ns: u64,
    pub span_ns: u64,
}

impl EventExtent {
    /// The extent of events given as (start, duration), as [`ParticleEvents::build`] finds it: the first
    /// start (0 if none), the shortest positive duration (1 ns if none), the longest (at least that), the
    /// latest end.
    pub fn of(events: impl Iterator<Item = (u64, u64)>) -> EventExtent {
        let (mut min, mut max, mut span, mut first) = (u64::MAX, 0u64, 0u64, u64::MAX);
        for (s, d) in events {
            first = first.min(s);
            if d > 0 {
                min = min.min(d);
            }
            max = max.max(d);
            span = span.max(s + d);
        }
        let min = if min == u64::MAX { 1 } else { min };
        let first = if first == u64::MAX { 0 } else { first };
        EventExtent { first_ns: first, min_dur_ns: min, max_dur_ns: max.max(min), span_ns: span }
    }
}

/// One event of a slice, as a store's particle tile holds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SliceEvent {
    pub location: LocationId,
    pub region: u32,
    pub start_ns: u64,
    pub dur_ns: u64,
    /// The interval's index in the whole trace (the particle's identity).
    pub interval: u32,
}

/// Slices of a trace's events, each a [`ParticleEvents`] holding only some of them (those of a few time
/// windows, for a store played window by window) with the whole index's types, counts, slots and extent: an
/// event of a slice has the whole index's type, slot and identity, so it is drawn where the whole draws it.
pub struct EventSlicer {
    region_type: Vec<u16>,
    location_slot: Vec<u32>,
    types: Vec<String>,
    type_counts: Vec<u64>,
    slot_process: Vec<ProcessId>,
    extent: EventExtent,
}

impl EventSlicer {
    /// The default selection over `skeleton`'s definitions; `region_intervals[r]`: region `r`'s interval count
    /// in the whole trace; `extent`: the whole selection's (see [`EventExtent::of`]).
    pub fn new(skeleton: &Trace, region_intervals: &[u64], extent: EventExtent) -> EventSlicer {
        let used: Vec<bool> =
            (0..skeleton.regions.len()).map(|r| region_intervals.get(r).is_some_and(|&n| n > 0)).collect();
        let frame = EventFrame::new(skeleton, &EventSelection::default(), &used);
        let mut counts = vec![0u64; frame.names.len()];
        for (r, &t) in frame.region_type.iter().enumerate() {
            if t != u16::MAX {
                counts[t as usize] += region_intervals.get(r).copied().unwrap_or(0);
            }
        }
        let (renumber, types, type_counts) = frame.by_count(&counts);
        let region_type =
            frame.region_type.iter().map(|&t| if t == u16::MAX { t } else { renumber[t as usize] }).collect();
        let location_slot = skeleton.locations.process.iter().map(|p| frame.process_slot[p.index()]).collect();
        EventSlicer { region_type, location_slot, types, type_counts, slot_process: frame.slot_process, extent }
    }

    /// The whole index's extent.
    pub fn extent(&self) -> EventExtent {
        self.extent
    }

    /// Whether region `r`'s intervals are events (a store's particle tiles also hold Paraver's communication
    /// states, left out here when the trace has calls).
    pub fn selects(&self, region: u32) -> bool {
        self.region_type.get(region as usize).is_some_and(|&t| t != u16::MAX)
    }

    /// The slice of `events` (ids checked by the caller against the definitions), ordered as the whole index
    /// orders them (start, slot, interval).
    pub fn slice(&self, events: impl Iterator<Item = SliceEvent>) -> ParticleEvents {
        let mut keyed: Vec<(u64, u32, u32, u16, u64, u32)> = events
            .filter(|e| self.selects(e.region))
            .map(|e| {
                let slot = self.location_slot[e.location.index()];
                (e.start_ns, slot, e.interval, self.region_type[e.region as usize], e.dur_ns, e.location.0)
            })
            .collect();
        keyed.sort_unstable();
        let n = keyed.len();
        let mut ev = ParticleEvents {
            start_ns: keyed.iter().map(|k| k.0).collect(),
            dur_ns: keyed.iter().map(|k| k.4).collect(),
            kind: keyed.iter().map(|k| k.3).collect(),
            slot: keyed.iter().map(|k| k.1).collect(),
            interval: keyed.iter().map(|k| k.2).collect(),
            location: keyed.iter().map(|k| LocationId(k.5)).collect(),
            types: self.types.clone(),
            type_counts: self.type_counts.clone(),
            slot_process: self.slot_process.clone(),
            block_max_end: Vec::with_capacity(n / SEEK_BLOCK + 1),
            min_dur_ns: self.extent.min_dur_ns,
            max_dur_ns: self.extent.max_dur_ns,
            span_ns: self.extent.span_ns,
        };
        ev.index_blocks();
        ev
    }
}

impl ParticleBuild {
    /// Prepare the index of the events `selection` picks (one pass over the regions and intervals' regions).
    pub fn new(trace: &Trace, selection: &EventSelection, chunk: usize) -> ParticleBuild {
        let mut used = vec![false; trace.regions.len()];
        trace.intervals.region.iter().for_each(|r| used[r.index()] = true);
        let EventFrame { region_type, process_slot, slot_process, names } = EventFrame::new(trace, selection, &used);
        let counts = vec![0u64; names.len()];
        ParticleBuild {
            chunk: chunk.max(1),
            region_type,
            process_slot,
            slot_process,
            names,
            counts,
            stage: BuildStage::Keys { next: 0, runs: Vec::new() },
        }
    }

    /// What the next [`ParticleBuild::step`] does, for the page's timings.
    pub fn next_part(&self) -> &'static str {
        match self.stage {
            BuildStage::Keys { .. } => "particle events: sort a chunk",
            BuildStage::Merge { .. } => "particle events: merge two runs",
            BuildStage::Fill { .. } => "particle events: fill the columns",
        }
    }

    /// One step of bounded work (about `chunk` intervals or events, or one merge of two runs); the index once
    /// the last step is done. `trace` must be the one given to [`ParticleBuild::new`].
    pub fn step(&mut self, trace: &Trace) -> Option<ParticleEvents> {
        let iv = &trace.intervals;
        match &mut self.stage {
            BuildStage::Keys { next, runs } => {
                // One packed key per event (start, then slot, then interval): plain integer sorts.
                let (from, to) = (*next, next.saturating_add(self.chunk).min(iv.len()));
                let mut keys: Vec<u128> = Vec::new();
                for i in from..to {
                    let t = self.region_type[iv.region[i].index()];
                    if t != u16::MAX {
                        let slot = self.process_slot[trace.locations.process[iv.location[i].index()].index()];
                        keys.push((iv.start_ns[i] as u128) << 64 | (slot as u128) << 32 | i as u128);
                        self.counts[t as usize] += 1;
                    }
                }
                keys.sort_unstable();
                if !keys.is_empty() {
                    runs.push(keys);
                }
                *next = to;
                if to >= iv.len() {
                    let runs = std::mem::take(runs).into();
                    self.stage = BuildStage::Merge { runs };
                }
                None
            }
            BuildStage::Merge { runs } => {
                if runs.len() > 1 {
                    // One merge a step; the columns' allocation gets a step of its own after the last.
                    let (a, b) = (runs.pop_front().unwrap_or_default(), runs.pop_front().unwrap_or_default());
                    runs.push_back(merge_sorted(&a, &b));
                    return None;
                }
                let keys = runs.pop_front().unwrap_or_default();
                self.stage = self.fill_stage(keys);
                None
            }
            BuildStage::Fill { keys, renumber, ev } => {
                // Half a chunk a step: the keys are in time order, the intervals by location, so each event's
                // two lookups (its duration and region) miss the cache.
                let (from, n) = (ev.len(), keys.len());
                let to = from.saturating_add(self.chunk.div_ceil(2)).min(n);
                for &k in &keys[from..to] {
                    let (s, slot, i) = ((k >> 64) as u64, (k >> 32) as u32, k as u32 as usize);
                    let d = iv.dur_ns[i];
                    ev.start_ns.push(s);
                    ev.dur_ns.push(d);
                    ev.kind.push(renumber[self.region_type[iv.region[i].index()] as usize]);
                    ev.slot.push(slot);
                    if d > 0 {
                        ev.min_dur_ns = ev.min_dur_ns.min(d);
                    }
                    ev.max_dur_ns = ev.max_dur_ns.max(d);
                    ev.span_ns = ev.span_ns.max(s + d);
                }
                if to < n {
                    return None;
                }
                let mut ev = std::mem::take(&mut **ev);
                ev.interval = keys.iter().map(|&k| k as u32).collect();
                if ev.min_dur_ns == u64::MAX {
                    ev.min_dur_ns = 1;
                }
                ev.max_dur_ns = ev.max_dur_ns.max(ev.min_dur_ns);
                ev.index_blocks();
                Some(ev)
            }
        }
    }

    /// The columns to fill in `order`, types renumbered by frequency so legends list the common calls first
    /// (types never called are dropped).
    fn fill_stage(&mut self, keys: Vec<u128>) -> BuildStage {
        let frame = EventFrame {
            region_type: Vec::new(),
            process_slot: Vec::new(),
            slot_process: Vec::new(),
            names: std::mem::take(&mut self.names),
        };
        let (renumber, types, type_counts) = frame.by_count(&self.counts);
        let n = keys.len();
        let ev = ParticleEvents {
            start_ns: Vec::with_capacity(n),
            dur_ns: Vec::with_capacity(n),
            kind: Vec::with_capacity(n),
            slot: Vec::with_capacity(n),
            interval: Vec::new(),
            location: Vec::new(),
            types,
            type_counts,
            slot_process: std::mem::take(&mut self.slot_process),
            block_max_end: Vec::with_capacity(n / SEEK_BLOCK + 1),
            min_dur_ns: u64::MAX,
            max_dur_ns: 0,
            span_ns: 0,
        };
        BuildStage::Fill { keys, renumber, ev: Box::new(ev) }
    }
}

/// Two sorted runs as one sorted run.
fn merge_sorted(a: &[u128], b: &[u128]) -> Vec<u128> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if a[i] <= b[j] {
            out.push(a[i]);
            i += 1;
        } else {
            out.push(b[j]);
            j += 1;
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

/// What the hover tooltip says about one event.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct EventDetails {
    pub event: usize,
    pub call: String,
    pub start_ns: u64,
    pub end_ns: u64,
    pub dur_ns: u64,
    pub rank: i64,
    pub process: String,
    pub thread: String,
    pub thread_id: i64,
}
