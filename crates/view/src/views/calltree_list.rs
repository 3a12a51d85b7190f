//! The call-tree panel's state and its lists (issue #55): the worker's call tree of a selection
//! (`analyses::calltree_bundle`: merged or one tree per location, top down or bottom up), which tree is shown,
//! which nodes are open, the sort, the search and the selected node; the rows the panel shows (the open nodes
//! in preorder, siblings by the sort), and the butterfly of one region (`CallTree::butterfly`: its callers and
//! callees, read from the top-down tree's parent links). The numbers are the worker's: `weft calltree --json`'s.
//! Must not: compute a tree (the worker does), draw, or know the DOM.

use super::timeline::name_matches;
use super::timeline_diagnosis::location_label;
use serde_json::json;
use std::rc::Rc;
use weft_analyses::calltree::{ButterflyEdge, CallTree};
use weft_analyses::calltree_bundle::CallTreeBundle;
use weft_model::{RegionId, Trace};

/// Rows a list returns at most (the panel says how many more there are).
pub const MAX_ROWS: usize = 2000;
/// Nodes with at least this share of the tree's time open when a tree arrives (the hot paths shown).
const OPEN_SHARE: f64 = 0.05;

/// A column the rows' siblings are sorted by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SortKey {
    Name,
    Count,
    Inclusive,
    Exclusive,
}

impl SortKey {
    pub fn parse(key: &str) -> Result<Self, String> {
        Ok(match key {
            "name" => SortKey::Name,
            "count" => SortKey::Count,
            "inclusive" | "share" => SortKey::Inclusive,
            "exclusive" => SortKey::Exclusive,
            _ => return Err(format!("the call tree sorts by name, count, inclusive or exclusive, not '{key}'")),
        })
    }
}

pub struct CallTreeList {
    trace: Rc<Trace>,
    bundle: Rc<CallTreeBundle>,
    /// The tree shown: an index into the bundle's trees.
    shown: usize,
    /// The shown tree, shared with its flame graph.
    tree: Rc<CallTree>,
    open: Vec<bool>,
    sort: SortKey,
    descending: bool,
    search: Option<(String, Vec<bool>)>,
    selected: Option<usize>,
    /// The region whose butterfly is shown.
    butterfly: Option<RegionId>,
}

impl CallTreeList {
    /// The worker's bundle (decoded and checked against `trace`), its first tree shown with its hot paths open.
    pub fn new(trace: Rc<Trace>, bundle: CallTreeBundle) -> Self {
        let bundle = Rc::new(bundle);
        let tree = Rc::new(bundle.trees.first().map(|t| t.tree.clone()).unwrap_or_default());
        let mut list = CallTreeList {
            trace,
            bundle,
            shown: 0,
            tree,
            open: Vec::new(),
            sort: SortKey::Inclusive,
            descending: true,
            search: None,
            selected: None,
            butterfly: None,
        };
        list.choose(0);
        list
    }

    pub fn bundle(&self) -> &CallTreeBundle {
        &self.bundle
    }

    pub fn tree(&self) -> Rc<CallTree> {
        self.tree.clone()
    }

    pub fn trace(&self) -> &Rc<Trace> {
        &self.trace
    }

    /// Show tree `i` of the bundle (one location's, per location); false when there is no such tree.
    pub fn choose(&mut self, i: usize) -> bool {
        let Some(t) = self.bundle.trees.get(i) else { return i == 0 };
        self.shown = i;
        self.tree = Rc::new(t.tree.clone());
        let total = self.tree.total_ns().max(1) as f64;
        self.open = self.tree.nodes.iter().map(|n| n.inclusive_ns as f64 / total >= OPEN_SHARE).collect();
        self.selected = None;
        self.butterfly = self.tree.nodes.first().map(|n| n.region).filter(|_| !self.bundle.inverted);
        if let Some((pattern, _)) = self.search.take() {
            self.search(&pattern);
        }
        true
    }

    /// The trees of the bundle: `{trees: [{index, location, name, total_ns, nodes}], shown, inverted,
    /// per_location, window, locations}`.
    pub fn summary(&self) -> serde_json::Value {
        let t = &self.trace;
        let trees: Vec<_> = self
            .bundle
            .trees
            .iter()
            .enumerate()
            .map(|(i, bt)| {
                json!({
                    "index": i, "location": bt.location.map(|l| l.0),
                    "name": bt.location.map_or_else(|| "merged".to_string(), |l| location_label(t, l)),
                    "total_ns": bt.tree.total_ns(), "nodes": bt.tree.nodes.len(),
                })
            })
            .collect();
        let b = &self.bundle;
        json!({
            "trees": trees, "shown": self.shown, "inverted": b.inverted, "per_location": b.per_location,
            "window": [b.window.start_ns, b.window.end_ns], "locations": b.locations,
            "total_ns": self.tree.total_ns(), "nodes": self.tree.nodes.len(),
        })
    }

    /// Open or close node `k`; false for a node the tree lacks.
    pub fn toggle(&mut self, k: usize) -> bool {
        match self.open.get_mut(k) {
            Some(o) => {
                *o = !*o;
                true
            }
            None => false,
        }
    }

    /// Open (or close) every node.
    pub fn open_all(&mut self, open: bool) {
        self.open.iter_mut().for_each(|o| *o = open);
    }

    pub fn set_sort(&mut self, key: SortKey, descending: bool) {
        self.sort = key;
        self.descending = descending;
    }

    /// Mark the nodes whose region's name matches `pattern` (`views::timeline::name_matches`) and open their
    /// ancestors; an empty pattern ends the search. Returns how many nodes match.
    pub fn search(&mut self, pattern: &str) -> usize {
        let pattern = pattern.trim();
        if pattern.is_empty() {
            self.search = None;
            return 0;
        }
        let t = &self.trace;
        let by_region: Vec<bool> =
            (0..t.regions.len()).map(|r| name_matches(pattern, t.region_name(RegionId(r as u32)))).collect();
        let hits: Vec<bool> = self.tree.nodes.iter().map(|n| by_region[n.region.index()]).collect();
        for (k, _) in hits.iter().enumerate().filter(|(_, &h)| h) {
            let mut up = self.tree.nodes[k].parent;
            while let Some(p) = up {
                self.open[p as usize] = true;
                up = self.tree.nodes[p as usize].parent;
            }
        }
        let count = hits.iter().filter(|&&h| h).count();
        self.search = Some((pattern.to_string(), hits));
        count
    }

    /// Select node `k` (None: none): its path's regions for the worker's marks, and its region's butterfly
    /// (top down). Returns the node's path (region ids, as the tree lists them), or None.
    pub fn select(&mut self, k: Option<usize>) -> Option<Vec<u32>> {
        let k = k.filter(|&k| k < self.tree.nodes.len());
        self.selected = k;
        let k = k?;
        if !self.bundle.inverted {
            self.butterfly = Some(self.tree.nodes[k].region);
        }
        Some(self.tree.path(k).into_iter().map(|r| r.0).collect())
    }

    pub fn selected(&self) -> Option<usize> {
        self.selected
    }

    /// The node's figures as a row: `{node, depth, name, region, count, inclusive_ns, exclusive_ns, share,
    /// children, open, match, selected}`.
    fn row(&self, k: usize, total: u64) -> serde_json::Value {
        let n = &self.tree.nodes[k];
        let children = self.tree.children(k).next().is_some();
        json!({
            "node": k, "depth": n.depth, "name": self.trace.region_name(n.region), "region": n.region.0,
            "count": n.count, "inclusive_ns": n.inclusive_ns, "exclusive_ns": n.exclusive_ns,
            "share": if total > 0 { n.inclusive_ns as f64 / total as f64 } else { 0.0 },
            "children": children, "open": children && self.open[k],
            "match": self.search.as_ref().is_some_and(|(_, h)| h[k]), "selected": self.selected == Some(k),
        })
    }

    /// Siblings in the sort's order.
    fn sorted(&self, mut kids: Vec<usize>) -> Vec<usize> {
        let (n, t) = (&self.tree.nodes, &self.trace);
        kids.sort_by(|&a, &b| {
            let (x, y) = (&n[a], &n[b]);
            let o = match self.sort {
                SortKey::Name => {
                    let (a, b) = (t.region_name(x.region), t.region_name(y.region));
                    a.to_lowercase().cmp(&b.to_lowercase()).then_with(|| a.cmp(b))
                }
                SortKey::Count => x.count.cmp(&y.count),
                SortKey::Inclusive => x.inclusive_ns.cmp(&y.inclusive_ns),
                SortKey::Exclusive => x.exclusive_ns.cmp(&y.exclusive_ns),
            };
            let o = if self.descending { o.reverse() } else { o };
            o.then(a.cmp(&b))
        });
        kids
    }

    /// The rows shown: the open nodes' children in preorder, siblings in the sort's order, at most
    /// `limit` (`more`: how many rows the limit left out). With a search, only the matches and their
    /// ancestors. `{total_ns, rows: [...], more, matches}`.
    pub fn rows(&self, limit: usize) -> serde_json::Value {
        let total = self.tree.total_ns();
        // With a search: the nodes on a match's path.
        let on_path: Option<Vec<bool>> = self.search.as_ref().map(|(_, hits)| {
            let mut keep = hits.clone();
            for k in (0..hits.len()).rev() {
                if keep[k] {
                    if let Some(p) = self.tree.nodes[k].parent {
                        keep[p as usize] = true;
                    }
                }
            }
            keep
        });
        let shown = |k: &usize| on_path.as_ref().is_none_or(|keep| keep[*k]);
        let mut rows = Vec::new();
        let mut more = 0usize;
        let mut todo: Vec<usize> = self.sorted(self.tree.roots().filter(shown).collect());
        todo.reverse();
        while let Some(k) = todo.pop() {
            if rows.len() < limit {
                rows.push(self.row(k, total));
            } else {
                more += 1;
            }
            if self.open[k] {
                let mut kids = self.sorted(self.tree.children(k).filter(shown).collect());
                kids.reverse();
                todo.extend(kids);
            }
        }
        let matches = self.search.as_ref().map(|(_, h)| h.iter().filter(|&&x| x).count());
        json!({"total_ns": total, "rows": rows, "more": more, "matches": matches})
    }

    /// Show region `region`'s butterfly from now on; false for a region the trace lacks.
    pub fn set_butterfly(&mut self, region: u32) -> bool {
        let ok = (region as usize) < self.trace.regions.len();
        if ok {
            self.butterfly = Some(RegionId(region));
        }
        ok
    }

    /// The butterfly of the chosen region in the shown tree, as `weft calltree --butterfly --json` prints it
    /// (`{region, name, count, inclusive_ns, exclusive_ns, callers: [{region, name, count, inclusive_ns}],
    /// callees}`, `name` null: no caller); null for a bottom-up tree (the butterfly reads the top-down one) or
    /// none chosen.
    pub fn butterfly(&self) -> serde_json::Value {
        let Some(r) = self.butterfly.filter(|_| !self.bundle.inverted) else { return serde_json::Value::Null };
        let t = &self.trace;
        let b = self.tree.butterfly(t, r);
        let edges = |v: &[ButterflyEdge]| -> Vec<serde_json::Value> {
            v.iter()
                .map(|e| json!({"region": e.region.map(|r| r.0), "name": e.region.map(|r| t.region_name(r)), "count": e.count, "inclusive_ns": e.inclusive_ns}))
                .collect()
        };
        json!({
            "region": r.0, "name": t.region_name(r), "count": b.focus.count, "inclusive_ns": b.focus.inclusive_ns,
            "exclusive_ns": b.focus.exclusive_ns, "callers": edges(&b.callers), "callees": edges(&b.callees),
        })
    }

    /// What the tree is of, in words, for the flame graph's title.
    pub fn about(&self) -> String {
        use crate::scene::timeline::format_duration;
        let b = &self.bundle;
        let w = b.window;
        let whole = w.start_ns == 0 && w.end_ns == self.trace.span_ns;
        let when = if whole {
            "the whole run".to_string()
        } else {
            format!("{} – {}", format_duration(w.start_ns), format_duration(w.end_ns))
        };
        let whose = match (b.trees.get(self.shown).and_then(|t| t.location), &b.locations) {
            (Some(l), _) => location_label(&self.trace, l),
            (None, Some(ls)) => format!("{} locations", ls.len()),
            (None, None) => "every location".to_string(),
        };
        let how = if b.inverted { "bottom up" } else { "top down" };
        format!(
            "Call tree of {when}, {whose} ({how}): {} nodes, {} in all · widths by inclusive time · click a frame to zoom in, its root or F to zoom out",
            self.tree.nodes.len(),
            format_duration(self.tree.total_ns())
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft_analyses::calltree::{call_tree, per_location};
    use weft_analyses::calltree_bundle::BundleTree;
    use weft_analyses::moments::TimeWindow;
    use weft_model::{Format, LocationKind, TraceBuilder};

    fn trace() -> Rc<Trace> {
        let mut b = TraceBuilder::new(Format::Generated);
        let p = b.process(0);
        let l0 = b.location(p, 0, LocationKind::CpuThread);
        let l1 = b.location(p, 1, LocationKind::CpuThread);
        let [main, solve, wait, kernel, io] = ["main", "solve", "MPI_Waitall", "kernel", "io"].map(|n| b.region(n, ""));
        b.interval(l0, main, 0, 1000);
        b.interval(l0, solve, 0, 600);
        b.interval(l0, wait, 100, 300);
        b.interval(l0, kernel, 400, 100);
        b.interval(l0, io, 700, 200);
        b.interval(l1, main, 0, 500);
        b.interval(l1, io, 0, 400);
        b.interval(l1, wait, 100, 50);
        Rc::new(b.finish())
    }

    fn merged(t: &Trace, inverted: bool) -> CallTreeBundle {
        let tree = call_tree(t, None, |_| true);
        let tree = if inverted { tree.inverted(t) } else { tree };
        CallTreeBundle {
            window: TimeWindow::whole(t),
            locations: None,
            inverted,
            per_location: false,
            trees: vec![BundleTree { location: None, tree }],
        }
    }

    fn names(rows: &serde_json::Value) -> Vec<String> {
        rows["rows"].as_array().unwrap().iter().map(|r| r["name"].as_str().unwrap().to_string()).collect()
    }

    #[test]
    fn rows_open_sort_and_search() {
        let t = trace();
        let mut l = CallTreeList::new(t.clone(), merged(&t, false));
        // Hot paths open: main (1500) > solve (600) > [wait, kernel], main > io (600) > wait.
        let rows = l.rows(MAX_ROWS);
        assert_eq!(rows["total_ns"], 1500);
        assert_eq!(names(&rows), ["main", "io", "MPI_Waitall", "solve", "MPI_Waitall", "kernel"]);
        assert_eq!(rows["rows"][0]["share"], 1.0);
        l.set_sort(SortKey::Name, false);
        assert_eq!(names(&l.rows(MAX_ROWS)), ["main", "io", "MPI_Waitall", "solve", "kernel", "MPI_Waitall"]);
        l.set_sort(SortKey::Exclusive, true);
        assert!(l.toggle(0));
        assert_eq!(names(&l.rows(MAX_ROWS)), ["main"]);
        assert!(l.toggle(0));
        assert_eq!(l.search("wait"), 2);
        let rows = l.rows(MAX_ROWS);
        assert_eq!(names(&rows), ["main", "io", "MPI_Waitall", "solve", "MPI_Waitall"], "matches and their paths only");
        assert_eq!(rows["matches"], 2);
        assert_eq!(l.search(""), 0);
        assert_eq!(l.rows(2)["more"], 4);
    }

    #[test]
    fn selecting_gives_the_path_and_the_butterfly() {
        let t = trace();
        let mut l = CallTreeList::new(t.clone(), merged(&t, false));
        let wait_under_solve = (0..l.tree().nodes.len())
            .find(|&k| l.tree().path(k).len() == 3 && l.tree().nodes[k].inclusive_ns == 300)
            .unwrap();
        assert_eq!(l.select(Some(wait_under_solve)), Some(vec![0, 1, 2]));
        let b = l.butterfly();
        assert_eq!(b["name"], "MPI_Waitall");
        assert_eq!((b["count"].as_u64(), b["exclusive_ns"].as_u64()), (Some(2), Some(350)));
        let callers: Vec<&str> = b["callers"].as_array().unwrap().iter().map(|e| e["name"].as_str().unwrap()).collect();
        assert_eq!(callers, ["solve", "io"]);
        assert_eq!(l.select(Some(99)), None);
        // Bottom up: no butterfly; the path is innermost first.
        let mut inv = CallTreeList::new(t.clone(), merged(&t, true));
        assert_eq!(inv.butterfly(), serde_json::Value::Null);
        let k = (0..inv.tree().nodes.len())
            .find(|&k| inv.tree().path(k).len() == 2 && t.region_name(inv.tree().nodes[k].region) == "io")
            .unwrap();
        assert_eq!(inv.select(Some(k)), Some(vec![2, 4]));
    }

    #[test]
    fn per_location_trees_are_chosen_one_at_a_time() {
        let t = trace();
        let trees = per_location(&t, None, |_| true)
            .into_iter()
            .map(|lt| BundleTree { location: Some(lt.location), tree: lt.tree })
            .collect();
        let b = CallTreeBundle {
            window: TimeWindow::whole(&t),
            locations: None,
            inverted: false,
            per_location: true,
            trees,
        };
        let mut l = CallTreeList::new(t.clone(), b);
        assert_eq!(l.summary()["trees"].as_array().unwrap().len(), 2);
        assert_eq!(l.rows(MAX_ROWS)["total_ns"], 1000);
        assert!(l.choose(1));
        assert_eq!(l.rows(MAX_ROWS)["total_ns"], 500);
        assert!(!l.choose(2));
        assert!(l.about().contains("top down"));
    }
}
