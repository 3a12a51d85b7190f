//! One row's record: a header of serial types, then the values. Parsed lazily: the header is read into
//! (serial type, offset) pairs once, and a value is decoded only when asked for.

use super::{varint, TextEncoding};
use std::borrow::Cow;

/// A row as stored: values are decoded on access. Columns past the record's end (added by `ALTER TABLE ADD
/// COLUMN` after the row was written) read as NULL.
pub struct Record<'p> {
    payload: &'p [u8],
    cols: &'p [(u64, usize)],
    encoding: TextEncoding,
}

/// Bytes a value of serial type `t` takes.
fn value_len(t: u64) -> Option<usize> {
    Some(match t {
        0 | 8 | 9 => 0,
        1 => 1,
        2 => 2,
        3 => 3,
        4 => 4,
        5 => 6,
        6 | 7 => 8,
        10 | 11 => return None,
        t => usize::try_from((t - 12) / 2).ok()?,
    })
}

impl<'p> Record<'p> {
    /// Read the header of `payload` into `cols` (reused between rows).
    pub(super) fn parse(
        payload: &'p [u8],
        cols: &'p mut Vec<(u64, usize)>,
        encoding: TextEncoding,
    ) -> Result<Record<'p>, String> {
        cols.clear();
        let (header_len, mut at) = varint(payload, 0).ok_or("record header size runs past the payload")?;
        let header_len = usize::try_from(header_len).map_err(|_| "record header size too large".to_string())?;
        if header_len > payload.len() || header_len < at {
            return Err(format!("record header of {header_len} bytes in a payload of {}", payload.len()));
        }
        let mut body = header_len;
        while at < header_len {
            let (t, next) = varint(&payload[..header_len], at).ok_or("serial type runs past the record header")?;
            let len = value_len(t).ok_or_else(|| format!("reserved serial type {t}"))?;
            if len > payload.len() - body {
                return Err(format!("value of {len} bytes runs past the record's {} bytes", payload.len()));
            }
            cols.push((t, body));
            body += len;
            at = next;
        }
        Ok(Record { payload, cols, encoding })
    }

    /// How many values the record holds.
    pub fn len(&self) -> usize {
        self.cols.len()
    }

    pub fn is_empty(&self) -> bool {
        self.cols.is_empty()
    }

    /// Whether column `i` is NULL (or absent).
    pub fn is_null(&self, i: usize) -> bool {
        self.cols.get(i).is_none_or(|&(t, _)| t == 0)
    }

    /// Column `i` as an integer: integers as they are, reals truncated; None for NULL, text and blobs.
    pub fn int(&self, i: usize) -> Option<i64> {
        let &(t, at) = self.cols.get(i)?;
        let p = &self.payload[at..];
        let be = |n: usize| -> i64 {
            // Sign-extend an n-byte big-endian two's complement integer.
            let mut v: i64 = if p[0] & 0x80 != 0 { -1 } else { 0 };
            for &b in &p[..n] {
                v = (v << 8) | b as i64;
            }
            v
        };
        Some(match t {
            1 => be(1),
            2 => be(2),
            3 => be(3),
            4 => be(4),
            5 => be(6),
            6 => be(8),
            7 => self.real(i)? as i64,
            8 => 0,
            9 => 1,
            _ => return None,
        })
    }

    /// Column `i` as a float: reals as they are, integers converted; None otherwise.
    pub fn real(&self, i: usize) -> Option<f64> {
        let &(t, at) = self.cols.get(i)?;
        if t == 7 {
            let mut b = [0u8; 8];
            b.copy_from_slice(&self.payload[at..at + 8]);
            return Some(f64::from_be_bytes(b));
        }
        self.int(i).map(|v| v as f64)
    }

    /// Column `i` as text (invalid UTF-8 or UTF-16 replaced); None unless it is text.
    pub fn text(&self, i: usize) -> Option<Cow<'p, str>> {
        let &(t, at) = self.cols.get(i)?;
        if t < 13 || t % 2 == 0 {
            return None;
        }
        let payload: &'p [u8] = self.payload;
        let bytes = &payload[at..at + ((t - 13) / 2) as usize];
        Some(match self.encoding {
            TextEncoding::Utf8 => String::from_utf8_lossy(bytes),
            TextEncoding::Utf16Le | TextEncoding::Utf16Be => {
                let le = self.encoding == TextEncoding::Utf16Le;
                let units = bytes.chunks_exact(2).map(|c| {
                    if le {
                        u16::from_le_bytes([c[0], c[1]])
                    } else {
                        u16::from_be_bytes([c[0], c[1]])
                    }
                });
                Cow::Owned(char::decode_utf16(units).map(|c| c.unwrap_or('\u{fffd}')).collect())
            }
        })
    }
}
