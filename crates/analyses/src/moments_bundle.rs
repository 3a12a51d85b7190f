//! The utilization & moments view's data for one busy definition — every location's busy intervals and its
//! moments, rows in location order and the intervals laid out in that order — packed for the trip from the
//! worker, which computes them beside the trace, to the page, which then opens the view without a pass over
//! the trace's intervals on its main thread. Column buffers (`weft_model::columns`: one copy per array, where postcard
//! decoded the busy intervals element by element, 84 ms for a 100 MB trace on the page, issue 16); decoding
//! checks them against the trace they are for, so corrupt or mismatched bytes are an error, never a panic later
//! in the view. Draws nothing.

use super::busy::{BusyDefinition, BusyIntervals};
use super::moments::{moments_of_busy, sort_moments, LocationMoments, MomentKey};
use serde::{Deserialize, Serialize};
use thiserror::Error;
use weft_model::columns::{ColumnReader, ColumnWriter};
use weft_model::{LocationId, Trace};

const MAGIC: &[u8; 8] = b"WEFTMOM1";

#[derive(Debug, Error, PartialEq)]
pub enum MomentsBundleError {
    #[error("moments buffer corrupt: {0}")]
    Corrupt(String),
    #[error("moments buffer does not fit the trace: {0}")]
    Mismatch(String),
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MomentsBundle {
    /// The definition `busy` was computed under (also in `busy`, kept first for a cheap look).
    pub definition: BusyDefinition,
    /// Busy intervals of every location, laid out in the order of `rows`.
    pub busy: BusyIntervals,
    /// Every location's moments, sorted by location.
    pub rows: Vec<LocationMoments>,
}

impl MomentsBundle {
    /// What the view shows first under `definition`: all locations, sorted by location.
    pub fn compute(trace: &Trace, definition: &BusyDefinition) -> Self {
        let mut busy = BusyIntervals::compute(trace, definition);
        let mut rows = moments_of_busy(trace, &busy, None);
        sort_moments(&mut rows, MomentKey::Location);
        busy.arrange(rows.iter().map(|m| LocationId(m.location)));
        MomentsBundle { definition: definition.clone(), busy, rows }
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut w = ColumnWriter::new(MAGIC);
        w.col(&postcard::to_allocvec(&self.definition).unwrap_or_default());
        let (ranges, spans) = self.busy.columns();
        w.col(&ranges);
        w.col(&spans);
        let r = &self.rows;
        w.col(&r.iter().map(|m| m.location).collect::<Vec<u32>>());
        w.strings(&r.iter().map(|m| m.name.clone()).collect::<Vec<String>>());
        w.col(&r.iter().map(|m| m.m0_ns).collect::<Vec<u64>>());
        for f in [|m: &LocationMoments| m.m1_ns, |m: &LocationMoments| m.m2_ns, |m: &LocationMoments| m.m3_ns] {
            w.col(&r.iter().map(f).collect::<Vec<f64>>());
        }
        w.finish()
    }

    /// The columns of `bytes`, unchecked against a trace.
    fn read(bytes: &[u8]) -> Result<Self, weft_model::columns::ColumnError> {
        let mut r = ColumnReader::new(bytes, MAGIC)?;
        let at = r.at();
        let def: Vec<u8> = r.col("the busy definition")?;
        let definition = postcard::from_bytes(&def).map_err(|e| r.error(at, e.to_string()))?;
        let at = r.at();
        let ranges: Vec<[u64; 2]> = r.col("busy ranges")?;
        let spans: Vec<[u64; 2]> = r.col("busy intervals")?;
        let busy = BusyIntervals::from_columns(definition, &ranges, &spans).map_err(|e| r.error(at, e))?;
        let at = r.at();
        let location: Vec<u32> = r.col("row locations")?;
        let name = r.strings("row names")?;
        let m0: Vec<u64> = r.col("m0")?;
        let (m1, m2, m3): (Vec<f64>, Vec<f64>, Vec<f64>) = (r.col("m1")?, r.col("m2")?, r.col("m3")?);
        r.end()?;
        let n = location.len();
        if [name.len(), m0.len(), m1.len(), m2.len(), m3.len()].iter().any(|&k| k != n) {
            return Err(r.error(at, "row columns of unequal lengths"));
        }
        let rows = (0..n)
            .zip(name)
            .map(|(i, name)| LocationMoments {
                location: location[i],
                name,
                m0_ns: m0[i],
                m1_ns: m1[i],
                m2_ns: m2[i],
                m3_ns: m3[i],
            })
            .collect();
        Ok(MomentsBundle { definition: busy.definition.clone(), busy, rows })
    }

    /// The bundle in `bytes`, checked against `trace` (the trace it must belong to).
    pub fn decode(bytes: &[u8], trace: &Trace) -> Result<Self, MomentsBundleError> {
        let b = Self::read(bytes).map_err(|e| MomentsBundleError::Corrupt(e.to_string()))?;
        let n = trace.locations.len();
        if b.rows.len() != n || b.busy.location_count() != n {
            return Err(MomentsBundleError::Mismatch(format!(
                "{} rows and busy intervals of {} locations for a trace of {n}",
                b.rows.len(),
                b.busy.location_count()
            )));
        }
        if b.busy.definition != b.definition {
            return Err(MomentsBundleError::Corrupt("two busy definitions".into()));
        }
        b.busy.check(n).map_err(MomentsBundleError::Corrupt)?;
        let mut seen = vec![false; n];
        for m in &b.rows {
            let l = m.location as usize;
            if l >= n || std::mem::replace(&mut seen[l], true) {
                return Err(MomentsBundleError::Corrupt(format!("row of location {l} outside the trace or twice")));
            }
        }
        Ok(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trace() -> Trace {
        weft_samples::utilization::utilization_trace(8, 8 * 61)
    }

    #[test]
    fn round_trips_what_the_view_computes() {
        let t = trace();
        for def in [BusyDefinition::Compute, BusyDefinition::Any, BusyDefinition::Pattern("*comp*".into())] {
            let b = MomentsBundle::compute(&t, &def);
            let back = MomentsBundle::decode(&b.encode(), &t).expect("decodes");
            assert_eq!(back.definition, def);
            assert_eq!(back.rows, b.rows);
            assert_eq!(back.busy.total_spans(), b.busy.total_spans());
            for l in 0..t.locations.len() as u32 {
                assert_eq!(back.busy.of(LocationId(l)), b.busy.of(LocationId(l)));
            }
        }
        let b = MomentsBundle::compute(&t, &BusyDefinition::Compute);
        assert!(b.busy.total_spans() > 0, "the sample has busy time");
        assert!(b.rows.windows(2).all(|w| w[0].location < w[1].location));
    }

    #[test]
    fn truncated_or_flipped_bytes_are_errors_not_panics() {
        let t = trace();
        let bytes = MomentsBundle::compute(&t, &BusyDefinition::Compute).encode();
        for cut in 0..bytes.len() {
            assert!(MomentsBundle::decode(&bytes[..cut], &t).is_err(), "cut at {cut}");
        }
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..3000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let mut b = bytes.clone();
            let i = (x % b.len() as u64) as usize;
            b[i] ^= (x >> 32) as u8 | 1;
            if let Ok(m) = MomentsBundle::decode(&b, &t) {
                // What passed the checks can be read as the view reads it.
                for l in 0..t.locations.len() as u32 {
                    let _ = m.busy.busy_ns(LocationId(l));
                }
            }
        }
    }

    #[test]
    fn a_bundle_for_another_trace_is_refused() {
        let t = trace();
        let other = weft_samples::utilization::utilization_trace(5, 5 * 61);
        assert_ne!(t.locations.len(), other.locations.len());
        let bytes = MomentsBundle::compute(&t, &BusyDefinition::Compute).encode();
        assert!(matches!(MomentsBundle::decode(&bytes, &other), Err(MomentsBundleError::Mismatch(_))));
    }
}
