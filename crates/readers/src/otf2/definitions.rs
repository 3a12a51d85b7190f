//! OTF2 definitions: the global definitions file (`X.def`: strings, clock, system tree, location groups,
//! locations, regions, groups, communicators) and the per-location local definitions (`X/N.def`: mapping
//! tables from local to global ids, clock offsets). Metric members, classes and instances are kept (the
//! METRIC events' meaning). Records the reader does not need (attributes, parameters, I/O, calling contexts,
//! and anything newer) are skipped by their length.
//!
//! Decoding only: this module builds plain tables keyed by OTF2 ids; it must not touch the trace model.

use super::encoding::{Cursor, DecodeError, Decoded, Item, Records};
use std::collections::HashMap;

pub const DEF_CLOCK_PROPERTIES: u8 = 5;
pub const DEF_STRING: u8 = 10;
pub const DEF_SYSTEM_TREE_NODE: u8 = 12;
pub const DEF_LOCATION_GROUP: u8 = 13;
pub const DEF_LOCATION: u8 = 14;
pub const DEF_REGION: u8 = 15;
pub const DEF_GROUP: u8 = 18;
pub const DEF_METRIC_MEMBER: u8 = 19;
pub const DEF_METRIC_CLASS: u8 = 20;
pub const DEF_METRIC_INSTANCE: u8 = 21;
pub const DEF_COMM: u8 = 22;
/// The highest global definition type OTF2 3.1 defines; higher ones are "newer than this reader".
pub const DEF_MAX_KNOWN: u8 = 43;

pub const LOCAL_DEF_MAPPING_TABLE: u8 = 5;
pub const LOCAL_DEF_CLOCK_OFFSET: u8 = 6;

/// OTF2's "undefined reference" value.
pub const UNDEFINED: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClockProperties {
    /// Ticks per second.
    pub timer_resolution: u64,
    pub global_offset: u64,
    pub trace_length: u64,
    /// The real time of the global offset, ns since the Unix epoch (OTF2 3.0's `realtimeTimestamp`; None in
    /// older archives, or when the writer had none).
    pub realtime_ns: Option<u64>,
    /// Byte of the record in the global definitions.
    pub offset: u64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SystemTreeNode {
    pub name: u32,
    pub class_name: u32,
    pub parent: u32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocationGroupDef {
    pub id: u32,
    pub name: u32,
    pub kind: u8,
    pub system_tree_parent: u32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocationDef {
    pub id: u64,
    pub name: u32,
    pub kind: u8,
    pub number_of_events: u64,
    pub group: u32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegionDef {
    pub name: u32,
    pub canonical_name: u32,
    pub description: u32,
    pub role: u8,
    pub paradigm: u8,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupDef {
    pub name: u32,
    pub kind: u8,
    pub paradigm: u8,
    pub members: Vec<u64>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommDef {
    pub name: u32,
    pub group: u32,
    pub parent: u32,
}

/// One metric (a counter): what it is called, its unit, and how a recorded value becomes one in that unit
/// (`value × base^exponent`, base 2 or 10).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MetricMemberDef {
    pub name: u32,
    pub description: u32,
    /// OTF2_MetricType: 0 other, 1 PAPI, 2 rusage, 3 user.
    pub metric_type: u8,
    /// OTF2_MetricMode: value property (low 4 bits: accumulated 0, absolute 1, relative 2) and timing
    /// (high 4 bits: start, point, last, next).
    pub mode: u8,
    /// OTF2_Type of the values: 4 uint64, 8 int64, 10 double.
    pub value_type: u8,
    /// OTF2_Base: 0 binary, 1 decimal.
    pub base: u8,
    pub exponent: i64,
    pub unit: u32,
}

impl MetricMemberDef {
    /// The factor a recorded value is multiplied by to be in `unit`.
    pub fn scale(&self) -> f64 {
        let base: f64 = if self.base == 0 { 2.0 } else { 10.0 };
        base.powi(self.exponent.clamp(-400, 400) as i32)
    }
}

/// A metric class: the members one METRIC event records, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MetricClassDef {
    pub members: Vec<u32>,
}

/// A metric instance: a class recorded by `recorder` on behalf of a scope (a location, location group,
/// system tree node or group).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MetricInstanceDef {
    pub class: u32,
    pub recorder: u64,
    /// OTF2_MetricScope: 0 location, 1 location group, 2 system tree node, 3 group.
    pub scope_kind: u8,
    pub scope: u64,
}

pub const METRIC_SCOPE_LOCATION: u8 = 0;
pub const METRIC_SCOPE_LOCATION_GROUP: u8 = 1;
pub const METRIC_SCOPE_SYSTEM_TREE_NODE: u8 = 2;

/// Group types that matter for resolving ranks to locations.
pub const GROUP_COMM_LOCATIONS: u8 = 4;
pub const GROUP_COMM_GROUP: u8 = 5;
pub const GROUP_COMM_SELF: u8 = 6;

/// A problem in a definitions file that did not stop reading it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DefNote {
    pub offset: u64,
    pub message: String,
}

/// Everything the global definitions file says that weft uses.
#[derive(Clone, Debug, Default)]
pub struct GlobalDefs {
    pub clock: Option<ClockProperties>,
    pub strings: HashMap<u32, String>,
    pub system_tree: HashMap<u32, SystemTreeNode>,
    pub location_groups: Vec<LocationGroupDef>,
    pub locations: Vec<LocationDef>,
    pub regions: HashMap<u32, RegionDef>,
    pub groups: HashMap<u32, GroupDef>,
    pub comms: HashMap<u32, CommDef>,
    pub metric_members: HashMap<u32, MetricMemberDef>,
    /// Metric classes and instances share one id space (a METRIC event names either).
    pub metric_classes: HashMap<u32, MetricClassDef>,
    pub metric_instances: HashMap<u32, MetricInstanceDef>,
    /// Records read, and records skipped because weft does not use them (by type).
    pub records: u64,
    pub skipped: u64,
    /// Records of types newer than OTF2 3.1, skipped by length.
    pub unknown: Vec<DefNote>,
    /// Whether the file ended without its end-of-file marker.
    pub truncated: bool,
}

impl GlobalDefs {
    pub fn string(&self, id: u32) -> Option<&str> {
        self.strings.get(&id).map(|s| s.as_str())
    }
}

fn note(what: &str) -> impl FnOnce(DecodeError) -> DecodeError + '_ {
    move |e| DecodeError { offset: e.offset, what: format!("{what}: {}", e.what) }
}

/// Decode the global definitions file. A record that fails to decode ends reading; what was read comes back
/// with the error (naming its offset), and the caller decides whether it is enough.
pub fn parse_global(data: &[u8], chunk_size: u64) -> (GlobalDefs, Option<DecodeError>) {
    let mut defs = GlobalDefs::default();
    let mut records = match Records::new(data, chunk_size, false) {
        Ok(r) => r,
        Err(e) => return (defs, Some(e)),
    };
    loop {
        let item = match records.next_item() {
            Ok(Some(i)) => i,
            Ok(None) => break,
            Err(e) => return (defs, Some(e)),
        };
        let Item::Record { kind, start, end } = item else {
            continue;
        };
        let mut c = records.data(start, end);
        defs.records += 1;
        if let Err(e) = global_record(&mut defs, kind, &mut c) {
            return (defs, Some(e));
        }
    }
    defs.truncated = !records.saw_end_of_file;
    (defs, None)
}

fn global_record(defs: &mut GlobalDefs, kind: u8, c: &mut Cursor) -> Decoded<()> {
    let at = c.pos() as u64;
    match kind {
        DEF_CLOCK_PROPERTIES => {
            let timer_resolution = c.u64().map_err(note("ClockProperties"))?;
            let global_offset = c.u64()?;
            let trace_length = c.u64()?;
            // OTF2 3.0 appends the real time of the global offset; OTF2_UNDEFINED_TIMESTAMP (all ones) is none.
            let realtime_ns = if c.remaining() > 0 { Some(c.u64()?).filter(|&t| t != u64::MAX) } else { None };
            defs.clock =
                Some(ClockProperties { timer_resolution, global_offset, trace_length, realtime_ns, offset: at });
        }
        DEF_STRING => {
            let id = c.u32().map_err(note("String"))?;
            let s = c.string()?;
            defs.strings.insert(id, s);
        }
        DEF_SYSTEM_TREE_NODE => {
            let id = c.u32().map_err(note("SystemTreeNode"))?;
            let node = SystemTreeNode { name: c.u32()?, class_name: c.u32()?, parent: c.u32()? };
            defs.system_tree.insert(id, node);
        }
        DEF_LOCATION_GROUP => {
            let id = c.u32().map_err(note("LocationGroup"))?;
            let g = LocationGroupDef { id, name: c.u32()?, kind: c.u8()?, system_tree_parent: c.u32()? };
            defs.location_groups.push(g);
        }
        DEF_LOCATION => {
            let id = c.u64().map_err(note("Location"))?;
            let l = LocationDef { id, name: c.u32()?, kind: c.u8()?, number_of_events: c.u64()?, group: c.u32()? };
            defs.locations.push(l);
        }
        DEF_REGION => {
            let id = c.u32().map_err(note("Region"))?;
            let name = c.u32()?;
            let description = c.u32()?;
            let _region_type_pre_1_1 = c.u8()?;
            let _source_file = c.u32()?;
            let _begin_line = c.u32()?;
            let _end_line = c.u32()?;
            // Added in OTF2 1.1: present in every file OTF2 2.0 and later writes, optional before.
            let (canonical_name, role, paradigm) =
                if c.remaining() > 0 { (c.u32()?, c.u8()?, c.u8()?) } else { (name, 0, 0) };
            defs.regions.insert(id, RegionDef { name, canonical_name, description, role, paradigm });
        }
        DEF_GROUP => {
            let id = c.u32().map_err(note("Group"))?;
            let name = c.u32()?;
            let type_pre_1_2 = c.u8()?;
            let n = c.u32()?;
            // Each member takes at least one byte: a count beyond the record is corrupt, not a reason to allocate.
            if n as usize > c.remaining() {
                return c.error(format!("Group {id} claims {n} members, more than its record holds"));
            }
            let mut members = Vec::with_capacity(n as usize);
            for _ in 0..n {
                members.push(c.u64()?);
            }
            let (kind, paradigm) = if c.remaining() > 0 { (c.u8()?, c.u8()?) } else { (type_pre_1_2, 0) };
            defs.groups.insert(id, GroupDef { name, kind, paradigm, members });
        }
        DEF_COMM => {
            let id = c.u32().map_err(note("Comm"))?;
            let comm = CommDef { name: c.u32()?, group: c.u32()?, parent: c.u32()? };
            defs.comms.insert(id, comm);
        }
        DEF_METRIC_MEMBER => {
            let id = c.u32().map_err(note("MetricMember"))?;
            let m = MetricMemberDef {
                name: c.u32()?,
                description: c.u32()?,
                metric_type: c.u8()?,
                mode: c.u8()?,
                value_type: c.u8()?,
                base: c.u8()?,
                exponent: c.i64()?,
                unit: c.u32()?,
            };
            defs.metric_members.insert(id, m);
        }
        DEF_METRIC_CLASS => {
            let id = c.u32().map_err(note("MetricClass"))?;
            let n = c.u8()?;
            let mut members = Vec::with_capacity(n as usize);
            for _ in 0..n {
                members.push(c.u32()?);
            }
            defs.metric_classes.insert(id, MetricClassDef { members });
        }
        DEF_METRIC_INSTANCE => {
            let id = c.u32().map_err(note("MetricInstance"))?;
            let m = MetricInstanceDef { class: c.u32()?, recorder: c.u64()?, scope_kind: c.u8()?, scope: c.u64()? };
            defs.metric_instances.insert(id, m);
        }
        k if k <= DEF_MAX_KNOWN => defs.skipped += 1,
        k => {
            defs.skipped += 1;
            defs.unknown.push(DefNote {
                offset: at,
                message: format!("definition record type {k} is newer than this reader; skipped"),
            });
        }
    }
    Ok(())
}

/// A local-to-global id mapping of one kind, for one location.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IdMap {
    Dense(Vec<u64>),
    /// Sorted by local id.
    Sparse(Vec<(u64, u64)>),
}

impl IdMap {
    /// The global id for a local one; ids the map does not mention stay as they are (as OTF2 does).
    #[inline]
    pub fn map(&self, local: u64) -> u64 {
        match self {
            IdMap::Dense(v) => v.get(local as usize).copied().unwrap_or(local),
            IdMap::Sparse(v) => match v.binary_search_by_key(&local, |p| p.0) {
                Ok(i) => v[i].1,
                Err(_) => local,
            },
        }
    }
}

/// Mapping kinds OTF2 defines (the index into [`LocalDefs::mappings`]).
pub const MAPPING_STRING: usize = 0;
pub const MAPPING_REGION: usize = 3;
pub const MAPPING_GROUP: usize = 4;
pub const MAPPING_METRIC: usize = 5;
pub const MAPPING_COMM: usize = 6;
pub const MAPPING_KINDS: usize = 15;

/// What one location's local definitions file says.
#[derive(Clone, Debug, Default)]
pub struct LocalDefs {
    pub mappings: Vec<Option<IdMap>>,
    /// (time in ticks, offset in ticks), as written (sorted by time in valid files).
    pub clock_offsets: Vec<(u64, i64)>,
}

impl LocalDefs {
    #[inline]
    pub fn map(&self, kind: usize, local: u32) -> u32 {
        match self.mappings.get(kind) {
            Some(Some(m)) => m.map(local as u64) as u32,
            _ => local,
        }
    }
}

/// Decode a local definitions file. Returns what was read before any error, with the error.
pub fn parse_local(data: &[u8], chunk_size: u64) -> (LocalDefs, Option<DecodeError>) {
    let mut defs = LocalDefs { mappings: vec![None; MAPPING_KINDS], clock_offsets: Vec::new() };
    let mut records = match Records::new(data, chunk_size, false) {
        Ok(r) => r,
        Err(e) => return (defs, Some(e)),
    };
    loop {
        let item = match records.next_item() {
            Ok(Some(i)) => i,
            Ok(None) => break,
            Err(e) => return (defs, Some(e)),
        };
        let Item::Record { kind, start, end } = item else {
            continue;
        };
        let mut c = records.data(start, end);
        let r = match kind {
            LOCAL_DEF_MAPPING_TABLE => mapping_table(&mut defs, &mut c),
            LOCAL_DEF_CLOCK_OFFSET => (|| {
                let time = c.u64_full()?;
                let offset = c.i64()?;
                defs.clock_offsets.push((time, offset));
                Ok(())
            })(),
            _ => Ok(()),
        };
        if let Err(e) = r {
            return (defs, Some(e));
        }
    }
    (defs, None)
}

fn mapping_table(defs: &mut LocalDefs, c: &mut Cursor) -> Decoded<()> {
    let kind = c.u8()? as usize;
    let n = c.u64()?;
    let mode = c.u8()?;
    if n > c.remaining() as u64 {
        return c.error(format!("mapping table claims {n} entries, more than its record holds"));
    }
    let map = if mode == 0 {
        let mut v = Vec::with_capacity(n as usize);
        for _ in 0..n {
            v.push(c.u64()?);
        }
        IdMap::Dense(v)
    } else {
        let mut v = Vec::with_capacity(n as usize);
        for _ in 0..n {
            v.push((c.u64()?, c.u64()?));
        }
        v.sort_unstable();
        IdMap::Sparse(v)
    };
    if kind < MAPPING_KINDS {
        defs.mappings[kind] = Some(map);
    }
    Ok(())
}

/// A location's clock offsets applied as OTF2 applies them: linear between measurements, and extrapolated
/// beyond the first and last with the slope of the nearest pair (one measurement: a constant shift).
pub struct ClockCorrection<'a> {
    points: &'a [(u64, i64)],
    at: usize,
}

impl<'a> ClockCorrection<'a> {
    pub fn new(points: &'a [(u64, i64)]) -> Self {
        ClockCorrection { points, at: 0 }
    }

    /// The corrected time of `t` (ticks). Fast for times that mostly increase. Always inlined: once per
    /// event, and most locations have no offsets or one.
    #[inline(always)]
    pub fn corrected(&mut self, t: u64) -> i128 {
        match self.points.len() {
            0 => t as i128,
            1 => t as i128 + self.points[0].1 as i128,
            _ => self.interpolated(t),
        }
    }

    /// `t` corrected between the two offsets around it.
    fn interpolated(&mut self, t: u64) -> i128 {
        let p = self.points;
        while self.at + 2 < p.len() && p[self.at + 1].0 <= t {
            self.at += 1;
        }
        while self.at > 0 && p[self.at].0 > t {
            self.at -= 1;
        }
        let (t0, o0) = p[self.at];
        let (t1, o1) = p[self.at + 1];
        let span = (t1 as i128 - t0 as i128) as f64;
        let slope = if span > 0.0 { (o1 - o0) as f64 / span } else { 0.0 };
        let off = o0 as f64 + slope * (t as i128 - t0 as i128) as f64;
        t as i128 + off.round() as i128
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_offsets_interpolate_and_extrapolate() {
        let pts = [(100u64, -30i64), (200, -20)];
        let mut c = ClockCorrection::new(&pts);
        // Before the first and after the last measurement, the nearest pair's slope continues.
        assert_eq!(c.corrected(50), 15);
        assert_eq!(c.corrected(150), 125);
        assert_eq!(c.corrected(300), 290);
        assert_eq!(c.corrected(100), 70);
        let one = [(100u64, 7i64)];
        assert_eq!(ClockCorrection::new(&one).corrected(5), 12);
        assert_eq!(ClockCorrection::new(&[]).corrected(5), 5);
    }

    #[test]
    fn id_maps_dense_and_sparse() {
        let d = IdMap::Dense(vec![5, 6, 7]);
        assert_eq!((d.map(0), d.map(2), d.map(9)), (5, 7, 9));
        let s = IdMap::Sparse(vec![(3, 30), (10, 100)]);
        assert_eq!((s.map(3), s.map(10), s.map(4)), (30, 100, 4));
    }
}
