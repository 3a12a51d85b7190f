//! `weft clusters --json`'s shape, built once for the CLI and the page's clusters panel (the worker answers
//! with it): `{"k", "k_chosen_by", "silhouette", "locations", "sampled", "window": {"start_ns", "end_ns"},
//! "features", "clusters": [{"medoid", "medoid_name", "size", "members", "mean_distance", "max_distance",
//! "spread_ns", "distinguishing"}], "outliers": [{"location", "name", "cluster", "distance", "reason",
//! "distinguishing"}], "summary"}` (docs/clusters.md). Must not: print or read files.

use super::{Clustering, Distinguishing, KChoice, OutlierReason};
use crate::moments::location_label;
use serde::Serialize;
use weft_model::Trace;

#[derive(Serialize)]
pub struct WindowJson {
    pub start_ns: u64,
    pub end_ns: u64,
}

#[derive(Serialize)]
pub struct ClusterJson<'a> {
    pub medoid: u32,
    pub medoid_name: String,
    pub size: usize,
    pub members: &'a [u32],
    pub mean_distance: f64,
    pub max_distance: f64,
    pub spread_ns: f64,
    pub distinguishing: &'a [Distinguishing],
}

#[derive(Serialize)]
pub struct OutlierJson<'a> {
    pub location: u32,
    pub name: String,
    pub cluster: usize,
    pub distance: f64,
    pub reason: OutlierReason,
    pub distinguishing: &'a [Distinguishing],
}

#[derive(Serialize)]
pub struct ClustersJson<'a> {
    pub k: usize,
    pub k_chosen_by: KChoice,
    pub silhouette: Option<f64>,
    pub locations: usize,
    pub sampled: usize,
    pub window: WindowJson,
    pub features: Vec<String>,
    pub clusters: Vec<ClusterJson<'a>>,
    pub outliers: Vec<OutlierJson<'a>>,
    pub summary: &'a str,
}

impl<'a> ClustersJson<'a> {
    pub fn new(trace: &Trace, c: &'a Clustering, features: Vec<String>) -> Self {
        let len = c.window.len_ns() as f64;
        ClustersJson {
            k: c.k,
            k_chosen_by: c.k_choice,
            silhouette: c.silhouette,
            locations: c.locations,
            sampled: c.sampled,
            window: WindowJson { start_ns: c.window.start_ns, end_ns: c.window.end_ns },
            features,
            clusters: c
                .clusters
                .iter()
                .map(|cl| ClusterJson {
                    medoid: cl.medoid.0,
                    medoid_name: location_label(trace, cl.medoid),
                    size: cl.members.len(),
                    members: &cl.members,
                    mean_distance: cl.mean_distance,
                    max_distance: cl.max_distance,
                    spread_ns: cl.mean_distance * len,
                    distinguishing: &cl.distinguishing,
                })
                .collect(),
            outliers: c
                .outliers
                .iter()
                .map(|o| OutlierJson {
                    location: o.location.0,
                    name: location_label(trace, o.location),
                    cluster: o.cluster,
                    distance: o.distance,
                    reason: o.reason,
                    distinguishing: &o.distinguishing,
                })
                .collect(),
            summary: &c.summary,
        }
    }
}
