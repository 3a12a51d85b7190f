//! The Perfetto reader held to traces written by Perfetto's own protos (the `perfetto` package from PyPI, its
//! TraceProtoBuilder): tests/oracle/perfetto_traces.py builds each scenario and says what it holds by construction
//! (slices with their depth, instants, counter series with their units, flows, args, async rows, packets skipped
//! for lost incremental state, packets of kinds not read); weft's model must agree exactly. Runs when WEFT_PYTHON
//! names a python with the `perfetto` package; otherwise prints SKIPPED. One of those traces (`basic`) is kept
//! here as bytes with its expectation, so a machine without the package still checks Perfetto-written bytes.

use crate::common::TempDir;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;
use weft::model::{LocationKind, MessageKind, Trace};

/// `basic.pftrace` as perfetto_traces.py writes it (perfetto 0.59.1, protobuf 7.36.2).
const BASIC_HEX: &[&str] = &[
    "0a135001e2030e08011a0a086432067365727665720a155001e203100802220a086410652a046d61696e28010a135001e203",
    "0e08032208086410662a02696f28010a145001e2030f08041a0b08c8013206636c69656e740a155001e203100805220a08c8",
    "0110c9012a02756928040a135001e2030e08061204686561702801420218030a165001e20311080712046c6f616428044205",
    "200a3201250a4040e80750015a392206200752026964220a32022f785204706174682206100152026f6b48015802b2010372",
    "7063ba010668616e646c65f9020b000000000000000a1940cc0850015a1248015802b20103727063ba010570617273650a13",
    "40fe0850015a0c48035802ba0105746f6b656e0a0b40940a50015a04480258020a2440f80a50015a1d220f29000000000000",
    "0440520473697a6548015802ba01057265706c790a0b40ec0e50015a04480258020a0b40d00f50015a04480258020a1c40b4",
    "1050015a1548015803ba010472656164f9020b000000000000000a0b40e01250015a04480258030a1e40b81750015a174801",
    "5805ba010672656e64657281030b000000000000000a1440b81750015a0d48015805ba01066c61796f75740a0b4080195001",
    "5a04480258050a0b40ac1b50015a04480258050a0f40e80750015a0848045806f00180200a0f40dc0b50015a0848045806f0",
    "0180400a0f40c41350015a0848045806f00180080a0e409c1850015a0748045807f001030a1540c81a50015a0e48045807e1",
    "02000000000000e03f0a0b40f4034a040a02086450010a0b40f4034a040a0208645001",
];

const BASIC_EXPECTED: &str = r#"{"args": [["handle", 1000, "id", "7"], ["handle", 1000, "ok", "true"], ["handle", 1000, "path", "/x"], ["reply", 1400, "size", "2.5"]], "counters": {"heap (bytes)": [[1000, 4096.0], [1500, 8192.0], [2500, 1024.0]], "load (%)": [[3100, 30.0], [3400, 5.0]]}, "flows": [["io", 2100, "ui", 3000], ["main", 1000, "io", 2100]], "instants": [["server", "main", "token", 1150]], "lost": 0, "packets_not_read": {"process_stats": 2}, "rows": {}, "slices": [["client", "ui", "layout", "", 3000, 200, 1], ["client", "ui", "render", "", 3000, 500, 0], ["server", "io", "read", "", 2100, 300, 0], ["server", "main", "handle", "rpc", 1000, 1000, 0], ["server", "main", "parse", "rpc", 1100, 200, 1], ["server", "main", "reply", "", 1400, 500, 1]]}"#;

fn python(test: &str) -> Option<String> {
    match std::env::var("WEFT_PYTHON") {
        Ok(p) if !p.is_empty() => Some(p),
        _ => {
            eprintln!("SKIPPED {test}: WEFT_PYTHON is not set (point it to a python with the `perfetto` package)");
            None
        }
    }
}

/// The leading count of the first warning whose message contains `what`, else 0.
fn warned(t: &Trace, what: &str) -> u64 {
    t.warnings
        .examples()
        .iter()
        .find(|w| w.message.contains(what))
        .and_then(|w| w.message.split(' ').next()?.parse().ok())
        .unwrap_or(0)
}

/// What the oracle's JSON says, read off weft's model.
fn summary(t: &Trace) -> Value {
    let o = t.origin_ns as u64;
    let process = |l: weft::model::LocationId| t.process_name(t.locations.process[l.index()]).to_string();
    let iv = &t.intervals;
    let mut slices = Vec::new();
    let mut args = Vec::new();
    for i in 0..iv.len() {
        let (l, r) = (iv.location[i], iv.region[i]);
        let cat = t.str(t.regions.category[r.index()]);
        slices.push(json!([
            process(l),
            t.location_name(l),
            t.region_name(r),
            cat,
            o + iv.start_ns[i],
            iv.dur_ns[i],
            iv.depth[i]
        ]));
        if let Some(pairs) = iv.args.of(i) {
            for a in pairs {
                args.push(json!([t.region_name(r), o + iv.start_ns[i], t.str(a.key), a.value]));
            }
        }
    }
    let ins = &t.instants;
    let mut instants: Vec<Value> = (0..ins.time_ns.len())
        .map(|i| {
            json!([
                process(ins.location[i]),
                t.location_name(ins.location[i]),
                t.region_name(ins.region[i]),
                o + ins.time_ns[i]
            ])
        })
        .collect();
    let mut counters: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    let c = &t.counters;
    for s in 0..c.series_name.len() {
        counters.insert(t.str(c.series_name[s]).to_string(), Vec::new());
    }
    for k in 0..c.sample_series.len() {
        let name = t.str(c.series_name[c.sample_series[k] as usize]).to_string();
        counters.get_mut(&name).unwrap().push(json!([o + c.sample_time_ns[k], c.sample_value[k]]));
    }
    let m = &t.messages;
    let mut flows: Vec<Value> = (0..m.kind.len())
        .filter(|&k| m.kind[k] == MessageKind::Flow)
        .map(|k| {
            json!([t.location_name(m.sender[k]), o + m.send_ns[k], t.location_name(m.receiver[k]), o + m.recv_ns[k]])
        })
        .collect();
    let mut rows: BTreeMap<String, u64> = BTreeMap::new();
    for l in 0..t.locations.len() {
        if t.locations.kind[l] == LocationKind::AsyncTrack {
            let l = weft::model::LocationId(l as u32);
            *rows.entry(format!("{}/{}", process(l), t.location_name(l))).or_default() += 1;
        }
    }
    let mut not_read: BTreeMap<String, u64> = BTreeMap::new();
    for w in t.warnings.examples() {
        if let Some(rest) = w.message.strip_suffix(" packets are not read (weft reads track events)") {
            let (n, kind) = rest.split_once(' ').unwrap();
            not_read.insert(kind.to_string(), n.parse().unwrap());
        }
    }
    let mut locations: BTreeMap<String, String> = BTreeMap::new();
    for l in 0..t.locations.len() {
        let id = weft::model::LocationId(l as u32);
        locations.insert(format!("{}/{}", process(id), t.location_name(id)), format!("{:?}", t.locations.kind[l]));
    }
    let sort = |v: &mut Vec<Value>| v.sort_by_key(|x| x.to_string());
    sort(&mut slices);
    sort(&mut args);
    sort(&mut instants);
    sort(&mut flows);
    json!({
        "slices": slices, "instants": instants, "counters": counters, "flows": flows, "args": args, "rows": rows,
        "lost": warned(t, "incremental state"), "packets_not_read": not_read, "locations": locations,
        "ftrace_not_read": warned(t, "ftrace events other than sched_switch"),
    })
}

/// Sort the lists of an expectation the way [`summary`] does (JSON text order), so both compare as values.
fn normalised(mut v: Value) -> Value {
    for key in ["slices", "instants", "flows", "args"] {
        if let Some(a) = v[key].as_array_mut() {
            a.sort_by_key(|x| x.to_string());
        }
    }
    v
}

/// Every key where `got` differs from `want`, with the first differing element of a list.
fn differences(label: &str, want: &Value, got: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for (k, w) in want.as_object().unwrap() {
        let g = &got[k];
        if g == w {
            continue;
        }
        match (w.as_array(), g.as_array()) {
            (Some(wa), Some(ga)) => {
                let first = wa.iter().zip(ga).position(|(a, b)| a != b);
                out.push(format!(
                    "{label}: {k}: {} expected, {} read; first difference {:?}",
                    wa.len(),
                    ga.len(),
                    first.map(|i| (wa[i].to_string(), ga[i].to_string()))
                ));
            }
            _ => out.push(format!("{label}: {k}: expected {w}, read {g}")),
        }
    }
    out
}

fn check(label: &str, bytes: &[u8], want: Value) {
    let input = weft::readers::open(label, weft::readers::Source::Bytes(bytes)).unwrap_or_else(|e| panic!("{e}"));
    let t = input.into_trace(label).unwrap();
    assert_eq!(t.format, weft::model::Format::Perfetto);
    let got = summary(&t);
    let diff = differences(label, &normalised(want), &got);
    assert!(diff.is_empty(), "{}", diff.join("\n"));
}

#[test]
fn perfetto_written_basic_trace_is_read_exactly() {
    let hex: String = BASIC_HEX.concat();
    let bytes: Vec<u8> = (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap()).collect();
    assert_eq!(weft::readers::sniff(&bytes), weft::readers::Sniffed::Perfetto);
    check("basic.pftrace", &bytes, serde_json::from_str(BASIC_EXPECTED).unwrap());
}

/// Run perfetto_traces.py for `scenarios` into `dir`; each written trace read by weft, with its expectation.
fn scenarios(py: &str, dir: &TempDir, scenarios: &[&str]) -> Vec<(String, Trace, Value)> {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/perfetto_traces.py");
    let out = Command::new(py).arg(&script).arg(dir.path()).args(scenarios).output().expect("run python");
    assert!(out.status.success(), "perfetto_traces.py failed: {}", String::from_utf8_lossy(&out.stderr));
    scenarios
        .iter()
        .map(|name| {
            let trace = dir.path().join(format!("{name}.pftrace"));
            let bytes = std::fs::read(&trace).unwrap();
            let want: Value = serde_json::from_slice(&std::fs::read(trace.with_extension("json")).unwrap()).unwrap();
            let label = format!("{name}.pftrace");
            let t = weft::readers::open(&label, weft::readers::Source::Bytes(&bytes)).unwrap().into_trace(&label);
            (label, t.unwrap(), want)
        })
        .collect()
}

/// rocprofv3's pftrace layout (both naming generations, by queue and by stream): every slice on the readable
/// location its category and track say, with its depth, args (kernel grid and workgroup sizes, API call
/// ids), flows from each HIP call to its kernel or copy, counters renamed, locations' kinds.
#[test]
fn rocprofv3_pftrace_tracks_args_and_flows_agree() {
    let Some(py) = python("rocprofv3_pftrace_tracks_args_and_flows_agree") else { return };
    let dir = TempDir::new("perfetto-rocprof");
    for (label, t, want) in scenarios(&py, &dir, &["rocprofv3_queues", "rocprofv3_streams"]) {
        let diff = differences(&label, &normalised(want.clone()), &summary(&t));
        assert!(diff.is_empty(), "{}", diff.join("\n"));
        // Not vacuous: kernels, copies, flows and kernel args are there.
        assert!(want["flows"].as_array().unwrap().len() > 50, "{label}: few flows");
        let kernels = t.intervals.region.iter().filter(|r| t.str(t.regions.category[r.index()]) == "kernel_dispatch");
        assert!(kernels.count() > 20, "{label}: few kernels");
        let keys: Vec<&str> = want["args"].as_array().unwrap().iter().map(|a| a[2].as_str().unwrap()).collect();
        assert!(keys.contains(&"grid_size") && keys.contains(&"workgroup_size"), "{label}: no kernel args");
        assert!(want["locations"].as_object().unwrap().values().any(|k| k == "GpuStream"), "{label}");
    }
}

/// ftrace sched_switch bundles (full and compact) as CPU tracks: per CPU every slice's thread, start and
/// length, pid args, other ftrace events counted.
#[test]
fn sched_switch_bundles_become_cpu_tracks() {
    let Some(py) = python("sched_switch_bundles_become_cpu_tracks") else { return };
    let dir = TempDir::new("perfetto-sched");
    for (label, t, want) in scenarios(&py, &dir, &["sched", "sched_compact"]) {
        let diff = differences(&label, &normalised(want.clone()), &summary(&t));
        assert!(diff.is_empty(), "{}", diff.join("\n"));
        let cpus: std::collections::BTreeSet<&str> =
            want["slices"].as_array().unwrap().iter().map(|s| s[1].as_str().unwrap()).collect();
        assert_eq!(cpus.len(), 4, "{label}");
    }
}

#[test]
fn perfetto_oracle_scenarios_agree_exactly() {
    let Some(py) = python("perfetto_oracle_scenarios_agree_exactly") else { return };
    let dir = TempDir::new("perfetto-oracle");
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/perfetto_traces.py");
    let general = ["basic", "interned", "clock", "async", "random_200", "random_5000", "random_50000"];
    let out = Command::new(&py).arg(&script).arg(dir.path()).args(general).output().expect("run python");
    assert!(out.status.success(), "perfetto_traces.py failed: {}", String::from_utf8_lossy(&out.stderr));
    let mut seen = 0;
    let mut failures = Vec::new();
    let mut names: Vec<PathBuf> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "pftrace"))
        .collect();
    names.sort();
    for trace in names {
        let bytes = std::fs::read(&trace).unwrap();
        let want: Value = serde_json::from_slice(&std::fs::read(trace.with_extension("json")).unwrap()).unwrap();
        let label = trace.file_name().unwrap().to_string_lossy().into_owned();
        let t = weft::readers::open(&label, weft::readers::Source::Bytes(&bytes)).unwrap().into_trace(&label).unwrap();
        failures.extend(differences(&label, &normalised(want), &summary(&t)));
        seen += 1;
    }
    assert!(seen >= 7, "the script wrote {seen} traces");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
