//! The OTF2 reader on archives built byte by byte here (both byte orders), and on broken ones: truncated
//! files at every length, flipped bytes, missing event files, wrong magic, undefined references, time going
//! backwards, unknown record types, zip bombs. Nothing may panic; what can be read is kept and the problem
//! is named (file and byte) in an error or a warning.

use crate::common;
use common::read::read_bytes;
use std::io::Write;
use weft::model::{Trace, WarningKind};
use weft::readers::archive::{self, DEFAULT_BUDGET_BYTES};
use weft::readers::otf2::encoding::write as w;
use weft::readers::otf2::{read_archive, read_archive_full, ArchiveFiles, MemoryFiles};
use weft::readers::ReadError;
use weft::samples::otf2::{global_defs, global_defs_with_resolution};
use weft::samples::rng::XorShift;

/// Options for the synthetic archive.
#[derive(Clone, Copy)]
struct Opts {
    big: bool,
    /// A LEAVE names region 99, never defined (and its ENTER too).
    dangling: bool,
    /// Location 1's timestamps go backwards once.
    backwards: bool,
    /// Location 0 has a record of type 250 (unknown to OTF2 3.1) in the middle.
    unknown: bool,
    /// Location 1's last LEAVE is at tick 10^13 (past 292 years in nanoseconds at 1 tick per second).
    far: bool,
}

const PLAIN: Opts = Opts { big: false, dangling: false, backwards: false, unknown: false, far: false };

/// The anchor and global definitions are the project's OTF2 sample generator's (two locations).
fn anchor(big: bool) -> Vec<u8> {
    weft::samples::otf2::anchor(big, 2)
}

fn events(loc: u32, o: Opts) -> Vec<u8> {
    let big = o.big;
    let mut f = Vec::new();
    w::chunk_header(&mut f, big, 1, 8);
    let time = |f: &mut Vec<u8>, t: u64| {
        f.push(5);
        w::u64_full(f, t, big);
    };
    let enter_leave = |f: &mut Vec<u8>, kind: u8, region: u32| {
        f.push(kind);
        w::u32(f, region, big);
    };
    time(&mut f, 10_000);
    enter_leave(&mut f, 12, 0);
    time(&mut f, 11_000);
    let (p2p_region, kind) = if loc == 0 { (1, 14) } else { (2, 18) };
    enter_leave(&mut f, 12, p2p_region);
    let mut d = Vec::new();
    w::u32(&mut d, 1 - loc, big); // the other rank
    w::u32(&mut d, 0, big);
    w::u32(&mut d, 7, big);
    w::u64(&mut d, 4096, big);
    time(&mut f, 11_500 + loc as u64 * 100);
    w::record(&mut f, kind, &d, big);
    if o.unknown && loc == 0 {
        w::record(&mut f, 250, &[1, 2, 3, 4, 5], big);
    }
    time(&mut f, 12_000);
    enter_leave(&mut f, 13, p2p_region);
    if o.dangling && loc == 0 {
        enter_leave(&mut f, 12, 99);
        enter_leave(&mut f, 13, 99);
    }
    time(
        &mut f,
        match loc {
            1 if o.backwards => 9_000,
            1 if o.far => 10_000_000_000_000,
            _ => 13_000,
        },
    );
    enter_leave(&mut f, 13, 0);
    f.push(2);
    f
}

fn archive(o: Opts) -> MemoryFiles {
    let mut m = MemoryFiles::new();
    m.insert("traces.otf2", anchor(o.big));
    m.insert("traces.def", global_defs(o.big));
    for l in 0..2 {
        m.insert(&format!("traces/{l}.evt"), events(l, o));
    }
    m
}

fn read(m: &MemoryFiles) -> Trace {
    read_archive("traces.otf2", m).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn synthetic_archive_in_both_byte_orders() {
    for big in [false, true] {
        let t = read(&archive(Opts { big, ..PLAIN }));
        assert_eq!(t.locations.len(), 2);
        assert_eq!(t.event_records, 10);
        assert_eq!(t.intervals.len(), 4);
        assert_eq!(t.messages.len(), 1);
        assert_eq!(t.warnings.total(), 0, "{:?}", t.warnings.examples());
        // Microsecond ticks: main on rank 0 runs 10_000..13_000 us = 3 ms; the message takes 100 us.
        let main = (0..t.intervals.len()).find(|&i| t.region_name(t.intervals.region[i]) == "main").unwrap();
        assert_eq!(t.intervals.dur_ns[main], 3_000_000);
        assert_eq!(t.messages.recv_ns[0] - t.messages.send_ns[0], 100_000);
        assert_eq!(t.messages.size_bytes[0], 4096);
        assert_eq!(t.messages.tag[0], 7);
        assert_eq!(t.location_name(t.messages.sender[0]), "Master thread");
        assert_eq!(
            t.process_name(
                t.processes.native_id.iter().position(|&p| p == 1).map(|p| weft::model::ProcessId(p as u32)).unwrap()
            ),
            "Rank 1"
        );
    }
}

#[test]
fn unknown_records_are_skipped_with_a_warning() {
    let t = read(&archive(Opts { unknown: true, ..PLAIN }));
    assert_eq!(t.messages.len(), 1);
    assert_eq!(t.intervals.len(), 4);
    assert_eq!(t.warnings.count(WarningKind::UnknownRecord), 1);
    assert!(t.warnings.examples().iter().any(|w| w.message.contains("traces/0.evt") && w.message.contains("250")));
}

#[test]
fn undefined_regions_and_time_going_back_are_named() {
    let t = read(&archive(Opts { dangling: true, backwards: true, ..PLAIN }));
    let ex = t.warnings.examples();
    assert_eq!(t.warnings.count(WarningKind::DanglingReference), 1);
    assert!(ex.iter().any(|w| w.kind == WarningKind::DanglingReference && w.message.contains("traces/0.evt: byte")));
    assert_eq!(t.warnings.count(WarningKind::OutOfOrder), 1);
    assert!(ex.iter().any(|w| w.kind == WarningKind::OutOfOrder && w.message.contains("traces/1.evt: byte")));
    assert_eq!(t.intervals.len(), 5);
}

#[test]
fn missing_event_file_keeps_the_other_locations() {
    let mut m = archive(PLAIN);
    m.files.remove("traces/1.evt");
    let t = read(&m);
    assert_eq!(t.locations.len(), 2);
    assert_eq!(t.intervals.len(), 2);
    assert_eq!(t.messages.len(), 0);
    assert!(t.warnings.examples().iter().any(|w| w.message.contains("traces/1.evt") && w.message.contains("missing")));
}

#[test]
fn wrong_magic_and_missing_definitions_are_errors() {
    let mut m = archive(PLAIN);
    let mut a = anchor(false);
    a[2] = b'X';
    m.insert("traces.otf2", a.clone());
    assert!(read_archive("traces.otf2", &m).is_err());
    let mut m = archive(PLAIN);
    m.files.remove("traces.def");
    match read_archive("traces.otf2", &m) {
        Err(ReadError::Io { file, .. }) => assert_eq!(file, "traces.def"),
        other => panic!("expected a missing-file error, got {other:?}"),
    }
}

/// A tiny seeded xorshift generator.

#[test]
fn truncation_and_corruption_never_panic() {
    for big in [false, true] {
        let whole = archive(Opts { big, unknown: true, ..PLAIN });
        for path in whole.paths() {
            let len = whole.files[&path].len();
            for cut in 0..len {
                let mut m = whole.clone();
                m.files.get_mut(&path).unwrap().truncate(cut);
                // Any outcome but a panic; a cut event file keeps the events before the cut.
                if let Ok(r) = read_archive_full("traces.otf2", &m) {
                    assert!(r.trace.event_records <= 13);
                    if path.ends_with(".evt") && cut + 1 < len {
                        assert!(r.trace.warnings.count(WarningKind::Truncated) >= 1, "{path} cut at {cut}");
                    }
                }
            }
        }
        let mut rng = XorShift(0x2545_F491_4F6C_DD1D);
        for _ in 0..3000 {
            let mut m = whole.clone();
            let paths = m.paths();
            let p = &paths[(rng.next() % paths.len() as u64) as usize];
            let f = m.files.get_mut(p).unwrap();
            for _ in 0..1 + rng.next() % 3 {
                let i = (rng.next() % f.len() as u64) as usize;
                f[i] = rng.next() as u8;
            }
            let _ = read_archive_full("traces.otf2", &m);
        }
    }
}

fn zip_of(files: &[(&str, &[u8])]) -> Vec<u8> {
    let mut z = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    for (p, b) in files {
        z.start_file(*p, opts).unwrap();
        z.write_all(b).unwrap();
    }
    z.finish().unwrap().into_inner()
}

#[test]
fn archives_at_any_depth_and_bounded() {
    let m = archive(PLAIN);
    let owned: Vec<(String, Vec<u8>)> = m.files.iter().map(|(p, b)| (format!("run-1/deep/{p}"), b.clone())).collect();
    let refs: Vec<(&str, &[u8])> = owned.iter().map(|(p, b)| (p.as_str(), b.as_slice())).collect();
    let zip = zip_of(&refs);
    let t = read_bytes("run.zip", &zip).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(t.intervals.len(), 4);
    // A zip bomb: 64 MiB of zeros in a small file, against a 1 MiB budget.
    let zeros = vec![0u8; 64 << 20];
    let bomb = zip_of(&[("traces.otf2", &anchor(false)), ("traces/0.evt", &zeros)]);
    assert!(bomb.len() < 1 << 20);
    match archive::read_archive_bytes("bomb.zip", &bomb, 1 << 20) {
        Err(ReadError::TooLarge { file, detail }) => {
            assert_eq!(file, "bomb.zip: traces/0.evt");
            assert!(detail.contains("limit"), "{detail}");
        }
        other => panic!("expected the budget to refuse it, got {:?}", other.map(|t| t.event_records)),
    }
    assert!(archive::unpack("bomb.zip", &bomb, DEFAULT_BUDGET_BYTES).is_ok());
    // Truncated zip: an error when nothing can be read, else what precedes the cut with a warning; no panic.
    for cut in [0, 10] {
        assert!(read_bytes("cut.zip", &zip[..cut]).is_err());
    }
    for cut in [zip.len() / 2, zip.len() - 1] {
        match read_bytes("cut.zip", &zip[..cut]) {
            Ok(t) => assert!(t.warnings.count(WarningKind::Truncated) >= 1, "cut at {cut}"),
            Err(e) => assert!(e.to_string().contains("damaged") || e.to_string().starts_with("cut.zip"), "{e}"),
        }
    }
}

#[test]
fn gzip_of_json_is_not_taken_for_an_archive() {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(br#"[{"ph":"X","name":"a","ts":0,"dur":1,"pid":1,"tid":1}]"#).unwrap();
    let gz = e.finish().unwrap();
    assert_eq!(archive::container(&gz), None);
    if let Err(e) = read_bytes("trace.json.gz", &gz) {
        let msg = e.to_string();
        assert!(!msg.contains("tar") && !msg.contains("OTF2"), "{msg}");
    }
}

/// A clock of 1 tick per second with a tick count past 292 years must not saturate the span to 9.2e9 s: the
/// event is skipped with a warning naming the file; a resolution finer than any clock (2^64 - 1 ticks per
/// second) would collapse every time to 0 and is refused, naming the definitions.
#[test]
fn implausible_clock_resolutions_neither_saturate_nor_collapse_the_span() {
    for big in [false, true] {
        let mut m = archive(Opts { big, far: true, ..PLAIN });
        m.insert("traces.def", global_defs_with_resolution(big, 1));
        let t = read(&m);
        // Ticks 10_000..13_000, in seconds: 3_000 s, not 9.2e9 s.
        assert_eq!(t.span_ns, 3_000_000_000_000, "span");
        let ex = t.warnings.examples();
        assert!(
            ex.iter().any(|w| w.kind == WarningKind::MalformedRecord
                && w.message.contains("traces/1.evt: byte")
                && w.message.contains("past what nanoseconds can hold")),
            "{ex:?}"
        );
        // A plain archive at 1 tick per second reads without warnings.
        let mut m = archive(Opts { big, ..PLAIN });
        m.insert("traces.def", global_defs_with_resolution(big, 1));
        let t = read(&m);
        assert_eq!(t.warnings.total(), 0, "{:?}", t.warnings.examples());
        assert_eq!(t.span_ns, 3_000_000_000_000);

        let mut m = archive(Opts { big, ..PLAIN });
        m.insert("traces.def", global_defs_with_resolution(big, u64::MAX));
        let err = read_archive("traces.otf2", &m).expect_err("a resolution of 2^64 - 1 is refused");
        assert!(matches!(err, ReadError::Malformed { .. }), "{err:?}");
        let text = err.to_string();
        assert!(text.contains("traces.def") && text.contains("timer resolution"), "{text}");
    }
}
