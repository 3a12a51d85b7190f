//! Async slices (nestable b/e, legacy S/F). Flows are in flows.rs.
//!
//! Async slices belong to a process, not a thread. They are matched by id, then laid out the way
//! Perfetto and catapult users expect: each tree of nested slices (one id's slices while any is open)
//! goes on an async track of its process named after the tree's root slice, and trees that overlap in
//! time go on separate tracks of that name, so slices on one track never overlap improperly.
//! An end's args merge into its begin's, as for B/E (`slices::merge_end_args`).
//! It must not read bytes (events.rs does) and must not fail: repairs are counted warnings.

use super::events::Converter;
use rustc_hash::FxHashMap as FxMap;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

use weft_model::{LocationId, LocationKind, ProcessId, RegionId, StringId, TraceBuilder, WarningKind};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AsyncKind {
    Begin,
    End,
}

/// (category, name for legacy S/F or empty for nestable b/e, id).
pub type AsyncKey = (StringId, StringId, u64);

/// An async event as read, kept to the end of the read (`streamed::ASYNC_EVENT_READ_BYTES`).
#[derive(Clone, Copy)]
pub(super) struct AsyncEvent {
    process: ProcessId,
    key: AsyncKey,
    kind: AsyncKind,
    region: RegionId,
    name: StringId,
    named: bool,
    ts: i64,
    seq: u32,
}

#[derive(Default)]
pub struct Asyncs {
    events: Vec<AsyncEvent>,
    /// Grow `events` by an eighth rather than doubling it (a read that counts what it keeps).
    pub grow_by_eighths: bool,
}

struct Tree {
    process: ProcessId,
    root_name: StringId,
    start: i64,
    end: i64,
    first_slice: usize,
}

struct Slice {
    tree: u32,
    /// The begin event's file position: its args' key.
    seq: u32,
    region: RegionId,
    start: i64,
    end: i64,
}

impl Asyncs {
    /// Async events read and not yet matched (kept to the end of the read).
    pub fn len(&self) -> usize {
        self.events.len()
    }

    /// Async events the memory kept for them holds (at least [`len`](Self::len)).
    pub fn capacity(&self) -> usize {
        self.events.capacity()
    }
    #[allow(clippy::too_many_arguments)]
    pub fn push(
        &mut self,
        process: ProcessId,
        key: AsyncKey,
        kind: AsyncKind,
        region: RegionId,
        name: StringId,
        named: bool,
        ts: i64,
        seq: u32,
    ) {
        if self.grow_by_eighths {
            grow_by_an_eighth(&mut self.events);
        }
        self.events.push(AsyncEvent { process, key, kind, region, name, named, ts, seq });
    }

    pub fn max_ts(&self) -> i64 {
        self.events.iter().map(|e| e.ts).max().unwrap_or(i64::MIN)
    }

    /// Match begins and ends, pack trees onto tracks, and hand the intervals to the builder.
    /// Slices still open are closed at `last_ts`, the trace's last timestamp.
    pub fn finish(mut self, conv: &mut Converter, last_ts: i64) {
        if self.events.is_empty() {
            return;
        }
        // Their memory at their number (grown by doubling, it may hold up to twice it), before the sort's
        // scratch and the slices are added to it.
        self.events.shrink_to_fit();
        self.events.sort_by_key(|e| (e.process, e.ts, e.seq));
        let mut open: FxMap<(ProcessId, AsyncKey), Vec<(usize, StringId)>> = FxMap::default();
        // Per open stack and name, the depths of that name's open slices, innermost last: a named end
        // finds its slice without scanning the stack.
        let mut depths: FxMap<(ProcessId, AsyncKey, StringId), Vec<u32>> = FxMap::default();
        let begins = self.events.iter().filter(|e| e.kind == AsyncKind::Begin).count();
        // At most a tree per begin.
        let mut trees: Vec<Tree> = Vec::with_capacity(begins);
        let mut slices: Vec<Slice> = Vec::with_capacity(begins);
        let mut current_tree: FxMap<(ProcessId, AsyncKey), u32> = FxMap::default();
        let (mut unmatched, mut mismatched) = (0u64, 0u64);
        for e in &self.events {
            let k = (e.process, e.key);
            // Only open stacks are kept (an id's entries go when its stack empties): the maps hold what is
            // open at once, not every id the trace used.
            if e.kind == AsyncKind::End && !open.contains_key(&k) {
                unmatched += 1;
                continue;
            }
            let stack = open.entry(k).or_default();
            match e.kind {
                AsyncKind::Begin => {
                    let tree = if stack.is_empty() {
                        trees.push(Tree {
                            process: e.process,
                            root_name: e.name,
                            start: e.ts,
                            end: e.ts,
                            first_slice: slices.len(),
                        });
                        let t = trees.len() as u32 - 1;
                        current_tree.insert(k, t);
                        t
                    } else {
                        current_tree.get(&k).copied().unwrap_or(0)
                    };
                    depths.entry((e.process, e.key, e.name)).or_default().push(stack.len() as u32);
                    stack.push((slices.len(), e.name));
                    slices.push(Slice { tree, seq: e.seq, region: e.region, start: e.ts, end: e.ts });
                }
                AsyncKind::End => {
                    if stack.is_empty() {
                        unmatched += 1;
                        continue;
                    }
                    // The same rules as B/E (slices.rs): an unnamed end closes the innermost slice,
                    // a named one closes its slice and those opened inside it, a stray one is dropped.
                    let from = if !e.named {
                        stack.len() - 1
                    } else {
                        match depths.get(&(e.process, e.key, e.name)).and_then(|d| d.last()) {
                            Some(&i) => {
                                let i = i as usize;
                                if i + 1 != stack.len() {
                                    mismatched += 1;
                                }
                                i
                            }
                            None => {
                                unmatched += 1;
                                continue;
                            }
                        }
                    };
                    if !conv.args_by_seq.is_empty() {
                        super::slices::merge_end_args(conv, slices[stack[from].0].seq, e.seq);
                    }
                    for (s, name) in stack.drain(from..) {
                        let dk = (e.process, e.key, name);
                        if let Some(d) = depths.get_mut(&dk) {
                            d.pop();
                            if d.is_empty() {
                                depths.remove(&dk);
                            }
                        }
                        slices[s].end = e.ts.max(slices[s].start);
                        let t = slices[s].tree as usize;
                        trees[t].end = trees[t].end.max(slices[s].end);
                    }
                    if stack.is_empty() {
                        open.remove(&k);
                        current_tree.remove(&k);
                    }
                }
            }
        }
        // The events are matched: their memory goes before the tracks are packed and the slices handed over.
        self.events = Vec::new();
        let mut unclosed = 0u64;
        for stack in open.values() {
            for &(s, _) in stack {
                unclosed += 1;
                slices[s].end = last_ts.max(slices[s].start);
                let t = slices[s].tree as usize;
                trees[t].end = trees[t].end.max(slices[s].end);
            }
        }
        warn_n(
            &mut conv.b,
            WarningKind::UnmatchedEnd,
            unmatched,
            "async end events matched no open async slice; dropped",
        );
        warn_n(
            &mut conv.b,
            WarningKind::MismatchedEnd,
            mismatched,
            "async end events named a slice other than the innermost open one",
        );
        warn_n(
            &mut conv.b,
            WarningKind::UnclosedBegin,
            unclosed,
            "async slices never ended; closed at the trace's last time",
        );

        // Pack trees onto tracks: per process and root name, the first track (in creation order) free at
        // the tree's start. Trees come in start order, so a track once free stays free: busy tracks wait
        // in a min-heap by end time, free ones in a min-heap by creation order (O(log n) per tree).
        // (Trees were made in the events' order, by process then time: already in start order.)
        debug_assert!(trees
            .windows(2)
            .all(|w| (w[0].process, w[0].start, w[0].first_slice) < (w[1].process, w[1].start, w[1].first_slice)));
        let mut groups: FxMap<(ProcessId, StringId), TrackGroup> = FxMap::default();
        let mut tracks_per_process: FxMap<ProcessId, i64> = FxMap::default();
        let mut tree_location = vec![LocationId(0); trees.len()];
        for (t, tree) in trees.iter().enumerate() {
            let g = groups.entry((tree.process, tree.root_name)).or_default();
            while let Some(&Reverse((end, lane))) = g.busy.peek() {
                if end > tree.start {
                    break;
                }
                g.busy.pop();
                g.free.push(Reverse(lane));
            }
            let lane = match g.free.pop() {
                Some(Reverse(lane)) => lane,
                None => {
                    let native = tracks_per_process.entry(tree.process).or_insert(0);
                    let loc = conv.b.location(tree.process, *native, LocationKind::AsyncTrack);
                    *native += 1;
                    let same = g.locations.len();
                    let base = conv.text_of(tree.root_name);
                    let name = if same == 0 { base } else { format!("{base} ({})", same + 1) };
                    conv.b.set_location_name(loc, &name);
                    g.locations.push(loc);
                    same
                }
            };
            g.busy.push(Reverse((tree.end, lane)));
            tree_location[t] = g.locations[lane];
        }
        drop(trees);
        // Reserved at their number: a column doubled past them would hold up to twice their bytes.
        let _ = conv.b.reserve_intervals(slices.len());
        for s in &slices {
            conv.b.interval(tree_location[s.tree as usize], s.region, s.start, (s.end - s.start) as u64);
            if let Some(&e) = conv.args_by_seq.get(&s.seq) {
                conv.b.set_interval_args(e);
            }
        }
    }
}

/// Room for one more in `v`, grown by an eighth rather than doubled: what a chunked read keeps to its end is
/// counted by the memory its lists hold (`streamed::Kept`), which then stays within an eighth of their
/// length. (A whole read doubles them: fewer copies where `realloc` copies, as in wasm.)
pub(super) fn grow_by_an_eighth<T>(v: &mut Vec<T>) {
    if v.len() == v.capacity() {
        v.reserve_exact((v.len() / 8).max(1024));
    }
}

/// The async tracks of one process and root name.
#[derive(Default)]
struct TrackGroup {
    locations: Vec<LocationId>,
    /// (end time, lane) of tracks whose last tree may still be running.
    busy: BinaryHeap<Reverse<(i64, usize)>>,
    /// Lanes free for any later tree.
    free: BinaryHeap<Reverse<usize>>,
}

pub(super) fn warn_n(b: &mut TraceBuilder, kind: WarningKind, n: u64, what: &'static str) {
    if n > 0 {
        b.warn(kind, || format!("{n} {what}"));
        b.warnings_mut().add_count(kind, n - 1);
    }
}
