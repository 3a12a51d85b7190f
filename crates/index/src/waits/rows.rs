//! The wait-state step's records as its sorts spill them (`spill::sorted`): each a fixed width, little
//! endian, ordered by its fields in order (the sort's key first, the rest making every record's place
//! unique, so the order is the same whatever runs they were cut into). Codecs only: the step is `super`'s.

use super::Call;
use crate::spill::runs::Record;
use weft_store::format::waits::WaitRecord;

/// Bytes put one field after another.
struct Put<'a>(&'a mut Vec<u8>);

impl Put<'_> {
    fn u8(&mut self, v: u8) -> &mut Self {
        self.0.push(v);
        self
    }
    fn u32(&mut self, v: u32) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn u64(&mut self, v: u64) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn call(&mut self, c: Option<Call>) -> &mut Self {
        let c0 = c.unwrap_or_default();
        self.u8(c.is_some() as u8).u64(c0.index).u32(c0.region).u64(c0.start).u64(c0.end)
    }
    fn opt(&mut self, v: Option<u32>) -> &mut Self {
        self.u8(v.is_some() as u8).u32(v.unwrap_or(0))
    }
}

/// Fields read back in the order [`Put`] wrote them.
struct Get<'a> {
    b: &'a [u8],
    at: usize,
}

impl Get<'_> {
    fn u8(&mut self) -> u8 {
        self.at += 1;
        self.b[self.at - 1]
    }
    fn u32(&mut self) -> u32 {
        self.at += 4;
        u32::from_le_bytes(self.b[self.at - 4..self.at].try_into().expect("4 bytes"))
    }
    fn u64(&mut self) -> u64 {
        self.at += 8;
        u64::from_le_bytes(self.b[self.at - 8..self.at].try_into().expect("8 bytes"))
    }
    fn call(&mut self) -> Option<Call> {
        let has = self.u8() != 0;
        let c = Call { index: self.u64(), region: self.u32(), start: self.u64(), end: self.u64() };
        has.then_some(c)
    }
    fn opt(&mut self) -> Option<u32> {
        let has = self.u8() != 0;
        let v = self.u32();
        has.then_some(v)
    }
}

const CALL_BYTES: usize = 1 + 8 + 4 + 8 + 8;

/// Step 2's question: the op of a message's receive (`which` 0, tie leaving) or of its posting (1) on its
/// receiver, by the receiver's block, window and time; with what the send side told (step 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Ask {
    pub block: u32,
    pub window: u32,
    pub location: u32,
    pub t: u64,
    /// The message's number in step 1's order.
    pub message: u64,
    pub which: u8,
    /// 0: `Tie::Entered`, 1: `Tie::Leaving`.
    pub leaving: u8,
    pub sender: u32,
    pub send_ns: u64,
    pub recv_ns: u64,
    pub posted_ns: u64,
    /// The send's op on its sender.
    pub op: Option<Call>,
}

impl Record for Ask {
    const BYTES: usize = 4 * 3 + 8 * 2 + 2 + 4 + 8 * 3 + CALL_BYTES;
    fn put(&self, out: &mut Vec<u8>) {
        Put(out)
            .u32(self.block)
            .u32(self.window)
            .u32(self.location)
            .u64(self.t)
            .u64(self.message)
            .u8(self.which)
            .u8(self.leaving)
            .u32(self.sender)
            .u64(self.send_ns)
            .u64(self.recv_ns)
            .u64(self.posted_ns)
            .call(self.op);
    }
    fn get(b: &[u8]) -> Self {
        let mut g = Get { b, at: 0 };
        Ask {
            block: g.u32(),
            window: g.u32(),
            location: g.u32(),
            t: g.u64(),
            message: g.u64(),
            which: g.u8(),
            leaving: g.u8(),
            sender: g.u32(),
            send_ns: g.u64(),
            recv_ns: g.u64(),
            posted_ns: g.u64(),
            op: g.call(),
        }
    }
}

/// A call that may wait on a partner (late sender: a receive's call and its message's sender's arrival;
/// late receiver: a blocking send's call and its receive's posting), by pattern, call and latest arrival
/// first: the first of each call is its wait.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Candidate {
    pub pattern: u8,
    pub call: u64,
    /// `u64::MAX` less the partner's arrival (the latest first).
    pub later: u64,
    pub location: u32,
    pub partner: u32,
    pub region: u32,
    pub start: u64,
    pub end: u64,
}

impl Record for Candidate {
    const BYTES: usize = 1 + 8 * 2 + 4 * 3 + 8 * 2;
    fn put(&self, out: &mut Vec<u8>) {
        Put(out)
            .u8(self.pattern)
            .u64(self.call)
            .u64(self.later)
            .u32(self.location)
            .u32(self.partner)
            .u32(self.region)
            .u64(self.start)
            .u64(self.end);
    }
    fn get(b: &[u8]) -> Self {
        let mut g = Get { b, at: 0 };
        Candidate {
            pattern: g.u8(),
            call: g.u64(),
            later: g.u64(),
            location: g.u32(),
            partner: g.u32(),
            region: g.u32(),
            start: g.u64(),
            end: g.u64(),
        }
    }
}

impl Record for super::Member {
    const BYTES: usize = 4 + 8 + 4 + 5 + 4 + 8 * 2 + CALL_BYTES;
    fn put(&self, out: &mut Vec<u8>) {
        Put(out)
            .u32(self.operation)
            .u64(self.row)
            .u32(self.location)
            .opt(self.root)
            .u32(self.region)
            .u64(self.begin)
            .u64(self.end)
            .call(self.call);
    }
    fn get(b: &[u8]) -> Self {
        let mut g = Get { b, at: 0 };
        super::Member {
            operation: g.u32(),
            row: g.u64(),
            location: g.u32(),
            root: g.opt(),
            region: g.u32(),
            begin: g.u64(),
            end: g.u64(),
            call: g.call(),
        }
    }
}

/// Where two locations met by a message: (time on `w`, time on `c`), the leaves of the calls that sent and
/// completed it, by pair and time on `w`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Meeting {
    pub w: u32,
    pub c: u32,
    pub a: u64,
    pub b: u64,
}

impl Record for Meeting {
    const BYTES: usize = 4 * 2 + 8 * 2;
    fn put(&self, out: &mut Vec<u8>) {
        Put(out).u32(self.w).u32(self.c).u64(self.a).u64(self.b);
    }
    fn get(b: &[u8]) -> Self {
        let mut g = Get { b, at: 0 };
        Meeting { w: g.u32(), c: g.u32(), a: g.u64(), b: g.u64() }
    }
}

/// A blocking collective a location took part in: its leave and operation, by location and leave.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Joined {
    pub location: u32,
    pub t: u64,
    pub operation: u32,
}

impl Record for Joined {
    const BYTES: usize = 4 + 8 + 4;
    fn put(&self, out: &mut Vec<u8>) {
        Put(out).u32(self.location).u64(self.t).u32(self.operation);
    }
    fn get(b: &[u8]) -> Self {
        let mut g = Get { b, at: 0 };
        Joined { location: g.u32(), t: g.u64(), operation: g.u32() }
    }
}

/// A blocking collective member's leave, by operation, location and row (the last row of a location in an
/// operation is its leave, as a map filled in row order keeps it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Leave {
    pub operation: u32,
    pub location: u32,
    pub row: u64,
    pub t: u64,
}

impl Record for Leave {
    const BYTES: usize = 4 * 2 + 8 * 2;
    fn put(&self, out: &mut Vec<u8>) {
        Put(out).u32(self.operation).u32(self.location).u64(self.row).u64(self.t);
    }
    fn get(b: &[u8]) -> Self {
        let mut g = Get { b, at: 0 };
        Leave { operation: g.u32(), location: g.u32(), row: g.u64(), t: g.u64() }
    }
}

impl Record for WaitRecord {
    const BYTES: usize = 4 + 8 + 1 + 8 + 8 + 4 + 5 + 8;
    fn put(&self, out: &mut Vec<u8>) {
        Put(out)
            .u32(self.location)
            .u64(self.start_ns)
            .u8(self.pattern)
            .u64(self.call)
            .u64(self.end_ns)
            .u32(self.region)
            .opt(self.cause)
            .u64(self.cause_ns);
    }
    fn get(b: &[u8]) -> Self {
        let mut g = Get { b, at: 0 };
        WaitRecord {
            location: g.u32(),
            start_ns: g.u64(),
            pattern: g.u8(),
            call: g.u64(),
            end_ns: g.u64(),
            region: g.u32(),
            cause: g.opt(),
            cause_ns: g.u64(),
        }
    }
}

/// A range whose exclusive time per region is asked for (a root cause's): on `location` over `[a, b]`, for
/// wait number `wait`, counted with `sign` (+1 on the causing location, -1 on the waiting one); by the
/// location's block, the window of `a`, the location and `a`, as the third walk meets them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct RangeQuery {
    pub block: u32,
    pub window: u32,
    pub location: u32,
    pub a: u64,
    pub b: u64,
    pub wait: u64,
    /// 1: +1, 0: -1.
    pub plus: u8,
}

impl RangeQuery {
    pub fn sign(&self) -> i64 {
        if self.plus == 1 {
            1
        } else {
            -1
        }
    }
}

impl Record for RangeQuery {
    const BYTES: usize = 4 * 3 + 8 * 3 + 1;
    fn put(&self, out: &mut Vec<u8>) {
        Put(out)
            .u32(self.block)
            .u32(self.window)
            .u32(self.location)
            .u64(self.a)
            .u64(self.b)
            .u64(self.wait)
            .u8(self.plus);
    }
    fn get(b: &[u8]) -> Self {
        let mut g = Get { b, at: 0 };
        RangeQuery {
            block: g.u32(),
            window: g.u32(),
            location: g.u32(),
            a: g.u64(),
            b: g.u64(),
            wait: g.u64(),
            plus: g.u8(),
        }
    }
}

/// A range's exclusive time in one region name (signed), by wait and name: summed per wait and name into
/// the wait's root causes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Part {
    pub wait: u64,
    pub name: u32,
    pub ns: i64,
}

impl Record for Part {
    const BYTES: usize = 8 + 4 + 8;
    fn put(&self, out: &mut Vec<u8>) {
        Put(out).u64(self.wait).u32(self.name).u64(self.ns as u64);
    }
    fn get(b: &[u8]) -> Self {
        let mut g = Get { b, at: 0 };
        Part { wait: g.u64(), name: g.u32(), ns: g.u64() as i64 }
    }
}

/// A wait as the critical path's walk reads it, in the waits' order, with the latest end (and its wait's
/// position) over its location's waits up to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct PathRow {
    pub location: u32,
    pub start: u64,
    pub end: u64,
    pub cause: Option<u32>,
    pub cause_ns: u64,
    pub max_end: u64,
    pub max_at: u64,
}

impl Record for PathRow {
    const BYTES: usize = 4 + 8 * 2 + 5 + 8 * 3;
    fn put(&self, out: &mut Vec<u8>) {
        Put(out)
            .u32(self.location)
            .u64(self.start)
            .u64(self.end)
            .opt(self.cause)
            .u64(self.cause_ns)
            .u64(self.max_end)
            .u64(self.max_at);
    }
    fn get(b: &[u8]) -> Self {
        let mut g = Get { b, at: 0 };
        PathRow {
            location: g.u32(),
            start: g.u64(),
            end: g.u64(),
            cause: g.opt(),
            cause_ns: g.u64(),
            max_end: g.u64(),
            max_at: g.u64(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round<T: Record + std::fmt::Debug>(x: T) {
        let mut b = Vec::new();
        x.put(&mut b);
        assert_eq!(b.len(), T::BYTES, "{x:?}");
        assert_eq!(T::get(&b), x);
    }

    /// Every record reads back as it was put, in its width.
    #[test]
    fn records_round_trip() {
        let call = Some(Call { index: u64::MAX - 3, region: 7, start: 1 << 40, end: (1 << 40) + 9 });
        round(Ask {
            block: 1,
            window: 2,
            location: 3,
            t: 4,
            message: 5,
            which: 1,
            leaving: 1,
            sender: 6,
            send_ns: 7,
            recv_ns: 8,
            posted_ns: 9,
            op: call,
        });
        round(Ask { op: None, ..Ask::get(&[0; Ask::BYTES]) });
        round(Candidate {
            pattern: 1,
            call: 2,
            later: u64::MAX - 5,
            location: 3,
            partner: 4,
            region: 5,
            start: 6,
            end: 7,
        });
        round(super::super::Member {
            row: 9,
            operation: 8,
            location: 7,
            root: Some(3),
            region: 2,
            begin: 1,
            end: 11,
            call,
        });
        round(super::super::Member { root: None, call: None, ..Record::get(&[0; super::super::Member::BYTES]) });
        round(Meeting { w: 1, c: 2, a: 3, b: 4 });
        round(Joined { location: 1, t: 2, operation: 3 });
        round(Leave { operation: 1, location: 2, row: 3, t: 4 });
        round(WaitRecord {
            location: 1,
            start_ns: 2,
            pattern: 3,
            call: 4,
            end_ns: 5,
            region: 6,
            cause: Some(0),
            cause_ns: 8,
        });
        round(RangeQuery { block: 1, window: 2, location: 3, a: 4, b: 5, wait: 6, plus: 0 });
        round(Part { wait: 1, name: 2, ns: -3 });
        round(PathRow { location: 1, start: 2, end: 3, cause: None, cause_ns: 4, max_end: 5, max_at: 6 });
    }
}
