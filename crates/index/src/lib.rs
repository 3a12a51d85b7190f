//! `weft index`: a trace cut into the store's tiles (`weft_store` is the format it writes and the page reads).
//!
//! - `budget`: every share of `--memory` the index gives out ([`Budget`]), and the sizes they are counted in;
//! - `build`: a [`Trace`](weft_model::Trace) cut into tiles, location block by block, on `threads` std threads,
//!   with bytes that do not depend on the thread count;
//! - `comms`: a trace's messages and collective rows block by block (a streamed index's sorted into the
//!   trace's order and written to each block's file in the spill, `runs`: sorted runs merged k ways);
//! - `stream`: the same store from an archive read location by location, within a memory budget, without the
//!   whole trace (`spill`: where it keeps what it read; `error`: what goes wrong);
//! - `partition`: a shard's part of the store (`--shard K/N`, MPI ranks): its location blocks' tiles and its
//!   share of the manifest;
//! - `exchange`, `message_sort`: MPI ranks decoding only their own OTF2 locations (`stream::exchanged`), each
//!   matching the messages its locations received, numbered across the ranks by a sample sort; the ranks
//!   reach each other only through the `Exchange` trait;
//! - `pyramid`, `counters`: the summary's level-1 bins and the counter tiles cut from a trace (the store holds
//!   their codecs);
//! - `merge`: N parts joined into the store one process writes, from the parts' manifests alone;
//! - `waits`: the wait states (issue #53) computed from a finished store's own level-0 tiles, the last step
//!   of every way a store is made (whole, streamed, merged), so they are the same bytes for each.

// A library returns what it finds; only the CLI, examples and tests print.
#![warn(clippy::print_stdout)]

pub mod budget;
pub mod build;
pub mod comms;
pub mod counters;
pub mod error;
pub mod exchange;
mod held;
pub mod merge;
mod message_sort;
mod nest;
pub mod partition;
pub mod pyramid;
mod ranged;
mod runs;
mod samples;
pub mod spill;
pub mod stream;
pub mod waits;

pub use budget::Budget;
pub use build::{build, BuildOptions, BuiltStore};
pub use error::IndexError;
pub use merge::{merge, MergeError, Merged};
pub use partition::{build_part, build_part_with, BuiltPart, PartManifest, ParticleShare, Shard, PART_MANIFEST};
pub use ranged::set_memory_release;
pub use spill::{MemorySpill, Spill};
