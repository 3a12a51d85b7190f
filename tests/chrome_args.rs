//! A Chrome event's `args` (issue 18): kept by the reader (X, B/E merged, instants, async b/e), bounded,
//! bad ones a warning; carried by the codec; listed in the timeline's hover; and, on a real PyTorch
//! profiler trace, equal to the args as Python's json reads them.

use std::rc::Rc;
use weft::model::args::{MAX_PAIRS, MAX_VALUE_CHARS};
use weft::model::{codec, ArgKind, Trace, WarningKind};
use weft::readers::chrome::{read, ChromeStreamReader};
use weft::views::timeline::{args_lines, TimelinePane, HOVER_ARGS};
use weft::views::Pane;

fn trace(json: &str) -> Trace {
    read("t.json", json.as_bytes()).expect("a trace")
}

/// (key, value) of interval `i`'s args.
fn args_of(t: &Trace, i: usize) -> Vec<(String, String)> {
    match t.intervals.args.of(i) {
        Some(a) => a.map(|a| (t.str(a.key).to_string(), a.value.to_string())).collect(),
        None => vec![],
    }
}

fn interval_named(t: &Trace, name: &str) -> usize {
    (0..t.intervals.len()).find(|&i| t.region_name(t.intervals.region[i]) == name).expect(name)
}

fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

#[test]
fn x_events_keep_their_args_and_events_without_args_have_none() {
    let t = trace(
        r#"[{"ph":"X","name":"kernel","pid":1,"tid":1,"ts":5,"dur":3,"args":{"grid":[128,1,1],"stream":7,"name":"k\u00e9"}},
            {"ph":"X","name":"outer","pid":1,"tid":1,"ts":0,"dur":10},
            {"ph":"X","name":"other","pid":1,"tid":2,"ts":1,"dur":1,"args":{}}]"#,
    );
    // The builder sorted "outer" before "kernel": the args followed their event.
    let k = interval_named(&t, "kernel");
    assert_eq!(k, 1);
    assert_eq!(args_of(&t, k), pairs(&[("grid", "[128,1,1]"), ("stream", "7"), ("name", "k\u{e9}")]));
    assert_eq!(args_of(&t, interval_named(&t, "outer")), vec![]);
    assert_eq!(args_of(&t, interval_named(&t, "other")), vec![], "empty args keep nothing");
    assert_eq!(t.intervals.args.len(), 1);
    let kinds: Vec<ArgKind> = t.intervals.args.of(k).unwrap().map(|a| a.kind).collect();
    assert_eq!(kinds, [ArgKind::Json, ArgKind::Number, ArgKind::Text]);
    assert!(t.warnings.is_empty(), "{:?}", t.warnings.examples());
}

#[test]
fn an_end_merges_its_args_into_its_begin_and_wins_on_a_shared_key() {
    let t = trace(
        r#"[{"ph":"B","name":"a","pid":1,"tid":1,"ts":0,"args":{"x":1,"y":"b"}},
            {"ph":"B","name":"b","pid":1,"tid":1,"ts":1},
            {"ph":"E","pid":1,"tid":1,"ts":2,"args":{"only_end":true}},
            {"ph":"B","name":"c","pid":1,"tid":1,"ts":3,"args":{"kept":1}},
            {"ph":"E","name":"a","pid":1,"tid":1,"ts":5,"args":{"y":"e","z":[1]}}]"#,
    );
    assert_eq!(args_of(&t, interval_named(&t, "a")), pairs(&[("x", "1"), ("y", "e"), ("z", "[1]")]));
    assert_eq!(args_of(&t, interval_named(&t, "b")), pairs(&[("only_end", "true")]));
    // "c" was closed by the end of "a" (rule 4): it keeps its own args, not the end's.
    assert_eq!(args_of(&t, interval_named(&t, "c")), pairs(&[("kept", "1")]));
}

#[test]
fn instants_and_async_slices_keep_args() {
    let t = trace(
        r#"[{"ph":"i","name":"mark","pid":1,"tid":1,"ts":4,"s":"t","args":{"step":3}},
            {"ph":"i","name":"bare","pid":1,"tid":1,"ts":2,"s":"t"},
            {"ph":"b","name":"load","cat":"io","id":"0x1","pid":1,"tid":1,"ts":1,"args":{"file":"a.bin"}},
            {"ph":"e","name":"load","cat":"io","id":"0x1","pid":1,"tid":1,"ts":9,"args":{"bytes":4096}}]"#,
    );
    let ins = &t.instants;
    let mark = (0..ins.location.len()).find(|&i| t.region_name(ins.region[i]) == "mark").unwrap();
    assert_eq!(mark, 1, "instants sorted by time: the args followed");
    let got: Vec<(String, String)> =
        ins.args.of(mark).unwrap().map(|a| (t.str(a.key).to_string(), a.value.to_string())).collect();
    assert_eq!(got, pairs(&[("step", "3")]));
    assert!(ins.args.of(0).is_none());
    assert_eq!(args_of(&t, interval_named(&t, "load")), pairs(&[("file", "a.bin"), ("bytes", "4096")]));
}

#[test]
fn one_event_keeps_bounded_args() {
    let keys: Vec<String> = (0..40).map(|k| format!("\"k{k}\":{k}")).collect();
    let long = "x".repeat(1000);
    let json = format!(
        r#"[{{"ph":"X","name":"many","pid":1,"tid":1,"ts":0,"dur":1,"args":{{{}}}}},
            {{"ph":"X","name":"long","pid":1,"tid":1,"ts":2,"dur":1,"args":{{"s":"{long}","{long}":1,"k":"a","k":"b"}}}}]"#,
        keys.join(",")
    );
    let t = trace(&json);
    let many = args_of(&t, interval_named(&t, "many"));
    assert_eq!(many.len(), MAX_PAIRS + 1);
    assert_eq!(many[MAX_PAIRS].1, "8 more args not kept");
    let long_args = args_of(&t, interval_named(&t, "long"));
    assert_eq!(long_args[0].1, format!("{}…", "x".repeat(MAX_VALUE_CHARS)));
    assert_eq!(long_args[1].0, format!("{}…", "x".repeat(MAX_VALUE_CHARS)));
    assert_eq!(long_args[2], ("k".to_string(), "b".to_string()), "a repeated key keeps its last value");
    assert_eq!(long_args.len(), 3);
}

#[test]
fn bad_args_are_a_warning_and_keep_what_precedes() {
    let t = trace(
        r#"[{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":1,"args":"not an object"},
            {"ph":"X","name":"b","pid":1,"tid":1,"ts":2,"dur":1,"args":{"ok":1,"bad":[1,2}]},
            {"ph":"X","name":"c","pid":1,"tid":1,"ts":4,"dur":1,"args":[1]},
            {"ph":"X","name":"d","pid":1,"tid":1,"ts":6,"dur":1,"args":null}]"#,
    );
    assert_eq!(t.intervals.len(), 4, "every event is kept");
    assert_eq!(args_of(&t, interval_named(&t, "a")), vec![]);
    assert_eq!(args_of(&t, interval_named(&t, "b")), pairs(&[("ok", "1")]));
    assert_eq!(t.warnings.count(WarningKind::MalformedRecord), 3, "{:?}", t.warnings.examples());
}

#[test]
fn chunked_reads_keep_the_same_args_and_the_codec_carries_them() {
    let json = r#"{"traceEvents":[{"ph":"X","name":"k","pid":1,"tid":1,"ts":1,"dur":2,"args":{"shapes":[[8,3],[3]],"s":"a\"b"}},
        {"ph":"B","name":"a","pid":1,"tid":2,"ts":0,"args":{"x":1}},{"ph":"E","pid":1,"tid":2,"ts":3,"args":{"y":2}},
        {"ph":"i","name":"m","pid":1,"tid":1,"ts":2,"s":"t","args":{"z":"w"}}]}"#;
    let whole = trace(json);
    for size in [1, 7, 64] {
        let mut r = ChromeStreamReader::new("t.json");
        for c in json.as_bytes().chunks(size) {
            r.feed(c).unwrap();
        }
        let t = r.finish().unwrap();
        assert_eq!(t.intervals.args, whole.intervals.args, "chunks of {size}");
        assert_eq!(t.instants.args, whole.instants.args, "chunks of {size}");
    }
    let bytes = codec::encode(&whole);
    assert_eq!(bytes.capacity(), bytes.len(), "allocated once, args included");
    let back = codec::decode(&bytes).unwrap();
    assert_eq!(back.intervals.args, whole.intervals.args);
    assert_eq!(back.instants.args, whole.instants.args);
    assert_eq!(args_of(&back, interval_named(&back, "k")), pairs(&[("shapes", "[[8,3],[3]]"), ("s", "a\"b")]));
    // The stepped decode gives the same trace; a damaged buffer is an error, never a panic.
    let mut d = codec::Decoding::default();
    let stepped = loop {
        if let Some(t) = d.step(&bytes).unwrap() {
            break t;
        }
    };
    assert_eq!(stepped.intervals.args, whole.intervals.args);
    for cut in 0..bytes.len() {
        assert!(codec::decode(&bytes[..cut]).is_err());
    }
    let mut bad = bytes.clone();
    for k in 0..bad.len() {
        bad[k] ^= 0x55;
        let _ = codec::decode(&bad);
        bad[k] ^= 0x55;
    }
}

/// The hover of interval `i` of `t`, the pane zoomed onto it.
fn hover_of(t: Trace, i: usize) -> weft::views::Hover {
    let iv = &t.intervals;
    let (s, d, depth, loc) = (iv.start_ns[i] as f64, iv.dur_ns[i].max(1) as f64, iv.depth[i], iv.location[i].0);
    let mut pane = TimelinePane::new(Rc::new(t), 1200.0, 800.0);
    pane.set_time_range(s - d * 0.1, s + d * 1.1);
    let st = pane.state();
    let row = st["rows"].as_array().unwrap().iter().find(|r| r["location"] == loc).unwrap();
    let lane = st["lane_px"].as_f64().unwrap() as f32;
    let y = row["y"].as_f64().unwrap() as f32 + lane * (depth as f32 + 0.5);
    let x0 = st["track_x0"].as_f64().unwrap() as f32;
    let x = x0 + (1200.0 - x0) * (0.1 + 0.5) / 1.2;
    let h = pane.hover(x, y).expect("the interval under the pointer");
    assert_eq!(h.detail["interval"], i, "{h:?}");
    h
}

#[test]
fn the_hover_lists_args_bounded_and_cut_between_escapes() {
    let keys: Vec<String> = (0..20).map(|k| format!("\"k{k}\":{k}")).collect();
    let quotes = "\\\"".repeat(100);
    let json = format!(
        r#"[{{"ph":"X","name":"many","cat":"c","pid":1,"tid":1,"ts":0,"dur":10,"args":{{"j":["{quotes}"],{}}}}}]"#,
        keys.join(",")
    );
    let t = trace(&json);
    let h = hover_of(t.clone(), 0);
    assert_eq!(h.title, "many");
    let at = h.lines.iter().position(|l| l.starts_with("j: ")).expect("the args follow the times");
    assert_eq!(at, 3, "{:?}", h.lines);
    let args = &h.lines[at..];
    assert_eq!(args.len(), HOVER_ARGS + 1);
    assert_eq!(args[HOVER_ARGS], "+9 more");
    assert_eq!(args[1], "k0: 0");
    // The JSON value: 80 characters at most with the ellipsis, ending after a whole escape.
    let j = args[0].strip_prefix("j: ").unwrap();
    assert!(j.chars().count() <= 80 && j.ends_with("\\\"…"), "{j}");
    assert_eq!(args_lines(&t, t.intervals.args.of(0).unwrap()), args.to_vec());
    // Without args, the hover is what it was.
    let plain = trace(r#"[{"ph":"X","name":"p","pid":1,"tid":1,"ts":0,"dur":10}]"#);
    assert_eq!(hover_of(plain, 0).lines.len(), 2);
}

/// A real PyTorch profiler trace (Kineto's docs): the kernel's args, as the model keeps them and the hover
/// lists them, equal its args as Python's json reads them (strings as text, the rest as compact JSON, cut
/// at 256 characters).
#[test]
fn a_pytorch_kernels_hover_lists_its_args_as_python_reads_them() {
    let path = "../shared/traces/chrome-json/kineto/docs_before_fix_trace.json";
    let Ok(bytes) = std::fs::read(path) else {
        eprintln!("skipped: {path} not found");
        return;
    };
    let python = std::env::var("WEFT_PYTHON").unwrap_or_else(|_| "python3".into());
    let script = r#"
import json, sys
d = json.load(open(sys.argv[1]))
ev = [e for e in d["traceEvents"] if e.get("ph") == "X" and e.get("name") == "Kernel"][0]
for k, v in ev["args"].items():
    s = v if isinstance(v, str) else json.dumps(v, separators=(",", ":"), ensure_ascii=False)
    # The model keeps 256 characters of a value (this trace's long one holds no escapes to cut between).
    print(k + ": " + (s[:256] + "\u2026" if len(s) > 256 else s))
"#;
    let out = std::process::Command::new(&python).args(["-c", script, path]).output().expect("python runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let want: Vec<String> = String::from_utf8(out.stdout).unwrap().lines().map(str::to_string).collect();
    assert!(want.len() > HOVER_ARGS, "the kernel has more args than a hover lists ({})", want.len());
    let t = read(path, &bytes).unwrap();
    let k = interval_named(&t, "Kernel");
    let model: Vec<String> = args_of(&t, k).iter().map(|(k, v)| format!("{k}: {v}")).collect();
    assert_eq!(model, want, "every arg kept, as Python reads it");
    let h = hover_of(t, k);
    let at = h.lines.iter().position(|l| l == &want[0]).expect("the first arg in the hover");
    let mut listed: Vec<String> = want[..HOVER_ARGS].iter().map(|l| cut(l)).collect();
    listed.push(format!("+{} more", want.len() - HOVER_ARGS));
    assert_eq!(h.lines[at..].to_vec(), listed);
}

/// A hover line as `args_lines` cuts it: these values hold no escapes, so at 79 characters and "…".
fn cut(line: &str) -> String {
    let (k, v) = line.split_once(": ").unwrap();
    if v.chars().count() <= 80 {
        return line.to_string();
    }
    format!("{k}: {}…", v.chars().take(79).collect::<String>())
}
