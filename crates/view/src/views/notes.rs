//! Notes (issue #55): text and a colour on a time range of the trace, or on one interval, kept beside the
//! view. A note is written two ways: compactly into the permalink ([`encode_link`] / [`decode_link`]: a
//! version byte, varints and UTF-8 texts, in base64url) and as a small JSON file beside the trace
//! ([`to_json`] / [`from_json`], documented in docs/notes.md). An interval note names its interval by its
//! location, start and end, so it is found again when the trace is opened again ([`NoteSet::resolve`]).
//! Both readers are bounded (count, text length, input size) and answer garbled or hostile input with a
//! [`NotesError`], never a panic. Texts are kept as given: whoever shows them sets them as text.
//! Must not: draw (scene::note_marks does) or know the page.

use serde_json::{json, Value};
use weft_model::Trace;

/// Notes a set holds at most (a link stays a few tens of kB).
pub const MAX_NOTES: usize = 100;
/// Bytes of UTF-8 a note's text holds at most.
pub const MAX_TEXT_BYTES: usize = 500;
/// Characters of a link's notes value read at most (more than [`MAX_NOTES`] notes of [`MAX_TEXT_BYTES`]
/// each take).
pub const MAX_LINK_CHARS: usize = 80_000;
/// Bytes of a notes file read at most.
pub const MAX_FILE_BYTES: usize = 1 << 20;
/// The link encoding's version byte.
pub const LINK_VERSION: u8 = 1;
/// The JSON file's `weft_notes` version.
pub const FILE_VERSION: u64 = 1;

/// The notes' palette: few colours, each named in the JSON file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Colour {
    #[default]
    Yellow,
    Red,
    Green,
    Blue,
    Purple,
    Grey,
}

impl Colour {
    pub const ALL: [Colour; 6] =
        [Colour::Yellow, Colour::Red, Colour::Green, Colour::Blue, Colour::Purple, Colour::Grey];

    pub fn name(self) -> &'static str {
        match self {
            Colour::Yellow => "yellow",
            Colour::Red => "red",
            Colour::Green => "green",
            Colour::Blue => "blue",
            Colour::Purple => "purple",
            Colour::Grey => "grey",
        }
    }

    pub fn parse(name: &str) -> Option<Colour> {
        Colour::ALL.into_iter().find(|c| c.name() == name)
    }

    fn code(self) -> u8 {
        Colour::ALL.iter().position(|&c| c == self).unwrap_or(0) as u8
    }

    fn from_code(code: u8) -> Option<Colour> {
        Colour::ALL.get(code as usize).copied()
    }
}

/// One note: a time range [t0_ns, t1_ns] (ns from the trace's start), its text and colour, and optionally
/// the location it is about. `interval`: the note is on the interval of `location` that starts at t0_ns and
/// ends at t1_ns (the outermost, when nested intervals share both).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    pub t0_ns: u64,
    pub t1_ns: u64,
    pub text: String,
    pub colour: Colour,
    pub location: Option<u32>,
    pub interval: bool,
}

/// What is wrong with a link's notes or a notes file.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum NotesError {
    #[error("the link's notes are {len} characters, more than the {max} read")]
    LinkTooLong { len: usize, max: usize },
    #[error("the link's notes are not base64url: character {at} is {found:?}")]
    Base64 { at: usize, found: char },
    #[error("the link's notes are empty")]
    Empty,
    #[error("the link's notes are of version {found}; this page reads version {LINK_VERSION}")]
    LinkVersion { found: u8 },
    #[error("the link's notes end early, in {what}")]
    Truncated { what: &'static str },
    #[error("a number in the link's notes does not fit 64 bits ({what})")]
    Overflow { what: &'static str },
    #[error("{count} notes, more than the {max} kept")]
    TooMany { count: u64, max: usize },
    #[error("note {note}: its text is {len} bytes, more than the {max} kept")]
    TextTooLong { note: usize, len: u64, max: usize },
    #[error("note {note}: its text is not UTF-8")]
    Utf8 { note: usize },
    #[error("note {note}: no colour {found:?} (yellow, red, green, blue, purple or grey)")]
    Colour { note: usize, found: String },
    #[error("note {note}: it ends before it starts, or past 2^64 ns")]
    Range { note: usize },
    #[error("note {note}: an interval note names no location")]
    IntervalWithoutLocation { note: usize },
    #[error("{bytes} bytes after the last note of the link")]
    Trailing { bytes: usize },
    #[error("the notes file is {bytes} bytes, more than the {max} read")]
    FileTooLarge { bytes: usize, max: usize },
    #[error("the notes file is not JSON: {0}")]
    Json(String),
    #[error("the file is not a weft notes file (no \"weft_notes\" key)")]
    NotNotes,
    #[error("the notes file is of version {found}; this page reads version {FILE_VERSION}")]
    FileVersion { found: String },
    #[error("{at}: {field} should be {expected}")]
    Field { at: String, field: &'static str, expected: &'static str },
}

// ---- the link: version, count, then per note t0, t1 - t0, colour, flags, [location], text ----

const FLAG_LOCATION: u8 = 1;
const FLAG_INTERVAL: u8 = 2;

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn byte(&mut self, what: &'static str) -> Result<u8, NotesError> {
        let b = *self.bytes.get(self.at).ok_or(NotesError::Truncated { what })?;
        self.at += 1;
        Ok(b)
    }
    fn varint(&mut self, what: &'static str) -> Result<u64, NotesError> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte(what)?;
            let part = u64::from(b & 0x7f);
            if shift == 63 && part > 1 {
                return Err(NotesError::Overflow { what });
            }
            v |= part << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(NotesError::Overflow { what })
    }
    fn take(&mut self, n: usize, what: &'static str) -> Result<&[u8], NotesError> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len()).ok_or(NotesError::Truncated { what })?;
        let s = &self.bytes[self.at..end];
        self.at = end;
        Ok(s)
    }
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

fn base64url(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, &b)| n | (u32::from(b) << (16 - 8 * i)));
        for i in 0..=chunk.len() {
            out.push(B64[(n >> (18 - 6 * i) & 63) as usize] as char);
        }
    }
    out
}

fn from_base64url(text: &str) -> Result<Vec<u8>, NotesError> {
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for (at, c) in text.chars().enumerate() {
        let v = match c {
            'A'..='Z' => c as u32 - 'A' as u32,
            'a'..='z' => c as u32 - 'a' as u32 + 26,
            '0'..='9' => c as u32 - '0' as u32 + 52,
            '-' => 62,
            '_' => 63,
            _ => return Err(NotesError::Base64 { at, found: c }),
        };
        acc = (acc << 6 | v) & 0xff_ffff;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    // A lone sixth character cannot end a base64 text.
    if bits == 6 {
        return Err(NotesError::Truncated { what: "the base64 text" });
    }
    Ok(out)
}

/// The notes as the link's value: URL-safe (base64url, no padding); "" for none.
pub fn encode_link(notes: &[Note]) -> String {
    if notes.is_empty() {
        return String::new();
    }
    let mut out = vec![LINK_VERSION];
    put_varint(&mut out, notes.len() as u64);
    for n in notes {
        put_varint(&mut out, n.t0_ns);
        put_varint(&mut out, n.t1_ns.saturating_sub(n.t0_ns));
        out.push(n.colour.code());
        let flags = if n.location.is_some() { FLAG_LOCATION } else { 0 } | if n.interval { FLAG_INTERVAL } else { 0 };
        out.push(flags);
        if let Some(l) = n.location {
            put_varint(&mut out, u64::from(l));
        }
        put_varint(&mut out, n.text.len() as u64);
        out.extend_from_slice(n.text.as_bytes());
    }
    base64url(&out)
}

/// The notes of a link's value, as [`encode_link`] wrote them; "" is none.
pub fn decode_link(text: &str) -> Result<Vec<Note>, NotesError> {
    if text.len() > MAX_LINK_CHARS {
        return Err(NotesError::LinkTooLong { len: text.len(), max: MAX_LINK_CHARS });
    }
    if text.is_empty() {
        return Ok(Vec::new());
    }
    let bytes = from_base64url(text)?;
    let mut r = Reader { bytes: &bytes, at: 0 };
    let version = r.byte("the version").map_err(|_| NotesError::Empty)?;
    if version != LINK_VERSION {
        return Err(NotesError::LinkVersion { found: version });
    }
    let count = r.varint("the count")?;
    if count > MAX_NOTES as u64 {
        return Err(NotesError::TooMany { count, max: MAX_NOTES });
    }
    let mut notes = Vec::with_capacity(count as usize);
    for note in 1..=count as usize {
        let t0_ns = r.varint("a note's start")?;
        let len_ns = r.varint("a note's length")?;
        let t1_ns = t0_ns.checked_add(len_ns).ok_or(NotesError::Range { note })?;
        let code = r.byte("a note's colour")?;
        let colour = Colour::from_code(code).ok_or(NotesError::Colour { note, found: code.to_string() })?;
        let flags = r.byte("a note's flags")?;
        let location = if flags & FLAG_LOCATION != 0 {
            let l = r.varint("a note's location")?;
            Some(u32::try_from(l).map_err(|_| NotesError::Overflow { what: "a note's location" })?)
        } else {
            None
        };
        let interval = flags & FLAG_INTERVAL != 0;
        if interval && location.is_none() {
            return Err(NotesError::IntervalWithoutLocation { note });
        }
        let len = r.varint("a note's text length")?;
        if len > MAX_TEXT_BYTES as u64 {
            return Err(NotesError::TextTooLong { note, len, max: MAX_TEXT_BYTES });
        }
        let text = r.take(len as usize, "a note's text")?;
        let text = std::str::from_utf8(text).map_err(|_| NotesError::Utf8 { note })?.to_string();
        notes.push(Note { t0_ns, t1_ns, text, colour, location, interval });
    }
    let rest = bytes.len() - r.at;
    if rest > 0 {
        return Err(NotesError::Trailing { bytes: rest });
    }
    Ok(notes)
}

// ---- the JSON file ----

/// The trace a notes file was written beside: its name and span.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotesTrace {
    pub name: String,
    pub span_ns: u64,
}

/// The notes as the JSON file (docs/notes.md), pretty-printed.
pub fn to_json(notes: &[Note], trace: &NotesTrace) -> String {
    let notes: Vec<Value> = notes
        .iter()
        .map(|n| {
            let mut v = json!({"t0_ns": n.t0_ns, "t1_ns": n.t1_ns, "text": n.text, "colour": n.colour.name()});
            if let Some(l) = n.location {
                v["location"] = json!(l);
            }
            if n.interval {
                v["interval"] = json!(true);
            }
            v
        })
        .collect();
    // Written by hand so that `weft_notes` comes first (a reader sees at once what the file is).
    let trace = json!({"name": trace.name, "span_ns": trace.span_ns});
    let notes = serde_json::to_string_pretty(&notes).unwrap_or_default().replace('\n', "\n  ");
    format!("{{\n  \"weft_notes\": {FILE_VERSION},\n  \"trace\": {trace},\n  \"notes\": {notes}\n}}\n")
}

/// Is `text` a notes file: a JSON object (of at most [`MAX_FILE_BYTES`]) with a top-level `weft_notes` key?
/// No trace format is such an object, so a dropped file is told from a trace exactly.
pub fn is_notes_file(text: &str) -> bool {
    let text = text.trim_start_matches('\u{feff}');
    text.len() <= MAX_FILE_BYTES
        && text.trim_start().starts_with('{')
        && serde_json::from_str::<Value>(text).is_ok_and(|v| v.get("weft_notes").is_some())
}

/// A notes file read: its notes and the trace it names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotesFile {
    pub trace: Option<NotesTrace>,
    pub notes: Vec<Note>,
}

/// Read a notes file (docs/notes.md).
pub fn from_json(text: &str) -> Result<NotesFile, NotesError> {
    if text.len() > MAX_FILE_BYTES {
        return Err(NotesError::FileTooLarge { bytes: text.len(), max: MAX_FILE_BYTES });
    }
    let doc: Value =
        serde_json::from_str(text.trim_start_matches('\u{feff}')).map_err(|e| NotesError::Json(e.to_string()))?;
    let version = doc.get("weft_notes").ok_or(NotesError::NotNotes)?;
    if version.as_u64() != Some(FILE_VERSION) {
        return Err(NotesError::FileVersion { found: version.to_string() });
    }
    let field = |at: &str, field: &'static str, expected: &'static str| NotesError::Field {
        at: at.to_string(),
        field,
        expected,
    };
    let trace = match doc.get("trace") {
        None | Some(Value::Null) => None,
        Some(t) => Some(NotesTrace {
            name: t.get("name").and_then(Value::as_str).ok_or_else(|| field("trace", "name", "a string"))?.to_string(),
            span_ns: t
                .get("span_ns")
                .and_then(Value::as_u64)
                .ok_or_else(|| field("trace", "span_ns", "a whole number"))?,
        }),
    };
    let list = doc.get("notes").and_then(Value::as_array).ok_or_else(|| field("the file", "notes", "a list"))?;
    if list.len() > MAX_NOTES {
        return Err(NotesError::TooMany { count: list.len() as u64, max: MAX_NOTES });
    }
    let mut notes = Vec::with_capacity(list.len());
    for (k, v) in list.iter().enumerate() {
        let note = k + 1;
        let at = format!("note {note}");
        let ns = |key: &'static str| {
            v.get(key).and_then(Value::as_u64).ok_or_else(|| field(&at, key, "a whole number of ns"))
        };
        let (t0_ns, t1_ns) = (ns("t0_ns")?, ns("t1_ns")?);
        if t1_ns < t0_ns {
            return Err(NotesError::Range { note });
        }
        let text = v.get("text").and_then(Value::as_str).ok_or_else(|| field(&at, "text", "a string"))?;
        if text.len() > MAX_TEXT_BYTES {
            return Err(NotesError::TextTooLong { note, len: text.len() as u64, max: MAX_TEXT_BYTES });
        }
        let colour = match v.get("colour") {
            None | Some(Value::Null) => Colour::default(),
            Some(c) => {
                let name = c.as_str().ok_or_else(|| field(&at, "colour", "a colour's name"))?;
                Colour::parse(name).ok_or_else(|| NotesError::Colour { note, found: name.to_string() })?
            }
        };
        let location = match v.get("location") {
            None | Some(Value::Null) => None,
            Some(l) => Some(
                l.as_u64()
                    .and_then(|l| u32::try_from(l).ok())
                    .ok_or_else(|| field(&at, "location", "a location's number"))?,
            ),
        };
        let interval = match v.get("interval") {
            None | Some(Value::Null) => false,
            Some(b) => b.as_bool().ok_or_else(|| field(&at, "interval", "true or false"))?,
        };
        if interval && location.is_none() {
            return Err(NotesError::IntervalWithoutLocation { note });
        }
        notes.push(Note { t0_ns, t1_ns, text: text.to_string(), colour, location, interval });
    }
    Ok(NotesFile { trace, notes })
}

/// Why notes read for `trace` may not be about it (another name or span), in words; empty when they agree.
pub fn mismatch(file: &NotesFile, name: &str, span_ns: u64) -> Vec<String> {
    let Some(t) = &file.trace else {
        return vec!["the notes file names no trace".to_string()];
    };
    let mut out = Vec::new();
    if t.name != name {
        out.push(format!("the notes were written for {:?}, not {:?}", t.name, name));
    }
    if t.span_ns != span_ns {
        out.push(format!("the notes' trace spans {} ns, this one {} ns", t.span_ns, span_ns));
    }
    out
}

// ---- the notes of a trace shown ----

/// A timeline that takes notes: a trace's (`views::timeline`) or a store's (`views::store`, whose notes are on
/// time ranges and rows: it holds no interval for good). The page's notes panel asks whichever is shown.
pub trait NotesHost {
    fn notes(&self) -> &NoteSet;
    /// The notes and the trace they are taken on (a store's skeleton: its locations and span).
    fn notes_mut(&mut self) -> (&mut NoteSet, &Trace);
    fn notes_trace(&self) -> &Trace;
    /// Zoom to note `k`; false when there is none.
    fn show_note(&mut self, k: usize) -> bool;
    /// The interval under the pointer, which "note here" notes first (never on a store).
    fn hovered_interval(&self) -> Option<usize>;
    /// The time range "note here" notes without an interval under the pointer.
    fn note_range(&self) -> Option<weft_analyses::moments::TimeWindow>;
}

/// The hover of note `k`: its number and text, as given (the page sets it as text), what it is on, and its
/// time at the precision a view `visible_ns` wide needs.
pub fn note_hover(notes: &NoteSet, k: usize, trace: &Trace, visible_ns: f64) -> Option<crate::views::Hover> {
    use crate::scene::timeline::{format_duration, format_time_for_span};
    let n = notes.notes().get(k)?;
    let at = |t: u64| format_time_for_span(t as f64, visible_ns);
    let on = match (notes.interval_of(k), n.location) {
        (Some(i), _) => format!("on the interval of {}", trace.region_name(trace.intervals.region[i])),
        (None, Some(l)) if (l as usize) < trace.locations.len() => {
            format!("on {}", trace.location_name(weft_model::LocationId(l)))
        }
        _ => "on the time range".to_string(),
    };
    let when = if n.t1_ns > n.t0_ns {
        format!("{} to {} ({})", at(n.t0_ns), at(n.t1_ns), format_duration(n.t1_ns - n.t0_ns))
    } else {
        format!("at {}", at(n.t0_ns))
    };
    let mut lines: Vec<String> = n.text.lines().map(str::to_string).collect();
    lines.push(format!("{on}, {when}"));
    Some(crate::views::Hover {
        title: format!("note {} ({})", k + 1, n.colour.name()),
        lines,
        detail: json!({"note": k, "text": n.text, "t0_ns": n.t0_ns, "t1_ns": n.t1_ns}),
    })
}

/// The notes on the trace shown, each interval note with the interval found for it (None: not in this
/// trace, drawn as a range on its location's row).
#[derive(Clone, Debug, Default)]
pub struct NoteSet {
    notes: Vec<Note>,
    intervals: Vec<Option<usize>>,
}

/// A note as the panel lists it.
#[derive(Clone, Debug, serde::Serialize, PartialEq)]
pub struct NoteInfo {
    pub index: usize,
    pub t0_ns: u64,
    pub t1_ns: u64,
    pub text: String,
    pub colour: &'static str,
    pub location: Option<u32>,
    pub interval: Option<usize>,
    /// An interval note whose interval is not in the trace.
    pub unresolved: bool,
}

impl NoteSet {
    pub fn notes(&self) -> &[Note] {
        &self.notes
    }

    /// The interval found for note `k` (interval notes only).
    pub fn interval_of(&self, k: usize) -> Option<usize> {
        self.intervals.get(k).copied().flatten()
    }

    pub fn len(&self) -> usize {
        self.notes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.notes.is_empty()
    }

    pub fn list(&self) -> Vec<NoteInfo> {
        self.notes
            .iter()
            .enumerate()
            .map(|(index, n)| NoteInfo {
                index,
                t0_ns: n.t0_ns,
                t1_ns: n.t1_ns,
                text: n.text.clone(),
                colour: n.colour.name(),
                location: n.location,
                interval: self.interval_of(index),
                unresolved: n.interval && self.interval_of(index).is_none(),
            })
            .collect()
    }

    /// Replace the notes by `notes`, kept to `trace`: a location it lacks is dropped and said in the
    /// returned warnings; interval notes are found in it.
    pub fn replace(&mut self, trace: &Trace, notes: Vec<Note>) -> Vec<String> {
        let mut warnings = Vec::new();
        let locations = trace.locations.len() as u64;
        self.notes = notes
            .into_iter()
            .enumerate()
            .map(|(k, mut n)| {
                if n.location.is_some_and(|l| u64::from(l) >= locations) {
                    warnings.push(format!("note {}: the trace has no location {}", k + 1, n.location.unwrap_or(0)));
                    n.location = None;
                    n.interval = false;
                }
                n
            })
            .take(MAX_NOTES)
            .collect();
        self.intervals = resolve(trace, &self.notes);
        let lost = self.list().iter().filter(|n| n.unresolved).count();
        if lost > 0 {
            warnings.push(format!("{lost} interval note(s) name an interval this trace lacks"));
        }
        warnings
    }

    /// Add a note; Err when the set is full or the text too long.
    pub fn add(&mut self, trace: &Trace, note: Note) -> Result<usize, NotesError> {
        if self.notes.len() >= MAX_NOTES {
            return Err(NotesError::TooMany { count: self.notes.len() as u64 + 1, max: MAX_NOTES });
        }
        check_text(self.notes.len() + 1, &note.text)?;
        let found = resolve(trace, std::slice::from_ref(&note));
        self.notes.push(note);
        self.intervals.extend(found);
        Ok(self.notes.len() - 1)
    }

    /// A note on interval `i` of `trace`.
    pub fn add_interval(&mut self, trace: &Trace, i: usize, text: &str, colour: Colour) -> Result<usize, NotesError> {
        let iv = &trace.intervals;
        if i >= iv.len() {
            return Err(NotesError::Field {
                at: "the note".into(),
                field: "interval",
                expected: "an interval of the trace",
            });
        }
        let note = Note {
            t0_ns: iv.start_ns[i],
            t1_ns: iv.end_ns(i),
            text: text.to_string(),
            colour,
            location: Some(iv.location[i].0),
            interval: true,
        };
        self.add(trace, note)
    }

    pub fn set_text(&mut self, k: usize, text: &str) -> Result<bool, NotesError> {
        check_text(k + 1, text)?;
        Ok(self.notes.get_mut(k).map(|n| n.text = text.to_string()).is_some())
    }

    pub fn set_colour(&mut self, k: usize, colour: Colour) -> bool {
        self.notes.get_mut(k).map(|n| n.colour = colour).is_some()
    }

    pub fn remove(&mut self, k: usize) -> bool {
        if k >= self.notes.len() {
            return false;
        }
        self.notes.remove(k);
        self.intervals.remove(k);
        true
    }
}

fn check_text(note: usize, text: &str) -> Result<(), NotesError> {
    if text.len() > MAX_TEXT_BYTES {
        return Err(NotesError::TextTooLong { note, len: text.len() as u64, max: MAX_TEXT_BYTES });
    }
    Ok(())
}

/// The interval each interval note names in `trace` (its location's interval starting at t0 and ending at t1;
/// the outermost of several), found in one pass over the intervals; None for range notes.
pub fn resolve(trace: &Trace, notes: &[Note]) -> Vec<Option<usize>> {
    let mut wanted: rustc_hash::FxHashMap<(u32, u64, u64), Vec<usize>> = Default::default();
    for (k, n) in notes.iter().enumerate() {
        if let (true, Some(l)) = (n.interval, n.location) {
            wanted.entry((l, n.t0_ns, n.t1_ns)).or_default().push(k);
        }
    }
    let mut found = vec![None; notes.len()];
    if wanted.is_empty() {
        return found;
    }
    let iv = &trace.intervals;
    for i in 0..iv.len() {
        let Some(ks) = wanted.get(&(iv.location[i].0, iv.start_ns[i], iv.end_ns(i))) else { continue };
        for &k in ks {
            let better = match found[k] {
                None => true,
                Some(j) => iv.depth[i] < iv.depth[j],
            };
            if better {
                found[k] = Some(i);
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<Note> {
        vec![
            Note {
                t0_ns: 1_000,
                t1_ns: 25_000,
                text: "slow phase".into(),
                colour: Colour::Red,
                location: None,
                interval: false,
            },
            Note {
                t0_ns: 0,
                t1_ns: u64::MAX,
                text: "<img src=x onerror=alert(1)> ünïcødé ✓".into(),
                colour: Colour::Grey,
                location: Some(70_000),
                interval: true,
            },
            Note { t0_ns: 5, t1_ns: 5, text: String::new(), colour: Colour::Blue, location: Some(0), interval: false },
        ]
    }

    #[test]
    fn link_round_trips_and_is_url_safe() {
        let notes = sample();
        let link = encode_link(&notes);
        assert!(link.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'), "{link}");
        assert_eq!(decode_link(&link).unwrap(), notes);
        assert_eq!(encode_link(&[]), "");
        assert_eq!(decode_link("").unwrap(), vec![]);
        // Small: a short note is a few bytes beside its text.
        let one = &notes[..1];
        assert!(encode_link(one).len() < 30, "{}", encode_link(one));
    }

    #[test]
    fn base64url_round_trips_every_length() {
        for n in 0..40usize {
            let bytes: Vec<u8> = (0..n).map(|i| (i * 37 + 11) as u8).collect();
            assert_eq!(from_base64url(&base64url(&bytes)).unwrap(), bytes);
        }
    }

    #[test]
    fn json_round_trips() {
        let notes = sample();
        let trace = NotesTrace { name: "run <1>.otf2".into(), span_ns: 123 };
        let text = to_json(&notes, &trace);
        assert!(is_notes_file(&text));
        let back = from_json(&text).unwrap();
        assert_eq!(back.notes, notes);
        assert_eq!(back.trace.as_ref(), Some(&trace));
        assert!(mismatch(&back, "run <1>.otf2", 123).is_empty());
        assert_eq!(mismatch(&back, "other", 124).len(), 2);
    }

    #[test]
    fn garbled_links_give_typed_errors() {
        let good = encode_link(&sample());
        assert!(matches!(decode_link("ab$d"), Err(NotesError::Base64 { at: 2, found: '$' })));
        assert!(matches!(decode_link(&"A".repeat(MAX_LINK_CHARS + 1)), Err(NotesError::LinkTooLong { .. })));
        assert!(matches!(decode_link("Ag"), Err(NotesError::LinkVersion { found: 2 })));
        // Every prefix of a good link is an error or fewer notes, never a panic.
        for cut in 1..good.len() {
            let r = decode_link(&good[..cut]);
            assert!(r.is_err(), "prefix {cut} decoded: {r:?}");
        }
        // Every single-byte change of its bytes decodes or errs, never panics.
        let bytes = from_base64url(&good).unwrap();
        for i in 0..bytes.len() {
            for v in [0u8, 1, 0x7f, 0x80, 0xff] {
                let mut b = bytes.clone();
                b[i] = v;
                let _ = decode_link(&base64url(&b));
            }
        }
        // A huge count is refused before anything is allocated.
        let mut b = vec![LINK_VERSION];
        put_varint(&mut b, u64::MAX);
        assert!(matches!(decode_link(&base64url(&b)), Err(NotesError::TooMany { .. })));
        // A varint longer than 64 bits.
        let b = [LINK_VERSION, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f];
        assert!(matches!(decode_link(&base64url(&b)), Err(NotesError::Overflow { .. })));
        // A range past 2^64, a bad colour, an overlong text, bad UTF-8, trailing bytes.
        let note = |t0: u64, len: u64, colour: u8, flags: u8, text: &[u8], text_len: u64| {
            let mut b = vec![LINK_VERSION, 1];
            put_varint(&mut b, t0);
            put_varint(&mut b, len);
            b.extend([colour, flags]);
            if flags & FLAG_LOCATION != 0 {
                b.push(3);
            }
            put_varint(&mut b, text_len);
            b.extend_from_slice(text);
            b
        };
        assert_eq!(decode_link(&base64url(&note(u64::MAX, 2, 0, 0, b"", 0))), Err(NotesError::Range { note: 1 }));
        assert!(matches!(decode_link(&base64url(&note(0, 1, 9, 0, b"", 0))), Err(NotesError::Colour { note: 1, .. })));
        assert!(matches!(decode_link(&base64url(&note(0, 1, 0, 0, b"", 10_000))), Err(NotesError::TextTooLong { .. })));
        assert_eq!(decode_link(&base64url(&note(0, 1, 0, 0, &[0xff, 0xfe], 2))), Err(NotesError::Utf8 { note: 1 }));
        assert_eq!(
            decode_link(&base64url(&note(0, 1, 0, FLAG_INTERVAL, b"", 0))),
            Err(NotesError::IntervalWithoutLocation { note: 1 })
        );
        let mut b = note(0, 1, 0, FLAG_LOCATION, b"x", 1);
        b.push(0);
        assert_eq!(decode_link(&base64url(&b)), Err(NotesError::Trailing { bytes: 1 }));
        assert!(decode_link(&base64url(&note(0, 1, 0, FLAG_LOCATION, b"x", 1))).is_ok());
    }

    #[test]
    fn garbled_files_give_typed_errors() {
        assert!(matches!(from_json("{"), Err(NotesError::Json(_))));
        assert_eq!(from_json(r#"{"traceEvents": []}"#), Err(NotesError::NotNotes));
        assert!(matches!(from_json(r#"{"weft_notes": 2, "notes": []}"#), Err(NotesError::FileVersion { .. })));
        assert!(matches!(from_json(r#"{"weft_notes": 1}"#), Err(NotesError::Field { field: "notes", .. })));
        let one = |n: &str| from_json(&format!(r#"{{"weft_notes": 1, "notes": [{n}]}}"#));
        assert!(matches!(
            one(r#"{"t0_ns": -1, "t1_ns": 2, "text": ""}"#),
            Err(NotesError::Field { field: "t0_ns", .. })
        ));
        assert_eq!(one(r#"{"t0_ns": 3, "t1_ns": 2, "text": ""}"#), Err(NotesError::Range { note: 1 }));
        assert!(matches!(one(r#"{"t0_ns": 1, "t1_ns": 2, "text": 5}"#), Err(NotesError::Field { field: "text", .. })));
        assert!(matches!(
            one(r#"{"t0_ns": 1, "t1_ns": 2, "text": "", "colour": "mauve"}"#),
            Err(NotesError::Colour { .. })
        ));
        assert!(matches!(
            one(r#"{"t0_ns": 1, "t1_ns": 2, "text": "", "location": 4294967296}"#),
            Err(NotesError::Field { field: "location", .. })
        ));
        assert_eq!(
            one(r#"{"t0_ns": 1, "t1_ns": 2, "text": "", "interval": true}"#),
            Err(NotesError::IntervalWithoutLocation { note: 1 })
        );
        let long = format!(r#"{{"t0_ns": 1, "t1_ns": 2, "text": "{}"}}"#, "x".repeat(MAX_TEXT_BYTES + 1));
        assert!(matches!(one(&long), Err(NotesError::TextTooLong { .. })));
        let many = vec![r#"{"t0_ns": 1, "t1_ns": 2, "text": ""}"#; MAX_NOTES + 1].join(",");
        assert!(matches!(one(&many), Err(NotesError::TooMany { .. })));
        assert!(matches!(from_json(&" ".repeat(MAX_FILE_BYTES + 1)), Err(NotesError::FileTooLarge { .. })));
        // A trace is never taken for notes.
        assert!(!is_notes_file(r#"{"traceEvents": [{"name": "x"}], "otherData": {}}"#));
        assert!(!is_notes_file("[{\"weft_notes\": 1}]"));
        assert!(!is_notes_file("\u{feff}"));
        assert!(is_notes_file("\u{feff} {\"weft_notes\": 1, \"notes\": []}"));
    }

    fn trace() -> Trace {
        weft_samples::nesting::nesting_trace(7)
    }

    /// The intervals of `t` with the same location, start and end as interval `i`.
    fn alike(t: &Trace, i: usize) -> Vec<usize> {
        let iv = &t.intervals;
        let key = |j: usize| (iv.location[j], iv.start_ns[j], iv.end_ns(j));
        (0..iv.len()).filter(|&j| key(j) == key(i)).collect()
    }

    #[test]
    fn an_interval_note_finds_its_interval_again() {
        let t = trace();
        let iv = &t.intervals;
        // A nested interval (depth > 0) that no other interval shares its location, start and end with.
        let i = (0..iv.len()).find(|&i| iv.depth[i] > 0 && alike(&t, i).len() == 1).expect("a nested interval");
        let mut set = NoteSet::default();
        let k = set.add_interval(&t, i, "this call", Colour::Green).unwrap();
        assert_eq!(set.interval_of(k), Some(i));
        // Through the link and the file, into a fresh set on the same trace: the same interval.
        let link = encode_link(set.notes());
        let mut again = NoteSet::default();
        assert!(again.replace(&t, decode_link(&link).unwrap()).is_empty());
        assert_eq!(again.interval_of(0), Some(i));
        let file = to_json(set.notes(), &NotesTrace { name: "t".into(), span_ns: t.span_ns });
        let mut third = NoteSet::default();
        assert!(third.replace(&t, from_json(&file).unwrap().notes).is_empty());
        assert_eq!(third.interval_of(0), Some(i));
        assert_eq!(third.list()[0].text, "this call");
        // Moved by a nanosecond it names no interval, and says so.
        let mut moved = set.notes().to_vec();
        moved[0].t0_ns += 1;
        let mut fourth = NoteSet::default();
        let warnings = fourth.replace(&t, moved);
        assert_eq!(fourth.interval_of(0), None);
        assert!(fourth.list()[0].unresolved);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        // A location the trace lacks is dropped with a warning.
        let far = Note { location: Some(1 << 30), ..set.notes()[0].clone() };
        let warnings = fourth.replace(&t, vec![far]);
        assert_eq!(fourth.notes()[0].location, None);
        assert!(warnings[0].contains("no location"), "{warnings:?}");
    }

    #[test]
    fn intervals_alike_resolve_to_the_outermost() {
        let t = trace();
        let iv = &t.intervals;
        let i = (0..iv.len()).find(|&i| alike(&t, i).len() > 1).expect("intervals with one start and end");
        let outer = alike(&t, i).into_iter().min_by_key(|&j| iv.depth[j]).unwrap();
        let mut set = NoteSet::default();
        set.add_interval(&t, i, "", Colour::Red).unwrap();
        assert_eq!(set.interval_of(0), Some(outer));
    }

    #[test]
    fn the_timeline_draws_its_notes_and_zooms_to_them() {
        use crate::views::timeline::TimelinePane;
        use crate::views::Pane;
        let t = std::rc::Rc::new(trace());
        let mut pane = TimelinePane::new(t.clone(), 1200.0, 800.0);
        let (set, tr) = pane.notes_mut();
        let span = tr.span_ns;
        set.add(tr, Note { t0_ns: span / 3, t1_ns: span / 3 + 50, text: "here".into(), ..sample()[0].clone() })
            .unwrap();
        let i = (0..t.intervals.len()).find(|&i| t.intervals.dur_ns[i] > 0).expect("an interval with a duration");
        set.add_interval(tr, i, "that", Colour::Blue).unwrap();
        let texts: Vec<String> = pane.scene().labels.iter().map(|l| l.text.clone()).collect();
        assert!(texts.iter().any(|l| l == "1 · here"), "{texts:?}");
        assert!(pane.show_note(0));
        let (a, b) = pane.time_range().unwrap();
        assert!(a <= (span / 3) as f64 && b >= (span / 3 + 50) as f64 && b - a < 1_000.0, "{a}..{b}");
        assert!(pane.show_note(1));
        let (a, b) = pane.time_range().unwrap();
        assert!(a <= t.intervals.start_ns[i] as f64 && b >= t.intervals.end_ns(i) as f64, "{a}..{b}");
        assert!(pane.scene().labels.iter().any(|l| l.text == "2 · that"));
        assert!(!pane.show_note(2));
    }

    #[test]
    fn edits_keep_intervals_in_step() {
        let t = trace();
        let mut set = NoteSet::default();
        set.add(&t, sample()[0].clone()).unwrap();
        set.add_interval(&t, 3, "b", Colour::Blue).unwrap();
        assert!(set.remove(0));
        assert_eq!(set.interval_of(0), Some(3));
        assert!(set.set_text(0, "c").unwrap());
        assert!(set.set_text(0, &"x".repeat(MAX_TEXT_BYTES + 1)).is_err());
        assert!(set.set_colour(0, Colour::Purple));
        assert!(!set.remove(5));
        assert!(set.add_interval(&t, usize::MAX, "", Colour::Red).is_err());
        for _ in 1..MAX_NOTES {
            set.add(&t, sample()[0].clone()).unwrap();
        }
        assert!(matches!(set.add(&t, sample()[0].clone()), Err(NotesError::TooMany { .. })));
    }
}
