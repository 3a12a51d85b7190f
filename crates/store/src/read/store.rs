//! Reading a store: the manifest opened and checked, tiles fetched through a [`TileSource`], checked against
//! the manifest (size, content hash, kind, record counts) and decoded. [`Store::skeleton`] is the trace's
//! definitions and warnings without events (enough for `weft info` with the stored totals and counts);
//! [`Store::to_trace`] decodes every level-0 and counter tile back into the exact `Trace` the index was built
//! from; [`Store::moments`] reads the stored accumulators.
//!
//! Every error names the store file. Plain Rust, no files: the page will decode the same tiles.

use crate::counters::{
    decode_counter_summary, decode_counter_tile, series_block_range, tile_bins, CounterBinsTile, CounterTile, SampleRow,
};
use crate::format::columns::{content_hash, frame, unframe_tile, ColumnError};
use crate::format::events::decode_events;
use crate::format::events::{CollectiveRow, EventsTile, MessageRow, TileInterval};
use crate::format::manifest::{Manifest, TileEntry, TileKind, MANIFEST};
use crate::format::moments::decode_moments;
use crate::format::summary::decode_summary;
use crate::pyramid::{Bins, MAX_SUMMARY_LANES};
use crate::{StoreError, TileSource};
use weft_analyses::busy::BusyDefinition;
use weft_analyses::moments::LocationMoments;
use weft_analyses::summary::{summarize_parts, SummaryCounts, TraceSummary};
use weft_model::*;

/// The most a tile may claim to decompress to (a hostile header must not make us allocate more).
const MAX_TILE_RAW: usize = 1 << 30;

pub struct Store<S: TileSource> {
    source: S,
    pub manifest: Manifest,
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
    if id != e.id() && version >= crate::format::columns::IDENTIFIED_VERSION {
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

    /// A block's waits tile (format 6): its waits, by location and start.
    pub fn waits_tile(&self, e: &TileEntry) -> Result<crate::format::waits::WaitsTile, StoreError> {
        let payload = self.payload(e)?;
        let locs = self.manifest.tiling.block_range(e.block, self.nl() as u32);
        let waits =
            crate::format::waits::decode_waits(&payload, locs, &self.manifest).map_err(|c| corrupt(&e.path, c))?;
        if waits.0.len() as u64 != e.records {
            return Err(StoreError::Mismatch {
                file: e.path.clone(),
                detail: format!("{} waits, the manifest says {}", waits.0.len(), e.records),
            });
        }
        Ok(waits)
    }

    /// A path tile's segments (format 7), checked against its entry.
    pub fn path_tile(
        &self,
        e: &TileEntry,
    ) -> Result<Vec<weft_analyses::diagnosis::critical_path::PathSegment>, StoreError> {
        let payload = self.payload(e)?;
        let locs = self.manifest.tiling.block_range(e.block, self.nl() as u32);
        let segments = crate::format::critical_path::decode_path(&payload, locs, &self.manifest)
            .map_err(|c| corrupt(&e.path, c))?;
        if segments.len() as u64 != e.records {
            return Err(StoreError::Mismatch {
                file: e.path.clone(),
                detail: format!("{} segments, the manifest says {}", segments.len(), e.records),
            });
        }
        Ok(segments)
    }

    /// A wait summary tile (format 6): its block's waiting per location and bin of its level's tile,
    /// checked against its entry.
    pub fn wait_bins_tile(&self, e: &TileEntry) -> Result<crate::format::waits::WaitBinsTile, StoreError> {
        let payload = self.payload(e)?;
        let m = &self.manifest;
        let mismatch = |detail: String| StoreError::Mismatch { file: e.path.clone(), detail };
        let locs = m.tiling.block_range(e.block, self.nl() as u32);
        let level =
            m.levels.iter().find(|l| l.level == e.level).ok_or_else(|| mismatch(format!("no level {}", e.level)))?;
        if e.window >= level.tiles || locs.is_empty() {
            return Err(mismatch(format!("no tile {} of block {} at level {}", e.window, e.block, e.level)));
        }
        let bins = crate::counters::tile_bins(level, m.tiling.bins_per_tile as u64, e.window) as u64;
        let tile =
            crate::format::waits::decode_wait_bins(&payload, locs.len(), bins).map_err(|c| corrupt(&e.path, c))?;
        if tile.ns.len() as u64 != e.records {
            return Err(mismatch(format!("{} bins, the manifest says {}", tile.ns.len(), e.records)));
        }
        Ok(tile)
    }

    /// A call-path tile (format 8), checked against its entry: its table and its block's locations' figures.
    pub fn callpaths_tile(&self, e: &TileEntry) -> Result<crate::format::callpaths::CallPathsTile, StoreError> {
        let payload = self.payload(e)?;
        let locs = self.manifest.tiling.block_range(e.block, self.nl() as u32);
        let nregions = self.manifest.regions.name.len();
        let t = crate::format::callpaths::decode_callpaths(&payload, locs.len(), nregions)
            .map_err(|c| corrupt(&e.path, c))?;
        if t.records() != e.records {
            return Err(StoreError::Mismatch {
                file: e.path.clone(),
                detail: format!("{} call-path figures, the manifest says {}", t.records(), e.records),
            });
        }
        Ok(t)
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
            BusyDefinition::Pattern(_) | BusyDefinition::Waiting => return Ok(None),
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
        let mut msg: Slots<MessageRow> = Slots::new(c.messages, bytes, "messages")?;
        let mut coll: Slots<CollectiveRow> = Slots::new(c.collective_rows, bytes, "collective rows")?;
        let mut per_loc: Vec<Vec<TileInterval>> = vec![Vec::new(); nl];
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
                for x in tile.intervals {
                    per_loc[x.location.index()].push(x);
                }
                for x in tile.instants {
                    inst.put(x.index, (x.location, x.region, x.time_ns)).map_err(|d| mismatch(&e.path, d))?;
                }
                for x in tile.messages {
                    msg.put(x.index, x).map_err(|d| mismatch(&e.path, d))?;
                }
                for x in tile.collectives {
                    coll.put(x.index, x).map_err(|d| mismatch(&e.path, d))?;
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
                for x in v {
                    iv.location.push(LocationId(l));
                    iv.region.push(x.region);
                    iv.start_ns.push(x.start_ns);
                    iv.dur_ns.push(x.dur_ns);
                    iv.depth.push(x.depth);
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
        msg.finish()?.iter().for_each(|x| x.push_to(&mut t.messages));
        coll.finish()?.iter().for_each(|x| x.push_to(&mut t.collectives));
        let mut samples: Slots<(u32, u64, f64)> = Slots::new(c.counter_samples, bytes, "counter samples")?;
        for e in m.tiles.iter().filter(|e| e.kind == TileKind::Counters) {
            for SampleRow { index: k, series: s, time_ns: time, value: v } in self.counter_tile(e)?.samples {
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
