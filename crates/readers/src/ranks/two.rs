//! Two files dropped together: the per-rank files of one run, or two runs to compare (issue #54)? Decided
//! from the files' heads before either is read, so that each run of a comparison is read on its own.
//!
//! Two runs when both are Chrome/Kineto JSON (plain or gzipped) and their heads do not give two distinct
//! ranks (`distributedInfo.rank`): files without rank metadata, or with the same rank, are not the ranks of
//! one run. Any other pair (an OTF2 archive's files, a Paraver trace beside its names, per-rank files with
//! their ranks) stays one input, read as [`crate::open`] reads a set. Must not read past the heads.

use crate::chrome::run_info_of_head;
use crate::{sniff, Sniffed};

/// Whether the two files whose heads (their first bytes, [`crate::chrome::HEAD_BYTES`] are enough) are `a`
/// and `b` are two runs rather than one run's ranks.
pub fn two_runs(a: &[u8], b: &[u8]) -> bool {
    let chrome = |h: &[u8]| matches!(sniff(h), Sniffed::ChromeJson | Sniffed::Gzip);
    if !(chrome(a) && chrome(b)) {
        return false;
    }
    match (run_info_of_head(a).rank, run_info_of_head(b).rank) {
        (Some(x), Some(y)) => x == y,
        _ => true,
    }
}
