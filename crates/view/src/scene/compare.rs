//! The region profile diff of two runs (issue #54) as a picture: the comparison's summary, then a row per
//! region (the [`Comparison`]'s order, by |inclusive delta|): A's inclusive time as a bar, B's below it on
//! the same scale, and the change between their ends coloured red where B grew and blue (hatched) where it
//! shrank, with the delta and ratio in words. `weft render diff` writes it; the page's diff panel can draw
//! the same scene. Built from the comparison only: computes nothing of the traces.

use super::palette::{GRID, ROW_ALT, TEXT, TEXT_MUTED};
use super::{rgba, wrap, Align, Label, LineInstance, RectInstance, Rgba, Scene, Shape};
use weft_analyses::compare::Comparison;
use weft_analyses::moments::format_duration_ns;

/// Run A's bars.
pub const A_FILL: Rgba = rgba(0x9a, 0xa4, 0xb0, 0xff);
/// Run B's bars.
pub const B_FILL: Rgba = rgba(0x4a, 0x5a, 0x6e, 0xff);
/// B's time beyond A's (slower).
pub const GREW: Rgba = rgba(0xd6, 0x27, 0x28, 0xff);
/// A's time B no longer has (faster).
pub const SHRANK: Rgba = rgba(0x1f, 0x6f, 0xd1, 0xff);

const NAME_W: f32 = 220.0;
const DELTA_W: f32 = 190.0;
const ROW_H: f32 = 30.0;
const BAR_H: f32 = 10.0;

fn signed(ns: i64) -> String {
    let d = format_duration_ns(ns.unsigned_abs() as f64);
    match ns.signum() {
        1 => format!("+{d}"),
        -1 => format!("-{d}"),
        _ => d,
    }
}

/// The scene, `width` px wide, with at most `rows` regions.
pub fn build_compare(c: &Comparison, width: f32, rows: usize) -> Scene {
    let width = width.max(NAME_W + DELTA_W + 120.0);
    let summary = wrap(&c.summary, 12.0, width - 24.0);
    let shown: Vec<_> = c.regions.iter().take(rows).collect();
    let top = 30.0 + summary.len() as f32 * 16.0 + 34.0;
    let height = top + shown.len().max(1) as f32 * ROW_H + 30.0;
    let mut s = Scene::new(width, height, super::palette::BACKGROUND);
    s.labels.push(Label::new(12.0, 16.0, "Region profile: B against A", TEXT, 14.0).bold());
    for (i, line) in summary.into_iter().enumerate() {
        s.labels.push(Label::new(12.0, 38.0 + i as f32 * 16.0, line, TEXT, 12.0));
    }
    // Legend.
    let ly = top - 18.0;
    let mut x = 12.0;
    for (fill, shape, text) in [
        (A_FILL, Shape::Rect, "A inclusive"),
        (B_FILL, Shape::Rect, "B inclusive"),
        (GREW, Shape::Rect, "B slower"),
        (SHRANK, Shape::Hatched, "B faster"),
    ] {
        s.decorate(|s| s.rects.push(RectInstance::filled(x, ly - 5.0, 14.0, 10.0, fill).with_shape(shape)));
        s.labels.push(Label::new(x + 19.0, ly, text, TEXT_MUTED, 11.0));
        x += 24.0 + super::axis::label_width_px(text, 11.0) + 14.0;
    }
    let (x0, x1) = (NAME_W, width - DELTA_W);
    let most = shown.iter().map(|r| r.a_inclusive_ns.max(r.b_inclusive_ns)).max().unwrap_or(0).max(1) as f32;
    let px = |ns: u64| (ns as f32 / most) * (x1 - x0 - 8.0);
    if shown.is_empty() {
        s.add_notice(0.0, top, width, ROW_H, &["No region in either run", "nothing to compare"]);
    }
    for (k, r) in shown.iter().enumerate() {
        let y = top + k as f32 * ROW_H;
        if k % 2 == 1 {
            s.decorate(|s| s.rects.push(RectInstance::filled(0.0, y, width, ROW_H, ROW_ALT)));
        }
        s.labels.push(Label::new(12.0, y + ROW_H / 2.0, r.name.clone(), TEXT, 12.0).clipped(NAME_W - 20.0));
        let (wa, wb) = (px(r.a_inclusive_ns), px(r.b_inclusive_ns));
        let (ya, yb) = (y + 4.0, y + 4.0 + BAR_H + 2.0);
        if r.a_inclusive_ns > 0 {
            s.rects.push(RectInstance::filled(x0, ya, wa.max(1.0), BAR_H, A_FILL));
        }
        if r.b_inclusive_ns > 0 {
            s.rects.push(RectInstance::filled(x0, yb, wb.min(wa).max(1.0), BAR_H, B_FILL));
        }
        if wb > wa {
            s.rects.push(RectInstance::filled(x0 + wa, yb, (wb - wa).max(1.0), BAR_H, GREW));
        } else if wa > wb && r.delta_ns != 0 {
            s.rects
                .push(RectInstance::filled(x0 + wb, yb, (wa - wb).max(1.0), BAR_H, SHRANK).with_shape(Shape::Hatched));
        }
        let color = match r.delta_ns.signum() {
            1 => GREW,
            -1 => SHRANK,
            _ => TEXT_MUTED,
        };
        let ratio = r.ratio.map_or(String::new(), |x| format!(" ({x:.2}x)"));
        s.labels.push(
            Label::new(width - 12.0, y + ROW_H / 2.0, format!("{}{ratio}", signed(r.delta_ns)), color, 12.0)
                .aligned(Align::Right),
        );
    }
    // The scale: 0 and the longest bar.
    let ay = top + shown.len().max(1) as f32 * ROW_H + 4.0;
    s.decorate(|s| s.lines.push(LineInstance::solid(x0, ay, x1 - 8.0, ay, 1.0, GRID)));
    s.labels.push(Label::new(x0, ay + 12.0, "0", TEXT_MUTED, 11.0));
    s.labels
        .push(Label::new(x1 - 8.0, ay + 12.0, format_duration_ns(most as f64), TEXT_MUTED, 11.0).aligned(Align::Right));
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft_analyses::compare::{compare, CompareOptions, Run};
    use weft_model::{Format, LocationKind, TraceBuilder};

    fn trace(slow: u64) -> weft_model::Trace {
        let mut b = TraceBuilder::new(Format::Generated);
        let p = b.process(0);
        let l = b.location(p, 0, LocationKind::CpuThread);
        let (f, g) = (b.region("f", ""), b.region("g", ""));
        b.interval(l, f, 0, 1000 * slow);
        b.interval(l, g, (1000 * slow) as i64, 1000);
        b.finish()
    }

    #[test]
    fn a_slower_region_gets_a_red_segment_as_long_as_its_change() {
        let (a, b) = (trace(1), trace(2));
        let run = |t| Run { trace: t, waits: false, kept: None };
        let c = compare(run(&a), run(&b), &CompareOptions::default()).expect("compare");
        let s = build_compare(&c, 1000.0, 10);
        let red: Vec<_> = s.rects.iter().filter(|r| r.fill == GREW && r.shape == Shape::Rect as u32).collect();
        // The legend's swatch is decoration; the one data segment is f's.
        assert_eq!(red.len(), 2);
        let seg = red[1];
        let full = 1000.0 - DELTA_W - NAME_W - 8.0;
        assert!((seg.w - full / 2.0).abs() < 0.5, "f: 1 us of 2 us, half the scale: {}", seg.w);
        assert!(s.labels.iter().any(|l| l.text == "+1.000 us (2.00x)" && l.color == GREW));
        assert!(s.labels.iter().any(|l| l.text == "0 ns (1.00x)"), "g unchanged");
        assert!(s.labels.iter().any(|l| l.text.contains("The regions whose exclusive time changed most: f")));
        assert_eq!(s.marks(), 5, "f: A, B and the change; g: A and B, equal");
    }
}
