//! The three examples of the TreVis paper as generated fork/join runs: task-recursive Fibonacci (729
//! threads), RSA-style fork-all-then-join-all workers (13 threads), divide-and-conquer merge sort (1,024
//! threads); and random fork/join programs of any size for tests and benchmarks. Each is a [`Program`]
//! (per thread: work, forks, joins) that [`simulate`] runs on ideal hardware (every thread on its own
//! processor) to get consistent event times. Deterministic: times come from a seeded xorshift, never a clock.

use super::rng::XorShift;
use weft_model::sort::SortDyn;
use weft_model::thread_events::{ThreadEventKind, ThreadEvents};
use weft_readers::execgraph_text::{write, TimeUnit};

/// One step of a thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Compute for this long.
    Work(u64),
    /// Create subthread `child` (an index into [`Program::threads`], greater than the parent's); it starts
    /// `delay_ns` later.
    Fork { child: u32, delay_ns: u64 },
    /// Wait for subthread `child` to end.
    Join { child: u32 },
}

/// A thread's steps, and the host node it runs on.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ThreadPlan {
    pub host: u32,
    pub steps: Vec<Step>,
}

/// A fork/join program: thread 0 is the main thread; every other thread is forked by a thread of lower
/// index and joined by the same thread.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Program {
    pub threads: Vec<ThreadPlan>,
}

impl Program {
    fn new_thread(&mut self, host: u32) -> u32 {
        self.threads.push(ThreadPlan { host, steps: Vec::new() });
        self.threads.len() as u32 - 1
    }
}

/// The samples by name, as the CLI and the page offer them.
pub const SAMPLES: [&str; 3] = ["fib", "rsa", "mergesort"];

/// A sample's events by name.
pub fn sample(name: &str) -> Option<ThreadEvents> {
    let p = match name {
        "fib" => fibonacci(),
        "rsa" => rsa(),
        "mergesort" => merge_sort(),
        _ => return None,
    };
    Some(simulate(&p, &format!("sample:{name}")))
}

/// A sample as the text format (so it doubles as a fixture).
pub fn sample_text(name: &str) -> Option<String> {
    sample(name).map(|e| write(&e, TimeUnit::Us))
}

const HOSTS: u32 = 4;

/// `for i in 0..12 { fib(i) }` in the main thread, each `fib(n)` with `n > 1` forking `fib(n-1)` and
/// `fib(n-2)` and joining them in fork order: 1 + sum over i of (2 F(i+1) - 2) = 729 threads.
pub fn fibonacci() -> Program {
    let mut p = Program::default();
    let mut rng = XorShift(0x5eed_f1b0);
    let main = p.new_thread(0);
    for i in 0..12 {
        fib_body(&mut p, &mut rng, main, i);
    }
    p
}

fn fib_body(p: &mut Program, rng: &mut XorShift, t: u32, n: u32) {
    let w = rng.around(2_000);
    p.threads[t as usize].steps.push(Step::Work(w));
    if n <= 1 {
        return;
    }
    let mut kids = [0u32; 2];
    for (k, m) in [n - 1, n - 2].into_iter().enumerate() {
        let c = p.new_thread((p.threads.len() as u32) % HOSTS);
        let delay_ns = rng.around(800);
        p.threads[t as usize].steps.push(Step::Fork { child: c, delay_ns });
        p.threads[t as usize].steps.push(Step::Work(rng.around(300)));
        fib_body(p, rng, c, m);
        kids[k] = c;
    }
    for c in kids {
        p.threads[t as usize].steps.push(Step::Join { child: c });
    }
    p.threads[t as usize].steps.push(Step::Work(rng.around(500)));
}

/// The main thread reads the input, forks 12 workers (one block each), joins them all in fork order and
/// writes the output: 13 threads, a complete intersection graph.
pub fn rsa() -> Program {
    let mut p = Program::default();
    let mut rng = XorShift(0x0005_ca1e);
    let main = p.new_thread(0);
    p.threads[0].steps.push(Step::Work(3_000_000));
    let mut workers = Vec::new();
    for _ in 0..12 {
        let c = p.new_thread(1 + workers.len() as u32 % HOSTS);
        p.threads[c as usize].steps.push(Step::Work(rng.around(40_000_000)));
        let delay_ns = rng.around(50_000);
        p.threads[main as usize].steps.push(Step::Fork { child: c, delay_ns });
        p.threads[main as usize].steps.push(Step::Work(rng.around(200_000)));
        workers.push(c);
    }
    for c in workers {
        p.threads[main as usize].steps.push(Step::Join { child: c });
        p.threads[main as usize].steps.push(Step::Work(rng.around(100_000)));
    }
    p.threads[main as usize].steps.push(Step::Work(2_000_000));
    p
}

/// The main thread forks the sort of the whole array; each sort thread splits its part, forks two sorts,
/// joins them and merges; parts of 1/512 are bubble-sorted: 1 + 1023 = 1,024 threads.
pub fn merge_sort() -> Program {
    let mut p = Program::default();
    let mut rng = XorShift(0x00b0_bb1e);
    let main = p.new_thread(0);
    p.threads[0].steps.push(Step::Work(500_000));
    let root = p.new_thread(0);
    p.threads[0].steps.push(Step::Fork { child: root, delay_ns: 20_000 });
    p.threads[0].steps.push(Step::Join { child: root });
    p.threads[0].steps.push(Step::Work(300_000));
    sort_body(&mut p, &mut rng, root, 100_000, 9);
    let _ = main;
    p
}

fn sort_body(p: &mut Program, rng: &mut XorShift, t: u32, len: u64, depth: u32) {
    if depth == 0 {
        // Bubble sort: quadratic in the part's length (about 0.5 ns per comparison).
        p.threads[t as usize].steps.push(Step::Work(rng.around(len * len / 2)));
        return;
    }
    p.threads[t as usize].steps.push(Step::Work(rng.around(len * 2)));
    let mut kids = [0u32; 2];
    for k in kids.iter_mut() {
        let c = p.new_thread((p.threads.len() as u32) % HOSTS);
        p.threads[t as usize].steps.push(Step::Fork { child: c, delay_ns: rng.around(15_000) });
        sort_body(p, rng, c, len / 2, depth - 1);
        *k = c;
    }
    for c in kids {
        p.threads[t as usize].steps.push(Step::Join { child: c });
    }
    // Merge: linear in the part's length.
    p.threads[t as usize].steps.push(Step::Work(rng.around(len * 8)));
}

/// A random fork/join program of `threads` threads: each thread after the first is forked by a random
/// earlier thread (recent ones more likely, so trees are both deep and bushy), and each thread interleaves its
/// forks and joins at random (joins in any order, so intersection graphs of every kind occur).
pub fn random(threads: usize, seed: u64) -> Program {
    let mut rng = XorShift(seed.max(1));
    let n = threads.max(1);
    let mut parent = vec![0u32; n];
    for (i, p) in parent.iter_mut().enumerate().skip(1) {
        let back = 1 + rng.next() % (i as u64).min(if rng.next().is_multiple_of(4) { i as u64 } else { 8 });
        *p = (i as u64 - back) as u32;
    }
    let mut kids: Vec<Vec<u32>> = vec![Vec::new(); n];
    for i in 1..n {
        kids[parent[i] as usize].push(i as u32);
    }
    let mut p = Program { threads: (0..n).map(|i| ThreadPlan { host: i as u32 % HOSTS, steps: Vec::new() }).collect() };
    for (t, ks) in kids.iter().enumerate() {
        let steps = &mut p.threads[t].steps;
        let mut open: Vec<u32> = Vec::new();
        let mut next = 0;
        steps.push(Step::Work(rng.around(1_000)));
        while next < ks.len() || !open.is_empty() {
            let fork = next < ks.len() && (open.is_empty() || rng.next().is_multiple_of(2));
            if fork {
                steps.push(Step::Fork { child: ks[next], delay_ns: rng.next() % 200 });
                open.push(ks[next]);
                next += 1;
            } else {
                let k = (rng.next() % open.len() as u64) as usize;
                steps.push(Step::Join { child: open.swap_remove(k) });
            }
            if !rng.next().is_multiple_of(3) {
                steps.push(Step::Work(rng.around(500)));
            }
        }
        steps.push(Step::Work(rng.around(700)));
    }
    p
}

/// Run a program with every thread on its own processor: a join waits until the subthread has ended.
/// Thread durations are computed bottom-up (subthreads have higher indices), then absolute times top-down.
pub fn simulate(p: &Program, source: &str) -> ThreadEvents {
    let n = p.threads.len();
    // Per thread, relative to its own start: its duration and each subthread's start and end.
    let mut duration = vec![0u64; n];
    let mut rel_start = vec![0u64; n];
    for t in (0..n).rev() {
        let mut now = 0u64;
        for s in &p.threads[t].steps {
            match *s {
                Step::Work(w) => now += w,
                Step::Fork { child, delay_ns } => rel_start[child as usize] = now + delay_ns,
                Step::Join { child } => now = now.max(rel_start[child as usize] + duration[child as usize]),
            }
        }
        duration[t] = now;
    }
    let mut abs_start = vec![0u64; n];
    let mut ev = ThreadEvents::new(source);
    let mut hosts_end = vec![0u64; HOSTS as usize + 1];
    for host in 0..=HOSTS {
        if p.threads.iter().any(|t| t.host == host) {
            ev.push(0, host, 0, ThreadEventKind::Init);
        }
    }
    for t in 0..n {
        let base = abs_start[t];
        let host = p.threads[t].host;
        ev.push(base, host, t as u64, ThreadEventKind::Start);
        let mut now = 0u64;
        for s in &p.threads[t].steps {
            match *s {
                Step::Work(w) => now += w,
                Step::Fork { child, delay_ns } => {
                    ev.push(base + now, host, t as u64, ThreadEventKind::Fork { child: child as u64 });
                    abs_start[child as usize] = base + now + delay_ns;
                }
                Step::Join { child } => {
                    ev.push(base + now, host, t as u64, ThreadEventKind::JoinBegin { joined: child as u64 });
                    now = now.max(rel_start[child as usize] + duration[child as usize]);
                    ev.push(base + now, host, t as u64, ThreadEventKind::JoinEnd { joined: child as u64 });
                }
            }
        }
        ev.push(base + now, host, t as u64, ThreadEventKind::End);
        let h = (host as usize).min(hosts_end.len() - 1);
        hosts_end[h] = hosts_end[h].max(base + now);
    }
    for host in 0..=HOSTS {
        if p.threads.iter().any(|t| t.host == host) {
            ev.push(hosts_end[host as usize], host, 0, ThreadEventKind::Exit);
        }
    }
    // In time order, as a runtime's log would be; stable, so each thread's own order is kept.
    ev.events.sort_dyn_by_key(|e| e.time_ns);
    for (i, e) in ev.events.iter_mut().enumerate() {
        e.origin = i as u32 + 1;
    }
    ev
}
