//! A compact binary encoding of a whole [`Trace`], for handing a parsed trace from the worker to the page as
//! one transferable ArrayBuffer. Columns are written as little-endian arrays, so encoding and decoding run at
//! memory speed. Decoding checks every length and id against the buffer: a corrupt buffer gives an error,
//! never a panic. Not a file format: both ends are the same build. [`Decoding`] runs the decode in steps (the
//! tables, each interval column, the intervals' args, the rest) for the page to yield between them. Args
//! (`model::args`) travel as their sparse columns: nothing for a trace without any.

use super::*;
use thiserror::Error;

const MAGIC: &[u8; 8] = b"WEFTMDL2";

#[derive(Debug, Error, PartialEq)]
#[error("trace buffer corrupt at byte {offset}: {what}")]
pub struct DecodeError {
    pub offset: usize,
    pub what: &'static str,
}

struct Writer(Vec<u8>);

impl Writer {
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn i64(&mut self, v: i64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn len(&mut self, n: usize) {
        self.u64(n as u64);
    }
    fn str(&mut self, s: &str) {
        self.len(s.len());
        self.0.extend_from_slice(s.as_bytes());
    }
    fn col_u32(&mut self, v: impl ExactSizeIterator<Item = u32>) {
        self.len(v.len());
        for x in v {
            self.u32(x);
        }
    }
    fn col_u64(&mut self, v: &[u64]) {
        self.len(v.len());
        for &x in v {
            self.u64(x);
        }
    }
    fn col_i64(&mut self, v: &[i64]) {
        self.len(v.len());
        for &x in v {
            self.i64(x);
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
    /// A length, checked against what is left (each element at least `unit` bytes).
    fn len(&mut self, unit: usize) -> Result<usize, DecodeError> {
        let n = self.u64()?;
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
    fn col_u32(&mut self) -> Result<Vec<u32>, DecodeError> {
        let n = self.len(4)?;
        let s = self.take(n * 4)?;
        Ok(s.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
    }
    fn col_u64(&mut self) -> Result<Vec<u64>, DecodeError> {
        let n = self.len(8)?;
        let s = self.take(n * 8)?;
        Ok(s.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8]))).collect())
    }
    fn col_i64(&mut self) -> Result<Vec<i64>, DecodeError> {
        Ok(self.col_u64()?.into_iter().map(|v| v as i64).collect())
    }
    fn col_u8(&mut self) -> Result<Vec<u8>, DecodeError> {
        let n = self.len(1)?;
        Ok(self.take(n)?.to_vec())
    }
    /// The args of a table of `events` events, every index, entry, end and key checked.
    fn args(&mut self, events: usize, strings: usize) -> Result<EventArgs, DecodeError> {
        let (event, entry) = (self.col_u32()?, self.col_u32()?);
        let (pairs_end, key, kind, value_end) = (self.col_u32()?, self.col_u32()?, self.col_u8()?, self.col_u32()?);
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
        let table = ArgTable {
            pairs_end,
            key: ids(key, strings, self, StringId)?,
            kind: enums(kind, self, ArgKind::from_code)?,
            value_end,
            text,
        };
        Ok(EventArgs { event, entry, table })
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
    ]
    .into_iter()
    .find(|&k| k as u8 == c)
}

pub fn encode(t: &Trace) -> Vec<u8> {
    let mut w = Writer(Vec::with_capacity(encoded_len(t)));
    w.0.extend_from_slice(MAGIC);
    w.u8(format_code(t.format));
    w.i64(t.origin_ns);
    w.u64(t.span_ns);
    w.u64(t.event_records);
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
    let iv = &t.intervals;
    w.col_u32(iv.location.iter().map(|x| x.0));
    w.col_u32(iv.region.iter().map(|x| x.0));
    w.col_u64(&iv.start_ns);
    w.col_u64(&iv.dur_ns);
    w.col_u32(iv.depth.iter().map(|&d| d as u32));
    w.args(&iv.args);
    let ins = &t.instants;
    w.col_u32(ins.location.iter().map(|x| x.0));
    w.col_u32(ins.region.iter().map(|x| x.0));
    w.col_u64(&ins.time_ns);
    w.args(&ins.args);
    let m = &t.messages;
    w.col_u8(m.kind.iter().map(|&k| k as u8));
    w.col_u32(m.sender.iter().map(|x| x.0));
    w.col_u32(m.receiver.iter().map(|x| x.0));
    w.col_u64(&m.send_ns);
    w.col_u64(&m.recv_ns);
    w.col_u64(&m.size_bytes);
    w.col_u32(m.tag.iter().copied());
    w.col_u32(m.name.iter().map(|s| s.0));
    let c = &t.collectives;
    w.col_u32(c.operation.iter().copied());
    w.col_u32(c.location.iter().map(|x| x.0));
    w.col_u32(c.region.iter().map(|x| x.0));
    w.col_u32(c.communicator.iter().map(|s| s.0));
    w.col_u32(c.root.iter().map(|r| r.map_or(u32::MAX, |x| x.0)));
    w.col_u64(&c.start_ns);
    w.col_u64(&c.end_ns);
    w.col_u64(&c.bytes_sent);
    w.col_u64(&c.bytes_received);
    let k = &t.counters;
    w.col_u32(k.series_name.iter().map(|s| s.0));
    w.col_u32(k.series_process.iter().map(|x| x.0));
    w.col_u32(k.sample_series.iter().copied());
    w.col_u64(&k.sample_time_ns);
    w.col_u64(&k.sample_value.iter().map(|v| v.to_bits()).collect::<Vec<_>>());
    w.len(t.warnings.counts().len());
    for &(kind, n) in t.warnings.counts() {
        w.u8(kind as u8);
        w.u64(n);
    }
    w.len(t.warnings.examples().len());
    for e in t.warnings.examples() {
        w.u8(e.kind as u8);
        w.str(&e.message);
    }
    w.0
}

/// The length of `encode(t)`, so its buffer is allocated once at its size: an estimate a few % short made
/// a store worker's 26 MB answer grow to a 52 MB buffer (BENCHMARKS.md, "Store format 2": the page).
fn encoded_len(t: &Trace) -> usize {
    let col = |n: usize, width: usize| 8 + n * width;
    let text = |s: &str| 8 + s.len();
    let args = |a: &EventArgs| {
        let t = &a.table;
        col(a.event.len(), 4)
            + col(a.entry.len(), 4)
            + col(t.pairs_end.len(), 4)
            + col(t.key.len(), 4)
            + col(t.kind.len(), 1)
            + col(t.value_end.len(), 4)
            + text(&t.text)
    };
    let (np, nl, nr) = (t.processes.len(), t.locations.len(), t.regions.len());
    let (n, ni, nm, nc) = (t.intervals.len(), t.instants.time_ns.len(), t.messages.len(), t.collectives.len());
    let (series, samples) = (t.counters.series_name.len(), t.counters.sample_series.len());
    MAGIC.len()
        + 1
        + 3 * 8
        + 8
        + t.strings.iter().map(text).sum::<usize>()
        + 2 * col(np, 8)
        + col(np, 4)
        + 2 * col(nl, 4)
        + 2 * col(nl, 8)
        + col(nl, 1)
        + 2 * col(nr, 4)
        + 2 * col(nr, 1)
        + 3 * col(n, 4)
        + 2 * col(n, 8)
        + args(&t.intervals.args)
        + 2 * col(ni, 4)
        + col(ni, 8)
        + args(&t.instants.args)
        + col(nm, 1)
        + 4 * col(nm, 4)
        + 3 * col(nm, 8)
        + 5 * col(nc, 4)
        + 4 * col(nc, 8)
        + 2 * col(series, 4)
        + col(samples, 4)
        + 2 * col(samples, 8)
        + 8
        + t.warnings.counts().len() * 9
        + 8
        + t.warnings.examples().iter().map(|e| 1 + text(&e.message)).sum::<usize>()
}

fn ids<T>(v: Vec<u32>, bound: usize, r: &Reader, make: impl Fn(u32) -> T) -> Result<Vec<T>, DecodeError> {
    if v.iter().any(|&x| x as usize >= bound) {
        return Err(r.err("id out of range"));
    }
    Ok(v.into_iter().map(make).collect())
}

fn enums<T>(v: Vec<u8>, r: &Reader, f: impl Fn(u8) -> Option<T>) -> Result<Vec<T>, DecodeError> {
    v.into_iter().map(|c| f(c).ok_or_else(|| r.err("unknown enum value"))).collect()
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
/// intervals, then each interval column, then the rest. Give every step the same bytes.
#[derive(Default)]
pub struct Decoding {
    at: usize,
    head: Option<Box<Head>>,
    intervals: Intervals,
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

impl Decoding {
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
            self.head = Some(Box::new(read_head(&mut r)?));
            self.at = r.at;
            return Ok(None);
        };
        let iv = &mut self.intervals;
        match self.columns {
            0 => iv.location = ids(r.col_u32()?, head.locations.len(), &r, LocationId)?,
            1 => iv.region = ids(r.col_u32()?, head.regions.len(), &r, RegionId)?,
            2 => iv.start_ns = r.col_u64()?,
            3 => iv.dur_ns = r.col_u64()?,
            4 => iv.depth = r.col_u32()?.into_iter().map(|d| d.min(u16::MAX as u32) as u16).collect(),
            5 => iv.args = r.args(iv.location.len(), head.strings.len())?,
            _ => {
                let head = self.head.take().ok_or_else(|| r.err("decoded already"))?;
                return read_rest(&mut r, *head, std::mem::take(&mut self.intervals)).map(Some);
            }
        }
        self.columns += 1;
        self.at = r.at;
        Ok(None)
    }
}

fn read_head(r: &mut Reader) -> Result<Head, DecodeError> {
    if r.take(8)? != MAGIC {
        return Err(r.err("wrong magic"));
    }
    let format = format_from(r.u8()?).ok_or_else(|| r.err("unknown format"))?;
    let origin_ns = r.i64()?;
    let span_ns = r.u64()?;
    let event_records = r.u64()?;
    let nstr = r.len(8)?;
    let mut strings = StringTable::default();
    for i in 0..nstr {
        let s = r.str()?;
        let id = strings.intern(&s);
        if id.0 as usize != i {
            return Err(r.err("duplicate string"));
        }
    }
    let ns = strings.len();
    let sid = |v: Vec<u32>, r: &Reader| ids(v, ns, r, StringId);
    let p_native = r.col_i64()?;
    let p_name = r.col_u32()?;
    let processes = Processes { native_id: p_native, name: sid(p_name, r)?, sort_key: r.col_i64()? };
    let np = processes.len();
    let l_proc = r.col_u32()?;
    let l_proc = ids(l_proc, np, r, ProcessId)?;
    let l_native = r.col_i64()?;
    let l_name = r.col_u32()?;
    let l_kind = r.col_u8()?;
    let locations = Locations {
        process: l_proc,
        native_id: l_native,
        name: sid(l_name, r)?,
        kind: enums(l_kind, r, kind_from)?,
        sort_key: r.col_i64()?,
    };
    let (rn, rc, rp, rr) = (r.col_u32()?, r.col_u32()?, r.col_u8()?, r.col_u8()?);
    let regions = Regions {
        name: sid(rn, r)?,
        category: sid(rc, r)?,
        paradigm: enums(rp, r, paradigm_from)?,
        role: enums(rr, r, role_from)?,
    };
    Ok(Head { format, origin_ns, span_ns, event_records, strings, processes, locations, regions })
}

fn read_rest(r: &mut Reader, head: Head, intervals: Intervals) -> Result<Trace, DecodeError> {
    let Head { format, origin_ns, span_ns, event_records, strings, processes, locations, regions } = head;
    let (ns, np, nl, nr) = (strings.len(), processes.len(), locations.len(), regions.len());
    let sid = |v: Vec<u32>, r: &Reader| ids(v, ns, r, StringId);
    let (nl_, nr_, nt_) = (r.col_u32()?, r.col_u32()?, r.col_u64()?);
    let args = r.args(nt_.len(), ns)?;
    let instants =
        Instants { location: ids(nl_, nl, r, LocationId)?, region: ids(nr_, nr, r, RegionId)?, time_ns: nt_, args };
    let mk = r.col_u8()?;
    let (ms, mr) = (r.col_u32()?, r.col_u32()?);
    let (mss, mrs, msz, mtag, mname) = (r.col_u64()?, r.col_u64()?, r.col_u64()?, r.col_u32()?, r.col_u32()?);
    let messages = Messages {
        kind: enums(mk, r, |c| match c {
            0 => Some(MessageKind::PointToPoint),
            1 => Some(MessageKind::Flow),
            _ => None,
        })?,
        sender: ids(ms, nl, r, LocationId)?,
        receiver: ids(mr, nl, r, LocationId)?,
        send_ns: mss,
        recv_ns: mrs,
        size_bytes: msz,
        tag: mtag,
        name: sid(mname, r)?,
    };
    let (cop, cl, cr, cc, croot) = (r.col_u32()?, r.col_u32()?, r.col_u32()?, r.col_u32()?, r.col_u32()?);
    let collectives = Collectives {
        operation: cop,
        location: ids(cl, nl, r, LocationId)?,
        region: ids(cr, nr, r, RegionId)?,
        communicator: sid(cc, r)?,
        root: croot
            .into_iter()
            .map(|x| if x == u32::MAX || x as usize >= nl { None } else { Some(LocationId(x)) })
            .collect(),
        start_ns: r.col_u64()?,
        end_ns: r.col_u64()?,
        bytes_sent: r.col_u64()?,
        bytes_received: r.col_u64()?,
    };
    let (sn, sp) = (r.col_u32()?, r.col_u32()?);
    let counters = Counters {
        series_name: sid(sn, r)?,
        series_process: ids(sp, np, r, ProcessId)?,
        sample_series: r.col_u32()?,
        sample_time_ns: r.col_u64()?,
        sample_value: r.col_u64()?.into_iter().map(f64::from_bits).collect(),
    };
    let mut warnings = Warnings::default();
    let nw = r.len(9)?;
    for _ in 0..nw {
        let k = warning_kind_from(r.u8()?).ok_or_else(|| r.err("unknown warning kind"))?;
        let n = r.u64()?;
        warnings.add_count(k, n);
    }
    let ne = r.len(9)?;
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
            collectives.start_ns.len(),
            collectives.end_ns.len(),
            collectives.root.len(),
        ])
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
        assert_eq!(Format::Projections as usize + 1, Format::ALL.len());
    }
}
