//! What the head of a Chrome/Kineto JSON file says of its run (`distributedInfo`, `baseTimeNanoseconds`),
//! without reading its events: for telling per-rank files of one run from two runs before either is read
//! (`crate::ranks::two_runs`). Kineto writes `distributedInfo` before `traceEvents`, so the first bytes hold
//! it. Must not build a trace.

use super::stream::{DocumentWalker, EventSink, RunInfo};
use crate::chrome::scanner::RawEvent;
use std::io::Read;

/// At most this many (decompressed) bytes of a head are walked.
pub const HEAD_BYTES: usize = 1 << 20;

struct Ignore;

impl EventSink for Ignore {
    fn event(&mut self, _ev: &RawEvent, _offset: u64) {}
}

/// The run metadata found in the first [`HEAD_BYTES`] of `head` (plain or gzipped JSON); what the head does
/// not hold (or holds broken) stays unknown.
pub fn run_info_of_head(head: &[u8]) -> RunInfo {
    let plain;
    let bytes = if head.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        let _ = flate2::read::MultiGzDecoder::new(head).take(HEAD_BYTES as u64).read_to_end(&mut out);
        plain = out;
        &plain[..]
    } else {
        &head[..head.len().min(HEAD_BYTES)]
    };
    let mut walker = DocumentWalker::default();
    let _ = walker.feed(bytes, &mut Ignore);
    walker.run
}
