//! A location's level-1 summary bins computed from its intervals, busy spans, instants and message ends in one
//! pass (cost: records + bins), or from a chunk of them at a time ([`Level1Builder`]: a location tiled by time
//! range is read a range at a time), to the same bits. The bins, their columns and how coarser levels merge
//! are the store's (`weft_store::pyramid`).
//!
//! Must not encode tiles or know files.

use weft_analyses::busy::BusyInterval;
use weft_model::RegionId;
use weft_store::pyramid::{Bins, FULL_COVER, MAX_SUMMARY_LANES};

/// What level 1 is computed from, for one location (times in ns from the origin).
pub struct LocationInput<'a> {
    /// The intervals' columns (region, start, duration, depth) in the model's order (start, then depth): a
    /// slice of a block's, not copied.
    pub region: &'a [RegionId],
    pub start_ns: &'a [u64],
    pub dur_ns: &'a [u64],
    pub depth: &'a [u16],
    pub busy_compute: &'a [BusyInterval],
    pub busy_any: &'a [BusyInterval],
    pub instants: &'a [u64],
    /// (time, bytes) of each message end on this location (sends and receives).
    pub message_ends: &'a [(u64, u64)],
    /// The trace's last event end (the last bin ends there).
    pub span_ns: u64,
}

/// `n / d` for one divisor and many `n`: a float estimate corrected to the exact quotient (a 64-bit
/// division costs tens of cycles; level 1 divides two or three times per interval).
#[derive(Clone, Copy, Debug)]
pub struct Divisor {
    d: u64,
    inv: f64,
}

impl Divisor {
    pub fn new(d: u64) -> Divisor {
        let d = d.max(1);
        Divisor { d, inv: 1.0 / d as f64 }
    }

    /// `n / d`, exactly.
    #[inline]
    pub fn quotient(self, n: u64) -> u64 {
        let q = (n as f64 * self.inv) as u64;
        // Below 2^40 the estimate is off by at most one either way (53-bit mantissas); above, divide.
        if q >= 1 << 40 {
            return n / self.d;
        }
        let (n, d) = (n as u128, self.d as u128);
        let mut q = q as u128;
        while q * d > n {
            q -= 1;
        }
        while n - q * d >= d {
            q += 1;
        }
        q as u64
    }
}

/// The bin of a time among `bins` bins of `bin_ns` (times past the last bin in it), remembering the last
/// bin's span: times that come in order, or near it, are placed with two comparisons instead of a division
/// (level 1 places four or five times per interval).
#[derive(Clone, Copy)]
struct BinOf {
    by: Divisor,
    bin_ns: u64,
    bins: usize,
    /// The last bin placed, and its times `[lo, hi)` (empty before the first).
    k: usize,
    lo: u64,
    hi: u64,
}

impl BinOf {
    fn new(bin_ns: u64, bins: usize) -> BinOf {
        BinOf { by: Divisor::new(bin_ns), bin_ns, bins, k: 0, lo: 1, hi: 0 }
    }

    #[inline]
    fn of(&mut self, t: u64) -> usize {
        if self.lo <= t && t < self.hi {
            return self.k;
        }
        self.place(t)
    }

    /// Whether `[a, b)` (a non-empty span) lies in the bin placed last.
    #[inline]
    fn holds(&self, a: u64, b: u64) -> bool {
        self.lo <= a && b <= self.hi
    }

    /// A time outside the last bin placed: out of line, so the callers' loops stay small where `of` is
    /// inlined (level 1's inner loops ran short of registers with the division in them).
    #[inline(never)]
    fn place(&mut self, t: u64) -> usize {
        // Times come in order, mostly: the next bin without a division.
        let next = self.k + 1;
        let k = if self.lo <= self.hi && self.hi <= t && next < self.bins && t - self.hi < self.bin_ns {
            next
        } else {
            (self.by.quotient(t) as usize).min(self.bins - 1)
        };
        self.k = k;
        self.lo = k as u64 * self.bin_ns;
        self.hi = if k == self.bins - 1 { u64::MAX } else { (k as u64 + 1) * self.bin_ns };
        k
    }
}

/// Level 1 of one location: `bins` bins of `bin_ns`. Everything as one chunk through a [`Level1Builder`].
pub fn level1(input: &LocationInput, bin_ns: u64, bins: usize) -> Bins {
    let mut level1 = Level1Builder::new(bin_ns, bins);
    level1.busy_compute(input.busy_compute);
    level1.busy_any(input.busy_any);
    level1.instants(input.instants);
    level1.message_ends(input.message_ends);
    level1.intervals(input.region, input.start_ns, input.dur_ns, input.depth);
    level1.finish(input.span_ns)
}

/// Level 1 of one location (`bins` bins of `bin_ns`) built a chunk at a time: its intervals in the model's
/// order, each chunk after the one before (a location tiled by time range is read a range at a time); its
/// busy spans, instants and message ends in any chunks and any order (they add up). What is carried from
/// one chunk of intervals to the next: the intervals still open, where the exclusive time handed out ends
/// and the current bin's tally, and each lane's tally of its current bin. [`finish`](Self::finish) gives
/// what [`level1`] gives for the whole location, whatever the chunks.
pub struct Level1Builder {
    bin_ns: u64,
    /// The bins so far (the lanes' regions lane-major, for the lanes met so far: one per tally).
    out: Bins,
    /// Exclusive time per region: the innermost open interval owns the time.
    dominant: Dominant,
    /// The intervals still open as (region, end), innermost last.
    open: Vec<(u32, u64)>,
    /// Where the exclusive time handed out so far ends.
    cursor: u64,
    /// The bins of the intervals' starts and of their ends (each counts an event).
    at_start: BinOf,
    at_end: BinOf,
    /// Per lane met so far (the deepest depth + 1, at most [`MAX_SUMMARY_LANES`]; zero-duration intervals
    /// count, so a lane may have nothing to draw), its tally of its current bin.
    tallies: Vec<LaneTally>,
    /// Per lane of `tallies`, per bin (lane-major): the time the lane covers, and that of the region with the
    /// most time in it so far.
    covered: Vec<u64>,
    best: Vec<u64>,
}

impl Level1Builder {
    /// A location's level 1 in `bins` bins of `bin_ns` (the last reaching to the end of time), nothing in yet.
    pub fn new(bin_ns: u64, bins: usize) -> Self {
        Level1Builder {
            bin_ns,
            out: Bins::zeros(bins),
            dominant: Dominant {
                bin: BinOf::new(bin_ns, bins),
                bins,
                current: usize::MAX,
                tally: Vec::new(),
                touched: Vec::new(),
            },
            open: Vec::new(),
            cursor: 0,
            at_start: BinOf::new(bin_ns, bins),
            at_end: BinOf::new(bin_ns, bins),
            tallies: Vec::new(),
            covered: Vec::new(),
            best: Vec::new(),
        }
    }

    /// The next chunk of the location's intervals (columns in the model's order: start, then depth).
    pub fn intervals(&mut self, region: &[RegionId], start_ns: &[u64], dur_ns: &[u64], depth: &[u16]) {
        // Pieces of exclusive time come in time order, so each bin's per-region tally is finished when a
        // later bin starts.
        // The stack held in a local while the loop runs (moved out and back): the tallies' stores cannot
        // alias it, so its length stays in a register.
        let mut stack = std::mem::take(&mut self.open);
        let (out, dom) = (&mut self.out, &mut self.dominant);
        let mut cursor = self.cursor;
        let (mut at_start, mut at_end) = (self.at_start, self.at_end);
        for ((region, &start), &dur) in region.iter().zip(start_ns).zip(dur_ns) {
            let (region, end) = (region.0, start + dur);
            let k = at_start.of(start);
            out.events[k] += 1;
            // Most intervals end in the bin they start in; the others' ends (a parent's, far ahead) go
            // through a cache of their own, so the leaves' do not move it back and forth.
            out.events[if end < at_start.hi { k } else { at_end.of(end) }] += 1;
            while let Some(&(r, e)) = stack.last() {
                if e > start {
                    break;
                }
                dom.piece(out, r, cursor, e);
                cursor = cursor.max(e);
                stack.pop();
            }
            if let Some(&(r, _)) = stack.last() {
                dom.piece(out, r, cursor, start);
            }
            cursor = cursor.max(start);
            stack.push((region, end));
        }
        (self.cursor, self.at_start, self.at_end, self.open) = (cursor, at_start, at_end, stack);
        self.lane_intervals(region, start_ns, dur_ns, depth);
    }

    /// Each lane's region with the most time and its cover, per bin. A lane's intervals come in start order
    /// and, nested, do not overlap, so each lane's pieces arrive in time order and a bin's tally is finished
    /// when the lane moves past it; should a lane come back to a finished bin (intervals of one depth
    /// overlapping, which nesting rules out), the bin keeps the larger of its two winners.
    fn lane_intervals(&mut self, region: &[RegionId], start_ns: &[u64], dur_ns: &[u64], depth: &[u16]) {
        let deepest = depth.iter().map(|&d| d as usize + 1).max().unwrap_or(0).min(MAX_SUMMARY_LANES);
        if deepest > self.tallies.len() {
            self.add_lanes(deepest);
        }
        let (bins, lanes) = (self.out.len(), self.tallies.len());
        let (tallies, covered, best) = (&mut self.tallies, &mut self.covered, &mut self.best);
        let lane_region = &mut self.out.lane_region;
        for (((region, &start), &dur), &depth) in region.iter().zip(start_ns).zip(dur_ns).zip(depth) {
            let d = depth as usize;
            if d >= lanes || dur == 0 {
                continue;
            }
            let lane = &mut tallies[d];
            let (r, end) = (region.0 as usize, start + dur);
            // Most intervals lie in the bin the lane is tallying: one step.
            if lane.bin.holds(start, end) && lane.bin.k == lane.current && r < lane.tally.len() {
                let tally = &mut lane.tally[r];
                if *tally == 0 {
                    lane.touched.push(region.0);
                }
                *tally += dur;
                covered[d * bins + lane.current] += dur;
                continue;
            }
            lane.spans(
                region.0,
                start,
                end,
                &mut covered[d * bins..(d + 1) * bins],
                &mut lane_region[d * bins..(d + 1) * bins],
                &mut best[d * bins..(d + 1) * bins],
            );
        }
    }

    /// Tallies and per-bin columns for lanes up to `lanes` (lane-major, so a new lane's bins go after the
    /// others').
    fn add_lanes(&mut self, lanes: usize) {
        let bins = self.out.len();
        let bin = BinOf::new(self.bin_ns, bins);
        self.tallies.resize_with(lanes, || LaneTally {
            bin,
            current: usize::MAX,
            tally: Vec::new(),
            touched: Vec::new(),
        });
        self.covered.resize(lanes * bins, 0);
        self.best.resize(lanes * bins, 0);
        self.out.lane_region.resize(lanes * bins, 0);
    }

    /// Busy intervals of the `Compute` definition (any of the location's, in any order).
    pub fn busy_compute(&mut self, spans: &[BusyInterval]) {
        spread(spans, self.bin_ns, &mut self.out.busy_compute_ns);
    }

    /// Busy intervals of the `Any` definition (any of the location's, in any order).
    pub fn busy_any(&mut self, spans: &[BusyInterval]) {
        spread(spans, self.bin_ns, &mut self.out.busy_any_ns);
    }

    /// Times of instants of the location (each an event).
    pub fn instants(&mut self, time_ns: &[u64]) {
        let mut bin = BinOf::new(self.bin_ns, self.out.len());
        for &t in time_ns {
            self.out.events[bin.of(t)] += 1;
        }
    }

    /// (time, bytes) of message ends on the location (sends and receives).
    pub fn message_ends(&mut self, ends: &[(u64, u64)]) {
        let mut bin = BinOf::new(self.bin_ns, self.out.len());
        for &(t, bytes) in ends {
            let k = bin.of(t);
            self.out.messages[k] += 1;
            self.out.message_bytes[k] += bytes;
        }
    }

    /// The bins, once every chunk is in: the intervals still open hand out their time, and each lane's cover
    /// is its time over its bin's (the last bin ends at `span_ns`, the trace's last event end, as drawn).
    pub fn finish(mut self, span_ns: u64) -> Bins {
        let (out, dom) = (&mut self.out, &mut self.dominant);
        let mut cursor = self.cursor;
        while let Some((r, e)) = self.open.pop() {
            dom.piece(out, r, cursor, e);
            cursor = cursor.max(e);
        }
        dom.finish_bin(out);
        let (bins, bin_ns, lanes) = (out.len(), self.bin_ns, self.tallies.len());
        for (d, lane) in self.tallies.iter_mut().enumerate() {
            let at = d * bins;
            lane.finish(&mut out.lane_region[at..at + bins], &mut self.best[at..at + bins]);
        }
        out.lane_cover = vec![0; lanes * bins];
        out.lanes = lanes as u32;
        for (covered, cover) in self.covered.chunks_exact(bins).zip(out.lane_cover.chunks_exact_mut(bins)) {
            for (k, (&c, cover)) in covered.iter().zip(cover).enumerate() {
                let width = if k == bins - 1 { span_ns.saturating_sub(k as u64 * bin_ns).max(c) } else { bin_ns };
                *cover = if c == 0 {
                    0
                } else {
                    ((c as u128 * FULL_COVER as u128).div_ceil(width.max(1) as u128)).min(255) as u8
                };
            }
        }
        self.out
    }
}

/// Spread busy spans over the bins of `col` (of `bin_ns`; the last bin's reaches to the end of time).
fn spread(spans: &[BusyInterval], bin_ns: u64, col: &mut [u64]) {
    let bins = col.len();
    let mut bin = BinOf::new(bin_ns, bins);
    for s in spans {
        let mut t = s.start_ns;
        while t < s.end_ns {
            let k = bin.of(t);
            let end = if k == bins - 1 { s.end_ns } else { s.end_ns.min((k as u64 + 1) * bin_ns) };
            col[k] += end - t;
            t = end;
        }
    }
}

/// One lane's per-region tally of its current bin.
struct LaneTally {
    bin: BinOf,
    current: usize,
    tally: Vec<u64>,
    touched: Vec<u32>,
}

impl LaneTally {
    /// Region `region`'s interval `[start, end)` (not empty) into the lane's bins: a bin's tally finished
    /// when the lane moves past it (the bin's end from the bin placed, the last bin's reaching to the end
    /// of time). `covered`, `region_of` and `best` are the lane's columns.
    #[inline(never)]
    fn spans(
        &mut self,
        region: u32,
        start: u64,
        end: u64,
        covered: &mut [u64],
        region_of: &mut [u32],
        best: &mut [u64],
    ) {
        let r = region as usize;
        if r >= self.tally.len() {
            self.tally.resize(r + 1, 0);
        }
        let mut t = start;
        loop {
            let k = self.bin.of(t);
            let stop = end.min(self.bin.hi);
            if k != self.current {
                self.finish(region_of, best);
                self.current = k;
            }
            let tally = &mut self.tally[r];
            if *tally == 0 {
                self.touched.push(region);
            }
            *tally += stop - t;
            covered[k] += stop - t;
            if stop >= end {
                break;
            }
            t = stop;
        }
    }

    /// Close the current bin: its region with the most time (the lower index of equals) goes to `region`
    /// unless the bin already has a winner with more.
    fn finish(&mut self, region: &mut [u32], best: &mut [u64]) {
        if self.current < region.len() {
            let tally = &self.tally;
            if let Some(&r) =
                self.touched.iter().max_by(|&&a, &&b| tally[a as usize].cmp(&tally[b as usize]).then(b.cmp(&a)))
            {
                let ns = tally[r as usize];
                if ns > best[self.current] {
                    (best[self.current], region[self.current]) = (ns, r + 1);
                }
            }
        }
        for r in self.touched.drain(..) {
            self.tally[r as usize] = 0;
        }
    }
}

struct Dominant {
    bin: BinOf,
    bins: usize,
    current: usize,
    /// The current bin's exclusive time by region (indexed by region; 0 for a region not in the bin: a
    /// piece is never empty), and the regions in it.
    tally: Vec<u64>,
    touched: Vec<u32>,
}

impl Dominant {
    /// Region `region` owns `[a, b)`: its time goes to the bins the span covers. Called about twice per
    /// interval (many pieces are empty, most lie in the bin being tallied), so that case is one step inline
    /// (`#[inline]` alone left it a call) and the others go to [`pieces`](Self::pieces), out of line.
    #[inline(always)]
    fn piece(&mut self, out: &mut Bins, region: u32, a: u64, b: u64) {
        if a >= b {
            return;
        }
        let r = region as usize;
        // Most pieces lie in the bin being tallied.
        if self.bin.holds(a, b) && self.bin.k == self.current && r < self.tally.len() {
            let tally = &mut self.tally[r];
            if *tally == 0 {
                self.touched.push(region);
            }
            *tally += b - a;
            return;
        }
        self.pieces(out, region, a, b);
    }

    /// [`piece`](Self::piece) of a span in another bin than the one tallied, or in several.
    #[inline(never)]
    fn pieces(&mut self, out: &mut Bins, region: u32, a: u64, b: u64) {
        let r = region as usize;
        if r >= self.tally.len() {
            self.tally.resize(r + 1, 0);
        }
        let mut t = a;
        while t < b {
            let k = self.bin.of(t);
            // The bin's end (the last bin's reaches to the end of time).
            let end = b.min(self.bin.hi);
            if k != self.current {
                self.finish_bin(out);
                self.current = k;
            }
            if self.tally[r] == 0 {
                self.touched.push(region);
            }
            self.tally[r] += end - t;
            t = end;
        }
    }

    /// Once per bin a location's pieces reach: out of line, so `piece` stays small where it is inlined.
    #[inline(never)]
    fn finish_bin(&mut self, out: &mut Bins) {
        if self.current < self.bins {
            // Most time wins; on a tie, the lower region index (deterministic, whatever the order touched).
            let tally = &self.tally;
            if let Some(&r) =
                self.touched.iter().max_by(|&&a, &&b| tally[a as usize].cmp(&tally[b as usize]).then(b.cmp(&a)))
            {
                out.dominant_region[self.current] = r + 1;
                out.dominant_ns[self.current] = tally[r as usize];
            }
        }
        for r in self.touched.drain(..) {
            self.tally[r as usize] = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_divisor_is_exact() {
        let ds = [1u64, 2, 3, 7, 256, 1000, 999_999_937, 1 << 33, (1 << 40) + 1, u64::MAX / 3, u64::MAX];
        let ns = [0u64, 1, 2, 255, 256, 257, 1 << 20, 123_456_789_012, (1 << 53) + 1, 1 << 62, u64::MAX - 1, u64::MAX];
        for &d in &ds {
            let by = Divisor::new(d);
            for &n in &ns {
                for n in [n, n.saturating_add(d), n.saturating_sub(1), n.wrapping_mul(d)] {
                    assert_eq!(by.quotient(n), n / d, "{n} / {d}");
                }
            }
        }
        // Around every multiple of a few divisors.
        for d in [3u64, 1000, 1_048_577] {
            let by = Divisor::new(d);
            for q in 0..2000u64 {
                for n in [q * d, q * d + 1, (q * d).saturating_sub(1)] {
                    assert_eq!(by.quotient(n), n / d);
                }
            }
        }
    }

    #[test]
    fn the_bin_remembered_is_the_bin_divided_for() {
        // In order, out of order, at bin edges, past the last bin, at the end of time.
        for (bin_ns, bins) in [(1u64, 1usize), (7, 5), (1000, 256), (1 << 33, 3)] {
            let mut bin = BinOf::new(bin_ns, bins);
            let mut x = 0x9E37_79B9_7F4A_7C15u64;
            let mut ts: Vec<u64> = (0..2000u64).map(|i| i * bin_ns / 3).collect();
            for _ in 0..2000 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                ts.push(x % (bin_ns * (bins as u64 + 2)));
            }
            ts.extend([0, bin_ns - 1, bin_ns, bin_ns * bins as u64, u64::MAX, u64::MAX - 1, 0]);
            for t in ts {
                assert_eq!(bin.of(t), ((t / bin_ns) as usize).min(bins - 1), "{t} in bins of {bin_ns}");
            }
        }
    }

    #[test]
    fn exclusive_time_picks_the_innermost_region_and_levels_add_up() {
        // Region 0 over [0, 100), region 1 inside over [10, 90): bins of 50 -> region 1 dominates both.
        let busy = [BusyInterval { start_ns: 0, end_ns: 100 }];
        let input = LocationInput {
            region: &[RegionId(0), RegionId(1)],
            start_ns: &[0, 10],
            dur_ns: &[100, 80],
            depth: &[0, 1],
            busy_compute: &busy,
            busy_any: &busy,
            instants: &[99],
            message_ends: &[(5, 10), (60, 20)],
            span_ns: 100,
        };
        let b = level1(&input, 50, 2);
        assert_eq!(b.dominant_region, vec![2, 2]);
        assert_eq!(b.dominant_ns, vec![40, 40]);
        assert_eq!(b.busy_any_ns, vec![50, 50]);
        assert_eq!(b.events, vec![2, 3]);
        assert_eq!((b.messages.clone(), b.message_bytes.clone()), (vec![1, 1], vec![10, 20]));
        let c = b.coarser();
        assert_eq!(c.busy_any_ns, vec![100]);
        assert_eq!(c.events, vec![5]);
        assert_eq!(c.dominant_region, vec![2]);
        // Lane 0 is region 0 over both bins, lane 1 region 1 over 40 of each 50 ns.
        assert_eq!((b.lanes, b.lane(0, 0), b.lane(0, 1)), (2, (1, 255), (1, 255)));
        assert_eq!((b.lane(1, 0), b.lane(1, 1)), ((2, 204), (2, 204)));
        assert_eq!((c.lanes, c.lane(0, 0), c.lane(1, 0)), (2, (1, 255), (2, 204)));
    }

    #[test]
    fn level1_in_chunks_equals_level1_whole() {
        use weft_analyses::busy::{BusyDefinition, BusyScanner};
        use weft_samples::nesting::{chunkings, nesting_trace};
        use weft_samples::rng::XorShift;
        for seed in [1, 2, 3] {
            let t = nesting_trace(seed);
            let (iv, span) = (&t.intervals, t.span_ns);
            let mut scanner = BusyScanner::new(&t, &BusyDefinition::Compute);
            let mut rng = XorShift(seed);
            let mut lanes = Vec::new();
            for (l, r) in t.location_intervals.iter().enumerate() {
                let (mut compute, mut any) = (Vec::new(), Vec::new());
                let (region, start, dur) = (&iv.region[r.clone()], &iv.start_ns[r.clone()], &iv.dur_ns[r.clone()]);
                assert!(scanner.compute_and_any(region, start, dur, &mut compute, &mut any));
                let instants: Vec<u64> = (0..rng.below(30)).map(|_| rng.below(span + 20)).collect();
                let ends: Vec<(u64, u64)> =
                    (0..rng.below(30)).map(|_| (rng.below(span + 20), rng.below(1000))).collect();
                let input = LocationInput {
                    region,
                    start_ns: start,
                    dur_ns: dur,
                    depth: &iv.depth[r.clone()],
                    busy_compute: &compute,
                    busy_any: &any,
                    instants: &instants,
                    message_ends: &ends,
                    span_ns: span,
                };
                // One bin; a few, times past the last; about one per interval; many, of 1 ns.
                let shapes = [(span + 1, 1), (span / 5 + 1, 7), (span / 300 + 1, 256), (1, 5000)];
                for (bin_ns, bins) in shapes {
                    let whole = level1(&input, bin_ns, bins);
                    for cuts in chunkings(r.len(), seed) {
                        let mut level1 = Level1Builder::new(bin_ns, bins);
                        // The other records in pieces between the chunks, the busy spans last first.
                        let piece = |n: usize, k: usize| n * k / cuts.len().max(1)..n * (k + 1) / cuts.len().max(1);
                        for (k, c) in cuts.iter().enumerate() {
                            level1.intervals(
                                &region[c.clone()],
                                &start[c.clone()],
                                &dur[c.clone()],
                                &input.depth[c.clone()],
                            );
                            level1.instants(&instants[piece(instants.len(), k)]);
                            level1.message_ends(&ends[piece(ends.len(), k)]);
                            let back = cuts.len() - 1 - k;
                            level1.busy_compute(&compute[piece(compute.len(), back)]);
                            level1.busy_any(&any[piece(any.len(), back)]);
                        }
                        if cuts.is_empty() {
                            level1.instants(&instants);
                            level1.message_ends(&ends);
                            level1.busy_compute(&compute);
                            level1.busy_any(&any);
                        }
                        let n = cuts.iter().map(|c| c.len()).max();
                        assert_eq!(level1.finish(span), whole, "location {l}, {bins} bins, chunks of up to {n:?}");
                    }
                }
                lanes.push(level1(&input, span / 300 + 1, 256));
            }
            // The cases are there: lanes cut at the most kept, a lane with nothing to draw, no lanes.
            assert_eq!(lanes[4].lanes as usize, MAX_SUMMARY_LANES);
            assert_eq!(lanes[5].lanes, 3);
            assert!((0..256).all(|k| lanes[5].lane(2, k) == (0, 0)) && lanes[5].lane(1, 0).1 > 0);
            let nothing = |b: &Bins| b.dominant_ns.iter().all(|&ns| ns == 0) && b.lane_cover.iter().all(|&c| c == 0);
            assert!(lanes[6].lanes == 1 && nothing(&lanes[6]), "zero-duration intervals only");
            assert!(lanes[8].lanes == 0 && nothing(&lanes[8]), "no intervals");
        }
    }

    #[test]
    fn lanes_keep_each_depth_s_busiest_region_and_cover() {
        // Lane 0: region 0 over [0, 30), region 2 over [30, 100). Lane 1: region 1 in [5, 15), region 3 in
        // [40, 45). Lane 2: region 4 over [41, 42). Bins of 25.
        let input = LocationInput {
            region: &[RegionId(0), RegionId(1), RegionId(2), RegionId(3), RegionId(4)],
            start_ns: &[0, 5, 30, 40, 41],
            dur_ns: &[30, 10, 70, 5, 1],
            depth: &[0, 1, 0, 1, 2],
            busy_compute: &[],
            busy_any: &[],
            instants: &[],
            message_ends: &[],
            span_ns: 100,
        };
        let b = level1(&input, 25, 4);
        assert_eq!(b.lanes, 3);
        let lane = |d| (0..4).map(|k| b.lane(d, k)).collect::<Vec<_>>();
        assert_eq!(lane(0), vec![(1, 255), (3, 255), (3, 255), (3, 255)]);
        assert_eq!(lane(1), vec![(2, 102), (4, 51), (0, 0), (0, 0)]);
        assert_eq!(lane(2), vec![(0, 0), (5, 11), (0, 0), (0, 0)]);
        // Merged 4 to 1: mean cover (rounded up), the most covered child's region.
        let c = b.coarser();
        assert_eq!((c.lane(0, 0), c.lane(1, 0), c.lane(2, 0)), ((1, 255), (2, 39), (5, 3)));
        // Past MAX_SUMMARY_LANES lanes, deeper intervals are left to the exact view.
        let n = MAX_SUMMARY_LANES + 3;
        let region: Vec<RegionId> = (0..n).map(|_| RegionId(0)).collect();
        let start: Vec<u64> = (0..n as u64).collect();
        let dur: Vec<u64> = (0..n as u64).map(|i| 200 - 2 * i).collect();
        let depth: Vec<u16> = (0..n as u16).collect();
        let deep = LocationInput { region: &region, start_ns: &start, dur_ns: &dur, depth: &depth, ..input };
        assert_eq!(level1(&deep, 100, 2).lanes as usize, MAX_SUMMARY_LANES);
    }

    #[test]
    fn level1_is_what_counting_each_bin_by_hand_gives() {
        // An oracle apart from the builder's pieces, stack and caches: per bin, the events that fall in it,
        // each stretch of time given to the deepest interval covering it, and each depth's regions' time in
        // it, on the nesting cases (zero durations, touching and same-start intervals, times past the last
        // bin) with bins of several sizes.
        use weft_samples::nesting::nesting_trace;
        let most = |tally: &[u64]| {
            let best = tally.iter().copied().max().unwrap_or(0);
            match best {
                0 => (0, 0),
                _ => (tally.iter().position(|&t| t == best).expect("a most") as u32 + 1, best),
            }
        };
        for seed in [1, 2, 3] {
            let t = nesting_trace(seed);
            let (iv, span, regions) = (&t.intervals, t.span_ns, t.regions.len());
            for r in t.location_intervals.iter() {
                let (region, start, dur, depth) =
                    (&iv.region[r.clone()], &iv.start_ns[r.clone()], &iv.dur_ns[r.clone()], &iv.depth[r.clone()]);
                let input = LocationInput {
                    region,
                    start_ns: start,
                    dur_ns: dur,
                    depth,
                    busy_compute: &[],
                    busy_any: &[],
                    instants: &[],
                    message_ends: &[],
                    span_ns: span,
                };
                let lanes = depth.iter().map(|&d| d as usize + 1).max().unwrap_or(0).min(MAX_SUMMARY_LANES);
                let cuts: Vec<u64> = start.iter().zip(dur).flat_map(|(&s, &d)| [s, s + d]).collect();
                for (bin_ns, bins) in [(span / 5 + 1, 7), (span / 300 + 1, 256), (span / 2000 + 1, 2100)] {
                    let b = level1(&input, bin_ns, bins);
                    assert_eq!(b.lanes as usize, lanes);
                    let bin_of = |x: u64| ((x / bin_ns) as usize).min(bins - 1);
                    let mut events = vec![0u64; bins];
                    for (&s, &d) in start.iter().zip(dur) {
                        events[bin_of(s)] += 1;
                        events[bin_of(s + d)] += 1;
                    }
                    assert_eq!(b.events, events);
                    for k in 0..bins {
                        let lo = k as u64 * bin_ns;
                        let hi = if k == bins - 1 { u64::MAX } else { lo + bin_ns };
                        // Exclusive time: each stretch between two starts or ends to the deepest interval
                        // open over it.
                        let mut points: Vec<u64> =
                            cuts.iter().copied().chain([lo, hi]).filter(|&x| x >= lo && x <= hi).collect();
                        points.sort_unstable();
                        points.dedup();
                        let mut exclusive = vec![0u64; regions];
                        for w in points.windows(2) {
                            let innermost = (0..region.len())
                                .filter(|&i| start[i] <= w[0] && w[0] < start[i] + dur[i])
                                .max_by_key(|&i| depth[i]);
                            if let Some(i) = innermost {
                                exclusive[region[i].index()] += w[1] - w[0];
                            }
                        }
                        assert_eq!((b.dominant_region[k], b.dominant_ns[k]), most(&exclusive), "bin {k} of {bin_ns}");
                        // Each lane: its regions' time in the bin, the most's region and the cover.
                        for d in 0..lanes {
                            let mut time = vec![0u64; regions];
                            for i in (0..region.len()).filter(|&i| depth[i] as usize == d) {
                                let (a, z) = (start[i].max(lo), (start[i] + dur[i]).min(hi));
                                time[region[i].index()] += z.saturating_sub(a);
                            }
                            let covered: u64 = time.iter().sum();
                            let width = if k == bins - 1 { span.saturating_sub(lo).max(covered) } else { bin_ns };
                            let cover = match covered {
                                0 => 0,
                                c => ((c as u128 * FULL_COVER as u128).div_ceil(width.max(1) as u128)).min(255) as u8,
                            };
                            assert_eq!(b.lane(d, k), (most(&time).0, cover), "lane {d}, bin {k} of {bin_ns}");
                        }
                    }
                }
            }
        }
    }
}
