//! The MIR profiler's per-grain CSV (`task-stats.merged`, `task-stats.processed` and similar): one row per
//! task or for-loop chunk, with its parent, join point, creation and wait instants, cycles and derived columns.
//!
//! Columns are found by name from the header (quoted or not, in any order); unknown columns are ignored, and
//! every numeric column besides the structural ones is kept by name for the analyses. Rows whose parent is
//! `NA` (MIR's background task) and idle tasks without children are dropped, as the grain-graphs prototype
//! does; so are the non-task rows of the prototype's own tables (a `type` other than task, `group` TRUE). The rows
//! become a [`GrainProfile`] in cycles: the columns the model names (`creation_cycles`, `overhead_cycles`,
//! `work_cycles`, `PAPI_RES_STL_sum`, `mem_hier_util`, `work_deviation`) go to its metric fields, the rest to its
//! counters by name. This module builds no graph and computes no metric; it must never panic on any bytes.

use super::ReadError;
use std::borrow::Cow;
use weft_model::grains::{Column, GrainProfile, TimeUnit};

const FORMAT: &str = "MIR task stats";

/// Columns the reader interprets itself (everything else numeric is a metric or counter column).
const STRUCTURAL: [&str; 16] = [
    "type",
    "group",
    "task",
    "parent",
    "joins_at",
    "child_number",
    "num_children",
    "cpu_id",
    "exec_cycles",
    "create_instant",
    "wait_instants",
    "lineage",
    "chunk_lineage",
    "outline_function",
    "source_line",
    "tag",
];

/// Does this header line name the columns of a MIR task-stats file?
pub fn looks_like_header(line: &[u8]) -> bool {
    let mut names = Vec::new();
    if split_record(line, &mut names).is_err() {
        return false;
    }
    let has = |n: &str| names.iter().any(|c| c.trim() == n);
    has("task") && has("parent") && (has("exec_cycles") || has("joins_at"))
}

/// Split one CSV record (no line break inside) into cells, unquoting `"..."` and `""`. Cells borrow from the
/// line unless they hold a doubled quote or invalid UTF-8.
fn split_record<'a>(line: &'a [u8], out: &mut Vec<Cow<'a, str>>) -> Result<(), String> {
    out.clear();
    let text = |b: &'a [u8]| -> Cow<'a, str> { String::from_utf8_lossy(b) };
    let mut i = 0;
    loop {
        if line.get(i) == Some(&b'"') {
            i += 1;
            let start = i;
            let mut owned: Option<Vec<u8>> = None;
            loop {
                match line.get(i) {
                    None => return Err("unterminated quoted cell".into()),
                    Some(b'"') if line.get(i + 1) == Some(&b'"') => {
                        owned.get_or_insert_with(|| line[start..i].to_vec()).push(b'"');
                        i += 2;
                    }
                    Some(b'"') => {
                        let cell = match owned.take() {
                            Some(v) => Cow::Owned(String::from_utf8_lossy(&v).into_owned()),
                            None => text(&line[start..i]),
                        };
                        out.push(cell);
                        i += 1;
                        break;
                    }
                    Some(&c) => {
                        if let Some(v) = owned.as_mut() {
                            v.push(c);
                        }
                        i += 1;
                    }
                }
            }
            match line.get(i) {
                None | Some(b',') => {}
                Some(_) => return Err("text after a closing quote".into()),
            }
        } else {
            let start = i;
            while line.get(i).is_some_and(|&c| c != b',') {
                i += 1;
            }
            out.push(text(&line[start..i]));
        }
        if line.get(i) == Some(&b',') {
            i += 1;
        } else {
            return Ok(());
        }
    }
}

fn is_na(s: &str) -> bool {
    let s = s.trim();
    s.is_empty() || s == "NA" || s == "NaN"
}

fn number(s: &str) -> Option<f64> {
    if is_na(s) {
        return None;
    }
    let t = s.trim();
    match t {
        "TRUE" => Some(1.0),
        "FALSE" => Some(0.0),
        _ => t.parse::<f64>().ok().filter(|v| v.is_finite()),
    }
}

/// Read a whole CSV held in memory. `name` is used in messages only.
pub fn read(name: &str, bytes: &[u8]) -> Result<GrainProfile, ReadError> {
    let err = |line: usize, offset: usize, detail: String| ReadError::Malformed {
        file: name.to_string(),
        format: FORMAT,
        offset: offset as u64,
        detail: format!("line {line}: {detail}"),
    };
    let bytes = bytes.strip_prefix(&[0xEF, 0xBB, 0xBF][..]).unwrap_or(bytes);
    let mut lines = bytes.split(|&c| c == b'\n').enumerate().scan(0usize, |off, (i, l)| {
        let start = *off;
        *off += l.len() + 1;
        Some((i + 1, start, l.strip_suffix(b"\r").unwrap_or(l)))
    });
    let mut header_cells = Vec::new();
    // The header: the first line that is neither blank nor a `#` comment.
    let (header_line, header_off) = loop {
        match lines.next() {
            None => return Err(ReadError::Empty { file: name.into(), format: FORMAT, detail: " (no header)".into() }),
            Some((_, _, l)) if l.iter().all(|c| c.is_ascii_whitespace()) || l.first() == Some(&b'#') => continue,
            Some((n, off, l)) => {
                split_record(l, &mut header_cells).map_err(|d| err(n, off, d))?;
                break (n, off);
            }
        }
    };
    let names: Vec<String> = header_cells.iter().map(|c| c.trim().to_string()).collect();
    let col = |n: &str| names.iter().position(|c| c == n);
    let need = |n: &'static str| {
        col(n).ok_or_else(|| err(header_line, header_off, format!("the header has no \"{n}\" column")))
    };
    let (c_task, c_parent) = (need("task")?, need("parent")?);
    let c_exec = need("exec_cycles")?;
    let (c_joins, c_child, c_nchild) = (col("joins_at"), col("child_number"), col("num_children"));
    let (c_cpu, c_create, c_wait) = (col("cpu_id"), col("create_instant"), col("wait_instants"));
    let c_lineage = col("chunk_lineage").or_else(|| col("lineage"));
    let (c_type, c_group) = (col("type"), col("group"));
    let (c_outline, c_source, c_tag) = (col("outline_function"), col("source_line"), col("tag"));
    let numeric_cols: Vec<usize> = (0..names.len()).filter(|&i| !STRUCTURAL.contains(&names[i].as_str())).collect();

    let mut p = GrainProfile {
        file: name.to_string(),
        unit: TimeUnit::Cycles,
        for_loop: col("chunk_lineage").is_some(),
        wait_start: vec![0],
        ..Default::default()
    };
    let mut numeric: Vec<(String, Column)> = numeric_cols.iter().map(|&i| (names[i].clone(), Vec::new())).collect();
    let text = |cells: &[Cow<str>], c: Option<usize>| -> Cow<'static, str> {
        match c.and_then(|c| cells.get(c)).filter(|s| !is_na(s)) {
            Some(s) => Cow::Owned(s.trim().to_string()),
            None => Cow::Borrowed(""),
        }
    };
    let mut waits = Vec::new();
    for (n, off, line) in lines {
        if line.iter().all(|c| c.is_ascii_whitespace()) || line.first() == Some(&b'#') {
            continue;
        }
        let mut cells = Vec::with_capacity(names.len());
        split_record(line, &mut cells).map_err(|d| err(n, off, d))?;
        // R's write.csv with row names: one more cell per row than the header names; the first is the name.
        if cells.len() == names.len() + 1 {
            cells.remove(0);
        }
        if cells.len() != names.len() {
            return Err(err(n, off, format!("{} cells where the header names {} columns", cells.len(), names.len())));
        }
        let int = |c: usize, what: &str| -> Result<Option<u64>, ReadError> {
            let s = &cells[c];
            if is_na(s) {
                return Ok(None);
            }
            match number(s) {
                Some(v) if (0.0..=9.0e15).contains(&v) => Ok(Some(v.round() as u64)),
                _ => Err(err(n, off, format!("{what} \"{}\" is not a non-negative number", s.trim()))),
            }
        };
        // The prototype's own tables (.nodeattr, task-stats.aggregated) also hold fork, join, start and end
        // rows and aggregation groups: only task rows are grains.
        if c_type.is_some_and(|c| cells[c].trim() != "task") || c_group.is_some_and(|c| cells[c].trim() == "TRUE") {
            continue;
        }
        // MIR's background task has no parent: the prototype drops it, and so do we.
        let Some(parent) = int(c_parent, "parent")? else {
            continue;
        };
        let Some(task) = int(c_task, "task")? else {
            return Err(err(n, off, "the task id is NA".into()));
        };
        let small = |c: Option<usize>, what: &str| -> Result<Option<u32>, ReadError> {
            match c {
                None => Ok(None),
                Some(c) => match int(c, what)? {
                    None => Ok(None),
                    Some(v) => u32::try_from(v).map(Some).map_err(|_| err(n, off, format!("{what} {v} is too large"))),
                },
            }
        };
        let num_children = small(c_nchild, "num_children")?.unwrap_or(0);
        let tag = text(&cells, c_tag);
        if tag == "idle_task" && num_children == 0 {
            continue;
        }
        p.task.push(task);
        p.parent.push(parent);
        p.joins_at.push(small(c_joins, "joins_at")?.unwrap_or(0));
        p.child_number.push(small(c_child, "child_number")?.unwrap_or(0));
        p.num_children.push(num_children);
        p.core.push(small(c_cpu, "cpu_id")?);
        p.exec.push(int(c_exec, "exec_cycles")?.unwrap_or(0));
        p.create_instant.push(match c_create {
            Some(c) => int(c, "create_instant")?.unwrap_or(0),
            None => 0,
        });
        waits.clear();
        if let Some(c) = c_wait {
            let s = cells[c].trim();
            if !is_na(s) {
                let inner = s
                    .strip_prefix('[')
                    .and_then(|s| s.strip_suffix(']'))
                    .ok_or_else(|| err(n, off, format!("wait_instants \"{s}\" is not of the form [a;b;...]")))?;
                for w in inner.split(';').filter(|w| !w.trim().is_empty()) {
                    match number(w) {
                        Some(v) if (0.0..=9.0e15).contains(&v) => waits.push(v.round() as u64),
                        _ => return Err(err(n, off, format!("wait instant \"{w}\" is not a non-negative number"))),
                    }
                }
            }
        }
        waits.retain(|&w| w != 0);
        waits.sort_unstable();
        p.wait_instants.extend_from_slice(&waits);
        let end = u32::try_from(p.wait_instants.len()).map_err(|_| err(n, off, "too many wait instants".into()))?;
        p.wait_start.push(end);
        p.lineage.push(p.strings.intern(&text(&cells, c_lineage)));
        p.function.push(p.strings.intern(&text(&cells, c_outline)));
        p.source.push(p.strings.intern(&text(&cells, c_source)));
        p.tag.push(p.strings.intern(&tag));
        for (k, &c) in numeric_cols.iter().enumerate() {
            numeric[k].1.push(number(&cells[c]));
        }
    }
    if p.is_empty() {
        return Err(ReadError::Empty { file: name.into(), format: FORMAT, detail: " (no grain rows)".into() });
    }
    // The columns the model names; a column named twice keeps its first.
    for (name, column) in numeric {
        let field = match name.as_str() {
            "creation_cycles" => &mut p.creation,
            "overhead_cycles" => &mut p.overhead,
            "work_cycles" => &mut p.work,
            "PAPI_RES_STL_sum" => &mut p.resource_stalls,
            "mem_hier_util" => &mut p.mem_hier_util,
            "work_deviation" => &mut p.work_deviation,
            _ => {
                p.counters.push((name, column));
                continue;
            }
        };
        if field.is_none() {
            *field = Some(column);
        } else {
            p.counters.push((name, column));
        }
    }
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: &str = "\"task\",\"parent\",\"joins_at\",\"cpu_id\",\"child_number\",\"num_children\",\"exec_cycles\",\"create_instant\",\"wait_instants\",\"tag\",\"work_cycles\"\n\
        1,0,0,0,1,2,100,0,\"[0;80]\",\"a\",90\n\
        2,1,0,1,1,0,10,20,\"[0]\",\"b\",NA\n\
        3,1,0,2,2,0,12,30,\"[0]\",\"b\",12\n\
        9,NA,0,0,1,0,1,0,\"[0]\",\"bg\",1\n";

    #[test]
    fn reads_rows_by_header() {
        let p = read("t.csv", SMALL.as_bytes()).unwrap();
        assert_eq!(p.task, vec![1, 2, 3]);
        assert_eq!(p.parent, vec![0, 1, 1]);
        assert_eq!(p.waits(0), &[80]);
        assert!(p.waits(1).is_empty());
        assert_eq!(p.work.as_deref().unwrap(), &[Some(90.0), None, Some(12.0)]);
        assert_eq!(p.string(p.tag[1]), "b");
        // R's row names: a first cell the header does not name.
        let named = SMALL.replace("\n1,0,", "\n\"r1\",1,0,");
        assert_eq!(read("t.csv", named.as_bytes()).unwrap().task, vec![1, 2, 3]);
    }

    #[test]
    fn errors_name_the_line() {
        let bad = SMALL.replace("2,1,0,1,1,0,10", "2,1,0,1,1,0,-10");
        let e = read("t.csv", bad.as_bytes()).unwrap_err().to_string();
        assert!(e.contains("t.csv") && e.contains("line 3") && e.contains("exec_cycles"), "{e}");
        let e = read("t.csv", b"\"task\",\"x\"\n1,2\n").unwrap_err().to_string();
        assert!(e.contains("parent"), "{e}");
    }

    #[test]
    fn never_panics_on_noise() {
        let mut s: u64 = 0x9e3779b97f4a7c15;
        let base = SMALL.as_bytes().to_vec();
        for _ in 0..2000 {
            let mut b = base.clone();
            for _ in 0..4 {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                let i = (s % b.len() as u64) as usize;
                b[i] = (s >> 32) as u8;
            }
            let _ = read("noise", &b);
            let cut = (s % b.len() as u64) as usize;
            let _ = read("noise", &b[..cut]);
        }
    }
}
