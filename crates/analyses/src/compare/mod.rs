//! Two runs compared (issue #54): what changed, where, and why. Run A is the reference, run B the other;
//! every delta is B minus A.
//!
//! Each side's figures are the single-run analyses of that run alone, called here and not computed again
//! another way: the region profile `weft info --json` prints (`profile::profile`, regions matched by name),
//! the moments `weft moments --json` prints (`moments::moments`, busy = compute), the communication matrix
//! by process (`comm_matrix::comm_matrix`), the wait states per pattern `weft waits --json` prints
//! (`diagnosis::waits::wait_report`). This module only pairs them up and subtracts.
//!
//! - **Alignment** ([`Align`]) sets each run's origin: its first event, or the start of a region's n-th
//!   instance (on each location, its n-th interval of that region by start; the earliest of those). With a
//!   window `T0:T1` each run is analysed over `[origin + T0, origin + T1]`, clipped to its end; without one,
//!   over `[origin, end]` (the whole run when aligned at the start: the analyses get no window at all, so the
//!   figures are `weft info`'s of the whole run).
//! - **Rank mapping** ([`RankMap`]) pairs locations (for the location rows) and processes (for the matrix),
//!   each in display order (`Trace::locations_in_display_order`): by index, by name ("process / location",
//!   or the process's name), or proportionally (ITAC's rule: the i-th of A to the floor(i |B| / |A|)-th of B).
//!   The matrix difference is in B's shape: A's cells summed into the cells of the processes they map to.
//!
//! [`side`] takes one run's figures alone (serialisable: a worker holding one run can send it), [`pair`] pairs
//! two sides, [`compare`] is both; [`calltree`] pairs the runs' call trees path by path (the differential
//! flame graph). Pure functions of the [`Trace`]s: must not read files, a clock, or know a
//! view; the CLI (`weft diff`, `weft render diff`) and a page show [`Comparison`], serialised as it is.

pub mod calltree;
mod summary;
mod tables;

pub use tables::{kept_totals, PathRegionDiff, WaitTotals, WaitsDiff};
pub use tables::{LocationDelta, LocationRow, LocationSide, MatrixDelta, MatrixDiff, PatternTotal, RegionDiff};

use super::comm_matrix::{comm_matrix, CommMatrix, MatrixUnit};
use super::moments::TimeWindow;
use super::profile::RegionProfile;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use thiserror::Error;
use weft_model::{LocationId, ProcessId, Trace};

/// Where each run's time starts for the comparison.
#[derive(Clone, Debug, PartialEq, Eq, Default, Serialize)]
#[serde(tag = "by", rename_all = "snake_case")]
pub enum Align {
    /// At each run's first event.
    #[default]
    Start,
    /// At the start of the `instance`-th (from 1) instance of the region named `name`.
    Region { name: String, instance: u32 },
}

impl Align {
    /// `start`, `region:NAME` or `region:NAME:N` (N from 1; a NAME may hold colons when N is given).
    pub fn parse(text: &str) -> Result<Align, CompareError> {
        let bad = || CompareError::AlignSyntax { text: text.to_string() };
        if text == "start" {
            return Ok(Align::Start);
        }
        let rest = text.strip_prefix("region:").ok_or_else(bad)?;
        let (name, instance) = match rest.rsplit_once(':') {
            Some((name, n)) if !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()) => {
                (name, n.parse::<u32>().map_err(|_| bad())?)
            }
            _ => (rest, 1),
        };
        if name.is_empty() || instance == 0 {
            return Err(bad());
        }
        Ok(Align::Region { name: name.to_string(), instance })
    }

    /// As [`parse`](Self::parse) reads it.
    pub fn describe(&self) -> String {
        match self {
            Align::Start => "aligned at each run's first event".to_string(),
            Align::Region { name, instance } => format!("aligned at the start of instance {instance} of {name}"),
        }
    }
}

/// How the locations (and processes) of A are paired with those of B.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RankMap {
    /// The i-th of A with the i-th of B (display order).
    #[default]
    Index,
    /// By name: "process / location" for locations, the process's name for processes.
    Name,
    /// The i-th of A with the floor(i |B| / |A|)-th of B.
    Proportional,
}

impl RankMap {
    pub fn parse(text: &str) -> Result<RankMap, CompareError> {
        match text {
            "index" => Ok(RankMap::Index),
            "name" => Ok(RankMap::Name),
            "proportional" => Ok(RankMap::Proportional),
            _ => Err(CompareError::RanksSyntax { text: text.to_string() }),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            RankMap::Index => "index",
            RankMap::Name => "name",
            RankMap::Proportional => "proportional",
        }
    }

    /// For each of `a` (names in order), the index in `b` it maps to, if any.
    fn pair(self, a: &[String], b: &[String]) -> Vec<Option<usize>> {
        match self {
            RankMap::Index => (0..a.len()).map(|i| (i < b.len()).then_some(i)).collect(),
            RankMap::Proportional => (0..a.len()).map(|i| (!b.is_empty()).then(|| i * b.len() / a.len())).collect(),
            RankMap::Name => {
                let mut first: rustc_hash::FxHashMap<&str, usize> = Default::default();
                for (j, n) in b.iter().enumerate() {
                    first.entry(n.as_str()).or_insert(j);
                }
                a.iter().map(|n| first.get(n.as_str()).copied()).collect()
            }
        }
    }
}

/// What to compare.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct CompareOptions {
    pub align: Align,
    pub ranks: RankMap,
    /// `[T0, T1]` from each run's origin; None: from the origin to the run's end.
    #[serde(serialize_with = "window_json")]
    pub window: Option<TimeWindow>,
}

/// A window as `{start_ns, end_ns}` (null without one).
fn window_json<S: serde::Serializer>(w: &Option<TimeWindow>, s: S) -> Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    struct W {
        start_ns: u64,
        end_ns: u64,
    }
    w.map(|w| W { start_ns: w.start_ns, end_ns: w.end_ns }).serialize(s)
}

/// One run to compare: its trace, and whether its wait states are to be found (not for a store decoded whole:
/// its messages' posting times are not decoded, so a comparison does not invent them) or given as a store
/// keeps them (`kept`, a store indexed with `weft index --waits`: its report over a window).
#[derive(Clone, Copy, Debug)]
pub struct Run<'t> {
    pub trace: &'t Trace,
    pub waits: bool,
    pub kept: Option<&'t dyn KeptWaits>,
}

/// Wait states kept beside a run (a store's), answered per window (`[t0, t1]`, the run's ns; the whole run
/// without one) as `wait_report` of the run's trace would be; `None` where they cannot be read.
pub trait KeptWaits: std::fmt::Debug {
    fn report(&self, window: Option<(u64, u64)>) -> Option<crate::diagnosis::waits::WaitReport>;
    /// The critical path's time by region the run keeps (`weft critical-path --json`'s `by_region` of its
    /// trace); None where it keeps none.
    fn critical_path(&self) -> Option<Vec<crate::diagnosis::waits::NamedNs>> {
        None
    }
}

#[derive(Debug, Error, PartialEq)]
pub enum CompareError {
    #[error("alignment '{text}': expected start, region:NAME or region:NAME:N (N from 1)")]
    AlignSyntax { text: String },
    #[error("rank mapping '{text}': expected index, name or proportional")]
    RanksSyntax { text: String },
    #[error("run {side}: no location has {instance} instance(s) of region '{name}' (at most {most})")]
    NoInstance { side: char, name: String, instance: u32, most: u64 },
    #[error("run {side}: the window starts at {start_ns} ns, after the run's end ({end_ns} ns)")]
    WindowPastEnd { side: char, start_ns: u64, end_ns: u64 },
}

/// The part of one run compared: its origin and the window its analyses ran over (trace ns, from its first
/// event).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SideWindow {
    pub origin_ns: u64,
    pub start_ns: u64,
    pub end_ns: u64,
}

/// A pair of figures, A's and B's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Pair<T> {
    pub a: T,
    pub b: T,
}

/// The comparison: `weft diff --json`'s keys (`span_ns`, `regions`, `locations`, `comm_matrix`, `waits`,
/// `summary`, plus `options` and `windows`) are a stable interface.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Comparison {
    /// The time each run was analysed over: its span (`weft info`'s `span_ns`) when aligned at the start
    /// without a window, else its window's length.
    pub span_ns: Pair<u64>,
    pub options: CompareOptions,
    /// Each run's window, where the analyses had one (a region alignment or a window).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub windows: Option<Pair<SideWindow>>,
    /// By |delta_ns| descending.
    pub regions: Vec<RegionDiff>,
    /// A's locations in display order with their partners, then B's locations no A location maps to.
    pub locations: Vec<LocationRow>,
    pub comm_matrix: MatrixDiff,
    pub waits: WaitsDiff,
    /// One paragraph: the span's change, the three regions that explain most of it, the locations that
    /// changed most.
    pub summary: String,
    /// The parts not compared because a side does not keep them (a store: [`Side::not_kept`]); absent where
    /// both runs are traces.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_compared: Vec<NotCompared>,
}

/// A part of a run's figures its side does not have (a store's tiles do not keep it), and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NotKept {
    pub part: Part,
    pub why: String,
}

/// The parts of a side a store may lack.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Part {
    /// The locations' moments (a store keeps the whole run's, not a window's).
    Locations,
    /// Each location's time from its first interval to its last (kept by `weft index --waits`).
    LocationTime,
    /// The communication matrix (a store keeps no matrix).
    CommMatrix,
}

/// A part left out of a comparison: which run lacks it, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct NotCompared {
    pub run: char,
    pub part: Part,
    pub why: String,
}

/// One run's side of a comparison: what its single-run analyses say over its window, and the order and
/// names its locations and processes are paired by. Serialisable both ways, so that a page whose two runs live
/// in two workers has each worker compute its run's side ([`side`]) and one of them pair both ([`pair`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Side {
    /// The time analysed: the span (`weft info`'s `span_ns`) when not windowed, else the window's length.
    pub span_ns: u64,
    pub window: SideWindow,
    /// Whether the analyses ran over `window` (a region alignment or a window) or the whole run.
    pub windowed: bool,
    /// `weft info --json`'s `regions` (`profile::profile`).
    pub regions: Vec<RegionProfile>,
    /// Each location's moments and time, by location index.
    pub locations: Vec<LocationSide>,
    /// Location indices in display order.
    pub location_order: Vec<u32>,
    /// Processes in display order (the order of their first location).
    pub processes: Vec<NamedProcess>,
    /// By process (`comm_matrix::comm_matrix`).
    pub comm_matrix: CommMatrix,
    /// None where the run's wait states are not known ([`Run::waits`]).
    pub waits: Option<WaitTotals>,
    /// What this side does not have (a store's side: `store::read::compare`); empty for a trace's.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_kept: Vec<NotKept>,
}

/// A process: its index in the trace and its name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NamedProcess {
    pub process: u32,
    pub name: String,
}

/// Run `run`'s side (`which`: 'A' or 'B', for errors) under `options`.
pub fn side(run: Run, which: char, options: &CompareOptions) -> Result<Side, CompareError> {
    let t = run.trace;
    let window = side_window(t, which, options)?;
    let windowed = options.window.is_some() || options.align != Align::Start;
    let w = windowed.then_some(TimeWindow { start_ns: window.start_ns, end_ns: window.end_ns });
    Ok(Side {
        span_ns: if windowed { window.end_ns - window.start_ns } else { t.span_ns },
        window,
        windowed,
        regions: super::profile::profile(t, w, |_| true),
        locations: tables::sides(t, w),
        location_order: t.locations_in_display_order().into_iter().map(|l| l.0).collect(),
        processes: process_order(t)
            .into_iter()
            .map(|p| NamedProcess { process: p.0, name: t.process_name(p).to_string() })
            .collect(),
        comm_matrix: comm_matrix(t, w, MatrixUnit::Process),
        waits: tables::wait_totals(run, w),
        not_kept: Vec::new(),
    })
}

/// Pair two runs' sides under `options` (the options both were computed with).
pub fn pair(mut a: Side, mut b: Side, options: &CompareOptions) -> Comparison {
    // A part one side lacks is compared on neither (a half-known row would show a change that is not one).
    let not_compared: Vec<NotCompared> = [('A', &a), ('B', &b)]
        .iter()
        .flat_map(|(run, s)| s.not_kept.iter().map(|n| NotCompared { run: *run, part: n.part, why: n.why.clone() }))
        .collect();
    let lacks = |p: Part| not_compared.iter().any(|n| n.part == p);
    if lacks(Part::Locations) {
        for s in [&mut a, &mut b] {
            s.locations.clear();
            s.location_order.clear();
        }
    }
    if lacks(Part::LocationTime) {
        for s in [&mut a, &mut b] {
            s.locations.iter_mut().for_each(|l| l.total_ns = 0);
        }
    }
    if lacks(Part::CommMatrix) {
        for s in [&mut a, &mut b] {
            s.comm_matrix = CommMatrix::empty(MatrixUnit::Process);
            s.processes.clear();
        }
    }
    let regions = tables::regions(&a.regions, &b.regions);
    let label = |s: &Side| -> Vec<String> {
        s.location_order.iter().map(|&l| s.locations[l as usize].moments.name.clone()).collect()
    };
    let to_b = options.ranks.pair(&label(&a), &label(&b));
    let locations = tables::locations(&a, &b, &to_b);
    let names = |s: &Side| -> Vec<String> { s.processes.iter().map(|p| p.name.clone()).collect() };
    let pairs = options.ranks.pair(&names(&a), &names(&b));
    let proc_map: BTreeMap<u32, u32> =
        a.processes.iter().zip(&pairs).filter_map(|(p, q)| q.map(|j| (p.process, b.processes[j].process))).collect();
    let windows = (a.windowed || b.windowed).then_some(Pair { a: a.window, b: b.window });
    let span_ns = Pair { a: a.span_ns, b: b.span_ns };
    let waits = tables::waits(a.waits, b.waits);
    let comm_matrix = tables::matrices(a.comm_matrix, b.comm_matrix, &proc_map);
    let mut c = Comparison {
        span_ns,
        options: options.clone(),
        windows,
        regions,
        locations,
        comm_matrix,
        waits,
        summary: String::new(),
        not_compared,
    };
    c.summary = summary::paragraph(&c);
    c
}

/// Compare run `b` against run `a`: [`pair`] of their [`side`]s.
pub fn compare(a: Run, b: Run, options: &CompareOptions) -> Result<Comparison, CompareError> {
    Ok(pair(side(a, 'A', options)?, side(b, 'B', options)?, options))
}

/// The run's origin and the window its analyses run over under `options`.
fn side_window(t: &Trace, side: char, options: &CompareOptions) -> Result<SideWindow, CompareError> {
    let origin_ns = match &options.align {
        Align::Start => 0,
        Align::Region { name, instance } => region_instance_start(t, side, name, *instance)?,
    };
    window_from(origin_ns, t.span_ns, side, options)
}

/// The window a run of span `end` (ns) is analysed over from `origin_ns` under `options` (its window, clipped
/// to the run's end; without one, from the origin to the end); a store's side takes it the same way.
pub fn window_from(origin_ns: u64, end: u64, side: char, options: &CompareOptions) -> Result<SideWindow, CompareError> {
    let (start_ns, end_ns) = match options.window {
        None => (origin_ns, end),
        Some(w) => (origin_ns.saturating_add(w.start_ns), origin_ns.saturating_add(w.end_ns).min(end)),
    };
    if options.window.is_some() && start_ns >= end_ns {
        return Err(CompareError::WindowPastEnd { side, start_ns, end_ns: end });
    }
    Ok(SideWindow { origin_ns, start_ns, end_ns })
}

/// The earliest, over locations, start of a location's `instance`-th interval of a region named `name`.
fn region_instance_start(t: &Trace, side: char, name: &str, instance: u32) -> Result<u64, CompareError> {
    let wanted: Vec<bool> =
        (0..t.regions.len()).map(|r| t.region_name(weft_model::RegionId(r as u32)) == name).collect();
    let iv = &t.intervals;
    let (mut best, mut most) = (None::<u64>, 0u64);
    for l in 0..t.locations.len() {
        let mut seen = 0u64;
        for i in t.intervals_of(LocationId(l as u32)) {
            if wanted[iv.region[i].index()] {
                seen += 1;
                if seen == instance as u64 {
                    best = Some(best.map_or(iv.start_ns[i], |b: u64| b.min(iv.start_ns[i])));
                    break;
                }
            }
        }
        most = most.max(seen);
    }
    best.ok_or_else(|| CompareError::NoInstance { side, name: name.to_string(), instance, most })
}

/// Processes in the order of their first location in display order (the matrix's and the timeline's).
pub fn process_order(t: &Trace) -> Vec<ProcessId> {
    let mut seen = vec![false; t.processes.len()];
    let mut out = Vec::new();
    for l in t.locations_in_display_order() {
        let p = t.locations.process[l.index()];
        if !std::mem::replace(&mut seen[p.index()], true) {
            out.push(p);
        }
    }
    out
}

#[cfg(test)]
mod tests;
