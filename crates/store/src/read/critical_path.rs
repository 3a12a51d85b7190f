//! `weft critical-path STORE`: the critical path a store keeps (format 7, `weft index --waits`): the report
//! `weft critical-path TRACE` prints, from the manifest alone, and the path's segments in a time window from
//! the path tiles (the page draws them). A store built before format 7, or indexed without `--waits`, has
//! none to give, and says how to get it.

use crate::read::Store;
use crate::{StoreError, TileKind, TileSource};
use weft_analyses::diagnosis::critical_path::PathSegment;

/// Why a store has no critical path: indexed without `--waits` (the wait states and the path are opt-in),
/// or built before the critical path was kept (format 6 and older).
pub fn missing<S: TileSource>(store: &Store<S>) -> Option<String> {
    let m = &store.manifest;
    if m.critical_path.is_some() {
        return None;
    }
    Some(if m.waits.is_none() && m.version >= crate::format::manifest::WAITS_VERSION {
        "this store was indexed without --waits (no critical path stored): run weft index --waits, or give weft \
         critical-path the trace"
            .to_string()
    } else {
        format!(
            "store format version {}: no critical path stored; re-index with --waits (format {} keeps it), or \
             give weft critical-path the trace",
            m.version,
            crate::format::manifest::CRITICAL_PATH_VERSION
        )
    })
}

/// The path's segments meeting `[t0, t1)`, in time order (whole, not clipped): the path tiles of every block.
pub fn segments<S: TileSource>(store: &Store<S>, t0: u64, t1: u64) -> Result<Vec<PathSegment>, StoreError> {
    let mut out = Vec::new();
    for e in store.manifest.tiles.iter().filter(|e| e.kind == TileKind::CriticalPath) {
        out.extend(store.path_tile(e)?.into_iter().filter(|s| s.start_ns < t1 && s.end_ns > t0));
    }
    out.sort_unstable_by_key(|s| s.start_ns);
    Ok(out)
}
