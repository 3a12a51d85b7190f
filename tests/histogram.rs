//! Duration histograms (`analyses::histogram`, `weft histogram`): known durations give known nearest-rank
//! percentiles and log-spaced bins; on every trace of ../shared/traces and every region, the bins' counts add
//! up to the region's profile count and the percentiles are those of a sort of the durations gathered here
//! independently; the slowest 1 % of each region is the head of that sort; the CLI prints the same.

use crate::common;

use common::read::read_path;
use std::path::PathBuf;
use std::process::Command;
use weft::analyses::histogram::{durations, histogram, instances, instances_between, outliers, percentile, Bin};
use weft::analyses::moments::TimeWindow;
use weft::analyses::profile::region_stats;
use weft::model::{Format, LocationKind, RegionId, Trace, TraceBuilder};

#[test]
fn nearest_rank_percentiles_and_log_bins_of_known_durations() {
    let d: Vec<u64> = (1..=100).rev().collect();
    let h = histogram(d.clone(), 2);
    assert_eq!((h.count, h.min_ns, h.p50_ns, h.p90_ns, h.p99_ns, h.max_ns), (100, 1, 50, 90, 99, 100));
    // Two log bins from 1 to 101: the middle edge floor(sqrt(101)) = 10.
    assert_eq!(h.bins, vec![Bin { lo_ns: 1, hi_ns: 10, count: 9 }, Bin { lo_ns: 10, hi_ns: 101, count: 91 }]);
    // Nearest rank: ceil(p / 100 * n), 1-based.
    assert_eq!(percentile(&[5], 1), 5);
    assert_eq!(percentile(&[1, 2, 3, 4], 50), 2);
    assert_eq!(percentile(&[1, 2, 3, 4], 51), 3);
    assert_eq!(percentile(&[1, 2, 3, 4], 100), 4);
    assert_eq!(percentile(&[], 50), 0);
    // Zero durations fall in the first bin; a narrow range gets fewer bins than asked, each a whole ns wide.
    let h = histogram(vec![0, 0, 3, 4, 4], 50);
    assert_eq!(h.bins.first().map(|b| (b.lo_ns, b.count)), Some((0, 2)));
    assert_eq!(h.bins.last().map(|b| b.hi_ns), Some(5));
    assert_eq!(h.bins.iter().map(|b| b.count).sum::<u64>(), 5);
    assert!(h.bins.len() <= 5 && h.bins.windows(2).all(|w| w[0].hi_ns == w[1].lo_ns && w[0].lo_ns < w[0].hi_ns));
    // One duration: one bin.
    assert_eq!(histogram(vec![7; 3], 20).bins, vec![Bin { lo_ns: 7, hi_ns: 8, count: 3 }]);
    assert_eq!(histogram(Vec::new(), 20).bins, vec![]);
    // Zero durations only (instants drawn as intervals): one bin.
    assert_eq!(histogram(vec![0, 0], 20).bins, vec![Bin { lo_ns: 0, hi_ns: 2, count: 2 }]);
    // Log spacing: 1 ns to 1 s in 9 bins are decades (each edge 10^k rounded down, within 1 of it).
    let h = histogram(vec![1, 999_999_999], 9);
    assert_eq!(h.bins.len(), 9);
    for (k, b) in h.bins.iter().enumerate() {
        let decade = 10u64.pow(k as u32);
        assert!(b.lo_ns == decade || b.lo_ns + 1 == decade, "bin {k}: {b:?}");
    }
}

/// A region with 250 instances of durations 1..=250 on two locations, one of them cut by a window.
fn steps() -> Trace {
    let mut b = TraceBuilder::new(Format::Generated);
    let p = b.process(0);
    let l = [b.location(p, 0, LocationKind::CpuThread), b.location(p, 1, LocationKind::CpuThread)];
    let work = b.region("work", "");
    let mut t = [0i64; 2];
    for d in 1..=250u64 {
        let k = (d % 2) as usize;
        b.interval(l[k], work, t[k], d);
        t[k] += d as i64 + 1;
    }
    b.finish()
}

#[test]
fn outliers_are_the_slowest_one_percent() {
    let t = steps();
    let o = outliers(&t, None, |_| true, 2);
    assert_eq!(o.len(), 1);
    // 250 instances: the slowest ceil(2.5) = 3, p99 at rank ceil(247.5) = 248.
    assert_eq!((o[0].count, o[0].outliers, o[0].p99_ns), (250, 3, 248));
    assert_eq!(o[0].slowest.iter().map(|i| i.dur_ns).collect::<Vec<_>>(), vec![250, 249], "the limit");
    assert_eq!(
        instances(&t, None, |_| true, |_| true)[..3].iter().map(|i| i.dur_ns).collect::<Vec<_>>(),
        vec![250, 249, 248]
    );
    // Location 0 only (the even durations).
    let o = outliers(&t, None, |l| l.0 == 0, 10);
    assert_eq!((o[0].count, o[0].outliers, o[0].p99_ns), (125, 2, 248));
    assert_eq!(o[0].slowest.iter().map(|i| i.dur_ns).collect::<Vec<_>>(), vec![250, 248]);
    // A window counts the instances with time in it, each with its whole duration.
    let w = TimeWindow { start_ns: t.span_ns - 10, end_ns: t.span_ns };
    let d = durations(&t, Some(w), |_| true, |_| true);
    assert_eq!(d.len() as u64, region_stats(&t, w, |_| true)[0].count);
    assert!(d.contains(&250), "a duration longer than the window: not clipped");
}

#[test]
fn a_brushed_run_of_bins_lists_exactly_its_instances_slowest_first() {
    let t = steps();
    // 250 instances of 1..=250 ns: those in [10, 20) are 10..=19, slowest first; the bins' edges split them.
    let got = instances_between(&t, None, |_| true, |_| true, 10, 20);
    assert_eq!(got.iter().map(|i| i.dur_ns).collect::<Vec<_>>(), (10..20).rev().collect::<Vec<u64>>());
    assert!(got.iter().all(|i| t.intervals.dur_ns[i.interval] == i.dur_ns && i.location.0 == (i.dur_ns % 2) as u32));
    let h = histogram(durations(&t, None, |_| true, |_| true), 7);
    for b in &h.bins {
        assert_eq!(instances_between(&t, None, |_| true, |_| true, b.lo_ns, b.hi_ns).len() as u64, b.count, "{b:?}");
    }
    let (first, last) = (h.bins[0], h.bins[h.bins.len() - 1]);
    assert_eq!(instances_between(&t, None, |_| true, |_| true, first.lo_ns, last.hi_ns).len(), 250);
    // One location, and an empty range.
    assert_eq!(instances_between(&t, None, |l| l.0 == 0, |_| true, 10, 20).len(), 5);
    assert!(instances_between(&t, None, |_| true, |_| true, 20, 20).is_empty());
}

/// The durations of region `r` that count in `w`, gathered without the library's walk.
fn by_hand(t: &Trace, r: RegionId, w: TimeWindow) -> Vec<u64> {
    let iv = &t.intervals;
    let mut v: Vec<u64> = (0..iv.len())
        .filter(|&i| iv.region[i] == r)
        .filter(|&i| {
            let (s, e) = (iv.start_ns[i], iv.start_ns[i] + iv.dur_ns[i]);
            e.min(w.end_ns) > s.max(w.start_ns) || (s == e && s >= w.start_ns && s <= w.end_ns)
        })
        .map(|i| iv.dur_ns[i])
        .collect();
    v.sort();
    v
}

fn shared_traces(test: &str) -> Option<Vec<(PathBuf, Trace)>> {
    let dir = common::shared_traces(test)?;
    Some(
        common::files_under(&dir)
            .into_iter()
            .filter_map(|p| read_path(&p).ok().filter(|t| !t.intervals.is_empty()).map(|t| (p, t)))
            .collect(),
    )
}

#[test]
fn every_region_of_every_shared_trace_sums_to_its_count() {
    let Some(traces) = shared_traces("histograms of real traces") else { return };
    assert!(traces.len() >= 10, "{} traces with intervals", traces.len());
    let mut regions = 0;
    for (path, t) in &traces {
        for w in [TimeWindow::whole(t), TimeWindow { start_ns: t.span_ns / 3, end_ns: 2 * t.span_ns / 3 }] {
            let stats = region_stats(t, w, |_| true);
            let out = outliers(t, Some(w), |_| true, usize::MAX);
            for r in (0..t.regions.len() as u32).map(RegionId) {
                let what = format!("{}: {} in [{}, {}]", path.display(), t.region_name(r), w.start_ns, w.end_ns);
                let sorted = by_hand(t, r, w);
                let h = histogram(durations(t, Some(w), |_| true, |x| x == r), 16);
                assert_eq!(h.count, stats[r.index()].count, "{what}");
                assert_eq!(h.bins.iter().map(|b| b.count).sum::<u64>(), h.count, "{what}");
                assert_eq!(h.count, sorted.len() as u64, "{what}");
                for b in &h.bins {
                    let n = sorted.iter().filter(|&&d| d >= b.lo_ns && d < b.hi_ns).count() as u64;
                    assert_eq!(n, b.count, "{what}: bin {b:?}");
                }
                if sorted.is_empty() {
                    assert!(out.iter().all(|o| o.region != r), "{what}");
                    continue;
                }
                regions += 1;
                let n = sorted.len();
                let rank = |p: usize| sorted[(p * n).div_ceil(100).max(1) - 1];
                assert_eq!(
                    (h.min_ns, h.p50_ns, h.p90_ns, h.p99_ns, h.max_ns),
                    (sorted[0], rank(50), rank(90), rank(99), sorted[n - 1]),
                    "{what}"
                );
                let o = out.iter().find(|o| o.region == r).unwrap_or_else(|| panic!("{what}: outliers"));
                let slow: Vec<u64> = o.slowest.iter().map(|i| i.dur_ns).collect();
                let want: Vec<u64> = sorted.iter().rev().take(n.div_ceil(100)).copied().collect();
                assert_eq!((slow, o.p99_ns), (want, rank(99)), "{what}: the slowest 1 %");
            }
        }
    }
    assert!(regions > 50, "{regions} regions checked");
}

fn weft(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_weft")).args(args).output().expect("run weft")
}

#[test]
fn the_cli_prints_the_histogram_and_the_outliers() {
    let Some(dir) = common::shared_traces("weft histogram") else { return };
    let path = dir.join("otf2/tracer-stencil4d-mpi-32/traces.otf2");
    let p = path.to_str().unwrap();
    let t = read_path(&path).unwrap();
    let out = weft(&["histogram", p, "--region", "MPI_Waitall", "--json", "--bins", "12"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let r = (0..t.regions.len() as u32).map(RegionId).find(|&r| t.region_name(r) == "MPI_Waitall").unwrap();
    let sorted = by_hand(&t, r, TimeWindow::whole(&t));
    assert_eq!(j["region"], "MPI_Waitall");
    assert_eq!(j["count"].as_u64(), Some(sorted.len() as u64));
    assert_eq!(j["min_ns"].as_u64(), sorted.first().copied());
    assert_eq!(j["max_ns"].as_u64(), sorted.last().copied());
    assert_eq!(j["p50_ns"].as_u64(), Some(sorted[sorted.len().div_ceil(2) - 1]));
    let bins = j["bins"].as_array().unwrap();
    assert!(!bins.is_empty() && bins.len() <= 12);
    assert_eq!(bins.iter().map(|b| b["count"].as_u64().unwrap()).sum::<u64>(), sorted.len() as u64);
    for key in ["lo_ns", "hi_ns", "count"] {
        assert!(bins[0].get(key).is_some(), "{key}");
    }

    let out = weft(&["histogram", p, "--outliers", "--json", "--limit", "1"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = j["outliers"].as_array().unwrap();
    let w = rows.iter().find(|o| o["region"] == "MPI_Waitall").unwrap();
    assert_eq!(w["slowest"][0]["dur_ns"].as_u64(), sorted.last().copied());
    assert_eq!(w["outliers"].as_u64(), Some(sorted.len().div_ceil(100) as u64));

    let text = weft(&["histogram", p, "--region", "MPI_Waitall"]);
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains("p99") && text.contains('#'), "{text}");
    for (args, says) in [
        (vec!["histogram", p], "--region"),
        (vec!["histogram", p, "--region", "nope"], "no region named 'nope'"),
        (vec!["histogram", p, "--region", "MPI_Waitall", "--bins", "0"], "--bins"),
        (vec!["histogram", p, "--region", "MPI_Waitall", "--locations", "999999"], "not location 999999"),
    ] {
        let out = weft(&args);
        assert!(!out.status.success(), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{args:?}: {err}");
    }
}
