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
use weft_model::{LocationId, MessageKind, RegionId, StringId, Trace};

use super::calls::{MpiCall, OpLookup, Tie};
use super::waits::{call_kinds, clipped, operations, Pattern, RootCause, Wait};

/// No call: a meeting's side found by an event's time alone.
const NONE: usize = usize::MAX;

/// One side of a meeting: the leave of its call (or the event's time) and the call (or [`NONE`]).
type Side = (u64, usize);

/// A meeting by message of an ordered pair (a, b): (time on a, time on b, call on a, call on b).
type Met = (u64, u64, usize, usize);

/// Where two locations met: per ordered pair (a, b), each meeting by message, by time on a.
struct Meetings {
    messages: HashMap<(LocationId, LocationId), Vec<Met>>,
    /// Per location: (leave of its call, operation, call) of each blocking collective it took part in, by leave.
    collectives: Vec<Vec<(u64, u32, usize)>>,
    /// (operation, location) -> that location's side.
    member_leave: HashMap<(u32, LocationId), Side>,
}

impl Meetings {
    fn new(trace: &Trace, ops: &OpLookup, located: &[bool]) -> Meetings {
        let kinds = call_kinds(trace);
        let iv = &trace.intervals;
        let leave = |l: LocationId, t: u64, tie: Tie| ops.op_at(l, t, tie).map_or((t, NONE), |i| (iv.end_ns(i), i));
        let m = &trace.messages;
        let mut messages: HashMap<(LocationId, LocationId), Vec<Met>> = HashMap::default();
        for i in 0..m.len() {
            let (s, r) = (m.sender[i], m.receiver[i]);
            if m.kind[i] != MessageKind::PointToPoint || s == r || !(located[s.index()] || located[r.index()]) {
                continue;
            }
            let (ts, tr) = (leave(s, m.send_ns[i], Tie::Entered), leave(r, m.recv_ns[i], Tie::Leaving));
            messages.entry((s, r)).or_default().push((ts.0, tr.0, ts.1, tr.1));
            messages.entry((r, s)).or_default().push((tr.0, ts.0, tr.1, ts.1));
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
                let side = call.map_or((c.end_ns[row], NONE), |i| (iv.end_ns(i), i));
                collectives[l.index()].push((side.0, op as u32, side.1));
                member_leave.insert((op as u32, l), side);
            }
        }
        for list in &mut collectives {
            list.sort_unstable();
        }
        Meetings { messages, collectives, member_leave }
    }

    /// The pair's previous synchronization point: its side on `w` and on `c`, no later than `tw` on `w` and
    /// `tc` on `c`; the trace's start on both without one.
    fn last(&self, w: LocationId, tw: u64, c: LocationId, tc: u64) -> (Side, Side) {
        let mut best = ((0, NONE), (0, NONE));
        let key = |x: &(Side, Side)| (x.0 .0, x.1 .0);
        if let Some(list) = self.messages.get(&(w, c)) {
            let upto = list.partition_point(|&(a, ..)| a <= tw);
            if let Some(&(a, b, ca, cb)) = list[..upto].iter().rev().find(|&&(_, b, ..)| b <= tc) {
                best = ((a, ca), (b, cb));
            }
        }
        let list = &self.collectives[w.index()];
        let upto = list.partition_point(|&(a, ..)| a <= tw);
        for &(a, op, ca) in list[..upto].iter().rev() {
            if a < best.0 .0 {
                break;
            }
            if let Some(&(b, cb)) = self.member_leave.get(&(op, c)) {
                if b <= tc {
                    let found = ((a, ca), (b, cb));
                    if key(&found) > key(&best) {
                        best = found;
                    }
                    break;
                }
            }
        }
        best
    }
}

/// Time per region name, summed over a wait's two intervals: dense by name, with the names touched.
struct Delays {
    /// Each region's name, as a dense id.
    name: Vec<u32>,
    /// The names' strings, by dense id.
    names: Vec<StringId>,
    delta: Vec<i64>,
    touched: Vec<u32>,
    seen: Vec<bool>,
}

impl Delays {
    fn new(trace: &Trace) -> Delays {
        let mut ids: HashMap<StringId, u32> = HashMap::default();
        let mut names = Vec::new();
        let name = (trace.regions.name.iter())
            .map(|&s| {
                *ids.entry(s).or_insert_with(|| {
                    names.push(s);
                    names.len() as u32 - 1
                })
            })
            .collect();
        let n = names.len();
        Delays { name, names, delta: vec![0; n], touched: Vec::new(), seen: vec![false; n] }
    }

    #[inline]
    fn add(&mut self, r: RegionId, d: i64) {
        let k = self.name[r.index()];
        self.delta[k as usize] += d;
        if !self.seen[k as usize] {
            self.seen[k as usize] = true;
            self.touched.push(k);
        }
    }

    /// The positive delays (name id, ns), and clears the rest.
    fn take(&mut self, out: &mut Vec<(u32, u64)>) {
        out.clear();
        for &k in &self.touched {
            let d = std::mem::take(&mut self.delta[k as usize]);
            self.seen[k as usize] = false;
            if d > 0 {
                out.push((k, d as u64));
            }
        }
        self.touched.clear();
    }
}

/// Exclusive time per region of location `l` inside `[a, b]`, times `sign`, into `delays`. `from`: the call
/// that ends at `a` (a meeting's), from which the intervals open at `a` and those after it are found without a
/// search; or [`NONE`].
fn exclusive(
    trace: &Trace,
    ops: &OpLookup,
    l: LocationId,
    ((a, from), b): (Side, u64),
    sign: i64,
    delays: &mut Delays,
) {
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
        delays.add(iv.region[i], sign * d);
        if let Some(p) = ops.parent(i) {
            delays.add(iv.region[p], -sign * d);
        }
    };
    // The intervals starting before a that are still open at it (the last to start before a and the
    // intervals enclosing it), then those starting inside. After a meeting's call (which ends at a), those
    // are the call's enclosing intervals, and the intervals after it (its own children add nothing).
    let (from, mut open) = if from != NONE && iv.end_ns(from) == a {
        (from + 1, ops.parent(from))
    } else {
        let from = range.start + iv.start_ns[range.clone()].partition_point(|&s| s < a);
        (from, from.checked_sub(1).filter(|&i| i >= range.start))
    };
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
    let mut delays = Delays::new(trace);
    let mut sums: HashMap<(Pattern, u32, u32, u32), u64> = HashMap::default();
    let mut positive: Vec<(u32, u64)> = Vec::new();
    let name = |k: u32, d: &Delays| trace.str(d.names[k as usize]);
    for w in waits {
        let Some(c) = w.cause_location else { continue };
        if c == w.location {
            continue;
        }
        let (aw, ac) = meetings.last(w.location, w.start_ns, c, w.cause_ns);
        exclusive(trace, &ops, c, (ac, w.cause_ns), 1, &mut delays);
        exclusive(trace, &ops, w.location, (aw, w.start_ns), -1, &mut delays);
        delays.take(&mut positive);
        let total: u64 = positive.iter().map(|&(_, d)| d).sum();
        if total == 0 {
            continue;
        }
        // The wait's cost shared in proportion to the delays, rounded down; what rounding leaves goes to the
        // largest delay (ties: the first name), so a wait's rows sum to the wait.
        let largest = (positive.iter())
            .max_by(|a, b| a.1.cmp(&b.1).then_with(|| name(b.0, &delays).cmp(name(a.0, &delays))))
            .map_or(0, |&(k, _)| k);
        let wait = clipped(w, window);
        let mut rest = wait;
        for &(k, d) in &positive {
            let share = (wait as u128 * d as u128 / total as u128) as u64;
            rest -= share;
            if share > 0 {
                *sums.entry((w.pattern, w.location.0, c.0, k)).or_default() += share;
            }
        }
        if rest > 0 {
            *sums.entry((w.pattern, w.location.0, c.0, largest)).or_default() += rest;
        }
    }
    let mut out: Vec<RootCause> = sums
        .into_iter()
        .map(|((pattern, waiting_location, causing_location, k), ns)| RootCause {
            pattern: pattern.key(),
            waiting_location,
            causing_location,
            name: name(k, &delays).to_string(),
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
