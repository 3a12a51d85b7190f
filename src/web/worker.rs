//! The worker's side: a file arrives in chunks (File.slice), is read into a model, and leaves as one encoded
//! buffer for the page. Runs off the main thread, so a 100 MB file never freezes the page.

use crate::analyses::execgraph::{build, ExecGraph};
use crate::analyses::grains::{GrainAnalysis, Thresholds};
use crate::analyses::summary::summarize;
use crate::layouts::execgraph::bundle::{scale_for_min_px, ExecBundle, ExecFigures};
use crate::layouts::execgraph::Scale;
use crate::layouts::grain_bundle::GrainBundle;
use crate::layouts::grains::{layout as grain_layout, LayoutParams};
use crate::model::{codec, Trace};
use crate::readers::chrome::ChromeStreamReader;
use crate::readers::otf2::MemoryFiles;
use crate::readers::{self, archive, paraver, ReadError, Sniffed};
use crate::samples::execgraph::sample as execgraph_sample;
use std::cell::RefCell;
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
                Sniffed::Gzip
                    if archive::is_tar(&archive::gunzip_head(chunk, 512)) || paraver::is_gzipped_prv(chunk) =>
                {
                    Reading::Whole(Vec::with_capacity(self.expected.min(1 << 31) as usize))
                }
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

    /// Read what was fed; returns `{kind, model, summary}` (see [`Loaded`]).
    pub fn finish(&mut self) -> Result<JsValue, JsValue> {
        let trace = match std::mem::replace(&mut self.reading, Reading::Start) {
            Reading::Chrome(r) => r.finish().map_err(js_err)?,
            Reading::Whole(bytes) if readers::sniff(&bytes) == Sniffed::ExecGraphText => {
                let events = readers::read_execgraph(&self.name, &bytes).map_err(js_err)?;
                let graph = build(&events).map_err(|e| JsValue::from_str(&format!("{}: {e}", self.name)))?;
                return Ok(execgraph_loaded(graph));
            }
            Reading::Whole(bytes) if matches!(readers::sniff(&bytes), Sniffed::MirTaskStats | Sniffed::GraphMl) => {
                return grains_loaded(&self.name, &bytes);
            }
            Reading::Whole(bytes) => readers::read_bytes(&self.name, &bytes).map_err(js_err)?,
            Reading::Start => readers::read_bytes(&self.name, &[]).map_err(js_err)?,
        };
        if trace.intervals.is_empty() && trace.instants.time_ns.is_empty() && trace.counters.sample_time_ns.is_empty() {
            return Err(JsValue::from_str(&format!(
                "{}: the trace holds no intervals, instants or counters to show",
                self.name
            )));
        }
        Ok(trace_loaded(&trace))
    }
}

/// Files dropped together (an OTF2 archive folder), added one by one with their paths in the folder.
#[wasm_bindgen]
pub struct FileSet {
    name: String,
    files: MemoryFiles,
}

#[wasm_bindgen]
impl FileSet {
    #[wasm_bindgen(constructor)]
    pub fn new(name: String) -> FileSet {
        FileSet { name, files: MemoryFiles::new() }
    }

    pub fn add(&mut self, path: &str, bytes: Vec<u8>) {
        self.files.insert(path, bytes);
    }

    pub fn finish(&mut self) -> Result<JsValue, JsValue> {
        let files = std::mem::take(&mut self.files);
        let trace = readers::read_file_set(&self.name, &files).map_err(js_err)?;
        drop(files);
        Ok(trace_loaded(&trace))
    }
}

thread_local! {
    /// The last execution graph read, so a new minimum edge length lays it out again without re-reading.
    static LAST_GRAPH: RefCell<Option<ExecGraph>> = const { RefCell::new(None) };
}

/// What the worker hands the page: `kind` ("trace" or "execgraph"), `model` (bytes the Viewer loads) and
/// `summary` (JSON for the header).
fn loaded(kind: &str, model: Vec<u8>, summary: String) -> JsValue {
    let o = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&o, &"kind".into(), &kind.into());
    let _ = js_sys::Reflect::set(&o, &"model".into(), &js_sys::Uint8Array::from(&model[..]).into());
    let _ = js_sys::Reflect::set(&o, &"summary".into(), &summary.into());
    o.into()
}

fn trace_loaded(trace: &Trace) -> JsValue {
    let summary = serde_json::to_string(&summarize(trace, 10)).unwrap_or_default();
    loaded("trace", codec::encode(trace), summary)
}

fn execgraph_loaded(graph: ExecGraph) -> JsValue {
    let bundle = ExecBundle::new(graph, Scale::True);
    let summary = serde_json::to_string(&ExecFigures::of(&bundle.graph, &bundle.layout)).unwrap_or_default();
    let model = bundle.encode();
    LAST_GRAPH.with(|g| *g.borrow_mut() = Some(bundle.graph));
    loaded("execgraph", model, summary)
}

/// A grain graph (MIR task stats or the prototype's GraphML): read, measured and laid out here.
fn grains_loaded(name: &str, bytes: &[u8]) -> Result<JsValue, JsValue> {
    let input = readers::read_grains(name, bytes).map_err(js_err)?;
    let analysis =
        GrainAnalysis::new(&input, Thresholds::paper()).map_err(|e| JsValue::from_str(&format!("{name}: {e}")))?;
    drop(input);
    let layout = grain_layout(&analysis.graph, &LayoutParams::default());
    let problems: serde_json::Map<String, serde_json::Value> =
        analysis.problems.iter().map(|p| (p.metric.to_string(), p.count.into())).collect();
    let summary = serde_json::json!({
        "grains": analysis.graph.grains(), "nodes": analysis.graph.nodes(), "edges": analysis.graph.edge_source.len(),
        "critical_path_length": analysis.critical.length, "problems": problems,
    });
    Ok(loaded("grains", GrainBundle::new(analysis, layout).encode(), summary.to_string()))
}

/// Lay the last execution graph out again, short edges raised to `min_px` of an 800 px drawing (0: true scale).
#[wasm_bindgen]
pub fn relayout_execgraph(min_px: f64) -> Result<JsValue, JsValue> {
    let graph = LAST_GRAPH.with(|g| g.borrow().clone()).ok_or("no execution graph was read")?;
    let scale = scale_for_min_px(&graph, min_px);
    let bundle = ExecBundle::new(graph, scale);
    let summary = serde_json::to_string(&ExecFigures::of(&bundle.graph, &bundle.layout)).unwrap_or_default();
    Ok(loaded("execgraph", bundle.encode(), summary))
}

/// A built-in sample: `timeline` (the generated MPI + threads trace the page opens with) or one of the
/// execution-graph samples of the TreVis paper (`fib`, `rsa`, `mergesort`).
#[wasm_bindgen]
pub fn sample(name: &str) -> Result<JsValue, JsValue> {
    if name == "timeline" {
        let bytes = crate::samples::builtin_chrome_json();
        let trace = readers::read_bytes("sample.json", &bytes).map_err(js_err)?;
        return Ok(trace_loaded(&trace));
    }
    if name == "particles" {
        let trace =
            readers::read_bytes("particles.json", &crate::samples::particles::builtin_json()).map_err(js_err)?;
        return Ok(trace_loaded(&trace));
    }
    if name == "grains" {
        return grains_loaded("fib-sample.csv", &crate::samples::grains::fib_profile(30, 8, 16));
    }
    let events = execgraph_sample(name).ok_or_else(|| format!("no sample named '{name}'"))?;
    let graph = build(&events).map_err(|e| JsValue::from_str(&e.to_string()))?;
    Ok(execgraph_loaded(graph))
}
