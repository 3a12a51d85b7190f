//! The moments tile (`m/b{B}`): per location of a block, the moment accumulators of its busy time (compute,
//! then any). This is the decode side; the index writes it (`build::summary_tiles`).

use crate::format::columns::{ColumnError, ColumnReader};
use weft_analyses::moments::MomentAccumulator;

/// A moments tile's accumulators for `nloc` locations.
pub fn decode_moments(payload: &[u8], nloc: usize) -> Result<Vec<[MomentAccumulator; 2]>, ColumnError> {
    let mut r = ColumnReader::new(payload);
    let n = r.varint()?;
    if n != nloc as u64 {
        return r.error(format!("{n} locations, the block has {nloc}"));
    }
    let mut out = Vec::with_capacity(nloc);
    for _ in 0..nloc {
        let mut one = || -> Result<MomentAccumulator, ColumnError> {
            let reference = r.signed()?;
            let m0 = r.varint()?;
            let f = |v: u64| f64::from_bits(v);
            let (mean, c2, c3) = (f(r.varint()?), f(r.varint()?), f(r.varint()?));
            Ok(MomentAccumulator::from_parts(reference, m0, mean, c2, c3))
        };
        out.push([one()?, one()?]);
    }
    if !r.at_end() {
        return r.error("bytes after the last location");
    }
    Ok(out)
}
