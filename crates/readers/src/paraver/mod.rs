//! Paraver reader (BSC; the traces Extrae and Dimemas write): the `.prv` trace, with names from the `.pcf`
//! (states, event types and values) and the `.row` (CPU, node, task and thread names) when they are given.
//!
//! Files: `header` (header line, communicator lines), `prv` (record scanner), `pcf`, `row` (the two name
//! files), `classify` (names, paradigms and roles of states and event types), and
//! `convert` (records to the model through the [`TraceBuilder`](weft_model::TraceBuilder)).
//!
//! How a Paraver trace maps to the model:
//! - Each task is a process ("Task N", or "Task A.N" with several applications, or its .row name). Each
//!   thread is a location ("THREAD a.t.h" or its .row name).
//! - **States and calls are two tracks.** Paraver's first view is the state timeline ("State as is": Running,
//!   Waiting a message, Group Communication, ...), one flat sequence per thread. The event-derived call
//!   regions (MPI calls, user functions) nest, and their boundaries do not line up with state changes (a
//!   Running burst spans an MPI call's entry), so putting both on one location would make the builder clip
//!   one by the other. Each thread therefore gets its own location for the call stack ("THREAD 1.1.1") and,
//!   right after it in display order, a second CPU-thread location for its states ("THREAD 1.1.1 (states)",
//!   native id = -thread). Either is created only when the trace has records for it, so a state-only trace
//!   (Dimemas) shows state tracks only and an event-only trace shows call stacks only; a declared thread
//!   with no record at all still gets its (empty) thread location. `weft info`'s `locations` therefore
//!   counts threads plus state tracks.
//! - States become intervals whose region is the .pcf state name (category "Paraver state"). Running is
//!   user code; send/receive/wait/probe states are MPI point-to-point, Group Communication is an MPI
//!   collective, Synchronization a barrier, I/O is I/O, Tracing Disabled is measurement. State 0 (Idle) is
//!   not kept by default: it means "nothing runs here", which a gap already says, and keeping it would make
//!   Idle the top region of every OpenMP trace; [`Options::keep_idle`] keeps it as its own region.
//! - Event records of call types become nested intervals: value != 0 enters the region named by the .pcf
//!   value label (category = the type's label), value 0 leaves the open region of that type. User
//!   functions nest (a new value enters a child, as Paraver's "Stacked Val"); for other types a new value
//!   first leaves the type's open region (its value lasts until the next, as Paraver's "Last Evt Val"),
//!   which is also how old traces that write no end for collectives read right.
//!   Call types are Extrae's MPI types (50000001..) and user functions (60000019), and any type whose .pcf
//!   labels value 0 "End...", "Outside ..." or "close" (Application, Flushing Traces, OpenMP, pthread,
//!   CUDA). The
//!   paradigm comes from the type; the MPI role from the call name. A "1 Begin / 0 End" type's region is
//!   named by the type ("Application"). Regions still open at the end close at the trace's end time.
//! - Other events (hardware counters, sizes, flags) are samples of a counter series per thread, named by
//!   the type's label (with " (thread h)" when the task has several threads).
//! - Communication records are point-to-point messages with size and tag, from the logical send time (the
//!   send call) to the physical receive time (when the data is there). The logical receive is when the
//!   receive was posted, which for a pre-posted receive is before the send: an arrow to it would run back.
//! - `events` (weft info) counts event records (`2:` lines).
//! - Global communication records (`4:`, written by old tracers and Dimemas; Paraver's own kernel skips
//!   them) become the model's collective operations: the k-th record of a thread on communicator C joins
//!   the k-th operation on C; a participation runs from its record to the end of the MPI call open on the
//!   thread then (the call's region names it), with the record's send and receive sizes.
//! - Times: the header's end-time suffix gives the unit (`_ns`, `_us`, `_ms`); a bare number is
//!   microseconds, as in Paraver's kernel (Extrae always writes `_ns`).
//! - Not read: the .pcf's state colours are parsed ([`Pcf::state_colors`]) but the model has no colour
//!   column; communicator lines are parsed but no record refers to them except global communications.
//!   A `.prv.gz` is gunzipped whole in memory first, held to a budget as it inflates (a gzip bomb is
//!   `ReadError::TooLarge` naming the file), and the intervals grow fallibly: memory that runs out is the same
//!   refusal, never an abort. A header may declare at most 1 M threads (a few
//!   bytes must not reserve gigabytes).
//!
//! It must not panic on any bytes. A header that does not parse is a [`ParaverError`] with the file and the
//! line; a bad body record, an unknown record kind, records out of time order and records naming threads
//! the header does not declare are counted warnings naming the file and line, and what can be read is kept.

mod classify;
mod collective;
mod convert;
pub mod header;
pub mod pcf;
pub mod prv;
pub mod row;
mod streamed;

use crate::ReadError;
pub use header::HeaderError;
pub use pcf::Pcf;
pub use prv::{Header, TimeUnit};
pub use row::Row;
#[cfg(not(target_arch = "wasm32"))]
pub use streamed::names_beside;
pub use streamed::read_streamed;
use thiserror::Error;
use weft_model::Trace;

const FORMAT: &str = "Paraver";

/// Reading choices.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Keep state 0 (Idle) as intervals of its own region instead of leaving gaps.
    pub keep_idle: bool,
}

/// What the reader saw, beyond what the model holds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    pub state_records: u64,
    pub event_records: u64,
    pub comm_records: u64,
    pub global_comm_records: u64,
    pub unknown_records: u64,
    pub malformed_records: u64,
    pub state_intervals: u64,
    pub idle_skipped: u64,
    pub call_intervals: u64,
    pub counter_samples: u64,
    /// Lines of the body (after the header and communicator lines).
    pub body_lines: u64,
}

/// Why a Paraver trace could not be read at all.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum ParaverError {
    #[error("{file}:{line}: Paraver header: {detail}")]
    Header { file: String, line: u64, offset: u64, detail: String },
    #[error("{file}: Paraver: the file holds a header but no records ({malformed} malformed lines skipped)")]
    NoRecords { file: String, malformed: u64 },
    /// The memory ran out while the trace was built: `bytes` more could not be had.
    #[error("{file}: Paraver: ran out of memory ({bytes} bytes more could not be had)")]
    OutOfMemory { file: String, bytes: u64 },
}

impl From<ParaverError> for ReadError {
    fn from(e: ParaverError) -> ReadError {
        match e {
            ParaverError::Header { file, line, offset, detail } => {
                ReadError::Malformed { file, format: FORMAT, offset, detail: format!("line {line}: {detail}") }
            }
            ParaverError::NoRecords { file, malformed: 0 } => {
                ReadError::Empty { file, format: FORMAT, detail: " (no records after the header)".into() }
            }
            ParaverError::NoRecords { file, malformed } => ReadError::Empty {
                file,
                format: FORMAT,
                detail: format!(" (no readable records after the header; {malformed} malformed lines skipped)"),
            },
            ParaverError::OutOfMemory { file, bytes } => {
                crate::budget::out_of_memory(&file, FORMAT, "its intervals", bytes)
            }
        }
    }
}

/// Read a Paraver trace held in memory: the .prv bytes (plain or gzipped, as `mpi2prv -z` writes) and, when
/// present, the .pcf and .row beside it. `name` names the .prv in messages. A gzipped .prv may unpack to at
/// most [`archive::DEFAULT_BUDGET_BYTES`](crate::archive::DEFAULT_BUDGET_BYTES), and no more than the
/// current budget's whole file ([`Budget::inflated`](crate::budget::Budget::inflated)); see
/// [`read_within`].
pub fn read(name: &str, prv: &[u8], pcf: Option<&[u8]>, row: Option<&[u8]>) -> Result<Trace, ReadError> {
    let limit = crate::budget::Budget::current().inflated(crate::archive::DEFAULT_BUDGET_BYTES);
    read_within(name, prv, pcf, row, limit)
}

/// [`read`] with a cap on the bytes a gzipped .prv may unpack to: the whole text is held in memory, so a gzip
/// bomb is refused ([`ReadError::TooLarge`] naming the file) once it passes `budget`, never inflated until memory
/// runs out; the text grows fallibly, so memory that runs out before the budget is the same refusal.
pub fn read_within(
    name: &str,
    prv: &[u8],
    pcf: Option<&[u8]>,
    row: Option<&[u8]>,
    budget: u64,
) -> Result<Trace, ReadError> {
    if !is_gzip(prv) {
        return Ok(read_with(name, prv, pcf, row, &Options::default())?.0);
    }
    let (plain, broke) = gunzip(name, prv, budget)?;
    if plain.is_empty() {
        let detail = broke.unwrap_or_else(|| "no data".into());
        return Err(ReadError::Decompress { file: name.to_string(), detail });
    }
    let mut trace = read_with(name, &plain, pcf, row, &Options::default())?.0;
    if let Some(e) = broke {
        trace.warnings.push(weft_model::WarningKind::Truncated, || {
            format!("{name}: the gzip stream breaks off ({e}); the records before the break are kept")
        });
    }
    Ok(trace)
}

fn is_gzip(bytes: &[u8]) -> bool {
    bytes.starts_with(&[0x1f, 0x8b])
}

/// Whether gzip bytes hold a Paraver trace (their first decompressed bytes are `#Paraver`).
pub fn is_gzipped_prv(bytes: &[u8]) -> bool {
    let mut head = [0u8; 8];
    let mut d = flate2::read::MultiGzDecoder::new(bytes);
    is_gzip(bytes) && std::io::Read::read_exact(&mut d, &mut head).is_ok() && &head == b"#Paraver"
}

/// Everything the gzip stream yields, and why it stopped early if it did (a truncated .prv.gz keeps its
/// records up to the break); too large when it yields more than `budget` bytes or more than memory allows.
fn gunzip(name: &str, bytes: &[u8], budget: u64) -> Result<(Vec<u8>, Option<String>), ReadError> {
    use crate::budget::{inflated_too_large, try_grow};
    use std::io::Read;
    let mut d = flate2::read::MultiGzDecoder::new(bytes);
    let mut out = Vec::new();
    let first = bytes.len().saturating_mul(4).min(usize::try_from(budget).unwrap_or(usize::MAX));
    try_grow(&mut out, first, name, FORMAT, "the inflated text")?;
    let mut buf = vec![0u8; 1 << 16];
    loop {
        match d.read(&mut buf) {
            Ok(0) => return Ok((out, None)),
            Ok(n) if (out.len() + n) as u64 > budget => return Err(inflated_too_large(name, "gzip stream", budget)),
            Ok(n) => {
                try_grow(&mut out, n, name, FORMAT, "the inflated text")?;
                out.extend_from_slice(&buf[..n]);
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Ok((out, Some(e.to_string()))),
        }
    }
}

/// [`read`] with options, returning the reader's [`Stats`] and typed errors.
pub fn read_with(
    name: &str,
    prv: &[u8],
    pcf: Option<&[u8]>,
    row: Option<&[u8]>,
    options: &Options,
) -> Result<(Trace, Stats), ParaverError> {
    let (header, body_at, first_line) = prv::parse_header(prv).map_err(|e| ParaverError::Header {
        file: name.to_string(),
        line: e.line,
        offset: e.offset,
        detail: e.detail,
    })?;
    let pcf = pcf.map(Pcf::parse);
    let row = row.map(Row::parse);
    let mut conv = converter(name, &header, pcf.as_ref(), row.as_ref(), options);
    let lines = prv::scan_body(&prv[body_at..], first_line, &mut conv);
    conv.stats.body_lines = lines;
    let s = &conv.stats;
    if s.state_records + s.event_records + s.comm_records + s.global_comm_records == 0 {
        return Err(ParaverError::NoRecords { file: name.to_string(), malformed: s.malformed_records });
    }
    conv.finish().map_err(|bytes| ParaverError::OutOfMemory { file: name.to_string(), bytes })
}

/// The converter for a trace of `header`, with the name files' problems and a .row that names another
/// number of threads already warned about.
fn converter<'a>(
    name: &'a str,
    header: &Header,
    pcf: Option<&'a Pcf>,
    row: Option<&'a Row>,
    options: &'a Options,
) -> convert::Converter<'a> {
    let mut conv = convert::Converter::new(name, header, pcf, row, options);
    let (pcf_name, row_name) = (sibling(name, "pcf"), sibling(name, "row"));
    let named =
        [(name, Some(&header.problems)), (&pcf_name, pcf.map(|p| &p.problems)), (&row_name, row.map(|r| &r.problems))];
    for (file, problems) in named {
        for (line, what) in problems.into_iter().flatten() {
            conv.b.warn(weft_model::WarningKind::MalformedRecord, || format!("{file}:{line}: {what}; ignored"));
        }
    }
    if let Some(r) = row {
        let threads = header.threads();
        if !r.threads.is_empty() && r.threads.len() as u64 != threads {
            let n = r.threads.len();
            conv.b.warn(weft_model::WarningKind::Other, || {
                format!("{row_name}: names {n} threads, the trace declares {threads}; names are given in order")
            });
        }
    }
    conv
}

/// `dir/x.prv` (or `dir/x.prv.gz`) -> `dir/x.<ext>`: the name files beside a trace.
pub fn sibling(prv_name: &str, ext: &str) -> String {
    let stem = prv_name.strip_suffix(".gz").unwrap_or(prv_name);
    let stem = stem.strip_suffix(".prv").unwrap_or(stem);
    format!("{stem}.{ext}")
}

/// The .prv at `path`, already in memory, with the .pcf and .row beside it when they exist and are regular
/// files (native only).
#[cfg(not(target_arch = "wasm32"))]
pub fn read_beside(path: &std::path::Path, prv: &[u8]) -> Result<Trace, ReadError> {
    let name = path.display().to_string();
    let (pcf, row, left_out) = streamed::names_beside(&name);
    let mut trace = read(&name, prv, pcf.as_deref(), row.as_deref())?;
    for e in left_out {
        trace.warnings.push(weft_model::WarningKind::Other, || e);
    }
    Ok(trace)
}
