//! The flame graph's layout of a call tree (issue #55): aggregated, not time-ordered. Each node is a box on
//! the level of its depth, as wide as its inclusive time over the shown root's, placed after its earlier
//! siblings inside its parent; so children's widths sum within their parent's (a node's inclusive time is its
//! exclusive time plus its children's). Zoomed into a subtree, its root takes the whole width and its
//! ancestors are stacked above it as full-width levels (a click on one goes back).
//!
//! A node narrower than `min_px` is merged with the sub-pixel nodes beside it on its level into one box per
//! pixel (`merged` counts them) and its descendants, narrower still, are folded into it: the boxes grow with
//! the levels times the width in pixels, not with the nodes; every node at least `min_px` wide is one box.
//! Nodes without time (zero-duration intervals only) have no width and are left out. One pass over the nodes
//! drawn and their children: O(boxes + their children). No pixels beyond the width, no colours, no names.

use weft_analyses::calltree::CallTree;

/// One box of the flame graph: a node, or the sub-pixel nodes of one pixel merged.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlameBox {
    /// The node (an index into the tree's nodes); for a merged box, the first node merged.
    pub node: u32,
    /// The level: 0 for the top of the stack of ancestors (or a root), growing with depth.
    pub level: u32,
    pub x0: f32,
    pub x1: f32,
    /// How many nodes the box stands for: 1 for a node drawn as itself, more for sub-pixel nodes merged.
    pub merged: u32,
    /// An ancestor of the zoomed-into node (drawn full width above it).
    pub ancestor: bool,
}

/// The boxes of a call tree at one width.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FlameLayout {
    /// In drawing order: ancestors, then the shown subtree in preorder (merged boxes where they close).
    pub boxes: Vec<FlameBox>,
    /// Levels used (the deepest box's level plus one).
    pub levels: u32,
    /// The time the width stands for: the shown root's inclusive time, or the tree's total.
    pub total_ns: u64,
}

/// The ancestors of node `k`, outermost first (not `k` itself).
pub fn ancestors(tree: &CallTree, k: usize) -> Vec<usize> {
    let mut up = Vec::new();
    let mut at = tree.nodes[k].parent;
    while let Some(p) = at {
        up.push(p as usize);
        at = tree.nodes[p as usize].parent;
    }
    up.reverse();
    up
}

/// Lay out `tree` over `width_px` (from x = 0), zoomed into node `focus` (None: every root), nodes narrower
/// than `min_px` merged per pixel.
pub fn flame_layout(tree: &CallTree, focus: Option<usize>, width_px: f32, min_px: f32) -> FlameLayout {
    let focus = focus.filter(|&k| k < tree.nodes.len());
    let mut out = FlameLayout::default();
    let width = width_px.max(0.0);
    let roots: Vec<usize> = match focus {
        Some(k) => {
            for (level, &a) in ancestors(tree, k).iter().enumerate() {
                out.boxes.push(FlameBox {
                    node: a as u32,
                    level: level as u32,
                    x0: 0.0,
                    x1: width,
                    merged: 1,
                    ancestor: true,
                });
            }
            vec![k]
        }
        None => tree.roots().collect(),
    };
    let base = focus.map_or(0, |k| tree.nodes[k].depth);
    let ancestors = out.boxes.len() as u32;
    out.total_ns = roots.iter().map(|&k| tree.nodes[k].inclusive_ns).sum();
    if out.total_ns == 0 || width <= 0.0 {
        out.levels = ancestors;
        return out;
    }
    let scale = width as f64 / out.total_ns as f64;
    // The merged box being gathered on each level (relative to the shown root's depth).
    let mut pending: Vec<Option<FlameBox>> = Vec::new();
    let mut levels = ancestors;
    // (node, x0) to place, the next on top: siblings pushed in reverse so the leftmost comes first.
    let mut todo: Vec<(usize, f64)> = Vec::new();
    let push_children = |todo: &mut Vec<(usize, f64)>, kids: &mut dyn Iterator<Item = usize>, x0: f64| {
        let from = todo.len();
        let mut x = x0;
        for c in kids {
            todo.push((c, x));
            x += tree.nodes[c].inclusive_ns as f64 * scale;
        }
        todo[from..].reverse();
    };
    push_children(&mut todo, &mut roots.iter().copied(), 0.0);
    while let Some((k, x0)) = todo.pop() {
        let n = &tree.nodes[k];
        if n.inclusive_ns == 0 {
            continue;
        }
        let rel = (n.depth - base) as usize;
        let level = ancestors + rel as u32;
        if pending.len() <= rel {
            pending.resize(rel + 1, None);
        }
        let w = n.inclusive_ns as f64 * scale;
        let (x0f, x1f) = (x0 as f32, (x0 + w) as f32);
        if w >= min_px as f64 {
            if let Some(p) = pending[rel].take() {
                out.boxes.push(p);
            }
            out.boxes.push(FlameBox { node: k as u32, level, x0: x0f, x1: x1f, merged: 1, ancestor: false });
            levels = levels.max(level + 1);
            push_children(&mut todo, &mut tree.children(k), x0);
            continue;
        }
        // Narrower than a pixel: into the pixel's merged box on this level (its subtree folded into it).
        match &mut pending[rel] {
            Some(p) if x0f <= p.x1 + 1e-3 && p.x1 - p.x0 < min_px => {
                p.x1 = p.x1.max(x1f);
                p.merged += 1;
            }
            slot => {
                if let Some(p) = slot.take() {
                    out.boxes.push(p);
                }
                *slot = Some(FlameBox { node: k as u32, level, x0: x0f, x1: x1f, merged: 1, ancestor: false });
                levels = levels.max(level + 1);
            }
        }
    }
    out.boxes.extend(pending.into_iter().flatten());
    out.levels = levels;
    out
}

impl FlameLayout {
    /// The box at (x, level), if any (the last drawn wins, as on screen).
    pub fn at(&self, x: f32, level: u32) -> Option<&FlameBox> {
        self.boxes.iter().rev().find(|b| b.level == level && x >= b.x0 && x < b.x1.max(b.x0 + 1.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft_analyses::calltree::CallNode;
    use weft_model::RegionId;

    /// A tree from (parent, inclusive, exclusive) in preorder; depths and subtree ends derived.
    fn tree(spec: &[(Option<u32>, u64)]) -> CallTree {
        let mut nodes: Vec<CallNode> = Vec::new();
        for (k, &(parent, inclusive_ns)) in spec.iter().enumerate() {
            let depth = parent.map_or(0, |p| nodes[p as usize].depth + 1);
            nodes.push(CallNode {
                parent,
                region: RegionId(k as u32),
                depth,
                count: 1,
                inclusive_ns,
                exclusive_ns: 0,
                subtree_end: k as u32 + 1,
            });
            let mut up = parent;
            while let Some(p) = up {
                nodes[p as usize].subtree_end = k as u32 + 1;
                up = nodes[p as usize].parent;
            }
        }
        CallTree { nodes }
    }

    /// main(100) > [solve(60) > [wait(30), kernel(20)], io(30)], and a second root idle(100).
    fn small() -> CallTree {
        tree(&[(None, 100), (Some(0), 60), (Some(1), 30), (Some(1), 20), (Some(0), 30), (None, 100)])
    }

    #[test]
    fn widths_are_inclusive_times_and_children_sit_inside_their_parent() {
        let l = flame_layout(&small(), None, 200.0, 1.0);
        let at = |node: u32| *l.boxes.iter().find(|b| b.node == node).unwrap();
        assert_eq!(l.total_ns, 200);
        assert_eq!((at(0).x0, at(0).x1, at(0).level), (0.0, 100.0, 0));
        assert_eq!((at(5).x0, at(5).x1, at(5).level), (100.0, 200.0, 0));
        assert_eq!((at(1).x0, at(1).x1, at(1).level), (0.0, 60.0, 1));
        assert_eq!((at(4).x0, at(4).x1), (60.0, 90.0));
        assert_eq!((at(2).x0, at(2).x1, at(3).x0, at(3).x1, at(3).level), (0.0, 30.0, 30.0, 50.0, 2));
        assert_eq!((l.boxes.len(), l.levels), (6, 3), "every node once");
        assert_eq!(l.at(40.0, 2).map(|b| b.node), Some(3));
        assert_eq!(l.at(55.0, 2), None, "solve's own time has no child");
    }

    #[test]
    fn zoomed_into_a_subtree_its_root_takes_the_width_under_its_ancestors() {
        let l = flame_layout(&small(), Some(1), 300.0, 1.0);
        assert_eq!(l.total_ns, 60);
        let b: Vec<(u32, u32, f32, f32, bool)> =
            l.boxes.iter().map(|b| (b.node, b.level, b.x0, b.x1, b.ancestor)).collect();
        assert_eq!(
            b,
            vec![
                (0, 0, 0.0, 300.0, true),
                (1, 1, 0.0, 300.0, false),
                (2, 2, 0.0, 150.0, false),
                (3, 2, 150.0, 250.0, false)
            ]
        );
        assert_eq!(l.levels, 3);
    }

    /// A wide tree: siblings of one microsecond beside a heavy one. Boxes grow with pixels, not nodes; each
    /// pixel's merged box is at most about a pixel wide; every node's time is drawn exactly once per level.
    #[test]
    fn sub_pixel_nodes_merge_per_pixel_and_every_level_adds_up() {
        let mut spec = vec![(None, 1_000_000u64)];
        spec.push((Some(0), 500_000));
        for _ in 0..100_000 {
            spec.push((Some(0), 5));
        }
        let t = tree(&spec);
        let l = flame_layout(&t, None, 1000.0, 1.0);
        assert!(l.boxes.len() < 1000, "{} boxes for 100,001 nodes", l.boxes.len());
        let level1: Vec<&FlameBox> = l.boxes.iter().filter(|b| b.level == 1).collect();
        assert_eq!(
            level1.iter().map(|b| b.merged as usize).sum::<usize>(),
            100_001,
            "every node once, as itself or merged"
        );
        assert!(level1.iter().filter(|b| b.merged > 1).all(|b| b.x1 - b.x0 < 2.0));
        let widths: f32 = level1.iter().map(|b| b.x1 - b.x0).sum();
        assert!((widths - 1000.0).abs() < 0.5, "level 1 covers its parent: {widths}");
        // Boxes of one level never overlap.
        let mut xs: Vec<(f32, f32)> = level1.iter().map(|b| (b.x0, b.x1)).collect();
        xs.sort_by(|a, b| a.0.total_cmp(&b.0));
        assert!(xs.windows(2).all(|w| w[0].1 <= w[1].0 + 1e-3));
    }

    #[test]
    fn an_empty_or_timeless_tree_has_no_boxes() {
        assert_eq!(flame_layout(&CallTree::default(), None, 100.0, 1.0).boxes.len(), 0);
        let l = flame_layout(&tree(&[(None, 0), (Some(0), 0)]), None, 100.0, 1.0);
        assert_eq!((l.boxes.len(), l.total_ns), (0, 0));
    }
}
