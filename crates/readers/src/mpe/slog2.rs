//! SLOG-2, Jumpshot's file (MPE2's slog2sdk, "SLOG 2.0.6"), read whole. Java `DataOutputStream` order
//! (big-endian). The header points at blocks: the category map (the legend: index, name, topology, info
//! keys and types), the line-id maps (timeline id -> rank, thread), the tree directory (every frame of the
//! binary time tree with its block) and the tree root. Every frame holds real drawables (primitives and
//! composites, each stored once, in the lowest frame that spans it) followed by shadows (summaries for zoomed
//! out views, not read here).
//!
//! A state primitive (two vertices on one timeline) is an interval, an arrow a point-to-point message (tag
//! and size from its info values where its category names them), an event an instant; a composite is
//! flattened into its primitives. It must not trust a count or a block pointer: each is checked against the
//! bytes there are before anything is allocated for it.

use super::cursor::{seconds_to_ns, Cursor};
use super::{Ranks, Regions};
use crate::ReadError;
use std::collections::{HashMap, HashSet};
use weft_model::{Format, LocationId, MessageKind, MessageRecord, RegionId, Trace, TraceBuilder, WarningKind};

const FORMAT: &str = "SLOG-2";
/// The version this reads; older files differ in their category and shadow layouts (Jumpshot's
/// `slog2updater` converts them).
const VERSION: &str = "SLOG 2.0.6";

/// Topologies of a category (`base.drawable.Topology`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Topology {
    Event,
    State,
    Arrow,
    Other(i32),
}

/// One legend entry.
#[derive(Clone, Debug)]
pub struct Category {
    pub index: i32,
    pub name: String,
    pub topology: Topology,
    /// Texts around the info values ("msg_tag=", ", msg_size=").
    pub info_keys: Vec<String>,
    /// One type character per info value ('d' int, 'h' short, 'l' long, 'x'/'X' hex, 'e'/'E' float, 's').
    pub info_types: Vec<u8>,
}

#[derive(Clone, Copy, Debug)]
struct BlockPtr {
    fptr: i64,
    size: i32,
}

/// What a file holds beside its drawables, and how many of each were read (for `weft info` and the tests).
#[derive(Clone, Debug, Default)]
pub struct Slog2Stats {
    pub version: String,
    pub categories: Vec<Category>,
    pub frames: usize,
    pub states: u64,
    pub arrows: u64,
    pub events: u64,
    pub composites: u64,
}

/// Read a SLOG-2 file into a trace.
pub fn read(name: &str, bytes: &[u8]) -> Result<Trace, ReadError> {
    read_with_stats(name, bytes).map(|(t, _)| t)
}

/// Read a SLOG-2 file into a trace, with counts of what it held.
pub fn read_with_stats(name: &str, bytes: &[u8]) -> Result<(Trace, Slog2Stats), ReadError> {
    let mut c = Cursor::new(name, FORMAT, bytes, true);
    let version = c.java_string("version")?;
    if !version.starts_with("SLOG 2") {
        return Err(c.err_at(0, format!("not a SLOG-2 file (version \"{version}\")")));
    }
    if version != VERSION {
        return Err(c.err_at(
            2,
            format!(
                "version \"{version}\"; weft reads \"{VERSION}\" (convert older files with Jumpshot's slog2updater)"
            ),
        ));
    }
    let _children = c.i16("children per frame")?;
    let _leaf_bytes = c.i32("leaf size")?;
    let _depth = c.i16("tree depth")?;
    let _max_buffer = c.i32("largest block")?;
    let mut ptrs = [BlockPtr { fptr: 0, size: 0 }; 7];
    for p in &mut ptrs {
        *p = BlockPtr { fptr: c.i64("block pointer")?, size: c.i32("block size")? };
    }
    let [categories_at, _methods_at, lines_at, root_at, dir_at, _, _] = ptrs;

    let categories = match block(&c, categories_at, "category map")? {
        Some(mut b) => read_categories(&mut b)?,
        None => Vec::new(),
    };
    let lines = match block(&c, lines_at, "line-id maps")? {
        Some(mut b) => read_line_maps(&mut b)?,
        None => LineMap::default(),
    };
    let mut frames = Vec::new();
    if let Some(mut b) = block(&c, dir_at, "tree directory")? {
        let n = b.count_i32(6 + 16 + 12, "tree directory entries")?;
        for _ in 0..n {
            let _depth = b.i16("frame depth")?;
            let _xpos = b.i32("frame position")?;
            let _t0 = b.f64("frame start")?;
            let _t1 = b.f64("frame end")?;
            frames.push(BlockPtr { fptr: b.i64("frame pointer")?, size: b.i32("frame size")? });
        }
    }
    if root_at.fptr != 0 && root_at.size > 0 {
        frames.push(root_at);
    }
    let mut seen = HashSet::new();
    frames.retain(|f| seen.insert(f.fptr));
    frames.sort_by_key(|f| f.fptr);

    let mut reader = Reader {
        file: name,
        b: TraceBuilder::new(Format::Slog2),
        categories: categories.iter().map(|cat| (cat.index, cat.clone())).collect(),
        regions: HashMap::new(),
        names: Regions::default(),
        lines,
        ranks: Ranks::default(),
        locations: HashMap::new(),
        stats: Slog2Stats { version, categories, frames: frames.len(), ..Default::default() },
    };
    // Frames are disjoint blocks (each drawable is stored once): a frame whose block begins inside one already
    // read would read that one's drawables again, and frames pointing into one run of N drawables made
    // N(N+1)/2 intervals (issue 51). Such frames are skipped, each drawable read once, with a warning.
    let (mut read_to, mut overlapping) = (0i64, Vec::new());
    for f in &frames {
        if f.fptr < read_to {
            overlapping.push(f.fptr);
            continue;
        }
        if let Some(mut node) = block(&c, *f, "frame")? {
            reader.frame(&mut node)?;
            read_to = f.fptr.saturating_add(f.size as i64);
        }
    }
    let Reader { mut b, stats, .. } = reader;
    if let Some(first) = overlapping.first() {
        b.warn(WarningKind::MalformedRecord, || {
            format!(
                "{name}: {} frames of the tree directory begin inside another frame's block (the first at byte \
                 {first}); each drawable is read once, those frames are skipped",
                overlapping.len()
            )
        });
    }
    let records = stats.states + stats.arrows + stats.events;
    b.add_event_records(records);
    if records == 0 {
        return Err(ReadError::Empty { file: name.to_string(), format: FORMAT, detail: String::new() });
    }
    Ok((b.finish(), stats))
}

/// The cursor over a block the header or directory points at; None for a null pointer.
fn block<'a>(c: &Cursor<'a>, p: BlockPtr, what: &str) -> Result<Option<Cursor<'a>>, ReadError> {
    if p.fptr == 0 || p.size <= 0 {
        return Ok(None);
    }
    let start = usize::try_from(p.fptr).ok().filter(|&s| s <= c.bytes.len());
    let end = start.and_then(|s| s.checked_add(p.size as usize)).filter(|&e| e <= c.bytes.len());
    match (start, end) {
        (Some(start), Some(end)) => Ok(Some(Cursor { bytes: &c.bytes[..end], pos: start, ..c.clone() })),
        _ => Err(c.err_at(
            c.bytes.len(),
            format!("the {what} at byte {} ({} bytes) lies past the end of the file", p.fptr, p.size),
        )),
    }
}

fn read_categories(c: &mut Cursor) -> Result<Vec<Category>, ReadError> {
    let n = c.count_i32(4 + 2 + 4 + 5 + 1 + 6 + 16, "categories")?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let index = c.i32("category index")?;
        let name = c.java_string("category name")?;
        let topology = match c.i32("topology")? {
            0 => Topology::Event,
            1 => Topology::State,
            2 => Topology::Arrow,
            t => Topology::Other(t),
        };
        let _argb = c.i32("colour")?;
        let _modifiable = c.u8("colour")?;
        let _width = c.u8("width")?;
        let nk = c.count_i16(2, "info keys")?;
        let mut info_keys = Vec::with_capacity(nk);
        for _ in 0..nk {
            info_keys.push(c.java_string("info key")?);
        }
        let nt = c.count_i16(1, "info types")?;
        let info_types = c.take(nt, "info types")?.to_vec();
        let nm = c.count_i16(4, "methods")?;
        c.take(nm * 4, "methods")?;
        let _incl = c.f32("inclusive ratio")?;
        let _excl = c.f32("exclusive ratio")?;
        let _count = c.i64("drawable count")?;
        out.push(Category { index, name, topology, info_keys, info_types });
    }
    Ok(out)
}

/// Timeline id -> (rank, thread).
type LineRows = HashMap<i32, (i64, i64)>;

/// Timeline ids to (rank, thread), from the file's first line-id map (the one naming "world_rank" if any).
#[derive(Default)]
struct LineMap {
    rows: LineRows,
}

fn read_line_maps(c: &mut Cursor) -> Result<LineMap, ReadError> {
    let n = c.count_i32(10, "line-id maps")?;
    // The map chosen so far, and whether it names a "world_rank" column.
    let mut chosen: Option<(bool, LineRows)> = None;
    for _ in 0..n {
        let _title = c.java_string("map title")?;
        let cols = c.count_i32(2, "map columns")?;
        let mut labels = Vec::with_capacity(cols);
        for _ in 0..cols {
            labels.push(c.java_string("column label")?);
        }
        let rows = c.count_i32(4 + 4 * cols, "map rows")?;
        let rank_col = labels.iter().position(|l| l == "world_rank");
        let thread_col = labels.iter().position(|l| l == "thread");
        let (rc, tc) = match rank_col {
            Some(r) => (Some(r), thread_col),
            None => (if cols > 0 { Some(0) } else { None }, if cols > 1 { Some(1) } else { None }),
        };
        let mut map = HashMap::with_capacity(rows);
        let mut values = vec![0i64; cols];
        for _ in 0..rows {
            let key = c.i32("line id")?;
            for v in values.iter_mut() {
                *v = c.i32("map value")? as i64;
            }
            let rank = rc.map(|i| values[i]).unwrap_or(key as i64);
            let thread = tc.map(|i| values[i]).unwrap_or(0);
            map.insert(key, (rank, thread));
        }
        let nm = c.count_i16(4, "map methods")?;
        c.take(nm * 4, "map methods")?;
        let better = match &chosen {
            None => true,
            Some((named, _)) => !named && rank_col.is_some(),
        };
        if better {
            chosen = Some((rank_col.is_some(), map));
        }
    }
    Ok(LineMap { rows: chosen.map(|(_, m)| m).unwrap_or_default() })
}

struct Reader<'a> {
    file: &'a str,
    b: TraceBuilder,
    categories: HashMap<i32, Category>,
    regions: HashMap<i32, RegionId>,
    names: Regions,
    lines: LineMap,
    ranks: Ranks,
    locations: HashMap<i32, LocationId>,
    stats: Slog2Stats,
}

/// A primitive as read: its category, info bytes and vertices (seconds, line id).
struct Primitive<'a> {
    at: usize,
    category: i32,
    info: &'a [u8],
    vertices: Vec<(f64, i32)>,
}

impl<'a> Reader<'a> {
    fn frame(&mut self, c: &mut Cursor<'a>) -> Result<(), ReadError> {
        // The frame's own bounds, id and pointer (`BufForObjects`), then nestless and nestable drawables.
        c.take(16 + 6 + 12, "frame header")?;
        for list in ["nestless drawables", "nestable drawables"] {
            let n = c.count_i32(1 + 4 + 2 + 2, list)?;
            for _ in 0..n {
                let at = c.pos;
                match c.u8("drawable type")? {
                    0 => {
                        let p = primitive(c)?;
                        self.primitive(p);
                    }
                    1 => {
                        let _category = c.i32("composite category")?;
                        let info_len = c.count_i16(1, "composite info")?;
                        c.take(info_len, "composite info")?;
                        let n = c.count_i16(4 + 2 + 2, "composite primitives")?;
                        self.stats.composites += 1;
                        for _ in 0..n {
                            let p = primitive(c)?;
                            self.primitive(p);
                        }
                    }
                    t => {
                        return Err(
                            c.err_at(at, format!("drawable type {t} is neither primitive (0) nor composite (1)"))
                        )
                    }
                }
            }
        }
        // Shadows follow (summaries for zoomed-out views): not read.
        Ok(())
    }

    fn location(&mut self, line: i32) -> LocationId {
        if let Some(&l) = self.locations.get(&line) {
            return l;
        }
        let (rank, thread) = self.lines.rows.get(&line).copied().unwrap_or((line as i64, 0));
        let l = self.ranks.location(&mut self.b, rank, thread);
        self.locations.insert(line, l);
        l
    }

    fn region(&mut self, category: i32) -> Option<(RegionId, Topology)> {
        let cat = self.categories.get(&category)?;
        let topo = cat.topology;
        if let Some(&r) = self.regions.get(&category) {
            return Some((r, topo));
        }
        let name = cat.name.clone();
        let r = self.names.get(&mut self.b, &name);
        self.regions.insert(category, r);
        Some((r, topo))
    }

    fn primitive(&mut self, p: Primitive) {
        let file = self.file;
        let Some((region, topo)) = self.region(p.category) else {
            self.b.warn(WarningKind::DanglingReference, || {
                format!(
                    "{file}: drawable at byte {} names category {}, which the legend lacks; left out",
                    p.at, p.category
                )
            });
            return;
        };
        let mut times = Vec::with_capacity(p.vertices.len());
        for &(t, line) in &p.vertices {
            match seconds_to_ns(t) {
                Some(ns) => times.push((ns, line)),
                None => {
                    self.b.warn(WarningKind::BadTimestamp, || {
                        format!("{file}: drawable at byte {} has time {t}; left out", p.at)
                    });
                    return;
                }
            }
        }
        match (topo, times.as_slice()) {
            (Topology::State, [(t0, line), (t1, _), ..]) => {
                let loc = self.location(*line);
                self.b.interval(loc, region, (*t0).min(*t1), t1.abs_diff(*t0));
                self.stats.states += 1;
            }
            (Topology::Arrow, [(t0, l0), (t1, l1), ..]) => {
                let (sender, receiver) = (self.location(*l0), self.location(*l1));
                let (tag, size) = self.tag_and_size(p.category, p.info);
                let name = self.b.intern(&self.categories[&p.category].name.clone());
                self.b.message(MessageRecord {
                    kind: MessageKind::PointToPoint,
                    sender,
                    receiver,
                    send_ns: *t0,
                    recv_ns: *t1,
                    posted_ns: *t1,
                    size_bytes: size,
                    tag,
                    name,
                });
                self.stats.arrows += 1;
            }
            (Topology::Event, [(t, line), ..]) => {
                let loc = self.location(*line);
                self.b.instant(loc, region, *t);
                self.stats.events += 1;
            }
            _ => self.b.warn(WarningKind::MalformedRecord, || {
                format!(
                    "{file}: drawable at byte {} of category {} has {} vertices, too few for its topology {topo:?}; left out",
                    p.at,
                    p.category,
                    p.vertices.len()
                )
            }),
        }
    }

    /// The message tag and size among an arrow's info values, by the category's keys naming them.
    fn tag_and_size(&self, category: i32, info: &[u8]) -> (u32, u64) {
        let Some(cat) = self.categories.get(&category) else { return (0, 0) };
        let values = info_values(&cat.info_types, info);
        let find = |word: &str| {
            cat.info_keys
                .iter()
                .position(|k| k.to_ascii_lowercase().contains(word))
                .and_then(|i| values.get(i).copied().flatten())
        };
        let tag = find("tag").map(|v| v as u32).unwrap_or(0);
        let size = find("size").map(|v| v.max(0) as u64).unwrap_or(0);
        (tag, size)
    }
}

/// Info values as integers (None for a float or string), decoded by the category's type characters; stops
/// where the bytes end.
fn info_values(types: &[u8], info: &[u8]) -> Vec<Option<i64>> {
    let mut c = Cursor::new("", FORMAT, info, true);
    let mut out = Vec::with_capacity(types.len());
    for &t in types {
        let v = match t {
            b'h' => c.i16("").map(|v| Some(v as i64)),
            b'd' | b'x' => c.i32("").map(|v| Some(v as i64)),
            b'l' | b'X' => c.i64("").map(Some),
            b'e' => c.f32("").map(|_| None),
            b'E' => c.f64("").map(|_| None),
            b's' => c.java_string("").map(|_| None),
            _ => break,
        };
        match v {
            Ok(v) => out.push(v),
            Err(_) => break,
        }
    }
    out
}

fn primitive<'a>(c: &mut Cursor<'a>) -> Result<Primitive<'a>, ReadError> {
    let at = c.pos;
    let category = c.i32("category")?;
    let info_len = c.count_i16(1, "info")?;
    let info = c.take(info_len, "info")?;
    let n = c.count_i16(12, "vertices")?;
    let mut vertices = Vec::with_capacity(n);
    for _ in 0..n {
        vertices.push((c.f64("vertex time")?, c.i32("vertex line id")?));
    }
    Ok(Primitive { at, category, info, vertices })
}
