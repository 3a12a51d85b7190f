//! What the page and the CLI draw: `layouts` (positions from analyses), `scene` (plain `#[repr(C)]` instance
//! arrays, no GPU type: the wgpu renderer and the SVG writer both draw them), `views` (view state, input,
//! hit testing, each view's typed option schema) and `export` (the analyses' results in other tools'
//! formats: GraphML for yEd).
//!
//! Architecture invariant: plain Rust, no web-sys, js-sys or wgpu type, so every view builds and is tested
//! natively and in the CLI; and no reader: what is drawn comes from the model, the analyses or a store.

// A library returns what it finds; only the CLI, examples and tests print.
#![warn(clippy::print_stdout)]

pub mod export;
pub mod layouts;
pub mod scene;
pub mod views;
