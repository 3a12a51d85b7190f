//! Navigation and layout of an aggregated grain graph: which groups are open (the graph opens as one
//! group; open and close a group, open everything beneath it, drill to a depth, drill along the global
//! critical path) and where every visible node sits. Closed groups are equal-size boxes; an opened group
//! envelops its members: one after another top to bottom for linear and family groups, side by side between
//! its fork and join for fork-join and sibling groups. Positions are kept relative to the parent, so
//! opening or closing a group re-lays out only that group's visible part and the chain of its ancestors
//! (each over its own members), not the whole graph.
//!
//! The filtered view (Muddukrishna, Section 3.3) hides non-problematic members of opened groups; in a
//! linear group each run of hidden members becomes one fast-forward edge, in a fork-join group all hidden
//! members become one. Units are abstract; no colours, no pixels; computes no metric.

use weft_analyses::aggregate::{AggregationTree, GroupKind};
use weft_analyses::grains::{GrainGraph, NONE};

#[derive(Clone, Debug)]
pub struct AggregateParams {
    /// Every closed group's size.
    pub group_w: f32,
    pub group_h: f32,
    /// A leaf holding work, and one that holds none (start, end, a dissolved fork).
    pub leaf_w: f32,
    pub leaf_h: f32,
    pub knot: f32,
    pub gap: f32,
    /// Inner margin of an opened group.
    pub pad: f32,
    /// Length of a fast-forward edge in a linear group, and width of one in a fork-join group.
    pub fast_forward: f32,
}

impl Default for AggregateParams {
    fn default() -> Self {
        AggregateParams {
            group_w: 56.0,
            group_h: 26.0,
            leaf_w: 12.0,
            leaf_h: 18.0,
            knot: 6.0,
            gap: 10.0,
            pad: 8.0,
            fast_forward: 16.0,
        }
    }
}

/// One place in an opened group: a member, or a fast-forward edge standing for hidden members.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Slot {
    Member(u32),
    /// Box (relative to the group) the edge runs through, top to bottom, and how many members it hides.
    FastForward {
        x: f32,
        y: f32,
        w: f32,
        h: f32,
        hidden: u32,
    },
}

/// The navigation state and its layout, for one aggregation tree.
#[derive(Clone, Debug)]
pub struct AggregateView {
    pub params: AggregateParams,
    pub open: Vec<bool>,
    /// Per tree node, when visible: size, and top-left offset from its parent's top-left.
    pub w: Vec<f32>,
    pub h: Vec<f32>,
    pub dx: Vec<f32>,
    pub dy: Vec<f32>,
    /// Filtered view: members to keep (problematic in the view); None shows everything.
    pub keep: Option<Vec<bool>>,
    /// Per opened group: its slots (members and fast-forward edges), in order.
    slots: Vec<Vec<Slot>>,
}

impl AggregateView {
    /// Everything closed: the root alone.
    pub fn new(t: &AggregationTree, g: &GrainGraph, params: AggregateParams) -> Self {
        let n = t.len();
        let mut v = AggregateView {
            params,
            open: vec![false; n],
            w: vec![0.0; n],
            h: vec![0.0; n],
            dx: vec![0.0; n],
            dy: vec![0.0; n],
            keep: None,
            slots: vec![Vec::new(); n],
        };
        if n > 0 {
            v.size_closed(t, g, t.root);
        }
        v
    }

    /// Filter (keep only members where `keep` holds) or, with None, show everything; relays out fully.
    pub fn set_filter(&mut self, t: &AggregationTree, g: &GrainGraph, keep: Option<Vec<bool>>) {
        self.keep = keep;
        self.relayout_all(t, g);
    }

    pub fn is_open(&self, u: u32) -> bool {
        self.open[u as usize]
    }

    /// Is `u` drawn (the root, or a member of an opened group whose ancestors are all open)?
    pub fn is_visible(&self, t: &AggregationTree, u: u32) -> bool {
        let mut p = t.parent[u as usize];
        while p != NONE {
            if !self.open[p as usize] {
                return false;
            }
            p = t.parent[p as usize];
        }
        true
    }

    pub fn open_group(&mut self, t: &AggregationTree, g: &GrainGraph, u: u32) {
        if t.is_leaf(u) || self.open[u as usize] {
            return;
        }
        self.open[u as usize] = true;
        self.relayout_from(t, g, u);
    }

    pub fn close_group(&mut self, t: &AggregationTree, g: &GrainGraph, u: u32) {
        if !self.open[u as usize] {
            return;
        }
        self.open[u as usize] = false;
        self.relayout_from(t, g, u);
    }

    /// Set which groups are open (one flag per tree node) and lay out from scratch (a restored state).
    pub fn set_open(&mut self, t: &AggregationTree, g: &GrainGraph, open: &[bool]) {
        for (u, o) in self.open.iter_mut().enumerate() {
            *o = t.kind[u] != GroupKind::Leaf && open.get(u).copied().unwrap_or(false);
        }
        self.relayout_all(t, g);
    }

    /// Open `u` and every group beneath it.
    pub fn open_all_beneath(&mut self, t: &AggregationTree, g: &GrainGraph, u: u32) {
        let mut stack = vec![u];
        while let Some(x) = stack.pop() {
            if !t.is_leaf(x) {
                self.open[x as usize] = true;
                stack.extend(t.children_of(x));
            }
        }
        self.relayout_from(t, g, u);
    }

    /// Open exactly the groups above `depth` (the root is at depth 0): members down to `depth` show.
    pub fn drill_to_depth(&mut self, t: &AggregationTree, g: &GrainGraph, depth: u32) {
        for (u, open) in self.open.iter_mut().enumerate() {
            *open = t.kind[u] != GroupKind::Leaf && t.depth[u] < depth;
        }
        self.relayout_all(t, g);
    }

    /// Open exactly the groups on the global critical path (`on_critical` per tree node), down to its grains.
    pub fn drill_critical(&mut self, t: &AggregationTree, g: &GrainGraph, on_critical: &[bool]) {
        for (u, open) in self.open.iter_mut().enumerate() {
            *open = t.kind[u] != GroupKind::Leaf && on_critical.get(u).copied().unwrap_or(false);
        }
        self.relayout_all(t, g);
    }

    /// Visible tree nodes, parents before members.
    pub fn visible(&self, t: &AggregationTree) -> Vec<u32> {
        let mut out = Vec::new();
        if t.is_empty() {
            return out;
        }
        let mut stack = vec![t.root];
        while let Some(u) = stack.pop() {
            out.push(u);
            if self.open[u as usize] {
                for s in self.slots[u as usize].iter().rev() {
                    if let Slot::Member(c) = s {
                        stack.push(*c);
                    }
                }
            }
        }
        out
    }

    /// The slots of an opened group (empty for closed ones).
    pub fn slots_of(&self, u: u32) -> &[Slot] {
        &self.slots[u as usize]
    }

    /// Absolute top-left of every visible node (others stay NaN).
    pub fn positions(&self, t: &AggregationTree) -> (Vec<f32>, Vec<f32>) {
        let n = t.len();
        let (mut x, mut y) = (vec![f32::NAN; n], vec![f32::NAN; n]);
        if n == 0 {
            return (x, y);
        }
        x[t.root as usize] = 0.0;
        y[t.root as usize] = 0.0;
        for u in self.visible(t) {
            let p = t.parent[u as usize];
            if p != NONE {
                x[u as usize] = x[p as usize] + self.dx[u as usize];
                y[u as usize] = y[p as usize] + self.dy[u as usize];
            }
        }
        (x, y)
    }

    /// The deepest visible node whose box holds the point (layout units), if any.
    pub fn node_at(&self, t: &AggregationTree, px: f32, py: f32) -> Option<u32> {
        if t.is_empty() {
            return None;
        }
        let (mut u, mut ox, mut oy) = (t.root, 0.0, 0.0);
        let inside = |u: u32, ox: f32, oy: f32| {
            px >= ox && py >= oy && px <= ox + self.w[u as usize] && py <= oy + self.h[u as usize]
        };
        if !inside(u, ox, oy) {
            return None;
        }
        'down: while self.open[u as usize] {
            for s in &self.slots[u as usize] {
                if let Slot::Member(c) = *s {
                    let (cx, cy) = (ox + self.dx[c as usize], oy + self.dy[c as usize]);
                    if inside(c, cx, cy) {
                        (u, ox, oy) = (c, cx, cy);
                        continue 'down;
                    }
                }
            }
            break;
        }
        Some(u)
    }

    pub fn width(&self, t: &AggregationTree) -> f32 {
        if t.is_empty() {
            0.0
        } else {
            self.w[t.root as usize]
        }
    }
    pub fn height(&self, t: &AggregationTree) -> f32 {
        if t.is_empty() {
            0.0
        } else {
            self.h[t.root as usize]
        }
    }

    fn size_closed(&mut self, t: &AggregationTree, g: &GrainGraph, u: u32) {
        let p = &self.params;
        let ui = u as usize;
        let (w, h) = if !t.is_leaf(u) {
            (p.group_w, p.group_h)
        } else if t.node[ui] != NONE && g.node_kind[t.node[ui] as usize].holds_work() {
            (p.leaf_w, p.leaf_h)
        } else {
            (p.knot, p.knot)
        };
        self.w[ui] = w;
        self.h[ui] = h;
        self.slots[ui].clear();
    }

    /// Lay out the visible part of `u`'s subtree, then re-place the members of each ancestor.
    fn relayout_from(&mut self, t: &AggregationTree, g: &GrainGraph, u: u32) {
        self.layout_subtree(t, g, u);
        let mut p = t.parent[u as usize];
        while p != NONE {
            self.place(t, g, p);
            p = t.parent[p as usize];
        }
    }

    fn relayout_all(&mut self, t: &AggregationTree, g: &GrainGraph) {
        if !t.is_empty() {
            self.layout_subtree(t, g, t.root);
        }
    }

    /// Post-order over the visible subtree of `u`: members first, then the group around them.
    fn layout_subtree(&mut self, t: &AggregationTree, g: &GrainGraph, u: u32) {
        let mut stack = vec![(u, false)];
        while let Some((x, done)) = stack.pop() {
            if !self.open[x as usize] || t.is_leaf(x) {
                self.size_closed(t, g, x);
                continue;
            }
            if done {
                self.place(t, g, x);
                continue;
            }
            stack.push((x, true));
            for &c in t.children_of(x) {
                if self.keeps(c) {
                    stack.push((c, false));
                }
            }
        }
    }

    fn keeps(&self, c: u32) -> bool {
        self.keep.as_ref().is_none_or(|k| k[c as usize])
    }

    /// Place the members of opened group `u` (their sizes are known) and size `u` around them.
    fn place(&mut self, t: &AggregationTree, g: &GrainGraph, u: u32) {
        if !self.open[u as usize] || t.is_leaf(u) {
            self.size_closed(t, g, u);
            return;
        }
        let p = self.params.clone();
        let ui = u as usize;
        // Slots: members kept, hidden members folded into fast-forward edges.
        let mut slots: Vec<Slot> = Vec::with_capacity(t.count[ui] as usize);
        let series = t.kind[ui].is_series();
        let mut hidden_parallel = 0u32;
        for &c in t.children_of(u) {
            if self.keeps(c) {
                slots.push(Slot::Member(c));
            } else if series {
                match slots.last_mut() {
                    Some(Slot::FastForward { hidden, .. }) => *hidden += 1,
                    _ => slots.push(Slot::FastForward { x: 0.0, y: 0.0, w: 0.0, h: 0.0, hidden: 1 }),
                }
            } else {
                hidden_parallel += 1;
            }
        }
        if hidden_parallel > 0 {
            slots.push(Slot::FastForward { x: 0.0, y: 0.0, w: 0.0, h: 0.0, hidden: hidden_parallel });
        }
        let size = |s: &Slot, v: &Self| -> (f32, f32) {
            match *s {
                Slot::Member(c) => (v.w[c as usize], v.h[c as usize]),
                Slot::FastForward { .. } => {
                    if series {
                        (p.knot, p.fast_forward)
                    } else {
                        (p.fast_forward, p.group_h)
                    }
                }
            }
        };
        let sizes: Vec<(f32, f32)> = slots.iter().map(|s| size(s, self)).collect();
        let k = sizes.len() as f32;
        let gaps = (k - 1.0).max(0.0) * p.gap;
        let (w, h);
        if series {
            let inner_w = sizes.iter().map(|s| s.0).fold(0.0, f32::max);
            w = inner_w + 2.0 * p.pad;
            h = sizes.iter().map(|s| s.1).sum::<f32>() + gaps + 2.0 * p.pad;
            let mut y = p.pad;
            for (s, &(sw, sh)) in slots.iter_mut().zip(&sizes) {
                let x = p.pad + (inner_w - sw) / 2.0;
                self.put(s, x, y, sw, sh);
                y += sh + p.gap;
            }
        } else {
            // Room above and below the members for the fork and join knots.
            let knots = p.knot + p.gap;
            let inner_h = sizes.iter().map(|s| s.1).fold(0.0, f32::max);
            w = (sizes.iter().map(|s| s.0).sum::<f32>() + gaps).max(p.knot) + 2.0 * p.pad;
            h = inner_h + 2.0 * (p.pad + knots);
            let mut x = p.pad;
            for (s, &(sw, sh)) in slots.iter_mut().zip(&sizes) {
                let y = p.pad + knots + (inner_h - sh) / 2.0;
                self.put(s, x, y, sw, sh);
                x += sw + p.gap;
            }
        }
        self.w[ui] = w.max(p.group_w);
        self.h[ui] = h;
        // Centre narrow content in a group widened to the closed size.
        if w < p.group_w {
            let shift = (p.group_w - w) / 2.0;
            for s in &mut slots {
                match s {
                    Slot::Member(c) => self.dx[*c as usize] += shift,
                    Slot::FastForward { x, .. } => *x += shift,
                }
            }
        }
        self.slots[ui] = slots;
    }

    fn put(&mut self, s: &mut Slot, x: f32, y: f32, sw: f32, sh: f32) {
        match s {
            Slot::Member(c) => {
                self.dx[*c as usize] = x;
                self.dy[*c as usize] = y;
            }
            Slot::FastForward { x: fx, y: fy, w, h, .. } => {
                (*fx, *fy, *w, *h) = (x, y, sw, sh);
            }
        }
    }
}
