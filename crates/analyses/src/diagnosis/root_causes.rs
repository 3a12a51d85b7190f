//! Root causes of wait states (Boehme et al., "Identifying the root causes of wait states in large-scale
//! parallel applications", 2010: the short-term delay): for a wait of location `w` caused by location `c`, the
//! regions in which `c` spent more time than `w` since the two last synchronized.
//!
//! The rule (docs/diagnosis.md, "Root causes"):
//! - The **synchronization interval** of a wait runs, on `w`, from the pair's previous synchronization point
//!   to the wait's start (its call's enter), and on `c` from the same point to `cause_ns` (the enter of the
//!   causing call). The previous synchronization point is the latest earlier point where the two met: a
//!   matched point-to-point message between them (either way; the point on each side is the leave of the call
//!   that sent or completed it) or a blocking collective operation both were members of (the leave of each
//!   one's call); of those that end no later than the wait's start on `w` and `cause_ns` on `c`, the one
//!   latest on `w` (then on `c`). Without one, the trace's start (0) on both.
//! - **Delay** per region name: the exclusive time `c` spent in regions of that name inside its interval minus
//!   the exclusive time `w` spent in them inside its own, where positive. Time outside every region counts in
//!   none.
//! - **Delay cost** (Boehme's short-term cost): the wait's time shared among the regions in proportion to
//!   their delays (rounded down, the rest to the largest delay), so a wait's costs sum to the wait; a wait
//!   with no positive delay has none.
//! - A [`RootCause`] row is the cost summed over the waits of one (pattern, waiting location, causing
//!   location, region name); rows are sorted by ns descending, then by those four.

use rustc_hash::FxHashMap as HashMap;
use weft_model::{LocationId, MessageKind, RegionId, Trace};

use super::calls::{MpiCall, OpLookup, Tie};
use super::waits::{call_kinds, clipped, operations, RootCause, Wait};

/// Where two locations met: per ordered pair (a, b), the (time on a, time on b) of each meeting, by time on a.
struct Meetings {
    messages: HashMap<(LocationId, LocationId), Vec<(u64, u64)>>,
    /// Per location: (leave of its call, operation) of each blocking collective it took part in, by leave.
    collectives: Vec<Vec<(u64, u32)>>,
    /// (operation, location) -> the leave of that location's call.
    member_leave: HashMap<(u32, LocationId), u64>,
}

impl Meetings {
    fn new(trace: &Trace, ops: &OpLookup, located: &[bool]) -> Meetings {
        let kinds = call_kinds(trace);
        let iv = &trace.intervals;
        let leave = |l: LocationId, t: u64, tie: Tie| ops.op_at(l, t, tie).map_or(t, |i| iv.end_ns(i));
        let m = &trace.messages;
        let mut messages: HashMap<(LocationId, LocationId), Vec<(u64, u64)>> = HashMap::default();
        for i in 0..m.len() {
            let (s, r) = (m.sender[i], m.receiver[i]);
            if m.kind[i] != MessageKind::PointToPoint || s == r || !(located[s.index()] || located[r.index()]) {
                continue;
            }
            let (ts, tr) = (leave(s, m.send_ns[i], Tie::Entered), leave(r, m.recv_ns[i], Tie::Leaving));
            messages.entry((s, r)).or_default().push((ts, tr));
            messages.entry((r, s)).or_default().push((tr, ts));
        }
        for list in messages.values_mut() {
            list.sort_unstable();
        }
        let c = &trace.collectives;
        let mut collectives = vec![Vec::new(); trace.locations.len()];
        let mut member_leave = HashMap::default();
        for (op, rows) in operations(trace).into_iter().enumerate() {
            for row in rows {
                let l = c.location[row];
                let call = ops.op_at(l, c.start_ns[row], Tie::Entered);
                let kind = match call {
                    Some(i) => kinds[iv.region[i].index()],
                    None => kinds.get(c.region[row].index()).copied().flatten(),
                };
                if !matches!(kind, Some(MpiCall::Collective(_))) {
                    continue;
                }
                let t = call.map_or(c.end_ns[row], |i| iv.end_ns(i));
                collectives[l.index()].push((t, op as u32));
                member_leave.insert((op as u32, l), t);
            }
        }
        for list in &mut collectives {
            list.sort_unstable();
        }
        Meetings { messages, collectives, member_leave }
    }

    /// The pair's previous synchronization point: (time on `w`, time on `c`), no later than `tw` on `w` and
    /// `tc` on `c`; (0, 0) without one.
    fn last(&self, w: LocationId, tw: u64, c: LocationId, tc: u64) -> (u64, u64) {
        let mut best = (0, 0);
        if let Some(list) = self.messages.get(&(w, c)) {
            let upto = list.partition_point(|&(a, _)| a <= tw);
            if let Some(&p) = list[..upto].iter().rev().find(|&&(_, b)| b <= tc) {
                best = best.max(p);
            }
        }
        let list = &self.collectives[w.index()];
        let upto = list.partition_point(|&(a, _)| a <= tw);
        for &(a, op) in list[..upto].iter().rev() {
            if a < best.0 {
                break;
            }
            if let Some(&b) = self.member_leave.get(&(op, c)) {
                if b <= tc {
                    best = best.max((a, b));
                    break;
                }
            }
        }
        best
    }
}

/// Exclusive time per region of location `l` inside `[a, b]`.
fn exclusive(trace: &Trace, ops: &OpLookup, l: LocationId, a: u64, b: u64, out: &mut HashMap<RegionId, i64>) {
    if b <= a {
        return;
    }
    let iv = &trace.intervals;
    let range = trace.intervals_of(l);
    let mut add = |i: usize| {
        let d = (iv.end_ns(i).min(b).saturating_sub(iv.start_ns[i].max(a))) as i64;
        if d == 0 {
            return;
        }
        *out.entry(iv.region[i]).or_default() += d;
        if let Some(p) = ops.parent(i) {
            *out.entry(iv.region[p]).or_default() -= d;
        }
    };
    // The intervals starting before a that are still open at it (the last to start before a and the
    // intervals enclosing it), then those starting inside.
    let from = range.start + iv.start_ns[range.clone()].partition_point(|&s| s < a);
    let mut open = from.checked_sub(1).filter(|&i| i >= range.start);
    while let Some(i) = open {
        if iv.end_ns(i) > a {
            break;
        }
        open = ops.parent(i);
    }
    while let Some(i) = open {
        add(i);
        open = ops.parent(i);
    }
    for i in from..range.end {
        if iv.start_ns[i] >= b {
            break;
        }
        add(i);
    }
}

/// The root causes of `waits` (module text), summed and sorted: each wait's cost is its waiting inside
/// `window` (all of it without one).
pub fn root_causes(trace: &Trace, waits: &[Wait], window: Option<(u64, u64)>) -> Vec<RootCause> {
    if !waits.iter().any(|w| w.cause_location.is_some()) {
        return Vec::new();
    }
    let ops = OpLookup::new(trace);
    let mut located = vec![false; trace.locations.len()];
    for w in waits {
        located[w.location.index()] = true;
        if let Some(c) = w.cause_location {
            located[c.index()] = true;
        }
    }
    let meetings = Meetings::new(trace, &ops, &located);
    let mut sums: HashMap<(&'static str, u32, u32, &str), u64> = HashMap::default();
    let (mut on_c, mut on_w) = (HashMap::default(), HashMap::default());
    for w in waits {
        let Some(c) = w.cause_location else { continue };
        if c == w.location {
            continue;
        }
        let (aw, ac) = meetings.last(w.location, w.start_ns, c, w.cause_ns);
        on_c.clear();
        on_w.clear();
        exclusive(trace, &ops, c, ac, w.cause_ns, &mut on_c);
        exclusive(trace, &ops, w.location, aw, w.start_ns, &mut on_w);
        let mut named: HashMap<&str, i64> = HashMap::default();
        for (&r, &d) in &on_c {
            *named.entry(trace.region_name(r)).or_default() += d;
        }
        for (&r, &d) in &on_w {
            *named.entry(trace.region_name(r)).or_default() -= d;
        }
        let mut delays: Vec<(&str, u64)> =
            named.into_iter().filter(|&(_, d)| d > 0).map(|(n, d)| (n, d as u64)).collect();
        let total: u64 = delays.iter().map(|&(_, d)| d).sum();
        if total == 0 {
            continue;
        }
        delays.sort_unstable_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
        // The wait's cost shared in proportion to the delays, rounded down; what rounding leaves goes to the
        // largest delay, so a wait's rows sum to the wait.
        let wait = clipped(w, window);
        let shares: Vec<u64> = delays.iter().map(|&(_, d)| (wait as u128 * d as u128 / total as u128) as u64).collect();
        let rest = wait - shares.iter().sum::<u64>();
        for (k, (&(name, _), share)) in delays.iter().zip(shares).enumerate() {
            let ns = share + if k == 0 { rest } else { 0 };
            if ns > 0 {
                *sums.entry((w.pattern.key(), w.location.0, c.0, name)).or_default() += ns;
            }
        }
    }
    let mut out: Vec<RootCause> = sums
        .into_iter()
        .map(|((pattern, waiting_location, causing_location, name), ns)| RootCause {
            pattern,
            waiting_location,
            causing_location,
            name: name.to_string(),
            ns,
        })
        .collect();
    out.sort_unstable_by(|a, b| {
        b.ns.cmp(&a.ns)
            .then_with(|| a.pattern.cmp(b.pattern))
            .then_with(|| a.waiting_location.cmp(&b.waiting_location))
            .then_with(|| a.causing_location.cmp(&b.causing_location))
            .then_with(|| a.name.cmp(&b.name))
    });
    out
}
