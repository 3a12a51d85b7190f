//! The call tree of a selection (a time window over a set of locations, or the whole run): the call paths
//! of the intervals that touch the window, each with its count, inclusive and exclusive time, merged across
//! the selected locations ([`call_tree`]) or one tree per location ([`per_location`]); the same tree inverted
//! (bottom-up: [`CallTree::inverted`]); and the butterfly of one region ([`CallTree::butterfly`]).
//! `weft calltree` prints it; docs/calltree.md gives the definitions.
//!
//! A node is a call path: the regions of an interval and of its enclosing intervals, outermost first. Its
//! figures follow the region profile's rules (`profile::region_stats`) interval by interval, so the tree
//! reduces to the profile exactly ([`CallTree::region_stats`]): per region, the nodes' counts and exclusive
//! times add up to the profile's; its inclusive time is that of the nodes with no enclosing node of the same
//! region (recursion counted once); the roots' inclusive times add up to the time any interval covers.
//!
//! One pass over each location's intervals with a stack by depth, as the profile walks them. A child node is
//! found through its parent's last child first (a loop calls the same region again and again), then a
//! direct-mapped cache of (parent, region), else one hash map of them; intervals that end before the window
//! are passed without a lookup.
//! O(intervals + nodes log nodes). Must not: read a clock, know a view, or allocate per interval.

use super::moments::TimeWindow;
use super::profile::RegionStats;
use rustc_hash::FxHashMap;
use weft_model::sort::SortDyn;
use weft_model::{LocationId, RegionId, Trace};

/// No node: the parent of a root, and the node of an interval that ends before the window.
const NONE: u32 = u32::MAX;

/// Whether an interval `[start, start + dur]` counts in `window`: the profile's rule (positive clipped time,
/// or zero duration inside the window), which the call tree and the histograms share.
#[inline]
pub fn counts_in(window: TimeWindow, start_ns: u64, dur_ns: u64) -> bool {
    let (t0, t1) = (window.start_ns, window.end_ns);
    let clipped = (start_ns + dur_ns).min(t1).saturating_sub(start_ns.max(t0));
    clipped > 0 || (dur_ns == 0 && start_ns >= t0 && start_ns <= t1)
}

/// One call path's figures. Nodes are stored in preorder: a node's subtree is `[node, subtree_end)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CallNode {
    /// The enclosing node, None for a root.
    pub parent: Option<u32>,
    /// The last region of the path.
    pub region: RegionId,
    /// Roots are at depth 0.
    pub depth: u32,
    /// Intervals of this path that count in the window.
    pub count: u64,
    /// Their time clipped to the window.
    pub inclusive_ns: u64,
    /// Their clipped time less their direct children's.
    pub exclusive_ns: u64,
    /// One past the last node of this node's subtree (preorder).
    pub subtree_end: u32,
}

/// A call tree: nodes in preorder, siblings by inclusive time (most first), then count, name and region.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CallTree {
    pub nodes: Vec<CallNode>,
}

/// One location's call tree ([`per_location`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocationCallTree {
    pub location: LocationId,
    pub tree: CallTree,
}

/// A region's callers or callees in a [`Butterfly`]: the intervals of the edge and their clipped time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ButterflyEdge {
    /// The caller or callee; None for "no caller" (the focus region's intervals at depth 0).
    pub region: Option<RegionId>,
    pub count: u64,
    pub inclusive_ns: u64,
}

/// One region with its direct callers and callees, as hpcviewer and Vampir show them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Butterfly {
    pub region: RegionId,
    /// The region's own figures: its profile row.
    pub focus: RegionStats,
    /// Per calling region, the focus region's intervals it calls directly (most time first).
    pub callers: Vec<ButterflyEdge>,
    /// Per called region, its intervals the focus region calls directly (most time first).
    pub callees: Vec<ButterflyEdge>,
}

/// A node while the tree grows: figures, and the last child found (a loop calls one region again and
/// again).
#[derive(Clone, Copy)]
struct Raw {
    parent: u32,
    region: RegionId,
    last_child: u32,
    count: u64,
    inclusive_ns: u64,
    exclusive_ns: u64,
}

/// The lookup cache in front of the hash map has 2^CACHE_BITS slots.
const CACHE_BITS: u32 = 10;

/// The tree being built: nodes by (parent, region).
struct Builder {
    nodes: Vec<Raw>,
    /// Every node by (parent, region).
    children: FxHashMap<(u32, u32), u32>,
    /// (parent, region, node) at the slot of (parent, region), a node of NONE where empty: a loop over a few
    /// regions finds them here without hashing into the map.
    cache: Vec<[u32; 3]>,
    /// The last root found (roots have no parent node to hold it).
    last_root: u32,
}

/// An open interval on the walk's stack.
#[derive(Clone, Copy)]
struct Open {
    node: u32,
    clipped: u64,
    children: u64,
}

#[inline]
fn cache_slot(parent: u32, region: RegionId) -> usize {
    let key = (u64::from(parent) << 32) | u64::from(region.0);
    (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - CACHE_BITS)) as usize
}

impl Builder {
    fn new() -> Self {
        Builder {
            nodes: Vec::new(),
            children: FxHashMap::default(),
            cache: vec![[0, 0, NONE]; 1 << CACHE_BITS],
            last_root: NONE,
        }
    }

    /// The child of `parent` (NONE: a root) for `region`, made if new: the parent's last child, else the
    /// cache's slot, else the map.
    #[inline]
    fn child(&mut self, parent: u32, region: RegionId) -> u32 {
        let cached = match parent {
            NONE => self.last_root,
            p => self.nodes[p as usize].last_child,
        };
        if cached != NONE && self.nodes[cached as usize].region == region {
            return cached;
        }
        let slot = cache_slot(parent, region);
        let [p, r, node] = self.cache[slot];
        let found = if node != NONE && p == parent && r == region.0 {
            node
        } else {
            let next = self.nodes.len() as u32;
            let node = *self.children.entry((parent, region.0)).or_insert(next);
            if node == next {
                let raw = Raw { parent, region, last_child: NONE, count: 0, inclusive_ns: 0, exclusive_ns: 0 };
                self.nodes.push(raw);
            }
            self.cache[slot] = [parent, region.0, node];
            node
        };
        match parent {
            NONE => self.last_root = found,
            p => self.nodes[p as usize].last_child = found,
        }
        found
    }

    /// Empty again, for the next location's tree (the cache's slots cleared one node at a time).
    fn reset(&mut self) {
        for n in &self.nodes {
            self.cache[cache_slot(n.parent, n.region)] = [0, 0, NONE];
        }
        self.nodes.clear();
        self.children.clear();
        self.last_root = NONE;
    }

    /// One location's intervals, as `profile::region_stats` walks them.
    fn location(&mut self, trace: &Trace, l: LocationId, window: TimeWindow, stack: &mut Vec<Open>) {
        let iv = &trace.intervals;
        let (t0, t1) = (window.start_ns, window.end_ns);
        for i in trace.intervals_of(l) {
            let start = iv.start_ns[i];
            if start > t1 {
                break; // sorted by start: nothing later touches the window
            }
            let d = iv.depth[i] as usize;
            while stack.len() > d {
                self.close(stack);
            }
            let dur = iv.dur_ns[i];
            let end = start + dur;
            let parent = stack.last().map_or(NONE, |o| o.node);
            // Ending before the window, the interval and all it encloses add nothing: no node.
            if end < t0 || (parent == NONE && !stack.is_empty()) {
                stack.push(Open { node: NONE, clipped: 0, children: 0 });
                continue;
            }
            let clipped = end.min(t1).saturating_sub(start.max(t0));
            let node = self.child(parent, iv.region[i]);
            let n = &mut self.nodes[node as usize];
            if clipped > 0 || (dur == 0 && start >= t0) {
                n.count += 1;
                n.inclusive_ns += clipped;
            }
            if let Some(p) = stack.last_mut() {
                p.children += clipped;
            }
            stack.push(Open { node, clipped, children: 0 });
        }
        while !stack.is_empty() {
            self.close(stack);
        }
    }

    #[inline]
    fn close(&mut self, stack: &mut Vec<Open>) {
        let Some(o) = stack.pop() else { return };
        if o.node != NONE {
            self.nodes[o.node as usize].exclusive_ns += o.clipped.saturating_sub(o.children);
        }
    }

    /// The nodes that count or enclose one that does, in preorder with siblings ranked; the builder empty.
    fn finish(&mut self, trace: &Trace) -> CallTree {
        let raw = &self.nodes;
        let n = raw.len();
        // Children lists by parent, the roots' last.
        let slot = |parent: u32| if parent == NONE { n } else { parent as usize };
        let mut keep = vec![false; n];
        // Nodes are created after their parents: a reverse pass marks each kept node's ancestors.
        for k in (0..n).rev() {
            if raw[k].count > 0 || keep[k] {
                keep[k] = true;
                if raw[k].parent != NONE {
                    keep[raw[k].parent as usize] = true;
                }
            }
        }
        let mut first = vec![0u32; n + 2];
        for r in raw.iter().zip(&keep).filter(|(_, &k)| k).map(|(r, _)| r) {
            first[slot(r.parent) + 1] += 1;
        }
        for k in 1..first.len() {
            first[k] += first[k - 1];
        }
        let mut fill = first.clone();
        let mut kids = vec![0u32; first[n + 1] as usize];
        for (k, r) in raw.iter().enumerate().filter(|&(k, _)| keep[k]) {
            let s = &mut fill[slot(r.parent)];
            kids[*s as usize] = k as u32;
            *s += 1;
        }
        let rank = |list: &mut [u32]| {
            list.sort_dyn_by(|&a, &b| {
                let (x, y) = (&raw[a as usize], &raw[b as usize]);
                y.inclusive_ns
                    .cmp(&x.inclusive_ns)
                    .then(y.count.cmp(&x.count))
                    .then_with(|| trace.region_name(x.region).cmp(trace.region_name(y.region)))
                    .then(x.region.cmp(&y.region))
            })
        };
        for p in 0..=n {
            let (a, b) = (first[p] as usize, first[p + 1] as usize);
            rank(&mut kids[a..b]);
        }
        // Preorder by an explicit stack (trees can be deep): (raw node, its new parent, depth).
        let mut nodes: Vec<CallNode> = Vec::with_capacity(kids.len());
        let mut todo: Vec<(u32, u32, u32)> = Vec::new();
        let push_children = |todo: &mut Vec<(u32, u32, u32)>, of: usize, new_parent: u32, depth: u32| {
            let (a, b) = (first[of] as usize, first[of + 1] as usize);
            todo.extend(kids[a..b].iter().rev().map(|&k| (k, new_parent, depth)));
        };
        push_children(&mut todo, n, NONE, 0);
        // The open ancestors in the new order, to set each subtree's end when it closes.
        let mut open: Vec<(u32, u32)> = Vec::new(); // (new index, depth)
        while let Some((k, new_parent, depth)) = todo.pop() {
            let at = nodes.len() as u32;
            while open.last().is_some_and(|&(_, d)| d >= depth) {
                let (done, _) = open.pop().expect("checked");
                nodes[done as usize].subtree_end = at;
            }
            let r = &raw[k as usize];
            nodes.push(CallNode {
                parent: (new_parent != NONE).then_some(new_parent),
                region: r.region,
                depth,
                count: r.count,
                inclusive_ns: r.inclusive_ns,
                exclusive_ns: r.exclusive_ns,
                subtree_end: at + 1,
            });
            open.push((at, depth));
            push_children(&mut todo, k as usize, at, depth + 1);
        }
        let end = nodes.len() as u32;
        for (done, _) in open {
            nodes[done as usize].subtree_end = end;
        }
        self.reset();
        CallTree { nodes }
    }
}

/// The call tree of `window` (the whole run when None) merged over the locations `keep` accepts.
pub fn call_tree(trace: &Trace, window: Option<TimeWindow>, keep: impl Fn(LocationId) -> bool) -> CallTree {
    let window = window.unwrap_or(TimeWindow::whole(trace));
    let mut b = Builder::new();
    let mut stack = Vec::new();
    for l in (0..trace.locations.len() as u32).map(LocationId) {
        if keep(l) {
            b.location(trace, l, window, &mut stack);
        }
    }
    b.finish(trace)
}

/// One call tree per location `keep` accepts (locations without a counted interval left out), in location
/// order.
pub fn per_location(
    trace: &Trace,
    window: Option<TimeWindow>,
    keep: impl Fn(LocationId) -> bool,
) -> Vec<LocationCallTree> {
    let window = window.unwrap_or(TimeWindow::whole(trace));
    let mut stack = Vec::new();
    let mut out = Vec::new();
    let mut b = Builder::new();
    for l in (0..trace.locations.len() as u32).map(LocationId) {
        if keep(l) {
            b.location(trace, l, window, &mut stack);
            let tree = b.finish(trace);
            if !tree.nodes.is_empty() {
                out.push(LocationCallTree { location: l, tree });
            }
        }
    }
    out
}

/// A node of a [`CallTree`] by its names, as `weft calltree --json` prints it (keys fixed).
#[derive(Clone, Debug, serde::Serialize)]
pub struct NamedNode<'a> {
    /// Region names from the root (innermost first when the tree is inverted).
    pub path: Vec<&'a str>,
    pub count: u64,
    pub inclusive_ns: u64,
    pub exclusive_ns: u64,
    /// Inclusive time over the tree's total.
    pub share: f64,
    pub region: u32,
    pub parent: Option<u32>,
}

/// A call path's figures summed elsewhere (a store's call-path tiles, `store::read::calltree`): its
/// enclosing path, an earlier entry of the same list, and its last region.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PathTotals {
    pub parent: Option<u32>,
    pub region: RegionId,
    pub count: u64,
    pub inclusive_ns: u64,
    pub exclusive_ns: u64,
}

impl CallTree {
    /// The tree of call paths already summed (each parent listed before its children; an entry whose parent
    /// is not earlier is taken as a root): the paths that count and their ancestors, in preorder with
    /// siblings ranked as [`call_tree`] ranks them, so equal sums give the equal tree.
    pub fn from_paths(paths: &[PathTotals], trace: &Trace) -> CallTree {
        let mut b = Builder::new();
        b.nodes = paths
            .iter()
            .enumerate()
            .map(|(k, p)| Raw {
                parent: p.parent.filter(|&q| (q as usize) < k).unwrap_or(NONE),
                region: p.region,
                last_child: NONE,
                count: p.count,
                inclusive_ns: p.inclusive_ns,
                exclusive_ns: p.exclusive_ns,
            })
            .collect();
        b.finish(trace)
    }

    pub fn roots(&self) -> impl Iterator<Item = usize> + '_ {
        self.children_from(0, self.nodes.len())
    }

    /// The direct children of node `k`, in rank order.
    pub fn children(&self, k: usize) -> impl Iterator<Item = usize> + '_ {
        self.children_from(k + 1, self.nodes[k].subtree_end as usize)
    }

    fn children_from(&self, first: usize, end: usize) -> impl Iterator<Item = usize> + '_ {
        let mut at = first;
        std::iter::from_fn(move || {
            (at < end).then(|| {
                let k = at;
                at = self.nodes[k].subtree_end as usize;
                k
            })
        })
    }

    /// The regions of node `k`'s path, outermost first.
    pub fn path(&self, k: usize) -> Vec<RegionId> {
        let mut out = vec![self.nodes[k].region];
        let mut at = self.nodes[k].parent;
        while let Some(p) = at {
            out.push(self.nodes[p as usize].region);
            at = self.nodes[p as usize].parent;
        }
        out.reverse();
        out
    }

    /// The time any selected interval covers: the roots' inclusive times, or every node's exclusive time.
    pub fn total_ns(&self) -> u64 {
        self.roots().map(|k| self.nodes[k].inclusive_ns).sum()
    }

    /// The nodes as `weft calltree --json` prints them (and the Python package's `calltree` gives them), in
    /// preorder: each with its path of region names and its share of [`total_ns`](Self::total_ns).
    pub fn named_nodes<'a>(&self, trace: &'a Trace) -> Vec<NamedNode<'a>> {
        let total = self.total_ns();
        let mut path: Vec<&str> = Vec::new();
        self.nodes
            .iter()
            .map(|n| {
                path.truncate(n.depth as usize);
                path.push(trace.region_name(n.region));
                NamedNode {
                    path: path.clone(),
                    count: n.count,
                    inclusive_ns: n.inclusive_ns,
                    exclusive_ns: n.exclusive_ns,
                    share: if total > 0 { n.inclusive_ns as f64 / total as f64 } else { 0.0 },
                    region: n.region.0,
                    parent: n.parent,
                }
            })
            .collect()
    }

    /// Per region of `trace`, the figures the tree gives: equal to `profile::region_stats` of the same
    /// selection (counts and exclusive times summed over the region's nodes; inclusive times over the nodes
    /// without an enclosing node of the same region).
    pub fn region_stats(&self, regions: usize) -> Vec<RegionStats> {
        let mut stats = vec![RegionStats::default(); regions];
        let mut open = vec![0u32; regions];
        let mut path: Vec<usize> = Vec::new();
        for (k, n) in self.nodes.iter().enumerate() {
            while path.last().is_some_and(|&p| self.nodes[p].subtree_end as usize <= k) {
                let p = path.pop().expect("checked");
                open[self.nodes[p].region.index()] -= 1;
            }
            let r = n.region.index();
            let s = &mut stats[r];
            s.count += n.count;
            s.exclusive_ns += n.exclusive_ns;
            if open[r] == 0 {
                s.inclusive_ns += n.inclusive_ns;
            }
            open[r] += 1;
            path.push(k);
        }
        stats
    }

    /// The bottom-up tree: its roots are the regions where time is spent (a root's inclusive time is the
    /// region's exclusive time); a child is a caller of its parent. A node with reversed path `[f, g, ...]`
    /// gathers the top-down nodes whose path ends with `..., g, f`: count and inclusive time are the sum of
    /// their counts and exclusive times; its exclusive time, of those whose whole path it is (the chain
    /// reaches a root). So, as top down, a node's inclusive time is its exclusive time plus its children's.
    pub fn inverted(&self, trace: &Trace) -> CallTree {
        let mut b = Builder::new();
        for (k, n) in self.nodes.iter().enumerate() {
            if n.count == 0 && n.exclusive_ns == 0 {
                continue;
            }
            let mut parent = NONE;
            let mut at = Some(k as u32);
            while let Some(a) = at {
                let up = &self.nodes[a as usize];
                let node = b.child(parent, up.region);
                let r = &mut b.nodes[node as usize];
                r.count += n.count;
                r.inclusive_ns += n.exclusive_ns;
                if up.parent.is_none() {
                    r.exclusive_ns += n.exclusive_ns;
                }
                parent = node;
                at = up.parent;
            }
        }
        b.finish(trace)
    }

    /// Region `region`'s butterfly: its profile row, the regions that call it directly and those it calls
    /// directly, from the tree's parent links.
    pub fn butterfly(&self, trace: &Trace, region: RegionId) -> Butterfly {
        let focus = self.region_stats(trace.regions.len()).get(region.index()).copied().unwrap_or_default();
        let mut callers: FxHashMap<Option<RegionId>, ButterflyEdge> = FxHashMap::default();
        let mut callees: FxHashMap<Option<RegionId>, ButterflyEdge> = FxHashMap::default();
        let add = |map: &mut FxHashMap<Option<RegionId>, ButterflyEdge>, key: Option<RegionId>, n: &CallNode| {
            let e = map.entry(key).or_insert(ButterflyEdge { region: key, count: 0, inclusive_ns: 0 });
            e.count += n.count;
            e.inclusive_ns += n.inclusive_ns;
        };
        for n in &self.nodes {
            let parent = n.parent.map(|p| self.nodes[p as usize].region);
            if n.region == region {
                add(&mut callers, parent, n);
            }
            if parent == Some(region) {
                add(&mut callees, Some(n.region), n);
            }
        }
        let ranked = |map: FxHashMap<Option<RegionId>, ButterflyEdge>| {
            let mut v: Vec<ButterflyEdge> = map.into_values().filter(|e| e.count > 0 || e.inclusive_ns > 0).collect();
            v.sort_dyn_by(|a, b| {
                let name = |e: &ButterflyEdge| e.region.map_or("", |r| trace.region_name(r));
                b.inclusive_ns.cmp(&a.inclusive_ns).then(b.count.cmp(&a.count)).then_with(|| name(a).cmp(name(b)))
            });
            v
        };
        Butterfly { region, focus, callers: ranked(callers), callees: ranked(callees) }
    }
}
