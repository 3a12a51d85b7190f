//! A Darshan log given with the OTF2 or Chrome trace of the same job (dropped together, a folder holding
//! both, or `weft info TRACE LOG`): the log's I/O intervals put onto the trace's ranks, so the I/O shows
//! beside the compute and communication of the same rank. Nothing of the trace changes but its origin (moved
//! earlier when the I/O starts before its first event) and the locations added: one per rank, module, file and
//! lane of the log, under the rank's process (shared-file records, rank -1, under a process of their own).
//!
//! Ranks: the trace's processes in the order of their native ids (an OTF2 trace's location groups, a Chrome
//! trace's pids) are ranks 0, 1, ...; their number must be the job's `nprocs`, else a
//! [`ReadError::NotOneRun`] naming the log and both counts. Clocks: Darshan's job start is seconds since the
//! epoch. A trace whose first event lies within the job (an hour's slack either side) is on the same clock and
//! is taken as it is (offset 0); otherwise (OTF2's clock counts from its own offset, Chrome's from the process
//! start) the job's start is put at the trace's first event. The trace's [`WarningKind::Merged`] note says
//! which, and the offset.
//!
//! Must not: sniff (the caller has found the log), or change how either file alone is read. The rows are put
//! into the trace by `place`, the piece the per-rank merge uses too.

use super::place::Target;
use crate::ReadError;
use std::collections::HashMap;
use weft_model::{ProcessId, Trace, WarningKind};

/// How far from the job's start and end a trace's first event may lie and still be taken as on its clock.
const SAME_CLOCK_SLACK_NS: i64 = 3_600 * 1_000_000_000;

/// The Darshan log at `log_file` (`log_bytes`) put onto the ranks of `trace` (read from `name`).
pub fn put_io_on_ranks(name: &str, mut trace: Trace, log_file: &str, log_bytes: &[u8]) -> Result<Trace, ReadError> {
    let job = crate::darshan::log::Log::open(log_file, log_bytes)?.job()?;
    let io = crate::darshan::read(log_file, log_bytes)?;
    let ranks = trace.processes.len();
    if job.nprocs < 1 || job.nprocs as u64 != ranks as u64 {
        return Err(ReadError::NotOneRun {
            file: log_file.to_string(),
            detail: format!(
                "the Darshan log's job has {} ranks (nprocs), but {name} has {ranks} process{}: not the same job \
                 (give the log with the trace of the run it recorded)",
                job.nprocs,
                if ranks == 1 { "" } else { "es" }
            ),
        });
    }
    // Clocks: the trace's first event within the job, or the job's start put at it.
    let same_clock = trace.origin_ns >= job.start_ns.saturating_sub(SAME_CLOCK_SLACK_NS)
        && trace.origin_ns <= job.end_ns.max(job.start_ns).saturating_add(SAME_CLOCK_SLACK_NS);
    let offset = if same_clock { 0 } else { trace.origin_ns as i128 - job.start_ns as i128 };
    let io_origin = io.origin_ns as i128 + offset;
    let origin = (trace.origin_ns as i128).min(io_origin);
    let too_far = || ReadError::NotOneRun {
        file: log_file.to_string(),
        detail: format!("its times lie too far from {name}'s to be shown together"),
    };
    let trace_shift = u64::try_from(trace.origin_ns as i128 - origin).map_err(|_| too_far())?;
    let io_shift = u64::try_from(io_origin - origin).map_err(|_| too_far())?;
    let new_origin = i64::try_from(origin).map_err(|_| too_far())?;
    shift(&mut trace, trace_shift);
    trace.origin_ns = new_origin;
    let io_intervals = io.intervals.len();
    let (mut trace, added) = append(trace, io, io_shift, log_file);
    let clocks = if same_clock {
        "clocks: the trace's on the epoch as Darshan's (offset 0)".to_string()
    } else {
        format!(
            "clocks aligned by job start: the log's job start ({} s since the epoch) put at the trace's first event \
             (offset {} ns)",
            job.start_ns / 1_000_000_000,
            offset
        )
    };
    let note = format!(
        "{name}: the Darshan log {log_file} merged onto its {ranks} rank{}: {} I/O intervals on {added} locations; {clocks}",
        if ranks == 1 { "" } else { "s" },
        io_intervals
    );
    trace.warnings.push(WarningKind::Merged, || note);
    Ok(trace)
}

/// Every time of `t` later by `by` ns (its origin is moved earlier by the caller).
fn shift(t: &mut Trace, by: u64) {
    if by == 0 {
        return;
    }
    let add = |v: &mut Vec<u64>| v.iter_mut().for_each(|x| *x = x.saturating_add(by));
    add(&mut t.intervals.start_ns);
    add(&mut t.instants.time_ns);
    add(&mut t.messages.send_ns);
    add(&mut t.messages.recv_ns);
    add(&mut t.messages.posted_ns);
    add(&mut t.collectives.start_ns);
    add(&mut t.collectives.end_ns);
    add(&mut t.counters.sample_time_ns);
    t.span_ns = t.span_ns.saturating_add(by);
}

/// The I/O trace's locations and intervals appended to `t` (`place`, as the per-rank merge appends a
/// file's), each time later by `by`; the trace, and the locations added.
fn append(t: Trace, io: Trace, by: u64, log_file: &str) -> (Trace, usize) {
    let mut target = Target::new(t);
    let names = target.names(&io);
    // The trace's ranks: its processes by native id.
    let t = &target.trace;
    let mut by_rank: Vec<ProcessId> = (0..t.processes.len() as u32).map(ProcessId).collect();
    by_rank.sort_by_key(|p| (t.processes.native_id[p.index()], p.0));
    let mut shared: Option<ProcessId> = None;
    let mut next_key: HashMap<ProcessId, i64> = HashMap::new();
    let mut added = 0;
    let mut args_full = false;
    for old in io.locations_in_display_order() {
        let t = &mut target.trace;
        let rank = io.processes.native_id[io.locations.process[old.index()].index()];
        let p = match usize::try_from(rank).ok().and_then(|r| by_rank.get(r)) {
            Some(&p) => p,
            None => *shared.get_or_insert_with(|| {
                let p = ProcessId(t.processes.len() as u32);
                t.processes.native_id.push(-1);
                t.processes.name.push(t.strings.intern("all ranks (Darshan's shared files)"));
                t.processes.sort_key.push(i64::MAX);
                p
            }),
        };
        let key = next_key.entry(p).or_insert_with(|| {
            (0..t.locations.len())
                .filter(|&l| t.locations.process[l] == p)
                .map(|l| t.locations.sort_key[l])
                .max()
                .unwrap_or(0)
        });
        *key += 1;
        let name = names.s(io.locations.name[old.index()]);
        let (_, args_ok) = target.location(&io, &names, old, p, name, *key, by);
        args_full |= !args_ok;
        added += 1;
    }
    let mut t = target.trace;
    t.span_ns = t.span_ns.max(io.span_ns + by);
    t.event_records += io.event_records;
    let mut warnings = io.warnings;
    if args_full {
        let file = log_file.to_string();
        warnings.push(WarningKind::Other, || {
            format!("{file}: the args table is full; later I/O intervals' args are not kept")
        });
    }
    warnings.merge(std::mem::take(&mut t.warnings));
    t.warnings = warnings;
    (t, added)
}
