//! The communication matrix (`analyses::comm_matrix`) on the real MPI samples: equal to an independent count
//! of the send records by the official OTF2 reader (tests/oracle/otf2_oracle.py `sends`), for the whole trace
//! and for a window; every message once over the whole trace (and over a window cut in two); `weft info
//! --json` prints it as `comm_matrix` keeping the other keys, `--window` gives the window's, and the text
//! output shows a compact matrix.
//! The oracle test runs when WEFT_PYTHON names a python with `otf2` importable; otherwise prints SKIPPED.

use crate::common;

use common::read::read_path;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use weft::analyses::comm_matrix::{comm_matrix, CommMatrix, MatrixUnit};
use weft::analyses::moments::TimeWindow;
use weft::model::{MessageKind, Trace};

fn otf2_dir(name: &str, test: &str) -> Option<PathBuf> {
    Some(common::shared_traces(test)?.join("otf2").join(name))
}

fn python(test: &str) -> Option<String> {
    match std::env::var("WEFT_PYTHON") {
        Ok(p) if !p.is_empty() => Some(p),
        _ => {
            eprintln!("SKIPPED {test}: WEFT_PYTHON is not set (point it to a python with the `otf2` package)");
            None
        }
    }
}

/// The oracle's matrix: "sender\treceiver" -> [count, bytes].
fn oracle(py: &str, anchor: &Path, window: Option<(u64, u64)>) -> BTreeMap<String, (u64, u64)> {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/otf2_oracle.py");
    let mut cmd = Command::new(py);
    cmd.arg(script).arg("sends").arg(anchor);
    if let Some((a, b)) = window {
        cmd.arg(a.to_string()).arg(b.to_string());
    }
    let out = cmd.output().expect("run python");
    assert!(out.status.success(), "oracle failed: {}", String::from_utf8_lossy(&out.stderr));
    let v: BTreeMap<String, (u64, u64)> = serde_json::from_slice(&out.stdout).expect("oracle JSON");
    v
}

/// The matrix's non-zero cells keyed as the oracle keys them.
fn cells(m: &CommMatrix) -> BTreeMap<String, (u64, u64)> {
    let mut out = BTreeMap::new();
    for (s, row) in m.count.iter().enumerate() {
        for (r, &n) in row.iter().enumerate() {
            if n > 0 {
                out.insert(format!("{}\t{}", m.senders[s], m.receivers[r]), (n, m.bytes[s][r]));
            }
        }
    }
    out
}

fn p2p(t: &Trace) -> usize {
    t.messages.kind.iter().filter(|&&k| k == MessageKind::PointToPoint).count()
}

#[test]
fn matrix_equals_the_official_readers_count_of_sends() {
    let Some(py) = python("matrix_equals_the_official_readers_count_of_sends") else { return };
    let mut checked = 0;
    for name in ["pipit-ping-pong-mpi", "tracer-stencil4d-mpi-32"] {
        let Some(dir) = otf2_dir(name, "matrix_equals_the_official_readers_count_of_sends") else { return };
        let anchor = dir.join("traces.otf2");
        let t = read_path(&anchor).unwrap();
        let whole = comm_matrix(&t, None, MatrixUnit::Process);
        let want = oracle(&py, &anchor, None);
        assert!(!want.is_empty(), "{name}: the oracle found sends");
        assert_eq!(cells(&whole), want, "{name}: whole trace");
        // A window: from the send at a quarter of the sends to the one at three quarters (MPI_Init fills
        // most of these runs: a fixed fraction of the span may hold no message).
        let mut sends = t.messages.send_ns.clone();
        sends.sort_unstable();
        let (a, b) = (sends[sends.len() / 4], sends[3 * sends.len() / 4]);
        let win = comm_matrix(&t, Some(TimeWindow { start_ns: a, end_ns: b }), MatrixUnit::Process);
        let want = oracle(&py, &anchor, Some((a, b)));
        assert!(!want.is_empty(), "{name}: the window holds sends");
        assert_eq!(cells(&win), want, "{name}: window {a}:{b}");
        assert!(win.messages() < whole.messages(), "{name}: the window holds fewer messages");
        checked += 1;
    }
    assert_eq!(checked, 2);
}

#[test]
fn every_message_counts_once_and_windows_split_them() {
    let Some(root) = common::shared_traces("every_message_counts_once_and_windows_split_them") else { return };
    let stencil = root.join("otf2/tracer-stencil4d-mpi-32/traces.otf2");
    let paraver = root.join("paraver/paraver-kernel-qsort_beo3/qsort_beo3.prv");
    for path in [stencil, paraver] {
        let t = read_path(&path).unwrap();
        let n = p2p(&t);
        assert!(n > 0, "{}: has messages", path.display());
        for unit in [MatrixUnit::Process, MatrixUnit::Location] {
            let m = comm_matrix(&t, None, unit);
            assert_eq!(m.messages() as usize, n, "{}: every message once", path.display());
            let bytes: u64 = (0..t.messages.len())
                .filter(|&j| t.messages.kind[j] == MessageKind::PointToPoint)
                .map(|j| t.messages.size_bytes[j])
                .sum();
            assert_eq!(m.total_bytes(), bytes);
            assert_eq!(m.senders, m.receivers);
            assert!(m.count.iter().all(|r| r.len() == m.senders.len()));
            let cut = t.span_ns / 2;
            let a = comm_matrix(&t, Some(TimeWindow { start_ns: 0, end_ns: cut }), unit);
            let b = comm_matrix(&t, Some(TimeWindow { start_ns: cut, end_ns: t.span_ns }), unit);
            assert_eq!(a.senders, m.senders, "the shape does not depend on the window");
            assert_eq!(a.messages() + b.messages(), m.messages(), "two halves split the messages");
        }
    }
}

fn weft_info(args: &[&str]) -> std::process::Output {
    let out = Command::new(env!("CARGO_BIN_EXE_weft")).arg("info").args(args).output().expect("run weft");
    assert!(out.status.success(), "weft info {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    out
}

#[test]
fn weft_info_prints_the_matrix() {
    let Some(root) = common::shared_traces("weft_info_prints_the_matrix") else { return };
    let anchor = root.join("otf2/tracer-stencil4d-mpi-32/traces.otf2");
    let path = anchor.to_str().unwrap();
    let t = read_path(&anchor).unwrap();
    let json: Value = serde_json::from_slice(&weft_info(&[path, "--json"]).stdout).unwrap();
    for key in ["format", "span_ns", "processes", "messages", "regions"] {
        assert!(json.get(key).is_some(), "--json keeps '{key}'");
    }
    let m = comm_matrix(&t, None, MatrixUnit::Process);
    let cm = &json["comm_matrix"];
    assert_eq!(cm["unit"], "process");
    assert_eq!(cm["senders"].as_array().unwrap().len(), 32);
    assert_eq!(cm["count"], serde_json::to_value(&m.count).unwrap());
    assert_eq!(cm["bytes"], serde_json::to_value(&m.bytes).unwrap());
    assert_eq!(cm["receivers"], serde_json::to_value(&m.receivers).unwrap());

    let mut sends = t.messages.send_ns.clone();
    sends.sort_unstable();
    let (a, b) = (sends[sends.len() / 4], sends[sends.len() / 2]);
    let window = format!("{a}:{b}");
    let json: Value = serde_json::from_slice(&weft_info(&[path, "--window", &window, "--json"]).stdout).unwrap();
    let w = comm_matrix(&t, Some(TimeWindow { start_ns: a, end_ns: b }), MatrixUnit::Process);
    assert_eq!(json["comm_matrix"]["count"], serde_json::to_value(&w.count).unwrap());
    assert_ne!(w.count, m.count, "the window's matrix is not the whole trace's");
    assert!(w.messages() > 0, "the window holds messages");

    // Text: 32 processes is more than the compact matrix shows; the ping-pong's two are shown.
    let text = String::from_utf8(weft_info(&[path]).stdout).unwrap();
    assert!(text.contains("the matrix is in --json"), "{text}");
    let text = String::from_utf8(weft_info(&[path, "--window", &window]).stdout).unwrap();
    assert!(text.contains(&format!("comm matrix {} messages", w.messages())), "{text}");
    let pp = root.join("otf2/pipit-ping-pong-mpi/traces.otf2");
    let text = String::from_utf8(weft_info(&[pp.to_str().unwrap()]).stdout).unwrap();
    let t = read_path(&pp).unwrap();
    let m = comm_matrix(&t, None, MatrixUnit::Process);
    assert!(text.contains("messages: sender (row) to receiver (column)"), "{text}");
    let row0 = format!(
        "    0  {:>w$} {:>w$}  {}",
        ".",
        m.count[0][1],
        m.senders[0],
        w = 1.max(m.count[0][1].to_string().len())
    );
    assert!(text.contains(&row0), "row 0 of the counts '{row0}' in\n{text}");
}
