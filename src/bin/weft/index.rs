//! `weft index TRACE -o STORE/ [--threads N] [--memory SIZE] [--block N] [--force] [--shard K/N]`: builds
//! the tiled store of a trace (docs/store-format.md) and writes it under a temporary name in the same folder,
//! renamed to STORE last (`folders`), so an index killed midway leaves nothing that looks complete. With
//! `--shard K/N` it writes a part for `weft merge` (docs/cluster.md); built with `--features mpi` and launched
//! by `mpirun` or `srun`, the ranks write one store together (`mpi.rs`, which `main` dispatches to; this
//! module does not know it).
//!
//! OTF2 is streamed location by location (`index::stream`): memory holds one location's events, the compact
//! message ends and collective parts up to a twelfth of `--memory` (past it they go to a second spill
//! file in sorted runs, matched by merging them: `readers::otf2::ends`) and the blocks being tiled (as many
//! as `--memory` allows, at most `--threads`); the matched messages, collective rows and particle-view
//! intervals go to the first spill file in sorted runs and block files (`index::comms`) and are read back a
//! block (and a page of each run) at a time; the first pass's nested intervals
//! are kept as pass 2's columns while they take at most an eighth of `--memory`, else they go to a spill
//! file in the partial folder. Chrome JSON and Paraver (plain or
//! gzipped) are read in 1 MiB chunks (`index::stream::index_chrome`, `index_paraver`), their per-location
//! records spilled to a second file there as they come and read back a location at a time (one longer than
//! `--memory` allows is refused, naming the memory that fits it). A refused or failed index leaves no partial
//! folder behind. A shard (`--shard K/N`) of these three streams the
//! same way, decoding every location (messages are matched whole) but spilling and tiling only its own
//! location blocks (shard 0 spills all, for the particle tiles); under `mpirun` each rank decodes only its
//! own OTF2 locations (`mpi.rs`, `weft::index::shard::exchange`). Other inputs are read whole through the
//! ordinary readers, held to `--memory` by an estimate made before reading, then tiled on `--threads`
//! threads. A progress bar is drawn on stderr when it is a terminal.

use crate::folders::{finish_store, partial_folder, shown, write_files, write_folder};
use crate::progress::Progress;
use std::path::{Path, PathBuf};
use std::time::Instant;
use weft::index::{build, build_part, BuildOptions, PartManifest, Shard, PART_MANIFEST};
use weft::readers::budget::{human_bytes, Budget};
use weft::store::MANIFEST;

#[derive(clap::Args)]
pub struct Args {
    /// The trace (an OTF2 anchor or folder, a Chrome JSON file, a Paraver .prv).
    pub trace: PathBuf,
    /// The store folder to write.
    #[arg(short, long)]
    pub out: PathBuf,
    /// Threads (the store is the same for any count): tiling location blocks; reading OTF2, 2 or more decode
    /// locations ahead of their turn (or, locations too long for that, 2 decode and nest side by side). By default the cores this process
    /// may use (its CPU affinity and quota), and 1 under an MPI launcher (the ranks of a node share its
    /// cores: give `--threads` there, as docs/cluster.md does).
    #[arg(long)]
    threads: Option<usize>,
    /// Memory the index may use (`2G`, `512M`): OTF2, Chrome JSON and Paraver are streamed within it (whole
    /// or a shard; a block of locations is tiled whole when it fits, about 50 to 70 bytes an interval with its
    /// messages, else by time range, a range of its windows at a time, whatever its locations' length: only a
    /// single window too full for it is refused, naming the memory that fits it; a Chrome JSON or Paraver
    /// location is read back whole, about 80 bytes a record, at most three quarters of it, else refused with
    /// the memory that fits it); other inputs are read whole,
    /// and refused before reading when that would need more (about 3x their size on disk).
    #[arg(long, default_value = "2G")]
    memory: String,
    /// Locations per block (tiles cover one block of locations over one time window).
    #[arg(long, default_value_t = 64)]
    block: u32,
    /// About how many intervals a level-0 tile of the busiest block holds (sets the time windows' length:
    /// smaller tiles are fetched faster, more of them per view).
    #[arg(long, default_value_t = 1 << 18, value_parser = clap::value_parser!(u64).range(256..))]
    tile_intervals: u64,
    /// Replace STORE if it exists.
    #[arg(long)]
    pub force: bool,
    /// Index only shard K of N (0-based; location blocks split in N contiguous ranges) into a part folder
    /// for `weft merge` (docs/cluster.md). A shard still decodes every location of an OTF2 archive (it
    /// tiles only its own); under `mpirun` (a `--features mpi` build) each rank decodes only its own.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<String>,
    /// Also compute the wait states (issue #53) into the store, so `weft waits STORE` reads them instead of
    /// the trace: the last step, from the store's own level-0 tiles (with
    /// `--shard`, each part records it and `weft merge` computes them when every part asked). Within
    /// --memory: its lists (per message, collective member and wait) are sorted in runs in the spill past a
    /// sixteenth of it each (at least 1 MB in all, else refused naming it); it takes several times the
    /// tiling's time.
    #[arg(long)]
    pub waits: bool,
}

/// Bytes the whole read of a trace takes, per byte of input (model columns plus the files held while read).
const MEMORY_PER_INPUT_BYTE: u64 = 3;

/// The trace read for indexing, and what the build needs.
pub struct ReadTrace {
    pub trace: weft::model::Trace,
    pub options: BuildOptions,
    /// Bytes of the input on disk.
    pub input: u64,
    pub read_s: f64,
}

/// Variables that mpirun (Open MPI, MPICH/Hydra) or srun (PMI, PMIx) set in each rank's environment.
pub(crate) const LAUNCHER_VARIABLES: [&str; 5] =
    ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMI_RANK", "PMIX_RANK", "MPI_LOCALNRANKS"];

impl Args {
    /// `--threads`, else the cores this process may use, or 1 when an MPI launcher started it.
    pub(crate) fn threads(&self) -> usize {
        let default = || match LAUNCHER_VARIABLES.iter().any(|v| std::env::var_os(v).is_some()) {
            true => 1,
            false => std::thread::available_parallelism().map_or(1, |n| n.get()),
        };
        self.threads.unwrap_or_else(default).max(1)
    }
}

/// `--memory`'s default (`2G`), for what adds the wait states without the flag (`weft merge`).
pub(crate) const DEFAULT_MEMORY: u64 = 2 << 30;

pub fn run(a: Args) -> Result<(), Box<dyn std::error::Error>> {
    let shard = a.shard.as_deref().map(Shard::parse).transpose()?;
    // Before any thread starts: a run interrupted removes its partial folder.
    crate::partial::catch_signals();
    let progress = Progress::new();
    // An OTF2 archive is streamed location by location, Chrome JSON and Paraver in chunks (whole or a shard).
    let streamed = index_otf2_streamed(&a, shard, &progress).and_then(|done| match done {
        true => Ok(true),
        false => index_chunked(&a, shard, &progress),
    });
    match streamed {
        Ok(true) => return Ok(()),
        Ok(false) => {}
        Err(e) => {
            // A refusal (--memory) says what was held when it came.
            print_peak_memory();
            return Err(e);
        }
    }
    // A refusal of the whole read (--memory) says what was held when it came too.
    let ReadTrace { trace, options, input, read_s } = read(&a, &progress).inspect_err(|_| print_peak_memory())?;
    let t1 = Instant::now();
    if let Some(shard) = shard {
        let part = build_part(&trace, &options, shard);
        let tile_s = t1.elapsed().as_secs_f64();
        drop(trace);
        let t2 = Instant::now();
        write_folder(&a.out, a.force, |tmp| {
            write_files(tmp, &part.tiles, &progress, PART_MANIFEST, &part.part.to_json())
        })?;
        progress.clear();
        let p = &part.part;
        println!(
            "part        {} (shard {}/{}, blocks {}..{})",
            shown(&a.out),
            p.shard,
            p.shards,
            p.blocks[0],
            p.blocks[1]
        );
        println!("intervals   {}", p.store.counts.intervals);
        println!("tiles       {}", p.store.tiles.len());
        let bytes: u64 = part.tiles.iter().map(|(_, b)| b.len() as u64).sum();
        println!("bytes       {bytes} (input {input})");
        println!("seconds     read {read_s:.2}, tile {tile_s:.2}, write {:.2}", t2.elapsed().as_secs_f64());
        return Ok(());
    }
    // The wait states (`--waits`) once the trace is dropped, from the tiles written, within --memory (their
    // sorts' runs in a spill file in the folder, as `weft merge` adds them).
    let memory = memory_flag(&a)?;
    if options.waits {
        if let Some(why) = weft::index::waits::too_little(memory) {
            return Err(format!("{}: {why}", a.trace.display()).into());
        }
    }
    let mut store = build(&trace, &BuildOptions { waits: false, ..options.clone() });
    let tile_s = t1.elapsed().as_secs_f64();
    drop(trace);
    let t2 = Instant::now();
    let mut waits_bytes = 0;
    write_folder(&a.out, a.force, |tmp| {
        write_files(tmp, &store.tiles, &progress, MANIFEST, &store.manifest_json())?;
        if options.waits {
            progress.say("wait states");
            let before = store.manifest.tiles.len();
            crate::merge::add_waits_in(&mut store.manifest, tmp, memory)?;
            waits_bytes = store.manifest.tiles[before..].iter().map(|e| e.bytes).sum::<u64>();
            let p = tmp.join(MANIFEST);
            std::fs::write(&p, store.manifest_json()).map_err(|e| format!("{}: {e}", p.display()))?;
        }
        Ok(())
    })?;
    let write_s = t2.elapsed().as_secs_f64();
    progress.clear();
    print_report(&a.out, &store.manifest, store.total_bytes() + waits_bytes, input);
    println!("seconds     read {read_s:.2}, tile {tile_s:.2}, write {write_s:.2}");
    print_peak_memory();
    Ok(())
}

/// Check the flags and the memory the read needs, then read the trace.
pub fn read(a: &Args, progress: &Progress) -> Result<ReadTrace, Box<dyn std::error::Error>> {
    let memory = memory_flag(a)?;
    if a.out.exists() && !a.force {
        return Err(format!("{}: exists (use --force to replace it)", a.out.display()).into());
    }
    let input = input_bytes(&a.trace);
    let need = input.saturating_mul(MEMORY_PER_INPUT_BYTE);
    if need > memory {
        return Err(format!(
            "{}: {} MB on disk needs about {} MB to index whole, over --memory {} MB (raise --memory)",
            a.trace.display(),
            input >> 20,
            need >> 20,
            memory >> 20
        )
        .into());
    }
    let started = Instant::now();
    progress.say(&format!("reading {}", a.trace.display()));
    // The readers hold to --memory too: what a small input expands to (a deep HPCToolkit tree, a gzipped log)
    // is refused with the budget's message naming the file before it is allocated.
    let trace = Budget::for_memory(memory)
        .scope(|| weft::readers::open_path(&a.trace)?.into_trace(&a.trace.display().to_string()))?;
    let read_s = started.elapsed().as_secs_f64();
    progress.say(&format!("tiling {} intervals on {} threads", trace.intervals.len(), a.threads()));
    let options = BuildOptions {
        block_locations: a.block.max(1),
        tile_intervals: a.tile_intervals,
        threads: a.threads(),
        source_name: a.trace.display().to_string(),
        waits: a.waits,
        ..BuildOptions::default()
    };
    Ok(ReadTrace { trace, options, input, read_s })
}

/// The build options and the `--memory` bytes of a streamed index.
pub fn stream_options(a: &Args) -> Result<(BuildOptions, u64), String> {
    let memory = memory_flag(a)?;
    let options = BuildOptions {
        block_locations: a.block.max(1),
        tile_intervals: a.tile_intervals,
        threads: a.threads(),
        source_name: a.trace.display().to_string(),
        waits: a.waits,
        ..BuildOptions::default()
    };
    Ok((options, memory))
}

/// Index an OTF2 archive streamed (`index::stream`) and print its report: false when the trace is not an OTF2
/// archive, or one that must be read whole.
fn index_otf2_streamed(
    a: &Args,
    shard: Option<Shard>,
    progress: &Progress,
) -> Result<bool, Box<dyn std::error::Error>> {
    let (options, memory) = stream_options(a)?;
    if a.out.exists() && !a.force {
        return Err(format!("{}: exists (use --force to replace it)", a.out.display()).into());
    }
    let input = input_bytes(&a.trace);
    let started = Instant::now();
    if let Some(archive) = weft::readers::otf2::archive_of_path(&a.trace) {
        let (files, anchor) = archive?;
        match index_streamed(a, &files, &anchor, &options, shard, memory, progress)? {
            Some(done) => {
                progress.clear();
                let m = &done.manifest;
                match &done.part {
                    Some(p) => print_part(&a.out, p, done.bytes, input),
                    None => print_report(&a.out, m, done.bytes, input),
                }
                println!(
                    "seconds     {:.2} (read and spill {:.2}, tile and write {:.2}; {} blocks at once, the busiest \
                     estimated at {} MB{})",
                    started.elapsed().as_secs_f64(),
                    done.read_s,
                    done.tile_s,
                    done.in_flight,
                    done.busiest_block_bytes >> 20,
                    by_range(done.ranged_blocks)
                );
                println!("steps       {}", done.steps);
                println!(
                    "spill       {} bytes (and {} of messages, particles and counter samples)",
                    done.spill_bytes, done.runs_bytes
                );
                print_peak_memory();
                return Ok(true);
            }
            None => progress.say("two definitions of one location: reading the archive whole"),
        }
    }
    Ok(false)
}

/// Bytes read at a time from a trace indexed in chunks.
const CHUNK_BYTES: usize = 1 << 20;

/// Index a Chrome JSON trace (plain or gzipped) or a Paraver .prv (plain or gzipped, its .pcf and .row
/// beside it) in chunks (`index::stream::index_chrome`, `index_paraver`) and print its report: false when
/// the file is neither.
fn index_chunked(a: &Args, shard: Option<Shard>, progress: &Progress) -> Result<bool, Box<dyn std::error::Error>> {
    let Some(kind) = chunked_kind(&a.trace)? else { return Ok(false) };
    if a.out.exists() && !a.force {
        return Err(format!("{}: exists (use --force to replace it)", a.out.display()).into());
    }
    let (options, memory) = stream_options(a)?;
    let input = input_bytes(&a.trace);
    let started = Instant::now();
    let tmp = partial_folder(&a.out)?;
    // A refused or failed index leaves no partial folder (nor its spills) behind.
    let mut partial = RemovedUnlessKept(Some(tmp.clone()));
    let (spill_path, events_path) = (tmp.join(".spill"), tmp.join(".events"));
    let done = chunked_into(&a.trace, kind, &options, shard, memory, progress, &tmp, &spill_path, &events_path)?;
    let indexed = done.indexed;
    let built = weft::index::BuiltStore { manifest: indexed.manifest, tiles: Vec::new() };
    let (file, json) = match &indexed.part {
        Some(p) => (PART_MANIFEST, p.to_json()),
        None => (MANIFEST, built.manifest_json()),
    };
    finish_store(&tmp, &a.out, file, &json, a.force)?;
    partial.0 = None;
    progress.clear();
    let bytes = done.bytes + json.len() as u64;
    match &indexed.part {
        Some(p) => print_part(&a.out, p, bytes, input),
        None => print_report(&a.out, &built.manifest, bytes, input),
    }
    println!(
        "seconds     {:.2} (read and spill {:.2}, tile and write {:.2}; {} blocks at once, the busiest estimated \
         at {} MB{})",
        started.elapsed().as_secs_f64(),
        done.read_s,
        started.elapsed().as_secs_f64() - done.read_s,
        indexed.blocks_in_flight,
        indexed.busiest_block_bytes >> 20,
        by_range(indexed.ranged_blocks)
    );
    println!("steps       {}", done.steps);
    println!(
        "spill       {} bytes (and {} of messages, particles and counter samples)",
        indexed.spill_bytes, indexed.runs_bytes
    );
    print_peak_memory();
    Ok(true)
}

/// What `trace` is when it is indexed in chunks (Chrome JSON, Paraver, either gzipped); None otherwise.
pub fn chunked_kind(trace: &Path) -> Result<Option<weft::readers::sniff::Sniffed>, String> {
    use weft::readers::sniff::{sniff, Sniffed};
    if !std::fs::metadata(trace).is_ok_and(|m| m.is_file()) {
        return Ok(None);
    }
    let mut head = Vec::with_capacity(64 << 10);
    let file = std::fs::File::open(trace).map_err(|e| format!("{}: {e}", trace.display()))?;
    std::io::Read::read_to_end(&mut std::io::Read::take(file, 64 << 10), &mut head)
        .map_err(|e| format!("{}: {e}", trace.display()))?;
    let sniffed = sniff(&head);
    Ok(matches!(sniffed, Sniffed::ChromeJson | Sniffed::Gzip | Sniffed::Paraver | Sniffed::ParaverGz)
        .then_some(sniffed))
}

/// A chunked index's outcome ([`chunked_into`]).
pub struct Chunked {
    pub indexed: weft::index::stream::Indexed,
    /// Bytes of the tiles written.
    pub bytes: u64,
    pub read_s: f64,
    /// Each step's seconds (`Steps::line`).
    pub steps: String,
}

/// When each step of a streamed index began, for the report's breakdown: the read from the start, then
/// (an MPI rank) the replay of the ranks' logs, each [`Progress::Step`](weft::index::stream::Progress::Step)
/// and the blocks' tiling, each from its first report.
struct Steps {
    t0: Instant,
    began: std::sync::Mutex<Vec<(&'static str, f64)>>,
}

impl Steps {
    fn new() -> Steps {
        Steps { t0: Instant::now(), began: std::sync::Mutex::new(vec![("read", 0.0)]) }
    }

    /// Step `name` is under way (it began now, unless it is the step under way already).
    fn enter(&self, name: &'static str) {
        let mut b = self.began.lock().expect("steps lock");
        if b.last().is_none_or(|s| s.0 != name) {
            b.push((name, self.t0.elapsed().as_secs_f64()));
        }
    }

    /// When step `name` began (seconds from the start), if it did.
    fn began(&self, name: &str) -> Option<f64> {
        self.began.lock().expect("steps lock").iter().find(|s| s.0 == name).map(|s| s.1)
    }

    /// `read 0.70, matching 0.24, ...`: each step's seconds until the next began, the last one's until now.
    fn line(&self) -> String {
        let b = self.began.lock().expect("steps lock");
        let now = self.t0.elapsed().as_secs_f64();
        let ends = b.iter().skip(1).map(|s| s.1).chain([now]);
        b.iter().zip(ends).map(|(s, end)| format!("{} {:.2}", s.0, end - s.1)).collect::<Vec<_>>().join(", ")
    }
}

/// The chunked index of a Chrome JSON or Paraver file `trace` (of `kind`, [`chunked_kind`]), or of a shard
/// of it, its tiles written into the folder `tmp`, its spills at `spill_path`, `events_path`, and
/// `spill_path` + `.samples` and `.messages` (removed at the end); the manifest is not written. Also each
/// MPI rank's share (`mpi.rs`), into the store's shared folder (every rank reads the file in chunks, within
/// `--memory`, and tiles its own blocks).
#[allow(clippy::too_many_arguments)]
pub fn chunked_into(
    trace: &Path,
    kind: weft::readers::sniff::Sniffed,
    options: &BuildOptions,
    shard: Option<Shard>,
    memory: u64,
    progress: &Progress,
    tmp: &Path,
    spill_path: &Path,
    events_path: &Path,
) -> Result<Chunked, Box<dyn std::error::Error>> {
    use weft::index::stream::{index_chrome, index_paraver, Progress as P, ReadSpills, StreamOptions};
    use weft::readers::sniff::Sniffed;
    let input = input_bytes(trace);
    let started = Instant::now();
    let open = || std::fs::File::open(trace).map_err(|e| format!("{}: {e}", trace.display()));
    let mut spill = FileSpill::create(spill_path, 0)?;
    // The counter samples' and the messages' sorted runs (files beside the spill, removed with it: each MPI
    // rank has its own).
    let beside = |ext: &str| {
        let mut p = spill_path.as_os_str().to_owned();
        p.push(ext);
        PathBuf::from(p)
    };
    let (samples_path, messages_path) = (beside(".samples"), beside(".messages"));
    let spills = ReadSpills {
        events: Box::new(weft::index::spill::ReaderSpill(FileSpill::create(events_path, 0)?)),
        samples: Box::new(FileSpill::create(&samples_path, 0)?),
        messages: Box::new(FileSpill::create(&messages_path, 0)?),
    };
    let sink = FolderSink::new(tmp);
    let o =
        StreamOptions { build: options.clone(), memory, event_buffer: 0, shard, held: 0, runs: 0, range_intervals: 0 };
    let steps = Steps::new();
    let report = |p: P| match p {
        P::ReadingBytes { done, total } => progress.bar("reading", (done >> 20) as usize, (total >> 20) as usize, "MB"),
        P::Reading { .. } | P::Replaying { .. } => {}
        P::Step(s) => {
            steps.enter(s.name());
            progress.say(s.name());
        }
        P::Tiling { done, total } => {
            steps.enter("blocks");
            progress.bar("tiling", done, total, "blocks")
        }
    };
    let name = trace.display().to_string();
    let mut file = open()?;
    let indexed = match kind {
        Sniffed::Paraver | Sniffed::ParaverGz => {
            let (pcf, row, left_out) = weft::readers::paraver::names_beside(&name);
            // A .prv.gz is inflated as it is read; a stream that breaks off keeps the records before the
            // break, with the whole read's warning.
            let broke = std::cell::RefCell::new(None);
            let mut text: Box<dyn std::io::Read> = match kind {
                Sniffed::ParaverGz => {
                    Box::new(UntilBroken { r: flate2::read::MultiGzDecoder::new(file), broke: &broke })
                }
                _ => Box::new(file),
            };
            let late = || {
                let mut v: Vec<_> = Vec::new();
                if let Some(e) = broke.borrow().as_ref() {
                    let what =
                        format!("{name}: the gzip stream breaks off ({e}); the records before the break are kept");
                    v.push((weft::model::WarningKind::Truncated, what));
                }
                v.extend(left_out.iter().map(|e| (weft::model::WarningKind::Other, e.clone())));
                v
            };
            let (pcf, row) = (pcf.as_deref(), row.as_deref());
            index_paraver(
                &name,
                &mut text,
                CHUNK_BYTES,
                input,
                pcf,
                row,
                &late,
                spills,
                &o,
                &mut spill,
                &sink,
                &report,
            )?
        }
        _ => index_chrome(&name, &mut file, CHUNK_BYTES, input, spills, &o, &mut spill, &sink, &report)?,
    };
    drop(spill);
    for p in [spill_path, events_path, &samples_path, &messages_path] {
        std::fs::remove_file(p).map_err(|e| format!("{}: {e}", p.display()))?;
    }
    let read_s = steps.began("blocks").unwrap_or_else(|| started.elapsed().as_secs_f64());
    let bytes = sink.bytes.load(std::sync::atomic::Ordering::Relaxed);
    Ok(Chunked { indexed, bytes, read_s, steps: steps.line() })
}

/// A reader that ends where the one it wraps fails (a gzip stream that breaks off), keeping the error.
struct UntilBroken<'a, R> {
    r: R,
    broke: &'a std::cell::RefCell<Option<String>>,
}

impl<R: std::io::Read> std::io::Read for UntilBroken<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.broke.borrow().is_some() {
            return Ok(0);
        }
        loop {
            match self.r.read(buf) {
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    *self.broke.borrow_mut() = Some(e.to_string());
                    return Ok(0);
                }
                ok => return ok,
            }
        }
    }
}

/// The report of a part (`--shard K/N`).
fn print_part(out: &Path, p: &PartManifest, bytes: u64, input: u64) {
    println!("part        {} (shard {}/{}, blocks {}..{})", shown(out), p.shard, p.shards, p.blocks[0], p.blocks[1]);
    println!("intervals   {}", p.store.counts.intervals);
    println!("tiles       {}", p.store.tiles.len());
    println!("bytes       {bytes} (input {input})");
}

fn print_report(out: &Path, m: &weft::store::Manifest, bytes: u64, input: u64) {
    println!("store       {}", shown(out));
    println!("events      {}", m.counts.event_records);
    println!("intervals   {}", m.counts.intervals);
    println!(
        "tiles       {} ({} blocks x {} windows, {} levels)",
        m.tiles.len(),
        m.tiling.blocks,
        m.tiling.windows,
        m.levels.len()
    );
    println!("bytes       {bytes} (input {input})");
}

/// The process's peak resident memory (VmHWM), where the system reports it.
fn print_peak_memory() {
    if let Some(kb) = std::fs::read_to_string("/proc/self/status").ok().and_then(|s| {
        s.lines().find_map(|l| {
            l.strip_prefix("VmHWM:").and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        })
    }) {
        println!("peak memory {} MB", kb >> 10);
    }
}

/// What a streamed index made (its manifest not yet written) and its figures.
pub struct Streamed {
    pub manifest: weft::store::Manifest,
    pub part: Option<PartManifest>,
    /// Bytes of the tiles written (and of the manifest, once written).
    pub bytes: u64,
    pub spill_bytes: u64,
    /// Bytes of messages, collective rows and particles spilled in sorted runs and block files.
    pub runs_bytes: u64,
    pub read_s: f64,
    pub tile_s: f64,
    /// Each step's seconds (`Steps::line`).
    pub steps: String,
    pub in_flight: usize,
    pub busiest_block_bytes: u64,
    pub ranged_blocks: usize,
}

/// The report's note of blocks tiled by time range (over their task's share of `--memory`).
fn by_range(blocks: usize) -> String {
    match blocks {
        0 => String::new(),
        1 => ", 1 tiled by time range".to_string(),
        n => format!(", {n} tiled by time range"),
    }
}

/// Index an OTF2 archive location by location (`index::stream`), tiles written as blocks finish, the
/// first pass's spill in the partial folder (removed before the manifest is written). None when the archive
/// must be read whole.
fn index_streamed(
    a: &Args,
    files: &weft::readers::otf2::FolderFiles,
    anchor: &str,
    options: &BuildOptions,
    shard: Option<Shard>,
    memory: u64,
    progress: &Progress,
) -> Result<Option<Streamed>, Box<dyn std::error::Error>> {
    let tmp = partial_folder(&a.out)?;
    // A refused or failed index leaves no partial folder (nor its spill) behind.
    let done = match stream_into(files, anchor, options, shard, None, memory, progress, &tmp, &tmp.join(".spill")) {
        Ok(Some(done)) => done,
        other => {
            crate::partial::remove(&tmp);
            return other;
        }
    };
    let (file, json) = match &done.part {
        Some(p) => (PART_MANIFEST, p.to_json()),
        None => {
            (MANIFEST, weft::index::BuiltStore { manifest: done.manifest.clone(), tiles: Vec::new() }.manifest_json())
        }
    };
    finish_store(&tmp, &a.out, file, &json, a.force)?;
    Ok(Some(Streamed { bytes: done.bytes + json.len() as u64, ..done }))
}

/// The streamed index of an OTF2 archive (or of a shard of it) with its tiles written into the folder
/// `tmp` and its spill at `spill_path` (removed at the end); the manifest is not written. None when the
/// archive must be read whole. Also each MPI rank's share (`mpi.rs`), into the store's shared folder: then
/// `exchange` reaches the other ranks, and the rank decodes only its own locations
/// (`weft::index::shard::exchange`).
#[allow(clippy::too_many_arguments)]
pub fn stream_into(
    files: &weft::readers::otf2::FolderFiles,
    anchor: &str,
    options: &BuildOptions,
    shard: Option<Shard>,
    exchange: Option<&dyn weft::index::shard::exchange::Exchange>,
    memory: u64,
    progress: &Progress,
    tmp: &Path,
    spill_path: &Path,
) -> Result<Option<Streamed>, Box<dyn std::error::Error>> {
    use weft::index::stream::{index_otf2, index_otf2_exchanged, Progress as P, StreamOptions};
    use weft::index::IndexError;
    use weft::readers::otf2::StreamIndexing;
    let in_folder = |e| weft::readers::otf2::in_folder(&files.root, e);
    let mut stream = weft::readers::otf2::open_stream(anchor, files).map_err(in_folder)?;
    // Message ends and collective parts past a twelfth of --memory go to a file beside the spill in
    // sorted runs, matched from it at the end (`readers::otf2::ends`).
    // `.spill.ends`, `.spill.3.ends`: MPI ranks share the folder, each with its own spills.
    let mut ends_path = spill_path.as_os_str().to_owned();
    ends_path.push(".ends");
    let ends_path = PathBuf::from(ends_path);
    stream.spill_ends(
        Box::new(weft::index::spill::ReaderSpill(FileSpill::create(&ends_path, 0)?)),
        weft::index::Budget::new(memory).ends_in_memory(),
    );
    // The nested intervals are kept as columns while they take at most an eighth of --memory (`held: 0`),
    // then spilled; the spill stays in memory while it takes at most another eighth (pass 2 counts both
    // against the rest), saving its writes and reads.
    let mut spill = FileSpill::create(spill_path, weft::index::Budget::new(memory).spill_in_memory())?;
    let sink = FolderSink::new(tmp);
    let o =
        StreamOptions { build: options.clone(), memory, event_buffer: 0, shard, held: 0, runs: 0, range_intervals: 0 };
    let t0 = Instant::now();
    let steps = Steps::new();
    let report = |p: P| match p {
        P::Reading { done, total, intervals } => {
            progress.bar("reading", done, total, &format!("{:.1} M intervals", intervals as f64 / 1e6))
        }
        // An MPI rank's replay of every rank's logs, after its own locations were read.
        P::Replaying { done, total, intervals } => {
            steps.enter("replay");
            progress.bar("replaying", done, total, &format!("{:.1} M intervals", intervals as f64 / 1e6))
        }
        P::ReadingBytes { .. } => {}
        P::Step(s) => {
            steps.enter(s.name());
            progress.say(s.name());
        }
        P::Tiling { done, total } => {
            steps.enter("blocks");
            progress.bar("tiling", done, total, "blocks")
        }
    };
    let indexed = match exchange {
        Some(x) => index_otf2_exchanged(stream, &o, x, &mut spill, &sink, &report),
        None => index_otf2(stream, &o, &mut spill, &sink, &report),
    };
    // The stream (and its spill of message ends) was dropped by the index, whatever its outcome.
    let _ = std::fs::remove_file(&ends_path);
    let indexed = match indexed {
        Ok(i) => i,
        Err(IndexError::NotStreamable(_)) => {
            drop(spill);
            let _ = std::fs::remove_file(spill_path);
            return Ok(None);
        }
        Err(IndexError::Read(e)) => return Err(in_folder(e).into()),
        Err(e) => return Err(e.into()),
    };
    drop(spill);
    std::fs::remove_file(spill_path).map_err(|e| format!("{}: {e}", spill_path.display()))?;
    let read_s = steps.began("blocks").unwrap_or_else(|| t0.elapsed().as_secs_f64());
    Ok(Some(Streamed {
        steps: steps.line(),
        bytes: sink.bytes.load(std::sync::atomic::Ordering::Relaxed),
        manifest: indexed.manifest,
        part: indexed.part,
        spill_bytes: indexed.spill_bytes,
        runs_bytes: indexed.runs_bytes,
        read_s,
        tile_s: t0.elapsed().as_secs_f64() - read_s,
        in_flight: indexed.blocks_in_flight,
        busiest_block_bytes: indexed.busiest_block_bytes,
        ranged_blocks: indexed.ranged_blocks,
    }))
}

/// A spill: held in memory while it stays under `cap` bytes, then one file, each location's segments
/// appended, read back by offset (the in-memory part is written out first, in location order, when the cap
/// is passed).
pub(crate) struct FileSpill {
    file: std::fs::File,
    path: PathBuf,
    /// Per location, its segments (offset, length) in order.
    parts: Vec<Vec<(u64, u64)>>,
    end: u64,
    /// Per location, its bytes while the spill is in memory (None once it went to the file).
    memory: Option<Vec<Vec<u8>>>,
    /// Bytes in memory: the spill's and those kept for records held beside it (`Spill::keep`).
    held: u64,
    kept: u64,
    cap: u64,
}

impl FileSpill {
    /// A spill in the file `path` (created empty), kept in memory while it holds at most `cap` bytes.
    pub(crate) fn create(path: &Path, cap: u64) -> Result<Self, String> {
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(path)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        let memory = (cap > 0).then(Vec::new);
        Ok(FileSpill { file, path: path.to_path_buf(), parts: Vec::new(), end: 0, memory, held: 0, kept: 0, cap })
    }

    fn append(&mut self, k: usize, bytes: &[u8]) -> Result<(), String> {
        use std::io::Write;
        self.file.write_all(bytes).map_err(|e| format!("{}: {e}", self.path.display()))?;
        if self.parts.len() <= k {
            self.parts.resize(k + 1, Vec::new());
        }
        self.parts[k].push((self.end, bytes.len() as u64));
        self.end += bytes.len() as u64;
        Ok(())
    }
}

impl weft::index::Spill for FileSpill {
    fn put(&mut self, k: usize, bytes: &[u8]) -> Result<(), String> {
        if let Some(mem) = &mut self.memory {
            if self.held + bytes.len() as u64 <= self.cap {
                if mem.len() <= k {
                    mem.resize(k + 1, Vec::new());
                }
                mem[k].extend_from_slice(bytes);
                self.held += bytes.len() as u64;
                return Ok(());
            }
            // Over the cap: what memory holds goes to the file first, then everything after it.
            for (j, b) in self.memory.take().expect("in memory").iter().enumerate() {
                if !b.is_empty() {
                    self.append(j, b)?;
                }
            }
            // (The records kept beside it stay in memory.)
            self.held = self.kept;
        }
        self.append(k, bytes)
    }
    fn get(&self, k: usize) -> Result<Vec<u8>, String> {
        use std::os::unix::fs::FileExt;
        if let Some(mem) = &self.memory {
            return Ok(mem.get(k).cloned().unwrap_or_default());
        }
        let segments = self.parts.get(k).map_or(&[][..], |v| v.as_slice());
        let mut v = vec![0u8; segments.iter().map(|s| s.1 as usize).sum()];
        let mut at = 0;
        for &(offset, len) in segments {
            let to = &mut v[at..at + len as usize];
            self.file.read_exact_at(to, offset).map_err(|e| format!("{}: {e}", self.path.display()))?;
            at += len as usize;
        }
        Ok(v)
    }
    fn take(&mut self, k: usize) -> Result<Vec<u8>, String> {
        match self.memory.as_mut().and_then(|mem| mem.get_mut(k)) {
            Some(bytes) => {
                let bytes = std::mem::take(bytes);
                self.held -= bytes.len() as u64;
                Ok(bytes)
            }
            None => self.get(k),
        }
    }
    fn get_from(&self, k: usize, at: u64, max: usize) -> Result<Vec<u8>, String> {
        use std::os::unix::fs::FileExt;
        if let Some(mem) = &self.memory {
            let all = mem.get(k).map_or(&[][..], |v| v.as_slice());
            let a = (at as usize).min(all.len());
            return Ok(all[a..(a + max).min(all.len())].to_vec());
        }
        // The segments overlapping [at, at + max): skip those before, read the rest of the range.
        let segments = self.parts.get(k).map_or(&[][..], |v| v.as_slice());
        let mut v = Vec::with_capacity(max.min(segments.iter().map(|s| s.1 as usize).sum()));
        let mut skip = at;
        for &(offset, len) in segments {
            if v.len() == max {
                break;
            }
            if skip >= len {
                skip -= len;
                continue;
            }
            let take = ((len - skip) as usize).min(max - v.len());
            let from = v.len();
            v.resize(from + take, 0);
            self.file
                .read_exact_at(&mut v[from..], offset + skip)
                .map_err(|e| format!("{}: {e}", self.path.display()))?;
            skip = 0;
        }
        Ok(v)
    }
    fn held(&self) -> u64 {
        self.held
    }
    /// Within the cap while in memory (the records kept stay counted when the spill then goes to its file).
    fn keep(&mut self, bytes: u64) -> bool {
        let keeps = self.memory.is_some() && self.held + bytes <= self.cap;
        if keeps {
            self.held += bytes;
            self.kept += bytes;
        }
        keeps
    }
    fn clear(&mut self) -> Result<(), String> {
        self.file.set_len(0).map_err(|e| format!("{}: {e}", self.path.display()))?;
        use std::io::Seek;
        self.file.rewind().map_err(|e| format!("{}: {e}", self.path.display()))?;
        self.parts.clear();
        self.end = 0;
        self.memory = (self.cap > 0).then(Vec::new);
        self.held = self.kept;
        Ok(())
    }
}

/// A partial folder removed when this goes out of scope still holding it (an index that failed on the way).
struct RemovedUnlessKept(Option<PathBuf>);

impl Drop for RemovedUnlessKept {
    fn drop(&mut self) {
        if let Some(p) = self.0.take() {
            crate::partial::remove(&p);
        }
    }
}

/// Tiles written into the partial folder as blocks finish.
struct FolderSink {
    root: PathBuf,
    bytes: std::sync::atomic::AtomicU64,
    /// Folders made so far: a store of many blocks has a folder for a few tiles, and making each tile's
    /// folder again (a `stat`, a `mkdir` refused) was a sixth of indexing 20,000 ranks (BENCHMARKS.md
    /// "Session 34").
    made: std::sync::Mutex<std::collections::HashSet<PathBuf>>,
}

impl FolderSink {
    fn new(root: &Path) -> FolderSink {
        FolderSink { root: root.to_path_buf(), bytes: std::sync::atomic::AtomicU64::new(0), made: Default::default() }
    }
}

impl weft::index::stream::TileSink for FolderSink {
    fn put(&self, path: &str, bytes: &[u8]) -> Result<(), String> {
        let p = self.root.join(path);
        if let Some(d) = p.parent() {
            let mut made = self.made.lock().map_err(|_| "a tile writer panicked".to_string())?;
            if !made.contains(d) {
                std::fs::create_dir_all(d).map_err(|e| format!("{}: {e}", d.display()))?;
                made.insert(d.to_path_buf());
            }
        }
        std::fs::write(&p, bytes).map_err(|e| format!("{}: {e}", p.display()))?;
        self.bytes.fetch_add(bytes.len() as u64, std::sync::atomic::Ordering::Relaxed);
        Ok(())
    }
    fn get(&self, path: &str) -> Result<Vec<u8>, String> {
        let p = self.root.join(path);
        std::fs::read(&p).map_err(|e| format!("{}: {e}", p.display()))
    }
}

/// `2G`, `512M`, `64K` or plain bytes.
/// `--memory` in bytes, held to the machine's memory: a larger value (1024G, 2^64-1) sized buffers by memory
/// this machine does not have and aborted (issue 51), so it is lowered to the machine's, with a note.
pub(crate) fn memory_flag(a: &Args) -> Result<u64, String> {
    let asked =
        parse_size(&a.memory).ok_or_else(|| format!("--memory {:?}: expected a size like 2G or 512M", a.memory))?;
    match machine_memory() {
        Some(machine) if asked > machine => {
            static NOTED: std::sync::Once = std::sync::Once::new();
            NOTED.call_once(|| {
                eprintln!(
                    "note: --memory {} is more than this machine's {}; indexing within {}",
                    a.memory.trim(),
                    human_bytes(machine),
                    human_bytes(machine)
                )
            });
            Ok(machine)
        }
        _ => Ok(asked),
    }
}

/// The machine's memory (`MemTotal` of /proc/meminfo), where the system says.
fn machine_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kb: u64 = line.trim_start_matches("MemTotal:").trim().trim_end_matches("kB").trim().parse().ok()?;
    kb.checked_mul(1024)
}

fn parse_size(s: &str) -> Option<u64> {
    let s = s.trim();
    let (num, mult) = match s.char_indices().last()? {
        (i, 'G' | 'g') => (&s[..i], 1u64 << 30),
        (i, 'M' | 'm') => (&s[..i], 1 << 20),
        (i, 'K' | 'k') => (&s[..i], 1 << 10),
        _ => (s, 1),
    };
    num.trim().parse::<u64>().ok()?.checked_mul(mult)
}

/// Bytes of a file, or of every regular file under a folder (an OTF2 archive); an OTF2 anchor file
/// (`traces.otf2`) counts with its archive: the global definitions (`traces.def`) and the folder of
/// per-location files beside it (`traces/`).
fn input_bytes(p: &Path) -> u64 {
    let Ok(md) = std::fs::symlink_metadata(p) else { return 0 };
    if md.is_file() {
        if p.extension().is_some_and(|e| e.eq_ignore_ascii_case("otf2")) {
            let definitions = p.with_extension("def");
            let locations = p.with_extension("");
            let definitions = std::fs::metadata(&definitions).map(|m| m.len()).unwrap_or(0);
            let locations = if locations.is_dir() { input_bytes(&locations) } else { 0 };
            return md.len() + definitions + locations;
        }
        return md.len();
    }
    if !md.is_dir() {
        return 0;
    }
    let mut total = 0;
    let mut stack = vec![(p.to_path_buf(), 0)];
    while let Some((d, depth)) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            match e.metadata() {
                Ok(m) if m.is_file() => total += m.len(),
                Ok(m) if m.is_dir() && depth < 4 => stack.push((e.path(), depth + 1)),
                _ => {}
            }
        }
    }
    total
}
