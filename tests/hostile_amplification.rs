//! What an input may expand to (issue 51): each reader's most amplifying shape is read within a small budget
//! (`Budget::for_memory(64 MiB)`, what `weft index --memory 64M` gives the readers), and either stays under a
//! bound of events (intervals, instants and messages) per input byte, or is refused with the budget's message
//! naming the file, before it allocates past the hostile cases' memory budget (256 MiB). A reader that expands
//! past its input without a check fails both: too many events per byte, or too much memory.
//!
//! The shapes: an HPCToolkit database whose samples alternate between a deep leaf and idle (each sample opens
//! the whole chain), SLOG-2 directory frames overlapping one run of drawables, gzip bombs of Projections logs,
//! Paraver and Chrome JSON, and for the readers whose records map one to one (Nsight SQLite, MPE CLOG, OTF2,
//! plain Paraver) their densest records.

use crate::hostile::harness::{peak_of, MEMORY_BUDGET};
use std::io::Write;
use weft::model::Trace;
use weft::readers::budget::Budget;
use weft::readers::ReadError;
use weft::samples;

/// Events a reader may make of one byte of input when it is not refused: the densest one-to-one records are
/// a few bytes each (a Paraver state line is 17, an SQLite row about 20), so a quarter is far above them and
/// far below an expansion (the shapes below give 10 to 1000 per byte unchecked).
const EVENTS_PER_BYTE: f64 = 0.25;

fn budget() -> Budget {
    Budget::for_memory(64 << 20)
}

fn gzip(b: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    e.write_all(b).expect("gzip");
    e.finish().expect("gzip")
}

fn events(t: &Trace) -> usize {
    t.intervals.len() + t.instants.location.len() + t.messages.len()
}

/// Read `input` (`bytes` of it in all) with `read` within [`budget`]: bounded per byte, or refused naming
/// `file` with the budget's words; within the hostile cases' memory either way. `refused`: which it must be.
fn check(case: &str, file: &str, bytes: usize, refused: bool, read: impl FnOnce() -> Result<Trace, ReadError>) {
    let (got, peak) = peak_of(|| budget().scope(read));
    assert!(peak <= MEMORY_BUDGET, "{case}: peak {peak} bytes, over {MEMORY_BUDGET}");
    match got {
        Ok(t) => {
            let per_byte = events(&t) as f64 / bytes as f64;
            eprintln!("{case}: {} events of {bytes} bytes ({per_byte:.4} a byte), peak {peak}", events(&t));
            assert!(!refused, "{case}: read ({} events of {bytes} bytes), expected a refusal", events(&t));
            assert!(per_byte <= EVENTS_PER_BYTE, "{case}: {per_byte:.2} events a byte, over {EVENTS_PER_BYTE}");
        }
        Err(e) => {
            let text = e.to_string();
            eprintln!("{case}: refused: {text} (peak {peak})");
            assert!(refused, "{case}: refused, expected a read: {text}");
            assert!(matches!(e, ReadError::TooLarge { .. }), "{case}: {text}");
            assert!(text.starts_with(&format!("{file}: too large: ")), "{case}: {text}");
        }
    }
}

#[test]
fn hpctoolkit_deep_leaf_and_idle_is_refused_by_the_budget() {
    use samples::hpctoolkit_gen::{deep_chain, Alternate};
    // 1,000 leaf samples each opening a chain 2,000 deep: 2 M intervals from 150 KB.
    let db = deep_chain(2_000, 2_000, Alternate::LeafAndIdle);
    let bytes = db.files.iter().map(|f| f.1.len()).sum();
    let f = |i: usize| (db.files[i].0, db.files[i].1.as_slice());
    check("hpctoolkit deep leaf and idle", "db", bytes, true, || {
        weft::readers::hpctoolkit::read("db", f(0), Some(f(1)), Some(f(3)))
    });
    // The same shape a tenth as long is read (200 K intervals, under the budget's 1 M events).
    let db = deep_chain(200, 2_000, Alternate::LeafAndIdle);
    let f = |i: usize| (db.files[i].0, db.files[i].1.as_slice());
    let (t, _) = peak_of(|| budget().scope(|| weft::readers::hpctoolkit::read("db", f(0), Some(f(1)), Some(f(3)))));
    // Each leaf sample opens the entry point, the 200 calls and the leaf.
    assert_eq!(t.expect("reads").intervals.len(), 1_000 * 202);
}

#[test]
fn slog2_overlapping_frames_read_each_drawable_once() {
    let b = samples::mpe::slog2_overlapping_frames(3_000);
    check("slog2 overlapping frames", "t.slog2", b.len(), false, || weft::readers::mpe::slog2::read("t.slog2", &b));
    let t = weft::readers::mpe::slog2::read("t.slog2", &b).expect("reads");
    assert_eq!(t.intervals.len(), 3_000, "each drawable once");
    assert!(t.warnings.total() > 0, "the overlapping frames are a warning");
}

#[test]
fn projections_gzip_bomb_is_refused_by_the_budget() {
    let g = samples::projections_gen::generate(&samples::projections_gen::ProjSpec::small());
    let mut set = weft::readers::otf2::MemoryFiles::new();
    for (n, b) in &g.files {
        set.insert(n, b.clone());
    }
    // PE 0's log: 1.2 M idle begins and ends at one time, gzipped to a few KB.
    let mut log = String::from("PROJECTIONS-RECORD 1200002\n6 1000\n");
    log.push_str(&"14 2000 0\n15 2000 0\n".repeat(600_000));
    log.push_str("7 3000\n");
    let bomb = gzip(log.as_bytes());
    let bytes = bomb.len() + g.files.iter().skip(1).map(|f| f.1.len()).sum::<usize>();
    let log_name = g.files[1].0.clone();
    set.insert(&log_name, bomb);
    let found = weft::readers::projections::Found {
        sts: g.files[0].0.clone(),
        logs: (0..g.records.len() as u32).map(|pe| (pe, g.files[pe as usize + 1].0.clone())).collect(),
    };
    check("projections gzip bomb", &log_name, bytes, true, || {
        weft::readers::projections::read_files("trace", &set, &found)
    });
}

#[test]
fn paraver_plain_is_bounded_and_its_gzip_bomb_refused() {
    let sample = samples::paraver::ParaverSample::default().generate();
    // The header and communicator lines, then the records.
    let mut header = Vec::new();
    for line in sample.prv.split(|&c| c == b'\n').take_while(|l| !l.first().is_some_and(u8::is_ascii_digit)) {
        header.extend_from_slice(line);
        header.push(b'\n');
    }
    let mut prv = header.clone();
    for i in 0..200_000u64 {
        prv.extend_from_slice(format!("1:1:1:1:1:{i}:{}:1\n", i + 1).as_bytes());
    }
    check("paraver dense states", "t.prv", prv.len(), false, || {
        weft::readers::paraver::read("t.prv", &prv, None, None)
    });
    let mut bomb = header;
    bomb.extend_from_slice(&b"1:1:1:1:1:0:10:1\n".repeat(2_000_000));
    let gz = gzip(&bomb);
    check("paraver gzip bomb", "t.prv.gz", gz.len(), true, || {
        weft::readers::paraver::read("t.prv.gz", &gz, None, None)
    });
}

#[test]
fn chrome_gzip_bomb_is_refused_by_the_budget() {
    let mut json = String::from("[");
    json.push_str(&r#"{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1},"#.repeat(1_100_000));
    json.push_str(r#"{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1}]"#);
    let gz = gzip(json.as_bytes());
    drop(json);
    check("chrome gzip bomb", "t.json.gz", gz.len(), true, || weft::readers::chrome::read("t.json.gz", &gz));
}

#[test]
fn one_to_one_readers_stay_under_the_bound() {
    let nsys = samples::nsys::many_columns(0, 50_000);
    check("nsys dense rows", "t.sqlite", nsys.len(), false, || weft::readers::nsys::read("t.sqlite", &nsys));
    let clog = samples::mpe::MpeSample::new(8, 400).clog();
    check("mpe clog", "t.clog", clog.len(), false, || weft::readers::mpe::clog::read("t.clog", &clog));
    let (otf2, _) = samples::otf2_gen::archive(&samples::otf2_gen::GenConfig::new(4, 100_000));
    let bytes = otf2.files.values().map(|b| b.len()).sum();
    check("otf2", "traces.otf2", bytes, false, || weft::readers::otf2::read_archive("traces.otf2", &otf2));
}
