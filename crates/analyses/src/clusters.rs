//! Clusters of ranks (issue #55): locations grouped by behaviour, one representative (medoid) per group, the
//! locations that fit no group listed in full, and the grouping said in words. `weft clusters` prints
//! [`cluster`]'s result; docs/clusters.md defines every figure.
//!
//! A location's behaviour is its feature vector ([`features`]): the exclusive time of each of the trace's
//! busiest regions (as `profile` counts it) and its moments of utilization (`moments`: m0, m1, m2, m3), each
//! as a fraction of the window's length, so a distance of 0.1 is "a tenth of the run spent differently".
//!
//! The method, CLARA-style so 10^6 locations fit: a fixed-seed sample of at most [`SAMPLE`] locations is
//! clustered by Ward's agglomerative clustering (the `kodama` crate: Muellner's NN-chain, the algorithm of
//! fastcluster and SciPy, O(s^2) time and memory in the sample); the dendrogram is cut at k clusters, k given
//! or chosen by the sample's mean silhouette over 2..=[`MAX_CHOSEN_K`] (one cluster when no cut reaches
//! [`MIN_SILHOUETTE`], Kaufman and Rousseeuw's "no substantial structure", or when every sampled location
//! lies within [`FLAT`] of every other); each cut cluster's medoid is its sampled location with the least
//! total distance to the others; then every location joins its nearest medoid (O(n k d)). Outliers: a
//! location alone in its cluster, or further from its medoid than its cluster's median distance plus three
//! scaled MADs (and at least [`MIN_OUTLIER_DISTANCE`]). Deterministic: no clock, no thread, no hash order.
//! Must not: read files, print, or know a view.

mod features;
pub mod json;
pub mod words;

pub use features::{features, Features, MAX_REGION_FEATURES};

use super::moments::TimeWindow;
use serde::Serialize;
use thiserror::Error;
use weft_model::{LocationId, Trace};

/// Locations clustered by the hierarchical step at most; the others join the nearest medoid.
pub const SAMPLE: usize = 2_000;
/// The largest k tried when k is not given.
pub const MAX_CHOSEN_K: usize = 20;
/// The mean silhouette a cut must exceed to be preferred to one cluster.
pub const MIN_SILHOUETTE: f64 = 0.25;
/// Locations all within this distance of each other (a fraction of the window) are one cluster.
pub const FLAT: f64 = 0.01;
/// A location nearer its medoid than this (a fraction of the window) is never called an outlier for its
/// distance: clusters of alike locations have a MAD near 0, and distances (right-skewed) pass 3 MADs often;
/// less than 5 % of the run spent differently from the representative is not worth listing.
pub const MIN_OUTLIER_DISTANCE: f64 = 0.05;
/// Clusters smaller than this have no distance outliers (their median and MAD say little).
pub const MIN_SIZE_FOR_SPREAD: usize = 5;
/// The seed of the sample: the same trace gives the same clusters.
pub const SEED: u64 = 0x5745_4654_434c_5553;

#[derive(Debug, Error, PartialEq, Eq)]
pub enum ClusterError {
    #[error("the trace has no locations to cluster")]
    NoLocations,
    #[error("k = 0: at least one cluster is needed")]
    ZeroK,
    #[error("k = {k} is more than the {locations} locations there are")]
    TooManyClusters { k: usize, locations: usize },
    #[error("k = {k} is more than the {sample} locations the clustering samples (at most {sample} clusters)")]
    KOverSample { k: usize, sample: usize },
}

/// How k was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum KChoice {
    /// The caller gave it.
    Given,
    /// The best mean silhouette of the sample over 2..=MAX_CHOSEN_K.
    Silhouette,
    /// One cluster: a single location, every location within FLAT of the others, or no cut above
    /// MIN_SILHOUETTE.
    One,
}

/// A region whose time sets a cluster (or an outlier) apart from the rest.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Distinguishing {
    pub region: u32,
    pub name: String,
    /// The mean exclusive time in the region of the group's locations, as a fraction of the window.
    pub fraction: f64,
    /// The same of the locations it is compared with (the other clusters; an outlier's own cluster).
    pub others_fraction: f64,
    /// `fraction / others_fraction`; None when the others spend no time there.
    pub ratio: Option<f64>,
}

/// One cluster: its medoid (the representative location), members and spread.
#[derive(Clone, Debug, PartialEq)]
pub struct Cluster {
    pub medoid: LocationId,
    /// Location indices, ascending (the order of `weft moments --json`).
    pub members: Vec<u32>,
    /// Mean distance of the members to the medoid (a fraction of the window).
    pub mean_distance: f64,
    pub max_distance: f64,
    pub distinguishing: Vec<Distinguishing>,
}

/// Why a location is listed as an outlier.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OutlierReason {
    /// The only member of its cluster.
    Alone,
    /// Further from its medoid than its cluster's median distance plus three scaled MADs.
    Far,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Outlier {
    pub location: LocationId,
    /// Index into [`Clustering::clusters`].
    pub cluster: usize,
    /// Distance to its cluster's medoid (for one alone: to the nearest other medoid).
    pub distance: f64,
    pub reason: OutlierReason,
    pub distinguishing: Vec<Distinguishing>,
}

/// The clusters of a trace's locations.
#[derive(Clone, Debug, PartialEq)]
pub struct Clustering {
    pub window: TimeWindow,
    pub locations: usize,
    /// How many locations the hierarchical step clustered (all when at most [`SAMPLE`]).
    pub sampled: usize,
    pub k: usize,
    pub k_choice: KChoice,
    /// The sample's mean silhouette at the k taken (None for one cluster).
    pub silhouette: Option<f64>,
    /// Clusters, largest first (then by medoid).
    pub clusters: Vec<Cluster>,
    /// Per location (in location order), its cluster's index.
    pub assignment: Vec<u32>,
    /// Alone ones first, then by distance, furthest first.
    pub outliers: Vec<Outlier>,
    /// The grouping in words.
    pub summary: String,
}

/// Cluster the locations of `trace` over `window` (the whole run when None) into `k` clusters, or as many as
/// the silhouette says when `k` is None.
pub fn cluster(trace: &Trace, window: Option<TimeWindow>, k: Option<usize>) -> Result<Clustering, ClusterError> {
    let f = features(trace, window);
    cluster_features(trace, &f, k)
}

/// [`cluster`] over features already computed (the benchmark times the two apart).
pub fn cluster_features(trace: &Trace, f: &Features, k: Option<usize>) -> Result<Clustering, ClusterError> {
    let n = f.rows();
    if n == 0 {
        return Err(ClusterError::NoLocations);
    }
    if let Some(k) = k {
        if k == 0 {
            return Err(ClusterError::ZeroK);
        }
        if k > n {
            return Err(ClusterError::TooManyClusters { k, locations: n });
        }
        if k > SAMPLE {
            return Err(ClusterError::KOverSample { k, sample: SAMPLE });
        }
    }
    let sample = sample(n, SAMPLE, SEED);
    let s = sample.len();
    let dist = SquareMatrix::of(f, &sample);
    let (labels, k_choice, silhouette) = cut(&dist, k);
    let medoids = medoids(&dist, &labels, &sample);

    // Every location joins its nearest medoid (ties: the first), CLARA's assignment.
    let mut assignment = vec![0u32; n];
    let mut distance = vec![0f64; n];
    for (l, (a, d)) in assignment.iter_mut().zip(distance.iter_mut()).enumerate() {
        let (best, bd) = nearest(f, l, &medoids, None);
        *a = best as u32;
        *d = bd;
    }

    // Clusters largest first; one emptied by a tie with an identical medoid is dropped.
    let mut members: Vec<Vec<u32>> = vec![Vec::new(); medoids.len()];
    for (l, &a) in assignment.iter().enumerate() {
        members[a as usize].push(l as u32);
    }
    let mut order: Vec<usize> = (0..medoids.len()).filter(|&c| !members[c].is_empty()).collect();
    order.sort_by(|&a, &b| members[b].len().cmp(&members[a].len()).then(medoids[a].cmp(&medoids[b])));
    let mut renumber = vec![0u32; medoids.len()];
    for (new, &old) in order.iter().enumerate() {
        renumber[old] = new as u32;
    }
    assignment.iter_mut().for_each(|a| *a = renumber[*a as usize]);
    let medoids: Vec<usize> = order.iter().map(|&c| medoids[c]).collect();
    let members: Vec<Vec<u32>> = order.into_iter().map(|c| std::mem::take(&mut members[c])).collect();

    let sums = ClusterSums::new(f, &members);
    let mut clusters: Vec<Cluster> = members
        .into_iter()
        .enumerate()
        .map(|(c, members)| {
            let ds: Vec<f64> = members.iter().map(|&l| distance[l as usize]).collect();
            let mean_distance = ds.iter().sum::<f64>() / ds.len() as f64;
            let max_distance = ds.iter().copied().fold(0.0, f64::max);
            let distinguishing = if medoids.len() > 1 {
                words::distinguishing(trace, f, &sums.of(c), &sums.others(c), 3)
            } else {
                Vec::new()
            };
            Cluster { medoid: LocationId(medoids[c] as u32), members, mean_distance, max_distance, distinguishing }
        })
        .collect();

    let outliers = outliers(trace, f, &clusters, &assignment, &distance, &medoids, &sums);
    let k = clusters.len();
    let mut result = Clustering {
        window: f.window,
        locations: n,
        sampled: s,
        k,
        k_choice: if k == 1 && k_choice == KChoice::Silhouette { KChoice::One } else { k_choice },
        silhouette: if k > 1 { silhouette } else { None },
        clusters: std::mem::take(&mut clusters),
        assignment,
        outliers,
        summary: String::new(),
    };
    result.summary = words::summary(trace, &result);
    Ok(result)
}

/// Up to `max` of `0..n`, ascending, drawn without replacement by a seeded partial Fisher-Yates (all of
/// them when n <= max).
fn sample(n: usize, max: usize, seed: u64) -> Vec<usize> {
    if n <= max {
        return (0..n).collect();
    }
    let mut idx: Vec<usize> = (0..n).collect();
    let mut state = seed;
    for i in 0..max {
        let j = i + (splitmix64(&mut state) % (n - i) as u64) as usize;
        idx.swap(i, j);
    }
    idx.truncate(max);
    idx.sort_unstable();
    idx
}

/// SplitMix64 (Steele, Lea and Flood): a fixed, portable sequence for the sample.
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The sample's pairwise Euclidean distances, whole (for silhouettes and medoids).
struct SquareMatrix {
    n: usize,
    d: Vec<f64>,
}

impl SquareMatrix {
    fn of(f: &Features, sample: &[usize]) -> Self {
        let n = sample.len();
        let mut d = vec![0.0; n * n];
        for i in 0..n {
            for j in i + 1..n {
                let x = f.distance(sample[i], sample[j]);
                d[i * n + j] = x;
                d[j * n + i] = x;
            }
        }
        SquareMatrix { n, d }
    }

    #[inline]
    fn row(&self, i: usize) -> &[f64] {
        &self.d[i * self.n..(i + 1) * self.n]
    }

    fn condensed(&self) -> Vec<f64> {
        let mut c = Vec::with_capacity(self.n * self.n.saturating_sub(1) / 2);
        for i in 0..self.n {
            c.extend_from_slice(&self.row(i)[i + 1..]);
        }
        c
    }

    fn max(&self) -> f64 {
        self.d.iter().copied().fold(0.0, f64::max)
    }
}

/// Labels of the sample (0..k), how k was found, and the mean silhouette at that k.
fn cut(dist: &SquareMatrix, k: Option<usize>) -> (Vec<usize>, KChoice, Option<f64>) {
    let s = dist.n;
    let one = |choice| (vec![0; s], choice, None);
    match k {
        Some(1) => return one(KChoice::Given),
        None if s < 3 || dist.max() <= FLAT => return one(KChoice::One),
        _ => {}
    }
    let mut condensed = dist.condensed();
    let dendrogram = kodama::linkage(&mut condensed, s, kodama::Method::Ward);
    if let Some(k) = k {
        let labels = cut_dendrogram(&dendrogram, k);
        let sil = silhouette(dist, &labels, k);
        return (labels, KChoice::Given, Some(sil));
    }
    let mut best: Option<(f64, usize, Vec<usize>)> = None;
    for k in 2..=MAX_CHOSEN_K.min(s - 1) {
        let labels = cut_dendrogram(&dendrogram, k);
        let sil = silhouette(dist, &labels, k);
        // Strictly better only: ties keep the smaller k.
        if best.as_ref().is_none_or(|(b, _, _)| sil > *b + 1e-12) {
            best = Some((sil, k, labels));
        }
    }
    match best {
        Some((sil, _, labels)) if sil > MIN_SILHOUETTE => (labels, KChoice::Silhouette, Some(sil)),
        _ => one(KChoice::One),
    }
}

/// The clusters left after the dendrogram's first `s - k` merges, labelled 0..k in order of their first
/// observation.
fn cut_dendrogram(dendrogram: &kodama::Dendrogram<f64>, k: usize) -> Vec<usize> {
    let s = dendrogram.observations();
    let mut parent: Vec<usize> = (0..2 * s).collect();
    fn find(parent: &mut [usize], mut x: usize) -> usize {
        while parent[x] != x {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        x
    }
    for (i, step) in dendrogram.steps().iter().take(s.saturating_sub(k)).enumerate() {
        let new = s + i;
        let a = find(&mut parent, step.cluster1);
        let b = find(&mut parent, step.cluster2);
        parent[a] = new;
        parent[b] = new;
    }
    let mut label_of_root = vec![usize::MAX; 2 * s];
    let mut next = 0;
    (0..s)
        .map(|o| {
            let r = find(&mut parent, o);
            if label_of_root[r] == usize::MAX {
                label_of_root[r] = next;
                next += 1;
            }
            label_of_root[r]
        })
        .collect()
}

/// The mean silhouette (Rousseeuw 1987) of the labelled sample; a point alone in its cluster counts 0.
fn silhouette(dist: &SquareMatrix, labels: &[usize], k: usize) -> f64 {
    let s = dist.n;
    let mut size = vec![0usize; k];
    labels.iter().for_each(|&c| size[c] += 1);
    let mut sums = vec![0.0; k];
    let mut total = 0.0;
    for (i, &own) in labels.iter().enumerate() {
        if size[own] == 1 {
            continue;
        }
        sums.iter_mut().for_each(|x| *x = 0.0);
        for (&d, &c) in dist.row(i).iter().zip(labels) {
            sums[c] += d;
        }
        let a = sums[own] / (size[own] - 1) as f64;
        let b =
            (0..k).filter(|&c| c != own && size[c] > 0).map(|c| sums[c] / size[c] as f64).fold(f64::INFINITY, f64::min);
        let m = a.max(b);
        if m > 0.0 && b.is_finite() {
            total += (b - a) / m;
        }
    }
    total / s as f64
}

/// Per label, the sampled location with the least total distance to its cluster's others (ties: the first),
/// as a location index.
fn medoids(dist: &SquareMatrix, labels: &[usize], sample: &[usize]) -> Vec<usize> {
    let k = labels.iter().max().map_or(0, |&m| m + 1);
    let mut best = vec![(f64::INFINITY, 0usize); k];
    for (i, &c) in labels.iter().enumerate() {
        let total: f64 = dist.row(i).iter().zip(labels).filter(|&(_, &l)| l == c).map(|(d, _)| d).sum();
        if total < best[c].0 {
            best[c] = (total, sample[i]);
        }
    }
    best.into_iter().map(|(_, l)| l).collect()
}

/// The nearest medoid to location `l` (skipping cluster `skip`) and the distance to it; ties: the first.
fn nearest(f: &Features, l: usize, medoids: &[usize], skip: Option<usize>) -> (usize, f64) {
    let mut best = (usize::MAX, f64::INFINITY);
    for (c, &m) in medoids.iter().enumerate() {
        if Some(c) == skip {
            continue;
        }
        let d = f.distance(l, m);
        if d < best.1 {
            best = (c, d);
        }
    }
    best
}

/// Per cluster, the sums of its members' features, and of all locations: means of a cluster, of the others.
struct ClusterSums {
    per: Vec<Vec<f64>>,
    count: Vec<usize>,
    all: Vec<f64>,
    n: usize,
}

impl ClusterSums {
    fn new(f: &Features, members: &[Vec<u32>]) -> Self {
        let d = f.dims();
        let per: Vec<Vec<f64>> = members
            .iter()
            .map(|m| {
                let mut s = vec![0.0; d];
                for &l in m {
                    s.iter_mut().zip(f.row(l as usize)).for_each(|(a, x)| *a += x);
                }
                s
            })
            .collect();
        let mut all = vec![0.0; d];
        for s in &per {
            all.iter_mut().zip(s).for_each(|(a, x)| *a += x);
        }
        ClusterSums { count: members.iter().map(Vec::len).collect(), per, all, n: f.rows() }
    }

    /// The mean of cluster `c`'s members.
    fn of(&self, c: usize) -> Vec<f64> {
        let k = self.count[c].max(1) as f64;
        self.per[c].iter().map(|x| x / k).collect()
    }

    /// The mean of every location outside cluster `c`.
    fn others(&self, c: usize) -> Vec<f64> {
        let k = (self.n - self.count[c]).max(1) as f64;
        self.all.iter().zip(&self.per[c]).map(|(a, x)| (a - x) / k).collect()
    }

    /// The mean of cluster `c`'s members other than `l`.
    fn without(&self, c: usize, f: &Features, l: usize) -> Vec<f64> {
        let k = (self.count[c] - 1).max(1) as f64;
        self.per[c].iter().zip(f.row(l)).map(|(a, x)| (a - x) / k).collect()
    }
}

/// The locations alone in their cluster (when there are others) and those far from their medoid.
fn outliers(
    trace: &Trace,
    f: &Features,
    clusters: &[Cluster],
    assignment: &[u32],
    distance: &[f64],
    medoids: &[usize],
    sums: &ClusterSums,
) -> Vec<Outlier> {
    let mut out = Vec::new();
    if clusters.len() < 2 && f.rows() < 2 {
        return out;
    }
    for (c, cl) in clusters.iter().enumerate() {
        if cl.members.len() == 1 && clusters.len() > 1 {
            let l = cl.members[0] as usize;
            let (_, d) = nearest(f, l, medoids, Some(c));
            let own: Vec<f64> = f.row(l).to_vec();
            out.push(Outlier {
                location: LocationId(l as u32),
                cluster: c,
                distance: d,
                reason: OutlierReason::Alone,
                distinguishing: words::distinguishing(trace, f, &own, &sums.others(c), 3),
            });
            continue;
        }
        if cl.members.len() < MIN_SIZE_FOR_SPREAD {
            continue;
        }
        let mut ds: Vec<f64> = cl.members.iter().map(|&l| distance[l as usize]).collect();
        let threshold = robust_threshold(&mut ds).max(MIN_OUTLIER_DISTANCE);
        for &l in &cl.members {
            let l = l as usize;
            debug_assert_eq!(assignment[l] as usize, c);
            if distance[l] > threshold {
                out.push(Outlier {
                    location: LocationId(l as u32),
                    cluster: c,
                    distance: distance[l],
                    reason: OutlierReason::Far,
                    distinguishing: words::distinguishing(trace, f, f.row(l), &sums.without(c, f, l), 3),
                });
            }
        }
    }
    out.sort_by(|a, b| {
        (a.reason != OutlierReason::Alone)
            .cmp(&(b.reason != OutlierReason::Alone))
            .then(b.distance.total_cmp(&a.distance))
            .then(a.location.cmp(&b.location))
    });
    out
}

/// Median plus three MADs scaled to a normal's deviation (1.4826), of `ds` (reordered).
fn robust_threshold(ds: &mut [f64]) -> f64 {
    let median = median(ds);
    let mut dev: Vec<f64> = ds.iter().map(|d| (d - median).abs()).collect();
    median + 3.0 * 1.4826 * self::median(&mut dev)
}

fn median(xs: &mut [f64]) -> f64 {
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    if n == 0 {
        0.0
    } else if n % 2 == 1 {
        xs[n / 2]
    } else {
        (xs[n / 2 - 1] + xs[n / 2]) / 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sample_is_all_when_small_and_fixed_when_large() {
        assert_eq!(sample(5, 10, SEED), vec![0, 1, 2, 3, 4]);
        let a = sample(100_000, 2_000, SEED);
        assert_eq!(a.len(), 2_000);
        assert!(a.windows(2).all(|w| w[0] < w[1]), "ascending, no repeats");
        assert_eq!(a, sample(100_000, 2_000, SEED));
        assert_ne!(a, sample(100_000, 2_000, SEED + 1));
    }

    #[test]
    fn robust_threshold_ignores_one_far_value() {
        let mut ds = vec![1.0, 1.1, 0.9, 1.0, 1.05, 0.95, 50.0];
        let t = robust_threshold(&mut ds);
        assert!(t > 1.1 && t < 2.0, "{t}");
    }

    #[test]
    fn silhouette_of_two_tight_groups_is_near_one() {
        // Points 0, 0.01, 1, 1.01 on a line.
        let xs = [0.0f64, 0.01, 1.0, 1.01];
        let n = xs.len();
        let mut d = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..n {
                d[i * n + j] = (xs[i] - xs[j]).abs();
            }
        }
        let m = SquareMatrix { n, d };
        let good = silhouette(&m, &[0, 0, 1, 1], 2);
        let bad = silhouette(&m, &[0, 1, 0, 1], 2);
        assert!(good > 0.95 && bad < 0.0, "{good} {bad}");
        let dendrogram = kodama::linkage(&mut m.condensed(), n, kodama::Method::Ward);
        assert_eq!(cut_dendrogram(&dendrogram, 2), vec![0, 0, 1, 1]);
        assert_eq!(cut_dendrogram(&dendrogram, 4), vec![0, 1, 2, 3]);
        assert_eq!(cut_dendrogram(&dendrogram, 1), vec![0, 0, 0, 0]);
    }
}
