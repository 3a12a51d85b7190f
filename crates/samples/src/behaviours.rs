//! Locations of three known behaviours and planted outliers, for the clusters of ranks (issue #55) and
//! their benchmark. Every location runs `main` for 10 iterations of 100 us, spent as its behaviour says
//! (durations jittered by up to +-5 %): behaviour 0 computes (`solve` 80 %, `MPI_Allreduce` 20 %),
//! behaviour 1 writes (`solve` 40 %, `write` 50 %, `MPI_Allreduce` 10 %), behaviour 2 waits (`solve` 30 %,
//! `MPI_Waitall` 70 %); a planted outlier computes half and waits half (`solve` 50 %, `MPI_Waitall` 50 %).
//! Location l has behaviour l % 3 unless it is an outlier. Built through the TraceBuilder directly: it stands
//! for a trace already read.

use crate::rng::XorShift;
use weft_model::{Format, LocationKind, Trace, TraceBuilder};

/// The behaviour of location `l` (0, 1 or 2), or None for a planted outlier.
pub fn behaviour_of(l: usize, outliers: &[usize]) -> Option<usize> {
    (!outliers.contains(&l)).then_some(l % 3)
}

const ITERATIONS: usize = 10;
const PERIOD_NS: u64 = 100_000;

/// `locations` locations (4 to a process), those listed in `outliers` planted as outliers.
pub fn behaviours_trace(locations: usize, outliers: &[usize]) -> Trace {
    let mut rng = XorShift(0xC1u64 << 32 | 0x5EED);
    let mut b = TraceBuilder::new(Format::Generated);
    let main = b.region("main", "");
    let solve = b.region("solve", "");
    let write = b.region("write", "");
    let allreduce = b.region("MPI_Allreduce", "");
    let waitall = b.region("MPI_Waitall", "");
    let _ = b.reserve_intervals(locations * (1 + 3 * ITERATIONS));
    for l in 0..locations {
        let p = b.process((l / 4) as i64);
        b.set_process_name(p, &format!("rank {}", l / 4));
        let loc = b.location(p, (l % 4) as i64, LocationKind::CpuThread);
        b.set_location_name(loc, &format!("thread {}", l % 4));
        // Shares of a period, in percent.
        let phases: &[(_, u64)] = match behaviour_of(l, outliers) {
            Some(0) => &[(solve, 80), (allreduce, 20)],
            Some(1) => &[(solve, 40), (write, 50), (allreduce, 10)],
            Some(_) => &[(solve, 30), (waitall, 70)],
            None => &[(solve, 50), (waitall, 50)],
        };
        let mut t = 0i64;
        let mut ivs = Vec::with_capacity(3 * ITERATIONS);
        for _ in 0..ITERATIONS {
            for &(r, pct) in phases {
                let mean = PERIOD_NS * pct / 100;
                let d = mean - mean / 20 + rng.below(mean / 10 + 1);
                ivs.push((r, t, d));
                t += d as i64;
            }
        }
        b.interval(loc, main, 0, t as u64);
        for (r, s, d) in ivs {
            b.interval(loc, r, s, d);
        }
    }
    b.finish()
}
