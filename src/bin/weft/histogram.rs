//! `weft histogram TRACE|STORE --region NAME [--json] [--bins N] [--window T0:T1] [--locations LIST]`: the
//! durations of a region's instances (every region of that name) on log-spaced bins, with nearest-rank
//! percentiles (`analyses::histogram`, definitions in docs/calltree.md). `--json` prints `{"region", "count",
//! "min_ns", "p50_ns", "p90_ns", "p99_ns", "max_ns", "bins": [{"lo_ns", "hi_ns", "count"}]}` (a bin holds
//! durations in [lo_ns, hi_ns)). `weft histogram TRACE --outliers [--limit N]`: the slowest 1 % of every
//! region, `{"outliers": [{"region", "count", "p99_ns", "outliers", "slowest": [{"location", "start_ns",
//! "dur_ns"}]}]}`. A store is decoded whole.

use crate::selection::Selection;
use std::path::PathBuf;
use weft::analyses::histogram::{
    durations, histogram, outliers, Histogram, HistogramJson, OutliersJson, RegionOutliers, DEFAULT_BINS, MAX_BINS,
};
use weft::model::text::escape_controls as esc;
use weft::model::{RegionId, Trace};

#[derive(clap::Args)]
pub struct Args {
    /// The trace file, or a store folder written by `weft index`.
    file: PathBuf,
    /// The region whose durations to show (every region of this name).
    #[arg(long, required_unless_present = "outliers")]
    region: Option<String>,
    /// Print JSON with stable keys instead of text.
    #[arg(long)]
    json: bool,
    /// Log-spaced bins (1 to 1000; fewer where the durations span fewer whole nanoseconds).
    #[arg(long, default_value_t = DEFAULT_BINS as u32, value_parser = clap::value_parser!(u32).range(1..=MAX_BINS as i64))]
    bins: u32,
    /// Only instances that count in this time window, `T0:T1` from the trace's first event (units ns, us, ms,
    /// s; default ns).
    #[arg(long)]
    window: Option<String>,
    /// Only these locations: indices and ranges, `0,3,8-15`.
    #[arg(long)]
    locations: Option<String>,
    /// The slowest 1 % of every region instead of one region's histogram.
    #[arg(long, conflicts_with = "region")]
    outliers: bool,
    /// With --outliers: at most this many instances listed per region.
    #[arg(long, default_value_t = 5)]
    limit: usize,
}

pub fn run(a: Args) -> Result<(), Box<dyn std::error::Error>> {
    let window = Selection::window(a.window.as_deref())?;
    let file = a.file.display().to_string();
    let trace = crate::folders::read_trace_or_store(&a.file)?;
    let sel = Selection::new(a.locations.as_deref(), &trace, &file)?;
    let Some(name) = a.region.as_deref() else {
        let rows = outliers(&trace, window, |l| sel.keep(l), a.limit);
        if a.json {
            println!("{}", crate::json_text(&OutliersJson::new(&trace, &rows))?);
        } else {
            print_outliers(&trace, &rows);
        }
        return Ok(());
    };
    let named: Vec<bool> = (0..trace.regions.len() as u32).map(|r| trace.region_name(RegionId(r)) == name).collect();
    if !named.contains(&true) {
        return Err(format!("{file}: no region named '{name}'").into());
    }
    let h = histogram(durations(&trace, window, |l| sel.keep(l), |r| named[r.index()]), a.bins as usize);
    if a.json {
        println!("{}", crate::json_text(&HistogramJson::new(name, &h))?);
    } else {
        print_histogram(name, &h);
    }
    Ok(())
}

/// The bins as bars of `#` scaled to the fullest bin.
fn print_histogram(name: &str, h: &Histogram) {
    println!("region      {}", esc(name));
    println!("count       {}", h.count);
    if h.count == 0 {
        return;
    }
    println!(
        "min {}  p50 {}  p90 {}  p99 {}  max {}",
        fmt(h.min_ns),
        fmt(h.p50_ns),
        fmt(h.p90_ns),
        fmt(h.p99_ns),
        fmt(h.max_ns)
    );
    let most = h.bins.iter().map(|b| b.count).max().unwrap_or(1).max(1);
    for b in &h.bins {
        let bar = "#".repeat(((b.count as f64 / most as f64) * 40.0).ceil() as usize);
        println!("{:>12} .. {:<12} {:>9}  {bar}", fmt(b.lo_ns), fmt(b.hi_ns), b.count);
    }
}

fn print_outliers(trace: &Trace, rows: &[RegionOutliers]) {
    println!(
        "{:>14}  {:>14}  {:>9}  {:>8}  region: its slowest 1 % (location @ start)",
        "slowest", "p99", "count", "1 %"
    );
    for o in rows {
        let top = o.slowest.first().map_or(0, |s| s.dur_ns);
        println!(
            "{:>14}  {:>14}  {:>9}  {:>8}  {}",
            fmt(top),
            fmt(o.p99_ns),
            o.count,
            o.outliers,
            esc(trace.region_name(o.region))
        );
        for s in &o.slowest {
            println!(
                "{:>14}  {:>14}  {:>9}  {:>8}    location {} @ {}",
                fmt(s.dur_ns),
                "",
                "",
                "",
                s.location.0,
                fmt(s.start_ns)
            );
        }
    }
}

use crate::info::format_ns as fmt;
