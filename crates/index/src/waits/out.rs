//! The wait-state step's last pass: the waits, read in order (by location, start, pattern, call) beside
//! their root causes' parts (by wait), written as they come: one waits tile per block
//! (`store::format::waits::WaitsWriter`), the block's waiting per pyramid bin ([`BlockBins`]), the
//! manifest's sums ([`WaitSums`], [`CauseSums`]); and the critical path walked through them (paged as
//! [`PathRow`]s where the waits were spilled). Holds one block's waits tile and bins, and sums per location,
//! region and root-cause row: nothing per wait.

use super::rows::{Part, PathRow};
use super::{PutTile, Sorted};
use crate::spill::sorted::{PagedWriter, Room};
use std::collections::BTreeMap;
use weft_analyses::diagnosis::critical_path::{walk_by, CriticalPath, PathWait};
use weft_store::format::manifest::{Manifest, TileEntry, TileKind};
use weft_store::format::tile::tile;
use weft_store::format::waits::{costs, WaitRecord, WaitSummary, WaitsWriter, PATTERN_KEYS};

/// The manifest's sums of waits given in order: per pattern, per (pattern, location), per (pattern, region).
struct WaitSums {
    patterns: Vec<[u64; 2]>,
    per_location: BTreeMap<(u64, u64), [u64; 2]>,
    by_region: BTreeMap<(u64, u64), u64>,
}

impl WaitSums {
    fn new() -> WaitSums {
        WaitSums {
            patterns: vec![[0u64; 2]; PATTERN_KEYS.len()],
            per_location: BTreeMap::new(),
            by_region: BTreeMap::new(),
        }
    }

    fn add(&mut self, w: &WaitRecord) {
        let (p, ns) = (w.pattern as usize, w.end_ns - w.start_ns);
        self.patterns[p][0] += ns;
        self.patterns[p][1] += 1;
        let e = self.per_location.entry((p as u64, w.location as u64)).or_default();
        e[0] += ns;
        e[1] += 1;
        *self.by_region.entry((p as u64, w.region as u64)).or_default() += ns;
    }

    fn finish(self) -> WaitSummary {
        WaitSummary {
            patterns: self.patterns,
            per_location: self.per_location.into_iter().map(|((p, l), [ns, n])| [p, l, ns, n]).collect(),
            by_region: self.by_region.into_iter().map(|((p, r), ns)| [p, r, ns]).collect(),
            root_causes: Vec::new(),
            spans: Vec::new(),
        }
    }
}

/// The manifest's sums of `waits` (sorted by location).
pub fn summary(waits: &[WaitRecord]) -> WaitSummary {
    let mut s = WaitSums::new();
    waits.iter().for_each(|w| s.add(w));
    s.finish()
}

/// The root causes of waits (each wait's whole time shared by its delays: `costs`) summed per (pattern,
/// waiting, causing, name).
#[derive(Default)]
struct CauseSums {
    sums: BTreeMap<(u8, u32, u32, u32), u64>,
}

impl CauseSums {
    fn add(&mut self, m: &Manifest, w: &WaitRecord, list: &[(u32, u64)]) {
        let name = |n: u32| m.strings.get(n as usize).map_or("", String::as_str);
        for (n, ns) in costs(list, w.end_ns - w.start_ns, name) {
            *self.sums.entry((w.pattern, w.location, w.cause.unwrap_or(0), n)).or_default() += ns;
        }
    }

    /// As `[pattern, waiting, causing, name, ns]` sorted as `weft waits` lists them (ns descending, then the
    /// pattern's key, the locations, the name).
    fn finish(self, m: &Manifest) -> Vec<[u64; 5]> {
        let name = |n: u32| m.strings.get(n as usize).map_or("", String::as_str);
        let mut out: Vec<[u64; 5]> =
            self.sums.into_iter().map(|((p, w, c, n), ns)| [p as u64, w as u64, c as u64, n as u64, ns]).collect();
        out.sort_by(|x, y| {
            y[4].cmp(&x[4])
                .then_with(|| PATTERN_KEYS[x[0] as usize].cmp(PATTERN_KEYS[y[0] as usize]))
                .then_with(|| x[1].cmp(&y[1]))
                .then_with(|| x[2].cmp(&y[2]))
                .then_with(|| name(x[3] as u32).cmp(name(y[3] as u32)))
        });
        out
    }
}

/// The root causes of waits summed per (pattern, waiting, causing, name), as `[pattern, waiting, causing,
/// name, ns]` sorted as `weft waits` lists them ([`CauseSums`]).
pub fn sum_causes(m: &Manifest, waits: &[WaitRecord], causes: &[Vec<(u32, u64)>]) -> Vec<[u64; 5]> {
    let mut s = CauseSums::default();
    for (w, list) in waits.iter().zip(causes) {
        s.add(m, w, list);
    }
    s.finish(m)
}

/// A block's waiting per location and bin at every pyramid level, as the summary tiles cut them (tile J of
/// level L its bins `J*256 ..`): the tiles holding any waiting, filled a wait at a time.
struct BlockBins {
    first: u32,
    nloc: usize,
    /// Per level: tile -> nloc x bins_per_tile.
    levels: Vec<BTreeMap<u64, Vec<u64>>>,
}

impl BlockBins {
    fn new(m: &Manifest, locs: &std::ops::Range<u32>) -> BlockBins {
        BlockBins { first: locs.start, nloc: locs.len(), levels: m.levels.iter().map(|_| BTreeMap::new()).collect() }
    }

    fn add(&mut self, m: &Manifest, w: &WaitRecord) {
        let per = m.tiling.bins_per_tile as u64;
        let k = (w.location - self.first) as usize;
        for (lv, tiles) in m.levels.iter().zip(&mut self.levels) {
            let last = lv.bins - 1;
            let (b0, b1) = ((w.start_ns / lv.bin_ns).min(last), ((w.end_ns - 1) / lv.bin_ns).min(last));
            for bin in b0..=b1 {
                let lo = (bin * lv.bin_ns).max(w.start_ns);
                let hi = if bin == last { w.end_ns } else { ((bin + 1) * lv.bin_ns).min(w.end_ns) };
                let ns = hi.saturating_sub(lo);
                if ns == 0 {
                    continue;
                }
                let v = tiles.entry(bin / per).or_insert_with(|| vec![0; self.nloc * per as usize]);
                v[k * per as usize + (bin % per) as usize] += ns;
            }
        }
    }

    fn finish(self, m: &Manifest, b: u32) -> Vec<(TileEntry, Vec<u8>)> {
        let per = m.tiling.bins_per_tile as u64;
        let nloc = self.nloc;
        let mut out = Vec::new();
        for (lv, tiles) in m.levels.iter().zip(self.levels) {
            for (j, bins) in tiles {
                let n = per.min(lv.bins - j * per) as usize;
                let mut c = weft_store::format::columns::ColumnWriter::default();
                c.varint(nloc as u64);
                c.varint(n as u64);
                for k in 0..nloc {
                    for v in &bins[k * per as usize..k * per as usize + n] {
                        c.varint(*v);
                    }
                }
                out.push(tile(TileKind::WaitSummary, lv.level, b, j as u32, (nloc * n) as u64, c));
            }
        }
        out
    }
}

/// A block's waits being written.
struct BlockOut {
    b: u32,
    end: u32,
    tile: WaitsWriter,
    bins: BlockBins,
}

impl BlockOut {
    fn finish(self, m: &Manifest, put: &mut PutTile, entries: &mut Vec<TileEntry>) -> Result<(), String> {
        if self.tile.is_empty() {
            return Ok(());
        }
        let (e, bytes) = tile(TileKind::Waits, 0, self.b, 0, self.tile.len(), self.tile.finish());
        put(&e.path, &bytes)?;
        entries.push(e);
        for (e, bytes) in self.bins.finish(m, self.b) {
            put(&e.path, &bytes)?;
            entries.push(e);
        }
        Ok(())
    }
}

/// The waits tiles and wait summary tiles of `waits` (with their root causes from `parts`) through `put`,
/// listed in `m`, and the manifest's `waits` set (each location's `spans`); the critical path through them,
/// from the location of the run's latest event (`latest`).
pub(super) fn write(
    m: &mut Manifest,
    waits: &Sorted<WaitRecord>,
    parts: &Sorted<Part>,
    spans: Vec<Option<[u64; 2]>>,
    latest: &[Option<u64>],
    mut put: PutTile,
    room: &mut Room,
) -> Result<CriticalPath, String> {
    let t = m.tiling;
    let nl = m.locations.process.len() as u32;
    let mut entries = Vec::new();
    let (mut sums, mut causes) = (WaitSums::new(), CauseSums::default());
    // The walk's view of the waits: held where the waits were (they fit a share), else paged.
    let mut rows = PagedWriter::<PathRow>::new(matches!(waits, Sorted::Held(_)), room);
    // Per location, its rows' range.
    let mut ranges: Vec<(usize, usize)> = vec![(0, 0); nl as usize];
    let mut best: (u32, u64, u64) = (u32::MAX, 0, 0);
    let mut row = 0usize;
    let mut block: Option<BlockOut> = None;
    let (mut wr, mut pr) = (waits.reader(), parts.reader());
    let mut next_part: Option<Part> = None;
    let mut list: Vec<(u32, i64)> = Vec::new();
    let mut k = 0u64;
    while let Some(w) = wr.next(&*room.spill)? {
        // Its root causes: its parts summed per name, where positive.
        list.clear();
        loop {
            if next_part.is_none() {
                next_part = pr.next(&*room.spill)?;
            }
            match next_part {
                Some(p) if p.wait == k => {
                    match list.last_mut() {
                        Some(x) if x.0 == p.name => x.1 += p.ns,
                        _ => list.push((p.name, p.ns)),
                    }
                    next_part = None;
                }
                Some(p) if p.wait < k => return Err(format!("wait {}: root causes out of order (waits)", p.wait)),
                _ => break,
            }
        }
        let list: Vec<(u32, u64)> = list.iter().filter(|x| x.1 > 0).map(|&(n, d)| (n, d as u64)).collect();
        k += 1;
        if w.location >= nl {
            return Err(format!("a wait on location {} of {nl} (waits)", w.location));
        }
        if block.as_ref().is_none_or(|o| w.location >= o.end) {
            if let Some(o) = block.take() {
                o.finish(m, &mut put, &mut entries)?;
            }
            let b = t.block_of(w.location);
            let locs = t.block_range(b, nl);
            block =
                Some(BlockOut { b, end: locs.end, tile: WaitsWriter::new(locs.start), bins: BlockBins::new(m, &locs) });
        }
        let o = block.as_mut().expect("a block");
        o.tile.push(&w, &list);
        o.bins.add(m, &w);
        sums.add(&w);
        causes.add(m, &w, &list);
        if w.end_ns > w.start_ns {
            // The latest end so far on its location (the first to reach it), as the walk reads it.
            if best.0 != w.location {
                best = (w.location, w.end_ns, row as u64);
                ranges[w.location as usize].0 = row;
            } else if w.end_ns > best.1 {
                best = (w.location, w.end_ns, row as u64);
            }
            let r = PathRow {
                location: w.location,
                start: w.start_ns,
                end: w.end_ns,
                cause: w.cause,
                cause_ns: w.cause_ns,
                max_end: best.1,
                max_at: best.2,
            };
            rows.push(r, room)?;
            row += 1;
            ranges[w.location as usize].1 = row;
        }
    }
    if let Some(p) = next_part.or(pr.next(&*room.spill)?) {
        return Err(format!("wait {}: root causes of no wait (waits)", p.wait));
    }
    if let Some(o) = block.take() {
        o.finish(m, &mut put, &mut entries)?;
    }
    m.tiles.extend(entries);
    let mut sum = sums.finish();
    sum.root_causes = causes.finish(m);
    sum.spans = spans.into_iter().map(|s| s.unwrap_or([0, 0])).collect();
    m.waits = Some(sum);
    // The critical path: on each location, the wait the walk meets first going back from `t`.
    let mut rows = rows.finish(room)?;
    let spill = &*room.spill;
    let view = |r: PathRow| PathWait {
        location: r.location,
        start_ns: r.start,
        end_ns: r.end,
        cause_location: r.cause,
        cause_ns: r.cause_ns,
    };
    let last = crate::critical_path::last_location(latest);
    walk_by(nl as usize, last, m.span_ns, |l, t| {
        let Some(&(lo, hi)) = ranges.get(l as usize) else { return Ok(None) };
        let k = rows.partition_point(lo, hi, spill, |r| r.start < t)?;
        if k == lo {
            return Ok(None);
        }
        let r = rows.get(k - 1, spill)?;
        if r.max_end < t {
            let at = r.max_at as usize;
            return Ok(Some((at, view(rows.get(at, spill)?))));
        }
        // Some wait that starts before t is still waiting at t: the latest-starting such.
        for j in (lo..k).rev() {
            let r = rows.get(j, spill)?;
            if r.end >= t {
                return Ok(Some((j, view(r))));
            }
        }
        Ok(None)
    })
}
