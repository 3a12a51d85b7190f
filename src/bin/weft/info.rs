//! `weft info FILE [MORE ...] [--json] [--window T0:T1]`: the trace's summary and its region profile (count, inclusive,
//! exclusive time and share per region, `analyses::profile`: the table the page's timeline selection shows),
//! of the whole trace or of a window (the syntax of `weft moments --window`). `--json` prints the summary's
//! stable keys plus `regions` (every region with an interval in the window: `name`, `count`, `inclusive_ns`,
//! `exclusive_ns`, `share`, `region`) and, with a window, `window` {`start_ns`, `end_ns`}. Text output escapes
//! control characters in trace text (names, file names, warning examples): a trace must not be able to drive
//! the terminal.
//! Both outputs also give the communication matrix of point-to-point messages by process
//! (`analyses::comm_matrix`, the page's matrix panel): `--json` as `comm_matrix` {`unit`, `senders`,
//! `receivers`, `bytes`, `count`, `ids`} (of the window, by send time, when one is given); text as counts and
//! bytes for at most 16 processes (more: the totals of a window, or where the matrix is).

use std::path::PathBuf;
use weft::analyses::comm_matrix::{comm_matrix, CommMatrix, MatrixUnit};
use weft::analyses::info::{InfoReport, TOP_REGIONS};
use weft::analyses::moments::TimeWindow;
use weft::model::text::escape_controls as esc;
use weft::model::WarningEffect;
use weft::readers::open_path;

#[derive(clap::Args)]
pub struct Args {
    /// The trace file, or a store folder written by `weft index`.
    file: PathBuf,
    /// Files given with it: the Darshan log of the same job (or the trace, when the first is the log), its I/O
    /// put onto the trace's ranks by job start (docs/io.md); or the other traces of one run (OTF2 archives,
    /// Chrome/Kineto JSON or Perfetto traces), each file a rank (docs/io.md, "Several files as one run").
    with: Vec<PathBuf>,
    /// Print JSON with stable keys instead of text.
    #[arg(long)]
    json: bool,
    /// Profile only this time window, `T0:T1` from the trace's first event (units ns, us, ms, s; default ns).
    #[arg(long)]
    window: Option<String>,
}

pub fn run(a: Args) -> Result<(), Box<dyn std::error::Error>> {
    let window = a.window.as_deref().map(TimeWindow::parse).transpose()?;
    // The JSON's report (`analyses::info`, which the Python package's `info()` gives too); the text prints
    // from the same parts.
    let report = match crate::folders::open_store(&a.file) {
        // A store (weft index): the summary from its manifest, without reading the events; the profile (JSON
        // or a window) needs exclusive times, which the manifest does not hold: from the decoded tiles.
        Some(store) => {
            let e = |e| crate::folders::store_error(&a.file, e);
            let store = store.map_err(e)?;
            let s = store.summary(TOP_REGIONS).map_err(e)?;
            // The text shows the matrix of a few processes: decoded for it too, so a store prints what its
            // trace prints.
            if a.json || window.is_some() {
                InfoReport::with_summary(s, &store.to_trace().map_err(e)?, window)
            } else if s.processes <= MATRIX_TEXT_MAX {
                let trace = store.to_trace().map_err(e)?;
                let matrix = comm_matrix(&trace, window, MatrixUnit::Process);
                InfoReport { summary: s, window: None, regions: Vec::new(), comm_matrix: Some(matrix) }
            } else {
                InfoReport { summary: s, window: None, regions: Vec::new(), comm_matrix: None }
            }
        }
        None => {
            let input = if a.with.is_empty() {
                open_path(&a.file)?
            } else {
                let mut all = vec![a.file.clone()];
                all.extend(a.with.iter().cloned());
                weft::readers::open_paths(&all)?
            };
            InfoReport::of_trace(&input.into_trace(&a.file.display().to_string())?, window)
        }
    };
    if a.json {
        println!("{}", crate::json_text(&report)?);
        return Ok(());
    }
    let InfoReport { summary: s, regions, comm_matrix: matrix, .. } = report;
    println!("file        {}", esc(&a.file.display().to_string()));
    println!("format      {}", s.format);
    println!("span        {}", format_ns(s.span_ns));
    println!("processes   {}", s.processes);
    println!("locations   {}", s.locations);
    println!("events      {}", s.events);
    println!("intervals   {}", s.intervals);
    println!("messages    {}", s.messages);
    if s.flows > 0 {
        println!("flows       {}", s.flows);
    }
    if s.collectives > 0 {
        println!("collectives {}", s.collectives);
    }
    if s.instants > 0 {
        println!("instants    {}", s.instants);
    }
    if s.counters > 0 {
        println!("counters    {}", s.counters);
    }
    if s.warnings == 0 {
        println!("warnings    0");
    } else {
        println!(
            "warnings    {} ({} data left out, {} repaired)",
            s.warnings, s.warnings_left_out, s.warnings_repaired
        );
    }
    for effect in [WarningEffect::LeftOut, WarningEffect::Repaired] {
        let groups: Vec<_> = s.warning_kinds.iter().filter(|g| g.effect == effect).collect();
        if groups.is_empty() {
            continue;
        }
        println!(
            "  {}",
            match effect {
                WarningEffect::LeftOut => "data left out (not shown):",
                WarningEffect::Repaired => "repaired (everything read is shown):",
            }
        );
        for g in groups {
            println!("  {:>9}  {:<18}  {}", g.count, g.kind.name(), g.meaning);
            for e in &g.examples {
                println!("  {:>9}  {:<18}  e.g. {}", "", "", esc(e));
            }
        }
    }
    // The matrix of a window, or of the whole trace of a few processes; more processes: where it is. (A
    // store's whole matrix would need every tile decoded.)
    match matrix.as_ref().filter(|m| m.messages() > 0) {
        Some(m) if window.is_some() || s.processes <= MATRIX_TEXT_MAX => print_matrix(m, window.is_some()),
        _ if window.is_none() && s.messages > 0 && s.processes > MATRIX_TEXT_MAX => {
            println!();
            println!("comm matrix (more than {MATRIX_TEXT_MAX} processes: the matrix is in --json)");
        }
        _ => {}
    }
    if let Some(w) = window {
        println!();
        println!(
            "window      {} .. {} from the first event ({})",
            format_ns(w.start_ns),
            format_ns(w.end_ns),
            format_ns(w.len_ns())
        );
        if regions.is_empty() {
            println!("            no interval in this window");
            return Ok(());
        }
        println!("{:>14}  {:>14}  {:>6}  {:>9}  region", "inclusive", "exclusive", "share", "count");
        for r in &regions {
            println!(
                "{:>14}  {:>14}  {:>5.1}%  {:>9}  {}",
                format_ns(r.inclusive_ns),
                format_ns(r.exclusive_ns),
                r.share * 100.0,
                r.count,
                esc(&r.name)
            );
        }
    } else if !s.top_regions.is_empty() {
        // The whole trace: the summary's top regions (a store's come from its manifest; --json lists every
        // region with its exclusive time too).
        println!();
        println!("{:>14}  {:>9}  region", "inclusive", "count");
        for r in &s.top_regions {
            println!("{:>14}  {:>9}  {}", format_ns(r.inclusive_ns), r.count, esc(&r.name));
        }
    }
    Ok(())
}

/// Processes up to this many get the communication matrix in the text output (more: only the totals).
const MATRIX_TEXT_MAX: usize = 16;

/// The communication matrix as text: message counts, then bytes, sender (row) by receiver (column); past
/// [`MATRIX_TEXT_MAX`] processes only the totals (`--json` has the whole matrix).
fn print_matrix(m: &CommMatrix, windowed: bool) {
    let scope = if windowed { "sent in the window" } else { "sent" };
    println!();
    println!(
        "comm matrix {} messages, {} {scope}, between {} processes",
        m.messages(),
        format_bytes(m.total_bytes()),
        m.senders.len()
    );
    if m.senders.len() > MATRIX_TEXT_MAX {
        println!("            (more than {MATRIX_TEXT_MAX} processes: the matrix is in --json)");
        return;
    }
    for (n, (title, cells)) in [("messages", &m.count), ("bytes", &m.bytes)].into_iter().enumerate() {
        let cell = |v: u64| {
            if v == 0 {
                ".".to_string()
            } else if n == 0 {
                v.to_string()
            } else {
                format_bytes(v)
            }
        };
        let w =
            cells.iter().flatten().map(|&v| cell(v).len()).max().unwrap_or(1).max(m.senders.len().to_string().len());
        println!("  {title}: sender (row) to receiver (column)");
        let head: Vec<String> = (0..m.receivers.len()).map(|k| format!("{k:>w$}")).collect();
        println!("  {:>3}  {}", "", head.join(" "));
        for (k, row) in cells.iter().enumerate() {
            let line: Vec<String> = row.iter().map(|&v| format!("{:>w$}", cell(v))).collect();
            println!("  {k:>3}  {}  {}", line.join(" "), esc(&m.senders[k]));
        }
    }
}

/// Bytes in B, KiB, MiB or GiB (one decimal past B).
fn format_bytes(b: u64) -> String {
    const UNITS: [&str; 4] = ["B", "KiB", "MiB", "GiB"];
    let mut v = b as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{b} B")
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

/// A duration in the largest unit that keeps it at least one (the page's format too).
pub use weft::scene::timeline::format_duration as format_ns;
