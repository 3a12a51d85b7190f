//! OTF2 event files (`X/N.evt`): decodes each record into a typed [`Event`] with its timestamp, applying the
//! location's mapping tables to region and communicator references. Records of types weft does not use are
//! skipped by their length (counted); types newer than OTF2 3.1 are reported as unknown.
//!
//! Decoding only: what the events mean (intervals, messages, collectives) is decided by the caller.

use super::definitions::{LocalDefs, MAPPING_COMM, MAPPING_METRIC, MAPPING_REGION};
use super::encoding::{Cursor, DecodeError, Decoded, Item, Records, ATTRIBUTE_LIST};

pub const EVT_BUFFER_FLUSH: u8 = 10;
pub const EVT_MEASUREMENT_ON_OFF: u8 = 11;
pub const EVT_ENTER: u8 = 12;
pub const EVT_LEAVE: u8 = 13;
pub const EVT_MPI_SEND: u8 = 14;
pub const EVT_MPI_ISEND: u8 = 15;
pub const EVT_MPI_ISEND_COMPLETE: u8 = 16;
pub const EVT_MPI_IRECV_REQUEST: u8 = 17;
pub const EVT_MPI_RECV: u8 = 18;
pub const EVT_MPI_IRECV: u8 = 19;
pub const EVT_MPI_REQUEST_TEST: u8 = 20;
pub const EVT_MPI_REQUEST_CANCELLED: u8 = 21;
pub const EVT_MPI_COLLECTIVE_BEGIN: u8 = 22;
pub const EVT_MPI_COLLECTIVE_END: u8 = 23;
pub const EVT_OMP_FORK: u8 = 24;
pub const EVT_OMP_JOIN: u8 = 25;
pub const EVT_OMP_TASK_CREATE: u8 = 28;
pub const EVT_OMP_TASK_SWITCH: u8 = 29;
pub const EVT_OMP_TASK_COMPLETE: u8 = 30;
pub const EVT_METRIC: u8 = 31;
pub const EVT_THREAD_FORK: u8 = 53;
pub const EVT_THREAD_JOIN: u8 = 54;
pub const EVT_THREAD_TEAM_BEGIN: u8 = 55;
pub const EVT_THREAD_TEAM_END: u8 = 56;
pub const EVT_THREAD_TASK_CREATE: u8 = 59;
pub const EVT_THREAD_TASK_SWITCH: u8 = 60;
pub const EVT_THREAD_TASK_COMPLETE: u8 = 61;
pub const EVT_THREAD_CREATE: u8 = 62;
pub const EVT_THREAD_BEGIN: u8 = 63;
pub const EVT_THREAD_WAIT: u8 = 64;
pub const EVT_THREAD_END: u8 = 65;
/// The highest event type of OTF2 3.0/3.1 (non-blocking collectives, communicator create/destroy); the
/// matched-probe receives of OTF2 3.2 (MpiProbe, MpiMrecv, MpiImrecv*) are reported as unknown.
pub const EVT_MAX_KNOWN: u8 = 88;

/// OTF2_Type codes a metric value may have.
pub const TYPE_UINT64: u8 = 4;
pub const TYPE_INT64: u8 = 8;
pub const TYPE_DOUBLE: u8 = 10;

/// The values of one METRIC record, as written: (OTF2 type, the value's 64 bits), checked to decode when the
/// record was read. The bits are a `u64`, an `i64` or an `f64` by the type ([`metric_value`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MetricValues<'a> {
    bytes: &'a [u8],
    big_endian: bool,
    pub count: u8,
}

impl<'a> MetricValues<'a> {
    pub fn iter(&self) -> impl Iterator<Item = (u8, u64)> + 'a {
        let mut c = Cursor::new(self.bytes, self.big_endian);
        (0..self.count).map_while(move |_| Some((c.u8().ok()?, c.u64().ok()?)))
    }
}

/// A metric value's bits as a number, by its OTF2 type; None for a type metrics cannot have.
pub fn metric_value(type_id: u8, bits: u64) -> Option<f64> {
    match type_id {
        TYPE_UINT64 => Some(bits as f64),
        TYPE_INT64 => Some(bits as i64 as f64),
        TYPE_DOUBLE => Some(f64::from_bits(bits)),
        _ => None,
    }
}

/// One decoded event record (references already mapped to global ids).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event<'a> {
    BufferFlush {
        stop_time: u64,
    },
    MeasurementOnOff {
        on: bool,
    },
    Enter {
        region: u32,
    },
    Leave {
        region: u32,
    },
    MpiSend {
        receiver: u32,
        comm: u32,
        tag: u32,
        length: u64,
    },
    MpiIsend {
        receiver: u32,
        comm: u32,
        tag: u32,
        length: u64,
        request: u64,
    },
    MpiIsendComplete {
        request: u64,
    },
    MpiIrecvRequest {
        request: u64,
    },
    MpiRecv {
        sender: u32,
        comm: u32,
        tag: u32,
        length: u64,
    },
    MpiIrecv {
        sender: u32,
        comm: u32,
        tag: u32,
        length: u64,
        request: u64,
    },
    MpiRequestTest {
        request: u64,
    },
    MpiRequestCancelled {
        request: u64,
    },
    MpiCollectiveBegin,
    MpiCollectiveEnd {
        op: u8,
        comm: u32,
        root: u32,
        sent: u64,
        received: u64,
    },
    OmpFork {
        requested_threads: u32,
    },
    OmpJoin,
    OmpTaskCreate {
        task: u64,
    },
    OmpTaskSwitch {
        task: u64,
    },
    OmpTaskComplete {
        task: u64,
    },
    ThreadFork {
        model: u8,
        requested_threads: u32,
    },
    ThreadJoin {
        model: u8,
    },
    ThreadTeamBegin {
        team: u32,
    },
    ThreadTeamEnd {
        team: u32,
    },
    ThreadTaskCreate {
        team: u32,
        creating_thread: u32,
        generation: u32,
    },
    ThreadTaskSwitch {
        team: u32,
        creating_thread: u32,
        generation: u32,
    },
    ThreadTaskComplete {
        team: u32,
        creating_thread: u32,
        generation: u32,
    },
    ThreadCreate {
        contingent: u32,
        sequence: u64,
    },
    ThreadBegin {
        contingent: u32,
        sequence: u64,
    },
    ThreadWait {
        contingent: u32,
        sequence: u64,
    },
    ThreadEnd {
        contingent: u32,
        sequence: u64,
    },
    /// Values of a metric class's members (or a metric instance's class), in member order.
    Metric {
        metric: u32,
        values: MetricValues<'a>,
    },
    /// A record of a known type weft does not use (RMA, I/O, locks, parameters, calling contexts, ...).
    Other {
        kind: u8,
    },
    /// A record type newer than this reader: skipped by its length.
    Unknown {
        kind: u8,
    },
}

/// How decoding one event file went.
#[derive(Clone, Debug, Default)]
pub struct FileStats {
    pub events: u64,
    pub unknown_kinds: Vec<(u8, u64)>,
    /// First record whose time went backwards: (offset, time before, time after).
    pub out_of_order: Option<(u64, u64, u64)>,
    pub out_of_order_count: u64,
    /// The file stopped without its end-of-file marker.
    pub truncated: bool,
}

/// Decode one location's event file, calling `f(time_ticks, offset, event)` for each event in file order.
/// On a decoding error, the events before it have been delivered and the error names the offset.
pub fn decode<'a, F: FnMut(u64, u64, Event<'a>)>(
    data: &'a [u8],
    chunk_size: u64,
    local: &LocalDefs,
    mut f: F,
) -> (FileStats, Option<DecodeError>) {
    let mut stats = FileStats::default();
    let mut records = match Records::new(data, chunk_size, true) {
        Ok(r) => r,
        Err(e) => return (stats, Some(e)),
    };
    let err = walk(&mut records, 0, &mut 0, &mut stats, local, &mut |t, o, e| {
        f(t, o, e);
        true
    })
    .err();
    if err.is_none() {
        stats.truncated = !records.saw_end_of_file;
    }
    (stats, err)
}

/// [`decode`] of an event file of `len` bytes read from `src` a window of about `window` bytes at a time
/// (the window grows only for a record longer than it): the same events, offsets, statistics and error,
/// in memory bounded by the window whatever the file's length. Errors of `src` are returned as such.
/// `f` returns false to stop reading (the statistics then count the events delivered).
pub fn decode_read<F: for<'b> FnMut(u64, u64, Event<'b>) -> bool>(
    src: &mut dyn std::io::Read,
    len: u64,
    window: usize,
    chunk_size: u64,
    local: &LocalDefs,
    mut f: F,
) -> std::io::Result<(FileStats, Option<DecodeError>)> {
    use std::io::Read;
    let mut stats = FileStats::default();
    let mut cap = window.max(64);
    let mut buf: Vec<u8> = Vec::with_capacity(cap.min(len as usize));
    let mut base = 0usize;
    let mut file_len = len as usize;
    // Fill `buf` up to `cap` bytes; a file shorter than it said ends where its bytes end.
    let fill = |buf: &mut Vec<u8>, cap: usize, base: usize, file_len: &mut usize, src: &mut dyn std::io::Read| {
        let want = cap.saturating_sub(buf.len()).min(file_len.saturating_sub(base + buf.len()));
        let got = src.take(want as u64).read_to_end(buf)?;
        if got < want {
            *file_len = base + buf.len();
        }
        std::io::Result::Ok(())
    };
    fill(&mut buf, cap, base, &mut file_len, src)?;
    let mut at = None;
    let mut time = 0u64;
    loop {
        let mut records = match at {
            None => match Records::window(&buf, file_len, chunk_size, true) {
                Ok(r) => r,
                Err(e) => return Ok((stats, Some(e))),
            },
            Some(at) => Records::resume(&buf, base, at),
        };
        match walk(&mut records, base, &mut time, &mut stats, local, &mut f) {
            Err(mut e) => {
                e.offset += base as u64;
                return Ok((stats, Some(e)));
            }
            Ok(false) => return Ok((stats, None)),
            Ok(true) => {}
        }
        let Some(from) = records.need_more else {
            stats.truncated = !records.saw_end_of_file;
            return Ok((stats, None));
        };
        let mut state = records.pause();
        // Keep the bytes from `from` on (an item cut by the window's end), skip to it when it lies beyond.
        let keep = from - base;
        if keep == 0 {
            cap = cap.saturating_mul(2);
        } else if keep <= buf.len() {
            buf.drain(..keep);
        } else {
            let skip = (keep - buf.len()) as u64;
            buf.clear();
            if std::io::copy(&mut src.take(skip), &mut std::io::sink())? < skip {
                file_len = base + keep.min(file_len - base);
            }
        }
        base = from.min(file_len);
        fill(&mut buf, cap, base, &mut file_len, src)?;
        state.file_len = file_len;
        at = Some(state);
    }
}

/// Walk `records` (a window starting at file offset `base`) to its end or the file's, delivering events;
/// `time` and `stats` go on from window to window. Error offsets are the window's. False: `f` stopped it.
#[inline(always)]
fn walk<'a, F: FnMut(u64, u64, Event<'a>) -> bool>(
    records: &mut Records<'a>,
    base: usize,
    time: &mut u64,
    stats: &mut FileStats,
    local: &LocalDefs,
    f: &mut F,
) -> Result<bool, DecodeError> {
    loop {
        // One call of `f` (so that it is inlined once): each arm gives the event and its record's start.
        let (start, ev) = if let Some((t, kind, reference, start)) = records.timed_enter_leave() {
            // A timestamp and the ENTER or LEAVE after it, decoded together: what the two items below give.
            if t < *time {
                stats.out_of_order_count += 1;
                if stats.out_of_order.is_none() {
                    stats.out_of_order = Some(((base + start - 10) as u64, *time, t));
                }
            }
            *time = t;
            let region = local.map(MAPPING_REGION, reference);
            (start, if kind == EVT_ENTER { Event::Enter { region } } else { Event::Leave { region } })
        } else {
            let item = match records.next_item() {
                Ok(Some(i)) => i,
                Ok(None) => return Ok(true),
                Err(e) => {
                    stats.truncated = true;
                    return Err(e);
                }
            };
            match item {
                Item::Time(t) => {
                    if t < *time {
                        stats.out_of_order_count += 1;
                        if stats.out_of_order.is_none() {
                            stats.out_of_order = Some(((base + records.cur.pos() - 9) as u64, *time, t));
                        }
                    }
                    *time = t;
                    continue;
                }
                Item::Record { kind: ATTRIBUTE_LIST, .. } => continue,
                Item::Record { kind, start, end } => {
                    let mut c = records.data(start, end);
                    match event(kind, &mut c, local) {
                        Ok(ev) => {
                            if let Event::Unknown { kind } = ev {
                                match stats.unknown_kinds.iter_mut().find(|p| p.0 == kind) {
                                    Some(p) => p.1 += 1,
                                    None => stats.unknown_kinds.push((kind, 1)),
                                }
                            }
                            (start, ev)
                        }
                        Err(e) => {
                            return Err(DecodeError {
                                offset: e.offset,
                                what: format!("event record type {kind}: {}", e.what),
                            })
                        }
                    }
                }
            }
        };
        stats.events += 1;
        if !f(*time, (base + start) as u64, ev) {
            return Ok(false);
        }
    }
}

// Always inlined: the record loop of each reader of a location's events (`assemble`'s, in order and ahead)
// decodes through it, and a call per record costs the whole read about a tenth of its time.
#[inline(always)]
fn event<'a>(kind: u8, c: &mut Cursor<'a>, local: &LocalDefs) -> Decoded<Event<'a>> {
    let comm = |c: &mut Cursor| -> Decoded<u32> { Ok(local.map(MAPPING_COMM, c.u32()?)) };
    Ok(match kind {
        EVT_ENTER => Event::Enter { region: local.map(MAPPING_REGION, c.u32()?) },
        EVT_LEAVE => Event::Leave { region: local.map(MAPPING_REGION, c.u32()?) },
        EVT_BUFFER_FLUSH => Event::BufferFlush { stop_time: c.u64_full()? },
        EVT_MEASUREMENT_ON_OFF => Event::MeasurementOnOff { on: c.u8()? == 1 },
        EVT_MPI_SEND => Event::MpiSend { receiver: c.u32()?, comm: comm(c)?, tag: c.u32()?, length: c.u64()? },
        EVT_MPI_ISEND => {
            Event::MpiIsend { receiver: c.u32()?, comm: comm(c)?, tag: c.u32()?, length: c.u64()?, request: c.u64()? }
        }
        EVT_MPI_ISEND_COMPLETE => Event::MpiIsendComplete { request: c.u64()? },
        EVT_MPI_IRECV_REQUEST => Event::MpiIrecvRequest { request: c.u64()? },
        EVT_MPI_RECV => Event::MpiRecv { sender: c.u32()?, comm: comm(c)?, tag: c.u32()?, length: c.u64()? },
        EVT_MPI_IRECV => {
            Event::MpiIrecv { sender: c.u32()?, comm: comm(c)?, tag: c.u32()?, length: c.u64()?, request: c.u64()? }
        }
        EVT_MPI_REQUEST_TEST => Event::MpiRequestTest { request: c.u64()? },
        EVT_MPI_REQUEST_CANCELLED => Event::MpiRequestCancelled { request: c.u64()? },
        EVT_MPI_COLLECTIVE_BEGIN => Event::MpiCollectiveBegin,
        EVT_MPI_COLLECTIVE_END => {
            Event::MpiCollectiveEnd { op: c.u8()?, comm: comm(c)?, root: c.u32()?, sent: c.u64()?, received: c.u64()? }
        }
        EVT_OMP_FORK => Event::OmpFork { requested_threads: c.u32()? },
        EVT_OMP_JOIN => Event::OmpJoin,
        EVT_OMP_TASK_CREATE => Event::OmpTaskCreate { task: c.u64()? },
        EVT_OMP_TASK_SWITCH => Event::OmpTaskSwitch { task: c.u64()? },
        EVT_OMP_TASK_COMPLETE => Event::OmpTaskComplete { task: c.u64()? },
        EVT_METRIC => {
            let metric = local.map(MAPPING_METRIC, c.u32()?);
            let count = c.u8()?;
            let start = c.pos();
            for _ in 0..count {
                c.u8()?;
                c.u64()?;
            }
            Event::Metric { metric, values: MetricValues { bytes: c.since(start), big_endian: c.big_endian(), count } }
        }
        EVT_THREAD_FORK => Event::ThreadFork { model: c.u8()?, requested_threads: c.u32()? },
        EVT_THREAD_JOIN => Event::ThreadJoin { model: c.u8()? },
        EVT_THREAD_TEAM_BEGIN => Event::ThreadTeamBegin { team: comm(c)? },
        EVT_THREAD_TEAM_END => Event::ThreadTeamEnd { team: comm(c)? },
        EVT_THREAD_TASK_CREATE => {
            Event::ThreadTaskCreate { team: comm(c)?, creating_thread: c.u32()?, generation: c.u32()? }
        }
        EVT_THREAD_TASK_SWITCH => {
            Event::ThreadTaskSwitch { team: comm(c)?, creating_thread: c.u32()?, generation: c.u32()? }
        }
        EVT_THREAD_TASK_COMPLETE => {
            Event::ThreadTaskComplete { team: comm(c)?, creating_thread: c.u32()?, generation: c.u32()? }
        }
        EVT_THREAD_CREATE => Event::ThreadCreate { contingent: comm(c)?, sequence: c.u64()? },
        EVT_THREAD_BEGIN => Event::ThreadBegin { contingent: comm(c)?, sequence: c.u64()? },
        EVT_THREAD_WAIT => Event::ThreadWait { contingent: comm(c)?, sequence: c.u64()? },
        EVT_THREAD_END => Event::ThreadEnd { contingent: comm(c)?, sequence: c.u64()? },
        k if k <= EVT_MAX_KNOWN => Event::Other { kind: k },
        k => Event::Unknown { kind: k },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft_samples::otf2_gen::GenConfig;

    /// The generator's archive as this test build's `MemoryFiles` (weft-samples links the readers' library build).
    fn archive(cfg: &GenConfig) -> (crate::otf2::MemoryFiles, weft_samples::otf2_gen::GenCounts) {
        let (files, counts) = weft_samples::otf2_gen::archive(cfg);
        (crate::otf2::MemoryFiles { files: files.files }, counts)
    }

    /// Every event (time, offset, event), the statistics and the error, as text.
    fn whole(data: &[u8], chunk: u64) -> String {
        let mut got = Vec::new();
        let (stats, err) = decode(data, chunk, &LocalDefs::default(), |t, o, e| got.push(format!("{t} {o} {e:?}")));
        format!("{got:?}\n{stats:?}\n{err:?}")
    }

    fn windowed(data: &[u8], chunk: u64, window: usize, len: u64) -> String {
        let mut got = Vec::new();
        let (stats, err) = decode_read(&mut &data[..], len, window, chunk, &LocalDefs::default(), |t, o, e| {
            got.push(format!("{t} {o} {e:?}"));
            true
        })
        .unwrap();
        format!("{got:?}\n{stats:?}\n{err:?}")
    }

    #[test]
    fn a_file_read_a_window_at_a_time_decodes_as_the_whole_file() {
        for chunk in [300u64, 4096, 0] {
            let cfg = GenConfig { chunk_size: chunk.max(1 << 20), threads: 2, ..GenConfig::new(2, 6_000) };
            let cfg = if chunk == 0 { cfg } else { GenConfig { chunk_size: chunk, ..cfg } };
            let (files, _) = archive(&cfg);
            let evt = files.files.iter().find(|(p, _)| p.ends_with(".evt")).unwrap().1;
            let chunk = cfg.chunk_size;
            // Whole, cut short (records cut by the end), and damaged (a byte changed) files.
            let mut damaged = evt.clone();
            damaged[evt.len() / 3] ^= 0x5a;
            let mut long_record = evt[..evt.len() / 2].to_vec();
            long_record.extend_from_slice(&[40, 0xFF, 0, 0, 0, 0, 0, 1, 0, 0]);
            let cases = [evt.clone(), evt[..evt.len() * 2 / 3].to_vec(), evt[..evt.len() - 3].to_vec(), damaged];
            for data in cases.iter().chain([&long_record]) {
                let expect = whole(data, chunk);
                for window in [1, 64, 65, 100, 333, 1000, 4096, 1 << 20] {
                    assert_eq!(windowed(data, chunk, window, data.len() as u64), expect, "window {window}");
                }
                // A file shorter than its length said reads as the bytes it has.
                assert_eq!(windowed(data, chunk, 100, data.len() as u64 + 50), expect);
            }
        }
    }

    #[test]
    fn damaged_files_read_a_window_at_a_time_decode_as_the_whole_file() {
        let cfg = GenConfig { chunk_size: 512, ..GenConfig::new(2, 3_000) };
        let (files, _) = archive(&cfg);
        let evt = files.files.iter().find(|(p, _)| p.ends_with(".evt")).unwrap().1;
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..300 {
            let mut data = evt.clone();
            for _ in 0..1 + x % 4 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let at = (x >> 20) as usize % data.len();
                data[at] = match x % 4 {
                    0 => 0xFF,
                    1 => 0,
                    2 => (x >> 8) as u8,
                    _ => data[at] ^ 1,
                };
            }
            let expect = whole(&data, 512);
            for window in [64, 100, 511, 700] {
                assert_eq!(windowed(&data, 512, window, data.len() as u64), expect, "window {window}");
            }
        }
    }
}
