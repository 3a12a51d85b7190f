//! Writes the fuzzers' seed corpus, `DIR/<target>/<name>`, from the project's own generators (crates/samples/src)
//! and a few hand-written cases: `cargo run --example fuzz_seeds -- fuzz/corpus`. Nothing is copied from
//! ../shared/traces. Most seeds are a few KiB; the reproducers of issue #15 (quadratic paths, valid input
//! refused, silent nonsense) are up to about 1 MiB, for runs with `-max_len` of a few MiB (BENCHMARKS.md).

use std::io::Write;
use std::path::Path;
use weft::samples::{self, otf2::small_archive, paraver::ParaverSample, ChromeSample};

fn put(target: &str, name: &str, bytes: &[u8]) {
    let root = std::env::args().nth(1).unwrap_or_else(|| "fuzz/corpus".into());
    let dir = Path::new(&root).join(target);
    std::fs::create_dir_all(&dir).expect("create corpus folder");
    std::fs::write(dir.join(name), bytes).expect("write seed");
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
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(b).expect("gzip");
    e.finish().expect("gzip finish")
}

const GRAPHML: &str = "<?xml version=\"1.0\"?>\n<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\"><key id=\"t\" for=\"node\" attr.name=\"type\" attr.type=\"string\"/><key id=\"w\" for=\"node\" attr.name=\"work_cycles\" attr.type=\"double\"/><graph edgedefault=\"directed\"><node id=\"a\"><data key=\"t\">fork</data></node><node id=\"b\"><data key=\"t\">task</data><data key=\"w\">1200</data></node><node id=\"c\"><data key=\"t\">task</data><data key=\"w\">800</data></node><node id=\"d\"><data key=\"t\">join</data></node><edge source=\"a\" target=\"b\"/><edge source=\"a\" target=\"c\"/><edge source=\"b\" target=\"d\"/><edge source=\"c\" target=\"d\"/></graph></graphml>";

/// A JSON array of the events `f(i)` for i in 0..n.
fn array(n: usize, f: impl Fn(usize) -> String) -> Vec<u8> {
    let body: Vec<String> = (0..n).map(f).collect();
    format!("[{}]", body.join(",")).into_bytes()
}

/// Issue #15's Chrome reproducers, at about 1 MiB: each was quadratic, refused, or silently wrong.
fn hostile_chrome() -> Vec<(&'static str, Vec<u8>)> {
    let ev = r#"{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":2}"#;
    let unmatched = array(20_000, |i| {
        if i < 10_000 {
            format!(r#"{{"ph":"B","name":"a","pid":1,"tid":1,"ts":{i}}}"#)
        } else {
            format!(r#"{{"ph":"E","name":"z{}","pid":1,"tid":1,"ts":{i}}}"#, i % 3)
        }
    });
    let utf16: Vec<u8> = [0xFF, 0xFE]
        .into_iter()
        .chain(format!("{{\"traceEvents\":[{ev}]}}").encode_utf16().flat_map(u16::to_le_bytes))
        .collect();
    vec![
        ("unmatched-ends", unmatched),
        (
            "one-timestamp-ends",
            array(20_000, |i| {
                let ph = if i < 10_000 { "E" } else { "B" };
                format!(r#"{{"ph":"{ph}","name":"n{}","pid":1,"tid":1,"ts":5}}"#, i % 2)
            }),
        ),
        ("never-ended-b", array(15_000, |i| format!(r#"{{"ph":"b","cat":"c","name":"j","id":{i},"pid":1,"ts":{i}}}"#))),
        ("s-without-f", array(15_000, |i| format!(r#"{{"ph":"S","name":"j","id":{i},"pid":1,"tid":1,"ts":{i}}}"#))),
        ("many-threads", array(20_000, |i| format!(r#"{{"ph":"X","name":"w","pid":1,"tid":{i},"ts":{i},"dur":1}}"#))),
        ("deep-nesting", array(20_000, |i| format!(r#"{{"ph":"B","name":"d","pid":1,"tid":1,"ts":{i}}}"#))),
        ("big-head", format!("{{\"meta\":\"{}\",\"traceEvents\":[{ev}]}}", "m".repeat(200_000)).into_bytes()),
        ("utf16-le-bom", utf16),
        (
            "bad-pids",
            format!(
                r#"[{ev},{{"ph":"X","pid":null,"tid":[1],"ts":1,"dur":1}},{{"ph":"B","pid":NaN,"tid":true,"ts":1}}]"#
            )
            .into_bytes(),
        ),
        ("trailing", format!("[{ev}] garbage [{ev}]").into_bytes()),
    ]
}

/// GraphML whose nodes each carry their own undeclared key (a linear search per name was quadratic).
fn undeclared_keys(n: usize) -> Vec<u8> {
    let mut s = String::from("<?xml version=\"1.0\"?>\n<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\"><graph edgedefault=\"directed\">");
    for i in 0..n {
        s.push_str(&format!("<node id=\"n{i}\"><data key=\"k{i}\">{i}</data></node>"));
    }
    s.push_str("</graph></graphml>");
    s.into_bytes()
}

fn main() {
    // Chrome JSON: the first byte seeds the chunk sizes of the streaming reader.
    let chrome: Vec<(&str, Vec<u8>)> = vec![
        ("sized-1", ChromeSample::sized(3000, 1).generate()),
        ("sized-2", ChromeSample::sized(1500, 2).generate()),
        ("array", br#"[{"ph":"B","name":"a","pid":1,"tid":1,"ts":1},{"ph":"E","pid":1,"tid":1,"ts":2}]"#.to_vec()),
        ("object", br#"{"traceEvents":[{"ph":"X","name":"x","pid":"p","tid":2,"ts":1.5,"dur":3,"args":{"n":1}},{"ph":"M","name":"thread_name","pid":"p","tid":2,"args":{"name":"t"}},{"ph":"C","name":"c","pid":1,"ts":2,"args":{"v":3}},{"ph":"s","id":1,"name":"f","pid":1,"tid":1,"ts":1},{"ph":"f","id":1,"name":"f","pid":1,"tid":2,"ts":2,"bp":"e"},{"ph":"b","id":"0x1","cat":"c","name":"as","pid":1,"ts":1},{"ph":"e","id":"0x1","cat":"c","name":"as","pid":1,"ts":4}],"displayTimeUnit":"ns"}"#.to_vec()),
    ];
    for (i, (name, b)) in chrome.iter().enumerate() {
        let mut s = vec![i as u8];
        s.extend_from_slice(b);
        put("chrome_json", name, &s);
        put("sniff", &format!("chrome-{name}"), b);
    }
    let mut gz = vec![7u8];
    gz.extend(gzip(&chrome[2].1));
    put("chrome_json", "gzip", &gz);
    for (name, b) in hostile_chrome() {
        let mut s = vec![name.len() as u8];
        s.extend_from_slice(&b);
        put("chrome_json", name, &s);
        put("sniff", &format!("chrome-{name}"), &b[..b.len().min(256 * 1024)]);
    }

    // OTF2: the pick byte (file, byte order) and that file's bytes.
    for big in [false, true] {
        let m = small_archive(big);
        for (i, f) in ["traces.otf2", "traces.def", "traces/0.evt", "traces/1.evt"].iter().enumerate() {
            let mut s = vec![i as u8 | if big { 4 } else { 0 }];
            s.extend_from_slice(&m.files[*f]);
            put("otf2_archive", &format!("{}-{}", if big { "be" } else { "le" }, f.replace('/', "-")), &s);
        }
        let files: Vec<(String, Vec<u8>)> = m.files.iter().map(|(p, b)| (format!("run/{p}"), b.clone())).collect();
        let (zip, tar) = (zip_of(&files), tar_of(&files));
        let e = if big { "be" } else { "le" };
        put("archive_containers", &format!("{e}.zip"), &zip);
        put("archive_containers", &format!("{e}.tgz"), &gzip(&tar));
        put("archive_containers", &format!("{e}.tar"), &tar);
        put("sniff", &format!("otf2-{e}.zip"), &zip);
        put("sniff", &format!("otf2-{e}.tgz"), &gzip(&tar));
    }

    // Paraver: prv, then the pcf and the row after their markers.
    let p = ParaverSample { tasks: 2, threads_per_task: 2, iterations: 2, ..Default::default() }.generate();
    let mut s = p.prv.clone();
    s.extend_from_slice(b"\n%%pcf\n");
    s.extend_from_slice(&p.pcf);
    s.extend_from_slice(b"\n%%row\n");
    s.extend_from_slice(&p.row);
    put("paraver", "with-names", &s);
    put("paraver", "prv-only", &p.prv);
    put("paraver", "gzipped", &gzip(&p.prv));
    put("sniff", "paraver.prv", &p.prv);

    // MIR task stats and GraphML grain graphs.
    put("mir_csv", "fib-6", &samples::grains::fib_profile(6, 0, 2));
    put("mir_csv", "random-20", &samples::grains::random_profile(20, 3, 2));
    put("sniff", "mir.csv", &samples::grains::fib_profile(4, 0, 2));
    put("graphml", "diamond", GRAPHML.as_bytes());
    put("graphml", "undeclared-keys", &undeclared_keys(20_000));
    put("sniff", "diamond.graphml", GRAPHML.as_bytes());

    // Execution-graph text: the samples, cut to a few KiB where they are longer.
    for name in samples::execgraph::SAMPLES {
        if let Some(text) = samples::execgraph::sample_text(name) {
            let cut = text.lines().take(60).collect::<Vec<_>>().join("\n");
            put("execgraph_text", name, cut.as_bytes());
            put("sniff", &format!("execgraph-{name}"), cut.as_bytes());
        }
    }

    // MPE: SLOG-2, CLOG2 (small blocks, so several) and the old CLOG of one small workload.
    // Perfetto protobuf: the first byte seeds the chunk sizes of the streaming reader.
    let pf = samples::perfetto::PerfettoSample::small().generate();
    let mut s = vec![3u8];
    s.extend_from_slice(&pf);
    put("perfetto", "small", &s);
    let mut s = vec![5u8];
    s.extend(gzip(&pf));
    put("perfetto", "small-gz", &s);
    put("sniff", "perfetto-small", &pf);
    let m = samples::mpe::MpeSample::new(3, 6);
    for (name, b) in [("w.slog2", m.slog2(512)), ("w.clog2", m.clog2(1024)), ("w.clog", m.clog()), ("w.rlog", m.rlog())]
    {
        put("mpe", name, &b);
        put("sniff", &format!("mpe-{name}"), &b);
    }

    // The worker->page buffer of small traces.
    for (i, b) in chrome.iter().enumerate() {
        if let Ok(t) = weft::readers::chrome::read("seed.json", &b.1) {
            put("codec_decode", &format!("trace-{i}"), &weft::model::codec::encode(&t));
        }
    }
    // Nsight Systems: pick byte 0 for the SQLite export (small pages, so interior and overflow pages occur),
    // 1 for the NVTX CSV.
    let (export, _) = samples::nsys::NsysSample::small().generate();
    let mut s = vec![0u8];
    s.extend_from_slice(&export);
    put("nsys", "export-small", &s);
    put("sniff", "nsys-export-small", &export);
    let csv = b"Start (ns),End (ns),Duration (ns),Name,PID,TID,Lvl\n10,100,90,main,7,7,0\n20,30,10,\"a, b\",7,7,1\n";
    let mut s = vec![1u8];
    s.extend_from_slice(csv);
    put("nsys", "nvtx-csv", &s);
    put("sniff", "nsys-nvtx-csv", csv);

    // HPCToolkit: meta.db, profile.db and trace.db joined by `%%next%%`; Projections: the .sts and two logs.
    use weft::samples::{hpctoolkit_gen, projections_gen};
    let db = hpctoolkit_gen::generate(&hpctoolkit_gen::HpctkSpec { ranks: 1, threads: 2, samples: 40, seed: 3 });
    let joined = [&db.files[0].1[..], b"%%next%%", &db.files[1].1, b"%%next%%", &db.files[3].1].concat();
    put("hpctoolkit", "small", &joined);
    put("sniff", "hpctoolkit-meta.db", &db.files[0].1);
    let g = projections_gen::generate(&projections_gen::ProjSpec { pes: 2, iterations: 6, gzip_even: true, seed: 5 });
    let joined = [&g.files[0].1[..], b"%%next%%", &g.files[1].1, b"%%next%%", &g.files[2].1].concat();
    put("projections", "small", &joined);
    put("sniff", "projections-sts", &g.files[0].1);

    // Store manifests and parts (issue #51): forged ones, each a manifest and its parts joined.
    for f in samples::forged_store::forgeries() {
        put("store_manifest", f.name, &samples::forged_store::fuzz_input(&f));
    }
    println!("seeds written");
}
