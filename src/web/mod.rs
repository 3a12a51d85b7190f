//! The web shell: the wasm side of the page (one `Viewer` handle that owns the renderer and the views of
//! what is loaded, `crate::views::set::ViewSet`, which hold all view logic) and of the worker (one
//! `WorkerSession` that reads files and hands back an encoded model). JavaScript in www/ only forwards events
//! and fills DOM panels; everything that knows about traces is here or below.

mod bench;
mod grain_panel;
mod overlay;
mod store;
mod viewer;
mod worker;

pub use store::{is_store_manifest, StoreSession};
pub use viewer::Viewer;
pub use worker::{relayout_execgraph, sample, FileSet, WorkerSession};

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

/// Version of the page <-> worker message protocol; both ends check it.
#[wasm_bindgen]
pub fn protocol_version() -> u32 {
    1
}
