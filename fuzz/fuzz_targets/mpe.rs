//! MPE/Jumpshot readers: the input goes to the SLOG-2, CLOG2, old CLOG and RLOG readers alike (each must refuse or
//! read any bytes without a panic, a hang or an allocation from a length field).
#![no_main]
use libfuzzer_sys::fuzz_target;
use weft::readers::mpe;

fuzz_target!(|data: &[u8]| {
    let _ = mpe::slog2::read("fuzz.slog2", data);
    let _ = mpe::clog2::read("fuzz.clog2", data);
    let _ = mpe::clog::read("fuzz.clog", data);
    let _ = mpe::rlog::read("fuzz.rlog", data);
});
