//! Clusters of ranks (`analyses::clusters`, `weft clusters`; issue #55): a generated run of three known
//! behaviours with a planted outlier gives exactly those three groups and that outlier, with k chosen and
//! with k given, also when the run is larger than the clustering's sample; the same trace gives the same
//! clusters twice; one location is one cluster; bad arguments are clear errors; every shared trace clusters
//! without a panic and with every location in exactly one cluster.

use crate::common;

use common::read::read_path;
use std::collections::BTreeSet;
use std::process::Command;
use weft::analyses::clusters::{cluster, KChoice, OutlierReason, SAMPLE};
use weft::analyses::moments::TimeWindow;
use weft::model::{Format, LocationKind, Trace, TraceBuilder};
use weft::samples::behaviours::{behaviour_of, behaviours_trace};

/// The three behaviours' location sets, outliers left out.
fn groups(n: usize, outliers: &[usize]) -> BTreeSet<Vec<u32>> {
    (0..3).map(|g| (0..n).filter(|&l| behaviour_of(l, outliers) == Some(g)).map(|l| l as u32).collect()).collect()
}

/// The clusters' member sets with the given locations taken out (empty sets dropped).
fn member_sets(c: &weft::analyses::clusters::Clustering, without: &[usize]) -> BTreeSet<Vec<u32>> {
    c.clusters
        .iter()
        .map(|cl| cl.members.iter().copied().filter(|&l| !without.contains(&(l as usize))).collect::<Vec<u32>>())
        .filter(|m| !m.is_empty())
        .collect()
}

#[test]
fn three_behaviours_and_a_planted_outlier_are_recovered() {
    let (n, planted) = (300, [117usize]);
    let t = behaviours_trace(n, &planted);
    let c = cluster(&t, None, None).unwrap();
    assert_eq!(c.k_choice, KChoice::Silhouette, "{}", c.summary);
    assert!(c.silhouette.unwrap() > 0.5, "{}", c.summary);
    // Exactly the three groups once the outlier is taken out, and the outlier is the only one listed.
    assert_eq!(member_sets(&c, &planted), groups(n, &planted), "{}", c.summary);
    let listed: Vec<usize> = c.outliers.iter().map(|o| o.location.index()).collect();
    assert_eq!(listed, planted, "{}", c.summary);
    // The clusters of more than one location are the three behaviours; the outlier is alone or far.
    assert_eq!(c.clusters.iter().filter(|cl| cl.members.len() > 1).count(), 3, "{}", c.summary);
    let o = &c.outliers[0];
    let alone = c.clusters[o.cluster].members == [planted[0] as u32];
    assert_eq!(o.reason, if alone { OutlierReason::Alone } else { OutlierReason::Far });
    assert_eq!(c.assignment[planted[0]] as usize, o.cluster);
    // Its words name what sets it apart: the waits it has and the behaviour-0/1 locations have not, or the
    // computing it has more of than the waiting group.
    assert!(c.summary.contains("location 117"), "{}", c.summary);
    assert!(!o.distinguishing.is_empty(), "{o:?}");
    // Each group's medoid is one of its own, its spread small beside the groups' distance.
    for cl in &c.clusters {
        assert!(cl.members.binary_search(&cl.medoid.0).is_ok());
        assert!(cl.members.windows(2).all(|w| w[0] < w[1]), "members ascending");
        if cl.members.len() > 1 {
            assert!(cl.mean_distance < 0.05, "{cl:?}");
        }
    }
    // The waiting group is told apart by MPI_Waitall, the writing one by write.
    let words: Vec<&str> =
        c.clusters.iter().filter_map(|cl| cl.distinguishing.first()).map(|d| d.name.as_str()).collect();
    assert!(words.contains(&"MPI_Waitall") && words.contains(&"write"), "{words:?}");
    assert!(c.summary.starts_with(&format!("{} clusters of 300 locations (k by silhouette", c.k)), "{}", c.summary);
}

#[test]
fn k_given_gives_that_many_clusters() {
    let (n, planted) = (300, [117usize]);
    let t = behaviours_trace(n, &planted);
    let c = cluster(&t, None, Some(3)).unwrap();
    assert_eq!((c.k, c.k_choice, c.clusters.len()), (3, KChoice::Given, 3));
    // Three clusters: the three behaviours, the outlier joined to the nearest and listed as far from it.
    assert_eq!(member_sets(&c, &planted), groups(n, &planted), "{}", c.summary);
    assert_eq!(
        c.outliers.iter().map(|o| (o.location.index(), o.reason)).collect::<Vec<_>>(),
        [(117, OutlierReason::Far)]
    );
    assert!(c.summary.contains("(k given)"), "{}", c.summary);
    // k = 1: everything in one cluster, nothing said to set it apart.
    let one = cluster(&t, None, Some(1)).unwrap();
    assert_eq!((one.k, one.clusters[0].members.len()), (1, n));
    assert!(one.clusters[0].distinguishing.is_empty());
    // k = 6: six clusters, the behaviours split but never mixed.
    let six = cluster(&t, None, Some(6)).unwrap();
    assert_eq!(six.k, 6);
    for cl in &six.clusters {
        let kinds: BTreeSet<Option<usize>> = cl.members.iter().map(|&l| behaviour_of(l as usize, &planted)).collect();
        assert!(kinds.len() == 1 || kinds.contains(&None) && kinds.len() == 2, "{kinds:?}");
    }
    let sizes: usize = six.clusters.iter().map(|cl| cl.members.len()).sum();
    assert_eq!(sizes, n);
}

#[test]
fn more_locations_than_the_sample_still_give_the_groups() {
    let n = SAMPLE * 3 + 11;
    let planted = [5usize, 4_000];
    let t = behaviours_trace(n, &planted);
    let c = cluster(&t, None, None).unwrap();
    assert_eq!(c.sampled, SAMPLE);
    assert_eq!(member_sets(&c, &planted), groups(n, &planted), "{}", c.summary);
    let listed: BTreeSet<usize> = c.outliers.iter().map(|o| o.location.index()).collect();
    assert_eq!(listed, planted.into_iter().collect(), "{}", c.summary);
}

#[test]
fn the_same_trace_gives_the_same_clusters() {
    let t = behaviours_trace(500, &[3, 250]);
    let a = cluster(&t, None, None).unwrap();
    let b = cluster(&behaviours_trace(500, &[3, 250]), None, None).unwrap();
    assert_eq!(a, b);
    // A window is clustered as its own run: the same groups over the first half.
    let w = TimeWindow { start_ns: 0, end_ns: t.span_ns / 2 };
    let h = cluster(&t, Some(w), None).unwrap();
    assert_eq!(h.window, w);
    assert_eq!(member_sets(&h, &[3, 250]), groups(500, &[3, 250]), "{}", h.summary);
}

fn one_location() -> Trace {
    let mut b = TraceBuilder::new(Format::Generated);
    let p = b.process(0);
    let l = b.location(p, 0, LocationKind::CpuThread);
    let r = b.region("work", "");
    b.interval(l, r, 0, 1_000);
    b.finish()
}

#[test]
fn one_location_is_one_cluster() {
    let c = cluster(&one_location(), None, None).unwrap();
    assert_eq!((c.k, c.k_choice, c.silhouette), (1, KChoice::One, None));
    assert_eq!(c.clusters[0].members, [0]);
    assert_eq!((c.clusters[0].medoid.0, c.clusters[0].mean_distance), (0, 0.0));
    assert!(c.outliers.is_empty());
    assert_eq!(c.summary, "1 cluster of 1 location.");
    let e = cluster(&one_location(), None, Some(2)).unwrap_err();
    assert_eq!(e.to_string(), "k = 2 is more than the 1 locations there are");
    let empty = TraceBuilder::new(Format::Generated).finish();
    assert_eq!(cluster(&empty, None, None).unwrap_err().to_string(), "the trace has no locations to cluster");
}

fn weft(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_weft")).args(args).output().expect("run weft")
}

#[test]
fn the_cli_prints_the_clusters_and_refuses_bad_arguments() {
    let dir = common::TempDir::new("clusters-cli");
    let path = dir.path().join("behaviours.json");
    // The generated run as a Chrome trace, so the CLI reads it from a file: 30 locations, one outlier.
    let t = behaviours_trace(30, &[7]);
    std::fs::write(&path, chrome_json(&t)).unwrap();
    let p = path.to_str().unwrap();
    let out = weft(&["clusters", p, "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for key in [
        "k",
        "k_chosen_by",
        "silhouette",
        "locations",
        "sampled",
        "window",
        "features",
        "clusters",
        "outliers",
        "summary",
    ] {
        assert!(v.get(key).is_some(), "key {key}: {v}");
    }
    let clusters = v["clusters"].as_array().unwrap();
    for key in
        ["medoid", "medoid_name", "size", "members", "mean_distance", "max_distance", "spread_ns", "distinguishing"]
    {
        assert!(clusters[0].get(key).is_some(), "cluster key {key}");
    }
    let sizes: u64 = clusters.iter().map(|c| c["size"].as_u64().unwrap()).sum();
    assert_eq!(sizes, 30);
    let outliers = v["outliers"].as_array().unwrap();
    assert_eq!(outliers.len(), 1, "{v}");
    for key in ["location", "name", "cluster", "distance", "reason", "distinguishing"] {
        assert!(outliers[0].get(key).is_some(), "outlier key {key}");
    }
    // Locations as `weft moments --json` numbers them: the outlier's row there has the same name.
    let moments: serde_json::Value = serde_json::from_slice(&weft(&["moments", p, "--json"]).stdout).unwrap();
    let o = outliers[0]["location"].as_u64().unwrap() as usize;
    assert_eq!(moments[o]["name"], outliers[0]["name"]);
    // Text: the summary first, then the table.
    let out = weft(&["clusters", p, "--k", "3"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("3 clusters of 30 locations (k given)"), "{text}");
    assert!(text.contains("medoid (representative location)") && text.contains("outlier"), "{text}");

    let fails = |args: &[&str], words: &str| {
        let out = weft(args);
        assert!(!out.status.success(), "{args:?} succeeded");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(words), "{args:?}: {err}");
    };
    fails(&["clusters", p, "--k", "0"], "0 is not in 1..");
    fails(&["clusters", p, "--k", "31"], "k = 31 is more than the 30 locations there are");
    fails(&["clusters", p, "--k", "x"], "invalid value 'x'");
    fails(&["clusters", p, "--window", "5:1"], "the end is not after the start");
    fails(&["clusters", "/nonexistent/trace.otf2"], "/nonexistent/trace.otf2");
    fails(&["clusters"], "<FILE>");
}

/// The trace as Chrome trace JSON (complete events), one pid per process and tid per location.
fn chrome_json(t: &Trace) -> String {
    let iv = &t.intervals;
    let mut events = Vec::new();
    for (l, range) in t.location_intervals.iter().enumerate() {
        for i in range.clone() {
            events.push(format!(
                r#"{{"name":"{}","ph":"X","pid":{},"tid":{},"ts":{},"dur":{}}}"#,
                t.region_name(iv.region[i]),
                l / 4,
                l % 4,
                iv.start_ns[i] as f64 / 1e3,
                iv.dur_ns[i] as f64 / 1e3
            ));
        }
    }
    format!("[{}]", events.join(",\n"))
}

#[test]
fn every_shared_trace_clusters_without_a_panic() {
    let Some(dir) = common::shared_traces("clusters of real traces") else { return };
    let mut clustered = 0;
    for path in common::files_under(&dir) {
        let Ok(t) = read_path(&path) else { continue };
        if t.locations.is_empty() {
            continue;
        }
        let c = cluster(&t, None, None).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let what = format!("{}: {}", path.display(), c.summary);
        assert_eq!(c.clusters.iter().map(|cl| cl.members.len()).sum::<usize>(), t.locations.len(), "{what}");
        assert_eq!(c.assignment.len(), t.locations.len(), "{what}");
        for (i, cl) in c.clusters.iter().enumerate() {
            assert!(cl.members.iter().all(|&l| c.assignment[l as usize] as usize == i), "{what}");
            assert!(cl.mean_distance.is_finite() && cl.max_distance >= cl.mean_distance, "{what}");
        }
        assert!(c.k >= 1 && c.k <= t.locations.len(), "{what}");
        assert_eq!(c, cluster(&t, None, None).unwrap(), "{what}: deterministic");
        clustered += 1;
    }
    assert!(clustered >= 10, "{clustered} shared traces clustered");
    eprintln!("clustered {clustered} shared traces");
}
