//! `manifest.json`, the one file a store is opened by: format name and version, the trace's definitions
//! (strings, processes, locations, regions, counter series), span, counts, the reader's warnings, per-region
//! totals, the tiling (location blocks x time windows), the pyramid levels and every tile with its size and
//! content hash. Parsing checks the format and version first, then that the lists agree with each other.
//!
//! Plain Rust (serde), no files: the page parses the same bytes.

use crate::StoreError;
use serde::{Deserialize, Serialize};
use weft_model::{Format, LocationKind, Paradigm, RegionRole, WarningKind};

pub const FORMAT_NAME: &str = "weft-store";
/// The store format version this weft writes. Stores from [`OLDEST_READ_VERSION`] on are read too (format 2
/// is format 3 without the summaries' lanes, format 4 is format 5 without the tiles' identity in their
/// frames, format 5 is format 6 without the wait states, format 7 is format 8 without the call-path tiles,
/// whose call trees are read from the level-0 tiles); a store of another version is refused by name.
pub const FORMAT_VERSION: u32 = 8;
/// The first store format with the wait states (the manifest's `waits`, the waits tiles).
pub const WAITS_VERSION: u32 = 6;
/// The first store format with the critical path (the manifest's `critical_path`, the path tiles).
pub const CRITICAL_PATH_VERSION: u32 = 7;
/// The oldest store format this weft reads (a part for `weft merge` must be of [`FORMAT_VERSION`]).
pub const OLDEST_READ_VERSION: u32 = 2;
pub const MANIFEST: &str = "manifest.json";

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub format: String,
    pub version: u32,
    /// What was indexed: the input's name as given and the reader's format.
    pub source: Source,
    /// The trace's first event in the source's clock (ns), as a decimal string (beyond 2^53: not a JS number).
    pub origin_ns: String,
    /// Last event end, relative to the origin (ns).
    pub span_ns: u64,
    pub counts: Counts,
    pub strings: Vec<String>,
    pub processes: Processes,
    pub locations: Locations,
    pub regions: Regions,
    pub counter_series: CounterSeries,
    pub warnings: WarningList,
    /// Per region: (intervals, inclusive ns with recursion counted once), as `weft info` ranks them.
    pub region_totals: Vec<[u64; 2]>,
    pub tiling: Tiling,
    pub levels: Vec<Level>,
    pub tiles: Vec<TileEntry>,
    /// The particle view's events as a whole (what its particle tiles hold, Paraver's communication states
    /// left out when the trace has calls), so a slice of them is laid out as the whole trace's view is.
    /// Absent in a store without such events (and in stores written before it was kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub particles: Option<ParticleStats>,
    /// The wait states summed (format 6 on, with the waits tiles; absent in a store built before them and in
    /// a part, whose waits the merge computes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waits: Option<crate::format::waits::WaitSummary>,
    /// The critical path summed (format 7 on, with `--waits` and the path tiles; absent before, without
    /// `--waits`, and in a part).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub critical_path: Option<crate::format::critical_path::PathSummary>,
}

/// The extent of the particle view's events (`analyses::particles::EventExtent`) and their number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParticleStats {
    pub events: u64,
    /// The first event's start, ns from the origin (where playback begins).
    pub first_ns: u64,
    /// Shortest positive duration (1 if none), longest duration (at least that), latest end (ns from origin).
    pub min_dur_ns: u64,
    pub max_dur_ns: u64,
    pub span_ns: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Source {
    pub name: String,
    pub format: Format,
}

/// Record counts of the whole trace (what `weft info` prints; tiles must add up to them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    /// Event records the reader decoded.
    pub event_records: u64,
    pub intervals: u64,
    pub instants: u64,
    /// Messages and flows.
    pub messages: u64,
    pub flows: u64,
    /// Collective rows (one per participating location) and distinct operations.
    pub collective_rows: u64,
    pub collective_operations: u64,
    pub counter_samples: u64,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Processes {
    pub native_id: Vec<i64>,
    pub name: Vec<u32>,
    pub sort_key: Vec<i64>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Locations {
    pub process: Vec<u32>,
    pub native_id: Vec<i64>,
    pub name: Vec<u32>,
    pub kind: Vec<LocationKind>,
    pub sort_key: Vec<i64>,
    /// Intervals of each location (the level-0 tiles of its block add up to it).
    pub intervals: Vec<u64>,
    /// Lanes of each location's timeline row: its deepest interval's depth + 1, 0 without intervals; so a
    /// row keeps one height whichever window of it is drawn. Absent in stores written before it was kept
    /// (rows then follow the depths of the slice drawn).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lanes: Vec<u32>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Regions {
    pub name: Vec<u32>,
    pub category: Vec<u32>,
    pub paradigm: Vec<Paradigm>,
    pub role: Vec<RegionRole>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CounterSeries {
    pub name: Vec<u32>,
    pub process: Vec<u32>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct WarningList {
    pub counts: Vec<(WarningKind, u64)>,
    pub examples: Vec<(WarningKind, String)>,
}

/// How level 0 is cut: locations in blocks of `block_locations` (by location index), time in `windows`
/// windows of `window_ns` from the origin. Pyramid tiles hold `bins_per_tile` bins of one block. Counter
/// series are cut in blocks of `block_series` (format 4; 0 in older stores, whose counter tiles are not
/// blocked).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tiling {
    pub block_locations: u32,
    pub blocks: u32,
    pub window_ns: u64,
    pub windows: u32,
    pub bins_per_tile: u32,
    #[serde(default)]
    pub block_series: u32,
}

impl Tiling {
    /// The window holding time `t` (times at or past the span fall in the last window).
    pub fn window_of(&self, t: u64) -> u32 {
        ((t / self.window_ns.max(1)).min(self.windows.saturating_sub(1) as u64)) as u32
    }
    /// The times of window `w`, ns from the origin: `[w * window_ns, (w + 1) * window_ns)`, the last window
    /// reaching to the end of time (`window_of` puts every later time in it).
    pub fn window_span(&self, w: u32) -> std::ops::Range<u64> {
        let start = (w as u64).saturating_mul(self.window_ns);
        let end = if w.saturating_add(1) >= self.windows { u64::MAX } else { start.saturating_add(self.window_ns) };
        start..end
    }
    /// The series block holding counter series `s`.
    pub fn series_block_of(&self, s: u32) -> u32 {
        s / self.block_series.max(1)
    }
    pub fn block_of(&self, location: u32) -> u32 {
        location / self.block_locations.max(1)
    }
    /// The locations of block `b`, for `locations` in all.
    pub fn block_range(&self, b: u32, locations: u32) -> std::ops::Range<u32> {
        let start = b.saturating_mul(self.block_locations).min(locations);
        start..start.saturating_add(self.block_locations).min(locations)
    }
}

/// A pyramid level (1 is the finest): bins of `bin_ns`, `bins` of them over the span, cut in `tiles` tiles
/// per block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Level {
    pub level: u32,
    pub bin_ns: u64,
    pub bins: u64,
    pub tiles: u32,
}

/// What a tile holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TileKind {
    /// Level 0: exact intervals, instants, messages (by sender), collectives of a block over a window.
    Events,
    /// A pyramid level's per-location bins for a block.
    Summary,
    /// Communication and synchronization intervals of all locations started in a window, by start.
    Particles,
    /// Counter samples of a block of series in a window (format 3: of every series), with the value in
    /// effect at the window's start.
    Counters,
    /// Exact moment accumulators of a block's locations for the compute and any definitions.
    Moments,
    /// A pyramid level's per-bin figures of a block of counter series (format 4).
    CounterSummary,
    /// Every wait state of a block's locations (format 6).
    Waits,
    /// A pyramid level's per-location waiting time per bin of a block (format 6).
    WaitSummary,
    /// The critical path's segments on a block's locations (format 7).
    CriticalPath,
    /// A pyramid level's per-location call-path totals of a block, over the windows its tile covers (format 8).
    CallPaths,
}

impl TileKind {
    /// The tile's path in a store: by kind, its level, block and window, and the first 16 hex digits of its
    /// content hash (`hash`, 32 hex digits).
    pub fn path(self, level: u32, block: u32, window: u32, hash: &str) -> String {
        let short = hash.get(..16).unwrap_or(hash);
        match self {
            TileKind::Events => format!("e/b{block}/w{window}.{short}.wt"),
            TileKind::Summary => format!("s/l{level}/b{block}/t{window}.{short}.wt"),
            TileKind::Particles => format!("p/w{window}.{short}.wt"),
            TileKind::Counters => format!("c/b{block}/w{window}.{short}.wt"),
            TileKind::CounterSummary => format!("k/l{level}/b{block}/t{window}.{short}.wt"),
            TileKind::Moments => format!("m/b{block}.{short}.wt"),
            TileKind::Waits => format!("w/b{block}.{short}.wt"),
            TileKind::WaitSummary => format!("v/l{level}/b{block}/t{window}.{short}.wt"),
            TileKind::CriticalPath => format!("r/b{block}.{short}.wt"),
            TileKind::CallPaths => format!("t/l{level}/b{block}/t{window}.{short}.wt"),
        }
    }

    pub fn code(self) -> u8 {
        match self {
            TileKind::Events => 1,
            TileKind::Summary => 2,
            TileKind::Particles => 3,
            TileKind::Counters => 4,
            TileKind::Moments => 5,
            TileKind::CounterSummary => 6,
            TileKind::Waits => 7,
            TileKind::WaitSummary => 8,
            TileKind::CriticalPath => 9,
            TileKind::CallPaths => 10,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TileEntry {
    /// Relative path in the store, with the content hash in the name (immutable: cache forever).
    pub path: String,
    pub kind: TileKind,
    /// Pyramid level (0 for every kind but `summary`).
    pub level: u32,
    pub block: u32,
    /// Window (events, particles, counters) or tile index within the level (summary).
    pub window: u32,
    pub bytes: u64,
    /// XXH3-128 of the file, 32 hex digits.
    pub hash: String,
    /// Records the tile holds (intervals started in the window for events tiles, not those carried open into
    /// it; events started in the window for particle tiles; bins x locations for summary tiles).
    pub records: u64,
}

impl TileEntry {
    /// What the entry says the tile is, as its frame must say it (format 5 on).
    pub fn id(&self) -> crate::format::columns::TileId {
        crate::format::columns::TileId {
            kind: self.kind.code(),
            level: self.level,
            block: self.block,
            window: self.window,
        }
    }
}

impl Manifest {
    pub fn origin(&self) -> Result<i64, StoreError> {
        self.origin_ns.parse().map_err(|_| StoreError::Corrupt {
            file: MANIFEST.into(),
            detail: format!("origin_ns {:?} is not an integer", self.origin_ns),
        })
    }

    pub fn check(&self) -> Result<(), String> {
        let ns = self.strings.len() as u64;
        let string = |what: &str, v: &[u32]| match v.iter().find(|&&s| s as u64 >= ns) {
            Some(s) => Err(format!("{what} names string {s}, there are {ns}")),
            None => Ok(()),
        };
        if self.strings.first().map(String::as_str) != Some("") {
            return Err("the string table must start with the empty string".into());
        }
        let p = &self.processes;
        if p.name.len() != p.native_id.len() || p.sort_key.len() != p.native_id.len() {
            return Err("process lists differ in length".into());
        }
        string("a process", &p.name)?;
        let l = &self.locations;
        let nl = l.process.len();
        if [l.native_id.len(), l.name.len(), l.kind.len(), l.sort_key.len(), l.intervals.len()].iter().any(|&n| n != nl)
            || !(l.lanes.is_empty() || l.lanes.len() == nl)
        {
            return Err("location lists differ in length".into());
        }
        if let Some(&bad) = l.process.iter().find(|&&q| q as usize >= p.name.len()) {
            return Err(format!("a location belongs to process {bad}, there are {}", p.name.len()));
        }
        // A lane holds at least one of the location's intervals, and depths are 16 bits.
        if let Some(k) = (0..l.lanes.len()).find(|&k| l.lanes[k] as u64 > l.intervals[k].min(1 << 16)) {
            return Err(format!("location {k} has {} lanes and {} intervals", l.lanes[k], l.intervals[k]));
        }
        string("a location", &l.name)?;
        let r = &self.regions;
        if [r.category.len(), r.paradigm.len(), r.role.len(), self.region_totals.len()]
            .iter()
            .any(|&n| n != r.name.len())
        {
            return Err("region lists differ in length".into());
        }
        string("a region", &r.name)?;
        string("a region category", &r.category)?;
        let c = &self.counter_series;
        if c.process.len() != c.name.len() {
            return Err("counter series lists differ in length".into());
        }
        string("a counter series", &c.name)?;
        if let Some(w) = &self.waits {
            w.check(self)?;
        }
        if let Some(c) = &self.critical_path {
            c.check(self)?;
        }
        if let Some(&bad) = c.process.iter().find(|&&q| q as usize >= p.name.len()) {
            return Err(format!("a counter series belongs to process {bad}, there are {}", p.name.len()));
        }
        let t = &self.tiling;
        if t.block_locations == 0 || t.window_ns == 0 || t.windows == 0 || t.bins_per_tile == 0 {
            return Err("the tiling has a zero size".into());
        }
        if self.version >= 4 && !c.name.is_empty() && t.block_series == 0 {
            return Err("the tiling has counter series but no series block size".into());
        }
        if t.blocks as u64 != (nl as u64).div_ceil(t.block_locations as u64) {
            return Err(format!("{} blocks of {} cannot hold {nl} locations", t.blocks, t.block_locations));
        }
        if l.intervals.iter().try_fold(0u64, |s, &n| s.checked_add(n)) != Some(self.counts.intervals) {
            return Err("per-location interval counts do not add up to the total".into());
        }
        for e in &self.tiles {
            let bad_path = e.path.is_empty()
                || e.path.starts_with('/')
                || e.path.contains('\\')
                || e.path.split('/').any(|s| s.is_empty() || s == "." || s == "..");
            if bad_path {
                return Err(format!("tile path {:?} is not a plain relative path", e.path));
            }
            if e.hash.len() != 32 || !e.hash.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(format!("tile {}: hash {:?} is not 32 hex digits", e.path, e.hash));
            }
        }
        Ok(())
    }

    /// The tile of `kind` at (level, block, window), if the store has one.
    pub fn tile(&self, kind: TileKind, level: u32, block: u32, window: u32) -> Option<&TileEntry> {
        self.tiles.iter().find(|e| e.kind == kind && e.level == level && e.block == block && e.window == window)
    }
}

/// The `format` and `version` of a store file (`manifest.json`, a part's `part.json`), checked before the rest
/// is parsed, so a file of another kind or version is named as such.
/// Versions from `oldest` to [`FORMAT_VERSION`] pass.
pub fn check_head(bytes: &[u8], file: &str, format: &str, what: &str, oldest: u32) -> Result<(), StoreError> {
    #[derive(Deserialize)]
    struct Head {
        format: Option<String>,
        version: Option<u32>,
    }
    let file = file.to_string();
    let head: Head = serde_json::from_slice(bytes)
        .map_err(|e| StoreError::Corrupt { file: file.clone(), detail: format!("not JSON: {e}") })?;
    if head.format.as_deref() != Some(format) {
        return Err(StoreError::Corrupt {
            file,
            detail: format!("not {what} (format {:?})", head.format.unwrap_or_default()),
        });
    }
    match head.version {
        Some(v) if (oldest..=FORMAT_VERSION).contains(&v) => Ok(()),
        v => Err(StoreError::Version { file, found: v.unwrap_or(0), oldest, expected: FORMAT_VERSION }),
    }
}

/// The pyramid levels: level 1 has `bins_per_tile` bins per window, each next level 4 times fewer, up to the
/// first level that fits one tile.
pub fn levels(t: &Tiling) -> Vec<Level> {
    let per = t.bins_per_tile as u64;
    let mut bin_ns = t.window_ns / per;
    let mut bins = t.windows as u64 * per;
    let mut out = Vec::new();
    loop {
        out.push(Level { level: out.len() as u32 + 1, bin_ns, bins, tiles: bins.div_ceil(per) as u32 });
        if bins <= per {
            return out;
        }
        bin_ns *= 4;
        bins = bins.div_ceil(4);
    }
}
