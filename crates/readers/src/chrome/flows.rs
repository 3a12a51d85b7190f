//! Flow events: legacy v1 (`s` start, `t` step, `f` end) and v2 (`bind_id` with `flow_in`/`flow_out` on
//! an X or B event), matched independently of file order and bound to slices as the Trace Event Format
//! says.
//!
//! While reading, every flow end is kept as one 32-byte [`FlowEnd`]; nothing is matched until the file
//! is finished, because producers write ends in any order (PyTorch/Kineto writes a launch flow's `f`, on
//! the GPU stream, before its `s`, on the CPU thread). At the end:
//! 1. Ends are grouped by their key: v1 by (`cat`, `name`, id) where the id is `id`, or `id2.global`, or
//!    `id2.local` scoped to the event's process; v2 by `bind_id` (or `id`). Within a group they are taken
//!    in time order (starts before steps before ends at one timestamp, then file order), so an id reused
//!    for successive flows (catapult's `flow.json`) makes successive chains.
//! 2. Each end is bound to a slice of its thread (X or matched B/E): `s`, `t`, `f` with `bp: "e"` and v2
//!    ends to the enclosing slice (the innermost one with start <= ts <= end); an `f` without `bp: "e"` to
//!    the next slice, the innermost of those starting first at or after its ts, and the end moves to
//!    that slice's start. An end that binds to no slice is dropped (Perfetto and catapult drop them
//!    too), and counted.
//! 3. A chain walks start -> steps -> end; each link becomes one model message of kind `Flow`, named
//!    after the flow, from the earlier end's thread and time to the later's. A start while the chain is
//!    open and not yet continued (a duplicate id) is left out; it, a start never continued, and a step or
//!    end with no open chain are counted as unmatched.
//!
//! The model keeps locations and times, not slice ids: a bound end's time always lies in its slice, and
//! the timeline resolves it back to the innermost slice there (scene/timeline.rs), to draw the arrow from
//! slice to slice and name both in the hover.
//! It must not read bytes (events.rs does) and must not fail: repairs are counted warnings.

use super::asyncs::warn_n;
use super::slices::{PendingInterval, ThreadSlices};
use weft_model::{LocationId, MessageKind, MessageRecord, StringId, TraceBuilder, WarningKind};

/// Role of a flow end in its chain.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Role {
    Start = 0,
    Step = 1,
    End = 2,
}

const ROLE_MASK: u8 = 3;
/// Bind to the next slice rather than the enclosing one.
const BIND_NEXT: u8 = 4;
/// A v2 (`bind_id`) end: its key has no category or name.
const V2: u8 = 8;

/// One flow end as read: 32 bytes.
#[derive(Clone, Copy, Debug)]
struct FlowEnd {
    id: u64,
    ts: i64,
    cat: StringId,
    /// The flow's name (v1, part of the key) or the bound slice's name (v2, not part of the key).
    name: StringId,
    location: LocationId,
    flags: u8,
}

impl FlowEnd {
    fn role(&self) -> Role {
        match self.flags & ROLE_MASK {
            0 => Role::Start,
            1 => Role::Step,
            _ => Role::End,
        }
    }
    /// The matching key, then the order within a chain (file order breaks the remaining ties: stable sort).
    fn order(&self) -> (bool, StringId, StringId, u64, i64, Role) {
        let v2 = self.flags & V2 != 0;
        let name = if v2 { StringId::EMPTY } else { self.name };
        (v2, self.cat, name, self.id, self.ts, self.role())
    }
    fn same_key(&self, o: &FlowEnd) -> bool {
        let (a, b) = (self.order(), o.order());
        (a.0, a.1, a.2, a.3) == (b.0, b.1, b.2, b.3)
    }
}

/// Flow ends collected while reading, matched at [`Flows::finish`].
#[derive(Default)]
pub struct Flows {
    ends: Vec<FlowEnd>,
    /// Grow `ends` by an eighth rather than doubling it (a read that counts what it keeps).
    pub grow_by_eighths: bool,
}

/// A bound end: where its arrow starts or stops.
#[derive(Clone, Copy)]
struct Point {
    location: LocationId,
    ts: i64,
    name: StringId,
}

impl Flows {
    /// A v1 event (`s`, `t`, `f`); `bp_e` is `bp: "e"`. Keyed on (cat, name, id).
    #[allow(clippy::too_many_arguments)]
    pub fn v1(&mut self, ph: u8, cat: StringId, name: StringId, id: u64, location: LocationId, ts: i64, bp_e: bool) {
        let (role, next) = match ph {
            b's' => (Role::Start, false),
            b't' => (Role::Step, false),
            _ => (Role::End, !bp_e),
        };
        let flags = role as u8 | if next { BIND_NEXT } else { 0 };
        if self.grow_by_eighths {
            super::asyncs::grow_by_an_eighth(&mut self.ends);
        }
        self.ends.push(FlowEnd { id, ts, cat, name, location, flags });
    }

    /// A slice starting at `ts` that carries v2 flow fields: `flow_in` ends the flow arriving here,
    /// `flow_out` starts one (both: a step).
    pub fn v2(&mut self, id: u64, name: StringId, location: LocationId, ts: i64, flow_in: bool, flow_out: bool) {
        let role = match (flow_in, flow_out) {
            (true, true) => Role::Step,
            (true, false) => Role::End,
            _ => Role::Start,
        };
        if self.grow_by_eighths {
            super::asyncs::grow_by_an_eighth(&mut self.ends);
        }
        self.ends.push(FlowEnd { id, ts, cat: StringId::EMPTY, name, location, flags: role as u8 | V2 });
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Flow ends read and not yet matched (kept to the end of the read).
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Flow ends the memory kept for them holds (at least [`len`](Self::len)).
    pub fn capacity(&self) -> usize {
        self.ends.capacity()
    }

    /// Match, bind and emit the flows. `threads` holds every location's intervals, each sorted by
    /// [`super::slices::sort_pending`] (start, longer first, file order).
    pub fn finish(mut self, b: &mut TraceBuilder, threads: &[ThreadSlices]) {
        if self.ends.is_empty() {
            return;
        }
        self.ends.sort_by_key(|e| e.order());
        let binder = Binder::new(threads, &self.ends);
        self.chain(b, |_, e| binder.bind(e));
    }

    /// For a read whose threads come back one at a time (`streamed.rs`): sort the ends and group them by
    /// location (`locations` threads), ready for [`bind_location`](Self::bind_location).
    pub fn prepare(&mut self, locations: usize) -> FlowBinds {
        // Their memory at their number (grown by doubling, it may hold up to twice it) beside the binds.
        self.ends.shrink_to_fit();
        self.ends.sort_by_key(|e| e.order());
        let mut by_location: Vec<Vec<u32>> = vec![Vec::new(); locations];
        for (i, e) in self.ends.iter().enumerate() {
            if let Some(v) = by_location.get_mut(e.location.index()) {
                v.push(i as u32);
            }
        }
        FlowBinds { by_location, bound: vec![None; self.ends.len()] }
    }

    /// Bind the ends on location `l` to its intervals (sorted by `sort_pending`), as `finish` would.
    pub fn bind_location(&self, binds: &mut FlowBinds, l: usize, th: &ThreadSlices) {
        let Some(idx) = binds.by_location.get_mut(l) else { return };
        if idx.is_empty() {
            return;
        }
        let parents = parents_of(&th.intervals);
        for &i in idx.iter() {
            binds.bound[i as usize] = bind_in(&th.intervals, &parents, &self.ends[i as usize]);
        }
        *idx = Vec::new();
    }

    /// [`finish`](Self::finish) with every location's ends bound by [`bind_location`](Self::bind_location).
    pub fn finish_bound(self, b: &mut TraceBuilder, binds: &FlowBinds) {
        self.chain(b, |i, _| binds.bound[i]);
    }

    /// Chain the sorted ends key by key and emit the flows; `bind` gives an end's time on its slice.
    fn chain(&self, b: &mut TraceBuilder, bind: impl Fn(usize, &FlowEnd) -> Option<i64>) {
        let (mut unmatched, mut unbound) = (0u64, 0u64);
        let ends = &self.ends;
        let mut i = 0;
        while i < ends.len() {
            let mut j = i + 1;
            while j < ends.len() && ends[j].same_key(&ends[i]) {
                j += 1;
            }
            // One key's ends, in chain order: (open point, whether it was reached by a step).
            let mut open: Option<(Point, bool)> = None;
            for (k, e) in ends[i..j].iter().enumerate() {
                let Some(ts) = bind(i + k, e) else {
                    unbound += 1;
                    continue;
                };
                let here = Point { location: e.location, ts, name: e.name };
                match e.role() {
                    // A start while a chain is open and not yet continued is a duplicate id: kept
                    // out, so the earlier start meets the next end (Perfetto's choice; right for ids
                    // reused first-in first-out, as in catapult's flow.json).
                    Role::Start => match open {
                        Some((_, false)) => unmatched += 1,
                        _ => open = Some((here, false)),
                    },
                    Role::Step | Role::End => match open {
                        Some((from, _)) => {
                            message(b, &from, &here);
                            open = (e.role() == Role::Step).then_some((Point { name: from.name, ..here }, true));
                        }
                        None => unmatched += 1,
                    },
                }
            }
            if let Some((_, false)) = open {
                unmatched += 1;
            }
            i = j;
        }
        warn_n(b, WarningKind::UnmatchedFlow, unbound, "flow events bound to no slice on their thread; dropped");
        warn_n(b, WarningKind::UnmatchedFlow, unmatched, "flow events had no other end; dropped");
    }
}

fn message(b: &mut TraceBuilder, from: &Point, to: &Point) {
    b.message(MessageRecord {
        kind: MessageKind::Flow,
        sender: from.location,
        receiver: to.location,
        send_ns: from.ts,
        recv_ns: to.ts,
        posted_ns: to.ts,
        size_bytes: 0,
        tag: 0,
        name: from.name,
    });
}

/// Binds flow ends to the sorted intervals of their location. For the enclosing slice it walks up from
/// the last interval starting at or before ts through precomputed parents, so a bind costs a binary
/// search plus the nesting depth, never a scan of earlier siblings.
struct Binder<'a> {
    threads: &'a [ThreadSlices],
    /// Per location (only those with flow ends): each interval's enclosing interval, or u32::MAX.
    parents: Vec<Vec<u32>>,
}

impl<'a> Binder<'a> {
    fn new(threads: &'a [ThreadSlices], ends: &[FlowEnd]) -> Self {
        let mut parents: Vec<Vec<u32>> = vec![Vec::new(); threads.len()];
        let mut wanted = vec![false; threads.len()];
        for e in ends {
            if let Some(w) = wanted.get_mut(e.location.index()) {
                *w = true;
            }
        }
        for (l, th) in threads.iter().enumerate() {
            if wanted[l] {
                parents[l] = parents_of(&th.intervals);
            }
        }
        Binder { threads, parents }
    }

    /// The end's time on its bound slice, or None when it binds to none.
    fn bind(&self, e: &FlowEnd) -> Option<i64> {
        let l = e.location.index();
        bind_in(&self.threads.get(l)?.intervals, &self.parents[l], e)
    }
}

/// Where `e` binds among its location's intervals `iv` (sorted, with their `parents_of`).
fn bind_in(iv: &[PendingInterval], parents: &[u32], e: &FlowEnd) -> Option<i64> {
    if e.flags & BIND_NEXT != 0 {
        let p = iv.partition_point(|x| x.start < e.ts);
        let first = iv.get(p)?.start;
        return Some(first);
    }
    let mut k = iv.partition_point(|x| x.start <= e.ts).checked_sub(1)? as u32;
    loop {
        let x = &iv[k as usize];
        if end_of(x) >= e.ts {
            return Some(e.ts);
        }
        k = parents[k as usize];
        if k == u32::MAX {
            return None;
        }
    }
}

/// Each flow end's bound time, filled location by location (`Flows::bind_location`).
pub struct FlowBinds {
    by_location: Vec<Vec<u32>>,
    bound: Vec<Option<i64>>,
}

fn end_of(x: &PendingInterval) -> i64 {
    x.start.saturating_add(x.dur as i64)
}

/// For intervals sorted by (start, longer first), the index of each one's innermost enclosing interval
/// (u32::MAX for none): a stack sweep, linear. Slices that merely touch (one ends where the next
/// starts) are siblings.
fn parents_of(iv: &[PendingInterval]) -> Vec<u32> {
    let mut parents = Vec::with_capacity(iv.len());
    let mut stack: Vec<u32> = Vec::new();
    for (i, x) in iv.iter().enumerate() {
        while let Some(&top) = stack.last() {
            let t = &iv[top as usize];
            let nested = end_of(t) > x.start || (t.start == x.start && end_of(t) >= end_of(x));
            if nested {
                break;
            }
            stack.pop();
        }
        parents.push(stack.last().copied().unwrap_or(u32::MAX));
        stack.push(i as u32);
    }
    parents
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft_model::RegionId;

    fn iv(start: i64, dur: u64) -> PendingInterval {
        PendingInterval { start, dur, region: RegionId(0), seq: 0 }
    }

    #[test]
    fn a_flow_end_takes_32_bytes() {
        assert_eq!(std::mem::size_of::<FlowEnd>(), 32);
    }

    #[test]
    fn parents_follow_nesting_and_siblings_touch() {
        // [0,100] holds [0,10], [10,20] (touching siblings) and [30,40] holding [35,35].
        let v = [iv(0, 100), iv(0, 10), iv(10, 10), iv(30, 10), iv(35, 0), iv(200, 5)];
        assert_eq!(parents_of(&v), vec![u32::MAX, 0, 0, 0, 3, u32::MAX]);
    }

    #[test]
    fn binds_enclosing_innermost_and_next_slice() {
        let mut th = ThreadSlices::default();
        th.intervals = vec![iv(0, 100), iv(0, 10), iv(10, 10), iv(30, 10), iv(35, 0), iv(200, 5)];
        let threads = [th];
        let end = |ts: i64, flags: u8| FlowEnd {
            id: 0,
            ts,
            cat: StringId::EMPTY,
            name: StringId::EMPTY,
            location: LocationId(0),
            flags,
        };
        let ends = [end(0, 0)];
        let b = Binder::new(&threads, &ends);
        // Enclosing: inside [30,40] after the zero-length child; in a gap of [0,100]; past every slice.
        assert_eq!(b.bind(&end(37, 0)), Some(37));
        assert_eq!(b.bind(&end(60, 0)), Some(60));
        assert_eq!(b.bind(&end(150, 0)), None);
        assert_eq!(b.bind(&end(-5, 0)), None);
        // Next slice: moves to its start; none after the last.
        assert_eq!(b.bind(&end(150, Role::End as u8 | BIND_NEXT)), Some(200));
        assert_eq!(b.bind(&end(30, Role::End as u8 | BIND_NEXT)), Some(30));
        assert_eq!(b.bind(&end(201, Role::End as u8 | BIND_NEXT)), None);
    }

    use weft_model::{MessageKind, Trace, WarningKind};

    fn read(json: &str) -> Trace {
        crate::chrome::read("t.json", json.as_bytes()).expect("read")
    }

    /// (sender tid, send ns, receiver tid, recv ns) of each flow, times relative to the trace's origin.
    fn flows(t: &Trace) -> Vec<(i64, u64, i64, u64)> {
        let m = &t.messages;
        let tid = |l: LocationId| t.locations.native_id[l.index()];
        (0..m.len())
            .filter(|&j| m.kind[j] == MessageKind::Flow)
            .map(|j| (tid(m.sender[j]), m.send_ns[j], tid(m.receiver[j]), m.recv_ns[j]))
            .collect()
    }

    #[test]
    fn an_end_written_before_its_start_matches() {
        let t = read(
            r#"[{"ph":"X","name":"k","pid":0,"tid":7,"ts":50,"dur":10},
                {"ph":"f","id":1,"pid":0,"tid":7,"ts":50,"cat":"ac2g","name":"ac2g","bp":"e"},
                {"ph":"X","name":"op","pid":1,"tid":1,"ts":0,"dur":40},
                {"ph":"X","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":10,"dur":5},
                {"ph":"s","id":1,"pid":1,"tid":1,"ts":10,"cat":"ac2g","name":"ac2g"}]"#,
        );
        assert_eq!(flows(&t), vec![(1, 10_000, 7, 50_000)]);
        assert_eq!(t.warnings.count(WarningKind::UnmatchedFlow), 0);
        assert_eq!(t.str(t.messages.name[0]), "ac2g");
    }

    #[test]
    fn an_end_without_bp_e_binds_to_the_next_slice() {
        let t = read(
            r#"[{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":10},
                {"ph":"s","id":"x","pid":1,"tid":1,"ts":5,"cat":"c","name":"n"},
                {"ph":"f","id":"x","pid":1,"tid":2,"ts":20,"cat":"c","name":"n"},
                {"ph":"X","name":"b","pid":1,"tid":2,"ts":30,"dur":10}]"#,
        );
        assert_eq!(flows(&t), vec![(1, 5_000, 2, 30_000)]);
    }

    #[test]
    fn ends_on_no_slice_and_strays_are_dropped_and_counted() {
        // s outside any slice; f with bp e outside any slice; a lone f; a lone s.
        let t = read(
            r#"[{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":10},
                {"ph":"s","id":1,"pid":1,"tid":1,"ts":50,"cat":"c","name":"n"},
                {"ph":"f","id":1,"pid":1,"tid":1,"ts":60,"cat":"c","name":"n","bp":"e"},
                {"ph":"f","id":2,"pid":1,"tid":1,"ts":5,"cat":"c","name":"n","bp":"e"},
                {"ph":"s","id":3,"pid":1,"tid":1,"ts":5,"cat":"c","name":"n"}]"#,
        );
        assert!(flows(&t).is_empty());
        assert_eq!(t.warnings.count(WarningKind::UnmatchedFlow), 4);
    }

    #[test]
    fn keys_hold_cat_name_and_scoped_ids() {
        // Same id, other category: no match. id2.local is per process; id2.global is not.
        let t = read(
            r#"[{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":100},
                {"ph":"X","name":"b","pid":2,"tid":2,"ts":0,"dur":100},
                {"ph":"s","id":1,"pid":1,"tid":1,"ts":1,"cat":"c","name":"n"},
                {"ph":"f","id":1,"pid":2,"tid":2,"ts":2,"cat":"other","name":"n","bp":"e"},
                {"ph":"s","id2":{"local":"0x5"},"pid":1,"tid":1,"ts":3,"cat":"c","name":"n"},
                {"ph":"f","id2":{"local":"0x5"},"pid":2,"tid":2,"ts":4,"cat":"c","name":"n","bp":"e"},
                {"ph":"s","id2":{"global":"0x6"},"pid":1,"tid":1,"ts":5,"cat":"c","name":"n"},
                {"ph":"f","id2":{"global":"0x6"},"pid":2,"tid":2,"ts":6,"cat":"c","name":"n","bp":"e"}]"#,
        );
        assert_eq!(flows(&t), vec![(1, 5_000, 2, 6_000)]);
        assert_eq!(t.warnings.count(WarningKind::UnmatchedFlow), 4);
    }

    #[test]
    fn reused_ids_chain_in_time_order_and_steps_continue() {
        // s s f f with one id: the first start meets the first end; the duplicate start and the second
        // end are dropped. Then s t f written backwards: two links.
        let t = read(
            r#"[{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":100},
                {"ph":"X","name":"b","pid":1,"tid":2,"ts":0,"dur":100},
                {"ph":"f","id":9,"pid":1,"tid":2,"ts":40,"cat":"c","name":"n","bp":"e"},
                {"ph":"f","id":9,"pid":1,"tid":2,"ts":30,"cat":"c","name":"n","bp":"e"},
                {"ph":"s","id":9,"pid":1,"tid":1,"ts":20,"cat":"c","name":"n"},
                {"ph":"s","id":9,"pid":1,"tid":1,"ts":10,"cat":"c","name":"n"},
                {"ph":"f","id":8,"pid":1,"tid":1,"ts":90,"cat":"c","name":"n","bp":"e"},
                {"ph":"t","id":8,"pid":1,"tid":2,"ts":80,"cat":"c","name":"n"},
                {"ph":"s","id":8,"pid":1,"tid":1,"ts":70,"cat":"c","name":"n"}]"#,
        );
        let mut f = flows(&t);
        f.sort();
        assert_eq!(f, vec![(1, 10_000, 2, 30_000), (1, 70_000, 2, 80_000), (2, 80_000, 1, 90_000)]);
        assert_eq!(t.warnings.count(WarningKind::UnmatchedFlow), 2);
    }

    #[test]
    fn v2_flows_match_whatever_the_order() {
        let t = read(
            r#"[{"ph":"X","name":"in","pid":1,"tid":2,"ts":50,"dur":5,"bind_id":"0xa","flow_in":true},
                {"ph":"X","name":"out","pid":1,"tid":1,"ts":10,"dur":5,"bind_id":"0xa","flow_out":true}]"#,
        );
        // Times count from the first event (the `out` slice at 10 us).
        assert_eq!(flows(&t), vec![(1, 0, 2, 40_000)]);
        assert_eq!(t.str(t.messages.name[0]), "out");
    }
}
