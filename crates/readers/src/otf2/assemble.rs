//! Turns decoded OTF2 definitions and events into the model: location groups become processes, locations
//! stay locations, ENTER/LEAVE pairs become intervals (a LEAVE closes the innermost open region of its
//! location, whichever region it names: a `MisnamedEnd` warning when it names another, as APEX writes; the
//! official tools pair them so), MPI sends and receives become matched messages, collective begin/end pairs
//! become collective rows, METRIC events become counter samples (one series per recording location and
//! metric member, "member [unit]", values scaled as the member says), threading events are kept raw. Times
//! are converted from ticks (after the location's clock offsets) to nanoseconds since the clock's global
//! offset.
//!
//! It must not decode bytes itself (that is `definitions` and `events`) nor sort or nest (the builder does).

use super::anchor::Anchor;
use super::convert::{comm_ranks, paradigm, role, thread_kind, Clock, COLLECTIVE_NAMES};
use super::definitions::{self, ClockCorrection, GlobalDefs, LocalDefs, UNDEFINED};
use super::ends::Ends;
use super::events::{self, metric_value, Event};
use super::matching::{CollectivePart, Recv, Send};
use super::threads::{ThreadEvent, ThreadEventKind};
use super::{malformed, ArchiveFiles, IntervalTaker, Otf2Read};
use crate::ReadError;
use std::collections::HashMap;
use weft_model::*;

pub(super) fn assemble(anchor_path: &str, anchor: Anchor, files: &dyn ArchiveFiles) -> Result<Otf2Read, ReadError> {
    let mut a = Assembler::open(anchor_path, anchor, files)?;
    let mut intervals = Vec::new();
    for k in 0..a.locations.len() {
        intervals.clear();
        let (loc, _) = a.location(k, &mut intervals, None)?;
        a.b.reserve_intervals(intervals.len()).map_err(|_| {
            let bytes = (intervals.len() as u64).saturating_mul(TraceBuilder::INTERVAL_BYTES);
            let evt_path = format!("{}/{}.evt", a.stem, a.locations[k].0);
            crate::budget::out_of_memory(&evt_path, "OTF2", "its intervals", bytes)
        })?;
        for &(r, start, dur) in &intervals {
            a.b.interval(loc, r, start, dur);
        }
    }
    a.finish()
}

/// An archive being read location by location: the definitions are in the builder; each call of
/// [`location`](Assembler::location) decodes one location's events, handing its intervals to the caller
/// (the whole read pushes them into the builder, `weft index` streams them) and keeping everything else
/// (instants, message ends, collective parts, warnings) in the builder and state; [`finish`](Assembler::finish)
/// matches messages and collectives and builds the trace.
pub(super) struct Assembler<'f> {
    pub(super) b: TraceBuilder,
    st: State,
    anchor: Anchor,
    pub(super) stem: String,
    clock: Clock,
    /// The real time of the clock's global offset (ns since the epoch), when the archive gives it.
    realtime_ns: Option<i64>,
    /// OTF2 location id and model location, in definition order.
    pub(super) locations: Vec<(u64, LocationId)>,
    /// (Looked up for every message and collective row: a fast hash.)
    comm_names: rustc_hash::FxHashMap<u32, StringId>,
    files: &'f dyn ArchiveFiles,
    /// Bytes of an event file decoded at a time.
    pub(super) window: usize,
}

/// Bytes of an event file read and decoded at a time, by default (the read's memory for a location's
/// events, whatever their number).
pub const READ_WINDOW: usize = 1 << 20;

impl<'f> Assembler<'f> {
    pub(super) fn open(anchor_path: &str, anchor: Anchor, files: &'f dyn ArchiveFiles) -> Result<Self, ReadError> {
        let stem = anchor_path.strip_suffix(".otf2").unwrap_or(anchor_path).to_string();
        let def_path = format!("{stem}.def");
        let def_bytes =
            files.read(&def_path).map_err(|e| ReadError::Io { file: def_path.clone(), detail: e })?.ok_or_else(
                || ReadError::Io { file: def_path.clone(), detail: "the global definitions file is missing".into() },
            )?;
        let mut b = TraceBuilder::new(Format::Otf2);
        let defs = match definitions::parse_global(&def_bytes, anchor.chunk_size_defs) {
            (d, None) => d,
            (d, Some(e)) if !d.locations.is_empty() => {
                b.warn(WarningKind::Truncated, || {
                    format!("{def_path}: definitions end early at byte {}: {}", e.offset, e.what)
                });
                d
            }
            (_, Some(e)) => return Err(malformed(&def_path, e)),
        };
        drop(def_bytes);
        if defs.truncated {
            b.warn(WarningKind::Truncated, || format!("{def_path}: no end-of-file marker; the file may be cut short"));
        }
        for n in &defs.unknown {
            b.warn(WarningKind::UnknownRecord, || format!("{def_path}: byte {}: {}", n.offset, n.message));
        }
        if defs.locations.is_empty() {
            return Err(ReadError::Empty {
                file: def_path,
                format: "OTF2",
                detail: " (no location definitions)".into(),
            });
        }
        let clock = match defs.clock {
            Some(c) if c.timer_resolution > Clock::MAX_RESOLUTION => {
                return Err(ReadError::Malformed {
                    file: def_path,
                    format: "OTF2",
                    offset: c.offset,
                    detail: format!(
                        "timer resolution of {} ticks per second: no clock is that fine (at most {}), and every \
                     time would collapse to zero",
                        c.timer_resolution,
                        Clock::MAX_RESOLUTION
                    ),
                })
            }
            Some(c) if c.timer_resolution > 0 => Clock { offset: c.global_offset, resolution: c.timer_resolution },
            _ => {
                b.warn(WarningKind::Other, || format!("{def_path}: no clock properties; assuming nanosecond ticks"));
                Clock { offset: 0, resolution: 1_000_000_000 }
            }
        };
        let realtime_ns = defs.clock.and_then(|c| c.realtime_ns).and_then(|t| i64::try_from(t).ok());
        let name_of = |id: u32, fallback: String| defs.string(id).map(str::to_string).unwrap_or(fallback);

        // Processes (location groups) and locations, in definition order.
        let mut group_process: HashMap<u32, ProcessId> = HashMap::new();
        for g in &defs.location_groups {
            let p = b.process(g.id as i64);
            b.set_process_name(p, &name_of(g.name, format!("Location group {}", g.id)));
            group_process.insert(g.id, p);
        }
        let mut location_ids: HashMap<u64, LocationId> = HashMap::new();
        for l in &defs.locations {
            let p = match group_process.get(&l.group) {
                Some(&p) => p,
                None => {
                    b.warn(WarningKind::DanglingReference, || {
                        format!("{def_path}: location {} names undefined location group {}", l.id, l.group)
                    });
                    let p = b.process(l.group as i64);
                    group_process.insert(l.group, p);
                    p
                }
            };
            let kind = match l.kind {
                2 => LocationKind::GpuStream,
                3 => LocationKind::Metric,
                _ => LocationKind::CpuThread,
            };
            let loc = b.location(p, l.id as i64, kind);
            b.set_location_name(loc, &name_of(l.name, format!("Location {}", l.id)));
            location_ids.insert(l.id, loc);
        }

        // Regions, in id order, so the model lists them as the trace defines them.
        let mut region_ids: Vec<u32> = defs.regions.keys().copied().collect();
        region_ids.sort_unstable();
        let mut regions: HashMap<u32, RegionId> = HashMap::new();
        let mut region_names: HashMap<u32, Box<str>> = HashMap::new();
        for id in region_ids {
            let r = &defs.regions[&id];
            let name = name_of(r.name, format!("region {id}"));
            let (mut par, mut rol) = (paradigm(r.paradigm), role(r.role));
            if par == Paradigm::Unknown || rol == RegionRole::Unknown {
                let (gp, gr) = classify_region(&name, "");
                par = if par == Paradigm::Unknown { gp } else { par };
                rol = if rol == RegionRole::Unknown { gr } else { rol };
            }
            regions.insert(id, b.region_with(&name, "", par, rol));
            region_names.insert(id, name.into());
        }
        let comm_ranks = comm_ranks(&defs);
        // In id order: the string table (and a store's manifest) must not depend on a hash map's order.
        let mut comm_ids: Vec<u32> = defs.comms.keys().copied().collect();
        comm_ids.sort_unstable();
        let comm_names: rustc_hash::FxHashMap<u32, StringId> =
            comm_ids.iter().map(|&id| (id, b.intern(&name_of(defs.comms[&id].name, format!("Comm {id}"))))).collect();

        let metrics = metric_tables(&defs, &group_process, &location_ids, &mut b);
        let dense_len = regions.keys().copied().filter(|&id| id < 1 << 20).max().map_or(0, |m| m as usize + 1);
        let mut region_dense = vec![RegionId(u32::MAX); dense_len];
        for (&id, &r) in &regions {
            if (id as usize) < dense_len {
                region_dense[id as usize] = r;
            }
        }
        let look = Lookups {
            region_dense,
            regions,
            region_names,
            // Each communicator's ranks resolved to model locations once (the hot path: one lookup per
            // message end).
            comm_locations: comm_ranks
                .iter()
                .map(|(&c, r)| (c, r.as_ref().map(|v| v.iter().map(|id| location_ids.get(id).copied()).collect())))
                .collect(),
        };
        // Collectives on a self-like communicator (COMM_SELF, or an empty group) are each an operation of
        // their own: the k-th calls of different locations on it are not one operation.
        let mut ends = Ends::default();
        ends.self_like(look.comm_locations.iter().filter(|(_, r)| r.is_none()).map(|(&c, _)| c).collect());
        let st = State {
            look: std::sync::Arc::new(look),
            undefined: HashMap::new(),
            ends,
            thread_raw: Vec::new(),
            location_ids,
            unresolved_ranks: 0,
            metrics,
            metric_series: Default::default(),
            metric_notes: Default::default(),
        };
        let locations: Vec<(u64, LocationId)> = defs.locations.iter().map(|l| (l.id, st.location_ids[&l.id])).collect();
        Ok(Assembler { b, st, anchor, stem, clock, realtime_ns, locations, comm_names, files, window: READ_WINDOW })
    }

    /// Decode the `k`-th location's events; its intervals (model region, start, duration; in ENTER order) are
    /// appended to `intervals`. Returns the model location.
    pub(super) fn location(
        &mut self,
        k: usize,
        intervals: &mut Vec<(RegionId, i64, u64)>,
        taker: Option<(&mut dyn IntervalTaker, usize)>,
    ) -> Result<(LocationId, LocationRead), ReadError> {
        let (id, loc) = self.locations[k];
        let src = Source {
            chunk_size_defs: self.anchor.chunk_size_defs,
            chunk_size_events: self.anchor.chunk_size_events,
            stem: &self.stem,
            clock: self.clock,
            files: self.files,
            window: self.window,
        };
        let r = read_location(
            &mut Direct { b: &mut self.b, st: &mut self.st },
            &src,
            id,
            loc,
            intervals,
            taker,
            usize::MAX,
        )?;
        self.ends_failed(id)?;
        self.b.add_event_records(r.events);
        Ok((loc, r))
    }

    fn ends_failed(&self, id: u64) -> Result<(), ReadError> {
        match self.st.ends.failed() {
            Some(e) => Err(ReadError::Io {
                file: format!("{}/{id}.evt", self.stem),
                detail: format!("spilling its message ends: {e}"),
            }),
            None => Ok(()),
        }
    }

    /// Apply what a decoder reading the `k`-th location ahead logged ([`Decoder::decode`]), as reading it
    /// here would have; the caller holds its intervals.
    pub(super) fn replay(&mut self, k: usize, log: LocationLog) -> Result<(), ReadError> {
        let (id, loc) = self.locations[k];
        let file = format!("{}/{id}.evt", self.stem);
        let mut fx = Direct { b: &mut self.b, st: &mut self.st };
        let mut sends: Vec<u64> = Vec::new();
        for item in log.items {
            apply(&mut fx, item, &mut sends, loc, &file);
        }
        self.replay_end(k, log.events, log.unresolved)
    }

    /// Apply a batch of the `k`-th location's log as bytes ([`Decoder::decode_bytes`]); `sends` numbers the
    /// location's sends so far (empty before its first batch).
    pub(super) fn replay_bytes(&mut self, k: usize, sends: &mut Vec<u64>, bytes: &[u8]) -> Result<(), ReadError> {
        let (id, loc) = self.locations[k];
        let file = format!("{}/{id}.evt", self.stem);
        let mut fx = Direct { b: &mut self.b, st: &mut self.st };
        let mut r = super::logbytes::Bytes { b: bytes, at: 0 };
        let mut last = 0i64;
        while !r.at_end() {
            let item = super::logbytes::get(&mut r, &mut last).map_err(|e| ReadError::Io {
                file: file.clone(),
                detail: format!("its log from another shard: {e}"),
            })?;
            apply(&mut fx, item, sends, loc, &file);
        }
        self.ends_failed(id)
    }

    /// The `k`-th location's replay ends: it held `events` records, `unresolved` ranks it could not resolve.
    pub(super) fn replay_end(&mut self, k: usize, events: u64, unresolved: u64) -> Result<(), ReadError> {
        self.st.unresolved_ranks += unresolved;
        self.ends_failed(self.locations[k].0)?;
        self.b.add_event_records(events);
        Ok(())
    }

    /// A decoder of this archive's locations for other threads, reading `files` (this archive's).
    pub(super) fn decoder<'g>(&self, files: &'g (dyn ArchiveFiles + Sync)) -> Decoder<'g> {
        Decoder {
            look: self.st.look.clone(),
            chunk_size_defs: self.anchor.chunk_size_defs,
            chunk_size_events: self.anchor.chunk_size_events,
            stem: self.stem.clone(),
            clock: self.clock,
            files,
            window: self.window,
            locations: self.locations.clone(),
        }
    }

    /// About the bytes held for [`finish`](Self::finish): message ends and collective parts to match,
    /// threading events, instants, counter samples, strings (intervals are the caller's).
    pub(super) fn held_bytes(&self) -> Held {
        held(&self.st, &self.b)
    }

    /// Sends and receives recorded so far (kept or not).
    pub(super) fn end_counts(&self) -> [u64; 2] {
        let c = self.st.ends.counts();
        [c[0] as u64, c[1] as u64]
    }

    /// Match only the messages to `receivers` (`Ends::keep_receivers`).
    pub(super) fn keep_receivers(&mut self, receivers: std::ops::Range<u32>) {
        self.st.ends.keep_receivers(receivers);
    }

    /// Whether the message ends went to the spill (`ends`).
    pub(super) fn ends_spilled(&self) -> bool {
        self.st.ends.spilled()
    }

    /// Spill the message ends and collective parts to `out` whenever they pass `share` bytes (`ends`).
    pub(super) fn spill_ends(&mut self, out: Box<dyn super::EndsSpill>, share: u64) {
        self.st.ends.spill_to(out, share);
    }

    /// [`finish`](Self::finish) without holding the messages and collective rows (a streamed index,
    /// `index::comms`): each matched message goes to `message` with its receive's number, in no particular
    /// order (the trace orders messages by send time, receive time, then receive order), times in the source
    /// clock; then the trace is built without them, its origin counting them; then each collective row goes
    /// to `collective` in the trace's order with the trace's origin. A callback's error stops the read.
    pub(super) fn finish_streamed(
        self,
        message: &mut dyn FnMut(&weft_model::MessageRecord, u64) -> Result<(), String>,
        combine: &mut dyn FnMut(super::MatchedShare) -> Result<super::MatchedShare, String>,
        collective: &mut dyn FnMut(&CollectiveRecord, i64) -> Result<(), String>,
    ) -> Result<Otf2Read, ReadError> {
        let (read, collectives) = self.finish_streamed_deferred(message, combine)?;
        collectives.each(collective)?;
        Ok(read)
    }

    /// [`finish_streamed`](Self::finish_streamed) up to its collective rows, which the caller has handed
    /// over when it will ([`PendingCollectives::each`]).
    pub(super) fn finish_streamed_deferred(
        self,
        message: &mut dyn FnMut(&weft_model::MessageRecord, u64) -> Result<(), String>,
        combine: &mut dyn FnMut(super::MatchedShare) -> Result<super::MatchedShare, String>,
    ) -> Result<(Otf2Read, PendingCollectives), ReadError> {
        let Assembler { mut b, mut st, anchor, comm_names, stem, realtime_ns, .. } = self;
        let spilled =
            |e: String| ReadError::Io { file: stem.clone(), detail: format!("matching the spilled message ends: {e}") };
        let empty = b.intern("");
        let mut first = i64::MAX;
        let (unmatched_sends, unmatched_recvs) = st
            .ends
            .messages_numbered(&mut |s, r, nth| {
                first = first.min(s.time_ns).min(r.time_ns);
                message(&message_record(&comm_names, empty, s, r), nth)
            })
            .map_err(spilled)?;
        let share = super::MatchedShare {
            unmatched_sends: unmatched_sends as u64,
            unmatched_recvs: unmatched_recvs as u64,
            first_ns: first,
        };
        let all = combine(share).map_err(|e| ReadError::Io { file: stem.clone(), detail: e })?;
        unmatched(&mut b, &st, all.unmatched_sends as usize, all.unmatched_recvs as usize);
        let mut first = all.first_ns;
        st.ends.parts(&mut |p| first = first.min(p.begin_ns)).map_err(spilled)?;
        b.note_outside_start(first);
        let trace = b.finish();
        let origin = trace.origin_ns;
        let thread_events = thread_events(st.thread_raw, origin);
        let collectives = PendingCollectives { ends: st.ends, comm_names, empty, origin, stem };
        Ok((Otf2Read { trace, anchor, thread_events, realtime_ns }, collectives))
    }

    /// Match messages and collectives, and build the trace (with the intervals the caller pushed, if any).
    /// Fails only when the spilled message ends cannot be read back.
    pub(super) fn finish(self) -> Result<Otf2Read, ReadError> {
        let Assembler { mut b, mut st, anchor, comm_names, stem, realtime_ns, .. } = self;
        let spilled =
            |e: String| ReadError::Io { file: stem.clone(), detail: format!("matching the spilled message ends: {e}") };
        // Messages ("" is the string table's first: interning it adds nothing).
        let empty = b.intern("");
        let (unmatched_sends, unmatched_recvs) =
            st.ends.messages(&mut |s, r| b.message(message_record(&comm_names, empty, s, r))).map_err(spilled)?;
        unmatched(&mut b, &st, unmatched_sends, unmatched_recvs);

        // Collectives.
        st.ends
            .collectives(&mut |p, op| b.collective(collective_record(&comm_names, empty, p, op)))
            .map_err(spilled)?;

        let trace = b.finish();
        let thread_events = thread_events(st.thread_raw, trace.origin_ns);
        Ok(Otf2Read { trace, anchor, thread_events, realtime_ns })
    }
}

/// The collective rows of a streamed finish, matched and handed over when the caller asks
/// ([`Otf2Stream::finish_streamed_deferred`](super::Otf2Stream::finish_streamed_deferred)).
pub struct PendingCollectives {
    ends: Ends,
    comm_names: rustc_hash::FxHashMap<u32, StringId>,
    empty: StringId,
    origin: i64,
    stem: String,
}

impl PendingCollectives {
    /// How many rows there are, when every collective part is in memory (None: some went to the spill).
    pub fn rows_in_memory(&self) -> Option<u64> {
        self.ends.parts_in_memory()
    }

    /// Each collective row to `collective`, in the trace's order, with the trace's origin; its first error
    /// ends them (as does a spilled part that cannot be read back).
    pub fn each(
        self,
        collective: &mut dyn FnMut(&CollectiveRecord, i64) -> Result<(), String>,
    ) -> Result<(), ReadError> {
        let PendingCollectives { mut ends, comm_names, empty, origin, stem } = self;
        let spilled =
            |e: String| ReadError::Io { file: stem.clone(), detail: format!("matching the spilled message ends: {e}") };
        let mut failed = None;
        ends.collectives(&mut |p, op| {
            if failed.is_none() {
                failed = collective(&collective_record(&comm_names, empty, p, op), origin).err();
            }
        })
        .map_err(spilled)?;
        match failed {
            Some(e) => Err(spilled(e)),
            None => Ok(()),
        }
    }
}

/// The message a matched send and receive make (`empty`: the string "" for a communicator without a name).
fn message_record(
    comm_names: &rustc_hash::FxHashMap<u32, StringId>,
    empty: StringId,
    s: &Send,
    r: &Recv,
) -> MessageRecord {
    MessageRecord {
        kind: MessageKind::PointToPoint,
        sender: s.sender,
        receiver: r.receiver,
        send_ns: s.time_ns,
        recv_ns: r.time_ns,
        posted_ns: r.posted_ns,
        size_bytes: s.length,
        tag: s.tag,
        name: comm_names.get(&s.comm).copied().unwrap_or(empty),
    }
}

/// The collective row a part makes, of operation instance `op`.
fn collective_record(
    comm_names: &rustc_hash::FxHashMap<u32, StringId>,
    empty: StringId,
    p: &CollectivePart,
    op: u32,
) -> CollectiveRecord {
    CollectiveRecord {
        operation: op,
        location: p.location,
        region: p.region,
        communicator: comm_names.get(&p.comm).copied().unwrap_or(empty),
        root: p.root,
        start_ns: p.begin_ns,
        end_ns: p.end_ns,
        bytes_sent: p.sent,
        bytes_received: p.received,
    }
}

/// The warnings of matching: ends without a partner, ranks without a location.
fn unmatched(b: &mut TraceBuilder, st: &State, unmatched_sends: usize, unmatched_recvs: usize) {
    if unmatched_sends + unmatched_recvs > 0 {
        b.warnings_mut().push(WarningKind::UnmatchedFlow, || {
            format!("{unmatched_sends} sends and {unmatched_recvs} receives found no partner")
        });
        b.warnings_mut().add_count(WarningKind::UnmatchedFlow, (unmatched_sends + unmatched_recvs) as u64 - 1);
    }
    if st.unresolved_ranks > 0 {
        let n = st.unresolved_ranks;
        b.warn(WarningKind::DanglingReference, || format!("{n} MPI ranks could not be resolved to a location"));
    }
}

fn thread_events(raw: Vec<(LocationId, i64, ThreadEventKind)>, origin: i64) -> Vec<ThreadEvent> {
    raw.into_iter()
        .map(|(location, t, kind)| ThreadEvent { location, time_ns: t.saturating_sub(origin).max(0) as u64, kind })
        .collect()
}

struct State {
    look: std::sync::Arc<Lookups>,
    /// Regions events name that the definitions do not, made on first use.
    undefined: HashMap<u32, RegionId>,
    /// Message ends and collective parts, matched at the end (in memory or spilled in runs).
    ends: Ends,
    thread_raw: Vec<(LocationId, i64, ThreadEventKind)>,
    location_ids: HashMap<u64, LocationId>,
    unresolved_ranks: u64,
    metrics: MetricTables,
    /// Counter series and scale of each (metric class or instance, recording location), one per member.
    metric_series: rustc_hash::FxHashMap<(u32, LocationId), Vec<(u32, f64)>>,
    /// Metric references already warned about (undefined, or values that do not fit the class).
    metric_notes: std::collections::HashSet<u32>,
}

/// What reading any location looks up and none changes (shared with decoders reading ahead, `Ahead`).
pub(super) struct Lookups {
    /// Defined regions by OTF2 id.
    regions: HashMap<u32, RegionId>,
    /// The same map for small ids, as a table (the hot path: one lookup per ENTER).
    region_dense: Vec<RegionId>,
    /// Defined regions' names by OTF2 id (for warnings).
    region_names: HashMap<u32, Box<str>>,
    /// Per communicator: None for COMM_SELF, else each rank's location (None: not a defined location).
    comm_locations: rustc_hash::FxHashMap<u32, Option<Vec<Option<LocationId>>>>,
}

impl Lookups {
    /// The defined region of OTF2 id `id`.
    #[inline]
    fn region(&self, id: u32) -> Option<RegionId> {
        match self.region_dense.get(id as usize) {
            Some(&r) if r.0 != u32::MAX => Some(r),
            _ => self.regions.get(&id).copied(),
        }
    }

    /// The name of OTF2 region `id`, for a warning ("region N" when it is not defined).
    fn region_name(&self, id: u32) -> String {
        self.region_names.get(&id).map_or_else(|| format!("region {id}"), |n| n.to_string())
    }

    /// The location of rank `rank` of communicator `comm` (`me` for COMM_SELF); None when it cannot be
    /// resolved.
    #[inline]
    fn rank(&self, comm: u32, rank: u32, me: LocationId) -> Option<LocationId> {
        match self.comm_locations.get(&comm) {
            Some(None) => Some(me),
            Some(Some(v)) => v.get(rank as usize).copied().flatten(),
            None => None,
        }
    }
}

/// What the metric definitions say, resolved to the model: per metric reference (a class or an instance),
/// its members' series names and scales, and where its series belong.
struct MetricTables {
    refs: HashMap<u32, MetricRef>,
    /// Per model location: its process, name, and whether its process has other locations (series names
    /// then say which location recorded them).
    locations: HashMap<LocationId, (ProcessId, String, bool)>,
}

struct MetricRef {
    /// (series name, scale) per member, in the class's order.
    members: Vec<(String, f64)>,
    /// A metric instance's scope: its process and what the series name adds; None for a class (the
    /// recording location is the scope).
    scope: Option<(ProcessId, Option<String>)>,
}

fn metric_tables(
    defs: &GlobalDefs,
    group_process: &HashMap<u32, ProcessId>,
    location_ids: &HashMap<u64, LocationId>,
    b: &mut TraceBuilder,
) -> MetricTables {
    let mut per_group: HashMap<u32, usize> = HashMap::new();
    for l in &defs.locations {
        *per_group.entry(l.group).or_default() += 1;
    }
    let mut locations = HashMap::new();
    for l in &defs.locations {
        let (Some(&loc), Some(&p)) = (location_ids.get(&l.id), group_process.get(&l.group)) else {
            continue;
        };
        let name = defs.string(l.name).map_or_else(|| format!("Location {}", l.id), str::to_string);
        locations.insert(loc, (p, name, per_group.get(&l.group).copied().unwrap_or(0) > 1));
    }
    let members_of = |class: &definitions::MetricClassDef, b: &mut TraceBuilder| -> Vec<(String, f64)> {
        class
            .members
            .iter()
            .map(|&m| match defs.metric_members.get(&m) {
                Some(d) => {
                    let name = defs.string(d.name).map_or_else(|| format!("metric {m}"), str::to_string);
                    let unit = defs.string(d.unit).unwrap_or("");
                    let name = if unit.is_empty() { name } else { format!("{name} [{unit}]") };
                    (name, d.scale())
                }
                None => {
                    b.warn(WarningKind::DanglingReference, || format!("a metric class names undefined member {m}"));
                    (format!("metric {m}"), 1.0)
                }
            })
            .collect()
    };
    // In id order: warnings must not depend on a hash map's order (a store's manifest holds them).
    let mut refs = HashMap::new();
    let mut ids: Vec<u32> = defs.metric_classes.keys().copied().collect();
    ids.sort_unstable();
    for id in ids {
        refs.insert(id, MetricRef { members: members_of(&defs.metric_classes[&id], b), scope: None });
    }
    let mut ids: Vec<u32> = defs.metric_instances.keys().copied().collect();
    ids.sort_unstable();
    for id in ids {
        let inst = &defs.metric_instances[&id];
        let Some(class) = defs.metric_classes.get(&inst.class) else {
            b.warn(WarningKind::DanglingReference, || {
                format!("metric instance {id} names undefined metric class {}", inst.class)
            });
            continue;
        };
        let scope = match inst.scope_kind {
            definitions::METRIC_SCOPE_LOCATION => location_ids
                .get(&inst.scope)
                .and_then(|l| locations.get(l))
                .map(|(p, name, shared): &(ProcessId, String, bool)| (*p, shared.then(|| name.clone()))),
            definitions::METRIC_SCOPE_LOCATION_GROUP => {
                u32::try_from(inst.scope).ok().and_then(|g| group_process.get(&g)).map(|&p| (p, None))
            }
            kind => {
                // A system tree node or a group: the recorder's process, the series named by the scope.
                let scope_name = u32::try_from(inst.scope).ok().and_then(|s| match kind {
                    definitions::METRIC_SCOPE_SYSTEM_TREE_NODE => defs.system_tree.get(&s).map(|n| n.name),
                    _ => defs.groups.get(&s).map(|g| g.name),
                });
                let name = scope_name.and_then(|n| defs.string(n)).unwrap_or("scope").to_string();
                location_ids.get(&inst.recorder).and_then(|l| locations.get(l)).map(|(p, _, _)| (*p, Some(name)))
            }
        };
        refs.insert(
            id,
            MetricRef { members: members_of(class, b), scope: Some(scope.unwrap_or((ProcessId(0), None))) },
        );
    }
    MetricTables { refs, locations }
}

impl State {
    /// The counter series of metric `metric`'s members as recorded on `loc` (made on first use); None for an
    /// undefined metric.
    fn metric_series(&mut self, b: &mut TraceBuilder, metric: u32, loc: LocationId) -> Option<&[(u32, f64)]> {
        if !self.metric_series.contains_key(&(metric, loc)) {
            let m = self.metrics.refs.get(&metric)?;
            let (process, suffix) = match &m.scope {
                Some((p, suffix)) => (*p, suffix.clone()),
                None => match self.metrics.locations.get(&loc) {
                    Some((p, name, shared)) => (*p, shared.then(|| name.clone())),
                    None => (ProcessId(0), None),
                },
            };
            let series = m
                .members
                .iter()
                .map(|(name, scale)| match &suffix {
                    Some(s) => (b.counter_series(process, &format!("{name} ({s})")), *scale),
                    None => (b.counter_series(process, name), *scale),
                })
                .collect();
            self.metric_series.insert((metric, loc), series);
        }
        self.metric_series.get(&(metric, loc)).map(Vec::as_slice)
    }
}

/// A mark instants stand for: measurement switched on or off, a trace buffer flushed.
#[derive(Clone, Copy, Debug)]
pub(super) enum Mark {
    On,
    Off,
    Flush,
}

/// What reading a location's events does besides making its intervals. The whole read and a reader in
/// location order apply it to the builder at once ([`Direct`]); a decoder reading ahead on another thread
/// logs it ([`Ahead`]), and the reader applies the log when the location's turn comes
/// ([`Assembler::replay`]): both run the one `read_location`, and the builder sees the same calls in the
/// same order.
trait Effects {
    fn warn(&mut self, kind: WarningKind, message: impl FnOnce() -> String);
    /// `n` more warnings of `kind` without examples (counted, as the builder counts them past its examples).
    fn warn_more(&mut self, kind: WarningKind, n: u64);
    /// The name of OTF2 region `id`, for a warning.
    fn region_name(&self, id: u32) -> String;
    /// The model region of OTF2 region `id`; None when it is not defined and this reader cannot make it
    /// (a decoder reading ahead gives the location back, to be read in order).
    fn region(&mut self, id: u32, file: &str, offset: u64) -> Option<RegionId>;
    /// Rank `rank` of communicator `comm` (an unresolved one counted).
    fn rank(&mut self, comm: u32, rank: u32, me: LocationId) -> Option<LocationId>;
    /// A send; its number, for a cancellation to name.
    fn send(&mut self, s: Send) -> u64;
    fn recv(&mut self, r: Recv);
    fn cancel(&mut self, nth: u64);
    /// A collective part; `fallback`: no region was open, the part's region is named after operation `op`.
    fn part(&mut self, p: CollectivePart, fallback: Option<u8>);
    fn instant(&mut self, mark: Mark, loc: LocationId, t: i64);
    #[allow(clippy::too_many_arguments)]
    fn metric(
        &mut self,
        metric: u32,
        loc: LocationId,
        t: i64,
        count: u8,
        values: impl Iterator<Item = (u8, u64)>,
        file: &str,
        offset: u64,
    );
    fn thread(&mut self, loc: LocationId, t: i64, kind: ThreadEventKind);
    /// What the reader holds to the end (for a taker).
    fn held(&self) -> Held;
}

/// Effects applied to the builder and state at once.
struct Direct<'a> {
    b: &'a mut TraceBuilder,
    st: &'a mut State,
}

impl Effects for Direct<'_> {
    #[inline]
    fn warn(&mut self, kind: WarningKind, message: impl FnOnce() -> String) {
        self.b.warn(kind, message);
    }

    fn warn_more(&mut self, kind: WarningKind, n: u64) {
        self.b.warnings_mut().add_count(kind, n);
    }

    fn region_name(&self, id: u32) -> String {
        self.st.look.region_name(id)
    }

    #[inline]
    fn region(&mut self, id: u32, file: &str, offset: u64) -> Option<RegionId> {
        if let Some(r) = self.st.look.region(id) {
            return Some(r);
        }
        if let Some(&r) = self.st.undefined.get(&id) {
            return Some(r);
        }
        self.b.warn(WarningKind::DanglingReference, || {
            format!("{file}: byte {offset}: event names undefined region {id}")
        });
        let r = self.b.region_with(&format!("undefined region {id}"), "", Paradigm::Unknown, RegionRole::Unknown);
        self.st.undefined.insert(id, r);
        Some(r)
    }

    #[inline]
    fn rank(&mut self, comm: u32, rank: u32, me: LocationId) -> Option<LocationId> {
        let r = self.st.look.rank(comm, rank, me);
        self.st.unresolved_ranks += r.is_none() as u64;
        r
    }

    fn send(&mut self, s: Send) -> u64 {
        self.st.ends.send(s)
    }

    fn recv(&mut self, r: Recv) {
        self.st.ends.recv(r);
    }

    fn cancel(&mut self, nth: u64) {
        self.st.ends.cancel(nth);
    }

    fn part(&mut self, mut p: CollectivePart, fallback: Option<u8>) {
        if let Some(op) = fallback {
            let name = format!("MPI_{}", COLLECTIVE_NAMES.get(op as usize).copied().unwrap_or("collective"));
            p.region = self.b.region(&name, "");
        }
        self.st.ends.part(p);
    }

    fn instant(&mut self, mark: Mark, loc: LocationId, t: i64) {
        let name = match mark {
            Mark::On => "measurement on",
            Mark::Off => "measurement off",
            Mark::Flush => "trace buffer flush",
        };
        let r = self.b.region(name, "");
        self.b.instant(loc, r, t);
    }

    fn metric(
        &mut self,
        metric: u32,
        loc: LocationId,
        t: i64,
        count: u8,
        values: impl Iterator<Item = (u8, u64)>,
        file: &str,
        offset: u64,
    ) {
        let (b, st) = (&mut *self.b, &mut *self.st);
        let fits = match st.metric_series(b, metric, loc) {
            Some(series) => {
                let mut fits = count as usize == series.len();
                for ((type_id, bits), &(s, scale)) in values.zip(series) {
                    match metric_value(type_id, bits) {
                        Some(v) => b.counter_sample(s, t, v * scale),
                        None => fits = false,
                    }
                }
                fits
            }
            None => {
                if st.metric_notes.insert(metric) {
                    b.warn(WarningKind::DanglingReference, || {
                        format!(
                            "{file}: byte {offset}: METRIC names undefined metric {metric}; its values are left out"
                        )
                    });
                }
                true
            }
        };
        if !fits && st.metric_notes.insert(metric) {
            b.warn(WarningKind::MalformedRecord, || {
                format!(
                    "{file}: byte {offset}: METRIC of metric {metric} has {count} values that do not fit its members \
                     (count or value type); what does not fit is left out"
                )
            });
        }
    }

    fn thread(&mut self, loc: LocationId, t: i64, kind: ThreadEventKind) {
        self.st.thread_raw.push((loc, t, kind));
    }

    fn held(&self) -> Held {
        held(self.st, self.b)
    }
}

/// Apply one logged effect of location `loc` (its event file `file`); `sends` numbers its sends so far.
fn apply(fx: &mut Direct, item: Logged, sends: &mut Vec<u64>, loc: LocationId, file: &str) {
    match item {
        Logged::Warn(kind, message) => fx.warn(kind, || message.unwrap_or_default()),
        Logged::WarnMore(kind, n) => fx.warn_more(kind, n),
        Logged::Send(s) => sends.push(fx.send(s)),
        Logged::Recv(r) => fx.recv(r),
        Logged::Cancel(n) => {
            if let Some(&nth) = sends.get(n as usize) {
                fx.cancel(nth);
            }
        }
        Logged::Part(p, fallback) => fx.part(p, fallback),
        Logged::Instant(mark, t) => fx.instant(mark, loc, t),
        Logged::Metric { metric, t, offset, count, values } => {
            fx.metric(metric, loc, t, count, values.into_iter(), file, offset)
        }
        Logged::Thread(t, kind) => fx.thread(loc, t, kind),
    }
}

/// One effect a decoder reading ahead logged (`Ahead`).
#[derive(Debug)]
pub(super) enum Logged {
    /// A warning; its message when it is among the first of its kind in the location (only those can be
    /// among the first of their kind in the trace, the ones the builder keeps).
    Warn(WarningKind, Option<String>),
    /// More warnings of a kind, counted without examples.
    WarnMore(WarningKind, u64),
    Send(Send),
    Recv(Recv),
    /// The cancellation of the location's `n`-th send.
    Cancel(u32),
    Part(CollectivePart, Option<u8>),
    Instant(Mark, i64),
    Metric {
        metric: u32,
        t: i64,
        offset: u64,
        count: u8,
        values: Vec<(u8, u64)>,
    },
    Thread(i64, ThreadEventKind),
}

/// What a decoder reading ahead learnt of a location besides its intervals: the effects to apply in
/// location order ([`Assembler::replay`]).
#[derive(Debug, Default)]
pub struct LocationLog {
    items: Vec<Logged>,
    events: u64,
    unresolved: u64,
    in_order: bool,
}

impl LocationLog {
    /// Whether the location's times never went back.
    pub fn in_order(&self) -> bool {
        self.in_order
    }

    /// Bytes the log holds (about).
    pub fn bytes(&self) -> u64 {
        (self.items.capacity() * std::mem::size_of::<Logged>()) as u64
    }

    /// The log as bytes, handed to `out` a batch at a time, as [`Decoder::decode_bytes`] hands them (for
    /// [`Assembler::replay_bytes`]); what [`Assembler::replay_end`] then needs.
    pub fn into_bytes(self, out: &mut dyn FnMut(&[u8])) -> LoggedRead {
        let mut buf = Vec::new();
        for batch in self.items.chunks(LOG_BATCH) {
            buf.clear();
            let mut last = 0i64;
            for item in batch {
                super::logbytes::put(item, &mut buf, &mut last);
            }
            out(&buf);
        }
        LoggedRead { events: self.events, unresolved: self.unresolved, taken: 0, in_order: self.in_order }
    }
}

/// What [`Decoder::decode_bytes`] read of a location besides its log and intervals.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoggedRead {
    /// Its event records.
    pub events: u64,
    /// Message ends whose rank it could not resolve.
    pub unresolved: u64,
    /// Intervals the taker took (the first ones, by arrival).
    pub taken: usize,
    /// Whether its times never went back.
    pub in_order: bool,
}

/// Effects logged by a decoder reading a location ahead of its turn (another thread): it can resolve what
/// the definitions say, not make regions.
struct Ahead<'a> {
    look: &'a Lookups,
    log: LocationLog,
    sends: u32,
    /// Warnings logged per kind in this location.
    kinds: Vec<(WarningKind, u32)>,
    /// Where the log goes as bytes, a batch at a time ([`Decoder::decode_bytes`]); None: it is held whole.
    out: Option<LogOut<'a>>,
}

/// A log's bytes being made, and where they go.
type LogOut<'a> = (Vec<u8>, &'a mut dyn FnMut(&[u8]));

/// Effects a decoder writing its log as bytes holds before handing them on.
const LOG_BATCH: usize = 4096;

impl Ahead<'_> {
    #[inline]
    fn push(&mut self, item: Logged) {
        self.log.items.push(item);
        if self.log.items.len() >= LOG_BATCH && self.out.is_some() {
            self.flush();
        }
    }

    /// Hand the items logged so far on as bytes (when they go out in batches).
    fn flush(&mut self) {
        if let Some((buf, out)) = &mut self.out {
            buf.clear();
            let mut last = 0i64;
            for item in self.log.items.drain(..) {
                super::logbytes::put(&item, buf, &mut last);
            }
            if !buf.is_empty() {
                out(buf);
            }
        }
    }
}

impl Effects for Ahead<'_> {
    fn warn(&mut self, kind: WarningKind, message: impl FnOnce() -> String) {
        let n = match self.kinds.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, n)) => {
                *n += 1;
                *n
            }
            None => {
                self.kinds.push((kind, 1));
                1
            }
        };
        let kept = n as usize <= weft_model::Warnings::EXAMPLES_PER_KIND;
        self.push(Logged::Warn(kind, kept.then(message)));
    }

    fn warn_more(&mut self, kind: WarningKind, n: u64) {
        if n > 0 {
            self.push(Logged::WarnMore(kind, n));
        }
    }

    fn region_name(&self, id: u32) -> String {
        self.look.region_name(id)
    }

    #[inline]
    fn region(&mut self, id: u32, _file: &str, _offset: u64) -> Option<RegionId> {
        self.look.region(id)
    }

    #[inline]
    fn rank(&mut self, comm: u32, rank: u32, me: LocationId) -> Option<LocationId> {
        let r = self.look.rank(comm, rank, me);
        self.log.unresolved += r.is_none() as u64;
        r
    }

    fn send(&mut self, s: Send) -> u64 {
        self.push(Logged::Send(s));
        self.sends += 1;
        (self.sends - 1) as u64
    }

    fn recv(&mut self, r: Recv) {
        self.push(Logged::Recv(r));
    }

    fn cancel(&mut self, nth: u64) {
        self.push(Logged::Cancel(nth as u32));
    }

    fn part(&mut self, p: CollectivePart, fallback: Option<u8>) {
        self.push(Logged::Part(p, fallback));
    }

    fn instant(&mut self, mark: Mark, _loc: LocationId, t: i64) {
        self.push(Logged::Instant(mark, t));
    }

    fn metric(
        &mut self,
        metric: u32,
        _loc: LocationId,
        t: i64,
        count: u8,
        values: impl Iterator<Item = (u8, u64)>,
        _file: &str,
        offset: u64,
    ) {
        self.push(Logged::Metric { metric, t, offset, count, values: values.collect() });
    }

    fn thread(&mut self, _loc: LocationId, t: i64, kind: ThreadEventKind) {
        self.push(Logged::Thread(t, kind));
    }

    fn held(&self) -> Held {
        (0, [0; 3])
    }
}

/// Decodes an archive's locations ahead of their turn, on other threads (`weft index`): a location's
/// intervals, and a log of everything else that [`Assembler::replay`] applies in location order.
pub struct Decoder<'f> {
    look: std::sync::Arc<Lookups>,
    chunk_size_defs: u64,
    chunk_size_events: u64,
    stem: String,
    clock: Clock,
    files: &'f (dyn ArchiveFiles + Sync),
    window: usize,
    locations: Vec<(u64, LocationId)>,
}

impl Decoder<'_> {
    /// Decode the `k`-th location's events: its intervals appended to `intervals` (in ENTER order, as
    /// [`Assembler::location`] gives them), the log of the rest returned; None when it holds more than
    /// `cap` intervals or names a region the definitions do not (then it is to be read in its turn).
    pub fn decode(
        &self,
        k: usize,
        intervals: &mut Vec<(RegionId, i64, u64)>,
        cap: usize,
    ) -> Result<Option<LocationLog>, ReadError> {
        let (id, loc) = self.locations[k];
        let src = self.source();
        let mut fx = Ahead { look: &self.look, log: LocationLog::default(), sends: 0, kinds: Vec::new(), out: None };
        let r = read_location(&mut fx, &src, id, loc, intervals, None, cap)?;
        if r.stopped {
            return Ok(None);
        }
        let mut log = fx.log;
        (log.events, log.in_order) = (r.events, r.in_order);
        Ok(Some(log))
    }

    /// Decode the `k`-th location as [`decode`](Self::decode) does, without a cap, `taker` taking its
    /// intervals as they come (as [`Assembler::location`] with one), its log handed to `out` as bytes a batch
    /// at a time (for [`Assembler::replay_bytes`], in order, then [`Assembler::replay_end`] with what this
    /// returns). None when it names a region the definitions do not, or `taker` stopped it.
    pub fn decode_bytes(
        &self,
        k: usize,
        intervals: &mut Vec<(RegionId, i64, u64)>,
        taker: Option<(&mut dyn IntervalTaker, usize)>,
        out: &mut dyn FnMut(&[u8]),
    ) -> Result<Option<LoggedRead>, ReadError> {
        let (id, loc) = self.locations[k];
        let src = self.source();
        let mut fx = Ahead {
            look: &self.look,
            log: LocationLog::default(),
            sends: 0,
            kinds: Vec::new(),
            out: Some((Vec::new(), out)),
        };
        let r = read_location(&mut fx, &src, id, loc, intervals, taker, usize::MAX)?;
        if r.stopped {
            return Ok(None);
        }
        fx.flush();
        Ok(Some(LoggedRead { events: r.events, unresolved: fx.log.unresolved, taken: r.taken, in_order: r.in_order }))
    }

    /// What reading a location needs besides its effects.
    fn source(&self) -> Source<'_> {
        Source {
            chunk_size_defs: self.chunk_size_defs,
            chunk_size_events: self.chunk_size_events,
            stem: &self.stem,
            clock: self.clock,
            files: self.files,
            window: self.window,
        }
    }

    /// The bytes of the `k`-th location's event file (0 when it cannot be seen).
    pub fn event_bytes(&self, k: usize) -> u64 {
        let path = format!("{}/{}.evt", self.stem, self.locations[k].0);
        self.files.open_read(&path).ok().flatten().map_or(0, |(len, _)| len)
    }
}

/// What reading a location needs besides its effects: the archive and its clock.
struct Source<'a> {
    chunk_size_defs: u64,
    chunk_size_events: u64,
    stem: &'a str,
    clock: Clock,
    files: &'a dyn ArchiveFiles,
    window: usize,
}

#[allow(clippy::too_many_arguments)]
fn read_location<E: Effects>(
    fx: &mut E,
    src: &Source,
    id: u64,
    loc: LocationId,
    intervals: &mut Vec<(RegionId, i64, u64)>,
    mut taker: Option<(&mut dyn IntervalTaker, usize)>,
    cap: usize,
) -> Result<LocationRead, ReadError> {
    let (stem, clock, files, window, chunk_events) =
        (src.stem, src.clock, src.files, src.window, src.chunk_size_events);
    let local_path = format!("{stem}/{id}.def");
    let local = match files.read(&local_path).map_err(|e| ReadError::Io { file: local_path.clone(), detail: e })? {
        Some(bytes) => {
            let (l, err) = definitions::parse_local(&bytes, src.chunk_size_defs);
            if let Some(e) = err {
                fx.warn(WarningKind::MalformedRecord, || format!("{local_path}: byte {}: {}", e.offset, e.what));
            }
            l
        }
        None => LocalDefs::default(),
    };
    let evt_path = format!("{stem}/{id}.evt");
    let io = |e: String| ReadError::Io { file: evt_path.clone(), detail: e };
    let Some((len, mut src)) = files.open_read(&evt_path).map_err(io)? else {
        fx.warn(WarningKind::Truncated, || format!("{evt_path}: event file missing; location {id} has no events"));
        return Ok(LocationRead { events: 0, taken: 0, in_order: true, stopped: false });
    };
    let mut offsets = ClockCorrection::new(&local.clock_offsets);
    // Open regions: (OTF2 region, model region, start, arrival number). Intervals are kept in ENTER order
    // (parents before children, by start), so the builder's sort finds them already in order; `intervals`
    // holds them from arrival number `first` on (a taker took those before).
    let mut stack: Vec<(u32, RegionId, i64, usize)> = Vec::new();
    let mut first = 0usize;
    let mut in_order = true;
    let mut take_at = taker.as_ref().map_or(usize::MAX, |t| t.1.max(1));
    let mut stopped = false;
    let mut coll_begin: Vec<i64> = Vec::new();
    let mut isends: rustc_hash::FxHashMap<u64, u64> = Default::default();
    // Requests of receives posted (MPI_Irecv) and not yet completed: request id -> the posting's time and
    // its place in the location's posting order (`posting`: receives posted so far, blocking ones included).
    let mut irecvs: rustc_hash::FxHashMap<u64, (i64, u64)> = Default::default();
    let mut posting = 0u64;
    let mut last_ns = i64::MIN;
    let mut misnamed = 0u64;
    let mut overflowed: Option<(u64, u64)> = None;
    let decoded = events::decode_read(&mut *src, len, window, chunk_events, &local, |ticks, offset, ev| {
        let Some(t) = clock.ns(offsets.corrected(ticks)) else {
            let first = overflowed.map_or(offset, |o| o.0);
            overflowed = Some((first, overflowed.map_or(1, |o| o.1 + 1)));
            return true;
        };
        in_order &= t >= last_ns;
        last_ns = last_ns.max(t);
        match ev {
            Event::Enter { region } => {
                let Some(r) = fx.region(region, &evt_path, offset) else {
                    stopped = true;
                    return false;
                };
                if intervals.len() >= cap {
                    stopped = true;
                    return false;
                }
                stack.push((region, r, t, first + intervals.len()));
                intervals.push((r, t, 0));
                if intervals.len() >= take_at && in_order {
                    if let Some((taker, limit)) = &mut taker {
                        let open: Vec<usize> = stack.iter().map(|e| e.3).collect();
                        let Some(n) = taker.take(intervals, first, &open, t, fx.held()) else {
                            stopped = true;
                            return false;
                        };
                        let n = n.min(intervals.len());
                        intervals.drain(..n);
                        first += n;
                        // Little taken (many intervals open or at this time): wait for twice as many.
                        take_at = (*limit).max(1).max(intervals.len() * 2);
                    }
                }
            }
            // A LEAVE closes the innermost open region, whatever region it names (APEX names another):
            // the pairing the official tools make. Only a LEAVE with nothing open is left out.
            Event::Leave { region } => match stack.pop() {
                Some((entered, _, start, slot)) => {
                    if entered != region {
                        misnamed += 1;
                        if misnamed <= Warnings::EXAMPLES_PER_KIND as u64 {
                            let (left, open) = (fx.region_name(region), fx.region_name(entered));
                            fx.warn(WarningKind::MisnamedEnd, || {
                                format!(
                                    "{evt_path}: byte {offset}: LEAVE of '{left}' closed '{open}', the innermost \
                                     open region"
                                )
                            });
                        }
                    }
                    let dur = t.saturating_sub(start).max(0) as u64;
                    match slot.checked_sub(first) {
                        Some(k) => intervals[k].2 = dur,
                        None => taker.as_mut().expect("taken by a taker").0.closed(slot, dur),
                    }
                }
                None => fx.warn(WarningKind::UnmatchedEnd, || {
                    format!("{evt_path}: byte {offset}: LEAVE of region {region} with no region open")
                }),
            },
            Event::MpiSend { receiver, comm, tag, length } | Event::MpiIsend { receiver, comm, tag, length, .. } => {
                if let Some(to) = fx.rank(comm, receiver, loc) {
                    let nth =
                        fx.send(Send { sender: loc, receiver: to, comm, tag, length, time_ns: t, cancelled: false });
                    if let Event::MpiIsend { request, .. } = ev {
                        isends.insert(request, nth);
                    }
                }
            }
            Event::MpiRecv { sender, comm, tag, length } | Event::MpiIrecv { sender, comm, tag, length, .. } => {
                // A blocking receive is posted by the call that completes it; a non-blocking one by the
                // MPI_Irecv whose request it completes.
                let request = match ev {
                    Event::MpiIrecv { request, .. } => irecvs.remove(&request),
                    _ => None,
                };
                let (posted_ns, posted) = request.unwrap_or_else(|| {
                    posting += 1;
                    (t, posting - 1)
                });
                if let Some(from) = fx.rank(comm, sender, loc) {
                    fx.recv(Recv { sender: from, receiver: loc, comm, tag, length, time_ns: t, posted_ns, posted });
                }
            }
            Event::MpiIrecvRequest { request } => {
                irecvs.insert(request, (t, posting));
                posting += 1;
            }
            Event::MpiIsendComplete { request } => {
                isends.remove(&request);
            }
            Event::MpiRequestCancelled { request } => {
                irecvs.remove(&request);
                if let Some(i) = isends.remove(&request) {
                    fx.cancel(i);
                }
            }
            Event::MpiCollectiveBegin => coll_begin.push(t),
            Event::MpiCollectiveEnd { op, comm, root, sent, received } => {
                let begin_ns = coll_begin.pop().unwrap_or(t);
                let open = stack.last().map(|&(_, r, _, _)| r);
                let root = if root == UNDEFINED { None } else { fx.rank(comm, root, loc) };
                let part = CollectivePart {
                    location: loc,
                    region: open.unwrap_or(RegionId(u32::MAX)),
                    comm,
                    op,
                    root,
                    begin_ns,
                    end_ns: t,
                    sent,
                    received,
                };
                fx.part(part, if open.is_none() { Some(op) } else { None });
            }
            Event::MeasurementOnOff { on } => fx.instant(if on { Mark::On } else { Mark::Off }, loc, t),
            Event::BufferFlush { .. } => fx.instant(Mark::Flush, loc, t),
            Event::Metric { metric, values } => {
                fx.metric(metric, loc, t, values.count, values.iter(), &evt_path, offset);
            }
            _ => {
                if let Some(kind) = thread_kind(ev) {
                    fx.thread(loc, t, kind);
                }
            }
        }
        true
    });
    let (stats, err) = decoded.map_err(|e| io(e.to_string()))?;
    if stopped {
        // The taker refused to go on (and says why), or a decoder reading ahead gave the location back:
        // nothing more of this location is needed here.
        return Ok(LocationRead { events: stats.events, taken: first, in_order, stopped: true });
    }
    for (_, _, start, slot) in stack.drain(..).rev() {
        fx.warn(WarningKind::UnclosedBegin, || format!("{evt_path}: a region entered at {start} ns never left"));
        let dur = last_ns.saturating_sub(start).max(0) as u64;
        match slot.checked_sub(first) {
            Some(k) => intervals[k].2 = dur,
            None => taker.as_mut().expect("taken by a taker").0.closed(slot, dur),
        }
    }
    if let Some((off, n)) = overflowed {
        let res = clock.resolution;
        fx.warn(WarningKind::MalformedRecord, || {
            format!(
                "{evt_path}: byte {off}: {n} events whose time, at {res} ticks per second, is past what \
                 nanoseconds can hold (about 292 years); skipped"
            )
        });
    }
    // Past the first few (warned one by one, each naming its regions), misnamed LEAVEs are counted at once.
    fx.warn_more(WarningKind::MisnamedEnd, misnamed.saturating_sub(Warnings::EXAMPLES_PER_KIND as u64));
    if let Some((off, before, after)) = stats.out_of_order {
        let n = stats.out_of_order_count;
        fx.warn(WarningKind::OutOfOrder, || {
            format!("{evt_path}: byte {off}: time goes back from {before} to {after} ticks ({n} times in this file)")
        });
    }
    for (kind, n) in &stats.unknown_kinds {
        fx.warn(WarningKind::UnknownRecord, || format!("{evt_path}: {n} records of unknown event type {kind} skipped"));
    }
    if let Some(e) = err {
        fx.warn(WarningKind::Truncated, || format!("{evt_path}: reading stopped at byte {}: {}", e.offset, e.what));
    } else if stats.truncated {
        fx.warn(WarningKind::Truncated, || format!("{evt_path}: no end-of-file marker; the file may be cut short"));
    }
    Ok(LocationRead { events: stats.events, taken: first, in_order, stopped: false })
}

/// What the reader holds until the end: bytes, and the counts of sends, receives and collective parts.
pub type Held = (u64, [usize; 3]);

fn held(st: &State, b: &TraceBuilder) -> Held {
    use std::mem::size_of;
    let threads = st.thread_raw.capacity() * size_of::<(LocationId, i64, ThreadEventKind)>();
    (st.ends.held_bytes() + threads as u64 + b.held_bytes(), st.ends.counts())
}

/// What reading one location's events gave besides its intervals.
pub(super) struct LocationRead {
    pub(super) events: u64,
    /// Intervals a taker took (the first ones, by arrival).
    pub(super) taken: usize,
    /// Whether the location's times never went back (decoded times, after clock corrections).
    pub(super) in_order: bool,
    /// Whether the read stopped before the location's end (a taker refused to go on; a decoder reading
    /// ahead met more intervals than it may hold, or a region only the read in order can make).
    pub(super) stopped: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft_samples::otf2_gen::GenConfig;

    /// The generator's archive as this test build's `MemoryFiles` (weft-samples links the readers' library build).
    fn archive(cfg: &GenConfig) -> (crate::otf2::MemoryFiles, weft_samples::otf2_gen::GenCounts) {
        let (files, counts) = weft_samples::otf2_gen::archive(cfg);
        (crate::otf2::MemoryFiles { files: files.files }, counts)
    }

    fn opened(files: &crate::otf2::MemoryFiles) -> Assembler<'_> {
        let (path, anchor) = super::super::open_anchor("traces.otf2", files).unwrap();
        Assembler::open(&path, anchor, files).unwrap()
    }

    /// A cancellation logged ahead names the location's n-th send: replayed after other locations' sends
    /// (numbered first), it cancels the send that reading in order cancels.
    #[test]
    fn a_cancellation_logged_ahead_cancels_the_send_it_names() {
        let (files, _) = archive(&GenConfig::new(2, 4_000));
        let mut read = [opened(&files), opened(&files), opened(&files)];
        let mut v = Vec::new();
        for a in read.iter_mut() {
            v.clear();
            a.location(0, &mut v, None).unwrap();
            assert!(a.st.ends.counts()[0] > 0, "location 0 sends");
        }
        let (l0, l1) = (read[0].locations[0].1, read[0].locations[1].1);
        let send = |time_ns| Send { sender: l1, receiver: l0, comm: 0, tag: 7, length: 8, time_ns, cancelled: false };
        let recv = |time_ns| Recv {
            sender: l1,
            receiver: l0,
            comm: 0,
            tag: 7,
            length: 8,
            time_ns,
            posted_ns: time_ns,
            posted: time_ns as u64,
        };
        let [mut in_order, mut replayed, mut uncancelled] = read;
        // In order: two sends, the second cancelled, two receives.
        let mut fx = Direct { b: &mut in_order.b, st: &mut in_order.st };
        fx.send(send(100));
        let nth = fx.send(send(200));
        fx.cancel(nth);
        fx.recv(recv(300));
        fx.recv(recv(400));
        // The same logged ahead, the cancellation naming the location's send 1.
        let items = |cancel: bool| {
            let mut v = vec![Logged::Send(send(100)), Logged::Send(send(200))];
            v.extend(cancel.then_some(Logged::Cancel(1)));
            v.extend([Logged::Recv(recv(300)), Logged::Recv(recv(400))]);
            LocationLog { items: v, events: 0, unresolved: 0, in_order: true }
        };
        replayed.replay(1, items(true)).unwrap();
        uncancelled.replay(1, items(false)).unwrap();
        let messages = |a: Assembler| format!("{:?}", a.finish().unwrap().trace.messages);
        let (a, b, c) = (messages(in_order), messages(replayed), messages(uncancelled));
        assert_eq!(a, b, "the replayed cancellation cancels another send");
        assert_ne!(a, c, "the cancellation changes the messages");
    }
}
