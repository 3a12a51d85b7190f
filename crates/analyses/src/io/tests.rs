//! The I/O summary on small traces whose every byte is known.

use super::*;
use weft_model::{ArgKind, Format, LocationKind, RegionRole, TraceBuilder};

/// One I/O interval: location, layer, op ("read", "write" or "file"), start, duration, file, args.
struct Io<'a> {
    location: usize,
    layer: &'a str,
    op: &'a str,
    start: i64,
    dur: u64,
    args: Vec<(&'a str, String)>,
}

fn seg<'a>(location: usize, layer: &'a str, op: &'a str, start: i64, dur: u64, file: &str, size: u64) -> Io<'a> {
    Io { location, layer, op, start, dur, args: vec![("file", file.to_string()), ("size", size.to_string())] }
}

/// Two ranks, two locations each; a compute interval on every location that must not count.
fn trace(ios: &[Io]) -> Trace {
    let mut b = TraceBuilder::new(Format::Darshan);
    let mut locs = Vec::new();
    for rank in 0..2 {
        let p = b.process(rank);
        b.set_process_name(p, &format!("rank {rank}"));
        for k in 0..2 {
            locs.push(b.location(p, rank * 2 + k, LocationKind::CpuThread));
        }
    }
    let compute = b.region_with("compute", "user", Paradigm::User, RegionRole::Function);
    for &l in &locs {
        b.interval(l, compute, 0, 10);
    }
    for io in ios {
        let r = b.region_with(&format!("{} {}", io.layer, io.op), io.layer, Paradigm::Io, RegionRole::FileIo);
        b.interval(locs[io.location], r, io.start, io.dur);
        let pairs: Vec<(StringId, ArgKind, String)> = io
            .args
            .iter()
            .map(|(k, v)| (b.intern(k), if *k == "file" { ArgKind::Text } else { ArgKind::Number }, v.clone()))
            .collect();
        let e = b.interval_arg_table().push(pairs.iter().map(|(k, kind, v)| (*k, *kind, v.as_str()))).unwrap();
        b.set_interval_args(e);
    }
    b.finish()
}

fn whole(t: &Trace, bins: usize) -> IoSummary {
    io_summary(t, &IoQuery { bins, ..Default::default() })
}

#[test]
fn bins_files_and_ranks_hold_every_byte_once() {
    let t = trace(&[
        seg(0, "POSIX", "write", 0, 1000, "/a", 4096),
        seg(1, "POSIX", "read", 250, 333, "/b", 1001),
        seg(2, "POSIX", "read", 999, 0, "/a", 7),
        seg(3, "POSIX", "write", 1000, 0, "/b", 5),
        seg(3, "POSIX", "write", 100, 901, "/a", 12345),
    ]);
    for bins in [1, 3, 7, 100, 1001, 5000] {
        let s = whole(&t, bins);
        assert_eq!(s.layer.as_deref(), Some("POSIX"));
        assert_eq!((s.read_bytes, s.write_bytes, s.operations), (1008, 4096 + 5 + 12345, 5), "{bins} bins");
        assert_eq!((s.read_ns, s.write_ns), (333, 1000 + 901));
        let read: u64 = s.bins.iter().map(|b| b.read_bytes).sum();
        let written: u64 = s.bins.iter().map(|b| b.write_bytes).sum();
        assert_eq!((read, written), (s.read_bytes, s.write_bytes), "{bins} bins");
        // Bins tile the window.
        assert_eq!(s.bins.first().unwrap().t0_ns, 0);
        assert_eq!(s.bins.last().unwrap().t1_ns, t.span_ns);
        assert!(s.bins.windows(2).all(|w| w[0].t1_ns == w[1].t0_ns && w[0].t0_ns < w[0].t1_ns));
    }
    let s = whole(&t, 10);
    assert_eq!(
        s.files,
        [
            IoFile { name: "/a".into(), read_bytes: 7, write_bytes: 4096 + 12345, operations: 3 },
            IoFile { name: "/b".into(), read_bytes: 1001, write_bytes: 5, operations: 2 },
        ]
    );
    let per_loc: Vec<(u64, u64)> = s.per_location.iter().map(|l| (l.read_bytes, l.write_bytes)).collect();
    assert_eq!(per_loc, [(0, 4096), (1001, 0), (7, 0), (0, 12350)]);
    let per_rank: Vec<(&str, u64, u64)> =
        s.per_process.iter().map(|p| (p.name.as_str(), p.read_bytes, p.write_bytes)).collect();
    assert_eq!(per_rank, [("rank 0", 1001, 4096), ("rank 1", 7, 12350)]);
    // 10 bins of 100 ns: the 4096 bytes of [0, 1000) spread evenly, the point write at 1000 in the last.
    assert_eq!(s.bins[0].write_bytes, 409);
    assert_eq!(s.bins[9].write_bytes, 4096 - scaled(4096, 900, 1000) + 5 + (12345 - scaled(12345, 800, 901)));
}

#[test]
fn a_window_holds_the_parts_of_the_intervals_in_it_and_windows_add_up() {
    let t = trace(&[seg(0, "POSIX", "write", 0, 1000, "/a", 1000), seg(1, "POSIX", "read", 400, 200, "/b", 99)]);
    let at = |t0, t1| {
        io_summary(
            &t,
            &IoQuery { window: Some(TimeWindow { start_ns: t0, end_ns: t1 }), bins: 7, ..Default::default() },
        )
    };
    let s = at(250, 500);
    assert_eq!((s.write_bytes, s.read_bytes), (250, scaled(99, 100, 200)));
    assert_eq!((s.window_t0_ns, s.window_t1_ns), (250, 500));
    assert_eq!(s.bins.iter().map(|b| b.write_bytes).sum::<u64>(), 250);
    let (x, y) = (at(0, 537), at(537, 1000));
    assert_eq!(x.write_bytes + y.write_bytes, 1000);
    assert_eq!(x.read_bytes + y.read_bytes, 99);
    // A window where only the write runs: no read, the written file alone listed.
    let none = at(900, 1000);
    assert_eq!(none.files.len(), 1);
    assert_eq!(none.read_bytes, 0);
}

#[test]
fn one_layer_is_summed_and_every_layer_listed() {
    // An MPI-IO write and the POSIX writes under it: the same bytes twice.
    let t = trace(&[
        seg(0, "MPI-IO", "write", 0, 100, "/a", 4000),
        seg(0, "POSIX", "write", 10, 40, "/a", 2020),
        seg(0, "POSIX", "write", 50, 40, "/a", 2020),
    ]);
    let s = whole(&t, 4);
    assert_eq!((s.layer.as_deref(), s.write_bytes, s.operations), (Some("POSIX"), 4040, 2));
    let layers: Vec<(&str, u64)> = s.layers.iter().map(|l| (l.name.as_str(), l.write_bytes)).collect();
    assert_eq!(layers, [("MPI-IO", 4000), ("POSIX", 4040)]);
    let m = io_summary(&t, &IoQuery { layer: Some("MPI-IO"), bins: 4, ..Default::default() });
    assert_eq!((m.layer.as_deref(), m.write_bytes, m.operations), (Some("MPI-IO"), 4000, 1));
    // A layer the trace lacks: nothing summed, said by name.
    let x = io_summary(&t, &IoQuery { layer: Some("HDF5"), bins: 4, ..Default::default() });
    assert_eq!((x.layer.as_deref(), x.write_bytes, x.files.len()), (Some("HDF5"), 0, 0));
}

#[test]
fn a_file_filter_keeps_the_files_list_and_sums_that_file_alone() {
    let t = trace(&[seg(0, "POSIX", "write", 0, 100, "/a", 10), seg(2, "POSIX", "read", 0, 100, "/b", 20)]);
    let s = io_summary(&t, &IoQuery { file: Some("/b"), bins: 2, ..Default::default() });
    assert_eq!((s.read_bytes, s.write_bytes, s.operations), (20, 0, 1));
    assert_eq!(s.files.len(), 2);
    assert_eq!(s.per_process[0].read_bytes + s.per_process[0].write_bytes, 0);
    assert_eq!(s.per_process[1].read_bytes, 20);
}

#[test]
fn per_file_records_give_their_counters() {
    let t = trace(&[Io {
        location: 1,
        layer: "POSIX",
        op: "file",
        start: 0,
        dur: 1000,
        args: vec![
            ("file", "/c".into()),
            ("reads", "3".into()),
            ("writes", "4".into()),
            ("bytes read", "300".into()),
            ("bytes written", "4000".into()),
            ("read time (s)", "0.000000250".into()),
            ("write time (s)", "0.0000005".into()),
        ],
    }]);
    let s = whole(&t, 5);
    assert_eq!((s.read_bytes, s.write_bytes, s.operations, s.read_ns, s.write_ns), (300, 4000, 7, 250, 500));
    assert_eq!(s.bins.iter().map(|b| b.read_bytes).collect::<Vec<_>>(), [60; 5]);
}

#[test]
fn a_trace_without_io_has_an_empty_summary() {
    let t = trace(&[]);
    let s = whole(&t, 10);
    assert_eq!((s.layer, s.read_bytes, s.operations, s.files.len()), (None, 0, 0, 0));
    assert_eq!(s.per_location.len(), 4);
    assert!(s.bins.iter().all(|b| b.read_bytes == 0));
}
