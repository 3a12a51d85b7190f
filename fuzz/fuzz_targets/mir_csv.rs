//! MIR task-stats CSV: read, then built into a grain graph and analysed (cycles and dangling parents live there).
#![no_main]
use libfuzzer_sys::fuzz_target;
use weft::analyses::grains::{GrainAnalysis, Thresholds};
use weft::model::grains::Grains;
use weft::readers::mir;

fuzz_target!(|data: &[u8]| {
    if let Ok(p) = mir::read("fuzz.csv", data) {
        let _ = GrainAnalysis::new(&Grains::Profile(p), Thresholds::paper());
    }
});
