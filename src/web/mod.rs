//! The web shell: the wasm side of the page (one `Viewer` handle that owns the renderer and the views of
//! what is loaded, `crate::views::set::ViewSet`, which hold all view logic) and of the worker (one
//! `WorkerSession` that reads files and hands back an encoded model, and the worker's answers about what it
//! read: other views, layouts, moments). JavaScript in www/ only forwards events and fills DOM panels;
//! everything that knows about traces is here or below.
//!
//! Two wasm modules are built from this crate (Cargo.toml `[features]`, wasm-pack.toml): the page's
//! (`page`: `Viewer`, the grain panel, the renderer; it holds no reader, so everything read reaches it as the
//! worker's bundles) and the worker's (`worker`: sessions, samples, the worker's answers, the in-browser
//! benchmarks; no renderer or views). A build with both (the default) compiles everything, for clippy.

#[cfg(feature = "worker")]
mod bench;
#[cfg(feature = "page")]
mod counters_panel;
#[cfg(feature = "page")]
mod grain_panel;
#[cfg(feature = "page")]
mod graph_export;
#[cfg(feature = "page")]
mod legend_panel;
#[cfg(feature = "page")]
mod message_panel;
#[cfg(feature = "page")]
mod overlay;
#[cfg(feature = "page")]
mod profile_panel;
#[cfg(feature = "page")]
mod rows_panel;
#[cfg(feature = "worker")]
mod store;
#[cfg(feature = "page")]
mod store_view;
#[cfg(feature = "page")]
mod viewer;
#[cfg(feature = "worker")]
mod worker;

#[cfg(feature = "worker")]
pub use store::StoreSession;
#[cfg(feature = "page")]
pub use store_view::is_store_manifest;
#[cfg(feature = "page")]
pub use viewer::Viewer;
#[cfg(feature = "worker")]
pub use worker::{relayout_execgraph, sample, FileSet, WorkerSession};

use wasm_bindgen::prelude::*;

#[wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
}

/// The backend this build draws with ("WebGPU" or "WebGL2").
#[cfg(feature = "page")]
#[wasm_bindgen]
pub fn build_backend() -> String {
    if cfg!(feature = "webgl") { "WebGL2" } else { "WebGPU" }.to_string()
}

/// `n` bytes as the readers' messages write them (readers::budget::human_bytes: "1.5 GiB", "80 bytes"), for
/// the worker's own messages about a download.
#[cfg(feature = "worker")]
#[wasm_bindgen]
pub fn human_bytes(n: f64) -> String {
    crate::readers::budget::human_bytes(if n.is_finite() && n > 0.0 { n as u64 } else { 0 })
}

/// Version of the page <-> worker message protocol; both ends check it.
#[wasm_bindgen]
pub fn protocol_version() -> u32 {
    1
}
