//! Files that are not regular files: a FIFO named like an event file in an OTF2 folder (opening it would wait
//! for a writer forever), a symbolic link to /dev/zero (it never ends), a FIFO given as the trace. `open_path`
//! and the CLI refuse them at once, naming the path, instead of hanging or reading until memory runs out.
#![cfg(unix)]

use crate::common;
use crate::common::TempDir;
use common::read::read_path;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use weft::readers::ReadError;
use weft::samples::otf2::small_archive;

fn folder(test: &str) -> TempDir {
    let dir = TempDir::new(&format!("special-{test}"));
    for (p, b) in &small_archive(false).files {
        let path = dir.join(p);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, b).unwrap();
    }
    dir
}

fn mkfifo(path: &Path) {
    let _ = std::fs::remove_file(path);
    let ok = Command::new("mkfifo").arg(path).status().unwrap().success();
    assert!(ok, "mkfifo {}", path.display());
}

/// `weft info path`, killed (and failed) if it has not ended within 30 s.
fn cli_info(path: &Path) -> (Option<i32>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_weft"))
        .arg("info")
        .arg(path)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let mut err = String::new();
            std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
            return (status.code(), err);
        }
        if start.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("weft info {} hangs", path.display());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn refused(r: Result<weft::model::Trace, ReadError>, path: &Path, kind: &str) {
    let e = r.map(|t| t.intervals.len()).unwrap_err().to_string();
    assert!(e.contains(&path.display().to_string()), "names the path: {e}");
    assert!(e.contains(kind) && e.contains("not a regular file"), "{e}");
}

#[test]
fn a_fifo_in_an_otf2_folder_is_refused_not_waited_on() {
    let dir = folder("fifo");
    assert_eq!(read_path(&dir).unwrap().intervals.len(), 4, "the folder reads before the FIFO is put in");
    let evt = dir.join("traces/1.evt");
    mkfifo(&evt);
    refused(read_path(&dir), &evt, "FIFO");
    // The anchor given instead of the folder, and the CLI: the same, at once.
    refused(read_path(&dir.join("traces.otf2")), &evt, "FIFO");
    let (code, err) = cli_info(&dir);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("1.evt") && err.contains("FIFO"), "{err}");
    // A FIFO given as the trace itself.
    let lone = dir.join("trace.prv");
    mkfifo(&lone);
    refused(read_path(&lone), &lone, "FIFO");
    let (code, err) = cli_info(&lone);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("trace.prv") && err.contains("FIFO"), "{err}");
}

#[test]
fn a_link_to_dev_zero_is_refused_not_read_forever() {
    let dir = folder("zero");
    let evt = dir.join("traces/0.evt");
    std::fs::remove_file(&evt).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &evt).unwrap();
    refused(read_path(&dir), &evt, "character device");
    let (code, err) = cli_info(&dir);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("0.evt") && err.contains("character device"), "{err}");
    // A link to /dev/zero given as the trace, and one named like a Paraver trace's .pcf beside it (left out
    // with a warning: the names are optional).
    let zero = dir.join("zero.json");
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    refused(read_path(&zero), &zero, "character device");
    std::fs::write(dir.join("t.prv"), "#Paraver (01/01/2026 at 00:00):100_ns:1(1):1:1(1:1)\n1:1:1:1:1:0:50:1\n")
        .unwrap();
    std::os::unix::fs::symlink("/dev/zero", dir.join("t.pcf")).unwrap();
    let t = read_path(&dir.join("t.prv")).unwrap();
    assert_eq!(t.intervals.len(), 1);
    let said: Vec<_> = t.warnings.examples().iter().map(|w| w.message.clone()).collect();
    assert!(said.iter().any(|m| m.contains("t.pcf: a character device") && m.contains("read without it")), "{said:?}");
    // A link to a regular file is read as that file.
    std::os::unix::fs::symlink(dir.join("t.prv"), dir.join("link.prv")).unwrap();
    assert_eq!(read_path(&dir.join("link.prv")).unwrap().intervals.len(), 1);
}
