//! The page's wasm module: one `Viewer` handle that owns the renderer and the views of what is loaded
//! (`weft_view::views::set::ViewSet`, which holds all view logic), the panels' answers, and the wgpu
//! renderer (`renderer`). JavaScript in www/ only forwards events and fills DOM panels.
//!
//! Architecture invariant: no reader. `weft-readers` is not in this crate's dependency tree
//! (`cargo tree -p weft-page --target wasm32-unknown-unknown`), so everything read reaches the page as the
//! worker's bundles. wasm32 only: natively this crate is empty. The WebGL2 build is this source compiled
//! as `weft-page-webgl` (crates/page-webgl), whose `webgl` feature turns on wgpu's GLES backend.

#![cfg(target_arch = "wasm32")]
// A library returns what it finds; only the CLI, examples and tests print.
#![warn(clippy::print_stdout)]

mod calltree_panel;
mod counters_panel;
mod diagnosis_panel;
mod grain_panel;
mod graph_export;
mod histogram_panel;
mod legend_panel;
mod message_panel;
mod notes_panel;
mod overlay;
mod profile_panel;
pub mod renderer;
mod rows_panel;
mod store_view;
mod viewer;

pub use notes_panel::is_notes_file;
pub use store_view::is_store_manifest;
pub use viewer::Viewer;

use wasm_bindgen::prelude::*;

#[wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
}

/// The backend this build draws with ("WebGPU" or "WebGL2").
#[wasm_bindgen]
pub fn build_backend() -> String {
    if cfg!(feature = "webgl") { "WebGL2" } else { "WebGPU" }.to_string()
}
