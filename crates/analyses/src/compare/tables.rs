//! The comparison's tables: each run's single-run analysis (the profile, the moments, the communication
//! matrix, the wait report), paired up and subtracted. Must not compute a side's figure any other way than
//! the single-run analysis does: the tests hold each side to `weft info`, `weft moments` and `weft waits`.

use super::{KeptWaits, Pair, Run, Side};
use crate::busy::BusyDefinition;
use crate::comm_matrix::CommMatrix;
use crate::diagnosis::critical_path::{critical_path, path_report};
use crate::diagnosis::waits::{wait_report, wait_states, NamedNs, Pattern, WaitReport};
use crate::moments::{moments, LocationMoments, TimeWindow};
use crate::profile::RegionProfile;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use weft_model::sort::SortDyn;
use weft_model::{LocationId, Trace};

/// One region (by name) in both runs: `weft info --json`'s `regions` figures of each (regions of one run
/// that share a name summed), and B minus A.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RegionDiff {
    pub name: String,
    pub a_inclusive_ns: u64,
    pub b_inclusive_ns: u64,
    /// `b_inclusive_ns - a_inclusive_ns`.
    pub delta_ns: i64,
    pub a_exclusive_ns: u64,
    pub b_exclusive_ns: u64,
    /// `b_exclusive_ns - a_exclusive_ns` (exclusive deltas add up to the change of the time any interval
    /// covers; the summary explains the span's change by them).
    pub delta_exclusive_ns: i64,
    pub a_count: u64,
    pub b_count: u64,
    /// `b_inclusive_ns / a_inclusive_ns`; None where A has none.
    pub ratio: Option<f64>,
}

/// `b - a` as a signed ns (saturating).
pub(super) fn delta(a: u64, b: u64) -> i64 {
    (b as i128 - a as i128).clamp(i64::MIN as i128, i64::MAX as i128) as i64
}

/// The region profiles of both runs (`profile::profile`, as `weft info --json`), matched by name, by
/// |delta_ns| descending, then |delta_exclusive_ns|, then the larger inclusive time, then name.
pub(super) fn regions(a: &[RegionProfile], b: &[RegionProfile]) -> Vec<RegionDiff> {
    #[derive(Default)]
    struct Sides {
        a: [u64; 3],
        b: [u64; 3],
    }
    let mut by_name: BTreeMap<&str, Sides> = BTreeMap::new();
    for (side, rows) in [(0, a), (1, b)] {
        for r in rows {
            let s = by_name.entry(&r.name).or_default();
            let v = if side == 0 { &mut s.a } else { &mut s.b };
            v[0] += r.count;
            v[1] += r.inclusive_ns;
            v[2] += r.exclusive_ns;
        }
    }
    let mut rows: Vec<RegionDiff> = by_name
        .into_iter()
        .map(|(name, s)| RegionDiff {
            name: name.to_string(),
            a_inclusive_ns: s.a[1],
            b_inclusive_ns: s.b[1],
            delta_ns: delta(s.a[1], s.b[1]),
            a_exclusive_ns: s.a[2],
            b_exclusive_ns: s.b[2],
            delta_exclusive_ns: delta(s.a[2], s.b[2]),
            a_count: s.a[0],
            b_count: s.b[0],
            ratio: (s.a[1] > 0).then(|| s.b[1] as f64 / s.a[1] as f64),
        })
        .collect();
    rows.sort_dyn_by(|x, y| {
        y.delta_ns
            .unsigned_abs()
            .cmp(&x.delta_ns.unsigned_abs())
            .then(y.delta_exclusive_ns.unsigned_abs().cmp(&x.delta_exclusive_ns.unsigned_abs()))
            .then(y.a_inclusive_ns.max(y.b_inclusive_ns).cmp(&x.a_inclusive_ns.max(x.b_inclusive_ns)))
            .then_with(|| x.name.cmp(&y.name))
    });
    rows
}

/// A location of one run: its moments (`weft moments --json`'s row, busy = compute) and its time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LocationSide {
    #[serde(flatten)]
    pub moments: LocationMoments,
    /// The location's time: from the start of its first interval to the end of its last (as `weft waits`
    /// counts a location's time), clipped to the run's window.
    pub total_ns: u64,
}

/// B minus A of a pair of locations (a side missing counts as never busy, with no time).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LocationDelta {
    /// Of m0, the busy time.
    pub busy_ns: i64,
    pub total_ns: i64,
    /// Of m1, each measured from its run's origin (the alignment); None unless both are busy.
    pub m1_ns: Option<f64>,
    pub m2_ns: f64,
    pub m3_ns: f64,
}

/// A location of A and its partner in B under the rank mapping (either may be missing).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LocationRow {
    pub a: Option<LocationSide>,
    pub b: Option<LocationSide>,
    pub delta: LocationDelta,
}

/// Each location's time in `window` (the whole run without one).
fn location_times(t: &Trace, window: Option<TimeWindow>) -> Vec<u64> {
    let iv = &t.intervals;
    (0..t.locations.len())
        .map(|l| {
            let range = t.intervals_of(LocationId(l as u32));
            let Some(first) = range.clone().next() else { return 0 };
            let end = range.map(|i| iv.end_ns(i)).max().unwrap_or(0);
            match window {
                None => end.saturating_sub(iv.start_ns[first]),
                Some(w) => end.min(w.end_ns).saturating_sub(iv.start_ns[first].max(w.start_ns)),
            }
        })
        .collect()
}

/// Each location's moments (busy = compute) and time in `window`, by location index.
pub(super) fn sides(t: &Trace, window: Option<TimeWindow>) -> Vec<LocationSide> {
    let times = location_times(t, window);
    moments(t, &BusyDefinition::Compute, window)
        .into_iter()
        .zip(times)
        .map(|(moments, total_ns)| LocationSide { moments, total_ns })
        .collect()
}

/// A's locations in display order with their partners (`to_b`: for each, a position in B's display order),
/// then B's locations no A location maps to.
pub(super) fn locations(a: &Side, b: &Side, to_b: &[Option<usize>]) -> Vec<LocationRow> {
    let origins = Pair { a: a.window.origin_ns, b: b.window.origin_ns };
    let (sa, sb) = (&a.locations, &b.locations);
    let row = |x: Option<&LocationSide>, y: Option<&LocationSide>| {
        let busy = |s: Option<&LocationSide>| s.map_or(0, |s| s.moments.m0_ns);
        let total = |s: Option<&LocationSide>| s.map_or(0, |s| s.total_ns);
        let m = |s: Option<&LocationSide>, f: fn(&LocationMoments) -> f64| s.map_or(0.0, |s| f(&s.moments));
        let both_busy = busy(x) > 0 && busy(y) > 0;
        LocationRow {
            a: x.cloned(),
            b: y.cloned(),
            delta: LocationDelta {
                busy_ns: delta(busy(x), busy(y)),
                total_ns: delta(total(x), total(y)),
                m1_ns: both_busy
                    .then(|| (m(y, |m| m.m1_ns) - origins.b as f64) - (m(x, |m| m.m1_ns) - origins.a as f64)),
                m2_ns: m(y, |m| m.m2_ns) - m(x, |m| m.m2_ns),
                m3_ns: m(y, |m| m.m3_ns) - m(x, |m| m.m3_ns),
            },
        }
    };
    let mut mapped = vec![false; b.location_order.len()];
    let mut rows = Vec::with_capacity(a.location_order.len());
    for (k, &l) in a.location_order.iter().enumerate() {
        let partner = to_b.get(k).copied().flatten().map(|j| {
            mapped[j] = true;
            &sb[b.location_order[j] as usize]
        });
        rows.push(row(Some(&sa[l as usize]), partner));
    }
    for (j, &l) in b.location_order.iter().enumerate() {
        if !mapped[j] {
            rows.push(row(None, Some(&sb[l as usize])));
        }
    }
    rows
}

/// B's matrix minus A's, in B's shape: each of A's cells added to the cell of the processes its sender
/// and receiver map to.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MatrixDelta {
    /// B's rows and columns.
    pub senders: Vec<String>,
    pub receivers: Vec<String>,
    pub bytes: Vec<Vec<i64>>,
    pub count: Vec<Vec<i64>>,
    /// A's messages (and their bytes) whose sender or receiver maps to no process of B's matrix: left out
    /// of `count` and `bytes`, never silently.
    pub a_unplaced_count: u64,
    pub a_unplaced_bytes: u64,
}

/// Both runs' communication matrices by process (`comm_matrix::comm_matrix`, as `weft info --json`) and
/// their difference.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MatrixDiff {
    pub a: CommMatrix,
    pub b: CommMatrix,
    pub delta: MatrixDelta,
}

/// The difference of A's matrix `ma` and B's `mb`, A's processes mapped to B's by `map` (process indices).
pub(super) fn matrices(ma: CommMatrix, mb: CommMatrix, map: &BTreeMap<u32, u32>) -> MatrixDiff {
    let n = mb.ids.len();
    let mut slot_b: BTreeMap<u32, usize> = BTreeMap::new();
    for (k, &id) in mb.ids.iter().enumerate() {
        slot_b.insert(id, k);
    }
    // A's row k -> B's row, through the process map.
    let to_b: Vec<Option<usize>> = ma.ids.iter().map(|&p| map.get(&p).and_then(|q| slot_b.get(q).copied())).collect();
    let mut count: Vec<Vec<i64>> = mb.count.iter().map(|r| r.iter().map(|&v| delta(0, v)).collect()).collect();
    let mut bytes: Vec<Vec<i64>> = mb.bytes.iter().map(|r| r.iter().map(|&v| delta(0, v)).collect()).collect();
    let (mut unplaced_count, mut unplaced_bytes) = (0u64, 0u64);
    for (s, row) in ma.count.iter().enumerate() {
        for (r, &c) in row.iter().enumerate() {
            let v = ma.bytes[s][r];
            match (to_b[s], to_b[r]) {
                (Some(x), Some(y)) if x < n && y < n => {
                    count[x][y] = count[x][y].saturating_sub(delta(0, c));
                    bytes[x][y] = bytes[x][y].saturating_sub(delta(0, v));
                }
                _ => {
                    unplaced_count += c;
                    unplaced_bytes = unplaced_bytes.saturating_add(v);
                }
            }
        }
    }
    let delta = MatrixDelta {
        senders: mb.senders.clone(),
        receivers: mb.receivers.clone(),
        bytes,
        count,
        a_unplaced_count: unplaced_count,
        a_unplaced_bytes: unplaced_bytes,
    };
    MatrixDiff { a: ma, b: mb, delta }
}

/// One pattern's totals in a run (`weft waits --json`'s `total_ns` and `instances`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PatternTotal {
    pub total_ns: u64,
    pub instances: u64,
}

/// A run's wait states per pattern (`diagnosis::waits::wait_report` over its window).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "WaitTotalsRead")]
pub struct WaitTotals {
    pub total_ns: u64,
    /// Every pattern, by key (read back as the pattern's own key: an unknown key is refused).
    pub patterns: BTreeMap<&'static str, PatternTotal>,
    /// The critical path's time by region (`weft critical-path --json`'s `by_region`), where the run's wait
    /// states were found from its trace over the whole run (not over a window, nor a store's kept ones).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub critical_path: Option<Vec<NamedNs>>,
}

/// [`WaitTotals`] as read back from JSON (a worker's answer), its pattern keys still names.
#[derive(Deserialize)]
struct WaitTotalsRead {
    total_ns: u64,
    patterns: BTreeMap<String, PatternTotal>,
    #[serde(default)]
    critical_path: Option<Vec<NamedNs>>,
}

impl TryFrom<WaitTotalsRead> for WaitTotals {
    type Error = String;
    fn try_from(w: WaitTotalsRead) -> Result<Self, String> {
        let patterns = w
            .patterns
            .into_iter()
            .map(|(k, v)| match Pattern::ALL.iter().find(|p| p.key() == k) {
                Some(p) => Ok((p.key(), v)),
                None => Err(format!("unknown wait pattern '{k}'")),
            })
            .collect::<Result<_, String>>()?;
        Ok(WaitTotals { total_ns: w.total_ns, patterns, critical_path: w.critical_path })
    }
}

/// Both runs' wait states per pattern and their change. A side is None where its wait states are not
/// known (a store's); the deltas then too.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct WaitsDiff {
    pub a: Option<WaitTotals>,
    pub b: Option<WaitTotals>,
    /// Per pattern key, B's total minus A's.
    pub delta: Option<BTreeMap<&'static str, i64>>,
    pub delta_total_ns: Option<i64>,
    /// Per region (by name), its time on each run's critical path and the change, by delta descending (the
    /// regions that grew on the path first), then name; where both runs' paths are known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub critical_path: Option<Vec<PathRegionDiff>>,
}

/// A region's time on the critical path of each run, and B minus A.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PathRegionDiff {
    pub name: String,
    pub a_ns: u64,
    pub b_ns: u64,
    pub delta_ns: i64,
}

pub(super) fn wait_totals(run: Run, window: Option<TimeWindow>) -> Option<WaitTotals> {
    if let Some(kept) = run.kept {
        return kept_totals(kept, window);
    }
    let window = window.map(|w| (w.start_ns, w.end_ns));
    let (report, critical_path) = match run.kept {
        Some(_) => return None,
        None if run.waits => {
            let states = wait_states(run.trace);
            let path = window.is_none().then(|| path_report(run.trace, &critical_path(run.trace, &states)).by_region);
            (wait_report(run.trace, &states, window), path)
        }
        None => return None,
    };
    Some(totals(&report, critical_path))
}

/// The totals of wait states kept beside a run (a store's), over `window` (the critical path over the whole
/// run only).
pub fn kept_totals(kept: &dyn KeptWaits, window: Option<TimeWindow>) -> Option<WaitTotals> {
    let window = window.map(|w| (w.start_ns, w.end_ns));
    let critical_path = window.is_none().then(|| kept.critical_path()).flatten();
    Some(totals(&kept.report(window)?, critical_path))
}

fn totals(report: &WaitReport, critical_path: Option<Vec<NamedNs>>) -> WaitTotals {
    let patterns = report
        .patterns
        .iter()
        .map(|(&k, p)| (k, PatternTotal { total_ns: p.total_ns, instances: p.instances }))
        .collect();
    WaitTotals { total_ns: report.total_wait_ns, patterns, critical_path }
}

pub(super) fn waits(ta: Option<WaitTotals>, tb: Option<WaitTotals>) -> WaitsDiff {
    let (delta_map, delta_total_ns) = match (&ta, &tb) {
        (Some(x), Some(y)) => (
            Some(x.patterns.iter().map(|(&k, p)| (k, delta(p.total_ns, y.patterns[k].total_ns))).collect()),
            Some(delta(x.total_ns, y.total_ns)),
        ),
        _ => (None, None),
    };
    let on_path = |t: &Option<WaitTotals>| t.as_ref().and_then(|t| t.critical_path.clone());
    let critical_path = on_path(&ta).zip(on_path(&tb)).map(|(pa, pb)| {
        let mut by: BTreeMap<String, [u64; 2]> = BTreeMap::new();
        for (k, list) in [pa, pb].into_iter().enumerate() {
            for r in list {
                by.entry(r.name).or_default()[k] += r.ns;
            }
        }
        let mut rows: Vec<PathRegionDiff> = by
            .into_iter()
            .map(|(name, [a_ns, b_ns])| PathRegionDiff { name, a_ns, b_ns, delta_ns: delta(a_ns, b_ns) })
            .collect();
        rows.sort_dyn_by(|x, y| y.delta_ns.cmp(&x.delta_ns).then_with(|| x.name.cmp(&y.name)));
        rows
    });
    WaitsDiff { a: ta, b: tb, delta: delta_map, delta_total_ns, critical_path }
}
