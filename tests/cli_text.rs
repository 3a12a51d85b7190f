//! The CLI never lets trace text drive the terminal: region, process and thread names, warning examples,
//! file names and CSV cells in errors holding terminal escape sequences (ESC ] 0 ; title BEL, ESC [ 2 J), a
//! right-to-left override (U+202E) or a zero-width space (U+200B) print as visible `\u{…}` markers. And
//! `weft info` groups warnings by what they mean for the view: data left out, then repairs.

use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};
use weft::model::text::is_hidden_control;

use crate::common::TempDir;

const TITLE: &str = "\u{1b}]0;pwned\u{7}";
const CLEAR: &str = "\u{1b}[2J";

fn weft(args: &[&str], file: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_weft")).args(args).arg(file).output().expect("run weft")
}

/// No control, bidi or zero-width character but the line breaks the program writes itself.
fn assert_clean(text: &str, what: &str) {
    let bad: Vec<String> =
        text.chars().filter(|&c| c != '\n' && is_hidden_control(c)).map(|c| format!("U+{:04X}", c as u32)).collect();
    assert!(bad.is_empty(), "{what} holds {bad:?}:\n{text}");
}

fn hostile_trace() -> String {
    let events = serde_json::json!([
        { "ph": "M", "name": "process_name", "pid": 1, "tid": 1, "args": { "name": format!("{TITLE}rank") } },
        { "ph": "M", "name": "thread_name", "pid": 1, "tid": 1, "args": { "name": "\u{202e}daerht" } },
        { "ph": "X", "name": format!("{TITLE}title"), "pid": 1, "tid": 1, "ts": 0, "dur": 1000 },
        { "ph": "X", "name": format!("{CLEAR}clear"), "pid": 1, "tid": 1, "ts": 10, "dur": 500 },
        { "ph": "X", "name": "\u{202e}gnp.exe", "pid": 1, "tid": 1, "ts": 20, "dur": 100 },
        { "ph": "X", "name": "zero\u{200b}width", "pid": 1, "tid": 1, "ts": 30, "dur": 50 },
        // An end with no begin (left out) and a begin never ended (repaired), both named with escapes.
        { "ph": "E", "name": format!("{CLEAR}stray"), "pid": 1, "tid": 2, "ts": 5 },
        { "ph": "B", "name": format!("{TITLE}open"), "pid": 1, "tid": 2, "ts": 100 },
        { "ph": "X", "name": "tail", "pid": 1, "tid": 2, "ts": 200, "dur": 10 },
    ]);
    events.to_string()
}

#[test]
fn info_escapes_trace_text_and_groups_warnings_by_effect() {
    let dir = TempDir::new("cli-text-info");
    let path = dir.join("\u{202e}nosj.json");
    std::fs::write(&path, hostile_trace()).expect("write fixture");
    let text = weft(&["info"], &path);
    let json = weft(&["info", "--json"], &path);
    assert!(text.status.success(), "{}", String::from_utf8_lossy(&text.stderr));
    let out = String::from_utf8(text.stdout).expect("UTF-8");
    assert_clean(&out, "weft info");
    for shown in [
        "\\u{1b}]0;pwned\\u{7}title",
        "\\u{1b}[2Jclear",
        "\\u{202e}gnp.exe",
        "zero\\u{200b}width",
        "\\u{202e}nosj.json",
        "e.g. ",
    ] {
        assert!(out.contains(shown), "missing {shown:?} in:\n{out}");
    }
    assert!(out.contains("warnings    2 (1 data left out, 1 repaired)"), "{out}");
    let lost = out.find("data left out (not shown):").expect("a data-left-out group");
    let repaired = out.find("repaired (everything read is shown):").expect("a repaired group");
    let unmatched = out.find("unmatched_end").expect("unmatched_end listed");
    let unclosed = out.find("unclosed_begin").expect("unclosed_begin listed");
    assert!(lost < unmatched && unmatched < repaired && repaired < unclosed, "grouped in order:\n{out}");
    assert!(
        out.contains("\\u{1b}[2Jstray") && out.contains("\\u{1b}]0;pwned\\u{7}open"),
        "the examples are escaped:\n{out}"
    );

    // --json: serde escapes; the stable keys stay, the grouping is added.
    assert!(json.status.success());
    let got: Value = serde_json::from_slice(&json.stdout).expect("JSON");
    for key in ["format", "locations", "processes", "intervals", "messages", "warnings", "span_ns", "top_regions"] {
        assert!(got.get(key).is_some(), "missing stable key {key}");
    }
    assert_eq!(got["warnings"], 2);
    assert_eq!(got["warnings_left_out"], 1);
    assert_eq!(got["warnings_repaired"], 1);
    let kinds = got["warning_kinds"].as_array().expect("warning_kinds");
    let brief: Vec<(&str, &str, u64)> = kinds
        .iter()
        .map(|k| (k["kind"].as_str().unwrap(), k["effect"].as_str().unwrap(), k["count"].as_u64().unwrap()))
        .collect();
    assert_eq!(brief, [("unmatched_end", "left_out", 1), ("unclosed_begin", "repaired", 1)]);
    for k in kinds {
        assert!(!k["meaning"].as_str().unwrap().is_empty());
        assert_eq!(k["examples"].as_array().unwrap().len(), 1);
    }
    assert!(kinds[0]["examples"][0].as_str().unwrap().contains(CLEAR), "JSON keeps the name as it is");
    let names: Vec<&str> = got["top_regions"].as_array().unwrap().iter().map(|r| r["name"].as_str().unwrap()).collect();
    assert!(names.contains(&"\u{202e}gnp.exe") && names.contains(&format!("{TITLE}title").as_str()), "{names:?}");
}

#[test]
fn errors_escape_csv_cells_and_file_names() {
    let dir = TempDir::new("cli-text-mir");
    let path = dir.join(format!("{CLEAR}tasks.csv"));
    let csv = format!(
        "task,parent,joins_at,cpu_id,child_number,num_children,exec_cycles,create_instant,wait_instants\n\
         1,0,0,0,1,0,{TITLE}100\u{202e},0,[0]\n"
    );
    std::fs::write(&path, csv).expect("write fixture");
    let out = weft(&["grains"], &path);
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).expect("UTF-8");
    assert_clean(&err, "the error");
    assert!(err.contains("\\u{1b}[2Jtasks.csv"), "{err}");
    assert!(err.contains("\\u{1b}]0;pwned\\u{7}100\\u{202e}"), "{err}");
}
