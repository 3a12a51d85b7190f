//! UTF-16 to UTF-8, incrementally: JSON written by Windows tools (PowerShell's `>` redirection writes
//! UTF-16 LE with a BOM) is transcoded chunk by chunk before the document walker sees it, so the rest of
//! the reader only ever meets UTF-8. Chunks may split a code unit or a surrogate pair anywhere; a lone
//! surrogate becomes U+FFFD. It must not hold more than one code unit between chunks and must not panic.

/// Which byte order a UTF-16 document uses, told from its first two bytes: a byte-order mark, or (JSON
/// starts with an ASCII character) which of the two bytes is zero. None when it is not UTF-16.
pub fn detect(head: &[u8]) -> Option<Utf16> {
    match head {
        [0xFF, 0xFE, ..] => Some(Utf16::new(false)),
        [0xFE, 0xFF, ..] => Some(Utf16::new(true)),
        [0, b, ..] if *b != 0 && b.is_ascii() => Some(Utf16::new(true)),
        [a, 0, ..] if *a != 0 && a.is_ascii() => Some(Utf16::new(false)),
        _ => None,
    }
}

/// An incremental UTF-16 decoder producing UTF-8.
#[derive(Clone, Debug)]
pub struct Utf16 {
    big_endian: bool,
    /// The first byte of a code unit split across chunks.
    odd: Option<u8>,
    /// A high surrogate waiting for its low half.
    high: Option<u16>,
    /// Whether the first code unit (a BOM, dropped) is still to come.
    at_start: bool,
}

impl Utf16 {
    pub fn new(big_endian: bool) -> Self {
        Utf16 { big_endian, odd: None, high: None, at_start: true }
    }

    /// Transcode `bytes`, appending UTF-8 to `out`.
    pub fn feed(&mut self, bytes: &[u8], out: &mut Vec<u8>) {
        out.reserve(bytes.len() + bytes.len() / 2);
        let mut rest = bytes;
        if let Some(first) = self.odd.take() {
            match rest.split_first() {
                Some((&second, tail)) => {
                    self.unit([first, second], out);
                    rest = tail;
                }
                None => {
                    self.odd = Some(first);
                    return;
                }
            }
        }
        let mut pairs = rest.chunks_exact(2);
        for p in &mut pairs {
            self.unit([p[0], p[1]], out);
        }
        if let [b] = pairs.remainder() {
            self.odd = Some(*b);
        }
    }

    /// The input ended: a dangling half unit or high surrogate becomes U+FFFD.
    pub fn finish(&mut self, out: &mut Vec<u8>) {
        if self.odd.take().is_some() || self.high.take().is_some() {
            push_char(out, '\u{FFFD}');
        }
    }

    #[inline]
    fn unit(&mut self, b: [u8; 2], out: &mut Vec<u8>) {
        let u = if self.big_endian { u16::from_be_bytes(b) } else { u16::from_le_bytes(b) };
        if std::mem::take(&mut self.at_start) && u == 0xFEFF {
            return;
        }
        if let Some(h) = self.high.take() {
            if (0xDC00..0xE000).contains(&u) {
                let c = 0x10000 + ((u32::from(h) - 0xD800) << 10) + (u32::from(u) - 0xDC00);
                push_char(out, char::from_u32(c).unwrap_or('\u{FFFD}'));
                return;
            }
            push_char(out, '\u{FFFD}');
        }
        if u < 0x80 {
            out.push(u as u8);
        } else if (0xD800..0xDC00).contains(&u) {
            self.high = Some(u);
        } else {
            push_char(out, char::from_u32(u32::from(u)).unwrap_or('\u{FFFD}'));
        }
    }
}

fn push_char(out: &mut Vec<u8>, c: char) {
    let mut buf = [0u8; 4];
    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
}

/// The UTF-8 text of a whole UTF-16 buffer (for sniffing a file's head).
pub fn to_utf8(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut t = detect(bytes)?;
    let mut out = Vec::new();
    t.feed(bytes, &mut out);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn le(s: &str, bom: bool) -> Vec<u8> {
        let mut v = if bom { vec![0xFF, 0xFE] } else { vec![] };
        v.extend(s.encode_utf16().flat_map(u16::to_le_bytes));
        v
    }

    #[test]
    fn transcodes_split_anywhere() {
        let text = "[{\"name\":\"é😀\",\"ph\":\"X\"}]";
        for bom in [false, true] {
            let bytes = le(text, bom);
            for cut in 0..bytes.len() {
                let mut t = detect(&bytes).unwrap();
                let mut out = Vec::new();
                t.feed(&bytes[..cut], &mut out);
                t.feed(&bytes[cut..], &mut out);
                t.finish(&mut out);
                assert_eq!(String::from_utf8(out).unwrap(), text, "cut {cut}");
            }
        }
        let be: Vec<u8> = [0xFE, 0xFF].into_iter().chain(text.encode_utf16().flat_map(u16::to_be_bytes)).collect();
        assert_eq!(to_utf8(&be).unwrap(), text.as_bytes());
    }

    #[test]
    fn lone_surrogates_and_odd_ends_become_replacement() {
        let mut t = Utf16::new(false);
        let mut out = Vec::new();
        t.feed(&[0x00, 0xD8, b'a', 0, 0x41], &mut out);
        t.finish(&mut out);
        assert_eq!(String::from_utf8(out).unwrap(), "\u{FFFD}a\u{FFFD}");
        assert!(detect(b"[{").is_none());
        assert!(detect(&[0, 0]).is_none());
    }
}
