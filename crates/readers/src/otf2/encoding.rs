//! OTF2's on-disk primitives: the compressed integer encoding (a length byte, then that many low-order bytes;
//! `0x00` is zero and `0xFF` is "undefined", all ones), full-width integers, floats and NUL-terminated strings,
//! in either byte order (the file's chunk header says which). Also the record framing every OTF2 file shares.
//!
//! This module only decodes bytes held in memory; it must not know records' meanings, touch files, or panic:
//! every read past the end is a [`DecodeError`] carrying the offset.

use std::fmt;

/// Byte-order markers written in every chunk header.
pub const BIG_ENDIAN: u8 = 0x23;
pub const LITTLE_ENDIAN: u8 = 0x42;

/// Buffer-internal record types (below 10); every real record type is 10 or more.
pub const END_OF_CHUNK: u8 = 0;
pub const END_OF_BUFFER: u8 = 1;
pub const END_OF_FILE: u8 = 2;
pub const CHUNK_HEADER: u8 = 3;
pub const TIMESTAMP: u8 = 5;
pub const ATTRIBUTE_LIST: u8 = 6;

/// A read that ran past the data, or a value the encoding does not allow.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeError {
    pub offset: u64,
    pub what: String,
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at byte {}: {}", self.offset, self.what)
    }
}

pub type Decoded<T> = Result<T, DecodeError>;

/// A read position in one file's bytes, with the file's byte order.
#[derive(Clone)]
pub struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
    big_endian: bool,
}

impl<'a> Cursor<'a> {
    pub fn new(data: &'a [u8], big_endian: bool) -> Self {
        Cursor { data, pos: 0, big_endian }
    }

    #[inline]
    pub fn pos(&self) -> usize {
        self.pos
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.data.len()
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    #[inline]
    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    pub fn big_endian(&self) -> bool {
        self.big_endian
    }

    pub fn set_big_endian(&mut self, big: bool) {
        self.big_endian = big;
    }

    /// Move to an absolute position; positions past the end are clamped (the next read then fails).
    #[inline]
    pub fn seek(&mut self, pos: usize) {
        self.pos = pos.min(self.data.len());
    }

    /// Restrict the cursor to `start..end` of the same data (offsets stay those of the whole file).
    pub fn truncate_to(&mut self, start: usize, end: usize) {
        let end = end.min(self.data.len());
        self.data = &self.data[..end];
        self.pos = start.min(end);
    }

    /// The bytes from `start` up to the current position.
    pub fn since(&self, start: usize) -> &'a [u8] {
        &self.data[start.min(self.pos)..self.pos]
    }

    pub fn error<T>(&self, what: impl Into<String>) -> Decoded<T> {
        Err(DecodeError { offset: self.pos as u64, what: what.into() })
    }

    #[inline]
    fn take(&mut self, n: usize) -> Decoded<&'a [u8]> {
        if self.remaining() < n {
            return self.error(format!("unexpected end of data (needed {n} bytes, {} left)", self.remaining()));
        }
        let s = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    #[inline]
    pub fn u8(&mut self) -> Decoded<u8> {
        match self.data.get(self.pos) {
            Some(&b) => {
                self.pos += 1;
                Ok(b)
            }
            None => self.error("unexpected end of data (needed 1 byte)"),
        }
    }

    /// An unsigned integer of `n` bytes (n <= 8) in the file's byte order.
    #[inline]
    fn uint_n(&mut self, n: usize) -> Decoded<u64> {
        let b = self.take(n)?;
        let mut v: u64 = 0;
        if self.big_endian {
            for &x in b {
                v = (v << 8) | x as u64;
            }
        } else {
            for &x in b.iter().rev() {
                v = (v << 8) | x as u64;
            }
        }
        Ok(v)
    }

    pub fn u16(&mut self) -> Decoded<u16> {
        Ok(self.uint_n(2)? as u16)
    }

    pub fn u32_full(&mut self) -> Decoded<u32> {
        Ok(self.uint_n(4)? as u32)
    }

    #[inline]
    pub fn u64_full(&mut self) -> Decoded<u64> {
        if !self.big_endian && self.remaining() >= 8 {
            let mut b = [0u8; 8];
            b.copy_from_slice(&self.data[self.pos..self.pos + 8]);
            self.pos += 8;
            return Ok(u64::from_le_bytes(b));
        }
        self.uint_n(8)
    }

    pub fn f64(&mut self) -> Decoded<f64> {
        Ok(f64::from_bits(self.u64_full()?))
    }

    /// The fast path of a compressed integer of at most `max` bytes: its length byte, then that many
    /// little-endian bytes, all there (read and consumed); None for anything else (big-endian, 0xFF, past
    /// `max`, cut short), which the caller's slow path reads or reports. Byte by byte: a copy of the bytes
    /// into an array is a call to `memcpy` for every ENTER and LEAVE (about a tenth of the decode's time).
    #[inline(always)]
    fn compressed_le(&mut self, max: usize) -> Option<u64> {
        let n = *self.data.get(self.pos)? as usize;
        let at = self.pos + 1;
        if n > max || self.big_endian || at + n > self.data.len() {
            return None;
        }
        let mut v = 0u64;
        for (i, &x) in self.data[at..at + n].iter().enumerate() {
            v |= (x as u64) << (8 * i);
        }
        self.pos = at + n;
        Some(v)
    }

    /// A compressed 32-bit unsigned integer.
    #[inline(always)]
    pub fn u32(&mut self) -> Decoded<u32> {
        // The common case inline (little-endian, the bytes there); the rest, errors included, out of line.
        match self.compressed_le(4) {
            Some(v) => Ok(v as u32),
            None => self.u32_slow(),
        }
    }

    #[inline(never)]
    fn u32_slow(&mut self) -> Decoded<u32> {
        let start = self.pos;
        let n = self.u8()?;
        match n {
            0 => Ok(0),
            0xFF => Ok(u32::MAX),
            1..=4 => Ok(self.uint_n(n as usize)? as u32),
            _ => Err(DecodeError { offset: start as u64, what: format!("invalid compressed 32-bit integer size {n}") }),
        }
    }

    /// A compressed 64-bit unsigned integer.
    #[inline]
    pub fn u64(&mut self) -> Decoded<u64> {
        // The common case inline, as `u32`'s (the lengths and requests of MPI records).
        match self.compressed_le(8) {
            Some(v) => Ok(v),
            None => self.u64_slow(),
        }
    }

    #[inline(never)]
    fn u64_slow(&mut self) -> Decoded<u64> {
        let start = self.pos;
        let n = self.u8()?;
        match n {
            0 => Ok(0),
            0xFF => Ok(u64::MAX),
            1..=8 => self.uint_n(n as usize),
            _ => Err(DecodeError { offset: start as u64, what: format!("invalid compressed 64-bit integer size {n}") }),
        }
    }

    /// A compressed 64-bit signed integer (negative values are written in full, 8 bytes).
    pub fn i64(&mut self) -> Decoded<i64> {
        let start = self.pos;
        let n = self.u8()?;
        match n {
            0 => Ok(0),
            1..=8 => {
                let v = self.uint_n(n as usize)?;
                // Fewer than 8 bytes are only written for non-negative values; 8 bytes carry the sign.
                Ok(v as i64)
            }
            _ => Err(DecodeError { offset: start as u64, what: format!("invalid compressed 64-bit integer size {n}") }),
        }
    }

    /// A NUL-terminated string (invalid UTF-8 is replaced, not rejected).
    pub fn string(&mut self) -> Decoded<String> {
        let rest = &self.data[self.pos..];
        match rest.iter().position(|&c| c == 0) {
            Some(n) => {
                let s = String::from_utf8_lossy(&rest[..n]).into_owned();
                self.pos += n + 1;
                Ok(s)
            }
            None => self.error("unterminated string"),
        }
    }

    /// After a record's type byte: its data length (one byte, or 0xFF then a full 64-bit length). Returns the
    /// position where the record ends, checked against the data's end.
    #[inline]
    pub fn record_end(&mut self) -> Decoded<usize> {
        let start = self.pos;
        let n = self.u8()?;
        let len = if n == 0xFF { self.u64_full()? } else { n as u64 };
        if len > self.remaining() as u64 {
            return Err(DecodeError {
                offset: start as u64,
                what: format!("record of {len} bytes runs past the end of the data ({} left)", self.remaining()),
            });
        }
        Ok(self.pos + len as usize)
    }
}

/// Event types OTF2 has written since 1.0 without a length byte: one compressed integer follows the type
/// (Enter, Leave, MpiIsendComplete, MpiIrecvRequest, MpiRequestTest, MpiRequestCancelled, OmpFork,
/// OmpTaskCreate/Switch/Complete). Every other record, and every newer one, carries its length.
#[inline]
pub fn is_unframed_event(kind: u8) -> bool {
    matches!(kind, 12 | 13 | 16 | 17 | 20 | 21 | 24 | 28 | 29 | 30)
}

/// One record found by [`Records`]: its type and where its data lies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Item {
    /// A timestamp record (events only): the time of the records that follow.
    Time(u64),
    /// A record of type `kind` (10 or more, or an attribute list) with data in `start..end`.
    Record { kind: u8, start: usize, end: usize },
}

/// Walks the records of a chunked OTF2 file (definitions or events): chunk headers set the byte order, an
/// end-of-chunk marker jumps to the next chunk boundary, end-of-file stops. Records are not decoded here.
///
/// The file is held whole ([`new`](Records::new)) or a window at a time ([`window`](Records::window), an event
/// file of any length in bounded memory): an item that does not lie whole in the window stops the walk with
/// [`need_more`](Records::need_more) set, and the walk goes on with [`resume`](Records::resume) over the next
/// window, giving the same items and the same errors as over the whole file. Positions (items, errors) are
/// the window's; the window starts at file offset `base`.
pub struct Records<'a> {
    pub cur: Cursor<'a>,
    chunk_size: usize,
    /// Where the current chunk starts, in the file.
    chunk_start: usize,
    /// Whether the file ended with an explicit end-of-file marker (false: the file was cut short).
    pub saw_end_of_file: bool,
    done: bool,
    /// Event files carry timestamp records (type 5, no length); in definition files 5 is a real record.
    timestamps: bool,
    /// The file offset of the window's first byte (0 when the file is held whole).
    base: usize,
    /// The file's length (the data's, when the file is held whole).
    file_len: usize,
    /// The next chunk's header is still to be read (the window ended before it).
    pending_header: bool,
    /// `timestamps && !done && !pending_header`: whether [`next_item`](Self::next_item) may try its inline
    /// cases (one flag tested an item instead of three); set again wherever they may change (the
    /// constructors, and the end of every call of the long way, which alone changes them).
    fast: bool,
    /// Set when the walk stopped because the window ends before the next item: the file offset from which
    /// the next window must start.
    pub need_more: Option<usize>,
    /// Where the walk goes on (a file offset), when it stopped for more.
    resume_at: usize,
}

/// Where a windowed [`Records`] walk stands between two windows of one file.
#[derive(Clone, Copy, Debug)]
pub struct RecordsAt {
    chunk_size: usize,
    chunk_start: usize,
    saw_end_of_file: bool,
    done: bool,
    timestamps: bool,
    big_endian: bool,
    pending_header: bool,
    resume_at: usize,
    /// The file's length (lowered when the file turns out shorter than it said).
    pub file_len: usize,
}

/// How far past the window an item may reach beyond the file's end and still be read by widening the
/// window to the file's end (a record cut by the end of the file gives the error the whole file gives).
const WINDOW_TO_END: usize = 1 << 16;

impl<'a> Records<'a> {
    /// Start at the first chunk header. `chunk_size` comes from the anchor (0: the file is one chunk);
    /// `timestamps` is true for event files.
    pub fn new(data: &'a [u8], chunk_size: u64, timestamps: bool) -> Decoded<Self> {
        Self::window(data, data.len(), chunk_size, timestamps)
    }

    /// Start at the first chunk header of a file of `file_len` bytes of which `data` holds the first ones
    /// (at least 64, or the whole file).
    pub fn window(data: &'a [u8], file_len: usize, chunk_size: u64, timestamps: bool) -> Decoded<Self> {
        let chunk_size =
            if chunk_size == 0 || chunk_size > file_len as u64 { file_len.max(1) } else { chunk_size as usize };
        let mut r = Records {
            cur: Cursor::new(data, false),
            chunk_size,
            chunk_start: 0,
            saw_end_of_file: false,
            done: false,
            timestamps,
            base: 0,
            file_len,
            pending_header: false,
            fast: false,
            need_more: None,
            resume_at: 0,
        };
        r.chunk_header()?;
        r.fast = r.fast_now();
        Ok(r)
    }

    /// Where the walk stands (after it stopped with [`need_more`](Self::need_more)).
    pub fn pause(&self) -> RecordsAt {
        RecordsAt {
            chunk_size: self.chunk_size,
            chunk_start: self.chunk_start,
            saw_end_of_file: self.saw_end_of_file,
            done: self.done,
            timestamps: self.timestamps,
            big_endian: self.cur.big_endian,
            pending_header: self.pending_header,
            resume_at: self.resume_at,
            file_len: self.file_len,
        }
    }

    /// Go on over `data`, the window starting at file offset `base` (the offset `need_more` asked for).
    pub fn resume(data: &'a [u8], base: usize, at: RecordsAt) -> Self {
        let mut cur = Cursor::new(data, at.big_endian);
        cur.seek(at.resume_at.saturating_sub(base));
        let mut r = Records {
            cur,
            chunk_size: at.chunk_size,
            chunk_start: at.chunk_start,
            saw_end_of_file: at.saw_end_of_file,
            done: at.done,
            timestamps: at.timestamps,
            base,
            file_len: at.file_len,
            pending_header: at.pending_header,
            fast: false,
            need_more: None,
            resume_at: at.resume_at,
        };
        r.fast = r.fast_now();
        r
    }

    /// What [`fast`](Self::fast) should be now.
    fn fast_now(&self) -> bool {
        self.timestamps && !self.done && !self.pending_header
    }

    /// Whether the file goes on past the window.
    #[inline]
    fn partial(&self) -> bool {
        self.base + self.cur.len() < self.file_len
    }

    /// Whether the next `n` bytes are past the window while the file goes on.
    #[inline]
    fn short(&self, n: usize) -> bool {
        self.cur.remaining() < n && self.partial()
    }

    /// Stop: the walk goes on at window position `at` in the next window, which keeps the bytes from the
    /// current chunk's end on too (records of a damaged file that run past it come back there at the
    /// end-of-chunk marker, as over the whole file).
    fn more(&mut self, at: usize) -> Decoded<Option<Item>> {
        self.resume_at = self.base + at;
        self.need_more = Some(self.resume_at.min(self.chunk_start + self.chunk_size));
        Ok(None)
    }

    fn chunk_header(&mut self) -> Decoded<()> {
        let kind = self.cur.u8()?;
        if kind != CHUNK_HEADER {
            return Err(DecodeError {
                offset: (self.chunk_start - self.base) as u64,
                what: format!("expected a chunk header (0x03), found 0x{kind:02x}"),
            });
        }
        let big = match self.cur.u8()? {
            LITTLE_ENDIAN => false,
            BIG_ENDIAN => true,
            other => return self.cur.error(format!("unknown byte-order marker 0x{other:02x}")),
        };
        self.cur.set_big_endian(big);
        // First and last event number of the chunk: not needed to read it.
        self.cur.u64_full()?;
        self.cur.u64_full()?;
        Ok(())
    }

    /// The next record, or None at the end of the file (or of the window: see [`need_more`](Self::need_more)).
    #[inline(always)]
    pub fn next_item(&mut self) -> Decoded<Option<Item>> {
        // An event file's commonest items inline: a little-endian timestamp, an unframed event (ENTER,
        // LEAVE, ...) and a framed one with a one-byte length (MPI sends, receives, collectives), whose bytes
        // are all there. Everything else, errors included, goes the long way.
        if self.fast {
            let (data, pos) = (self.cur.data, self.cur.pos);
            if let Some(&kind) = data.get(pos) {
                if kind == TIMESTAMP && !self.cur.big_endian && pos + 9 <= data.len() {
                    let mut b = [0u8; 8];
                    b.copy_from_slice(&data[pos + 1..pos + 9]);
                    self.cur.pos = pos + 9;
                    return Ok(Some(Item::Time(u64::from_le_bytes(b))));
                }
                if is_unframed_event(kind) {
                    if let Some(&n) = data.get(pos + 1) {
                        let extra = if n == 0 || n == 0xFF { 0 } else { n as usize };
                        let end = pos + 2 + extra;
                        if end <= data.len() {
                            self.cur.pos = end;
                            return Ok(Some(Item::Record { kind, start: pos + 1, end }));
                        }
                    }
                } else if kind >= 10 {
                    // Framed: its length byte, then that many bytes (0xFF: a 64-bit length, the long way).
                    if let Some(&n) = data.get(pos + 1) {
                        let end = pos + 2 + n as usize;
                        if n != 0xFF && end <= data.len() {
                            self.cur.pos = end;
                            return Ok(Some(Item::Record { kind, start: pos + 2, end }));
                        }
                    }
                }
            }
        }
        self.next_item_slow()
    }

    /// An event file's commonest pair of items at once: a little-endian timestamp followed by an ENTER or a
    /// LEAVE whose compressed region reference has at most four bytes, all in the window. Some((time, kind,
    /// the reference as written, the record's data start)) with both consumed: exactly the two items
    /// [`next_item`](Self::next_item) would give one after the other. None (nothing consumed) for anything
    /// else, which `next_item` then takes.
    #[inline(always)]
    pub fn timed_enter_leave(&mut self) -> Option<(u64, u8, u32, usize)> {
        if !self.fast || self.cur.big_endian {
            return None;
        }
        let (data, pos) = (self.cur.data, self.cur.pos);
        let head: &[u8; 11] = data.get(pos..pos + 11)?.try_into().ok()?;
        let kind = head[9];
        let n = head[10] as usize;
        if head[0] != TIMESTAMP || !(kind == 12 || kind == 13) || n > 4 {
            return None;
        }
        let bytes = data.get(pos + 11..pos + 11 + n)?;
        let mut v = 0u32;
        for (i, &x) in bytes.iter().enumerate() {
            v |= (x as u32) << (8 * i);
        }
        let mut t = [0u8; 8];
        t.copy_from_slice(&head[1..9]);
        self.cur.pos = pos + 11 + n;
        Some((u64::from_le_bytes(t), kind, v, pos + 10))
    }

    /// The long way: everything [`next_item`](Self::next_item) does not do inline. The flags it tests
    /// change only here.
    #[inline(never)]
    fn next_item_slow(&mut self) -> Decoded<Option<Item>> {
        let item = self.next_item_long();
        self.fast = self.fast_now();
        item
    }

    fn next_item_long(&mut self) -> Decoded<Option<Item>> {
        loop {
            if self.done {
                return Ok(None);
            }
            if self.pending_header {
                if self.short(18) {
                    return self.more(self.cur.pos());
                }
                self.pending_header = false;
                self.chunk_header()?;
            }
            if self.cur.remaining() == 0 {
                if self.partial() {
                    return self.more(self.cur.pos());
                }
                self.done = true;
                return Ok(None);
            }
            let at = self.cur.pos();
            let kind = self.cur.u8()?;
            match kind {
                TIMESTAMP if self.timestamps => {
                    if self.short(8) {
                        return self.more(at);
                    }
                    return Ok(Some(Item::Time(self.cur.u64_full()?)));
                }
                END_OF_CHUNK | END_OF_BUFFER => {
                    let next = self.chunk_start + self.chunk_size;
                    if next >= self.file_len {
                        self.done = true;
                        return Ok(None);
                    }
                    if next < self.base {
                        // Records ran past their chunk's end: the boundary is behind the window.
                        return self.cur.error(format!("a record runs past its chunk's end (at byte {next})"));
                    }
                    self.chunk_start = next;
                    self.pending_header = true;
                    if next > self.base + self.cur.len() {
                        return self.more(next - self.base);
                    }
                    self.cur.seek(next - self.base);
                }
                END_OF_FILE => {
                    self.saw_end_of_file = true;
                    self.done = true;
                    return Ok(None);
                }
                k if self.timestamps && is_unframed_event(k) => {
                    // One compressed integer and no length byte: its size byte says how far it reaches.
                    if self.short(1) {
                        return self.more(at);
                    }
                    let start = self.cur.pos();
                    let n = self.cur.u8()?;
                    let extra = if n == 0 || n == 0xFF { 0 } else { n as usize };
                    if self.short(extra) {
                        return self.more(at);
                    }
                    if extra > self.cur.remaining() {
                        return self.cur.error(format!("event record type {k} runs past the end of the data"));
                    }
                    let end = self.cur.pos() + extra;
                    self.cur.seek(end);
                    return Ok(Some(Item::Record { kind, start, end }));
                }
                k if k >= 10 || k == ATTRIBUTE_LIST || (!self.timestamps && k > CHUNK_HEADER) => {
                    if self.partial() {
                        if let Some(r) = self.framed_past_window(at)? {
                            return r;
                        }
                    }
                    let end = self.cur.record_end()?;
                    let start = self.cur.pos();
                    self.cur.seek(end);
                    return Ok(Some(Item::Record { kind, start, end }));
                }
                other => {
                    return Err(DecodeError {
                        offset: at as u64,
                        what: format!(
                            "unknown buffer-internal record type {other} (cannot be skipped: it has no length)"
                        ),
                    })
                }
            }
        }
    }

    /// A framed record at window position `at` (its type byte read) while the file goes on past the window:
    /// Some when the walk must stop here (the record reaches past the window: more is needed, or it reaches
    /// far past the file's end, the error [`Cursor::record_end`] gives over the whole file).
    #[inline(never)]
    fn framed_past_window(&mut self, at: usize) -> Decoded<Option<Decoded<Option<Item>>>> {
        let (data, big) = (self.cur.data, self.cur.big_endian);
        let Some(&n) = data.get(at + 1) else {
            return Ok(Some(self.more(at)));
        };
        let head = if n == 0xFF { 10 } else { 2 };
        if at + head > data.len() {
            return Ok(Some(self.more(at)));
        }
        let len = if n == 0xFF { Cursor::new(&data[at + 2..at + 10], big).u64_full()? } else { n as u64 };
        let (body, window_end) = (self.base + at + head, self.base + data.len());
        let end = (body as u64).saturating_add(len);
        if end <= window_end as u64 {
            return Ok(None);
        }
        if end <= self.file_len as u64 || self.file_len - window_end <= WINDOW_TO_END {
            return Ok(Some(self.more(at)));
        }
        Err(DecodeError {
            offset: (at + 1) as u64,
            what: format!("record of {len} bytes runs past the end of the data ({} left)", self.file_len - body),
        })
    }

    /// A cursor over one record's data, in the file's byte order.
    #[inline]
    pub fn data(&self, start: usize, end: usize) -> Cursor<'a> {
        let mut c = self.cur.clone();
        c.truncate_to(start, end);
        c
    }
}

/// Encoders, the exact inverse of [`Cursor`]'s decoders; used by tests to write fixtures byte by byte.
pub mod write {
    fn put(out: &mut Vec<u8>, v: u64, n: usize, big: bool) {
        if big {
            for i in (0..n).rev() {
                out.push((v >> (8 * i)) as u8);
            }
        } else {
            for i in 0..n {
                out.push((v >> (8 * i)) as u8);
            }
        }
    }

    fn bytes_needed(v: u64) -> usize {
        (8 - (v.leading_zeros() as usize) / 8).max(1)
    }

    pub fn u32(out: &mut Vec<u8>, v: u32, big: bool) {
        match v {
            0 => out.push(0),
            u32::MAX => out.push(0xFF),
            _ => {
                let n = bytes_needed(v as u64);
                out.push(n as u8);
                put(out, v as u64, n, big);
            }
        }
    }

    pub fn u64(out: &mut Vec<u8>, v: u64, big: bool) {
        match v {
            0 => out.push(0),
            u64::MAX => out.push(0xFF),
            _ => {
                let n = bytes_needed(v);
                out.push(n as u8);
                put(out, v, n, big);
            }
        }
    }

    pub fn i64(out: &mut Vec<u8>, v: i64, big: bool) {
        if v == 0 {
            out.push(0);
        } else if v < 0 {
            out.push(8);
            put(out, v as u64, 8, big);
        } else {
            let n = bytes_needed(v as u64);
            out.push(n as u8);
            put(out, v as u64, n, big);
        }
    }

    pub fn u64_full(out: &mut Vec<u8>, v: u64, big: bool) {
        put(out, v, 8, big);
    }

    pub fn u32_full(out: &mut Vec<u8>, v: u32, big: bool) {
        put(out, v as u64, 4, big);
    }

    pub fn string(out: &mut Vec<u8>, s: &str) {
        out.extend_from_slice(s.as_bytes());
        out.push(0);
    }

    /// A record: type byte, length (short or long form), data.
    pub fn record(out: &mut Vec<u8>, kind: u8, data: &[u8], big: bool) {
        out.push(kind);
        if data.len() < 255 {
            out.push(data.len() as u8);
        } else {
            out.push(0xFF);
            u64_full(out, data.len() as u64, big);
        }
        out.extend_from_slice(data);
    }

    /// A chunk header as OTF2 writes at the start of every chunk of definition and event files.
    pub fn chunk_header(out: &mut Vec<u8>, big: bool, first: u64, last: u64) {
        out.push(super::CHUNK_HEADER);
        out.push(if big { super::BIG_ENDIAN } else { super::LITTLE_ENDIAN });
        u64_full(out, first, big);
        u64_full(out, last, big);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tiny seeded xorshift generator (no proptest: builds stay fast).
    struct XorShift(u64);
    impl XorShift {
        fn next(&mut self) -> u64 {
            let mut x = self.0;
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            self.0 = x;
            x
        }
        /// Values spread over every byte length, plus the special ones.
        fn value(&mut self) -> u64 {
            let r = self.next();
            match r % 10 {
                0 => 0,
                1 => u64::MAX,
                _ => r >> (r % 64),
            }
        }
    }

    #[test]
    fn compressed_integers_round_trip_in_both_byte_orders() {
        let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
        for big in [false, true] {
            let mut out = Vec::new();
            let mut expect = Vec::new();
            for _ in 0..5000 {
                let v = rng.value();
                let k = rng.next() % 5;
                match k {
                    0 => write::u64(&mut out, v, big),
                    1 => write::u32(&mut out, v as u32, big),
                    2 => write::i64(&mut out, v as i64, big),
                    3 => write::u64_full(&mut out, v, big),
                    _ => write::u32_full(&mut out, v as u32, big),
                }
                expect.push((k, v));
            }
            let mut c = Cursor::new(&out, big);
            for (k, v) in expect {
                match k {
                    0 => assert_eq!(c.u64().unwrap(), v),
                    1 => assert_eq!(c.u32().unwrap(), v as u32),
                    2 => assert_eq!(c.i64().unwrap(), v as i64),
                    3 => assert_eq!(c.u64_full().unwrap(), v),
                    _ => assert_eq!(c.u32_full().unwrap(), v as u32),
                }
            }
            assert_eq!(c.remaining(), 0);
        }
    }

    #[test]
    fn known_encodings() {
        // Little endian: size byte, then the low-order bytes, least significant first.
        let mut c = Cursor::new(&[0x02, 0x00, 0x40, 0x00, 0xFF, 0x01, 0x0a], false);
        assert_eq!(c.u64().unwrap(), 0x4000);
        assert_eq!(c.u32().unwrap(), 0);
        assert_eq!(c.u32().unwrap(), u32::MAX);
        assert_eq!(c.u32().unwrap(), 10);
        // Big endian: the same value, most significant first.
        let mut c = Cursor::new(&[0x02, 0x40, 0x00], true);
        assert_eq!(c.u64().unwrap(), 0x4000);
        // A negative 64-bit value is written in full.
        let mut c = Cursor::new(&[0x08, 0xe2, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff], false);
        assert_eq!(c.i64().unwrap(), -30);
    }

    #[test]
    fn truncated_and_invalid_values_are_errors_with_offsets() {
        let mut c = Cursor::new(&[0x04, 0x01, 0x02], false);
        let e = c.u32().unwrap_err();
        assert_eq!(e.offset, 1);
        let mut c = Cursor::new(&[0x07], false);
        assert_eq!(c.u32().unwrap_err().offset, 0);
        let mut c = Cursor::new(b"abc", false);
        assert!(c.string().is_err());
        let mut c = Cursor::new(&[0x10, 1, 2], false);
        assert!(c.record_end().is_err());
        let mut c = Cursor::new(&[0xFF, 1, 0, 0], false);
        assert!(c.record_end().is_err());
    }

    /// The timestamp-and-ENTER/LEAVE pair taken at once gives what `next_item` gives item by item, over
    /// every reference size (0, 1-4 bytes, 0xFF "undefined", an invalid 5) and other records between, in
    /// whole files and in windows that cut pairs anywhere.
    #[test]
    fn a_timed_enter_or_leave_at_once_is_its_two_items() {
        let mut rng = XorShift(0x1234_5678_9abc_def1);
        let mut file = Vec::new();
        write::chunk_header(&mut file, false, 0, 0);
        for _ in 0..2000 {
            let r = rng.next();
            if !r.is_multiple_of(7) {
                file.push(TIMESTAMP);
                write::u64_full(&mut file, rng.next() >> 8, false);
            }
            match r % 5 {
                0..=2 => {
                    file.push(if r.is_multiple_of(2) { 12 } else { 13 });
                    match (r >> 8) % 8 {
                        0 => file.push(0xFF),
                        1 => file.extend_from_slice(&[5, 1, 2, 3, 4, 5]),
                        _ => write::u32(&mut file, (rng.next() >> (rng.next() % 32)) as u32, false),
                    }
                }
                3 => write::record(&mut file, 14, &[1, 2, 3], false),
                _ => {
                    file.push(16);
                    write::u64(&mut file, rng.next() >> (20 + rng.next() % 44), false);
                }
            }
        }
        file.push(END_OF_FILE);
        // Item by item, as `next_item` alone gives them (stopping at the first error).
        let items = |mut r: Records| {
            let mut out = Vec::new();
            while let Ok(Some(i)) = r.next_item() {
                out.push(i);
            }
            out
        };
        let want = items(Records::new(&file, 0, true).unwrap());
        // With the pair taken first wherever it is there, split back into its two items; the reference
        // read as `Cursor::u32` reads it from the record's data.
        let paired = |r: &mut Records, out: &mut Vec<Item>| -> bool {
            loop {
                if let Some((t, kind, v, start)) = r.timed_enter_leave() {
                    assert!(kind == 12 || kind == 13, "only ENTER and LEAVE are taken at once: {kind}");
                    out.push(Item::Time(t));
                    let end = start + 1 + r.cur.data[start] as usize;
                    assert_eq!(r.data(start, end).u32().unwrap(), v, "the reference at {start}");
                    out.push(Item::Record { kind, start, end });
                    continue;
                }
                match r.next_item() {
                    Ok(Some(i)) => out.push(i),
                    Ok(None) => return r.need_more.is_none(),
                    Err(_) => return true,
                }
            }
        };
        let mut got = Vec::new();
        assert!(paired(&mut Records::new(&file, 0, true).unwrap(), &mut got));
        assert_eq!(got, want, "whole file");
        assert!(want.len() > 3000, "the file gives its items: {}", want.len());
        // In windows: positions are the window's, so compare file offsets.
        for window in [64usize, 65, 97, 1000] {
            let (mut got, mut base, mut at) = (Vec::new(), 0usize, None);
            loop {
                let data = &file[base..(base + window).min(file.len())];
                let mut r = match at {
                    None => Records::window(data, file.len(), 0, true).unwrap(),
                    Some(a) => Records::resume(data, base, a),
                };
                let mut part = Vec::new();
                let done = paired(&mut r, &mut part);
                got.extend(part.into_iter().map(|i| match i {
                    Item::Record { kind, start, end } => Item::Record { kind, start: start + base, end: end + base },
                    t => t,
                }));
                if done {
                    break;
                }
                let from = r.need_more.expect("more");
                at = Some(r.pause());
                base = from;
            }
            assert_eq!(got, want, "windows of {window} bytes");
        }
    }
}
