//! A compact binary encoding of a whole [`Trace`], for handing a parsed trace from the worker to the page as
//! one transferable ArrayBuffer, and a store worker's exact slice (`store::query::ExactSlice::encode`, which
//! writes its intervals through [`IntervalRows`] without building a `Trace` first). Columns are written one
//! after another: integers as LEB128 varints, times delta-coded from the column's previous value (zigzag), the
//! intervals' locations as runs (they are grouped by location); the bytes an interval takes went from a fixed 28
//! to ~8 on a generated OTF2 slice (BENCHMARKS.md, "The tab under 512 MB"): what the worker holds, copies and
//! the page holds until decoded. The encoder runs twice, counting then writing, so its buffer is allocated once at
//! its length. Decoding checks every length against the buffer and every id against its table: a corrupt buffer
//! gives an error, never a panic. Not a file format: both ends are the same build. [`Decoding`] runs the decode
//! in steps (the tables, each interval column a part at a time, the intervals' args, the rest) for the page to
//! yield between them. A slice ([`encode_slice_with`]) leaves the tables out: its reader holds them
//! ([`Decoding::over`]; the store page holds the store's skeleton), and only their counts are written and
//! checked. Args (`model::args`) travel as their sparse columns: nothing for a trace without any.

use super::*;
use thiserror::Error;

const MAGIC: &[u8; 8] = b"WEFTMDL4";
/// A slice: [`encode_slice_with`]'s bytes, without the tables its reader holds.
const SLICE_MAGIC: &[u8; 8] = b"WEFTSLC1";

#[derive(Debug, Error, PartialEq)]
#[error("trace buffer corrupt at byte {offset}: {what}")]
pub struct DecodeError {
    pub offset: usize,
    pub what: &'static str,
}

/// The intervals [`encode_with`] writes, in the model's order (grouped by location; by start, then depth,
/// within one): a trace's own columns, or a slice held otherwise (a store worker's, per location).
pub trait IntervalRows {
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Each interval in order: (location, region, start_ns, dur_ns, depth).
    fn each(&self, f: impl FnMut(LocationId, RegionId, u64, u64, u16));
}

impl IntervalRows for Intervals {
    fn len(&self) -> usize {
        self.location.len()
    }
    fn each(&self, mut f: impl FnMut(LocationId, RegionId, u64, u64, u16)) {
        let cols = self.location.iter().zip(&self.region).zip(&self.start_ns).zip(&self.dur_ns).zip(&self.depth);
        for ((((&l, &r), &s), &d), &depth) in cols {
            f(l, r, s, d, depth);
        }
    }
}

fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

/// Where the encoder's bytes go: the buffer, or only their count (the first pass).
trait Out {
    fn put(&mut self, b: &[u8]);
}

impl Out for Vec<u8> {
    fn put(&mut self, b: &[u8]) {
        self.extend_from_slice(b);
    }
}

struct Count(usize);

impl Out for Count {
    fn put(&mut self, b: &[u8]) {
        self.0 += b.len();
    }
}

struct Writer<O: Out>(O);

impl<O: Out> Writer<O> {
    fn u8(&mut self, v: u8) {
        self.0.put(&[v]);
    }
    fn u64(&mut self, v: u64) {
        self.0.put(&v.to_le_bytes());
    }
    fn i64(&mut self, v: i64) {
        self.0.put(&v.to_le_bytes());
    }
    fn var(&mut self, mut v: u64) {
        let mut b = [0u8; 10];
        let mut n = 0;
        while v >= 0x80 {
            b[n] = v as u8 | 0x80;
            v >>= 7;
            n += 1;
        }
        b[n] = v as u8;
        self.0.put(&b[..=n]);
    }
    fn len(&mut self, n: usize) {
        self.var(n as u64);
    }
    fn str(&mut self, s: &str) {
        self.len(s.len());
        self.0.put(s.as_bytes());
    }
    fn col_u32(&mut self, v: impl ExactSizeIterator<Item = u32>) {
        self.len(v.len());
        for x in v {
            self.var(x as u64);
        }
    }
    fn col_u64(&mut self, v: impl ExactSizeIterator<Item = u64>) {
        self.len(v.len());
        for x in v {
            self.var(x);
        }
    }
    fn col_i64(&mut self, v: &[i64]) {
        self.len(v.len());
        for &x in v {
            self.var(zigzag(x));
        }
    }
    /// Times, each as its difference from the one before (mostly small: a column is about sorted).
    fn col_time(&mut self, v: &[u64]) {
        self.len(v.len());
        let mut prev = 0u64;
        for &x in v {
            self.var(zigzag(x.wrapping_sub(prev) as i64));
            prev = x;
        }
    }
    fn col_f64(&mut self, v: &[f64]) {
        self.len(v.len());
        for &x in v {
            self.u64(x.to_bits());
        }
    }
    fn col_u8(&mut self, v: impl ExactSizeIterator<Item = u8>) {
        self.len(v.len());
        for x in v {
            self.u8(x);
        }
    }
    fn args(&mut self, a: &EventArgs) {
        self.col_u32(a.event.iter().copied());
        self.col_u32(a.entry.iter().copied());
        let t = &a.table;
        self.col_u32(t.pairs_end.iter().copied());
        self.col_u32(t.key.iter().map(|k| k.0));
        self.col_u8(t.kind.iter().map(|&k| k as u8));
        self.col_u32(t.value_end.iter().copied());
        self.str(&t.text);
    }
    /// The intervals' count, their locations as runs (location, how many), then the region, start
    /// (delta-coded), duration and depth columns.
    fn intervals(&mut self, rows: &impl IntervalRows) {
        self.len(rows.len());
        let mut runs = 0usize;
        let mut last = None;
        rows.each(|l, _, _, _, _| {
            if last != Some(l) {
                runs += 1;
                last = Some(l);
            }
        });
        self.len(runs);
        let mut run: Option<(LocationId, u64)> = None;
        rows.each(|l, _, _, _, _| match &mut run {
            Some((at, n)) if *at == l => *n += 1,
            _ => {
                if let Some((at, n)) = run.replace((l, 1)) {
                    self.var(at.0 as u64);
                    self.var(n);
                }
            }
        });
        if let Some((at, n)) = run {
            self.var(at.0 as u64);
            self.var(n);
        }
        rows.each(|_, r, _, _, _| self.var(r.0 as u64));
        let mut prev = 0u64;
        rows.each(|_, _, s, _, _| {
            self.var(zigzag(s.wrapping_sub(prev) as i64));
            prev = s;
        });
        rows.each(|_, _, _, d, _| self.var(d));
        rows.each(|_, _, _, _, depth| self.var(depth as u64));
    }
}

struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn err(&self, what: &'static str) -> DecodeError {
        DecodeError { offset: self.at, what }
    }
    fn take(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.b.len()).ok_or_else(|| self.err("unexpected end"))?;
        let s = &self.b[self.at..end];
        self.at = end;
        Ok(s)
    }
    fn u8(&mut self) -> Result<u8, DecodeError> {
        Ok(self.take(1)?[0])
    }
    fn u64(&mut self) -> Result<u64, DecodeError> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().map_err(|_| self.err("u64"))?))
    }
    fn i64(&mut self) -> Result<i64, DecodeError> {
        Ok(self.u64()? as i64)
    }
    #[inline]
    fn var(&mut self) -> Result<u64, DecodeError> {
        // Most values (regions, depths, ids) take one byte.
        if let Some(&b) = self.b.get(self.at) {
            if b < 0x80 {
                self.at += 1;
                return Ok(b as u64);
            }
        }
        self.var_long()
    }
    fn var_long(&mut self) -> Result<u64, DecodeError> {
        let mut v = 0u64;
        let mut shift = 0;
        loop {
            let &b = self.b.get(self.at).ok_or_else(|| self.err("unexpected end"))?;
            self.at += 1;
            if shift == 63 && b > 1 {
                return Err(self.err("varint past 64 bits"));
            }
            v |= ((b & 0x7f) as u64) << shift;
            if b < 0x80 {
                return Ok(v);
            }
            shift += 7;
        }
    }
    fn var_u32(&mut self) -> Result<u32, DecodeError> {
        let v = self.var()?;
        u32::try_from(v).map_err(|_| self.err("value past 32 bits"))
    }
    /// A length, checked against what is left (each element at least `unit` bytes).
    fn len(&mut self, unit: usize) -> Result<usize, DecodeError> {
        let n = self.var()?;
        let left = (self.b.len() - self.at) as u64;
        if n.saturating_mul(unit.max(1) as u64) > left {
            return Err(self.err("length larger than the buffer"));
        }
        Ok(n as usize)
    }
    fn str(&mut self) -> Result<String, DecodeError> {
        let n = self.len(1)?;
        let s = self.take(n)?;
        String::from_utf8(s.to_vec()).map_err(|_| self.err("string is not UTF-8"))
    }
    /// `n` values read by `one`, into a column allocated once.
    fn values<T>(
        &mut self,
        n: usize,
        mut one: impl FnMut(&mut Self) -> Result<T, DecodeError>,
    ) -> Result<Vec<T>, DecodeError> {
        let mut v = Vec::with_capacity(n);
        for _ in 0..n {
            v.push(one(self)?);
        }
        Ok(v)
    }
    fn col_u32(&mut self) -> Result<Vec<u32>, DecodeError> {
        let n = self.len(1)?;
        self.values(n, Self::var_u32)
    }
    /// A column of ids below `bound`, made by `make`.
    fn col_id<T>(&mut self, bound: usize, make: impl Fn(u32) -> T) -> Result<Vec<T>, DecodeError> {
        let n = self.len(1)?;
        self.ids(n, bound, make)
    }
    fn ids<T>(&mut self, n: usize, bound: usize, make: impl Fn(u32) -> T) -> Result<Vec<T>, DecodeError> {
        self.values(n, |r| {
            let x = r.var_u32()?;
            if x as usize >= bound {
                return Err(r.err("id out of range"));
            }
            Ok(make(x))
        })
    }
    fn col_u64(&mut self) -> Result<Vec<u64>, DecodeError> {
        let n = self.len(1)?;
        self.values(n, Self::var)
    }
    fn col_i64(&mut self) -> Result<Vec<i64>, DecodeError> {
        let n = self.len(1)?;
        self.values(n, |r| r.var().map(unzigzag))
    }
    fn col_time(&mut self) -> Result<Vec<u64>, DecodeError> {
        let n = self.len(1)?;
        self.times(n)
    }
    fn times(&mut self, n: usize) -> Result<Vec<u64>, DecodeError> {
        let mut prev = 0u64;
        self.values(n, |r| {
            prev = prev.wrapping_add(unzigzag(r.var()?) as u64);
            Ok(prev)
        })
    }
    fn col_f64(&mut self) -> Result<Vec<f64>, DecodeError> {
        let n = self.len(8)?;
        self.values(n, |r| r.u64().map(f64::from_bits))
    }
    /// A column of one-byte codes, each made a value by `f` (an unknown code is an error).
    fn col_enum<T>(&mut self, f: impl Fn(u8) -> Option<T>) -> Result<Vec<T>, DecodeError> {
        let n = self.len(1)?;
        self.values(n, |r| {
            let c = r.u8()?;
            f(c).ok_or_else(|| r.err("unknown enum value"))
        })
    }
    /// The args of a table of `events` events, every index, entry, end and key checked.
    fn args(&mut self, events: usize, strings: usize) -> Result<EventArgs, DecodeError> {
        let (event, entry) = (self.col_u32()?, self.col_u32()?);
        let pairs_end = self.col_u32()?;
        let key = self.col_id(strings, StringId)?;
        let kind = self.col_enum(ArgKind::from_code)?;
        let value_end = self.col_u32()?;
        let text = self.str()?;
        let ascending = |v: &[u32]| v.windows(2).all(|w| w[0] <= w[1]);
        if event.len() != entry.len()
            || !event.windows(2).all(|w| w[0] < w[1])
            || event.last().is_some_and(|&e| e as usize >= events)
            || entry.iter().any(|&e| e as usize >= pairs_end.len())
        {
            return Err(self.err("args of events out of range"));
        }
        if !ascending(&pairs_end)
            || pairs_end.last().map_or(0, |&e| e as usize) != key.len()
            || key.len() != kind.len()
            || key.len() != value_end.len()
            || !ascending(&value_end)
            || value_end.last().map_or(0, |&e| e as usize) != text.len()
            || !value_end.iter().all(|&e| text.is_char_boundary(e as usize))
        {
            return Err(self.err("args pairs inconsistent"));
        }
        Ok(EventArgs { event, entry, table: ArgTable { pairs_end, key, kind, value_end, text } })
    }
}

fn format_code(f: Format) -> u8 {
    f as u8
}

fn format_from(c: u8) -> Option<Format> {
    Format::ALL.into_iter().find(|&f| f as u8 == c)
}

fn paradigm_from(c: u8) -> Option<Paradigm> {
    use Paradigm::*;
    [Unknown, User, Compiler, Mpi, OpenMp, Pthread, Cuda, Gpu, Io, Measurement].into_iter().find(|&p| p as u8 == c)
}

fn role_from(c: u8) -> Option<RegionRole> {
    use RegionRole::*;
    [
        Unknown,
        Function,
        Wrapper,
        Loop,
        Code,
        Parallel,
        Sections,
        Section,
        Workshare,
        Single,
        Master,
        Critical,
        Atomic,
        Barrier,
        ImplicitBarrier,
        Flush,
        Ordered,
        Task,
        TaskCreate,
        TaskWait,
        Collective,
        PointToPoint,
        Allocate,
        Deallocate,
        FileIo,
        Artificial,
    ]
    .into_iter()
    .find(|&r| r as u8 == c)
}

fn kind_from(c: u8) -> Option<LocationKind> {
    use LocationKind::*;
    [CpuThread, GpuStream, AsyncTrack, Metric].into_iter().find(|&k| k as u8 == c)
}

fn warning_kind_from(c: u8) -> Option<WarningKind> {
    use WarningKind::*;
    [
        UnmatchedEnd,
        UnclosedBegin,
        MismatchedEnd,
        ImproperNesting,
        OutOfOrder,
        Truncated,
        MalformedRecord,
        UnknownRecord,
        BadTimestamp,
        UnmatchedFlow,
        DanglingReference,
        Other,
        ParentCycle,
        MisnamedEnd,
        Merged,
    ]
    .into_iter()
    .find(|&k| k as u8 == c)
}

pub fn encode(t: &Trace) -> Vec<u8> {
    encode_with(t, &t.intervals)
}

/// [`encode`] of `t` with `intervals` for its intervals (`t`'s own interval columns are not read; its
/// intervals' args are, and index `intervals`): what `decode` gives back is `t` with those intervals.
pub fn encode_with(t: &Trace, intervals: &impl IntervalRows) -> Vec<u8> {
    encoded(t, intervals, None)
}

/// A slice of a trace whose definitions its reader already holds (a store's exact answer: the page holds the
/// store's skeleton), decoded by [`Decoding::over`] those definitions: [`encode_with`] of `t` less its tables
/// (strings, processes, locations, regions), which stand in `defs` (`t`'s own are not read). Their counts
/// are written, and checked by the reader, so a slice read over other definitions is an error, not a
/// misreading. What an answer carries and decodes no longer grows with the locations: 1,189,175 bytes of
/// tables at 20,000 ranks before the first interval (BENCHMARKS.md "Session 34").
pub fn encode_slice_with(t: &Trace, defs: &Trace, intervals: &impl IntervalRows) -> Vec<u8> {
    encoded(t, intervals, Some(defs))
}

fn encoded(t: &Trace, intervals: &impl IntervalRows, defs: Option<&Trace>) -> Vec<u8> {
    let mut count = Writer(Count(0));
    write(&mut count, t, intervals, defs);
    let mut w = Writer(Vec::with_capacity(count.0 .0));
    write(&mut w, t, intervals, defs);
    debug_assert_eq!(w.0.len(), count.0 .0);
    w.0
}

/// `t` as bytes; with `defs`, a slice: the tables' counts from `defs` in place of `t`'s tables.
fn write<O: Out>(w: &mut Writer<O>, t: &Trace, intervals: &impl IntervalRows, defs: Option<&Trace>) {
    w.0.put(if defs.is_some() { SLICE_MAGIC } else { MAGIC });
    w.u8(format_code(t.format));
    w.i64(t.origin_ns);
    w.u64(t.span_ns);
    w.u64(t.event_records);
    if let Some(d) = defs {
        for n in [d.strings.len(), d.processes.len(), d.locations.len(), d.regions.len()] {
            w.len(n);
        }
        write_data(w, t, intervals);
        return;
    }
    w.len(t.strings.len());
    for s in t.strings.iter() {
        w.str(s);
    }
    let p = &t.processes;
    w.col_i64(&p.native_id);
    w.col_u32(p.name.iter().map(|s| s.0));
    w.col_i64(&p.sort_key);
    let l = &t.locations;
    w.col_u32(l.process.iter().map(|x| x.0));
    w.col_i64(&l.native_id);
    w.col_u32(l.name.iter().map(|s| s.0));
    w.col_u8(l.kind.iter().map(|&k| k as u8));
    w.col_i64(&l.sort_key);
    let r = &t.regions;
    w.col_u32(r.name.iter().map(|s| s.0));
    w.col_u32(r.category.iter().map(|s| s.0));
    w.col_u8(r.paradigm.iter().map(|&p| p as u8));
    w.col_u8(r.role.iter().map(|&p| p as u8));
    write_data(w, t, intervals);
}

/// What follows the tables: the records, counter series and warnings.
fn write_data<O: Out>(w: &mut Writer<O>, t: &Trace, intervals: &impl IntervalRows) {
    w.intervals(intervals);
    w.args(&t.intervals.args);
    let ins = &t.instants;
    w.col_u32(ins.location.iter().map(|x| x.0));
    w.col_u32(ins.region.iter().map(|x| x.0));
    w.col_time(&ins.time_ns);
    w.args(&ins.args);
    let m = &t.messages;
    w.col_u8(m.kind.iter().map(|&k| k as u8));
    w.col_u32(m.sender.iter().map(|x| x.0));
    w.col_u32(m.receiver.iter().map(|x| x.0));
    w.col_time(&m.send_ns);
    w.col_time(&m.recv_ns);
    w.col_time(&m.posted_ns);
    w.col_u64(m.size_bytes.iter().copied());
    w.col_u32(m.tag.iter().copied());
    w.col_u32(m.name.iter().map(|s| s.0));
    let c = &t.collectives;
    w.col_u32(c.operation.iter().copied());
    w.col_u32(c.location.iter().map(|x| x.0));
    w.col_u32(c.region.iter().map(|x| x.0));
    w.col_u32(c.communicator.iter().map(|s| s.0));
    // 0: no root; else the root's location + 1.
    w.col_u64(c.root.iter().map(|r| r.map_or(0, |x| x.0 as u64 + 1)));
    w.col_time(&c.start_ns);
    w.col_time(&c.end_ns);
    w.col_u64(c.bytes_sent.iter().copied());
    w.col_u64(c.bytes_received.iter().copied());
    let k = &t.counters;
    w.col_u32(k.series_name.iter().map(|s| s.0));
    w.col_u32(k.series_process.iter().map(|x| x.0));
    w.col_u32(k.sample_series.iter().copied());
    w.col_time(&k.sample_time_ns);
    w.col_f64(&k.sample_value);
    w.len(t.warnings.counts().len());
    for &(kind, n) in t.warnings.counts() {
        w.u8(kind as u8);
        w.var(n);
    }
    w.len(t.warnings.examples().len());
    for e in t.warnings.examples() {
        w.u8(e.kind as u8);
        w.str(&e.message);
    }
}

pub fn decode(b: &[u8]) -> Result<Trace, DecodeError> {
    let mut d = Decoding::default();
    loop {
        if let Some(t) = d.step(b)? {
            return Ok(t);
        }
    }
}

/// [`decode`] in steps, so the page can yield to the browser between them (issue 16): the tables before the
/// intervals, then each interval column (`STEP_VALUES`, 2^18, values a step at most), then the rest. Give every
/// step the same bytes.
#[derive(Default)]
pub struct Decoding {
    at: usize,
    head: Option<Box<Head>>,
    /// The definitions a slice is read over ([`Decoding::over`]), until its head is read.
    defs: Option<Box<Tables>>,
    intervals: Intervals,
    /// How many intervals (read with their locations).
    n: usize,
    /// Interval columns read so far (5 in all, then their args).
    columns: u8,
}

/// What comes before the intervals.
struct Head {
    format: Format,
    origin_ns: i64,
    span_ns: u64,
    event_records: u64,
    strings: StringTable,
    processes: Processes,
    locations: Locations,
    regions: Regions,
}

/// A trace's definitions, which a slice ([`encode_slice_with`]) leaves out.
struct Tables {
    strings: StringTable,
    processes: Processes,
    locations: Locations,
    regions: Regions,
}

/// [`decode`] of a slice ([`encode_slice_with`]) over `defs`, the definitions it was encoded with (whole
/// bytes, [`encode`]'s, decode as they would without them).
pub fn decode_over(b: &[u8], defs: &Trace) -> Result<Trace, DecodeError> {
    let mut d = Decoding::over(defs);
    loop {
        if let Some(t) = d.step(b)? {
            return Ok(t);
        }
    }
}

impl Decoding {
    /// A decoding that reads a slice over `defs`' definitions (a clone: the strings are shared, the other
    /// tables copied, a few columns of one value a location).
    pub fn over(defs: &Trace) -> Decoding {
        let tables = Tables {
            strings: defs.strings.clone(),
            processes: defs.processes.clone(),
            locations: defs.locations.clone(),
            regions: defs.regions.clone(),
        };
        Decoding { defs: Some(Box::new(tables)), ..Decoding::default() }
    }

    /// What the next [`Decoding::step`] reads, for the page's timings.
    pub fn next_part(&self) -> &'static str {
        match (&self.head, self.columns) {
            (None, _) => "decode the trace: its tables",
            (Some(_), 0..5) => "decode the trace: an interval column",
            (Some(_), 5) => "decode the trace: the intervals' args",
            _ => "decode the trace: the rest",
        }
    }

    /// Read one part of `b`; the trace once the last part is read.
    pub fn step(&mut self, b: &[u8]) -> Result<Option<Trace>, DecodeError> {
        let mut r = Reader { b, at: self.at };
        let Some(head) = &self.head else {
            self.head = Some(Box::new(read_head(&mut r, &mut self.defs)?));
            self.at = r.at;
            return Ok(None);
        };
        let (iv, n) = (&mut self.intervals, self.n);
        // A column of more than STEP_VALUES values is read over several steps.
        let complete = match self.columns {
            0 => {
                // The other four columns take a byte an interval at least.
                self.n = r.len(4)?;
                iv.location = read_runs(&mut r, self.n, head.locations.len())?;
                true
            }
            1 => {
                let bound = head.regions.len();
                more(&mut r, &mut iv.region, n, |r, _| {
                    let x = r.var_u32()?;
                    if x as usize >= bound {
                        return Err(r.err("id out of range"));
                    }
                    Ok(RegionId(x))
                })?
            }
            2 => more(&mut r, &mut iv.start_ns, n, |r, prev| {
                Ok(prev.copied().unwrap_or(0).wrapping_add(unzigzag(r.var()?) as u64))
            })?,
            3 => more(&mut r, &mut iv.dur_ns, n, |r, _| r.var())?,
            4 => {
                more(&mut r, &mut iv.depth, n, |r, _| u16::try_from(r.var()?).map_err(|_| r.err("depth past 16 bits")))?
            }
            5 => {
                iv.args = r.args(n, head.strings.len())?;
                true
            }
            _ => {
                let head = self.head.take().ok_or_else(|| r.err("decoded already"))?;
                return read_rest(&mut r, *head, std::mem::take(&mut self.intervals)).map(Some);
            }
        };
        if complete {
            self.columns += 1;
        }
        self.at = r.at;
        Ok(None)
    }
}

/// Values an interval column's step reads at most: a few ms of the page's wasm, whatever the trace's length.
const STEP_VALUES: usize = 1 << 18;

/// The next values of a column of `n` into `v` (allocated at `n` with the first), at most [`STEP_VALUES`],
/// each read by `one` given the value before it; true once the column is complete. `v` is unchanged on error.
fn more<T>(
    r: &mut Reader,
    v: &mut Vec<T>,
    n: usize,
    mut one: impl FnMut(&mut Reader, Option<&T>) -> Result<T, DecodeError>,
) -> Result<bool, DecodeError> {
    if v.is_empty() {
        v.reserve_exact(n);
    }
    let had = v.len();
    for _ in had..n.min(had + STEP_VALUES) {
        match one(r, v.last()) {
            Ok(x) => v.push(x),
            Err(e) => {
                v.truncate(had);
                return Err(e);
            }
        }
    }
    Ok(v.len() == n)
}

/// The intervals' location column from its runs: `n` in all, each location below `locations`.
fn read_runs(r: &mut Reader, n: usize, locations: usize) -> Result<Vec<LocationId>, DecodeError> {
    let runs = r.len(2)?;
    let mut v = Vec::with_capacity(n);
    for _ in 0..runs {
        let l = r.var_u32()?;
        let k = r.var()?;
        if l as usize >= locations {
            return Err(r.err("id out of range"));
        }
        if k == 0 || k > (n - v.len()) as u64 {
            return Err(r.err("runs of locations do not add up to the intervals"));
        }
        v.extend(std::iter::repeat_n(LocationId(l), k as usize));
    }
    if v.len() != n {
        return Err(r.err("runs of locations do not add up to the intervals"));
    }
    Ok(v)
}

/// The head: read whole, or, for a slice, its scalars with the tables taken from `defs` (their counts checked).
fn read_head(r: &mut Reader, defs: &mut Option<Box<Tables>>) -> Result<Head, DecodeError> {
    let magic = r.take(8)?;
    let slice = magic == SLICE_MAGIC;
    if magic != MAGIC && !slice {
        return Err(r.err("wrong magic"));
    }
    let format = format_from(r.u8()?).ok_or_else(|| r.err("unknown format"))?;
    let origin_ns = r.i64()?;
    let span_ns = r.u64()?;
    let event_records = r.u64()?;
    if slice {
        let t = defs.take().ok_or_else(|| r.err("a slice, and no definitions to read it over"))?;
        let counts = [t.strings.len(), t.processes.len(), t.locations.len(), t.regions.len()];
        for n in counts {
            if r.var()? != n as u64 {
                return Err(r.err("a slice of other definitions"));
            }
        }
        let Tables { strings, processes, locations, regions } = *t;
        return Ok(Head { format, origin_ns, span_ns, event_records, strings, processes, locations, regions });
    }
    let nstr = r.len(1)?;
    let mut list = Vec::with_capacity(nstr);
    for _ in 0..nstr {
        list.push(r.str()?.into_boxed_str());
    }
    let strings =
        StringTable::from_unique(list).ok_or_else(|| r.err("a repeated string, or the first is not the empty one"))?;
    let ns = strings.len();
    let p_native = r.col_i64()?;
    let p_name = r.col_id(ns, StringId)?;
    let processes = Processes { native_id: p_native, name: p_name, sort_key: r.col_i64()? };
    let np = processes.len();
    let l_proc = r.col_id(np, ProcessId)?;
    let l_native = r.col_i64()?;
    let l_name = r.col_id(ns, StringId)?;
    let l_kind = r.col_enum(kind_from)?;
    let locations =
        Locations { process: l_proc, native_id: l_native, name: l_name, kind: l_kind, sort_key: r.col_i64()? };
    let (name, category) = (r.col_id(ns, StringId)?, r.col_id(ns, StringId)?);
    let regions = Regions { name, category, paradigm: r.col_enum(paradigm_from)?, role: r.col_enum(role_from)? };
    Ok(Head { format, origin_ns, span_ns, event_records, strings, processes, locations, regions })
}

fn read_rest(r: &mut Reader, head: Head, intervals: Intervals) -> Result<Trace, DecodeError> {
    let Head { format, origin_ns, span_ns, event_records, strings, processes, locations, regions } = head;
    let (ns, np, nl, nr) = (strings.len(), processes.len(), locations.len(), regions.len());
    let (location, region, time_ns) = (r.col_id(nl, LocationId)?, r.col_id(nr, RegionId)?, r.col_time()?);
    let args = r.args(time_ns.len(), ns)?;
    let instants = Instants { location, region, time_ns, args };
    let kind = r.col_enum(|c| match c {
        0 => Some(MessageKind::PointToPoint),
        1 => Some(MessageKind::Flow),
        _ => None,
    })?;
    let messages = Messages {
        kind,
        sender: r.col_id(nl, LocationId)?,
        receiver: r.col_id(nl, LocationId)?,
        send_ns: r.col_time()?,
        recv_ns: r.col_time()?,
        posted_ns: r.col_time()?,
        size_bytes: r.col_u64()?,
        tag: r.col_u32()?,
        name: r.col_id(ns, StringId)?,
    };
    let (operation, location, region, communicator) =
        (r.col_u32()?, r.col_id(nl, LocationId)?, r.col_id(nr, RegionId)?, r.col_id(ns, StringId)?);
    let root = r.col_u64()?;
    if root.iter().any(|&x| x > nl as u64) {
        return Err(r.err("id out of range"));
    }
    let collectives = Collectives {
        operation,
        location,
        region,
        communicator,
        root: root.into_iter().map(|x| x.checked_sub(1).map(|l| LocationId(l as u32))).collect(),
        start_ns: r.col_time()?,
        end_ns: r.col_time()?,
        bytes_sent: r.col_u64()?,
        bytes_received: r.col_u64()?,
    };
    let counters = Counters {
        series_name: r.col_id(ns, StringId)?,
        series_process: r.col_id(np, ProcessId)?,
        sample_series: r.col_u32()?,
        sample_time_ns: r.col_time()?,
        sample_value: r.col_f64()?,
    };
    let mut warnings = Warnings::default();
    let nw = r.len(2)?;
    for _ in 0..nw {
        let k = warning_kind_from(r.u8()?).ok_or_else(|| r.err("unknown warning kind"))?;
        let n = r.var()?;
        warnings.add_count(k, n);
    }
    let ne = r.len(2)?;
    let mut examples = Vec::with_capacity(ne);
    for _ in 0..ne {
        let k = warning_kind_from(r.u8()?).ok_or_else(|| r.err("unknown warning kind"))?;
        examples.push(Warning { kind: k, message: r.str()? });
    }
    warnings.set_examples(examples);
    // Columns of one table must agree in length.
    let lens_agree = |lens: &[usize]| lens.windows(2).all(|w| w[0] == w[1]);
    if !lens_agree(&[
        intervals.location.len(),
        intervals.region.len(),
        intervals.start_ns.len(),
        intervals.dur_ns.len(),
        intervals.depth.len(),
    ]) || !lens_agree(&[
        messages.kind.len(),
        messages.sender.len(),
        messages.receiver.len(),
        messages.send_ns.len(),
        messages.recv_ns.len(),
        messages.posted_ns.len(),
        messages.size_bytes.len(),
        messages.tag.len(),
        messages.name.len(),
    ]) || !lens_agree(&[
        locations.process.len(),
        locations.native_id.len(),
        locations.name.len(),
        locations.kind.len(),
        locations.sort_key.len(),
    ]) || !lens_agree(&[regions.name.len(), regions.category.len(), regions.paradigm.len(), regions.role.len()])
        || !lens_agree(&[instants.location.len(), instants.region.len(), instants.time_ns.len()])
        || !lens_agree(&[
            collectives.operation.len(),
            collectives.location.len(),
            collectives.region.len(),
            collectives.communicator.len(),
            collectives.start_ns.len(),
            collectives.end_ns.len(),
            collectives.root.len(),
            collectives.bytes_sent.len(),
            collectives.bytes_received.len(),
        ])
        || !lens_agree(&[counters.series_name.len(), counters.series_process.len()])
        || !lens_agree(&[counters.sample_series.len(), counters.sample_time_ns.len(), counters.sample_value.len()])
    {
        return Err(r.err("columns of one table differ in length"));
    }
    let location_intervals = super::builder::location_ranges(&intervals.location, nl)
        .ok_or_else(|| r.err("intervals not grouped by location"))?;
    Ok(Trace {
        format,
        strings,
        processes,
        locations,
        regions,
        intervals,
        instants,
        messages,
        collectives,
        counters,
        warnings,
        origin_ns,
        span_ns,
        location_intervals,
        event_records,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_format_has_its_place_as_its_code() {
        for (i, f) in Format::ALL.into_iter().enumerate() {
            assert_eq!(format_code(f), i as u8, "{f:?}");
            assert_eq!(format_from(i as u8), Some(f));
        }
        assert_eq!(format_from(Format::ALL.len() as u8), None);
        // A format added to the enum but not to ALL would take the next code and not decode.
        assert_eq!(Format::Darshan as usize + 1, Format::ALL.len());
    }

    #[test]
    fn varints_zigzags_and_deltas_round_trip_at_their_extremes() {
        let words = [0, 1, 127, 128, 16_383, 16_384, u32::MAX as u64, u64::MAX - 1, u64::MAX];
        let signed = [0, -1, 1, i64::MIN, i64::MAX, i64::MIN + 1];
        let times = [u64::MAX, 0, 5, 3, u64::MAX / 2, 7];
        let mut w = Writer(Vec::new());
        for &v in &words {
            w.var(v);
        }
        w.col_i64(&signed);
        w.col_time(&times);
        let mut count = Writer(Count(0));
        for &v in &words {
            count.var(v);
        }
        count.col_i64(&signed);
        count.col_time(&times);
        assert_eq!(count.0 .0, w.0.len());
        let mut just_words = Writer(Vec::new());
        for &v in &words {
            just_words.var(v);
        }
        assert_eq!(just_words.0.len(), 1 + 1 + 1 + 2 + 2 + 3 + 5 + 10 + 10);
        let mut r = Reader { b: &w.0, at: 0 };
        for &v in &words {
            assert_eq!(r.var(), Ok(v));
        }
        assert_eq!(r.col_i64().unwrap(), signed);
        assert_eq!(r.col_time().unwrap(), times);
        assert_eq!(r.at, w.0.len());
        // Past 64 bits, and cut short: errors.
        let over = [0xff; 10];
        assert_eq!(Reader { b: &over, at: 0 }.var().unwrap_err().what, "varint past 64 bits");
        assert_eq!(Reader { b: &over[..3], at: 0 }.var().unwrap_err().what, "unexpected end");
        let mut big = Writer(Vec::new());
        big.var(u32::MAX as u64 + 1);
        assert_eq!(Reader { b: &big.0, at: 0 }.var_u32().unwrap_err().what, "value past 32 bits");
    }
}
