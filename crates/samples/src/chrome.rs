//! A deterministic generator of Chrome trace JSON that looks like an MPI + OpenMP program: one process
//! per rank ("Rank k"), a main thread doing compute, point-to-point messages (flows to the next rank) and
//! an allreduce that waits for the slowest rank, OpenMP worker threads with a loop and an implicit
//! barrier, counters, instants and overlapping async checkpoint writes.
//!
//! The structure is regular so tests can compute expected counts and times from the parameters alone
//! (see [`ChromeSample`]); `imbalance` and `late_rank` make it visually interesting without changing any
//! count. It writes bytes directly (no serde), fast enough to produce 100 MB in well under a second.
//! It must not read anything and must not depend on the reader.

/// Parameters of a generated trace. All durations are in nanoseconds.
///
/// Per rank `r` and iteration `i`, with `T = origin_ns + i * period_ns()` and compute time `c`:
/// - main thread (tid `100 r`): X `iteration` [T, T + period - 1 us], inside it X `compute_kernel`
///   from T + 1 us for c, B/E `MPI_Send` from T + 2 us + c for send_ns, X `MPI_Recv` from
///   T + 3 us + c + send_ns for recv_ns, X `MPI_Allreduce` from T + 4 us + c + send_ns + recv_ns to
///   T + period - 2 us; an instant `iteration_start` at T; counters `memory` {rss_mb} and `network`
///   {sent_bytes, recv_bytes} at T (pid `r`, tid `100 r`).
/// - each worker thread (tid `100 r + t`, t >= 1): X `!$omp parallel` from T + 1 us for c, holding
///   X `omp_for_loop` from T + 1 us for c - barrier_ns and X `!$omp implicit barrier` (the rest).
/// - a flow `msg` (s at the send's start, f at the next rank's receive start, `bp: e`; when the sender
///   is the later one, f when its send ends, so no message arrives before it is sent).
/// - every 8th iteration, two overlapping async slices `write_checkpoint` (b/e): [T + 1 us,
///   T + 1 us + 3 period / 2] and [T + 2 us, T + 2 us + period - 4 us], so each rank has two async tracks.
#[derive(Clone, Debug)]
pub struct ChromeSample {
    pub ranks: u32,
    pub threads_per_rank: u32,
    /// Iterations to write; generation also stops once `max_bytes` is reached (0: no byte limit).
    pub iterations: u32,
    pub max_bytes: usize,
    pub compute_ns: i64,
    pub send_ns: i64,
    pub recv_ns: i64,
    pub allreduce_min_ns: i64,
    pub barrier_ns: i64,
    /// Relative spread of compute times, 0 for none: c = compute_ns * (1 + imbalance * u), u in [0, 1).
    pub imbalance: f64,
    /// A rank whose compute is `late_factor` times slower (None for none).
    pub late_rank: Option<u32>,
    pub late_factor: f64,
    pub origin_ns: i64,
    pub seed: u64,
    /// `{"traceEvents": [...]}` instead of a bare array.
    pub object_form: bool,
}

impl Default for ChromeSample {
    fn default() -> Self {
        ChromeSample {
            ranks: 4,
            threads_per_rank: 2,
            iterations: 10,
            max_bytes: 0,
            compute_ns: 2_000_250,
            send_ns: 40_125,
            recv_ns: 35_500,
            allreduce_min_ns: 20_000,
            barrier_ns: 150_750,
            imbalance: 0.0,
            late_rank: None,
            late_factor: 1.0,
            origin_ns: 1_000_000_000,
            seed: 1,
            object_form: false,
        }
    }
}

/// Every 8th iteration writes the async checkpoint pair.
pub const CHECKPOINT_EVERY: u32 = 8;
const US: i64 = 1000;

impl ChromeSample {
    /// The sample the page opens with: 8 ranks x 2 threads, a few thousand intervals, visible load
    /// imbalance and one late rank.
    pub fn builtin() -> Self {
        ChromeSample {
            ranks: 8,
            threads_per_rank: 2,
            iterations: 40,
            imbalance: 0.35,
            late_rank: Some(5),
            late_factor: 1.6,
            seed: 42,
            object_form: true,
            ..Default::default()
        }
    }

    /// A large trace for benchmarks: 16 ranks x 4 threads, iterations until `bytes` are written.
    pub fn sized(bytes: usize, seed: u64) -> Self {
        ChromeSample {
            ranks: 16,
            threads_per_rank: 4,
            iterations: u32::MAX,
            max_bytes: bytes,
            imbalance: 0.25,
            late_rank: Some(3),
            late_factor: 1.3,
            seed,
            ..Default::default()
        }
    }

    /// The longest compute time any rank can have.
    pub fn max_compute_ns(&self) -> i64 {
        let late = if self.late_rank.is_some() { self.late_factor.max(1.0) } else { 1.0 };
        (self.compute_ns as f64 * (1.0 + self.imbalance.max(0.0)) * late).ceil() as i64
    }

    /// One iteration's length: room for the slowest compute, the messages and the shortest allreduce.
    pub fn period_ns(&self) -> i64 {
        self.max_compute_ns() + self.send_ns + self.recv_ns + self.allreduce_min_ns + 6 * US
    }

    /// Compute time of rank `r` in iteration `i`.
    pub fn compute_of(&self, r: u32, i: u32) -> i64 {
        let mut c = self.compute_ns as f64;
        if self.imbalance > 0.0 {
            c *= 1.0 + self.imbalance * unit(self.seed, r, i);
        }
        if self.late_rank == Some(r) {
            c *= self.late_factor.max(1.0);
        }
        (c as i64).max(self.barrier_ns + US)
    }

    /// Generate the trace's bytes.
    pub fn generate(&self) -> Vec<u8> {
        let mut w = Writer { out: Vec::with_capacity(self.max_bytes.min(1 << 30) + 4096) };
        w.raw(if self.object_form { b"{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n" } else { b"[\n" });
        let ranks = self.ranks.max(1);
        let threads = self.threads_per_rank.max(1);
        for r in 0..ranks {
            w.meta_name(b"process_name", r, 100 * r, b"Rank ", r);
            w.meta_sort(b"process_sort_index", r, 100 * r, r);
            for t in 0..threads {
                if t == 0 {
                    w.meta_name(b"thread_name", r, 100 * r, b"main", u32::MAX);
                } else {
                    w.meta_name(b"thread_name", r, 100 * r + t, b"omp worker ", t);
                }
            }
        }
        let period = self.period_ns();
        let mut sends: Vec<(u32, i64)> = Vec::with_capacity(ranks as usize);
        let mut i = 0u32;
        while i < self.iterations && (self.max_bytes == 0 || w.out.len() < self.max_bytes) {
            let t0 = self.origin_ns + i as i64 * period;
            sends.clear();
            for r in 0..ranks {
                let c = self.compute_of(r, i);
                let tid = 100 * r;
                w.x(b"iteration", b"user", r, tid, t0, period - US);
                w.instant(b"iteration_start", r, tid, t0);
                w.x(b"compute_kernel", b"user", r, tid, t0 + US, c);
                let send = t0 + 2 * US + c;
                w.be(b'B', b"MPI_Send", r, tid, send);
                w.be(b'E', b"MPI_Send", r, tid, send + self.send_ns);
                let recv = send + self.send_ns + US;
                w.x(b"MPI_Recv", b"mpi", r, tid, recv, self.recv_ns);
                let ar = recv + self.recv_ns + US;
                w.x(b"MPI_Allreduce", b"mpi", r, tid, ar, t0 + period - 2 * US - ar);
                sends.push((r, send));
                let h = mix(self.seed, r, i);
                w.counter1(b"memory", b"rss_mb", r, t0, 512 + (h % 64) as i64);
                w.counter2(b"network", r, t0, ((i as i64 + 1) * 4096) + (h >> 20) as i64 % 1000, (i as i64 + 1) * 4000);
                for t in 1..threads {
                    let tid = 100 * r + t;
                    w.x(b"!$omp parallel", b"openmp", r, tid, t0 + US, c);
                    w.x(b"omp_for_loop", b"openmp", r, tid, t0 + US, c - self.barrier_ns);
                    w.x(b"!$omp implicit barrier", b"openmp", r, tid, t0 + US + c - self.barrier_ns, self.barrier_ns);
                }
                if i.is_multiple_of(CHECKPOINT_EVERY) {
                    let id = (r as u64) << 32 | i as u64;
                    w.async_be(b'b', r, tid, t0 + US, 2 * id);
                    w.async_be(b'b', r, tid, t0 + 2 * US, 2 * id + 1);
                    w.async_be(b'e', r, tid, t0 + 2 * US + period - 4 * US, 2 * id + 1);
                    w.async_be(b'e', r, tid, t0 + US + 3 * period / 2, 2 * id);
                }
            }
            // Flow starts first, then their ends, so every flow's start precedes its end in the file.
            let id0 = i as u64 * ranks as u64;
            for &(r, send) in &sends {
                w.flow(b's', r, 100 * r, send, id0 + r as u64);
            }
            for &(r, send) in &sends {
                let to = (r + 1) % ranks;
                // Received when the receive starts, or when the send is over if the sender is later.
                let recv_at = (sends[to as usize].1 + self.send_ns + US).max(send + self.send_ns);
                w.flow(b'f', to, 100 * to, recv_at, id0 + r as u64);
            }
            i += 1;
        }
        // Drop the separator after the last event.
        if w.out.ends_with(b",\n") {
            w.out.truncate(w.out.len() - 2);
            w.out.push(b'\n');
        }
        w.raw(if self.object_form { b"]}\n" } else { b"]\n" });
        w.out
    }
}

/// A trace shaped like PyTorch/Kineto's GPU traces: a CPU process whose main thread runs operators
/// (`cpu_op`), some launching a kernel through `cudaLaunchKernel` (`cuda_runtime`), the kernels on a GPU
/// process's stream threads (`kernel`), and one `ac2g` flow per launch (v1, `s` on the launch, `f` with
/// `bp: "e"` on the kernel, ids unique per pair). As Kineto does, each block's `f` events are written
/// before their `s` events: the GPU side of a block of 64 launches comes first, then its CPU side.
///
/// Per launch `k` (CPU time `t` advancing): 12 short CPU-only X operators, then a 4-deep nest of
/// operators (`aten::conv2d` > `aten::convolution` > `aten::_convolution` > `aten::cudnn_convolution`)
/// holding the `cudaLaunchKernel` X, the kernel X on stream `7 + k % streams`, and the flow pair: 20
/// events of which 2 (10 %) are flow events. Every kernel starts after its launch begins; each `s`
/// lies inside its launch slice and each `f` at its kernel's start. Processes and streams are named by
/// metadata events.
#[derive(Clone, Debug)]
pub struct KinetoSample {
    /// Launches to write; generation also stops once `max_bytes` is reached (0: no byte limit).
    pub launches: u32,
    pub max_bytes: usize,
    /// GPU stream threads the kernels go round.
    pub streams: u32,
    pub origin_ns: i64,
    pub seed: u64,
}

/// The CPU process and thread of a [`KinetoSample`]; the GPU process is pid 0.
pub const KINETO_CPU_PID: u32 = 4242;
/// Events written per launch, and flow events among them.
pub const KINETO_EVENTS_PER_LAUNCH: usize = 20;

impl Default for KinetoSample {
    fn default() -> Self {
        KinetoSample { launches: 200, max_bytes: 0, streams: 2, origin_ns: 1_694_039_994_071_305_000, seed: 3 }
    }
}

impl KinetoSample {
    /// A large trace for benchmarks: launches until `bytes` are written.
    pub fn sized(bytes: usize, seed: u64) -> Self {
        KinetoSample { launches: u32::MAX, max_bytes: bytes, seed, ..Default::default() }
    }

    /// Generate the trace's bytes (the object form Kineto writes).
    pub fn generate(&self) -> Vec<u8> {
        const BLOCK: u32 = 64;
        const SMALL: [&[u8]; 6] =
            [b"aten::empty", b"aten::view", b"aten::as_strided", b"aten::add_", b"aten::relu_", b"aten::t"];
        const NEST: [&[u8]; 4] =
            [b"aten::conv2d", b"aten::convolution", b"aten::_convolution", b"aten::cudnn_convolution"];
        const KERNELS: [&[u8]; 3] = [
            b"void cudnn::winograd_nonfused::winogradForwardData4x4<float, float>(cudnn::winograd_nonfused::WinogradDataParams<float, float>)",
            b"volta_sgemm_128x64_nn",
            b"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>",
        ];
        let (pid, tid) = (KINETO_CPU_PID, KINETO_CPU_PID);
        let streams = self.streams.max(1);
        let mut w = Writer { out: Vec::with_capacity(self.max_bytes.min(1 << 30) + 4096) };
        w.raw(b"{\"schemaVersion\":1,\"traceEvents\":[\n");
        w.meta_name(b"process_name", pid, tid, b"python", u32::MAX);
        w.meta_name(b"thread_name", pid, tid, b"thread ", tid);
        w.meta_name(b"process_name", 0, 0, b"GPU 0", u32::MAX);
        for s in 0..streams {
            w.meta_name(b"thread_name", 0, 7 + s, b"stream ", 7 + s);
        }
        let mut t = self.origin_ns;
        let mut gpu_free = vec![self.origin_ns; streams as usize];
        // (stream, kernel start, kernel dur, kernel name) and the CPU side's (launch start) per launch.
        let mut block: Vec<(u32, i64, i64, usize, i64)> = Vec::with_capacity(BLOCK as usize);
        let mut cpu = Writer { out: Vec::new() };
        let mut k = 0u32;
        while k < self.launches && (self.max_bytes == 0 || w.out.len() < self.max_bytes) {
            block.clear();
            cpu.out.clear();
            let first = k;
            while k < self.launches && k - first < BLOCK {
                let h = mix(self.seed, k, 1);
                for j in 0..12u32 {
                    let d = 2 * US + (mix(self.seed, k, 10 + j) % 8000) as i64;
                    cpu.x(SMALL[(j as usize + k as usize) % SMALL.len()], b"cpu_op", pid, tid, t, d);
                    t += d + 500;
                }
                // The nest: each level 1 us inside its parent at both ends; the launch in the innermost.
                let launch_dur = 4 * US + (h % 3000) as i64;
                let outer = launch_dur + 2 * US * (NEST.len() as i64 + 1);
                for (level, name) in NEST.iter().enumerate() {
                    let inset = level as i64 * US;
                    cpu.x(name, b"cpu_op", pid, tid, t + inset, outer - 2 * inset);
                }
                let launch = t + NEST.len() as i64 * US;
                cpu.x(b"cudaLaunchKernel", b"cuda_runtime", pid, tid, launch, launch_dur);
                cpu.kineto_flow(b's', pid, tid, launch, k as u64 + 1);
                let stream = k % streams;
                let start = gpu_free[stream as usize].max(launch + 3 * US + (h >> 20) as i64 % (5 * US));
                let dur = 10 * US + (h >> 32) as i64 % (200 * US);
                gpu_free[stream as usize] = start + dur + US;
                block.push((stream, start, dur, (h >> 40) as usize % KERNELS.len(), launch));
                t += outer + US;
                k += 1;
            }
            // The GPU side first, as Kineto writes it: each kernel, then its flow's end.
            for (i, &(stream, start, dur, name, _)) in block.iter().enumerate() {
                w.x(KERNELS[name], b"kernel", 0, 7 + stream, start, dur);
                w.kineto_flow(b'f', 0, 7 + stream, start, (first + i as u32) as u64 + 1);
            }
            w.raw(&cpu.out);
        }
        if w.out.ends_with(b",\n") {
            w.out.truncate(w.out.len() - 2);
            w.out.push(b'\n');
        }
        w.raw(b"]}\n");
        w.out
    }
}

/// A uniform number in [0, 1) from (seed, rank, iteration).
fn unit(seed: u64, r: u32, i: u32) -> f64 {
    (mix(seed, r, i) >> 11) as f64 / (1u64 << 53) as f64
}

/// xorshift64* over the seed and coordinates: deterministic, cheap, good enough for jitter.
fn mix(seed: u64, r: u32, i: u32) -> u64 {
    let mut x = seed ^ 0x9E37_79B9_7F4A_7C15 ^ ((r as u64) << 32 | i as u64).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = x.max(1);
    for _ in 0..3 {
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
    }
    x.wrapping_mul(0x2545_F491_4F6C_DD1D)
}

struct Writer {
    out: Vec<u8>,
}

impl Writer {
    #[inline]
    fn raw(&mut self, b: &[u8]) {
        self.out.extend_from_slice(b);
    }

    #[inline]
    fn int(&mut self, v: i64) {
        let mut buf = [0u8; 20];
        let mut n = v.unsigned_abs();
        let mut i = buf.len();
        loop {
            i -= 1;
            buf[i] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        if v < 0 {
            self.out.push(b'-');
        }
        self.out.extend_from_slice(&buf[i..]);
    }

    /// Nanoseconds written as microseconds with up to three decimals.
    #[inline]
    fn us(&mut self, ns: i64) {
        self.int(ns / 1000);
        let frac = ns % 1000;
        if frac != 0 {
            let d = [b'.', b'0' + (frac / 100) as u8, b'0' + (frac / 10 % 10) as u8, b'0' + (frac % 10) as u8];
            self.out.extend_from_slice(&d);
        }
    }

    #[inline]
    fn head(&mut self, ph: u8, name: &[u8], cat: &[u8], pid: u32, tid: u32) {
        self.raw(b"{\"ph\":\"");
        self.out.push(ph);
        self.raw(b"\",\"name\":\"");
        self.raw(name);
        if !cat.is_empty() {
            self.raw(b"\",\"cat\":\"");
            self.raw(cat);
        }
        self.raw(b"\",\"pid\":");
        self.int(pid as i64);
        self.raw(b",\"tid\":");
        self.int(tid as i64);
    }

    fn x(&mut self, name: &[u8], cat: &[u8], pid: u32, tid: u32, ts: i64, dur: i64) {
        self.head(b'X', name, cat, pid, tid);
        self.raw(b",\"ts\":");
        self.us(ts);
        self.raw(b",\"dur\":");
        self.us(dur);
        self.raw(b"},\n");
    }

    fn be(&mut self, ph: u8, name: &[u8], pid: u32, tid: u32, ts: i64) {
        self.head(ph, name, b"mpi", pid, tid);
        self.raw(b",\"ts\":");
        self.us(ts);
        self.raw(b"},\n");
    }

    fn instant(&mut self, name: &[u8], pid: u32, tid: u32, ts: i64) {
        self.head(b'i', name, b"user", pid, tid);
        self.raw(b",\"s\":\"t\",\"ts\":");
        self.us(ts);
        self.raw(b"},\n");
    }

    fn counter1(&mut self, name: &[u8], arg: &[u8], pid: u32, ts: i64, v: i64) {
        self.head(b'C', name, b"", pid, 100 * pid);
        self.raw(b",\"ts\":");
        self.us(ts);
        self.raw(b",\"args\":{\"");
        self.raw(arg);
        self.raw(b"\":");
        self.int(v);
        self.raw(b"}},\n");
    }

    fn counter2(&mut self, name: &[u8], pid: u32, ts: i64, sent: i64, recv: i64) {
        self.head(b'C', name, b"", pid, 100 * pid);
        self.raw(b",\"ts\":");
        self.us(ts);
        self.raw(b",\"args\":{\"sent_bytes\":");
        self.int(sent);
        self.raw(b",\"recv_bytes\":");
        self.int(recv);
        self.raw(b"}},\n");
    }

    fn flow(&mut self, ph: u8, pid: u32, tid: u32, ts: i64, id: u64) {
        self.head(ph, b"msg", b"mpi", pid, tid);
        self.raw(b",\"ts\":");
        self.us(ts);
        self.raw(b",\"id\":");
        self.int(id as i64);
        if ph == b'f' {
            self.raw(b",\"bp\":\"e\"");
        }
        self.raw(b"},\n");
    }

    /// A Kineto launch flow event: `ac2g`, `bp: "e"` on the end.
    fn kineto_flow(&mut self, ph: u8, pid: u32, tid: u32, ts: i64, id: u64) {
        self.raw(b"{\"ph\":\"");
        self.out.push(ph);
        self.raw(b"\",\"id\":");
        self.int(id as i64);
        self.raw(b",\"pid\":");
        self.int(pid as i64);
        self.raw(b",\"tid\":");
        self.int(tid as i64);
        self.raw(b",\"ts\":");
        self.us(ts);
        self.raw(b",\"cat\":\"ac2g\",\"name\":\"ac2g\"");
        if ph == b'f' {
            self.raw(b",\"bp\":\"e\"");
        }
        self.raw(b"},\n");
    }

    fn async_be(&mut self, ph: u8, pid: u32, tid: u32, ts: i64, id: u64) {
        self.head(ph, b"write_checkpoint", b"io", pid, tid);
        self.raw(b",\"ts\":");
        self.us(ts);
        self.raw(b",\"id\":\"0x");
        self.raw(format!("{id:x}").as_bytes());
        self.raw(b"\"},\n");
    }

    /// A metadata name event; `suffix` is appended as a number unless `u32::MAX`.
    fn meta_name(&mut self, what: &[u8], pid: u32, tid: u32, text: &[u8], suffix: u32) {
        self.head(b'M', what, b"", pid, tid);
        self.raw(b",\"args\":{\"name\":\"");
        self.raw(text);
        if suffix != u32::MAX {
            self.int(suffix as i64);
        }
        self.raw(b"\"}},\n");
    }

    fn meta_sort(&mut self, what: &[u8], pid: u32, tid: u32, index: u32) {
        self.head(b'M', what, b"", pid, tid);
        self.raw(b",\"args\":{\"sort_index\":");
        self.int(index as i64);
        self.raw(b"}},\n");
    }
}
