//! A fast generator of real OTF2 archives, for tests and benchmarks of any size (issue #17): K MPI ranks
//! (one master thread each, optionally more threads per rank), nested user regions, point-to-point messages
//! (MPI_Send/MPI_Recv with MPI_SEND/MPI_RECV records on a ring, always matched) and collectives
//! (MPI_Allreduce and MPI_Barrier with COLLECTIVE_BEGIN/END on MPI_COMM_WORLD).
//!
//! It writes bytes only, with the OTF2 reader's own encoder (`readers::otf2::encoding::write`), in the real
//! chunked layout the official library writes: anchor, global definitions, one event file per location cut in
//! chunks of `chunk_size` bytes (each with its header, a timestamp first, end-of-chunk and zero padding), with
//! nanosecond ticks. Each location's events are produced by its own seeded generator, so locations can be
//! written in parallel and in any order with the same bytes. It must not build the model or call the reader,
//! and it touches no files: [`location_events`] hands chunks to a callback (the CLI's `weft generate otf2`
//! writes them to disk, [`archive`] keeps them in memory).

use super::rng::XorShift;
use weft_readers::otf2::encoding::write as w;
use weft_readers::otf2::encoding::{END_OF_CHUNK, END_OF_FILE, LITTLE_ENDIAN, TIMESTAMP};
use weft_readers::otf2::MemoryFiles;

/// What to generate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GenConfig {
    /// MPI ranks (location groups); at least 1.
    pub ranks: u32,
    /// Threads (locations) per rank; the first is the master thread that calls MPI. At least 1.
    pub threads: u32,
    /// About how many event records in all (the archive holds whole iterations, so a little more or less).
    pub events: u64,
    pub seed: u64,
    /// Event-file chunk size in bytes (the anchor's `chunk_size_events`). The official library accepts
    /// 256 KiB to 16 MiB; weft's reader any size (tests use small chunks to cross many chunk boundaries).
    pub chunk_size: u64,
    /// One long wait: rank 0's receive of iteration [`stall_at`](Self::stall_at) lasts half the iterations'
    /// time longer (every location idle meanwhile, later iterations after it), so that one call runs
    /// through many windows of a store.
    pub long_wait: bool,
    /// Hardware counters (as Score-P records PAPI metrics: at most [`MAX_METRICS`]) sampled at every ENTER
    /// and LEAVE of every location, one METRIC record each; 0 for none.
    pub metrics: u32,
    /// The clock's ticks per second, [`RESOLUTIONS`]: 1 GHz (ticks are ns), or a cycle counter's odd rate as
    /// Score-P's default timer records (2,095,197,216 on the real traces): the same times in ns either way
    /// (each tick count rounded up, so that a reader's conversion back, rounding down, gives the ns again).
    pub resolution: u64,
    /// The real time of the clock's global offset (ns since the epoch), written as OTF2 3.0's
    /// `realtimeTimestamp` at the end of the clock properties; None writes the record as OTF2 2.x does.
    pub realtime_ns: Option<u64>,
}

/// [`GenConfig::ticks`] at `resolution`.
#[inline]
fn ticks(resolution: u64, ns: u64) -> u64 {
    assert!(RESOLUTIONS.contains(&resolution), "a resolution of 1 to 10 GHz");
    if resolution == 1_000_000_000 {
        return ns;
    }
    let d = ns - CLOCK_OFFSET;
    let (s, rest) = (d / 1_000_000_000, d % 1_000_000_000);
    // rest * resolution < 10^9 * 10^10 < 2^64.
    CLOCK_OFFSET + s * resolution + (rest * resolution).div_ceil(1_000_000_000)
}

/// The clock resolutions [`GenConfig::resolution`] may be: from 1 GHz (a tick per ns at least, so the times
/// read back exactly) to 10 GHz.
pub const RESOLUTIONS: std::ops::RangeInclusive<u64> = 1_000_000_000..=10_000_000_000;

/// The most counters [`GenConfig::metrics`] gives: PAPI_TOT_CYC, PAPI_TOT_INS, PAPI_L1_DCM, ...
pub const MAX_METRICS: u32 = 6;
const METRIC_NAMES: [&str; MAX_METRICS as usize] =
    ["PAPI_TOT_CYC", "PAPI_TOT_INS", "PAPI_L1_DCM", "PAPI_L2_DCM", "PAPI_FP_OPS", "PAPI_BR_MSP"];

impl GenConfig {
    pub fn new(ranks: u32, events: u64) -> Self {
        GenConfig {
            ranks,
            threads: 1,
            events,
            seed: 1,
            chunk_size: 1 << 20,
            long_wait: false,
            metrics: 0,
            resolution: 1_000_000_000,
            realtime_ns: None,
        }
    }

    /// The clock's ticks at time `ns` (ns on the generator's timeline, from [`CLOCK_OFFSET`] on): the
    /// offset, then the ns since it in ticks, rounded up. Panics outside [`RESOLUTIONS`].
    #[inline]
    pub fn ticks(&self, ns: u64) -> u64 {
        ticks(self.resolution, ns)
    }

    /// The iteration of the long wait, and how long it is (0 without one).
    pub fn stall_at(&self) -> (u64, u64) {
        let n = self.iterations();
        (n / 3, if self.long_wait && self.ranks > 1 { n / 2 * PERIOD_NS } else { 0 })
    }

    pub fn locations(&self) -> u64 {
        self.ranks.max(1) as u64 * self.threads.max(1) as u64
    }

    /// Iterations every location runs: all ranks run the same number, so every collective has all members
    /// and every message its partner. About 16 records per iteration on a master thread (28 with metrics).
    pub fn iterations(&self) -> u64 {
        let per = if self.metrics > 0 { 28 } else { 16 };
        (self.events / self.locations() / per).max(1)
    }
}

/// Record counts by kind, named as the official reader's event classes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GenCounts {
    pub enter: u64,
    pub leave: u64,
    pub mpi_send: u64,
    pub mpi_recv: u64,
    pub collective_begin: u64,
    pub collective_end: u64,
    pub metric: u64,
    /// Bytes of the event files.
    pub event_bytes: u64,
}

impl GenCounts {
    pub fn events(&self) -> u64 {
        self.enter
            + self.leave
            + self.mpi_send
            + self.mpi_recv
            + self.collective_begin
            + self.collective_end
            + self.metric
    }

    pub fn add(&mut self, o: &GenCounts) {
        self.enter += o.enter;
        self.leave += o.leave;
        self.mpi_send += o.mpi_send;
        self.mpi_recv += o.mpi_recv;
        self.collective_begin += o.collective_begin;
        self.collective_end += o.collective_end;
        self.metric += o.metric;
        self.event_bytes += o.event_bytes;
    }

    /// As `(official reader's class name, count)`, kinds with no records left out.
    pub fn by_class(&self) -> Vec<(&'static str, u64)> {
        [
            ("Enter", self.enter),
            ("Leave", self.leave),
            ("MpiSend", self.mpi_send),
            ("MpiRecv", self.mpi_recv),
            ("MpiCollectiveBegin", self.collective_begin),
            ("MpiCollectiveEnd", self.collective_end),
            ("Metric", self.metric),
        ]
        .into_iter()
        .filter(|&(_, n)| n > 0)
        .collect()
    }
}

/// Region ids (and their string ids: region r is named by string `REGION_STRING + r`).
const R_MAIN: u32 = 0;
const R_COMPUTE: u32 = 1;
const R_KERNELS: [u32; 3] = [2, 3, 4];
const R_INNER: u32 = 5;
const R_SEND: u32 = 6;
const R_RECV: u32 = 7;
const R_ALLREDUCE: u32 = 8;
const R_BARRIER: u32 = 9;
/// (name, OTF2 role, OTF2 paradigm): roles FUNCTION 1, LOOP 3, POINT2POINT 28, COLLECTIVE 27, BARRIER 11;
/// paradigms USER 1, MPI 4.
const REGIONS: [(&str, u8, u8); 10] = [
    ("main", 1, 1),
    ("compute", 3, 1),
    ("stencil", 1, 1),
    ("reduce_local", 1, 1),
    ("update", 1, 1),
    ("inner_kernel", 1, 1),
    ("MPI_Send", 28, 4),
    ("MPI_Recv", 28, 4),
    ("MPI_Allreduce", 27, 4),
    ("MPI_Barrier", 11, 4),
];
/// OTF2 collective op codes: BARRIER 0, ALLREDUCE 11.
const OP_BARRIER: u8 = 0;
const OP_ALLREDUCE: u8 = 11;

const STR_EMPTY: u32 = 0;
const STR_MACHINE: u32 = 1;
const STR_NODE: u32 = 2;
const STR_WORLD: u32 = 3;
const STR_WORLD_LOCS: u32 = 4;
const STR_WORLD_GROUP: u32 = 5;
const REGION_STRING: u32 = 6;
/// Strings after the regions: "MPI Rank r" for each rank, then "Master thread", "Thread t" for t >= 1.
const RANK_STRING: u32 = REGION_STRING + REGIONS.len() as u32;

/// Length of one iteration (ns): the phases of every rank line up within it.
const PERIOD_NS: u64 = 100_000;
/// The trace's first tick (the clock's global offset, ns since an arbitrary epoch; ticks of any resolution).
pub const CLOCK_OFFSET: u64 = 1_700_000_000_000_000_000;

/// The anchor file (`traces.otf2`).
pub fn anchor(cfg: &GenConfig, global_defs: u64) -> Vec<u8> {
    let mut a = vec![3, LITTLE_ENDIAN];
    w::string(&mut a, "OTF2");
    a.extend_from_slice(&[3, 2, 3, 0, 0]); // anchor format 3, trace format 2, version 3.0.0
    w::u64_full(&mut a, cfg.chunk_size, false);
    w::u64_full(&mut a, 4 << 20, false); // definition chunks
    a.extend_from_slice(&[1, 1]); // POSIX substrate, no compression
    w::u64_full(&mut a, cfg.locations(), false);
    w::u64_full(&mut a, global_defs, false);
    for s in ["", "weft generate otf2", ""] {
        w::string(&mut a, s);
    }
    w::u32_full(&mut a, 0, false); // no properties
    w::u64_full(&mut a, cfg.seed, false); // trace id
    w::u32_full(&mut a, 0, false);
    w::u32_full(&mut a, 0, false);
    a.push(END_OF_FILE);
    a
}

/// The global definitions (`traces.def`) and how many definition records it holds. `events[l]` is location
/// `l`'s record count (the Location definition's `numberOfEvents`).
pub fn global_defs(cfg: &GenConfig, events: &[u64]) -> (Vec<u8>, u64) {
    let mut f = Vec::new();
    let mut n = 0u64;
    let mut rec = |f: &mut Vec<u8>, kind: u8, body: &dyn Fn(&mut Vec<u8>)| {
        let mut d = Vec::new();
        body(&mut d);
        w::record(f, kind, &d, false);
        n += 1;
    };
    w::chunk_header(&mut f, false, 1, 0);
    let span = cfg.iterations() * PERIOD_NS + cfg.stall_at().1 + 2_000;
    rec(&mut f, 5, &|d| {
        w::u64(d, cfg.resolution, false);
        w::u64(d, CLOCK_OFFSET, false);
        w::u64(d, cfg.ticks(CLOCK_OFFSET + span) - CLOCK_OFFSET, false);
        if let Some(t) = cfg.realtime_ns {
            w::u64(d, t, false);
        }
    });
    let mut strings: Vec<String> =
        ["", "machine", "node", "MPI_COMM_WORLD", "MPI_COMM_WORLD locations", "MPI_COMM_WORLD group"]
            .map(String::from)
            .to_vec();
    strings.extend(REGIONS.iter().map(|r| r.0.to_string()));
    strings.extend((0..cfg.ranks).map(|r| format!("MPI Rank {r}")));
    strings.push("Master thread".into());
    strings.extend((1..cfg.threads.max(1)).map(|t| format!("Thread {t}")));
    let metrics = cfg.metrics.min(MAX_METRICS);
    let metric_string = strings.len() as u32;
    strings.extend(METRIC_NAMES[..metrics as usize].iter().map(|m| m.to_string()));
    strings.push("#".into()); // their unit
    for (id, s) in strings.iter().enumerate() {
        rec(&mut f, 10, &|d| {
            w::u32(d, id as u32, false);
            w::string(d, s);
        });
    }
    // System tree: machine > node (name, class name, parent).
    rec(&mut f, 12, &|d| [0, STR_MACHINE, STR_MACHINE, u32::MAX].iter().for_each(|&v| w::u32(d, v, false)));
    rec(&mut f, 12, &|d| [1, STR_NODE, STR_NODE, 0].iter().for_each(|&v| w::u32(d, v, false)));
    let threads = cfg.threads.max(1);
    for g in 0..cfg.ranks {
        rec(&mut f, 13, &|d| {
            w::u32(d, g, false);
            w::u32(d, RANK_STRING + g, false);
            d.push(1); // PROCESS
            w::u32(d, 1, false);
        });
    }
    let thread_string = RANK_STRING + cfg.ranks;
    for l in 0..cfg.locations() {
        let (rank, thread) = ((l / threads as u64) as u32, (l % threads as u64) as u32);
        rec(&mut f, 14, &|d| {
            w::u64(d, l, false);
            w::u32(d, thread_string + thread, false);
            d.push(1); // CPU_THREAD
            w::u64(d, events.get(l as usize).copied().unwrap_or(0), false);
            w::u32(d, rank, false);
        });
    }
    for (id, &(_, role, paradigm)) in REGIONS.iter().enumerate() {
        let name = REGION_STRING + id as u32;
        rec(&mut f, 15, &|d| {
            w::u32(d, id as u32, false);
            w::u32(d, name, false);
            w::u32(d, STR_EMPTY, false); // description
            d.push(0); // region type (before OTF2 1.1)
            w::u32(d, u32::MAX, false); // source file
            w::u32(d, 0, false); // begin line
            w::u32(d, 0, false); // end line
            w::u32(d, name, false); // canonical name
            d.push(role);
            d.push(paradigm);
            w::u32(d, 0, false); // flags
        });
    }
    // Group 0: COMM_LOCATIONS (the master threads, by location id); group 1: COMM_GROUP (ranks 0..K).
    let masters: Vec<u64> = (0..cfg.ranks as u64).map(|r| r * threads as u64).collect();
    let ranks: Vec<u64> = (0..cfg.ranks as u64).collect();
    for (id, name, kind, members) in [(0u32, STR_WORLD_LOCS, 4u8, &masters), (1, STR_WORLD_GROUP, 5, &ranks)] {
        rec(&mut f, 18, &|d| {
            w::u32(d, id, false);
            w::u32(d, name, false);
            d.push(0);
            w::u32(d, members.len() as u32, false);
            members.iter().for_each(|&m| w::u64(d, m, false));
            d.push(kind);
            d.push(4); // MPI
            w::u32(d, 0, false);
        });
    }
    rec(&mut f, 22, &|d| [0, STR_WORLD, 1, u32::MAX].iter().for_each(|&v| w::u32(d, v, false)));
    if metrics > 0 {
        // Members (PAPI, accumulated since the start, unsigned 64-bit, decimal base, no exponent), then one
        // class of all of them, recorded by each CPU location for itself.
        for m in 0..metrics {
            rec(&mut f, DEF_METRIC_MEMBER, &|d| {
                w::u32(d, m, false);
                w::u32(d, metric_string + m, false);
                w::u32(d, STR_EMPTY, false); // description
                d.extend_from_slice(&[1, 0, TYPE_UINT64, 1]); // PAPI, ACCUMULATED_START, UINT64, DECIMAL
                w::i64(d, 0, false); // exponent
                w::u32(d, metric_string + metrics, false); // unit
            });
        }
        rec(&mut f, DEF_METRIC_CLASS, &|d| {
            w::u32(d, METRIC_CLASS, false);
            d.push(metrics as u8);
            (0..metrics).for_each(|m| w::u32(d, m, false));
            d.extend_from_slice(&[0, 2]); // STRICT occurrence, CPU recorder
        });
    }
    f.push(END_OF_FILE);
    (f, n)
}

/// A location's local definitions file (`traces/{loc}.def`): no mappings (ids are global) and no clock
/// offsets; written because the official reader opens it for every location.
pub fn local_defs() -> Vec<u8> {
    let mut f = Vec::new();
    w::chunk_header(&mut f, false, 1, 0);
    f.push(END_OF_FILE);
    f
}

/// Writes event records into fixed-size chunks and hands each finished chunk to `emit`.
struct ChunkWriter<'a, E> {
    buf: Vec<u8>,
    chunk_size: usize,
    /// Event number (1-based) of the chunk's first event, and of the last one written.
    first: u64,
    last: u64,
    /// The last time written (ns).
    time: u64,
    /// The clock's ticks per second (times are written in its ticks).
    resolution: u64,
    /// No timestamp written in this chunk yet.
    fresh: bool,
    /// The largest record written (with its timestamp).
    max_record: usize,
    emit: &'a mut dyn FnMut(&[u8]) -> Result<(), E>,
    bytes: u64,
}

/// Bytes a chunk keeps free for the end-of-chunk marker.
const CHUNK_RESERVE: usize = 1;
/// The largest record this generator writes (timestamp + collective end), with room to spare; with
/// metrics, [`MAX_METRIC_RECORD`].
const MAX_RECORD: usize = 64;
const MAX_METRIC_RECORD: usize = 128;
const HEADER: usize = 18;

impl<E> ChunkWriter<'_, E> {
    fn begin_chunk(&mut self) {
        self.buf.clear();
        w::chunk_header(&mut self.buf, false, self.last + 1, 0);
        self.first = self.last + 1;
        // Every chunk's first event carries its timestamp, so a reader may start at any chunk.
        self.fresh = true;
    }

    fn patch_header(&mut self) {
        let last = if self.last >= self.first { self.last } else { self.first.saturating_sub(1) };
        self.buf[10..18].copy_from_slice(&last.to_le_bytes());
    }

    fn flush_chunk(&mut self) -> Result<(), E> {
        self.patch_header();
        self.buf.push(END_OF_CHUNK);
        self.buf.resize(self.chunk_size, 0);
        self.bytes += self.buf.len() as u64;
        (self.emit)(&self.buf)?;
        self.begin_chunk();
        Ok(())
    }

    /// Room for one more record, else the chunk is flushed and a new one begun.
    #[inline]
    fn room(&mut self) -> Result<(), E> {
        if self.buf.len() + self.max_record + CHUNK_RESERVE > self.chunk_size {
            self.flush_chunk()?;
        }
        Ok(())
    }

    #[inline]
    fn at(&mut self, t: u64) -> Result<(), E> {
        self.room()?;
        if t != self.time || self.fresh {
            self.fresh = false;
            self.time = t;
            self.buf.push(TIMESTAMP);
            self.buf.extend_from_slice(&ticks(self.resolution, t).to_le_bytes());
        }
        self.last += 1;
        Ok(())
    }

    #[inline]
    fn enter_leave(&mut self, t: u64, kind: u8, region: u32) -> Result<(), E> {
        self.at(t)?;
        self.buf.push(kind);
        w::u32(&mut self.buf, region, false);
        Ok(())
    }

    fn framed(&mut self, t: u64, kind: u8, body: &[u8]) -> Result<(), E> {
        self.at(t)?;
        w::record(&mut self.buf, kind, body, false);
        Ok(())
    }

    fn finish(mut self) -> Result<u64, E> {
        self.patch_header();
        self.buf.push(END_OF_FILE);
        self.bytes += self.buf.len() as u64;
        (self.emit)(&self.buf)?;
        Ok(self.bytes)
    }
}

const ENTER: u8 = 12;
const EVT_METRIC: u8 = 31;
const DEF_METRIC_MEMBER: u8 = 19;
const DEF_METRIC_CLASS: u8 = 20;
/// The metric class's id (classes and instances share an id space of their own).
const METRIC_CLASS: u32 = 0;
const TYPE_UINT64: u8 = 4;
const LEAVE: u8 = 13;
const MPI_SEND: u8 = 14;
const MPI_RECV: u8 = 18;
const COLL_BEGIN: u8 = 22;
const COLL_END: u8 = 23;

/// The event file of location `loc` (`traces/{loc}.evt`), chunk by chunk into `emit`; returns its counts.
/// Deterministic in (config, loc): the same bytes whatever order or thread locations are generated in.
pub fn location_events<E>(
    cfg: &GenConfig,
    loc: u64,
    emit: &mut dyn FnMut(&[u8]) -> Result<(), E>,
) -> Result<GenCounts, E> {
    let threads = cfg.threads.max(1) as u64;
    let (rank, thread) = (loc / threads, loc % threads);
    let ranks = cfg.ranks.max(1) as u64;
    let metrics = cfg.metrics.min(MAX_METRICS);
    let max_record = if metrics > 0 { MAX_METRIC_RECORD } else { MAX_RECORD };
    let chunk_size = (cfg.chunk_size as usize).max(HEADER + 9 + max_record + CHUNK_RESERVE + 1);
    let t0 = CLOCK_OFFSET + 1_000 + thread * 10;
    let mut out = ChunkWriter {
        buf: Vec::with_capacity(chunk_size),
        chunk_size,
        first: 1,
        last: 0,
        time: t0,
        resolution: cfg.resolution,
        fresh: true,
        max_record,
        emit,
        bytes: 0,
    };
    out.begin_chunk();
    let mut c = GenCounts::default();
    let mut rng =
        XorShift(cfg.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (loc + 1).wrapping_mul(0xD1B5_4A32_D192_ED03));
    rng.next();
    // The counters' running values: each grows by a rate of its own times the time since the last sample.
    let mut counter = [0u64; MAX_METRICS as usize];
    let mut sampled = t0;
    let mut values = Vec::with_capacity(64);
    let mut metric = |out: &mut ChunkWriter<E>, c: &mut GenCounts, t: u64| -> Result<(), E> {
        if metrics == 0 {
            return Ok(());
        }
        values.clear();
        w::u32(&mut values, METRIC_CLASS, false);
        values.push(metrics as u8);
        let dt = t.saturating_sub(sampled);
        for (m, v) in counter.iter_mut().take(metrics as usize).enumerate() {
            *v += dt * [3, 2, 1, 1, 2, 1][m] / [1, 1, 20, 200, 3, 50][m] + (m as u64 & 1);
            values.push(TYPE_UINT64);
            w::u64(&mut values, *v, false);
        }
        sampled = t;
        out.framed(t, EVT_METRIC, &values)?;
        c.metric += 1;
        Ok(())
    };
    macro_rules! enter {
        ($t:expr, $r:expr) => {{
            let t = $t;
            out.enter_leave(t, ENTER, $r)?;
            c.enter += 1;
            metric(&mut out, &mut c, t)?;
        }};
    }
    macro_rules! leave {
        ($t:expr, $r:expr) => {{
            let t = $t;
            out.enter_leave(t, LEAVE, $r)?;
            c.leave += 1;
            metric(&mut out, &mut c, t)?;
        }};
    }
    enter!(t0, R_MAIN);
    let mut body = Vec::with_capacity(32);
    let (stall_at, stall) = cfg.stall_at();
    for i in 0..cfg.iterations() {
        let base = CLOCK_OFFSET + 1_000 + i * PERIOD_NS + if i > stall_at { stall } else { 0 };
        // In the long wait's iteration, what follows the receives comes after it (rank 0's receive waits).
        let late = if i == stall_at { stall } else { 0 };
        // Compute phase: 1 to 3 kernels over about the first 60% of the period, some with an inner kernel.
        let start = base + 100 + thread * 10 + rng.below(200);
        enter!(start, R_COMPUTE);
        let kernels = 1 + rng.below(3);
        let phase_end = base + 60_000 - rng.below(2_000);
        let step = (phase_end - start - 200) / kernels;
        let mut t = start + 50;
        for _ in 0..kernels {
            let k = R_KERNELS[rng.below(3) as usize];
            let end = t + step - 100 - rng.below(step / 4);
            enter!(t, k);
            if rng.below(2) == 0 {
                let a = t + 20 + rng.below((end - t) / 4);
                let b = a + 10 + rng.below((end - a) / 2);
                enter!(a, R_INNER);
                leave!(b, R_INNER);
            }
            leave!(end, k);
            t = end + 50;
        }
        leave!(phase_end, R_COMPUTE);
        if thread != 0 {
            continue;
        }
        // Ring exchange: send to the next rank at ~62% of the period, receive from the previous at ~75%.
        if ranks > 1 {
            let tag = (i % 1024) as u32;
            let length = 1024 * (1 + (i % 8));
            let send_at = base + 61_000 + rng.below(2_000);
            enter!(send_at, R_SEND);
            body.clear();
            w::u32(&mut body, ((rank + 1) % ranks) as u32, false);
            w::u32(&mut body, 0, false);
            w::u32(&mut body, tag, false);
            w::u64(&mut body, length, false);
            out.framed(send_at + 200, MPI_SEND, &body)?;
            c.mpi_send += 1;
            leave!(send_at + 400 + rng.below(500), R_SEND);
            let recv_at = base + 70_000 + rng.below(2_000);
            enter!(recv_at, R_RECV);
            body.clear();
            w::u32(&mut body, ((rank + ranks - 1) % ranks) as u32, false);
            w::u32(&mut body, 0, false);
            w::u32(&mut body, tag, false);
            w::u64(&mut body, length, false);
            let done = base + 75_000 + rng.below(2_000) + if rank == 0 { late } else { 0 };
            out.framed(done, MPI_RECV, &body)?;
            c.mpi_recv += 1;
            leave!(done + 100, R_RECV);
        }
        // Every second iteration a collective, all ranks in the same order: Allreduce, then Barrier.
        if i % 2 == 1 {
            let (region, op) = if i % 4 == 1 { (R_ALLREDUCE, OP_ALLREDUCE) } else { (R_BARRIER, OP_BARRIER) };
            let begin = base + late + 80_000 + rng.below(5_000);
            let end = base + late + 90_000 + rng.below(500);
            enter!(begin, region);
            out.framed(begin + 50, COLL_BEGIN, &[])?;
            c.collective_begin += 1;
            body.clear();
            body.push(op);
            w::u32(&mut body, 0, false);
            w::u32(&mut body, u32::MAX, false); // no root
            let bytes = if op == OP_ALLREDUCE { 8 * 1024 } else { 0 };
            w::u64(&mut body, bytes, false);
            w::u64(&mut body, bytes, false);
            out.framed(end, COLL_END, &body)?;
            c.collective_end += 1;
            leave!(end + 50, region);
        }
    }
    leave!(CLOCK_OFFSET + 1_000 + cfg.iterations() * PERIOD_NS + stall + 500 + thread * 10, R_MAIN);
    c.event_bytes = out.finish()?;
    Ok(c)
}

/// The whole archive in memory (small configurations: tests), with its counts.
pub fn archive(cfg: &GenConfig) -> (MemoryFiles, GenCounts) {
    let mut m = MemoryFiles::new();
    let mut total = GenCounts::default();
    let mut per_location = Vec::new();
    for l in 0..cfg.locations() {
        let mut bytes = Vec::new();
        let c = location_events::<()>(cfg, l, &mut |chunk| {
            bytes.extend_from_slice(chunk);
            Ok(())
        })
        .unwrap_or_default();
        per_location.push(c.events());
        total.add(&c);
        m.insert(&format!("traces/{l}.evt"), bytes);
        m.insert(&format!("traces/{l}.def"), local_defs());
    }
    let (defs, n) = global_defs(cfg, &per_location);
    m.insert("traces.def", defs);
    m.insert("traces.otf2", anchor(cfg, n));
    (m, total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_are_deterministic_and_cut_in_whole_chunks() {
        let cfg = GenConfig { chunk_size: 4096, ..GenConfig::new(3, 20_000) };
        let one = |l| {
            let mut chunks = Vec::new();
            location_events::<()>(&cfg, l, &mut |c| {
                chunks.push(c.to_vec());
                Ok(())
            })
            .unwrap();
            chunks
        };
        let a = one(1);
        assert_eq!(a, one(1));
        assert!(a.len() > 1, "several chunks");
        for c in &a[..a.len() - 1] {
            assert_eq!(c.len(), 4096);
            assert_eq!(c[0], 3);
        }
        assert_ne!(one(0), a);
    }
}
