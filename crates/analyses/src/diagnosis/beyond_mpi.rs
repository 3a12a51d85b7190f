//! Waiting beyond MPI (docs/diagnosis.md, "Beyond MPI"): the same idea as the MPI patterns where a trace
//! records the other side of a wait.
//!
//! - `omp_barrier`: an OpenMP barrier (explicit or implicit) of a thread team. The team is the threads of one
//!   process whose instances of one parallel region overlap in time (Score-P records the parallel region on
//!   every member); the k-th barrier of each member inside its instance are one barrier.
//!   w_i = min(max_j enter_j, leave_i) - enter_i; the cause is the last to enter.
//! - `nccl_collective`: an NCCL collective kernel (all-reduce, all-gather, reduce-scatter, broadcast, reduce,
//!   all-to-all) on the GPU streams of several processes (ranks). Kernels are told by what their names contain,
//!   not by an exact name (renamed kernels, HTA #360, still match); the k-th kernel of one kind of each process
//!   are one collective. w_i = min(max_j start_j, end_i) - start_i: a kernel waits for the last rank to launch;
//!   the cause is the last to start. NCCL send/receive kernels are left out (one kernel moves several peers'
//!   data, which the trace does not say).
//! - `gpu_synchronize`: a host call that blocks until its device is done (`cudaDeviceSynchronize`,
//!   `cudaStreamSynchronize`, `cudaEventSynchronize`, `cuCtxSynchronize`, `hip…Synchronize`). The device is the
//!   GPU streams its process launches work on (flow arrows from the process's threads), else the GPU streams
//!   of its process, else every GPU stream. w = e - enter, e the last end of device work (kernels, copies,
//!   sets; not the device's own sync records) in (enter, leave]; the cause is that work's stream at e.
//! - `thread_wait`: any other wait region of a thread (`is_wait_region`: OpenMP taskwait and locks, pthread
//!   join, mutex and condition waits, OS-runtime blocking calls such as `poll` and `futex`) that no other wait
//!   region encloses (the outermost wait owns the time: a `poll` inside `MPI_Recv` is the receive's). w is the
//!   call's exclusive time (tasks run inside a taskwait are work, not waiting); the waiting part is drawn from
//!   the enter. The trace does not say what a lock or join waited for, so a thread wait has no cause.

use super::calls::{MpiCall, OpLookup};
use super::waits::{Pattern, Wait};
use crate::wait_regions::is_wait_region;
use std::collections::HashMap;
use weft_model::{LocationId, LocationKind, MessageKind, Paradigm, RegionRole, Trace};

/// The waits of the four patterns beyond MPI, in no particular order (the caller sorts).
pub fn waits(trace: &Trace, ops: &OpLookup) -> Vec<Wait> {
    let kinds = RegionKinds::new(trace);
    let device = device_locations(trace);
    let mut out = Vec::new();
    omp_barriers(trace, ops, &kinds, &device, &mut out);
    nccl_collectives(trace, &kinds, &device, &mut out);
    gpu_synchronize(trace, ops, &kinds, &device, &mut out);
    thread_waits(trace, ops, &kinds, &device, &mut out);
    out
}

/// What a region is for the patterns here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// An OpenMP parallel region (the team's extent).
    OmpParallel,
    OmpBarrier,
    /// An NCCL collective kernel of this kind.
    Nccl(NcclKind),
    GpuSync,
    /// A wait region of [`Pattern::ThreadWait`].
    ThreadWait,
    /// Any other wait region (MPI calls, NCCL host calls, device-side sync records): owns the time of waits
    /// nested in it, counts nothing here.
    OtherWait,
    Other,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum NcclKind {
    AllReduce,
    AllGather,
    ReduceScatter,
    Broadcast,
    Reduce,
    AllToAll,
}

impl NcclKind {
    /// The collective a kernel name says, by what it contains (`ncclKernel_AllReduce_RING_LL_Sum_float`,
    /// `ncclDevKernel_AllGather_RING_LL`, a renamed `my_nccl_allreduce`).
    fn of(lower: &str) -> Option<NcclKind> {
        if !lower.contains("nccl") && !lower.contains("rccl") {
            return None;
        }
        let name: String = lower.chars().filter(|c| c.is_ascii_alphanumeric()).collect();
        // Longest names first: "allreduce" before "reduce", "reducescatter" before "reduce".
        [
            ("allreduce", NcclKind::AllReduce),
            ("allgather", NcclKind::AllGather),
            ("reducescatter", NcclKind::ReduceScatter),
            ("alltoall", NcclKind::AllToAll),
            ("broadcast", NcclKind::Broadcast),
            ("bcast", NcclKind::Broadcast),
            ("reduce", NcclKind::Reduce),
        ]
        .into_iter()
        .find(|(token, _)| name.contains(token))
        .map(|(_, k)| k)
    }
}

struct RegionKinds(Vec<Kind>);

impl RegionKinds {
    fn new(trace: &Trace) -> Self {
        let r = &trace.regions;
        RegionKinds(
            (0..r.len())
                .map(|i| {
                    let name = trace.str(r.name[i]);
                    let lower = name.to_ascii_lowercase();
                    let category = trace.str(r.category[i]).to_ascii_lowercase();
                    let omp = r.paradigm[i] == Paradigm::OpenMp
                        || lower.starts_with("!$omp")
                        || lower.starts_with("#pragma omp")
                        || lower.starts_with("__kmpc_")
                        || lower.starts_with("gomp_");
                    if MpiCall::of(name).is_some() || r.paradigm[i] == Paradigm::Mpi {
                        return if is_wait_region(trace, i) { Kind::OtherWait } else { Kind::Other };
                    }
                    if omp && (r.role[i] == RegionRole::Parallel || lower.contains("parallel")) {
                        return Kind::OmpParallel;
                    }
                    if omp
                        && (matches!(r.role[i], RegionRole::Barrier | RegionRole::ImplicitBarrier)
                            || lower.contains("barrier"))
                    {
                        return Kind::OmpBarrier;
                    }
                    if let Some(k) = NcclKind::of(&lower) {
                        return Kind::Nccl(k);
                    }
                    if category == "cuda_sync" || lower.ends_with(" sync") || lower.starts_with("stream wait") {
                        // Kineto's device-side records of a synchronization: not device work.
                        return Kind::OtherWait;
                    }
                    let gpu_api = matches!(r.paradigm[i], Paradigm::Cuda | Paradigm::Gpu)
                        || lower.starts_with("cuda")
                        || lower.starts_with("cu")
                        || lower.starts_with("hip");
                    if gpu_api
                        && (lower.contains("synchronize") || (lower.contains("memcpy") && !lower.contains("async")))
                    {
                        return Kind::GpuSync;
                    }
                    if gpu_api {
                        // cudaStreamWaitEvent and the like make the device wait, not the host.
                        return Kind::Other;
                    }
                    if !is_wait_region(trace, i) {
                        return Kind::Other;
                    }
                    if lower.starts_with("nccl")
                        || matches!(r.role[i], RegionRole::Collective | RegionRole::PointToPoint)
                    {
                        return Kind::OtherWait;
                    }
                    Kind::ThreadWait
                })
                .collect(),
        )
    }

    fn of(&self, trace: &Trace, interval: usize) -> Kind {
        self.0[trace.intervals.region[interval].index()]
    }
}

/// Which locations are a device's (GPU streams): of the GPU-stream kind, or holding kernels, copies or sets
/// (Kineto writes its streams as threads of a "GPU n" process).
fn device_locations(trace: &Trace) -> Vec<bool> {
    let device_category: Vec<bool> = (0..trace.regions.len())
        .map(|r| {
            let c = trace.str(trace.regions.category[r]);
            ["kernel", "gpu_memcpy", "gpu_memset", "cuda_sync"].iter().any(|d| c.eq_ignore_ascii_case(d))
        })
        .collect();
    (0..trace.locations.len())
        .map(|l| {
            trace.locations.kind[l] == LocationKind::GpuStream
                || trace.intervals_of(LocationId(l as u32)).any(|i| device_category[trace.intervals.region[i].index()])
        })
        .collect()
}

fn is_thread(trace: &Trace, device: &[bool], l: LocationId) -> bool {
    !device[l.index()] && matches!(trace.locations.kind[l.index()], LocationKind::CpuThread | LocationKind::AsyncTrack)
}

/// The barrier waits of OpenMP thread teams.
fn omp_barriers(trace: &Trace, ops: &OpLookup, kinds: &RegionKinds, device: &[bool], out: &mut Vec<Wait>) {
    let iv = &trace.intervals;
    // Team instances: per (process, parallel region), the outermost parallel intervals of every thread,
    // grouped where they overlap in time.
    let mut parallels: HashMap<(u32, u32), Vec<usize>> = HashMap::new();
    for l in 0..trace.locations.len() as u32 {
        let l = LocationId(l);
        if !is_thread(trace, device, l) {
            continue;
        }
        let p = trace.locations.process[l.index()].0;
        for i in trace.intervals_of(l) {
            if kinds.of(trace, i) == Kind::OmpParallel
                && enclosing(ops, i, |j| kinds.of(trace, j) == Kind::OmpParallel).is_none()
            {
                parallels.entry((p, iv.region[i].0)).or_default().push(i);
            }
        }
    }
    // The team instance of each parallel interval.
    let mut instance_of: HashMap<usize, u64> = HashMap::new();
    let mut next = 0u64;
    let mut keys: Vec<_> = parallels.keys().copied().collect();
    keys.sort_unstable();
    for key in keys {
        let list = parallels.get_mut(&key).expect("a key of the map");
        list.sort_unstable_by_key(|&i| (iv.start_ns[i], i));
        // Worker threads' instances lie inside the master's: an instance starting before the group's end
        // belongs to it.
        let mut group_end: Option<u64> = None;
        for &i in list.iter() {
            let (start, end) = (iv.start_ns[i], iv.end_ns(i));
            match group_end {
                Some(g) if start < g => group_end = Some(g.max(end)),
                _ => {
                    next += 1;
                    group_end = Some(end);
                }
            }
            instance_of.insert(i, next);
        }
    }
    // Barriers, keyed by (process, team instance or none, k-th barrier of the thread inside it).
    let mut barriers: HashMap<(u32, u64, u32), Vec<usize>> = HashMap::new();
    for l in 0..trace.locations.len() as u32 {
        let l = LocationId(l);
        if !is_thread(trace, device, l) {
            continue;
        }
        let p = trace.locations.process[l.index()].0;
        let mut count: HashMap<u64, u32> = HashMap::new();
        for i in trace.intervals_of(l) {
            if kinds.of(trace, i) != Kind::OmpBarrier {
                continue;
            }
            // A barrier nested in a barrier (a runtime's inner call) is the outer one's.
            if enclosing(ops, i, |j| kinds.of(trace, j) == Kind::OmpBarrier).is_some() {
                continue;
            }
            let team = outermost(ops, i, |j| kinds.of(trace, j) == Kind::OmpParallel)
                .and_then(|j| instance_of.get(&j).copied())
                .unwrap_or(0);
            let k = count.entry(team).or_insert(0);
            barriers.entry((p, team, *k)).or_default().push(i);
            *k += 1;
        }
    }
    for members in barriers.values() {
        let locations: Vec<LocationId> = members.iter().map(|&i| iv.location[i]).collect();
        if members.len() < 2 || locations.iter().all(|&l| l == locations[0]) {
            continue;
        }
        let &last = members.iter().max_by_key(|&&i| (iv.start_ns[i], std::cmp::Reverse(i))).expect("two members");
        let last_enter = iv.start_ns[last];
        for &i in members {
            let end = last_enter.min(iv.end_ns(i));
            if end > iv.start_ns[i] {
                out.push(wait(Pattern::OmpBarrier, trace, i, end, Some((iv.location[last], last_enter))));
            }
        }
    }
}

/// The waits of NCCL collective kernels across the ranks' GPU streams.
fn nccl_collectives(trace: &Trace, kinds: &RegionKinds, device: &[bool], out: &mut Vec<Wait>) {
    let iv = &trace.intervals;
    // Per process and kind, its kernels in time order.
    let mut kernels: HashMap<(u32, NcclKind), Vec<usize>> = HashMap::new();
    for l in 0..trace.locations.len() as u32 {
        let l = LocationId(l);
        if !device[l.index()] {
            continue;
        }
        let p = trace.locations.process[l.index()].0;
        for i in trace.intervals_of(l) {
            if let Kind::Nccl(k) = kinds.of(trace, i) {
                kernels.entry((p, k)).or_default().push(i);
            }
        }
    }
    let mut collectives: HashMap<(NcclKind, usize), Vec<usize>> = HashMap::new();
    for ((_, kind), list) in kernels.iter_mut() {
        list.sort_unstable_by_key(|&i| (iv.start_ns[i], i));
        for (k, &i) in list.iter().enumerate() {
            collectives.entry((*kind, k)).or_default().push(i);
        }
    }
    for members in collectives.values() {
        if members.len() < 2 {
            continue;
        }
        let &last = members.iter().max_by_key(|&&i| (iv.start_ns[i], std::cmp::Reverse(i))).expect("two members");
        let last_start = iv.start_ns[last];
        for &i in members {
            let end = last_start.min(iv.end_ns(i));
            if end > iv.start_ns[i] {
                out.push(wait(Pattern::NcclCollective, trace, i, end, Some((iv.location[last], last_start))));
            }
        }
    }
}

/// The waits of host threads blocked in a GPU synchronization (or a blocking copy) while their device works.
fn gpu_synchronize(trace: &Trace, ops: &OpLookup, kinds: &RegionKinds, device: &[bool], out: &mut Vec<Wait>) {
    let iv = &trace.intervals;
    let streams: Vec<LocationId> =
        (0..trace.locations.len() as u32).map(LocationId).filter(|l| device[l.index()]).collect();
    if streams.is_empty() {
        return;
    }
    // Device work per stream: the top-level intervals that are not the device's sync records; they do not
    // overlap, so their ends are sorted.
    let work: HashMap<LocationId, Vec<usize>> = streams
        .iter()
        .map(|&s| {
            let list: Vec<usize> =
                trace.intervals_of(s).filter(|&i| iv.depth[i] == 0 && kinds.of(trace, i) != Kind::OtherWait).collect();
            (s, list)
        })
        .collect();
    // The streams each process launches work on, and each thread's launches (flow arrows to a stream), in time.
    let mut launched: HashMap<u32, Vec<LocationId>> = HashMap::new();
    let mut launches: HashMap<LocationId, Vec<(u64, LocationId, u64)>> = HashMap::new();
    let m = &trace.messages;
    for k in 0..m.len() {
        if m.kind[k] != MessageKind::Flow || !device[m.receiver[k].index()] || device[m.sender[k].index()] {
            continue;
        }
        let p = trace.locations.process[m.sender[k].index()].0;
        let list = launched.entry(p).or_default();
        if !list.contains(&m.receiver[k]) {
            list.push(m.receiver[k]);
        }
        launches.entry(m.sender[k]).or_default().push((m.send_ns[k], m.receiver[k], m.recv_ns[k]));
    }
    for list in launches.values_mut() {
        list.sort_unstable();
    }
    for l in 0..trace.locations.len() as u32 {
        let l = LocationId(l);
        if !is_thread(trace, device, l) {
            continue;
        }
        let p = trace.locations.process[l.index()];
        let on: Vec<LocationId> = match launched.get(&p.0) {
            Some(list) => list.clone(),
            None => {
                let own: Vec<LocationId> =
                    streams.iter().copied().filter(|s| trace.locations.process[s.index()] == p).collect();
                if own.is_empty() {
                    streams.clone()
                } else {
                    own
                }
            }
        };
        let own_launches = launches.get(&l).map_or(&[][..], |v| v.as_slice());
        for i in trace.intervals_of(l) {
            // A synchronizing call inside another (a runtime call and the driver call it makes) is the outer's.
            if kinds.of(trace, i) != Kind::GpuSync
                || enclosing(ops, i, |j| kinds.of(trace, j) == Kind::GpuSync).is_some()
            {
                continue;
            }
            let (enter, leave) = (iv.start_ns[i], iv.end_ns(i));
            // What the call itself launched (a blocking copy's own copy) is not what it waits for.
            let from = own_launches.partition_point(|&(t, _, _)| t < enter);
            let to = own_launches.partition_point(|&(t, _, _)| t <= leave);
            let launched_here = &own_launches[from..to];
            // The last end of device work in (enter, leave].
            let mut last: Option<(u64, LocationId)> = None;
            for &s in &on {
                let list = &work[&s];
                let n = list.partition_point(|&j| iv.end_ns(j) <= leave);
                let found = list[..n]
                    .iter()
                    .rev()
                    .take_while(|&&j| iv.end_ns(j) > enter)
                    .find(|&&j| !launched_here.iter().any(|&(_, to, at)| to == s && at == iv.start_ns[j]));
                if let Some(&j) = found {
                    let e = iv.end_ns(j);
                    if last.is_none_or(|(b, bl)| e > b || (e == b && s.0 < bl.0)) {
                        last = Some((e, s));
                    }
                }
            }
            if let Some((e, s)) = last {
                out.push(wait(Pattern::GpuSynchronize, trace, i, e, Some((s, e))));
            }
        }
    }
}

/// The other waits of threads: locks, joins, condition variables, taskwaits, blocking OS calls.
fn thread_waits(trace: &Trace, ops: &OpLookup, kinds: &RegionKinds, device: &[bool], out: &mut Vec<Wait>) {
    let iv = &trace.intervals;
    for l in 0..trace.locations.len() as u32 {
        let l = LocationId(l);
        if !is_thread(trace, device, l) {
            continue;
        }
        let range = trace.intervals_of(l);
        for i in range.clone() {
            if kinds.of(trace, i) != Kind::ThreadWait {
                continue;
            }
            if owned_by_an_outer_wait(trace, ops, kinds, i) {
                continue;
            }
            // Exclusive time: the call's duration less its direct children's.
            let children: u64 = (i + 1..range.end)
                .take_while(|&j| iv.start_ns[j] <= iv.end_ns(i))
                .filter(|&j| ops.parent(j) == Some(i))
                .map(|j| iv.dur_ns[j])
                .sum();
            let w = iv.dur_ns[i].saturating_sub(children);
            if w > 0 {
                out.push(wait(Pattern::ThreadWait, trace, i, iv.start_ns[i] + w, None));
            }
        }
    }
}

fn wait(pattern: Pattern, trace: &Trace, call: usize, end_ns: u64, cause: Option<(LocationId, u64)>) -> Wait {
    let iv = &trace.intervals;
    Wait {
        pattern,
        location: iv.location[call],
        call,
        start_ns: iv.start_ns[call],
        end_ns,
        cause_location: cause.map(|(l, _)| l),
        cause_ns: cause.map_or(end_ns, |(_, t)| t),
    }
}

/// Whether a wait region lies inside another wait with no task between them (a `poll` inside `MPI_Recv`,
/// directly or through the library's own functions): the outer wait owns the time. A lock wait inside a task
/// run inside a taskwait is the task's own wait.
fn owned_by_an_outer_wait(trace: &Trace, ops: &OpLookup, kinds: &RegionKinds, i: usize) -> bool {
    let mut j = i;
    while let Some(p) = ops.parent(j) {
        match kinds.of(trace, p) {
            Kind::ThreadWait | Kind::OtherWait | Kind::OmpBarrier | Kind::GpuSync => return true,
            Kind::OmpParallel | Kind::Nccl(_) => return false,
            Kind::Other if trace.regions.role[trace.intervals.region[p].index()] == RegionRole::Task => return false,
            Kind::Other => {}
        }
        j = p;
    }
    false
}

/// The nearest interval enclosing `i` (not `i` itself) for which `is` holds.
fn enclosing(ops: &OpLookup, i: usize, is: impl Fn(usize) -> bool) -> Option<usize> {
    let mut j = ops.parent(i)?;
    loop {
        if is(j) {
            return Some(j);
        }
        j = ops.parent(j)?;
    }
}

/// The outermost interval enclosing `i` (or `i` itself) for which `is` holds.
fn outermost(ops: &OpLookup, i: usize, is: impl Fn(usize) -> bool) -> Option<usize> {
    let mut found = is(i).then_some(i);
    let mut j = i;
    while let Some(p) = ops.parent(j) {
        if is(p) {
            found = Some(p);
        }
        j = p;
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft_model::{Format, MessageRecord, TraceBuilder};

    fn found(trace: &Trace, pattern: Pattern) -> Vec<(u32, u64, u64, Option<u32>, u64)> {
        let ops = OpLookup::new(trace);
        let mut w: Vec<_> = waits(trace, &ops)
            .into_iter()
            .filter(|w| w.pattern == pattern)
            .map(|w| (w.location.0, w.start_ns, w.end_ns - w.start_ns, w.cause_location.map(|l| l.0), w.cause_ns))
            .collect();
        w.sort_unstable();
        w
    }

    /// Three threads of one process, two instances of one parallel region, a barrier in each.
    #[test]
    fn openmp_barrier_waits_for_the_last_thread_of_its_team() {
        let mut b = TraceBuilder::new(Format::Generated);
        let p = b.process(0);
        let parallel = b.region("!$omp parallel @a.c:10", "");
        let barrier = b.region("!$omp implicit barrier @a.c:20", "");
        let work = b.region("work", "");
        let threads: Vec<_> = (0..3).map(|t| b.location(p, t, LocationKind::CpuThread)).collect();
        for (t, &l) in threads.iter().enumerate() {
            b.interval(l, parallel, t as i64, 100 - t as u64 * 2);
            b.interval(l, work, 1 + t as i64, 5);
            // Enters at 10, 30, 45; all leave at 50.
            let enter = [10, 30, 45][t];
            b.interval(l, barrier, enter, 50 - enter as u64);
            // The second instance: the master and one worker only, enters 210 and 220, leaves 230.
            if t < 2 {
                b.interval(l, parallel, 200, 40);
                let enter = [210, 220][t];
                b.interval(l, barrier, enter, 230 - enter as u64);
            }
        }
        let t = b.finish();
        assert_eq!(
            found(&t, Pattern::OmpBarrier),
            vec![(0, 10, 35, Some(2), 45), (0, 210, 10, Some(1), 220), (1, 30, 15, Some(2), 45)],
            "the last to enter waits for nobody; each team instance is matched apart"
        );
    }

    /// Two ranks' GPU streams; the second launches its all-reduce 30 ns late; its kernel is renamed.
    #[test]
    fn nccl_kernels_wait_for_the_last_rank_whatever_their_exact_name() {
        let mut b = TraceBuilder::new(Format::Generated);
        let names = ["ncclKernel_AllReduce_RING_LL_Sum_float", "ncclDevKernel_AllReduce_Sum_f32_RING_LL"];
        for (rank, name) in names.iter().enumerate() {
            let p = b.process(rank as i64);
            let s = b.location(p, 7, LocationKind::GpuStream);
            let k = b.region(name, "kernel");
            b.interval(s, k, 100 + 30 * rank as i64, 50);
            b.interval(s, k, 400, 20);
            // A kernel of one rank only: nobody to wait for.
            let g = b.region("ncclKernel_AllGather_RING_LL", "kernel");
            if rank == 0 {
                b.interval(s, g, 500, 10);
            }
        }
        let t = b.finish();
        assert_eq!(
            found(&t, Pattern::NcclCollective),
            vec![(0, 0, 30, Some(1), 30)],
            "times from the first event (100)"
        );
    }

    /// A host thread synchronizes with its device: the wait lasts until the device's last work ends.
    #[test]
    fn gpu_synchronize_waits_until_the_device_is_done() {
        let mut b = TraceBuilder::new(Format::Generated);
        let host = b.process(1);
        let h = b.location(host, 1, LocationKind::CpuThread);
        let gpu = b.process(0);
        let s = b.location(gpu, 7, LocationKind::GpuStream);
        let other = b.location(gpu, 8, LocationKind::GpuStream);
        let launch = b.region("cudaLaunchKernel", "cuda_runtime");
        let sync = b.region("cudaDeviceSynchronize", "cuda_runtime");
        let kernel = b.region("saxpy", "kernel");
        let device_sync = b.region("Stream Sync", "cuda_sync");
        b.interval(h, launch, 40, 5);
        b.interval(s, kernel, 50, 130);
        // A stream the host launches nothing on: its work is not this host's.
        b.interval(other, kernel, 60, 190);
        b.interval(h, sync, 100, 100);
        b.interval(s, device_sync, 100, 100);
        // Nothing left on the device: no wait.
        b.interval(h, sync, 300, 10);
        let name = b.intern("ac2g");
        b.message(MessageRecord {
            kind: MessageKind::Flow,
            sender: h,
            receiver: s,
            send_ns: 42,
            recv_ns: 50,
            posted_ns: 50,
            size_bytes: 0,
            tag: 0,
            name,
        });
        let t = b.finish();
        assert_eq!(
            found(&t, Pattern::GpuSynchronize),
            vec![(h.0, 60, 80, Some(s.0), 140)],
            "times from the first event (40)"
        );
    }

    #[test]
    fn thread_waits_count_their_own_time_and_leave_nested_waits_to_the_outer_one() {
        let mut b = TraceBuilder::new(Format::Generated);
        let p = b.process(0);
        let l = b.location(p, 0, LocationKind::CpuThread);
        let lock = b.region("pthread_mutex_lock", "");
        let taskwait = b.region("!$omp taskwait @a.c:5", "");
        let task = b.region("!$omp task @a.c:3", "");
        let recv = b.region("MPI_Recv", "");
        let poll = b.region("poll", weft_model_os_runtime());
        b.interval(l, lock, 0, 40);
        b.interval(l, taskwait, 100, 100);
        b.interval(l, task, 120, 50);
        let set_lock = b.region("omp_set_lock", "");
        b.interval(l, set_lock, 130, 10);
        b.interval(l, recv, 300, 50);
        let progress = b.region("opal_progress", "");
        b.interval(l, progress, 305, 40);
        b.interval(l, poll, 310, 30);
        b.interval(l, poll, 400, 7);
        let t = b.finish();
        assert_eq!(
            found(&t, Pattern::ThreadWait),
            vec![(0, 0, 40, None, 40), (0, 100, 50, None, 150), (0, 130, 10, None, 140), (0, 400, 7, None, 407)],
            "the task inside the taskwait is work and its lock wait its own; the poll inside MPI_Recv (through \
             the library's progress function) is the receive's"
        );
    }

    fn weft_model_os_runtime() -> &'static str {
        crate::wait_regions::OS_RUNTIME
    }
}
