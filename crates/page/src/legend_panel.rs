//! The legend's colour pickers (www/legend.js): a function group's or a function's colour changed in the
//! timeline's legend becomes the view's `colors` option (`scene::groups::ColorOverrides`), so the page, a
//! permalink and `weft render` agree; and the labels a view draws, as drawn, for the page's tests. No DOM
//! and no drawing here.

use super::viewer::Viewer;
use wasm_bindgen::prelude::*;
use weft_view::scene::groups::ColorOverrides;

#[wasm_bindgen]
impl Viewer {
    /// Set the colour of the legend entry whose `edit` key is `key` (a function group's key, or `r` and a
    /// region id) to `css` (`#rrggbb`); an empty `css` gives the entry its own colour back.
    pub fn legend_set_color(&mut self, key: &str, css: &str) -> Result<(), JsValue> {
        let options = self.view_set().active().ok_or("nothing is shown")?.options();
        let current = options["options"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|o| o["key"] == "colors")
            .and_then(|o| o["value"].as_str())
            .ok_or("this view has no colours to change")?
            .to_string();
        let mut chosen = ColorOverrides::parse(&current).unwrap_or_default();
        let color = match css.trim().trim_start_matches('#') {
            "" => None,
            hex => Some(
                u32::from_str_radix(hex, 16)
                    .ok()
                    .filter(|_| hex.len() == 6)
                    .map(|c| (c << 8) | 0xff)
                    .ok_or_else(|| JsValue::from_str(&format!("not a colour: '{css}' (want #rrggbb)")))?,
            ),
        };
        chosen.set_key(key, color).map_err(|e| JsValue::from_str(&e))?;
        self.configure("colors", &chosen.to_text())
    }
}

#[wasm_bindgen]
impl Viewer {
    /// The labels the shown view draws, as drawn (cut to their width as the overlay cuts them): `[{x, y, size,
    /// bold, text}]`, for tests that read what a person reads (row labels that tell rows apart).
    pub fn drawn_labels(&self) -> JsValue {
        let scene = self.scene();
        let labels: Vec<_> = scene
            .labels
            .iter()
            .map(|l| {
                serde_json::json!({
                    "x": l.x, "y": l.y, "size": l.size_px, "bold": l.bold,
                    "text": weft_view::scene::svg::truncate_to_width(&l.text, l.max_width, l.size_px),
                })
            })
            .collect();
        super::viewer::to_js(&labels)
    }
}
