//! Small OTF2 archives of named regions on the threads of one process, written byte by byte with the OTF2
//! reader's own encoder, and what they must read as, computed here from the events written: the hard cases
//! of ENTER/LEAVE pairing and of busy time. [`apex_like`]: APEX's LEAVEs that name another region than the
//! one they close (`ENTER hpx_main` / `LEAVE run_helper`), flat pairs; [`tasks_in_waits`]: OpenMP tasks run
//! inside `taskwait` and barrier regions, as tied tasks run, some holding a lock wait of their own.
//!
//! It writes bytes only; it must not build the model or call the reader.

use super::rng::XorShift;
use std::collections::BTreeMap;
use weft_readers::otf2::encoding::write as w;
use weft_readers::otf2::MemoryFiles;

/// OTF2 region roles and paradigms (the record's codes) the samples use.
pub mod code {
    pub const ROLE_FUNCTION: u8 = 1;
    pub const ROLE_IMPLICIT_BARRIER: u8 = 16;
    pub const ROLE_TASK: u8 = 20;
    pub const ROLE_TASK_WAIT: u8 = 22;
    pub const PARADIGM_USER: u8 = 1;
    pub const PARADIGM_OPENMP: u8 = 3;
}

/// A region definition: name, OTF2 role and paradigm.
#[derive(Clone, Debug)]
pub struct RegionSpec {
    pub name: String,
    pub role: u8,
    pub paradigm: u8,
}

/// An event of a thread: ENTER or LEAVE of a region (its index in [`Program::regions`]) at a time in ns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    Enter(u32, u64),
    Leave(u32, u64),
}

/// The regions and every thread's events, in time order per thread.
#[derive(Clone, Debug, Default)]
pub struct Program {
    pub regions: Vec<RegionSpec>,
    pub threads: Vec<Vec<Step>>,
}

/// The global offset of the clock (ticks are ns: resolution 1 GHz).
const CLOCK_OFFSET: u64 = 1_000_000;

impl Program {
    /// The archive: `traces.otf2`, `traces.def`, `traces/{thread}.evt`.
    pub fn archive(&self) -> MemoryFiles {
        let mut m = MemoryFiles::new();
        m.insert("traces.otf2", super::otf2::anchor(false, self.threads.len() as u64));
        m.insert("traces.def", self.global_defs());
        for (l, events) in self.threads.iter().enumerate() {
            m.insert(&format!("traces/{l}.evt"), event_file(events));
        }
        m
    }

    fn global_defs(&self) -> Vec<u8> {
        let big = false;
        let mut f = Vec::new();
        w::chunk_header(&mut f, big, 1, 0);
        let last = self.threads.iter().filter_map(|t| t.last()).map(|s| time(*s)).max().unwrap_or(0);
        rec(&mut f, 5, |d| {
            w::u64(d, 1_000_000_000, big);
            w::u64(d, CLOCK_OFFSET, big);
            w::u64(d, last + 1, big);
        });
        // Strings: "", "node", "process", then the threads' names, then the regions'.
        let mut strings: Vec<String> = vec![String::new(), "node".into(), "process".into()];
        let thread_name = strings.len() as u32;
        strings.extend((0..self.threads.len()).map(|t| format!("thread {t}")));
        let region_name = strings.len() as u32;
        strings.extend(self.regions.iter().map(|r| r.name.clone()));
        for (id, s) in strings.iter().enumerate() {
            rec(&mut f, 10, |d| {
                w::u32(d, id as u32, big);
                w::string(d, s);
            });
        }
        rec(&mut f, 12, |d| [0, 1, 0, u32::MAX].iter().for_each(|&v| w::u32(d, v, big)));
        rec(&mut f, 13, |d| {
            w::u32(d, 0, big);
            w::u32(d, 2, big);
            d.push(1); // a process
            w::u32(d, 0, big);
        });
        for (l, events) in self.threads.iter().enumerate() {
            rec(&mut f, 14, |d| {
                w::u64(d, l as u64, big);
                w::u32(d, thread_name + l as u32, big);
                d.push(1); // a CPU thread
                w::u64(d, events.len() as u64, big);
                w::u32(d, 0, big);
            });
        }
        for (id, r) in self.regions.iter().enumerate() {
            let name = region_name + id as u32;
            super::otf2::region_def(&mut f, big, id as u32, name, r.role, r.paradigm);
        }
        f.push(2);
        f
    }
}

fn time(s: Step) -> u64 {
    match s {
        Step::Enter(_, t) | Step::Leave(_, t) => t,
    }
}

fn rec(f: &mut Vec<u8>, kind: u8, body: impl FnOnce(&mut Vec<u8>)) {
    let mut d = Vec::new();
    body(&mut d);
    w::record(f, kind, &d, false);
}

fn event_file(events: &[Step]) -> Vec<u8> {
    let mut f = Vec::new();
    w::chunk_header(&mut f, false, 1, events.len() as u64);
    for &s in events {
        f.push(5);
        w::u64_full(&mut f, CLOCK_OFFSET + time(s), false);
        let (kind, region) = match s {
            Step::Enter(r, _) => (12, r),
            Step::Leave(r, _) => (13, r),
        };
        f.push(kind);
        w::u32(&mut f, region, false);
    }
    f.push(2);
    f
}

/// An APEX-like archive and what it must read as under the rule that a LEAVE closes the innermost open
/// region (times in ns from the first event).
#[derive(Clone, Debug)]
pub struct ApexSample {
    pub program: Program,
    /// Per region name: the summed time of its intervals (none nests, so this is its inclusive time).
    pub inclusive_ns: BTreeMap<String, u64>,
    /// Intervals: one per ENTER.
    pub intervals: u64,
    /// LEAVEs naming another region than the one open (each closes it: a `MisnamedEnd`).
    pub misnamed: u64,
    /// LEAVEs with nothing open (one, on thread 1): left out, an `UnmatchedEnd`.
    pub unmatched: u64,
}

/// `threads` threads (at least 2) of `pairs` flat ENTER/LEAVE pairs each, as APEX writes an HPX run: thread
/// 0 first enters `hpx_main` and leaves `run_helper`; then each thread runs tasks, entering the task's
/// action and leaving `phylanx_primitive_eval_action` (which is also one of the actions: then the names
/// match), with gaps between pairs and pairs touching; thread 1 begins with a LEAVE of nothing open.
/// Deterministic in `seed`.
pub fn apex_like(threads: u32, pairs: u32, seed: u64) -> ApexSample {
    use code::*;
    let names = ["hpx_main", "run_helper", "phylanx_primitive_eval_action", "fib_action", "apex_task_yield"];
    let regions = names
        .iter()
        .map(|n| RegionSpec { name: n.to_string(), role: ROLE_FUNCTION, paradigm: PARADIGM_USER })
        .collect();
    let (hpx_main, run_helper, eval) = (0u32, 1u32, 2u32);
    let mut rng = XorShift(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut s = ApexSample {
        program: Program { regions, threads: Vec::new() },
        inclusive_ns: BTreeMap::new(),
        intervals: 0,
        misnamed: 0,
        unmatched: 0,
    };
    let mut pairs_of = Vec::new();
    for th in 0..threads.max(2) {
        let mut ev = Vec::new();
        let mut t = 1_000 + th as u64 * 7;
        if th == 1 {
            ev.push(Step::Leave(run_helper, t));
            s.unmatched += 1;
            t += 5;
        }
        for k in 0..pairs {
            let (enter, leave) =
                if th == 0 && k == 0 { (hpx_main, run_helper) } else { (2 + rng.below(3) as u32, eval) };
            let len = rng.range(1, 5_000);
            ev.push(Step::Enter(enter, t));
            ev.push(Step::Leave(leave, t + len));
            pairs_of.push((enter, t, len));
            s.misnamed += (enter != leave) as u64;
            t += len + rng.below(3) * rng.below(400);
        }
        s.program.threads.push(ev);
    }
    for (r, _, len) in pairs_of {
        *s.inclusive_ns.entry(names[r as usize].to_string()).or_default() += len;
        s.intervals += 1;
    }
    s
}

/// An OpenMP-task-style archive and its tasks' work per thread.
#[derive(Clone, Debug)]
pub struct TasksSample {
    pub program: Program,
    /// Per thread: its task work, the time of its tasks less the lock waits inside them (ns).
    pub task_work_ns: Vec<u64>,
    /// Per thread: the time in its wait regions (`taskwait`, implicit barrier) outside the tasks they ran.
    pub wait_ns: Vec<u64>,
    /// Per thread: the time in lock waits inside tasks.
    pub lock_ns: Vec<u64>,
}

/// `threads` threads, each a sequence of wait regions (`!$omp taskwait`, `!$omp implicit barrier`) back to
/// back from its first event to its last, each running zero to three tasks (`!$omp task fib`) inside it,
/// some of which wait for a lock (`omp_set_lock`) inside; nothing outside the waits, so that busy time
/// (compute) is the tasks' work exactly, and everything else is waiting. Deterministic in `seed`.
pub fn tasks_in_waits(threads: u32, waits: u32, seed: u64) -> TasksSample {
    use code::*;
    let regions = vec![
        RegionSpec { name: "!$omp taskwait".into(), role: ROLE_TASK_WAIT, paradigm: PARADIGM_OPENMP },
        RegionSpec { name: "!$omp implicit barrier".into(), role: ROLE_IMPLICIT_BARRIER, paradigm: PARADIGM_OPENMP },
        RegionSpec { name: "!$omp task fib".into(), role: ROLE_TASK, paradigm: PARADIGM_OPENMP },
        RegionSpec { name: "omp_set_lock".into(), role: ROLE_FUNCTION, paradigm: PARADIGM_OPENMP },
    ];
    let (task, lock) = (2u32, 3u32);
    let mut rng = XorShift(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut s = TasksSample {
        program: Program { regions, threads: Vec::new() },
        task_work_ns: Vec::new(),
        wait_ns: Vec::new(),
        lock_ns: Vec::new(),
    };
    for th in 0..threads.max(1) {
        let (mut ev, mut work, mut wait, mut locked) = (Vec::new(), 0u64, 0u64, 0u64);
        let mut t = 500 + th as u64 * 13;
        for _ in 0..waits {
            let region = rng.below(2) as u32;
            ev.push(Step::Enter(region, t));
            // A task may start with its wait (0 ns of waiting first) or end with it.
            let mut at = t + rng.below(2) * rng.range(1, 200);
            wait += at - t;
            for _ in 0..rng.below(4) {
                let len = rng.range(10, 3_000);
                ev.push(Step::Enter(task, at));
                let mut held = 0;
                if rng.below(3) == 0 {
                    let from = at + rng.range(1, len / 2);
                    held = rng.range(1, len / 3);
                    ev.push(Step::Enter(lock, from));
                    ev.push(Step::Leave(lock, from + held));
                }
                ev.push(Step::Leave(task, at + len));
                locked += held;
                work += len - held;
                let gap = rng.below(2) * rng.range(1, 300);
                wait += gap;
                at += len + gap;
            }
            let end = at.max(t + 1);
            wait += end - at;
            ev.push(Step::Leave(region, end));
            t = end;
        }
        s.program.threads.push(ev);
        s.task_work_ns.push(work);
        s.wait_ns.push(wait);
        s.lock_ns.push(locked);
    }
    s
}
