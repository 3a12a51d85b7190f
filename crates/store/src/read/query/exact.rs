//! What a view draws at level 0: a `Trace` with the store's definitions and the exact records of the visible
//! locations that reach into the window, from the decoded level-0 tiles ([`exact_trace`], or tile by tile,
//! [`ExactSlice`]), which the ordinary timeline view draws and hovers.

use super::plan::Plan;
use crate::counters::{CounterTile, SampleRow};
use crate::format::events::TileInstant;
use crate::read::{CollectiveRow, EventsTile, MessageRow};
use std::ops::Range;
use weft_model::codec::IntervalRows;
use weft_model::*;

/// The exact records of `plan` (a level-0 plan) from its decoded tiles, as a `Trace` with `skeleton`'s
/// definitions (`Store::skeleton`): the intervals of the plan's locations that reach into [t0, t1] (in the
/// model's order: location, start, depth), their instants in the window, the messages sent or received there
/// by those locations (from the tiles fetched: the senders' blocks), and their collective rows reaching into
/// it. Times stay relative to the store's origin, so the view's axis and hover are the trace's.
pub fn exact_trace(skeleton: &Trace, plan: &Plan, tiles: &[&EventsTile]) -> Trace {
    let mut x = ExactSlice::new(plan);
    for tile in tiles {
        x.add(tile);
    }
    x.finish(skeleton)
}

/// The exact records of a level-0 plan gathered tile by tile ([`exact_trace`] in steps): what a tile holds
/// for the window is copied out as the tile comes, so the worker need not hold every tile of the view at
/// once. Each tile must be added once. A record is taken from its start window's tile when that window is in
/// view, else from the open records of the tile of the view's first window (the window holding `t0`): the
/// records reaching into the view that started before it are exactly those carried open there.
#[derive(Clone, Debug, Default)]
pub struct ExactSlice {
    t0: u64,
    t1: u64,
    locs: Range<u32>,
    /// Per location of `locs`: the intervals reaching into the window.
    per_loc: Vec<Vec<SliceInterval>>,
    instants: Vec<TileInstant>,
    messages: Vec<MessageRow>,
    collectives: Vec<CollectiveRow>,
    /// The counter series asked, their samples in the window, and per series the last one before it.
    series: Range<u32>,
    samples: Vec<SampleRow>,
    before: Vec<Option<SampleRow>>,
}

impl ExactSlice {
    pub fn new(plan: &Plan) -> Self {
        ExactSlice {
            t0: plan.t0_ns,
            t1: plan.t1_ns,
            locs: plan.locations.clone(),
            per_loc: vec![Vec::new(); plan.locations.len()],
            series: plan.series.clone(),
            before: vec![None; plan.series.len()],
            ..Default::default()
        }
    }

    /// Copy out what a level-0 counter tile holds for the window and series: the samples in it, and the
    /// last one before it of each series (from the tile's own samples, or carried open into its window).
    pub fn add_counters(&mut self, tile: &CounterTile) {
        let (t0, t1) = (self.t0, self.t1);
        for (&s, open) in tile.samples.iter().map(|s| (s, false)).chain(tile.open.iter().map(|s| (s, true))) {
            if !self.series.contains(&s.series) {
                continue;
            }
            if s.time_ns < t0 {
                let b = &mut self.before[(s.series - self.series.start) as usize];
                if b.is_none_or(|b| (b.time_ns, b.index) < (s.time_ns, s.index)) {
                    *b = Some(s);
                }
            } else if !open && s.time_ns <= t1 {
                self.samples.push(s);
            }
        }
    }

    /// Copy out what `tile` holds for the window and locations.
    pub fn add(&mut self, tile: &EventsTile) {
        let (t0, t1, locs) = (self.t0, self.t1, self.locs.clone());
        let reaches = |s: u64, d: u64| s <= t1 && s + d >= t0;
        let first = tile.window_ns.contains(&t0);
        // Each location's list grown to what it takes, not doubled: the gathered slice is the store
        // worker's largest allocation beside its cache (BENCHMARKS.md, "Store format 2": the page).
        let mut more = vec![0usize; self.per_loc.len()];
        let open = tile.open.intervals.iter().filter(|_| first).map(|x| &x.interval);
        let taken = || tile.intervals.iter().chain(open.clone());
        let taken = || taken().filter(|x| locs.contains(&x.location.0) && reaches(x.start_ns, x.dur_ns));
        for x in taken() {
            more[(x.location.0 - locs.start) as usize] += 1;
        }
        for (v, n) in self.per_loc.iter_mut().zip(more) {
            v.reserve_exact(n);
        }
        for x in taken() {
            let row = SliceInterval { start_ns: x.start_ns, depth: x.depth, region: x.region, dur_ns: x.dur_ns };
            self.per_loc[(x.location.0 - locs.start) as usize].push(row);
        }
        for x in &tile.instants {
            if locs.contains(&x.location.0) && x.time_ns >= t0 && x.time_ns <= t1 {
                self.instants.push(*x);
            }
        }
        let open = tile.open.messages.iter().filter(|_| first);
        for m in tile.messages.iter().chain(open) {
            let (s, r, send, recv) = (m.sender, m.receiver, m.send_ns, m.recv_ns);
            if (locs.contains(&s.0) || locs.contains(&r.0)) && send.min(recv) <= t1 && send.max(recv) >= t0 {
                self.messages.push(*m);
            }
        }
        let open = tile.open.collectives.iter().filter(|_| first);
        for c in tile.collectives.iter().chain(open) {
            if locs.contains(&c.location.0) && c.start_ns <= t1 && c.end_ns >= t0 {
                self.collectives.push(*c);
            }
        }
    }

    /// Intervals gathered so far.
    pub fn intervals(&self) -> usize {
        self.per_loc.iter().map(Vec::len).sum()
    }

    /// The slice as a `Trace` with `skeleton`'s definitions.
    pub fn finish(self, skeleton: &Trace) -> Trace {
        let (mut t, rows) = self.into_parts(skeleton, true);
        let n = rows.len();
        let iv = &mut t.intervals;
        iv.location.reserve_exact(n);
        iv.region.reserve_exact(n);
        iv.start_ns.reserve_exact(n);
        iv.dur_ns.reserve_exact(n);
        iv.depth.reserve_exact(n);
        for (l, v) in rows.0 {
            let start = iv.location.len();
            for x in v {
                iv.location.push(l);
                iv.region.push(x.region);
                iv.start_ns.push(x.start_ns);
                iv.dur_ns.push(x.dur_ns);
                iv.depth.push(x.depth);
            }
            t.location_intervals[l.index()] = start..iv.location.len();
        }
        t
    }

    /// [`ExactSlice::finish`] encoded by `model::codec` as a slice over `skeleton`'s definitions (the page
    /// holds them: `codec::decode_over(bytes, skeleton)` gives what `finish` does), without building the
    /// `Trace`: the intervals are written from the per-location lists, so the store worker holds them and the
    /// answer's bytes, not a third copy between them (BENCHMARKS.md, "The tab under 512 MB"); and without
    /// the definitions, which grow with the locations, not with what the window holds (BENCHMARKS.md
    /// "Session 34").
    pub fn encode(self, skeleton: &Trace) -> Vec<u8> {
        let (t, rows) = self.into_parts(skeleton, false);
        codec::encode_slice_with(&t, skeleton, &rows)
    }

    /// [`ExactSlice::finish`] as the store worker answers the page (issue #58): its intervals as columns
    /// ([`ExactColumns`], `slice_columns`), each copied by the page as it is, and the rest encoded by
    /// `model::codec` as a slice over `skeleton`'s definitions with no intervals.
    pub fn columns(self, skeleton: &Trace) -> ExactColumns {
        let (t, rows) = self.into_parts(skeleton, false);
        let rest = codec::encode_slice_with(&t, skeleton, &SliceRows(Vec::new()));
        ExactColumns { rest, rows }
    }

    /// `skeleton` (with `tables`, its definitions too; else empty ones) with the slice's instants, messages
    /// and collectives and no intervals, and the intervals of each location in the model's order (start,
    /// depth).
    fn into_parts(self, skeleton: &Trace, tables: bool) -> (Trace, SliceRows) {
        let mut t = match tables {
            true => skeleton.clone(),
            false => Trace {
                format: skeleton.format,
                strings: Default::default(),
                processes: Default::default(),
                locations: Default::default(),
                regions: Default::default(),
                intervals: Default::default(),
                instants: Default::default(),
                messages: Default::default(),
                collectives: Default::default(),
                counters: Counters {
                    series_name: skeleton.counters.series_name.clone(),
                    series_process: skeleton.counters.series_process.clone(),
                    ..Default::default()
                },
                warnings: skeleton.warnings.clone(),
                origin_ns: skeleton.origin_ns,
                span_ns: skeleton.span_ns,
                location_intervals: Vec::new(),
                event_records: skeleton.event_records,
            },
        };
        let nl = skeleton.locations.len();
        if tables {
            t.location_intervals = vec![0..0; nl];
        }
        let mut rows = Vec::new();
        for (k, mut v) in self.per_loc.into_iter().enumerate() {
            let l = self.locs.start + k as u32;
            if v.is_empty() || l as usize >= nl {
                continue;
            }
            v.sort_by_key(|x| (x.start_ns, x.depth));
            rows.push((LocationId(l), v));
        }
        // Instants, messages and collectives in the trace's order (their index in the whole trace).
        let (mut instants, mut messages, mut collectives) = (self.instants, self.messages, self.collectives);
        instants.sort_by_key(|x| x.index);
        for x in instants {
            t.instants.location.push(x.location);
            t.instants.region.push(x.region);
            t.instants.time_ns.push(x.time_ns);
        }
        messages.sort_by_key(|x| x.index);
        messages.iter().for_each(|x| x.push_to(&mut t.messages));
        // Counter samples in the model's order (series, then time), each series' last before the window first.
        let mut samples = self.samples;
        samples.extend(self.before.into_iter().flatten());
        samples.sort_by_key(|s| (s.series, s.time_ns, s.index));
        for SampleRow { series, time_ns: time, value, .. } in samples {
            t.counters.sample_series.push(series);
            t.counters.sample_time_ns.push(time);
            t.counters.sample_value.push(value);
        }
        collectives.sort_by_key(|x| x.index);
        collectives.iter().for_each(|x| x.push_to(&mut t.collectives));
        (t, SliceRows(rows))
    }
}

/// An interval of an exact slice, of the location whose list holds it.
#[derive(Clone, Copy, Debug)]
struct SliceInterval {
    start_ns: u64,
    depth: u16,
    region: RegionId,
    dur_ns: u64,
}

/// An exact slice's intervals by location, each location's in the model's order, for `codec::encode_with`.
struct SliceRows(Vec<(LocationId, Vec<SliceInterval>)>);

impl IntervalRows for SliceRows {
    fn len(&self) -> usize {
        self.0.iter().map(|(_, v)| v.len()).sum()
    }
    fn each(&self, mut f: impl FnMut(LocationId, RegionId, u64, u64, u16)) {
        for (l, v) in &self.0 {
            for x in v {
                f(*l, x.region, x.start_ns, x.dur_ns, x.depth);
            }
        }
    }
}

/// An exact slice as the store worker sends it ([`ExactSlice::columns`]): `rest`, the slice without its
/// intervals (`model::codec`), and the intervals, whose columns are written one at a time (the worker hands
/// each to the page before writing the next).
pub struct ExactColumns {
    pub rest: Vec<u8>,
    rows: SliceRows,
}

impl ExactColumns {
    /// The intervals' count.
    pub fn intervals(&self) -> usize {
        self.rows.len()
    }

    /// The intervals' locations as runs (`slice_columns::location_runs`).
    pub fn runs(&self) -> Vec<u32> {
        super::slice_columns::location_runs(&self.rows)
    }

    /// Interval column `k` of `slice_columns::INTERVAL_COLUMNS`, as its values' bytes.
    pub fn column(&self, k: usize) -> Vec<u8> {
        super::slice_columns::interval_column(&self.rows, k)
    }
}
