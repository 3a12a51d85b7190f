//! Reading a store: the manifest opened and checked, tiles fetched through a [`TileSource`], checked against
//! the manifest (size, content hash, kind, record counts) and decoded. [`Store::skeleton`] is the trace's
//! definitions and warnings without events (enough for `weft info` with the stored totals and counts);
//! [`Store::to_trace`] decodes every level-0 and counter tile back into the exact `Trace` the index was built
//! from; [`Store::moments`] reads the stored accumulators.
//!
//! Every error names the store file. Plain Rust, no files: the page will decode the same tiles.

pub mod answer;
pub mod query;

use crate::analyses::busy::BusyDefinition;
use crate::analyses::moments::{LocationMoments, MomentAccumulator};
use crate::analyses::summary::{summarize_parts, SummaryCounts, TraceSummary};
use crate::model::*;
use crate::store::counters::{
    decode_counter_summary, decode_counter_tile, series_block_range, tile_bins, CounterBinsTile, CounterTile,
};
use crate::store::format::columns::{content_hash, frame, undelta, unframe_tile, ColumnError, ColumnReader};
use crate::store::format::manifest::{Manifest, TileEntry, TileKind, MANIFEST};
use crate::store::pyramid::{Bins, COLUMNS, FULL_COVER, MAX_SUMMARY_LANES};
use crate::store::{StoreError, TileSource};
use std::ops::Range;

/// The most a tile may claim to decompress to (a hostile header must not make us allocate more).
const MAX_TILE_RAW: usize = 1 << 30;

pub struct Store<S: TileSource> {
    source: S,
    pub manifest: Manifest,
}

/// A message as a level-0 tile holds it: (index in the trace's messages, kind, sender, receiver, send, recv,
/// size, tag, name).
pub type MessageRow = (u64, MessageKind, LocationId, LocationId, u64, u64, u64, u32, StringId);
/// A collective row as a level-0 tile holds it: (index in the trace's collective rows, operation, location,
/// region, communicator, root, start, end, sent, received).
pub type CollectiveRow = (u64, u32, LocationId, RegionId, StringId, Option<LocationId>, u64, u64, u64, u64);

/// A decoded level-0 tile (ids global, times from the origin).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EventsTile {
    /// The tile's window, ns from the origin (the last window reaches to `u64::MAX`).
    pub window_ns: Range<u64>,
    /// The intervals started in the window: (location, region, start, duration, depth).
    pub intervals: Vec<(LocationId, RegionId, u64, u64, u16)>,
    /// (index in the trace's instants, location, region, time)
    pub instants: Vec<(u64, LocationId, RegionId, u64)>,
    /// Sent in the window.
    pub messages: Vec<MessageRow>,
    /// Started in the window.
    pub collectives: Vec<CollectiveRow>,
    /// The records of earlier windows still open at the window's start (each is also its start window's own).
    pub open: OpenRecords,
}

/// What a level-0 tile carries from earlier windows: the block's intervals started before the window and
/// ending at or after its start, messages sent before it and received at or after it, collective rows
/// started before it and ending at or after it; by trace index.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OpenRecords {
    /// (index in the trace's intervals, location, region, start, duration, depth)
    pub intervals: Vec<(u64, LocationId, RegionId, u64, u64, u16)>,
    pub messages: Vec<MessageRow>,
    pub collectives: Vec<CollectiveRow>,
}

impl OpenRecords {
    pub fn len(&self) -> usize {
        self.intervals.len() + self.messages.len() + self.collectives.len()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A tile file's bytes checked against its manifest entry `e` in a store of `version`, without decoding
/// them: its size, its content hash (which its name carries: `store::consistency`), its frame's magic,
/// version and codec, and what the frame says the tile is (its kind; from format 5 its level, block and
/// window too), so a tile put in another's place, its hashes updated, is refused. What a reader and
/// `weft merge` check of every tile.
pub fn verify_tile(bytes: &[u8], e: &TileEntry, version: u8) -> Result<(), StoreError> {
    let file = || e.path.clone();
    if bytes.len() as u64 != e.bytes {
        return Err(StoreError::Mismatch {
            file: file(),
            detail: format!("{} bytes, the manifest says {}", bytes.len(), e.bytes),
        });
    }
    let hash = content_hash(bytes);
    if hash != e.hash {
        return Err(StoreError::Mismatch {
            file: file(),
            detail: format!("content hash {hash}, the manifest says {}", e.hash),
        });
    }
    // Tiles carry their store's format version (a format-2 store's tiles say 2).
    let (id, _) = frame(bytes, version).map_err(|c| corrupt(&e.path, c))?;
    if id.kind != e.kind.code() {
        return Err(StoreError::Mismatch {
            file: file(),
            detail: format!("a tile of kind {}, the manifest says {:?}", id.kind, e.kind),
        });
    }
    if id != e.id() && version >= crate::store::format::columns::IDENTIFIED_VERSION {
        return Err(StoreError::Mismatch {
            file: file(),
            detail: format!(
                "the tile of level {}, block {}, window {}; the manifest says level {}, block {}, window {}",
                id.level, id.block, id.window, e.level, e.block, e.window
            ),
        });
    }
    Ok(())
}

impl<S: TileSource> Store<S> {
    /// Open a store: read and check `manifest.json`.
    pub fn open(source: S) -> Result<Self, StoreError> {
        let bytes = match source.read(MANIFEST) {
            Ok(Some(b)) => b,
            Ok(None) => return Err(StoreError::Missing { file: MANIFEST.into() }),
            Err(detail) => return Err(StoreError::Io { file: MANIFEST.into(), detail }),
        };
        let manifest = Manifest::parse(&bytes)?;
        Ok(Store { source, manifest })
    }

    /// Where the store's files come from.
    pub fn source(&self) -> &S {
        &self.source
    }

    /// A tile's payload, after checking its size and hash against the manifest and its frame.
    pub fn payload(&self, e: &TileEntry) -> Result<Vec<u8>, StoreError> {
        let file = e.path.clone();
        let bytes = match self.source.read(&e.path) {
            Ok(Some(b)) => b,
            Ok(None) => return Err(StoreError::Missing { file }),
            Err(detail) => return Err(StoreError::Io { file, detail }),
        };
        let version = self.manifest.version as u8;
        verify_tile(&bytes, e, version)?;
        let (_, payload) = unframe_tile(&bytes, version, MAX_TILE_RAW).map_err(|c| corrupt(&file, c))?;
        Ok(payload)
    }

    fn nl(&self) -> u64 {
        self.manifest.locations.process.len() as u64
    }

    /// Decode a level-0 tile.
    pub fn events_tile(&self, e: &TileEntry) -> Result<EventsTile, StoreError> {
        let payload = self.payload(e)?;
        let file = &e.path;
        let m = &self.manifest;
        let locs = m.tiling.block_range(e.block, self.nl() as u32);
        if locs.is_empty() {
            return Err(StoreError::Mismatch {
                file: file.clone(),
                detail: format!("block {} has no locations", e.block),
            });
        }
        let window = m.tiling.window_span(e.window);
        let tile = decode_events(&payload, locs, window, m).map_err(|c| corrupt(file, c))?;
        if tile.intervals.len() as u64 != e.records {
            return Err(StoreError::Mismatch {
                file: file.clone(),
                detail: format!("{} intervals, the manifest says {}", tile.intervals.len(), e.records),
            });
        }
        Ok(tile)
    }

    /// The trace's definitions, warnings, span and origin, with no events.
    pub fn skeleton(&self) -> Result<Trace, StoreError> {
        let m = &self.manifest;
        let mut strings = StringTable::default();
        for s in &m.strings {
            strings.intern(s);
        }
        if strings.len() != m.strings.len() {
            return Err(StoreError::Corrupt {
                file: MANIFEST.into(),
                detail: "the string table repeats a string".into(),
            });
        }
        let sid = |v: &[u32]| v.iter().map(|&s| StringId(s)).collect::<Vec<_>>();
        let mut warnings = Warnings::default();
        for &(k, n) in &m.warnings.counts {
            warnings.add_count(k, n);
        }
        warnings
            .set_examples(m.warnings.examples.iter().map(|(k, s)| Warning { kind: *k, message: s.clone() }).collect());
        Ok(Trace {
            format: m.source.format,
            strings,
            processes: Processes {
                native_id: m.processes.native_id.clone(),
                name: sid(&m.processes.name),
                sort_key: m.processes.sort_key.clone(),
            },
            locations: Locations {
                process: m.locations.process.iter().map(|&p| ProcessId(p)).collect(),
                native_id: m.locations.native_id.clone(),
                name: sid(&m.locations.name),
                kind: m.locations.kind.clone(),
                sort_key: m.locations.sort_key.clone(),
            },
            regions: Regions {
                name: sid(&m.regions.name),
                category: sid(&m.regions.category),
                paradigm: m.regions.paradigm.clone(),
                role: m.regions.role.clone(),
            },
            intervals: Intervals::default(),
            instants: Instants::default(),
            messages: Messages::default(),
            collectives: Collectives::default(),
            counters: Counters {
                series_name: sid(&m.counter_series.name),
                series_process: m.counter_series.process.iter().map(|&p| ProcessId(p)).collect(),
                ..Counters::default()
            },
            warnings,
            origin_ns: m.origin()?,
            span_ns: m.span_ns,
            location_intervals: vec![0..0; m.locations.process.len()],
            event_records: m.counts.event_records,
        })
    }

    /// `weft info`'s summary from the manifest alone.
    pub fn summary(&self, top: usize) -> Result<TraceSummary, StoreError> {
        let skeleton = self.skeleton()?;
        let c = &self.manifest.counts;
        let counts = SummaryCounts {
            intervals: c.intervals as usize,
            messages: (c.messages - c.flows.min(c.messages)) as usize,
            flows: c.flows as usize,
            collectives: c.collective_operations as usize,
            instants: c.instants as usize,
            events: c.event_records,
        };
        let totals: Vec<(u64, u64)> = self.manifest.region_totals.iter().map(|&[n, ns]| (n, ns)).collect();
        Ok(summarize_parts(&skeleton, &totals, counts, top))
    }

    /// The stored moments of every location for `compute` or `any` (None for a pattern: not stored).
    pub fn moments(&self, definition: &BusyDefinition) -> Result<Option<Vec<LocationMoments>>, StoreError> {
        let which = match definition {
            BusyDefinition::Compute => 0,
            BusyDefinition::Any => 1,
            BusyDefinition::Pattern(_) => return Ok(None),
        };
        let skeleton = self.skeleton()?;
        let mut rows = Vec::with_capacity(self.nl() as usize);
        for b in 0..self.manifest.tiling.blocks {
            let e = self.manifest.tile(TileKind::Moments, 0, b, 0).ok_or_else(|| StoreError::Corrupt {
                file: MANIFEST.into(),
                detail: format!("no moments tile for block {b}"),
            })?;
            let payload = self.payload(e)?;
            let locs = self.manifest.tiling.block_range(b, self.nl() as u32);
            let accs = decode_moments(&payload, locs.len()).map_err(|c| corrupt(&e.path, c))?;
            for (l, pair) in locs.zip(accs) {
                rows.push(LocationMoments::from_accumulator(&skeleton, LocationId(l), &pair[which]));
            }
        }
        Ok(Some(rows))
    }

    /// One summary tile: per location of the block, its bins.
    pub fn summary_tile(&self, e: &TileEntry) -> Result<Vec<Bins>, StoreError> {
        let payload = self.payload(e)?;
        let locs = self.manifest.tiling.block_range(e.block, self.nl() as u32);
        // Format 3 keeps each location's lanes, as many as the manifest says it has (up to the summaries' most).
        let lanes = &self.manifest.locations.lanes;
        let lanes: Option<Vec<Option<u32>>> = (self.manifest.version >= 3)
            .then(|| locs.clone().map(|l| lanes.get(l as usize).map(|&n| n.min(MAX_SUMMARY_LANES as u32))).collect());
        decode_summary(&payload, self.manifest.regions.name.len(), lanes.as_deref(), locs.len())
            .map_err(|c| corrupt(&e.path, c))
    }

    /// A level-0 counter tile: its series block's samples in its window, and (format 4) the value in effect
    /// at the window's start of each series sampled before it.
    pub fn counter_tile(&self, e: &TileEntry) -> Result<CounterTile, StoreError> {
        let payload = self.payload(e)?;
        let m = &self.manifest;
        let ns = m.counter_series.name.len() as u32;
        let v4 = m.version >= 4;
        let series = if v4 { series_block_range(&m.tiling, e.block, ns) } else { 0..ns };
        if series.is_empty() {
            return Err(StoreError::Mismatch {
                file: e.path.clone(),
                detail: format!("series block {} is empty", e.block),
            });
        }
        let tile = decode_counter_tile(&payload, series, m.tiling.window_span(e.window), v4)
            .map_err(|c| corrupt(&e.path, c))?;
        if tile.samples.len() as u64 != e.records {
            return Err(StoreError::Mismatch {
                file: e.path.clone(),
                detail: format!("{} counter samples, the manifest says {}", tile.samples.len(), e.records),
            });
        }
        Ok(tile)
    }

    /// A counter summary tile (format 4): per series of its block, its bins of the tile's level.
    pub fn counter_summary_tile(&self, e: &TileEntry) -> Result<CounterBinsTile, StoreError> {
        let payload = self.payload(e)?;
        let m = &self.manifest;
        let mismatch = |detail: String| StoreError::Mismatch { file: e.path.clone(), detail };
        let series = series_block_range(&m.tiling, e.block, m.counter_series.name.len() as u32);
        let level =
            m.levels.iter().find(|l| l.level == e.level).ok_or_else(|| mismatch(format!("no level {}", e.level)))?;
        if e.window >= level.tiles || series.is_empty() {
            return Err(mismatch(format!("no tile {} of series block {} at level {}", e.window, e.block, e.level)));
        }
        let per = m.tiling.bins_per_tile as u64;
        let nbins = tile_bins(level, per, e.window);
        let tile =
            decode_counter_summary(&payload, series, e.window as u64 * per, nbins).map_err(|c| corrupt(&e.path, c))?;
        let full = tile.series.iter().map(|s| s.count.iter().filter(|&&n| n > 0).count() as u64).sum::<u64>();
        if full != e.records {
            return Err(mismatch(format!("{full} bins with samples, the manifest says {}", e.records)));
        }
        Ok(tile)
    }

    /// The whole trace, decoded from every level-0 and counter tile: equal to the trace the store was built
    /// from, record for record and in the same order. Each record is taken from its start window's tile; the
    /// copies later tiles carry open are not read.
    pub fn to_trace(&self) -> Result<Trace, StoreError> {
        let mut t = self.skeleton()?;
        let m = &self.manifest;
        let c = &m.counts;
        let nl = self.nl() as usize;
        let mismatch = |file: &str, detail: String| StoreError::Mismatch { file: file.to_string(), detail };
        let cap = |n: u64| (n as usize).min(1 << 24);
        let bytes: u64 = m.tiles.iter().map(|e| e.bytes).fold(0, u64::saturating_add);
        let mut inst: Slots<(LocationId, RegionId, u64)> = Slots::new(c.instants, bytes, "instants")?;
        #[allow(clippy::type_complexity)]
        let mut msg: Slots<(MessageKind, LocationId, LocationId, u64, u64, u64, u32, StringId)> =
            Slots::new(c.messages, bytes, "messages")?;
        #[allow(clippy::type_complexity)]
        let mut coll: Slots<(u32, LocationId, RegionId, StringId, Option<LocationId>, u64, u64, u64, u64)> =
            Slots::new(c.collective_rows, bytes, "collective rows")?;
        let mut per_loc: Vec<Vec<(RegionId, u64, u64, u16)>> = vec![Vec::new(); nl];
        let iv = &mut t.intervals;
        iv.location.reserve(cap(c.intervals));
        let mut entries: Vec<&TileEntry> = m.tiles.iter().filter(|e| e.kind == TileKind::Events).collect();
        entries.sort_by_key(|e| (e.block, e.window));
        let mut i = 0;
        while i < entries.len() {
            let block = entries[i].block;
            let locs = m.tiling.block_range(block, nl as u32);
            while i < entries.len() && entries[i].block == block {
                let e = entries[i];
                let tile = self.events_tile(e)?;
                // `tile.open` repeats records of earlier windows: each was put in place from its own tile.
                for (l, r, s, d, depth) in tile.intervals {
                    per_loc[l.index()].push((r, s, d, depth));
                }
                for (k, l, r, time) in tile.instants {
                    inst.put(k, (l, r, time)).map_err(|d| mismatch(&e.path, d))?;
                }
                for (k, kind, s, r, send, recv, size, tag, name) in tile.messages {
                    msg.put(k, (kind, s, r, send, recv, size, tag, name)).map_err(|d| mismatch(&e.path, d))?;
                }
                for (k, op, l, r, comm, root, a, z, sent, recv) in tile.collectives {
                    coll.put(k, (op, l, r, comm, root, a, z, sent, recv)).map_err(|d| mismatch(&e.path, d))?;
                }
                i += 1;
            }
            for l in locs {
                let v = std::mem::take(&mut per_loc[l as usize]);
                if v.len() as u64 != m.locations.intervals[l as usize] {
                    return Err(mismatch(
                        MANIFEST,
                        format!(
                            "location {l} has {} intervals in its tiles, the manifest says {}",
                            v.len(),
                            m.locations.intervals[l as usize]
                        ),
                    ));
                }
                if v.is_empty() {
                    continue; // an empty location keeps the range 0..0, as the builder leaves it
                }
                let start = iv.location.len();
                for (r, s, d, depth) in v {
                    iv.location.push(LocationId(l));
                    iv.region.push(r);
                    iv.start_ns.push(s);
                    iv.dur_ns.push(d);
                    iv.depth.push(depth);
                }
                t.location_intervals[l as usize] = start..iv.location.len();
            }
        }
        if iv.location.len() as u64 != c.intervals {
            return Err(mismatch(
                MANIFEST,
                format!("tiles hold {} intervals, the manifest says {}", iv.location.len(), c.intervals),
            ));
        }
        for (l, r, time) in inst.finish()? {
            t.instants.location.push(l);
            t.instants.region.push(r);
            t.instants.time_ns.push(time);
        }
        for (kind, s, r, send, recv, size, tag, name) in msg.finish()? {
            let x = &mut t.messages;
            x.kind.push(kind);
            x.sender.push(s);
            x.receiver.push(r);
            x.send_ns.push(send);
            x.recv_ns.push(recv);
            x.size_bytes.push(size);
            x.tag.push(tag);
            x.name.push(name);
        }
        for (op, l, r, comm, root, a, z, sent, recv) in coll.finish()? {
            let x = &mut t.collectives;
            x.operation.push(op);
            x.location.push(l);
            x.region.push(r);
            x.communicator.push(comm);
            x.root.push(root);
            x.start_ns.push(a);
            x.end_ns.push(z);
            x.bytes_sent.push(sent);
            x.bytes_received.push(recv);
        }
        let mut samples: Slots<(u32, u64, f64)> = Slots::new(c.counter_samples, bytes, "counter samples")?;
        for e in m.tiles.iter().filter(|e| e.kind == TileKind::Counters) {
            for (k, s, time, v) in self.counter_tile(e)?.samples {
                samples.put(k, (s, time, v)).map_err(|d| mismatch(&e.path, d))?;
            }
        }
        for (s, time, v) in samples.finish()? {
            t.counters.sample_series.push(s);
            t.counters.sample_time_ns.push(time);
            t.counters.sample_value.push(v);
        }
        Ok(t)
    }
}

fn corrupt(file: &str, c: ColumnError) -> StoreError {
    StoreError::Corrupt { file: file.to_string(), detail: c.to_string() }
}

/// Records placed back at their index in the trace's arrays; every slot filled exactly once.
struct Slots<T> {
    v: Vec<Option<T>>,
    what: &'static str,
}

impl<T> Slots<T> {
    /// Room for the `n` records the manifest claims; `tile_bytes` (all tiles' bytes) bounds what they can
    /// hold (LZ4 expands at most 255 times, a record takes at least a byte), so a hostile count is refused.
    fn new(n: u64, tile_bytes: u64, what: &'static str) -> Result<Self, StoreError> {
        let refuse =
            |why: &str| StoreError::Corrupt { file: MANIFEST.into(), detail: format!("claims {n} {what}: {why}") };
        if n > tile_bytes.saturating_mul(255) {
            return Err(refuse("more than its tiles can hold"));
        }
        let mut v = Vec::new();
        v.try_reserve_exact(n as usize).map_err(|_| refuse("more than this machine's memory"))?;
        v.resize_with(n as usize, || None);
        Ok(Slots { v, what })
    }
    fn put(&mut self, k: u64, x: T) -> Result<(), String> {
        let n = self.v.len();
        match self.v.get_mut(k as usize) {
            Some(s @ None) => {
                *s = Some(x);
                Ok(())
            }
            Some(Some(_)) => Err(format!("{} record {k} appears twice", self.what)),
            None => Err(format!("{} record {k} past the manifest's count ({n})", self.what)),
        }
    }
    fn finish(self) -> Result<Vec<T>, StoreError> {
        let n = self.v.len();
        let what = self.what;
        let out: Vec<T> = self.v.into_iter().flatten().collect();
        if out.len() != n {
            return Err(StoreError::Mismatch {
                file: MANIFEST.into(),
                detail: format!("{} of {n} {what} are in no tile", n - out.len()),
            });
        }
        Ok(out)
    }
}

fn col(r: &mut ColumnReader, n: usize) -> Result<Vec<u64>, ColumnError> {
    (0..n).map(|_| r.varint()).collect()
}

fn col_below(r: &mut ColumnReader, n: usize, bound: u64, what: &str) -> Result<Vec<u64>, ColumnError> {
    (0..n).map(|_| r.below(bound, what)).collect()
}

fn decode_events(
    payload: &[u8],
    locs: Range<u32>,
    window: Range<u64>,
    m: &Manifest,
) -> Result<EventsTile, ColumnError> {
    let mut r = ColumnReader::new(payload);
    let nloc = locs.len() as u64;
    let nreg = m.regions.name.len() as u64;
    let mut t = EventsTile { window_ns: window.clone(), ..EventsTile::default() };
    let n = r.count(5)?;
    let loc = col_below(&mut r, n, nloc, "location")?;
    let region = col_below(&mut r, n, nreg, "region")?;
    let start = undelta(&mut r, n)?;
    let dur = col(&mut r, n)?;
    let depth = col_below(&mut r, n, 1 << 16, "depth")?;
    for i in 0..n {
        if start[i].checked_add(dur[i]).is_none() {
            return r.error("interval end out of range");
        }
        t.intervals.push((
            LocationId(locs.start + loc[i] as u32),
            RegionId(region[i] as u32),
            start[i],
            dur[i],
            depth[i] as u16,
        ));
    }
    let n = r.count(4)?;
    let idx = undelta(&mut r, n)?;
    let loc = col_below(&mut r, n, nloc, "location")?;
    let region = col_below(&mut r, n, nreg, "region")?;
    let time = undelta(&mut r, n)?;
    for i in 0..n {
        t.instants.push((idx[i], LocationId(locs.start + loc[i] as u32), RegionId(region[i] as u32), time[i]));
    }
    t.messages = decode_messages(&mut r, m)?;
    t.collectives = decode_collectives(&mut r, m)?;
    // The open section: records started before the window that reach its start (so a view of the window
    // finds them here); anything else is damage.
    let ws = window.start;
    let n = r.count(6)?;
    let idx = undelta(&mut r, n)?;
    let loc = col_below(&mut r, n, nloc, "location")?;
    let region = col_below(&mut r, n, nreg, "region")?;
    let start = undelta(&mut r, n)?;
    let dur = col(&mut r, n)?;
    let depth = col_below(&mut r, n, 1 << 16, "depth")?;
    for i in 0..n {
        if idx[i] >= m.counts.intervals {
            return r.error(format!("open interval {} out of range (there are {})", idx[i], m.counts.intervals));
        }
        if start[i] >= ws || start[i].checked_add(dur[i]).is_none_or(|end| end < ws) {
            return r.error(format!("an interval carried open into the window starting at {ws} ns is not open there"));
        }
        t.open.intervals.push((
            idx[i],
            LocationId(locs.start + loc[i] as u32),
            RegionId(region[i] as u32),
            start[i],
            dur[i],
            depth[i] as u16,
        ));
    }
    t.open.messages = decode_messages(&mut r, m)?;
    if t.open.messages.iter().any(|x| x.4 >= ws || x.5 < ws) {
        return r.error(format!("a message carried open into the window starting at {ws} ns is not in flight there"));
    }
    t.open.collectives = decode_collectives(&mut r, m)?;
    if t.open.collectives.iter().any(|x| x.6 >= ws || x.7 < ws) {
        return r.error(format!("a collective row carried open into the window starting at {ws} ns is not open there"));
    }
    if !r.at_end() {
        return r.error("bytes after the last column");
    }
    Ok(t)
}

/// A column of signed differences from `starts` (a receive after its send, an end after its start).
fn ends_after(r: &mut ColumnReader, starts: &[u64]) -> Result<Vec<u64>, ColumnError> {
    starts.iter().map(|&s| r.signed().and_then(|d| r.add(s, d))).collect()
}

/// A messages section of a level-0 tile (see `build::messages_section`).
fn decode_messages(r: &mut ColumnReader, m: &Manifest) -> Result<Vec<MessageRow>, ColumnError> {
    let nl = m.locations.process.len() as u64;
    let nstr = m.strings.len() as u64;
    let n = r.count(9)?;
    let idx = undelta(r, n)?;
    let kind = col_below(r, n, 2, "message kind")?;
    let sender = col_below(r, n, nl, "sender")?;
    let receiver = col_below(r, n, nl, "receiver")?;
    let send = undelta(r, n)?;
    let recv = ends_after(r, &send)?;
    let size = col(r, n)?;
    let tag = col_below(r, n, 1 << 32, "tag")?;
    let name = col_below(r, n, nstr, "string")?;
    Ok((0..n)
        .map(|i| {
            let k = if kind[i] == 0 { MessageKind::PointToPoint } else { MessageKind::Flow };
            (
                idx[i],
                k,
                LocationId(sender[i] as u32),
                LocationId(receiver[i] as u32),
                send[i],
                recv[i],
                size[i],
                tag[i] as u32,
                StringId(name[i] as u32),
            )
        })
        .collect())
}

/// A collective rows section of a level-0 tile (see `build::collectives_section`).
fn decode_collectives(r: &mut ColumnReader, m: &Manifest) -> Result<Vec<CollectiveRow>, ColumnError> {
    let nl = m.locations.process.len() as u64;
    let nreg = m.regions.name.len() as u64;
    let nstr = m.strings.len() as u64;
    let n = r.count(10)?;
    let idx = undelta(r, n)?;
    let op = col_below(r, n, 1 << 32, "operation")?;
    let loc = col_below(r, n, nl, "location")?;
    let region = col_below(r, n, nreg, "region")?;
    let comm = col_below(r, n, nstr, "string")?;
    let root = col_below(r, n, nl + 1, "root")?;
    let start = undelta(r, n)?;
    let end = ends_after(r, &start)?;
    let sent = col(r, n)?;
    let received = col(r, n)?;
    Ok((0..n)
        .map(|i| {
            (
                idx[i],
                op[i] as u32,
                LocationId(loc[i] as u32),
                RegionId(region[i] as u32),
                StringId(comm[i] as u32),
                (root[i] > 0).then(|| LocationId(root[i] as u32 - 1)),
                start[i],
                end[i],
                sent[i],
                received[i],
            )
        })
        .collect())
}

fn decode_moments(payload: &[u8], nloc: usize) -> Result<Vec<[MomentAccumulator; 2]>, ColumnError> {
    let mut r = ColumnReader::new(payload);
    let n = r.varint()?;
    if n != nloc as u64 {
        return r.error(format!("{n} locations, the block has {nloc}"));
    }
    let mut out = Vec::with_capacity(nloc);
    for _ in 0..nloc {
        let mut one = || -> Result<MomentAccumulator, ColumnError> {
            let reference = r.signed()?;
            let m0 = r.varint()?;
            let f = |v: u64| f64::from_bits(v);
            let (mean, c2, c3) = (f(r.varint()?), f(r.varint()?), f(r.varint()?));
            Ok(MomentAccumulator::from_parts(reference, m0, mean, c2, c3))
        };
        out.push([one()?, one()?]);
    }
    if !r.at_end() {
        return r.error("bytes after the last location");
    }
    Ok(out)
}

/// A summary tile of `nloc` locations; `lanes`: per location the lanes a format-3 tile holds (None where the
/// manifest does not say: at most [`MAX_SUMMARY_LANES`]), None for a format-2 tile (no lanes).
fn decode_summary(
    payload: &[u8],
    nregions: usize,
    lanes: Option<&[Option<u32>]>,
    nloc: usize,
) -> Result<Vec<Bins>, ColumnError> {
    let mut r = ColumnReader::new(payload);
    if r.varint()? != nloc as u64 {
        return r.error("location count differs from the block's");
    }
    let bins = r.count(COLUMNS.len() * nloc.max(1))?;
    let mut out = vec![Bins::zeros(bins); nloc];
    for c in 0..COLUMNS.len() {
        for b in out.iter_mut() {
            for i in 0..bins {
                let v = r.varint()?;
                match c {
                    0 => b.busy_compute_ns[i] = v,
                    1 => b.busy_any_ns[i] = v,
                    2 => {
                        if v > nregions as u64 {
                            return r.error(format!("dominant region {v} out of range"));
                        }
                        b.dominant_region[i] = v as u32
                    }
                    3 => b.dominant_ns[i] = v,
                    4 => b.events[i] = v,
                    5 => b.messages[i] = v,
                    _ => b.message_bytes[i] = v,
                }
            }
        }
    }
    if let Some(expected) = lanes {
        for (b, want) in out.iter_mut().zip(expected) {
            let n = r.varint()?;
            if n > MAX_SUMMARY_LANES as u64 || want.is_some_and(|w| w as u64 != n) {
                return r.error(format!("{n} lanes, the manifest says {}", want.unwrap_or(MAX_SUMMARY_LANES as u32)));
            }
            // At most MAX_SUMMARY_LANES lanes of a tile's bins (checked above): a bounded allocation.
            b.set_lanes(n as u32);
        }
        for b in out.iter_mut() {
            for d in 0..b.lanes as usize {
                let at = d * bins;
                for i in 0..bins {
                    let v = r.varint()?;
                    if v > nregions as u64 {
                        return r.error(format!("lane {d}'s region {v} out of range"));
                    }
                    b.lane_region[at + i] = v as u32;
                }
                for i in 0..bins {
                    let v = r.varint()?;
                    if v > FULL_COVER as u64 {
                        return r.error(format!("lane {d}'s cover {v} out of range"));
                    }
                    b.lane_cover[at + i] = v as u8;
                }
            }
        }
    }
    if !r.at_end() {
        return r.error("bytes after the last column");
    }
    Ok(out)
}
