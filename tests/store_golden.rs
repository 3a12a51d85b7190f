//! Today's store of every trace is unchanged (issue #52): `weft index` on every file of ../shared/traces
//! (and on a few generated traces, so the test also runs on a fresh machine without that folder) writes a
//! store whose manifest and tiles, by path and bytes, digest to the line recorded in tests/golden/stores.txt.
//! A refused input is recorded as refused, so what the CLI accepts is pinned too. The store's bytes are its
//! format: a change here is a change of format, to be made on purpose (docs/store-format.md) and re-recorded
//! with `WEFT_BLESS=1 cargo test --features mpi --test integration store_golden`.
//!
//! Inputs that are parts of another input (an OTF2 archive's per-location files, definition and config
//! files, documentation) are not indexed on their own; an HPCToolkit database is indexed by its folder. None
//! is skipped for its size: the 92 stores take about 2-5 s in a debug build (three `weft index` at once). The
//! traces are given relative to their folder because the manifest records the path as given.

use crate::common;
use crate::common::TempDir;

use std::path::{Path, PathBuf};
use std::process::Command;
use weft::samples::chrome::ChromeSample;
use weft::samples::otf2_gen::{archive, GenConfig};
use weft::samples::paraver::ParaverSample;

const GOLDEN: &str = "tests/golden/stores.txt";

/// One input to index: its name in the golden list, its folder and its path there (given to `weft index`
/// relative to the folder, as the manifest records it), and extra `weft index` flags.
struct Case {
    name: String,
    dir: PathBuf,
    path: PathBuf,
    flags: Vec<&'static str>,
}

/// The golden line of a store folder: its file count, byte total and one xxh3-128 over every file's
/// relative path, length and bytes, in path order.
fn digest(store: &Path) -> String {
    let files = common::files_under(store);
    let mut all = Vec::new();
    let mut total = 0u64;
    for f in &files {
        let rel = f.strip_prefix(store).expect("under the store").to_string_lossy().replace('\\', "/");
        let bytes = std::fs::read(f).expect("read a store file");
        total += bytes.len() as u64;
        all.extend_from_slice(rel.as_bytes());
        all.push(0);
        all.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
        all.extend_from_slice(&bytes);
    }
    format!("files={} bytes={} xxh3={:032x}", files.len(), total, xxhash_rust::xxh3::xxh3_128(&all))
}

/// `weft index` of one case into `out` (absolute): its golden line.
fn index(case: &Case, out: &Path) -> String {
    let store = out.join("store");
    let _ = std::fs::remove_dir_all(&store);
    let run = Command::new(env!("CARGO_BIN_EXE_weft"))
        .current_dir(&case.dir)
        .arg("index")
        .arg(&case.path)
        .arg("-o")
        .arg(&store)
        .args(["--threads", "1"])
        .args(&case.flags)
        .output()
        .expect("run weft index");
    let line = match run.status.success() {
        true => digest(&store),
        false => "refused".to_string(),
    };
    let _ = std::fs::remove_dir_all(&store);
    let flags = match case.flags.is_empty() {
        true => String::new(),
        false => format!(" [{}]", case.flags.join(" ")),
    };
    format!("{}{flags}: {line}", case.name)
}

/// Generated inputs: the streamed OTF2 path (whole blocks, and small blocks and tiles for many windows and
/// levels), the chunked Chrome JSON and Paraver paths.
fn generated(dir: &TempDir) -> Vec<Case> {
    let mut cases = Vec::new();
    let otf2 = |name: &str, cfg: &GenConfig| {
        for (p, b) in &archive(cfg).0.files {
            dir.put(&format!("{name}/{p}"), b);
        }
        PathBuf::from(name).join("traces.otf2")
    };
    let case = |name: &str, path: &Path, flags: Vec<&'static str>| Case {
        name: format!("gen/{name}"),
        dir: dir.path().to_path_buf(),
        path: path.to_path_buf(),
        flags,
    };
    let plain = otf2("otf2-plain", &GenConfig { threads: 2, ..GenConfig::new(3, 20_000) });
    let rich =
        otf2("otf2-rich", &GenConfig { metrics: 2, long_wait: true, chunk_size: 4096, ..GenConfig::new(5, 30_000) });
    cases.push(case("otf2-plain", &plain, vec![]));
    cases.push(case("otf2-plain", &plain, vec!["--block", "2", "--tile-intervals", "256"]));
    cases.push(case("otf2-rich", &rich, vec!["--block", "2", "--tile-intervals", "512"]));
    dir.put("chrome/builtin.json", &ChromeSample::builtin().generate());
    let chrome = Path::new("chrome/builtin.json");
    cases.push(case("chrome-builtin", chrome, vec![]));
    cases.push(case("chrome-builtin", chrome, vec!["--block", "3", "--tile-intervals", "256"]));
    let prv = ParaverSample { iterations: 40, ..ParaverSample::default() }.generate();
    dir.put("paraver/sample.pcf", &prv.pcf);
    dir.put("paraver/sample.row", &prv.row);
    dir.put("paraver/sample.prv", &prv.prv);
    cases.push(case("paraver", Path::new("paraver/sample.prv"), vec!["--block", "2", "--tile-intervals", "256"]));
    cases
}

/// Every input of ../shared/traces but the parts of another input (see the module doc).
fn shared(root: &Path) -> Vec<Case> {
    let part_of_another = |rel: &str| {
        let ext = rel.rsplit('.').next().unwrap_or("");
        rel.starts_with("hpctoolkit/")
            || (rel.starts_with("otf2/") && (rel.contains("/traces/") || !rel.ends_with(".otf2")))
            || matches!(ext, "md" | "cfg" | "def" | "pcf" | "row" | "projrc" | "yaml" | "ex")
    };
    let mut cases: Vec<Case> = common::files_under(root)
        .into_iter()
        .filter_map(|p| {
            let rel = p.strip_prefix(root).ok()?.to_string_lossy().replace('\\', "/");
            let path = PathBuf::from(&rel);
            (!part_of_another(&rel)).then(|| Case { name: rel, dir: root.to_path_buf(), path, flags: vec![] })
        })
        .collect();
    if let Ok(rd) = std::fs::read_dir(root.join("hpctoolkit")) {
        let mut dbs: Vec<PathBuf> = rd.flatten().map(|e| e.path()).filter(|p| p.is_dir()).collect();
        dbs.sort();
        for p in dbs {
            let rel = p.strip_prefix(root).expect("under root").to_string_lossy().replace('\\', "/");
            cases.push(Case { path: PathBuf::from(&rel), name: rel, dir: root.to_path_buf(), flags: vec![] });
        }
    }
    cases
}

/// Index every case on a few threads (each `weft index` on one): the golden lines, in the cases' order.
fn lines(cases: &[Case], out: &TempDir) -> Vec<String> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut lines = vec![String::new(); cases.len()];
    let slots: Vec<std::sync::Mutex<&mut String>> = lines.iter_mut().map(std::sync::Mutex::new).collect();
    std::thread::scope(|s| {
        for w in 0..3 {
            let (next, slots) = (&next, &slots);
            let dir = out.join(format!("worker{w}"));
            s.spawn(move || loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(case) = cases.get(i) else { break };
                **slots[i].lock().expect("a slot") = index(case, &dir);
            });
        }
    });
    drop(slots);
    lines
}

#[test]
fn todays_store_of_every_trace_is_unchanged() {
    let dir = TempDir::new("store-golden-inputs");
    let mut cases = generated(&dir);
    let root = common::shared_traces("store_golden (the shared traces' stores)");
    if let Some(root) = &root {
        cases.extend(shared(root));
    }
    let out = TempDir::new("store-golden-stores");
    let got = lines(&cases, &out);
    let golden_path = Path::new(env!("CARGO_MANIFEST_DIR")).join(GOLDEN);
    if std::env::var_os("WEFT_BLESS").is_some() {
        assert!(root.is_some(), "WEFT_BLESS needs ../shared/traces: the golden list names every shared trace");
        std::fs::write(&golden_path, got.join("\n") + "\n").expect("write the golden list");
        return;
    }
    let golden = std::fs::read_to_string(&golden_path).expect("tests/golden/stores.txt (WEFT_BLESS=1 writes it)");
    let want: Vec<&str> = golden.lines().filter(|l| root.is_some() || l.starts_with("gen/")).collect();
    let got: Vec<&str> = got.iter().map(String::as_str).collect();
    let changed: Vec<String> =
        want.iter().zip(&got).filter(|(w, g)| w != g).map(|(w, g)| format!("  was {w}\n  now {g}")).collect();
    assert!(
        changed.is_empty() && want.len() == got.len(),
        "{} of {} stores changed ({} recorded, {} built):\n{}",
        changed.len(),
        got.len(),
        want.len(),
        got.len(),
        changed.join("\n")
    );
}
