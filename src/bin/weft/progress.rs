//! One line of progress on stderr for the CLI's long commands (`weft index`, `weft merge`, MPI rank 0).

use std::io::IsTerminal;
use std::time::Instant;

/// One line of progress on stderr, rewritten in place at most ten times a second, only when stderr is a
/// terminal.
pub struct Progress {
    tty: bool,
    started: Instant,
    last: std::sync::Mutex<Option<Instant>>,
}

impl Progress {
    pub fn new() -> Self {
        Progress { tty: std::io::stderr().is_terminal(), started: Instant::now(), last: std::sync::Mutex::new(None) }
    }
    /// A progress that says nothing (MPI ranks but rank 0).
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    pub fn quiet() -> Self {
        Progress { tty: false, started: Instant::now(), last: std::sync::Mutex::new(None) }
    }
    pub fn say(&self, what: &str) {
        if self.tty {
            let s = weft::model::text::escape_controls(what);
            eprint!("\r\x1b[2K[{:6.1} s] {s}", self.started.elapsed().as_secs_f64());
        }
    }
    /// `what done/total [#####.....] detail`, throttled (the last step is always drawn).
    pub fn bar(&self, what: &str, done: usize, total: usize, detail: &str) {
        if !self.tty {
            return;
        }
        let now = Instant::now();
        {
            let mut last = self.last.lock().expect("progress lock");
            if done < total && last.is_some_and(|t| now.duration_since(t).as_millis() < 100) {
                return;
            }
            *last = Some(now);
        }
        const WIDTH: usize = 30;
        let filled = (done * WIDTH).checked_div(total).unwrap_or(WIDTH).min(WIDTH);
        let bar = format!("{}{}", "#".repeat(filled), ".".repeat(WIDTH - filled));
        self.say(&format!("{what} {done}/{total} [{bar}] {detail}"));
    }
    pub fn clear(&self) {
        if self.tty {
            eprint!("\r\x1b[2K");
        }
    }
}
