//! `weft._weft`: the extension module behind the Python package `weft` (python/weft/__init__.py wraps it).
//! A trace is opened the way the CLI opens it (`weft_readers::open_path`, or a store folder through
//! `weft_index::folder`, answered lazily: `source`), kept behind an `Arc`, and answered from there: its columns as Arrow
//! tables (`tables`, lent without a copy where the column types allow), the CLI's reports as the JSON its
//! `--json` prints (the Python side turns them into dicts and DataFrames), and errors as `weft.WeftError`
//! carrying weft's message and the file.
//!
//! No analysis here: every number comes from `weft_analyses` through the same functions the CLI calls.

mod calltree;
mod columns;
mod progress;
mod source;
mod tables;

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyString;
use source::{CountedFolder, Source};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use weft_analyses::calltree::call_tree;
use weft_analyses::comm_matrix::{comm_matrix, MatrixUnit};
use weft_analyses::diagnosis::critical_path::{critical_path, path_report};
use weft_analyses::diagnosis::waits::{wait_report, wait_states};
use weft_analyses::info::{InfoReport, TOP_REGIONS};
use weft_analyses::moments::{moments, sort_moments, TimeWindow};
use weft_analyses::profile::profile;
use weft_model::{LocationId, Trace as Model};
use weft_readers::ReadError;
use weft_store::StoreError;
use weft_view::views::options::{MomentsOptions, ViewOptions};

create_exception!(
    _weft,
    WeftError,
    PyException,
    "A trace weft cannot read or answer: the message is weft's (the CLI prints the same), `file` the file \
     it names and `offset` the byte offset where the format says one."
);

/// A `WeftError` with weft's message, and `file` / `offset` set as attributes.
fn weft_error(py: Python<'_>, message: String, file: &str, offset: Option<u64>) -> PyErr {
    let err = WeftError::new_err(message);
    let value = err.value(py);
    // Setting attributes on a fresh exception instance cannot fail but for memory; the message stays.
    let _ = value.setattr("file", file);
    let _ = value.setattr("offset", offset);
    err
}

fn read_error(py: Python<'_>, e: ReadError) -> PyErr {
    let (file, offset) = match &e {
        ReadError::Malformed { file, offset, .. } => (file.clone(), Some(*offset)),
        ReadError::UnknownFormat { file, .. }
        | ReadError::Empty { file, .. }
        | ReadError::Decompress { file, .. }
        | ReadError::Io { file, .. }
        | ReadError::Unsupported { file, .. }
        | ReadError::Cancelled { file }
        | ReadError::TooLarge { file, .. }
        | ReadError::NotThisView { file, .. }
        | ReadError::NotOneRun { file, .. } => (file.clone(), None),
    };
    weft_error(py, e.to_string(), &file, offset)
}

/// A trace opened by [`open`]: where its records come from (`source`: a file read whole, or a store
/// answered lazily) and the path it was opened from.
#[pyclass(frozen, module = "weft._weft")]
struct Trace {
    source: Source,
    path: String,
}

/// Open a trace file, folder or archive (read whole), or a store folder written by `weft index` (from its
/// manifest and definitions; its tiles are decoded when a question needs them).
/// With `progress`, a callable `progress(done, total)`, a trace file's reading reports its bytes read of
/// its size as it goes (src/progress.rs: a Chrome JSON or Perfetto trace's bytes parsed, an OTF2 archive's
/// files as its reader takes them); a store or a folder of no OTF2 archive is read without.
#[pyfunction]
#[pyo3(signature = (path, progress=None))]
fn open(py: Python<'_>, path: PathBuf, progress: Option<Py<PyAny>>) -> PyResult<Trace> {
    let name = path.display().to_string();
    let opened = py.detach(|| -> Result<Trace, Opening> {
        // A store as the CLI finds it, its files read through a counting source (`_store_reads`).
        let counted = |folder| CountedFolder { folder, reads: AtomicU64::new(0) };
        if let Some(store) = weft_index::folder::open_store_with(&path, counted) {
            let e = |e| Opening::Store(weft_index::folder::store_error(&path, e));
            let store = store.map_err(e)?;
            let summary = store.summary(TOP_REGIONS).map_err(e)?;
            return Ok(Trace { source: Source::store(store, summary).map_err(e)?, path: name.clone() });
        }
        // The callback's own errors (a bar that cannot draw) are the bar's, not the reading's: ignored.
        let mut report = |done: u64, total: u64| {
            if let Some(cb) = &progress {
                Python::attach(|py| {
                    let _ = cb.call1(py, (done, total));
                });
            }
        };
        let input = match progress.is_some().then(|| progress::read(&path, &mut report)).flatten() {
            Some(input) => input,
            None => weft_readers::open_path(&path),
        };
        let model = input.and_then(|input| input.into_trace(&name)).map_err(Opening::Read)?;
        Ok(Trace { source: Source::trace(model), path: name.clone() })
    });
    opened.map_err(|e| match e {
        Opening::Read(e) => read_error(py, e),
        Opening::Store(message) => weft_error(py, message, &name, None),
    })
}

enum Opening {
    Read(ReadError),
    Store(String),
}

/// The locations kept (`locations=[ids]`), or None for every location; an id past the last is a ValueError.
fn kept_locations(model: &Model, locations: Option<Vec<u32>>) -> PyResult<Option<Vec<bool>>> {
    let n = model.locations.len();
    let Some(ls) = locations else { return Ok(None) };
    let mut keep = vec![false; n];
    for l in ls {
        *keep
            .get_mut(l as usize)
            .ok_or_else(|| PyValueError::new_err(format!("locations: {l} is not a location (the trace has {n})")))? =
            true;
    }
    Ok(Some(keep))
}

/// A window from Python: None, `"T0:T1"` (the CLI's `--window` syntax) or `(start_ns, end_ns)`.
fn window(w: Option<&Bound<'_, PyAny>>) -> PyResult<Option<TimeWindow>> {
    let Some(w) = w.filter(|w| !w.is_none()) else { return Ok(None) };
    if let Ok(text) = w.cast::<PyString>() {
        return TimeWindow::parse(&text.to_cow()?).map(Some).map_err(|e| PyValueError::new_err(e.to_string()));
    }
    let (start_ns, end_ns): (u64, u64) = w.extract().map_err(|_| {
        PyValueError::new_err("window: expected \"T0:T1\" (units ns, us, ms, s) or a pair (start_ns, end_ns)")
    })?;
    if end_ns < start_ns {
        return Err(PyValueError::new_err(format!("window: ends ({end_ns} ns) before it starts ({start_ns} ns)")));
    }
    Ok(Some(TimeWindow { start_ns, end_ns }))
}

/// JSON of a report, with the characters a terminal must not get raw written as escapes, as `--json` does.
fn json<T: serde::Serialize>(v: &T) -> PyResult<String> {
    let text = serde_json::to_string(v).map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(weft_model::text::escape_json_controls(&text).into_owned())
}

impl Trace {
    /// The whole trace (a store's decoded on first need, then kept).
    fn model(&self, py: Python<'_>) -> PyResult<Arc<Model>> {
        py.detach(|| self.source.whole()).map_err(|e| self.store_error(py, e))
    }

    fn store_error(&self, py: Python<'_>, e: StoreError) -> PyErr {
        let root = std::path::Path::new(&self.path);
        weft_error(py, weft_index::folder::store_error(root, e), &self.path, None)
    }

    /// The CLI refuses these analyses on a store (its tiles keep no wait states); so does this.
    fn refuse_store(&self, what: &str) -> PyResult<()> {
        match self.source.store {
            Some(_) => Python::attach(|py| {
                Err(weft_error(
                    py,
                    format!(
                        "{}: a store folder (weft index); {what} needs the trace itself (a store keeps no wait \
                         states): open the trace the store was indexed from",
                        self.path
                    ),
                    &self.path,
                    None,
                ))
            }),
            None => Ok(()),
        }
    }
}

#[pymethods]
impl Trace {
    /// The path it was opened from.
    #[getter]
    fn path(&self) -> &str {
        &self.path
    }

    /// Whether it was opened from a store folder.
    #[getter]
    fn is_store(&self) -> bool {
        self.source.store.is_some()
    }

    /// Files read from the store folder so far (manifest and tiles; 0 for a trace file).
    #[getter]
    fn _store_reads(&self) -> u64 {
        self.source.store.as_ref().map_or(0, |s| s.store.source().reads.load(Ordering::Relaxed))
    }

    /// The absolute time of the first event in the source's clock (ns); table times are relative to it.
    #[getter]
    fn origin_ns(&self) -> i64 {
        self.source.definitions().origin_ns
    }

    /// The time of the last event's end, from the first event (ns).
    #[getter]
    fn span_ns(&self) -> u64 {
        self.source.definitions().span_ns
    }

    /// `weft info --json [--window]` as JSON text.
    #[pyo3(signature = (window=None))]
    fn info_json(&self, py: Python<'_>, window: Option<&Bound<'_, PyAny>>) -> PyResult<String> {
        let w = self::window(window)?;
        let model = self.model(py)?;
        let report = py.detach(|| match &self.source.store {
            Some(s) => InfoReport::with_summary(s.summary.clone(), &model, w),
            None => InfoReport::of_trace(&model, w),
        });
        json(&report)
    }

    /// The region profile (`weft info --json`'s `regions`) of `window`, over `locations` (ids; all if None).
    #[pyo3(signature = (window=None, locations=None))]
    fn profile_json(
        &self,
        py: Python<'_>,
        window: Option<&Bound<'_, PyAny>>,
        locations: Option<Vec<u32>>,
    ) -> PyResult<String> {
        let w = self::window(window)?;
        let model = self.model(py)?;
        let keep = kept_locations(&model, locations)?;
        let rows = py.detach(|| profile(&model, w, |l: LocationId| keep.as_ref().is_none_or(|k| k[l.index()])));
        json(&rows)
    }

    /// The value of the arg `key` (Chrome `args`: Kineto's `correlation`, `stream`, ...) of every interval,
    /// in `intervals()`'s order, as written in the trace; None where an interval has no such arg.
    fn interval_arg(&self, py: Python<'_>, key: &str) -> PyResult<Vec<Option<String>>> {
        let model = self.model(py)?;
        Ok(py.detach(|| {
            let iv = &model.intervals;
            let mut out = vec![None; iv.start_ns.len()];
            let Some(id) = model.strings.lookup(key) else { return out };
            for (k, &event) in iv.args.event.iter().enumerate() {
                let value = iv.args.table.entry(iv.args.entry[k] as usize).find(|a| a.key == id).map(|a| a.value);
                out[event as usize] = value.map(str::to_owned);
            }
            out
        }))
    }

    /// `weft calltree --json [--window] [--locations] [--inverted]`: the same JSON (nodes in preorder).
    #[pyo3(signature = (window=None, locations=None, inverted=false))]
    fn calltree_json(
        &self,
        py: Python<'_>,
        window: Option<&Bound<'_, PyAny>>,
        locations: Option<Vec<u32>>,
        inverted: bool,
    ) -> PyResult<String> {
        let w = self::window(window)?;
        let model = self.model(py)?;
        let keep = kept_locations(&model, locations)?;
        let report = py.detach(|| {
            let tree = call_tree(&model, w, |l: LocationId| keep.as_ref().is_none_or(|k| k[l.index()]));
            calltree::report(&model, &if inverted { tree.inverted(&model) } else { tree }, inverted, w)
        });
        json(&report)
    }

    /// `weft info --json`'s `comm_matrix`, by `unit` ("process" or "location").
    #[pyo3(signature = (unit="process", window=None))]
    fn comm_matrix_json(&self, py: Python<'_>, unit: &str, window: Option<&Bound<'_, PyAny>>) -> PyResult<String> {
        let w = self::window(window)?;
        let unit = MatrixUnit::parse(unit)
            .ok_or_else(|| PyValueError::new_err(format!("unit: '{unit}' is not process or location")))?;
        let model = self.model(py)?;
        json(&py.detach(|| comm_matrix(&model, w, unit)))
    }

    /// `weft moments --json --busy BUSY [--window] [--sort]`.
    #[pyo3(signature = (busy="compute", window=None, sort="location"))]
    fn moments_json(
        &self,
        py: Python<'_>,
        busy: &str,
        window: Option<&Bound<'_, PyAny>>,
        sort: &str,
    ) -> PyResult<String> {
        let w = self::window(window)?;
        let mut o = MomentsOptions::default();
        o.parse("busy", busy).map_err(|e| PyValueError::new_err(e.to_string()))?;
        o.parse("sort", sort).map_err(|e| PyValueError::new_err(e.to_string()))?;
        if o.busy == weft_analyses::busy::BusyDefinition::Waiting {
            self.refuse_store("busy = waiting")?;
        }
        let model = self.model(py)?;
        let rows = py.detach(|| {
            let mut rows = moments(&model, &o.busy, w);
            sort_moments(&mut rows, o.sort);
            rows
        });
        json(&rows)
    }

    /// `weft waits --json [--window]`.
    #[pyo3(signature = (window=None))]
    fn waits_json(&self, py: Python<'_>, window: Option<&Bound<'_, PyAny>>) -> PyResult<String> {
        let w = self::window(window)?;
        self.refuse_store("weft waits")?;
        let model = self.model(py)?;
        let report = py.detach(|| {
            let states = wait_states(&model);
            wait_report(&model, &states, w.map(|w| (w.start_ns, w.end_ns)))
        });
        json(&report)
    }

    /// `weft critical-path --json`.
    fn critical_path_json(&self, py: Python<'_>) -> PyResult<String> {
        self.refuse_store("weft critical-path")?;
        let model = self.model(py)?;
        let report = py.detach(|| {
            let path = critical_path(&model, &wait_states(&model));
            path_report(&model, &path)
        });
        json(&report)
    }

    /// Each location's label, "process / location" (`weft moments`' `name`), by location id.
    fn location_labels(&self) -> Vec<String> {
        let t = self.source.definitions();
        (0..t.locations.len() as u32).map(|l| weft_analyses::moments::location_label(t, LocationId(l))).collect()
    }

    /// The table `name` (intervals, messages, collectives, instants, counters, locations, regions) as a
    /// `pyarrow.Table`, of the records in `window` when one is given (a store reads only its tiles).
    #[pyo3(signature = (name, window=None))]
    fn table<'py>(
        &self,
        py: Python<'py>,
        name: &str,
        window: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let w = self::window(window)?;
        let records = match (w, name) {
            // Definitions: no window, nothing decoded.
            (_, "locations" | "regions") => match &self.source.store {
                Some(s) => s.skeleton.clone(),
                None => self.model(py)?,
            },
            (None, _) => self.model(py)?,
            (Some(w), "counters") => {
                py.detach(|| self.source.counters_window(w)).map_err(|e| self.store_error(py, e))?
            }
            (Some(w), _) => py.detach(|| self.source.window(w)).map_err(|e| self.store_error(py, e))?,
        };
        tables::table(py, &records, name)
    }

    /// The address of weft's own column `column` of table `name` (for the zero-copy test).
    fn _column_address(&self, py: Python<'_>, name: &str, column: &str) -> PyResult<usize> {
        tables::column_address(&*self.model(py)?, name, column)
            .ok_or_else(|| PyValueError::new_err(format!("{name}.{column}: not a column lent without a copy")))
    }

    fn __repr__(&self) -> String {
        let t = self.source.definitions();
        let what = if self.source.store.is_some() { "store" } else { "trace" };
        format!("<weft.Trace {} ({what}, {}): {} locations>", self.path, t.format.name(), t.locations.len())
    }
}

/// The columns of table `name` lent from weft's memory without a copy (for the zero-copy test).
#[pyfunction]
fn lent_columns(name: &str) -> Vec<&'static str> {
    tables::lent_columns(name)
}

/// The size of `path` when `open(path, progress=...)` reports progress for it (a regular file that is no
/// part of an OTF2 archive, and no store); None otherwise.
#[pyfunction]
fn progress_size(path: PathBuf) -> Option<u64> {
    progress::size_with_progress(&path)
}

#[pymodule]
fn _weft(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(open, m)?)?;
    m.add_class::<Trace>()?;
    m.add("WeftError", m.py().get_type::<WeftError>())?;
    m.add("TABLES", tables::NAMES.to_vec())?;
    m.add_function(wrap_pyfunction!(lent_columns, m)?)?;
    m.add_function(wrap_pyfunction!(progress_size, m)?)?;
    Ok(())
}
