//! The hostile-input harness: a counting global allocator, one case at a time, each in its own thread under a
//! deadline and a memory budget, and the check of what the reader gave. It knows no reader: the table of
//! readers is in hostile.rs.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use weft::model::Trace;
use weft::readers;

pub const TIME_LIMIT: Duration = Duration::from_secs(5);
pub const MEMORY_BUDGET: usize = 256 << 20;

// ---- The harness: a counting allocator, one case at a time, each in a thread with a deadline ----

struct Counting;
static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// A counting allocator: the tests' only unsafe code (allowed here against Cargo.toml's [lints]).
// SAFETY: every method hands its arguments to the system allocator unchanged; the counters are atomics.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        // SAFETY: the caller's guarantees, forwarded to the system allocator.
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            let now = CURRENT.fetch_add(l.size(), Relaxed) + l.size();
            PEAK.fetch_max(now, Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        // SAFETY: the caller's guarantees, forwarded to the system allocator.
        unsafe { System.dealloc(p, l) };
        CURRENT.fetch_sub(l.size(), Relaxed);
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        // SAFETY: the caller's guarantees, forwarded to the system allocator.
        let q = unsafe { System.realloc(p, l, new) };
        if !q.is_null() {
            if new >= l.size() {
                let now = CURRENT.fetch_add(new - l.size(), Relaxed) + (new - l.size());
                PEAK.fetch_max(now, Relaxed);
            } else {
                CURRENT.fetch_sub(l.size() - new, Relaxed);
            }
        }
        q
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// One case at a time, so that the peak measured is that case's.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// What a reader made of the bytes: a summary of what it read (records, warnings), or its error message.
pub type Outcome = Result<Read, String>;

#[derive(Debug)]
pub struct Read {
    pub records: u64,
    pub warnings: u64,
}

pub fn of_trace(r: Result<Trace, readers::ReadError>) -> Outcome {
    r.map(|t| Read { records: t.event_records.max(t.intervals.len() as u64), warnings: t.warnings.total() })
        .map_err(|e| e.to_string())
}

/// What a case must give.
#[derive(Clone, Copy, Debug)]
pub enum Expect {
    /// An error that names the file and contains this text.
    Error(&'static str),
    /// A result with at least one warning (a partial view), or an error naming the file.
    Warned,
    /// Anything but a panic, a hang or a blown budget (an error must still name the file).
    Survive,
}

/// Run `read` on `bytes` in a thread under the time limit and memory budget; check `expect`.
pub fn run_case(case: &str, f: &Format, bytes: Vec<u8>, expect: Expect) {
    run_case_within(case, f, bytes, expect, TIME_LIMIT)
}

pub fn run_case_within(case: &str, f: &Format, bytes: Vec<u8>, expect: Expect, limit: Duration) {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let read = f.read;
    let file = f.file;
    let before = CURRENT.load(Relaxed);
    PEAK.store(before, Relaxed);
    let (tx, rx) = std::sync::mpsc::channel();
    let started = Instant::now();
    let worker = std::thread::Builder::new()
        .name(case.to_string())
        .spawn(move || {
            let outcome = read(file, &bytes);
            drop(bytes);
            let _ = tx.send(outcome);
        })
        .expect("spawn a case thread");
    let outcome = match rx.recv_timeout(limit) {
        Ok(o) => o,
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => panic!("{case}: still running after {limit:?}"),
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
            let why = worker.join().err().map(|p| panic_text(&p)).unwrap_or_default();
            panic!("{case}: the reader panicked: {why}")
        }
    };
    let _ = worker.join();
    if std::env::var_os("HOSTILE_SHOW").is_some() {
        eprintln!("{case}: {outcome:?}");
    }
    let peak = PEAK.load(Relaxed).saturating_sub(before);
    assert!(peak <= MEMORY_BUDGET, "{case}: peak {peak} bytes, over the budget of {MEMORY_BUDGET}");
    assert!(started.elapsed() < limit, "{case}: took {:?}", started.elapsed());
    if let Err(e) = &outcome {
        assert!(!f.names_file || e.contains(file), "{case}: the error does not name {file}: {e}");
    }
    match (expect, &outcome) {
        (Expect::Error(what), Err(e)) => assert!(e.contains(what), "{case}: expected an error about {what:?}, got {e}"),
        (Expect::Error(what), Ok(r)) => panic!("{case}: expected an error about {what:?}, got {r:?}"),
        (Expect::Warned, Ok(r)) => assert!(r.warnings > 0, "{case}: read without a warning: {r:?}"),
        (Expect::Warned | Expect::Survive, _) => {}
    }
}

/// Run `f` alone among the hostile cases and return what it gave and the most bytes it held allocated at once
/// (the whole process's allocations while it ran, as for a case).
pub fn peak_of<R>(f: impl FnOnce() -> R) -> (R, usize) {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let before = CURRENT.load(Relaxed);
    PEAK.store(before, Relaxed);
    let r = f();
    (r, PEAK.load(Relaxed).saturating_sub(before))
}

pub fn panic_text(p: &Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<String>().cloned().or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_default()
}

/// A reader under test: a file name for messages, a small valid sample, and bytes -> outcome.
pub struct Format {
    pub name: &'static str,
    pub file: &'static str,
    pub sample: fn() -> Vec<u8>,
    pub read: fn(&str, &[u8]) -> Outcome,
    /// What spoiling its first four bytes must give: an error where they are a signature.
    pub magic: Expect,
    /// Whether its errors name the file (the worker->page buffer is no file).
    pub names_file: bool,
}
