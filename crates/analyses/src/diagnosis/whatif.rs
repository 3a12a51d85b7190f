//! What-if (issue #53; docs/diagnosis.md, "What-if: the replay model"): the run replayed with some regions'
//! time scaled, its waits removed and found again by the patterns' own rules, and the predicted span and new
//! critical path of that replayed run.
//!
//! [`replay`] re-times each location on its own, in the order of its records (enters and leaves as the
//! intervals' nesting gives them): the time between two records is kept, or scaled where the innermost region
//! open there is scaled, except inside the waiting part of a call (from its enter to `enter + w`, `w` the
//! call's recorded wait in [`WaitStates`]), which is removed. At the end of each call's waiting part the call
//! waits again, for what the patterns say it waits for, re-timed (`replay_rules.rs`): a receive
//! for the enter of its messages' send calls, a blocking send for the enter of the call that posted its
//! receive, a collective member for the others' enters by its kind. The replay holds fixed everything else:
//! the order of each location's records, the matching of messages and collectives, the time of work not
//! scaled, and waiting no rule explains (kept as recorded, after the re-timed waiting).
//!
//! A rule's cause recorded after the call's waiting end did not hold it up in the recording (an eager send
//! whose receive was posted after it left, clocks that disagree): it is left out, and the call's recorded
//! waiting held, so the recorded run is the replay's fixed point: at scale 1.0 every time comes back exactly as
//! recorded. Each
//! location waits for the others only where a rule says so; a location blocked on a cause not yet re-timed
//! waits, and where every unfinished location is blocked (causes that form a cycle, only with disagreeing
//! clocks) the earliest blocked wait goes on, its unknown causes taken to have moved as its own enter did
//! ([`ReplayNotes::forced_waits`]).
//!
//! Regions nested in a call's waiting part (rare: MPI calls seldom hold others) keep their time since the
//! call's enter, unscaled, and the waiting part ends no earlier than they do.
//!
//! Points that are not a record (message ends, collective ends, instants, counter samples) move with the
//! time of their location (and call) around them: inside a scaled stretch in proportion, inside a waiting part
//! by their time since the call's enter, never past the waiting part's re-timed end.

use weft_model::{LocationId, RegionId, Trace};

use super::calls::{OpLookup, Tie};
use super::critical_path::{critical_path, path_report, PathReport};
use super::replay_rules::{rules, CallRule, Term};
use super::waits::{posting_tie, wait_states, WaitStates};

/// Scale the exclusive (not waiting) time of a region by `factor` in the replay. A factor that is not finite
/// or below 0 is taken as 1.0 (the CLI refuses them with a message).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scale {
    pub region: RegionId,
    pub factor: f64,
}

/// What a replay could not do exactly by its rules, for the reader of a prediction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReplayNotes {
    /// Recorded waiting that no rule explains (a pattern without a rule, a cause the rules do not match),
    /// kept as recorded time.
    pub held_wait_ns: u64,
    /// Waits that went on before all their causes were re-timed, to break a cycle of waits (only with clocks
    /// that disagree): such a cause is taken to have moved as the waiting call did.
    pub forced_waits: u64,
}

/// The prediction: the recorded and predicted spans and the replayed run's critical path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WhatIf {
    pub recorded_span_ns: u64,
    pub predicted_span_ns: u64,
    pub path: PathReport,
    pub notes: ReplayNotes,
}

/// [`replay`], then the wait states and the critical path of the replayed run.
pub fn what_if(trace: &Trace, states: &WaitStates, scales: &[Scale]) -> WhatIf {
    let (replayed, notes) = replay_with_notes(trace, states, scales);
    let new_states = wait_states(&replayed);
    let path = critical_path(&replayed, &new_states);
    WhatIf {
        recorded_span_ns: trace.span_ns,
        predicted_span_ns: replayed.span_ns,
        path: path_report(&replayed, &path),
        notes,
    }
}

/// The run re-timed (the module's text): a copy of `trace` with new times, in the same order.
pub fn replay(trace: &Trace, states: &WaitStates, scales: &[Scale]) -> Trace {
    replay_with_notes(trace, states, scales).0
}

/// What lies between a record and the one before it on its location.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Piece {
    /// No region open.
    Outside,
    /// The innermost open region.
    Region(RegionId),
    /// The waiting part of this call (an interval index).
    Waiting(usize),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum What {
    Enter,
    Leave,
    /// The end of the call's waiting part: where it waits for its causes.
    WaitEnd,
}

/// One record of a location: an interval's enter or leave, or the end of a call's waiting part.
#[derive(Clone, Copy, Debug)]
struct Record {
    t: u64,
    what: What,
    interval: usize,
    before: Piece,
}

/// A location's records in order, the waiting parts' ends placed by their recorded time (`wait_end`: the
/// recorded end of each call's waiting part, for the calls that wait).
fn records(trace: &Trace, location: LocationId, wait_end: &dyn Fn(usize) -> Option<u64>) -> Vec<Record> {
    let iv = &trace.intervals;
    let range = trace.intervals_of(location);
    let mut out = Vec::with_capacity(range.len() * 2);
    // Open intervals, each with the end of its waiting part while that is still to come.
    let mut stack: Vec<(usize, Option<u64>)> = Vec::new();
    let piece = |stack: &[(usize, Option<u64>)]| match stack.iter().find(|e| e.1.is_some()) {
        Some(&(call, _)) => Piece::Waiting(call),
        None => stack.last().map_or(Piece::Outside, |&(i, _)| Piece::Region(iv.region[i])),
    };
    // The waiting parts that end before `t` (at `t` too, when `inclusive`) end first.
    let flush = |out: &mut Vec<Record>, stack: &mut Vec<(usize, Option<u64>)>, t: u64, inclusive: bool| {
        while let Some(k) = stack.iter().position(|e| e.1.is_some_and(|p| p < t || (inclusive && p == t))) {
            let before = piece(stack);
            let (call, p) = stack[k];
            out.push(Record { t: p.unwrap_or(t), what: What::WaitEnd, interval: call, before });
            stack[k].1 = None;
        }
    };
    let leave = |out: &mut Vec<Record>, stack: &mut Vec<(usize, Option<u64>)>| {
        let Some(&(j, _)) = stack.last() else { return };
        let t = iv.end_ns(j);
        // The call's own waiting part ends by its leave at the latest.
        flush(out, stack, t, true);
        out.push(Record { t, what: What::Leave, interval: j, before: piece(stack) });
        stack.pop();
    };
    for i in range {
        while stack.len() > iv.depth[i] as usize {
            leave(&mut out, &mut stack);
        }
        let s = iv.start_ns[i];
        flush(&mut out, &mut stack, s, true);
        out.push(Record { t: s, what: What::Enter, interval: i, before: piece(&stack) });
        // The waiting part's end within the call (a trace's rounding cannot put it outside).
        stack.push((i, wait_end(i).map(|p| p.clamp(s, iv.end_ns(i)))));
    }
    while !stack.is_empty() {
        leave(&mut out, &mut stack);
    }
    out
}

/// A location's progress through its records.
#[derive(Clone, Copy, Debug, Default)]
struct Cursor {
    /// The next record.
    at: usize,
    /// The replayed time of the last record done.
    now: u64,
    /// The recorded time of the last record done.
    then: u64,
}

struct Replay<'a> {
    trace: &'a Trace,
    factor: Vec<f64>,
    records: Vec<Vec<Record>>,
    /// The replayed time of each record (as far as done).
    times: Vec<Vec<u64>>,
    cursor: Vec<Cursor>,
    new_start: Vec<u64>,
    new_end: Vec<u64>,
    rules: rustc_hash::FxHashMap<usize, CallRule>,
    terms: Vec<Term>,
    causes: Vec<usize>,
    notes: ReplayNotes,
}

const UNSET: u64 = u64::MAX;

impl Replay<'_> {
    /// The replayed length of `d` recorded ns of `piece`. Inside a waiting part, records of regions nested in
    /// the waiting call keep their time since the call's enter (the waiting part's end is found apart).
    fn length(&self, piece: Piece, d: u64) -> u64 {
        match piece {
            Piece::Waiting(_) | Piece::Outside => d,
            Piece::Region(r) => scaled(d, self.factor[r.index()]),
        }
    }

    /// The replayed time at which call `call`'s waiting part ends: the rule's causes, re-timed, or the first
    /// cause not yet re-timed. With `force`, a term with a cause not yet re-timed is taken to have moved as the
    /// call's enter did (at its recorded time where nothing moved).
    fn wait_end(&mut self, call: usize, now: u64, force: bool) -> Result<u64, usize> {
        let Some(rule) = self.rules.get(&call) else { return Ok(now) };
        let mut released = now;
        let mut forced = false;
        for term in &self.terms[rule.terms.clone()] {
            let causes = &self.causes[term.causes.clone()];
            if let Some(&c) = causes.iter().find(|&&c| self.new_start[c] == UNSET) {
                if !force {
                    return Err(c);
                }
                forced = true;
                let moved = self.new_start[call] as i128 - self.trace.intervals.start_ns[call] as i128;
                let at = (term.recorded as i128 + moved).clamp(0, u64::MAX as i128) as u64;
                released = released.max(at);
                continue;
            }
            let starts = causes.iter().map(|&c| self.new_start[c]);
            let at = if term.min { starts.min() } else { starts.max() };
            if let Some(at) = at {
                released = released.max(at);
            }
        }
        self.notes.forced_waits += forced as u64;
        Ok(released.saturating_add(rule.held))
    }

    /// Runs location `l` until it ends or waits for a cause not yet re-timed (returned).
    fn run(&mut self, l: usize, force: bool, woken: &mut Vec<usize>) -> Option<usize> {
        let mut force = force;
        loop {
            let c = self.cursor[l];
            let &r = self.records[l].get(c.at)?;
            let mut now = c.now.saturating_add(self.length(r.before, r.t.saturating_sub(c.then)));
            match r.what {
                What::Enter => {
                    self.new_start[r.interval] = now;
                    woken.push(r.interval);
                }
                What::Leave => self.new_end[r.interval] = now,
                // From the call's re-timed enter, after anything nested in its waiting part.
                What::WaitEnd => match self.wait_end(r.interval, self.new_start[r.interval], force) {
                    Ok(t) => now = t.max(c.now),
                    Err(cause) => return Some(cause),
                },
            }
            force = false;
            self.times[l].push(now);
            self.cursor[l] = Cursor { at: c.at + 1, now, then: r.t };
        }
    }

    /// The replayed time of recorded time `t` on location `l`, with ties between records at `t` broken as
    /// `tie` says (the first of them for `Entered`, the last for `Leaving`).
    fn map(&self, l: LocationId, t: u64, tie: Tie) -> u64 {
        let (recs, times) = (&self.records[l.index()], &self.times[l.index()]);
        let lo = recs.partition_point(|r| r.t < t);
        let hi = recs.partition_point(|r| r.t <= t);
        if lo < hi {
            return match tie {
                Tie::Entered => times[lo],
                Tie::Leaving => times[hi - 1],
            };
        }
        let (base_t, base) = if lo == 0 { (0, 0) } else { (recs[lo - 1].t, times[lo - 1]) };
        let Some(next) = recs.get(lo) else {
            return base.saturating_add(t - base_t);
        };
        let at = match next.before {
            Piece::Outside => base.saturating_add(t - base_t),
            Piece::Region(r) => base.saturating_add(scaled(t - base_t, self.factor[r.index()])),
            Piece::Waiting(call) => {
                let (e, e2) = (self.trace.intervals.start_ns[call], self.new_start[call]);
                e2.saturating_add(t.saturating_sub(e)).max(base)
            }
        };
        at.min(times[lo])
    }

    /// [`map`](Self::map) kept within the re-timed call the point belongs to, where it belongs to one.
    fn map_in(&self, ops: &OpLookup, l: LocationId, t: u64, tie: Tie) -> u64 {
        let at = self.map(l, t, tie);
        match ops.op_at(l, t, tie) {
            Some(i) => at.clamp(self.new_start[i], self.new_end[i].max(self.new_start[i])),
            None => at,
        }
    }
}

/// `d` scaled by `f`, rounded; exact at 1.0.
fn scaled(d: u64, f: f64) -> u64 {
    if f == 1.0 {
        d
    } else {
        (d as f64 * f).round() as u64
    }
}

/// [`replay`], and what it could not do by its rules.
pub fn replay_with_notes(trace: &Trace, states: &WaitStates, scales: &[Scale]) -> (Trace, ReplayNotes) {
    let ops = OpLookup::new(trace);
    let mut factor = vec![1.0f64; trace.regions.len()];
    for s in scales {
        if let Some(f) = factor.get_mut(s.region.index()) {
            if s.factor.is_finite() && s.factor >= 0.0 {
                *f = s.factor;
            }
        }
    }
    let found = rules(trace, &ops, states);
    let n = trace.locations.len();
    let records: Vec<Vec<Record>> = (0..n)
        .map(|l| {
            let wait_end = |i: usize| found.rules.get(&i).map(|r| r.wait_end_ns);
            self::records(trace, LocationId(l as u32), &wait_end)
        })
        .collect();
    let mut rp = Replay {
        trace,
        factor,
        times: records.iter().map(|r| Vec::with_capacity(r.len())).collect(),
        records,
        cursor: vec![Cursor::default(); n],
        new_start: vec![UNSET; trace.intervals.len()],
        new_end: vec![UNSET; trace.intervals.len()],
        rules: found.rules,
        terms: found.terms,
        causes: found.causes,
        notes: ReplayNotes { held_wait_ns: found.held_wait_ns, forced_waits: 0 },
    };

    // Each location runs until it waits for a cause; the cause's enter wakes it.
    let mut ready: Vec<usize> = (0..n).rev().collect();
    let mut blocked_on: Vec<Option<usize>> = vec![None; n];
    let mut waiters: rustc_hash::FxHashMap<usize, Vec<usize>> = Default::default();
    let mut woken = Vec::new();
    loop {
        while let Some(l) = ready.pop() {
            let cause = rp.run(l, false, &mut woken);
            wake(&mut woken, &mut waiters, &mut blocked_on, &mut ready);
            if let Some(c) = cause {
                blocked_on[l] = Some(c);
                waiters.entry(c).or_default().push(l);
            }
        }
        // Everything left waits: the earliest recorded wait goes on without its unknown causes.
        let stuck = (0..n).filter(|&l| blocked_on[l].is_some()).min_by_key(|&l| (rp.records[l][rp.cursor[l].at].t, l));
        let Some(l) = stuck else { break };
        blocked_on[l] = None;
        let cause = rp.run(l, true, &mut woken);
        wake(&mut woken, &mut waiters, &mut blocked_on, &mut ready);
        if let Some(c) = cause {
            blocked_on[l] = Some(c);
            waiters.entry(c).or_default().push(l);
        }
    }
    let out = retimed(trace, &ops, &rp);
    (out, rp.notes)
}

/// The locations blocked on the calls just entered (`woken`) are ready again.
fn wake(
    woken: &mut Vec<usize>,
    waiters: &mut rustc_hash::FxHashMap<usize, Vec<usize>>,
    blocked_on: &mut [Option<usize>],
    ready: &mut Vec<usize>,
) {
    for i in woken.drain(..) {
        for w in waiters.remove(&i).unwrap_or_default() {
            if blocked_on[w] == Some(i) {
                blocked_on[w] = None;
                ready.push(w);
            }
        }
    }
}

/// The trace with every time replaced by its replayed time.
fn retimed(trace: &Trace, ops: &OpLookup, rp: &Replay) -> Trace {
    let mut out = trace.clone();
    let iv = &mut out.intervals;
    for i in 0..iv.len() {
        let (s, e) = (rp.new_start[i], rp.new_end[i]);
        iv.start_ns[i] = s;
        iv.dur_ns[i] = e.saturating_sub(s);
    }
    for k in 0..out.instants.location.len() {
        out.instants.time_ns[k] = rp.map(trace.instants.location[k], trace.instants.time_ns[k], Tie::Entered);
    }
    let m = &trace.messages;
    let mut moved = out.messages.clone();
    for k in 0..m.len() {
        moved.send_ns[k] = rp.map_in(ops, m.sender[k], m.send_ns[k], Tie::Entered);
        moved.recv_ns[k] = rp.map_in(ops, m.receiver[k], m.recv_ns[k], Tie::Leaving);
        moved.posted_ns[k] = rp.map_in(ops, m.receiver[k], m.posted_ns[k], posting_tie(trace, k));
    }
    // Messages stay sorted by send time (a stable sort: unchanged where the order is).
    let mut order: Vec<usize> = (0..m.len()).collect();
    order.sort_by_key(|&k| (moved.send_ns[k], moved.recv_ns[k]));
    let mm = &mut out.messages;
    for (to, &k) in order.iter().enumerate() {
        mm.kind[to] = moved.kind[k];
        mm.sender[to] = moved.sender[k];
        mm.receiver[to] = moved.receiver[k];
        mm.send_ns[to] = moved.send_ns[k];
        mm.recv_ns[to] = moved.recv_ns[k];
        mm.posted_ns[to] = moved.posted_ns[k];
        mm.size_bytes[to] = moved.size_bytes[k];
        mm.tag[to] = moved.tag[k];
        mm.name[to] = moved.name[k];
    }
    let c = &trace.collectives;
    for k in 0..c.len() {
        out.collectives.start_ns[k] = rp.map_in(ops, c.location[k], c.start_ns[k], Tie::Entered);
        out.collectives.end_ns[k] = rp.map_in(ops, c.location[k], c.end_ns[k], Tie::Leaving);
    }
    // Counter samples belong to a process: they move with its first location that has intervals.
    let first: Vec<Option<LocationId>> = (0..trace.processes.len())
        .map(|p| {
            (0..trace.locations.len() as u32)
                .map(LocationId)
                .find(|&l| trace.locations.process[l.index()].index() == p && !trace.intervals_of(l).is_empty())
        })
        .collect();
    let k = &trace.counters;
    for s in 0..k.sample_time_ns.len() {
        let process = k.series_process[k.sample_series[s] as usize];
        if let Some(l) = first.get(process.index()).copied().flatten() {
            out.counters.sample_time_ns[s] = rp.map(l, k.sample_time_ns[s], Tie::Entered);
        }
    }
    out.span_ns = span(&out);
    out
}

/// The time of the last event, as the builder finds it.
fn span(t: &Trace) -> u64 {
    let iv = &t.intervals;
    let ends = (0..iv.len()).map(|i| iv.end_ns(i));
    ends.chain(t.instants.time_ns.iter().copied())
        .chain(t.messages.send_ns.iter().copied())
        .chain(t.messages.recv_ns.iter().copied())
        .chain(t.collectives.end_ns.iter().copied())
        .chain(t.counters.sample_time_ns.iter().copied())
        .max()
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnosis::waits::wait_states;
    use weft_model::{CollectiveRecord, Format, LocationKind, MessageKind, MessageRecord, StringId, TraceBuilder};

    /// A run built call by call: `l[k]` is rank k's one thread.
    struct Run {
        b: TraceBuilder,
        l: Vec<LocationId>,
        ops: u32,
    }

    impl Run {
        fn new(ranks: usize) -> Self {
            let mut b = TraceBuilder::new(Format::Generated);
            let l = (0..ranks)
                .map(|k| {
                    let p = b.process(k as i64);
                    b.location(p, 0, LocationKind::CpuThread)
                })
                .collect();
            Run { b, l, ops: 0 }
        }
        fn call(&mut self, rank: usize, name: &str, enter: i64, leave: i64) {
            let r = self.b.region(name, "");
            self.b.interval(self.l[rank], r, enter, (leave - enter) as u64);
        }
        fn message(&mut self, from: usize, to: usize, send: i64, posted: i64, recv: i64) {
            self.b.message(MessageRecord {
                kind: MessageKind::PointToPoint,
                sender: self.l[from],
                receiver: self.l[to],
                send_ns: send,
                recv_ns: recv,
                posted_ns: posted,
                size_bytes: 8,
                tag: 0,
                name: StringId::EMPTY,
            });
        }
        fn collective(&mut self, name: &str, members: &[(usize, i64, i64)], root: Option<usize>) {
            let r = self.b.region(name, "");
            for &(k, enter, leave) in members {
                self.b.interval(self.l[k], r, enter, (leave - enter) as u64);
                self.b.collective(CollectiveRecord {
                    operation: self.ops,
                    location: self.l[k],
                    region: r,
                    communicator: StringId::EMPTY,
                    root: root.map(|x| self.l[x]),
                    start_ns: enter,
                    end_ns: leave,
                    bytes_sent: 0,
                    bytes_received: 0,
                });
            }
            self.ops += 1;
        }
    }

    fn region(t: &Trace, name: &str) -> RegionId {
        (0..t.regions.len() as u32).map(RegionId).find(|&r| t.region_name(r) == name).expect("region")
    }

    fn scale(t: &Trace, name: &str, factor: f64) -> Scale {
        Scale { region: region(t, name), factor }
    }

    /// Every time of the replay equals the recording's.
    fn assert_same_times(a: &Trace, b: &Trace) {
        assert_eq!(a.intervals.start_ns, b.intervals.start_ns);
        assert_eq!(a.intervals.dur_ns, b.intervals.dur_ns);
        assert_eq!(a.messages.send_ns, b.messages.send_ns);
        assert_eq!(a.messages.recv_ns, b.messages.recv_ns);
        assert_eq!(a.messages.posted_ns, b.messages.posted_ns);
        assert_eq!(a.collectives.start_ns, b.collectives.start_ns);
        assert_eq!(a.collectives.end_ns, b.collectives.end_ns);
        assert_eq!(a.instants.time_ns, b.instants.time_ns);
        assert_eq!(a.counters.sample_time_ns, b.counters.sample_time_ns);
        assert_eq!(a.span_ns, b.span_ns);
    }

    /// (name, enter, leave) of a location's intervals.
    fn calls(t: &Trace, rank: u32) -> Vec<(String, u64, u64)> {
        t.intervals_of(LocationId(rank))
            .map(|i| (t.region_name(t.intervals.region[i]).to_string(), t.intervals.start_ns[i], t.intervals.end_ns(i)))
            .collect()
    }

    fn c(name: &str, a: u64, b: u64) -> (String, u64, u64) {
        (name.to_string(), a, b)
    }

    /// Rank 0 computes [0,60] and sends [60,62], then `tail` [62,90]; rank 1 computes [0,20], waits in MPI_Recv
    /// [20,70] for the send (late sender: 40), then `post` [70,110].
    fn late_sender() -> Trace {
        let mut r = Run::new(2);
        r.call(0, "compute", 0, 60);
        r.call(0, "MPI_Send", 60, 62);
        r.call(0, "tail", 62, 90);
        r.call(1, "work", 0, 20);
        r.call(1, "MPI_Recv", 20, 70);
        r.call(1, "post", 70, 110);
        r.message(0, 1, 61, 70, 70);
        r.b.finish()
    }

    #[test]
    fn a_late_senders_receive_waits_for_the_re_timed_send() {
        let t = late_sender();
        let states = wait_states(&t);
        assert_eq!(states.waits.len(), 1, "{:?}", states.waits);
        let (same, notes) = replay_with_notes(&t, &states, &[]);
        assert_same_times(&t, &same);
        assert_eq!(notes, ReplayNotes::default());
        // compute on the path at 0.5: the send enters at 30; the receive waits for it from 20, then its 10 ns
        // after the wait: leave 40, post to 80.
        let fast = replay(&t, &states, &[scale(&t, "compute", 0.5)]);
        assert_eq!(calls(&fast, 0), [c("compute", 0, 30), c("MPI_Send", 30, 32), c("tail", 32, 60)]);
        assert_eq!(calls(&fast, 1), [c("work", 0, 20), c("MPI_Recv", 20, 40), c("post", 40, 80)]);
        assert_eq!((fast.messages.send_ns[0], fast.messages.recv_ns[0]), (31, 40));
        assert_eq!(fast.span_ns, 80);
        let w = what_if(&t, &states, &[scale(&t, "compute", 0.5)]);
        assert_eq!((w.recorded_span_ns, w.predicted_span_ns, w.path.length_ns), (110, 80, 80));
        // tail is off the path: the span stays.
        let w = what_if(&t, &states, &[scale(&t, "tail", 0.5)]);
        assert_eq!(w.predicted_span_ns, 110);
        // work is off the path too: rank 1 only waits longer.
        let slow = replay(&t, &states, &[scale(&t, "work", 0.5)]);
        assert_eq!(calls(&slow, 1), [c("work", 0, 10), c("MPI_Recv", 10, 70), c("post", 70, 110)]);
    }

    #[test]
    fn regions_nested_in_a_waiting_part_keep_their_time_since_the_enter() {
        // Rank 0's MPI_Wait [0,50] holds `progress` [10,20] and waits until rank 1's MPI_Isend at 40.
        let mut r = Run::new(2);
        r.call(0, "MPI_Wait", 0, 50);
        r.call(0, "progress", 10, 20);
        r.call(1, "work", 0, 40);
        r.call(1, "MPI_Isend", 40, 41);
        r.message(1, 0, 40, 0, 50);
        let t = r.b.finish();
        let states = wait_states(&t);
        assert_eq!(states.waits.len(), 1);
        assert_same_times(&t, &replay(&t, &states, &[]));
        let fast = replay(&t, &states, &[scale(&t, "work", 0.5)]);
        assert_eq!(calls(&fast, 0), [c("MPI_Wait", 0, 30), c("progress", 10, 20)]);
        let faster = replay(&t, &states, &[scale(&t, "work", 0.1)]);
        assert_eq!(calls(&faster, 0), [c("MPI_Wait", 0, 30), c("progress", 10, 20)], "the wait ends after progress");
    }

    #[test]
    fn a_receive_that_did_not_wait_waits_once_the_run_is_re_timed() {
        // The sender first: rank 1's MPI_Recv [50,52] did not wait for rank 0's MPI_Isend at 10.
        let mut r = Run::new(2);
        r.call(0, "setup", 0, 10);
        r.call(0, "MPI_Isend", 10, 11);
        r.call(1, "work", 0, 50);
        r.call(1, "MPI_Recv", 50, 52);
        r.message(0, 1, 10, 52, 52);
        let t = r.b.finish();
        let states = wait_states(&t);
        assert!(states.waits.is_empty());
        assert_same_times(&t, &replay(&t, &states, &[]));
        let fast = replay(&t, &states, &[scale(&t, "work", 0.1)]);
        assert_eq!(calls(&fast, 1), [c("work", 0, 5), c("MPI_Recv", 5, 12)], "waits for the send's enter at 10");
        let w = what_if(&t, &states, &[scale(&t, "work", 0.1)]);
        assert_eq!(w.predicted_span_ns, 12);
    }

    #[test]
    fn collectives_re_time_by_their_kind() {
        let mut r = Run::new(3);
        // Barrier: the last enters at 40 (rank 2, after `slow`), everyone leaves 5 ns later.
        r.call(0, "a", 0, 10);
        r.call(1, "a", 0, 20);
        r.call(2, "slow", 0, 40);
        r.collective("MPI_Barrier", &[(0, 10, 45), (1, 20, 45), (2, 40, 45)], None);
        // Bcast from rank 1, which enters last (at 60): the others wait for it.
        r.call(1, "b", 45, 60);
        r.collective("MPI_Bcast", &[(0, 45, 62), (1, 60, 62), (2, 45, 62)], Some(1));
        // Reduce to rank 0, which enters first (62): it waits for the first other (rank 2 at 70).
        r.call(1, "c", 62, 80);
        r.call(2, "c", 62, 70);
        r.collective("MPI_Reduce", &[(0, 62, 90), (1, 80, 82), (2, 70, 72)], Some(0));
        let t = r.b.finish();
        let states = wait_states(&t);
        assert!(states.waits.len() >= 5, "{:?}", states.waits);
        let (same, notes) = replay_with_notes(&t, &states, &[]);
        assert_same_times(&t, &same);
        assert_eq!(notes, ReplayNotes::default());
        // slow at 0.5: the barrier's last enter is 20 (rank 1): leaves at 25; the bcast root enters at 40,
        // everyone leaves at 42; the reduce's root enters at 42 and its first other (rank 2) at 50, so the
        // root leaves 20 ns (its time after the wait) later, at 70.
        let fast = replay(&t, &states, &[scale(&t, "slow", 0.5)]);
        assert_eq!(calls(&fast, 2)[..2], [c("slow", 0, 20), c("MPI_Barrier", 20, 25)]);
        assert_eq!(calls(&fast, 0)[1], c("MPI_Barrier", 10, 25));
        assert_eq!(calls(&fast, 1)[2..4], [c("b", 25, 40), c("MPI_Bcast", 40, 42)]);
        assert_eq!(calls(&fast, 0)[2], c("MPI_Bcast", 25, 42));
        assert_eq!(calls(&fast, 2)[3..], [c("c", 42, 50), c("MPI_Reduce", 50, 52)]);
        assert_eq!(calls(&fast, 0)[3], c("MPI_Reduce", 42, 70));
        assert_eq!(fast.span_ns, 70);
        let w = what_if(&t, &states, &[scale(&t, "slow", 0.5)]);
        assert_eq!((w.recorded_span_ns, w.predicted_span_ns), (90, 70));
        assert_eq!(w.path.length_ns, 70);
    }

    #[test]
    fn the_wait_states_test_run_replays_exactly_and_scaling_never_lengthens_it() {
        // The point-to-point cases of the patterns' own tests: late sender and receiver, Waitall with two
        // messages, a wait capped by the call's leave (clocks that disagree), a test that may not block.
        let mut r = Run::new(3);
        r.call(1, "MPI_Recv", 10, 50);
        r.call(0, "MPI_Send", 30, 35);
        r.message(0, 1, 31, 50, 50);
        r.call(0, "MPI_Ssend", 100, 160);
        r.call(1, "MPI_Irecv", 140, 145);
        r.call(1, "MPI_Wait", 150, 170);
        r.message(0, 1, 101, 141, 170);
        r.call(1, "MPI_Waitall", 200, 300);
        r.call(0, "MPI_Isend", 220, 222);
        r.call(2, "MPI_Isend", 260, 262);
        r.message(0, 1, 221, 205, 299);
        r.message(2, 1, 261, 205, 300);
        r.call(1, "MPI_Recv", 400, 420);
        r.call(0, "MPI_Send", 430, 440);
        r.message(0, 1, 431, 420, 420);
        r.call(0, "MPI_Send", 500, 560);
        r.call(1, "MPI_Recv", 530, 561);
        r.message(0, 1, 501, 561, 561);
        r.call(0, "MPI_Send", 600, 610);
        r.call(1, "MPI_Recv", 650, 660);
        r.message(0, 1, 601, 660, 660);
        r.call(2, "MPI_Isend", 700, 701);
        r.call(1, "MPI_Test", 690, 702);
        r.message(2, 1, 700, 680, 702);
        let t = r.b.finish();
        let states = wait_states(&t);
        let (same, notes) = replay_with_notes(&t, &states, &[]);
        assert_same_times(&t, &same);
        // Held: the receive [400,420] whose sender entered after it left (20), the send [600,610] whose receive
        // was posted after it left (10, an eager send): their causes did not hold them up.
        assert_eq!(notes, ReplayNotes { held_wait_ns: 30, forced_waits: 0 });
        for name in ["MPI_Send", "MPI_Recv", "MPI_Isend", "MPI_Waitall", "MPI_Ssend"] {
            for f in [0.0, 0.5] {
                let w = what_if(&t, &states, &[scale(&t, name, f)]);
                assert!(w.predicted_span_ns <= t.span_ns, "{name} at {f}: {w:?}");
                assert_eq!(w.path.length_ns, w.predicted_span_ns);
            }
        }
    }

    #[test]
    fn waiting_no_rule_explains_is_held_and_cycles_are_broken() {
        // A wait of the states on a call no rule knows (a thread wait, say) with no cause: held as recorded.
        let mut r = Run::new(2);
        r.call(0, "lock", 0, 40);
        r.call(0, "after", 40, 50);
        let t = r.b.finish();
        let lock = t.intervals_of(LocationId(0)).next().expect("lock");
        let states = WaitStates {
            waits: vec![super::super::waits::Wait {
                pattern: super::super::waits::Pattern::ThreadWait,
                location: LocationId(0),
                call: lock,
                start_ns: 0,
                end_ns: 30,
                cause_location: None,
                cause_ns: 0,
            }],
        };
        let (same, notes) = replay_with_notes(&t, &states, &[]);
        assert_same_times(&t, &same);
        assert_eq!(notes.held_wait_ns, 30);
        let fast = replay(&t, &states, &[scale(&t, "lock", 0.5)]);
        assert_eq!(calls(&fast, 0), [c("lock", 0, 35), c("after", 35, 45)], "only the 10 ns not waiting halve");

        // Two receives that each wait for a send the other location makes only after its receive left (clocks
        // that disagree): those sends did not hold the receives up: no rule, the waiting held.
        let mut r = Run::new(2);
        r.call(0, "MPI_Recv", 0, 10);
        r.call(0, "MPI_Send", 20, 21);
        r.call(1, "MPI_Recv", 0, 10);
        r.call(1, "MPI_Send", 20, 21);
        r.message(0, 1, 20, 10, 10);
        r.message(1, 0, 20, 10, 10);
        let t = r.b.finish();
        let states = wait_states(&t);
        let (same, notes) = replay_with_notes(&t, &states, &[]);
        assert_eq!(notes, ReplayNotes { held_wait_ns: 20, forced_waits: 0 });
        assert_same_times(&t, &same);
        // Two receives that each end exactly when the other location's send enters: a cycle of causes at one
        // time, broken at the earliest wait, whose cause is taken to have moved as its enter did.
        let mut r = Run::new(2);
        r.call(0, "MPI_Recv", 0, 10);
        r.call(0, "MPI_Send", 10, 11);
        r.call(1, "MPI_Recv", 0, 10);
        r.call(1, "MPI_Send", 10, 11);
        r.message(0, 1, 10, 10, 10);
        r.message(1, 0, 10, 10, 10);
        let t = r.b.finish();
        let states = wait_states(&t);
        assert_eq!(states.waits.len(), 2, "{:?}", states.waits);
        let (same, notes) = replay_with_notes(&t, &states, &[]);
        assert_eq!(notes, ReplayNotes { held_wait_ns: 0, forced_waits: 1 });
        assert_same_times(&t, &same);
        assert_eq!(same.span_ns, t.span_ns);
    }
}
