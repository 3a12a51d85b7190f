//! The OTF2 generator (`samples::otf2_gen`, `weft generate otf2`): its archives are read by weft's reader
//! with no warning and the counts the generator reports; by the official OTF2 library (WEFT_PYTHON with the
//! `otf2` package; else SKIPPED) with the same counts per record kind; and chunk boundaries do not change
//! what is read.

use crate::common::TempDir;
use std::path::Path;
use std::process::Command;
use weft::model::{MessageKind, Trace};
use weft::readers::otf2::{read_archive, MemoryFiles};
use weft::samples::otf2_gen::{archive, GenConfig, GenCounts};

fn read(files: &MemoryFiles) -> Trace {
    read_archive("traces.otf2", files).expect("generated archive reads")
}

fn check_model(t: &Trace, c: &GenCounts, cfg: &GenConfig) {
    assert!(t.warnings.is_empty(), "warnings: {:?}", t.warnings);
    assert_eq!(t.event_records, c.events());
    assert_eq!(t.intervals.len() as u64, c.enter);
    assert_eq!(c.enter, c.leave);
    assert_eq!(t.messages.kind.iter().filter(|&&k| k == MessageKind::PointToPoint).count() as u64, c.mpi_send);
    assert_eq!(c.mpi_send, c.mpi_recv, "every send has its receive");
    assert_eq!(t.collectives.len() as u64, c.collective_end);
    assert_eq!(t.collectives.operations() as u64, c.collective_end / cfg.ranks as u64);
    assert_eq!(t.locations.len() as u64, cfg.locations());
    assert_eq!(t.processes.len() as u32, cfg.ranks);
    // Counters: a series per location and metric, a sample per METRIC record and metric, each series
    // rising (accumulated counts) with its location's ENTER and LEAVE times.
    let m = cfg.metrics as u64;
    assert_eq!(t.counters.series_name.len() as u64, m * cfg.locations());
    assert_eq!(t.counters.sample_value.len() as u64, m * c.metric);
    assert_eq!(c.metric, if m > 0 { c.enter + c.leave } else { 0 });
    let k = &t.counters;
    for i in 1..k.sample_series.len() {
        if k.sample_series[i] == k.sample_series[i - 1] {
            assert!(k.sample_time_ns[i] >= k.sample_time_ns[i - 1] && k.sample_value[i] >= k.sample_value[i - 1]);
        }
    }
    // Messages arrive after they leave, and go around the ring.
    for i in 0..t.messages.len() {
        assert!(t.messages.recv_ns[i] > t.messages.send_ns[i]);
    }
}

#[test]
fn weft_reads_generated_archives_exactly_with_no_warning() {
    for cfg in [
        GenConfig::new(1, 5_000),
        GenConfig { threads: 3, ..GenConfig::new(4, 60_000) },
        GenConfig { chunk_size: 4096, seed: 7, ..GenConfig::new(5, 40_000) },
        GenConfig { chunk_size: 4096, threads: 2, metrics: 3, ..GenConfig::new(3, 40_000) },
        GenConfig { metrics: 6, long_wait: true, ..GenConfig::new(2, 20_000) },
        GenConfig { resolution: 2_095_197_216, threads: 2, ..GenConfig::new(3, 30_000) },
    ] {
        let (files, counts) = archive(&cfg);
        let t = read(&files);
        check_model(&t, &counts, &cfg);
        let evt: u64 = files.files.iter().filter(|(k, _)| k.ends_with(".evt")).map(|(_, v)| v.len() as u64).sum();
        assert_eq!(evt, counts.event_bytes);
    }
}

#[test]
fn chunk_size_changes_the_bytes_not_the_trace() {
    let big = GenConfig::new(3, 50_000);
    let small = GenConfig { chunk_size: 1000, ..big };
    let (a, ca) = archive(&big);
    let (b, cb) = archive(&small);
    assert_eq!(ca.events(), cb.events());
    assert_ne!(a.files["traces/0.evt"], b.files["traces/0.evt"]);
    assert!(b.files["traces/0.evt"].len() > 5 * 1000, "many chunks");
    let (ta, tb) = (read(&a), read(&b));
    assert_eq!(ta.intervals.start_ns, tb.intervals.start_ns);
    assert_eq!(ta.intervals.dur_ns, tb.intervals.dur_ns);
    assert_eq!(ta.messages.send_ns, tb.messages.send_ns);
    assert_eq!(ta.collectives.end_ns, tb.collectives.end_ns);
}

#[test]
fn a_cycle_counter_clock_gives_the_same_times() {
    // Score-P's default timer ticks at the CPU's rate (2,095,197,216 a second on the real traces): the
    // reader converts every tick count, which must give back the ns the 1 GHz archive holds as they are.
    for resolution in [2_095_197_216, 1_000_000_001, 3_000_000_000, 10_000_000_000] {
        let ns = GenConfig { threads: 2, metrics: 2, long_wait: true, ..GenConfig::new(3, 40_000) };
        let ticked = GenConfig { resolution, ..ns };
        let (a, ca) = archive(&ns);
        let (b, cb) = archive(&ticked);
        assert_eq!(ca, cb);
        assert_ne!(a.files["traces/0.evt"], b.files["traces/0.evt"], "ticks written, not ns");
        let (ta, tb) = (read(&a), read(&b));
        assert!(tb.warnings.is_empty(), "{:?}", tb.warnings);
        assert_eq!(ta.origin_ns, tb.origin_ns, "{resolution}");
        assert_eq!(ta.span_ns, tb.span_ns, "{resolution}");
        assert_eq!(ta.intervals.start_ns, tb.intervals.start_ns, "{resolution}");
        assert_eq!(ta.intervals.dur_ns, tb.intervals.dur_ns, "{resolution}");
        assert_eq!((&ta.messages.send_ns, &ta.messages.recv_ns), (&tb.messages.send_ns, &tb.messages.recv_ns));
        assert_eq!(
            (&ta.collectives.start_ns, &ta.collectives.end_ns),
            (&tb.collectives.start_ns, &tb.collectives.end_ns)
        );
        assert_eq!(ta.counters.sample_time_ns, tb.counters.sample_time_ns, "{resolution}");
        assert_eq!(ta.counters.sample_value, tb.counters.sample_value, "{resolution}");
    }
}

fn write(files: &MemoryFiles, dir: &Path) {
    for (p, b) in &files.files {
        let path = dir.join(p);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, b).unwrap();
    }
}

#[test]
fn the_official_reader_counts_the_same_records() {
    let Some(py) = std::env::var("WEFT_PYTHON").ok().filter(|p| !p.is_empty()) else {
        eprintln!("SKIPPED otf2_gen oracle: WEFT_PYTHON is not set (a python with the `otf2` package)");
        return;
    };
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/otf2_oracle.py");
    // 256 KiB chunks (the official library's smallest): several chunks per location.
    for cfg in [
        GenConfig { chunk_size: 256 << 10, ..GenConfig::new(4, 200_000) },
        GenConfig { chunk_size: 256 << 10, threads: 2, seed: 3, ..GenConfig::new(3, 30_000) },
        GenConfig { chunk_size: 256 << 10, threads: 2, metrics: 4, ..GenConfig::new(2, 60_000) },
        GenConfig { chunk_size: 256 << 10, resolution: 2_095_197_216, ..GenConfig::new(5, 200_000) },
    ] {
        let (files, counts) = archive(&cfg);
        assert!(files.files["traces/0.evt"].len() > (256 << 10) || cfg.threads > 1);
        let dir = TempDir::new(&format!("otf2-gen-{}", cfg.ranks));
        write(&files, &dir);
        let out = Command::new(&py).arg(&script).arg("counts").arg(dir.join("traces.otf2")).output().expect("python");
        assert!(out.status.success(), "oracle failed: {}", String::from_utf8_lossy(&out.stderr));
        assert!(out.stderr.is_empty(), "the official library complained: {}", String::from_utf8_lossy(&out.stderr));
        let theirs: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
        for (class, n) in counts.by_class() {
            assert_eq!(theirs[class].as_u64(), Some(n), "{class}");
        }
        let total: u64 = theirs
            .as_object()
            .unwrap()
            .iter()
            .filter(|(k, _)| !matches!(k.as_str(), "CancelledIsends" | "TaskNames" | "TasksComplete" | "MetricValues"))
            .map(|(_, v)| v.as_u64().unwrap())
            .sum();
        assert_eq!(total, counts.events(), "no record kinds beyond those generated");
        assert_eq!(theirs["MetricValues"].as_u64().unwrap_or(0), counts.metric * cfg.metrics as u64, "metric values");
    }
}

#[test]
fn the_cli_writes_the_archive_it_reports() {
    let dir = TempDir::new("gen-cli");
    let out = Command::new(env!("CARGO_BIN_EXE_weft"))
        .args(["generate", "otf2", "--ranks", "3", "--events", "30000", "--json", "-o"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let (files, counts) = archive(&GenConfig::new(3, 30_000));
    assert_eq!(v["Enter"].as_u64(), Some(counts.enter));
    for (p, b) in &files.files {
        assert_eq!(&std::fs::read(dir.join(p)).unwrap(), b, "{p}: the CLI writes what archive() makes");
    }
}
