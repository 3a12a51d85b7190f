//! A viewport answered natively from a store, as the page's store worker answers it (`crates/worker/src/store.rs`)
//! but reading each tile it plans once, with no cache: the pyramid's rows x bins zoomed out, the exact
//! records at level 0. `weft render timeline STORE/` draws what this answers, so a picture of a store is
//! made from the tiles its viewport needs, never from the whole store.

use crate::read::query::{
    plan, summary_grid, CounterAnswer, CounterGather, ExactSlice, Plan, Resolution, SummaryGrid, TileIndex, Viewport,
};
use crate::{Store, StoreError, TileKind, TileSource};
use weft_model::Trace;

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
    Ok(answer_with_counters(store, skeleton, index, vp)?.0)
}

/// [`answer`], and what the counter tracks on screen (`vp.series`) are drawn from (an exact answer's slice
/// holds their samples in the window).
pub fn answer_with_counters<S: TileSource>(
    store: &Store<S>,
    skeleton: &Trace,
    index: &TileIndex,
    vp: &Viewport,
) -> Result<(Answer, CounterAnswer), StoreError> {
    let m = &store.manifest;
    let p = plan(m, index, vp);
    let mut counters = CounterGather::new(m, &p);
    let mut slice = ExactSlice::new(&p);
    for &i in &p.counter_tiles {
        let e = &m.tiles[i];
        match e.kind {
            TileKind::CounterSummary => counters.add(m, i, &store.counter_summary_tile(e)?),
            TileKind::Counters => slice.add_counters(&store.counter_tile(e)?),
            _ => {}
        }
    }
    let answer = match p.resolution {
        Resolution::Exact => {
            for &i in &p.tiles {
                slice.add(&store.events_tile(&m.tiles[i])?);
            }
            Answer::Exact(Box::new(slice.finish(skeleton)), p)
        }
        Resolution::Level(_) => {
            let bins =
                p.tiles.iter().map(|&i| Ok((i, store.summary_tile(&m.tiles[i])?))).collect::<Result<Vec<_>, _>>()?;
            Answer::Grid(summary_grid(m, &p, |i| bins.iter().find(|b| b.0 == i).map(|b| &b.1[..])))
        }
    };
    Ok((answer, counters.finish()))
}
