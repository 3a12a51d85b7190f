//! `weft waits STORE`: the wait states a store keeps (format 6) as `analyses::diagnosis::waits::WaitReport`,
//! the report `weft waits TRACE` prints: from the manifest's sums for the whole run, from the waits tiles
//! (each wait with its root causes) for a window. A store built before wait states, or indexed without
//! `--waits`, has none to give.

use crate::format::waits::{costs, WaitRecord, WaitSummary, PATTERN_KEYS};
use crate::read::Store;
use crate::{StoreError, TileSource};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use weft_analyses::diagnosis::waits::{NamedNs, Pattern, PatternTotals, RootCause, WaitReport};

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

/// One line of the Diagnosis panel's lists for a store: a region (by name) or a location, its waiting and its
/// share of the time on all locations.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WaitLine {
    /// The location's id (for a region line, its place in the list).
    pub id: u32,
    pub name: String,
    pub ns: u64,
    pub share: f64,
}

/// A pattern's lists (or every pattern's together, key "all").
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PatternLines {
    pub key: String,
    pub label: String,
    pub ns: u64,
    pub share: f64,
    pub instances: u64,
    /// Its regions by waiting, descending, then name.
    pub regions: Vec<WaitLine>,
    /// Its locations by waiting, descending, then id.
    pub locations: Vec<WaitLine>,
}

/// A root cause in words (`weft waits STORE`'s root causes, names resolved).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CauseLine {
    pub pattern: String,
    pub waiting: String,
    pub causing: String,
    pub region: String,
    pub ns: u64,
}

/// What the Diagnosis panel lists for a store indexed with `--waits`: the whole run's waiting from the
/// manifest alone (no tile read), by pattern, region and location, and its root causes; the same sums as
/// `weft waits STORE --json`. A store keeps waiting per pattern and region and per pattern and location, not
/// per region and location, so a region chosen in the panel does not narrow its locations.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WaitOverview {
    /// The time on all locations (each location's span), what the shares are of.
    pub total_time_ns: u64,
    pub total_wait_ns: u64,
    /// Every pattern's lines together.
    pub all: PatternLines,
    /// The patterns with any waiting, by waiting descending.
    pub patterns: Vec<PatternLines>,
    pub root_causes: Vec<CauseLine>,
}

/// The whole run's [`WaitOverview`], each list cut to its `limit` longest lines, locations named from the
/// store's `skeleton` (`Store::skeleton`, which the caller holds already); `None` where the store keeps no
/// wait states ([`missing`] says why).
pub fn overview<S: TileSource>(
    store: &Store<S>,
    skeleton: &weft_model::Trace,
    limit: usize,
) -> Result<Option<WaitOverview>, StoreError> {
    if store.manifest.waits.is_none() {
        return Ok(None);
    }
    let report = report(store, None)?;
    let total_time_ns: u64 = location_times(store, None)?.iter().sum();
    let share = |ns: u64| if total_time_ns > 0 { ns as f64 / total_time_ns as f64 } else { 0.0 };
    let label_of = |key: &str| {
        Pattern::ALL.iter().find(|p| p.key() == key).map_or_else(|| key.to_string(), |p| p.label().to_string())
    };
    let location = |l: usize| weft_analyses::moments::location_label(skeleton, weft_model::LocationId(l as u32));
    let lines = |key: String, label: String, instances: u64, regions: Vec<NamedNs>, per_location: Vec<u64>| {
        let ns = per_location.iter().sum::<u64>();
        let regions = (regions.into_iter().take(limit).enumerate())
            .map(|(k, r)| WaitLine { id: k as u32, share: share(r.ns), name: r.name, ns: r.ns })
            .collect();
        let mut locations: Vec<(usize, u64)> = per_location.into_iter().enumerate().filter(|&(_, ns)| ns > 0).collect();
        locations.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let locations = (locations.into_iter().take(limit))
            .map(|(l, ns)| WaitLine { id: l as u32, name: location(l), ns, share: share(ns) })
            .collect();
        PatternLines { key, label, ns, share: share(ns), instances, regions, locations }
    };
    let nl = store.manifest.locations.process.len();
    let mut all_locations = vec![0u64; nl];
    let mut all_regions: HashMap<String, u64> = HashMap::new();
    let mut instances = 0;
    let mut patterns = Vec::new();
    for (key, t) in &report.patterns {
        if t.total_ns == 0 {
            continue;
        }
        for (a, &ns) in all_locations.iter_mut().zip(&t.per_location) {
            *a += ns;
        }
        for r in &t.by_region {
            *all_regions.entry(r.name.clone()).or_default() += r.ns;
        }
        instances += t.instances;
        patterns.push(lines(key.to_string(), label_of(key), t.instances, t.by_region.clone(), t.per_location.clone()));
    }
    patterns.sort_by(|a, b| b.ns.cmp(&a.ns).then_with(|| a.key.cmp(&b.key)));
    let mut regions: Vec<NamedNs> = all_regions.into_iter().map(|(name, ns)| NamedNs { name, ns }).collect();
    regions.sort_unstable_by(|a, b| b.ns.cmp(&a.ns).then_with(|| a.name.cmp(&b.name)));
    let all = lines("all".into(), "All patterns".into(), instances, regions, all_locations);
    let root_causes = (report.root_causes.iter().take(limit))
        .map(|c| CauseLine {
            pattern: label_of(c.pattern),
            waiting: location(c.waiting_location as usize),
            causing: location(c.causing_location as usize),
            region: c.name.clone(),
            ns: c.ns,
        })
        .collect();
    Ok(Some(WaitOverview { total_time_ns, total_wait_ns: report.total_wait_ns, all, patterns, root_causes }))
}
