//! Diagnosis: where and why a run loses time (issue #53; the definitions are docs/diagnosis.md's).
//!
//! - [`calls`]: what an MPI call is for the patterns (a blocking receive, a wait, a blocking send, a collective
//!   of one of four kinds) and `op(e)`, the innermost region open on a location when an event was recorded.
//! - [`bundle`]: the diagnosis packed for the page (reports, waits and path as columns, the panel's cube).
//! - [`critical_path`]: the path that sets the run's length, walked back from the last event through the
//!   waits' causes, and its report by region, by location and as imbalance.
//! - [`whatif`]: the run replayed with regions scaled and its waits found again by the patterns' rules
//!   (`replay_rules`), the predicted span and the new critical path.
//! - [`beyond_mpi`]: the same idea where a trace records the other side of a wait beyond MPI: OpenMP team
//!   barriers, NCCL collective kernels across ranks, a host synchronizing with its GPU, threads waiting on
//!   locks, joins, tasks and blocking OS calls.
//!
//! Every analysis here is a pure function of the [`Trace`](weft_model::Trace), as the rest of this crate.

pub mod beyond_mpi;
pub mod bundle;
pub mod calls;
pub mod critical_path;
mod replay_rules;
pub mod root_causes;
pub mod waits;
pub mod whatif;
