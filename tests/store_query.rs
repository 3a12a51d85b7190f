//! Viewport queries over a store (crates/store/src/query.rs): at every zoom the plan's resolution is the one whose
//! bins are about a pixel, the summary grid's busy time and counts per location and bin equal the whole
//! trace's over the same time range, and at level 0 the exact intervals, instants, messages and collectives
//! reaching into the window equal the trace's; the decoded-tile cache stays within its byte budget and drops
//! the least recently used tile first.

use std::sync::OnceLock;
use weft::analyses::busy::{BusyDefinition, BusyInterval, BusyScanner};
use weft::index::{build, BuildOptions};
use weft::model::*;
use weft::readers::otf2::read_archive;
use weft::samples::otf2_gen::{archive, GenConfig};
use weft::store::read::query::{exact_trace, plan, summary_grid, Decoded, Resolution, TileCache, TileIndex, Viewport};
use weft::store::{MemoryStore, Store, TileKind};

/// The trace of a generated archive and its store built with `o`.
fn generated(cfg: &GenConfig, o: &BuildOptions) -> (Trace, Store<MemoryStore>) {
    let t = read_archive("traces.otf2", &archive(cfg).0).expect("generated archive reads");
    let store = Store::open(build(&t, o).to_memory()).expect("store opens");
    (t, store)
}

/// Small tiles and blocks: many windows, blocks and levels on a small trace.
fn small_tiles() -> BuildOptions {
    BuildOptions { block_locations: 3, tile_intervals: 2_000, ..BuildOptions::default() }
}

/// The trace most tests share (4 ranks of 2 threads, 120,000 events) and its store in [`small_tiles`]: made
/// once for the test binary, each test given its own copies.
fn trace_and_store() -> (Trace, Store<MemoryStore>) {
    static MADE: OnceLock<(Trace, MemoryStore)> = OnceLock::new();
    let (t, files) = MADE.get_or_init(|| {
        let (t, store) = generated(&GenConfig { threads: 2, ..GenConfig::new(4, 120_000) }, &small_tiles());
        (t, store.source().clone())
    });
    (t.clone(), Store::open(files.clone()).expect("store opens"))
}

/// Busy ns of `spans` inside [a, b).
fn busy_in(spans: &[BusyInterval], a: u64, b: u64) -> u64 {
    spans.iter().map(|s| s.end_ns.min(b).saturating_sub(s.start_ns.max(a))).sum()
}

fn viewports(t: &Trace) -> Vec<Viewport> {
    let span = t.span_ns as f64;
    let nl = t.locations.len() as u32;
    let mut out = Vec::new();
    // From the whole run down to a few hundred ns, at several places and row ranges.
    let mut width = span * 1.02;
    while width > 200.0 {
        for (k, frac) in [0.0, 0.37, 0.8].iter().enumerate() {
            let t0 = (span - width).max(0.0) * frac - if k == 0 { width * 0.01 } else { 0.0 };
            let locs = match k {
                0 => 0..nl,
                1 => 1..nl.min(5),
                _ => (nl - 2)..nl,
            };
            for px in [900.0, 120.0, 30.0] {
                out.push(Viewport {
                    t0_ns: t0,
                    t1_ns: t0 + width,
                    locations: locs.clone(),
                    width_px: px,
                    series: 0..0,
                });
            }
        }
        width /= 3.7;
    }
    out
}

#[test]
fn summary_grids_equal_the_trace_at_every_level() {
    let (t, store) = trace_and_store();
    let m = &store.manifest;
    assert!(m.levels.len() >= 3, "the test wants several levels, got {}", m.levels.len());
    let index = TileIndex::new(m);
    let mut scan_c = BusyScanner::new(&t, &BusyDefinition::Compute);
    let mut scan_a = BusyScanner::new(&t, &BusyDefinition::Any);
    let (mut bc, mut ba) = (Vec::new(), Vec::new());
    let mut levels_seen = std::collections::BTreeSet::new();
    let mut exact_seen = 0;
    for vp in viewports(&t) {
        let p = plan(m, &index, &vp);
        let Resolution::Level(level) = p.resolution else {
            exact_seen += 1;
            continue;
        };
        levels_seen.insert(level);
        // About a pixel per bin: at most 1 bin... 4 bins per pixel, and the next coarser level would be wider.
        let l = m.levels.iter().find(|l| l.level == level).unwrap();
        let ns_px = (vp.t1_ns - vp.t0_ns) / vp.width_px as f64;
        assert!(l.bin_ns as f64 <= ns_px, "level {level}: bins of {} ns at {ns_px} ns/px", l.bin_ns);
        if let Some(c) = m.levels.iter().find(|c| c.level == level + 1) {
            assert!(c.bin_ns as f64 > ns_px);
        }
        let decoded: Vec<(usize, Vec<weft::store::pyramid::Bins>)> =
            p.tiles.iter().map(|&i| (i, store.summary_tile(&m.tiles[i]).unwrap())).collect();
        let g = summary_grid(m, &p, |i| decoded.iter().find(|d| d.0 == i).map(|d| &d.1[..]));
        assert!(g.missing.is_empty());
        assert_eq!(g.rows.len(), p.locations.len());
        // O(pixels) bins: at most 4 a pixel, or the coarsest level's (at most one tile's) when none is coarser.
        let most = if level as usize == m.levels.len() {
            m.tiling.bins_per_tile as f64
        } else {
            4.0 * vp.width_px as f64 + 2.0
        };
        assert!(g.bins() as f64 <= most, "{} bins for {} px", g.bins(), vp.width_px);
        for (r, row) in g.rows.iter().enumerate() {
            let l = LocationId(g.first_location + r as u32);
            scan_c.location(&t, l, &mut bc);
            scan_a.location(&t, l, &mut ba);
            let range = t.location_intervals[l.index()].clone();
            for k in 0..row.len() {
                let (a, b) = g.bin_time(k, t.span_ns);
                let b_open = if g.first_bin + k as u64 + 1 >= g.level_bins { u64::MAX } else { b };
                assert_eq!(row.busy_compute_ns[k], busy_in(&bc, a, b_open), "loc {l:?} level {level} bin {k}");
                assert_eq!(row.busy_any_ns[k], busy_in(&ba, a, b_open), "loc {l:?} level {level} bin {k}");
                let inside = |x: u64| x >= a && x < b_open;
                let iv = &t.intervals;
                let events = range
                    .clone()
                    .map(|i| inside(iv.start_ns[i]) as u64 + inside(iv.start_ns[i] + iv.dur_ns[i]) as u64)
                    .sum::<u64>()
                    + (0..t.instants.time_ns.len())
                        .filter(|&i| t.instants.location[i] == l && inside(t.instants.time_ns[i]))
                        .count() as u64;
                assert_eq!(row.events[k], events, "events, loc {l:?} level {level} bin {k}");
                let ms = &t.messages;
                let msgs = (0..ms.len())
                    .map(|i| {
                        (ms.sender[i] == l && inside(ms.send_ns[i])) as u64
                            + (ms.receiver[i] == l && inside(ms.recv_ns[i])) as u64
                    })
                    .sum::<u64>();
                assert_eq!(row.messages[k], msgs, "messages, loc {l:?} level {level} bin {k}");
                if row.dominant_region[k] > 0 {
                    // The dominant region covers the bin (at level 1 exactly; coarser: a child bin's best).
                    let r = RegionId(row.dominant_region[k] - 1);
                    let covers = range
                        .clone()
                        .any(|i| iv.region[i] == r && iv.start_ns[i] < b_open && iv.start_ns[i] + iv.dur_ns[i] > a);
                    assert!(covers, "dominant region {r:?} is not in bin {k} of loc {l:?}");
                }
                // Each lane (depth): its time in the bin by region, counted from the trace.
                for d in 0..row.lanes as usize {
                    let mut by_region = std::collections::BTreeMap::<u32, u64>::new();
                    for i in range.clone().filter(|&i| iv.depth[i] as usize == d) {
                        let o = (iv.start_ns[i] + iv.dur_ns[i]).min(b_open).saturating_sub(iv.start_ns[i].max(a));
                        if o > 0 {
                            *by_region.entry(iv.region[i].0).or_default() += o;
                        }
                    }
                    let (region, cover) = row.lane(d, k);
                    assert_eq!(cover > 0, !by_region.is_empty(), "lane {d}, loc {l:?} level {level} bin {k}");
                    if level == 1 {
                        let covered: u64 = by_region.values().sum();
                        let width = (b - a).max(covered);
                        let want = (covered * 255).div_ceil(width.max(1)).min(255);
                        assert_eq!(cover as u64, want, "lane {d} cover, loc {l:?} bin {k}");
                        let best =
                            by_region.iter().max_by(|x, y| x.1.cmp(y.1).then(y.0.cmp(x.0))).map_or(0, |x| x.0 + 1);
                        assert_eq!(region, best, "lane {d} region, loc {l:?} bin {k}");
                    } else if region > 0 {
                        assert!(by_region.contains_key(&(region - 1)), "lane {d} region, loc {l:?} level {level}");
                    }
                }
            }
            let depth = range.clone().map(|i| t.intervals.depth[i] as u32 + 1).max().unwrap_or(0);
            assert_eq!(row.lanes, depth.min(weft::store::pyramid::MAX_SUMMARY_LANES as u32), "lanes of {l:?}");
        }
    }
    assert!(levels_seen.len() >= 3, "levels seen: {levels_seen:?} of {:?} windows {}", m.levels, m.tiling.windows);
    assert!(exact_seen > 0, "no viewport reached level 0");
}

#[test]
fn exact_records_equal_the_trace_when_zoomed_in() {
    let (t, store) = trace_and_store();
    let m = &store.manifest;
    let index = TileIndex::new(m);
    let skeleton = store.skeleton().unwrap();
    let mut checked = 0;
    for vp in viewports(&t) {
        let p = plan(m, &index, &vp);
        if p.resolution != Resolution::Exact {
            continue;
        }
        assert!(p.tiles.iter().all(|&i| m.tiles[i].kind == TileKind::Events));
        let tiles: Vec<_> = p.tiles.iter().map(|&i| store.events_tile(&m.tiles[i]).unwrap()).collect();
        let refs: Vec<_> = tiles.iter().collect();
        let x = exact_trace(&skeleton, &p, &refs);
        let (t0, t1) = (p.t0_ns, p.t1_ns);
        let locs = p.locations.clone();
        let iv = &t.intervals;
        let want: Vec<_> = (0..iv.len())
            .filter(|&i| {
                locs.contains(&iv.location[i].0) && iv.start_ns[i] <= t1 && iv.start_ns[i] + iv.dur_ns[i] >= t0
            })
            .map(|i| (iv.location[i], iv.region[i], iv.start_ns[i], iv.dur_ns[i], iv.depth[i]))
            .collect();
        let xi = &x.intervals;
        let got: Vec<_> =
            (0..xi.len()).map(|i| (xi.location[i], xi.region[i], xi.start_ns[i], xi.dur_ns[i], xi.depth[i])).collect();
        assert_eq!(got, want, "viewport {vp:?}");
        for l in 0..t.locations.len() {
            let r = x.location_intervals[l].clone();
            assert!(xi.location[r].iter().all(|&a| a.index() == l));
        }
        let ms = &t.messages;
        let want_m: Vec<_> = (0..ms.len())
            .filter(|&i| {
                locs.contains(&ms.sender[i].0)
                    && ms.send_ns[i].min(ms.recv_ns[i]) <= t1
                    && ms.send_ns[i].max(ms.recv_ns[i]) >= t0
            })
            .map(|i| (ms.sender[i], ms.receiver[i], ms.send_ns[i], ms.recv_ns[i], ms.size_bytes[i]))
            .collect();
        let xm = &x.messages;
        let got_m: Vec<_> = (0..xm.len())
            .filter(|&i| locs.contains(&xm.sender[i].0))
            .map(|i| (xm.sender[i], xm.receiver[i], xm.send_ns[i], xm.recv_ns[i], xm.size_bytes[i]))
            .collect();
        assert_eq!(got_m, want_m);
        let c = &t.collectives;
        let want_c = (0..c.len())
            .filter(|&i| locs.contains(&c.location[i].0) && c.start_ns[i] <= t1 && c.end_ns[i] >= t0)
            .count();
        assert_eq!(x.collectives.len(), want_c);
        // The slice is a valid model: it encodes and decodes (what crosses from the worker to the page).
        let back = codec::decode(&codec::encode(&x)).expect("the exact slice is a valid trace");
        assert_eq!(back.intervals.start_ns, x.intervals.start_ns);
        checked += 1;
    }
    assert!(checked >= 3, "only {checked} exact viewports");
}

#[test]
fn the_tile_cache_keeps_to_its_budget_least_recently_used_out() {
    let (_, store) = trace_and_store();
    let m = &store.manifest;
    let events: Vec<usize> = (0..m.tiles.len()).filter(|&i| m.tiles[i].kind == TileKind::Events).take(8).collect();
    assert!(events.len() >= 4);
    let decoded: Vec<Decoded> = events
        .iter()
        .map(|&i| {
            let mut d = Decoded::Events(store.events_tile(&m.tiles[i]).unwrap());
            let before = d.bytes();
            d.compact();
            assert!(d.bytes() <= before, "compacting gives memory back");
            d
        })
        .collect();
    let sizes: Vec<usize> = decoded.iter().map(Decoded::bytes).collect();
    // Room for the three largest, not four tiles.
    let mut sorted = sizes.clone();
    sorted.sort_unstable_by(|a, b| b.cmp(a));
    let budget = sorted[0] + sorted[1] + sorted[2];
    let mut cache = TileCache::new(budget);
    cache.begin_view();
    cache.insert(events[0], decoded[0].clone());
    cache.insert(events[1], decoded[1].clone());
    cache.insert(events[2], decoded[2].clone());
    assert!(cache.touch(events[0]), "tile 0 is held");
    let mut dropped = Vec::new();
    for k in 3..events.len() {
        cache.begin_view(); // each tile for a view of its own: earlier ones may go
        dropped.extend(cache.insert(events[k], decoded[k].clone()));
        assert!(cache.used() <= cache.budget(), "{} bytes over a {} budget", cache.used(), cache.budget());
        assert!(cache.contains(events[k]), "the newest tile stays");
    }
    // Tile 1 was the least recently used when the first eviction came (tile 0 was touched after it).
    assert_eq!(dropped.first(), Some(&events[1]));
    assert_eq!(cache.used(), (0..events.len()).filter(|&k| cache.contains(events[k])).map(|k| sizes[k]).sum::<usize>());
    assert_eq!(cache.peek(events[events.len() - 1]), Some(&decoded[events.len() - 1]));
    // One view needing more than the budget keeps all it needs, until the next view trims the cache.
    let mut cache = TileCache::new(sorted[0]);
    cache.begin_view();
    for k in 0..events.len() {
        assert!(cache.insert(events[k], decoded[k].clone()).is_empty());
    }
    assert_eq!(cache.len(), events.len());
    cache.begin_view();
    assert!(cache.used() <= cache.budget() && cache.len() == 1);
    // `admit` never holds more than the budget: tiles of earlier views go first, then a tile that does not
    // fit is refused (the caller used it and lets it go).
    let budget = sorted[0] + sorted[1];
    let mut cache = TileCache::new(budget);
    cache.begin_view();
    let mut kept = 0;
    for k in 0..events.len() {
        kept += cache.admit(events[k], decoded[k].clone()) as usize;
        assert!(cache.used() <= budget, "{} bytes over a {budget} budget", cache.used());
    }
    assert!(kept >= 2 && kept < events.len(), "kept {kept} of {}", events.len());
    cache.begin_view();
    let last = events[events.len() - 1];
    assert!(cache.admit(last, decoded[events.len() - 1].clone()), "a new view evicts the old view's tiles");
    assert!(cache.used() <= budget);
}

#[test]
fn answers_gathered_tile_by_tile_equal_the_answers_from_all_tiles() {
    use weft::store::read::query::slice_columns::{IntervalColumns, INTERVAL_COLUMNS};
    use weft::store::read::query::{ExactSlice, GridBuilder};
    let (t, store) = trace_and_store();
    let m = &store.manifest;
    let index = TileIndex::new(m);
    let skeleton = store.skeleton().unwrap();
    let (mut grids, mut exact) = (0, 0);
    for vp in viewports(&t) {
        let p = plan(m, &index, &vp);
        match GridBuilder::new(m, &p) {
            Some(mut g) => {
                let tiles: Vec<_> = p.tiles.iter().map(|&i| store.summary_tile(&m.tiles[i]).unwrap()).collect();
                let whole = summary_grid(m, &p, |i| p.tiles.iter().position(|&j| j == i).map(|k| &tiles[k][..]));
                // In reverse order, one tile missing.
                for (k, &i) in p.tiles.iter().enumerate().rev() {
                    if k == 0 {
                        g.missing(m.tiles[i].path.clone());
                    } else {
                        g.add(m, i, &tiles[k]);
                    }
                }
                let g = g.finish();
                let without_first = summary_grid(m, &p, |i| {
                    p.tiles.iter().position(|&j| j == i).filter(|&k| k > 0).map(|k| &tiles[k][..])
                });
                assert_eq!(g, without_first, "viewport {vp:?}");
                assert_eq!(g.missing.len(), 1);
                assert!(whole.missing.is_empty());
                grids += 1;
            }
            None => {
                let tiles: Vec<_> = p.tiles.iter().map(|&i| store.events_tile(&m.tiles[i]).unwrap()).collect();
                let refs: Vec<_> = tiles.iter().collect();
                let whole = exact_trace(&skeleton, &p, &refs);
                let mut x = ExactSlice::new(&p);
                for tile in tiles.iter().rev() {
                    x.add(tile);
                }
                let n = x.intervals();
                // What the store worker answers: the slice encoded without building its `Trace` and without
                // the definitions the page holds, decoding over them to the same trace (the same bytes
                // as the whole trace's encoding once encoded whole again), and shorter by the tables.
                let bytes = x.clone().encode(&skeleton);
                // As the worker answers the page since issue #58's second round: the intervals as columns the
                // page copies (`slice_columns`), the rest as a slice with none; read back, the same trace.
                let cols = x.clone().columns(&skeleton);
                let mut read = IntervalColumns::new(
                    &cols.runs(),
                    cols.intervals(),
                    skeleton.locations.len(),
                    skeleton.regions.len(),
                )
                .unwrap();
                for k in (0..INTERVAL_COLUMNS.len()).rev() {
                    read.put(k, &cols.column(k)).unwrap();
                }
                let rest = codec::decode_over(&cols.rest, &skeleton).expect("the rest decodes over the skeleton");
                assert!(rest.intervals.is_empty());
                let from_columns = read.with_rest(rest).unwrap();
                let x = x.finish(&skeleton);
                assert_eq!(codec::encode(&from_columns), codec::encode(&whole), "viewport {vp:?}");
                assert_eq!(from_columns.location_intervals, whole.location_intervals);
                assert_eq!(n, whole.intervals.len());
                assert_eq!(codec::encode(&x), codec::encode(&whole), "viewport {vp:?}");
                let back = codec::decode_over(&bytes, &skeleton).expect("decodes over the skeleton");
                assert_eq!(codec::encode(&back), codec::encode(&whole), "viewport {vp:?}");
                assert!(back.strings.shares(&skeleton.strings), "the strings are the skeleton's, not a copy");
                assert!(bytes.len() < codec::encode(&whole).len());
                assert_eq!(back.intervals.start_ns, whole.intervals.start_ns);
                assert_eq!(back.location_intervals, whole.location_intervals);
                assert_eq!(back.messages.send_ns, whole.messages.send_ns);
                // Without the definitions, or over a trace of other definitions, it does not decode.
                assert!(codec::decode(&bytes).is_err());
                let mut other = skeleton.clone();
                other.strings.intern("a string the store does not have");
                assert!(codec::decode_over(&bytes, &other).is_err());
                exact += 1;
            }
        }
    }
    assert!(grids > 3 && exact > 3, "{grids} grids, {exact} exact viewports");
}

#[test]
fn store_moments_equal_the_trace_moments_exactly_at_level_0_and_within_a_bin_from_the_pyramid() {
    use std::rc::Rc;
    use weft::analyses::busy::BusyIntervals;
    use weft::analyses::moments::{moments, TimeWindow};
    use weft::analyses::moments_bundle::MomentsBundle;
    use weft::store::read::query::{grid_busy, ExactSlice, GridBuilder};
    use weft::views::store_moments::StoreMomentsPane;
    use weft::views::Pane;
    let (t, store) = trace_and_store();
    let m = &store.manifest;
    let index = TileIndex::new(m);
    let skeleton = Rc::new(store.skeleton().unwrap());
    let nl = t.locations.len();
    let mut checked = [0, 0];
    for def in [BusyDefinition::Compute, BusyDefinition::Any] {
        let whole = store.moments(&def).unwrap().unwrap();
        let mut pane = StoreMomentsPane::new(skeleton.clone(), 1800.0, 600.0);
        let span = t.span_ns as f64;
        for (t0, t1) in [
            (0.0, span),
            (span * 0.02, span * 0.97),
            (span * 0.3, span * 0.55),
            (span * 0.41, span * 0.4102),
            (span * 0.7, span * 0.70004),
        ] {
            pane.set_time_range(t0, t1);
            let Some((vp, _)) = pane.request() else { panic!("a new viewport is asked") };
            assert_eq!(vp.locations, 0..nl as u32, "moments need every location");
            assert_eq!(vp.width_px, 900.0, "a few locations: the Gantt chart's width");
            let p = plan(m, &index, &vp);
            let (busy, level) = match GridBuilder::new(m, &p) {
                Some(mut g) => {
                    for &i in &p.tiles {
                        g.add(m, i, &store.summary_tile(&m.tiles[i]).unwrap());
                    }
                    let g = g.finish();
                    (grid_busy(&g, nl, m.span_ns, def == BusyDefinition::Compute), g.level)
                }
                None => {
                    let mut x = ExactSlice::new(&p);
                    for &i in &p.tiles {
                        x.add(&store.events_tile(&m.tiles[i]).unwrap());
                    }
                    (BusyIntervals::compute(&x.finish(&skeleton), &def), 0)
                }
            };
            let bundle = MomentsBundle { definition: def.clone(), busy, rows: whole.clone() };
            pane.receive(&bundle.encode(), p.t0_ns, p.t1_ns, level, vec![]).unwrap();
            let st = pane.state();
            let w = &st["window"];
            let window =
                TimeWindow { start_ns: w["start_ns"].as_u64().unwrap(), end_ns: w["end_ns"].as_u64().unwrap() };
            let is_whole = window == TimeWindow::whole(&t);
            let want = moments(&t, &def, if is_whole { None } else { Some(window) });
            let rows = st["rows"].as_array().unwrap();
            assert_eq!(rows.len(), nl);
            assert_eq!(st["store"]["exact"], serde_json::json!(is_whole || level == 0), "{st}");
            for r in rows {
                let l = r["location"].as_u64().unwrap() as usize;
                let (m0, m1) = (r["m0_ns"].as_u64().unwrap(), r["m1_ns"].as_f64().unwrap());
                if is_whole || level == 0 {
                    // What `weft moments STORE/ [--window]` prints (computed the same way).
                    assert_eq!(m0, want[l].m0_ns, "{def:?} {window:?} location {l}");
                    let tol = 1e-9 * want[l].m1_ns.abs().max(1.0);
                    assert!((m1 - want[l].m1_ns).abs() <= tol, "{m1} vs {}", want[l].m1_ns);
                    assert!(
                        (r["m2_ns"].as_f64().unwrap() - want[l].m2_ns).abs() <= 1e-6 * want[l].m2_ns.abs().max(1.0)
                    );
                    checked[0] += 1;
                } else {
                    let bin = m.levels.iter().find(|x| x.level == level).unwrap().bin_ns as f64;
                    // Two partial bins at the window's ends at most.
                    assert!(
                        (m0 as f64 - want[l].m0_ns as f64).abs() <= 2.0 * bin,
                        "m0 {m0} vs {} (bin {bin})",
                        want[l].m0_ns
                    );
                    if want[l].m0_ns as f64 > 4.0 * bin {
                        let tol =
                            bin * (1.0 + 2.0 * bin * (window.end_ns - window.start_ns) as f64 / want[l].m0_ns as f64);
                        assert!((m1 - want[l].m1_ns).abs() <= tol, "m1 {m1} vs {} (bin {bin})", want[l].m1_ns);
                    }
                    checked[1] += 1;
                }
            }
        }
    }
    assert!(checked[0] > 0 && checked[1] > 0, "{checked:?}");
}

#[test]
fn the_store_timeline_draws_and_hovers_what_the_queries_answer() {
    use std::rc::Rc;
    use weft::views::store::StorePane;
    use weft::views::Pane;
    let (t, store) = trace_and_store();
    let m = &store.manifest;
    let index = TileIndex::new(m);
    let skeleton = store.skeleton().unwrap();
    let mut pane = StorePane::new(Rc::new(skeleton.clone()), m.locations.lanes.clone().into(), 1000.0, 600.0);
    assert_eq!(pane.shown(), "none");
    let vp = pane.request().expect("the first view asks");
    assert!(pane.request().is_none(), "an unchanged view does not ask again");
    let p = plan(m, &index, &vp);
    assert!(matches!(p.resolution, Resolution::Level(_)));
    let decoded: Vec<(usize, Vec<weft::store::pyramid::Bins>)> =
        p.tiles.iter().map(|&i| (i, store.summary_tile(&m.tiles[i]).unwrap())).collect();
    pane.show_grid(summary_grid(m, &p, |i| decoded.iter().find(|d| d.0 == i).map(|d| &d.1[..])), vec![]);
    assert!(pane.scene().marks() > 0);
    let st = pane.state();
    let y = st["rows"][0]["y"].as_f64().unwrap() as f32 + 9.0;
    let h = pane.hover(600.0, y).expect("a bin under the pointer");
    assert!(
        h.detail["busy_any_ns"].as_u64().unwrap()
            <= h.detail["end_ns"].as_u64().unwrap() - h.detail["start_ns"].as_u64().unwrap()
    );

    // Zoomed to one interval: level 0, the exact intervals, hovered as the trace's.
    let iv = &t.intervals;
    let i = t.location_intervals[0].clone().find(|&i| iv.dur_ns[i] > 500 && iv.dur_ns[i] < 1_000_000).unwrap();
    let (s, d) = (iv.start_ns[i] as f64, iv.dur_ns[i] as f64);
    pane.set_time_range(s - d * 0.1, s + d * 1.1);
    let vp = pane.request().expect("a new view asks");
    let p = plan(m, &index, &vp);
    assert_eq!(p.resolution, Resolution::Exact);
    let tiles: Vec<_> = p.tiles.iter().map(|&k| store.events_tile(&m.tiles[k]).unwrap()).collect();
    let refs: Vec<_> = tiles.iter().collect();
    pane.show_exact(exact_trace(&skeleton, &p, &refs), p.t0_ns, p.t1_ns, p.locations.clone(), vec!["x: broken".into()]);
    assert_eq!(pane.shown(), "exact");
    let st = pane.state();
    assert_eq!(st["store"]["errors"][0], "x: broken");
    let row = st["rows"].as_array().unwrap().iter().find(|r| r["location"] == 0).unwrap();
    let y = row["y"].as_f64().unwrap() as f32 + 9.0 + 18.0 * iv.depth[i] as f32;
    let h = pane.hover(600.0, y).expect("the interval under the pointer");
    assert_eq!(
        (h.detail["start_ns"].as_u64(), h.detail["dur_ns"].as_u64()),
        (Some(iv.start_ns[i]), Some(iv.dur_ns[i]))
    );
    assert_eq!(h.title, t.region_name(iv.region[i]));
    assert!(pane.scene().marks() > 0);
}

#[test]
fn an_exact_answer_built_in_steps_draws_what_one_shown_at_once_draws() {
    use std::rc::Rc;
    use weft::layouts::timeline::{TimelineLayout, TimelineMetrics};
    use weft::views::store::StorePane;
    use weft::views::Pane;
    let (_, store) = trace_and_store();
    let m = &store.manifest;
    let index = TileIndex::new(m);
    let skeleton = Rc::new(store.skeleton().unwrap());
    let lanes: Rc<[u32]> = m.locations.lanes.clone().into();
    let (mut at_once, mut stepped) = (
        StorePane::new(skeleton.clone(), lanes.clone(), 1000.0, 600.0),
        StorePane::new(skeleton.clone(), lanes.clone(), 1000.0, 600.0),
    );
    // The widest level-0 view about the middle: the most intervals and messages a step has to take.
    let span = m.span_ns as f64;
    let mut w = span;
    let (vp, p) = loop {
        w /= 2.0;
        for pane in [&mut at_once, &mut stepped] {
            pane.set_time_range(span / 2.0 - w / 2.0, span / 2.0 + w / 2.0);
        }
        let vp = at_once.request().unwrap();
        let p = plan(m, &index, &vp);
        if p.resolution == Resolution::Exact {
            break (vp, p);
        }
    };
    assert_eq!(stepped.request().as_ref(), Some(&vp));
    let tiles: Vec<_> = p.tiles.iter().map(|&k| store.events_tile(&m.tiles[k]).unwrap()).collect();
    let slice = exact_trace(&skeleton, &p, &tiles.iter().collect::<Vec<_>>());
    assert!(slice.intervals.len() > 1000 && slice.messages.len() > 100, "{} intervals", slice.intervals.len());

    // The lanes of the messages' ends, found a few at a time, are those searched for one by one.
    let searched = TimelineLayout::new(&slice, TimelineMetrics::default());
    let mut indexed = searched.clone();
    let mut calls = 1;
    while !indexed.index_message_lanes(&slice, 7) {
        calls += 1;
    }
    assert_eq!(calls, slice.messages.len().div_ceil(7));
    for j in 0..slice.messages.len() {
        for send in [true, false] {
            assert_eq!(indexed.message_lane(&slice, j, send), searched.message_lane(&slice, j, send), "{j} {send}");
        }
    }
    assert!((0..slice.messages.len()).any(|j| indexed.message_lane(&slice, j, true) > 0), "ends below the top lane");

    at_once.show_exact(slice.clone(), p.t0_ns, p.t1_ns, p.locations.clone(), vec![]);
    let before = stepped.scene();
    stepped.receive_exact(weft::model::codec::encode(&slice), p.t0_ns, p.t1_ns, p.locations.clone(), vec![]);
    let mut steps = 0;
    // Drawn before its messages' lanes are indexed (issue #58: the view first, the rest after), and drawn
    // the same before as after (a frame finds the lanes it draws itself meanwhile).
    let mut drawn_early = None;
    while !stepped.step().unwrap() {
        steps += 1;
        if stepped.stage() == "lanes" {
            assert!(!stepped.building());
            assert_eq!(stepped.shown(), "exact");
            drawn_early.get_or_insert_with(|| stepped.scene());
            continue;
        }
        // What was drawn stays until the overview strip is made.
        assert!(stepped.building());
        assert_eq!(stepped.shown(), "none");
        assert_eq!(stepped.scene(), before);
    }
    // The decode's head, five interval columns, args and the rest; the layout; the overview; the lanes.
    assert!(steps >= 10, "{steps} steps");
    let drawn_early = drawn_early.expect("drawn while its messages' lanes were indexed");
    assert_eq!(drawn_early, stepped.scene());
    assert!(!stepped.building() && stepped.step().unwrap());
    assert_eq!(stepped.shown(), "exact");
    for (dx, zoom) in [(0.0, 1.0), (40.0, 1.0), (-300.0, 1.0), (0.0, 3.0), (0.0, 0.25)] {
        for pane in [&mut at_once, &mut stepped] {
            pane.pan(dx);
            pane.zoom(600.0, zoom);
        }
        let sc = stepped.scene();
        assert!(sc.lines.len() > 10 && sc.marks() > 0);
        assert_eq!(sc, at_once.scene(), "pan {dx}, zoom {zoom}");
        assert_eq!(stepped.state(), at_once.state());
    }

    // The same answer as the store worker sends it (issue #58: its intervals as columns, each copied as it is,
    // and the rest of the slice without them) draws the same; a step before every column came, a column of
    // another length, or runs of another count are errors.
    use weft::store::read::query::slice_columns::{interval_column, location_runs, INTERVAL_COLUMNS};
    let runs = location_runs(&slice.intervals);
    let rest = weft::model::codec::encode_slice_with(&slice, &skeleton, &weft::model::Intervals::default());
    let cols: Vec<Vec<u8>> = (0..INTERVAL_COLUMNS.len()).map(|k| interval_column(&slice.intervals, k)).collect();
    let n = slice.intervals.len();
    let mut parted = StorePane::new(skeleton.clone(), lanes.clone(), 1000.0, 600.0);
    parted.restore(&stepped.state());
    let begin = |pane: &mut StorePane, n: usize| {
        pane.begin_exact_columns(rest.clone(), &runs, n, p.t0_ns, p.t1_ns, p.locations.clone(), vec![])
    };
    begin(&mut parted, n).unwrap();
    parted.receive_column(0, &cols[0]).unwrap();
    assert!(parted.step().is_err() && !parted.building());
    begin(&mut parted, n).unwrap();
    assert!(parted.receive_column(1, &cols[1][1..]).is_err() && !parted.building());
    assert!(begin(&mut parted, n + 1).is_err() && !parted.building());
    begin(&mut parted, n).unwrap();
    for (k, c) in cols.iter().enumerate().rev() {
        parted.receive_column(k, c).unwrap();
    }
    let mut column_steps = 0;
    while !parted.step().unwrap() {
        column_steps += 1;
    }
    assert!(column_steps <= steps, "{column_steps} steps from columns, {steps} from the whole encoding");
    assert_eq!(parted.scene(), stepped.scene());
    assert_eq!(parted.state(), stepped.state());

    // A newer answer replaces one being built: a grid drops it; bytes that do not decode are an error and
    // leave what is drawn.
    stepped.receive_exact(weft::model::codec::encode(&slice), p.t0_ns, p.t1_ns, p.locations.clone(), vec![]);
    assert!(!stepped.step().unwrap());
    stepped.show_grid(Default::default(), vec![]);
    assert!(!stepped.building() && stepped.step().unwrap());
    assert_eq!(stepped.shown(), "level 0");
    let drawn = stepped.scene();
    stepped.receive_exact(vec![1, 2, 3], p.t0_ns, p.t1_ns, p.locations.clone(), vec![]);
    assert!(stepped.step().is_err());
    assert!(!stepped.building());
    assert_eq!(stepped.scene(), drawn);
}

#[test]
fn a_level_0_view_past_its_interval_cap_is_drawn_from_the_finest_level() {
    use weft::store::read::query::EXACT_MAX_INTERVALS;
    let cfg = GenConfig { threads: 2, ..GenConfig::new(4, 4_000_000) };
    let (t, store) = generated(&cfg, &BuildOptions { block_locations: 4, ..BuildOptions::default() });
    assert!(t.intervals.len() as u64 > EXACT_MAX_INTERVALS, "{} intervals", t.intervals.len());
    let m = &store.manifest;
    let index = TileIndex::new(m);
    let nl = t.locations.len() as u32;
    let span = m.span_ns as f64;
    // Pixels so wide that level 1's bins are wider than a pixel over the whole run.
    let wide = Viewport { t0_ns: 0.0, t1_ns: span, locations: 0..nl, width_px: 1e9, series: 0..0 };
    assert_eq!(weft::store::read::query::resolution(m, span, 1e9), Resolution::Exact);
    let p = plan(m, &index, &wide);
    assert_eq!(p.resolution, Resolution::Level(1), "the whole run's intervals are past the cap");
    // A window with fewer intervals than the cap is exact.
    let n = t.intervals.len() as f64;
    let narrow = Viewport { t1_ns: span * (EXACT_MAX_INTERVALS as f64 / n) * 0.3, ..wide.clone() };
    assert_eq!(plan(m, &index, &narrow).resolution, Resolution::Exact);
    // So are a few rows of a wider window.
    let rows = Viewport { t1_ns: span * (EXACT_MAX_INTERVALS as f64 / n) * 1.5, locations: 0..1, ..wide };
    assert_eq!(plan(m, &index, &rows).resolution, Resolution::Exact);
}

#[test]
fn a_level_0_view_late_in_the_run_fetches_only_its_own_windows_tiles() {
    let (t, store) = trace_and_store();
    let m = &store.manifest;
    let index = TileIndex::new(m);
    let skeleton = store.skeleton().unwrap();
    let tl = &m.tiling;
    assert!(tl.windows >= 8, "the test wants a long run of windows, got {}", tl.windows);
    // The first row's "main" spans the run: stored once, in window 0.
    let iv = &t.intervals;
    let last = tl.windows - 1;
    let main = t.location_intervals[0].clone().find(|&i| iv.depth[i] == 0 && tl.window_of(iv.end_ns(i)) == last);
    let main = main.expect("location 0 has a run-spanning interval");
    assert_eq!(tl.window_of(iv.start_ns[main]), 0);
    let w = tl.windows - 2;
    let ws = tl.window_span(w).start;
    // Inside window w, and starting exactly on its first ns (what started before it reaches it by >=).
    for t0 in [ws + tl.window_ns / 2, ws] {
        let vp = Viewport {
            t0_ns: t0 as f64,
            t1_ns: (t0 + tl.window_ns / 4) as f64,
            locations: 0..tl.block_locations,
            width_px: 900.0,
            series: 0..0,
        };
        let p = plan(m, &index, &vp);
        assert_eq!(p.resolution, Resolution::Exact);
        // One block, one window: one tile, not the block's tiles from window 0 on (version 1 fetched those).
        let own = index.get(TileKind::Events, 0, 0, w).expect("window w of block 0 has a tile");
        assert_eq!(p.tiles, vec![own]);
        let bytes: u64 = p.tiles.iter().map(|&i| m.tiles[i].bytes).sum();
        let from_0: u64 = (0..=w).filter_map(|v| index.get(TileKind::Events, 0, 0, v)).map(|i| m.tiles[i].bytes).sum();
        // About one window's share of what format 1 fetched (w + 1 tiles), not half of it.
        assert!(bytes * (w as u64 + 1) / 2 < from_0, "{bytes} bytes planned, {from_0} from window 0 to {w}");
        let tile = store.events_tile(&m.tiles[own]).unwrap();
        let x = exact_trace(&skeleton, &p, &[&tile]);
        let xi = &x.intervals;
        let got: Vec<_> =
            (0..xi.len()).map(|i| (xi.location[i], xi.region[i], xi.start_ns[i], xi.dur_ns[i], xi.depth[i])).collect();
        let spanning = (iv.location[main], iv.region[main], iv.start_ns[main], iv.dur_ns[main], iv.depth[main]);
        assert!(got.contains(&spanning), "the run-spanning interval is in the answer");
        let (t0, t1) = (p.t0_ns, p.t1_ns);
        let want: Vec<_> = (0..iv.len())
            .filter(|&i| p.locations.contains(&iv.location[i].0) && iv.start_ns[i] <= t1 && iv.end_ns(i) >= t0)
            .map(|i| (iv.location[i], iv.region[i], iv.start_ns[i], iv.dur_ns[i], iv.depth[i]))
            .collect();
        assert_eq!(got, want);
        // A tile's open records count only where it is the view's first window: a view starting a window
        // earlier takes the spanning interval from that window's tile, once.
        let before = tl.window_span(w - 1).start;
        let vp = Viewport { t0_ns: before as f64, t1_ns: (ws + 1) as f64, ..vp };
        let p = plan(m, &index, &vp);
        assert_eq!(p.tiles.len(), 2);
        let tiles: Vec<_> = p.tiles.iter().map(|&i| store.events_tile(&m.tiles[i]).unwrap()).collect();
        let x = exact_trace(&skeleton, &p, &tiles.iter().collect::<Vec<_>>());
        let xi = &x.intervals;
        let n = (0..xi.len())
            .filter(|&i| (xi.location[i], xi.region[i], xi.start_ns[i], xi.dur_ns[i], xi.depth[i]) == spanning)
            .count();
        assert_eq!(n, 1, "the spanning interval once, though both tiles carry it open");
    }
}

#[test]
fn a_window_s_exact_plan_reads_its_tiles_alone_and_gives_the_trace_s_moments() {
    use weft::analyses::moments::{moments, TimeWindow};
    use weft::store::read::query::exact_plan;
    let (t, store) = trace_and_store();
    let m = &store.manifest;
    assert!(m.tiling.windows >= 8, "the test wants many windows, got {}", m.tiling.windows);
    let index = TileIndex::new(m);
    let skeleton = store.skeleton().unwrap();
    let span = t.span_ns;
    let w_ns = m.tiling.window_ns;
    let everything = exact_plan(m, &index, 0, span, 0..t.locations.len() as u32).tiles.len();
    // Inside one window, across a window boundary, several windows late in the run, past the end.
    for (a, b) in [
        (w_ns + w_ns / 3, w_ns + w_ns / 2),
        (3 * w_ns - 100, 3 * w_ns + 100),
        (span / 2, span * 3 / 4),
        (span - 10, span + 1_000_000),
    ] {
        let plan = exact_plan(m, &index, a, b, 0..t.locations.len() as u32);
        assert_eq!(plan.resolution, Resolution::Exact);
        assert!(plan.tiles.len() < everything, "[{a}, {b}]: {} of {everything} tiles", plan.tiles.len());
        let tiles: Vec<_> = plan.tiles.iter().map(|&i| store.events_tile(&m.tiles[i]).unwrap()).collect();
        let slice = exact_trace(&skeleton, &plan, &tiles.iter().collect::<Vec<_>>());
        let window = Some(TimeWindow { start_ns: a, end_ns: b });
        for def in [BusyDefinition::Compute, BusyDefinition::Any, BusyDefinition::Pattern("MPI_*".into())] {
            assert_eq!(moments(&slice, &def, window), moments(&t, &def, window), "[{a}, {b}] {def:?}");
        }
    }
}

#[test]
fn a_store_keeps_each_rows_height_from_the_whole_run_to_one_shallow_interval() {
    use std::rc::Rc;
    use weft::layouts::timeline::{TimelineLayout, TimelineMetrics};
    use weft::views::store::StorePane;
    use weft::views::Pane;
    let (t, store) = trace_and_store();
    let m = &store.manifest;
    let index = TileIndex::new(m);
    let whole = TimelineLayout::new(&t, TimelineMetrics::default());
    let lanes_of = |l: usize| whole.rows[whole.row_of_location[l] as usize].lanes;
    assert_eq!(m.locations.lanes, (0..t.locations.len()).map(lanes_of).collect::<Vec<_>>(), "the manifest's lanes");
    let heights = |st: &serde_json::Value| -> Vec<(u64, f64)> {
        let rows = st["rows"].as_array().unwrap();
        rows.iter().map(|r| (r["location"].as_u64().unwrap(), r["height"].as_f64().unwrap())).collect()
    };
    let expected: Vec<(u64, f64)> =
        whole.rows.iter().map(|r| (r.location.0 as u64, whole.row_height(r) as f64)).collect();

    let skeleton = Rc::new(store.skeleton().unwrap());
    let mut pane = StorePane::new(skeleton.clone(), m.locations.lanes.clone().into(), 1000.0, 600.0);
    let vp = pane.request().unwrap();
    let p = plan(m, &index, &vp);
    let decoded: Vec<(usize, Vec<weft::store::pyramid::Bins>)> =
        p.tiles.iter().map(|&i| (i, store.summary_tile(&m.tiles[i]).unwrap())).collect();
    pane.show_grid(summary_grid(m, &p, |i| decoded.iter().find(|d| d.0 == i).map(|d| &d.1[..])), vec![]);
    let shown = heights(&pane.state());
    assert!(shown.len() > 1);
    assert_eq!(shown, expected[..shown.len()], "the summary rows");
    // Each summary row is drawn lane by lane, as the exact intervals are: every lane of row 0 has its bars,
    // within the lane, and lane 0 is the one region spanning the run (the generator's `main`), opaque.
    let sc = pane.scene();
    let row0 = &pane.state()["rows"][0];
    let (y0, h0) = (row0["y"].as_f64().unwrap() as f32, row0["height"].as_f64().unwrap() as f32);
    let lane = TimelineMetrics::default().lane_px;
    let lanes0 = lanes_of(0);
    assert!(lanes0 >= 3, "the generated location nests {lanes0} deep");
    let x0 = 200.0; // past the label gutter
    for d in 0..lanes0 {
        let (top, bottom) = (y0 + d as f32 * lane, y0 + (d + 1) as f32 * lane);
        let bars: Vec<_> = sc.rects.iter().filter(|r| r.x >= x0 && r.y >= top && r.y + r.h <= bottom).collect();
        assert!(!bars.is_empty(), "lane {d} of row 0 is drawn");
        if d == 0 {
            let main = t.intervals.region[t.location_intervals[0].start];
            assert!(bars
                .iter()
                .all(|r| r.fill >> 8 == weft::scene::timeline::region_colors(&t)[main.index()] >> 8
                    && r.fill & 0xff == 0xff));
        }
    }
    assert!(h0 >= lanes0 as f32 * lane, "row 0 holds its lanes");

    // Zoomed into the middle of a leaf interval shallower than its location's deepest: the slice has only
    // its ancestors and itself there, yet the row keeps the whole run's lanes.
    let iv = &t.intervals;
    let l0 = t.location_intervals[0].clone();
    let leaf = |i: usize| {
        !l0.clone().any(|j| {
            iv.depth[j] == iv.depth[i] + 1
                && iv.start_ns[j] >= iv.start_ns[i]
                && iv.start_ns[j] < iv.start_ns[i] + iv.dur_ns[i]
        })
    };
    let i = l0
        .clone()
        .filter(|&i| iv.depth[i] as u32 + 1 < lanes_of(0) && iv.dur_ns[i] > 100)
        .find(|&i| leaf(i))
        .expect("a shallow leaf");
    let (s, d) = (iv.start_ns[i] as f64, iv.dur_ns[i] as f64);
    pane.set_time_range(s + d * 0.45, s + d * 0.55);
    let vp = pane.request().unwrap();
    let p = plan(m, &index, &vp);
    assert_eq!(p.resolution, Resolution::Exact);
    let tiles: Vec<_> = p.tiles.iter().map(|&k| store.events_tile(&m.tiles[k]).unwrap()).collect();
    let refs: Vec<_> = tiles.iter().collect();
    let slice = exact_trace(&skeleton, &p, &refs);
    let deepest = slice.intervals_of(LocationId(0)).map(|j| slice.intervals.depth[j] as u32 + 1).max().unwrap();
    assert!(deepest < lanes_of(0), "the slice is shallower than the run ({deepest} lanes)");
    pane.show_exact(slice, p.t0_ns, p.t1_ns, p.locations.clone(), vec![]);
    assert_eq!(pane.shown(), "exact");
    let st = pane.state();
    let shown = heights(&st);
    assert_eq!(shown, expected[..shown.len()], "the exact rows");
    // And after a relayout (a process folded and unfolded), still.
    pane.configure("folded", "0").unwrap();
    assert_ne!(heights(&pane.state()), shown, "folded");
    pane.configure("folded", "").unwrap();
    assert_eq!(heights(&pane.state()), shown, "the exact rows after a relayout");
}

#[test]
fn a_stores_rows_filter_hide_fold_and_compact_as_a_traces_do() {
    use std::rc::Rc;
    use weft::store::read::answer::Answer;
    use weft::views::store::StorePane;
    use weft::views::timeline::{Rows, TimelinePane};
    use weft::views::Pane;
    let (t, store) = trace_and_store();
    let m = &store.manifest;
    let index = TileIndex::new(m);
    let skeleton = Rc::new(store.skeleton().unwrap());
    let mut pane = StorePane::new(skeleton.clone(), m.locations.lanes.clone().into(), 1000.0, 600.0);
    let mut whole = TimelinePane::new(Rc::new(t.clone()), 1000.0, 600.0);
    // Answer what the pane asks (a grid zoomed out, the exact records at level 0), as the worker would.
    let answer = |pane: &mut StorePane| {
        while let Some(vp) = pane.request() {
            match weft::store::read::answer::answer(&store, &skeleton, &index, &vp).unwrap() {
                Answer::Grid(grid) => pane.show_grid(grid, vec![]),
                Answer::Exact(slice, p) => pane.show_exact(*slice, p.t0_ns, p.t1_ns, p.locations, vec![]),
            }
        }
    };
    let rows = |st: &serde_json::Value| -> Vec<(u64, f64, f64)> {
        let r = st["rows"].as_array().unwrap();
        r.iter()
            .map(|r| (r["location"].as_u64().unwrap(), r["y"].as_f64().unwrap(), r["height"].as_f64().unwrap()))
            .collect()
    };
    let mid = m.span_ns as f64 / 2.0;
    for (key, value) in [("locations", "*Thread 1*"), ("hidden", "0,3"), ("folded", "1"), ("compact", "true")] {
        pane.configure(key, value).unwrap();
        whole.configure(key, value).unwrap();
        for (a, b) in [(0.0, m.span_ns as f64), (mid, mid + 2_000.0)] {
            pane.set_time_range(a, b);
            whole.set_time_range(a, b);
            answer(&mut pane);
            let (st, want) = (pane.state(), whole.state());
            assert_eq!(st["store"]["shown"] == "exact", b - a < 10_000.0, "{key}: {}", st["store"]["shown"]);
            assert_eq!(rows(&st), rows(&want), "{key}={value}, {a}..{b}: the rows as the trace's");
            assert!(pane.scene().marks() > 0, "{key}: drawn");
        }
        assert_eq!(Rows::location_list(&pane, "", 0, 100), whole.location_list("", 0, 100), "{key}: the list");
        pane.configure(key, "").unwrap_or_else(|_| pane.configure(key, "false").unwrap());
        whole.configure(key, "").unwrap_or_else(|_| whole.configure(key, "false").unwrap());
    }
    // The rows panel's calls: hide, fold, a click on a process header folds it.
    assert!(Rows::set_hidden(&mut pane, 2, true) && !Rows::set_hidden(&mut pane, 2, true));
    assert!(rows(&pane.state()).iter().all(|r| r.0 != 2));
    assert!(Rows::set_folded(&mut pane, 0, true));
    let st = pane.state();
    assert_eq!(st["folded"], "0");
    assert!(Rows::set_folded(&mut pane, 0, false));
    let header_y = weft::scene::timeline::AXIS_PX + 5.0;
    assert!(Rows::rows_click(&mut pane, 20.0, header_y), "a click on the first process's header folds it");
    assert_eq!(pane.state()["folded"], "0");
    assert!(pane.configure("locations", "no such location").is_err(), "no row would be shown");
}

#[test]
fn compute_and_any_in_one_walk_equal_the_two_scanners() {
    // `analyses` reads no trace itself (tests/grains.rs `analyses_use_no_reader`): the oracle lives here.
    let (files, _) = archive(&GenConfig { threads: 2, ..GenConfig::new(3, 20_000) });
    let t = read_archive("traces.otf2", &files).unwrap();
    let mut both = BusyScanner::new(&t, &BusyDefinition::Compute);
    let mut compute = BusyScanner::new(&t, &BusyDefinition::Compute);
    let mut any = BusyScanner::new(&t, &BusyDefinition::Any);
    let (mut c1, mut a1, mut c2, mut a2) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut differ = false;
    for l in 0..t.locations.len() {
        let (r, iv) = (t.location_intervals[l].clone(), &t.intervals);
        let (region, start, dur) = (&iv.region[r.clone()], &iv.start_ns[r.clone()], &iv.dur_ns[r]);
        assert!(both.compute_and_any(region, start, dur, &mut c1, &mut a1));
        compute.location(&t, LocationId(l as u32), &mut c2);
        any.location(&t, LocationId(l as u32), &mut a2);
        assert_eq!((&c1, &a1), (&c2, &a2), "location {l}");
        differ |= c1 != a1;
    }
    assert!(differ, "the trace has communication: compute and any differ");
    let mut glob = BusyScanner::new(&t, &BusyDefinition::Pattern("MPI_*".into()));
    assert!(!glob.compute_and_any(&[], &[], &[], &mut c1, &mut a1), "a pattern leaves regions out");
}

/// The counter tracks of a store: at every zoom, the answer's whole-run figures per series equal the trace's
/// (samples, smallest and largest value), each bin of the pyramid level holds the trace's samples in its
/// time range (count, extremes, last value) and the value in effect before the first bin, and at level 0 the
/// slice holds each series' samples in the window and the last one before it; only the series asked.
#[test]
fn counter_tracks_equal_the_trace_at_every_zoom() {
    let (t, store) = generated(&GenConfig { threads: 2, metrics: 2, ..GenConfig::new(4, 120_000) }, &small_tiles());
    let c = &t.counters;
    let ns = c.series_name.len() as u32;
    assert!(ns >= 8 && c.sample_time_ns.len() > 50_000, "{ns} series, {} samples", c.sample_time_ns.len());
    let m = &store.manifest;
    let index = TileIndex::new(m);
    let skeleton = store.skeleton().unwrap();
    let of = |s: u32| {
        let a = c.sample_series.partition_point(|&x| x < s);
        let b = c.sample_series.partition_point(|&x| x <= s);
        (&c.sample_time_ns[a..b], &c.sample_value[a..b])
    };
    let (mut grids, mut exact) = (0, 0);
    // Also views starting on a window's first ns, where the value in effect is the one carried open.
    let tl = m.tiling;
    let at_windows = (1..tl.windows.min(6)).map(|w| Viewport {
        t0_ns: (w as u64 * tl.window_ns) as f64,
        t1_ns: (w as u64 * tl.window_ns + tl.window_ns / 8) as f64,
        locations: 0..2,
        width_px: 900.0,
        series: 0..0,
    });
    for (k, mut vp) in viewports(&t).into_iter().chain(at_windows).enumerate() {
        // A few series, not block-aligned (blocks of 3 here), and sometimes none.
        vp.series = match k % 4 {
            0 => 0..ns,
            1 => 2..5,
            2 => (ns - 1)..ns,
            _ => 0..0,
        };
        let (answer, counters) =
            weft::store::read::answer::answer_with_counters(&store, &skeleton, &index, &vp).expect("answers");
        assert_eq!(counters.series, vp.series);
        assert_eq!(counters.stats.len(), vp.series.len());
        for s in vp.series.clone() {
            let (times, values) = of(s);
            let st = counters.stats_of(s).unwrap();
            let lo = values.iter().cloned().fold(f64::INFINITY, f64::min);
            let hi = values.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            assert_eq!((st.samples, st.min, st.max), (times.len() as u64, lo, hi), "series {s}");
        }
        match answer {
            weft::store::read::answer::Answer::Grid(g) => {
                grids += 1;
                assert_eq!(counters.level, g.level);
                assert_eq!(counters.first_bin, g.first_bin);
                for s in vp.series.clone() {
                    let (times, values) = of(s);
                    let bins = counters.bins_of(s).unwrap();
                    assert_eq!(bins.count.len(), g.bins());
                    let (a0, _) = counters.bin_time(0, t.span_ns);
                    let before = times.partition_point(|&x| x < a0);
                    assert_eq!(bins.before, before.checked_sub(1).map(|i| values[i]), "series {s} before bin 0");
                    for k in 0..bins.count.len() {
                        let (a, b) = counters.bin_time(k, t.span_ns);
                        let last_bin = counters.first_bin + k as u64 + 1 >= counters.level_bins;
                        let i0 = times.partition_point(|&x| x < a);
                        let i1 = if last_bin { times.len() } else { times.partition_point(|&x| x < b) };
                        assert_eq!(bins.count[k], (i1 - i0) as u64, "series {s} bin {k} of level {}", g.level);
                        if i1 > i0 {
                            let v = &values[i0..i1];
                            assert_eq!(bins.min[k], v.iter().cloned().fold(f64::INFINITY, f64::min));
                            assert_eq!(bins.max[k], v.iter().cloned().fold(f64::NEG_INFINITY, f64::max));
                            assert_eq!(bins.last[k], v[v.len() - 1]);
                        }
                    }
                }
            }
            weft::store::read::answer::Answer::Exact(slice, p) => {
                exact += 1;
                let sc = &slice.counters;
                for s in 0..ns {
                    let (times, values) = of(s);
                    let a = sc.sample_series.partition_point(|&x| x < s);
                    let b = sc.sample_series.partition_point(|&x| x <= s);
                    let got: Vec<(u64, f64)> = (a..b).map(|i| (sc.sample_time_ns[i], sc.sample_value[i])).collect();
                    let want: Vec<(u64, f64)> = if vp.series.contains(&s) {
                        let i0 = times.partition_point(|&x| x < p.t0_ns).saturating_sub(1);
                        let i1 = times.partition_point(|&x| x <= p.t1_ns);
                        (i0..i1).map(|i| (times[i], values[i])).collect()
                    } else {
                        Vec::new()
                    };
                    assert_eq!(got, want, "series {s} in [{}, {}]", p.t0_ns, p.t1_ns);
                }
            }
        }
    }
    assert!(grids > 10 && exact > 10, "{grids} grid and {exact} exact answers");
}

#[test]
fn many_locations_ask_for_fewer_busy_columns() {
    use weft::views::store_moments::{busy_width_px, BUSY_CELLS, MIN_BUSY_COLUMNS};
    // The Gantt chart's half at few locations; within the cells' bound past it, never under the floor.
    assert_eq!(busy_width_px(1280.0, 16), 640.0);
    assert_eq!(busy_width_px(1280.0, 6_250), 640.0);
    assert_eq!(busy_width_px(1280.0, 20_000), 200.0);
    assert!(busy_width_px(1280.0, 20_000) * 20_000.0 <= BUSY_CELLS);
    assert_eq!(busy_width_px(1280.0, 1_000_000), MIN_BUSY_COLUMNS);
    assert_eq!(busy_width_px(0.0, 5), 1.0);
}

/// Issue #58: an exact answer asked with the page's margin (`plan_with_margin`, `views::store::EXACT_MARGIN`)
/// is drawn for pans and zooms inside it without asking the worker again, and draws there what the whole
/// trace does (hover under the pointer); a view outside it, or coarser than the scale it was asked at, is
/// asked for.
#[test]
fn an_exact_answer_held_draws_pans_and_zooms_inside_it_without_asking() {
    use std::rc::Rc;
    use weft::store::read::query::plan_with_margin;
    use weft::views::store::{StorePane, EXACT_MARGIN};
    use weft::views::timeline::TimelinePane;
    use weft::views::Pane;
    let (t, store) = trace_and_store();
    let m = &store.manifest;
    let index = TileIndex::new(m);
    let skeleton = Rc::new(store.skeleton().unwrap());
    let mut pane = StorePane::new(skeleton.clone(), m.locations.lanes.clone().into(), 1000.0, 600.0);
    let mut whole = TimelinePane::new(Rc::new(t.clone()), 1000.0, 600.0);
    let span = m.span_ns as f64;
    let mid = span / 2.0;
    // Zoom in about the middle until the view is answered exactly.
    let mut w = span;
    let (vp, p) = loop {
        w /= 2.0;
        pane.set_time_range(mid - w / 2.0, mid + w / 2.0);
        let vp = pane.request().expect("a new view is asked for");
        let p = plan_with_margin(m, &index, &vp, EXACT_MARGIN);
        if p.resolution == Resolution::Exact {
            break (vp, p);
        }
        assert!(w > 100.0, "never exact");
    };
    // The margin: the answer reaches half a view beyond each side (clamped to the run).
    let exact = plan(m, &index, &vp);
    assert!(
        p.t0_ns < exact.t0_ns && p.t1_ns > exact.t1_ns,
        "{:?} vs {:?}",
        (p.t0_ns, p.t1_ns),
        (exact.t0_ns, exact.t1_ns)
    );
    assert!((p.t1_ns - p.t0_ns) as f64 >= 1.9 * w, "{} ns for a view of {w}", p.t1_ns - p.t0_ns);
    let tiles: Vec<_> = p.tiles.iter().map(|&k| store.events_tile(&m.tiles[k]).unwrap()).collect();
    let slice = exact_trace(&skeleton, &p, &tiles.iter().collect::<Vec<_>>());
    pane.show_exact(slice, p.t0_ns, p.t1_ns, p.locations.clone(), vec![]);
    assert_eq!(pane.request(), None, "the view answered");
    let views = [
        (mid - w / 2.0 + 0.4 * w, mid + w / 2.0 + 0.4 * w, "panned 40 % right"),
        (mid - w / 2.0 - 0.45 * w, mid + w / 2.0 - 0.45 * w, "panned 45 % left"),
        (mid - w / 8.0, mid + w / 8.0, "zoomed in 4x"),
        (mid + w / 3.0, mid + w / 3.0 + w / 64.0, "zoomed in 64x off centre"),
    ];
    for (a, b, what) in views {
        pane.set_time_range(a, b);
        whole.set_time_range(a, b);
        assert_eq!(pane.request(), None, "{what}: drawn from the answer held");
        assert_eq!(pane.shown(), "exact", "{what}");
        // What it draws is the whole trace's: the interval under the pointer, row by row.
        let rows = whole.state()["rows"].as_array().unwrap().clone();
        let mut same = 0;
        for r in rows.iter().take(6) {
            let y = r["y"].as_f64().unwrap() as f32 + 9.0;
            for x in [300.0, 550.0, 800.0] {
                // The same record, its figures and names (a slice numbers its records apart from the trace).
                let record = |h: Option<weft::views::Hover>| {
                    h.map(|h| {
                        let mut d = h.detail;
                        if let Some(o) = d.as_object_mut() {
                            o.retain(|k, _| !(k == "flow" || k == "index" || k.ends_with("interval")));
                        }
                        (h.title, d)
                    })
                };
                let (h, want) = (record(pane.hover(x, y)), record(whole.hover(x, y)));
                assert_eq!(h, want, "{what}: hover at {x}, {y}");
                same += usize::from(h.is_some());
            }
        }
        assert!(same > 0, "{what}: something hovers");
    }
    // Past the margin, or coarser than the scale asked, the worker is asked again.
    pane.set_time_range(mid + 1.2 * w, mid + 2.2 * w);
    assert!(pane.request().is_some(), "panned past the margin");
    pane.set_time_range(mid - w / 2.0, mid + w / 2.0);
    assert_eq!(pane.request(), None, "back inside: the last ask is the answer held");
    pane.set_time_range(mid - 0.9 * w, mid + 0.9 * w);
    assert!(pane.request().is_some(), "zoomed out inside the margin: a coarser scale is asked for");
}

/// Issue #58: the timeline's asks are numbered, and an ask still being answered when the view is drawn again
/// from the exact answer held (panned past the margin, then back inside it) is no longer wanted: its answer,
/// for a view left, would replace the one covering the view, which would then be asked for again. A view
/// asked after that is wanted again. (The page's side: tests/browser/specs/store-asks.test.mjs.)
#[test]
fn an_answer_for_a_view_left_for_the_answer_held_is_not_wanted() {
    use std::rc::Rc;
    use weft::store::read::query::plan_with_margin;
    use weft::views::store::{StorePane, EXACT_MARGIN};
    use weft::views::Pane;
    let (_, store) = trace_and_store();
    let m = &store.manifest;
    let index = TileIndex::new(m);
    let skeleton = Rc::new(store.skeleton().unwrap());
    let mut pane = StorePane::new(skeleton.clone(), m.locations.lanes.clone().into(), 1000.0, 600.0);
    let span = m.span_ns as f64;
    let mid = span / 2.0;
    let mut w = span;
    let p = loop {
        w /= 2.0;
        pane.set_time_range(mid - w / 2.0, mid + w / 2.0);
        let vp = pane.request().expect("a new view is asked for");
        assert!(pane.wants(pane.asks()), "the ask just made is wanted");
        let p = plan_with_margin(m, &index, &vp, EXACT_MARGIN);
        // Exact, with its margin of half a view on each side.
        if p.resolution == Resolution::Exact && (p.t1_ns - p.t0_ns) as f64 >= 1.9 * w {
            break p;
        }
        assert!(w > 100.0, "never exact with its margin");
    };
    let tiles: Vec<_> = p.tiles.iter().map(|&k| store.events_tile(&m.tiles[k]).unwrap()).collect();
    let slice = exact_trace(&skeleton, &p, &tiles.iter().collect::<Vec<_>>());
    pane.show_exact(slice, p.t0_ns, p.t1_ns, p.locations.clone(), vec![]);
    let held = pane.asks();
    assert!(pane.wants(held));
    // Past the margin: asked (ask `left`); back inside before its answer came: drawn from the answer held.
    pane.set_time_range(mid + 1.2 * w, mid + 2.2 * w);
    assert!(pane.request().is_some(), "panned past the margin");
    let left = pane.asks();
    assert_eq!(left, held + 1);
    assert!(pane.wants(left), "its answer is wanted while the view needs it");
    pane.set_time_range(mid - 0.9 * w, mid + 0.1 * w);
    assert_eq!(pane.request(), None, "back inside: drawn from the answer held");
    assert!(!pane.wants(left), "the answer for the view left is not wanted");
    assert_eq!(pane.shown(), "exact");
    // The page dropped it: nothing more is asked while the view stays inside the answer held.
    pane.set_time_range(mid - 0.8 * w, mid + 0.2 * w);
    assert_eq!(pane.request(), None);
    // The view left, asked again, is wanted again.
    pane.set_time_range(mid + 1.2 * w, mid + 2.2 * w);
    assert!(pane.request().is_some(), "the same view asked again (its answer was dropped)");
    assert!(pane.wants(pane.asks()));
    assert_eq!(pane.asks(), left + 1);
}

/// Issue #58 (session 40): the worker answers the timeline's exact ask in two parts, the view's own window
/// first and then the window with its margin. The first part drawn answers the last ask: a move inside it asks
/// nothing and leaves the second part wanted (a first part shown at once, for no ask, does not: the test above);
/// the second part then draws the moves inside its margin.
#[test]
fn the_second_part_of_the_ask_shown_is_still_wanted() {
    use std::rc::Rc;
    use weft::store::read::query::plan_with_margin;
    use weft::views::store::{StorePane, EXACT_MARGIN};
    use weft::views::Pane;
    let (_, store) = trace_and_store();
    let m = &store.manifest;
    let index = TileIndex::new(m);
    let skeleton = Rc::new(store.skeleton().unwrap());
    let mut pane = StorePane::new(skeleton.clone(), m.locations.lanes.clone().into(), 1000.0, 600.0);
    let span = m.span_ns as f64;
    let mid = span / 2.0;
    let mut w = span;
    let (first, second) = loop {
        w /= 2.0;
        pane.set_time_range(mid - w / 2.0, mid + w / 2.0);
        let vp = pane.request().expect("a new view is asked for");
        let (a, b) = (plan(m, &index, &vp), plan_with_margin(m, &index, &vp, EXACT_MARGIN));
        if b.resolution == Resolution::Exact && (b.t1_ns - b.t0_ns) as f64 >= 1.9 * w {
            break (a, b);
        }
        assert!(w > 100.0, "never exact with its margin");
    };
    let ask = pane.asks();
    let receive = |pane: &mut StorePane, p: &weft::store::read::query::Plan| {
        let tiles: Vec<_> = p.tiles.iter().map(|&k| store.events_tile(&m.tiles[k]).unwrap()).collect();
        let slice = exact_trace(&skeleton, p, &tiles.iter().collect::<Vec<_>>());
        pane.receive_exact(weft::model::codec::encode(&slice), p.t0_ns, p.t1_ns, p.locations.clone(), vec![]);
        pane.exact_answers(ask);
        while !pane.step().unwrap() {}
    };
    receive(&mut pane, &first);
    assert_eq!(pane.shown(), "exact");
    // Zoomed in inside the first part: drawn from it, and the second part is still wanted.
    pane.set_time_range(mid - w / 4.0, mid + w / 4.0);
    assert_eq!(pane.request(), None, "inside the first part: drawn from it");
    assert!(pane.wants(ask), "the second part of the ask shown is still wanted");
    // Back at the view asked: drawn from the first part, nothing asked.
    pane.set_time_range(mid - w / 2.0, mid + w / 2.0);
    assert_eq!(pane.request(), None);
    receive(&mut pane, &second);
    let covered = pane.brief()["store"]["covered"].clone();
    assert_eq!((covered["t0_ns"].as_u64(), covered["t1_ns"].as_u64()), (Some(second.t0_ns), Some(second.t1_ns)));
    pane.set_time_range(mid - 0.9 * w, mid + 0.1 * w);
    assert_eq!(pane.request(), None, "inside the margin: drawn from the second part");
    assert_eq!(pane.asks(), ask, "nothing asked since");
}

/// Issue #58: the summary grid answers are kept with the viewports they answer, so a view asked again (the
/// whole run, after zooming in) is drawn from its answer without asking; and a view the answer shown covers
/// under half of (zoomed out of an exact answer) is drawn at once from the finest grid held that covers it,
/// until its own answer comes.
#[test]
fn grids_held_draw_a_view_asked_again_and_views_past_the_answer_shown() {
    use std::rc::Rc;
    use weft::store::read::query::plan_with_margin;
    use weft::views::store::{StorePane, EXACT_MARGIN};
    use weft::views::Pane;
    let (_, store) = trace_and_store();
    let m = &store.manifest;
    let index = TileIndex::new(m);
    let skeleton = Rc::new(store.skeleton().unwrap());
    let lanes: Rc<[u32]> = m.locations.lanes.clone().into();
    // A narrow pane: the view is answered exactly only well inside the run (at 1,000 px a quarter of it
    // is), so zoomed out of it there is room.
    let px = 450.0;
    let mut pane = StorePane::new(skeleton.clone(), lanes.clone(), px, 600.0);
    // The worker's grid answer for a viewport answered from a pyramid level.
    let grid_of = |vp: &Viewport| {
        let p = plan_with_margin(m, &index, vp, EXACT_MARGIN);
        assert_ne!(p.resolution, Resolution::Exact);
        let tiles: Vec<_> = p.tiles.iter().map(|&i| store.summary_tile(&m.tiles[i]).unwrap()).collect();
        summary_grid(m, &p, |i| p.tiles.iter().position(|&j| j == i).map(|k| &tiles[k][..]))
    };
    let whole = pane.request().expect("the first view asks");
    let whole_grid = grid_of(&whole);
    pane.show_grid_for(pane.asks(), whole_grid.clone(), vec![]);
    assert_eq!(pane.request(), None);
    let level = pane.shown();
    assert!(level.starts_with("level"), "{level}");
    // Zoomed in about the middle, each view answered, until one is answered exactly.
    let (span, mid) = (m.span_ns as f64, m.span_ns as f64 / 2.0);
    let mut held = vec![whole_grid.clone()];
    let mut w = span;
    let p = loop {
        w /= 2.0;
        pane.set_time_range(mid - w / 2.0, mid + w / 2.0);
        let vp = pane.request().expect("a new view asks");
        let p = plan_with_margin(m, &index, &vp, EXACT_MARGIN);
        if p.resolution == Resolution::Exact {
            break p;
        }
        let g = grid_of(&vp);
        held.push(g.clone());
        pane.show_grid_for(pane.asks(), g, vec![]);
        assert!(w > 100.0, "never exact");
    };
    let tiles: Vec<_> = p.tiles.iter().map(|&k| store.events_tile(&m.tiles[k]).unwrap()).collect();
    pane.show_exact(
        exact_trace(&skeleton, &p, &tiles.iter().collect::<Vec<_>>()),
        p.t0_ns,
        p.t1_ns,
        p.locations.clone(),
        vec![],
    );
    assert!(pane.brief()["store"]["backdrop"].is_null(), "the exact answer covers the view");
    let exact_scene = pane.scene();

    // Zoomed out to three times the exact answer's window, a view not asked before: asked, and drawn
    // meanwhile from the finest grid held that covers nine tenths of it or more.
    let x = 3.0 * (p.t1_ns - p.t0_ns) as f64;
    assert!(x < span, "room to zoom out: the exact answer reaches {} ns of {span}", p.t1_ns - p.t0_ns);
    let (a, b) = ((mid - x / 2.0).max(0.0), (mid + x / 2.0).min(span));
    pane.set_time_range(a, b);
    assert!(pane.request().is_some(), "a new view asks");
    assert_eq!(pane.shown(), "exact", "the exact answer is still the one held");
    let backdrop = pane.brief()["store"]["backdrop"].as_u64().expect("drawn from a grid held");
    let covers = |g: &&weft::store::read::query::SummaryGrid| {
        let (g0, g1) = (g.bin_time(0, m.span_ns).0 as f64, g.bin_time(g.bins() - 1, m.span_ns).1 as f64);
        (g1.min(b) - g0.max(a)).max(0.0) >= 0.9 * (b - a)
    };
    let finest = held.iter().filter(covers).min_by_key(|g| g.bin_ns).unwrap().clone();
    assert_eq!(backdrop, finest.level as u64);
    let mut drawn = StorePane::new(skeleton.clone(), lanes.clone(), px, 600.0);
    drawn.set_time_range(a, b);
    drawn.show_grid(finest, vec![]);
    let sc = pane.scene();
    assert_eq!(sc, drawn.scene(), "the grid held, drawn at the view");
    assert!(sc.marks() > 0 && sc != exact_scene);

    // Back to the whole run: drawn from its answer, nothing asked.
    pane.fit();
    assert_eq!(pane.request(), None, "the whole run was answered before");
    assert_eq!(pane.shown(), level);
    let mut fresh = StorePane::new(skeleton.clone(), lanes.clone(), px, 600.0);
    fresh.show_grid(whole_grid, vec![]);
    assert_eq!(pane.scene(), fresh.scene());
    assert!(pane.brief()["store"]["backdrop"].is_null());
}
