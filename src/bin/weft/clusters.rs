//! `weft clusters TRACE|STORE [--json] [--k N] [--window T0:T1]`: the locations grouped by behaviour
//! (`analyses::clusters`; definitions in docs/clusters.md). `--json` prints `{"k", "k_chosen_by",
//! "silhouette", "locations", "sampled", "window": {"start_ns", "end_ns"}, "features", "clusters": [{"medoid",
//! "medoid_name", "size", "members", "mean_distance", "max_distance", "spread_ns", "distinguishing": [{"region",
//! "name", "fraction", "others_fraction", "ratio"}]}], "outliers": [{"location", "name", "cluster", "distance",
//! "reason", "distinguishing"}], "summary"}`. Locations are indices in the order of `weft moments --json`.
//! A store is decoded whole.

use std::path::PathBuf;
use weft::analyses::clusters::json::ClustersJson;
use weft::analyses::clusters::words::{difference_words, thousands};
use weft::analyses::clusters::{cluster, Clustering, OutlierReason};
use weft::analyses::moments::location_label;
use weft::model::text::escape_controls as esc;
use weft::model::Trace;

#[derive(clap::Args)]
pub struct Args {
    /// The trace file, or a store folder written by `weft index`.
    file: PathBuf,
    /// Print JSON with stable keys instead of text.
    #[arg(long)]
    json: bool,
    /// The number of clusters (default: chosen by silhouette among 2 to 20, or 1).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    k: Option<u64>,
    /// Only this time window, `T0:T1` from the trace's first event (units ns, us, ms, s; default ns).
    #[arg(long)]
    window: Option<String>,
}

pub fn run(a: Args) -> Result<(), Box<dyn std::error::Error>> {
    let path = &a.file;
    let window = crate::selection::Selection::window(a.window.as_deref())?;
    let file = path.display().to_string();
    let trace = crate::folders::read_trace_or_store(path)?;
    let k = a.k.map(|k| usize::try_from(k).unwrap_or(usize::MAX));
    let c = cluster(&trace, window, k).map_err(|e| format!("{file}: {e}"))?;
    if a.json {
        let names = weft::analyses::clusters::features(&trace, window).names(&trace);
        println!("{}", crate::json_text(&ClustersJson::new(&trace, &c, names))?);
    } else {
        print_clusters(&trace, &c);
    }
    Ok(())
}

/// Members as ranges: "0-99, 120, 130-131".
fn ranges(members: &[u32]) -> String {
    let mut parts = Vec::new();
    let mut i = 0;
    while i < members.len() {
        let mut j = i;
        while j + 1 < members.len() && members[j + 1] == members[j] + 1 {
            j += 1;
        }
        parts.push(if i == j { members[i].to_string() } else { format!("{}-{}", members[i], members[j]) });
        i = j + 1;
    }
    parts.join(", ")
}

fn print_clusters(trace: &Trace, c: &Clustering) {
    let len = c.window.len_ns() as f64;
    println!("{}", esc(&c.summary));
    println!();
    println!("{:>7}  {:>9}  {:>12}  {:>12}  medoid (representative location)", "cluster", "size", "spread", "max");
    for (i, cl) in c.clusters.iter().enumerate() {
        println!(
            "{:>7}  {:>9}  {:>12}  {:>12}  {} {}",
            i,
            thousands(cl.members.len()),
            fmt(cl.mean_distance * len),
            fmt(cl.max_distance * len),
            cl.medoid.0,
            esc(&location_label(trace, cl.medoid))
        );
        for d in &cl.distinguishing {
            println!("{:>47}{}", "", esc(&difference_words(d)));
        }
        let text = ranges(&cl.members);
        let shown: String = text.chars().take(200).collect();
        let more = if shown.len() < text.len() { " ..." } else { "" };
        println!("{:>47}members: {shown}{more}", "");
    }
    if !c.outliers.is_empty() {
        println!();
        println!("{:>9}  {:>7}  {:>12}  {:<6}  outlier", "location", "cluster", "distance", "why");
        for o in &c.outliers {
            let why = match o.reason {
                OutlierReason::Alone => "alone",
                OutlierReason::Far => "far",
            };
            let what: Vec<String> = o.distinguishing.iter().map(difference_words).collect();
            println!(
                "{:>9}  {:>7}  {:>12}  {:<6}  {}: {}",
                o.location.0,
                o.cluster,
                fmt(o.distance * len),
                why,
                esc(&location_label(trace, o.location)),
                esc(&what.join(", "))
            );
        }
    }
    println!();
    println!(
        "spread: the members' mean distance to the medoid, max: the furthest; a distance is time spent differently\n\
         (docs/clusters.md). Window {} .. {}.",
        fmt(c.window.start_ns as f64),
        fmt(c.window.end_ns as f64)
    );
}

fn fmt(ns: f64) -> String {
    weft::analyses::moments::format_duration_ns(ns)
}
