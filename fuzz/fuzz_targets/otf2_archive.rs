//! OTF2: the small generated archive (crates/samples/src/otf2.rs) with one of its files replaced by the fuzz input.
//! The first byte picks the file (low 2 bits: anchor, definitions, event file 0 or 1), the byte order (bit 2),
//! and whether event file 1 is missing (bit 3). Seeds are the archive's real files (`seeds` writes them).
#![no_main]
use libfuzzer_sys::fuzz_target;
use weft::readers::otf2::read_archive_full;
use weft::samples::otf2::small_archive;

const FILES: [&str; 4] = ["traces.otf2", "traces.def", "traces/0.evt", "traces/1.evt"];

fuzz_target!(|data: &[u8]| {
    let Some((&pick, body)) = data.split_first() else { return };
    let mut m = small_archive(pick & 4 != 0);
    m.insert(FILES[usize::from(pick & 3)], body.to_vec());
    if pick & 8 != 0 {
        m.files.remove("traces/1.evt");
    }
    let _ = read_archive_full("traces.otf2", &m);
});
