//! Particle animation of communication (Sigovan, Muelder, Ma): which intervals are events, and an index of
//! them sorted by start so that the animation touches only the events of the current window.
//!
//! An *event* is one interval of a communication or synchronization region (MPI calls; NCCL, CUDA
//! synchronization and OpenMP barriers by default; for Chrome traces, whatever the user selects by category or
//! name). Its *type* is the region's name. The index is built once per trace and selection (one pass, one
//! sort; or the same in steps of bounded work, [`ParticleBuild`], for the page to yield between); everything
//! per frame lives in [`window`]. This module must not know pixels, colours or wall time.

pub mod window;

use crate::analyses::busy::{glob_match, is_communication_or_sync};
use crate::model::{LocationId, ProcessId, RegionRole, Trace};
use crate::sort::SortDyn;
use std::collections::HashMap;

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
            // Artificial regions (Score-P's `PARALLEL` around an MPI program) are bookkeeping, not calls.
            EventSelection::Communication => {
                let role = trace.regions.role[r];
                role != RegionRole::Artificial && is_communication_or_sync(name, trace.regions.paradigm[r], role)
            }
            EventSelection::Names(globs) => globs.iter().any(|g| glob_match(g, name)),
            EventSelection::Categories(globs) => {
                let cat = trace.str(trace.regions.category[r]);
                globs.iter().any(|g| glob_match(g, cat))
            }
        }
    }
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
        trace.intervals.location[self.interval[e] as usize]
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

/// [`ParticleEvents::build`] in steps of bounded work, so the page can yield between them (issue 16): keys of
/// `chunk` intervals at a time, each chunk sorted into a run; then the runs merged two at a time (keys are
/// unique, so the merged order is the one sort's), one merge a step; then the columns allocated; then filled
/// `chunk` events at a time. With
/// `chunk` = `usize::MAX` it is the one pass and one sort of [`ParticleEvents::build`], which runs it so.
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
    /// The order found; `ev` filled up to `ev.len()`.
    Fill { order: Vec<u32>, renumber: Vec<u16>, ev: Box<ParticleEvents> },
}

impl ParticleBuild {
    /// Prepare the index of the events `selection` picks (one pass over the regions and intervals' regions).
    pub fn new(trace: &Trace, selection: &EventSelection, chunk: usize) -> ParticleBuild {
        let mut selected: Vec<bool> = (0..trace.regions.len()).map(|r| selection.selects(trace, r)).collect();
        // Paraver gives MPI twice: as calls (events) and as communication states on a parallel track. Calls
        // are the events; states only when the trace has no selected calls (a state-only Dimemas trace).
        let is_state = |r: usize| trace.str(trace.regions.category[r]) == PARAVER_STATE;
        let mut used = vec![false; trace.regions.len()];
        trace.intervals.region.iter().for_each(|r| used[r.index()] = true);
        if (0..selected.len()).any(|r| selected[r] && used[r] && !is_state(r)) {
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
                let order: Vec<u32> = runs.pop_front().unwrap_or_default().iter().map(|&k| k as u32).collect();
                self.stage = self.fill_stage(order);
                None
            }
            BuildStage::Fill { order, renumber, ev } => {
                let (from, n) = (ev.len(), order.len());
                let to = from.saturating_add(self.chunk).min(n);
                for &i in &order[from..to] {
                    let i = i as usize;
                    let (s, d) = (iv.start_ns[i], iv.dur_ns[i]);
                    ev.start_ns.push(s);
                    ev.dur_ns.push(d);
                    ev.kind.push(renumber[self.region_type[iv.region[i].index()] as usize]);
                    ev.slot.push(self.process_slot[trace.locations.process[iv.location[i].index()].index()]);
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
                ev.interval = std::mem::take(order);
                if ev.min_dur_ns == u64::MAX {
                    ev.min_dur_ns = 1;
                }
                ev.max_dur_ns = ev.max_dur_ns.max(ev.min_dur_ns);
                for b in 0..n.div_ceil(SEEK_BLOCK) {
                    let r = b * SEEK_BLOCK..((b + 1) * SEEK_BLOCK).min(n);
                    ev.block_max_end.push(r.map(|e| ev.end_ns(e)).max().unwrap_or(0));
                }
                Some(ev)
            }
        }
    }

    /// The columns to fill in `order`, types renumbered by frequency so legends list the common calls first
    /// (types never called are dropped).
    fn fill_stage(&mut self, order: Vec<u32>) -> BuildStage {
        let (names, counts) = (&self.names, &self.counts);
        let mut by_count: Vec<usize> = (0..names.len()).filter(|&t| counts[t] > 0).collect();
        by_count.sort_dyn_by(|&a, &b| counts[b].cmp(&counts[a]).then(names[a].cmp(&names[b])));
        let mut renumber = vec![0u16; names.len()];
        for (new, &old) in by_count.iter().enumerate() {
            renumber[old] = new as u16;
        }
        let n = order.len();
        let ev = ParticleEvents {
            start_ns: Vec::with_capacity(n),
            dur_ns: Vec::with_capacity(n),
            kind: Vec::with_capacity(n),
            slot: Vec::with_capacity(n),
            interval: Vec::new(),
            types: by_count.iter().map(|&t| names[t].clone()).collect(),
            type_counts: by_count.iter().map(|&t| counts[t]).collect(),
            slot_process: std::mem::take(&mut self.slot_process),
            block_max_end: Vec::with_capacity(n / SEEK_BLOCK + 1),
            min_dur_ns: u64::MAX,
            max_dur_ns: 0,
            span_ns: 0,
        };
        BuildStage::Fill { order, renumber, ev: Box::new(ev) }
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
