//! Decoding the raw values the scanner keeps: microsecond timestamps to integer nanoseconds (an exact
//! integer path for plain decimals, `f64` for exotic forms), integers, counter values, and JSON string
//! escapes. Pure functions on byte slices; they must not panic on any input and return None for what is
//! not a usable value.

use super::scanner::Val;

/// Decode JSON escapes (invalid ones and lone surrogates become U+FFFD).
pub fn unescape(raw: &[u8]) -> String {
    let mut out: Vec<u8> = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        let c = raw[i];
        if c != b'\\' {
            out.push(c);
            i += 1;
            continue;
        }
        let Some(&e) = raw.get(i + 1) else { break };
        i += 2;
        let ch = match e {
            b'n' => '\n',
            b't' => '\t',
            b'r' => '\r',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'u' => {
                let hi = hex4(raw, i);
                i += 4;
                match hi {
                    Some(h) if (0xD800..0xDC00).contains(&h) => {
                        let lo = if raw.get(i) == Some(&b'\\') && raw.get(i + 1) == Some(&b'u') {
                            hex4(raw, i + 2)
                        } else {
                            None
                        };
                        match lo {
                            Some(l) if (0xDC00..0xE000).contains(&l) => {
                                i += 6;
                                char::from_u32(0x10000 + ((h - 0xD800) << 10) + (l - 0xDC00)).unwrap_or('\u{FFFD}')
                            }
                            _ => '\u{FFFD}',
                        }
                    }
                    Some(h) => char::from_u32(h).unwrap_or('\u{FFFD}'),
                    None => '\u{FFFD}',
                }
            }
            other => other as char,
        };
        let mut buf = [0u8; 4];
        out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
    }
    match String::from_utf8(out) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    }
}

fn hex4(raw: &[u8], i: usize) -> Option<u32> {
    let h = raw.get(i..i + 4)?;
    let s = std::str::from_utf8(h).ok()?;
    u32::from_str_radix(s, 16).ok()
}

/// The largest magnitude of a time in nanoseconds the reader accepts (about 146 years).
pub const MAX_NS: i64 = 1 << 62;

/// Microseconds as JSON number bytes to integer nanoseconds, rounded to nearest. None for anything that
/// is not a finite number within `MAX_NS`. Plain decimals take an exact integer path; exotic forms
/// (exponents, very long mantissas) go through `f64`.
#[inline]
pub fn micros_to_ns(b: &[u8]) -> Option<i64> {
    let (neg, d) = match b.first() {
        Some(b'-') => (true, &b[1..]),
        _ => (false, b),
    };
    let mut int: i64 = 0;
    let mut i = 0;
    while i < d.len() && i < 16 {
        let x = d[i].wrapping_sub(b'0');
        if x >= 10 {
            break;
        }
        int = int * 10 + x as i64;
        i += 1;
    }
    if i == 0 || int >= MAX_NS / 1000 {
        return micros_to_ns_slow(b);
    }
    let mut ns = int * 1000;
    if i < d.len() {
        if d[i] != b'.' {
            return micros_to_ns_slow(b);
        }
        i += 1;
        let first = i;
        let mut scale = 100;
        while i < d.len() {
            let x = d[i].wrapping_sub(b'0');
            if x >= 10 {
                return micros_to_ns_slow(b);
            }
            if scale > 0 {
                ns += x as i64 * scale;
                scale /= 10;
            } else if i == first + 3 && x >= 5 {
                ns += 1;
            }
            i += 1;
        }
        if i == first {
            return micros_to_ns_slow(b);
        }
    }
    Some(if neg { -ns } else { ns })
}

fn micros_to_ns_slow(b: &[u8]) -> Option<i64> {
    let v: f64 = std::str::from_utf8(b).ok()?.trim().parse().ok()?;
    let ns = (v * 1000.0).round();
    if ns.is_finite() && ns.abs() < MAX_NS as f64 {
        Some(ns as i64)
    } else {
        None
    }
}

/// A value that should be a time in microseconds: a number, or a string holding one.
pub fn val_micros_to_ns(v: &Val) -> Option<i64> {
    match v {
        Val::Num(b) => micros_to_ns(b),
        Val::Str(s) if !s.escaped => micros_to_ns(trim(s.raw)),
        _ => None,
    }
}

/// A number as f64 (counters): a number, or a string holding one.
pub fn val_f64(v: &Val) -> Option<f64> {
    let b = match v {
        Val::Num(b) => *b,
        Val::Str(s) if !s.escaped => trim(s.raw),
        _ => return None,
    };
    let x: f64 = std::str::from_utf8(b).ok()?.parse().ok()?;
    x.is_finite().then_some(x)
}

/// An integer (pid, tid, sort index): plain digits fast, else via f64 when integral.
#[inline]
pub fn int_of(b: &[u8]) -> Option<i64> {
    let (neg, d) = match b.first() {
        Some(b'-') => (true, &b[1..]),
        _ => (false, b),
    };
    if !d.is_empty() && d.len() <= 18 {
        let mut v: i64 = 0;
        let mut plain = true;
        for &c in d {
            let digit = c.wrapping_sub(b'0');
            plain &= digit < 10;
            v = v.wrapping_mul(10).wrapping_add(digit as i64);
        }
        if plain {
            return Some(if neg { -v } else { v });
        }
    }
    let x: f64 = std::str::from_utf8(b).ok()?.trim().parse().ok()?;
    (x.is_finite() && x.fract() == 0.0 && x.abs() < 9.0e18).then_some(x as i64)
}

fn trim(b: &[u8]) -> &[u8] {
    let s = b.iter().position(|c| !c.is_ascii_whitespace()).unwrap_or(b.len());
    let e = b.iter().rposition(|c| !c.is_ascii_whitespace()).map_or(s, |e| e + 1);
    &b[s..e.max(s)]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn micros_round_to_nearest_ns() {
        assert_eq!(micros_to_ns(b"0"), Some(0));
        assert_eq!(micros_to_ns(b"12"), Some(12_000));
        assert_eq!(micros_to_ns(b"12.5"), Some(12_500));
        assert_eq!(micros_to_ns(b"12.3456"), Some(12_346));
        assert_eq!(micros_to_ns(b"12.3454"), Some(12_345));
        assert_eq!(micros_to_ns(b"-1.5"), Some(-1_500));
        assert_eq!(micros_to_ns(b"1e3"), Some(1_000_000));
        assert_eq!(micros_to_ns(b"1.5E-3"), Some(2));
        assert_eq!(micros_to_ns(b"1e300"), None);
        assert_eq!(micros_to_ns(b"-"), None);
        assert_eq!(micros_to_ns(b"1."), Some(1_000));
        assert_eq!(micros_to_ns(b"1694039960374960.5"), Some(1_694_039_960_374_960_500));
    }

    #[test]
    fn unescapes() {
        assert_eq!(unescape(br#"a\nb\u00e9\ud83d\ude00\"\\"#), "a\nb\u{e9}\u{1F600}\"\\");
        assert_eq!(unescape(br#"\ud800x"#), "\u{FFFD}x");
    }
}
