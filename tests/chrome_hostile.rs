//! Chrome JSON that is valid but unusual, or nonsense that must not pass silently: large top-level values
//! before "traceEvents", UTF-16 (what PowerShell's `>` writes), pid/tid that are not numbers or strings,
//! trailing garbage and second documents, and the matching rules at scale (unmatched ends, never-ended
//! async slices) giving the same result as before they were indexed.

use crate::common;
use common::read::read_bytes;
use weft::model::{Trace, WarningKind};
use weft::readers::chrome::ChromeStreamReader;
use weft::readers::{sniff, Sniffed};

const EVENTS: &str = r#"[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":5},{"ph":"B","name":"b","pid":1,"tid":2,"ts":2},{"ph":"E","pid":1,"tid":2,"ts":4}]"#;

fn read_chunked(bytes: &[u8], chunk: usize) -> Trace {
    let mut r = ChromeStreamReader::new("t.json");
    for c in bytes.chunks(chunk.max(1)) {
        r.feed(c).expect("feeds");
    }
    r.finish().expect("reads")
}

fn messages(t: &Trace) -> String {
    t.warnings.examples().iter().map(|w| w.message.clone()).collect::<Vec<_>>().join("\n")
}

#[test]
fn large_values_before_trace_events_are_streamed_past() {
    let pad = "y".repeat(300_000);
    let doc = format!(
        "{{\"metadata\":{{\"pad\":\"{pad}\",\"list\":[1,2,{{\"k\":\"]}}\"}}]}}, \"n\" : 12.5e3 ,\"flag\":true,\"{}\":null,\"traceEvents\":{EVENTS}}}",
        "k".repeat(100_000)
    );
    let b = doc.as_bytes();
    assert_eq!(sniff(b), Sniffed::ChromeJson);
    assert_eq!(sniff(&b[..64 * 1024]), Sniffed::ChromeJson, "the head alone cannot tell: read on");
    let whole = read_bytes("big-head.json", b).expect("reads");
    assert_eq!(whole.intervals.len(), 2);
    assert!(whole.warnings.is_empty(), "{:?}", whole.warnings);
    for chunk in [1, 7, 4096, 65_536] {
        let t = read_chunked(b, chunk);
        assert_eq!(t.intervals.len(), 2, "chunk {chunk}");
        assert!(t.warnings.is_empty(), "chunk {chunk}: {:?}", t.warnings);
    }
    // An object without traceEvents, however large its head, is still refused clearly.
    let none = format!("{{\"metadata\":\"{pad}\"}}");
    let e = read_bytes("none.json", none.as_bytes()).unwrap_err().to_string();
    assert!(e.contains("without \"traceEvents\"") && e.contains("none.json"), "{e}");
}

fn utf16(text: &str, big_endian: bool, bom: bool) -> Vec<u8> {
    let mut out = Vec::new();
    if bom {
        out.extend_from_slice(if big_endian { &[0xFE, 0xFF] } else { &[0xFF, 0xFE] });
    }
    for u in text.encode_utf16() {
        out.extend_from_slice(&if big_endian { u.to_be_bytes() } else { u.to_le_bytes() });
    }
    out
}

#[test]
fn utf16_json_is_transcoded() {
    let text = format!("{{\"traceEvents\":{}}}\r\n", EVENTS.replace("\"a\"", "\"é😀\""));
    let plain = read_bytes("u8.json", text.as_bytes()).expect("reads");
    for (be, bom) in [(false, true), (false, false), (true, true), (true, false)] {
        let b = utf16(&text, be, bom);
        assert_eq!(sniff(&b), Sniffed::ChromeJson, "be {be} bom {bom}");
        let t = read_bytes("u16.json", &b).expect("reads");
        assert_eq!(t.intervals.len(), plain.intervals.len());
        assert!(t.warnings.is_empty(), "{:?}", t.warnings);
        let names: Vec<&str> = (0..t.regions.len()).map(|r| t.str(t.regions.name[r])).collect();
        assert!(names.contains(&"é😀"), "{names:?}");
        for chunk in [1, 3, 1000] {
            assert_eq!(read_chunked(&b, chunk).intervals.len(), 2, "chunk {chunk}");
        }
    }
    // Other formats in UTF-16 are named, not called binary data.
    let prv = utf16("#Paraver (01/01/2026 at 00:00):1000_ns:1(1):1:1(1:1)\n", false, true);
    match sniff(&prv) {
        Sniffed::Unknown(what) => assert!(what.contains("UTF-16") && what.contains("Paraver"), "{what}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn pid_and_tid_that_are_not_numbers_or_strings_skip_the_event() {
    for bad in ["null", "true", "[1]", "{\"a\":1}", "NaN"] {
        for field in ["pid", "tid"] {
            let other = if field == "pid" { "tid" } else { "pid" };
            let doc = format!(
                "[{{\"ph\":\"X\",\"name\":\"ok\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1}},{{\"ph\":\"X\",\"name\":\"bad\",\"{field}\":{bad},\"{other}\":1,\"ts\":1,\"dur\":1}}]"
            );
            let t = read_bytes("ids.json", doc.as_bytes()).expect("reads");
            assert_eq!(t.intervals.len(), 1, "{field} {bad}");
            assert_eq!(t.locations.len(), 1, "{field} {bad}: no made-up thread");
            assert_eq!(t.warnings.count(WarningKind::MalformedRecord), 1, "{field} {bad}");
            assert!(messages(&t).contains(&format!("has {field} {bad}")), "{}", messages(&t));
        }
    }
    // Numbers and strings (and absent ids) stay fine.
    let ok = r#"[{"ph":"X","name":"a","pid":"p","tid":"t","ts":1,"dur":1},{"ph":"X","name":"a","ts":1,"dur":1}]"#;
    assert!(read_bytes("ok.json", ok.as_bytes()).unwrap().warnings.is_empty());
}

#[test]
fn trailing_garbage_and_second_documents_are_warned_about() {
    for tail in ["garbage", "[{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1}]", "\u{0}\u{0}", "}"] {
        for doc in [format!("{EVENTS}\n{tail}"), format!("{{\"traceEvents\":{EVENTS}}} {tail}")] {
            let t = read_bytes("tail.json", doc.as_bytes()).expect("reads");
            assert_eq!(t.intervals.len(), 2, "{doc}");
            assert_eq!(t.warnings.count(WarningKind::Other), 1, "{doc}");
            let m = messages(&t);
            assert!(m.contains(&format!("{} bytes after the end", tail.len())), "{m}");
            for chunk in [1, 5] {
                assert_eq!(read_chunked(doc.as_bytes(), chunk).warnings.count(WarningKind::Other), 1);
            }
        }
    }
    let clean = format!("{EVENTS}\n\r\n  \t");
    assert!(read_bytes("clean.json", clean.as_bytes()).unwrap().warnings.is_empty());
}

#[test]
fn indexed_matching_keeps_the_rules() {
    // Rule 4 further out, rule 5, and ends waiting for their group, with many slices open.
    let mut ev = Vec::new();
    for i in 0..1000 {
        ev.push(format!(r#"{{"ph":"B","name":"n{}","pid":1,"tid":1,"ts":{i}}}"#, i % 10));
    }
    ev.push(r#"{"ph":"E","name":"zz","pid":1,"tid":1,"ts":2000}"#.into());
    // The innermost open slice is n9 (i = 999); n5 was last opened at i = 995: closes 5 slices.
    ev.push(r#"{"ph":"E","name":"n5","pid":1,"tid":1,"ts":2001}"#.into());
    // At one timestamp: an end waiting for a begin that comes after it.
    ev.push(r#"{"ph":"E","name":"late","pid":1,"tid":1,"ts":2002}"#.into());
    ev.push(r#"{"ph":"B","name":"late","pid":1,"tid":1,"ts":2002}"#.into());
    let doc = format!("[{}]", ev.join(","));
    let t = read_bytes("rules.json", doc.as_bytes()).expect("reads");
    assert_eq!(t.warnings.count(WarningKind::UnmatchedEnd), 1);
    assert_eq!(t.warnings.count(WarningKind::MismatchedEnd), 1);
    assert_eq!(t.warnings.count(WarningKind::UnclosedBegin), 995);
    let iv = &t.intervals;
    let closed_at = |end: u64| (0..iv.len()).filter(|&i| iv.start_ns[i] + iv.dur_ns[i] == end).count();
    assert_eq!(closed_at(2_001_000), 5);
    let late = (0..iv.len()).find(|&i| t.region_name(iv.region[i]) == "late").expect("late slice");
    assert_eq!(iv.dur_ns[late], 0);
}

#[test]
fn never_ended_async_slices_get_tracks_in_order() {
    // Ids 0..5 never end; 5..10 end before the next begins: five tracks of "job" plus reuse of the first free.
    let mut ev = Vec::new();
    for i in 0..5 {
        ev.push(format!(r#"{{"ph":"b","cat":"c","name":"job","id":{i},"pid":1,"ts":{i}}}"#));
    }
    for i in 5..10 {
        ev.push(format!(r#"{{"ph":"b","cat":"c","name":"job","id":{i},"pid":1,"ts":{}}}"#, i * 10));
        ev.push(format!(r#"{{"ph":"e","cat":"c","name":"job","id":{i},"pid":1,"ts":{}}}"#, i * 10 + 5));
    }
    let doc = format!("[{}]", ev.join(","));
    let t = read_bytes("async.json", doc.as_bytes()).expect("reads");
    let names: Vec<&str> = (0..t.locations.len()).map(|l| t.location_name(weft::model::LocationId(l as u32))).collect();
    assert_eq!(names, ["job", "job (2)", "job (3)", "job (4)", "job (5)", "job (6)"]);
    assert_eq!(t.warnings.count(WarningKind::UnclosedBegin), 5);
}
