//! The differential flame graph of two runs (issue #54): B's call tree laid out as its flame graph
//! (`layouts::flame`, widths by B's inclusive time, roots at the bottom), each box coloured by its call path's
//! change of own (exclusive) time against A (`analyses::compare::calltree`): red where B is slower, blue where
//! faster, stronger the larger the change relative to the larger side, grey where unchanged; sub-pixel paths
//! merged per pixel are hatched. A title, a legend, and a name on each box wide enough for one. The picture is
//! as tall as the tree: `weft render diff --flame` writes it and the page's compare panel shows it, with
//! [`DiffFlame::boxes`] to name the box under the pointer (A, B and the change). Must not compute a tree or a
//! difference (the analyses do) or hold view state.

use super::axis::label_width_px;
use super::flame::{HEADER_PX, LEVEL_PX, MIN_BOX_PX};
use super::palette::{BACKGROUND, TEXT, TEXT_MUTED};
use super::{rgba, Label, RectInstance, Rgba, Scene, Shape};
use crate::layouts::flame::flame_layout;
use serde::Serialize;
use weft_analyses::calltree::CallTree;
use weft_analyses::compare::calltree::{CallTreeDiff, Change, UNCHANGED_SHARE};
use weft_model::Trace;

/// The legend's strip under the title.
const LEGEND_PX: f32 = 22.0;
/// Names only on boxes at least this wide.
const LABEL_MIN_PX: f32 = 28.0;
/// The palest and the strongest red (B slower) and blue (B faster).
const SLOWER: [Rgba; 2] = [rgba(0xf4, 0xcf, 0xcf, 0xff), rgba(0xd6, 0x27, 0x28, 0xff)];
const FASTER: [Rgba; 2] = [rgba(0xcd, 0xdf, 0xf5, 0xff), rgba(0x1f, 0x6f, 0xd1, 0xff)];
pub const UNCHANGED: Rgba = rgba(0xc3, 0xc7, 0xcd, 0xff);
const MERGED: Rgba = rgba(0x8a, 0x90, 0x99, 0xff);

/// One box drawn, for hover: where it is and which path of the difference it stands for.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct DiffBox {
    pub x: f32,
    pub y: f32,
    pub w: f32,
    pub h: f32,
    /// An index into the difference's `paths`.
    pub path: u32,
    /// How many paths the box stands for (more than 1: sub-pixel paths merged; `path` is the first).
    pub merged: u32,
}

/// The picture and its boxes.
#[derive(Clone, Debug)]
pub struct DiffFlame {
    pub scene: Scene,
    pub boxes: Vec<DiffBox>,
}

fn mix(pair: [Rgba; 2], strength: u8) -> Rgba {
    let t = f32::from(strength) / 100.0;
    let ch = |shift: u32| {
        let (a, b) = (((pair[0] >> shift) & 0xff) as f32, ((pair[1] >> shift) & 0xff) as f32);
        ((a + (b - a) * t).round() as u32) << shift
    };
    ch(24) | ch(16) | ch(8) | 0xff
}

/// The fill of a path's change.
pub fn change_color(change: Change) -> Rgba {
    match change {
        Change::Slower { strength } => mix(SLOWER, strength),
        Change::Faster { strength } => mix(FASTER, strength),
        Change::Unchanged => UNCHANGED,
    }
}

/// B's `tree` (its regions `trace`'s) coloured by `diff` (of that tree against A's), `width` px wide.
pub fn diff_flame(tree: &CallTree, trace: &Trace, diff: &CallTreeDiff, width: f32, title: &str) -> DiffFlame {
    let width = width.max(200.0);
    let layout = flame_layout(tree, None, width, MIN_BOX_PX);
    let top = HEADER_PX + LEGEND_PX;
    let levels = layout.levels.max(1);
    let height = top + levels as f32 * LEVEL_PX + 4.0;
    let mut sc = Scene::new(width, height, BACKGROUND);
    sc.labels.push(Label::new(8.0, HEADER_PX / 2.0, title, TEXT, 12.0).bold().clipped((width - 16.0).max(1.0)));
    let unchanged = format!("unchanged (within {:.0} %)", UNCHANGED_SHARE * 100.0);
    let mut x = 8.0;
    let legend_y = HEADER_PX + LEGEND_PX / 2.0;
    for (fill, shape, text) in [
        (SLOWER[1], Shape::Rect, "B slower (own time)"),
        (FASTER[1], Shape::Rect, "B faster"),
        (UNCHANGED, Shape::Rect, unchanged.as_str()),
        (MERGED, Shape::Hatched, "paths under a pixel"),
    ] {
        sc.decorate(|sc| sc.rects.push(RectInstance::filled(x, legend_y - 5.0, 14.0, 10.0, fill).with_shape(shape)));
        sc.labels.push(Label::new(x + 19.0, legend_y, text, TEXT_MUTED, 11.0));
        x += 19.0 + label_width_px(text, 11.0) + 16.0;
    }
    let mut boxes = Vec::with_capacity(layout.boxes.len());
    for b in &layout.boxes {
        let Some(&path) = diff.b_nodes.get(b.node as usize) else { continue };
        let Some(p) = diff.paths.get(path as usize) else { continue };
        let y = top + (levels - 1 - b.level) as f32 * LEVEL_PX;
        let w = (b.x1 - b.x0).max(MIN_BOX_PX);
        let rect = RectInstance::filled(
            b.x0,
            y,
            w,
            LEVEL_PX - 1.0,
            if b.merged > 1 { MERGED } else { change_color(p.change()) },
        );
        sc.rects.push(match (b.merged > 1, w >= 4.0) {
            (true, _) => rect.with_shape(Shape::Hatched),
            (false, true) => rect.with_border(BACKGROUND, 0.5),
            (false, false) => rect,
        });
        boxes.push(DiffBox { x: b.x0, y, w, h: LEVEL_PX - 1.0, path, merged: b.merged });
        if w >= LABEL_MIN_PX && b.merged == 1 {
            let name = tree.nodes.get(b.node as usize).map_or("", |n| trace.region_name(n.region));
            let ink = super::palette::text_on(rect.fill);
            sc.labels.push(Label::new(b.x0 + 4.0, y + LEVEL_PX / 2.0, name, ink, 11.0).clipped(w - 8.0));
        }
    }
    if layout.boxes.is_empty() {
        sc.add_notice(
            0.0,
            top,
            width,
            (height - top).max(1.0),
            &["No time in B's call tree.", "Run B has no interval with a duration in the compared window."],
        );
    }
    DiffFlame { scene: sc, boxes }
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft_analyses::calltree::call_tree;
    use weft_analyses::compare::calltree::{diff_trees, TreeSide};
    use weft_model::{Format, LocationKind, TraceBuilder};

    /// main > [compute (`compute_ns`), io (100)].
    fn run(compute_ns: u64) -> Trace {
        let mut b = TraceBuilder::new(Format::Generated);
        let p = b.process(0);
        let l = b.location(p, 0, LocationKind::CpuThread);
        let [main, compute, io] = ["main", "compute", "io"].map(|n| b.region(n, ""));
        b.interval(l, main, 0, compute_ns + 100);
        b.interval(l, compute, 0, compute_ns);
        b.interval(l, io, compute_ns as i64, 100);
        b.finish()
    }

    #[test]
    fn the_slower_path_is_red_the_rest_grey_boxes_name_their_paths() {
        let (a, b) = (run(300), run(600));
        let tb = call_tree(&b, None, |_| true);
        let d = diff_trees(&TreeSide::of(&call_tree(&a, None, |_| true), &a), &TreeSide::of(&tb, &b));
        let f = diff_flame(&tb, &b, &d, 700.0, "B against A");
        assert_eq!(f.boxes.len(), 3);
        let fill_at = |bx: &DiffBox| f.scene.rects.iter().find(|r| r.x == bx.x && r.y == bx.y).map(|r| r.fill);
        for bx in &f.boxes {
            let p = &d.paths[bx.path as usize];
            let want = match p.path.last().map(String::as_str) {
                Some("compute") => mix(SLOWER, 50),
                _ => UNCHANGED,
            };
            assert_eq!(fill_at(bx), Some(want), "{:?}", p.path);
        }
        let main = f.boxes.iter().find(|bx| d.paths[bx.path as usize].path == ["main"]).unwrap();
        let compute = f.boxes.iter().find(|bx| d.paths[bx.path as usize].path == ["main", "compute"]).unwrap();
        assert_eq!((main.x, main.w), (0.0, 700.0));
        assert!(compute.y < main.y, "roots at the bottom");
        assert!((compute.w - 600.0).abs() < 1e-3);
        assert!(f.scene.labels.iter().any(|l| l.text == "compute"));
        assert_eq!(f.scene.height, HEADER_PX + LEGEND_PX + 2.0 * LEVEL_PX + 4.0);
    }
}
