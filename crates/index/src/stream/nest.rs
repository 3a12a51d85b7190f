//! A location's intervals nested and clipped exactly as [`TraceBuilder::finish`](weft_model::TraceBuilder::finish)
//! does, for the streamed index (`stream.rs`): whole ([`nest`]), or as the location's events are decoded
//! ([`LocationNest`]), so that a location of any length costs memory bounded by the reader's buffer; and
//! the spill format both write.
//!
//! The rule (the builder's): intervals sorted by start, longer first, then arrival (ENTER order); each
//! one's parent is the last one still open at its start on a stack of ends; a child outlasting its parent
//! is clipped to it. [`LocationNest`] gets the intervals of a location whose times never go back in
//! prefixes (every interval starting before the decode's current time `now`), with those still open
//! marked: no later interval starts before `now`, so the prefix's order is final; among intervals of one
//! start, those still open sort first (their end is at least `now`, past every closed one's, and equal
//! only for one entered earlier), in ENTER order; an open interval ends at or after `now`, so nothing in
//! the prefix pops it. An open interval is written with its depth and its duration is fixed up when it
//! closes. (In a location whose times never go back the ENTER/LEAVE stack makes the intervals laminar,
//! so nothing is clipped; the clipping is kept anyway, the rule being the builder's.)
//!
//! Plain Rust, no files: the spill bytes go to the caller.

use weft_model::RegionId;
use weft_store::format::columns::ColumnWriter;

/// One location's intervals after nesting: (region, start in the source clock, duration, depth).
pub(crate) type Nested = (RegionId, i64, u64, u16);

/// Where [`nest_into`] writes a location's nested intervals, in order.
pub(crate) trait NestedSink {
    /// Room for `n` more.
    fn reserve(&mut self, n: usize);
    fn put(&mut self, n: Nested);
    /// The sink's columns (region, start as an `i64`'s bits, duration, depth), when it keeps columns:
    /// [`nest_into`] then fills them a column at a time.
    fn columns(&mut self) -> Option<NestedColumnsMut<'_>> {
        None
    }
}

/// A sink's four columns, borrowed (what [`NestedSink::columns`] gives).
pub(crate) struct NestedColumnsMut<'a> {
    pub(crate) region: &'a mut Vec<RegionId>,
    pub(crate) start: &'a mut Vec<u64>,
    pub(crate) dur: &'a mut Vec<u64>,
    pub(crate) depth: &'a mut Vec<u16>,
}

impl NestedSink for Vec<Nested> {
    fn reserve(&mut self, n: usize) {
        Vec::reserve(self, n);
    }
    #[inline]
    fn put(&mut self, n: Nested) {
        self.push(n);
    }
}

/// One location's nested intervals as columns (what [`Nested`] holds, a column each; the start as an
/// `i64`'s bits): the columns held take them with a copy of each column, not an interval at a time.
#[derive(Default)]
pub(crate) struct NestedColumns {
    pub(crate) region: Vec<RegionId>,
    pub(crate) start: Vec<u64>,
    pub(crate) dur: Vec<u64>,
    pub(crate) depth: Vec<u16>,
}

impl NestedColumns {
    pub(crate) fn len(&self) -> usize {
        self.region.len()
    }

    pub(crate) fn clear(&mut self) {
        self.region.clear();
        self.start.clear();
        self.dur.clear();
        self.depth.clear();
    }

    /// The intervals in order.
    pub(crate) fn iter(&self) -> impl ExactSizeIterator<Item = Nested> + '_ {
        (0..self.len()).map(|k| (self.region[k], self.start[k] as i64, self.dur[k], self.depth[k]))
    }
}

impl NestedSink for NestedColumns {
    fn reserve(&mut self, n: usize) {
        self.region.reserve(n);
        self.start.reserve(n);
        self.dur.reserve(n);
        self.depth.reserve(n);
    }
    #[inline]
    fn put(&mut self, (r, start, dur, depth): Nested) {
        self.region.push(r);
        self.start.push(start as u64);
        self.dur.push(dur);
        self.depth.push(depth);
    }
    fn columns(&mut self) -> Option<NestedColumnsMut<'_>> {
        Some(NestedColumnsMut {
            region: &mut self.region,
            start: &mut self.start,
            dur: &mut self.dur,
            depth: &mut self.depth,
        })
    }
}

/// Nest and clip one location's intervals exactly as `TraceBuilder::finish` does (sorted by start, longer
/// first, then arrival; a child outlasting its parent is clipped to it), in the source clock, into `out`
/// (emptied first). Clipped intervals are reported to `clip(region, start, excess)`. Returns the latest end.
pub(crate) fn nest(
    raw: &[(RegionId, i64, u64)],
    out: &mut NestedColumns,
    clip: &mut impl FnMut(RegionId, i64, u64),
) -> i128 {
    out.clear();
    nest_into(raw, out, clip)
}

/// [`nest`] appending to `out` (the columns held take them without a copy in between).
pub(crate) fn nest_into(
    raw: &[(RegionId, i64, u64)],
    out: &mut impl NestedSink,
    clip: &mut impl FnMut(RegionId, i64, u64),
) -> i128 {
    let sorted = raw.windows(2).all(|w| w[0].1 < w[1].1 || (w[0].1 == w[1].1 && w[0].2 >= w[1].2));
    let mut order: Vec<u32> = Vec::new();
    if !sorted {
        order = (0..raw.len() as u32).collect();
        order.sort_by(|&a, &b| {
            let (x, y) = (&raw[a as usize], &raw[b as usize]);
            x.1.cmp(&y.1).then(y.2.cmp(&x.2)).then(a.cmp(&b))
        });
    }
    out.reserve(raw.len());
    let mut stack: Vec<i128> = Vec::new();
    let mut max_end = i128::MIN;
    if sorted {
        if let Some(c) = out.columns() {
            // In order already (the reader's usual case), into columns: the regions and starts copied a
            // column at a time, the stack's pass writing the durations and depths (no per-interval pushes
            // onto four lists).
            c.region.extend(raw.iter().map(|x| x.0));
            c.start.extend(raw.iter().map(|x| x.1 as u64));
            let depth = &mut *c.depth;
            c.dur.extend(raw.iter().map(|&(region, start, dur)| {
                let (d, end) = nest_one(&mut stack, region, start, dur, clip);
                max_end = max_end.max(end);
                depth.push(d);
                (end - start as i128) as u64
            }));
            return max_end;
        }
    }
    for k in 0..raw.len() {
        let (region, start, dur) = raw[if sorted { k } else { order[k] as usize }];
        let (depth, end) = nest_one(&mut stack, region, start, dur, clip);
        max_end = max_end.max(end);
        out.put((region, start, (end - start as i128) as u64, depth));
    }
    max_end
}

/// The next interval in the nesting order against `stack` (the ends of those enclosing the last one): its
/// depth and its end, clipped to its parent's (reported to `clip`).
#[inline(always)]
fn nest_one(
    stack: &mut Vec<i128>,
    region: RegionId,
    start: i64,
    dur: u64,
    clip: &mut impl FnMut(RegionId, i64, u64),
) -> (u16, i128) {
    let s = start as i128;
    let mut end = s + dur as i128;
    while let Some(&top) = stack.last() {
        if top <= s {
            stack.pop();
        } else {
            break;
        }
    }
    if let Some(&parent_end) = stack.last() {
        if end > parent_end {
            clip(region, start, (end - parent_end) as u64);
            end = parent_end;
        }
    }
    let depth = stack.len().min(u16::MAX as usize) as u16;
    stack.push(end);
    (depth, end)
}

/// A segment of a location's spill: the count, then per interval region, start (the segment's first as a
/// signed value, then the non-negative step from the previous), duration, depth; then the count of fix-ups,
/// each (the interval's index in the location, its duration): durations of intervals written while still
/// open. A location's spill is its segments in order (one, without fix-ups, for a location nested whole).
pub(crate) fn encode_segment(v: impl ExactSizeIterator<Item = Nested>, fixups: &[(u64, u64)], w: &mut ColumnWriter) {
    w.buf.clear();
    w.varint(v.len() as u64);
    let mut prev = 0i64;
    for (k, (r, start, dur, depth)) in v.enumerate() {
        w.varint(r.0 as u64);
        if k == 0 {
            w.signed(start);
        } else {
            w.varint(start.wrapping_sub(prev) as u64);
        }
        prev = start;
        w.varint(dur);
        w.varint(depth as u64);
    }
    w.varint(fixups.len() as u64);
    for &(i, dur) in fixups {
        w.varint(i);
        w.varint(dur);
    }
}

/// Per-region totals (count, inclusive time) of nested intervals, location by location, as
/// `analyses::summary::region_totals` counts them (a region's time counts once while it is open at any
/// depth; `build::block_tiles` counts a block's by the same rule): a shard's over every location.
#[derive(Default)]
pub(crate) struct RegionTotals {
    pub(crate) totals: Vec<(u64, u64)>,
    active: Vec<u32>,
    stack: Vec<u32>,
}

impl RegionTotals {
    /// A whole location's nested intervals.
    pub(crate) fn location(&mut self, v: &NestedColumns) {
        self.begin();
        for ((&r, &dur), &depth) in v.region.iter().zip(&v.dur).zip(&v.depth) {
            if self.interval(r, depth) {
                self.add_time(r, dur);
            }
        }
    }

    /// A location starts.
    pub(crate) fn begin(&mut self) {
        for r in self.stack.drain(..) {
            self.active[r as usize] -= 1;
        }
    }

    /// The next nested interval (in order): counted; returns whether its time counts (no enclosing interval
    /// of its region), to be added with [`add_time`](Self::add_time) once known.
    pub(crate) fn interval(&mut self, r: RegionId, depth: u16) -> bool {
        let Self { totals, active, stack } = self;
        while stack.len() > depth as usize {
            let top = stack.pop().expect("stack longer than depth");
            active[top as usize] -= 1;
        }
        let r = r.index();
        if r >= totals.len() {
            totals.resize(r + 1, (0, 0));
            active.resize(r + 1, 0);
        }
        totals[r].0 += 1;
        let counts = active[r] == 0;
        active[r] += 1;
        stack.push(r as u32);
        counts
    }

    pub(crate) fn add_time(&mut self, r: RegionId, dur: u64) {
        self.totals[r.index()].1 += dur;
    }
}

/// An interval written while open: what its close needs.
struct Open {
    /// Its arrival number.
    slot: usize,
    /// Its index among the location's nested intervals.
    index: u64,
    /// Its entry on the stack of ends (not popped while open: its end is unknown, at least `now`).
    stack_pos: usize,
    /// Its parent's end, when known at its start.
    clip_to: Option<i128>,
    region: RegionId,
    start: i64,
    /// Its time counts in the region totals.
    counts_time: bool,
}

/// One location nested as its intervals come (see the module doc): prefixes in, segments of spill out.
#[derive(Default)]
pub(crate) struct LocationNest {
    /// Intervals nested so far.
    pub(crate) count: u64,
    /// The first start (the location's earliest: the order is by start).
    pub(crate) first_start: Option<i64>,
    pub(crate) max_end: i128,
    /// Ends of the open nesting (None: an interval still open).
    stack: Vec<Option<i128>>,
    open: Vec<Open>,
    /// The segment being made, and the fix-ups since the last one.
    pub(crate) seg: Vec<Nested>,
    pub(crate) fixups: Vec<(u64, u64)>,
    order: Vec<u32>,
}

impl LocationNest {
    pub(crate) fn begin(&mut self) {
        self.count = 0;
        self.first_start = None;
        self.max_end = i128::MIN;
        self.stack.clear();
        self.open.clear();
        self.seg.clear();
        self.fixups.clear();
    }

    /// Nest `buf`, the location's intervals from arrival number `first` on, all starting before the
    /// decode's time (or all of them, closed, at the location's end); `open` the arrival numbers among them
    /// still open, ascending. Nested intervals go to `seg`.
    pub(crate) fn prefix(
        &mut self,
        buf: &[(RegionId, i64, u64)],
        first: usize,
        open: &[usize],
        totals: &mut Option<RegionTotals>,
        clip: &mut impl FnMut(RegionId, i64, u64),
    ) {
        let is_open = |i: usize| open.binary_search(&(first + i)).is_ok();
        // The order's key: start; open before closed; longer first; arrival.
        let before = |a: usize, b: usize| -> bool {
            let (x, y) = (&buf[a], &buf[b]);
            if x.1 != y.1 {
                return x.1 < y.1;
            }
            match (is_open(a), is_open(b)) {
                (true, false) => true,
                (false, true) => false,
                (true, true) => a < b,
                (false, false) => x.2 > y.2 || (x.2 == y.2 && a < b),
            }
        };
        let sorted = (1..buf.len()).all(|k| before(k - 1, k));
        self.order.clear();
        if !sorted {
            self.order.extend(0..buf.len() as u32);
            self.order.sort_by(|&a, &b| {
                if before(a as usize, b as usize) {
                    std::cmp::Ordering::Less
                } else {
                    std::cmp::Ordering::Greater
                }
            });
        }
        // In order (the common case) the open ones come in arrival order: a cursor, not a search.
        let mut next_open = open.iter().map(|&s| s - first).peekable();
        for k in 0..buf.len() {
            let i = if sorted { k } else { self.order[k] as usize };
            let (region, start, dur) = buf[i];
            let open_now = if sorted { next_open.next_if_eq(&i).is_some() } else { is_open(i) };
            let s = start as i128;
            while let Some(&Some(top)) = self.stack.last() {
                if top <= s {
                    self.stack.pop();
                } else {
                    break;
                }
            }
            let parent_end = self.stack.last().copied().flatten();
            let depth = self.stack.len().min(u16::MAX as usize) as u16;
            let counts_time = totals.as_mut().is_some_and(|t| t.interval(region, depth));
            self.first_start.get_or_insert(start);
            if open_now {
                self.stack.push(None);
                self.open.push(Open {
                    slot: first + i,
                    index: self.count,
                    stack_pos: self.stack.len() - 1,
                    clip_to: parent_end,
                    region,
                    start,
                    counts_time,
                });
                self.seg.push((region, start, 0, depth));
            } else {
                let mut end = s + dur as i128;
                if let Some(pe) = parent_end {
                    if end > pe {
                        clip(region, start, (end - pe) as u64);
                        end = pe;
                    }
                }
                self.stack.push(Some(end));
                self.max_end = self.max_end.max(end);
                let dur = (end - s) as u64;
                if counts_time {
                    if let Some(t) = totals.as_mut() {
                        t.add_time(region, dur);
                    }
                }
                self.seg.push((region, start, dur, depth));
            }
            self.count += 1;
        }
    }

    /// Interval `slot`, nested while open, closed after `dur`: its duration becomes a fix-up. False when
    /// no interval `slot` is open here.
    pub(crate) fn closed(
        &mut self,
        slot: usize,
        dur: u64,
        totals: &mut Option<RegionTotals>,
        clip: &mut impl FnMut(RegionId, i64, u64),
    ) -> bool {
        let Some(k) = self.open.iter().rposition(|o| o.slot == slot) else {
            return false;
        };
        let o = self.open.remove(k);
        let s = o.start as i128;
        let mut end = s + dur as i128;
        if let Some(pe) = o.clip_to {
            if end > pe {
                clip(o.region, o.start, (end - pe) as u64);
                end = pe;
            }
        }
        self.stack[o.stack_pos] = Some(end);
        self.max_end = self.max_end.max(end);
        let dur = (end - s) as u64;
        if o.counts_time {
            if let Some(t) = totals.as_mut() {
                t.add_time(o.region, dur);
            }
        }
        self.fixups.push((o.index, dur));
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Nest a location's ENTER/LEAVE events (enter, region, time; times never going back) taking a prefix
    /// after every `every`-th ENTER, as the OTF2 reader and `weft index` do, and apply the fix-ups: equal to
    /// [`nest`] of the whole location's intervals (the reader's: ENTER order, durations set at LEAVE, a
    /// LEAVE closing the innermost open region whichever it names, unclosed ones ending at the last time).
    fn streamed_equals_whole(events: &[(bool, u32, i64)], every: usize) {
        let mut all: Vec<(RegionId, i64, u64)> = Vec::new();
        let mut stack: Vec<(u32, usize)> = Vec::new();
        let mut n = LocationNest::default();
        n.begin();
        let (mut totals, mut out, mut taken) = (None, Vec::new(), 0usize);
        let mut no_clip = |_, _, _| panic!("nothing clipped");
        let close = |all: &mut Vec<(RegionId, i64, u64)>, n: &mut LocationNest, slot: usize, t: i64, taken| {
            all[slot].2 = (t - all[slot].1) as u64;
            if slot < taken {
                assert!(n.closed(slot, all[slot].2, &mut None, &mut |_, _, _| panic!("nothing clipped")));
            }
        };
        for &(enter, r, t) in events {
            if enter {
                stack.push((r, all.len()));
                all.push((RegionId(r), t, 0));
                if all.len().is_multiple_of(every) {
                    let open: Vec<usize> = stack.iter().map(|e| e.1).filter(|&s| s >= taken).collect();
                    let p = all[taken..].partition_point(|x| x.1 < t);
                    let open: Vec<usize> = open.into_iter().filter(|&s| s < taken + p).collect();
                    n.prefix(&all[taken..taken + p], taken, &open, &mut totals, &mut no_clip);
                    out.append(&mut n.seg);
                    taken += p;
                }
            } else if let Some((_, slot)) = stack.pop() {
                close(&mut all, &mut n, slot, t, taken);
            }
        }
        let last = events.last().map_or(0, |e| e.2);
        for (_, slot) in stack.drain(..).rev() {
            close(&mut all, &mut n, slot, last, taken);
        }
        n.prefix(&all[taken..], taken, &[], &mut totals, &mut no_clip);
        out.append(&mut n.seg);
        for &(i, d) in &n.fixups {
            out[i as usize].2 = d;
        }
        let mut columns = NestedColumns::default();
        let end = nest(&all, &mut columns, &mut |_, _, _| panic!("nothing clipped"));
        let whole: Vec<Nested> = columns.iter().collect();
        assert_eq!(out, whole, "every {every}: {events:?}");
        if !whole.is_empty() {
            assert_eq!(n.max_end, end);
            assert_eq!(n.first_start, Some(whole[0].1));
        }
    }

    #[test]
    fn nesting_in_prefixes_equals_nesting_whole() {
        // main spans the run; zero-length intervals and siblings at one time; LEAVEs naming another region
        // than the innermost open one; regions left open at the end.
        let ev = [
            (true, 0, 0),
            (true, 1, 0),
            (false, 1, 0),
            (true, 2, 0),
            (true, 3, 5),
            (false, 3, 5),
            (true, 4, 5),
            (false, 2, 9),
            (true, 5, 9),
            (false, 5, 9),
            (true, 6, 9),
            (true, 7, 12),
            (false, 6, 15),
            (true, 8, 15),
            (true, 9, 15),
            (false, 9, 20),
            (true, 1, 20),
        ];
        for every in 1..6 {
            streamed_equals_whole(&ev, every);
        }
        // Pseudo-random nests with many equal times.
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        for _ in 0..200 {
            let mut ev = Vec::new();
            let (mut t, mut open) = (0i64, Vec::new());
            for _ in 0..60 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                t += (x % 3) as i64 / 2 * (x % 5) as i64;
                if open.is_empty() || x % 7 < 4 {
                    let r = (x >> 8) as u32 % 5;
                    open.push(r);
                    ev.push((true, r, t));
                } else {
                    // Any open region named (APEX names others): the innermost one closes.
                    let k = (x >> 16) as usize % open.len();
                    ev.push((false, open[k], t));
                    open.pop();
                }
            }
            for every in [1, 2, 3, 7] {
                streamed_equals_whole(&ev, every);
            }
        }
    }
}
