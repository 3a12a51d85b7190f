//! Collective operations from global communication records (`4:`): each participant writes one record per
//! operation, so the k-th record of a thread on communicator C belongs to the k-th operation on C (the same
//! rule OTF2 readers use for collective begin/end pairs). A participation starts at its record and ends when
//! the MPI call that was open on the thread at that time ends. The record's root (a rank of its
//! communicator) is kept as the converter resolved it: the root task's first thread. It must not parse text
//! or build intervals.

use std::collections::HashMap;
use weft_model::{CollectiveRecord, LocationId, RegionId, StringId};

struct Pending {
    operation: u32,
    thread: u32,
    region: RegionId,
    communicator: StringId,
    root: Option<u32>,
    start: u64,
    end: Option<u64>,
    sent: u64,
    received: u64,
}

#[derive(Default)]
pub(super) struct Collectives {
    pending: Vec<Pending>,
    /// (thread, communicator) -> records seen so far.
    seen: HashMap<(u32, u64), u32>,
    /// (communicator, k) -> operation id.
    operations: HashMap<(u64, u32), u32>,
    /// thread -> its participation still waiting for the end of its MPI call.
    open: HashMap<u32, usize>,
}

/// One participant's record, as the converter resolved it.
pub(super) struct Participation {
    pub thread: u32,
    pub region: RegionId,
    pub communicator_id: u64,
    pub communicator: StringId,
    /// The root's thread (its task's first), where the record names a root.
    pub root: Option<u32>,
    pub time: u64,
    pub sent: u64,
    pub received: u64,
    /// Whether an MPI call is open on the thread (the participation then ends with it).
    pub in_call: bool,
}

impl Collectives {
    pub fn participate(&mut self, p: Participation) {
        let k = self.seen.entry((p.thread, p.communicator_id)).or_insert(0);
        let next = self.operations.len() as u32;
        let operation = *self.operations.entry((p.communicator_id, *k)).or_insert(next);
        *k += 1;
        if p.in_call {
            self.open.insert(p.thread, self.pending.len());
        }
        self.pending.push(Pending {
            operation,
            thread: p.thread,
            region: p.region,
            communicator: p.communicator,
            root: p.root,
            start: p.time,
            end: (!p.in_call).then_some(p.time),
            sent: p.sent,
            received: p.received,
        });
    }

    /// An MPI call ended on `thread` at `time`.
    #[inline]
    pub fn call_ended(&mut self, thread: u32, time: u64) {
        if self.open.is_empty() {
            return;
        }
        if let Some(i) = self.open.remove(&thread) {
            let p = &mut self.pending[i];
            p.end = Some(time.max(p.start));
        }
    }

    pub fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }

    /// The records for the builder; `location` maps a thread to its location, `ns` ticks to ns.
    pub fn finish(self, mut location: impl FnMut(u32) -> LocationId, ns: impl Fn(u64) -> i64) -> Vec<CollectiveRecord> {
        self.pending
            .into_iter()
            .map(|p| CollectiveRecord {
                operation: p.operation,
                location: location(p.thread),
                region: p.region,
                communicator: p.communicator,
                root: p.root.map(&mut location),
                start_ns: ns(p.start),
                end_ns: ns(p.end.unwrap_or(p.start)),
                bytes_sent: p.sent,
                bytes_received: p.received,
            })
            .collect()
    }
}
