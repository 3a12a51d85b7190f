//! The messages of shards that each matched only those their own locations received (MPI ranks,
//! `exchange`), put in the trace's order and numbered across the shards, each row then sent to the shards
//! whose blocks hold its sender and its receiver (issue #17: no shard matches, sorts or routes every message
//! of the trace). A sample sort:
//!
//! 1. each shard sorts the messages it matched (`CommSpill::sorted`: in memory, or runs in its spill) and
//!    samples them as they are handed over ([`Sampler`]);
//! 2. shard 0 takes every shard's samples, each weighted by the messages it stands for, and cuts them into
//!    one range of the trace's order per shard ([`splitters`]), which it broadcasts;
//! 3. each shard sends each message to the shard of its range, in rounds of all-to-all exchanges of at most
//!    a chunk a shard ([`rounds`]); the shards' pieces arrive sorted and are kept as runs in the spill;
//! 4. each shard counts its range's messages, flows and latest time; these go to every shard, so each knows
//!    the trace's totals and the number of its range's first message (the messages of the ranges before);
//! 5. each shard merges its runs, numbers the messages, and sends each row to its sender's block's shard
//!    and its receiver's (once when they are one), again in rounds; each shard merges the rows it got by
//!    number and puts them in its blocks' files as one process would (`CommSpill::put_message`).
//!
//! A shard's work and memory are then its share of the messages (a page per run while merging, a round's
//! chunk from each shard), whatever the trace's size; the store is the same bytes (`tests/cluster.rs`).

use crate::comms::{CommSpill, RawMessage, Sorted};
use crate::shard::exchange::Exchange;
use crate::shard::partition::{owner, Shard};
use crate::spill::runs::{u64_at, Keys, Merge, Record, Runs, PAGE_BYTES};
use crate::spill::Spill;
use weft_store::format::events::MessageRow;

/// Samples a shard keeps of the messages it matched, at most (between this and half of it).
const SAMPLES: usize = 512;

/// A message's place in the trace's order: send time, receive time, receive number (unique).
type Key = (i64, i64, u64);

fn key(m: &RawMessage) -> Key {
    (m.send_ns, m.recv_ns, m.nth)
}

/// Every `stride`-th message handed over, the stride doubled (and every other sample dropped) whenever
/// the samples reach twice [`SAMPLES`]: a sample of any number of messages in bounded memory.
#[derive(Debug)]
pub struct Sampler {
    samples: Vec<Key>,
    stride: u64,
    seen: u64,
}

impl Default for Sampler {
    fn default() -> Self {
        Sampler { samples: Vec::new(), stride: 1, seen: 0 }
    }
}

impl Sampler {
    pub fn see(&mut self, m: &RawMessage) {
        if self.seen.is_multiple_of(self.stride) {
            self.samples.push(key(m));
            if self.samples.len() == 2 * SAMPLES {
                let mut i = 0;
                self.samples.retain(|_| {
                    i += 1;
                    i % 2 == 1
                });
                self.stride *= 2;
            }
        }
        self.seen += 1;
    }

    fn bytes(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(8 + self.samples.len() * 24);
        b.extend_from_slice(&self.seen.to_le_bytes());
        for &(s, r, n) in &self.samples {
            b.extend_from_slice(&s.to_le_bytes());
            b.extend_from_slice(&r.to_le_bytes());
            b.extend_from_slice(&n.to_le_bytes());
        }
        b
    }
}

/// The keys cutting the trace's order into `n` ranges of about as many messages each, from every shard's
/// samples ([`Sampler::bytes`]; each sample stands for its shard's messages over its samples): range k is
/// the messages from cut k - 1 (included) to cut k (excluded). Fewer cuts (later ranges empty) when the
/// samples are fewer than the ranges.
fn splitters(shards: &[Vec<u8>], n: usize) -> Result<Vec<Key>, String> {
    let mut all: Vec<(Key, f64)> = Vec::new();
    for (r, b) in shards.iter().enumerate() {
        if b.len() < 8 || (b.len() - 8) % 24 != 0 {
            return Err(format!("shard {r}'s message samples are {} bytes", b.len()));
        }
        let seen = u64_at(b, 0);
        let keys = (b.len() - 8) / 24;
        let weight = if keys == 0 { 0.0 } else { seen as f64 / keys as f64 };
        for s in b[8..].chunks_exact(24) {
            all.push(((u64_at(s, 0) as i64, u64_at(s, 8) as i64, u64_at(s, 16)), weight));
        }
    }
    all.sort_unstable_by_key(|a| a.0);
    let total: f64 = all.iter().map(|a| a.1).sum();
    let mut cuts = Vec::with_capacity(n.saturating_sub(1));
    let mut sum = 0.0;
    for (k, w) in all {
        sum += w;
        // A cut where the weight before it reaches the next range's share.
        if cuts.len() + 1 < n && sum > total * (cuts.len() + 1) as f64 / n as f64 && cuts.last() != Some(&k) {
            cuts.push(k);
        }
    }
    Ok(cuts)
}

/// A round's records for each shard, at most about a chunk in all: whether there are more.
type Fill<'a> = dyn FnMut(&mut [Vec<u8>], usize) -> Result<bool, String> + 'a;
/// A shard's records to this one in a round.
type Take<'a> = dyn FnMut(usize, &[u8]) -> Result<(), String> + 'a;

/// Records streamed from every shard to every shard in rounds of all-to-all exchanges: each round `fill`
/// appends records for each shard to its list (at most about `chunk` bytes in all) and says whether it has
/// more; `take` gets each shard's records to this one (its index, the bytes, never empty). The rounds end
/// when no shard has more. Every shard calls it at the same point.
fn rounds(x: &dyn Exchange, chunk: usize, fill: &mut Fill<'_>, take: &mut Take<'_>) -> Result<(), String> {
    let n = x.shard().count as usize;
    let mut more = true;
    loop {
        // Each list starts with whether its sender has more to send.
        let mut out = vec![vec![0u8]; n];
        if more {
            more = fill(&mut out, chunk)?;
        }
        for o in &mut out {
            o[0] = more as u8;
        }
        let got = x.all_to_all(out)?;
        let mut any = false;
        for (k, g) in got.iter().enumerate() {
            let Some((&flag, records)) = g.split_first() else {
                return Err(format!("shard {k} sent an empty round"));
            };
            any |= flag != 0;
            if !records.is_empty() {
                take(k, records)?;
            }
        }
        if !any {
            return Ok(());
        }
    }
}

/// The pages of the runs a shard receives from the others: in memory while they hold at most `cap` bytes,
/// else in the spill (each page is put once, under a key of its own).
struct Received<'s> {
    spill: &'s mut dyn Spill,
    pages: rustc_hash::FxHashMap<usize, Vec<u8>>,
    held: u64,
    cap: u64,
    spilled: u64,
}

impl Received<'_> {
    /// Drop the pages in memory under keys before `key` (runs merged already).
    fn forget_before(&mut self, key: usize) {
        self.pages.retain(|&k, _| k >= key);
        self.held = self.pages.values().map(|p| p.len() as u64).sum();
    }
}

impl Spill for Received<'_> {
    fn put(&mut self, k: usize, bytes: &[u8]) -> Result<(), String> {
        if self.held + bytes.len() as u64 <= self.cap {
            self.held += bytes.len() as u64;
            self.pages.entry(k).or_default().extend_from_slice(bytes);
            return Ok(());
        }
        self.spilled += bytes.len() as u64;
        self.spill.put(k, bytes)
    }
    fn get(&self, k: usize) -> Result<Vec<u8>, String> {
        match self.pages.get(&k) {
            Some(p) => Ok(p.clone()),
            None => self.spill.get(k),
        }
    }
    fn held(&self) -> u64 {
        self.held + self.spill.held()
    }
    fn clear(&mut self) -> Result<(), String> {
        self.pages.clear();
        self.held = 0;
        self.spill.clear()
    }
}

/// This shard's messages in the trace's order.
enum Source<'r> {
    Memory(std::vec::IntoIter<RawMessage>),
    Merge(Merge<'r, RawMessage>),
}

/// The messages this shard's comms were handed (those its locations received), put with every shard's in
/// the trace's order, numbered, times from `origin`, and in the files of the blocks they touch (module
/// doc); `comms` then counts the trace's messages. `sampler` saw each message handed over; `share` bytes
/// bound a round's chunk.
pub(crate) fn finish_messages_exchanged(
    x: &dyn Exchange,
    comms: &mut CommSpill,
    sampler: &Sampler,
    origin: i64,
    spill: &mut dyn Spill,
    share: u64,
) -> Result<(), String> {
    let Shard { index: me, count } = x.shard();
    let n = count as usize;
    let me = me as usize;
    let chunk = (share / (2 * n as u64)).clamp(4 << 10, 8 << 20) as usize;
    let sorted = comms.sorted(spill)?;
    // 2. The ranges, cut by shard 0 from every shard's samples.
    let mut samples = Vec::new();
    for r in 1..count {
        let mut b = if r as usize == me { sampler.bytes() } else { Vec::new() };
        x.pass(r, 0, &mut b)?;
        if me == 0 {
            samples.push(b);
        }
    }
    let mut cut_bytes = Vec::new();
    if me == 0 {
        samples.insert(0, sampler.bytes());
        for (s, r, k) in splitters(&samples, n)? {
            cut_bytes.extend_from_slice(&s.to_le_bytes());
            cut_bytes.extend_from_slice(&r.to_le_bytes());
            cut_bytes.extend_from_slice(&k.to_le_bytes());
        }
    }
    x.broadcast(0, &mut cut_bytes)?;
    if cut_bytes.len() % 24 != 0 || cut_bytes.len() / 24 >= n.max(1) {
        return Err(format!("the message ranges from shard 0 are {} bytes", cut_bytes.len()));
    }
    let cuts: Vec<Key> =
        cut_bytes.chunks_exact(24).map(|c| (u64_at(c, 0) as i64, u64_at(c, 8) as i64, u64_at(c, 16))).collect();
    // 3. Each message to the shard of its range; this shard's range as runs, one per sending shard.
    let mut keys = Keys(comms.keys.0);
    // What the other shards send, in memory while it fits half the share (then in the spill).
    let mut received = Received { spill, pages: Default::default(), held: 0, cap: share / 2, spilled: 0 };
    let mut ranged = Runs::new(PAGE_BYTES);
    let (mut messages, mut flows, mut latest) = (0u64, 0u64, i64::MIN);
    {
        let runs: Runs;
        let mut source = match sorted {
            Sorted::Memory(v) => Source::Memory(v.into_iter()),
            Sorted::Runs(r) => {
                runs = r;
                Source::Merge(runs.merge::<RawMessage>())
            }
        };
        let mut range = 0usize;
        let spill_cell = std::cell::RefCell::new(&mut received);
        let mut fill = |out: &mut [Vec<u8>], chunk: usize| -> Result<bool, String> {
            let mut bytes = 0;
            while bytes < chunk {
                let next = match &mut source {
                    Source::Memory(m) => m.next(),
                    Source::Merge(m) => m.next(&**spill_cell.borrow())?,
                };
                let Some(m) = next else { return Ok(false) };
                let k = key(&m);
                while range < cuts.len() && cuts[range] <= k {
                    range += 1;
                }
                m.put(&mut out[range]);
                bytes += RawMessage::BYTES;
            }
            Ok(true)
        };
        let mut take = |from: usize, b: &[u8]| -> Result<(), String> {
            if !b.len().is_multiple_of(RawMessage::BYTES) {
                return Err(format!("shard {from} sent {} bytes of messages", b.len()));
            }
            for r in b.chunks_exact(RawMessage::BYTES) {
                let m = RawMessage::get(r);
                messages += 1;
                flows += (m.kind == 1) as u64;
                latest = latest.max(m.send_ns).max(m.recv_ns);
            }
            ranged.add_page(from, b, &mut **spill_cell.borrow_mut(), &mut keys)
        };
        rounds(x, chunk, &mut fill, &mut take)?;
    }
    // 4. Every range's count, flows and latest time to every shard.
    let counts = crate::shard::exchange::numbers_to_all(x, [messages, flows, latest as u64], "message counts")?;
    let before: u64 = counts[..me].iter().map(|c| c[0]).sum();
    let total: u64 = counts.iter().map(|c| c[0]).sum();
    let total_flows: u64 = counts.iter().map(|c| c[1]).sum();
    let total_latest = counts.iter().map(|c| c[2] as i64).max().unwrap_or(i64::MIN);
    // 5. Numbered, each row to the shards of its sender's and receiver's blocks; those this shard gets as
    //    runs, one per sending shard, merged by number into the blocks' files.
    let (bl, blocks) = comms.blocks();
    let mut rows = Runs::new(PAGE_BYTES);
    let first_row_key = keys.0;
    {
        let mut merge = ranged.merge::<RawMessage>();
        let mut index = before;
        let spill_cell = std::cell::RefCell::new(&mut received);
        let mut fill = |out: &mut [Vec<u8>], chunk: usize| -> Result<bool, String> {
            let mut bytes = 0;
            while bytes < chunk {
                let Some(m) = merge.next(&**spill_cell.borrow())? else { return Ok(false) };
                let row = m.row(index, origin);
                index += 1;
                let (s, r) = (owner(row.sender.0, bl, blocks, count), owner(row.receiver.0, bl, blocks, count));
                row.put(&mut out[s]);
                if r != s {
                    row.put(&mut out[r]);
                }
                bytes += MessageRow::BYTES;
            }
            Ok(true)
        };
        let mut take = |from: usize, b: &[u8]| -> Result<(), String> {
            if !b.len().is_multiple_of(MessageRow::BYTES) {
                return Err(format!("shard {from} sent {} bytes of message rows", b.len()));
            }
            rows.add_page(from, b, &mut **spill_cell.borrow_mut(), &mut keys)
        };
        rounds(x, chunk, &mut fill, &mut take)?;
    }
    comms.keys.0 = keys.0;
    received.forget_before(first_row_key);
    comms.bytes += received.spilled;
    let mut merge = rows.merge::<MessageRow>();
    while let Some(row) = merge.next(&received)? {
        comms.put_message(&row, &mut *received.spill)?;
    }
    let latest = if total == 0 { 0 } else { total_latest.saturating_sub(origin).max(0) as u64 };
    comms.set_message_totals(total, total_flows, latest);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every location's shard is the one whose blocks hold it, whatever the counts.
    #[test]
    fn a_location_goes_to_the_shard_of_its_block() {
        for n in 1..7u32 {
            for blocks in 0..20u32 {
                for bl in 1..4u32 {
                    for l in 0..blocks * bl {
                        let k = owner(l, bl, blocks, n);
                        assert!(
                            Shard { index: k as u32, count: n }.blocks(blocks).contains(&(l / bl)),
                            "{n} {blocks} {bl} {l}"
                        );
                    }
                }
            }
        }
    }

    /// The cuts split weighted samples into ranges of about equal weight, rising, and never more than the
    /// ranges less one.
    #[test]
    fn samples_cut_into_ranges_of_about_equal_weight() {
        let mut a = Sampler::default();
        let mut b = Sampler::default();
        let m = |t: i64| RawMessage {
            send_ns: t,
            recv_ns: t + 1,
            nth: t as u64,
            sender: 0,
            receiver: 1,
            size_bytes: 8,
            tag: 0,
            name: 0,
            kind: 0,
            posted_ns: t + 1,
        };
        // Shard a: 100,000 messages at times 0..100,000; shard b: 1,000 at 100,000 on.
        (0..100_000).for_each(|t| a.see(&m(t)));
        (100_000..101_000).for_each(|t| b.see(&m(t)));
        assert!(a.samples.len() <= 2 * SAMPLES && a.samples.len() >= SAMPLES);
        let cuts = splitters(&[a.bytes(), b.bytes()], 4).unwrap();
        assert_eq!(cuts.len(), 3);
        assert!(cuts.windows(2).all(|w| w[0] < w[1]));
        for (k, c) in cuts.iter().enumerate() {
            let want = 101_000 * (k as i64 + 1) / 4;
            assert!((c.0 - want).abs() < 1_000, "cut {k} at {} for {want}", c.0);
        }
        assert!(splitters(&[Sampler::default().bytes()], 3).unwrap().is_empty());
        assert!(splitters(&[vec![1, 2, 3]], 3).is_err());
    }
}
