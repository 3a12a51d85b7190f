//! NCCL collective kernels matched across ranks into the trace's collectives (one operation per collective,
//! one row per rank's kernel), so that the views and the diagnosis that read `Trace::collectives` see them.
//!
//! A kernel is an NCCL collective by what its name contains, as the diagnosis' `nccl_collective` pattern
//! tells them (`crates/analyses/src/diagnosis/beyond_mpi.rs`): "nccl" or "rccl" and one of all-reduce,
//! all-gather, reduce-scatter, all-to-all, broadcast, reduce; send/receive kernels are left out (one kernel
//! moves several peers' data, which the trace does not say). Its communicator is the kernel's "Process Group
//! Name" arg where Kineto records one (with its "Process Group Description"), else one communicator for all.
//! Per rank, communicator and kind, the kernels in time order: the k-th of each rank are one collective.
//!
//! Must not: read a file, or change any interval.

use std::collections::{BTreeMap, HashMap};
use weft_model::{CollectiveRecord, LocationId, LocationKind, Trace};

/// What [`match_collectives`] found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Matched {
    /// Collectives (operations) made.
    pub operations: usize,
    /// Their rows (kernels).
    pub rows: usize,
    /// Collective kernels of which no other rank has the k-th of their communicator and kind.
    pub unmatched: usize,
}

/// The collective a kernel name says (lower case), by what it contains; None for anything else.
pub fn collective_kind(lower: &str) -> Option<&'static str> {
    if !lower.contains("nccl") && !lower.contains("rccl") {
        return None;
    }
    let name: String = lower.chars().filter(|c| c.is_ascii_alphanumeric()).collect();
    // Longest names first: "allreduce" before "reduce", "reducescatter" before "reduce".
    [
        ("allreduce", "all-reduce"),
        ("allgather", "all-gather"),
        ("reducescatter", "reduce-scatter"),
        ("alltoall", "all-to-all"),
        ("broadcast", "broadcast"),
        ("bcast", "broadcast"),
        ("reduce", "reduce"),
    ]
    .into_iter()
    .find(|(token, _)| name.contains(token))
    .map(|(_, k)| k)
}

/// Whether a location is a device's: a GPU stream, or holding kernels (Kineto writes its streams as threads
/// of a "GPU n" process).
fn is_device(trace: &Trace, kernel_region: &[bool], l: LocationId) -> bool {
    trace.locations.kind[l.index()] == LocationKind::GpuStream
        || trace.intervals_of(l).any(|i| kernel_region[trace.intervals.region[i].index()])
}

/// The communicator of interval `i`: its "Process Group Name" arg (with "Process Group Description" where
/// present), else empty.
fn communicator(trace: &Trace, i: usize) -> String {
    let Some(args) = trace.intervals.args.of(i) else { return String::new() };
    let (mut name, mut desc) = (None, None);
    for a in args {
        match trace.str(a.key) {
            "Process Group Name" => name = Some(a.value),
            "Process Group Description" => desc = Some(a.value),
            _ => {}
        }
    }
    match (name, desc) {
        (Some(n), Some(d)) if !d.is_empty() => format!("{n} ({d})"),
        (Some(n), _) => n.to_string(),
        _ => String::new(),
    }
}

/// One collective: its communicator, kind and place in their order.
type OpKey = (String, &'static str, usize);

/// Match the NCCL collective kernels of the trace's processes (ranks) and add them to its collectives.
pub fn match_collectives(trace: &mut Trace) -> Matched {
    let kernel_region: Vec<bool> = (0..trace.regions.len())
        .map(|r| {
            let c = trace.str(trace.regions.category[r]);
            ["kernel", "gpu_memcpy", "gpu_memset"].iter().any(|d| c.eq_ignore_ascii_case(d))
        })
        .collect();
    let kinds: Vec<Option<&'static str>> = (0..trace.regions.len())
        .map(|r| collective_kind(&trace.str(trace.regions.name[r]).to_ascii_lowercase()))
        .collect();
    // Per (communicator, kind, process): the kernels.
    let mut kernels: BTreeMap<(String, &'static str, u32), Vec<usize>> = BTreeMap::new();
    for l in 0..trace.locations.len() as u32 {
        let l = LocationId(l);
        if !is_device(trace, &kernel_region, l) {
            continue;
        }
        let p = trace.locations.process[l.index()].0;
        for i in trace.intervals_of(l) {
            if let Some(kind) = kinds[trace.intervals.region[i].index()] {
                kernels.entry((communicator(trace, i), kind, p)).or_default().push(i);
            }
        }
    }
    // Collectives: (communicator, kind, k) -> the k-th kernel of each process.
    let mut collectives: HashMap<OpKey, Vec<usize>> = HashMap::new();
    let iv = &trace.intervals;
    for ((comm, kind, _), list) in kernels.iter_mut() {
        list.sort_unstable_by_key(|&i| (iv.start_ns[i], i));
        for (k, &i) in list.iter().enumerate() {
            collectives.entry((comm.clone(), kind, k)).or_default().push(i);
        }
    }
    let mut ops: Vec<(OpKey, Vec<usize>)> = collectives.into_iter().collect();
    // Operations numbered by their first kernel's start (then communicator, kind, k): deterministic.
    ops.sort_by(|a, b| {
        let first = |m: &[usize]| m.iter().map(|&i| iv.start_ns[i]).min().unwrap_or(0);
        (first(&a.1), &a.0).cmp(&(first(&b.1), &b.0))
    });
    let mut matched = Matched::default();
    let mut next = trace.collectives.operations() as u32;
    let mut rows: Vec<CollectiveRecord> = Vec::new();
    for ((comm, _, _), mut members) in ops {
        if members.len() < 2 {
            matched.unmatched += members.len();
            continue;
        }
        members.sort_unstable_by_key(|&i| trace.locations.process[iv.location[i].index()].0);
        let communicator = if comm.is_empty() { "NCCL".to_string() } else { format!("NCCL {comm}") };
        let communicator = trace.strings.intern(&communicator);
        for &i in &members {
            rows.push(CollectiveRecord {
                operation: next,
                location: iv.location[i],
                region: iv.region[i],
                communicator,
                root: None,
                start_ns: iv.start_ns[i] as i64,
                end_ns: iv.end_ns(i) as i64,
                bytes_sent: 0,
                bytes_received: 0,
            });
        }
        matched.operations += 1;
        matched.rows += members.len();
        next += 1;
    }
    let c = &mut trace.collectives;
    for r in rows {
        c.operation.push(r.operation);
        c.location.push(r.location);
        c.region.push(r.region);
        c.communicator.push(r.communicator);
        c.root.push(r.root);
        c.start_ns.push(r.start_ns as u64);
        c.end_ns.push(r.end_ns as u64);
        c.bytes_sent.push(r.bytes_sent);
        c.bytes_received.push(r.bytes_received);
    }
    matched
}
