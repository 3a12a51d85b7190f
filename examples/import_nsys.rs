//! Time the Nsight Systems SQLite reader, best of 3, on a generated export of about N MB (or on a given
//! `.sqlite`): `cargo run --release --example import_nsys -- [MB | FILE.sqlite] [--write FILE]`.
//! Beside it: the SQLite page walk alone (every row of the event tables decoded, no model), `sqlite3`
//! selecting the same tables, and Python's `sqlite3` module fetching them (as pipit's Nsight reader reads an
//! export), where those are installed (`WEFT_PYTHON` picks the Python).

use std::process::Command;
use std::time::Instant;
use weft::readers::nsys;
use weft::readers::sqlite::Database;
use weft::samples::nsys::NsysSample;

const TABLES: [&str; 8] = [
    "StringIds",
    "CUPTI_ACTIVITY_KIND_RUNTIME",
    "CUPTI_ACTIVITY_KIND_KERNEL",
    "CUPTI_ACTIVITY_KIND_MEMCPY",
    "CUPTI_ACTIVITY_KIND_MEMSET",
    "NVTX_EVENTS",
    "OSRT_API",
    "MPI_P2P_EVENTS",
];

fn best_of_3<T>(mut f: impl FnMut() -> T) -> (f64, T) {
    let mut best = f64::MAX;
    let mut last = None;
    for _ in 0..3 {
        let t = Instant::now();
        let r = f();
        best = best.min(t.elapsed().as_secs_f64());
        last = Some(r);
    }
    (best, last.expect("three runs"))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = args.first().map(String::as_str).unwrap_or("100");
    let write = args.iter().position(|a| a == "--write").and_then(|i| args.get(i + 1));
    let (name, bytes) = if let Ok(mb) = arg.parse::<f64>() {
        // About 470 bytes of file per iteration of a rank.
        let iterations = ((mb * 1e6 / 470.0) / 16.0).max(1.0) as u32;
        let sample = NsysSample { processes: 16, iterations, devices: 4 };
        let t = Instant::now();
        let (bytes, c) = sample.generate();
        println!(
            "generated {:.1} MB ({} ranks x {} iterations: {} API calls, {} kernels, {} copies) in {:.2} s",
            bytes.len() as f64 / 1e6,
            sample.processes,
            sample.iterations,
            c.runtime,
            c.kernels,
            c.memcpy,
            t.elapsed().as_secs_f64()
        );
        ("generated.sqlite".to_string(), bytes)
    } else {
        (arg.to_string(), std::fs::read(arg)?)
    };
    let path = match write {
        Some(p) => p.clone(),
        None => {
            std::env::temp_dir().join(format!("weft-import-nsys-{}.sqlite", std::process::id())).display().to_string()
        }
    };
    std::fs::write(&path, &bytes)?;
    let mb = bytes.len() as f64 / 1e6;

    let (walk, rows) = best_of_3(|| {
        let db = Database::open(&bytes).expect("opens");
        let mut rows = 0u64;
        let mut sum = 0i64;
        for t in TABLES {
            let Some(table) = db.table(t) else { continue };
            db.rows(&table, |r| {
                rows += 1;
                for c in 0..r.record.len() {
                    sum = sum.wrapping_add(r.record.int(c).unwrap_or(0));
                }
                Ok(())
            })
            .expect("rows");
        }
        std::hint::black_box(sum);
        rows
    });
    println!(
        "sqlite page walk: {rows} rows, every value decoded, in {walk:.3} s ({:.0} MB/s, {:.2} M rows/s)",
        mb / walk,
        rows as f64 / walk / 1e6
    );
    let (read, trace) = best_of_3(|| nsys::read(&name, &bytes).expect("reads"));
    println!(
        "weft nsys::read: {} intervals, {} flows, {} locations in {read:.3} s ({:.0} MB/s)",
        trace.intervals.len(),
        trace.messages.len(),
        trace.locations.len(),
        mb / read
    );
    let selects: String = TABLES.iter().map(|t| format!("select * from {t};")).collect();
    if Command::new("sqlite3").arg("-version").output().is_ok_and(|o| o.status.success()) {
        let (s, ok) = best_of_3(|| {
            Command::new("sqlite3")
                .arg(&path)
                .arg(&selects)
                .stdout(std::process::Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        });
        assert!(ok, "sqlite3 failed");
        println!("sqlite3 CLI selecting the same tables (output to /dev/null): {s:.3} s");
    } else {
        println!("sqlite3 CLI: not installed");
    }
    let python = std::env::var("WEFT_PYTHON").unwrap_or_else(|_| "python3".into());
    let script = format!(
        "import sqlite3,time,sys\nbest=1e9\nfor _ in range(3):\n t=time.perf_counter()\n c=sqlite3.connect(sys.argv[1])\n n=0\n for q in {:?}.split(';'):\n  if q: n+=len(c.execute(q).fetchall())\n c.close()\n best=min(best,time.perf_counter()-t)\nprint(n, best)",
        selects
    );
    match Command::new(&python).arg("-c").arg(&script).arg(&path).output() {
        Ok(o) if o.status.success() => {
            let out = String::from_utf8_lossy(&o.stdout);
            let mut it = out.split_whitespace();
            let (n, s) = (it.next().unwrap_or("?"), it.next().unwrap_or("?"));
            println!("Python sqlite3 module fetchall of the same tables: {n} rows in {s} s");
        }
        _ => println!("Python sqlite3 module: not available ({python})"),
    }
    if write.is_none() {
        let _ = std::fs::remove_file(&path);
    }
    Ok(())
}
