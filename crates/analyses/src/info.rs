//! The report `weft info --json` prints: the trace's summary (`summary`), its region profile (`profile`) and
//! the communication matrix by process (`comm_matrix`), of the whole trace or of a window. Built here once so
//! that the CLI and the Python package (python/, `weft.open(path).info()`) give the same keys and numbers.
//!
//! Knows the trace, not where it came from: a store's summary (from its manifest) is passed in whole.

use crate::comm_matrix::{comm_matrix, CommMatrix, MatrixUnit};
use crate::moments::TimeWindow;
use crate::profile::{profile, RegionProfile};
use crate::summary::{summarize, TraceSummary};
use serde::Serialize;
use weft_model::Trace;

/// The regions with the most inclusive time the summary lists (`top_regions`).
pub const TOP_REGIONS: usize = 10;

/// `weft info --json`: the summary's keys, unchanged, then `window` (when one is given), `regions` (every
/// region with an interval in the window) and `comm_matrix` (where one was computed).
#[derive(Clone, Debug, Serialize)]
pub struct InfoReport {
    #[serde(flatten)]
    pub summary: TraceSummary,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub window: Option<WindowBounds>,
    pub regions: Vec<RegionProfile>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub comm_matrix: Option<CommMatrix>,
}

/// A window's bounds as the report gives them, from the trace's first event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct WindowBounds {
    pub start_ns: u64,
    pub end_ns: u64,
}

impl From<TimeWindow> for WindowBounds {
    fn from(w: TimeWindow) -> Self {
        WindowBounds { start_ns: w.start_ns, end_ns: w.end_ns }
    }
}

impl InfoReport {
    /// The whole report of `trace` (of `window`'s profile and matrix when one is given).
    pub fn of_trace(trace: &Trace, window: Option<TimeWindow>) -> InfoReport {
        InfoReport::with_summary(summarize(trace, TOP_REGIONS), trace, window)
    }

    /// The report with a summary made elsewhere (a store's, from its manifest), the profile and matrix from
    /// `trace` (the store's decoded events).
    pub fn with_summary(summary: TraceSummary, trace: &Trace, window: Option<TimeWindow>) -> InfoReport {
        InfoReport {
            summary,
            window: window.map(WindowBounds::from),
            regions: profile(trace, window, |_| true),
            comm_matrix: Some(comm_matrix(trace, window, MatrixUnit::Process)),
        }
    }
}
