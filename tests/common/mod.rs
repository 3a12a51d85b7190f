//! Shared helpers for integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

mod temp_dir;
pub use temp_dir::TempDir;

/// `../shared/traces` beside the repository, where real sample traces live (never committed here).
/// Returns None, and says so on stderr, when the folder is absent: the calling test then skips.
pub fn shared_traces(test: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("WEFT_SHARED_TRACES")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/traces"));
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!(
            "SKIPPED {test}: {} does not exist (real sample traces are not part of the repository)",
            dir.display()
        );
        None
    }
}

/// Every file under `dir`, recursively, sorted.
pub fn files_under(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        if let Ok(rd) = std::fs::read_dir(&d) {
            for e in rd.flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                } else {
                    out.push(p);
                }
            }
        }
    }
    out.sort();
    out
}

/// The tests come in through the one way in (`weft::readers::open` / `open_path`) and ask for the view they
/// test: a timeline, an execution graph's thread events or a grain graph's input.
pub mod read {
    use std::path::Path;
    use weft::model::grains::Grains;
    use weft::model::thread_events::ThreadEvents;
    use weft::model::{Trace, Warnings};
    use weft::readers::otf2::MemoryFiles;
    use weft::readers::{open, open_path, ReadError, Source};

    fn name(path: &Path) -> String {
        path.display().to_string()
    }

    pub fn read_bytes(name: &str, bytes: &[u8]) -> Result<Trace, ReadError> {
        open(name, Source::Bytes(bytes))?.into_trace(name)
    }

    pub fn read_path(path: &Path) -> Result<Trace, ReadError> {
        open_path(path)?.into_trace(&name(path))
    }

    pub fn read_file_set(name: &str, files: &MemoryFiles) -> Result<Trace, ReadError> {
        open(name, Source::Files(files))?.into_trace(name)
    }

    pub fn read_grains(name: &str, bytes: &[u8]) -> Result<Grains, ReadError> {
        open(name, Source::Bytes(bytes))?.into_grains(name).map(|(g, _)| g)
    }

    pub fn read_grains_path(path: &Path) -> Result<(Grains, Warnings), ReadError> {
        open_path(path)?.into_grains(&name(path))
    }

    pub fn read_execgraph(name: &str, bytes: &[u8]) -> Result<ThreadEvents, ReadError> {
        open(name, Source::Bytes(bytes))?.into_thread_events(name).map(|(e, _, _)| e)
    }

    pub fn read_execgraph_path(path: &Path) -> Result<(ThreadEvents, Warnings), ReadError> {
        open_path(path)?.into_thread_events(&name(path)).map(|(e, w, _)| (e, w))
    }

    pub fn read_execgraph_files(name: &str, files: &MemoryFiles) -> Result<(ThreadEvents, Warnings), ReadError> {
        open(name, Source::Files(files))?.into_thread_events(name).map(|(e, w, _)| (e, w))
    }
}

/// `files` with every 500th ENTER of location 1 naming region 250, which no definition has.
pub fn with_undefined_regions(files: &weft::readers::otf2::MemoryFiles) -> weft::readers::otf2::MemoryFiles {
    use weft::readers::otf2::encoding::{Item, Records};
    let mut out = files.clone();
    let evt = out.files.keys().find(|p| p.ends_with("/1.evt")).unwrap().clone();
    let bytes = out.files.get_mut(&evt).unwrap();
    let mut at = Vec::new();
    let mut r = Records::new(bytes, 4096, true).unwrap();
    while let Some(item) = r.next_item().unwrap() {
        if let Item::Record { kind: 12, start, end } = item {
            if end - start == 2 && bytes[start] == 1 {
                at.push(start + 1);
            }
        }
    }
    assert!(at.len() > 1000, "{} ENTERs of a one-byte region", at.len());
    for &i in at.iter().step_by(500) {
        bytes[i] = 250;
    }
    out
}
