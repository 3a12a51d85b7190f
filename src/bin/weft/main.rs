//! `weft`: the command-line face of the analysis core. Summaries and analyses as text or `--json`
//! (stable keys), and rendering to SVG/PNG for documentation. Each subcommand lives in its own file.
//! Text output passes trace text (names, file names, messages, errors) through
//! `weft::model::text::escape_controls`, so a trace cannot send escape sequences to the terminal.

mod aggregate;
mod calltree;
mod clusters;
mod critical_path;
mod diff;
mod execgraph;
mod flags;
mod folders;
mod generate;
mod grains;
mod histogram;
mod index;
mod info;
mod io;
mod merge;
mod moments;
#[cfg(feature = "mpi")]
mod mpi;
mod partial;
mod picture;
mod progress;
mod render;
mod render_aggregate;
mod render_moments;
mod render_timeline;
mod selection;
mod store_files;
mod waits;
mod whatif;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "weft", version, about = "Analyse performance traces of parallel programs")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Format, counts, time span and the regions with the most inclusive time.
    Info(info::Args),
    /// Run B compared with run A: span, regions, locations' moments, communication matrix and wait states
    /// of each, their change, and a summary (issue #54).
    Diff(diff::Args),
    /// Moments of utilization per location (m0 busy time, m1 mean, m2 deviation, m3 skew).
    Moments(moments::Args),
    /// Execution graph of a fork/join program: threads, nodes, columns, crossings.
    Execgraph(execgraph::Args),
    /// Grain graph of an OpenMP program (MIR task stats or GraphML): structure, span, problems.
    Grains(grains::Args),
    /// Aggregated grain graph: groups, tree depth and visible node count theta (conservative, per problem).
    Aggregate(aggregate::Args),
    /// Write a view as SVG or PNG (by the output's extension), for documentation.
    Render(render::Args),
    /// Build the tiled store of a trace (docs/store-format.md) that `info` and `moments` also read.
    /// Streams the trace (OTF2 location by location, Chrome JSON and Paraver in chunks) within --memory.
    Index(index::Args),
    /// Join the parts of a sharded index (`weft index --shard K/N`) into one store (docs/cluster.md).
    Merge(merge::Args),
    /// Write a generated trace (a real OTF2 archive of any size) for tests and benchmarks.
    Generate(generate::Args),
    /// The critical path: the chain of work and waits' causes that sets the run's length, by region, by
    /// location and as imbalance (docs/diagnosis.md).
    CriticalPath(critical_path::Args),
    /// Predict the span with regions' time scaled (--scale REGION=0.5): the run replayed, its waits found
    /// again, and the new critical path (docs/diagnosis.md).
    Whatif(whatif::Args),
    /// Wait states of an MPI run (late sender, wait at barrier, ...) per pattern, location and region, and
    /// their root causes (docs/diagnosis.md).
    Waits(waits::Args),
    /// The call tree of a selection (a window, some locations): call paths with count, inclusive and
    /// exclusive time; bottom-up with --inverted; a region's callers and callees (docs/calltree.md).
    Calltree(calltree::Args),
    /// A region's durations on log-spaced bins with percentiles, or the slowest 1 % of every region
    /// (--outliers) (docs/calltree.md).
    Histogram(histogram::Args),
    /// The locations grouped by behaviour (region profile and moments): a representative per cluster, its
    /// size and spread, the outliers, and the grouping in words (docs/clusters.md).
    Clusters(clusters::Args),
    /// Bytes read and written over time, per file and per location, of a trace's I/O intervals (a Darshan
    /// log's DXT segments or per-file records) (docs/io.md).
    Io(io::Args),
}

/// `v` as pretty JSON for `--json`, with the characters a terminal must not get raw (C1 controls such as the
/// 8-bit CSI, bidi overrides, zero-width characters) written as `\uXXXX`, as text output escapes them: names
/// come from the trace (issue 51).
pub(crate) fn json_text<T: serde::Serialize + ?Sized>(v: &T) -> serde_json::Result<String> {
    serde_json::to_string_pretty(v).map(|s| weft::model::text::escape_json_controls(&s).into_owned())
}

/// glibc's `malloc_trim`: the free pages inside the allocator's heaps handed back to the system (between
/// the ranges of a block `weft index` tiles by time range, `index::set_memory_release`).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn return_free_memory() {
    #[allow(unsafe_code)] // the other unsafe block (Cargo.toml [lints])
    // SAFETY: malloc_trim only releases free memory of the allocator's own heaps; it has no preconditions.
    unsafe {
        libc::malloc_trim(0);
    }
}

fn main() -> ExitCode {
    // Like other Unix tools, stop quietly when the reader of our output goes away (`weft info X | head`).
    #[cfg(unix)]
    #[allow(unsafe_code)] // one of the two unsafe blocks (Cargo.toml [lints])
    // SAFETY: setting a signal's disposition to its default before any thread starts has no preconditions.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    weft::index::set_memory_release(return_free_memory);
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Info(a) => info::run(a),
        Command::Diff(a) => diff::run(a),
        Command::Moments(a) => moments::run(a),
        Command::Execgraph(a) => execgraph::run(a),
        Command::Grains(a) => grains::run(a),
        Command::Aggregate(a) => aggregate::run(a),
        Command::Render(a) => render::run(a),
        Command::Generate(a) => generate::run(a),
        Command::Index(a) => index_here_or_by_ranks(a),
        Command::Merge(a) => merge::run(a),
        Command::CriticalPath(a) => critical_path::run(a),
        Command::Whatif(a) => whatif::run(a),
        Command::Waits(a) => waits::run(a),
        Command::Calltree(a) => calltree::run(a),
        Command::Histogram(a) => histogram::run(a),
        Command::Clusters(a) => clusters::run(a),
        Command::Io(a) => io::run(a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("weft: {}", weft::model::text::escape_controls_lines(&e.to_string()));
            ExitCode::FAILURE
        }
    }
}

/// `weft index`: by the MPI ranks when an MPI launcher started this process (`mpi.rs`, which uses `index`'s
/// reading and streaming), else in this process.
fn index_here_or_by_ranks(a: index::Args) -> Result<(), Box<dyn std::error::Error>> {
    #[cfg(feature = "mpi")]
    if let Some(universe) = mpi::launched() {
        return mpi::index(universe, &a);
    }
    index::run(a)
}
