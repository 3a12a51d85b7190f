//! Corpus proof for the OTF2 and Paraver readers: every trace under ../shared/traces/otf2 and
//! ../shared/traces/paraver, and every generated fixture, is counted per record kind by an independent reader
//! and by weft's model, and the counts must agree.
//!
//! - OTF2: the official OTF2 library (tests/oracle/otf2_oracle.py `counts`, run with WEFT_PYTHON) counts
//!   records by class; weft's side comes from the model (intervals, matched messages, collectives, counter
//!   samples, instants, threading events, and the explicit tasks the thread walk finds complete). Generated
//!   archives: the oracle's `gen` and `threads` sets (MPI, threads, pthreads, nested teams, tasks, fib on 8
//!   threads with and without forks, unmatched records).
//! - Paraver: the .prv's own line grammar (`1:` states, `2:` events with type:value pairs, `3:`
//!   communications, `4:` global communications), parsed here without weft's reader, against the model
//!   (state intervals on state rows, call intervals and counter samples per event type by its .pcf label,
//!   messages).
//!
//! A difference is either fixed or listed in `OTF2_EXPECTED` / `PARAVER_EXPECTED` with its reason; a new
//! difference fails, and so does a listed one that no longer occurs.

use crate::common;

use crate::common::TempDir;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;
use weft::model::{LocationId, Trace};
use weft::readers::otf2::{self, read_archive_full, FolderFiles, Otf2Read, ThreadEventKind};
use weft::readers::otf2_threads::walk::walk;
use weft::samples::paraver::ParaverSample;

/// Known differences: (archive folder name, count, why).
const OTF2_EXPECTED: &[(&str, &str, &str)] = &[(
    "tracer-stencil4d-mpi-32",
    "Leave",
    "rank 0 (traces/0.evt) enters TRACER_WallTime_InLoop twice without leaving it, and its two LEAVEs name \
         outer regions: each closes the innermost open region (warnings misnamed_end), TRACER_Loop and \
         TRACER_WallTime_Loop stay open to the location's last event (unclosed_begin): weft keeps one \
         interval per ENTER",
)];

/// Known differences: (trace name, count, why).
const PARAVER_EXPECTED: &[(&str, &str, &str)] = &[];

fn oracle_script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/otf2_oracle.py")
}

/// One count that differs: (trace, count name, independent reader, weft).
type Diff = (String, String, u64, u64);

/// Compare two count tables; the differences with the expectations table must match exactly.
fn settle(what: &str, diffs: &[Diff], expected: &[(&str, &str, &str)], checked: &BTreeSet<String>) {
    let got: BTreeSet<(String, String)> = diffs.iter().map(|d| (d.0.clone(), d.1.clone())).collect();
    let want: BTreeSet<(String, String)> =
        expected.iter().filter(|e| checked.contains(e.0)).map(|e| (e.0.to_string(), e.1.to_string())).collect();
    let new: Vec<&Diff> = diffs.iter().filter(|d| !want.contains(&(d.0.clone(), d.1.clone()))).collect();
    let gone: Vec<&(String, String)> = want.difference(&got).collect();
    assert!(
        new.is_empty(),
        "{what}: differences not in the expectations table (trace, count, independent, weft): {new:#?}"
    );
    assert!(gone.is_empty(), "{what}: listed differences that no longer occur (remove them): {gone:?}");
}

fn compare(name: &str, ours: &BTreeMap<&'static str, u64>, theirs: &BTreeMap<&'static str, u64>, out: &mut Vec<Diff>) {
    for (k, &v) in theirs {
        let w = ours.get(k).copied().unwrap_or(0);
        if v != w {
            out.push((name.to_string(), k.to_string(), v, w));
        }
    }
}

// ---------------------------------------------------------------------------------------------- OTF2 ---

fn otf2_oracle_counts(py: &str, anchor: &Path) -> HashMap<String, u64> {
    let out = Command::new(py).arg(oracle_script()).arg("counts").arg(anchor).output().expect("run python");
    assert!(
        out.status.success(),
        "oracle counts failed on {}: {}",
        anchor.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    v.as_object().expect("object").iter().map(|(k, n)| (k.clone(), n.as_u64().expect("count"))).collect()
}

const THREAD_KINDS: &[&str] = &[
    "ThreadFork",
    "ThreadJoin",
    "ThreadTeamBegin",
    "ThreadTeamEnd",
    "ThreadCreate",
    "ThreadBegin",
    "ThreadWait",
    "ThreadEnd",
    "ThreadTaskCreate",
    "ThreadTaskSwitch",
    "ThreadTaskComplete",
    "OmpFork",
    "OmpJoin",
    "OmpTaskCreate",
    "OmpTaskSwitch",
    "OmpTaskComplete",
];

fn thread_kind_name(k: &ThreadEventKind) -> &'static str {
    use ThreadEventKind as K;
    match k {
        K::Fork { .. } => "ThreadFork",
        K::Join { .. } => "ThreadJoin",
        K::TeamBegin { .. } => "ThreadTeamBegin",
        K::TeamEnd { .. } => "ThreadTeamEnd",
        K::Create { .. } => "ThreadCreate",
        K::Begin { .. } => "ThreadBegin",
        K::Wait { .. } => "ThreadWait",
        K::End { .. } => "ThreadEnd",
        K::TaskCreate { .. } => "ThreadTaskCreate",
        K::TaskSwitch { .. } => "ThreadTaskSwitch",
        K::TaskComplete { .. } => "ThreadTaskComplete",
        K::OmpFork { .. } => "OmpFork",
        K::OmpJoin => "OmpJoin",
        K::OmpTaskCreate { .. } => "OmpTaskCreate",
        K::OmpTaskSwitch { .. } => "OmpTaskSwitch",
        K::OmpTaskComplete { .. } => "OmpTaskComplete",
    }
}

fn instants_named(t: &Trace, names: &[&str]) -> u64 {
    (0..t.instants.time_ns.len()).filter(|&i| names.contains(&t.region_name(t.instants.region[i]))).count() as u64
}

/// The counts both sides can give: the official reader's records, and what weft's model made of them.
fn otf2_tables(
    o: &HashMap<String, u64>,
    read: &Otf2Read,
) -> (BTreeMap<&'static str, u64>, BTreeMap<&'static str, u64>) {
    let t = &read.trace;
    let g = |k: &str| o.get(k).copied().unwrap_or(0);
    let mut theirs = BTreeMap::new();
    let mut ours = BTreeMap::new();
    let total: u64 = o
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), "MetricValues" | "CancelledIsends" | "TaskNames" | "TasksComplete"))
        .map(|(_, n)| n)
        .sum();
    theirs.insert("records", total);
    ours.insert("records", t.event_records);
    // Each ENTER and each LEAVE is one end of one interval.
    theirs.insert("Enter", g("Enter"));
    ours.insert("Enter", t.intervals.len() as u64);
    theirs.insert("Leave", g("Leave"));
    ours.insert("Leave", t.intervals.len() as u64);
    // Every send (less cancelled ones) and every receive is one end of one matched message.
    theirs.insert("MpiSend+MpiIsend-cancelled", g("MpiSend") + g("MpiIsend") - g("CancelledIsends"));
    ours.insert("MpiSend+MpiIsend-cancelled", t.messages.len() as u64);
    theirs.insert("MpiRecv+MpiIrecv", g("MpiRecv") + g("MpiIrecv"));
    ours.insert("MpiRecv+MpiIrecv", t.messages.len() as u64);
    theirs.insert("MpiCollectiveEnd", g("MpiCollectiveEnd"));
    ours.insert("MpiCollectiveEnd", t.collectives.len() as u64);
    theirs.insert("Metric values", g("MetricValues"));
    ours.insert("Metric values", t.counters.sample_time_ns.len() as u64);
    theirs.insert("MeasurementOnOff", g("MeasurementOnOff"));
    ours.insert("MeasurementOnOff", instants_named(t, &["measurement on", "measurement off"]));
    theirs.insert("BufferFlush", g("BufferFlush"));
    ours.insert("BufferFlush", instants_named(t, &["trace buffer flush"]));
    for k in THREAD_KINDS {
        theirs.insert(k, g(k));
        ours.insert(k, read.thread_events.iter().filter(|e| thread_kind_name(&e.kind) == *k).count() as u64);
    }
    // Explicit tasks: every name created gets a task; every one with a create, a switch and a complete runs
    // to completion in weft's walk (none lost to the order locations are read in).
    let w = walk(t, &read.thread_events);
    let new_tasks = w.tasks.len() as u64;
    if g("ThreadTaskCreate") > 0 {
        theirs.insert("task names created", g("TaskNames"));
        ours.insert("task names created", new_tasks);
        theirs.insert("tasks created, run and completed", g("TasksComplete"));
        ours.insert(
            "tasks created, run and completed",
            w.tasks.iter().filter(|x| x.exec.is_some() && x.complete.is_some()).count() as u64,
        );
    }
    (theirs, ours)
}

fn read_dir(dir: &Path) -> Otf2Read {
    let files = FolderFiles { root: dir.to_path_buf() };
    let anchor = otf2::find_anchor(&files).expect("anchor");
    read_archive_full(&anchor, &files).unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
}

/// Every archive (the folder holding `traces.otf2`) under `root`, named by its path below `root`.
fn archives_under(root: &Path) -> Vec<(String, PathBuf)> {
    common::files_under(root)
        .into_iter()
        .filter(|p| p.file_name().is_some_and(|n| n == "traces.otf2"))
        .map(|p| {
            let dir = p.parent().expect("folder").to_path_buf();
            let name = dir.strip_prefix(root).unwrap_or(&dir).display().to_string();
            (name, dir)
        })
        .collect()
}

#[test]
fn otf2_counts_per_record_kind_match_the_official_library() {
    let Some(py) = std::env::var("WEFT_PYTHON").ok().filter(|p| !p.is_empty()) else {
        eprintln!("SKIPPED otf2 corpus: WEFT_PYTHON is not set (point it to a python with the `otf2` package)");
        return;
    };
    let gen = TempDir::new("corpus-otf2");
    for (cmd, sub) in [("gen", "gen"), ("threads", "threads")] {
        let st = Command::new(&py).arg(oracle_script()).arg(cmd).arg(gen.join(sub)).status().expect("run python");
        assert!(st.success(), "oracle {cmd} failed");
    }
    let mut archives: Vec<(String, PathBuf)> =
        archives_under(&gen).into_iter().map(|(n, d)| (format!("generated/{n}"), d)).collect();
    let generated = archives.len();
    assert!(generated >= 12, "generated archives: {generated}");
    match common::shared_traces("otf2_counts_per_record_kind_match_the_official_library") {
        Some(root) => archives.extend(archives_under(&root.join("otf2"))),
        None => eprintln!("SKIPPED: ../shared/traces absent; checking the {generated} generated archives only"),
    }
    let mut diffs = Vec::new();
    let mut checked = BTreeSet::new();
    let mut seen_kinds: BTreeSet<&'static str> = BTreeSet::new();
    for (name, dir) in &archives {
        let o = otf2_oracle_counts(&py, &dir.join("traces.otf2"));
        let read = read_dir(dir);
        let (theirs, ours) = otf2_tables(&o, &read);
        seen_kinds.extend(theirs.iter().filter(|(_, &n)| n > 0).map(|(k, _)| *k));
        compare(name, &ours, &theirs, &mut diffs);
        checked.insert(name.clone());
    }
    // A corpus that covers nothing cannot pass.
    for k in ["Enter", "MpiRecv+MpiIrecv", "MpiCollectiveEnd", "Metric values", "ThreadTaskSwitch", "ThreadFork"] {
        assert!(seen_kinds.contains(k), "no archive has {k}");
    }
    eprintln!("OTF2 corpus: {} archives, {} differences (all listed)", archives.len(), diffs.len());
    settle("OTF2", &diffs, OTF2_EXPECTED, &checked);
}

// ------------------------------------------------------------------------------------------- Paraver ---

/// Counts of a .prv by its line grammar: `1:cpu:appl:task:thread:begin:end:state`,
/// `2:cpu:appl:task:thread:time:type:value[:type:value]...`, `3:` (communication, 15 fields), `4:` (global
/// communication); the header line and `c:` communicator lines are skipped.
#[derive(Default, Debug)]
struct PrvCounts {
    states: u64,
    /// States that last (end > begin) and are not state 0 (idle, which weft leaves out).
    state_intervals: u64,
    event_records: u64,
    /// Per event type: (pairs, pairs with a value other than 0).
    pairs: BTreeMap<u64, (u64, u64)>,
    comms: u64,
    globals: u64,
}

fn prv_counts(prv: &str) -> PrvCounts {
    let mut c = PrvCounts::default();
    for line in prv.lines().skip(1) {
        let f: Vec<&str> = line.trim_end().split(':').collect();
        let n = |i: usize| f.get(i).and_then(|x| x.parse::<u64>().ok());
        match f[0] {
            "1" => {
                c.states += 1;
                if let (Some(b), Some(e), Some(s)) = (n(5), n(6), n(7)) {
                    if e > b && s != 0 {
                        c.state_intervals += 1;
                    }
                }
            }
            "2" => {
                c.event_records += 1;
                for p in f[6..].chunks(2) {
                    if let [ty, value] = p {
                        let e = c.pairs.entry(ty.parse().expect("event type")).or_default();
                        e.0 += 1;
                        e.1 += (value.parse::<i64>().expect("event value") != 0) as u64;
                    }
                }
            }
            "3" => c.comms += 1,
            "4" => c.globals += 1,
            _ => {}
        }
    }
    c
}

/// Event type labels of a .pcf: `EVENT_TYPE` blocks of `gradient type label` lines.
fn pcf_labels(pcf: &str) -> HashMap<u64, String> {
    let mut out = HashMap::new();
    let mut in_types = false;
    for line in pcf.lines() {
        let l = line.trim();
        if l == "EVENT_TYPE" {
            in_types = true;
            continue;
        }
        if l.is_empty() || l == "VALUES" || l.chars().next().is_some_and(|c| c.is_ascii_uppercase()) {
            in_types = l == "EVENT_TYPE";
            continue;
        }
        if in_types {
            let mut it = l.split_whitespace();
            if let (Some(_gradient), Some(ty)) = (it.next(), it.next().and_then(|t| t.parse::<u64>().ok())) {
                out.insert(ty, it.collect::<Vec<_>>().join(" "));
            }
        }
    }
    out
}

fn paraver_tables(prv: &str, pcf: &str, t: &Trace) -> (BTreeMap<&'static str, u64>, BTreeMap<&'static str, u64>) {
    let c = prv_counts(prv);
    let labels = pcf_labels(pcf);
    let mut theirs = BTreeMap::new();
    let mut ours = BTreeMap::new();
    theirs.insert("2 event records", c.event_records);
    ours.insert("2 event records", t.event_records);
    // States become intervals on the threads' state rows (locations with negative native ids).
    let on_state_rows = (0..t.locations.len())
        .filter(|&l| t.locations.native_id[l] < 0)
        .map(|l| t.intervals_of(LocationId(l as u32)).len() as u64)
        .sum();
    theirs.insert("1 states (lasting, not idle)", c.state_intervals);
    ours.insert("1 states (lasting, not idle)", on_state_rows);
    theirs.insert("3 communications", c.comms);
    ours.insert("3 communications", t.messages.len() as u64);
    // Per event type: a call type's every non-zero value opens one interval (its 0 or the next value closes
    // it); a counter type's every value is one sample. Which one weft made is read off the model.
    let category_intervals = |label: &str| {
        (0..t.intervals.len()).filter(|&i| t.str(t.regions.category[t.intervals.region[i].index()]) == label).count()
            as u64
    };
    let series_samples = |label: &str| {
        let thread_series = format!("{label} (thread ");
        (0..t.counters.sample_series.len())
            .filter(|&i| {
                let n = t.str(t.counters.series_name[t.counters.sample_series[i] as usize]);
                n == label || n.starts_with(&thread_series)
            })
            .count() as u64
    };
    let mut per_type: Vec<(String, u64, u64)> = Vec::new();
    for (&ty, &(pairs, nonzero)) in &c.pairs {
        let label = labels.get(&ty).cloned().unwrap_or_else(|| format!("Event type {ty}"));
        let (calls, samples) = (category_intervals(&label), series_samples(&label));
        let (want, got) = if samples > 0 { (pairs, samples) } else { (nonzero, calls) };
        per_type.push((format!("2 event type {ty} ({label})"), want, got));
    }
    // Keys must be 'static for the table: leak the few per-type names (a test process, a handful of types).
    for (k, want, got) in per_type {
        let k: &'static str = Box::leak(k.into_boxed_str());
        theirs.insert(k, want);
        ours.insert(k, got);
    }
    (theirs, ours)
}

#[test]
fn paraver_counts_per_record_type_match_the_line_grammar() {
    let mut diffs = Vec::new();
    let mut checked = BTreeSet::new();
    let mut traces: Vec<(String, String, String, Option<String>)> = Vec::new();
    let sample = ParaverSample::default().generate();
    let text = |b: &[u8]| String::from_utf8(b.to_vec()).expect("utf8");
    traces.push(("generated/sample".into(), text(&sample.prv), text(&sample.pcf), Some(text(&sample.row))));
    match common::shared_traces("paraver_counts_per_record_type_match_the_line_grammar") {
        Some(root) => {
            for prv in common::files_under(&root.join("paraver"))
                .into_iter()
                .filter(|p| p.extension().is_some_and(|e| e == "prv"))
            {
                let pcf = std::fs::read_to_string(prv.with_extension("pcf")).unwrap_or_default();
                let row = std::fs::read_to_string(prv.with_extension("row")).ok();
                let name = prv.strip_prefix(&root).unwrap_or(&prv).display().to_string();
                traces.push((name, std::fs::read_to_string(&prv).expect("prv"), pcf, row));
            }
        }
        None => eprintln!("SKIPPED: ../shared/traces absent; checking the generated Paraver sample only"),
    }
    let mut types = 0;
    for (name, prv, pcf, row) in &traces {
        let pcf_bytes = (!pcf.is_empty()).then_some(pcf.as_bytes());
        let t = weft::readers::paraver::read(name, prv.as_bytes(), pcf_bytes, row.as_deref().map(str::as_bytes))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let (theirs, ours) = paraver_tables(prv, pcf, &t);
        types += theirs.keys().filter(|k| k.starts_with("2 event type")).count();
        compare(name, &ours, &theirs, &mut diffs);
        checked.insert(name.clone());
    }
    assert!(types >= 3, "event types compared: {types}");
    eprintln!("Paraver corpus: {} traces, {} differences (all listed)", traces.len(), diffs.len());
    settle("Paraver", &diffs, PARAVER_EXPECTED, &checked);
}
