//! What the particle view plays: the particle tiles a playback range needs ([`particle_plan`]: each tile
//! carries the events of earlier windows still running at its start); [`particle_tile`] decodes one and
//! [`ParticleGather`] keeps the events live in the range, which `analyses::particles::EventSlicer` orders as
//! the whole trace's index.

use super::plan::TileIndex;
use crate::format::columns::{ColumnError, ColumnReader};
use crate::format::manifest::{Manifest, TileKind};
use crate::format::particles::{decode_particles, ParticleTile};
use weft_analyses::particles::{EventExtent, EventSlicer, SliceEvent};
use weft_model::*;

/// The particle tiles playback needs to show every event live at some time in `[t0_ns, t1_ns]` when
/// particles fade for `fade_ns` (started by `t1_ns`, ended, plus the fading, after `t0_ns`): the particle
/// tiles of the windows from `t0_ns - fade_ns`'s to `t1_ns`'s, no earlier (the events started before the first
/// of them and still running at its start are carried in its tile), by window. Also the end of what the
/// slice holds (ns): `t1_ns + 1`, every event starting by `t1_ns`, or `u64::MAX` once `t1_ns` reaches the
/// particle events' latest end (every event starts by then). The slice ends at the range asked, not at its
/// last window's end: a window of a big store holds millions of events, the range a few seconds of
/// playback's (`views::particles`).
pub fn particle_plan(m: &Manifest, index: &TileIndex, t0_ns: u64, t1_ns: u64, fade_ns: u64) -> (Vec<usize>, u64) {
    let t = &m.tiling;
    let t1_ns = t1_ns.max(t0_ns);
    let (wa, wb) = (t.window_of(t0_ns.saturating_sub(fade_ns)), t.window_of(t1_ns));
    let tiles = (wa..=wb).filter_map(|w| index.get(TileKind::Particles, 0, 0, w)).collect();
    (tiles, particle_slice_end(m.particles.map_or(0, |p| p.span_ns), t1_ns))
}

/// Per window of the store's particle tiles, the events starting in it (each tile's record count; 0 for a
/// window without a tile): the particle strip's outline of the whole run before playback loads its events.
pub fn particle_window_starts(m: &Manifest) -> Vec<u64> {
    let mut starts = vec![0u64; m.tiling.windows as usize];
    for e in m.tiles.iter().filter(|e| e.kind == TileKind::Particles) {
        if let Some(s) = starts.get_mut(e.window as usize) {
            *s += e.records;
        }
    }
    starts
}

/// Where a particle slice asked up to `t1_ns` ends (see [`particle_plan`]), `span_ns` the particle events'
/// latest end: the page's pane computes it the same way for the range it asked.
pub fn particle_slice_end(span_ns: u64, t1_ns: u64) -> u64 {
    if t1_ns < span_ns {
        t1_ns + 1
    } else {
        u64::MAX
    }
}

/// Decode a particle tile (`p/w{W}`): its events and those carried running into it, checked against the
/// manifest (record count, ids, each event starting in the window, each carried one running at its start).
/// Errors name the file.
pub fn particle_tile<S: crate::TileSource>(
    store: &crate::Store<S>,
    e: &crate::TileEntry,
) -> Result<ParticleTile, crate::StoreError> {
    let payload = store.payload(e)?;
    let m = &store.manifest;
    let corrupt = |c: ColumnError| crate::StoreError::Corrupt { file: e.path.clone(), detail: c.to_string() };
    let window = m.tiling.window_span(e.window);
    let mut r = ColumnReader::new(&payload);
    let events = decode_particles(&mut r, m, |s, _| window.contains(&s), "outside the window").map_err(corrupt)?;
    if events.len() as u64 != e.records {
        return Err(crate::StoreError::Mismatch {
            file: e.path.clone(),
            detail: format!("{} particle events, the manifest says {}", events.len(), e.records),
        });
    }
    let ws = window.start;
    let open =
        decode_particles(&mut r, m, |s, end| s < ws && end > ws, "carried but not running at the window's start")
            .map_err(corrupt)?;
    if !r.at_end() {
        return Err(corrupt(ColumnError { offset: 0, detail: "bytes after the last column".into() }));
    }
    Ok(ParticleTile { window_ns: window, events, open })
}

/// The particle view's [`EventSlicer`] for a store (`skeleton`: its definitions): None when the store holds
/// no particle events.
pub fn particle_slicer(m: &Manifest, skeleton: &Trace) -> Option<EventSlicer> {
    let stats = m.particles?;
    let counts: Vec<u64> = m.region_totals.iter().map(|t| t[0]).collect();
    let extent = EventExtent {
        first_ns: stats.first_ns,
        min_dur_ns: stats.min_dur_ns,
        max_dur_ns: stats.max_dur_ns,
        span_ns: stats.span_ns,
    };
    Some(EventSlicer::new(skeleton, &counts, extent))
}

/// The particle events live at some time in `[from_ns, to_ns]` with fading `fade_ns`, read from the store
/// at once (the worker does the same tile by tile, through its cache), with the end of what the slice
/// holds (see [`particle_plan`]).
pub fn particle_slice<S: crate::TileSource>(
    store: &crate::Store<S>,
    slicer: &EventSlicer,
    index: &TileIndex,
    (from_ns, to_ns, fade_ns): (u64, u64, u64),
) -> Result<(weft_analyses::particles::ParticleEvents, u64), crate::StoreError> {
    let (tiles, end_ns) = particle_plan(&store.manifest, index, from_ns, to_ns, fade_ns);
    let mut g = ParticleGather { t0_ns: from_ns, end_ns, fade_ns, events: Vec::new() };
    for i in tiles {
        g.add(&particle_tile(store, &store.manifest.tiles[i])?);
    }
    Ok((slicer.slice(g.events.into_iter()), end_ns))
}

/// The particle events of a playback range gathered tile by tile: those live at some time in `[t0_ns, end)`
/// with fading `fade_ns` (started before `end`, ending, plus the fading, after `t0_ns`). Each tile's own
/// events, and the events carried running into the first window planned (the one holding `t0_ns - fade_ns`):
/// an event live in the range that started before that window runs at its start. Each tile must be added once.
#[derive(Clone, Debug, Default)]
pub struct ParticleGather {
    pub t0_ns: u64,
    pub end_ns: u64,
    pub fade_ns: u64,
    pub events: Vec<SliceEvent>,
}

impl ParticleGather {
    pub fn add(&mut self, tile: &ParticleTile) {
        let (t0, end, fade) = (self.t0_ns, self.end_ns, self.fade_ns);
        let first = tile.window_ns.contains(&t0.saturating_sub(fade));
        let open = tile.open.iter().filter(|_| first);
        self.events.extend(
            tile.events
                .iter()
                .chain(open)
                .filter(|e| e.start_ns < end && (e.start_ns + e.dur_ns).saturating_add(fade) > t0)
                .copied(),
        );
    }
}
