//! Store manifests and the parts `weft merge` joins (issue #51): any manifest.json is refused or opened and
//! read without a panic; any part.json files are refused or merged into a manifest a reader accepts.
//! Seeds: forged manifests and parts (`cargo run --example fuzz_seeds -- fuzz/corpus` writes them to
//! `fuzz/corpus/store_manifest`). The same entry runs over mutated forgeries in tests/store_hostile.rs.
#![no_main]
use libfuzzer_sys::fuzz_target;

#[path = "store_manifest_entry.rs"]
mod entry;

fuzz_target!(|data: &[u8]| {
    entry::run(data);
});
