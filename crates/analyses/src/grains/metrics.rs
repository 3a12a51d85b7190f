//! Per-grain metrics, as the MIR profiler's post-processing and the grain-graphs prototype define them:
//! work = exec - overhead; parallel benefit = work / (creation + the parent's synchronization overhead per
//! child); sibling work balance = max / mean work of siblings that join together; sibling scatter = median
//! distance between the cores of such siblings; memory hierarchy utilization = resource stall cycles / work;
//! work deviation = work / work in a single-threaded run; instantaneous parallelism = overlapping fragments
//! on the critical-path-distance axis in bins one median fragment wide. Missing inputs give None, never a
//! guess. Computes no threshold and draws nothing.

use super::critical::CriticalPath;
use super::graph::{EdgeKind, GrainGraph, NONE};
use std::collections::HashMap;
use weft_model::grains::{GrainNodes, GrainProfile};
use weft_model::sort::SortDyn;

#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Metrics {
    pub exec: Vec<u64>,
    pub creation: Vec<Option<f64>>,
    pub overhead: Vec<Option<f64>>,
    pub work: Vec<Option<f64>>,
    pub parallel_benefit: Vec<Option<f64>>,
    pub work_deviation: Vec<Option<f64>>,
    pub mem_hier_util: Vec<Option<f64>>,
    pub sibling_work_balance: Vec<Option<f64>>,
    pub sibling_scatter: Vec<Option<f64>>,
    pub inst_par_median: Vec<Option<f64>>,
    pub inst_par_min: Vec<Option<f64>>,
    pub inst_par_max: Vec<Option<f64>>,
    /// Bin width used for instantaneous parallelism (the median fragment length), when computed.
    pub inst_par_bin: Option<f64>,
}

fn finite(v: f64) -> Option<f64> {
    v.is_finite().then_some(v)
}

/// Metrics of a graph built from `p` by [`super::graph::from_profile`].
#[allow(clippy::needless_range_loop)]
pub fn from_profile(g: &GrainGraph, p: &GrainProfile, cp: &CriticalPath) -> Metrics {
    let n = g.grains();
    let col = |c: &Option<Vec<Option<f64>>>| -> Vec<Option<f64>> { c.clone().unwrap_or_else(|| vec![None; n]) };
    let creation = col(&p.creation);
    let overhead = col(&p.overhead);
    let given_work = col(&p.work);
    let work: Vec<Option<f64>> = (0..n).map(|i| overhead[i].map(|o| p.exec[i] as f64 - o).or(given_work[i])).collect();
    // Parallel benefit: siblings are all children of one parent (across its joins).
    let mut parallel_benefit = vec![None; n];
    for parent in 0..n {
        let kids: Vec<u32> = g.group_range(parent).flat_map(|k| g.group_children(k).iter().copied()).collect();
        if kids.is_empty() {
            continue;
        }
        let created: Option<f64> = kids.iter().map(|&c| creation[c as usize]).sum();
        let sync_per_child = match (overhead[parent], created) {
            (Some(o), Some(c)) => (o - c) / kids.len() as f64,
            _ => continue,
        };
        for &c in &kids {
            let c = c as usize;
            if let (Some(w), Some(cr)) = (work[c], creation[c]) {
                parallel_benefit[c] = finite(w / (cr + sync_per_child));
            }
        }
    }
    let (balance, scatter) = sibling_metrics(g, &work);
    let mem_hier_util: Vec<Option<f64>> = match &p.resource_stalls {
        Some(stalls) => (0..n)
            .map(|i| match (stalls[i], work[i]) {
                (Some(s), Some(w)) => finite(s / w),
                _ => None,
            })
            .collect(),
        None => col(&p.mem_hier_util),
    };
    let work_deviation = col(&p.work_deviation);
    let (inst_par_median, inst_par_min, inst_par_max, inst_par_bin) = instantaneous_parallelism(g, cp);
    Metrics {
        exec: g.grain_exec.clone(),
        creation,
        overhead,
        work,
        parallel_benefit,
        work_deviation,
        mem_hier_util,
        sibling_work_balance: balance,
        sibling_scatter: scatter,
        inst_par_median,
        inst_par_min,
        inst_par_max,
        inst_par_bin,
    }
}

/// Replace work deviation with work / single-threaded work, matching grains by lineage (or task id when
/// neither profile has lineages). Grains without a match keep None.
pub fn with_single_threaded(m: &mut Metrics, g: &GrainGraph, single: &GrainProfile) {
    let single_work: HashMap<String, f64> = (0..single.len())
        .filter_map(|i| {
            let w = match single.overhead.as_ref().and_then(|c| c[i]) {
                Some(o) => Some(single.exec[i] as f64 - o),
                None => single.work.as_ref().and_then(|c| c[i]),
            }?;
            let lineage = single.string(single.lineage[i]);
            let key = if lineage.is_empty() { format!("#{}", single.task[i]) } else { lineage.to_string() };
            Some((key, w))
        })
        .collect();
    for gi in 0..g.grains() {
        let lin = g.string(g.grain_lineage[gi]);
        let key = if lin.is_empty() { format!("#{}", g.grain_task[gi]) } else { lin.to_string() };
        m.work_deviation[gi] = match (m.work[gi], single_work.get(&key)) {
            (Some(w), Some(&s)) => finite(w / s),
            _ => None,
        };
    }
}

/// Metrics as the built graph's node values give them (per grain, from its first node); instantaneous
/// parallelism is computed from the graph when the input does not carry it.
pub fn from_nodes(g: &GrainGraph, x: &GrainNodes, cp: &CriticalPath) -> Metrics {
    let n = g.grains();
    let a = &x.values;
    let col = |name: &str| -> Vec<Option<f64>> {
        match a.names.lookup(name) {
            Some(k) => (0..n).map(|gi| a.get_key(g.grain_row[gi] as usize, k)).collect(),
            None => vec![None; n],
        }
    };
    let (mut med, mut min, mut max) = (col("inst_par_median"), col("inst_par_min"), col("inst_par_max"));
    let mut bin = None;
    if med.iter().all(Option::is_none) {
        (med, min, max, bin) = instantaneous_parallelism(g, cp);
    }
    Metrics {
        exec: g.grain_exec.clone(),
        creation: col("creation_cycles"),
        overhead: col("overhead_cycles"),
        work: col("work_cycles"),
        parallel_benefit: col("parallel_benefit"),
        work_deviation: col("work_deviation"),
        mem_hier_util: col("mem_hier_util"),
        sibling_work_balance: col("sibling_work_balance"),
        sibling_scatter: col("sibling_scatter"),
        inst_par_median: med,
        inst_par_min: min,
        inst_par_max: max,
        inst_par_bin: bin,
    }
}

/// Sibling work balance and scatter per group of siblings that join together.
fn sibling_metrics(g: &GrainGraph, work: &[Option<f64>]) -> (Vec<Option<f64>>, Vec<Option<f64>>) {
    let n = g.grains();
    let mut balance = vec![None; n];
    let mut scatter = vec![None; n];
    let mut hist: Vec<(u32, u64)> = Vec::new();
    for k in 0..g.groups.fork.len() {
        let kids = g.group_children(k);
        let works: Option<Vec<f64>> = kids.iter().map(|&c| work[c as usize]).collect();
        let b = works.and_then(|w| {
            let max = w.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            finite(max / (w.iter().sum::<f64>() / w.len() as f64))
        });
        // Median pairwise core distance, from a histogram of cores (O(distinct cores^2), not O(kids^2)).
        hist.clear();
        let mut s = None;
        if kids.len() >= 2 && kids.iter().all(|&c| g.grain_cpu[c as usize] != NONE) {
            let mut cpus: Vec<u32> = kids.iter().map(|&c| g.grain_cpu[c as usize]).collect();
            cpus.sort_unstable();
            for c in cpus {
                match hist.last_mut() {
                    Some((v, m)) if *v == c => *m += 1,
                    _ => hist.push((c, 1)),
                }
            }
            let mut dist: Vec<(u64, u64)> = vec![(0, hist.iter().map(|&(_, m)| m * (m - 1) / 2).sum())];
            for i in 0..hist.len() {
                for j in i + 1..hist.len() {
                    dist.push(((hist[j].0 - hist[i].0) as u64, hist[i].1 * hist[j].1));
                }
            }
            dist.sort_unstable();
            let pairs: u64 = dist.iter().map(|d| d.1).sum();
            s = Some(weighted_median(&dist, pairs));
        }
        for &c in kids {
            balance[c as usize] = b;
            scatter[c as usize] = s;
        }
    }
    (balance, scatter)
}

/// Median of a sorted (value, count) list holding `total` items (mean of the two middle ones when even).
fn weighted_median(sorted: &[(u64, u64)], total: u64) -> f64 {
    let at = |rank: u64| -> f64 {
        let mut seen = 0;
        for &(v, c) in sorted {
            seen += c;
            if seen > rank {
                return v as f64;
            }
        }
        sorted.last().map(|&(v, _)| v as f64).unwrap_or(0.0)
    };
    if total % 2 == 1 {
        at(total / 2)
    } else {
        (at(total / 2 - 1) + at(total / 2)) / 2.0
    }
}

/// The most bins and (bin, fragment) overlaps instantaneous parallelism may take; beyond, it is not computed.
const MAX_BINS: f64 = 4.0e6;
const MAX_OVERLAPS: u64 = 64_000_000;

type InstPar = (Vec<Option<f64>>, Vec<Option<f64>>, Vec<Option<f64>>, Option<f64>);

/// Instantaneous parallelism as the prototype computes it. Each fragment occupies `[root_dist,
/// root_dist + exec]`; fragments are the prototype's, so a parent's fragment that runs while it creates a
/// group's children is split at each child's creation. Bins `[b w, b w + w - 1]`, `w` the median fragment
/// length; a fragment counts in every bin it touches (closed intervals); a grain's value is the median, min
/// and max count over the (bin, fragment) pairs of its fragments.
pub fn instantaneous_parallelism(g: &GrainGraph, cp: &CriticalPath) -> InstPar {
    let n = g.grains();
    let none = || (vec![None; n], vec![None; n], vec![None; n], None);
    // Fragments per grain: (start, length).
    let mut mid_group = vec![NONE; g.nodes()];
    for (k, &m) in g.groups.mid.iter().enumerate() {
        if m != NONE {
            mid_group[m as usize] = k as u32;
        }
    }
    let mut seg_start = vec![0u32; n + 1];
    let mut segs: Vec<(f64, f64)> = Vec::new();
    let mut delays: Vec<u64> = Vec::new();
    for gi in 0..n {
        for &v in g.grain_nodes_of(gi as u32) {
            let (r, len) = (cp.root_dist[v as usize], g.node_exec[v as usize]);
            let k = mid_group[v as usize];
            if k == NONE {
                segs.push((r as f64, len as f64));
                continue;
            }
            delays.clear();
            let fork = g.groups.fork[k as usize];
            delays.extend(
                g.out
                    .of(fork)
                    .iter()
                    .filter(|&&e| g.edge_kind[e as usize] == EdgeKind::Create)
                    .map(|&e| g.edge_delay[e as usize].min(len)),
            );
            delays.sort_unstable();
            // The first child is created at the fork; each later creation starts a new fragment.
            for (i, &d) in delays.iter().enumerate() {
                let next = delays.get(i + 1).copied().unwrap_or(len);
                segs.push(((r + d) as f64, next.saturating_sub(d) as f64));
            }
            if delays.is_empty() {
                segs.push((r as f64, len as f64));
            }
        }
        seg_start[gi + 1] = segs.len() as u32;
    }
    if segs.is_empty() {
        return none();
    }
    let mut lens: Vec<f64> = segs.iter().map(|s| s.1).collect();
    lens.sort_dyn_by(f64::total_cmp);
    let m = lens.len();
    let w = if m % 2 == 1 { lens[m / 2] } else { (lens[m / 2 - 1] + lens[m / 2]) / 2.0 };
    let max_end = segs.iter().map(|s| s.0 + s.1).fold(0.0, f64::max);
    if w <= 0.0 || !w.is_finite() || (max_end + 1.0 + w) / w > MAX_BINS {
        return none();
    }
    let bins = ((max_end + 1.0 + w) / w).floor() as usize + 1;
    let range = |s: f64, len: f64| -> (usize, usize) {
        let e = s + len;
        // lo: the first bin whose upper end b w + w - 1 reaches s; hi: the last whose lower end b w is <= e.
        let mut lo = ((s - w + 1.0) / w).ceil().max(0.0) as usize;
        while lo > 0 && (lo - 1) as f64 * w + w - 1.0 >= s {
            lo -= 1;
        }
        while (lo as f64) * w + w - 1.0 < s {
            lo += 1;
        }
        let mut hi = (e / w).floor().max(0.0) as usize;
        while (hi as f64) * w > e && hi > 0 {
            hi -= 1;
        }
        while ((hi + 1) as f64) * w <= e {
            hi += 1;
        }
        (lo, hi.min(bins - 1))
    };
    let mut diff = vec![0i64; bins + 1];
    let mut overlaps = 0u64;
    for &(s, len) in &segs {
        let (lo, hi) = range(s, len);
        if lo <= hi {
            diff[lo] += 1;
            diff[hi + 1] -= 1;
            overlaps += (hi - lo + 1) as u64;
        }
    }
    if overlaps > MAX_OVERLAPS {
        return none();
    }
    let mut count = vec![0u32; bins];
    let mut run = 0i64;
    for b in 0..bins {
        run += diff[b];
        count[b] = run.max(0) as u32;
    }
    let (mut med, mut min, mut max) = (vec![None; n], vec![None; n], vec![None; n]);
    let mut scratch: Vec<u32> = Vec::new();
    for gi in 0..n {
        scratch.clear();
        for &(s, len) in &segs[seg_start[gi] as usize..seg_start[gi + 1] as usize] {
            let (lo, hi) = range(s, len);
            if lo <= hi {
                scratch.extend_from_slice(&count[lo..=hi]);
            }
        }
        if scratch.is_empty() {
            continue;
        }
        scratch.sort_unstable();
        let k = scratch.len();
        med[gi] = Some(if k % 2 == 1 {
            scratch[k / 2] as f64
        } else {
            (scratch[k / 2 - 1] as f64 + scratch[k / 2] as f64) / 2.0
        });
        min[gi] = Some(scratch[0] as f64);
        max[gi] = Some(scratch[k - 1] as f64);
    }
    (med, min, max, Some(w))
}
