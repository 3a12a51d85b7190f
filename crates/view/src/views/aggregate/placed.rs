//! Where the aggregated pane's visible nodes are drawn, in dense per-tree-node buffers that are reused: each
//! layout change clears the entries it set last time and writes only the visible nodes, so an open or close
//! costs what is shown, not the size of the tree (393,220 tree nodes for 131,072 grains). Computes no layout.

use crate::layouts::aggregate::AggregateView;
use crate::scene::aggregate::Geometry;
use weft_analyses::aggregate::AggregationTree;
use weft_analyses::grains::NONE;

pub(super) struct Placed {
    pub g: Geometry,
    /// The nodes whose entries are set (the rest are NaN), parents before members.
    pub set: Vec<u32>,
}

impl Placed {
    pub fn new(n: usize) -> Placed {
        let nan = vec![f32::NAN; n];
        Placed { g: Geometry { x: nan.clone(), y: nan.clone(), w: nan.clone(), h: nan }, set: Vec::new() }
    }

    pub fn has(&self, u: u32) -> bool {
        self.g.x.get(u as usize).is_some_and(|x| x.is_finite())
    }

    fn clear(&mut self) {
        for &u in &self.set {
            let i = u as usize;
            self.g.x[i] = f32::NAN;
            self.g.y[i] = f32::NAN;
        }
        self.set.clear();
    }

    pub fn put(&mut self, u: u32, x: f32, y: f32, w: f32, h: f32) {
        let i = u as usize;
        if !self.g.x[i].is_finite() {
            self.set.push(u);
        }
        (self.g.x[i], self.g.y[i], self.g.w[i], self.g.h[i]) = (x, y, w, h);
    }

    /// The layout's absolute boxes of its visible nodes.
    pub fn layout(&mut self, t: &AggregationTree, v: &AggregateView) {
        self.clear();
        if t.is_empty() {
            return;
        }
        for u in v.visible(t) {
            let i = u as usize;
            let p = t.parent[i];
            let (x, y) = if u == t.root || p == NONE {
                (0.0, 0.0)
            } else {
                (self.g.x[p as usize] + v.dx[i], self.g.y[p as usize] + v.dy[i])
            };
            self.put(u, x, y, v.w[i], v.h[i]);
        }
    }
}
