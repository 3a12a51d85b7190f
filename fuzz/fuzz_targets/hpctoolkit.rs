//! HPCToolkit database: the input holds meta.db, then `%%next%%` and profile.db, then `%%next%%` and trace.db.
#![no_main]
use libfuzzer_sys::fuzz_target;
use weft::readers::hpctoolkit;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    let parts = common::split(data, b"%%next%%", 3);
    let (meta, profile, trace) = match parts.as_slice() {
        [m, p, t] => (*m, Some(*p), Some(*t)),
        [m, t] => (*m, None, Some(*t)),
        [m] => (*m, None, None),
        _ => return,
    };
    let _ = hpctoolkit::read("fuzz", ("meta.db", meta), profile.map(|p| ("profile.db", p)), trace.map(|t| ("trace.db", t)));
});
