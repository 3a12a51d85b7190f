//! A deterministic generator of Paraver traces (.prv, .pcf, .row) that look like what Extrae writes for an
//! MPI + threads program: per task a main thread that computes (a user function with hardware counters),
//! sends to the next task, receives from the previous one and joins an allreduce; worker threads that
//! compute and then idle until the allreduce ends. Records are sorted by time, as Extrae's merger writes
//! them. It writes bytes only: it must not build the model or call the reader.
//!
//! Per iteration `i` starting at `T` (the previous allreduce's end), for task `k` (1-based) with compute
//! time `c_k`: main thread: `2:..:T:60000019:2:42000050:I:42000059:C` (enter `compute` with two counters),
//! state Running [T, T + c_k), `60000019:0` at T + c_k, `50000001:1` (MPI_Send) and state Blocking Send for
//! `send_ns`, `50000001:0`, then `50000001:2` (MPI_Recv) and state Waiting a message until the message from
//! task k-1 arrives (`latency_ns` after its send ends), `50000001:0`, state Running for 1 us,
//! `50000002:10` (MPI_Allreduce) and state Group Communication until the iteration's end G (the slowest
//! task's arrival + `allreduce_ns`), `50000002:0` at G. A communication record per message. Workers:
//! `60000019:3` (worker) and state Running for c_k / 2, `60000019:0`, state Idle until G. The whole run is
//! wrapped in `40000001:1`/`0` (Application) and, on main threads, `60000019:1` (main).

use std::io::Write;
use weft_model::sort::SortDyn;

#[derive(Clone, Debug)]
pub struct ParaverSample {
    pub tasks: u32,
    pub threads_per_task: u32,
    pub iterations: u32,
    /// Stop adding iterations once the body passes this many bytes (0: no limit).
    pub max_bytes: usize,
    pub compute_ns: u64,
    pub send_ns: u64,
    pub latency_ns: u64,
    pub allreduce_ns: u64,
    pub seed: u64,
}

impl Default for ParaverSample {
    fn default() -> Self {
        ParaverSample {
            tasks: 4,
            threads_per_task: 2,
            iterations: 10,
            max_bytes: 0,
            compute_ns: 1_500_000,
            send_ns: 20_000,
            latency_ns: 5_000,
            allreduce_ns: 30_000,
            seed: 1,
        }
    }
}

/// A generated trace: the three files' bytes.
pub struct ParaverFiles {
    pub prv: Vec<u8>,
    pub pcf: Vec<u8>,
    pub row: Vec<u8>,
    pub iterations: u32,
}

/// xorshift64* step.
fn next(x: &mut u64) -> u64 {
    *x ^= *x >> 12;
    *x ^= *x << 25;
    *x ^= *x >> 27;
    x.wrapping_mul(0x2545_F491_4F6C_DD1D)
}

/// One record line with its sort key (time, then a rank so that a state follows the event that opens it).
struct Line {
    time: u64,
    order: u32,
    text: String,
}

impl ParaverSample {
    pub fn generate(&self) -> ParaverFiles {
        let tasks = self.tasks.max(1);
        let threads = self.threads_per_task.max(1);
        let mut rng = self.seed.max(1);
        let mut body: Vec<u8> = Vec::new();
        let mut lines: Vec<Line> = Vec::new();
        let cpu = |k: u32, h: u32| (k - 1) * threads + h;
        let start = 1_000u64;
        let mut t0 = start;
        for k in 1..=tasks {
            for h in 1..=threads {
                let c = cpu(k, h);
                lines.push(Line { time: 0, order: 0, text: format!("2:{c}:1:{k}:{h}:{start}:40000001:1") });
                if h == 1 {
                    lines.push(Line { time: 0, order: 1, text: format!("2:{c}:1:{k}:{h}:{start}:60000019:1") });
                }
            }
        }
        let mut iterations = 0;
        while iterations < self.iterations && (self.max_bytes == 0 || body.len() < self.max_bytes) {
            let compute: Vec<u64> =
                (0..tasks).map(|_| self.compute_ns + next(&mut rng) % (self.compute_ns / 4 + 1)).collect();
            // Send ends, per task.
            let send_end: Vec<u64> = compute.iter().map(|&c| t0 + c + self.send_ns).collect();
            let arrive: Vec<u64> = (0..tasks as usize)
                .map(|k| {
                    let from = (k + tasks as usize - 1) % tasks as usize;
                    send_end[k].max(send_end[from] + self.latency_ns) + 1_000
                })
                .collect();
            let g = arrive.iter().max().copied().unwrap_or(t0) + 1_000 + self.allreduce_ns;
            for k in 1..=tasks {
                let ki = (k - 1) as usize;
                let c = compute[ki];
                let (a, b, e) = (t0 + c, send_end[ki], arrive[ki]);
                let f = e + 1_000;
                let cp = cpu(k, 1);
                let w = |time: u64, order: u32, text: String| Line { time, order, text };
                let ins = next(&mut rng) % 90_000_000 + 10_000_000;
                let cyc = ins + next(&mut rng) % 20_000_000;
                lines.push(w(t0, 2, format!("2:{cp}:1:{k}:1:{t0}:60000019:2:42000050:{ins}:42000059:{cyc}")));
                lines.push(w(t0, 3, format!("1:{cp}:1:{k}:1:{t0}:{a}:1")));
                lines.push(w(a, 0, format!("2:{cp}:1:{k}:1:{a}:60000019:0")));
                lines.push(w(a, 1, format!("2:{cp}:1:{k}:1:{a}:50000001:1")));
                lines.push(w(a, 2, format!("1:{cp}:1:{k}:1:{a}:{b}:4")));
                let to = k % tasks + 1;
                let (ta, tb, te) = (to as usize - 1, send_end[to as usize - 1], arrive[to as usize - 1]);
                let _ = ta;
                let size = 1024 * (1 + next(&mut rng) % 64);
                let (tc, tag) = (cpu(to, 1), 7 + k % 3);
                lines.push(w(a, 3, format!("3:{cp}:1:{k}:1:{a}:{b}:{tc}:1:{to}:1:{tb}:{te}:{size}:{tag}")));
                lines.push(w(b, 0, format!("2:{cp}:1:{k}:1:{b}:50000001:0")));
                lines.push(w(b, 1, format!("2:{cp}:1:{k}:1:{b}:50000001:2")));
                lines.push(w(b, 2, format!("1:{cp}:1:{k}:1:{b}:{e}:3")));
                lines.push(w(e, 0, format!("2:{cp}:1:{k}:1:{e}:50000001:0")));
                lines.push(w(e, 1, format!("1:{cp}:1:{k}:1:{e}:{f}:1")));
                lines.push(w(f, 0, format!("2:{cp}:1:{k}:1:{f}:50000002:10")));
                lines.push(w(f, 1, format!("1:{cp}:1:{k}:1:{f}:{g}:13")));
                lines.push(w(g, 0, format!("2:{cp}:1:{k}:1:{g}:50000002:0")));
                for h in 2..=threads {
                    let cp = cpu(k, h);
                    let half = t0 + c / 2;
                    lines.push(w(t0, 2, format!("2:{cp}:1:{k}:{h}:{t0}:60000019:3:42000050:{}", ins / 2)));
                    lines.push(w(t0, 3, format!("1:{cp}:1:{k}:{h}:{t0}:{half}:1")));
                    lines.push(w(half, 0, format!("2:{cp}:1:{k}:{h}:{half}:60000019:0")));
                    lines.push(w(half, 1, format!("1:{cp}:1:{k}:{h}:{half}:{g}:0")));
                }
            }
            flush(&mut lines, &mut body);
            t0 = g;
            iterations += 1;
        }
        for k in 1..=tasks {
            for h in 1..=threads {
                let c = cpu(k, h);
                if h == 1 {
                    lines.push(Line { time: t0, order: 0, text: format!("2:{c}:1:{k}:{h}:{t0}:60000019:0") });
                }
                lines.push(Line { time: t0, order: 1, text: format!("2:{c}:1:{k}:{h}:{t0}:40000001:0") });
            }
        }
        flush(&mut lines, &mut body);
        let mut prv = Vec::with_capacity(body.len() + 256);
        let task_list: Vec<String> = (0..tasks).map(|_| format!("{threads}:1")).collect();
        let members: Vec<String> = (1..=tasks).map(|k| k.to_string()).collect();
        let _ = writeln!(
            prv,
            "#Paraver (22/11/26 at 00:00):{t0}_ns:1({}):1:{tasks}({}),1",
            tasks * threads,
            task_list.join(",")
        );
        let _ = writeln!(prv, "c:1:1:{tasks}:{}", members.join(":"));
        prv.extend_from_slice(&body);
        ParaverFiles { prv, pcf: self.pcf(), row: self.row(), iterations }
    }

    fn pcf(&self) -> Vec<u8> {
        let mut s = String::from("DEFAULT_OPTIONS\n\nLEVEL               THREAD\nUNITS               NANOSEC\n\n");
        s.push_str("STATES\n0    Idle\n1    Running\n2    Not created\n3    Waiting a message\n4    Blocking Send\n");
        s.push_str(
            "5    Synchronization\n13    Group Communication\n\n\nSTATES_COLOR\n0    {117,195,255}\n1    {0,0,255}\n",
        );
        s.push_str("3    {255,0,0}\n4    {255,0,174}\n13    {255,144,26}\n\n\n");
        s.push_str("EVENT_TYPE\n6    40000001    Application\nVALUES\n0      End\n1      Begin\n\n\n");
        s.push_str("EVENT_TYPE\n9    50000001    MPI Point-to-point\nVALUES\n0   Outside MPI\n1   MPI_Send\n2   MPI_Recv\n\n\n");
        s.push_str(
            "EVENT_TYPE\n9    50000002    MPI Collective Comm\nVALUES\n0   Outside MPI\n10   MPI_Allreduce\n\n\n",
        );
        s.push_str("EVENT_TYPE\n0    60000019    User function\nVALUES\n0      End\n1      main\n2      compute\n3      worker\n\n\n");
        s.push_str(
            "EVENT_TYPE\n7  42000050 PAPI_TOT_INS [Instr completed]\n7  42000059 PAPI_TOT_CYC [Total cycles]\n\n",
        );
        s.into_bytes()
    }

    fn row(&self) -> Vec<u8> {
        let (tasks, threads) = (self.tasks.max(1), self.threads_per_task.max(1));
        let mut s = format!("LEVEL CPU SIZE {}\n", tasks * threads);
        for c in 1..=tasks * threads {
            s.push_str(&format!("{c}.node1\n"));
        }
        s.push_str("\nLEVEL NODE SIZE 1\nnode1\n\n");
        s.push_str(&format!("LEVEL TASK SIZE {tasks}\n"));
        for k in 0..tasks {
            s.push_str(&format!("rank {k}\n"));
        }
        s.push_str(&format!("\nLEVEL THREAD SIZE {}\n", tasks * threads));
        for k in 0..tasks {
            for h in 0..threads {
                s.push_str(&format!("rank {k} thread {h}\n"));
            }
        }
        s.into_bytes()
    }
}

fn flush(lines: &mut Vec<Line>, out: &mut Vec<u8>) {
    lines.sort_dyn_by_key(|l| (l.time, l.order));
    for l in lines.drain(..) {
        out.extend_from_slice(l.text.as_bytes());
        out.push(b'\n');
    }
}
