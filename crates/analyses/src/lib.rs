//! Analyses: questions asked of a whole trace (summaries, moments, graphs). Pure functions of the model;
//! no layout, no drawing.

// A library returns what it finds; only the CLI, examples and tests print.
#![warn(clippy::print_stdout)]

pub mod aggregate;
pub mod busy;
pub mod calltree;
pub mod calltree_bundle;
pub mod clusters;
pub mod comm_matrix;
pub mod compare;
pub mod cycles;
pub mod diagnosis;
pub mod execgraph;
pub mod grains;
pub mod histogram;
pub mod info;
pub mod io;
pub mod moments;
pub mod moments_bundle;
pub mod particles;
pub mod profile;
pub mod summary;
pub mod wait_regions;
