//! The execution-graph text format (thread events), through the sniffing entry point.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = weft::readers::execgraph_text::parse("fuzz.txt", data);
    if let Ok(input) = weft::readers::open("fuzz.txt", weft::readers::Source::Bytes(data)) {
        let _ = input.into_thread_events("fuzz.txt");
    }
});
