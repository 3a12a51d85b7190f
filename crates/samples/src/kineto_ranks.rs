//! A deterministic generator of a distributed PyTorch run as Kineto writes it: one Chrome JSON file per rank,
//! each with `distributedInfo` (`rank`, `world_size`) and its own `baseTimeNanoseconds`, event times in
//! microseconds after that base, a host process and a GPU process, and NCCL all-reduce kernels on two
//! process groups whose order differs between ranks (so only matching per process group pairs them right).
//!
//! Every time is fixed by the parameters (see [`KinetoRanks`]), so tests know the merged trace exactly.
//! It must not read anything and must not depend on the reader.

/// Parameters. Times are nanoseconds on one absolute clock (the run's); each rank's file writes them
/// relative to its own base, `base_ns + rank * base_skew_ns`.
///
/// Per rank `r` and step `s`, with `T = start_ns + s * period_ns` and `late = late_ns` when `r == s % ranks`
/// (each step one rank is late), else 0:
/// - host (pid `1000 + r`, tid `1000 + r`, process "python3"): X `ProfilerStep#s` (user_annotation) over
///   [T, T + period - 1 us];
/// - GPU (pid `r`, process "GPU r"), stream 7 (tid 7): X `compute_kernel` (kernel) [T + 1 us, T + 1 us +
///   compute_ns + late], then the process group "0" all-reduce
///   `ncclDevKernel_AllReduce_Sum_f32_RING_LL(...)` (kernel, args `Process Group Name` "0" and `Process
///   Group Description` "default_pg") from `a = T + 2 us + compute_ns + late` to `e0 = T + 2 us + compute_ns
///   + late_ns + allreduce_ns` (NCCL ends together on every rank: the last to start sets the end);
/// - stream 9 (tid 9): the process group "1" all-reduce (`Process Group Name` "1"), on even ranks from
///   `e0 + 1 us` to `e0 + 1 us + allreduce_ns`, on odd ranks *before* group 0's: from `T + 1 us` to
///   `T + 1 us + allreduce_ns / 2` (both end together with the others only per group).
///
/// Without `ranks_in_files`, no `distributedInfo`; without `bases_in_files`, no `baseTimeNanoseconds` and
/// times are written absolute (microseconds on the run's clock).
#[derive(Clone, Debug)]
pub struct KinetoRanks {
    pub ranks: u32,
    pub steps: u32,
    pub start_ns: i64,
    pub period_ns: i64,
    pub compute_ns: i64,
    pub late_ns: i64,
    pub allreduce_ns: i64,
    pub base_ns: i64,
    pub base_skew_ns: i64,
    pub ranks_in_files: bool,
    pub bases_in_files: bool,
    /// Whether process group "1" (stream 9) is written.
    pub second_group: bool,
}

impl Default for KinetoRanks {
    fn default() -> Self {
        KinetoRanks {
            ranks: 4,
            steps: 3,
            start_ns: 1_700_000_000_123_456_789,
            period_ns: 1_000_000,
            compute_ns: 200_000,
            late_ns: 50_000,
            allreduce_ns: 100_000,
            base_ns: 1_700_000_000_000_000_000,
            base_skew_ns: 7_000_123,
            ranks_in_files: true,
            bases_in_files: true,
            second_group: true,
        }
    }
}

/// One kernel as the generator places it, on the run's clock.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Kernel {
    pub rank: u32,
    pub step: u32,
    /// 7 or 9.
    pub stream: u32,
    pub name: &'static str,
    /// The process group ("0", "1"), empty for compute.
    pub group: &'static str,
    pub start_ns: i64,
    pub end_ns: i64,
}

pub const ALLREDUCE: &str = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)";
pub const COMPUTE: &str = "compute_kernel";

impl KinetoRanks {
    /// The base of rank `r`'s file.
    pub fn base_of(&self, r: u32) -> i64 {
        self.base_ns + r as i64 * self.base_skew_ns
    }

    fn late(&self, r: u32, s: u32) -> i64 {
        if r == s % self.ranks {
            self.late_ns
        } else {
            0
        }
    }

    /// Every GPU kernel of the run, by rank, step, then stream order of writing.
    pub fn kernels(&self) -> Vec<Kernel> {
        let us = 1_000;
        let mut out = Vec::new();
        for r in 0..self.ranks {
            for s in 0..self.steps {
                let t = self.start_ns + s as i64 * self.period_ns;
                let late = self.late(r, s);
                let k = |stream, name, group, start_ns, end_ns| Kernel {
                    rank: r,
                    step: s,
                    stream,
                    name,
                    group,
                    start_ns,
                    end_ns,
                };
                out.push(k(7, COMPUTE, "", t + us, t + us + self.compute_ns + late));
                let a = t + 2 * us + self.compute_ns + late;
                let e0 = t + 2 * us + self.compute_ns + self.late_ns + self.allreduce_ns;
                out.push(k(7, ALLREDUCE, "0", a, e0));
                if !self.second_group {
                    continue;
                }
                if r % 2 == 0 {
                    out.push(k(9, ALLREDUCE, "1", e0 + us, e0 + us + self.allreduce_ns));
                } else {
                    out.push(k(9, ALLREDUCE, "1", t + us, t + us + self.allreduce_ns / 2));
                }
            }
        }
        out
    }

    /// Time `abs` (run clock, ns) as rank `r`'s file writes it: microseconds after its base, to the ns.
    fn ts(&self, r: u32, abs: i64) -> String {
        let rel = if self.bases_in_files { abs - self.base_of(r) } else { abs };
        micros(rel)
    }

    /// The file of rank `r`.
    pub fn file(&self, r: u32) -> Vec<u8> {
        let mut o = String::from("{\n  \"schemaVersion\": 1,\n");
        if self.ranks_in_files {
            o.push_str(&format!(
                "  \"distributedInfo\": {{\"backend\": \"nccl\", \"rank\": {r}, \"world_size\": {}}},\n",
                self.ranks
            ));
        }
        o.push_str("  \"traceEvents\": [\n");
        let host = 1000 + r;
        let mut ev: Vec<String> = vec![
            format!(r#"{{"ph": "M", "name": "process_name", "pid": {host}, "tid": 0, "args": {{"name": "python3"}}}}"#),
            format!(r#"{{"ph": "M", "name": "process_name", "pid": {r}, "tid": 0, "args": {{"name": "GPU {r}"}}}}"#),
            format!(r#"{{"ph": "M", "name": "thread_name", "pid": {r}, "tid": 7, "args": {{"name": "stream 7"}}}}"#),
        ];
        if self.second_group {
            ev.push(format!(
                r#"{{"ph": "M", "name": "thread_name", "pid": {r}, "tid": 9, "args": {{"name": "stream 9"}}}}"#
            ));
        }
        for s in 0..self.steps {
            let t = self.start_ns + s as i64 * self.period_ns;
            ev.push(format!(
                r#"{{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#{s}", "pid": {host}, "tid": {host}, "ts": {}, "dur": {}}}"#,
                self.ts(r, t),
                micros(self.period_ns - 1_000)
            ));
        }
        for k in self.kernels().into_iter().filter(|k| k.rank == r) {
            let group = match k.group {
                "" => String::new(),
                "0" => r#", "Process Group Name": "0", "Process Group Description": "default_pg""#.to_string(),
                g => format!(r#", "Process Group Name": "{g}", "Process Group Description": "undefined""#),
            };
            ev.push(format!(
                r#"{{"ph": "X", "cat": "kernel", "name": "{}", "pid": {r}, "tid": {}, "ts": {}, "dur": {}, "args": {{"device": {r}, "stream": {}{group}}}}}"#,
                k.name,
                k.stream,
                self.ts(r, k.start_ns),
                micros(k.end_ns - k.start_ns),
                k.stream
            ));
        }
        o.push_str(&ev.join(",\n"));
        o.push_str("\n  ]");
        if self.bases_in_files {
            o.push_str(&format!(",\n  \"baseTimeNanoseconds\": {}", self.base_of(r)));
        }
        o.push_str("\n}\n");
        o.into_bytes()
    }

    /// Every rank's file, named `rank-R.json` (zero-padded to sort in rank order).
    pub fn files(&self) -> Vec<(String, Vec<u8>)> {
        (0..self.ranks).map(|r| (format!("rank-{r:03}.pt.trace.json"), self.file(r))).collect()
    }
}

/// Nanoseconds as microseconds with three decimals (exact).
fn micros(ns: i64) -> String {
    let sign = if ns < 0 { "-" } else { "" };
    let a = ns.unsigned_abs();
    format!("{sign}{}.{:03}", a / 1000, a % 1000)
}
