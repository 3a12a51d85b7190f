//! A viewport answered natively from a store, as the page's store worker answers it (`src/web/store.rs`)
//! but reading each tile it plans once, with no cache: the pyramid's rows x bins zoomed out, the exact
//! records at level 0. `weft render timeline STORE/` draws what this answers, so a picture of a store is
//! made from the tiles its viewport needs, never from the whole store.

use super::query::{exact_trace, plan, summary_grid, Plan, Resolution, SummaryGrid, TileIndex, Viewport};
use super::{Store, StoreError, TileSource};
use crate::model::Trace;

/// What a viewport shows.
pub enum Answer {
    /// Zoomed out: the plan's pyramid level, locations x bins.
    Grid(SummaryGrid),
    /// Level 0: the exact records reaching into the plan's window (`query::exact_trace`).
    Exact(Box<Trace>, Plan),
}

/// Plan `vp` and read the tiles it needs from `store` (each checked against the manifest: a missing or
/// damaged tile is an error naming its file). `skeleton` is `store.skeleton()`.
pub fn answer<S: TileSource>(
    store: &Store<S>,
    skeleton: &Trace,
    index: &TileIndex,
    vp: &Viewport,
) -> Result<Answer, StoreError> {
    let m = &store.manifest;
    let p = plan(m, index, vp);
    match p.resolution {
        Resolution::Exact => {
            let tiles = p.tiles.iter().map(|&i| store.events_tile(&m.tiles[i])).collect::<Result<Vec<_>, _>>()?;
            let refs: Vec<_> = tiles.iter().collect();
            Ok(Answer::Exact(Box::new(exact_trace(skeleton, &p, &refs)), p))
        }
        Resolution::Level(_) => {
            let bins =
                p.tiles.iter().map(|&i| Ok((i, store.summary_tile(&m.tiles[i])?))).collect::<Result<Vec<_>, _>>()?;
            Ok(Answer::Grid(summary_grid(m, &p, |i| bins.iter().find(|b| b.0 == i).map(|b| &b.1[..]))))
        }
    }
}
