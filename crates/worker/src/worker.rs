//! The worker's side (the `worker` wasm module: readers and analyses, no renderer or views): a file arrives in
//! chunks (File.slice), is read into a model, and leaves as one encoded buffer for the page, with what the
//! page's other views need built here too (a trace's moments, a grain graph's aggregation), so the page's main
//! thread only decodes. Runs off the main thread, so a 100 MB file never freezes the page. The worker keeps
//! what it read to answer the page's later questions without reading again: another view of an OTF2 trace
//! ([`open_view`]), another layout of an execution graph ([`relayout_execgraph`]), the moments of another busy
//! definition ([`moments_for`]); a second grain profile to compare with is read here too
//! ([`WorkerSession::finish_compare`]). Each question is one exported function beside these.
//!
//! Held to the budget as it streams, not only from a size given in advance: a download without a
//! Content-Length is refused once what it holds (a file read whole, or the Chrome reader's unparsed tail) passes
//! the budget, and the bytes of a file read whole are grown fallibly, so memory that runs out first is the same
//! "too large" message naming the file rather than a trap.

use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use weft_analyses::aggregate::{bundle as aggregate_bundle, Aggregation, Method};
use weft_analyses::busy::BusyDefinition;
use weft_analyses::execgraph::{build, ExecGraph};
use weft_analyses::grains::query::GrainFigures;
use weft_analyses::grains::{GrainAnalysis, Thresholds};
use weft_analyses::moments_bundle::MomentsBundle;
use weft_analyses::summary::summarize;
use weft_model::grains::Grains;
use weft_model::thread_events::ThreadEvents;
use weft_model::{codec, Trace, Warnings};
use weft_readers::budget::{self, Budget};
use weft_readers::chrome::ChromeStreamReader;
use weft_readers::otf2::MemoryFiles;
use weft_readers::perfetto::PerfettoStreamReader;
use weft_readers::sniff::SNIFF_HEAD_BYTES;
use weft_readers::{self as readers, otf2_threads, Input, Otf2Input, ReadError, Sniffed, Source};
use weft_samples::execgraph::sample as execgraph_sample;
use weft_view::layouts::execgraph::bundle::{ExecBundle, ExecFigures};
use weft_view::layouts::execgraph::Scale;
use weft_view::layouts::grain_bundle::GrainBundle;
use weft_view::layouts::grains::{layout as grain_layout, LayoutParams};
use weft_view::views::options::{ExecgraphOptions, MomentsOptions, ViewOptions};

use crate::store::now_ms;

fn js_err(e: ReadError) -> JsValue {
    JsValue::from_str(&e.to_string())
}

enum Reading {
    /// Fewer than [`SNIFF_HEAD_BYTES`] fed (a download's first pieces may be small): the head, sniffed once it
    /// is long enough or the file ends.
    Start(Vec<u8>),
    /// Chrome JSON (plain or gzipped) is parsed as it streams in; only the unparsed tail is held.
    Chrome(Box<ChromeStreamReader>),
    /// So is a Perfetto protobuf trace (plain or gzipped); only the current packet's bytes are held.
    Perfetto(Box<PerfettoStreamReader>),
    /// Other formats are read whole at the end, by what the head was sniffed as.
    Whole(Vec<u8>, Sniffed),
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
        WorkerSession {
            name,
            reading: Reading::Start(Vec::new()),
            consumed: 0,
            expected,
            budget: Budget::DEFAULT,
            format: "file",
        }
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
        self.consumed += chunk.len() as u64;
        if let Reading::Start(head) = &mut self.reading {
            if head.len() + chunk.len() < SNIFF_HEAD_BYTES {
                head.extend_from_slice(chunk);
                return Ok(());
            }
            let head = std::mem::take(head);
            self.start(&head, chunk)?;
        }
        self.push(chunk)
    }

    /// Sniff the file's head (what was held, then `chunk`) once, pick the reader by it, and hand it the head.
    /// This is the file's one sniff: streaming or reading whole depends on it, and `finish` dispatches on
    /// the same answer ([`readers::open_sniffed`]).
    fn start(&mut self, head: &[u8], chunk: &[u8]) -> Result<(), JsValue> {
        let sniffed = if head.is_empty() { readers::sniff(chunk) } else { readers::sniff(&[head, chunk].concat()) };
        self.format = sniffed.name();
        self.reading = match sniffed {
            Sniffed::ChromeJson | Sniffed::Gzip => {
                Reading::Chrome(Box::new(ChromeStreamReader::with_budget(&self.name, self.budget)))
            }
            Sniffed::Perfetto => {
                Reading::Perfetto(Box::new(PerfettoStreamReader::with_budget(&self.name, self.budget)))
            }
            sniffed => {
                // Refused before anything is allocated when the size is known (a File, a Content-Length).
                self.budget.admit_whole(&self.name, self.format, self.expected).map_err(js_err)?;
                let mut v = Vec::new();
                let first = usize::try_from(self.expected).unwrap_or(usize::MAX);
                budget::try_grow(&mut v, first, &self.name, self.format, "the file").map_err(js_err)?;
                Reading::Whole(v, sniffed)
            }
        };
        self.push(head)
    }

    /// Bytes to the reader chosen.
    fn push(&mut self, chunk: &[u8]) -> Result<(), JsValue> {
        match &mut self.reading {
            Reading::Chrome(r) => {
                r.feed(chunk).map_err(js_err)?;
                // The unparsed tail (one endless string, say) is held to the budget too.
                self.budget.admit_held(&self.name, self.format, r.held_bytes() as u64).map_err(js_err)
            }
            // The reader holds its unframed tail to the budget itself.
            Reading::Perfetto(r) => r.feed(chunk).map_err(js_err),
            Reading::Whole(v, _) => {
                // A stream of unknown size (or longer than it said) is held to the budget as it grows.
                self.budget.admit_held(&self.name, self.format, self.consumed).map_err(js_err)?;
                budget::try_grow(v, chunk.len(), &self.name, self.format, "the file").map_err(js_err)?;
                v.extend_from_slice(chunk);
                Ok(())
            }
            Reading::Start(_) => Ok(()),
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

    /// Read what was fed; returns `{kind, model, summary}` (see [`loaded`]), with `steps`: each step's time
    /// in ms (`read`: the reader's finish, the model built; a trace's `summary`, `moments`, `encode` and `copy`
    /// out to JS too: [`trace_loaded`]), which the page keeps in `weft.openLog` (issue #58's whole-file figure).
    pub fn finish(&mut self) -> Result<JsValue, JsValue> {
        let t0 = now_ms();
        let input = self.read()?;
        let read_ms = now_ms() - t0;
        let out = input_loaded(&self.name, input)?;
        let steps = js_sys::Reflect::get(&out, &"steps".into())
            .ok()
            .filter(|s| s.is_object())
            .unwrap_or_else(|| js_sys::Object::new().into());
        let _ = js_sys::Reflect::set(&steps, &"read".into(), &read_ms.into());
        let _ = js_sys::Reflect::set(&out, &"steps".into(), &steps);
        Ok(out)
    }

    /// Read what was fed as a second run to compare with the grain graph shown (a MIR profile, GraphML, an
    /// OTF2 trace's tasks): `{kind: "grains", model, summary}` with its grain bundle, which the page analyses
    /// under the thresholds it shows (`ViewSet::compare_with`). Nothing is kept.
    pub fn finish_compare(&mut self) -> Result<JsValue, JsValue> {
        let (grains, _) = self.read()?.into_grains(&self.name).map_err(js_err)?;
        let analysis = GrainAnalysis::new(&grains, Thresholds::paper())
            .map_err(|e| JsValue::from_str(&format!("{}: {e}", self.name)))?;
        let layout = grain_layout(&analysis.graph, &LayoutParams::default());
        Ok(loaded("grains", GrainBundle::new(analysis, layout).encode(), "{}".to_string()))
    }
}

impl WorkerSession {
    /// What was fed, read by the reader its head was sniffed for.
    fn read(&mut self) -> Result<Input, JsValue> {
        Ok(match std::mem::replace(&mut self.reading, Reading::Start(Vec::new())) {
            Reading::Chrome(r) => Input::Trace(r.finish().map_err(js_err)?),
            Reading::Perfetto(r) => Input::Trace(r.finish().map_err(js_err)?),
            Reading::Whole(bytes, sniffed) => readers::open_sniffed(&self.name, sniffed, &bytes).map_err(js_err)?,
            // A file shorter than the sniffed head: sniffed (once) and read here.
            Reading::Start(head) => readers::open(&self.name, Source::Bytes(&head)).map_err(js_err)?,
        })
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
        let input = readers::open(&self.name, Source::Files(&files)).map_err(js_err)?;
        drop(files);
        input_loaded(&self.name, input)
    }
}

/// What was read, to the page: each kind of input loads as its view.
fn input_loaded(name: &str, input: Input) -> Result<JsValue, JsValue> {
    match input {
        Input::Trace(trace) => {
            if trace.intervals.is_empty()
                && trace.instants.time_ns.is_empty()
                && trace.counters.sample_time_ns.is_empty()
            {
                return Err(JsValue::from_str(&format!(
                    "{name}: the trace holds no intervals, instants or counters to show"
                )));
            }
            Ok(trace_loaded(Rc::new(trace)))
        }
        Input::ThreadEvents { events, warnings } => {
            let graph = build(&events).map_err(|e| JsValue::from_str(&format!("{name}: {e}")))?;
            Ok(execgraph_loaded(graph, warnings))
        }
        Input::Grains { grains, warnings } => grains_from_input(name, &grains, &warnings),
        Input::Otf2(otf2) => otf2_loaded(name, *otf2),
    }
}

thread_local! {
    /// The last execution graph read, so a new minimum edge length lays it out again without re-reading.
    static LAST_GRAPH: RefCell<Option<(ExecGraph, Warnings)>> = const { RefCell::new(None) };
    /// The other views of the last OTF2 trace read (its thread events, its task profile), for [`open_view`].
    static OTF2_VIEWS: RefCell<Otf2Views> = const { RefCell::new(Otf2Views { name: String::new(), trace: None, locations: Vec::new(), events: None, tasks: None }) };
    /// The trace the page shows (the last one sent), for the moments of another busy definition
    /// ([`moments_for`]); None while the page shows a graph. Replaced by the next trace sent, not dropped when a
    /// load fails, so the page's trace keeps its answers.
    static SHOWN_TRACE: RefCell<Option<Rc<Trace>>> = const { RefCell::new(None) };
}

struct Otf2Views {
    name: String,
    /// Kept only when the trace offers another view too, so the page can come back to the timeline.
    trace: Option<Rc<Trace>>,
    /// Location names, for the execution graph's thread labels.
    locations: Vec<String>,
    /// Each with what its mapping had to repair or drop, shown with the view.
    events: Option<(ThreadEvents, Warnings)>,
    tasks: Option<(Grains, Warnings)>,
}

/// An OTF2 trace: the timeline when it has intervals, else the grain graph of its tasks or the execution
/// graph of its threads. `views` on the result lists every view it offers ("trace", "execgraph",
/// "grains"); [`open_view`] opens another one.
fn otf2_loaded(name: &str, otf2: Otf2Input) -> Result<JsValue, JsValue> {
    let events = otf2.offers_thread_events().then(|| otf2.thread_events().ok()).flatten().map(|(e, w, _)| (e, w));
    let tasks = otf2.offers_grains().then(|| otf2.grains().ok()).flatten();
    let trace = Rc::new(otf2.read.trace);
    let timeline =
        !(trace.intervals.is_empty() && trace.instants.time_ns.is_empty() && trace.counters.sample_time_ns.is_empty());
    let views: Vec<&str> = [(timeline, "trace"), (events.is_some(), "execgraph"), (tasks.is_some(), "grains")]
        .iter()
        .filter_map(|&(has, v)| has.then_some(v))
        .collect();
    let timeline_out = (views.first() == Some(&"trace")).then(|| trace_loaded(trace.clone()));
    let locations = otf2_threads::location_names(&trace);
    let trace = (timeline && views.len() > 1).then_some(trace);
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
            "trace" => Ok(trace_loaded(v.trace.clone().ok_or("the last trace read is not kept for its timeline")?)),
            "execgraph" => {
                let (ev, warnings) = v.events.as_ref().ok_or("the last trace read has no thread events")?;
                let mut graph = build(ev).map_err(|e| JsValue::from_str(&format!("{}: {e}", v.name)))?;
                graph.set_labels(|id| otf2_threads::thread_label(&v.locations, id));
                Ok(execgraph_loaded(graph, warnings.clone()))
            }
            "grains" => {
                let (grains, warnings) = v.tasks.as_ref().ok_or("the last trace read has no task events")?;
                grains_from_input(&v.name, grains, warnings)
            }
            other => Err(JsValue::from_str(&format!("no view named '{other}' (trace, execgraph or grains)"))),
        }
    })
}

/// The trace the page shows, for the worker's answers about it (crates/worker/src/diagnosis.rs).
pub(crate) fn shown_trace() -> Option<Rc<Trace>> {
    SHOWN_TRACE.with(|t| t.borrow().clone())
}

/// An answer of `kind` carrying only `model` (an empty summary).
pub(crate) fn loaded_model(kind: &str, model: Vec<u8>) -> JsValue {
    loaded(kind, model, "{}".to_string())
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

/// A trace for the timeline, with its moments under the default busy definition for the moments view; kept
/// as the trace shown, for [`moments_for`].
fn trace_loaded(trace: Rc<Trace>) -> JsValue {
    let t0 = now_ms();
    let summary = serde_json::to_string(&summarize(&trace, 10)).unwrap_or_default();
    let t1 = now_ms();
    let moments = MomentsBundle::compute(&trace, &BusyDefinition::Compute).encode();
    let t2 = now_ms();
    let model = codec::encode(&trace);
    let t3 = now_ms();
    let out = loaded("trace", model, summary);
    let _ = js_sys::Reflect::set(&out, &"moments".into(), &js_sys::Uint8Array::from(&moments[..]).into());
    let t4 = now_ms();
    let steps = js_sys::Object::new();
    for (k, v) in [("summary", t1 - t0), ("moments", t2 - t1), ("encode", t3 - t2), ("copy", t4 - t3)] {
        let _ = js_sys::Reflect::set(&steps, &k.into(), &v.into());
    }
    let _ = js_sys::Reflect::set(&out, &"steps".into(), &steps.into());
    SHOWN_TRACE.with(|t| *t.borrow_mut() = Some(trace));
    out
}

/// The moments view's data for another busy definition (`busy`: the view option's value, `any`,
/// `pattern:GLOB`, views::options::MomentsOptions) of the trace shown: `{kind: "moments", model}` with the
/// moments bundle (analyses::moments_bundle), computed here so the page computes nothing.
#[wasm_bindgen]
pub fn moments_for(busy: &str) -> Result<JsValue, JsValue> {
    let mut o = MomentsOptions::default();
    o.parse("busy", busy).map_err(|e| JsValue::from_str(&e.to_string()))?;
    let trace = SHOWN_TRACE.with(|t| t.borrow().clone()).ok_or(
        "the reader no longer holds the trace shown (it was restarted): open the file again for another busy definition",
    )?;
    let bundle = MomentsBundle::compute(&trace, &o.busy).encode();
    Ok(loaded("moments", bundle, "{}".to_string()))
}

/// `warnings`: what reading the graph's input repaired or dropped (an OTF2 trace's thread mapping); they go
/// in the summary as the timeline's do (see [`with_warnings`]).
fn execgraph_loaded(graph: ExecGraph, warnings: Warnings) -> JsValue {
    SHOWN_TRACE.with(|t| *t.borrow_mut() = None);
    let bundle = ExecBundle::new(graph, Scale::True);
    let summary = with_warnings(serde_json::to_value(ExecFigures::of(&bundle.graph, &bundle.layout)), &warnings);
    let model = bundle.encode();
    LAST_GRAPH.with(|g| *g.borrow_mut() = Some((bundle.graph, warnings)));
    loaded("execgraph", model, summary)
}

/// A view's summary (a JSON object) with its warnings added as the trace summary has them (count, by effect,
/// by kind with meanings and examples: the header's warnings button reads these).
fn with_warnings(summary: Result<serde_json::Value, serde_json::Error>, w: &Warnings) -> String {
    use weft_model::WarningEffect;
    let mut summary = summary.unwrap_or_default();
    if let Some(o) = summary.as_object_mut() {
        o.insert("warnings".into(), w.total().into());
        o.insert("warnings_left_out".into(), w.total_with(WarningEffect::LeftOut).into());
        o.insert("warnings_repaired".into(), w.total_with(WarningEffect::Repaired).into());
        let kinds = serde_json::to_value(weft_analyses::summary::warning_groups(w)).unwrap_or_default();
        o.insert("warning_kinds".into(), kinds);
    }
    summary.to_string()
}

/// A grain graph (MIR task stats, the prototype's GraphML, an OTF2 trace's tasks): measured and laid out here.
fn grains_from_input(name: &str, input: &Grains, warnings: &Warnings) -> Result<JsValue, JsValue> {
    let analysis =
        GrainAnalysis::new(input, Thresholds::paper()).map_err(|e| JsValue::from_str(&format!("{name}: {e}")))?;
    let layout = grain_layout(&analysis.graph, &LayoutParams::default());
    let summary = with_warnings(serde_json::to_value(GrainFigures::of(&analysis)), warnings);
    // The aggregation rides along, so the Aggregated view opens without building it on the page.
    let aggregation = aggregate_bundle::encode(&Aggregation::new(&analysis, Method::Reduction), &analysis.graph);
    let out = loaded("grains", GrainBundle::new(analysis, layout).encode(), summary);
    let _ = js_sys::Reflect::set(&out, &"aggregation".into(), &js_sys::Uint8Array::from(&aggregation[..]).into());
    SHOWN_TRACE.with(|t| *t.borrow_mut() = None);
    Ok(out)
}

/// Lay the last execution graph out again under the view's `min_edge` option (`true`, `8px` of an 800 px
/// drawing, or `5000ns`; views::options::ExecgraphOptions).
#[wasm_bindgen]
pub fn relayout_execgraph(min_edge: &str) -> Result<JsValue, JsValue> {
    let mut o = ExecgraphOptions::default();
    o.parse("min_edge", min_edge).map_err(|e| JsValue::from_str(&e.to_string()))?;
    let (graph, warnings) = LAST_GRAPH.with(|g| g.borrow().clone()).ok_or("no execution graph was read")?;
    let scale = o.min_edge.scale(&graph);
    let bundle = ExecBundle::new(graph, scale);
    let summary = with_warnings(serde_json::to_value(ExecFigures::of(&bundle.graph, &bundle.layout)), &warnings);
    Ok(loaded("execgraph", bundle.encode(), summary))
}

/// A built-in sample: `timeline` (the generated MPI + threads trace the page opens with) or one of the
/// execution-graph samples of the TreVis paper (`fib`, `rsa`, `mergesort`).
#[wasm_bindgen]
pub fn sample(name: &str) -> Result<JsValue, JsValue> {
    let generated = match name {
        "timeline" => Some(("sample.json", weft_samples::builtin_chrome_json())),
        "particles" => Some(("particles.json", weft_samples::particles::builtin_json())),
        "grains" => Some(("fib-sample.csv", weft_samples::grains::fib_profile(30, 8, 16))),
        _ => None,
    };
    if let Some((file, bytes)) = generated {
        return input_loaded(file, readers::open(file, Source::Bytes(&bytes)).map_err(js_err)?);
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
