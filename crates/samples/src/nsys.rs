//! An Nsight Systems–shaped SQLite export, generated: the tables `nsys export --type sqlite` writes for a
//! CUDA + MPI program (the columns the reader uses, in the export's order), filled with a deterministic run
//! of `processes` ranks x `iterations` steps. Its counts are known by construction ([`NsysCounts`]), so the
//! reader is tested on a fresh machine without ../shared, and large instances feed the import benchmark.

use super::sqlite::{SqliteFile, Value};

/// What to generate.
#[derive(Clone, Copy, Debug)]
pub struct NsysSample {
    pub processes: u32,
    pub iterations: u32,
    /// GPUs the ranks share round-robin.
    pub devices: u32,
}

/// Rows written per table (and flows: GPU rows whose correlation id names an API call).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NsysCounts {
    pub runtime: u64,
    pub kernels: u64,
    pub memcpy: u64,
    pub memset: u64,
    pub osrt: u64,
    pub nvtx_push_pop: u64,
    pub nvtx_start_end: u64,
    pub nvtx_marks: u64,
    pub mpi: u64,
    pub flows: u64,
    pub gpu_streams: u64,
    pub threads: u64,
}

/// A kernel name longer than a page, so its `StringIds` row spills into an overflow chain.
pub fn long_kernel_name() -> String {
    let args: Vec<String> = (0..400).map(|i| format!("Tile<{i}, float>")).collect();
    format!("void fused_kernel<{}>(float *)", args.join(", "))
}

const STRINGS: [&str; 16] = [
    "cudaMemcpy_v3020",
    "cudaLaunchKernel_v7000",
    "cudaMemsetAsync_v3020",
    "cuCtxSynchronize",
    "saxpy(float *, float *, float, int)",
    "saxpy",
    "pthread_mutex_lock",
    "ioctl",
    "MPI_Send",
    "MPI_Recv",
    "iteration",
    "main thread",
    "./app",
    "fused_kernel",
    "poll",
    "futex",
];
const LONG_NAME_ID: i64 = 100;

/// One iteration of one rank.
struct Step {
    it: i64,
    p: u32,
    t0: i64,
    tid: i64,
    gpid: i64,
    device: i64,
    /// A context per rank (ranks sharing a device have contexts of their own, so their streams do not overlap).
    context: i64,
    stream: i64,
    /// Correlation ids of this step's API calls are `corr + 1 ..= corr + 5`.
    corr: i64,
}

impl NsysSample {
    pub fn small() -> Self {
        NsysSample { processes: 2, iterations: 4, devices: 2 }
    }

    /// The export's bytes and what is in it.
    pub fn generate(&self) -> (Vec<u8>, NsysCounts) {
        let mut c = NsysCounts::default();
        let mut f = SqliteFile::new(4096);
        let id = |s: &str| STRINGS.iter().position(|&x| x == s).map_or(0, |i| i as i64 + 1);
        let mut strings: Vec<Vec<Value>> =
            STRINGS.iter().enumerate().map(|(i, s)| vec![Value::Int(i as i64 + 1), (*s).into()]).collect();
        strings.push(vec![Value::Int(LONG_NAME_ID), long_kernel_name().as_str().into()]);
        f.add_table(
            "StringIds",
            "CREATE TABLE StringIds (\n    id INTEGER NOT NULL PRIMARY KEY, -- ID reference value.\n    value TEXT NOT NULL\n)",
            Some(0),
            &strings,
        );
        let gpus: Vec<Vec<Value>> = (0..self.devices as i64)
            .map(|d| vec![Value::Int(1 << 48), Value::Int(d), format!("Generated GPU {d}").as_str().into()])
            .collect();
        f.add_table(
            "TARGET_INFO_GPU",
            "CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT)",
            None,
            &gpus,
        );
        let pid = |p: u32| 1000 + p as i64;
        let gtid = |p: u32, t: i64| (1i64 << 48) | (pid(p) << 24) | t;
        let procs: Vec<Vec<Value>> =
            (0..self.processes).map(|p| vec![Value::Int(gtid(p, 0)), Value::Int(pid(p)), "./app".into()]).collect();
        f.add_table("PROCESSES", "CREATE TABLE PROCESSES (globalPid INTEGER, pid INTEGER, name TEXT)", None, &procs);
        let names: Vec<Vec<Value>> = (0..self.processes)
            .map(|p| vec![Value::Int(id("main thread")), Value::Int(0), Value::Int(gtid(p, pid(p)))])
            .collect();
        f.add_table(
            "ThreadNames",
            "CREATE TABLE ThreadNames (nameId INTEGER, priority INTEGER, globalTid INTEGER)",
            None,
            &names,
        );
        f.add_table(
            "EXPORT_META_DATA",
            "CREATE TABLE EXPORT_META_DATA (name TEXT, value TEXT)",
            None,
            &[vec!["EXPORT_PRODUCT_NAME".into(), "weft generated sample".into()]],
        );

        // Each iteration of each rank: an NVTX range around a copy in, a kernel, a copy out and an MPI send
        // or receive; an OS runtime call; a memset every fourth iteration; a mark and a start/end range in
        // the first. Tables are written one after the other, each from the same loop (rows are never held).
        let steps: Vec<Step> = (0..self.processes)
            .flat_map(|p| (0..self.iterations as i64).map(move |it| (p, it)))
            .map(|(p, it)| Step {
                it,
                p,
                t0: 1_000_000 + it * 10_000 + p as i64 * 13,
                tid: gtid(p, pid(p)),
                gpid: gtid(p, 0),
                device: (p % self.devices.max(1)) as i64,
                context: 1 + p as i64,
                stream: 7 + (p as i64 % 2),
                corr: (p as i64 * self.iterations as i64 + it) * 8,
            })
            .collect();
        let int = Value::Int;
        let mut t = f.table("CUPTI_ACTIVITY_KIND_RUNTIME", "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, callchainId INTEGER)");
        for s in &steps {
            let mut api = |at: i64, len: i64, name: &str, corr: i64| {
                let class = if name.starts_with("cuda") { 0 } else { 1 };
                t.row(&[
                    int(s.t0 + at),
                    int(s.t0 + at + len),
                    int(class),
                    int(s.tid),
                    int(s.corr + corr),
                    int(id(name)),
                    int(0),
                    Value::Null,
                ]);
                c.runtime += 1;
            };
            api(100, 1_500, "cudaMemcpy_v3020", 1);
            api(2_000, 100, "cudaLaunchKernel_v7000", 2);
            api(4_000, 1_500, "cudaMemcpy_v3020", 3);
            if s.it % 4 == 0 {
                api(5_700, 50, "cudaMemsetAsync_v3020", 4);
            }
            api(6_000, 300, "cuCtxSynchronize", 5);
        }
        t.finish();
        let mut t = f.table("CUPTI_ACTIVITY_KIND_KERNEL", "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL)");
        for s in &steps {
            let long = s.it % 3 == 2;
            let (demangled, short) = if long {
                (LONG_NAME_ID, id("fused_kernel"))
            } else {
                (id("saxpy(float *, float *, float, int)"), id("saxpy"))
            };
            t.row(&[
                int(s.t0 + 2_150),
                int(s.t0 + 3_900),
                int(s.device),
                int(s.context),
                int(s.stream),
                int(s.corr + 2),
                int(s.gpid),
                int(demangled),
                int(short),
            ]);
            c.kernels += 1;
        }
        t.finish();
        let mut t = f.table("CUPTI_ACTIVITY_KIND_MEMCPY", "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL)");
        for s in &steps {
            for (at, kind, corr) in [(100, 1, 1), (4_000, 2, 3)] {
                t.row(&[
                    int(s.t0 + at + 200),
                    int(s.t0 + at + 1_400),
                    int(s.device),
                    int(s.context),
                    int(s.stream),
                    int(s.corr + corr),
                    int(s.gpid),
                    int(1 << (19 + kind)),
                    int(kind),
                ]);
                c.memcpy += 1;
            }
        }
        t.finish();
        let mut t = f.table("CUPTI_ACTIVITY_KIND_MEMSET", "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, value INTEGER NOT NULL, bytes INTEGER NOT NULL)");
        for s in steps.iter().filter(|s| s.it % 4 == 0) {
            t.row(&[
                int(s.t0 + 5_800),
                int(s.t0 + 5_900),
                int(s.device),
                int(s.context),
                int(s.stream + 2),
                int(s.corr + 4),
                int(s.gpid),
                int(0),
                int(4096),
            ]);
            c.memset += 1;
        }
        t.finish();
        let mut t = f.table("NVTX_EVENTS", "CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER, category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER, domainId INTEGER)");
        let null = || Value::Null;
        for s in &steps {
            t.row(&[
                int(s.t0),
                int(s.t0 + 9_000),
                int(59),
                null(),
                null(),
                null(),
                null(),
                int(s.tid),
                null(),
                int(id("iteration")),
                int(0),
            ]);
            c.nvtx_push_pop += 1;
            if s.it == 0 {
                t.row(&[
                    int(s.t0 + 50),
                    null(),
                    int(34),
                    null(),
                    null(),
                    null(),
                    "start".into(),
                    int(s.tid),
                    null(),
                    null(),
                    int(0),
                ]);
                t.row(&[
                    int(s.t0 + 60),
                    int(s.t0 + 25_000),
                    int(60),
                    int(1),
                    null(),
                    null(),
                    "warm-up".into(),
                    int(s.tid),
                    int(s.tid),
                    null(),
                    int(0),
                ]);
                c.nvtx_marks += 1;
                c.nvtx_start_end += 1;
            }
        }
        t.finish();
        let mut t = f.table("OSRT_API", "CREATE TABLE OSRT_API (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL, globalTid INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, nestingLevel INTEGER, callchainId INTEGER NOT NULL)");
        for s in &steps {
            // Work (`ioctl`) and blocking calls: OS-runtime waits (`analyses::busy::is_os_runtime_wait`).
            let name = ["ioctl", "pthread_mutex_lock", "ioctl", "poll", "ioctl", "futex"][s.it as usize % 6];
            t.row(&[int(s.t0 + 6_400), int(s.t0 + 6_600), int(0), int(s.tid), int(id(name)), int(0), int(0), int(0)]);
            c.osrt += 1;
        }
        t.finish();
        let mut t = f.table("MPI_P2P_EVENTS", "CREATE TABLE MPI_P2P_EVENTS (start INTEGER NOT NULL, end INTEGER NOT NULL, globalTid INTEGER, textId INTEGER, tag INTEGER, remoteRank INTEGER, size INTEGER)");
        for s in &steps {
            let call = if s.p % 2 == 0 { "MPI_Send" } else { "MPI_Recv" };
            t.row(&[
                int(s.t0 + 7_000),
                int(s.t0 + 8_000),
                int(s.tid),
                int(id(call)),
                int(s.it),
                int((s.p ^ 1) as i64),
                int(1024),
            ]);
            c.mpi += 1;
        }
        t.finish();
        c.flows = c.kernels + c.memcpy + c.memset;
        c.threads = self.processes as u64;
        let mut streams = std::collections::BTreeSet::new();
        for s in &steps {
            streams.insert((s.device, s.context, s.stream));
            if s.it % 4 == 0 {
                streams.insert((s.device, s.context, s.stream + 2));
            }
        }
        c.gpu_streams = streams.len() as u64;
        (f.finish(), c)
    }
}

/// A hostile export (issue 51): a CUDA runtime table whose `CREATE TABLE` names `columns` columns beyond the
/// four its `rows` rows fill (start, end, globalTid, nameId; no correlationId, so looking it up by name
/// passes every column), beside a StringIds table naming the calls. Rows hold only their four values, so the
/// file grows with columns + rows while a reader that searches the columns for every row does columns x rows.
pub fn many_columns(columns: usize, rows: usize) -> Vec<u8> {
    let mut f = SqliteFile::new(65536);
    f.add_table(
        "StringIds",
        "CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL)",
        Some(0),
        &[vec![Value::Int(1), "cudaLaunchKernel".into()], vec![Value::Int(2), "cudaMemcpy".into()]],
    );
    let mut sql = String::from(
        "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, globalTid INTEGER, \
         nameId INTEGER NOT NULL",
    );
    for i in 0..columns {
        sql.push_str(&format!(", extra{i} INTEGER"));
    }
    sql.push(')');
    let mut t = f.table("CUPTI_ACTIVITY_KIND_RUNTIME", &sql);
    let gtid = (7i64 << 24) | 7;
    for i in 0..rows as i64 {
        t.row(&[Value::Int(i * 10), Value::Int(i * 10 + 5), Value::Int(gtid), Value::Int(1 + i % 2)]);
    }
    t.finish();
    f.finish()
}
