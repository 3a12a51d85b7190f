//! The raw threading events of an OTF2 trace (fork/join, thread teams, create/begin/wait/end, OpenMP and
//! THREAD_TASK_* task events), kept as typed records for the execution-graph and grain-graph analyses, which
//! need the structure the interval model flattens away.
//!
//! Plain data: no decoding here, and no interpretation (pairing forks with joins is the analyses' job).

use weft_model::LocationId;

/// What happened. Communicator-valued fields (`team`, `contingent`) are OTF2 global communicator ids;
/// `creating_thread` is a rank within `team`, as OTF2 records it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ThreadEventKind {
    /// THREAD_FORK: this location opens a parallel region of `requested_threads` (model: OTF2 paradigm).
    Fork {
        model: u8,
        requested_threads: u32,
    },
    Join {
        model: u8,
    },
    TeamBegin {
        team: u32,
    },
    TeamEnd {
        team: u32,
    },
    /// THREAD_CREATE / BEGIN / WAIT / END: `sequence` pairs a create with the begin, end and wait it causes.
    Create {
        contingent: u32,
        sequence: u64,
    },
    Begin {
        contingent: u32,
        sequence: u64,
    },
    Wait {
        contingent: u32,
        sequence: u64,
    },
    End {
        contingent: u32,
        sequence: u64,
    },
    /// THREAD_TASK_*: a task is named by (team, creating_thread, generation).
    TaskCreate {
        team: u32,
        creating_thread: u32,
        generation: u32,
    },
    TaskSwitch {
        team: u32,
        creating_thread: u32,
        generation: u32,
    },
    TaskComplete {
        team: u32,
        creating_thread: u32,
        generation: u32,
    },
    /// The pre-OTF2-1.2 OpenMP records (OMP_FORK, OMP_JOIN, OMP_TASK_*), still written by some tools.
    OmpFork {
        requested_threads: u32,
    },
    OmpJoin,
    OmpTaskCreate {
        task: u64,
    },
    OmpTaskSwitch {
        task: u64,
    },
    OmpTaskComplete {
        task: u64,
    },
}

/// One threading event on one location; `time_ns` is relative to the trace's origin like every model time
/// (events before the origin are clamped to 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ThreadEvent {
    pub location: LocationId,
    pub time_ns: u64,
    pub kind: ThreadEventKind,
}

/// All threading events, per location in time order, locations in model order.
pub type ThreadEvents = Vec<ThreadEvent>;
