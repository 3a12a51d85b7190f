//! Thread events: the neutral input of the execution graph (thread start and end, fork, join begin and join
//! end, node init and exit), whatever format they came from: the execution-graph text format, OTF2 thread
//! create/begin/wait/end, OpenMP fork/join and task create/complete.
//!
//! This is a flat list in source order, not a graph: checking that the events make a fork/join program is the
//! graph builder's job (`analyses::execgraph`). No parsing and no layout here.
//!
//! The OTF2 mapping (`readers::otf2_threads`, documented in docs/otf2-threads.md; `origin_kind` `Event`):
//! - OTF2 pthreads: `ThreadCreate` on the creating location -> `Fork`, the child being the location whose
//!   `ThreadBegin` carries the same thread contingent and sequence count; `ThreadBegin` -> `Start`;
//!   `ThreadEnd` -> `End`; `ThreadWait` -> `JoinEnd`, with `JoinBegin` at the enter of the enclosing
//!   `pthread_join` region (or at the same time, a merged join, when there is none).
//! - OTF2 OpenMP: `ThreadFork` on the master -> a `Fork` per team member (from the team's `ThreadTeamBegin`);
//!   `ThreadJoin` -> a `JoinBegin`/`JoinEnd` pair per member, the begin at the implicit barrier's enter.
//! - Tasks: task create -> `Fork`, task begin/complete -> `Start`/`End`, taskwait -> joins of the children.
//! - Thread ids: any `u64` that is unique per thread in the run (for OTF2, the location index and the
//!   thread's instance on it, or the task number; see docs/otf2-threads.md).

/// What happened. Thread ids are the source's own (`u64`), not indices.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ThreadEventKind {
    /// Start of computation on a host node (the paper's `init`).
    Init,
    /// End of computation on a host node (`exit`).
    Exit,
    /// The thread begins to run.
    Start,
    /// The thread terminates.
    End,
    /// The thread creates the subthread `child`.
    Fork { child: u64 },
    /// The thread begins to wait for `joined` to terminate (`b-join`).
    JoinBegin { joined: u64 },
    /// The wait for `joined` is over; the thread continues (`a-join`).
    JoinEnd { joined: u64 },
}

impl ThreadEventKind {
    /// The keyword of the text format.
    pub fn keyword(self) -> &'static str {
        match self {
            ThreadEventKind::Init => "init",
            ThreadEventKind::Exit => "exit",
            ThreadEventKind::Start => "start",
            ThreadEventKind::End => "end",
            ThreadEventKind::Fork { .. } => "fork",
            ThreadEventKind::JoinBegin { .. } => "b-join",
            ThreadEventKind::JoinEnd { .. } => "a-join",
        }
    }
}

/// One event. `origin` is where it came from in the source (a line for text, an event index for binary
/// formats), so that the graph builder's errors can point at it; 0 when unknown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ThreadEvent {
    pub time_ns: u64,
    /// The host node (process, machine) the event happened on.
    pub node: u32,
    pub thread: u64,
    pub kind: ThreadEventKind,
    pub origin: u32,
}

/// Whether `origin` numbers lines of a text or events of a binary stream (for messages only).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum OriginKind {
    #[default]
    Line,
    Event,
}

/// The events of one run, in source order (within a thread, source order is the order of events).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ThreadEvents {
    /// The file (or sample) the events came from, for messages.
    pub source: String,
    pub origin_kind: OriginKind,
    pub events: Vec<ThreadEvent>,
    /// Threads drawn in another thread's column, `(thread, host)`: an OpenMP explicit task runs on a
    /// thread of its team, and is drawn inside that thread's column (TreVis: columns are threads).
    pub hosts: Vec<(u64, u64)>,
}

impl ThreadEvents {
    pub fn new(source: impl Into<String>) -> Self {
        ThreadEvents { source: source.into(), origin_kind: OriginKind::Line, events: Vec::new(), hosts: Vec::new() }
    }

    pub fn push(&mut self, time_ns: u64, node: u32, thread: u64, kind: ThreadEventKind) {
        let origin = self.events.len() as u32 + 1;
        self.events.push(ThreadEvent { time_ns, node, thread, kind, origin });
    }
}
