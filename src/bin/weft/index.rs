//! `weft index TRACE -o STORE/ [--threads N] [--memory SIZE] [--block N] [--force]`: builds the tiled store
//! of a trace (docs/store-format.md) and writes it under a temporary name in the same folder, renamed to
//! STORE last, so an index killed midway leaves nothing that looks complete. Also the folder side of reading
//! stores (`FolderStore`, `open_store`, `read_trace_or_store`) for `weft info`, `weft moments` and
//! `weft render moments`.
//!
//! This version reads the trace whole through the ordinary readers (OTF2, Chrome JSON, Paraver), held to
//! `--memory` by an estimate made before reading; then tiles it on `--threads` threads. Streaming OTF2
//! location by location is the next step (issue #17).

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Instant;
use weft::store::{build, BuildOptions, Store, StoreError, TileSource, MANIFEST};

#[derive(clap::Args)]
pub struct Args {
    /// The trace (an OTF2 anchor or folder, a Chrome JSON file, a Paraver .prv).
    trace: PathBuf,
    /// The store folder to write.
    #[arg(short, long)]
    out: PathBuf,
    /// Threads tiling location blocks (the store is the same for any count).
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Memory the index may use (`2G`, `512M`): a trace whose whole read would need more is refused before
    /// reading (this version reads the trace whole; about 3x its size on disk).
    #[arg(long, default_value = "2G")]
    memory: String,
    /// Locations per block (tiles cover one block of locations over one time window).
    #[arg(long, default_value_t = 64)]
    block: u32,
    /// Replace STORE if it exists.
    #[arg(long)]
    force: bool,
}

/// Bytes the whole read of a trace takes, per byte of input (model columns plus the files held while read).
const MEMORY_PER_INPUT_BYTE: u64 = 3;

pub fn run(a: Args) -> Result<(), Box<dyn std::error::Error>> {
    let memory =
        parse_size(&a.memory).ok_or_else(|| format!("--memory {:?}: expected a size like 2G or 512M", a.memory))?;
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
    let progress = Progress::new();
    let started = Instant::now();
    progress.say(&format!("reading {}", a.trace.display()));
    let trace = weft::readers::open_path(&a.trace)?.into_trace(&a.trace.display().to_string())?;
    let read_s = started.elapsed().as_secs_f64();
    progress.say(&format!("tiling {} intervals on {} threads", trace.intervals.len(), a.threads.max(1)));
    let t1 = Instant::now();
    let options = BuildOptions {
        block_locations: a.block.max(1),
        threads: a.threads.max(1),
        source_name: a.trace.display().to_string(),
        ..BuildOptions::default()
    };
    let store = build(&trace, &options);
    let tile_s = t1.elapsed().as_secs_f64();
    drop(trace);
    let t2 = Instant::now();
    write_store(&store, &a.out, a.force, &progress)?;
    let write_s = t2.elapsed().as_secs_f64();
    progress.clear();
    let m = &store.manifest;
    println!("store       {}", weft::model::text::escape_controls(&a.out.display().to_string()));
    println!("events      {}", m.counts.event_records);
    println!("intervals   {}", m.counts.intervals);
    println!(
        "tiles       {} ({} blocks x {} windows, {} levels)",
        m.tiles.len(),
        m.tiling.blocks,
        m.tiling.windows,
        m.levels.len()
    );
    println!("bytes       {} (input {input})", store.total_bytes());
    println!("seconds     read {read_s:.2}, tile {tile_s:.2}, write {write_s:.2}");
    Ok(())
}

/// `2G`, `512M`, `64K` or plain bytes.
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

/// Bytes of a file, or of every regular file under a folder (an OTF2 archive).
fn input_bytes(p: &Path) -> u64 {
    let Ok(md) = std::fs::symlink_metadata(p) else { return 0 };
    if md.is_file() {
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

/// Write every tile, then the manifest, into a temporary folder beside `out`; rename it to `out` last.
fn write_store(store: &weft::store::BuiltStore, out: &Path, force: bool, progress: &Progress) -> Result<(), String> {
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name =
        out.file_name().ok_or_else(|| format!("{}: not a folder name", out.display()))?.to_string_lossy().into_owned();
    let tmp = parent.join(format!(".{name}.partial-{}", std::process::id()));
    let err = |p: &Path, e: std::io::Error| format!("{}: {e}", p.display());
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).map_err(|e| err(&tmp, e))?;
    let n = store.tiles.len();
    for (k, (path, bytes)) in store.tiles.iter().enumerate() {
        let p = tmp.join(path);
        if let Some(d) = p.parent() {
            std::fs::create_dir_all(d).map_err(|e| err(d, e))?;
        }
        std::fs::write(&p, bytes).map_err(|e| err(&p, e))?;
        if k % 256 == 0 {
            progress.say(&format!("writing tiles {k}/{n}"));
        }
    }
    let manifest = tmp.join(MANIFEST);
    std::fs::write(&manifest, store.manifest_json()).map_err(|e| err(&manifest, e))?;
    if out.exists() {
        if !force {
            return Err(format!("{}: appeared while indexing; the store is left in {}", out.display(), tmp.display()));
        }
        let old = parent.join(format!(".{name}.old-{}", std::process::id()));
        std::fs::rename(out, &old).map_err(|e| err(out, e))?;
        std::fs::rename(&tmp, out).map_err(|e| err(out, e))?;
        let _ = std::fs::remove_dir_all(&old);
    } else {
        std::fs::rename(&tmp, out).map_err(|e| err(out, e))?;
    }
    Ok(())
}

/// One line of progress on stderr, rewritten in place, only when stderr is a terminal.
struct Progress {
    tty: bool,
    started: Instant,
}

impl Progress {
    fn new() -> Self {
        Progress { tty: std::io::stderr().is_terminal(), started: Instant::now() }
    }
    fn say(&self, what: &str) {
        if self.tty {
            let s = weft::model::text::escape_controls(what);
            eprint!("\r\x1b[2K[{:6.1} s] {s}", self.started.elapsed().as_secs_f64());
        }
    }
    fn clear(&self) {
        if self.tty {
            eprint!("\r\x1b[2K");
        }
    }
}

/// A store in a folder.
pub struct FolderStore {
    pub root: PathBuf,
}

impl TileSource for FolderStore {
    fn read(&self, path: &str) -> Result<Option<Vec<u8>>, String> {
        // Regular files only (a FIFO would wait for a writer), as the readers do.
        let p = self.root.join(path);
        match std::fs::metadata(&p) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            _ => weft::readers::read_regular(&p).map(Some).map_err(|e| e.to_string()),
        }
    }
}

/// The store at `path` when it is a folder with a manifest; None when it is not a store.
pub fn open_store(path: &Path) -> Option<Result<Store<FolderStore>, StoreError>> {
    if !path.join(MANIFEST).is_file() {
        return None;
    }
    Some(Store::open(FolderStore { root: path.to_path_buf() }))
}

/// The trace at `path`: read by the readers, or decoded whole from a store folder (every level-0 tile).
pub fn read_trace_or_store(path: &Path) -> Result<weft::model::Trace, Box<dyn std::error::Error>> {
    match open_store(path) {
        Some(store) => {
            let e = |e| store_error(path, e);
            Ok(store.map_err(e)?.to_trace().map_err(e)?)
        }
        None => Ok(weft::readers::open_path(path)?.into_trace(&path.display().to_string())?),
    }
}

/// A store error as the CLI prints it: the file's path within the store folder.
pub fn store_error(root: &Path, e: StoreError) -> String {
    let file = root.join(e.file()).display().to_string();
    let text = e.to_string();
    match text.strip_prefix(e.file()) {
        Some(rest) => format!("{file}{rest}"),
        None => text,
    }
}
