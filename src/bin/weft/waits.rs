//! `weft waits TRACE [--json] [--window T0:T1]`: the wait states of an MPI run (issue #53; the definitions are
//! docs/diagnosis.md's), per pattern, location and region, with their root causes. `--json` prints
//! `weft::analyses::diagnosis::waits::WaitReport` (keys `patterns` -> each pattern's `total_ns`, `instances`,
//! `per_location`, `by_region` [{name, ns}]; `root_causes` [{pattern, waiting_location, causing_location, name,
//! ns}]; `total_wait_ns`), stable keys for scripts.

use std::collections::HashMap;
use std::path::PathBuf;
use weft::analyses::diagnosis::waits::{location_time, wait_report, wait_states, Pattern, WaitReport};
use weft::analyses::moments::{format_duration_ns, TimeWindow};
use weft::model::text::escape_controls;
use weft::model::{LocationId, Trace};
use weft::readers::open_path;

#[derive(clap::Args)]
pub struct Args {
    /// The trace file (a store folder written by `weft index` is recognised).
    file: PathBuf,
    /// Print the report as JSON ({patterns: {late_sender: {total_ns, instances, per_location, by_region}, ...},
    /// root_causes, total_wait_ns}) instead of text.
    #[arg(long)]
    json: bool,
    /// Only the waiting inside this time window, `T0:T1` from the trace's first event (units ns, us, ms, s;
    /// default ns).
    #[arg(long)]
    window: Option<String>,
    /// Rows of each list in the text output.
    #[arg(long, default_value_t = 10)]
    top: usize,
}

pub fn run(a: Args) -> Result<(), Box<dyn std::error::Error>> {
    let window = a.window.as_deref().map(TimeWindow::parse).transpose()?;
    if let Some(store) = crate::folders::open_store(&a.file) {
        // A store keeps its wait states (format 6; `store::read::waits`): the same report, not computed again.
        let store = store.map_err(|e| crate::folders::store_error(&a.file, e))?;
        if let Some(why) = weft::store::read::waits::missing(&store) {
            return Err(format!("{}: {why}", a.file.display()).into());
        }
        let w = window.map(|w| (w.start_ns, w.end_ns));
        let report =
            weft::store::read::waits::report(&store, w).map_err(|e| crate::folders::store_error(&a.file, e))?;
        if a.json {
            let text = serde_json::to_string(&report)?;
            println!("{}", weft::model::text::escape_json_controls(&text));
            return Ok(());
        }
        let times =
            weft::store::read::waits::location_times(&store, w).map_err(|e| crate::folders::store_error(&a.file, e))?;
        let m = &store.manifest;
        // The label `weft moments` gives the location ("MPI Rank 11 / Master thread").
        let string = |s: Option<&u32>| s.and_then(|&s| m.strings.get(s as usize)).cloned().unwrap_or_default();
        let name = |l: usize| {
            let process = m.locations.process.get(l).and_then(|&p| m.processes.name.get(p as usize));
            format!("{} / {}", string(process), string(m.locations.name.get(l)))
        };
        print!("{}", text(times, &name, &report, window, &a.file.display().to_string(), a.top));
        return Ok(());
    }
    let trace = open_path(&a.file)?.into_trace(&a.file.display().to_string())?;
    let states = wait_states(&trace);
    let report = wait_report(&trace, &states, window.map(|w| (w.start_ns, w.end_ns)));
    if a.json {
        let text = serde_json::to_string(&report)?;
        println!("{}", weft::model::text::escape_json_controls(&text));
        return Ok(());
    }
    let times = location_times(&trace, window);
    // The label `weft moments` gives the location ("MPI Rank 11 / Master thread").
    let name = |l: usize| weft::analyses::moments::location_label(&trace, LocationId(l as u32));
    print!("{}", text(times, &name, &report, window, &a.file.display().to_string(), a.top));
    Ok(())
}

/// Each location's time a wait's share is of, inside the window.
fn location_times(trace: &Trace, window: Option<TimeWindow>) -> Vec<u64> {
    let iv = &trace.intervals;
    match window {
        None => location_time(trace),
        Some(w) => (0..trace.locations.len())
            .map(|l| {
                let range = trace.intervals_of(LocationId(l as u32));
                let Some(first) = range.clone().next() else { return 0 };
                let end = range.map(|i| iv.end_ns(i)).max().unwrap_or(0);
                end.min(w.end_ns).saturating_sub(iv.start_ns[first].max(w.start_ns))
            })
            .collect(),
    }
}

/// `part` of `whole` as a percentage.
fn share(part: u64, whole: u64) -> String {
    if whole == 0 {
        return "-".into();
    }
    format!("{:.2} %", part as f64 * 100.0 / whole as f64)
}

/// The report as a CUBE user reads it: the patterns with their share of the total time (the sum of the
/// locations' times, clipped to the window), the locations and regions that wait most, the root causes.
fn text(
    times: Vec<u64>,
    location_name: &dyn Fn(usize) -> String,
    r: &WaitReport,
    window: Option<TimeWindow>,
    file: &str,
    top: usize,
) -> String {
    use std::fmt::Write;
    let d = |ns: u64| format_duration_ns(ns as f64);
    let total: u64 = times.iter().sum();
    let mut o = String::new();
    let _ = writeln!(o, "file        {}", escape_controls(file));
    if let Some(w) = window {
        let _ = writeln!(o, "window      {} .. {} from the first event", d(w.start_ns), d(w.end_ns));
    }
    let _ = writeln!(o, "time        {} (the {} locations' spans summed)", d(total), times.len());
    let _ = writeln!(o, "waiting     {} ({} of the time)", d(r.total_wait_ns), share(r.total_wait_ns, total));
    let _ = writeln!(o);
    let _ = writeln!(o, "{:<18}  {:>12}  {:>8}  {:>10}  worst region", "pattern", "time", "share", "instances");
    for p in Pattern::ALL {
        let t = &r.patterns[p.key()];
        let worst = t.by_region.first().map_or(String::new(), |n| escape_controls(&n.name).into_owned());
        let _ = writeln!(
            o,
            "{:<18}  {:>12}  {:>8}  {:>10}  {}",
            p.label(),
            d(t.total_ns),
            share(t.total_ns, total),
            t.instances,
            worst
        );
    }
    if r.total_wait_ns == 0 {
        return o;
    }
    // Locations: their waiting, all patterns, and its share of their own time.
    let mut per_location: Vec<(u64, usize)> = (0..times.len())
        .map(|l| (r.patterns.values().map(|t| t.per_location.get(l).copied().unwrap_or(0)).sum(), l))
        .filter(|&(ns, _)| ns > 0)
        .collect();
    per_location.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let _ = writeln!(o);
    let _ = writeln!(o, "worst locations");
    let _ = writeln!(o, "{:>8}  {:>12}  {:>8}  {:<18}  name", "location", "waiting", "of its", "mostly");
    for &(ns, l) in per_location.iter().take(top) {
        let mostly = Pattern::ALL
            .iter()
            .max_by_key(|p| (r.patterns[p.key()].per_location[l], std::cmp::Reverse(**p)))
            .map_or("", |p| p.label());
        let name = location_name(l);
        let _ =
            writeln!(o, "{l:>8}  {:>12}  {:>8}  {mostly:<18}  {}", d(ns), share(ns, times[l]), escape_controls(&name));
    }
    // Regions: the waiting calls by name, all patterns.
    let mut regions: HashMap<&str, u64> = HashMap::new();
    for t in r.patterns.values() {
        for n in &t.by_region {
            *regions.entry(n.name.as_str()).or_default() += n.ns;
        }
    }
    let mut regions: Vec<(&str, u64)> = regions.into_iter().collect();
    regions.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let _ = writeln!(o);
    let _ = writeln!(o, "worst regions");
    let _ = writeln!(o, "{:>12}  {:>8}  region", "waiting", "share");
    for (name, ns) in regions.into_iter().take(top) {
        let _ = writeln!(o, "{:>12}  {:>8}  {}", d(ns), share(ns, total), escape_controls(name));
    }
    if !r.root_causes.is_empty() {
        let _ = writeln!(o);
        let _ = writeln!(
            o,
            "root causes (each wait shared among the regions where its cause spent more time since they last met)"
        );
        let _ = writeln!(o, "{:>12}  {:<18}  {:>8}  {:>8}  region", "cost", "pattern", "waiting", "causing");
        for c in r.root_causes.iter().take(top) {
            let label = Pattern::from_key(c.pattern).map_or(c.pattern, |p| p.label());
            let _ = writeln!(
                o,
                "{:>12}  {:<18}  {:>8}  {:>8}  {}",
                d(c.ns),
                label,
                c.waiting_location,
                c.causing_location,
                escape_controls(&c.name)
            );
        }
    }
    o
}
