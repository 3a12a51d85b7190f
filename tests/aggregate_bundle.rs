//! The worker's aggregation as column buffers (`analyses::aggregate::bundle`): round trips for both
//! methods, and truncated, flipped or mismatched bytes give errors, never panics.

use crate::common;

use common::read::read_grains;
use weft::analyses::aggregate::bundle::{decode, encode, AggregationBundleError};
use weft::analyses::aggregate::{Aggregation, Method};
use weft::analyses::grains::{GrainAnalysis, Thresholds};
use weft::samples::grains::fib_profile;

fn analysis(n: u32, cutoff: u32) -> GrainAnalysis {
    let input = read_grains("fib.csv", &fib_profile(n, cutoff, 8)).expect("generated profile reads");
    GrainAnalysis::new(&input, Thresholds::paper()).expect("analyses")
}

#[test]
fn round_trips_both_methods() {
    let a = analysis(20, 5);
    for method in [Method::Reduction, Method::Family] {
        let agg = Aggregation::new(&a, method);
        let back = decode(&encode(&agg, &a.graph), &a.graph).expect("decodes");
        assert_eq!(back.method, method);
        assert_eq!(back.restructured, agg.restructured);
        assert_eq!(back.tree.kind, agg.tree.kind);
        assert_eq!(back.tree.children, agg.tree.children);
        assert_eq!(back.tree.parent, agg.tree.parent);
        assert_eq!(back.tree.root, agg.tree.root);
        assert_eq!(back.metrics.exec, agg.metrics.exec);
        assert_eq!(back.metrics.work, agg.metrics.work);
        assert_eq!(back.metrics.problems, agg.metrics.problems);
        assert_eq!(back.metrics.strength, agg.metrics.strength);
    }
}

#[test]
fn truncated_or_flipped_bytes_are_errors_not_panics() {
    let a = analysis(18, 4);
    let bytes = encode(&Aggregation::new(&a, Method::Reduction), &a.graph);
    for cut in (0..bytes.len()).step_by(37) {
        assert!(decode(&bytes[..cut], &a.graph).is_err(), "cut at {cut}");
    }
    // Any single byte changed decodes to a checked aggregation or an error, never a panic.
    let mut x = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..3000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let mut b = bytes.clone();
        let i = (x % b.len() as u64) as usize;
        b[i] ^= (x >> 32) as u8 | 1;
        if let Ok(agg) = decode(&b, &a.graph) {
            // What passed the checks can be walked: every node once, from the root.
            assert_eq!(agg.tree.post_order().len(), agg.tree.len());
        }
    }
}

#[test]
fn a_bundle_for_another_graph_is_refused() {
    let (small, large) = (analysis(16, 3), analysis(18, 4));
    let bytes = encode(&Aggregation::new(&small, Method::Reduction), &small.graph);
    assert!(matches!(decode(&bytes, &large.graph), Err(AggregationBundleError::Mismatch(_))));
}

#[test]
fn a_cycle_or_a_shared_member_is_refused() {
    let a = analysis(16, 3);
    let agg = Aggregation::new(&a, Method::Reduction);
    let mut tree = agg.tree.clone();
    // A group that lists its own parent among its members.
    let g = (0..tree.len() as u32).find(|&u| !tree.is_leaf(u) && u != tree.root).expect("an inner group");
    let first = tree.first[g as usize] as usize;
    tree.children[first] = tree.parent[g as usize];
    let bad = Aggregation { tree, ..agg.clone() };
    assert!(matches!(decode(&encode(&bad, &a.graph), &a.graph), Err(AggregationBundleError::Corrupt(_))));
    let mut metrics = agg.metrics.clone();
    metrics.on_critical.pop();
    let bad = Aggregation { metrics, ..agg };
    assert!(matches!(decode(&encode(&bad, &a.graph), &a.graph), Err(AggregationBundleError::Corrupt(_))));
}
