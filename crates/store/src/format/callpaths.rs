//! The call-path tile (`t/l{L}/b{B}/t{J}`, format 8): per location of a block, the call-path totals of the
//! windows a pyramid tile covers (level L's tile J covers level-0 windows `[J * 4^(L-1), (J + 1) * 4^(L-1))`),
//! so the call tree of any range is read from a few tiles plus its edges' level-0 tiles
//! (`read::calltree`). A tile carries its own call-path table (parent, region) for the paths it names, in the
//! order they first appear in the block, parents first: no store-wide numbering, so a tile's bytes are its
//! block's and a part of a sharded index is merged without rewriting one.
//!
//! Per location and path, over the covered windows `[ws, we)` (the last window reaching to the end of time):
//! `count`, the path's intervals starting in it; `open`, those open across `ws` (started before, ending after);
//! `inclusive_ns`, their time inside `[ws, we)`; `exclusive_ns`, that less their direct children's time
//! inside it. Time is additive over windows; counts are by start, so a range's count is the starts inside it
//! plus what is open across its first instant ([`CallPathsTile`]).
//! Its codec: the index writes it with [`encode_callpaths`], a reader takes it back with [`decode_callpaths`].

use crate::format::columns::{ColumnError, ColumnReader, ColumnWriter};

/// The first store format with call-path tiles.
pub const CALLPATHS_VERSION: u32 = 8;

/// A call path of a tile's table: its enclosing path (an earlier entry) and its last region.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PathDef {
    pub parent: Option<u32>,
    pub region: u32,
}

/// One path's figures on one location over a tile's windows (see the module doc).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PathFigures {
    /// The path, an index into the tile's table.
    pub path: u32,
    pub count: u64,
    pub open: u64,
    pub inclusive_ns: u64,
    pub exclusive_ns: u64,
}

/// A decoded call-path tile: the table, and per location of the block its paths' figures by path index.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CallPathsTile {
    pub paths: Vec<PathDef>,
    pub locations: Vec<Vec<PathFigures>>,
}

impl CallPathsTile {
    /// Figures held (the tile's record count).
    pub fn records(&self) -> u64 {
        self.locations.iter().map(|l| l.len() as u64).sum()
    }
}

/// The tile's payload: the location count, the table (parent + 1, 0 for a root; region), then per location
/// its entry count, then each location's entries by ascending path (path as a gap from the previous + 1;
/// count, open, inclusive, exclusive).
pub fn encode_callpaths(t: &CallPathsTile) -> ColumnWriter {
    let mut w = ColumnWriter::default();
    w.varint(t.locations.len() as u64);
    w.varint(t.paths.len() as u64);
    for p in &t.paths {
        w.varint(p.parent.map_or(0, |q| q as u64 + 1));
        w.varint(p.region as u64);
    }
    t.locations.iter().for_each(|l| w.varint(l.len() as u64));
    for l in &t.locations {
        let mut next = 0u64;
        for f in l {
            w.varint(f.path as u64 - next);
            next = f.path as u64 + 1;
            w.varint(f.count);
            w.varint(f.open);
            w.varint(f.inclusive_ns);
            w.varint(f.exclusive_ns);
        }
    }
    w
}

/// A call-path tile of `nloc` locations over `nregions` regions ([`encode_callpaths`] wrote it): parents
/// before their children, paths ascending per location and in the table, exclusive time no more than
/// inclusive; anything else is refused at its byte.
pub fn decode_callpaths(payload: &[u8], nloc: usize, nregions: usize) -> Result<CallPathsTile, ColumnError> {
    let mut r = ColumnReader::new(payload);
    let n = r.varint()?;
    if n != nloc as u64 {
        return r.error(format!("{n} locations, the block has {nloc}"));
    }
    let np = r.count(2)?;
    let mut paths = Vec::with_capacity(np);
    for k in 0..np {
        let parent = r.below(k as u64 + 1, "parent path")?;
        let region = r.below(nregions as u64, "region")? as u32;
        paths.push(PathDef { parent: parent.checked_sub(1).map(|p| p as u32), region });
    }
    let mut counts = Vec::with_capacity(nloc);
    for _ in 0..nloc {
        // Each entry takes at least 5 bytes.
        counts.push(r.count(5)?);
    }
    let mut locations = Vec::with_capacity(nloc);
    for n in counts {
        let mut l = Vec::with_capacity(n.min(payload.len() / 5));
        let mut next = 0u64;
        for _ in 0..n {
            let path = next.checked_add(r.varint()?).filter(|&p| p < np as u64);
            let Some(path) = path else { return r.error(format!("a path past the table's {np}")) };
            next = path + 1;
            let f = PathFigures {
                path: path as u32,
                count: r.varint()?,
                open: r.varint()?,
                inclusive_ns: r.varint()?,
                exclusive_ns: r.varint()?,
            };
            if f.exclusive_ns > f.inclusive_ns {
                return r
                    .error(format!("path {path}: exclusive {} ns past inclusive {}", f.exclusive_ns, f.inclusive_ns));
            }
            l.push(f);
        }
        locations.push(l);
    }
    if !r.at_end() {
        return r.error("bytes after the last location");
    }
    Ok(CallPathsTile { paths, locations })
}

/// The windows level `level` (1 the finest)'s tile `j` covers, of `windows` in all.
pub fn tile_windows(level: u32, j: u32, windows: u32) -> std::ops::Range<u32> {
    let per = windows_per_tile(level);
    let start = (j as u64 * per).min(windows as u64) as u32;
    start..((j as u64 + 1) * per).min(windows as u64) as u32
}

/// Level-0 windows per tile at `level`: 4^(level-1) (saturating).
pub fn windows_per_tile(level: u32) -> u64 {
    1u64.checked_shl(2 * level.saturating_sub(1)).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_refusals() {
        let t = CallPathsTile {
            paths: vec![PathDef { parent: None, region: 2 }, PathDef { parent: Some(0), region: 1 }],
            locations: vec![
                vec![
                    PathFigures { path: 0, count: 3, open: 1, inclusive_ns: 90, exclusive_ns: 40 },
                    PathFigures { path: 1, count: 7, open: 0, inclusive_ns: 50, exclusive_ns: 50 },
                ],
                vec![],
            ],
        };
        let bytes = encode_callpaths(&t).buf;
        assert_eq!(decode_callpaths(&bytes, 2, 3).unwrap(), t);
        assert!(decode_callpaths(&bytes, 1, 3).is_err());
        // Region 2 out of range with 2 regions.
        assert!(decode_callpaths(&bytes, 2, 2).is_err());
        for cut in 0..bytes.len() {
            assert!(decode_callpaths(&bytes[..cut], 2, 3).is_err());
        }
        // A root whose parent is itself.
        let mut bad = bytes.clone();
        bad[2] = 1;
        assert!(decode_callpaths(&bad, 2, 3).is_err());
        assert_eq!(tile_windows(1, 3, 10), 3..4);
        assert_eq!(tile_windows(2, 2, 10), 8..10);
        assert_eq!(tile_windows(3, 0, 10), 0..10);
    }
}
