//! `weft moments FILE [--json] [--busy compute|any|pattern:GLOB] [--pattern GLOB] [--window T0:T1] [--sort KEY]`:
//! moments of utilization per location. The JSON keys (location, name, m0_ns, m1_ns, m2_ns, m3_ns) are stable.

use crate::flags::{checked, help};
use std::path::PathBuf;
use weft::analyses::busy::{BusyDefinition, BusyInterval, BusyIntervals, BusyScanner};
use weft::analyses::moments::{
    format_duration_ns, moments, sort_moments, LocationMoments, MomentAccumulator, TimeWindow,
};
use weft::model::text::escape_controls;
use weft::model::{LocationId, Trace};
use weft::readers::open_path;
use weft::store::read::query::{exact_plan, exact_trace, TileIndex};
use weft::store::{Store, StoreError, TileKind, TileSource};
use weft::views::options::{MomentsOptions, OptionError, ViewOptions};

/// The options that choose what is computed, shared with `weft render moments`. `--busy` and `--sort` are the
/// moments view's options (`weft::views::options::MomentsOptions`): the same values and words as the page.
#[derive(clap::Args, Clone, Debug)]
pub struct Selection {
    #[arg(long, default_value = "compute", value_parser = checked::<MomentsOptions>("busy"), help = help::<MomentsOptions>("busy"))]
    pub busy: String,
    /// Busy = time in regions whose name matches this glob (`*`, `?`); overrides --busy.
    #[arg(long)]
    pub pattern: Option<String>,
    /// Only this time window, `T0:T1` from the trace's first event (units ns, us, ms, s; default ns).
    #[arg(long)]
    pub window: Option<String>,
    #[arg(long, default_value = "location", value_parser = checked::<MomentsOptions>("sort"), help = help::<MomentsOptions>("sort"))]
    pub sort: String,
}

impl Selection {
    /// The view's typed options from the flags (checked by clap already: this repeats the same parse).
    pub fn options(&self) -> Result<MomentsOptions, OptionError> {
        let mut o = MomentsOptions::default();
        o.parse("busy", &self.busy)?;
        o.parse("sort", &self.sort)?;
        if let Some(p) = &self.pattern {
            o.busy = BusyDefinition::Pattern(p.clone());
        }
        Ok(o)
    }

    pub fn window(&self) -> Result<Option<TimeWindow>, weft::analyses::moments::WindowError> {
        self.window.as_deref().map(TimeWindow::parse).transpose()
    }
}

#[derive(clap::Args)]
pub struct Args {
    /// The trace file, or a store folder written by `weft index`.
    file: PathBuf,
    /// Print a JSON list of {location, name, m0_ns, m1_ns, m2_ns, m3_ns} instead of text.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    selection: Selection,
}

/// The moments of a store (weft index) and the trace they are of (its definitions: `Store::skeleton`): the
/// stored moments of the whole run for compute and any; a window's, or a pattern's, from the exact records
/// of the level-0 tiles, one block of locations at a time ([`exact_by_block`]), so memory holds one block's
/// records however long the run. Equal, bit for bit, to `moments` on the trace.
pub fn store_moments<S: TileSource>(
    store: &Store<S>,
    definition: &BusyDefinition,
    window: Option<TimeWindow>,
) -> Result<(Trace, Vec<LocationMoments>), StoreError> {
    let skeleton = store.skeleton()?;
    if window.is_none() {
        if let Some(rows) = store.moments(definition)? {
            return Ok((skeleton, rows));
        }
    }
    let (rows, _) = exact_by_block(store, &skeleton, definition, window, None, CHUNK_RECORDS)?;
    Ok((skeleton, rows))
}

/// Records (intervals started in its windows, from the manifest) a block's decoded slice holds at most before
/// its windows are taken in chunks (about 0.6 GB of decoded records and busy intervals).
pub const CHUNK_RECORDS: u64 = 1 << 24;

/// Per location, its moments from the exact records of the store's level-0 tiles over `window` (the whole
/// run without one), decoded one block of locations at a time and, where a block holds more than
/// `chunk_records` ([`CHUNK_RECORDS`] for the CLI), a chunk of its windows at a time (each chunk's busy time clipped to it, fed to one
/// accumulator per location in time order: bit for bit the trace's figures when the block fits one chunk,
/// equal to rounding otherwise). With `bins` (a count), also each location's busy time in that many equal
/// bins of the window as one interval at each bin's centre (the Gantt chart's picture at a pixel a bin, as
/// `store::query::grid_busy` draws the stored definitions).
pub fn exact_by_block<S: TileSource>(
    store: &Store<S>,
    skeleton: &Trace,
    definition: &BusyDefinition,
    window: Option<TimeWindow>,
    bins: Option<usize>,
    chunk_records: u64,
) -> Result<(Vec<LocationMoments>, Option<BusyIntervals>), StoreError> {
    let m = &store.manifest;
    let tl = &m.tiling;
    let index = TileIndex::new(m);
    let nl = m.locations.process.len() as u32;
    let (t0, t1) = window.map_or((0, m.span_ns), |w| (w.start_ns, w.end_ns));
    let n = bins.unwrap_or(0).max(1);
    let reference = window.map_or(0, |w| w.start_ns as i64);
    let rel = |t: u64| t.min(i64::MAX as u64) as i64;
    // Records per block and window.
    let mut records = vec![vec![0u64; tl.windows as usize]; tl.blocks as usize];
    for e in m.tiles.iter().filter(|e| e.kind == TileKind::Events) {
        if let Some(r) = records.get_mut(e.block as usize).and_then(|b| b.get_mut(e.window as usize)) {
            *r += e.records;
        }
    }
    let mut rows = Vec::with_capacity(nl as usize);
    let (mut ranges, mut spans): (Vec<[u64; 2]>, Vec<[u64; 2]>) = (Vec::new(), Vec::new());
    let mut scratch = Vec::new();
    for b in 0..tl.blocks {
        let locations = tl.block_range(b, nl);
        let k = locations.len();
        let mut accs = vec![MomentAccumulator::new(reference); k];
        let mut busy = vec![vec![0u64; if bins.is_some() { n } else { 0 }]; k];
        let chunks = chunks(&records[b as usize], tl, t0, t1, chunk_records);
        let whole = chunks.len() == 1;
        for (ca, cb) in chunks {
            let plan = exact_plan(m, &index, ca, cb, locations.clone());
            let tiles = plan.tiles.iter().map(|&i| store.events_tile(&m.tiles[i])).collect::<Result<Vec<_>, _>>()?;
            let slice = exact_trace(skeleton, &plan, &tiles.iter().collect::<Vec<_>>());
            drop(tiles);
            // One chunk: clipped to the window only (as `moments` on the trace does); several: to the chunk.
            let clip = if whole { window } else { Some(TimeWindow { start_ns: ca, end_ns: cb }) };
            let mut scanner = BusyScanner::new(&slice, definition);
            for (j, l) in locations.clone().map(LocationId).enumerate() {
                scanner.location(&slice, l, &mut scratch);
                for s in &scratch {
                    let Some(c) = clip.map_or(Some(*s), |w| w.clip(*s)) else { continue };
                    accs[j].add_interval(rel(c.start_ns), rel(c.end_ns));
                    if bins.is_some() {
                        add_binned(c, t0, t1.max(t0 + 1), &mut busy[j]);
                    }
                }
            }
        }
        for (j, l) in locations.map(LocationId).enumerate() {
            rows.push(LocationMoments::from_accumulator(skeleton, l, &accs[j]));
            if bins.is_some() {
                let first = spans.len() as u64;
                binned_intervals(&busy[j], t0, t1.max(t0 + 1), &mut spans);
                ranges.push([first, spans.len() as u64]);
            }
        }
    }
    let busy = bins.map(|_| {
        BusyIntervals::from_columns(definition.clone(), &ranges, &spans).expect("ranges built here are in range")
    });
    Ok((rows, busy))
}

/// [t0, t1) cut at window edges into chunks of at most `most` records (a window more than that
/// is a chunk of its own); one chunk `(t0, t1)` when they fit.
fn chunks(records: &[u64], tl: &weft::store::format::manifest::Tiling, t0: u64, t1: u64, most: u64) -> Vec<(u64, u64)> {
    if tl.windows == 0 {
        return vec![(t0, t1)];
    }
    let (w0, w1) = (tl.window_of(t0), tl.window_of(t1));
    let mut out = Vec::new();
    let (mut start, mut held) = (t0, 0u64);
    for w in w0..=w1 {
        let r = records.get(w as usize).copied().unwrap_or(0);
        if held > 0 && held + r > most {
            let edge = tl.window_span(w).start.clamp(start, t1);
            if edge > start {
                out.push((start, edge));
                start = edge;
            }
            held = 0;
        }
        held += r;
    }
    out.push((start, t1));
    out
}

/// Add the busy time of `span` to `busy`'s equal bins of [t0, t1).
fn add_binned(span: BusyInterval, t0: u64, t1: u64, busy: &mut [u64]) {
    let n = busy.len();
    let width = (t1 - t0).div_ceil(n as u64).max(1);
    let (mut a, e) = (span.start_ns.max(t0), span.end_ns.min(t1));
    while a < e {
        let k = (((a - t0) / width) as usize).min(n - 1);
        let stop = if k == n - 1 { e } else { e.min(t0 + (k as u64 + 1) * width) };
        busy[k] += stop - a;
        a = stop;
    }
}

/// Each bin's busy time as one interval at its centre, touching ones joined, appended to `out`.
fn binned_intervals(busy: &[u64], t0: u64, t1: u64, out: &mut Vec<[u64; 2]>) {
    let width = (t1 - t0).div_ceil(busy.len().max(1) as u64).max(1);
    let first = out.len();
    for (k, &ns) in busy.iter().enumerate() {
        let (a, b) = (t0 + k as u64 * width, (t0 + (k as u64 + 1) * width).min(t1));
        let ns = ns.min(b.saturating_sub(a));
        if ns > 0 {
            let s = a + (b - a - ns) / 2;
            let mine = out.len() > first;
            match out.last_mut() {
                Some(last) if mine && last[1] >= s => last[1] = s + ns,
                _ => out.push([s, s + ns]),
            }
        }
    }
}

/// Why `--busy waiting` is refused on a store: the wait states are the trace's (its messages and collectives
/// matched whole), which a store's tiles do not keep yet.
pub fn waiting_on_store(path: &std::path::Path) -> String {
    format!(
        "{}: busy = waiting needs the trace itself (a store keeps no wait states): weft moments --busy waiting TRACE",
        path.display()
    )
}

pub fn run(a: Args) -> Result<(), Box<dyn std::error::Error>> {
    let window = a.selection.window()?;
    let options = a.selection.options()?;
    let definition = options.busy;
    let (trace, mut rows) = match crate::folders::open_store(&a.file) {
        Some(_) if definition == BusyDefinition::Waiting => return Err(waiting_on_store(&a.file).into()),
        Some(store) => {
            let e = |e| crate::folders::store_error(&a.file, e);
            store_moments(&store.map_err(e)?, &definition, window).map_err(e)?
        }
        None => {
            let trace = open_path(&a.file)?.into_trace(&a.file.display().to_string())?;
            let rows = moments(&trace, &definition, window);
            (trace, rows)
        }
    };
    sort_moments(&mut rows, options.sort);
    if a.json {
        println!("{}", crate::json_text(&rows)?);
        return Ok(());
    }
    let span = window.unwrap_or(TimeWindow::whole(&trace));
    println!("file        {}", escape_controls(&a.file.display().to_string()));
    println!("definition  {}", escape_controls(&definition.describe()));
    println!(
        "span        {} .. {} from the first event{}",
        format_duration_ns(span.start_ns as f64),
        format_duration_ns(span.end_ns as f64),
        if window.is_some() { " (window)" } else { "" }
    );
    println!("sorted by   {}", options.sort.name());
    println!();
    println!("{:>8}  {:>12}  {:>12}  {:>12}  {:>12}  name", "location", "m0", "m1", "m2", "m3");
    for m in &rows {
        if m.is_idle() {
            println!(
                "{:>8}  {:>12}  {:>12}  {:>12}  {:>12}  {}",
                m.location,
                "0 ns",
                "-",
                "-",
                "-",
                escape_controls(&m.name)
            );
            continue;
        }
        println!(
            "{:>8}  {:>12}  {:>12}  {:>12}  {:>12}  {}",
            m.location,
            format_duration_ns(m.m0_ns as f64),
            format_duration_ns(m.m1_ns),
            format_duration_ns(m.m2_ns),
            format_duration_ns(m.m3_ns),
            escape_controls(&m.name)
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft::index::{build, BuildOptions};
    use weft::readers::otf2::read_archive;
    use weft::samples::otf2_gen::{archive, GenConfig};

    #[test]
    fn moments_by_block_and_chunk_equal_the_trace_s() {
        let cfg = GenConfig { threads: 2, ..GenConfig::new(3, 60_000) };
        let t = read_archive("traces.otf2", &archive(&cfg).0).unwrap();
        let o = BuildOptions { block_locations: 4, tile_intervals: 2_000, ..BuildOptions::default() };
        let store = Store::open(build(&t, &o).to_memory()).unwrap();
        assert!(store.manifest.tiling.blocks > 1 && store.manifest.tiling.windows > 4);
        let skeleton = store.skeleton().unwrap();
        let w = TimeWindow { start_ns: t.span_ns / 5, end_ns: t.span_ns * 4 / 5 };
        for def in [BusyDefinition::Pattern("MPI_*".into()), BusyDefinition::Compute] {
            for window in [None, Some(w)] {
                let want = moments(&t, &def, window);
                // Whole blocks: bit for bit.
                let (rows, _) = exact_by_block(&store, &skeleton, &def, window, None, u64::MAX).unwrap();
                assert_eq!(rows, want, "{def:?} {window:?}");
                // Chunks of a few windows: the same busy time, moments equal to rounding.
                let (rows, busy) = exact_by_block(&store, &skeleton, &def, window, Some(300), 3_000).unwrap();
                for (a, b) in rows.iter().zip(&want) {
                    assert_eq!((a.location, a.m0_ns), (b.location, b.m0_ns), "{def:?} {window:?}");
                    for (x, y) in [(a.m1_ns, b.m1_ns), (a.m2_ns, b.m2_ns), (a.m3_ns, b.m3_ns)] {
                        assert!((x - y).abs() <= 1e-9 * y.abs().max(1.0), "{x} vs {y}: {def:?} {window:?}");
                    }
                }
                let busy = busy.unwrap();
                for (l, row) in want.iter().enumerate() {
                    let drawn: u64 = busy.of(LocationId(l as u32)).iter().map(|s| s.end_ns - s.start_ns).sum();
                    assert_eq!(drawn, row.m0_ns, "the chart's busy time of location {l}");
                }
            }
        }
        let tl = &store.manifest.tiling;
        // The chunked runs above did cut block 0 into chunks.
        let mut real = vec![0u64; tl.windows as usize];
        for e in store.manifest.tiles.iter().filter(|e| e.kind == TileKind::Events && e.block == 0) {
            real[e.window as usize] += e.records;
        }
        assert!(chunks(&real, tl, 0, t.span_ns, 3_000).len() > 2, "{real:?}");
        let records = vec![1_000u64; tl.windows as usize];
        let c = chunks(&records, tl, 0, t.span_ns, 3_000);
        assert!(c.len() > 1 && c[0].0 == 0 && c.last().unwrap().1 == t.span_ns);
        assert!(c.windows(2).all(|p| p[0].1 == p[1].0 && p[0].0 < p[0].1));
    }

    #[test]
    fn binned_busy_keeps_each_bin_s_time_at_its_centre() {
        let spans = [
            BusyInterval { start_ns: 0, end_ns: 15 },
            BusyInterval { start_ns: 20, end_ns: 25 },
            BusyInterval { start_ns: 38, end_ns: 60 },
        ];
        let mut out = vec![[7, 8]]; // another location's: never joined
        let mut busy = vec![0; 4];
        spans.iter().for_each(|&s| add_binned(s, 5, 45, &mut busy));
        binned_intervals(&busy, 5, 45, &mut out);
        // Bins of 10 from 5: [5,15) 10 busy, [15,25) 5, [25,35) 0, [35,45) 7.
        assert_eq!(out, vec![[7, 8], [5, 15], [17, 22], [36, 43]]);
        let total: u64 = out[1..].iter().map(|s| s[1] - s[0]).sum();
        assert_eq!(total, 10 + 5 + 7);
        // Full bins that touch join into one interval.
        let (mut out, mut busy) = (Vec::new(), vec![0; 10]);
        add_binned(BusyInterval { start_ns: 0, end_ns: 100 }, 0, 100, &mut busy);
        binned_intervals(&busy, 0, 100, &mut out);
        assert_eq!(out, vec![[0, 100]]);
    }
}
