//! The worker's side: a file arrives in chunks (File.slice), is read into a model, and leaves as one encoded
//! buffer for the page, with what the page's other views need built here too (a trace's moments, a grain
//! graph's aggregation), so the page's main thread only decodes. Runs off the main thread, so a 100 MB file
//! never freezes the page.
//!
//! Held to the budget as it streams, not only from a size given in advance: a download without a
//! Content-Length is refused once what it holds (a file read whole, or the Chrome reader's unparsed tail) passes
//! the budget, and the bytes of a file read whole are grown fallibly, so memory that runs out first is the same
//! "too large" message naming the file rather than a trap.

use crate::analyses::aggregate::{bundle as aggregate_bundle, Aggregation, Method};
use crate::analyses::busy::BusyDefinition;
use crate::analyses::execgraph::{build, ExecGraph};
use crate::analyses::grains::{GrainAnalysis, Thresholds};
use crate::analyses::moments_bundle::MomentsBundle;
use crate::analyses::summary::summarize;
use crate::layouts::execgraph::bundle::{scale_for_min_px, ExecBundle, ExecFigures};
use crate::layouts::execgraph::Scale;
use crate::layouts::grain_bundle::GrainBundle;
use crate::layouts::grains::{layout as grain_layout, LayoutParams};
use crate::model::thread_events::ThreadEvents;
use crate::model::{codec, Trace, Warnings};
use crate::readers::budget::{self, Budget};
use crate::readers::chrome::ChromeStreamReader;
use crate::readers::mir::MirProfile;
use crate::readers::otf2::{MemoryFiles, Otf2Read};
use crate::readers::{self, archive, otf2_threads, paraver, GrainInput, ReadError, Sniffed};
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
    /// What this session may hold; [`Budget::DEFAULT`] unless lowered with [`WorkerSession::limit_bytes`].
    budget: Budget,
    /// The format the first chunk was sniffed as, for messages.
    format: &'static str,
}

#[wasm_bindgen]
impl WorkerSession {
    /// `size` is the file's size in bytes, for buffers and progress.
    #[wasm_bindgen(constructor)]
    pub fn new(name: String, size: f64) -> WorkerSession {
        let expected = if size.is_finite() && size > 0.0 { size as u64 } else { 0 };
        WorkerSession { name, reading: Reading::Start, consumed: 0, expected, budget: Budget::DEFAULT, format: "file" }
    }

    /// Hold this session to at most `bytes` (never more than the default budget): the tests' way to reach the
    /// budget of a stream without sending a gigabyte.
    pub fn limit_bytes(&mut self, bytes: f64) {
        if bytes.is_finite() && bytes >= 0.0 {
            self.budget.whole_file_bytes = self.budget.whole_file_bytes.min(bytes as u64);
        }
    }

    /// The next chunk of the file, in order.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<(), JsValue> {
        if let Reading::Start = self.reading {
            let sniffed = readers::sniff(chunk);
            let whole = match sniffed {
                Sniffed::Gzip => archive::is_tar(&archive::gunzip_head(chunk, 512)) || paraver::is_gzipped_prv(chunk),
                Sniffed::ChromeJson => false,
                _ => true,
            };
            self.format = sniffed.name();
            self.reading = if whole {
                // Refused before anything is allocated when the size is known (a File, a Content-Length).
                self.budget.admit_whole(&self.name, self.format, self.expected).map_err(js_err)?;
                let mut v = Vec::new();
                let first = usize::try_from(self.expected).unwrap_or(usize::MAX);
                budget::try_grow(&mut v, first, &self.name, self.format, "the file").map_err(js_err)?;
                Reading::Whole(v)
            } else {
                Reading::Chrome(Box::new(ChromeStreamReader::with_budget(&self.name, self.budget)))
            };
        }
        self.consumed += chunk.len() as u64;
        match &mut self.reading {
            Reading::Chrome(r) => {
                r.feed(chunk).map_err(js_err)?;
                // The unparsed tail (one endless string, say) is held to the budget too.
                self.budget.admit_held(&self.name, self.format, r.held_bytes() as u64).map_err(js_err)
            }
            Reading::Whole(v) => {
                // A stream of unknown size (or longer than it said) is held to the budget as it grows.
                self.budget.admit_held(&self.name, self.format, self.consumed).map_err(js_err)?;
                budget::try_grow(v, chunk.len(), &self.name, self.format, "the file").map_err(js_err)?;
                v.extend_from_slice(chunk);
                Ok(())
            }
            Reading::Start => Ok(()),
        }
    }

    /// Fail inside this session, the way a reader bug would while the session is in use (see
    /// [`induce_fault`]): the tests check that the page then reports the file and what happened.
    pub fn induce_fault(&mut self, kind: &str) -> Result<(), JsValue> {
        induce_fault(kind)
    }

    pub fn consumed(&self) -> f64 {
        self.consumed as f64
    }

    /// Read what was fed; returns `{kind, model, summary}` (see [`Loaded`]).
    pub fn finish(&mut self) -> Result<JsValue, JsValue> {
        let trace = match std::mem::replace(&mut self.reading, Reading::Start) {
            Reading::Chrome(r) => r.finish().map_err(js_err)?,
            Reading::Whole(bytes) if readers::sniff(&bytes) == Sniffed::ExecGraphText => {
                let (events, warnings) = readers::read_execgraph_full(&self.name, &bytes).map_err(js_err)?;
                let graph = build(&events).map_err(|e| JsValue::from_str(&format!("{}: {e}", self.name)))?;
                return Ok(execgraph_loaded(graph, warnings));
            }
            Reading::Whole(bytes) if matches!(readers::sniff(&bytes), Sniffed::MirTaskStats | Sniffed::GraphMl) => {
                return grains_loaded(&self.name, &bytes);
            }
            Reading::Whole(bytes) => match otf2_threads::otf2_in_bytes(&self.name, &bytes) {
                Some(read) => return otf2_loaded(&self.name, read.map_err(js_err)?),
                None => readers::read_bytes(&self.name, &bytes).map_err(js_err)?,
            },
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

    /// Refuse, before any file is read, a set whose `total` size is more than the page can hold.
    pub fn admit(&self, total: f64) -> Result<(), JsValue> {
        let total = if total.is_finite() && total > 0.0 { total as u64 } else { 0 };
        Budget::DEFAULT.admit_whole(&self.name, "the dropped files", total).map_err(js_err)
    }

    pub fn add(&mut self, path: &str, bytes: Vec<u8>) {
        self.files.insert(path, bytes);
    }

    pub fn finish(&mut self) -> Result<JsValue, JsValue> {
        let files = std::mem::take(&mut self.files);
        if let Some(read) = otf2_threads::otf2_in_files(&files) {
            drop(files);
            return otf2_loaded(&self.name, read.map_err(js_err)?);
        }
        let trace = readers::read_file_set(&self.name, &files).map_err(js_err)?;
        drop(files);
        Ok(trace_loaded(&trace))
    }
}

thread_local! {
    /// The last execution graph read, so a new minimum edge length lays it out again without re-reading.
    static LAST_GRAPH: RefCell<Option<(ExecGraph, Warnings)>> = const { RefCell::new(None) };
    /// The other views of the last OTF2 trace read (its thread events, its task profile), for [`open_view`].
    static OTF2_VIEWS: RefCell<Otf2Views> = const { RefCell::new(Otf2Views { name: String::new(), trace: None, locations: Vec::new(), events: None, tasks: None }) };
}

struct Otf2Views {
    name: String,
    /// Kept only when the trace offers another view too, so the page can come back to the timeline.
    trace: Option<Trace>,
    /// Location names, for the execution graph's thread labels.
    locations: Vec<String>,
    /// Each with what its mapping had to repair or drop, shown with the view.
    events: Option<(ThreadEvents, Warnings)>,
    tasks: Option<(MirProfile, Warnings)>,
}

/// An OTF2 trace: the timeline when it has intervals, else the grain graph of its tasks or the execution
/// graph of its threads. `views` on the result lists every view it offers ("trace", "execgraph",
/// "grains"); [`open_view`] opens another one.
fn otf2_loaded(name: &str, read: Otf2Read) -> Result<JsValue, JsValue> {
    let events =
        otf2_threads::has_thread_events(&read).then(|| otf2_threads::execgraph_events(&read, name).ok()).flatten();
    let tasks = otf2_threads::has_task_events(&read).then(|| otf2_threads::grain_profile(&read, name).ok()).flatten();
    let trace = &read.trace;
    let timeline =
        !(trace.intervals.is_empty() && trace.instants.time_ns.is_empty() && trace.counters.sample_time_ns.is_empty());
    let views: Vec<&str> = [(timeline, "trace"), (events.is_some(), "execgraph"), (tasks.is_some(), "grains")]
        .iter()
        .filter_map(|&(has, v)| has.then_some(v))
        .collect();
    let timeline_out = (views.first() == Some(&"trace")).then(|| trace_loaded(trace));
    let locations = otf2_threads::location_names(trace);
    let trace = (timeline && views.len() > 1).then_some(read.trace);
    OTF2_VIEWS.with(|v| *v.borrow_mut() = Otf2Views { name: name.to_string(), trace, locations, events, tasks });
    let first = match (timeline_out, views.first()) {
        (Some(out), _) => out,
        (None, Some(&kind)) => open_view(kind)?,
        (None, None) => {
            return Err(JsValue::from_str(&format!(
                "{name}: the trace holds no intervals, instants, counters or thread events to show"
            )))
        }
    };
    let list = js_sys::Array::new();
    for v in views {
        list.push(&v.into());
    }
    let _ = js_sys::Reflect::set(&first, &"views".into(), &list.into());
    Ok(first)
}

/// Open another view of the last OTF2 trace read: "trace" (its timeline, when it offers another view too),
/// "execgraph" (its threads) or "grains" (its tasks).
#[wasm_bindgen]
pub fn open_view(kind: &str) -> Result<JsValue, JsValue> {
    OTF2_VIEWS.with(|v| {
        let v = v.borrow();
        match kind {
            "trace" => Ok(trace_loaded(v.trace.as_ref().ok_or("the last trace read is not kept for its timeline")?)),
            "execgraph" => {
                let (ev, warnings) = v.events.as_ref().ok_or("the last trace read has no thread events")?;
                let mut graph = build(ev).map_err(|e| JsValue::from_str(&format!("{}: {e}", v.name)))?;
                graph.set_labels(|id| otf2_threads::thread_label(&v.locations, id));
                Ok(execgraph_loaded(graph, warnings.clone()))
            }
            "grains" => {
                let (p, warnings) = v.tasks.as_ref().ok_or("the last trace read has no task events")?;
                grains_from_input(&v.name, &GrainInput::Profile(p.clone()), warnings)
            }
            other => Err(JsValue::from_str(&format!("no view named '{other}' (trace, execgraph or grains)"))),
        }
    })
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

/// A trace for the timeline, with its moments under the default busy definition for the moments view.
fn trace_loaded(trace: &Trace) -> JsValue {
    let summary = serde_json::to_string(&summarize(trace, 10)).unwrap_or_default();
    let moments = MomentsBundle::compute(trace, &BusyDefinition::Compute).encode();
    let out = loaded("trace", codec::encode(trace), summary);
    let _ = js_sys::Reflect::set(&out, &"moments".into(), &js_sys::Uint8Array::from(&moments[..]).into());
    out
}

/// `warnings`: what reading the graph's input repaired or dropped (an OTF2 trace's thread mapping); they go
/// in the summary as the timeline's do (see [`with_warnings`]).
fn execgraph_loaded(graph: ExecGraph, warnings: Warnings) -> JsValue {
    let bundle = ExecBundle::new(graph, Scale::True);
    let summary = with_warnings(serde_json::to_value(ExecFigures::of(&bundle.graph, &bundle.layout)), &warnings);
    let model = bundle.encode();
    LAST_GRAPH.with(|g| *g.borrow_mut() = Some((bundle.graph, warnings)));
    loaded("execgraph", model, summary)
}

/// A view's summary (a JSON object) with its warnings added as the trace summary has them (count, by effect,
/// by kind with meanings and examples: the header's warnings button reads these).
fn with_warnings(summary: Result<serde_json::Value, serde_json::Error>, w: &Warnings) -> String {
    use crate::model::WarningEffect;
    let mut summary = summary.unwrap_or_default();
    if let Some(o) = summary.as_object_mut() {
        o.insert("warnings".into(), w.total().into());
        o.insert("warnings_left_out".into(), w.total_with(WarningEffect::LeftOut).into());
        o.insert("warnings_repaired".into(), w.total_with(WarningEffect::Repaired).into());
        let kinds = serde_json::to_value(crate::analyses::summary::warning_groups(w)).unwrap_or_default();
        o.insert("warning_kinds".into(), kinds);
    }
    summary.to_string()
}

/// A grain graph (MIR task stats or the prototype's GraphML): read, measured and laid out here.
fn grains_loaded(name: &str, bytes: &[u8]) -> Result<JsValue, JsValue> {
    let input = readers::read_grains(name, bytes).map_err(js_err)?;
    grains_from_input(name, &input, &Warnings::default())
}

fn grains_from_input(name: &str, input: &GrainInput, warnings: &Warnings) -> Result<JsValue, JsValue> {
    let analysis =
        GrainAnalysis::new(input, Thresholds::paper()).map_err(|e| JsValue::from_str(&format!("{name}: {e}")))?;
    let layout = grain_layout(&analysis.graph, &LayoutParams::default());
    let problems: serde_json::Map<String, serde_json::Value> =
        analysis.problems.iter().map(|p| (p.metric.to_string(), p.count.into())).collect();
    let summary = serde_json::json!({
        "grains": analysis.graph.grains(), "nodes": analysis.graph.nodes(), "edges": analysis.graph.edge_source.len(),
        "critical_path_length": analysis.critical.length, "problems": problems,
    });
    // The aggregation rides along, so the Aggregated view opens without building it on the page.
    let aggregation = aggregate_bundle::encode(&Aggregation::new(&analysis, Method::Reduction), &analysis.graph);
    let out = loaded("grains", GrainBundle::new(analysis, layout).encode(), with_warnings(Ok(summary), warnings));
    let _ = js_sys::Reflect::set(&out, &"aggregation".into(), &js_sys::Uint8Array::from(&aggregation[..]).into());
    Ok(out)
}

/// Lay the last execution graph out again, short edges raised to `min_px` of an 800 px drawing (0: true scale).
#[wasm_bindgen]
pub fn relayout_execgraph(min_px: f64) -> Result<JsValue, JsValue> {
    let (graph, warnings) = LAST_GRAPH.with(|g| g.borrow().clone()).ok_or("no execution graph was read")?;
    let scale = scale_for_min_px(&graph, min_px);
    let bundle = ExecBundle::new(graph, scale);
    let summary = with_warnings(serde_json::to_value(ExecFigures::of(&bundle.graph, &bundle.layout)), &warnings);
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
    Ok(execgraph_loaded(graph, Warnings::default()))
}

/// Crash this worker on purpose, the way a reader bug would: `panic` panics, `oom` allocates until the wasm
/// instance runs out of memory. The browser tests use it to check that the page reports the fault and recovers
/// with a fresh worker; it can only ever break the worker it runs in.
#[wasm_bindgen]
pub fn induce_fault(kind: &str) -> Result<(), JsValue> {
    match kind {
        "panic" => panic!("induced fault: a panic in the reader"),
        "oom" => {
            let mut held: Vec<Vec<u8>> = Vec::new();
            loop {
                // Zeroed fresh pages: the memory grows without being touched.
                held.push(vec![0u8; 256 << 20]);
                if held.len() > 64 {
                    return Err(JsValue::from_str("could not run out of memory"));
                }
            }
        }
        other => Err(JsValue::from_str(&format!("no fault named '{other}'"))),
    }
}
