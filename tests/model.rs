//! Model invariants: the builder's nesting repair and time normalisation, and the codec's round trip.

use weft::model::codec::{decode, encode};
use weft::model::{Format, LocationKind, MessageKind, MessageRecord, StringId, Trace, TraceBuilder, WarningKind};
use weft::samples::rng::XorShift;

fn random_trace(seed: u64, n: usize) -> Trace {
    let mut rng = XorShift(seed);
    let mut b = TraceBuilder::new(Format::Generated);
    let origin = 1_700_000_000_000_000_000i64;
    let regions: Vec<_> =
        ["main", "MPI_Send", "compute", "MPI_Recv", "!$omp barrier"].iter().map(|n| b.region(n, "")).collect();
    let locs: Vec<_> = (0..6)
        .map(|i| {
            let p = b.process(i / 2);
            b.location(p, i, LocationKind::CpuThread)
        })
        .collect();
    for _ in 0..n {
        let l = locs[rng.below(locs.len() as u64) as usize];
        let r = regions[rng.below(regions.len() as u64) as usize];
        b.interval(l, r, origin + rng.below(1_000_000) as i64, rng.below(50_000));
    }
    for _ in 0..n / 10 {
        let s = origin + rng.below(1_000_000) as i64;
        let r = s + rng.below(10_000) as i64;
        b.message(MessageRecord {
            kind: MessageKind::PointToPoint,
            sender: locs[rng.below(6) as usize],
            receiver: locs[rng.below(6) as usize],
            send_ns: s,
            recv_ns: r,
            posted_ns: r,
            size_bytes: rng.below(1 << 20),
            tag: rng.below(100) as u32,
            name: StringId::EMPTY,
        });
    }
    b.finish()
}

#[test]
fn intervals_are_sorted_and_properly_nested() {
    for seed in 1..20 {
        let t = random_trace(seed, 2_000);
        let iv = &t.intervals;
        for (l, range) in t.location_intervals.iter().enumerate() {
            let mut stack: Vec<(u64, u16)> = Vec::new();
            for i in range.clone() {
                assert_eq!(iv.location[i].index(), l);
                if i > range.start {
                    assert!(iv.start_ns[i - 1] <= iv.start_ns[i], "sorted by start");
                }
                while stack.last().is_some_and(|&(end, _)| end <= iv.start_ns[i]) {
                    stack.pop();
                }
                assert_eq!(iv.depth[i] as usize, stack.len(), "depth is the number of enclosing intervals");
                if let Some(&(end, _)) = stack.last() {
                    assert!(iv.end_ns(i) <= end, "a child never outlasts its parent");
                }
                stack.push((iv.end_ns(i), iv.depth[i]));
            }
        }
        assert_eq!(*iv.start_ns.iter().min().unwrap(), 0, "times are relative to the first event");
        assert!(iv.start_ns.iter().zip(&iv.dur_ns).all(|(s, d)| s + d <= t.span_ns));
    }
}

#[test]
fn improper_nesting_is_clipped_and_warned() {
    let mut b = TraceBuilder::new(Format::Generated);
    let p = b.process(1);
    let l = b.location(p, 1, LocationKind::CpuThread);
    let a = b.region("a", "");
    let c = b.region("c", "");
    b.interval(l, a, 100, 100); // [100, 200)
    b.interval(l, c, 150, 100); // [150, 250) outlasts a
    let t = b.finish();
    assert_eq!(t.intervals.start_ns, vec![0, 50]);
    assert_eq!(t.intervals.dur_ns, vec![100, 50]);
    assert_eq!(t.intervals.depth, vec![0, 1]);
    assert_eq!(t.warnings.count(WarningKind::ImproperNesting), 1);
    assert_eq!(t.origin_ns, 100);
}

#[test]
fn memory_per_interval_is_at_most_32_bytes() {
    let t = random_trace(7, 100_000);
    let per = t.intervals.heap_bytes() as f64 / t.intervals.len() as f64;
    assert!(per <= 32.0, "{per} bytes per interval");
}

#[test]
fn codec_round_trips() {
    let t = random_trace(3, 5_000);
    let bytes = encode(&t);
    assert_eq!(bytes.capacity(), bytes.len(), "its buffer is allocated once, at its length");
    let d = decode(&bytes).expect("decodes");
    assert_eq!(encode(&d), bytes);
    assert_eq!(d.intervals.start_ns, t.intervals.start_ns);
    assert_eq!(d.location_intervals, t.location_intervals);
    assert_eq!(d.messages.size_bytes, t.messages.size_bytes);
    assert_eq!(d.region_name(t.intervals.region[10]), t.region_name(t.intervals.region[10]));
}

/// An interval takes ~28 bytes in fixed-width columns; delta-coded starts, varints and the locations as runs
/// take a fraction of that (what a store's exact answer costs the worker and the page).
#[test]
fn codec_is_compact() {
    let t = random_trace(4, 60_000);
    let bytes = encode(&t);
    let per = bytes.len() as f64 / t.intervals.len() as f64;
    // Each interval's start 1-2 bytes from the one before, its duration up to 3, region and depth 1 each;
    // a message (one per ten intervals) about 15.
    assert!(per < 10.0, "{per:.1} bytes an interval");
    assert_eq!(decode(&bytes).expect("decodes").intervals.dur_ns, t.intervals.dur_ns);
}

/// `bytes` decoded as the page does, a step at a time: the trace and how many steps it took.
fn decode_in_steps(bytes: &[u8]) -> (Trace, usize) {
    let mut d = weft::model::codec::Decoding::default();
    let mut steps = 0;
    loop {
        steps += 1;
        if let Some(t) = d.step(bytes).expect("decodes") {
            return (t, steps);
        }
    }
}

/// The decode in steps (what the page runs between yields): its tables, each of the five interval columns,
/// their args, then the rest; the same trace as one call, and a truncation is an error at its step.
#[test]
fn codec_decodes_in_steps() {
    let t = random_trace(3, 5_000);
    let bytes = encode(&t);
    let (back, steps) = decode_in_steps(&bytes);
    assert_eq!(steps, 8);
    assert_eq!(encode(&back), bytes);
    let cut = &bytes[..bytes.len() - 3];
    let mut d = weft::model::codec::Decoding::default();
    let err = loop {
        match d.step(cut) {
            Ok(Some(_)) => panic!("a truncated buffer decoded"),
            Ok(None) => {}
            Err(e) => break e,
        }
    };
    assert_eq!(err, decode(cut).unwrap_err());
}

/// An interval column longer than a step reads (2^18 values) is read over several steps, so no step of the
/// page's decode grows with the trace: 600,000 intervals take three steps for each of the region, start,
/// duration and depth columns.
#[test]
fn codec_reads_a_long_column_over_several_steps() {
    let t = random_trace(5, 600_000);
    let bytes = encode(&t);
    let (back, steps) = decode_in_steps(&bytes);
    assert_eq!(steps, 8 + 4 * 2);
    assert_eq!(back.intervals.start_ns, t.intervals.start_ns);
    assert_eq!(back.intervals.depth, t.intervals.depth);
    assert_eq!(encode(&back), bytes);
}

#[test]
fn codec_rejects_every_truncation_and_corruption_without_panicking() {
    let t = random_trace(5, 300);
    let bytes = encode(&t);
    for cut in (0..bytes.len()).step_by(7) {
        assert!(decode(&bytes[..cut]).is_err());
    }
    let mut rng = XorShift(99);
    for _ in 0..2_000 {
        let mut b = bytes.clone();
        let i = rng.below(b.len() as u64) as usize;
        b[i] ^= 1 << rng.below(8);
        let _ = decode(&b); // must not panic
    }
}
