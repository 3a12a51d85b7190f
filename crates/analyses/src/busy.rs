//! Busy time per location, the input of the moment analysis (issue 4): which stretches of a location's time
//! count as "busy" under the definition in force, as sorted, disjoint, non-touching intervals.
//!
//! Busy = union of the intervals of the *included* regions minus the time whose *innermost* open interval is
//! of an *excluded* region. The default (`Compute`) includes every region and excludes communication and
//! synchronization, so the innermost open region decides at each instant: an OpenMP task run inside a
//! `taskwait` (or any compute region nested in a wait) is busy, the wait's own exclusive time is not, and an
//! MPI call inside the task is not again. `Any` excludes nothing; `Pattern` includes only regions whose name
//! matches a glob (with the time nested in them). One linear sweep per location after the model's sort
//! (intervals are sorted by start, then depth, within a location, and nest), with scratch buffers reused
//! across locations; or a chunk of a location's intervals at a time ([`BusySweep`]), handing out each busy
//! interval once no later interval can change it. Every busy figure (the moments, the moments view, a store's
//! pyramid and moments tiles, `weft moments`) comes from this sweep. This module must not compute moments or
//! draw; it never allocates per interval.

use weft_model::{LocationId, RegionId, Trace};

/// Which time of a location counts as busy.
#[derive(Clone, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub enum BusyDefinition {
    /// Time in any region minus time in communication and synchronization regions.
    #[default]
    Compute,
    /// Time in any region.
    Any,
    /// Time in regions whose name matches a glob (`*` any run of characters, `?` one character).
    Pattern(String),
    /// Time in wait states (issue #53, `diagnosis::waits`): the waiting part of each call by the patterns of
    /// docs/diagnosis.md, not the whole call; the moments then say when and how unevenly each location waits.
    Waiting,
}

impl BusyDefinition {
    /// A short name for tables and legends: `compute`, `any`, or `pattern 'GLOB'`.
    pub fn short_name(&self) -> String {
        match self {
            BusyDefinition::Compute => "compute".to_string(),
            BusyDefinition::Any => "any".to_string(),
            BusyDefinition::Pattern(p) => format!("pattern '{p}'"),
            BusyDefinition::Waiting => "waiting".to_string(),
        }
    }

    /// The definition in force, in words, for the view and the CLI.
    pub fn describe(&self) -> String {
        match self {
            BusyDefinition::Compute => "busy = time inside any region whose innermost open region is not \
                 communication or synchronization (MPI calls; OpenMP barriers, taskwait and waits; pthread join, \
                 wait, cond and mutex; GPU synchronization and NCCL calls; OS-runtime blocking calls such as poll, \
                 futex or sleeps): a task run inside a taskwait is busy"
                .to_string(),
            BusyDefinition::Any => "busy = time inside any region".to_string(),
            BusyDefinition::Pattern(p) => format!("busy = time inside regions whose name matches '{p}'"),
            BusyDefinition::Waiting => "busy = time in wait states: the waiting part of each MPI call (late sender, \
                 late receiver, wait at barrier or N x N, late broadcast, early reduce; docs/diagnosis.md)"
                .to_string(),
        }
    }

    /// What to try when the definition finds no busy time at all, in words (the views show it).
    pub fn empty_hint(&self) -> String {
        match self {
            BusyDefinition::Compute => "Every region is communication or synchronization here: count \"any region\" \
                 as busy to see where the time goes."
                .to_string(),
            BusyDefinition::Any => "No location spends time inside a region.".to_string(),
            BusyDefinition::Pattern(p) => {
                format!("No region whose name matches '{p}' takes time: try another pattern, or \"any region\".")
            }
            BusyDefinition::Waiting => "No location waits: no call here waits for another location.".to_string(),
        }
    }
}

pub use crate::wait_regions::{is_communication_or_sync, is_os_runtime_wait, is_wait_region, OS_RUNTIME};

/// Every location's wait states (`diagnosis::waits::wait_states`) as busy intervals under
/// [`BusyDefinition::Waiting`]: per location the union of its waits, sorted, disjoint, non-touching.
fn waiting(trace: &Trace) -> BusyIntervals {
    let states = crate::diagnosis::waits::wait_states(trace);
    let n = trace.locations.len();
    let mut per: Vec<Vec<BusyInterval>> = vec![Vec::new(); n];
    for w in &states.waits {
        if w.end_ns > w.start_ns {
            if let Some(v) = per.get_mut(w.location.index()) {
                v.push(BusyInterval { start_ns: w.start_ns, end_ns: w.end_ns });
            }
        }
    }
    let (mut ranges, mut spans) = (Vec::with_capacity(n), Vec::<BusyInterval>::new());
    for mut v in per {
        v.sort_unstable_by_key(|b| (b.start_ns, b.end_ns));
        let start = spans.len();
        for b in v {
            match spans[start..].last_mut() {
                Some(last) if b.start_ns <= last.end_ns => last.end_ns = last.end_ns.max(b.end_ns),
                _ => spans.push(b),
            }
        }
        ranges.push((start, spans.len()));
    }
    BusyIntervals { definition: BusyDefinition::Waiting, ranges, spans }
}

/// Glob match over characters: `*` matches any run (also empty), `?` exactly one character; all else literally.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    let (mut pi, mut ti) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || (p[pi] != '*' && p[pi] == t[ti])) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ti));
            pi += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

/// One busy stretch of a location, in ns relative to the trace's first event; `start_ns < end_ns`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct BusyInterval {
    pub start_ns: u64,
    pub end_ns: u64,
}

impl BusyInterval {
    pub fn len_ns(self) -> u64 {
        self.end_ns - self.start_ns
    }
}

const INCLUDE: u8 = 1;
const EXCLUDE: u8 = 2;

/// Classifies regions once under a definition and computes the busy intervals of one location at a time,
/// reusing its buffers.
pub struct BusyScanner {
    flags: Vec<u8>,
    /// Under [`BusyDefinition::Waiting`], each location's wait states as busy intervals (computed from the
    /// trace's messages and collectives, not from its regions' names: [`BusyScanner::spans`] has no waits).
    waits: Option<BusyIntervals>,
    /// Whether any region is excluded: only then does the sweep follow which interval is innermost.
    excludes: bool,
    sweep: BusySweep,
}

impl BusyScanner {
    /// Classify every region of `trace` once under `definition`.
    pub fn new(trace: &Trace, definition: &BusyDefinition) -> Self {
        let regions = &trace.regions;
        let flags = (0..regions.len())
            .map(|r| {
                let name = trace.str(regions.name[r]);
                match definition {
                    BusyDefinition::Any => INCLUDE,
                    BusyDefinition::Compute => {
                        if is_wait_region(trace, r) {
                            INCLUDE | EXCLUDE
                        } else {
                            INCLUDE
                        }
                    }
                    BusyDefinition::Pattern(p) => {
                        if glob_match(p, name) {
                            INCLUDE
                        } else {
                            0
                        }
                    }
                    BusyDefinition::Waiting => 0,
                }
            })
            .collect::<Vec<u8>>();
        let excludes = flags.iter().any(|&f| f & EXCLUDE != 0);
        let waits = (*definition == BusyDefinition::Waiting).then(|| waiting(trace));
        BusyScanner { flags, excludes, waits, sweep: BusySweep::default() }
    }

    /// Whether the definition is [`BusyDefinition::Waiting`], whose busy time is the trace's wait states: only
    /// [`location`](Self::location) gives it (a chunk of a location's columns holds no messages).
    pub fn is_waiting(&self) -> bool {
        self.waits.is_some()
    }

    /// Whether every region counts under the definition (`Compute` and `Any`; a pattern may leave regions
    /// out): then the union a [`BusySweep`] subtracts from is the [`BusyDefinition::Any`] busy time.
    pub fn counts_every_region(&self) -> bool {
        self.waits.is_none() && self.flags.iter().all(|&f| f & INCLUDE != 0)
    }

    /// The busy intervals of `location`, written into `out` (cleared first): sorted, disjoint, non-touching.
    pub fn location(&mut self, trace: &Trace, location: LocationId, out: &mut Vec<BusyInterval>) {
        if let Some(w) = &self.waits {
            out.clear();
            out.extend_from_slice(w.of(location));
            return;
        }
        let iv = &trace.intervals;
        match trace.location_intervals.get(location.index()) {
            Some(r) => self.spans(&iv.region[r.clone()], &iv.start_ns[r.clone()], &iv.dur_ns[r.clone()], out),
            None => out.clear(),
        }
    }

    /// [`location`](Self::location) for one location's intervals given as columns (in the model's order):
    /// a streamed index holds a block of locations, not a trace. One chunk through a [`BusySweep`].
    pub fn spans(&mut self, region: &[RegionId], start_ns: &[u64], dur_ns: &[u64], out: &mut Vec<BusyInterval>) {
        out.clear();
        self.sweep.push(&self.flags, self.excludes, region, start_ns, dur_ns);
        self.sweep.finish(out, None);
    }

    /// [`spans`](Self::spans) of a [`BusyDefinition::Compute`] scanner into `out`, and the
    /// [`BusyDefinition::Any`] spans of the same intervals into `any`, in one walk: every region counts under
    /// `Any`, so its spans are the union `Compute` subtracts communication from (a store's summary pass
    /// wants both). False, with nothing written, for a scanner that leaves regions out
    /// ([`counts_every_region`](Self::counts_every_region)).
    pub fn compute_and_any(
        &mut self,
        region: &[RegionId],
        start_ns: &[u64],
        dur_ns: &[u64],
        out: &mut Vec<BusyInterval>,
        any: &mut Vec<BusyInterval>,
    ) -> bool {
        if !self.counts_every_region() {
            return false;
        }
        out.clear();
        any.clear();
        self.sweep.push(&self.flags, self.excludes, region, start_ns, dur_ns);
        self.sweep.finish(out, Some(any));
        true
    }

    /// Add the next chunk of a location's intervals (columns in the model's order; each chunk starts at or
    /// after the last start of the one before) to `sweep`, classified by this scanner.
    pub fn push(&self, sweep: &mut BusySweep, region: &[RegionId], start_ns: &[u64], dur_ns: &[u64]) {
        sweep.push(&self.flags, self.excludes, region, start_ns, dur_ns);
    }
}

/// One location's busy intervals computed from its intervals a chunk at a time, in the model's order (a
/// location tiled by time range is read a range at a time): the included and excluded unions grown so far,
/// less what has been handed out. [`BusyScanner::push`] adds a chunk; [`take_final`](Self::take_final)
/// hands out the busy intervals no later interval can change, [`finish`](Self::finish) the rest. Handed out
/// in order, they are exactly [`BusyScanner::spans`] of the whole location (and, with `any`, the spans of
/// [`BusyScanner::compute_and_any`]), whatever the chunks.
///
/// It holds the spans still open, not the location's: included spans reaching the last boundary given, what
/// of the first of them is not yet cut, the excluded spans that may still cut them (one `main` around a
/// location's MPI calls keeps the last MPI call, not every one), and the intervals open at the last start
/// (as deep as the location's nesting).
///
/// The excluded spans are the time whose innermost open interval is of an excluded region: a stack of the
/// open intervals (their ends, and whether excluded) is unwound up to each start, the top deciding each
/// stretch, so what lies before the last start given is settled.
#[derive(Default)]
pub struct BusySweep {
    /// The included union's spans not yet handed out (the first perhaps in part: see `done_ns`).
    included: Vec<BusyInterval>,
    /// The excluded spans that may still cut an included span, and always the last one (it may grow).
    excluded: Vec<BusyInterval>,
    /// Where the busy intervals handed out of the first included span end (0 when none has been).
    done_ns: u64,
    /// The intervals open at `settled_ns`, outermost first: (end, excluded).
    open: Vec<(u64, bool)>,
    /// Up to where the excluded spans are settled.
    settled_ns: u64,
}

impl BusySweep {
    fn push(&mut self, flags: &[u8], excludes: bool, region: &[RegionId], start_ns: &[u64], dur_ns: &[u64]) {
        for ((r, &start), &dur) in region.iter().zip(start_ns).zip(dur_ns) {
            let f = flags.get(r.index()).copied().unwrap_or(0);
            if dur == 0 || (f == 0 && !excludes) {
                continue;
            }
            let span = BusyInterval { start_ns: start, end_ns: start.saturating_add(dur) };
            if f & INCLUDE != 0 {
                push_union(&mut self.included, span);
            }
            if excludes {
                self.settle(start);
                // A child never outlasts its parent in the model; were it to, the parent's end bounds it.
                let end = self.open.last().map_or(span.end_ns, |&(e, _)| e.min(span.end_ns));
                self.open.push((end, f & EXCLUDE != 0));
            }
        }
    }

    /// Settle the excluded spans up to `to_ns` (no later interval starts before it, and `to_ns` is at or
    /// after `settled_ns`): each stretch goes by the innermost interval open over it. The open ends do not
    /// grow towards the top (children end within their parents) and none is before `settled_ns` (each was
    /// pushed at a start at or after it).
    #[inline]
    fn settle(&mut self, to_ns: u64) {
        while let Some(&(end, excluded)) = self.open.last() {
            if end > to_ns {
                if excluded && self.settled_ns < to_ns {
                    push_union(&mut self.excluded, BusyInterval { start_ns: self.settled_ns, end_ns: to_ns });
                }
                break;
            }
            if excluded && self.settled_ns < end {
                push_union(&mut self.excluded, BusyInterval { start_ns: self.settled_ns, end_ns: end });
            }
            self.settled_ns = end;
            self.open.pop();
        }
        self.settled_ns = self.settled_ns.max(to_ns);
    }

    /// Hand out, appended to `out`, the busy intervals that no interval starting at or after `before_ns` can
    /// change, when every interval pushed later does (the next chunk's first start is such a bound); with
    /// `any`, also the included spans that are final, appended to it (for a scanner that
    /// [counts every region](BusyScanner::counts_every_region), the `Any` busy intervals).
    ///
    /// An included span ending before `before_ns` is final: a later interval would have to start at or
    /// before its end to grow it (`push_union` merges a span that starts exactly at the end, so one ending
    /// at `before_ns` is not). Its subtraction is final too: only the last excluded span can grow, and
    /// then from an end past `before_ns`. Of the first included span still open, the stretches before each
    /// excluded span inside it but the last are final as well (they end where an excluded span starts).
    pub fn take_final(&mut self, before_ns: u64, out: &mut Vec<BusyInterval>, any: Option<&mut Vec<BusyInterval>>) {
        self.settle(before_ns);
        let finals = self.included.partition_point(|s| s.end_ns < before_ns);
        if finals > 0 {
            subtract(&self.included[..finals], self.done_ns, &self.excluded, out);
            if let Some(any) = any {
                subtract(&self.included[..finals], 0, &[], any);
            }
            self.included.drain(..finals);
            self.done_ns = 0;
        }
        // Every excluded span but the last ends before the last one starts, at or before any later start.
        let last = self.excluded.len().saturating_sub(1);
        let Some(&open) = self.included.first() else {
            self.excluded.drain(..last);
            return;
        };
        let from = open.start_ns.max(self.done_ns);
        let passed = self.excluded[..last].partition_point(|x| x.end_ns <= from);
        let inside = self.excluded[..last].partition_point(|x| x.end_ns < open.end_ns);
        if inside > passed {
            // Cut up to the end of the last excluded span settled inside: the loop then ends on it.
            let to = self.excluded[inside - 1].end_ns;
            subtract(&[BusyInterval { start_ns: from, end_ns: to }], 0, &self.excluded[passed..inside], out);
            self.done_ns = to;
        }
        self.excluded.drain(..inside.max(passed));
    }

    /// Hand out the rest (appended to `out`, and with `any` the included spans to it, as
    /// [`take_final`](Self::take_final)) and start over, empty, for another location.
    pub fn finish(&mut self, out: &mut Vec<BusyInterval>, any: Option<&mut Vec<BusyInterval>>) {
        self.settle(u64::MAX);
        subtract(&self.included, self.done_ns, &self.excluded, out);
        if let Some(any) = any {
            subtract(&self.included, 0, &[], any);
        }
        self.included.clear();
        self.excluded.clear();
        self.done_ns = 0;
        self.open.clear();
        self.settled_ns = 0;
    }
}

/// Add `span` to a union being built from spans sorted by start.
#[inline]
fn push_union(union: &mut Vec<BusyInterval>, span: BusyInterval) {
    if let Some(last) = union.last_mut() {
        if span.start_ns <= last.end_ns {
            last.end_ns = last.end_ns.max(span.end_ns);
            return;
        }
    }
    union.push(span);
}

/// `out += inc \ exc`, both sorted, disjoint and non-touching, with the first span of `inc` taken from
/// `from_ns` on (what of it lies before is out already; `from_ns` is below its end); one merge pass.
fn subtract(inc: &[BusyInterval], from_ns: u64, exc: &[BusyInterval], out: &mut Vec<BusyInterval>) {
    let mut j = 0;
    for &s in inc {
        let mut cur = s.start_ns.max(from_ns);
        while j < exc.len() && exc[j].end_ns <= cur {
            j += 1;
        }
        let mut k = j;
        while k < exc.len() && exc[k].start_ns < s.end_ns {
            if exc[k].start_ns > cur {
                out.push(BusyInterval { start_ns: cur, end_ns: exc[k].start_ns });
            }
            cur = cur.max(exc[k].end_ns);
            if cur >= s.end_ns {
                break;
            }
            k += 1;
        }
        if cur < s.end_ns {
            out.push(BusyInterval { start_ns: cur, end_ns: s.end_ns });
        }
        j = k;
    }
}

/// The busy intervals of every location of a trace, in one array with a range per location. The array can be
/// laid out in display order ([`BusyIntervals::arrange`]) so that drawing rows top to bottom reads memory in order.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct BusyIntervals {
    pub definition: BusyDefinition,
    /// Per location, its (start, end) in `spans`.
    ranges: Vec<(usize, usize)>,
    spans: Vec<BusyInterval>,
}

impl BusyIntervals {
    pub fn compute(trace: &Trace, definition: &BusyDefinition) -> Self {
        let mut scanner = BusyScanner::new(trace, definition);
        let mut ranges = Vec::with_capacity(trace.locations.len());
        let mut spans = Vec::new();
        let mut scratch = Vec::new();
        for l in 0..trace.locations.len() {
            scanner.location(trace, LocationId(l as u32), &mut scratch);
            let start = spans.len();
            spans.extend_from_slice(&scratch);
            ranges.push((start, spans.len()));
        }
        BusyIntervals { definition: definition.clone(), ranges, spans }
    }

    pub fn location_count(&self) -> usize {
        self.ranges.len()
    }

    /// The intervals as columns, for a bundle crossing to the page (`analyses::moments_bundle`): per
    /// location its `[start, end)` in the second, and every interval as `[start_ns, end_ns]`.
    pub fn columns(&self) -> (Vec<[u64; 2]>, Vec<[u64; 2]>) {
        let ranges = self.ranges.iter().map(|&(a, b)| [a as u64, b as u64]).collect();
        (ranges, self.spans.iter().map(|s| [s.start_ns, s.end_ns]).collect())
    }

    /// Intervals from [`BusyIntervals::columns`] that crossed from elsewhere: check them
    /// ([`BusyIntervals::check`]) before use. A range beyond the platform's addresses is refused.
    pub fn from_columns(definition: BusyDefinition, ranges: &[[u64; 2]], spans: &[[u64; 2]]) -> Result<Self, String> {
        let ranges = ranges
            .iter()
            .map(|&[a, b]| Some((usize::try_from(a).ok()?, usize::try_from(b).ok()?)))
            .collect::<Option<Vec<_>>>()
            .ok_or("a busy interval range beyond this platform's addresses")?;
        let spans = spans.iter().map(|&[start_ns, end_ns]| BusyInterval { start_ns, end_ns }).collect();
        Ok(BusyIntervals { definition, ranges, spans })
    }

    /// The busy intervals of location `l` (empty for an unknown location).
    pub fn of(&self, l: LocationId) -> &[BusyInterval] {
        match self.ranges.get(l.index()) {
            Some(&(a, b)) => &self.spans[a..b],
            None => &[],
        }
    }

    /// Lay the intervals out in `order` (locations not in it follow, in index order). What is stored per
    /// location does not change; only where: views that walk rows in this order then read memory sequentially.
    pub fn arrange(&mut self, order: impl IntoIterator<Item = LocationId>) {
        let mut spans = Vec::with_capacity(self.spans.len());
        let mut ranges = vec![(0usize, 0usize); self.ranges.len()];
        let mut placed = vec![false; self.ranges.len()];
        let listed = order.into_iter().filter(|l| l.index() < self.ranges.len());
        for l in listed.chain((0..self.ranges.len() as u32).map(LocationId)) {
            if std::mem::replace(&mut placed[l.index()], true) {
                continue;
            }
            let start = spans.len();
            spans.extend_from_slice(self.of(l));
            ranges[l.index()] = (start, spans.len());
        }
        self.spans = spans;
        self.ranges = ranges;
    }

    /// Total busy time of location `l`.
    pub fn busy_ns(&self, l: LocationId) -> u64 {
        self.of(l).iter().map(|s| s.len_ns()).sum()
    }

    /// Busy intervals over all locations.
    pub fn total_spans(&self) -> usize {
        self.spans.len()
    }

    /// Whether intervals that crossed from elsewhere (decoded bytes) hold what [`BusyIntervals::compute`]
    /// guarantees, for a trace of `locations` locations: a range per location within the array, each
    /// location's intervals sorted, disjoint and non-empty. Err says what does not hold.
    pub fn check(&self, locations: usize) -> Result<(), String> {
        if self.ranges.len() != locations {
            return Err(format!("busy intervals for {} locations, the trace has {locations}", self.ranges.len()));
        }
        for (l, &(a, b)) in self.ranges.iter().enumerate() {
            let spans = self.spans.get(a..b).ok_or(format!("location {l}'s busy intervals run past the array"))?;
            let mut end = 0;
            for (k, s) in spans.iter().enumerate() {
                if s.start_ns >= s.end_ns || (k > 0 && s.start_ns <= end) {
                    return Err(format!("location {l}'s busy intervals are not sorted, disjoint and non-empty"));
                }
                end = s.end_ns;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(start_ns: u64, end_ns: u64) -> BusyInterval {
        BusyInterval { start_ns, end_ns }
    }

    #[test]
    fn glob_matches_star_and_question_mark() {
        assert!(glob_match("MPI_*", "MPI_Send"));
        assert!(glob_match("*send*", "MPI_Isend"));
        assert!(!glob_match("*send*", "MPI_Recv"));
        assert!(glob_match("comp?te", "compute"));
        assert!(!glob_match("comp?te", "compte"));
        assert!(glob_match("*", ""));
        assert!(glob_match("a*b*c", "axxbyyc"));
        assert!(!glob_match("a*b*c", "axxbyy"));
        assert!(glob_match("solve", "solve"));
        assert!(!glob_match("solve", "solver"));
    }

    #[test]
    fn communication_recognised_by_role_paradigm_and_name() {
        use weft_model::Paradigm as P;
        use weft_model::RegionRole as R;
        assert!(is_communication_or_sync("MPI_Send", P::Mpi, R::PointToPoint));
        assert!(is_communication_or_sync("MPI_Comm_rank", P::Mpi, R::Function));
        assert!(is_communication_or_sync("mpi_allreduce_", P::User, R::Function));
        assert!(is_communication_or_sync("!$omp barrier", P::OpenMp, R::Barrier));
        assert!(is_communication_or_sync("anything", P::User, R::ImplicitBarrier));
        assert!(is_communication_or_sync("omp_set_lock", P::Unknown, R::Function));
        assert!(is_communication_or_sync("pthread_join", P::Pthread, R::Function));
        assert!(is_communication_or_sync("pthread_cond_wait", P::User, R::Function));
        assert!(is_communication_or_sync("pthread_mutex_lock", P::User, R::Function));
        assert!(is_communication_or_sync("cudaDeviceSynchronize", P::Cuda, R::Function));
        assert!(is_communication_or_sync("cudaStreamSynchronize", P::User, R::Function));
        assert!(is_communication_or_sync("ncclAllReduce", P::Gpu, R::Function));
        assert!(!is_communication_or_sync("cudaLaunchKernel", P::Cuda, R::Function));
        assert!(!is_communication_or_sync("!$omp parallel", P::OpenMp, R::Parallel));
        assert!(!is_communication_or_sync("pthread_create", P::Pthread, R::Function));
        assert!(!is_communication_or_sync("solve", P::User, R::Function));
        assert!(!is_communication_or_sync("waitForInput", P::User, R::Function));
    }

    #[test]
    fn subtraction_cuts_holes_and_spans_several_includes() {
        let inc = [b(0, 10), b(20, 30), b(40, 50)];
        let exc = [b(5, 7), b(8, 22), b(29, 45), b(49, 60)];
        let mut out = Vec::new();
        subtract(&inc, 0, &exc, &mut out);
        assert_eq!(out, vec![b(0, 5), b(7, 8), b(22, 29), b(45, 49)]);
        out.clear();
        subtract(&inc, 0, &[], &mut out);
        assert_eq!(out, inc.to_vec());
        out.clear();
        subtract(&inc, 0, &[b(0, 100)], &mut out);
        assert!(out.is_empty());
    }

    #[test]
    fn arranging_keeps_every_locations_intervals() {
        let mut busy = BusyIntervals {
            definition: BusyDefinition::Any,
            ranges: vec![(0, 2), (2, 3), (3, 3), (3, 5)],
            spans: vec![b(0, 1), b(2, 3), b(5, 9), b(1, 4), b(6, 7)],
        };
        let before: Vec<Vec<BusyInterval>> = (0..4).map(|l| busy.of(LocationId(l)).to_vec()).collect();
        busy.arrange([LocationId(3), LocationId(1), LocationId(3), LocationId(9)]);
        let after: Vec<Vec<BusyInterval>> = (0..4).map(|l| busy.of(LocationId(l)).to_vec()).collect();
        assert_eq!(before, after);
        assert_eq!(busy.spans[..3], [b(1, 4), b(6, 7), b(5, 9)], "listed locations first, in order");
        assert_eq!(busy.total_spans(), 5);
    }

    #[test]
    fn a_sweep_in_chunks_hands_out_the_whole_location_s_spans() {
        use weft_samples::nesting::{chunkings, nesting_trace};
        let definitions = [BusyDefinition::Compute, BusyDefinition::Any, BusyDefinition::Pattern("MPI_*".into())];
        for seed in [1, 2, 3] {
            let t = nesting_trace(seed);
            let iv = &t.intervals;
            for definition in &definitions {
                let mut scanner = BusyScanner::new(&t, definition);
                for (l, r) in t.location_intervals.iter().enumerate() {
                    let (region, start, dur) = (&iv.region[r.clone()], &iv.start_ns[r.clone()], &iv.dur_ns[r.clone()]);
                    let (mut whole, mut whole_any) = (Vec::new(), Vec::new());
                    let both = scanner.compute_and_any(region, start, dur, &mut Vec::new(), &mut whole_any);
                    scanner.spans(region, start, dur, &mut whole);
                    for cuts in chunkings(r.len(), seed) {
                        let mut sweep = BusySweep::default();
                        let (mut out, mut any) = (Vec::new(), Vec::new());
                        for c in &cuts {
                            if let Some(&first) = start.get(c.start).filter(|_| !c.is_empty()) {
                                sweep.take_final(first, &mut out, Some(&mut any));
                                // Every start pushed is at or before the bound: what is held is what is open.
                                assert!(sweep.included.len() <= 1 && sweep.excluded.len() <= 2, "location {l}");
                            }
                            scanner.push(&mut sweep, &region[c.clone()], &start[c.clone()], &dur[c.clone()]);
                        }
                        sweep.finish(&mut out, Some(&mut any));
                        let n = cuts.iter().map(|c| c.len()).max();
                        assert_eq!(out, whole, "{definition:?}, location {l}, chunks of up to {n:?}");
                        if both {
                            assert_eq!(any, whole_any, "{definition:?}, location {l}, chunks of up to {n:?}");
                        }
                    }
                }
            }
            // The cases are there: communication cut out of compute, and cut out of one interval around it all.
            let mut scanner = BusyScanner::new(&t, &BusyDefinition::Compute);
            let (mut compute, mut any) = (Vec::new(), Vec::new());
            let r = t.location_intervals[3].clone();
            assert!(scanner.compute_and_any(
                &iv.region[r.clone()],
                &iv.start_ns[r.clone()],
                &iv.dur_ns[r],
                &mut compute,
                &mut any
            ));
            assert_eq!(any.len(), 1, "one main around the location");
            assert!(compute.len() > 100, "MPI calls cut the main");
        }
    }

    #[test]
    fn a_span_ending_at_the_bound_is_not_final() {
        // Region 0 counts, region 1 is excluded: [0, 10) with [2, 4) and [6, 7) out of it, then [10, 20)
        // touching it, then [25, 30) excluded whole.
        let mut sweep = BusySweep::default();
        let flags = [INCLUDE, INCLUDE | EXCLUDE];
        let (mut out, mut any) = (Vec::new(), Vec::new());
        sweep.push(&flags, true, &[RegionId(0), RegionId(1), RegionId(1)], &[0, 2, 6], &[10, 2, 1]);
        sweep.take_final(10, &mut out, Some(&mut any));
        assert_eq!((&out, &any), (&vec![b(0, 2)], &vec![]), "[0, 10) may grow: out only before the settled cut");
        sweep.push(&flags, true, &[RegionId(0)], &[10], &[10]);
        sweep.take_final(25, &mut out, Some(&mut any));
        assert_eq!((&out, &any), (&vec![b(0, 2), b(4, 6), b(7, 20)], &vec![b(0, 20)]));
        sweep.push(&flags, true, &[RegionId(1)], &[25], &[5]);
        sweep.finish(&mut out, Some(&mut any));
        assert_eq!((&out, &any), (&vec![b(0, 2), b(4, 6), b(7, 20)], &vec![b(0, 20), b(25, 30)]));
    }

    #[test]
    fn the_innermost_open_region_decides() {
        // Region 0 computes (a parallel region), 1 waits (a taskwait), 2 computes (a task), 3 waits (a lock):
        // [0, 100) parallel; [10, 60) taskwait holding tasks [15, 25) and [30, 50), the second holding a lock
        // [35, 40); then [70, 80) a task outside any wait, and [90, 100) a taskwait with nothing inside.
        let flags = [INCLUDE, INCLUDE | EXCLUDE, INCLUDE, INCLUDE | EXCLUDE];
        let region = [0, 1, 2, 2, 3, 2, 1].map(RegionId);
        let start = [0, 10, 15, 30, 35, 70, 90];
        let dur = [100, 50, 10, 20, 5, 10, 10];
        let want = vec![b(0, 10), b(15, 25), b(30, 35), b(40, 50), b(60, 90)];
        let mut whole = BusySweep::default();
        let mut out = Vec::new();
        whole.push(&flags, true, &region, &start, &dur);
        whole.finish(&mut out, None);
        assert_eq!(out, want, "a task in a wait is busy; the wait's own time and a wait in the task are not");
        // One interval at a time, each bound its start: the same.
        let mut sweep = BusySweep::default();
        out.clear();
        for k in 0..region.len() {
            sweep.take_final(start[k], &mut out, None);
            sweep.push(&flags, true, &region[k..k + 1], &start[k..k + 1], &dur[k..k + 1]);
        }
        sweep.finish(&mut out, None);
        assert_eq!(out, want);
        // A child and its parent over the same time: the child (innermost) decides, either way.
        for (parent, child, busy) in [(0u32, 1u32, vec![]), (1, 0, vec![b(5, 9)])] {
            let mut sweep = BusySweep::default();
            out.clear();
            sweep.push(&flags, true, &[RegionId(parent), RegionId(child)], &[5, 5], &[4, 4]);
            sweep.finish(&mut out, None);
            assert_eq!(out, busy, "{parent} around {child}");
        }
    }

    #[test]
    fn os_runtime_waits_are_the_blocking_calls_of_that_category() {
        for call in ["poll", "epoll_wait", "futex", "nanosleep", "sem_timedwait", "pthread_cond_wait", "__libc_recv"] {
            assert!(is_os_runtime_wait(call, OS_RUNTIME), "{call}");
            assert!(!is_os_runtime_wait(call, "CUDA runtime API"), "{call} of another category");
        }
        for call in ["read", "readv", "write", "ioctl", "open64", "mmap", "fopen", "polling"] {
            assert!(!is_os_runtime_wait(call, OS_RUNTIME), "{call}");
        }
    }

    #[test]
    fn union_merges_overlapping_and_touching() {
        let mut u = Vec::new();
        for s in [b(0, 5), b(2, 4), b(5, 8), b(10, 12), b(11, 20)] {
            push_union(&mut u, s);
        }
        assert_eq!(u, vec![b(0, 8), b(10, 20)]);
    }
}
