//! One trace's rows put into another: its strings and regions interned there (regions by name and category,
//! so that a region both traces have is one region), and a location of it appended under a process of the
//! target with its intervals (and their args) moved later by a constant. The one piece behind both the
//! per-rank merge (`merge`, each file's locations under its rank) and the I/O placement (`io`, a Darshan log's
//! locations under the trace's ranks).
//!
//! A constant shift keeps a location's intervals sorted and nested, so they are appended as they are (linear
//! in the intervals); the target's location order is the caller's.
//!
//! Must not: decide which process a location goes under, or how far it moves (the callers' rules).

use std::collections::HashMap;
use weft_model::{ArgTable, EventArgs, LocationId, ProcessId, RegionId, StringId, Trace};

/// A source trace's strings and regions as the target's.
pub(super) struct Names {
    pub strings: Vec<StringId>,
    pub regions: Vec<RegionId>,
}

impl Names {
    #[inline]
    pub fn s(&self, id: StringId) -> StringId {
        self.strings[id.0 as usize]
    }
}

/// The trace rows are put into, with its regions by (name, category).
pub(super) struct Target {
    pub trace: Trace,
    region_index: HashMap<(StringId, StringId), RegionId>,
}

impl Target {
    pub fn new(trace: Trace) -> Self {
        let mut region_index = HashMap::new();
        for r in 0..trace.regions.len() {
            region_index.entry((trace.regions.name[r], trace.regions.category[r])).or_insert(RegionId(r as u32));
        }
        Target { trace, region_index }
    }

    /// `src`'s strings and regions interned in the target.
    pub fn names(&mut self, src: &Trace) -> Names {
        let t = &mut self.trace;
        let strings: Vec<StringId> = src.strings.iter().map(|s| t.strings.intern(s)).collect();
        let regions = (0..src.regions.len())
            .map(|r| {
                let key = (strings[src.regions.name[r].0 as usize], strings[src.regions.category[r].0 as usize]);
                *self.region_index.entry(key).or_insert_with(|| {
                    let id = RegionId(t.regions.name.len() as u32);
                    t.regions.name.push(key.0);
                    t.regions.category.push(key.1);
                    t.regions.paradigm.push(src.regions.paradigm[r]);
                    t.regions.role.push(src.regions.role[r]);
                    id
                })
            })
            .collect();
        Names { strings, regions }
    }

    /// Location `old` of `src` appended under `process` as `name` (a target string) at `sort_key`, its
    /// intervals `by` ns later; the new location, and false when the target's args table filled up (the later
    /// intervals' args are then not kept).
    #[allow(clippy::too_many_arguments)]
    pub fn location(
        &mut self,
        src: &Trace,
        names: &Names,
        old: LocationId,
        process: ProcessId,
        name: StringId,
        sort_key: i64,
        by: u64,
    ) -> (LocationId, bool) {
        let t = &mut self.trace;
        let l = LocationId(t.locations.len() as u32);
        t.locations.process.push(process);
        t.locations.native_id.push(src.locations.native_id[old.index()]);
        t.locations.name.push(name);
        t.locations.kind.push(src.locations.kind[old.index()]);
        t.locations.sort_key.push(sort_key);
        let first = t.intervals.len();
        let mut args_ok = true;
        for i in src.intervals_of(old) {
            let at = t.intervals.len();
            t.intervals.location.push(l);
            t.intervals.region.push(names.regions[src.intervals.region[i].index()]);
            t.intervals.start_ns.push(src.intervals.start_ns[i] + by);
            t.intervals.dur_ns.push(src.intervals.dur_ns[i]);
            t.intervals.depth.push(src.intervals.depth[i]);
            args_ok &= follow(&src.intervals.args, i, at, &mut t.intervals.args, &names.strings);
        }
        t.location_intervals.push(first..t.intervals.len());
        (l, args_ok)
    }
}

/// Copy entry `e` of `from` into `to` with its keys mapped by `strings`; None when `to` is full.
fn copy_args(from: &ArgTable, e: u32, to: &mut ArgTable, strings: &[StringId]) -> Option<u32> {
    let pairs: Vec<(StringId, weft_model::ArgKind, &str)> =
        from.entry(e as usize).map(|a| (strings[a.key.0 as usize], a.kind, a.value)).collect();
    to.push(pairs.iter().copied())
}

/// The args of event `i` of `from` (an event table's args), copied as the args of event `at` of `to`; false
/// when `to`'s table is full.
pub(super) fn follow(from: &EventArgs, i: usize, at: usize, to: &mut EventArgs, strings: &[StringId]) -> bool {
    let Ok(k) = from.event.binary_search(&(i as u32)) else { return true };
    match copy_args(&from.table, from.entry[k], &mut to.table, strings) {
        Some(e) => {
            to.event.push(at as u32);
            to.entry.push(e);
            true
        }
        None => false,
    }
}
