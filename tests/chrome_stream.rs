//! Chrome reader as a stream: truncation at every offset, gzip, chunked reads equal whole reads,
//! array form equals object form, generated fixtures against their known structure, and every real
//! trace under ../shared/traces/chrome-json loads or is refused with a clear error.

use crate::common;

use common::read::read_bytes;
use std::io::Write;
use weft::model::{Trace, WarningKind};
use weft::readers::chrome::{read, ChromeStreamReader};
use weft::readers::ReadError;
use weft::samples::rng::XorShift as Rng;
use weft::samples::ChromeSample;

/// Everything a reader decides, as comparable text.
fn fingerprint(t: &Trace) -> String {
    let mut s = String::new();
    let iv = &t.intervals;
    for i in 0..iv.len() {
        s += &format!(
            "I {} {} {} {} {}\n",
            t.location_name(iv.location[i]),
            t.region_name(iv.region[i]),
            iv.start_ns[i],
            iv.dur_ns[i],
            iv.depth[i]
        );
    }
    for l in 0..t.locations.len() {
        s += &format!(
            "L {} {} {:?} {}\n",
            t.locations.process[l].0, t.locations.native_id[l], t.locations.kind[l], t.locations.sort_key[l]
        );
    }
    for p in 0..t.processes.len() {
        s += &format!(
            "P {} {} {}\n",
            t.processes.native_id[p],
            t.process_name(weft::model::ProcessId(p as u32)),
            t.processes.sort_key[p]
        );
    }
    let m = &t.messages;
    for i in 0..m.len() {
        s += &format!("M {:?} {} {} {} {}\n", m.kind[i], m.sender[i].0, m.receiver[i].0, m.send_ns[i], m.recv_ns[i]);
    }
    let c = &t.counters;
    for i in 0..c.sample_series.len() {
        s += &format!(
            "C {} {} {}\n",
            t.str(c.series_name[c.sample_series[i] as usize]),
            c.sample_time_ns[i],
            c.sample_value[i]
        );
    }
    for i in 0..t.instants.time_ns.len() {
        s += &format!("i {} {}\n", t.instants.location[i].0, t.instants.time_ns[i]);
    }
    s += &format!("W {:?} origin {} span {} events {}\n", t.warnings.counts(), t.origin_ns, t.span_ns, t.event_records);
    s
}

fn chunked(name: &str, bytes: &[u8], rng: &mut Rng, max_chunk: u64) -> Result<Trace, ReadError> {
    let mut r = ChromeStreamReader::new(name);
    let mut at = 0;
    while at < bytes.len() {
        let n = (1 + rng.below(max_chunk) as usize).min(bytes.len() - at);
        r.feed(&bytes[at..at + n])?;
        at += n;
        assert_eq!(r.bytes_consumed(), at as u64);
    }
    r.finish()
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(bytes).expect("gzip in memory");
    enc.finish().expect("gzip in memory")
}

fn small() -> ChromeSample {
    ChromeSample {
        ranks: 3,
        threads_per_rank: 2,
        iterations: 9,
        imbalance: 0.3,
        late_rank: Some(1),
        late_factor: 1.5,
        ..Default::default()
    }
}

#[test]
fn generated_fixture_has_the_structure_its_parameters_say() {
    let p = small();
    let t = read("gen.json", &p.generate()).expect("generated trace reads");
    let (r, th, n) = (p.ranks as usize, p.threads_per_rank as usize, p.iterations as usize);
    let checkpoints = n.div_ceil(8);
    assert_eq!(t.processes.len(), r);
    assert_eq!(t.locations.len(), r * th + 2 * r, "threads plus two async tracks per rank");
    assert_eq!(t.intervals.len(), r * n * (5 + 3 * (th - 1)) + 2 * r * checkpoints);
    assert_eq!(t.messages.len(), r * n);
    assert_eq!(t.instants.time_ns.len(), r * n);
    assert_eq!(t.counters.series_name.len(), 3 * r);
    assert_eq!(t.counters.sample_series.len(), 3 * r * n);
    assert!(t.warnings.is_empty(), "{:?}", t.warnings);
    let names: Vec<&str> = (0..r).map(|i| t.process_name(weft::model::ProcessId(i as u32))).collect();
    assert_eq!(names, ["Rank 0", "Rank 1", "Rank 2"]);
    // Depths: iteration 0, its children 1; OpenMP loop and barrier at 1 inside the parallel region.
    let max_depth = t.intervals.depth.iter().copied().max();
    assert_eq!(max_depth, Some(1));
}

#[test]
fn chunked_reads_equal_whole_reads() {
    let bytes = small().generate();
    let whole = fingerprint(&read("gen.json", &bytes).expect("whole"));
    let mut rng = Rng(0x5eed);
    for max_chunk in [1, 7, 64, 4096, 1 << 20] {
        let t = chunked("gen.json", &bytes, &mut rng, max_chunk).expect("chunked");
        assert_eq!(fingerprint(&t), whole, "chunks up to {max_chunk} bytes");
    }
    let gz = gzip(&bytes);
    for max_chunk in [1, 13, 1000, 1 << 20] {
        let t = chunked("gen.json.gz", &gz, &mut rng, max_chunk).expect("chunked gzip");
        assert_eq!(fingerprint(&t), whole, "gzip chunks up to {max_chunk} bytes");
    }
    assert_eq!(fingerprint(&read_bytes("gen.json.gz", &gz).expect("gzip via sniffing")), whole);
}

#[test]
fn chunked_reads_hold_only_the_current_event() {
    let bytes = ChromeSample { iterations: 40, ..small() }.generate();
    let mut r = ChromeStreamReader::new("gen.json");
    let mut held = 0;
    for c in bytes.chunks(1000) {
        r.feed(c).expect("feed");
        held = held.max(r.held_bytes());
    }
    assert!(held < 200, "held {held} bytes between chunks; events are under 200 bytes");
    r.finish().expect("finish");
}

#[test]
fn huge_ignored_values_are_skipped_without_being_held() {
    let filler = format!("\"{}\"", "x".repeat(300_000));
    let doc = format!("{{\"systemTraceEvents\":{filler},\"stackFrames\":{{\"1\":{{\"name\":\"]}}\"}}}},\"traceEvents\":[{{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":2}}],\"metadata\":[1,2,{{}}]}}");
    let mut r = ChromeStreamReader::new("big.json");
    for c in doc.as_bytes().chunks(4096) {
        r.feed(c).expect("feed");
        assert!(r.held_bytes() < 4096, "held {}", r.held_bytes());
    }
    let t = r.finish().expect("finish");
    assert_eq!(t.intervals.len(), 1);
    assert!(t.warnings.is_empty());
}

#[test]
fn array_and_object_forms_read_the_same() {
    let array = ChromeSample { object_form: false, ..small() }.generate();
    let object = ChromeSample { object_form: true, ..small() }.generate();
    assert!(object.starts_with(b"{"));
    let a = read("a.json", &array).expect("array");
    let o = read("o.json", &object).expect("object");
    assert_eq!(fingerprint(&a), fingerprint(&o));
}

/// Offsets just past each complete event's closing brace, found line by line (one event per line).
fn event_ends(bytes: &[u8]) -> Vec<usize> {
    let mut ends = Vec::new();
    let mut start = 0;
    for (i, &c) in bytes.iter().enumerate() {
        if c == b'\n' {
            let line = &bytes[start..i];
            if line.starts_with(b"{\"ph\"") {
                let close = line.iter().rposition(|&c| c == b'}').expect("event line ends with }");
                ends.push(start + close + 1);
            }
            start = i + 1;
        }
    }
    ends
}

#[test]
fn truncation_at_any_offset_keeps_the_complete_events_before_it() {
    for object_form in [false, true] {
        let bytes = ChromeSample { iterations: 1, ranks: 2, object_form, ..small() }.generate();
        let full = read("full.json", &bytes).expect("full");
        let ends = event_ends(&bytes);
        assert_eq!(ends.len() as u64, full.event_records);
        // Every offset in one form; every third in the other (keeps the debug-build test fast).
        for cut in (0..bytes.len()).step_by(if object_form { 3 } else { 1 }) {
            let expected = ends.iter().filter(|&&e| e <= cut).count() as u64;
            match read("cut.json", &bytes[..cut]) {
                Ok(t) => {
                    assert_eq!(t.event_records, expected, "cut at {cut}");
                    assert!(t.intervals.len() <= full.intervals.len());
                    let whole_doc = cut >= bytes.len() - 1;
                    assert_eq!(t.warnings.count(WarningKind::Truncated), u64::from(!whole_doc), "cut at {cut}");
                }
                Err(ReadError::Empty { .. }) => assert_eq!(expected, 0, "cut at {cut}"),
                Err(e) => panic!("cut at {cut}: {e}"),
            }
        }
    }
}

#[test]
fn truncated_gzip_keeps_a_prefix_or_says_why() {
    let bytes = small().generate();
    let full = read("full.json", &bytes).expect("full").event_records;
    let gz = gzip(&bytes);
    let mut rng = Rng(77);
    let mut cuts: Vec<usize> = (0..40).map(|_| rng.below(gz.len() as u64) as usize).collect();
    cuts.extend([0, 1, 2, 10, gz.len() - 8, gz.len() - 1]);
    for cut in cuts {
        match read("cut.json.gz", &gz[..cut]) {
            Ok(t) => {
                assert!(t.event_records <= full);
                assert!(t.warnings.count(WarningKind::Truncated) >= 1, "cut at {cut} of {}", gz.len());
            }
            Err(ReadError::Empty { .. }) | Err(ReadError::Decompress { .. }) => {}
            Err(e) => panic!("cut at {cut}: unexpected {e}"),
        }
    }
}

#[test]
fn random_bytes_never_panic() {
    let base = small().generate();
    let mut rng = Rng(99);
    for round in 0..150 {
        let mut b = base[..(rng.below(base.len() as u64) as usize)].to_vec();
        for _ in 0..(1 + rng.below(8)) {
            if b.is_empty() {
                break;
            }
            let i = rng.below(b.len() as u64) as usize;
            b[i] = match rng.below(4) {
                0 => b"{}[]\",:\\"[rng.below(8) as usize],
                1 => rng.next() as u8,
                2 => b' ',
                _ => b'0' + rng.below(10) as u8,
            };
        }
        let mut r = ChromeStreamReader::new("fuzz.json");
        let fed = b.chunks(1 + round % 97).try_for_each(|c| r.feed(c));
        if fed.is_ok() {
            let _ = r.finish();
        }
        let _ = read("fuzz.json", &b);
        let _ = read("fuzz.json.gz", &gzip(&b)[..]);
    }
}

#[test]
fn every_shared_chrome_trace_loads_or_is_refused_clearly() {
    let Some(dir) = common::shared_traces("every_shared_chrome_trace_loads_or_is_refused_clearly") else {
        return;
    };
    let files: Vec<_> = common::files_under(&dir.join("chrome-json"))
        .into_iter()
        .filter(|p| p.to_string_lossy().ends_with(".json") || p.to_string_lossy().ends_with(".json.gz"))
        .collect();
    assert!(files.len() >= 40, "found {} files", files.len());
    let mut loaded = 0;
    for path in &files {
        let name = path.display().to_string();
        let bytes = std::fs::read(path).expect("readable");
        match read_bytes(&name, &bytes) {
            Ok(t) => {
                loaded += 1;
                assert!(t.event_records > 0, "{name}");
                assert_properly_nested(&t);
                // The same file in odd-sized chunks gives the same trace.
                let again = chunked(&name, &bytes, &mut Rng(3), 5000).expect("chunked read");
                assert_eq!(fingerprint(&again), fingerprint(&t), "{name}");
            }
            Err(e) => {
                let msg = e.to_string();
                assert!(msg.starts_with(&name) && msg.len() > name.len() + 10, "unclear error: {msg}");
                eprintln!("refused: {msg}");
            }
        }
    }
    eprintln!("{loaded} of {} shared Chrome traces loaded", files.len());
}

#[test]
fn builtin_sample_is_small_interesting_and_clean() {
    let t = read("sample.json", &weft::samples::builtin_chrome_json()).expect("builtin sample reads");
    assert!((1000..10_000).contains(&t.intervals.len()), "{} intervals", t.intervals.len());
    assert_eq!(t.processes.len(), 8);
    let threads = t.locations.kind.iter().filter(|&&k| k == weft::model::LocationKind::CpuThread).count();
    assert_eq!(threads, 16);
    assert!(t.messages.len() > 100);
    assert!(t.warnings.is_empty(), "{:?}", t.warnings);
    // The late rank computes longest in total: the imbalance is there to see.
    let mut compute = vec![0u64; t.processes.len()];
    for i in 0..t.intervals.len() {
        if t.region_name(t.intervals.region[i]) == "compute_kernel" {
            compute[t.locations.process[t.intervals.location[i].index()].index()] += t.intervals.dur_ns[i];
        }
    }
    let late = weft::samples::ChromeSample::builtin().late_rank.expect("a late rank") as usize;
    assert_eq!(compute.iter().enumerate().max_by_key(|&(_, c)| *c).map(|(r, _)| r), Some(late));
}

/// Checks the model's nesting invariant: per location, sorted by start; each interval's depth is the
/// number of enclosing intervals, and it ends within its parent.
fn assert_properly_nested(t: &Trace) {
    let iv = &t.intervals;
    for range in &t.location_intervals {
        let mut stack: Vec<u64> = Vec::new();
        let mut last_start = 0;
        for i in range.clone() {
            assert!(iv.start_ns[i] >= last_start, "sorted by start");
            last_start = iv.start_ns[i];
            while stack.last().is_some_and(|&end| end <= iv.start_ns[i]) {
                stack.pop();
            }
            assert_eq!(iv.depth[i] as usize, stack.len(), "depth of interval {i}");
            if let Some(&parent_end) = stack.last() {
                assert!(iv.end_ns(i) <= parent_end, "interval {i} outlives its parent");
            }
            stack.push(iv.end_ns(i));
        }
    }
}

#[test]
fn random_begin_end_soup_is_always_repaired_into_proper_nesting() {
    let mut rng = Rng(0xb0b);
    for _ in 0..200 {
        let mut json = String::from("[");
        let n = 1 + rng.below(40);
        for k in 0..n {
            let name = ["a", "b", "c", "d"][rng.below(4) as usize];
            let ts = rng.below(50);
            let tid = rng.below(2);
            let ev = match rng.below(5) {
                0 | 1 => format!(r#"{{"ph":"B","name":"{name}","pid":1,"tid":{tid},"ts":{ts}}}"#),
                2 => format!(r#"{{"ph":"E","name":"{name}","pid":1,"tid":{tid},"ts":{ts}}}"#),
                3 => format!(r#"{{"ph":"E","pid":1,"tid":{tid},"ts":{ts}}}"#),
                _ => format!(r#"{{"ph":"X","name":"{name}","pid":1,"tid":{tid},"ts":{ts},"dur":{}}}"#, rng.below(20)),
            };
            json += &ev;
            json += if k + 1 < n { "," } else { "]" };
        }
        let t = read("soup.json", json.as_bytes()).expect("soup reads");
        assert_properly_nested(&t);
        let begins = json.matches(r#""ph":"B""#).count() + json.matches(r#""ph":"X""#).count();
        assert_eq!(t.intervals.len(), begins, "every B and X becomes one interval: {json}");
    }
}
