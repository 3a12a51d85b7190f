//! The worker->page trace buffer: decoding any bytes is an error or a trace, never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = weft::model::codec::decode(data);
});
