//! The `nsys stats` NVTX trace CSV (the push/pop range report, `--report nvtx_pushpop_trace --format csv`;
//! what pipit's NsightReader reads): one range a line with `Start (ns)`, `End (ns)` (or `Duration (ns)`),
//! `Name`, `PID` and `TID` columns, found by name in the header. Each range becomes an interval on its
//! thread; the builder nests them (the report's `Lvl` and `ParentId` agree with containment).
//! Lines that cannot be read are skipped with a warning; a file with no readable line is an error.

use crate::budget::Budget;
use crate::ReadError;
use std::collections::HashMap;
use weft_model::{Format, LocationKind, Trace, TraceBuilder, WarningKind};

const FORMAT: &str = "nsys stats NVTX CSV";

/// Split one CSV line into fields (RFC 4180 quotes; `""` is a quote inside a quoted field).
fn fields(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                chars.next();
                cur.push('"');
            }
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(std::mem::take(&mut cur)),
            c => cur.push(c),
        }
    }
    out.push(cur);
    out
}

/// The columns the reader needs, by index.
struct Columns {
    start: usize,
    end: Option<usize>,
    duration: Option<usize>,
    name: usize,
    pid: usize,
    tid: usize,
}

fn columns(header: &str) -> Option<Columns> {
    let names = fields(header.trim_start_matches('\u{feff}'));
    let find = |n: &str| names.iter().position(|h| h.trim() == n);
    let c = Columns {
        start: find("Start (ns)")?,
        end: find("End (ns)"),
        duration: find("Duration (ns)"),
        name: find("Name")?,
        pid: find("PID")?,
        tid: find("TID")?,
    };
    (c.end.is_some() || c.duration.is_some()).then_some(c)
}

/// Whether a file's first line is the header of an `nsys stats` NVTX trace CSV.
pub fn looks_like_header(line: &[u8]) -> bool {
    std::str::from_utf8(line).ok().is_some_and(|l| columns(l.trim_end_matches('\r')).is_some())
}

/// Read an `nsys stats` NVTX trace CSV held in memory.
pub fn read(file: &str, bytes: &[u8]) -> Result<Trace, ReadError> {
    Budget::current().admit_whole(file, FORMAT, bytes.len() as u64)?;
    let malformed = |offset: usize, detail: String| ReadError::Malformed {
        file: file.to_string(),
        format: FORMAT,
        offset: offset as u64,
        detail,
    };
    let text = std::str::from_utf8(bytes).map_err(|e| malformed(e.valid_up_to(), "not UTF-8 text".into()))?;
    let mut lines = text.split_inclusive('\n');
    let header = lines.next().unwrap_or("");
    let cols = columns(header.trim_end_matches(['\r', '\n']))
        .ok_or_else(|| malformed(0, "the header lacks Start (ns), End (ns), Name, PID or TID".into()))?;
    let mut b = TraceBuilder::new(Format::NsightCsv);
    let mut threads = HashMap::new();
    let mut offset = header.len();
    let (mut skipped, mut read) = (0u64, 0u64);
    let mut first_bad: Option<(usize, String)> = None;
    for line in lines {
        let at = offset;
        offset += line.len();
        let line = line.trim_end_matches(['\r', '\n']);
        if line.is_empty() {
            continue;
        }
        let f = fields(line);
        let int = |i: usize| f.get(i).and_then(|v| v.trim().parse::<i64>().ok());
        let start = int(cols.start);
        let end = match (cols.end.and_then(int), cols.duration.and_then(int), start) {
            (Some(e), _, _) => Some(e),
            (None, Some(d), Some(s)) => s.checked_add(d),
            _ => None,
        };
        let (Some(start), Some(end), Some(pid), Some(tid), Some(name)) =
            (start, end, int(cols.pid), int(cols.tid), f.get(cols.name))
        else {
            skipped += 1;
            first_bad.get_or_insert_with(|| (at, line.chars().take(60).collect()));
            continue;
        };
        if end < start || start < 0 {
            skipped += 1;
            first_bad.get_or_insert_with(|| (at, line.chars().take(60).collect()));
            continue;
        }
        let loc = *threads.entry((pid, tid)).or_insert_with(|| {
            let p = b.process(pid);
            b.location(p, tid, LocationKind::CpuThread)
        });
        let region = b.region(name, "NVTX");
        b.interval(loc, region, start, (end - start) as u64);
        read += 1;
    }
    if read == 0 {
        return Err(match first_bad {
            Some((at, line)) => malformed(at, format!("no range could be read; the first line that failed: {line}")),
            None => ReadError::Empty { file: file.to_string(), format: FORMAT, detail: " (a header only)".into() },
        });
    }
    if let Some((at, line)) = first_bad {
        b.warn(WarningKind::MalformedRecord, || {
            format!("{file}: {skipped} lines without a start, end, name, PID and TID were skipped (the first at byte {at}: {line})")
        });
    }
    b.add_event_records(read);
    Ok(b.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_ranges_and_nests_them() {
        let csv = "Start (ns),End (ns),Duration (ns),Name,PID,TID,Lvl\n\
                   10,100,90,main,7,7,0\n20,30,10,\"a, b\",7,7,1\nbad line\n40,50,10,c,7,8,0\n";
        let t = read("t.csv", csv.as_bytes()).unwrap();
        assert_eq!(t.intervals.len(), 3);
        assert_eq!(t.locations.len(), 2);
        assert!(t.intervals.depth.contains(&1));
        assert!((0..t.regions.len()).any(|r| t.region_name(weft_model::RegionId(r as u32)) == "a, b"));
        assert_eq!(t.warnings.count(WarningKind::MalformedRecord), 1);
        let e = read("t.csv", b"Start (ns),Name,PID,TID\n1,a,1,1\n").unwrap_err().to_string();
        assert!(e.contains("t.csv") && e.contains("header"), "{e}");
        let e = read("t.csv", b"Start (ns),End (ns),Name,PID,TID\n1,x,a,1,1\n").unwrap_err().to_string();
        assert!(e.contains("byte 33"), "{e}");
        assert!(looks_like_header(b"Start (ns),End (ns),Duration (ns),Name,PID,TID\r"));
        assert!(!looks_like_header(b"task,parent,exec_cycles"));
    }
}
