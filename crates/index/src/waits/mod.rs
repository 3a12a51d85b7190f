//! The wait states of a store (issue #53; docs/store-format.md, "waits"), computed from its own level-0
//! tiles once they are written, so the store's waits are the same bytes however it was built (threads,
//! shards merged, MPI ranks, `--memory`): `build`, the unsharded stream, `weft merge` and the MPI ranks'
//! merge all end here. The rules are `analyses::diagnosis::waits`' (late sender, late receiver, the four
//! blocking collective patterns), found in streaming form:
//!
//! 1. each block's events tiles are read window by window; a sweep per location keeps the stack of
//!    intervals open (the model's depths) and answers `op(e)` for each event as `calls::OpLookup` does,
//!    ties included ([`Sweep`]): a send and a collective member's begin with `Tie::Entered`;
//! 2. the messages' receive ends and postings ([`rows::Ask`], each carrying what its send told), sorted by
//!    their receiver's block, window and time, are answered by a second walk over the tiles
//!    (`Tie::Leaving` for a receive completed, the posting's tie): each answer is a wait candidate
//!    ([`rows::Candidate`], per receive call the latest enter of a matched send's op: late sender; per
//!    blocking send the latest enter of the call that posted its receive: late receiver) and a meeting of
//!    the pair (for the root causes);
//! 3. the candidates sorted by call give the point-to-point waits; the collective members sorted by
//!    operation the collective ones; all sorted by location and start;
//! 4. the root causes (`causes`: the pair's last meeting per wait, a third walk summing the ranges);
//! 5. the waits with their causes, in order, to one waits tile per block, their sums to the manifest's
//!    `waits`, and their waiting per time bin to the wait summary tiles (`out`); then the critical path
//!    through them (`crate::critical_path`).
//!
//! Memory (`--memory`, [`Budget::waits_sort`]): every list that grows with the trace (the questions, the
//! candidates, the collective members, the meetings, the waits, the ranges and their sums) is a
//! [`Sorter`]: held while it fits its share, else written to the spill in sorted runs and read back merged
//! or by page (`spill::sorted`). Held at once besides: one events tile, per location of a block its stack of
//! open intervals, one collective operation's members, a block's waits tile as it is written and its
//! waiting bins, and the critical path's segments. Records compare whole, so the stores are the same bytes
//! whatever the memory.

mod causes;
mod out;
mod rows;

use crate::spill::sorted::{Paged, Reader, Room, Sorted, Sorter};
use crate::spill::Spill;
use rows::{Ask, Candidate, Joined, Leave, Meeting, RangeQuery};
use weft_analyses::diagnosis::calls::{CollectiveKind, MpiCall, Tie};
use weft_store::format::columns::unframe_tile;
use weft_store::format::events::{decode_events, EventsTile, TileInterval};
use weft_store::format::manifest::{Manifest, TileEntry, TileKind};
use weft_store::format::waits::WaitRecord;

pub use out::{sum_causes, summary};

/// The least `--memory` the wait-state step works in: each of its sorts holds a sixteenth of it
/// ([`crate::Budget::waits_sort`]), at least [`MIN_SORT_BYTES`].
pub const MIN_SORT_BYTES: u64 = 64 << 10;

/// Why `--waits` cannot run within `memory` (`--memory`): a sort's share under [`MIN_SORT_BYTES`] (its runs
/// would be a handful of records each, the merges holding a page of each); `None` when it can.
pub fn too_little(memory: u64) -> Option<String> {
    let share = crate::Budget::new(memory).waits_sort();
    (share < MIN_SORT_BYTES).then(|| {
        let need = MIN_SORT_BYTES * 16;
        format!(
            "--waits: each of the wait-state step's sorts holds a sixteenth of --memory, {share} bytes of --memory \
             {memory} bytes, under the {MIN_SORT_BYTES} bytes a sort needs: raise --memory to {} MB",
            need >> 20
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
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
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

/// What a walk over a block's tiles does with them: the queries of each window (at times within it, its
/// tile's own among them), each query's op, and the window's end.
trait Visit {
    fn window(&mut self, b: u32, w: u32, tile: Option<&EventsTile>, queries: &mut Vec<Query>) -> Result<(), String>;
    fn answer(&mut self, slot: usize, op: Option<Open>) -> Result<(), String>;
    /// Every query of the window is answered.
    fn window_done(&mut self) -> Result<(), String> {
        Ok(())
    }
}

/// Walks block `b`'s events tiles window by window, pushing each location's intervals and answering the
/// queries `v` gives for each window.
fn walk_block(m: &Manifest, b: u32, tiles: &[&TileEntry], read: ReadTile, v: &mut dyn Visit) -> Result<(), String> {
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
    let mut tile_at = 0usize;
    for w in 0..t.windows {
        let span = t.window_span(w);
        let mut own: Vec<(usize, Open)> = Vec::new();
        let mut extra: Vec<Query> = Vec::new();
        let mut tile = None;
        if tile_at < tiles.len() && tiles[tile_at].window == w {
            let e = tiles[tile_at];
            tile_at += 1;
            let bytes = read(&e.path)?;
            let (_, payload) =
                unframe_tile(&bytes, m.version as u8, MAX_TILE_RAW).map_err(|c| format!("{}: {c}", e.path))?;
            let decoded =
                decode_events(&payload, locs.clone(), span.clone(), m).map_err(|c| format!("{}: {c}", e.path))?;
            for &TileInterval { location: l, region, start_ns: start, dur_ns: dur, depth } in &decoded.intervals {
                let k = (l.0 - locs.start) as usize;
                own.push((k, Open { index: base[k], region: region.0, start, end: start + dur, depth }));
                base[k] += 1;
            }
            tile = Some(decoded);
        }
        v.window(b, w, tile.as_ref(), &mut extra)?;
        drop(tile);
        // This window's queries, by location and time; the window's intervals by location and start.
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
                    v.answer(x.slot, op)?;
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
        v.window_done()?;
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

/// A collective member (step 1): its operation, row, location, the row's root and region, and its call
/// (ordered by operation and row: the order its operation's waits are found in).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Member {
    operation: u32,
    row: u64,
    location: u32,
    root: Option<u32>,
    region: u32,
    begin: u64,
    end: u64,
    call: Option<Call>,
}

/// Step 1's walk: each tile's point-to-point messages (with their sender's op) and collective rows (with
/// their member's call), a window's at a time: the messages' questions for step 2 ([`Ask`]) and the
/// members sorted. Slots: even for the window's messages, odd for its members.
struct Senders<'r, 's> {
    room: &'r mut Room<'s>,
    asks: Sorter<Ask>,
    members: Sorter<Member>,
    /// This window's.
    sent: Vec<Sent>,
    window_members: Vec<Member>,
    /// Messages numbered so far.
    messages: u64,
    tiling: weft_store::format::manifest::Tiling,
    /// Per location, its first interval's start and last end.
    spans: Vec<Option<[u64; 2]>>,
    /// Per location, its latest event (interval end, instant, message end, collective end), if any: where
    /// the critical path starts (`diagnosis::critical_path::last_location`).
    latest: Vec<Option<u64>>,
}

impl Senders<'_, '_> {
    fn see(&mut self, l: weft_model::LocationId, t: u64) {
        if let Some(x) = self.latest.get_mut(l.index()) {
            *x = Some(x.map_or(t, |x| x.max(t)));
        }
    }
}

impl Visit for Senders<'_, '_> {
    fn window(&mut self, _: u32, _: u32, tile: Option<&EventsTile>, queries: &mut Vec<Query>) -> Result<(), String> {
        let Some(tile) = tile else { return Ok(()) };
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
                slot: 2 * self.window_members.len() + 1,
            });
            self.window_members.push(Member {
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
        Ok(())
    }
    fn answer(&mut self, slot: usize, op: Option<Open>) -> Result<(), String> {
        if slot.is_multiple_of(2) {
            self.sent[slot / 2].op = op.map(Call::from);
        } else {
            self.window_members[slot / 2].call = op.map(Call::from);
        }
        Ok(())
    }
    fn window_done(&mut self) -> Result<(), String> {
        let t = self.tiling;
        for s in self.sent.drain(..) {
            let ask = |which: u8, time: u64, leaving: bool| Ask {
                block: t.block_of(s.receiver),
                window: t.window_of(time),
                location: s.receiver,
                t: time,
                message: self.messages,
                which,
                leaving: leaving as u8,
                sender: s.sender,
                send_ns: s.send_ns,
                recv_ns: s.recv_ns,
                posted_ns: s.posted_ns,
                op: s.op,
            };
            let (receive, posting) = (ask(0, s.recv_ns, true), ask(1, s.posted_ns, s.posted_ns == s.recv_ns));
            self.asks.push(receive, self.room)?;
            self.asks.push(posting, self.room)?;
            self.messages += 1;
        }
        for mb in self.window_members.drain(..) {
            self.members.push(mb, self.room)?;
        }
        Ok(())
    }
}

/// Step 2's walk: per message, the op of its receive (which 0) and of its posting (which 1), asked on the
/// receiver's block, window by window; each answer to the wait candidates and the pair's meetings.
struct Receivers<'a, 'r, 's> {
    room: &'r mut Room<'s>,
    asks: Reader<'a, Ask>,
    next: Option<Ask>,
    window: Vec<Ask>,
    candidates: Sorter<Candidate>,
    meetings: Sorter<Meeting>,
    kind: &'a dyn Fn(u32) -> Option<MpiCall>,
}

impl Receivers<'_, '_, '_> {
    fn peek(&mut self) -> Result<Option<Ask>, String> {
        if self.next.is_none() {
            self.next = self.asks.next(&*self.room.spill)?;
        }
        Ok(self.next)
    }
}

impl Visit for Receivers<'_, '_, '_> {
    fn window(&mut self, b: u32, w: u32, _: Option<&EventsTile>, queries: &mut Vec<Query>) -> Result<(), String> {
        while let Some(a) = self.peek()? {
            if (a.block, a.window) != (b, w) {
                break;
            }
            let tie = if a.leaving == 1 { Tie::Leaving } else { Tie::Entered };
            queries.push(Query { location: a.location, t: a.t, tie, slot: self.window.len() });
            self.window.push(a);
            self.next = None;
        }
        Ok(())
    }
    fn answer(&mut self, slot: usize, op: Option<Open>) -> Result<(), String> {
        let a = self.window[slot];
        let op = op.map(Call::from);
        let kind = self.kind;
        if a.which == 0 {
            if let Some(call) = op {
                if kind(call.region).is_some_and(MpiCall::completes_receives) {
                    let arrival = a.op.map_or(a.send_ns, |o| o.start);
                    let c = candidate(LATE_SENDER, call, arrival, a.location, a.sender);
                    self.candidates.push(c, self.room)?;
                }
            }
            // The pair's meeting, for the root causes: the leaves of the send and receive calls.
            if a.sender != a.location {
                let (ts, tr) = (a.op.map_or(a.send_ns, |o| o.end), op.map_or(a.recv_ns, |o| o.end));
                self.meetings.push(Meeting { w: a.sender, c: a.location, a: ts, b: tr }, self.room)?;
                self.meetings.push(Meeting { w: a.location, c: a.sender, a: tr, b: ts }, self.room)?;
            }
        } else if let Some(call) = a.op {
            if kind(call.region).is_some_and(MpiCall::is_blocking_send) {
                let arrival = op.map_or(a.posted_ns, |o| o.start);
                self.candidates.push(candidate(LATE_RECEIVER, call, arrival, a.sender, a.location), self.room)?;
            }
        }
        Ok(())
    }
    fn window_done(&mut self) -> Result<(), String> {
        self.window.clear();
        Ok(())
    }
}

fn candidate(pattern: u8, call: Call, arrival: u64, location: u32, partner: u32) -> Candidate {
    Candidate {
        pattern,
        call: call.index,
        later: u64::MAX - arrival,
        location,
        partner,
        region: call.region,
        start: call.start,
        end: call.end,
    }
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

/// Walks every block with `v`.
fn walk_all(m: &Manifest, tiles: &[Vec<&TileEntry>], read: ReadTile, v: &mut dyn Visit) -> Result<(), String> {
    for b in 0..m.tiling.blocks {
        walk_block(m, b, &tiles[b as usize], read, v)?;
    }
    crate::stream::ranged::return_free_memory();
    Ok(())
}

/// The wait states of the store `m` into it, every list held in memory (a whole build's, tests'):
/// [`add_waits_within`] with no bound.
pub fn add_waits(m: &mut Manifest, read: ReadTile, put: PutTile) -> Result<(), String> {
    add_waits_within(m, read, put, &mut crate::MemorySpill::default(), u64::MAX).map(|_| ())
}

/// The wait states of the store `m` into it, its level-0 tiles read through `read`: the waits tiles (one
/// per block with waits) and the wait summary tiles written through `put` and listed, the manifest's
/// `waits` set; then the critical path through them (`crate::critical_path`). Every way of building a store
/// calls this last, on its whole manifest (a part has none: the merge computes them). Within `memory`
/// ([`crate::Budget::waits_sort`] each sort), what passes a sort's share in sorted runs in `spill` (its
/// keys from 0: whatever it held is cleared first). The bytes it spilled.
pub fn add_waits_within(
    m: &mut Manifest,
    read: ReadTile,
    put: PutTile,
    spill: &mut dyn Spill,
    memory: u64,
) -> Result<u64, String> {
    if let Some(why) = too_little(memory) {
        return Err(why);
    }
    // (What the blocks' tasks freed, kept resident by the allocator's per-thread heaps, handed back first.)
    crate::stream::ranged::return_free_memory();
    spill.clear()?;
    let mut room = Room::new(spill, crate::Budget::new(memory).waits_sort());
    let room = &mut room;
    let kinds: Vec<Option<MpiCall>> =
        m.regions.name.iter().map(|&s| MpiCall::of(m.strings.get(s as usize).map_or("", String::as_str))).collect();
    let kind = |region: u32| kinds.get(region as usize).copied().flatten();
    let tiles = events_tiles(m);
    let nl = m.locations.process.len();
    // Step 1: sends and collective begins, answered as the tiles that hold them are walked.
    let mut first = Senders {
        asks: Sorter::new(room),
        members: Sorter::new(room),
        room,
        sent: Vec::new(),
        window_members: Vec::new(),
        messages: 0,
        tiling: m.tiling,
        spans: vec![None; nl],
        latest: vec![None; nl],
    };
    walk_all(m, &tiles, read, &mut first)?;
    let Senders { asks, members, spans, latest, .. } = first;
    let asks = asks.finish(room)?;
    // Step 2: the receive ends and postings, on their receivers' blocks.
    let mut second = Receivers {
        asks: asks.reader(),
        candidates: Sorter::new(room),
        meetings: Sorter::new(room),
        room,
        next: None,
        window: Vec::new(),
        kind: &kind,
    };
    walk_all(m, &tiles, read, &mut second)?;
    if let Some(a) = second.peek()? {
        return Err(format!("location {} at {}: an event past the blocks or the last window (waits)", a.location, a.t));
    }
    let Receivers { candidates, meetings, .. } = second;
    drop(asks);
    // Step 3: per call the latest partner arrival; per collective operation its members' waits.
    let mut waits = Sorter::<WaitRecord>::new(room);
    let candidates = candidates.finish(room)?;
    let mut r = candidates.reader();
    let mut last: Option<(u8, u64)> = None;
    while let Some(c) = r.next(&*room.spill)? {
        if last == Some((c.pattern, c.call)) {
            continue;
        }
        last = Some((c.pattern, c.call));
        let arrival = u64::MAX - c.later;
        let end = arrival.min(c.end);
        if end > c.start {
            let w = WaitRecord {
                location: c.location,
                start_ns: c.start,
                pattern: c.pattern,
                call: c.call,
                end_ns: end,
                region: c.region,
                cause: Some(c.partner),
                cause_ns: arrival,
            };
            waits.push(w, room)?;
        }
    }
    drop(candidates);
    let (joined, leaves) = collective_waits(members.finish(room)?, &kind, &mut waits, room)?;
    let waits = waits.finish(room)?;
    // Step 4: the root causes, each wait's ranges summed by a third walk.
    let mut meetings = causes::Meetings {
        messages: Paged::of(meetings.finish(room)?, room)?,
        joined: Paged::of(joined, room)?,
        leaves: Paged::of(leaves, room)?,
    };
    let parts = root_causes(m, &tiles, read, &waits, &mut meetings, room)?;
    drop(meetings);
    // Step 5: the tiles, the sums, the critical path.
    let path = out::write(m, &waits, &parts, spans, &latest, &mut *put, room)?;
    crate::critical_path::add_path(m, read, put, &path)?;
    Ok(room.spilled)
}

/// The blocking collectives' waits (to `waits`), their members read by operation and row; and each member's
/// meetings: the collectives by location and leave, the leaves by operation and location.
fn collective_waits(
    members: Sorted<Member>,
    kind: &dyn Fn(u32) -> Option<MpiCall>,
    waits: &mut Sorter<WaitRecord>,
    room: &mut Room,
) -> Result<(Sorted<Joined>, Sorted<Leave>), String> {
    let (mut joined, mut leaves) = (Sorter::<Joined>::new(room), Sorter::<Leave>::new(room));
    let mut r = members.reader();
    let mut group: Vec<Member> = Vec::new();
    let mut found: Vec<WaitRecord> = Vec::new();
    loop {
        let next = r.next(&*room.spill)?;
        if group.first().is_some_and(|g| next.is_none_or(|x| x.operation != g.operation)) {
            operation_waits(&group, kind, &mut found);
            for w in found.drain(..) {
                waits.push(w, room)?;
            }
            group.clear();
        }
        let Some(c) = next else { break };
        let k = match c.call {
            Some(call) => kind(call.region),
            None => kind(c.region),
        };
        if matches!(k, Some(MpiCall::Collective(_))) {
            let t = c.call.map_or(c.end, |x| x.end);
            joined.push(Joined { location: c.location, t, operation: c.operation }, room)?;
            leaves.push(Leave { operation: c.operation, location: c.location, row: c.row, t }, room)?;
        }
        group.push(c);
    }
    Ok((joined.finish(room)?, leaves.finish(room)?))
}

/// The root causes' parts of `waits` (each range's exclusive time per region name, signed, by wait and
/// name): per wait with a cause on another location, its pair's last meeting and the two ranges since,
/// summed by a third walk over the tiles (`causes`).
fn root_causes(
    m: &Manifest,
    tiles: &[Vec<&TileEntry>],
    read: ReadTile,
    waits: &Sorted<WaitRecord>,
    meetings: &mut causes::Meetings,
    room: &mut Room,
) -> Result<Sorted<rows::Part>, String> {
    // Region -> the first string id of its name (regions of one name are one name).
    let mut first: rustc_hash::FxHashMap<&str, u32> = rustc_hash::FxHashMap::default();
    let names: Vec<u32> = m
        .regions
        .name
        .iter()
        .map(|&s| *first.entry(m.strings.get(s as usize).map_or("", String::as_str)).or_insert(s))
        .collect();
    let t = m.tiling;
    let mut queries = Sorter::<RangeQuery>::new(room);
    let mut r = waits.reader();
    let (mut k, mut asked) = (0u64, 0u64);
    while let Some(w) = r.next(&*room.spill)? {
        let wait = k;
        k += 1;
        let Some(c) = w.cause else { continue };
        if c == w.location {
            continue;
        }
        let (aw, ac) = meetings.last(&*room.spill, w.location, w.start_ns, c, w.cause_ns)?;
        let range = |location: u32, a: u64, b: u64, plus: u8| RangeQuery {
            block: t.block_of(location),
            window: t.window_of(a),
            location,
            a,
            b,
            wait,
            plus,
        };
        if w.cause_ns > ac {
            queries.push(range(c, ac, w.cause_ns, 1), room)?;
            asked += 1;
        }
        if w.start_ns > aw {
            queries.push(range(w.location, aw, w.start_ns, 0), room)?;
            asked += 1;
        }
    }
    let queries = queries.finish(room)?;
    if asked == 0 {
        // (No range to sum: no third walk.)
        return Sorter::new(room).finish(room);
    }
    let mut ranges =
        causes::Ranges { queries: queries.reader(), next: None, parts: Sorter::new(room), room: &mut *room };
    for b in 0..t.blocks {
        causes::ranges_of_block(m, b, &tiles[b as usize], read, &names, &mut ranges)?;
    }
    if let Some(q) = ranges.left()? {
        return Err(format!("location {} at {}: a range past the blocks or the last window (waits)", q.location, q.a));
    }
    crate::stream::ranged::return_free_memory();
    let causes::Ranges { parts, .. } = ranges;
    parts.finish(room)
}

/// The waits of one blocking collective operation, its members `rows` in row order (`waits::collectives`).
fn operation_waits(rows: &[Member], kind: &dyn Fn(u32) -> Option<MpiCall>, waits: &mut Vec<WaitRecord>) {
    // (location, call, enter)
    let mut group: Vec<(u32, Option<Call>, u64)> = Vec::new();
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
    let Some(ck) = ckind else { return };
    if group.len() < 2 {
        return;
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
            let Some(root) = root() else { return };
            for g in group.iter().filter(|g| g.0 != root.0) {
                push(LATE_BROADCAST, g, root.2, &root);
            }
        }
        CollectiveKind::NToOne => {
            let Some(root) = root() else { return };
            let first = group.iter().filter(|g| g.0 != root.0).min_by_key(|g| g.2).copied();
            if let Some(first) = first {
                push(EARLY_REDUCE, &root, first.2, &first);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_least_memory_is_a_sixteenth_per_sort_and_a_refusal_names_what_fits() {
        assert_eq!(too_little(1 << 20), None);
        assert_eq!(too_little(u64::MAX), None);
        let why = too_little((1 << 20) - 1).expect("under");
        assert!(why.contains("under the 65536 bytes a sort needs: raise --memory to 1 MB"), "{why}");
        assert!(too_little(0).is_some());
    }
}
