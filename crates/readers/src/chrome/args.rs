//! An event's `args` object (raw bytes from the scanner) flattened to the model's pairs (`model::args`):
//! a string value as its decoded text, a number or literal as written, an object or array as compact JSON
//! written as Python's `json.dumps(v, separators=(",", ":"), ensure_ascii=False)` writes it (strings
//! re-escaped; numbers as written), so `shapes: [[8,3],[3]]`.
//!
//! Bounded: a value keeps [`MAX_VALUE_CHARS`] characters and then "…", cut between escapes, never inside
//! one; the walk is iterative, so deep nesting cannot overflow the stack. It checks what it walks (the
//! scanner only found where `args` ends): args that are not an object, or break JSON, are an `Err` naming
//! what was expected, the pairs before the break kept. It must not intern or decide what an event keeps
//! (`events.rs` does) and must not panic on any bytes.

use super::scanner::{Cursor, JStr, Stop, Val};
use super::values::unescape;
use std::ops::Range;
use weft_model::args::MAX_VALUE_CHARS;
use weft_model::ArgKind;

/// One pair: where its key is in the args bytes, and its value's kind and text in [`Flat::text`].
#[derive(Clone, Debug)]
pub(super) struct FlatPair {
    pub key: Range<usize>,
    pub key_escaped: bool,
    pub kind: ArgKind,
    pub value: Range<usize>,
}

/// The pairs of one event's args, reused from event to event.
#[derive(Default)]
pub(super) struct Flat {
    pub pairs: Vec<FlatPair>,
    pub text: String,
}

impl Flat {
    /// The key of pair `p` as the scanner's string (bytes as in the file).
    pub fn key<'a>(&self, args: &'a [u8], p: &FlatPair) -> JStr<'a> {
        JStr { raw: &args[p.key.clone()], escaped: p.key_escaped }
    }
}

/// Why args were not (wholly) read.
pub(super) type Bad = &'static str;

/// The bytes of `v` when it is args to read: None for absent or `null` args (nothing to keep, nothing wrong).
pub(super) fn raw_args<'a>(v: &Val<'a>) -> Option<Result<&'a [u8], Bad>> {
    match v {
        Val::Absent | Val::Other(b"null") => None,
        Val::Other(b) if b.first() == Some(&b'{') => Some(Ok(b)),
        _ => Some(Err("args are not a JSON object")),
    }
}

/// Flatten the object `b` into `out` (cleared first).
pub(super) fn flatten(b: &[u8], out: &mut Flat) -> Result<(), Bad> {
    out.pairs.clear();
    out.text.clear();
    let mut c = Cursor::new(b, 1);
    if c.peek_ws().map_err(stop)? == b'}' {
        return Ok(());
    }
    loop {
        if c.peek_ws().map_err(stop)? != b'"' {
            return Err("a key in args");
        }
        let k = c.string().map_err(stop)?;
        let key_start = k.raw.as_ptr() as usize - b.as_ptr() as usize;
        if c.peek_ws().map_err(stop)? != b':' {
            return Err("':' after a key in args");
        }
        c.i += 1;
        let first = c.peek_ws().map_err(stop)?;
        let start = out.text.len();
        let kind = {
            let mut w = Capped { out: &mut out.text, chars: 0, cut: false };
            match first {
                b'"' => {
                    let s = c.string().map_err(stop)?;
                    w.text(&s.text());
                    ArgKind::Text
                }
                b'{' | b'[' => {
                    json(&mut c, &mut w)?;
                    ArgKind::Json
                }
                _ => {
                    scalar(&mut c, &mut w)?;
                    ArgKind::Number
                }
            }
        };
        out.pairs.push(FlatPair {
            key: key_start..key_start + k.raw.len(),
            key_escaped: k.escaped,
            kind,
            value: start..out.text.len(),
        });
        match c.peek_ws().map_err(stop)? {
            b',' => c.i += 1,
            b'}' => return Ok(()),
            _ => return Err("',' or '}' after a value in args"),
        }
    }
}

fn stop(s: Stop) -> Bad {
    match s {
        Stop::Incomplete => "args end early",
        Stop::Bad { expected, .. } => expected,
    }
}

/// Text written a unit at a time (a character, or one escape), up to [`MAX_VALUE_CHARS`] characters and
/// then "…" once.
struct Capped<'o> {
    out: &'o mut String,
    chars: usize,
    cut: bool,
}

impl Capped<'_> {
    #[inline]
    fn unit(&mut self, s: &str) {
        if self.cut {
            return;
        }
        let n = s.chars().count();
        if self.chars + n > MAX_VALUE_CHARS {
            self.cut = true;
            self.out.push('…');
        } else {
            self.out.push_str(s);
            self.chars += n;
        }
    }

    /// Plain text, whole when it fits, else character by character up to the cut.
    fn text(&mut self, s: &str) {
        if self.cut {
            return;
        }
        if s.len() + self.chars <= MAX_VALUE_CHARS {
            self.out.push_str(s);
            self.chars += s.chars().count();
            return;
        }
        let mut buf = [0u8; 4];
        for ch in s.chars() {
            self.unit(ch.encode_utf8(&mut buf));
            if self.cut {
                return;
            }
        }
    }

    /// A string as JSON: quoted, with `"`, `\` and control characters escaped as Python's json does.
    fn json_string(&mut self, s: JStr) {
        self.unit("\"");
        let plain = !s.escaped && s.raw.iter().all(|&c| c >= 0x20);
        if plain {
            self.text(&String::from_utf8_lossy(s.raw));
        } else {
            let text = if s.escaped { unescape(s.raw) } else { String::from_utf8_lossy(s.raw).into_owned() };
            let mut buf = [0u8; 4];
            for ch in text.chars() {
                match ch {
                    '"' => self.unit("\\\""),
                    '\\' => self.unit("\\\\"),
                    '\n' => self.unit("\\n"),
                    '\r' => self.unit("\\r"),
                    '\t' => self.unit("\\t"),
                    '\u{8}' => self.unit("\\b"),
                    '\u{c}' => self.unit("\\f"),
                    c if (c as u32) < 0x20 => self.unit(&format!("\\u{:04x}", c as u32)),
                    c => self.unit(c.encode_utf8(&mut buf)),
                }
                if self.cut {
                    return;
                }
            }
        }
        self.unit("\"");
    }
}

/// A number or literal (NaN and Infinity included, as Python's json reads them), as written.
fn scalar(c: &mut Cursor, w: &mut Capped) -> Result<(), Bad> {
    let start = c.i;
    match c.value().map_err(stop)? {
        Val::Num(_) | Val::Other(_) => {
            w.text(&String::from_utf8_lossy(&c.b[start..c.i]));
            Ok(())
        }
        _ => Err("a JSON value in args"),
    }
}

/// An object or array at the cursor, written compactly; iterative (a stack of open brackets).
fn json(c: &mut Cursor, w: &mut Capped) -> Result<(), Bad> {
    let mut open: Vec<u8> = Vec::new();
    loop {
        // A value.
        match c.peek_ws().map_err(stop)? {
            ch @ (b'{' | b'[') => {
                c.i += 1;
                let (text, close) = if ch == b'{' { ("{", b'}') } else { ("[", b']') };
                w.unit(text);
                if c.peek_ws().map_err(stop)? == close {
                    c.i += 1;
                    w.unit(if ch == b'{' { "}" } else { "]" });
                } else {
                    open.push(ch);
                    if ch == b'{' {
                        key(c, w)?;
                    }
                    continue;
                }
            }
            b'"' => {
                let s = c.string().map_err(stop)?;
                w.json_string(s);
            }
            _ => scalar(c, w)?,
        }
        // After a value: close what ends here, or go on to the next member.
        loop {
            let Some(&top) = open.last() else {
                return Ok(());
            };
            match (top, c.peek_ws().map_err(stop)?) {
                (_, b',') => {
                    c.i += 1;
                    w.unit(",");
                    if top == b'{' {
                        key(c, w)?;
                    }
                    break;
                }
                (b'{', b'}') | (b'[', b']') => {
                    c.i += 1;
                    w.unit(if top == b'{' { "}" } else { "]" });
                    open.pop();
                }
                _ => return Err("',' or a closing bracket in args"),
            }
        }
    }
}

/// A key of a nested object and its colon.
fn key(c: &mut Cursor, w: &mut Capped) -> Result<(), Bad> {
    if c.peek_ws().map_err(stop)? != b'"' {
        return Err("a key in args");
    }
    let k = c.string().map_err(stop)?;
    w.json_string(k);
    if c.peek_ws().map_err(stop)? != b':' {
        return Err("':' after a key in args");
    }
    c.i += 1;
    w.unit(":");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    type Pairs = Vec<(String, ArgKind, String)>;

    fn flat(b: &[u8]) -> (Pairs, Result<(), Bad>) {
        let mut f = Flat::default();
        let r = flatten(b, &mut f);
        let pairs =
            f.pairs.iter().map(|p| (f.key(b, p).text().into_owned(), p.kind, f.text[p.value.clone()].to_string()));
        (pairs.collect(), r)
    }

    #[test]
    fn values_flatten_to_text_numbers_and_compact_json() {
        let (p, r) = flat(
            br#"{ "name" : "a\"b\u00e9", "n": -1.5e3, "ok": true, "shapes": [ [8, 3], [3] ], "o": {"k": "x\ny", "e": {}}, "x\"y": NaN, "z": -Infinity }"#,
        );
        assert_eq!(r, Ok(()));
        let want = [
            ("name", ArgKind::Text, "a\"b\u{e9}"),
            ("n", ArgKind::Number, "-1.5e3"),
            ("ok", ArgKind::Number, "true"),
            ("shapes", ArgKind::Json, "[[8,3],[3]]"),
            ("o", ArgKind::Json, r#"{"k":"x\ny","e":{}}"#),
            ("x\"y", ArgKind::Number, "NaN"),
            ("z", ArgKind::Number, "-Infinity"),
        ];
        assert_eq!(p, want.map(|(k, kind, v)| (k.to_string(), kind, v.to_string())));
        assert_eq!(flat(b"{}"), (vec![], Ok(())));
    }

    #[test]
    fn long_values_are_cut_between_escapes() {
        let s = "\\\"".repeat(400);
        let b = format!(r#"{{"s":"{s}","j":["{s}"]}}"#);
        let (p, r) = flat(b.as_bytes());
        assert_eq!(r, Ok(()));
        assert_eq!(p[0].2, format!("{}…", "\"".repeat(MAX_VALUE_CHARS)));
        // In JSON each quote is the two-character escape: the cut falls between two of them.
        let j = &p[1].2;
        assert!(j.ends_with('…'), "{j}");
        let body = j.trim_end_matches('…').trim_start_matches("[\"");
        assert_eq!(body, "\\\"".repeat((MAX_VALUE_CHARS - 2) / 2));
    }

    #[test]
    fn broken_args_keep_the_pairs_before_the_break() {
        let (p, r) = flat(br#"{"a":1,"b":[1,2}"#);
        assert_eq!(p.len(), 1);
        assert_eq!(r, Err("',' or a closing bracket in args"));
        assert!(flat(br#"{"a":1"#).1.is_err());
        assert!(flat(br#"{"a" 1}"#).1.is_err());
        assert!(flat(br#"{1:2}"#).1.is_err());
        assert_eq!(raw_args(&Val::Num(b"5")), Some(Err("args are not a JSON object")));
        assert_eq!(raw_args(&Val::Other(b"null")), None);
        // Deep nesting is walked without recursion.
        let deep = format!("{{\"d\":{}{}}}", "[".repeat(100_000), "]".repeat(100_000));
        let (p, r) = flat(deep.as_bytes());
        assert_eq!(r, Ok(()));
        assert!(p[0].2.ends_with('…'));
    }
}
