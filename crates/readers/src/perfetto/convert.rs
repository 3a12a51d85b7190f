//! Decoded packets to what the model needs, packet by packet: the sequences' incremental state (interned
//! names, categories and annotation names, packet defaults, sequence-scoped clocks), clock conversion to the
//! trace clock, the track descriptors, and each track event kept compactly under its track's uuid.
//!
//! Nothing is laid out here: a track's descriptor may come after its events (several sequences interleave in
//! the file), so slices are matched, tracks placed and flows chained at the end (`tracks.rs`). Every repair
//! is a counted warning; nothing here returns an error or panics.
//!
//! Incremental state: a packet with `SEQ_INCREMENTAL_STATE_CLEARED` (or `incremental_state_cleared`) resets
//! its sequence's interned data, defaults and sequence-scoped clocks; until one is seen, and again after the
//! service reports dropped packets on the sequence (`previous_packet_dropped`), a packet flagged
//! `SEQ_NEEDS_INCREMENTAL_STATE` is skipped and counted as lost state, as Perfetto's trace processor does.

use super::args::{Lookup, Pairs};
use super::protos::{self, TracePacket, TrackDescriptor, TrackEvent};
use rustc_hash::FxHashMap as FxMap;
use weft_model::{Format, RegionId, TraceBuilder};

/// A track event kept to the end of the read: 40 bytes.
#[derive(Clone, Copy, Debug)]
pub struct Ev {
    pub ts: i64,
    /// Complete events only: their duration; else 0.
    pub dur: i64,
    pub region: RegionId,
    /// Its args' entry (the interval or instant table, by kind), or `NO_ARGS`.
    pub args: u32,
    /// Its flow ids: `flows[first..first + count]`.
    pub flow_first: u32,
    pub flow_count: u16,
    pub kind: EvKind,
    /// Arrival order, breaking ties of time.
    pub order: u32,
}

pub const NO_ARGS: u32 = u32::MAX;

/// Latest time kept (ns): as the Chrome reader's bound, so an end time never overflows.
pub const MAX_NS: i64 = 1 << 62;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EvKind {
    Begin,
    End,
    Instant,
    Complete,
}

/// A flow id an event carries; `terminating` ends the flow there.
#[derive(Clone, Copy, Debug)]
pub struct FlowRef {
    pub id: u64,
    pub terminating: bool,
}

/// A counter value kept to the end (its track's unit and increments are applied then).
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    pub track: u64,
    pub ts: i64,
    pub value: f64,
    pub order: u32,
}

/// A sequence-scoped clock (ids 64 to 127) or a global one, as the last snapshot gave it.
#[derive(Clone, Copy, Debug)]
struct ClockRef {
    /// The clock's reading at the snapshot, in its units.
    at: u64,
    /// The trace clock's reading then (ns), if the snapshot had one.
    trace_at: Option<i64>,
    unit_ns: u64,
    incremental: bool,
    /// An incremental clock's last value.
    last: u64,
}

#[derive(Default)]
struct Sequence {
    /// Incremental state present: cleared once and not lost since.
    valid: bool,
    names: FxMap<u64, Box<str>>,
    categories: FxMap<u64, Box<str>>,
    annotation_names: FxMap<u64, Box<str>>,
    annotation_strings: FxMap<u64, Box<str>>,
    /// Interned event name iid to region, per category key (the cache of the hot path).
    regions: FxMap<(u64, u64), RegionId>,
    clock_id: Option<u32>,
    track_uuid: Option<u64>,
    extra_counters: Vec<u64>,
    extra_double_counters: Vec<u64>,
    /// The legacy thread descriptor's track (events naming no track go there) and reference time (µs).
    thread_track: Option<u64>,
    reference_us: i64,
    clocks: FxMap<u32, ClockRef>,
}

/// What a track descriptor says, kept by uuid.
#[derive(Clone, Debug, Default)]
pub struct Track {
    pub parent: Option<u64>,
    pub name: Option<String>,
    pub process: Option<ProcessInfo>,
    pub thread: Option<ThreadInfo>,
    pub counter: Option<CounterInfo>,
    pub order: u32,
}

#[derive(Clone, Debug, Default)]
pub struct ProcessInfo {
    pub pid: i64,
    pub name: Option<String>,
    pub labels: Vec<String>,
    pub sort: Option<i64>,
}

#[derive(Clone, Debug, Default)]
pub struct ThreadInfo {
    pub pid: i64,
    pub tid: i64,
    pub name: Option<String>,
    pub sort: Option<i64>,
}

#[derive(Clone, Debug, Default)]
pub struct CounterInfo {
    /// The unit shown after the series' name ("bytes", "ns", or the descriptor's own).
    pub unit: Option<String>,
    pub multiplier: i64,
    pub incremental: bool,
}

/// Legacy thread tracks (a sequence's `ThreadDescriptor` packet) get uuids from here down, out of the way of
/// producers' uuids (random 64-bit numbers, or small counters).
const LEGACY_TRACK_BASE: u64 = 0xFFFF_FFFF_0000_0000;
/// Where track events naming no track, on a sequence with no thread, go.
pub const DEFAULT_TRACK: u64 = 0;

pub struct Converter {
    pub b: TraceBuilder,
    pub file: String,
    sequences: FxMap<u32, Sequence>,
    pub tracks: FxMap<u64, Track>,
    /// The process descriptors by pid (a thread's process is found by its pid).
    pub processes: FxMap<i64, ProcessInfo>,
    /// Events by their track's uuid.
    pub events: FxMap<u64, Vec<Ev>>,
    pub flows: Vec<FlowRef>,
    pub samples: Vec<Sample>,
    /// Regions of names given inline: (name, categories) text to region.
    regions_by_text: FxMap<(Box<str>, Box<str>), RegionId>,
    /// Regions whose category is one rocprofv3 writes, and what they are (`rocprof.rs`).
    pub domains: FxMap<RegionId, super::rocprof::Domain>,
    /// Global clocks by id, from the last snapshot; the trace clock's id.
    clocks: FxMap<u32, ClockRef>,
    trace_clock: u32,
    /// The real time (ns since the epoch) minus the trace clock's time, from the first clock snapshot that
    /// reads both: the trace's times plus this are wall-clock times.
    pub realtime_base_ns: Option<i64>,
    pairs: Pairs,
    pub skip_args: bool,
    order: u32,
    /// Track events read (the trace's event records).
    pub track_events: u64,
    /// Packets not read, by the number of their data field.
    pub other_kinds: FxMap<u32, u64>,
    /// Counts behind the warnings said once at the end.
    pub lost_state: u64,
    pub unknown_clock: u64,
    pub dangling_iids: u64,
    pub untyped: u64,
    pub bad_time: u64,
    pub first_bad_time: Option<u64>,
    pub bad_packets: u64,
    pub first_bad_packet: Option<(u64, String)>,
    pub data_loss: u64,
    /// sched_switch events (`sched.rs`), and ftrace events of other kinds by `FtraceEvent` field number.
    pub switches: Vec<super::sched::Switch>,
    pub ftrace_other: FxMap<u32, u64>,
    pub comm_regions: FxMap<Box<str>, RegionId>,
}

impl Converter {
    pub fn new(file: &str) -> Self {
        Converter {
            b: TraceBuilder::new(Format::Perfetto),
            file: file.to_string(),
            sequences: FxMap::default(),
            tracks: FxMap::default(),
            processes: FxMap::default(),
            events: FxMap::default(),
            flows: Vec::new(),
            samples: Vec::new(),
            regions_by_text: FxMap::default(),
            domains: FxMap::default(),
            clocks: FxMap::default(),
            trace_clock: protos::CLOCK_BOOTTIME,
            realtime_base_ns: None,
            pairs: Pairs::default(),
            skip_args: false,
            order: 0,
            track_events: 0,
            other_kinds: FxMap::default(),
            lost_state: 0,
            unknown_clock: 0,
            dangling_iids: 0,
            untyped: 0,
            bad_time: 0,
            first_bad_time: None,
            bad_packets: 0,
            first_bad_packet: None,
            data_loss: 0,
            switches: Vec::new(),
            ftrace_other: FxMap::default(),
            comm_regions: FxMap::default(),
        }
    }

    /// One decoded packet, at byte `offset` of the (decompressed) trace.
    pub fn packet(&mut self, p: TracePacket, offset: u64) {
        let seq_id = p.trusted_packet_sequence_id.unwrap_or(0);
        let flags = p.sequence_flags.unwrap_or(0);
        let seq = self.sequences.entry(seq_id).or_default();
        if p.previous_packet_dropped.unwrap_or(0) != 0 {
            // Whatever was interned in the packets lost is lost too.
            seq.valid = false;
            self.data_loss += 1;
        }
        if p.incremental_state_cleared == Some(true) || flags & protos::SEQ_INCREMENTAL_STATE_CLEARED != 0 {
            let thread_track = seq.thread_track;
            let reference_us = seq.reference_us;
            *seq = Sequence { valid: true, thread_track, reference_us, ..Sequence::default() };
        }
        if flags & protos::SEQ_NEEDS_INCREMENTAL_STATE != 0 && !seq.valid {
            self.lost_state += 1;
            return;
        }
        if let Some(d) = p.interned_data {
            for e in d.event_names {
                seq.names.insert(e.iid.unwrap_or(0), e.name.unwrap_or_default().into());
                // A name interned again under an iid (after a clear) must not keep its old region.
                seq.regions.retain(|&(n, _), _| n != e.iid.unwrap_or(0));
            }
            for e in d.event_categories {
                seq.categories.insert(e.iid.unwrap_or(0), e.name.unwrap_or_default().into());
                seq.regions.clear();
            }
            for e in d.debug_annotation_names {
                seq.annotation_names.insert(e.iid.unwrap_or(0), e.name.unwrap_or_default().into());
            }
            for e in d.debug_annotation_string_values {
                let text = String::from_utf8_lossy(e.str.as_deref().unwrap_or_default()).into();
                seq.annotation_strings.insert(e.iid.unwrap_or(0), text);
            }
        }
        if let Some(d) = p.trace_packet_defaults {
            seq.clock_id = d.timestamp_clock_id;
            if let Some(t) = d.track_event_defaults {
                seq.track_uuid = t.track_uuid;
                seq.extra_counters = t.extra_counter_track_uuids;
                seq.extra_double_counters = t.extra_double_counter_track_uuids;
            }
        }
        if let Some(s) = p.clock_snapshot {
            self.clock_snapshot(seq_id, s);
        }
        if let Some(t) = p.thread_descriptor {
            self.legacy_thread(seq_id, t);
        }
        if let Some(pd) = p.process_descriptor {
            // Legacy: the sequence's process, as a process track of its own.
            let pid = i64::from(pd.pid.unwrap_or(0));
            let track = LEGACY_TRACK_BASE ^ (pid as u64) << 24 ^ 0xFF_FFFF;
            self.describe(TrackDescriptor { uuid: Some(track), process: Some(pd), ..Default::default() });
        }
        if let Some(d) = p.track_descriptor {
            self.describe(d);
        }
        let ts = match p.timestamp {
            Some(t) => self.trace_time(seq_id, t, p.timestamp_clock_id),
            None => None,
        };
        if let Some(e) = p.track_event {
            self.track_event(seq_id, e, ts, p.timestamp.is_some(), offset);
        }
        if let Some(f) = p.ftrace_events {
            self.ftrace(f, offset);
        }
    }

    /// A packet whose data is of a kind weft does not read (by its field number), counted.
    pub fn other_kind(&mut self, field: u32) {
        *self.other_kinds.entry(field).or_default() += 1;
    }

    fn clock_snapshot(&mut self, seq_id: u32, s: protos::ClockSnapshot) {
        if let Some(c) = s.primary_trace_clock {
            self.trace_clock = c as u32;
        }
        let trace_at = s
            .clocks
            .iter()
            .find(|c| c.clock_id == Some(self.trace_clock))
            .and_then(|c| c.timestamp)
            .and_then(|t| i64::try_from(t).ok());
        if self.realtime_base_ns.is_none() {
            let real = s.clocks.iter().find(|c| c.clock_id == Some(protos::CLOCK_REALTIME));
            if let (Some(at), Some(real)) = (trace_at, real.and_then(|c| Some((c.timestamp?, c.unit_multiplier_ns)))) {
                let real_ns = i128::from(real.0) * i128::from(real.1.unwrap_or(1).max(1));
                self.realtime_base_ns = i64::try_from(real_ns - i128::from(at)).ok();
            }
        }
        let seq = self.sequences.entry(seq_id).or_default();
        for c in &s.clocks {
            let (Some(id), Some(at)) = (c.clock_id, c.timestamp) else { continue };
            let r = ClockRef {
                at,
                trace_at,
                unit_ns: c.unit_multiplier_ns.unwrap_or(1).max(1),
                incremental: c.is_incremental.unwrap_or(false),
                last: at,
            };
            if (64..128).contains(&id) {
                seq.clocks.insert(id, r);
            } else {
                self.clocks.insert(id, r);
            }
        }
    }

    /// A packet's timestamp in the trace clock (ns), or None when its clock cannot be converted.
    fn trace_time(&mut self, seq_id: u32, t: u64, clock: Option<u32>) -> Option<i64> {
        let seq = self.sequences.get_mut(&seq_id)?;
        let clock = clock.or(seq.clock_id).unwrap_or(self.trace_clock);
        if clock == self.trace_clock {
            return i64::try_from(t).ok();
        }
        let r = if (64..128).contains(&clock) {
            let Some(r) = seq.clocks.get_mut(&clock) else {
                self.unknown_clock += 1;
                return None;
            };
            if r.incremental {
                r.last = r.last.wrapping_add(t);
            } else {
                r.last = t;
            }
            *r
        } else {
            match self.clocks.get(&clock) {
                Some(r) => ClockRef { last: t, ..*r },
                None => {
                    // A clock no snapshot relates to the trace clock: taken as the trace clock.
                    self.unknown_clock += 1;
                    return i64::try_from(t).ok();
                }
            }
        };
        let Some(trace_at) = r.trace_at else {
            self.unknown_clock += 1;
            return None;
        };
        let delta = (i128::from(r.last) - i128::from(r.at)) * i128::from(r.unit_ns);
        i64::try_from(i128::from(trace_at) + delta).ok()
    }

    fn legacy_thread(&mut self, seq_id: u32, t: protos::ThreadDescriptor) {
        let pid = i64::from(t.pid.unwrap_or(0));
        let tid = t.tid.unwrap_or(0);
        let track = LEGACY_TRACK_BASE ^ ((pid as u64) << 24 ^ (tid as u64 & 0xFF_FFFF)) ^ 1 << 63;
        let seq = self.sequences.entry(seq_id).or_default();
        seq.thread_track = Some(track);
        if let Some(r) = t.reference_timestamp_us {
            seq.reference_us = r;
        }
        self.describe(TrackDescriptor { uuid: Some(track), thread: Some(t), ..Default::default() });
    }

    fn describe(&mut self, d: TrackDescriptor) {
        let uuid = d.uuid.unwrap_or(DEFAULT_TRACK);
        let order = self.tracks.len() as u32;
        let name = d.name.or(d.static_name).or(d.atrace_name);
        let process = d.process.map(|p| ProcessInfo {
            pid: i64::from(p.pid.unwrap_or(0)),
            name: p.process_name.or_else(|| p.cmdline.first().cloned()),
            labels: p.process_labels,
            sort: p.legacy_sort_index.map(i64::from),
        });
        let thread = d.thread.map(|t| ThreadInfo {
            pid: i64::from(t.pid.unwrap_or(0)),
            tid: t.tid.unwrap_or(0),
            name: t.thread_name,
            sort: t.legacy_sort_index.map(i64::from),
        });
        let counter = d.counter.map(|c| CounterInfo {
            unit: match (c.unit_name, c.unit, c.r#type) {
                (Some(n), _, _) if !n.is_empty() => Some(n),
                (_, Some(1), _) | (_, _, Some(1)) => Some("ns".into()),
                (_, Some(3), _) => Some("bytes".into()),
                _ => None,
            },
            multiplier: c.unit_multiplier.filter(|&m| m != 0).unwrap_or(1),
            incremental: c.is_incremental.unwrap_or(false),
        });
        let t = self.tracks.entry(uuid).or_insert_with(|| Track { order, ..Track::default() });
        // Descriptors are emitted again after each clear: later ones update, absent fields keep what was said.
        t.parent = d.parent_uuid.or(t.parent);
        if name.is_some() {
            t.name = name;
        }
        if let Some(mut p) = process {
            if let Some(old) = &t.process {
                p.name = p.name.or(old.name.clone());
            }
            self.processes.insert(p.pid, p.clone());
            t.process = Some(p);
        }
        if let Some(mut th) = thread {
            if let Some(old) = &t.thread {
                th.name = th.name.or(old.name.clone());
            }
            t.thread = Some(th);
        }
        if counter.is_some() {
            t.counter = counter;
        }
    }

    fn track_event(&mut self, seq_id: u32, e: TrackEvent, ts: Option<i64>, stamped: bool, offset: u64) {
        self.track_events += 1;
        self.order = self.order.wrapping_add(1);
        let order = self.order;
        let Some(seq) = self.sequences.get_mut(&seq_id) else { return };
        // The time: the packet's, else the legacy microsecond fields against the sequence's reference.
        let ts = match (ts, stamped, e.timestamp_absolute_us, e.timestamp_delta_us) {
            (Some(t), _, _, _) => Some(t),
            (None, true, _, _) => None,
            (None, false, Some(abs), _) => {
                seq.reference_us = abs;
                abs.checked_mul(1000)
            }
            (None, false, None, Some(d)) => {
                seq.reference_us = seq.reference_us.saturating_add(d);
                seq.reference_us.checked_mul(1000)
            }
            (None, false, None, None) => None,
        };
        let Some(ts) = ts.filter(|&t| (0..MAX_NS).contains(&t)) else {
            self.bad_time += 1;
            self.first_bad_time.get_or_insert(offset);
            return;
        };
        let track = e.track_uuid.or(seq.track_uuid).or(seq.thread_track).unwrap_or(DEFAULT_TRACK);
        // Extra counter values ride on any event (their tracks from the event, else the defaults).
        let extra =
            if e.extra_counter_track_uuids.is_empty() { &seq.extra_counters } else { &e.extra_counter_track_uuids };
        for (&t, &v) in extra.iter().zip(&e.extra_counter_values) {
            self.samples.push(Sample { track: t, ts, value: v as f64, order });
        }
        let extra = if e.extra_double_counter_track_uuids.is_empty() {
            &seq.extra_double_counters
        } else {
            &e.extra_double_counter_track_uuids
        };
        for (&t, &v) in extra.iter().zip(&e.extra_double_counter_values) {
            self.samples.push(Sample { track: t, ts, value: v, order });
        }
        let (kind, dur) = match (e.r#type, &e.legacy_event) {
            (Some(protos::TYPE_SLICE_BEGIN), _) => (EvKind::Begin, 0),
            (Some(protos::TYPE_SLICE_END), _) => (EvKind::End, 0),
            (Some(protos::TYPE_INSTANT), _) => (EvKind::Instant, 0),
            (Some(protos::TYPE_COUNTER), _) => {
                let value = e.double_counter_value.or(e.counter_value.map(|v| v as f64)).unwrap_or(0.0);
                self.samples.push(Sample { track, ts, value, order });
                return;
            }
            (None | Some(0), Some(l)) => match u8::try_from(l.phase.unwrap_or(0)).unwrap_or(0) {
                b'B' => (EvKind::Begin, 0),
                b'E' => (EvKind::End, 0),
                b'X' => {
                    let d = l.duration_us.unwrap_or(0).max(0).saturating_mul(1000);
                    (EvKind::Complete, d.min(MAX_NS - ts))
                }
                b'I' | b'i' | b'n' | b'R' => (EvKind::Instant, 0),
                _ => {
                    self.untyped += 1;
                    return;
                }
            },
            _ => {
                self.untyped += 1;
                return;
            }
        };
        let region = if kind == EvKind::End { RegionId(u32::MAX) } else { self.region(seq_id, &e) };
        let args = if e.debug_annotations.is_empty() || self.skip_args {
            NO_ARGS
        } else {
            self.args(seq_id, &e, kind == EvKind::Instant)
        };
        let flow_first = self.flows.len() as u32;
        let ids = e.flow_ids.iter().chain(&e.flow_ids_old);
        self.flows.extend(ids.map(|&id| FlowRef { id, terminating: false }));
        let ends = e.terminating_flow_ids.iter().chain(&e.terminating_flow_ids_old);
        self.flows.extend(ends.map(|&id| FlowRef { id, terminating: true }));
        let flow_count = (self.flows.len() as u32 - flow_first).min(u32::from(u16::MAX)) as u16;
        let ev = Ev { ts, dur, region, args, flow_first, flow_count, kind, order };
        self.events.entry(track).or_default().push(ev);
    }

    /// The event's region: its name (inline or interned) and its categories joined by commas.
    fn region(&mut self, seq_id: u32, e: &TrackEvent) -> RegionId {
        let Some(seq) = self.sequences.get_mut(&seq_id) else { return RegionId(0) };
        let name_iid = e.name_iid.or(e.legacy_event.as_ref().and_then(|l| l.name_iid));
        // The hot path: an interned name with at most one interned category.
        if let (None, Some(iid), true) = (&e.name, name_iid, e.categories.is_empty() && e.category_iids.len() <= 1) {
            let cat = e.category_iids.first().copied().unwrap_or(u64::MAX);
            if let Some(&r) = seq.regions.get(&(iid, cat)) {
                return r;
            }
        }
        let name: Box<str> = match (&e.name, name_iid) {
            (Some(n), _) => n.as_str().into(),
            (None, Some(iid)) => match seq.names.get(&iid) {
                Some(n) => n.clone(),
                None => {
                    self.dangling_iids += 1;
                    "(unnamed)".into()
                }
            },
            (None, None) => "(unnamed)".into(),
        };
        let mut cats: Vec<&str> = e.categories.iter().map(String::as_str).collect();
        for iid in &e.category_iids {
            match seq.categories.get(iid) {
                Some(c) => cats.push(c),
                None => self.dangling_iids += 1,
            }
        }
        let cat: Box<str> = cats.join(",").into();
        let key = (name, cat);
        let r = match self.regions_by_text.get(&key) {
            Some(&r) => r,
            None => {
                let r = self.b.region(&key.0, &key.1);
                if let Some(d) = super::rocprof::Domain::of_category(&key.1) {
                    self.domains.insert(r, d);
                }
                self.regions_by_text.insert(key, r);
                r
            }
        };
        if let (None, Some(iid), true) = (&e.name, name_iid, e.categories.is_empty() && e.category_iids.len() <= 1) {
            if seq.names.contains_key(&iid) {
                let cat = e.category_iids.first().copied().unwrap_or(u64::MAX);
                if cat == u64::MAX || seq.categories.contains_key(&cat) {
                    seq.regions.insert((iid, cat), r);
                }
            }
        }
        r
    }

    /// The event's debug annotations as an entry of the interval or instant args table.
    fn args(&mut self, seq_id: u32, e: &TrackEvent, instant: bool) -> u32 {
        let Some(seq) = self.sequences.get(&seq_id) else { return NO_ARGS };
        let lookup = Lookup { names: &seq.annotation_names, strings: &seq.annotation_strings };
        self.pairs.gather(&e.debug_annotations, &lookup);
        self.dangling_iids += std::mem::take(&mut self.pairs.dangling);
        if self.pairs.pairs.is_empty() {
            return NO_ARGS;
        }
        let keys: Vec<weft_model::StringId> = self.pairs.pairs.iter().map(|(k, _, _)| self.b.intern(k)).collect();
        let pairs = keys.iter().zip(&self.pairs.pairs).map(|(&k, (_, kind, v))| (k, *kind, v.as_str()));
        let table = if instant { self.b.instant_arg_table() } else { self.b.interval_arg_table() };
        let entry = table.push(pairs);
        entry.unwrap_or(NO_ARGS)
    }

    /// A packet that could not be decoded, at byte `offset`: counted, the first one's reason kept.
    pub fn bad_packet(&mut self, offset: u64, why: String) {
        self.bad_packets += 1;
        if self.first_bad_packet.is_none() {
            self.first_bad_packet = Some((offset, why));
        }
    }
}
