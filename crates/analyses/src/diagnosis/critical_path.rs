//! The critical path (issue #53; docs/diagnosis.md, "Critical path"): the chain of work that sets the run's
//! length. From the run's last event the walk goes back in time on its location; where it reaches the end
//! of a wait (or stands inside a wait's waiting part) it jumps to the wait's cause, the location and time
//! [`Wait::cause_location`] / [`Wait::cause_ns`] name (the late sender's send, the last to enter a
//! collective, ...); elsewhere it goes on backwards on the same location, through the location's gaps too.
//! The path's segments tile `[0, span]`, so its length is the span.
//!
//! The jump rule cannot cycle: the walk's time never increases (a jump to a cause after the walk's time is
//! refused, and the walk then goes through the waiting part on its own location), and each wait gives at
//! most one jump (a wait reached again is walked through). So the walk takes at most two steps per wait,
//! each a binary search: O(W log W) for W waits.
//!
//! [`path_report`] sums the path as Scalasca does: by region (the innermost region open under each instant
//! of the path, by name; time outside any region as [`NO_REGION`]), by location, and the critical-path
//! imbalance: each region's time on the path minus its mean exclusive time per location, where positive.
//! Nothing here reads the wait-state rules: the waits and their causes come from [`WaitStates`].

use serde::{Deserialize, Serialize};
use weft_model::{LocationId, Trace};

use super::waits::{NamedNs, WaitStates};

/// The name [`path_report`] gives time on the path where no region is open on the path's location.
pub const NO_REGION: &str = "(no region)";

/// A stretch of the critical path: `[start_ns, end_ns]` of one location.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PathSegment {
    pub location: LocationId,
    pub start_ns: u64,
    pub end_ns: u64,
}

impl PathSegment {
    pub fn ns(&self) -> u64 {
        self.end_ns - self.start_ns
    }
}

/// The critical path: segments in time order, tiling `[0, span]` (adjacent segments of one location merged,
/// none empty); `length_ns` is their sum, the trace's span.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CriticalPath {
    pub segments: Vec<PathSegment>,
    pub length_ns: u64,
}

/// The location of the run's last event: the latest interval end, instant, message end or collective end
/// (ties: the lowest location); `None` for a trace without locations. A trace whose span ends at a counter
/// sample (which has no location) starts from the latest location event; the walk covers the rest as a gap.
pub fn last_location(trace: &Trace) -> Option<LocationId> {
    let n = trace.locations.len();
    if n == 0 {
        return None;
    }
    let mut latest = vec![0u64; n];
    let mut seen = vec![false; n];
    let mut see = |l: LocationId, t: u64| {
        if let Some(x) = latest.get_mut(l.index()) {
            *x = (*x).max(t);
            seen[l.index()] = true;
        }
    };
    let iv = &trace.intervals;
    for i in 0..iv.len() {
        see(iv.location[i], iv.end_ns(i));
    }
    for (l, &t) in trace.instants.location.iter().zip(&trace.instants.time_ns) {
        see(*l, t);
    }
    let m = &trace.messages;
    for i in 0..m.len() {
        see(m.sender[i], m.send_ns[i]);
        see(m.receiver[i], m.recv_ns[i]);
    }
    for (l, &t) in trace.collectives.location.iter().zip(&trace.collectives.end_ns) {
        see(*l, t);
    }
    let best = (0..n).filter(|&l| seen[l]).max_by_key(|&l| (latest[l], std::cmp::Reverse(l)));
    Some(LocationId(best.unwrap_or(0) as u32))
}

/// What the walk reads of a wait: the waiting location and part, and its cause (a store's waits tiles give
/// the same as the trace's [`WaitStates`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PathWait {
    pub location: u32,
    pub start_ns: u64,
    pub end_ns: u64,
    pub cause_location: Option<u32>,
    pub cause_ns: u64,
}

/// One location's waits (positive ones), by start, with the running maximum of their ends.
struct LocationWaits {
    /// Indices into the walk's waits.
    waits: Vec<usize>,
    start: Vec<u64>,
    /// `(max end_ns, its wait)` over `waits[..=k]`.
    max_end: Vec<(u64, usize)>,
}

impl LocationWaits {
    /// The wait the walk standing at `t` meets first going back: among the waits that start before `t`, the
    /// one whose end (capped at `t`) is latest.
    fn reached(&self, end_of: impl Fn(usize) -> u64, t: u64) -> Option<usize> {
        let k = self.start.partition_point(|&s| s < t);
        let (end, w) = *self.max_end.get(k.checked_sub(1)?)?;
        if end < t {
            return Some(w);
        }
        // Some wait that starts before t is still waiting at t: the latest-starting such.
        self.waits[..k].iter().rev().copied().find(|&w| end_of(w) >= t)
    }
}

/// The critical path of a trace whose waits are `states` (the module's text).
pub fn critical_path(trace: &Trace, states: &WaitStates) -> CriticalPath {
    walk(trace.locations.len(), last_location(trace), trace.span_ns, &states.waits, |w| PathWait {
        location: w.location.0,
        start_ns: w.start_ns,
        end_ns: w.end_ns,
        cause_location: w.cause_location.map(|c| c.0),
        cause_ns: w.cause_ns,
    })
}

/// The walk of [`critical_path`] over `n` locations from `last` (the location of the run's last event) at
/// `span_ns`, through `waits` (in the order of [`WaitStates`]: by location, start, pattern, call) as `view`
/// reads them; a store's index walks its waits tiles' records with it.
pub fn walk<W>(
    n: usize,
    last: Option<LocationId>,
    span_ns: u64,
    waits: &[W],
    view: impl Fn(&W) -> PathWait,
) -> CriticalPath {
    let Some(last) = last else {
        return CriticalPath::default();
    };
    let at = |k: usize| view(&waits[k]);
    let mut by_location: Vec<LocationWaits> =
        (0..n).map(|_| LocationWaits { waits: Vec::new(), start: Vec::new(), max_end: Vec::new() }).collect();
    for (k, w) in waits.iter().enumerate() {
        let w = view(w);
        if w.end_ns > w.start_ns && (w.location as usize) < n {
            by_location[w.location as usize].waits.push(k);
        }
    }
    for lw in &mut by_location {
        lw.waits.sort_by_key(|&k| (at(k).start_ns, k));
        lw.start = lw.waits.iter().map(|&k| at(k).start_ns).collect();
        let mut best = (0u64, usize::MAX);
        lw.max_end = lw
            .waits
            .iter()
            .map(|&k| {
                let end = at(k).end_ns;
                if best.1 == usize::MAX || end > best.0 {
                    best = (end, k);
                }
                best
            })
            .collect();
    }

    let found = walk_by(n, Some(last), span_ns, |location, t| {
        let k = by_location.get(location as usize).and_then(|lw| lw.reached(|k| at(k).end_ns, t));
        Ok::<_, std::convert::Infallible>(k.map(|k| (k, at(k))))
    });
    match found {
        Ok(path) => path,
        Err(never) => match never {},
    }
}

/// The walk of [`walk`] over `n` locations from `last` at `span_ns`, each location's waits reached through `reached(location,
/// t)`: the wait the walk standing at `t` meets first going back (as [`walk`] finds it), with a number of its
/// own (a wait gives at most one jump). A store's index answers it from its waits paged in the spill.
pub fn walk_by<E>(
    n: usize,
    last: Option<LocationId>,
    span_ns: u64,
    mut reached: impl FnMut(u32, u64) -> Result<Option<(usize, PathWait)>, E>,
) -> Result<CriticalPath, E> {
    let Some(last) = last else {
        return Ok(CriticalPath::default());
    };
    // The waits that gave their jump (at most one per segment of the path).
    let mut used: rustc_hash::FxHashSet<usize> = rustc_hash::FxHashSet::default();
    // Built backwards: the latest segment first.
    let mut back: Vec<PathSegment> = Vec::new();
    let mut push = |location: LocationId, start_ns: u64, end_ns: u64| {
        if start_ns >= end_ns {
            return;
        }
        match back.last_mut() {
            Some(s) if s.location == location && s.start_ns == end_ns => s.start_ns = start_ns,
            _ => back.push(PathSegment { location, start_ns, end_ns }),
        }
    };
    let (mut location, mut t) = (last, span_ns);
    loop {
        let Some((k, w)) = reached(location.0, t)? else {
            push(location, 0, t);
            break;
        };
        let end = w.end_ns.min(t);
        push(location, end, t);
        match w.cause_location {
            Some(c) if w.cause_ns <= end && (c as usize) < n && used.insert(k) => {
                // A cause before the wait's end (a clock that runs ahead) leaves the rest of the waiting on
                // the waiting location, so that the segments still tile.
                push(location, w.cause_ns, end);
                location = LocationId(c);
                t = w.cause_ns;
            }
            _ => {
                push(location, w.start_ns, end);
                t = w.start_ns;
            }
        }
    }
    back.reverse();
    let length_ns = back.iter().map(PathSegment::ns).sum();
    Ok(CriticalPath { segments: back, length_ns })
}

/// `weft critical-path --json`: the path summed by region, by location and as imbalance.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PathReport {
    /// The path's length: the trace's span.
    pub length_ns: u64,
    /// Time on the path by the innermost region open there (by name; [`NO_REGION`] outside any), by ns
    /// descending, then name; regions with no time on the path left out.
    pub by_region: Vec<NamedNs>,
    /// Time on the path per location, indexed by `LocationId` (the order of `weft moments --json`).
    pub by_location: Vec<u64>,
    /// Critical-path imbalance: per region name, its time on the path minus its mean exclusive time per
    /// location (over the locations with intervals), where positive; by ns descending, then name.
    pub imbalance: Vec<NamedNs>,
}

/// One location's time cut into pieces as its intervals come in the model's order (by start, parents first),
/// each piece under its innermost open region (`None`: no region open), covering `[0, until]` without gaps
/// or overlaps, in time order. Fed from a trace's intervals or a store's tiles, so both cut alike.
#[derive(Default)]
pub struct InnermostPieces {
    /// Open intervals (end, region) with the time their exclusive time has been cut up to.
    stack: Vec<(u64, u32, u64)>,
    outside: u64,
}

impl InnermostPieces {
    fn piece(out: &mut impl FnMut(u64, u64, Option<u32>), a: u64, b: u64, r: Option<u32>) {
        if a < b {
            out(a, b, r);
        }
    }

    fn close(&mut self, out: &mut impl FnMut(u64, u64, Option<u32>)) {
        if let Some((end, region, from)) = self.stack.pop() {
            let end = end.max(from);
            Self::piece(out, from, end, Some(region));
            match self.stack.last_mut() {
                Some((_, _, f)) => *f = (*f).max(end),
                None => self.outside = self.outside.max(end),
            }
        }
    }

    /// The next interval: `[start, end]` at `depth` in `region`; the pieces it ends to `out`.
    pub fn push(&mut self, start: u64, end: u64, depth: u16, region: u32, out: &mut impl FnMut(u64, u64, Option<u32>)) {
        let (s, d) = (start, depth as usize);
        // Close what ends before this interval starts, and anything at its depth or deeper.
        while let Some(&(e, _, _)) = self.stack.last() {
            if self.stack.len() > d || e <= s {
                self.close(out);
            } else {
                break;
            }
        }
        match self.stack.last_mut() {
            Some((_, r, from)) => {
                let to = s.max(*from);
                let (f, r) = (*from, *r);
                *from = to;
                Self::piece(out, f, to, Some(r));
            }
            None => {
                let to = s.max(self.outside);
                Self::piece(out, self.outside, to, None);
                self.outside = to;
            }
        }
        let from = match self.stack.last() {
            Some(&(_, _, f)) => f,
            None => self.outside,
        };
        self.stack.push((end, region, from.max(s)));
    }

    /// The last pieces, up to `until`.
    pub fn finish(mut self, until: u64, out: &mut impl FnMut(u64, u64, Option<u32>)) {
        while !self.stack.is_empty() {
            self.close(out);
        }
        Self::piece(out, self.outside, until.max(self.outside), None);
    }
}

/// The sums behind a [`PathReport`], location by location: each region's time on the path and its exclusive
/// time over the locations with intervals (slot `regions` is [`NO_REGION`]).
pub struct PathSums {
    regions: usize,
    on_path: Vec<u64>,
    exclusive: Vec<u64>,
    with_intervals: u64,
}

impl PathSums {
    pub fn new(regions: usize) -> PathSums {
        PathSums { regions, on_path: vec![0; regions + 1], exclusive: vec![0; regions + 1], with_intervals: 0 }
    }

    /// A location is summed (call once per location that has intervals or segments, before its pieces).
    pub fn location(&mut self, has_intervals: bool) {
        self.with_intervals += has_intervals as u64;
    }

    /// A piece `[a, b]` of a location under `region`, its `segments` (the path's on it, in time order).
    pub fn piece(&mut self, has_intervals: bool, segments: &[PathSegment], a: u64, b: u64, region: Option<u32>) {
        let slot = region.map_or(self.regions, |r| (r as usize).min(self.regions));
        if has_intervals {
            self.exclusive[slot] += b - a;
        }
        let first = segments.partition_point(|s| s.end_ns <= a);
        for s in segments[first..].iter().take_while(|s| s.start_ns < b) {
            self.on_path[slot] += b.min(s.end_ns) - a.max(s.start_ns);
        }
    }

    /// The report: `name` of each region id; `by_location` and `length_ns` the path's.
    pub fn report<'n>(&self, name: impl Fn(u32) -> &'n str, by_location: Vec<u64>, length_ns: u64) -> PathReport {
        let name = |k: usize| if k == self.regions { NO_REGION } else { name(k as u32) };
        let mut path_by_name = std::collections::BTreeMap::new();
        let mut total_by_name = std::collections::BTreeMap::new();
        for k in 0..=self.regions {
            *path_by_name.entry(name(k)).or_insert(0u64) += self.on_path[k];
            *total_by_name.entry(name(k)).or_insert(0u64) += self.exclusive[k];
        }
        let with_intervals = self.with_intervals.max(1) as u128;
        let imbalance = path_by_name
            .iter()
            .map(|(&name, &ns)| {
                // ns - total / locations, where positive, in exact integers (floored).
                let total = total_by_name.get(name).copied().unwrap_or(0) as u128;
                let scaled = (ns as u128 * with_intervals).saturating_sub(total);
                (name, (scaled / with_intervals) as u64)
            })
            .collect();
        PathReport { length_ns, by_region: ranked(path_by_name), by_location, imbalance: ranked(imbalance) }
    }
}

/// Each location's segments of `path` (in time order), indexed by location, and its time on the path.
pub fn segments_by_location(path: &CriticalPath, n: usize) -> (Vec<Vec<PathSegment>>, Vec<u64>) {
    let mut by_location = vec![0u64; n];
    let mut segments_of: Vec<Vec<PathSegment>> = vec![Vec::new(); n];
    for s in &path.segments {
        if let Some(x) = by_location.get_mut(s.location.index()) {
            *x += s.ns();
            segments_of[s.location.index()].push(*s);
        }
    }
    (segments_of, by_location)
}

/// Sorted by ns descending, then name.
fn ranked(map: std::collections::BTreeMap<&str, u64>) -> Vec<NamedNs> {
    let mut v: Vec<NamedNs> =
        map.into_iter().filter(|&(_, ns)| ns > 0).map(|(name, ns)| NamedNs { name: name.to_string(), ns }).collect();
    v.sort_by(|a, b| b.ns.cmp(&a.ns).then_with(|| a.name.cmp(&b.name)));
    v
}

/// The path summed by region, by location and as imbalance (the module's text).
pub fn path_report(trace: &Trace, path: &CriticalPath) -> PathReport {
    let n = trace.locations.len();
    let (segments_of, by_location) = segments_by_location(path, n);
    let mut sums = PathSums::new(trace.regions.len());
    let iv = &trace.intervals;
    for (l, segments) in segments_of.iter().enumerate() {
        let location = LocationId(l as u32);
        let has_intervals = !trace.intervals_of(location).is_empty();
        if !has_intervals && segments.is_empty() {
            continue;
        }
        sums.location(has_intervals);
        let mut out = |a, b, r| sums.piece(has_intervals, segments, a, b, r);
        let mut pieces = InnermostPieces::default();
        for i in trace.intervals_of(location) {
            pieces.push(iv.start_ns[i], iv.end_ns(i), iv.depth[i], iv.region[i].0, &mut out);
        }
        pieces.finish(trace.span_ns, &mut out);
    }
    sums.report(|r| trace.region_name(weft_model::RegionId(r)), by_location, path.length_ns)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnosis::waits::{Pattern, Wait};
    use weft_model::{Format, LocationKind, TraceBuilder};
    use weft_samples::rng::XorShift;

    /// Every segment non-empty, in time order, touching the next, from 0 to the span.
    fn assert_tiles(t: &Trace, p: &CriticalPath) {
        assert_eq!(p.length_ns, t.span_ns, "the path's length is the span");
        let mut at = 0;
        for s in &p.segments {
            assert_eq!(s.start_ns, at, "segments touch: {:?}", p.segments);
            assert!(s.end_ns > s.start_ns);
            at = s.end_ns;
        }
        assert_eq!(at, t.span_ns);
        for w in p.segments.windows(2) {
            assert_ne!(w[0].location, w[1].location, "adjacent segments of one location are merged");
        }
    }

    fn seg(l: u32, a: u64, b: u64) -> PathSegment {
        PathSegment { location: LocationId(l), start_ns: a, end_ns: b }
    }

    fn named(v: &[(&str, u64)]) -> Vec<NamedNs> {
        v.iter().map(|&(name, ns)| NamedNs { name: name.into(), ns }).collect()
    }

    /// Rank 0: main [0,100] with compute [0,60], MPI_Send [60,62]. Rank 1: main [0,110] with compute [0,20],
    /// MPI_Recv [20,70] (late sender: waits [20,60] for rank 0's send at 60), post [70,110].
    fn late_sender() -> (Trace, WaitStates) {
        let mut b = TraceBuilder::new(Format::Generated);
        let (p0, p1) = (b.process(0), b.process(1));
        let (l0, l1) = (b.location(p0, 0, LocationKind::CpuThread), b.location(p1, 0, LocationKind::CpuThread));
        let main = b.region("main", "");
        let compute = b.region("compute", "");
        let send = b.region("MPI_Send", "");
        let recv = b.region("MPI_Recv", "");
        let post = b.region("post", "");
        b.interval(l0, main, 0, 100);
        b.interval(l0, compute, 0, 60);
        b.interval(l0, send, 60, 2);
        b.interval(l1, main, 0, 110);
        b.interval(l1, compute, 0, 20);
        b.interval(l1, recv, 20, 50);
        b.interval(l1, post, 70, 40);
        let t = b.finish();
        let call = t.intervals_of(l1).find(|&i| t.intervals.region[i] == recv).expect("the receive");
        let w = Wait {
            pattern: Pattern::LateSender,
            location: l1,
            call,
            start_ns: 20,
            end_ns: 60,
            cause_location: Some(l0),
            cause_ns: 60,
        };
        (t, WaitStates { waits: vec![w] })
    }

    #[test]
    fn the_path_jumps_from_the_end_of_a_late_senders_wait_to_the_sender() {
        let (t, states) = late_sender();
        let p = critical_path(&t, &states);
        assert_tiles(&t, &p);
        assert_eq!(p.segments, [seg(0, 0, 60), seg(1, 60, 110)]);
        let r = path_report(&t, &p);
        assert_eq!(r.length_ns, 110);
        assert_eq!(r.by_location, [60, 50]);
        assert_eq!(r.by_region, named(&[("compute", 60), ("post", 40), ("MPI_Recv", 10)]));
        // Means over the two locations: compute (60 + 20) / 2 = 40, post 40 / 2 = 20, MPI_Recv 50 / 2 = 25.
        assert_eq!(r.imbalance, named(&[("compute", 20), ("post", 20)]));
        // Without the wait the path stays on the location of the last event.
        let p = critical_path(&t, &WaitStates::default());
        assert_eq!(p.segments, [seg(1, 0, 110)]);
    }

    #[test]
    fn time_outside_any_region_is_named_as_such_and_the_last_event_may_be_a_gap() {
        let (mut t, states) = late_sender();
        // A span beyond every location's last event (a counter sample at 130, say).
        t.span_ns = 130;
        let p = critical_path(&t, &states);
        assert_tiles(&t, &p);
        assert_eq!(p.segments, [seg(0, 0, 60), seg(1, 60, 130)]);
        let r = path_report(&t, &p);
        assert_eq!(r.by_region[..2], named(&[("compute", 60), ("post", 40)]));
        assert!(r.by_region.contains(&NamedNs { name: NO_REGION.into(), ns: 20 }), "{:?}", r.by_region);
    }

    #[test]
    fn jumps_that_would_go_forward_in_time_or_round_a_cycle_are_refused() {
        let (t, mut states) = late_sender();
        // A cause after the wait's end (clocks that disagree): no jump, the walk goes through the waiting part.
        states.waits[0].cause_ns = 65;
        let p = critical_path(&t, &states);
        assert_tiles(&t, &p);
        assert_eq!(p.segments, [seg(1, 0, 110)]);
        // Two waits that name each other as the cause at the same time: one jump each, then on.
        let (t, mut states) = late_sender();
        let call0 = t.intervals_of(LocationId(0)).find(|&i| t.region_name(t.intervals.region[i]) == "MPI_Send");
        states.waits.insert(
            0,
            Wait {
                pattern: Pattern::LateReceiver,
                location: LocationId(0),
                call: call0.expect("send"),
                start_ns: 60,
                end_ns: 62,
                cause_location: Some(LocationId(1)),
                cause_ns: 60,
            },
        );
        states.waits[1].cause_ns = 60;
        states.waits[1].end_ns = 60;
        let p = critical_path(&t, &states);
        assert_tiles(&t, &p);
        // A cause before the wait's end: the rest of the waiting stays on the waiting location.
        let (t, mut states) = late_sender();
        states.waits[0].cause_ns = 50;
        let p = critical_path(&t, &states);
        assert_tiles(&t, &p);
        assert_eq!(p.segments, [seg(0, 0, 50), seg(1, 50, 110)]);
    }

    /// Random locations, intervals and waits with causes anywhere (before, after, on the same location): the
    /// walk ends, its time never increases, and its segments tile the span.
    #[test]
    fn the_path_tiles_the_span_whatever_the_waits() {
        let mut rng = XorShift(0x5eed_cafe);
        for _ in 0..300 {
            let mut b = TraceBuilder::new(Format::Generated);
            let n = rng.range(1, 5) as u32;
            let p = b.process(0);
            let locations: Vec<LocationId> = (0..n).map(|k| b.location(p, k as i64, LocationKind::CpuThread)).collect();
            let r = b.region("r", "");
            for &l in &locations {
                let mut at = rng.below(20);
                for _ in 0..rng.range(0, 6) {
                    let d = rng.range(0, 40);
                    b.interval(l, r, at as i64, d);
                    at += d + rng.below(10);
                }
            }
            let t = b.finish();
            let mut waits = Vec::new();
            for _ in 0..rng.below(12) {
                let location = locations[rng.below(n as u64) as usize];
                let start_ns = rng.below(t.span_ns + 1);
                let end_ns = start_ns + rng.below(40);
                let cause = locations[rng.below(n as u64) as usize];
                let cause_ns = rng.below(t.span_ns + 20);
                waits.push(Wait {
                    pattern: Pattern::LateSender,
                    location,
                    call: 0,
                    start_ns,
                    end_ns,
                    cause_location: (rng.below(5) > 0).then_some(cause),
                    cause_ns,
                });
            }
            waits.sort_by_key(|w| (w.location, w.start_ns));
            let states = WaitStates { waits };
            let path = critical_path(&t, &states);
            assert_tiles(&t, &path);
            let report = path_report(&t, &path);
            assert_eq!(report.by_region.iter().map(|r| r.ns).sum::<u64>(), t.span_ns);
            assert_eq!(report.by_location.iter().sum::<u64>(), t.span_ns);
        }
    }
}
