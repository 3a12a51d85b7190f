//! The OTF2 anchor file (`X.otf2`): magic, versions, chunk sizes, location count, creator and properties.
//! It says how to cut the other files into chunks and which library version wrote them.
//!
//! Decoding only: it must not open the other files of the archive.

use super::encoding::{Cursor, Decoded, BIG_ENDIAN, CHUNK_HEADER, LITTLE_ENDIAN};

/// The magic string after the two header bytes.
pub const MAGIC: &[u8] = b"OTF2\0";

/// What the anchor says about the archive.
#[derive(Clone, Debug, PartialEq)]
pub struct Anchor {
    pub big_endian: bool,
    pub anchor_format: u8,
    pub trace_format: u8,
    /// Version of the OTF2 library that wrote the archive (major, minor, bugfix).
    pub version: (u8, u8, u8),
    pub chunk_size_events: u64,
    pub chunk_size_defs: u64,
    pub substrate: u8,
    pub compression: u8,
    pub number_of_locations: u64,
    pub number_of_global_defs: u64,
    pub machine: String,
    pub creator: String,
    pub description: String,
    pub properties: Vec<(String, String)>,
    pub trace_id: u64,
}

/// True when the bytes start like an anchor file (header byte, byte-order marker, magic).
pub fn looks_like_anchor(bytes: &[u8]) -> bool {
    bytes.len() >= 7
        && bytes[0] == CHUNK_HEADER
        && (bytes[1] == LITTLE_ENDIAN || bytes[1] == BIG_ENDIAN)
        && &bytes[2..7] == MAGIC
}

/// Decode an anchor file. Errors name the byte where decoding failed.
pub fn parse(bytes: &[u8]) -> Decoded<Anchor> {
    let mut c = Cursor::new(bytes, false);
    if c.u8()? != CHUNK_HEADER {
        return Cursor::new(bytes, false).error("not an OTF2 anchor file (no header byte 0x03)");
    }
    let big_endian = match c.u8()? {
        LITTLE_ENDIAN => false,
        BIG_ENDIAN => true,
        other => return c.error(format!("unknown byte-order marker 0x{other:02x}")),
    };
    c.set_big_endian(big_endian);
    let magic_at = c.pos();
    if c.string()? != "OTF2" {
        let mut at = Cursor::new(bytes, false);
        at.seek(magic_at);
        return at.error("wrong magic (expected \"OTF2\")");
    }
    let anchor_format = c.u8()?;
    if anchor_format == 0 {
        return c.error("anchor format 0 is not valid");
    }
    let trace_format = c.u8()?;
    let version = (c.u8()?, c.u8()?, c.u8()?);
    let chunk_size_events = c.u64_full()?;
    let chunk_size_defs = c.u64_full()?;
    let substrate = c.u8()?;
    let compression = c.u8()?;
    let number_of_locations = c.u64_full()?;
    let number_of_global_defs = c.u64_full()?;
    let machine = c.string()?;
    let creator = c.string()?;
    let description = c.string()?;
    let mut properties = Vec::new();
    let mut trace_id = 0;
    if anchor_format > 1 {
        let n = c.u32_full()?;
        for _ in 0..n {
            let k = c.string()?;
            let v = c.string()?;
            properties.push((k, v));
        }
        trace_id = c.u64_full()?;
    }
    // Format 3 adds snapshot and thumbnail counts, which weft does not use; later formats may add more.
    Ok(Anchor {
        big_endian,
        anchor_format,
        trace_format,
        version,
        chunk_size_events,
        chunk_size_defs,
        substrate,
        compression,
        number_of_locations,
        number_of_global_defs,
        machine,
        creator,
        description,
        properties,
        trace_id,
    })
}
