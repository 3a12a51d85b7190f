//! Chrome reader: every event kind and every repair on small inline traces, and golden expectations for
//! small real traces from ../shared/traces (checked by reading the files by hand).

use crate::common;

use weft::model::{LocationKind, MessageKind, Trace, WarningKind};
use weft::readers::chrome::read;
use weft::readers::ReadError;

fn load(json: &str) -> Trace {
    match read("test.json", json.as_bytes()) {
        Ok(t) => t,
        Err(e) => panic!("read failed: {e}"),
    }
}

/// (location name, region name, start_ns, dur_ns, depth) in model order.
fn intervals(t: &Trace) -> Vec<(String, String, u64, u64, u16)> {
    let iv = &t.intervals;
    (0..iv.len())
        .map(|i| {
            (
                t.location_name(iv.location[i]).to_string(),
                t.region_name(iv.region[i]).to_string(),
                iv.start_ns[i],
                iv.dur_ns[i],
                iv.depth[i],
            )
        })
        .collect()
}

fn slices(t: &Trace) -> Vec<(&str, u64, u64, u16)> {
    let iv = &t.intervals;
    (0..iv.len()).map(|i| (t.region_name(iv.region[i]), iv.start_ns[i], iv.dur_ns[i], iv.depth[i])).collect()
}

#[test]
fn complete_events_nest_and_convert_microseconds_to_rounded_ns() {
    let t = load(
        r#"[{"ph":"X","name":"outer","pid":1,"tid":2,"ts":100,"dur":10.5},
            {"ph":"X","name":"inner","pid":1,"tid":2,"ts":"101.0004","dur":2.0006}]"#,
    );
    assert_eq!(slices(&t), vec![("outer", 0, 10_500, 0), ("inner", 1_000, 2_001, 1)]);
    assert_eq!(t.origin_ns, 100_000);
    assert_eq!(t.span_ns, 10_500);
    assert_eq!(t.event_records, 2);
    assert!(t.warnings.is_empty());
}

#[test]
fn begin_end_pairs_match_per_thread() {
    let t = load(
        r#"{"traceEvents":[
            {"ph":"B","name":"a","pid":1,"tid":1,"ts":0},
            {"ph":"B","name":"a","pid":1,"tid":2,"ts":1},
            {"ph":"B","name":"b","pid":1,"tid":1,"ts":2},
            {"ph":"E","pid":1,"tid":1,"ts":3},
            {"ph":"E","name":"a","pid":1,"tid":2,"ts":4},
            {"ph":"E","name":"a","pid":1,"tid":1,"ts":5}],
            "displayTimeUnit":"ns","otherData":{"version":"x"}}"#,
    );
    assert_eq!(
        intervals(&t),
        vec![
            ("Thread 1".into(), "a".into(), 0, 5_000, 0),
            ("Thread 1".into(), "b".into(), 2_000, 1_000, 1),
            ("Thread 2".into(), "a".into(), 1_000, 3_000, 0),
        ]
    );
    assert!(t.warnings.is_empty());
}

#[test]
fn instants_metadata_and_string_ids() {
    let t = load(
        r#"[{"ph":"M","name":"process_name","pid":"browser","args":{"name":"Browser"}},
            {"ph":"M","name":"thread_name","pid":"browser","tid":"main","args":{"name":"CrBrowserMain"}},
            {"ph":"M","name":"process_sort_index","pid":7,"args":{"sort_index":-3}},
            {"ph":"M","name":"thread_sort_index","pid":7,"tid":9,"args":{"sort_index":4}},
            {"ph":"M","name":"process_labels","pid":7,"args":{"labels":"x"}},
            {"ph":"i","name":"tick","s":"t","pid":"browser","tid":"main","ts":5},
            {"ph":"I","name":"mark","s":"g","pid":7,"tid":9,"ts":6},
            {"ph":"R","name":"nav","pid":7,"tid":9,"ts":7},
            {"ph":"i","name":"unnamed-thread","pid":"gpu","tid":"io","ts":8}]"#,
    );
    assert_eq!(t.instants.time_ns.len(), 4);
    assert_eq!(t.processes.len(), 3);
    let names: Vec<&str> = (0..t.processes.len()).map(|p| t.process_name(weft::model::ProcessId(p as u32))).collect();
    assert!(names.contains(&"Browser"), "{names:?}");
    assert!(names.contains(&"gpu"), "{names:?}");
    let threads: Vec<&str> =
        (0..t.locations.len()).map(|l| t.location_name(weft::model::LocationId(l as u32))).collect();
    assert!(threads.contains(&"CrBrowserMain") && threads.contains(&"io"), "{threads:?}");
    let p7 = (0..t.processes.len()).find(|&p| t.processes.native_id[p] == 7).expect("pid 7");
    assert_eq!(t.processes.sort_key[p7], -3);
    let l9 = (0..t.locations.len()).find(|&l| t.locations.native_id[l] == 9).expect("tid 9");
    assert_eq!(t.locations.sort_key[l9], 4);
    assert!(t.warnings.is_empty());
}

#[test]
fn counters_make_one_series_per_numeric_arg() {
    let t = load(
        r#"[{"ph":"C","name":"mem","pid":1,"ts":0,"args":{"rss":10}},
            {"ph":"C","name":"mem","pid":1,"ts":1,"args":{"rss":"12.5"}},
            {"ph":"C","name":"net","pid":1,"ts":0,"args":{"tx":1,"rx":2,"label":"eth0"}},
            {"ph":"C","name":"mem","pid":2,"ts":2,"args":{"rss":1e3}}]"#,
    );
    let c = &t.counters;
    let names: Vec<(&str, u32)> =
        (0..c.series_name.len()).map(|s| (t.str(c.series_name[s]), c.series_process[s].0)).collect();
    assert_eq!(names, vec![("mem", 0), ("net.tx", 0), ("net.rx", 0), ("mem", 1)]);
    assert_eq!(c.sample_value, vec![10.0, 12.5, 1.0, 2.0, 1000.0]);
    assert_eq!(c.sample_time_ns, vec![0, 1_000, 0, 0, 2_000]);
}

#[test]
fn flow_events_become_flow_messages_between_steps() {
    // Each end lies in a slice of its thread (flow ends bind to slices; flows.rs).
    let t = load(
        r#"[{"ph":"X","name":"send","pid":1,"tid":1,"ts":0,"dur":5},
            {"ph":"X","name":"relay","pid":2,"tid":2,"ts":2,"dur":2},
            {"ph":"X","name":"recv","pid":3,"tid":3,"ts":6,"dur":4},
            {"ph":"s","name":"ipc","cat":"c","id":"0x1","pid":1,"tid":1,"ts":1},
            {"ph":"t","name":"ipc","cat":"c","id":"0x1","pid":2,"tid":2,"ts":3},
            {"ph":"f","name":"ipc","cat":"c","id":"0x1","bp":"e","pid":3,"tid":3,"ts":7},
            {"ph":"f","name":"ipc","cat":"c","id":"0x2","pid":3,"tid":3,"ts":8},
            {"ph":"s","name":"ipc","cat":"other","id":"0x1","pid":1,"tid":1,"ts":9}]"#,
    );
    let m = &t.messages;
    assert_eq!(m.len(), 2);
    assert!(m.kind.iter().all(|&k| k == MessageKind::Flow));
    let ends: Vec<(i64, i64, u64, u64)> = (0..m.len())
        .map(|i| {
            let pid = |l: weft::model::LocationId| t.processes.native_id[t.locations.process[l.index()].index()];
            (pid(m.sender[i]), pid(m.receiver[i]), m.send_ns[i], m.recv_ns[i])
        })
        .collect();
    assert_eq!(ends, vec![(1, 2, 1_000, 3_000), (2, 3, 3_000, 7_000)]);
    // The f with no s, and the s with no f.
    assert_eq!(t.warnings.count(WarningKind::UnmatchedFlow), 2);
}

#[test]
fn bind_id_flows_link_slices() {
    let t = load(
        r#"[{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":1,"bind_id":"q","flow_out":true},
            {"ph":"B","name":"b","pid":1,"tid":2,"ts":4,"bind_id":"q","flow_in":true},
            {"ph":"E","pid":1,"tid":2,"ts":5}]"#,
    );
    assert_eq!(t.messages.len(), 1);
    assert_eq!((t.messages.send_ns[0], t.messages.recv_ns[0]), (0, 4_000));
}

/// The async tracks' names, in location order.
fn async_track_names(t: &Trace) -> Vec<&str> {
    (0..t.locations.len())
        .filter(|&l| t.locations.kind[l] == LocationKind::AsyncTrack)
        .map(|l| t.location_name(weft::model::LocationId(l as u32)))
        .collect()
}

#[test]
fn async_slices_go_on_async_tracks_and_overlaps_get_their_own_track() {
    let t = load(
        r#"[{"ph":"b","name":"load","cat":"net","id":1,"pid":1,"tid":1,"ts":0},
            {"ph":"b","name":"dns","cat":"net","id":1,"pid":1,"tid":1,"ts":1},
            {"ph":"n","name":"hop","cat":"net","id":1,"pid":1,"tid":1,"ts":1.5},
            {"ph":"e","name":"dns","cat":"net","id":1,"pid":1,"tid":1,"ts":2},
            {"ph":"b","name":"load","cat":"net","id":2,"pid":1,"tid":1,"ts":3},
            {"ph":"e","name":"load","cat":"net","id":1,"pid":1,"tid":1,"ts":5},
            {"ph":"e","name":"load","cat":"net","id":2,"pid":1,"tid":1,"ts":6},
            {"ph":"b","name":"load","cat":"net","id":3,"pid":1,"tid":1,"ts":7},
            {"ph":"e","name":"load","cat":"net","id":3,"pid":1,"tid":1,"ts":8},
            {"ph":"S","name":"legacy","id":"x","pid":1,"tid":1,"ts":0},
            {"ph":"T","name":"legacy","id":"x","pid":1,"tid":1,"ts":1,"args":{"step":"s1"}},
            {"ph":"F","name":"legacy","id":"x","pid":1,"tid":1,"ts":4}]"#,
    );
    let names = async_track_names(&t);
    assert_eq!(names, vec!["load", "legacy", "load (2)"]);
    let mut got = intervals(&t);
    got.sort();
    assert_eq!(
        got,
        vec![
            ("legacy".into(), "legacy".into(), 0, 4_000, 0),
            ("load".into(), "dns".into(), 1_000, 1_000, 1),
            ("load".into(), "load".into(), 0, 5_000, 0),
            ("load".into(), "load".into(), 7_000, 1_000, 0),
            ("load (2)".into(), "load".into(), 3_000, 3_000, 0),
        ]
    );
    assert_eq!(t.instants.time_ns.len(), 1);
    assert!(t.warnings.is_empty(), "{:?}", t.warnings);
}

/// An id reused after its slices ended starts a new tree (and may take the freed track); an end for an id
/// with nothing open, or naming a slice that is not open, is dropped and counted; a named end closes the
/// slices opened inside its own.
#[test]
fn async_ids_reused_after_they_close_start_new_trees_and_stray_ends_are_counted() {
    let t = load(
        r#"[{"ph":"e","name":"load","cat":"net","id":9,"pid":1,"tid":1,"ts":0},
            {"ph":"b","name":"load","cat":"net","id":1,"pid":1,"tid":1,"ts":1},
            {"ph":"b","name":"parse","cat":"net","id":1,"pid":1,"tid":1,"ts":2},
            {"ph":"e","name":"paint","cat":"net","id":1,"pid":1,"tid":1,"ts":3},
            {"ph":"e","name":"load","cat":"net","id":1,"pid":1,"tid":1,"ts":4},
            {"ph":"e","name":"load","cat":"net","id":1,"pid":1,"tid":1,"ts":5},
            {"ph":"b","name":"load","cat":"net","id":1,"pid":1,"tid":1,"ts":6},
            {"ph":"b","name":"load","cat":"net","id":2,"pid":1,"tid":1,"ts":6.5},
            {"ph":"e","name":"load","cat":"net","id":1,"pid":1,"tid":1,"ts":7},
            {"ph":"e","name":"load","cat":"net","id":2,"pid":1,"tid":1,"ts":8}]"#,
    );
    let names = async_track_names(&t);
    assert_eq!(names, vec!["load", "load (2)"]);
    let mut got = intervals(&t);
    got.sort();
    assert_eq!(
        got,
        vec![
            ("load".into(), "load".into(), 0, 3_000, 0),
            ("load".into(), "load".into(), 5_000, 1_000, 0),
            ("load".into(), "parse".into(), 1_000, 2_000, 1),
            ("load (2)".into(), "load".into(), 5_500, 1_500, 0),
        ]
    );
    // Times from the first kept event's (the stray end at 0 is dropped).
    let count = |k: WarningKind| t.warnings.count(k);
    // The end of id 9 (never begun), the named end of "paint" (not open), the second end of id 1.
    assert_eq!(count(WarningKind::UnmatchedEnd), 3, "{:?}", t.warnings);
    // The end of "load" closed "parse" inside it.
    assert_eq!(count(WarningKind::MismatchedEnd), 1, "{:?}", t.warnings);
}

#[test]
fn samples_and_unknown_phases_are_skipped_and_counted() {
    let t = load(
        r#"[{"ph":"P","name":"sample","pid":1,"tid":1,"ts":0},
            {"ph":"O","name":"snapshot","pid":1,"tid":1,"ts":0,"id":"0x1","args":{"snapshot":{}}},
            {"ph":"X","name":"x","pid":1,"tid":1,"ts":0,"dur":1},
            {"name":"no phase","pid":1,"tid":1,"ts":0}]"#,
    );
    assert_eq!(t.intervals.len(), 1);
    assert_eq!(t.warnings.count(WarningKind::UnknownRecord), 2);
    assert_eq!(t.warnings.count(WarningKind::MalformedRecord), 1);
}

#[test]
fn unusable_timestamps_skip_the_record() {
    let t = load(
        r#"[{"ph":"X","name":"ok","pid":1,"tid":1,"ts":1,"dur":1},
            {"ph":"X","name":"nan","pid":1,"tid":1,"ts":NaN,"dur":1},
            {"ph":"X","name":"inf","pid":1,"tid":1,"ts":-Infinity,"dur":1},
            {"ph":"X","name":"neg","pid":1,"tid":1,"ts":-5,"dur":1},
            {"ph":"X","name":"huge","pid":1,"tid":1,"ts":1e300,"dur":1},
            {"ph":"X","name":"negdur","pid":1,"tid":1,"ts":1,"dur":-1},
            {"ph":"B","name":"text","pid":1,"tid":1,"ts":"soon"},
            {"ph":"i","name":"none","pid":1,"tid":1}]"#,
    );
    assert_eq!(slices(&t), vec![("ok", 0, 1_000, 0)]);
    assert_eq!(t.warnings.count(WarningKind::BadTimestamp), 6);
    assert_eq!(t.warnings.count(WarningKind::MalformedRecord), 1);
}

#[test]
fn unmatched_and_unclosed_begin_end_are_repaired() {
    // E with no B is dropped; B with no E closes at the thread's last timestamp (the X's end).
    let t = load(
        r#"[{"ph":"E","name":"ghost","pid":1,"tid":1,"ts":0},
            {"ph":"B","name":"open","pid":1,"tid":1,"ts":1},
            {"ph":"X","name":"x","pid":1,"tid":1,"ts":2,"dur":8}]"#,
    );
    assert_eq!(slices(&t), vec![("open", 0, 9_000, 0), ("x", 1_000, 8_000, 1)]);
    assert_eq!(t.warnings.count(WarningKind::UnmatchedEnd), 1);
    assert_eq!(t.warnings.count(WarningKind::UnclosedBegin), 1);
}

#[test]
fn out_of_order_and_equal_timestamps() {
    // Sorted by time; an E before its B at one timestamp makes a zero-length slice.
    let t = load(
        r#"[{"ph":"B","name":"late","pid":1,"tid":1,"ts":5},
            {"ph":"E","name":"late","pid":1,"tid":1,"ts":6},
            {"ph":"B","name":"early","pid":1,"tid":1,"ts":0},
            {"ph":"E","name":"zero","pid":1,"tid":1,"ts":2},
            {"ph":"B","name":"zero","pid":1,"tid":1,"ts":2},
            {"ph":"E","name":"early","pid":1,"tid":1,"ts":9}]"#,
    );
    assert_eq!(slices(&t), vec![("early", 0, 9_000, 0), ("zero", 2_000, 0, 1), ("late", 5_000, 1_000, 1)]);
    assert_eq!(t.warnings.count(WarningKind::OutOfOrder), 1);
    assert_eq!(t.warnings.total(), 1);
}

#[test]
fn overlapping_complete_events_are_clipped_by_the_builder() {
    let t = load(
        r#"[{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":10},
            {"ph":"X","name":"b","pid":1,"tid":1,"ts":5,"dur":10}]"#,
    );
    assert_eq!(slices(&t), vec![("a", 0, 10_000, 0), ("b", 5_000, 5_000, 1)]);
    assert_eq!(t.warnings.count(WarningKind::ImproperNesting), 1);
}

#[test]
fn broken_and_empty_documents_are_clear_errors() {
    let cases: &[(&str, &str)] = &[
        ("[]", "no events"),
        ("{\"traceEvents\":[]}", "no events"),
        ("", "no JSON"),
        ("   ", "no JSON"),
        ("[{\"ph\":\"X\",}]", "expected a key"),
        ("[{\"ph\":\"X\"} x]", "expected '{' (an event) or ']'"),
        ("{\"traceEvents\":5}", "expected '[' after \"traceEvents\""),
        ("hello", "expected '[' or '{'"),
        ("{\"meta\":{\"a\":[1]},\"n\":2}", "without a \"traceEvents\" array"),
    ];
    for (json, want) in cases {
        match read("bad.json", json.as_bytes()) {
            Ok(_) => panic!("{json:?} should be refused"),
            Err(e) => {
                let msg = e.to_string();
                assert!(msg.starts_with("bad.json"), "{msg}");
                assert!(msg.contains(want), "{json:?}: {msg}");
            }
        }
    }
    match read("off.json", b"[{\"ph\":\"X\"},\n{\"ph\" \"X\"}]") {
        Err(ReadError::Malformed { offset, .. }) => assert_eq!(offset, 19),
        other => panic!("expected a malformed error, got {other:?}"),
    }
}

// ---- golden expectations for small real traces, verified by reading the files by hand ----

fn shared(test: &str, rel: &str) -> Option<Trace> {
    let dir = common::shared_traces(test)?;
    let path = dir.join("chrome-json").join(rel);
    let bytes = std::fs::read(&path).ok()?;
    Some(read(rel, &bytes).unwrap_or_else(|e| panic!("{e}")))
}

#[test]
fn golden_catapult_trivial_trace() {
    let Some(t) = shared("golden_catapult_trivial_trace", "catapult/trivial_trace.json") else {
        return;
    };
    // B/E a at 9524..9560 and b at 9629..9631 on pid 52 tid 53.
    assert_eq!(slices(&t), vec![("a", 0, 36_000, 0), ("b", 105_000, 2_000, 0)]);
    assert_eq!((t.processes.len(), t.locations.len(), t.messages.len()), (1, 1, 0));
    assert!(t.warnings.is_empty());
}

#[test]
fn golden_catapult_flow_simple() {
    let Some(t) = shared("golden_catapult_flow_simple", "catapult/flow_simple.json") else {
        return;
    };
    // Five X slices on five threads of five processes; flow 8780d402 goes s -> t -> f (two arrows),
    // flow 8780d403 goes s -> f (one arrow).
    assert_eq!((t.intervals.len(), t.locations.len(), t.processes.len()), (5, 5, 5));
    assert_eq!(t.messages.len(), 3);
    let mut times: Vec<(u64, u64)> = (0..3).map(|i| (t.messages.send_ns[i], t.messages.recv_ns[i])).collect();
    times.sort();
    // Times relative to the first event (ts 0): 1 -> 1001, 3002 -> 3220 -> 3331 (microseconds). The last `f`
    // (ts 3330, no `bp`) binds to the next slice that starts on its thread, SomeSlice at 3331, and the arrow
    // lands where that slice starts.
    assert_eq!(times, vec![(1_000, 1_001_000), (3_002_000, 3_220_000), (3_220_000, 3_331_000)]);
    assert!(t.warnings.is_empty());
}

#[test]
fn golden_speedscope_matching_x() {
    let Some(t) = shared("golden_speedscope_matching_x", "speedscope-trace-event/matching-x.json") else {
        return;
    };
    assert_eq!(
        slices(&t),
        vec![
            ("alpha", 0, 10_000, 0),
            ("beta", 1_000, 1_000, 1),
            ("gamma", 1_000, 1_000, 2),
            ("gamma", 5_000, 1_000, 1),
            ("beta", 5_000, 1_000, 2),
        ]
    );
    assert!(t.warnings.is_empty());
}

#[test]
fn golden_speedscope_end_non_top_of_stack() {
    let Some(t) = shared("golden_speedscope_end_non_top", "speedscope-trace-event/end-non-top-of-stack.json") else {
        return;
    };
    // E A at 10 while B is open inside A: both close at 10; then X Z at 10..11.
    assert_eq!(slices(&t), vec![("A", 0, 10_000, 0), ("B", 1_000, 9_000, 1), ("Z", 10_000, 1_000, 0)]);
    assert_eq!(t.warnings.count(WarningKind::MismatchedEnd), 1);
    assert_eq!(t.warnings.total(), 1);
}

#[test]
fn golden_speedscope_event_reordering_name_match() {
    let Some(t) = shared("golden_speedscope_reordering", "speedscope-trace-event/event-reordering-name-match.json")
    else {
        return;
    };
    assert_eq!(slices(&t), vec![("alpha", 0, 10_000, 0), ("beta", 1_000, 1_000, 1), ("gamma", 1_000, 1_000, 2)]);
    assert!(t.warnings.is_empty());
}

#[test]
fn golden_speedscope_too_many_end_events_and_partial() {
    let Some(t) = shared("golden_speedscope_too_many_ends", "speedscope-trace-event/too-many-end-events.json") else {
        return;
    };
    assert_eq!(slices(&t), vec![("alpha", 0, 14_000, 0), ("beta", 1_000, 12_000, 1)]);
    assert_eq!(t.warnings.count(WarningKind::UnmatchedEnd), 2);
    assert_eq!(t.warnings.count(WarningKind::OutOfOrder), 1);
    let Some(t) = shared("golden_speedscope_partial", "speedscope-trace-event/simple-partial.json") else {
        return;
    };
    // No closing bracket: all six events kept; epsilon has only tdur 4.
    assert_eq!(
        slices(&t),
        vec![
            ("alpha", 0, 14_000, 0),
            ("beta", 1_000, 12_000, 1),
            ("gamma", 2_000, 5_000, 2),
            ("epsilon", 7_000, 4_000, 2)
        ]
    );
    assert_eq!(t.warnings.count(WarningKind::Truncated), 1);
    assert_eq!(t.warnings.total(), 1);
}

/// Per region name: (count, total duration ns), sorted by name.
fn totals(t: &Trace) -> Vec<(String, u64, u64)> {
    let mut m: std::collections::BTreeMap<String, (u64, u64)> = Default::default();
    for (_, r, _, d, _) in intervals(t) {
        let e = m.entry(r).or_default();
        e.0 += 1;
        e.1 += d;
    }
    m.into_iter().map(|(k, (c, d))| (k, c, d)).collect()
}

#[test]
fn golden_catapult_nestable_async() {
    let Some(t) = shared("golden_catapult_nestable_async", "catapult/nestable_async.json") else {
        return;
    };
    // id 0x313: REQUEST_BAR 10..100 holding DELEGATE 20..30, START_JOB 40..70 > INNER 50..60, and
    // UNMATCHED_BEGIN 80.. closed with its parent at 100 (one mismatched end).
    // id 0x314: REQUEST_FOO 110..200 holding START_JOB 140..170 > INNER 150..160 and DELEGATE 180..190;
    // the end named UNMATCHED_END at 130 matches nothing and is dropped.
    let want: Vec<(String, u64, u64)> = vec![
        ("REQUEST_BAR".into(), 1, 90_000),
        ("REQUEST_FOO".into(), 1, 90_000),
        ("URL_REQUEST_DELEGATE".into(), 2, 20_000),
        ("URL_REQUEST_DELEGATE_UNMATCHED_BEGIN".into(), 1, 20_000),
        ("URL_REQUEST_INNER".into(), 2, 20_000),
        ("URL_REQUEST_START_JOB".into(), 2, 60_000),
    ];
    assert_eq!(totals(&t), want);
    // One thread (for the two n instants) and one async track per request.
    assert_eq!((t.locations.len(), t.instants.time_ns.len()), (3, 2));
    assert_eq!(t.warnings.count(WarningKind::MismatchedEnd), 1);
    assert_eq!(t.warnings.count(WarningKind::UnmatchedEnd), 1);
    assert_eq!(t.warnings.total(), 2);
}

#[test]
fn golden_catapult_async_begin_end() {
    let Some(t) = shared("golden_catapult_async_begin_end", "catapult/async_begin_end.json") else {
        return;
    };
    // Legacy S/F pairs match on (cat, name, id) within a process; the trace's last time is 900 us.
    // pid 1: S 'us' and b 'ub' never end (0..900), A 1a 50..900 and A 2a 250..750, B 1 100..300 and
    // B 2 200..400 (overlapping: two B tracks), D bf1's F has no S, D bf2 725..900 never ends;
    // pid 2: E 1 500..900 and E 2 600..900 never end (their F events are in pid 3: unmatched);
    // pid 4: F F 0..100, 100..200, 200..300 (end and begin at one time: one track).
    // Thread (1,1): B/E BE1 120..170 and 220..350 holding BE2 230..270.
    let want: Vec<(String, u64, u64)> = vec![
        ("A".into(), 2, 1_350_000),
        ("B".into(), 2, 400_000),
        ("BE1".into(), 2, 180_000),
        ("BE2".into(), 1, 40_000),
        ("D".into(), 1, 175_000),
        ("E".into(), 2, 700_000),
        ("F".into(), 3, 300_000),
        ("S".into(), 1, 900_000),
        ("b".into(), 1, 900_000),
    ];
    assert_eq!(totals(&t), want);
    assert_eq!((t.processes.len(), t.locations.len()), (4, 11));
    assert_eq!(t.warnings.count(WarningKind::UnmatchedEnd), 3);
    assert_eq!(t.warnings.count(WarningKind::UnclosedBegin), 5);
    assert_eq!(t.warnings.total(), 8);
}

/// PyTorch's processes all share `process_name` "python"; `process_labels` ("CPU", "GPU 0") tell them apart
/// and join the name. Processes that one name leaves alike keep their pid. The same read whole or streamed.
#[test]
fn processes_are_named_by_their_labels_or_pid() {
    let json = r#"[{"ph":"M","name":"process_labels","pid":0,"tid":0,"args":{"labels":"GPU 0"}},
        {"ph":"M","name":"process_name","pid":0,"tid":0,"args":{"name":"python"}},
        {"ph":"M","name":"process_name","pid":4037,"tid":0,"args":{"name":"python"}},
        {"ph":"M","name":"process_labels","pid":4037,"tid":0,"args":{"labels":"CPU"}},
        {"ph":"M","name":"process_sort_index","pid":0,"tid":0,"args":{"sort_index":16777216}},
        {"ph":"M","name":"process_name","pid":8,"tid":0,"args":{"name":"worker"}},
        {"ph":"M","name":"process_name","pid":9,"tid":0,"args":{"name":"worker"}},
        {"ph":"M","name":"process_name","pid":10,"tid":0,"args":{"name":"main"}},
        {"ph":"X","name":"k","pid":0,"tid":7,"ts":1,"dur":2},
        {"ph":"X","name":"op","pid":4037,"tid":1,"ts":0,"dur":5},
        {"ph":"X","name":"w","pid":8,"tid":1,"ts":0,"dur":5},
        {"ph":"X","name":"w","pid":9,"tid":1,"ts":0,"dur":5},
        {"ph":"X","name":"m","pid":10,"tid":1,"ts":0,"dur":5}]"#;
    let t = load(json);
    let name = |pid: i64| {
        let p = (0..t.processes.len()).find(|&p| t.processes.native_id[p] == pid).expect("pid");
        t.process_name(weft::model::ProcessId(p as u32)).to_string()
    };
    assert_eq!(name(0), "python (GPU 0)");
    assert_eq!(name(4037), "python (CPU)");
    assert_eq!((name(8), name(9)), ("worker (pid 8)".to_string(), "worker (pid 9)".to_string()));
    assert_eq!(name(10), "main");
    let p0 = (0..t.processes.len()).find(|&p| t.processes.native_id[p] == 0).unwrap();
    assert_eq!(t.processes.sort_key[p0], 16777216, "the sort index still orders them");
    let mut r = weft::readers::chrome::ChromeStreamReader::new("labels.json");
    for piece in json.as_bytes().chunks(7) {
        r.feed(piece).unwrap();
    }
    let streamed = r.finish().unwrap();
    assert_eq!(streamed.processes.name.len(), t.processes.name.len());
    for p in 0..t.processes.len() {
        let id = weft::model::ProcessId(p as u32);
        assert_eq!(streamed.process_name(id), t.process_name(id));
    }
}
