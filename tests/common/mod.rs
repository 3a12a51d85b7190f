//! Shared helpers for integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

/// `../shared/traces` beside the repository, where real sample traces live (never committed here).
/// Returns None, and says so on stderr, when the folder is absent: the calling test then skips.
pub fn shared_traces(test: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("WEFT_SHARED_TRACES")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/traces"));
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("SKIPPED {test}: {} does not exist (real sample traces are not part of the repository)", dir.display());
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
