//! The one way in: every kind of input reaches the `Input` its content says, each file is sniffed once, and
//! what no reader takes is refused naming the file.

use super::sniff::SNIFFS;
use super::*;
use weft_samples::{self as samples, paraver::ParaverSample};

/// The samples' small archive as this test build's `MemoryFiles` (weft-samples links the readers'
/// library build).
fn small_archive(big: bool) -> crate::otf2::MemoryFiles {
    crate::otf2::MemoryFiles { files: samples::otf2::small_archive(big).files }
}
use std::io::Write;

const GRAPHML: &str = "<?xml version=\"1.0\"?>\n<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\"><key id=\"t\" for=\"node\" attr.name=\"type\" attr.type=\"string\"/><graph edgedefault=\"directed\"><node id=\"a\"><data key=\"t\">fork</data></node><node id=\"b\"><data key=\"t\">task</data></node><node id=\"c\"><data key=\"t\">join</data></node><edge source=\"a\" target=\"b\"/><edge source=\"b\" target=\"c\"/></graph></graphml>";

fn gzip(b: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(b).expect("gzip");
    e.finish().expect("gzip finish")
}

fn otf2_files() -> Vec<(String, Vec<u8>)> {
    small_archive(false).files.into_iter().map(|(p, b)| (format!("run/{p}"), b)).collect()
}

fn tar_of(files: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut t = tar::Builder::new(Vec::new());
    for (p, b) in files {
        let mut h = tar::Header::new_gnu();
        h.set_size(b.len() as u64);
        h.set_mode(0o644);
        h.set_cksum();
        t.append_data(&mut h, p, b.as_slice()).expect("tar entry");
    }
    t.into_inner().expect("tar finish")
}

fn zip_of(files: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut z = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    for (p, b) in files {
        z.start_file(p.as_str(), opts).expect("zip entry");
        z.write_all(b).expect("zip write");
    }
    z.finish().expect("zip finish").into_inner()
}

/// `open` on `bytes`, counting the sniffs it made.
fn open_counted(name: &str, source: Source) -> (Result<Input, ReadError>, usize) {
    SNIFFS.with(|n| n.set(0));
    let r = open(name, source);
    (r, SNIFFS.with(|n| n.get()))
}

fn variant(i: &Input) -> &'static str {
    match i {
        Input::Trace(_) => "trace",
        Input::ThreadEvents { .. } => "thread events",
        Input::Grains { grains: Grains::Profile(_), .. } => "grain profile",
        Input::Grains { grains: Grains::Graph(_), .. } => "grain graph",
        Input::Otf2(_) => "otf2",
    }
}

#[test]
fn every_kind_reaches_its_input_sniffed_once() {
    let prv = ParaverSample { tasks: 2, threads_per_task: 2, iterations: 3, ..Default::default() }.generate();
    let chrome = samples::builtin_chrome_json();
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("t.json", chrome.clone(), "trace"),
        ("t.json.gz", gzip(&chrome), "trace"),
        ("t.prv", prv.prv.clone(), "trace"),
        ("t.prv.gz", gzip(&prv.prv), "trace"),
        ("t.txt", samples::execgraph::sample_text("fib").expect("sample").into_bytes(), "thread events"),
        ("t.csv", samples::grains::fib_profile(8, 0, 4), "grain profile"),
        ("t.graphml", GRAPHML.as_bytes().to_vec(), "grain graph"),
        ("t.zip", zip_of(&otf2_files()), "otf2"),
        ("t.tar", tar_of(&otf2_files()), "otf2"),
        ("t.tar.gz", gzip(&tar_of(&otf2_files())), "otf2"),
    ];
    for (name, bytes, want) in &cases {
        let (r, sniffs) = open_counted(name, Source::Bytes(bytes));
        let input = r.unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(variant(&input), *want, "{name}");
        assert_eq!(sniffs, 1, "{name}: sniffed {sniffs} times");
    }
    // A set of files: an OTF2 archive folder, a Paraver trace with its names, or the one file there is.
    let otf2 = small_archive(false);
    let (r, sniffs) = open_counted("run", Source::Files(&otf2));
    assert_eq!(variant(&r.expect("folder reads")), "otf2");
    assert_eq!(sniffs, 0, "an archive folder is found by its anchor's path");
    let mut set = otf2::MemoryFiles::new();
    set.insert("x.prv", prv.prv.clone());
    set.insert("x.pcf", prv.pcf.clone());
    set.insert("x.row", prv.row.clone());
    let trace = open("run", Source::Files(&set)).expect("prv set").into_trace("run").expect("a timeline");
    let direct = paraver::read("x.prv", &prv.prv, Some(&prv.pcf), Some(&prv.row)).expect("reads");
    let names = |t: &Trace| t.strings.iter().map(str::to_string).collect::<Vec<_>>();
    assert_eq!(names(&trace), names(&direct), "named from its .pcf and .row");
    let mut one = otf2::MemoryFiles::new();
    one.insert("only.csv", samples::grains::fib_profile(6, 0, 2));
    let (r, sniffs) = open_counted("folder", Source::Files(&one));
    assert_eq!((variant(&r.expect("one file")), sniffs), ("grain profile", 1));
}

#[test]
fn an_otf2_archive_offers_its_other_views() {
    let bytes = tar_of(&otf2_files());
    let Input::Otf2(o) = open("t.tar", Source::Bytes(&bytes)).expect("reads") else { panic!("not OTF2") };
    assert!(!o.trace().intervals.is_empty());
    // The small sample has no threading records: the graph views say so, naming the archive.
    assert!(!o.offers_thread_events() && !o.offers_grains());
    let e = o.thread_events().expect_err("no thread events").to_string();
    assert!(e.starts_with("t.tar: ") && e.contains("thread events"), "{e}");
    let e = Input::Otf2(o).into_grains("t.tar").expect_err("no tasks").to_string();
    assert!(e.starts_with("t.tar: ") && e.contains("task"), "{e}");
}

#[test]
fn the_wrong_view_and_unknown_bytes_are_refused_naming_the_file() {
    for (bytes, what) in [
        (&b"hello world, no trace"[..], "text starting with"),
        (&[0u8, 1, 2, 3, 255, 254, 7, 9][..], "binary data"),
        (&b""[..], "empty"),
        (&b"{\"a\": 1}"[..], "traceEvents"),
    ] {
        let e = open("strange.bin", Source::Bytes(bytes)).expect_err("refused");
        assert!(matches!(e, ReadError::UnknownFormat { .. }), "{e:?}");
        let e = e.to_string();
        assert!(e.starts_with("strange.bin: ") && e.contains(what), "{e}");
    }
    let csv = samples::grains::fib_profile(6, 0, 2);
    let e = open("p.csv", Source::Bytes(&csv)).expect("reads").into_trace("p.csv").expect_err("no timeline");
    assert!(e.to_string().starts_with("p.csv: a grain graph is not a timeline"), "{e}");
    let chrome = samples::builtin_chrome_json();
    let e = open("t.json", Source::Bytes(&chrome)).expect("reads").into_grains("t.json").expect_err("no grains");
    assert!(e.to_string().starts_with("t.json: a timeline trace is not a grain-graph input"), "{e}");
    let e = open("t.json", Source::Bytes(&chrome)).expect("reads").into_thread_events("t.json").expect_err("no");
    assert!(e.to_string().contains("not an execution-graph input"), "{e}");
    let e = open("traces.otf2", Source::Bytes(&samples::otf2::anchor(false, 1))).expect_err("an anchor alone");
    assert!(e.to_string().starts_with("traces.otf2: "), "{e}");
    let e = open("empty", Source::Files(&otf2::MemoryFiles::new())).expect_err("no files");
    assert!(e.to_string().starts_with("empty: "), "{e}");
}

#[test]
fn paths_open_like_dropped_files() {
    let dir = std::env::temp_dir().join(format!("weft-open-path-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (prv_dir, one_dir, two_dir, otf2_dir) = (dir.join("prv"), dir.join("one"), dir.join("two"), dir.join("otf2"));
    for d in [&prv_dir, &one_dir, &two_dir, &otf2_dir] {
        std::fs::create_dir_all(d).expect("temp folder");
    }
    let prv = ParaverSample { tasks: 2, threads_per_task: 2, iterations: 3, ..Default::default() }.generate();
    for (f, b) in [("x.prv", &prv.prv), ("x.pcf", &prv.pcf), ("x.row", &prv.row)] {
        std::fs::write(prv_dir.join(f), b).expect("write");
    }
    let csv = samples::grains::fib_profile(6, 0, 2);
    std::fs::write(one_dir.join("p.csv"), &csv).expect("write");
    std::fs::write(two_dir.join("a.csv"), &csv).expect("write");
    std::fs::write(two_dir.join("b.json"), samples::builtin_chrome_json()).expect("write");
    for (p, b) in small_archive(false).files {
        let path = otf2_dir.join(&p);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("folder");
        std::fs::write(path, b).expect("write");
    }
    let direct = paraver::read("x.prv", &prv.prv, Some(&prv.pcf), Some(&prv.row)).expect("reads");
    let names = |t: &Trace| t.strings.iter().map(str::to_string).collect::<Vec<_>>();
    for p in [prv_dir.clone(), prv_dir.join("x.prv")] {
        let t = open_path(&p).expect("prv reads").into_trace("prv").expect("a timeline");
        assert_eq!((names(&t), t.intervals.len()), (names(&direct), direct.intervals.len()), "{}", p.display());
    }
    assert_eq!(variant(&open_path(&one_dir).expect("one file")), "grain profile");
    assert_eq!(variant(&open_path(&otf2_dir).expect("otf2 folder")), "otf2");
    assert_eq!(variant(&open_path(&otf2_dir.join("traces.otf2")).expect("otf2 anchor")), "otf2");
    let e = open_path(&two_dir).expect_err("two unrelated files").to_string();
    assert!(e.starts_with(&two_dir.display().to_string()) && e.contains("2 files"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}
