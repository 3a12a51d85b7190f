//! The Paraver reader for an index that must not hold the trace (`weft index`, issue #17): the .prv is read
//! in chunks cut at line ends and scanned as the whole read scans it; each location's intervals are spilled
//! in segments whenever the buffered ones pass a bound, and read back location by location at the end, in
//! the order the whole read hands them to the builder. Memory holds the header and name files, the compact
//! records the whole read also keeps (messages, counter samples, collective parts, open calls), the buffer
//! and one location's intervals at a time.
//!
//! It must not interpret records (`convert.rs` does) nor nest intervals (the caller does, as
//! [`TraceBuilder::finish`](weft_model::TraceBuilder::finish) would).

use super::{converter, prv, Options, ParaverError, Pcf, Row};
use crate::chrome::EventSpill;
use crate::ReadError;
use weft_model::{RegionId, TraceBuilder};

/// A location's buffered intervals: (start ns, duration ns, region).
type List = Vec<(i64, u64, RegionId)>;

/// The spill the converter writes interval lists to, and how many it buffers first.
pub(super) struct Spilling {
    out: Box<dyn EventSpill>,
    pub buffered: usize,
    pub limit: usize,
    /// The first write that failed: reported at the end.
    pub error: Option<String>,
    scratch: Vec<u8>,
    /// Intervals spilled per location.
    records: Vec<u64>,
    /// At most how many intervals a location may hold (it is read back whole to be sorted and nested).
    pub cap: Option<crate::budget::LocationCap>,
    /// Whether a location passed the cap: the read goes on counting every location's intervals (for the
    /// refusal at its end to name what would do), but spills nothing more.
    pub over: bool,
}

fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn next(b: &[u8], i: &mut usize) -> Result<u64, String> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let c = *b.get(*i).ok_or_else(|| format!("spilled intervals end early at byte {i}"))?;
        *i += 1;
        v |= ((c & 0x7f) as u64) << shift;
        if c < 0x80 {
            return Ok(v);
        }
    }
    Err(format!("spilled intervals damaged at byte {i}"))
}

impl Spilling {
    /// Write every location's buffered intervals (start zigzag, duration, region) and empty the buffers.
    pub fn spill_all(&mut self, lists: &mut [List]) {
        self.buffered = 0;
        if self.records.len() < lists.len() {
            self.records.resize(lists.len(), 0);
        }
        for (l, list) in lists.iter_mut().enumerate() {
            if list.is_empty() {
                continue;
            }
            self.records[l] += list.len() as u64;
            self.over |= self.cap.as_ref().is_some_and(|cap| self.records[l] > cap.records);
            if self.over {
                list.clear();
                continue;
            }
            self.scratch.clear();
            for &(s, d, r) in list.iter() {
                varint(&mut self.scratch, ((s << 1) ^ (s >> 63)) as u64);
                varint(&mut self.scratch, d);
                varint(&mut self.scratch, r.0 as u64);
            }
            *list = Vec::new();
            if self.error.is_none() {
                if let Err(e) = self.out.append(l, &self.scratch) {
                    self.error = Some(e);
                }
            }
        }
    }

    /// The longest location and its intervals, when one passed the cap.
    pub fn longest_over(&self) -> Option<(usize, u64)> {
        if !self.over {
            return None;
        }
        self.records.iter().copied().enumerate().max_by_key(|&(l, n)| (n, std::cmp::Reverse(l)))
    }

    /// Location `l`'s intervals in arrival order.
    pub fn read(&mut self, l: usize) -> Result<List, String> {
        let b = self.out.read(l)?;
        let (mut i, mut out) = (0, Vec::with_capacity(self.records.get(l).copied().unwrap_or(0) as usize));
        while i < b.len() {
            let z = next(&b, &mut i)?;
            let s = ((z >> 1) as i64) ^ -((z & 1) as i64);
            let d = next(&b, &mut i)?;
            let r = RegionId(next(&b, &mut i)? as u32);
            out.push((s, d, r));
        }
        Ok(out)
    }
}

/// Read the .prv from `input` (plain text: the caller inflates a .prv.gz) in chunks of about `chunk` bytes
/// cut at line ends, with the .pcf and .row bytes when given; intervals spill to `spill` every
/// `buffer_records`, the counter samples go to `samples` and the messages to `messages` a batch at a time
/// (the builder returned has the samples' series but neither). At the end every location's intervals go to
/// `each(location, [(region, start, duration)])` in location order, as the whole read would hand them to
/// the builder; returns the builder without them. `read_bytes` is told the bytes read so far after each
/// chunk (its error ends the read). Errors and warnings are the whole read's ([`super::read`]).
#[allow(clippy::too_many_arguments)]
pub fn read_streamed(
    name: &str,
    input: &mut dyn std::io::Read,
    chunk: usize,
    pcf: Option<&[u8]>,
    row: Option<&[u8]>,
    spill: Box<dyn EventSpill>,
    samples: Box<dyn weft_model::SampleSink>,
    messages: Box<dyn weft_model::MessageSink>,
    buffer_records: usize,
    cap: Option<crate::budget::LocationCap>,
    each: &mut crate::chrome::EachLocation<'_, String>,
    read_bytes: &mut dyn FnMut(u64) -> Result<(), String>,
) -> Result<TraceBuilder, ReadError> {
    let io = |detail: String| ReadError::Io { file: name.to_string(), detail };
    let mut buf = vec![0u8; chunk.max(1)];
    let mut total = 0u64;
    let mut fill = |pending: &mut Vec<u8>| -> Result<bool, ReadError> {
        loop {
            match input.read(&mut buf) {
                Ok(0) => return Ok(false),
                Ok(n) => {
                    pending.extend_from_slice(&buf[..n]);
                    total += n as u64;
                    read_bytes(total).map_err(io)?;
                    return Ok(true);
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(io(e.to_string())),
            }
        }
    };
    // The header: read until a line after it is in hand (or the file ends), so that it parses as whole.
    let mut pending = Vec::new();
    let mut more = true;
    let (header, body_at, first_line) = loop {
        let cut = pending.iter().rposition(|&c| c == b'\n').map_or(0, |p| p + 1);
        if !more || cut > 0 {
            let head = if more { &pending[..cut] } else { &pending[..] };
            match prv::parse_header(head) {
                Ok((h, at, first)) if !more || at < cut => break (h, at, first),
                Err(e) if !more => {
                    let e = ParaverError::Header {
                        file: name.to_string(),
                        line: e.line,
                        offset: e.offset,
                        detail: e.detail,
                    };
                    return Err(e.into());
                }
                _ => {}
            }
        }
        more = fill(&mut pending)?;
    };
    pending.drain(..body_at);
    let (pcf, row) = (pcf.map(Pcf::parse), row.map(Row::parse));
    let options = Options::default();
    let mut conv = converter(name, &header, pcf.as_ref(), row.as_ref(), &options);
    conv.b.sink_samples(samples);
    conv.b.sink_messages(messages);
    conv.spill = Some(Spilling {
        out: spill,
        buffered: 0,
        limit: buffer_records.max(1),
        error: None,
        scratch: Vec::new(),
        records: Vec::new(),
        cap,
        over: false,
    });
    let (mut line, mut base) = (first_line, 0u64);
    loop {
        let cut = if more { pending.iter().rposition(|&c| c == b'\n').map_or(0, |p| p + 1) } else { pending.len() };
        if cut > 0 {
            line += prv::scan_body_at(&pending[..cut], line, base, &mut conv);
            base += cut as u64;
            pending.drain(..cut);
        }
        if !more {
            break;
        }
        more = fill(&mut pending)?;
    }
    drop(buf);
    conv.stats.body_lines = line - first_line;
    let s = &conv.stats;
    if s.state_records + s.event_records + s.comm_records + s.global_comm_records == 0 {
        return Err(ParaverError::NoRecords { file: name.to_string(), malformed: s.malformed_records }.into());
    }
    conv.finish_streamed(name, each)
}

/// The .pcf and .row beside the .prv named `name` when they exist and are regular files, and a warning for
/// each that is there but cannot be read (a FIFO, a device) and is left out (native only).
#[cfg(not(target_arch = "wasm32"))]
pub fn names_beside(name: &str) -> (Option<Vec<u8>>, Option<Vec<u8>>, Vec<String>) {
    let mut left_out = Vec::new();
    let mut beside = |ext: &str| {
        let p = super::sibling(name, ext);
        let p = std::path::Path::new(&p);
        match crate::read_regular(p) {
            Ok(b) => Some(b),
            Err(e) => {
                if std::fs::symlink_metadata(p).is_ok() {
                    left_out.push(format!("{e}; the trace is read without it"));
                }
                None
            }
        }
    };
    let (pcf, row) = (beside("pcf"), beside("row"));
    (pcf, row, left_out)
}
