//! The byte level of store tiles: LEB128 varint columns (zigzag for signed deltas), the tile frame (magic,
//! format version, kind, codec, raw length, compressed payload) and the content hash that names tiles.
//!
//! Plain Rust over byte slices (it runs in the page's worker); it must not touch files. Every read checks
//! its bounds and returns a [`ColumnError`] with the byte offset, never panics.

use thiserror::Error;

/// First bytes of every tile file.
pub const TILE_MAGIC: [u8; 4] = *b"WFTL";
/// Bytes of the frame before the compressed payload up to format 4: magic, version, kind, codec, reserved, raw
/// length.
pub const FRAME_LEN: usize = 12;
/// Bytes of the frame from format 5 ([`IDENTIFIED_VERSION`]): format 4's, then the tile's level, block and
/// window (u32 little endian each), so a tile says which one it is and one put in another's place is refused.
pub const FRAME_LEN_IDENTIFIED: usize = 24;
/// The first format whose tiles carry their identity ([`TileId`]) in the frame.
pub const IDENTIFIED_VERSION: u8 = 5;
/// The one codec of store version 1: LZ4 block format (`lz4_flex`), chosen by measurement (BENCHMARKS.md).
pub const CODEC_LZ4: u8 = 1;

#[derive(Clone, Debug, Error, PartialEq, Eq)]
#[error("at byte {offset}: {detail}")]
pub struct ColumnError {
    pub offset: usize,
    pub detail: String,
}

/// What a tile is: its kind code, pyramid level, block and window (or tile index within the level), as its
/// manifest entry says and, from format 5, its frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TileId {
    pub kind: u8,
    pub level: u32,
    pub block: u32,
    pub window: u32,
}

/// The frame's length in a store of `version`.
pub fn frame_len(version: u8) -> usize {
    if version >= IDENTIFIED_VERSION {
        FRAME_LEN_IDENTIFIED
    } else {
        FRAME_LEN
    }
}

/// The content hash of a tile file: XXH3-128, as 32 lowercase hex digits.
pub fn content_hash(bytes: &[u8]) -> String {
    format!("{:032x}", xxhash_rust::xxh3::xxh3_128(bytes))
}

/// Builds a tile's uncompressed payload, column after column.
#[derive(Default)]
pub struct ColumnWriter {
    pub buf: Vec<u8>,
}

impl ColumnWriter {
    #[inline]
    pub fn varint(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.buf.push((v as u8) | 0x80);
            v >>= 7;
        }
        self.buf.push(v as u8);
    }

    #[inline]
    pub fn signed(&mut self, v: i64) {
        self.varint(((v << 1) ^ (v >> 63)) as u64);
    }

    pub fn bytes(&mut self, b: &[u8]) {
        self.varint(b.len() as u64);
        self.buf.extend_from_slice(b);
    }

    /// Frame and compress: the bytes of a tile file of `kind` (at level, block and window 0).
    pub fn finish(self, kind: u8, version: u8) -> Vec<u8> {
        self.finish_tile(TileId { kind, level: 0, block: 0, window: 0 }, version)
    }

    /// Frame and compress: the bytes of tile `id`'s file (its level, block and window in the frame from
    /// format 5 on).
    pub fn finish_tile(self, id: TileId, version: u8) -> Vec<u8> {
        // Compressed straight behind the frame (the bytes `lz4_flex::block::compress` gives, without its
        // copy into a second buffer).
        let head = frame_len(version);
        let mut out = vec![0u8; head + lz4_flex::block::get_maximum_output_size(self.buf.len())];
        out[..4].copy_from_slice(&TILE_MAGIC);
        out[4..8].copy_from_slice(&[version, id.kind, CODEC_LZ4, 0]);
        out[8..12].copy_from_slice(&(self.buf.len() as u32).to_le_bytes());
        if head == FRAME_LEN_IDENTIFIED {
            out[12..16].copy_from_slice(&id.level.to_le_bytes());
            out[16..20].copy_from_slice(&id.block.to_le_bytes());
            out[20..24].copy_from_slice(&id.window.to_le_bytes());
        }
        let n = lz4_flex::block::compress_into(&self.buf, &mut out[head..])
            .expect("the output holds the largest compressed size");
        out.truncate(head + n);
        out.shrink_to_fit();
        out
    }
}

/// The frame of a tile file, checked: its kind and decompressed payload.
pub fn unframe(file: &[u8], version: u8, max_raw: usize) -> Result<(u8, Vec<u8>), ColumnError> {
    unframe_tile(file, version, max_raw).map(|(id, payload)| (id.kind, payload))
}

/// The frame of a tile file checked (magic, version, codec), without decompressing: what the tile says it
/// is (level, block and window 0 before format 5) and its payload's length.
pub fn frame(file: &[u8], version: u8) -> Result<(TileId, usize), ColumnError> {
    let err = |offset, detail: String| ColumnError { offset, detail };
    let head = frame_len(version);
    if file.len() < head {
        return Err(err(0, format!("{} bytes: shorter than a tile header ({head} bytes)", file.len())));
    }
    if file[..4] != TILE_MAGIC {
        return Err(err(0, "not a weft store tile (bad magic)".into()));
    }
    if file[4] != version {
        return Err(err(4, format!("tile format version {}, this weft reads version {version}", file[4])));
    }
    if file[6] != CODEC_LZ4 {
        return Err(err(6, format!("unknown codec {}", file[6])));
    }
    let u32_at = |at: usize| u32::from_le_bytes([file[at], file[at + 1], file[at + 2], file[at + 3]]);
    let raw = u32_at(8) as usize;
    let id = match head {
        FRAME_LEN_IDENTIFIED => TileId { kind: file[5], level: u32_at(12), block: u32_at(16), window: u32_at(20) },
        _ => TileId { kind: file[5], level: 0, block: 0, window: 0 },
    };
    Ok((id, raw))
}

/// The frame of a tile file, checked: what it says it is ([`frame`]) and its decompressed payload.
pub fn unframe_tile(file: &[u8], version: u8, max_raw: usize) -> Result<(TileId, Vec<u8>), ColumnError> {
    let err = |offset, detail: String| ColumnError { offset, detail };
    let (id, raw) = frame(file, version)?;
    let head = frame_len(version);
    // LZ4 expands at most 255 times: a larger claim is damage, and must not size an allocation.
    if raw > max_raw || raw as u64 > (file.len() - head) as u64 * 255 + 16 {
        return Err(err(8, format!("claims {raw} bytes uncompressed, more than any tile holds ({max_raw})")));
    }
    let payload = lz4_flex::block::decompress(&file[head..], raw)
        .map_err(|e| err(head, format!("compressed payload is damaged: {e}")))?;
    if payload.len() != raw {
        return Err(err(8, format!("payload decompresses to {} bytes, the header says {raw}", payload.len())));
    }
    Ok((id, payload))
}

/// Reads a payload written by [`ColumnWriter`].
pub struct ColumnReader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> ColumnReader<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        ColumnReader { data, pos: 0 }
    }

    pub fn error<T>(&self, detail: impl Into<String>) -> Result<T, ColumnError> {
        Err(ColumnError { offset: self.pos, detail: detail.into() })
    }

    pub fn at_end(&self) -> bool {
        self.pos == self.data.len()
    }

    #[inline]
    pub fn varint(&mut self) -> Result<u64, ColumnError> {
        let mut v = 0u64;
        let mut shift = 0;
        loop {
            let Some(&b) = self.data.get(self.pos) else {
                return self.error("unexpected end of the tile's data");
            };
            self.pos += 1;
            if shift == 63 && b > 1 {
                return self.error("integer longer than 64 bits");
            }
            v |= ((b & 0x7f) as u64) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
            shift += 7;
        }
    }

    #[inline]
    pub fn signed(&mut self) -> Result<i64, ColumnError> {
        let v = self.varint()?;
        Ok(((v >> 1) as i64) ^ -((v & 1) as i64))
    }

    /// Bytes written by [`ColumnWriter::bytes`] (their length, then them).
    pub fn bytes(&mut self) -> Result<&'a [u8], ColumnError> {
        let n = self.count(1)?;
        let b = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(b)
    }

    /// A varint that must be below `bound` (an id, a small enum).
    #[inline]
    pub fn below(&mut self, bound: u64, what: &str) -> Result<u64, ColumnError> {
        let v = self.varint()?;
        if v >= bound {
            return self.error(format!("{what} {v} out of range (there are {bound})"));
        }
        Ok(v)
    }

    /// A count of records that follow, each taking at least `min_bytes`: larger than the rest could hold is
    /// corrupt, not a reason to allocate.
    pub fn count(&mut self, min_bytes: usize) -> Result<usize, ColumnError> {
        let n = self.varint()?;
        if n > ((self.data.len() - self.pos) / min_bytes.max(1)) as u64 {
            return self.error(format!("claims {n} records, more than the tile holds"));
        }
        Ok(n as usize)
    }

    /// `a + d` for a stored delta, refused when it leaves the u64 range.
    #[inline]
    pub fn add(&self, a: u64, d: i64) -> Result<u64, ColumnError> {
        a.checked_add_signed(d).map_or_else(|| self.error("time out of range"), Ok)
    }
}

/// Write `v` as deltas from the previous value (signed, zigzag), starting from 0.
pub fn deltas(w: &mut ColumnWriter, v: impl Iterator<Item = u64>) {
    let mut prev = 0u64;
    for x in v {
        w.signed(x.wrapping_sub(prev) as i64);
        prev = x;
    }
}

/// Reads a column of `n` values after deltas (see [`deltas`]).
pub fn undelta(r: &mut ColumnReader, n: usize) -> Result<Vec<u64>, ColumnError> {
    let mut out = Vec::with_capacity(n);
    let mut prev = 0u64;
    for _ in 0..n {
        prev = prev.wrapping_add(r.signed()? as u64);
        out.push(prev);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip_and_damage_is_an_error() {
        let vals = [0u64, 1, 127, 128, 300, u32::MAX as u64, u64::MAX];
        let mut w = ColumnWriter::default();
        vals.iter().for_each(|&v| w.varint(v));
        [-1i64, 0, 5, i64::MIN, i64::MAX].iter().for_each(|&v| w.signed(v));
        let file = w.finish(3, 1);
        let (kind, raw) = unframe(&file, 1, 1 << 20).unwrap();
        assert_eq!(kind, 3);
        let mut r = ColumnReader::new(&raw);
        for &v in &vals {
            assert_eq!(r.varint().unwrap(), v);
        }
        for v in [-1i64, 0, 5, i64::MIN, i64::MAX] {
            assert_eq!(r.signed().unwrap(), v);
        }
        assert!(r.at_end());
        assert!(r.varint().is_err());
        assert!(unframe(&file[..file.len() - 3], 1, 1 << 20).is_err());
        assert!(unframe(&file, 2, 1 << 20).is_err());
        let mut bad = file.clone();
        bad[0] = b'X';
        assert!(unframe(&bad, 1, 1 << 20).is_err());
        assert!(ColumnReader::new(&[0xff; 11]).varint().is_err());
    }

    #[test]
    fn a_format_5_frame_says_which_tile_it_is() {
        let id = TileId { kind: 2, level: 3, block: 70_000, window: u32::MAX };
        let mut w = ColumnWriter::default();
        w.varint(42);
        let file = w.finish_tile(id, IDENTIFIED_VERSION);
        assert_eq!(&file[12..16], &3u32.to_le_bytes());
        assert_eq!(frame(&file, IDENTIFIED_VERSION).unwrap(), (id, 1));
        let (got, payload) = unframe_tile(&file, IDENTIFIED_VERSION, 1 << 20).unwrap();
        assert_eq!((got, payload), (id, vec![42]));
        // A format-4 frame carries none: 12 bytes, read as level, block and window 0.
        let mut w = ColumnWriter::default();
        w.varint(42);
        let old = w.finish_tile(id, 4);
        assert_eq!(frame(&old, 4).unwrap().0, TileId { kind: 2, level: 0, block: 0, window: 0 });
        assert!(frame(&file[..20], IDENTIFIED_VERSION).is_err());
    }
}
