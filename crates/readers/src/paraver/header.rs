//! The `.prv` header: the first line (date, end time and its unit, nodes and CPUs, applications -> tasks
//! -> threads with their nodes, the number of communicators) and the communicator lines after it. It reads
//! the syntax only and builds no model; it must not panic on any bytes, and refuses (with the line) what it
//! cannot read, as Paraver's own kernel does.

use super::prv::Cur;
use std::fmt;

/// The unit of every time in the file, from the header's end-time suffix. Paraver's own kernel reads a
/// bare number as microseconds and `_ns`, `_us`, `_ms` as named; so does this reader.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeUnit {
    Ns,
    Us,
    Ms,
}

impl TimeUnit {
    pub fn ns_per_tick(self) -> u64 {
        match self {
            TimeUnit::Ns => 1,
            TimeUnit::Us => 1_000,
            TimeUnit::Ms => 1_000_000,
        }
    }
}

/// One task of an application, as the header declares it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaskDef {
    pub threads: u32,
    /// The node the task runs on (1-based), 0 when the trace has no resource model.
    pub node: u32,
}

/// A communicator line `c:appl:id:ntasks:task...`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Communicator {
    pub appl: u32,
    pub id: u64,
    /// Member tasks (1-based); Paraver's own samples write -1 for a communicator of no known task.
    pub tasks: Vec<i64>,
}

/// What the header line and the communicator lines after it say.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// The text between the parentheses (`dd/mm/yy at hh:mm`).
    pub date: String,
    pub unit: TimeUnit,
    /// The trace's end time, in `unit`.
    pub end_time: u64,
    /// CPUs per node; empty when the header declares no resources (`0`).
    pub cpus_per_node: Vec<u32>,
    /// Applications, each a list of tasks.
    pub applications: Vec<Vec<TaskDef>>,
    pub communicators: Vec<Communicator>,
    /// Communicator lines that start like one but do not parse: (1-based line, what was wrong). Paraver
    /// itself only checks their first letter, so they are not fatal.
    pub problems: Vec<(u64, String)>,
}

impl Header {
    pub fn tasks(&self) -> usize {
        self.applications.iter().map(Vec::len).sum()
    }
    pub fn threads(&self) -> u64 {
        self.applications.iter().flatten().map(|t| t.threads as u64).sum()
    }
}

/// Why the header could not be read: the 1-based line and what was expected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeaderError {
    pub line: u64,
    pub offset: u64,
    pub detail: String,
}

impl fmt::Display for HeaderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.detail)
    }
}

fn header_err(line: u64, offset: usize, detail: impl Into<String>) -> HeaderError {
    HeaderError { line, offset: offset as u64, detail: detail.into() }
}

/// Read the header line and its communicator lines. Returns the header, the byte offset where the body
/// starts and the body's first line number.
pub fn parse_header(bytes: &[u8]) -> Result<(Header, usize, u64), HeaderError> {
    let bytes_no_bom = bytes.strip_prefix(&[0xEF, 0xBB, 0xBF][..]).unwrap_or(bytes);
    let mut pos = bytes.len() - bytes_no_bom.len();
    let mut line_no = 1u64;
    let next_line = |pos: &mut usize| -> &[u8] {
        let rest = &bytes[*pos..];
        let end = rest.iter().position(|&c| c == b'\n').unwrap_or(rest.len());
        *pos += (end + 1).min(rest.len());
        let line = &rest[..end];
        line.strip_suffix(b"\r").unwrap_or(line)
    };
    let mut line = next_line(&mut pos);
    if line == b"new format" {
        line = next_line(&mut pos);
        line_no += 1;
    }
    let start = pos - line.len();
    let rest = line
        .strip_prefix(b"#Paraver")
        .ok_or_else(|| header_err(line_no, start, "expected a header line starting with \"#Paraver\""))?;
    // The date holds ':' itself, so it is delimited by its parentheses.
    let open = rest.iter().position(|&c| c == b'(');
    let close = rest.iter().position(|&c| c == b')');
    let (date, rest) = match (open, close) {
        (Some(o), Some(c)) if o < c => (String::from_utf8_lossy(&rest[o + 1..c]).into_owned(), &rest[c + 1..]),
        _ => return Err(header_err(line_no, start, "expected the date in parentheses after \"#Paraver\"")),
    };
    let mut c = Cur { b: rest, i: 0 };
    let bad = |c: &Cur, what: &str| {
        header_err(line_no, start, format!("{what} at column {}", line.len() - rest.len() + c.i + 1))
    };
    c.colon().ok_or_else(|| bad(&c, "expected ':' after the date"))?;
    let end_time = c.u64().ok_or_else(|| bad(&c, "expected the trace's end time"))?;
    let unit = if c.peek() == Some(b'_') {
        let s = c.i;
        while c.peek().is_some_and(|b| b != b':') {
            c.i += 1;
        }
        match &rest[s..c.i] {
            b"_ns" => TimeUnit::Ns,
            b"_ms" => TimeUnit::Ms,
            b"_us" => TimeUnit::Us,
            _ => return Err(bad(&c, "unknown time unit (expected _ns, _us or _ms)")),
        }
    } else {
        TimeUnit::Us
    };
    c.colon().ok_or_else(|| bad(&c, "expected ':' after the end time"))?;
    // Resources: `0`, `nNodes(cpus,...)`, or the old `nCpus` (one CPU per node).
    let declarable = (bytes.len() as u64).clamp(4096, 1 << 20);
    let n_nodes = c.u32().ok_or_else(|| bad(&c, "expected the number of nodes"))?;
    let mut cpus_per_node = Vec::new();
    if c.peek() == Some(b'(') {
        c.i += 1;
        for k in 0..n_nodes {
            if k > 0 {
                if c.peek() != Some(b',') {
                    return Err(bad(&c, "expected ',' between CPU counts"));
                }
                c.i += 1;
            }
            cpus_per_node.push(c.u32().ok_or_else(|| bad(&c, "expected a node's CPU count"))?);
            if cpus_per_node.len() > 1 << 20 {
                return Err(bad(&c, "too many nodes"));
            }
        }
        if c.peek() != Some(b')') {
            return Err(bad(&c, "expected ')' after the CPU counts"));
        }
        c.i += 1;
    } else if n_nodes > 0 {
        cpus_per_node = vec![1; (n_nodes as u64).min(declarable) as usize];
    }
    c.colon().ok_or_else(|| bad(&c, "expected ':' after the resources"))?;
    let n_appl = c.u32().ok_or_else(|| bad(&c, "expected the number of applications"))?;
    if n_appl == 0 {
        return Err(bad(&c, "the header declares no application"));
    }
    let mut applications = Vec::new();
    let mut total_threads = 0u64;
    for a in 0..n_appl {
        c.colon().ok_or_else(|| bad(&c, "expected ':' before an application's task list"))?;
        let n_tasks = c.u32().ok_or_else(|| bad(&c, "expected an application's number of tasks"))?;
        if c.peek() != Some(b'(') {
            return Err(bad(&c, "expected '(' after the number of tasks"));
        }
        c.i += 1;
        let mut tasks = Vec::new();
        for k in 0..n_tasks {
            if k > 0 {
                if c.peek() != Some(b',') {
                    return Err(bad(&c, "expected ',' between tasks"));
                }
                c.i += 1;
            }
            let threads = c.u32().ok_or_else(|| bad(&c, "expected a task's number of threads"))?;
            c.colon().ok_or_else(|| bad(&c, "expected ':' between a task's threads and node"))?;
            let node = c.u32().ok_or_else(|| bad(&c, "expected a task's node"))?;
            total_threads += threads as u64;
            // A few header bytes must not reserve gigabytes: 1 M threads is beyond any trace seen, and a file
            // declares at most one thread per byte of it (beyond a floor of 4,096 for header-only files).
            if total_threads > 1 << 20 {
                return Err(bad(&c, "more than 1 M threads declared"));
            }
            if total_threads > declarable {
                return Err(bad(
                    &c,
                    &format!("declares more threads than a file of {} bytes can describe", bytes.len()),
                ));
            }
            tasks.push(TaskDef { threads, node });
        }
        if c.peek() != Some(b')') {
            return Err(bad(&c, "expected ')' after the task list"));
        }
        c.i += 1;
        applications.push(tasks);
        if a + 1 == n_appl {
            break;
        }
    }
    let mut n_comms = 0u64;
    if c.peek() == Some(b',') {
        c.i += 1;
        n_comms = c.u64().ok_or_else(|| bad(&c, "expected the number of communicators after ','"))?;
    }
    if !c.at_eol() {
        return Err(bad(&c, "unexpected text after the application list"));
    }
    let mut communicators = Vec::new();
    let mut problems = Vec::new();
    for _ in 0..n_comms {
        if pos >= bytes.len() {
            break;
        }
        let start = pos;
        let l = next_line(&mut pos);
        line_no += 1;
        if !(l.starts_with(b"c") || l.starts_with(b"C")) {
            return Err(header_err(line_no, start, "expected a communicator line \"c:appl:id:ntasks:task...\""));
        }
        match parse_communicator(l) {
            Some(c) => communicators.push(c),
            None => problems
                .push((line_no, "a communicator line that does not parse as c:appl:id:ntasks:task...".to_string())),
        }
    }
    let header = Header { date, unit, end_time, cpus_per_node, applications, communicators, problems };
    Ok((header, pos, line_no + 1))
}

fn parse_communicator(l: &[u8]) -> Option<Communicator> {
    let rest = l.strip_prefix(b"c").or_else(|| l.strip_prefix(b"C"))?;
    let mut c = Cur { b: rest, i: 0 };
    let appl = c.colon().and_then(|_| c.u32())?;
    let id = c.field_u64()?;
    let n = c.field_u64()?;
    let mut tasks = Vec::new();
    for _ in 0..n {
        c.colon()?;
        tasks.push(c.i64()?);
        if tasks.len() > 1 << 20 {
            return None;
        }
    }
    c.at_eol().then_some(Communicator { appl, id, tasks })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_forms() {
        let text = b"#Paraver (26/01/04 at 16:35):260199:4:1:4(1:1,1:2,1:3,1:4),2\nc:1:1:2:1:2\nc:1:2:1:3\n1:";
        let (h, body, line) = parse_header(text).unwrap();
        assert_eq!(h.unit, TimeUnit::Us);
        assert_eq!(h.end_time, 260199);
        assert_eq!(h.cpus_per_node, vec![1, 1, 1, 1]);
        assert_eq!(h.applications[0].len(), 4);
        assert_eq!(h.applications[0][2], TaskDef { threads: 1, node: 3 });
        assert_eq!(h.communicators.len(), 2);
        assert_eq!(h.communicators[1], Communicator { appl: 1, id: 2, tasks: vec![3] });
        assert_eq!(line, 4);
        assert_eq!(&text[body..], b"1:");
        let (h, _, line) = parse_header(b"#Paraver (01/02/2020 at 10:11):99_ns:2(4,8):2:2(2:1,1:2):1(4:1)\n").unwrap();
        assert_eq!(h.unit, TimeUnit::Ns);
        assert_eq!(h.cpus_per_node, vec![4, 8]);
        assert_eq!(h.applications.len(), 2);
        assert_eq!(h.threads(), 7);
        assert_eq!(line, 2);
        let (h, _, _) = parse_header(b"#Paraver (x):5_ms:0:1:1(1:0)").unwrap();
        assert!(h.cpus_per_node.is_empty());
        assert_eq!(h.unit, TimeUnit::Ms);
        assert!(parse_header(b"#Paraver (x):5_qs:0:1:1(1:0)").is_err());
        assert!(parse_header(b"Paraver").is_err());
        assert!(parse_header(b"#Paraver (x):5:0:1:1(1:0").is_err());
        assert_eq!(parse_header(b"#Paraver (x):5:0:0:").unwrap_err().line, 1);
    }
}
