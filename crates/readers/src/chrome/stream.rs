//! The document layer of the Chrome reader: walks the array form `[...]` or the object form
//! `{"traceEvents": [...], ...}` across chunks that may split anywhere, hands each complete event to a
//! sink, and keeps between chunks only the unparsed tail of the current event.
//!
//! Values it does not need at the top level (a huge `stackFrames` or `systemTraceEvents`) are skipped by a
//! resumable byte state machine, so they are neither held in memory nor rescanned. It must not interpret
//! events (that is `events.rs`) and must not panic on any bytes.

use super::scanner::{for_each_member, Cursor, RawEvent, Stop, Val};
use super::values::int_of;

/// Where in the document the next byte belongs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Place {
    /// Before the first `[` or `{`.
    Start,
    /// Inside the top-level object, before a key (or `}`).
    TopKey,
    /// Inside the top-level object, skipping the value of an ignored key.
    TopSkip(Skipper),
    /// Inside the top-level object, skipping a key too long to be `traceEvents`; its colon and value follow.
    TopSkipKey(Skipper),
    /// After a top-level key: its colon, then its value (`key` says which of the keys read it is).
    TopColon {
        key: TopKey,
    },
    TopValue {
        key: TopKey,
    },
    /// Inside the event array.
    Events {
        object_form: bool,
    },
    /// After the document's end.
    Done,
}

/// The top-level keys the walker reads rather than skips.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TopKey {
    TraceEvents,
    /// Kineto's `baseTimeNanoseconds`: the clock its `ts` values count from.
    BaseTime,
    /// Kineto's `distributedInfo`: `{"rank": r, "world_size": n, ...}`.
    DistributedInfo,
    Other,
}

impl TopKey {
    fn of(raw: &[u8]) -> TopKey {
        match raw {
            b"traceEvents" => TopKey::TraceEvents,
            b"baseTimeNanoseconds" => TopKey::BaseTime,
            b"distributedInfo" => TopKey::DistributedInfo,
            _ => TopKey::Other,
        }
    }
}

/// What a PyTorch/Kineto file says of the run it belongs to (its top-level keys beside `traceEvents`), for
/// opening the per-rank files of one run together (`crate::ranks`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunInfo {
    /// `distributedInfo.rank`.
    pub rank: Option<i64>,
    /// `distributedInfo.world_size`.
    pub world_size: Option<i64>,
    /// `baseTimeNanoseconds`: event times are microseconds after it.
    pub base_time_ns: Option<i64>,
}

/// A `distributedInfo` object larger than this is skipped, not held (Kineto's is a few dozen bytes).
const MAX_DISTRIBUTED_INFO_BYTES: usize = 64 * 1024;

/// A resumable skipper for one JSON object, array or string: feed it bytes, it says where the value ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Skipper {
    depth: u32,
    in_string: bool,
    escape: bool,
}

impl Skipper {
    /// Scan `b`; returns the index just past the value's end, or None when it continues past `b`.
    /// The first byte fed must be the value's opening `{`, `[` or `"`.
    fn feed(&mut self, b: &[u8]) -> Option<usize> {
        let mut i = 0;
        while i < b.len() {
            let c = b[i];
            i += 1;
            if self.in_string {
                if self.escape {
                    self.escape = false;
                } else if c == b'\\' {
                    self.escape = true;
                } else if c == b'"' {
                    self.in_string = false;
                    if self.depth == 0 {
                        return Some(i);
                    }
                }
                continue;
            }
            match c {
                b'"' => self.in_string = true,
                b'{' | b'[' => self.depth += 1,
                b'}' | b']' => {
                    self.depth = self.depth.saturating_sub(1);
                    if self.depth == 0 {
                        return Some(i);
                    }
                }
                _ => {}
            }
        }
        None
    }
}

/// A complete event for the sink, with the absolute offset of its `{` (for messages).
pub trait EventSink {
    fn event(&mut self, ev: &RawEvent, offset: u64);
}

/// Why the document cannot be read further.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxError {
    pub offset: u64,
    pub detail: String,
}

/// The document walker. Bytes go in through `feed`; what cannot be finished yet stays in `tail`.
pub struct DocumentWalker {
    place: Place,
    /// Unparsed bytes carried to the next chunk (at most the current event or top-level token).
    tail: Vec<u8>,
    /// Absolute offset of `tail[0]` in the decompressed document.
    tail_offset: u64,
    /// While the tail holds an incomplete event: the skipper that finds its end, and how far it got.
    tail_scan: Option<(Skipper, usize)>,
    pub events: u64,
    /// In the object form: whether a `traceEvents` key has been seen.
    pub saw_trace_events: bool,
    object_form: bool,
    /// After the document's end: the offset of the first byte that is not whitespace, and how many bytes
    /// from there on were ignored (trailing garbage or a second document).
    pub trailing: Option<(u64, u64)>,
    /// The run's metadata, as far as read.
    pub run: RunInfo,
}

impl Default for DocumentWalker {
    fn default() -> Self {
        DocumentWalker {
            place: Place::Start,
            tail: Vec::new(),
            tail_offset: 0,
            tail_scan: None,
            events: 0,
            saw_trace_events: false,
            object_form: false,
            trailing: None,
            run: RunInfo::default(),
        }
    }
}

enum Step {
    /// Consumed up to this index; continue.
    At(usize),
    /// Need more bytes from this index on.
    Wait(usize),
}

impl DocumentWalker {
    /// Feed the next bytes of the (decompressed) document.
    pub fn feed(&mut self, chunk: &[u8], sink: &mut dyn EventSink) -> Result<(), SyntaxError> {
        if self.tail.is_empty() {
            let used = self.walk(chunk, self.tail_offset, sink)?;
            self.tail.extend_from_slice(&chunk[used..]);
            self.tail_offset += used as u64;
            self.start_tail_scan();
            return Ok(());
        }
        let old = self.tail.len();
        self.tail.extend_from_slice(chunk);
        if let Some((mut sk, scanned)) = self.tail_scan {
            // An event is incomplete: only look for its end in the new bytes, never rescan.
            match sk.feed(&self.tail[scanned.max(old)..]) {
                None => {
                    self.tail_scan = Some((sk, self.tail.len()));
                    return Ok(());
                }
                Some(_) => self.tail_scan = None,
            }
        }
        let tail = std::mem::take(&mut self.tail);
        let used = self.walk(&tail, self.tail_offset, sink);
        self.tail = tail;
        let used = used?;
        self.tail.drain(..used);
        self.tail_offset += used as u64;
        self.start_tail_scan();
        Ok(())
    }

    fn start_tail_scan(&mut self) {
        self.tail_scan = None;
        if matches!(self.place, Place::Events { .. }) && self.tail.first() == Some(&b'{') {
            let mut sk = Skipper::default();
            if sk.feed(&self.tail).is_none() {
                self.tail_scan = Some((sk, self.tail.len()));
            }
        }
    }

    /// The document ended. Returns whether it ended early (a truncated file: missing `]` or `}`, or an
    /// event cut in the middle), after which the events before the cut have all been delivered.
    pub fn finish(&self) -> bool {
        self.place != Place::Done
    }

    /// Whether the document is the object form `{"traceEvents": [...]}`.
    pub fn object_form(&self) -> bool {
        self.object_form
    }

    pub fn started(&self) -> bool {
        self.place != Place::Start
    }

    /// Bytes held between chunks.
    pub fn held_bytes(&self) -> usize {
        self.tail.len()
    }

    fn walk(&mut self, b: &[u8], base: u64, sink: &mut dyn EventSink) -> Result<usize, SyntaxError> {
        let mut i = 0;
        loop {
            let step = match self.place {
                Place::Done => {
                    self.after_end(&b[i..], base + i as u64);
                    return Ok(b.len());
                }
                Place::Start => self.start(b, i),
                Place::TopKey => self.top_key(b, i),
                Place::TopSkip(mut sk) => match sk.feed(&b[i..]) {
                    Some(n) => {
                        self.place = Place::TopKey;
                        Ok(Step::At(i + n))
                    }
                    None => {
                        self.place = Place::TopSkip(sk);
                        return Ok(b.len());
                    }
                },
                Place::TopSkipKey(mut sk) => match sk.feed(&b[i..]) {
                    Some(n) => {
                        self.place = Place::TopColon { key: TopKey::Other };
                        Ok(Step::At(i + n))
                    }
                    None => {
                        self.place = Place::TopSkipKey(sk);
                        return Ok(b.len());
                    }
                },
                Place::TopColon { key } => self.top_colon(b, i, key),
                Place::TopValue { key } => self.top_value(b, i, key),
                Place::Events { object_form } => self.events(b, i, base, object_form, sink),
            };
            match step {
                Ok(Step::At(j)) => i = j,
                Ok(Step::Wait(j)) => return Ok(j),
                Err(Stop::Incomplete) => return Ok(i),
                Err(Stop::Bad { at, expected }) => {
                    let found = match b.get(at) {
                        Some(c) if c.is_ascii_graphic() => format!("'{}'", *c as char),
                        Some(c) => format!("byte 0x{c:02x}"),
                        None => "the end".to_string(),
                    };
                    return Err(SyntaxError {
                        offset: base + at as u64,
                        detail: format!("expected {expected}, found {found}"),
                    });
                }
            }
        }
    }

    /// Bytes after the document's end: counted from the first one that is not whitespace, never kept.
    fn after_end(&mut self, b: &[u8], base: u64) {
        match &mut self.trailing {
            Some((_, n)) => *n += b.len() as u64,
            None => {
                if let Some(k) = b.iter().position(|c| !matches!(c, b' ' | b'\n' | b'\r' | b'\t')) {
                    self.trailing = Some((base + k as u64, (b.len() - k) as u64));
                }
            }
        }
    }

    /// Skip whitespace from `i`: the index of the next byte, or Wait past the whitespace (consumed, so a
    /// long run of it is never held and rescanned).
    fn skip_ws(b: &[u8], i: usize) -> Result<usize, Step> {
        let mut c = Cursor::new(b, i);
        match c.peek_ws() {
            Ok(_) => Ok(c.i),
            Err(_) => Err(Step::Wait(c.i)),
        }
    }

    fn start(&mut self, b: &[u8], i: usize) -> Result<Step, Stop> {
        let mut i = i;
        if b[i..].starts_with(&[0xEF, 0xBB, 0xBF]) {
            i += 3;
        } else if b.len() - i < 3 && [0xEFu8, 0xBB, 0xBF].starts_with(&b[i..]) && !b[i..].is_empty() {
            return Ok(Step::Wait(i));
        }
        let i = match Self::skip_ws(b, i) {
            Ok(i) => i,
            Err(step) => return Ok(step),
        };
        match b[i] {
            b'[' => self.place = Place::Events { object_form: false },
            b'{' => {
                self.place = Place::TopKey;
                self.object_form = true;
            }
            _ => return Err(Stop::Bad { at: i, expected: "'[' or '{' (a Chrome trace starts with one)" }),
        }
        Ok(Step::At(i + 1))
    }

    fn top_key(&mut self, b: &[u8], i: usize) -> Result<Step, Stop> {
        let mut i = i;
        loop {
            i = match Self::skip_ws(b, i) {
                Ok(i) => i,
                Err(step) => return Ok(step),
            };
            match b[i] {
                b',' => i += 1,
                b'}' => {
                    self.place = Place::Done;
                    return Ok(Step::At(i + 1));
                }
                b'"' => break,
                _ => return Err(Stop::Bad { at: i, expected: "a key or '}' in the top-level object" }),
            }
        }
        let mut c = Cursor::new(b, i);
        match c.string() {
            Ok(key) => {
                self.place = Place::TopColon { key: TopKey::of(key.raw) };
                Ok(Step::At(c.i))
            }
            // A key cut by the chunk's end: wait for the rest while it could still be one the walker
            // reads (`baseTimeNanoseconds` is the longest), else skip it without holding it.
            Err(Stop::Incomplete) if b.len() - i > b"\"baseTimeNanoseconds".len() => {
                self.place = Place::TopSkipKey(Skipper::default());
                Ok(Step::At(i))
            }
            Err(Stop::Incomplete) => Ok(Step::Wait(i)),
            Err(e) => Err(e),
        }
    }

    fn top_colon(&mut self, b: &[u8], i: usize, key: TopKey) -> Result<Step, Stop> {
        let i = match Self::skip_ws(b, i) {
            Ok(i) => i,
            Err(step) => return Ok(step),
        };
        if b[i] != b':' {
            return Err(Stop::Bad { at: i, expected: "':' after a key" });
        }
        self.place = Place::TopValue { key };
        Ok(Step::At(i + 1))
    }

    fn top_value(&mut self, b: &[u8], i: usize, key: TopKey) -> Result<Step, Stop> {
        let i = match Self::skip_ws(b, i) {
            Ok(i) => i,
            Err(step) => return Ok(step),
        };
        if key == TopKey::DistributedInfo && b[i] == b'{' {
            let mut c = Cursor::new(b, i);
            match c.value() {
                Ok(Val::Other(obj)) => {
                    for_each_member(obj, |k, v| match (k.raw, v) {
                        (b"rank", Val::Num(n)) => self.run.rank = int_of(n),
                        (b"world_size", Val::Num(n)) => self.run.world_size = int_of(n),
                        _ => {}
                    });
                    self.place = Place::TopKey;
                    return Ok(Step::At(c.i));
                }
                Err(Stop::Incomplete) if b.len() - i < MAX_DISTRIBUTED_INFO_BYTES => return Ok(Step::Wait(i)),
                Err(Stop::Bad { .. }) | Err(Stop::Incomplete) | Ok(_) => {}
            }
        }
        if key == TopKey::TraceEvents {
            if b[i] != b'[' {
                return Err(Stop::Bad { at: i, expected: "'[' after \"traceEvents\"" });
            }
            self.place = Place::Events { object_form: true };
            self.saw_trace_events = true;
            return Ok(Step::At(i + 1));
        }
        match b[i] {
            b'{' | b'[' | b'"' => {
                self.place = Place::TopSkip(Skipper::default());
                Ok(Step::At(i))
            }
            _ => {
                let mut c = Cursor::new(b, i);
                match c.value() {
                    Ok(v) => {
                        if let (TopKey::BaseTime, Val::Num(n)) = (key, v) {
                            // 19 digits: parsed exactly, not through a float.
                            self.run.base_time_ns = std::str::from_utf8(n).ok().and_then(|s| s.parse().ok());
                        }
                        self.place = Place::TopKey;
                        Ok(Step::At(c.i))
                    }
                    Err(Stop::Incomplete) => Ok(Step::Wait(i)),
                    Err(e) => Err(e),
                }
            }
        }
    }

    fn events(
        &mut self,
        b: &[u8],
        i: usize,
        base: u64,
        object_form: bool,
        sink: &mut dyn EventSink,
    ) -> Result<Step, Stop> {
        let mut c = Cursor::new(b, i);
        let mut ev = RawEvent::default();
        loop {
            // Lenient separators: producers leave trailing commas, and the format allows a missing `]`.
            let mut next = c.peek_ws();
            while next == Ok(b',') {
                c.i += 1;
                next = c.peek_ws();
            }
            match next {
                Err(_) => return Ok(Step::Wait(c.i)),
                Ok(b'{') => {}
                Ok(b']') => {
                    self.place = if object_form { Place::TopKey } else { Place::Done };
                    return Ok(Step::At(c.i + 1));
                }
                Ok(_) => return Err(Stop::Bad { at: c.i, expected: "'{' (an event) or ']'" }),
            }
            let start = c.i;
            match c.event_into(&mut ev) {
                Ok(()) => {
                    self.events += 1;
                    sink.event(&ev, base + start as u64);
                }
                Err(Stop::Incomplete) => return Ok(Step::Wait(start)),
                Err(e) => return Err(e),
            }
        }
    }
}
