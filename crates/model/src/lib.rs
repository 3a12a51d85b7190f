//! The trace model: one columnar (struct-of-arrays) store that every reader fills and every analysis reads.
//!
//! Times are integer nanoseconds relative to the trace's first event (`origin_ns` keeps the absolute offset).
//! Ids are newtypes indexing the columns. Strings are interned once. Event args (Chrome `args`) are a sparse
//! side table of intervals and instants ([`args`]): an event without args costs nothing. This module knows
//! no file format and no view: readers go through [`TraceBuilder`], which repairs nesting and normalises
//! time in one place.
//!
//! The crate also holds two helpers every layer uses: [`sort`] (one sort instance per element type, for the
//! download size) and [`columns`] (numeric columns as bytes, for the bundles that cross from the worker to
//! the page).

// A library returns what it finds; only the CLI, examples and tests print.
#![warn(clippy::print_stdout)]

pub mod args;
mod builder;
pub mod codec;
pub mod columns;
pub mod grains;
pub mod sort;
mod strings;
pub mod text;
pub mod thread_events;
mod warnings;

pub use args::{Arg, ArgKind, ArgTable, EventArgs};
pub use builder::{
    classify_region, CollectiveRecord, MessageRecord, MessageSink, SampleSink, TraceBuilder, SAMPLE_BATCH,
};
pub use strings::{StringId, StringTable};
pub use warnings::{Warning, WarningEffect, WarningKind, Warnings};

use crate::sort::SortDyn;
use serde::{Deserialize, Serialize};
use std::ops::Range;

/// The reader (and so the file format) a trace came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    ChromeJson,
    Otf2,
    Paraver,
    MirTaskStats,
    GraphMl,
    ExecGraphText,
    Generated,
    NsightSqlite,
    NsightCsv,
    Slog2,
    Clog2,
    Clog,
    Rlog,
    HpcToolkit,
    Projections,
    /// Perfetto's protobuf trace format.
    Perfetto,
    Darshan,
}

impl Format {
    /// Every format, in declaration order (a format's code in the model's encoding is its place here).
    pub const ALL: [Format; 17] = [
        Format::ChromeJson,
        Format::Otf2,
        Format::Paraver,
        Format::MirTaskStats,
        Format::GraphMl,
        Format::ExecGraphText,
        Format::Generated,
        Format::NsightSqlite,
        Format::NsightCsv,
        Format::Slog2,
        Format::Clog2,
        Format::Clog,
        Format::Rlog,
        Format::HpcToolkit,
        Format::Projections,
        Format::Perfetto,
        Format::Darshan,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Format::ChromeJson => "chrome-json",
            Format::Otf2 => "otf2",
            Format::Paraver => "paraver",
            Format::MirTaskStats => "mir-task-stats",
            Format::GraphMl => "graphml",
            Format::ExecGraphText => "execgraph-text",
            Format::Generated => "generated",
            Format::NsightSqlite => "nsight-sqlite",
            Format::NsightCsv => "nsight-nvtx-csv",
            Format::Slog2 => "slog2",
            Format::Clog2 => "clog2",
            Format::Clog => "clog",
            Format::Rlog => "rlog",
            Format::HpcToolkit => "hpctoolkit",
            Format::Projections => "projections",
            Format::Perfetto => "perfetto",
            Format::Darshan => "darshan",
        }
    }
}

macro_rules! id_type {
    ($(#[$m:meta])* $name:ident) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize)]
        pub struct $name(pub u32);
        impl $name {
            #[inline]
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }
    };
}

id_type!(
    /// A process (an MPI rank, an OS process, a Chrome renderer).
    ProcessId
);
id_type!(
    /// A location: a thread, a GPU stream, or an async track, belonging to one process.
    LocationId
);
id_type!(
    /// A region: a named code region (function, MPI call, OpenMP construct, slice name).
    RegionId
);

/// The programming model a region belongs to; drives colouring and what counts as communication.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Paradigm {
    Unknown,
    User,
    Compiler,
    Mpi,
    OpenMp,
    Pthread,
    Cuda,
    Gpu,
    Io,
    Measurement,
}

/// What a region does, as OTF2 defines region roles (a subset that the analyses use).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RegionRole {
    Unknown,
    Function,
    Wrapper,
    Loop,
    Code,
    Parallel,
    Sections,
    Section,
    Workshare,
    Single,
    Master,
    Critical,
    Atomic,
    Barrier,
    ImplicitBarrier,
    Flush,
    Ordered,
    Task,
    TaskCreate,
    TaskWait,
    Collective,
    PointToPoint,
    Allocate,
    Deallocate,
    FileIo,
    Artificial,
}

/// What kind of lane a location is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LocationKind {
    CpuThread,
    GpuStream,
    /// A track of asynchronous slices (Chrome async events), drawn like a thread.
    AsyncTrack,
    Metric,
}

#[derive(Clone, Debug, Default)]
pub struct Processes {
    /// The id the trace gives the process (pid, MPI rank).
    pub native_id: Vec<i64>,
    pub name: Vec<StringId>,
    /// Explicit sort key from the trace (Chrome `process_sort_index`), else the native id.
    pub sort_key: Vec<i64>,
}

impl Processes {
    pub fn len(&self) -> usize {
        self.native_id.len()
    }
    pub fn is_empty(&self) -> bool {
        self.native_id.is_empty()
    }
}

#[derive(Clone, Debug, Default)]
pub struct Locations {
    pub process: Vec<ProcessId>,
    /// The id the trace gives the location (tid, OTF2 location id).
    pub native_id: Vec<i64>,
    pub name: Vec<StringId>,
    pub kind: Vec<LocationKind>,
    pub sort_key: Vec<i64>,
}

impl Locations {
    pub fn len(&self) -> usize {
        self.process.len()
    }
    pub fn is_empty(&self) -> bool {
        self.process.is_empty()
    }
}

#[derive(Clone, Debug, Default)]
pub struct Regions {
    pub name: Vec<StringId>,
    /// Category as the trace gives it (Chrome `cat`), or empty.
    pub category: Vec<StringId>,
    pub paradigm: Vec<Paradigm>,
    pub role: Vec<RegionRole>,
}

impl Regions {
    pub fn len(&self) -> usize {
        self.name.len()
    }
    pub fn is_empty(&self) -> bool {
        self.name.is_empty()
    }
}

/// Intervals (a region's time on a location), sorted by location, then start, then depth.
/// Within one location and depth, intervals never overlap: the builder repairs what the trace breaks.
#[derive(Clone, Debug, Default)]
pub struct Intervals {
    pub location: Vec<LocationId>,
    pub region: Vec<RegionId>,
    pub start_ns: Vec<u64>,
    pub dur_ns: Vec<u64>,
    pub depth: Vec<u16>,
    /// The args of the intervals that have any (Chrome `args`), sparse: see [`args`].
    pub args: EventArgs,
}

impl Intervals {
    pub fn len(&self) -> usize {
        self.location.len()
    }
    pub fn is_empty(&self) -> bool {
        self.location.is_empty()
    }
    #[inline]
    pub fn end_ns(&self, i: usize) -> u64 {
        self.start_ns[i] + self.dur_ns[i]
    }
    /// Bytes the columns hold, for the memory-per-interval figure.
    pub fn heap_bytes(&self) -> usize {
        self.location.capacity() * 4
            + self.region.capacity() * 4
            + self.start_ns.capacity() * 8
            + self.dur_ns.capacity() * 8
            + self.depth.capacity() * 2
            + self.args.heap_bytes()
    }
}

/// Instant events: a point in time on a location (or process- or global-scoped, placed on a location).
#[derive(Clone, Debug, Default)]
pub struct Instants {
    pub location: Vec<LocationId>,
    pub region: Vec<RegionId>,
    pub time_ns: Vec<u64>,
    /// The args of the instants that have any, sparse: see [`args`].
    pub args: EventArgs,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MessageKind {
    /// A point-to-point message (MPI send/recv): `size` and `tag` are meaningful.
    PointToPoint,
    /// A flow arrow (Chrome flow events, causal links between slices).
    Flow,
}

/// Messages and flows: something leaves one location at one time and arrives at another.
#[derive(Clone, Debug, Default)]
pub struct Messages {
    pub kind: Vec<MessageKind>,
    pub sender: Vec<LocationId>,
    pub receiver: Vec<LocationId>,
    pub send_ns: Vec<u64>,
    pub recv_ns: Vec<u64>,
    /// When the receive was posted: the MPI_Irecv's request event for a non-blocking receive; `recv_ns`
    /// for a receive posted by the call that completes it (MPI_Recv) and where the format does not say.
    pub posted_ns: Vec<u64>,
    pub size_bytes: Vec<u64>,
    pub tag: Vec<u32>,
    /// Communicator for messages, name for flows.
    pub name: Vec<StringId>,
}

impl Messages {
    pub fn len(&self) -> usize {
        self.kind.len()
    }
    pub fn is_empty(&self) -> bool {
        self.kind.is_empty()
    }
}

/// Collective operations: one row per participating location per operation.
#[derive(Clone, Debug, Default)]
pub struct Collectives {
    /// Which operation instance a row belongs to (rows of one operation share it).
    pub operation: Vec<u32>,
    pub location: Vec<LocationId>,
    pub region: Vec<RegionId>,
    pub communicator: Vec<StringId>,
    /// Root location, where the operation has one.
    pub root: Vec<Option<LocationId>>,
    pub start_ns: Vec<u64>,
    pub end_ns: Vec<u64>,
    pub bytes_sent: Vec<u64>,
    pub bytes_received: Vec<u64>,
}

impl Collectives {
    pub fn len(&self) -> usize {
        self.location.len()
    }
    pub fn is_empty(&self) -> bool {
        self.location.is_empty()
    }
    /// Number of distinct operations.
    pub fn operations(&self) -> usize {
        self.operation.iter().copied().max().map_or(0, |m| m as usize + 1)
    }
}

/// Counters: named series of samples, each series attached to a process.
#[derive(Clone, Debug, Default)]
pub struct Counters {
    pub series_name: Vec<StringId>,
    pub series_process: Vec<ProcessId>,
    /// Samples sorted by series, then time.
    pub sample_series: Vec<u32>,
    pub sample_time_ns: Vec<u64>,
    pub sample_value: Vec<f64>,
}

/// A whole trace, after the builder has normalised it.
#[derive(Clone, Debug)]
pub struct Trace {
    pub format: Format,
    pub strings: StringTable,
    pub processes: Processes,
    pub locations: Locations,
    pub regions: Regions,
    pub intervals: Intervals,
    pub instants: Instants,
    pub messages: Messages,
    pub collectives: Collectives,
    pub counters: Counters,
    pub warnings: Warnings,
    /// Absolute time of the trace's first event, in the source's clock (ns).
    pub origin_ns: i64,
    /// Time of the last event end, relative to origin.
    pub span_ns: u64,
    /// For each location, the range of its intervals in `intervals`.
    pub location_intervals: Vec<Range<usize>>,
    /// Event records the reader decoded (JSON events, OTF2 event records), for `weft info`.
    pub event_records: u64,
}

impl Trace {
    pub fn str(&self, id: StringId) -> &str {
        self.strings.get(id)
    }
    pub fn region_name(&self, r: RegionId) -> &str {
        self.strings.get(self.regions.name[r.index()])
    }
    pub fn location_name(&self, l: LocationId) -> &str {
        self.strings.get(self.locations.name[l.index()])
    }
    pub fn process_name(&self, p: ProcessId) -> &str {
        self.strings.get(self.processes.name[p.index()])
    }
    /// Intervals of one location (sorted by start, then depth).
    pub fn intervals_of(&self, l: LocationId) -> Range<usize> {
        self.location_intervals[l.index()].clone()
    }
    /// A location that only records counter samples (an OTF2 METRIC location, as ROCm SMI's on an MI300 run):
    /// of the metric kind and without an interval. Its samples are counter series of its process (its
    /// location group), drawn with the counter tracks; it takes no timeline or moments row of its own.
    pub fn records_only_metrics(&self, l: LocationId) -> bool {
        self.locations.kind[l.index()] == LocationKind::Metric && self.intervals_of(l).is_empty()
    }

    /// Locations in display order: grouped by process (by sort key), then by location sort key.
    pub fn locations_in_display_order(&self) -> Vec<LocationId> {
        let mut order: Vec<LocationId> = (0..self.locations.len() as u32).map(LocationId).collect();
        order.sort_dyn_by_key(|l| {
            let p = self.locations.process[l.index()];
            (
                self.processes.sort_key[p.index()],
                p.0,
                self.locations.kind[l.index()] as u8,
                self.locations.sort_key[l.index()],
                l.0,
            )
        });
        order
    }
}
