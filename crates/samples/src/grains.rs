//! Generated MIR task-stats profiles (CSV bytes, as the profiler's post-processing writes them) for tests and
//! benchmarks: task-recursive Fibonacci with a depth cutoff (the papers' Figure 1 program) and a seeded
//! random fork-join program of a requested size. Deterministic; they exercise the MIR reader and must not
//! build a grain graph themselves.

use super::rng::XorShift;
use std::fmt::Write;

const HEADER: &str = "\"lineage\",\"task\",\"parent\",\"joins_at\",\"cpu_id\",\"child_number\",\"num_children\",\"exec_cycles\",\"creation_cycles\",\"overhead_cycles\",\"create_instant\",\"wait_instants\",\"outline_function\",\"source_line\",\"tag\",\"work_cycles\"\n";

struct Row {
    lineage: String,
    task: u64,
    parent: u64,
    joins_at: u32,
    cpu: u32,
    child_number: u32,
    num_children: u32,
    exec: u64,
    creation: u64,
    overhead: u64,
    create_instant: u64,
    waits: Vec<u64>,
    outline: &'static str,
    source: &'static str,
}

fn write_rows(rows: &[Row]) -> Vec<u8> {
    let mut s = String::with_capacity(HEADER.len() + rows.len() * 140);
    s.push_str(HEADER);
    for r in rows {
        let waits: Vec<String> =
            std::iter::once("0".to_string()).chain(r.waits.iter().map(|w| w.to_string())).collect();
        let _ = writeln!(
            s,
            "\"{}\",{},{},{},{},{},{},{},{},{},{},\"[{}]\",\"{}\",\"{}\",\"t\",{}",
            r.lineage,
            r.task,
            r.parent,
            r.joins_at,
            r.cpu,
            r.child_number,
            r.num_children,
            r.exec,
            r.creation,
            r.overhead,
            r.create_instant,
            waits.join(";"),
            r.outline,
            r.source,
            r.exec - r.overhead
        );
    }
    s.into_bytes()
}

/// Task-recursive Fibonacci: a root task creating `fib(n)`, each task creating two children (one group,
/// one taskwait) while its depth is below `cutoff`. `2^(cutoff + 1)` tasks: cutoff 12 gives the 8,192 tasks
/// of fib(45) in the papers' Figure 1f (cutoff counts fib levels below the root task). Leaf work follows fib(n - depth).
pub fn fib_profile(n: u32, cutoff: u32, cores: u32) -> Vec<u8> {
    fn fib(k: u32) -> u64 {
        let (mut a, mut b) = (0u64, 1u64);
        for _ in 0..k {
            (a, b) = (b, a.saturating_add(b));
        }
        a
    }
    let cores = cores.max(1);
    let mut rows: Vec<Row> = Vec::new();
    // Exec time of a subtree root at depth d: leaves do fib(n - d) * 3 cycles, inner tasks ~600 cycles of
    // their own work around the fork and the wait.
    let mut next_id = 1u64;
    // (lineage, parent task, child_number, depth, create instant)
    let mut stack = vec![("R-1".to_string(), 0u64, 1u32, 0u32, 0u64)];
    while let Some((lineage, parent, child_number, depth, created)) = stack.pop() {
        let task = next_id;
        next_id += 1;
        let cpu = (task as u32 * 7 + depth) % cores;
        let kids: u32 = if parent == 0 {
            1
        } else if depth < cutoff {
            2
        } else {
            0
        };
        let (exec, waits, overhead) = if kids == 0 {
            (fib(n.saturating_sub(depth)).min(1 << 40) * 3 + 50, vec![], 0)
        } else {
            (600 + 40 * kids as u64, vec![500 + 40 * kids as u64], 300)
        };
        rows.push(Row {
            lineage: lineage.clone(),
            task,
            parent,
            joins_at: 0,
            cpu,
            child_number,
            num_children: kids,
            exec,
            creation: 120 + (task % 17) * 10,
            overhead,
            create_instant: created,
            waits,
            outline: if parent == 0 {
                "4204848"
            } else if child_number == 1 {
                "4206736"
            } else {
                "4206768"
            },
            source: "fib.c:0",
        });
        for c in (1..=kids).rev() {
            stack.push((
                format!("{lineage}-{c}"),
                task,
                c,
                if parent == 0 { depth } else { depth + 1 },
                100 + 40 * c as u64,
            ));
        }
    }
    write_rows(&rows)
}

/// A seeded random fork-join program: grains create 1-3 groups of 1-4 children each, until the grain graph
/// has about `target_nodes` nodes (each grain with `G` groups adds `1 + 4 G` nodes).
pub fn random_profile(target_nodes: usize, seed: u64, cores: u32) -> Vec<u8> {
    let mut rng = XorShift(seed | 1);
    let cores = cores.max(1) as u64;
    let mut rows: Vec<Row> = Vec::new();
    // Breadth-first: decide each grain's groups when it is expanded; children get their create instants.
    let mut nodes = 2usize + 4; // start, end, the root group's fork and join
    let mut queue = std::collections::VecDeque::new();
    queue.push_back(("R-1".to_string(), 0u64, 1u32, 0u32, 0u64));
    let mut next_id = 1u64;
    let outlines = ["4200100", "4200200", "4200300", "4200400"];
    let sources = ["prog.c:10", "prog.c:42", "prog.c:77", "prog.c:90"];
    while let Some((lineage, parent, child_number, joins_at, created)) = queue.pop_front() {
        let task = next_id;
        next_id += 1;
        nodes += 1;
        let grow = nodes + queue.len() < target_nodes;
        let groups = if grow { rng.range(1, 3) as u32 } else { 0 };
        let mut clock = rng.range(200, 5000);
        let mut waits = Vec::new();
        let mut kids_total = 0;
        let mut created_kids = Vec::new();
        for j in 0..groups {
            let kids = rng.range(1, 4) as u32;
            for c in 0..kids {
                created_kids.push((j, kids_total + c + 1, clock + 1 + 150 * c as u64));
            }
            kids_total += kids;
            clock += 150 * kids as u64 + rng.range(100, 3000);
            waits.push(clock);
            clock += rng.range(100, 4000);
            nodes += 4;
        }
        let exec = if groups == 0 { rng.range(500, 80_000) } else { clock };
        let overhead = if groups == 0 { 0 } else { exec / 5 };
        let pick = (rng.next() % 4) as usize;
        rows.push(Row {
            lineage: lineage.clone(),
            task,
            parent,
            joins_at,
            cpu: (rng.next() % cores) as u32,
            child_number,
            num_children: kids_total,
            exec,
            creation: rng.range(100, 2000),
            overhead,
            create_instant: created,
            waits,
            outline: outlines[pick],
            source: sources[pick],
        });
        for (j, c, at) in created_kids {
            queue.push_back((format!("{lineage}-{c}"), task, c, j, at));
        }
    }
    write_rows(&rows)
}
