//! Perfetto protobuf: the whole-buffer reader, and the streaming reader fed the same bytes in chunks whose sizes
//! come from the input's first byte (a seed for xorshift; sizes 1..=256 bytes).
#![no_main]
use libfuzzer_sys::fuzz_target;
use weft::readers::perfetto::{self, PerfettoStreamReader};

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    let Some((&seed, body)) = data.split_first() else { return };
    let _ = perfetto::read("fuzz.pftrace", body);
    let _ = perfetto::looks_like_trace(body);
    let mut x = 0x9E37_79B9_7F4A_7C15u64 ^ u64::from(seed);
    let mut r = PerfettoStreamReader::new("fuzz.pftrace");
    let mut rest = body;
    while !rest.is_empty() {
        let n = (common::next(&mut x) % 256 + 1) as usize;
        let (chunk, tail) = rest.split_at(n.min(rest.len()));
        if r.feed(chunk).is_err() {
            return;
        }
        rest = tail;
    }
    let _ = r.finish();
});
