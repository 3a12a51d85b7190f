//! OTF2 threading events to execution graphs and grain graphs (docs/otf2-threads.md), on programs written
//! by the official OTF2 library (tests/oracle/otf2_oracle.py `threads`): pthreads, nested OpenMP teams,
//! OpenMP tasks (fib), and unmatched events. Each generator records what the mapping must give (node kinds
//! and times per thread, tasks with their parents, runs and creation times), computed from what it wrote;
//! weft's graphs are compared with that. Runs when WEFT_PYTHON names a python with `otf2`; otherwise the
//! generated-trace tests print SKIPPED. The real MPI-only traces are checked always (when present).

use crate::common;

use common::read::{
    read_execgraph, read_execgraph_files, read_execgraph_path, read_grains, read_grains_path, read_path,
};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use weft::analyses::execgraph::{build, ExecGraph, NodeKind};
use weft::analyses::grains::{EdgeKind, GrainAnalysis, Thresholds, TimeUnit, NONE};
use weft::model::grains::Grains;
use weft::model::{Trace, WarningKind};
use weft::readers::otf2::{FolderFiles, MemoryFiles};

/// The generated programs, once per test binary; None (SKIPPED) without WEFT_PYTHON. Shared by the tests of
/// this file, so not a `TempDir` (a static is never dropped): one folder in cargo's scratch space for tests,
/// `target/tmp`, made afresh by each run.
fn programs(test: &str) -> Option<&'static Path> {
    static DIR: OnceLock<Option<PathBuf>> = OnceLock::new();
    let dir = DIR.get_or_init(|| {
        let py = std::env::var("WEFT_PYTHON").ok().filter(|p| !p.is_empty())?;
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("otf2-threads");
        let _ = std::fs::remove_dir_all(&dir);
        let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/otf2_oracle.py");
        let out = Command::new(py).arg(script).arg("threads").arg(&dir).output().expect("run python");
        assert!(out.status.success(), "oracle threads failed: {}", String::from_utf8_lossy(&out.stderr));
        Some(dir)
    });
    if dir.is_none() {
        eprintln!("SKIPPED {test}: WEFT_PYTHON is not set (point it to a python with the `otf2` package)");
    }
    dir.as_deref()
}

fn anchor(dir: &Path, name: &str) -> PathBuf {
    dir.join(name).join("trace/traces.otf2")
}

fn expect(dir: &Path, name: &str) -> Value {
    let text = std::fs::read_to_string(dir.join(name).join("expect.json")).expect("expect.json");
    serde_json::from_str(&text).expect("json")
}

fn kind_name(k: NodeKind) -> &'static str {
    match k {
        NodeKind::Start => "start",
        NodeKind::End => "end",
        NodeKind::Fork => "fork",
        NodeKind::JoinBegin => "b-join",
        NodeKind::JoinEnd => "a-join",
        NodeKind::Join => "join",
    }
}

/// Per thread, keyed `<OTF2 location id>/<instance>` as the generator names them: its nodes as
/// (kind, time relative to the trace's first event).
fn nodes_by_thread(g: &ExecGraph, trace: &Trace) -> BTreeMap<String, Vec<(String, u64)>> {
    let mut out = BTreeMap::new();
    for th in &g.threads {
        if th.id >> 63 == 1 {
            continue; // tasks are checked separately
        }
        let loc = (th.id >> 32) as usize;
        let key = format!("{}/{}", trace.locations.native_id[loc], th.id & 0xFFFF_FFFF);
        let nodes =
            th.nodes().map(|n| (kind_name(g.nodes[n].kind).to_string(), g.nodes[n].time_ns + g.origin_ns)).collect();
        out.insert(key, nodes);
    }
    out
}

fn expected_nodes(e: &Value) -> BTreeMap<String, Vec<(String, u64)>> {
    let origin = e["origin"].as_u64().expect("origin");
    e["threads"]
        .as_object()
        .expect("threads")
        .iter()
        .map(|(k, v)| {
            let nodes = v
                .as_array()
                .expect("nodes")
                .iter()
                .map(|n| (n[0].as_str().expect("kind").to_string(), n[1].as_u64().expect("time") - origin))
                .collect();
            (k.clone(), nodes)
        })
        .collect()
}

/// The graph of a generated program, with the trace it came from and the warnings.
fn graph_of(dir: &Path, name: &str) -> (ExecGraph, Trace, weft::model::Warnings) {
    let a = anchor(dir, name);
    let (events, warnings) = read_execgraph_path(&a).expect("reads");
    let g = build(&events).expect("builds");
    let trace = read_path(&a).expect("trace reads");
    (g, trace, warnings)
}

fn check_nodes_against_program(name: &str) {
    let Some(dir) = programs(name) else { return };
    let (g, trace, warnings) = graph_of(dir, name);
    assert!(warnings.is_empty(), "{name}: unexpected warnings {:?}", warnings.examples());
    let want = expected_nodes(&expect(dir, name));
    let got = nodes_by_thread(&g, &trace);
    assert_eq!(got.len(), want.len(), "{name}: thread count");
    assert_eq!(g.threads.len(), want.len(), "{name}: thread count");
    for (k, w) in &want {
        assert_eq!(got.get(k), Some(w), "{name}: thread {k}: nodes (kind, y) against the program");
    }
    let nodes: usize = want.values().map(Vec::len).sum();
    assert_eq!(g.nodes.len(), nodes, "{name}: node count");
}

#[test]
fn pthreads_give_the_programs_threads_nodes_and_times() {
    check_nodes_against_program("pthreads");
}

#[test]
fn nested_openmp_teams_give_the_programs_threads_nodes_and_times() {
    check_nodes_against_program("omp_nested");
}

#[test]
fn mpi_openmp_ranks_are_nodes_each_with_its_master() {
    let name = "hybrid";
    check_nodes_against_program(name);
    let Some(dir) = programs("mpi_openmp_ranks_are_nodes_each_with_its_master") else { return };
    let (g, trace, _) = graph_of(dir, name);
    let e = expect(dir, name);
    for th in &g.threads {
        let key = format!("{}/{}", trace.locations.native_id[(th.id >> 32) as usize], th.id & 0xFFFF_FFFF);
        assert_eq!(Some(th.host as u64), e["nodes"][&key].as_u64(), "thread {key}: node");
    }
    assert_eq!(g.roots().len(), 2, "a master per rank");
}

#[test]
fn the_reader_oracles_thread_archive_uses_the_otf2_1_2_records_only() {
    // tests/oracle/otf2_oracle.py `gen` writes every thread record twice (THREAD_* and the legacy OMP_*):
    // one process, two repetitions of a team of four each running a task, then three pthreads.
    let Some(dir) = programs("the_reader_oracles_thread_archive_uses_the_otf2_1_2_records_only") else { return };
    let py = std::env::var("WEFT_PYTHON").expect("set when programs() ran");
    let out = dir.join("oracle-gen");
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/otf2_oracle.py");
    let run = Command::new(py).arg(script).arg("gen").arg(&out).output().expect("run python");
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let (events, warnings) = read_execgraph_path(&out.join("threads/traces.otf2")).expect("reads");
    let g = build(&events).expect("builds");
    // The master, 2 x 3 team members, 2 x 4 tasks, 3 pthreads.
    assert_eq!(g.threads.len(), 1 + 6 + 8 + 3, "warnings {:?}", warnings.examples());
    let (Grains::Profile(p), _) = read_grains_path(&out.join("threads/traces.otf2")).expect("reads") else {
        panic!("a profile")
    };
    assert_eq!(p.len(), 8, "one grain per task, not two");
}

#[test]
fn nested_team_members_hang_off_the_thread_that_forked_them() {
    let Some(dir) = programs("nested_team_members_hang_off_the_thread_that_forked_them") else { return };
    let (g, trace, _) = graph_of(dir, "omp_nested");
    // Inner members (locations 3 and 4) are children of outer members (1 and 2), who are the root's.
    for th in &g.threads {
        let loc = trace.locations.native_id[(th.id >> 32) as usize];
        let parent =
            (th.parent != NONE).then(|| trace.locations.native_id[(g.threads[th.parent as usize].id >> 32) as usize]);
        let want = match loc {
            0 => None,
            1 | 2 => Some(0),
            3 => Some(1),
            4 => Some(2),
            other => panic!("unexpected location {other}"),
        };
        assert_eq!(parent, want, "thread {}", th.id);
    }
}

#[test]
fn openmp_tasks_are_subthreads_from_first_switch_to_completion() {
    let Some(dir) = programs("openmp_tasks_are_subthreads_from_first_switch_to_completion") else { return };
    let (g, _trace, warnings) = graph_of(dir, "omp_tasks");
    assert!(warnings.is_empty(), "unexpected warnings {:?}", warnings.examples());
    let e = expect(dir, "omp_tasks");
    let origin = e["origin"].as_u64().expect("origin");
    let tasks = e["tasks"].as_array().expect("tasks");
    // The master, the team member, and every task.
    assert_eq!(g.threads.len(), 2 + tasks.len());
    let mut want: Vec<(u64, u64)> = tasks
        .iter()
        .map(|t| (t["first_in"].as_u64().expect("first_in") - origin, t["complete"].as_u64().expect("c") - origin))
        .collect();
    let mut got: Vec<(u64, u64)> = g
        .threads
        .iter()
        .filter(|t| t.id >> 63 == 1)
        .map(|t| (g.nodes[t.start() as usize].time_ns + g.origin_ns, g.nodes[t.end() as usize].time_ns + g.origin_ns))
        .collect();
    want.sort_unstable();
    got.sort_unstable();
    assert_eq!(got, want, "task threads: (first switch-in, completion)");
    // Every task is joined (taskwait or the barrier), each forked by its creator.
    for th in g.threads.iter().filter(|t| t.id >> 63 == 1) {
        assert_ne!(th.parent, NONE, "task {} has a parent", th.id);
        assert_ne!(th.join_node, NONE, "task {} is joined", th.id);
    }
}

#[test]
fn openmp_tasks_give_the_programs_grain_graph() {
    let Some(dir) = programs("openmp_tasks_give_the_programs_grain_graph") else { return };
    let (input, warnings) = read_grains_path(&anchor(dir, "omp_tasks")).expect("reads");
    assert!(warnings.is_empty(), "unexpected warnings {:?}", warnings.examples());
    let Grains::Profile(p) = &input else { panic!("an OTF2 trace gives a profile") };
    let a = GrainAnalysis::new(&input, Thresholds::paper()).expect("analysis");
    let g = &a.graph;
    let e = expect(dir, "omp_tasks");
    let tasks = e["tasks"].as_array().expect("tasks");
    assert_eq!(g.unit, TimeUnit::Nanoseconds);
    assert_eq!(g.grains(), tasks.len(), "grain count");
    assert_eq!(g.count_edges(EdgeKind::Create), tasks.len(), "one create edge per grain");
    // Sync edges: per group of siblings, its children and (unless the root's) the waiting parent.
    let mut kids: HashMap<Option<u64>, usize> = HashMap::new();
    for t in tasks {
        *kids.entry(t["parent"].as_u64()).or_default() += 1;
    }
    let syncs: usize = kids.iter().map(|(parent, n)| n + parent.is_some() as usize).sum();
    assert_eq!(g.count_edges(EdgeKind::Sync), syncs, "sync edges");
    // Grains are in creation order: the generator's task i is grain i.
    for (i, t) in tasks.iter().enumerate() {
        assert_eq!(g.grain_exec[i], t["exec"].as_u64().expect("exec"), "grain {i}: execution time");
        let parent = t["parent"].as_u64().map_or(NONE, |x| x as u32);
        assert_eq!(g.grain_parent[i], parent, "grain {i}: parent");
        assert_eq!(a.metrics.creation[i], Some(t["creation"].as_f64().expect("creation")), "grain {i}: creation");
        assert_eq!(p.waits(i).len(), t["waits"].as_array().expect("waits").len(), "grain {i}: taskwaits");
        assert_eq!(g.string(g.grain_source[i]), t["source"].as_str().expect("source"), "grain {i}: source location");
    }
    let work: u64 = tasks.iter().map(|t| t["exec"].as_u64().expect("exec")).sum();
    assert_eq!(g.node_exec.iter().sum::<u64>(), work, "fragments add up to the tasks' execution");
    assert!(a.critical.length > 0 && a.critical.length <= work, "critical path within the work");
}

#[test]
fn unmatched_events_give_warnings_and_a_graph_of_what_pairs() {
    let Some(dir) = programs("unmatched_events_give_warnings_and_a_graph_of_what_pairs") else { return };
    let (g, _, warnings) = graph_of(dir, "bad");
    let e = expect(dir, "bad");
    assert_eq!(g.threads.len() as u64, e["threads"].as_u64().expect("threads"));
    assert!(warnings.total() >= e["warnings_at_least"].as_u64().expect("n"), "warnings: {:?}", warnings.examples());
    assert!(warnings.count(WarningKind::UnmatchedFlow) >= 3, "create, begin and wait unmatched");
    assert!(warnings.count(WarningKind::UnmatchedEnd) >= 2, "team end and task completion unmatched");
    // No tasks ran: the grain graph says so rather than drawing nothing.
    let err = read_grains_path(&anchor(dir, "bad")).expect_err("no task ran");
    assert!(err.to_string().contains("task"), "{err}");
}

#[test]
fn a_dropped_file_set_reads_like_the_folder() {
    let Some(dir) = programs("a_dropped_file_set_reads_like_the_folder") else { return };
    let root = dir.join("pthreads/trace");
    let mut files = MemoryFiles::new();
    for f in common::files_under(&root) {
        let rel = f.strip_prefix(&root).expect("under root").to_string_lossy().replace('\\', "/");
        files.insert(&rel, std::fs::read(&f).expect("read"));
    }
    let (from_set, _) = read_execgraph_files("pthreads", &files).expect("set reads");
    let (from_path, _) = read_execgraph_path(&anchor(dir, "pthreads")).expect("path reads");
    assert_eq!(from_set.events, from_path.events);
    // The folder itself opens too.
    let _ = FolderFiles { root: root.clone() };
    let (from_folder, _) = read_execgraph_path(&root).expect("folder reads");
    assert_eq!(from_folder.events, from_path.events);
}

/// The archive folder of a generated program as a tar (optionally gzipped), in memory.
fn tar_of(root: &Path, gzip: bool) -> Vec<u8> {
    let mut b = tar::Builder::new(Vec::new());
    for f in common::files_under(root) {
        let rel = f.strip_prefix(root).expect("under root");
        b.append_path_with_name(&f, Path::new("trace").join(rel)).expect("tar entry");
    }
    let bytes = b.into_inner().expect("tar");
    if !gzip {
        return bytes;
    }
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut gz, &bytes).expect("gzip");
    gz.finish().expect("gzip")
}

#[test]
fn archives_in_memory_read_like_the_folder() {
    let Some(dir) = programs("archives_in_memory_read_like_the_folder") else { return };
    let (from_path, _) = read_execgraph_path(&anchor(dir, "omp_nested")).expect("path reads");
    for gzip in [false, true] {
        let bytes = tar_of(&dir.join("omp_nested/trace"), gzip);
        let events = read_execgraph("nested.tar", &bytes).expect("tar reads");
        assert_eq!(events.events, from_path.events, "gzip {gzip}");
    }
    let (Grains::Profile(want), _) = read_grains_path(&anchor(dir, "omp_tasks")).expect("path reads") else {
        panic!("a profile")
    };
    let bytes = tar_of(&dir.join("omp_tasks/trace"), true);
    let Grains::Profile(got) = read_grains("tasks.tar.gz", &bytes).expect("tar.gz reads") else { panic!("a profile") };
    assert_eq!((got.task, got.parent, got.exec), (want.task, want.parent, want.exec));
    // The anchor alone is not the trace.
    let alone = std::fs::read(anchor(dir, "pthreads")).expect("anchor");
    let err = read_execgraph("traces.otf2", &alone).expect_err("an anchor alone");
    assert!(err.to_string().contains("open its folder"), "{err}");
}

#[test]
fn mpi_only_traces_say_they_have_no_thread_events() {
    let Some(shared) = common::shared_traces("mpi_only_traces_say_they_have_no_thread_events") else { return };
    let dir = shared.join("otf2");
    let Ok(rd) = std::fs::read_dir(&dir) else {
        eprintln!("SKIPPED mpi_only_traces_say_they_have_no_thread_events: no {}", dir.display());
        return;
    };
    let mut seen = 0;
    for e in rd.flatten().filter(|e| e.path().is_dir()) {
        let p = e.path();
        let err = read_execgraph_path(&p).expect_err("an MPI-only trace is no execution graph");
        let msg = err.to_string();
        assert!(msg.contains("without thread events"), "{}: {msg}", p.display());
        let err = read_grains_path(&p).expect_err("an MPI-only trace is no grain graph");
        assert!(err.to_string().contains("task events"), "{}: {err}", p.display());
        seen += 1;
    }
    assert!(seen > 0, "no OTF2 archives under {}", dir.display());
}

/// A tiny seeded xorshift, for the damaged-events property below.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

#[test]
fn damaged_thread_events_give_warnings_or_errors_never_panics() {
    use weft::readers::otf2::read_path_full;
    use weft::readers::otf2_threads::{execgraph_events, grain_profile};
    let Some(dir) = programs("damaged_thread_events_give_warnings_or_errors_never_panics") else { return };
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    let (mut built, mut refused) = (0, 0);
    for name in ["pthreads", "omp_nested", "omp_tasks", "hybrid"] {
        let clean = read_path_full(&anchor(dir, name)).expect("otf2").expect("reads");
        for round in 0..60 {
            let mut read = clean.clone();
            let ev = &mut read.thread_events;
            // Drop, duplicate, or move in time a few events (per location order is kept by the walk's input).
            for _ in 0..1 + round % 4 {
                let i = rng.below(ev.len());
                match rng.below(3) {
                    0 if !ev.is_empty() => {
                        ev.remove(i);
                    }
                    1 if !ev.is_empty() => {
                        let e = ev[i];
                        ev.insert(i, e);
                    }
                    _ if !ev.is_empty() => ev[i].time_ns = rng.next() % 10_000,
                    _ => {}
                }
            }
            match execgraph_events(&read, name) {
                Ok((events, _)) => match build(&events) {
                    Ok(g) => {
                        assert!(!g.threads.is_empty());
                        built += 1;
                    }
                    Err(e) => {
                        assert!(!e.to_string().is_empty());
                        eprintln!("refused: {e}");
                        refused += 1;
                    }
                },
                Err(e) => panic!("{name} round {round}: the trace still has thread events: {e}"),
            }
            if let Ok((p, _)) = grain_profile(&read, name) {
                let _ = GrainAnalysis::new(&Grains::Profile(p), Thresholds::paper()).expect("grain graph");
            }
        }
    }
    eprintln!("damaged events: {built} graphs built, {refused} refused by the graph builder");
    assert!(built > 0);
}

/// Task-parallel fib on 8 threads written as the OpenMP runtime schedules it (tasks created on one thread,
/// run and completed on another), with and without THREAD_FORK/JOIN and implicit-task switches: every task
/// is one grain with its run time and parent, nothing is reported lost, and the execution graph is one
/// tree on the trace's own time axis.
fn check_fib(name: &str) {
    let Some(dir) = programs(name) else { return };
    let e = expect(dir, name);
    let tasks = e["tasks"].as_array().expect("tasks");
    let origin = e["origin"].as_u64().expect("origin");
    let span = e["last"].as_u64().expect("last") - origin;
    assert!(tasks.len() > 400, "{name}: the program has {} tasks", tasks.len());
    assert!(e["created_elsewhere"].as_u64().expect("moved") > 50, "{name}: tasks move between threads");

    // Grain graph: exactly the program's tasks, each with its parent and run time.
    let (input, warnings) = read_grains_path(&anchor(dir, name)).expect("reads");
    assert!(warnings.is_empty(), "{name}: unexpected warnings {:?}", warnings.examples());
    let Grains::Profile(p) = &input else { panic!("an OTF2 trace gives a profile") };
    assert_eq!(p.task.len(), tasks.len(), "{name}: one grain per task");
    // A task is known by (created, creating thread); rows are in creation order, ties by creating thread
    // (locations are in that order). Compared as (row, exec, parent's row).
    let key = |t: &Value| (t["created"].as_u64().expect("created"), t["creator"].as_u64().expect("creator"));
    let mut order: Vec<usize> = (0..tasks.len()).collect();
    order.sort_by_key(|&i| key(&tasks[i]));
    let mut row = vec![0u64; tasks.len()];
    for (r, &i) in order.iter().enumerate() {
        row[i] = r as u64;
    }
    let mut want: Vec<(u64, u64, Option<u64>)> = (0..tasks.len())
        .map(|i| {
            let t = &tasks[i];
            (row[i], t["exec"].as_u64().expect("exec"), t["parent"].as_u64().map(|q| row[q as usize]))
        })
        .collect();
    let a = GrainAnalysis::new(&input, Thresholds::paper()).expect("analysis");
    let g = &a.graph;
    assert_eq!(g.grains(), tasks.len(), "{name}: grains");
    let mut got: Vec<(u64, u64, Option<u64>)> = (0..g.grains())
        .map(|i| (i as u64, g.grain_exec[i], (g.grain_parent[i] != NONE).then(|| g.grain_parent[i] as u64)))
        .collect();
    want.sort_unstable();
    got.sort_unstable();
    assert_eq!(got, want, "{name}: grains (row, execution time, parent row)");

    // Execution graph: the master, 7 team members and every task; one tree; times within the trace.
    let (g, trace, warnings) = graph_of(dir, name);
    assert!(warnings.is_empty(), "{name}: unexpected warnings {:?}", warnings.examples());
    let threads = e["threads_n"].as_u64().expect("threads") as usize;
    assert_eq!(g.threads.len(), threads + tasks.len(), "{name}: threads");
    let roots = g.threads.iter().filter(|t| t.parent == NONE).count();
    assert_eq!(roots, 1, "{name}: one connected graph (a single root)");
    for th in &g.threads[1..] {
        assert_ne!(th.join_node, NONE, "{name}: thread {} is joined", th.id);
    }
    let last = g.nodes.iter().map(|n| n.time_ns).max().unwrap_or(0);
    // Graph times are the trace's (relative to its first event, like the model's).
    let end = g.origin_ns + last;
    assert!(end <= trace.span_ns, "{name}: axis ends at {end} ns, the trace at {} ns", trace.span_ns);
    assert!(end + 200 >= trace.span_ns, "{name}: axis ends at {end} ns, near the trace's end {}", trace.span_ns);
    assert!(g.critical_ns <= span, "{name}: critical path {} ns within the {span} ns the program ran", g.critical_ns);
    assert!(g.critical_ns > 0);
}

#[test]
fn fib_tasks_on_8_threads_with_fork_and_implicit_switches() {
    check_fib("fib8_fork_implicit");
}

#[test]
fn fib_tasks_on_8_threads_with_fork_without_implicit_switches() {
    check_fib("fib8_fork");
}

#[test]
fn fib_tasks_on_8_threads_without_fork_with_implicit_switches() {
    check_fib("fib8_nofork_implicit");
}

#[test]
fn fib_tasks_on_8_threads_without_fork_or_implicit_switches() {
    check_fib("fib8_nofork");
}

#[test]
fn unmatched_task_records_give_warnings_and_the_grains_that_ran() {
    let Some(dir) = programs("unmatched_task_records_give_warnings_and_the_grains_that_ran") else { return };
    let e = expect(dir, "tasks_bad");
    let (input, warnings) = read_grains_path(&anchor(dir, "tasks_bad")).expect("reads");
    let Grains::Profile(p) = &input else { panic!("an OTF2 trace gives a profile") };
    assert_eq!(p.task.len() as u64, e["grains"].as_u64().expect("grains"), "tasks that ran");
    assert!(warnings.total() >= e["warnings_at_least"].as_u64().expect("n"), "warnings: {:?}", warnings.examples());
    let text: Vec<&str> = warnings.examples().iter().map(|w| w.message.as_str()).collect();
    assert!(text.iter().any(|m| m.contains("never run")), "{text:?}");
    assert!(text.iter().any(|m| m.contains("never created")), "{text:?}");
    assert!(text.iter().any(|m| m.contains("never completes")), "{text:?}");
}
