//! The store's coarser levels: per location and time bin, what a zoomed-out view draws without the events.
//! Level 1 (the finest) is computed exactly from one location's intervals, busy spans, instants and message
//! ends in one pass (cost: records + bins); each coarser level merges 4 bins into 1. Sums (busy time, events,
//! messages, bytes) merge exactly; the dominant region of a merged bin is the children's dominant region with
//! the most time (exact at level 1, the children's best at coarser levels: docs/store-format.md).
//! Per lane (nesting depth, the timeline's lanes) of the first [`MAX_SUMMARY_LANES`], each bin also keeps the
//! region with the most time in that lane and how much of the bin the lane covers, so a zoomed-out row is
//! drawn lane by lane as the exact intervals are.
//!
//! Must not encode tiles or know files.

use crate::analyses::busy::BusyInterval;
use crate::model::RegionId;

/// The columns of a summary tile, in stored order.
pub const COLUMNS: [&str; 7] =
    ["busy_compute_ns", "busy_any_ns", "dominant_region", "dominant_ns", "events", "messages", "message_bytes"];

/// Lanes (depths) a summary keeps per location: deeper lanes are drawn from the exact intervals only.
pub const MAX_SUMMARY_LANES: usize = 64;

/// The most a lane's cover reads: the whole bin.
pub const FULL_COVER: u8 = 255;

/// One location's bins at one level.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Bins {
    pub busy_compute_ns: Vec<u64>,
    pub busy_any_ns: Vec<u64>,
    /// Region index + 1 of the region with the most exclusive time in the bin; 0 when no region covers it.
    pub dominant_region: Vec<u32>,
    pub dominant_ns: Vec<u64>,
    /// ENTER and LEAVE of intervals (each interval counts at its start and at its end) and instants.
    pub events: Vec<u64>,
    /// Messages sent or received by the location.
    pub messages: Vec<u64>,
    /// Bytes sent plus bytes received.
    pub message_bytes: Vec<u64>,
    /// Lanes summarised (the location's depths, at most [`MAX_SUMMARY_LANES`]; 0 in a store of format 2).
    pub lanes: u32,
    /// Per lane, per bin (lane-major: `lane * len + bin`): region index + 1 of the region with the most time
    /// in the lane, 0 where nothing is.
    pub lane_region: Vec<u32>,
    /// Per lane, per bin (lane-major): the share of the bin the lane covers, of [`FULL_COVER`], rounded up
    /// (any time at all is at least 1).
    pub lane_cover: Vec<u8>,
}

impl Bins {
    pub fn zeros(n: usize) -> Self {
        Bins {
            busy_compute_ns: vec![0; n],
            busy_any_ns: vec![0; n],
            dominant_region: vec![0; n],
            dominant_ns: vec![0; n],
            events: vec![0; n],
            messages: vec![0; n],
            message_bytes: vec![0; n],
            lanes: 0,
            lane_region: Vec::new(),
            lane_cover: Vec::new(),
        }
    }

    /// Give the bins `lanes` lanes (those already there keep their values, new ones are empty).
    pub fn set_lanes(&mut self, lanes: u32) {
        if lanes == self.lanes {
            return;
        }
        let n = self.len();
        let (mut region, mut cover) = (vec![0u32; lanes as usize * n], vec![0u8; lanes as usize * n]);
        for d in 0..self.lanes.min(lanes) as usize {
            region[d * n..(d + 1) * n].copy_from_slice(&self.lane_region[d * n..(d + 1) * n]);
            cover[d * n..(d + 1) * n].copy_from_slice(&self.lane_cover[d * n..(d + 1) * n]);
        }
        (self.lanes, self.lane_region, self.lane_cover) = (lanes, region, cover);
    }

    /// Lane `d`'s (region + 1, cover) at bin `i`; (0, 0) past the lanes summarised.
    pub fn lane(&self, d: usize, i: usize) -> (u32, u8) {
        if d >= self.lanes as usize {
            return (0, 0);
        }
        let j = d * self.len() + i;
        (self.lane_region[j], self.lane_cover[j])
    }

    pub fn len(&self) -> usize {
        self.events.len()
    }

    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// The next coarser level: bins merged 4 to 1.
    pub fn coarser(&self) -> Bins {
        let n = self.len().div_ceil(4);
        let mut out = Bins::zeros(n);
        for i in 0..self.len() {
            let j = i / 4;
            out.busy_compute_ns[j] += self.busy_compute_ns[i];
            out.busy_any_ns[j] += self.busy_any_ns[i];
            out.events[j] += self.events[i];
            out.messages[j] += self.messages[i];
            out.message_bytes[j] += self.message_bytes[i];
            if self.dominant_ns[i] > out.dominant_ns[j] {
                out.dominant_ns[j] = self.dominant_ns[i];
                out.dominant_region[j] = self.dominant_region[i];
            }
        }
        // Per lane: the cover is the children's mean (rounded up, so any time stays visible); the region is
        // the most covered child's (the first of equals).
        out.set_lanes(self.lanes);
        let len = self.len();
        for d in 0..self.lanes as usize {
            let (src, dst) = (d * len, d * n);
            for j in 0..n {
                let kids = j * 4..((j + 1) * 4).min(len);
                let count = kids.len() as u32;
                let (mut sum, mut best, mut region) = (0u32, 0u8, 0u32);
                for i in kids {
                    let c = self.lane_cover[src + i];
                    sum += c as u32;
                    if c > best {
                        (best, region) = (c, self.lane_region[src + i]);
                    }
                }
                out.lane_cover[dst + j] = sum.div_ceil(count) as u8;
                out.lane_region[dst + j] = region;
            }
        }
        out
    }

    /// The value of column `c` (see [`COLUMNS`]) at bin `i`.
    pub fn get(&self, c: usize, i: usize) -> u64 {
        match c {
            0 => self.busy_compute_ns[i],
            1 => self.busy_any_ns[i],
            2 => self.dominant_region[i] as u64,
            3 => self.dominant_ns[i],
            4 => self.events[i],
            5 => self.messages[i],
            _ => self.message_bytes[i],
        }
    }
}

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
        let k = (self.by.quotient(t) as usize).min(self.bins - 1);
        self.k = k;
        self.lo = k as u64 * self.bin_ns;
        self.hi = if k == self.bins - 1 { u64::MAX } else { (k as u64 + 1) * self.bin_ns };
        k
    }
}

/// Level 1 of one location: `bins` bins of `bin_ns`.
pub fn level1(input: &LocationInput, bin_ns: u64, bins: usize) -> Bins {
    let mut out = Bins::zeros(bins);
    let spread = |spans: &[BusyInterval], col: &mut Vec<u64>| {
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
    };
    spread(input.busy_compute, &mut out.busy_compute_ns);
    spread(input.busy_any, &mut out.busy_any_ns);
    let mut bin = BinOf::new(bin_ns, bins);
    for &t in input.instants {
        out.events[bin.of(t)] += 1;
    }
    for &(t, bytes) in input.message_ends {
        let k = bin.of(t);
        out.messages[k] += 1;
        out.message_bytes[k] += bytes;
    }
    // Exclusive time per region: the innermost open interval owns the time. Pieces come in time order, so
    // each bin's per-region tally is finished when a later bin starts.
    let mut dom =
        Dominant { bin: BinOf::new(bin_ns, bins), bins, current: usize::MAX, tally: Vec::new(), touched: Vec::new() };
    let mut stack: Vec<(u32, u64)> = Vec::new();
    let mut cursor = 0u64;
    let (mut at_start, mut at_end) = (BinOf::new(bin_ns, bins), BinOf::new(bin_ns, bins));
    for ((region, &start), &dur) in input.region.iter().zip(input.start_ns).zip(input.dur_ns) {
        let (region, end) = (region.0, start + dur);
        out.events[at_start.of(start)] += 1;
        out.events[at_end.of(end)] += 1;
        while let Some(&(r, e)) = stack.last() {
            if e > start {
                break;
            }
            dom.piece(&mut out, r, cursor, e);
            cursor = cursor.max(e);
            stack.pop();
        }
        if let Some(&(r, _)) = stack.last() {
            dom.piece(&mut out, r, cursor, start);
        }
        cursor = cursor.max(start);
        stack.push((region, end));
    }
    while let Some((r, e)) = stack.pop() {
        dom.piece(&mut out, r, cursor, e);
        cursor = cursor.max(e);
    }
    dom.finish_bin(&mut out);
    lanes(input, bin_ns, &mut out);
    out
}

/// Each lane's region with the most time and its cover, per bin of `out` (level 1). A lane's intervals
/// come in start order and, nested, do not overlap, so each lane's pieces arrive in time order and a bin's
/// tally is finished when the lane moves past it; should a lane come back to a finished bin (intervals of
/// one depth overlapping, which nesting rules out), the bin keeps the larger of its two winners.
fn lanes(input: &LocationInput, bin_ns: u64, out: &mut Bins) {
    let lanes = input.depth.iter().map(|&d| d as usize + 1).max().unwrap_or(0).min(MAX_SUMMARY_LANES);
    out.set_lanes(lanes as u32);
    if lanes == 0 {
        return;
    }
    let bins = out.len();
    let mut covered = vec![0u64; lanes * bins];
    let mut best = vec![0u64; lanes * bins];
    let mut tallies: Vec<LaneTally> = (0..lanes)
        .map(|_| LaneTally {
            bin: BinOf::new(bin_ns, bins),
            current: usize::MAX,
            tally: Vec::new(),
            touched: Vec::new(),
        })
        .collect();
    for (((region, &start), &dur), &depth) in input.region.iter().zip(input.start_ns).zip(input.dur_ns).zip(input.depth)
    {
        let d = depth as usize;
        if d >= lanes || dur == 0 {
            continue;
        }
        let lane = &mut tallies[d];
        let (end, at) = (start + dur, d * bins);
        let mut t = start;
        while t < end {
            let k = lane.bin.of(t);
            let stop = if k == bins - 1 { end } else { end.min((k as u64 + 1) * bin_ns) };
            if k != lane.current {
                lane.finish(&mut out.lane_region[at..at + bins], &mut best[at..at + bins]);
                lane.current = k;
            }
            let r = region.0 as usize;
            if r >= lane.tally.len() {
                lane.tally.resize(r + 1, 0);
            }
            if lane.tally[r] == 0 {
                lane.touched.push(region.0);
            }
            lane.tally[r] += stop - t;
            covered[at + k] += stop - t;
            t = stop;
        }
    }
    for (d, lane) in tallies.iter_mut().enumerate() {
        let at = d * bins;
        lane.finish(&mut out.lane_region[at..at + bins], &mut best[at..at + bins]);
    }
    for d in 0..lanes {
        for k in 0..bins {
            // The last bin ends at the span's end (as it is drawn).
            let c = covered[d * bins + k];
            let width = if k == bins - 1 { input.span_ns.saturating_sub(k as u64 * bin_ns).max(c) } else { bin_ns };
            out.lane_cover[d * bins + k] = if c == 0 {
                0
            } else {
                ((c as u128 * FULL_COVER as u128).div_ceil(width.max(1) as u128)).min(255) as u8
            };
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
    /// interval (most pieces lie in one bin, many are empty), so inline (`#[inline]` alone left it a call),
    /// with the bin's end taken from the bin placed rather than multiplied out.
    #[inline(always)]
    fn piece(&mut self, out: &mut Bins, region: u32, a: u64, b: u64) {
        if a >= b {
            return;
        }
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
}
