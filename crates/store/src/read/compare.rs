//! A store's side of a comparison (issue #54), from its tiles, never decoded whole: the page compares two
//! stores, or a store with a trace, with each store held by its worker. The side is
//! `analyses::compare::side`'s for the trace the store was indexed from wherever the store keeps the figures:
//! - the region profile (`weft info --json`'s `regions`) from the call-path tiles (format 8 on) of the whole
//!   run or the window (`calltree::store_call_tree`, then `profile::tree_profile`);
//! - the locations' moments (busy = compute) from the moments tiles, over the whole run only (a store keeps
//!   each location's accumulators for the whole run, not a window's), and each location's time from the
//!   wait summary where the store was indexed with `--waits`;
//! - the wait states and the critical path where indexed with `--waits` (`waits::report`, the manifest's);
//! - no communication matrix (a store keeps none).
//!
//! What a side lacks is named in `Side::not_kept`, and `compare::pair` leaves it out of both runs. Aligning
//! at a region's instance is refused with why (a store keeps no per-instance starts in its manifest).
//! [`tiles`] names the tiles [`side`] reads, for a worker that fetches them first. Must not decode a tile
//! [`tiles`] does not name.

use super::calltree::{has_callpaths, store_call_tree};
use super::Store;
use crate::format::callpaths::CALLPATHS_VERSION;
use crate::format::manifest::TileKind;
use crate::{StoreError, TileSource};
use thiserror::Error;
use weft_analyses::busy::BusyDefinition;
use weft_analyses::comm_matrix::{CommMatrix, MatrixUnit};
use weft_analyses::compare::{
    kept_totals, process_order, window_from, Align, CompareError, CompareOptions, KeptWaits, LocationSide,
    NamedProcess, NotKept, Part, Side,
};
use weft_analyses::diagnosis::waits::{NamedNs, WaitReport};
use weft_analyses::moments::TimeWindow;
use weft_analyses::profile::tree_profile;
use weft_model::Trace;

#[derive(Debug, Error, PartialEq)]
pub enum StoreCompareError {
    #[error(transparent)]
    Compare(#[from] CompareError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(
        "run {side}: aligning at a region's instance is not available on a store (its tiles keep no instance \
         starts); align at the start, or compare the trace"
    )]
    RegionAlign { side: char },
    #[error(
        "run {side}: store format version {found} keeps no call-path tiles (format {CALLPATHS_VERSION} on), so \
         its region profile is not read from tiles; index the trace again"
    )]
    NoCallPaths { side: char, found: u32 },
}

/// The window [`side`] analyses under `options` (None: the whole run).
pub fn window(
    store_span_ns: u64,
    which: char,
    options: &CompareOptions,
) -> Result<Option<TimeWindow>, StoreCompareError> {
    if options.align != Align::Start {
        return Err(StoreCompareError::RegionAlign { side: which });
    }
    let w = window_from(0, store_span_ns, which, options)?;
    Ok(options.window.is_some().then_some(TimeWindow { start_ns: w.start_ns, end_ns: w.end_ns }))
}

/// The tiles (manifest indices) [`side`] reads under `options`: the call-path tiles of its window and their
/// edges' event tiles, the moments tiles (whole run), and the waits tiles (a window of a store with waits).
pub fn tiles<S: TileSource>(
    store: &Store<S>,
    which: char,
    options: &CompareOptions,
) -> Result<Vec<usize>, StoreCompareError> {
    let m = &store.manifest;
    let w = window(m.span_ns, which, options)?;
    let mut out = super::calltree::tiles(store, w);
    let kind = |k: TileKind| m.tiles.iter().enumerate().filter(move |(_, e)| e.kind == k).map(|(i, _)| i);
    if w.is_none() {
        out.extend(kind(TileKind::Moments));
    } else if m.waits.is_some() {
        out.extend(kind(TileKind::Waits));
    }
    Ok(out)
}

/// The wait states a store keeps (`weft index --waits`), as a comparison asks for them.
pub struct StoreKept<'s, S: TileSource> {
    pub store: &'s Store<S>,
}

impl<S: TileSource> std::fmt::Debug for StoreKept<'_, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "StoreKept({})", self.store.manifest.source.name)
    }
}

impl<S: TileSource> KeptWaits for StoreKept<'_, S> {
    fn report(&self, window: Option<(u64, u64)>) -> Option<WaitReport> {
        super::waits::report(self.store, window).ok()
    }

    fn critical_path(&self) -> Option<Vec<NamedNs>> {
        if super::critical_path::missing(self.store).is_some() {
            return None;
        }
        self.store.manifest.critical_path.as_ref().map(|k| k.report.by_region.clone())
    }
}

/// The store's side (`which`: 'A' or 'B') under `options`; `skeleton` is `Store::skeleton`'s.
pub fn side<S: TileSource>(
    store: &Store<S>,
    skeleton: &Trace,
    which: char,
    options: &CompareOptions,
) -> Result<Side, StoreCompareError> {
    let m = &store.manifest;
    if !has_callpaths(store) {
        return Err(StoreCompareError::NoCallPaths { side: which, found: m.version });
    }
    let w = window(m.span_ns, which, options)?;
    let sw = window_from(0, m.span_ns, which, options)?;
    let tree = store_call_tree(store, skeleton, w, |_| true)?;
    let mut not_kept = vec![NotKept {
        part: Part::CommMatrix,
        why: "a store keeps no message matrix (compare the traces for it)".into(),
    }];
    let locations = match w {
        Some(_) => {
            not_kept.push(NotKept {
                part: Part::Locations,
                why: "a store keeps each location's moments for the whole run, not a window's".into(),
            });
            Vec::new()
        }
        None => {
            let rows = store.moments(&BusyDefinition::Compute)?.unwrap_or_default();
            let times = if m.waits.is_some() { Some(super::waits::location_times(store, None)?) } else { None };
            if times.is_none() {
                not_kept.push(NotKept {
                    part: Part::LocationTime,
                    why: "a store keeps each location's time only when indexed with --waits".into(),
                });
            }
            rows.into_iter()
                .enumerate()
                .map(|(l, moments)| LocationSide {
                    moments,
                    total_ns: times.as_ref().and_then(|t| t.get(l).copied()).unwrap_or(0),
                })
                .collect()
        }
    };
    let kept = StoreKept { store };
    Ok(Side {
        span_ns: if w.is_some() { sw.end_ns - sw.start_ns } else { m.span_ns },
        window: sw,
        windowed: w.is_some(),
        regions: tree_profile(skeleton, &tree),
        locations,
        location_order: skeleton.locations_in_display_order().into_iter().map(|l| l.0).collect(),
        processes: process_order(skeleton)
            .into_iter()
            .map(|p| NamedProcess { process: p.0, name: skeleton.process_name(p).to_string() })
            .collect(),
        comm_matrix: CommMatrix::empty(MatrixUnit::Process),
        waits: m.waits.is_some().then(|| kept_totals(&kept, w)).flatten(),
        not_kept,
    })
}
