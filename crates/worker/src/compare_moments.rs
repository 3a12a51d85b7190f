//! The moments of two runs in the moment view's glyphs, for the compare panel's moments tab (issue #54): both
//! runs' sides (`compare_side`'s JSON, each from its own worker) paired as `compare_pair` pairs them, drawn by
//! `scene::moments_diff` and written by the SVG writer. Must not compute a figure (the sides hold them) or
//! hold view state.

use super::compare::{err, options};
use wasm_bindgen::prelude::*;
use weft_analyses::compare::{pair, Side};
use weft_view::scene::moments_diff::{diff_moments, DiffRow};

/// Sides `a` and `b` (JSON of `compare_side`) paired under the page's options and drawn `width` px wide, as
/// JSON `{svg, width, height, rows, t0_ns, t1_ns}`: the picture, each drawn row's place and the pairs of the
/// comparison's `locations` it stands for, and its time axis in aligned ns.
#[wasm_bindgen]
pub fn compare_moments(
    a: &str,
    b: &str,
    align: &str,
    ranks: &str,
    t0_ns: f64,
    t1_ns: f64,
    width: f32,
) -> Result<String, JsValue> {
    let options = options(align, ranks, t0_ns, t1_ns)?;
    let read = |text: &str, which: &str| {
        serde_json::from_str::<Side>(text).map_err(|e| err(format!("run {which}'s side of the comparison: {e}")))
    };
    let c = pair(read(a, "A")?, read(b, "B")?, &options);
    let d = diff_moments(&c, width, "Moments per location: A (upper) against B (lower)");
    #[derive(serde::Serialize)]
    struct Answer<'a> {
        svg: String,
        width: f32,
        height: f32,
        rows: &'a [DiffRow],
        t0_ns: f64,
        t1_ns: f64,
    }
    let answer = Answer {
        svg: weft_view::scene::svg::to_svg(&d.scene),
        width: d.scene.width,
        height: d.scene.height,
        rows: &d.rows,
        t0_ns: d.t0_ns,
        t1_ns: d.t1_ns,
    };
    serde_json::to_string(&answer).map_err(err)
}
