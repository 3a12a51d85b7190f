//! The moments tile (`m/b{B}`): per location of a block, the moment accumulators of its busy time (compute,
//! then any). Its codec: the index writes it with [`encode_moments`], a reader takes it back with
//! [`decode_moments`].

use crate::format::columns::{ColumnError, ColumnReader, ColumnWriter};
use weft_analyses::moments::MomentAccumulator;

/// The moments tile of a block's locations, each's accumulators (compute, then any) in location order.
pub fn encode_moments(locations: &[[MomentAccumulator; 2]]) -> ColumnWriter {
    let mut w = ColumnWriter::default();
    w.varint(locations.len() as u64);
    for acc in locations.iter().flatten() {
        let (reference, m0, mean, c2, c3) = acc.to_parts();
        w.signed(reference);
        w.varint(m0);
        w.varint(mean.to_bits());
        w.varint(c2.to_bits());
        w.varint(c3.to_bits());
    }
    w
}

/// A moments tile's accumulators for `nloc` locations ([`encode_moments`] wrote it).
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
