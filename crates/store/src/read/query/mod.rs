//! What a view of a store needs, and what it draws from the tiles it got (issue #17, the page's side).
//! [`plan`]: for a viewport (time window, visible locations, pixel width) the resolution (the coarsest
//! pyramid level whose bins are at most a pixel wide, or level 0, the exact records, once a level-1 bin is
//! wider than a pixel and the window holds at most [`EXACT_MAX_INTERVALS`] of the rows' intervals) and the
//! tiles to fetch. [`summary_grid`]: the visible locations x bins of that level
//! (busy time by definition, dominant region, event and message counts) from the decoded summary tiles.
//! [`exact_trace`]: a `Trace` with the store's definitions and the exact records of the visible locations
//! that reach into the window, from the decoded level-0 tiles, which the ordinary timeline view draws and
//! hovers. Both also in steps, tile by tile ([`GridBuilder`], [`ExactSlice`]), so a view's tiles need not
//! all be held at once (the decoded tiles are kept in [`TileCache`], `super::cache`).
//! [`particle_plan`]: the particle tiles a playback range needs (its windows: each tile carries the events
//! of earlier windows still running at its start); [`particle_tile`] decodes one and [`ParticleGather`] keeps the
//! events live in the range, which `analyses::particles::EventSlicer` orders as the whole trace's index.
//!
//! Plain Rust, no files and no web types: the worker fetches the tiles a plan names and decodes them with
//! [`crate::Store`]; tests compare every answer with the whole trace (`tests/store_query.rs`).

//!
//! One file per question a view asks: `plan` (which level and tiles), `grid` (rows x bins of a summary level),
//! `exact` (the exact records, and `slice_columns`, their intervals as the columns the page copies), `counters`,
//! `particles`, `waits` (a store's diagnosis over its timeline: waiting per bin, the critical path).

mod counters;
mod exact;
mod grid;
mod particles;
mod plan;
pub mod slice_columns;
mod waits;

pub use counters::*;
pub use exact::*;
pub use grid::*;
pub use particles::*;
pub use plan::*;
pub use waits::*;

pub use crate::read::cache::{Decoded, TileCache, DEFAULT_CACHE_BYTES};
