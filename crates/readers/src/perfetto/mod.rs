//! Perfetto's protobuf trace format (`.pftrace`, `.perfetto-trace`, `.pb`; what the Perfetto SDK, Android and
//! Chrome tracing, rocprofv3 and others write), plain or gzipped (detected by content), whole or in chunks.
//!
//! Layers, each in its own file: the chrome reader's incremental gunzip -> framing (here: a `Trace` is a
//! sequence of `packet` fields, field 1, length-delimited; chunks may split anywhere, only the current packet's
//! bytes are held between them) -> `protos` (prost messages with Perfetto's field numbers decode each
//! packet) -> `convert` (sequences' incremental state, clocks, descriptors, events kept per track) -> `tracks`
//! (slices matched, tracks placed, flows chained, counters) and `args` (debug annotations).
//!
//! What is read: track descriptors (process, thread, custom and counter tracks, parent links), track events
//! (slice begin/end, instants, counters and extra counter values, flows, debug annotations, legacy events'
//! complete `X` slices), interned data per sequence, packet defaults, clock snapshots (sequence-scoped and
//! incremental clocks too), legacy process and thread descriptor packets, and zlib `compressed_packets`.
//! ftrace bundles' `sched_switch` events (full or compact) become one track per CPU (`sched`); their other
//! events, and packets of other kinds (process stats, ...), are counted by kind in a warning. Times are the
//! trace clock's ns.
//!
//! It must not panic on any bytes: bytes that do not frame as packets are a [`ReadError`] naming the file,
//! the byte offset and what was expected; a packet that frames but does not decode is skipped and counted.

mod args;
mod convert;
pub mod protos;
mod rocprof;
mod sched;
mod tracks;

use crate::budget::Budget;
use crate::chrome::gzip::Gunzip;
use crate::ReadError;
use convert::Converter;
use prost::Message;
use weft_model::{Trace, WarningKind};

pub(crate) const FORMAT: &str = "Perfetto trace";

/// Largest packet accepted: Perfetto's own writers stay far below (a packet is written in chunks of the
/// service's buffer pages, KBs; reassembled packets are rarely past a few MB). What bounds the bytes held
/// between chunks, so a small gzip claiming one huge packet cannot make the reader hold more.
pub const MAX_PACKET_BYTES: u64 = 64 << 20;

/// Largest inflated size of one `compressed_packets` field.
const MAX_INFLATED_BYTES: u64 = 1 << 30;

/// A varint at the start of `b`: Some((value, length)), None when `b` ends inside it; Err when it runs past
/// ten bytes (no varint is that long).
fn varint(b: &[u8]) -> Result<Option<(u64, usize)>, ()> {
    let mut v = 0u64;
    for (i, &c) in b.iter().enumerate().take(10) {
        v |= u64::from(c & 0x7f) << (7 * i);
        if c & 0x80 == 0 {
            return Ok(Some((v, i + 1)));
        }
    }
    if b.len() >= 10 {
        Err(())
    } else {
        Ok(None)
    }
}

/// One top-level field of a protobuf message: its number, wire type, and where it ends (for length-delimited
/// fields, where its payload starts).
#[derive(Clone, Copy, Debug)]
struct Field {
    number: u32,
    wire: u8,
    payload: usize,
    end: usize,
}

/// Why framing stopped.
#[derive(Debug)]
enum Stop {
    /// The bytes end inside the field.
    More,
    Bad(String),
}

/// The field starting at `b[at..]`.
fn field(b: &[u8], at: usize) -> Result<Field, Stop> {
    let (key, n) =
        varint(&b[at..]).map_err(|_| Stop::Bad("a field key longer than ten bytes".into()))?.ok_or(Stop::More)?;
    let (number, wire) = ((key >> 3) as u32, (key & 7) as u8);
    if number == 0 || key >> 3 > u64::from(u32::MAX >> 3) {
        return Err(Stop::Bad(format!("field number {} is not a protobuf field", key >> 3)));
    }
    let p = at + n;
    let end = match wire {
        0 => match varint(&b[p..]) {
            Ok(Some((_, m))) => p + m,
            Ok(None) => return Err(Stop::More),
            Err(()) => return Err(Stop::Bad("a varint longer than ten bytes".into())),
        },
        1 => p + 8,
        5 => p + 4,
        2 => {
            let (len, m) =
                varint(&b[p..]).map_err(|_| Stop::Bad("a length longer than ten bytes".into()))?.ok_or(Stop::More)?;
            if len > MAX_PACKET_BYTES {
                return Err(Stop::Bad(format!(
                    "field {number} claims {len} bytes, more than the {MAX_PACKET_BYTES} a packet may hold"
                )));
            }
            let start = p + m;
            return Ok(Field { number, wire, payload: start, end: start + len as usize });
        }
        w => return Err(Stop::Bad(format!("wire type {w} (field {number}) is not one a trace uses"))),
    };
    Ok(Field { number, wire, payload: p, end })
}

/// Whether `head` (a file's first bytes) frames as a Perfetto trace: a `packet` field (tag 0x0a, a plausible
/// length) whose own top-level fields are `TracePacket` fields, walked as far as the head goes. Other binary
/// formats, and text that starts with a newline, fail on a key or a wire type within a few bytes.
pub fn looks_like_trace(head: &[u8]) -> bool {
    if head.first() != Some(&0x0a) {
        return false;
    }
    let Ok(packet) = field(head, 0) else { return false };
    if packet.end == packet.payload {
        return false;
    }
    let body = &head[packet.payload..packet.end.min(head.len())];
    let mut at = 0;
    let mut fields = 0;
    while at < body.len() {
        match field(body, at) {
            Ok(f) => {
                // TracePacket's fields are numbered up to about 140, and 900 (for testing).
                if !(f.number <= 200 || f.number == 900) || (f.wire == 2 && f.end > packet.end - packet.payload) {
                    return false;
                }
                fields += 1;
                at = f.end;
            }
            Err(Stop::More) => break,
            Err(Stop::Bad(_)) => return false,
        }
    }
    // A whole first packet must be followed by another packet (or the end).
    let whole = packet.end <= head.len();
    fields > 0 && (!whole || head.len() == packet.end || head[packet.end] == 0x0a)
}

/// Packets framed out of the decompressed bytes, across chunks.
#[derive(Default)]
struct Framer {
    /// The unframed tail (at most the current packet) carried to the next chunk.
    tail: Vec<u8>,
    /// Offset of the first byte of `tail` (or of the next chunk) in the decompressed trace.
    offset: u64,
    packets: u64,
}

impl Framer {
    /// Frame `bytes`, handing each packet to the converter; an error names its offset.
    fn feed(&mut self, bytes: &[u8], conv: &mut Converter) -> Result<(), (u64, String)> {
        if self.tail.is_empty() {
            let used = self.frame(bytes, conv)?;
            self.tail.extend_from_slice(&bytes[used..]);
            self.offset += used as u64;
            return Ok(());
        }
        let mut tail = std::mem::take(&mut self.tail);
        tail.extend_from_slice(bytes);
        let used = self.frame(&tail, conv);
        let used = match used {
            Ok(u) => u,
            Err(e) => {
                self.tail = tail;
                return Err(e);
            }
        };
        tail.drain(..used);
        self.offset += used as u64;
        self.tail = tail;
        Ok(())
    }

    /// Frame the whole packets at the start of `b`; the bytes used.
    fn frame(&mut self, b: &[u8], conv: &mut Converter) -> Result<usize, (u64, String)> {
        let mut at = 0;
        while at < b.len() {
            let f = match field(b, at) {
                Ok(f) => f,
                Err(Stop::More) => break,
                Err(Stop::Bad(why)) => return Err((self.offset + at as u64, why)),
            };
            if f.end > b.len() {
                break;
            }
            let offset = self.offset + at as u64;
            if f.number == 1 && f.wire == 2 {
                self.packets += 1;
                packet(&b[f.payload..f.end], offset, conv, 0);
            } else {
                conv.bad_packet(
                    offset,
                    format!("a field {} of wire type {} at the top level, not a packet", f.number, f.wire),
                );
            }
            at = f.end;
        }
        Ok(at)
    }
}

/// Decode one packet (its bytes) and hand it over; a packet of a kind weft does not read is only counted.
/// `depth` counts `compressed_packets` nesting (at most one level is followed).
fn packet(bytes: &[u8], offset: u64, conv: &mut Converter, depth: u32) {
    match TracePacket::decode(bytes) {
        Ok(p) => {
            let read = p.track_event.is_some()
                || p.track_descriptor.is_some()
                || p.clock_snapshot.is_some()
                || p.thread_descriptor.is_some()
                || p.process_descriptor.is_some()
                || p.ftrace_events.is_some();
            if !read && p.compressed_packets.is_none() {
                if let Some(kind) = data_kind(bytes) {
                    conv.other_kind(kind);
                }
            }
            let compressed = p.compressed_packets.clone();
            conv.packet(p, offset);
            if let Some(c) = compressed {
                compressed_packets(&c, offset, conv, depth);
            }
        }
        Err(e) => conv.bad_packet(offset, e.to_string()),
    }
}

use protos::TracePacket;

/// The data field of a packet weft does not read (its number), if it has one.
fn data_kind(b: &[u8]) -> Option<u32> {
    first_field(b, |n| !protos::is_packet_header_field(n) && !protos::is_read_kind(n))
}

/// The number of the first top-level field of message `b` that `wanted` picks (keys walked, nothing decoded).
fn first_field(b: &[u8], wanted: impl Fn(u32) -> bool) -> Option<u32> {
    let mut at = 0;
    while at < b.len() {
        let f = field(b, at).ok()?;
        if wanted(f.number) {
            return Some(f.number);
        }
        at = f.end;
    }
    None
}

/// zlib-compressed packets: inflated (bounded) and framed like the file's own.
fn compressed_packets(c: &[u8], offset: u64, conv: &mut Converter, depth: u32) {
    use std::io::Read;
    if depth > 0 {
        conv.bad_packet(offset, "compressed packets inside compressed packets".into());
        return;
    }
    let mut inflated = Vec::new();
    let mut z = flate2::read::ZlibDecoder::new(c).take(MAX_INFLATED_BYTES + 1);
    if let Err(e) = z.read_to_end(&mut inflated) {
        conv.bad_packet(offset, format!("its compressed packets do not inflate ({e})"));
        return;
    }
    if inflated.len() as u64 > MAX_INFLATED_BYTES {
        conv.bad_packet(offset, format!("its compressed packets inflate past {MAX_INFLATED_BYTES} bytes"));
        return;
    }
    let mut at = 0;
    while at < inflated.len() {
        match field(&inflated, at) {
            Ok(f) if f.end <= inflated.len() && f.number == 1 && f.wire == 2 => {
                packet(&inflated[f.payload..f.end], offset, conv, depth + 1);
                at = f.end;
            }
            _ => {
                conv.bad_packet(offset, format!("its compressed packets do not frame at inflated byte {at}"));
                return;
            }
        }
    }
}

enum Mode {
    /// Fewer than two bytes seen: gzip or not is still open.
    Undecided(Vec<u8>),
    Plain,
    Gzip(Box<Gunzip>),
    /// The gzip stream broke after some packets: the rest of the input is ignored.
    CutShort,
}

/// A push reader for a Perfetto trace arriving in chunks (split anywhere). Whole-buffer and chunked reads of
/// the same bytes give identical traces.
pub struct PerfettoStreamReader {
    file: String,
    mode: Mode,
    framer: Framer,
    conv: Converter,
    consumed: u64,
    budget: Budget,
    truncated_gzip: bool,
}

impl PerfettoStreamReader {
    /// `file` names the file in messages only.
    pub fn new(file: &str) -> Self {
        Self::with_budget(file, Budget::current())
    }

    /// A reader that refuses, with [`ReadError::TooLarge`], to keep more than `budget.stream_events` events.
    pub fn with_budget(file: &str, budget: Budget) -> Self {
        PerfettoStreamReader {
            file: file.to_string(),
            mode: Mode::Undecided(Vec::new()),
            framer: Framer::default(),
            conv: Converter::new(file),
            consumed: 0,
            budget,
            truncated_gzip: false,
        }
    }

    /// A reader that keeps no event's args (what a store holds).
    pub fn without_args(mut self) -> Self {
        self.conv.skip_args = true;
        self
    }

    /// Input bytes fed so far (compressed bytes for a gzipped file), for progress.
    pub fn bytes_consumed(&self) -> u64 {
        self.consumed
    }

    /// The next bytes of the file.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<(), ReadError> {
        self.consumed += chunk.len() as u64;
        if let Mode::Undecided(head) = &mut self.mode {
            head.extend_from_slice(chunk);
            if head.len() < 2 {
                return Ok(());
            }
            let head = std::mem::take(head);
            self.decide(&head);
            return self.push(&head);
        }
        self.push(chunk)
    }

    fn decide(&mut self, head: &[u8]) {
        self.mode =
            if head.starts_with(&[0x1f, 0x8b]) || head == [0x1f] { Mode::Gzip(Box::default()) } else { Mode::Plain };
    }

    fn malformed(&self, (offset, detail): (u64, String)) -> ReadError {
        let gz = if matches!(self.mode, Mode::Gzip(_)) { " (of the decompressed trace)" } else { "" };
        ReadError::Malformed {
            file: self.file.clone(),
            format: FORMAT,
            offset,
            detail: format!("{detail}{gz}; a Perfetto trace is a sequence of TracePacket fields"),
        }
    }

    fn push(&mut self, bytes: &[u8]) -> Result<(), ReadError> {
        let r = match &mut self.mode {
            Mode::Plain => self.framer.feed(bytes, &mut self.conv),
            Mode::Gzip(gz) => {
                let (framer, conv, budget) = (&mut self.framer, &mut self.conv, self.budget);
                let mut over = false;
                let sink = |piece: &[u8]| {
                    framer.feed(piece, conv)?;
                    if conv.track_events > budget.stream_events {
                        over = true;
                        return Err((0, String::new()));
                    }
                    Ok(())
                };
                match gz.feed(bytes, sink) {
                    Ok(Err(_)) if over => return self.admit(),
                    Ok(r) => r,
                    Err(e) => return self.gzip_broke(e),
                }
            }
            Mode::CutShort | Mode::Undecided(_) => Ok(()),
        };
        r.map_err(|e| self.malformed(e))?;
        self.admit()
    }

    fn admit(&self) -> Result<(), ReadError> {
        self.budget.admit_events(&self.file, FORMAT, self.conv.track_events)?;
        self.budget.admit_held(&self.file, FORMAT, self.framer.tail.len() as u64)
    }

    fn gzip_broke(&mut self, e: std::io::Error) -> Result<(), ReadError> {
        if self.framer.packets == 0 {
            return Err(ReadError::Decompress { file: self.file.clone(), detail: e.to_string() });
        }
        self.mode = Mode::CutShort;
        self.truncated_gzip = true;
        let file = self.file.clone();
        self.conv.b.warn(WarningKind::Truncated, || {
            format!("{file}: the gzip stream breaks off ({e}); packets before the break are kept")
        });
        Ok(())
    }

    /// The file ended: match, place and build the trace.
    pub fn finish(self) -> Result<Trace, ReadError> {
        self.finish_run().map(|(t, _)| t)
    }

    /// [`finish`](Self::finish), with the trace's clock base: the real time (ns since the epoch) minus the
    /// trace clock's, from its first clock snapshot that reads both (None without one). Several traces opened
    /// as one run line up by it.
    pub fn finish_run(mut self) -> Result<(Trace, Option<i64>), ReadError> {
        if let Mode::Undecided(head) = &mut self.mode {
            let head = std::mem::take(head);
            self.decide(&head);
            self.push(&head)?;
        }
        if let Mode::Gzip(gz) = &mut self.mode {
            let (framer, conv) = (&mut self.framer, &mut self.conv);
            match gz.finish(|piece: &[u8]| framer.feed(piece, conv)) {
                Ok(r) => r.map_err(|e| self.malformed(e))?,
                Err(e) => self.gzip_broke(e)?,
            }
        }
        self.admit()?;
        let held = self.framer.tail.len();
        if held > 0 && !self.truncated_gzip {
            if self.framer.packets == 0 {
                return Err(self.malformed((0, format!("the file ends inside its first packet ({held} bytes)"))));
            }
            let (file, n, at) = (self.file.clone(), self.framer.packets, self.framer.offset);
            self.conv.b.warn(WarningKind::Truncated, || {
                format!("{file}: the file ends inside a packet (at byte {at}, {held} bytes dropped); the {n} packets before it are kept")
            });
        }
        let c = &self.conv;
        let nothing = c.events.is_empty() && c.samples.is_empty() && c.switches.is_empty();
        if nothing {
            let mut kinds: Vec<(u32, u64)> = c.other_kinds.iter().map(|(&k, &n)| (k, n)).collect();
            kinds.sort_unstable_by_key(|&(k, n)| (std::cmp::Reverse(n), k));
            let mut named: Vec<String> = kinds
                .iter()
                .take(6)
                .map(|&(k, n)| {
                    format!("{} ({n})", protos::packet_kind_name(k).map_or_else(|| format!("field {k}"), String::from))
                })
                .collect();
            let ftrace: u64 = c.ftrace_other.values().sum();
            if ftrace > 0 {
                named.push(format!("ftrace events other than sched_switch ({ftrace})"));
            }
            let detail = match (self.framer.packets, named.is_empty(), c.bad_packets, c.lost_state) {
                (0, _, _, _) => " (no packets)".to_string(),
                (n, _, bad, _) if bad == n => format!(" (none of its {n} packets decodes)"),
                (n, false, _, _) => format!(" (its {n} packets hold no track events; they are {})", named.join(", ")),
                (n, true, _, lost) if lost > 0 => {
                    format!(" (its {n} packets' track events all needed incremental state that was lost)")
                }
                (n, true, _, _) => format!(" (its {n} packets hold no track events)"),
            };
            return Err(ReadError::Empty { file: self.file.clone(), format: FORMAT, detail });
        }
        let base = self.conv.realtime_base_ns;
        Ok((self.conv.finish()?, base))
    }
}

/// Read a whole Perfetto trace held in memory (plain or gzipped).
pub fn read(name: &str, bytes: &[u8]) -> Result<Trace, ReadError> {
    let mut r = PerfettoStreamReader::new(name);
    r.feed(bytes)?;
    r.finish()
}

/// [`read`], with the trace's clock base ([`PerfettoStreamReader::finish_run`]).
pub fn read_run(name: &str, bytes: &[u8]) -> Result<(Trace, Option<i64>), ReadError> {
    let mut r = PerfettoStreamReader::new(name);
    r.feed(bytes)?;
    r.finish_run()
}

/// [`read`] without the events' args: the trace a store of this file holds.
pub fn read_without_args(name: &str, bytes: &[u8]) -> Result<Trace, ReadError> {
    let mut r = PerfettoStreamReader::new(name).without_args();
    r.feed(bytes)?;
    r.finish()
}

#[cfg(test)]
mod tests;
