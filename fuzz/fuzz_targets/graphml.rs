//! GraphML grain graphs: read, then analysed (cycles, duplicate ids and dangling edges are found there).
#![no_main]
use libfuzzer_sys::fuzz_target;
use weft::analyses::grains::{GrainAnalysis, Thresholds};
use weft::model::grains::Grains;
use weft::readers::graphml;

fuzz_target!(|data: &[u8]| {
    if let Ok(g) = graphml::read("fuzz.graphml", data) {
        let _ = GrainAnalysis::new(&Grains::Graph(graphml::grains(&g)), Thresholds::paper());
    }
});
