//! The summary tile (`s/l{L}/b{B}/t{J}`): a location block's [`Bins`] at one pyramid level, column by column
//! ([`COLUMNS`]), then per location its lanes. Its codec: the index writes it with [`encode_summary`], a
//! reader takes it back with [`decode_summary`].

use crate::format::columns::{ColumnError, ColumnReader, ColumnWriter};
use crate::pyramid::{Bins, COLUMNS, FULL_COVER, MAX_SUMMARY_LANES};

/// The summary tile of bins `range` of a block's locations' `bins` (one level, location order), format 3:
/// the counts, each column's bins location by location, then each location's lanes, then per location and
/// lane its regions and covers.
pub fn encode_summary(bins: &[Bins], range: std::ops::Range<usize>) -> ColumnWriter {
    let mut w = ColumnWriter::default();
    w.varint(bins.len() as u64);
    w.varint(range.len() as u64);
    for c in 0..COLUMNS.len() {
        for b in bins {
            for i in range.clone() {
                w.varint(b.get(c, i));
            }
        }
    }
    bins.iter().for_each(|b| w.varint(b.lanes as u64));
    for b in bins {
        for d in 0..b.lanes as usize {
            range.clone().for_each(|i| w.varint(b.lane(d, i).0 as u64));
            range.clone().for_each(|i| w.varint(b.lane(d, i).1 as u64));
        }
    }
    w
}

/// A summary tile of `nloc` locations ([`encode_summary`] wrote it); `lanes`: per location the lanes a format-3 tile holds (None where the
/// manifest does not say: at most [`MAX_SUMMARY_LANES`]), None for a format-2 tile (no lanes).
pub fn decode_summary(
    payload: &[u8],
    nregions: usize,
    lanes: Option<&[Option<u32>]>,
    nloc: usize,
) -> Result<Vec<Bins>, ColumnError> {
    let mut r = ColumnReader::new(payload);
    if r.varint()? != nloc as u64 {
        return r.error("location count differs from the block's");
    }
    let bins = r.count(COLUMNS.len() * nloc.max(1))?;
    let mut out = vec![Bins::zeros(bins); nloc];
    for c in 0..COLUMNS.len() {
        for b in out.iter_mut() {
            for i in 0..bins {
                let v = r.varint()?;
                match c {
                    0 => b.busy_compute_ns[i] = v,
                    1 => b.busy_any_ns[i] = v,
                    2 => {
                        if v > nregions as u64 {
                            return r.error(format!("dominant region {v} out of range"));
                        }
                        b.dominant_region[i] = v as u32
                    }
                    3 => b.dominant_ns[i] = v,
                    4 => b.events[i] = v,
                    5 => b.messages[i] = v,
                    _ => b.message_bytes[i] = v,
                }
            }
        }
    }
    if let Some(expected) = lanes {
        for (b, want) in out.iter_mut().zip(expected) {
            let n = r.varint()?;
            if n > MAX_SUMMARY_LANES as u64 || want.is_some_and(|w| w as u64 != n) {
                return r.error(format!("{n} lanes, the manifest says {}", want.unwrap_or(MAX_SUMMARY_LANES as u32)));
            }
            // At most MAX_SUMMARY_LANES lanes of a tile's bins (checked above): a bounded allocation.
            b.set_lanes(n as u32);
        }
        for b in out.iter_mut() {
            for d in 0..b.lanes as usize {
                let at = d * bins;
                for i in 0..bins {
                    let v = r.varint()?;
                    if v > nregions as u64 {
                        return r.error(format!("lane {d}'s region {v} out of range"));
                    }
                    b.lane_region[at + i] = v as u32;
                }
                for i in 0..bins {
                    let v = r.varint()?;
                    if v > FULL_COVER as u64 {
                        return r.error(format!("lane {d}'s cover {v} out of range"));
                    }
                    b.lane_cover[at + i] = v as u8;
                }
            }
        }
    }
    if !r.at_end() {
        return r.error("bytes after the last column");
    }
    Ok(out)
}
