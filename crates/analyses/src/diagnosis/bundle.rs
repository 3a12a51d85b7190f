//! The diagnosis of one trace (or of a window of it) packed for the trip from the worker, which computes it
//! (`wait_states`, `wait_report`, `critical_path`, `path_report`), to the page, which only draws and lists it:
//! the reports as the CLI prints them (`weft waits --json`, `weft critical-path --json`), the waits and the
//! critical path's segments as plain columns for drawing, and the three-level cube the Diagnosis panel browses
//! as CUBE does (pattern -> region -> location, each cell with its time and its worst wait).
//!
//! The cube is made here from the waits' columns, so every list of the panel is a sum over the same waits that
//! `wait_report` sums: a wait counts in the region of its call (`trace.intervals.region[call]`) and on its
//! location, clipped to the window where one is given. Column buffers (`weft_model::columns`); decoding checks
//! every id against the trace it is for, so corrupt or mismatched bytes are an error, never a panic later in
//! the view. Draws nothing; knows no pattern (their keys and labels travel as strings).

use std::collections::BTreeMap;
use thiserror::Error;
use weft_model::columns::{ColumnReader, ColumnWriter};
use weft_model::{LocationId, RegionId, Trace};

const MAGIC: &[u8; 8] = b"WEFTDIA1";

/// No cause location (a wait whose partner is not known).
pub const NO_LOCATION: u32 = u32::MAX;

#[derive(Debug, Error, PartialEq)]
pub enum DiagnosisBundleError {
    #[error("diagnosis buffer corrupt: {0}")]
    Corrupt(String),
    #[error("diagnosis buffer does not fit the trace: {0}")]
    Mismatch(String),
}

/// The waits as plain columns, one entry per wait, sorted by location then start (as `WaitStates`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WaitColumns {
    /// Index into [`DiagnosisBundle::pattern_keys`].
    pub pattern: Vec<u8>,
    pub location: Vec<u32>,
    /// The call instance waited in: its index in `trace.intervals`.
    pub call: Vec<u32>,
    pub start_ns: Vec<u64>,
    pub end_ns: Vec<u64>,
    /// Who it waits for, or [`NO_LOCATION`].
    pub cause_location: Vec<u32>,
    /// The time on the cause location that ends the wait.
    pub cause_ns: Vec<u64>,
}

impl WaitColumns {
    pub fn len(&self) -> usize {
        self.location.len()
    }

    pub fn is_empty(&self) -> bool {
        self.location.is_empty()
    }

    /// Append one wait.
    #[allow(clippy::too_many_arguments)]
    pub fn push(
        &mut self,
        pattern: u8,
        location: u32,
        call: u32,
        start_ns: u64,
        end_ns: u64,
        cause: Option<u32>,
        cause_ns: u64,
    ) {
        self.pattern.push(pattern);
        self.location.push(location);
        self.call.push(call);
        self.start_ns.push(start_ns);
        self.end_ns.push(end_ns);
        self.cause_location.push(cause.unwrap_or(NO_LOCATION));
        self.cause_ns.push(cause_ns);
    }

    /// Wait `i`'s time inside `window` (all of it without one).
    pub fn clipped_ns(&self, i: usize, window: Option<(u64, u64)>) -> u64 {
        let (s, e) = (self.start_ns[i], self.end_ns[i]);
        match window {
            None => e.saturating_sub(s),
            Some((a, b)) => e.min(b).saturating_sub(s.max(a)),
        }
    }
}

/// The critical path's segments as columns, in time order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PathColumns {
    pub location: Vec<u32>,
    pub start_ns: Vec<u64>,
    pub end_ns: Vec<u64>,
}

impl PathColumns {
    pub fn len(&self) -> usize {
        self.location.len()
    }

    pub fn is_empty(&self) -> bool {
        self.location.is_empty()
    }
}

/// One cell of the cube: the waiting of one pattern in one region on one location.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CubeCell {
    pub pattern: u8,
    pub region: u32,
    pub location: u32,
    pub ns: u64,
    pub instances: u64,
    /// The cell's longest wait (an index into the waits), where the panel takes the timeline.
    pub worst: u32,
}

/// A line of one of the panel's three lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CubeLine {
    /// A pattern's index, a region's id or a location's id, as the list is of.
    pub id: u32,
    pub ns: u64,
    pub instances: u64,
    /// The longest wait under this line (and the filters above it).
    pub worst: u32,
}

/// What the worker sends the page: see the module's text.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DiagnosisBundle {
    /// The window diagnosed, or None for the whole run.
    pub window: Option<(u64, u64)>,
    /// The total time the shares are of (ns summed over locations, as the CLI's text output reckons it).
    pub total_time_ns: u64,
    /// Each pattern's JSON key and label, indexed by the waits' and the cube's pattern codes.
    pub pattern_keys: Vec<String>,
    pub pattern_labels: Vec<String>,
    /// `serde_json` of the `WaitReport` (what `weft waits --json [--window]` prints).
    pub report_json: String,
    /// `serde_json` of the `PathReport` (what `weft critical-path --json` prints); "{}" without a path.
    pub path_json: String,
    pub waits: WaitColumns,
    pub path: PathColumns,
    /// Sorted by (pattern, region, location); only cells with waiting.
    pub cube: Vec<CubeCell>,
}

impl DiagnosisBundle {
    /// The bundle of `waits` and `path` for `trace`, the cube summed from the waits (clipped to `window`).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        trace: &Trace,
        window: Option<(u64, u64)>,
        total_time_ns: u64,
        patterns: &[(&str, &str)],
        report_json: String,
        path_json: String,
        waits: WaitColumns,
        path: PathColumns,
    ) -> Self {
        let cube = cube(trace, &waits, window);
        DiagnosisBundle {
            window,
            total_time_ns,
            pattern_keys: patterns.iter().map(|(k, _)| k.to_string()).collect(),
            pattern_labels: patterns.iter().map(|(_, l)| l.to_string()).collect(),
            report_json,
            path_json,
            waits,
            path,
            cube,
        }
    }

    /// The first list: every pattern with waiting, most first (ties by code).
    pub fn patterns(&self) -> Vec<CubeLine> {
        self.lines(|c| Some(c.pattern as u32))
    }

    /// The second list: the regions of `pattern` (all patterns when None), most first.
    pub fn regions(&self, pattern: Option<u8>) -> Vec<CubeLine> {
        self.lines(|c| (pattern.is_none_or(|p| p == c.pattern)).then_some(c.region))
    }

    /// The third list: the locations of `pattern` in `region` (either unfiltered when None), most first.
    pub fn locations(&self, pattern: Option<u8>, region: Option<u32>) -> Vec<CubeLine> {
        self.lines(|c| {
            (pattern.is_none_or(|p| p == c.pattern) && region.is_none_or(|r| r == c.region)).then_some(c.location)
        })
    }

    /// The cells grouped by `key` (None leaves a cell out), summed, the longest wait kept; sorted by time
    /// descending, then id.
    fn lines(&self, key: impl Fn(&CubeCell) -> Option<u32>) -> Vec<CubeLine> {
        let mut by: BTreeMap<u32, CubeLine> = BTreeMap::new();
        for c in &self.cube {
            let Some(id) = key(c) else { continue };
            let line = by.entry(id).or_insert(CubeLine { id, ns: 0, instances: 0, worst: c.worst });
            line.ns += c.ns;
            line.instances += c.instances;
            if self.wait_ns(c.worst) > self.wait_ns(line.worst) {
                line.worst = c.worst;
            }
        }
        let mut out: Vec<CubeLine> = by.into_values().collect();
        out.sort_by(|a, b| b.ns.cmp(&a.ns).then(a.id.cmp(&b.id)));
        out
    }

    /// Wait `i`'s time inside the bundle's window.
    pub fn wait_ns(&self, i: u32) -> u64 {
        let i = i as usize;
        if i < self.waits.len() {
            self.waits.clipped_ns(i, self.window)
        } else {
            0
        }
    }

    /// The total waiting in the cube (equals the report's `total_wait_ns`).
    pub fn total_wait_ns(&self) -> u64 {
        self.cube.iter().map(|c| c.ns).sum()
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut w = ColumnWriter::new(MAGIC);
        let (has, a, b) = match self.window {
            Some((a, b)) => (1, a, b),
            None => (0, 0, 0),
        };
        w.col(&[has, a, b, self.total_time_ns]);
        w.strings(&self.pattern_keys);
        w.strings(&self.pattern_labels);
        w.strings(&[self.report_json.clone(), self.path_json.clone()]);
        let v = &self.waits;
        w.col(&v.pattern);
        w.col(&v.location);
        w.col(&v.call);
        w.col(&v.start_ns);
        w.col(&v.end_ns);
        w.col(&v.cause_location);
        w.col(&v.cause_ns);
        let p = &self.path;
        w.col(&p.location);
        w.col(&p.start_ns);
        w.col(&p.end_ns);
        let c = &self.cube;
        w.col(&c.iter().map(|c| c.pattern).collect::<Vec<u8>>());
        w.col(&c.iter().map(|c| [c.region, c.location, c.worst]).collect::<Vec<[u32; 3]>>());
        w.col(&c.iter().map(|c| [c.ns, c.instances]).collect::<Vec<[u64; 2]>>());
        w.finish()
    }

    /// The bundle in `bytes`, checked against `trace` (the trace it must belong to).
    pub fn decode(bytes: &[u8], trace: &Trace) -> Result<Self, DiagnosisBundleError> {
        let corrupt = |e: weft_model::columns::ColumnError| DiagnosisBundleError::Corrupt(e.to_string());
        let mut r = ColumnReader::new(bytes, MAGIC).map_err(corrupt)?;
        let head: Vec<u64> = r.col("the window").map_err(corrupt)?;
        let &[has, a, b, total_time_ns] = head.as_slice() else {
            return Err(DiagnosisBundleError::Corrupt("the window is not four numbers".into()));
        };
        let window = match has {
            0 => None,
            1 if a <= b => Some((a, b)),
            _ => return Err(DiagnosisBundleError::Corrupt(format!("window {has} {a}..{b}"))),
        };
        let pattern_keys = r.strings("pattern keys").map_err(corrupt)?;
        let pattern_labels = r.strings("pattern labels").map_err(corrupt)?;
        let reports = r.strings("the reports").map_err(corrupt)?;
        let [report_json, path_json]: [String; 2] =
            reports.try_into().map_err(|_| DiagnosisBundleError::Corrupt("not two reports".into()))?;
        let waits = WaitColumns {
            pattern: r.col("wait patterns").map_err(corrupt)?,
            location: r.col("wait locations").map_err(corrupt)?,
            call: r.col("wait calls").map_err(corrupt)?,
            start_ns: r.col("wait starts").map_err(corrupt)?,
            end_ns: r.col("wait ends").map_err(corrupt)?,
            cause_location: r.col("wait causes").map_err(corrupt)?,
            cause_ns: r.col("wait cause times").map_err(corrupt)?,
        };
        let path = PathColumns {
            location: r.col("path locations").map_err(corrupt)?,
            start_ns: r.col("path starts").map_err(corrupt)?,
            end_ns: r.col("path ends").map_err(corrupt)?,
        };
        let cp: Vec<u8> = r.col("cube patterns").map_err(corrupt)?;
        let cids: Vec<[u32; 3]> = r.col("cube ids").map_err(corrupt)?;
        let cns: Vec<[u64; 2]> = r.col("cube times").map_err(corrupt)?;
        r.end().map_err(corrupt)?;
        if pattern_keys.len() != pattern_labels.len() {
            return Err(DiagnosisBundleError::Corrupt("pattern keys and labels of unequal lengths".into()));
        }
        let n = waits.len();
        let v = &waits;
        if [v.pattern.len(), v.call.len(), v.start_ns.len(), v.end_ns.len(), v.cause_location.len(), v.cause_ns.len()]
            .iter()
            .any(|&k| k != n)
        {
            return Err(DiagnosisBundleError::Corrupt("wait columns of unequal lengths".into()));
        }
        if path.start_ns.len() != path.len() || path.end_ns.len() != path.len() {
            return Err(DiagnosisBundleError::Corrupt("path columns of unequal lengths".into()));
        }
        if cp.len() != cids.len() || cp.len() != cns.len() {
            return Err(DiagnosisBundleError::Corrupt("cube columns of unequal lengths".into()));
        }
        let (locations, regions, iv) = (trace.locations.len(), trace.regions.len(), &trace.intervals);
        let patterns = pattern_keys.len();
        for i in 0..n {
            let (l, call) = (v.location[i], v.call[i] as usize);
            let cause = v.cause_location[i];
            if l as usize >= locations
                || call >= iv.len()
                || iv.location[call].0 != l
                || v.pattern[i] as usize >= patterns
                || v.start_ns[i] > v.end_ns[i]
                || (cause != NO_LOCATION && cause as usize >= locations)
            {
                return Err(DiagnosisBundleError::Mismatch(format!(
                    "wait {i} (location {l}, call {call}, pattern {}) is not of this trace",
                    v.pattern[i]
                )));
            }
        }
        for i in 0..path.len() {
            if path.location[i] as usize >= locations || path.start_ns[i] > path.end_ns[i] {
                return Err(DiagnosisBundleError::Mismatch(format!("critical-path segment {i} is not of this trace")));
            }
        }
        let cube: Vec<CubeCell> = (0..cp.len())
            .map(|i| CubeCell {
                pattern: cp[i],
                region: cids[i][0],
                location: cids[i][1],
                worst: cids[i][2],
                ns: cns[i][0],
                instances: cns[i][1],
            })
            .collect();
        for c in &cube {
            if c.pattern as usize >= patterns
                || c.region as usize >= regions
                || c.location as usize >= locations
                || c.worst as usize >= n
            {
                return Err(DiagnosisBundleError::Mismatch(format!(
                    "cube cell (pattern {}, region {}, location {}) is not of this trace",
                    c.pattern, c.region, c.location
                )));
            }
        }
        Ok(DiagnosisBundle {
            window,
            total_time_ns,
            pattern_keys,
            pattern_labels,
            report_json,
            path_json,
            waits,
            path,
            cube,
        })
    }
}

/// The time the panel's shares are of, as the CLI's text output (`weft waits`) reckons it and CUBE's "Time":
/// the sum of the locations' times (`waits::location_time`: from the start of a location's first interval to
/// the end of its last), each clipped to the window where one is given.
pub fn total_time_ns(trace: &Trace, window: Option<(u64, u64)>) -> u64 {
    let iv = &trace.intervals;
    (0..trace.locations.len() as u32)
        .map(|l| {
            let range = trace.intervals_of(LocationId(l));
            let Some(first) = range.clone().next() else { return 0 };
            let (a, b) = (iv.start_ns[first], range.map(|i| iv.end_ns(i)).max().unwrap_or(0));
            match window {
                None => b.saturating_sub(a),
                Some((t0, t1)) => b.min(t1).saturating_sub(a.max(t0)),
            }
        })
        .sum()
}

/// The cube of `waits`: per (pattern, region of the call, location) the time inside `window`, the count of
/// waits with time there, and the longest. Regions of one name are one (the first region of that name), as
/// the report's `by_region` sums them by name.
pub fn cube(trace: &Trace, waits: &WaitColumns, window: Option<(u64, u64)>) -> Vec<CubeCell> {
    let mut first_named: std::collections::HashMap<&str, u32> = std::collections::HashMap::new();
    let canonical: Vec<u32> = (0..trace.regions.len() as u32)
        .map(|r| *first_named.entry(trace.region_name(RegionId(r))).or_insert(r))
        .collect();
    let mut cells: BTreeMap<(u8, u32, u32), CubeCell> = BTreeMap::new();
    for i in 0..waits.len() {
        let ns = waits.clipped_ns(i, window);
        if ns == 0 {
            continue;
        }
        let region = trace.intervals.region.get(waits.call[i] as usize).map_or(0, |r| canonical[r.index()]);
        let (pattern, location) = (waits.pattern[i], waits.location[i]);
        let cell = cells.entry((pattern, region, location)).or_insert(CubeCell {
            pattern,
            region,
            location,
            ns: 0,
            instances: 0,
            worst: i as u32,
        });
        cell.ns += ns;
        cell.instances += 1;
        if ns > waits.clipped_ns(cell.worst as usize, window) {
            cell.worst = i as u32;
        }
    }
    cells.into_values().collect()
}

/// The index of the first wait of `location` in waits sorted by location (a location's waits are
/// `first_of(l)..first_of(l + 1)`).
pub fn first_of(waits: &WaitColumns, location: LocationId) -> usize {
    waits.location.partition_point(|&l| l < location.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft_model::{Format, LocationKind, TraceBuilder};

    /// Two locations: location 0 waits twice in `MPI_Recv` (for 1), location 1 once in `MPI_Barrier`.
    fn fixture() -> (Trace, WaitColumns) {
        let mut b = TraceBuilder::new(Format::Generated);
        let p = b.process(0);
        let (l0, l1) = (b.location(p, 0, LocationKind::CpuThread), b.location(p, 1, LocationKind::CpuThread));
        let (recv, bar) = (b.region("MPI_Recv", ""), b.region("MPI_Barrier", ""));
        b.interval(l0, recv, 0, 100);
        b.interval(l0, recv, 200, 150);
        b.interval(l1, bar, 50, 300);
        let t = b.finish();
        let mut w = WaitColumns::default();
        w.push(0, 0, 0, 0, 60, Some(1), 60);
        w.push(0, 0, 1, 200, 300, Some(1), 300);
        w.push(1, 1, 2, 50, 70, None, 0);
        (t, w)
    }

    #[test]
    fn the_cube_sums_waits_by_pattern_region_and_location() {
        let (t, w) = fixture();
        let b = DiagnosisBundle::new(
            &t,
            None,
            1000,
            &[("a", "A"), ("b", "B")],
            "{}".into(),
            "{}".into(),
            w,
            Default::default(),
        );
        let p = b.patterns();
        assert_eq!(p.iter().map(|l| (l.id, l.ns, l.instances)).collect::<Vec<_>>(), [(0, 160, 2), (1, 20, 1)]);
        assert_eq!(p[0].worst, 1, "the longest wait of pattern 0");
        let r = b.regions(Some(1));
        assert_eq!(r.len(), 1);
        assert_eq!(t.region_name(RegionId(r[0].id)), "MPI_Barrier");
        assert_eq!(b.locations(Some(0), None).iter().map(|l| (l.id, l.ns)).collect::<Vec<_>>(), [(0, 160)]);
        assert_eq!(b.locations(None, None).len(), 2);
        assert!(b.locations(Some(0), Some(r[0].id)).is_empty(), "pattern 0 has no barrier waits");
        assert_eq!(b.total_wait_ns(), 180);
    }

    #[test]
    fn a_window_clips_the_waits() {
        let (t, w) = fixture();
        let b = DiagnosisBundle::new(
            &t,
            Some((40, 250)),
            0,
            &[("a", "A"), ("b", "B")],
            "{}".into(),
            "{}".into(),
            w,
            Default::default(),
        );
        // 20 of the first, 50 of the second, 20 of the barrier.
        assert_eq!(b.patterns().iter().map(|l| l.ns).collect::<Vec<_>>(), [70, 20]);
    }

    #[test]
    fn round_trip_and_corrupt_or_foreign_bytes_are_errors() {
        let (t, w) = fixture();
        let path = PathColumns { location: vec![1, 0], start_ns: vec![0, 60], end_ns: vec![60, 350] };
        let b = DiagnosisBundle::new(
            &t,
            Some((0, 350)),
            700,
            &[("a", "A"), ("b", "B")],
            "{\"x\":1}".into(),
            "{}".into(),
            w,
            path,
        );
        let bytes = b.encode();
        assert_eq!(DiagnosisBundle::decode(&bytes, &t), Ok(b.clone()));
        for cut in [0, 8, bytes.len() / 2, bytes.len() - 1] {
            assert!(DiagnosisBundle::decode(&bytes[..cut], &t).is_err(), "cut at {cut}");
        }
        // A trace with one location: the waits of location 1 are not of it.
        let mut tb = TraceBuilder::new(Format::Generated);
        let p = tb.process(0);
        let l = tb.location(p, 0, LocationKind::CpuThread);
        let r = tb.region("MPI_Recv", "");
        for k in 0..3 {
            tb.interval(l, r, k * 100, 50);
        }
        assert!(matches!(DiagnosisBundle::decode(&bytes, &tb.finish()), Err(DiagnosisBundleError::Mismatch(_))));
    }
}
