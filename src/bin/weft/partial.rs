//! The partial folders `weft index` and `weft merge` write into (`.NAME.partial-PID` beside the store,
//! renamed to NAME last) and what removes them when the run does not get that far (issue #51): an error
//! (the caller removes its folder), SIGINT, SIGTERM or SIGHUP (a thread waiting for them removes every folder
//! this process registered, then exits 128 + the signal), and SIGKILL or a crash (the next run beside the
//! same store removes the partial and `.old` folders of processes no longer running, by `/proc/PID`).
//!
//! Renaming a folder into place holds off the signal thread ([`publishing`]), so a signal never removes a
//! folder that has become the store. Not used under `mpirun` (the ranks share rank 0's folder, and the
//! launcher owns the signals).

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

/// The partial folders this process has made and not yet published or removed.
static FOLDERS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn folders() -> MutexGuard<'static, Vec<PathBuf>> {
    FOLDERS.lock().unwrap_or_else(|p| p.into_inner())
}

/// `.NAME.partial-ID` beside `out`.
pub fn folder_name(out: &Path, id: u32) -> Result<PathBuf, String> {
    let name = out_name(out)?;
    Ok(parent_of(out).join(format!(".{name}.partial-{id}")))
}

fn out_name(out: &Path) -> Result<String, String> {
    Ok(out.file_name().ok_or_else(|| format!("{}: not a folder name", out.display()))?.to_string_lossy().into_owned())
}

pub fn parent_of(out: &Path) -> PathBuf {
    match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Make this process's partial folder for `out` (emptied first) and register it, after removing the
/// leftovers of earlier runs beside it whose process is gone ([`remove_stale`]).
pub fn create(out: &Path) -> Result<PathBuf, String> {
    remove_stale(out);
    let tmp = folder_name(out, std::process::id())?;
    let _ = std::fs::remove_dir_all(&tmp);
    folders().push(tmp.clone());
    std::fs::create_dir_all(&tmp).map_err(|e| {
        remove(&tmp);
        format!("{}: {e}", tmp.display())
    })?;
    Ok(tmp)
}

/// Remove a partial folder (a failed run) and forget it.
pub fn remove(tmp: &Path) {
    let mut held = folders();
    let _ = std::fs::remove_dir_all(tmp);
    held.retain(|p| p != tmp);
}

/// Hold off the signal thread while a partial folder is renamed into place; `done` forgets it.
pub fn publishing() -> Publishing {
    Publishing(folders())
}

pub struct Publishing(MutexGuard<'static, Vec<PathBuf>>);

impl Publishing {
    /// `tmp` is the store now (or kept on purpose): no longer this run's to remove.
    pub fn done(mut self, tmp: &Path) {
        self.0.retain(|p| p != tmp);
    }
}

/// Remove `.NAME.partial-PID` and `.NAME.old-PID` folders beside `out` whose process is not running on
/// this machine (killed, or crashed): what an index or merge killed by SIGKILL left. Without `/proc` (not
/// Linux) nothing is removed.
pub fn remove_stale(out: &Path) {
    let Ok(name) = out_name(out) else { return };
    if !Path::new("/proc/self").exists() {
        return;
    }
    let parent = parent_of(out);
    let Ok(entries) = std::fs::read_dir(&parent) else { return };
    let me = std::process::id();
    for e in entries.flatten() {
        let file = e.file_name();
        let Some(file) = file.to_str() else { continue };
        let pid = [".partial-", ".old-"].iter().find_map(|tag| {
            file.strip_prefix('.')?.strip_prefix(name.as_str())?.strip_prefix(tag)?.parse::<u32>().ok()
        });
        let Some(pid) = pid else { continue };
        if pid == me || Path::new("/proc").join(pid.to_string()).exists() {
            continue;
        }
        // Only a real folder (a link named so is not ours to follow).
        if e.file_type().is_ok_and(|t| t.is_dir()) {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

/// Catch SIGINT, SIGTERM and SIGHUP for the rest of the process (those not ignored already: `nohup`): they
/// are blocked in this thread (so in every thread it starts later: call this first) and taken by a thread of
/// their own, which removes the registered partial folders and exits 128 + the signal, as a shell reports a
/// run it interrupted.
#[cfg(unix)]
pub fn catch_signals() {
    let signals = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];
    #[allow(unsafe_code)] // the signal mask and sigwait (Cargo.toml [lints])
    // SAFETY: `set` and `was` are locals, `set` initialised by sigemptyset before use and `was` written by
    // sigaction (which only reads the disposition: a null new action); pthread_sigmask changes only this
    // thread's mask (threads started later inherit it); no pointer outlives the block.
    let set = unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for s in signals {
            // A signal the parent ignores stays ignored (`nohup`, a background job's SIGINT).
            let mut was: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(s, std::ptr::null(), &mut was) == 0 && was.sa_sigaction == libc::SIG_IGN {
                continue;
            }
            libc::sigaddset(&mut set, s);
        }
        if libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) != 0 {
            return;
        }
        set
    };
    let spawned = std::thread::Builder::new().name("signals".into()).spawn(move || loop {
        let mut sig: libc::c_int = 0;
        #[allow(unsafe_code)] // see above
        // SAFETY: `set` is an initialised sigset_t owned by this thread and `sig` a local it writes.
        let r = unsafe { libc::sigwait(&set, &mut sig) };
        if r != 0 {
            continue;
        }
        let held = folders();
        for p in held.iter() {
            // A writer may make a folder again while this runs: try a few times.
            for _ in 0..3 {
                if std::fs::remove_dir_all(p).is_ok() || !p.exists() {
                    break;
                }
            }
        }
        std::process::exit(128 + sig);
    });
    if spawned.is_err() {
        // No thread to take them: let the signals act as before.
        #[allow(unsafe_code)] // see above
        // SAFETY: as above, on the same initialised set.
        unsafe {
            libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
        }
    }
}

#[cfg(not(unix))]
pub fn catch_signals() {}
