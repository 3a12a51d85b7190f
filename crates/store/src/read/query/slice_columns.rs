//! The intervals of a slice as columns in their memory layout, for the store worker's exact answer to the
//! page (issue #58): the locations as runs, then the region, start, duration and depth columns, each its
//! values' bytes (native order: both ends are the same build, not a file format), each one transferable
//! ArrayBuffer that the page copies into the model's column as it is: a check and a copy a value, nothing
//! allocated a value, where `codec`'s varints took a decode a value (BENCHMARKS.md "Session 39: zoom latency, round two"). The rest
//! of the slice (instants, messages, collectives, counter samples) stays `codec::encode_slice_with` bytes,
//! with no intervals. [`IntervalColumns`] reads them: every length is checked against the interval count
//! and every id against its table, so corrupt buffers are an error, never a panic.

use std::ops::Range;
use weft_model::codec::{DecodeError, IntervalRows};
use weft_model::{Intervals, LocationId, RegionId, Trace};

/// The columns after the location runs, in the order the worker sends them.
pub const INTERVAL_COLUMNS: [&str; 4] = ["region", "start_ns", "dur_ns", "depth"];

/// The locations of `rows` as runs: `[location, count]` for each location in order.
pub fn location_runs(rows: &impl IntervalRows) -> Vec<u32> {
    let mut runs: Vec<u32> = Vec::new();
    rows.each(|l, _, _, _, _| match runs.len() {
        n if n >= 2 && runs[n - 2] == l.0 => runs[n - 1] += 1,
        _ => runs.extend([l.0, 1]),
    });
    runs
}

/// Column `k` of `rows` ([`INTERVAL_COLUMNS`]) as its values' bytes.
pub fn interval_column(rows: &impl IntervalRows, k: usize) -> Vec<u8> {
    let width = [4, 8, 8, 2][k.min(3)];
    let mut out = Vec::with_capacity(rows.len() * width);
    rows.each(|_, r, s, d, depth| match k {
        0 => out.extend_from_slice(&r.0.to_ne_bytes()),
        1 => out.extend_from_slice(&s.to_ne_bytes()),
        2 => out.extend_from_slice(&d.to_ne_bytes()),
        _ => out.extend_from_slice(&depth.to_ne_bytes()),
    });
    out
}

fn err(what: &'static str) -> DecodeError {
    DecodeError { offset: 0, what }
}

/// The intervals of a slice read from its columns ([`location_runs`], then each of [`INTERVAL_COLUMNS`] by
/// [`IntervalColumns::put`], in any order), then put into the rest of the slice ([`IntervalColumns::with_rest`]).
pub struct IntervalColumns {
    intervals: Intervals,
    /// Each location's intervals, from the runs.
    ranges: Vec<Range<usize>>,
    have: [bool; 4],
    regions: usize,
}

impl IntervalColumns {
    /// `n` intervals of the locations `runs` says (`[location, count]` pairs: counts adding up to `n`, each
    /// location below `locations` and given once), of regions below `regions`.
    pub fn new(runs: &[u32], n: usize, locations: usize, regions: usize) -> Result<Self, DecodeError> {
        if !runs.len().is_multiple_of(2) {
            return Err(err("location runs come in pairs"));
        }
        let mut location = Vec::new();
        location.try_reserve_exact(n).map_err(|_| err("no memory for the intervals"))?;
        let mut ranges = vec![0..0; locations];
        for run in runs.chunks_exact(2) {
            let (l, k) = (run[0] as usize, run[1] as usize);
            if l >= locations {
                return Err(err("id out of range"));
            }
            if k == 0 || k > n - location.len() {
                return Err(err("runs of locations do not add up to the intervals"));
            }
            if !ranges[l].is_empty() {
                return Err(err("intervals not grouped by location"));
            }
            ranges[l] = location.len()..location.len() + k;
            location.extend(std::iter::repeat_n(LocationId(l as u32), k));
        }
        if location.len() != n {
            return Err(err("runs of locations do not add up to the intervals"));
        }
        let intervals = Intervals { location, ..Intervals::default() };
        Ok(IntervalColumns { intervals, ranges, have: [false; 4], regions })
    }

    /// The intervals' count.
    pub fn len(&self) -> usize {
        self.intervals.location.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Column `k` ([`INTERVAL_COLUMNS`]) from its bytes: one value an interval.
    pub fn put(&mut self, k: usize, bytes: &[u8]) -> Result<(), DecodeError> {
        let n = self.len();
        let iv = &mut self.intervals;
        match k {
            0 => {
                let region = column(bytes, n, |a| RegionId(u32::from_ne_bytes(a)))?;
                if region.iter().any(|r| r.index() >= self.regions) {
                    return Err(err("id out of range"));
                }
                iv.region = region;
            }
            1 => iv.start_ns = column(bytes, n, u64::from_ne_bytes)?,
            2 => iv.dur_ns = column(bytes, n, u64::from_ne_bytes)?,
            3 => iv.depth = column(bytes, n, u16::from_ne_bytes)?,
            _ => return Err(err("no such interval column")),
        }
        self.have[k] = true;
        Ok(())
    }

    /// Whether every column was put.
    pub fn complete(&self) -> bool {
        self.have.iter().all(|&h| h)
    }

    /// `rest` (the slice decoded without intervals, over the definitions the locations and regions were
    /// checked against) with these intervals.
    pub fn with_rest(self, mut rest: Trace) -> Result<Trace, DecodeError> {
        if !self.complete() {
            return Err(err("an interval column is missing"));
        }
        if !rest.intervals.is_empty() {
            return Err(err("the rest of a slice holds intervals"));
        }
        if rest.locations.len() != self.ranges.len() {
            return Err(err("a slice of other definitions"));
        }
        rest.location_intervals = self.ranges;
        rest.intervals = self.intervals;
        Ok(rest)
    }
}

/// The `n` values in `bytes`, each of `W` bytes read by `from`, into a vector allocated once.
fn column<const W: usize, T>(bytes: &[u8], n: usize, from: impl Fn([u8; W]) -> T) -> Result<Vec<T>, DecodeError> {
    if bytes.len() != n * W {
        return Err(err("an interval column of another length"));
    }
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| err("no memory for the intervals"))?;
    v.extend(bytes.chunks_exact(W).map(|c| {
        let mut a = [0u8; W];
        a.copy_from_slice(c);
        from(a)
    }));
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn intervals() -> Intervals {
        Intervals {
            location: vec![LocationId(0), LocationId(0), LocationId(2)],
            region: vec![RegionId(1), RegionId(0), RegionId(1)],
            start_ns: vec![5, 9, 1 << 40],
            dur_ns: vec![3, 0, u64::MAX - (1 << 40)],
            depth: vec![0, 1, 7],
            args: Default::default(),
        }
    }

    fn read(iv: &Intervals, locations: usize, regions: usize) -> Result<Intervals, DecodeError> {
        let mut c = IntervalColumns::new(&location_runs(iv), iv.len(), locations, regions)?;
        for k in 0..INTERVAL_COLUMNS.len() {
            assert!(!c.complete());
            c.put(k, &interval_column(iv, k))?;
        }
        assert!(c.complete());
        Ok(c.intervals)
    }

    #[test]
    fn columns_read_back_as_written() {
        let iv = intervals();
        assert_eq!(location_runs(&iv), vec![0, 2, 2, 1]);
        let back = read(&iv, 3, 2).unwrap();
        assert_eq!(back.location, iv.location);
        assert_eq!(back.region, iv.region);
        assert_eq!(back.start_ns, iv.start_ns);
        assert_eq!(back.dur_ns, iv.dur_ns);
        assert_eq!(back.depth, iv.depth);
        assert!(read(&Intervals::default(), 0, 0).unwrap().is_empty());
    }

    #[test]
    fn corrupt_columns_are_errors() {
        let iv = intervals();
        assert_eq!(read(&iv, 2, 2).unwrap_err().what, "id out of range", "a location past the table");
        assert_eq!(read(&iv, 3, 1).unwrap_err().what, "id out of range", "a region past the table");
        let runs = location_runs(&iv);
        assert!(IntervalColumns::new(&runs, 4, 3, 2).is_err(), "runs short of the count");
        assert!(IntervalColumns::new(&runs, 2, 3, 2).is_err(), "runs past the count");
        assert!(IntervalColumns::new(&runs[..3], 3, 3, 2).is_err(), "half a run");
        assert!(IntervalColumns::new(&[0, 0, 2, 3], 3, 3, 2).is_err(), "an empty run");
        assert!(IntervalColumns::new(&[0, 1, 2, 1, 0, 1], 3, 3, 2).is_err(), "a location in two runs");
        let mut c = IntervalColumns::new(&runs, 3, 3, 2).unwrap();
        let start = interval_column(&iv, 1);
        assert!(c.put(1, &start[1..]).is_err(), "a column cut short");
        assert!(c.put(4, &start).is_err(), "no fifth column");
        assert!(!c.complete(), "columns missing");
    }
}
