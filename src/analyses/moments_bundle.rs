//! The utilization & moments view's data for one busy definition — every location's busy intervals and its
//! moments, rows in location order and the intervals laid out in that order — packed for the trip from the
//! worker, which computes them beside the trace, to the page, which then opens the view without a pass over
//! the trace's intervals on its main thread. postcard bytes; decoding checks them against the trace they are
//! for, so corrupt or mismatched bytes are an error, never a panic later in the view. Draws nothing.

use super::busy::{BusyDefinition, BusyIntervals};
use super::moments::{moments_of_busy, sort_moments, LocationMoments, MomentKey};
use crate::model::{LocationId, Trace};
use serde::{Deserialize, Serialize};
use thiserror::Error;

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
        postcard::to_allocvec(self).unwrap_or_default()
    }

    /// The bundle in `bytes`, checked against `trace` (the trace it must belong to).
    pub fn decode(bytes: &[u8], trace: &Trace) -> Result<Self, MomentsBundleError> {
        let b: MomentsBundle = postcard::from_bytes(bytes).map_err(|e| MomentsBundleError::Corrupt(e.to_string()))?;
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
        crate::samples::utilization::utilization_trace(8, 8 * 61)
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
        let other = crate::samples::utilization::utilization_trace(5, 5 * 61);
        assert_ne!(t.locations.len(), other.locations.len());
        let bytes = MomentsBundle::compute(&t, &BusyDefinition::Compute).encode();
        assert!(matches!(MomentsBundle::decode(&bytes, &other), Err(MomentsBundleError::Mismatch(_))));
    }
}
