//! weft: an in-browser viewer for performance traces of parallel programs. This package is the `weft`
//! command-line tool (src/bin/weft) and this thin library, which re-exports the workspace's crates
//! (crates/, ARCHITECTURE.md "Crates") under the paths they had when weft was one crate, `weft::readers`,
//! `weft::store`, ..., for the tests, examples and fuzz targets.

// A library returns what it finds; only the CLI, examples and tests print.
#![warn(clippy::print_stdout)]

pub use weft_analyses as analyses;
pub use weft_index as index;
pub use weft_model as model;
pub use weft_model::{columns, sort};
pub use weft_readers as readers;
pub use weft_samples as samples;
pub use weft_store as store;
pub use weft_view::{export, layouts, scene, views};
