//! A Darshan log given with the trace of its job (`io::put_io_on_ranks`), on a generated OTF2 archive and
//! Chrome JSON whose every time is known, with a generated log of the same ranks.

use super::fixtures::{note, open_set as open_trace, rows};
use crate::darshan::seconds_to_ns;
use crate::otf2::MemoryFiles;
use crate::ReadError;
use weft_model::Trace;
use weft_samples::darshan_gen::DarshanLog;
use weft_samples::otf2_gen::{archive, GenConfig};

/// The generated archive's files in this crate's set (the samples build against their own copy of it).
fn otf2_run(cfg: &GenConfig) -> MemoryFiles {
    let mut files = MemoryFiles::new();
    for (path, bytes) in archive(cfg).0.files {
        files.insert(&path, bytes);
    }
    files
}

/// The log's segments as intervals at `job start -> at`: (rank, location, region, start, end).
fn segments_at(log: &DarshanLog, at: i64) -> Vec<(i64, String, String, i64, i64)> {
    let mut out = Vec::new();
    for f in &log.dxt {
        for s in &f.segments {
            let op = if s.write { "POSIX write" } else { "POSIX read" };
            out.push((
                f.rank,
                "POSIX /scratch/out.dat".into(),
                op.into(),
                at + seconds_to_ns(s.start),
                at + seconds_to_ns(s.end),
            ));
        }
    }
    out.sort();
    out
}

#[test]
fn a_darshan_log_with_an_otf2_archive_goes_onto_its_ranks_by_job_start() {
    let cfg = GenConfig::new(4, 4_000);
    let mut files = otf2_run(&cfg);
    let alone = open_trace(&files).unwrap();
    let log = DarshanLog::dxt_run(4, 3);
    files.insert("job.darshan", log.bytes());
    let t = open_trace(&files).unwrap();
    // Nothing of the trace changed: its processes, its intervals at their times.
    assert_eq!(t.processes.len(), 4);
    let names = |t: &Trace| {
        (0..t.processes.len()).map(|p| t.process_name(weft_model::ProcessId(p as u32)).to_string()).collect::<Vec<_>>()
    };
    assert_eq!(names(&t), names(&alone));
    assert_eq!(t.origin_ns, alone.origin_ns);
    let (mut theirs, mut io): (Vec<_>, Vec<_>) = rows(&t).into_iter().partition(|r| !r.2.starts_with("POSIX"));
    theirs.sort();
    assert_eq!(theirs, rows(&alone));
    assert_eq!((t.messages.len(), t.collectives.len()), (alone.messages.len(), alone.collectives.len()));
    // The I/O on the ranks: the job's start at the trace's first event (OTF2's clock is not the epoch's).
    io.sort();
    assert_eq!(io, segments_at(&log, t.origin_ns));
    let n = note(&t);
    let offset = alone.origin_ns as i128 - (1_700_000_000_250_000_000i128);
    assert!(n.contains("merged onto its 4 ranks: 24 I/O intervals"), "{n}");
    assert!(n.contains("clocks aligned by job start") && n.contains(&format!("offset {offset} ns")), "{n}");
    // Each rank's I/O location under that rank's process.
    for r in 0..4 {
        let p = (0..4).find(|&p| t.processes.native_id[p] == r).unwrap();
        assert!((0..t.locations.len()).any(|l| t.locations.process[l].index() == p
            && t.location_name(weft_model::LocationId(l as u32)).starts_with("POSIX")));
    }
}

#[test]
fn ranks_that_do_not_match_are_refused_naming_both_counts() {
    let mut files = otf2_run(&GenConfig::new(3, 2_000));
    files.insert("job.darshan", DarshanLog::dxt_run(2, 3).bytes());
    let e = open_trace(&files).unwrap_err();
    assert!(matches!(e, ReadError::NotOneRun { .. }), "{e:?}");
    let text = e.to_string();
    assert!(
        text.starts_with("job.darshan: ") && text.contains("2 ranks (nprocs)") && text.contains("3 processes"),
        "{text}"
    );
}

#[test]
fn a_chrome_trace_on_the_epoch_keeps_its_clock_and_moves_its_origin_for_earlier_io() {
    // Two pids (ranks 0 and 1), events 2.5 s after the job's start, in microseconds since the epoch.
    let log = DarshanLog::dxt_run(2, 2);
    let start_us = 1_700_000_000_250_000i64 + 2_500_000;
    let json = format!(
        r#"{{"traceEvents":[{{"name":"step","ph":"X","ts":{start_us},"dur":100,"pid":10,"tid":1}},{{"name":"step","ph":"X","ts":{},"dur":50,"pid":11,"tid":1}}]}}"#,
        start_us + 10
    );
    let mut files = MemoryFiles::new();
    files.insert("trace.json", json.into_bytes());
    files.insert("job.darshan", log.bytes());
    let t = open_trace(&files).unwrap();
    let r = rows(&t);
    let steps: Vec<_> = r.iter().filter(|x| x.2 == "step").map(|x| (x.0, x.3, x.4)).collect();
    assert_eq!(
        steps,
        [
            (10, start_us * 1000, start_us * 1000 + 100_000),
            (11, (start_us + 10) * 1000, (start_us + 10) * 1000 + 50_000)
        ]
    );
    let io: Vec<_> = r
        .into_iter()
        .filter(|x| x.2 != "step")
        .map(|mut x| {
            x.0 -= 10;
            x
        })
        .collect();
    assert_eq!(io, segments_at(&log, 1_700_000_000_250_000_000));
    // The first write (1 s after the job's start) is now the trace's first event.
    assert_eq!(t.origin_ns, 1_700_000_001_250_000_000);
    assert!(note(&t).contains("offset 0"), "{}", note(&t));
}
