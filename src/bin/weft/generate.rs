//! `weft generate otf2 -o DIR --ranks K --events N [--threads-per-rank T] [--metrics M] [--seed S] [--jobs J]`: writes a
//! real OTF2 archive (`DIR/traces.otf2`, `DIR/traces.def`, `DIR/traces/N.evt`) made by
//! `weft::samples::otf2_gen`, for tests and benchmarks that download nothing. Event files are written by
//! `--jobs` threads, one location at a time, streamed chunk by chunk (memory: one chunk per thread). Prints
//! the record counts per kind (`--json`: the official reader's class names as keys).
//! `weft generate nsys -o FILE.sqlite [--ranks K] [--iterations N] [--devices D]`: an Nsight Systems–shaped
//! SQLite export made by `weft::samples::nsys`; prints its counts per kind as JSON.
//!
//! `weft generate hpctoolkit -o DIR [--mb N]` and `weft generate projections -o DIR [--mb N]`: an HPCToolkit
//! database (`samples::hpctoolkit_gen`) or a Charm++ Projections trace (`samples::projections_gen`), the small
//! test fixture, or about N MB. `weft generate paraver -o DIR [--tasks K] [--threads-per-task T] [--mb N]`: a
//! Paraver trace (`DIR/trace.prv`, `.pcf`, `.row`) made by `samples::paraver`.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;
use weft::samples::otf2_gen::{self, GenConfig, GenCounts};

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    format: Format,
}

#[derive(clap::Subcommand)]
enum Format {
    /// An OTF2 archive: MPI ranks with nested regions, ring messages and collectives.
    Otf2(Otf2Args),
    /// An Nsight Systems–shaped SQLite export: CUDA API calls, kernels, copies, NVTX, OS runtime, MPI.
    Nsys(NsysArgs),
    /// An HPCToolkit database (meta.db, profile.db, cct.db, trace.db) of a sampled MPI + threads run.
    Hpctoolkit(FolderArgs),
    /// A Charm++ Projections trace (gen.sts, gen.PE.log[.gz]) of a halo exchange.
    Projections(FolderArgs),
    /// A Paraver trace (trace.prv, .pcf, .row) as Extrae writes for MPI + threads: states, events with
    /// hardware counters, a message per task and iteration, an allreduce.
    Paraver(ParaverArgs),
}

#[derive(clap::Args)]
struct ParaverArgs {
    /// The folder to write (created; files in it are replaced).
    #[arg(short, long)]
    out: PathBuf,
    /// MPI tasks.
    #[arg(long, default_value_t = 4)]
    tasks: u32,
    /// Threads per task (the first is the main thread).
    #[arg(long, default_value_t = 2)]
    threads_per_task: u32,
    /// About this many MB of .prv; 0 writes the small fixture the tests use (10 iterations).
    #[arg(long, default_value_t = 0.0)]
    mb: f64,
}

#[derive(clap::Args)]
struct NsysArgs {
    /// The .sqlite file to write.
    #[arg(short, long)]
    out: PathBuf,
    /// MPI ranks (processes), each with one thread.
    #[arg(long, default_value_t = 4)]
    ranks: u32,
    /// Iterations per rank (each about 10 rows, 470 bytes).
    #[arg(long, default_value_t = 100)]
    iterations: u32,
    /// GPUs the ranks share.
    #[arg(long, default_value_t = 2)]
    devices: u32,
}

fn run_nsys(a: NsysArgs) -> Result<(), Box<dyn std::error::Error>> {
    if a.ranks == 0 || a.devices == 0 {
        return Err("--ranks and --devices must be at least 1".into());
    }
    let (bytes, c) =
        weft::samples::nsys::NsysSample { processes: a.ranks, iterations: a.iterations, devices: a.devices }.generate();
    std::fs::write(&a.out, &bytes).map_err(|e| format!("{}: {e}", a.out.display()))?;
    println!(
        "{}",
        serde_json::to_string(&serde_json::json!({
            "bytes": bytes.len(), "runtime": c.runtime, "kernels": c.kernels, "memcpy": c.memcpy, "memset": c.memset,
            "osrt": c.osrt, "mpi": c.mpi, "nvtx_push_pop": c.nvtx_push_pop, "nvtx_start_end": c.nvtx_start_end,
            "nvtx_marks": c.nvtx_marks, "flows": c.flows, "gpu_streams": c.gpu_streams, "threads": c.threads,
        }))?
    );
    Ok(())
}

#[derive(clap::Args)]
struct FolderArgs {
    /// The folder to write (created; files in it are replaced).
    #[arg(short, long)]
    out: PathBuf,
    /// About this many MB; 0 writes the small fixture the tests use.
    #[arg(long, default_value_t = 0.0)]
    mb: f64,
}

fn write_folder(out: &Path, files: &[(String, Vec<u8>)]) -> Result<(), Box<dyn std::error::Error>> {
    std::fs::create_dir_all(out)?;
    for (n, b) in files {
        std::fs::write(out.join(n), b)?;
    }
    let bytes: usize = files.iter().map(|f| f.1.len()).sum();
    println!("wrote {} files, {:.1} MB, to {}", files.len(), bytes as f64 / 1e6, out.display());
    Ok(())
}

#[derive(clap::Args)]
struct Otf2Args {
    /// The archive folder to write (created; files in it are replaced).
    #[arg(short, long)]
    out: PathBuf,
    /// MPI ranks.
    #[arg(long, default_value_t = 4)]
    ranks: u32,
    /// Locations (threads) per rank; the first calls MPI, the others compute only.
    #[arg(long, default_value_t = 1)]
    threads_per_rank: u32,
    /// About how many event records in all (whole iterations are written).
    #[arg(long, default_value_t = 1_000_000)]
    events: u64,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Event-file chunk size in bytes (256 KiB to 16 MiB, what the official OTF2 library accepts).
    #[arg(long, default_value_t = 1 << 20)]
    chunk_size: u64,
    /// Hardware counters (PAPI-named, at most 6) sampled at every ENTER and LEAVE, one METRIC record each,
    /// as Score-P records PAPI metrics.
    #[arg(long, default_value_t = 0)]
    metrics: u32,
    /// The clock's ticks per second, 1 GHz to 10 GHz: 1000000000 writes ticks that are ns; a cycle counter's
    /// rate (Score-P's default timer, e.g. 2095197216) writes the same times as its ticks, which a reader
    /// converts at every event.
    #[arg(long, default_value_t = 1_000_000_000)]
    resolution: u64,
    /// Threads writing event files (default: the machine's cores).
    #[arg(long)]
    jobs: Option<usize>,
    /// Print the counts as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args) -> Result<(), Box<dyn std::error::Error>> {
    let a = match a.format {
        Format::Otf2(a) => a,
        Format::Nsys(a) => return run_nsys(a),
        Format::Hpctoolkit(f) => {
            use weft::samples::hpctoolkit_gen::{generate, HpctkSpec};
            let spec = if f.mb > 0.0 { HpctkSpec::of_size((f.mb * 1e6) as u64) } else { HpctkSpec::small() };
            let files: Vec<(String, Vec<u8>)> =
                generate(&spec).files.into_iter().map(|(n, b)| (n.to_string(), b)).collect();
            return write_folder(&f.out, &files);
        }
        Format::Paraver(a) => {
            if a.tasks == 0 || a.threads_per_task == 0 {
                return Err("--tasks and --threads-per-task must be at least 1".into());
            }
            let sized = a.mb > 0.0;
            let p = weft::samples::paraver::ParaverSample {
                tasks: a.tasks,
                threads_per_task: a.threads_per_task,
                iterations: if sized { u32::MAX } else { 10 },
                max_bytes: (a.mb * 1e6) as usize,
                ..Default::default()
            }
            .generate();
            let files = [("trace.prv".to_string(), p.prv), ("trace.pcf".into(), p.pcf), ("trace.row".into(), p.row)];
            return write_folder(&a.out, &files);
        }
        Format::Projections(f) => {
            use weft::samples::projections_gen::{generate, ProjSpec};
            let spec = if f.mb > 0.0 { ProjSpec::of_size((f.mb * 1e6) as u64) } else { ProjSpec::small() };
            return write_folder(&f.out, &generate(&spec).files);
        }
    };
    if a.ranks == 0 || a.threads_per_rank == 0 {
        return Err("--ranks and --threads-per-rank must be at least 1".into());
    }
    if a.metrics > otf2_gen::MAX_METRICS {
        return Err(format!("--metrics: at most {}", otf2_gen::MAX_METRICS).into());
    }
    if !(256 << 10..=16 << 20).contains(&a.chunk_size) {
        return Err("--chunk-size must be 256 KiB to 16 MiB (262144 to 16777216 bytes)".into());
    }
    if !otf2_gen::RESOLUTIONS.contains(&a.resolution) {
        return Err("--resolution must be 1 GHz to 10 GHz (1000000000 to 10000000000 ticks per second)".into());
    }
    let cfg = GenConfig {
        ranks: a.ranks,
        threads: a.threads_per_rank,
        events: a.events,
        seed: a.seed,
        chunk_size: a.chunk_size,
        long_wait: false,
        metrics: a.metrics,
        resolution: a.resolution,
        realtime_ns: None,
    };
    let jobs = a.jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())).max(1);
    let started = Instant::now();
    let counts = write_archive(&cfg, &a.out, jobs)?;
    let secs = started.elapsed().as_secs_f64();
    if a.json {
        let mut m = serde_json::Map::new();
        for (k, n) in counts.by_class() {
            m.insert(k.to_string(), n.into());
        }
        println!("{}", crate::json_text(&m)?);
        return Ok(());
    }
    println!("archive     {}", weft::model::text::escape_controls(&a.out.join("traces.otf2").display().to_string()));
    println!("locations   {}", cfg.locations());
    println!("events      {}", counts.events());
    for (k, n) in counts.by_class() {
        println!("  {k:<20} {n}");
    }
    let mb = counts.event_bytes as f64 / 1e6;
    println!("event bytes {} ({:.1} MB/s, {:.2} s, {jobs} threads)", counts.event_bytes, mb / secs, secs);
    Ok(())
}

/// Write the archive into `dir`: event files first (in parallel), then the definitions that count them.
pub fn write_archive(cfg: &GenConfig, dir: &Path, jobs: usize) -> Result<GenCounts, Box<dyn std::error::Error>> {
    let err = |p: &Path, e: std::io::Error| format!("{}: {e}", p.display());
    let evt_dir = dir.join("traces");
    std::fs::create_dir_all(&evt_dir).map_err(|e| err(&evt_dir, e))?;
    let n = cfg.locations();
    let next = AtomicU64::new(0);
    let results: Mutex<Vec<Option<Result<GenCounts, String>>>> = Mutex::new(vec![None; n as usize]);
    std::thread::scope(|s| {
        for _ in 0..jobs.min(n as usize) {
            s.spawn(|| loop {
                let l = next.fetch_add(1, Ordering::Relaxed);
                if l >= n {
                    break;
                }
                let path = evt_dir.join(format!("{l}.evt"));
                let r = (|| {
                    let mut f = BufWriter::with_capacity(1 << 20, File::create(&path)?);
                    let c = otf2_gen::location_events::<std::io::Error>(cfg, l, &mut |chunk| f.write_all(chunk))?;
                    f.flush()?;
                    std::fs::write(evt_dir.join(format!("{l}.def")), otf2_gen::local_defs())?;
                    Ok(c)
                })()
                .map_err(|e: std::io::Error| err(&path, e));
                results.lock().expect("no thread panics holding the lock")[l as usize] = Some(r);
            });
        }
    });
    let mut total = GenCounts::default();
    let mut per_location = Vec::with_capacity(n as usize);
    for r in results.into_inner().expect("threads joined") {
        let c = r.ok_or("a location was not written")??;
        per_location.push(c.events());
        total.add(&c);
    }
    let (defs, records) = otf2_gen::global_defs(cfg, &per_location);
    let def_path = dir.join("traces.def");
    std::fs::write(&def_path, defs).map_err(|e| err(&def_path, e))?;
    // The anchor last: an archive cut short by a failure has no anchor and is not taken for a trace.
    let anchor_path = dir.join("traces.otf2");
    std::fs::write(&anchor_path, otf2_gen::anchor(cfg, records)).map_err(|e| err(&anchor_path, e))?;
    Ok(total)
}
