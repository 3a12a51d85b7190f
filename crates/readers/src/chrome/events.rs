//! Turning scanned Chrome trace events into the model: one `Converter` per file receives each
//! [`RawEvent`], resolves its process, thread and region through caches keyed on the borrowed bytes (no
//! allocation per event once a name has been seen), and feeds the [`TraceBuilder`].
//!
//! X, instant, metadata and counter events go straight to the builder. B/E pairs, async slices and flows
//! need matching, so they are collected compactly here and matched at `finish` by `slices.rs`,
//! `asyncs.rs` and `flows.rs`. Every repair is counted as a model warning; nothing here returns an error or panics.
//! An event's args become an entry of the builder's args tables when the event is read (`args.rs` flattens
//! them); an interval's entry waits in `args_by_seq` under the file position of the event that began it,
//! which its pending interval carries, so B/E matching can merge an E's args into its B's.

use super::args::{flatten, raw_args, Flat};
use super::asyncs::{AsyncKind, Asyncs};
use super::flows::Flows;
// Fx (rustc-hash): fast, not DoS-resistant; keys come from the one file being read (a hostile file can at worst
// slow its own reading down), as the module's hash tables always were.
use super::scanner::{for_each_member, JStr, RawEvent, Val};
use super::slices::{close_thread, flush_intervals, sort_pending, BeEvent, PendingInterval, ThreadSlices};
use super::values::{int_of, val_f64, val_micros_to_ns, MAX_NS};
use crate::ReadError;
use rustc_hash::FxHashMap as FxMap;
use weft_model::args::{cut_note, MAX_PAIRS, MAX_VALUE_CHARS};
use weft_model::{
    ArgKind, Format, LocationId, LocationKind, ProcessId, RegionId, StringId, Trace, TraceBuilder, WarningKind,
};

/// Native ids for string pids and tids start here, far above any numeric id a producer uses.
const STRING_ID_BASE: i64 = 1 << 40;

pub struct Converter {
    pub(super) b: TraceBuilder,
    /// Raw (possibly escaped) name bytes to their interned id.
    names: FxMap<Box<[u8]>, StringId>,
    /// Text of the names interned through `names`, for warning messages.
    pub(super) name_text: FxMap<StringId, Box<str>>,
    regions: FxMap<(StringId, StringId), RegionId>,
    /// Raw `name \0 escaped cat` bytes to region: the one probe per event on the hot path.
    region_by_raw: FxMap<Box<[u8]>, RegionId>,
    series_by_raw: FxMap<Box<[u8]>, u32>,
    scratch: Vec<u8>,
    /// The name of each region, by region id.
    pub(super) region_name: Vec<StringId>,
    locations: FxMap<(i64, i64), LocationId>,
    last_location: Option<((i64, i64), LocationId)>,
    /// String pids/tids (and flow/async ids) to stable numeric ids.
    string_ids: FxMap<Box<[u8]>, i64>,
    string_pid_names: Vec<(i64, String)>,
    string_tid_names: Vec<((i64, i64), String)>,
    /// Processes named by `process_name`, with that name.
    named_processes: FxMap<i64, String>,
    /// `process_labels` by process ("CPU", "GPU 0": PyTorch's processes share one name and differ by these).
    process_labels: FxMap<i64, String>,
    named_threads: FxMap<(i64, i64), ()>,
    /// Per location (indexed by location id): its B/E events and last timestamp.
    pub(super) threads: Vec<ThreadSlices>,
    /// For `weft index`: where thread events go once too many are buffered (`streamed.rs`).
    pub(super) spill: Option<super::streamed::Spilling>,
    pub(super) asyncs: Asyncs,
    pub(super) flows: Flows,
    seq: u32,
    /// Args entries (the builder's interval table) of X, B, E and async events, by the event's `seq`.
    pub(super) args_by_seq: FxMap<u32, u32>,
    flat: Flat,
    /// One event's pairs as they go into an entry: key, kind, value's range in `flat.text`.
    pairs: Vec<(StringId, ArgKind, std::ops::Range<usize>)>,
    /// An args table reached its bound (said once).
    args_full: bool,
    /// Keep no args (a read for a store, which keeps none: their keys would enter the string table).
    pub(super) skip_args: bool,
}

impl Default for Converter {
    fn default() -> Self {
        Converter {
            b: TraceBuilder::new(Format::ChromeJson),
            names: FxMap::default(),
            name_text: FxMap::default(),
            regions: FxMap::default(),
            region_by_raw: FxMap::default(),
            series_by_raw: FxMap::default(),
            scratch: Vec::new(),
            region_name: Vec::new(),
            locations: FxMap::default(),
            last_location: None,
            string_ids: FxMap::default(),
            string_pid_names: Vec::new(),
            string_tid_names: Vec::new(),
            named_processes: FxMap::default(),
            process_labels: FxMap::default(),
            named_threads: FxMap::default(),
            threads: Vec::new(),
            spill: None,
            asyncs: Asyncs::default(),
            flows: Flows::default(),
            seq: 0,
            args_by_seq: FxMap::default(),
            flat: Flat::default(),
            pairs: Vec::new(),
            args_full: false,
            skip_args: false,
        }
    }
}

/// A raw value as it appears in the file, shortened, for warning messages.
fn shown(v: &Val) -> String {
    let raw: &[u8] = match v {
        Val::Absent => b"(absent)",
        Val::Num(b) | Val::Other(b) => b,
        Val::Str(s) => s.raw,
    };
    let quote = if matches!(v, Val::Str(_)) { "\"" } else { "" };
    let text = String::from_utf8_lossy(&raw[..raw.len().min(40)]);
    format!("{quote}{text}{quote}")
}

fn ph_text(ph: &[u8]) -> String {
    String::from_utf8_lossy(&ph[..ph.len().min(16)]).into_owned()
}

impl Converter {
    #[inline]
    fn name_id(&mut self, s: JStr) -> StringId {
        if let Some(&id) = self.names.get(s.raw) {
            return id;
        }
        let text = s.text();
        let id = self.b.intern(&text);
        self.name_text.entry(id).or_insert_with(|| text.as_ref().into());
        self.names.insert(s.raw.into(), id);
        id
    }

    /// The region of (name, category), looked up by the raw bytes of both in one hash probe.
    #[inline]
    fn region(&mut self, name: Option<JStr>, cat: Option<JStr>) -> RegionId {
        let name = name.unwrap_or(JStr { raw: b"(unnamed)", escaped: false });
        let cat = cat.unwrap_or_default();
        self.scratch.clear();
        self.scratch.extend_from_slice(name.raw);
        self.scratch.push(0);
        self.scratch.push(name.escaped as u8);
        self.scratch.extend_from_slice(cat.raw);
        if let Some(&r) = self.region_by_raw.get(self.scratch.as_slice()) {
            return r;
        }
        let key: Box<[u8]> = self.scratch.as_slice().into();
        let r = self.region_slow(name, cat);
        self.region_by_raw.insert(key, r);
        r
    }

    fn region_slow(&mut self, name: JStr, cat: JStr) -> RegionId {
        let n = self.name_id(name);
        let c = if cat.raw.is_empty() { StringId::EMPTY } else { self.name_id(cat) };
        if let Some(&r) = self.regions.get(&(n, c)) {
            return r;
        }
        let name_text = self.text_of(n);
        let cat_text = if c == StringId::EMPTY { String::new() } else { self.text_of(c) };
        let r = self.b.region(&name_text, &cat_text);
        if r.index() >= self.region_name.len() {
            self.region_name.resize(r.index() + 1, StringId::EMPTY);
        }
        self.region_name[r.index()] = n;
        self.regions.insert((n, c), r);
        r
    }

    /// A stable numeric id for a pid, tid or other id given as a number or a string.
    fn native_id(&mut self, v: &Val) -> (i64, Option<String>) {
        match v {
            Val::Absent => (0, None),
            Val::Num(b) => match int_of(b) {
                Some(i) => (i, None),
                None => self.string_id(b),
            },
            Val::Str(s) => {
                if !s.escaped {
                    if let Some(i) = int_of(s.raw) {
                        return (i, None);
                    }
                }
                let (id, fresh) = self.string_id(s.raw);
                (id, fresh.map(|_| s.text().into_owned()))
            }
            Val::Other(b) => self.string_id(b),
        }
    }

    /// Interned id for raw bytes; the text is returned the first time a string is seen.
    fn string_id(&mut self, raw: &[u8]) -> (i64, Option<String>) {
        if let Some(&i) = self.string_ids.get(raw) {
            return (i, None);
        }
        let i = STRING_ID_BASE + self.string_ids.len() as i64;
        self.string_ids.insert(raw.into(), i);
        (i, Some(String::from_utf8_lossy(raw).into_owned()))
    }

    fn pid_tid(&mut self, ev: &RawEvent) -> (i64, i64) {
        let (pid, pid_name) = self.native_id(&ev.pid);
        if let Some(n) = pid_name {
            self.string_pid_names.push((pid, n));
        }
        let (tid, tid_name) = self.native_id(&ev.tid);
        if let Some(n) = tid_name {
            self.string_tid_names.push(((pid, tid), n));
        }
        (pid, tid)
    }

    #[inline]
    fn thread(&mut self, ev: &RawEvent) -> LocationId {
        // Fast path: plain numeric pid and tid, the same thread as the last event.
        let key = match (&ev.pid, &ev.tid) {
            (Val::Num(p), Val::Num(t)) => match (int_of(p), int_of(t)) {
                (Some(p), Some(t)) => (p, t),
                _ => self.pid_tid(ev),
            },
            _ => self.pid_tid(ev),
        };
        if let Some((k, l)) = self.last_location {
            if k == key {
                return l;
            }
        }
        let l = match self.locations.get(&key) {
            Some(&l) => l,
            None => {
                let p = self.b.process(key.0);
                let l = self.b.location(p, key.1, LocationKind::CpuThread);
                self.locations.insert(key, l);
                if l.index() >= self.threads.len() {
                    self.threads.resize_with(l.index() + 1, ThreadSlices::default);
                }
                l
            }
        };
        self.last_location = Some((key, l));
        l
    }

    fn process_of(&mut self, ev: &RawEvent) -> ProcessId {
        let (pid, name) = self.native_id(&ev.pid);
        if let Some(n) = name {
            self.string_pid_names.push((pid, n));
        }
        self.b.process(pid)
    }

    /// The event's `ts` in ns, or None (with a warning) when absent or unusable.
    #[inline]
    fn ts(&mut self, ev: &RawEvent, offset: u64) -> Option<i64> {
        match val_micros_to_ns(&ev.ts) {
            Some(t) if t >= 0 => Some(t),
            _ if ev.ts.is_absent() => {
                let ph = ph_text(ev.ph);
                self.b.warn(WarningKind::MalformedRecord, || {
                    format!("event at byte {offset} (phase '{ph}') has no ts; skipped")
                });
                None
            }
            _ => {
                let v = shown(&ev.ts);
                self.b.warn(WarningKind::BadTimestamp, || format!("event at byte {offset} has ts {v}; skipped"));
                None
            }
        }
    }

    #[inline]
    fn touch(&mut self, l: LocationId, t: i64) {
        let th = &mut self.threads[l.index()];
        th.max_ts = th.max_ts.max(t);
    }

    pub fn event(&mut self, ev: &RawEvent, offset: u64) {
        self.seq = self.seq.wrapping_add(1);
        if matches!(ev.pid, Val::Other(_)) || matches!(ev.tid, Val::Other(_)) {
            self.bad_ids(ev, offset);
            return;
        }
        match ev.ph {
            b"X" => self.complete(ev, offset),
            b"B" | b"E" => self.begin_end(ev, offset),
            b"i" | b"I" | b"R" | b"n" => {
                let Some(ts) = self.ts(ev, offset) else {
                    return;
                };
                let l = self.thread(ev);
                let r = self.region(ev.name, ev.cat);
                self.touch(l, ts);
                self.b.instant(l, r, ts);
                if let Some(e) = self.args_entry(ev, offset, true) {
                    self.b.set_instant_args(e);
                }
            }
            b"M" => self.metadata(ev),
            b"C" => self.counter(ev, offset),
            b"s" | b"t" | b"f" => self.flow_v1(ev, offset),
            b"b" | b"e" | b"S" | b"F" => self.async_event(ev, offset),
            // Steps of legacy async slices carry nothing the model holds.
            b"T" | b"p" => {}
            b"" => {
                self.b.warn(WarningKind::MalformedRecord, || format!("event at byte {offset} has no ph; skipped"));
            }
            other => {
                let ph = ph_text(other);
                self.b.warn(WarningKind::UnknownRecord, || {
                    format!("event at byte {offset}: phase '{ph}' is not read; skipped")
                });
            }
        }
    }

    /// A pid or tid that is neither a number nor a string (null, true, an array, an object, NaN): the
    /// event names no thread, so it is skipped with a warning rather than filed under a made-up one.
    #[cold]
    fn bad_ids(&mut self, ev: &RawEvent, offset: u64) {
        let (field, v) = if matches!(ev.pid, Val::Other(_)) { ("pid", &ev.pid) } else { ("tid", &ev.tid) };
        let (v, ph) = (shown(v), ph_text(ev.ph));
        self.b.warn(WarningKind::MalformedRecord, || {
            format!("event at byte {offset} (phase '{ph}') has {field} {v}, not a number or string; skipped")
        });
    }

    fn complete(&mut self, ev: &RawEvent, offset: u64) {
        let Some(ts) = self.ts(ev, offset) else {
            return;
        };
        let dur_val = if ev.dur.is_absent() { &ev.tdur } else { &ev.dur };
        let dur = if dur_val.is_absent() {
            self.b.warn(WarningKind::MalformedRecord, || {
                format!("X event at byte {offset} has no dur; kept as zero-length")
            });
            0
        } else {
            match val_micros_to_ns(dur_val) {
                Some(d) if d >= 0 && ts.saturating_add(d) < MAX_NS => d,
                _ => {
                    let v = shown(dur_val);
                    self.b.warn(WarningKind::BadTimestamp, || format!("X event at byte {offset} has dur {v}; skipped"));
                    return;
                }
            }
        };
        let l = self.thread(ev);
        let r = self.region(ev.name, ev.cat);
        self.touch(l, ts + dur);
        let seq = self.seq;
        self.threads[l.index()].intervals.push(PendingInterval { start: ts, dur: dur as u64, region: r, seq });
        self.keep_args(ev, offset, seq);
        self.buffered_one();
        if ev.flow_in || ev.flow_out {
            self.flow_v2(ev, l, ts);
        }
    }

    fn begin_end(&mut self, ev: &RawEvent, offset: u64) {
        let Some(ts) = self.ts(ev, offset) else {
            return;
        };
        let l = self.thread(ev);
        let begin = ev.ph == b"B";
        let what = if begin {
            self.region(ev.name, ev.cat).0
        } else {
            match ev.name {
                Some(n) if !n.raw.is_empty() => self.name_id(n).0,
                _ => BeEvent::UNNAMED,
            }
        };
        let seq = self.seq;
        self.threads[l.index()].push(BeEvent { ts, seq, what, begin });
        self.keep_args(ev, offset, seq);
        self.buffered_one();
        if begin && (ev.flow_in || ev.flow_out) {
            self.flow_v2(ev, l, ts);
        }
    }

    fn metadata(&mut self, ev: &RawEvent) {
        let Some(name) = ev.name else { return };
        let (mut text, mut sort_index) = (None, None);
        if let Val::Other(args) = ev.args {
            for_each_member(args, |k, v| match (k.raw, v) {
                (b"name" | b"labels", Val::Str(s)) => text = Some(s.text().into_owned()),
                (b"sort_index", Val::Num(n)) => sort_index = int_of(n),
                _ => {}
            });
        }
        match name.raw {
            b"process_name" | b"process_sort_index" => {
                let p = self.process_of(ev);
                if let Some(t) = text.filter(|_| name.raw == b"process_name") {
                    self.b.set_process_name(p, &t);
                    let pid = self.b_native_pid(ev);
                    self.named_processes.insert(pid, t);
                }
                if let Some(k) = sort_index.filter(|_| name.raw == b"process_sort_index") {
                    self.b.set_process_sort_key(p, k);
                }
            }
            b"process_labels" => {
                self.process_of(ev);
                if let Some(t) = text.filter(|t| !t.trim().is_empty()) {
                    let pid = self.b_native_pid(ev);
                    self.process_labels.insert(pid, t);
                }
            }
            b"thread_name" | b"thread_sort_index" => {
                let l = self.thread(ev);
                if let Some(t) = text.filter(|_| name.raw == b"thread_name") {
                    self.b.set_location_name(l, &t);
                    let key = self.pid_tid(ev);
                    self.named_threads.insert(key, ());
                }
                if let Some(k) = sort_index.filter(|_| name.raw == b"thread_sort_index") {
                    self.b.set_location_sort_key(l, k);
                }
            }
            _ => {}
        }
    }

    fn b_native_pid(&mut self, ev: &RawEvent) -> i64 {
        self.native_id(&ev.pid).0
    }

    fn counter(&mut self, ev: &RawEvent, offset: u64) {
        let Some(ts) = self.ts(ev, offset) else {
            return;
        };
        let p = self.process_of(ev);
        let Val::Other(args) = ev.args else { return };
        let name = ev.name.unwrap_or(JStr { raw: b"(unnamed)", escaped: false });
        let mut numeric = 0usize;
        for_each_member(args, |_, v| numeric += val_f64(&v).is_some() as usize);
        for_each_member(args, |k, v| {
            if let Some(x) = val_f64(&v) {
                let series = self.series(p, name, k, numeric == 1);
                self.b.counter_sample(series, ts, x);
            }
        });
    }

    /// The counter series of (process, counter name, arg), keyed on raw bytes (no allocation once seen).
    fn series(&mut self, p: ProcessId, name: JStr, arg: JStr, only: bool) -> u32 {
        self.scratch.clear();
        self.scratch.extend_from_slice(&p.0.to_le_bytes());
        self.scratch.extend_from_slice(name.raw);
        if !only {
            self.scratch.push(0);
            self.scratch.extend_from_slice(arg.raw);
        }
        if let Some(&s) = self.series_by_raw.get(self.scratch.as_slice()) {
            return s;
        }
        let key: Box<[u8]> = self.scratch.as_slice().into();
        let text = if only { name.text().into_owned() } else { format!("{}.{}", name.text(), arg.text()) };
        let s = self.b.counter_series(p, &text);
        self.series_by_raw.insert(key, s);
        s
    }

    /// A stable key for an id value (number, string, or `id2` object), allocation-free after first sight.
    fn id_key(&mut self, ev: &RawEvent) -> Option<u64> {
        let raw = match (&ev.id, &ev.id2) {
            (Val::Num(b), _) | (Val::Other(b), _) => *b,
            (Val::Str(s), _) => s.raw,
            (Val::Absent, Val::Other(b)) | (Val::Absent, Val::Num(b)) => *b,
            (Val::Absent, Val::Str(s)) => s.raw,
            (Val::Absent, Val::Absent) => return None,
        };
        Some(self.string_id(raw).0 as u64)
    }

    /// A v1 flow's id: `id`, or `id2.global`, or `id2.local` scoped to the event's process.
    fn flow_id(&mut self, ev: &RawEvent) -> Option<u64> {
        let raw = match (&ev.id, &ev.id2) {
            (Val::Num(b), _) | (Val::Other(b), _) => *b,
            (Val::Str(s), _) => s.raw,
            (Val::Absent, Val::Other(obj)) => {
                let (mut local, mut global) = (None, None);
                for_each_member(obj, |k, v| match (k.raw, v) {
                    (b"local", Val::Num(b) | Val::Other(b)) => local = Some(b),
                    (b"local", Val::Str(s)) => local = Some(s.raw),
                    (b"global", Val::Num(b) | Val::Other(b)) => global = Some(b),
                    (b"global", Val::Str(s)) => global = Some(s.raw),
                    _ => {}
                });
                match (global, local) {
                    (Some(g), _) => g,
                    (None, Some(l)) => {
                        let pid = self.native_id(&ev.pid).0;
                        let mut key = Vec::with_capacity(l.len() + 9);
                        key.push(0);
                        key.extend_from_slice(&pid.to_le_bytes());
                        key.extend_from_slice(l);
                        return Some(self.string_id(&key).0 as u64);
                    }
                    (None, None) => *obj,
                }
            }
            (Val::Absent, Val::Num(b)) => *b,
            (Val::Absent, Val::Str(s)) => s.raw,
            (Val::Absent, Val::Absent) => return None,
        };
        Some(self.string_id(raw).0 as u64)
    }

    fn flow_v1(&mut self, ev: &RawEvent, offset: u64) {
        let Some(ts) = self.ts(ev, offset) else {
            return;
        };
        let Some(id) = self.flow_id(ev) else {
            self.b.warn(WarningKind::MalformedRecord, || format!("flow event at byte {offset} has no id; skipped"));
            return;
        };
        let l = self.thread(ev);
        self.touch(l, ts);
        let name = ev.name.map_or(StringId::EMPTY, |n| self.name_id(n));
        let cat = ev.cat.map_or(StringId::EMPTY, |c| self.name_id(c));
        let bp_e = ev.bp.is_some_and(|b| b.raw == b"e");
        self.flows.v1(ev.ph[0], cat, name, id, l, ts, bp_e);
    }

    fn flow_v2(&mut self, ev: &RawEvent, l: LocationId, ts: i64) {
        let raw = match &ev.bind_id {
            Val::Num(b) | Val::Other(b) => *b,
            Val::Str(s) => s.raw,
            Val::Absent => match &ev.id {
                Val::Num(b) | Val::Other(b) => *b,
                Val::Str(s) => s.raw,
                Val::Absent => return,
            },
        };
        let key = self.string_id(raw).0 as u64;
        let name = ev.name.map_or(StringId::EMPTY, |n| self.name_id(n));
        self.flows.v2(key, name, l, ts, ev.flow_in, ev.flow_out);
    }

    fn async_event(&mut self, ev: &RawEvent, offset: u64) {
        let Some(ts) = self.ts(ev, offset) else {
            return;
        };
        let Some(id) = self.id_key(ev) else {
            self.b.warn(WarningKind::MalformedRecord, || format!("async event at byte {offset} has no id; skipped"));
            return;
        };
        let p = self.process_of(ev);
        let region = self.region(ev.name, ev.cat);
        let name = self.region_name[region.index()];
        let cat = ev.cat.map_or(StringId::EMPTY, |c| self.name_id(c));
        let (kind, legacy) = match ev.ph {
            b"b" => (AsyncKind::Begin, false),
            b"e" => (AsyncKind::End, false),
            b"S" => (AsyncKind::Begin, true),
            _ => (AsyncKind::End, true),
        };
        // Legacy S/F pairs match on (cat, name, id); nestable b/e on (cat, id), nested by name.
        let key = (cat, if legacy { name } else { StringId::EMPTY }, id);
        let named = ev.name.is_some_and(|n| !n.raw.is_empty());
        self.asyncs.push(p, key, kind, region, name, named, ts, self.seq);
        self.keep_args(ev, offset, self.seq);
    }

    /// The args of an event that becomes (or ends) an interval, kept under its `seq`.
    #[inline]
    fn keep_args(&mut self, ev: &RawEvent, offset: u64, seq: u32) {
        if ev.args.is_absent() {
            return;
        }
        if let Some(e) = self.args_entry(ev, offset, false) {
            self.args_by_seq.insert(seq, e);
        }
    }

    /// An entry for `ev`'s args in the builder's instant or interval table, or None (no args, none readable,
    /// the table full, or a spilling read, whose store keeps no args). Bad args are a warning.
    fn args_entry(&mut self, ev: &RawEvent, offset: u64, instant: bool) -> Option<u32> {
        if self.spill.is_some() || self.skip_args {
            return None;
        }
        let raw = match raw_args(&ev.args)? {
            Ok(raw) => raw,
            Err(why) => {
                self.bad_args(offset, why);
                return None;
            }
        };
        let mut flat = std::mem::take(&mut self.flat);
        if let Err(why) = flatten(raw, &mut flat) {
            self.bad_args(offset, why);
        }
        // Later pairs of a key replace earlier ones (as JSON readers do); keys past MAX_PAIRS are counted.
        self.pairs.clear();
        let mut cut = 0u64;
        for p in &flat.pairs {
            let key = self.arg_key(flat.key(raw, p));
            if let Some(q) = self.pairs.iter_mut().find(|q| q.0 == key) {
                (q.1, q.2) = (p.kind, p.value.clone());
            } else if self.pairs.len() < MAX_PAIRS {
                self.pairs.push((key, p.kind, p.value.clone()));
            } else {
                cut += 1;
            }
        }
        let entry = if self.pairs.is_empty() {
            None
        } else {
            let cut_text = (cut > 0).then(|| cut_note(cut));
            let table = if instant { self.b.instant_arg_table() } else { self.b.interval_arg_table() };
            let text = &flat.text;
            let pairs = self.pairs.iter().map(|(k, kind, v)| (*k, *kind, &text[v.clone()]));
            let cut_pair = cut_text.as_deref().map(|t| (StringId::EMPTY, ArgKind::Cut, t));
            let e = table.push(pairs.chain(cut_pair));
            if e.is_none() && !self.args_full {
                self.args_full = true;
                self.b.warn(WarningKind::Other, || {
                    format!(
                        "event at byte {offset}: the args kept reached their bound; later events' args are not kept"
                    )
                });
            }
            e
        };
        self.flat = flat;
        entry
    }

    /// A key's interned id; a key longer than a value may be is cut the same way.
    fn arg_key(&mut self, k: JStr) -> StringId {
        if k.raw.len() <= MAX_VALUE_CHARS {
            return self.name_id(k);
        }
        let text = k.text();
        if text.chars().count() <= MAX_VALUE_CHARS {
            return self.name_id(k);
        }
        let cut: String = text.chars().take(MAX_VALUE_CHARS).chain(['…']).collect();
        self.b.intern(&cut)
    }

    #[cold]
    fn bad_args(&mut self, offset: u64, why: &'static str) {
        self.b.warn(WarningKind::MalformedRecord, || {
            format!("event at byte {offset}: bad args ({why}); the pairs before it are kept")
        });
    }

    /// Match what needs matching, name string-named processes and threads, and build the trace. `file` names
    /// the input when the memory for its intervals cannot be had.
    pub fn finish(mut self, file: &str, events: u64) -> Result<Trace, ReadError> {
        let last_ts = self.name_strings_and_last_ts();
        let mut threads = std::mem::take(&mut self.threads);
        for (i, th) in threads.iter_mut().enumerate() {
            close_thread(&mut self, LocationId(i as u32), th);
        }
        let flows = std::mem::take(&mut self.flows);
        if !flows.is_empty() {
            for th in threads.iter_mut() {
                sort_pending(&mut th.intervals);
            }
            flows.finish(&mut self.b, &threads);
        }
        let total: usize = threads.iter().map(|t| t.intervals.len()).sum();
        self.b.reserve_intervals(total).map_err(|_| {
            let bytes = (total as u64).saturating_mul(TraceBuilder::INTERVAL_BYTES);
            crate::budget::out_of_memory(file, "Chrome trace", "its intervals", bytes)
        })?;
        for (i, th) in threads.iter_mut().enumerate() {
            flush_intervals(&mut self, LocationId(i as u32), th);
        }
        let asyncs = std::mem::take(&mut self.asyncs);
        asyncs.finish(&mut self, last_ts);
        self.b.add_event_records(events);
        Ok(self.b.finish())
    }

    /// [`finish`](Self::finish) for a converter whose thread events were spilled (`streamed.rs`): threads
    /// read back one at a time, matched, their flow ends bound, their intervals handed to `each` in the
    /// order `flush_intervals` gives the builder; then the async tracks' intervals, location by location.
    /// Every location gets one call, in order. Returns the builder without intervals.
    pub(super) fn finish_streamed(
        mut self,
        file: &str,
        events: u64,
        each: &mut super::streamed::EachLocation<'_, ReadError>,
    ) -> Result<TraceBuilder, ReadError> {
        let last_ts = self.name_strings_and_last_ts();
        let mut flows = std::mem::take(&mut self.flows);
        let mut binds = flows.prepare(self.threads.len());
        let mut raw: Vec<(RegionId, i64, u64)> = Vec::new();
        let io = |detail: String| ReadError::Io { file: file.to_string(), detail: format!("spilled events: {detail}") };
        for i in 0..self.threads.len() {
            let mut th = self.read_back(i).map_err(io)?;
            close_thread(&mut self, LocationId(i as u32), &mut th);
            sort_pending(&mut th.intervals);
            flows.bind_location(&mut binds, i, &th);
            raw.clear();
            raw.extend(th.intervals.iter().map(|p| (p.region, p.start, p.dur)));
            drop(th);
            each(i, &raw)?;
        }
        flows.finish_bound(&mut self.b, &binds);
        let asyncs = std::mem::take(&mut self.asyncs);
        asyncs.finish(&mut self, last_ts);
        // The async tracks are the last locations: their intervals are the builder's.
        let (location, region, start, dur) = self.b.take_intervals();
        let n = self.b.location_count();
        let mut order: Vec<u32> = (0..location.len() as u32).collect();
        order.sort_by_key(|&k| location[k as usize]);
        let mut k = 0;
        for l in self.threads.len()..n {
            raw.clear();
            while k < order.len() && location[order[k] as usize].index() == l {
                let j = order[k] as usize;
                raw.push((region[j], start[j], dur[j]));
                k += 1;
            }
            each(l, &raw)?;
        }
        if k < order.len() {
            // Async tracks are made after every thread's location; an interval before them is a bug here.
            return Err(io("an async interval on a thread's location".into()));
        }
        self.b.add_event_records(events);
        Ok(self.b)
    }

    /// Processes told apart: a process's `process_labels` join its name ("python (GPU 0)"), and processes
    /// that `process_name` gives one name (several "python") and labels do not tell apart keep their pid too
    /// ("python (pid 4037)"). After the names from string pids.
    fn name_labelled_processes(&mut self) {
        let mut pids: Vec<i64> = self.named_processes.keys().chain(self.process_labels.keys()).copied().collect();
        pids.sort_unstable();
        pids.dedup();
        let names: Vec<(i64, String)> = pids
            .iter()
            .map(|&pid| {
                let base = match self.named_processes.get(&pid) {
                    Some(n) => n.clone(),
                    None => format!("Process {pid}"),
                };
                let name = match self.process_labels.get(&pid) {
                    Some(l) if !base.contains(l.as_str()) => format!("{base} ({l})"),
                    _ => base,
                };
                (pid, name)
            })
            .collect();
        let mut same: FxMap<&str, u32> = FxMap::default();
        for (_, n) in &names {
            *same.entry(n.as_str()).or_default() += 1;
        }
        for (pid, name) in &names {
            let shared = same.get(name.as_str()).is_some_and(|&k| k > 1) && *pid < STRING_ID_BASE;
            let name = if shared { format!("{name} (pid {pid})") } else { name.clone() };
            let p = self.b.process(*pid);
            self.b.set_process_name(p, &name);
        }
    }

    /// Name string-named processes and threads; the latest time of any thread or async event.
    fn name_strings_and_last_ts(&mut self) -> i64 {
        if !self.named_processes.is_empty() || !self.process_labels.is_empty() {
            self.name_labelled_processes();
        }
        for (pid, name) in std::mem::take(&mut self.string_pid_names) {
            if !self.named_processes.contains_key(&pid) {
                let p = self.b.process(pid);
                self.b.set_process_name(p, &name);
            }
        }
        for ((pid, tid), name) in std::mem::take(&mut self.string_tid_names) {
            if !self.named_threads.contains_key(&(pid, tid)) {
                let p = self.b.process(pid);
                let l = self.b.location(p, tid, LocationKind::CpuThread);
                self.b.set_location_name(l, &name);
            }
        }
        let mut last_ts = i64::MIN;
        for th in &self.threads {
            last_ts = last_ts.max(th.max_ts);
        }
        last_ts.max(self.asyncs.max_ts())
    }

    pub(super) fn text_of(&self, id: StringId) -> String {
        self.name_text.get(&id).map_or_else(|| format!("#{}", id.0), |s| s.to_string())
    }
}
