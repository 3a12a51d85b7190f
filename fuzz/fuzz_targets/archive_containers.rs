//! Zip, tar and tar.gz containers: unpacked within a 16 MiB budget, then read as an OTF2 archive.
#![no_main]
use libfuzzer_sys::fuzz_target;
use weft::readers::archive;

fuzz_target!(|data: &[u8]| {
    let _ = archive::read_archive_bytes("fuzz.zip", data, 16 << 20);
});
