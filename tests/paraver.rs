//! Paraver reader: golden counts on the real sample (expected numbers derived here by a plain line pass over
//! the .prv and .pcf, not by the reader), small written fixtures for each record kind, time units, .pcf and
//! .row names, warnings, collectives, `weft info --json`. The never-panic sweeps and gzip are in
//! `paraver_robust.rs`.

use crate::common;

use crate::common::TempDir;
use common::read::{read_bytes, read_path};
use std::collections::{BTreeMap, HashMap, HashSet};
use weft::model::{LocationId, Paradigm, RegionRole, Trace, WarningKind};
use weft::readers::paraver::{read, read_with, Options, ParaverError};
use weft::readers::ReadError;
use weft::samples::paraver::ParaverSample;

const SAMPLE: &str = "paraver/paraver-kernel-qsort_beo3/qsort_beo3";

fn sample(test: &str) -> Option<(Vec<u8>, Vec<u8>, std::path::PathBuf)> {
    let dir = common::shared_traces(test)?;
    let prv_path = dir.join(format!("{SAMPLE}.prv"));
    let prv = std::fs::read(&prv_path).ok()?;
    let pcf = std::fs::read(dir.join(format!("{SAMPLE}.pcf"))).ok()?;
    Some((prv, pcf, prv_path))
}

/// Region name -> interval count, on locations whose name ends (or not) with " (states)".
fn counts_by_region(t: &Trace, states: bool) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for i in 0..t.intervals.len() {
        let l = t.intervals.location[i];
        if t.location_name(l).ends_with(" (states)") == states {
            *out.entry(t.region_name(t.intervals.region[i]).to_string()).or_default() += 1;
        }
    }
    out
}

/// `STATES` of a .pcf, read the simplest way.
fn pcf_states(pcf: &str) -> HashMap<u64, String> {
    let mut out = HashMap::new();
    let mut on = false;
    for l in pcf.lines() {
        if l.trim() == "STATES" {
            on = true;
        } else if l.trim().is_empty() {
            on = false;
        } else if on {
            let (n, name) = l.trim().split_once(char::is_whitespace).unwrap();
            out.insert(n.parse().unwrap(), name.trim().to_string());
        }
    }
    out
}

#[test]
fn sample_golden_counts() {
    let Some((prv, pcf, path)) = sample("sample_golden_counts") else {
        return;
    };
    let text = String::from_utf8(prv.clone()).unwrap();
    let pcf_text = String::from_utf8(pcf).unwrap();
    let trace = read_path(&path).unwrap();

    // The expectations, by a plain pass over the lines.
    let header = text.lines().next().unwrap();
    let list = &header[header.rfind('(').unwrap() + 1..header.rfind(')').unwrap()];
    let tasks = list.split(',').count();
    let threads: usize = list.split(',').map(|t| t.split(':').next().unwrap().parse::<usize>().unwrap()).sum();
    let mut kinds: HashMap<&str, usize> = HashMap::new();
    let mut per_state: HashMap<u64, usize> = HashMap::new();
    let mut nonzero: HashMap<(u64, i64), usize> = HashMap::new();
    let mut counter_series: HashSet<(String, u64)> = HashSet::new();
    let (mut min_t, mut max_t) = (u64::MAX, 0u64);
    let mut bytes_sent = 0u64;
    let mut global_per_thread_comm: HashMap<(String, String), usize> = HashMap::new();
    let call_types = [40000001u64, 50000001, 50000002, 50000003, 60000019];
    for l in text.lines().skip(1) {
        let f: Vec<&str> = l.split(':').collect();
        *kinds.entry(f[0]).or_default() += 1;
        match f[0] {
            "1" => {
                let (b, e, s): (u64, u64, u64) = (f[5].parse().unwrap(), f[6].parse().unwrap(), f[7].parse().unwrap());
                if b != e && s != 0 {
                    *per_state.entry(s).or_default() += 1;
                }
                min_t = min_t.min(b);
                max_t = max_t.max(e);
            }
            "2" => {
                let t: u64 = f[5].parse().unwrap();
                min_t = min_t.min(t);
                max_t = max_t.max(t);
                for p in f[6..].chunks(2) {
                    let (ty, v): (u64, i64) = (p[0].parse().unwrap(), p[1].parse().unwrap());
                    if call_types.contains(&ty) {
                        if v != 0 {
                            *nonzero.entry((ty, v)).or_default() += 1;
                        }
                    } else {
                        counter_series.insert((f[3].to_string(), ty));
                    }
                }
            }
            "3" => bytes_sent += f[13].parse::<u64>().unwrap(),
            "4" => *global_per_thread_comm.entry((f[3].to_string(), f[6].to_string())).or_default() += 1,
            _ => {}
        }
    }
    let states = pcf_states(&pcf_text);

    assert_eq!(trace.processes.len(), tasks);
    assert_eq!(tasks, 4);
    // Each thread has a call-stack location and a state track.
    assert_eq!(trace.locations.len(), 2 * threads);
    assert_eq!(trace.event_records, kinds["2"] as u64);
    assert_eq!(trace.messages.len(), kinds["3"]);
    assert_eq!(trace.messages.size_bytes.iter().sum::<u64>(), bytes_sent);
    let by_state = counts_by_region(&trace, true);
    // State 15 is not in this .pcf: Extrae's standard table calls it "Others".
    let name = |s: &u64| {
        states.get(s).cloned().unwrap_or_else(|| if *s == 15 { "Others".into() } else { format!("State {s}") })
    };
    let expected: BTreeMap<String, usize> = per_state.iter().map(|(s, n)| (name(s), *n)).collect();
    assert_eq!(by_state, expected);
    assert_eq!(by_state["Running"], 101);
    // Every non-zero value of a call type is one interval, named by its .pcf label.
    let calls = counts_by_region(&trace, false);
    assert_eq!(calls.values().sum::<usize>(), nonzero.values().sum::<usize>());
    assert_eq!(calls["MPI_Send"], nonzero[&(50000001, 1)]);
    assert_eq!(calls["MPI_Recv"], nonzero[&(50000001, 2)]);
    assert_eq!(calls["Application"], nonzero[&(40000001, 1)]);
    assert_eq!(trace.counters.series_name.len(), counter_series.len());
    // The header's time has no unit suffix: microseconds.
    assert_eq!(trace.span_ns, (max_t - min_t) * 1000);
    assert_eq!(trace.warnings.total(), 0, "{:?}", trace.warnings.examples());
    // Global communication records: the k-th record of each member of a communicator is one operation.
    let mut per_comm: HashMap<&str, usize> = HashMap::new();
    for ((_, comm), n) in &global_per_thread_comm {
        let m = per_comm.entry(comm.as_str()).or_default();
        *m = (*m).max(*n);
    }
    assert_eq!(trace.collectives.operations(), per_comm.values().sum::<usize>());
    assert_eq!(trace.collectives.len(), kinds["4"]);
    assert_eq!(trace.collectives.operations(), 15);
    for i in 0..trace.collectives.len() {
        assert!(trace.collectives.start_ns[i] <= trace.collectives.end_ns[i]);
        assert!(trace.region_name(trace.collectives.region[i]).starts_with("MPI_"));
    }
    let names: HashSet<&str> = (0..trace.processes.len()).map(|p| trace.str(trace.processes.name[p])).collect();
    assert!(names.contains("Task 1") && names.contains("Task 4"));
}

#[test]
fn info_json_on_sample() {
    let Some((prv, _, path)) = sample("info_json_on_sample") else {
        return;
    };
    let text = String::from_utf8(prv).unwrap();
    let out =
        std::process::Command::new(env!("CARGO_BIN_EXE_weft")).args(["info", "--json"]).arg(&path).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["format"], "paraver");
    assert_eq!(v["processes"], 4);
    assert_eq!(v["locations"], 8);
    assert_eq!(v["events"], text.lines().filter(|l| l.starts_with("2:")).count() as u64);
    assert_eq!(v["messages"], text.lines().filter(|l| l.starts_with("3:")).count() as u64);
    assert_eq!(v["warnings"], 0);
    assert_eq!(v["collectives"], 15);
    let top: Vec<&str> = v["top_regions"].as_array().unwrap().iter().map(|r| r["name"].as_str().unwrap()).collect();
    assert!(top.contains(&"MPI_Send") && top.contains(&"Running"), "{top:?}");
}

const HEAD_NS: &str = "#Paraver (01/01/26 at 10:00):1000_ns:1(4):1:2(2:1,1:1),1\nc:1:1:2:1:2\n";

fn read_str(prv: &str, pcf: Option<&str>, row: Option<&str>) -> Trace {
    read("t.prv", prv.as_bytes(), pcf.map(str::as_bytes), row.map(str::as_bytes)).unwrap()
}

fn loc(t: &Trace, name: &str) -> LocationId {
    LocationId((0..t.locations.len() as u32).find(|&l| t.location_name(LocationId(l)) == name).unwrap_or_else(|| {
        panic!(
            "no location {name}: {:?}",
            (0..t.locations.len() as u32).map(|l| t.location_name(LocationId(l))).collect::<Vec<_>>()
        )
    }))
}

#[test]
fn state_records_become_state_track_intervals() {
    let t = read_str(
        &format!("{HEAD_NS}1:1:1:1:1:0:100:1\n1:1:1:1:1:100:150:3\n1:2:1:1:2:0:50:0\n1:3:1:2:1:20:20:1\n"),
        None,
        None,
    );
    let l = loc(&t, "THREAD 1.1.1 (states)");
    let r = t.intervals_of(l);
    assert_eq!(r.len(), 2);
    assert_eq!(t.region_name(t.intervals.region[r.start]), "Running");
    assert_eq!(t.intervals.dur_ns[r.start], 100);
    assert_eq!(t.region_name(t.intervals.region[r.start + 1]), "Waiting a message");
    assert_eq!(t.regions.paradigm[t.intervals.region[r.start + 1].index()], Paradigm::Mpi);
    // Idle is a gap by default, zero-length states are dropped; threads without records still appear.
    assert_eq!(t.intervals.len(), 2);
    assert_eq!(t.processes.len(), 2);
    assert!(t.locations.len() >= 3);
    let (kept, stats) =
        read_with("t.prv", format!("{HEAD_NS}1:2:1:1:2:0:50:0\n").as_bytes(), None, None, &Options { keep_idle: true })
            .unwrap();
    assert_eq!(kept.intervals.len(), 1);
    assert_eq!(kept.region_name(kept.intervals.region[0]), "Idle");
    assert_eq!(stats.state_records, 1);
}

#[test]
fn event_records_nest_calls_and_feed_counters() {
    let prv = format!(
        "{HEAD_NS}2:1:1:1:1:10:60000019:1:42000050:500\n2:1:1:1:1:20:60000019:2\n2:1:1:1:1:30:50000002:10\n\
         2:1:1:1:1:40:50000002:0\n2:1:1:1:1:50:60000019:0\n2:1:1:1:1:60:60000019:0:42000050:700\n"
    );
    let pcf = "EVENT_TYPE\n0 60000019 User function\nVALUES\n0 End\n1 main\n2 solve\n\n\
               EVENT_TYPE\n9 50000002 MPI Collective Comm\nVALUES\n0 Outside MPI\n10 MPI_Allreduce\n\n\
               EVENT_TYPE\n7 42000050 PAPI_TOT_INS\n";
    let t = read_str(&prv, Some(pcf), None);
    let r = t.intervals_of(loc(&t, "THREAD 1.1.1"));
    let got: Vec<(&str, u64, u64, u16)> = r
        .map(|i| {
            (t.region_name(t.intervals.region[i]), t.intervals.start_ns[i], t.intervals.dur_ns[i], t.intervals.depth[i])
        })
        .collect();
    assert_eq!(got, vec![("main", 0, 50, 0), ("solve", 10, 30, 1), ("MPI_Allreduce", 20, 10, 2)]);
    let allreduce = t.intervals.region[2].index();
    assert_eq!((t.regions.paradigm[allreduce], t.regions.role[allreduce]), (Paradigm::Mpi, RegionRole::Collective));
    assert_eq!(t.str(t.regions.category[allreduce]), "MPI Collective Comm");
    assert_eq!(t.event_records, 6);
    assert_eq!(t.counters.series_name.len(), 1);
    // Task 1 has two threads, so the series names its thread.
    assert_eq!(t.str(t.counters.series_name[0]), "PAPI_TOT_INS (thread 1)");
    assert_eq!(t.counters.sample_value, vec![500.0, 700.0]);
    assert!(t.warnings.is_empty(), "{:?}", t.warnings.examples());
}

#[test]
fn last_value_types_replace_and_unclosed_calls_close_at_the_end() {
    // An MPI type's new value ends the previous one; an open call closes at the header's end time.
    let t = read_str(&format!("{HEAD_NS}2:1:1:1:1:10:50000002:9\n2:1:1:1:1:20:50000002:7\n"), None, None);
    let r = t.intervals_of(loc(&t, "THREAD 1.1.1"));
    let got: Vec<(u64, u64, u16)> =
        r.map(|i| (t.intervals.start_ns[i], t.intervals.dur_ns[i], t.intervals.depth[i])).collect();
    assert_eq!(got, vec![(0, 10, 0), (10, 980, 0)]);
    assert_eq!(t.warnings.count(WarningKind::UnclosedBegin), 1);
    let names: Vec<&str> = (0..t.intervals.len()).map(|i| t.region_name(t.intervals.region[i])).collect();
    assert_eq!(names, vec!["MPI Collective Comm 9", "MPI Collective Comm 7"]);
}

#[test]
fn communication_records_become_messages() {
    let t = read_str(&format!("{HEAD_NS}3:1:1:1:1:100:110:3:1:2:1:90:180:4096:17\n"), None, None);
    assert_eq!(t.messages.len(), 1);
    assert_eq!(t.location_name(t.messages.sender[0]), "THREAD 1.1.1");
    assert_eq!(t.location_name(t.messages.receiver[0]), "THREAD 1.2.1");
    // From the logical send to the physical receive (origin at the first time, 100).
    assert_eq!((t.messages.send_ns[0], t.messages.recv_ns[0]), (0, 80));
    assert_eq!((t.messages.size_bytes[0], t.messages.tag[0]), (4096, 17));
}

#[test]
fn header_time_units() {
    for (suffix, factor) in [("_ns", 1u64), ("_us", 1_000), ("", 1_000), ("_ms", 1_000_000)] {
        let prv = format!("#Paraver (x):9{suffix}:0:1:1(1:0)\n1:0:1:1:1:5:7:1\n");
        let t = read_str(&prv, None, None);
        assert_eq!(t.intervals.dur_ns[0], 2 * factor, "unit {suffix:?}");
    }
}

#[test]
fn crlf_lines_and_the_new_format_line() {
    let prv = "new format\r\n#Paraver (x):9_ns:0:1:1(1:0),1\r\nc:1:1:1:1\r\n1:0:1:1:1:5:7:1\r\n2:0:1:1:1:5:50000001:1\r\n2:0:1:1:1:7:50000001:0\r\n";
    let pcf = "STATES\r\n1    Running\r\n\r\nEVENT_TYPE\r\n9 50000001 MPI Point-to-point\r\nVALUES\r\n1 MPI_Send\r\n0 End\r\n";
    let t = read_str(prv, Some(pcf), None);
    let mut names: Vec<&str> = (0..t.intervals.len()).map(|i| t.region_name(t.intervals.region[i])).collect();
    names.sort();
    assert_eq!(names, vec!["MPI_Send", "Running"]);
    assert!(t.warnings.is_empty(), "{:?}", t.warnings.examples());
}

#[test]
fn pcf_and_row_names() {
    let prv = format!("{HEAD_NS}2:1:1:1:1:0:40000001:1\n1:1:1:1:1:0:10:4\n2:1:1:1:1:10:40000001:0\n1:2:1:1:2:0:10:1\n");
    let pcf = "STATES\n1 Busy\n4 Bloking Send\n\nEVENT_TYPE\n6 40000001 Application\nVALUES\n1 Begin\n0 End\n";
    let row = "LEVEL CPU SIZE 2\ncpu a\ncpu b\n\nLEVEL TASK SIZE 2\nrank zero\nrank one\n\nLEVEL THREAD SIZE 3\nmain\nhelper\nother main\n";
    let t = read_str(&prv, Some(pcf), Some(row));
    let names: Vec<&str> = (0..t.processes.len()).map(|p| t.str(t.processes.name[p])).collect();
    assert_eq!(names, vec!["rank zero", "rank one"]);
    let l = loc(&t, "main (states)");
    assert_eq!(t.region_name(t.intervals.region[t.intervals_of(l).start]), "Bloking Send");
    let l = loc(&t, "main");
    assert_eq!(t.region_name(t.intervals.region[t.intervals_of(l).start]), "Application");
    loc(&t, "helper (states)");
    loc(&t, "other main");
    // Display order: each thread's call stack, then its state track.
    let order: Vec<&str> = t.locations_in_display_order().into_iter().map(|l| t.location_name(l)).collect();
    assert_eq!(order, vec!["main", "main (states)", "helper (states)", "other main"]);
    assert!(t.warnings.is_empty(), "{:?}", t.warnings.examples());
}

#[test]
fn warnings_for_bad_records() {
    let prv = format!(
        "{HEAD_NS}1:1:1:1:1:50:60:1\n1:1:1:1:1:10:20:1\n9:1:1:1:1:0\n1:1:1:7:1:0:5:1\n1:1:1:1:1:x:5:1\n\n# comment\n1:1:1:1:1:60:50:1\n1:1:1:1:1:70:8"
    );
    let t = read_str(&prv, None, None);
    let w = &t.warnings;
    assert_eq!(w.count(WarningKind::OutOfOrder), 1);
    assert_eq!(w.count(WarningKind::UnknownRecord), 1);
    assert_eq!(w.count(WarningKind::DanglingReference), 1);
    assert_eq!(w.count(WarningKind::MalformedRecord), 2);
    assert_eq!(w.count(WarningKind::Truncated), 1);
    let text: Vec<&str> = w.examples().iter().map(|e| e.message.as_str()).collect();
    assert!(text.iter().any(|m| m.starts_with("t.prv:5:") && m.contains("unknown record kind \"9\"")), "{text:?}");
    assert!(text.iter().any(|m| m.starts_with("t.prv:6:") && m.contains("1.7.1")), "{text:?}");
    assert!(text.iter().any(|m| m.starts_with("t.prv:11:")), "{text:?}");
    // The undeclared thread's record is kept, on a task of its own.
    assert!(t.processes.len() == 3 && t.intervals.len() == 3);
}

#[test]
fn header_errors_name_the_line() {
    let e = read_with("a.prv", b"#Paraver (x):10:0:1:2(1:0,", None, None, &Options::default()).unwrap_err();
    assert!(matches!(e, ParaverError::Header { line: 1, .. }), "{e}");
    assert!(e.to_string().starts_with("a.prv:1: Paraver header:"), "{e}");
    let e = read_with("b.prv", b"#Paraver (x):10:0:1:1(1:0),1\nnot a communicator\n", None, None, &Options::default())
        .unwrap_err();
    assert!(matches!(e, ParaverError::Header { line: 2, .. }), "{e}");
    let e = read_with("c.prv", b"#Paraver (x):10:0:1:1(1:0)\n", None, None, &Options::default()).unwrap_err();
    assert!(matches!(e, ParaverError::NoRecords { .. }));
    assert!(matches!(read("d.prv", b"#Paraver", None, None), Err(ReadError::Malformed { .. })));
}

#[test]
fn lone_prv_through_read_bytes() {
    let files = ParaverSample { tasks: 2, threads_per_task: 1, iterations: 3, ..Default::default() }.generate();
    let t = read_bytes("x.prv", &files.prv).unwrap();
    assert_eq!(t.format.name(), "paraver");
    let names: HashSet<&str> = (0..t.locations.len() as u32).map(|l| t.location_name(LocationId(l))).collect();
    assert!(names.contains("THREAD 1.2.1") && names.contains("THREAD 1.1.1 (states)"), "{names:?}");
    // Without a .pcf, Extrae's standard state names and MPI type names are used.
    let regions: HashSet<&str> = (0..t.regions.len() as u32).map(|r| t.region_name(weft::model::RegionId(r))).collect();
    assert!(regions.contains("Running") && regions.contains("Group Communication"), "{regions:?}");
}

#[test]
fn generated_sample_counts_follow_its_parameters() {
    let p = ParaverSample { tasks: 3, threads_per_task: 3, iterations: 7, ..Default::default() };
    let files = p.generate();
    let dir = TempDir::new("paraver");
    let path = dir.join("gen.prv");
    std::fs::write(&path, &files.prv).unwrap();
    std::fs::write(dir.join("gen.pcf"), &files.pcf).unwrap();
    std::fs::write(dir.join("gen.row"), &files.row).unwrap();
    let t = read_path(&path).unwrap();
    let (k, h, i) = (3usize, 3usize, 7usize);
    assert_eq!(t.processes.len(), k);
    assert_eq!(t.locations.len(), 2 * k * h);
    assert_eq!(t.messages.len(), k * i);
    let states: usize = counts_by_region(&t, true).values().sum();
    assert_eq!(states, i * k * (5 + (h - 1)));
    let calls = counts_by_region(&t, false);
    assert_eq!(calls["compute"], i * k);
    assert_eq!(calls["worker"], i * k * (h - 1));
    assert_eq!(calls["MPI_Allreduce"], i * k);
    assert_eq!(calls["Application"], k * h);
    assert_eq!(calls["main"], k);
    assert_eq!(t.str(t.processes.name[0]), "rank 0");
    loc(&t, "rank 2 thread 1 (states)");
    assert!(t.warnings.is_empty(), "{:?}", t.warnings.examples());
}

#[test]
fn global_communication_records_become_collectives() {
    // Two tasks, two allreduces on communicator 5; the first inside an MPI call, the second outside any.
    let prv = format!(
        "{HEAD_NS}2:1:1:1:1:10:50000002:10\n4:1:1:1:1:10:5:8:8:11:0\n2:3:1:2:1:12:50000002:10\n\
         4:3:1:2:1:12:5:8:8:11\n2:1:1:1:1:30:50000002:0\n2:3:1:2:1:40:50000002:0\n\
         4:1:1:1:1:50:5:4:0:10:1\n4:3:1:2:1:55:5:0:4:10:1\n"
    );
    let pcf = "EVENT_TYPE\n9 50000002 MPI Collective Comm\nVALUES\n0 End\n10 MPI_Allreduce\n";
    let t = read_str(&prv, Some(pcf), None);
    let c = &t.collectives;
    assert_eq!((c.len(), c.operations()), (4, 2));
    assert!(t.warnings.is_empty(), "{:?}", t.warnings.examples());
    let rows: Vec<(u32, &str, u64, u64, u64, u64)> = (0..c.len())
        .map(|i| {
            (
                c.operation[i],
                t.region_name(c.region[i]),
                c.start_ns[i],
                c.end_ns[i],
                c.bytes_sent[i],
                c.bytes_received[i],
            )
        })
        .collect();
    assert_eq!(
        rows,
        vec![
            (0, "MPI_Allreduce", 0, 20, 8, 8),
            (0, "MPI_Allreduce", 2, 30, 8, 8),
            (1, "Global op 10", 40, 40, 4, 0),
            (1, "Global op 10", 45, 45, 0, 4),
        ]
    );
    assert_eq!(t.str(c.communicator[0]), "communicator 5");
    // The root field is a rank of the communicator (5 has no line: rank r is task r + 1); a record without
    // one has none.
    let (task1, task2) = (c.location[0], c.location[1]);
    assert_eq!(c.root, vec![Some(task1), None, Some(task2), Some(task2)]);
}

/// A communicator line orders its tasks by rank: the root rank of a global communication record is the
/// task at that place (its first thread), not the task of that number; a rank outside it is no root.
#[test]
fn the_root_of_a_global_communication_is_a_rank_of_its_communicator() {
    // Communicator 7 is (task 2, task 1): rank 0 is task 2. Communicator 1 is (task 1, task 2).
    let head = "#Paraver (01/01/26 at 10:00):1000_ns:1(4):1:2(2:1,1:1),2\nc:1:1:2:1:2\nc:1:7:2:2:1\n";
    let prv = format!(
        "{head}4:1:1:1:1:10:7:8:0:1:0\n4:3:1:2:1:20:7:0:8:1:0\n4:1:1:1:1:30:1:8:0:1:1\n\
         4:3:1:2:1:40:1:0:8:1:1\n4:1:1:1:1:50:7:8:0:1:2\n4:3:1:2:1:60:7:0:8:1:2\n"
    );
    let t = read_str(&prv, None, None);
    let c = &t.collectives;
    assert_eq!((c.len(), c.operations()), (6, 3));
    // Row 0 is task 1's record, row 1 task 2's.
    let task2 = Some(c.location[1]);
    assert_ne!(c.location[0], c.location[1]);
    assert_eq!(c.root, vec![task2, task2, task2, task2, None, None]);
    assert!(t.warnings.is_empty(), "{:?}", t.warnings.examples());
}

/// `weft generate paraver` writes the generator's files: the test fixture by default, about `--mb` MB of
/// .prv when asked, with its .pcf and .row beside it.
#[test]
fn weft_generate_paraver_writes_the_generated_trace() {
    let dir = TempDir::new("generate-paraver");
    let generate = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_weft"))
            .args(["generate", "paraver", "-o"])
            .arg(&dir)
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    };
    generate(&[]);
    let want = weft::samples::paraver::ParaverSample::default().generate();
    for (name, bytes) in [("trace.prv", &want.prv), ("trace.pcf", &want.pcf), ("trace.row", &want.row)] {
        assert!(&std::fs::read(dir.join(name)).unwrap() == bytes, "{name} differs from the generator's");
    }
    generate(&["--tasks", "3", "--threads-per-task", "1", "--mb", "1"]);
    let prv = std::fs::read(dir.join("trace.prv")).unwrap();
    assert!((1_000_000..1_100_000).contains(&prv.len()), "{} bytes", prv.len());
    let trace = weft::readers::paraver::read("trace.prv", &prv, None, None).unwrap();
    assert_eq!(trace.processes.len(), 3);
}
