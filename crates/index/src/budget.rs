//! The index's memory budget (issue #52): every share of `--memory` that a part of an index may hold, in
//! one place, each with the reason for its size. The index asks its [`Budget`]; nothing else divides
//! `--memory` (the CLI's spill files ask it too). The shares overlap in time only where their sum stays
//! within the whole: pass 1 holds the read's buffers, the records kept to be matched and the spill's
//! memory; pass 2 the block tasks, whose room is what is left of `--memory` after the definitions, the
//! communication held and the spill held (`stream`'s pass 2 plan).
//!
//! Beside the shares, the sizes they are counted in: bytes an interval takes in the columns, a raw interval,
//! what a block task holds ([`block_bytes`]). Plain arithmetic; must not decide anything but sizes (which
//! path a block takes is its caller's).

/// Bytes an interval takes in the index's interval columns (region 4, start 8, duration 8, depth 2: the
/// columns pass 1 keeps and pass 2 tiles, `held`, and a block's columns read back from the spill). The
/// only per-interval size the shares are counted in; a raw interval as the OTF2 reader buffers it
/// (region, start, duration) is [`RAW_INTERVAL_BYTES`], its in-memory size.
pub const INTERVAL_BYTES: u64 = 4 + 8 + 8 + 2;

/// Bytes of a raw interval the OTF2 read buffers (region, start, duration), as laid out in memory.
pub const RAW_INTERVAL_BYTES: u64 = std::mem::size_of::<(weft_model::RegionId, i64, u64)>() as u64;

/// `--memory`, and the share of it each part of an index may hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    memory: u64,
}

impl Budget {
    /// Of `--memory`, what a Chrome read may keep to its end outside the spill (instants, names, async
    /// events, flow ends), as the reader's `memory_needed` multiplier: a quarter (a location read back whole
    /// at the end takes three quarters, [`location_read_back`](Self::location_read_back), after these are
    /// made a trace).
    pub const CHROME_KEPT_SHARE: u64 = 4;

    pub fn new(memory: u64) -> Budget {
        Budget { memory }
    }

    /// The whole of `--memory`.
    pub fn memory(self) -> u64 {
        self.memory
    }

    /// Nested intervals pass 1 keeps as the columns pass 2 tiles (no spill round trip), and as much again of
    /// the blocks' messages and collective rows held as rows: an eighth each (as much as the CLI's spill
    /// keeps in memory before it writes a file).
    pub fn held(self) -> u64 {
        self.memory / 8
    }

    /// Matched messages sorted in memory before they go to the spill as a sorted run, and the pages the
    /// blocks' messages and particle runs are written and merged in: a sixteenth.
    pub fn runs(self) -> u64 {
        self.memory / 16
    }

    /// Records a chunked read (Chrome JSON, Paraver) buffers before spilling them: an eighth (the rest is for
    /// the definitions, the compact records kept to the end, and pass 2).
    pub fn chunked_buffer(self) -> u64 {
        self.memory / 8
    }

    /// Each of an OTF2 read's interval buffers (up to four: the reader's, one in flight to the digest's
    /// thread, the digest's, its nested segment): a sixty-fourth.
    pub fn otf2_buffer(self) -> u64 {
        self.memory / 64
    }

    /// One Chrome JSON or Paraver location read back whole at the end of the read: three quarters (the
    /// rest holds the definitions, the compact records kept to the end and the spill's buffers).
    pub fn location_read_back(self) -> u64 {
        self.memory / 4 * 3
    }

    /// The particles a block task buffers before writing them as a run: a sixty-fourth (small beside a
    /// task's share; large enough that the runs are few).
    pub fn particle_run(self) -> u64 {
        self.memory / 64
    }

    /// A shard's log broadcast at a time (`exchange`): a sixty-fourth, 64 KiB to 16 MiB.
    pub fn broadcast_chunk(self) -> usize {
        (self.memory / 64).clamp(64 << 10, 16 << 20) as usize
    }

    /// The spill file's bytes held in memory before it writes to disk (the CLI's `FileSpill`): an eighth.
    pub fn spill_in_memory(self) -> u64 {
        self.memory / 8
    }

    /// The message ends and collective parts an OTF2 index holds before it spills them in a sorted run (the
    /// CLI): a twelfth. A twelfth (a sixteenth before) keeps a 24 M-event trace's 3 M ends in memory at the
    /// default 2G: their spill, sort and k-way merge were 10 % of the index's CPU. The bound still holds:
    /// held with their vectors' growth (up to twice) and matching's share (twice again, `stream::check_pass1`)
    /// they are at most a third of `--memory`, beside the columns held and the spill in memory (an eighth
    /// each) and the read's buffers (a sixteenth), which leaves a third for instants, counters and names.
    pub fn ends_in_memory(self) -> u64 {
        self.memory / 12
    }

    /// What each of `--waits`' sorts (`crate::waits`: the questions, candidates, members, meetings, waits,
    /// ranges and their parts) holds before it writes a sorted run to the spill: a sixteenth. At most three
    /// fill at once, each beside the merge it reads (a page of each run, pages of a sixty-fourth of this
    /// share: as much again for up to 64 runs), and the spill keeps its eighth in memory: about half of
    /// `--memory` in all, the rest for one events tile decoded, the definitions and the blocks' lists.
    pub fn waits_sort(self) -> u64 {
        self.memory / 16
    }
}

/// Bytes a block task's tiling holds per interval besides its columns and its communication: the busy
/// spans (`BusyScanner`'s unions and the two lists), the windows' record lists and the compressed tiles
/// held until the task writes them. Measured with a counting allocator (BENCHMARKS.md, "Pass 2 by time
/// range"): 34–38 bytes an interval on generated traces where 38 % of the intervals are particles (12 of
/// those bytes), 7 on a location without any; so about 23 besides the particles. The particle-view
/// intervals are not held: they go to the spill as sorted runs as the task meets them (a buffer of a fixed
/// size a task: [`particle_run_bytes`]).
pub const TILING_BYTES_PER_INTERVAL: u64 = 24;

/// Bytes a block holds to its end per call-path figure (one path's sums in one window of one location,
/// `build::callpaths`): the figure itself (40) while the block's windows are read, then beside it the level-1
/// rows the block's call-path tiles are made from (40) and the coarser levels' rows (a third as many again).
pub const CALLPATH_FIGURE_BYTES: u64 = 40 + 40 + 14;

/// Bytes a location's call path takes until its block's tiles are made: its definition (8), its sums and
/// stamp in the window being filled (36), its last child and its entry in the children's map (about 24),
/// and its entry in the block's table and map (about 32).
pub const CALLPATH_BYTES: u64 = 8 + 36 + 24 + 32;

/// What a block holds to its end of call paths: `figures` per-window figures of `paths` paths (the call-path
/// tiles are made from every window's at the block's end, so a block tiled by time range holds them across
/// all its ranges).
pub fn callpath_bytes(figures: u64, paths: u64) -> u64 {
    figures * CALLPATH_FIGURE_BYTES + paths * CALLPATH_BYTES
}

/// Bytes of a particle-view interval in memory.
const PARTICLE_RECORD: u64 = std::mem::size_of::<weft_store::format::particles::Particle>() as u64;

/// Particles a block task buffers before writing them as a run: its [`Budget::particle_run`] of them, at
/// least a piece of them (`build::PARTICLE_PIECE`), at most 2^20 (32 MB).
pub fn particle_run_len(budget: Budget) -> usize {
    (budget.particle_run() / PARTICLE_RECORD).clamp(crate::build::PARTICLE_PIECE as u64, 1 << 20) as usize
}

/// What a block task's particle buffers hold: its run buffer of `run_len` and the piece `build` gathers.
pub fn particle_run_bytes(run_len: usize) -> u64 {
    (run_len + crate::build::PARTICLE_PIECE) as u64 * PARTICLE_RECORD
}

/// The most a block task holds: `intervals` of `locations`, their summary bins ([`SummaryBytes`]), its
/// communication and its particle buffers (`particle_runs` bytes, [`particle_run_bytes`]). Its columns
/// first, then its communication's file read whole into rows, then (the file dropped) the rows, the tiling's
/// lists, the bins and the particle buffers: the larger of the two.
pub fn block_bytes(
    intervals: u64,
    locations: u64,
    bins: SummaryBytes,
    comms: crate::comms::BlockCommBytes,
    particle_runs: u64,
) -> u64 {
    let tiling = intervals * TILING_BYTES_PER_INTERVAL + locations * bins.per_location + bins.making + particle_runs;
    intervals * INTERVAL_BYTES + comms.reading.max(comms.held + tiling)
}

/// What a block task holds of summary bins: each location's at every level (`pyramid::Bins`: the columns,
/// 52 bytes a bin, and each lane's region and cover, 5 bytes, for as many lanes as the deepest interval of
/// pass 1 needs), and level 1's lane tallies while one location's are made (16 bytes a lane and bin).
#[derive(Clone, Copy, Debug)]
pub struct SummaryBytes {
    pub per_location: u64,
    pub making: u64,
}

impl SummaryBytes {
    /// A location's summary bins under `plan`, its intervals nested at most `lanes` deep (a summary keeps a
    /// lane per depth, at most `pyramid::MAX_SUMMARY_LANES`).
    pub fn of(plan: &crate::build::Plan, lanes: usize) -> SummaryBytes {
        let lanes = lanes.clamp(1, weft_store::pyramid::MAX_SUMMARY_LANES) as u64;
        let bins: u64 = plan.levels.iter().map(|l| l.bins).sum();
        let first = plan.levels.first().map_or(0, |l| l.bins);
        SummaryBytes { per_location: bins * (52 + 5 * lanes), making: first * 16 * lanes }
    }
}

/// About the bytes the trace without intervals holds (messages, collectives, instants, definitions) and the
/// plan's copies of the message ends.
pub fn skel_bytes(t: &weft_model::Trace) -> u64 {
    let m = t.messages.len() as u64 * (60 + 2 * 16);
    let c = t.collectives.len() as u64 * 64;
    let i = t.instants.time_ns.len() as u64 * 16;
    let s = t.counters.sample_time_ns.len() as u64 * 20;
    let d = t.strings.iter().map(|s| s.len() as u64 + 32).sum::<u64>() + t.locations.len() as u64 * 64;
    m + c + i + s + d
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shares that are alive together in pass 1 (the OTF2 read's four buffers, the columns held, the
    /// runs, the spill and the ends in memory) stay under the whole.
    #[test]
    fn pass_one_shares_fit_the_whole() {
        for memory in [64u64 << 20, 2 << 30, 1 << 40] {
            let b = Budget::new(memory);
            let sum = 4 * b.otf2_buffer() + b.held() + b.runs() + b.spill_in_memory() + b.ends_in_memory();
            assert!(sum < memory, "{sum} of {memory}");
            assert!(b.location_read_back() + memory / Budget::CHROME_KEPT_SHARE <= memory);
        }
        assert_eq!(INTERVAL_BYTES, 22);
        assert_eq!(RAW_INTERVAL_BYTES, 24);
    }
}
