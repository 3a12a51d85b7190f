//! What the run tests (`tests`, `io_tests`, `sets_tests`) read off a trace, in one place: every interval as
//! (rank, location, region, absolute start, absolute end), the merge note, and a set of files opened as the
//! page opens a dropped folder.

use crate::otf2::MemoryFiles;
use crate::{open, ReadError, Source};
use weft_model::{Trace, WarningKind};

/// One interval: (its process's native id, location name, region name, absolute start, absolute end).
pub type Row = (i64, String, String, i64, i64);

/// Every interval of `t` as a [`Row`], sorted.
pub fn rows(t: &Trace) -> Vec<Row> {
    let iv = &t.intervals;
    let mut out: Vec<_> = (0..iv.len())
        .map(|i| {
            let l = iv.location[i];
            (
                t.processes.native_id[t.locations.process[l.index()].index()],
                t.location_name(l).to_string(),
                t.region_name(iv.region[i]).to_string(),
                t.origin_ns + iv.start_ns[i] as i64,
                t.origin_ns + iv.end_ns(i) as i64,
            )
        })
        .collect();
    out.sort();
    out
}

/// The trace's merge note ([`WarningKind::Merged`]).
pub fn note(t: &Trace) -> String {
    t.warnings.examples().iter().find(|w| w.kind == WarningKind::Merged).expect("the merge note").message.clone()
}

/// The files opened together as one input, as a timeline.
pub fn open_set(files: &MemoryFiles) -> Result<Trace, ReadError> {
    open("run", Source::Files(files))?.into_trace("run")
}
