//! Layout of a grain graph, top-down in fork-join (logical time) order, fragment height proportional to
//! execution time. Deterministic.
//!
//! Properly nested graphs (built from a profile: `GrainGraph::nested`) are drawn from the nesting in linear
//! time: a grain is a column (its fragments, forks and joins stacked), each group of children sits to the
//! right of its parent's column between the group's fork and join, side by side in creation order. Edges run
//! straight down inside their own column and turn only in the gap above their target, so the drawing has no
//! crossings by construction. Other graphs (read from GraphML) get a general layered layout: longest-path
//! layers, dummy nodes for long edges, barycenter ordering sweeps and a left-to-right priority placement.
//! Units are abstract (the scene scales them); no colours, no pixels.

use weft_analyses::grains::{GrainGraph, NONE};
use weft_model::sort::SortDyn;

#[derive(Clone, Debug)]
pub struct LayoutParams {
    pub fragment_width: f32,
    /// Height of a fragment of zero and of the longest execution time.
    pub min_height: f32,
    pub max_height: f32,
    /// Diameter of fork and join nodes, and size of start and end nodes.
    pub knot: f32,
    pub hgap: f32,
    pub vgap: f32,
}

impl Default for LayoutParams {
    fn default() -> Self {
        LayoutParams { fragment_width: 10.0, min_height: 4.0, max_height: 120.0, knot: 6.0, hgap: 4.0, vgap: 6.0 }
    }
}

/// Boxes of nodes (top-left corner and size) and a polyline per edge.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct GrainLayout {
    pub x: Vec<f32>,
    pub y: Vec<f32>,
    pub w: Vec<f32>,
    pub h: Vec<f32>,
    /// Points of edge `e`: `points[point_start[e]..point_start[e + 1]]`, from source to target.
    pub point_start: Vec<u32>,
    pub points: Vec<[f32; 2]>,
    pub width: f32,
    pub height: f32,
    /// True when drawn from the fork-join nesting (crossing-free), false for the general layered layout.
    pub from_nesting: bool,
}

impl GrainLayout {
    pub fn edge_points(&self, e: usize) -> &[[f32; 2]] {
        &self.points[self.point_start[e] as usize..self.point_start[e + 1] as usize]
    }
}

fn node_sizes(g: &GrainGraph, p: &LayoutParams) -> (Vec<f32>, Vec<f32>) {
    let max_exec = g.node_exec.iter().copied().max().unwrap_or(0).max(1) as f64;
    let span = (p.max_height - p.min_height) as f64;
    let mut w = Vec::with_capacity(g.nodes());
    let mut h = Vec::with_capacity(g.nodes());
    for v in 0..g.nodes() {
        if g.node_kind[v].holds_work() {
            w.push(p.fragment_width);
            h.push(p.min_height + (span * g.node_exec[v] as f64 / max_exec) as f32);
        } else {
            w.push(p.knot);
            h.push(p.knot);
        }
    }
    (w, h)
}

pub fn layout(g: &GrainGraph, p: &LayoutParams) -> GrainLayout {
    let (w, h) = node_sizes(g, p);
    let mut l = if g.nested { nested(g, p, w, h) } else { layered(g, p, w, h) };
    route_edges(g, p, &mut l, None);
    l
}

/// The nesting layout. Sizes bottom-up over the grain tree, then positions top-down; both iterative.
fn nested(g: &GrainGraph, p: &LayoutParams, w: Vec<f32>, h: Vec<f32>) -> GrainLayout {
    let n = g.grains();
    let root = n; // owner index of the implicit root
                  // Pre-order of grains (parents before children), from the root's groups.
    let mut pre = Vec::with_capacity(n);
    let mut stack: Vec<u32> = Vec::new();
    for k in g.group_range(root).rev() {
        stack.extend(g.group_children(k).iter().rev());
    }
    while let Some(c) = stack.pop() {
        pre.push(c);
        for k in g.group_range(c as usize).rev() {
            stack.extend(g.group_children(k).iter().rev());
        }
    }
    let mut gw = vec![0f32; n + 1];
    let mut gh = vec![0f32; n + 1];
    let first_node = |c: usize| g.grain_nodes_of(c as u32).first().copied().unwrap_or(NONE);
    let size = |o: usize, gw: &[f32], gh: &[f32]| -> (f32, f32) {
        let is_root = o == root;
        let (mut width, mut height) =
            if is_root { (p.knot, p.knot) } else { (p.fragment_width, h[first_node(o) as usize]) };
        for k in g.group_range(o) {
            let (mut bw, mut bh) = if is_root { (0.0, 0.0) } else { (p.fragment_width, h[g.groups.mid[k] as usize]) };
            for (i, &c) in g.group_children(k).iter().enumerate() {
                if !(is_root && i == 0) {
                    bw += p.hgap;
                }
                bw += gw[c as usize];
                bh = bh.max(gh[c as usize]);
            }
            width = width.max(bw);
            height += 4.0 * p.vgap + 2.0 * p.knot + bh;
            if !is_root {
                height += h[g.groups.post[k] as usize];
            }
        }
        if is_root {
            height += p.vgap + p.knot;
        }
        (width, height)
    };
    for &c in pre.iter().rev() {
        let (a, b) = size(c as usize, &gw, &gh);
        gw[c as usize] = a;
        gh[c as usize] = b;
    }
    let (rw, rh) = size(root, &gw, &gh);
    gw[root] = rw;
    gh[root] = rh;
    let nn = g.nodes();
    let mut l = GrainLayout {
        x: vec![0.0; nn],
        y: vec![0.0; nn],
        w,
        h,
        width: rw,
        height: rh,
        from_nesting: true,
        ..Default::default()
    };
    // Positions: place each owner's column at its origin, and its children's origins; pre-order again.
    let mut origin = vec![(0f32, 0f32); n + 1];
    let place = |o: usize, l: &mut GrainLayout, origin: &mut [(f32, f32)]| {
        let is_root = o == root;
        let (x0, mut y) = origin[o];
        let col_w = if is_root { p.knot } else { p.fragment_width };
        let cx = x0 + col_w / 2.0;
        let put = |v: u32, y: f32, l: &mut GrainLayout| {
            let v = v as usize;
            l.x[v] = cx - l.w[v] / 2.0;
            l.y[v] = y;
        };
        if is_root {
            put(0, y, l);
            y += p.knot;
        } else {
            let f = first_node(o);
            put(f, y, l);
            y += l.h[f as usize];
        }
        for k in g.group_range(o) {
            y += p.vgap;
            put(g.groups.fork[k], y, l);
            y += p.knot + p.vgap;
            let mut bx = x0;
            let mut bh: f32 = 0.0;
            if !is_root {
                let m = g.groups.mid[k];
                put(m, y, l);
                bx += p.fragment_width + p.hgap;
                bh = l.h[m as usize];
            }
            for &c in g.group_children(k) {
                origin[c as usize] = (bx, y);
                bx += gw[c as usize] + p.hgap;
                bh = bh.max(gh[c as usize]);
            }
            y += bh + p.vgap;
            put(g.groups.join[k], y, l);
            y += p.knot + p.vgap;
            if !is_root {
                let post = g.groups.post[k];
                put(post, y, l);
                y += l.h[post as usize];
            }
        }
        if is_root {
            y += p.vgap;
            put(g.nodes() as u32 - 1, y, l);
        }
    };
    place(root, &mut l, &mut origin);
    for &c in &pre {
        place(c as usize, &mut l, &mut origin);
    }
    l
}

/// The general layered layout for graphs whose nesting is unknown.
#[allow(clippy::needless_range_loop)]
fn layered(g: &GrainGraph, p: &LayoutParams, w: Vec<f32>, h: Vec<f32>) -> GrainLayout {
    let n = g.nodes();
    // Longest-path layering; node ids are topological.
    let mut layer = vec![0u32; n];
    for v in 0..n {
        for &e in g.inc.of(v as u32) {
            layer[v] = layer[v].max(layer[g.edge_source[e as usize] as usize] + 1);
        }
    }
    let layers = layer.iter().copied().max().map(|m| m as usize + 1).unwrap_or(0);
    // Virtual nodes: real nodes, then one dummy per layer crossed by a long edge.
    let mut vlayer: Vec<u32> = layer.clone();
    let mut chains: Vec<Vec<u32>> = vec![Vec::new(); g.edges()];
    let mut up: Vec<Vec<u32>> = vec![Vec::new(); n];
    for e in 0..g.edges() {
        let (s, t) = (g.edge_source[e] as usize, g.edge_target[e] as usize);
        let mut prev = s as u32;
        for lv in layer[s] + 1..layer[t] {
            let d = vlayer.len() as u32;
            vlayer.push(lv);
            up.push(vec![prev]);
            chains[e].push(d);
            prev = d;
        }
        up[t].push(prev);
    }
    let vn = vlayer.len();
    let mut down: Vec<Vec<u32>> = vec![Vec::new(); vn];
    for (v, ups) in up.iter().enumerate() {
        for &u in ups {
            down[u as usize].push(v as u32);
        }
    }
    let mut rows: Vec<Vec<u32>> = vec![Vec::new(); layers];
    for v in 0..vn {
        rows[vlayer[v] as usize].push(v as u32);
    }
    let mut pos = vec![0f32; vn];
    for row in &rows {
        for (i, &v) in row.iter().enumerate() {
            pos[v as usize] = i as f32;
        }
    }
    // Barycenter sweeps, down then up, stable for determinism; keep the ordering with the fewest crossings.
    let mut best = (count_crossings(&rows, &down, &pos), rows.clone());
    let initial = best.0;
    for sweep in 0..8 {
        let downward = sweep % 2 == 0;
        let order: Vec<usize> =
            if downward { (1..layers).collect() } else { (0..layers.saturating_sub(1)).rev().collect() };
        for li in order {
            let nb = if downward { &up } else { &down };
            let mut keyed: Vec<(f32, u32)> = rows[li]
                .iter()
                .map(|&v| {
                    let ns = &nb[v as usize];
                    let b = if ns.is_empty() {
                        pos[v as usize]
                    } else {
                        ns.iter().map(|&u| pos[u as usize]).sum::<f32>() / ns.len() as f32
                    };
                    (b, v)
                })
                .collect();
            keyed.sort_dyn_by(|a, b| a.0.total_cmp(&b.0));
            rows[li] = keyed.into_iter().map(|(_, v)| v).collect();
            for (i, &v) in rows[li].iter().enumerate() {
                pos[v as usize] = i as f32;
            }
        }
        if sweep % 2 == 1 {
            let c = count_crossings(&rows, &down, &pos);
            if c < best.0 {
                best = (c, rows.clone());
            } else {
                break;
            }
        }
    }
    if std::env::var_os("WEFT_DEBUG_CROSSINGS").is_some() {
        eprintln!("layered: {initial} crossings before the sweeps, {} after", best.0);
    }
    rows = best.1;
    for row in &rows {
        for (i, &v) in row.iter().enumerate() {
            pos[v as usize] = i as f32;
        }
    }
    // Coordinates: each row left to right, each node as near its upper neighbours' mean as the row allows.
    let vw = |v: usize| if v < n { w[v] } else { 0.0 };
    let vh = |v: usize| if v < n { h[v] } else { 0.0 };
    let mut cx = vec![0f32; vn];
    let mut width: f32 = 0.0;
    for row in &rows {
        let mut right = f32::NEG_INFINITY;
        for &v in row {
            let v = v as usize;
            let want = if up[v].is_empty() {
                right + p.hgap + vw(v) / 2.0
            } else {
                up[v].iter().map(|&u| cx[u as usize]).sum::<f32>() / up[v].len() as f32
            };
            let min = if right.is_finite() { right + p.hgap + vw(v) / 2.0 } else { vw(v) / 2.0 };
            cx[v] = want.max(min);
            right = cx[v] + vw(v) / 2.0;
        }
        width = width.max(right.max(0.0));
    }
    // Each layer is a band as tall as its tallest node; edges run vertically to the band's bottom, so the
    // segments between bands keep the rows' order and so their crossings are the counted ones.
    let mut ly = vec![0f32; layers];
    let mut band_bottom = vec![0f32; layers];
    let mut y = 0.0;
    for (li, row) in rows.iter().enumerate() {
        ly[li] = y;
        band_bottom[li] = y + row.iter().map(|&v| vh(v as usize)).fold(0.0, f32::max);
        y = band_bottom[li] + 2.0 * p.vgap;
    }
    let mut l = GrainLayout {
        x: vec![0.0; n],
        y: vec![0.0; n],
        w,
        h,
        width,
        height: y,
        from_nesting: false,
        ..Default::default()
    };
    for v in 0..n {
        l.x[v] = cx[v] - l.w[v] / 2.0;
        l.y[v] = ly[layer[v] as usize];
    }
    let dummies: Vec<[f32; 3]> =
        (n..vn).map(|d| [cx[d], ly[vlayer[d] as usize], band_bottom[vlayer[d] as usize]]).collect();
    let node_band: Vec<f32> = (0..n).map(|v| band_bottom[layer[v] as usize]).collect();
    route_edges(g, p, &mut l, Some((&chains, &dummies, &node_band, n)));
    l
}

/// Crossings between consecutive layers: inversions among each layer pair's edges, counted with a Fenwick
/// tree (O(E log V)).
fn count_crossings(rows: &[Vec<u32>], down: &[Vec<u32>], pos: &[f32]) -> u64 {
    let mut total = 0u64;
    let mut pairs: Vec<(u32, u32)> = Vec::new();
    for li in 0..rows.len().saturating_sub(1) {
        pairs.clear();
        for &u in &rows[li] {
            for &v in &down[u as usize] {
                pairs.push((pos[u as usize] as u32, pos[v as usize] as u32));
            }
        }
        pairs.sort_unstable();
        let m = rows[li + 1].len();
        let mut tree = vec![0u64; m + 1];
        for (seen, &(_, b)) in pairs.iter().enumerate() {
            // Edges already seen whose lower end lies right of b cross this one.
            let mut i = b as usize + 1;
            let mut not_greater = 0;
            while i > 0 {
                not_greater += tree[i];
                i &= i - 1;
            }
            total += seen as u64 - not_greater;
            let mut i = b as usize + 1;
            while i <= m {
                tree[i] += 1;
                i += i & i.wrapping_neg();
            }
        }
    }
    total
}

/// Long edges' dummies (x, band top, band bottom) and each node's band bottom, for the layered layout.
type Dummies<'a> = (&'a [Vec<u32>], &'a [[f32; 3]], &'a [f32], usize);

/// Polylines: from the source's bottom centre, straight down in its column to just above the target's
/// top (layered: to its layer band's bottom, then through the long edge's dummies), then to the target's
/// top centre.
fn route_edges(g: &GrainGraph, p: &LayoutParams, l: &mut GrainLayout, dummies: Option<Dummies>) {
    if !l.point_start.is_empty() {
        return;
    }
    l.point_start.reserve(g.edges() + 1);
    l.point_start.push(0);
    for e in 0..g.edges() {
        let (s, t) = (g.edge_source[e] as usize, g.edge_target[e] as usize);
        let a = [l.x[s] + l.w[s] / 2.0, l.y[s] + l.h[s]];
        let b = [l.x[t] + l.w[t] / 2.0, l.y[t]];
        l.points.push(a);
        match dummies {
            Some((chains, at, band, n)) => {
                if band[s] > a[1] + 1e-3 {
                    l.points.push([a[0], band[s]]);
                }
                for &d in &chains[e] {
                    let [x, top, bottom] = at[d as usize - n];
                    l.points.push([x, top]);
                    l.points.push([x, bottom]);
                }
            }
            None => {
                let bend = b[1] - p.vgap * 0.5;
                if bend > a[1] + 1e-3 && (a[0] - b[0]).abs() > 1e-3 {
                    l.points.push([a[0], bend]);
                }
            }
        }
        l.points.push(b);
        l.point_start.push(l.points.len() as u32);
    }
}

/// The node whose box contains (x, y) in layout units, the topmost-drawn (highest id) when boxes touch.
/// Linear in nodes: a click is rare; the scene's culling already bounds per-frame work.
pub fn node_at(l: &GrainLayout, x: f32, y: f32) -> Option<u32> {
    (0..l.x.len())
        .rev()
        .find(|&v| x >= l.x[v] && x <= l.x[v] + l.w[v] && y >= l.y[v] && y <= l.y[v] + l.h[v])
        .map(|v| v as u32)
}

#[cfg(test)]
mod tests {
    use super::count_crossings;

    #[test]
    fn counts_layer_crossings() {
        // Upper a b, lower c d: a-d and b-c cross once; a-c and b-d do not.
        let rows = vec![vec![0, 1], vec![2, 3]];
        let pos = [0.0, 1.0, 0.0, 1.0];
        let crossed = vec![vec![3], vec![2], vec![], vec![]];
        let straight = vec![vec![2], vec![3], vec![], vec![]];
        assert_eq!(count_crossings(&rows, &crossed, &pos), 1);
        assert_eq!(count_crossings(&rows, &straight, &pos), 0);
        // A node with edges to both ends does not cross itself: a-c, a-d, b-c gives one crossing (a-d, b-c).
        let fan = vec![vec![2, 3], vec![2], vec![], vec![]];
        assert_eq!(count_crossings(&rows, &fan, &pos), 1);
    }
}
