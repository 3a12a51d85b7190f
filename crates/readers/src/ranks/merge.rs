//! Concatenate per-rank traces into one: each rank a process ("rank N", with the file's name for OTF2 archives
//! and Perfetto traces) holding its file's locations in the file's display order (named "process / location"
//! where the file has several processes: Kineto writes the host process and each GPU as processes, an OTF2
//! archive a location group per MPI rank), every time moved by its rank's clock offset.
//!
//! Each part's columns are already sorted and nested by its reader; a constant shift per rank keeps them so,
//! and the parts' locations are numbered one rank after another, so intervals, instants and counter samples
//! are appended in order without a sort (linear in the events). Only messages (flows, sorted by send time
//! across all locations) are sorted again. Strings, regions and arg keys are interned anew (`place`, which the
//! I/O placement shares). Messages and collectives stay within their file: operation numbers are renumbered
//! one file after another.
//!
//! Must not: match anything across ranks (that is `nccl`), or read files.

use super::place::{follow, Names, Target};
use super::{Clocks, PartFormat, RankPart};
use crate::ReadError;
use weft_model::{Format, LocationId, Messages, ProcessId, Trace, Warnings};

/// The absolute start of a part: its base (when clocks are aligned by it) plus its origin; with clocks aligned
/// by first event, every part starts at 0.
fn part_start(p: &RankPart, clocks: Clocks, name: &str) -> Result<i64, ReadError> {
    let base = match clocks {
        Clocks::BaseTime => p.run.base_time_ns.unwrap_or(0),
        Clocks::AsWritten => 0,
        Clocks::FirstEvent => return Ok(0),
    };
    base.checked_add(p.trace.origin_ns).ok_or_else(|| ReadError::NotOneRun {
        file: p.file.clone(),
        detail: format!("its clock base {base} plus its first event's time overflows the clock ({name})"),
    })
}

/// An empty trace of `format`, the merge's start.
fn empty(format: Format) -> Trace {
    Trace {
        format,
        strings: Default::default(),
        processes: Default::default(),
        locations: Default::default(),
        regions: Default::default(),
        intervals: Default::default(),
        instants: Default::default(),
        messages: Default::default(),
        collectives: Default::default(),
        counters: Default::default(),
        warnings: Warnings::default(),
        origin_ns: 0,
        span_ns: 0,
        location_intervals: Vec::new(),
        event_records: 0,
    }
}

/// The parts, by rank, as one trace.
pub(super) fn merge(
    name: &str,
    parts: Vec<(u32, RankPart)>,
    clocks: Clocks,
    kind: PartFormat,
) -> Result<Trace, ReadError> {
    let starts: Vec<i64> = parts.iter().map(|(_, p)| part_start(p, clocks, name)).collect::<Result<_, _>>()?;
    let origin = starts.iter().copied().min().unwrap_or(0);
    let mut m = Target::new(empty(kind.format()));
    for ((rank, part), start) in parts.into_iter().zip(starts) {
        // Non-negative: `origin` is the least start; i128 so that no pair of i64 clocks overflows.
        let shift = u64::try_from(start as i128 - origin as i128).map_err(|_| ReadError::NotOneRun {
            file: part.file.clone(),
            detail: "its clock lies too far from the other ranks' to be shown together".into(),
        })?;
        append(&mut m, rank, part, shift, kind, name);
    }
    let mut t = m.trace;
    let mut order: Vec<usize> = (0..t.messages.len()).collect();
    order.sort_by_key(|&i| (t.messages.send_ns[i], t.messages.recv_ns[i], i));
    t.messages = reorder_messages(&t.messages, &order);
    // With clocks aligned by first event, the merged origin is the earliest part's first event on its own
    // clock (every part's times count from it).
    t.origin_ns = origin;
    Ok(t)
}

fn reorder_messages(m: &Messages, order: &[usize]) -> Messages {
    Messages {
        kind: order.iter().map(|&i| m.kind[i]).collect(),
        sender: order.iter().map(|&i| m.sender[i]).collect(),
        receiver: order.iter().map(|&i| m.receiver[i]).collect(),
        send_ns: order.iter().map(|&i| m.send_ns[i]).collect(),
        recv_ns: order.iter().map(|&i| m.recv_ns[i]).collect(),
        posted_ns: order.iter().map(|&i| m.posted_ns[i]).collect(),
        size_bytes: order.iter().map(|&i| m.size_bytes[i]).collect(),
        tag: order.iter().map(|&i| m.tag[i]).collect(),
        name: order.iter().map(|&i| m.name[i]).collect(),
    }
}

/// One rank's part appended: a process for the rank, its locations with their intervals, then its instants,
/// messages, collectives and counter series, every time `shift` ns later. `name` is the run's (a folder's
/// path: a file's name in the process's is then its path in the folder).
fn append(m: &mut Target, rank: u32, part: RankPart, shift: u64, kind: PartFormat, name: &str) {
    let t = part.trace;
    let names: Names = m.names(&t);
    let s = |id| names.s(id);
    let p = ProcessId(m.trace.processes.len() as u32);
    let label = match kind {
        PartFormat::Kineto => format!("rank {rank}"),
        PartFormat::Otf2 | PartFormat::Perfetto => {
            let short = part.file.strip_prefix(name).and_then(|f| f.strip_prefix('/')).unwrap_or(&part.file);
            format!("rank {rank}: {short}")
        }
    };
    let label = m.trace.strings.intern(&label);
    m.trace.processes.native_id.push(rank as i64);
    m.trace.processes.name.push(label);
    m.trace.processes.sort_key.push(rank as i64);
    // Locations in the file's display order; the new id of each old one.
    let several = t.processes.len() > 1;
    let order = t.locations_in_display_order();
    let mut location = vec![LocationId(0); t.locations.len()];
    let mut args_full = false;
    for (k, &old) in order.iter().enumerate() {
        let name = if several {
            let process = t.process_name(t.locations.process[old.index()]);
            m.trace.strings.intern(&format!("{process} / {}", t.location_name(old)))
        } else {
            s(t.locations.name[old.index()])
        };
        let (l, args_ok) = m.location(&t, &names, old, p, name, k as i64, shift);
        location[old.index()] = l;
        args_full |= !args_ok;
    }
    let out = &mut m.trace;
    // Instants: sorted by location then time in the part; the new locations follow the display order, so
    // the part's instants are put in the new order (a stable sort keeps each location's time order).
    let mut instants: Vec<usize> = (0..t.instants.location.len()).collect();
    instants.sort_by_key(|&i| location[t.instants.location[i].index()]);
    for i in instants {
        let at = out.instants.location.len();
        out.instants.location.push(location[t.instants.location[i].index()]);
        out.instants.region.push(names.regions[t.instants.region[i].index()]);
        out.instants.time_ns.push(t.instants.time_ns[i] + shift);
        args_full |= !follow(&t.instants.args, i, at, &mut out.instants.args, &names.strings);
    }
    let mg = &t.messages;
    for i in 0..mg.len() {
        out.messages.kind.push(mg.kind[i]);
        out.messages.sender.push(location[mg.sender[i].index()]);
        out.messages.receiver.push(location[mg.receiver[i].index()]);
        out.messages.send_ns.push(mg.send_ns[i] + shift);
        out.messages.recv_ns.push(mg.recv_ns[i] + shift);
        out.messages.posted_ns.push(mg.posted_ns[i] + shift);
        out.messages.size_bytes.push(mg.size_bytes[i]);
        out.messages.tag.push(mg.tag[i]);
        out.messages.name.push(s(mg.name[i]));
    }
    let c = &t.collectives;
    let ops = out.collectives.operations() as u32;
    for i in 0..c.len() {
        out.collectives.operation.push(ops + c.operation[i]);
        out.collectives.location.push(location[c.location[i].index()]);
        out.collectives.region.push(names.regions[c.region[i].index()]);
        out.collectives.communicator.push(s(c.communicator[i]));
        out.collectives.root.push(c.root[i].map(|r| location[r.index()]));
        out.collectives.start_ns.push(c.start_ns[i] + shift);
        out.collectives.end_ns.push(c.end_ns[i] + shift);
        out.collectives.bytes_sent.push(c.bytes_sent[i]);
        out.collectives.bytes_received.push(c.bytes_received[i]);
    }
    // Counter series: each of the part's a series of the rank's process, named after its process where
    // the file has several; samples stay sorted by series, then time.
    let series0 = out.counters.series_name.len() as u32;
    for (k, &n) in t.counters.series_name.iter().enumerate() {
        let name = if several {
            let process = t.process_name(t.counters.series_process[k]);
            out.strings.intern(&format!("{process} / {}", t.str(n)))
        } else {
            s(n)
        };
        out.counters.series_name.push(name);
        out.counters.series_process.push(p);
    }
    out.counters.sample_series.extend(t.counters.sample_series.iter().map(|&x| series0 + x));
    out.counters.sample_time_ns.extend(t.counters.sample_time_ns.iter().map(|&x| x + shift));
    out.counters.sample_value.extend_from_slice(&t.counters.sample_value);
    let mut warnings = t.warnings;
    if args_full {
        let file = part.file.clone();
        warnings.push(weft_model::WarningKind::Other, || {
            format!("{file}: the merged run's args table is full; later events' args are not kept")
        });
    }
    out.warnings.merge(warnings);
    out.span_ns = out.span_ns.max(t.span_ns + shift);
    out.event_records += t.event_records;
}
