//! Matching B/E (begin/end) events into intervals, one thread at a time, with the repairs users of
//! chrome://tracing, Perfetto and speedscope expect. It must not touch X events (the builder nests and
//! clips those) and must not fail: every repair is a counted warning.
//!
//! The rules, in order:
//! 1. A thread's B/E events are sorted by timestamp, stably (file order breaks ties); if that moved
//!    anything, one `OutOfOrder` warning says how many events were out of order.
//! 2. Events with the same timestamp are matched as a group, in file order, except that an E naming a
//!    slice that is not the innermost open one waits until the rest of the group has been seen. This
//!    matches "E beta, E gamma" at one timestamp against "B beta, B gamma" (speedscope's
//!    `event-reordering-name-match.json`) and an E that precedes its B at the same timestamp (a
//!    zero-length slice, `zero-duration-events.json`).
//! 3. An E without a name (or with an empty one) closes the innermost open slice.
//! 4. An E whose name matches the innermost open slice closes it. An E whose name matches a slice
//!    further out closes that slice and every slice opened inside it, at the E's time (a child cannot
//!    outlive its parent): one `MismatchedEnd` warning (speedscope's `end-non-top-of-stack.json`). This
//!    is what Perfetto's slice tracker does: it ends the innermost open slice of that name and truncates
//!    the slices left open inside it to its end (its `misplaced_end_event` stat).
//! 5. An E that matches no open slice (or comes when none is open) is dropped: `UnmatchedEnd`, as in
//!    Perfetto. Closing the innermost slice instead (catapult's choice) would cut a correct slice
//!    short for a stray end (`too-many-end-events.json`).
//! 6. A B never closed is closed at the thread's last timestamp (of any event on it): `UnclosedBegin`.
//!    (Perfetto keeps such slices open-ended; the model has no open-ended intervals.)
//!
//! Intervals go to the builder in the order of their B events, so that slices with equal start and
//! duration nest in file order. The E that closes a slice (rules 3, 4) merges its args into the B's, its
//! values winning for keys both have (catapult and Perfetto do the same); slices closed for it (the inner
//! ones of rule 4) or at the thread's end keep their B's args.

use super::events::Converter;
use rustc_hash::FxHashMap as FxMap;
use std::collections::VecDeque;
use weft_model::{LocationId, RegionId, StringId, WarningKind};

/// One B or E event: its time, file position, and the region (B) or name (E) it carries.
#[derive(Clone, Copy, Debug)]
pub struct BeEvent {
    pub ts: i64,
    pub seq: u32,
    /// For B: the region id. For E: the name's string id, or `UNNAMED`.
    pub what: u32,
    pub begin: bool,
}

impl BeEvent {
    pub const UNNAMED: u32 = u32::MAX;
}

/// An interval waiting for the builder: pushed per location, sorted, so the builder's sort is linear.
#[derive(Clone, Copy, Debug)]
pub struct PendingInterval {
    pub start: i64,
    pub dur: u64,
    pub region: RegionId,
    /// File position of the event that began it (X, or the B of a B/E pair).
    pub seq: u32,
}

/// A thread's B/E events in file order, its intervals so far, and the latest time of any event on it.
pub struct ThreadSlices {
    pub be: Vec<BeEvent>,
    pub intervals: Vec<PendingInterval>,
    sorted: bool,
    pub max_ts: i64,
}

impl Default for ThreadSlices {
    fn default() -> Self {
        ThreadSlices { be: Vec::new(), intervals: Vec::new(), sorted: true, max_ts: i64::MIN }
    }
}

impl ThreadSlices {
    #[inline]
    pub fn push(&mut self, e: BeEvent) {
        if let Some(last) = self.be.last() {
            if e.ts < last.ts {
                self.sorted = false;
            }
        }
        self.max_ts = self.max_ts.max(e.ts);
        self.be.push(e);
    }
}

struct Open {
    region: RegionId,
    name: StringId,
    ts: i64,
    seq: u32,
}

/// The E events of the current timestamp group that wait for the rest of the group, in file order, and
/// indexed by name so that a B meeting many waiting ends finds its match without scanning them all.
#[derive(Default)]
struct Pending {
    events: Vec<BeEvent>,
    done: Vec<bool>,
    by_name: FxMap<u32, VecDeque<usize>>,
}

impl Pending {
    fn push(&mut self, e: BeEvent) {
        self.by_name.entry(e.what).or_default().push_back(self.events.len());
        self.events.push(e);
        self.done.push(false);
    }

    fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// Take the first waiting end (in file order) that names `name`.
    fn take(&mut self, name: u32) -> Option<BeEvent> {
        let q = self.by_name.get_mut(&name)?;
        let k = q.pop_front()?;
        self.done[k] = true;
        Some(self.events[k])
    }

    /// The ends still waiting, in file order; empties the set.
    fn drain(&mut self) -> Vec<BeEvent> {
        let left = self.events.iter().zip(&self.done).filter(|(_, d)| !**d).map(|(e, _)| *e).collect();
        self.events.clear();
        self.done.clear();
        self.by_name.clear();
        left
    }
}

struct Matcher<'c> {
    conv: &'c mut Converter,
    location: LocationId,
    stack: Vec<Open>,
    /// For each name, the stack depths of the open slices of that name, innermost last: an end finds the
    /// slice it closes without scanning the stack (a stray end on a deep stack stays O(1)).
    depths: FxMap<u32, Vec<u32>>,
    out: Vec<(u32, i64, i64, RegionId)>,
}

impl Matcher<'_> {
    fn open(&mut self, o: Open) {
        self.depths.entry(o.name.0).or_default().push(self.stack.len() as u32);
        self.stack.push(o);
    }

    /// Close the innermost slice at `ts`; `end` is the E that names it, whose args merge into its B's.
    fn close_top(&mut self, ts: i64, end: Option<u32>) {
        if let Some(o) = self.stack.pop() {
            if let Some(d) = self.depths.get_mut(&o.name.0) {
                d.pop();
            }
            if let Some(e) = end.filter(|_| !self.conv.args_by_seq.is_empty()) {
                merge_end_args(self.conv, o.seq, e);
            }
            self.out.push((o.seq, o.ts, ts, o.region));
        }
    }

    /// Rules 3 and 4 (innermost only). False when the E must wait for the rest of its group.
    fn try_end(&mut self, e: &BeEvent) -> bool {
        if e.what == BeEvent::UNNAMED {
            if self.stack.is_empty() {
                self.unmatched(e);
            } else {
                self.close_top(e.ts, Some(e.seq));
            }
            return true;
        }
        match self.stack.last() {
            Some(top) if top.name.0 == e.what => {
                self.close_top(e.ts, Some(e.seq));
                true
            }
            _ => false,
        }
    }

    /// Rules 4 (further out) and 5, for an E that waited its group out.
    fn force_end(&mut self, e: &BeEvent) {
        match self.depths.get(&e.what).and_then(|d| d.last()).map(|&k| k as usize) {
            Some(k) => {
                let inner = self.stack.len() - 1 - k;
                let (name, top) =
                    (self.conv.text_of(StringId(e.what)), self.conv.text_of(self.stack[self.stack.len() - 1].name));
                let at = e.ts;
                self.conv.b.warn(WarningKind::MismatchedEnd, || {
                    format!("end of '{name}' at {at} ns while '{top}' was open inside it; closed both ({inner} inner)")
                });
                while self.stack.len() > k + 1 {
                    self.close_top(e.ts, None);
                }
                self.close_top(e.ts, Some(e.seq));
            }
            None => self.unmatched(e),
        }
    }

    fn unmatched(&mut self, e: &BeEvent) {
        let name =
            if e.what == BeEvent::UNNAMED { "(unnamed)".to_string() } else { self.conv.text_of(StringId(e.what)) };
        let (at, loc) = (e.ts, self.location.0);
        self.conv.b.warn(WarningKind::UnmatchedEnd, || {
            format!("end of '{name}' at {at} ns on location {loc} matches no open slice; dropped")
        });
    }

    /// After a B: waiting ends that now match the innermost slice close it, the first in file order
    /// first, as long as one names the new innermost slice. (Unnamed ends never wait.)
    fn retry(&mut self, pending: &mut Pending) {
        while let Some(top) = self.stack.last() {
            let Some(e) = pending.take(top.name.0) else {
                return;
            };
            self.close_top(e.ts, Some(e.seq));
        }
    }
}

/// Match one thread's B/E events and hand the intervals to the builder.
pub fn close_thread(conv: &mut Converter, location: LocationId, th: &mut ThreadSlices) {
    if th.be.is_empty() {
        return;
    }
    if !th.sorted {
        let before: Vec<u32> = th.be.iter().map(|e| e.seq).collect();
        th.be.sort_by_key(|e| e.ts);
        let moved = before.iter().zip(&th.be).filter(|(a, e)| **a != e.seq).count();
        let loc = location.0;
        conv.b.warn(WarningKind::OutOfOrder, || {
            format!("{moved} begin/end events on location {loc} were out of time order; sorted")
        });
    }
    let mut m = Matcher {
        conv,
        location,
        stack: Vec::new(),
        depths: FxMap::default(),
        out: Vec::with_capacity(th.be.len() / 2),
    };
    let mut pending = Pending::default();
    let be = &th.be;
    let mut i = 0;
    while i < be.len() {
        let ts = be[i].ts;
        let mut j = i;
        while j < be.len() && be[j].ts == ts {
            let e = be[j];
            if e.begin {
                let region = RegionId(e.what);
                let name = m.conv.region_name.get(region.index()).copied().unwrap_or(StringId::EMPTY);
                m.open(Open { region, name, ts, seq: e.seq });
                if !pending.is_empty() {
                    m.retry(&mut pending);
                }
            } else if m.try_end(&e) {
                if !pending.is_empty() {
                    m.retry(&mut pending);
                }
            } else {
                pending.push(e);
            }
            j += 1;
        }
        if !pending.is_empty() {
            for e in pending.drain() {
                m.force_end(&e);
            }
        }
        i = j;
    }
    let unclosed = m.stack.len() as u64;
    if unclosed > 0 {
        let end = th.max_ts;
        let (name, loc) = (m.conv.text_of(m.stack[0].name), location.0);
        m.conv.b.warn(WarningKind::UnclosedBegin, || {
            format!("'{name}' on location {loc} never ended; closed at the location's last time {end} ns")
        });
        m.conv.b.warnings_mut().add_count(WarningKind::UnclosedBegin, unclosed - 1);
        while !m.stack.is_empty() {
            m.close_top(end, None);
        }
    }
    th.intervals.extend(m.out.into_iter().map(|(seq, start, end, region)| PendingInterval {
        start,
        dur: (end - start).max(0) as u64,
        region,
        seq,
    }));
    th.be = Vec::new();
}

/// The E event `end` closed the slice its B event `begin` opened: the slice's args are the B's with the E's
/// merged in (the E's alone when the B had none).
pub(super) fn merge_end_args(conv: &mut Converter, begin: u32, end: u32) {
    let Some(&e) = conv.args_by_seq.get(&end) else { return };
    let merged = match conv.args_by_seq.get(&begin) {
        Some(&b) => conv.b.interval_arg_table().merge(b, e),
        None => Some(e),
    };
    if let Some(m) = merged {
        conv.args_by_seq.insert(begin, m);
    }
}

/// Sort a location's intervals the builder's way: start, longer first, file order (linear when sorted).
pub fn sort_pending(iv: &mut [PendingInterval]) {
    let key = |a: &PendingInterval, b: &PendingInterval| {
        a.start.cmp(&b.start).then(b.dur.cmp(&a.dur)).then(a.seq.cmp(&b.seq))
    };
    if !iv.is_sorted_by(|a, b| key(a, b).is_le()) {
        iv.sort_unstable_by(key);
    }
}

/// Hand a location's intervals to the builder in the builder's own order (start, longer first, file
/// order), so that its global sort meets one sorted run.
pub fn flush_intervals(conv: &mut Converter, location: LocationId, th: &mut ThreadSlices) {
    sort_pending(&mut th.intervals);
    let args = !conv.args_by_seq.is_empty();
    for p in th.intervals.iter() {
        conv.b.interval(location, p.region, p.start, p.dur);
        if args {
            if let Some(&e) = conv.args_by_seq.get(&p.seq) {
                conv.b.set_interval_args(e);
            }
        }
    }
    th.intervals = Vec::new();
}
