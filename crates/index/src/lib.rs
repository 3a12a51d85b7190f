//! `weft index`: a trace cut into the store's tiles (`weft_store` is the format it writes and the page reads).
//!
//! Its rooms, arrows pointing one way (`scripts/deps.py --module index`):
//! - `budget`: every share of `--memory` the index gives out ([`Budget`]), and the sizes they are counted in;
//! - `build`: a [`Trace`](weft_model::Trace) cut into tiles, location block by block, on `threads` std threads,
//!   with bytes that do not depend on the thread count (`build::pyramid`, `build::counters`: the summary's
//!   level-1 bins and the counter tiles; the store holds their codecs);
//! - `comms`: a trace's messages and collective rows block by block (a streamed index's sorted into the
//!   trace's order and written to each block's file in the spill);
//! - `spill`: where a streamed index keeps what it read, and `spill::runs`: sorted runs merged k ways;
//! - `stream`: the index's passes: the same store from an archive read location by location, within a memory
//!   budget, without the whole trace (pass 1 nests and holds or spills, pass 2 tiles blocks whole or by time
//!   range, the counter samples in bounded memory, one driver per format); `error`: what goes wrong;
//! - `shard`: a shard's part of the store (`--shard K/N`, MPI ranks: `partition`), N parts joined from their
//!   manifests alone (`merge`), MPI ranks decoding only their own OTF2 locations (`stream::exchanged`), each
//!   matching the messages its locations received, numbered across the ranks by a sample sort
//!   (`message_sort`); the ranks reach each other only through the `Exchange` trait (`exchange`).
//! - `waits`: the wait states (issue #53) computed from a finished store's own level-0 tiles, the last step
//!   of every way a store is made (whole, streamed, merged) when asked for (`--waits`), so they are the same
//!   bytes for each; `critical_path`: the critical path walked through those waits and summed over the
//!   tiles, kept with them (format 7).

// A library returns what it finds; only the CLI, examples and tests print.
#![warn(clippy::print_stdout)]

pub mod budget;
pub mod build;
pub mod comms;
pub mod critical_path;
pub mod error;
pub mod folder;
pub mod shard;
pub mod spill;
pub mod stream;
pub mod waits;

pub use budget::Budget;
pub use build::{build, BuildOptions, BuiltStore};
pub use error::IndexError;
pub use shard::merge::{merge, MergeError, Merged};
pub use shard::partition::{build_part, build_part_with, BuiltPart, PartManifest, ParticleShare, Shard, PART_MANIFEST};
pub use spill::{MemorySpill, Spill};
pub use stream::ranged::set_memory_release;
