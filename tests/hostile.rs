//! Hostile input for every reader: truncated files at many offsets, wrong magic, entity bombs, zip bombs and
//! tars with absurd sizes, JSON nested a million deep, headers claiming 2^40 records, NaN, infinite, negative
//! and decreasing timestamps, begins without ends, cyclic grain "DAGs", duplicate ids and dangling references.
//! Each case runs in its own thread under a time limit (5 s) and, serialised with the others, under a memory
//! budget (256 MiB peak allocated while it runs, counted by this binary's global allocator; hostile/harness.rs).
//! A case passes when the reader returns a clear error naming the file, or a (partial) result, with warnings
//! where the case says so; a panic, a hang or an allocation past the budget fails it. `HOSTILE_SHOW=1` prints
//! what each case gave. Inputs that crashed a reader under the fuzzers (fuzz/) are kept in `FUZZ_CRASHES`.
//!
//! Table-driven: a new reader joins with one line in [`FORMATS`] (its name, a file name, a small sample made by
//! the project's generators, and a function reading bytes to an [`Outcome`]); the truncation and wrong-magic
//! sweeps then cover it. Format-specific attacks are rows of the tables in the tests below.

use crate::common;
pub(crate) mod harness;

use harness::{of_trace, panic_text, run_case, run_case_within, Expect, Format, Outcome, Read, TIME_LIMIT};
use std::io::Write;
use std::time::Duration;
use weft::analyses::grains::{GrainAnalysis, Thresholds};
use weft::readers::otf2::{encoding::write as w, read_archive, MemoryFiles};
use weft::readers::{archive, chrome, mpe, paraver};
use weft::samples::mpe::MpeSample;
use weft::samples::{self, otf2::small_archive, paraver::ParaverSample, ChromeSample};

const REFUSED: Expect = Expect::Error("");

// ---- The readers, one row each: a new reader joins here ----

#[rustfmt::skip]
const FORMATS: &[Format] = &[
    Format { name: "chrome", file: "t.json", sample: chrome_sample, read: read_chrome, magic: REFUSED, names_file: true },
    Format { name: "chrome-stream", file: "t.json", sample: chrome_sample, read: read_chrome_stream, magic: REFUSED, names_file: true },
    Format { name: "chrome-gzip", file: "t.json.gz", sample: || gzip(&chrome_sample()), read: read_any, magic: REFUSED, names_file: true },
    Format { name: "otf2-anchor", file: "traces.otf2", sample: || otf2_file(0), read: |n, b| read_otf2(n, b, 0), magic: REFUSED, names_file: true },
    Format { name: "otf2-defs", file: "traces.def", sample: || otf2_file(1), read: |n, b| read_otf2(n, b, 1), magic: REFUSED, names_file: true },
    Format { name: "otf2-events", file: "traces/0.evt", sample: || otf2_file(2), read: |n, b| read_otf2(n, b, 2), magic: Expect::Warned, names_file: true },
    Format { name: "otf2-zip", file: "t.zip", sample: || zip_of(&otf2_files()), read: read_any, magic: REFUSED, names_file: true },
    Format { name: "otf2-tar", file: "t.tar", sample: || tar_of(&otf2_files()), read: read_any, magic: Expect::Survive, names_file: true },
    Format { name: "otf2-tgz", file: "t.tar.gz", sample: || gzip(&tar_of(&otf2_files())), read: read_any, magic: REFUSED, names_file: true },
    Format { name: "paraver-prv", file: "t.prv", sample: || prv_sample().prv, read: read_prv, magic: REFUSED, names_file: true },
    Format { name: "paraver-pcf", file: "t.pcf", sample: || prv_sample().pcf, read: read_pcf, magic: Expect::Survive, names_file: true },
    Format { name: "paraver-row", file: "t.row", sample: || prv_sample().row, read: read_row, magic: Expect::Survive, names_file: true },
    Format { name: "mir-csv", file: "t.csv", sample: || samples::grains::fib_profile(6, 0, 2), read: read_grains, magic: Expect::Survive, names_file: true },
    Format { name: "graphml", file: "t.graphml", sample: || GRAPHML.as_bytes().to_vec(), read: read_grains, magic: REFUSED, names_file: true },
    Format { name: "execgraph-text", file: "t.txt", sample: execgraph_sample, read: read_execgraph, magic: REFUSED, names_file: true },
    Format { name: "codec", file: "buffer", sample: codec_sample, read: read_codec, magic: REFUSED, names_file: false },
    Format { name: "nsys-sqlite", file: "t.sqlite", sample: || samples::nsys::NsysSample::small().generate().0, read: read_any, magic: REFUSED, names_file: true },
    Format { name: "nsys-csv", file: "t.csv", sample: nsys_csv_sample, read: read_any, magic: REFUSED, names_file: true },
    Format { name: "mpe-slog2", file: "t.slog2", sample: || MpeSample::new(3, 12).slog2(1024), read: |n, b| of_trace(mpe::slog2::read(n, b)), magic: REFUSED, names_file: true },
    Format { name: "mpe-clog2", file: "t.clog2", sample: || MpeSample::new(3, 12).clog2(1024), read: |n, b| of_trace(mpe::clog2::read(n, b)), magic: REFUSED, names_file: true },
    Format { name: "mpe-clog", file: "t.clog", sample: || MpeSample::new(3, 12).clog(), read: |n, b| of_trace(mpe::clog::read(n, b)), magic: REFUSED, names_file: true },
    Format { name: "mpe-rlog", file: "t.rlog", sample: || MpeSample::new(3, 12).rlog(), read: |n, b| of_trace(mpe::rlog::read(n, b)), magic: REFUSED, names_file: true },
    Format { name: "hpctoolkit-meta", file: "meta.db", sample: || hpctk_file(0), read: |n, b| read_hpctk(n, b, 0), magic: REFUSED, names_file: true },
    Format { name: "hpctoolkit-profile", file: "profile.db", sample: || hpctk_file(1), read: |n, b| read_hpctk(n, b, 1), magic: REFUSED, names_file: true },
    Format { name: "hpctoolkit-trace", file: "trace.db", sample: || hpctk_file(3), read: |n, b| read_hpctk(n, b, 3), magic: REFUSED, names_file: true },
    Format { name: "projections-sts", file: "gen.sts", sample: || proj_file(0), read: |n, b| read_proj(n, b, 0), magic: REFUSED, names_file: true },
    Format { name: "projections-log-gz", file: "gen.0.log.gz", sample: || proj_file(1), read: |n, b| read_proj(n, b, 1), magic: REFUSED, names_file: true },
    Format { name: "projections-log", file: "gen.1.log", sample: || proj_file(2), read: |n, b| read_proj(n, b, 2), magic: REFUSED, names_file: true },
    Format { name: "perfetto", file: "t.pftrace", sample: perfetto_sample, read: read_any, magic: REFUSED, names_file: true },
    Format { name: "perfetto-stream", file: "t.pftrace", sample: perfetto_sample, read: read_perfetto_stream, magic: REFUSED, names_file: true },
    Format { name: "perfetto-gzip", file: "t.pftrace.gz", sample: || gzip(&perfetto_sample()), read: read_any, magic: REFUSED, names_file: true },
];

fn format(name: &str) -> &'static Format {
    FORMATS.iter().find(|f| f.name == name).unwrap_or_else(|| panic!("no format {name}"))
}

fn chrome_sample() -> Vec<u8> {
    ChromeSample::sized(12_000, 7).generate()
}

fn read_chrome(name: &str, b: &[u8]) -> Outcome {
    of_trace(chrome::read(name, b))
}

/// The streaming reader, fed 1000-byte chunks (the page feeds File.slice pieces).
fn read_chrome_stream(name: &str, b: &[u8]) -> Outcome {
    let mut r = chrome::ChromeStreamReader::new(name);
    for chunk in b.chunks(1000) {
        r.feed(chunk).map_err(|e| e.to_string())?;
    }
    of_trace(r.finish())
}

fn read_any(name: &str, b: &[u8]) -> Outcome {
    of_trace(common::read::read_bytes(name, b))
}

const OTF2_FILES: [&str; 3] = ["traces.otf2", "traces.def", "traces/0.evt"];

fn otf2_file(i: usize) -> Vec<u8> {
    small_archive(false).files[OTF2_FILES[i]].clone()
}

fn otf2_files() -> Vec<(String, Vec<u8>)> {
    small_archive(false).files.into_iter().map(|(p, b)| (format!("run/{p}"), b)).collect()
}

/// The small archive with file `i` replaced by `b`.
fn read_otf2(_name: &str, b: &[u8], i: usize) -> Outcome {
    let mut m: MemoryFiles = small_archive(false);
    m.insert(OTF2_FILES[i], b.to_vec());
    of_trace(read_archive("traces.otf2", &m))
}

fn prv_sample() -> samples::paraver::ParaverFiles {
    ParaverSample { tasks: 2, threads_per_task: 2, iterations: 3, ..Default::default() }.generate()
}

fn read_prv(name: &str, b: &[u8]) -> Outcome {
    let s = prv_sample();
    of_trace(paraver::read(name, b, Some(&s.pcf), Some(&s.row)))
}

fn read_pcf(_name: &str, b: &[u8]) -> Outcome {
    let s = prv_sample();
    of_trace(paraver::read("t.prv", &s.prv, Some(b), Some(&s.row)))
}

fn read_row(_name: &str, b: &[u8]) -> Outcome {
    let s = prv_sample();
    of_trace(paraver::read("t.prv", &s.prv, Some(&s.pcf), Some(b)))
}

/// A grain-graph input, read and analysed (cycles, duplicates and dangling references are found there).
fn read_grains(name: &str, b: &[u8]) -> Outcome {
    let input = common::read::read_grains(name, b).map_err(|e| e.to_string())?;
    let a = GrainAnalysis::new(&input, Thresholds::paper()).map_err(|e| format!("{name}: {e}"))?;
    Ok(Read { records: a.graph.grains() as u64, warnings: 0 })
}

fn execgraph_sample() -> Vec<u8> {
    let text = samples::execgraph::sample_text("fib").unwrap_or_default();
    text.lines().take(200).collect::<Vec<_>>().join("\n").into_bytes()
}

fn read_execgraph(name: &str, b: &[u8]) -> Outcome {
    common::read::read_execgraph(name, b)
        .map(|e| Read { records: e.events.len() as u64, warnings: 0 })
        .map_err(|e| e.to_string())
}

fn codec_sample() -> Vec<u8> {
    let t = chrome::read("t.json", &ChromeSample::sized(6_000, 3).generate()).unwrap_or_else(|e| panic!("{e}"));
    weft::model::codec::encode(&t)
}

fn read_codec(_name: &str, b: &[u8]) -> Outcome {
    weft::model::codec::decode(b)
        .map(|t| Read { records: t.event_records.max(t.intervals.len() as u64), warnings: 0 })
        .map_err(|e| e.to_string())
}

// ---- Containers and small documents ----

fn zip_of(files: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut z = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    for (p, b) in files {
        z.start_file(p.as_str(), opts).expect("zip entry");
        z.write_all(b).expect("zip write");
    }
    z.finish().expect("zip finish").into_inner()
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

fn gzip(b: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(b).expect("gzip");
    e.finish().expect("gzip finish")
}

const GRAPHML_HEAD: &str = "<?xml version=\"1.0\"?>\n";
const GRAPHML_KEYS: &str = "<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\"><key id=\"t\" for=\"node\" attr.name=\"type\" attr.type=\"string\"/><graph edgedefault=\"directed\">";
const GRAPHML: &str = "<?xml version=\"1.0\"?>\n<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\"><key id=\"t\" for=\"node\" attr.name=\"type\" attr.type=\"string\"/><graph edgedefault=\"directed\"><node id=\"a\"><data key=\"t\">fork</data></node><node id=\"b\"><data key=\"t\">task</data></node><node id=\"c\"><data key=\"t\">task</data></node><node id=\"d\"><data key=\"t\">join</data></node><edge source=\"a\" target=\"b\"/><edge source=\"a\" target=\"c\"/><edge source=\"b\" target=\"d\"/><edge source=\"c\" target=\"d\"/></graph></graphml>";

fn graphml(body: &str) -> Vec<u8> {
    format!("{GRAPHML_HEAD}{GRAPHML_KEYS}{body}</graph></graphml>").into_bytes()
}

// ---- The sweeps over every format ----

/// Offsets to cut a file of `len` bytes at: every one of the first 64, then 150 spread over the rest.
fn cuts(len: usize) -> Vec<usize> {
    let mut c: Vec<usize> = (0..len.min(64)).collect();
    if len > 64 {
        c.extend((0..150).map(|i| 64 + (len - 64) * i / 150));
    }
    c.dedup();
    c
}

#[test]
fn every_format_survives_truncation_at_many_offsets() {
    for f in FORMATS {
        let whole = (f.sample)();
        let read = (f.read)(f.file, &whole);
        assert!(read.as_ref().is_ok_and(|r| r.records > 0), "{}: the sample itself must read: {read:?}", f.name);
        for cut in cuts(whole.len()) {
            run_case(&format!("{} cut at {cut}", f.name), f, whole[..cut].to_vec(), Expect::Survive);
        }
    }
}

#[test]
fn every_format_refuses_wrong_magic() {
    for f in FORMATS {
        let mut b = (f.sample)();
        for (i, x) in b.iter_mut().take(4).enumerate() {
            *x = b"XQZ!"[i];
        }
        run_case(&format!("{} with wrong magic", f.name), f, b, f.magic);
    }
}

// ---- Attacks on one format each: (case, format, bytes, what it must give) ----

fn cases(rows: Vec<(&str, &str, Vec<u8>, Expect)>) {
    for (case, name, bytes, expect) in rows {
        run_case(case, format(name), bytes, expect);
    }
}

#[test]
fn entity_bombs_and_deep_nesting_are_refused() {
    let laughs = format!("{GRAPHML_HEAD}<!DOCTYPE lolz [<!ENTITY lol \"lol\"><!ENTITY lol2 \"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;\"><!ENTITY lol3 \"&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;\"><!ENTITY lol4 \"&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;\">]>\n{GRAPHML_KEYS}<node id=\"a\"><data key=\"t\">&lol4;</data></node></graph></graphml>");
    let xxe = format!("{GRAPHML_HEAD}<!DOCTYPE g [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>\n{GRAPHML_KEYS}<node id=\"a\"><data key=\"t\">&x;</data></node></graph></graphml>");
    let deep_xml = format!("{GRAPHML_HEAD}{GRAPHML_KEYS}<node id=\"a\"><data key=\"t\">{}", "<x>".repeat(1_000_000));
    let deep_graphs = format!("{GRAPHML_HEAD}{GRAPHML_KEYS}{}", "<graph>".repeat(1_000_000));
    let million = 1_000_000;
    let deep_array = "[".repeat(million).into_bytes();
    let deep_args = format!(
        "{{\"traceEvents\":[{{\"ph\":\"X\",\"ts\":1,\"dur\":1,\"pid\":1,\"tid\":1,\"args\":{}",
        "{\"a\":".repeat(million)
    );
    let deep_arrays =
        format!("[{{\"ph\":\"i\",\"ts\":1,\"pid\":1,\"tid\":1,\"args\":{}", "[".repeat(million)).into_bytes();
    let deep_meta =
        format!("{{\"otherData\":{}1{}", "[{\"a\":".repeat(million / 2), "}]".repeat(million / 2)).into_bytes();
    let mut closed = deep_args.clone();
    closed.push('1');
    closed.push_str(&"}".repeat(million));
    closed.push_str("}]}");
    cases(vec![
        ("billion laughs", "graphml", laughs.into_bytes(), Expect::Error("DTD")),
        ("external entity", "graphml", xxe.into_bytes(), Expect::Error("DTD")),
        ("XML a million deep in a data", "graphml", deep_xml.into_bytes(), Expect::Survive),
        ("XML graphs a million deep", "graphml", deep_graphs.into_bytes(), Expect::Survive),
        ("array args a million deep", "chrome", deep_arrays.clone(), Expect::Survive),
        ("array args a million deep, streamed", "chrome-stream", deep_arrays, Expect::Survive),
        ("metadata a million deep", "chrome", deep_meta.clone(), Expect::Survive),
        ("metadata a million deep, streamed", "chrome-stream", deep_meta, Expect::Survive),
        ("[ a million deep", "chrome", deep_array.clone(), Expect::Survive),
        ("[ a million deep, streamed", "chrome-stream", deep_array, Expect::Survive),
        ("args a million deep, cut", "chrome", deep_args.clone().into_bytes(), Expect::Survive),
        ("args a million deep, cut, streamed", "chrome-stream", deep_args.into_bytes(), Expect::Survive),
        ("args a million deep, closed", "chrome", closed.clone().into_bytes(), Expect::Survive),
        ("args a million deep, closed, streamed", "chrome-stream", closed.into_bytes(), Expect::Survive),
    ]);
}

#[test]
fn bombs_and_absurd_sizes_in_containers_are_refused() {
    // 256 MiB of zeros in a small zip, against a 64 MiB budget.
    let mut z = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    z.start_file("run/traces.otf2", opts).expect("zip entry");
    z.write_all(&otf2_file(0)).expect("zip write");
    z.start_file("run/traces/0.evt", opts).expect("zip entry");
    let zeros = vec![0u8; 1 << 20];
    for _ in 0..256 {
        z.write_all(&zeros).expect("zip write");
    }
    let bomb = z.finish().expect("zip finish").into_inner();
    assert!(bomb.len() < 1 << 20, "the bomb is {} bytes", bomb.len());
    let budgeted = Format {
        name: "zip-64MiB",
        file: "bomb.zip",
        sample: Vec::new,
        read: |n, b| of_trace(archive::read_archive_bytes(n, b, 64 << 20)),
        magic: REFUSED,
        names_file: true,
    };
    run_case("zip bomb", &budgeted, bomb, Expect::Error("limit"));

    // Tar headers claiming 2^40 bytes (GNU binary size), and 2^33 - 1 bytes (octal), over the default budget.
    let mut rows = Vec::new();
    for (case, size) in [("tar claiming 2^40 bytes", 1u64 << 40), ("tar claiming 8 GiB", (1 << 33) - 1)] {
        let mut t = tar_of(&otf2_files());
        let mut h = tar::Header::new_gnu();
        h.set_path("run/traces/1.evt").expect("tar path");
        h.set_size(size);
        h.set_mode(0o644);
        h.set_cksum();
        let end = t.len() - 1024; // before the two zero blocks that end the archive
        t.splice(end..end, h.as_bytes().iter().copied().chain([7u8; 512]));
        rows.push((case, "otf2-tar", t.clone(), Expect::Error("limit")));
        rows.push((case, "otf2-tgz", gzip(&t), Expect::Error("limit")));
    }
    // A zip whose central directory claims an entry of 4 GiB - 2 bytes.
    let mut lying = zip_of(&otf2_files());
    if let Some(cd) = lying.windows(4).rposition(|w| w == b"PK\x01\x02") {
        lying[cd + 24..cd + 28].copy_from_slice(&0xFFFF_FFFEu32.to_le_bytes());
    }
    rows.push(("zip claiming 4 GiB", "otf2-zip", lying, Expect::Survive));
    cases(rows);
}

/// The anchor, with 2^40 locations claimed; definitions with a group of 2^40 members.
fn otf2_huge_counts() -> Vec<(&'static str, &'static str, Vec<u8>, Expect)> {
    let anchor = weft::samples::otf2::anchor(false, 1 << 40);
    let mut defs = otf2_file(1);
    let end = defs.pop(); // the end-of-chunk marker
    let mut d = Vec::new();
    w::u32(&mut d, 9, false);
    w::u32(&mut d, 8, false);
    d.push(0);
    w::u64(&mut d, 1 << 40, false);
    w::u64(&mut d, 0, false);
    w::record(&mut defs, 18, &d, false);
    defs.extend(end);
    vec![
        ("OTF2 anchor claiming 2^40 locations", "otf2-anchor", anchor, Expect::Survive),
        ("OTF2 group claiming 2^40 members", "otf2-defs", defs, Expect::Survive),
    ]
}

#[test]
fn headers_claiming_2_pow_40_records_are_refused_or_ignored() {
    let mut rows = otf2_huge_counts();
    let t40 = 1u64 << 40;
    let body = "2:1:1:1:1:1000:60000019:1\n2:1:1:1:1:2000:60000019:0\n";
    for (case, header) in [
        ("Paraver header with 2^40 threads", format!("#Paraver (x):3000_ns:1({t40}):1:1({t40}:1),0\n")),
        ("Paraver header with 2^40 tasks", format!("#Paraver (x):3000_ns:1(1):1:{t40}(1:1),0\n")),
        ("Paraver header with 2^40 CPUs", format!("#Paraver (x):3000_ns:{t40}(1):1:1(1:1),0\n")),
        ("Paraver header with 2^40 communicators", format!("#Paraver (x):3000_ns:1(1):1:1(1:1),{t40}\n")),
        ("Paraver header with 2^40 applications", format!("#Paraver (x):3000_ns:1(1):{t40}:1(1:1)\n")),
        ("Paraver header with 2^32-1 threads", format!("#Paraver (x):3000_ns:1(1):1:1({m}:1),0\n", m = u32::MAX)),
        ("Paraver header with 2^32-1 tasks", format!("#Paraver (x):3000_ns:1(1):1:{m}(1:1),0\n", m = u32::MAX)),
        ("Paraver header with 2^32-1 CPUs", format!("#Paraver (x):3000_ns:1({m}):1:1(1:1),0\n", m = u32::MAX)),
        ("Paraver header with 2^32-1 nodes", format!("#Paraver (x):3000_ns:{m}(1):1:1(1:1),0\n", m = u32::MAX)),
        ("Paraver header with 2^32-1 applications", format!("#Paraver (x):3000_ns:1(1):{m}:1(1:1)\n", m = u32::MAX)),
        (
            "Paraver record on thread 2^32-1",
            format!(
                "#Paraver (x):3000_ns:1(1):1:1(1:1),0\n2:1:1:1:{m}:1000:60000019:1\n2:1:{m}:{m}:1:1000:60000019:1\n",
                m = u32::MAX
            ),
        ),
    ] {
        rows.push((
            Box::leak(case.to_string().into_boxed_str()) as &str,
            "paraver-prv",
            format!("{header}{body}").into_bytes(),
            Expect::Survive,
        ));
    }
    let row = format!("LEVEL THREAD SIZE {t40}\nrank 0 thread 0\n");
    rows.push(("row file claiming 2^40 threads", "paraver-row", row.into_bytes(), Expect::Survive));
    cases(rows);
}

fn chrome_events(events: &[&str]) -> Vec<u8> {
    format!("{{\"traceEvents\":[{}]}}", events.join(",")).into_bytes()
}

fn prv(records: &str) -> Vec<u8> {
    format!("#Paraver (x):9000_ns:1(2):1:1(2:1),0\n{records}").into_bytes()
}

fn execgraph(lines: &str) -> Vec<u8> {
    format!("# weft execgraph 1 unit=us\n# TIME NODE THREAD EVENT [OTHER-THREAD]\n{lines}").into_bytes()
}

/// An OTF2 event file of (time, record type, region): 12 is ENTER, 13 LEAVE.
fn otf2_events(records: &[(u64, u8, u32)]) -> Vec<u8> {
    let mut f = Vec::new();
    w::chunk_header(&mut f, false, 1, records.len() as u64);
    for &(t, kind, region) in records {
        f.push(5);
        w::u64_full(&mut f, t, false);
        f.push(kind);
        w::u32(&mut f, region, false);
    }
    f.push(2);
    f
}

#[test]
fn bad_timestamps_and_unmatched_begins_and_ends() {
    let x = |ts: &str| format!("{{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":{ts},\"dur\":1}}");
    let ok = x("5");
    let be = |b: &str, e: &str| {
        [
            format!("{{\"ph\":\"B\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":{b}}}"),
            format!("{{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":{e}}}"),
        ]
    };
    let [b10, e5] = be("10", "5");
    let [b1, _] = be("1", "2");
    let [_, e3] = be("1", "3");
    cases(vec![
        ("Chrome ts NaN (not JSON)", "chrome", chrome_events(&[&ok, &x("NaN")]), Expect::Survive),
        ("Chrome ts \"NaN\" string", "chrome", chrome_events(&[&ok, &x("\"NaN\"")]), Expect::Survive),
        ("Chrome ts 1e400 (infinite)", "chrome", chrome_events(&[&ok, &x("1e400")]), Expect::Survive),
        ("Chrome ts -1e400", "chrome", chrome_events(&[&ok, &x("-1e400")]), Expect::Survive),
        ("Chrome ts 1e300 (past i64 ns)", "chrome", chrome_events(&[&ok, &x("1e300")]), Expect::Survive),
        ("Chrome ts negative", "chrome", chrome_events(&[&ok, &x("-5")]), Expect::Survive),
        (
            "Chrome dur negative",
            "chrome",
            chrome_events(&[&ok, "{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":-7}"]),
            Expect::Survive,
        ),
        ("Chrome E before its B", "chrome", chrome_events(&[&b10, &e5]), Expect::Survive),
        ("Chrome B without E", "chrome", chrome_events(&[&ok, &b1]), Expect::Warned),
        ("Chrome E without B", "chrome", chrome_events(&[&ok, &e3]), Expect::Warned),
        ("Paraver negative time", "paraver-prv", prv("2:1:1:1:1:-5:60000019:1\n"), Expect::Error("1 malformed")),
        (
            "Paraver time past u64",
            "paraver-prv",
            prv("2:1:1:1:1:99999999999999999999999:60000019:1\n"),
            Expect::Error("1 malformed"),
        ),
        ("Paraver state ending before it begins", "paraver-prv", prv("1:1:1:1:1:5000:100:1\n"), Expect::Survive),
        (
            "Paraver decreasing times",
            "paraver-prv",
            prv("2:1:1:1:1:5000:60000019:1\n2:1:1:1:1:100:60000019:0\n"),
            Expect::Survive,
        ),
        ("Paraver begin without end", "paraver-prv", prv("2:1:1:1:1:100:60000019:1\n"), Expect::Survive),
        ("Paraver end without begin", "paraver-prv", prv("2:1:1:1:1:100:60000019:0\n"), Expect::Survive),
        (
            "Paraver time at u64::MAX",
            "paraver-prv",
            prv("1:1:1:1:1:0:18446744073709551615:1\n2:1:1:1:1:18446744073709551615:60000019:1\n"),
            Expect::Survive,
        ),
        ("OTF2 enter without leave", "otf2-events", otf2_events(&[(10_000, 12, 0)]), Expect::Warned),
        ("OTF2 leave without enter", "otf2-events", otf2_events(&[(10_000, 13, 0)]), Expect::Warned),
        ("OTF2 decreasing times", "otf2-events", otf2_events(&[(10_000, 12, 0), (5_000, 13, 0)]), Expect::Warned),
        ("OTF2 time u64::MAX", "otf2-events", otf2_events(&[(0, 12, 0), (u64::MAX, 13, 0)]), Expect::Survive),
        ("execgraph NaN time", "execgraph-text", execgraph("0 0 0 init\nNaN 0 0 start\n1 0 0 end\n"), Expect::Survive),
        (
            "execgraph infinite time",
            "execgraph-text",
            execgraph("0 0 0 init\ninf 0 0 start\n1e400 0 0 end\n"),
            Expect::Survive,
        ),
        (
            "execgraph negative time",
            "execgraph-text",
            execgraph("0 0 0 init\n-5 0 0 start\n1 0 0 end\n"),
            Expect::Survive,
        ),
        (
            "execgraph decreasing times",
            "execgraph-text",
            execgraph("0 0 0 init\n9 0 0 start\n1 0 0 end\n"),
            Expect::Survive,
        ),
        (
            "execgraph start without end",
            "execgraph-text",
            execgraph("0 0 0 init\n1 0 0 start\n2 0 0 fork 1\n"),
            Expect::Survive,
        ),
        ("execgraph end without start", "execgraph-text", execgraph("0 0 0 init\n1 1 1 end\n"), Expect::Survive),
        (
            "execgraph join of a thread never forked",
            "execgraph-text",
            execgraph("0 0 0 init\n0 0 0 start\n3 0 0 a-join 77\n4 0 0 end\n"),
            Expect::Survive,
        ),
    ]);
}

const MIR_HEAD: &str = "\"lineage\",\"task\",\"parent\",\"joins_at\",\"cpu_id\",\"child_number\",\"num_children\",\"exec_cycles\",\"creation_cycles\",\"overhead_cycles\",\"create_instant\",\"wait_instants\",\"outline_function\",\"source_line\",\"tag\",\"work_cycles\"\n";

fn mir(rows: &str) -> Vec<u8> {
    format!("{MIR_HEAD}{rows}").into_bytes()
}

#[test]
fn grain_graphs_with_cycles_duplicates_and_dangling_references() {
    let node = |id: &str| format!("<node id=\"{id}\"><data key=\"t\">task</data></node>");
    let edge = |a: &str, b: &str| format!("<edge source=\"{a}\" target=\"{b}\"/>");
    let cyclic = graphml(&format!("{}{}{}{}{}", node("a"), node("b"), edge("a", "b"), edge("b", "a"), edge("a", "a")));
    let duplicate = graphml(&format!("{}{}{}", node("a"), node("a"), edge("a", "a")));
    let dangling = graphml(&format!("{}{}", node("a"), edge("a", "zz")));
    let root = "\"R-1\",1,0,0,1,1,2,640,130,300,0,\"[0;540]\",\"4204848\",\"fib.c:0\",\"t\",340\n";
    cases(vec![
        ("GraphML cycle", "graphml", cyclic, Expect::Error("acyclic")),
        ("GraphML duplicate node ids", "graphml", duplicate, Expect::Error("")),
        ("GraphML dangling edge", "graphml", dangling, Expect::Error("")),
        ("MIR parent cycle", "mir-csv", mir(&format!("{root}\"R-1-1\",2,3,0,0,1,1,56,140,0,140,\"[0]\",\"1\",\"f.c:0\",\"t\",56\n\"R-1-2\",3,2,0,0,2,1,56,140,0,140,\"[0]\",\"1\",\"f.c:0\",\"t\",56\n")), Expect::Survive),
        ("MIR self parent", "mir-csv", mir(&format!("{root}\"R-1-1\",2,2,0,0,1,0,56,140,0,140,\"[0]\",\"1\",\"f.c:0\",\"t\",56\n")), Expect::Survive),
        ("MIR duplicate task ids", "mir-csv", mir(&format!("{root}\"R-1-1\",2,1,0,0,1,0,56,140,0,140,\"[0]\",\"1\",\"f.c:0\",\"t\",56\n\"R-1-2\",2,1,0,0,2,0,56,140,0,140,\"[0]\",\"1\",\"f.c:0\",\"t\",56\n")), Expect::Survive),
        ("MIR dangling parent", "mir-csv", mir(&format!("{root}\"R-1-1\",2,99,0,0,1,0,56,140,0,140,\"[0]\",\"1\",\"f.c:0\",\"t\",56\n")), Expect::Survive),
        ("MIR join point past the waits", "mir-csv", mir(&format!("{root}\"R-1-1\",2,1,7,0,1,0,56,140,0,140,\"[0]\",\"1\",\"f.c:0\",\"t\",56\n")), Expect::Survive),
        ("MIR 2^40 children", "mir-csv", mir("\"R-1\",1,0,0,1,1,1099511627776,640,130,300,0,\"[0;540]\",\"1\",\"f.c:0\",\"t\",340\n"), Expect::Survive),
        ("MIR NaN and infinite cycles", "mir-csv", mir(&format!("{root}\"R-1-1\",2,1,0,0,1,0,NaN,inf,-1,1e400,\"[-5;NaN]\",\"1\",\"f.c:0\",\"t\",-56\n")), Expect::Survive),
    ]);
}

// ---- Inputs the fuzzers (fuzz/) crashed a reader with, kept as regression cases: (format, hex bytes, fix) ----

const FUZZ_CRASHES: &[(&str, &str, &str)] = &[(
    "codec",
    concat!(
        "574546544d444c3100e803000000000000ac0d00000000000007000000000000000c00000000000000000000000000000015000000000000",
        "0050726f63657373203130393935313136323737373608000000000000005468726561642032010000000000000078010000000000000074",
        "090000000000000050726f636573732031010000000000000063080000000000000054687265616420310100000000000000660200000000",
        "000000617301000000000000007007000000000000004173796e632030020000000000000000000000000100000100000000000000020000",
        "00000000000a0000000500000002000000000000000000000000010000010000000000000004000000000000000000000001000000010000",
        "0001000000040000000000000002000000000000000100000000000000020000000000000000000000000000000400000000000000040000",
        "0007000000020000000900000004000000000000000000000204000000000000000200000000000000010000000000000002000000000000",
        "0000000000000000000200000000000000030000000900000002000000000000000000000006000000020000000000000001010200000000",
        "000000010102000000000000000000000003000000020000000000000000000000010000000200000000000000f401000000000000000000",
        "00000000000200000000000000b80b000000000000b80b000000000000020000000000000000000000000000000000000000000000000000",
        "0000000000000000000000000001000000000000000101000000000000000100000001000000000000000200000001000000000000000000",
        "0000000000000100000000000000e80300000000000001000000000000000000000000000000010000000000000000000000010000000000",
        "0000080000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
        "0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
        "0000000000000f0000000000000000000000000000000000000000000000000000000000000001cd00000000000006000000010000000000",
        "0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
        "0000000000000000f9ffffff0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
        "000000000000000100008585858585858585858585858585000100000000000000000000000100000000000000e803000000000000010000",
        "0000000000000000000000084000000000000000000000000000000000",
    ),
    "warning counts of one kind summing past 2^64 overflowed Warnings::add_count; counts now saturate",
), (
    "hpctoolkit-meta",
    concat!(
        "485043544f4f4c4b49546d6574610400610000000000000090000000000000008d00000000000000f8000000000000001b00000000003200",
        "8801000000000000b0060000000000005804000000000000af00000000000000a80100000000000030000000000000005802000000000000",
        "30000000000000008802000000000000a001000000000000b802000000000000a000000000000000af00000000000000776566742067656e",
        "65726174656400412067656e65726174656420485043546f6f6c6b697420646174616261736520287765667427732073616d706c65733a3a",
        "687063746f6f6c6b69745f67656e292e00000000000000000801000000000000080000000000000048010000000000005001000000000000",
        "55010000000000005a0100000000000061010000000000006b010000000000007601000000000000800100000000000053554d4d41525900",
        "4e4f44450052414e4b005448524541440047505544455649434500475055434f4e544558540047505553545245414d00434f524500000000",
        "00000000000000000000000020101800000000000000000000001000000000002f6f70742f6170702d62696e2f736f6c766572002f757372",
        "2f6c69622f6c69626d70692e736f2e3430007372632f736f6c7665722e63007372632f6d70695f777261702e63006d61696e00736f6c7665",
        "00636f6d707574655f626c6f636b007374656e63696c5f6b65726e656c0065786368616e67655f68616c6f004d50495f53656e64004d5049",
        "5f52656376004d50495f416c6c72656475636500776f726b6572006d61696e20746872656164000068020000000000000200000010000000",
        "0000000000000000a8010000000000000000000000000000bc01000000000000980200000000000002000000100000000100000000000000",
        "d2010000000000000100000000000000df01000000000000c8020000000000000a00000028000000ee010000000000006802000000000000",
        "001000010000000098020000000000000000000000000000f301000000000000680200000000000040100000000000009802000000000000",
        "0a00000000000000f90100000000000068020000000000008010000000000000980200000000000014000000000000000702000000000000",
        "6802000000000000c01000000000000098020000000000001e00000000000000160200000000000068020000000000000011000000000000",
        "9802000000000000280000000000000024020000000000007802000000000000401100000000000000000000000000003200000000000000",
        "2d020000000000007802000000000000801100000000000000000000000000003c0000000000000036020000000000007802000000000000",
        "c011000000000000000000000000000046000000000000000000000000000000ffffffffffffffffffffffffffffffffffffffffffffffff",
        "ff68020000000000000012000000000000980200000000000050000000000000000000000000000000000000000000000031000000000000",
        "0000000000000000000000000000000000000000000000000000000000000000000000000000000000680000000000000000000000000000",
        "005f70726f662e6462",
    ),
    "a load module pointer near 2^64 overflowed `p_module + 8` in meta.db's functions (session 6); checked now",
)];

fn unhex(h: &str) -> Vec<u8> {
    (0..h.len() / 2).map(|i| u8::from_str_radix(&h[2 * i..2 * i + 2], 16).expect("hex")).collect()
}

#[test]
fn fuzz_crashes_stay_fixed() {
    for (name, hex, fix) in FUZZ_CRASHES {
        run_case(&format!("fuzz crash in {name} ({fix})"), format(name), unhex(hex), Expect::Survive);
    }
}

/// The hpctoolkit fuzz target's input of session 6 that overflowed a node's process id (`n * 2^32` for a node
/// id past 2^31, crates/readers/src/hpctoolkit/mod.rs; now wrapping): meta.db, profile.db and trace.db joined by
/// `%%next%%` as the target (fuzz/fuzz_targets/hpctoolkit.rs) splits them.
const HPCTOOLKIT_NODE_CRASH: &str = concat!(
    "485043544f4f4c4b49546d6574610400610000000000000090000000000000008d00000000000000f8000000000000001b00000000000000",
    "8801000000000000b0060000000000005804000000000000af00000000000000a80100000000000030000000000000005802000000000000",
    "30000000000000008802000000000000a001000000000000b802000000000000a000000000000000af00000000000000776566742067656e",
    "65726174656400412067656e65726174656420485043546f6f6c6b697420646174616261736520287765667427732073616d706c65733a3a",
    "687063746f6f6c6b69745f67656e292e00000000000000000801000000000000080000000000000048010000000000005001000000000000",
    "55010000000000005a0100000000000061010000000000006b010000000000007601000000000000800100000000000053554d4d41525900",
    "4e4f44450052414e4b005448524541440047505544455649434500475055434f4e544558540047505553545245414d00434f524500000000",
    "00000000000000000000000020101800000000000000000000001000000000002f6f70742f6170702f62696e2f736f6c766572002f757372",
    "2f6c69622f6c69626d70692e736f2e3430007372632f736f6c7665722e63007372632f6d70695f777261702e63006d61696e00736f6c7665",
    "00636f6d707574655f626c6f636b007374656e63696c5f6b65726e656c0065786368616e67655f68616c6f004d50495f53656e64004d5049",
    "5f52656376004d50495f4b6c6c72656475636500776f726b6572006d61696e20746872656164000068020000000000000200000010000000",
    "0000000000000000a8010000000000000000000000000000bc01000000000000980200000000000002000000100000000100000000000000",
    "d2010000000000000100000000000000df01000000000000c8020000000000000a00000028000000ee010000000000006802000000000000",
    "001000000000000098020000000000000000000000000000f301000000000000680200000000000040100000000000009802000000000000",
    "0a00000000000000f90100000000000068020000000000008210000000000000980200000000000014000000000000000702000000000000",
    "6802000000000000c01000000000000098020000000000001e00000000000000160200000000000068020000000000000011000000000000",
    "9802000000000000280000000000000024020000000000007802000000000000401100000000000000000000000000003200000000000000",
    "2d020000000000007802000000000000801100000000000000000000000000003c0000000000000036020000000000007802000000000000",
    "c011000000000000000000000000000046000000000000004402000000000000680200000000000000120000000000009802000000000000",
    "500000000000000000000000000000007802000000000000007f000000000000000000000000000000000000000000006804000000000000",
    "01002000000000003300000000000000880400000000000001000000010000004b020000000000009000000000000000c004000000000000",
    "02000000030100030000000000000000c8020000000000009802000000000000000000000000000030000000000000005005000000000000",
    "0300000002000202000000000000000098020000000000000c00000000000000300000000000000080050000000000000500000002000102",
    "000000000000000098020000000000000e000000000000003800000000000000b0050000000000001d000000020002020000000000000000",
    "9802000000000000140000000000000000000000000000000000000000000000040000000400030200000000000000006802000000000000",
    "04100000000000003800000000000000e8050000000000000600000002000202000000000000000098020000000000000f00000000000000",
    "300000000000000020060000000000001e000000030100030000000000000000080400000000000098020000000000005000000000000000",
    "9000000000000000500600000000000007000000030100030000000000000000f00200000000000098020000000000000a00000000000000",
    "3800000000000000e0060000000000001f000000020002020000000000000000980200000000000051000000000000003800000000000000",
    "18070000000000000800000002000202000000000000000098020000000000001e0000000000000038000000000000005007000000000000",
    "0f00000002000202000000000000000098020000000000002100000000000000380000000000000088070000000000001900000002000202",
    "0000000000000000980200000000000024000000000000003000000000000000c00700000000000020000000030100030000000000000000",
    "1803000000000000980200000000000014000000000000003000000000000000f00700000000000009000000030100030000000000000000",
    "1803000000000000980200000000000014000000000000006000000000000000200800000000000010000000030100030000000000000000",
    "680300000000000098020000000000002800000000000000300000000000000080080000000000001a000000030100030000000000000000",
    "e003000000000000980200000000000046000000000000003000000000000000b00800000000000021000000020002020000000000000000",
    "98020000000000002a000000000000006800000000000000e0080000000000000a0000000200020200000000000000009802000000000000",
    "2900000000000000380000000000000048090000000000001100000002000202000000000000000098020000000000003d00000000000000",
    "380000000000000080090000000000001500000002000202000000000000000098020000000000003e000000000000003000000000000000",
    "b8090000000000001b0000000200820200000000000000009802000000000000010000000000000000000000000000000000000000000000",
    "2200000004000302000000000000000068020000000000002210000000000000000000000000000000000000000000000b00000004000302",
    "000000000000000068020000000000000b100000000000003000000000000000e8090000000000000c000000030200030000000000000000",
    "400300000000000098020000000000001e000000000000003000000000000000180a00000000000012000000030100030000000000000000",
    "9003000000000000980200000000000032000000000000003000000000000000480a00000000000016000000030100030000000000000000",
    "b80300000000000098020000000000003c00000000000000000000000000000000000000000000001c000000040003020000000000000000",
    "68020000000000001c100000000000003000000000000000780a0000000000000d0000000200020200000000000000009802000000000000",
    "33000000000000003000000000000000a80a0000000000001300000002000202000000000000000098020000000000000100000000000000",
    "3000000000000000d80a00000000000017000000020002020000000000000000980200000000000001000000000000000000000000000000",
    "00000000000000000e00000004000302000000000000000068020000000000000e1000000000000000000000000000000000000000000000",
    "1400000004000302000000000000000068020000000000001410000000000000000000000000000000000000000000001800000004000302",
    "0000000000000000680200000000000018100000000000005f6d6574612e646225256e6578742525485043544f4f4c4b495470726f660400",
    "a000000000000000a00000000000000070000000000000003000000000000000030000000000000001000000000000800000000000000000",
    "0200000000000000000000000000000003000000000000000000000000000000030000000000000001000000000000000000000000000000",
    "0200000000000000000000000000000003000000010000000100000000000000b00000000000000003000000300000000000000000000000",
    "0000000000000000000000000000000000000000000000000000000000000000010000000000000000000000000000000000000000000000",
    "0000000000000000000000000000000030000000000000000000000000000000000000000000000000000000000000000000000000000000",
    "0000000000000000680000000000000000000000000000005f70726f662e646225256e6578742525485043544f4f4c4b4954747263650400",
    "5000000000000000200000000000000040000000000000000200000018000000c8af2a36fe9c971792a03136fe9c97170100000000000000",
    "7000000000000000500200000000000002000000000000005002000000000000300400000000000078512e36fe9c9717040000009f652e36",
    "fe9c971704000000a67c2e36fe9c97170400000088932e36fe9c97170400020026a82e36fe9c9717140000006fbe2e36fe9c971714000000",
    "fcd32e36fe9c971714000000b6ea2e36fe9c971714000000f0002f36fe9c971700000000ce162f36fe9c97170e000000bf2a2f36fe9c9717",
    "0e00000005422f36fe9c97170e000000d7582f36fe9c97170e000000e96c2f36fe9c97170e000000db816f36fe9c97171400000001982f36",
    "fe9c971722000000b9ad2f36fe9c9717220000008dc12f36fe9c971722000000a5d62f36fe9c971722000000f0ed2f36fe9c971722000000",
    "11053036fe9c971722000000b81b3036fe9c9717220000008e323036fe9c971722000000b8473036fe9c9717220000001d5e3036fe9c9717",
    "22000000ca713036fe9c97172200000011873036fe9c971722000000409d3036fe9c97172200000088b43036fe9c97172200000038ca3036",
    "fe9c97172200000058e03036fe9c97170b00000080f43036fe9c97170b00000041083136fe9c97170b000000231f3136fe9c97170b000000",
    "c2333136fe9c97170b0000003a4a3136fe9c97170b0000009d603136fe9c97170b0000007f763136fe9c97170b000000ac8a31c1fe9c9717",
    "1400000092a03136fe9c971714000000c8af2a36fe9c97171400000018c42a36fe9c971714000000a1d72a36fe9c9717140000006bec2a36",
    "fe9c9717140000000e022b36fe9c97171400000015182b36fe9c971714000000992e2b36fe9c97171400000028452b36fe9c971714000000",
    "aa5a2b36fe9c971718000000f2702b36fe9c97171800000091842b36fe9c9717180000003e9a2b36fe9c97171800000096af2b36fe9c9717",
    "0e000000bec62b36fe9c97170e0000000bdd2b36fe9c97170e000000c1f02b36fe9c97170e000000b6062c36fe9c97170e000001431d2c36",
    "fe9c97170e0000009d322c36fe9c97170e0000000b482c36fe9c971714000000935e2c36fe9c971714000000ce742c36fe9c971714000000",
    "418a2c36fe9c97170b0000003a9f2c36fe9c97170b00000042b32c36fe9c97170b00000034ca2c36fe9c97170b0000008adf2c36fe9c9717",
    "0b00000013f62c36fe9c9717180000004c0b2d36fe9c971718000000f2212d36fe9c971718000000ac382d36fe9c971718000000ab4e2d36",
    "fe9c97171800000095632d36fe9c971718000000787a2d36fe9c9717180080009e912d36fe9c9717180000004ca52d36fe9c971700000000",
    "23b92d36fe9c971722000000d2ce2d36fe9c971722000000f2e52d36fe9c971714000000eefa2d36fe9c97171400000074726163652e6462",
);

#[test]
fn hpctoolkit_fuzz_crash_of_three_files_stays_fixed() {
    let data = unhex(HPCTOOLKIT_NODE_CRASH);
    let sep: &[u8] = b"%%next%%";
    let mut parts = Vec::new();
    let mut rest = data.as_slice();
    while let Some(i) = rest.windows(sep.len()).position(|w| w == sep) {
        parts.push(&rest[..i]);
        rest = &rest[i + sep.len()..];
    }
    parts.push(rest);
    assert_eq!(parts.len(), 3, "meta.db, profile.db and trace.db");
    let read = std::panic::catch_unwind(|| {
        weft::readers::hpctoolkit::read(
            "fuzz",
            ("meta.db", parts[0]),
            Some(("profile.db", parts[1])),
            Some(("trace.db", parts[2])),
        )
        .map(|_| ())
        .map_err(|e| e.to_string())
    });
    assert!(read.is_ok(), "the reader panicked on the fuzzer's input");
}

// ---- The harness can fail ----

fn fails(f: Format, limit: Duration) -> String {
    let result = std::panic::catch_unwind(|| run_case_within("self-test", &f, vec![1, 2, 3], Expect::Survive, limit));
    result.err().map(|p| panic_text(&p)).unwrap_or_else(|| panic!("{}: the harness let it pass", f.name))
}

#[test]
fn the_harness_catches_panics_hangs_and_hungry_readers() {
    let f = |name, read| Format { name, file: "x", sample: Vec::new, read, magic: REFUSED, names_file: true };
    let panics = fails(f("panics", |_, b| Ok(Read { records: u64::from(b[7]), warnings: 0 })), TIME_LIMIT);
    assert!(panics.contains("panicked"), "{panics}");
    let hungry = fails(
        f("hungry", |_, _| Ok(Read { records: vec![1u8; 300 << 20].iter().map(|&x| u64::from(x)).sum(), warnings: 0 })),
        TIME_LIMIT,
    );
    assert!(hungry.contains("over the budget"), "{hungry}");
    let hangs = fails(
        f("hangs", |_, _| {
            std::thread::sleep(Duration::from_millis(400));
            Err("x".into())
        }),
        Duration::from_millis(100),
    );
    assert!(hangs.contains("still running"), "{hangs}");
    let anonymous = fails(f("anonymous", |_, _| Err("broken".into())), TIME_LIMIT);
    assert!(anonymous.contains("does not name"), "{anonymous}");
}

/// `head`, then `n` MiB of `fill`, then `tail`, gzipped as it is written (never whole in memory).
fn gzip_bomb(head: &[u8], fill: u8, n: usize, tail: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(head).expect("gzip");
    let block = vec![fill; 1 << 20];
    for _ in 0..n {
        e.write_all(&block).expect("gzip");
    }
    e.write_all(tail).expect("gzip");
    e.finish().expect("gzip finish")
}

#[test]
fn gzip_bombs_stay_within_the_memory_budget() {
    let event = b"{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1}";
    let mut head = b"[".to_vec();
    head.extend_from_slice(event);
    let chrome = gzip_bomb(&head, b' ', 320, b"]");
    let prv = gzip_bomb(b"#Paraver (x):3000_ns:1(1):1:1(1:1),0\n2:1:1:1:1:1000:60000019:1\n", b'\n', 320, b"");
    run_case("Chrome gzip of 320 MiB of blanks", format("chrome-gzip"), chrome, Expect::Survive);
    // The Paraver reader holds the whole text, so its budget (4 GiB by default) is what bounds it.
    let budgeted = Format {
        name: "prv-64MiB",
        file: "bomb.prv.gz",
        sample: Vec::new,
        read: |n, b| of_trace(paraver::read_within(n, b, None, None, 64 << 20)),
        magic: REFUSED,
        names_file: true,
    };
    run_case("Paraver gzip of 320 MiB of empty lines", &budgeted, prv, Expect::Error("limit"));
}

// ---- Nsight Systems: SQLite pages pointing in circles or out of the file, other applications' databases ----

fn nsys_csv_sample() -> Vec<u8> {
    let mut s = "Start (ns),End (ns),Duration (ns),Name,PID,TID\n".to_string();
    for i in 0..200 {
        s.push_str(&format!("{},{},{},range {},{},{}\n", i * 10, i * 10 + 5, 5, i % 7, 100 + i % 2, 100 + i % 3));
    }
    s.into_bytes()
}

/// The page number of each b-tree page of table `name` (its root first), and the page size.
fn pages_of(bytes: &[u8], name: &str) -> (usize, usize) {
    let db = weft::readers::sqlite::Database::open(bytes).expect("sample opens");
    (db.table(name).expect("table").root_page as usize, db.page_size())
}

#[test]
fn nsys_hostile_databases() {
    use weft::samples::sqlite::{SqliteFile, Value};
    let (good, _) = samples::nsys::NsysSample { processes: 2, iterations: 300, devices: 1 }.generate();
    let (root, ps) = pages_of(&good, "CUPTI_ACTIVITY_KIND_RUNTIME");
    let at = (root - 1) * ps;
    assert_eq!(good[at], 0x05, "an interior root");
    let set = |b: &[u8], off: usize, v: &[u8]| {
        let mut b = b.to_vec();
        b[off..off + v.len()].copy_from_slice(v);
        b
    };
    // Another application's database (the project's writer; tests/nsys.rs checks one sqlite3 wrote).
    let mut other = SqliteFile::new(1024);
    other.add_table(
        "moz_places",
        "CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url TEXT)",
        Some(0),
        &[vec![Value::Int(1), "https://example.org".into()]],
    );
    let other = other.finish();
    let mut empty = SqliteFile::new(512);
    empty.add_table("StringIds", "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT)", Some(0), &[]);
    empty.add_table(
        "NVTX_EVENTS",
        "CREATE TABLE NVTX_EVENTS (start INTEGER, end INTEGER, eventType INTEGER, globalTid INTEGER)",
        None,
        &[],
    );
    let empty = empty.finish();
    cases(vec![
        (
            "nsys: the runtime table's root points at itself",
            "nsys-sqlite",
            set(&good, at + 8, &(root as u32).to_be_bytes()),
            Expect::Warned,
        ),
        (
            "nsys: a child page past the file",
            "nsys-sqlite",
            set(&good, at + 8, &u32::MAX.to_be_bytes()),
            Expect::Warned,
        ),
        ("nsys: a root claiming 65535 cells", "nsys-sqlite", set(&good, at + 3, &[0xff, 0xff]), Expect::Warned),
        ("nsys: page size 3000", "nsys-sqlite", set(&good, 16, &3000u16.to_be_bytes()), Expect::Error("page size")),
        ("nsys: UTF-16 encoding 7", "nsys-sqlite", set(&good, 56, &7u32.to_be_bytes()), Expect::Error("encoding")),
        ("nsys: schema page of another type", "nsys-sqlite", set(&good, 100, &[0x0a]), Expect::Error("index b-tree")),
        ("nsys: another application's database", "nsys-sqlite", other, Expect::Error("not an Nsight Systems export")),
        ("nsys: an export with no events", "nsys-sqlite", empty, Expect::Error("no events")),
        // Issue 51: 30,000 columns named in CREATE TABLE and 30,000 rows (a lookup by name per row was 9e8).
        (
            "nsys: a table of 30,000 columns",
            "nsys-sqlite",
            samples::nsys::many_columns(30_000, 30_000),
            Expect::Survive,
        ),
        (
            "nsys: SQLite header only",
            "nsys-sqlite",
            b"SQLite format 3\0".to_vec(),
            Expect::Error("not an SQLite 3 database"),
        ),
        (
            "nsys-csv: a header and no ranges",
            "nsys-csv",
            b"Start (ns),End (ns),Name,PID,TID\n".to_vec(),
            Expect::Error("no events"),
        ),
        (
            "nsys-csv: ranges ending before they start",
            "nsys-csv",
            b"Start (ns),End (ns),Name,PID,TID\n9,1,a,1,1\n1,2,b,1,1\n".to_vec(),
            Expect::Warned,
        ),
        (
            "nsys-csv: 2^62 nanoseconds",
            "nsys-csv",
            b"Start (ns),End (ns),Name,PID,TID\n0,4611686018427387904,a,1,1\n".to_vec(),
            Expect::Survive,
        ),
    ]);
}

/// MPE formats: counts and pointers past the bytes there are, a category map of 2^31 entries, vertices and
/// drawables by the billion, CLOG2 blocks of a gigabyte over a small file, records of unknown types.
#[test]
fn mpe_counts_and_pointers_past_the_bytes_are_refused() {
    let slog = MpeSample::new(2, 4).slog2(4096);
    let ptr = |b: &[u8], i: usize| {
        let at = 2 + 10 + 2 + 4 + 2 + 4 + 12 * i;
        (i64::from_be_bytes(b[at..at + 8].try_into().unwrap()) as usize, at)
    };
    let (cats, _) = ptr(&slog, 0);
    let mut huge_categories = slog.clone();
    huge_categories[cats..cats + 4].copy_from_slice(&i32::MAX.to_be_bytes());
    let (root, _) = ptr(&slog, 3);
    let mut huge_drawables = slog.clone();
    huge_drawables[root + 34..root + 38].copy_from_slice(&i32::MAX.to_be_bytes());
    let mut negative_size = slog.clone();
    let (_, at) = ptr(&slog, 4);
    negative_size[at + 8..at + 12].copy_from_slice(&(-5i32).to_be_bytes());
    let mut dir_loop = slog.clone();
    let (dir, _) = ptr(&slog, 4);
    dir_loop[dir..dir + 4].copy_from_slice(&(1i32 << 28).to_be_bytes());
    let mut clog2 = MpeSample::new(2, 4).clog2(1024);
    let p = clog2.windows(5).position(|w| w == b"1024\0").unwrap();
    clog2[p..p + 5].copy_from_slice(b"9999\0");
    let mut unknown = MpeSample::new(2, 4).clog2(1024);
    unknown[1024 + 20..1024 + 24].copy_from_slice(&77i32.to_be_bytes());
    let mut clog_len = MpeSample::new(2, 4).clog();
    clog_len[12..16].copy_from_slice(&(i32::MAX).to_be_bytes());
    cases(vec![
        ("SLOG-2 category map of 2^31 entries", "mpe-slog2", huge_categories, REFUSED),
        ("SLOG-2 frame of 2^31 drawables", "mpe-slog2", huge_drawables, REFUSED),
        ("SLOG-2 directory of negative size", "mpe-slog2", negative_size, Expect::Survive),
        ("SLOG-2 directory of 2^28 frames", "mpe-slog2", dir_loop, REFUSED),
        // Issue 51: a frame beginning at every drawable of one run (read again each, 8,000 made 32 M intervals).
        (
            "SLOG-2 directory frames overlapping one run",
            "mpe-slog2",
            samples::mpe::slog2_overlapping_frames(8_000),
            Expect::Warned,
        ),
        ("CLOG2 block size larger than the file", "mpe-clog2", clog2, Expect::Survive),
        ("CLOG2 record of unknown type", "mpe-clog2", unknown, REFUSED),
        ("CLOG record of 2^31 doubles", "mpe-clog", clog_len, REFUSED),
    ]);
}

// ---- HPCToolkit databases and Projections traces (#19): one file of the generated set replaced ----

fn hpctk_file(i: usize) -> Vec<u8> {
    samples::hpctoolkit_gen::generate(&samples::hpctoolkit_gen::HpctkSpec::small()).files[i].1.clone()
}

/// The generated database with file `i` (0 meta, 1 profile, 3 trace) replaced by `b`, named `name`.
fn read_hpctk(name: &str, b: &[u8], i: usize) -> Outcome {
    let db = samples::hpctoolkit_gen::generate(&samples::hpctoolkit_gen::HpctkSpec::small());
    let file = |k: usize| if k == i { (name, b) } else { (db.files[k].0, db.files[k].1.as_slice()) };
    of_trace(weft::readers::hpctoolkit::read("db", file(0), Some(file(1)), Some(file(3))))
}

fn proj_file(i: usize) -> Vec<u8> {
    samples::projections_gen::generate(&samples::projections_gen::ProjSpec::small()).files[i].1.clone()
}

/// The generated trace with file `i` (0 the .sts, 1 PE 0's gzipped log, 2 PE 1's plain log) replaced by `b`.
fn read_proj(name: &str, b: &[u8], i: usize) -> Outcome {
    let g = samples::projections_gen::generate(&samples::projections_gen::ProjSpec::small());
    let mut set = MemoryFiles::new();
    for (k, (n, bytes)) in g.files.iter().enumerate() {
        if k == i {
            set.insert(name, b.to_vec());
        } else {
            set.insert(n, bytes.clone());
        }
    }
    let found = weft::readers::projections::Found {
        sts: g.files[0].0.clone(),
        logs: (0..g.records.len() as u32).map(|pe| (pe, g.files[pe as usize + 1].0.clone())).collect(),
    };
    of_trace(weft::readers::projections::read_files("trace", &set, &found))
}

fn put_u64(b: &mut [u8], at: usize, v: u64) {
    b[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

fn get_u64(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}

#[test]
fn hpctoolkit_and_projections_attacks() {
    let meta = hpctk_file(0);
    let trace = hpctk_file(3);
    let mut v5 = meta.clone();
    v5[14] = 5;
    // The context tree's entry point whose first child's children array is the entry's own children: a cycle.
    let mut cycle = meta.clone();
    let ctx_section = get_u64(&meta, 0x48) as usize;
    let entries = get_u64(&meta, ctx_section) as usize;
    let (kids_size, kids) = (get_u64(&meta, entries), get_u64(&meta, entries + 8));
    put_u64(&mut cycle, kids as usize, kids_size);
    put_u64(&mut cycle, kids as usize + 8, kids);
    // A trace line claiming 2^40 samples; a meta.db given as the trace.db (another file of the same kind).
    let mut long = trace.clone();
    let headers = get_u64(&trace, get_u64(&trace, 0x18) as usize) as usize;
    put_u64(&mut long, headers + 0x10, 12 << 40);
    let mut functions = meta.clone();
    let fn_section = get_u64(&meta, 0x88) as usize;
    functions[fn_section + 8..fn_section + 12].copy_from_slice(&u32::MAX.to_le_bytes());
    let sts = String::from_utf8(proj_file(0)).unwrap();
    let log = String::from_utf8(proj_file(2)).unwrap();
    cases(vec![
        ("HPCToolkit meta.db of version 5", "hpctoolkit-meta", v5, Expect::Error("version 5")),
        ("HPCToolkit context tree with a cycle", "hpctoolkit-meta", cycle, Expect::Error("twice")),
        ("HPCToolkit 2^32-1 functions", "hpctoolkit-meta", functions, Expect::Error("end of the file")),
        ("HPCToolkit trace line of 2^40 samples", "hpctoolkit-trace", long, Expect::Warned),
        ("HPCToolkit meta.db as the trace.db", "hpctoolkit-trace", meta.clone(), Expect::Error("expected \"trce\"")),
        (
            "Projections .sts of another program",
            "projections-sts",
            b"VERSION 11.0\nPROCESSORS 2\n".to_vec(),
            Expect::Error("not a Projections"),
        ),
        (
            "Projections .sts with 2^40 PEs",
            "projections-sts",
            sts.replace("PROCESSORS 4", "PROCESSORS 1099511627776").into_bytes(),
            Expect::Survive,
        ),
        (
            "Projections .sts with 2^32-1 PEs",
            "projections-sts",
            sts.replace("PROCESSORS 4", "PROCESSORS 4294967295").into_bytes(),
            Expect::Warned,
        ),
        (
            "Projections log with garbage lines",
            "projections-log",
            format!("{log}2 x y\n99999999999999999999 1\n3 1 2\n").into_bytes(),
            Expect::Warned,
        ),
        (
            "Projections log with times past i64 ns",
            "projections-log",
            format!("{log}2 1 2 9223372036854775 1 0 16 0 0\n").into_bytes(),
            Expect::Warned,
        ),
        (
            "Projections gzip of 64 MiB without a newline",
            "projections-log-gz",
            gzip_bomb(b"PROJECTIONS-RECORD 1\n", b'x', 64, b"\n"),
            Expect::Warned,
        ),
    ]);
}

// ---- Perfetto protobuf (#57): framing that lies, packets that do not decode, bombs ----

fn perfetto_sample() -> Vec<u8> {
    samples::perfetto::PerfettoSample::small().generate()
}

fn read_perfetto_stream(name: &str, b: &[u8]) -> Outcome {
    let mut r = weft::readers::perfetto::PerfettoStreamReader::new(name);
    for c in b.chunks(1000) {
        if let Err(e) = r.feed(c) {
            return of_trace(Err(e));
        }
    }
    of_trace(r.finish())
}

/// A varint's bytes.
fn varint(mut v: u64) -> Vec<u8> {
    let mut out = Vec::new();
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
    out
}

#[test]
fn perfetto_framing_and_packet_attacks() {
    let good = perfetto_sample();
    let packet = |len: u64, body: &[u8]| [&[0x0a][..], &varint(len), body].concat();
    // A debug annotation nested 5,000 deep (dict_entries, field 11): past prost's recursion limit.
    let mut nested = vec![0x08, 0x01]; // the innermost annotation: name_iid 1
    for _ in 0..5_000 {
        nested = [&[0x5a][..], &varint(nested.len() as u64), &nested].concat();
    }
    let event = [&[0x22][..], &varint(nested.len() as u64), &nested].concat(); // TrackEvent.debug_annotations
    let body = [&[0x5a][..], &varint(event.len() as u64), &event].concat(); // TracePacket.track_event
    let deep = [&good[..], &packet(body.len() as u64, &body)].concat();
    // One packet claiming 60 MiB of zeros, gzipped to a few dozen KB.
    let bomb = gzip_bomb(&packet(60 << 20, &[]), 0, 60, b"");
    // Attacks on the first packet go to the reader itself (the sniffer refuses them: no trace).
    cases(vec![
        (
            "Perfetto packet claiming 2^40 bytes",
            "perfetto-stream",
            packet(1 << 40, &[1, 2, 3]),
            Expect::Error("more than"),
        ),
        (
            "Perfetto length varint of eleven bytes",
            "perfetto-stream",
            [&[0x0a][..], &[0xff; 11]].concat(),
            Expect::Error("ten bytes"),
        ),
        (
            "Perfetto packet claiming 60 MiB in a short file",
            "perfetto-stream",
            packet(60 << 20, &good[..100]),
            Expect::Error("first packet"),
        ),
        (
            "Perfetto wire type 7 after good packets",
            "perfetto",
            [&good[..], &[0x0f, 0x00]].concat(),
            Expect::Error("wire type"),
        ),
        (
            "Perfetto packet whose field claims more than it holds",
            "perfetto-stream",
            packet(3, &[0x5a, 0x7f, 0x00]),
            Expect::Error("decodes"),
        ),
        ("Perfetto annotation nested 5,000 deep", "perfetto", deep, Expect::Warned),
        ("Perfetto gzip of one 60 MiB packet of zeros", "perfetto-gzip", bomb, Expect::Survive),
    ]);
}
