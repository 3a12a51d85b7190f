//! Analyses: questions asked of a whole trace (summaries, moments, graphs). Pure functions of the model;
//! no layout, no drawing.

pub mod grains;
pub mod summary;
