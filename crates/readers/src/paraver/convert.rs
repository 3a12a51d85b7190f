//! Paraver records to the model: resolves `appl:task:thread` to locations, turns state records into
//! intervals on each thread's state track, event records of call types into nested intervals on the thread's
//! own location, other events into counter samples, and communication records into point-to-point messages.
//! It must not parse text (prv.rs, pcf.rs and row.rs do) and must not repair nesting (the builder does).

use super::classify::{classify_state, classify_type, default_state_name, default_type_label, TypeKind};
use super::collective::{Collectives, Participation};
use super::pcf::{EventType, Pcf};
use super::prv::{Comm, GlobalComm, Header, RecordSink, Who};
use super::row::Row;
use super::{Options, Stats};
use crate::ReadError;
use weft_model::{
    classify_region, LocationId, LocationKind, MessageKind, MessageRecord, Paradigm, ProcessId, RegionId, RegionRole,
    StringId, Trace, TraceBuilder, WarningKind,
};

/// The converter's integer-keyed caches: Fx (rustc-hash), speed over DoS resistance (keys come from one file).
type IntMap<K, V> = rustc_hash::FxHashMap<K, V>;

/// One thread of the trace and what is open on it.
struct Thread {
    process: ProcessId,
    /// The thread's own location (event-derived call regions, messages); created on first use.
    location: Option<LocationId>,
    /// Its state track; created on the first state record.
    states: Option<LocationId>,
    /// (appl, task, thread), 1-based, for names.
    id: (u32, u32, u32),
    /// Threads in its task (counter series are named per thread only when there are several).
    siblings: u32,
    /// Global order (the .row's thread order).
    order: u32,
    last_time: u64,
    /// Open call regions, innermost last.
    open: OpenCalls,
}

/// A thread's open call regions: (event type, region, start in ticks), innermost last, indexed by type and
/// by paradigm MPI, so that an end (value 0) or a global communication finds its entry without scanning a
/// deep stack. A region closed from the middle leaves a hole (None) until the entries above it close.
#[derive(Default)]
struct OpenCalls {
    entries: Vec<Option<(u64, RegionId, u64)>>,
    /// Per event type, the positions of its open entries, innermost last (exact).
    by_type: IntMap<u64, Vec<u32>>,
    /// Positions of open MPI calls, innermost last; may hold positions closed since (skipped when met).
    mpi: Vec<u32>,
}

impl OpenCalls {
    fn push(&mut self, e: (u64, RegionId, u64), mpi: bool) {
        let pos = self.entries.len() as u32;
        self.entries.push(Some(e));
        self.by_type.entry(e.0).or_default().push(pos);
        if mpi {
            self.mpi.push(pos);
        }
    }

    /// Close the innermost open entry of type `ty`.
    fn take(&mut self, ty: u64) -> Option<(u64, RegionId, u64)> {
        let pos = self.by_type.get_mut(&ty)?.pop()? as usize;
        let e = self.entries[pos].take();
        while self.entries.last().is_some_and(Option::is_none) {
            self.entries.pop();
        }
        let len = self.entries.len() as u32;
        while self.mpi.last().is_some_and(|&p| p >= len) {
            self.mpi.pop();
        }
        e
    }

    /// The innermost open MPI call.
    fn innermost_mpi(&mut self) -> Option<(u64, RegionId, u64)> {
        while let Some(&p) = self.mpi.last() {
            if let Some(e) = self.entries[p as usize] {
                return Some(e);
            }
            self.mpi.pop();
        }
        None
    }

    /// Close the innermost entry, whatever its type.
    fn pop(&mut self) -> Option<(u64, RegionId, u64)> {
        loop {
            let e = self.entries.pop()?;
            if let Some(e) = e {
                if let Some(v) = self.by_type.get_mut(&e.0) {
                    v.pop();
                }
                return Some(e);
            }
        }
    }
}

pub(super) struct Converter<'a> {
    pub b: TraceBuilder,
    file: &'a str,
    pcf: Option<&'a Pcf>,
    row: Option<&'a Row>,
    options: &'a Options,
    tick_ns: u64,
    end_time: u64,
    /// First thread index of each (appl, task), and its thread count: `tasks[appl-1][task-1]`.
    tasks: Vec<Vec<(u32, u32)>>,
    /// Per (appl, communicator id): its member tasks in rank order (1-based; -1 for no known task), from the
    /// header's communicator lines.
    comm_tasks: IntMap<(u32, u64), Vec<i64>>,
    threads: Vec<Thread>,
    undefined: IntMap<(u32, u32, u32), u32>,
    type_kinds: IntMap<u64, TypeKind>,
    call_regions: IntMap<(u64, i64), RegionId>,
    state_regions: IntMap<u64, Option<RegionId>>,
    series: IntMap<(u32, u64), u32>,
    /// Intervals per location (start ns, duration ns, region), handed to the builder in start order at the
    /// end: the builder's sort then finds one presorted run, which is most of a large trace's build time.
    intervals: Vec<Vec<(i64, u64, RegionId)>>,
    /// Bytes of interval lists that could not be had (the memory ran out): the scan stops, and `finish`
    /// refuses the trace as too large instead of aborting.
    out_of_memory: Option<u64>,
    collectives: Collectives,
    pub stats: Stats,
    /// For `weft index`: where interval lists go once too many are buffered (`streamed.rs`).
    pub spill: Option<super::streamed::Spilling>,
}

impl<'a> Converter<'a> {
    pub fn new(
        file: &'a str,
        header: &Header,
        pcf: Option<&'a Pcf>,
        row: Option<&'a Row>,
        options: &'a Options,
    ) -> Self {
        let mut b = TraceBuilder::new(weft_model::Format::Paraver);
        let mut tasks = Vec::new();
        let mut threads = Vec::new();
        let single_appl = header.applications.len() == 1;
        let mut global_task = 0usize;
        for (a, appl) in header.applications.iter().enumerate() {
            let mut row_tasks = Vec::new();
            for (t, task) in appl.iter().enumerate() {
                let (a1, t1) = (a as u32 + 1, t as u32 + 1);
                let process = b.process(task_native_id(a1, t1));
                let name = match row.and_then(|r| r.tasks.get(global_task)) {
                    Some(n) => n.clone(),
                    None if single_appl => format!("Task {t1}"),
                    None => format!("Task {a1}.{t1}"),
                };
                b.set_process_name(process, &name);
                b.set_process_sort_key(process, global_task as i64);
                global_task += 1;
                row_tasks.push((threads.len() as u32, task.threads));
                for h in 0..task.threads {
                    let order = threads.len() as u32;
                    threads.push(Thread {
                        process,
                        location: None,
                        states: None,
                        id: (a1, t1, h + 1),
                        siblings: task.threads,
                        order,
                        last_time: 0,
                        open: OpenCalls::default(),
                    });
                }
            }
            tasks.push(row_tasks);
        }
        Converter {
            b,
            file,
            pcf,
            row,
            options,
            tick_ns: header.unit.ns_per_tick(),
            end_time: header.end_time,
            tasks,
            comm_tasks: header.communicators.iter().map(|c| ((c.appl, c.id), c.tasks.clone())).collect(),
            threads,
            undefined: IntMap::default(),
            type_kinds: IntMap::default(),
            call_regions: IntMap::default(),
            state_regions: IntMap::default(),
            series: IntMap::default(),
            intervals: Vec::new(),
            out_of_memory: None,
            collectives: Collectives::default(),
            stats: Stats::default(),
            spill: None,
        }
    }

    /// The thread of rank `rank` of communicator `comm` of application `appl` (the root field of a global
    /// communication record is a rank, from 0, as Extrae's `paraver_global_op` names it: `root_rank`): the
    /// first thread of the task the communicator's line puts at that rank, or of task `rank + 1` where no
    /// line defines the communicator (MPI_COMM_WORLD). None where that is no declared task.
    fn root_thread(&self, appl: u32, comm: u64, rank: i64) -> Option<u32> {
        let rank = usize::try_from(rank).ok()?;
        let task = match self.comm_tasks.get(&(appl, comm)) {
            Some(tasks) => usize::try_from(*tasks.get(rank)?).ok()?,
            None => rank + 1,
        };
        let tasks = self.tasks.get((appl as usize).checked_sub(1)?)?;
        tasks.get(task.checked_sub(1)?).filter(|&&(_, n)| n >= 1).map(|&(first, _)| first)
    }

    /// Whether `ticks` is a time in nanoseconds below i64::MAX (else [`Self::ns`] saturates).
    fn fits(&self, ticks: u64) -> bool {
        ticks.checked_mul(self.tick_ns).is_some_and(|v| v <= i64::MAX as u64)
    }

    #[inline]
    fn ns(&self, ticks: u64) -> i64 {
        ticks.saturating_mul(self.tick_ns).min(i64::MAX as u64) as i64
    }

    /// The thread a record names; a thread the header does not declare is added, with a warning.
    #[inline]
    fn thread(&mut self, line: u64, who: Who) -> usize {
        if let Some(&(first, n)) =
            self.tasks.get((who.appl as usize).wrapping_sub(1)).and_then(|a| a.get((who.task as usize).wrapping_sub(1)))
        {
            if who.thread >= 1 && who.thread <= n {
                return (first + who.thread - 1) as usize;
            }
        }
        self.undefined_thread(line, who)
    }

    #[cold]
    fn undefined_thread(&mut self, line: u64, who: Who) -> usize {
        let key = (who.appl, who.task, who.thread);
        if let Some(&t) = self.undefined.get(&key) {
            return t as usize;
        }
        let file = self.file;
        self.b.warn(WarningKind::DanglingReference, || {
            format!(
                "{file}:{line}: thread {}.{}.{} is not declared in the header; its records are kept",
                who.appl, who.task, who.thread
            )
        });
        let process = self.b.process(task_native_id(who.appl, who.task));
        let declared = self
            .tasks
            .get((who.appl as usize).wrapping_sub(1))
            .and_then(|a| a.get((who.task as usize).wrapping_sub(1)))
            .is_some();
        if !declared {
            self.b.set_process_name(process, &format!("Task {}.{} (undeclared)", who.appl, who.task));
            self.b.set_process_sort_key(process, i64::MAX / 2 + task_native_id(who.appl, who.task));
        }
        let order = self.threads.len() as u32;
        self.threads.push(Thread {
            process,
            location: None,
            states: None,
            id: key,
            siblings: 2,
            order,
            last_time: 0,
            open: OpenCalls::default(),
        });
        self.undefined.insert(key, order);
        order as usize
    }

    fn thread_name(&self, t: usize) -> String {
        let th = &self.threads[t];
        match self.row.and_then(|r| r.threads.get(th.order as usize)) {
            Some(n) if !self.undefined.contains_key(&th.id) => n.clone(),
            _ => format!("THREAD {}.{}.{}", th.id.0, th.id.1, th.id.2),
        }
    }

    fn location(&mut self, t: usize) -> LocationId {
        if let Some(l) = self.threads[t].location {
            return l;
        }
        let name = self.thread_name(t);
        let th = &self.threads[t];
        let (process, h) = (th.process, th.id.2 as i64);
        let l = self.b.location(process, h, LocationKind::CpuThread);
        self.b.set_location_name(l, &name);
        self.b.set_location_sort_key(l, 2 * h);
        self.threads[t].location = Some(l);
        l
    }

    fn state_location(&mut self, t: usize) -> LocationId {
        if let Some(l) = self.threads[t].states {
            return l;
        }
        let name = format!("{} (states)", self.thread_name(t));
        let th = &self.threads[t];
        let (process, h) = (th.process, th.id.2 as i64);
        // Negative native ids mark state tracks; the sort key puts each right after its thread.
        let l = self.b.location(process, -h, LocationKind::CpuThread);
        self.b.set_location_name(l, &name);
        self.b.set_location_sort_key(l, 2 * h + 1);
        self.threads[t].states = Some(l);
        l
    }

    #[inline]
    fn check_order(&mut self, line: u64, t: usize, time: u64) {
        let th = &mut self.threads[t];
        if time < th.last_time {
            let (last, file) = (th.last_time, self.file);
            self.b.warn(WarningKind::OutOfOrder, || {
                format!("{file}:{line}: record at time {time} comes after one at {last} on the same thread")
            });
        } else {
            th.last_time = time;
        }
    }

    fn state_region(&mut self, state: u64) -> Option<RegionId> {
        if let Some(&r) = self.state_regions.get(&state) {
            return r;
        }
        let name = match self.pcf.and_then(|p| p.states.get(&state)) {
            Some(n) if !n.is_empty() => n.clone(),
            _ => default_state_name(state),
        };
        let r = if state == 0 && !self.options.keep_idle {
            None
        } else {
            let (paradigm, role) = classify_state(&name);
            Some(self.b.region_with(&name, "Paraver state", paradigm, role))
        };
        self.state_regions.insert(state, r);
        r
    }

    fn type_info(&self, ty: u64) -> Option<&'a EventType> {
        self.pcf.and_then(|p| p.event_types.get(&ty))
    }

    fn type_label(&self, ty: u64) -> String {
        match self.type_info(ty) {
            Some(e) if !e.label.is_empty() => e.label.clone(),
            _ => default_type_label(ty),
        }
    }

    #[inline]
    fn type_kind(&mut self, ty: u64) -> TypeKind {
        if let Some(&k) = self.type_kinds.get(&ty) {
            return k;
        }
        let k = classify_type(ty, self.type_info(ty));
        self.type_kinds.insert(ty, k);
        k
    }

    fn call_region(&mut self, ty: u64, value: i64, paradigm: Paradigm) -> RegionId {
        if let Some(&r) = self.call_regions.get(&(ty, value)) {
            return r;
        }
        let category = self.type_label(ty);
        let name = match self.type_info(ty).and_then(|e| e.values.get(&value)) {
            // "1 Begin / 0 End" types (Application, Flushing Traces) are named by the type.
            Some(l) if l.eq_ignore_ascii_case("begin") => category.clone(),
            Some(l) if !l.is_empty() => l.clone(),
            _ => format!("{category} {value}"),
        };
        let (guess_paradigm, guess_role) = classify_region(&name, "");
        let role = match paradigm {
            Paradigm::Mpi if guess_paradigm == Paradigm::Mpi => guess_role,
            Paradigm::OpenMp if guess_paradigm == Paradigm::OpenMp => guess_role,
            Paradigm::Io => RegionRole::FileIo,
            Paradigm::Measurement => RegionRole::Artificial,
            _ => RegionRole::Function,
        };
        let r = self.b.region_with(&name, &category, paradigm, role);
        self.call_regions.insert((ty, value), r);
        r
    }

    fn counter(&mut self, t: usize, ty: u64) -> u32 {
        if let Some(&s) = self.series.get(&(t as u32, ty)) {
            return s;
        }
        let label = self.type_label(ty);
        let th = &self.threads[t];
        let name = if th.siblings > 1 { format!("{label} (thread {})", th.id.2) } else { label };
        let s = self.b.counter_series(th.process, &name);
        self.series.insert((t as u32, ty), s);
        s
    }

    #[inline]
    fn interval(&mut self, l: LocationId, region: RegionId, start_ns: i64, dur_ns: u64) {
        let i = l.index();
        if i >= self.intervals.len() {
            self.intervals.resize_with(i + 1, Vec::new);
        }
        let list = &mut self.intervals[i];
        if list.len() == list.capacity() {
            // Grown fallibly (doubling, as push would): a trace past the memory left is refused, not an abort.
            let more = list.len().max(64);
            if list.try_reserve(more).is_err() {
                self.out_of_memory.get_or_insert((more * std::mem::size_of::<(i64, u64, RegionId)>()) as u64);
                return;
            }
        }
        list.push((start_ns, dur_ns, region));
        if let Some(sp) = &mut self.spill {
            sp.buffered += 1;
            if sp.buffered >= sp.limit {
                sp.spill_all(&mut self.intervals);
            }
        }
    }

    fn close(&mut self, t: usize, ty: u64, region: RegionId, start: u64, end: u64) {
        if matches!(self.type_kinds.get(&ty), Some(TypeKind::Call { paradigm: Paradigm::Mpi, .. })) {
            self.collectives.call_ended(t as u32, end);
        }
        let l = self.location(t);
        let s = self.ns(start);
        let dur = (self.ns(end) - s).max(0) as u64;
        self.interval(l, region, s, dur);
        self.stats.call_intervals += 1;
    }

    /// Close what is still open at the trace's end, with a warning each. Refused with the bytes that could not
    /// be had when the memory ran out.
    pub fn finish(mut self) -> Result<(Trace, Stats), u64> {
        self.close_all()?;
        let total: usize = self.intervals.iter().map(Vec::len).sum();
        if self.b.reserve_intervals(total).is_err() {
            return Err((total as u64).saturating_mul(weft_model::TraceBuilder::INTERVAL_BYTES));
        }
        for (l, mut list) in std::mem::take(&mut self.intervals).into_iter().enumerate() {
            // Stable: equal extents keep their arrival order, as the builder would.
            list.sort_by_key(|&(s, d, _)| (s, std::cmp::Reverse(d)));
            for (s, d, r) in list {
                self.b.interval(LocationId(l as u32), r, s, d);
            }
        }
        self.add_collectives();
        self.b.add_event_records(self.stats.event_records);
        Ok((self.b.finish(), self.stats))
    }

    /// [`finish`](Self::finish) for a converter whose intervals were spilled (`streamed.rs`): each location's
    /// intervals, read back, go to `each` in the order `finish` gives the builder, location by location;
    /// returns the builder without intervals.
    pub fn finish_streamed(
        mut self,
        file: &str,
        each: &mut crate::chrome::EachLocation<'_, String>,
    ) -> Result<TraceBuilder, ReadError> {
        let io = |detail: String| ReadError::Io { file: file.to_string(), detail };
        self.close_all().map_err(|bytes| io(format!("ran out of memory ({bytes} bytes more could not be had)")))?;
        self.add_collectives();
        if let Some(sp) = &mut self.spill {
            sp.spill_all(&mut self.intervals);
        }
        self.over_cap(file)?;
        let mut sp = self.spill.take().expect("finish_streamed only while spilling");
        if let Some(e) = sp.error.take() {
            return Err(io(e));
        }
        let mut raw = Vec::new();
        for l in 0..self.b.location_count() {
            let mut list = sp.read(l).map_err(io)?;
            list.sort_by_key(|&(s, d, _)| (s, std::cmp::Reverse(d)));
            raw.clear();
            raw.extend(list.iter().map(|&(s, d, r)| (r, s, d)));
            drop(list);
            each(l, &raw).map_err(io)?;
        }
        self.b.add_event_records(self.stats.event_records);
        Ok(self.b)
    }

    /// The refusal of the longest location when one passed the spill's cap (`streamed.rs`).
    pub fn over_cap(&self, file: &str) -> Result<(), ReadError> {
        match self.spill.as_ref().and_then(|s| Some((s.longest_over()?, s.cap.as_ref()?))) {
            Some(((l, n), cap)) => cap.check(file, || self.b.location_label(LocationId(l as u32)), n),
            None => Ok(()),
        }
    }

    fn add_collectives(&mut self) {
        if !self.collectives.is_empty() {
            let collectives = std::mem::take(&mut self.collectives);
            let tick_ns = self.tick_ns;
            let ns = |t: u64| t.saturating_mul(tick_ns).min(i64::MAX as u64) as i64;
            for c in collectives.finish(|t| self.location(t as usize), ns) {
                self.b.collective(c);
            }
        }
    }

    /// Close the calls still open at the trace's end, and give declared threads without records a location.
    fn close_all(&mut self) -> Result<(), u64> {
        if let Some(bytes) = self.out_of_memory {
            return Err(bytes);
        }
        if !self.fits(self.end_time) {
            let (file, end) = (self.file, self.end_time);
            self.b.warn(WarningKind::MalformedRecord, || {
                format!("{file}:1: the header's end time ({end}) is past what nanoseconds can hold; ignored")
            });
            self.end_time = 0;
        }
        let end_of_trace = self.threads.iter().map(|t| t.last_time).max().unwrap_or(0).max(self.end_time);
        for t in 0..self.threads.len() {
            while let Some((ty, region, start)) = self.threads[t].open.pop() {
                let (file, name) = (self.file, self.thread_name(t));
                self.b.warn(WarningKind::UnclosedBegin, || {
                    format!("{file}: event type {ty} on {name} is never ended (value 0); closed at the trace's end")
                });
                self.close(t, ty, region, start, end_of_trace.max(start));
            }
        }
        // Threads the header declares but no record names still appear, once each.
        for t in 0..self.threads.len() {
            if self.threads[t].location.is_none() && self.threads[t].states.is_none() {
                self.location(t);
            }
        }
        match self.out_of_memory {
            Some(bytes) => Err(bytes),
            None => Ok(()),
        }
    }
}

impl RecordSink for Converter<'_> {
    fn stopped(&self) -> bool {
        self.out_of_memory.is_some()
    }

    #[inline]
    fn state(&mut self, line: u64, who: Who, begin: u64, end: u64, state: u64) {
        self.stats.state_records += 1;
        let t = self.thread(line, who);
        self.check_order(line, t, begin);
        if end < begin {
            let file = self.file;
            self.b.warn(WarningKind::MalformedRecord, || {
                format!("{file}:{line}: state record ends ({end}) before it begins ({begin}); skipped")
            });
            return;
        }
        // A state past the header's end time (u64::MAX in a damaged file) would stretch the trace to ~292
        // years: it is cut at the end time; one whose times nanoseconds cannot hold is skipped.
        let mut end = end;
        if end > self.end_time && begin <= self.end_time {
            let (file, to) = (self.file, self.end_time);
            self.b.warn(WarningKind::MalformedRecord, || {
                format!("{file}:{line}: state record ends ({end}) after the trace's end time ({to}); cut there")
            });
            end = to;
        }
        if !self.fits(end) {
            let file = self.file;
            self.b.warn(WarningKind::MalformedRecord, || {
                format!("{file}:{line}: state record ends at {end}, past what nanoseconds can hold; skipped")
            });
            return;
        }
        if end == begin {
            return;
        }
        let Some(region) = self.state_region(state) else {
            self.stats.idle_skipped += 1;
            return;
        };
        let l = self.state_location(t);
        let s = self.ns(begin);
        let dur = (self.ns(end) - s).max(0) as u64;
        self.interval(l, region, s, dur);
        self.stats.state_intervals += 1;
    }

    #[inline]
    fn event(&mut self, line: u64, who: Who, time: u64, pairs: &[(u64, i64)]) {
        self.stats.event_records += 1;
        let t = self.thread(line, who);
        self.check_order(line, t, time);
        for &(ty, value) in pairs {
            match self.type_kind(ty) {
                TypeKind::Call { paradigm, stacked } => {
                    if value != 0 {
                        let region = self.call_region(ty, value, paradigm);
                        if !stacked {
                            if let Some((_, region, start)) = self.threads[t].open.take(ty) {
                                self.close(t, ty, region, start, time);
                            }
                        }
                        self.threads[t].open.push((ty, region, time), paradigm == Paradigm::Mpi);
                    } else {
                        match self.threads[t].open.take(ty) {
                            Some((_, region, start)) => {
                                self.close(t, ty, region, start, time);
                            }
                            // For a "Last Evt Val" type a 0 after a 0 changes nothing.
                            None if !stacked => {}
                            None => {
                                let file = self.file;
                                self.b.warn(WarningKind::UnmatchedEnd, || {
                                    format!("{file}:{line}: event type {ty} ends (value 0) with nothing open; ignored")
                                });
                            }
                        }
                    }
                }
                TypeKind::Counter => {
                    let s = self.counter(t, ty);
                    let ns = self.ns(time);
                    self.b.counter_sample(s, ns, value as f64);
                    self.stats.counter_samples += 1;
                }
            }
        }
    }

    fn comm(&mut self, line: u64, c: &Comm) {
        self.stats.comm_records += 1;
        let from = self.thread(line, c.from);
        let to = self.thread(line, c.to);
        self.check_order(line, from, c.logical_send);
        let sender = self.location(from);
        let receiver = self.location(to);
        let m = MessageRecord {
            kind: MessageKind::PointToPoint,
            sender,
            receiver,
            send_ns: self.ns(c.logical_send),
            recv_ns: self.ns(c.physical_recv),
            posted_ns: self.ns(c.logical_recv),
            size_bytes: c.size,
            tag: u32::try_from(c.tag).unwrap_or(u32::MAX),
            name: StringId::EMPTY,
        };
        self.b.message(m);
    }

    fn global_comm(&mut self, line: u64, g: &GlobalComm) {
        self.stats.global_comm_records += 1;
        let t = self.thread(line, g.who);
        self.check_order(line, t, g.time);
        // The participation belongs to the innermost MPI call open on the thread, if any.
        let open_call = self.threads[t].open.innermost_mpi();
        let (region, in_call) = match open_call {
            Some((_, region, _)) => (region, true),
            None => {
                // Keyed apart from event types (which are below 2^63).
                let key = (u64::MAX, g.op);
                let region = match self.call_regions.get(&key) {
                    Some(&r) => r,
                    None => {
                        let name = format!("Global op {}", g.op);
                        let r = self.b.region_with(&name, "Paraver global op", Paradigm::Mpi, RegionRole::Collective);
                        self.call_regions.insert(key, r);
                        r
                    }
                };
                (region, false)
            }
        };
        let communicator = self.b.intern(&format!("communicator {}", g.communicator));
        let root = g.root.and_then(|r| self.root_thread(g.who.appl, g.communicator, r));
        self.collectives.participate(Participation {
            thread: t as u32,
            region,
            communicator_id: g.communicator,
            communicator,
            root,
            time: g.time,
            sent: g.send_size,
            received: g.recv_size,
            in_call,
        });
    }

    fn unknown(&mut self, line: u64, kind: &[u8]) {
        self.stats.unknown_records += 1;
        let (file, kind) = (self.file, String::from_utf8_lossy(kind).into_owned());
        self.b.warn(WarningKind::UnknownRecord, || format!("{file}:{line}: unknown record kind \"{kind}\"; skipped"));
    }

    fn malformed(&mut self, line: u64, offset: u64, detail: &'static str, last: bool) {
        self.stats.malformed_records += 1;
        let file = self.file;
        if last {
            self.b.warn(WarningKind::Truncated, || {
                format!("{file}:{line}: the file ends inside a record ({detail}); records before it are kept")
            });
        } else {
            self.b.warn(WarningKind::MalformedRecord, || format!("{file}:{line} (byte {offset}): {detail}; skipped"));
        }
    }
}

/// Stable per-task process id: tasks of application 1 keep their own number.
fn task_native_id(appl: u32, task: u32) -> i64 {
    (appl as i64 - 1) * 1_000_000 + task as i64
}
