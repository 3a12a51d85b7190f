//! Format sniffing and the entry points that dispatch on it (any bytes, any reader it picks).
#![no_main]
use libfuzzer_sys::fuzz_target;
use weft::readers;

fuzz_target!(|data: &[u8]| {
    let _ = readers::sniff(data);
    let _ = readers::read_bytes("fuzz.bin", data);
    let _ = readers::read_grains("fuzz.bin", data);
});
