//! Labels of a scene drawn on the page's 2D overlay canvas. Text goes through fillText only: trace names are
//! never parsed as markup.

use web_sys::CanvasRenderingContext2d;
use weft_view::scene::svg::truncate_to_width;
use weft_view::scene::{Align, Scene};

fn css(c: u32) -> String {
    format!("rgba({},{},{},{:.3})", c >> 24, (c >> 16) & 0xff, (c >> 8) & 0xff, (c & 0xff) as f32 / 255.0)
}

pub fn draw_labels(ctx: &CanvasRenderingContext2d, scene: &Scene, dpr: f64) {
    let _ = ctx.set_transform(dpr, 0.0, 0.0, dpr, 0.0, 0.0);
    ctx.clear_rect(0.0, 0.0, scene.width as f64, scene.height as f64);
    ctx.set_text_baseline("middle");
    let mut font = String::new();
    let mut fill = u32::MAX;
    let mut align = None;
    for l in &scene.labels {
        let f = format!(
            "{}{}px system-ui, -apple-system, 'Segoe UI', sans-serif",
            if l.bold { "600 " } else { "" },
            l.size_px
        );
        if f != font {
            ctx.set_font(&f);
            font = f;
        }
        if l.color != fill {
            ctx.set_fill_style_str(&css(l.color));
            fill = l.color;
        }
        if align != Some(l.align) {
            ctx.set_text_align(match l.align {
                Align::Left => "left",
                Align::Center => "center",
                Align::Right => "right",
            });
            align = Some(l.align);
        }
        let text = truncate_to_width(&l.text, l.max_width, l.size_px);
        if !text.is_empty() {
            let _ = ctx.fill_text(&text, l.x as f64, l.y as f64);
        }
    }
}
