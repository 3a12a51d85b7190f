//! Chrome Trace Event Format reader: the JSON array form `[...]` or the object form
//! `{"traceEvents": [...], ...}`, plain or gzipped (detected by content), whole or truncated.
//!
//! Layers, each in its own file: `gzip` (incremental gunzip) or `utf16` (UTF-16 LE/BE, with or without a
//! BOM, transcoded to UTF-8; byte offsets in messages are then offsets in the UTF-8 text) -> `stream` (document walker: array or
//! object form, chunks split anywhere) -> `scanner` (one event object to borrowed fields; `values`
//! decodes them) -> `events` (fields to the model through caches) -> `slices` (B/E matching and its
//! repairs, documented there), `asyncs` (async tracks) and `flows` (flow ends matched by key in time
//! order, whatever the file order, and bound to slices). A typed streaming parse: no
//! `serde_json::Value`, no allocation per event.
//!
//! What is read: B/E, X, i/I/R and n (instants; process- and global-scoped ones are placed on the
//! thread that emitted them), M (process_name, thread_name, process_sort_index, thread_sort_index),
//! C (each numeric arg a counter series per process, `name.arg`, or `name` when there is one), s/t/f
//! flows and `bind_id` + `flow_in`/`flow_out`, b/e nestable and S/F legacy async slices.
//! An event's `args` (X, B with its E's merged in, i/I/R/n, b/e and S/F) are kept, bounded, as the model's
//! args (`args.rs`; not by the spilling reader of `weft index`: a store keeps none); bad args are a warning.
//! T/p async steps are ignored; P samples and unknown phases are skipped and counted (`UnknownRecord`).
//! Times are microseconds (`displayTimeUnit` only changes how viewers display them), rounded to integer
//! ns. pid/tid may be numbers or strings (strings become stable ids and name their process/thread); an
//! event whose pid or tid is null, a boolean, an array, an object or NaN is skipped with a warning. Bytes
//! after the end of the document (trailing garbage, a second document) are ignored with a warning.
//!
//! It must not panic on any bytes: a file that is not a trace, or breaks JSON, is a [`ReadError`] naming
//! the file, the byte offset and what was expected; everything repairable is a counted warning.

mod args;
mod asyncs;
mod events;
mod flows;
pub(crate) mod gzip;
mod head;
mod scanner;
mod slices;
mod stream;
mod streamed;
pub(crate) mod utf16;
mod values;

use crate::budget::Budget;
use crate::ReadError;
use events::Converter;
use gzip::Gunzip;
pub use head::{run_info_of_head, HEAD_BYTES};
pub use stream::RunInfo;
use stream::{DocumentWalker, EventSink, SyntaxError};
pub use streamed::{EachLocation, EventSpill, Kept, RECORD_BYTES as SPILLED_RECORD_BYTES};
use weft_model::{Trace, WarningKind};

const FORMAT: &str = "Chrome trace JSON";

impl EventSink for Converter {
    #[inline]
    fn event(&mut self, ev: &scanner::RawEvent, offset: u64) {
        Converter::event(self, ev, offset)
    }
}

enum Mode {
    /// Fewer than two bytes seen: gzip or not is still open.
    Undecided(Vec<u8>),
    Plain,
    Gzip(Box<Gunzip>),
    /// UTF-16 (LE or BE, with or without a BOM), transcoded to UTF-8 into the buffer before the walker.
    Utf16(Box<utf16::Utf16>, Vec<u8>),
    /// The gzip stream broke after some events: the rest of the input is ignored.
    CutShort,
}

/// A push reader for a Chrome trace arriving in chunks (the page's worker reads a `File` piece by piece).
/// Chunks may split anywhere. Between chunks it holds only the unparsed tail of the current event.
/// Whole-buffer and chunked reads of the same bytes give identical traces.
pub struct ChromeStreamReader {
    file: String,
    mode: Mode,
    walker: DocumentWalker,
    conv: Converter,
    consumed: u64,
    truncated_gzip: bool,
    budget: Budget,
}

impl ChromeStreamReader {
    /// `file` names the file in messages only.
    pub fn new(file: &str) -> Self {
        Self::with_budget(file, Budget::current())
    }

    /// A reader that refuses, with [`ReadError::TooLarge`], to build more than `budget.stream_events` events.
    pub fn with_budget(file: &str, budget: Budget) -> Self {
        ChromeStreamReader {
            file: file.to_string(),
            mode: Mode::Undecided(Vec::new()),
            walker: DocumentWalker::default(),
            conv: Converter::default(),
            consumed: 0,
            truncated_gzip: false,
            budget,
        }
    }

    /// A reader that keeps no event's `args` (what a store holds: `weft index`'s spilling read keeps none,
    /// and their keys would otherwise enter the string table).
    pub fn without_args(mut self) -> Self {
        self.conv.skip_args = true;
        self
    }

    /// Input bytes fed so far (compressed bytes for a gzipped file), for progress.
    pub fn bytes_consumed(&self) -> u64 {
        self.consumed
    }

    /// Bytes held between chunks (the unparsed tail of the current event).
    pub fn held_bytes(&self) -> usize {
        self.walker.held_bytes()
    }

    fn syntax(&self, e: SyntaxError) -> ReadError {
        ReadError::Malformed { file: self.file.clone(), format: FORMAT, offset: e.offset, detail: e.detail }
    }

    /// The next bytes of the file.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<(), ReadError> {
        self.feed_bytes(chunk)?;
        self.spill_error()?;
        self.budget.admit_events(&self.file, FORMAT, self.walker.events)
    }

    fn feed_bytes(&mut self, chunk: &[u8]) -> Result<(), ReadError> {
        self.consumed += chunk.len() as u64;
        if let Mode::Undecided(head) = &mut self.mode {
            if head.is_empty() && chunk.len() >= 2 {
                // The usual case: decide from the chunk itself, without copying it.
                self.decide(chunk);
                return self.push(chunk);
            }
            head.extend_from_slice(chunk);
            if head.len() < 2 {
                return Ok(());
            }
            let head = std::mem::take(head);
            self.decide(&head);
            return self.push(&head);
        }
        self.push(chunk)
    }

    fn decide(&mut self, head: &[u8]) {
        // A lone 0x1f at the end of input is a gzip file cut inside its magic number.
        self.mode = if head.starts_with(&[0x1f, 0x8b]) || head == [0x1f] {
            Mode::Gzip(Box::default())
        } else if let Some(t) = utf16::detect(head) {
            Mode::Utf16(Box::new(t), Vec::new())
        } else {
            Mode::Plain
        };
    }

    fn push(&mut self, bytes: &[u8]) -> Result<(), ReadError> {
        match &mut self.mode {
            Mode::Plain => self.walker.feed(bytes, &mut self.conv).map_err(|e| self.syntax(e)),
            Mode::Utf16(t, buf) => {
                buf.clear();
                t.feed(bytes, buf);
                self.walker.feed(buf, &mut self.conv).map_err(|e| self.syntax(e))
            }
            Mode::Gzip(gz) => {
                let mut over = false;
                let sink = inflated_sink(&mut self.walker, &mut self.conv, self.budget, &mut over);
                match gz.feed(bytes, sink) {
                    Ok(_) if over => self.budget.admit_events(&self.file, FORMAT, self.walker.events),
                    Ok(r) => r.map_err(|e| self.syntax(e)),
                    Err(e) => self.gzip_broke(e),
                }
            }
            Mode::CutShort | Mode::Undecided(_) => Ok(()),
        }
    }

    fn gzip_broke(&mut self, e: std::io::Error) -> Result<(), ReadError> {
        if self.walker.events == 0 {
            return Err(ReadError::Decompress { file: self.file.clone(), detail: e.to_string() });
        }
        self.mode = Mode::CutShort;
        self.truncated_gzip = true;
        let file = self.file.clone();
        self.conv.b.warn(WarningKind::Truncated, || {
            format!("{file}: the gzip stream breaks off ({e}); events before the break are kept")
        });
        Ok(())
    }

    /// The file ended: repair, match and build the trace.
    pub fn finish(self) -> Result<Trace, ReadError> {
        self.finish_run().map(|(trace, _)| trace)
    }

    /// [`finish`](Self::finish), with what the file says of its run (Kineto's rank and clock base).
    pub fn finish_run(mut self) -> Result<(Trace, RunInfo), ReadError> {
        let events = self.finish_input()?;
        let run = self.walker.run;
        Ok((self.conv.finish(&self.file, events)?, run))
    }

    /// The input ended: flush the decoders, refuse an empty document, note truncation; the events read.
    fn finish_input(&mut self) -> Result<u64, ReadError> {
        if let Mode::Undecided(head) = &mut self.mode {
            let head = std::mem::take(head);
            self.decide(&head);
            self.push(&head)?;
        }
        if let Mode::Gzip(gz) = &mut self.mode {
            let mut over = false;
            let sink = inflated_sink(&mut self.walker, &mut self.conv, self.budget, &mut over);
            match gz.finish(sink) {
                Ok(_) if over => {}
                Ok(r) => r.map_err(|e| self.syntax(e))?,
                Err(e) => self.gzip_broke(e)?,
            }
        }
        if let Mode::Utf16(t, buf) = &mut self.mode {
            buf.clear();
            t.finish(buf);
            let buf = std::mem::take(buf);
            self.walker.feed(&buf, &mut self.conv).map_err(|e| self.syntax(e))?;
        }
        self.budget.admit_events(&self.file, FORMAT, self.walker.events)?;
        if !self.walker.started() {
            return Err(ReadError::Empty {
                file: self.file.clone(),
                format: FORMAT,
                detail: " (the file holds no JSON)".into(),
            });
        }
        let events = self.walker.events;
        if events == 0 {
            let detail = if self.walker.object_form() && !self.walker.saw_trace_events {
                " (a JSON object without a \"traceEvents\" array)".to_string()
            } else {
                String::new()
            };
            return Err(ReadError::Empty { file: self.file.clone(), format: FORMAT, detail });
        }
        if let Some((at, n)) = self.walker.trailing {
            let file = self.file.clone();
            self.conv.b.warn(WarningKind::Other, || {
                format!("{file}: {n} bytes after the end of the JSON document (from byte {at}: trailing data or a second document) are ignored")
            });
        }
        if self.walker.finish() && !self.truncated_gzip {
            let (file, held) = (self.file.clone(), self.walker.held_bytes());
            self.conv.b.warn(WarningKind::Truncated, || {
                if held > 0 {
                    format!("{file}: the file ends inside an event ({held} bytes dropped); {events} events before it are kept")
                } else {
                    format!("{file}: the file ends before its closing bracket; all {events} events are kept")
                }
            });
        }
        Ok(events)
    }
}

/// Where inflated bytes go: into the walker, stopping (and setting `over`) as soon as the events pass the
/// budget, so a gzip bomb is refused after one slice of output rather than after the whole chunk.
fn inflated_sink<'a>(
    walker: &'a mut DocumentWalker,
    conv: &'a mut Converter,
    budget: Budget,
    over: &'a mut bool,
) -> impl FnMut(&[u8]) -> Result<(), SyntaxError> + 'a {
    move |piece| {
        walker.feed(piece, conv)?;
        if walker.events > budget.stream_events {
            *over = true;
            return Err(SyntaxError { offset: 0, detail: String::new() });
        }
        Ok(())
    }
}

/// What the top-level object at the head of a file says, for the sniffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ObjectHead {
    /// A `traceEvents` key was found among the top-level keys.
    TraceEvents,
    /// The object ended (or broke JSON) without one.
    NoTraceEvents,
    /// The head ended inside the top-level object, before any `traceEvents`: other keys come first,
    /// whatever their size (metadata, stack frames), so only reading on can tell.
    Undecided,
}

/// Walk the top-level keys of the JSON object at the start of `head` (UTF-8), skipping their values,
/// until a `traceEvents` key, the object's end, or the end of `head`. Linear in `head`; holds nothing.
pub(crate) fn object_head(head: &[u8]) -> ObjectHead {
    struct Ignore;
    impl EventSink for Ignore {
        fn event(&mut self, _: &scanner::RawEvent, _: u64) {}
    }
    let mut walker = DocumentWalker::default();
    for piece in head.chunks(64 * 1024) {
        if walker.feed(piece, &mut Ignore).is_err() {
            return ObjectHead::NoTraceEvents;
        }
        if walker.saw_trace_events {
            return ObjectHead::TraceEvents;
        }
        if !walker.finish() {
            return ObjectHead::NoTraceEvents;
        }
    }
    ObjectHead::Undecided
}

/// Read a whole Chrome trace held in memory (plain or gzipped).
pub fn read(name: &str, bytes: &[u8]) -> Result<Trace, ReadError> {
    let mut r = ChromeStreamReader::new(name);
    r.feed(bytes)?;
    r.finish()
}

/// [`read`], with what the file says of its run (Kineto's `distributedInfo` and `baseTimeNanoseconds`).
pub fn read_run(name: &str, bytes: &[u8]) -> Result<(Trace, RunInfo), ReadError> {
    let mut r = ChromeStreamReader::new(name);
    r.feed(bytes)?;
    r.finish_run()
}

/// [`read`] without the events' `args`: the trace a store of this file holds.
pub fn read_without_args(name: &str, bytes: &[u8]) -> Result<Trace, ReadError> {
    let mut r = ChromeStreamReader::new(name).without_args();
    r.feed(bytes)?;
    r.finish()
}
