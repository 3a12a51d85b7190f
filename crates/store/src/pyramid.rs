//! The store's coarser levels: per location and time bin, what a zoomed-out view draws without the events.
//! Level 1 (the finest) is computed by the index (`weft_index::build::pyramid`); each coarser level merges 4 bins
//! into 1 ([`Bins::coarser`]). Sums (busy time, events,
//! messages, bytes) merge exactly; the dominant region of a merged bin is the children's dominant region with
//! the most time (exact at level 1, the children's best at coarser levels: docs/store-format.md).
//! Per lane (nesting depth, the timeline's lanes) of the first [`MAX_SUMMARY_LANES`], each bin also keeps the
//! region with the most time in that lane and how much of the bin the lane covers, so a zoomed-out row is
//! drawn lane by lane as the exact intervals are.
//!
//! Must not encode tiles or know files.

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
