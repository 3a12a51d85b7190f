//! Wait states: the waiting part of each MPI call instance, by the patterns of issue #53 (docs/diagnosis.md
//! states each rule; the tests below hold the code to them on traces whose waits are known by construction).
//!
//! - **late_sender**: a call that completes k >= 1 matched receives and may block (MPI_Recv, MPI_Wait*,
//!   MPI_Sendrecv*, MPI_Probe): `w = min(max over its messages of enter(op(send)), leave) - enter`.
//! - **late_receiver**: a blocking send (MPI_Send, MPI_Ssend, MPI_Rsend, MPI_Sendrecv*): with `r` the enter of
//!   the call that posted the matched receive, `w = min(r, leave) - enter` (the latest `r` where one call sends
//!   several messages).
//! - blocking collectives, one operation instance per `trace.collectives` operation (the readers match the
//!   members per communicator in call order): **wait_at_barrier** and **wait_at_nxn** `w_i = max_j enter_j -
//!   enter_i`; **late_broadcast** `w_i = enter_root - enter_i` for each non-root; **early_reduce** `w = min over
//!   the others of enter_j - enter_root` for the root. Non-blocking collectives are left out.
//!
//! A call instance is an interval of `trace.intervals`; the call an event belongs to is `op(e)`
//! ([`OpLookup`]): a send or the posting of a receive with [`Tie::Entered`], the completion of a receive with
//! [`Tie::Leaving`], a collective member's begin with [`Tie::Entered`]. Only waits > 0 are kept.
//!
//! The four patterns beyond MPI (OpenMP barrier, NCCL collective, GPU synchronize, thread wait) are found by
//! [`super::beyond_mpi`], which [`wait_states`] calls.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap as HashMap;
use serde::Serialize;
use weft_model::{LocationId, MessageKind, RegionId, Trace};

use super::calls::{CollectiveKind, MpiCall, OpLookup, Tie};

/// A wait-state pattern (docs/diagnosis.md defines each).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Pattern {
    LateSender,
    LateReceiver,
    WaitAtBarrier,
    WaitAtNxn,
    LateBroadcast,
    EarlyReduce,
    OmpBarrier,
    NcclCollective,
    GpuSynchronize,
    ThreadWait,
}

impl Pattern {
    pub const ALL: [Pattern; 10] = [
        Pattern::LateSender,
        Pattern::LateReceiver,
        Pattern::WaitAtBarrier,
        Pattern::WaitAtNxn,
        Pattern::LateBroadcast,
        Pattern::EarlyReduce,
        Pattern::OmpBarrier,
        Pattern::NcclCollective,
        Pattern::GpuSynchronize,
        Pattern::ThreadWait,
    ];

    /// The pattern's key in `weft waits --json`.
    pub fn key(self) -> &'static str {
        match self {
            Pattern::LateSender => "late_sender",
            Pattern::LateReceiver => "late_receiver",
            Pattern::WaitAtBarrier => "wait_at_barrier",
            Pattern::WaitAtNxn => "wait_at_nxn",
            Pattern::LateBroadcast => "late_broadcast",
            Pattern::EarlyReduce => "early_reduce",
            Pattern::OmpBarrier => "omp_barrier",
            Pattern::NcclCollective => "nccl_collective",
            Pattern::GpuSynchronize => "gpu_synchronize",
            Pattern::ThreadWait => "thread_wait",
        }
    }

    /// The pattern's name for people (text output, the page).
    pub fn label(self) -> &'static str {
        match self {
            Pattern::LateSender => "Late Sender",
            Pattern::LateReceiver => "Late Receiver",
            Pattern::WaitAtBarrier => "Wait at Barrier",
            Pattern::WaitAtNxn => "Wait at N x N",
            Pattern::LateBroadcast => "Late Broadcast",
            Pattern::EarlyReduce => "Early Reduce",
            Pattern::OmpBarrier => "OpenMP Barrier",
            Pattern::NcclCollective => "NCCL Collective",
            Pattern::GpuSynchronize => "GPU Synchronize",
            Pattern::ThreadWait => "Thread Wait",
        }
    }

    /// The pattern of a key ([`key`](Self::key)'s inverse).
    pub fn from_key(key: &str) -> Option<Pattern> {
        Pattern::ALL.into_iter().find(|p| p.key() == key)
    }
}

/// One waiting: the waiting part of one call instance on one location.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wait {
    pub pattern: Pattern,
    pub location: LocationId,
    /// The call instance: its index in `trace.intervals`.
    pub call: usize,
    /// The call's enter.
    pub start_ns: u64,
    /// `start_ns + w`.
    pub end_ns: u64,
    /// Who it waits for (the late sender, the receiver that posted late, the last to enter, the root, the first
    /// of the others).
    pub cause_location: Option<LocationId>,
    /// The time on `cause_location` that ends the wait: the enter of the causing call (the send call, the call
    /// that posted the receive, the collective call of the last member, of the root, of the first other). Where
    /// clocks disagree and a late-sender or late-receiver wait is capped by its call's leave, it may lie after
    /// `end_ns`.
    pub cause_ns: u64,
}

impl Wait {
    pub fn ns(&self) -> u64 {
        self.end_ns - self.start_ns
    }
}

/// Every wait of a trace, sorted by location, then start, then pattern.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WaitStates {
    pub waits: Vec<Wait>,
}

/// What a region is for the patterns: its MPI call kind (by name), one per region of the trace.
pub(crate) fn call_kinds(trace: &Trace) -> Vec<Option<MpiCall>> {
    (0..trace.regions.len()).map(|r| MpiCall::of(trace.region_name(RegionId(r as u32)))).collect()
}

/// The wait states of a trace (the module's text), the patterns beyond MPI ([`super::beyond_mpi`]) with them.
pub fn wait_states(trace: &Trace) -> WaitStates {
    let ops = OpLookup::new(trace);
    wait_states_with(trace, &ops)
}

/// [`wait_states`] with an [`OpLookup`] the caller built (and may use again).
pub fn wait_states_with(trace: &Trace, ops: &OpLookup) -> WaitStates {
    let kinds = call_kinds(trace);
    let mut waits = Vec::new();
    point_to_point(trace, ops, &kinds, &mut waits);
    collectives(trace, ops, &kinds, &mut waits);
    waits.extend(super::beyond_mpi::waits(trace, ops));
    waits.sort_unstable_by_key(|w| (w.location, w.start_ns, w.pattern, w.call));
    WaitStates { waits }
}

fn kind_of(trace: &Trace, kinds: &[Option<MpiCall>], call: usize) -> Option<MpiCall> {
    kinds[trace.intervals.region[call].index()]
}

/// The enter of `op(e)` for an event of `location` at `t`, or `t` where no region is open.
fn enter_of(trace: &Trace, ops: &OpLookup, location: LocationId, t: u64, tie: Tie) -> u64 {
    ops.op_at(location, t, tie).map_or(t, |i| trace.intervals.start_ns[i])
}

/// The tie under which the posting of a receive is looked up: a receive posted by the call that completes it
/// (a blocking receive, or a format that does not say) is found as its completion is.
pub(crate) fn posting_tie(trace: &Trace, m: usize) -> Tie {
    if trace.messages.posted_ns[m] == trace.messages.recv_ns[m] {
        Tie::Leaving
    } else {
        Tie::Entered
    }
}

/// Late sender and late receiver: per call instance, the latest partner arrival over its messages.
fn point_to_point(trace: &Trace, ops: &OpLookup, kinds: &[Option<MpiCall>], waits: &mut Vec<Wait>) {
    let m = &trace.messages;
    // (call, partner's arrival, partner) for each message, per pattern.
    let mut receives: Vec<(usize, u64, LocationId)> = Vec::new();
    let mut sends: Vec<(usize, u64, LocationId)> = Vec::new();
    for i in 0..m.len() {
        if m.kind[i] != MessageKind::PointToPoint {
            continue;
        }
        let (sender, receiver) = (m.sender[i], m.receiver[i]);
        let send_call = ops.op_at(sender, m.send_ns[i], Tie::Entered);
        if let Some(call) = ops.op_at(receiver, m.recv_ns[i], Tie::Leaving) {
            if kind_of(trace, kinds, call).is_some_and(MpiCall::completes_receives) {
                let sent = send_call.map_or(m.send_ns[i], |j| trace.intervals.start_ns[j]);
                receives.push((call, sent, sender));
            }
        }
        if let Some(call) = send_call {
            if kind_of(trace, kinds, call).is_some_and(MpiCall::is_blocking_send) {
                let posted = enter_of(trace, ops, receiver, m.posted_ns[i], posting_tie(trace, i));
                sends.push((call, posted, receiver));
            }
        }
    }
    for (pattern, mut list) in [(Pattern::LateSender, receives), (Pattern::LateReceiver, sends)] {
        // Per call: the latest arrival (ties: the lowest location).
        list.sort_unstable_by_key(|&(call, t, l)| (call, std::cmp::Reverse(t), l));
        list.dedup_by_key(|&mut (call, _, _)| call);
        let iv = &trace.intervals;
        for (call, arrival, partner) in list {
            let (enter, leave) = (iv.start_ns[call], iv.end_ns(call));
            let end = arrival.min(leave);
            if end > enter {
                waits.push(Wait {
                    pattern,
                    location: iv.location[call],
                    call,
                    start_ns: enter,
                    end_ns: end,
                    cause_location: Some(partner),
                    cause_ns: arrival,
                });
            }
        }
    }
}

/// A blocking collective's member: its call instance (None where no region was open at its begin) and enter.
#[derive(Clone, Copy)]
struct Member {
    location: LocationId,
    call: Option<usize>,
    enter: u64,
}

/// The blocking collective call of a collective row, and its kind; None for a non-blocking collective or a
/// row whose region is not an MPI collective.
fn member(trace: &Trace, ops: &OpLookup, kinds: &[Option<MpiCall>], row: usize) -> Option<(Member, CollectiveKind)> {
    let c = &trace.collectives;
    let (location, begin) = (c.location[row], c.start_ns[row]);
    let call = ops.op_at(location, begin, Tie::Entered);
    let kind = match call {
        Some(i) => kind_of(trace, kinds, i),
        None => kinds.get(c.region[row].index()).copied().flatten(),
    };
    let Some(MpiCall::Collective(k)) = kind else {
        return None;
    };
    let enter = call.map_or(begin, |i| trace.intervals.start_ns[i]);
    Some((Member { location, call, enter }, k))
}

/// The rows of each collective operation instance, in row order.
pub(crate) fn operations(trace: &Trace) -> Vec<Vec<usize>> {
    let c = &trace.collectives;
    let mut rows: Vec<Vec<usize>> = vec![Vec::new(); c.operations()];
    for (row, &op) in c.operation.iter().enumerate() {
        rows[op as usize].push(row);
    }
    rows
}

fn collectives(trace: &Trace, ops: &OpLookup, kinds: &[Option<MpiCall>], waits: &mut Vec<Wait>) {
    let c = &trace.collectives;
    let mut members: Vec<Member> = Vec::new();
    for rows in operations(trace) {
        members.clear();
        let mut kind = None;
        for &row in &rows {
            if let Some((m, k)) = member(trace, ops, kinds, row) {
                // One operation is one kind; a row of another kind (a broken trace) takes no part.
                if *kind.get_or_insert(k) == k {
                    members.push(m);
                }
            }
        }
        let Some(kind) = kind else { continue };
        if members.len() < 2 {
            continue;
        }
        let mut push = |pattern: Pattern, m: &Member, until: u64, cause: &Member| {
            if let Some(call) = m.call {
                if until > m.enter {
                    waits.push(Wait {
                        pattern,
                        location: m.location,
                        call,
                        start_ns: m.enter,
                        end_ns: until,
                        cause_location: Some(cause.location),
                        cause_ns: cause.enter,
                    });
                }
            }
        };
        let root = || {
            let r = rows.iter().find_map(|&row| c.root[row])?;
            members.iter().find(|m| m.location == r).copied()
        };
        match kind {
            CollectiveKind::Barrier | CollectiveKind::NxN => {
                let pattern = if kind == CollectiveKind::Barrier { Pattern::WaitAtBarrier } else { Pattern::WaitAtNxn };
                // The last to enter (ties: the first row).
                let last = *members.iter().rev().max_by_key(|m| m.enter).expect("two members");
                for m in &members {
                    push(pattern, m, last.enter, &last);
                }
            }
            CollectiveKind::OneToN => {
                let Some(root) = root() else { continue };
                for m in members.iter().filter(|m| m.location != root.location) {
                    push(Pattern::LateBroadcast, m, root.enter, &root);
                }
            }
            CollectiveKind::NToOne => {
                let Some(root) = root() else { continue };
                let first = members.iter().filter(|m| m.location != root.location).min_by_key(|m| m.enter);
                if let Some(first) = first.copied() {
                    push(Pattern::EarlyReduce, &root, first.enter, &first);
                }
            }
        }
    }
}

/// One pattern's totals in a [`WaitReport`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PatternTotals {
    pub total_ns: u64,
    /// Waits (call instances) with any waiting in the window.
    pub instances: u64,
    /// Waiting per location, indexed by `LocationId` (the order of `weft moments --json`).
    pub per_location: Vec<u64>,
    /// Waiting per region (the waiting call's name), by ns descending, then name.
    pub by_region: Vec<NamedNs>,
}

/// A region's name and a time.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct NamedNs {
    pub name: String,
    pub ns: u64,
}

/// The waiting of one location caused by another's delay in one region: the waits' time shared among the
/// regions in which the causing location spent more time since the two last met (`root_causes.rs`;
/// docs/diagnosis.md, "Root causes").
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RootCause {
    pub pattern: &'static str,
    pub waiting_location: u32,
    pub causing_location: u32,
    /// The region (by name) in which the causing location spent the more time.
    pub name: String,
    pub ns: u64,
}

/// `weft waits --json`: the wait states summed per pattern, location and region, and their root causes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct WaitReport {
    /// Every pattern of [`Pattern::ALL`], by key, zero where absent.
    pub patterns: BTreeMap<&'static str, PatternTotals>,
    /// By ns descending (then pattern, waiting, causing, name).
    pub root_causes: Vec<RootCause>,
    /// The sum of the patterns' totals.
    pub total_wait_ns: u64,
}

/// The part of a wait inside `window` (the whole wait without one).
pub fn clipped(w: &Wait, window: Option<(u64, u64)>) -> u64 {
    match window {
        None => w.ns(),
        Some((t0, t1)) => w.end_ns.min(t1).saturating_sub(w.start_ns.max(t0)),
    }
}

/// Sums `states` per pattern, location and region, over the waiting inside `window` (`[t0, t1]`, trace ns;
/// the whole run without one), with the root causes of the waits that have any waiting inside it.
pub fn wait_report(trace: &Trace, states: &WaitStates, window: Option<(u64, u64)>) -> WaitReport {
    let nl = trace.locations.len();
    let mut totals: Vec<PatternTotals> =
        Pattern::ALL.iter().map(|_| PatternTotals { per_location: vec![0; nl], ..Default::default() }).collect();
    let mut regions: Vec<HashMap<RegionId, u64>> = vec![HashMap::default(); Pattern::ALL.len()];
    let mut kept: Vec<Wait> = Vec::new();
    for w in &states.waits {
        let ns = clipped(w, window);
        if ns == 0 {
            continue;
        }
        let p = w.pattern as usize;
        let t = &mut totals[p];
        t.total_ns += ns;
        t.instances += 1;
        t.per_location[w.location.index()] += ns;
        *regions[p].entry(trace.intervals.region[w.call]).or_default() += ns;
        kept.push(*w);
    }
    for (t, by) in totals.iter_mut().zip(regions) {
        t.by_region = by_name(trace, by);
    }
    let total_wait_ns = totals.iter().map(|t| t.total_ns).sum();
    let root_causes = super::root_causes::root_causes(trace, &kept, window);
    WaitReport { patterns: Pattern::ALL.iter().map(|p| p.key()).zip(totals).collect(), root_causes, total_wait_ns }
}

/// Each location's time, the total a wait's share is of (as CUBE's "time"): from the start of its first
/// interval to the end of its last (0 for a location without intervals), indexed by `LocationId`.
pub fn location_time(trace: &Trace) -> Vec<u64> {
    let iv = &trace.intervals;
    (0..trace.locations.len())
        .map(|l| {
            let range = trace.intervals_of(LocationId(l as u32));
            let Some(first) = range.clone().next() else { return 0 };
            let end = range.map(|i| iv.end_ns(i)).max().unwrap_or(0);
            end.saturating_sub(iv.start_ns[first])
        })
        .collect()
}

/// Times per region summed per region name, by ns descending, then name (zeros left out).
pub(crate) fn by_name(trace: &Trace, per_region: HashMap<RegionId, u64>) -> Vec<NamedNs> {
    let mut named: HashMap<&str, u64> = HashMap::default();
    for (r, ns) in per_region {
        *named.entry(trace.region_name(r)).or_default() += ns;
    }
    let mut out: Vec<NamedNs> =
        named.into_iter().filter(|&(_, ns)| ns > 0).map(|(n, ns)| NamedNs { name: n.to_string(), ns }).collect();
    out.sort_unstable_by(|a, b| b.ns.cmp(&a.ns).then_with(|| a.name.cmp(&b.name)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft_model::{CollectiveRecord, Format, LocationKind, MessageRecord, StringId, TraceBuilder};

    /// A trace under construction: `n` locations, each with `main` over [0, 10_000] so times are the trace's.
    struct T {
        b: TraceBuilder,
        l: Vec<LocationId>,
        ops: u32,
    }

    impl T {
        fn new(n: usize) -> T {
            let mut b = TraceBuilder::new(Format::Generated);
            let main = b.region("main", "");
            let l: Vec<LocationId> = (0..n)
                .map(|i| {
                    let p = b.process(i as i64);
                    let l = b.location(p, 0, LocationKind::CpuThread);
                    b.interval(l, main, 0, 10_000);
                    l
                })
                .collect();
            T { b, l, ops: 0 }
        }
        fn call(&mut self, l: usize, name: &str, start: i64, end: i64) {
            let r = self.b.region(name, "MPI");
            self.b.interval(self.l[l], r, start, (end - start) as u64);
        }
        /// A message from `s` to `r`, sent at `send`, posted at `posted`, received at `recv`.
        fn message(&mut self, s: usize, r: usize, send: i64, posted: i64, recv: i64) {
            self.b.message(MessageRecord {
                kind: MessageKind::PointToPoint,
                sender: self.l[s],
                receiver: self.l[r],
                send_ns: send,
                recv_ns: recv,
                posted_ns: posted,
                size_bytes: 8,
                tag: 0,
                name: StringId::EMPTY,
            });
        }
        /// One collective operation: each member's call `name` over (enter, leave), with a root.
        fn collective(&mut self, name: &str, members: &[(usize, i64, i64)], root: Option<usize>) {
            let r = self.b.region(name, "MPI");
            for &(l, enter, leave) in members {
                self.b.interval(self.l[l], r, enter, (leave - enter) as u64);
                self.b.collective(CollectiveRecord {
                    operation: self.ops,
                    location: self.l[l],
                    region: r,
                    communicator: StringId::EMPTY,
                    root: root.map(|x| self.l[x]),
                    start_ns: enter + 1,
                    end_ns: leave - 1,
                    bytes_sent: 0,
                    bytes_received: 0,
                });
            }
            self.ops += 1;
        }
        fn finish(self) -> Trace {
            self.b.finish()
        }
    }

    /// (pattern, location, call's name, start, end, cause location, cause time) of a wait.
    type Row = (Pattern, u32, String, u64, u64, Option<u32>, u64);

    fn waits(t: &Trace) -> Vec<Row> {
        wait_states(t)
            .waits
            .iter()
            .map(|w| {
                let name = t.region_name(t.intervals.region[w.call]).to_string();
                (w.pattern, w.location.0, name, w.start_ns, w.end_ns, w.cause_location.map(|c| c.0), w.cause_ns)
            })
            .collect()
    }

    fn w(p: Pattern, l: u32, name: &str, (start, end): (u64, u64), cause: u32, at: u64) -> Row {
        (p, l, name.to_string(), start, end, Some(cause), at)
    }

    /// Point-to-point waits known by construction.
    fn point_to_point_trace() -> Trace {
        let mut t = T::new(3);
        // Late sender: 1 enters MPI_Recv at 10, 0 enters MPI_Send at 30: 20.
        t.call(1, "MPI_Recv", 10, 50);
        t.call(0, "MPI_Send", 30, 35);
        t.message(0, 1, 31, 50, 50);
        // Late receiver, the receive posted by an MPI_Irecv entered at 140 (its request at 141, completed in
        // MPI_Wait at 170): 0's MPI_Ssend from 100 waits 40. The MPI_Wait waits for nothing (sent at 100).
        t.call(0, "MPI_Ssend", 100, 160);
        t.call(1, "MPI_Irecv", 140, 145);
        t.call(1, "MPI_Wait", 150, 170);
        t.message(0, 1, 101, 141, 170);
        // MPI_Waitall completing two messages: the later sender (2, entered MPI_Isend at 260) ends it: 60.
        t.call(1, "MPI_Waitall", 200, 300);
        t.call(0, "MPI_Isend", 220, 222);
        t.call(2, "MPI_Isend", 260, 262);
        t.message(0, 1, 221, 205, 299);
        t.message(2, 1, 261, 205, 300);
        // A late sender capped by the call's leave (the sender's clock ahead): 400..420, not 400..430.
        t.call(1, "MPI_Recv", 400, 420);
        t.call(0, "MPI_Send", 430, 440);
        t.message(0, 1, 431, 420, 420);
        // Late receiver on a blocking MPI_Recv: posted by the call that completes it, entered at 530.
        t.call(0, "MPI_Send", 500, 560);
        t.call(1, "MPI_Recv", 530, 561);
        t.message(0, 1, 501, 561, 561);
        // The sender first: no late sender, but a late receiver capped by the send's leave (610, not 650).
        t.call(0, "MPI_Send", 600, 610);
        t.call(1, "MPI_Recv", 650, 660);
        t.message(0, 1, 601, 660, 660);
        // No wait: the MPI_Test may not block; the MPI_Bsend is no blocking send, and entered first.
        t.call(2, "MPI_Isend", 700, 701);
        t.call(1, "MPI_Test", 690, 702);
        t.message(2, 1, 700, 680, 702);
        t.call(2, "MPI_Bsend", 800, 900);
        t.call(1, "MPI_Recv", 890, 901);
        t.message(2, 1, 801, 901, 901);
        t.finish()
    }

    #[test]
    fn point_to_point_waits_by_construction() {
        let t = point_to_point_trace();
        use Pattern::*;
        assert_eq!(
            waits(&t),
            vec![
                w(LateReceiver, 0, "MPI_Ssend", (100, 140), 1, 140),
                w(LateReceiver, 0, "MPI_Send", (500, 530), 1, 530),
                w(LateReceiver, 0, "MPI_Send", (600, 610), 1, 650),
                w(LateSender, 1, "MPI_Recv", (10, 30), 0, 30),
                w(LateSender, 1, "MPI_Waitall", (200, 260), 2, 260),
                w(LateSender, 1, "MPI_Recv", (400, 420), 0, 430),
            ]
        );
    }

    #[test]
    fn collective_waits_by_construction() {
        let mut t = T::new(3);
        t.collective("MPI_Barrier", &[(0, 1000, 1050), (1, 1010, 1050), (2, 1040, 1050)], None);
        t.collective("MPI_Allreduce", &[(0, 1100, 1120), (1, 1105, 1120), (2, 1100, 1120)], None);
        t.collective("MPI_Bcast", &[(0, 1200, 1270), (1, 1250, 1260), (2, 1260, 1270)], Some(1));
        t.collective("MPI_Reduce", &[(0, 1300, 1340), (1, 1330, 1335), (2, 1320, 1325)], Some(0));
        // Non-blocking: left out, however late the others.
        t.collective("MPI_Iallreduce", &[(0, 1400, 1401), (1, 1450, 1451), (2, 1500, 1501)], None);
        // All at once: no wait.
        t.collective("MPI_Barrier", &[(0, 1600, 1610), (1, 1600, 1610), (2, 1600, 1610)], None);
        // A Gather whose root is last: no early reduce; a Scatter whose root is first: no late broadcast.
        t.collective("MPI_Gather", &[(0, 1700, 1710), (1, 1690, 1710), (2, 1695, 1710)], Some(0));
        t.collective("MPI_Scatterv", &[(0, 1800, 1810), (1, 1805, 1810), (2, 1801, 1810)], Some(0));
        let t = t.finish();
        use Pattern::*;
        assert_eq!(
            waits(&t),
            vec![
                w(WaitAtBarrier, 0, "MPI_Barrier", (1000, 1040), 2, 1040),
                w(WaitAtNxn, 0, "MPI_Allreduce", (1100, 1105), 1, 1105),
                w(LateBroadcast, 0, "MPI_Bcast", (1200, 1250), 1, 1250),
                w(EarlyReduce, 0, "MPI_Reduce", (1300, 1320), 2, 1320),
                w(WaitAtBarrier, 1, "MPI_Barrier", (1010, 1040), 2, 1040),
                w(WaitAtNxn, 2, "MPI_Allreduce", (1100, 1105), 1, 1105),
            ]
        );
    }

    #[test]
    fn report_sums_per_pattern_location_and_region_in_a_window() {
        let t = point_to_point_trace();
        let states = wait_states(&t);
        let r = wait_report(&t, &states, None);
        assert_eq!(r.patterns.len(), 10);
        assert_eq!(r.patterns.keys().copied().collect::<Vec<_>>().len(), Pattern::ALL.len());
        let ls = &r.patterns["late_sender"];
        assert_eq!((ls.total_ns, ls.instances, ls.per_location.clone()), (20 + 60 + 20, 3, vec![0, 100, 0]));
        assert_eq!(
            ls.by_region,
            vec![NamedNs { name: "MPI_Waitall".into(), ns: 60 }, NamedNs { name: "MPI_Recv".into(), ns: 40 }]
        );
        let lr = &r.patterns["late_receiver"];
        assert_eq!((lr.total_ns, lr.instances, lr.per_location.clone()), (80, 3, vec![80, 0, 0]));
        assert_eq!(r.patterns["omp_barrier"], PatternTotals { per_location: vec![0; 3], ..Default::default() });
        assert_eq!(r.total_wait_ns, 180);
        // A window clips: [250, 410] holds 10 of the Waitall's wait and 10 of the capped receive.
        let r = wait_report(&t, &states, Some((250, 410)));
        let ls = &r.patterns["late_sender"];
        assert_eq!((ls.total_ns, ls.instances), (20, 2));
        assert_eq!(r.total_wait_ns, 20);
        assert_eq!(ls.per_location, vec![0, 20, 0]);
    }

    #[test]
    fn root_cause_is_the_late_process_extra_time_since_the_last_meeting() {
        let mut t = T::new(2);
        let solve = t.b.region("solve", "");
        let io = t.b.region("io", "");
        // Both meet in a barrier at [0, 10]; then 0 solves 100 and 1 solves 20 and does io 10 before receiving.
        t.collective("MPI_Barrier", &[(0, 0, 10), (1, 0, 10)], None);
        t.b.interval(t.l[0], solve, 10, 100);
        t.call(0, "MPI_Send", 110, 120);
        t.b.interval(t.l[1], solve, 10, 20);
        t.b.interval(t.l[1], io, 30, 10);
        t.call(1, "MPI_Recv", 40, 121);
        t.message(0, 1, 111, 121, 121);
        // Later, 1 is late to a barrier by its io after the message (the last meeting): 0 waits.
        t.b.interval(t.l[1], io, 121, 50);
        t.collective("MPI_Barrier", &[(0, 125, 180), (1, 171, 180)], None);
        // Then 1 is late by solve 30 and io 10 against 0's 10 in `main`: 0's wait of 30 shared 3:1.
        t.b.interval(t.l[1], solve, 180, 30);
        t.b.interval(t.l[1], io, 210, 10);
        t.call(1, "MPI_Send", 220, 225);
        t.call(0, "MPI_Recv", 190, 226);
        t.message(1, 0, 221, 226, 226);
        let t = t.finish();
        let states = wait_states(&t);
        let r = wait_report(&t, &states, None);
        let rows: Vec<(&str, u32, u32, &str, u64)> = r
            .root_causes
            .iter()
            .map(|c| (c.pattern, c.waiting_location, c.causing_location, c.name.as_str(), c.ns))
            .collect();
        assert_eq!(
            rows,
            vec![
                // 0 solved 100 against 1's 20 since the barrier at 10: all of the wait (70) is solve's.
                ("late_sender", 1, 0, "solve", 70),
                // 1's io 50 since the message (left at 121 on 1, the send's leave 120 on 0); 0 had no io and
                // more time in `main` ([120, 125]): the wait's 46 all io's.
                ("wait_at_barrier", 0, 1, "io", 46),
                // 30 shared 30:10 between solve and io (22.5 and 7.5, rounded down, the rest to solve).
                ("late_sender", 0, 1, "solve", 23),
                ("late_sender", 0, 1, "io", 7),
            ]
        );
        // Within a window only the waiting inside it is shared: [200, 210] of the last wait.
        let r = wait_report(&t, &states, Some((200, 210)));
        let rows: Vec<(&str, &str, u64)> = r.root_causes.iter().map(|c| (c.pattern, c.name.as_str(), c.ns)).collect();
        assert_eq!(rows, vec![("late_sender", "solve", 8), ("late_sender", "io", 2)]);
        let r = wait_report(&t, &states, None);
        assert_eq!(r.patterns["late_sender"].total_ns, 70 + 30);
        assert_eq!(r.patterns["wait_at_barrier"].total_ns, 46);
    }
}
