//! The call trees of two runs compared path by path (issue #54): the differential flame graph draws B's tree
//! with each box coloured by its call path's change against A. Each side is the single-run tree
//! (`calltree::call_tree` over the comparison's window of that run, every location merged), the one
//! `weft calltree --json` prints; this module only matches paths by their region names and subtracts.
//!
//! A path is the names of its regions from the root. Regions of one run that share a name are one name here
//! (as the region table pairs them), so two nodes of one tree with the same name path are summed into one
//! path. B's nodes keep their tree's order (so the flame graph lays B's tree out as it is); A's paths that B
//! lacks follow, in A's order. O(nodes of both) with one hash map of (parent path, name).
//! Must not build a tree another way than `calltree` does, read files, or know a view.

use super::tables::delta;
use super::{side_window, Align, CompareError, CompareOptions, Pair};
use crate::calltree::{call_tree, CallTree};
use crate::moments::TimeWindow;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use weft_model::Trace;

/// One node of a run's tree as the other side needs it: its parent (an index into the same list, before it),
/// its region's name (an index into `names`) and its figures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SideNode {
    pub parent: Option<u32>,
    pub name: u32,
    pub count: u64,
    pub inclusive_ns: u64,
    pub exclusive_ns: u64,
}

/// One run's call tree, named: what a worker holding one run sends the worker pairing the trees.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TreeSide {
    /// Region names, by region index of the run.
    pub names: Vec<String>,
    /// The tree's nodes in its preorder.
    pub nodes: Vec<SideNode>,
}

impl TreeSide {
    /// The named form of `tree`, whose regions are `trace`'s.
    pub fn of(tree: &CallTree, trace: &Trace) -> TreeSide {
        TreeSide {
            names: (0..trace.regions.len())
                .map(|r| trace.region_name(weft_model::RegionId(r as u32)).to_string())
                .collect(),
            nodes: tree
                .nodes
                .iter()
                .map(|n| SideNode {
                    parent: n.parent,
                    name: n.region.0,
                    count: n.count,
                    inclusive_ns: n.inclusive_ns,
                    exclusive_ns: n.exclusive_ns,
                })
                .collect(),
        }
    }
}

/// One call path in both runs: `weft calltree --json`'s figures of each (0 where the run lacks the path), and
/// B minus A.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PathDiff {
    /// Region names from the root.
    pub path: Vec<String>,
    pub a_count: u64,
    pub b_count: u64,
    pub a_inclusive_ns: u64,
    pub b_inclusive_ns: u64,
    /// `b_inclusive_ns - a_inclusive_ns`.
    pub delta_ns: i64,
    pub a_exclusive_ns: u64,
    pub b_exclusive_ns: u64,
    /// `b_exclusive_ns - a_exclusive_ns`: the change of the path's own time, which colours its box.
    pub delta_exclusive_ns: i64,
}

/// Two runs' call trees paired by path.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CallTreeDiff {
    /// The time any interval covers in each tree (its roots' inclusive times).
    pub total_ns: Pair<u64>,
    /// B's paths in its tree's preorder (first appearance), then A's paths B lacks.
    pub paths: Vec<PathDiff>,
    /// For each node of B's tree, its path (an index into `paths`).
    #[serde(skip)]
    pub b_nodes: Vec<u32>,
}

/// How the change of a path's own time reads: the colour the flame graph gives its box.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// B spends more of its own time in the path; `strength` from 1 (a little) to 100 (all new).
    Slower {
        strength: u8,
    },
    Faster {
        strength: u8,
    },
    /// Within [`UNCHANGED_SHARE`] of the larger side.
    Unchanged,
}

/// A change of a path's own time smaller than this share of the larger of its two times reads as none.
pub const UNCHANGED_SHARE: f64 = 0.02;

impl PathDiff {
    /// Its own time's change, relative to the larger of A's and B's.
    pub fn change(&self) -> Change {
        let most = self.a_exclusive_ns.max(self.b_exclusive_ns);
        if most == 0 {
            return Change::Unchanged;
        }
        let r = self.delta_exclusive_ns as f64 / most as f64;
        if r.abs() < UNCHANGED_SHARE {
            return Change::Unchanged;
        }
        let strength = (r.abs() * 100.0).round().clamp(1.0, 100.0) as u8;
        if r > 0.0 {
            Change::Slower { strength }
        } else {
            Change::Faster { strength }
        }
    }
}

/// Run `t`'s side (`which` 'A' or 'B', for errors) under the comparison's `options`: its tree over the window
/// the comparison analyses it over (the whole run when aligned at the start without a window).
pub fn tree_of(t: &Trace, which: char, options: &CompareOptions) -> Result<CallTree, CompareError> {
    let w = side_window(t, which, options)?;
    let windowed = options.window.is_some() || options.align != Align::Start;
    let window = windowed.then_some(TimeWindow { start_ns: w.start_ns, end_ns: w.end_ns });
    Ok(call_tree(t, window, |_| true))
}

/// The path ids of a side's nodes, interned in `ids` (shared by both sides): a path is its parent's id and
/// its name.
fn intern(side: &TreeSide, ids: &mut FxHashMap<(u32, String), u32>, names: &mut Vec<Vec<String>>) -> Vec<u32> {
    let mut out: Vec<u32> = Vec::with_capacity(side.nodes.len());
    for n in &side.nodes {
        let parent = n.parent.and_then(|p| out.get(p as usize).copied()).unwrap_or(u32::MAX);
        let name = side.names.get(n.name as usize).cloned().unwrap_or_default();
        let next = names.len() as u32;
        let id = *ids.entry((parent, name.clone())).or_insert(next);
        if id == next {
            let mut path = if parent == u32::MAX { Vec::new() } else { names[parent as usize].clone() };
            path.push(name);
            names.push(path);
        }
        out.push(id);
    }
    out
}

/// Pair A's and B's trees by path.
pub fn diff_trees(a: &TreeSide, b: &TreeSide) -> CallTreeDiff {
    let mut ids: FxHashMap<(u32, String), u32> = FxHashMap::default();
    let mut names: Vec<Vec<String>> = Vec::new();
    // B first: its paths take the first ids, in its preorder.
    let b_ids = intern(b, &mut ids, &mut names);
    let a_ids = intern(a, &mut ids, &mut names);
    let mut figures = vec![[0u64; 6]; names.len()];
    for (side, (tree, id_of)) in [(a, &a_ids), (b, &b_ids)].into_iter().enumerate() {
        for (n, &id) in tree.nodes.iter().zip(id_of) {
            let f = &mut figures[id as usize];
            f[side * 3] += n.count;
            f[side * 3 + 1] += n.inclusive_ns;
            f[side * 3 + 2] += n.exclusive_ns;
        }
    }
    let paths = names
        .into_iter()
        .zip(figures)
        .map(|(path, f)| PathDiff {
            path,
            a_count: f[0],
            b_count: f[3],
            a_inclusive_ns: f[1],
            b_inclusive_ns: f[4],
            delta_ns: delta(f[1], f[4]),
            a_exclusive_ns: f[2],
            b_exclusive_ns: f[5],
            delta_exclusive_ns: delta(f[2], f[5]),
        })
        .collect();
    let total = |s: &TreeSide| s.nodes.iter().filter(|n| n.parent.is_none()).map(|n| n.inclusive_ns).sum();
    CallTreeDiff { total_ns: Pair { a: total(a), b: total(b) }, paths, b_nodes: b_ids }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calltree::call_tree;
    use weft_model::{Format, LocationKind, TraceBuilder};

    /// Two threads of `main > [solve > kernel, io]`; `kernel_ns(thread)` long kernels.
    fn run(kernel_ns: impl Fn(usize) -> u64, io: bool) -> Trace {
        let mut b = TraceBuilder::new(Format::Generated);
        let p = b.process(0);
        let [main, solve, kernel, iox] = ["main", "solve", "kernel", "io"].map(|n| b.region(n, ""));
        for th in 0..2 {
            let l = b.location(p, th as i64, LocationKind::CpuThread);
            let k = kernel_ns(th);
            b.interval(l, main, 0, 2 * k + 200);
            b.interval(l, solve, 0, 2 * k + 100);
            b.interval(l, kernel, 10, k);
            b.interval(l, kernel, (20 + k) as i64, k);
            if io {
                b.interval(l, iox, (2 * k + 110) as i64, 50);
            }
        }
        b.finish()
    }

    fn side(t: &Trace) -> TreeSide {
        TreeSide::of(&call_tree(t, None, |_| true), t)
    }

    fn path<'d>(d: &'d CallTreeDiff, names: &[&str]) -> &'d PathDiff {
        d.paths.iter().find(|p| p.path == names).unwrap_or_else(|| panic!("path {names:?}"))
    }

    #[test]
    fn a_tree_against_itself_changes_nothing() {
        let t = run(|_| 100, true);
        let d = diff_trees(&side(&t), &side(&t));
        assert_eq!(d.paths.len(), 4);
        assert_eq!(d.total_ns.a, d.total_ns.b);
        assert!(d.paths.iter().all(|p| p.delta_ns == 0 && p.delta_exclusive_ns == 0 && p.a_count == p.b_count));
        assert!(d.paths.iter().all(|p| p.change() == Change::Unchanged));
    }

    #[test]
    fn a_kernel_twice_as_slow_on_one_thread_and_a_path_gone() {
        let a = run(|_| 100, true);
        let b = run(|th| if th == 1 { 200 } else { 100 }, false);
        let tb = call_tree(&b, None, |_| true);
        let d = diff_trees(&side(&a), &TreeSide::of(&tb, &b));
        let k = path(&d, &["main", "solve", "kernel"]);
        assert_eq!((k.a_inclusive_ns, k.b_inclusive_ns, k.delta_ns), (400, 600, 200));
        assert_eq!((k.a_count, k.b_count), (4, 4));
        assert_eq!(k.change(), Change::Slower { strength: 33 });
        let s = path(&d, &["main", "solve"]);
        assert_eq!((s.delta_ns, s.delta_exclusive_ns, s.change()), (200, 0, Change::Unchanged));
        let io = path(&d, &["main", "io"]);
        assert_eq!((io.a_inclusive_ns, io.b_inclusive_ns, io.a_count, io.b_count), (100, 0, 2, 0));
        assert_eq!(io.change(), Change::Faster { strength: 100 });
        assert_eq!(d.paths.last().map(|p| p.path.clone()), Some(vec!["main".to_string(), "io".to_string()]));
        // Each of B's nodes points at its own path.
        assert_eq!(d.b_nodes.len(), tb.nodes.len());
        for (k, n) in tb.nodes.iter().enumerate() {
            let p = &d.paths[d.b_nodes[k] as usize];
            assert_eq!((p.b_inclusive_ns, p.b_count), (n.inclusive_ns, n.count));
            assert_eq!(p.path.last().map(String::as_str), Some(b.region_name(n.region)));
        }
    }
}
