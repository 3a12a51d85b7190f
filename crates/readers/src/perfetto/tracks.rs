//! The end of a read: tracks to the model's processes and locations, slices matched, flows chained, counters
//! sampled.
//!
//! - A thread track (its descriptor has a `thread`) is the thread's location in its process (`pid`); tracks
//!   of one thread share it. A process track's own slices go on an async track of the process.
//! - A custom track (neither, nor a counter) belongs to the process of its nearest ancestor with a process or
//!   thread, else to a "Global tracks" process. Its slices nest by begin/end on it; they are laid out as the
//!   Chrome reader lays out async slices: tracks of one name in one process share an async location while
//!   their spans do not overlap (first fit in time order), so the SDK's one-track-per-operation pattern gives
//!   a few rows, not thousands.
//! - Slices: a track's events in time order (file order breaking ties); an end closes the innermost open
//!   slice (Perfetto's slice tracker: ends carry no name), an end with none open is dropped
//!   (`UnmatchedEnd`), a begin never ended is closed at the track's last time (`UnclosedBegin`). An end's
//!   args merge into its begin's.
//! - Flows: ends are taken per flow id in time order; each `flow_ids` occurrence continues the flow from the
//!   previous slice carrying it (a step), a `terminating_flow_ids` one ends it. Each link is a model message
//!   of kind `Flow` from slice to slice, at the slices' starts, as Chrome's v2 flows become.
//! - Counters: a counter track's values times its `unit_multiplier`, summed when `is_incremental`, as a series
//!   of its process named after the track and its unit ("heap (bytes)").
//! - rocprofv3's tracks (`rocprof.rs` tells them by categories and track names): a host thread's or a
//!   device's track is split into one location per kind of slice on it ("thread 4242 · HIP API",
//!   "GPU 0 · queue 1 · kernels"), made as its slices come; devices' are `GpuStream` locations.
//!
//! It must not fail except for memory the intervals cannot have; repairs are counted warnings.

use super::convert::{Converter, Ev, EvKind, Track, DEFAULT_TRACK, NO_ARGS};
use super::rocprof::{self, Role};
use crate::ReadError;
use rustc_hash::FxHashMap as FxMap;
use weft_model::{
    LocationId, LocationKind, MessageKind, MessageRecord, ProcessId, RegionId, Trace, TraceBuilder, WarningKind,
};

/// The process of tracks with no process or thread among their ancestors.
const GLOBAL_PID: i64 = -1;
/// Ancestors followed at most (a cycle of parents is cut there).
const MAX_ANCESTORS: usize = 64;

/// A slice as matched on its track.
struct Slice {
    start: i64,
    dur: u64,
    region: weft_model::RegionId,
    args: u32,
}

/// A flow end: the flow's id, whether it ends there, where and when.
struct FlowPoint {
    id: u64,
    terminating: bool,
    location: LocationId,
    ts: i64,
    order: u32,
}

/// One track's events matched: its slices, instants, flow ends (by slice start, with the slice's region)
/// and span.
struct Matched {
    slices: Vec<Slice>,
    instants: Vec<(i64, weft_model::RegionId, u32)>,
    flows: Vec<(u64, bool, i64, u32, RegionId)>,
    first: i64,
    last: i64,
}

/// Where a matched track's events go.
enum Place {
    One(LocationId),
    /// A rocprofv3 track: a location per kind of slice (its region's domain), made as they come.
    Split {
        role: Role,
        process: ProcessId,
    },
}

/// The locations split tracks have made: by (track, region), and the number of each device label.
#[derive(Default)]
struct Splits {
    made: FxMap<(usize, RegionId), LocationId>,
    devices: FxMap<String, i64>,
}

fn warn_n(b: &mut TraceBuilder, kind: WarningKind, n: u64, what: impl FnOnce(u64) -> String) {
    if n > 0 {
        b.warn(kind, || what(n));
        b.warnings_mut().add_count(kind, n - 1);
    }
}

impl Converter {
    /// Match, place and build the trace.
    pub fn finish(mut self) -> Result<Trace, ReadError> {
        self.say_counts();
        self.say_ftrace();
        let mut uuids: Vec<u64> = self.events.keys().copied().collect();
        uuids.sort_unstable_by_key(|u| (self.tracks.get(u).map_or(u32::MAX, |t| t.order), *u));
        let (mut unmatched, mut unclosed, mut out_of_order) = (0u64, 0u64, 0u64);
        let mut matched: Vec<(u64, Matched)> = Vec::with_capacity(uuids.len());
        for &u in &uuids {
            let mut evs = self.events.remove(&u).unwrap_or_default();
            if !evs.is_sorted_by_key(|e| e.ts) {
                out_of_order += 1;
                evs.sort_by_key(|e| (e.ts, e.order));
            }
            let m = self.match_track(&evs, &mut unmatched, &mut unclosed);
            matched.push((u, m));
        }
        let b = &mut self.b;
        warn_n(b, WarningKind::OutOfOrder, out_of_order, |n| {
            format!("{n} tracks had events out of time order; sorted")
        });
        warn_n(b, WarningKind::UnmatchedEnd, unmatched, |n| format!("{n} slice ends had no open slice; dropped"));
        warn_n(b, WarningKind::UnclosedBegin, unclosed, |n| {
            format!("{n} slices never ended; closed at their track's last event")
        });
        let places = self.place(&matched);
        let mut splits = Splits::default();
        let total: usize = matched.iter().map(|(_, m)| m.slices.len()).sum::<usize>() + self.switches.len();
        self.b.reserve_intervals(total).map_err(|_| {
            let bytes = (total as u64).saturating_mul(TraceBuilder::INTERVAL_BYTES);
            crate::budget::out_of_memory(&self.file, super::FORMAT, "its intervals", bytes)
        })?;
        let mut points = Vec::new();
        for (k, ((_, m), place)) in matched.iter().zip(&places).enumerate() {
            for s in &m.slices {
                let l = self.location_in(k, place, s.region, &mut splits);
                self.b.interval(l, s.region, s.start, s.dur);
                if s.args != NO_ARGS {
                    self.b.set_interval_args(s.args);
                }
            }
            for &(ts, region, args) in &m.instants {
                let l = self.location_in(k, place, region, &mut splits);
                self.b.instant(l, region, ts);
                if args != NO_ARGS {
                    self.b.set_instant_args(args);
                }
            }
            for &(id, terminating, ts, order, region) in &m.flows {
                let location = self.location_in(k, place, region, &mut splits);
                points.push(FlowPoint { id, terminating, location, ts, order });
            }
        }
        self.sched_slices();
        self.chain_flows(points);
        self.counters();
        let events = self.track_events;
        self.b.add_event_records(events);
        Ok(self.b.finish())
    }

    /// The warnings for what was counted while reading.
    fn say_counts(&mut self) {
        let b = &mut self.b;
        warn_n(b, WarningKind::Other, self.lost_state, |n| {
            format!(
                "{n} packets needed incremental state their sequence had lost (or never had: the trace starts \
                 after it was cleared, or packets were dropped); skipped"
            )
        });
        warn_n(b, WarningKind::Truncated, self.data_loss, |n| {
            format!("the tracing service reports packets dropped before {n} packets; what it kept is read")
        });
        warn_n(b, WarningKind::DanglingReference, self.dangling_iids, |n| {
            format!("{n} names, categories or annotation names were given by an iid their sequence never interned")
        });
        warn_n(b, WarningKind::Other, self.unknown_clock, |n| {
            format!("{n} timestamps were in a clock no clock snapshot relates to the trace clock")
        });
        warn_n(b, WarningKind::UnknownRecord, self.untyped, |n| {
            format!("{n} track events of no type weft reads (unspecified, or a legacy phase it does not read); skipped")
        });
        let first = self.first_bad_time.unwrap_or(0);
        warn_n(b, WarningKind::BadTimestamp, self.bad_time, |n| {
            format!("{n} track events had no usable time (the first in the packet at byte {first}); skipped")
        });
        if let Some((at, why)) = self.first_bad_packet.take() {
            warn_n(b, WarningKind::MalformedRecord, self.bad_packets, |n| {
                format!("{n} packets could not be decoded (the first at byte {at}: {why}); skipped")
            });
        }
        let mut kinds: Vec<(u32, u64)> = self.other_kinds.iter().map(|(&k, &n)| (k, n)).collect();
        kinds.sort_unstable();
        for (field, n) in kinds {
            let what = super::protos::packet_kind_name(field).map_or_else(|| format!("field {field}"), String::from);
            b.warn(WarningKind::UnknownRecord, || format!("{n} {what} packets are not read (weft reads track events)"));
            b.warnings_mut().add_count(WarningKind::UnknownRecord, n - 1);
        }
    }

    fn match_track(&mut self, evs: &[Ev], unmatched: &mut u64, unclosed: &mut u64) -> Matched {
        let mut m = Matched { slices: Vec::new(), instants: Vec::new(), flows: Vec::new(), first: i64::MAX, last: 0 };
        // Open slices: index into `m.slices`.
        let mut open: Vec<usize> = Vec::new();
        for e in evs {
            m.first = m.first.min(e.ts);
            m.last = m.last.max(e.ts + e.dur);
            let (flow_ts, flow_region) = match e.kind {
                EvKind::Begin => {
                    open.push(m.slices.len());
                    m.slices.push(Slice { start: e.ts, dur: 0, region: e.region, args: e.args });
                    (e.ts, e.region)
                }
                EvKind::Complete => {
                    m.slices.push(Slice { start: e.ts, dur: e.dur as u64, region: e.region, args: e.args });
                    (e.ts, e.region)
                }
                EvKind::Instant => {
                    m.instants.push((e.ts, e.region, e.args));
                    (e.ts, e.region)
                }
                EvKind::End => {
                    let Some(k) = open.pop() else {
                        *unmatched += 1;
                        continue;
                    };
                    let s = &mut m.slices[k];
                    s.dur = (e.ts - s.start) as u64;
                    if e.args != NO_ARGS {
                        s.args = if s.args == NO_ARGS {
                            e.args
                        } else {
                            self.b.interval_arg_table().merge(s.args, e.args).unwrap_or(s.args)
                        };
                    }
                    (s.start, s.region)
                }
            };
            let flows = &self.flows[e.flow_first as usize..][..e.flow_count as usize];
            m.flows.extend(flows.iter().map(|f| (f.id, f.terminating, flow_ts, e.order, flow_region)));
        }
        for k in open {
            *unclosed += 1;
            let s = &mut m.slices[k];
            s.dur = (m.last - s.start).max(0) as u64;
        }
        // Slices go to the builder in the order of their begins (the builder nests equal ones in that order).
        m
    }

    /// The process of a track: its own, its thread's, or its nearest ancestor's; else the global one.
    fn process_of(&mut self, uuid: u64) -> ProcessId {
        let mut u = uuid;
        for _ in 0..MAX_ANCESTORS {
            let Some(t) = self.tracks.get(&u) else { break };
            if let Some(p) = &t.process {
                let p = p.clone();
                return self.process(&p);
            }
            if let Some(th) = &t.thread {
                let described = self.processes.get(&th.pid).cloned();
                let pid = th.pid;
                return match described {
                    Some(p) => self.process(&p),
                    None => self.b.process(pid),
                };
            }
            match t.parent {
                Some(parent) if parent != u => u = parent,
                _ => break,
            }
        }
        let p = self.b.process(GLOBAL_PID);
        self.b.set_process_name(p, "Global tracks");
        p
    }

    fn process(&mut self, info: &super::convert::ProcessInfo) -> ProcessId {
        let p = self.b.process(info.pid);
        let base = info.name.clone().unwrap_or_else(|| format!("Process {}", info.pid));
        let name = match info.labels.as_slice() {
            [] => base,
            labels => format!("{base} ({})", labels.join(", ")),
        };
        self.b.set_process_name(p, &name);
        if let Some(s) = info.sort {
            self.b.set_process_sort_key(p, s);
        }
        p
    }

    /// Each matched track's place: its location (thread, or an async row shared by same-named tracks that do
    /// not overlap), or for rocprofv3's tracks the role its locations are split by.
    fn place(&mut self, matched: &[(u64, Matched)]) -> Vec<Place> {
        let rocprof = !self.domains.is_empty();
        let mut out: Vec<Place> = Vec::with_capacity(matched.len());
        // (process, name) -> rows, each the end of its last span.
        let mut rows: FxMap<(ProcessId, String), Vec<(LocationId, i64)>> = FxMap::default();
        let mut next_row: FxMap<ProcessId, i64> = FxMap::default();
        // Custom tracks are placed in the order of their first event, so first fit packs them.
        let mut custom: Vec<usize> = Vec::new();
        out.resize_with(matched.len(), || Place::One(LocationId(u32::MAX)));
        for (i, (uuid, _)) in matched.iter().enumerate() {
            let track = self.tracks.get(uuid).cloned();
            let role = match (rocprof, &track) {
                (true, Some(Track { thread: Some(th), .. })) => Some(Role::Host {
                    tid: th.tid,
                    label: match &th.name {
                        Some(n) => format!("thread {} ({n})", th.tid),
                        None => format!("thread {}", th.tid),
                    },
                }),
                (true, Some(Track { name: Some(n), .. })) => rocprof::role_of(n),
                _ => None,
            };
            if let Some(role) = role {
                let process = self.process_of(*uuid);
                out[i] = Place::Split { role, process };
                continue;
            }
            match track.as_ref().and_then(|t| t.thread.clone()) {
                Some(th) => {
                    let p = self.process_of(*uuid);
                    let l = self.b.location(p, th.tid, LocationKind::CpuThread);
                    let name = th.name.clone().or(track.as_ref().and_then(|t| t.name.clone()));
                    if let Some(n) = name {
                        self.b.set_location_name(l, &n);
                    }
                    if let Some(s) = th.sort {
                        self.b.set_location_sort_key(l, s);
                    }
                    out[i] = Place::One(l);
                }
                None => custom.push(i),
            }
        }
        custom.sort_by_key(|&i| (matched[i].1.first, i));
        for i in custom {
            let (uuid, m) = &matched[i];
            let track = self.tracks.get(uuid).cloned();
            let p = self.process_of(*uuid);
            let name = self.track_name(*uuid, track.as_ref());
            let lanes = rows.entry((p, name.clone())).or_default();
            let l = match lanes.iter_mut().find(|(_, end)| *end <= m.first) {
                Some(lane) => {
                    lane.1 = m.last;
                    lane.0
                }
                None => {
                    let n = next_row.entry(p).or_insert(0);
                    *n += 1;
                    let l = self.b.location(p, *n, LocationKind::AsyncTrack);
                    self.b.set_location_name(l, &name);
                    lanes.push((l, m.last));
                    l
                }
            };
            out[i] = Place::One(l);
        }
        out
    }

    /// The location of a slice (of `region`) on matched track `k` placed at `place`.
    fn location_in(&mut self, k: usize, place: &Place, region: RegionId, splits: &mut Splits) -> LocationId {
        let (role, p) = match place {
            Place::One(l) => return *l,
            Place::Split { role, process } => (role, *process),
        };
        if let Some(&l) = splits.made.get(&(k, region)) {
            return l;
        }
        let domain = self.domains.get(&region).copied();
        let code = domain.map_or(0, |d| d.code());
        let named = |label: &str| match domain {
            Some(d) => format!("{label} · {}", d.label()),
            None => label.to_string(),
        };
        // Native ids: the thread's tid (or the device's number) times 256 plus the domain's code, so a
        // thread's (a device's) locations sort together in the domains' order.
        let (l, sort) = match role {
            Role::Host { tid, label } => {
                let native = tid.wrapping_mul(256) | code;
                let l = self.b.location(p, native, LocationKind::CpuThread);
                self.b.set_location_name(l, &named(label));
                (l, native)
            }
            Role::Device { label } => {
                let next = splits.devices.len() as i64 + 1;
                let n = *splits.devices.entry(label.clone()).or_insert(next);
                let native = n * 256 + code;
                let l = self.b.location(p, native, LocationKind::GpuStream);
                self.b.set_location_name(l, &named(label));
                (l, (1 << 40) + native)
            }
        };
        self.b.set_location_sort_key(l, sort);
        splits.made.insert((k, region), l);
        l
    }

    fn track_name(&self, uuid: u64, track: Option<&Track>) -> String {
        match track {
            Some(Track { name: Some(n), .. }) => n.clone(),
            Some(Track { process: Some(p), .. }) => p.name.clone().unwrap_or_else(|| format!("Process {}", p.pid)),
            Some(_) => format!("Track {uuid}"),
            None if uuid == DEFAULT_TRACK => "Default track".to_string(),
            None => format!("Track {uuid}"),
        }
    }

    fn chain_flows(&mut self, mut points: Vec<FlowPoint>) {
        points.sort_by_key(|p| (p.id, p.ts, p.order));
        let mut unmatched = 0u64;
        let mut i = 0;
        while i < points.len() {
            let id = points[i].id;
            let mut open: Option<(LocationId, i64, bool)> = None;
            while i < points.len() && points[i].id == id {
                let p = &points[i];
                if let Some((l, ts, _)) = open {
                    self.b.message(MessageRecord {
                        kind: MessageKind::Flow,
                        sender: l,
                        receiver: p.location,
                        send_ns: ts,
                        recv_ns: p.ts,
                        posted_ns: p.ts,
                        size_bytes: 0,
                        tag: 0,
                        name: weft_model::StringId::EMPTY,
                    });
                    open = (!p.terminating).then_some((p.location, p.ts, true));
                } else if p.terminating {
                    unmatched += 1;
                } else {
                    open = Some((p.location, p.ts, false));
                }
                i += 1;
            }
            if let Some((_, _, false)) = open {
                unmatched += 1;
            }
        }
        warn_n(&mut self.b, WarningKind::UnmatchedFlow, unmatched, |n| {
            format!("{n} flow ends had no other end; dropped")
        });
    }

    fn counters(&mut self) {
        let mut samples = std::mem::take(&mut self.samples);
        samples.sort_by_key(|s| (s.track, s.ts, s.order));
        let mut i = 0;
        while i < samples.len() {
            let uuid = samples[i].track;
            let track = self.tracks.get(&uuid).cloned();
            let p = self.process_of(uuid);
            let info = track.as_ref().and_then(|t| t.counter.clone()).unwrap_or_default();
            let mut base = self.track_name(uuid, track.as_ref());
            if !self.domains.is_empty() {
                base = rocprof::counter_name(&base).unwrap_or(base);
            }
            let name = match &info.unit {
                Some(u) => format!("{base} ({u})"),
                None => base,
            };
            let series = self.b.counter_series(p, &name);
            let multiplier = if info.multiplier == 0 { 1.0 } else { info.multiplier as f64 };
            let mut sum = 0.0;
            while i < samples.len() && samples[i].track == uuid {
                let s = samples[i];
                let v = s.value * multiplier;
                let v = if info.incremental {
                    sum += v;
                    sum
                } else {
                    v
                };
                self.b.counter_sample(series, s.ts, v);
                i += 1;
            }
        }
    }
}
