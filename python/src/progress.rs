//! Reading a trace file with progress (`weft.open(path, progress=...)`): the same answer as
//! `weft_readers::open_path`, with the reader's progress (bytes read of the file's size) reported as it goes.
//!
//! A regular file is read in 4 MiB pieces. A Chrome JSON trace (plain or gzipped) and a Perfetto trace are
//! fed piece by piece to the readers' streaming readers (what the page's worker does with a dropped file), so
//! the bytes reported are the bytes parsed; the crate documents that whole and chunked reads of the same bytes
//! give identical traces. Any other format is read whole in pieces (the reported bytes are those read from
//! disk) and then dispatched on its one sniff as `open_path` does (a Paraver .prv read with the files beside
//! it). An OTF2 archive (an anchor, one of its files, or its folder) is read by the OTF2 reader as
//! `open_path` reads it, through its files on disk counting the bytes the reader takes of them (the
//! total: the anchor, its global definitions and the definition and event files of its locations); a
//! folder of per-rank Chrome/Kineto traces by `ranks::read_paths`, each file's size counted as it is
//! parsed. A Projections `.sts` (the trace of its folder) and any other folder are read by `open_path`
//! itself, with no progress: `None` says so.

use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::io::Read;
use std::path::Path;
use std::time::{Duration, Instant};
use weft_readers::budget::{self, Budget};
use weft_readers::chrome::ChromeStreamReader;
use weft_readers::otf2::{ArchiveFiles, FileReader, FolderFiles};
use weft_readers::perfetto::PerfettoStreamReader;
use weft_readers::{otf2, paraver, projections, sniff, Input, Otf2Input, ReadError, Sniffed};

const PIECE: usize = 4 << 20;
/// At most this often a report (the last one, done == total, always).
const EVERY: Duration = Duration::from_millis(100);

/// The bytes `read` reports progress of for `path`: an OTF2 archive's files the reader takes
/// ([`archive_size`]), or a regular file's size (no Projections `.sts`, which names the trace of its
/// folder); None for anything else (a store, a folder of no OTF2 archive, a path that is an error).
pub fn size_with_progress(path: &Path) -> Option<u64> {
    match otf2::archive_of_path(path) {
        Some(Ok((files, anchor))) => return Some(archive_size(&files.root, &anchor)),
        // A folder without an anchor may hold per-rank traces; a file's error is `open_path`'s to say.
        Some(Err(_)) if !path.is_dir() => return None,
        _ => {}
    }
    if let Some(files) = weft_readers::folder_rank_files(path) {
        return Some(files.iter().map(|p| std::fs::metadata(p).map_or(0, |m| m.len())).sum());
    }
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() {
        return None;
    }
    let mut head = Vec::new();
    std::fs::File::open(path).ok()?.take(64).read_to_end(&mut head).ok()?;
    if projections::is_sts(&head) {
        return None;
    }
    Some(meta.len())
}

/// Read `path` as `open_path` does, calling `report(done, total)` as bytes are read; None where this file
/// has no progress to report ([`size_with_progress`]).
pub fn read(path: &Path, report: &mut dyn FnMut(u64, u64)) -> Option<Result<Input, ReadError>> {
    match otf2::archive_of_path(path) {
        Some(Ok((files, anchor))) => return Some(read_archive(path, files, &anchor, report)),
        // An error finding a file's archive is `open_path`'s to say, word for word; a folder without an
        // anchor may hold per-rank traces.
        Some(Err(_)) if !path.is_dir() => return None,
        _ => {}
    }
    if let Some(files) = weft_readers::folder_rank_files(path) {
        return Some(read_rank_files(path, &files, report));
    }
    size_with_progress(path)?;
    let name = path.display().to_string();
    let io = |e: std::io::Error| ReadError::Io { file: name.clone(), detail: e.to_string() };
    let (file, total) = match weft_readers::open_regular(path) {
        Ok(f) => f,
        Err(e) => return Some(Err(e)),
    };
    let mut file = file.take(total);
    let mut piece = vec![0u8; PIECE];
    let mut done = 0u64;
    let mut last = Instant::now();
    let mut tell = |done: u64, force: bool| {
        if force || last.elapsed() >= EVERY {
            last = Instant::now();
            report(done, total);
        }
    };
    tell(0, true);
    // The file's head, as many bytes as the sniff looks at (or the whole file when shorter).
    let mut head = Vec::new();
    while head.len() < sniff::SNIFF_HEAD_BYTES {
        let n = match file.read(&mut piece[..PIECE.min(sniff::SNIFF_HEAD_BYTES - head.len())]) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) => return Some(Err(io(e))),
        };
        head.extend_from_slice(&piece[..n]);
    }
    done += head.len() as u64;
    let sniffed = sniff(&head);
    if matches!(sniffed, Sniffed::ProjectionsPart) && projections::is_sts(&head) {
        // Made a .sts between the two looks: read with its folder, as `open_path` does.
        return Some(weft_readers::open_path(path));
    }
    let mut rest = |feed: &mut dyn FnMut(&[u8]) -> Result<(), ReadError>| -> Result<(), ReadError> {
        loop {
            let n = file.read(&mut piece).map_err(io)?;
            if n == 0 {
                return Ok(());
            }
            feed(&piece[..n])?;
            done += n as u64;
            tell(done, false);
        }
    };
    let input = match sniffed {
        Sniffed::ChromeJson | Sniffed::Gzip => {
            let mut r = ChromeStreamReader::new(&name);
            r.feed(&head).and_then(|()| rest(&mut |p| r.feed(p))).and_then(|()| r.finish().map(Input::Trace))
        }
        Sniffed::Perfetto => {
            let mut r = PerfettoStreamReader::new(&name);
            r.feed(&head).and_then(|()| rest(&mut |p| r.feed(p))).and_then(|()| r.finish().map(Input::Trace))
        }
        sniffed => (|| {
            // As `read_regular`: refused before it is held where the budget says so.
            Budget::current().admit_whole(&name, "a file", total)?;
            let mut bytes = head;
            budget::try_grow(&mut bytes, usize::try_from(total).unwrap_or(usize::MAX), &name, "file", "its bytes")?;
            rest(&mut |p| {
                bytes.extend_from_slice(p);
                Ok(())
            })?;
            match sniffed {
                Sniffed::Paraver | Sniffed::ParaverGz => paraver::read_beside(path, &bytes).map(Input::Trace),
                sniffed => weft_readers::open_sniffed(&name, sniffed, &bytes),
            }
        })(),
    };
    tell(total, true);
    Some(input)
}

/// A folder of per-rank Chrome/Kineto traces read as `open_path` reads it (`ranks::read_paths`, its files on
/// the machine's cores), the files' sizes reported as each is parsed: the reading runs on a thread of its
/// own while this one reports what it has done every [`EVERY`].
fn read_rank_files(
    path: &Path,
    files: &[std::path::PathBuf],
    report: &mut dyn FnMut(u64, u64),
) -> Result<Input, ReadError> {
    use std::sync::atomic::{AtomicU64, Ordering};
    let total: u64 = files.iter().map(|p| std::fs::metadata(p).map_or(0, |m| m.len())).sum();
    let name = path.display().to_string();
    let done = AtomicU64::new(0);
    let budget = Budget::current();
    report(0, total);
    let read = std::thread::scope(|s| {
        let reading = s.spawn(|| {
            budget.scope(|| {
                weft_readers::ranks::read_paths_reporting(&name, weft_readers::ranks::PartFormat::Kineto, files, &|n| {
                    done.fetch_add(n, Ordering::Relaxed);
                })
            })
        });
        while !reading.is_finished() {
            std::thread::sleep(EVERY);
            report(done.load(Ordering::Relaxed).min(total), total);
        }
        reading.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    });
    report(total, total);
    read.map(Input::Trace)
}

/// The bytes of an OTF2 archive the reader takes: the anchor `X.otf2`, the global definitions `X.def`, and
/// the `.def` and `.evt` files of its locations under `X/` (regular files only, as the reader opens them).
fn archive_size(root: &Path, anchor: &str) -> u64 {
    let stem = anchor.strip_suffix(".otf2").unwrap_or(anchor);
    let size = |p: &Path| std::fs::metadata(p).ok().filter(|m| m.is_file()).map_or(0, |m| m.len());
    let mut total = size(&root.join(anchor)) + size(&root.join(format!("{stem}.def")));
    let mut stack = vec![root.join(stem)];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "def" || x == "evt") {
                total += size(&p);
            }
        }
    }
    total
}

/// An OTF2 archive read as `open_path` reads it (`otf2::read_path_full`), its bytes counted as the reader
/// takes them: whole files (definitions) when read, event files as their pieces are decoded.
fn read_archive(
    path: &Path,
    files: FolderFiles,
    anchor: &str,
    report: &mut dyn FnMut(u64, u64),
) -> Result<Input, ReadError> {
    let total = archive_size(&files.root, anchor);
    report(0, total);
    let counted = CountedFiles {
        files,
        total,
        done: Cell::new(0),
        last: Cell::new(Instant::now()),
        report: RefCell::new(report),
    };
    let read = otf2::read_archive_full(anchor, &counted).map_err(|e| otf2::in_folder(&counted.files.root, e));
    (counted.report.into_inner())(total, total);
    Ok(Input::Otf2(Box::new(Otf2Input { name: path.display().to_string(), read: read? })))
}

/// An archive's files on disk, reporting the bytes taken of them (never past the total, at most every
/// [`EVERY`]).
struct CountedFiles<'r> {
    files: FolderFiles,
    total: u64,
    done: Cell<u64>,
    last: Cell<Instant>,
    report: RefCell<&'r mut dyn FnMut(u64, u64)>,
}

impl CountedFiles<'_> {
    fn took(&self, n: u64) {
        let done = (self.done.get() + n).min(self.total);
        self.done.set(done);
        if self.last.get().elapsed() >= EVERY {
            self.last.set(Instant::now());
            (self.report.borrow_mut())(done, self.total);
        }
    }
}

impl ArchiveFiles for CountedFiles<'_> {
    fn read(&self, path: &str) -> Result<Option<Cow<'_, [u8]>>, String> {
        let bytes = self.files.read(path)?;
        if let Some(b) = &bytes {
            self.took(b.len() as u64);
        }
        Ok(bytes)
    }
    fn paths(&self) -> Vec<String> {
        self.files.paths()
    }
    fn open_read(&self, path: &str) -> Result<Option<FileReader<'_>>, String> {
        Ok(self
            .files
            .open_read(path)?
            .map(|(len, inner)| (len, Box::new(Counted { inner, files: self }) as Box<dyn Read + '_>)))
    }
}

/// A file of the archive whose bytes read are counted.
struct Counted<'a, 'r> {
    inner: Box<dyn Read + 'a>,
    files: &'a CountedFiles<'r>,
}

impl Read for Counted<'_, '_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.files.took(n as u64);
        Ok(n)
    }
}
