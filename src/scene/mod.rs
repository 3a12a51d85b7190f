//! The scene: what a view draws, as plain instance arrays in CSS pixels of the view's canvas.
//!
//! Every view (timeline, moments, execution graph, grain graph, particles) produces a [`Scene`]. The wgpu
//! renderer draws its rects and lines as two instanced draw calls; the SVG writer turns the same scene into
//! a document for export. No GPU or web types here: scenes are built and tested natively.

pub mod aggregate;
pub mod axis;
pub mod execgraph;
pub mod grains;
pub mod moments;
pub mod palette;
pub mod particles;
pub mod svg;
pub mod timeline;
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
        let text = match crate::model::text::escape_controls(&text) {
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
}

impl Scene {
    pub fn new(width: f32, height: f32, background: Rgba) -> Self {
        Scene { width, height, background, ..Default::default() }
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
        self
    }
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
    fn rgba_packs_channels() {
        assert_eq!(rgba(0x12, 0x34, 0x56, 0x78), 0x12345678);
    }
}
