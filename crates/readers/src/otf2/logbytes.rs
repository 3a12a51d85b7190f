//! A location's logged effects (`assemble::Logged`) as bytes: what a shard that decoded its own locations
//! sends the other shards (`index::exchange`), each replaying it in location order as reading the location
//! would have (`Assembler::replay_bytes`). Integers are LEB128 varints (signed ones zigzagged); a record is
//! a tag byte and its fields. The bytes never leave one run of `weft index` (no version: both ends are the
//! same binary).

use super::assemble::{Logged, Mark};
use super::matching::{CollectivePart, Recv, Send};
use super::threads::ThreadEventKind;
use weft_model::{LocationId, RegionId, WarningKind};

/// Every warning kind, by its code (its position).
const KINDS: [WarningKind; 15] = [
    WarningKind::UnmatchedEnd,
    WarningKind::UnclosedBegin,
    WarningKind::MismatchedEnd,
    WarningKind::ImproperNesting,
    WarningKind::OutOfOrder,
    WarningKind::Truncated,
    WarningKind::MalformedRecord,
    WarningKind::UnknownRecord,
    WarningKind::BadTimestamp,
    WarningKind::UnmatchedFlow,
    WarningKind::DanglingReference,
    WarningKind::Other,
    WarningKind::ParentCycle,
    WarningKind::MisnamedEnd,
    WarningKind::Merged,
];

fn kind_code(k: WarningKind) -> u8 {
    // A match, not a search: a new kind fails to compile here until it has a code.
    match k {
        WarningKind::UnmatchedEnd => 0,
        WarningKind::UnclosedBegin => 1,
        WarningKind::MismatchedEnd => 2,
        WarningKind::ImproperNesting => 3,
        WarningKind::OutOfOrder => 4,
        WarningKind::Truncated => 5,
        WarningKind::MalformedRecord => 6,
        WarningKind::UnknownRecord => 7,
        WarningKind::BadTimestamp => 8,
        WarningKind::UnmatchedFlow => 9,
        WarningKind::DanglingReference => 10,
        WarningKind::Other => 11,
        WarningKind::ParentCycle => 12,
        WarningKind::MisnamedEnd => 13,
        WarningKind::Merged => 14,
    }
}

pub(super) fn put_u(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

pub(super) fn put_i(out: &mut Vec<u8>, v: i64) {
    put_u(out, ((v << 1) ^ (v >> 63)) as u64);
}

/// Reads what [`put_u`] and [`put_i`] wrote; errors name the byte.
pub(super) struct Bytes<'a> {
    pub(super) b: &'a [u8],
    pub(super) at: usize,
}

impl Bytes<'_> {
    pub(super) fn at_end(&self) -> bool {
        self.at >= self.b.len()
    }

    #[inline]
    fn byte(&mut self) -> Result<u8, String> {
        let v = *self.b.get(self.at).ok_or_else(|| format!("a logged record cut short at byte {}", self.at))?;
        self.at += 1;
        Ok(v)
    }

    #[inline]
    pub(super) fn u(&mut self) -> Result<u64, String> {
        // Most fields are one byte (ids, small numbers).
        if let Some(&b) = self.b.get(self.at) {
            if b < 0x80 {
                self.at += 1;
                return Ok(b as u64);
            }
        }
        self.u_long()
    }

    #[inline(never)]
    fn u_long(&mut self) -> Result<u64, String> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            v |= ((b & 0x7f) as u64) << shift;
            if b < 0x80 {
                return Ok(v);
            }
        }
        Err(format!("a varint over 64 bits at byte {}", self.at))
    }

    #[inline]
    fn u32(&mut self) -> Result<u32, String> {
        let at = self.at;
        u32::try_from(self.u()?).map_err(|_| format!("a 32-bit field over its range at byte {at}"))
    }

    #[inline]
    pub(super) fn i(&mut self) -> Result<i64, String> {
        let v = self.u()?;
        Ok((v >> 1) as i64 ^ -((v & 1) as i64))
    }

    fn bytes(&mut self, n: usize) -> Result<&[u8], String> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.b.len());
        let end = end.ok_or_else(|| format!("a logged record cut short at byte {}", self.at))?;
        let s = &self.b[self.at..end];
        self.at = end;
        Ok(s)
    }
}

fn put_opt(out: &mut Vec<u8>, v: Option<u32>) {
    put_u(out, v.map_or(0, |v| v as u64 + 1));
}

fn opt(r: &mut Bytes) -> Result<Option<u32>, String> {
    Ok(match r.u()? {
        0 => None,
        v => Some(u32::try_from(v - 1).map_err(|_| format!("an id over its range before byte {}", r.at))?),
    })
}

/// Append `item`'s bytes to `out`; `last` is the time of the batch's previous item (0 before its first):
/// times are written as the difference from it (a few bytes, not nine).
pub(super) fn put(item: &Logged, out: &mut Vec<u8>, last: &mut i64) {
    let mut time = |out: &mut Vec<u8>, t: i64| {
        put_i(out, t.wrapping_sub(*last));
        *last = t;
    };
    match item {
        Logged::Warn(kind, message) => {
            out.push(0);
            out.push(kind_code(*kind));
            match message {
                Some(m) => {
                    put_u(out, m.len() as u64 + 1);
                    out.extend_from_slice(m.as_bytes());
                }
                None => put_u(out, 0),
            }
        }
        Logged::WarnMore(kind, n) => {
            out.push(8);
            out.push(kind_code(*kind));
            put_u(out, *n);
        }
        Logged::Send(s) => {
            out.push(1);
            for v in [s.sender.0, s.receiver.0, s.comm, s.tag] {
                put_u(out, v as u64);
            }
            put_u(out, s.length);
            time(out, s.time_ns);
            out.push(s.cancelled as u8);
        }
        Logged::Recv(r) => {
            out.push(2);
            for v in [r.sender.0, r.receiver.0, r.comm, r.tag] {
                put_u(out, v as u64);
            }
            put_u(out, r.length);
            time(out, r.time_ns);
            time(out, r.posted_ns);
            put_u(out, r.posted);
        }
        Logged::Cancel(n) => {
            out.push(3);
            put_u(out, *n as u64);
        }
        Logged::Part(p, fallback) => {
            out.push(4);
            for v in [p.location.0, p.region.0, p.comm] {
                put_u(out, v as u64);
            }
            out.push(p.op);
            put_opt(out, p.root.map(|r| r.0));
            time(out, p.begin_ns);
            time(out, p.end_ns);
            put_u(out, p.sent);
            put_u(out, p.received);
            put_opt(out, fallback.map(u32::from));
        }
        Logged::Instant(mark, t) => {
            out.push(5);
            out.push(match mark {
                Mark::On => 0,
                Mark::Off => 1,
                Mark::Flush => 2,
            });
            time(out, *t);
        }
        Logged::Metric { metric, t, offset, count, values } => {
            out.push(6);
            put_u(out, *metric as u64);
            time(out, *t);
            put_u(out, *offset);
            out.push(*count);
            put_u(out, values.len() as u64);
            for &(ty, bits) in values {
                out.push(ty);
                put_u(out, bits);
            }
        }
        Logged::Thread(t, kind) => {
            out.push(7);
            time(out, *t);
            use ThreadEventKind as K;
            let (code, fields): (u8, [u64; 3]) = match *kind {
                K::Fork { model, requested_threads } => (0, [model as u64, requested_threads as u64, 0]),
                K::Join { model } => (1, [model as u64, 0, 0]),
                K::TeamBegin { team } => (2, [team as u64, 0, 0]),
                K::TeamEnd { team } => (3, [team as u64, 0, 0]),
                K::Create { contingent, sequence } => (4, [contingent as u64, sequence, 0]),
                K::Begin { contingent, sequence } => (5, [contingent as u64, sequence, 0]),
                K::Wait { contingent, sequence } => (6, [contingent as u64, sequence, 0]),
                K::End { contingent, sequence } => (7, [contingent as u64, sequence, 0]),
                K::TaskCreate { team, creating_thread, generation } => {
                    (8, [team as u64, creating_thread as u64, generation as u64])
                }
                K::TaskSwitch { team, creating_thread, generation } => {
                    (9, [team as u64, creating_thread as u64, generation as u64])
                }
                K::TaskComplete { team, creating_thread, generation } => {
                    (10, [team as u64, creating_thread as u64, generation as u64])
                }
                K::OmpFork { requested_threads } => (11, [requested_threads as u64, 0, 0]),
                K::OmpJoin => (12, [0; 3]),
                K::OmpTaskCreate { task } => (13, [task, 0, 0]),
                K::OmpTaskSwitch { task } => (14, [task, 0, 0]),
                K::OmpTaskComplete { task } => (15, [task, 0, 0]),
            };
            out.push(code);
            for f in fields {
                put_u(out, f);
            }
        }
    }
}

/// The next item of `r` (written by [`put`] with the same `last`).
pub(super) fn get(r: &mut Bytes, last: &mut i64) -> Result<Logged, String> {
    let at = r.at;
    let time = |r: &mut Bytes, last: &mut i64| -> Result<i64, String> {
        *last = last.wrapping_add(r.i()?);
        Ok(*last)
    };
    let bad = |what: &str| format!("a logged record at byte {at}: {what}");
    Ok(match r.byte()? {
        0 => {
            let kind = *KINDS.get(r.byte()? as usize).ok_or_else(|| bad("an unknown warning kind"))?;
            let message = match r.u()? {
                0 => None,
                n => {
                    let n = usize::try_from(n - 1).map_err(|_| bad("a message longer than memory"))?;
                    Some(String::from_utf8_lossy(r.bytes(n)?).into_owned())
                }
            };
            Logged::Warn(kind, message)
        }
        8 => {
            let kind = *KINDS.get(r.byte()? as usize).ok_or_else(|| bad("an unknown warning kind"))?;
            Logged::WarnMore(kind, r.u()?)
        }
        1 => Logged::Send(Send {
            sender: LocationId(r.u32()?),
            receiver: LocationId(r.u32()?),
            comm: r.u32()?,
            tag: r.u32()?,
            length: r.u()?,
            time_ns: time(r, last)?,
            cancelled: r.byte()? != 0,
        }),
        2 => Logged::Recv(Recv {
            sender: LocationId(r.u32()?),
            receiver: LocationId(r.u32()?),
            comm: r.u32()?,
            tag: r.u32()?,
            length: r.u()?,
            time_ns: time(r, last)?,
            posted_ns: time(r, last)?,
            posted: r.u()?,
        }),
        3 => Logged::Cancel(r.u32()?),
        4 => {
            let p = CollectivePart {
                location: LocationId(r.u32()?),
                region: RegionId(r.u32()?),
                comm: r.u32()?,
                op: r.byte()?,
                root: opt(r)?.map(LocationId),
                begin_ns: time(r, last)?,
                end_ns: time(r, last)?,
                sent: r.u()?,
                received: r.u()?,
            };
            let fallback = opt(r)?.map(|v| u8::try_from(v).map_err(|_| bad("an operation over 255"))).transpose()?;
            Logged::Part(p, fallback)
        }
        5 => {
            let mark = match r.byte()? {
                0 => Mark::On,
                1 => Mark::Off,
                2 => Mark::Flush,
                _ => return Err(bad("an unknown mark")),
            };
            Logged::Instant(mark, time(r, last)?)
        }
        6 => {
            let (metric, t, offset, count) = (r.u32()?, time(r, last)?, r.u()?, r.byte()?);
            let n = r.u()?;
            // At most a byte's worth of members (a METRIC record counts them in a byte).
            if n > 255 {
                return Err(bad("more than 255 metric values"));
            }
            let mut values = Vec::with_capacity(n as usize);
            for _ in 0..n {
                values.push((r.byte()?, r.u()?));
            }
            Logged::Metric { metric, t, offset, count, values }
        }
        7 => {
            let t = time(r, last)?;
            let code = r.byte()?;
            let (a, b, c) = (r.u()?, r.u()?, r.u()?);
            let small = |v: u64| u32::try_from(v).map_err(|_| bad("a thread event's field over its range"));
            let model = |v: u64| u8::try_from(v).map_err(|_| bad("a threading model over 255"));
            use ThreadEventKind as K;
            let kind = match code {
                0 => K::Fork { model: model(a)?, requested_threads: small(b)? },
                1 => K::Join { model: model(a)? },
                2 => K::TeamBegin { team: small(a)? },
                3 => K::TeamEnd { team: small(a)? },
                4 => K::Create { contingent: small(a)?, sequence: b },
                5 => K::Begin { contingent: small(a)?, sequence: b },
                6 => K::Wait { contingent: small(a)?, sequence: b },
                7 => K::End { contingent: small(a)?, sequence: b },
                8 => K::TaskCreate { team: small(a)?, creating_thread: small(b)?, generation: small(c)? },
                9 => K::TaskSwitch { team: small(a)?, creating_thread: small(b)?, generation: small(c)? },
                10 => K::TaskComplete { team: small(a)?, creating_thread: small(b)?, generation: small(c)? },
                11 => K::OmpFork { requested_threads: small(a)? },
                12 => K::OmpJoin,
                13 => K::OmpTaskCreate { task: a },
                14 => K::OmpTaskSwitch { task: a },
                15 => K::OmpTaskComplete { task: a },
                _ => return Err(bad("an unknown thread event")),
            };
            Logged::Thread(t, kind)
        }
        _ => return Err(bad("an unknown tag")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_warning_kind_has_its_own_code() {
        for (code, &kind) in KINDS.iter().enumerate() {
            assert_eq!(kind_code(kind) as usize, code, "{kind:?}");
        }
    }

    #[test]
    fn every_kind_of_logged_effect_reads_back_as_written() {
        let loc = LocationId(7);
        let items = vec![
            Logged::Warn(WarningKind::Truncated, Some("x.evt: cut at byte 12 ü".into())),
            Logged::Warn(WarningKind::ParentCycle, None),
            Logged::WarnMore(WarningKind::MisnamedEnd, u64::MAX),
            Logged::Send(Send {
                sender: loc,
                receiver: LocationId(u32::MAX),
                comm: 3,
                tag: u32::MAX,
                length: u64::MAX,
                time_ns: i64::MAX,
                cancelled: true,
            }),
            Logged::Recv(Recv {
                sender: LocationId(0),
                receiver: loc,
                comm: 0,
                tag: 5,
                length: 0,
                time_ns: i64::MIN,
                posted_ns: i64::MIN,
                posted: u64::MAX,
            }),
            Logged::Cancel(u32::MAX),
            Logged::Part(
                CollectivePart {
                    location: loc,
                    region: RegionId(9),
                    comm: 1,
                    op: 255,
                    root: Some(LocationId(2)),
                    begin_ns: -5,
                    end_ns: 1 << 60,
                    sent: 8,
                    received: 16,
                },
                Some(255),
            ),
            Logged::Part(
                CollectivePart {
                    location: loc,
                    region: RegionId(u32::MAX),
                    comm: 1,
                    op: 0,
                    root: None,
                    begin_ns: 0,
                    end_ns: 0,
                    sent: 0,
                    received: 0,
                },
                None,
            ),
            Logged::Instant(Mark::On, 1),
            Logged::Instant(Mark::Off, 2),
            Logged::Instant(Mark::Flush, 3),
            Logged::Metric { metric: 4, t: 10, offset: 99, count: 2, values: vec![(1, 5), (4, u64::MAX)] },
            Logged::Thread(11, ThreadEventKind::Fork { model: 3, requested_threads: 8 }),
            Logged::Thread(12, ThreadEventKind::TaskSwitch { team: 1, creating_thread: 2, generation: 3 }),
            Logged::Thread(13, ThreadEventKind::OmpTaskComplete { task: u64::MAX }),
            Logged::Thread(14, ThreadEventKind::OmpJoin),
            Logged::Thread(15, ThreadEventKind::Wait { contingent: 6, sequence: 1 << 40 }),
        ];
        let (mut out, mut last) = (Vec::new(), 0i64);
        for item in &items {
            put(item, &mut out, &mut last);
        }
        let (mut r, mut last) = (Bytes { b: &out, at: 0 }, 0i64);
        let mut back = Vec::new();
        while !r.at_end() {
            back.push(get(&mut r, &mut last).unwrap());
        }
        assert_eq!(format!("{back:?}"), format!("{items:?}"));
        // Cut anywhere, it fails with a message instead of reading past its end.
        for cut in 0..out.len() {
            let (mut r, mut last) = (Bytes { b: &out[..cut], at: 0 }, 0i64);
            let mut n = 0;
            while !r.at_end() {
                match get(&mut r, &mut last) {
                    Ok(_) => n += 1,
                    Err(e) => {
                        assert!(e.contains("byte"), "{e}");
                        break;
                    }
                }
            }
            assert!(n < items.len());
        }
    }
}
