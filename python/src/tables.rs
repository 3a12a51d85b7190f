//! The trace's tables as Arrow record batches, handed to pyarrow through the C data interface
//! (`arrow_pyarrow`). One list per table says each column's name and where it comes from: a column of weft's
//! own lent without a copy (`columns::lend`), or one made here (ids as u32, names as dictionaries of the
//! strings the column uses, enums as their snake_case names). Times are ns from the trace's first event,
//! as everywhere in weft (`Trace.origin_ns` is that event's absolute time).

use crate::columns::{address, lend};
use arrow_array::builder::StringDictionaryBuilder;
use arrow_array::types::UInt32Type;
use arrow_array::{
    ArrayRef, DictionaryArray, Float64Array, Int64Array, RecordBatch, StringArray, UInt16Array, UInt32Array,
    UInt64Array,
};
use arrow_pyarrow::{IntoPyArrow, Table};
use arrow_schema::{Field, Schema};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rustc_hash::FxHashMap;
use std::sync::Arc;
use weft_model::{StringId, Trace};

/// The tables, in the order `weft.TABLES` lists them.
pub const NAMES: [&str; 7] = ["intervals", "messages", "collectives", "instants", "counters", "locations", "regions"];

/// Where a column comes from.
enum Column {
    /// weft's column, lent ([`lend`]).
    U64(fn(&Trace) -> &[u64]),
    U32(fn(&Trace) -> &[u32]),
    U16(fn(&Trace) -> &[u16]),
    I64(fn(&Trace) -> &[i64]),
    F64(fn(&Trace) -> &[f64]),
    /// Made from weft's columns (a copy).
    Made(fn(&Trace) -> ArrayRef),
}

use Column::*;

fn ids(ids: impl Iterator<Item = u32>) -> ArrayRef {
    Arc::new(UInt32Array::from_iter_values(ids))
}

/// Strings by id, as a dictionary of the distinct ones the column uses (pandas: a Categorical), keyed by
/// the interned id: no string is hashed per row (Arrow's dictionary builder hashed each: 0.5 s of the 4 M
/// intervals of a 10 M-event archive).
fn names(t: &Trace, ids: impl Iterator<Item = StringId>) -> ArrayRef {
    let mut slot: FxHashMap<StringId, u32> = FxHashMap::default();
    let mut values: Vec<&str> = Vec::new();
    let keys = UInt32Array::from_iter_values(ids.map(|id| {
        *slot.entry(id).or_insert_with(|| {
            values.push(t.str(id));
            values.len() as u32 - 1
        })
    }));
    let values: ArrayRef = Arc::new(StringArray::from(values));
    Arc::new(DictionaryArray::<UInt32Type>::try_new(keys, values).expect("every key was made for a value"))
}

/// An enum's serde name (`snake_case`), as the CLI's JSON writes it.
fn word<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_value(v).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
}

fn words<'a, T: serde::Serialize + 'a>(vs: impl Iterator<Item = &'a T>) -> ArrayRef {
    let mut b = StringDictionaryBuilder::<UInt32Type>::new();
    for v in vs {
        b.append_value(word(v));
    }
    Arc::new(b.finish())
}

fn columns(table: &str) -> Option<Vec<(&'static str, Column)>> {
    Some(match table {
        "intervals" => vec![
            ("location", Made(|t| ids(t.intervals.location.iter().map(|l| l.0)))),
            ("region", Made(|t| ids(t.intervals.region.iter().map(|r| r.0)))),
            ("name", Made(|t| names(t, t.intervals.region.iter().map(|r| t.regions.name[r.index()])))),
            ("start_ns", U64(|t| &t.intervals.start_ns)),
            ("dur_ns", U64(|t| &t.intervals.dur_ns)),
            ("depth", U16(|t| &t.intervals.depth)),
        ],
        "messages" => vec![
            ("kind", Made(|t| words(t.messages.kind.iter()))),
            ("sender", Made(|t| ids(t.messages.sender.iter().map(|l| l.0)))),
            ("receiver", Made(|t| ids(t.messages.receiver.iter().map(|l| l.0)))),
            ("send_ns", U64(|t| &t.messages.send_ns)),
            ("recv_ns", U64(|t| &t.messages.recv_ns)),
            ("posted_ns", U64(|t| &t.messages.posted_ns)),
            ("size_bytes", U64(|t| &t.messages.size_bytes)),
            ("tag", U32(|t| &t.messages.tag)),
            ("name", Made(|t| names(t, t.messages.name.iter().copied()))),
        ],
        "collectives" => vec![
            ("operation", U32(|t| &t.collectives.operation)),
            ("location", Made(|t| ids(t.collectives.location.iter().map(|l| l.0)))),
            ("region", Made(|t| ids(t.collectives.region.iter().map(|r| r.0)))),
            ("name", Made(|t| names(t, t.collectives.region.iter().map(|r| t.regions.name[r.index()])))),
            ("communicator", Made(|t| names(t, t.collectives.communicator.iter().copied()))),
            ("root", Made(|t| Arc::new(t.collectives.root.iter().map(|r| r.map(|l| l.0)).collect::<UInt32Array>()))),
            ("start_ns", U64(|t| &t.collectives.start_ns)),
            ("end_ns", U64(|t| &t.collectives.end_ns)),
            ("bytes_sent", U64(|t| &t.collectives.bytes_sent)),
            ("bytes_received", U64(|t| &t.collectives.bytes_received)),
        ],
        "instants" => vec![
            ("location", Made(|t| ids(t.instants.location.iter().map(|l| l.0)))),
            ("region", Made(|t| ids(t.instants.region.iter().map(|r| r.0)))),
            ("name", Made(|t| names(t, t.instants.region.iter().map(|r| t.regions.name[r.index()])))),
            ("time_ns", U64(|t| &t.instants.time_ns)),
        ],
        "counters" => vec![
            ("series", U32(|t| &t.counters.sample_series)),
            (
                "name",
                Made(|t| {
                    let c = &t.counters;
                    names(
                        t,
                        c.sample_series.iter().map(|&s| c.series_name.get(s as usize).copied().unwrap_or_default()),
                    )
                }),
            ),
            (
                "process",
                Made(|t| {
                    let c = &t.counters;
                    Arc::new(
                        c.sample_series
                            .iter()
                            .map(|&s| c.series_process.get(s as usize).map(|p| p.0))
                            .collect::<UInt32Array>(),
                    )
                }),
            ),
            ("time_ns", U64(|t| &t.counters.sample_time_ns)),
            ("value", F64(|t| &t.counters.sample_value)),
        ],
        "locations" => vec![
            ("location", Made(|t| ids(0..t.locations.len() as u32))),
            ("process", Made(|t| ids(t.locations.process.iter().map(|p| p.0)))),
            ("process_name", Made(|t| names(t, t.locations.process.iter().map(|p| t.processes.name[p.index()])))),
            (
                "process_native_id",
                Made(|t| {
                    Arc::new(Int64Array::from_iter_values(
                        t.locations.process.iter().map(|p| t.processes.native_id[p.index()]),
                    ))
                }),
            ),
            ("native_id", I64(|t| &t.locations.native_id)),
            ("name", Made(|t| Arc::new(t.locations.name.iter().map(|&s| Some(t.str(s))).collect::<StringArray>()))),
            ("kind", Made(|t| words(t.locations.kind.iter()))),
            ("sort_key", I64(|t| &t.locations.sort_key)),
        ],
        "regions" => vec![
            ("region", Made(|t| ids(0..t.regions.len() as u32))),
            ("name", Made(|t| Arc::new(t.regions.name.iter().map(|&s| Some(t.str(s))).collect::<StringArray>()))),
            ("category", Made(|t| names(t, t.regions.category.iter().copied()))),
            ("paradigm", Made(|t| words(t.regions.paradigm.iter()))),
            ("role", Made(|t| words(t.regions.role.iter()))),
        ],
        _ => return None,
    })
}

fn unknown(name: &str) -> PyErr {
    PyValueError::new_err(format!("'{name}' is not a table; the tables are {}", NAMES.join(", ")))
}

/// The record batch of `name`.
pub fn batch(trace: &Arc<Trace>, name: &str) -> PyResult<RecordBatch> {
    let cols = columns(name).ok_or_else(|| unknown(name))?;
    let arrays: Vec<ArrayRef> = cols
        .iter()
        .map(|(_, c)| -> ArrayRef {
            match c {
                U64(f) => Arc::new(UInt64Array::new(lend(trace, *f), None)),
                U32(f) => Arc::new(UInt32Array::new(lend(trace, *f), None)),
                U16(f) => Arc::new(UInt16Array::new(lend(trace, *f), None)),
                I64(f) => Arc::new(Int64Array::new(lend(trace, *f), None)),
                F64(f) => Arc::new(Float64Array::new(lend(trace, *f), None)),
                Made(f) => f(trace),
            }
        })
        .collect();
    let fields: Vec<Field> =
        cols.iter().zip(&arrays).map(|((n, _), a)| Field::new(*n, a.data_type().clone(), a.null_count() > 0)).collect();
    RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// The table `name` as a `pyarrow.Table`.
pub fn table<'py>(py: Python<'py>, trace: &Arc<Trace>, name: &str) -> PyResult<Bound<'py, PyAny>> {
    let batch = py.detach(|| batch(trace, name))?;
    let schema = batch.schema();
    Table::try_new(vec![batch], schema).map_err(|e| PyValueError::new_err(e.to_string()))?.into_pyarrow(py)
}

/// The address of weft's column `column` of `name` when it is lent, None when it is made.
pub fn column_address(trace: &Trace, name: &str, column: &str) -> Option<usize> {
    let cols = columns(name)?;
    let (_, c) = cols.iter().find(|(n, _)| *n == column)?;
    Some(match c {
        U64(f) => address(trace, *f),
        U32(f) => address(trace, *f),
        U16(f) => address(trace, *f),
        I64(f) => address(trace, *f),
        F64(f) => address(trace, *f),
        Made(_) => return None,
    })
}

/// The columns of `name` that are lent without a copy.
pub fn lent_columns(name: &str) -> Vec<&'static str> {
    columns(name).unwrap_or_default().into_iter().filter(|(_, c)| !matches!(c, Made(_))).map(|(n, _)| n).collect()
}
