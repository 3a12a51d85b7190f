//! What a view draws of the counters: the series' bins and whole-run figures gathered from the counter
//! tiles a plan names (`plan::counter_tiles`), [`CounterGather`] into a [`CounterAnswer`].

use super::plan::{bin_range, level_bin_time, Plan, Resolution};
use crate::counters::{CounterBinsTile, SeriesBins};
use crate::format::manifest::Manifest;
use serde::{Deserialize, Serialize};
use std::ops::Range;

/// A counter series' whole-run figures: its samples and their smallest and largest finite values (0, 0
/// where it has none).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SeriesStats {
    pub samples: u64,
    pub min: f64,
    pub max: f64,
}

/// What the visible counter tracks are drawn from, beside a viewport's answer: each series' whole-run
/// figures and, zoomed out, its bins of the answer's level over the view (an exact answer's samples travel
/// in its trace slice).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CounterAnswer {
    /// The series asked; `stats` and `bins` hold one entry each, in order.
    pub series: Range<u32>,
    pub stats: Vec<SeriesStats>,
    /// The pyramid level of `bins` (0: exact; `bins` is empty).
    pub level: u32,
    pub bin_ns: u64,
    /// The level's bin count (its last bin reaches to the span's end).
    pub level_bins: u64,
    pub first_bin: u64,
    pub bins: Vec<SeriesBins>,
    /// Store files whose figures are missing here (not fetched, or failed).
    pub missing: Vec<String>,
}

impl CounterAnswer {
    /// The time range of bin `k` of the answer (the level's last bin ends at `span_ns`).
    pub fn bin_time(&self, k: usize, span_ns: u64) -> (u64, u64) {
        level_bin_time(self.first_bin + k as u64, self.bin_ns, self.level_bins, span_ns)
    }

    /// The bins of series `s`, if the answer holds them.
    pub fn bins_of(&self, s: u32) -> Option<&SeriesBins> {
        s.checked_sub(self.series.start).and_then(|k| self.bins.get(k as usize))
    }

    /// The whole-run figures of series `s`, if the answer holds them.
    pub fn stats_of(&self, s: u32) -> Option<&SeriesStats> {
        s.checked_sub(self.series.start).and_then(|k| self.stats.get(k as usize))
    }
}

/// A [`CounterAnswer`] gathered tile by tile (the plan's counter summary tiles; level-0 counter tiles go to
/// the [`ExactSlice`]).
#[derive(Clone, Debug)]
pub struct CounterGather {
    answer: CounterAnswer,
    top: u32,
    b1: u64,
}

impl CounterGather {
    pub fn new(m: &Manifest, plan: &Plan) -> Self {
        let n = plan.series.len();
        let top = m.levels.last().map_or(0, |l| l.level);
        let mut answer =
            CounterAnswer { series: plan.series.clone(), stats: vec![SeriesStats::default(); n], ..Default::default() };
        let mut b1 = 0;
        if let Resolution::Level(level) = plan.resolution {
            if let Some(l) = m.levels.iter().find(|l| l.level == level) {
                let (b0, end) = bin_range(l.bin_ns, l.bins, plan.t0_ns, plan.t1_ns);
                let nb = (end - b0) as usize;
                answer.level = level;
                answer.bin_ns = l.bin_ns;
                answer.level_bins = l.bins;
                answer.first_bin = b0;
                answer.bins = plan.series.clone().map(|s| SeriesBins::empty(s, None, nb)).collect();
                b1 = end;
            }
        }
        CounterGather { answer, top, b1 }
    }

    /// Copy in what manifest tile `i` (a counter summary tile) holds for the answer.
    pub fn add(&mut self, m: &Manifest, i: usize, tile: &CounterBinsTile) {
        let e = &m.tiles[i];
        let a = &mut self.answer;
        for src in tile.series.iter().filter(|s| a.series.contains(&s.series)) {
            let k = (src.series - a.series.start) as usize;
            if e.level == self.top {
                let (samples, ext) = src.totals();
                let (min, max) = ext.unwrap_or((0.0, 0.0));
                a.stats[k] = SeriesStats { samples, min, max };
            }
            if e.level != a.level || a.bins.is_empty() {
                continue;
            }
            let (b0, b1, first) = (a.first_bin, self.b1, tile.first_bin);
            let dst = &mut a.bins[k];
            if (first..first + src.count.len() as u64).contains(&b0) {
                dst.before = match (b0 - first).checked_sub(1) {
                    Some(j) => src.in_effect_after(j as usize),
                    None => src.before,
                };
            }
            for j in 0..src.count.len() {
                let b = first + j as u64;
                if b < b0 || b >= b1 {
                    continue;
                }
                let o = (b - b0) as usize;
                dst.count[o] = src.count[j];
                dst.min[o] = src.min[j];
                dst.max[o] = src.max[j];
                dst.last[o] = src.last[j];
            }
        }
    }

    /// A tile of the plan that is not at hand.
    pub fn missing(&mut self, path: String) {
        self.answer.missing.push(path);
    }

    pub fn finish(self) -> CounterAnswer {
        self.answer
    }
}
