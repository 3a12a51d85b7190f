//! The worker's wasm module: one `WorkerSession` that reads files (sniffed once, then the reader of their
//! format) and hands back an encoded model, store sessions, the worker's answers about what it read (other
//! views, layouts, moments), the built-in samples and the in-browser benchmarks.
//!
//! Architecture invariant: no renderer and no drawing: wgpu is not in this crate's dependency tree. wasm32
//! only: natively this crate is empty.

#![cfg(target_arch = "wasm32")]
// A library returns what it finds; only the CLI, examples and tests print.
#![warn(clippy::print_stdout)]

mod bench;
mod calltree;
mod compare;
mod compare_moments;
mod diagnosis;
mod histogram;
mod io;
mod store;
mod worker;

pub use calltree::{call_path_intervals, call_tree_of};
pub use compare::{compare_calltree_side, compare_flame, compare_pair, compare_side, two_runs, two_runs_head_bytes};
pub use compare_moments::compare_moments;
pub use diagnosis::{diagnose, wait_causes, what_if};
pub use histogram::{clusters_of, histogram_instances, histogram_outliers, region_histogram};
pub use io::io_summary_of;
pub use store::StoreSession;
pub use worker::{relayout_execgraph, sample, FileSet, WorkerSession};

use wasm_bindgen::prelude::*;

#[wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
}

/// `n` bytes as the readers' messages write them (readers::budget::human_bytes: "1.5 GiB", "80 bytes"), for
/// the worker's own messages about a download.
#[wasm_bindgen]
pub fn human_bytes(n: f64) -> String {
    weft_readers::budget::human_bytes(if n.is_finite() && n > 0.0 { n as u64 } else { 0 })
}

/// Version of the page <-> worker message protocol; both ends check it.
#[wasm_bindgen]
pub fn protocol_version() -> u32 {
    1
}
