//! The particle tile (`p/w{W}`): the particle view's communication and synchronization intervals started in a
//! window, then those of earlier windows still running at its start. Its record, and its codec: the index
//! writes each list with [`encode_particles`], a reader takes it back with [`decode_particles`].

use crate::format::columns::{deltas, ColumnError, ColumnReader, ColumnWriter};
use crate::format::manifest::Manifest;
use std::ops::Range;
use weft_analyses::particles::SliceEvent;
use weft_model::LocationId;

/// A communication or synchronization interval for the particle tiles; ordered by its fields in turn, sorted
/// by the first three (start, location, trace index), which are unique.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Particle {
    pub start_ns: u64,
    pub location: u32,
    /// Its index in the trace's intervals.
    pub index: u64,
    pub region: u32,
    pub dur_ns: u64,
}

/// A decoded particle tile: its window (ns from the origin; the last reaches to `u64::MAX`), the events
/// started in it, and those of earlier windows still running at its start (ending after it).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ParticleTile {
    pub window_ns: Range<u64>,
    pub events: Vec<SliceEvent>,
    pub open: Vec<SliceEvent>,
}

/// One list of a particle tile: `run`'s count, then each column (location, region, start as deltas,
/// duration, trace index as deltas); [`decode_particles`] reads it back.
pub fn encode_particles<'a>(c: &mut ColumnWriter, run: impl Iterator<Item = &'a Particle> + Clone) {
    c.varint(run.clone().count() as u64);
    run.clone().for_each(|e| c.varint(e.location as u64));
    run.clone().for_each(|e| c.varint(e.region as u64));
    deltas(c, run.clone().map(|e| e.start_ns));
    run.clone().for_each(|e| c.varint(e.dur_ns));
    deltas(c, run.map(|e| e.index));
}

/// One list of a particle tile ([`encode_particles`] writes it): each event's (start, end) must pass `fits`.
pub fn decode_particles(
    r: &mut ColumnReader,
    m: &Manifest,
    fits: impl Fn(u64, u64) -> bool,
    unfit: &str,
) -> Result<Vec<SliceEvent>, ColumnError> {
    let n = r.count(5)?;
    let (nl, nr) = (m.locations.process.len() as u64, m.regions.name.len() as u64);
    let mut out = vec![SliceEvent { location: LocationId(0), region: 0, start_ns: 0, dur_ns: 0, interval: 0 }; n];
    for o in out.iter_mut() {
        o.location = LocationId(r.below(nl, "location")? as u32);
    }
    for o in out.iter_mut() {
        o.region = r.below(nr, "region")? as u32;
    }
    let mut prev = 0u64;
    for o in out.iter_mut() {
        let d = r.signed()?;
        prev = r.add(prev, d)?;
        o.start_ns = prev;
    }
    for o in out.iter_mut() {
        o.dur_ns = r.varint()?;
        let Some(end) = o.start_ns.checked_add(o.dur_ns) else {
            return r.error("an event ends past 2^64 ns");
        };
        if !fits(o.start_ns, end) {
            return r.error(format!("an event at {} ns is {unfit}", o.start_ns));
        }
    }
    let mut prev = 0u64;
    for o in out.iter_mut() {
        let d = r.signed()?;
        prev = r.add(prev, d)?;
        if prev >= m.counts.intervals.min(u32::MAX as u64) {
            return r.error(format!("interval {prev} out of range (there are {})", m.counts.intervals));
        }
        o.interval = prev as u32;
    }
    Ok(out)
}
