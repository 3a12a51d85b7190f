//! The parallelism profile of grain graphs (`analyses::grains::parallelism`): the sweep's step function, its
//! maximum and mean, and "which grains run at t" equal a brute-force count over the fragments; mean equals
//! the prototype's work / span; the grains running inside each of the prototype's profile bins are among the
//! fragments it lists there; `weft grains --json` carries it bounded, and `--running-at` lists what the page
//! outlines.

use crate::common;

use crate::common::TempDir;
use common::read::read_grains;
use std::collections::BTreeSet;
use weft::analyses::grains::{GrainAnalysis, Thresholds};
use weft::samples::grains::{fib_profile, random_profile};

fn analysed(name: &str, bytes: &[u8]) -> GrainAnalysis {
    GrainAnalysis::new(&read_grains(name, bytes).unwrap(), Thresholds::paper()).unwrap()
}

/// Work-holding nodes as (start, end, grain) on the critical-path-distance axis.
fn fragments(a: &GrainAnalysis) -> Vec<(u64, u64, u32)> {
    let g = &a.graph;
    (0..g.nodes())
        .filter(|&v| g.node_kind[v].holds_work() && g.node_grain[v] != u32::MAX)
        .map(|v| (a.critical.root_dist[v], a.critical.root_dist[v] + g.node_exec[v], g.node_grain[v]))
        .collect()
}

fn brute_running(frags: &[(u64, u64, u32)], t: u64) -> BTreeSet<u32> {
    frags.iter().filter(|f| f.0 <= t && t < f.1).map(|f| f.2).collect()
}

#[test]
fn the_sweep_equals_a_brute_force_count_at_every_change() {
    let inputs = [
        ("fib", fib_profile(14, 4, 8)),
        ("random1", random_profile(3000, 1, 8)),
        ("random2", random_profile(2000, 7, 4)),
    ];
    for (name, csv) in &inputs {
        let a = analysed(name, csv);
        let p = &a.parallelism;
        let frags = fragments(&a);
        // A grain's fragments never overlap on the axis, so fragments running = grains running.
        let mut times: BTreeSet<u64> = frags.iter().flat_map(|f| [f.0, f.1, f.0.saturating_sub(1), f.1 + 1]).collect();
        times.insert(0);
        times.insert(p.span / 2);
        let mut max = 0;
        for &t in &times {
            let brute = brute_running(&frags, t);
            let frag_count = frags.iter().filter(|f| f.0 <= t && t < f.1).count();
            assert_eq!(frag_count, brute.len(), "{name}: one fragment per grain at {t}");
            assert_eq!(p.count_at(t) as usize, brute.len(), "{name}: count at {t}");
            assert_eq!(p.running_at(t), brute.iter().copied().collect::<Vec<_>>(), "{name}: running at {t}");
            max = max.max(brute.len() as u32);
        }
        assert_eq!(p.max, max, "{name}: max");
        assert!(p.max >= 2, "{name}: something runs in parallel");
        let work: u64 = frags.iter().map(|f| f.1 - f.0).sum();
        assert!((p.mean - work as f64 / a.critical.length as f64).abs() < 1e-9, "{name}: mean is work / span");
        assert_eq!(p.span, a.critical.length);
        // A step function: strictly increasing times from 0, neighbours different, ending at 0 grains.
        assert_eq!(p.step_t[0], 0);
        assert!(p.step_t.windows(2).all(|w| w[0] < w[1]));
        assert!(p.step_count.windows(2).all(|w| w[0] != w[1]));
        assert_eq!(*p.step_count.last().unwrap(), 0);
        // The bins hold each bin's largest count: their max is the max; a strip of any width keeps it.
        assert_eq!(p.bins.iter().copied().max(), Some(p.max));
        for w in [1, 7, 300, 5000] {
            assert_eq!(p.columns(w).iter().copied().max(), Some(p.max), "{name}: {w} columns keep the peak");
        }
    }
}

#[test]
fn a_grains_span_covers_exactly_its_fragments() {
    let a = analysed("fib", &fib_profile(10, 3, 4));
    let frags = fragments(&a);
    for gi in 0..a.graph.grains() as u32 {
        let (lo, hi) = weft::analyses::grains::Parallelism::grain_span(&a.graph, &a.critical, gi).unwrap();
        let mine: Vec<_> = frags.iter().filter(|f| f.2 == gi).collect();
        assert_eq!(lo, mine.iter().map(|f| f.0).min().unwrap());
        assert_eq!(hi, mine.iter().map(|f| f.1).max().unwrap());
        if hi > lo {
            assert!(a.parallelism.running_at(lo).contains(&gi) || mine.iter().all(|f| f.0 == f.1 || f.0 > lo));
        }
    }
}

/// The prototype (anamud/grain-graphs) writes its binned profile with the fragments counted in each bin; a
/// grain weft finds running at a bin's middle is one the prototype lists in that bin; the mean is the
/// prototype's "Parallelism (Work/Span)".
#[test]
fn agrees_with_the_prototypes_profile_and_parallelism() {
    let Some(dir) = common::shared_traces("agrees_with_the_prototypes_profile_and_parallelism") else {
        return;
    };
    let dir = dir.join("grain-graphs/anamud-prototype-test");
    let read = |f: &str| {
        let bytes = std::fs::read(dir.join(f)).unwrap();
        GrainAnalysis::new(&read_grains(f, &bytes).unwrap(), Thresholds::prototype()).unwrap()
    };
    let reduced = read("grain-graph.graphml");
    let info = std::fs::read_to_string(dir.join("grain-graph.info")).unwrap();
    let stated: f64 = info
        .lines()
        .find_map(|l| l.strip_prefix("Parallelism (Work/Span) = "))
        .expect("grain-graph.info states the parallelism")
        .trim()
        .parse()
        .unwrap();
    assert!((reduced.parallelism.mean - stated).abs() < 1e-9, "{} vs {stated}", reduced.parallelism.mean);

    let a = read("task-stats.processed");
    let text = std::fs::read_to_string(dir.join("grain-graph-instantaneous-parallelism-raw.csv")).unwrap();
    let mut checked = 0;
    for line in text.lines().skip(1) {
        let cols: Vec<&str> = line.split(',').collect();
        let (lo, hi): (f64, f64) = (cols[0].parse().unwrap(), cols[1].parse().unwrap());
        let listed: BTreeSet<u64> =
            cols[3].trim_matches('"').split(';').filter_map(|frag| frag.split('.').next()?.parse().ok()).collect();
        if listed.is_empty() {
            // "NA": a bin past the last fragment.
            assert!(lo >= a.parallelism.span as f64, "an empty bin ({lo}) lies past the span");
            continue;
        }
        // The middle of the part of the bin within the span (the last bin reaches past it).
        let mid = ((lo.ceil() + hi.floor().min(a.parallelism.span as f64 - 1.0)) / 2.0).floor() as u64;
        let running: BTreeSet<u64> =
            a.parallelism.running_at(mid).iter().map(|&g| a.graph.grain_task[g as usize]).collect();
        assert!(running.is_subset(&listed), "bin {lo}..{hi}: weft runs {running:?}, the prototype lists {listed:?}");
        assert!(!running.is_empty(), "bin {lo}..{hi}: something runs");
        checked += 1;
    }
    assert_eq!(checked, 23);
}

#[test]
fn cli_json_is_bounded_and_running_at_lists_the_grains() {
    let dir = TempDir::new("parallelism");
    let weft = env!("CARGO_BIN_EXE_weft");
    for (n, cutoff) in [(12u32, 4u32), (20, 12)] {
        let csv = fib_profile(n, cutoff, 8);
        let path = dir.join(format!("fib{n}.csv"));
        std::fs::write(&path, &csv).unwrap();
        let a = analysed("fib.csv", &csv);
        let t = a.parallelism.span / 3;
        let out = std::process::Command::new(weft)
            .args(["grains", path.to_str().unwrap(), "--json", "--running-at", &t.to_string()])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let p = &v["parallelism"];
        assert_eq!(p["max"], a.parallelism.max);
        assert_eq!(p["unit"], "cycles");
        let profile = p["profile"].as_array().unwrap();
        assert!(profile.len() <= weft::analyses::grains::parallelism::JSON_POINTS);
        if p["exact"].as_bool().unwrap() {
            assert_eq!(profile.len(), a.parallelism.step_t.len());
            // The count at t by the listed steps is the number of grains listed as running.
            let at = profile.iter().rev().find(|s| s[0].as_u64().unwrap() <= t).unwrap()[1].as_u64().unwrap();
            assert_eq!(at, v["running"]["count"].as_u64().unwrap());
        } else {
            let peak = profile.iter().map(|s| s[1].as_u64().unwrap()).max().unwrap();
            assert_eq!(peak, a.parallelism.max as u64, "bins keep the peak");
            assert!(p["bin"].as_f64().unwrap() > 0.0);
        }
        let tasks: Vec<u64> = v["running"]["tasks"].as_array().unwrap().iter().map(|x| x.as_u64().unwrap()).collect();
        let expect: Vec<u64> = a.parallelism.running_at(t).iter().map(|&g| a.graph.grain_task[g as usize]).collect();
        assert_eq!(tasks, expect);
        assert!(!tasks.is_empty());
    }
}
