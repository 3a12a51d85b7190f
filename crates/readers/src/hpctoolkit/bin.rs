//! A bounded little-endian view of one `*.db` file: every read is checked against the file's length and a
//! miss is a [`ReadError::Malformed`] naming the file and the byte offset. Also the common file header (magic,
//! format, version, section table) that all four formats share.
//!
//! Reads only; it must not allocate from a length field (callers check counts against the bytes there are).

use crate::ReadError;

pub(super) const FORMAT: &str = "HPCToolkit database";

/// The common header's magic, at byte 0 of every `*.db` file.
pub const MAGIC: &[u8; 10] = b"HPCTOOLKIT";

/// One database file's bytes and name.
#[derive(Clone, Copy)]
pub(super) struct Bin<'a> {
    pub name: &'a str,
    pub b: &'a [u8],
}

impl<'a> Bin<'a> {
    pub fn bad(&self, offset: u64, detail: impl Into<String>) -> ReadError {
        ReadError::Malformed { file: self.name.to_string(), format: FORMAT, offset, detail: detail.into() }
    }

    fn bytes<const N: usize>(&self, at: u64, what: &str) -> Result<[u8; N], ReadError> {
        let start = usize::try_from(at).ok();
        let got = start.and_then(|s| self.b.get(s..s.checked_add(N)?));
        match got {
            Some(s) => Ok(s.try_into().expect("slice of N bytes")),
            None => Err(self.bad(at, format!("{what} lies past the end of the file ({} bytes)", self.b.len()))),
        }
    }

    pub fn u8(&self, at: u64, what: &str) -> Result<u8, ReadError> {
        Ok(self.bytes::<1>(at, what)?[0])
    }
    pub fn u16(&self, at: u64, what: &str) -> Result<u16, ReadError> {
        Ok(u16::from_le_bytes(self.bytes(at, what)?))
    }
    pub fn u32(&self, at: u64, what: &str) -> Result<u32, ReadError> {
        Ok(u32::from_le_bytes(self.bytes(at, what)?))
    }
    pub fn u64(&self, at: u64, what: &str) -> Result<u64, ReadError> {
        Ok(u64::from_le_bytes(self.bytes(at, what)?))
    }

    /// The NUL-terminated UTF-8 string at `at` (lossy), at most 64 KiB long.
    pub fn cstr(&self, at: u64, what: &str) -> Result<String, ReadError> {
        const MAX: usize = 64 << 10;
        let start = usize::try_from(at).ok().filter(|&s| s < self.b.len());
        let Some(start) = start else {
            return Err(self.bad(at, format!("{what} lies past the end of the file ({} bytes)", self.b.len())));
        };
        let tail = &self.b[start..self.b.len().min(start.saturating_add(MAX))];
        match tail.iter().position(|&c| c == 0) {
            Some(n) => Ok(String::from_utf8_lossy(&tail[..n]).into_owned()),
            None => Err(self.bad(at, format!("{what} has no terminating NUL within {} bytes", tail.len()))),
        }
    }

    /// `count` records of `stride` bytes from `at` fit in the file: checked before anything is allocated for
    /// them.
    pub fn fits(&self, at: u64, count: u64, stride: u64, what: &str) -> Result<(), ReadError> {
        let end = count.checked_mul(stride).and_then(|n| n.checked_add(at));
        match end {
            Some(e) if e <= self.b.len() as u64 => Ok(()),
            _ => Err(self.bad(
                at,
                format!("{count} {what} of {stride} bytes would pass the end of the file ({} bytes)", self.b.len()),
            )),
        }
    }

    /// Check the common header: the magic, the specific format (`meta`, `prof`, `trce`, `ctxt`) and major
    /// version 4; give the first `sections` (size, pointer) pairs.
    pub fn header(&self, format: &[u8; 4], sections: usize) -> Result<Vec<(u64, u64)>, ReadError> {
        if !self.b.starts_with(MAGIC) {
            return Err(self.bad(0, "not an HPCToolkit database file (no HPCTOOLKIT magic)"));
        }
        let got: [u8; 4] = self.bytes(10, "the format identifier")?;
        if &got != format {
            return Err(self.bad(
                10,
                format!(
                    "the format is \"{}\", expected \"{}\"",
                    String::from_utf8_lossy(&got).escape_default(),
                    String::from_utf8_lossy(format)
                ),
            ));
        }
        let major = self.u8(14, "the major version")?;
        let minor = self.u8(15, "the minor version")?;
        if major != 4 {
            return Err(
                self.bad(14, format!("version {major}.{minor}; weft reads version 4 (HPCToolkit 2022 and later)"))
            );
        }
        (0..sections as u64)
            .map(|i| Ok((self.u64(0x10 + 16 * i, "a section size")?, self.u64(0x18 + 16 * i, "a section pointer")?)))
            .collect()
    }
}

/// Which of the database's files `bytes` is, by its header: `meta`, `prof`, `ctxt` or `trce`.
pub fn db_kind(bytes: &[u8]) -> Option<[u8; 4]> {
    if bytes.len() >= 16 && bytes.starts_with(MAGIC) {
        bytes[10..14].try_into().ok()
    } else {
        None
    }
}
