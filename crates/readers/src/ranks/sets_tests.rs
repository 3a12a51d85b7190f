//! Several OTF2 archives, or several Perfetto traces, opened as one run: the merged run's intervals are each
//! file's read alone, moved by its clock offset (its clock base where every file has one, else its first
//! event at the run's start), every file a rank; messages and collectives kept per file; files that are not
//! one run refused naming the file.

use super::fixtures::{note, open_set, Row};
use crate::otf2::MemoryFiles;
use crate::ReadError;
use prost::Message;
use weft_model::{ProcessId, Trace};
use weft_samples::otf2_gen::{archive, GenConfig};
use weft_samples::perfetto::PerfettoSample;

/// The real times given to the generated files' clocks: 1.7e18 ns plus 5 ms a file.
fn realtime(k: usize) -> u64 {
    1_700_000_000_000_000_000 + k as u64 * 5_000_000
}

/// Three generated OTF2 archives (of 2, 3 and 2 ranks, other seeds), under `a/`, `b/` and `c/`; with their
/// real times (OTF2 3.0) when `real`.
fn archives(real: bool) -> Vec<(String, MemoryFiles)> {
    [(2u32, 1u64), (3, 2), (2, 3)]
        .iter()
        .enumerate()
        .map(|(k, &(ranks, seed))| {
            let cfg = GenConfig { seed, realtime_ns: real.then(|| realtime(k)), ..GenConfig::new(ranks, 3_000) };
            let dir = ["a", "b", "c"][k];
            let mut files = MemoryFiles::new();
            for (path, bytes) in archive(&cfg).0.files {
                files.insert(&format!("{dir}/{path}"), bytes);
            }
            (format!("{dir}/traces.otf2"), files)
        })
        .collect()
}

fn together(parts: &[(String, MemoryFiles)]) -> MemoryFiles {
    let mut all = MemoryFiles::new();
    for (_, files) in parts {
        for (p, b) in &files.files {
            all.insert(p, b.clone());
        }
    }
    all
}

/// The rows a file read alone (`t`) gives as rank `rank` of a merged run, each time `shift` ns later on the
/// absolute clock (its origin counted): locations named "process / location" where the file has several
/// processes.
fn as_rank(t: &Trace, rank: i64, shift: i64) -> Vec<Row> {
    let iv = &t.intervals;
    let several = t.processes.len() > 1;
    (0..iv.len())
        .map(|i| {
            let l = iv.location[i];
            let loc = if several {
                format!("{} / {}", t.process_name(t.locations.process[l.index()]), t.location_name(l))
            } else {
                t.location_name(l).to_string()
            };
            let start = t.origin_ns + iv.start_ns[i] as i64 + shift;
            (rank, loc, t.region_name(iv.region[i]).to_string(), start, start + iv.dur_ns[i] as i64)
        })
        .collect()
}

fn sorted(mut v: Vec<Row>) -> Vec<Row> {
    v.sort();
    v
}

#[test]
fn otf2_archives_are_ranks_on_their_real_time_clocks() {
    let parts = archives(true);
    let t = open_set(&together(&parts)).unwrap();
    assert_eq!(t.format, weft_model::Format::Otf2);
    assert_eq!(t.processes.len(), 3);
    let mut want = Vec::new();
    let (mut messages, mut collectives, mut operations) = (0, 0, 0);
    for (k, (anchor, files)) in parts.iter().enumerate() {
        let alone = crate::otf2::read_archive_full(anchor, files).unwrap();
        assert_eq!(alone.realtime_ns, Some(realtime(k) as i64));
        want.extend(as_rank(&alone.trace, k as i64, realtime(k) as i64));
        assert_eq!(t.process_name(ProcessId(k as u32)), format!("rank {k}: {anchor}"));
        messages += alone.trace.messages.len();
        collectives += alone.trace.collectives.len();
        operations += alone.trace.collectives.operations();
    }
    assert_eq!(super::fixtures::rows(&t), sorted(want));
    // Messages and collectives kept per file: every one, each within its rank.
    assert_eq!(
        (t.messages.len(), t.collectives.len(), t.collectives.operations()),
        (messages, collectives, operations)
    );
    let rank_of = |l: weft_model::LocationId| t.locations.process[l.index()];
    assert!((0..t.messages.len()).all(|i| rank_of(t.messages.sender[i]) == rank_of(t.messages.receiver[i])));
    for op in 0..t.collectives.operations() as u32 {
        let rows: Vec<usize> = (0..t.collectives.len()).filter(|&i| t.collectives.operation[i] == op).collect();
        assert!(rows.iter().all(|&i| rank_of(t.collectives.location[i]) == rank_of(t.collectives.location[rows[0]])));
    }
    let n = note(&t);
    assert!(
        n.contains("3 ranks merged (3 OTF2 archives, each a rank); clocks aligned by each archive's realtimeTimestamp"),
        "{n}"
    );
}

#[test]
fn otf2_archives_without_real_time_are_aligned_by_first_event() {
    let parts = archives(false);
    let t = open_set(&together(&parts)).unwrap();
    let mut want = Vec::new();
    for (k, (anchor, files)) in parts.iter().enumerate() {
        let alone = crate::otf2::read_archive_full(anchor, files).unwrap();
        assert_eq!(alone.realtime_ns, None);
        // Every archive's first event at the run's start (its origin).
        want.extend(as_rank(&alone.trace, k as i64, t.origin_ns - alone.trace.origin_ns));
    }
    assert_eq!(super::fixtures::rows(&t), sorted(want));
    let n = note(&t);
    assert!(
        n.contains("clocks aligned by first event (each archive's first event at the start); ranks by archive order"),
        "{n}"
    );

    // One archive with a real time, the others without: first event, the note naming one without.
    let mut mixed = archives(false);
    mixed[0] = archives(true).remove(0);
    let n = note(&open_set(&together(&mixed)).unwrap());
    assert!(n.contains("clocks aligned by first event") && n.contains("b/traces.otf2 gives no clock base"), "{n}");
}

/// A clock-snapshot packet saying the trace clock (BOOTTIME) reads `boot` when REALTIME reads `real`.
fn snapshot(boot: u64, real: u64) -> Vec<u8> {
    use crate::perfetto::protos::{Clock, ClockSnapshot, TracePacket};
    let clock = |id, ts| Clock { clock_id: Some(id), timestamp: Some(ts), ..Default::default() };
    let p = TracePacket {
        clock_snapshot: Some(ClockSnapshot { clocks: vec![clock(6, boot), clock(1, real)], ..Default::default() }),
        trusted_packet_sequence_id: Some(99),
        ..Default::default()
    };
    let mut out = vec![0x0a];
    p.encode_length_delimited(&mut out).unwrap();
    out
}

/// Three generated Perfetto traces (other seeds and shapes), with a clock snapshot first when `real`.
fn pftraces(real: bool) -> Vec<(String, Vec<u8>)> {
    (0..3)
        .map(|k| {
            let g = PerfettoSample {
                processes: 1 + k as u32 % 2,
                threads_per_process: 2,
                slices_per_thread: 30,
                seed: 7 + k as u64,
            };
            let mut bytes = if real { snapshot(2_000 + k as u64 * 100, realtime(k)) } else { Vec::new() };
            bytes.extend(g.generate());
            (format!("host{k}.pftrace"), bytes)
        })
        .collect()
}

fn set_of(files: &[(String, Vec<u8>)]) -> MemoryFiles {
    let mut m = MemoryFiles::new();
    for (name, bytes) in files {
        m.insert(name, bytes.clone());
    }
    m
}

#[test]
fn perfetto_traces_are_ranks_on_their_clock_snapshots_or_first_events() {
    let files = pftraces(true);
    let t = open_set(&set_of(&files)).unwrap();
    assert_eq!(t.format, weft_model::Format::Perfetto);
    let mut want = Vec::new();
    let mut flows = 0;
    for (k, (name, bytes)) in files.iter().enumerate() {
        let (alone, base) = crate::perfetto::read_run(name, bytes).unwrap();
        // REALTIME minus the trace clock at the snapshot.
        let base = base.expect("a clock base");
        assert_eq!(base, realtime(k) as i64 - (2_000 + k as i64 * 100));
        want.extend(as_rank(&alone, k as i64, base));
        flows += alone.messages.len();
    }
    assert_eq!(super::fixtures::rows(&t), sorted(want));
    assert_eq!(t.messages.len(), flows);
    assert!(note(&t)
        .contains("3 ranks merged (3 Perfetto traces, each a rank); clocks aligned by each trace's clock snapshot"));

    let files = pftraces(false);
    let t = open_set(&set_of(&files)).unwrap();
    let mut want = Vec::new();
    for (k, (name, bytes)) in files.iter().enumerate() {
        let (alone, base) = crate::perfetto::read_run(name, bytes).unwrap();
        assert_eq!(base, None);
        want.extend(as_rank(&alone, k as i64, t.origin_ns - alone.origin_ns));
    }
    assert_eq!(super::fixtures::rows(&t), sorted(want));
    assert!(note(&t)
        .contains("clocks aligned by first event (each trace's first event at the start); ranks by trace order"));
}

#[test]
fn files_of_several_formats_or_a_broken_one_are_refused_naming_the_file() {
    let mut files = set_of(&pftraces(false)[..1]);
    files.insert("z.json", br#"{"traceEvents":[{"name":"a","ph":"X","ts":1,"dur":2,"pid":1,"tid":1}]}"#.to_vec());
    let e = open_set(&files).unwrap_err();
    assert!(matches!(e, ReadError::NotOneRun { .. }), "{e:?}");
    assert!(e.to_string().starts_with("z.json: it is Chrome JSON, but host0.pftrace is a Perfetto trace"), "{e}");

    let mut files = set_of(&pftraces(false));
    files.insert("host1.pftrace", b"\x0a\x05\x08\x01".to_vec());
    let e = open_set(&files).unwrap_err();
    assert!(e.to_string().starts_with("host1.pftrace"), "{e}");

    // An archive without its definitions: the error names its file.
    let parts = archives(true);
    let mut all = together(&parts);
    all.files.remove("b/traces.def");
    let e = open_set(&all).unwrap_err();
    assert!(e.to_string().contains("b/traces"), "{e}");
}

#[cfg(not(target_arch = "wasm32"))]
#[test]
fn a_folder_of_archive_folders_on_disk_is_the_same_run() {
    let dir = std::env::temp_dir().join(format!("weft-otf2-set-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    struct Gone(std::path::PathBuf);
    impl Drop for Gone {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
    let _gone = Gone(dir.clone());
    let parts = archives(true);
    let all = together(&parts);
    for (p, b) in &all.files {
        let f = dir.join(p);
        std::fs::create_dir_all(f.parent().unwrap()).unwrap();
        std::fs::write(f, b).unwrap();
    }
    let t = crate::open_path(&dir).unwrap().into_trace("dir").unwrap();
    let m = open_set(&all).unwrap();
    assert_eq!(super::fixtures::rows(&t), super::fixtures::rows(&m));
    assert_eq!(t.process_name(ProcessId(1)), "rank 1: b/traces.otf2");
    // The archives' folders given one by one: the same run.
    let paths: Vec<_> = ["a", "b", "c"].iter().map(|d| dir.join(d)).collect();
    let t = crate::open_paths(&paths).unwrap().into_trace("dirs").unwrap();
    assert_eq!(super::fixtures::rows(&t), super::fixtures::rows(&m));
}
