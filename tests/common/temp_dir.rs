//! The tests' one temporary folder: made fresh for a test and removed, with everything in it, when dropped, so a
//! test that fails (panics) leaves nothing behind either. It must not be shared between tests: each takes its own.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A folder `weft-TAG-PID-N` under the system's temporary folder, removed on drop. The process id keeps two test
/// runs apart, N (counting the folders this process made) two tests of one run that pass the same tag.
/// Derefs to its `Path`: `dir.join("x")`, `dir.display()`, and `&dir` where a `&Path` is wanted.
pub struct TempDir {
    path: PathBuf,
}

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        static MADE: AtomicUsize = AtomicUsize::new(0);
        let n = MADE.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!("weft-{tag}-{}-{n}", std::process::id()));
        // Left by an earlier run whose process had the same id and was killed before its drops ran.
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap_or_else(|e| panic!("make {}: {e}", path.display()));
        TempDir { path }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Write `bytes` at `rel` inside, making its folders; the file's path.
    pub fn put(&self, rel: &str, bytes: &[u8]) -> PathBuf {
        let file = self.path.join(rel);
        if let Some(parent) = file.parent() {
            std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("make {}: {e}", parent.display()));
        }
        std::fs::write(&file, bytes).unwrap_or_else(|e| panic!("write {}: {e}", file.display()));
        file
    }
}

impl std::ops::Deref for TempDir {
    type Target = Path;

    fn deref(&self) -> &Path {
        &self.path
    }
}

impl AsRef<Path> for TempDir {
    fn as_ref(&self) -> &Path {
        &self.path
    }
}

impl AsRef<std::ffi::OsStr> for TempDir {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.path.as_os_str()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

#[test]
fn a_temp_dir_is_removed_when_dropped_and_when_its_test_panics() {
    let kept = TempDir::new("temp-dir-test");
    let other = TempDir::new("temp-dir-test");
    assert_ne!(kept.path(), other.path(), "two folders of one tag are two folders");
    let file = kept.put("a/b/c.txt", b"c");
    assert_eq!(std::fs::read(&file).expect("the file put there"), b"c");
    let (kept_path, other_path) = (kept.to_path_buf(), other.to_path_buf());
    drop(kept);
    assert!(!kept_path.exists(), "{} is removed on drop, with its contents", kept_path.display());
    assert!(other_path.is_dir(), "the other folder stays while it lives");

    let panicked_in = std::sync::Mutex::new(None);
    let result = std::panic::catch_unwind(|| {
        let dir = TempDir::new("temp-dir-test-panic");
        dir.put("f", b"x");
        *panicked_in.lock().unwrap() = Some(dir.to_path_buf());
        panic!("a failing test");
    });
    assert!(result.is_err());
    let path = panicked_in.into_inner().unwrap().expect("the closure ran");
    assert!(!path.exists(), "{} is removed when its test panics", path.display());
}
