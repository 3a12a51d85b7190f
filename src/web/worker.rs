//! The worker's side: a file arrives in chunks (File.slice), is read into a model, and leaves as one encoded
//! buffer for the page. Runs off the main thread, so a 100 MB file never freezes the page.

use crate::analyses::summary::summarize;
use crate::model::codec;
use crate::readers::chrome::ChromeStreamReader;
use crate::readers::{self, ReadError, Sniffed};
use wasm_bindgen::prelude::*;

fn js_err(e: ReadError) -> JsValue {
    JsValue::from_str(&e.to_string())
}

enum Reading {
    /// Nothing fed yet: the first chunk decides the reader.
    Start,
    /// Chrome JSON (plain or gzipped) is parsed as it streams in; only the unparsed tail is held.
    Chrome(Box<ChromeStreamReader>),
    /// Other formats are read whole at the end.
    Whole(Vec<u8>),
}

/// One file being read.
#[wasm_bindgen]
pub struct WorkerSession {
    name: String,
    reading: Reading,
    consumed: u64,
    expected: u64,
}

#[wasm_bindgen]
impl WorkerSession {
    /// `size` is the file's size in bytes, for buffers and progress.
    #[wasm_bindgen(constructor)]
    pub fn new(name: String, size: f64) -> WorkerSession {
        let expected = if size.is_finite() && size > 0.0 { size as u64 } else { 0 };
        WorkerSession { name, reading: Reading::Start, consumed: 0, expected }
    }

    /// The next chunk of the file, in order.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<(), JsValue> {
        if let Reading::Start = self.reading {
            self.reading = match readers::sniff(chunk) {
                Sniffed::ChromeJson | Sniffed::Gzip => Reading::Chrome(Box::new(ChromeStreamReader::new(&self.name))),
                _ => Reading::Whole(Vec::with_capacity(self.expected.min(1 << 31) as usize)),
            };
        }
        self.consumed += chunk.len() as u64;
        match &mut self.reading {
            Reading::Chrome(r) => r.feed(chunk).map_err(js_err),
            Reading::Whole(v) => {
                v.extend_from_slice(chunk);
                Ok(())
            }
            Reading::Start => Ok(()),
        }
    }

    pub fn consumed(&self) -> f64 {
        self.consumed as f64
    }

    /// Read what was fed; returns the encoded model.
    pub fn finish(&mut self) -> Result<Vec<u8>, JsValue> {
        let trace = match std::mem::replace(&mut self.reading, Reading::Start) {
            Reading::Chrome(r) => r.finish().map_err(js_err)?,
            Reading::Whole(bytes) => readers::read_bytes(&self.name, &bytes).map_err(js_err)?,
            Reading::Start => readers::read_bytes(&self.name, &[]).map_err(js_err)?,
        };
        if trace.intervals.is_empty() && trace.instants.time_ns.is_empty() && trace.counters.sample_time_ns.is_empty() {
            return Err(JsValue::from_str(&format!(
                "{}: the trace holds no intervals, instants or counters to show",
                self.name
            )));
        }
        Ok(codec::encode(&trace))
    }
}

/// The built-in sample the page opens with, encoded for the viewer.
#[wasm_bindgen]
pub fn sample_trace() -> Result<Vec<u8>, JsValue> {
    let bytes = crate::samples::builtin_chrome_json();
    let trace = readers::read_bytes("sample.json", &bytes).map_err(js_err)?;
    Ok(codec::encode(&trace))
}

/// Summary of an encoded model as JSON (the same keys as `weft info --json`).
#[wasm_bindgen]
pub fn summary_json(model: &[u8]) -> Result<String, JsValue> {
    let trace = codec::decode(model).map_err(|e| JsValue::from_str(&e.to_string()))?;
    serde_json::to_string(&summarize(&trace, 10)).map_err(|e| JsValue::from_str(&e.to_string()))
}
