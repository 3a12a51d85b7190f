//! Comparisons whose answer is known by construction: a run against itself, one region made 2x slower on
//! one rank, the same work on 8 and on 16 ranks.

use super::*;
use crate::comm_matrix::{comm_matrix, MatrixUnit};
use crate::moments::moments;
use crate::profile::profile;
use weft_model::{Format, LocationKind, MessageKind, MessageRecord, TraceBuilder};

const EXCHANGE_NS: u64 = 50;

/// `ranks` ranks of one thread; each runs `main` around `iterations` of `compute` (`compute_ns(rank)` long)
/// then `exchange` (50 ns), and sends 8 bytes to the next rank on a ring at the start of each exchange.
fn run(ranks: usize, iterations: u64, compute_ns: impl Fn(usize) -> u64) -> Trace {
    let mut b = TraceBuilder::new(Format::Generated);
    let locs: Vec<_> = (0..ranks)
        .map(|r| {
            let p = b.process(r as i64);
            b.location(p, 0, LocationKind::CpuThread)
        })
        .collect();
    let (main, compute, exchange) = (b.region("main", ""), b.region("compute", ""), b.region("exchange", ""));
    let world = b.intern("MPI_COMM_WORLD");
    for (r, &l) in locs.iter().enumerate() {
        let c = compute_ns(r);
        b.interval(l, main, 0, iterations * (c + EXCHANGE_NS));
        for k in 0..iterations {
            let t = k * (c + EXCHANGE_NS);
            b.interval(l, compute, t as i64, c);
            b.interval(l, exchange, (t + c) as i64, EXCHANGE_NS);
            b.message(MessageRecord {
                kind: MessageKind::PointToPoint,
                sender: l,
                receiver: locs[(r + 1) % ranks],
                send_ns: (t + c) as i64,
                recv_ns: (t + c + 1) as i64,
                posted_ns: (t + c + 1) as i64,
                size_bytes: 8,
                tag: 0,
                name: world,
            });
        }
    }
    b.finish()
}

fn both(t: &Trace) -> Run<'_> {
    Run { trace: t, waits: true, kept: None }
}

fn region<'c>(c: &'c Comparison, name: &str) -> &'c RegionDiff {
    c.regions.iter().find(|r| r.name == name).unwrap_or_else(|| panic!("region {name}"))
}

#[test]
fn a_run_against_itself_changes_nothing() {
    let t = run(4, 10, |r| 1000 + 100 * r as u64);
    for ranks in [RankMap::Index, RankMap::Name, RankMap::Proportional] {
        let c = compare(both(&t), both(&t), &CompareOptions { ranks, ..Default::default() }).expect("compare");
        assert_eq!(c.span_ns.a, c.span_ns.b);
        assert_eq!(c.regions.len(), 3);
        for r in &c.regions {
            assert_eq!((r.delta_ns, r.delta_exclusive_ns, r.a_count), (0, 0, r.b_count), "{r:?}");
            assert_eq!(r.ratio, Some(1.0));
        }
        assert_eq!(c.locations.len(), 4);
        for l in &c.locations {
            assert_eq!(l.a, l.b);
            assert_eq!(l.delta, LocationDelta { busy_ns: 0, total_ns: 0, m1_ns: Some(0.0), m2_ns: 0.0, m3_ns: 0.0 });
        }
        assert!(c.comm_matrix.delta.count.iter().flatten().all(|&v| v == 0));
        assert!(c.comm_matrix.delta.bytes.iter().flatten().all(|&v| v == 0));
        assert_eq!(c.comm_matrix.a.messages(), 40);
        assert_eq!(c.waits.delta_total_ns, Some(0));
        assert!(c.waits.delta.as_ref().expect("deltas").values().all(|&v| v == 0));
        assert!(c.summary.contains("the same in both runs"), "{}", c.summary);
        assert!(c.summary.contains("No region's exclusive time changed"), "{}", c.summary);
    }
}

#[test]
fn each_side_is_the_single_run_analysis() {
    let (a, b) = (run(3, 5, |_| 700), run(5, 4, |r| 900 + r as u64));
    let window = Some(TimeWindow { start_ns: 1000, end_ns: 3000 });
    for options in [CompareOptions::default(), CompareOptions { window, ..Default::default() }] {
        let c = compare(both(&a), both(&b), &options).expect("compare");
        for (t, side) in [(&a, 0), (&b, 1)] {
            let w = options.window;
            for p in profile(t, w, |_| true) {
                let r = region(&c, &p.name);
                let got = if side == 0 {
                    (r.a_count, r.a_inclusive_ns, r.a_exclusive_ns)
                } else {
                    (r.b_count, r.b_inclusive_ns, r.b_exclusive_ns)
                };
                assert_eq!(got, (p.count, p.inclusive_ns, p.exclusive_ns), "{}", p.name);
            }
            let rows: Vec<_> =
                c.locations.iter().filter_map(|l| if side == 0 { l.a.as_ref() } else { l.b.as_ref() }).collect();
            for m in moments(t, &BusyDefinition::Compute, w) {
                assert!(rows.iter().any(|r| r.moments == m), "{m:?}");
            }
            let matrix = if side == 0 { &c.comm_matrix.a } else { &c.comm_matrix.b };
            assert_eq!(matrix, &comm_matrix(t, w, MatrixUnit::Process));
        }
        let expect = if window.is_some() && options.window.is_some() { 2000 } else { a.span_ns };
        assert_eq!(c.span_ns.a, expect);
    }
}

use crate::busy::BusyDefinition;

#[test]
fn one_region_twice_as_slow_on_one_rank_is_the_only_change() {
    let (iterations, slow) = (10u64, 2usize);
    let a = run(4, iterations, |_| 1000);
    let b = run(4, iterations, |r| if r == slow { 2000 } else { 1000 });
    let c = compare(both(&a), both(&b), &CompareOptions::default()).expect("compare");
    let extra = (iterations * 1000) as i64;
    assert_eq!(c.span_ns.a, iterations * 1050);
    assert_eq!(c.span_ns.b, iterations * 2050);
    let compute = region(&c, "compute");
    assert_eq!((compute.delta_ns, compute.delta_exclusive_ns), (extra, extra));
    assert_eq!((compute.a_count, compute.b_count), (40, 40));
    let main = region(&c, "main");
    assert_eq!((main.delta_ns, main.delta_exclusive_ns), (extra, 0), "main only contains the change");
    let exchange = region(&c, "exchange");
    assert_eq!((exchange.delta_ns, exchange.delta_exclusive_ns), (0, 0));
    assert_eq!(c.regions[0].name, "compute", "sorted by |delta|, then exclusive");
    for (k, l) in c.locations.iter().enumerate() {
        let a = l.a.as_ref().expect("A side");
        assert_eq!(a.moments.location, k as u32);
        if k == slow {
            assert_eq!(l.delta.busy_ns, extra);
            assert_eq!(l.delta.total_ns, extra);
            assert!(l.delta.m1_ns.expect("both busy") > 0.0 && l.delta.m2_ns > 0.0);
        } else {
            assert_eq!(l.delta, LocationDelta { busy_ns: 0, total_ns: 0, m1_ns: Some(0.0), m2_ns: 0.0, m3_ns: 0.0 });
        }
    }
    // Messages move in time but not in number: the whole run's matrices agree.
    assert!(c.comm_matrix.delta.count.iter().flatten().all(|&v| v == 0));
    assert!(c.summary.contains("compute +10.000 us"), "{}", c.summary);
    assert!(c.summary.contains("Process 2 / Thread 0 +10.000 us"), "{}", c.summary);
    assert!(!c.summary.contains("exchange"), "{}", c.summary);
}

#[test]
fn eight_against_sixteen_ranks_maps_proportionally() {
    let iterations = 6u64;
    let a = run(8, iterations, |_| 2000);
    let b = run(16, iterations, |_| 1000);
    let options = CompareOptions { ranks: RankMap::Proportional, ..Default::default() };
    let c = compare(both(&a), both(&b), &options).expect("compare");
    // Strong scaling: compute's total is the same, the exchanges double, the span nearly halves.
    let compute = region(&c, "compute");
    assert_eq!((compute.delta_ns, compute.a_count, compute.b_count), (0, 8 * iterations, 16 * iterations));
    assert_eq!(region(&c, "exchange").delta_ns, (8 * iterations * EXCHANGE_NS) as i64);
    assert_eq!((c.span_ns.a, c.span_ns.b), (iterations * 2050, iterations * 1050));
    // A's rank i is B's rank 2i; B's odd ranks have no partner.
    assert_eq!(c.locations.len(), 16);
    for (i, l) in c.locations.iter().take(8).enumerate() {
        assert_eq!(l.a.as_ref().expect("A").moments.location, i as u32);
        assert_eq!(l.b.as_ref().expect("B").moments.location, 2 * i as u32);
        assert_eq!(l.delta.busy_ns, -((iterations * 1000) as i64));
    }
    for (j, l) in c.locations.iter().skip(8).enumerate() {
        assert!(l.a.is_none());
        assert_eq!(l.b.as_ref().expect("B").moments.location, 2 * j as u32 + 1);
    }
    // The matrix in B's shape: A's i -> i+1 lands on B's 2i -> 2i+2; B sends 2i -> 2i+1 -> 2i+2.
    let d = &c.comm_matrix.delta;
    assert_eq!(d.a_unplaced_count, 0);
    let it = iterations as i64;
    for s in 0..16 {
        for r in 0..16 {
            let mut want = if r == (s + 1) % 16 { it } else { 0 };
            if s % 2 == 0 && r == (s + 2) % 16 {
                want -= it;
            }
            assert_eq!(d.count[s][r], want, "cell {s} -> {r}");
        }
    }
    assert!(c.summary.contains("paired by proportional (8 in A, 16 in B)"), "{}", c.summary);
}

#[test]
fn sixteen_onto_eight_sums_a_into_b_shape() {
    let (a, b) = (run(16, 3, |_| 500), run(8, 3, |_| 1000));
    let c =
        compare(both(&a), both(&b), &CompareOptions { ranks: RankMap::Proportional, ..Default::default() }).unwrap();
    // Two of A's ranks go to each of B's: A's internal messages 2i -> 2i+1 land on B's diagonal.
    let d = &c.comm_matrix.delta;
    for s in 0..8 {
        assert_eq!(d.count[s][s], -3, "A's 2i -> 2i+1");
        assert_eq!(d.count[s][(s + 1) % 8], 0, "A's 2i+1 -> 2i+2 against B's i -> i+1");
    }
    assert_eq!(c.locations.len(), 16);
    assert_eq!(c.locations[1].b.as_ref().unwrap().moments.location, 0);
}

#[test]
fn region_alignment_and_windows() {
    let a = run(2, 10, |_| 1000);
    let b = run(2, 10, |_| 2000);
    let align = Align::parse("region:compute:3").expect("parse");
    assert_eq!(align, Align::Region { name: "compute".into(), instance: 3 });
    let c = compare(both(&a), both(&b), &CompareOptions { align: align.clone(), ..Default::default() }).unwrap();
    let w = c.windows.expect("windows");
    assert_eq!((w.a.origin_ns, w.b.origin_ns), (2 * 1050, 2 * 2050));
    assert_eq!((w.a.end_ns, w.b.end_ns), (a.span_ns, b.span_ns));
    assert_eq!(region(&c, "compute").a_count, 2 * 8);
    let window = Some(TimeWindow { start_ns: 0, end_ns: 1050 });
    let c = compare(both(&a), both(&b), &CompareOptions { align, window, ..Default::default() }).unwrap();
    assert_eq!((c.span_ns.a, c.span_ns.b), (1050, 1050));
    assert_eq!(region(&c, "compute").a_inclusive_ns, 2 * 1000);
    assert_eq!(region(&c, "compute").b_inclusive_ns, 2 * 1050);
    let far = CompareOptions { window: Some(TimeWindow { start_ns: 15_000, end_ns: 16_000 }), ..Default::default() };
    assert!(matches!(compare(both(&a), both(&b), &far), Err(CompareError::WindowPastEnd { side: 'A', .. })));
    let missing = CompareOptions { align: Align::parse("region:compute:11").unwrap(), ..Default::default() };
    assert_eq!(
        compare(both(&a), both(&b), &missing),
        Err(CompareError::NoInstance { side: 'A', name: "compute".into(), instance: 11, most: 10 })
    );
}

#[test]
fn options_parse() {
    assert_eq!(Align::parse("start"), Ok(Align::Start));
    assert_eq!(Align::parse("region:a:b"), Ok(Align::Region { name: "a:b".into(), instance: 1 }));
    assert_eq!(Align::parse("region:a:b:2"), Ok(Align::Region { name: "a:b".into(), instance: 2 }));
    for bad in ["", "region:", "region::2", "region:x:0", "marker:x", "begin"] {
        assert!(Align::parse(bad).is_err(), "{bad}");
    }
    assert_eq!(RankMap::parse("name"), Ok(RankMap::Name));
    assert!(RankMap::parse("rank").is_err());
}

#[test]
fn name_mapping_pairs_by_label_whatever_the_order() {
    let a = run(3, 2, |r| 100 * (r as u64 + 1));
    // B: the same ranks numbered in reverse, so index and name pairings differ.
    let mut bb = TraceBuilder::new(Format::Generated);
    let compute = bb.region("compute", "");
    for r in (0..3).rev() {
        let p = bb.process(10 - r as i64);
        bb.set_process_name(p, &format!("Process {r}"));
        let l = bb.location(p, 0, LocationKind::CpuThread);
        bb.interval(l, compute, 0, 100 * (r as u64 + 1));
    }
    let b = bb.finish();
    let c = compare(both(&a), both(&b), &CompareOptions { ranks: RankMap::Name, ..Default::default() }).unwrap();
    for l in &c.locations {
        let (x, y) = (l.a.as_ref().unwrap(), l.b.as_ref().unwrap());
        assert_eq!(x.moments.name, y.moments.name);
    }
}

#[test]
fn sides_sent_as_json_pair_to_the_same_comparison() {
    // A page holds each run in its own worker: each sends its side as JSON, one pairs both. The tables and
    // the summary must be those `compare` gives (integers exactly; moments' floats to the printed digits).
    let (a, b) = (run(4, 6, |_| 1000), run(4, 6, |r| if r == 2 { 2000 } else { 1000 }));
    let options = CompareOptions { align: Align::Region { name: "compute".into(), instance: 2 }, ..Default::default() };
    let direct = compare(both(&a), both(&b), &options).expect("compare");
    let through = |t: &Trace, which| -> Side {
        let text = serde_json::to_string(&side(both(t), which, &options).expect("side")).expect("to json");
        serde_json::from_str(&text).expect("from json")
    };
    let paired = pair(through(&a, 'A'), through(&b, 'B'), &options);
    assert_eq!(paired.regions.len(), direct.regions.len());
    for (p, d) in paired.regions.iter().zip(&direct.regions) {
        assert_eq!(
            (&p.name, p.delta_ns, p.delta_exclusive_ns, p.a_count),
            (&d.name, d.delta_ns, d.delta_exclusive_ns, d.a_count)
        );
    }
    assert_eq!(paired.summary, direct.summary);
    assert_eq!(paired.comm_matrix, direct.comm_matrix);
    assert_eq!(paired.waits, direct.waits);
    assert_eq!(paired.span_ns, direct.span_ns);
    assert!(paired.summary.contains("compute"), "{}", paired.summary);
    // A side whose wait pattern or matrix unit is not one weft knows is refused, not invented.
    let text = serde_json::to_string(&side(both(&a), 'A', &options).expect("side")).expect("to json");
    let bad = text.replacen("\"process\"", "\"galaxy\"", 1);
    assert!(serde_json::from_str::<Side>(&bad).is_err());
}
