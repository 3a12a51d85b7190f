//! Scaling tests: every reader and every analysis on adversarial shapes (ends that match nothing, async slices
//! that never end, many names, many threads, deep nesting, wide fan-outs) must stay linear, or n log n: the
//! time at 2n over the time at n stays under 3 (a quadratic path gives about 4, a linear one 2).
//!
//! Inputs are built outside the timed part and sized so that one run takes tens to hundreds of ms in the debug
//! build (opt-level 1). Each time is the minimum of a few runs; the cases run one at a time (a lock), and a
//! case whose ratio is too high is checked on the next doubling (4n against 2n) and measured again (up to three
//! times) before it fails, because the machine running the tests may be busy and a cache step shows in one
//! doubling only. A quadratic path fails every one. Sizes sit past the point where the working
//! set leaves the CPU caches, which alone can make a linear pass look superlinear between small sizes.

use std::sync::Mutex;
use std::time::Instant;

use weft::analyses::aggregate::{Aggregation, Method};
use weft::analyses::busy::BusyDefinition;
use weft::analyses::execgraph::build;
use weft::analyses::grains::{GrainAnalysis, Thresholds};
use weft::analyses::moments::moments;
use weft::analyses::particles::{EventSelection, ParticleEvents};
use weft::analyses::summary::summarize;
use weft::layouts::aggregate::{AggregateParams, AggregateView};
use weft::layouts::execgraph::{layout as exec_layout, Scale};
use weft::layouts::grains::{layout as grain_layout, LayoutParams};
use weft::layouts::timeline::{TimelineLayout, TimelineMetrics};
use weft::model::grains::Grains;
use weft::model::Trace;
use weft::readers::chrome::ChromeStreamReader;
use weft::readers::otf2::encoding::write as w;
use weft::readers::otf2::MemoryFiles;
use weft::readers::{execgraph_text, graphml, mir, open, paraver, Source};
use weft::samples::execgraph::{simulate, Program, Step, ThreadPlan};
use weft::samples::otf2 as otf2_sample;
use weft::scene::timeline::{region_colors, TimelineScene, TimelineView};

static SERIAL: Mutex<()> = Mutex::new(());

// A quadratic path gives about 4, a linear one 2. 3, not 2.5: on the CI-sized VM the allocator alone
// (glibc's malloc_consolidate walking the freed small blocks of 40,000-160,000 one-slice async tracks) put
// the never-ended async cases at 2.4-3.06 on three tries, at this commit and at the one before it
// (BENCHMARKS.md "CI time (session 6)"), so 2.5 failed a path that is not quadratic.
const LIMIT: f64 = 3.0;

/// The fastest of `runs` runs of `f`, in seconds.
fn best(runs: usize, f: &mut dyn FnMut()) -> f64 {
    (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

/// Assert that `run` on `make(2n)` takes less than LIMIT (3) times as long as on `make(n)`. When it does not, the next
/// doubling (`make(4n)` against `make(2n)`) is measured too, and one doubling under LIMIT passes: a step where the
/// working set leaves a CPU cache shows in one doubling only, a quadratic path (about 4) in both.
fn scales<I>(case: &str, n: usize, make: impl Fn(usize) -> I, run: impl Fn(&I)) {
    scales_within(case, n, LIMIT, make, run)
}

/// [`scales`] with a ratio `limit` of its own.
fn scales_within<I>(case: &str, n: usize, limit: f64, make: impl Fn(usize) -> I, run: impl Fn(&I)) {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let (small, large) = (make(n), make(2 * n));
    run(&small); // warm caches and the allocator
    let mut larger: Option<I> = None;
    let mut seen = Vec::new();
    for _ in 0..3 {
        let t1 = best(3, &mut || run(&small));
        let t2 = best(3, &mut || run(&large));
        let ratio = t2 / t1.max(1e-6);
        eprintln!("{case}: n={n} {:.1} ms, 2n {:.1} ms, ratio {ratio:.2}", t1 * 1e3, t2 * 1e3);
        if ratio < limit {
            return;
        }
        let larger = larger.get_or_insert_with(|| make(4 * n));
        let t4 = best(3, &mut || run(larger));
        let next = t4 / t2.max(1e-6);
        eprintln!("{case}: 4n {:.1} ms, ratio to 2n {next:.2}", t4 * 1e3);
        if next < limit {
            return;
        }
        seen.push((ratio, next));
    }
    panic!("{case}: time(2n)/time(n) and time(4n)/time(2n) = {seen:?}, neither under {limit} (n = {n})");
}

// ---- Chrome JSON ----

fn chrome(events: impl Iterator<Item = String>) -> Vec<u8> {
    let mut s = String::from("[");
    for (i, e) in events.enumerate() {
        if i > 0 {
            s.push(',');
        }
        s.push_str(&e);
    }
    s.push(']');
    s.into_bytes()
}

fn read_chrome(b: &[u8]) -> Trace {
    let mut r = ChromeStreamReader::new("scaling.json");
    r.feed(b).expect("feeds");
    r.finish().expect("reads")
}

/// Deep B nesting, then as many ends that name no open slice.
fn unmatched_ends(n: usize) -> Vec<u8> {
    let begins = (0..n / 2).map(|i| format!(r#"{{"ph":"B","name":"a","pid":1,"tid":1,"ts":{i}}}"#));
    let ends = (0..n / 2).map(|i| format!(r#"{{"ph":"E","name":"zz","pid":1,"tid":1,"ts":{}}}"#, n + i));
    chrome(begins.chain(ends))
}

/// Ends naming no open slice and begins, all at one timestamp (the group matcher's pending ends).
fn unmatched_ends_one_timestamp(n: usize) -> Vec<u8> {
    let ends = (0..n / 2).map(|_| r#"{"ph":"E","name":"zz","pid":1,"tid":1,"ts":5}"#.to_string());
    let begins = (0..n / 2).map(|_| r#"{"ph":"B","name":"a","pid":1,"tid":1,"ts":5}"#.to_string());
    chrome(ends.chain(begins))
}

/// Nestable async slices that never end, each with its own id: every one needs its own track.
fn never_ended_async(n: usize, ph: &str) -> Vec<u8> {
    chrome((0..n).map(|i| format!(r#"{{"ph":"{ph}","cat":"c","name":"job","id":{i},"pid":1,"tid":1,"ts":{i}}}"#)))
}

/// One async id: deep nesting, then ends that name nothing open.
fn async_unmatched_ends(n: usize) -> Vec<u8> {
    let begins = (0..n / 2).map(|i| format!(r#"{{"ph":"b","cat":"c","name":"a","id":1,"pid":1,"ts":{i}}}"#));
    let ends = (0..n / 2).map(|i| format!(r#"{{"ph":"e","cat":"c","name":"zz","id":1,"pid":1,"ts":{}}}"#, n + i));
    chrome(begins.chain(ends))
}

fn deep_nesting(n: usize) -> Vec<u8> {
    let begins = (0..n / 2).map(|i| format!(r#"{{"ph":"B","name":"f{}","pid":1,"tid":1,"ts":{i}}}"#, i % 7));
    let ends = (0..n / 2).map(|i| format!(r#"{{"ph":"E","pid":1,"tid":1,"ts":{}}}"#, n + i));
    chrome(begins.chain(ends))
}

fn many_threads(n: usize) -> Vec<u8> {
    chrome((0..n).map(|i| format!(r#"{{"ph":"X","name":"w","pid":{},"tid":{i},"ts":{i},"dur":2}}"#, i % 3)))
}

fn many_names(n: usize) -> Vec<u8> {
    chrome((0..n).map(|i| format!(r#"{{"ph":"X","name":"n{i}","cat":"c{i}","pid":1,"tid":1,"ts":{i},"dur":1}}"#)))
}

/// Flows whose ends never come, and sends to many threads (messages for the particle index).
fn many_flows(n: usize) -> Vec<u8> {
    chrome((0..n).flat_map(|i| {
        [
            format!(r#"{{"ph":"X","name":"MPI_Send","pid":1,"tid":{},"ts":{},"dur":1}}"#, i % 64, i * 2),
            format!(r#"{{"ph":"s","name":"f","id":{i},"pid":1,"tid":{},"ts":{}}}"#, i % 64, i * 2),
            format!(r#"{{"ph":"f","name":"f","id":{},"pid":1,"tid":{},"ts":{}}}"#, i / 2 * 2, (i + 1) % 64, i * 2 + 1),
        ]
    }))
}

#[test]
fn chrome_reader_scales() {
    scales("chrome: unmatched named ends on a deep stack", 100_000, unmatched_ends, |b| drop(read_chrome(b)));
    scales("chrome: unmatched ends waiting at one timestamp", 100_000, unmatched_ends_one_timestamp, |b| {
        drop(read_chrome(b))
    });
    scales("chrome: never-ended b", 40_000, |n| never_ended_async(n, "b"), |b| drop(read_chrome(b)));
    scales("chrome: S without F", 40_000, |n| never_ended_async(n, "S"), |b| drop(read_chrome(b)));
    scales("chrome: async unmatched named ends", 40_000, async_unmatched_ends, |b| drop(read_chrome(b)));
    scales("chrome: deep nesting", 80_000, deep_nesting, |b| drop(read_chrome(b)));
    scales("chrome: many threads", 20_000, many_threads, |b| drop(read_chrome(b)));
    scales("chrome: many names", 20_000, many_names, |b| drop(read_chrome(b)));
    scales("chrome: many flows", 20_000, many_flows, |b| drop(read_chrome(b)));
    // Chunked: the walker holds only the current event's tail between chunks, and never rescans it (here a
    // long top-level key, a long run of whitespace, and a long top-level value before "traceEvents").
    scales(
        "chrome: long top-level key, spaces and value, 1-KiB chunks",
        4 << 20,
        |n| {
            let (k, ws, v) = ("k".repeat(n / 4), " ".repeat(n / 4), "x".repeat(n / 2));
            let ev = r#"{"ph":"X","pid":1,"tid":1,"ts":1,"dur":1}"#;
            format!("{{\"{k}\"{ws}:\"{v}\",{ws}\"traceEvents\":[{ev}]}}").into_bytes()
        },
        |b| {
            let mut r = ChromeStreamReader::new("chunks.json");
            for c in b.chunks(1024) {
                r.feed(c).expect("feeds");
            }
            drop(r.finish().expect("reads"));
        },
    );
}

// ---- Analyses of a trace ----

fn analyse(t: &Trace) {
    drop(summarize(t, 10));
    drop(moments(t, &BusyDefinition::Any, None));
    drop(moments(t, &BusyDefinition::Compute, None));
    drop(ParticleEvents::build(t, &EventSelection::Communication));
    let lay = TimelineLayout::new(t, TimelineMetrics::default());
    let colors = region_colors(t);
    let scene = TimelineScene { trace: t, layout: &lay, colors: &colors };
    let mut view = TimelineView::fit(t, 1200.0, 800.0);
    drop(scene.build(&view, None));
    view.scroll_by(lay.height / 2.0, &lay);
    drop(scene.build(&view, None));
}

#[test]
fn trace_analyses_scale() {
    for (case, n, make) in [
        ("analyses: deep nesting", 400_000, deep_nesting as fn(usize) -> Vec<u8>),
        ("analyses: many threads", 20_000, many_threads),
        ("analyses: many names", 200_000, many_names),
        ("analyses: many flows", 100_000, many_flows),
        ("analyses: never-ended async tracks", 10_000, |n| never_ended_async(n, "b")),
    ] {
        scales(case, n, |n| read_chrome(&make(n)), analyse);
    }
}

// ---- Paraver ----

fn prv(threads: usize, body: &str) -> Vec<u8> {
    format!("#Paraver (01/01/2026 at 00:00):1000000000_ns:1({threads}):1:1({threads}:1)\n{body}").into_bytes()
}

#[test]
fn paraver_scales() {
    let read = |b: &Vec<u8>| drop(paraver::read("scaling.prv", b, None, None).expect("reads"));
    // An MPI call, user functions nested deep inside it (entered, never left), then ends of a type with
    // nothing open, and global communications that must find the MPI call under the user functions.
    scales(
        "paraver: deep calls, unmatched ends, global ops",
        100_000,
        |n| {
            let mut s = String::from("2:1:1:1:1:1:50000002:10\n");
            for i in 0..n / 2 {
                s.push_str(&format!("2:1:1:1:1:{}:60000019:{}\n", i + 2, i % 5 + 1));
            }
            for i in 0..n / 2 {
                if i % 2 == 0 {
                    s.push_str(&format!("2:1:1:1:1:{}:50000001:0\n", n + i));
                } else {
                    s.push_str(&format!("4:1:1:1:1:{}:0:8:8:10\n", n + i));
                }
            }
            prv(1, &s)
        },
        read,
    );
    scales(
        "paraver: many threads",
        40_000,
        |n| {
            let s: String = (0..n).map(|i| format!("1:1:1:1:{}:{}:{}:1\n", i + 1, i, i + 5)).collect();
            prv(n, &s)
        },
        read,
    );
    scales(
        "paraver: many event types",
        60_000,
        |n| {
            let s: String = (0..n).map(|i| format!("2:1:1:1:1:{}:{}:7\n", i + 1, 70_000_000 + i)).collect();
            prv(1, &s)
        },
        read,
    );
    scales(
        "paraver: communications with distinct tags",
        300_000,
        |n| {
            let s: String =
                (0..n).map(|i| format!("3:1:1:1:1:{i}:{i}:1:1:1:2:{}:{}:64:{}\n", i + 5, i + 6, i)).collect();
            prv(2, &s)
        },
        read,
    );
}

// ---- OTF2 ----

/// An archive of two locations whose event files hold `body(loc)` (records after a chunk header).
fn otf2_archive(n: usize) -> MemoryFiles {
    let mut m = MemoryFiles::new();
    m.insert("traces.otf2", otf2_sample::anchor(false, 2));
    m.insert("traces.def", otf2_sample::global_defs(false));
    for loc in 0..2u32 {
        let mut f = Vec::new();
        w::chunk_header(&mut f, false, 1, n as u64);
        for i in 0..n {
            f.push(5);
            w::u64_full(&mut f, 10_000 + i as u64, false);
            if loc == 0 {
                // Enter main, never left: nesting n deep.
                f.push(12);
                w::u32(&mut f, 0, false);
            } else if i % 2 == 0 {
                // Leave with nothing entered.
                f.push(13);
                w::u32(&mut f, 1, false);
            } else {
                // A send nobody receives.
                let mut d = Vec::new();
                w::u32(&mut d, 0, false);
                w::u32(&mut d, 0, false);
                w::u32(&mut d, i as u32, false);
                w::u64(&mut d, 64, false);
                w::record(&mut f, 14, &d, false);
            }
        }
        f.push(2);
        m.insert(&format!("traces/{loc}.evt"), f);
    }
    m
}

#[test]
fn otf2_scales() {
    scales("otf2: deep enters, unmatched leaves and sends", 100_000, otf2_archive, |m| {
        drop(open("scaling", Source::Files(m)).and_then(|i| i.into_trace("scaling")).expect("reads"))
    });
}

// ---- Grain graphs: MIR CSV, GraphML, and their analyses ----

const MIR_HEADER: &str = "\"lineage\",\"task\",\"parent\",\"joins_at\",\"cpu_id\",\"child_number\",\"num_children\",\"exec_cycles\",\"creation_cycles\",\"overhead_cycles\",\"create_instant\",\"wait_instants\",\"outline_function\",\"source_line\",\"tag\",\"work_cycles\"\n";

/// A MIR profile: a chain `n` deep (each task creates one child and waits for it) or one task creating
/// `n` children in one group.
fn mir_profile(n: usize, deep: bool) -> Vec<u8> {
    let mut s = String::from(MIR_HEADER);
    s.push_str(&format!("\"L1\",1,0,0,0,1,1,{},10,5,0,\"[0;50]\",\"f\",\"a.c:1\",\"t\",100\n", 100 + n));
    for t in 2..=n as u64 {
        let (parent, child_number, kids) = if deep { (t - 1, 1, u32::from(t < n as u64)) } else { (1, t - 1, 0) };
        let waits = if kids > 0 { "[0;50]" } else { "[0]" };
        s.push_str(&format!(
            "\"L{t}\",{t},{parent},0,{},{child_number},{kids},100,10,5,{},\"{waits}\",\"f\",\"a.c:1\",\"t\",95\n",
            t % 8,
            20 + t % 3
        ));
    }
    s.into_bytes()
}

fn analyse_grains(input: &Grains) {
    let a = GrainAnalysis::new(input, Thresholds::paper()).expect("acyclic");
    drop(grain_layout(&a.graph, &LayoutParams::default()));
    for method in [Method::Reduction, Method::Family] {
        let agg = Aggregation::new(&a, method);
        drop(agg.theta(&a));
        drop(AggregateView::new(&agg.tree, &a.graph, AggregateParams::default()));
    }
}

#[test]
fn mir_reader_and_grain_analyses_scale() {
    for deep in [true, false] {
        let shape = if deep { "deep chain" } else { "wide fan-out" };
        scales(
            &format!("mir: {shape}"),
            20_000,
            |n| mir_profile(n, deep),
            |b| drop(mir::read("s.csv", b).expect("reads")),
        );
        scales(
            &format!("grains + layout + aggregation: {shape}"),
            if deep { 5_000 } else { 20_000 },
            |n| Grains::Profile(mir::read("s.csv", &mir_profile(n, deep)).expect("reads")),
            analyse_grains,
        );
    }
}

/// GraphML: a chain of nodes, each with its own undeclared data key (names the reader must index).
fn graphml_doc(n: usize, distinct_keys: bool) -> Vec<u8> {
    let mut s = String::from("<?xml version=\"1.0\"?>\n<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\"><key id=\"t\" for=\"node\" attr.name=\"type\" attr.type=\"string\"/><graph edgedefault=\"directed\">");
    for i in 0..n {
        let kind = if i + 1 == n { "join" } else { "task" };
        let key = if distinct_keys { format!("k{i}") } else { "w".to_string() };
        s.push_str(&format!("<node id=\"n{i}\"><data key=\"t\">{kind}</data><data key=\"{key}\">{i}</data></node>"));
        if i > 0 {
            s.push_str(&format!("<edge source=\"n{}\" target=\"n{i}\"/>", i - 1));
        }
    }
    s.push_str("</graph></graphml>");
    s.into_bytes()
}

#[test]
fn graphml_scales() {
    scales(
        "graphml: undeclared keys, one per node",
        20_000,
        |n| graphml_doc(n, true),
        |b| drop(graphml::read("s.graphml", b).expect("reads")),
    );
    scales(
        "graphml: chain",
        20_000,
        |n| graphml_doc(n, false),
        |b| drop(graphml::read("s.graphml", b).expect("reads")),
    );
    scales(
        "grains from graphml: chain",
        20_000,
        |n| Grains::Graph(graphml::read_grains("s.graphml", &graphml_doc(n, false)).expect("reads")),
        |g| drop(GrainAnalysis::new(g, Thresholds::paper()).expect("acyclic")),
    );
}

#[test]
fn graphml_keeps_more_than_65535_attribute_names_apart() {
    let g = graphml::read("many.graphml", &graphml_doc(70_000, true)).expect("reads");
    assert_eq!(g.nodes.names.len(), 70_002, "70,000 keys, type, and the empty name interned first");
    for i in [0usize, 65_535, 65_536, 69_999] {
        assert_eq!(g.nodes.get(i, &format!("k{i}")), Some(i.to_string().as_str()), "node {i}");
    }
}

// ---- Execution graphs: text reader, build, layout ----

/// Thread 0 forks `n` threads and joins them all (wide), or each thread forks the next and joins it (deep).
fn program(n: usize, deep: bool) -> Program {
    let mut p = Program { threads: vec![ThreadPlan::default(); n + 1] };
    for c in 1..=n as u32 {
        let parent = if deep { c as usize - 1 } else { 0 };
        p.threads[parent].steps.push(Step::Work(3));
        p.threads[parent].steps.push(Step::Fork { child: c, delay_ns: 2 });
        p.threads[c as usize].steps.push(Step::Work(10 + c as u64 % 7));
    }
    for c in 1..=n as u32 {
        let parent = if deep { c as usize - 1 } else { 0 };
        p.threads[parent].steps.push(Step::Join { child: c });
    }
    p
}

#[test]
fn execgraph_scales() {
    for deep in [true, false] {
        let shape = if deep { "deep fork chain" } else { "fork all, join all" };
        scales(
            &format!("execgraph text: {shape}"),
            20_000,
            |n| execgraph_text::write(&simulate(&program(n, deep), "s"), execgraph_text::TimeUnit::Ns).into_bytes(),
            |b| drop(execgraph_text::parse("s.txt", b).expect("parses")),
        );
        scales(
            &format!("execgraph build + layout: {shape}"),
            20_000,
            |n| simulate(&program(n, deep), "s"),
            |ev| {
                let g = build(ev).expect("builds");
                drop(exec_layout(&g, Scale::True));
                drop(exec_layout(&g, Scale::MinEdge { min_ns: 100 }));
            },
        );
    }
}

// ---- The hostile shapes of issue 51: Nsight SQLite, HPCToolkit and SLOG-2 (ratio per doubling under 2.5) ----

/// The issue's bar for these shapes: a quadratic path gives about 4 per doubling, a linear one 2.
const HOSTILE_LIMIT: f64 = 2.5;

fn read_bytes(name: &str, b: &[u8]) -> Trace {
    open(name, Source::Bytes(b)).and_then(|i| i.into_trace(name)).expect("reads")
}

#[test]
fn nsys_many_columns_scale() {
    // n columns in the CREATE TABLE text and n rows: a lookup by name that passes every column for every row
    // was n^2 (0.32 -> 17.0 s from 1.9 to 15.4 MB).
    scales_within(
        "nsys: many columns, a lookup by name per row",
        6_000,
        HOSTILE_LIMIT,
        |n| weft::samples::nsys::many_columns(n, n),
        |b| drop(read_bytes("scaling.sqlite", b)),
    );
}

#[test]
fn hpctoolkit_deep_chain_scales() {
    use weft::samples::hpctoolkit_gen::{deep_chain, Alternate};
    // A chain n deep and 2n samples alternating between its two leaves: rebuilding each sample's path from the
    // root was depth x samples (0.22 -> 16.9 s from 0.5 to 4 MB).
    scales_within(
        "hpctoolkit: deep chain, samples alternating between sibling leaves",
        20_000,
        HOSTILE_LIMIT,
        |n| deep_chain(n, 2 * n as u64, Alternate::SiblingLeaves),
        |db| {
            let f = |i: usize| (db.files[i].0, db.files[i].1.as_slice());
            drop(weft::readers::hpctoolkit::read("db", f(0), Some(f(1)), Some(f(3))).expect("reads"))
        },
    );
}

#[test]
fn slog2_overlapping_frames_scale() {
    // A directory frame at every drawable of one run: each frame read again made n(n+1)/2 intervals.
    scales_within(
        "slog2: directory frames overlapping one run of drawables",
        20_000,
        HOSTILE_LIMIT,
        weft::samples::mpe::slog2_overlapping_frames,
        |b| drop(weft::readers::mpe::slog2::read("scaling.slog2", b).expect("reads")),
    );
}

/// The figures of BENCHMARKS.md (session 35): each hostile shape's read at n, 2n and 4n, the best of three.
/// `cargo test --features mpi --test scaling -- --ignored --nocapture hostile_shapes_times`.
#[test]
#[ignore]
fn hostile_shapes_times() {
    use weft::samples::hpctoolkit_gen::{deep_chain, Alternate};
    fn times<I>(case: &str, n: usize, make: impl Fn(usize) -> I, run: impl Fn(&I)) {
        let t: Vec<String> = [1, 2, 4]
            .iter()
            .map(|k| {
                let input = make(k * n);
                format!("{:.0} ms", best(3, &mut || run(&input)) * 1e3)
            })
            .collect();
        eprintln!("{case}: n = {n}: {}", t.join(", "));
    }
    times(
        "nsys many columns",
        12_000,
        |n| weft::samples::nsys::many_columns(n, n),
        |b| drop(read_bytes("t.sqlite", b)),
    );
    times(
        "hpctoolkit sibling leaves",
        6_000,
        |n| deep_chain(n, 2 * n as u64, Alternate::SiblingLeaves),
        |db| {
            let f = |i: usize| (db.files[i].0, db.files[i].1.as_slice());
            drop(weft::readers::hpctoolkit::read("db", f(0), Some(f(1)), Some(f(3))).expect("reads"))
        },
    );
    times("slog2 overlapping frames", 1_000, weft::samples::mpe::slog2_overlapping_frames, |b| {
        drop(weft::readers::mpe::slog2::read("t.slog2", b).expect("reads"))
    });
}
