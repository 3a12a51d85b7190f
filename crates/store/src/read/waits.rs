//! `weft waits STORE`: the wait states a store keeps (format 6) as `analyses::diagnosis::waits::WaitReport`,
//! the report `weft waits TRACE` prints: from the manifest's sums for the whole run, from the waits tiles
//! (each wait with its root causes) for a window. A store built before wait states, or indexed without
//! `--waits`, has none to give.

use crate::format::waits::{costs, WaitRecord, WaitSummary, PATTERN_KEYS};
use crate::read::Store;
use crate::{StoreError, TileSource};
use std::collections::{BTreeMap, HashMap};
use weft_analyses::diagnosis::waits::{NamedNs, PatternTotals, RootCause, WaitReport};

/// Why a store has no wait states: it was built before they were kept (format 5 and older), or indexed
/// without `--waits` (they are opt-in).
pub fn missing<S: TileSource>(store: &Store<S>) -> Option<String> {
    let m = &store.manifest;
    m.waits.is_none().then(|| {
        if m.version < crate::format::manifest::WAITS_VERSION {
            format!("store format version {} was built before wait states; run weft index --waits again, or give weft waits the trace", m.version)
        } else {
            "this store was indexed without --waits: run weft index --waits, or give weft waits the trace".to_string()
        }
    })
}

fn no_waits<S: TileSource>(store: &Store<S>) -> StoreError {
    StoreError::Corrupt {
        file: crate::MANIFEST.to_string(),
        detail: missing(store).unwrap_or_else(|| "no wait states".into()),
    }
}

/// Region names summed, by ns descending, then name (zeros left out).
fn by_name<S: TileSource>(store: &Store<S>, per_region: impl IntoIterator<Item = (u32, u64)>) -> Vec<NamedNs> {
    let m = &store.manifest;
    let mut named: HashMap<&str, u64> = HashMap::new();
    for (r, ns) in per_region {
        let s = m.regions.name.get(r as usize).and_then(|&s| m.strings.get(s as usize));
        *named.entry(s.map_or("", String::as_str)).or_default() += ns;
    }
    let mut out: Vec<NamedNs> =
        named.into_iter().filter(|&(_, ns)| ns > 0).map(|(n, ns)| NamedNs { name: n.to_string(), ns }).collect();
    out.sort_unstable_by(|a, b| b.ns.cmp(&a.ns).then_with(|| a.name.cmp(&b.name)));
    out
}

fn root_causes<S: TileSource>(store: &Store<S>, rows: impl IntoIterator<Item = [u64; 5]>) -> Vec<RootCause> {
    let m = &store.manifest;
    let mut sums: BTreeMap<(usize, u32, u32, &str), u64> = BTreeMap::new();
    for [p, w, c, n, ns] in rows {
        let name = m.strings.get(n as usize).map_or("", String::as_str);
        *sums.entry((p as usize, w as u32, c as u32, name)).or_default() += ns;
    }
    let mut out: Vec<RootCause> = sums
        .into_iter()
        .map(|((p, w, c, name), ns)| RootCause {
            pattern: PATTERN_KEYS[p],
            waiting_location: w,
            causing_location: c,
            name: name.to_string(),
            ns,
        })
        .collect();
    out.sort_unstable_by(|a, b| {
        b.ns.cmp(&a.ns)
            .then_with(|| a.pattern.cmp(b.pattern))
            .then_with(|| a.waiting_location.cmp(&b.waiting_location))
            .then_with(|| a.causing_location.cmp(&b.causing_location))
            .then_with(|| a.name.cmp(&b.name))
    });
    out
}

/// The report of the whole run, from the manifest alone.
fn whole<S: TileSource>(store: &Store<S>, s: &WaitSummary) -> WaitReport {
    let nl = store.manifest.locations.process.len();
    let mut totals: Vec<PatternTotals> =
        PATTERN_KEYS.iter().map(|_| PatternTotals { per_location: vec![0; nl], ..Default::default() }).collect();
    for (t, &[ns, n]) in totals.iter_mut().zip(&s.patterns) {
        t.total_ns = ns;
        t.instances = n;
    }
    for &[p, l, ns, _] in &s.per_location {
        totals[p as usize].per_location[l as usize] += ns;
    }
    for (p, t) in totals.iter_mut().enumerate() {
        let rows = s.by_region.iter().filter(|e| e[0] == p as u64).map(|e| (e[1] as u32, e[2]));
        t.by_region = by_name(store, rows);
    }
    let total_wait_ns = totals.iter().map(|t| t.total_ns).sum();
    WaitReport {
        patterns: PATTERN_KEYS.iter().copied().zip(totals).collect(),
        root_causes: root_causes(store, s.root_causes.iter().copied()),
        total_wait_ns,
    }
}

/// The part of a wait inside `[t0, t1]` (`diagnosis::waits::clipped`).
fn clipped(w: &WaitRecord, (t0, t1): (u64, u64)) -> u64 {
    w.end_ns.min(t1).saturating_sub(w.start_ns.max(t0))
}

/// The wait report of `store` over `window` (`[t0, t1]`, ns from the origin; the whole run without one),
/// equal to `wait_report(trace, &wait_states(trace), window)` on the trace it was indexed from.
pub fn report<S: TileSource>(store: &Store<S>, window: Option<(u64, u64)>) -> Result<WaitReport, StoreError> {
    let s = store.manifest.waits.as_ref().ok_or_else(|| no_waits(store))?;
    let Some(window) = window else { return Ok(whole(store, s)) };
    let m = &store.manifest;
    let nl = m.locations.process.len();
    let mut totals: Vec<PatternTotals> =
        PATTERN_KEYS.iter().map(|_| PatternTotals { per_location: vec![0; nl], ..Default::default() }).collect();
    let mut regions: Vec<HashMap<u32, u64>> = vec![HashMap::new(); PATTERN_KEYS.len()];
    let mut causes: Vec<[u64; 5]> = Vec::new();
    let mut tiles: Vec<_> = m.tiles.iter().filter(|e| e.kind == crate::TileKind::Waits).collect();
    tiles.sort_by_key(|e| e.block);
    for e in tiles {
        let (waits, why) = store.waits_tile(e)?;
        for (w, c) in waits.iter().zip(&why) {
            let ns = clipped(w, window);
            if ns == 0 {
                continue;
            }
            let p = w.pattern as usize;
            let t = &mut totals[p];
            t.total_ns += ns;
            t.instances += 1;
            t.per_location[w.location as usize] += ns;
            *regions[p].entry(w.region).or_default() += ns;
            let cause = w.cause.unwrap_or(0) as u64;
            let name = |n: u32| m.strings.get(n as usize).map_or("", String::as_str);
            let shared = costs(c, ns, name);
            causes.extend(shared.into_iter().map(|(n, d)| [p as u64, w.location as u64, cause, n as u64, d]));
        }
    }
    for (t, r) in totals.iter_mut().zip(regions) {
        t.by_region = by_name(store, r);
    }
    let total_wait_ns = totals.iter().map(|t| t.total_ns).sum();
    Ok(WaitReport {
        patterns: PATTERN_KEYS.iter().copied().zip(totals).collect(),
        root_causes: root_causes(store, causes),
        total_wait_ns,
    })
}

/// Each location's time a wait's share is of (`diagnosis::waits::location_time`), clipped to `window`.
pub fn location_times<S: TileSource>(store: &Store<S>, window: Option<(u64, u64)>) -> Result<Vec<u64>, StoreError> {
    let s = store.manifest.waits.as_ref().ok_or_else(|| no_waits(store))?;
    Ok(s.spans
        .iter()
        .map(|&[a, b]| match window {
            _ if a == b && a == 0 => 0,
            None => b - a,
            Some((t0, t1)) => b.min(t1).saturating_sub(a.max(t0)),
        })
        .collect())
}
