//! The byte-level JSON scanner behind the Chrome reader: a cursor over a byte slice that reads one trace
//! event object into a [`RawEvent`] of borrowed slices, skipping what the reader does not need without
//! building anything.
//!
//! It is specialised, not general: it knows the keys of a trace event, leaves strings raw (escapes are
//! decoded later and only when a backslash is present), keeps `args` as a byte range, and is lenient where
//! producers are sloppy (trailing commas, missing commas between events). It must not allocate per event,
//! must not panic on any bytes, and reports "incomplete" (the buffer ended inside the event) apart from
//! "malformed" (these bytes can never be JSON), so the stream layer can wait for the next chunk.

use super::values::unescape;
use std::borrow::Cow;

/// Why the scanner stopped before the end of a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// The buffer ended inside the value: more bytes may complete it.
    Incomplete,
    /// The bytes at `at` can never continue valid JSON here; `expected` says what could have.
    Bad { at: usize, expected: &'static str },
}

pub type Scan<T> = Result<T, Stop>;

/// A JSON string as it appears in the file, without its quotes; `escaped` when it holds a backslash.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct JStr<'a> {
    pub raw: &'a [u8],
    pub escaped: bool,
}

impl<'a> JStr<'a> {
    /// The string's text: borrowed when it has no escapes and is valid UTF-8, else decoded (lossily).
    pub fn text(&self) -> Cow<'a, str> {
        if !self.escaped {
            return String::from_utf8_lossy(self.raw);
        }
        Cow::Owned(unescape(self.raw))
    }
}

/// A scalar field value, kept raw: numbers as their digits, strings as [`JStr`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Val<'a> {
    #[default]
    Absent,
    Num(&'a [u8]),
    Str(JStr<'a>),
    /// Anything else (object, array, literal), as its raw bytes.
    Other(&'a [u8]),
}

impl Val<'_> {
    pub fn is_absent(&self) -> bool {
        matches!(self, Val::Absent)
    }
}

/// One trace event's fields, borrowed from the buffer. Unknown keys are skipped.
#[derive(Clone, Copy, Debug, Default)]
pub struct RawEvent<'a> {
    pub ph: &'a [u8],
    pub name: Option<JStr<'a>>,
    pub cat: Option<JStr<'a>>,
    pub ts: Val<'a>,
    pub dur: Val<'a>,
    pub tdur: Val<'a>,
    pub pid: Val<'a>,
    pub tid: Val<'a>,
    pub id: Val<'a>,
    pub id2: Val<'a>,
    pub bind_id: Val<'a>,
    pub flow_in: bool,
    pub flow_out: bool,
    /// Instant scope (`s`): t, p or g.
    pub scope: Option<JStr<'a>>,
    /// Flow binding point (`bp`): "e" binds a flow end to the enclosing slice.
    pub bp: Option<JStr<'a>>,
    /// The `args` value, kept raw, parsed only for the phases that need it.
    pub args: Val<'a>,
}

/// The keys of a trace event the reader uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Key {
    Ph,
    Name,
    Cat,
    Ts,
    Dur,
    Pid,
    Tid,
    Tdur,
    Id,
    Id2,
    BindId,
    FlowIn,
    FlowOut,
    Scope,
    Bp,
    Args,
    Other,
}

/// `text` and its closing quote as a little-endian word, with the mask that selects those bytes.
const fn key_word(text: &[u8]) -> (u64, u64) {
    let mut w = 0u64;
    let mut i = 0;
    while i < text.len() {
        w |= (text[i] as u64) << (8 * i);
        i += 1;
    }
    w |= (b'"' as u64) << (8 * i);
    let mask = if text.len() + 1 >= 8 { u64::MAX } else { (1u64 << (8 * (text.len() + 1))) - 1 };
    (w, mask)
}

const KEYS: [(Key, &[u8]); 16] = [
    (Key::Ph, b"ph"),
    (Key::Ts, b"ts"),
    (Key::Id, b"id"),
    (Key::Name, b"name"),
    (Key::Cat, b"cat"),
    (Key::Dur, b"dur"),
    (Key::Pid, b"pid"),
    (Key::Tid, b"tid"),
    (Key::Tdur, b"tdur"),
    (Key::Id2, b"id2"),
    (Key::Args, b"args"),
    (Key::Scope, b"s"),
    (Key::FlowIn, b"flow_in"),
    (Key::BindId, b"bind_id"),
    (Key::FlowOut, b"flow_out"),
    (Key::Bp, b"bp"),
];

impl Key {
    /// Recognise a known key from the 8 bytes after its opening quote; returns it and its length.
    #[inline(always)]
    fn from_word(w: u64) -> Option<(Key, usize)> {
        macro_rules! check {
            ($text:literal, $key:expr) => {{
                const KW: (u64, u64) = key_word($text);
                if w & KW.1 == KW.0 {
                    return Some(($key, $text.len()));
                }
            }};
        }
        check!(b"ph", Key::Ph);
        check!(b"ts", Key::Ts);
        check!(b"name", Key::Name);
        check!(b"pid", Key::Pid);
        check!(b"tid", Key::Tid);
        check!(b"cat", Key::Cat);
        check!(b"dur", Key::Dur);
        check!(b"args", Key::Args);
        check!(b"id", Key::Id);
        check!(b"s", Key::Scope);
        None
    }

    fn from_bytes(k: &[u8]) -> Key {
        KEYS.iter().find(|(_, t)| *t == k).map_or(Key::Other, |&(key, _)| key)
    }
}

pub struct Cursor<'a> {
    pub b: &'a [u8],
    pub i: usize,
}

const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;

/// Non-zero where `w` holds byte `c`; the lowest set bit marks the first occurrence exactly.
#[inline(always)]
fn has_byte(w: u64, c: u8) -> u64 {
    let x = w ^ (LO * c as u64);
    x.wrapping_sub(LO) & !x & HI
}

/// Index of the first `"` or `\` at or after `i`, eight bytes at a time.
#[inline]
fn find_quote_or_backslash(b: &[u8], mut i: usize) -> Option<usize> {
    while i + 8 <= b.len() {
        let mut word = [0u8; 8];
        word.copy_from_slice(&b[i..i + 8]);
        let w = u64::from_le_bytes(word);
        let m = has_byte(w, b'"') | has_byte(w, b'\\');
        if m != 0 {
            return Some(i + (m.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    while i < b.len() {
        if b[i] == b'"' || b[i] == b'\\' {
            return Some(i);
        }
        i += 1;
    }
    None
}

/// Bytes that can appear in a JSON number, as a lookup table.
static NUMBER_BYTE: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = b'0';
    while c <= b'9' {
        t[c as usize] = true;
        c += 1;
    }
    t[b'-' as usize] = true;
    t[b'+' as usize] = true;
    t[b'.' as usize] = true;
    t[b'e' as usize] = true;
    t[b'E' as usize] = true;
    t
};

#[inline(always)]
fn is_number_byte(c: u8) -> bool {
    NUMBER_BYTE[c as usize]
}

impl<'a> Cursor<'a> {
    pub fn new(b: &'a [u8], i: usize) -> Self {
        Cursor { b, i }
    }

    /// Skip whitespace and return the next byte without consuming it.
    #[inline(always)]
    pub fn peek_ws(&mut self) -> Scan<u8> {
        while let Some(&c) = self.b.get(self.i) {
            match c {
                b' ' | b'\n' | b'\r' | b'\t' => self.i += 1,
                _ => return Ok(c),
            }
        }
        Err(Stop::Incomplete)
    }

    fn bad<T>(&self, expected: &'static str) -> Scan<T> {
        Err(Stop::Bad { at: self.i, expected })
    }

    /// A string; the cursor is on its opening quote.
    #[inline]
    pub fn string(&mut self) -> Scan<JStr<'a>> {
        let start = self.i + 1;
        let mut j = start;
        let mut escaped = false;
        loop {
            match find_quote_or_backslash(self.b, j) {
                None => return Err(Stop::Incomplete),
                Some(k) if self.b[k] == b'"' => {
                    self.i = k + 1;
                    return Ok(JStr { raw: &self.b[start..k], escaped });
                }
                Some(k) => {
                    escaped = true;
                    j = k + 2;
                    if j > self.b.len() {
                        return Err(Stop::Incomplete);
                    }
                }
            }
        }
    }

    /// A number's bytes; the cursor is on its first byte. Ends where the buffer ends only if incomplete.
    #[inline]
    fn number(&mut self) -> Scan<&'a [u8]> {
        let start = self.i;
        let mut j = start;
        while let Some(&c) = self.b.get(j) {
            if !is_number_byte(c) {
                self.i = j;
                return Ok(&self.b[start..j]);
            }
            j += 1;
        }
        Err(Stop::Incomplete)
    }

    /// A literal: true, false, null, or NaN and Infinity (not JSON, but written by common producers and
    /// refused later as values). Returns its bytes.
    fn literal(&mut self) -> Scan<&'a [u8]> {
        let start = self.i;
        let mut j = start;
        while let Some(&c) = self.b.get(j) {
            if !c.is_ascii_alphabetic() {
                let lit = &self.b[start..j];
                if matches!(lit, b"true" | b"false" | b"null" | b"NaN" | b"Infinity") {
                    self.i = j;
                    return Ok(lit);
                }
                return self.bad("true, false or null");
            }
            j += 1;
        }
        Err(Stop::Incomplete)
    }

    /// Skip an object or array by depth counting (strings respected; brackets not checked for kind).
    fn skip_nested(&mut self) -> Scan<&'a [u8]> {
        let start = self.i;
        let mut depth = 0usize;
        let mut j = self.i;
        let b = self.b;
        while j < b.len() {
            match b[j] {
                b'"' => {
                    self.i = j;
                    self.string()?;
                    j = self.i;
                    continue;
                }
                b'{' | b'[' => depth += 1,
                b'}' | b']' => {
                    depth -= 1;
                    if depth == 0 {
                        self.i = j + 1;
                        return Ok(&b[start..j + 1]);
                    }
                }
                _ => {}
            }
            j += 1;
        }
        Err(Stop::Incomplete)
    }

    /// Any value, kept raw. The cursor is on its first byte.
    #[inline]
    pub fn value(&mut self) -> Scan<Val<'a>> {
        match self.b.get(self.i) {
            None => Err(Stop::Incomplete),
            Some(b'"') => Ok(Val::Str(self.string()?)),
            Some(b'{') | Some(b'[') => Ok(Val::Other(self.skip_nested()?)),
            // `-Infinity` (written by Python's json module) is kept as a literal the reader refuses.
            Some(b'-') if self.b.get(self.i + 1).is_some_and(u8::is_ascii_alphabetic) => {
                self.i += 1;
                let lit = self.literal()?;
                Ok(Val::Other(lit))
            }
            Some(c) if c.is_ascii_digit() || *c == b'-' => Ok(Val::Num(self.number()?)),
            Some(c) if c.is_ascii_alphabetic() => Ok(Val::Other(self.literal()?)),
            Some(_) => self.bad("a JSON value"),
        }
    }

    /// After a member: `,` (more follow) or `}` (done). Returns true when the object continues.
    #[inline]
    pub fn member_end(&mut self) -> Scan<bool> {
        match self.peek_ws()? {
            b',' => {
                self.i += 1;
                Ok(true)
            }
            b'}' => {
                self.i += 1;
                Ok(false)
            }
            _ => self.bad("',' or '}' after a value"),
        }
    }

    /// One trace event object; the cursor is on its `{`.
    #[cfg(test)]
    pub fn event(&mut self) -> Scan<RawEvent<'a>> {
        let mut ev = RawEvent::default();
        self.event_into(&mut ev)?;
        Ok(ev)
    }

    /// One trace event object into `ev` (reset first); the cursor is on its `{`. The hot loop of the
    /// reader: keys are matched by their bytes, values of unneeded keys skipped without being kept.
    pub fn event_into(&mut self, ev: &mut RawEvent<'a>) -> Scan<()> {
        *ev = RawEvent::default();
        self.i += 1;
        match self.peek_ws()? {
            b'}' => {
                self.i += 1;
                return Ok(());
            }
            b'"' => {}
            _ => return self.bad("a key or '}'"),
        }
        loop {
            match self.fast_key()? {
                Key::Ph => ev.ph = self.str_or_skip()?.map_or(&b"?"[..], |s| s.raw),
                Key::Name => ev.name = self.str_or_skip()?,
                Key::Cat => ev.cat = self.str_or_skip()?,
                Key::Ts => ev.ts = self.scalar()?,
                Key::Dur => ev.dur = self.scalar()?,
                Key::Pid => ev.pid = self.scalar()?,
                Key::Tid => ev.tid = self.scalar()?,
                Key::Tdur => ev.tdur = self.scalar()?,
                Key::Id => ev.id = self.value()?,
                Key::Id2 => ev.id2 = self.value()?,
                Key::BindId => ev.bind_id = self.value()?,
                Key::FlowIn => ev.flow_in = matches!(self.value()?, Val::Other(b"true")),
                Key::FlowOut => ev.flow_out = matches!(self.value()?, Val::Other(b"true")),
                Key::Scope => ev.scope = self.str_or_skip()?,
                Key::Bp => ev.bp = self.str_or_skip()?,
                Key::Args => ev.args = self.value()?,
                Key::Other => {
                    self.value()?;
                }
            }
            // Member end, with the common no-whitespace case first.
            let c = match self.b.get(self.i) {
                Some(&c) if c > b' ' => c,
                Some(_) => self.peek_ws()?,
                None => return Err(Stop::Incomplete),
            };
            self.i += 1;
            match c {
                b',' => {}
                b'}' => return Ok(()),
                _ => {
                    self.i -= 1;
                    return self.bad("',' or '}' after a value");
                }
            }
        }
    }

    /// A key and its colon; leaves the cursor on the value. Known keys are recognised from one 8-byte
    /// load (the key and its closing quote), others by scanning to the quote.
    #[inline(always)]
    fn fast_key(&mut self) -> Scan<Key> {
        let b = self.b;
        let mut i = self.i;
        match b.get(i) {
            Some(b'"') => {}
            Some(_) => {
                if self.peek_ws()? != b'"' {
                    return self.bad("a key");
                }
                i = self.i;
            }
            None => return Err(Stop::Incomplete),
        }
        let start = i + 1;
        let (key, end) = match b.get(start..start + 8) {
            Some(w) => {
                let mut word = [0u8; 8];
                word.copy_from_slice(w);
                match Key::from_word(u64::from_le_bytes(word)) {
                    Some((k, len)) => (k, start + len),
                    None => self.key_slow(i)?,
                }
            }
            None => self.key_slow(i)?,
        };
        self.i = end + 1;
        match b.get(self.i) {
            Some(b':') => self.i += 1,
            Some(_) => {
                if self.peek_ws()? != b':' {
                    return self.bad("':' after a key");
                }
                self.i += 1;
            }
            None => return Err(Stop::Incomplete),
        }
        match b.get(self.i) {
            Some(&c) if c > b' ' => {}
            Some(_) => {
                self.peek_ws()?;
            }
            None => return Err(Stop::Incomplete),
        }
        Ok(key)
    }

    /// A key by scanning: returns it and the index of its closing quote. `i` is on the opening quote.
    fn key_slow(&mut self, i: usize) -> Scan<(Key, usize)> {
        self.i = i;
        let raw = self.string()?;
        Ok((if raw.escaped { Key::Other } else { Key::from_bytes(raw.raw) }, self.i - 1))
    }

    /// A string value, or None after skipping a value of another type.
    #[inline(always)]
    fn str_or_skip(&mut self) -> Scan<Option<JStr<'a>>> {
        if self.b.get(self.i) == Some(&b'"') {
            return Ok(Some(self.string()?));
        }
        self.value()?;
        Ok(None)
    }

    /// A value expected to be a number (times, ids), with the plain-number case first.
    #[inline(always)]
    fn scalar(&mut self) -> Scan<Val<'a>> {
        match self.b.get(self.i) {
            Some(c) if c.is_ascii_digit() => Ok(Val::Num(self.number()?)),
            _ => self.value(),
        }
    }
}

/// Visit the members of a JSON object given as raw bytes (an event's `args`), values kept raw.
/// Malformed input ends the walk quietly: args are advisory.
pub fn for_each_member<'a>(obj: &'a [u8], mut f: impl FnMut(JStr<'a>, Val<'a>)) {
    let mut c = Cursor::new(obj, 0);
    if c.peek_ws() != Ok(b'{') {
        return;
    }
    c.i += 1;
    loop {
        match c.peek_ws() {
            Ok(b'"') => {}
            _ => return,
        }
        let Ok(k) = c.string() else { return };
        if c.peek_ws() != Ok(b':') {
            return;
        }
        c.i += 1;
        if c.peek_ws().is_err() {
            return;
        }
        let Ok(v) = c.value() else { return };
        f(k, v);
        match c.member_end() {
            Ok(true) => {}
            _ => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scans_an_event_and_skips_unknown_keys() {
        let b = br#"{"name":"a\"b","ph":"X","ts":1.5,"dur":2,"args":{"x":[1,{"y":"}"}]},"zz":null,"pid":"p","tid":3}"#;
        let mut c = Cursor::new(b, 0);
        let ev = c.event().expect("event");
        assert_eq!(c.i, b.len());
        assert_eq!(ev.ph, b"X");
        assert_eq!(ev.name.map(|n| n.text().into_owned()), Some("a\"b".to_string()));
        assert_eq!(ev.ts, Val::Num(b"1.5"));
        assert_eq!(ev.args, Val::Other(&br#"{"x":[1,{"y":"}"}]}"#[..]));
        assert!(matches!(ev.pid, Val::Str(_)));
    }

    #[test]
    fn every_prefix_is_incomplete_and_garbage_is_bad() {
        let b = br#"{"name":"a\u00e9","ph":"B","ts":10,"args":{"k":[true,false]}}"#;
        for n in 0..b.len() {
            let mut c = Cursor::new(&b[..n], 0);
            if n == 0 {
                continue;
            }
            assert_eq!(c.event().err(), Some(Stop::Incomplete), "prefix {n}");
        }
        let mut c = Cursor::new(br#"{"ph":x}"#, 0);
        assert!(matches!(c.event(), Err(Stop::Bad { at: 6, .. })));
    }
}
