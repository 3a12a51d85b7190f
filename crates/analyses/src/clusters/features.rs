//! A location's behaviour as numbers: exclusive time per region (the [`MAX_REGION_FEATURES`] regions with
//! the most exclusive time over all locations, the rest summed in one column) and the four moments of
//! utilization of its compute time (m3 as mu3 / mu2), every column a fraction of the window's length. One pass over each
//! location's intervals (`profile::add_location_stats`) and one streaming moments pass; memory is n x d
//! f64 for n locations and d <= MAX_REGION_FEATURES + 5 columns. Must not cluster or name anything.

use crate::busy::BusyDefinition;
use crate::moments::{moments, TimeWindow};
use crate::profile::{add_location_stats, ProfileScratch, RegionStats};
use weft_model::{LocationId, RegionId, Trace};

/// Regions that get a column of their own.
pub const MAX_REGION_FEATURES: usize = 32;

/// The feature matrix: a row per location (in location order), columns as [`Features::names`] says.
#[derive(Clone, Debug, PartialEq)]
pub struct Features {
    pub window: TimeWindow,
    /// The region of each region column, most exclusive time first (then by index).
    pub regions: Vec<RegionId>,
    /// Whether a column sums the regions beyond [`MAX_REGION_FEATURES`].
    pub other: bool,
    dims: usize,
    data: Vec<f64>,
}

/// Moment columns after the region columns: m0, m1 (from the window's start), m2, m3.
const MOMENTS: usize = 4;

impl Features {
    pub fn rows(&self) -> usize {
        self.data.len().checked_div(self.dims).unwrap_or(0)
    }

    pub fn dims(&self) -> usize {
        self.dims
    }

    pub fn row(&self, l: usize) -> &[f64] {
        &self.data[l * self.dims..(l + 1) * self.dims]
    }

    /// Euclidean distance between the rows of two locations.
    #[inline]
    pub fn distance(&self, a: usize, b: usize) -> f64 {
        self.row(a).iter().zip(self.row(b)).map(|(x, y)| (x - y) * (x - y)).sum::<f64>().sqrt()
    }

    /// The columns' names: the regions' names, then "other regions" if any, then m0, m1, m2, m3.
    pub fn names(&self, trace: &Trace) -> Vec<String> {
        let mut names: Vec<String> = self.regions.iter().map(|&r| trace.region_name(r).to_string()).collect();
        if self.other {
            names.push("other regions".to_string());
        }
        names.extend(["m0", "m1", "m2", "m3"].map(String::from));
        names
    }
}

/// The features of every location of `trace` over `window` (the whole run when None).
pub fn features(trace: &Trace, window: Option<TimeWindow>) -> Features {
    let w = window.unwrap_or(TimeWindow::whole(trace));
    let len = w.len_ns().max(1) as f64;
    let n = trace.locations.len();
    let nreg = trace.regions.len();

    // Pass 1: each location's exclusive time per region, kept sparse (a region a location never enters costs
    // nothing), and the totals that pick the columns.
    let mut stats = vec![RegionStats::default(); nreg];
    let mut scratch = ProfileScratch::default();
    let mut totals = vec![0u64; nreg];
    let mut sparse: Vec<(u32, u64)> = Vec::new();
    let mut starts = Vec::with_capacity(n + 1);
    starts.push(0);
    for l in 0..n {
        add_location_stats(trace, LocationId(l as u32), w, &mut stats, &mut scratch);
        for i in trace.location_intervals[l].clone() {
            let r = trace.intervals.region[i].index();
            let s = std::mem::take(&mut stats[r]);
            if s.exclusive_ns > 0 {
                sparse.push((r as u32, s.exclusive_ns));
                totals[r] += s.exclusive_ns;
            }
        }
        starts.push(sparse.len());
    }
    let mut ranked: Vec<usize> = (0..nreg).filter(|&r| totals[r] > 0).collect();
    ranked.sort_by(|&a, &b| totals[b].cmp(&totals[a]).then(a.cmp(&b)));
    let other = ranked.len() > MAX_REGION_FEATURES;
    ranked.truncate(MAX_REGION_FEATURES);
    let mut column = vec![usize::MAX; nreg];
    for (c, &r) in ranked.iter().enumerate() {
        column[r] = c;
    }
    let other_column = ranked.len();
    let m_first = ranked.len() + other as usize;
    let dims = m_first + MOMENTS;

    let mut data = vec![0.0; n * dims];
    for l in 0..n {
        let row = &mut data[l * dims..(l + 1) * dims];
        for &(r, ns) in &sparse[starts[l]..starts[l + 1]] {
            let c = column[r as usize];
            row[if c == usize::MAX { other_column } else { c }] += ns as f64 / len;
        }
    }
    drop(sparse);
    for (l, m) in moments(trace, &BusyDefinition::Compute, window).into_iter().enumerate() {
        let row = &mut data[l * dims + m_first..(l + 1) * dims];
        row[0] = m.m0_ns as f64 / len;
        row[1] = if m.is_idle() { 0.0 } else { (m.m1_ns - w.start_ns as f64) / len };
        row[2] = m.m2_ns / len;
        // m3 = 3 cbrt(mu3) magnifies a near-zero skew into a large value of either sign (a busy set nearly
        // symmetric reads +-m2/3): the feature is mu3 / mu2 instead, a time continuous through 0.
        row[3] = if m.m2_ns > 0.0 { m.m3_ns.powi(3) / (9.0 * m.m2_ns * m.m2_ns) / len } else { 0.0 };
    }
    Features { window: w, regions: ranked.into_iter().map(|r| RegionId(r as u32)).collect(), other, dims, data }
}
