//! The critical path of a store (format 7, issue #53; docs/store-format.md, "critical path"): computed by
//! `weft index --waits` once the wait states are known (`weft_index::critical_path`), kept as the manifest's
//! `critical_path` (what `weft critical-path --json` prints, and the path's segment count) and as one path
//! tile per location block (`r/b{B}`: the path's segments on the block's locations, by location and start),
//! so `weft critical-path STORE` answers from the manifest and the page draws the path from the tiles.
//!
//! Plain Rust, no files: the page's worker decodes the same tiles.

use crate::format::columns::{ColumnError, ColumnReader, ColumnWriter};
use crate::format::manifest::Manifest;
use serde::{Deserialize, Serialize};
use std::ops::Range;
use weft_analyses::diagnosis::critical_path::{PathReport, PathSegment};
use weft_model::LocationId;

/// The manifest's `critical_path` (format 7 with `--waits`; absent before, without `--waits` and in a part).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PathSummary {
    /// The report `weft critical-path TRACE --json` prints of the trace.
    #[serde(flatten)]
    pub report: PathReport,
    /// How many segments the path has (the path tiles' records add up to it).
    pub segments: u64,
}

impl PathSummary {
    /// Checked against the manifest: one time per location, adding up to the length, the span.
    pub fn check(&self, m: &Manifest) -> Result<(), String> {
        let r = &self.report;
        if r.by_location.len() != m.locations.process.len() {
            return Err(format!(
                "critical_path: {} location times, the store has {} locations",
                r.by_location.len(),
                m.locations.process.len()
            ));
        }
        let sum = r.by_location.iter().try_fold(0u64, |a, &b| a.checked_add(b));
        if sum != Some(r.length_ns) || r.length_ns != m.span_ns {
            return Err(format!(
                "critical_path: its locations' times do not add up to its length {} and the span {}",
                r.length_ns, m.span_ns
            ));
        }
        Ok(())
    }
}

/// The path tile of a block of locations `locs`: `segments` (on its locations) sorted by location, then
/// start.
pub fn encode_path(segments: &[PathSegment], locs: &Range<u32>) -> ColumnWriter {
    let mut w = ColumnWriter::default();
    w.varint(segments.len() as u64);
    for s in segments {
        w.varint((s.location.0 - locs.start) as u64);
    }
    let mut prev = 0u64;
    for s in segments {
        w.signed(s.start_ns.wrapping_sub(prev) as i64);
        prev = s.start_ns;
    }
    for s in segments {
        w.varint(s.end_ns - s.start_ns);
    }
    w
}

/// A path tile's segments ([`encode_path`] wrote them), each inside the span and of the block's locations.
pub fn decode_path(payload: &[u8], locs: Range<u32>, m: &Manifest) -> Result<Vec<PathSegment>, ColumnError> {
    let mut r = ColumnReader::new(payload);
    let n = r.count(3)?;
    let loc: Vec<u64> = (0..n).map(|_| r.below(locs.len() as u64, "location")).collect::<Result<_, _>>()?;
    let mut start = Vec::with_capacity(n);
    let mut prev = 0u64;
    for _ in 0..n {
        let d = r.signed()?;
        prev = r.add(prev, d)?;
        start.push(prev);
    }
    let mut out = Vec::with_capacity(n);
    for (k, &s) in start.iter().enumerate() {
        let d = r.varint()?;
        let end = match s.checked_add(d) {
            Some(e) if e <= m.span_ns && d > 0 => e,
            _ => return r.error(format!("a segment [{s}, +{d}] empty or past the span {}", m.span_ns)),
        };
        out.push(PathSegment { location: LocationId(locs.start + loc[k] as u32), start_ns: s, end_ns: end });
    }
    if !r.at_end() {
        return r.error("bytes after the last column");
    }
    Ok(out)
}
