//! Separation (phase 4), per problem view: in a problematic group, the non-problematic members are grouped
//! so that only the problems and one quiet group show when it is opened (Section 3.4). A fork-join (or
//! sibling) group bundles all its quiet members into one `Separated` group, placed where the first of them
//! was; a linear (or family) group bundles each run of consecutive quiet members into a `SeparatedLinear`
//! group. A lone quiet member stays as it is (bundling it would only add a level). One post-order pass;
//! draws nothing.

use super::propagate::grain_of_leaf;
use super::tree::{rebuild, AggregationTree, GroupKind, Rebuilt};
use crate::grains::{GrainAnalysis, NONE};

/// Is each node of `t` problematic in view `view` (index into `METRICS`)?
pub fn problematic(a: &GrainAnalysis, t: &AggregationTree, view: usize) -> Vec<bool> {
    let mut bad = Vec::with_capacity(t.len());
    extend_bad(a, t, view, &mut bad);
    bad
}

/// Fill `bad` for nodes from `bad.len()` on; every tree here is built children first, so a child's id
/// is lower than its parent's.
fn extend_bad(a: &GrainAnalysis, t: &AggregationTree, view: usize, bad: &mut Vec<bool>) {
    let pv = a.problems.get(view);
    let from = bad.len();
    bad.resize(t.len(), false);
    for i in from..t.len() {
        bad[i] = if t.kind[i] == GroupKind::Leaf {
            let gi = grain_of_leaf(a, t.node[i]);
            gi != NONE && pv.is_some_and(|p| p.problematic[gi as usize])
        } else {
            t.children_of(i as u32).iter().any(|&c| bad[c as usize])
        };
    }
}

pub fn separate(a: &GrainAnalysis, t: &AggregationTree, view: usize) -> AggregationTree {
    let mut bad: Vec<bool> = Vec::new();
    rebuild(t, |old, _parent, new, kids| {
        extend_bad(a, new, view, &mut bad);
        if !kids.iter().any(|&k| bad[k as usize]) {
            return Rebuilt::Node(kids);
        }
        let kind = t.kind[old as usize];
        if kind.is_series() {
            let mut out = Vec::with_capacity(kids.len());
            let mut run: Vec<u32> = Vec::new();
            let flush = |run: &mut Vec<u32>, out: &mut Vec<u32>, new: &mut AggregationTree| {
                if run.len() >= 2 {
                    out.push(new.push(GroupKind::SeparatedLinear, NONE, NONE, NONE, run));
                } else {
                    out.extend_from_slice(run);
                }
                run.clear();
            };
            for &k in &kids {
                if bad[k as usize] {
                    flush(&mut run, &mut out, new);
                    out.push(k);
                } else {
                    run.push(k);
                }
            }
            flush(&mut run, &mut out, new);
            Rebuilt::Node(out)
        } else {
            let quiet: Vec<u32> = kids.iter().copied().filter(|&k| !bad[k as usize]).collect();
            if quiet.len() < 2 {
                return Rebuilt::Node(kids);
            }
            let bundle = new.push(GroupKind::Separated, NONE, NONE, NONE, &quiet);
            let first_quiet = kids.iter().position(|&k| !bad[k as usize]).unwrap_or(0);
            let mut out: Vec<u32> = Vec::with_capacity(kids.len() - quiet.len() + 1);
            for (i, &k) in kids.iter().enumerate() {
                if i == first_quiet {
                    out.push(bundle);
                }
                if bad[k as usize] {
                    out.push(k);
                }
            }
            Rebuilt::Node(out)
        }
    })
}
