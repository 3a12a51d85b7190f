//! Nsight Systems: the SQLite export reader (with the generic SQLite page walker under it) and the `nsys stats`
//! NVTX CSV reader. The first byte picks which; the rest is the file.
#![no_main]
use libfuzzer_sys::fuzz_target;
use weft::readers::nsys;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, file)) = data.split_first() else { return };
    if pick & 1 == 0 {
        let _ = nsys::read("fuzz.sqlite", file);
    } else {
        let _ = nsys::csv::read("fuzz.csv", file);
    }
});
