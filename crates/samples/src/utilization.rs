//! A generated utilization workload for the moments benchmark (native and wasm): every location runs `main`,
//! alternating `solve` phases and MPI calls whose lengths make the load imbalanced, at epoch-nanosecond times.
//! Built through the TraceBuilder directly: it stands for a trace already read, so no reader cost is timed.

use weft_model::{Format, LocationKind, Trace, TraceBuilder};

struct Rng(u64);
impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545F4914F6CDD1D) % n.max(1)
    }
}

/// Per location: one `main` spanning the run, 30 `solve` phases each followed by an MPI call whose length
/// makes up the imbalance, and (for the first few locations) a final `MPI_Barrier`, 1,000,000 in all.
pub fn utilization_trace(locations: i64, intervals: usize) -> Trace {
    let origin: i64 = 1_700_000_000_000_000_000;
    let mut rng = Rng(0x5EED);
    let mut b = TraceBuilder::new(Format::Generated);
    // A hint: were it refused, the pushes below would grow the columns as they go.
    let _ = b.reserve_intervals(intervals);
    let main = b.region("main", "");
    let solve = b.region("solve", "");
    let mpi = [b.region("MPI_Allreduce", ""), b.region("MPI_Waitall", ""), b.region("MPI_Send", "")];
    let barrier = b.region("MPI_Barrier", "");
    let per = 61usize;
    let extra = intervals.saturating_sub(per * locations as usize);
    for l in 0..locations {
        let p = b.process(l / 4);
        let loc = b.location(p, l % 4, LocationKind::CpuThread);
        let start = origin + rng.below(5_000) as i64;
        let mut t = start;
        let mut ivs = Vec::with_capacity(62);
        for phase in 0..30 {
            // Late ranks work longer in late phases: moments differ visibly across locations.
            let work = 20_000 + rng.below(40_000) + (l as u64 * phase as u64) % 30_000;
            let comm = 5_000 + rng.below(60_000);
            ivs.push((solve, t, work));
            ivs.push((mpi[phase % 3], t + work as i64, comm));
            t += (work + comm) as i64;
        }
        if (l as usize) < extra {
            ivs.push((barrier, t, 10_000));
            t += 10_000;
        }
        b.interval(loc, main, start, (t - start) as u64);
        for (r, s, d) in ivs {
            b.interval(loc, r, s, d);
        }
    }
    b.finish()
}
