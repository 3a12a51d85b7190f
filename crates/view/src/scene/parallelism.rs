//! The parallelism profile as a strip below the grain graph (the grain-graphs prototype's plot beside the
//! graph): the largest count of running grains per pixel column over the whole critical-path-distance axis,
//! a dashed line at the core count (less parallelism than cores is the prototype's problem), and the two
//! links to the graph: the instant under the pointer (a vertical line, its count) and the hovered grain's
//! span (a band). Reads the profile's precomputed bins, so a frame costs the strip's width, whatever the
//! grain count. Computes nothing about the graph.

use super::palette::{GRID, TEXT, TEXT_MUTED};
use super::{rgba, Align, Label, LineInstance, RectInstance, Rgba, Scene};
use weft_analyses::grains::{Parallelism, TimeUnit};

/// The profile's fill, and the marks that link it to the graph (the page's accent blue).
pub const FILL: Rgba = rgba(0x4c, 0x72, 0xb0, 0xff);
pub const LINK: Rgba = rgba(0x2f, 0x6f, 0xd6, 0xff);
const BAND: Rgba = rgba(0xf6, 0xf7, 0xf9, 0xff);
const SPAN: Rgba = rgba(0x2f, 0x6f, 0xd6, 0x40);
const CORES: Rgba = rgba(0xd6, 0x27, 0x28, 0xc0);

/// The strip's height in CSS pixels, when the pane is tall enough to give it (see [`Strip::below`]).
pub const HEIGHT: f32 = 84.0;

/// Where the strip is drawn: its box, and the plot inside it (time left to right, count bottom up).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Strip {
    pub top: f32,
    pub width: f32,
    pub height: f32,
    pub plot_x0: f32,
    pub plot_x1: f32,
    pub plot_y0: f32,
    pub plot_y1: f32,
}

impl Strip {
    /// The strip at the bottom of a `width` x `height` pane; None when the pane is too small to share.
    pub fn below(width: f32, height: f32) -> Option<Strip> {
        if height < 3.0 * HEIGHT || width < 160.0 {
            return None;
        }
        let top = height - HEIGHT;
        Some(Strip {
            top,
            width,
            height: HEIGHT,
            plot_x0: 44.0,
            plot_x1: width - 10.0,
            plot_y0: top + 20.0,
            plot_y1: height - 6.0,
        })
    }
    pub fn contains(&self, x: f32, y: f32) -> bool {
        y >= self.top && y <= self.top + self.height && x >= 0.0 && x <= self.width
    }
    /// The instant at screen x (clamped to the plot), for a span of `span`.
    pub fn t_at(&self, x: f32, span: u64) -> u64 {
        let f = ((x - self.plot_x0) / (self.plot_x1 - self.plot_x0).max(1.0)).clamp(0.0, 1.0) as f64;
        ((f * span as f64).round() as u64).min(span.saturating_sub(1))
    }
    pub fn x_of(&self, t: u64, span: u64) -> f32 {
        self.plot_x0 + (self.plot_x1 - self.plot_x0) * (t as f64 / span.max(1) as f64) as f32
    }
}

/// What links the strip to the graph this frame.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Links {
    /// The instant under the pointer and how many grains run then.
    pub at: Option<(u64, u32)>,
    /// The hovered (or selected) grain's span on the axis.
    pub grain: Option<(u64, u64)>,
}

pub fn unit_name(unit: TimeUnit) -> &'static str {
    match unit {
        TimeUnit::Cycles => "cycles",
        TimeUnit::Nanoseconds => "ns",
    }
}

/// Draw the strip into `s` (over whatever the scene holds there: the strip's own background covers it).
pub fn draw(s: &mut Scene, p: &Parallelism, strip: &Strip, cores: u32, unit: TimeUnit, links: Links) {
    let (x0, x1, y0, y1) = (strip.plot_x0, strip.plot_x1, strip.plot_y0, strip.plot_y1);
    s.decorate(|s| {
        s.rects.push(RectInstance::filled(0.0, strip.top, strip.width, strip.height, BAND));
        s.lines.push(LineInstance::solid(0.0, strip.top + 0.5, strip.width, strip.top + 0.5, 1.0, GRID));
        s.lines.push(LineInstance::solid(x0, y1 + 0.5, x1, y1 + 0.5, 1.0, GRID));
    });
    let title = format!(
        "parallelism (grains running, critical-path distance in {}): max {}, mean {:.2}",
        unit_name(unit),
        p.max,
        p.mean
    );
    s.labels.push(Label::new(8.0, strip.top + 12.0, title, TEXT, 11.0).clipped(strip.width - 16.0));
    let top = p.max.max(cores).max(1) as f32;
    let y_of = |c: f32| y1 - (y1 - y0) * c / top;
    s.labels.push(Label::new(x0 - 4.0, y0 + 4.0, top.to_string(), TEXT_MUTED, 10.0).aligned(Align::Right));
    s.labels.push(Label::new(x0 - 4.0, y1, "0", TEXT_MUTED, 10.0).aligned(Align::Right));
    if let Some((a, b)) = links.grain {
        let (xa, xb) = (strip.x_of(a, p.span), strip.x_of(b, p.span));
        s.decorate(|s| s.rects.push(RectInstance::filled(xa, y0, (xb - xa).max(2.0), y1 - y0, SPAN)));
    }
    // One rect per run of pixel columns of one height.
    let cols = (x1 - x0).max(1.0).floor() as usize;
    let counts = p.columns(cols);
    let mut i = 0;
    while i < cols {
        let c = counts[i];
        let start = i;
        while i < cols && counts[i] == c {
            i += 1;
        }
        if c > 0 {
            let y = y_of(c as f32);
            s.rects.push(RectInstance::filled(x0 + start as f32, y, (i - start) as f32, y1 - y, FILL));
        }
    }
    if cores > 0 {
        let y = y_of(cores as f32);
        s.decorate(|s| s.lines.push(LineInstance::solid(x0, y, x1, y, 1.0, CORES).dashed(6.0)));
        s.labels.push(Label::new(x1, y - 3.0, format!("{cores} cores"), CORES, 10.0).aligned(Align::Right));
    }
    if let Some((t, count)) = links.at {
        let x = strip.x_of(t, p.span);
        s.decorate(|s| s.lines.push(LineInstance::solid(x, y0 - 2.0, x, y1, 1.5, LINK)));
        let text = format!(
            "{} running at {}",
            super::number::format(count as f64, super::number::Unit::Count),
            super::number::format(t as f64, super::number::Unit::of_time(unit))
        );
        let right = x > (x0 + x1) / 2.0;
        let label = Label::new(if right { x - 4.0 } else { x + 4.0 }, y0 + 8.0, text, LINK, 10.0);
        s.labels.push(if right { label.aligned(Align::Right) } else { label });
    }
}
