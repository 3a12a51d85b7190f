//! The wait states of a store (issue #53; docs/store-format.md, "waits"), computed from its own level-0
//! tiles once they are written, so the store's waits are the same bytes however it was built (threads,
//! shards merged, MPI ranks): `build`, the unsharded stream, `weft merge` and the MPI ranks' merge all end
//! here. The rules are `analyses::diagnosis::waits`' (late sender, late receiver, the four blocking
//! collective patterns), found in streaming form:
//!
//! 1. each block's events tiles are read window by window; a sweep per location keeps the stack of
//!    intervals open (the model's depths) and answers `op(e)` for each event as `calls::OpLookup` does,
//!    ties included ([`Sweep`]): a send and a collective member's begin with `Tie::Entered`;
//! 2. the messages' receive ends and postings, sorted by their receiver's block, window and time, are
//!    answered by a second walk over the tiles (`Tie::Leaving` for a receive completed, the posting's tie);
//! 3. the facts of both ends are joined by message: per receive call, the latest enter of a matched send's
//!    op (late sender); per blocking send, the latest enter of the call that posted its receive (late
//!    receiver); collective members grouped by operation;
//! 4. the waits, sorted by location and start, go to one waits tile per block, their sums to the
//!    manifest's `waits`, and their waiting per time bin to the wait summary tiles (the summary pyramid's
//!    levels and tiles, only those holding any waiting).
//!
//! Memory: one events tile at a time, each location's stack of open intervals, and per message and
//! collective member a fact of a few dozen bytes (O(messages + members), held in memory, not spilled: about
//! [`BYTES_PER_FACT`] each in all, counted against `--memory` by the index before the step, [`over_memory`]).

use std::collections::BTreeMap;
use weft_analyses::diagnosis::calls::{CollectiveKind, MpiCall, Tie};
use weft_store::format::columns::unframe_tile;
use weft_store::format::events::{decode_events, EventsTile, TileInterval};
use weft_store::format::manifest::{Manifest, TileEntry, TileKind};
use weft_store::format::tile::tile;
use weft_store::format::waits::{costs, encode_waits, WaitRecord, WaitSummary, PATTERN_KEYS};

/// What the wait-state step (with the critical path after it) holds in memory per message and per
/// collective member: its facts, queries, joined lists, waits and root-cause ranges. Measured: ~310 bytes on
/// the 10 M-event benchmark archive (BENCHMARKS.md, "Session 39: the critical path of a store"), rounded up.
pub const BYTES_PER_FACT: u64 = 320;

/// The memory the wait-state step needs for `messages` and collective `members` ([`BYTES_PER_FACT`] each).
pub fn memory_needed(messages: u64, members: u64) -> u64 {
    messages.saturating_add(members).saturating_mul(BYTES_PER_FACT)
}

/// Why `--waits` is refused within `memory` (`--memory`) for `messages` and collective `members`: the step
/// holds them in memory (not spilled), so it is counted against the budget; `None` when it fits.
pub fn over_memory(messages: u64, members: u64, memory: u64) -> Option<String> {
    let need = memory_needed(messages, members);
    (need > memory).then(|| {
        let mb = |b: u64| b.div_ceil(1 << 20);
        format!(
            "--waits: the wait states hold about {} MB in memory ({messages} messages and {members} collective \
             members at about {BYTES_PER_FACT} bytes each), over --memory {} MB: raise --memory to {} MB, or \
             index without --waits",
            mb(need),
            memory >> 20,
            mb(need)
        )
    })
}

/// Reads a tile's file by its path in the store.
pub type ReadTile<'a> = &'a dyn Fn(&str) -> Result<Vec<u8>, String>;
/// Writes a tile's file at its path in the store.
pub type PutTile<'a> = &'a mut dyn FnMut(&str, &[u8]) -> Result<(), String>;

pub(crate) const MAX_TILE_RAW: usize = 1 << 30;

const LATE_SENDER: u8 = 0;
const LATE_RECEIVER: u8 = 1;
const WAIT_AT_BARRIER: u8 = 2;
const WAIT_AT_NXN: u8 = 3;
const LATE_BROADCAST: u8 = 4;
const EARLY_REDUCE: u8 = 5;

/// An interval open on a location's stack.
#[derive(Clone, Copy, Debug)]
struct Open {
    index: u64,
    region: u32,
    start: u64,
    end: u64,
    depth: u16,
}

/// The call an event fell in: `op(e)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Call {
    index: u64,
    region: u32,
    start: u64,
    end: u64,
}

impl From<Open> for Call {
    fn from(o: Open) -> Call {
        Call { index: o.index, region: o.region, start: o.start, end: o.end }
    }
}

/// A location's intervals met in start order (the model's order), as `OpLookup` sees them: each pushed on
/// the stack truncated to its depth (a gap in depths filled with copies of the one above, or nothing).
#[derive(Default)]
struct Sweep {
    stack: Vec<Option<Open>>,
}

impl Sweep {
    /// The parent of the interval last pushed (`OpLookup::parent`).
    fn parent_of_top(&self) -> Option<Open> {
        let n = self.stack.len();
        if n < 2 {
            return None;
        }
        self.stack[n - 2]
    }

    fn push(&mut self, o: Open) {
        let d = o.depth as usize;
        self.stack.truncate(d);
        while self.stack.len() < d {
            let top = self.stack.last().copied().flatten();
            self.stack.push(top);
        }
        self.stack.push(Some(o));
    }

    /// `OpLookup::op_at`'s `latest`: from the last interval pushed, the first enclosing one ending at or
    /// after `t`; with its place on the stack.
    fn latest(&self, t: u64) -> Option<(usize, Open)> {
        for k in (0..self.stack.len()).rev() {
            let o = self.stack[k]?;
            if o.end >= t {
                return Some((k, o));
            }
        }
        None
    }

    /// `op_at(t, Tie::Entered)` once every interval starting by `t` is pushed.
    fn entered(&self, t: u64) -> Option<Open> {
        let (k, e) = self.latest(t)?;
        if e.end > t || e.start == t {
            return Some(e);
        }
        for j in (0..k).rev() {
            let Some(p) = self.stack[j] else { break };
            if p.end > t {
                return Some(p);
            }
        }
        Some(e)
    }

    /// `op_at(t, Tie::Leaving)` from `before` (the `latest` of the intervals starting before `t`) once every
    /// interval starting by `t` is pushed.
    fn leaving(&self, before: Option<Open>, t: u64) -> Option<Open> {
        let entered = self.latest(t).map(|(_, o)| o);
        match (entered, before) {
            (Some(e), Some(b)) if b.depth >= e.depth => Some(b),
            (Some(e), _) => Some(e),
            (None, b) => b,
        }
    }
}

/// An event whose op is asked for: its location, time, tie and what it answers (`slot`).
#[derive(Clone, Copy, Debug)]
struct Query {
    location: u32,
    t: u64,
    tie: Tie,
    slot: usize,
}

/// What a walk over a block's tiles does with them: each tile as it is read (adding queries of its own
/// window, at times within it), and each query's op.
trait Visit {
    fn tile(&mut self, _tile: &EventsTile, _queries: &mut Vec<Query>) {}
    fn answer(&mut self, slot: usize, op: Option<Open>);
}

/// Walks block `b`'s events tiles window by window, pushing each location's intervals and answering the
/// queries of the block (`queries`, sorted by window, location and time, and those the tiles add).
fn walk_block(
    m: &Manifest,
    b: u32,
    tiles: &[&TileEntry],
    read: ReadTile,
    queries: &[Query],
    v: &mut dyn Visit,
) -> Result<(), String> {
    let t = &m.tiling;
    let nl = m.locations.process.len() as u32;
    let locs = t.block_range(b, nl);
    let mut base = vec![0u64; locs.len()];
    let mut acc: u64 = m.locations.intervals[..locs.start as usize].iter().sum();
    for (k, l) in locs.clone().enumerate() {
        base[k] = acc;
        acc += m.locations.intervals[l as usize];
    }
    let mut sweeps: Vec<Sweep> = (0..locs.len()).map(|_| Sweep::default()).collect();
    let mut q = 0usize;
    let mut tile_at = 0usize;
    for w in 0..t.windows {
        let span = t.window_span(w);
        let mut own: Vec<(usize, Open)> = Vec::new();
        let mut extra: Vec<Query> = Vec::new();
        if tile_at < tiles.len() && tiles[tile_at].window == w {
            let e = tiles[tile_at];
            tile_at += 1;
            let bytes = read(&e.path)?;
            let (_, payload) =
                unframe_tile(&bytes, m.version as u8, MAX_TILE_RAW).map_err(|c| format!("{}: {c}", e.path))?;
            let tile =
                decode_events(&payload, locs.clone(), span.clone(), m).map_err(|c| format!("{}: {c}", e.path))?;
            for &TileInterval { location: l, region, start_ns: start, dur_ns: dur, depth } in &tile.intervals {
                let k = (l.0 - locs.start) as usize;
                own.push((k, Open { index: base[k], region: region.0, start, end: start + dur, depth }));
                base[k] += 1;
            }
            v.tile(&tile, &mut extra);
        }
        // This window's queries, by location and time; the window's intervals by location and start.
        let q_end = q + queries[q..].partition_point(|x| t.window_of(x.t) == w);
        extra.extend_from_slice(&queries[q..q_end]);
        q = q_end;
        extra.sort_by_key(|x| (x.location, x.t));
        if extra.iter().any(|x| t.window_of(x.t) != w || !locs.contains(&x.location)) {
            return Err(format!("block {b}: an event outside its window or the block's locations (waits)"));
        }
        let (queries, mut q, q_end) = (&extra[..], 0usize, extra.len());
        let mut at = 0usize;
        for (k, sweep) in sweeps.iter_mut().enumerate() {
            let l = locs.start + k as u32;
            let i_end = at + own[at..].partition_point(|x| x.0 == k);
            let mut i = at;
            while q < q_end && queries[q].location == l {
                let time = queries[q].t;
                let group_end = q + queries[q..q_end].partition_point(|x| x.location == l && x.t == time);
                while i < i_end && own[i].1.start < time {
                    sweep.push(own[i].1);
                    i += 1;
                }
                let before = sweep.latest(time).map(|(_, o)| o);
                while i < i_end && own[i].1.start == time {
                    sweep.push(own[i].1);
                    i += 1;
                }
                for x in &queries[q..group_end] {
                    let op = match x.tie {
                        Tie::Entered => sweep.entered(time),
                        Tie::Leaving => sweep.leaving(before, time),
                    };
                    v.answer(x.slot, op);
                }
                q = group_end;
            }
            while i < i_end {
                sweep.push(own[i].1);
                i += 1;
            }
            at = i_end;
        }
        debug_assert_eq!(q, q_end);
    }
    if q != queries.len() {
        return Err(format!("block {b}: an event past the last window (waits)"));
    }
    Ok(())
}

/// What the send side of a point-to-point message tells (step 1).
#[derive(Clone, Copy, Debug, Default)]
struct Sent {
    sender: u32,
    receiver: u32,
    send_ns: u64,
    recv_ns: u64,
    posted_ns: u64,
    op: Option<Call>,
}

/// A collective member (step 1): its row, operation, location, the row's root and region, and its call.
#[derive(Clone, Copy, Debug)]
struct Member {
    row: u64,
    operation: u32,
    location: u32,
    root: Option<u32>,
    region: u32,
    begin: u64,
    end: u64,
    call: Option<Call>,
}

/// Step 1's walk: each tile's point-to-point messages (with their sender's op) and collective rows (with
/// their member's call). Slots: even for messages, odd for members.
#[derive(Default)]
struct Senders {
    sent: Vec<Sent>,
    members: Vec<Member>,
    /// Per location, its first interval's start and last end.
    spans: Vec<Option<[u64; 2]>>,
    /// Per location, its latest event (interval end, instant, message end, collective end), if any: where
    /// the critical path starts (`diagnosis::critical_path::last_location`).
    latest: Vec<Option<u64>>,
}

impl Senders {
    fn see(&mut self, l: weft_model::LocationId, t: u64) {
        if let Some(x) = self.latest.get_mut(l.index()) {
            *x = Some(x.map_or(t, |x| x.max(t)));
        }
    }
}

impl Visit for Senders {
    fn tile(&mut self, tile: &EventsTile, queries: &mut Vec<Query>) {
        for &TileInterval { location: l, start_ns: start, dur_ns: dur, .. } in &tile.intervals {
            let s = self.spans[l.index()].get_or_insert([start, start]);
            s[1] = s[1].max(start + dur);
            self.see(l, start + dur);
        }
        for i in &tile.instants {
            self.see(i.location, i.time_ns);
        }
        for x in &tile.messages {
            self.see(x.sender, x.send_ns);
            self.see(x.receiver, x.recv_ns);
        }
        for c in &tile.collectives {
            self.see(c.location, c.end_ns);
        }
        for x in &tile.messages {
            if x.kind == weft_model::MessageKind::PointToPoint {
                queries.push(Query {
                    location: x.sender.0,
                    t: x.send_ns,
                    tie: Tie::Entered,
                    slot: 2 * self.sent.len(),
                });
                self.sent.push(Sent {
                    sender: x.sender.0,
                    receiver: x.receiver.0,
                    send_ns: x.send_ns,
                    recv_ns: x.recv_ns,
                    posted_ns: x.posted_ns,
                    op: None,
                });
            }
        }
        for c in &tile.collectives {
            queries.push(Query {
                location: c.location.0,
                t: c.start_ns,
                tie: Tie::Entered,
                slot: 2 * self.members.len() + 1,
            });
            self.members.push(Member {
                row: c.index,
                operation: c.operation,
                location: c.location.0,
                root: c.root.map(|r| r.0),
                region: c.region.0,
                begin: c.start_ns,
                end: c.end_ns,
                call: None,
            });
        }
    }
    fn answer(&mut self, slot: usize, op: Option<Open>) {
        if slot.is_multiple_of(2) {
            self.sent[slot / 2].op = op.map(Call::from);
        } else {
            self.members[slot / 2].call = op.map(Call::from);
        }
    }
}

/// Step 2's walk: per message, the op of its receive (even slots) and of its posting (odd).
struct Receivers(Vec<(Option<Call>, Option<Call>)>);

impl Visit for Receivers {
    fn answer(&mut self, slot: usize, op: Option<Open>) {
        let r = &mut self.0[slot / 2];
        if slot.is_multiple_of(2) {
            r.0 = op.map(Call::from);
        } else {
            r.1 = op.map(Call::from);
        }
    }
}

fn sort_queries(qs: &mut [Query], m: &Manifest) {
    let t = &m.tiling;
    qs.sort_by_key(|x| (t.block_of(x.location), t.window_of(x.t), x.location, x.t));
}

/// Each block's events tiles in window order.
pub(crate) fn events_tiles(m: &Manifest) -> Vec<Vec<&TileEntry>> {
    let mut by_block: Vec<Vec<&TileEntry>> = vec![Vec::new(); m.tiling.blocks as usize];
    for e in m.tiles.iter().filter(|e| e.kind == TileKind::Events) {
        if let Some(v) = by_block.get_mut(e.block as usize) {
            v.push(e);
        }
    }
    for v in &mut by_block {
        v.sort_by_key(|e| e.window);
    }
    by_block
}

/// Runs the queries (sorted by [`sort_queries`]) block by block.
fn answer_all(
    m: &Manifest,
    tiles: &[Vec<&TileEntry>],
    read: ReadTile,
    queries: &[Query],
    v: &mut dyn Visit,
) -> Result<(), String> {
    let mut q = 0usize;
    for b in 0..m.tiling.blocks {
        let end = q + queries[q..].partition_point(|x| m.tiling.block_of(x.location) == b);
        walk_block(m, b, &tiles[b as usize], read, &queries[q..end], v)?;
        q = end;
    }
    crate::stream::ranged::return_free_memory();
    Ok(())
}

/// The wait states of the store `m` (its level-0 tiles read through `read`): every wait, sorted by location,
/// start, pattern and call, as `analyses::diagnosis::wait_states` finds them on the trace.
/// With each wait, its root causes: the positive differences per region name (string id), by name; and each
/// location's span (`WaitSummary::spans`).
pub fn wait_records(m: &Manifest, read: ReadTile) -> Result<States, String> {
    let kinds: Vec<Option<MpiCall>> =
        m.regions.name.iter().map(|&s| MpiCall::of(m.strings.get(s as usize).map_or("", String::as_str))).collect();
    let kind = |region: u32| kinds.get(region as usize).copied().flatten();
    let tiles = events_tiles(m);
    // Step 1: sends and collective begins, answered as the tiles that hold them are walked.
    let nl = m.locations.process.len();
    let mut first = Senders { spans: vec![None; nl], latest: vec![None; nl], ..Senders::default() };
    answer_all(m, &tiles, read, &[], &mut first)?;
    let Senders { sent, mut members, spans, latest } = first;
    // Step 2: the receive ends and postings, on their receivers' blocks.
    let mut qs: Vec<Query> = Vec::with_capacity(sent.len() * 2);
    for (k, s) in sent.iter().enumerate() {
        qs.push(Query { location: s.receiver, t: s.recv_ns, tie: Tie::Leaving, slot: 2 * k });
        let tie = if s.posted_ns == s.recv_ns { Tie::Leaving } else { Tie::Entered };
        qs.push(Query { location: s.receiver, t: s.posted_ns, tie, slot: 2 * k + 1 });
    }
    sort_queries(&mut qs, m);
    let mut received = Receivers(vec![(None, None); sent.len()]);
    answer_all(m, &tiles, read, &qs, &mut received)?;
    let received = received.0;
    drop(qs);
    // Step 3: per call, the latest partner arrival.
    let mut waits: Vec<WaitRecord> = Vec::new();
    // (call, location, arrival, partner)
    let mut receives: Vec<(Call, u32, u64, u32)> = Vec::new();
    let mut sends: Vec<(Call, u32, u64, u32)> = Vec::new();
    for (s, (recv_call, posting)) in sent.iter().zip(&received) {
        if let Some(call) = recv_call {
            if kind(call.region).is_some_and(MpiCall::completes_receives) {
                receives.push((*call, s.receiver, s.op.map_or(s.send_ns, |o| o.start), s.sender));
            }
        }
        if let Some(call) = s.op {
            if kind(call.region).is_some_and(MpiCall::is_blocking_send) {
                sends.push((call, s.sender, posting.map_or(s.posted_ns, |o| o.start), s.receiver));
            }
        }
    }
    // The pairs' meetings, for the root causes: each message's send and receive calls' leaves.
    let mut meetings = Meetings::default();
    for (s, (recv_call, _)) in sent.iter().zip(&received) {
        if s.sender != s.receiver {
            let (ts, tr) = (s.op.map_or(s.send_ns, |o| o.end), recv_call.map_or(s.recv_ns, |o| o.end));
            meetings.messages.entry((s.sender, s.receiver)).or_default().push((ts, tr));
            meetings.messages.entry((s.receiver, s.sender)).or_default().push((tr, ts));
        }
    }
    drop(sent);
    drop(received);
    for (pattern, mut list) in [(LATE_SENDER, receives), (LATE_RECEIVER, sends)] {
        list.sort_unstable_by_key(|&(call, _, t, l)| (call.index, std::cmp::Reverse(t), l));
        list.dedup_by_key(|x| x.0.index);
        for (call, location, arrival, partner) in list {
            let end = arrival.min(call.end);
            if end > call.start {
                waits.push(WaitRecord {
                    location,
                    start_ns: call.start,
                    pattern,
                    call: call.index,
                    end_ns: end,
                    region: call.region,
                    cause: Some(partner),
                    cause_ns: arrival,
                });
            }
        }
    }
    collective_waits(&mut members, &kind, &mut waits);
    waits.sort_unstable_by_key(|w| (w.location, w.start_ns, w.pattern, w.call));
    meetings.collectives = vec![Vec::new(); m.locations.process.len()];
    for c in &members {
        let k = match c.call {
            Some(call) => kind(call.region),
            None => kind(c.region),
        };
        if matches!(k, Some(MpiCall::Collective(_))) {
            let t = c.call.map_or(c.end, |x| x.end);
            meetings.collectives[c.location as usize].push((t, c.operation));
            meetings.member_leave.insert((c.operation, c.location), t);
        }
    }
    drop(members);
    for list in meetings.messages.values_mut() {
        list.sort_unstable();
    }
    for list in &mut meetings.collectives {
        list.sort_unstable();
    }
    let causes = root_causes(m, &tiles, read, &waits, &meetings)?;
    Ok(States { waits, causes, spans: spans.into_iter().map(|s| s.unwrap_or([0, 0])).collect(), latest })
}

/// A store's wait states ([`wait_records`]).
pub struct States {
    pub waits: Vec<WaitRecord>,
    pub causes: Vec<Vec<(u32, u64)>>,
    pub spans: Vec<[u64; 2]>,
    /// Per location, its latest event, if any (where the critical path starts).
    pub latest: Vec<Option<u64>>,
}

/// Where two locations met (`diagnosis::root_causes`' `Meetings`): per ordered pair (a, b) the (time on a,
/// time on b) of each message between them (the leaves of the calls that sent and completed it), by time on
/// a; per location the (leave, operation) of each blocking collective it took part in, by leave; and each
/// member's leave by (operation, location).
#[derive(Default)]
struct Meetings {
    messages: rustc_hash::FxHashMap<(u32, u32), Vec<(u64, u64)>>,
    collectives: Vec<Vec<(u64, u32)>>,
    member_leave: rustc_hash::FxHashMap<(u32, u32), u64>,
}

impl Meetings {
    /// The pair's previous synchronization point: (time on `w`, time on `c`), no later than `tw` on `w` and
    /// `tc` on `c`; (0, 0) without one.
    fn last(&self, w: u32, tw: u64, c: u32, tc: u64) -> (u64, u64) {
        let mut best = (0, 0);
        if let Some(list) = self.messages.get(&(w, c)) {
            let upto = list.partition_point(|&(a, _)| a <= tw);
            if let Some(&p) = list[..upto].iter().rev().find(|&&(_, b)| b <= tc) {
                best = best.max(p);
            }
        }
        let list = &self.collectives[w as usize];
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

/// A range whose exclusive time per region is asked for: on `location` over `[a, b]`, for wait `wait`,
/// counted with `sign` (+1 on the causing location, -1 on the waiting one).
#[derive(Clone, Copy, Debug)]
struct RangeQuery {
    location: u32,
    a: u64,
    b: u64,
    wait: usize,
    sign: i64,
}

/// A range query being summed: its exclusive time per region name (string id).
struct Active {
    q: RangeQuery,
    /// (name, ns): a range meets a few region names, a short list beats a map.
    sums: Vec<(u32, i64)>,
}

impl Active {
    /// Interval `o` (its parent `parent`) inside the range: its overlap to its name, off its parent's.
    fn add(&mut self, names: &[u32], o: &Open, parent: Option<Open>) {
        let d = (o.end.min(self.q.b).saturating_sub(o.start.max(self.q.a))) as i64;
        if d == 0 {
            return;
        }
        self.put(names[o.region as usize], d);
        if let Some(p) = parent {
            self.put(names[p.region as usize], -d);
        }
    }

    fn put(&mut self, name: u32, d: i64) {
        match self.sums.iter_mut().find(|x| x.0 == name) {
            Some(x) => x.1 += d,
            None => self.sums.push((name, d)),
        }
    }
}

/// The root causes of `waits` (`diagnosis::root_causes`): per wait with a cause on another location, the
/// exclusive time per region name the cause spent since the pair last met minus the waiting location's,
/// where positive, summed per (pattern, waiting, causing, name); as `[pattern, waiting, causing, name, ns]`
/// sorted as `weft waits` lists them. A third walk over the tiles, each location's ranges summed as its
/// intervals pass.
fn root_causes(
    m: &Manifest,
    tiles: &[Vec<&TileEntry>],
    read: ReadTile,
    waits: &[WaitRecord],
    meetings: &Meetings,
) -> Result<Vec<Vec<(u32, u64)>>, String> {
    // Region -> the first string id of its name (regions of one name are one name).
    let mut first: rustc_hash::FxHashMap<&str, u32> = rustc_hash::FxHashMap::default();
    let names: Vec<u32> = m
        .regions
        .name
        .iter()
        .map(|&s| *first.entry(m.strings.get(s as usize).map_or("", String::as_str)).or_insert(s))
        .collect();
    let mut queries: Vec<RangeQuery> = Vec::new();
    for (k, w) in waits.iter().enumerate() {
        let Some(c) = w.cause else { continue };
        if c == w.location {
            continue;
        }
        let (aw, ac) = meetings.last(w.location, w.start_ns, c, w.cause_ns);
        if w.cause_ns > ac {
            queries.push(RangeQuery { location: c, a: ac, b: w.cause_ns, wait: k, sign: 1 });
        }
        if w.start_ns > aw {
            queries.push(RangeQuery { location: w.location, a: aw, b: w.start_ns, wait: k, sign: -1 });
        }
    }
    if queries.is_empty() {
        return Ok(vec![Vec::new(); waits.len()]);
    }
    let t = &m.tiling;
    queries.sort_by_key(|q| (t.block_of(q.location), t.window_of(q.a), q.location, q.a));
    // Each range's exclusive times as (wait, name, signed ns), summed per wait and name at the end (compact:
    // a wait's ranges rarely touch more than a few regions).
    let mut parts: Vec<(u32, u32, i64)> = Vec::new();
    let mut done = |a: Active| {
        for (n, d) in a.sums {
            if d != 0 {
                parts.push((a.q.wait as u32, n, a.q.sign * d));
            }
        }
    };
    let mut q = 0usize;
    for b in 0..t.blocks {
        let end = q + queries[q..].partition_point(|x| t.block_of(x.location) == b);
        ranges_of_block(m, b, &tiles[b as usize], read, &queries[q..end], &names, &mut done)?;
        q = end;
    }
    drop(queries);
    parts.sort_unstable_by_key(|&(w, n, _)| (w, n));
    let mut out: Vec<Vec<(u32, u64)>> = vec![Vec::new(); waits.len()];
    let mut at = 0;
    while at < parts.len() {
        let (w, n) = (parts[at].0, parts[at].1);
        let mut d = 0i64;
        while at < parts.len() && parts[at].0 == w && parts[at].1 == n {
            d += parts[at].2;
            at += 1;
        }
        if d > 0 {
            out[w as usize].push((n, d as u64));
        }
    }
    Ok(out)
}

/// The root causes of waits (each wait's whole time shared by its delays: `costs`) summed per (pattern,
/// waiting, causing, name), as `[pattern, waiting, causing,
/// name, ns]` sorted as `weft waits` lists them (ns descending, then the pattern's key, the locations, the
/// name).
pub fn sum_causes(m: &Manifest, waits: &[WaitRecord], causes: &[Vec<(u32, u64)>]) -> Vec<[u64; 5]> {
    let mut sums: BTreeMap<(u8, u32, u32, u32), u64> = BTreeMap::new();
    let name = |n: u32| m.strings.get(n as usize).map_or("", String::as_str);
    for (w, list) in waits.iter().zip(causes) {
        for (n, ns) in costs(list, w.end_ns - w.start_ns, name) {
            *sums.entry((w.pattern, w.location, w.cause.unwrap_or(0), n)).or_default() += ns;
        }
    }
    let mut out: Vec<[u64; 5]> =
        sums.into_iter().map(|((p, w, c, n), ns)| [p as u64, w as u64, c as u64, n as u64, ns]).collect();
    out.sort_by(|x, y| {
        y[4].cmp(&x[4])
            .then_with(|| PATTERN_KEYS[x[0] as usize].cmp(PATTERN_KEYS[y[0] as usize]))
            .then_with(|| x[1].cmp(&y[1]))
            .then_with(|| x[2].cmp(&y[2]))
            .then_with(|| name(x[3] as u32).cmp(name(y[3] as u32)))
    });
    out
}

/// Block `b`'s range queries (sorted by window of `a`, location, `a`) summed as its tiles are walked; each
/// finished range to `done`.
fn ranges_of_block(
    m: &Manifest,
    b: u32,
    tiles: &[&TileEntry],
    read: ReadTile,
    queries: &[RangeQuery],
    names: &[u32],
    done: &mut dyn FnMut(Active),
) -> Result<(), String> {
    let t = &m.tiling;
    let nl = m.locations.process.len() as u32;
    let locs = t.block_range(b, nl);
    let mut sweeps: Vec<Sweep> = (0..locs.len()).map(|_| Sweep::default()).collect();
    let mut active: Vec<Vec<Active>> = (0..locs.len()).map(|_| Vec::new()).collect();
    let (mut q, mut tile_at) = (0usize, 0usize);
    for w in 0..t.windows {
        let mut own: Vec<(usize, Open)> = Vec::new();
        if tile_at < tiles.len() && tiles[tile_at].window == w {
            let e = tiles[tile_at];
            tile_at += 1;
            let bytes = read(&e.path)?;
            let (_, payload) =
                unframe_tile(&bytes, m.version as u8, MAX_TILE_RAW).map_err(|c| format!("{}: {c}", e.path))?;
            let tile =
                decode_events(&payload, locs.clone(), t.window_span(w), m).map_err(|c| format!("{}: {c}", e.path))?;
            // (The intervals' trace indexes are not needed here.)
            for &TileInterval { location: l, region, start_ns: start, dur_ns: dur, depth } in &tile.intervals {
                own.push((
                    (l.0 - locs.start) as usize,
                    Open { index: 0, region: region.0, start, end: start + dur, depth },
                ));
            }
        }
        let q_end = q + queries[q..].partition_point(|x| t.window_of(x.a) == w);
        let mut at = 0usize;
        for k in 0..locs.len() {
            let l = locs.start + k as u32;
            let i_end = at + own[at..].partition_point(|x| x.0 == k);
            let (sweep, act) = (&mut sweeps[k], &mut active[k]);
            let mut i = at;
            loop {
                let next_a = (q < q_end && queries[q].location == l).then(|| queries[q].a);
                let next_s = (i < i_end).then(|| own[i].1.start);
                match (next_a, next_s) {
                    (None, None) => break,
                    // A range opens once the intervals starting before it are pushed: those open at `a` count.
                    (Some(a), s) if s.is_none_or(|s| a <= s) => {
                        let mut x = Active { q: queries[q], sums: Default::default() };
                        q += 1;
                        open_chain(sweep, a, |o, p| x.add(names, o, p));
                        act.push(x);
                    }
                    _ => {
                        let o = own[i].1;
                        i += 1;
                        // Ranges that ended before it are done.
                        let mut j = 0;
                        while j < act.len() {
                            if act[j].q.b <= o.start {
                                done(act.swap_remove(j));
                            } else {
                                j += 1;
                            }
                        }
                        sweep.push(o);
                        if !act.is_empty() {
                            let parent = sweep.parent_of_top();
                            for x in act.iter_mut() {
                                x.add(names, &o, parent);
                            }
                        }
                    }
                }
            }
            at = i_end;
        }
        if q != q_end {
            return Err(format!("block {b}: a range outside the block's locations (waits)"));
        }
    }
    for act in active {
        for x in act {
            done(x);
        }
    }
    Ok(())
}

/// The intervals open at `a` that started before it (the top's chain from the first ending after `a`), each
/// with its parent, to `f`: `diagnosis::root_causes::exclusive`'s first part.
fn open_chain(sweep: &Sweep, a: u64, mut f: impl FnMut(&Open, Option<Open>)) {
    let st = &sweep.stack;
    let mut k = st.len();
    // The last interval pushed, then its parents, until one ends after `a`.
    let mut found = None;
    while k > 0 {
        k -= 1;
        let Some(o) = st[k] else { return };
        if o.end > a {
            found = Some(k);
            break;
        }
    }
    let Some(mut k) = found else { return };
    loop {
        let Some(o) = st[k] else { return };
        // Its parent: the first entry below of another interval (gaps hold copies of the one above).
        let mut j = k;
        let parent = loop {
            if j == 0 {
                break None;
            }
            j -= 1;
            match st[j] {
                Some(p) if same(&p, &o) => continue,
                p => break p,
            }
        };
        f(&o, parent);
        match parent {
            Some(_) => k = j,
            None => return,
        }
    }
}

/// The same interval (a copy on the stack filling a gap in depths).
fn same(a: &Open, b: &Open) -> bool {
    a.start == b.start && a.end == b.end && a.depth == b.depth && a.region == b.region
}

/// The blocking collectives' waits, members grouped by operation in row order (`waits::collectives`).
fn collective_waits(members: &mut [Member], kind: &dyn Fn(u32) -> Option<MpiCall>, waits: &mut Vec<WaitRecord>) {
    members.sort_unstable_by_key(|c| (c.operation, c.row));
    // (location, call, enter)
    let mut group: Vec<(u32, Option<Call>, u64)> = Vec::new();
    let mut at = 0;
    while at < members.len() {
        let op = members[at].operation;
        let end = at + members[at..].partition_point(|c| c.operation == op);
        let rows = &members[at..end];
        at = end;
        group.clear();
        let mut ckind: Option<CollectiveKind> = None;
        for c in rows {
            let k = match c.call {
                Some(call) => kind(call.region),
                None => kind(c.region),
            };
            let Some(MpiCall::Collective(k)) = k else { continue };
            if *ckind.get_or_insert(k) == k {
                group.push((c.location, c.call, c.call.map_or(c.begin, |x| x.start)));
            }
        }
        let Some(ck) = ckind else { continue };
        if group.len() < 2 {
            continue;
        }
        let mut push = |pattern: u8, mb: &(u32, Option<Call>, u64), until: u64, cause: &(u32, Option<Call>, u64)| {
            if let Some(call) = mb.1 {
                if until > mb.2 {
                    waits.push(WaitRecord {
                        location: mb.0,
                        start_ns: mb.2,
                        pattern,
                        call: call.index,
                        end_ns: until,
                        region: call.region,
                        cause: Some(cause.0),
                        cause_ns: cause.2,
                    });
                }
            }
        };
        let root = || {
            let r = rows.iter().find_map(|c| c.root)?;
            group.iter().find(|g| g.0 == r).copied()
        };
        match ck {
            CollectiveKind::Barrier | CollectiveKind::NxN => {
                let pattern = if ck == CollectiveKind::Barrier { WAIT_AT_BARRIER } else { WAIT_AT_NXN };
                let last = *group.iter().rev().max_by_key(|g| g.2).expect("two members");
                for g in &group {
                    push(pattern, g, last.2, &last);
                }
            }
            CollectiveKind::OneToN => {
                let Some(root) = root() else { continue };
                for g in group.iter().filter(|g| g.0 != root.0) {
                    push(LATE_BROADCAST, g, root.2, &root);
                }
            }
            CollectiveKind::NToOne => {
                let Some(root) = root() else { continue };
                let first = group.iter().filter(|g| g.0 != root.0).min_by_key(|g| g.2).copied();
                if let Some(first) = first {
                    push(EARLY_REDUCE, &root, first.2, &first);
                }
            }
        }
    }
}

/// The manifest's sums of `waits` (sorted by location).
pub fn summary(waits: &[WaitRecord]) -> WaitSummary {
    let np = PATTERN_KEYS.len();
    let mut patterns = vec![[0u64; 2]; np];
    let mut per_location: BTreeMap<(u64, u64), [u64; 2]> = BTreeMap::new();
    let mut by_region: BTreeMap<(u64, u64), u64> = BTreeMap::new();
    for w in waits {
        let (p, ns) = (w.pattern as usize, w.end_ns - w.start_ns);
        patterns[p][0] += ns;
        patterns[p][1] += 1;
        let e = per_location.entry((p as u64, w.location as u64)).or_default();
        e[0] += ns;
        e[1] += 1;
        *by_region.entry((p as u64, w.region as u64)).or_default() += ns;
    }
    WaitSummary {
        patterns,
        per_location: per_location.into_iter().map(|((p, l), [ns, n])| [p, l, ns, n]).collect(),
        by_region: by_region.into_iter().map(|((p, r), ns)| [p, r, ns]).collect(),
        root_causes: Vec::new(),
        spans: Vec::new(),
    }
}

/// The wait states of the store `m` into it: the waits tiles (one per block with waits) and the wait
/// summary tiles written through `put` and listed, the manifest's `waits` set; then the critical path
/// through them (`crate::critical_path`). Every way of building a
/// store calls this last, on its whole manifest (a part has none: the merge computes them).
pub fn add_waits(m: &mut Manifest, read: ReadTile, put: PutTile) -> Result<(), String> {
    // (What the blocks' tasks freed, kept resident by the allocator's per-thread heaps, handed back first.)
    crate::stream::ranged::return_free_memory();
    let States { waits, causes, spans, latest } = wait_records(m, read)?;
    let t = m.tiling;
    let nl = m.locations.process.len() as u32;
    let mut entries = Vec::new();
    let mut at = 0;
    for b in 0..t.blocks {
        let locs = t.block_range(b, nl);
        let end = at + waits[at..].partition_point(|w| w.location < locs.end);
        let block = &waits[at..end];
        at = end;
        if block.is_empty() {
            continue;
        }
        let (e, bytes) = tile(
            TileKind::Waits,
            0,
            b,
            0,
            block.len() as u64,
            encode_waits(block, &causes[at - block.len()..at], &locs),
        );
        put(&e.path, &bytes)?;
        entries.push(e);
        for (e, bytes) in wait_bins(m, b, &locs, block) {
            put(&e.path, &bytes)?;
            entries.push(e);
        }
    }
    m.tiles.extend(entries);
    let mut sum = summary(&waits);
    sum.root_causes = sum_causes(m, &waits, &causes);
    sum.spans = spans;
    m.waits = Some(sum);
    drop(causes);
    crate::critical_path::add_path(m, read, put, &waits, &latest)
}

/// Block `b`'s waiting per location and bin at every pyramid level, as the summary tiles cut them (tile J of
/// level L its bins `J*256 ..`): the tiles holding any waiting.
fn wait_bins(m: &Manifest, b: u32, locs: &std::ops::Range<u32>, waits: &[WaitRecord]) -> Vec<(TileEntry, Vec<u8>)> {
    let per = m.tiling.bins_per_tile as u64;
    let nloc = locs.len();
    let mut out = Vec::new();
    for lv in &m.levels {
        // tile -> nloc x per bins
        let mut tiles: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
        for w in waits {
            let k = (w.location - locs.start) as usize;
            let last = lv.bins - 1;
            let (b0, b1) = ((w.start_ns / lv.bin_ns).min(last), ((w.end_ns - 1) / lv.bin_ns).min(last));
            for bin in b0..=b1 {
                let lo = (bin * lv.bin_ns).max(w.start_ns);
                let hi = if bin == last { w.end_ns } else { ((bin + 1) * lv.bin_ns).min(w.end_ns) };
                let ns = hi.saturating_sub(lo);
                if ns == 0 {
                    continue;
                }
                let v = tiles.entry(bin / per).or_insert_with(|| vec![0; nloc * per as usize]);
                v[k * per as usize + (bin % per) as usize] += ns;
            }
        }
        for (j, bins) in tiles {
            let n = per.min(lv.bins - j * per) as usize;
            let mut c = weft_store::format::columns::ColumnWriter::default();
            c.varint(nloc as u64);
            c.varint(n as u64);
            for k in 0..nloc {
                for v in &bins[k * per as usize..k * per as usize + n] {
                    c.varint(*v);
                }
            }
            out.push(tile(TileKind::WaitSummary, lv.level, b, j as u32, (nloc * n) as u64, c));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wait_states_memory_is_counted_and_a_refusal_names_what_fits() {
        assert_eq!(memory_needed(1000, 24), 1024 * BYTES_PER_FACT);
        assert_eq!(over_memory(1000, 24, 1024 * BYTES_PER_FACT), None);
        let why = over_memory(1 << 20, 1 << 19, 64 << 20).expect("over");
        assert!(why.contains("about 480 MB in memory (1048576 messages and 524288 collective members"), "{why}");
        assert!(why.contains("over --memory 64 MB: raise --memory to 480 MB, or index without --waits"), "{why}");
        assert!(over_memory(u64::MAX, u64::MAX, u64::MAX - 1).is_some(), "saturates");
    }
}
