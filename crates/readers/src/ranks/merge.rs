//! Concatenate per-rank traces into one: each rank a process ("rank N") holding its file's locations in the
//! file's display order (named "process / location" where the file has several processes: Kineto writes the
//! host process and each GPU as processes), every time moved by its rank's clock offset.
//!
//! Each part's columns are already sorted and nested by its reader; a constant shift per rank keeps them so,
//! and the parts' locations are numbered one rank after another, so intervals, instants and counter samples
//! are appended in order without a sort (linear in the events). Only messages (flows, sorted by send time
//! across all locations) are sorted again. Strings, regions and arg keys are interned anew.
//!
//! Must not: match anything across ranks (that is `nccl`), or read files.

use super::{Clocks, RankPart};
use crate::ReadError;
use std::collections::HashMap;
use weft_model::{
    ArgTable, Counters, EventArgs, Format, Instants, Intervals, LocationId, Locations, Messages, ProcessId, Processes,
    RegionId, Regions, StringId, StringTable, Trace, Warnings,
};

/// The merged columns, filled rank after rank.
struct Merged {
    strings: StringTable,
    processes: Processes,
    locations: Locations,
    regions: Regions,
    region_index: HashMap<(StringId, StringId), RegionId>,
    intervals: Intervals,
    location_intervals: Vec<std::ops::Range<usize>>,
    instants: Instants,
    /// Messages before their sort: (send, recv, row in `messages`).
    messages: Messages,
    collectives: weft_model::Collectives,
    counters: Counters,
    warnings: Warnings,
    span_ns: u64,
    event_records: u64,
}

/// The absolute start of a part: its base (when clocks are aligned by it) plus its origin.
fn part_start(p: &RankPart, clocks: Clocks, name: &str) -> Result<i64, ReadError> {
    let base = match clocks {
        Clocks::BaseTime => p.run.base_time_ns.unwrap_or(0),
        Clocks::AsWritten => 0,
    };
    base.checked_add(p.trace.origin_ns).ok_or_else(|| ReadError::NotOneRun {
        file: p.file.clone(),
        detail: format!("baseTimeNanoseconds {base} plus its first event's time overflows the clock ({name})"),
    })
}

/// The parts, by rank, as one trace.
pub(super) fn merge(name: &str, parts: Vec<(u32, RankPart)>, clocks: Clocks) -> Result<Trace, ReadError> {
    let starts: Vec<i64> = parts.iter().map(|(_, p)| part_start(p, clocks, name)).collect::<Result<_, _>>()?;
    let origin = starts.iter().copied().min().unwrap_or(0);
    let mut m = Merged {
        strings: StringTable::default(),
        processes: Processes::default(),
        locations: Locations::default(),
        regions: Regions::default(),
        region_index: HashMap::new(),
        intervals: Intervals::default(),
        location_intervals: Vec::new(),
        instants: Instants::default(),
        messages: Messages::default(),
        collectives: Default::default(),
        counters: Counters::default(),
        warnings: Warnings::default(),
        span_ns: 0,
        event_records: 0,
    };
    for ((rank, part), start) in parts.into_iter().zip(starts) {
        // Non-negative: `origin` is the least start; i128 so that no pair of i64 clocks overflows.
        let shift = u64::try_from(start as i128 - origin as i128).map_err(|_| ReadError::NotOneRun {
            file: part.file.clone(),
            detail: "its clock lies too far from the other ranks' to be shown together".into(),
        })?;
        m.append(rank, part, shift);
    }
    let mut order: Vec<usize> = (0..m.messages.len()).collect();
    order.sort_by_key(|&i| (m.messages.send_ns[i], m.messages.recv_ns[i], i));
    let messages = reorder_messages(&m.messages, &order);
    Ok(Trace {
        format: Format::ChromeJson,
        strings: m.strings,
        processes: m.processes,
        locations: m.locations,
        regions: m.regions,
        intervals: m.intervals,
        instants: m.instants,
        messages,
        collectives: m.collectives,
        counters: m.counters,
        warnings: m.warnings,
        origin_ns: origin,
        span_ns: m.span_ns,
        location_intervals: m.location_intervals,
        event_records: m.event_records,
    })
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

/// Copy entry `e` of `from` into `to` with its keys mapped by `strings`; None when `to` is full.
fn copy_args(from: &ArgTable, e: u32, to: &mut ArgTable, strings: &[StringId]) -> Option<u32> {
    let pairs: Vec<(StringId, weft_model::ArgKind, &str)> =
        from.entry(e as usize).map(|a| (strings[a.key.0 as usize], a.kind, a.value)).collect();
    to.push(pairs.iter().copied())
}

/// The args of event `i` of `from` (an event table's args), copied as the args of event `at` of `to`.
pub(super) fn follow(from: &EventArgs, i: usize, at: usize, to: &mut EventArgs, strings: &[StringId]) -> bool {
    let Ok(k) = from.event.binary_search(&(i as u32)) else { return true };
    match copy_args(&from.table, from.entry[k], &mut to.table, strings) {
        Some(e) => {
            to.event.push(at as u32);
            to.entry.push(e);
            true
        }
        None => false,
    }
}

impl Merged {
    fn append(&mut self, rank: u32, part: RankPart, shift: u64) {
        let t = part.trace;
        let strings: Vec<StringId> = t.strings.iter().map(|s| self.strings.intern(s)).collect();
        let s = |id: StringId| strings[id.0 as usize];
        let p = ProcessId(self.processes.len() as u32);
        self.processes.native_id.push(rank as i64);
        self.processes.name.push(self.strings.intern(&format!("rank {rank}")));
        self.processes.sort_key.push(rank as i64);
        let regions: Vec<RegionId> = (0..t.regions.len())
            .map(|r| {
                let key = (s(t.regions.name[r]), s(t.regions.category[r]));
                *self.region_index.entry(key).or_insert_with(|| {
                    let id = RegionId(self.regions.name.len() as u32);
                    self.regions.name.push(key.0);
                    self.regions.category.push(key.1);
                    self.regions.paradigm.push(t.regions.paradigm[r]);
                    self.regions.role.push(t.regions.role[r]);
                    id
                })
            })
            .collect();
        // Locations in the file's display order; the new id of each old one.
        let several = t.processes.len() > 1;
        let order = t.locations_in_display_order();
        let mut location = vec![LocationId(0); t.locations.len()];
        let mut args_full = false;
        for (k, &old) in order.iter().enumerate() {
            let l = LocationId(self.locations.len() as u32);
            location[old.index()] = l;
            let name = if several {
                let process = t.process_name(t.locations.process[old.index()]);
                self.strings.intern(&format!("{process} / {}", t.location_name(old)))
            } else {
                s(t.locations.name[old.index()])
            };
            self.locations.process.push(p);
            self.locations.native_id.push(t.locations.native_id[old.index()]);
            self.locations.name.push(name);
            self.locations.kind.push(t.locations.kind[old.index()]);
            self.locations.sort_key.push(k as i64);
            // Its intervals, in their order (sorted by start and depth), shifted.
            let first = self.intervals.len();
            for i in t.intervals_of(old) {
                let at = self.intervals.len();
                self.intervals.location.push(l);
                self.intervals.region.push(regions[t.intervals.region[i].index()]);
                self.intervals.start_ns.push(t.intervals.start_ns[i] + shift);
                self.intervals.dur_ns.push(t.intervals.dur_ns[i]);
                self.intervals.depth.push(t.intervals.depth[i]);
                args_full |= !follow(&t.intervals.args, i, at, &mut self.intervals.args, &strings);
            }
            self.location_intervals.push(first..self.intervals.len());
        }
        // Instants: sorted by location then time in the part; the new locations follow the display order, so
        // the part's instants are put in the new order (a stable sort keeps each location's time order).
        let mut instants: Vec<usize> = (0..t.instants.location.len()).collect();
        instants.sort_by_key(|&i| location[t.instants.location[i].index()]);
        for i in instants {
            let at = self.instants.location.len();
            self.instants.location.push(location[t.instants.location[i].index()]);
            self.instants.region.push(regions[t.instants.region[i].index()]);
            self.instants.time_ns.push(t.instants.time_ns[i] + shift);
            args_full |= !follow(&t.instants.args, i, at, &mut self.instants.args, &strings);
        }
        let mg = &t.messages;
        for i in 0..mg.len() {
            self.messages.kind.push(mg.kind[i]);
            self.messages.sender.push(location[mg.sender[i].index()]);
            self.messages.receiver.push(location[mg.receiver[i].index()]);
            self.messages.send_ns.push(mg.send_ns[i] + shift);
            self.messages.recv_ns.push(mg.recv_ns[i] + shift);
            self.messages.posted_ns.push(mg.posted_ns[i] + shift);
            self.messages.size_bytes.push(mg.size_bytes[i]);
            self.messages.tag.push(mg.tag[i]);
            self.messages.name.push(s(mg.name[i]));
        }
        let c = &t.collectives;
        let ops = self.collectives.operations() as u32;
        for i in 0..c.len() {
            self.collectives.operation.push(ops + c.operation[i]);
            self.collectives.location.push(location[c.location[i].index()]);
            self.collectives.region.push(regions[c.region[i].index()]);
            self.collectives.communicator.push(s(c.communicator[i]));
            self.collectives.root.push(c.root[i].map(|r| location[r.index()]));
            self.collectives.start_ns.push(c.start_ns[i] + shift);
            self.collectives.end_ns.push(c.end_ns[i] + shift);
            self.collectives.bytes_sent.push(c.bytes_sent[i]);
            self.collectives.bytes_received.push(c.bytes_received[i]);
        }
        // Counter series: each of the part's a series of the rank's process, named after its process where
        // the file has several; samples stay sorted by series, then time.
        let series0 = self.counters.series_name.len() as u32;
        for (k, &n) in t.counters.series_name.iter().enumerate() {
            let name = if several {
                let process = t.process_name(t.counters.series_process[k]);
                self.strings.intern(&format!("{process} / {}", t.str(n)))
            } else {
                s(n)
            };
            self.counters.series_name.push(name);
            self.counters.series_process.push(p);
        }
        self.counters.sample_series.extend(t.counters.sample_series.iter().map(|&x| series0 + x));
        self.counters.sample_time_ns.extend(t.counters.sample_time_ns.iter().map(|&x| x + shift));
        self.counters.sample_value.extend_from_slice(&t.counters.sample_value);
        let mut warnings = t.warnings;
        if args_full {
            let file = part.file.clone();
            warnings.push(weft_model::WarningKind::Other, || {
                format!("{file}: the merged run's args table is full; later events' args are not kept")
            });
        }
        self.warnings.merge(warnings);
        self.span_ns = self.span_ns.max(t.span_ns + shift);
        self.event_records += t.event_records;
    }
}
