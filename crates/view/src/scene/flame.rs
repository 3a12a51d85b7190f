//! The flame graph and the icicle of a call tree (issue #55): `layouts::flame`'s boxes as rect instances, one
//! level a row, in the region colours of the timeline; the flame grows up from the bottom, the icicle hangs
//! down from the top. The zoomed-into node's ancestors are drawn faded across the width; sub-pixel nodes merged
//! per pixel are grey; the hovered node is outlined. Names on the boxes wide enough to hold some, clipped to
//! them (the page's 2D overlay draws labels). A frame is one pass over the layout's boxes: rects, then
//! labels, so the renderer draws it in a handful of instanced calls whatever the tree's size.
//! Must not: lay out (`layouts::flame`), compute a tree, or hold view state (`views::flame`).

use super::{palette, rgba, Label, RectInstance, Rgba, Scene};
use crate::layouts::flame::{FlameBox, FlameLayout};
use weft_analyses::calltree::CallTree;
use weft_model::Trace;

/// The title strip at the top.
pub const HEADER_PX: f32 = 26.0;
/// One level of the graph.
pub const LEVEL_PX: f32 = 18.0;
/// Boxes narrower than this are merged per pixel.
pub const MIN_BOX_PX: f32 = 1.0;
/// Names only on boxes at least this wide.
const LABEL_MIN_PX: f32 = 28.0;
const MERGED: Rgba = rgba(0xb4, 0xb8, 0xbf, 0xff);
const HOVER: Rgba = rgba(0x10, 0x10, 0x10, 0xff);

/// What a frame shows, beside the layout: the view's size and scroll, which way the graph grows, the
/// hovered node and the title.
#[derive(Clone, Debug)]
pub struct FlameFrame<'a> {
    pub width: f32,
    pub height: f32,
    /// Levels scrolled past (pixels): towards the deep end.
    pub scroll_px: f32,
    pub icicle: bool,
    pub hovered: Option<u32>,
    pub title: &'a str,
}

impl FlameFrame<'_> {
    /// The top of level `level`'s row on screen.
    pub fn level_y(&self, level: u32) -> f32 {
        if self.icicle {
            HEADER_PX + level as f32 * LEVEL_PX - self.scroll_px
        } else {
            self.height - (level as f32 + 1.0) * LEVEL_PX + self.scroll_px
        }
    }

    /// The level whose row holds screen y, if any.
    pub fn level_at(&self, y: f32) -> Option<u32> {
        if y < HEADER_PX || y >= self.height {
            return None;
        }
        // Level l's row is [top, top + LEVEL_PX): counted from the top in the icicle, from the bottom in the flame.
        let l = if self.icicle {
            ((y - HEADER_PX + self.scroll_px) / LEVEL_PX).floor()
        } else {
            ((self.height + self.scroll_px - y) / LEVEL_PX).ceil() - 1.0
        };
        (l >= 0.0).then_some(l as u32)
    }
}

/// The scene of `layout` (of `tree`, whose regions are `trace`'s, coloured by `colors`).
pub fn flame_scene(tree: &CallTree, trace: &Trace, colors: &[Rgba], layout: &FlameLayout, f: &FlameFrame) -> Scene {
    let mut sc = Scene::new(f.width, f.height, palette::BACKGROUND);
    let fill_of = |b: &FlameBox| -> Rgba {
        if b.merged > 1 {
            return MERGED;
        }
        let c = tree.nodes.get(b.node as usize).and_then(|n| colors.get(n.region.index())).copied().unwrap_or(MERGED);
        if b.ancestor {
            (c & 0xffff_ff00) | 0x80
        } else {
            c
        }
    };
    let mut hovered: Option<RectInstance> = None;
    for b in &layout.boxes {
        let y = f.level_y(b.level);
        if y + LEVEL_PX <= HEADER_PX || y >= f.height {
            continue;
        }
        let w = (b.x1 - b.x0).max(MIN_BOX_PX);
        let fill = fill_of(b);
        let rect = RectInstance::filled(b.x0, y, w, LEVEL_PX - 1.0, fill);
        // A hairline of the background between neighbours, where there is room for one.
        sc.rects.push(if w >= 4.0 { rect.with_border(palette::BACKGROUND, 0.5) } else { rect });
        if f.hovered == Some(b.node) && b.merged == 1 {
            hovered = Some(RectInstance::filled(b.x0, y, w, LEVEL_PX - 1.0, 0).with_border(HOVER, 2.0));
        }
        if w >= LABEL_MIN_PX && b.merged == 1 {
            if let Some(n) = tree.nodes.get(b.node as usize) {
                let ink = palette::text_on(fill | 0xff);
                let name = trace.region_name(n.region);
                sc.labels.push(Label::new(b.x0 + 4.0, y + LEVEL_PX / 2.0, name, ink, 11.0).clipped(w - 8.0));
            }
        }
    }
    sc.rects.extend(hovered);
    // The title strip over whatever scrolled under it.
    sc.decorate(|sc| sc.rects.push(RectInstance::filled(0.0, 0.0, f.width, HEADER_PX, palette::BACKGROUND)));
    sc.labels.push(Label::new(8.0, HEADER_PX / 2.0, f.title, palette::TEXT, 12.0).clipped((f.width - 16.0).max(1.0)));
    if layout.boxes.iter().all(|b| b.ancestor) {
        let h = (f.height - HEADER_PX).max(1.0);
        sc.add_notice(0.0, HEADER_PX, f.width, h, &["No time in this call tree.", "The selection holds no interval with a duration: choose another window or other locations in the call-tree panel."]);
    }
    sc
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layouts::flame::flame_layout;
    use weft_analyses::calltree::call_tree;
    use weft_model::{Format, LocationKind, TraceBuilder};

    fn trace() -> Trace {
        let mut b = TraceBuilder::new(Format::Generated);
        let p = b.process(0);
        let l = b.location(p, 0, LocationKind::CpuThread);
        let [main, solve, io] = ["main", "solve", "io"].map(|n| b.region(n, ""));
        b.interval(l, main, 0, 1000);
        b.interval(l, solve, 0, 600);
        b.interval(l, io, 700, 1);
        b.finish()
    }

    #[test]
    fn boxes_stand_on_their_levels_flame_up_icicle_down() {
        let t = trace();
        let tree = call_tree(&t, None, |_| true);
        let colors = crate::scene::timeline::region_colors(&t);
        let layout = flame_layout(&tree, None, 500.0, MIN_BOX_PX);
        let mut f =
            FlameFrame { width: 500.0, height: 300.0, scroll_px: 0.0, icicle: false, hovered: Some(1), title: "t" };
        let sc = flame_scene(&tree, &t, &colors, &layout, &f);
        let main = sc.rects[0];
        assert_eq!((main.x, main.y, main.w), (0.0, 300.0 - LEVEL_PX, 500.0));
        assert_eq!(main.fill, colors[0]);
        let solve = sc.rects[1];
        assert_eq!((solve.x, solve.y, solve.w), (0.0, 300.0 - 2.0 * LEVEL_PX, 300.0));
        assert!(sc.rects.iter().any(|r| r.border == HOVER && r.x == 0.0 && r.w == 300.0), "solve outlined");
        assert!(sc.labels.iter().any(|l| l.text == "main") && sc.labels.iter().any(|l| l.text == "solve"));
        assert!(!sc.labels.iter().any(|l| l.text == "io"), "a half-pixel box has no name");
        assert_eq!(f.level_at(300.0 - LEVEL_PX / 2.0), Some(0));
        f.icicle = true;
        let sc = flame_scene(&tree, &t, &colors, &layout, &f);
        assert_eq!(sc.rects[0].y, HEADER_PX);
        assert_eq!(f.level_at(HEADER_PX + LEVEL_PX * 1.5), Some(1));
        assert!(sc.notice.is_none());
    }
}
