//! The CLI on the hostile inputs of issue 51: `weft index --memory` holds for the readers behind it (an
//! HPCToolkit database that expands past it is refused naming it), absurd `--memory` values do not abort,
//! `--json` writes the characters a terminal must not get raw as `\uXXXX` for every format's names, and a
//! store folder without its manifest is said to be one.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use weft::model::text::is_hidden_control;
use weft::samples;

use crate::common::TempDir;

fn weft(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_weft")).args(args).output().expect("run weft")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn index_memory_holds_for_a_database_that_expands_past_it() {
    use samples::hpctoolkit_gen::{deep_chain, Alternate};
    let dir = TempDir::new("cli-hostile-index-memory");
    // 2,000 leaf samples each opening a chain 3,000 deep: 6 M intervals (about 400 MB to read and tile).
    // 200 KB of files, zipped (the index reads a database from an archive).
    let db = deep_chain(3_000, 4_000, Alternate::LeafAndIdle);
    let mut z = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    for (name, bytes) in &db.files {
        z.start_file(format!("db/{name}"), opts).expect("zip entry");
        std::io::Write::write_all(&mut z, bytes).expect("zip write");
    }
    let trace = dir.put("db.zip", &z.finish().expect("zip").into_inner());
    let out = dir.join("store");
    let run = weft(&["index", &trace.to_string_lossy(), "-o", &out.to_string_lossy(), "--memory", "64M"]);
    let err = text(&run.stderr);
    assert!(!run.status.success(), "indexed past --memory: {}", text(&run.stdout));
    assert!(err.contains(&format!("{}: too large: ", trace.display())), "names the archive: {err}");
    assert!(err.contains("events"), "the budget's message: {err}");
    // The process stayed near --memory (VmHWM, where the system reports it; some of it is the binary).
    let stdout = text(&run.stdout);
    let peak = stdout.lines().find_map(|l| l.strip_prefix("peak memory "));
    assert!(peak.is_some() || !Path::new("/proc/self/status").exists(), "no peak memory line: {stdout}");
    if let Some(mb) = peak {
        let mb: u64 = mb.trim_end_matches(" MB").parse().expect("a number");
        eprintln!("weft index --memory 64M of the deep database: refused at a peak of {mb} MB");
        assert!(mb < 160, "peak memory {mb} MB under --memory 64M");
    }
    assert!(!out.exists(), "no store left");
}

/// A Chrome trace with counters (the counter-sample buffer) and a few slices.
fn counters_trace() -> Vec<u8> {
    let mut events = vec![serde_json::json!({"ph": "X", "name": "work", "pid": 1, "tid": 1, "ts": 0, "dur": 50})];
    for i in 0..200 {
        events.push(serde_json::json!({"ph": "C", "name": "mem", "pid": 1, "ts": i, "args": {"bytes": i * 10}}));
    }
    serde_json::to_vec(&events).expect("JSON")
}

#[test]
fn absurd_memory_values_do_not_abort_the_index() {
    let dir = TempDir::new("cli-hostile-absurd-memory");
    let trace = dir.put("c.json", &counters_trace());
    for (k, memory) in ["1024G", "18446744073709551615", "17179869184G"].into_iter().enumerate() {
        let out = dir.join(format!("store{k}"));
        let run = weft(&["index", &trace.to_string_lossy(), "-o", &out.to_string_lossy(), "--memory", memory]);
        let err = text(&run.stderr);
        if memory == "17179869184G" {
            // 2^64 bytes: past u64, refused as no size.
            assert!(!run.status.success() && err.contains("--memory"), "{err}");
            continue;
        }
        assert!(run.status.success(), "--memory {memory}: {err}");
        assert!(out.join("manifest.json").is_file(), "--memory {memory}: a store");
        let info = weft(&["info", "--json", &out.to_string_lossy()]);
        assert!(info.status.success(), "{}", text(&info.stderr));
    }
}

#[test]
fn a_store_folder_without_its_manifest_says_so() {
    let dir = TempDir::new("cli-hostile-no-manifest");
    let trace = dir.put("c.json", &counters_trace());
    let store = dir.join("store");
    let run = weft(&["index", &trace.to_string_lossy(), "-o", &store.to_string_lossy()]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    std::fs::remove_file(store.join("manifest.json")).expect("remove the manifest");
    for args in [&["info"][..], &["info", "--json"], &["moments"]] {
        let mut all: Vec<&str> = args.to_vec();
        let s = store.to_string_lossy();
        all.push(&s);
        let run = weft(&all);
        let err = text(&run.stderr);
        assert!(!run.status.success(), "{args:?}");
        assert!(err.contains(&format!("{}: missing", store.join("manifest.json").display())), "{args:?}: {err}");
        assert!(!err.contains("no files in it"), "{args:?}: {err}");
    }
    // A folder of no files at all is still an empty folder, not a store.
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).expect("folder");
    let err = text(&weft(&["info", &empty.to_string_lossy()]).stderr);
    assert!(err.contains("no files in it"), "{err}");
}

/// The 8 bytes of a C1 CSI (U+009B), a right-to-left override (U+202E) and a zero-width space (U+200B): as
/// long as `MPI_Send`, so a generated file of any format takes them in its place byte for byte.
const HOSTILE: &str = "\u{9b}\u{202e}\u{200b}";

/// `bytes` with every `from` replaced by `to` (of the same length).
fn replaced(bytes: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    assert_eq!(from.len(), to.len());
    let mut out = bytes.to_vec();
    let mut i = 0;
    while i + from.len() <= out.len() {
        if &out[i..i + from.len()] == from {
            out[i..i + from.len()].copy_from_slice(to);
            i += from.len();
        } else {
            i += 1;
        }
    }
    out
}

/// Every format's generated sample with `MPI_Send` (a Projections entry, which has none) renamed to
/// [`HOSTILE`], written under `dir`: (format, the path to give `weft info`).
fn hostile_traces(dir: &TempDir) -> Vec<(&'static str, PathBuf)> {
    let h = |b: &[u8]| replaced(b, b"MPI_Send", HOSTILE.as_bytes());
    let mut out = Vec::new();
    let chrome = samples::ChromeSample::default().generate();
    out.push(("chrome", dir.put("chrome/t.json", &h(&chrome))));
    let otf2 = samples::otf2::small_archive(false);
    for (p, b) in &otf2.files {
        dir.put(&format!("otf2/{p}"), &h(b));
    }
    out.push(("otf2", dir.join("otf2/traces.otf2")));
    let prv = samples::paraver::ParaverSample::default().generate();
    dir.put("paraver/t.pcf", &h(&prv.pcf));
    dir.put("paraver/t.row", &h(&prv.row));
    out.push(("paraver", dir.put("paraver/t.prv", &h(&prv.prv))));
    let nsys = samples::nsys::NsysSample::small().generate().0;
    out.push(("nsys-sqlite", dir.put("nsys/t.sqlite", &h(&nsys))));
    let mpe = samples::mpe::MpeSample::new(3, 12);
    out.push(("slog2", dir.put("mpe/t.slog2", &h(&mpe.slog2(1024)))));
    out.push(("clog2", dir.put("mpe/t.clog2", &h(&mpe.clog2(1024)))));
    out.push(("clog", dir.put("mpe/t.clog", &h(&mpe.clog()))));
    out.push(("rlog", dir.put("mpe/t.rlog", &h(&mpe.rlog()))));
    let db = samples::hpctoolkit_gen::generate(&samples::hpctoolkit_gen::HpctkSpec::small());
    for (name, bytes) in &db.files {
        dir.put(&format!("hpctoolkit/{name}"), &h(bytes));
    }
    out.push(("hpctoolkit", dir.join("hpctoolkit")));
    let proj = samples::projections_gen::generate(&samples::projections_gen::ProjSpec::small());
    for (name, bytes) in &proj.files {
        let b = match name.ends_with(".sts") {
            true => {
                String::from_utf8_lossy(bytes).replace("compute(int step)", &format!("compute({HOSTILE})")).into_bytes()
            }
            false => bytes.clone(),
        };
        dir.put(&format!("projections/{name}"), &b);
    }
    out.push(("projections", dir.join("projections").join(&proj.files[0].0)));
    out
}

#[test]
fn json_escapes_hidden_characters_of_every_format() {
    let dir = TempDir::new("cli-hostile-json");
    for (format, path) in hostile_traces(&dir) {
        let run = weft(&["info", "--json", &path.to_string_lossy()]);
        assert!(run.status.success(), "{format}: {}", text(&run.stderr));
        let out = String::from_utf8(run.stdout).expect("UTF-8");
        let raw: Vec<String> =
            out.chars().filter(|&c| c != '\n' && is_hidden_control(c)).map(|c| format!("U+{:04X}", c as u32)).collect();
        assert!(raw.is_empty(), "{format}: --json holds {raw:?} raw");
        assert!(out.contains("\\u009b\\u202e\\u200b"), "{format}: the renamed region is missing:\n{out}");
        // The JSON still says the name as it is.
        let v: Value = serde_json::from_str(&out).expect("JSON");
        let names: Vec<&str> =
            v["regions"].as_array().expect("regions").iter().filter_map(|r| r["name"].as_str()).collect();
        assert!(names.iter().any(|n| n.contains(HOSTILE)), "{format}: {names:?}");
    }
}

#[test]
fn moments_json_escapes_location_names() {
    // `weft moments --json` names locations (info is above; every `--json` goes through one writer).
    let dir = TempDir::new("cli-hostile-json-moments");
    let events = serde_json::json!([
        { "ph": "M", "name": "thread_name", "pid": 1, "tid": 1, "args": { "name": format!("t{HOSTILE}") } },
        { "ph": "X", "name": HOSTILE, "pid": 1, "tid": 1, "ts": 0, "dur": 100 },
    ]);
    let path = dir.put("t.json", events.to_string().as_bytes());
    let run = weft(&["moments", "--json", &path.to_string_lossy()]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let out = String::from_utf8(run.stdout).expect("UTF-8");
    assert!(!out.chars().any(|c| c != '\n' && is_hidden_control(c)), "raw in {out}");
    assert!(out.contains("t\\u009b\\u202e\\u200b"), "{out}");
    let v: Value = serde_json::from_str(&out).expect("JSON");
    assert!(v[0]["name"].as_str().is_some_and(|n| n.contains(HOSTILE)), "{v}");
}
