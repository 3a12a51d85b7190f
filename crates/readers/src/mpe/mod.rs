//! MPE / Jumpshot trace formats (MPICH's MPE2 logging library and its viewer): SLOG-2 (`slog2.rs`, the
//! viewer's frame tree of drawables), CLOG2 (`clog2.rs`, what MPE2 writes: a text preamble, then fixed-size
//! blocks of records), the older CLOG of MPICH 1.x (`clog.rs`) and MPICH2's RLOG (`rlog.rs`). All map into the model the same way:
//! MPI ranks are processes, their threads (SLOG-2 timelines) locations, states intervals, arrows or send/receive
//! pairs point-to-point messages (with tag and size), solo events instants.
//!
//! This module holds what the readers share: the sniffing of each format by its first bytes ([`sniff`]), the
//! locations of ranks and threads ([`Ranks`]), states paired from their start and final events
//! ([`StatePairs`]) and messages matched by (sender, receiver, tag) in order ([`MessageMatch`]). It must not
//! read bytes of one format (each reader does) nor repair nesting (the builder does).

pub mod clog;
pub mod clog2;
mod cursor;
pub mod rlog;
pub mod slog2;

use std::collections::HashMap;
use weft_model::{
    classify_region, LocationId, LocationKind, MessageKind, MessageRecord, RegionId, RegionRole, TraceBuilder,
    WarningKind,
};

/// Which MPE format the first bytes are, if any.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Slog2,
    Clog2,
    Clog,
    Rlog,
}

/// Identify an MPE file from its first bytes: SLOG-2 by its Java-string version ("SLOG 2.x"), CLOG2 by its
/// preamble's version string ("CLOG-02.xx"), the old CLOG (no magic) by its first records being well formed,
/// RLOG by its header section.
pub fn sniff(bytes: &[u8]) -> Option<Kind> {
    if bytes.len() >= 8 {
        let n = u16::from_be_bytes([bytes[0], bytes[1]]) as usize;
        if (6..=32).contains(&n) && bytes[2..].starts_with(b"SLOG 2") {
            return Some(Kind::Slog2);
        }
    }
    if bytes.starts_with(b"CLOG-02.") {
        return Some(Kind::Clog2);
    }
    if clog::looks_like_clog(bytes) {
        return Some(Kind::Clog);
    }
    if rlog::looks_like_rlog(bytes) {
        return Some(Kind::Rlog);
    }
    None
}

/// Processes and locations of MPI ranks and their threads, named "Rank r" (and "Rank r, thread t").
#[derive(Default)]
pub(crate) struct Ranks {
    index: HashMap<(i64, i64), LocationId>,
}

impl Ranks {
    pub fn location(&mut self, b: &mut TraceBuilder, rank: i64, thread: i64) -> LocationId {
        if let Some(&l) = self.index.get(&(rank, thread)) {
            return l;
        }
        let p = b.process(rank);
        b.set_process_name(p, &format!("Rank {rank}"));
        let l = b.location(p, thread, LocationKind::CpuThread);
        let name = if thread == 0 { format!("Rank {rank}") } else { format!("Rank {rank}, thread {thread}") };
        b.set_location_name(l, &name);
        self.index.insert((rank, thread), l);
        l
    }
}

/// Regions by state or event name, made once each. MPE 1.x names MPI states by the routine in capitals
/// without its prefix ("SEND", "BARRIER"): those that are communication or synchronization are marked MPI
/// (with their role) so the views that look for MPI calls (particles, busy time) find them.
#[derive(Default)]
pub(crate) struct Regions {
    by_name: HashMap<String, RegionId>,
}

impl Regions {
    pub fn get(&mut self, b: &mut TraceBuilder, name: &str) -> RegionId {
        if let Some(&r) = self.by_name.get(name) {
            return r;
        }
        let capitals =
            !name.is_empty() && name.bytes().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == b'_');
        let (paradigm, role) = classify_region(&format!("MPI_{name}"), "");
        let r = if capitals && matches!(role, RegionRole::Barrier | RegionRole::Collective | RegionRole::PointToPoint) {
            b.region_with(name, "mpe", paradigm, role)
        } else {
            b.region(name, "mpe")
        };
        self.by_name.insert(name.to_string(), r);
        r
    }
}

/// States made of a start and a final event (CLOG, CLOG2): open states per location and state, innermost
/// last; a final closes the latest open start of its state on its location.
#[derive(Default)]
pub(crate) struct StatePairs {
    open: HashMap<(LocationId, u32), Vec<i64>>,
    /// Latest event time per location: states never closed end there.
    last: HashMap<LocationId, i64>,
}

impl StatePairs {
    pub fn seen(&mut self, loc: LocationId, t: i64) {
        let e = self.last.entry(loc).or_insert(t);
        *e = (*e).max(t);
    }

    pub fn start(&mut self, loc: LocationId, state: u32, t: i64) {
        self.seen(loc, t);
        self.open.entry((loc, state)).or_default().push(t);
    }

    /// Close the latest open `state` on `loc` at `t`; false when none is open.
    pub fn finish(&mut self, b: &mut TraceBuilder, loc: LocationId, state: u32, region: RegionId, t: i64) -> bool {
        self.seen(loc, t);
        match self.open.get_mut(&(loc, state)).and_then(Vec::pop) {
            Some(start) => {
                b.interval(loc, region, start.min(t), t.abs_diff(start));
                true
            }
            None => false,
        }
    }

    /// States still open at the end: closed at their location's last event, with a warning naming the file.
    pub fn close_all(self, b: &mut TraceBuilder, file: &str, region: impl Fn(u32) -> RegionId) {
        let mut open: Vec<_> = self.open.into_iter().filter(|(_, v)| !v.is_empty()).collect();
        open.sort_by_key(|(k, _)| *k);
        for ((loc, state), starts) in open {
            let end = self.last.get(&loc).copied().unwrap_or(0);
            for s in starts {
                b.interval(loc, region(state), s, end.saturating_sub(s).max(0) as u64);
                b.warn(WarningKind::UnclosedBegin, || {
                    format!("{file}: state {state} started at {s} ns never ended; shown up to {end} ns")
                });
            }
        }
    }
}

/// One end of a message: where and when, and the size it states.
#[derive(Clone, Copy)]
struct End {
    loc: LocationId,
    t: i64,
    size: u64,
}

/// Point-to-point messages matched by (sender rank, receiver rank, tag) in order: the n-th send of a key goes
/// with its n-th receive (MPI's non-overtaking rule).
#[derive(Default)]
pub(crate) struct MessageMatch {
    sends: HashMap<(i64, i64, i64), Vec<End>>,
    recvs: HashMap<(i64, i64, i64), Vec<End>>,
}

impl MessageMatch {
    pub fn send(&mut self, src: i64, dst: i64, tag: i64, loc: LocationId, t: i64, size: u64) {
        self.sends.entry((src, dst, tag)).or_default().push(End { loc, t, size });
    }

    pub fn recv(&mut self, src: i64, dst: i64, tag: i64, loc: LocationId, t: i64, size: u64) {
        self.recvs.entry((src, dst, tag)).or_default().push(End { loc, t, size });
    }

    /// The matched messages into the builder; ends left over are warned about, naming the file.
    pub fn finish(mut self, b: &mut TraceBuilder, file: &str) -> u64 {
        let name = b.intern("message");
        let mut keys: Vec<_> = self.sends.keys().chain(self.recvs.keys()).copied().collect();
        keys.sort_unstable();
        keys.dedup();
        let mut matched = 0;
        for key in keys {
            let mut s = self.sends.remove(&key).unwrap_or_default();
            let mut r = self.recvs.remove(&key).unwrap_or_default();
            s.sort_by_key(|e| e.t);
            r.sort_by_key(|e| e.t);
            for (a, z) in s.iter().zip(&r) {
                b.message(MessageRecord {
                    kind: MessageKind::PointToPoint,
                    sender: a.loc,
                    receiver: z.loc,
                    send_ns: a.t,
                    recv_ns: z.t,
                    posted_ns: z.t,
                    size_bytes: a.size.max(z.size),
                    tag: key.2 as u32,
                    name,
                });
                matched += 1;
            }
            let (n, what) =
                if s.len() > r.len() { (s.len() - r.len(), "send") } else { (r.len() - s.len(), "receive") };
            if n > 0 {
                b.warn(WarningKind::UnmatchedFlow, || {
                    format!(
                        "{file}: {n} {what}(s) from rank {} to rank {} with tag {} have no partner; not drawn",
                        key.0, key.1, key.2
                    )
                });
            }
        }
        matched
    }
}
