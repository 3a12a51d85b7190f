//! The `.prv` body: a fast scanner over its records (state `1`, event `2`, communication `3`, global
//! communication `4`); the header is read by `header.rs`. It knows the syntax only: it resolves no thread, builds no
//! model and keeps no record; each record goes to a [`RecordSink`] as plain numbers.
//!
//! The body is scanned in place over the byte slice, one pass, no allocation per line: numbers are parsed
//! as the cursor walks, so finding the end of a line and parsing it are the same work. A malformed record
//! is reported to the sink with its line number and skipped; the scanner never panics on any bytes.

pub use super::header::{parse_header, Communicator, Header, HeaderError, TaskDef, TimeUnit};
/// A thread as a record names it: `cpu:appl:task:thread`, all 1-based (cpu 0 = unknown).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Who {
    pub cpu: u32,
    pub appl: u32,
    pub task: u32,
    pub thread: u32,
}

/// A communication record (`3:`), times in the file's unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Comm {
    pub from: Who,
    pub logical_send: u64,
    pub physical_send: u64,
    pub to: Who,
    pub logical_recv: u64,
    pub physical_recv: u64,
    pub size: u64,
    pub tag: i64,
}

/// A global communication record (`4:cpu:appl:task:thread:time:comm:send:recv:op[:root]`), one per
/// participant of a collective operation; written by old tracers and Dimemas, not by Extrae today.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GlobalComm {
    pub who: Who,
    pub time: u64,
    pub communicator: u64,
    pub send_size: u64,
    pub recv_size: u64,
    /// The operation kind (Dimemas' numbering).
    pub op: i64,
    /// The root task, or a root flag, where the record has the field.
    pub root: Option<i64>,
}

/// Receives the body's records in file order. `line` is 1-based in the whole file.
pub trait RecordSink {
    fn state(&mut self, line: u64, who: Who, begin: u64, end: u64, state: u64);
    /// One event record: all its `type:value` pairs share the time.
    fn event(&mut self, line: u64, who: Who, time: u64, pairs: &[(u64, i64)]);
    fn comm(&mut self, line: u64, comm: &Comm);
    /// A global communication record (`4:`, an old record kind Paraver itself no longer reads).
    fn global_comm(&mut self, line: u64, g: &GlobalComm);
    /// A record whose first field is no kind this scanner knows.
    fn unknown(&mut self, line: u64, kind: &[u8]);
    /// A record that breaks the syntax. `last` is set when it is the file's unterminated last line
    /// (a truncated file rather than a wrong one).
    fn malformed(&mut self, line: u64, offset: u64, detail: &'static str, last: bool);
    /// Whether the sink wants no more records (it ran out of memory); the scan ends at the next line.
    fn stopped(&self) -> bool {
        false
    }
}

/// Byte cursor over the file.
pub(super) struct Cur<'a> {
    pub(super) b: &'a [u8],
    pub(super) i: usize,
}

impl Cur<'_> {
    #[inline(always)]
    pub(super) fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    /// An unsigned decimal; None on no digit or overflow.
    #[inline(always)]
    pub(super) fn u64(&mut self) -> Option<u64> {
        let start = self.i;
        let mut v: u64 = 0;
        while let Some(&c) = self.b.get(self.i) {
            let d = c.wrapping_sub(b'0');
            if d > 9 {
                break;
            }
            v = v.checked_mul(10)?.checked_add(d as u64)?;
            self.i += 1;
        }
        (self.i > start).then_some(v)
    }

    #[inline(always)]
    pub(super) fn i64(&mut self) -> Option<i64> {
        if self.peek() == Some(b'-') {
            self.i += 1;
            let v = self.u64()?;
            if v == 1u64 << 63 {
                return Some(i64::MIN);
            }
            return i64::try_from(v).ok().map(|v| -v);
        }
        i64::try_from(self.u64()?).ok()
    }

    #[inline(always)]
    pub(super) fn u32(&mut self) -> Option<u32> {
        u32::try_from(self.u64()?).ok()
    }

    #[inline(always)]
    pub(super) fn colon(&mut self) -> Option<()> {
        if self.peek() == Some(b':') {
            self.i += 1;
            Some(())
        } else {
            None
        }
    }

    #[inline(always)]
    pub(super) fn field_u64(&mut self) -> Option<u64> {
        self.colon()?;
        self.u64()
    }

    /// At the end of the line: optional `\r` or blanks, then `\n` or the end of the file.
    #[inline(always)]
    pub(super) fn at_eol(&mut self) -> bool {
        while let Some(c) = self.peek() {
            match c {
                b'\n' => return true,
                b'\r' | b' ' | b'\t' => self.i += 1,
                _ => return false,
            }
        }
        true
    }

    fn who(&mut self) -> Option<Who> {
        let cpu = self.u32()?;
        self.colon()?;
        let appl = self.u32()?;
        self.colon()?;
        let task = self.u32()?;
        self.colon()?;
        let thread = self.u32()?;
        Some(Who { cpu, appl, task, thread })
    }

    /// Move past the next newline (or to the end).
    fn skip_line(&mut self) {
        match self.b[self.i.min(self.b.len())..].iter().position(|&c| c == b'\n') {
            Some(p) => self.i += p + 1,
            None => self.i = self.b.len(),
        }
    }
}

/// Scan the body (from `body` on, whose first line is `first_line`), handing each record to `sink`.
/// Returns the number of lines seen.
pub fn scan_body<S: RecordSink>(body: &[u8], first_line: u64, sink: &mut S) -> u64 {
    scan_body_at(body, first_line, 0, sink)
}

/// [`scan_body`] of a piece of the body that starts `base` bytes into it (a read in chunks of whole lines):
/// offsets in messages count from the body's start.
pub fn scan_body_at<S: RecordSink>(body: &[u8], first_line: u64, base: u64, sink: &mut S) -> u64 {
    let mut c = Cur { b: body, i: 0 };
    let mut line = first_line;
    let mut pairs: Vec<(u64, i64)> = Vec::with_capacity(8);
    while c.i < body.len() && !sink.stopped() {
        let start = c.i;
        let result = record(&mut c, line, &mut pairs, sink);
        if let Err(detail) = result {
            let last = !body[start..].contains(&b'\n');
            sink.malformed(line, base + start as u64, detail, last);
            c.i = start;
            c.skip_line();
        } else if c.peek() == Some(b'\n') {
            c.i += 1;
        }
        line += 1;
    }
    line - first_line
}

#[inline(always)]
fn record<S: RecordSink>(
    c: &mut Cur,
    line: u64,
    pairs: &mut Vec<(u64, i64)>,
    sink: &mut S,
) -> Result<(), &'static str> {
    let kind = c.peek().unwrap_or(b'\n');
    if c.b.get(c.i + 1) != Some(&b':') {
        return blank_or_other(c, line, sink);
    }
    c.i += 2;
    match kind {
        b'1' => {
            let who = c.who().ok_or("state record: expected cpu:appl:task:thread")?;
            let begin = c.field_u64().ok_or("state record: expected the begin time")?;
            let end = c.field_u64().ok_or("state record: expected the end time")?;
            let state = c.field_u64().ok_or("state record: expected the state")?;
            if !c.at_eol() {
                return Err("state record: unexpected text after the state");
            }
            sink.state(line, who, begin, end, state);
        }
        b'2' => {
            let who = c.who().ok_or("event record: expected cpu:appl:task:thread")?;
            let time = c.field_u64().ok_or("event record: expected the time")?;
            pairs.clear();
            loop {
                let ty = c.field_u64().ok_or("event record: expected an event type")?;
                let value = c.colon().and_then(|_| c.i64()).ok_or("event record: expected an event value")?;
                pairs.push((ty, value));
                if c.at_eol() {
                    break;
                }
            }
            sink.event(line, who, time, pairs);
        }
        b'3' => {
            let from = c.who().ok_or("communication record: expected the sender")?;
            let logical_send = c.field_u64().ok_or("communication record: expected the logical send time")?;
            let physical_send = c.field_u64().ok_or("communication record: expected the physical send time")?;
            c.colon().ok_or("communication record: expected the receiver")?;
            let to = c.who().ok_or("communication record: expected the receiver")?;
            let logical_recv = c.field_u64().ok_or("communication record: expected the logical receive time")?;
            let physical_recv = c.field_u64().ok_or("communication record: expected the physical receive time")?;
            let size = c.field_u64().ok_or("communication record: expected the size")?;
            let tag = c.colon().and_then(|_| c.i64()).ok_or("communication record: expected the tag")?;
            if !c.at_eol() {
                return Err("communication record: unexpected text after the tag");
            }
            let comm = Comm { from, logical_send, physical_send, to, logical_recv, physical_recv, size, tag };
            sink.comm(line, &comm);
        }
        b'4' => {
            let who = c.who().ok_or("global communication record: expected cpu:appl:task:thread")?;
            let time = c.field_u64().ok_or("global communication record: expected the time")?;
            let what = "global communication record: expected comm:send_size:recv_size:op";
            let communicator = c.field_u64().ok_or(what)?;
            let send_size = c.field_u64().ok_or(what)?;
            let recv_size = c.field_u64().ok_or(what)?;
            let op = c.colon().and_then(|_| c.i64()).ok_or(what)?;
            let root = match c.colon() {
                Some(()) => Some(c.i64().ok_or("global communication record: expected the root")?),
                None => None,
            };
            if !c.at_eol() {
                return Err("global communication record: unexpected text after the root");
            }
            let g = GlobalComm { who, time, communicator, send_size, recv_size, op, root };
            sink.global_comm(line, &g);
        }
        _ => {
            c.i -= 2;
            return blank_or_other(c, line, sink);
        }
    }
    Ok(())
}

/// Empty lines, `#` comments and records of an unknown kind.
#[cold]
fn blank_or_other<S: RecordSink>(c: &mut Cur, line: u64, sink: &mut S) -> Result<(), &'static str> {
    let rest = &c.b[c.i..];
    let end = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
    let text = &rest[..end];
    let trimmed = text.iter().all(|b| b.is_ascii_whitespace());
    if !trimmed && !text.starts_with(b"#") {
        let kind_end = text.iter().position(|&b| b == b':').unwrap_or(text.len().min(16));
        sink.unknown(line, &text[..kind_end.min(16)]);
    }
    c.i += end;
    Ok(())
}
