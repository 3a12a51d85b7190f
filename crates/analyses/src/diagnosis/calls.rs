//! The two facts every wait-state pattern starts from: what kind of MPI call a region is, and `op(e)`, the
//! innermost region open on a location when an event (a send, a receive, the posting of a receive) was
//! recorded.
//!
//! The model keeps intervals and event times, not the records' order, so `op(e)` is found by time. Where an
//! event's time equals the enter of one region and the leave of another at the same depth, the order of the
//! records decides in the trace, and [`Tie`] says which the caller takes: a send (or the posting of a receive)
//! is recorded after its call's enter ([`Tie::Entered`]: regions entered at `t` are open, regions left at `t`
//! closed); a receive is completed before its call's leave ([`Tie::Leaving`]: regions left at `t` are still
//! open).

use weft_model::{LocationId, Trace};

/// What a blocking collective's members wait for (docs/diagnosis.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CollectiveKind {
    /// MPI_Barrier: every member waits for the last to enter (`wait_at_barrier`).
    Barrier,
    /// Allreduce, Allgather[v], Alltoall[v|w], Reduce_scatter[_block], Scan, Exscan: every member waits for the
    /// last to enter (`wait_at_nxn`).
    NxN,
    /// Bcast, Scatter[v]: the non-roots wait for the root (`late_broadcast`).
    OneToN,
    /// Reduce, Gather[v]: the root waits for the first of the others (`early_reduce`).
    NToOne,
}

/// What an MPI call is, for the wait-state patterns. Only the calls a pattern names are told apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MpiCall {
    /// MPI_Recv, MPI_Mrecv, MPI_Probe, MPI_Mprobe: completes (or waits for) a receive and may block.
    BlockingReceive,
    /// MPI_Wait, MPI_Waitall, MPI_Waitany, MPI_Waitsome: completes requests and may block.
    Wait,
    /// MPI_Send, MPI_Ssend, MPI_Rsend: a blocking send (`late_receiver`). MPI_Bsend copies to a buffer and is
    /// left out.
    BlockingSend,
    /// MPI_Sendrecv, MPI_Sendrecv_replace: a blocking send and a blocking receive in one call.
    SendReceive,
    /// A blocking collective of one of the four kinds.
    Collective(CollectiveKind),
    /// Any other MPI call: non-blocking point-to-point (Isend, Irecv, ...), tests, non-blocking collectives,
    /// the rest of the library. No pattern counts waiting in it.
    Other,
}

impl MpiCall {
    /// The kind of the MPI call named `name` (`MPI_Recv`, `mpi_recv`, `PMPI_Recv` alike), or `None` where the
    /// name is not an MPI call.
    pub fn of(name: &str) -> Option<MpiCall> {
        let call = name.strip_prefix('P').unwrap_or(name);
        let call = call.strip_prefix("MPI_").or_else(|| call.strip_prefix("mpi_"))?;
        let call = call.to_ascii_lowercase();
        use CollectiveKind::*;
        Some(match call.as_str() {
            "recv" | "mrecv" | "probe" | "mprobe" => MpiCall::BlockingReceive,
            "wait" | "waitall" | "waitany" | "waitsome" => MpiCall::Wait,
            "send" | "ssend" | "rsend" => MpiCall::BlockingSend,
            "sendrecv" | "sendrecv_replace" => MpiCall::SendReceive,
            "barrier" => MpiCall::Collective(Barrier),
            "allreduce"
            | "allgather"
            | "allgatherv"
            | "alltoall"
            | "alltoallv"
            | "alltoallw"
            | "reduce_scatter"
            | "reduce_scatter_block"
            | "scan"
            | "exscan" => MpiCall::Collective(NxN),
            "bcast" | "scatter" | "scatterv" => MpiCall::Collective(OneToN),
            "reduce" | "gather" | "gatherv" => MpiCall::Collective(NToOne),
            _ => MpiCall::Other,
        })
    }

    /// Whether a call of this kind may block until a matched message's sender arrives (`late_sender`).
    pub fn completes_receives(self) -> bool {
        matches!(self, MpiCall::BlockingReceive | MpiCall::Wait | MpiCall::SendReceive)
    }

    /// Whether a call of this kind is a blocking send (`late_receiver`).
    pub fn is_blocking_send(self) -> bool {
        matches!(self, MpiCall::BlockingSend | MpiCall::SendReceive)
    }
}

/// Which region an event at a time shared by a leave and an enter falls in (the module's text).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tie {
    /// Regions entered at `t` are open, regions left at `t` closed: sends and the posting of receives.
    Entered,
    /// Regions left at `t` are still open: the completion of receives.
    Leaving,
}

/// Finds `op(e)` on any location: the innermost interval open at a time. Built once per trace (a parent
/// index per interval, O(intervals)); each lookup is a binary search and a climb through the enclosing
/// intervals that end before `t`.
pub struct OpLookup<'t> {
    trace: &'t Trace,
    /// For each interval, the index of the interval that encloses it on its location (one depth up), or
    /// `usize::MAX` at depth 0.
    parent: Vec<usize>,
}

impl<'t> OpLookup<'t> {
    pub fn new(trace: &'t Trace) -> Self {
        let iv = &trace.intervals;
        let mut parent = vec![usize::MAX; iv.len()];
        let mut stack: Vec<usize> = Vec::new();
        for range in &trace.location_intervals {
            stack.clear();
            for i in range.clone() {
                let d = iv.depth[i] as usize;
                stack.truncate(d);
                if let Some(&p) = stack.last() {
                    parent[i] = p;
                }
                // A gap in depths (a repaired trace) leaves the deeper interval under the nearest one above.
                while stack.len() < d {
                    let top = stack.last().copied().unwrap_or(usize::MAX);
                    stack.push(top);
                }
                stack.push(i);
            }
        }
        OpLookup { trace, parent }
    }

    /// The trace the lookup was built for.
    pub fn trace(&self) -> &'t Trace {
        self.trace
    }

    /// The interval that encloses interval `i` one level up, if any.
    pub fn parent(&self, i: usize) -> Option<usize> {
        let p = self.parent[i];
        (p != usize::MAX).then_some(p)
    }

    /// The index (in `trace.intervals`) of the innermost interval of `location` open at `t`, with ties
    /// broken as `tie` says; `None` where nothing is open.
    pub fn op_at(&self, location: LocationId, t: u64, tie: Tie) -> Option<usize> {
        let iv = &self.trace.intervals;
        let range = self.trace.intervals_of(location);
        let starts = &iv.start_ns[range.clone()];
        // The latest-starting interval that contains t is the innermost: nested intervals start no earlier
        // than their parents.
        let latest = |upto: usize| -> Option<usize> {
            let mut i = range.start + upto.checked_sub(1)?;
            loop {
                if iv.end_ns(i) >= t {
                    return Some(i);
                }
                i = self.parent(i)?;
            }
        };
        let entered = latest(starts.partition_point(|&s| s <= t));
        match tie {
            Tie::Entered => {
                // A region left exactly at t is closed, unless it is all there is.
                let e = entered?;
                if iv.end_ns(e) > t || iv.start_ns[e] == t {
                    return Some(e);
                }
                let mut i = e;
                while let Some(p) = self.parent(i) {
                    if iv.end_ns(p) > t {
                        return Some(p);
                    }
                    i = p;
                }
                Some(e)
            }
            Tie::Leaving => {
                let before = latest(starts.partition_point(|&s| s < t));
                match (entered, before) {
                    (Some(e), Some(b)) if iv.depth[b] >= iv.depth[e] => Some(b),
                    (Some(e), _) => Some(e),
                    (None, b) => b,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft_model::{Format, TraceBuilder};

    /// One location: main [0,100] with MPI_Send [10,20], MPI_Recv [20,30] (touching), MPI_Wait [40,40].
    fn trace() -> Trace {
        let mut b = TraceBuilder::new(Format::Generated);
        let p = b.process(0);
        let l = b.location(p, 0, weft_model::LocationKind::CpuThread);
        let main = b.region("main", "");
        let send = b.region("MPI_Send", "");
        let recv = b.region("MPI_Recv", "");
        let wait = b.region("MPI_Wait", "");
        b.interval(l, main, 0, 100);
        b.interval(l, send, 10, 10);
        b.interval(l, recv, 20, 10);
        b.interval(l, wait, 40, 0);
        b.finish()
    }

    fn name(t: &Trace, i: Option<usize>) -> &str {
        i.map_or("-", |i| t.region_name(t.intervals.region[i]))
    }

    #[test]
    fn innermost_region_with_ties_broken_by_the_record_order() {
        let t = trace();
        let ops = OpLookup::new(&t);
        let l = LocationId(0);
        assert_eq!(name(&t, ops.op_at(l, 15, Tie::Entered)), "MPI_Send");
        assert_eq!(name(&t, ops.op_at(l, 10, Tie::Entered)), "MPI_Send");
        assert_eq!(name(&t, ops.op_at(l, 10, Tie::Leaving)), "MPI_Send", "nothing left at 10: the entered one");
        // 20: MPI_Send left, MPI_Recv entered.
        assert_eq!(name(&t, ops.op_at(l, 20, Tie::Entered)), "MPI_Recv");
        assert_eq!(name(&t, ops.op_at(l, 20, Tie::Leaving)), "MPI_Send");
        assert_eq!(name(&t, ops.op_at(l, 30, Tie::Leaving)), "MPI_Recv");
        assert_eq!(name(&t, ops.op_at(l, 30, Tie::Entered)), "main", "left at 30: closed for a send");
        assert_eq!(name(&t, ops.op_at(l, 35, Tie::Entered)), "main");
        assert_eq!(name(&t, ops.op_at(l, 40, Tie::Entered)), "MPI_Wait", "a zero-length call holds its events");
        assert_eq!(name(&t, ops.op_at(l, 40, Tie::Leaving)), "MPI_Wait");
        assert_eq!(name(&t, ops.op_at(l, 100, Tie::Leaving)), "main");
        assert_eq!(name(&t, ops.op_at(l, 101, Tie::Leaving)), "-");
    }

    #[test]
    fn mpi_calls_by_name() {
        assert_eq!(MpiCall::of("MPI_Recv"), Some(MpiCall::BlockingReceive));
        assert_eq!(MpiCall::of("PMPI_Waitall"), Some(MpiCall::Wait));
        assert_eq!(MpiCall::of("mpi_sendrecv_replace"), Some(MpiCall::SendReceive));
        assert_eq!(MpiCall::of("MPI_Bsend"), Some(MpiCall::Other));
        assert_eq!(MpiCall::of("MPI_Testall"), Some(MpiCall::Other));
        assert_eq!(MpiCall::of("MPI_Iallreduce"), Some(MpiCall::Other));
        assert_eq!(MpiCall::of("MPI_Gatherv"), Some(MpiCall::Collective(CollectiveKind::NToOne)));
        assert_eq!(MpiCall::of("MPI_Reduce_scatter_block"), Some(MpiCall::Collective(CollectiveKind::NxN)));
        assert_eq!(MpiCall::of("solve"), None);
    }
}
