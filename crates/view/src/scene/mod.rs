//! The scene: what a view draws, as plain instance arrays in CSS pixels of the view's canvas.
//!
//! Every view (timeline, moments, execution graph, grain graph, particles) produces a [`Scene`]. The wgpu
//! renderer draws its rects and lines as two instanced draw calls; the SVG writer turns the same scene into
//! a document for export. No GPU or web types here: scenes are built and tested natively.

pub mod aggregate;
pub mod axis;
pub mod compare;
pub mod counters;
pub mod diagnosis_marks;
pub mod execgraph;
pub mod flame;
pub mod flame_diff;
pub mod grains;
pub mod groups;
pub mod legend;
pub mod message_marks;
pub mod moments;
pub mod moments_diff;
pub mod note_marks;
pub mod number;
pub mod palette;
pub mod parallelism;
pub mod particles;
pub mod row_names;
pub mod short_labels;
pub mod svg;
pub mod timeline;
pub mod timeline_marks;
pub mod utilization;

use bytemuck::{Pod, Zeroable};

/// Colour as 0xRRGGBBAA.
pub type Rgba = u32;

pub const fn rgba(r: u8, g: u8, b: u8, a: u8) -> Rgba {
    ((r as u32) << 24) | ((g as u32) << 16) | ((b as u32) << 8) | a as u32
}

/// Shapes a rect instance can take; the fragment shader draws each as a signed distance field.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    Rect = 0,
    /// Rounded rectangle, corner radius min(w, h) / 4.
    Rounded = 1,
    /// Ellipse inscribed in the rect.
    Ellipse = 2,
    /// Diamond (rhombus) inscribed in the rect.
    Diamond = 3,
    /// Triangle pointing down, inscribed in the rect.
    TriangleDown = 4,
    /// Triangle pointing up, inscribed in the rect.
    TriangleUp = 5,
    /// The rect hatched: diagonal stripes of the fill 3 px wide every 6 px of the screen (continuous across
    /// neighbouring rects), transparent between them, so what is beneath shows through (waiting, issue #53).
    Hatched = 6,
}

/// One filled shape. 32 bytes; the GPU's instance layout matches it field for field.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct RectInstance {
    pub x: f32,
    pub y: f32,
    pub w: f32,
    pub h: f32,
    pub fill: Rgba,
    pub border: Rgba,
    pub border_px: f32,
    pub shape: u32,
}

impl RectInstance {
    pub fn filled(x: f32, y: f32, w: f32, h: f32, fill: Rgba) -> Self {
        RectInstance { x, y, w, h, fill, border: 0, border_px: 0.0, shape: Shape::Rect as u32 }
    }
    pub fn with_border(mut self, border: Rgba, px: f32) -> Self {
        self.border = border;
        self.border_px = px;
        self
    }
    pub fn with_shape(mut self, shape: Shape) -> Self {
        self.shape = shape as u32;
        self
    }
}

/// One straight line segment. 32 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct LineInstance {
    pub x0: f32,
    pub y0: f32,
    pub x1: f32,
    pub y1: f32,
    pub width: f32,
    pub color: Rgba,
    /// Dash period in pixels (dash and gap each half of it); 0 for a solid line.
    pub dash_px: f32,
    /// 1.0 to draw an arrow head at (x1, y1), else 0.0.
    pub arrow: f32,
}

impl LineInstance {
    pub fn solid(x0: f32, y0: f32, x1: f32, y1: f32, width: f32, color: Rgba) -> Self {
        LineInstance { x0, y0, x1, y1, width, color, dash_px: 0.0, arrow: 0.0 }
    }
    pub fn dashed(mut self, period_px: f32) -> Self {
        self.dash_px = period_px;
        self
    }
    pub fn with_arrow(mut self) -> Self {
        self.arrow = 1.0;
        self
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Align {
    Left,
    Center,
    Right,
}

/// Text drawn over the shapes (by the page's 2D overlay, or as SVG text). `y` is the text's vertical centre.
#[derive(Clone, Debug, PartialEq)]
pub struct Label {
    pub x: f32,
    pub y: f32,
    pub text: String,
    pub color: Rgba,
    pub size_px: f32,
    pub align: Align,
    pub bold: bool,
    /// Clip the text to this width in pixels (0 for no clip).
    pub max_width: f32,
}

impl Label {
    /// Control, bidi and zero-width characters in `text` (trace names) become visible `\u{…}` markers, so a
    /// name cannot reorder or hide what the canvas or the SVG shows.
    pub fn new(x: f32, y: f32, text: impl Into<String>, color: Rgba, size_px: f32) -> Self {
        let text = text.into();
        let text = match weft_model::text::escape_controls(&text) {
            std::borrow::Cow::Borrowed(_) => text,
            std::borrow::Cow::Owned(escaped) => escaped,
        };
        Label { x, y, text, color, size_px, align: Align::Left, bold: false, max_width: 0.0 }
    }
    pub fn aligned(mut self, align: Align) -> Self {
        self.align = align;
        self
    }
    pub fn bold(mut self) -> Self {
        self.bold = true;
        self
    }
    pub fn clipped(mut self, max_width: f32) -> Self {
        self.max_width = max_width;
        self
    }
}

/// A whole frame of one view. Rects are drawn first, then lines, then labels; within each, in order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Scene {
    pub width: f32,
    pub height: f32,
    pub background: Rgba,
    pub rects: Vec<RectInstance>,
    pub lines: Vec<LineInstance>,
    pub labels: Vec<Label>,
    /// How many of the rects and lines are decoration (axes, grid, legends, row backgrounds) rather than the
    /// data itself; see [`Scene::marks`].
    pub chrome: usize,
    /// Why the view shows no data where one would expect some (e.g. no busy time under the busy definition),
    /// in words; the scene also draws it. None when there is nothing to explain.
    pub notice: Option<String>,
}

impl Scene {
    pub fn new(width: f32, height: f32, background: Rgba) -> Self {
        Scene { width, height, background, ..Default::default() }
    }

    /// Rects and lines that show data (not decoration): 0 means the view draws nothing of the input, which
    /// it must then explain with a [`Scene::notice`].
    pub fn marks(&self) -> usize {
        (self.rects.len() + self.lines.len()).saturating_sub(self.chrome)
    }

    /// Mark the instances pushed by `f` as decoration.
    pub fn decorate<R>(&mut self, f: impl FnOnce(&mut Scene) -> R) -> R {
        let before = self.rects.len() + self.lines.len();
        let r = f(self);
        self.chrome += self.rects.len() + self.lines.len() - before;
        r
    }

    /// A notice drawn centred in the box (x, y, w, h), its first part bold and the rest muted, each wrapped to
    /// the box; kept as [`Scene::notice`].
    pub fn add_notice(&mut self, x: f32, y: f32, w: f32, h: f32, parts: &[&str]) {
        let width = (w - 24.0).max(40.0);
        let mut rows: Vec<(String, f32, bool)> = Vec::new();
        for (i, part) in parts.iter().enumerate() {
            let size = if i == 0 { 13.0 } else { 11.0 };
            rows.extend(wrap(part, size, width).into_iter().map(|l| (l, size, i == 0)));
        }
        let line_h = 17.0;
        let top = y + h / 2.0 - (rows.len() as f32 - 1.0) * line_h / 2.0;
        for (i, (text, size, first)) in rows.into_iter().enumerate() {
            let color = if first { palette::TEXT } else { palette::TEXT_MUTED };
            let label = Label::new(x + w / 2.0, top + i as f32 * line_h, text, color, size).aligned(Align::Center);
            self.labels.push(if first { label.bold() } else { label }.clipped(w.max(1.0)));
        }
        let text = parts.join(" ");
        self.notice = Some(match self.notice.take() {
            Some(old) if old != text => format!("{old} {text}"),
            _ => text,
        });
    }

    /// A band of wrapped text across the scene at its top (or bottom) edge, over what is drawn there: says
    /// something about the whole view (not data, so decoration).
    pub fn add_banner(&mut self, at_top: bool, text: &str, fill: Rgba) {
        let lines = wrap(text, 12.0, (self.width - 16.0).max(40.0));
        let h = lines.len() as f32 * 16.0 + 6.0;
        let y = if at_top { 0.0 } else { (self.height - h).max(0.0) };
        let w = self.width;
        self.decorate(|s| s.rects.push(RectInstance::filled(0.0, y, w, h, fill)));
        for (i, line) in lines.into_iter().enumerate() {
            self.labels.push(Label::new(8.0, y + 11.0 + i as f32 * 16.0, line, palette::TEXT, 12.0));
        }
    }

    /// This scene with `right` placed beside it, to the right (two views sharing a time axis).
    pub fn beside(mut self, right: Scene) -> Scene {
        let dx = self.width;
        self.width += right.width;
        self.height = self.height.max(right.height);
        self.rects.extend(right.rects.into_iter().map(|mut r| {
            r.x += dx;
            r
        }));
        self.lines.extend(right.lines.into_iter().map(|mut l| {
            l.x0 += dx;
            l.x1 += dx;
            l
        }));
        self.labels.extend(right.labels.into_iter().map(|mut t| {
            t.x += dx;
            t
        }));
        self.chrome += right.chrome;
        self.notice = match (self.notice, right.notice) {
            (Some(a), Some(b)) if a != b => Some(format!("{a} {b}")),
            (a, b) => a.or(b),
        };
        self
    }
}

/// `text` broken at spaces into lines of at most `width_px` at `size_px` (by the labels' width estimate); a
/// word longer than a line gets a line of its own.
pub fn wrap(text: &str, size_px: f32, width_px: f32) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        let candidate = if line.is_empty() { word.to_string() } else { format!("{line} {word}") };
        if !line.is_empty() && axis::label_width_px(&candidate, size_px) > width_px {
            out.push(std::mem::replace(&mut line, word.to_string()));
        } else {
            line = candidate;
        }
    }
    if !line.is_empty() || out.is_empty() {
        out.push(line);
    }
    out
}

/// The parameter range [t0, t1] of the segment inside the box (Liang–Barsky); None when it misses.
pub fn segment_range((ax, ay, bx, by): (f32, f32, f32, f32), [x0, y0, x1, y1]: [f32; 4]) -> Option<(f32, f32)> {
    let (dx, dy) = (bx - ax, by - ay);
    let (mut t0, mut t1) = (0.0f32, 1.0f32);
    for (p, q) in [(-dx, ax - x0), (dx, x1 - ax), (-dy, ay - y0), (dy, y1 - ay)] {
        if p == 0.0 {
            if q < 0.0 {
                return None;
            }
        } else {
            let r = q / p;
            if p < 0.0 {
                t0 = t0.max(r);
            } else {
                t1 = t1.min(r);
            }
        }
    }
    (t0 <= t1).then_some((t0, t1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instances_are_32_bytes() {
        assert_eq!(std::mem::size_of::<RectInstance>(), 32);
        assert_eq!(std::mem::size_of::<LineInstance>(), 32);
    }

    #[test]
    fn labels_show_hidden_characters_as_markers() {
        let l = Label::new(0.0, 0.0, "\u{202e}gnp.exe \u{1b}[2J a\u{200b}b", 0, 12.0);
        assert_eq!(l.text, "\\u{202e}gnp.exe \\u{1b}[2J a\\u{200b}b");
        assert_eq!(Label::new(0.0, 0.0, "MPI_Send · 名前", 0, 12.0).text, "MPI_Send · 名前");
    }

    #[test]
    fn wrap_breaks_at_spaces_within_the_width() {
        let text = "No busy time: this busy definition finds none in the locations shown.";
        let lines = wrap(text, 10.0, 120.0);
        assert!(lines.len() > 1);
        assert_eq!(lines.join(" "), text);
        assert!(lines.iter().all(|l| axis::label_width_px(l, 10.0) <= 120.0 || !l.contains(' ')));
        assert_eq!(wrap("", 10.0, 100.0), vec![String::new()]);
        assert_eq!(wrap("unbreakable-word", 10.0, 5.0), vec!["unbreakable-word".to_string()]);
    }

    #[test]
    fn notices_are_kept_and_drawn_wrapped() {
        let mut s = Scene::new(300.0, 200.0, 0);
        s.add_notice(0.0, 0.0, 300.0, 200.0, &["Nothing to draw here at all, and that is why.", "Try something else."]);
        assert_eq!(s.notice.as_deref(), Some("Nothing to draw here at all, and that is why. Try something else."));
        assert!(s.labels.len() >= 2);
        assert_eq!(s.marks(), 0);
        s.add_banner(true, "A banner", 0xffffffff);
        assert_eq!((s.rects.len(), s.marks()), (1, 0), "a banner is decoration");
    }

    #[test]
    fn rgba_packs_channels() {
        assert_eq!(rgba(0x12, 0x34, 0x56, 0x78), 0x12345678);
    }
}
