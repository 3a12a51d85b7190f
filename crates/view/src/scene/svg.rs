//! Scene to SVG, for `weft render` and the page's export. Every shape and label of the scene, in order, so
//! an exported picture is what the canvas shows. Text is escaped: trace names are never markup.

use super::{Align, Rgba, Scene, Shape};
use std::fmt::Write;

fn color(c: Rgba) -> (String, f32) {
    (format!("#{:06x}", c >> 8), (c & 0xff) as f32 / 255.0)
}

pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if (c as u32) < 0x20 && c != '\t' && c != '\n' => {}
            c => out.push(c),
        }
    }
    out
}

fn paint(attr: &str, c: Rgba) -> String {
    let (hex, a) = color(c);
    if a >= 1.0 {
        format!("{attr}=\"{hex}\"")
    } else {
        format!("{attr}=\"{hex}\" {attr}-opacity=\"{a:.3}\"")
    }
}

/// Render a scene as a standalone SVG document.
pub fn to_svg(scene: &Scene) -> String {
    let mut s = String::with_capacity(256 + scene.rects.len() * 90 + scene.lines.len() * 90);
    let _ = writeln!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" font-family=\"system-ui, -apple-system, 'Segoe UI', sans-serif\">",
        w = scene.width,
        h = scene.height
    );
    let _ = writeln!(s, "<rect width=\"100%\" height=\"100%\" {}/>", paint("fill", scene.background));
    s.push_str("<g class=\"shapes\">\n");
    // The hatch patterns defined so far, by colour (Shape::Hatched: stripes of the fill in user space).
    let mut hatches: Vec<Rgba> = Vec::new();
    for r in &scene.rects {
        let fill = paint("fill", r.fill);
        let stroke = if r.border_px > 0.0 && r.border & 0xff != 0 {
            format!(" {} stroke-width=\"{}\"", paint("stroke", r.border), r.border_px)
        } else {
            String::new()
        };
        let (x, y, w, h) = (r.x, r.y, r.w.max(0.0), r.h.max(0.0));
        let _ = match r.shape {
            s_ if s_ == Shape::Hatched as u32 => {
                let id = format!("hatch-{:08x}", r.fill);
                if !hatches.contains(&r.fill) {
                    hatches.push(r.fill);
                    let _ = writeln!(
                        s,
                        "<defs><pattern id=\"{id}\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" \
                         patternTransform=\"rotate(45)\"><rect width=\"3\" height=\"6\" {}/></pattern></defs>",
                        paint("fill", r.fill)
                    );
                }
                writeln!(s, "<rect x=\"{x}\" y=\"{y}\" width=\"{w}\" height=\"{h}\" fill=\"url(#{id})\"{stroke}/>")
            }
            s_ if s_ == Shape::Rounded as u32 => {
                let rad = w.min(h) / 4.0;
                writeln!(s, "<rect x=\"{x}\" y=\"{y}\" width=\"{w}\" height=\"{h}\" rx=\"{rad}\" {fill}{stroke}/>")
            }
            s_ if s_ == Shape::Ellipse as u32 => writeln!(
                s,
                "<ellipse cx=\"{}\" cy=\"{}\" rx=\"{}\" ry=\"{}\" {fill}{stroke}/>",
                x + w / 2.0,
                y + h / 2.0,
                w / 2.0,
                h / 2.0
            ),
            s_ if s_ == Shape::Diamond as u32 => writeln!(
                s,
                "<polygon points=\"{},{} {},{} {},{} {},{}\" {fill}{stroke}/>",
                x + w / 2.0,
                y,
                x + w,
                y + h / 2.0,
                x + w / 2.0,
                y + h,
                x,
                y + h / 2.0
            ),
            s_ if s_ == Shape::TriangleDown as u32 => {
                writeln!(s, "<polygon points=\"{x},{y} {},{y} {},{} \" {fill}{stroke}/>", x + w, x + w / 2.0, y + h)
            }
            s_ if s_ == Shape::TriangleUp as u32 => writeln!(
                s,
                "<polygon points=\"{},{y} {},{} {x},{} \" {fill}{stroke}/>",
                x + w / 2.0,
                x + w,
                y + h,
                y + h
            ),
            _ => writeln!(s, "<rect x=\"{x}\" y=\"{y}\" width=\"{w}\" height=\"{h}\" {fill}{stroke}/>"),
        };
    }
    s.push_str("</g>\n<g class=\"lines\" stroke-linecap=\"butt\">\n");
    for l in &scene.lines {
        let dash =
            if l.dash_px > 0.0 { format!(" stroke-dasharray=\"{0} {0}\"", l.dash_px / 2.0) } else { String::new() };
        let _ = writeln!(
            s,
            "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" {} stroke-width=\"{}\"{dash}/>",
            l.x0,
            l.y0,
            l.x1,
            l.y1,
            paint("stroke", l.color),
            l.width
        );
        if l.arrow > 0.0 {
            let (dx, dy) = (l.x1 - l.x0, l.y1 - l.y0);
            let len = (dx * dx + dy * dy).sqrt().max(1e-6);
            let (ux, uy) = (dx / len, dy / len);
            let size = 4.0 + 2.0 * l.width;
            let (bx, by) = (l.x1 - ux * size, l.y1 - uy * size);
            let (px, py) = (-uy * size * 0.5, ux * size * 0.5);
            let _ = writeln!(
                s,
                "<polygon points=\"{},{} {},{} {},{}\" {}/>",
                l.x1,
                l.y1,
                bx + px,
                by + py,
                bx - px,
                by - py,
                paint("fill", l.color)
            );
        }
    }
    s.push_str("</g>\n<g class=\"labels\">\n");
    for t in &scene.labels {
        let anchor = match t.align {
            Align::Left => "start",
            Align::Center => "middle",
            Align::Right => "end",
        };
        let weight = if t.bold { " font-weight=\"bold\"" } else { "" };
        let _ = writeln!(
            s,
            "<text x=\"{}\" y=\"{}\" font-size=\"{}\" text-anchor=\"{anchor}\" dominant-baseline=\"central\" {}{weight}>{}</text>",
            t.x,
            t.y,
            t.size_px,
            paint("fill", t.color),
            escape(&truncate_to_width(&t.text, t.max_width, t.size_px))
        );
    }
    s.push_str("</g>\n</svg>\n");
    s
}

/// Cut text to about `max_width` pixels (average glyph 0.6 em), with an ellipsis.
pub fn truncate_to_width(text: &str, max_width: f32, size_px: f32) -> String {
    if max_width <= 0.0 {
        return text.to_string();
    }
    let max_chars = (max_width / (size_px * 0.6)).floor() as usize;
    let n = text.chars().count();
    if n <= max_chars {
        text.to_string()
    } else if max_chars <= 1 {
        String::new()
    } else {
        let mut t: String = text.chars().take(max_chars - 1).collect();
        t.push('…');
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::{Label, LineInstance, RectInstance};

    #[test]
    fn svg_has_every_element_and_escapes_text() {
        let mut sc = Scene::new(100.0, 50.0, 0xffffffff);
        sc.rects.push(RectInstance::filled(1.0, 2.0, 3.0, 4.0, 0xff0000ff));
        sc.rects.push(RectInstance::filled(1.0, 2.0, 3.0, 4.0, 0xff0000ff).with_shape(Shape::Diamond));
        sc.lines.push(LineInstance::solid(0.0, 0.0, 10.0, 10.0, 1.0, 0x000000ff).dashed(4.0));
        sc.labels.push(Label::new(5.0, 5.0, "<img src=x onerror=alert(1)>", 0x000000ff, 12.0));
        let svg = to_svg(&sc);
        assert!(svg.contains("<rect x=\"1\" y=\"2\" width=\"3\" height=\"4\" fill=\"#ff0000\"/>"));
        assert!(svg.contains("<polygon"));
        let mut hatched = Scene::new(100.0, 50.0, 0xffffffff);
        for x in [1.0, 9.0] {
            hatched.rects.push(RectInstance::filled(x, 2.0, 3.0, 4.0, 0x9c1a6eff).with_shape(Shape::Hatched));
        }
        let h = to_svg(&hatched);
        assert_eq!(h.matches("<pattern id=\"hatch-9c1a6eff\"").count(), 1, "one pattern per colour: {h}");
        assert_eq!(h.matches("fill=\"url(#hatch-9c1a6eff)\"").count(), 2);
        assert!(svg.contains("stroke-dasharray=\"2 2\""));
        assert!(svg.contains("&lt;img src=x onerror=alert(1)&gt;"));
        assert!(!svg.contains("<img"));
    }
}
