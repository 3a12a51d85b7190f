//! A bounds-checked reader of fixed-width binary fields (Java's `DataInputStream` order is big-endian; CLOG2
//! states its byte order in its preamble). Every read names the file, the format and the byte it failed at;
//! nothing here allocates from a length field.

use crate::ReadError;

#[derive(Clone)]
pub(crate) struct Cursor<'a> {
    pub bytes: &'a [u8],
    pub pos: usize,
    pub file: &'a str,
    pub format: &'static str,
    pub big_endian: bool,
}

impl<'a> Cursor<'a> {
    pub fn new(file: &'a str, format: &'static str, bytes: &'a [u8], big_endian: bool) -> Self {
        Cursor { bytes, pos: 0, file, format, big_endian }
    }

    pub fn err(&self, detail: impl Into<String>) -> ReadError {
        self.err_at(self.pos, detail)
    }

    pub fn err_at(&self, offset: usize, detail: impl Into<String>) -> ReadError {
        ReadError::Malformed {
            file: self.file.to_string(),
            format: self.format,
            offset: offset as u64,
            detail: detail.into(),
        }
    }

    pub fn remaining(&self) -> usize {
        self.bytes.len().saturating_sub(self.pos)
    }

    pub fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], ReadError> {
        if n > self.remaining() {
            return Err(self.err(format!("{what}: needs {n} bytes, the file has {} left", self.remaining())));
        }
        let s = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N], ReadError> {
        let s = self.take(N, what)?;
        let mut a = [0u8; N];
        a.copy_from_slice(s);
        Ok(a)
    }

    pub fn u8(&mut self, what: &str) -> Result<u8, ReadError> {
        Ok(self.take(1, what)?[0])
    }

    pub fn i16(&mut self, what: &str) -> Result<i16, ReadError> {
        let a = self.array::<2>(what)?;
        Ok(if self.big_endian { i16::from_be_bytes(a) } else { i16::from_le_bytes(a) })
    }

    pub fn i32(&mut self, what: &str) -> Result<i32, ReadError> {
        let a = self.array::<4>(what)?;
        Ok(if self.big_endian { i32::from_be_bytes(a) } else { i32::from_le_bytes(a) })
    }

    pub fn i64(&mut self, what: &str) -> Result<i64, ReadError> {
        let a = self.array::<8>(what)?;
        Ok(if self.big_endian { i64::from_be_bytes(a) } else { i64::from_le_bytes(a) })
    }

    pub fn f32(&mut self, what: &str) -> Result<f32, ReadError> {
        let a = self.array::<4>(what)?;
        Ok(if self.big_endian { f32::from_be_bytes(a) } else { f32::from_le_bytes(a) })
    }

    pub fn f64(&mut self, what: &str) -> Result<f64, ReadError> {
        let a = self.array::<8>(what)?;
        Ok(if self.big_endian { f64::from_be_bytes(a) } else { f64::from_le_bytes(a) })
    }

    /// A count that must be non-negative and fit in what is left when each item takes at least `min_bytes`.
    pub fn count_i32(&mut self, min_bytes: usize, what: &str) -> Result<usize, ReadError> {
        let at = self.pos;
        let n = self.i32(what)?;
        self.check_count(at, n as i64, min_bytes, what)
    }

    pub fn count_i16(&mut self, min_bytes: usize, what: &str) -> Result<usize, ReadError> {
        let at = self.pos;
        let n = self.i16(what)?;
        self.check_count(at, n as i64, min_bytes, what)
    }

    fn check_count(&self, at: usize, n: i64, min_bytes: usize, what: &str) -> Result<usize, ReadError> {
        if n < 0 {
            return Err(self.err_at(at, format!("{what}: negative count {n}")));
        }
        let n = n as usize;
        if n.saturating_mul(min_bytes.max(1)) > self.remaining() {
            return Err(self.err_at(at, format!("{what}: {n} items cannot fit in the {} bytes left", self.remaining())));
        }
        Ok(n)
    }

    /// Java's `writeString` as SLOG-2 writes it: a 16-bit length, then that many bytes (no terminator).
    pub fn java_string(&mut self, what: &str) -> Result<String, ReadError> {
        let at = self.pos;
        let n = self.i16(what)?;
        if n <= 0 {
            return Ok(String::new());
        }
        let s =
            self.take(n as usize, what).map_err(|_| self.err_at(at, format!("{what}: string of {n} bytes is cut")))?;
        Ok(String::from_utf8_lossy(s).into_owned())
    }

    /// A C string in a fixed-size field (NUL-terminated or filling it), trimmed.
    pub fn c_string(&mut self, width: usize, what: &str) -> Result<String, ReadError> {
        let s = self.take(width, what)?;
        Ok(c_str(s))
    }
}

/// The text of a NUL-terminated (or field-filling) C string, trimmed of spaces.
pub(crate) fn c_str(s: &[u8]) -> String {
    let end = s.iter().position(|&c| c == 0).unwrap_or(s.len());
    String::from_utf8_lossy(&s[..end]).trim().to_string()
}

/// Seconds (the formats' time unit, as a double) to nanoseconds; None for NaN, infinite or out-of-range times.
pub(crate) fn seconds_to_ns(t: f64) -> Option<i64> {
    let ns = t * 1e9;
    if ns.is_finite() && ns.abs() < 9.0e18 {
        Some(ns.round() as i64)
    } else {
        None
    }
}
