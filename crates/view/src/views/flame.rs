//! The flame graph (or icicle) of the call tree the call-tree panel shows, as a pane of its own (issue #55):
//! the worker's tree (`analyses::calltree_bundle`) laid out by `layouts::flame` and drawn by `scene::flame`.
//! A click on a box zooms into its subtree; a click on an ancestor above it, or on the zoomed-into root, goes
//! back up; F shows the whole tree again. Hover names the path with its count, inclusive and exclusive time
//! and share. The wheel and drag scroll the levels of a deep tree. Must not compute a tree (the worker does)
//! or read the DOM.

use super::{Hover, Pane};
use crate::layouts::flame::{ancestors, flame_layout, FlameLayout};
use crate::scene::flame::{flame_scene, FlameFrame, HEADER_PX, LEVEL_PX, MIN_BOX_PX};
use crate::scene::timeline::{format_duration, region_colors};
use crate::scene::{Rgba, Scene};
use serde_json::json;
use std::rc::Rc;
use weft_analyses::calltree::CallTree;
use weft_model::Trace;

/// The pane's kind (`Pane::kind`, the page's tab).
pub const FLAME_KIND: &str = "flamegraph";

pub struct FlamePane {
    trace: Rc<Trace>,
    tree: Rc<CallTree>,
    colors: Vec<Rgba>,
    /// What the tree is of, in words (the selection), for the title.
    about: String,
    icicle: bool,
    /// The node zoomed into; None: every root.
    focus: Option<usize>,
    hovered: Option<usize>,
    scroll_px: f32,
    width: f32,
    height: f32,
    layout: FlameLayout,
}

impl FlamePane {
    /// The flame graph (or the icicle) of `tree`, whose regions are `trace`'s; `about` says what it is of.
    pub fn new(trace: Rc<Trace>, tree: Rc<CallTree>, about: String, icicle: bool, width: f32, height: f32) -> Self {
        let colors = region_colors(&trace);
        let mut p = FlamePane {
            trace,
            tree,
            colors,
            about,
            icicle,
            focus: None,
            hovered: None,
            scroll_px: 0.0,
            width,
            height,
            layout: FlameLayout::default(),
        };
        p.relayout();
        p
    }

    fn relayout(&mut self) {
        self.layout = flame_layout(&self.tree, self.focus, self.width, MIN_BOX_PX);
        self.clamp_scroll();
    }

    fn clamp_scroll(&mut self) {
        let room = (self.height - HEADER_PX).max(0.0);
        let max = (self.layout.levels as f32 * LEVEL_PX - room).max(0.0);
        self.scroll_px = self.scroll_px.clamp(0.0, max);
    }

    fn frame(&self) -> FlameFrame<'_> {
        FlameFrame {
            width: self.width,
            height: self.height,
            scroll_px: self.scroll_px,
            icicle: self.icicle,
            hovered: self.hovered.map(|k| k as u32),
            title: &self.about,
        }
    }

    /// The node drawn at (x, y) as itself (not merged), if any.
    fn node_at(&self, x: f32, y: f32) -> Option<usize> {
        let level = self.frame().level_at(y)?;
        self.layout.at(x, level).filter(|b| b.merged == 1).map(|b| b.node as usize)
    }

    /// Zoom into node `k`'s subtree (None: the whole tree); false for a node the tree lacks.
    pub fn set_focus(&mut self, k: Option<usize>) -> bool {
        if k.is_some_and(|k| k >= self.tree.nodes.len()) {
            return false;
        }
        self.focus = k;
        self.scroll_px = 0.0;
        self.relayout();
        true
    }

    pub fn focus(&self) -> Option<usize> {
        self.focus
    }

    /// Flame (growing up) or icicle (hanging down).
    pub fn set_icicle(&mut self, icicle: bool) {
        self.icicle = icicle;
        self.clamp_scroll();
    }

    /// Screen box (x, y, w, h) of node `k` as drawn by itself, if it is (for tests and the panel).
    pub fn box_of(&self, k: usize) -> Option<(f32, f32, f32, f32)> {
        let b = self.layout.boxes.iter().find(|b| b.node as usize == k && b.merged == 1)?;
        Some((b.x0, self.frame().level_y(b.level), (b.x1 - b.x0).max(MIN_BOX_PX), LEVEL_PX - 1.0))
    }

    /// Node `k` in words: its path, count, inclusive and exclusive time and share of the shown total.
    fn describe(&self, k: usize) -> Hover {
        let n = &self.tree.nodes[k];
        let t = &self.trace;
        let path: Vec<&str> = self.tree.path(k).into_iter().map(|r| t.region_name(r)).collect();
        let total = self.tree.total_ns();
        let share = if total > 0 { n.inclusive_ns as f64 / total as f64 } else { 0.0 };
        Hover {
            title: t.region_name(n.region).to_string(),
            lines: vec![
                path.join(" → "),
                format!("{} calls", n.count),
                format!("inclusive {}", format_duration(n.inclusive_ns)),
                format!("exclusive {}", format_duration(n.exclusive_ns)),
                format!("{:.2} % of the tree's time", share * 100.0),
            ],
            detail: json!({
                "node": k, "path": path, "count": n.count, "inclusive_ns": n.inclusive_ns,
                "exclusive_ns": n.exclusive_ns, "share": share,
            }),
        }
    }
}

impl Pane for FlamePane {
    fn kind(&self) -> &'static str {
        FLAME_KIND
    }
    fn resize(&mut self, width: f32, height: f32) {
        self.width = width;
        self.height = height;
        self.relayout();
    }
    /// No time axis: the wheel scrolls the levels.
    fn zoom(&mut self, _x: f32, factor: f64) {
        self.scroll(if factor > 1.0 { -LEVEL_PX } else { LEVEL_PX });
    }
    fn pan(&mut self, _dx: f32) {}
    fn scroll(&mut self, dy: f32) {
        // Down the screen is deeper in the icicle, shallower in the flame.
        self.scroll_px += if self.icicle { dy } else { -dy };
        self.clamp_scroll();
    }
    fn fit(&mut self) {
        self.set_focus(None);
    }
    fn hover(&mut self, x: f32, y: f32) -> Option<Hover> {
        self.hovered = self.node_at(x, y);
        self.hovered.map(|k| self.describe(k))
    }
    fn clear_hover(&mut self) {
        self.hovered = None;
    }
    /// A box zooms into its subtree; the zoomed-into root or an ancestor above it zooms out to its parent or to
    /// itself.
    fn click(&mut self, x: f32, y: f32) -> bool {
        let Some(k) = self.node_at(x, y) else { return false };
        let next = match self.focus {
            Some(f) if f == k => self.tree.nodes[k].parent.map(|p| p as usize),
            Some(f) if ancestors(&self.tree, f).contains(&k) => Some(k),
            _ => Some(k),
        };
        // Zooming into a root of a one-root tree shows what fit shows.
        let next = next.filter(|&n| self.tree.nodes[n].parent.is_some() || self.tree.roots().nth(1).is_some());
        self.set_focus(next)
    }
    fn scene(&self) -> Scene {
        flame_scene(&self.tree, &self.trace, &self.colors, &self.layout, &self.frame())
    }
    fn brief(&self) -> serde_json::Value {
        json!({
            "view": FLAME_KIND, "icicle": self.icicle, "focus": self.focus, "hovered": self.hovered,
            "nodes": self.tree.nodes.len(), "boxes": self.layout.boxes.len(), "levels": self.layout.levels,
            "total_ns": self.layout.total_ns, "scroll_px": self.scroll_px, "width": self.width, "height": self.height,
            "header_px": HEADER_PX, "level_px": LEVEL_PX, "about": self.about,
        })
    }
    fn state(&self) -> serde_json::Value {
        let boxes: Vec<_> = self
            .layout
            .boxes
            .iter()
            .map(|b| json!({"node": b.node, "level": b.level, "x0": b.x0, "x1": b.x1, "merged": b.merged, "ancestor": b.ancestor}))
            .collect();
        super::with_contents(self.brief(), json!({ "boxes": boxes }))
    }
    fn configure(&mut self, key: &str, value: &str) -> Result<(), String> {
        match (key, value) {
            ("style", "flame") => self.set_icicle(false),
            ("style", "icicle") => self.set_icicle(true),
            ("focus", v) => {
                let k = if v.is_empty() {
                    None
                } else {
                    Some(v.parse::<usize>().map_err(|_| format!("focus: '{v}' is not a node"))?)
                };
                if !self.set_focus(k) {
                    return Err(format!("focus: the tree has no node {v}"));
                }
            }
            _ => {
                return Err(format!(
                    "the flame graph has no option '{key}' = '{value}' (style = flame | icicle, focus = NODE)"
                ))
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft_analyses::calltree::call_tree;
    use weft_model::{Format, LocationKind, TraceBuilder};

    fn pane(icicle: bool) -> FlamePane {
        let mut b = TraceBuilder::new(Format::Generated);
        let p = b.process(0);
        let l = b.location(p, 0, LocationKind::CpuThread);
        let [main, solve, wait, io] = ["main", "solve", "MPI_Waitall", "io"].map(|n| b.region(n, ""));
        b.interval(l, main, 0, 1000);
        b.interval(l, solve, 0, 600);
        b.interval(l, wait, 100, 300);
        b.interval(l, io, 700, 200);
        let t = Rc::new(b.finish());
        let tree = Rc::new(call_tree(&t, None, |_| true));
        FlamePane::new(t, tree, "the whole run".into(), icicle, 1000.0, 400.0)
    }

    #[test]
    fn a_click_zooms_into_a_subtree_and_back() {
        for icicle in [false, true] {
            let mut p = pane(icicle);
            // Nodes: 0 main, 1 solve, 2 wait, 3 io.
            let (x, y, w, h) = p.box_of(1).unwrap();
            assert_eq!((x, w), (0.0, 600.0));
            let hover = p.hover(x + 5.0, y + h / 2.0).unwrap();
            assert_eq!(hover.detail["path"], json!(["main", "solve"]));
            assert_eq!(hover.detail["inclusive_ns"], 600);
            assert!(p.click(x + 5.0, y + h / 2.0));
            assert_eq!(p.focus(), Some(1));
            let (x, _, w, _) = p.box_of(2).unwrap();
            assert_eq!(
                (x, w),
                (0.0, 500.0),
                "wait: 300 of solve's 600 ns over the width, from its left (not time-ordered)"
            );
            // main is now an ancestor above solve: a click on it goes back to the whole tree (one root).
            let (x, y, _, h) = p.box_of(0).unwrap();
            assert!(p.click(x + 900.0, y + h / 2.0));
            assert_eq!(p.focus(), None);
            assert!(p.click(p.box_of(1).unwrap().0 + 1.0, p.box_of(1).unwrap().1 + 2.0));
            p.fit();
            assert_eq!(p.focus(), None);
            assert!(!p.click(999.0, 1.0), "the title strip is not a box");
        }
    }

    #[test]
    fn options_set_the_style_and_the_focus() {
        let mut p = pane(false);
        p.configure("style", "icicle").unwrap();
        assert_eq!(p.state()["icicle"], true);
        p.configure("focus", "3").unwrap();
        assert_eq!(p.focus(), Some(3));
        assert!(p.configure("focus", "99").is_err());
        assert!(p.configure("colour", "x").is_err());
        assert!(p.scene().marks() >= 2);
    }
}
