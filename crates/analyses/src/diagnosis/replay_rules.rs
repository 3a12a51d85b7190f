//! What each call waits for in the what-if replay (`whatif.rs`): the wait-state patterns' rules turned into
//! constraints on re-timed enters. A call may wait for several terms; each term is the latest (or, for a
//! reduce's root, the earliest) enter of a set of cause calls:
//!
//! - a call that completes receives (MPI_Recv, MPI_Wait*, MPI_Sendrecv*, MPI_Probe): per message, the enter of
//!   `op(send)` (late sender);
//! - a blocking send (MPI_Send, MPI_Ssend, MPI_Rsend, MPI_Sendrecv*): per message, the enter of the call that
//!   posted the receive (late receiver);
//! - a blocking collective member, per operation instance: barrier and N x N the latest enter of all members,
//!   broadcast and scatter (non-roots) the root's enter, reduce and gather (the root) the earliest enter of the
//!   others;
//! - and any wait of [`WaitStates`] with a cause (patterns beyond MPI among them): its cause's enter, where a
//!   call enters on the cause location at the cause's time.
//!
//! Rules are found for every call instance, waiting or not in the recording (a call that did not wait may wait
//! once the run is re-timed). A term whose recorded cause comes after the call's recorded waiting end did not
//! hold the call up in this run (an eager send whose receive was posted after it left; clocks that disagree):
//! it is left out. Each call carries the recorded waiting no term explains ([`CallRule::held`]), so that the
//! recorded times are the replay's fixed point. This module must not re-time anything.

use std::ops::Range;

use rustc_hash::FxHashMap as HashMap;
use weft_model::{LocationId, MessageKind, Trace};

use super::calls::{CollectiveKind, MpiCall, OpLookup, Tie};
use super::waits::{call_kinds, operations, posting_tie, WaitStates};

/// What one call waits for.
#[derive(Clone, Debug)]
pub(crate) struct CallRule {
    /// The recorded end of the call's waiting part (its enter where it did not wait).
    pub wait_end_ns: u64,
    /// Its terms, in [`Rules::terms`].
    pub terms: Range<usize>,
    /// Recorded waiting that no term explains: kept, after the re-timed waiting.
    pub held: u64,
}

/// The latest (`min`: the earliest) re-timed enter of some calls.
#[derive(Clone, Debug)]
pub(crate) struct Term {
    pub min: bool,
    /// The cause calls, in [`Rules::causes`].
    pub causes: Range<usize>,
    /// The recorded cause: where the term released the call in the recording.
    pub recorded: u64,
}

pub(crate) struct Rules {
    /// By call (an interval index).
    pub rules: HashMap<usize, CallRule>,
    pub terms: Vec<Term>,
    pub causes: Vec<usize>,
    /// The sum of [`CallRule::held`].
    pub held_wait_ns: u64,
}

/// A term before grouping: the call it belongs to, and its causes in a shared list.
struct Raw {
    call: usize,
    min: bool,
    causes: Range<usize>,
}

/// The blocking collective call of a collective row: its call and kind.
fn member(trace: &Trace, ops: &OpLookup, kinds: &[Option<MpiCall>], row: usize) -> Option<(usize, CollectiveKind)> {
    let c = &trace.collectives;
    let call = ops.op_at(c.location[row], c.start_ns[row], Tie::Entered)?;
    match kinds[trace.intervals.region[call].index()] {
        Some(MpiCall::Collective(k)) => Some((call, k)),
        _ => None,
    }
}

/// The rules of every call of `trace` (the module's text).
pub(crate) fn rules(trace: &Trace, ops: &OpLookup, states: &WaitStates) -> Rules {
    let kinds = call_kinds(trace);
    let kind = |i: usize| kinds[trace.intervals.region[i].index()];
    let mut raw: Vec<Raw> = Vec::new();
    let mut all: Vec<usize> = Vec::new();
    let mut add = |raw: &mut Vec<Raw>, call: usize, min: bool, causes: &[usize]| {
        let from = all.len();
        all.extend_from_slice(causes);
        raw.push(Raw { call, min, causes: from..all.len() });
    };

    let m = &trace.messages;
    for k in 0..m.len() {
        if m.kind[k] != MessageKind::PointToPoint {
            continue;
        }
        let send = ops.op_at(m.sender[k], m.send_ns[k], Tie::Entered);
        if let (Some(recv), Some(send)) = (ops.op_at(m.receiver[k], m.recv_ns[k], Tie::Leaving), send) {
            if kind(recv).is_some_and(MpiCall::completes_receives) {
                add(&mut raw, recv, false, &[send]);
            }
        }
        if let Some(send) = send.filter(|&s| kind(s).is_some_and(MpiCall::is_blocking_send)) {
            if let Some(post) = ops.op_at(m.receiver[k], m.posted_ns[k], posting_tie(trace, k)) {
                add(&mut raw, send, false, &[post]);
            }
        }
    }

    let c = &trace.collectives;
    let mut members: Vec<(usize, LocationId)> = Vec::new();
    for rows in operations(trace) {
        members.clear();
        let mut op_kind = None;
        for &row in &rows {
            if let Some((call, k)) = member(trace, ops, &kinds, row) {
                // One operation is one kind (as the patterns take it).
                if *op_kind.get_or_insert(k) == k {
                    members.push((call, c.location[row]));
                }
            }
        }
        let Some(op_kind) = op_kind else { continue };
        if members.len() < 2 {
            continue;
        }
        let calls: Vec<usize> = members.iter().map(|m| m.0).collect();
        let root = rows.iter().find_map(|&row| c.root[row]).and_then(|r| members.iter().find(|m| m.1 == r).copied());
        match op_kind {
            CollectiveKind::Barrier | CollectiveKind::NxN => {
                for &(call, _) in &members {
                    add(&mut raw, call, false, &calls);
                }
            }
            CollectiveKind::OneToN => {
                if let Some((root, at)) = root {
                    for &(call, _) in members.iter().filter(|m| m.1 != at) {
                        add(&mut raw, call, false, &[root]);
                    }
                }
            }
            CollectiveKind::NToOne => {
                if let Some((root, at)) = root {
                    let others: Vec<usize> = members.iter().filter(|m| m.1 != at).map(|m| m.0).collect();
                    add(&mut raw, root, true, &others);
                }
            }
        }
    }

    // The recorded waiting of each call, and the causes the wait states name.
    let iv = &trace.intervals;
    let mut waited: HashMap<usize, u64> = HashMap::default();
    for w in &states.waits {
        if w.call >= iv.len() {
            continue;
        }
        let x = waited.entry(w.call).or_insert(0);
        *x = (*x).max(w.ns());
        let cause = w.cause_location.filter(|l| l.index() < trace.locations.len());
        if let Some(j) = cause.and_then(|l| ops.op_at(l, w.cause_ns, Tie::Entered)) {
            if iv.start_ns[j] == w.cause_ns {
                add(&mut raw, w.call, false, &[j]);
            }
        }
    }
    for &call in waited.keys() {
        add(&mut raw, call, false, &[]);
    }

    raw.sort_by_key(|r| (r.call, r.causes.start));
    let mut out = Rules { rules: HashMap::default(), terms: Vec::new(), causes: Vec::new(), held_wait_ns: 0 };
    let mut k = 0;
    while k < raw.len() {
        let call = raw[k].call;
        let enter = iv.start_ns[call];
        let wait_end = enter.saturating_add(waited.get(&call).copied().unwrap_or(0)).min(iv.end_ns(call));
        let first = out.terms.len();
        // Where the recorded causes release the call (those before its recorded waiting end).
        let mut released = enter;
        while k < raw.len() && raw[k].call == call {
            let r = &raw[k];
            k += 1;
            let causes = &all[r.causes.clone()];
            let starts = causes.iter().map(|&j| iv.start_ns[j]);
            let Some(at) = (if r.min { starts.min() } else { starts.max() }) else { continue };
            if at > wait_end {
                continue;
            }
            released = released.max(at);
            let from = out.causes.len();
            out.causes.extend_from_slice(causes);
            out.terms.push(Term { min: r.min, causes: from..out.causes.len(), recorded: at });
        }
        let held = wait_end - released;
        out.held_wait_ns += held;
        out.rules.insert(call, CallRule { wait_end_ns: wait_end, terms: first..out.terms.len(), held });
    }
    out
}
