//! Normalization (phase 2): nested linear groups flattened into one linear group whose members are the
//! non-linear groups and leaves of the nest, in order (Section 3.2). One post-order pass; draws nothing.

use super::tree::{rebuild, AggregationTree, GroupKind, Rebuilt};

pub fn normalize(t: &AggregationTree) -> AggregationTree {
    rebuild(t, |old, parent_kind, _new, kids| {
        if t.kind[old as usize] == GroupKind::Linear && parent_kind == Some(GroupKind::Linear) {
            Rebuilt::Splice(kids)
        } else {
            Rebuilt::Node(kids)
        }
    })
}
