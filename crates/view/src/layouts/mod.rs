//! Layouts: positions in abstract units (rows, columns, layers) computed from the model and analyses. No pixels, no colours: the scene turns a layout and a viewport into instances.

pub mod aggregate;
pub mod counters;
pub mod execgraph;
pub mod flame;
pub mod grain_bundle;
pub mod grains;
pub mod particles;
pub mod timeline;
