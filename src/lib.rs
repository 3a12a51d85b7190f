//! weft: an in-browser viewer for performance traces of parallel programs.
//!
//! Layers, each using only those above it in this list:
//! `readers` (bytes -> model) -> `model` (columnar trace) -> `analyses` -> `layouts` -> `scene`
//! (plain instance arrays) -> `views` (view state, input, hit testing, each view's typed option schema) -> `renderer` (wgpu, wasm only) -> `web`
//! (the page's and workers' wasm entry, wasm only: the `page` and `worker` features pick which, Cargo.toml).
//! Everything up to `views` is plain Rust with no web or GPU dependency; `sort` (one sort instance per element
//! type, for the download size) serves every layer.
//! `store` (tiled out-of-core trace store, issue #17) sits beside the model and analyses: its format and how it
//! is read back; `index` (native) cuts a trace into the store's tiles and uses `readers` and `store`.
//! `export` writes the analyses' results in other tools' formats (GraphML for yEd), for the CLI and the page.

// The library returns what it finds; only the CLI, examples and tests print (Cargo.toml [lints] for the rest).
#![warn(clippy::print_stdout)]

pub mod analyses;
pub mod columns;
pub mod export;
pub mod index;
pub mod layouts;
pub mod model;
pub mod readers;
pub mod samples;
pub mod scene;
pub mod sort;
pub mod store;
pub mod views;

#[cfg(all(target_arch = "wasm32", feature = "page"))]
pub mod renderer;
#[cfg(target_arch = "wasm32")]
pub mod web;
