//! weft's OTF2 reader against the official OTF2 library (PyPI `otf2`): traces written by the official
//! writer covering every record kind weft reads, and the real archives under ../shared/traces/otf2, are read
//! by both and compared record by record (event kinds, times, references per location), then as a model
//! (locations, region names, matched messages, collectives, intervals, threading events).
//!
//! Runs when WEFT_PYTHON names a python with `otf2` importable; otherwise prints SKIPPED. The golden numbers
//! for the real archives are checked always (tests/otf2_golden.rs).

use crate::common;

use crate::common::TempDir;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;
use weft::readers::otf2::definitions::{self, ClockCorrection, LocalDefs};
use weft::readers::otf2::events::{self, Event};
use weft::readers::otf2::{self, read_archive_full, FolderFiles, Otf2Read};

fn python() -> Option<String> {
    match std::env::var("WEFT_PYTHON") {
        Ok(p) if !p.is_empty() => Some(p),
        _ => {
            eprintln!("SKIPPED otf2_oracle: WEFT_PYTHON is not set (point it to a python with the `otf2` package)");
            None
        }
    }
}

fn oracle_script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/otf2_oracle.py")
}

/// The official reader's view: definitions line, then events grouped by location in file order.
struct Dump {
    defs: Value,
    events: BTreeMap<u64, Vec<Value>>,
    total: usize,
}

fn dump(py: &str, anchor: &Path) -> Dump {
    let out = Command::new(py).arg(oracle_script()).arg("dump").arg(anchor).output().expect("run python");
    assert!(out.status.success(), "oracle dump failed: {}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).expect("utf8");
    let mut lines = text.lines();
    let defs: Value = serde_json::from_str(lines.next().expect("definitions line")).expect("json");
    let mut events: BTreeMap<u64, Vec<Value>> = BTreeMap::new();
    let mut total = 0;
    for l in lines {
        let v: Value = serde_json::from_str(l).expect("json");
        events.entry(v["location"].as_u64().expect("location")).or_default().push(v);
        total += 1;
    }
    Dump { defs, events, total }
}

/// The official reader's class name for one of weft's decoded events.
fn kind_name(e: &Event) -> &'static str {
    match e {
        Event::BufferFlush { .. } => "BufferFlush",
        Event::MeasurementOnOff { .. } => "MeasurementOnOff",
        Event::Enter { .. } => "Enter",
        Event::Leave { .. } => "Leave",
        Event::MpiSend { .. } => "MpiSend",
        Event::MpiIsend { .. } => "MpiIsend",
        Event::MpiIsendComplete { .. } => "MpiIsendComplete",
        Event::MpiIrecvRequest { .. } => "MpiIrecvRequest",
        Event::MpiRecv { .. } => "MpiRecv",
        Event::MpiIrecv { .. } => "MpiIrecv",
        Event::MpiRequestTest { .. } => "MpiRequestTest",
        Event::MpiRequestCancelled { .. } => "MpiRequestCancelled",
        Event::MpiCollectiveBegin => "MpiCollectiveBegin",
        Event::MpiCollectiveEnd { .. } => "MpiCollectiveEnd",
        Event::OmpFork { .. } => "OmpFork",
        Event::OmpJoin => "OmpJoin",
        Event::OmpTaskCreate { .. } => "OmpTaskCreate",
        Event::OmpTaskSwitch { .. } => "OmpTaskSwitch",
        Event::OmpTaskComplete { .. } => "OmpTaskComplete",
        Event::ThreadFork { .. } => "ThreadFork",
        Event::ThreadJoin { .. } => "ThreadJoin",
        Event::ThreadTeamBegin { .. } => "ThreadTeamBegin",
        Event::ThreadTeamEnd { .. } => "ThreadTeamEnd",
        Event::ThreadTaskCreate { .. } => "ThreadTaskCreate",
        Event::ThreadTaskSwitch { .. } => "ThreadTaskSwitch",
        Event::ThreadTaskComplete { .. } => "ThreadTaskComplete",
        Event::ThreadCreate { .. } => "ThreadCreate",
        Event::ThreadBegin { .. } => "ThreadBegin",
        Event::ThreadWait { .. } => "ThreadWait",
        Event::ThreadEnd { .. } => "ThreadEnd",
        Event::Metric { .. } => "Metric",
        Event::Other { kind: 83 } => "ProgramBegin",
        Event::Other { kind: 84 } => "ProgramEnd",
        Event::Other { .. } | Event::Unknown { .. } => "other",
    }
}

/// The fields of one event the official reader also reports, as (name, value) pairs.
fn fields(e: &Event) -> Vec<(&'static str, u64)> {
    match *e {
        Event::Enter { region } | Event::Leave { region } => vec![("region", region as u64)],
        Event::MpiSend { receiver, comm, tag, length } => {
            vec![
                ("receiver", receiver as u64),
                ("communicator", comm as u64),
                ("msg_tag", tag as u64),
                ("msg_length", length),
            ]
        }
        Event::MpiIsend { receiver, comm, tag, length, request } => vec![
            ("receiver", receiver as u64),
            ("communicator", comm as u64),
            ("msg_tag", tag as u64),
            ("msg_length", length),
            ("request_id", request),
        ],
        Event::MpiRecv { sender, comm, tag, length } => {
            vec![
                ("sender", sender as u64),
                ("communicator", comm as u64),
                ("msg_tag", tag as u64),
                ("msg_length", length),
            ]
        }
        Event::MpiIrecv { sender, comm, tag, length, request } => vec![
            ("sender", sender as u64),
            ("communicator", comm as u64),
            ("msg_tag", tag as u64),
            ("msg_length", length),
            ("request_id", request),
        ],
        Event::MpiIsendComplete { request }
        | Event::MpiIrecvRequest { request }
        | Event::MpiRequestTest { request }
        | Event::MpiRequestCancelled { request } => vec![("request_id", request)],
        Event::MpiCollectiveEnd { op, comm, root, sent, received } => vec![
            ("collective_op", op as u64),
            ("communicator", comm as u64),
            ("root", root as u64),
            ("size_sent", sent),
            ("size_received", received),
        ],
        Event::ThreadFork { model, requested_threads } => {
            vec![("model", model as u64), ("number_of_requested_threads", requested_threads as u64)]
        }
        Event::ThreadJoin { model } => vec![("model", model as u64)],
        Event::ThreadTeamBegin { team } | Event::ThreadTeamEnd { team } => {
            vec![("thread_team", team as u64)]
        }
        Event::ThreadTaskCreate { team, creating_thread, generation }
        | Event::ThreadTaskSwitch { team, creating_thread, generation }
        | Event::ThreadTaskComplete { team, creating_thread, generation } => vec![
            ("thread_team", team as u64),
            ("creating_thread", creating_thread as u64),
            ("generation_number", generation as u64),
        ],
        Event::ThreadCreate { contingent, sequence }
        | Event::ThreadBegin { contingent, sequence }
        | Event::ThreadWait { contingent, sequence }
        | Event::ThreadEnd { contingent, sequence } => {
            vec![("thread_contingent", contingent as u64), ("sequence_count", sequence)]
        }
        Event::OmpFork { requested_threads } => {
            vec![("number_of_requested_threads", requested_threads as u64)]
        }
        Event::OmpTaskCreate { task } | Event::OmpTaskSwitch { task } | Event::OmpTaskComplete { task } => {
            vec![("task_id", task)]
        }
        Event::MeasurementOnOff { on } => vec![("measurement_mode", if on { 1 } else { 2 })],
        Event::BufferFlush { stop_time } => vec![("stop_time", stop_time)],
        _ => vec![],
    }
}

/// Compare every event record of every location, in file order, with the official reader.
fn compare_records(dir: &Path, read: &Otf2Read, d: &Dump) {
    let anchor = &read.anchor;
    for (&loc, expected) in &d.events {
        let stem = dir.join("traces");
        let local = match std::fs::read(stem.join(format!("{loc}.def"))) {
            Ok(b) => definitions::parse_local(&b, anchor.chunk_size_defs).0,
            Err(_) => LocalDefs::default(),
        };
        let bytes = std::fs::read(stem.join(format!("{loc}.evt"))).expect("event file");
        let mut got: Vec<(u64, Event)> = Vec::new();
        let (stats, err) = events::decode(&bytes, anchor.chunk_size_events, &local, |t, _, e| got.push((t, e)));
        assert!(err.is_none(), "{}: location {loc}: {err:?}", dir.display());
        assert_eq!(stats.events as usize, expected.len(), "{}: location {loc}: event count", dir.display());
        let mut correction = ClockCorrection::new(&local.clock_offsets);
        for (i, ((ticks, ev), want)) in got.iter().zip(expected).enumerate() {
            let at = format!("{}: location {loc}, event {i}", dir.display());
            assert_eq!(kind_name(ev), want["type"].as_str().expect("type"), "{at}: kind");
            // The official reader applies the location's clock offsets (interpolated, extrapolated at the
            // ends); weft must give the same corrected time, to within a tick of rounding.
            let want_t = want["time"].as_u64().expect("time") as i128;
            let ours = correction.corrected(*ticks);
            if local.clock_offsets.is_empty() {
                assert_eq!(ours, want_t, "{at}: time");
            } else {
                assert!((ours - want_t).abs() <= 1, "{at}: time {ours} vs {want_t} (raw {ticks})");
            }
            for (name, value) in fields(ev) {
                assert_eq!(want[name].as_u64(), Some(value), "{at}: field {name} of {}", kind_name(ev));
            }
        }
    }
}

/// Compare the model with what the official reader's records imply.
fn compare_model(dir: &Path, read: &Otf2Read, d: &Dump, well_nested: bool) {
    let t = &read.trace;
    let at = dir.display().to_string();
    assert_eq!(t.event_records as usize, d.total, "{at}: events");
    let locs = d.defs["locations"].as_array().expect("locations");
    assert_eq!(t.locations.len(), locs.len(), "{at}: locations");
    for (i, l) in locs.iter().enumerate() {
        assert_eq!(t.locations.native_id[i] as u64, l["id"].as_u64().unwrap(), "{at}: location {i} id");
        assert_eq!(t.strings.get(t.locations.name[i]), l["name"].as_str().unwrap(), "{at}: location {i} name");
    }
    let regions: Vec<&str> = d.defs["regions"].as_array().unwrap().iter().map(|r| r.as_str().unwrap()).collect();
    let ours: Vec<&str> = (0..regions.len()).map(|r| t.region_name(weft::model::RegionId(r as u32))).collect();
    assert_eq!(ours, regions, "{at}: region names");

    let all: Vec<&Value> = d.events.values().flatten().collect();
    let count = |k: &str| all.iter().filter(|e| e["type"] == k).count();
    // Messages: the multiset of (sender, receiver, tag, length) from the sends the official reader saw,
    // less cancelled requests, equals weft's matched messages.
    let cancelled: Vec<(u64, u64)> = all
        .iter()
        .filter(|e| e["type"] == "MpiRequestCancelled")
        .map(|e| (e["location"].as_u64().unwrap(), e["request_id"].as_u64().unwrap()))
        .collect();
    let mut want: Vec<(u64, u64, u64, u64)> = all
        .iter()
        .filter(|e| e["type"] == "MpiSend" || e["type"] == "MpiIsend")
        .filter(|e| {
            e["type"] != "MpiIsend"
                || !cancelled.contains(&(e["location"].as_u64().unwrap(), e["request_id"].as_u64().unwrap()))
        })
        .map(|e| {
            let g = |k: &str| e[k].as_u64().unwrap_or(u64::MAX);
            (g("location"), g("receiver_location"), g("msg_tag"), g("msg_length"))
        })
        .collect();
    let m = &t.messages;
    let id = |l: weft::model::LocationId| t.locations.native_id[l.index()] as u64;
    let mut got: Vec<(u64, u64, u64, u64)> =
        (0..m.len()).map(|i| (id(m.sender[i]), id(m.receiver[i]), m.tag[i] as u64, m.size_bytes[i])).collect();
    want.sort_unstable();
    got.sort_unstable();
    assert_eq!(got, want, "{at}: matched messages");
    let recvs = count("MpiRecv") + count("MpiIrecv");
    assert_eq!(m.len(), recvs, "{at}: every receive matched");
    // Collectives: one row per MpiCollectiveEnd; operations = per communicator, the most any location did.
    assert_eq!(t.collectives.len(), count("MpiCollectiveEnd"), "{at}: collective rows");
    let mut per: HashMap<(u64, u64), usize> = HashMap::new();
    for e in all.iter().filter(|e| e["type"] == "MpiCollectiveEnd") {
        *per.entry((e["communicator"].as_u64().unwrap(), e["location"].as_u64().unwrap())).or_default() += 1;
    }
    let mut ops: HashMap<u64, usize> = HashMap::new();
    for ((c, _), n) in per {
        let e = ops.entry(c).or_default();
        *e = (*e).max(n);
    }
    assert_eq!(t.collectives.operations(), ops.values().sum::<usize>(), "{at}: collective operations");
    if well_nested {
        assert_eq!(t.intervals.len(), count("Enter"), "{at}: intervals");
        assert_eq!(t.intervals.len(), count("Leave"), "{at}: intervals");
    }
    let threading = [
        "ThreadFork",
        "ThreadJoin",
        "ThreadTeamBegin",
        "ThreadTeamEnd",
        "ThreadTaskCreate",
        "ThreadTaskSwitch",
        "ThreadTaskComplete",
        "ThreadCreate",
        "ThreadBegin",
        "ThreadWait",
        "ThreadEnd",
        "OmpFork",
        "OmpJoin",
        "OmpTaskCreate",
        "OmpTaskSwitch",
        "OmpTaskComplete",
    ];
    let n: usize = threading.iter().map(|k| count(k)).sum();
    assert_eq!(read.thread_events.len(), n, "{at}: threading events");
}

fn read_dir(dir: &Path) -> Otf2Read {
    let files = FolderFiles { root: dir.to_path_buf() };
    let anchor = otf2::find_anchor(&files).expect("anchor");
    read_archive_full(&anchor, &files).unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
}

#[test]
fn generated_traces_match_the_official_reader() {
    let Some(py) = python() else { return };
    let out = TempDir::new("otf2-oracle");
    let st = Command::new(&py).arg(oracle_script()).arg("gen").arg(&out).status().expect("run python");
    assert!(st.success(), "oracle gen failed");
    for name in ["mpi", "threads"] {
        let dir = out.join(name);
        let d = dump(&py, &dir.join("traces.otf2"));
        let read = read_dir(&dir);
        compare_records(&dir, &read, &d);
        compare_model(&dir, &read, &d, true);
        assert_eq!(read.trace.warnings.total(), 0, "{name}: {:?}", read.trace.warnings.examples());
    }
    // Every kind the brief names appears in the generated traces (a test that covers nothing cannot pass).
    let mpi = dump(&py, &out.join("mpi/traces.otf2"));
    let thr = dump(&py, &out.join("threads/traces.otf2"));
    let kinds: Vec<String> =
        mpi.events.values().chain(thr.events.values()).flatten().map(|e| e["type"].to_string()).collect();
    for k in [
        "Enter",
        "Leave",
        "MpiSend",
        "MpiIsend",
        "MpiIsendComplete",
        "MpiIrecvRequest",
        "MpiRecv",
        "MpiIrecv",
        "MpiRequestTest",
        "MpiRequestCancelled",
        "MpiCollectiveBegin",
        "MpiCollectiveEnd",
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
        "OmpTaskCreate",
        "MeasurementOnOff",
        "BufferFlush",
        "Metric",
    ] {
        assert!(kinds.iter().any(|x| x.trim_matches('"') == k), "generated traces lack {k}");
    }
}

#[test]
fn shared_archives_match_the_official_reader() {
    let Some(py) = python() else { return };
    let Some(root) = common::shared_traces("shared_archives_match_the_official_reader") else {
        return;
    };
    let mut n = 0;
    for anchor in
        common::files_under(&root.join("otf2")).into_iter().filter(|p| p.extension().is_some_and(|e| e == "otf2"))
    {
        let dir = anchor.parent().unwrap().to_path_buf();
        let d = dump(&py, &anchor);
        let read = read_dir(&dir);
        compare_records(&dir, &read, &d);
        compare_model(&dir, &read, &d, false);
        n += 1;
    }
    assert!(n >= 1, "no OTF2 archive found under the shared traces");
}
