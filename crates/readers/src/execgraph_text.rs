//! The execution-graph text format (`# weft execgraph 1`): the seven events of the DTS runtime (init, exit,
//! start, end, fork, b-join, a-join), one per line, so that any runtime can write it. Specified in
//! docs/execgraph-format.md.
//!
//! Parses into the neutral [`ThreadEvents`] list and checks only what one line can say (fields, numbers,
//! keywords); whether the events form a fork/join program is the graph builder's job. Never panics on any
//! bytes: every problem is a [`TextError`] with the file and the 1-based line.

use thiserror::Error;
use weft_model::thread_events::{OriginKind, ThreadEvent, ThreadEventKind, ThreadEvents};

/// The header's first words.
pub const MAGIC: &str = "# weft execgraph";
/// The only version this reader knows.
pub const VERSION: u32 = 1;

/// A unit that times can be declared in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeUnit {
    Ns,
    Us,
    Ms,
    S,
}

impl TimeUnit {
    pub fn parse(s: &str) -> Option<TimeUnit> {
        match s {
            "ns" => Some(TimeUnit::Ns),
            "us" => Some(TimeUnit::Us),
            "ms" => Some(TimeUnit::Ms),
            "s" => Some(TimeUnit::S),
            _ => None,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            TimeUnit::Ns => "ns",
            TimeUnit::Us => "us",
            TimeUnit::Ms => "ms",
            TimeUnit::S => "s",
        }
    }
    /// Decimal digits below one unit that still make whole nanoseconds.
    fn digits(self) -> u32 {
        match self {
            TimeUnit::Ns => 0,
            TimeUnit::Us => 3,
            TimeUnit::Ms => 6,
            TimeUnit::S => 9,
        }
    }
}

/// What is wrong with a line.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum TextErrorKind {
    #[error("the file does not start with the header `{MAGIC} {VERSION}`")]
    MissingHeader,
    #[error("format version {0} is not supported (this reader knows version {VERSION})")]
    UnsupportedVersion(String),
    #[error("unknown header setting `{0}` (expected unit=ns|us|ms|s)")]
    UnknownSetting(String),
    #[error("unknown time unit `{0}` (expected ns, us, ms or s)")]
    UnknownUnit(String),
    #[error("the line is not valid UTF-8")]
    NotUtf8,
    #[error("expected `TIME NODE THREAD EVENT [THREAD]`, found {0} field(s)")]
    FieldCount(usize),
    #[error("{field} `{text}` is not a {expected}")]
    BadNumber { field: &'static str, text: String, expected: &'static str },
    #[error("time `{0}` does not fit in 64-bit nanoseconds")]
    TimeOverflow(String),
    #[error("unknown event `{0}` (expected init, exit, start, end, fork, b-join, a-join or join)")]
    UnknownEvent(String),
    #[error("`{0}` needs the other thread's id as its fifth field")]
    MissingOther(&'static str),
    #[error("`{0}` takes no fifth field")]
    UnexpectedOther(&'static str),
}

/// A problem at a line of a file.
#[derive(Debug, Error, PartialEq, Eq)]
#[error("{file}:{line}: {kind}")]
pub struct TextError {
    pub file: String,
    /// 1-based.
    pub line: u32,
    /// Byte offset of the line's start.
    pub offset: u64,
    pub kind: TextErrorKind,
}

/// Parse a whole file. `name` is used in messages and kept as the events' source.
pub fn parse(name: &str, bytes: &[u8]) -> Result<ThreadEvents, TextError> {
    let bytes = bytes.strip_prefix(&[0xEF, 0xBB, 0xBF][..]).unwrap_or(bytes);
    let mut out = ThreadEvents::new(name);
    out.origin_kind = OriginKind::Line;
    let mut unit: Option<TimeUnit> = None;
    let mut offset = 0u64;
    for (i, raw) in bytes.split(|&b| b == b'\n').enumerate() {
        let line_no = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let at = offset;
        offset += raw.len() as u64 + 1;
        let err = |kind| TextError { file: name.to_string(), line: line_no, offset: at, kind };
        let text = std::str::from_utf8(raw).map_err(|_| err(TextErrorKind::NotUtf8))?;
        let text = text.trim();
        let Some(u) = unit else {
            if text.is_empty() {
                continue;
            }
            unit = Some(parse_header(text).map_err(err)?);
            continue;
        };
        let content = match text.find('#') {
            Some(p) => text[..p].trim(),
            None => text,
        };
        if content.is_empty() {
            continue;
        }
        let (time_ns, node, thread, kind, both) = parse_event(content, u).map_err(err)?;
        let ev = ThreadEvent { time_ns, node, thread, kind, origin: line_no };
        out.events.push(ev);
        if let (true, ThreadEventKind::JoinBegin { joined }) = (both, kind) {
            out.events.push(ThreadEvent { kind: ThreadEventKind::JoinEnd { joined }, ..ev });
        }
    }
    if unit.is_none() {
        return Err(TextError { file: name.to_string(), line: 1, offset: 0, kind: TextErrorKind::MissingHeader });
    }
    Ok(out)
}

fn parse_header(text: &str) -> Result<TimeUnit, TextErrorKind> {
    let rest = text.strip_prefix(MAGIC).ok_or(TextErrorKind::MissingHeader)?;
    let mut words = rest.split_whitespace();
    let version = words.next().ok_or(TextErrorKind::MissingHeader)?;
    if version != "1" {
        return Err(TextErrorKind::UnsupportedVersion(version.chars().take(32).collect()));
    }
    let mut unit = TimeUnit::Ns;
    for w in words {
        match w.split_once('=') {
            Some(("unit", v)) => unit = TimeUnit::parse(v).ok_or_else(|| TextErrorKind::UnknownUnit(clip(v)))?,
            _ => return Err(TextErrorKind::UnknownSetting(clip(w))),
        }
    }
    Ok(unit)
}

fn clip(s: &str) -> String {
    s.chars().take(40).collect()
}

/// Time, node, thread, event, and whether it is the `join` shorthand (a b-join and an a-join at once).
type Parsed = (u64, u32, u64, ThreadEventKind, bool);

fn parse_event(content: &str, unit: TimeUnit) -> Result<Parsed, TextErrorKind> {
    let f: Vec<&str> = content.split_whitespace().collect();
    if f.len() < 4 || f.len() > 5 {
        return Err(TextErrorKind::FieldCount(f.len()));
    }
    let time_ns = parse_time(f[0], unit)?;
    let node = f[1].parse::<u32>().map_err(|_| bad("node", f[1], "whole number below 2^32"))?;
    let thread = f[2].parse::<u64>().map_err(|_| bad("thread", f[2], "whole number below 2^64"))?;
    let other = match f.get(4) {
        Some(t) => Some(t.parse::<u64>().map_err(|_| bad("other thread", t, "whole number below 2^64"))?),
        None => None,
    };
    let keyword = f[3].to_ascii_lowercase();
    let simple = |k: ThreadEventKind, name: &'static str| match other {
        Some(_) => Err(TextErrorKind::UnexpectedOther(name)),
        None => Ok(k),
    };
    let with_other = |name: &'static str| other.ok_or(TextErrorKind::MissingOther(name));
    let kind = match keyword.as_str() {
        "init" => simple(ThreadEventKind::Init, "init")?,
        "exit" => simple(ThreadEventKind::Exit, "exit")?,
        "start" => simple(ThreadEventKind::Start, "start")?,
        "end" => simple(ThreadEventKind::End, "end")?,
        "fork" => ThreadEventKind::Fork { child: with_other("fork")? },
        "b-join" | "bjoin" => ThreadEventKind::JoinBegin { joined: with_other("b-join")? },
        "a-join" | "ajoin" => ThreadEventKind::JoinEnd { joined: with_other("a-join")? },
        "join" => ThreadEventKind::JoinBegin { joined: with_other("join")? },
        _ => return Err(TextErrorKind::UnknownEvent(clip(f[3]))),
    };
    Ok((time_ns, node, thread, kind, keyword == "join"))
}

fn bad(field: &'static str, text: &str, expected: &'static str) -> TextErrorKind {
    TextErrorKind::BadNumber { field, text: clip(text), expected }
}

/// A non-negative decimal number in `unit`, exactly converted to nanoseconds (digits below 1 ns are dropped).
fn parse_time(s: &str, unit: TimeUnit) -> Result<u64, TextErrorKind> {
    let (int, frac) = s.split_once('.').unwrap_or((s, ""));
    let digits_ok = |t: &str| t.bytes().all(|b| b.is_ascii_digit());
    if int.is_empty() || !digits_ok(int) || !digits_ok(frac) || (s.contains('.') && frac.is_empty()) {
        return Err(bad("time", s, "non-negative decimal number"));
    }
    let d = unit.digits();
    let scale = 10u64.pow(d);
    let whole: u64 = int.parse().map_err(|_| TextErrorKind::TimeOverflow(clip(s)))?;
    let mut sub = 0u64;
    for (i, b) in frac.bytes().take(d as usize).enumerate() {
        sub += (b - b'0') as u64 * 10u64.pow(d - 1 - i as u32);
    }
    whole.checked_mul(scale).and_then(|w| w.checked_add(sub)).ok_or_else(|| TextErrorKind::TimeOverflow(clip(s)))
}

/// Write events in this format (times in `unit`, exact when the unit divides them; else with decimals).
pub fn write(events: &ThreadEvents, unit: TimeUnit) -> String {
    use std::fmt::Write;
    let mut s = String::with_capacity(32 + events.events.len() * 24);
    let _ = writeln!(s, "{MAGIC} {VERSION} unit={}", unit.name());
    let _ = writeln!(s, "# TIME NODE THREAD EVENT [OTHER-THREAD]");
    let scale = 10u64.pow(unit.digits());
    for e in &events.events {
        let (whole, sub) = (e.time_ns / scale, e.time_ns % scale);
        if sub == 0 {
            let _ = write!(s, "{whole}");
        } else {
            let frac = format!("{sub:0width$}", width = unit.digits() as usize);
            let _ = write!(s, "{whole}.{}", frac.trim_end_matches('0'));
        }
        let _ = write!(s, " {} {} {}", e.node, e.thread, e.kind.keyword());
        match e.kind {
            ThreadEventKind::Fork { child: o }
            | ThreadEventKind::JoinBegin { joined: o }
            | ThreadEventKind::JoinEnd { joined: o } => {
                let _ = writeln!(s, " {o}");
            }
            _ => s.push('\n'),
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = "# weft execgraph 1 unit=us\n\
        # a master and one slave\n\
        0 0 1 init\n\
        0 0 1 start\n\
        1.5 0 1 fork 2   # creates thread 2\n\
        2 1 2 start\n\
        \n\
        3 0 1 b-join 2\n\
        9.25 1 2 end\n\
        9.25 0 1 a-join 2\n\
        10 0 1 join 3\n\
        11 0 1 end\n";

    #[test]
    fn parses_good_input_with_units_comments_and_join_shorthand() {
        let ev = parse("good.txt", GOOD.as_bytes()).expect("parses");
        assert_eq!(ev.events.len(), 10);
        assert_eq!(ev.events[0].kind, ThreadEventKind::Init);
        assert_eq!(ev.events[2].time_ns, 1500);
        assert_eq!(ev.events[2].kind, ThreadEventKind::Fork { child: 2 });
        assert_eq!(ev.events[2].origin, 5);
        assert_eq!(ev.events[6].time_ns, 9250);
        assert_eq!(ev.events[7].kind, ThreadEventKind::JoinBegin { joined: 3 });
        assert_eq!(ev.events[8].kind, ThreadEventKind::JoinEnd { joined: 3 });
        assert_eq!((ev.events[7].time_ns, ev.events[8].time_ns, ev.events[8].origin), (10_000, 10_000, 11));
        assert_eq!(ev.events[9].kind, ThreadEventKind::End);
    }

    #[test]
    fn written_text_reads_back_identically() {
        let ev = parse("good.txt", GOOD.as_bytes()).expect("parses");
        for unit in [TimeUnit::Ns, TimeUnit::Us, TimeUnit::Ms, TimeUnit::S] {
            let text = write(&ev, unit);
            let back = parse("good.txt", text.as_bytes()).expect("reads back");
            let times: Vec<_> = back.events.iter().map(|e| (e.time_ns, e.thread, e.kind)).collect();
            let want: Vec<_> = ev.events.iter().map(|e| (e.time_ns, e.thread, e.kind)).collect();
            assert_eq!(times, want, "unit {}", unit.name());
        }
    }

    fn err_of(text: &str) -> TextError {
        parse("bad.txt", text.as_bytes()).expect_err("must fail")
    }

    #[test]
    fn bad_input_gives_the_line_and_the_reason() {
        assert_eq!(err_of("0 0 1 start\n").kind, TextErrorKind::MissingHeader);
        assert_eq!(err_of("").kind, TextErrorKind::MissingHeader);
        assert!(matches!(err_of("# weft execgraph 2\n").kind, TextErrorKind::UnsupportedVersion(_)));
        assert!(matches!(err_of("# weft execgraph 1 unit=h\n").kind, TextErrorKind::UnknownUnit(_)));
        assert!(matches!(err_of("# weft execgraph 1 clock=x\n").kind, TextErrorKind::UnknownSetting(_)));
        let e = err_of("# weft execgraph 1\n0 0 1 start\n\n5 0 1 frok 2\n");
        assert_eq!((e.line, e.file.as_str()), (4, "bad.txt"));
        assert!(matches!(e.kind, TextErrorKind::UnknownEvent(_)));
        assert!(e.to_string().starts_with("bad.txt:4: unknown event `frok`"), "{e}");
        assert_eq!(err_of("# weft execgraph 1\n0 0 1 fork\n").kind, TextErrorKind::MissingOther("fork"));
        assert_eq!(err_of("# weft execgraph 1\n0 0 1 end 3\n").kind, TextErrorKind::UnexpectedOther("end"));
        assert_eq!(err_of("# weft execgraph 1\n0 0 start\n").kind, TextErrorKind::FieldCount(3));
        assert!(matches!(err_of("# weft execgraph 1\n-1 0 1 start\n").kind, TextErrorKind::BadNumber { .. }));
        assert!(matches!(err_of("# weft execgraph 1\n1. 0 1 start\n").kind, TextErrorKind::BadNumber { .. }));
        assert!(matches!(err_of("# weft execgraph 1\n1 x 1 start\n").kind, TextErrorKind::BadNumber { .. }));
        let e = err_of("# weft execgraph 1 unit=s\n\n\n99999999999 0 1 start\n");
        assert_eq!(e.line, 4);
        assert!(matches!(e.kind, TextErrorKind::TimeOverflow(_)));
        let e = parse("bad.txt", b"# weft execgraph 1\n0 0 1 start\n\xff\xfe 0 1 end\n").expect_err("not utf-8");
        assert_eq!((e.line, e.kind), (3, TextErrorKind::NotUtf8));
    }

    #[test]
    fn never_panics_on_any_bytes() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let alphabet = b"# weftexcgraph1unit=nsmu0123456789.- \n\tforkjoinab\xff";
        for _ in 0..2000 {
            let len = (next() % 120) as usize;
            let mut bytes: Vec<u8> = b"# weft execgraph 1\n".to_vec();
            if next() % 4 == 0 {
                bytes.clear();
            }
            for _ in 0..len {
                bytes.push(alphabet[(next() % alphabet.len() as u64) as usize]);
            }
            let _ = parse("fuzz", &bytes);
        }
    }
}
