//! Generated traces for the particle animation. [`patterns_json`] writes Chrome trace JSON (read by the real
//! reader) with the paper's known patterns at known times: a synchronized horizontal line, a linear delay
//! giving the logarithmic curve, and a group of 8 processes shifting right phase by phase (Fig. 6).
//! [`bench_trace`] builds a large workload through the TraceBuilder directly (it stands for a trace already
//! read). Deterministic; nothing copied from real traces.

use std::io::Write;
use weft_model::{Format, LocationKind, Trace, TraceBuilder};

/// Times of the pattern trace, in ns from its first event.
pub mod pattern {
    /// Every rank starts `MPI_Comm_split` at 0 and `MPI_Comm_dup` after it.
    pub const COMM_SPLIT_NS: u64 = 0;
    pub const COMM_SPLIT_DUR_NS: u64 = 50_000;
    pub const COMM_DUP_NS: u64 = 100_000;
    pub const COMM_DUP_DUR_NS: u64 = 30_000;
    /// Synchronized: every rank starts `MPI_Allreduce` at the same time, for the same duration.
    pub const SYNC_NS: u64 = 1_000_000;
    pub const SYNC_DUR_NS: u64 = 200_000;
    /// Linear delay: rank p starts `MPI_Recv` at `DELAY_NS + p * DELAY_STEP_NS`, all for `DELAY_DUR_NS`.
    pub const DELAY_NS: u64 = 2_000_000;
    pub const DELAY_STEP_NS: u64 = 10_000;
    pub const DELAY_DUR_NS: u64 = 500_000;
    /// Group phases: phase k starts at `GROUP_NS + k * PHASE_NS`; ranks 8k..8k+8 do short calls, the others
    /// wait in one long `MPI_Recv` from `WAIT_OFFSET_NS` into the phase for `WAIT_DUR_NS`.
    pub const GROUP_NS: u64 = 4_000_000;
    pub const PHASE_NS: u64 = 1_000_000;
    pub const WAIT_OFFSET_NS: u64 = 10_000;
    pub const WAIT_DUR_NS: u64 = 980_000;
    /// In each phase the working group repeats `BURSTS` times, every `BURST_NS`: `MPI_Bcast` for
    /// `BCAST_DUR_NS`, then `MPI_Isend` for `ISEND_DUR_NS`, then `MPI_Waitall` for `WAITALL_DUR_NS`.
    pub const BURSTS: u64 = 10;
    pub const BURST_NS: u64 = 90_000;
    pub const BURST_OFFSET_NS: u64 = 20_000;
    pub const BCAST_DUR_NS: u64 = 20_000;
    pub const ISEND_DUR_NS: u64 = 5_000;
    pub const WAITALL_DUR_NS: u64 = 15_000;
}

/// The pattern trace for `ranks` processes (a multiple of 8; others are rounded up) as Chrome JSON, with
/// `phases` group phases (at most ranks / 8).
pub fn patterns_json(ranks: u32, phases: u32) -> Vec<u8> {
    use pattern::*;
    let ranks = ranks.max(8).div_ceil(8) * 8;
    let phases = phases.min(ranks / 8);
    let mut out = Vec::new();
    out.extend_from_slice(b"{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
    let origin_ns: u64 = 1_000_000_000;
    let mut first = true;
    let mut x = |name: &str, rank: u32, start: u64, dur: u64| {
        let ts = origin_ns + start;
        let sep = if first { "" } else { ",\n" };
        first = false;
        // Timestamps in microseconds with three decimals: exact to the nanosecond.
        let _ = write!(
            out,
            "{sep}{{\"name\":\"{name}\",\"cat\":\"mpi\",\"ph\":\"X\",\"pid\":{rank},\"tid\":0,\"ts\":{}.{:03},\"dur\":{}.{:03}}}",
            ts / 1000,
            ts % 1000,
            dur / 1000,
            dur % 1000
        );
    };
    for r in 0..ranks {
        x("MPI_Comm_split", r, COMM_SPLIT_NS, COMM_SPLIT_DUR_NS);
        x("MPI_Comm_dup", r, COMM_DUP_NS, COMM_DUP_DUR_NS);
        x("MPI_Allreduce", r, SYNC_NS, SYNC_DUR_NS);
        x("MPI_Recv", r, DELAY_NS + r as u64 * DELAY_STEP_NS, DELAY_DUR_NS);
        for k in 0..phases {
            let s = GROUP_NS + k as u64 * PHASE_NS;
            if r / 8 == k {
                for b in 0..BURSTS {
                    let t = s + BURST_OFFSET_NS + b * BURST_NS;
                    x("MPI_Bcast", r, t, BCAST_DUR_NS);
                    x("MPI_Isend", r, t + BCAST_DUR_NS, ISEND_DUR_NS);
                    x("MPI_Waitall", r, t + BCAST_DUR_NS + ISEND_DUR_NS, WAITALL_DUR_NS);
                }
            } else {
                x("MPI_Recv", r, s + WAIT_OFFSET_NS, WAIT_DUR_NS);
            }
        }
    }
    out.extend_from_slice(b"\n]}\n");
    out
}

/// The built-in sample the page offers: 64 ranks, all 8 group phases.
pub fn builtin_json() -> Vec<u8> {
    patterns_json(64, 8)
}

/// A benchmark workload: `processes` ranks, each calling MPI back to back for `span_ns` (calls of 4 to 12 us,
/// gaps of 2 to 6 us, types cycling through a dozen calls), started with a per-rank skew.
pub fn bench_trace(processes: u32, span_ns: u64, seed: u64) -> Trace {
    let mut s = seed | 1;
    let mut below = |n: u64| {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s % n.max(1)
    };
    let mut b = TraceBuilder::new(Format::Generated);
    let calls = [
        "MPI_Send",
        "MPI_Isend",
        "MPI_Recv",
        "MPI_Irecv",
        "MPI_Wait",
        "MPI_Waitall",
        "MPI_Bcast",
        "MPI_Allreduce",
        "MPI_Reduce",
        "MPI_Allgather",
        "MPI_Barrier",
        "MPI_Comm_split",
    ];
    let regions: Vec<_> = calls.iter().map(|c| b.region(c, "mpi")).collect();
    let per = span_ns / 12_000 + 1;
    // A hint: were it refused, the pushes below would grow the columns as they go.
    let _ = b.reserve_intervals(processes as usize * per as usize);
    for p in 0..processes {
        let pid = b.process(p as i64);
        let loc = b.location(pid, 0, LocationKind::CpuThread);
        let mut t = below(10_000);
        let mut i = p as usize;
        while t < span_ns {
            let dur = 4_000 + below(8_000);
            b.interval(loc, regions[i % regions.len()], t as i64, dur);
            i += 1 + below(3) as usize;
            t += dur + 2_000 + below(4_000);
        }
    }
    b.finish()
}
