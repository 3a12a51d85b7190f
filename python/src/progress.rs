//! Reading a trace file with progress (`weft.open(path, progress=...)`): the same answer as
//! `weft_readers::open_path`, with the reader's progress (bytes read of the file's size) reported as it goes.
//!
//! A regular file is read in 4 MiB pieces. A Chrome JSON trace (plain or gzipped) and a Perfetto trace are
//! fed piece by piece to the readers' streaming readers (what the page's worker does with a dropped file), so
//! the bytes reported are the bytes parsed; the crate documents that whole and chunked reads of the same bytes
//! give identical traces. Any other format is read whole in pieces (the reported bytes are those read from
//! disk) and then dispatched on its one sniff as `open_path` does (a Paraver .prv read with the files beside
//! it). An OTF2 archive (an anchor, one of its files, or its folder), a Projections `.sts` (the trace of
//! its folder) and a folder are read by `open_path` itself, with no progress: `None` says so.

use std::io::Read;
use std::path::Path;
use std::time::{Duration, Instant};
use weft_readers::budget::{self, Budget};
use weft_readers::chrome::ChromeStreamReader;
use weft_readers::perfetto::PerfettoStreamReader;
use weft_readers::{otf2, paraver, projections, sniff, Input, ReadError, Sniffed};

const PIECE: usize = 4 << 20;
/// At most this often a report (the last one, done == total, always).
const EVERY: Duration = Duration::from_millis(100);

/// The size of `path` when it is a file `read` reports progress for (a regular file that is no part of an
/// OTF2 archive and no Projections `.sts`, which names the trace of its folder); None otherwise.
pub fn size_with_progress(path: &Path) -> Option<u64> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || otf2::archive_of_path(path).is_some() {
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
