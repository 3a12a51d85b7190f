//! Paraver: the input holds the .prv, then optionally `\n%%pcf\n` and the .pcf, then `\n%%row\n` and the .row.
#![no_main]
use libfuzzer_sys::fuzz_target;
use weft::readers::paraver;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    let (prv, rest) = match common::split(data, b"\n%%pcf\n", 2).as_slice() {
        [prv, rest] => (*prv, Some(*rest)),
        [prv] => (*prv, None),
        _ => return,
    };
    let (pcf, row) = match rest.map(|r| common::split(r, b"\n%%row\n", 2)).as_deref() {
        Some([pcf, row]) => (Some(*pcf), Some(*row)),
        Some([pcf]) => (Some(*pcf), None),
        _ => (None, None),
    };
    let _ = paraver::read("fuzz.prv", prv, pcf, row);
});
