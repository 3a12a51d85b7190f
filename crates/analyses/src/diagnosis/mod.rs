//! Diagnosis: where and why a run loses time (issue #53; the definitions are docs/diagnosis.md's).
//!
//! - [`calls`]: what an MPI call is for the patterns (a blocking receive, a wait, a blocking send, a collective
//!   of one of four kinds) and `op(e)`, the innermost region open on a location when an event was recorded.
//!
//! Every analysis here is a pure function of the [`Trace`](weft_model::Trace), as the rest of this crate.

pub mod calls;
pub mod root_causes;
pub mod waits;
