//! The Darshan reader on logs written by `weft_samples::darshan_gen` (every segment known), and on hostile ones.

use super::*;
use weft_samples::darshan_gen::{DarshanLog, PosixFile};

/// (rank, location, region, file, offset, size, absolute start, absolute end) of every interval.
type Row = (i64, String, String, String, String, String, i64, i64);

fn rows(t: &Trace) -> Vec<Row> {
    let iv = &t.intervals;
    let mut out: Vec<_> = (0..iv.len())
        .map(|i| {
            let l = iv.location[i];
            let arg = |k: &str| {
                iv.args
                    .of(i)
                    .and_then(|mut a| a.find(|a| t.str(a.key) == k))
                    .map_or(String::new(), |a| a.value.to_string())
            };
            (
                t.processes.native_id[t.locations.process[l.index()].index()],
                t.location_name(l).to_string(),
                t.region_name(iv.region[i]).to_string(),
                arg("file"),
                arg("offset"),
                arg("size"),
                t.origin_ns + iv.start_ns[i] as i64,
                t.origin_ns + iv.end_ns(i) as i64,
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn dxt_segments_are_intervals_per_rank_with_file_offset_and_size() {
    for zlib in [true, false] {
        let g = DarshanLog { zlib, ..DarshanLog::dxt_run(3, 4) };
        let t = crate::open("run.darshan", crate::Source::Bytes(&g.bytes())).unwrap().into_trace("x").unwrap();
        assert_eq!(t.format, Format::Darshan);
        assert_eq!(t.processes.len(), 3);
        assert_eq!(t.process_name(ProcessId(1)), "rank 1");
        let start = 1_700_000_000_250_000_000i64;
        let mut want = Vec::new();
        for f in &g.dxt {
            for s in &f.segments {
                want.push((
                    f.rank,
                    "POSIX /scratch/out.dat".to_string(),
                    if s.write { "POSIX write" } else { "POSIX read" }.to_string(),
                    "/scratch/out.dat".to_string(),
                    s.offset.to_string(),
                    s.length.to_string(),
                    start + seconds_to_ns(s.start),
                    start + seconds_to_ns(s.end),
                ));
            }
        }
        want.sort();
        assert_eq!(rows(&t), want);
        assert_eq!(t.event_records, 24);
        assert_eq!(t.regions.paradigm[0], Paradigm::Io);
        // One region per module and operation, not one per segment (the legend listed "POSIX read" once per
        // segment, in as many shades).
        let mut names: Vec<&str> =
            (0..t.regions.len()).map(|r| t.region_name(weft_model::RegionId(r as u32))).collect();
        names.sort();
        assert_eq!(names, ["POSIX read", "POSIX write"]);
    }
}

#[test]
fn without_dxt_each_posix_file_is_an_interval_with_its_counters() {
    let mut g = DarshanLog::dxt_run(1, 1);
    g.dxt.clear();
    g.posix = vec![
        PosixFile {
            id: 42,
            rank: 0,
            opens: 2,
            reads: 5,
            writes: 7,
            bytes_read: 500,
            bytes_written: 700,
            open_start: 0.5,
            close_end: 3.25,
        },
        // Never closed: no interval.
        PosixFile {
            id: 42,
            rank: 1,
            opens: 1,
            reads: 0,
            writes: 0,
            bytes_read: 0,
            bytes_written: 0,
            open_start: 0.5,
            close_end: 0.0,
        },
        PosixFile {
            id: 42,
            rank: -1,
            opens: 3,
            reads: 1,
            writes: 1,
            bytes_read: 9,
            bytes_written: 9,
            open_start: 1.0,
            close_end: 2.0,
        },
    ];
    let t = read("p.darshan", &g.bytes()).unwrap();
    let r = rows(&t);
    assert_eq!(r.len(), 2);
    assert_eq!(
        (r[0].0, r[0].2.as_str(), r[0].6, r[0].7),
        (-1, "POSIX file", 1_700_000_001_250_000_000, 1_700_000_002_250_000_000)
    );
    assert_eq!((r[1].0, r[1].6, r[1].7), (0, 1_700_000_000_750_000_000, 1_700_000_003_500_000_000));
    let rank0 = (0..t.intervals.len())
        .find(|&i| t.processes.native_id[t.locations.process[t.intervals.location[i].index()].index()] == 0)
        .unwrap();
    let args: Vec<(String, String)> =
        t.intervals.args.of(rank0).unwrap().map(|a| (t.str(a.key).to_string(), a.value.to_string())).collect();
    assert!(
        args.contains(&("bytes written".into(), "700".into())) && args.contains(&("reads".into(), "5".into())),
        "{args:?}"
    );
    let shared = (0..t.processes.len()).find(|&p| t.processes.native_id[p] == -1).unwrap();
    assert_eq!(t.process_name(ProcessId(shared as u32)), "all ranks (shared files)");
}

#[test]
fn truncated_and_corrupt_logs_are_typed_errors_naming_the_file() {
    let bytes = DarshanLog::dxt_run(2, 3).bytes();
    assert!(read("ok.darshan", &bytes).is_ok());
    // Every cut: an error or (cut after the last region) the same trace, never a panic.
    for cut in (0..bytes.len()).step_by(7) {
        match read("cut.darshan", &bytes[..cut]) {
            Err(e) => assert!(e.to_string().starts_with("cut.darshan"), "{e}"),
            Ok(t) => assert!(t.intervals.len() <= 12),
        }
    }
    let e = read("cut.darshan", &bytes[..bytes.len() - 10]).unwrap_err();
    assert!(matches!(e, ReadError::Malformed { .. }), "{e:?}");
    assert!(e.to_string().contains("runs past the file's end"), "{e}");
    // Every single byte flipped: no panic.
    for at in (0..bytes.len()).step_by(3) {
        let mut b = bytes.clone();
        b[at] ^= 0x5a;
        let _ = read("flip.darshan", &b);
    }
    // A count larger than the record holds.
    let g = DarshanLog { zlib: false, ..DarshanLog::dxt_run(1, 2) };
    let mut b = g.bytes();
    let dxt_off = u64::from_le_bytes(b[32 + 16 * 11..32 + 16 * 11 + 8].try_into().unwrap()) as usize;
    b[dxt_off + 88..dxt_off + 96].copy_from_slice(&1_000_000i64.to_le_bytes());
    let e = read("count.darshan", &b).unwrap_err().to_string();
    assert!(e.contains("1000000 writes") && e.starts_with("count.darshan"), "{e}");
    let mut b = bytes.clone();
    b[0..4].copy_from_slice(b"2.00");
    assert!(read("v.darshan", &b).unwrap_err().to_string().contains("version 2.00"));
}

#[test]
fn a_darshan_log_is_sniffed_by_content() {
    let bytes = DarshanLog::dxt_run(1, 1).bytes();
    assert_eq!(crate::sniff(&bytes), crate::Sniffed::Darshan);
    let mut be = bytes.clone();
    be[8..16].copy_from_slice(&6567223i64.to_be_bytes());
    assert_eq!(crate::sniff(&be), crate::Sniffed::Darshan);
}

#[test]
fn segments_that_overlap_go_to_further_lanes_unclipped() {
    let mut g = DarshanLog::dxt_run(1, 2);
    // Two threads' reads at once: the second is laid on lane 2, neither clipped.
    g.dxt[0].segments[3].start = g.dxt[0].segments[2].start + 0.0005;
    g.dxt[0].segments[3].end = g.dxt[0].segments[3].start + 0.002;
    g.dxt[0].segments[3].thread = 7;
    let t = read("l.darshan", &g.bytes()).unwrap();
    assert_eq!(t.warnings.count(WarningKind::ImproperNesting), 0);
    let lanes: Vec<&str> = (0..t.locations.len()).map(|l| t.location_name(LocationId(l as u32))).collect();
    assert_eq!(lanes, ["POSIX /scratch/out.dat", "POSIX /scratch/out.dat (2)"]);
    let r = rows(&t);
    let second = r.iter().find(|x| x.1.ends_with("(2)")).unwrap();
    assert_eq!(second.7 - second.6, 2_000_000);
}
