//! The one way into a [`Trace`]: readers push what they decode in absolute source time, in any order, and
//! `finish` sorts, nests, clips and normalises. Nesting repair lives here, once, for every format.
//! Event args (`model::args`) are attached to the interval or instant pushed last and follow it through
//! the sorts: `finish` renumbers the sparse (event, entry) pairs, never the args' text.

use super::*;
use std::collections::HashMap;

#[derive(Default)]
struct RawIntervals {
    location: Vec<LocationId>,
    region: Vec<RegionId>,
    start_ns: Vec<i64>,
    dur_ns: Vec<u64>,
    /// (interval in arrival order, entry in `args`), ascending.
    with_args: Vec<(u32, u32)>,
    args: ArgTable,
}

#[derive(Default)]
struct RawMessages {
    kind: Vec<MessageKind>,
    sender: Vec<LocationId>,
    receiver: Vec<LocationId>,
    send_ns: Vec<i64>,
    recv_ns: Vec<i64>,
    posted_ns: Vec<i64>,
    size_bytes: Vec<u64>,
    tag: Vec<u32>,
    name: Vec<StringId>,
}

#[derive(Default)]
struct RawCollectives {
    operation: Vec<u32>,
    location: Vec<LocationId>,
    region: Vec<RegionId>,
    communicator: Vec<StringId>,
    root: Vec<Option<LocationId>>,
    start_ns: Vec<i64>,
    end_ns: Vec<i64>,
    bytes_sent: Vec<u64>,
    bytes_received: Vec<u64>,
}

/// A collective operation as one participant saw it, for [`TraceBuilder::collective`].
#[derive(Clone, Copy, Debug)]
pub struct CollectiveRecord {
    pub operation: u32,
    pub location: LocationId,
    pub region: RegionId,
    pub communicator: StringId,
    pub root: Option<LocationId>,
    pub start_ns: i64,
    pub end_ns: i64,
    pub bytes_sent: u64,
    pub bytes_received: u64,
}

/// A message or flow, for [`TraceBuilder::message`].
#[derive(Clone, Copy, Debug)]
pub struct MessageRecord {
    pub kind: MessageKind,
    pub sender: LocationId,
    pub receiver: LocationId,
    pub send_ns: i64,
    pub recv_ns: i64,
    /// When the receive was posted (`Messages::posted_ns`); `recv_ns` where the format does not say.
    pub posted_ns: i64,
    pub size_bytes: u64,
    pub tag: u32,
    pub name: StringId,
}

/// Where a builder's counter samples go instead of the trace ([`TraceBuilder::sink_samples`]).
pub trait SampleSink: Send {
    /// The next samples, in the order recorded: series, time (source clock, ns) and value of each.
    fn take(&mut self, series: &[u32], time_ns: &[i64], value: &[f64]);
    /// Samples the builder holds before handing them over.
    fn batch(&self) -> usize {
        SAMPLE_BATCH
    }
}

/// Samples a builder holds before handing them to its sink, unless the sink asks for fewer.
pub const SAMPLE_BATCH: usize = 4096;

/// Where a builder's messages go instead of the trace ([`TraceBuilder::sink_messages`]).
pub trait MessageSink: Send {
    /// The next messages, in the order recorded (times in the source clock).
    fn take(&mut self, messages: &[MessageRecord]);
    /// Messages the builder holds before handing them over.
    fn batch(&self) -> usize {
        SAMPLE_BATCH
    }
}

pub struct TraceBuilder {
    format: Format,
    strings: StringTable,
    processes: Processes,
    locations: Locations,
    regions: Regions,
    process_index: HashMap<i64, ProcessId>,
    location_index: HashMap<(ProcessId, i64, LocationKind), LocationId>,
    region_index: HashMap<(StringId, StringId), RegionId>,
    intervals: RawIntervals,
    instants: (Vec<LocationId>, Vec<RegionId>, Vec<i64>),
    /// (instant in arrival order, entry in `instant_args`), ascending.
    instants_with_args: Vec<(u32, u32)>,
    instant_args: ArgTable,
    messages: RawMessages,
    collectives: RawCollectives,
    series_name: Vec<StringId>,
    series_process: Vec<ProcessId>,
    series_index: HashMap<(ProcessId, StringId), u32>,
    samples: (Vec<u32>, Vec<i64>, Vec<f64>),
    /// Where counter samples go instead of the trace, and the first and last time of those it took.
    sample_sink: Option<Box<dyn SampleSink>>,
    /// Where messages go instead of the trace.
    message_sink: Option<Box<dyn MessageSink>>,
    /// The first and last time of the samples and messages the sinks took.
    sunk: Option<(i64, i64)>,
    warnings: Warnings,
    event_records: u64,
    /// Earliest start of intervals kept outside the builder (a streamed index), folded into the origin.
    outside_start: i64,
}

impl TraceBuilder {
    pub fn new(format: Format) -> Self {
        TraceBuilder {
            format,
            strings: StringTable::default(),
            processes: Processes::default(),
            locations: Locations::default(),
            regions: Regions::default(),
            process_index: HashMap::new(),
            location_index: HashMap::new(),
            region_index: HashMap::new(),
            intervals: RawIntervals::default(),
            instants: Default::default(),
            instants_with_args: Vec::new(),
            instant_args: ArgTable::default(),
            messages: RawMessages::default(),
            collectives: RawCollectives::default(),
            series_name: Vec::new(),
            series_process: Vec::new(),
            series_index: HashMap::new(),
            samples: Default::default(),
            sample_sink: None,
            message_sink: None,
            sunk: None,
            warnings: Warnings::default(),
            event_records: 0,
            outside_start: i64::MAX,
        }
    }

    /// An interval starting at `start_ns` exists but is kept outside the builder (`weft index` streams
    /// intervals location by location): the origin [`finish`](Self::finish) picks counts it.
    pub fn note_outside_start(&mut self, start_ns: i64) {
        self.outside_start = self.outside_start.min(start_ns);
    }

    /// Count event records decoded by the reader (reported by `weft info` as `events`).
    pub fn add_event_records(&mut self, n: u64) {
        self.event_records += n;
    }

    pub fn intern(&mut self, s: &str) -> StringId {
        self.strings.intern(s)
    }

    pub fn warnings_mut(&mut self) -> &mut Warnings {
        &mut self.warnings
    }

    pub fn warn(&mut self, kind: WarningKind, message: impl FnOnce() -> String) {
        self.warnings.push(kind, message);
    }

    /// The process with this native id, created on first use with a default name.
    pub fn process(&mut self, native_id: i64) -> ProcessId {
        if let Some(&p) = self.process_index.get(&native_id) {
            return p;
        }
        let p = ProcessId(self.processes.native_id.len() as u32);
        let name = self.strings.intern(&format!("Process {native_id}"));
        self.processes.native_id.push(native_id);
        self.processes.name.push(name);
        self.processes.sort_key.push(native_id);
        self.process_index.insert(native_id, p);
        p
    }

    pub fn set_process_name(&mut self, p: ProcessId, name: &str) {
        self.processes.name[p.index()] = self.strings.intern(name);
    }

    pub fn set_process_sort_key(&mut self, p: ProcessId, key: i64) {
        self.processes.sort_key[p.index()] = key;
    }

    /// The location with this native id in this process, created on first use with a default name.
    pub fn location(&mut self, process: ProcessId, native_id: i64, kind: LocationKind) -> LocationId {
        if let Some(&l) = self.location_index.get(&(process, native_id, kind)) {
            return l;
        }
        let l = LocationId(self.locations.process.len() as u32);
        let name = match kind {
            LocationKind::CpuThread => format!("Thread {native_id}"),
            LocationKind::GpuStream => format!("Stream {native_id}"),
            LocationKind::AsyncTrack => format!("Async {native_id}"),
            LocationKind::Metric => format!("Metric {native_id}"),
        };
        let name = self.strings.intern(&name);
        self.locations.process.push(process);
        self.locations.native_id.push(native_id);
        self.locations.name.push(name);
        self.locations.kind.push(kind);
        self.locations.sort_key.push(native_id);
        self.location_index.insert((process, native_id, kind), l);
        l
    }

    pub fn set_location_name(&mut self, l: LocationId, name: &str) {
        self.locations.name[l.index()] = self.strings.intern(name);
    }

    pub fn set_location_sort_key(&mut self, l: LocationId, key: i64) {
        self.locations.sort_key[l.index()] = key;
    }

    pub fn location_count(&self) -> usize {
        self.locations.len()
    }

    /// How a message names location `l`: its name and its process's, `"Thread 7" of "Process 1"`.
    pub fn location_label(&self, l: LocationId) -> String {
        let Some(&name) = self.locations.name.get(l.index()) else { return format!("location {}", l.0) };
        let p = self.locations.process[l.index()];
        let process = self.processes.name.get(p.index()).map_or("", |&n| self.strings.get(n));
        format!("\"{}\" of \"{process}\"", self.strings.get(name))
    }

    /// The region with this name and category; paradigm and role guessed from the name.
    pub fn region(&mut self, name: &str, category: &str) -> RegionId {
        let n = self.strings.intern(name);
        let c = self.strings.intern(category);
        if let Some(&r) = self.region_index.get(&(n, c)) {
            return r;
        }
        let (paradigm, role) = classify_region(name, category);
        self.push_region(n, c, paradigm, role)
    }

    /// A region whose paradigm and role the format states (OTF2 region definitions).
    pub fn region_with(&mut self, name: &str, category: &str, paradigm: Paradigm, role: RegionRole) -> RegionId {
        let n = self.strings.intern(name);
        let c = self.strings.intern(category);
        self.push_region(n, c, paradigm, role)
    }

    fn push_region(&mut self, n: StringId, c: StringId, paradigm: Paradigm, role: RegionRole) -> RegionId {
        let r = RegionId(self.regions.name.len() as u32);
        self.regions.name.push(n);
        self.regions.category.push(c);
        self.regions.paradigm.push(paradigm);
        self.regions.role.push(role);
        self.region_index.entry((n, c)).or_insert(r);
        r
    }

    /// An interval in absolute source time. Depth is computed by `finish` from containment.
    pub fn interval(&mut self, location: LocationId, region: RegionId, start_ns: i64, dur_ns: u64) {
        self.intervals.location.push(location);
        self.intervals.region.push(region);
        self.intervals.start_ns.push(start_ns);
        self.intervals.dur_ns.push(dur_ns);
    }

    /// The intervals added so far, taken out of the builder in arrival order as (location, region, start,
    /// duration) columns: a streamed index nests them itself (`index::stream`).
    /// Their args are dropped (a store keeps none).
    pub fn take_intervals(&mut self) -> (Vec<LocationId>, Vec<RegionId>, Vec<i64>, Vec<u64>) {
        let r = std::mem::take(&mut self.intervals);
        (r.location, r.region, r.start_ns, r.dur_ns)
    }

    pub fn interval_count(&self) -> usize {
        self.intervals.location.len()
    }

    /// Room for `n` more intervals, taken fallibly: readers call it once they know how many they hold, and turn
    /// a refusal into a "too large" error naming their file (`readers::budget::out_of_memory`) instead of the
    /// abort an infallible reservation of gigabytes would be.
    pub fn reserve_intervals(&mut self, n: usize) -> Result<(), std::collections::TryReserveError> {
        self.intervals.location.try_reserve(n)?;
        self.intervals.region.try_reserve(n)?;
        self.intervals.start_ns.try_reserve(n)?;
        self.intervals.dur_ns.try_reserve(n)
    }

    /// The bytes one interval takes in the builder's columns, for messages about a refused reservation.
    pub const INTERVAL_BYTES: u64 = 24;

    /// Instants added so far.
    pub fn instant_count(&self) -> u64 {
        self.instants.0.len() as u64
    }

    pub fn instant(&mut self, location: LocationId, region: RegionId, time_ns: i64) {
        self.instants.0.push(location);
        self.instants.1.push(region);
        self.instants.2.push(time_ns);
    }

    /// Where intervals' args entries are made ([`ArgTable::push`], keys interned with [`intern`](Self::intern)).
    pub fn interval_arg_table(&mut self) -> &mut ArgTable {
        &mut self.intervals.args
    }

    /// Where instants' args entries are made.
    pub fn instant_arg_table(&mut self) -> &mut ArgTable {
        &mut self.instant_args
    }

    /// Entry `entry` of [`interval_arg_table`](Self::interval_arg_table) is the args of the interval added
    /// last (replacing any it had). Nothing without an interval or with an entry that does not exist.
    pub fn set_interval_args(&mut self, entry: u32) {
        let n = self.intervals.location.len();
        if n > 0 && (entry as usize) < self.intervals.args.len() {
            set_last(&mut self.intervals.with_args, n as u32 - 1, entry);
        }
    }

    /// Entry `entry` of [`instant_arg_table`](Self::instant_arg_table) is the args of the instant added last.
    pub fn set_instant_args(&mut self, entry: u32) {
        let n = self.instants.0.len();
        if n > 0 && (entry as usize) < self.instant_args.len() {
            set_last(&mut self.instants_with_args, n as u32 - 1, entry);
        }
    }

    pub fn message(&mut self, m: MessageRecord) {
        let r = &mut self.messages;
        r.kind.push(m.kind);
        r.sender.push(m.sender);
        r.receiver.push(m.receiver);
        r.send_ns.push(m.send_ns);
        r.recv_ns.push(m.recv_ns);
        r.posted_ns.push(m.posted_ns);
        r.size_bytes.push(m.size_bytes);
        r.tag.push(m.tag);
        r.name.push(m.name);
        if self.message_sink.as_ref().is_some_and(|s| self.messages.kind.len() >= s.batch()) {
            self.sink_message_batch();
        }
    }

    /// Messages go to `sink` from now on, a batch at a time in the order recorded, instead of into the
    /// trace (a streamed index spills them): the trace then has none, its origin and span still counting
    /// their times.
    pub fn sink_messages(&mut self, sink: Box<dyn MessageSink>) {
        self.message_sink = Some(sink);
        self.sink_message_batch();
    }

    /// The messages held to the sink now (when there is one).
    pub fn flush_messages(&mut self) {
        self.sink_message_batch();
    }

    fn sink_message_batch(&mut self) {
        let Some(sink) = self.message_sink.as_mut() else { return };
        let m = std::mem::take(&mut self.messages);
        if m.kind.is_empty() {
            return;
        }
        let (mut lo, mut hi) = self.sunk.unwrap_or((i64::MAX, i64::MIN));
        let batch: Vec<MessageRecord> = (0..m.kind.len())
            .map(|i| {
                lo = lo.min(m.send_ns[i]).min(m.recv_ns[i]);
                hi = hi.max(m.send_ns[i]).max(m.recv_ns[i]);
                MessageRecord {
                    kind: m.kind[i],
                    sender: m.sender[i],
                    receiver: m.receiver[i],
                    send_ns: m.send_ns[i],
                    recv_ns: m.recv_ns[i],
                    posted_ns: m.posted_ns[i],
                    size_bytes: m.size_bytes[i],
                    tag: m.tag[i],
                    name: m.name[i],
                }
            })
            .collect();
        self.sunk = Some((lo, hi));
        sink.take(&batch);
    }

    pub fn collective(&mut self, c: CollectiveRecord) {
        let r = &mut self.collectives;
        r.operation.push(c.operation);
        r.location.push(c.location);
        r.region.push(c.region);
        r.communicator.push(c.communicator);
        r.root.push(c.root);
        r.start_ns.push(c.start_ns);
        r.end_ns.push(c.end_ns.max(c.start_ns));
        r.bytes_sent.push(c.bytes_sent);
        r.bytes_received.push(c.bytes_received);
    }

    /// A counter series (named, per process), created on first use.
    pub fn counter_series(&mut self, process: ProcessId, name: &str) -> u32 {
        let n = self.strings.intern(name);
        if let Some(&s) = self.series_index.get(&(process, n)) {
            return s;
        }
        let s = self.series_name.len() as u32;
        self.series_name.push(n);
        self.series_process.push(process);
        self.series_index.insert((process, n), s);
        s
    }

    /// About the bytes the records kept so far hold besides intervals (instants, counter samples, strings),
    /// for a reader that must stay within a memory budget (`weft index`).
    pub fn held_bytes(&self) -> u64 {
        let instants = self.instants.2.len() as u64 * 16;
        let samples = self.samples.1.len() as u64 * 20;
        let strings = self.strings.bytes() + self.strings.len() as u64 * 32;
        instants + samples + strings
    }

    pub fn counter_sample(&mut self, series: u32, time_ns: i64, value: f64) {
        self.samples.0.push(series);
        self.samples.1.push(time_ns);
        self.samples.2.push(value);
        if self.sample_sink.as_ref().is_some_and(|s| self.samples.0.len() >= s.batch()) {
            self.sink_batch();
        }
    }

    /// Counter samples go to `sink` from now on, a batch at a time in the order recorded, instead of into
    /// the trace (a streamed index spills them): the trace then has the series but no samples, its origin
    /// and span still counting the samples' times.
    pub fn sink_samples(&mut self, sink: Box<dyn SampleSink>) {
        self.sample_sink = Some(sink);
        self.sink_batch();
    }

    /// The samples held to the sink now (when there is one).
    pub fn flush_samples(&mut self) {
        self.sink_batch();
    }

    /// The samples held to the sink.
    fn sink_batch(&mut self) {
        let Some(sink) = self.sample_sink.as_mut() else { return };
        let (series, time, value) = &mut self.samples;
        if series.is_empty() {
            return;
        }
        let (lo, hi) =
            time.iter().fold(self.sunk.unwrap_or((i64::MAX, i64::MIN)), |(lo, hi), &t| (lo.min(t), hi.max(t)));
        self.sunk = Some((lo, hi));
        sink.take(series, time, value);
        series.clear();
        time.clear();
        value.clear();
    }

    fn origin(&self) -> i64 {
        let mut t0 = self.outside_start;
        let mut fold = |v: &[i64]| {
            if let Some(&m) = v.iter().min() {
                t0 = t0.min(m);
            }
        };
        fold(&self.intervals.start_ns);
        fold(&self.instants.2);
        fold(&self.messages.send_ns);
        fold(&self.messages.recv_ns);
        fold(&self.collectives.start_ns);
        fold(&self.samples.1);
        if let Some((first, _)) = self.sunk {
            t0 = t0.min(first);
        }
        if t0 == i64::MAX {
            0
        } else {
            t0
        }
    }

    /// Sort, nest, clip, normalise time; the builder is consumed.
    pub fn finish(mut self) -> Trace {
        self.sink_batch();
        let origin = self.origin();
        let rel = |t: i64| t.saturating_sub(origin).max(0) as u64;
        let mut span: u64 = 0;

        // Intervals: sort by (location, start, longer first, arrival order) so parents precede children.
        let mut raw = std::mem::take(&mut self.intervals);
        let n = raw.location.len();
        let mut order: Vec<u32> = (0..n as u32).collect();
        order.sort_by(|&a, &b| {
            let (a, b) = (a as usize, b as usize);
            raw.location[a]
                .cmp(&raw.location[b])
                .then(raw.start_ns[a].cmp(&raw.start_ns[b]))
                .then(raw.dur_ns[b].cmp(&raw.dur_ns[a]))
                .then(a.cmp(&b))
        });
        let mut iv = Intervals {
            location: Vec::with_capacity(n),
            region: Vec::with_capacity(n),
            start_ns: Vec::with_capacity(n),
            dur_ns: Vec::with_capacity(n),
            depth: Vec::with_capacity(n),
            args: EventArgs::default(),
        };
        let mut args = EventArgs { table: std::mem::take(&mut raw.args), ..Default::default() };
        let mut location_intervals = vec![0..0; self.locations.len()];
        let mut stack: Vec<u64> = Vec::new();
        let mut current: Option<LocationId> = None;
        let mut run_start = 0usize;
        let mut clipped = 0u64;
        for &i in &order {
            let i = i as usize;
            let loc = raw.location[i];
            if current != Some(loc) {
                if let Some(c) = current {
                    location_intervals[c.index()] = run_start..iv.location.len();
                }
                current = Some(loc);
                run_start = iv.location.len();
                stack.clear();
            }
            let start = rel(raw.start_ns[i]);
            let mut end = start.saturating_add(raw.dur_ns[i]);
            while let Some(&top) = stack.last() {
                if top <= start {
                    stack.pop();
                } else {
                    break;
                }
            }
            if let Some(&parent_end) = stack.last() {
                if end > parent_end {
                    clipped += 1;
                    if clipped <= 5 {
                        let name = self.strings.get(self.regions.name[raw.region[i].index()]).to_string();
                        self.warnings.push(WarningKind::ImproperNesting, || {
                            format!(
                                "'{name}' at {start} ns outlasts its enclosing slice by {} ns; clipped",
                                end - parent_end
                            )
                        });
                    }
                    end = parent_end;
                }
            }
            let depth = stack.len().min(u16::MAX as usize) as u16;
            stack.push(end);
            span = span.max(end);
            iv.location.push(loc);
            iv.region.push(raw.region[i]);
            iv.start_ns.push(start);
            iv.dur_ns.push(end - start);
            iv.depth.push(depth);
            if !raw.with_args.is_empty() {
                follow_args(&raw.with_args, i, iv.location.len() - 1, &mut args);
            }
        }
        iv.args = args;
        if let Some(c) = current {
            location_intervals[c.index()] = run_start..iv.location.len();
        }
        if clipped > 5 {
            self.warnings.add_count(WarningKind::ImproperNesting, clipped - 5);
        }
        drop(order);
        drop(raw);

        // Instants, sorted by location then time.
        let (il, ir, it) = std::mem::take(&mut self.instants);
        let mut idx: Vec<usize> = (0..il.len()).collect();
        idx.sort_by_key(|&i| (il[i], it[i]));
        let mut instant_args = EventArgs { table: std::mem::take(&mut self.instant_args), ..Default::default() };
        if !self.instants_with_args.is_empty() {
            for (k, &i) in idx.iter().enumerate() {
                follow_args(&self.instants_with_args, i, k, &mut instant_args);
            }
        }
        let instants = Instants {
            location: idx.iter().map(|&i| il[i]).collect(),
            region: idx.iter().map(|&i| ir[i]).collect(),
            time_ns: idx.iter().map(|&i| rel(it[i])).collect(),
            args: instant_args,
        };
        if let Some(&m) = instants.time_ns.iter().max() {
            span = span.max(m);
        }

        // Messages, sorted by send time.
        let m = std::mem::take(&mut self.messages);
        let mut idx: Vec<usize> = (0..m.kind.len()).collect();
        idx.sort_by_key(|&i| (m.send_ns[i], m.recv_ns[i]));
        let messages = Messages {
            kind: idx.iter().map(|&i| m.kind[i]).collect(),
            sender: idx.iter().map(|&i| m.sender[i]).collect(),
            receiver: idx.iter().map(|&i| m.receiver[i]).collect(),
            send_ns: idx.iter().map(|&i| rel(m.send_ns[i])).collect(),
            recv_ns: idx.iter().map(|&i| rel(m.recv_ns[i])).collect(),
            // A posting is inside its receiver's run; one recorded before the first event (a broken trace)
            // is taken at it.
            posted_ns: idx.iter().map(|&i| rel(m.posted_ns[i])).collect(),
            size_bytes: idx.iter().map(|&i| m.size_bytes[i]).collect(),
            tag: idx.iter().map(|&i| m.tag[i]).collect(),
            name: idx.iter().map(|&i| m.name[i]).collect(),
        };
        for (&s, &r) in messages.send_ns.iter().zip(&messages.recv_ns) {
            span = span.max(s).max(r);
        }

        let c = std::mem::take(&mut self.collectives);
        let collectives = Collectives {
            operation: c.operation,
            location: c.location,
            region: c.region,
            communicator: c.communicator,
            root: c.root,
            start_ns: c.start_ns.iter().map(|&t| rel(t)).collect(),
            end_ns: c.end_ns.iter().map(|&t| rel(t)).collect(),
            bytes_sent: c.bytes_sent,
            bytes_received: c.bytes_received,
        };
        if let Some(&m) = collectives.end_ns.iter().max() {
            span = span.max(m);
        }

        let (ss, st, sv) = std::mem::take(&mut self.samples);
        let mut idx: Vec<usize> = (0..ss.len()).collect();
        idx.sort_by_key(|&i| (ss[i], st[i]));
        let counters = Counters {
            series_name: std::mem::take(&mut self.series_name),
            series_process: std::mem::take(&mut self.series_process),
            sample_series: idx.iter().map(|&i| ss[i]).collect(),
            sample_time_ns: idx.iter().map(|&i| rel(st[i])).collect(),
            sample_value: idx.iter().map(|&i| sv[i]).collect(),
        };
        if let Some(&m) = counters.sample_time_ns.iter().max() {
            span = span.max(m);
        }
        if let Some((_, last)) = self.sunk {
            span = span.max(rel(last));
        }

        Trace {
            format: self.format,
            strings: self.strings,
            processes: self.processes,
            locations: self.locations,
            regions: self.regions,
            intervals: iv,
            instants,
            messages,
            collectives,
            counters,
            warnings: self.warnings,
            origin_ns: if origin == i64::MAX { 0 } else { origin },
            span_ns: span,
            location_intervals,
            event_records: self.event_records,
        }
    }
}

/// `with_args` (ascending by event) pairs `event` with an entry: record it under the event's place after
/// the sort, `at` (places come ascending).
fn follow_args(with_args: &[(u32, u32)], event: usize, at: usize, out: &mut EventArgs) {
    if let Ok(k) = with_args.binary_search_by_key(&(event as u32), |p| p.0) {
        out.event.push(at as u32);
        out.entry.push(with_args[k].1);
    }
}

/// `event` (the last one added, so not below any in `with_args`) has args `entry`.
fn set_last(with_args: &mut Vec<(u32, u32)>, event: u32, entry: u32) {
    match with_args.last_mut() {
        Some(last) if last.0 == event => last.1 = entry,
        _ => with_args.push((event, entry)),
    }
}

/// For intervals grouped by location, each location's index range; None when a location's run is split.
pub(crate) fn location_ranges(location: &[LocationId], locations: usize) -> Option<Vec<Range<usize>>> {
    let mut ranges = vec![0..0; locations];
    let mut seen = vec![false; locations];
    let mut i = 0;
    while i < location.len() {
        let l = location[i].index();
        if l >= locations || seen[l] {
            return None;
        }
        seen[l] = true;
        let start = i;
        while i < location.len() && location[i].index() == l {
            i += 1;
        }
        ranges[l] = start..i;
    }
    Some(ranges)
}

/// Guess a region's paradigm and role from its name and category, for formats that do not state them.
pub fn classify_region(name: &str, category: &str) -> (Paradigm, RegionRole) {
    let lower_cat = category.to_ascii_lowercase();
    if let Some(call) = name.strip_prefix("MPI_").or_else(|| name.strip_prefix("mpi_")) {
        let call = call.to_ascii_lowercase();
        let role = if call.starts_with("barrier") || call.starts_with("ibarrier") {
            RegionRole::Barrier
        } else if [
            "allreduce",
            "reduce",
            "bcast",
            "gather",
            "scatter",
            "alltoall",
            "allgather",
            "scan",
            "exscan",
            "iallreduce",
            "ireduce",
            "ibcast",
            "igather",
            "iscatter",
            "ialltoall",
            "iallgather",
            "neighbor",
        ]
        .iter()
        .any(|p| call.starts_with(p))
        {
            RegionRole::Collective
        } else if [
            "send", "recv", "isend", "irecv", "ssend", "bsend", "rsend", "issend", "wait", "test", "probe", "iprobe",
            "sendrecv", "start",
        ]
        .iter()
        .any(|p| call.starts_with(p))
        {
            RegionRole::PointToPoint
        } else {
            RegionRole::Function
        };
        return (Paradigm::Mpi, role);
    }
    let lower = name.to_ascii_lowercase();
    if lower.starts_with("!$omp")
        || lower.starts_with("omp_")
        || lower.starts_with("#pragma omp")
        || lower_cat == "openmp"
    {
        let role = if lower.contains("barrier") {
            if lower.contains("implicit") {
                RegionRole::ImplicitBarrier
            } else {
                RegionRole::Barrier
            }
        } else if lower.contains("taskwait") {
            RegionRole::TaskWait
        } else if lower.contains("task") {
            RegionRole::Task
        } else if lower.contains("parallel") {
            RegionRole::Parallel
        } else if lower.contains("critical") {
            RegionRole::Critical
        } else {
            RegionRole::Function
        };
        return (Paradigm::OpenMp, role);
    }
    if lower.starts_with("pthread_") {
        return (Paradigm::Pthread, RegionRole::Function);
    }
    if lower.starts_with("cuda") || lower_cat.contains("cuda") {
        return (Paradigm::Cuda, RegionRole::Function);
    }
    if lower.starts_with("nccl")
        || lower_cat.contains("kernel")
        || lower_cat.contains("gpu")
        || lower_cat == "gpu_memcpy"
    {
        return (Paradigm::Gpu, RegionRole::Function);
    }
    (Paradigm::User, RegionRole::Function)
}
