//! Format sniffing and the one way in that dispatches on it (any bytes, any reader it picks, every view).
#![no_main]
use libfuzzer_sys::fuzz_target;
use weft::readers;

fuzz_target!(|data: &[u8]| {
    let _ = readers::sniff(data);
    if let Ok(input) = readers::open("fuzz.bin", readers::Source::Bytes(data)) {
        let _ = input.into_grains("fuzz.bin");
    }
});
