//! MPE/Jumpshot readers (SLOG-2, CLOG2, old CLOG): generated files of a known workload in each format
//! (`weft::samples::mpe`, written from the record layouts) read to the counts the workload has, and the real
//! samples under ../shared/traces/mpe-clog-slog2: each SLOG-2 sample against the TRACE-API text it was made
//! from (parsed here: categories, primitives per category, their times, timelines and message info), and
//! fpilog.slog2 against fpilog.clog, the CLOG it was converted from.

use crate::common;

use common::read::{read_bytes, read_path};
use std::collections::BTreeMap;
use std::path::PathBuf;
use weft::model::{Format, Trace, WarningKind};
use weft::readers::{sniff, Sniffed};
use weft::samples::mpe::{MpeSample, SOLO, STATES};

fn counts(t: &Trace) -> (u64, u64, u64, u64) {
    (t.intervals.len() as u64, t.messages.len() as u64, t.instants.time_ns.len() as u64, t.locations.len() as u64)
}

/// Intervals as (location name, region name, absolute start, absolute end), sorted.
fn intervals(t: &Trace) -> Vec<(String, String, i64, i64)> {
    let mut v: Vec<_> = (0..t.intervals.len())
        .map(|i| {
            let s = t.origin_ns + t.intervals.start_ns[i] as i64;
            (
                t.location_name(t.intervals.location[i]).to_string(),
                t.region_name(t.intervals.region[i]).to_string(),
                s,
                s + t.intervals.dur_ns[i] as i64,
            )
        })
        .collect();
    v.sort();
    v
}

/// Messages as (sender, receiver, absolute send, absolute receive, tag, size), sorted.
fn messages(t: &Trace) -> Vec<(String, String, i64, i64, u32, u64)> {
    let m = &t.messages;
    let mut v: Vec<_> = (0..m.len())
        .map(|i| {
            (
                t.location_name(m.sender[i]).to_string(),
                t.location_name(m.receiver[i]).to_string(),
                t.origin_ns + m.send_ns[i] as i64,
                t.origin_ns + m.recv_ns[i] as i64,
                m.tag[i],
                m.size_bytes[i],
            )
        })
        .collect();
    v.sort();
    v
}

fn no_warnings(t: &Trace, what: &str) {
    assert_eq!(t.warnings.total(), 0, "{what}: {:?}", t.warnings);
}

#[test]
fn generated_files_in_the_three_formats_read_to_the_workload() {
    let s = MpeSample::new(4, 25);
    let want = s.expected();
    let files = [
        ("w.clog2", s.clog2(4096), Sniffed::Clog2, Format::Clog2),
        ("w.clog", s.clog(), Sniffed::Clog, Format::Clog),
        ("w.slog2", s.slog2(2048), Sniffed::Slog2, Format::Slog2),
    ];
    let mut first: Option<Trace> = None;
    for (name, bytes, sniffed, format) in files {
        assert_eq!(sniff(&bytes), sniffed, "{name}");
        let t = read_bytes(name, &bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(t.format, format);
        assert_eq!(counts(&t), (want.intervals, want.messages, want.instants, want.locations), "{name}");
        no_warnings(&t, name);
        let regions: std::collections::BTreeSet<&str> =
            (0..t.intervals.len()).map(|i| t.region_name(t.intervals.region[i])).collect();
        assert_eq!(regions, STATES.iter().copied().collect(), "{name}");
        assert!((0..t.instants.time_ns.len()).all(|i| t.region_name(t.instants.region[i]) == SOLO), "{name}");
        assert!(t.messages.size_bytes.iter().all(|&b| b == 1024), "{name}: sizes");
        // Rank k sends to k + 1, received inside rank k + 1's MPI_Recv.
        for (snd, rcv, ts, tr, tag, _) in messages(&t) {
            let (a, b): (u32, u32) = (snd[5..].parse().unwrap(), rcv[5..].parse().unwrap());
            assert_eq!(b, (a + 1) % 4, "{name}: {snd} -> {rcv}");
            assert!(tr > ts || b == 0, "{name}: {snd} -> {rcv} at {ts} / {tr}");
            assert!(tag < 25, "{name}");
        }
        match &first {
            None => first = Some(t),
            Some(f) => {
                assert_eq!(intervals(&t), intervals(f), "{name}: intervals differ from the CLOG2 file's");
                assert_eq!(messages(&t), messages(f), "{name}: messages differ from the CLOG2 file's");
            }
        }
    }
}

#[test]
fn generated_rlog_holds_the_states_and_messages() {
    let s = MpeSample::new(4, 25);
    let want = s.expected();
    let bytes = s.rlog();
    assert_eq!(sniff(&bytes), Sniffed::Rlog);
    let t = read_bytes("w.rlog", &bytes).unwrap();
    assert_eq!(t.format, Format::Rlog);
    assert_eq!(counts(&t), (want.intervals, want.messages, 0, want.locations));
    no_warnings(&t, "w.rlog");
    let clog2 = read_bytes("w.clog2", &s.clog2(65536)).unwrap();
    assert_eq!(intervals(&t), intervals(&clog2));
    assert_eq!(messages(&t), messages(&clog2));
}

#[test]
fn clog2_blocks_of_any_size_give_the_same_trace() {
    let s = MpeSample::new(3, 40);
    let a = read_bytes("a.clog2", &s.clog2(65536)).unwrap();
    let b = read_bytes("b.clog2", &s.clog2(1024)).unwrap();
    assert_eq!(intervals(&a), intervals(&b));
    assert_eq!(messages(&a), messages(&b));
}

#[test]
fn a_cut_clog2_keeps_what_precedes_with_a_warning() {
    let bytes = MpeSample::new(4, 50).clog2(2048);
    let cut = &bytes[..bytes.len() * 2 / 3 + 5];
    let t = read_bytes("cut.clog2", cut).unwrap();
    assert!(t.warnings.count(WarningKind::Truncated) > 0, "{:?}", t.warnings);
    assert!(!t.intervals.is_empty() && (t.intervals.len() as u64) < MpeSample::new(4, 50).expected().intervals);
}

#[test]
fn bad_headers_are_typed_errors_naming_the_file() {
    let mut slog = MpeSample::new(2, 3).slog2(4096);
    slog[2..12].copy_from_slice(b"SLOG 2.0.5");
    let e = read_bytes("old.slog2", &slog).unwrap_err().to_string();
    assert!(e.contains("old.slog2") && e.contains("2.0.5") && e.contains("slog2updater"), "{e}");
    // A block pointer past the end of the file.
    let mut slog = MpeSample::new(2, 3).slog2(4096);
    let at = 2 + 10 + 2 + 4 + 2 + 4;
    slog[at..at + 8].copy_from_slice(&(1i64 << 40).to_be_bytes());
    let e = read_bytes("far.slog2", &slog).unwrap_err().to_string();
    assert!(e.contains("far.slog2") && e.contains("past the end"), "{e}");
    let mut clog2 = MpeSample::new(2, 3).clog2(4096);
    let p = clog2.windows(12).position(|w| w == b"block_size=\0").unwrap() + 12;
    clog2[p..p + 4].copy_from_slice(b"0\0\0\0");
    let e = read_bytes("b.clog2", &clog2).unwrap_err().to_string();
    assert!(e.contains("b.clog2") && e.contains("block size"), "{e}");
}

// ---- Real samples ----

fn mpe_dir() -> Option<PathBuf> {
    let d = common::shared_traces("mpe")?.join("mpe-clog-slog2/mpich-mpe2-slog2sdk");
    if d.is_dir() {
        Some(d)
    } else {
        eprintln!("SKIP: ../shared/traces/mpe-clog-slog2/mpich-mpe2-slog2sdk not found");
        None
    }
}

/// A primitive of the text: category, vertices (seconds, line), info values.
type TextPrimitive = (i32, Vec<(f64, i32)>, Vec<i64>);

/// The TRACE-API text a sample was made from.
#[derive(Default)]
struct TraceText {
    /// index -> (name, topology)
    categories: BTreeMap<i32, (String, String)>,
    /// (category, vertices (seconds, line), info values)
    primitives: Vec<TextPrimitive>,
    /// The first YCoordMap: line -> (label1, label2)
    lines: BTreeMap<i32, (i64, i64)>,
}

fn field<'a>(line: &'a str, key: &str) -> &'a str {
    let at = line.find(key).unwrap_or_else(|| panic!("no {key} in {line}")) + key.len();
    line[at..].split_whitespace().next().unwrap()
}

fn parse_text(text: &str) -> TraceText {
    let mut out = TraceText::default();
    for line in text.lines() {
        if line.starts_with("Category[") {
            let index = field(line, "index=").parse().unwrap();
            out.categories.insert(index, (field(line, "name=").to_string(), field(line, "topo=").to_string()));
        } else if line.starts_with("Primitive[") {
            let cat = field(line, "Category=").parse().unwrap();
            let rest = &line[line.find("Category=").unwrap()..];
            let mut vertices = Vec::new();
            for part in rest.split('(').skip(1) {
                let inner = part.split(')').next().unwrap();
                let (t, l) = inner.split_once(',').unwrap();
                vertices.push((t.trim().parse().unwrap(), l.trim().parse().unwrap()));
            }
            let info = match (line.find('<'), line.find('>')) {
                (Some(a), Some(b)) => line[a + 1..b].split(";;").map(|v| v.trim().parse().unwrap()).collect(),
                _ => Vec::new(),
            };
            out.primitives.push((cat, vertices, info));
        } else if line.starts_with("YCoordMap[") && out.lines.is_empty() {
            for row in line.split('(').skip(1) {
                let v: Vec<i64> =
                    row.split(')').next().unwrap().split_whitespace().map(|x| x.parse().unwrap()).collect();
                out.lines.insert(v[0] as i32, (v[1], v[2]));
            }
        }
    }
    out
}

fn ns(t: f64) -> i64 {
    (t * 1e9).round() as i64
}

fn location_name(lines: &BTreeMap<i32, (i64, i64)>, line: i32) -> String {
    let (r, t) = lines.get(&line).copied().unwrap_or((line as i64, 0));
    if t == 0 {
        format!("Rank {r}")
    } else {
        format!("Rank {r}, thread {t}")
    }
}

#[test]
fn slog2_samples_equal_the_text_they_were_made_from() {
    let Some(dir) = mpe_dir() else { return };
    for stem in ["trace_sample_arrow", "trace_sample_data"] {
        let text = parse_text(&std::fs::read_to_string(dir.join(format!("{stem}.txt"))).unwrap());
        let path = dir.join(format!("{stem}.slog2"));
        assert_eq!(sniff(&std::fs::read(&path).unwrap()), Sniffed::Slog2);
        let t = read_path(&path).unwrap_or_else(|e| panic!("{stem}: {e}"));
        assert_eq!(t.format, Format::Slog2);
        // The synthetic data sample overlaps states on one timeline (RECV 3-5 ms, SENDRECV 4-8 ms): the model
        // clips the later one to its enclosing state, with a warning; nothing else may be warned about.
        let clipped = t.warnings.count(WarningKind::ImproperNesting);
        assert_eq!(t.warnings.total(), clipped, "{stem}: {:?}", t.warnings);
        // Every primitive by its category's topology, with its times and timeline.
        let mut want_states = Vec::new();
        let mut want_arrows = Vec::new();
        let mut want_events = 0;
        for (cat, v, info) in &text.primitives {
            let (name, topo) = &text.categories[cat];
            match topo.as_str() {
                "State" => {
                    let (a, b) = (ns(v[0].0), ns(v[1].0));
                    want_states.push((location_name(&text.lines, v[0].1), name.clone(), a.min(b), a.max(b)));
                }
                "Arrow" => want_arrows.push((
                    location_name(&text.lines, v[0].1),
                    location_name(&text.lines, v[1].1),
                    ns(v[0].0),
                    ns(v[1].0),
                    info[0] as u32,
                    info[1] as u64,
                )),
                "Event" => want_events += 1,
                other => panic!("{stem}: topology {other}"),
            }
        }
        want_states.sort();
        want_arrows.sort();
        eprintln!("{stem}: {} states, {} arrows, {} events", want_states.len(), want_arrows.len(), want_events);
        assert!(!want_states.is_empty() && !want_arrows.is_empty());
        let got = intervals(&t);
        let starts = |v: &[(String, String, i64, i64)]| {
            v.iter().map(|(l, r, s, _)| (l.clone(), r.clone(), *s)).collect::<Vec<_>>()
        };
        assert_eq!(starts(&got), starts(&want_states), "{stem}: states");
        let shortened = got.iter().zip(&want_states).filter(|(g, w)| g.3 != w.3).count() as u64;
        assert_eq!(shortened, clipped, "{stem}: states whose end differs from the text are the clipped ones");
        assert!(got.iter().zip(&want_states).all(|(g, w)| g.3 <= w.3), "{stem}: only clipped shorter");
        assert_eq!(messages(&t), want_arrows, "{stem}: arrows");
        assert_eq!(t.instants.time_ns.len(), want_events, "{stem}: events");
    }
}

#[test]
fn fpilog_slog2_equals_the_clog_it_was_converted_from() {
    let Some(dir) = mpe_dir() else { return };
    let clog_bytes = std::fs::read(dir.join("fpilog.clog")).unwrap();
    assert_eq!(sniff(&clog_bytes), Sniffed::Clog);
    let clog = read_path(&dir.join("fpilog.clog")).unwrap();
    let slog = read_path(&dir.join("fpilog.slog2")).unwrap();
    assert_eq!(clog.format, Format::Clog);
    assert_eq!(slog.format, Format::Slog2);
    eprintln!(
        "fpilog: clog {:?} warnings {:?}; slog2 {:?} warnings {:?}",
        counts(&clog),
        clog.warnings,
        counts(&slog),
        slog.warnings
    );
    assert!(!clog.intervals.is_empty() && !clog.messages.is_empty());
    assert_eq!(intervals(&clog), intervals(&slog), "states");
    assert_eq!(messages(&clog), messages(&slog), "arrows");
}

/// RLOG sections walked here independently of the reader (rlog.h's layouts): intervals per event id (named
/// by the state section) and arrows.
#[test]
fn barrier_rlog_equals_its_sections() {
    let Some(dir) = mpe_dir() else { return };
    let bytes = std::fs::read(dir.join("barrier.rlog")).unwrap();
    assert_eq!(sniff(&bytes), Sniffed::Rlog);
    let i32_at = |at: usize| i32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
    let f64_at = |at: usize| f64::from_le_bytes(bytes[at..at + 8].try_into().unwrap());
    let (mut names, mut events, mut arrows) = (BTreeMap::new(), Vec::new(), Vec::new());
    let mut at = 0;
    while at + 8 <= bytes.len() {
        let (kind, len) = (i32_at(at), i32_at(at + 4) as usize);
        let body = at + 8;
        match kind {
            1 => {
                for s in (body..body + len).step_by(72) {
                    let text = &bytes[s + 32..s + 72];
                    let end = text.iter().position(|&c| c == 0).unwrap_or(40);
                    names.insert(i32_at(s), String::from_utf8_lossy(&text[..end]).trim().to_string());
                }
            }
            2 => {
                for a in (body..body + len).step_by(40) {
                    let right = i32_at(a + 16) == 0;
                    let (t0, t1) = (ns(f64_at(a + 24)), ns(f64_at(a + 32)));
                    let (s, r) = if right { (t0, t1) } else { (t1, t0) };
                    arrows.push((
                        format!("Rank {}", i32_at(a)),
                        format!("Rank {}", i32_at(a + 4)),
                        s,
                        r,
                        i32_at(a + 8) as u32,
                        i32_at(a + 12) as u64,
                    ));
                }
            }
            3 => {
                let levels = i32_at(body + 4) as usize;
                for e in (body + 8 + 4 * levels..body + len).step_by(32) {
                    let (t0, t1) = (ns(f64_at(e + 16)), ns(f64_at(e + 24)));
                    events.push((format!("Rank {}", i32_at(e)), names[&i32_at(e + 4)].clone(), t0, t1));
                }
            }
            _ => {}
        }
        at = body + len;
    }
    events.sort();
    arrows.sort();
    let t = read_path(&dir.join("barrier.rlog")).unwrap();
    assert_eq!(t.format, Format::Rlog);
    no_warnings(&t, "barrier.rlog");
    eprintln!("barrier.rlog: {} states, {} arrows, {} state names", events.len(), arrows.len(), names.len());
    assert!(!events.is_empty() && !arrows.is_empty());
    assert_eq!(intervals(&t), events, "states");
    assert_eq!(messages(&t), arrows, "arrows");
}
